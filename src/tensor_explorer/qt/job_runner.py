"""Runs a core model's :class:`~tensor_explorer.core.graph_session.Job`: light ones inline,
heavy ones in a background :class:`~tensor_explorer.qt.workers.Task`, shown as a progress bar
with a Cancel button (the widget itself)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from PySide6 import QtCore, QtWidgets

from ..core.graph_session import Job, Message
from .workers import Task


class JobRunner(QtWidgets.QWidget):
    """A progress bar and Cancel while a job runs in the background (hidden otherwise).

    ``say(message) -> str`` says a job's :attr:`Job.what` in the interface's language.
    :attr:`busy_changed` is emitted when a background job starts or ends.
    """

    busy_changed = QtCore.Signal()

    def __init__(self, say: Callable[[Message | None], str],
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.say = say
        self.progress = QtWidgets.QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setMaximumWidth(160)
        self.cancel_btn = QtWidgets.QToolButton()
        self.cancel_btn.clicked.connect(self.cancel)
        row = QtWidgets.QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.progress)
        row.addWidget(self.cancel_btn)
        self._task: Task | None = None
        self.what: Message | None = None
        self.retranslate()

    @property
    def busy(self) -> bool:
        """True while a background job runs."""
        return self.what is not None

    def retranslate(self) -> None:
        """Cancel and what runs, in the current language."""
        self.cancel_btn.setText(self.tr("Cancel"))
        self._show()

    def _show(self) -> None:
        what = self.what
        self.progress.setFormat(self.say(what).rstrip("…") + "…" if what else "")
        self.setVisible(what is not None)

    def start(self, job: Job | None, failed: Callable[[str], None] | None = None,
              then: Callable[[], None] | None = None) -> None:
        """Run ``job``: inline when light, else in the background (a job still running is
        cancelled first). ``failed(message)`` if it raised; ``then()`` after it finished; a
        finish that returns another job runs that one."""
        if job is None:
            return
        if not job.heavy:
            self._finish(job, job.work(lambda _f: None, lambda: False), then)
            return
        self.cancel()
        task = Task(job.work, parent=self)
        self._task = task
        self.what = job.what
        self.progress.setValue(0)
        self._show()
        self.busy_changed.emit()

        def done() -> None:
            if self._task is task:
                self._task = None
                self.what = None
                self._show()
                self.busy_changed.emit()

        def ok(result: Any) -> None:
            done()
            self._finish(job, result, then)

        def bad(msg: str) -> None:
            done()
            if failed is not None:
                failed(msg)

        task.progress.connect(lambda f: self.progress.setValue(int(f * 1000)))
        task.finished.connect(ok)
        task.failed.connect(bad)
        task.cancelled.connect(done)
        task.start()

    def _finish(self, job: Job, result: Any, then: Callable[[], None] | None) -> None:
        nxt = job.finish(result)
        if isinstance(nxt, Job):
            self.start(nxt)
        if then is not None:
            then()

    def cancel(self) -> None:
        """Stop the background job in progress (its result is dropped)."""
        task, self._task = self._task, None
        if task is not None:
            with contextlib.suppress(RuntimeError):  # already delivered and deleted
                task.cancel()
        was = self.what is not None
        self.what = None
        self._show()
        if was:
            self.busy_changed.emit()
