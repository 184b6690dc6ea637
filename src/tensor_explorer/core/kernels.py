"""Fused reduction kernels (Numba), loaded on first use.

Statistics need, per chunk, the minimum and maximum of the finite elements, their sum and sum of
squares accumulated in float64, the number of zeros, the numbers of NaN, +Inf and -Inf, and the
index of the first non-finite element. One compiled pass over the chunk gives all of them, for
float16, bfloat16, float32, float64, every integer type and bool; NaN and infinities never take
a slower path. Numba compiles the plain Python loops below once per dtype to vectorised machine
code, caches them on disk and runs them without the GIL, so chunks are reduced on several threads.

How the float pass stays at memory speed:

* Each chunk is walked in blocks of 4 KiB. A light loop streams the block in from memory: it
  counts zeros and takes the signed min and max and the unsigned max of the float's bits (three
  integer min/max, which vectorise, where a float min/max that must keep NaN semantics does not).
  Positive floats sort like their signed bits and negative ones like their unsigned bits, so
  these give the block's min and max, as integer keys that sort like the floats
  (``b ^ ((b >> 31) & 0x7fffffff)`` for float32); NaNs sort beyond the infinities, so the block
  holds a NaN or an infinity exactly when smax reaches +Inf's bits or umax -Inf's. This loop
  streams every block in, even right after a dirty block (a heavier loop streams slower).
* The block is now in L1 cache. A clean block (the usual case) gets the float64 shifted sums in a
  second tight loop; a block holding a NaN or an infinity gets a loop that counts the non-finite
  values, +Inf and -Inf (one compare gives the count and the mask), and takes the min/max of the
  finite elements (branch-free selects), and a masked sum loop that adds 0 for non-finite
  elements. The first non-finite index is looked up in the first dirty block only. Every loop
  is branch-free and vectorised; a loop that does everything at once streams from memory at a
  fraction of the speed (too many instructions per load for the prefetchers), which is why the
  work is split this way.
* float16 and bfloat16 are read as 16-bit integers and converted in the sum loops
  (``(h & 0x7fff) << 13`` viewed as float32 and scaled by 2**112 is the float16 magnitude,
  subnormals included; bfloat16 is ``h << 16`` viewed as float32).

Sums are of ``d = x * 2**-exp - shift * 2**-exp`` (exp is 0 unless the caller rescales: float64
values near 1e308 whose sums overflow, or tiny ones whose squares underflow).

Numba is imported lazily (it costs ~0.3 s, which start-up must not pay). When it is missing or
fails to compile, :func:`fused_moments` returns ``None`` and callers use their torch fallback.
"""

from __future__ import annotations

import math
import threading
from typing import Any, NamedTuple, no_type_check

import numpy as np

_LOCK = threading.Lock()
# dtype of the array handed to the kernel ("bfloat16": bfloat16 bits) -> (compiled kernel,)
_KERNELS: dict[Any, tuple[Any, ...]] | None = None
_STATE = "unloaded"  # "unloaded" | "ready" | "unavailable"

BLOCK_BYTES = 4096  # one block: streamed in by the first loop, then re-read from L1 cache


class Moments(NamedTuple):
    """One chunk's reduction.

    ``s1 = Σd`` and ``s2 = Σd²`` (float64) over the finite elements, where
    ``d = (x - shift) * 2**-exp``; ``finite`` elements, ``lo``/``hi`` their min and max (Python
    ints for integer data; ``None`` when no element is finite); ``zeros`` (-0.0 included); the
    counts of NaN, +Inf and -Inf and ``first``, the index of the first non-finite element
    (-1 when there is none)."""

    s1: float
    s2: float
    zeros: int
    lo: float | int | None
    hi: float | int | None
    shift: float
    exp: int
    finite: int
    nan: int
    posinf: int
    neginf: int
    first: int


@no_type_check  # compiled by Numba, which types it
def _float_kernel(
    vals: Any,
    bits: Any,
    ubits: Any,
    shs: float,
    scale: float,
    ABS: Any,
    INF: Any,
    NINF: Any,
    kind: int,
    block: int,
) -> tuple[float, float, int, Any, Any, int, int, int, int]:
    """The pass for float data. Compiled by Numba.

    ``bits`` is the data as signed integers of its width, ``ubits`` as unsigned ones (only its
    type is used); ``ABS`` clears the sign bit, ``INF`` is +Inf's pattern, ``NINF`` -Inf's;
    ``vals`` is the data as floats (``kind`` 0: float32/float64) or again the bits (``kind`` 1:
    float16, 2: bfloat16). Returns s1, s2, zeros, the min and max keys of the finite elements
    (``b ^ ((b >> w) & ABS)``, which sorts like the floats), the counts of non-finite elements,
    +Inf and -Inf, and the first non-finite index (-1: none)."""
    T = bits.dtype.type
    U = ubits.dtype.type
    I32 = np.int32
    n = bits.size
    TMIN = T(~ABS)  # the smallest signed value (-0.0's pattern)
    FMAX = T(INF - 1)  # the largest finite magnitude's pattern
    USIGN = U(U(ABS) + U(1))  # the sign bit, unsigned
    UNINF = U(NINF)  # -Inf's pattern, unsigned: negative NaNs are above it
    F16 = np.float32(5.192296858534828e33)  # 2**112: float16 exponent bias into float32's
    s1 = 0.0
    s2 = 0.0
    lo = ABS
    hi = TMIN
    zeros = 0
    bad = 0
    pinf = 0
    ninf = 0
    first = -1
    for start in range(0, n, block):
        bb = bits[start : start + block]
        vv = vals[start : start + block]
        m = bb.size
        # 1. stream the block in with a light loop (even after a dirty block: a heavier one
        # streams from memory slower): zeros, signed min and max, unsigned max of the bits.
        # Positive floats sort like their signed bits, negative ones like their unsigned bits;
        # a NaN or infinity shows as smax >= INF or umax >= -Inf's pattern.
        bz = I32(0)
        smin = ABS
        smax = TMIN
        umax = U(0)
        for i in range(m):
            b = bb[i]
            bz = I32(bz + I32(T(b & ABS) == 0))
            smin = min(smin, b)
            smax = max(smax, b)
            umax = max(umax, U(b))
        if smax < INF and umax < UNINF:
            # 2a. all finite (the usual case): float64 sums, from L1 cache
            zeros += bz
            klo = T(T(umax) ^ ABS) if umax >= USIGN else smin
            khi = smax if smax >= 0 else T(smin ^ ABS)
            lo = min(lo, klo)
            hi = max(hi, khi)
            t1 = 0.0
            t2 = 0.0
            if kind == 1:
                for i in range(m):
                    h = I32(bb[i])
                    f = I32(I32(I32(h & 0x8000) << 16) | I32(I32(h & 0x7FFF) << 13))
                    d = np.float64(np.int32(f).view(np.float32) * F16) * scale - shs
                    t1 += d
                    t2 += d * d
            elif kind == 2:
                for i in range(m):
                    d = np.float64(np.int32(I32(bb[i]) << 16).view(np.float32)) * scale - shs
                    t1 += d
                    t2 += d * d
            else:
                for i in range(m):
                    d = np.float64(vv[i]) * scale - shs
                    t1 += d
                    t2 += d * d
            s1 += t1
            s2 += t2
            continue
        # 2b. some NaN or infinity: zeros, non-finite counts, min/max of the finite elements
        bz = I32(0)
        bn = I32(0)
        bp = I32(0)
        bm = I32(0)
        smin = ABS
        smax = TMIN
        umax = U(0)
        for i in range(m):
            b = bb[i]
            ab = T(b & ABS)
            nf = ab > FMAX  # one compare gives the count and the mask
            bz = I32(bz + I32(ab == 0))
            bn = I32(bn + I32(nf))
            bp = I32(bp + I32(b == INF))
            bm = I32(bm + I32(b == NINF))
            smin = min(smin, ABS if nf else b)
            smax = max(smax, TMIN if nf else b)
            umax = max(umax, U(0) if nf else U(b))
        zeros += bz
        bad += bn
        pinf += bp
        ninf += bm
        if bn == m:
            if first < 0:
                first = start
            continue
        klo = T(T(umax) ^ ABS) if umax >= USIGN else smin
        khi = smax if smax >= 0 else T(smin ^ ABS)
        lo = min(lo, klo)
        hi = max(hi, khi)
        # the sums over the finite elements (a non-finite one adds 0), from L1 cache
        t1 = 0.0
        t2 = 0.0
        if kind == 1:
            for i in range(m):
                h = I32(bb[i])
                f = I32(I32(I32(h & 0x8000) << 16) | I32(I32(h & 0x7FFF) << 13))
                x = np.float64(np.int32(f).view(np.float32) * F16)
                d = (x * scale - shs) if I32(h & 0x7FFF) < 0x7C00 else 0.0
                t1 += d
                t2 += d * d
        elif kind == 2:
            for i in range(m):
                x = np.float64(np.int32(I32(bb[i]) << 16).view(np.float32))
                d = (x * scale - shs) if np.abs(x) < np.inf else 0.0
                t1 += d
                t2 += d * d
        else:
            for i in range(m):
                x = np.float64(vv[i])
                d = (x * scale - shs) if np.abs(x) < np.inf else 0.0
                t1 += d
                t2 += d * d
        s1 += t1
        s2 += t2
        if first < 0 and bn > 0:
            for i in range(m):
                if T(bb[i] & ABS) >= INF:
                    first = start + i
                    break
    return s1, s2, zeros, lo, hi, bad, pinf, ninf, first


@no_type_check
def _int_kernel(vals: Any, shift: float, block: int) -> tuple[float, float, int, Any, Any]:
    """The pass for integer data (bool as uint8): s1, s2, zeros, min, max. Compiled by Numba."""
    I32 = np.int32
    n = vals.size
    s1 = 0.0
    s2 = 0.0
    lo = vals[0]
    hi = vals[0]
    zeros = 0
    for start in range(0, n, block):
        vv = vals[start : start + block]
        m = vv.size
        bz = I32(0)
        blo = vv[0]
        bhi = vv[0]
        for i in range(m):
            x = vv[i]
            bz = I32(bz + I32(x == 0))
            blo = min(blo, x)
            bhi = max(bhi, x)
        zeros += bz
        lo = min(lo, blo)
        hi = max(hi, bhi)
        t1 = 0.0
        t2 = 0.0
        for i in range(m):
            d = np.float64(vv[i]) - shift
            t1 += d
            t2 += d * d
        s1 += t1
        s2 += t2
    return s1, s2, zeros, lo, hi


# float layouts: bits dtype, ABS, INF, NINF (as signed ints of the width), kind, float dtype
_FLOATS: dict[Any, tuple[type, int, int, int, int, Any]] = {
    np.dtype(np.float16): (np.int16, 0x7FFF, 0x7C00, -0x0400, 1, np.float16),
    "bfloat16": (np.int16, 0x7FFF, 0x7F80, -0x0080, 2, np.float32),
    np.dtype(np.float32): (np.int32, 0x7FFFFFFF, 0x7F800000, -0x00800000, 0, np.float32),
    np.dtype(np.float64): (
        np.int64, 0x7FFFFFFFFFFFFFFF, 0x7FF0000000000000, -0x0010000000000000, 0, np.float64
    ),
}  # fmt: skip
_INTS = [np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                               np.uint32, np.uint64)]  # fmt: skip


def _compile() -> dict[Any, tuple[Any, ...]] | None:
    try:
        import numba
    except Exception:  # not installed, or broken: use the fallback
        return None
    # Reassociation lets LLVM vectorise the sums; no "nnan"/"ninf": NaN and Inf must be seen.
    # Without a writable folder for the on-disk cache (read-only install, no writable home)
    # Numba refuses cache=True right here: then compile at each start instead. Each dtype is
    # compiled on its first use (then loaded from the cache).
    for cache in (True, False):
        jit = numba.njit(
            nogil=True,
            fastmath={"reassoc", "nsz", "arcp", "contract"},
            cache=cache,
            boundscheck=False,
            error_model="numpy",
        )
        try:
            fk, ik = jit(_float_kernel), jit(_int_kernel)
        except Exception:  # no cache locator (or a broken Numba): try without, else fall back
            continue
        table: dict[Any, tuple[Any, ...]] = {key: (fk,) for key in _FLOATS}
        table.update({dt: (ik,) for dt in _INTS})
        return table
    return None


def _kernels() -> dict[Any, tuple[Any, ...]] | None:
    global _KERNELS, _STATE
    if _STATE == "unloaded":
        with _LOCK:
            if _STATE == "unloaded":
                _KERNELS = _compile()
                _STATE = "ready" if _KERNELS is not None else "unavailable"
    return _KERNELS


def available() -> bool:
    """Whether the compiled kernels can be used (imports Numba on first call)."""
    return _kernels() is not None


def _first_finite(head: np.ndarray) -> float:
    """The first finite value of ``head`` (float64), or 0.0."""
    with np.errstate(all="ignore"):
        fin = head[np.isfinite(head)]
    return float(fin[0]) if fin.size else 0.0


def _bf16_to_f32(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.int32) << 16).view(np.float32)


def fused_moments(
    a: np.ndarray, shift: float | None = None, exp: int = 0, *, bfloat16: bool = False
) -> Moments | None:
    """The one-pass reduction (see :class:`Moments`) of a 1-D contiguous array, or ``None``
    when no kernel is available for it. Supported: float16/32/64, integers, bool, and bfloat16
    given as its 16-bit patterns (int16 or uint16) with ``bfloat16=True``.

    ``shift`` defaults to the first finite element among the first few (any value inside the
    data's range keeps the sum of squares accurate); ``exp`` scales the sums by ``2**-exp``
    (float data only)."""
    kernels = _kernels()
    if kernels is None or a.ndim != 1 or a.size == 0 or not a.flags.c_contiguous:
        return None
    if not a.dtype.isnative:
        return None
    if a.dtype == np.bool_:
        a = a.view(np.uint8)
    key: Any = "bfloat16" if bfloat16 and a.dtype.itemsize == 2 else a.dtype
    entry = kernels.get(key)
    if entry is None:
        return None
    fn = entry[0]
    if key not in _FLOATS:  # integers: exact min/max, float64 sums
        if shift is None:
            shift = float(a[0])
        block = max(BLOCK_BYTES // a.dtype.itemsize, 64)
        try:
            s1, s2, zeros, lo, hi = fn(a, float(shift), block)
        except Exception:  # the compiler failed on this machine: use the fallback from now on
            disable()
            return None
        return Moments(float(s1), float(s2), int(zeros), int(lo), int(hi), float(shift), 0,
                       a.size, 0, 0, 0, -1)  # fmt: skip
    int_t, abs_, inf, ninf, kind, float_t = _FLOATS[key]
    uint_t = np.dtype(int_t).str.replace("i", "u")
    bits: np.ndarray = a.view(int_t)
    if shift is None:
        head = bits[:256]
        shift = _first_finite(
            _bf16_to_f32(head) if kind == 2 else head.view(a.dtype).astype(np.float64)
        )
    scale = math.ldexp(1.0, -exp)
    shs = float(shift) * scale
    sh = 8 * bits.itemsize - 1
    block = BLOCK_BYTES // bits.itemsize
    vals = bits if kind else a
    try:
        s1, s2, zeros, klo, khi, bad, pinf, ninf_n, first = fn(
            vals, bits, bits.view(uint_t), shs, scale, int_t(abs_), int_t(inf), int_t(ninf),
            kind, block,
        )  # fmt: skip
    except Exception:  # the compiler failed on this machine: use the fallback from now on
        disable()
        return None
    finite = a.size - int(bad)
    lo = hi = None
    if finite:
        keys: np.ndarray = np.array([klo, khi], dtype=int_t)
        kb = keys ^ ((keys >> sh) & int_t(abs_))
        fl = _bf16_to_f32(kb) if kind == 2 else kb.view(float_t)
        lo, hi = float(fl[0]), float(fl[1])
    pinf, ninf_n = int(pinf), int(ninf_n)
    return Moments(
        float(s1), float(s2), int(zeros), lo, hi, float(shift), int(exp), finite,
        int(bad) - pinf - ninf_n, pinf, ninf_n, int(first),
    )  # fmt: skip


def disable() -> None:
    """Make :func:`fused_moments` return ``None`` from now on (tests of the fallback path)."""
    global _KERNELS, _STATE
    with _LOCK:
        _KERNELS, _STATE = None, "unavailable"


def reset() -> None:
    """Undo :func:`disable` (the kernel is compiled again, or loaded from cache, on next use)."""
    global _KERNELS, _STATE
    with _LOCK:
        _KERNELS, _STATE = None, "unloaded"
