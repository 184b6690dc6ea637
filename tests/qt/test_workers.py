"""The background helper (qt/workers.py): a failed task keeps the exception it raised, so a slot
can show it in the reader's language; ``failed`` still carries the one-line English text."""

from __future__ import annotations

from typing import Any

from PySide6 import QtCore
from pytestqt.qtbot import QtBot

from tensor_explorer.core.catalog import Message
from tensor_explorer.core.loading import LoadError
from tensor_explorer.qt.workers import Task


def test_a_failed_task_keeps_its_exception_before_it_says_failed(qtbot: QtBot) -> None:
    owner = QtCore.QObject()
    err = LoadError(Message("load.failed", name="x.npy", why=Message("load.no-file")))

    def boom(progress: Any, cancel: Any) -> None:
        try:
            {}["missing"]
        except KeyError:
            raise err from None

    task = Task(boom, owner)
    assert task.error is None
    seen: list[object] = []
    task.failed.connect(lambda msg: seen.append((msg, task.error)))
    with qtbot.waitSignal(task.failed, timeout=5000) as blocker:
        task.start()
    assert blocker.args == ["LoadError: x.npy: no such file"]
    assert seen == [("LoadError: x.npy: no such file", err)]
    # no frames kept alive by a task that is kept
    assert err.__traceback__ is None and err.__context__ is None
    assert isinstance(seen[0], tuple) and seen[0][1].text("zh") == "x.npy：没有这个文件"


def test_a_task_that_finishes_has_no_error(qtbot: QtBot) -> None:
    owner = QtCore.QObject()
    task = Task(lambda progress, cancel: 7, owner)
    with qtbot.waitSignal(task.finished, timeout=5000) as blocker:
        task.start()
    assert blocker.args == [7] and task.error is None
