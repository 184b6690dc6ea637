"""Undo and "nothing lost" in the real window (#16 points 1 and 2): Edit ▸ Undo after a delete,
an in-place change and a backward; a lesson, a session or New replacing unsaved work asks
(Save / Discard / Cancel) and is undoable; quitting asks and keeps the last session.

Ground truth comes from torch: values, ``untyped_storage().data_ptr()`` for sharing, ``.grad``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import torch
from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot

from tensor_explorer.core.lessons import shipped_lessons
from tensor_explorer.qt.autosave import Autosaver, last_session_path
from tests.qt.window_run import run

TIMEOUT = 30_000




def answer_next_question(button: QtWidgets.QMessageBox.StandardButton,
                         seen: list[str]) -> None:
    """Answer the next modal question box with ``button`` (recording its text and its
    informative text in ``seen``)."""

    def click() -> None:
        box = QtWidgets.QApplication.activeModalWidget()
        if not isinstance(box, QtWidgets.QMessageBox):
            QtCore.QTimer.singleShot(20, click)  # not shown yet
            return
        seen.append(box.text() + "\n" + box.informativeText())
        box.button(button).click()

    QtCore.QTimer.singleShot(0, click)


def undo_action(win):
    return win.undo.undo_action


def test_delete_then_undo_brings_back_the_value_and_its_sharing(qtbot: QtBot,
                                                                 make_window) -> None:
    win = make_window()
    run(qtbot, win, "a = torch.arange(6.0)\nb = a[2:]")
    ptr = win.workspace["a"].untyped_storage().data_ptr()
    win.workspace.selected = "a"
    ws_panel = win.panels["workspace"]
    ws_panel.delete_action.trigger()
    qtbot.waitUntil(lambda: "a" not in win.workspace.names())
    qtbot.waitUntil(lambda: "del a" in undo_action(win).text())  # says what it undoes
    edit = next(a.menu() for a in win.menuBar().actions() if a.menu() and
                win.undo.undo_action in a.menu().actions())
    assert win.undo.redo_action in edit.actions()
    undo_action(win).trigger()
    qtbot.waitUntil(lambda: "a" in win.workspace.names())
    a, b = win.workspace["a"], win.workspace["b"]
    assert torch.equal(a, torch.arange(6.0))
    assert a.untyped_storage().data_ptr() == ptr == b.untyped_storage().data_ptr()
    qtbot.waitUntil(lambda: "a" in win.panels["workspace"].names_shown())
    win.undo.redo_action.trigger()  # and again: gone
    qtbot.waitUntil(lambda: "a" not in win.workspace.names())


def test_undo_an_in_place_change_and_a_backward(qtbot: QtBot, make_window) -> None:
    win = make_window()
    run(qtbot, win, "w = torch.ones(3, requires_grad=True)\nd = torch.zeros(4)\nv = d[1:3]")
    run(qtbot, win, "v.add_(5)")
    assert win.workspace["d"].tolist() == [0, 5, 5, 0]
    assert "v.add_(5)" in undo_action(win).text()
    undo_action(win).trigger()
    d, v = win.workspace["d"], win.workspace["v"]
    assert d.tolist() == [0, 0, 0, 0] and v.tolist() == [0, 0]
    assert v.untyped_storage().data_ptr() == d.untyped_storage().data_ptr()  # still a view
    run(qtbot, win, "(w * 2).sum().backward()")
    assert win.workspace["w"].grad.tolist() == [2, 2, 2]
    undo_action(win).trigger()
    assert win.workspace["w"].grad is None
    win.undo.redo_action.trigger()
    assert win.workspace["w"].grad.tolist() == [2, 2, 2]


def test_another_lesson_asks_before_replacing_unsaved_work(qtbot: QtBot, make_window) -> None:
    win = make_window(ask=True)
    lessons = list(shipped_lessons())
    with qtbot.waitSignal(win.panels["lesson"].step_shown, timeout=TIMEOUT):
        win.open_lesson(lessons[0])
    qtbot.waitUntil(lambda: not win.runner.busy and not win.panels["lesson"].stepping)
    assert not win.undo.unsaved  # the lesson's own steps are not the user's work
    run(qtbot, win, "mine = torch.arange(20)")
    assert win.undo.unsaved
    before = win.workspace.names()
    seen: list[str] = []
    answer_next_question(QtWidgets.QMessageBox.StandardButton.Cancel, seen)
    win.open_lesson(lessons[1])
    assert seen and "not saved" in seen[0]
    assert win.workspace.names() == before  # Cancel: nothing replaced
    assert win.panels["lesson"].lesson.name == lessons[0]
    answer_next_question(QtWidgets.QMessageBox.StandardButton.Discard, seen)
    with qtbot.waitSignal(win.panels["lesson"].step_shown, timeout=TIMEOUT):
        win.open_lesson(lessons[1])
    qtbot.waitUntil(lambda: not win.runner.busy and not win.panels["lesson"].stepping)
    assert "mine" not in win.workspace.names()
    for _ in range(50):  # Discard is undoable: step back until the user's value returns
        # (undo waits while anything runs: on a loaded machine a step may still be finishing)
        qtbot.waitUntil(lambda: not win.runner.busy and not win.panels["lesson"].stepping,
                        timeout=TIMEOUT)
        QtWidgets.QApplication.processEvents()
        if "mine" in win.workspace.names() or not undo_action(win).isEnabled():
            break
        undo_action(win).trigger()
    assert torch.equal(win.workspace["mine"], torch.arange(20))


def test_new_and_a_session_ask_and_new_is_undoable(qtbot: QtBot, make_window,
                                                   tmp_path: Path) -> None:
    win = make_window(ask=True)
    run(qtbot, win, "x = torch.tensor([1.0, 2.0])")
    win.workspace.save(tmp_path / "s.txs")
    run(qtbot, win, "y = x * 3")
    seen: list[str] = []
    answer_next_question(QtWidgets.QMessageBox.StandardButton.Cancel, seen)
    win.open_paths([str(tmp_path / "s.txs")])
    assert len(seen) == 1 and win.workspace.names() == ["x", "y"]
    answer_next_question(QtWidgets.QMessageBox.StandardButton.Discard, seen)
    win.new_action.trigger()
    assert len(seen) == 2 and win.workspace.names() == []
    undo_action(win).trigger()
    assert win.workspace.names() == ["x", "y"]
    assert win.workspace["y"].tolist() == [3.0, 6.0]


def test_quit_with_unsaved_work_asks_and_keeps_the_last_session(qtbot: QtBot, make_window,
                                                               tmp_path: Path) -> None:
    win = make_window(ask=True)
    win.autosaver = Autosaver(win, tmp_path / "recovery.txs", interval_ms=10)
    run(qtbot, win, "kept = torch.linspace(0, 1, 5)")
    seen: list[str] = []
    answer_next_question(QtWidgets.QMessageBox.StandardButton.Cancel, seen)
    assert not win.close()  # Cancel: the window stays, with its values
    assert seen and "kept" in win.workspace.names()
    answer_next_question(QtWidgets.QMessageBox.StandardButton.Discard, seen)
    assert win.close()
    assert len(seen) == 2 and "Reopen last session" in seen[1] and "Undo" not in seen[1]
    last = last_session_path(tmp_path / "recovery.txs")
    assert last.is_file() and not (tmp_path / "recovery.txs").exists()  # clean: no "crash"
    again = make_window()
    again.autosaver = Autosaver(again, tmp_path / "recovery.txs", interval_ms=10)
    again.files.update_reopen_last()
    assert again.reopen_last_action.isEnabled()
    again.reopen_last_action.trigger()
    qtbot.waitUntil(lambda: "kept" in again.workspace.names(), timeout=TIMEOUT)
    assert torch.equal(again.workspace["kept"], torch.linspace(0, 1, 5))


def test_saving_a_session_means_nothing_is_asked(qtbot: QtBot, make_window,
                                                 tmp_path: Path,
                                                 monkeypatch) -> None:
    win = make_window(ask=True)
    run(qtbot, win, "z = torch.zeros(2)")
    assert win.undo.unsaved
    assert win.save_session(str(tmp_path / "z.txs"))
    assert not win.undo.unsaved
    asked: list[Callable[..., object]] = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "exec", lambda self: asked.append(self) or 0)
    assert win.close() and not asked


def test_ctrl_z_in_a_fresh_code_bar_undoes_the_statement(qtbot: QtBot, make_window) -> None:
    """Typing is undone by the editor while there is typing to undo; once a statement ran and
    the code bar is fresh, Ctrl+Z takes back what the statement did."""
    from PySide6.QtCore import Qt

    win = make_window()
    win.show()
    qtbot.waitExposed(win)
    editor = win.panels["console"].editor
    run(qtbot, win, "kept = torch.ones(2)")
    editor.setFocus()
    win.activateWindow()
    editor.setPlainText("")
    qtbot.keyClicks(editor, "del kept")
    with qtbot.waitSignal(win.runner.busy_changed, timeout=TIMEOUT,
                          check_params_cb=lambda busy: not busy):
        qtbot.keyClick(editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: editor.toPlainText() == "")
    assert "kept" not in win.workspace.names()
    qtbot.keyClicks(editor, "abc")
    qtbot.keyClick(editor, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # the typing
    assert editor.toPlainText() != "abc" and "kept" not in win.workspace.names()
    editor.clear()
    qtbot.keyClick(editor, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # the statement
    qtbot.waitUntil(lambda: "kept" in win.workspace.names())
    assert torch.equal(win.workspace["kept"], torch.ones(2))


def test_a_cell_edit_is_undone_in_every_alias(qtbot: QtBot, make_window) -> None:
    """A table edit writes in place (through a statement); Edit ▸ Undo puts the old element
    back, seen through the NumPy array that shares the tensor's memory."""
    win = make_window()
    run(qtbot, win, "a = np.zeros((2, 3), dtype=np.float32)\nt = torch.from_numpy(a)")
    values = win.panels["values"].panel
    values.set_mode("table")
    win.workspace.selected = "t"
    qtbot.waitUntil(lambda: values.name() == "t" and values.plane() is not None)
    with qtbot.waitSignal(win.runner.busy_changed, timeout=TIMEOUT,
                          check_params_cb=lambda busy: not busy):
        assert values.model.setData(values.model.index(1, 2), "7.5")
    a, t = win.workspace["a"], win.workspace["t"]
    assert a[1, 2] == 7.5 and t[1, 2].item() == 7.5
    assert t.untyped_storage().data_ptr() == a.__array_interface__["data"][0]
    undo_action(win).trigger()
    assert a[1, 2] == 0.0 and t[1, 2].item() == 0.0  # the same memory, written back
    assert win.workspace["a"] is a and win.workspace["t"] is t
    win.undo.redo_action.trigger()
    assert a[1, 2] == 7.5


def test_why_a_change_cannot_be_undone_is_said_in_the_windows_language(
        qtbot: QtBot, make_window, monkeypatch) -> None:
    from tensor_explorer.core import undo

    win = make_window()
    win.set_language("zh")
    run(qtbot, win, "big = torch.zeros(1000, 1000)")
    monkeypatch.setattr(undo.budget, "change", 1 << 20)  # 1 MiB: big is 4 MB
    run(qtbot, win, "big.add_(1)")
    qtbot.waitUntil(lambda: "无法撤销" in win.statusBar().currentMessage(), timeout=5000)
    said = win.statusBar().currentMessage()
    assert "超过 1 MiB" in said and "changed more than" not in said
    assert undo_action(win).isEnabled() is False


def test_lesson_previous_reset_and_jump_back_ask_before_replacing_your_values(
        qtbot: QtBot, make_window) -> None:
    """#25: with values of the user's own, Previous left 6 of 22 and Reset left 1, with no
    question. Now each asks (Save / Discard / Cancel); Cancel keeps every value and the step;
    going forward never asks; after Discard the lesson replays and Undo brings the values back."""
    win = make_window(ask=True)
    panel = win.panels["lesson"]

    def settle() -> None:
        qtbot.waitUntil(lambda: not win.runner.busy and not panel.busy, timeout=TIMEOUT)

    with qtbot.waitSignal(panel.step_shown, timeout=TIMEOUT):
        win.open_lesson("welcome")
    settle()
    panel.next_step()
    settle()
    panel.next_step()
    settle()
    assert panel.current == 3
    run(qtbot, win, "\n".join(f"mine{i} = torch.full((2,), {i}.0)" for i in range(22)))
    before = win.workspace.names()
    seen: list[str] = []
    for navigate in (panel.previous_step, panel.reset, lambda: panel.go_to(1)):
        answer_next_question(QtWidgets.QMessageBox.StandardButton.Cancel, seen)
        navigate()
        settle()
        assert win.workspace.names() == before and panel.current == 3
        assert panel.step_combo.currentIndex() == 2
    assert len(seen) == 3 and all("not saved" in text for text in seen)
    assert "Reset" in seen[1] and "back" in seen[0]
    panel.next_step()  # forward adds to the workspace: no question
    settle()
    assert len(seen) == 3 and panel.current == 4 and "mine21" in win.workspace.names()
    answer_next_question(QtWidgets.QMessageBox.StandardButton.Discard, seen)
    panel.previous_step()
    settle()
    assert len(seen) == 4 and panel.current == 3 and "mine0" not in win.workspace.names()
    assert not win.undo.unsaved  # what remains is the lesson's own
    panel.previous_step()  # nothing of the user's left: no question
    settle()
    assert len(seen) == 4 and panel.current == 2
    for _ in range(80):  # Discard is undoable: step back until the user's values return
        if "mine21" in win.workspace.names() or not undo_action(win).isEnabled():
            break
        undo_action(win).trigger()
    assert torch.equal(win.workspace["mine21"], torch.full((2,), 21.0))
