"""Property tests for core/memory.py: random strided layouts (torch.as_strided and NumPy
as_strided, any dtype, negative NumPy strides) over one small allocation, checked against brute
force byte sets. Each check also runs with the work limits shrunk to nothing, so the fallback
paths (sweep, bitmap fold, run enumeration) are held to the same answers as the fast ones."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from unittest import mock

import numpy as np
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tensor_explorer.core import memory as m

from .test_memory import brute_overlap, brute_relation, byte_set, check_offsets

NBYTES = 512
DTYPES = [torch.uint8, torch.int16, torch.float32, torch.float64, torch.complex64]
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def layouts(draw: st.DrawFn, negative: bool = False) -> tuple[torch.dtype, tuple, tuple, int]:
    """(dtype, shape, element strides, offset in elements) that stay inside NBYTES."""
    dtype = draw(st.sampled_from(DTYPES))
    item = torch.empty(0, dtype=dtype).element_size()
    n_items = NBYTES // item
    ndim = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, 6), min_size=ndim, max_size=ndim)))
    low = -12 if negative else 0
    strides = tuple(draw(st.lists(st.integers(low, 24), min_size=ndim, max_size=ndim)))
    lo = sum(min(0, (n - 1) * s) for n, s in zip(shape, strides, strict=True) if n)
    hi = sum(max(0, (n - 1) * s) for n, s in zip(shape, strides, strict=True) if n)
    if hi - lo >= n_items:  # does not fit: shrink to a single element per dim
        shape = tuple(min(n, 1) for n in shape)
        lo = hi = 0
    offset = draw(st.integers(-lo, n_items - 1 - hi))
    return dtype, shape, strides, offset


def make_tensor(base: torch.Tensor, spec: tuple) -> torch.Tensor:
    dtype, shape, strides, offset = spec
    return torch.as_strided(base.view(dtype), shape, strides, offset)


def make_array(base: torch.Tensor, spec: tuple) -> np.ndarray:
    dtype, shape, strides, offset = spec
    flat = base.view(dtype).numpy()
    item = flat.itemsize
    if dtype == torch.complex64:
        flat = flat.view(np.complex64)
    return np.lib.stride_tricks.as_strided(
        flat[offset:], shape=shape, strides=tuple(s * item for s in strides), writeable=False
    )


@contextlib.contextmanager
def starved(on: bool) -> Iterator[None]:
    """Shrink every work limit so the slow, exact fallbacks answer instead."""
    if not on:
        yield
        return
    with (
        mock.patch.object(m, "_FIRST_TRY_CALLS", 0),
        mock.patch.object(m, "_RECURSION_CALLS", 1),
        mock.patch.object(m, "_VECTOR_RUNS", 3),
    ):
        yield


def _check(a: torch.Tensor | np.ndarray, b: torch.Tensor | np.ndarray) -> None:
    kind, shared = brute_relation(a, b)
    for on in (False, True):
        with starved(on):
            rel = m.relation(a, b)
            assert rel is not None
            assert (rel.kind, rel.shared_bytes) == (kind, shared), f"starved={on}"
            assert rel.a_bytes == len(byte_set(a))
            assert m.internal_overlap(a) == brute_overlap(a)


@SETTINGS
@given(layouts(), layouts())
def test_random_torch_layouts(sa: tuple, sb: tuple) -> None:
    base = torch.zeros(NBYTES, dtype=torch.uint8)
    a, b = make_tensor(base, sa), make_tensor(base, sb)
    check_offsets(a)
    _check(a, b)
    said = torch._debug_has_internal_overlap(a)
    if said in (0, 1):  # 2 means "don't know"; where torch knows, it must agree
        assert bool(said) == brute_overlap(a)


@SETTINGS
@given(layouts(negative=True), layouts(), st.booleans())
def test_random_numpy_and_mixed_layouts(sa: tuple, sb: tuple, mixed: bool) -> None:
    base = torch.zeros(NBYTES, dtype=torch.uint8)
    a = make_array(base, sa)
    b = make_tensor(base, sb) if mixed else make_array(base, sb)
    if a.size:
        check_offsets(a)
        _check(a, b)


@SETTINGS
@given(
    st.integers(1, 40),
    st.integers(1, 40),
    st.integers(1, 9),
    st.integers(1, 9),
    st.sampled_from([1, 2, 4]),
)
def test_interleaving_internal_overlap(n1: int, n2: int, s1: int, s2: int, item: int) -> None:
    """Two interleaving dims (as_strided with strides that are not nested): the case where
    torch answers "don't know"; checked in every exact method of the fold."""
    dtype = {1: torch.uint8, 2: torch.int16, 4: torch.float32}[item]
    base = torch.zeros(NBYTES * 8, dtype=torch.uint8).view(dtype)
    v = base.as_strided((n1, n2), (s1, s2))
    truth = brute_overlap(v)
    assert m.internal_overlap(v) == truth
    with mock.patch.object(m, "_BITMAP_UNITS", 0):  # force run enumeration + merge
        assert m.internal_overlap(v) == truth
    fp = m.footprint(v)
    starts, ends = fp.runs()
    expected = byte_set(v) - m.allocation(v).start  # type: ignore[operator]
    got = np.concatenate([np.arange(s, e) for s, e in zip(starts, ends, strict=True)])
    np.testing.assert_array_equal(got, expected)


@st.composite
def grid_views(draw: st.DrawFn) -> tuple[tuple, ...]:
    """Slices with steps (and a transpose) of a 3-d grid: many copies per level, so the
    periodic grouping of the lattice recursion is exercised, not just its base cases."""
    dims = []
    for n in (12, 18, 20):
        start = draw(st.integers(0, n - 1))
        stop = draw(st.integers(start, n))
        step = draw(st.integers(1, 5))
        dims.append((start, stop, step))
    return (*dims, draw(st.booleans()), draw(st.sampled_from([None, torch.uint8, torch.float64])))


def _grid_view(x: torch.Tensor, spec: tuple) -> torch.Tensor:
    *dims, transpose, dtype = spec
    v = x[tuple(slice(*d) for d in dims)]
    if transpose:
        v = v.transpose(0, 2)
    if dtype is not None and v.numel() and v.stride(-1) == 1:
        with contextlib.suppress(RuntimeError):  # offset or size not divisible: keep as is
            v = v.view(dtype)
    return v


@SETTINGS
@given(grid_views(), grid_views())
def test_random_grid_views(sa: tuple, sb: tuple) -> None:
    x = torch.zeros(12, 18, 20, dtype=torch.float32)
    _check(_grid_view(x, sa), _grid_view(x, sb))
