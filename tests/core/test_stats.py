"""stats() against NumPy float64 references: dtypes, layouts, non-finite values, chunking."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import tensor_explorer as tx
from tensor_explorer.core import kernels
from tensor_explorer.core import stats as stats_module


@pytest.fixture(params=["fused", "torch"])
def kernel_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """Run a test on the fused Numba kernel (for every size) and again on the torch fallback."""
    if request.param == "torch":
        kernels.disable()
    else:
        assert kernels.available(), "numba is a dependency: the fused kernel must load"
        monkeypatch.setattr(stats_module, "FUSED_MIN", 0)
    yield request.param
    kernels.reset()


def _reference(a: np.ndarray) -> dict:
    """Plain NumPy float64 statistics of the finite elements (magnitude for complex)."""
    x = np.abs(a) if a.dtype.kind == "c" else a
    x = x.astype(np.float64).ravel()
    fin = x[np.isfinite(x)]
    bad = np.flatnonzero(~np.isfinite(x))
    return {
        "count": a.size,
        "finite": fin.size,
        "min": fin.min() if fin.size else None,
        "max": fin.max() if fin.size else None,
        "mean": fin.mean() if fin.size else None,
        "std": fin.std() if fin.size else None,
        "nan": int(np.isnan(x).sum()),
        "posinf": int(np.isposinf(x).sum()),
        "neginf": int(np.isneginf(x).sum()),
        "zeros": int((x == 0).sum()),
        "first": tuple(int(i) for i in np.unravel_index(bad[0], a.shape)) if bad.size else None,
    }


def _check(value, ref: dict, rtol: float = 1e-9) -> None:
    s = tx.stats(value)
    for key in ("count", "finite", "nan", "posinf", "neginf", "zeros"):
        assert getattr(s, key) == ref[key], key
    assert s.first_nonfinite == ref["first"]
    for key in ("min", "max", "mean"):
        if ref[key] is None:
            assert getattr(s, key) is None
        else:
            scale = max(abs(ref["min"]), abs(ref["max"]), 1e-300)
            assert abs(getattr(s, key) - ref[key]) <= rtol * scale, key
    if ref["std"] is not None:
        assert s.std == pytest.approx(ref["std"], rel=rtol * 10, abs=rtol * abs(ref["max"]))


TORCH_DTYPES = [
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
    torch.complex64,
    torch.complex128,
]


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "step", "scalar", "empty"])
def test_tensor_stats_match_numpy(dtype: torch.dtype, layout: str, kernel_path: str) -> None:
    g = torch.Generator().manual_seed(1)
    base = torch.randn(60, 50, generator=g) * 7
    if dtype.is_complex:
        base = torch.complex(base, torch.randn(60, 50, generator=g))
    t = base.to(dtype)
    t = {
        "contiguous": t,
        "transposed": t.t(),
        "step": t[::3, 1::2],
        "scalar": t[0, 0],
        "empty": t[:0],
    }[layout]
    ref_src = t.to(torch.complex128 if dtype.is_complex else torch.float64).numpy()
    ref = _reference(ref_src)
    _check(t, ref, rtol=1e-9)


def test_nonfinite_counts_and_first_index_in_c_order(kernel_path: str) -> None:
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    a[1, 2, 0] = np.inf
    a[0, 1, 3] = np.nan
    a[1, 0, 0] = -np.inf
    s = tx.stats(torch.from_numpy(a))
    assert (s.nan, s.posinf, s.neginf) == (1, 1, 1)
    assert s.first_nonfinite == (0, 1, 3)
    assert s.finite == 21
    _check(a, _reference(a))
    # the first non-finite in *logical* order of a transposed view
    t = torch.from_numpy(a).permute(2, 1, 0)
    assert tx.stats(t).first_nonfinite == _reference(t.numpy())["first"]


def test_all_nonfinite_has_no_min_max() -> None:
    s = tx.stats(torch.tensor([math.nan, math.inf]))
    assert s.finite == 0 and s.min is None and s.mean is None and s.std is None
    assert s.to_dict()["first_nonfinite"] == [0]


def test_float16_overflow_accumulates_in_float64(kernel_path: str) -> None:
    t = torch.full((200_000,), 60000.0, dtype=torch.float16)
    assert torch.isinf(t.sum())  # torch's own float16 sum overflows
    s = tx.stats(t)
    assert s.mean == 60000.0 and s.std == 0.0 and s.nan == s.posinf == 0


def test_large_mean_small_spread_keeps_std_accurate(kernel_path: str) -> None:
    g = torch.Generator().manual_seed(3)
    t = 1e6 + torch.randn(300_000, generator=g, dtype=torch.float64) * 1e-3
    ref = t.numpy().std()
    assert tx.stats(t, chunk=4096).std == pytest.approx(ref, rel=1e-6)


@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 20])
def test_chunk_size_does_not_change_the_answer(chunk: int, kernel_path: str) -> None:
    a = np.random.default_rng(0).normal(size=(37, 11)).astype(np.float32)
    a[5, 3] = 0
    a[30, 2] = np.nan
    s = tx.stats(a[:, ::-1].T, chunk=chunk)  # non-contiguous, negative stride
    _check(a[:, ::-1].T, _reference(a[:, ::-1].T), rtol=1e-9)
    ref = _reference(a[:, ::-1].T)
    assert s.first_nonfinite == ref["first"] and s.zeros == ref["zeros"]


@pytest.mark.parametrize("dtype", ["<f4", ">f4", ">i8", "<u2", ">c8", "u8", "?"])
def test_numpy_byte_orders_and_unsigned(dtype: str) -> None:
    a = (np.arange(30) * 1000 % 7919).astype(dtype).reshape(5, 6)
    _check(a, _reference(a))
    _check(a[::-2], _reference(a[::-2]))


def test_uint64_extremes_are_exact() -> None:
    a = np.array([0, 2**64 - 1, 5], dtype=np.uint64)
    s = tx.stats(a)
    assert s.min == 0 and s.max == 2**64 - 1 and s.zeros == 1


def test_progress_and_cancel() -> None:
    t = torch.randn(10_000)
    seen: list[float] = []
    tx.stats(t, progress=seen.append, chunk=1000)
    assert len(seen) == 10 and seen == sorted(seen) and seen[-1] == 1.0
    calls = []

    def cancel() -> bool:
        calls.append(1)
        return len(calls) > 3

    with pytest.raises(tx.Cancelled):
        tx.stats(t, cancel=cancel, chunk=1000)
    assert len(calls) == 4


def test_memory_stays_flat_for_non_contiguous_input() -> None:
    # A transposed 2000x2000 float64 view: chunks are cut along rows, never one full copy.
    t = torch.randn(2000, 2000, dtype=torch.float64).t()
    s = tx.stats(t, chunk=1 << 16)
    assert s.mean == pytest.approx(float(t.mean()), abs=1e-12)


def test_meta_tensor_and_wrong_types() -> None:
    with pytest.raises(ValueError, match="meta"):
        tx.stats(torch.empty(3, device="meta"))
    with pytest.raises(TypeError):
        tx.stats(np.array(["a"]))
    with pytest.raises(TypeError):
        tx.stats([1.0, 2.0])


def test_requires_grad_tensor_is_fine() -> None:
    w = torch.randn(5, requires_grad=True)
    assert tx.stats(w).mean == pytest.approx(float(w.detach().double().mean()))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_with_sign_bit_and_signed_zero(dtype, kernel_path: str) -> None:
    # A NaN whose sign bit is set sorts below -Inf in the fused kernel's integer keys; -0.0 is a
    # zero. Both must be counted like NumPy counts them.
    a = np.random.default_rng(1).normal(size=5000).astype(dtype)
    a[10] = -0.0
    a[20] = 0.0
    neg_nan = np.array(np.nan, dtype=dtype)
    neg_nan = -neg_nan if np.signbit(-neg_nan) else neg_nan
    a[4000] = neg_nan
    assert np.signbit(a[4000]) and np.isnan(a[4000])
    a[4500] = np.inf
    _check(a, _reference(a))
    _check(torch.from_numpy(a), _reference(a))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_outlier_first_element_keeps_std_accurate(dtype: torch.dtype, kernel_path: str) -> None:
    # The fused kernel shifts by a chunk's first element; a far outlier there makes the shifted
    # sum of squares cancel, which must be detected and redone (shifted by the mean).
    g = torch.Generator().manual_seed(5)
    t = torch.randn(200_000, generator=g, dtype=torch.float64)
    t[0] = 1e7
    t = t.to(dtype)
    ref = _reference(t.numpy())
    _check(t, ref, rtol=1e-9)


def test_threads_and_order_for_values_bigger_than_a_chunk(kernel_path: str) -> None:
    # Several chunks run on worker threads and are merged in order: the first non-finite index
    # is the first in C order even when a later chunk finishes first.
    a = np.random.default_rng(2).normal(size=(300, 1000)).astype(np.float32)
    a[250, 7] = np.inf
    a[120, 3] = np.nan
    b = a.T  # non-contiguous: pieces are copied on the workers
    for value in (a, b, torch.from_numpy(a), torch.from_numpy(a).t()):
        ref = _reference(np.asarray(value))
        seen: list[float] = []
        s = tx.stats(value, progress=seen.append, chunk=10_000)
        assert seen == sorted(seen) and seen[-1] == 1.0
        assert s.first_nonfinite == ref["first"]
        assert s.mean == pytest.approx(ref["mean"], rel=1e-9, abs=1e-12)
        assert s.std == pytest.approx(ref["std"], rel=1e-9)


def test_small_values_do_not_need_numba() -> None:
    # What the window shows at start is small: its statistics must not import Numba (~0.3 s).
    code = (
        "import sys, torch, tensor_explorer as tx; tx.stats(torch.randn(1000));"
        "tx.stats(torch.randn(100, 100).t()); print('numba' in sys.modules)"
    )
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_fused_kernel_is_used_for_big_values(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = kernels.fused_moments

    def spy(a, *args, **kwargs):
        calls.append(a.size)
        return real(a, *args, **kwargs)

    monkeypatch.setattr(kernels, "fused_moments", spy)
    t = torch.randn(3 * stats_module.FUSED_MIN)
    s = tx.stats(t)
    assert calls and sum(calls) >= t.numel()
    assert s.mean == pytest.approx(float(t.double().mean()), abs=1e-12)


def test_a_kernel_that_fails_to_compile_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args):
        raise RuntimeError("LLVM failed")  # what a Numba compile error looks like to us

    monkeypatch.setattr(kernels, "_KERNELS", {np.dtype(np.float32): (broken, np.int32, np.float32)})
    monkeypatch.setattr(kernels, "_STATE", "ready")
    t = torch.randn(2 * stats_module.FUSED_MIN)
    s = tx.stats(t)
    assert s.mean == pytest.approx(float(t.double().mean()), abs=1e-12)
    assert not kernels.available()  # disabled from now on
    kernels.reset()


def test_views_with_the_negative_bit_are_read_like_any_tensor(kernel_path: str) -> None:
    # z.conj().imag is a lazily negated view: .numpy() refuses it, so the fused kernel must
    # resolve the negation (torch.aminmax and friends already do).
    z = torch.randn(3000, dtype=torch.complex64, generator=torch.Generator().manual_seed(7))
    imag = z.conj().imag
    assert imag.is_neg()
    _check(imag, _reference(imag.resolve_neg().numpy()))
    _check(torch._neg_view(z.real.contiguous()), _reference(-z.real.numpy()))


def test_no_writable_cache_folder_still_uses_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    # Installed read-only with no writable home (a sandbox, a system package), Numba finds no
    # folder for its cache and refuses cache=True when the kernel is made: statistics must
    # still work (compiled without the on-disk cache) instead of raising.
    caching = pytest.importorskip("numba.core.caching")
    impl = getattr(caching, "CacheImpl", None)
    if impl is None or not hasattr(impl, "_locator_classes"):
        pytest.skip("this Numba finds cache folders differently")
    monkeypatch.setattr(impl, "_locator_classes", [])
    kernels.reset()
    try:
        a = np.random.default_rng(4).normal(size=2 * stats_module.FUSED_MIN).astype(np.float32)
        _check(a, _reference(a))
        assert kernels.available()
    finally:
        kernels.reset()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int16", "uint64"])
def test_fused_chunks_match_one_call_per_chunk(dtype: str) -> None:
    # One kernel call reduces a span of chunks (the threads seldom come back to Python): each
    # chunk's figures must be those of a call on that chunk alone, NaN/Inf and zeros included.
    assert kernels.available()
    rng = np.random.default_rng(5)
    x = rng.normal(size=10_000) * 50
    if dtype in ("int16", "uint64"):
        a = np.abs(x).astype(dtype)
        a[7] = np.iinfo(dtype).max
        bf16 = False
    else:
        x[:300] = np.nan
        x[2000::97] = np.inf
        x[5000::89] = -np.inf
        x[6000:6010] = 0.0
        x[9000:] = np.nan  # a chunk with no finite element
        if dtype == "bfloat16":
            a = torch.from_numpy(x).to(torch.bfloat16).view(torch.int16).numpy()
        else:
            a = x.astype(dtype)
        bf16 = dtype == "bfloat16"
    chunk = 999
    got = kernels.fused_chunks(a, chunk, bfloat16=bf16)
    assert got is not None and len(got) == -(-a.size // chunk)
    for i, m in enumerate(got):
        want = kernels.fused_moments(a[i * chunk : (i + 1) * chunk], bfloat16=bf16)
        assert m == want, (i, m, want)


def test_numba_gets_the_host_features_and_the_environment_is_restored() -> None:
    # The kernels let LLVM use 512-bit vectors on AVX-512 CPUs by handing Numba the host's own
    # features at its first import; the variable must not leak to the process or its children,
    # and a user's own NUMBA_CPU_FEATURES wins.
    code = (
        "import os, llvmlite.binding as llvm\n"
        "mine = os.environ.get('NUMBA_CPU_FEATURES')\n"
        "from tensor_explorer.core import kernels\n"
        "assert kernels.available()\n"
        "import numba\n"
        "assert os.environ.get('NUMBA_CPU_FEATURES') == mine\n"
        "host = llvm.get_host_cpu_features()\n"
        "wide = bool(host.get('avx512f') and host.get('avx512bw'))\n"
        "feats = numba.config.CPU_FEATURES\n"
        "print(wide, feats == mine if mine else feats == (host.flatten() + ',-prefer-256-bit'),"
        " feats is None)\n"
    )

    def run(env: dict[str, str]) -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CPU_FEATURES"}
    wide, lifted, untouched = run(env)
    assert (lifted, untouched) == (("True", "False") if wide == "True" else ("False", "True"))
    import llvmlite.binding as llvm

    users = llvm.get_host_cpu_features().flatten()
    assert run({**env, "NUMBA_CPU_FEATURES": users})[1] == "True"


def test_a_record_field_with_an_odd_stride() -> None:
    # a float64 field of a 14-byte record: its stride is no multiple of 8 (torch views none)
    rec = np.zeros(1000, dtype=[("a", "<i2"), ("b", "<f8"), ("c", "<f4")])
    rec["b"] = np.linspace(-3, 5, 1000)
    rec["b"][7] = np.nan
    b = rec["b"]
    assert b.strides == (14,)
    s = tx.stats(b)
    finite = b[np.isfinite(b)]
    assert (s.nan, s.min, s.max) == (1, float(finite.min()), float(finite.max()))
    assert s.mean == pytest.approx(float(finite.mean()), rel=1e-12)
