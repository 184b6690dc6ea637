"""Which bytes a value occupies, and how two values' bytes relate — exactly, at any size.

A strided value (a torch tensor or a NumPy array) with item size ``w``, shape ``n`` and byte
strides ``s`` occupies the byte set ``{o + sum_i k_i*s_i + j : 0 <= k_i < n_i, 0 <= j < w}``.
Everything here is computed on that description, without materialising byte sets:

* :class:`ByteSet` is the canonical form of such a set: a union of disjoint
  :class:`StridedBytes` *pieces*. Negative strides are flipped (the set does not change), size-1
  and stride-0 dimensions are dropped (stride 0 adds readers, not bytes), dimensions are sorted
  by stride, and inner dimensions whose copies touch or overlap are merged into one run. What is
  left is a *pattern* (sorted, disjoint byte intervals; usually a single run) repeated by
  *nested levels* ``(count, stride)`` whose copies never overlap (``stride >= span of the inner
  set``): one piece, for every view made by slicing, transposing, ``diagonal``, ``expand``,
  ``unfold``, dtype reinterpretation...
* When a dimension interleaves with the ones inside it (an ``as_strided`` with interleaving
  strides), the dimension reaching farthest is taken as a period P and the others make a set I
  of span L; ``I + kP`` for ``0 <= k < count`` covers byte t, for ``L - 1 <= t < count*P``,
  exactly when ``t mod P`` is the residue of a byte of I (:func:`_fold_job`). So the union is a
  written-out head, one nested *body* piece (the residues, repeated) and a written-out tail,
  whatever ``count`` is: ``x.as_strided((10**6, 50), (97, 13))`` becomes three pieces of at
  most 350 intervals. Writing out is done by enumerating runs or OR-ing a bitmap by doubling
  (cells of the common gcd), whichever is cheaper, in chunks.
* For a nested piece, "how many bytes lie below address t" is an O(ndim) mixed-radix decode
  (:meth:`StridedBytes.below`), so the size of the set, its intersection with an interval, and
  membership are all O(ndim).
* ``|A & B|`` (:func:`_shared_job`) is summed over pairs of pieces. For two pieces it recurses
  on the level with the larger stride, keeps only the copies that meet the other set's bounding
  range, and groups the copies lying inside the other set's periodic interior by their residue
  modulo its period, so each distinct case is counted once; e.g. two views of one
  100-million-element tensor take well under a millisecond. If that recursion would need too
  many calls, it falls back to a chunked sweep of the smaller piece's runs, or to bitmaps over
  the common range, a window at a time: still exact, just slower.
* A layout whose written-out parts would not fit the limits stays *unresolved*: it is kept as
  its strides and swept in bounded windows (bitmaps of the common gcd), exact and slow.

All answers are exact for every size; the sizes only decide the speed, and memory stays
bounded (tens of MiB of arrays at most; see the limits below). Counting is written as
resumable :data:`Job` s, so a caller can give a pair a work budget, get a
:class:`PendingRelation` past it and finish it later, elsewhere, or cancel it
(:func:`relation` with ``budget``, :func:`iter_relations`, :func:`compare`).
:func:`relations_among` (``ws.relations()``) computes its pairs lazily, as they are read.

NumPy and torch memory: a tensor's allocation is its ``untyped_storage()``; a NumPy array's is
found by following ``.base`` to its owner (an array, a torch tensor for ``t.numpy()``, an
``mmap`` for memory maps, ``bytes``...). ``torch.from_numpy(arr[1:])`` gets a storage that starts
at ``arr[1]``, a *part* of the NumPy block, and torch offers no way back to ``arr``. So two values
are taken to share an allocation when their blocks' address ranges intersect (live blocks never
overlap unless they are the same memory), and relations are judged on absolute addresses. Two
tensors made by ``from_numpy`` of *disjoint* parts of one array, seen without the array, look
like two allocations; with the array (or any view over both parts) in the same
:func:`relations_among` call they are grouped together.
"""

from __future__ import annotations

import ast
import math
import threading
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Literal, TypeVar, overload

import numpy as np
import torch

from .catalog import Message, render
from .loading import map_info_of

__all__ = [
    "Allocation",
    "ByteSet",
    "Job",
    "PendingRelation",
    "Relation",
    "RelationKind",
    "Relations",
    "StridedBytes",
    "advance",
    "allocation",
    "allocation_groups",
    "byte_multiplicity",
    "compare",
    "element_multiplicity",
    "element_offsets",
    "footprint",
    "internal_overlap",
    "iter_relations",
    "parents",
    "readers",
    "relation",
    "relations_among",
    "sharing_reason",
]

RelationKind = Literal["alias", "contains", "inside", "overlap", "same-storage"]

# Work limits. They change speed and memory, never answers. With them no question holds more
# than a few tens of MiB of NumPy arrays at once, whatever the sizes of the values.
_CHUNK = 1 << 17  # runs or addresses handled by one vectorised step (1 MiB per int64 array)
_VECTOR_RUNS = 1 << 17  # runs the lattice recursion sweeps in one go
_RECURSION_CALLS = 20_000  # calls of the lattice recursion before it gives up for a sweep
_FIRST_TRY_CALLS = 300  # calls tried before a cheap sweep (few runs) is preferred
_CALLS_PER_RUN = 1 / 20  # one recursive call costs about as much as sweeping 20 runs
_CALL_WORK = 64  # work units one recursive call counts for
_RECURSION_WORK = 1 << 23  # work of the recursion (calls and small sweeps) before a chunked sweep
_PATTERN_RUNS = 1 << 19  # most intervals a written-out pattern may hold (8 MiB)
_ENUM_RUNS = 1 << 23  # most runs enumerated (in chunks) to write a folded pattern out
_BITMAP_UNITS = 1 << 22  # largest bitmap (cells of the common gcd) a fold may use
_SWEEP_UNITS = 1 << 21  # cells of the bitmaps a sweep builds at a time


# --------------------------------------------------------------------------------------------
# Allocations and layouts
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Allocation:
    """The memory block that holds a value.

    ``key`` identifies the block: ``(device, start address)``; a NumPy array and a tensor made
    from it by ``from_numpy`` / ``as_tensor`` / ``.numpy()`` have the same key when they start at
    the same address (see the module docstring for ``from_numpy`` of a view). ``key`` and
    ``start`` are ``None`` for values with no memory (meta tensors) or no strided storage
    (sparse tensors); ``note`` then says why. ``offset_bytes`` is where the value's first element
    (index ``(0, ..., 0)``) lies from ``start``; with negative NumPy strides it is not the lowest
    byte the value occupies.
    """

    key: tuple[str, int] | None
    start: int | None
    nbytes: int
    offset_bytes: int
    device: str = "cpu"
    note: str = ""  # a catalog Message (shown with text_in in the reader's language)

    @property
    def has_memory(self) -> bool:
        """True when the value's bytes exist and can be compared with other values' bytes."""
        return self.key is not None


@dataclass(frozen=True)
class _Layout:
    """A strided value, reduced to what its bytes depend on."""

    itemsize: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]  # bytes
    alloc: Allocation

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def base_address(self) -> int:
        """Absolute address of element (0, ..., 0) (only meaningful with memory)."""
        return (self.alloc.start or 0) + self.alloc.offset_bytes


def _is_tensor(value: object) -> bool:
    return isinstance(value, torch.Tensor)


def _tensor_layout(t: torch.Tensor) -> _Layout:
    itemsize = t.element_size()
    device = str(t.device)
    if t.layout != torch.strided:
        alloc = Allocation(
            None,
            None,
            0,
            0,
            device,
            Message("memory.note-sparse", layout=str(t.layout)),
        )
        return _Layout(itemsize, tuple(t.shape), (), alloc)
    strides = tuple(s * itemsize for s in t.stride())
    try:
        storage = t.untyped_storage()
    except (NotImplementedError, RuntimeError) as exc:  # e.g. functorch wrappers
        alloc = Allocation(None, None, 0, 0, device,
                           Message("memory.note-no-storage", why=str(exc)))
        return _Layout(itemsize, tuple(t.shape), strides, alloc)
    offset = int(t.storage_offset()) * itemsize  # torch types it int | SymInt (symbolic tracing)
    if t.device.type == "meta":
        alloc = Allocation(
            None,
            None,
            storage.nbytes(),
            offset,
            device,
            Message("memory.note-meta"),
        )
        return _Layout(itemsize, tuple(t.shape), strides, alloc)
    start = storage.data_ptr()
    key = (device, start) if start else None
    note = "" if start else Message("memory.note-empty")
    alloc = Allocation(key, start, storage.nbytes(), offset, device, note)
    return _Layout(itemsize, tuple(t.shape), strides, alloc)


def _buffer_range(obj: object) -> tuple[int, int] | None:
    """(start, nbytes) of an object exposing the buffer protocol (bytes, mmap, ctypes...)."""
    try:
        view = np.frombuffer(obj, dtype=np.uint8)  # type: ignore[call-overload]
    except (TypeError, ValueError, BufferError):
        return None
    try:
        return int(view.ctypes.data), int(view.nbytes)
    finally:
        del view  # release the buffer export at once (an exported mmap cannot be closed)


def _array_layout(a: np.ndarray) -> _Layout:
    itemsize = a.itemsize
    ptr = int(a.__array_interface__["data"][0])
    owner: object = a
    last_array = a
    while True:
        if isinstance(owner, np.ndarray) and owner.base is not None:
            last_array = owner
            owner = owner.base
        elif not isinstance(owner, np.ndarray | torch.Tensor) and isinstance(
            getattr(owner, "base", None), np.ndarray | torch.Tensor
        ):
            owner = owner.base  # type: ignore[attr-defined]  # e.g. as_strided's DummyArray
        else:
            break
    start: int | None = None
    nbytes = 0
    device = "cpu"
    if isinstance(owner, np.ndarray):
        lo, hi = np.lib.array_utils.byte_bounds(owner)
        start, nbytes = int(lo), int(hi - lo)
    elif isinstance(owner, torch.Tensor) and owner.layout == torch.strided:
        storage = owner.untyped_storage()
        start, nbytes = storage.data_ptr(), storage.nbytes()
    else:
        found = _buffer_range(owner)
        if found is not None:
            start, nbytes = found
    if start is None or not (start <= ptr <= start + nbytes):
        # An owner we cannot see into: the outermost array we do know is the best bound.
        lo, hi = np.lib.array_utils.byte_bounds(last_array)
        start, nbytes = int(lo), int(hi - lo)
    if a.size and not isinstance(owner, np.ndarray | torch.Tensor):
        mapped = map_info_of(a)
        if mapped is not None and start <= mapped.start <= ptr:
            # a memory-mapped file: its allocation is the array the file holds, not the
            # mmap's pages (which begin at the file's header), as for a tensor made from it
            start, nbytes = mapped.start, mapped.nbytes
    key = (device, start) if start else None
    alloc = Allocation(key, start, nbytes, ptr - start, device, "" if start else "no memory")
    return _Layout(itemsize, tuple(a.shape), tuple(a.strides), alloc)


def _layout(value: object) -> _Layout:
    if _is_tensor(value):
        return _tensor_layout(value)  # type: ignore[arg-type]
    if isinstance(value, np.ndarray):
        return _array_layout(value)
    raise TypeError(f"expected a torch.Tensor or numpy.ndarray, got {type(value).__name__}")


def allocation(value: torch.Tensor | np.ndarray) -> Allocation:
    """The memory block holding ``value`` and where its first element lies in it.

    Tensors: the ``untyped_storage()`` (its ``data_ptr`` and ``nbytes``). Arrays: the owner at
    the end of the ``.base`` chain (an owning array, the tensor of ``t.numpy()``, the ``mmap`` of a
    memory map, a ``bytes`` object...). Meta and sparse tensors get ``key=None`` and a ``note``.
    """
    return _layout(value).alloc


def element_offsets(value: torch.Tensor | np.ndarray) -> np.ndarray:
    """Byte offset of every element from the start of the allocation that holds it.

    Returns an int64 array of the value's shape (a 0-d array for a 0-d value). Materialises one
    int64 per element: meant for values a panel shows, not for 100-million-element tensors (use
    :func:`footprint` for those). Meta tensors are measured from their (virtual) storage start;
    sparse tensors raise ``TypeError``.
    """
    lay = _layout(value)
    if _is_tensor(value) and value.layout != torch.strided:  # type: ignore[union-attr]
        raise TypeError("a sparse tensor has no strided storage, so no byte offsets")
    out = np.full(lay.shape, lay.alloc.offset_bytes, dtype=np.int64)
    for axis, (n, s) in enumerate(zip(lay.shape, lay.strides, strict=True)):
        if n > 1 and s:
            shape = [1] * len(lay.shape)
            shape[axis] = n
            out += (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return out


# --------------------------------------------------------------------------------------------
# Work that can stop and resume
# --------------------------------------------------------------------------------------------

_T = TypeVar("_T")

#: A computation that yields how much work it did since it last yielded (about one unit per
#: run, address or bitmap cell handled) and returns its answer. It can be stopped between two
#: yields and resumed later: budgets and cancelling change when an answer comes, never what it is.
Job = Generator[int, None, _T]


def _finish(job: Job[_T]) -> _T:
    """Run ``job`` to its end and return its answer."""
    while True:
        try:
            next(job)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]


def advance(
    job: Job[_T], budget: int | None = None, cancel: Callable[[], bool] | None = None
) -> tuple[bool, _T | None, int]:
    """Run ``job`` until it is done, ``budget`` units of work are spent or ``cancel()`` is
    true. Returns ``(done, answer or None, work spent)``; a job that is not done can be
    advanced again later and goes on from where it stopped."""
    spent = 0
    while True:
        if cancel is not None and cancel():
            return False, None, spent
        try:
            spent += next(job)
        except StopIteration as stop:
            return True, stop.value, spent
        if budget is not None and spent >= budget:
            return False, None, spent


class _Unresolved(Exception):
    """Writing a pattern out would take more memory than the limits allow."""


# --------------------------------------------------------------------------------------------
# Canonical byte sets
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class StridedBytes:
    """A set of bytes as a pattern of intervals repeated by nested strided levels.

    The set is ``{offset + sum_i k_i*stride_i + b : 0 <= k_i < count_i, b in pattern}`` where the
    pattern is the union of ``[starts[j], ends[j])`` (sorted, disjoint, ``starts[0] == 0``) and
    ``levels`` lists ``(count, stride)`` innermost first. Levels are *nested*: each stride is at
    least the span of everything inside it, so copies never overlap and ``size`` is simply
    ``pattern bytes * prod(counts)``. ``offset`` is the lowest byte, in whatever origin the set
    was built with (absolute addresses for relations, allocation offsets for :func:`footprint`).
    An empty set has no pattern intervals. One piece of a :class:`ByteSet`.
    """

    offset: int
    starts: np.ndarray
    ends: np.ndarray
    levels: tuple[tuple[int, int], ...]
    # derived, per depth d (d = 0: the pattern alone; d = len(levels): the whole set)
    sizes: tuple[int, ...] = field(init=False)
    spans: tuple[int, ...] = field(init=False)
    _cum: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        lengths = self.ends - self.starts
        size = int(lengths.sum())
        span = int(self.ends[-1]) if len(self.ends) else 0
        sizes, spans = [size], [span]
        for count, stride in self.levels:
            size *= count
            span += (count - 1) * stride
            sizes.append(size)
            spans.append(span)
        object.__setattr__(self, "sizes", tuple(sizes))
        object.__setattr__(self, "spans", tuple(spans))
        object.__setattr__(self, "_cum", np.concatenate(([0], np.cumsum(lengths))))

    @property
    def size(self) -> int:
        """Number of distinct bytes in the set."""
        return self.sizes[-1]

    @property
    def span(self) -> int:
        """``hi - lo``: the distance from the lowest byte to one past the highest."""
        return self.spans[-1]

    @property
    def lo(self) -> int:
        return self.offset

    @property
    def hi(self) -> int:
        return self.offset + self.span

    @property
    def n_runs(self) -> int:
        """Number of intervals if the set were written out (touching copies not merged)."""
        return self.runs_at(len(self.levels))

    @property
    def key(self) -> tuple[object, ...]:
        """Equal keys: the same set (the converse is not promised)."""
        return (self.offset, self.starts.tobytes(), self.ends.tobytes(), self.levels)

    def runs_at(self, depth: int) -> int:
        """Number of intervals of the depth-``depth`` inner set, written out."""
        return len(self.starts) * math.prod(c for c, _ in self.levels[:depth])

    def shifted(self, delta: int) -> StridedBytes:
        """The same set moved by ``delta`` bytes."""
        return StridedBytes(self.offset + delta, self.starts, self.ends, self.levels)

    def nested(self, count: int, stride: int) -> StridedBytes:
        """``count`` copies, ``stride`` apart (``stride >= span``: they do not overlap)."""
        return StridedBytes(self.offset, self.starts, self.ends, (*self.levels, (count, stride)))

    def grain(self, origin: int) -> int:
        """The gcd of every boundary's distance from ``origin``: the set is a union of
        ``grain``-byte cells (0 when every boundary is ``origin``)."""
        g = math.gcd(self.offset - origin, *(s for _, s in self.levels))
        if len(self.starts):
            g = math.gcd(g, int(np.gcd.reduce(self.starts)), int(np.gcd.reduce(self.ends)))
        return g

    def select_many(self, ranks: np.ndarray) -> np.ndarray:
        """The address of the byte of each rank (0: the lowest byte): the inverse of below."""
        r = np.asarray(ranks, dtype=np.int64).copy()
        addr = np.full(r.shape, self.offset, dtype=np.int64)
        for i in range(len(self.levels) - 1, -1, -1):
            j = r // self.sizes[i]
            addr += j * self.levels[i][1]
            r -= j * self.sizes[i]
        idx = np.searchsorted(self._cum, r, side="right") - 1
        return addr + self.starts[idx] + (r - self._cum[idx])

    def below(self, t: int, depth: int | None = None, offset: int | None = None) -> int:
        """How many bytes of the set (or of its inner part at ``depth``, placed at ``offset``)
        lie below address ``t``. O(depth): a mixed-radix decode, exact because levels nest."""
        d = len(self.levels) if depth is None else depth
        r = t - (self.offset if offset is None else offset)
        total = 0
        for i in range(d - 1, -1, -1):
            if r <= 0:
                return total
            count, stride = self.levels[i]
            j = r // stride
            if j >= count:
                return total + count * self.sizes[i]
            total += j * self.sizes[i]
            r -= j * stride
        if r <= 0:
            return total
        idx = int(np.searchsorted(self.starts, r, side="left"))
        if idx == 0:
            return total
        return (
            total
            + int(self._cum[idx - 1])
            + min(r - int(self.starts[idx - 1]), int(self.ends[idx - 1] - self.starts[idx - 1]))
        )

    def below_many(
        self, t: np.ndarray, depth: int | None = None, offset: int | None = None
    ) -> np.ndarray:
        """Vectorised :meth:`below` over an int64 array of addresses."""
        d = len(self.levels) if depth is None else depth
        r = np.asarray(t, dtype=np.int64) - (self.offset if offset is None else offset)
        total = np.zeros(r.shape, dtype=np.int64)
        done = r <= 0
        for i in range(d - 1, -1, -1):
            count, stride = self.levels[i]
            j = np.clip(r // stride, 0, None)
            full = (j >= count) & ~done
            total = np.where(full, total + count * self.sizes[i], total)
            done |= full
            j = np.minimum(j, count - 1)
            live = ~done
            total = np.where(live, total + j * self.sizes[i], total)
            r = np.where(live, r - j * stride, r)
            done |= r <= 0
        idx = np.searchsorted(self.starts, r, side="left")
        prev = np.maximum(idx - 1, 0)
        part = self._cum[prev] + np.minimum(
            r - self.starts[prev], self.ends[prev] - self.starts[prev]
        )
        return np.where(done | (idx == 0), total, total + part)

    def count_in(self, lo: int, hi: int) -> int:
        """Bytes of the set within ``[lo, hi)``."""
        return 0 if hi <= lo else self.below(hi) - self.below(lo)

    def contains(self, address: int) -> bool:
        """Whether one byte belongs to the set. O(depth)."""
        return self.count_in(address, address + 1) == 1

    def chunks(self, lo: int, hi: int, cap: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The runs meeting ``[lo, hi)`` (not clipped to it), at most ``cap`` at a time."""
        return _form_chunks(self.offset, self.starts, self.ends, self.levels, lo, hi, cap)

    def runs(
        self, lo: int | None = None, hi: int | None = None, max_runs: int = 1_000_000
    ) -> tuple[np.ndarray, np.ndarray]:
        """The set written out as sorted, merged ``(starts, ends)`` arrays, restricted to the
        window ``[lo, hi)`` (whole set by default). Copies outside the window are never
        generated; raises ``ValueError`` if more than ``max_runs`` runs would be produced (ask
        for a smaller window)."""
        lo = self.lo if lo is None else max(lo, self.lo)
        hi = self.hi if hi is None else min(hi, self.hi)
        empty = np.zeros(0, dtype=np.int64)
        if hi <= lo or self.size == 0:
            return empty, empty
        offs = np.array([self.offset], dtype=np.int64)
        for i in range(len(self.levels) - 1, -1, -1):
            count, stride = self.levels[i]
            inner = self.spans[i]
            # copies k with off + k*stride < hi and off + k*stride + inner > lo
            k_lo = np.maximum((lo - inner - offs) // stride + 1, 0)
            k_hi = np.minimum((hi - 1 - offs) // stride, count - 1)
            n = np.maximum(k_hi - k_lo + 1, 0)
            total = int(n.sum())
            if total * len(self.starts) > max_runs:
                raise ValueError(f"more than {max_runs} runs in [{lo}, {hi}); narrow the window")
            offs = _repeat(offs, k_lo, n, stride)
        s = (offs[:, None] + self.starts[None, :]).ravel()
        e = (offs[:, None] + self.ends[None, :]).ravel()
        keep = (e > lo) & (s < hi)
        s, e = np.clip(s[keep], lo, hi), np.clip(e[keep], lo, hi)
        return _merge(s, e)


_NO_RUNS = np.zeros(0, dtype=np.int64)


def _run(offset: int, length: int) -> StridedBytes:
    return StridedBytes(offset, np.zeros(1, dtype=np.int64), np.array([length], dtype=np.int64), ())


def _explicit(starts: np.ndarray, ends: np.ndarray) -> StridedBytes | None:
    """Sorted, merged runs as one piece with no levels (None when there are none)."""
    if len(starts) == 0:
        return None
    first = int(starts[0])
    return StridedBytes(first, starts - first, ends - first, ())


def _repeat(offs: np.ndarray, k_lo: np.ndarray, n: np.ndarray, stride: int) -> np.ndarray:
    """For each offset o, ``o + k*stride`` for its ``n`` values of k from ``k_lo``."""
    total = int(n.sum())
    first = np.repeat(k_lo, n)
    step = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(n) - n, n)
    return np.repeat(offs, n) + (first + step) * stride


def intersecting_groups(ranges: Sequence[tuple[int, int]]) -> list[list[int]]:
    """The indices of byte ``ranges`` (``(start, end)``, end exclusive) grouped by
    intersection: in address order, a range joins the group before it when it starts before
    that group's furthest end (ranges that only touch stay apart). Groups come in address
    order, each in address order. What one strip of the memory panel, or one allocation of a
    session file, holds."""
    groups: list[list[int]] = []
    reach = 0
    for i in sorted(range(len(ranges)), key=lambda k: (ranges[k][0], ranges[k][1], k)):
        start, end = ranges[i]
        if groups and start < reach:
            groups[-1].append(i)
            reach = max(reach, end)
        else:
            groups.append([i])
            reach = end
    return groups


def _merge(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Union of intervals as sorted, disjoint, non-touching ``(starts, ends)``."""
    if len(starts) == 0:
        return starts.astype(np.int64), ends.astype(np.int64)
    order = np.argsort(starts, kind="stable")
    s, e = starts[order], ends[order]
    reach = np.maximum.accumulate(e)
    new = np.empty(len(s), dtype=bool)
    new[0] = True
    new[1:] = s[1:] > reach[:-1]
    first = np.flatnonzero(new)
    last = np.append(first[1:] - 1, len(s) - 1)
    return s[first].astype(np.int64), reach[last].astype(np.int64)


def _form_chunks(
    offset: int,
    starts: np.ndarray,
    ends: np.ndarray,
    levels: Sequence[tuple[int, int]],
    lo: int,
    hi: int,
    cap: int,
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The runs of ``offset + pattern + levels`` that meet ``[lo, hi)`` (levels may interleave;
    runs are not clipped, and overlap where levels do), at most about ``cap`` at a time: the
    copies of each level are written out in batches, so memory stays bounded at any size."""
    if hi <= lo or len(starts) == 0:
        return
    spans = [int(ends[-1])]
    for count, stride in levels:
        spans.append(spans[-1] + (count - 1) * stride)
    yield from _expand(
        np.array([offset], dtype=np.int64), len(levels), starts, ends, levels, spans, lo, hi,
        max(int(cap), 1),
    )  # fmt: skip


def _expand(
    offs: np.ndarray,
    depth: int,
    starts: np.ndarray,
    ends: np.ndarray,
    levels: Sequence[tuple[int, int]],
    spans: list[int],
    lo: int,
    hi: int,
    cap: int,
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    if len(offs) == 0:
        return
    if depth == 0:
        yield from _pattern_chunks(offs, starts, ends, lo, hi, cap)
        return
    count, stride = levels[depth - 1]
    inner = spans[depth - 1]
    k_lo = np.maximum((lo - inner - offs) // stride + 1, 0)
    k_hi = np.minimum((hi - 1 - offs) // stride, count - 1)
    n = np.maximum(k_hi - k_lo + 1, 0)
    csum = np.cumsum(n)
    i = 0
    while i < len(offs):
        ni = int(n[i])
        if ni > cap:  # one copy has more sub-copies than a batch holds: split its k range
            o, k = int(offs[i]), int(k_lo[i])
            for k0 in range(k, k + ni, cap):
                ks = np.arange(k0, min(k + ni, k0 + cap), dtype=np.int64)
                yield from _expand(o + ks * stride, depth - 1, starts, ends, levels, spans, lo,
                                   hi, cap)  # fmt: skip
            i += 1
            continue
        j = max(int(np.searchsorted(csum, int(csum[i]) - ni + cap, side="right")), i + 1)
        part = slice(i, j)
        if int(csum[j - 1]) - int(csum[i]) + ni:
            yield from _expand(_repeat(offs[part], k_lo[part], n[part], stride), depth - 1,
                               starts, ends, levels, spans, lo, hi, cap)  # fmt: skip
        i = j


def _pattern_chunks(
    offs: np.ndarray, starts: np.ndarray, ends: np.ndarray, lo: int, hi: int, cap: int
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    m = len(starts)
    per = cap // m
    if per >= 1:
        for b in range(0, len(offs), per):
            o = offs[b : b + per]
            s = (o[:, None] + starts[None, :]).ravel()
            e = (o[:, None] + ends[None, :]).ravel()
            keep = (e > lo) & (s < hi)
            if keep.all():
                yield s, e
            elif keep.any():
                yield s[keep], e[keep]
        return
    for o in offs.tolist():  # a pattern longer than a batch: its part in the window, in pieces
        i0 = int(np.searchsorted(ends, lo - o, side="right"))
        i1 = int(np.searchsorted(starts, hi - o, side="left"))
        for b in range(i0, i1, cap):
            yield starts[b : min(i1, b + cap)] + o, ends[b : min(i1, b + cap)] + o


def _bitmap_job(
    chunks: Iterable[tuple[np.ndarray, np.ndarray]], origin: int, units: int, grain: int
) -> Job[np.ndarray]:
    """A bitmap of ``units`` cells of ``grain`` bytes from ``origin``: a cell is set when a run
    covers it (runs start and end on cell boundaries; the parts outside are ignored)."""
    bitmap = np.zeros(units, dtype=bool)
    diff: np.ndarray | None = None
    for s, e in chunks:
        su = np.clip((s - origin) // grain, 0, units)
        eu = np.clip((e - origin) // grain, 0, units)
        lengths = eu - su
        longest = int(lengths.max()) if len(lengths) else 0
        if longest <= 16:
            for d in range(longest):
                bitmap[su[lengths > d] + d] = True
        else:
            if diff is None:
                diff = np.zeros(units + 1, dtype=np.int32)
            np.add.at(diff, su, 1)
            np.add.at(diff, eu, -1)
        yield len(s)
    if diff is not None:
        bitmap |= np.cumsum(diff[:-1], dtype=np.int32) > 0
    return bitmap


def _bitmap_runs(bitmap: np.ndarray, origin: int, grain: int) -> tuple[np.ndarray, np.ndarray]:
    padded = np.concatenate(([False], bitmap, [False])).view(np.int8)
    change = np.diff(padded)
    return (np.flatnonzero(change == 1) * grain + origin).astype(np.int64), (
        np.flatnonzero(change == -1) * grain + origin
    ).astype(np.int64)


# --- from strides to pieces ------------------------------------------------------------------


def _grain_of(pieces: Iterable[StridedBytes], origin: int) -> int:
    return math.gcd(*(p.grain(origin) for p in pieces))


def _pieces_job(
    width: int, dims: tuple[tuple[int, int], ...], memo: dict[tuple[tuple[int, int], ...], list]
) -> Job[list[StridedBytes]]:
    """Disjoint nested pieces (lowest byte at 0) of the run ``[0, width)`` repeated along
    ``dims`` (``(stride, count)``, smallest stride first). Dimensions whose copies do not
    overlap what is inside them nest; one that interleaves is folded (:func:`_interleaved_job`).
    """
    if dims in memo:
        return memo[dims]
    pieces = [_run(0, width)]
    span = width
    for idx, (stride, count) in enumerate(dims):
        if stride >= span:
            pieces = [p.nested(count, stride) for p in pieces]
        elif len(pieces) == 1 and not pieces[0].levels and len(pieces[0].starts) == 1:
            pieces = [_run(0, span + (count - 1) * stride)]  # copies of a run that touch
        else:
            pieces = yield from _interleaved_job(width, dims[: idx + 1], memo)
        span = max(p.hi for p in pieces)
        memo[dims[: idx + 1]] = pieces
    return pieces


def _interleaved_job(
    width: int, dims: tuple[tuple[int, int], ...], memo: dict[tuple[tuple[int, int], ...], list]
) -> Job[list[StridedBytes]]:
    """The pieces of ``dims`` when they do not nest: the dimension that reaches farthest is
    taken as the period, the others make the set it repeats (:func:`_fold_job`)."""
    best = max(range(len(dims)), key=lambda i: ((dims[i][1] - 1) * dims[i][0], dims[i][0]))
    period, count = dims[best]
    inner = yield from _pieces_job(width, dims[:best] + dims[best + 1 :], memo)
    span = max(p.hi for p in inner)
    if period >= span:
        return [p.nested(count, period) for p in inner]
    return (yield from _fold_job(inner, span, count, period))


def _fold_job(inner: list[StridedBytes], span: int, count: int, period: int) -> Job[list]:
    """Pieces of ``S = union of inner + k*period, 0 <= k < count``, when ``period < span``.

    Number theory on one period: a byte t with ``span - 1 <= t < count*period`` is in S exactly
    when ``t mod period`` is the residue of a byte of ``inner`` (every copy that could hold it
    exists). So S is a *head* ``[0, m*period)``, a periodic *body* (the residues, repeated
    ``count - m`` times: one nested piece, however large ``count`` is) and a *tail* past
    ``count*period``; head and tail hold about ``span / period`` copies each and are written
    out. Without room for a body the whole union is written out."""
    m = -(-(span - 1) // period)
    if count - m < 2:
        starts, ends = yield from _fold_runs_job(inner, period, 0, count, 0,
                                                 span + (count - 1) * period)  # fmt: skip
        return [p for p in (_explicit(starts, ends),) if p is not None]
    rs, re = yield from _residues_job(inner, period)
    hs, he = yield from _fold_runs_job(inner, period, 0, m, 0, m * period)
    k0 = max(0, count + (-span) // period)  # the first copy that reaches past count*period
    ts, te = yield from _fold_runs_job(inner, period, k0, count, count * period,
                                       (count - 1) * period + span)  # fmt: skip
    if len(rs) == 1 and int(re[0] - rs[0]) == period:
        body = _run(m * period, (count - m) * period)
    else:
        r0 = int(rs[0])
        body = StridedBytes(m * period + r0, rs - r0, re - r0, ((count - m, period),))
    return [p for p in (_explicit(hs, he), body, _explicit(ts, te)) if p is not None]


def _residues_job(inner: list[StridedBytes], period: int) -> Job[tuple[np.ndarray, np.ndarray]]:
    """The residues modulo ``period`` of the bytes of ``inner``, as merged intervals of
    ``[0, period)``. A level's copies repeat their residues every ``period / gcd(stride,
    period)`` copies, so only that many are visited."""
    acc_s, acc_e = _NO_RUNS, _NO_RUNS
    for p in inner:
        levels = [(min(c, period // math.gcd(s, period)), s) for c, s in p.levels]
        hi = p.offset + int(p.ends[-1]) + sum((c - 1) * s for c, s in levels)
        for s, e in _form_chunks(p.offset, p.starts, p.ends, levels, p.offset, hi, _CHUNK):
            if int((e - s).max()) >= period:
                return np.zeros(1, dtype=np.int64), np.array([period], dtype=np.int64)
            s0 = s % period
            e0 = s0 + (e - s)
            wrap = e0 > period
            acc_s, acc_e = _merge(
                np.concatenate((acc_s, s0, np.zeros(int(wrap.sum()), dtype=np.int64))),
                np.concatenate((acc_e, np.minimum(e0, period), e0[wrap] - period)),
            )
            if len(acc_s) > _PATTERN_RUNS:
                raise _Unresolved
            yield len(s)
            if len(acc_s) == 1 and int(acc_e[0] - acc_s[0]) == period:
                return acc_s, acc_e
    return acc_s, acc_e


def _fold_runs_job(
    inner: list[StridedBytes], period: int, k0: int, k1: int, lo: int, hi: int
) -> Job[tuple[np.ndarray, np.ndarray]]:
    """``union of inner + k*period, k0 <= k < k1``, within ``[lo, hi)``, written out as merged
    runs: by enumerating the runs of the copies, or with a bitmap OR-ed by doubling in cells of
    the common gcd, whichever costs less; raises :class:`_Unresolved` when neither fits the
    limits."""
    n = k1 - k0
    if n <= 0 or hi <= lo:
        return _NO_RUNS, _NO_RUNS
    inner_runs = sum(p.n_runs for p in inner)
    grain = math.gcd(period, lo, hi, _grain_of(inner, 0)) or 1
    d0 = max(lo - (n - 1) * period, k0 * period)  # bits below d0 cannot reach [lo, hi)
    units = (hi - d0) // grain
    enum_cost = inner_runs * n
    bitmap_cost = units * (max(n, 1).bit_length() + 1) + inner_runs
    use_bitmap = units <= _BITMAP_UNITS and (enum_cost > _ENUM_RUNS or bitmap_cost < enum_cost)
    if not use_bitmap and enum_cost > _ENUM_RUNS:
        raise _Unresolved
    if use_bitmap:
        shift = k0 * period
        chunks = (
            (s + shift, e + shift)
            for p in inner
            for s, e in p.chunks(d0 - shift, hi - shift, _CHUNK)
        )
        bitmap = yield from _bitmap_job(chunks, d0, units, grain)
        step = period // grain
        copies = 1
        while copies * 2 <= n and copies * step < units:
            sh = copies * step
            np.bitwise_or(bitmap[sh:], bitmap[: units - sh], out=bitmap[sh:])
            copies *= 2
            yield units
        rest = n - copies
        if rest > 0 and rest * step < units:
            sh = rest * step
            np.bitwise_or(bitmap[sh:], bitmap[: units - sh], out=bitmap[sh:])
        starts, ends = _bitmap_runs(bitmap[(lo - d0) // grain :], lo, grain)
        if len(starts) > _PATTERN_RUNS:
            raise _Unresolved
        return starts, ends
    acc_s, acc_e = _NO_RUNS, _NO_RUNS
    for p in inner:
        for s, e in p.chunks(lo - (k1 - 1) * period, hi - k0 * period, _CHUNK):
            per = max(1, _CHUNK // len(s))
            for kb in range(k0, k1, per):
                ks = np.arange(kb, min(k1, kb + per), dtype=np.int64) * period
                ss = (ks[:, None] + s[None, :]).ravel()
                ee = (ks[:, None] + e[None, :]).ravel()
                keep = (ee > lo) & (ss < hi)
                acc_s, acc_e = _merge(np.concatenate((acc_s, np.clip(ss[keep], lo, hi))),
                                      np.concatenate((acc_e, np.clip(ee[keep], lo, hi))))
                if len(acc_s) > _PATTERN_RUNS:
                    raise _Unresolved
                yield len(ss)
    return acc_s, acc_e


@dataclass(frozen=True)
class _Raw:
    """A layout as its bytes depend on it: a run of ``width`` bytes at ``offset`` (the lowest
    byte) repeated along ``levels`` (``(count, stride)``, smallest stride first; they may
    interleave). Always exact; counted by sweeping when no compact form was found."""

    offset: int
    width: int
    levels: tuple[tuple[int, int], ...]

    @property
    def hi(self) -> int:
        return self.offset + self.width + sum((c - 1) * s for c, s in self.levels)

    @property
    def n_runs(self) -> int:
        return math.prod(c for c, _ in self.levels) if self.width else 0

    def grain(self, origin: int) -> int:
        return math.gcd(self.offset - origin, self.width, *(s for _, s in self.levels))

    def chunks(self, lo: int, hi: int, cap: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        if not self.width:
            return iter(())
        return _form_chunks(self.offset, np.zeros(1, dtype=np.int64),
                            np.array([self.width], dtype=np.int64), self.levels, lo, hi, cap)


class ByteSet:
    """The bytes a value occupies, in a form that never writes them all out.

    Usually a union of disjoint :class:`StridedBytes` *pieces* (one for every slice, transpose,
    ``diagonal``, ``expand`` or ``unfold``; a head, a periodic body and a tail for an
    ``as_strided`` whose strides interleave): then ``size``, ``below`` and ``count_in`` are
    O(depth) per piece. When no such form fits the memory limits the set is *unresolved*
    (``resolved`` is False): it is kept as its layout and every answer comes from sweeping it
    in bounded windows — still exact, just slower (``size_job`` and :func:`advance` can do that
    in steps). ``lo`` / ``hi`` bound the set; the origin is whatever it was built with.
    """

    def __init__(
        self, pieces: Iterable[StridedBytes], raw: _Raw | None, resolved: bool = True
    ) -> None:
        self.pieces = tuple(p for p in pieces if p.size)
        self.raw = raw
        self.resolved = resolved
        self._size: int | None = sum(p.size for p in self.pieces) if resolved else None
        if raw is not None:
            self.lo, self.hi = raw.offset, raw.hi
        elif self.pieces:
            self.lo = min(p.lo for p in self.pieces)
            self.hi = max(p.hi for p in self.pieces)
        else:
            self.lo = self.hi = 0

    def __repr__(self) -> str:
        what = f"{len(self.pieces)} piece(s)" if self.resolved else "unresolved"
        return f"ByteSet([{self.lo}, {self.hi}), {what})"

    @property
    def span(self) -> int:
        return self.hi - self.lo

    @property
    def offset(self) -> int:
        return self.lo

    @property
    def size(self) -> int:
        """Number of distinct bytes (an unresolved set is swept once, then remembered)."""
        if self._size is None:
            self._size = _finish(self.size_job())
        return self._size

    def size_job(self) -> Job[int]:
        """:attr:`size` as a :data:`Job`."""
        if self._size is None:
            found = yield from _sweep_job(self, None, self.lo, self.hi)
            self._size = found[0]
        return self._size

    @property
    def n_runs(self) -> int:
        """Number of intervals if the set were written out."""
        if self.resolved:
            return sum(p.n_runs for p in self.pieces)
        return self.raw.n_runs if self.raw is not None else 0

    @property
    def key(self) -> tuple[object, ...]:
        """Equal keys: the same set (the converse is not promised)."""
        if self.resolved:
            return ("pieces", *(p.key for p in self.pieces))
        return ("raw", self.raw)

    def shifted(self, delta: int) -> ByteSet:
        """The same set moved by ``delta`` bytes."""
        raw = None if self.raw is None else _Raw(self.raw.offset + delta, self.raw.width,
                                                  self.raw.levels)  # fmt: skip
        out = ByteSet((p.shifted(delta) for p in self.pieces), raw, self.resolved)
        out._size = self._size
        return out

    def grain(self, origin: int) -> int:
        """The gcd of every boundary's distance from ``origin``."""
        if self.resolved:
            return _grain_of(self.pieces, origin)
        return self.raw.grain(origin) if self.raw is not None else 0

    def chunks(self, lo: int, hi: int, cap: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The runs that meet ``[lo, hi)``, at most about ``cap`` at a time (not merged)."""
        if self.resolved:
            for p in self.pieces:
                yield from p.chunks(lo, hi, cap)
        elif self.raw is not None:
            yield from self.raw.chunks(lo, hi, cap)

    def below(self, t: int) -> int:
        """How many bytes of the set lie below address ``t``."""
        if self.resolved:
            return sum(p.below(t) for p in self.pieces)
        return int(self.below_many(np.array([t], dtype=np.int64))[0])

    def below_many(self, t: np.ndarray) -> np.ndarray:
        """Vectorised :meth:`below` (an unresolved set is swept up to the largest address)."""
        t = np.asarray(t, dtype=np.int64)
        if not self.resolved:
            return _finish(_below_job(self, t))
        if len(self.pieces) == 1:
            return self.pieces[0].below_many(t)
        out = np.zeros(t.shape, dtype=np.int64)
        for p in self.pieces:
            out += p.below_many(t)
        return out

    def count_in(self, lo: int, hi: int) -> int:
        """Bytes of the set within ``[lo, hi)``."""
        lo, hi = max(lo, self.lo), min(hi, self.hi)
        if hi <= lo:
            return 0
        if self.resolved:
            return self.below(hi) - self.below(lo)
        return _finish(_sweep_job(self, None, lo, hi))[0]

    def contains(self, address: int) -> bool:
        """Whether one byte belongs to the set."""
        return self.count_in(address, address + 1) == 1

    def contains_many(self, addresses: np.ndarray) -> np.ndarray:
        """Vectorised :meth:`contains`."""
        a = np.asarray(addresses, dtype=np.int64)
        return (self.below_many(a + 1) - self.below_many(a)) == 1

    def samples(self, per_piece: int = 8) -> np.ndarray:
        """A few addresses of the set: the lowest and highest byte of each piece and some
        evenly spaced bytes between (resolved sets; an unresolved one gives its ends)."""
        if not self.resolved:
            return np.array([self.lo, self.hi - 1] if self.hi > self.lo else [], dtype=np.int64)
        out = [p.select_many(np.unique(np.linspace(0, p.size - 1, per_piece + 1).astype(np.int64)))
               for p in self.pieces]  # fmt: skip
        return np.concatenate(out) if out else _NO_RUNS

    def runs(
        self, lo: int | None = None, hi: int | None = None, max_runs: int = 1_000_000
    ) -> tuple[np.ndarray, np.ndarray]:
        """The set written out as sorted, merged ``(starts, ends)`` arrays within ``[lo, hi)``
        (the whole set by default); ``ValueError`` past ``max_runs`` runs (ask for a smaller
        window)."""
        lo = self.lo if lo is None else max(lo, self.lo)
        hi = self.hi if hi is None else min(hi, self.hi)
        if hi <= lo:
            return _NO_RUNS, _NO_RUNS
        if self.resolved:
            if len(self.pieces) == 1:
                return self.pieces[0].runs(lo, hi, max_runs)
            parts = [p.runs(lo, hi, max_runs) for p in self.pieces]
            starts = np.concatenate([s for s, _ in parts]) if parts else _NO_RUNS
            ends = np.concatenate([e for _, e in parts]) if parts else _NO_RUNS
            if len(starts) > max_runs:
                raise ValueError(f"more than {max_runs} runs in [{lo}, {hi}); narrow the window")
            return _merge(starts, ends)
        acc_s, acc_e = _NO_RUNS, _NO_RUNS
        seen = 0
        for s, e in self.chunks(lo, hi, min(_CHUNK, max_runs + 1)):
            seen += len(s)
            acc_s, acc_e = _merge(np.concatenate((acc_s, np.clip(s, lo, hi))),
                                  np.concatenate((acc_e, np.clip(e, lo, hi))))  # fmt: skip
            if len(acc_s) > max_runs or seen > 16 * max_runs:
                raise ValueError(f"more than {max_runs} runs in [{lo}, {hi}); narrow the window")
        return acc_s, acc_e


def _canonical_job(
    itemsize: int, shape: tuple[int, ...], strides: tuple[int, ...], base: int
) -> Job[ByteSet]:
    """The :class:`ByteSet` of a strided layout whose element (0, ..., 0) is at ``base``.

    Negative strides are flipped (the set does not change), size-1 and stride-0 dimensions are
    dropped (stride 0 adds readers, not bytes), dimensions are sorted by stride, and inner ones
    whose copies touch or overlap the run so far are merged into one run. The rest nest, or are
    folded (:func:`_fold_job`); past the memory limits the set stays unresolved."""
    if math.prod(shape) == 0:
        return ByteSet((), _Raw(base, 0, ()))
    lo = base + sum(min(0, (n - 1) * s) for n, s in zip(shape, strides, strict=True))
    dims = sorted((abs(s), n) for n, s in zip(shape, strides, strict=True) if n > 1 and s)
    width, i = itemsize, 0
    while i < len(dims) and dims[i][0] <= width:
        width += (dims[i][1] - 1) * dims[i][0]
        i += 1
    rest = tuple(dims[i:])
    raw = _Raw(lo, width, tuple((n, s) for s, n in rest))
    try:
        pieces = yield from _pieces_job(width, rest, {})
    except _Unresolved:
        return ByteSet((), raw, resolved=False)
    return ByteSet((p.shifted(lo) for p in pieces), raw)


def _bytes_of(lay: _Layout, base: int) -> ByteSet:
    return _finish(_canonical_job(lay.itemsize, lay.shape, lay.strides, base))


def _extent(lay: _Layout, base: int) -> tuple[int, int]:
    """``(lo, hi)`` of the bytes of a layout (an empty one: ``(base, base)``)."""
    if lay.numel == 0:
        return base, base
    pairs = list(zip(lay.shape, lay.strides, strict=True))
    lo = base + sum(min(0, (n - 1) * s) for n, s in pairs)
    return lo, base + sum(max(0, (n - 1) * s) for n, s in pairs) + lay.itemsize


def footprint(value: torch.Tensor | np.ndarray) -> ByteSet:
    """The bytes ``value`` occupies, as offsets from the start of its allocation, as a
    :class:`ByteSet` (never materialised; use :meth:`ByteSet.runs` on a window to draw it)."""
    if _is_tensor(value) and value.layout != torch.strided:  # type: ignore[union-attr]
        raise TypeError("a sparse tensor has no strided storage, so no byte footprint")
    lay = _layout(value)
    return _bytes_of(lay, lay.alloc.offset_bytes)


# --------------------------------------------------------------------------------------------
# Internal overlap
# --------------------------------------------------------------------------------------------


def internal_overlap(value: torch.Tensor | np.ndarray) -> bool:
    """True when two distinct elements of ``value`` occupy at least one common byte.

    Exact for every layout and size (unlike ``torch._debug_has_internal_overlap``, which answers
    "don't know" for most strided cases). Decided in this order:

    1. fewer than two elements, or a sparse tensor: False;
    2. a stride 0 on a dimension of size > 1 (``expand``, ``broadcast_to``): True;
    3. dimensions sorted by |stride| where each stride is at least the span of all smaller
       dimensions plus the item size: no two elements can meet, False (every view made by
       slicing, transposing, ``diagonal``, ``select``... takes this path: O(ndim log ndim));
    4. otherwise (``unfold`` with step < size, interleaving ``as_strided``): count the distinct
       bytes exactly through :class:`ByteSet` and compare with ``numel * itemsize``. Runs that
       touch or overlap are merged arithmetically; interleaving dimensions are folded by
       residues modulo the longest one (a head, a periodic body, a tail), or swept in bounded
       windows when even that is too big. Meta tensors are judged on shape and strides.
    """
    if _is_tensor(value) and value.layout != torch.strided:  # type: ignore[union-attr]
        return False
    lay = _layout(value)
    if lay.numel < 2:
        return False
    dims = sorted((abs(s), n) for n, s in zip(lay.shape, lay.strides, strict=True) if n > 1)
    if any(s == 0 for s, _ in dims):
        return True
    reach = lay.itemsize  # span of the smaller dims plus one item
    for stride, count in dims:
        if stride < reach:
            break
        reach += (count - 1) * stride
    else:
        return False
    return _bytes_of(lay, 0).size != lay.numel * lay.itemsize


# --------------------------------------------------------------------------------------------
# Counting shared bytes
# --------------------------------------------------------------------------------------------


class _TooMuchWork(Exception):
    pass


class _Counter:
    """|A & B| for two nested pieces, by recursion on their levels (see the module doc)."""

    def __init__(self, a: StridedBytes, b: StridedBytes) -> None:
        self.sets = (a, b)
        self.calls = 0
        self.work = 0
        self.budget = _FIRST_TRY_CALLS
        self.memo: dict[tuple[int, int, int, int], int] = {}

    def run(self, budget: int) -> int:
        """The count, or :class:`_TooMuchWork` past ``budget`` calls (the memo is kept, so a
        second run with a larger budget goes on where this one stopped)."""
        a, b = self.sets
        self.budget = budget
        self.calls = 0
        return self._count(0, len(a.levels), a.offset, len(b.levels), b.offset)

    def _count(self, x: int, dx: int, ox: int, dy: int, oy: int) -> int:
        """Shared bytes of set ``x`` at depth ``dx`` placed at ``ox`` and the other set at
        depth ``dy`` placed at ``oy``."""
        sx, sy = self.sets[x], self.sets[1 - x]
        if ox + sx.spans[dx] <= oy or oy + sy.spans[dy] <= ox:
            return 0
        key = (x, dx, dy, ox - oy)  # the count only depends on the relative placement
        if key in self.memo:
            return self.memo[key]
        self.calls += 1
        self.work += _CALL_WORK
        if self.calls > self.budget or self.work > _RECURSION_WORK:
            raise _TooMuchWork
        result = self._count_uncached(x, dx, ox, dy, oy)
        self.memo[key] = result
        return result

    def _count_uncached(self, x: int, dx: int, ox: int, dy: int, oy: int) -> int:
        sx, sy = self.sets[x], self.sets[1 - x]
        # Base cases: one side is a plain pattern (usually one run): sum the other's counts.
        if dx == 0 or sx.sizes[dx] == sx.spans[dx]:
            self.work += len(sx.starts) if dx == 0 else 1
            return _pattern_vs(sx, dx, ox, sy, dy, oy)
        if dy == 0 or sy.sizes[dy] == sy.spans[dy]:
            self.work += len(sy.starts) if dy == 0 else 1
            return _pattern_vs(sy, dy, oy, sx, dx, ox)
        # Split Z, the side whose outer stride is larger; W is the other side.
        if sx.levels[dx - 1][1] >= sy.levels[dy - 1][1]:
            z, sz, dz, oz, sw, dw, ow = x, sx, dx, ox, sy, dy, oy
        else:
            z, sz, dz, oz, sw, dw, ow = 1 - x, sy, dy, oy, sx, dx, ox
        count, stride = sz.levels[dz - 1]
        inner = sz.spans[dz - 1]
        w_lo, w_hi = ow, ow + sw.spans[dw]
        k_lo = max(0, (w_lo - oz - inner) // stride + 1)
        k_hi = min(count - 1, (w_hi - 1 - oz) // stride)
        if k_hi < k_lo:
            return 0
        n_copies = k_hi - k_lo + 1
        if n_copies <= 4:
            return sum(
                self._count(z, dz - 1, oz + k * stride, dw, ow) for k in range(k_lo, k_hi + 1)
            )
        # Copies lying inside W's periodic interior see the same thing every `period` copies.
        w_count, w_stride = sw.levels[dw - 1]
        interior_end = ow + (w_count - 1) * w_stride  # copy must end by here
        ki_lo = max(k_lo, -((oz - ow) // stride))  # ceil((ow - oz) / stride)
        ki_hi = min(k_hi, (interior_end - inner - oz) // stride)
        period = w_stride // math.gcd(stride, w_stride)
        total = 0
        if ki_hi - ki_lo + 1 >= period and period <= _RECURSION_CALLS:
            for i in range(period):
                k = ki_lo + i
                reps = (ki_hi - k) // period + 1
                total += reps * self._count(z, dz - 1, oz + k * stride, dw, ow)
            edges = [*range(k_lo, ki_lo), *range(ki_hi + 1, k_hi + 1)]
        else:
            runs = n_copies * sz.runs_at(dz - 1)
            if runs <= _VECTOR_RUNS:
                self.work += runs
                return _sweep(sz, dz, oz, k_lo, k_hi + 1, sw, dw, ow)
            edges = list(range(k_lo, k_hi + 1))
        for k in edges:
            total += self._count(z, dz - 1, oz + k * stride, dw, ow)
        return total


def _inner_runs(s: StridedBytes, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """Runs (relative to 0) of the depth-``depth`` inner set of ``s``, written out."""
    offs = np.zeros(1, dtype=np.int64)
    for i in range(depth - 1, -1, -1):
        count, stride = s.levels[i]
        offs = (offs[:, None] + np.arange(count, dtype=np.int64)[None, :] * stride).ravel()
    return (offs[:, None] + s.starts[None, :]).ravel(), (offs[:, None] + s.ends[None, :]).ravel()


def _pattern_vs(sp: StridedBytes, dp: int, op: int, so: StridedBytes, do: int, oo: int) -> int:
    """Shared bytes when ``sp`` at depth ``dp`` is cheap to write out (a pattern or one run)."""
    if sp.sizes[dp] == sp.spans[dp]:
        starts, ends = np.array([0]), np.array([sp.spans[dp]])
    elif dp == 0:
        starts, ends = sp.starts, sp.ends
    else:  # pragma: no cover - callers only pass patterns or full runs
        starts, ends = _inner_runs(sp, dp)
    lo, hi = oo - op, oo + so.spans[do] - op
    first = int(np.searchsorted(ends, lo, side="right"))
    last = int(np.searchsorted(starts, hi, side="left"))
    if last <= first:
        return 0
    if last - first == 1:
        return so.below(op + int(ends[first]), do, oo) - so.below(op + int(starts[first]), do, oo)
    total = 0
    for b in range(first, last, _CHUNK):  # a long written-out pattern: a chunk at a time
        s, e = starts[b : min(last, b + _CHUNK)] + op, ends[b : min(last, b + _CHUNK)] + op
        total += int((so.below_many(e, do, oo) - so.below_many(s, do, oo)).sum())
    return total


def _sweep(
    sz: StridedBytes, dz: int, oz: int, k_lo: int, k_hi: int, sw: StridedBytes, dw: int, ow: int
) -> int:
    """Shared bytes of copies ``k_lo <= k < k_hi`` of ``sz``'s depth-``dz`` set and ``sw``,
    by writing out those copies' runs (in chunks) and counting each against ``sw``."""
    stride = sz.levels[dz - 1][1]
    rs, re = _inner_runs(sz, dz - 1)
    per_chunk = max(1, _VECTOR_RUNS // max(len(rs), 1))
    total = 0
    for k0 in range(k_lo, k_hi, per_chunk):
        ks = np.arange(k0, min(k_hi, k0 + per_chunk), dtype=np.int64) * stride + oz
        starts = (ks[:, None] + rs[None, :]).ravel()
        ends = (ks[:, None] + re[None, :]).ravel()
        total += int((sw.below_many(ends, dw, ow) - sw.below_many(starts, dw, ow)).sum())
    return total


def _piece_shared_job(a: StridedBytes, b: StridedBytes) -> Job[int]:
    """|a & b| for two nested pieces: the lattice recursion if it finishes in a few calls, else
    a chunked sweep of the side with fewer runs (or a bitmap sweep, if cheaper)."""
    counter = _Counter(a, b)
    runs = min(a.n_runs, b.n_runs)
    for budget in (_FIRST_TRY_CALLS, max(_RECURSION_CALLS, int(runs * _CALLS_PER_RUN))):
        if budget > _FIRST_TRY_CALLS and runs <= _VECTOR_RUNS // 4:
            break
        before = counter.work
        try:
            result = counter.run(budget)
        except _TooMuchWork:
            yield counter.work - before
            continue
        yield counter.work - before
        return result
    return (yield from _sweep_pieces_job(a, b))


def _sweep_pieces_job(a: StridedBytes, b: StridedBytes) -> Job[int]:
    lo, hi = max(a.lo, b.lo), min(a.hi, b.hi)
    if hi <= lo:
        return 0

    def runs_in_window(p: StridedBytes) -> float:
        return p.n_runs * min(1.0, (hi - lo) / max(p.span, 1)) + 1

    small, big = (a, b) if runs_in_window(a) <= runs_in_window(b) else (b, a)
    grain = math.gcd(a.grain(lo), b.grain(lo), hi - lo) or 1
    if (hi - lo) // grain < 4 * runs_in_window(small):
        found = yield from _sweep_job(ByteSet((a,), None), ByteSet((b,), None), lo, hi)
        return found[2]
    total = 0
    for s, e in small.chunks(lo, hi, _CHUNK):
        total += int((big.below_many(e) - big.below_many(s)).sum())
        yield 4 * len(s)
    return total


def _sweep_job(a: ByteSet, b: ByteSet | None, lo: int, hi: int) -> Job[tuple[int, int, int]]:
    """``(|A ∩ W|, |B ∩ W|, |A ∩ B ∩ W|)`` for the window ``W = [lo, hi)``, from bitmaps of
    at most ``_SWEEP_UNITS`` cells of the common gcd at a time: exact for any layout, with
    memory bounded whatever the sizes."""
    if hi <= lo:
        return 0, 0, 0
    grain = math.gcd(a.grain(lo), hi - lo, *(() if b is None else (b.grain(lo),))) or 1
    total = (hi - lo) // grain
    step = max(1, _SWEEP_UNITS)
    ca = cb = cab = 0
    for u0 in range(0, total, step):
        n = min(step, total - u0)
        w0 = lo + u0 * grain
        w1 = w0 + n * grain
        bits_a = yield from _bitmap_job(a.chunks(w0, w1, _CHUNK), w0, n, grain)
        ca += int(np.count_nonzero(bits_a)) * grain
        if b is not None:
            bits_b = yield from _bitmap_job(b.chunks(w0, w1, _CHUNK), w0, n, grain)
            cb += int(np.count_nonzero(bits_b)) * grain
            cab += int(np.count_nonzero(bits_a & bits_b)) * grain
        yield n
    return ca, cb, cab


def _below_job(s: ByteSet, t: np.ndarray) -> Job[np.ndarray]:
    """:meth:`ByteSet.below_many` by sweeping (for unresolved sets)."""
    flat = t.ravel()
    out = np.zeros(len(flat), dtype=np.int64)
    inside = (flat > s.lo) & (flat < s.hi)
    top = int(flat[inside].max()) if inside.any() else s.lo
    if (flat >= s.hi).any():
        size = yield from s.size_job()
        out[flat >= s.hi] = size
    if not inside.any():
        return out.reshape(t.shape)
    targets = np.unique(flat[inside])
    grain = math.gcd(s.grain(s.lo), int(np.gcd.reduce(targets - s.lo)), top - s.lo) or 1
    counts = np.zeros(len(targets), dtype=np.int64)
    running = 0
    step = max(1, _SWEEP_UNITS)
    total = (top - s.lo) // grain
    for u0 in range(0, total, step):
        n = min(step, total - u0)
        w0 = s.lo + u0 * grain
        bits = yield from _bitmap_job(s.chunks(w0, w0 + n * grain, _CHUNK), w0, n, grain)
        cum = np.concatenate(([0], np.cumsum(bits, dtype=np.int64)))
        here = (targets > w0) & (targets <= w0 + n * grain)
        counts[here] = running + cum[(targets[here] - w0) // grain] * grain
        running += int(cum[-1]) * grain
    out[inside] = counts[np.searchsorted(targets, flat[inside])]
    return out.reshape(t.shape)


def _shared_job(a: ByteSet, b: ByteSet) -> Job[int]:
    """Exact number of bytes in both sets."""
    lo, hi = max(a.lo, b.lo), min(a.hi, b.hi)
    if hi <= lo:
        return 0
    if a.resolved and b.resolved:
        total = 0
        for pa in a.pieces:
            for pb in b.pieces:
                if pa.lo < pb.hi and pb.lo < pa.hi:
                    total += yield from _piece_shared_job(pa, pb)
        return total
    found = yield from _sweep_job(a, b, lo, hi)
    return found[2]


def _shared(a: ByteSet, b: ByteSet) -> int:
    return _finish(_shared_job(a, b))


# --------------------------------------------------------------------------------------------
# Relations
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Relation:
    """How the bytes of ``a`` relate to those of ``b`` (one allocation).

    ``kind``: "alias" (same bytes), "contains" (a's bytes strictly include b's), "inside" (the
    reverse), "overlap" (some shared, neither includes the other), "same-storage" (nothing
    shared). ``shared_bytes`` counts the bytes both occupy; ``a_bytes`` / ``b_bytes`` count each
    one's distinct bytes (an expanded value occupies fewer bytes than ``numel * itemsize``).
    ``a`` / ``b`` are workspace names, or None outside a workspace.
    """

    a: str | None
    b: str | None
    kind: RelationKind
    shared_bytes: int
    a_bytes: int = 0
    b_bytes: int = 0

    def swapped(self) -> Relation:
        """The same relation seen from ``b``."""
        flip: dict[str, RelationKind] = {"contains": "inside", "inside": "contains"}
        kind = flip.get(self.kind, self.kind)
        return Relation(self.b, self.a, kind, self.shared_bytes, self.b_bytes, self.a_bytes)


class PendingRelation:
    """A relation whose exact count ran past its work budget: both values are in one
    allocation and their byte ranges meet, the rest is still being counted.

    :meth:`resume` goes on from where the count stopped (from any thread, one at a time) and
    returns the :class:`Relation` once it is done (oriented as :func:`relations_among` orients,
    when it came from there), else this object again. ``work`` is the work spent so far.
    """

    def __init__(self, a: str | None, b: str | None, job: Job[Relation], work: int = 0) -> None:
        self.a, self.b = a, b
        self.work = work
        self._job = job
        self._lock = threading.Lock()
        self._result: Relation | None = None

    def __repr__(self) -> str:
        return f"PendingRelation(a={self.a!r}, b={self.b!r}, work={self.work})"

    def resume(
        self, budget: int | None = None, cancel: Callable[[], bool] | None = None
    ) -> Relation | PendingRelation:
        """Count on for at most ``budget`` more units of work (None: to the end) or until
        ``cancel()`` is true."""
        with self._lock:
            if self._result is None:
                done, value, spent = advance(self._job, budget, cancel)
                self.work += spent
                if done:
                    self._result = value
            return self if self._result is None else self._result


def _same_allocation(x: Allocation, y: Allocation) -> bool:
    if x.key is None or y.key is None or x.start is None or y.start is None:
        return False
    if x.key == y.key:
        return True
    return x.device == y.device and x.start < y.start + y.nbytes and y.start < x.start + x.nbytes


def _kind(a_size: int, b_size: int, shared: int) -> RelationKind:
    if shared == a_size == b_size:
        return "alias"
    if shared == b_size:
        return "contains"
    if shared == a_size:
        return "inside"
    return "overlap" if shared else "same-storage"


def _relation_job(
    a: ByteSet, b: ByteSet, name_a: str | None, name_b: str | None, orient: bool
) -> Job[Relation]:
    if a.key == b.key:
        size = yield from a.size_job()
        rel = Relation(name_a, name_b, "alias", size, size, size)
    else:
        shared = yield from _shared_job(a, b)
        sa = yield from a.size_job()
        sb = yield from b.size_job()
        rel = Relation(name_a, name_b, _kind(sa, sb, shared), shared, sa, sb)
    return rel.swapped() if orient and rel.kind == "inside" else rel


def _start(job: Job[Relation], a: str | None, b: str | None,
           budget: int | None) -> Relation | PendingRelation:  # fmt: skip
    if budget is None:
        return _finish(job)
    done, value, spent = advance(job, budget)
    if done and value is not None:
        return value
    return PendingRelation(a, b, job, spent)


def compare(
    a: ByteSet,
    b: ByteSet,
    names: tuple[str | None, str | None] = (None, None),
    budget: int | None = None,
    orient: bool = False,
) -> Relation | PendingRelation:
    """The relation of two byte sets in one origin (e.g. :func:`footprint` shifted by where
    each allocation starts). Past ``budget`` units of work (about one per run or bitmap cell;
    None: no limit) a :class:`PendingRelation` comes back, to be resumed later. ``orient``:
    an "inside" answer is given the other way round, as "contains"."""
    return _start(_relation_job(a, b, names[0], names[1], orient), names[0], names[1], budget)


class _Side:
    """One value of a relations run: its layout, and its byte set once made (shared by every
    pair it is in, whichever thread gets there first)."""

    def __init__(self, lay: _Layout) -> None:
        self.lay = lay
        self.value: ByteSet | None = None
        self._job: Job[ByteSet] | None = None
        self._lock = threading.Lock()

    def job(self) -> Job[ByteSet]:
        while True:
            with self._lock:
                if self.value is not None:
                    return self.value
                if self._job is None:
                    lay = self.lay
                    self._job = _canonical_job(lay.itemsize, lay.shape, lay.strides,
                                               lay.base_address)  # fmt: skip
                try:
                    work = next(self._job)
                except StopIteration as stop:
                    self.value, self._job = stop.value, None
                    continue
            yield work


def _pair_job(sa: _Side, sb: _Side, na: str | None, nb: str | None, orient: bool) -> Job[Relation]:
    a = yield from sa.job()
    b = yield from sb.job()
    return (yield from _relation_job(a, b, na, nb, orient))


@overload
def relation(
    a: torch.Tensor | np.ndarray, b: torch.Tensor | np.ndarray, budget: None = None
) -> Relation | None: ...


@overload
def relation(
    a: torch.Tensor | np.ndarray, b: torch.Tensor | np.ndarray, budget: int
) -> Relation | PendingRelation | None: ...


def relation(
    a: torch.Tensor | np.ndarray, b: torch.Tensor | np.ndarray, budget: int | None = None
) -> Relation | PendingRelation | None:
    """The relation of the ordered pair ``(a, b)``, or None when they live in different
    allocations (or one has no memory: meta, sparse).

    Exact at every size, with memory bounded (tens of MiB at most, whatever the sizes). Views
    of one tensor (slices with steps, transposes, ``diagonal``, ``expand``, ``unfold``, dtype
    reinterpretation, complex ``real``/``imag``) cost O(ndim^2) arithmetic, microseconds even
    for 100-million-element tensors; ``as_strided`` with interleaving strides is folded by
    residues (milliseconds); what is left is swept in bounded chunks. ``budget``: stop after
    about that much work (one unit per run or bitmap cell) and return a
    :class:`PendingRelation` that finishes the count when resumed; None (the default) always
    returns the answer.
    """
    la, lb = _layout(a), _layout(b)
    if not _same_allocation(la.alloc, lb.alloc):
        return None
    return _start(_pair_job(_Side(la), _Side(lb), None, None, False), None, None, budget)


def allocation_groups(allocs: Mapping[str, Allocation]) -> list[list[str]]:
    """Names whose allocations intersect (:func:`intersecting_groups` of their address
    ranges, per device; values with no memory are left out), each group in the mapping's
    order, groups in the order of their first name: what one strip of the memory panel and
    one relation check cover."""
    order = {name: i for i, name in enumerate(allocs)}
    by_device: dict[str, list[tuple[tuple[int, int], str]]] = {}
    for name, alloc in allocs.items():
        if alloc.key is None or alloc.start is None:
            continue
        span = (alloc.start, alloc.start + max(alloc.nbytes, 1))
        by_device.setdefault(alloc.device, []).append((span, name))
    groups = [sorted((items[i][1] for i in members), key=order.__getitem__)
              for items in by_device.values()
              for members in intersecting_groups([span for span, _ in items])]
    return sorted(groups, key=lambda g: order[g[0]])


def _relate_pair(
    sa: _Side, sb: _Side, na: str, nb: str, budget: int | None
) -> Relation | PendingRelation:
    """One pair of :func:`iter_relations` (tests count these calls)."""
    return _start(_pair_job(sa, sb, na, nb, True), na, nb, budget)


def iter_relations(
    values: Mapping[str, torch.Tensor | np.ndarray], budget: int | None = None
) -> Iterator[Relation | PendingRelation]:
    """The pairs of :func:`relations_among`, computed one at a time as they are asked for.

    With a ``budget`` (work units per pair), a pair whose count runs past it comes out as a
    :class:`PendingRelation` (in the order ``(a, b)`` of the values) instead of blocking."""
    layouts = {name: _layout(v) for name, v in values.items()}
    for group in allocation_groups({n: lay.alloc for n, lay in layouts.items()}):
        sides = {n: _Side(layouts[n]) for n in group}
        for na, nb in combinations(group, 2):
            yield _relate_pair(sides[na], sides[nb], na, nb, budget)


class Relations(Sequence[Relation]):
    """Every related pair of some values, computed lazily as it is read: iterating it yields
    pair after pair without computing the rest; ``len``, indexing from the end and comparing
    compute them all (once: what was computed is kept). ``pairs`` is how many there are, known
    before any is computed (every two values in one allocation are a pair)."""

    def __init__(self, values: Mapping[str, torch.Tensor | np.ndarray]) -> None:
        groups = allocation_groups({name: _layout(v).alloc for name, v in values.items()})
        self.pairs = sum(len(g) * (len(g) - 1) // 2 for g in groups)
        self._source: Iterator[Relation | PendingRelation] = iter_relations(values)
        self._got: list[Relation] = []
        self._done = self.pairs == 0

    def _fill(self, n: int | None) -> None:
        while not self._done and (n is None or len(self._got) < n):
            try:
                rel = next(self._source)
            except StopIteration:
                self._done = True
                break
            assert isinstance(rel, Relation)  # no budget: every pair is counted to the end
            self._got.append(rel)

    def __iter__(self) -> Iterator[Relation]:
        i = 0
        while True:
            self._fill(i + 1)
            if i >= len(self._got):
                return
            yield self._got[i]
            i += 1

    def __len__(self) -> int:
        return self.pairs

    def __bool__(self) -> bool:
        return self.pairs > 0

    @overload
    def __getitem__(self, index: int) -> Relation: ...

    @overload
    def __getitem__(self, index: slice) -> list[Relation]: ...

    def __getitem__(self, index: int | slice) -> Relation | list[Relation]:
        if isinstance(index, slice) or index < 0:
            self._fill(None)
        else:
            self._fill(index + 1)
        return self._got[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Relations | list | tuple):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<Relations: {len(self._got)} of {self.pairs} pairs computed>"


def relations_among(values: Mapping[str, torch.Tensor | np.ndarray]) -> Relations:
    """Every related pair of named values, each pair once, oriented so the kind is never
    "inside" (such pairs are swapped to "contains"); otherwise ``a`` comes first in ``values``.

    Values are first grouped by allocation (keys, then intersecting address ranges, per
    device), so unrelated values cost nothing; pairs come out group by group in name order.
    Returns a lazy :class:`Relations`: a pair is computed when it is read.
    """
    return Relations(values)


def parents(
    sets: Mapping[str, ByteSet],
    budget: int | None = 1 << 24,
    cancel: Callable[[], bool] | None = None,
) -> dict[str, tuple[str, RelationKind]]:
    """For each set (of one allocation, one origin), the one it is drawn under: the smallest
    other set that holds all its bytes ("contains"), or among those of exactly its bytes the
    first ("alias"); ties go to the earlier name. Sets with none are absent.

    Made for hundreds of views of one tensor: equal forms are grouped first, candidates must
    span the set's range and be at least as large, a few sampled bytes reject the rest in one
    vectorised test per candidate, and only the survivors are counted exactly, smallest first,
    until one holds it. Past ``budget`` units of exact counting (None: no limit) the remaining
    sets get no parent."""
    names = list(sets)
    order = {n: i for i, n in enumerate(names)}
    first_of: dict[tuple[object, ...], str] = {}
    reps: list[str] = []
    follows: dict[str, str] = {}
    for n in names:
        key = sets[n].key
        if key in first_of:
            follows[n] = first_of[key]
        else:
            first_of[key] = n
            reps.append(n)
    out: dict[str, tuple[str, RelationKind]] = {}
    count = len(reps)
    if count > 1:
        los = np.array([sets[n].lo for n in reps], dtype=np.int64)
        his = np.array([sets[n].hi for n in reps], dtype=np.int64)
        sizes = np.array([sets[n].size for n in reps], dtype=np.int64)
        ranks = np.array([order[n] for n in reps], dtype=np.int64)
        cands: list[np.ndarray] = []
        for j in range(count):
            bigger = (sizes > sizes[j]) | ((sizes == sizes[j]) & (ranks < ranks[j]))
            if sizes[j]:
                bigger &= (los <= los[j]) & (his >= his[j])
            cands.append(np.flatnonzero(bigger))
        # sampled bytes: one vectorised membership test per candidate container
        holders: dict[int, list[int]] = {}
        for j, c in enumerate(cands):
            for i in c.tolist():
                holders.setdefault(i, []).append(j)
        samples = [sets[n].samples() for n in reps]
        ok: set[tuple[int, int]] = set()
        for i, js in holders.items():
            if cancel is not None and cancel():
                return out
            container = sets[reps[i]]
            if not container.resolved:
                ok.update((i, j) for j in js)
                continue
            addrs = [samples[j] for j in js]
            owner = np.repeat(np.arange(len(js)), [len(a) for a in addrs])
            inside = container.contains_many(np.concatenate(addrs)) if len(owner) else owner
            bad = np.bincount(owner[~inside.astype(bool)], minlength=len(js))
            ok.update((i, j) for j, b in zip(js, bad.tolist(), strict=True) if not b)
        spent = 0
        for j in range(count):
            tried = sorted((i for i in cands[j].tolist() if (i, j) in ok),
                           key=lambda i: (sizes[i], ranks[i]))  # fmt: skip
            for i in tried:
                if cancel is not None and cancel():
                    return out
                job = _shared_job(sets[reps[i]], sets[reps[j]])
                done, shared, work = advance(job, None if budget is None else budget - spent)
                spent += work
                if not done:
                    break
                if shared == sizes[j]:
                    out[reps[j]] = (reps[i], "alias" if sizes[i] == sizes[j] else "contains")
                    break
            if budget is not None and spent >= budget:
                break
    for n, rep in follows.items():
        up = out.get(rep)
        out[n] = up if up is not None and up[1] == "alias" else (rep, "alias")
    return out


# --------------------------------------------------------------------------------------------
# What the Memory panel needs: multiplicities and readers
# --------------------------------------------------------------------------------------------


def element_multiplicity(value: torch.Tensor | np.ndarray) -> np.ndarray:
    """For each element, how many elements of ``value`` (itself included) read at least one of
    its bytes: 1 everywhere for a value without internal overlap, the product of the expanded
    sizes for an ``expand``-ed value, varying counts for ``unfold`` / ``as_strided``.

    Returns an int64 array of the value's shape. Uniform cases (no overlap; or overlap only
    through stride-0 dimensions) are answered without per-element work as a read-only
    broadcast; the rest sort the element offsets (O(numel log numel)).
    """
    lay = _layout(value)
    if lay.numel == 0:
        return np.zeros(lay.shape, dtype=np.int64)
    expanded = math.prod(n for n, s in zip(lay.shape, lay.strides, strict=True) if s == 0)
    rest = [(n, s) for n, s in zip(lay.shape, lay.strides, strict=True) if s != 0]
    dims = sorted((abs(s), n) for n, s in rest if n > 1)
    reach = lay.itemsize
    for stride, count in dims:
        if stride < reach:
            break
        reach += (count - 1) * stride
    else:
        return np.broadcast_to(np.int64(expanded), lay.shape)
    offsets = element_offsets(value)
    flat = np.sort(offsets.ravel())
    w = lay.itemsize
    hi = np.searchsorted(flat, offsets + w, side="left")
    lo = np.searchsorted(flat, offsets - w, side="right")
    return (hi - lo).astype(np.int64)


def byte_multiplicity(
    value: torch.Tensor | np.ndarray, lo: int | None = None, hi: int | None = None
) -> tuple[int, np.ndarray]:
    """How many elements of ``value`` cover each byte of the window ``[lo, hi)`` (allocation
    offsets; default: the value's footprint). Returns ``(lo, counts)`` with ``counts[i]`` for
    byte ``lo + i``. Materialises the element offsets: for the values a panel draws."""
    lay = _layout(value)
    fp_lo, fp_hi = _extent(lay, lay.alloc.offset_bytes)
    lo = fp_lo if lo is None else lo
    hi = fp_hi if hi is None else hi
    counts = np.zeros(max(hi - lo, 0) + 1, dtype=np.int64)
    if hi > lo and lay.numel:
        offs = element_offsets(value).ravel()
        s = np.clip(offs - lo, 0, hi - lo)
        e = np.clip(offs + lay.itemsize - lo, 0, hi - lo)
        np.add.at(counts, s, 1)
        np.add.at(counts, e, -1)
    return lo, np.cumsum(counts[:-1])


def _elements_in(lay: _Layout, lo: int, hi: int, limit: int) -> np.ndarray:
    """Indices (m, ndim) of the elements whose bytes meet the absolute window ``[lo, hi)``:
    dims are visited from the largest |stride| down, keeping only partial offsets that can
    still reach the window, so the work follows the answer, not the value's size."""
    ndim = len(lay.shape)
    if lay.numel == 0:
        return np.zeros((0, ndim), dtype=np.int64)
    order = sorted(range(ndim), key=lambda i: -abs(lay.strides[i]))
    offs = np.array([lay.base_address], dtype=np.int64)
    idx = np.zeros((1, ndim), dtype=np.int64)
    for pos, axis in enumerate(order):
        rest = order[pos + 1 :]
        rest_min = sum(min(0, (lay.shape[i] - 1) * lay.strides[i]) for i in rest)
        rest_max = sum(max(0, (lay.shape[i] - 1) * lay.strides[i]) for i in rest)
        n, s = lay.shape[axis], lay.strides[axis]
        # need off + k*s + rest_max + w > lo and off + k*s + rest_min < hi
        a = lo - lay.itemsize - rest_max - offs  # k*s > a
        b = hi - rest_min - offs  # k*s < b
        if s > 0:
            k_lo, k_hi = a // s + 1, -((-b) // s) - 1
        elif s < 0:
            k_lo, k_hi = b // s + 1, -((-a) // s) - 1
        else:
            ok = (a < 0) & (b > 0)
            k_lo = np.where(ok, 0, 1)
            k_hi = np.where(ok, n - 1, 0)
        k_lo = np.maximum(k_lo, 0)
        k_hi = np.minimum(k_hi, n - 1)
        cnt = np.maximum(k_hi - k_lo + 1, 0)
        total = int(cnt.sum())
        if total > max(limit, 1) * 64 and pos < ndim - 1:
            raise ValueError("too many candidate elements; raise the limit")
        first = np.repeat(k_lo, cnt)
        ks = first + np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        offs = np.repeat(offs, cnt) + ks * s
        idx = np.repeat(idx, cnt, axis=0)
        idx[:, axis] = ks
    return idx[:limit]


def readers(
    values: Mapping[str, torch.Tensor | np.ndarray],
    value_name: str,
    element_index: Iterable[int],
    limit: int = 100_000,
) -> dict[str, list[tuple[int, ...]]]:
    """For hover linking: which elements of each value read the bytes of one element.

    ``element_index`` is an index tuple into ``values[value_name]`` (negative indices allowed).
    Returns ``{name: [index tuples]}`` for every value in the same allocation with at least one
    such element — the hovered value itself included (its other elements appear when it is
    expanded or overlapping). At most ``limit`` indices per value (an expanded value can have
    millions of readers of one byte). Work is proportional to the answer, not to value sizes.
    """
    target = _layout(values[value_name])
    index = tuple(int(i) for i in element_index)
    if len(index) != len(target.shape):
        raise IndexError(f"{value_name} has {len(target.shape)} dimensions, got {len(index)}")
    address = target.base_address
    for i, n, s in zip(index, target.shape, target.strides, strict=True):
        if not -n <= i < n:
            raise IndexError(f"index {index} out of range for shape {target.shape}")
        address += (i % n) * s
    lo, hi = address, address + target.itemsize
    out: dict[str, list[tuple[int, ...]]] = {}
    for name, value in values.items():
        lay = target if name == value_name else _layout(value)
        if name != value_name and not _same_allocation(target.alloc, lay.alloc):
            continue
        found = _elements_in(lay, lo, hi, limit)
        if len(found):
            out[name] = [tuple(int(v) for v in row) for row in found]
    return out


# --------------------------------------------------------------------------------------------
# Why two values share: from how a value was made
# --------------------------------------------------------------------------------------------

# callee (last dotted part, or the full dotted name) -> (shares?, the catalog code of how to
# say it: a sharing.* phrase, which starts with 'which')
_MAKERS: dict[str, tuple[bool | None, str]] = {
    "torch.from_numpy": (True, "sharing.with-numpy-array"),
    "torch.as_tensor": (None, "sharing.if-dtype-device-match"),
    "torch.asarray": (None, "sharing.when-it-can"),
    "torch.frombuffer": (True, "sharing.with-buffer"),
    "np.asarray": (None, "sharing.when-it-can"),
    "numpy.asarray": (None, "sharing.when-it-can"),
    "torch.tensor": (False, "sharing.copies"),
    "np.array": (False, "sharing.copies-by-default"),
    "numpy.array": (False, "sharing.copies-by-default"),
    "np.copy": (False, "sharing.copies"),
    "numpy": (True, "sharing.with-tensor"),
    "detach": (True, "sharing.detached"),
    "view": (True, "sharing.view"),
    "view_as": (True, "sharing.view"),
    "view_as_real": (True, "sharing.view"),
    "view_as_complex": (True, "sharing.view"),
    "expand": (True, "sharing.expanded"),
    "expand_as": (True, "sharing.expanded-as"),
    "broadcast_to": (True, "sharing.broadcast"),
    "t": (True, "sharing.transposed-view"),
    "T": (True, "sharing.transposed-view"),
    "mT": (True, "sharing.transposed-view"),
    "transpose": (True, "sharing.transposed-view"),
    "permute": (True, "sharing.permuted-view"),
    "squeeze": (True, "sharing.view"),
    "unsqueeze": (True, "sharing.view"),
    "flatten": (None, "sharing.when-layout-allows"),
    "reshape": (None, "sharing.when-layout-allows"),
    "ravel": (None, "sharing.when-layout-allows"),
    "contiguous": (None, "sharing.if-contiguous"),
    "diagonal": (True, "sharing.diagonal-view"),
    "unfold": (True, "sharing.windows"),
    "as_strided": (True, "sharing.strided-view"),
    "narrow": (True, "sharing.view"),
    "select": (True, "sharing.view"),
    "split": (True, "sharing.views"),
    "chunk": (True, "sharing.views"),
    "unbind": (True, "sharing.views"),
    "real": (True, "sharing.real-view"),
    "imag": (True, "sharing.imag-view"),
    "clone": (False, "sharing.copies"),
    "copy": (False, "sharing.copies"),
    "to": (None, "sharing.copies-if-dtype-device-change"),
    "cpu": (None, "sharing.copies-unless-on-cpu"),
    "cuda": (None, "sharing.copies-unless-on-device"),
    "float": (None, "sharing.copies-unless-float32"),
    "double": (None, "sharing.copies-unless-float64"),
    "long": (None, "sharing.copies-unless-int64"),
    "int": (None, "sharing.copies-unless-int32"),
    "astype": (None, "sharing.copies-unless-copy-false"),
}


# names in _MAKERS that mean something else as module functions (torch.float is a dtype...)
_METHOD_ONLY = frozenset(
    {"numpy", "to", "float", "double", "long", "int", "cpu", "cuda", "astype", "copy"}
)


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else f"?.{node.attr}"
    if isinstance(node, ast.Call | ast.Subscript):
        return "?"
    return None


def sharing_reason(name: str, source: str, lang: str = "en") -> str | None:
    """Say in words why ``name`` shares (or does not share) memory, from the expression that
    made it, e.g. ``sharing_reason("shared", "torch.from_numpy(array)")`` ->
    "`shared` was made by `torch.from_numpy(array)`, which shares memory with the NumPy array".

    ``source`` is the right-hand side (or a whole ``name = ...`` statement) from the runner's
    history. Judged on the outermost operation only; returns None when it says nothing known
    (an arithmetic expression makes a new tensor: that is said too). ``lang`` is ``"en"`` or
    ``"zh"``.
    """
    try:
        tree = ast.parse(source.strip(), mode="exec")
    except SyntaxError:
        return None
    if len(tree.body) != 1:
        return None
    stmt = tree.body[0]
    expr = stmt.value if isinstance(stmt, ast.Assign | ast.Expr) else None
    if expr is None:
        return None
    phrase = _phrase_code(expr)
    if phrase is None:
        return None
    return render("sharing.made-by", lang, name=name, text=ast.unparse(expr),
                  phrase=Message(phrase))


def _phrase_code(expr: ast.expr) -> str | None:
    """The catalog code of the phrase (a ``sharing.*`` code; its English starts with 'which')
    for the outermost operation of ``expr``, or None."""
    if isinstance(expr, ast.Subscript):
        index = expr.slice
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        basic = all(
            isinstance(p, ast.Slice | ast.Constant)
            or (isinstance(p, ast.UnaryOp) and isinstance(p.operand, ast.Constant))
            for p in parts
        )
        if basic:
            return "sharing.basic-indexing"
        return "sharing.advanced-indexing"
    if isinstance(expr, ast.BinOp | ast.UnaryOp | ast.Compare):
        return "sharing.computes-new-value"
    if isinstance(expr, ast.Attribute) and expr.attr in _MAKERS:  # x.T, x.real, x.imag
        return _MAKERS[expr.attr][1]
    if isinstance(expr, ast.Call):
        dotted = _dotted(expr.func) or ""
        last = dotted.rsplit(".", 1)[-1]
        module_call = dotted.startswith(("torch.", "np.", "numpy."))
        if dotted in _MAKERS:
            return _MAKERS[dotted][1]
        if "." in dotted and last in _MAKERS and not (module_call and last in _METHOD_ONLY):
            return _MAKERS[last][1]
        if module_call:
            return "sharing.makes-new-value"
    return None
