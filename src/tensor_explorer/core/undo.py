"""Undo and redo of workspace changes (no Qt).

A :class:`Change` is what one action did to a :class:`~tensor_explorer.core.workspace.Workspace`
(a run, a deletion, a rename, a value handed in, backward from the graph pane, clearing it for
another lesson): the names and what they were bound to before and after (references: an object
no statement changed needs no copy), the history, origins and selection, and the bytes of every
tensor, array and ``.grad`` the action changed in place, kept *copy-on-write*:

- tensors: while the action runs, a ``TorchFunctionMode`` on the running thread sees every
  in-place torch operation (``add_``, ``x[i] = v``, ``x += 1``, ``out=``, ``nn.init.*_``, an
  optimizer's ``_foreach_*_``...); the first time one writes into the memory of a workspace
  value, that allocation is copied; nothing is copied for the rest;
- NumPy arrays and ``.grad`` (written by NumPy or autograd's C++ code, which the mode does not
  see) are copied when the action starts, if they are small enough, and kept only if the
  action changed them;
- undo and redo swap the kept bytes with the live ones, so a change holds one copy of what it
  changed, whichever way it was last applied.

Memory is bounded: a change that would keep more than its budget is not undoable (it says why),
and the undo stack drops its oldest changes past the stack budget (:class:`UndoBudget`).
Not restored: the inner state of other Python objects changed in place (an optimizer's step
counts, a list a program appended to), which the change says in its ``notes``.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch.overrides import TorchFunctionMode

from .catalog import Message

__all__ = ["Change", "UndoBudget", "UndoHistory", "budget", "watching"]


@dataclass
class UndoBudget:
    """Bytes a change may keep (``change``) and all kept changes together (``stack``), and the
    largest array or ``.grad`` set copied up front (``eager``)."""

    change: int = 256 << 20
    stack: int = 1 << 30
    eager: int = 16 << 20


budget = UndoBudget()


@dataclass
class Names:
    """The workspace's bookkeeping at one moment (references, no copies of data)."""

    ns: dict[str, Any]
    rns: dict[str, Any]
    origins: dict[str, Any]
    history: list[Any]
    user_names: set[str]
    selected: str | None
    functions: dict[Any, Any]
    rfunctions: dict[Any, Any]


def _storage_key(t: torch.Tensor) -> tuple[str, int] | None:
    try:
        if t.layout != torch.strided or t.device.type == "meta":
            return None
        s = t.untyped_storage()
        return (str(t.device), s.data_ptr()) if s.nbytes() else None
    except (RuntimeError, NotImplementedError, TypeError):
        return None


def _tensors_of(value: Any, out: list[torch.Tensor], depth: int = 0) -> None:
    """The tensors a workspace value holds: itself, a module's parameters and buffers, an
    optimizer's state, the tensors in small lists, tuples and dicts."""
    if isinstance(value, torch.Tensor):
        out.append(value)
    elif isinstance(value, torch.nn.Module):
        with contextlib.suppress(Exception):  # a user's module may misbehave
            out.extend(value.parameters())
            out.extend(value.buffers())
    elif isinstance(value, torch.optim.Optimizer):
        with contextlib.suppress(Exception):
            for state in value.state.values():
                out.extend(v for v in state.values() if isinstance(v, torch.Tensor))
            for group in value.param_groups:
                out.extend(p for p in group.get("params", ()) if isinstance(p, torch.Tensor))
    elif depth < 2 and type(value) in (list, tuple) and len(value) <= 1000:
        for v in value:
            _tensors_of(v, out, depth + 1)
    elif depth < 2 and type(value) is dict and len(value) <= 1000:
        for v in value.values():
            _tensors_of(v, out, depth + 1)


def _arrays_of(value: Any, out: list[np.ndarray], depth: int = 0) -> None:
    if isinstance(value, np.ndarray) and value.dtype != object:
        out.append(value)
    elif depth < 2 and type(value) in (list, tuple) and len(value) <= 1000:
        for v in value:
            _arrays_of(v, out, depth + 1)
    elif depth < 2 and type(value) is dict and len(value) <= 1000:
        for v in value.values():
            _arrays_of(v, out, depth + 1)


def _writes_of(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any] | None) -> list[Any]:
    """The tensors (or lists of them) an operation writes into, when it writes in place."""
    name = getattr(func, "__name__", "") or ""
    out: list[Any] = []
    if kwargs and kwargs.get("out") is not None:
        out.append(kwargs["out"])
    if (name.endswith("_") and not name.endswith("__")) or name in _IN_PLACE_DUNDERS:
        if args:
            out.append(args[0])
        elif kwargs:  # (nn.init passes its tensor by keyword)
            out.extend(kwargs[k] for k in ("self", "input", "tensor") if k in kwargs)
        if name.startswith("_fused_") or name.startswith("_foreach_"):
            out.extend(a for a in args[1:] if isinstance(a, list | tuple))  # (optimizer state)
    return out


_IN_PLACE_DUNDERS = frozenset({
    "__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__",
    "__imod__", "__ipow__", "__imatmul__", "__iand__", "__ior__", "__ixor__", "__ilshift__",
    "__irshift__", "__set__",
})  # fmt: skip


class _CopyOnWrite(TorchFunctionMode):
    """Copies a watched allocation the first time an in-place operation writes into it."""

    def __init__(self, change: Change, watched: dict[tuple[str, int], Any]) -> None:
        super().__init__()
        self.change = change
        self.watched = watched

    def __torch_function__(self, func: Any, types: Any, args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        targets = _writes_of(func, args, kwargs)
        if targets:
            for target in targets:
                for t in (target if isinstance(target, list | tuple) else (target,)):
                    if isinstance(t, torch.Tensor):
                        self.change._save(t, self.watched)
        return func(*args, **(kwargs or {}))


@dataclass(eq=False)
class Change:
    """What one action did to a workspace, and how to take it back (see the module docstring).

    ``label``: what the action was (the Edit menu says "Undo {label}"); ``undoable``: False when
    it could not be recorded (``reason`` says why, in English); ``nbytes``: the bytes it keeps;
    ``notes``: what undo will not put back."""

    label: str
    before: Names
    after: Names | None = None
    undoable: bool = True
    reason: str = ""  # why it cannot be undone: a catalog Message
    notes: list[str] = field(default_factory=list)
    nbytes: int = 0
    applied: bool = True  # True: the workspace shows the after state
    _storages: dict[tuple[str, int], tuple[Any, Any]] = field(default_factory=dict)
    _arrays: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    _grads: list[tuple[torch.Tensor, Any, Any]] = field(default_factory=list)  # leaf, before, after
    _eager: list[tuple[Any, Any, int | None]] = field(default_factory=list)  # grad, copy, version
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _swapped: bool = False  # swap_data ran an odd number of times (the before state is live)

    # -- while the action runs -------------------------------------------------------------

    def _keep(self, nbytes: int) -> bool:
        if not self.undoable:
            return False
        if self.nbytes + nbytes > budget.change:
            self.undoable = False
            self.reason = Message("undo.too-large", mib=budget.change >> 20)
            self._drop()
            return False
        self.nbytes += nbytes
        return True

    def _save(self, t: torch.Tensor, watched: dict[tuple[str, int], Any]) -> None:
        key = _storage_key(t)
        if key is None or key not in watched or key in self._storages:
            return
        with self._lock:
            if key in self._storages:
                return
            storage = watched[key]
            if self._keep(storage.nbytes()):
                self._storages[key] = (storage, storage.clone())

    def _drop(self) -> None:
        self._storages.clear()
        self._arrays.clear()
        self._eager.clear()

    # -- undo / redo -------------------------------------------------------------------------

    def swap_data(self) -> None:
        """Exchange the kept bytes with the live ones (undo, then redo, then undo...).

        Kept copies may cover the same memory twice (a tensor and the NumPy array it shares
        bytes with, ``torch.from_numpy``): the swaps then do not commute, so swapping back
        runs them in the reverse order, which makes redo the exact inverse of undo."""
        steps: list[tuple[bool, Any]] = [(True, key) for key in self._storages]
        steps += [(False, i) for i in range(len(self._arrays))]
        if self._swapped:
            steps.reverse()
        self._swapped = not self._swapped
        with torch.no_grad():
            for is_storage, key in steps:
                if is_storage:
                    live, kept = self._storages[key]
                    now = live.clone()
                    live.copy_(kept)
                    self._storages[key] = (live, now)
                else:
                    live_a, kept_a = self._arrays[key]
                    now_a = live_a.copy()
                    if live_a.flags.writeable:
                        np.copyto(live_a, kept_a)
                    self._arrays[key] = (live_a, now_a)

    @property
    def changes_gradients(self) -> bool:
        """Whether this change set some leaf's ``.grad`` (undo puts it back)."""
        return bool(self._grads)

    def set_grads(self, before: bool) -> None:
        """Put back each leaf's ``.grad`` object as it was before (or after) the action."""
        for leaf, g_before, g_after in self._grads:
            with contextlib.suppress(RuntimeError, TypeError):
                leaf.grad = g_before if before else g_after


def _version(t: torch.Tensor | None) -> int | None:
    if t is None:
        return None
    try:
        return int(t._version)
    except RuntimeError:  # (inference tensors have no version counter)
        return None


@contextlib.contextmanager
def watching(change: Change, values: list[Any], *, torch_writes: bool = True) -> Iterator[None]:
    """Record into ``change`` what is written in place into ``values`` while inside (on this
    thread): torch writes copy-on-write, arrays and ``.grad`` copied up front if small."""
    tensors: list[torch.Tensor] = []
    arrays: list[np.ndarray] = []
    for v in values:
        _tensors_of(v, tensors)
        _arrays_of(v, arrays)
    watched: dict[tuple[str, int], Any] = {}
    leaves: dict[int, torch.Tensor] = {}
    for t in tensors:
        key = _storage_key(t)
        if key is not None and key not in watched:
            with contextlib.suppress(RuntimeError):
                watched[key] = t.untyped_storage()
        if t.is_leaf and t.requires_grad:
            leaves[id(t)] = t
    grads = [(leaf, leaf.grad, _version(leaf.grad)) for leaf in leaves.values()]
    # .grad: autograd accumulates in C++ (the mode does not see it); copied up front
    grad_bytes = sum(g.untyped_storage().nbytes() for _, g, _v in grads
                     if g is not None and _storage_key(g) is not None)
    if grad_bytes <= budget.eager:
        for _, g, _v in grads:
            if g is not None and _storage_key(g) is not None:
                change._eager.append((g, g.untyped_storage().clone(), g._version))
        eager_grads = True
    else:
        eager_grads = False
    array_copies: list[tuple[np.ndarray, np.ndarray]] = []
    array_bytes = sum(a.nbytes for a in arrays)
    if array_bytes <= budget.eager:
        array_copies = [(a, a.copy()) for a in arrays]
    mode = _CopyOnWrite(change, watched) if torch_writes else None
    try:
        if mode is not None:
            with mode:
                yield
        else:
            yield
    finally:
        # arrays and grads: keep what changed
        for live, copy in array_copies:
            with contextlib.suppress(Exception):
                if (live.shape == copy.shape and not np.array_equal(live, copy, equal_nan=True)
                        and change._keep(copy.nbytes)):
                    change._arrays.append((live, copy))
        if array_bytes > budget.eager and arrays:
            change.notes.append("NumPy arrays too large to copy up front are not put back if "
                                "changed in place")
        for g, copy, version in change._eager:
            try:
                changed = g._version != version
            except RuntimeError:
                changed = True
            key = _storage_key(g)
            if (changed and key is not None and key not in change._storages
                    and change._keep(copy.nbytes())):
                change._storages[key] = (g.untyped_storage(), copy)
        change._eager.clear()
        for leaf, before, version in grads:
            after = leaf.grad
            if after is not before:
                change._grads.append((leaf, before, after))
            if not eager_grads and before is not None and _version(before) != version:
                change.undoable = False
                change.reason = Message("undo.gradients-too-large")
                change._drop()


class UndoHistory:
    """The changes of one workspace that can be undone (newest last) and redone.

    ``push`` a change the workspace reported (``events.undoable``): it drops what could be
    redone; past ``budget.stack`` bytes kept, the oldest changes are forgotten. ``clear`` when
    the workspace reports a change that cannot be undone (``events.not_undoable``): undoing
    past it would put back a state that no longer follows from the present one.
    """

    def __init__(self) -> None:
        self.done: list[Change] = []
        self.undone: list[Change] = []
        #: why the history was last cleared (a change that could not be undone), or ""
        self.cleared_because = ""

    def push(self, change: Change) -> None:
        """A change just made."""
        self.done.append(change)
        self.undone.clear()
        self.cleared_because = ""
        total = sum(c.nbytes for c in self.done)
        while total > budget.stack and len(self.done) > 1:
            total -= self.done.pop(0).nbytes

    def clear(self, reason: str = "") -> None:
        """Forget everything (``reason``: the change that could not be undone)."""
        self.done.clear()
        self.undone.clear()
        self.cleared_because = reason

    @property
    def undo_label(self) -> str | None:
        """What Undo would take back, or None."""
        return self.done[-1].label if self.done else None

    @property
    def redo_label(self) -> str | None:
        """What Redo would make again, or None."""
        return self.undone[-1].label if self.undone else None

    def undo(self, workspace: Any) -> Change | None:
        """Take back the last change (``workspace.undo``); None when there is none."""
        if not self.done:
            return None
        change = self.done[-1]
        workspace.undo(change)  # raises while a program runs: nothing moved then
        self.undone.append(self.done.pop())
        return change

    def redo(self, workspace: Any) -> Change | None:
        """Make the last undone change again; None when there is none."""
        if not self.undone:
            return None
        change = self.undone[-1]
        workspace.redo(change)
        self.done.append(self.undone.pop())
        return change
