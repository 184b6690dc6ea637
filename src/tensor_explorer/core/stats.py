"""Statistics of a tensor or array in one chunked pass: `stats(value, progress, cancel)`.

The value is walked in logical (C) order, a chunk of about a million elements at a time, so
memory stays flat whatever the size and a memory-mapped file is read once. Each chunk is reduced
with a handful of vectorised torch kernels while it is hot in cache; floats are accumulated in
float64 (so float16 sums cannot overflow), and chunks are merged with Chan's parallel formula so
the standard deviation stays accurate when the mean is large.

min, max, mean and std are those of the *finite* elements; NaN, +Inf and -Inf are counted
separately, and the index of the first non-finite element is reported. Complex values are
summarised by their magnitude. std is the population standard deviation (ddof=0, NumPy's default).
"""

from __future__ import annotations

import math
import threading
import warnings
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch

CHUNK = 1 << 20  # elements per chunk: large enough to amortise dispatch, small enough for cache

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


# ---------------------------------------------------------------------------- chunking


def _chunks(v: Any, chunk: int, start: int = 0) -> Iterator[tuple[int, Any]]:
    """Yield ``(flat_index, 1-D chunk)`` over ``v`` (tensor or array) in C order.

    Contiguous values are sliced without copying; others are cut along leading axes so that only
    one chunk at a time is ever copied.
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
            yield start + r * row, v[r : r + k].reshape(-1)


def _to_torch(chunk: Any) -> torch.Tensor:
    if isinstance(chunk, torch.Tensor):
        return chunk
    a = chunk
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


def _finite_chunk(c: torch.Tensor, acc: _Acc, scratch: torch.Tensor, lo: float, hi: float) -> None:
    """Fold a chunk whose elements are all finite (float32/float64) into ``acc``."""
    n = c.numel()
    d = scratch[:n]
    d.copy_(c)  # float64 copy of the chunk, hot in cache for the next kernels
    s = float(d.sum())
    mean = s / n
    q = float(torch.dot(d, d))
    m2 = q - n * mean * mean
    shifted = not math.isfinite(q) or m2 < 1e-6 * q
    if shifted:  # overflow or cancellation: subtract the mean, then square
        d.sub_(mean)
        m2 = float(torch.dot(d, d))
    zeros = 0
    if lo <= 0.0 <= hi:  # zeros are possible: check the smallest magnitude first (cheap)
        mag = torch.abs(c, out=_buffer(c.dtype, c.device, scratch.numel())[:n])
        if float(mag.amin()) == 0.0:
            zeros = int(torch.count_nonzero(c == 0))
    acc.zeros += zeros
    acc.add(n, mean, max(m2, 0.0), lo, hi)


def _float_chunk(start: int, c: torch.Tensor, acc: _Acc, scratch: torch.Tensor) -> None:
    if c.dtype in (torch.float16, torch.bfloat16):
        c = c.float()
    lo_t, hi_t = torch.aminmax(c)
    lo, hi = float(lo_t), float(hi_t)
    if math.isfinite(lo) and math.isfinite(hi):
        _finite_chunk(c, acc, scratch, lo, hi)
        return
    finite = torch.isfinite(c)
    nan = int(torch.isnan(c).sum())
    pos = int((c == math.inf).sum())
    neg = int((c == -math.inf).sum())
    acc.nan, acc.posinf, acc.neginf = acc.nan + nan, acc.posinf + pos, acc.neginf + neg
    if acc.first_bad is None:
        acc.first_bad = start + int(torch.argmin(finite.to(torch.uint8)))
    good = c[finite]
    if good.numel():
        glo, ghi = torch.aminmax(good)
        _finite_chunk(good, acc, scratch, float(glo), float(ghi))


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
    elif isinstance(value, np.ndarray):
        v = value
        if v.dtype.kind not in "biufc":
            raise TypeError(f"statistics need a numeric array, not dtype {v.dtype}")
        complex_ = v.dtype.kind == "c"
        floating = v.dtype.kind == "f"
    else:
        raise TypeError(
            f"stats() takes a torch.Tensor or numpy.ndarray, not {type(value).__name__}"
        )

    shape = tuple(int(n) for n in v.shape)
    numel = int(np.prod(shape, dtype=np.int64)) if shape else 1
    acc = _Acc()
    scratch: torch.Tensor | None = None
    done = 0
    for start, raw in _chunks(v, chunk):
        if cancel is not None and cancel():
            raise Cancelled("statistics cancelled")
        c = _to_torch(raw)
        if complex_:  # magnitude, computed in double precision
            c = c.to(torch.complex128).abs()
        if floating or complex_:
            if scratch is None:
                scratch = torch.empty(min(chunk, numel), dtype=torch.float64, device=c.device)
            _float_chunk(start, c, acc, scratch)
        else:
            _int_chunk(c, acc)
        done += c.numel()
        if progress is not None:
            progress(done / numel)

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
