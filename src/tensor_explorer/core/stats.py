"""Statistics of a tensor or array in one chunked pass: `stats(value, progress, cancel)`.

The value is walked in logical (C) order, a chunk of about four million elements at a time, so
memory stays flat whatever the size and a memory-mapped file is read once. On the CPU each chunk
is reduced by one fused Numba pass (:mod:`.kernels`): min and max of the finite elements, their
shifted sum and sum of squares accumulated in float64 (so float16 sums cannot overflow), the
zeros, the NaN, +Inf and -Inf counts and the first non-finite index, for every float width,
integers and bool, whatever the data holds. Without Numba, on a GPU, or for values too small to
be worth it, a handful of vectorised torch kernels give the same figures. Chunks are reduced on
several threads and merged in order with Chan's parallel formula, so the standard deviation
stays accurate when the mean is large; a chunk is summed again, shifted by its mean, when its
first sums cancel, and with a power-of-two scale when float64 squares would overflow (values
near 1e308) or underflow (tiny ones).

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
# A contiguous value on the CPU is handed to the threads in spans of up to this many chunks: one
# kernel call reduces a whole span without the GIL (each chunk's figures come back separately).
# Returning to Python for every chunk cost a third of the time on a busy machine: a thread that
# is descheduled while it holds the GIL, or the main thread that is late to hand out the next
# chunk, keeps the other threads waiting.
SPAN = 8

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
    """Running count, mean, M2 (Chan et al.), min, max and counts.

    ``m2`` is kept scaled by ``4**-exp`` (``exp`` is 0 unless values near the float64 limit
    would overflow it): the sum of squared deviations is ``m2 * 4**exp``."""

    def __init__(self) -> None:
        self.n = 0
        self.mean = 0.0
        self.m2 = 0.0
        self.exp = 0
        self.min: float | int | None = None
        self.max: float | int | None = None
        self.zeros = 0
        self.nan = 0
        self.posinf = 0
        self.neginf = 0
        self.first_bad: int | None = None

    def add(
        self, n: int, mean: float, m2: float, exp: int, lo: float | int, hi: float | int
    ) -> None:
        if n == 0:
            return
        if self.n == 0:
            self.n, self.mean, self.m2, self.exp, self.min, self.max = n, mean, m2, exp, lo, hi
            return
        total = self.n + n
        # all zeros so far (or in the new chunk): its unit is any, never the coarser one (the
        # other side's tiny values, summed in a fine unit, would underflow to 0 in it)
        if self.mean == 0.0 and self.m2 == 0.0:
            self.exp = exp
        elif mean == 0.0 and m2 == 0.0:
            exp = self.exp
        e = max(self.exp, exp)
        while True:  # in units of 2**e; a coarser unit when the cross term would overflow
            ds = math.ldexp(mean, -e) - math.ldexp(self.mean, -e)
            merged = (
                math.ldexp(self.m2, 2 * (self.exp - e))
                + math.ldexp(m2, 2 * (exp - e))
                + ds * ds * (self.n * n / total)
            )
            if math.isfinite(merged) or e > 4096:  # (finite inputs end it by e ~ 2200)
                break
            e += 256
        delta = mean - self.mean
        if math.isfinite(delta):
            self.mean += delta * (n / total)  # delta * n could overflow
        else:  # means of opposite signs near the float64 limit
            self.mean = self.mean * (self.n / total) + mean * (n / total)
        self.n, self.m2, self.exp = total, merged, e
        self.min = lo if lo < self.min else self.min  # type: ignore[operator]
        self.max = hi if hi > self.max else self.max  # type: ignore[operator]

    def merge(self, part: _Acc) -> None:
        """Fold in the result of a later chunk (chunks are merged in order)."""
        if part.n:
            assert part.min is not None and part.max is not None
            self.add(part.n, part.mean, part.m2, part.exp, part.min, part.max)
        self.zeros += part.zeros
        self.nan += part.nan
        self.posinf += part.posinf
        self.neginf += part.neginf
        if self.first_bad is None:
            self.first_bad = part.first_bad

    def std(self) -> float:
        return math.ldexp(math.sqrt(self.m2 / self.n), self.exp)


# ---------------------------------------------------------------------------- chunking


def _chunks(v: Any, chunk: int, start: int = 0, spans: int = 0) -> Iterator[tuple[int, Any]]:
    """Yield ``(flat_index, piece)`` over ``v`` (tensor or array) in C order.

    A piece is a 1-D slice of a contiguous value (no copy) or a block of leading-axis rows of
    another; ``piece.reshape(-1)`` (done by the worker that reduces it) copies at most one chunk.
    With ``spans`` (the number of threads), a slice of a contiguous value is up to :data:`SPAN`
    chunks, fewer towards the end (about a ``2 * spans``-th of what is left), so that the
    threads still finish together.
    """
    numel = int(np.prod(v.shape, dtype=np.int64)) if v.ndim else 1
    if numel == 0:
        return
    contiguous = v.is_contiguous() if isinstance(v, torch.Tensor) else v.flags.c_contiguous
    if v.ndim == 0 or contiguous:
        flat = v.reshape(-1)
        i = 0
        while i < numel:
            k = max(1, min(SPAN, -(-(numel - i) // chunk) // (2 * spans))) if spans else 1
            yield start + i, flat[i : i + k * chunk]
            i += k * chunk
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
    if a.strides and (a.strides[0] <= 0 or a.strides[0] % a.itemsize):
        a = np.ascontiguousarray(a)  # torch views neither (a record's field: one chunk's copy)
    with warnings.catch_warnings():
        # read-only memory maps: we only ever read these chunks
        warnings.simplefilter("ignore", UserWarning)
        return torch.from_numpy(a)


# ---------------------------------------------------------------------------- per-chunk kernels


_BUFFERS = threading.local()
# float64 squares underflow below ~1e-154: a chunk whose largest magnitude is below this is summed
# again scaled up by a power of two (its std would otherwise lose digits or read 0)
_TINY = 2.0**-460
# Redo a chunk's sums shifted by its mean when they cancel this much (the shift, its first
# finite element, was far from the mean: an outlier)
_CANCEL = 1e-6

Again = Callable[[float, int], kernels.Moments]  # (shift, exp) -> the chunk's sums again


def _buffer(dtype: torch.dtype, device: torch.device, n: int) -> torch.Tensor:
    """A reusable scratch tensor of at least ``n`` elements (one per thread, dtype, device)."""
    cache: dict[tuple[torch.dtype, torch.device], torch.Tensor] = getattr(_BUFFERS, "cache", {})
    _BUFFERS.cache = cache
    buf = cache.get((dtype, device))
    if buf is None or buf.numel() < n:
        buf = cache[(dtype, device)] = torch.empty(n, dtype=dtype, device=device)
    return buf


def _fused(c: torch.Tensor) -> tuple[kernels.Moments, Again] | None:
    """The fused one-pass reduction of a 1-D chunk and a way to redo its sums, or None (no
    kernel for it: GPU, no Numba, a value too small to be worth importing Numba)."""
    if c.device.type != "cpu" or c.numel() < FUSED_MIN or c.is_complex():
        return None
    c = c.resolve_neg()  # .numpy() refuses lazily negated views
    if not c.is_contiguous():
        c = c.contiguous()  # a 1-D strided piece: one chunk's copy
    bf16 = c.dtype == torch.bfloat16
    try:
        a = (c.view(torch.int16) if bf16 else c).numpy()
    except (TypeError, RuntimeError):  # a dtype NumPy does not have
        return None
    m = kernels.fused_moments(a, bfloat16=bf16)
    if m is None:
        return None

    def again(shift: float, exp: int) -> kernels.Moments:
        m = kernels.fused_moments(a, shift, exp, bfloat16=bf16)
        return m if m is not None else _torch_moments(c, shift, exp)

    return m, again


def _fused_span(c: torch.Tensor, chunk: int) -> list[tuple[kernels.Moments, Again]] | None:
    """:func:`_fused` of each chunk of a contiguous 1-D span, in one kernel call."""
    if c.device.type != "cpu" or c.numel() < FUSED_MIN or c.is_complex() or not c.is_contiguous():
        return None
    c = c.resolve_neg()
    bf16 = c.dtype == torch.bfloat16
    try:
        a = (c.view(torch.int16) if bf16 else c).numpy()
    except (TypeError, RuntimeError):  # a dtype NumPy does not have
        return None
    ms = kernels.fused_chunks(a, chunk, bfloat16=bf16)
    if ms is None:
        return None

    def redo(i: int) -> Again:
        piece, part = a[i * chunk : (i + 1) * chunk], c[i * chunk : (i + 1) * chunk]

        def again(shift: float, exp: int) -> kernels.Moments:
            m = kernels.fused_moments(piece, shift, exp, bfloat16=bf16)
            return m if m is not None else _torch_moments(part, shift, exp)

        return again

    return [(m, redo(i)) for i, m in enumerate(ms)]


def _torch_moments(c: torch.Tensor, shift: float | None = None, exp: int = 0) -> kernels.Moments:
    """What the fused kernel computes, with torch kernels (any device, float dtypes)."""
    if c.dtype in (torch.float16, torch.bfloat16):
        c = c.float()
    lo_t, hi_t = torch.aminmax(c)
    lo, hi = float(lo_t), float(hi_t)
    nan = pos = neg = 0
    first = -1
    good = c
    if not (math.isfinite(lo) and math.isfinite(hi)):  # some NaN or infinity
        finite = torch.isfinite(c)
        nan = int(torch.isnan(c).sum())
        pos = int((c == math.inf).sum())
        neg = int((c == -math.inf).sum())
        first = int(torch.argmin(finite.to(torch.uint8)))
        good = c[finite]
        if good.numel() == 0:
            return kernels.Moments(0.0, 0.0, 0, None, None, 0.0, exp, 0, nan, pos, neg, first)
        lo_t, hi_t = torch.aminmax(good)
        lo, hi = float(lo_t), float(hi_t)
    n = good.numel()
    if shift is None:
        shift = float(good[0])
    scale = math.ldexp(1.0, -exp)
    d = _buffer(torch.float64, c.device, n)[:n]
    d.copy_(good)  # float64 copy of the chunk, hot in cache for the next kernels
    if exp:
        d.mul_(scale)
    d.sub_(shift * scale)
    s1 = float(d.sum())
    s2 = float(torch.dot(d, d))
    zeros = 0
    if lo <= 0.0 <= hi:  # zeros are possible: check the smallest magnitude first (cheap)
        mag = torch.abs(good, out=_buffer(good.dtype, good.device, n)[:n])
        if float(mag.amin()) == 0.0:
            zeros = int(torch.count_nonzero(good == 0))
    return kernels.Moments(s1, s2, zeros, lo, hi, shift, exp, n, nan, pos, neg, first)


def _int_moments(a: np.ndarray, shift: float | None = None, exp: int = 0) -> kernels.Moments:
    """What the fused kernel computes, with NumPy, for integer (and bool) data."""
    if a.dtype == np.bool_:
        a = a.view(np.uint8)
    n = a.size
    lo, hi = a.min().item(), a.max().item()
    if shift is None:
        shift = float(a[0])
    f = a.astype(np.float64)
    f -= shift
    zeros = n - int(np.count_nonzero(a))
    return kernels.Moments(
        float(f.sum()), float(np.dot(f, f)), zeros, lo, hi, shift, 0, n, 0, 0, 0, -1
    )


def _centred(m: kernels.Moments) -> tuple[float, float]:
    """The mean and the scaled sum of squared deviations of a chunk's finite elements."""
    n = m.finite
    assert m.lo is not None and m.hi is not None
    mean = m.shift + math.ldexp(m.s1 / n, m.exp)
    mean = float(min(max(mean, m.lo), m.hi))  # rounding never takes it out of the range
    return mean, m.s2 - (m.s1 / n) * m.s1  # s1 * s1 could overflow where s2 does not


def _fold(start: int, m: kernels.Moments, again: Again, acc: _Acc) -> None:
    """Fold one chunk's reduction into ``acc``; redo its sums when they are not accurate."""
    acc.nan, acc.posinf, acc.neginf = acc.nan + m.nan, acc.posinf + m.posinf, acc.neginf + m.neginf
    if m.first >= 0 and acc.first_bad is None:
        acc.first_bad = start + m.first
    acc.zeros += m.zeros
    if m.finite == 0:
        return
    lo, hi = m.lo, m.hi
    assert lo is not None and hi is not None
    big = max(abs(lo), abs(hi))
    if not (math.isfinite(m.s1) and math.isfinite(m.s2)) or (
        isinstance(big, float) and 0.0 < big < _TINY
    ):
        # float64 squares overflow (values near 1e308) or underflow: sum again in units of a
        # power of two near the largest magnitude, shifted by the midpoint of the range
        exp = max(math.frexp(big)[1], -960)
        m = again(lo / 2 + hi / 2, exp)
    mean, m2 = _centred(m)
    if m2 < _CANCEL * m.s2:  # the shift was far from the mean: again, shifted by the mean
        m = again(mean, m.exp)
        mean, m2 = _centred(m)
    acc.add(m.finite, mean, max(m2, 0.0), m.exp, lo, hi)


def _int_array(c: torch.Tensor) -> np.ndarray:
    return c.cpu().numpy()


def _reduce_span(start: int, piece: Any, complex_: bool, floating: bool, chunk: int) -> _Acc:
    """The statistics of a piece of one or more chunks (runs on a worker thread)."""
    n = int(np.prod(piece.shape, dtype=np.int64)) if piece.ndim else 1
    if n <= chunk:
        return _reduce(start, piece, complex_, floating)
    part = _Acc()
    fused = None if complex_ else _fused_span(_to_torch(piece), chunk)
    if fused is not None:
        for i, (m, again) in enumerate(fused):
            _fold(start + i * chunk, m, again, part)
        return part
    for i in range(0, n, chunk):
        part.merge(_reduce(start + i, piece[i : i + chunk], complex_, floating))
    return part


def _extended(piece: Any) -> bool:
    """Whether ``piece`` is a NumPy long double (or complex long double), which torch lacks."""
    return (isinstance(piece, np.ndarray) and piece.dtype.kind in "fc"
            and piece.dtype.itemsize > (8 if piece.dtype.kind == "f" else 16))  # fmt: skip


def _reduce_extended(start: int, piece: np.ndarray) -> _Acc:
    """One chunk of a long double array, in its own precision with NumPy (torch has no such
    type). The figures come back as float64, like every other: a value beyond float64's range
    reads as an infinite min, max or mean."""
    part = _Acc()
    x = piece.reshape(-1)
    if x.dtype.kind == "c":
        x = np.abs(x)  # the magnitude, in long double
    ok = np.isfinite(x)
    bad = np.flatnonzero(~ok)
    if bad.size:
        part.first_bad = start + int(bad[0])
        nan = np.isnan(x)
        part.nan = int(nan.sum())
        part.posinf = int((x == np.inf).sum())
        part.neginf = int((x == -np.inf).sum())
    part.zeros = int((x == 0).sum())
    f = x[ok] if bad.size else x
    if f.size:
        mean = f.mean(dtype=x.dtype)
        d = f - mean
        m2 = np.dot(d, d)
        exp = 0
        if not math.isfinite(float(m2)):  # beyond float64: kept in units of 4**exp
            exp = int(np.frexp(np.sqrt(m2))[1])
            m2 = m2 / np.ldexp(x.dtype.type(1), 2 * exp)
        with np.errstate(over="ignore"):
            part.add(int(f.size), float(mean), float(m2), exp, float(f.min()), float(f.max()))
    return part


def _reduce(start: int, piece: Any, complex_: bool, floating: bool) -> _Acc:
    """The statistics of one chunk (runs on a worker thread)."""
    if _extended(piece):
        return _reduce_extended(start, piece)
    part = _Acc()
    c = _to_torch(piece)
    if complex_:  # magnitude, computed in double precision
        c = c.to(torch.complex128).abs()
    fused = _fused(c)
    if fused is not None:
        m, again = fused
    elif floating or complex_:
        m = _torch_moments(c)

        def again(shift: float, exp: int) -> kernels.Moments:
            return _torch_moments(c, shift, exp)

    else:
        a = _int_array(c)
        m = _int_moments(a)

        def again(shift: float, exp: int) -> kernels.Moments:
            return _int_moments(a, shift, exp)

    _fold(start, m, again, part)
    return part


# ---------------------------------------------------------------------------- threads

_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def stats_workers() -> int:
    """How many threads the statistics (and the block summaries) run on."""
    return max(1, min(os.cpu_count() or 1, torch.get_num_threads(), 8))


def stats_pool() -> ThreadPoolExecutor:
    """The one thread pool the statistics and block summaries share (made on first use)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(stats_workers(), thread_name_prefix="tx-stats")
        return _POOL


def stats(
    value: torch.Tensor | np.ndarray,
    progress: Progress | None = None,
    cancel: Cancel | None = None,
    *,
    chunk: int = CHUNK,
) -> Stats:
    """Summary statistics of ``value`` in one chunked pass (see the module docstring).

    ``progress(fraction)`` is called after each chunk (or span of chunks, see :data:`SPAN`);
    when ``cancel()`` returns True the pass stops and :class:`Cancelled` is raised. Meta tensors
    (no data) raise ``ValueError``.
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

    workers = stats_workers() if on_cpu and numel > chunk else 1
    if workers == 1:
        for start, piece in _chunks(v, chunk):
            if cancel is not None and cancel():
                raise Cancelled("statistics cancelled")
            fold(_reduce(start, piece, complex_, floating))
    else:
        pool = stats_pool()
        pending: deque[Future[_Acc]] = deque()
        # spans of chunks where the fused kernel reduces every chunk (not where a piece is
        # copied first: byte-swapped arrays, complex values)
        plain = chunk >= FUSED_MIN and not complex_
        plain = plain and (isinstance(v, torch.Tensor) or (v.dtype.isnative and not _extended(v)))
        try:
            for start, piece in _chunks(v, chunk, spans=workers if plain else 0):
                if cancel is not None and cancel():
                    raise Cancelled("statistics cancelled")
                task = (start, piece, complex_, floating, chunk)
                pending.append(pool.submit(_reduce_span, *task))
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
        std=acc.std() if has else None,
        nan=acc.nan,
        posinf=acc.posinf,
        neginf=acc.neginf,
        zeros=acc.zeros,
        first_nonfinite=first,
        of="magnitude" if complex_ else "values",
    )
