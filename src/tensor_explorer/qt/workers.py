"""Run a function in the background and hear about it on the UI thread: :class:`Task`.

A :class:`Task` wraps ``fn(progress, cancel) -> result``. ``start()`` runs ``fn`` on a
``QThreadPool`` (the global one unless given); its ``progress``, ``finished``, ``failed`` and
``cancelled`` signals are always emitted on the thread the task lives on (the UI thread), so a
panel can connect them straight to its widgets. ``fn`` is handed two callables:

- ``progress(fraction)``: report how far it is (0..1); rate-limited here, call it freely;
- ``cancel() -> bool``: True once :meth:`Task.cancel` was called; ``fn`` should stop then
  (return or raise anything: the outcome of a cancelled task is never delivered).

When ``fn`` raises, ``failed`` carries a one-line English text (``"LoadError: x.npy: ..."``)
and :attr:`Task.error` is the exception itself, set before ``failed`` is emitted: a slot that
shows the error in the reader's language renders its catalog message from there (e.g.
``LoadError.text(lang)``).

A task needs a parent QObject (usually the panel that started it). When the parent is deleted
the task goes with it and nothing is delivered to a deleted widget; a task deletes itself once
it has delivered its outcome. Example::

    task = Task(lambda progress, cancel: stats(value, progress, cancel), parent=self)
    task.progress.connect(bar.setValue_fraction)
    task.finished.connect(self.show_stats)
    task.start()
    ...
    task.cancel()   # e.g. when another value is selected
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from typing import Any

from PySide6 import QtCore

Progress = Callable[[float], None]
Cancel = Callable[[], bool]
TaskFn = Callable[[Progress, Cancel], Any]

PROGRESS_INTERVAL_S = 0.05  # at most ~20 progress signals a second reach the UI thread


class Task(QtCore.QObject):
    """A background computation whose signals arrive on the UI thread.

    Signals: ``progress(float)`` fraction done; ``finished(object)`` the result; ``failed(str)``
    a one-line message when ``fn`` raised; ``cancelled()`` after :meth:`cancel` once the worker
    has stopped. Exactly one of ``finished``/``failed``/``cancelled`` is emitted per start.

    ``error`` is the exception ``fn`` raised (its traceback and chained exceptions dropped), set
    just before ``failed`` is emitted; None until then.
    """

    progress = QtCore.Signal(float)
    finished = QtCore.Signal(object)
    failed = QtCore.Signal(str)
    cancelled = QtCore.Signal()

    # emitted from the worker thread; queued to the slots below on the task's own thread
    _progress_from_worker = QtCore.Signal(float)
    _outcome_from_worker = QtCore.Signal(str, object)

    def __init__(self, fn: TaskFn, parent: QtCore.QObject) -> None:
        super().__init__(parent)
        self._fn = fn
        #: the exception ``fn`` raised, set before ``failed`` is emitted (None until then)
        self.error: Exception | None = None
        self._cancel = threading.Event()
        self._running = False
        self._done = False
        self._progress_from_worker.connect(
            self._deliver_progress, QtCore.Qt.ConnectionType.QueuedConnection
        )
        self._outcome_from_worker.connect(
            self._deliver_outcome, QtCore.Qt.ConnectionType.QueuedConnection
        )

    # ------------------------------------------------------------------ control (UI thread)

    def start(self, pool: QtCore.QThreadPool | None = None) -> Task:
        """Queue ``fn`` on ``pool`` (default: the global pool). Returns self."""
        if self._running or self._done:
            raise RuntimeError("a Task runs once; make a new one")
        self._running = True
        (pool or QtCore.QThreadPool.globalInstance()).start(_Runner(self))
        return self

    def cancel(self) -> None:
        """Ask the worker to stop; nothing but ``cancelled`` will be delivered afterwards."""
        self._cancel.set()

    @property
    def running(self) -> bool:
        """True from :meth:`start` until the outcome has been delivered."""
        return self._running

    # ------------------------------------------------------------------ worker side

    def _run(self) -> None:
        """Body of the runnable (worker thread)."""
        last = [0.0, -1.0]  # time of the last progress signal, fraction sent

        def progress(fraction: float) -> None:
            now = time.monotonic()
            if fraction >= 1.0 or (now - last[0] >= PROGRESS_INTERVAL_S and fraction != last[1]):
                last[0], last[1] = now, fraction
                _emit(self._progress_from_worker, float(fraction))

        try:
            result = self._fn(progress, self._cancel.is_set)
        except Exception as exc:  # reported to the UI as a message, never raised there
            if self._cancel.is_set():
                _emit(self._outcome_from_worker, "cancelled", None)
            else:
                msg = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                _emit(self._outcome_from_worker, "failed", (msg, _bare(exc)))
            return
        kind = "cancelled" if self._cancel.is_set() else "finished"
        _emit(self._outcome_from_worker, kind, result)

    # ------------------------------------------------------------------ delivery (UI thread)

    @QtCore.Slot(float)
    def _deliver_progress(self, fraction: float) -> None:
        if not self._cancel.is_set() and not self._done:
            self.progress.emit(fraction)

    @QtCore.Slot(str, object)
    def _deliver_outcome(self, kind: str, payload: object) -> None:
        self._running = False
        self._done = True
        if kind == "finished" and self._cancel.is_set():
            kind = "cancelled"  # cancelled after the worker finished, before delivery
        if kind == "finished":
            self.finished.emit(payload)
        elif kind == "failed":
            self.error = payload[1]  # type: ignore[index]
            self.failed.emit(payload[0])  # type: ignore[index]
        else:
            self.cancelled.emit()
        self.deleteLater()


def _bare(exc: Exception) -> Exception:
    """``exc`` without its traceback and chained exceptions (whose frames would keep the
    worker's locals alive as long as the task is kept); the text was taken before."""
    exc.__cause__ = exc.__context__ = None
    return exc.with_traceback(None)


def _emit(signal: Any, *args: Any) -> None:
    """Emit from the worker; the task may have been deleted with its parent meanwhile."""
    # "Internal C++ object already deleted": nobody is listening any more
    with contextlib.suppress(RuntimeError):
        signal.emit(*args)


class _Runner(QtCore.QRunnable):
    """The QRunnable that runs one :class:`Task` (holds it alive until it has run)."""

    def __init__(self, task: Task) -> None:
        super().__init__()
        self.setAutoDelete(True)
        self._task: Task | None = task

    def run(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            # the task's C++ half may have been deleted before we started
            with contextlib.suppress(RuntimeError):
                task._run()


def wait_for_tasks(timeout_ms: int = 5000) -> bool:
    """Block until the global pool is idle (for tests and shutdown). True when it is."""
    return bool(QtCore.QThreadPool.globalInstance().waitForDone(timeout_ms))
