"""Fused reduction kernel (Numba), loaded on first use.

Statistics need, per chunk, the minimum and maximum, the sum and the sum of squares accumulated
in float64, the number of zeros, and whether any element is NaN or infinite. With torch alone
that is a float64 copy of the chunk and five more kernels over it; one compiled loop does it in a
single read of the chunk. Numba is the library made for this: the loop below is plain Python,
compiled once per dtype to vectorised machine code, cached on disk, and run without the GIL so
chunks are reduced on several threads.

One trick keeps the loop vectorisable: LLVM will not vectorise a floating-point min/max whose NaN
behaviour it must keep, so min and max are taken over the float's bits mapped to an integer key
that sorts like the float (``bits ^ ((bits >> 31) & 0x7fffffff)`` for float32). Integer min/max
vectorise; NaNs sort beyond the infinities, so a chunk holds a NaN or an infinity exactly when
its minimum or maximum, mapped back to a float, is not finite.

Numba is imported lazily (it costs ~0.3 s, which start-up must not pay). When it is missing or
fails to compile, :func:`fused_moments` returns ``None`` and callers use their torch fallback.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

_LOCK = threading.Lock()
_KERNELS: dict[np.dtype[Any], tuple[Callable[..., Any], type, type]] | None = None
_STATE = "unloaded"  # "unloaded" | "ready" | "unavailable"


class Moments(NamedTuple):
    """One chunk's reduction: ``s1 = Σ(x - shift)``, ``s2 = Σ(x - shift)²`` (float64),
    ``zeros``, ``lo``/``hi`` (min and max; not finite when the chunk holds a NaN or an
    infinity, and then the sums are meaningless)."""

    s1: float
    s2: float
    zeros: int
    lo: float
    hi: float
    shift: float


def _fused32(a: Any, bits: Any, shift: float) -> tuple[float, float, int, Any, Any]:
    """The loop for float32 (``bits`` is ``a`` viewed as int32). Compiled by Numba."""
    s1 = 0.0
    s2 = 0.0
    zeros = 0
    lo = np.int32(0x7FFFFFFF)
    hi = np.int32(-0x80000000)
    for i in range(a.size):
        x = a[i]
        b = bits[i]
        k = b ^ ((b >> np.int32(31)) & np.int32(0x7FFFFFFF))  # sorts like x, NaNs beyond Inf
        lo = min(lo, k)
        hi = max(hi, k)
        d = np.float64(x) - shift
        s1 += d
        s2 += d * d
        zeros += x == 0
    return s1, s2, zeros, lo, hi


def _fused64(a: Any, bits: Any, shift: float) -> tuple[float, float, int, Any, Any]:
    """The loop for float64 (``bits`` is ``a`` viewed as int64). Compiled by Numba."""
    s1 = 0.0
    s2 = 0.0
    zeros = 0
    lo = np.int64(0x7FFFFFFFFFFFFFFF)
    hi = np.int64(-0x8000000000000000)
    for i in range(a.size):
        x = a[i]
        b = bits[i]
        k = b ^ ((b >> np.int64(63)) & np.int64(0x7FFFFFFFFFFFFFFF))
        lo = min(lo, k)
        hi = max(hi, k)
        d = x - shift
        s1 += d
        s2 += d * d
        zeros += x == 0
    return s1, s2, zeros, lo, hi


def _compile() -> dict[np.dtype[Any], tuple[Callable[..., Any], type, type]] | None:
    try:
        import numba
    except Exception:  # not installed, or broken: use the fallback
        return None
    # Reassociation lets LLVM vectorise the sums; no "nnan"/"ninf": NaN and Inf must flow
    # through unchanged so that the caller can see them. Without a writable folder for the
    # on-disk cache (read-only install, no writable home) Numba refuses cache=True right here:
    # then compile at each start instead.
    for cache in (True, False):
        jit = numba.njit(
            nogil=True,
            fastmath={"reassoc", "nsz", "arcp", "contract"},
            cache=cache,
            boundscheck=False,
            error_model="numpy",
        )
        try:
            return {
                np.dtype(np.float32): (jit(_fused32), np.int32, np.float32),
                np.dtype(np.float64): (jit(_fused64), np.int64, np.float64),
            }
        except Exception:  # no cache locator (or a broken Numba): try without, else fall back
            continue
    return None


def _kernels() -> dict[np.dtype[Any], tuple[Callable[..., Any], type, type]] | None:
    global _KERNELS, _STATE
    if _STATE == "unloaded":
        with _LOCK:
            if _STATE == "unloaded":
                _KERNELS = _compile()
                _STATE = "ready" if _KERNELS is not None else "unavailable"
    return _KERNELS


def available() -> bool:
    """Whether the compiled kernel can be used (imports Numba on first call)."""
    return _kernels() is not None


def _key_to_float(key: Any, int_t: type, float_t: type) -> float:
    k: np.ndarray = np.asarray(key, dtype=int_t)
    bits = k ^ ((k >> (8 * k.itemsize - 1)) & np.iinfo(int_t).max)
    return float(bits.view(float_t))


def fused_moments(a: np.ndarray, shift: float | None = None) -> Moments | None:
    """Min, max, zero count and float64 shifted sums of a 1-D contiguous float32/float64 array in
    one pass, or ``None`` when the kernel is not available for it. ``shift`` defaults to the
    first element (any value inside the data's range keeps the sum of squares accurate)."""
    kernels = _kernels()
    if kernels is None or a.ndim != 1 or a.size == 0:
        return None
    entry = kernels.get(a.dtype)
    if entry is None or not a.flags.c_contiguous:
        return None
    fn, int_t, float_t = entry
    if shift is None:
        shift = float(a[0])
        if not np.isfinite(shift):
            shift = 0.0
    try:
        s1, s2, zeros, lo, hi = fn(a, a.view(int_t), float(shift))
    except Exception:  # the compiler failed on this machine: use the fallback from now on
        disable()
        return None
    return Moments(
        float(s1), float(s2), int(zeros),
        _key_to_float(lo, int_t, float_t), _key_to_float(hi, int_t, float_t), float(shift),
    )


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
