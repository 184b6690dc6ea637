"""Statistics of a tensor or array in one chunked pass: `stats(value, progress, cancel)`.

The value is walked in logical (C) order, a chunk of about a million elements at a time, so
memory stays flat whatever the size and a memory-mapped file is read once. Each chunk is reduced
while it is hot in cache by two kernels: ``torch.aminmax`` (which also tells whether the chunk
holds any NaN or infinity) and a fused Numba loop (:mod:`.kernels`) for the shifted sum, sum of
squares and zero count, accumulated in float64 (so float16 sums cannot overflow). Without Numba,
or on a GPU, a handful of vectorised torch kernels do the same. Chunks are reduced on several
threads and merged in order with Chan's parallel formula, so the standard deviation stays
accurate when the mean is large.

min, max, mean and std are those of the *finite* elements; NaN, +Inf and -Inf are counted
separately, and the index of the first non-finite element is reported. Complex values are
summarised by their magnitude. std is the population standard deviation (ddof=0, NumPy's default).
"""

from __future__ import annotations

import math
import os
import threading
import warnings
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch

from . import kernels

CHUNK = 1 << 22  # elements per chunk: amortises dispatch and threads; a few in flight at once
# Values smaller than this use the torch kernels: they are fast enough (~1 ms), and the values
# the window reduces on its UI thread (the Inspector's SYNC_STATS_LIMIT) then never import Numba,
# which costs ~0.3 s; bigger ones are reduced in the background.
FUSED_MIN = 1 << 18

Progress = Callable[[float], None]
Cancel = Callable[[], bool]


class Cancelled(Exception):
    """Raised by :func:`stats` when its ``cancel()`` callback returned True."""


@dataclass(frozen=True)
class Stats:
    """Summary statistics. ``to_dict()`` is JSON-safe."""

    count: int  # number of elements
    finite: int  # number of finite elements (min/max/mean/std are theirs)
    min: float | int | None
    max: float | int | None
    mean: float | None
    std: float | None
    nan: int
    posinf: int
    neginf: int
    zeros: int
    first_nonfinite: tuple[int, ...] | None
    of: str = "values"  # "values" | "magnitude" (complex)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        if d["first_nonfinite"] is not None:
            d["first_nonfinite"] = list(d["first_nonfinite"])
        return d


class _Acc:
    """Running count, mean, M2 (Chan et al.), min, max and counts."""

    def __init__(self) -> None:
        self.n = 0
        self.mean = 0.0
        self.m2 = 0.0
        self.min: float | int | None = None
        self.max: float | int | None = None
        self.zeros = 0
        self.nan = 0
        self.posinf = 0
        self.neginf = 0
        self.first_bad: int | None = None

    def add(self, n: int, mean: float, m2: float, lo: float | int, hi: float | int) -> None:
        if n == 0:
            return
        if self.n == 0:
            self.n, self.mean, self.m2, self.min, self.max = n, mean, m2, lo, hi
            return
        total = self.n + n
        delta = mean - self.mean
        self.mean += delta * n / total
        self.m2 += m2 + delta * delta * self.n * n / total
        self.n = total
        self.min = lo if lo < self.min else self.min  # type: ignore[operator]
        self.max = hi if hi > self.max else self.max  # type: ignore[operator]

    def merge(self, part: _Acc) -> None:
        """Fold in the result of a later chunk (chunks are merged in order)."""
        if part.n:
            assert part.min is not None and part.max is not None
            self.add(part.n, part.mean, part.m2, part.min, part.max)
        self.zeros += part.zeros
        self.nan += part.nan
        self.posinf += part.posinf
        self.neginf += part.neginf
        if self.first_bad is None:
            self.first_bad = part.first_bad


# ---------------------------------------------------------------------------- chunking


def _chunks(v: Any, chunk: int, start: int = 0) -> Iterator[tuple[int, Any]]:
    """Yield ``(flat_index, piece)`` over ``v`` (tensor or array) in C order.

    A piece is a 1-D slice of a contiguous value (no copy) or a block of leading-axis rows of
    another; ``piece.reshape(-1)`` (done by the worker that reduces it) copies at most one chunk.
    """
    numel = int(np.prod(v.shape, dtype=np.int64)) if v.ndim else 1
    if numel == 0:
        return
    contiguous = v.is_contiguous() if isinstance(v, torch.Tensor) else v.flags.c_contiguous
    if v.ndim == 0 or contiguous:
        flat = v.reshape(-1)
        for i in range(0, numel, chunk):
            yield start + i, flat[i : i + chunk]
        return
    rows = v.shape[0]
    row = numel // rows
    if row >= chunk:
        for r in range(rows):
            yield from _chunks(v[r], chunk, start + r * row)
    else:
        k = max(1, chunk // row)
        for r in range(0, rows, k):
            yield start + r * row, v[r : r + k]


def _to_torch(chunk: Any) -> torch.Tensor:
    if isinstance(chunk, torch.Tensor):
        return chunk.reshape(-1)
    a = chunk.reshape(-1)
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    if a.strides and a.strides[0] <= 0:
        a = np.ascontiguousarray(a)
    with warnings.catch_warnings():
        # read-only memory maps: we only ever read these chunks
        warnings.simplefilter("ignore", UserWarning)
        return torch.from_numpy(a)


# ---------------------------------------------------------------------------- per-chunk kernels


_BUFFERS = threading.local()


def _buffer(dtype: torch.dtype, device: torch.device, n: int) -> torch.Tensor:
    """A reusable scratch tensor of at least ``n`` elements (one per thread, dtype, device)."""
    cache: dict[tuple[torch.dtype, torch.device], torch.Tensor] = getattr(_BUFFERS, "cache", {})
    _BUFFERS.cache = cache
    buf = cache.get((dtype, device))
    if buf is None or buf.numel() < n:
        buf = cache[(dtype, device)] = torch.empty(n, dtype=dtype, device=device)
    return buf


def _fused(c: torch.Tensor, shift: float | None = None) -> kernels.Moments | None:
    """The fused one-pass reduction of a 1-D chunk, or None (no kernel for it: GPU, no Numba)."""
    if c.device.type != "cpu" or c.dtype not in (torch.float32, torch.float64):
        return None
    if c.numel() < FUSED_MIN and shift is None:
        return None
    return kernels.fused_moments(c.resolve_neg().numpy(), shift)  # .numpy() refuses neg views


def _centred(m: kernels.Moments, n: int) -> tuple[float, float]:
    """The mean and the sum of squared deviations of ``n`` elements from their shifted sums."""
    return m.shift + m.s1 / n, m.s2 - m.s1 * m.s1 / n


def _finite_part(c: torch.Tensor, acc: _Acc) -> bool:
    """Fold a float32/float64 chunk into ``acc`` if all its elements are finite; else change
    nothing and return False."""
    n = c.numel()
    m = _fused(c)
    if m is not None:
        if not (math.isfinite(m.lo) and math.isfinite(m.hi)):
            return False
        mean, m2 = _centred(m, n)
        if not math.isfinite(m.s2) or m2 < 1e-6 * m.s2:
            # the shift was far from the mean (cancellation) or the squares overflowed:
            # again, shifted by the mean this time
            m = _fused(c, mean)
            assert m is not None
            mean, m2 = _centred(m, n)
        acc.zeros += m.zeros
        acc.add(n, mean, max(m2, 0.0), m.lo, m.hi)
        return True
    lo_t, hi_t = torch.aminmax(c)
    lo, hi = float(lo_t), float(hi_t)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return False
    d = _buffer(torch.float64, c.device, n)[:n]
    d.copy_(c)  # float64 copy of the chunk, hot in cache for the next kernels
    mean = float(d.sum()) / n
    q = float(torch.dot(d, d))
    m2 = q - n * mean * mean
    if not math.isfinite(q) or m2 < 1e-6 * q:  # overflow or cancellation: subtract the mean
        d.sub_(mean)
        m2 = float(torch.dot(d, d))
    zeros = 0
    if lo <= 0.0 <= hi:  # zeros are possible: check the smallest magnitude first (cheap)
        mag = torch.abs(c, out=_buffer(c.dtype, c.device, n)[:n])
        if float(mag.amin()) == 0.0:
            zeros = int(torch.count_nonzero(c == 0))
    acc.zeros += zeros
    acc.add(n, mean, max(m2, 0.0), lo, hi)
    return True


def _float_chunk(start: int, c: torch.Tensor, acc: _Acc) -> None:
    if c.dtype in (torch.float16, torch.bfloat16):
        c = c.float()
    if _finite_part(c, acc):
        return
    # some NaN or infinity (rare): count them, then reduce the finite elements
    finite = torch.isfinite(c)
    nan = int(torch.isnan(c).sum())
    pos = int((c == math.inf).sum())
    neg = int((c == -math.inf).sum())
    acc.nan, acc.posinf, acc.neginf = acc.nan + nan, acc.posinf + pos, acc.neginf + neg
    if acc.first_bad is None:
        acc.first_bad = start + int(torch.argmin(finite.to(torch.uint8)))
    good = c[finite]
    if good.numel():
        _finite_part(good, acc)


def _int_chunk(c: torch.Tensor, acc: _Acc) -> None:
    a = c.cpu().numpy()
    if a.dtype == np.bool_:
        a = a.view(np.uint8)
    n = a.size
    lo, hi = a.min().item(), a.max().item()
    f = a.astype(np.float64)
    mean = float(f.sum()) / n
    f -= mean
    m2 = float(np.dot(f, f))
    acc.zeros += n - int(np.count_nonzero(a))
    acc.add(n, mean, m2, lo, hi)


def _reduce(start: int, piece: Any, complex_: bool, floating: bool) -> _Acc:
    """The statistics of one chunk (runs on a worker thread)."""
    part = _Acc()
    c = _to_torch(piece)
    if complex_:  # magnitude, computed in double precision
        c = c.to(torch.complex128).abs()
    if floating or complex_:
        _float_chunk(start, c, part)
    else:
        _int_chunk(c, part)
    return part


# ---------------------------------------------------------------------------- threads

_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _workers() -> int:
    return max(1, min(os.cpu_count() or 1, torch.get_num_threads(), 8))


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(_workers(), thread_name_prefix="tx-stats")
        return _POOL


def stats(
    value: torch.Tensor | np.ndarray,
    progress: Progress | None = None,
    cancel: Cancel | None = None,
    *,
    chunk: int = CHUNK,
) -> Stats:
    """Summary statistics of ``value`` in one chunked pass (see the module docstring).

    ``progress(fraction)`` is called after each chunk; when ``cancel()`` returns True the pass
    stops and :class:`Cancelled` is raised. Meta tensors (no data) raise ``ValueError``.
    """
    if isinstance(value, np.generic):
        value = np.asarray(value)
    if isinstance(value, torch.Tensor):
        if value.device.type == "meta":
            raise ValueError("a tensor on the meta device has a shape but no values")
        if value.layout != torch.strided:
            value = value.to_dense()
        v: Any = value.detach()
        complex_ = v.is_complex()
        floating = v.is_floating_point()
        on_cpu = v.device.type == "cpu"
    elif isinstance(value, np.ndarray):
        v = value
        if v.dtype.kind not in "biufc":
            raise TypeError(f"statistics need a numeric array, not dtype {v.dtype}")
        complex_ = v.dtype.kind == "c"
        floating = v.dtype.kind == "f"
        on_cpu = True
    else:
        raise TypeError(
            f"stats() takes a torch.Tensor or numpy.ndarray, not {type(value).__name__}"
        )

    shape = tuple(int(n) for n in v.shape)
    numel = int(np.prod(shape, dtype=np.int64)) if shape else 1
    acc = _Acc()
    done = 0

    def fold(part: _Acc) -> None:
        nonlocal done
        acc.merge(part)
        done += part.n + part.nan + part.posinf + part.neginf
        if progress is not None:
            progress(done / numel)

    workers = _workers() if on_cpu and numel > chunk else 1
    if workers == 1:
        for start, piece in _chunks(v, chunk):
            if cancel is not None and cancel():
                raise Cancelled("statistics cancelled")
            fold(_reduce(start, piece, complex_, floating))
    else:
        pool = _pool()
        pending: deque[Future[_Acc]] = deque()
        try:
            for start, piece in _chunks(v, chunk):
                if cancel is not None and cancel():
                    raise Cancelled("statistics cancelled")
                pending.append(pool.submit(_reduce, start, piece, complex_, floating))
                while len(pending) >= 2 * workers:  # bounded: memory stays flat
                    fold(pending.popleft().result())
            while pending:
                if cancel is not None and cancel():
                    raise Cancelled("statistics cancelled")
                fold(pending.popleft().result())
        finally:
            for f in pending:
                f.cancel()

    first = None
    if acc.first_bad is not None:
        first = tuple(int(i) for i in np.unravel_index(acc.first_bad, shape)) if shape else ()
    has = acc.n > 0
    return Stats(
        count=numel if numel else 0,
        finite=acc.n,
        min=acc.min if has else None,
        max=acc.max if has else None,
        mean=acc.mean if has else None,
        std=math.sqrt(acc.m2 / acc.n) if has else None,
        nan=acc.nan,
        posinf=acc.posinf,
        neginf=acc.neginf,
        zeros=acc.zeros,
        first_nonfinite=first,
        of="magnitude" if complex_ else "values",
    )
