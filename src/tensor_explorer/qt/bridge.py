"""Workspace events as Qt signals, delivered on the UI thread.

The core :class:`~tensor_explorer.core.workspace.Workspace` emits psygnal events from whatever
thread changed it (programs run in a background thread so the window stays responsive and a
runaway loop can be stopped). Panels never connect to those directly: they connect to a
:class:`WorkspaceBridge`, whose Qt signals are queued onto the UI thread by Qt itself.
"""

from __future__ import annotations

from typing import Any

from PySide6 import QtCore

from ..core.workspace import Workspace

_EVENTS = ("added", "changed", "removed", "renamed", "selected", "output", "ran", "undoable",
           "not_undoable")


class WorkspaceBridge(QtCore.QObject):
    """Re-emits a workspace's events as Qt signals (queued to this object's thread)."""

    added = QtCore.Signal(str)
    changed = QtCore.Signal(str)
    removed = QtCore.Signal(str)
    renamed = QtCore.Signal(str, str)
    selected = QtCore.Signal(object)
    #: a str; a warning note is a catalog Message (a str signal would copy it to a plain str)
    output = QtCore.Signal(object)
    ran = QtCore.Signal(object)
    undoable = QtCore.Signal(object)  # a Change (core/undo.py)
    not_undoable = QtCore.Signal(object)  # why: a catalog Message (or a str)
    #: any of the above: panels that simply redraw connect here (coalesced per event-loop turn)
    modified = QtCore.Signal()

    def __init__(self, workspace: Workspace, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self._pending = False
        for name in _EVENTS:
            getattr(workspace.events, name).connect(getattr(self, f"_on_{name}"))
        for sig in (self.added, self.changed, self.removed, self.renamed, self.ran):
            sig.connect(self._schedule)

    # psygnal -> Qt: plain methods (psygnal holds them weakly, with this object alive)
    def _on_added(self, name: str) -> None:
        self.added.emit(name)

    def _on_changed(self, name: str) -> None:
        self.changed.emit(name)

    def _on_removed(self, name: str) -> None:
        self.removed.emit(name)

    def _on_renamed(self, old: str, new: str) -> None:
        self.renamed.emit(old, new)

    def _on_selected(self, name: object) -> None:
        self.selected.emit(name)

    def _on_output(self, text: str) -> None:
        self.output.emit(text)

    def _on_ran(self, record: object) -> None:
        self.ran.emit(record)

    def _on_undoable(self, change: object) -> None:
        self.undoable.emit(change)

    def _on_not_undoable(self, why: str) -> None:
        self.not_undoable.emit(why)

    def _schedule(self, *_: Any) -> None:
        if not self._pending:
            self._pending = True
            QtCore.QTimer.singleShot(0, self._flush)

    def _flush(self) -> None:
        self._pending = False
        self.modified.emit()

    def disconnect_workspace(self) -> None:
        """Stop listening (the window is closing)."""
        for name in _EVENTS:
            getattr(self.workspace.events, name).disconnect(getattr(self, f"_on_{name}"))
