"""core/preview: planes and previews against NumPy ground truth; formats; in-place writes."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from tensor_explorer.core import preview as P

# ---------------------------------------------------------------------------- choose_steps


@given(st.lists(st.integers(1, 10**7), min_size=0, max_size=4), st.integers(1, 10**6))
# (found by this test: a 2 x 10**7 value with a budget of 1 cell used to take 10**7 steps)
@settings(max_examples=200, deadline=None)
def test_choose_steps_fits_the_budget(shape: list[int], budget: int) -> None:
    steps = P.choose_steps(shape, budget)
    cells = math.prod(-(-n // s) for n, s in zip(shape, steps, strict=True))
    assert cells <= max(budget, 1) or (all(s == 1 for s in steps) and math.prod(shape) <= budget)
    assert all(s >= 1 for s in steps)


def test_choose_steps_keeps_small_axes_whole_and_cells_square() -> None:
    assert P.choose_steps((3, 10**9), 250_000)[0] == 1
    assert P.choose_steps((10_000, 20_000), 250_000) == (29, 29)
    assert P.choose_steps((40, 50), 250_000) == (1, 1)


# ---------------------------------------------------------------------------- downsample


@pytest.mark.parametrize("shape", [(7,), (1000,), (37, 53), (300, 7), (5, 6, 7)])
@pytest.mark.parametrize("max_cells", [1, 10, 100, 10_000])
def test_downsample_picks_exactly_the_elements_it_claims(shape: tuple[int, ...],
                                                         max_cells: int) -> None:
    a = np.random.default_rng(0).standard_normal(shape)
    s = P.downsample(a, max_cells=max_cells)
    assert s.values.size <= max(max_cells, 1)
    grids = np.meshgrid(*[s.positions(d) for d in range(a.ndim)], indexing="ij")
    np.testing.assert_array_equal(s.values, a[tuple(grids)])
    t = P.downsample(torch.from_numpy(a), max_cells=max_cells)
    np.testing.assert_array_equal(t.values, s.values)
    assert t.steps == s.steps


def test_downsample_negative_strides_big_endian_and_transposes() -> None:
    a = np.arange(40 * 60, dtype=">f4").reshape(40, 60)[::-1, ::-2].T
    s = P.downsample(a, max_cells=200)
    rows, cols = s.positions(0), s.positions(1)
    np.testing.assert_array_equal(s.values, a[np.ix_(rows, cols)])
    assert s.values.dtype.isnative


def test_downsample_of_huge_expanded_tensor_is_instant() -> None:
    big = torch.arange(7.0).reshape(7, 1).expand(7, 10**12 // 7 + 1)  # ~10^12 elements
    s = P.downsample(big, max_cells=10_000)  # reading every element would never end
    assert s.values.size <= 10_000
    np.testing.assert_array_equal(s.values[:, 0], np.arange(7.0))  # 7 rows kept whole


def _resident_mib() -> float:
    """This process's resident memory (Linux; 0 elsewhere)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def test_downsample_reads_a_memory_map_without_loading_it(tmp_path: Path) -> None:
    path = tmp_path / "big.npy"
    mm = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(8192, 8192))
    mm[::512, ::512] = 7.0  # 256 MiB of sparse file; only these elements are non-zero
    mm.flush()
    del mm
    ro = np.load(path, mmap_mode="r")
    before = _resident_mib()
    s = P.downsample(ro, max_cells=256)
    assert _resident_mib() - before < 64  # 256 sampled pages, not the 256 MiB behind them
    assert s.steps == (512, 512) and (s.values == 7.0).all()
    assert P.needs_background(ro[:10, :10])  # mapped: previews go off the UI thread


@pytest.mark.parametrize("dtype", [torch.bool, torch.int8, torch.uint8, torch.int64,
                                   torch.float16, torch.bfloat16, torch.float64,
                                   torch.complex64, torch.complex128, torch.uint16])
def test_downsample_every_dtype(dtype: torch.dtype) -> None:
    t = (torch.arange(300).reshape(20, 15) % 7).to(dtype)
    s = P.downsample(t, max_cells=50)
    ref = t[:: s.steps[0], :: s.steps[1]]
    if dtype == torch.bfloat16:
        ref = ref.float()
    np.testing.assert_array_equal(s.values, ref.numpy())


def test_downsample_progress_and_cancel() -> None:
    a = np.zeros((1000, 1000))
    seen: list[float] = []
    P.downsample(a, max_cells=10**6, progress=seen.append)
    assert seen and seen[-1] == 1.0 and seen == sorted(seen)
    with pytest.raises(P.Cancelled):
        P.downsample(a, max_cells=10**6, cancel=lambda: True)


def test_downsample_of_a_plane_is_a_subset() -> None:
    a = np.random.default_rng(1).standard_normal((64, 48))
    plane = P.slice_plane(a, max_cells=10**6)
    small = P.downsample(plane, max_cells=100)
    assert small.data.size <= 100
    for i in range(small.data.shape[0]):
        for j in range(small.data.shape[1]):
            assert small.data[i, j] == a[small.original_index(i, j)]


@pytest.mark.cuda
def test_downsample_cuda_moves_only_the_sample() -> None:
    t = torch.randn(4096, 4096, device="cuda")
    s = P.downsample(t, max_cells=1024)
    np.testing.assert_array_equal(s.values, t[:: s.steps[0], :: s.steps[1]].cpu().numpy())


# ---------------------------------------------------------------------------- slice_plane


def test_slice_plane_matches_numpy_for_every_axis_choice() -> None:
    a = np.random.default_rng(2).standard_normal((3, 4, 5, 6))
    t = torch.from_numpy(a)
    for rows in range(4):
        for cols in range(4):
            if rows == cols:
                continue
            others = [x for x in range(4) if x not in (rows, cols)]
            index = {others[0]: 1, others[1]: 2}
            plane = P.slice_plane(t, axes=(rows, cols), index=index)
            key = [slice(None)] * 4
            for ax, i in index.items():
                key[ax] = i
            expect = a[tuple(key)]
            if rows > cols:
                expect = expect.T
            np.testing.assert_array_equal(plane.data, expect)
            assert plane.index == index and plane.axes == (rows, cols)
            assert a[plane.original_index(2, 1)] == plane.data[2, 1]


def test_slice_plane_defaults_and_ranks() -> None:
    assert P.slice_plane(torch.tensor(2.5)).data == 2.5
    p1 = P.slice_plane(np.arange(5))
    assert p1.axes == (0,) and p1.kind == "int" and p1.raw.dtype == np.int64
    p3 = P.slice_plane(torch.arange(24).reshape(2, 3, 4), index={0: -1})
    np.testing.assert_array_equal(p3.raw, np.arange(12, 24).reshape(3, 4))
    with pytest.raises(ValueError, match="out of range"):
        P.slice_plane(torch.zeros(2, 3, 4), index={0: 2})
    with pytest.raises(ValueError, match="axes"):
        P.slice_plane(torch.zeros(2, 3), axes=(0, 0))


def test_slice_plane_masks_and_range() -> None:
    a = np.array([[1.0, np.nan], [np.inf, -np.inf]])
    p = P.slice_plane(a)
    assert p.nan.tolist() == [[False, True], [False, False]]
    assert p.posinf.tolist() == [[False, False], [True, False]]
    assert p.neginf.tolist() == [[False, False], [False, True]]
    assert (p.lo, p.hi) == (1.0, 1.0)
    assert P.slice_plane(np.array([np.nan])).lo is None


def test_slice_plane_complex_parts() -> None:
    z = torch.tensor([[3 + 4j, -1j], [complex(math.nan, 1), 2]], dtype=torch.complex64)
    raw = z.numpy()
    np.testing.assert_allclose(P.slice_plane(z, part="magnitude").data, np.abs(raw))
    np.testing.assert_allclose(P.slice_plane(z, part="phase").data, np.angle(raw))
    np.testing.assert_array_equal(P.slice_plane(z, part="real").data, raw.real)
    np.testing.assert_array_equal(P.slice_plane(z, part="imag").data, raw.imag)
    assert P.slice_plane(z).raw.dtype == np.complex64
    assert P.slice_plane(z).nan[1, 0]
    with pytest.raises(ValueError, match="part"):
        P.slice_plane(z, part="angle")


def test_slice_plane_conj_and_neg_views_and_grad() -> None:
    z = torch.tensor([1 + 2j, 3 - 1j])
    np.testing.assert_array_equal(P.slice_plane(z.conj(), part="imag").data, [-2.0, 1.0])
    w = torch.ones(3, requires_grad=True)
    p = P.slice_plane(w * 2)
    assert p.data.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (torch.empty(3, 4, device="meta"), "meta tensor"),
        (torch.zeros(0, 3), "empty"),
        (np.zeros((2, 0)), "empty"),
        (torch.eye(3).to_sparse(), "sparse"),
        (np.zeros(2, dtype=[("a", "f4"), ("b", "i2")]), "a record with the fields a, b"),
        (np.array([object()]), "not numbers"),
        ([1, 2, 3], "not a tensor"),
    ],
)
def test_unshowable_values_get_plain_messages(value: object, words: str) -> None:
    with pytest.raises(P.PreviewError, match=words):
        P.slice_plane(value)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- formats


@pytest.mark.parametrize(
    ("x", "dtype", "text"),
    [
        (3, "int64", "3"),
        (2**62 + 1, "int64", str(2**62 + 1)),
        (np.uint64(2**64 - 1), "uint64", str(2**64 - 1)),
        (True, "bool", "True"),
        (np.bool_(False), None, "False"),
        (1 / 3, "float64", "0.333333"),
        (1e-9, "float32", "1e-09"),
        (-0.0, "float32", "0"),
        (math.nan, "float32", "nan"),
        (math.inf, "float16", "inf"),
        (-math.inf, "float64", "-inf"),
        (1 + 2j, "complex64", "1+2j"),
        (1.5 - 0.25j, None, "1.5-0.25j"),
        (complex(math.nan, -math.inf), torch.complex64, "nan-infj"),
        (torch.tensor(7), torch.int32, "7"),
    ],
)
def test_format_value(x: object, dtype: object, text: str) -> None:
    assert P.format_value(x, dtype) == text


def test_choose_format_aligns_a_column() -> None:
    fmt = P.choose_format(np.array([1.5, -2.25, 100.0, np.nan]), "float")
    assert [fmt.format(v) for v in (1.5, -2.25, 100.0, np.nan)] == ["1.50", "-2.25", "100.00",
                                                                    "nan"]
    sci = P.choose_format(np.array([1e-7, 2.5e8]), "float")
    assert sci.style == "sci" and sci.format(2.5e8) == "2.5e+08"
    assert P.choose_format(np.array([1, 2]), "int").format(np.int64(-3)) == "-3"
    assert P.choose_format(np.array([True]), "bool").format(np.bool_(True)) == "True"


# ---------------------------------------------------------------------------- writing


def test_write_element_changes_every_alias() -> None:
    a = np.zeros((2, 3), dtype=np.float32)
    t = torch.from_numpy(a)
    P.write_element(a, (1, 2), 5.0)
    assert t[1, 2].item() == 5.0
    version = t._version
    P.write_element(t, (0, 0), -1.0)
    assert a[0, 0] == -1.0 and t._version == version + 1


def test_write_element_to_non_leaf_runs_without_grad() -> None:
    w = torch.ones(3, requires_grad=True)
    y = w * 2
    P.write_element(y, (0,), 7.0)
    assert y[0].item() == 7.0


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda: torch.ones(3, requires_grad=True), "leaf tensor that requires grad"),
        (lambda: torch.ones(3, 3, requires_grad=True)[0], "view of a leaf"),
        (lambda: torch.ones(1).expand(4), "share the same memory"),
        (lambda: np.broadcast_to(np.ones(3), (2, 3)), "read-only"),
        (lambda: np.lib.stride_tricks.as_strided(np.ones(4), (3, 2), (8, 8), writeable=True),
         "share the same memory"),
        (lambda: torch.empty(2, device="meta"), "meta"),
    ],
)
def test_write_refusals_are_plain(make: object, words: str) -> None:
    value = make()  # type: ignore[operator]
    with pytest.raises(P.WriteRefused, match=words):
        P.write_element(value, (0,) * value.ndim, 1.0)


def test_inference_tensors_are_refused() -> None:
    with torch.inference_mode():
        t = torch.ones(2)
    assert "inference" in (P.write_refusal(t) or "")


def test_read_only_memory_map_is_refused(tmp_path: Path) -> None:
    np.save(tmp_path / "a.npy", np.ones(4))
    ro = np.load(tmp_path / "a.npy", mmap_mode="r")
    assert "read-only" in (P.write_refusal(ro) or "")


@pytest.mark.parametrize(
    ("text", "dtype", "value"),
    [
        ("true", torch.bool, True), ("0", "bool", False), ("12", torch.int8, 12),
        ("3.0", "int32", 3), ("nan", torch.float32, math.inf * 0), ("-inf", "float64", -math.inf),
        ("1+2i", torch.complex64, 1 + 2j), (" 2.5 ", "float16", 2.5),
    ],
)
def test_parse_value(text: str, dtype: object, value: object) -> None:
    got = P.parse_value(text, dtype)
    if isinstance(value, float) and math.isnan(value):
        assert math.isnan(got)  # type: ignore[arg-type]
    else:
        assert got == value and type(got) is type(value)


@pytest.mark.parametrize(
    ("text", "dtype", "words"),
    [("300", torch.uint8, "does not fit"), ("1.5", "int64", "whole number"),
     ("abc", torch.float32, "not a number"), ("maybe", "bool", "not a bool"), ("", "int8", "type")],
)
def test_parse_value_errors(text: str, dtype: object, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        P.parse_value(text, dtype)


def test_preview_module_imports_no_qt() -> None:
    import subprocess
    import sys

    code = ("import sys, tensor_explorer.core.preview\n"
            "print([m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph', "
            "'tensor_explorer.qt'))])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_dates_durations_and_strings_are_spelled_and_dates_drawn_as_integers() -> None:
    when = np.array(["2024-01-31T12:00", "NaT", "1969-07-20T20:17"], dtype=">M8[m]")
    plane = P.slice_plane(when)
    ints = when.astype("<M8[m]").view(np.int64)
    assert plane.kind == "datetime" and plane.data[0] == ints[0] and plane.data[2] == ints[2]
    assert plane.nan.tolist() == [False, True, False]  # NaT is marked as NaN is
    assert [P.format_value(x, when.dtype) for x in when] == [
        "2024-01-31T12:00", "NaT", "1969-07-20T20:17"]
    took = np.array([1500, np.timedelta64("NaT")], dtype="m8[ms]")
    assert P.choose_format(took, "timedelta").format(took[0]) == "1500 milliseconds"
    assert P.format_value(np.str_("漢字"), np.dtype("<U2")) == "漢字"
    assert P.format_value(np.bytes_(b"\xff"), np.dtype("S1")) == "b'\\xff'"
    assert P.write_refusal(when.copy()) is not None
    assert P.dtype_kind(np.dtype("U3")) == "text" and P.dtype_kind(np.dtype("m8[s]")) == "timedelta"
