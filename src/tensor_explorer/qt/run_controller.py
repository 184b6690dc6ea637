"""Run statements in the background, one program at a time, and report on the UI thread.

Every change the window makes to the workspace — typed code, the build form, rename, delete,
duplicate, device and dtype actions — goes through :meth:`RunController.run`, so it runs through
the runner (full Python for the user's own code, restricted for files not trusted), appears in
the code history, and never blocks the UI thread. ``stop()``
cancels a runaway program; the workspace keeps what it had.
"""

from __future__ import annotations

import contextlib
import threading
import traceback
from typing import Any

from PySide6 import QtCore

from ..core.runner import ProgramError
from ..core.workspace import Workspace


class RunController(QtCore.QObject):
    """Runs programs in a worker thread; signals arrive on the UI thread."""

    started = QtCore.Signal(str)  # the source
    finished = QtCore.Signal(list)  # names bound or changed
    failed = QtCore.Signal(object)  # the ProgramError (or another exception)
    busy_changed = QtCore.Signal(bool)

    def __init__(self, workspace: Workspace, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.device: str | None = None
        self._thread: threading.Thread | None = None

    @property
    def busy(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def run(self, source: str, device: str | None = None, *, select: str | None = None,
            restricted: bool | None = None) -> bool:
        """Start running ``source``; False (and a ``failed`` signal) if a program is running.

        ``select``: the name to select after success (default: the last name bound).
        ``restricted``: code from a file nobody trusted yet (default: the workspace's mode,
        full Python for what the user types).
        """
        if self.busy:
            self.failed.emit(ProgramError(self.tr("A program is still running; stop it first."),
                                          kind="busy"))
            return False
        dev = device if device is not None else self.device
        self.started.emit(source)
        self.busy_changed.emit(True)
        self._thread = threading.Thread(
            target=self._work, args=(source, dev, select, restricted),
            name="tensor-explorer-run", daemon=True
        )
        self._thread.start()
        return True

    def stop(self) -> None:
        """Cancel the running program (it stops within a second)."""
        self.workspace.cancel()

    def wait(self, timeout: float = 5.0) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def _work(self, source: str, device: str | None, select: str | None,
              restricted: bool | None) -> None:
        ws = self.workspace
        try:
            names = ws.run(source, device=device, restricted=restricted)
        except ProgramError as err:
            self._emit_done(self.failed, err)
            return
        except Exception as exc:  # the runner should not leak these; never crash the window
            internal = ProgramError(
                f"Internal error while running: {type(exc).__name__}: {exc}", kind="internal"
            )
            internal.details = traceback.format_exc()  # type: ignore[attr-defined]
            self._emit_done(self.failed, internal)
            return
        target = select if select is not None else next(
            (n for n in reversed(names) if n in ws), None
        )
        if target is not None:
            QtCore.QMetaObject.invokeMethod(
                self, "_select", QtCore.Qt.ConnectionType.QueuedConnection,
                QtCore.Q_ARG(str, target),
            )
        self._emit_done(self.finished, names)

    def _emit_done(self, signal: QtCore.SignalInstance, payload: Any) -> None:
        self._thread = None
        signal.emit(payload)
        self.busy_changed.emit(False)

    @QtCore.Slot(str)
    def _select(self, name: str) -> None:
        with contextlib.suppress(KeyError):  # deleted meanwhile by another program
            self.workspace.selected = name
