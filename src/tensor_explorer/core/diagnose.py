"""Diagnoses: the course's common mistakes that can be seen on one value, in plain words.

`diagnose(value, name=None, role=None)` looks at one tensor or array and returns what a learner
should know about it: non-finite values, why `.grad` is (or will stay) None, non-contiguous
layouts where `view` fails, internal overlap where in-place writes are unsafe, inference tensors,
integer features and float labels. `role` ("features" | "labels") says what the value is for;
when it is not given, it is guessed from the name (``x``/``features``/``inputs`` and
``y``/``labels``/``targets``).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch

from .facts import TensorFacts, describe
from .stats import Stats, stats

SEVERITIES = ("error", "warning", "info")

_FEATURE_NAMES = re.compile(r"^(x|xb|x_?batch|inputs?|features?|feats?|batch_x|data)(_\w+)?$", re.I)
_LABEL_NAMES = re.compile(r"^(y|yb|y_?batch|labels?|targets?|classes|batch_y)(_\w+)?$", re.I)


@dataclass(frozen=True)
class Diagnosis:
    """One finding: a stable ``code``, a ``severity`` ("error" | "warning" | "info") and a
    ``message`` in plain words that says what it means and what to do."""

    code: str
    severity: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def guess_role(name: str | None) -> str | None:
    """'features' or 'labels' when the name says so, else None."""
    if not name:
        return None
    if _FEATURE_NAMES.match(name):
        return "features"
    if _LABEL_NAMES.match(name):
        return "labels"
    return None


def _fmt_index(index: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(i) for i in index) + "]" if index else "[] (the only element)"


def _nonfinite(s: Stats) -> Diagnosis | None:
    bad = s.nan + s.posinf + s.neginf
    if not bad:
        return None
    parts = [
        f"{n} {what}" for n, what in ((s.nan, "NaN"), (s.posinf, "+Inf"), (s.neginf, "-Inf")) if n
    ]
    first = _fmt_index(s.first_nonfinite or ())
    return Diagnosis(
        "nonfinite",
        "error",
        f"{bad:,} of {s.count:,} values are not finite ({', '.join(parts)}); the first is at "
        f"index {first}. A loss computed from them will be NaN: look for a division by zero, "
        f"log of 0 or a negative number, an overflow in float16, or a learning rate too high.",
    )


def _grad(f: TensorFacts, t: torch.Tensor) -> Diagnosis | None:
    if f.grad is not None:
        return None
    if not f.requires_grad:
        if not (t.is_floating_point() or t.is_complex()):
            return None  # integer tensors can never require grad; nothing to explain
        return Diagnosis(
            "grad-none-no-requires-grad",
            "info",
            ".grad is None and will stay None: requires_grad is False, so autograd does not "
            "track this tensor. Create it with requires_grad=True (or call .requires_grad_()) "
            "if you want its gradient.",
        )
    if not f.is_leaf:
        return Diagnosis(
            "grad-none-not-leaf",
            "info",
            f".grad is None because this tensor is not a leaf: it was computed "
            f"(grad_fn={f.grad_fn}), and backward() only fills .grad of leaves. Call "
            f".retain_grad() on it before backward() to keep its gradient.",
        )
    return Diagnosis(
        "grad-none-no-backward",
        "info",
        ".grad is None because no backward() has reached this tensor yet (or its gradient was "
        "reset with zero_grad(set_to_none=True)). Run loss.backward() on a result computed "
        "from it.",
    )


def diagnose(
    value: torch.Tensor | np.ndarray,
    name: str | None = None,
    role: str | None = None,
    *,
    value_stats: Stats | None = None,
) -> list[Diagnosis]:
    """The common mistakes visible on ``value``, most severe first.

    ``value_stats`` may pass statistics computed earlier (the full pass is the costly part).
    """
    f = describe(value)
    role = role or guess_role(name)
    out: list[Diagnosis] = []
    is_tensor = isinstance(value, torch.Tensor)
    numeric = is_tensor or value.dtype.kind in "biufc"
    if is_tensor and value.device.type == "meta":
        out.append(
            Diagnosis(
                "meta-device",
                "info",
                "This tensor is on the 'meta' device: it has a shape and dtype but no values. "
                "Mixing it with tensors on other devices fails like a CPU/CUDA mismatch does.",
            )
        )
    elif numeric and f.numel:
        s = value_stats if value_stats is not None else stats(value)
        d = _nonfinite(s)
        if d:
            out.append(d)
    if f.is_inference:
        out.append(
            Diagnosis(
                "inference-tensor",
                "warning",
                "This tensor was made under torch.inference_mode(): it can never enter "
                "autograd. Using it in a computation that needs gradients fails; clone() it "
                "outside inference_mode, or use torch.no_grad() instead.",
            )
        )
    if f.internal_overlap:
        out.append(
            Diagnosis(
                "internal-overlap",
                "warning",
                "Several elements of this value share the same memory (as after expand() or "
                "broadcast_to): an in-place write would change all of them at once, and torch "
                "refuses most in-place operations on it. Use .clone() (or .contiguous()) to "
                "get independent elements first.",
            )
        )
    elif not f.is_contiguous and f.numel > 1:
        out.append(
            Diagnosis(
                "non-contiguous",
                "info",
                f"Not contiguous (stride {tuple(f.stride)} for shape {tuple(f.shape)}), as "
                f"after t(), permute() or a step slice: .view() with a new shape will fail. "
                f"Use .reshape(), or .contiguous() first.",
            )
        )
    if is_tensor:
        d = _grad(f, value)
        if d:
            out.append(d)
    kind = (
        "floating"
        if ("float" in f.dtype or "bfloat" in f.dtype)
        else ("complex" if "complex" in f.dtype else "bool" if "bool" in f.dtype else "integer")
    )
    if role == "features" and kind in ("integer", "bool"):
        out.append(
            Diagnosis(
                "integer-features",
                "error",
                f"These look like model inputs (features) but the dtype is {f.dtype}: layers "
                f'such as nn.Linear expect floating point and fail with "expected scalar type '
                f'Float". Convert with .float() (or dtype=torch.float32 when creating it).',
            )
        )
    if role == "labels" and kind == "floating":
        out.append(
            Diagnosis(
                "float-labels",
                "error",
                f"These look like class labels but the dtype is {f.dtype}: cross_entropy with "
                f"class indices expects int64 (torch.long) labels of shape (batch,). Convert "
                f"with .long(); keep float only for probabilities/soft targets of shape "
                f"(batch, classes).",
            )
        )
    elif role == "labels" and kind == "integer" and f.dtype not in ("torch.int64", "int64"):
        out.append(
            Diagnosis(
                "labels-not-long",
                "warning",
                f"Class labels are {f.dtype}; cross_entropy expects int64 (torch.long) and "
                f'fails with "expected target dtype to be Long". Convert with .long().',
            )
        )
    order = {s: i for i, s in enumerate(SEVERITIES)}
    out.sort(key=lambda d: order[d.severity])
    return out
