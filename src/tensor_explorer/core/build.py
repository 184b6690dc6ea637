"""The Build form's model: a factory call described as data, turned into a statement.

`BuildSpec(...).code()` gives the PyTorch statement the Build form runs (through the restricted
runner, so it lands in the code history like typed code). Validation errors are ``ValueError``
with a plain message naming the field.
"""

from __future__ import annotations

import ast
import functools
import keyword
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .catalog import Message

FACTORIES = ("tensor", "zeros", "ones", "full", "rand", "randn", "arange", "linspace", "eye")
DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
          "uint8", "bool", "complex64", "complex128")
#: factories whose result can require grad only for floating (or complex) dtypes
_FLOAT_ONLY = ("rand", "randn", "linspace")


def _probe(factory: str) -> Callable[[Any], object]:
    """A one-element call of ``torch.<factory>`` with a given dtype. On the CPU, not the meta
    device: meta tensors skip some dtype checks (``torch.rand(1, dtype=torch.int64,
    device="meta")`` succeeds). Random factories draw from their own generator, so the
    global random state the user may have seeded is untouched."""
    import torch

    gen = torch.Generator()
    calls: dict[str, Callable[[Any], object]] = {
        "tensor": lambda dt: torch.tensor([0], dtype=dt),
        "zeros": lambda dt: torch.zeros(1, dtype=dt),
        "ones": lambda dt: torch.ones(1, dtype=dt),
        "full": lambda dt: torch.full((1,), 1, dtype=dt),
        "rand": lambda dt: torch.rand(1, dtype=dt, generator=gen),
        "randn": lambda dt: torch.randn(1, dtype=dt, generator=gen),
        "arange": lambda dt: torch.arange(0, 2, 1, dtype=dt),
        "linspace": lambda dt: torch.linspace(0, 1, 2, dtype=dt),
        "eye": lambda dt: torch.eye(1, dtype=dt),
    }
    return calls[factory]


@functools.cache
def accepted_dtypes(factory: str) -> tuple[str, ...]:
    """The dtypes of :data:`DTYPES` that ``torch.<factory>`` makes tensors of (``randn``:
    floating and complex; ``arange``: not bool nor complex), asked of torch itself once per
    factory: the Build form offers only these."""
    import torch

    call = _probe(factory)
    accepted = []
    for name in DTYPES:
        try:
            call(getattr(torch, name))
        except Exception:  # torch's refusal: RuntimeError, TypeError, NotImplementedError
            continue
        accepted.append(name)
    return tuple(accepted)


def parse_shape(text: str) -> tuple[int, ...]:
    """``"2, 3"`` / ``"(2, 3)"`` / ``"2x3"`` -> ``(2, 3)``; raises ValueError."""
    # "2x3" and "2×3" mean "2, 3"; an x anywhere else is an error, not a separator
    cleaned = re.sub(r"(?<=\d)\s*[x×]\s*(?=\d)", ",", text.strip().strip("()[]"))
    if not cleaned:
        return ()
    try:
        dims = tuple(int(p) for p in cleaned.split(",") if p.strip())
    except ValueError:
        raise ValueError(Message("build.shape-numbers", text=repr(text))) from None
    if any(d < 0 for d in dims):
        raise ValueError(Message("build.shape-negative", text=repr(text)))
    return dims


def _number(text: str, field: str) -> str:
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError):
        raise ValueError(Message("build.not-a-number", field=field, text=repr(text))) from None
    if isinstance(value, bool) or not isinstance(value, int | float | complex):
        raise ValueError(Message("build.not-a-number", field=field, text=repr(text)))
    return repr(value)


@dataclass
class BuildSpec:
    """What the Build form says. ``args`` holds the factory-specific text fields."""

    name: str
    factory: str = "randn"
    shape: str = "2, 3"
    dtype: str | None = None  # None: torch's default
    device: str | None = None
    requires_grad: bool = False
    seed: int | None = None
    literal: str = "[[1.0, 2.0], [3.0, 4.0]]"
    fill: str = "0.5"
    start: str = "0"
    end: str = "10"
    step: str = "1"
    steps: str = "5"

    def code(self) -> str:
        """The statement(s) that build the value; raises ValueError for a bad field."""
        if not self.name.isidentifier() or keyword.iskeyword(self.name) or \
                self.name.startswith("_"):
            raise ValueError(Message("build.bad-name", name=repr(self.name)))
        if self.factory not in FACTORIES:
            raise ValueError(Message("build.bad-factory", factory=repr(self.factory),
                                     factories=", ".join(FACTORIES)))
        if self.dtype is not None and self.dtype not in DTYPES:
            raise ValueError(Message("build.bad-dtype", dtype=repr(self.dtype)))
        f = self.factory
        if self.dtype is not None and self.dtype not in accepted_dtypes(f):
            raise ValueError(Message("build.dtype-not-made", factory=f, dtype=self.dtype))
        if f == "tensor":
            try:
                literal = ast.literal_eval(self.literal.strip())
            except (ValueError, SyntaxError):
                raise ValueError(Message("build.bad-values", text=repr(self.literal))) from None
            args = [repr(literal)]
        elif f in ("zeros", "ones", "rand", "randn"):
            args = [str(d) for d in parse_shape(self.shape)] or ["()"]
        elif f == "full":
            args = [repr(parse_shape(self.shape)), _number(self.fill, Message("build.fill-value"))]
        elif f == "arange":
            args = [_number(self.start, Message("build.start")),
                    _number(self.end, Message("build.end")),
                    _number(self.step, Message("build.step"))]
        elif f == "linspace":
            args = [_number(self.start, Message("build.start")),
                    _number(self.end, Message("build.end")),
                    str(int(_number(self.steps, Message("build.steps"))))]
        else:  # eye
            dims = parse_shape(self.shape)
            if len(dims) not in (1, 2):
                raise ValueError(Message("build.eye-shape"))
            args = [str(d) for d in dims]
        kwargs = []
        if self.dtype:
            kwargs.append(f"dtype=torch.{self.dtype}")
        if self.device:
            kwargs.append(f"device={self.device!r}")
        if self.requires_grad:
            if self.dtype in ("int64", "int32", "int16", "int8", "uint8", "bool"):
                raise ValueError(Message("build.grad-needs-float"))
            kwargs.append("requires_grad=True")
        call = f"{self.name} = torch.{f}({', '.join(args + kwargs)})"
        if self.seed is not None and f in ("rand", "randn"):
            return f"torch.manual_seed({int(self.seed)})\n{call}"
        return call
