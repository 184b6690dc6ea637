"""Edit ▸ Copy, Copy as NumPy literal and Find value for the main window.

Copy (Ctrl+C) copies what has the focus when that is text (the code bar, the output, a
selected label); otherwise the cells selected in the Values table, as CSV; otherwise the
selected value as torch prints it (a summary when it is big: :mod:`..core.copy_text`). Find
(Ctrl+F) opens a line edit over the window that completes workspace names and selects the value
chosen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from ..core import copy_text
from ..core.value_table import SelectionTooLarge
from ..core.workspace import Workspace


def _text_focus_copy() -> bool:
    """Copy the selected text of the widget with the focus, if it is a text widget that has a
    selection; True when it did."""
    w = QtWidgets.QApplication.focusWidget()
    if isinstance(w, QtWidgets.QLineEdit) and w.hasSelectedText():
        w.copy()
        return True
    if isinstance(w, (QtWidgets.QPlainTextEdit, QtWidgets.QTextEdit)) and (
            w.textCursor().hasSelection()):
        w.copy()
        return True
    if isinstance(w, QtWidgets.QLabel) and w.hasSelectedText():
        QtWidgets.QApplication.clipboard().setText(w.selectedText())
        return True
    return False


class FindBar(QtWidgets.QLineEdit):
    """A line edit shown over the top of the window: type part of a name, choose it from the
    completer's list (or press Enter on an exact name) and that value is selected. Escape or
    leaving it hides it."""

    def __init__(self, workspace: Workspace, parent: QtWidgets.QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("findBar")
        self.workspace = workspace
        self.names = QtCore.QStringListModel(self)
        self.completer_ = QtWidgets.QCompleter(self.names, self)
        self.completer_.setCaseSensitivity(QtCore.Qt.CaseSensitivity.CaseInsensitive)
        self.completer_.setFilterMode(QtCore.Qt.MatchFlag.MatchContains)
        self.completer_.activated.connect(self.choose)
        self.setCompleter(self.completer_)
        self.returnPressed.connect(lambda: self.choose(self.text()))
        self.setClearButtonEnabled(True)
        self.hide()
        self.retranslate()

    def retranslate(self) -> None:
        self.setPlaceholderText(self.tr("Find a value by name…"))
        self.setToolTip(self.tr("Type part of a name; Enter or a click selects the value"))

    def open(self) -> None:
        """Show it, with the workspace's names to complete, and give it the focus."""
        self.names.setStringList(self.workspace.names())
        parent = self.parentWidget()
        assert parent is not None
        width = max(parent.width() // 3, self.fontMetrics().averageCharWidth() * 32)
        self.setFixedWidth(min(width, parent.width()))
        self.adjustSize()
        self.move((parent.width() - self.width()) // 2, parent.height() // 12)
        self.clear()
        self.show()
        self.raise_()
        self.setFocus(QtCore.Qt.FocusReason.ShortcutFocusReason)

    def choose(self, text: str) -> bool:
        """Select the value ``text`` names (an exact name, or the only name containing it);
        True when one was selected."""
        names = self.workspace.names()
        name = text.strip()
        if name not in names:
            matches = [n for n in names if name.lower() in n.lower()] if name else []
            if len(matches) != 1:
                return False
            name = matches[0]
        self.workspace.selected = name
        self.hide()
        return True

    def keyPressEvent(self, e: QtGui.QKeyEvent) -> None:
        if e.key() == QtCore.Qt.Key.Key_Escape:
            self.hide()
            return
        super().keyPressEvent(e)

    def focusOutEvent(self, e: QtGui.QFocusEvent) -> None:
        super().focusOutEvent(e)
        popup = self.completer_.popup()
        if e.reason() != QtCore.Qt.FocusReason.PopupFocusReason and not (
                popup is not None and popup.isVisible()):
            self.hide()


class EditActions(QtCore.QObject):
    """Copy, Copy as NumPy literal and Find of a main window. ``table`` gives the Values panel
    (or None while it is not built); ``status(text)`` says what was copied."""

    def __init__(self, win: QtWidgets.QMainWindow, workspace: Workspace,
                 values: Callable[[], Any], status: Callable[[str], None]) -> None:
        super().__init__(win)
        self.win = win
        self.workspace = workspace
        self.values = values
        self.status = status
        self.find_bar = FindBar(workspace, win)

    def make_actions(self, owner: QtCore.QObject) -> list[QtGui.QAction]:
        """The actions (in the current language), parented to ``owner``."""
        ks = QtGui.QKeySequence.StandardKey
        self.copy_action = QtGui.QAction(self.tr("&Copy"), owner)
        self.copy_action.setShortcut(QtGui.QKeySequence(ks.Copy))
        self.copy_action.setStatusTip(self.tr(
            "Copy the selected value as torch prints it, or the cells selected in the Values "
            "table as CSV"))
        self.copy_action.triggered.connect(self.copy)
        self.copy_numpy_action = QtGui.QAction(self.tr("Copy as &NumPy literal"), owner)
        self.copy_numpy_action.setShortcut(QtGui.QKeySequence("Ctrl+Shift+C"))
        self.copy_numpy_action.setStatusTip(self.tr(
            "Copy the cells selected in the Values table (or the whole value) as np.array(...)"))
        self.copy_numpy_action.triggered.connect(self.copy_numpy)
        self.find_action = QtGui.QAction(self.tr("&Find value…"), owner)
        self.find_action.setShortcut(QtGui.QKeySequence(ks.Find))
        self.find_action.setStatusTip(self.tr("Find a value by name and select it"))
        self.find_action.triggered.connect(self.find_bar.open)
        self.find_bar.retranslate()
        return [self.copy_action, self.copy_numpy_action, self.find_action]

    def _selection(self) -> tuple[Any, str, int] | bool | None:
        """The Values table's selected block (see ``ValuesPanel.table_selection``), None when
        nothing is selected, False when too much is (said on the status line)."""
        panel = self.values()
        table_selection = getattr(panel, "table_selection", None)
        if not callable(table_selection):
            return None
        try:
            selected: tuple[Any, str, int] | None = table_selection()
        except SelectionTooLarge as exc:
            self.status(self.tr("Not copied: {cells} cells are selected; at most {limit} can "
                                "be copied").format(cells=f"{exc.cells:,}",
                                                    limit=f"{exc.limit:,}"))
            return False
        return selected

    def _put(self, text: str, what: str) -> None:
        QtWidgets.QApplication.clipboard().setText(text)
        self.status(what)

    def copy(self) -> None:
        """Copy the focused text, else the Values table's selection as CSV, else the selected
        value."""
        if _text_focus_copy():
            return
        selected = self._selection()
        if selected is False:
            return
        if isinstance(selected, tuple):
            cells, _dtype, _ndim = selected
            self._put(copy_text.to_csv(cells), self.tr("Copied the selected cells as CSV"))
            return
        name = self.workspace.selected
        if name is None or name not in self.workspace:
            self.status(self.tr("Nothing to copy: select a value first"))
            return
        self._put(copy_text.value_text(self.workspace[name], name),
                  self.tr("Copied {0}").format(name))

    def copy_numpy(self) -> None:
        """Copy the Values table's selection (else the selected value, when it is a tensor or
        array of at most :data:`.copy_text.SUMMARY_LIMIT` elements) as ``np.array(...)``."""
        import numpy as np
        import torch

        selected = self._selection()
        if selected is False:
            return
        if isinstance(selected, tuple):
            cells, dtype, ndim = selected
            self._put(copy_text.block_literal(cells, dtype, ndim),
                      self.tr("Copied the selected cells as a NumPy literal"))
            return
        name = self.workspace.selected
        value = self.workspace.get(name) if name is not None else None
        if isinstance(value, torch.Tensor) and value.device.type != "meta":
            array = value.detach().cpu()
            dtype = str(value.dtype)
            array_np = (array.float() if value.dtype == torch.bfloat16 else array).numpy()
        elif isinstance(value, np.ndarray):
            array_np, dtype = value, str(value.dtype)
        else:
            self.status(self.tr("Nothing to copy as NumPy: select a tensor or array"))
            return
        if array_np.size > copy_text.SUMMARY_LIMIT:
            self.status(self.tr("Too large to copy as a literal: select cells in the Values "
                                "table"))
            return
        self._put(copy_text.array_literal(array_np, dtype), self.tr("Copied {0}").format(name))
