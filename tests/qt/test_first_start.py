"""A first start that explains itself (issue #16, points 4 and 5): the code bar in view beside
the lesson, where to type, readable step titles, diagnoses by title, counts in good grammar,
Copy and Find, readable small heatmaps, visible menu check boxes, the retain_grad chooser."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
import torch
from PySide6 import QtCore, QtGui, QtWidgets
from pytestqt.qtbot import QtBot

from tensor_explorer.core.diagnose import TITLES, diagnose
from tensor_explorer.core.modules import module_summary
from tensor_explorer.qt.lesson_panel import LessonPanel
from tests.qt.window_run import run


def open_welcome(qtbot: QtBot, win) -> LessonPanel:
    panel = win.panels["lesson"]
    assert isinstance(panel, LessonPanel)
    with qtbot.waitSignal(panel.step_shown, timeout=30_000):
        win.open_lesson("welcome")
    return panel


def in_front(win, name: str) -> bool:
    return bool(win.stage._in_front(win.docks[name]))


def test_code_bar_is_in_view_beside_the_lesson_at_1280x800(qtbot: QtBot, make_window) -> None:
    win = make_window()
    win.resize(1280, 800)
    win.show()
    qtbot.waitExposed(win)
    open_welcome(qtbot, win)
    qtbot.waitUntil(lambda: in_front(win, "lesson") and in_front(win, "console"))
    console = win.docks["console"]
    assert not win.tabifiedDockWidgets(console), "the code bar is no tab behind another panel"
    editor = win.panels["console"].editor
    assert editor.isVisible() and editor.visibleRegion().boundingRect().height() >= 30
    assert console.height() >= 150  # room for the output and the editor
    # the panel a step asks for still comes to the front, above the code bar
    qtbot.waitUntil(lambda: in_front(win, "inspector"))
    # the default layout (Reset layout) keeps the code bar in view too
    win.reset_layout()
    qtbot.waitUntil(lambda: in_front(win, "console"))


def test_welcome_lesson_first_step_says_where_to_type(qtbot: QtBot, make_window) -> None:
    win = make_window()
    panel = open_welcome(qtbot, win)
    text = panel.prose_text()
    assert "code bar" in text and "Ctrl+Enter" in text
    win.set_language("zh")
    qtbot.waitUntil(lambda: "代码栏" in panel.prose_text(), timeout=20_000)
    assert "Ctrl+Enter" in panel.prose_text()


def test_diagnoses_are_shown_by_title_with_the_code_in_a_tooltip(qtbot: QtBot,
                                                                  make_window) -> None:
    win = make_window()
    run(qtbot, win, "x = torch.tensor([[1.0, 2.0], [3.0, 4.0]]).t()")
    win.workspace.selected = "x"
    inspector = win.panels["inspector"]
    expected = diagnose(win.workspace["x"], name="x")
    codes = [d.code for d in expected]
    assert "grad-none-no-requires-grad" in codes and "non-contiguous" in codes
    qtbot.waitUntil(lambda: len(inspector.shown_diagnoses()) == len(expected))
    shown = inspector.shown_diagnoses()
    assert [tip for _text, tip in shown] == codes
    for (text, _tip), d in zip(shown, expected, strict=True):
        assert TITLES[d.code]["en"] in text and d.code not in text
    win.set_language("zh")
    qtbot.waitUntil(lambda: any(TITLES["non-contiguous"]["zh"] in t
                                for t, _ in inspector.shown_diagnoses()))
    assert [tip for _text, tip in inspector.shown_diagnoses()] == codes


def test_counts_follow_plural_rules(qtbot: QtBot, make_window) -> None:
    win = make_window()
    run(qtbot, win, "a = torch.ones(2)")
    assert win.status_label.text().startswith("1 value")
    assert "1 values" not in win.status_label.text()
    run(qtbot, win, "b = torch.zeros(3)")
    assert win.status_label.text().startswith("2 values")
    run(qtbot, win, "net = torch.nn.Linear(2, 1, bias=False)")
    texts = win.panels["inspector"].module_texts(module_summary(win.workspace["net"]))
    assert texts["parameters"] == "2 in 1 tensor"
    assert texts["with_grad"] == "0 of 1 parameter has .grad"
    win.set_language("zh")
    assert "1 values" not in win.status_label.text()


def _values(win):
    return win.panels["values"].panel


def test_copy_value_selection_as_csv_and_numpy_literal(qtbot: QtBot, make_window) -> None:
    win = make_window()
    win.show()
    qtbot.waitExposed(win)
    run(qtbot, win, "x = torch.arange(12.0).reshape(3, 4) / 3")
    win.workspace.selected = "x"
    x = win.workspace["x"]
    clipboard = QtWidgets.QApplication.clipboard()
    edit_menu = next(a.menu() for a in win.menuBar().actions() if a.text() == "&Edit")
    assert {win.edit.copy_action, win.edit.copy_numpy_action, win.edit.find_action} <= set(
        edit_menu.actions())
    copy_key = QtGui.QKeySequence(QtGui.QKeySequence.StandardKey.Copy)
    assert win.edit.copy_action.shortcut() == copy_key
    win.edit.copy_action.trigger()
    assert clipboard.text() == repr(x)
    # a selection in the Values table: CSV of exactly those cells, the same floats
    values = _values(win)
    values.set_mode("table")
    qtbot.waitUntil(lambda: values.current_view() == "table" and values.plane() is not None)
    model = values.table.model()
    sel = QtCore.QItemSelection(model.index(0, 1), model.index(1, 2))
    values.table.selectionModel().select(sel, QtCore.QItemSelectionModel.SelectionFlag.Select)
    values.table.setFocus()
    qtbot.keyClick(values.table, QtCore.Qt.Key.Key_C, QtCore.Qt.KeyboardModifier.ControlModifier)
    rows = list(csv.reader(io.StringIO(clipboard.text())))
    got = torch.tensor([[float(v) for v in r] for r in rows])
    assert torch.equal(got, x[0:2, 1:3])
    win.edit.copy_numpy_action.trigger()
    back = eval(clipboard.text(), {"np": np})
    assert back.dtype == np.float32 and torch.equal(torch.from_numpy(back), x[0:2, 1:3])
    # nothing selected in the table: the whole value as a literal
    values.table.clearSelection()
    win.edit.copy_numpy_action.trigger()
    assert torch.equal(torch.from_numpy(eval(clipboard.text(), {"np": np})), x)


def test_copy_of_a_big_value_is_a_summary(qtbot: QtBot, make_window) -> None:
    win = make_window()
    run(qtbot, win, "big = torch.zeros(500, 400)")
    win.workspace.selected = "big"
    win.edit.copy_action.trigger()
    text = QtWidgets.QApplication.clipboard().text()
    assert text.startswith("# big: tensor of shape (500, 400)") and "200,000 elements" in text
    assert "..." in text and len(text) < 3000


def test_find_selects_a_value_by_name(qtbot: QtBot, make_window) -> None:
    win = make_window()
    win.show()
    qtbot.waitExposed(win)
    run(qtbot, win, "alpha = torch.ones(1)\nbeta_weights = torch.ones(2)\ngamma = torch.ones(3)")
    win.workspace.selected = "alpha"
    win.edit.find_action.trigger()
    bar = win.edit.find_bar
    qtbot.waitUntil(bar.isVisible)
    assert bar.hasFocus() or bar.isActiveWindow()
    assert sorted(bar.names.stringList()) == ["alpha", "beta_weights", "gamma"]
    qtbot.keyClicks(bar, "weig")
    qtbot.keyClick(bar, QtCore.Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: win.workspace.selected == "beta_weights")
    assert not bar.isVisible()
    win.edit.find_action.trigger()
    qtbot.keyClicks(bar, "nothing")
    qtbot.keyClick(bar, QtCore.Qt.Key.Key_Return)
    assert win.workspace.selected == "beta_weights" and bar.isVisible()
    qtbot.keyClick(bar, QtCore.Qt.Key.Key_Escape)
    assert not bar.isVisible()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_step_titles_are_readable_in_the_step_chooser(qtbot: QtBot, make_window,
                                                      lang: str) -> None:
    win = make_window()
    win.show()
    qtbot.waitExposed(win)
    win.set_language(lang)
    panel = open_welcome(qtbot, win)
    combo = panel.step_combo
    # closed: "Step 1 of 5", all of it
    opt = QtWidgets.QStyleOptionComboBox()
    combo.initStyleOption(opt)
    label = combo.style().subControlRect(QtWidgets.QStyle.ComplexControl.CC_ComboBox, opt,
                                         QtWidgets.QStyle.SubControl.SC_ComboBoxEditField, combo)
    assert combo.fontMetrics().horizontalAdvance(combo.shown_text()) <= label.width()
    # open: every step's whole title fits the list, and is its tooltip
    combo.showPopup()
    try:
        view = combo.view()
        qtbot.waitUntil(view.isVisible)
        fm = view.fontMetrics()
        titles = [combo.itemText(i) for i in range(combo.count())]
        assert titles[0].startswith("1. ") and len(titles) == 5
        for i, title in enumerate(titles):
            assert fm.horizontalAdvance(title) < view.viewport().width()
            assert combo.itemData(i, QtCore.Qt.ItemDataRole.ToolTipRole) == title
        first = panel.lesson.step(1).title
        assert titles[0].endswith(first)
    finally:
        combo.hidePopup()


def test_small_heatmap_has_index_ticks_and_numbers_in_its_cells(qtbot: QtBot,
                                                                 make_window) -> None:
    win = make_window()
    win.resize(1280, 800)
    win.show()
    qtbot.waitExposed(win)
    run(qtbot, win, "h = torch.tensor([[1.5, -2.0, 3.25], [4.0, float('nan'), 6.0]])")
    win.workspace.selected = "h"
    win.show_panel("values")
    values = _values(win)
    qtbot.waitUntil(lambda: values.current_view() == "heatmap")
    h = win.workspace["h"]
    qtbot.waitUntil(lambda: len(values.shown_cell_labels()) == h.numel())
    for (r, c), text in values.shown_cell_labels().items():
        want = h[r, c].item()
        assert (text == "nan") if want != want else float(text) == want
    for side, n in (("bottom", h.shape[1]), ("left", h.shape[0])):
        axis = values.heat_item.getAxis(side)
        lo, hi = axis.range
        ticks = [v for _spacing, vs in axis.tickValues(lo, hi, axis.geometry().width()
                                                       if side == "bottom" else
                                                       axis.geometry().height()) for v in vs]
        assert ticks and all(float(v).is_integer() for v in ticks), ticks
        assert set(range(n)) <= {int(v) for v in ticks}
    # a large value: no numbers (too many cells in view), still whole-number ticks
    run(qtbot, win, "big = torch.rand(200, 300)")
    win.workspace.selected = "big"
    qtbot.waitUntil(lambda: values.name() == "big" and values.current_view() == "heatmap")
    qtbot.wait(50)
    assert values.shown_cell_labels() == {}


def test_unchecked_menu_check_boxes_are_visible_in_the_dark_theme(qtbot: QtBot,
                                                                  make_window) -> None:
    from tensor_explorer.qt import theme

    win = make_window()
    win.show()
    qtbot.waitExposed(win)
    win.set_theme("dark")
    assert not win.present_action.isChecked()
    view_menu = win.present_action.associatedObjects()
    menu = next(m for m in view_menu if isinstance(m, QtWidgets.QMenu))
    menu.popup(win.mapToGlobal(QtCore.QPoint(40, 40)))
    qtbot.waitUntil(menu.isVisible)
    try:
        image = menu.grab().toImage()
        item = menu.actionGeometry(win.present_action)
        box = theme.unchecked_box(item, menu.fontMetrics().height()).toAlignedRect()
        background = QtGui.QColor(image.pixel(item.right() - 4, item.top() + 2))
        edge = [QtGui.QColor(image.pixel(box.left() + dx, box.center().y()))
                for dx in range(-1, 2)]
        contrast = max(abs(c.lightness() - background.lightness()) for c in edge)
        assert contrast > 60, "the box of an unchecked item stands out from the menu"
        inside = QtGui.QColor(image.pixel(box.center()))
        assert abs(inside.lightness() - background.lightness()) < 20, "and is empty"
    finally:
        menu.hide()


@pytest.mark.parametrize("presentation", [False, True])
def test_retain_grad_chooser_is_not_cut_off_in_chinese(qtbot: QtBot, make_window,
                                                       presentation: bool) -> None:
    win = make_window()
    win.show()
    qtbot.waitExposed(win)
    run(qtbot, win, "w = torch.ones(3, requires_grad=True)\nhidden_layer = w * 2\n"
                    "loss = hidden_layer.sum()")
    win.workspace.selected = "loss"
    win.show_panel("graph")
    graph = win.panels["graph"]
    combo = graph.retain_combo
    qtbot.waitUntil(lambda: combo.count() >= 3, timeout=20_000)
    win.set_language("zh")
    if presentation:
        win.set_presentation(True)
        win.show_panel("graph")
    qtbot.waitUntil(lambda: combo.itemText(0) == graph.tr("(none)") and combo.isVisible())
    QtWidgets.QApplication.processEvents()
    opt = QtWidgets.QStyleOptionComboBox()
    combo.initStyleOption(opt)
    field = combo.style().subControlRect(QtWidgets.QStyle.ComplexControl.CC_ComboBox, opt,
                                         QtWidgets.QStyle.SubControl.SC_ComboBoxEditField, combo)
    fm = combo.fontMetrics()
    for i in range(combo.count()):
        assert fm.horizontalAdvance(combo.itemText(i)) <= field.width(), combo.itemText(i)
    assert combo.width() >= combo.sizeHint().width()


def test_drop_down_lists_draw_no_check_box_over_their_items(qtbot: QtBot, make_window) -> None:
    """#27 point 5: every item of a drop-down list had an empty check box drawn over its first
    character ("□reating and inspecting tensors"): the menus' unchecked box was drawn in
    combo box lists too (Fusion draws their items as menu items). A list item is drawn as
    Fusion draws it; a menu's unchecked item still gets its box."""
    from tensor_explorer.qt import theme

    win = make_window()
    combo = win.panels["lesson"].lesson_combo
    menu = QtWidgets.QMenu(win)
    ours, fusion = theme.MenuCheckStyle("Fusion"), QtWidgets.QStyleFactory.create("Fusion")
    option = QtWidgets.QStyleOptionMenuItem()
    option.initFrom(combo)
    option.rect = QtCore.QRect(0, 0, 300, 24)
    option.text = "Creating and inspecting tensors"
    option.menuItemType = QtWidgets.QStyleOptionMenuItem.MenuItemType.Normal
    option.checkType = QtWidgets.QStyleOptionMenuItem.CheckType.NonExclusive
    option.checked = False

    def drawn(style: QtWidgets.QStyle, widget: QtWidgets.QWidget) -> QtGui.QImage:
        image = QtGui.QImage(300, 24, QtGui.QImage.Format.Format_ARGB32)
        image.fill(QtGui.QColor("white"))
        painter = QtGui.QPainter(image)
        style.drawControl(QtWidgets.QStyle.ControlElement.CE_MenuItem, option, painter, widget)
        painter.end()
        return image

    assert drawn(ours, combo) == drawn(fusion, combo)  # a list's item: no box
    assert drawn(ours, menu) != drawn(fusion, menu)  # a menu's unchecked item: its box


def test_a_long_status_message_never_runs_into_the_value_counter(qtbot: QtBot,
                                                                  make_window) -> None:
    """#27 point 6: a long status-bar message was drawn over the value counter
    ("…colo9 values — selected: c")."""
    win = make_window()
    win.resize(1280, 800)
    win.show()
    qtbot.waitExposed(win)
    run(qtbot, win, "x = torch.ones(3)")
    bar = win.statusBar()
    long = "the colour range goes from the 1st to the 99th percentile of the finite values " * 4
    bar.showMessage(long, 5000)
    shown = QtWidgets.QStatusBar.currentMessage(bar)  # what Qt paints
    width = bar.fontMetrics().horizontalAdvance(shown)
    counter = win.status_label.geometry()
    assert shown != long and shown.endswith("…")
    assert 8 + width < counter.left(), (width, counter)
    assert bar.currentMessage() == long and bar.toolTip() == long  # all of it, for who asks
    win.resize(1000, 800)  # elided again to the new room
    qtbot.waitUntil(lambda: QtWidgets.QStatusBar.currentMessage(bar) != shown)
    again = QtWidgets.QStatusBar.currentMessage(bar)
    assert bar.fontMetrics().horizontalAdvance(again) + 8 < win.status_label.geometry().left()
