"""Block summaries of huge planes (core/multiscale.py) against NumPy, block by block; region
reads of a plane (preview.slice_plane(region=...)) against NumPy slicing."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from tensor_explorer.core import multiscale, preview
from tensor_explorer.core.multiscale import BlockSummary
from tensor_explorer.core.stats import Cancelled


def reference(plane: np.ndarray, steps: tuple[int, int]) -> dict[str, np.ndarray]:
    """Each block's finite min/max and NaN/+Inf/-Inf counts, the obvious way, in float64."""
    a = np.asarray(plane, dtype=np.float64)
    h, w = a.shape
    sr, sc = steps
    nbr, nbc = math.ceil(h / sr), math.ceil(w / sc)
    out = {k: np.full((nbr, nbc), np.nan) for k in ("lo", "hi")}
    out |= {k: np.zeros((nbr, nbc), dtype=np.int64) for k in ("nan", "posinf", "neginf")}
    for i in range(nbr):
        for j in range(nbc):
            b = a[i * sr:(i + 1) * sr, j * sc:(j + 1) * sc]
            f = b[np.isfinite(b)]
            if f.size:
                out["lo"][i, j], out["hi"][i, j] = f.min(), f.max()
            out["nan"][i, j] = np.isnan(b).sum()
            out["posinf"][i, j] = np.isposinf(b).sum()
            out["neginf"][i, j] = np.isneginf(b).sum()
    return out


def check(s: BlockSummary, plane: np.ndarray, steps: tuple[int, int]) -> None:
    ref = reference(plane, steps)
    for key in ("lo", "hi", "nan", "posinf", "neginf"):
        np.testing.assert_array_equal(getattr(s, key), ref[key], err_msg=key)
    assert s.steps == steps and s.size == plane.shape


def _with_bad(rng: np.random.Generator, shape: tuple[int, int], dtype: type) -> np.ndarray:
    a = rng.standard_normal(shape).astype(dtype) * 10
    flat = a.reshape(-1)
    n = flat.size
    for v in (np.nan, np.inf, -np.inf):
        flat[rng.integers(0, n, size=max(1, n // 50))] = v
    return a


@pytest.mark.parametrize("seed", range(8))
def test_random_shapes_with_nan_inf_match_numpy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    shape = (int(rng.integers(1, 90)), int(rng.integers(1, 90)))
    steps = (int(rng.integers(1, 12)), int(rng.integers(1, 12)))
    dtype = (np.float32, np.float64, np.float16)[seed % 3]
    a = _with_bad(rng, shape, dtype)
    # small chunks: a block row is split between tiles and merged
    for chunk in (7, 64, 1 << 22):
        check(multiscale.summarise_view(a, steps, chunk=chunk), a, steps)


def test_a_block_of_only_nan_has_no_extremes_and_all_counts() -> None:
    a = np.ones((6, 6), dtype=np.float32)
    a[:3, :3] = np.nan
    a[5, 5] = np.inf
    s = multiscale.summarise_view(a, (3, 3))
    assert np.isnan(s.lo[0, 0]) and np.isnan(s.hi[0, 0])
    assert s.nan.tolist() == [[9, 0], [0, 0]] and s.posinf.tolist() == [[0, 0], [0, 1]]
    assert (s.min, s.max, s.nan_count, s.posinf_count, s.neginf_count) == (1.0, 1.0, 9, 1, 0)
    np.testing.assert_array_equal(s.shown(0.0), [[np.nan, 1], [1, 1]])


def test_a_nan_between_the_samples_of_a_strided_preview_is_found() -> None:
    a = np.zeros((4096, 4096), dtype=np.float32)
    plane = preview.slice_plane(a)
    assert plane.steps == (9, 9)
    a[4, 4] = np.nan  # the strided preview reads rows and columns 0, 9, 18, ...
    a[100, 2000] = 7.5
    a[3000, 5] = -6.25
    assert not np.isnan(preview.slice_plane(a).data).any()
    s = multiscale.summarise(a, plane.steps)
    assert s.nan.shape == plane.data.shape
    assert s.nan[0, 0] == 1 and s.nan_count == 1
    assert (s.min, s.max) == (float(np.nanmin(a)), float(np.nanmax(a)))
    assert s.hi[100 // 9, 2000 // 9] == 7.5 and s.lo[3000 // 9, 0] == -6.25


def test_shown_picks_the_extreme_further_from_the_centre() -> None:
    a = np.array([[1.0, 9.0], [4.0, 5.0]])
    s = multiscale.summarise_view(a, (1, 2))  # blocks: (1, 9) and (4, 5)
    np.testing.assert_array_equal(s.shown(5.0), [[9.0], [4.0]])
    np.testing.assert_array_equal(s.shown(0.0), [[9.0], [5.0]])
    np.testing.assert_array_equal(s.shown(10.0), [[1.0], [4.0]])


def test_strided_negative_stride_and_transposed_views() -> None:
    rng = np.random.default_rng(1)
    base = _with_bad(rng, (60, 80), np.float32)
    for view in (base[::2, 1::3], base[::-1, ::-2], base.T, np.asfortranarray(base)):
        check(multiscale.summarise_view(view, (4, 5), chunk=100), view, (4, 5))
    t = torch.from_numpy(base)
    for tv in (t[::2, 1::3], t.t(), t[:, 10:70]):
        check(multiscale.summarise_view(tv, (3, 7), chunk=50), tv.numpy(), (3, 7))


def test_transposed_plane_of_an_nd_value_matches_slice_plane() -> None:
    rng = np.random.default_rng(2)
    a = _with_bad(rng, (3, 40, 50), np.float64)
    plane = preview.slice_plane(a, axes=(2, 1), index={0: 2}, max_cells=100)
    s = multiscale.summarise(a, plane.steps, axes=(2, 1), index={0: 2})
    check(s, a[2].T, plane.steps)
    assert s.lo.shape == plane.data.shape


def test_memory_mapped_input(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    a = _with_bad(rng, (301, 257), np.float32)
    np.save(tmp_path / "a.npy", a)
    mm = np.load(tmp_path / "a.npy", mmap_mode="r")
    check(multiscale.summarise(mm, (10, 9), chunk=4096), a, (10, 9))
    big_endian = a.astype(">f4")
    check(multiscale.summarise_view(big_endian, (10, 9)), a, (10, 9))


def test_expanded_tensors_are_read_once_and_counted_right() -> None:
    row = torch.tensor([1.0, float("nan"), -3.0, float("inf"), 2.0])
    huge = row.expand(10**9, 5)  # 5e9 elements, one row of memory
    s = multiscale.summarise_view(huge, (10**8, 2))
    assert s.lo.shape == (10, 3)
    assert s.lo[:, 0].tolist() == [1.0] * 10 and s.hi[:, 2].tolist() == [2.0] * 10
    assert s.lo[:, 1].tolist() == [-3.0] * 10
    assert s.nan[:, 0].tolist() == [10**8] * 10 and s.posinf[0, 1] == 10**8
    small = torch.arange(7.0)[:, None].expand(7, 11)
    check(multiscale.summarise_view(small, (3, 4)), small.numpy(), (3, 4))
    check(multiscale.summarise_view(torch.tensor(5.0).expand(5, 6), (2, 4)),
          np.full((5, 6), 5.0), (2, 4))


def test_ints_bools_complex_and_bfloat16() -> None:
    ints = np.arange(-50, 50, dtype=np.int16).reshape(10, 10)
    check(multiscale.summarise_view(ints, (3, 4)), ints, (3, 4))
    bools = np.eye(9, dtype=bool)
    check(multiscale.summarise_view(bools, (4, 4)), bools, (4, 4))
    z = (np.arange(30) + 1j * np.arange(30)[::-1]).reshape(5, 6)
    s = multiscale.summarise(z, (2, 2), part="imag")
    check(s, z.imag, (2, 2))
    check(multiscale.summarise(z, (2, 2)), np.abs(z), (2, 2))
    bf = torch.randn(20, 30).to(torch.bfloat16)
    check(multiscale.summarise_view(bf, (7, 7)), bf.float().numpy(), (7, 7))


def test_progress_and_cancel() -> None:
    a = np.zeros((100, 100), dtype=np.float32)
    seen: list[float] = []
    multiscale.summarise_view(a, (10, 10), progress=seen.append, chunk=1000)
    assert seen and seen[-1] == 1.0 and seen == sorted(seen)
    with pytest.raises(Cancelled):
        multiscale.summarise_view(a, (10, 10), cancel=lambda: True)


def test_region_reads_exact_elements_with_their_true_indices() -> None:
    a = np.arange(50 * 60, dtype=np.float32).reshape(50, 60)
    p = preview.slice_plane(a, region=[(10, 14), (20, 25)])
    np.testing.assert_array_equal(p.raw, a[10:14, 20:25])
    assert p.origin == (10, 20) and p.steps == (1, 1)
    assert p.original_index(0, 0) == (10, 20) and p.original_index(3, 4) == (13, 24)
    assert p.positions(0).tolist() == [10, 11, 12, 13]
    t = torch.from_numpy(np.arange(2 * 50 * 60, dtype=np.float64).reshape(2, 50, 60))
    q = preview.slice_plane(t, axes=(2, 1), index={0: 1}, region=[(5, 8), (40, 43)])
    np.testing.assert_array_equal(q.raw, t[1].numpy().T[5:8, 40:43])
    assert q.original_index(2, 1) == (1, 41, 7)
    with pytest.raises(ValueError, match="region"):
        preview.slice_plane(a, region=[(0, 100), (0, 5)])


def test_core_does_not_import_qt() -> None:
    code = ("import sys; import tensor_explorer.core.multiscale; "
            "print([m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph'))])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("transpose", [False, True])
def test_a_region_is_summarised_from_its_own_corner(transpose: bool) -> None:
    rng = np.random.default_rng(3)
    a = rng.standard_normal((300, 200)).astype(np.float32)
    a[123, 45] = np.nan
    a[200, 150] = -np.inf
    shown = a.T if transpose else a
    axes = (1, 0) if transpose else (0, 1)
    r0, r1, c0, c1 = (30, 160, 100, 230) if transpose else (100, 230, 40, 170)
    s = multiscale.summarise(a, (4, 5), axes=axes, region=[(r0, r1), (c0, c1)])
    part = shown[r0:r1, c0:c1]
    assert s.size == part.shape and s.lo.shape == (-(-part.shape[0] // 4), -(-part.shape[1] // 5))
    for i in range(s.lo.shape[0]):
        for j in range(s.lo.shape[1]):
            rows, cols = s.block(i, j)
            block = part[rows, cols]
            fin = block[np.isfinite(block)]
            assert s.lo[i, j] == fin.min() and s.hi[i, j] == fin.max()
            assert s.nan[i, j] == np.isnan(block).sum()
            assert s.neginf[i, j] == np.isneginf(block).sum()
    assert (s.nan_count, s.neginf_count) == (np.isnan(part).sum(), np.isneginf(part).sum())


def test_a_region_is_checked_as_slice_plane_checks_it() -> None:
    a = np.arange(50 * 60, dtype=np.float32).reshape(50, 60)
    for bad in ([(0, 100), (0, 5)], [(30, 10), (0, 5)], [(0, 5)]):
        with pytest.raises(ValueError, match="region"):
            multiscale.summarise(a, (2, 2), region=bad)
        with pytest.raises(ValueError, match="region"):
            preview.slice_plane(a, region=bad)
    s = multiscale.summarise(a, (2, 2), region=[(10, 20), (4, 10)])
    assert s.size == (10, 6)
