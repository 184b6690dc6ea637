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
- a tensor's memory handed to NumPy in the action (``t.numpy()``, ``np.asarray(t)``,
  ``t.untyped_storage()``), which NumPy may then write unseen, is copied when it is handed over
  and kept only if it changed (past the budget, a digest says whether it changed);
- undo and redo swap the kept bytes with the live ones, so a change holds one copy of what it
  changed, whichever way it was last applied.

Metadata is compared, not watched: before the action, each workspace tensor's (and ``.grad``'s)
storage, size, strides, offset, storage size, ``requires_grad`` and ``is_leaf``, and each array's
shape, strides, dtype and ``writeable`` flag are recorded (no copies); what differs afterwards
(``unsqueeze_``, ``t_``, ``resize_``, ``set_``, ``requires_grad_``, ``detach_``, ``a.shape =``,
``a.dtype =``, ``a.flags.writeable =``) is set back on undo and forward again on redo
(``set_``/``as_strided_``, ``requires_grad_``, ``detach_``; NumPy's attribute setters).
Autograd history cannot be given back to a tensor that lost it, nor made again for one that
gained it, and NumPy does not make an array that borrows memory writeable again: the change
says so in its ``notes`` (catalog Messages) and :attr:`UndoHistory.undo_text`.

Memory is bounded: a change that would keep more than its budget is not undoable (it says why),
and the undo stack drops its oldest changes past the stack budget (:class:`UndoBudget`).
Not restored: the inner state of other Python objects changed in place (an optimizer's step
counts, a list a program appended to), which the change says in its ``notes``.
"""

from __future__ import annotations

import bisect
import contextlib
import ctypes
import hashlib
import threading
import warnings
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


#: Tensor methods that hand a tensor's memory to code the mode does not see (NumPy, DLPack,
#: the storage's own methods): its bytes are copied then, kept only if they changed
_EXPOSING = frozenset({"numpy", "__array__", "__dlpack__", "untyped_storage", "storage",
                       "_typed_storage"})


class _Watched:
    """The allocations of the workspace's tensors, by key and by address range (a tensor made
    in the action over part of one, ``torch.from_numpy(t.numpy()[2:])``, finds it too)."""

    def __init__(self) -> None:
        self.by_key: dict[tuple[str, int], Any] = {}
        self._ranges: list[tuple[int, int, tuple[str, int]]] = []
        self._starts: list[int] = []
        self._longest = 0

    def add(self, key: tuple[str, int], storage: Any) -> None:
        if key not in self.by_key:
            self.by_key[key] = storage

    def seal(self) -> None:
        """Index the ranges (after the last :meth:`add`)."""
        ranges = []
        for key, storage in self.by_key.items():
            with contextlib.suppress(RuntimeError):
                ranges.append((key[1], key[1] + storage.nbytes(), key))
        ranges.sort()
        self._ranges = ranges
        self._starts = [r[0] for r in ranges]
        self._longest = max((r[1] - r[0] for r in ranges), default=0)

    def __contains__(self, key: object) -> bool:
        return key in self.by_key

    def __getitem__(self, key: tuple[str, int]) -> Any:
        return self.by_key[key]

    def find(self, t: torch.Tensor) -> list[tuple[str, int]]:
        """The watched allocations whose bytes ``t``'s allocation overlaps."""
        key = _storage_key(t)
        if key is None:
            return []
        if key in self.by_key:
            return [key]
        try:
            lo, hi = key[1], key[1] + t.untyped_storage().nbytes()
        except RuntimeError:
            return []
        found = []
        j = bisect.bisect_left(self._starts, hi) - 1
        while j >= 0 and self._ranges[j][0] > lo - self._longest:
            _start, end, k = self._ranges[j]
            if end > lo and k[0] == key[0]:
                found.append(k)
            j -= 1
        return found


class _CopyOnWrite(TorchFunctionMode):
    """Copies a watched allocation the first time an in-place operation writes into it (or the
    first time its memory is handed to NumPy, which may write it unseen)."""

    def __init__(self, change: Change, watched: _Watched) -> None:
        super().__init__()
        self.change = change
        self.watched = watched

    def __torch_function__(self, func: Any, types: Any, args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        if (getattr(func, "__name__", None) in _EXPOSING and args
                and isinstance(args[0], torch.Tensor)):
            self.change._save(args[0], self.watched, tentative=True)
        targets = _writes_of(func, args, kwargs)
        if targets:
            for target in targets:
                for t in (target if isinstance(target, list | tuple) else (target,)):
                    if isinstance(t, torch.Tensor):
                        self.change._save(t, self.watched)
        return func(*args, **(kwargs or {}))


@dataclass(frozen=True)
class _TensorMeta:
    """A tensor's metadata at one moment (its storage by reference, for ``set_``)."""

    storage: Any = field(compare=False)
    storage_id: int
    nbytes: int
    size: tuple[int, ...]
    stride: tuple[int, ...]
    offset: int
    requires_grad: bool
    is_leaf: bool


def _tensor_meta(t: torch.Tensor) -> _TensorMeta | None:
    try:
        if t.layout != torch.strided or t.device.type == "meta":
            return None
        s = t.untyped_storage()
        return _TensorMeta(s, int(getattr(s, "_cdata", 0)), s.nbytes(), tuple(t.shape),
                           tuple(t.stride()), int(t.storage_offset()), t.requires_grad,
                           t.is_leaf)
    except (RuntimeError, NotImplementedError, TypeError):
        return None


def _set_tensor_meta(t: torch.Tensor, m: _TensorMeta) -> bool:
    """Give ``t`` the metadata ``m``; False where torch cannot (autograd history)."""
    now = _tensor_meta(t)
    if now is None:
        return False
    try:
        with torch.no_grad():
            if m.storage.nbytes() != m.nbytes:  # (resized, not written: no bytes kept)
                m.storage.resize_(m.nbytes)
            if now.storage_id != m.storage_id:
                t.set_(m.storage, m.offset, m.size, m.stride)
            elif (now.size, now.stride, now.offset) != (m.size, m.stride, m.offset):
                t.as_strided_(m.size, m.stride, m.offset)
        ok = True
        if m.is_leaf and not t.is_leaf:
            try:
                t.detach_()  # (gained autograd history: drop it)
            except RuntimeError:  # (a view cannot)
                ok = False
        elif not m.is_leaf and t.is_leaf:
            ok = False  # (history cannot be given back)
        if t.is_leaf and t.requires_grad != m.requires_grad:
            t.requires_grad_(m.requires_grad)
        return ok and t.requires_grad == m.requires_grad
    except (RuntimeError, TypeError, ValueError):
        return False


@dataclass(frozen=True)
class _ArrayMeta:
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: Any
    writeable: bool

    @property
    def layout(self) -> tuple[Any, ...]:
        return (self.shape, self.strides, self.dtype)


def _array_meta(a: np.ndarray) -> _ArrayMeta:
    return _ArrayMeta(a.shape, a.strides, a.dtype, bool(a.flags.writeable))


def _c_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    out, step = [], itemsize
    for n in reversed(shape):
        out.append(step)
        step *= max(n, 1)
    return tuple(reversed(out))


def _set_layout(a: np.ndarray, m: _ArrayMeta) -> bool:
    """Give ``a`` (in place) the shape, strides and dtype of ``m``; False where NumPy won't
    (NumPy checks new strides against the memory the array's base, or else its present
    layout, spans)."""

    def flat() -> None:  # (contiguous, one axis: any dtype of a dividing size fits)
        with contextlib.suppress(ValueError, AttributeError):
            a.shape = (a.size,)
            return
        a.strides = _c_strides(a.shape, a.itemsize)
        a.shape = (a.size,)

    def dtype() -> None:
        if a.dtype != m.dtype:
            try:
                a.dtype = m.dtype  # type: ignore[misc]
            except (ValueError, TypeError):
                flat()
                a.dtype = m.dtype  # type: ignore[misc]

    def direct() -> None:
        a.shape = m.shape
        a.strides = m.strides

    def contiguous_first() -> None:
        a.strides = _c_strides(a.shape, a.itemsize)
        direct()

    def zero_first() -> None:  # (any reshape of zero strides works; only with a base)
        if a.base is not None and a.ndim:
            a.strides = (0,) * a.ndim
        direct()

    if _array_meta(a).layout == m.layout:
        return True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # (setting strides, NumPy 2.4)
        with contextlib.suppress(ValueError, TypeError, AttributeError):
            dtype()
        for attempt in (direct, contiguous_first, zero_first):
            with contextlib.suppress(ValueError, TypeError, AttributeError):
                attempt()
            if _array_meta(a).layout == m.layout:
                return True
    return False


def _set_writeable(a: np.ndarray, writeable: bool) -> bool:
    if bool(a.flags.writeable) != writeable:
        with contextlib.suppress(ValueError):
            a.flags.writeable = writeable
    return bool(a.flags.writeable) == writeable


def _bytes_of(storage: Any) -> torch.Tensor:
    return torch.empty(0, dtype=torch.uint8, device=storage.device).set_(storage)


def _digest(storage: Any) -> bytes:
    """A digest of a storage's bytes, read in place on the CPU (``.numpy()`` would make the
    storage not resizable)."""
    n = storage.nbytes()
    if storage.device.type == "cpu":
        data: Any = (ctypes.c_ubyte * n).from_address(storage.data_ptr()) if n else b""
    else:
        data = _bytes_of(storage).cpu().numpy().data  # (a copy)
    return hashlib.blake2b(data, digest_size=16).digest()


def _grad_of(t: torch.Tensor) -> Any:
    """``t.grad`` where torch keeps one (a leaf, or ``retain_grad``), without its warning."""
    try:
        return t.grad if t.is_leaf or t.retains_grad else None
    except RuntimeError:
        return None


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
    _digests: dict[tuple[str, int], tuple[Any, bytes]] = field(default_factory=dict)
    _arrays: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    _grads: list[tuple[torch.Tensor, Any, Any]] = field(default_factory=list)  # leaf, before, after
    _eager: list[tuple[Any, Any, int | None]] = field(default_factory=list)  # grad, copy, version
    _metas: list[tuple[torch.Tensor, _TensorMeta, _TensorMeta]] = field(default_factory=list)
    _array_metas: dict[int, tuple[np.ndarray, _ArrayMeta, _ArrayMeta]] = field(
        default_factory=dict)
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

    def _save(self, t: torch.Tensor, watched: _Watched, *, tentative: bool = False) -> None:
        for key in watched.find(t):
            if key in self._storages or key in self._digests:
                continue
            with self._lock:
                if key in self._storages or key in self._digests:
                    continue
                storage = watched[key]
                n = storage.nbytes()
                if tentative and self.undoable and self.nbytes + n > budget.change:
                    with contextlib.suppress(RuntimeError, TypeError):
                        self._digests[key] = (storage, _digest(storage))  # changed? see end
                elif self._keep(n):
                    self._storages[key] = (storage, storage.clone())

    def _drop(self) -> None:
        self._storages.clear()
        self._digests.clear()
        self._arrays.clear()
        self._eager.clear()

    def _note(self, note: str) -> None:
        if note not in self.notes:
            self.notes.append(note)

    def _settle(self) -> None:
        """Forget the kept bytes that did not change (memory only handed to NumPy, a write of
        the same values), and refuse when memory too large to keep was changed."""
        for key, (live, kept) in list(self._storages.items()):
            with contextlib.suppress(RuntimeError, TypeError):
                if live.nbytes() == kept.nbytes() and torch.equal(_bytes_of(live),
                                                                  _bytes_of(kept)):
                    del self._storages[key]
                    self.nbytes -= kept.nbytes()
        for storage, digest in self._digests.values():
            try:
                changed = _digest(storage) != digest
            except (RuntimeError, TypeError):
                changed = True
            if changed and self.undoable:
                self.undoable = False
                self.reason = Message("undo.too-large", mib=budget.change >> 20)
                self._drop()
                break
        self._digests.clear()

    # -- undo / redo -------------------------------------------------------------------------

    def swap_data(self) -> None:
        """Exchange the kept bytes and metadata with the live ones (undo, then redo...).

        Kept copies may cover the same memory twice (a tensor and the NumPy array it shares
        bytes with, ``torch.from_numpy``): the swaps then do not commute, so swapping back
        runs them in the reverse order, which makes redo the exact inverse of undo. A
        storage takes back its size before its bytes (``resize_``); tensors take back their
        metadata after the bytes, arrays theirs before their bytes."""
        to_before = not self._swapped
        steps: list[tuple[bool, Any]] = [(True, key) for key in self._storages]
        steps += [(False, i) for i in range(len(self._arrays))]
        if self._swapped:
            steps.reverse()
        self._swapped = not self._swapped
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for is_storage, key in steps:
                if is_storage:
                    live, kept = self._storages[key]
                    now = live.clone()
                    if live.nbytes() != kept.nbytes():
                        live.resize_(kept.nbytes())
                    live.copy_(kept)
                    self._storages[key] = (live, now)
                else:
                    live_a, kept_a = self._arrays[key]
                    now_a = live_a.copy()
                    metas = self._array_metas.get(id(live_a))
                    target: _ArrayMeta | None = None
                    if metas is not None:
                        target = metas[1] if to_before else metas[2]
                    writeable = target.writeable if target else bool(live_a.flags.writeable)
                    if target is not None and not _set_layout(live_a, target):
                        self._note(Message("undo.layout-kept", names=self._name(live_a)))
                    if _set_writeable(live_a, True) and live_a.shape == kept_a.shape:
                        np.copyto(live_a, kept_a, casting="unsafe")
                    self._set_array_flag(live_a, writeable)
                    self._arrays[key] = (live_a, now_a)
            copied = {id(a) for a, _ in self._arrays}
            for a, m0, m1 in self._array_metas.values():
                if id(a) not in copied:
                    layout = m0 if to_before else m1
                    if not _set_layout(a, layout):
                        self._note(Message("undo.layout-kept", names=self._name(a)))
                    self._set_array_flag(a, layout.writeable)
            for t, tm0, tm1 in self._metas:
                if not _set_tensor_meta(t, tm0 if to_before else tm1):
                    self._note(Message("undo.history-lost", names=self._name(t)))

    def _set_array_flag(self, a: np.ndarray, writeable: bool) -> None:
        if not _set_writeable(a, writeable):
            self._note(Message("undo.read-only-kept", names=self._name(a)))

    def _name(self, value: Any) -> str:
        """The workspace name of ``value`` (or of the value whose ``.grad`` it is)."""
        for state in (self.before, self.after):
            for name, v in (state.ns.items() if state is not None else ()):
                if v is value:
                    return name
                if isinstance(v, torch.Tensor) and _grad_of(v) is value:
                    return f"{name}.grad"
        return "?"

    @property
    def changes_gradients(self) -> bool:
        """Whether this change set some leaf's ``.grad`` (undo puts it back)."""
        return bool(self._grads)

    @property
    def changes_metadata(self) -> bool:
        """Whether this change changed some value's metadata in place (shape, strides,
        storage, ``requires_grad``; an array's layout or flags)."""
        return bool(self._metas or self._array_metas)

    def set_grads(self, before: bool) -> None:
        """Put back each leaf's ``.grad`` object as it was before (or after) the action."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
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
    thread): torch writes copy-on-write, arrays and ``.grad`` copied up front if small, the
    metadata of every tensor and array compared afterwards."""
    tensors: list[torch.Tensor] = []
    arrays: list[np.ndarray] = []
    for v in values:
        _tensors_of(v, tensors)
        _arrays_of(v, arrays)
    watched = _Watched()
    holders: dict[int, torch.Tensor] = {}
    for t in tensors:
        key = _storage_key(t)
        if key is not None and key not in watched:
            with contextlib.suppress(RuntimeError):
                watched.add(key, t.untyped_storage())
        holders[id(t)] = t
    grads = [(t, _grad_of(t), _version(_grad_of(t))) for t in holders.values()]
    metas: dict[int, tuple[torch.Tensor, _TensorMeta]] = {}
    for t in [*holders.values(), *(g for _, g, _v in grads if isinstance(g, torch.Tensor))]:
        m = _tensor_meta(t)
        if m is not None and id(t) not in metas:
            metas[id(t)] = (t, m)
    for t, _m in list(metas.values()):  # (a .grad's memory, written through NumPy...)
        key = _storage_key(t)
        if key is not None and key not in watched:
            with contextlib.suppress(RuntimeError):
                watched.add(key, t.untyped_storage())
    watched.seal()
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
    array_metas = {id(a): (a, _array_meta(a)) for a in arrays}
    array_copies: list[tuple[np.ndarray, np.ndarray]] = []
    array_bytes = sum(a.nbytes for a, _m in array_metas.values())
    if array_bytes <= budget.eager:
        array_copies = [(a, a.copy()) for a, _m in array_metas.values()]
    mode = _CopyOnWrite(change, watched) if torch_writes else None
    try:
        if mode is not None:
            with mode:
                yield
        else:
            yield
    finally:
        change._settle()
        # metadata: what differs now is set back by undo (and forward by redo)
        for t, m0 in metas.values():
            m1 = _tensor_meta(t)
            if m1 is not None and m1 != m0:
                change._metas.append((t, m0, m1))
                if m0.is_leaf != m1.is_leaf:
                    change._note(Message("undo.history-lost", names=change._name(t)))
        for a, am0 in array_metas.values():
            am1 = _array_meta(a)
            if am1 != am0:
                change._array_metas[id(a)] = (a, am0, am1)
                if am0.writeable and not am1.writeable and not _set_writeable(a, True):
                    change._note(Message("undo.read-only-kept", names=change._name(a)))
                _set_writeable(a, am1.writeable)
        # arrays and grads: keep what changed
        for live, copy in array_copies:
            with contextlib.suppress(Exception):
                moved = _array_meta(live).layout != array_metas[id(live)][1].layout
                if ((moved or not np.array_equal(live, copy, equal_nan=True))
                        and change._keep(copy.nbytes)):
                    change._arrays.append((live, copy))
        if array_bytes > budget.eager and arrays:
            change._note(Message("undo.large-arrays"))
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
        for t, before, version in grads:
            after = _grad_of(t)
            if after is not before:
                change._grads.append((t, before, after))
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

    ``UndoHistory(ws)`` does that itself: it turns on ``ws.track_changes``, listens to its
    events, and :meth:`undo` and :meth:`redo` need no argument.
    """

    def __init__(self, workspace: Any = None) -> None:
        self.done: list[Change] = []
        self.undone: list[Change] = []
        #: why the history was last cleared (a change that could not be undone), or ""
        self.cleared_because = ""
        self.workspace = workspace
        if workspace is not None:
            workspace.track_changes = True
            workspace.events.undoable.connect(self.push)
            workspace.events.not_undoable.connect(self.clear)

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

    @property
    def can_undo(self) -> bool:
        return bool(self.done)

    @property
    def can_redo(self) -> bool:
        return bool(self.undone)

    @property
    def undo_text(self) -> str | None:
        """"Undo {label}" (a catalog Message), saying what it will not put back, or None."""
        if not self.done:
            return None
        change = self.done[-1]
        if change.notes:
            return Message("undo.text-partial", label=change.label, notes=list(change.notes))
        return Message("undo.text", label=change.label)

    def _workspace(self, workspace: Any) -> Any:
        if workspace is None:
            workspace = self.workspace
        if workspace is None:
            raise TypeError("UndoHistory() was made without a workspace: pass it")
        return workspace

    def undo(self, workspace: Any = None) -> Change | None:
        """Take back the last change (``workspace.undo``); None when there is none."""
        if not self.done:
            return None
        change = self.done[-1]
        self._workspace(workspace).undo(change)  # raises while a program runs: nothing moved
        self.undone.append(self.done.pop())
        return change

    def redo(self, workspace: Any = None) -> Change | None:
        """Make the last undone change again; None when there is none."""
        if not self.undone:
            return None
        change = self.undone[-1]
        self._workspace(workspace).redo(change)
        self.done.append(self.undone.pop())
        return change
