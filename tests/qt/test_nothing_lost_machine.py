"""Nothing lost, across every feature at once (#25 point 4): the state machine of
``tests/qt/nothing_lost.py`` drives the real window (statements, workspace panel, lessons,
language, theme, presentation, sessions, undo/redo, quit and reopen, a crash and its recovery)
and checks after every rule that nothing of the user's was replaced without a question and the
window's workspace equals the model. ``bench/nothing_lost_machine.py`` is the long run.

Also the small deterministic reproducers of what the machine found.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import torch
from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test
from PySide6 import QtWidgets
from pytestqt.qtbot import QtBot

from tensor_explorer.core.workspace import Workspace
from tensor_explorer.qt.autosave import Autosaver, pending_recovery, restore
from tests.qt.nothing_lost import CANCEL, DISCARD, Answerer, NothingLost, make_window, pump
from tests.qt.window_run import run

#: CI size: about 30 s on 2 shared cores (the bench runs it longer)
CI_SETTINGS = settings(max_examples=10, stateful_step_count=20, deadline=None, derandomize=True,
                       database=None, print_blob=True,
                       suppress_health_check=list(HealthCheck))



def test_nothing_lost_machine(qapp: QtWidgets.QApplication) -> None:
    run_state_machine_as_test(NothingLost, settings=CI_SETTINGS)


def test_every_rule_in_one_sequence(qapp: QtWidgets.QApplication) -> None:
    """One fixed walk through every rule (each invariant checked after each), so that CI
    covers the features together whatever the random examples draw."""
    m = NothingLost()
    steps: list[Callable[[], None]] = [
        lambda: m.make(pick=160), lambda: m.view(pick=5), lambda: m.view(pick=20),
        lambda: m.write(pick=7), lambda: m.write(pick=8), lambda: m.make(pick=2),
        lambda: m.write(pick=4), lambda: m.view(pick=29),
        lambda: m.network(kind="class"), lambda: m.network(kind="net"),
        lambda: m.network(kind="step"), m.save, lambda: m.rename(pick=1, new="u4"),
        lambda: m.delete(pick=0), m.undo, m.undo, m.redo, m.undo_all,
        lambda: m.language(lang="zh"), m.presentation,
        lambda: m.open_session(pick=0, answer=CANCEL),
        lambda: m.open_session(pick=0, answer=DISCARD),
        lambda: m.make(pick=3), lambda: m.open_foreign_session_and_trust(pick=0, answer=CANCEL),
        lambda: m.open_foreign_session_and_trust(pick=0, answer=DISCARD), m.crash,
        lambda: m.open_lesson(lesson="welcome", answer=CANCEL),
        lambda: m.open_lesson(lesson="welcome", answer=DISCARD), m.lesson_next,
        lambda: m.make(pick=1), m.lesson_next,
        lambda: m.lesson_back(how="previous", answer=CANCEL),
        lambda: m.lesson_back(how="reset", answer=CANCEL),
        lambda: m.lesson_back(how="first", answer=DISCARD), m.undo, m.undo, m.redo, m.theme,
        lambda: m.quit_and_reopen(answer=CANCEL), lambda: m.quit_and_reopen(answer=DISCARD),
        lambda: m.delete_statement(pick=3), m.crash, lambda: m.language(lang="en"),
        m.presentation, m.theme,
    ]
    try:
        for step in steps:
            step()
            m.no_program_left_running()
        assert len(m.log) >= 35, m.log  # (each rule acted)
    finally:
        m.teardown()


def test_a_recovered_workspace_is_asked_about_before_a_lesson_replaces_it(
        qtbot: QtBot, tmp_path: Path) -> None:
    """Found by the machine: after a crash, the window restored from the recovery file held the
    user's values, saved nowhere else, yet opening a lesson replaced them without a question
    (and the next autosave overwrote the recovery file): the restored workspace did not count
    as unsaved work. Now a window made on a recovered workspace (``recovered=True``, as the app
    makes it after restoring) asks first."""
    recovery = tmp_path / "recovery.txs"
    ws = Workspace()
    saver = Autosaver(ws, recovery, interval_ms=10)
    ws.run("mine = torch.arange(5.)")
    with qtbot.waitSignal(saver.saved, timeout=10_000):
        pass
    saver.finish(remove=False)  # the app died here
    assert pending_recovery(recovery)
    win = make_window(restore(recovery), recovered=True)
    qtbot.addWidget(win, before_close_func=lambda w: setattr(w, "ask_before_losing_work",
                                                              False))
    answers = Answerer()
    answers.arm(CANCEL)
    win.open_lesson("welcome")
    pump(lambda: not win.runner.busy)
    answers.disarm()
    assert answers.seen and "not saved" in answers.seen[0]
    assert win.workspace.names() == ["mine"]
    assert torch.equal(win.workspace["mine"], torch.arange(5.0))
    run(qtbot, win, "other = mine * 2")  # and it stays the user's own after more work
    assert win.undo.unsaved
    assert isinstance(QtWidgets.QApplication.instance(), QtWidgets.QApplication)
