"""The main window: panels follow the workspace, actions run as statements, files open,
bad input gives messages, settings are remembered."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from PySide6 import QtCore, QtGui, QtWidgets
from pytestqt.qtbot import QtBot

from tensor_explorer.core.workspace import Workspace
from tensor_explorer.qt.main_window import PANELS
from tests.qt.window_run import run


def test_every_panel_is_a_dock(make_window) -> None:
    win = make_window()
    from tensor_explorer.qt.main_window import LAZY

    assert not set(LAZY) & set(dict.keys(win.panels)), "hidden panels wait until first shown"
    assert set(win.docks) == set(PANELS)
    for name, dock in win.docks.items():
        panel = win.panels[name]  # hidden panels are built on first use
        assert dock.widget().widget() is panel  # in a PanelFrame: it scrolls when short
    visible_bars = [tb for tb in win.findChildren(QtWidgets.QTabBar) if tb.isVisibleTo(win)]
    texts = [tuple(tb.tabText(i) for i in range(tb.count())) for tb in visible_bars]
    assert len(texts) == len(set(texts)), "no duplicate (stray) tab bars"


def test_code_bar_runs_and_every_panel_follows(qtbot: QtBot, make_window) -> None:
    win = make_window()
    console = win.panels["console"]
    console.editor.setPlainText("x = torch.arange(6.0).reshape(2, 3)\ny = x.t()")
    with qtbot.waitSignal(win.runner.finished, timeout=20_000):
        console.run_editor()
    qtbot.waitUntil(lambda: win.panels["workspace"].names_shown() == ["x", "y"])
    qtbot.waitUntil(lambda: win.workspace.selected == "y")
    facts = win.panels["inspector"].shown_facts()
    assert facts["stride"] == str(tuple(win.workspace["y"].stride()))
    assert facts["is_contiguous"] == "False"
    assert "y = x.t()" in win.panels["code"].script()
    assert ">>> x = torch.arange(6.0).reshape(2, 3)" in console.output_text()


def test_failing_statement_shows_plain_error_and_keeps_workspace(qtbot, make_window) -> None:
    win = make_window()
    run(qtbot, win, "a = torch.ones(2, 3)")
    run(qtbot, win, "b = a @ a")
    text = win.panels["console"].output_text()
    assert "Line 1" in text and "a:" in text and "Traceback" not in text
    assert win.workspace.names() == ["a"]


def test_workspace_actions_run_as_statements(qtbot: QtBot, make_window) -> None:
    win = make_window()
    run(qtbot, win, "t = torch.ones(2)")
    panel = win.panels["workspace"]
    for action in (
        lambda: panel.duplicate("t"),
        lambda: panel.convert_dtype("t", "float64"),
        lambda: panel.rename("t_copy", "u"),
        lambda: panel.move_to_device("u", "meta"),
    ):
        with qtbot.waitSignal(win.runner.finished, timeout=20_000):
            action()
    ws = win.workspace
    assert ws["t"].dtype == torch.float64
    assert "t_copy" not in ws and ws["u"].device.type == "meta"
    sources = [r.source for r in ws.history if r.kind == "run"]
    assert "t_copy = t.clone()" in sources and "t = t.to(torch.float64)" in sources
    with qtbot.waitSignal(win.runner.finished, timeout=20_000):
        win.workspace.selected = "u"
        panel.delete_selected()
    assert "u" not in ws


def test_open_files_and_bad_files(qtbot: QtBot, make_window, tmp_path: Path) -> None:
    win = make_window()
    np.save(tmp_path / "data.npy", np.arange(12.0).reshape(3, 4))
    (tmp_path / "bad.npy").write_bytes(b"\x93NUMPY\x01\x00junk")
    (tmp_path / "prog.py").write_text("z = torch.zeros(3)\n")
    win.open_paths([str(tmp_path / "data.npy")])
    qtbot.waitUntil(lambda: "data" in win.workspace, timeout=10_000)
    win.open_paths([str(tmp_path / "bad.npy")])
    qtbot.waitUntil(lambda: "bad.npy" in win.panels["console"].output_text(), timeout=10_000)
    assert "truncated" in win.statusBar().currentMessage()
    assert "Traceback" not in win.panels["console"].output_text()
    with qtbot.waitSignal(win.runner.finished, timeout=20_000):
        win.open_paths([str(tmp_path / "prog.py")])
    assert win.workspace.names() == ["data", "z"]


def test_drop_opens_files(qtbot: QtBot, make_window, tmp_path: Path) -> None:
    win = make_window()
    np.save(tmp_path / "dropped.npy", np.ones(3))
    mime = QtCore.QMimeData()
    mime.setUrls([QtCore.QUrl.fromLocalFile(str(tmp_path / "dropped.npy"))])
    event = QtGui.QDropEvent(
        QtCore.QPointF(10, 10),
        QtCore.Qt.DropAction.CopyAction,
        mime,
        QtCore.Qt.MouseButton.LeftButton,
        QtCore.Qt.KeyboardModifier.NoModifier,
    )
    win.dropEvent(event)
    qtbot.waitUntil(lambda: "dropped" in win.workspace, timeout=10_000)


def test_stop_a_runaway_program(qtbot: QtBot, make_window) -> None:
    win = make_window()
    run(qtbot, win, "keep = torch.ones(1)")
    with qtbot.waitSignal(win.runner.failed, timeout=20_000) as blocker:
        win.runner.run("while True:\n    pass")
        QtCore.QTimer.singleShot(200, win.runner.stop)
    assert blocker.args[0].cancelled
    assert win.workspace.names() == ["keep"]


def test_settings_remember_theme_language_and_recent(qtbot, make_window, tmp_path) -> None:
    win = make_window(remember=True)
    win.set_theme("dark")
    win.set_presentation(True)
    np.save(tmp_path / "r.npy", np.ones(2))
    win.open_paths([str(tmp_path / "r.npy")])
    qtbot.waitUntil(lambda: bool(win.recent_files()), timeout=10_000)
    win.close()
    again = make_window(remember=True)
    from tensor_explorer.qt import theme

    assert theme.current().name == "dark" and theme.state().presentation
    assert again.dark_action.isChecked() and again.present_action.isChecked()
    assert again.recent_files() == [str((tmp_path / "r.npy").resolve())]


def test_presentation_mode_scales_text(make_window) -> None:
    win = make_window()
    base = QtWidgets.QApplication.font().pointSizeF()
    win.set_presentation(True)
    assert QtWidgets.QApplication.font().pointSizeF() > base * 1.4
    win.set_presentation(False)
    assert QtWidgets.QApplication.font().pointSizeF() == base


def test_explored_values_show(qtbot: QtBot, make_window) -> None:
    ws = Workspace()
    ws["a"] = torch.randn(3, 3)
    ws["b"] = np.zeros((2, 2), np.int32)
    ws.selected = "b"
    win = make_window(ws)
    assert win.panels["workspace"].names_shown() == ["a", "b"]
    assert win.panels["inspector"].shown_facts()["dtype"] == "int32"


def test_table_edit_runs_as_a_statement_and_updates_aliases(qtbot: QtBot, make_window) -> None:
    win = make_window()
    run(qtbot, win, "array = np.zeros((2, 2), dtype=np.float32)\nshared = torch.from_numpy(array)")
    win.workspace.selected = "array"
    values = win.panels["values"]
    changed: list[str] = []
    win.bridge.changed.connect(changed.append)
    with qtbot.waitSignal(win.runner.finished, timeout=20_000):
        values._write("array", (0, 1), np.float32(99.0))
    assert win.workspace["shared"][0, 1] == 99.0
    assert "array[0, 1] = 99.0" in [r.source for r in win.workspace.history]
    qtbot.waitUntil(lambda: "shared" in changed)
    with qtbot.waitSignal(win.runner.finished, timeout=20_000):
        values._write("array", (1, 1), float("nan"))
    assert np.isnan(win.workspace["array"][1, 1])
    run(qtbot, win, "w = torch.ones(2, requires_grad=True)")
    import pytest

    with pytest.raises(ValueError, match="grad"):
        values._write("w", (0,), 1.0)


def test_save_and_open_a_session(qtbot: QtBot, make_window, tmp_path: Path) -> None:
    win = make_window()
    run(qtbot, win, "array = np.arange(4.0)\nshared = torch.from_numpy(array)")
    path = tmp_path / "s.txs"
    assert win.save_session(str(path))
    other = make_window()
    other.open_paths([str(path)])
    qtbot.waitUntil(lambda: other.workspace.names() == ["array", "shared"], timeout=10_000)
    other.workspace["array"][0] = 42.0  # still one buffer after opening
    assert other.workspace["shared"][0] == 42.0
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert not win.save_session(str(blocker / "s.txs"))  # cannot write: a message, no crash
    assert "Save session" in win.panels["console"].output_text()


def test_language_switches_leave_one_set_of_menus_and_working_shortcuts(
    qtbot: QtBot, make_window
) -> None:
    # The UI is rebuilt on a language change: the old menus and actions must go, or their
    # shortcuts become ambiguous (Qt then runs none of them) and point at deleted panels.
    win = make_window()
    win.show()
    qtbot.waitExposed(win)
    for lang in ("zh", "en", "zh"):
        win.set_language(lang)
    QtWidgets.QApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    QtWidgets.QApplication.processEvents()
    actions = win.findChildren(QtGui.QAction)
    for keys in ("Ctrl+Return", "Ctrl+O", "F5", "Ctrl+Shift+D"):
        seq = QtGui.QKeySequence(keys)
        assert len([a for a in actions if a.shortcut() == seq]) == 1, keys
    direct = QtCore.Qt.FindChildOption.FindDirectChildrenOnly
    menus = win.menuBar().findChildren(QtWidgets.QMenu, options=direct)
    assert [m.title() for m in menus] == [a.text() for a in win.menuBar().actions()]
    # the window-wide Ctrl+Enter runs the (new) code bar
    console = win.panels["console"]
    console.editor.setPlainText("z = torch.ones(3)")
    console.editor.setFocus()
    with qtbot.waitSignal(win.runner.finished, timeout=20_000):
        qtbot.keyClick(console.editor, QtCore.Qt.Key.Key_Return,
                       QtCore.Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: "z" in win.workspace.names())
