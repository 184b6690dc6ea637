"""The Values panel's plane computation: :class:`PlaneLoader` computes the plane the panel asks
for (:func:`tensor_explorer.core.preview.slice_plane`) at once when the value is small, else in a
background :class:`~.workers.Task` with the panel's progress bar; a new request cancels the one
before. It says what came out with a signal: the plane, or the message to show instead."""

from __future__ import annotations

from typing import Any

from PySide6 import QtCore, QtWidgets

from ..core import preview
from ..core.catalog import error_in
from ..core.preview import Plane
from . import i18n
from .values_status import ValuesStatus, preview_error_text
from .workers import Task

__all__ = ["PlaneLoader"]


class PlaneLoader(QtCore.QObject):
    """Planes for one Values panel, computed here or in the background.

    Signals: ``ready(plane)``: the plane asked for last; ``failed(message)``: why there is none,
    in the window's language (a preview error's words, or the error's own text).
    """

    ready = QtCore.Signal(object)
    failed = QtCore.Signal(str)

    def __init__(self, status: ValuesStatus, parent: QtWidgets.QWidget) -> None:
        super().__init__(parent)
        self.status = status  # its progress bar and "computing preview…" line
        self.task: Task | None = None

    def busy(self) -> bool:
        """True while a plane is being computed in the background."""
        return self.task is not None

    def cancel(self) -> None:
        """Forget the plane being computed (its task is cancelled)."""
        if self.task is not None:
            self.task.cancel()
            self.task = None
        self.status.progress.hide()

    def request(self, value: Any, axes: tuple[int, ...], index: dict[int, int], part: str,
                max_cells: int, parent: QtCore.QObject) -> None:
        """Compute the plane of ``value`` at ``axes``, ``index`` and ``part``, at most
        ``max_cells`` cells (cancelling any earlier request); ``parent`` owns the task."""
        self.cancel()

        def compute(progress: preview.Progress | None = None,
                    cancel: preview.CancelFn | None = None) -> Plane:
            return preview.slice_plane(value, axes, index, part, max_cells, progress, cancel)

        if not preview.needs_background(value):
            try:
                plane = compute()
            except (preview.PreviewError, ValueError, RuntimeError, TypeError) as exc:
                self.failed.emit(_why(exc))
                return
            self.ready.emit(plane)
            return
        task = Task(compute, parent)
        task.progress.connect(self._on_progress)
        task.finished.connect(self._on_finished)
        task.failed.connect(self._on_failed)
        self.task = task
        self.status.progress.setValue(0)
        self.status.progress.show()
        self.status.refusal = None
        self.status.computing()
        task.start()

    @QtCore.Slot(float)
    def _on_progress(self, fraction: float) -> None:
        self.status.progress.setValue(round(100 * fraction))

    @QtCore.Slot(object)
    def _on_finished(self, plane: object) -> None:
        if self.sender() is not self.task:
            return
        self.task = None
        self.status.progress.hide()
        assert isinstance(plane, Plane)
        self.ready.emit(plane)

    @QtCore.Slot(str)
    def _on_failed(self, message: str) -> None:
        task = self.task
        if task is None or self.sender() is not task:
            return
        self.task = None
        self.status.progress.hide()
        self.failed.emit(_why(task.error) if task.error is not None
                         else message.split(": ", 1)[-1])


def _why(exc: BaseException) -> str:
    """Why no plane came, in the window's language."""
    if isinstance(exc, preview.PreviewError):
        return preview_error_text(exc)
    return error_in(exc, i18n.current())
