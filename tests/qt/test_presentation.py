"""Switching language, theme or presentation mode keeps the window as it was; presentation mode
arranges the docks for a projector (the lesson, one panel on a stage, a bar of panel buttons)
and gives them back exactly."""

from __future__ import annotations

import os

import pytest
from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot

from tensor_explorer.core.workspace import Workspace
from tensor_explorer.qt import theme
from tensor_explorer.qt.docks import LAYOUT_VERSION, DockTitleBar, settle_layouts

TIMEOUT = 20_000


def dock_states(win) -> dict[str, tuple[bool, bool, int]]:
    QtCore.QCoreApplication.sendPostedEvents()
    return {name: (not d.isHidden(), d.isFloating(), int(win.dockWidgetArea(d).value))
            for name, d in win.docks.items()}


def in_view(win) -> set[str]:
    """Docks a person can see: shown and not behind another tab."""
    QtCore.QCoreApplication.sendPostedEvents()
    shown = set()
    for name, dock in win.docks.items():  # a dock behind another's tab is moved off screen
        where = QtCore.QRect(dock.mapTo(win, QtCore.QPoint(0, 0)), dock.size())
        if dock.isVisible() and win.rect().intersects(where):
            shown.add(name)
    return shown


def open_lesson(qtbot: QtBot, win, name: str = "autograd-chain") -> None:
    panel = win.panels["lesson"]
    with qtbot.waitSignal(panel.step_shown, timeout=TIMEOUT):
        win.open_lesson(name)
    qtbot.waitUntil(lambda: not panel.busy and not win.runner.busy, timeout=TIMEOUT)


def test_language_and_theme_switches_keep_every_dock_and_the_output(qtbot: QtBot,
                                                                    make_window) -> None:
    ws = Workspace()
    ws.run("x = torch.ones(2, 3)")
    ws.selected = "x"
    win = make_window(ws)
    win.resize(1280, 800)
    win.show()
    win.docks["memory"].hide()  # View ▸ Memory unchecked
    win.docks["code"].setFloating(True)
    console = win.panels["console"]
    console._print("a line the user must not lose")
    before, panels = dock_states(win), dict(win.panels)
    for switch in (lambda: win.set_language("zh"), lambda: win.set_theme("dark"),
                   lambda: win.set_language("en"), lambda: win.set_theme("light")):
        switch()
        assert dock_states(win) == before
        assert not win.docks["memory"].toggleViewAction().isChecked()
        assert "a line the user must not lose" in console.output_text()
        assert all(win.panels[n] is p for n, p in panels.items())
        assert win.workspace.selected == "x"


def test_dock_titles_follow_language_and_presentation_size(qtbot: QtBot, make_window) -> None:
    win = make_window()
    bar = win.docks["graph"].titleBarWidget()
    assert isinstance(bar, DockTitleBar)
    win.set_language("zh")
    assert bar.label.text() == win.docks["graph"].windowTitle() == "计算图"
    small = bar.label.font().pointSizeF()
    win.set_presentation(True)
    assert bar.label.font().pointSizeF() >= theme.PRESENTATION_MIN_POINT_SIZE > small
    win.set_presentation(False)
    assert bar.label.font().pointSizeF() == small


def test_presentation_puts_the_lesson_and_one_panel_in_view(qtbot: QtBot, make_window) -> None:
    win = make_window()
    win.resize(1280, 800)
    win.show()
    open_lesson(qtbot, win)
    before = dock_states(win)
    win.set_presentation(True)
    stage = win.stage
    assert stage.active and stage.bar.isVisible()
    shown = in_view(win)
    assert "lesson" in shown and len(shown) == 2, shown
    assert not [b for b in win.findChildren(QtWidgets.QTabBar)
                if b.parent() is win and b.isVisible()], "no tab bar: one panel on the stage"
    assert not stage.actions["lesson"].isVisible()
    # a panel button (or a lesson step, or Ctrl+N) puts its panel on the stage, alone
    stage.actions["memory"].trigger()
    assert in_view(win) == {"lesson", "memory"}
    win.show_panel("graph")
    assert in_view(win) == {"lesson", "graph"} and stage.actions["graph"].isChecked()
    # the step's panel comes onto the stage when the lesson moves on
    panel = win.panels["lesson"]
    with qtbot.waitSignal(panel.step_shown, timeout=TIMEOUT):
        panel.go_to(1)
    qtbot.waitUntil(lambda: in_view(win) == {"lesson", panel.lesson.step(1).panel},
                    timeout=TIMEOUT)
    win.set_presentation(False)
    assert dock_states(win) == before
    assert not stage.bar.isVisible()


def test_presentation_without_a_lesson_keeps_the_workspace_on_the_left(qtbot,
                                                                         make_window) -> None:
    win = make_window()
    win.resize(1280, 800)
    win.show()
    win.set_presentation(True)
    assert "workspace" in in_view(win) and len(in_view(win)) == 2
    assert not win.stage.actions["workspace"].isVisible()
    assert win.stage.actions["lesson"].isVisible()
    win.set_presentation(False)


def test_presentation_is_remembered_and_the_normal_layout_saved(qtbot, make_window) -> None:
    win = make_window(remember=True)
    win.resize(1280, 800)
    win.show()
    open_lesson(qtbot, win)
    normal = win.saveState(LAYOUT_VERSION)
    win.set_presentation(True)
    assert win.saveState(LAYOUT_VERSION) != normal
    win.close()
    assert win.settings.value("window_state") == normal
    again = make_window(remember=True)
    again.resize(1280, 800)
    again.show()
    assert again.stage.active and again.present_action.isChecked()
    assert len(in_view(again)) == 2
    again.set_presentation(False)  # back to the lesson layout: every panel there, tabbed
    assert all(not d.isHidden() for d in again.docks.values())
    assert not again.stage.bar.isVisible()


def test_memory_captions_wrap_inside_the_drawing(qtbot: QtBot, make_window) -> None:
    """On a projector, the long "how it was made" captions of the memory drawing wrap at the
    drawing's width instead of running off its edge (in Chinese too)."""
    ws = Workspace()
    ws.run("x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])\n"
           "w = torch.randn(3, 4, requires_grad=True)\n"
           "array = np.ones((2, 3), dtype=np.float32)\nshared = torch.from_numpy(array)")
    win = make_window(ws)
    win.resize(1280, 800)
    win.show()
    for lang in ("en", "zh"):
        win.set_language(lang)
        win.set_presentation(True)
        win.show_panel("memory")
        panel = win.panels["memory"]
        qtbot.waitUntil(panel.is_ready, timeout=TIMEOUT)
        QtWidgets.QApplication.processEvents()
        visible = panel.view.viewport().width()
        texts = [i for i in panel.scene.items()
                 if isinstance(i, QtWidgets.QGraphicsSimpleTextItem)]
        assert any("torch.randn" in i.text() for i in texts)
        beyond = [i.text() for i in texts if i.sceneBoundingRect().right() > visible + 1]
        assert beyond == [], beyond
        win.set_presentation(False)


def test_starting_in_presentation_mode_fits_at_1280x800(qtbot: QtBot, make_window) -> None:
    """A window that starts in presentation mode (remembered, in Chinese, on a lesson) sizes
    its stage like one switched to it: nothing cut off, nothing scrolled sideways."""
    from tests.qt.layout_audit import audit, settle

    win = make_window(remember=True)
    win.set_language("zh")
    win.resize(1280, 800)
    win.show()
    open_lesson(qtbot, win)
    win.set_presentation(True)
    win.close()
    again = make_window(remember=True)
    again.resize(1280, 800)
    again.show()
    settle()
    assert again.stage.active
    left = again.docks[again.stage.left]
    assert left.width() == pytest.approx(0.4 * again.width(), abs=20)
    assert audit(again, min_point_size=theme.PRESENTATION_MIN_POINT_SIZE) == []
    again.set_presentation(False)


def test_switching_back_and_forth_never_moves_a_dock_edge(qtbot: QtBot, make_window) -> None:
    """Each F5 on/off and each language switch gives every dock its size back: the bars keep
    one height in both languages, presentation mode restores after the bars shrank back (a
    separator used to creep ~11 px per F5 cycle and ~2 px per language switch)."""
    from tests.qt.layout_audit import settle

    win = make_window()
    win.resize(1280, 800)
    win.show()
    settle()

    def sizes() -> dict[str, tuple[int, int]]:
        settle()
        return {n: (d.width(), d.height()) for n, d in win.docks.items() if d.isVisible()}

    before = sizes()
    for _ in range(4):
        win.set_presentation(True)
        settle()
        win.set_presentation(False)
    assert sizes() == before
    for _ in range(4):
        win.set_language("zh")
        settle()
        win.set_language("en")
    assert sizes() == before
    for _ in range(2):
        win.set_language("zh")
        win.set_presentation(True)
        settle()
        win.set_language("en")
        win.set_presentation(False)
    assert sizes() == before


def test_leaving_presentation_mode_it_started_in_gives_the_default_layout(
        qtbot: QtBot, make_window) -> None:
    """A first start in presentation mode (no layout remembered yet), then F5: the normal
    layout has the default proportions. It used to restore the docks as they were before the
    window was first shown, unsized, so the Values panel was a strip 90 pixels high."""
    settings = QtCore.QSettings(os.environ["TENSOR_EXPLORER_SETTINGS"],
                                QtCore.QSettings.Format.IniFormat)
    settings.setValue("presentation", "true")  # as a teacher's settings file might say
    settings.sync()
    win = make_window(remember=True)
    win.resize(1280, 800)
    win.show()
    settle_layouts()
    assert win.stage.active
    win.set_presentation(False)
    settle_layouts()
    values, console = win.docks["values"], win.docks["console"]
    workspace = win.docks["workspace"]
    assert values.height() > 0.5 * win.height() > console.height()
    assert values.width() > 0.6 * win.width() > workspace.width()
    # and the proportions are the ones a window that started in normal mode gets
    plain = make_window()
    plain.resize(1280, 800)
    plain.show()
    settle_layouts()
    assert values.geometry() == plain.docks["values"].geometry()


def test_the_values_choosers_shrink_back_after_presentation_mode(qtbot: QtBot,
                                                                 make_window) -> None:
    """A window that starts in presentation mode: after F5 its row/column/colour choosers are
    as small as a normal window's (Qt keeps a combo box's first minimum size across a font
    change: they stayed projector-sized)."""
    ws = Workspace()
    ws.run("a = torch.arange(6.0).reshape(2, 3)")
    ws.selected = "a"
    normal = make_window(ws)
    normal.resize(1280, 800)
    normal.show()
    values = normal.panels["values"].panel
    qtbot.waitUntil(lambda: values.plane() is not None)
    settle_layouts()
    small = [b.size() for b in (values.heatmap.levels_box, values.row_axis_box)]
    theme.state().apply(scale=theme.PRESENTATION_SCALE)  # as the settings would start it
    win = make_window(ws)
    win.resize(1280, 800)
    win.show()
    win.show_panel("values")
    values = win.panels["values"].panel
    qtbot.waitUntil(lambda: values.plane() is not None)
    settle_layouts()
    boxes = [values.heatmap.levels_box, values.row_axis_box]
    assert win.stage.active and all(
        b.height() > s.height() for b, s in zip(boxes, small, strict=True))
    win.set_presentation(False)
    settle_layouts()
    assert [b.size() for b in boxes] == small


def test_the_code_bar_on_the_stage_shows_the_latest_output(qtbot: QtBot, make_window) -> None:
    """#27 point 2: F5's code stage opened scrolled to old output, not the latest."""
    from tests.qt.window_run import run

    win = make_window()
    win.resize(1280, 800)
    win.show()
    for i in range(40):
        run(qtbot, win, f"v{i} = torch.full((3,), {i}.0)\nprint('line', {i})")
    output = win.panels["console"].output
    bar = output.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())
    win.set_presentation(True)
    win.show_panel("console")
    qtbot.waitUntil(lambda: win.stage.current == "console", timeout=TIMEOUT)
    QtWidgets.QApplication.processEvents()
    assert bar.value() == bar.maximum() and "line 39" in output.toPlainText()
    last = output.cursorRect(output.textCursor())
    assert output.viewport().rect().contains(last.center())
    bar.setValue(0)  # a person scrolled up to read: it stays there when the size changes
    win.set_presentation(False)
    QtWidgets.QApplication.processEvents()
    assert bar.value() == 0
