"""Crash recovery: debounced background autosave, clean-exit removal, and a SIGKILLed app."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
import torch
from PySide6 import QtCore
from pytestqt.qtbot import QtBot

from tensor_explorer.core.loading import LoadError
from tensor_explorer.core.memory import allocation
from tensor_explorer.core.workspace import Workspace
from tensor_explorer.qt.autosave import Autosaver, discard, pending_recovery, restore


def test_changes_are_saved_once_after_a_quiet_interval(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "recovery.txs"
    ws = Workspace()
    saver = Autosaver(ws, path, interval_ms=50)
    for i in range(5):  # a burst of changes: one save
        ws[f"v{i}"] = torch.full((2,), float(i))
    with qtbot.waitSignal(saver.saved, timeout=5000):
        pass
    QtCore.QCoreApplication.sendPostedEvents()  # any change notice still on its way
    # nothing more is scheduled or being written: no second save can come
    assert saver.saves == 1
    assert not saver._timer.isActive() and saver._task is None
    assert pending_recovery(path)
    out = restore(path)
    assert out.names() == ws.names()
    assert torch.equal(out["v4"], ws["v4"])
    saver.finish()
    assert not path.exists() and not pending_recovery(path)


def test_no_save_while_a_program_runs_and_empty_workspace_removes_the_file(
    qtbot: QtBot, tmp_path: Path
) -> None:
    path = tmp_path / "r.txs"
    ws = Workspace()
    saver = Autosaver(ws, path, interval_ms=10)
    ws.run("x = torch.ones(3)")
    with qtbot.waitSignal(saver.saved, timeout=5000):
        pass
    ws._lock.acquire()  # as if a program were running
    try:
        saver.save_now()
        assert saver._task is None  # nothing captured or written...
        for _ in range(3):  # ...however often it tries again while the program runs
            with qtbot.waitSignal(saver._timer.timeout, timeout=5000):
                pass
            assert saver._task is None and saver.saves == 1
    finally:
        ws._lock.release()
    with qtbot.waitSignal(saver.saved, timeout=5000):
        pass
    ws.clear()
    qtbot.waitUntil(lambda: not path.exists(), timeout=5000)
    saver.finish()


def test_window_target_and_unreadable_recovery(
    qtbot: QtBot, tmp_path: Path, make_window: object
) -> None:
    win = make_window()  # type: ignore[operator]
    path = tmp_path / "w.txs"
    saver = Autosaver(win, path, interval_ms=10)
    assert saver.parent() is win and saver.workspace is win.workspace
    win.workspace["a"] = np.arange(3)
    with qtbot.waitSignal(saver.saved, timeout=5000):
        pass
    saver.finish(remove=False)
    assert path.exists()
    path.write_bytes(path.read_bytes()[:200])  # damaged by a crash of the disk, say
    assert pending_recovery(path)
    with pytest.raises(LoadError):
        restore(path)
    discard(path)
    assert not pending_recovery(path)


CHILD = textwrap.dedent(
    """
    import os, sys, time
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6 import QtCore, QtWidgets
    from tensor_explorer.core.workspace import Workspace
    from tensor_explorer.qt.autosave import Autosaver

    app = QtWidgets.QApplication([])
    ws = Workspace()
    saver = Autosaver(ws, sys.argv[1], interval_ms=50)
    saver.saved.connect(lambda path: print("saved", saver.saves, flush=True))
    ws.run("a = np.arange(6.0)\\nt = torch.from_numpy(a)\\n"
           "w = torch.tensor([1.0, 2.0], requires_grad=True)\\n(w * w).sum().backward()")
    wait = QtCore.QEventLoop.ProcessEventsFlag.WaitForMoreEvents
    while saver.saves < 1:
        app.processEvents(wait)
    ws.run("t.add_(10)\\nk = 7")
    while saver.saves < 2:
        app.processEvents(wait)
    ws.run("u = torch.zeros(3)")  # changed after the last save: lost, as it should be
    print("working", flush=True)
    # busy, not in the event loop (so the change to u is never saved), until the test kills
    # it: this sleep is the situation under test, not a wait for something
    time.sleep(60)
    """
)


def test_killed_app_leaves_a_recovery_file_that_restores_its_workspace(tmp_path: Path) -> None:
    path = tmp_path / "recovery.txs"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONWARNINGS": "ignore"}
    with subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    ) as child:
        try:
            assert child.stdout is not None
            lines: list[str] = []
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                line = child.stdout.readline()
                if not line:
                    break
                lines.append(line.strip())
                if line.startswith("working"):
                    break
            assert lines[-1:] == ["working"], lines
            child.send_signal(signal.SIGKILL)  # mid-session, no chance to clean up
            child.wait(10)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait(10)
    assert child.returncode == -signal.SIGKILL
    assert pending_recovery(path)
    assert [p.name for p in tmp_path.iterdir()] == ["recovery.txs"]  # no temporary left over
    ws = restore(path)
    assert ws.names() == ["a", "t", "w", "k"]
    assert ws["a"].tolist() == [10.0, 11.0, 12.0, 13.0, 14.0, 15.0]
    assert allocation(ws["a"]).key == allocation(ws["t"]).key
    assert ws["w"].requires_grad and ws["w"].grad.tolist() == [2.0, 4.0]
    assert ws["k"] == 7
    assert "t.add_(10)" in ws.to_script()
