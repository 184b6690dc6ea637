"""The Values panel's heatmap at every zoom (qt/values_heatmap.py): a huge plane's preview marks
every NaN/Inf and spans the exact range; zoomed in, hover and cell numbers are the exact
elements at their true indices; the colour-range modes. Ground truth from NumPy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from PySide6 import QtCore, QtGui
from pytestqt.qtbot import QtBot

from tensor_explorer.core import preview
from tensor_explorer.qt import theme
from tensor_explorer.qt.values_panel import ValuesPanel
from tensor_explorer.qt.workers import wait_for_tasks

# the offscreen platform warns about propagateSizeHints whenever a top-level widget is shown
pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


@pytest.fixture
def panel(values_panel: ValuesPanel) -> ValuesPanel:
    return values_panel  # (tests/qt/conftest.py)


def _shown(panel: ValuesPanel, qtbot: QtBot, path: Path) -> np.ndarray:
    """The big file's array, memory-mapped, drawn in the panel on screen."""
    arr = np.load(path, mmap_mode="r")
    with qtbot.waitSignal(panel.plane_shown, timeout=10_000):
        panel.set_value("a", arr)
    panel.show()
    QtCore.QCoreApplication.processEvents()
    return arr


def _rgb(key: str) -> tuple[int, int, int]:
    c = QtGui.QColor(getattr(theme.current(), key))
    return c.red(), c.green(), c.blue()


def _zoom(p: ValuesPanel, r0: int, r1: int, c0: int, c1: int) -> None:
    """Show rows r0..r1-1 and columns c0..c1-1, where a user's wheel zoom would end up."""
    p.heat_item.getViewBox().setRange(xRange=(c0 - 0.5, c1 - 0.5), yRange=(r0 - 0.5, r1 - 0.5),
                                      padding=0)


def _hover(p: ValuesPanel, qtbot: QtBot, i: int, j: int,
           index: tuple[int, ...] | None = None) -> str:
    """Move the mouse over displayed row i, column j; the hover line once it names the
    element's ``index`` in the value (default: (i, j))."""
    vb = p.heat_item.getViewBox()
    p.heat_widget.scene().sigMouseMoved.emit(vb.mapViewToScene(QtCore.QPointF(j, i)))
    name = ", ".join(map(str, index or (i, j)))
    qtbot.waitUntil(lambda: p.hover.text().startswith(f"[{name}] = "), timeout=3000)
    return p.hover.text()


@pytest.fixture(scope="module")
def big_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[int, int]]]:
    """A 4096 x 4096 float32 .npy with NaNs placed between the elements a 1-in-9 sample reads."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal((4096, 4096), dtype=np.float32)
    nans = [(4, 4), (1000, 2001), (4090, 17)]
    for ij in nans:
        a[ij] = np.nan
    path = tmp_path_factory.mktemp("big") / "a.npy"
    np.save(path, a)
    return path, nans


def test_huge_plane_marks_every_nan_and_zoomed_in_shows_exact_elements(
        panel: ValuesPanel, qtbot: QtBot, big_file: tuple[Path, list[tuple[int, int]]]) -> None:
    path, nans = big_file
    arr = np.load(path, mmap_mode="r")
    with qtbot.waitSignal(panel.plane_shown, timeout=10_000):
        panel.set_value("a", arr)
    plane = panel.plane()
    assert plane is not None and plane.steps == (9, 9)
    assert not np.isnan(plane.data).any()  # the strided sample misses every NaN
    qtbot.waitUntil(lambda: panel.heatmap.summary is not None, timeout=30_000)

    # the preview: each NaN's cell is painted in the NaN colour, and only those
    overlay = panel.overlay.image
    assert overlay is not None and overlay.shape[:2] == plane.data.shape
    marked = {tuple(int(v) for v in ij) for ij in np.argwhere(overlay[..., 3] > 0)}
    assert marked == {(i // 9, j // 9) for i, j in nans}
    for i, j in nans:
        assert tuple(overlay[i // 9, j // 9, :3]) == _rgb("nan")
    # the colour range is the data's exact range, not the sample's
    lo, hi = float(np.nanmin(arr)), float(np.nanmax(arr))
    assert panel.colorbar.levels() == (lo, hi)
    assert tuple(panel.image.levels) == (lo, hi)
    assert f"{len(nans)} NaN in all" in panel.last_message()

    # zoom to 64 x 64 elements around a NaN: the region is read at full resolution
    panel.show()
    QtCore.QCoreApplication.processEvents()
    _zoom(panel, 980, 1044, 1990, 2054)
    qtbot.waitUntil(lambda: panel.heatmap.detail is not None, timeout=10_000)
    d = panel.heatmap.detail
    assert d is not None and d.steps == (1, 1) and d.data.size <= panel.max_cells
    r0, c0 = d.start(0), d.start(1)
    assert r0 <= 980 and c0 <= 1990
    assert r0 + d.data.shape[0] >= 1044 and c0 + d.data.shape[1] >= 2054
    np.testing.assert_array_equal(
        d.raw, arr[r0:r0 + d.data.shape[0], c0:c0 + d.data.shape[1]])
    assert "exact elements" in panel.last_message()
    for i, j in [(1000, 2001), (1000, 2000), (983, 1991), (1043, 2053), (1017, 2030)]:
        text = _hover(panel, qtbot, i, j)
        value = text.split(" = ", 1)[1]
        if np.isnan(arr[i, j]):
            assert value == "nan"
        else:
            assert np.float32(value) == arr[i, j], (text, arr[i, j])
    # the region's NaN is painted where it is, over its block's mark
    d_overlay = panel.heatmap.detail_overlay.image
    assert d_overlay is not None
    assert tuple(d_overlay[1000 - r0, 2001 - c0, :3]) == _rgb("nan")
    assert int((d_overlay[..., 3] > 0).sum()) == 1

    # closer still: each cell's number is the exact element at its true index
    _zoom(panel, 997, 1003, 1997, 2003)
    want = {(i, j) for i in range(997, 1003) for j in range(1997, 2003)}
    qtbot.waitUntil(lambda: want <= set(panel.shown_cell_labels()), timeout=5000)
    labels = panel.shown_cell_labels()
    assert len(labels) <= 64  # the cells in view, and the ones their edges touch
    for (i, j), text in labels.items():
        assert 996 <= i <= 1003 and 1996 <= j <= 2003
        assert text == preview.format_value(arr[i, j], arr.dtype)
    assert labels[(1000, 2001)] == "nan"
    assert panel.heatmap.detail is d  # still inside the region read: nothing read again

    # zoomed out again: back to the preview, no numbers
    _zoom(panel, 0, 4096, 0, 4096)
    qtbot.waitUntil(lambda: panel.heatmap.detail is None, timeout=5000)
    assert not panel.heatmap.detail_image.isVisible()
    qtbot.waitUntil(lambda: panel.shown_cell_labels() == {}, timeout=2000)
    assert "exact elements" not in panel.last_message()


def test_preview_cells_show_their_blocks_extremes(panel: ValuesPanel, qtbot: QtBot) -> None:
    a = np.zeros((40, 40))
    a[13, 27] = 100.0  # between samples (every 10th row and column)
    a[31, 5] = -50.0
    a[22, 22] = np.inf
    panel.max_cells = 16
    panel.set_value("a", a)
    plane = panel.plane()
    assert plane is not None and plane.steps == (10, 10) and plane.hi == 0.0
    qtbot.waitUntil(lambda: panel.heatmap.summary is not None, timeout=5000)
    assert panel.colorbar.levels() == (-50.0, 100.0)
    image = panel.image.image
    assert image[1, 2] == 100.0 and image[3, 0] == -50.0 and image[0, 0] == 0.0
    assert tuple(panel.overlay.image[2, 2, :3]) == _rgb("posinf")
    # hovering a preview cell names a real element and what its block holds
    panel.show()
    QtCore.QCoreApplication.processEvents()
    text = _hover(panel, qtbot, 10, 20)
    assert text.startswith("[10, 20] = 0") and "block [10–19, 20–29]: 0 to 100" in text
    # said again after new words or a new look, the block included (the pointer is still)
    panel.retranslate()
    assert panel.hover.text() == text
    theme.state().apply("dark")
    assert panel.hover.text() == text
    theme.state().apply("light")


def test_colour_range_modes(panel: ValuesPanel, qtbot: QtBot) -> None:
    rng = np.random.default_rng(3)
    a = rng.standard_normal((600, 700)) * 3 + 1  # 420k elements: a 1-in-2 preview
    a[rng.integers(0, 600, 20), rng.integers(0, 700, 20)] = np.nan
    with qtbot.waitSignal(panel.plane_shown, timeout=5000):
        panel.set_value("a", a)
    plane = panel.plane()
    assert plane is not None and plane.steps == (2, 2)
    qtbot.waitUntil(lambda: panel.heatmap.summary is not None, timeout=10_000)
    lo, hi = float(np.nanmin(a)), float(np.nanmax(a))
    assert panel.heatmap.levels_mode() == "minmax"
    assert panel.colorbar.levels() == (lo, hi)
    assert panel.heatmap.levels_box.isVisibleTo(panel)
    box = panel.heatmap.levels_box
    box.setCurrentIndex(box.findData("symmetric"))  # as the user picks it
    m = max(abs(lo), abs(hi))
    assert panel.heatmap.levels_mode() == "symmetric"
    assert panel.colorbar.levels() == (-m, m) and tuple(panel.image.levels) == (-m, m)
    box.setCurrentIndex(box.findData("percentile"))
    sample = a[::2, ::2]
    p1, p99 = np.percentile(sample[np.isfinite(sample)], [1, 99])
    assert panel.colorbar.levels() == (float(p1), float(p99))
    panel.heatmap.set_levels_mode("minmax")
    assert panel.colorbar.levels() == (lo, hi)
    assert box.currentData() == "minmax"
    # the chooser belongs to the heatmap only
    panel.set_value("v", np.arange(5.0))
    assert not box.isVisibleTo(panel)


def test_small_planes_are_exact_without_any_background_read(panel: ValuesPanel) -> None:
    a = np.arange(12.0).reshape(3, 4) - 5
    panel.set_value("a", a)
    assert not panel.heatmap.busy() and panel.heatmap.summary is None
    assert panel.colorbar.levels() == (-5.0, 6.0)
    panel.heatmap.set_levels_mode("symmetric")
    assert panel.colorbar.levels() == (-6.0, 6.0)
    panel.set_value("b", a)  # the mode is a choice of the panel's, kept across values
    assert panel.colorbar.levels() == (-6.0, 6.0)


def test_expanded_tensor_and_transposed_plane_zoom_to_exact_elements(
        panel: ValuesPanel, qtbot: QtBot) -> None:
    t = torch.arange(3000.0).reshape(3000, 1).expand(3000, 4000)  # 12M elements, no memory
    with qtbot.waitSignal(panel.plane_shown, timeout=10_000):
        panel.set_value("t", t)
    qtbot.waitUntil(lambda: panel.heatmap.summary is not None, timeout=10_000)
    assert panel.colorbar.levels() == (0.0, 2999.0)
    panel.set_axes(1, 0)  # transposed: rows are t's columns
    qtbot.waitUntil(lambda: panel.heatmap.summary is not None, timeout=10_000)
    panel.show()
    QtCore.QCoreApplication.processEvents()
    _zoom(panel, 100, 120, 2500, 2520)
    qtbot.waitUntil(lambda: panel.heatmap.detail is not None, timeout=10_000)
    text = _hover(panel, qtbot, 105, 2507, index=(2507, 105))
    assert text == "[2507, 105] = 2507.0"  # index into t: (row 2507, column 105)


def test_a_new_value_cancels_the_summary_and_region(panel: ValuesPanel, qtbot: QtBot) -> None:
    big = torch.zeros(1).expand(5000, 5000)
    with qtbot.waitSignal(panel.plane_shown, timeout=10_000):
        panel.set_value("big", big)
    panel.set_value("small", np.ones((2, 2)))
    assert not panel.heatmap.busy() and panel.heatmap.summary is None
    assert wait_for_tasks(10_000)
    QtCore.QCoreApplication.processEvents()
    assert panel.heatmap.summary is None and panel.plane() is not None
    assert panel.plane().shape == (2, 2)


def test_the_hover_line_follows_the_exact_read_under_a_still_pointer(
        panel: ValuesPanel, qtbot: QtBot, big_file: tuple[Path, list[tuple[int, int]]]) -> None:
    # seen in the real window: after a wheel zoom the line kept describing the preview cell
    # hovered during the zoom, under "zoomed in: exact elements"
    path, _nans = big_file
    arr = _shown(panel, qtbot, path)
    _zoom(panel, 300, 340, 600, 640)
    vb = panel.heat_item.getViewBox()
    panel.heat_widget.scene().sigMouseMoved.emit(vb.mapViewToScene(QtCore.QPointF(617, 321)))
    qtbot.waitUntil(lambda: panel.hover.text().startswith("[321, 617] = "), timeout=10_000)
    assert np.float32(panel.hover.text().split(" = ", 1)[1]) == arr[321, 617]


def test_between_the_preview_and_exact_elements_the_view_gets_a_finer_level(
        panel: ValuesPanel, qtbot: QtBot, big_file: tuple[Path, list[tuple[int, int]]]) -> None:
    # a pyramid made for the part in view: 600 x 600 elements do not fit the budget, but their
    # blocks of 3 x 3 do (the preview's are 9 x 9): detail and NaN marks sharpen on the way in
    path, _nans = big_file
    arr = _shown(panel, qtbot, path)
    _zoom(panel, 900, 1500, 1800, 2400)
    qtbot.waitUntil(lambda: panel.heatmap.mid is not None, timeout=20_000)
    assert panel.heatmap.detail is None  # not exact yet: 360,000 elements > the budget
    s, r0, c0 = panel.heatmap.mid
    assert s.steps == (3, 3) and r0 <= 900 and c0 <= 1800
    assert r0 + s.size[0] >= 1500 and c0 + s.size[1] >= 2400
    i, j = (1000 - r0) // 3, (2001 - c0) // 3  # the block holding the NaN
    rows, cols = s.block(i, j)
    block = arr[r0 + rows.start:r0 + rows.stop, c0 + cols.start:c0 + cols.stop]
    fin = block[np.isfinite(block)]
    assert (s.lo[i, j], s.hi[i, j], s.nan[i, j]) == (fin.min(), fin.max(), 1)
    overlay = panel.heatmap.mid_overlay.image
    assert tuple(overlay[i, j, :3]) == _rgb("nan")
    assert int((overlay[..., 3] > 0).sum()) == 1
    vb = panel.heat_item.getViewBox()
    panel.heat_widget.scene().sigMouseMoved.emit(vb.mapViewToScene(QtCore.QPointF(2001, 1000)))
    want = (f"block [{r0 + rows.start}–{r0 + rows.stop - 1}, "
            f"{c0 + cols.start}–{c0 + cols.stop - 1}]")
    qtbot.waitUntil(lambda: want in panel.hover.text(), timeout=3000)
    assert "1 NaN" in panel.hover.text()
    # only that block: not also the preview's sampled element, which lies elsewhere
    assert panel.hover.text().startswith(want)
    # zoomed out to the whole plane again: the finer level goes
    _zoom(panel, 0, 4096, 0, 4096)
    qtbot.waitUntil(lambda: panel.heatmap.mid is None, timeout=5000)


def test_nans_in_an_overview_are_seen_as_markers_of_a_few_pixels(
        panel: ValuesPanel, qtbot: QtBot, big_file: tuple[Path, list[tuple[int, int]]]) -> None:
    """#27 point 8: a 4096² array with a few NaNs said "N NaN in all", but each NaN cell was
    1–2 px: a handful of NaN-coloured pixels in the whole heatmap, none visible to the eye.
    Now each block holding a NaN gets a marker of a few pixels, at any zoom."""
    from tensor_explorer.qt.values_heatmap import MARK_PX

    path, nans = big_file
    _shown(panel, qtbot, path)
    panel.resize(700, 600)
    qtbot.waitUntil(lambda: panel.heatmap.summary is not None, timeout=30_000)
    QtCore.QCoreApplication.processEvents()
    marks = panel.heatmap.marks.positions()
    assert len(marks) == len(nans)
    for i, j in nans:  # a marker on each NaN's block (within the block of 9 x 9 elements)
        assert any(abs(x - j) < 9 and abs(y - i) < 9 for x, y in marks), (i, j)
    image = panel.heat_widget.grab().toImage()
    nan = QtGui.QColor(theme.current().nan)
    box = panel.heat_item.getViewBox()
    for x, y in marks:
        scene = box.mapViewToScene(QtCore.QPointF(x, y))
        at = panel.heat_widget.mapFromScene(scene)
        seen = sum(
            1 for dx in range(-MARK_PX, MARK_PX + 1) for dy in range(-MARK_PX, MARK_PX + 1)
            if QtGui.QColor(image.pixel(at.x() + dx, at.y() + dy)).rgb() == nan.rgb())
        edge = min(x, y, 4095 - x, 4095 - y) < 40  # (a corner's marker is cut by the view)
        assert seen >= (4 if edge else 9), (x, y, seen)  # a patch of the NaN colour
