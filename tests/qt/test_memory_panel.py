"""Memory panel: strips per allocation, relation rows, hover linking across values, expand
multiplicity, live writes with version counters, large tensors as ranges, screenshots."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from PySide6 import QtCore, QtGui, QtWidgets
from pytestqt.qtbot import QtBot

from tensor_explorer.core.workspace import Workspace
from tensor_explorer.qt import theme
from tensor_explorer.qt.bridge import WorkspaceBridge
from tensor_explorer.qt.memory_panel import MemoryPanel
from tests.qt.pixels import assert_drawn, where

SEED = (
    "array = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)\n"
    "shared = torch.from_numpy(array)\n"
    "copied = torch.tensor(array)\n"
)


def run(qtbot: QtBot, win, source: str) -> MemoryPanel:
    """Run ``source`` through the window's runner and wait until the panel shows the result."""
    panel = win.panels["memory"]
    with qtbot.waitSignal(win.runner.finished, timeout=20_000):
        win.runner.run(source)
    names = set(win.workspace.names())
    qtbot.waitUntil(lambda: panel.is_ready()
                    and {n for s in panel.allocations() for n in s} >= names, timeout=20_000)
    return panel


def make_panel(qtbot: QtBot, ws: Workspace, size: tuple[int, int] = (1000, 600)) -> MemoryPanel:
    bridge = WorkspaceBridge(ws)
    panel = MemoryPanel(bridge)
    bridge.setParent(panel)
    qtbot.addWidget(panel)
    panel.resize(*size)
    panel.show()
    qtbot.waitUntil(panel.is_ready, timeout=20_000)
    return panel


def test_seed_example_one_allocation_shared_another_copied(qtbot: QtBot, make_window) -> None:
    win = make_window()
    panel = run(qtbot, win, SEED)
    assert panel.allocations() == [["array", "shared"], ["copied"]]
    rows = panel.relation_rows()
    assert [(a, b, kind, n) for a, b, kind, n, _ in rows] == [("array", "shared", "alias", 16)]
    assert "from_numpy" in rows[0][4] and "shares memory" in rows[0][4]
    assert all("copied" not in (a, b) for a, b, *_ in rows)
    assert panel.table.item(0, 2).text() == "alias: the same bytes"
    assert "copied" in panel.note.text()  # listed as having memory of its own
    texts = " | ".join(panel.scene_texts())
    assert "Allocation 1: 16 bytes on CPU" in texts and "owner: array" in texts
    assert "alias of array: the same bytes" in texts
    assert "which copies" in texts  # copied's strip says why it is separate
    # stride, offset and the version counter are written on the footprints
    assert "stride (2, 1) · offset 0 · version 0" in panel.lane_text("shared")
    assert "NumPy array float32 (2, 2)" in panel.lane_text("array")
    assert panel.shown_value("array", (1, 0)) == "3.0"
    assert panel.lane_mode("array") == "cells"


def test_hover_links_aliases_not_copies(qtbot: QtBot, make_window) -> None:
    win = make_window()
    panel = run(qtbot, win, SEED)
    lit = panel.hover_element("array", (0, 1))
    assert lit == {"array": [(0, 1)], "shared": [(0, 1)]}
    assert panel.lit_cells("shared") == {4} and panel.lit_cells("copied") == set()
    assert "shared[0, 1]" in panel.info.text() and "Not by copied" in panel.info.text()
    # by scene coordinates: the centre of the cell of array[1, 0]
    lit = panel.hover_at(panel.cell_centre("array", (1, 0)))
    assert lit["shared"] == [(1, 0)] and "copied" not in lit
    # and by a real mouse move over the view, rate-limited by the hover timer
    panel.clear_hover()
    view_pos = panel.view.mapFromScene(panel.cell_centre("shared", (1, 1)))
    event = QtGui.QMouseEvent(QtCore.QEvent.Type.MouseMove, QtCore.QPointF(view_pos),
                              QtCore.QPointF(panel.view.viewport().mapToGlobal(view_pos)),
                              QtCore.Qt.MouseButton.NoButton, QtCore.Qt.MouseButton.NoButton,
                              QtCore.Qt.KeyboardModifier.NoModifier)
    QtWidgets.QApplication.sendEvent(panel.view.viewport(), event)
    assert panel.lit() == {}  # not yet: hover waits for the timer
    qtbot.waitUntil(lambda: panel.lit().get("array") == {(1, 1)}, timeout=2000)
    assert "copied" not in panel.lit()
    lit = panel.hover_element("copied", (0, 0))
    assert lit == {"copied": [(0, 0)]} and panel.lit_cells("array") == set()


def test_expand_marks_multiplicity_and_lights_every_reader(qtbot: QtBot, make_window) -> None:
    win = make_window()
    panel = run(qtbot, win, "e = torch.zeros(3).expand(4, 3)")
    assert panel.shown_multiplicity("e") == {0: 4, 4: 4, 8: 4}
    assert "stride (0, 1)" in panel.lane_text("e") and "×4" in panel.lane_text("e")
    lit = panel.hover_element("e", (2, 1))
    assert set(lit["e"]) == {(0, 1), (1, 1), (2, 1), (3, 1)}
    assert panel.lit_cells("e") == {4}


def test_views_nest_under_their_base(qtbot: QtBot, make_window) -> None:
    win = make_window()
    panel = run(qtbot, win, "x = torch.arange(6.0).reshape(2, 3)\nrow = x[1]\ncol = x[:, 1]\n"
                            "y = x.t()\nz = torch.ones(2)")
    assert panel.allocations() == [["x", "row", "col", "y"], ["z"]]
    texts = panel.scene_texts()
    assert "└ row" in texts and "view inside x: part of its bytes" in texts
    lit = panel.hover_element("x", (1, 1))
    assert lit == {"x": [(1, 1)], "row": [(1,)], "col": [(1,)], "y": [(1, 1)]}
    kinds = {(a, b): k for a, b, k, *_ in panel.relation_rows()}
    assert kinds[("row", "col")] == "overlap" and kinds[("x", "y")] == "alias"


def test_write_through_numpy_updates_every_alias_and_versions(qtbot: QtBot, make_window) -> None:
    win = make_window()
    panel = run(qtbot, win, SEED)
    assert panel.shown_value("shared", (0, 0)) == "1.0"
    with qtbot.waitSignal(panel.drawn, timeout=20_000):
        win.runner.run("array[0, 0] = 99")
    assert panel.shown_value("array", (0, 0)) == "99.0"
    assert panel.shown_value("shared", (0, 0)) == "99.0"
    assert panel.shown_value("copied", (0, 0)) == "1.0"
    assert panel.changed_cells("array") == {0} and panel.changed_cells("shared") == {0}
    assert panel.changed_cells("copied") == set()
    # a torch in-place write bumps the version counter, and the panel shows it going up
    with qtbot.waitSignal(panel.drawn, timeout=20_000):
        win.runner.run("shared[1, 1] = 7")
    assert win.workspace["shared"]._version == 1
    assert "version 0 → 1" in panel.lane_text("shared")
    assert panel.shown_value("array", (1, 1)) == "7.0"
    assert panel.changed_cells("array") == {12}


def test_values_table_edit_slot_redraws(qtbot: QtBot) -> None:
    ws = Workspace()
    a = np.zeros(3, dtype=np.float32)
    ws["a"] = a
    ws["t"] = torch.from_numpy(a)
    panel = make_panel(qtbot, ws)
    a[2] = 5  # written behind the workspace's back, as the Values table does
    with qtbot.waitSignal(panel.drawn, timeout=20_000):
        panel.value_written("a", (2,), 5.0)
    assert panel.shown_value("t", (2,)) == "5.0" and panel.changed_cells("t") == {8}


def test_large_tensor_with_views_draws_as_ranges_quickly(qtbot: QtBot) -> None:
    ws = Workspace()
    big = torch.empty(100_000_000, dtype=torch.uint8)  # pages never touched
    grid = big.view(10_000, 10_000)
    ws["big"] = big
    ws["half"] = grid[:5000]
    ws["cols"] = grid[:, ::2]
    ws["block"] = grid[2000:3000, 4000:9000]
    ws["e"] = grid[3].expand(500, 10_000)
    panel = make_panel(qtbot, ws)
    assert panel.allocations() == [["big", "half", "block", "e", "cols"]]  # e: row 3, in half
    # drawn as byte ranges: O(width) per value, never O(elements) (its speed: bench/)
    assert {panel.lane_mode(n) for n in ("big", "half", "block", "e", "cols")} == {"ranges"}
    panel.redraw()
    item = panel._lane_items["half"]
    lit = panel.hover_at(item.mapToScene(QtCore.QPointF(item.geom.x(10_000_000), 2)))
    assert set(lit) == {"big", "half", "cols"}  # row 1000: not block (rows 2000+), not e (row 3)
    assert "×500" in panel.lane_text("e")
    panel.set_window("big", 30_000, 30_064)  # zoomed in: cells again, only those drawn
    assert panel.lane_mode("big") == "cells"
    item = panel._lane_items["half"]
    lit = panel.hover_at(item.mapToScene(QtCore.QPointF(item.geom.x(30_004.5), 2)))
    assert set(lit) == {"big", "half", "e", "cols"}  # row 3, column 4 (even)
    lit = panel.hover_at(item.mapToScene(QtCore.QPointF(item.geom.x(30_005.5), 2)))
    assert set(lit) == {"big", "half", "e"}  # column 5: not in cols


def test_meta_and_devices_are_labelled(qtbot: QtBot) -> None:
    ws = Workspace()
    ws["m"] = torch.empty(5, device="meta")
    ws["c"] = torch.ones(2)
    panel = make_panel(qtbot, ws)
    texts = " | ".join(panel.scene_texts())
    assert "Allocation 1: none, on meta" in texts and "no bytes" in texts
    assert "meta tensor" in texts
    assert panel.allocations() == [["m"], ["c"]]


def test_theme_and_presentation_restyle(qtbot: QtBot) -> None:
    ws = Workspace()
    ws["x"] = torch.arange(4.0)
    panel = make_panel(qtbot, ws)

    def name_font_size() -> float:
        items = [i for i in panel.scene.items()
                 if isinstance(i, QtWidgets.QGraphicsSimpleTextItem) and i.text() == "x"]
        return items[0].font().pointSizeF()

    before = name_font_size()
    theme.state().apply("dark", theme.PRESENTATION_SCALE)
    assert panel.view.backgroundBrush().color() == QtGui.QColor(theme.DARK.base)
    assert name_font_size() > before * 1.4
    theme.state().apply("light", 1.0)
    assert panel.view.backgroundBrush().color() == QtGui.QColor(theme.LIGHT.base)


def test_screenshot_png_and_svg(tmp_path: Path) -> None:
    from tensor_explorer.qt.app import screenshot_main

    prog = tmp_path / "prog.py"
    prog.write_text(SEED)
    png, svg = tmp_path / "mem.png", tmp_path / "mem.svg"
    assert screenshot_main(str(prog), str(png), panel="memory", size="1000x700") == 0
    img = QtGui.QImage(str(png))
    assert img.width() == 1000 and img.height() == 700
    light = theme.LIGHT
    assert_drawn(img, light, "memory")  # the background, the words, antialiased detail
    # a row per value, each in its own colour, in the order of the workspace
    rows = [where(img, colour, 16)[0] for colour in light.series[:3]]  # array, shared, copied
    assert all(len(r) > 30 for r in rows)
    assert rows[0].mean() < rows[1].mean() < rows[2].mean()
    assert screenshot_main(str(prog), str(svg), panel="memory", size="1000x700") == 0
    text = svg.read_text()
    for name in ("array", "shared", "copied", "Allocation"):
        assert name in text


# -------------------------------------------------------------------- the main window (#16)


def run_in_window(qtbot: QtBot, win, source: str) -> MemoryPanel:
    """Run ``source`` as the user does (until the runner is no longer busy), show the Memory
    dock and wait until its drawing shows every value."""
    with qtbot.waitSignal(win.runner.busy_changed, timeout=20_000,
                          check_params_cb=lambda busy: not busy):
        win.runner.run(source)
    win.resize(1200, 800)
    win.show()
    win.show_panel("memory")
    assert win.docks["memory"].isVisible()
    panel = win.panels["memory"]
    names = {n for n in win.workspace.names() if isinstance(win.workspace[n], torch.Tensor)}
    qtbot.waitUntil(lambda: panel.is_ready() and panel.is_laid_out()
                    and {n for s in panel.allocations() for n in s} >= names, timeout=20_000)
    return panel


def _on_window(panel: MemoryPanel, win, name: str) -> QtCore.QRect:
    """Where the row of ``name`` is in the window's coordinates (moves if anything above the
    drawing changes height, or the drawing scrolls)."""
    rect = panel.lane_rect(name)
    assert rect is not None
    top_left = panel.view.viewport().mapTo(win, rect.topLeft())
    return QtCore.QRect(top_left, rect.size())


def test_hover_caption_never_moves_the_drawing(qtbot: QtBot, make_window) -> None:
    win = make_window()
    panel = run_in_window(qtbot, win, SEED)
    before = _on_window(panel, win, "shared")
    info_height = panel.info.height()
    assert panel.info.isVisible() and panel.info.text() == ""  # its place is kept, empty
    # a real mouse move over a cell of shared: the caption appears, nothing moves
    view_pos = panel.view.mapFromScene(panel.cell_centre("shared", (1, 1)))
    event = QtGui.QMouseEvent(QtCore.QEvent.Type.MouseMove, QtCore.QPointF(view_pos),
                              QtCore.QPointF(panel.view.viewport().mapToGlobal(view_pos)),
                              QtCore.Qt.MouseButton.NoButton, QtCore.Qt.MouseButton.NoButton,
                              QtCore.Qt.KeyboardModifier.NoModifier)
    QtWidgets.QApplication.sendEvent(panel.view.viewport(), event)
    qtbot.waitUntil(lambda: panel.lit().get("shared") == {(1, 1)}, timeout=2000)
    QtWidgets.QApplication.processEvents()
    assert "shared[1, 1]" in panel.info.text()
    assert _on_window(panel, win, "shared") == before  # the hovered cell stays under the mouse
    assert panel.info.height() == info_height
    # the caption lies under the drawing, not above it
    assert panel.info.mapTo(win, QtCore.QPoint(0, 0)).y() > \
        panel.view.mapTo(win, QtCore.QPoint(0, panel.view.height())).y() - 1
    # a caption longer than its lines ends in "…" (the tool tip has it all); still nothing moves
    panel.set_info("a very long hover caption " * 60)
    QtWidgets.QApplication.processEvents()
    assert panel.info.text().endswith("…") and panel.info.toolTip().startswith("a very long")
    assert panel.info.height() == info_height and _on_window(panel, win, "shared") == before
    panel.clear_hover()
    QtWidgets.QApplication.processEvents()
    assert panel.info.text() == "" and _on_window(panel, win, "shared") == before


def test_selecting_a_value_scrolls_its_row_into_view(qtbot: QtBot, make_window) -> None:
    win = make_window()
    panel = run_in_window(qtbot, win, "base = torch.arange(3000.0)\nfor i in range(60):\n"
                                      "    globals()[f'v{i}'] = base[i::60]\n")
    viewport = panel.view.viewport().rect()
    bar = panel.view.verticalScrollBar()
    assert bar.maximum() > 0  # taller than the view
    bar.setValue(0)
    QtWidgets.QApplication.processEvents()
    lane = panel.lane_rect("v50")
    assert lane is not None and not viewport.contains(lane)
    win.workspace.selected = "v50"
    qtbot.waitUntil(lambda: viewport.contains(panel.lane_rect("v50") or QtCore.QRect()),
                    timeout=2000)
    assert bar.value() > 0
    win.workspace.selected = "v2"  # and back up
    qtbot.waitUntil(lambda: viewport.contains(panel.lane_rect("v2") or QtCore.QRect()),
                    timeout=2000)
    # a value made by the next run is scrolled to once the new drawing is there
    with qtbot.waitSignal(panel.drawn, timeout=20_000):
        win.runner.run("w = base[59::60].clone()\nlast = base[2999:]")
    qtbot.waitUntil(lambda: panel.is_ready() and panel.lane_rect("last") is not None,
                    timeout=20_000)
    win.workspace.selected = "last"
    qtbot.waitUntil(lambda: viewport.contains(panel.lane_rect("last") or QtCore.QRect()),
                    timeout=2000)


def test_relation_list_names_the_values(qtbot: QtBot, make_window) -> None:
    # values named a and b, in the order that made "contains: b is part of a" wrong
    win = make_window()
    panel = run_in_window(qtbot, win, "b = torch.arange(6.0)\na = b[2:]\n")
    rows = panel.relation_rows()
    assert [r[:4] for r in rows] == [("b", "a", "contains", 16)]
    # ground truth from torch: a's bytes are 16 of b's 24, inside b's storage
    a, b = win.workspace["a"], win.workspace["b"]
    assert a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    assert (a.storage_offset(), a.numel() * a.element_size()) == (2, 16)
    assert panel.table.item(0, 2).text() == "contains: a is part of b"
    tip = panel.table.item(0, 2).toolTip()
    assert "Every byte of a is also a byte of b" in tip and "writing a changes b" in tip
    texts = [panel.table.item(0, c).text() for c in range(5)]
    assert texts[:2] == ["b", "a"]


def test_why_column_wraps_and_rows_grow(qtbot: QtBot, make_window) -> None:
    win = make_window()
    panel = run_in_window(qtbot, win, SEED)
    win.resize(700, 800)
    qtbot.waitUntil(lambda: panel.table.viewport().width() < 600, timeout=2000)
    table = panel.table
    qtbot.waitUntil(table.measured, timeout=5000)
    why = table.item(0, 4).text().replace("\u200b", "")
    assert "from_numpy" in why
    assert table.wordWrap()
    assert table.horizontalScrollBarPolicy() == QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    header = table.horizontalHeader()
    # every column inside the list's width: nothing to scroll sideways to
    assert header.sectionPosition(4) + header.sectionSize(4) <= table.viewport().width()
    fm = QtGui.QFontMetrics(table.font())
    assert fm.horizontalAdvance(why) > header.sectionSize(4)  # so it must wrap...
    assert table.rowHeight(0) >= 2 * fm.lineSpacing()  # ...and the row grew to show it


def test_relation_row_is_not_cut_in_presentation_mode(qtbot: QtBot, make_window) -> None:
    """Seen in the real window at 1280x800, Chinese, F5: the list was one short strip and
    its only (wrapped) row was cut in half. The list keeps room for one wrapped row."""
    win = make_window()
    win.set_language("zh")
    win.set_presentation(True)
    try:
        panel = run_in_window(qtbot, win, "w = torch.arange(20.0)\nv = w[2:10:2]\n")
        win.resize(1280, 800)
        table = panel.table
        qtbot.waitUntil(lambda: table.rowCount() == 1 and table.measured(), timeout=5000)
        QtWidgets.QApplication.processEvents()
        assert table.rowHeight(0) <= table.viewport().height()
    finally:
        win.set_presentation(False)
        win.set_language("en")


def test_the_value_selected_before_the_panel_is_first_shown_is_scrolled_to(
        qtbot: QtBot, make_window) -> None:
    """Seen in the real window: a run selects its last value while the Memory tab is hidden;
    opening the tab then showed the top of the drawing, not that value."""
    win = make_window()
    win.resize(1200, 800)
    win.show()
    from tests.qt.window_run import run as run_statement

    run_statement(qtbot, win, "base = torch.arange(3000.0)\nfor i in range(60):\n"
                              "    globals()[f'v{i}'] = base[i::60]\n")
    assert "memory" not in dict.keys(win.panels)  # built when first shown
    win.workspace.selected = "v50"
    win.show_panel("memory")
    panel = win.panels["memory"]
    qtbot.waitUntil(lambda: panel.is_ready() and panel.lane_rect("v50") is not None,
                    timeout=20_000)
    viewport = panel.view.viewport().rect()
    qtbot.waitUntil(lambda: viewport.contains(panel.lane_rect("v50") or QtCore.QRect()),
                    timeout=2000)
    assert panel.view.verticalScrollBar().value() > 0
