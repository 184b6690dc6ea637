"""Edit ▸ Undo / Redo for the window, and "nothing lost": unsaved work is asked about before it
would be replaced (another lesson, quitting).

The workspace records each change (:mod:`tensor_explorer.core.undo`, ``track_changes``); this
controller keeps the core's :class:`~tensor_explorer.core.undo.UndoHistory` of them, fed from
the bridge on the UI thread, and makes the actions (Ctrl+Z, Ctrl+Shift+Z) that take a change
back or make it again. It also knows whether the workspace holds work the user made since it
was last saved, opened or started for a lesson (``unsaved``): lesson steps replayed by the
lesson panel do not count.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from ..core.catalog import text_in
from ..core.undo import Change, UndoHistory
from ..core.unsaved import UnsavedWork
from . import i18n
from .bridge import WorkspaceBridge

MAX_LABEL = 40  # characters of a change's label in the menu


def _short(label: str) -> str:
    label = " ".join(label.split())
    return label if len(label) <= MAX_LABEL else label[: MAX_LABEL - 1] + "…"


class UndoController(QtCore.QObject):
    """Undo and Redo of the workspace's changes; ``unsaved`` work.

    ``stepping()`` says whether the lesson panel is replaying its steps (their changes are
    undoable but are not the user's unsaved work); ``say(text)`` shows a short message (the
    status bar)."""

    changed = QtCore.Signal()

    def __init__(self, bridge: WorkspaceBridge, stepping: Callable[[], bool],
                 say: Callable[[str], None], parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.history = UndoHistory()
        self.stepping = stepping
        self.say = say
        #: the one rule of when replacing the workspace asks first (core)
        self.work = UnsavedWork(lambda: bool(bridge.workspace.names()), stepping)
        self.busy = False
        self.undo_action = QtGui.QAction(self)
        self.undo_action.setShortcut(QtGui.QKeySequence.StandardKey.Undo)
        self.undo_action.triggered.connect(self.undo)
        self.redo_action = QtGui.QAction(self)
        self.redo_action.setShortcuts([QtGui.QKeySequence("Ctrl+Shift+Z"),
                                       QtGui.QKeySequence(QtGui.QKeySequence.StandardKey.Redo)])
        self.redo_action.triggered.connect(self.redo)
        bridge.workspace.track_changes = True
        bridge.undoable.connect(self._pushed)
        bridge.not_undoable.connect(self._refused)
        self.retranslate()

    # -- the workspace's reports --------------------------------------------------------------

    def _pushed(self, change: Change) -> None:
        self.history.push(change)
        self.work.changed()
        self.retranslate()

    def _refused(self, why: str) -> None:
        self.history.clear(why)
        self.work.touched_by_user()
        self.say(self.tr("This change cannot be undone ({0}); what could be undone before it "
                         "is forgotten.").format(text_in(why, i18n.current())))
        self.retranslate()

    def saved(self) -> None:
        """The workspace was just saved, opened, or started afresh: nothing unsaved."""
        self.work.saved()

    @property
    def unsaved(self) -> bool:
        """Work of the user's own that is not saved (:class:`~tensor_explorer.core.unsaved.
        UnsavedWork`)."""
        return self.work.unsaved

    def set_busy(self, busy: bool) -> None:
        """A program runs: undo waits for it."""
        self.busy = busy
        self.retranslate()

    # -- actions -------------------------------------------------------------------------------

    def retranslate(self) -> None:
        """The actions' texts (with what they would undo or redo) in the current language."""
        undo, redo = self.history.undo_label, self.history.redo_label
        self.undo_action.setText(self.tr("&Undo {0}").format(_short(undo)) if undo
                                 else self.tr("&Undo"))
        self.redo_action.setText(self.tr("&Redo {0}").format(_short(redo)) if redo
                                 else self.tr("&Redo"))
        self.undo_action.setEnabled(undo is not None and not self.busy)
        self.redo_action.setEnabled(redo is not None and not self.busy)
        self.changed.emit()

    def undo(self) -> None:
        """Take back the last change."""
        self._step(self.history.undo, self.tr("Undid: {0}"))

    def redo(self) -> None:
        """Make the last undone change again."""
        self._step(self.history.redo, self.tr("Redid: {0}"))

    def _step(self, step: Callable[[Any], Change | None], said: str) -> None:
        try:
            change = step(self.bridge.workspace)
        except RuntimeError:  # a program started meanwhile
            self.say(self.tr("Wait for the running program to finish (or stop it) first."))
            return
        if change is not None:
            self.work.touched_by_user()
            self.say(said.format(_short(change.label)))
        self.retranslate()

    # -- nothing lost --------------------------------------------------------------------------

    def confirm_replace(self, parent: QtWidgets.QWidget, what: str,
                        save: Callable[[], bool], hint: str | None = None) -> bool:
        """Before ``what`` replaces the workspace: with unsaved work, ask Save / Discard /
        Cancel (``save()`` saves and says whether it did). True: go on. ``hint``: how the
        work comes back after Discard (default: Edit ▸ Undo)."""
        if not self.work.at_risk():
            return True
        box = QtWidgets.QMessageBox(parent)
        box.setIcon(QtWidgets.QMessageBox.Icon.Question)
        box.setWindowTitle(self.tr("Unsaved work"))
        box.setText(self.tr("The workspace has values you made that are not saved. {0}").format(
            what))
        box.setInformativeText(self.tr("Save them in a session first? ({0})").format(
            hint or self.tr("Edit ▸ Undo also brings them back.")))
        buttons = QtWidgets.QMessageBox.StandardButton
        box.setStandardButtons(buttons.Save | buttons.Discard | buttons.Cancel)
        box.setDefaultButton(buttons.Save)
        answer = box.exec()
        if answer == buttons.Cancel:
            return False
        if answer == buttons.Save:
            return save()
        return True
