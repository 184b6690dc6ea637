"""Switching the language in place: the Values and Memory panels show every text in the new
language and keep what they show (value, view, sliders, zoom, selection, hover)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot

from tensor_explorer.core import memory
from tensor_explorer.core.workspace import Workspace

# showing a top-level window on the offscreen platform warns about propagateSizeHints
pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")

SEED = (
    "m = torch.tensor([[1.0, float('nan'), 3.0], [4.0, 5.0, 6.0]])\n"
    "cube = torch.arange(2 * 3 * 4, dtype=torch.float32).reshape(2, 3, 4)\n"
    "zc = torch.tensor([[1 + 1j, 2 - 1j, 3j], [complex('nan'), -1 + 0j, 1j]])\n"
    "v = torch.linspace(0.0, 1.0, 50)\n"
    "array = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)\n"
    "shared = torch.from_numpy(array)\n"
    "row = shared[1]\n"
    "copied = torch.tensor(array)\n"
)


def _tr(context: str, text: str) -> str:
    return QtCore.QCoreApplication.translate(context, text)


def vtr(text: str) -> str:
    return _tr("ValuesPanel", text)


def mtr(text: str) -> str:
    return _tr("MemoryPanel", text)


def _window(qtbot: QtBot, make_window: Any) -> Any:
    win = make_window()
    with qtbot.waitSignal(win.runner.finished, timeout=20_000):
        win.runner.run(SEED)
    win.resize(1200, 800)
    win.show()
    qtbot.waitExposed(win)
    return win


def _switch(qtbot: QtBot, win: Any, lang: str) -> list[str]:
    """Switch ``win`` to ``lang``; returns the workspace events it emitted (there must be
    none)."""
    QtWidgets.QApplication.processEvents()  # events of earlier changes are not ours
    events: list[str] = []
    for what in ("changed", "modified", "selected", "removed", "renamed"):
        getattr(win.bridge, what).connect(lambda *args, w=what: events.append(f"{w}{args}"))
    win.set_language(lang)
    QtWidgets.QApplication.processEvents()
    return events


def _labels(widget: QtWidgets.QWidget) -> list[str]:
    # labels of rebuilt sliders are deleted later: delete them now
    QtWidgets.QApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    return [w.text() for w in widget.findChildren(QtWidgets.QLabel)]


def _close(a: Any, b: Any) -> bool:
    return all(abs(x - y) < 1e-9 for pa, pb in zip(a, b, strict=True)
               for x, y in zip(pa, pb, strict=True))


def test_values_panel_table_and_sliders_retranslate_in_place(qtbot: QtBot, make_window) -> None:
    win = _window(qtbot, make_window)
    win.show_panel("values")
    dock = win.panels["values"]
    vp = dock.panel
    win.workspace.selected = "cube"
    qtbot.waitUntil(lambda: vp.name() == "cube" and vp.plane() is not None, timeout=10_000)
    vp.set_axes(2, 1)  # a transposed plane
    vp.set_index(0, 1)  # slider of axis 0 moved
    vp.mode_box.setCurrentIndex(vp.mode_box.findData("table"))  # as the user does
    assert vp.current_view() == "table"
    vp.table.setCurrentIndex(vp.model.index(2, 1))
    plane = vp.plane()
    state = (vp.current_view(), vp.mode(), vp.axes(), vp.index(), vp.sliders[0].value(),
             vp.row_axis_box.currentData(), vp.col_axis_box.currentData(),
             vp.mode_box.currentData(), vp.table.currentIndex().row(),
             vp.table.currentIndex().column())
    assert state == ("table", "table", (2, 1), {0: 1}, 1, 2, 1, "table", 2, 1)
    assert "showing cube[1, :, :].T" in vp.last_message()
    assert "axis 0" in _labels(vp.slider_box)

    assert _switch(qtbot, win, "zh") == []
    assert win.panels["values"] is dock and dock.panel is vp  # not rebuilt
    assert vtr("Table") != "Table" and vtr("rows") != "rows"  # the catalog is installed
    assert vp.plane() is plane  # nothing recomputed
    assert (vp.current_view(), vp.mode(), vp.axes(), vp.index(), vp.sliders[0].value(),
            vp.row_axis_box.currentData(), vp.col_axis_box.currentData(),
            vp.mode_box.currentData(), vp.table.currentIndex().row(),
            vp.table.currentIndex().column()) == state
    assert [vp.mode_box.itemText(i) for i in range(2)] == [vtr("Chart"), vtr("Table")]
    assert vp.mode_box.toolTip() == vtr(
        "Draw the values (number, plot or heatmap) or list them in a table")
    assert vp.rows_label.text() == vtr("rows") and vp.cols_label.text() == vtr("columns")
    assert vp.part_label.text() == vtr("show")
    assert vp.row_axis_box.toolTip() == vtr("The axis drawn downwards")
    assert vp.progress.format() == vtr("computing preview… %p%")
    assert vp.row_axis_box.itemText(2) == vtr("axis {axis} ({size})").format(axis=2, size=4)
    assert vp.col_axis_box.itemText(0) == vtr("axis {axis} ({size})").format(axis=0, size=2)
    labels = _labels(vp.slider_box)
    assert vtr("axis {axis}").format(axis=0) in labels and "axis 0" not in labels
    assert vtr("index {i} of 0–{last}").format(i=1, last=1) in labels
    assert vp.sliders[0].toolTip() == vtr("Which index of axis {axis} is shown").format(axis=0)
    assert vtr("showing {expr}").format(expr="cube[1, :, :].T") in vp.last_message()
    assert "showing" not in vp.last_message()

    assert _switch(qtbot, win, "en") == []
    assert vp.plane() is plane
    assert vp.mode_box.currentText() == "Table" and vp.rows_label.text() == "rows"
    assert vp.row_axis_box.itemText(2) == "axis 2 (4)"
    assert "axis 0" in _labels(vp.slider_box) and "index 1 of 0–1" in _labels(vp.slider_box)
    assert "showing cube[1, :, :].T" in vp.last_message()
    assert vp.table.currentIndex().row() == 2 and vp.sliders[0].value() == 1


def test_values_panel_heatmap_and_plot_keep_zoom_part_and_hover(qtbot: QtBot,
                                                               make_window) -> None:
    win = _window(qtbot, make_window)
    win.show_panel("values")
    vp = win.panels["values"].panel
    assert vp.message.text() == "No value selected."
    win.workspace.selected = "zc"
    qtbot.waitUntil(lambda: vp.name() == "zc" and vp.current_view() == "heatmap",
                    timeout=10_000)
    vp.part_box.setCurrentIndex(vp.part_box.findData("phase"))  # as the user does
    assert vp.plane() is not None and vp.plane().part == "phase"
    vb = vp.heat_item.getViewBox()
    vb.setRange(xRange=(0.25, 1.75), yRange=(-0.25, 0.75), padding=0)  # zoomed and panned
    QtWidgets.QApplication.processEvents()
    zoom = vb.viewRange()
    vp.heat_widget.scene().sigMouseMoved.emit(vb.mapViewToScene(QtCore.QPointF(1, 0)))
    qtbot.waitUntil(lambda: vp.hover.text().startswith("[0, 1] = "), timeout=2000)
    assert "(phase " in vp.hover.text()
    assert "NaN shown" in vp.last_message()
    assert vp.heat_item.getAxis("left").labelText == "axis 0"

    assert _switch(qtbot, win, "zh") == []
    assert vtr("phase") != "phase"
    assert vp.part_box.currentData() == "phase" and vp.plane().part == "phase"
    assert vp.part_box.currentText() == vtr("phase (radians)")
    assert vp.part_box.toolTip() == vtr("Which part of the complex numbers is drawn")
    assert vp.current_view() == "heatmap"
    assert _close(vb.viewRange(), zoom)
    assert vp.hover.text().startswith("[0, 1] = ")  # still hovered, in the new language
    assert f"({vtr('phase')} " in vp.hover.text() and "(phase " not in vp.hover.text()
    assert vp.heat_item.getAxis("left").labelText == vtr("axis {axis}").format(axis=0)
    assert vp.heat_item.getAxis("bottom").labelText == vtr("axis {axis}").format(axis=1)
    assert f"1 NaN {vtr('shown')}" in vp.last_message()

    assert _switch(qtbot, win, "en") == []
    assert "(phase " in vp.hover.text() and vp.part_box.currentText() == "phase (radians)"
    assert _close(vb.viewRange(), zoom)
    assert vp.heat_item.getAxis("left").labelText == "axis 0"

    # a 1-d plot: its axis label, zoom kept
    win.workspace.selected = "v"
    qtbot.waitUntil(lambda: vp.name() == "v" and vp.current_view() == "plot", timeout=10_000)
    pvb = vp.plot_item.getViewBox()
    pvb.setRange(xRange=(10, 20), yRange=(0.1, 0.5), padding=0)
    QtWidgets.QApplication.processEvents()
    zoom = pvb.viewRange()
    assert vp.plot_item.getAxis("bottom").labelText == "index"
    assert _switch(qtbot, win, "zh") == []
    assert vp.plot_item.getAxis("bottom").labelText == vtr("index") != "index"
    assert _close(pvb.viewRange(), zoom) and vp.current_view() == "plot"

    # nothing selected: the message
    win.workspace.selected = None
    qtbot.waitUntil(lambda: vp.value() is None, timeout=10_000)
    assert vp.message.text() == vtr("No value selected.") != "No value selected."
    assert _switch(qtbot, win, "en") == []
    assert vp.message.text() == "No value selected."


def test_memory_panel_retranslates_in_place(qtbot: QtBot, make_window) -> None:
    win = _window(qtbot, make_window)
    win.show_panel("memory")
    panel = win.panels["memory"]
    names = set(win.workspace.names())
    qtbot.waitUntil(lambda: panel.is_ready()
                    and {n for s in panel.allocations() for n in s} >= names, timeout=20_000)
    model = panel.model
    rows = panel.relation_rows()
    kinds = [(a, b, kind) for a, b, kind, _, _ in rows]
    assert ("array", "shared", "alias") in kinds
    r_alias = kinds.index(("array", "shared", "alias"))
    assert panel.table.item(r_alias, 2).text() == "alias: the same bytes"
    why_en = rows[r_alias][4]
    assert "from_numpy" in why_en
    # state: a zoomed strip, a selected relation row (which lights its elements), scrolled
    strip = model.strip_of("array")
    assert strip is not None
    panel.set_window("array", 0, 8)
    zoomed = mtr("bytes {0}–{1} of {2}").format("0", "8", "16")
    assert zoomed in panel.scene_texts()
    panel.table.selectRow(r_alias)
    lit = panel.lit()
    assert lit and "shared" in lit
    info_en = panel.info.text()
    assert ": bytes 0–3 of allocation" in info_en
    panel.resize(panel.width(), 300)
    QtWidgets.QApplication.processEvents()
    bar = panel.view.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    top = bar.value()
    assert top > 0  # the drawing is scrolled
    shared_detail = panel.lane_text("shared")
    assert "version 0" in shared_detail

    with qtbot.assertNotEmitted(panel.drawn):
        assert _switch(qtbot, win, "zh") == []
    assert win.panels["memory"] is panel and panel.model is model  # not rebuilt, not recomputed
    assert mtr("alias: the same bytes") != "alias: the same bytes"
    # the relation list, in Chinese
    assert panel.table.item(r_alias, 2).text() == mtr("alias: the same bytes")
    assert panel.table.item(r_alias, 2).toolTip() == mtr(
        "Both read exactly the same bytes: writing one changes the other.")
    origin = win.workspace.origin("shared")
    assert origin is not None
    why_zh = memory.sharing_reason("shared", origin.call, lang="zh")
    assert why_zh is not None and why_zh.replace("`", "") != why_en
    new_rows = panel.relation_rows()
    assert new_rows[r_alias][4] == why_zh.replace("`", "")
    assert [r[:4] for r in new_rows] == [r[:4] for r in rows]
    headers = [panel.table.horizontalHeaderItem(c).text() for c in range(5)]
    assert headers == [mtr("a"), mtr("b"), mtr("relation"), mtr("shared bytes"), mtr("why")]
    assert panel.table_title.text() == mtr("Values that share memory")
    assert panel.legend.text() == mtr(
        "Grey strip = one block of memory. Rows = values, drawn on the bytes they read. "
        "Same strip = shared memory. Hover a cell.")
    assert panel.note.text().startswith(
        mtr("Own memory (no other value reads its bytes): {0}").split("{0}")[0])
    # the drawing, in Chinese, with its zoom
    texts = panel.scene_texts()
    assert mtr("bytes {0}–{1} of {2}").format("0", "8", "16") in texts and zoomed not in texts
    assert mtr("bytes") in texts and "bytes" not in texts
    assert mtr("version {0}").format(0) in panel.lane_text("shared")
    assert panel.lane_text("shared") != shared_detail
    # the selection, what is lit, the hover line and the scroll are kept
    assert {i.row() for i in panel.table.selectedItems()} == {r_alias}
    assert panel.lit() == lit
    assert panel.info.text() != info_en
    assert mtr(": bytes {0}–{1} of allocation {2}.").format(0, 3, strip.number) \
        in panel.info.text()
    # still scrolled down, not back at the top (Chinese text has other line heights, and the
    # view's height changes with them: the exact offset cannot be the same)
    assert bar.value() > 0 and bar.maximum() > 0

    assert _switch(qtbot, win, "en") == []
    assert panel.model is model
    assert panel.table.item(r_alias, 2).text() == "alias: the same bytes"
    assert panel.relation_rows()[r_alias][4] == why_en
    assert panel.table.horizontalHeaderItem(2).text() == "relation"
    assert zoomed in panel.scene_texts()
    assert panel.info.text() == info_en and panel.lit() == lit
    assert panel.lane_text("shared") == shared_detail
    assert bar.value() > 0


def test_memory_panel_language_change_during_a_computation(qtbot: QtBot, make_window) -> None:
    # the model being computed carries the reasons in the old language: they are translated
    # when it arrives
    win = _window(qtbot, make_window)
    win.show_panel("memory")
    panel = win.panels["memory"]
    qtbot.waitUntil(lambda: panel.is_ready() and bool(panel.relation_rows()), timeout=20_000)
    with qtbot.waitSignal(panel.drawn, timeout=20_000):
        panel.refresh()
        win.set_language("zh")
    qtbot.waitUntil(panel.is_ready, timeout=20_000)
    origin = win.workspace.origin("shared")
    assert origin is not None
    why_zh = (memory.sharing_reason("shared", origin.call, lang="zh") or "").replace("`", "")
    rows = {(a, b): why for a, b, _, _, why in panel.relation_rows()}
    assert rows[("array", "shared")] == why_zh != ""
    lane = panel.model.lane("shared")
    assert lane is not None and lane.why == why_zh
    assert panel.model.whys["shared"] == why_zh


def test_why_a_value_is_not_drawn_is_said_again_after_a_language_switch(
        qtbot: QtBot, make_window) -> None:
    ws = Workspace()
    ws.run("m = torch.empty(2, 3, device='meta')")
    win = make_window(ws)
    win.show()
    ws.selected = "m"
    values = win.panels["values"].panel
    qtbot.waitUntil(lambda: values.name() == "m" and "meta" in values.message.text())
    english = values.message.text()
    assert english.startswith("meta tensor: it has a shape")
    win.set_language("zh")
    assert values.message.text() != english and re.search(r"[\u4e00-\u9fff]",
                                                          values.message.text())
    win.set_language("en")
    assert values.message.text() == english
