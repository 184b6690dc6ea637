"""stats() exactly against NumPy, on data drawn by Hypothesis: every float width (float64, float32,
float16, bfloat16), integers and bool, NaN/Inf-dense data, raw bit patterns (NaN payloads, NaNs
with the sign bit), 1e308 (whose float64 sums overflow when done naively), -0.0 and subnormals;
through the fused Numba kernel (forced for every size, with tiny blocks so that one call walks
many blocks) and through the torch fallback.

Ground truth: counts, min, max and the first non-finite index from NumPy; mean and standard
deviation exactly, in rational arithmetic (``fractions.Fraction``) over NumPy's finite elements,
then compared with a tolerance relative to the data's largest magnitude (the mean) and to the
standard deviation itself.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tensor_explorer as tx
from tensor_explorer.core import kernels
from tensor_explorer.core import stats as stats_module

PATHS = ["fused", "torch"]
FLOATS = ["float64", "float32", "float16", "bfloat16"]
INTS = ["bool", "uint8", "int8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]


@contextmanager
def _path(name: str, block_bytes: int) -> Iterator[None]:
    """Run on the fused kernel for every size (``block_bytes`` per kernel block), or on the
    torch fallback."""
    assert kernels.available(), "numba is a dependency: the fused kernel must load"
    # restored as they were, not reset: loading the kernels again costs ~0.5 s
    saved = stats_module.FUSED_MIN, kernels.BLOCK_BYTES, kernels._KERNELS, kernels._STATE
    try:
        if name == "torch":
            kernels.disable()
        else:
            stats_module.FUSED_MIN, kernels.BLOCK_BYTES = 0, block_bytes
        yield
    finally:
        stats_module.FUSED_MIN, kernels.BLOCK_BYTES, kernels._KERNELS, kernels._STATE = saved


# ---------------------------------------------------------------------------- ground truth


def _exact_mean_std(fin: np.ndarray) -> tuple[float, float]:
    """Mean and population std of float64 values, exactly (then rounded once)."""
    xs = [Fraction(float(v)) if fin.dtype.kind == "f" else Fraction(int(v)) for v in fin]
    n = len(xs)
    mean = sum(xs, Fraction(0)) / n
    var = sum(((x - mean) ** 2 for x in xs), Fraction(0)) / n
    if var == 0:
        return float(mean), 0.0
    # sqrt of a rational far outside float range (1e616, 1e-647): scale by a power of four
    k = (var.numerator.bit_length() - var.denominator.bit_length()) // 2
    return float(mean), math.ldexp(math.sqrt(float(var / Fraction(4) ** k)), k)


def _reference(x: np.ndarray, shape: tuple[int, ...]) -> dict[str, Any]:
    """NumPy's figures for the values ``x`` (float64 for float data, the integers themselves
    otherwise), in logical (C) order."""
    flat = x.reshape(-1)
    if flat.dtype.kind == "f":
        finite = np.isfinite(flat)
        fin = flat[finite]
        bad = np.flatnonzero(~finite)
        ref: dict[str, Any] = {
            "nan": int(np.isnan(flat).sum()),
            "posinf": int(np.isposinf(flat).sum()),
            "neginf": int(np.isneginf(flat).sum()),
            "first": tuple(int(i) for i in np.unravel_index(bad[0], shape)) if bad.size else None,
        }
    else:
        fin = flat
        ref = {"nan": 0, "posinf": 0, "neginf": 0, "first": None}
    ref.update(count=flat.size, finite=fin.size, zeros=int(np.count_nonzero(flat == 0)))
    if fin.size:
        ref["min"], ref["max"] = fin.min().item(), fin.max().item()
        ref["mean"], ref["std"] = _exact_mean_std(fin)
    else:
        ref["min"] = ref["max"] = ref["mean"] = ref["std"] = None
    return ref


def _check(value: Any, ref: dict[str, Any], chunk: int) -> None:
    s = tx.stats(value, chunk=chunk)
    got = {k: getattr(s, k) for k in ("count", "finite", "nan", "posinf", "neginf", "zeros")}
    assert got == {k: ref[k] for k in got}
    assert s.first_nonfinite == ref["first"]
    assert s.min == ref["min"] and s.max == ref["max"]  # exact (-0.0 == 0.0)
    if ref["mean"] is None:
        assert s.mean is None and s.std is None
        return
    assert s.mean is not None and s.std is not None
    assert math.isfinite(s.mean) and math.isfinite(s.std)
    scale = max(abs(float(ref["min"])), abs(float(ref["max"])))
    sub = 4 * 5e-324  # means and std of subnormals are rounded to a few of the smallest steps
    assert abs(s.mean - ref["mean"]) <= 1e-12 * scale + sub, (s.mean, ref["mean"])
    assert float(ref["min"]) <= s.mean <= float(ref["max"])  # the mean is a float64
    assert abs(s.std - ref["std"]) <= 1e-9 * ref["std"] + 1e-13 * scale + sub, (s.std, ref["std"])


# ---------------------------------------------------------------------------- data


def _specials(dtype: str) -> list[float]:
    info = np.finfo(np.float32 if dtype == "bfloat16" else dtype)
    big = float(info.max) if dtype != "bfloat16" else 3.3895313892515355e38
    tiny = float(info.smallest_subnormal) if dtype != "bfloat16" else 9.183549615799121e-41
    neg_nan = -math.nan if math.copysign(1.0, -math.nan) < 0 else math.copysign(math.nan, -1.0)
    smallest_normal = float(info.tiny) if dtype != "bfloat16" else 1.1754943508222875e-38
    out = [math.nan, neg_nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0, big, -big, tiny, -tiny,
           2 * tiny, smallest_normal]  # fmt: skip
    if dtype == "float64":
        out += [1e308, -1e308, 1.5e308, 1e-310, 5e-324]
    return out


@st.composite
def float_data(draw: st.DrawFn, dtype: str) -> tuple[Any, np.ndarray]:
    """(value for tx.stats, its float64 values for NumPy) — NaN/Inf-dense or adversarial."""
    n = draw(st.integers(1, 300))
    kind = draw(st.sampled_from(["mixed", "dense", "bits", "huge", "tiny"]))
    store = "float32" if dtype == "bfloat16" else dtype
    if kind == "bits":
        ubits = {"float64": np.uint64, "float32": np.uint32}.get(dtype, np.uint16)
        u = draw(hnp.arrays(ubits, n))
        if dtype == "bfloat16":
            t = torch.from_numpy(u.view(np.int16).copy()).view(torch.bfloat16)
            return t, t.float().numpy().astype(np.float64)
        a = u.view(dtype)
    else:
        specials = _specials(dtype)
        width = {"float64": 64, "float32": 32, "float16": 16, "bfloat16": 32}[dtype]
        plain = st.floats(width=width, allow_nan=True, allow_infinity=True)
        if kind == "huge":  # sums and squares overflow float64 when done naively
            big = st.floats(1e306, 1.7976931348623157e308)
            plain = big | big.map(lambda v: -v) if dtype == "float64" else st.floats(width=width)
        elif kind == "tiny":  # squares underflow; subnormals
            lim = float(np.finfo(np.float32 if dtype == "bfloat16" else dtype).tiny) * 4
            plain = st.floats(-lim, lim, width=width)
        elements = {
            "mixed": st.one_of(plain, st.sampled_from(specials)),
            "dense": st.sampled_from(specials),
            "huge": st.one_of(plain, st.sampled_from([math.nan, math.inf, -0.0])),
            "tiny": st.one_of(plain, st.sampled_from([0.0, -0.0, math.nan, -math.inf])),
        }[kind]
        a = np.array(draw(st.lists(elements, min_size=n, max_size=n)), dtype=np.float64)
        with np.errstate(over="ignore"):
            a = a.astype(store)
    shape = (n,)
    rows = draw(st.sampled_from([1, 2, 3, 5]))
    if n % rows == 0 and rows > 1:
        shape = (rows, n // rows)
    a = a.reshape(shape)
    if dtype == "bfloat16":
        t = torch.from_numpy(np.ascontiguousarray(a)).to(torch.bfloat16)
        if len(shape) == 2 and draw(st.booleans()):
            t = t.t()
        return t, t.float().numpy().astype(np.float64)
    if len(shape) == 2 and draw(st.booleans()):
        a = a.T  # logical order differs from memory order
    value: Any = torch.from_numpy(a) if draw(st.booleans()) else a
    return value, a.astype(np.float64)


common = settings(deadline=None, max_examples=60)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", FLOATS)
@common
@given(data=st.data(), chunk=st.sampled_from([7, 64, 1 << 22]),
       block=st.sampled_from([16, 64, 4096]))  # fmt: skip
def test_float_stats_are_exact(path: str, dtype: str, data: st.DataObject, chunk: int,
                               block: int) -> None:  # fmt: skip
    value, x = data.draw(float_data(dtype))
    ref = _reference(x, tuple(x.shape))
    with _path(path, block):
        _check(value, ref, chunk)


@st.composite
def int_data(draw: st.DrawFn, dtype: str) -> np.ndarray:
    dt = np.dtype(dtype)
    if dt.kind == "b":
        elements: st.SearchStrategy[Any] = st.booleans()
    else:
        info = np.iinfo(dt)
        elements = st.one_of(
            st.integers(int(info.min), int(info.max)),
            st.sampled_from([int(info.min), int(info.max), 0, 1]),
            st.integers(max(-3, int(info.min)), 3),
        )
    return draw(hnp.arrays(dt, st.integers(1, 300), elements=elements))


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", INTS)
@settings(deadline=None, max_examples=25)
@given(data=st.data(), chunk=st.sampled_from([7, 1 << 22]), as_tensor=st.booleans())
def test_int_and_bool_stats_are_exact(path: str, dtype: str, data: st.DataObject, chunk: int,
                                      as_tensor: bool) -> None:  # fmt: skip
    a = data.draw(int_data(dtype))
    ref = _reference(a, a.shape)
    value: Any = a
    if as_tensor and dtype not in ("uint16", "uint32", "uint64"):  # torch lacks these there
        value = torch.from_numpy(a)
    with _path(path, 64):
        _check(value, ref, chunk)


# ---------------------------------------------------------------------------- named cases


ADVERSARIAL = [
    [1e308, 1e308],
    [1.7e308, -1.7e308, math.nan],
    [-1.7976931348623157e308, 1.7976931348623157e308, 1.7976931348623157e308],
    [-0.0, -0.0, 0.0],
    [-0.0],
    [5e-324, 1e-323, math.inf, 5e-324],
    [math.nan, -math.inf, 2.2250738585072014e-308, -5e-324],
    [math.nan, math.nan],
    [1e-300, 1e-300, 1e-300],
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("values", ADVERSARIAL, ids=str)
def test_adversarial_magnitudes(path: str, values: list[float]) -> None:
    x = np.array(values)
    for dtype in ("float64", "float32", "float16"):
        with np.errstate(over="ignore", under="ignore"):
            a = x.astype(dtype)
        ref = _reference(a.astype(np.float64), a.shape)
        for block in (16, 4096):
            with _path(path, block):
                _check(a, ref, 1 << 22)
                _check(torch.from_numpy(a), ref, 1)
    if values == [1e308, 1e308]:
        with _path(path, 4096):
            assert tx.stats(x).mean == 1e308  # not inf, though the sum of the two overflows


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", FLOATS)
def test_long_runs_of_nonfinite_blocks(path: str, dtype: str) -> None:
    # Whole blocks of NaN, then finite ones, then a NaN every few elements: the kernel's guess
    # that a block after a dirty one is dirty too must never change the figures.
    rng = np.random.default_rng(11)
    x = rng.normal(size=5000) * 100
    x[:700] = np.nan
    x[1500:1600] = np.inf
    x[2000::97] = -np.inf
    x[3000::13] = np.nan
    x[4000:4010] = -0.0
    t = torch.from_numpy(x).to(getattr(torch, dtype))
    ref = _reference(t.double().numpy(), (5000,))
    for block in (64, 4096):
        with _path(path, block):
            _check(t, ref, 1 << 22)
            _check(t, ref, 1000)
