"""Fused reduction kernels (Numba), loaded on first use.

Statistics need, per chunk, the minimum and maximum of the finite elements, their sum and sum of
squares accumulated in float64, the number of zeros, the numbers of NaN, +Inf and -Inf, and the
index of the first non-finite element. One compiled pass over the chunk gives all of them, for
float16, bfloat16, float32, float64, every integer type and bool; NaN and infinities never take
a slower path. Numba compiles the plain Python loops below once per dtype to vectorised machine
code, caches them on disk and runs them without the GIL, so chunks are reduced on several threads;
one call reduces a run of chunks (:func:`fused_chunks`), each chunk's figures kept apart.

How the float pass stays at memory speed:

* Each chunk is walked in blocks of 4 KiB, aligned to 4 KiB addresses (the first block is
  shortened; a ``.npy`` memory map starts 128 bytes into a page), and at each block's start the
  first lines of the next block are prefetched: the next page's address translation and stream
  start while this block is summed from L1. A light loop streams the block in from memory: it
  counts zeros and takes the signed min and max and the unsigned max of the float's bits (three
  integer min/max, which vectorise, where a float min/max that must keep NaN semantics does not).
  Positive floats sort like their signed bits and negative ones like their unsigned bits, so
  these give the block's min and max, as integer keys that sort like the floats
  (``b ^ ((b >> 31) & 0x7fffffff)`` for float32); NaNs sort beyond the infinities, so the block
  holds a NaN or an infinity exactly when smax reaches +Inf's bits or umax -Inf's. This loop
  streams every block in, even right after a dirty block (a heavier loop streams slower).
* The block is now in L1 cache. A clean block (the usual case) gets the float64 shifted sums in a
  second tight loop; a block holding a NaN or an infinity gets a loop that counts the non-finite
  values (one compare gives the count and the mask) and takes the min/max of the finite elements
  (branch-free selects), light loops that count +Inf and -Inf only where the first loop's largest
  bits say the block can hold them, and a masked sum loop that adds 0 for non-finite elements.
  The zeros were already counted by the first loop. The first non-finite index is looked up in
  the first dirty block only. Every loop is branch-free and vectorised; a loop that does
  everything at once streams from memory at a fraction of the speed (too many instructions per
  load: measured, a loop of four integer min/max streams at 2/3 the speed of one max alone),
  which is why the work is split this way.
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
# At each block's start, the first lines of the next block are prefetched (into L2): that starts
# the next page's address translation and the hardware's stream while the block is summed from
# L1, which otherwise stalls at every page boundary of a memory-mapped file (4 KiB pages).
# Measured on a 1 GiB memory map, 2 threads: 1.34x -> 1.10x a plain torch.sum (2 to 8 lines
# are alike; 16 or more, or prefetching further ahead, is slower).
PREFETCH_LINES = 6


def _prefetch(a: Any, i: int) -> None:
    """Prefetch the cache line holding ``a[i]`` (replaced by a Numba intrinsic when compiled)."""
    del a, i


def _prefetch_intrinsic() -> Any:
    """``_prefetch`` as a Numba intrinsic: LLVM's ``llvm.prefetch`` (read, into L2, data), which
    compiles to ``prefetcht1``; it never faults. Numba has no prefetch of its own."""
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    @intrinsic  # type: ignore[misc]
    def prefetch(typingctx: Any, arr: Any, idx: Any) -> Any:
        sig = types.void(arr, idx)

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            ary = context.make_array(signature.args[0])(context, builder, args[0])
            ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), ir.IntType(8).as_pointer())
            i32 = ir.IntType(32)
            fnty = ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
            builder.call(fn, [ptr, i32(0), i32(2), i32(1)])  # read, locality 2 (L2), data
            return context.get_dummy_value()

        return sig, codegen

    return prefetch


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
    shifts: Any,
    auto: bool,
    scale: float,
    ABS: Any,
    INF: Any,
    NINF: Any,
    kind: int,
    block: int,
    chunk: int,
    lines: int,
    phase: int,
    outf: Any,
    outi: Any,
) -> None:
    """The pass for float data, chunk by chunk. Compiled by Numba.

    ``bits`` is the data as signed integers of its width, ``ubits`` as unsigned ones (only its
    type is used); ``ABS`` clears the sign bit, ``INF`` is +Inf's pattern, ``NINF`` -Inf's;
    ``vals`` is the data as floats (``kind`` 0: float32/float64) or again the bits (``kind`` 1:
    float16, 2: bfloat16). Each run of ``chunk`` elements is reduced on its own (one call does
    them all, so the threads seldom come back to Python): its sums are of
    ``d = x * scale - shifts[c] * scale``, where ``shifts[c]`` is, when ``auto``, set to the
    chunk's first finite element among its first 256 (0.0 if none). ``outf[c]`` gets s1, s2;
    ``outi[c]`` zeros, the min and max keys of the finite elements (``b ^ ((b >> w) & ABS)``,
    which sorts like the floats), the counts of non-finite elements, +Inf and -Inf, and the first
    non-finite index in the chunk (-1: none)."""
    T = bits.dtype.type
    U = ubits.dtype.type
    I32 = np.int32
    TMIN = T(~ABS)  # the smallest signed value (-0.0's pattern)
    FMAX = T(INF - 1)  # the largest finite magnitude's pattern
    USIGN = U(U(ABS) + U(1))  # the sign bit, unsigned
    UNINF = U(NINF)  # -Inf's pattern, unsigned: negative NaNs are above it
    F16 = np.float32(5.192296858534828e33)  # 2**112: float16 exponent bias into float32's
    line = max(block * 64 // BLOCK_BYTES, 1)  # elements per 64-byte cache line
    for c in range(outf.shape[0]):
        cs = c * chunk
        cbits = bits[cs : cs + chunk]
        cvals = vals[cs : cs + chunk]
        n = cbits.size
        if auto:
            shift = 0.0
            for j in range(min(n, 256)):
                if T(cbits[j] & ABS) < INF:
                    if kind == 1:
                        h = I32(cbits[j])
                        f = I32(I32(I32(h & 0x8000) << 16) | I32(I32(h & 0x7FFF) << 13))
                        shift = np.float64(np.int32(f).view(np.float32) * F16)
                    elif kind == 2:
                        shift = np.float64(np.int32(I32(cbits[j]) << 16).view(np.float32))
                    else:
                        shift = np.float64(cvals[j])
                    break
            shifts[c] = shift
        shs = shifts[c] * scale
        s1 = 0.0
        s2 = 0.0
        lo = ABS
        hi = TMIN
        zeros = 0
        bad = 0
        pinf = 0
        ninf = 0
        first = -1
        ph = (phase + cs) % block  # the chunk's first block ends at an aligned address
        for k in range((n + ph + block - 1) // block):
            start = max(k * block - ph, 0)
            end = min((k + 1) * block - ph, n)
            if cs + end + lines * line <= bits.size:
                for j in range(lines):
                    _prefetch(bits, cs + end + j * line)
            bb = cbits[start:end]
            vv = cvals[start:end]
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
                elif scale == 1.0:  # the usual case: no multiply (measured ~5% faster)
                    for i in range(m):
                        d = np.float64(vv[i]) - shs
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
            # 2b. some NaN or infinity: the zeros are counted already (on the bits); non-finite
            # count and min/max of the finite elements in one loop, then +Inf and -Inf each in a
            # light loop of their own, only when the block's largest bits say there can be any
            zeros += bz
            has_pos = smax >= INF  # a positive NaN or +Inf
            has_neg = umax >= UNINF  # a negative NaN or -Inf
            bn = I32(0)
            smin = ABS
            smax = TMIN
            umax = U(0)
            for i in range(m):
                b = bb[i]
                nf = T(b & ABS) > FMAX  # one compare gives the count and the mask
                bn = I32(bn + I32(nf))
                smin = min(smin, ABS if nf else b)
                smax = max(smax, TMIN if nf else b)
                umax = max(umax, U(0) if nf else U(b))
            bad += bn
            if has_pos:
                bp = I32(0)
                for i in range(m):
                    bp = I32(bp + I32(bb[i] == INF))
                pinf += bp
            if has_neg:
                bm = I32(0)
                for i in range(m):
                    bm = I32(bm + I32(bb[i] == NINF))
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
        outf[c, 0] = s1
        outf[c, 1] = s2
        outi[c, 0] = zeros
        outi[c, 1] = lo
        outi[c, 2] = hi
        outi[c, 3] = bad
        outi[c, 4] = pinf
        outi[c, 5] = ninf
        outi[c, 6] = first


@no_type_check
def _int_kernel(
    vals: Any,
    shifts: Any,
    auto: bool,
    block: int,
    chunk: int,
    lines: int,
    phase: int,
    outf: Any,
    outi: Any,
) -> None:
    """The pass for integer data (bool as uint8), chunk by chunk as :func:`_float_kernel`
    (``auto``: each chunk's shift is its first element): ``outf[c]`` gets s1, s2, ``outi[c]``
    zeros, min, max. Compiled by Numba."""
    I32 = np.int32
    line = max(block * 64 // BLOCK_BYTES, 1)
    for c in range(outf.shape[0]):
        cs = c * chunk
        cv = vals[cs : cs + chunk]
        n = cv.size
        if auto:
            shifts[c] = np.float64(cv[0])
        shift = shifts[c]
        s1 = 0.0
        s2 = 0.0
        lo = cv[0]
        hi = cv[0]
        zeros = 0
        ph = (phase + cs) % block  # the chunk's first block ends at an aligned address
        for k in range((n + ph + block - 1) // block):
            start = max(k * block - ph, 0)
            end = min((k + 1) * block - ph, n)
            if cs + end + lines * line <= vals.size:
                for j in range(lines):
                    _prefetch(vals, cs + end + j * line)
            vv = cv[start:end]
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
        outf[c, 0] = s1
        outf[c, 1] = s2
        outi[c, 0] = zeros
        outi[c, 1] = lo
        outi[c, 2] = hi


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


def _import_numba() -> Any:
    """Import Numba; when this is its first import and the CPU has AVX-512, let LLVM use 512-bit
    vectors. LLVM prefers 256-bit ones on such CPUs ("prefer-256-bit"), and the first loop
    streams faster with half the instructions per cache line (measured on a 1 GiB memory map,
    2 threads: 1.29x -> 1.17x a plain torch.sum). Numba reads the features once, at import, from
    ``NUMBA_CPU_FEATURES``: the host's own features are given, less that preference, and the
    variable is restored at once (child processes never see it). A user's own
    ``NUMBA_CPU_FEATURES``, or a Numba already imported, is left alone."""
    import os
    import sys

    if "numba" in sys.modules or "NUMBA_CPU_FEATURES" in os.environ:
        import numba

        return numba
    features = ""
    try:
        import llvmlite.binding as llvm

        host = llvm.get_host_cpu_features()
        if host.get("avx512f") and host.get("avx512bw"):
            features = host.flatten() + ",-prefer-256-bit"
    except Exception:  # no host features on this platform: Numba's defaults
        features = ""
    if features:
        os.environ["NUMBA_CPU_FEATURES"] = features
    try:
        import numba
    finally:
        if features:
            del os.environ["NUMBA_CPU_FEATURES"]
    return numba


def _compile() -> dict[Any, tuple[Any, ...]] | None:
    global _prefetch
    try:
        numba = _import_numba()

        _prefetch = _prefetch_intrinsic()  # the kernels' global, resolved when they compile
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


def _phase(a: np.ndarray, block: int) -> int:
    """How many elements ``a`` starts past a :data:`BLOCK_BYTES` boundary: the kernels shorten
    their first block by that much, so that every later block is one aligned 4 KiB page. A
    block that straddles two pages (a ``.npy`` memory map starts 128 bytes into its first page)
    streams ~10% slower (measured)."""
    return (a.ctypes.data % BLOCK_BYTES) // a.dtype.itemsize % block


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
    out = _run(a, max(a.size, 1), shift, exp, bfloat16)
    return out[0] if out is not None else None


def fused_chunks(a: np.ndarray, chunk: int, *, bfloat16: bool = False) -> list[Moments] | None:
    """:func:`fused_moments` of each run of ``chunk`` elements of ``a`` (the last one may be
    shorter), each with its default shift, in one call that runs without the GIL: a thread
    reduces many chunks without coming back to Python. ``None`` as for :func:`fused_moments`."""
    return _run(a, chunk, None, 0, bfloat16)


def _run(
    a: np.ndarray, chunk: int, shift: float | None, exp: int, bfloat16: bool
) -> list[Moments] | None:
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
    nch = -(-a.size // chunk)
    auto = shift is None
    shifts = np.full(nch, 0.0 if shift is None else float(shift))
    outf = np.empty((nch, 2))
    outi = np.zeros((nch, 7), dtype=np.int64)
    size = np.minimum(a.size - np.arange(nch, dtype=np.int64) * chunk, chunk)
    if key not in _FLOATS:  # integers: exact min/max, float64 sums
        block = max(BLOCK_BYTES // a.dtype.itemsize, 64)
        try:
            fn(a, shifts, auto, block, chunk, PREFETCH_LINES, _phase(a, block), outf, outi)
        except Exception:  # the compiler failed on this machine: use the fallback from now on
            disable()
            return None
        # uint64 extremes above 2**63 came back wrapped into the int64 array
        lo_hi = outi[:, 1:3].view(np.uint64) if a.dtype == np.uint64 else outi[:, 1:3]
        return [
            Moments(float(f[0]), float(f[1]), int(i[0]), int(lh[0]), int(lh[1]), float(sh_), 0,
                    int(sz), 0, 0, 0, -1)
            for f, i, lh, sh_, sz in zip(outf, outi, lo_hi, shifts, size, strict=True)
        ]  # fmt: skip
    int_t, abs_, inf, ninf, kind, float_t = _FLOATS[key]
    uint_t = np.dtype(int_t).str.replace("i", "u")
    bits: np.ndarray = a.view(int_t)
    scale = math.ldexp(1.0, -exp)
    sh = 8 * bits.itemsize - 1
    block = BLOCK_BYTES // bits.itemsize
    vals = bits if kind else a
    try:
        fn(
            vals, bits, bits.view(uint_t), shifts, auto, scale, int_t(abs_), int_t(inf),
            int_t(ninf), kind, block, chunk, PREFETCH_LINES, _phase(a, block), outf, outi,
        )  # fmt: skip
    except Exception:  # the compiler failed on this machine: use the fallback from now on
        disable()
        return None
    keys: np.ndarray = outi[:, 1:3].astype(int_t)
    kb = keys ^ ((keys >> sh) & int_t(abs_))
    fl = (_bf16_to_f32(kb) if kind == 2 else kb.view(float_t)).astype(np.float64)
    out = []
    for f, i, lh, sh_, sz in zip(outf, outi, fl, shifts, size, strict=True):
        finite = int(sz) - int(i[3])
        pinf, ninf_n = int(i[4]), int(i[5])
        lo = float(lh[0]) if finite else None
        hi = float(lh[1]) if finite else None
        out.append(Moments(
            float(f[0]), float(f[1]), int(i[0]), lo, hi, float(sh_), int(exp), finite,
            int(i[3]) - pinf - ninf_n, pinf, ninf_n, int(i[6]),
        ))  # fmt: skip
    return out


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
