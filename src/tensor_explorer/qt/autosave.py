"""Crash recovery: save the session in the background after changes; offer it back at start-up.

:class:`Autosaver` watches a workspace (or a window's workspace). After a change it waits
``interval_ms`` of quiet (debounced: a burst of changes gives one save), then captures the
workspace on the UI thread (:func:`~tensor_explorer.core.session.capture`: the values' bytes
are copied when they add up to at most ``session.COPY_LIMIT``, so the capture is quick and
independent of later changes) and writes it on a worker thread (:class:`~.workers.Task`) to a
temporary file that is renamed over the recovery file: the recovery file is always either the
previous complete session or the new one, whatever moment the process dies. It never saves
while a program runs (it tries again when the program has finished) and never blocks the UI.
A workspace with nothing in it removes the file instead (nothing to recover).

On a clean exit call :meth:`Autosaver.finish` (the window's ``closeEvent``): it stops, waits for
a write in flight, and removes the file. At the next start, :func:`pending_recovery` says
whether a previous run left a file, and :func:`restore` opens it as a new workspace
(:class:`~tensor_explorer.core.loading.LoadError` when it cannot be read; :func:`discard` then).
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path
from typing import Any

from PySide6 import QtCore

from ..core import session
from ..core.loading import LoadError
from ..core.workspace import Workspace
from .workers import Task

_log = logging.getLogger(__name__)

__all__ = ["Autosaver", "default_path", "discard", "last_session_path", "pending_recovery",
           "restore"]

DEFAULT_INTERVAL_MS = 2000
_EVENTS = ("added", "changed", "removed", "renamed", "ran", "selected")


def default_path() -> Path:
    """Where the app keeps its recovery file: ``$TENSOR_EXPLORER_RECOVERY`` if set, else
    ``recovery.txs`` in the user's application data folder."""
    env = os.environ.get("TENSOR_EXPLORER_RECOVERY")
    if env:
        return Path(env)
    base = QtCore.QStandardPaths.writableLocation(
        QtCore.QStandardPaths.StandardLocation.AppDataLocation
    )
    return Path(base or Path.home() / ".tensor-explorer") / "recovery.txs"


def last_session_path(recovery: str | os.PathLike[str]) -> Path:
    """Where a clean quit keeps the workspace it closed (``last-session.txs`` beside the
    recovery file), for File ▸ Reopen last session at the next start: nothing depends on a
    crash to come back."""
    return Path(recovery).with_name("last-session.txs")


def pending_recovery(path: str | os.PathLike[str]) -> bool:
    """True when a previous run left a recovery file at ``path`` (it did not exit cleanly)."""
    return session.is_session(path)


def restore(path: str | os.PathLike[str]) -> Workspace:
    """The workspace saved in the recovery file ``path`` (a new one; raises LoadError)."""
    return Workspace.open(path)


def discard(path: str | os.PathLike[str]) -> None:
    """Remove the recovery file (the user declined to restore it, or it could not be read)."""
    with contextlib.suppress(FileNotFoundError):
        Path(path).unlink()


class Autosaver(QtCore.QObject):
    """Saves ``target``'s workspace to ``path`` in the background after changes.

    ``target`` is a :class:`Workspace` or anything with a ``workspace`` attribute (the main
    window); when it is a QObject it becomes the parent. Signals (UI thread): ``saved(str)``
    the path after each completed write, ``failed(str)`` a one-line message (the previous file
    is left as it was).
    """

    saved = QtCore.Signal(str)
    failed = QtCore.Signal(str)
    _poke = QtCore.Signal()  # from whatever thread changed the workspace

    def __init__(
        self,
        target: Any,
        path: str | os.PathLike[str],
        interval_ms: int = DEFAULT_INTERVAL_MS,
        parent: QtCore.QObject | None = None,
    ) -> None:
        if parent is None and isinstance(target, QtCore.QObject):
            parent = target
        super().__init__(parent)
        self.workspace: Workspace = target if isinstance(target, Workspace) else target.workspace
        self.path = Path(path)
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(max(0, int(interval_ms)))
        self._timer.timeout.connect(self.save_now)
        self._poke.connect(self.schedule, QtCore.Qt.ConnectionType.QueuedConnection)
        self._task: Task | None = None
        self._dirty = False
        self._finished = False
        self.saves = 0
        for name in _EVENTS:
            getattr(self.workspace.events, name).connect(self._on_event)

    # psygnal callback (any thread): hop to the UI thread
    def _on_event(self, *_: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the C++ half is gone: we are shutting down
            self._poke.emit()

    @QtCore.Slot()
    def schedule(self) -> None:
        """Save after ``interval_ms`` without further changes."""
        if self._finished:
            return
        self._dirty = True
        self._timer.start()

    @QtCore.Slot()
    def save_now(self) -> None:
        """Capture and write now (in the background); retried later while a program runs or
        a previous write is still in flight."""
        if self._finished:
            return
        ws = self.workspace
        if ws.running or (self._task is not None and self._task.running):
            self._dirty = True
            self._timer.start()
            return
        self._dirty = False
        if not ws.names() and not ws.history:
            discard(self.path)
            return
        try:
            snapshot = session.capture(ws)
        except RuntimeError:  # a program started in between
            self.schedule()
            return
        path = self.path

        def work(_progress: Any, _cancel: Any) -> str:
            path.parent.mkdir(parents=True, exist_ok=True)
            session.write(snapshot, path)
            return str(path)

        task = Task(work, parent=self)
        task.finished.connect(self._written)
        task.failed.connect(self._write_failed)
        self._task = task
        task.start()

    def _written(self, path: str) -> None:
        self._task = None
        self.saves += 1
        if self._finished:  # finish() ran while this write was in flight
            discard(self.path)
            return
        self.saved.emit(path)
        if self._dirty:
            self._timer.start()

    def _write_failed(self, message: str) -> None:
        self._task = None
        self.failed.emit(message)

    def finish(self, remove: bool = True, keep_as: str | os.PathLike[str] | None = None) -> None:
        """Stop saving (a clean exit): wait for a write in flight, then remove the file.

        ``keep_as``: first write the workspace as it is now to that path (the last session,
        kept until the next start); an empty workspace keeps nothing. A failed write is
        logged and the quit goes on."""
        self._finished = True
        self._timer.stop()
        for name in _EVENTS:
            with contextlib.suppress(Exception):
                getattr(self.workspace.events, name).disconnect(self._on_event)
        if self._task is not None and self._task.running:
            QtCore.QThreadPool.globalInstance().waitForDone(10_000)
        if keep_as is not None and (self.workspace.names() or self.workspace.history):
            keep = Path(keep_as)
            try:
                keep.parent.mkdir(parents=True, exist_ok=True)
                self.workspace.save(keep)  # atomic: the previous last session until it is done
            except (OSError, RuntimeError, LoadError) as exc:
                _log.warning("could not keep the last session in %s: %s", keep, exc)
        if remove:
            discard(self.path)
