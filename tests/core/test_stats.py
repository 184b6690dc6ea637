"""stats() against NumPy float64 references: dtypes, layouts, non-finite values, chunking."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import tensor_explorer as tx


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
def test_tensor_stats_match_numpy(dtype: torch.dtype, layout: str) -> None:
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


def test_nonfinite_counts_and_first_index_in_c_order() -> None:
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


def test_float16_overflow_accumulates_in_float64() -> None:
    t = torch.full((200_000,), 60000.0, dtype=torch.float16)
    assert torch.isinf(t.sum())  # torch's own float16 sum overflows
    s = tx.stats(t)
    assert s.mean == 60000.0 and s.std == 0.0 and s.nan == s.posinf == 0


def test_large_mean_small_spread_keeps_std_accurate() -> None:
    g = torch.Generator().manual_seed(3)
    t = 1e6 + torch.randn(300_000, generator=g, dtype=torch.float64) * 1e-3
    ref = t.numpy().std()
    assert tx.stats(t, chunk=4096).std == pytest.approx(ref, rel=1e-6)


@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 20])
def test_chunk_size_does_not_change_the_answer(chunk: int) -> None:
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
