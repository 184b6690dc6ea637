"""Which bytes a value occupies, and how two values' bytes relate — exactly, at any size.

A strided value (a torch tensor or a NumPy array) with item size ``w``, shape ``n`` and byte
strides ``s`` occupies the byte set ``{o + sum_i k_i*s_i + j : 0 <= k_i < n_i, 0 <= j < w}``.
Everything here is computed on that description, without materialising byte sets:

* :class:`StridedBytes` is the canonical form of such a set. Negative strides are flipped (the
  set does not change), size-1 and stride-0 dimensions are dropped (stride 0 adds readers, not
  bytes), dimensions are sorted by stride, and inner dimensions whose copies touch or overlap are
  merged into one run. What is left is a *pattern* (sorted, disjoint byte intervals; usually a
  single run) repeated by *nested levels* ``(count, stride)`` whose copies never overlap
  (``stride >= span of the inner set``). When a level does interleave with the ones inside it
  (an ``as_strided`` with interleaving strides), those levels are folded into an explicit pattern,
  either by sorting and merging the runs or by OR-ing a bitmap by doubling, whichever is cheaper.
* For a nested form, "how many bytes lie below address t" is an O(ndim) mixed-radix decode
  (:meth:`StridedBytes.below`), so the size of the set, its intersection with an interval, and
  membership are all O(ndim).
* ``|A & B|`` (:func:`_shared`) recurses on the level with the larger stride, keeps only the
  copies that meet the other set's bounding range, and groups the copies lying inside the other
  set's periodic interior by their residue modulo its period, so each distinct case is counted
  once; e.g. two views of one 100-million-element tensor take well under a millisecond. If
  that recursion would need too many calls, it falls back to a vectorised sweep of the smaller
  set's runs, then to a bitmap over the common range: still exact, just slower.

All answers are exact for every size; the sizes only decide the speed (see the docstrings of
:func:`internal_overlap` and :func:`relation`).

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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Literal

import numpy as np
import torch

__all__ = [
    "Allocation",
    "Relation",
    "RelationKind",
    "StridedBytes",
    "allocation",
    "byte_multiplicity",
    "element_multiplicity",
    "element_offsets",
    "footprint",
    "internal_overlap",
    "readers",
    "relation",
    "relations_among",
    "sharing_reason",
]

RelationKind = Literal["alias", "contains", "inside", "overlap", "same-storage"]

# Work limits. They change speed only, never answers.
_VECTOR_RUNS = 1 << 21  # runs enumerated at once by a numpy sweep
_RECURSION_CALLS = 20_000  # calls of the lattice recursion before it gives up for a sweep
_FIRST_TRY_CALLS = 300  # calls tried before a cheap sweep (few runs) is preferred
_CALLS_PER_RUN = 1 / 20  # one recursive call costs about as much as sweeping 20 runs
_BITMAP_UNITS = 1 << 31  # largest bitmap (in units of the common gcd) we are willing to build


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
    note: str = ""

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
            f"{t.layout} tensor: values and indices live in separate buffers; "
            "there is no strided storage to compare",
        )
        return _Layout(itemsize, tuple(t.shape), (), alloc)
    strides = tuple(s * itemsize for s in t.stride())
    try:
        storage = t.untyped_storage()
    except (NotImplementedError, RuntimeError) as exc:  # e.g. functorch wrappers
        alloc = Allocation(None, None, 0, 0, device, f"no accessible storage: {exc}")
        return _Layout(itemsize, tuple(t.shape), strides, alloc)
    offset = int(t.storage_offset()) * itemsize  # torch types it int | SymInt (symbolic tracing)
    if t.device.type == "meta":
        alloc = Allocation(
            None,
            None,
            storage.nbytes(),
            offset,
            device,
            "meta tensor: shape, dtype and strides only; no memory is allocated",
        )
        return _Layout(itemsize, tuple(t.shape), strides, alloc)
    start = storage.data_ptr()
    key = (device, start) if start else None
    note = "" if start else "empty storage (no memory allocated)"
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
    An empty set has no pattern intervals.
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

    def runs_at(self, depth: int) -> int:
        """Number of intervals of the depth-``depth`` inner set, written out."""
        return len(self.starts) * math.prod(c for c, _ in self.levels[:depth])

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

    def copy_offsets(self, depth: int, lo_k: int = 0, hi_k: int | None = None) -> np.ndarray:
        """Offsets of the copies of the depth-``depth`` inner set that make up the whole set
        (restricted to ``lo_k <= k < hi_k`` on the outermost level). Materialises them."""
        offs = np.array([self.offset], dtype=np.int64)
        for i in range(len(self.levels) - 1, depth - 1, -1):
            count, stride = self.levels[i]
            ks = np.arange(count, dtype=np.int64)
            if i == len(self.levels) - 1:
                ks = ks[lo_k : count if hi_k is None else hi_k]
            offs = (offs[:, None] + ks[None, :] * stride).ravel()
        return offs

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
            rep = np.repeat(offs, n)
            first = np.repeat(k_lo, n)
            step = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(n) - n, n)
            offs = rep + (first + step) * stride
        s = (offs[:, None] + self.starts[None, :]).ravel()
        e = (offs[:, None] + self.ends[None, :]).ravel()
        keep = (e > lo) & (s < hi)
        s, e = np.clip(s[keep], lo, hi), np.clip(e[keep], lo, hi)
        return _merge(s, e)


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


def _fold(
    starts: np.ndarray, ends: np.ndarray, levels: list[tuple[int, int]]
) -> tuple[np.ndarray, np.ndarray]:
    """Write ``pattern repeated by levels`` (levels may interleave) as explicit merged intervals.

    Two exact methods; the cheaper is used: enumerate every run, sort and merge (cost ~ runs),
    or OR a bitmap by doubling, in units of the gcd of all lengths and strides (cost ~ span/gcd
    times log of the counts)."""
    n_runs = len(starts) * math.prod(c for c, _ in levels)
    span = int(ends[-1]) + sum((c - 1) * s for c, s in levels)
    g = 0
    for v in (*starts.tolist(), *ends.tolist(), *(s for _, s in levels)):
        g = math.gcd(g, int(v))
    units = span // g
    if n_runs * 8 <= units or units > _BITMAP_UNITS:
        offs = np.zeros(1, dtype=np.int64)
        for count, stride in levels:
            offs = (offs[:, None] + np.arange(count, dtype=np.int64)[None, :] * stride).ravel()
        s = (offs[:, None] + starts[None, :]).ravel()
        e = (offs[:, None] + ends[None, :]).ravel()
        return _merge(s, e)
    bitmap = np.zeros(units, dtype=bool)
    edges = np.zeros(units + 1, dtype=np.int32)
    np.add.at(edges, starts // g, 1)
    np.add.at(edges, ends // g, -1)
    bitmap[:] = np.cumsum(edges[:-1]) > 0
    extent = int(ends[-1]) // g
    for count, stride in levels:
        step = stride // g
        copies = 1
        while copies * 2 <= count:
            length = (copies - 1) * step + extent
            bitmap[copies * step : copies * step + length] |= bitmap[:length]
            copies *= 2
        length = (copies - 1) * step + extent
        rest = count - copies
        if rest:
            bitmap[rest * step : rest * step + length] |= bitmap[:length]
        extent = (count - 1) * step + extent
    padded = np.concatenate(([False], bitmap, [False])).view(np.int8)
    change = np.diff(padded)
    return (np.flatnonzero(change == 1) * g).astype(np.int64), (
        np.flatnonzero(change == -1) * g
    ).astype(np.int64)


def _canonical(
    itemsize: int, shape: tuple[int, ...], strides: tuple[int, ...], base: int
) -> StridedBytes:
    """The :class:`StridedBytes` of a strided layout whose element (0, ..., 0) is at ``base``."""
    if math.prod(shape) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return StridedBytes(base, empty, empty, ())
    lo = base + sum(min(0, (n - 1) * s) for n, s in zip(shape, strides, strict=True))
    dims = sorted((abs(s), n) for n, s in zip(shape, strides, strict=True) if n > 1 and s)
    width = itemsize  # the pattern while it is a single run [0, width)
    starts: np.ndarray | None = None  # an explicit pattern, once interleaving forced one
    ends = np.zeros(0, dtype=np.int64)
    levels: list[tuple[int, int]] = []
    for stride, count in dims:
        if starts is None and not levels and stride <= width:
            width += (count - 1) * stride  # copies touch or overlap: still one run
            continue
        pattern_span = width if starts is None else int(ends[-1])
        inner_span = pattern_span + sum((c - 1) * s for c, s in levels)
        if stride >= inner_span:
            levels.append((count, stride))
            continue
        if starts is None:
            starts = np.zeros(1, dtype=np.int64)
            ends = np.array([width], dtype=np.int64)
        starts, ends = _fold(starts, ends, [*levels, (count, stride)])
        levels = []
        if len(starts) == 1:  # the fold closed every gap: back to a single run
            width, starts = int(ends[0]), None
    if starts is None:
        starts = np.zeros(1, dtype=np.int64)
        ends = np.array([width], dtype=np.int64)
    return StridedBytes(lo, starts, ends, tuple(levels))


def _bytes_of(lay: _Layout, base: int) -> StridedBytes:
    return _canonical(lay.itemsize, lay.shape, lay.strides, base)


def footprint(value: torch.Tensor | np.ndarray) -> StridedBytes:
    """The bytes ``value`` occupies, as offsets from the start of its allocation, in canonical
    strided form (never materialised; use :meth:`StridedBytes.runs` on a window to draw it)."""
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
       bytes exactly through :class:`StridedBytes` and compare with ``numel * itemsize``. Runs
       that touch or overlap are merged arithmetically (O(ndim)); only dimensions that
       interleave are written out, by sorting runs or by a bitmap in units of the gcd of the
       strides — O(min(runs, span/gcd)) time and memory, whichever is smaller. Meta tensors are
       judged on their shape and strides.
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
    """|A & B| for two canonical sets, by recursion on their nested levels (see module doc)."""

    def __init__(self, a: StridedBytes, b: StridedBytes) -> None:
        self.sets = (a, b)
        self.calls = 0
        self.budget = _FIRST_TRY_CALLS
        self.memo: dict[tuple[int, int, int, int], int] = {}

    def count(self) -> int:
        """Try the recursion briefly; if it is not done and one set has few runs, sweep those;
        otherwise give the recursion as many calls as a sweep would cost, then sweep."""
        a, b = self.sets
        runs = min(a.n_runs, b.n_runs)
        for budget in (_FIRST_TRY_CALLS, max(_RECURSION_CALLS, int(runs * _CALLS_PER_RUN))):
            if budget > _FIRST_TRY_CALLS and runs <= _VECTOR_RUNS // 4:
                break
            self.budget = budget
            self.calls = 0
            try:
                return self._count(0, len(a.levels), a.offset, len(b.levels), b.offset)
            except _TooMuchWork:
                continue
        return _shared_by_sweep(a, b)

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
        if self.calls > self.budget:
            raise _TooMuchWork
        result = self._count_uncached(x, dx, ox, dy, oy)
        self.memo[key] = result
        return result

    def _count_uncached(self, x: int, dx: int, ox: int, dy: int, oy: int) -> int:
        sx, sy = self.sets[x], self.sets[1 - x]
        # Base cases: one side is a plain pattern (usually one run): sum the other's counts.
        if dx == 0 or sx.sizes[dx] == sx.spans[dx]:
            return _pattern_vs(sx, dx, ox, sy, dy, oy)
        if dy == 0 or sy.sizes[dy] == sy.spans[dy]:
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
            if n_copies * sz.runs_at(dz - 1) <= _VECTOR_RUNS:
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
    keep = slice(
        int(np.searchsorted(ends, lo, side="right")), int(np.searchsorted(starts, hi, side="left"))
    )
    starts, ends = starts[keep], ends[keep]
    if len(starts) == 0:
        return 0
    if len(starts) == 1:
        return so.below(op + int(ends[0]), do, oo) - so.below(op + int(starts[0]), do, oo)
    return int((so.below_many(ends + op, do, oo) - so.below_many(starts + op, do, oo)).sum())


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


def _shared_by_sweep(a: StridedBytes, b: StridedBytes) -> int:
    """Fallback: sweep the set with fewer runs against the other one (exact, O(runs))."""
    small, big = (a, b) if a.n_runs <= b.n_runs else (b, a)
    if not small.levels:
        return _pattern_vs(small, 0, small.offset, big, len(big.levels), big.offset)
    count = small.levels[-1][0]
    return _sweep(
        small, len(small.levels), small.offset, 0, count, big, len(big.levels), big.offset
    )


def _shared(a: StridedBytes, b: StridedBytes) -> int:
    """Exact number of bytes in both sets."""
    if a.size == 0 or b.size == 0 or a.hi <= b.lo or b.hi <= a.lo:
        return 0
    return _Counter(a, b).count()


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


def _relate(la: _Layout, lb: _Layout, name_a: str | None, name_b: str | None) -> Relation | None:
    if not _same_allocation(la.alloc, lb.alloc):
        return None
    a, b = _bytes_of(la, la.base_address), _bytes_of(lb, lb.base_address)
    shared = _shared(a, b)
    return Relation(name_a, name_b, _kind(a.size, b.size, shared), shared, a.size, b.size)


def relation(a: torch.Tensor | np.ndarray, b: torch.Tensor | np.ndarray) -> Relation | None:
    """The relation of the ordered pair ``(a, b)``, or None when they live in different
    allocations (or one has no memory: meta, sparse).

    Exact at every size. Views of one tensor (slices with steps, transposes, ``diagonal``,
    ``expand``, ``unfold``, dtype reinterpretation, complex ``real``/``imag``) cost O(ndim^2)
    arithmetic, microseconds even for 100-million-element tensors. Layouts whose strides are
    mutually incommensurate fall back to a vectorised sweep over the runs of the smaller value,
    then to a bitmap (both exact).
    """
    return _relate(_layout(a), _layout(b), None, None)


def relations_among(values: Mapping[str, torch.Tensor | np.ndarray]) -> list[Relation]:
    """Every related pair of named values, each pair once, oriented so the kind is never
    "inside" (such pairs are swapped to "contains"); otherwise ``a`` comes first in ``values``.

    Values are first grouped by allocation (keys, then intersecting address ranges, per
    device), so unrelated values cost nothing; pairs come out group by group in name order.
    """
    layouts = {name: _layout(v) for name, v in values.items()}
    order = {name: i for i, name in enumerate(values)}
    with_memory = [(n, lay) for n, lay in layouts.items() if lay.alloc.key is not None]
    groups: list[list[str]] = []
    by_device: dict[str, list[tuple[int, int, str]]] = {}
    for name, lay in with_memory:
        start = lay.alloc.start or 0
        by_device.setdefault(lay.alloc.device, []).append(
            (start, start + max(lay.alloc.nbytes, 1), name)
        )
    for ranges in by_device.values():
        ranges.sort()
        reach = -1
        for start, end, name in ranges:
            if start < reach:
                groups[-1].append(name)
                reach = max(reach, end)
            else:
                groups.append([name])
                reach = end
    out: list[Relation] = []
    for group in sorted(groups, key=lambda g: min(order[n] for n in g)):
        group.sort(key=order.__getitem__)
        bytes_of = {n: _bytes_of(layouts[n], layouts[n].base_address) for n in group}
        for na, nb in combinations(group, 2):
            a, b = bytes_of[na], bytes_of[nb]
            shared = _shared(a, b)
            rel = Relation(na, nb, _kind(a.size, b.size, shared), shared, a.size, b.size)
            out.append(rel.swapped() if rel.kind == "inside" else rel)
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
    fp = _bytes_of(lay, lay.alloc.offset_bytes)
    lo = fp.lo if lo is None else lo
    hi = fp.hi if hi is None else hi
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

# callee (last dotted part, or the full dotted name) -> (shares?, how to say it)
_MAKERS: dict[str, tuple[bool | None, str]] = {
    "torch.from_numpy": (True, "which shares memory with the NumPy array"),
    "torch.as_tensor": (
        None,
        "which shares memory when dtype and device already match, else copies",
    ),
    "torch.asarray": (None, "which shares memory when it can, else copies"),
    "torch.frombuffer": (True, "which shares memory with the buffer"),
    "np.asarray": (None, "which shares memory when it can, else copies"),
    "numpy.asarray": (None, "which shares memory when it can, else copies"),
    "torch.tensor": (False, "which copies"),
    "np.array": (False, "which copies (copy=True by default)"),
    "numpy.array": (False, "which copies (copy=True by default)"),
    "np.copy": (False, "which copies"),
    "numpy": (True, "which shares memory with the tensor"),
    "detach": (True, "which shares memory (a new tensor on the same storage, cut from autograd)"),
    "view": (True, "which shares memory (a view)"),
    "view_as": (True, "which shares memory (a view)"),
    "view_as_real": (True, "which shares memory (a view)"),
    "view_as_complex": (True, "which shares memory (a view)"),
    "expand": (
        True,
        "which shares memory: expanded axes have stride 0, so many elements read the same bytes",
    ),
    "expand_as": (True, "which shares memory: expanded axes have stride 0"),
    "broadcast_to": (True, "which shares memory: broadcast axes have stride 0"),
    "t": (True, "which shares memory (a transposed view)"),
    "T": (True, "which shares memory (a transposed view)"),
    "mT": (True, "which shares memory (a transposed view)"),
    "transpose": (True, "which shares memory (a transposed view)"),
    "permute": (True, "which shares memory (a permuted view)"),
    "squeeze": (True, "which shares memory (a view)"),
    "unsqueeze": (True, "which shares memory (a view)"),
    "flatten": (None, "which shares memory when the layout allows, else copies"),
    "reshape": (None, "which shares memory when the layout allows, else copies"),
    "ravel": (None, "which shares memory when the layout allows, else copies"),
    "contiguous": (None, "which shares memory if already contiguous, else copies"),
    "diagonal": (True, "which shares memory (a view of the diagonal)"),
    "unfold": (True, "which shares memory (overlapping windows when step < size)"),
    "as_strided": (True, "which shares memory (a view with the given strides)"),
    "narrow": (True, "which shares memory (a view)"),
    "select": (True, "which shares memory (a view)"),
    "split": (True, "which shares memory (views)"),
    "chunk": (True, "which shares memory (views)"),
    "unbind": (True, "which shares memory (views)"),
    "real": (True, "which shares memory (a view of the real parts)"),
    "imag": (True, "which shares memory (a view of the imaginary parts)"),
    "clone": (False, "which copies"),
    "copy": (False, "which copies"),
    "to": (None, "which copies when dtype or device change, else returns the same tensor"),
    "cpu": (None, "which copies unless the tensor is already on the CPU"),
    "cuda": (None, "which copies unless the tensor is already on that device"),
    "float": (None, "which copies unless the dtype is already float32"),
    "double": (None, "which copies unless the dtype is already float64"),
    "long": (None, "which copies unless the dtype is already int64"),
    "int": (None, "which copies unless the dtype is already int32"),
    "astype": (None, "which copies (unless copy=False and the dtype already matches)"),
}


#: the phrases of :func:`sharing_reason` in Chinese (English is the key)
_ZH_PHRASES: dict[str, str] = {
    "which computes a new value in new memory":
        "它在新的内存里算出一个新值",
    "which copies":
        "它会复制",
    "which copies (copy=True by default)":
        "它会复制（默认 copy=True）",
    "which copies (unless copy=False and the dtype already matches)":
        "它会复制（除非 copy=False 且 dtype 已经一致）",
    "which copies unless the dtype is already float32":
        "除非 dtype 已经是 float32，否则它会复制",
    "which copies unless the dtype is already float64":
        "除非 dtype 已经是 float64，否则它会复制",
    "which copies unless the dtype is already int32":
        "除非 dtype 已经是 int32，否则它会复制",
    "which copies unless the dtype is already int64":
        "除非 dtype 已经是 int64，否则它会复制",
    "which copies unless the tensor is already on that device":
        "除非张量已经在那个设备上，否则它会复制",
    "which copies unless the tensor is already on the CPU":
        "除非张量已经在 CPU 上，否则它会复制",
    "which copies when dtype or device change, else returns the same tensor":
        "dtype 或设备改变时它会复制，否则返回同一个张量",
    "which makes a new value in new memory":
        "它在新的内存里创建一个新值",
    "which may copy (indexing with a list, tensor or mask copies)":
        "它可能会复制（用列表、张量或掩码做索引会复制）",
    "which shares memory (a new tensor on the same storage, cut from autograd)":
        "它共享内存（同一存储上的新张量，与自动微分断开）",
    "which shares memory (a permuted view)":
        "它共享内存（维度重排的视图）",
    "which shares memory (a transposed view)":
        "它共享内存（转置的视图）",
    "which shares memory (a view of the diagonal)":
        "它共享内存（对角线的视图）",
    "which shares memory (a view of the imaginary parts)":
        "它共享内存（虚部的视图）",
    "which shares memory (a view of the real parts)":
        "它共享内存（实部的视图）",
    "which shares memory (a view with the given strides)":
        "它共享内存（按给定步长的视图）",
    "which shares memory (a view)":
        "它共享内存（一个视图）",
    "which shares memory (overlapping windows when step < size)":
        "它共享内存（step < size 时窗口相互重叠）",
    "which shares memory (slicing and integer indexing make views)":
        "它共享内存（切片和整数索引得到视图）",
    "which shares memory (views)":
        "它共享内存（多个视图）",
    "which shares memory if already contiguous, else copies":
        "如果已经连续就共享内存，否则复制",
    "which shares memory when dtype and device already match, else copies":
        "dtype 和设备都已一致时共享内存，否则复制",
    "which shares memory when it can, else copies":
        "能共享时共享内存，否则复制",
    "which shares memory when the layout allows, else copies":
        "内存布局允许时共享内存，否则复制",
    "which shares memory with the NumPy array":
        "它与 NumPy 数组共享内存",
    "which shares memory with the buffer":
        "它与缓冲区共享内存",
    "which shares memory with the tensor":
        "它与张量共享内存",
    "which shares memory: broadcast axes have stride 0":
        "它共享内存：广播出的轴步长为 0",
    "which shares memory: expanded axes have stride 0":
        "它共享内存：expand 出的轴步长为 0",
    "which shares memory: expanded axes have stride 0, so many elements read the same bytes":
        "它共享内存：expand 出的轴步长为 0，所以许多元素读取同一组字节",
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
    text = ast.unparse(expr)
    phrase = _sharing_phrase(expr)
    if phrase is None:
        return None
    if lang == "zh":
        return f"`{name}` 由 `{text}` 得到，" + _ZH_PHRASES.get(phrase, phrase)
    return f"`{name}` was made by `{text}`, " + phrase


def _sharing_phrase(expr: ast.expr) -> str | None:
    """The phrase (it starts with 'which') for the outermost operation of ``expr``, or None."""
    if isinstance(expr, ast.Subscript):
        index = expr.slice
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        basic = all(
            isinstance(p, ast.Slice | ast.Constant)
            or (isinstance(p, ast.UnaryOp) and isinstance(p.operand, ast.Constant))
            for p in parts
        )
        if basic:
            return "which shares memory (slicing and integer indexing make views)"
        return "which may copy (indexing with a list, tensor or mask copies)"
    if isinstance(expr, ast.BinOp | ast.UnaryOp | ast.Compare):
        return "which computes a new value in new memory"
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
            return "which makes a new value in new memory"
    return None
