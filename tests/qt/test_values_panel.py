"""Values panel: what it shows for every rank and kind, n-d controls, the table and its edits,
background previews, bad values, theme changes, and screenshots that are not blank."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import torch
from PySide6 import QtCore, QtGui, QtWidgets
from pytestqt.qtbot import QtBot

from tensor_explorer.core import preview
from tensor_explorer.qt import theme
from tensor_explorer.qt.values_panel import ValuesPanel
from tensor_explorer.qt.workers import wait_for_tasks
from tests.qt.pixels import assert_drawn, count_near

# The offscreen platform warns that it "does not support propagateSizeHints()" whenever a
# top-level widget is shown (the screenshot and hover tests show the panel); that is the test
# platform speaking, not the panel. Every other Qt warning still fails these tests when run
# with qt_log_level_fail=WARNING.
pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


def _light() -> None:
    """Back to the light theme at normal scale (restyling the app is slow: only if needed)."""
    s = theme.state()
    if s.theme is not theme.LIGHT or s.scale != 1.0:
        s.apply("light", 1.0)


@pytest.fixture
def panel(values_panel: ValuesPanel) -> Iterator[ValuesPanel]:
    yield values_panel  # (tests/qt/conftest.py)
    _light()


def _cell_colour(p: ValuesPanel, i: int, j: int) -> QtGui.QColor:
    """Colour of heatmap cell (i, j) in a grab of the whole panel."""
    vb = p.heat_item.getViewBox()
    scene_pt = vb.mapViewToScene(QtCore.QPointF(j, i))
    view_pt = p.heat_widget.mapFromScene(scene_pt)
    panel_pt = p.heat_widget.mapTo(p, view_pt)
    return p.grab().toImage().pixelColor(panel_pt)


# ---------------------------------------------------------------------------- ranks


def test_scalar_is_a_big_number(panel: ValuesPanel) -> None:
    panel.set_value("pi", torch.tensor(3.14159265))
    assert panel.current_view() == "scalar"
    assert "3.14159" in panel.scalar.text()
    assert "pi" in panel.title.text()
    panel.set_value("n", np.array(2**62 + 1, dtype=np.int64))
    assert str(2**62 + 1) in panel.scalar.text()
    panel.set_value("g", np.float32(0.5))  # a NumPy scalar, not an array
    assert panel.current_view() == "scalar" and panel.scalar.text() == "0.5"


def test_scalar_nan_is_drawn_in_the_nan_colour(panel: ValuesPanel) -> None:
    panel.set_value("bad", torch.tensor(math.nan))
    assert "nan" in panel.scalar.text()
    assert theme.current().nan in panel.scalar.styleSheet()


def test_vector_is_a_line_plot_with_non_finite_points_marked(panel: ValuesPanel) -> None:
    y = torch.linspace(-1, 1, 50)
    y[10], y[20], y[30] = math.nan, math.inf, -math.inf
    panel.set_value("y", y)
    assert panel.current_view() == "plot"
    xs, ys = panel.curve.getData()
    np.testing.assert_array_equal(xs, np.arange(50))
    finite = np.isfinite(y.numpy())
    np.testing.assert_allclose(ys[finite], y.numpy()[finite])
    assert np.isnan(ys[~finite]).all()  # the line breaks at them
    marks = panel.marks.data
    assert sorted(int(x) for x in marks["x"]) == [10, 20, 30]
    msg = panel.last_message()
    assert "1 NaN" in msg and "1 +Inf" in msg and "1 −Inf" in msg


def test_matrix_is_a_heatmap_with_colour_bar_and_nan_overlay(panel: ValuesPanel) -> None:
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    a[1, 2] = np.nan
    a[2, 3] = np.inf
    panel.set_value("a", a)
    assert panel.current_view() == "heatmap"
    image = panel.image.image
    finite = np.isfinite(a)
    np.testing.assert_array_equal(image[finite], a[finite])
    assert panel.colorbar.levels() == (0.0, 10.0)  # finite range: 11 became +inf
    overlay = panel.overlay.image
    assert overlay.shape == (3, 4, 4)
    np.testing.assert_array_equal(overlay[..., 3] > 0, ~finite)
    nan = QtGui.QColor(theme.current().nan)
    assert tuple(overlay[1, 2, :3]) == (nan.red(), nan.green(), nan.blue())
    posinf = QtGui.QColor(theme.current().posinf)
    assert tuple(overlay[2, 3, :3]) == (posinf.red(), posinf.green(), posinf.blue())


def test_nan_cell_is_painted_in_the_nan_colour_on_screen(panel: ValuesPanel) -> None:
    a = np.zeros((4, 4))
    a[1, 2] = np.nan
    panel.set_value("a", a)
    panel.show()
    QtCore.QCoreApplication.processEvents()
    assert _cell_colour(panel, 1, 2) == QtGui.QColor(theme.current().nan)
    assert _cell_colour(panel, 2, 2) != QtGui.QColor(theme.current().nan)


def test_hover_shows_the_true_index_and_value(panel: ValuesPanel, qtbot: QtBot) -> None:
    a = np.arange(100 * 100, dtype=np.float32).reshape(100, 100)
    panel.max_cells = 100  # every 10th row and column
    panel.set_value("a", a)
    plane = panel.plane()
    assert plane is not None and plane.steps == (10, 10)
    assert "1 of every 10 rows and 1 of every 10 columns of 100 × 100" in panel.last_message()
    assert panel.cell_text(3, 4) == f"[30, 40] = {a[30, 40]:g}"
    panel.show()
    QtCore.QCoreApplication.processEvents()
    vb = panel.heat_item.getViewBox()
    panel.heat_widget.scene().sigMouseMoved.emit(vb.mapViewToScene(QtCore.QPointF(40, 30)))
    qtbot.waitUntil(lambda: panel.hover.text().startswith("[30, 40] = "), timeout=2000)


# ---------------------------------------------------------------------------- n-d


def test_4d_has_a_slider_per_extra_axis_and_they_move_the_plane(panel: ValuesPanel) -> None:
    t = torch.arange(2 * 3 * 4 * 5, dtype=torch.float32).reshape(2, 3, 4, 5)
    panel.set_value("t", t)
    assert panel.current_view() == "heatmap"
    assert sorted(panel.sliders) == [0, 1]
    assert panel.sliders[0].maximum() == 1 and panel.sliders[1].maximum() == 2
    np.testing.assert_array_equal(panel.image.image, t[0, 0].numpy())
    panel.sliders[1].setValue(2)
    np.testing.assert_array_equal(panel.image.image, t[0, 2].numpy())
    panel.set_index(0, 1)
    np.testing.assert_array_equal(panel.image.image, t[1, 2].numpy())
    assert "t[1, 2, :, :]" in panel.last_message()
    assert "index 2 of 0–2" in panel._slider_labels[1].text()


def test_choosing_displayed_axes(panel: ValuesPanel) -> None:
    t = torch.randn(2, 3, 4, 5)
    panel.set_value("t", t)
    panel.set_axes(0, 2)
    assert panel.axes() == (0, 2) and sorted(panel.sliders) == [1, 3]
    np.testing.assert_array_equal(panel.image.image, t[:, 0, :, 0].numpy())
    panel.set_axes(3, 1)  # transposed
    np.testing.assert_array_equal(panel.image.image, t[0, :, 0, :].numpy().T)
    # through the combo boxes: picking the other box's axis swaps them
    panel.col_axis_box.setCurrentIndex(3)
    panel.col_axis_box.activated.emit(3)
    assert panel.axes() == (1, 3)
    np.testing.assert_array_equal(panel.image.image, t[0, :, 0, :].numpy())
    with pytest.raises(ValueError):
        panel.set_axes(1, 1)


def test_2d_axis_boxes_transpose(panel: ValuesPanel) -> None:
    a = np.arange(6.0).reshape(2, 3)
    panel.set_value("a", a)
    assert not panel.slider_box.isVisibleTo(panel)
    panel.set_axes(1, 0)
    np.testing.assert_array_equal(panel.image.image, a.T)


# ---------------------------------------------------------------------------- kinds


def test_bool_and_int_heatmaps(panel: ValuesPanel) -> None:
    panel.set_value("mask", torch.eye(3, dtype=torch.bool))
    assert panel.colorbar.levels() == (0.0, 1.0)
    np.testing.assert_array_equal(panel.image.image, np.eye(3))
    assert "1 = True" in panel.last_message()
    assert panel.cell_text(0, 0) == "[0, 0] = True"
    panel.set_mode("table")
    assert panel.model.data(panel.model.index(0, 0)) == "True"
    assert panel.model.data(panel.model.index(0, 1)) == "False"
    big = np.array([[2**53 + 1, -7]], dtype=np.int64)
    panel.set_value("big", big)
    assert panel.model.data(panel.model.index(0, 0)) == str(2**53 + 1)


def test_complex_parts(panel: ValuesPanel) -> None:
    z = torch.tensor([[3 + 4j, -2j], [1 + 0j, -1 - 1j]], dtype=torch.complex64)
    panel.set_value("z", z)
    assert panel.part_box.isVisibleTo(panel)
    np.testing.assert_allclose(panel.image.image, np.abs(z.numpy()))
    for i, part in enumerate(preview.PARTS):
        panel.part_box.setCurrentIndex(i)
        expect = {"magnitude": np.abs, "phase": np.angle, "real": np.real,
                  "imag": np.imag}[part](z.numpy())
        np.testing.assert_allclose(panel.image.image, expect, rtol=1e-6)
    assert "imaginary part" in panel.cell_text(0, 0)
    panel.set_mode("table")
    assert panel.model.data(panel.model.index(0, 0)) == "3+4j"
    assert panel.model.data(panel.model.index(1, 1)) == "-1-1j"
    panel.set_value("r", torch.ones(2, 2))
    assert not panel.part_box.isVisibleTo(panel)


def test_float16_bfloat16_and_negative_strides(panel: ValuesPanel) -> None:
    panel.set_value("h", torch.tensor([[1.5, 2.0]], dtype=torch.bfloat16))
    np.testing.assert_array_equal(panel.image.image, [[1.5, 2.0]])
    a = np.arange(20.0).reshape(4, 5)[::-1, ::-2]
    panel.set_value("rev", a)
    np.testing.assert_array_equal(panel.image.image, a)


# ---------------------------------------------------------------------------- table


def test_table_shows_the_plane_with_aligned_formats(panel: ValuesPanel) -> None:
    a = np.array([[1.5, 1e-7], [-2.25, np.nan], [100.0, -np.inf]])
    panel.set_value("a", a)
    panel.mode_box.setCurrentIndex(1)
    assert panel.mode() == "table" and panel.current_view() == "table"
    m = panel.model
    assert (m.rowCount(), m.columnCount()) == (3, 2)
    col0 = [m.data(m.index(r, 0)) for r in range(3)]
    assert col0 == ["1.50", "-2.25", "100.00"]
    assert m.data(m.index(1, 1)) == "nan" and m.data(m.index(2, 1)) == "-inf"
    fg = m.data(m.index(1, 1), QtCore.Qt.ItemDataRole.ForegroundRole)
    assert fg == QtGui.QColor(theme.current().nan)
    assert m.data(m.index(0, 0), QtCore.Qt.ItemDataRole.ForegroundRole) is None
    assert m.data(m.index(2, 1), QtCore.Qt.ItemDataRole.ToolTipRole) == "[2, 1] = -inf"
    panel.mode_box.setCurrentIndex(0)
    assert panel.current_view() == "heatmap"


def test_table_of_1d_and_0d_and_a_downsampled_value_lists_every_cell(panel: ValuesPanel
                                                                       ) -> None:
    panel.set_mode("table")
    panel.set_value("v", np.arange(5))
    assert (panel.model.rowCount(), panel.model.columnCount()) == (5, 1)
    panel.set_value("s", torch.tensor(7))
    assert panel.model.data(panel.model.index(0, 0)) == "7"
    panel.max_cells = 25  # the heatmap's preview: 1 of every 20 rows; the table: all of them
    panel.set_value("big", np.arange(100 * 100).reshape(100, 100))
    m = panel.model
    assert (m.rowCount(), m.columnCount()) == (100, 100)
    assert [m.headerData(r, QtCore.Qt.Orientation.Vertical) for r in range(5)] == [
        "0", "1", "2", "3", "4"]
    assert m.data(m.index(1, 2)) == str(1 * 100 + 2)
    assert "preview" not in panel.last_message()


def test_editing_a_cell_writes_into_the_array_and_its_alias(panel: ValuesPanel,
                                                            qtbot: QtBot) -> None:
    a = np.zeros((3, 4), dtype=np.float32)
    t = torch.from_numpy(a)
    panel.set_value("a", a)
    panel.set_mode("table")
    with qtbot.waitSignal(panel.edited) as blocker:
        assert panel.model.setData(panel.model.index(1, 2), "2.5")
    assert blocker.args == ["a", (1, 2), 2.5]
    assert a[1, 2] == 2.5 and t[1, 2].item() == 2.5
    assert panel.model.data(panel.model.index(1, 2)) == "2.5"  # the table re-read the value


def test_editing_a_tensor_bumps_its_version(panel: ValuesPanel) -> None:
    t = torch.zeros(2, 2, dtype=torch.int32)
    panel.set_value("t", t)
    panel.set_mode("table")
    v = t._version
    assert panel.model.setData(panel.model.index(0, 1), "7")
    assert t[0, 1].item() == 7 and t._version == v + 1


def test_refusals_are_shown_and_nothing_is_written(panel: ValuesPanel, qtbot: QtBot) -> None:
    w = torch.zeros(2, 2, requires_grad=True)
    panel.set_value("w", w)
    panel.set_mode("table")
    with qtbot.assertNotEmitted(panel.edited):
        assert not panel.model.setData(panel.model.index(0, 0), "1")
    assert w[0, 0].item() == 0.0
    assert "leaf tensor that requires grad" in panel.last_message()
    e = torch.ones(1).expand(3, 3)
    panel.set_value("e", e)
    assert not panel.model.setData(panel.model.index(0, 0), "5")
    assert "share the same memory" in panel.last_message()
    u = np.zeros(2, dtype=np.uint8)
    panel.set_value("u", u)
    assert not panel.model.setData(panel.model.index(0, 0), "300")
    assert "does not fit" in panel.last_message() and u[0] == 0


def test_a_write_handler_takes_over(panel: ValuesPanel) -> None:
    calls: list[tuple[object, tuple[int, ...], object]] = []
    w = torch.zeros(2, 2, requires_grad=True)

    def handler(name: str | None, index: tuple[int, ...], new: object) -> None:
        calls.append((name, index, new))
        with torch.no_grad():
            w[index] = new  # type: ignore[index]

    panel.set_value("w", w)
    panel.set_write_handler(handler)
    panel.set_mode("table")
    assert panel.model.setData(panel.model.index(1, 0), "4")
    assert calls == [("w", (1, 0), 4.0)] and w[1, 0].item() == 4.0

    def refuse(name: str | None, index: tuple[int, ...], new: object) -> None:
        raise ValueError("the lesson is read-only")

    panel.set_write_handler(refuse)
    assert not panel.model.setData(panel.model.index(0, 0), "1")
    assert "the lesson is read-only" in panel.last_message()


# ---------------------------------------------------------------------------- large and bad values


def test_large_values_are_previewed_in_the_background(panel: ValuesPanel, qtbot: QtBot) -> None:
    big = torch.arange(3000.0).reshape(3000, 1).expand(3000, 4000)  # 12M elements, no memory
    with qtbot.waitSignal(panel.plane_shown, timeout=5000):
        panel.set_value("big", big)
        assert panel.busy() and panel.progress.isVisibleTo(panel)
    assert not panel.busy() and not panel.progress.isVisibleTo(panel)
    plane = panel.plane()
    assert plane is not None and plane.data.size <= panel.max_cells
    np.testing.assert_array_equal(panel.image.image[:, 0], plane.positions(0).astype(float))
    assert "1 of every" in panel.last_message()


def test_a_new_value_cancels_the_pending_preview(panel: ValuesPanel, qtbot: QtBot) -> None:
    big = torch.zeros(1).expand(5000, 5000)
    panel.set_value("big", big)
    assert panel.busy()
    panel.set_value("small", torch.ones(2, 2))  # synchronous; the big preview is dropped
    assert not panel.busy()
    assert wait_for_tasks(5000)
    QtCore.QCoreApplication.processEvents()
    plane = panel.plane()
    assert plane is not None and plane.shape == (2, 2)
    assert "small" in panel.title.text()


def test_memory_mapped_file(panel: ValuesPanel, qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "m.npy"
    np.save(path, np.arange(64.0).reshape(8, 8))
    mm = np.load(path, mmap_mode="r")
    with qtbot.waitSignal(panel.plane_shown, timeout=5000):
        panel.set_value("m", mm)
    np.testing.assert_array_equal(panel.image.image, np.arange(64.0).reshape(8, 8))
    panel.set_mode("table")
    assert not panel.model.setData(panel.model.index(0, 0), "1")
    assert "read-only" in panel.last_message()


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (torch.empty(2, 3, device="meta"), "meta tensor"),
        (torch.zeros(0, 4), "empty"),
        (torch.eye(2).to_sparse(), "sparse"),
        (np.array([object()], dtype=object), "not numbers"),
        (np.zeros(2, dtype=[("a", "f4"), ("b", "i2")]), "a record with the fields a, b"),
        ("not a tensor", "not a tensor"),
    ],
)
def test_bad_values_show_a_plain_message(panel: ValuesPanel, value: object, words: str) -> None:
    panel.set_value("bad", value)
    assert panel.current_view() == "message"
    assert words in panel.message.text()
    assert panel.plane() is None and not panel.sliders


def test_none_clears(panel: ValuesPanel) -> None:
    panel.set_value("a", torch.ones(3))
    panel.set_value(None, None)
    assert panel.current_view() == "message" and panel.value() is None


# ---------------------------------------------------------------------------- theme, screenshots


def test_theme_change_restyles(panel: ValuesPanel) -> None:
    a = np.array([[np.nan, 1.0]])
    panel.set_value("a", a)
    theme.state().apply("dark")
    nan = QtGui.QColor(theme.DARK.nan)
    assert tuple(panel.overlay.image[0, 0, :3]) == (nan.red(), nan.green(), nan.blue())
    assert panel.heat_widget.backgroundBrush().color() == QtGui.QColor(theme.DARK.base)
    panel.set_mode("table")
    fg = panel.model.data(panel.model.index(0, 0), QtCore.Qt.ItemDataRole.ForegroundRole)
    assert fg == nan


def test_presentation_scale_enlarges_the_number(panel: ValuesPanel) -> None:
    panel.set_value("x", torch.tensor(1.0))
    small = panel.scalar.styleSheet()
    theme.state().apply(scale=1.6)
    assert panel.scalar.styleSheet() != small and "51pt" in panel.scalar.styleSheet()


@pytest.mark.parametrize("view", ["heatmap", "plot", "table"])
def test_screenshots_are_not_blank(panel: ValuesPanel, view: str, tmp_path: Path) -> None:
    if view == "plot":
        v = torch.sin(torch.linspace(0, 6, 100))
        v[40] = math.nan
    else:
        v = torch.randn(12, 9)
        v[2, 3] = math.nan
    panel.set_value("v", v)
    if view == "table":
        panel.set_mode("table")
    assert panel.current_view() == view
    panel.show()
    QtCore.QCoreApplication.processEvents()
    out = tmp_path / f"{view}.png"
    assert panel.grab().save(str(out))
    img = QtGui.QImage(str(out))
    t = theme.current()
    assert_drawn(img, t, view)  # the background, the title and axis words, the data's detail
    # the NaN, where it is, in the NaN colour
    if view == "heatmap":
        vb = panel.heat_item.getViewBox()
        widget: QtWidgets.QWidget = panel.heat_widget
        centre = widget.mapTo(panel, widget.mapFromScene(vb.mapViewToScene(
            QtCore.QPointF(3, 2))))  # cell (2, 3): centred on (3, 2)
        spot = QtCore.QRect(centre - QtCore.QPoint(2, 2), QtCore.QSize(5, 5))
        assert count_near(img, t.nan, 0, spot) == 25  # the whole middle of the cell
    elif view == "plot":
        [mark] = [(float(x), float(y)) for x, y in zip(panel.marks.data["x"],
                                                      panel.marks.data["y"], strict=True)]
        assert mark[0] == 40
        vb = panel.marks.getViewBox()
        widget = panel.plot_widget
        centre = widget.mapTo(panel, widget.mapFromScene(vb.mapViewToScene(
            QtCore.QPointF(*mark))))
        spot = QtCore.QRect(centre - QtCore.QPoint(6, 6), QtCore.QSize(13, 13))
        assert count_near(img, t.nan, 16, spot) >= 10  # the "x" marker's strokes
    else:
        cell = panel.table.visualRect(panel.model.index(2, 3))
        cell.moveTopLeft(panel.table.viewport().mapTo(panel, cell.topLeft()))
        assert count_near(img, t.nan, 16, cell) >= 10  # "nan" written in the NaN colour
        assert count_near(img, t.nan, 16) == count_near(img, t.nan, 16, cell)  # only there


# ---------------------------------------------------------------------------- the background helper


def test_task_delivers_progress_and_result_on_the_ui_thread(qtbot: QtBot) -> None:
    import threading

    from tensor_explorer.qt.workers import Task

    owner = QtCore.QObject()
    seen: list[tuple[str, object, bool]] = []

    def work(progress: preview.Progress, cancel: preview.CancelFn) -> str:
        for i in range(3):
            progress((i + 1) / 3)
        return threading.current_thread().name

    task = Task(work, owner)
    task.progress.connect(lambda f: seen.append(("p", f, _on_main_thread())))
    with qtbot.waitSignal(task.finished, timeout=5000) as blocker:
        task.start()
    assert blocker.args[0] != threading.current_thread().name  # it ran elsewhere...
    assert all(main for _, _, main in seen)  # ...and spoke here
    assert seen[-1][1] == 1.0


def test_task_cancel_and_failure(qtbot: QtBot) -> None:
    import threading

    from tensor_explorer.qt.workers import Task

    owner = QtCore.QObject()
    gate = threading.Event()

    def slow(progress: preview.Progress, cancel: preview.CancelFn) -> int:
        gate.wait(5)
        if cancel():
            raise preview.Cancelled("stopped")
        return 1

    task = Task(slow, owner)
    with qtbot.assertNotEmitted(task.finished), qtbot.waitSignal(task.cancelled, timeout=5000):
        task.start()
        task.cancel()
        gate.set()

    def boom(progress: preview.Progress, cancel: preview.CancelFn) -> int:
        raise ValueError("bad value")

    failing = Task(boom, owner)
    with qtbot.waitSignal(failing.failed, timeout=5000) as blocker:
        failing.start()
    assert blocker.args == ["ValueError: bad value"]


def _on_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


@pytest.mark.cuda
def test_cuda_values_are_previewed_in_the_background(panel: ValuesPanel, qtbot: QtBot) -> None:
    t = torch.arange(12.0, device="cuda").reshape(3, 4)
    with qtbot.waitSignal(panel.plane_shown, timeout=10_000):
        panel.set_value("g", t)
    np.testing.assert_array_equal(panel.image.image, t.cpu().numpy())
    assert "cuda" in panel.title.text()
