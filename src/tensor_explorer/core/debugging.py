"""Debugging the user's own script, without Qt: frames to values, the stop condition, the NaN
watch, and running a script as ``tensor-explorer run`` does.

- :func:`frame_values`: what a frame holds, as workspace values: its locals (the user's own
  objects, never copies), then the globals that are tensors, arrays, modules or optimizers (a
  function's frame; not shadowed by a local), and the imported modules (hidden in a workspace,
  there for the code bar: ``F.relu(x)``).
- :func:`stack_of` / :func:`failing_index`: the frames of a traceback, and the one to open at:
  the innermost frame of the user's own code (not torch's, NumPy's, the standard library's or
  ours).
- :func:`frame_error`: the error at a frame as a :class:`~.runner.ProgramError`, explained as
  the code bar explains it: the line, torch's message, the usual cause
  (:func:`~.explain.explain`), the values on the line with shape, dtype and device
  (:func:`~.runner.describe_operand`).
- :func:`should_stop`: ``tx.breakpoint(when=...)``'s condition.
- :class:`NanWatch`: a :class:`torch.overrides.TorchFunctionMode` that raises
  :class:`NonFiniteError` at the first torch operation whose floating output has a NaN or an
  Inf (forward), or whose backward makes one (a hook on the operation's autograd node).
- :func:`run_script`: a script run as full Python (its ``sys.argv``, ``__name__ ==
  "__main__"``, its folder first on ``sys.path``), its exit status, and a callback at an
  uncaught exception.
"""

from __future__ import annotations

import ast
import functools
import keyword
import linecache
import math
import os
import runpy
import sys
import sysconfig
import traceback
import types
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.overrides import TorchFunctionMode

from .catalog import Message
from .explain import explain
from .runner import ProgramError, describe_operand, statement_header

__all__ = [
    "FrameInfo",
    "NanWatch",
    "NonFiniteError",
    "exit_status",
    "failing_index",
    "frame_error",
    "frame_values",
    "run_script",
    "should_stop",
    "stack_of",
]

#: names a workspace keeps for its own modules (workspace.check_name refuses them)
_RESERVED = frozenset({"torch", "np", "nn", "F"})


# ---------------------------------------------------------------------------------------------
# the stop condition


def should_stop(when: Callable[[], object] | None) -> bool:
    """Whether ``tx.breakpoint(when=...)`` stops: always without ``when``, else when ``when()``
    is true. Nothing else is looked at, so a false condition costs one call."""
    return when is None or bool(when())


# ---------------------------------------------------------------------------------------------
# frames


@functools.cache
def _library_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    roots = {paths.get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    roots |= {os.path.dirname(torch.__file__), os.path.dirname(np.__file__),
              str(Path(__file__).resolve().parent.parent)}
    return tuple(sorted(os.path.realpath(r) + os.sep for r in roots if r))


@functools.lru_cache(maxsize=4096)
def is_library(filename: str) -> bool:
    """True for code that is not the user's: torch, NumPy, the standard library, installed
    packages, Tensor Explorer itself, frozen modules (remembered per file name)."""
    if filename.startswith("<"):
        return filename.startswith("<frozen")
    return os.path.realpath(filename).startswith(_library_roots())


@dataclass
class FrameInfo:
    """One frame of a stack: the frame, the line it is on, and whether it is the user's code."""

    frame: types.FrameType
    line: int
    filename: str
    function: str
    user: bool

    @property
    def where(self) -> str:
        """``"train.py:12 in step()"``: for a stack chooser."""
        name = "<module>" if self.function == "<module>" else f"{self.function}()"
        return f"{Path(self.filename).name}:{self.line} in {name}"

    @property
    def source_line(self) -> str | None:
        text = linecache.getline(self.filename, self.line, self.frame.f_globals).strip()
        return text or None


def _info(frame: types.FrameType, line: int) -> FrameInfo:
    code = frame.f_code
    return FrameInfo(frame, line, code.co_filename, code.co_name, not is_library(code.co_filename))


def stack_of(tb: types.TracebackType | None) -> list[FrameInfo]:
    """The frames of a traceback, outermost first (the failing one last)."""
    frames = []
    while tb is not None:
        frames.append(_info(tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    return frames


def stack_from(frame: types.FrameType | None) -> list[FrameInfo]:
    """The frames from the outermost to ``frame`` (a breakpoint's caller), outermost first."""
    frames = []
    while frame is not None:
        frames.append(_info(frame, frame.f_lineno))
        frame = frame.f_back
    return frames[::-1]


def failing_index(frames: Sequence[FrameInfo]) -> int:
    """The frame to open at: the innermost of the user's code (the innermost of all when none
    is the user's)."""
    for i in range(len(frames) - 1, -1, -1):
        if frames[i].user:
            return i
    return len(frames) - 1


def _kept(value: Any) -> bool:
    """A global worth showing beside a function's locals."""
    return isinstance(value, torch.Tensor | np.ndarray | torch.nn.Module | torch.optim.Optimizer)


def _nameable(name: str) -> bool:
    """A name a workspace takes (:func:`~.workspace.check_name`)."""
    return (isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name)
            and not name.startswith("_") and name not in _RESERVED)


def frame_values(frame: types.FrameType) -> dict[str, Any]:
    """The values a frame holds, by name, in order: its locals, then (in a function's frame)
    the globals that are tensors, arrays, modules or optimizers and that no local shadows, then
    the imported modules (a workspace hides those: they are there for the code bar).

    The objects themselves, never copies: a change made to one (in place, or to an attribute)
    is a change of the script's own object. Names a workspace cannot take (``_x``, ``torch``,
    ``np``...) are left out."""
    local = frame.f_locals
    values: dict[str, Any] = {}
    modules: dict[str, Any] = {}
    for name, value in local.items():
        if not _nameable(name):
            continue
        (modules if isinstance(value, types.ModuleType) else values)[name] = value
    glob = frame.f_globals
    if glob is not local:
        for name, value in glob.items():
            if not _nameable(name) or name in values or name in modules:
                continue
            if isinstance(value, types.ModuleType):
                modules[name] = value
            elif _kept(value):
                values[name] = value
    return {**values, **modules}


# ---------------------------------------------------------------------------------------------
# the error at a frame


_TREES: dict[str, tuple[int, ast.Module | None]] = {}


def _tree(filename: str, globs: Mapping[str, Any]) -> ast.Module | None:
    lines = linecache.getlines(filename, dict(globs))
    key = hash(tuple(lines))
    cached = _TREES.get(filename)
    if cached is not None and cached[0] == key:
        return cached[1]
    try:
        tree: ast.Module | None = ast.parse("".join(lines))
    except (SyntaxError, ValueError):
        tree = None
    _TREES[filename] = (key, tree)
    return tree


def names_read(tree: ast.Module | None, line: int) -> list[str]:
    """The names the innermost statement on ``line`` reads (only the header of a compound
    statement), in order of appearance, as the code bar's error lists them."""
    if tree is None:
        return []
    best: tuple[int, list[ast.AST]] | None = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        parts = statement_header(node)
        last = node.end_lineno or node.lineno
        if parts != [node]:
            last = max([node.lineno] + [getattr(p, "end_lineno", None) or node.lineno
                                        for p in parts])  # fmt: skip
        if node.lineno <= line <= last and (best is None or last - node.lineno <= best[0]):
            best = (last - node.lineno, parts)
    if best is None:
        return []
    found: dict[str, tuple[int, int]] = {}
    for part in best[1]:
        for n in ast.walk(part):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                found.setdefault(n.id, (n.lineno, n.col_offset))
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                found.setdefault(n.target.id, (n.target.lineno, n.target.col_offset))
    return sorted(found, key=found.__getitem__)


def line_values(info: FrameInfo) -> dict[str, Any]:
    """The values the frame's line reads, by name (locals first, then globals; modules left
    out)."""
    frame = info.frame
    local, glob = frame.f_locals, frame.f_globals
    out: dict[str, Any] = {}
    for name in names_read(_tree(info.filename, glob), info.line):
        if name in local:
            value = local[name]
        elif name in glob:
            value = glob[name]
        else:
            continue
        if not isinstance(value, types.ModuleType):
            out[name] = value
    return out


def frame_error(exc: BaseException | None, info: FrameInfo) -> ProgramError:
    """The error at ``info``'s frame, as the code bar says it: the line, the exception and
    torch's message, the usual cause in plain words, and the values on the line (and, for a
    :class:`NonFiniteError`, the operands of the operation) with shape, dtype and device.
    ``exc`` None: a breakpoint (the line only)."""
    values = line_values(info)
    extra: tuple[str, ...] = ()
    if info.function != "<module>":
        extra = (Message("debug.in-function", function=info.function, file=info.where),)
    if exc is None:
        return ProgramError(Message("debug.stopped-here"), line=info.line,
                            source_line=info.source_line, kind="breakpoint",
                            operands=_described(values), notes=extra)
    if isinstance(exc, NonFiniteError):
        operands = _described({**values, **exc.values})
        return ProgramError(exc.message, line=info.line, source_line=info.source_line,
                            kind="non-finite", error_type=type(exc).__name__,
                            torch_message=str(exc.message), explanation=Message(
                                "debug.nonfinite-cause"), operands=operands, notes=extra)
    try:
        why = explain(exc, values)
    except Exception:  # reading the values never hides the error itself
        why = None
    name = type(exc).__name__
    try:
        said = str(exc)
    except Exception:
        said = f"<{name} that cannot be printed>"
    return ProgramError(f"{name}: {said}" if said else name, line=info.line,
                        source_line=info.source_line, kind=why.kind if why else "error",
                        error_type=name, torch_message=said,
                        explanation=why.text if why else None, operands=_described(values),
                        notes=extra)


def _described(values: Mapping[str, Any]) -> list[tuple[str, str]]:
    out = []
    for name, value in values.items():
        try:
            desc = describe_operand(value)
        except Exception:  # a user's object that cannot be described is left out
            desc = None
        if desc is not None:
            out.append((name, desc))
    return out


# ---------------------------------------------------------------------------------------------
# the NaN watch


class NonFiniteError(FloatingPointError):
    """A torch operation made NaN or Inf values (raised by :class:`NanWatch`).

    ``function``: the operation (``"torch.log"``, ``"Tensor.__truediv__"``); ``stage``:
    ``"forward"`` or ``"backward"``; ``values``: its operands by name, the workspace values a
    stop shows (``input_0``, ``input_1``..., ``output``; for backward also ``grad_output_0``...
    and ``grad_input_0``...); ``where``: ``(file, line)`` of the user's code that called the
    operation (forward); ``message``: what happened, a catalog Message."""

    def __init__(self, message: Message, function: str, stage: str,
                 values: dict[str, Any], where: tuple[str, int] | None) -> None:
        super().__init__(message)
        self.message = message
        self.function = function
        self.stage = stage
        self.values = values
        self.where = where


def _tensors(obj: Any) -> Iterator[torch.Tensor]:
    if isinstance(obj, torch.Tensor):
        yield obj
    elif isinstance(obj, list | tuple):
        for item in obj:
            yield from _tensors(item)
    elif isinstance(obj, dict):
        for item in obj.values():
            yield from _tensors(item)


def nonfinite_count(t: torch.Tensor) -> tuple[int, int]:
    """(NaN count, ±Inf count) of a floating or complex tensor; (0, 0) for any other, and
    for a tensor without values to read (empty, meta, sparse). One reduction when all is
    finite (a sum is finite only when every element is)."""
    if (not (t.is_floating_point() or t.is_complex()) or t.layout != torch.strided
            or t.device.type == "meta" or t.numel() == 0):
        return 0, 0
    t = t.detach()  # (no graph is recorded for the check)
    s = t.sum().item()
    if isinstance(s, complex):
        finite = math.isfinite(s.real) and math.isfinite(s.imag)
    else:
        finite = math.isfinite(s)
    if finite:
        return 0, 0
    return int(torch.isnan(t).sum().item()), int(torch.isinf(t).sum().item())


def _function_name(func: Any) -> str:
    """``torch.log``, ``torch.nn.functional.linear``, ``Tensor.__mul__``."""
    name = getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or repr(func)
    owner, _, short = name.rpartition(".")
    if owner in ("_VariableFunctionsClass", "_VariableFunctions"):
        return f"torch.{short}"
    if owner in ("_TensorBase", "TensorBase", "Tensor"):
        return f"Tensor.{short}"
    module = getattr(func, "__module__", None) or ""
    if module.startswith("torch") and not owner:
        if module.startswith("torch._C._nn"):
            module = "torch.nn.functional"
        return f"{'torch' if module.startswith('torch._C') else module}.{name}"
    return name


def _caller(skip_from: str) -> tuple[str, int] | None:
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if name != skip_from and not is_library(name):
            return name, frame.f_lineno
        frame = frame.f_back  # type: ignore[assignment]
    return None


#: functions whose outputs are not new values (attribute reads and writes, printing), or are
#: memory not written yet (``torch.empty``: whatever bytes were there, NaN included)
_SKIPPED = frozenset({"__get__", "__set__", "__delete__", "__repr__", "__str__", "__format__",
                      "empty", "empty_like", "empty_strided", "empty_permuted", "new_empty",
                      "new_empty_strided"})


class NanWatch(TorchFunctionMode):
    """Raise :class:`NonFiniteError` at the first torch operation whose floating output has a
    NaN or an Inf (``with NanWatch(): ...``), and, with ``backward`` (the default), in
    ``backward()`` at the first operation whose gradient with respect to its inputs has one
    while the gradient it received had none.

    The check costs one reduction per floating output (a sum; a count only when it is not
    finite) and, when the output needs a gradient, a hook on its autograd node."""

    def __init__(self, backward: bool = True) -> None:
        super().__init__()
        self.backward = backward

    def __torch_function__(self, func: Any, types: Any, args: Sequence[Any] = (),
                           kwargs: Mapping[str, Any] | None = None) -> Any:
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if getattr(func, "__name__", "") in _SKIPPED:
            return out
        outputs = list(_tensors(out))
        for o in outputs:
            nan, inf = nonfinite_count(o)
            if nan or inf:
                self._stop(func, args, kwargs, out, nan, inf)
        if self.backward and torch.is_grad_enabled():
            for o in outputs:
                if o.grad_fn is not None and o.requires_grad:
                    self._watch_backward(func, args, kwargs, o)
                    break
        return out

    @staticmethod
    def _inputs(args: Sequence[Any], kwargs: Mapping[str, Any]) -> dict[str, Any]:
        return {f"input_{i}": t for i, t in enumerate(_tensors([list(args), dict(kwargs)]))}

    def _stop(self, func: Any, args: Sequence[Any], kwargs: Mapping[str, Any], out: Any,
              nan: int, inf: int) -> None:
        name = _function_name(func)
        values = self._inputs(args, kwargs)
        values["output"] = out
        had = [k for k, v in values.items() if k != "output" and any(nonfinite_count(v))]
        message = Message("debug.nonfinite-forward", function=name, nan=nan, inf=inf,
                          inputs=Message("debug.inputs-had", names=tuple(had)) if had
                          else Message("debug.inputs-finite"))
        raise NonFiniteError(message, name, "forward", values, _caller(__file__))

    def _watch_backward(self, func: Any, args: Sequence[Any], kwargs: Mapping[str, Any],
                        out: torch.Tensor) -> None:
        name = _function_name(func)
        where = _caller(__file__)
        refs = {k: weakref.ref(v) for k, v in self._inputs(args, kwargs).items()}
        out_ref = weakref.ref(out)

        def hook(grad_inputs: Sequence[torch.Tensor | None],
                 grad_outputs: Sequence[torch.Tensor | None]) -> None:
            bad = [(i, nonfinite_count(g)) for i, g in enumerate(grad_inputs) if g is not None]
            bad = [(i, c) for i, c in bad if any(c)]
            if not bad or any(any(nonfinite_count(g)) for g in grad_outputs if g is not None):
                return  # all finite, or the gradient came in non-finite (found before)
            values: dict[str, Any] = {}
            for key, ref in refs.items():
                value = ref()
                if value is not None:
                    values[key] = value
            output = out_ref()
            if output is not None:
                values["output"] = output
            values.update({f"grad_output_{i}": g for i, g in enumerate(grad_outputs)
                           if g is not None})
            values.update({f"grad_input_{i}": g for i, g in enumerate(grad_inputs)
                           if g is not None})
            nan = sum(c[0] for _i, c in bad)
            inf = sum(c[1] for _i, c in bad)
            file, line = where if where is not None else ("?", 0)
            message = Message("debug.nonfinite-backward", function=name, nan=nan, inf=inf,
                              file=Path(file).name, line=line)
            raise NonFiniteError(message, name, "backward", values, where)

        assert out.grad_fn is not None
        out.grad_fn.register_hook(hook)


# ---------------------------------------------------------------------------------------------
# running a script


def exit_status(exc: SystemExit) -> int:
    """The status Python exits with for ``SystemExit(code)`` (a message: printed, status 1)."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _user_traceback(tb: types.TracebackType | None, script: str) -> types.TracebackType | None:
    """The traceback from the script's own frame on (runpy's and ours left out)."""
    start = tb
    while start is not None and start.tb_frame.f_code.co_filename != script:
        start = start.tb_next
    return start if start is not None else tb


def run_script(path: str, args: Sequence[str] = (), *, stop_on_nan: bool = False,
               on_error: Callable[[BaseException, types.TracebackType | None], None]
               | None = None) -> int:
    """Run the script at ``path`` as ``python path args...`` would, and return its exit status.

    ``sys.argv`` is ``[path, *args]``, ``__name__`` is ``"__main__"``, the script's folder is
    first on ``sys.path`` (all put back after). ``stop_on_nan``: under :class:`NanWatch`.
    At an uncaught exception the traceback is printed on stderr, then ``on_error(exc, tb)``
    is called (tb: from the script's own frame on), and the status is 1. ``SystemExit`` is
    respected (its code), ``KeyboardInterrupt`` is 130."""
    script = str(Path(path).resolve())
    if not Path(script).is_file():
        raise FileNotFoundError(Message("debug.no-script", path=path))
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    sys.argv = [path, *args]
    sys.path.insert(0, str(Path(script).parent))
    try:
        try:
            if stop_on_nan:
                with NanWatch():
                    runpy.run_path(script, run_name="__main__")
            else:
                runpy.run_path(script, run_name="__main__")
        finally:
            sys.argv, sys.path[:] = saved_argv, saved_path
    except SystemExit as exc:
        return exit_status(exc)
    except KeyboardInterrupt:
        traceback.print_exc()
        return 130
    except BaseException as exc:
        tb = _user_traceback(exc.__traceback__, script)
        traceback.print_exception(type(exc), exc, tb)
        sys.stderr.flush()
        if on_error is not None:
            on_error(exc, tb)
        return 1
    return 0


def describe_stop(exc: BaseException, tb: types.TracebackType | None, lang: str = "en") -> str:
    """The error at the failing frame, as text (what ``run`` prints when no window opens)."""
    frames = stack_of(tb)
    if not frames:
        return f"{type(exc).__name__}: {exc}"
    info = frames[failing_index(frames)]
    return frame_error(exc, info).text(lang)
