"""A preview of a huge 2-D plane that keeps its extremes and its NaN/Inf: :func:`summarise`.

A strided preview (:func:`.preview.slice_plane`) reads one element in ``steps`` along each axis:
cheap, exact where it reads, but blind between its samples: a NaN, an Inf or a spike that falls
between two sampled elements is never drawn, and the colour scale spans the sample's range, not
the data's. :func:`summarise` reads the whole plane once, a chunk of rows at a time (bounded
memory; memory maps and strided or expanded tensors included), and reduces each block of
``steps`` elements (the elements that one preview cell stands for) to

- the smallest and the largest *finite* value of the block (``lo``, ``hi``; NaN when the block
  has none), so the plane's exact finite range is the range of the blocks, and
- how many NaN, +Inf and -Inf it holds, so a NaN anywhere is visible at every scale.

Why min *and* max rather than one number per block (the mean, or the value of largest
magnitude): a mean hides a spike, and "largest magnitude" is the largest value of every block
when all values are positive (the smallest would never be seen). With both kept, a picture can
show, per block, the extreme that lies further from the middle of the colour scale
(:meth:`BlockSummary.shown`): the global minimum and maximum are then both drawn, and the choice
follows the colour range the user picks (around 0 when it is symmetric).

Expanded (stride-0) axes are read once, not once per repeat. No Qt here.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass

import numpy as np
import torch

from .preview import (
    CancelFn,
    NonFiniteCounts,
    Progress,
    Value,
    chunk_to_numpy,
    display_numbers,
    dtype_kind,
    plane_view,
)
from .stats import Cancelled, stats_pool, stats_workers

CHUNK = 1 << 22  # elements read and reduced at a time (16 MiB of float32)

__all__ = ["CHUNK", "BlockSummary", "summarise", "summarise_view"]


@dataclass(frozen=True, eq=False)
class BlockSummary(NonFiniteCounts):
    """Extremes and non-finite counts of each ``steps[0] x steps[1]`` block of a 2-D plane.

    Block ``(i, j)`` covers rows ``i*steps[0] ... (i+1)*steps[0]-1`` and columns
    ``j*steps[1] ...`` of the plane (the last blocks may be smaller), the elements that cell
    ``(i, j)`` of a strided preview with the same ``steps`` stands for. Arrays are
    ``(blocks down, blocks across)``: ``lo``/``hi`` float64 (NaN where a block has no finite
    value), ``nan``/``posinf``/``neginf`` int64 counts.
    """

    lo: np.ndarray
    hi: np.ndarray
    nan: np.ndarray
    posinf: np.ndarray
    neginf: np.ndarray
    steps: tuple[int, int]
    size: tuple[int, int]  # the plane's (rows, columns)

    @property
    def min(self) -> float | None:
        """The plane's smallest finite value (None: it has none)."""
        return None if np.isnan(self.lo).all() else float(np.nanmin(self.lo))

    @property
    def max(self) -> float | None:
        return None if np.isnan(self.hi).all() else float(np.nanmax(self.hi))

    def shown(self, centre: float) -> np.ndarray:
        """One value per block for a picture: ``hi`` or ``lo``, whichever lies further from
        ``centre`` (the middle of the colour scale); NaN for blocks with no finite value."""
        with np.errstate(invalid="ignore"):
            return np.where(np.abs(self.hi - centre) >= np.abs(self.lo - centre),
                            self.hi, self.lo)

    def block(self, i: int, j: int) -> tuple[slice, slice]:
        """The plane's rows and columns that block ``(i, j)`` covers."""
        sr, sc = self.steps
        return slice(i * sr, min(self.size[0], (i + 1) * sr)), \
            slice(j * sc, min(self.size[1], (j + 1) * sc))

    def transposed(self) -> BlockSummary:
        return BlockSummary(lo=self.lo.T, hi=self.hi.T, nan=self.nan.T, posinf=self.posinf.T,
                            neginf=self.neginf.T, steps=(self.steps[1], self.steps[0]),
                            size=(self.size[1], self.size[0]))


def _stride0(view: Value, axis: int) -> bool:
    if int(view.shape[axis]) <= 1:
        return False
    if isinstance(view, torch.Tensor):
        return int(view.stride(axis)) == 0
    return int(view.strides[axis]) == 0


def _read(view: Value, rows: slice, cols: slice, kind: str, part: str) -> np.ndarray:
    """Rows and columns of a 2-D view as a small NumPy array of displayable numbers: the
    value's own float dtype (float32 stays float32), bool as uint8, complex as ``part``."""
    piece = view[rows, cols]
    # an array is read in place (a memory map's pages), not copied
    a = chunk_to_numpy(piece) if isinstance(piece, torch.Tensor) else np.asarray(piece)
    if kind in ("complex", "datetime", "timedelta", "text"):  # dates: integers, NaT as NaN
        return display_numbers(a, kind, part)
    if a.dtype == np.bool_:
        return a.view(np.uint8)
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    return a


def _blocks(ufunc: np.ufunc, x: np.ndarray, axis: int, start: int, step: int,
            dtype: type | None = None) -> np.ndarray:
    """Reduce ``x`` (2-D) along ``axis`` over blocks of ``step``, where ``x`` starts at index
    ``start`` of that axis (blocks are aligned to multiples of ``step``). Whole blocks are
    reduced through a reshape, which NumPy does element by element along contiguous rows: 20
    times faster than ``ufunc.reduceat`` along axis 0."""
    n = int(x.shape[axis])
    head = min(n, (-start) % step)
    whole = (n - head) // step
    end = head + whole * step

    def part(a: int, b: int) -> np.ndarray:
        return x[a:b] if axis == 0 else x[:, a:b]

    parts = []
    if head:
        parts.append(ufunc.reduce(part(0, head), axis=axis, keepdims=True, dtype=dtype))
    if whole:
        mid = part(head, end)
        shape = (whole, step, mid.shape[1]) if axis == 0 else (mid.shape[0], whole, step)
        parts.append(ufunc.reduce(mid.reshape(shape), axis=axis + 1, dtype=dtype))
    if end < n:
        parts.append(ufunc.reduce(part(end, n), axis=axis, keepdims=True, dtype=dtype))
    return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=axis)


def summarise_view(
    view: Value,
    steps: Sequence[int],
    *,
    kind: str | None = None,
    part: str = "magnitude",
    progress: Progress | None = None,
    cancel: CancelFn | None = None,
    chunk: int = CHUNK,
) -> BlockSummary:
    """:class:`BlockSummary` of a 2-D tensor or array ``view`` (any strides, any device, a
    memory map) with blocks of ``steps`` (rows, columns). It is read ``chunk`` elements at a
    time; ``progress(fraction)`` follows, ``cancel() -> True`` raises :class:`Cancelled`."""
    if view.ndim != 2:
        raise ValueError(f"a block summary needs a 2-D plane, not {view.ndim}-D")
    if isinstance(view, torch.Tensor):
        view = view.detach()
    kind = kind or dtype_kind(view.dtype)
    h, w = int(view.shape[0]), int(view.shape[1])
    sr, sc = max(1, int(steps[0])), max(1, int(steps[1]))
    nbr, nbc = -(-h // sr), -(-w // sc)
    # an expanded axis repeats one row (or column): read it once, copy its blocks' figures
    rep_rows, rep_cols = _stride0(view, 0), _stride0(view, 1)
    if rep_rows or rep_cols:
        one = view[: 1 if rep_rows else h, : 1 if rep_cols else w]
        s = summarise_view(one, (1 if rep_rows else sr, 1 if rep_cols else sc), kind=kind,
                           part=part, progress=progress, cancel=cancel, chunk=chunk)
        reps = (nbr if rep_rows else 1, nbc if rep_cols else 1)

        def grow(a: np.ndarray, scale: bool) -> np.ndarray:
            a = np.tile(a, reps)
            if scale:  # each block holds that element once per repeated row / column
                n = np.ones((nbr, nbc), dtype=np.int64)
                if rep_rows:
                    n *= np.minimum(sr, h - np.arange(nbr) * sr)[:, None]
                if rep_cols:
                    n *= np.minimum(sc, w - np.arange(nbc) * sc)[None, :]
                a = a * n
            return a

        return BlockSummary(lo=grow(s.lo, False), hi=grow(s.hi, False), nan=grow(s.nan, True),
                            posinf=grow(s.posinf, True), neginf=grow(s.neginf, True),
                            steps=(sr, sc), size=(h, w))

    lo = np.full((nbr, nbc), np.inf)
    hi = np.full((nbr, nbc), -np.inf)
    nan = np.zeros((nbr, nbc), dtype=np.int64)
    posinf = np.zeros((nbr, nbc), dtype=np.int64)
    neginf = np.zeros((nbr, nbc), dtype=np.int64)
    floating = kind in ("float", "complex", "datetime", "timedelta")
    # tiles: whole blocks across (a multiple of sc columns), as many rows as fit in a chunk,
    # whole blocks down too (a multiple of sr rows): no two tiles touch the same block, so the
    # tiles are summarised on the statistics threads at once (NumPy releases the GIL)
    tile_w = w if w <= chunk else max(sc, (chunk // sc) * sc)
    tile_h = max(sr, (max(1, chunk // tile_w) // sr) * sr)
    total = h * w

    def tile(r0: int, c0: int) -> int:
        r1, c1 = min(h, r0 + tile_h), min(w, c0 + tile_w)
        br = slice(r0 // sr, (r1 - 1) // sr + 1)  # the block rows this tile touches
        x = _read(view, slice(r0, r1), slice(c0, c1), kind, part)
        bc = slice(c0 // sc, -(-c1 // sc))
        x_lo = x_hi = x
        if floating:
            finite = np.isfinite(x)
            if not finite.all():
                # only the rows that hold a non-finite value are masked and counted
                bad = np.flatnonzero(~finite.all(axis=1))
                xb, fb = x[bad], finite[bad]
                x_lo, x_hi = np.array(x), np.array(x)  # plain copies: fast
                x_lo[bad] = np.where(fb, xb, np.inf)
                x_hi[bad] = np.where(fb, xb, -np.inf)
                block_rows = (r0 + bad) // sr - r0 // sr  # of each bad row, in br
                for counts, mask in ((nan, np.isnan(xb)), (posinf, np.isposinf(xb)),
                                     (neginf, np.isneginf(xb))):
                    if mask.any():
                        per = _blocks(np.add, mask, 1, 0, sc, np.int64)
                        tally = np.zeros((br.stop - br.start, per.shape[1]), np.int64)
                        np.add.at(tally, block_rows, per)
                        counts[br, bc] += tally
        # rows first: whole rows combined element by element (fast, contiguous), then the
        # much smaller result across columns
        t_lo = _blocks(np.minimum, _blocks(np.minimum, x_lo, 0, r0, sr), 1, 0, sc)
        t_hi = _blocks(np.maximum, _blocks(np.maximum, x_hi, 0, r0, sr), 1, 0, sc)
        lo[br, bc] = np.minimum(lo[br, bc], t_lo)
        hi[br, bc] = np.maximum(hi[br, bc], t_hi)
        return int(x.size)


    tiles = [(r0, c0) for r0 in range(0, h, tile_h) for c0 in range(0, w, tile_w)]
    pending: deque[Future[int]] = deque()
    done = 0
    pool = stats_pool() if len(tiles) > 1 and stats_workers() > 1 else None
    try:
        for r0, c0 in tiles:
            if cancel is not None and cancel():
                raise Cancelled("preview cancelled")
            if pool is None:
                done += tile(r0, c0)
            else:
                pending.append(pool.submit(tile, r0, c0))
                while len(pending) >= 2 * stats_workers():  # bounded: a few tiles in memory
                    done += pending.popleft().result()
            if progress is not None:
                progress(done / total)
        while pending:
            if cancel is not None and cancel():
                raise Cancelled("preview cancelled")
            done += pending.popleft().result()
            if progress is not None:
                progress(done / total)
    finally:
        for f in pending:
            f.cancel()
        for f in pending:  # a tile still running writes into lo/hi: let it finish first
            if not f.cancelled():
                f.exception()
    empty = lo > hi  # no finite value in the block
    lo[empty] = np.nan
    hi[empty] = np.nan
    return BlockSummary(lo=lo, hi=hi, nan=nan, posinf=posinf, neginf=neginf, steps=(sr, sc),
                        size=(h, w))


def summarise(
    value: Value,
    steps: Sequence[int],
    axes: Sequence[int] | None = None,
    index: dict[int, int] | None = None,
    part: str = "magnitude",
    progress: Progress | None = None,
    cancel: CancelFn | None = None,
    chunk: int = CHUNK,
    region: Sequence[tuple[int, int]] | None = None,
) -> BlockSummary:
    """:class:`BlockSummary` of the plane that :func:`.preview.slice_plane` shows for the same
    ``axes``, ``index`` and ``part``, with blocks of ``steps`` (displayed rows, columns: give
    the preview plane's ``steps`` to summarise each of its cells). ``region``
    (``[(r0, r1), (c0, c1)]`` of the displayed plane) summarises only that part, its blocks
    counted from ``(r0, c0)``: a finer level of the pyramid for the part in view. A transposed
    plane is read in the value's own order (rows of a memory map, not columns) and the result
    transposed."""
    pv = plane_view(value, axes, index, part)
    if len(pv.axes) != 2:
        raise ValueError("a block summary needs a 2-D plane")
    st = (int(steps[0]), int(steps[1]))
    view = pv.view
    if region is not None:  # displayed rows and columns, checked like slice_plane's
        view, _origin = pv.region(region)
    if pv.transposed:
        st = (st[1], st[0])
    s = summarise_view(view, st, kind=pv.kind, part=part, progress=progress, cancel=cancel,
                       chunk=chunk)
    return s.transposed() if pv.transposed else s

