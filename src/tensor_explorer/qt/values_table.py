"""The Values panel's table: a virtual model over the whole plane, Go to index, and copying.

- :class:`ValuesTableModel` shows a :class:`.core.value_table.ValueTable`: every row and
  column of the plane at its true index; a cell is read (a block at a time) only when Qt asks
  for it. Editing a cell calls ``edit(index, text) -> bool`` with the cell's index into the
  whole value.
- :class:`GoToBar` is the inline "Go to index" field (Ctrl+G) shown above the table.
- :class:`TableTools` holds the table's actions (Go to index, Copy as text, CSV or NumPy
  literal) and its context menu, reads and copies the selected block, fits the column widths,
  and writes a cell's edit through the panel's write handler; going to an index is done by the
  panel (:meth:`.ValuesPanel.go_to`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from ..core import copy_text, preview
from ..core.catalog import message_of
from ..core.value_table import IndexInputError, SelectionTooLarge, ValueTable, parse_index
from . import theme

_RIGHT = int(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
#: Qt counts rows and columns in a C int: a longer axis shows its first this many
MAX_SECTIONS = 2**31 - 2
_FIT_COLUMNS = 12  # table column widths are measured on this many columns (spread evenly)

WriteHandler = Callable[[str | None, tuple[int, ...], Any], None]


class ValuesTableModel(QtCore.QAbstractTableModel):
    """A read/write table over a :class:`ValueTable`; see the module docstring."""

    def __init__(self, edit: Callable[[tuple[int, ...], str], bool],
                 parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._edit = edit
        self.table: ValueTable | None = None
        self._colours: dict[str, QtGui.QColor] = {}
        self.restyle()

    def set_table(self, table: ValueTable | None) -> None:
        """Show ``table`` (None: an empty table). A table over the same plane as the one shown
        (a re-read after a write) only refreshes the cells: the selection and scroll stay."""
        old = self.table
        if old is not None and table is not None and old.key == table.key:
            self.table = table
            self._all_changed()
            return
        self.beginResetModel()
        self.table = table
        self.endResetModel()

    def forget(self) -> None:
        """Read every cell again (the value was written in place)."""
        if self.table is not None:
            self.table.forget()
            self._all_changed()

    def _all_changed(self) -> None:
        if self.rowCount() and self.columnCount():
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(self.rowCount() - 1, self.columnCount() - 1))

    def column_format(self, column: int) -> preview.NumberFormat:
        """The number format of one column (chosen once from a sample of it, so it aligns)."""
        assert self.table is not None
        return self.table.column_format(column)

    def sample_texts(self, column: int, rows: int = 64) -> list[str]:
        """Formatted texts of up to ``rows`` cells of ``column``, spread evenly (for widths);
        taken from the sample the column's format was chosen from, so nothing more is read."""
        table = self.table
        if table is None or not 0 <= column < table.cols:
            return []
        sample = table.column_sample(column)
        fmt = table.column_format(column)
        step = max(1, len(sample) // max(1, rows))
        return [fmt.format(x) for x in sample[::step]]

    def restyle(self) -> None:
        """Take the colours of non-finite cells from the current theme."""
        t = theme.current()
        self._colours = {}
        for key, colour in (("nan", t.nan), ("posinf", t.posinf), ("neginf", t.neginf)):
            fg = QtGui.QColor(colour)
            bg = QtGui.QColor(colour)
            bg.setAlpha(60)
            self._colours[key] = fg
            self._colours[key + "_bg"] = bg
        self._all_changed()

    # -- shape
    def rowCount(self, parent: Any = None) -> int:
        if self.table is None or (parent is not None and parent.isValid()):
            return 0
        return min(self.table.rows, MAX_SECTIONS)

    def columnCount(self, parent: Any = None) -> int:
        if self.table is None or (parent is not None and parent.isValid()):
            return 0
        return min(self.table.cols, MAX_SECTIONS)

    # -- content
    def data(self, index: QtCore.QModelIndex | QtCore.QPersistentModelIndex,
             role: int = QtCore.Qt.ItemDataRole.DisplayRole) -> Any:
        table = self.table
        if table is None or not index.isValid():
            return None
        R = QtCore.Qt.ItemDataRole
        r, c = index.row(), index.column()
        if role == R.DisplayRole:  # (decimal points lined up: figure spaces after short ones)
            return table.column_format(c).align(table.text(r, c))
        if role == R.EditRole:
            return table.exact(r, c)
        if role == R.TextAlignmentRole:
            return _RIGHT
        if role in (R.ForegroundRole, R.BackgroundRole):
            key = table.flag(r, c)
            if key is None:
                return None
            return self._colours[key if role == R.ForegroundRole else key + "_bg"]
        if role == R.ToolTipRole:
            idx = ", ".join(map(str, table.original_index(r, c)))
            return f"[{idx}] = {preview.format_value(table.cell(r, c), table.dtype)}"
        return None

    def headerData(self, section: int, orientation: QtCore.Qt.Orientation,
                   role: int = QtCore.Qt.ItemDataRole.DisplayRole) -> Any:
        table = self.table
        if role != QtCore.Qt.ItemDataRole.DisplayRole or table is None:
            return None
        if orientation == QtCore.Qt.Orientation.Vertical:
            return str(section) if table.ndim >= 1 else ""
        return str(section) if table.ndim == 2 else ""

    def flags(self, index: QtCore.QModelIndex | QtCore.QPersistentModelIndex
              ) -> QtCore.Qt.ItemFlag:
        base = super().flags(index)
        if self.table is not None and index.isValid():
            return base | QtCore.Qt.ItemFlag.ItemIsEditable
        return base

    def setData(self, index: QtCore.QModelIndex | QtCore.QPersistentModelIndex, value: Any,
                role: int = QtCore.Qt.ItemDataRole.EditRole) -> bool:
        table = self.table
        if role != QtCore.Qt.ItemDataRole.EditRole or table is None or not index.isValid():
            return False
        return self._edit(table.original_index(index.row(), index.column()), str(value))


class GoToBar(QtWidgets.QWidget):
    """"Go to index": a line edit where the user types ``1, 1`` or ``[4000, 17]``; Enter
    emits :attr:`submitted` with the text, Escape hides it; :meth:`show_error` says what was
    wrong next to it."""

    submitted = QtCore.Signal(str)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QtWidgets.QLabel()
        self.edit = QtWidgets.QLineEdit()
        self.edit.setClearButtonEnabled(True)
        self.edit.returnPressed.connect(lambda: self.submitted.emit(self.edit.text()))
        self.error = QtWidgets.QLabel()
        self.error.setWordWrap(True)
        self.close_button = QtWidgets.QToolButton()
        self.close_button.setAutoRaise(True)
        self.close_button.clicked.connect(self.hide)
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.label)
        lay.addWidget(self.edit, 1)
        lay.addWidget(self.error, 2)
        lay.addWidget(self.close_button)
        self.hide()
        self.retranslate()

    def retranslate(self) -> None:
        self.label.setText(self.tr("Go to index"))
        self.edit.setPlaceholderText(self.tr("e.g. 1, 1"))
        self.edit.setToolTip(self.tr("One index per axis, like a[1, 1]; negative counts from "
                                     "the end. Enter goes there."))
        self.close_button.setText("×")
        self.close_button.setToolTip(self.tr("Close"))

    def open(self, text: str = "") -> None:
        """Show it with ``text`` selected, and give it the focus."""
        self.error.clear()
        self.edit.setText(text)
        self.edit.selectAll()
        self.show()
        self.edit.setFocus(QtCore.Qt.FocusReason.ShortcutFocusReason)

    def show_error(self, text: str) -> None:
        self.error.setStyleSheet(f"color: {theme.current().error};")
        self.error.setText(text)

    def keyPressEvent(self, e: QtGui.QKeyEvent) -> None:
        if e.key() == QtCore.Qt.Key.Key_Escape:
            self.hide()
            return
        super().keyPressEvent(e)


class TableTools(QtCore.QObject):
    """The table's actions, context menu and edits; ``panel`` does the work. :attr:`go_bar` is
    to be placed in the panel's layout. :attr:`write_handler` writes an edit (None: the
    default, :func:`preview.write_element`)."""

    def __init__(self, panel: Any) -> None:  # a ValuesPanel: its table, go_to, copy...
        super().__init__(panel)
        self.panel = panel
        self.write_handler: WriteHandler | None = None
        self.go_bar = GoToBar(panel)
        self.go_bar.submitted.connect(self.go)
        self.go_action = QtGui.QAction(panel)
        self.go_action.setShortcut(QtGui.QKeySequence("Ctrl+G"))
        self.go_action.setShortcutContext(QtCore.Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.go_action.triggered.connect(self.open_go_to)
        panel.addAction(self.go_action)
        self.copy_actions: dict[str, QtGui.QAction] = {}
        for kind in ("text", "csv", "numpy"):
            action = QtGui.QAction(panel)
            action.triggered.connect(lambda _checked=False, k=kind: self.panel.copy_selection(k))
            self.copy_actions[kind] = action
        table = panel.table
        table.setContextMenuPolicy(QtCore.Qt.ContextMenuPolicy.CustomContextMenu)
        table.customContextMenuRequested.connect(self._menu)
        self.menu: QtWidgets.QMenu | None = None
        self.retranslate()

    def edit(self, index: tuple[int, ...], text: str) -> bool:
        """Write the table edit ``text`` at ``index`` (the cell's true index into the whole
        value) into the panel's value; False if refused (the reason on the status line)."""
        panel = self.panel
        value, name = panel.value(), panel.name()
        if value is None:
            return False
        try:
            new = preview.parse_value(text, value.dtype)
        except ValueError as exc:
            panel.status_line.refuse(message_of(exc))
            return False
        handler = self.write_handler or self._default_write
        try:
            handler(name, index, new)
        except Exception as exc:  # a refusal from the handler: shown, never raised
            panel.status_line.refuse(message_of(exc) or type(exc).__name__)
            return False
        panel.edited.emit(name, index, new)
        panel.model.forget()  # the table reads the written cell now, not after the preview
        panel.refresh()
        return True

    def _default_write(self, name: str | None, index: tuple[int, ...], new: Any) -> None:
        preview.write_element(self.panel.value(), index, new)

    def retranslate(self) -> None:
        self.go_action.setText(self.tr("Go to index…"))
        self.go_action.setToolTip(self.tr("Show and select the cell at an index you type"))
        self.copy_actions["text"].setText(self.tr("Copy"))
        self.copy_actions["csv"].setText(self.tr("Copy as CSV"))
        self.copy_actions["numpy"].setText(self.tr("Copy as NumPy literal"))
        self.go_bar.retranslate()

    def actions(self) -> list[QtGui.QAction]:
        """The context menu's actions, in order."""
        return [self.go_action, *self.copy_actions.values()]

    @QtCore.Slot(QtCore.QPoint)
    def _menu(self, pos: QtCore.QPoint) -> None:
        table = self.panel.table
        if self.menu is None:  # made once: a new one per right-click would pile up
            self.menu = QtWidgets.QMenu(table)
            self.menu.addAction(self.go_action)
            self.menu.addSeparator()
            for action in self.copy_actions.values():
                self.menu.addAction(action)
        has_selection = table.selectionModel() is not None and (
            table.selectionModel().hasSelection())
        for action in self.copy_actions.values():
            action.setEnabled(has_selection)
        self.menu.popup(table.viewport().mapToGlobal(pos))

    @QtCore.Slot()
    def open_go_to(self) -> None:
        """Show the Go to index field, filled with the current cell's index."""
        current = self.panel.current_cell_index()
        self.go_bar.open(", ".join(map(str, current)) if current else "")

    @QtCore.Slot(str)
    def go(self, text: str) -> bool:
        """Go to the index typed as ``text``; a plain message next to the field if it is not
        one. True when it went."""
        value = self.panel.value()
        shape = tuple(int(n) for n in getattr(value, "shape", ()))
        try:
            index = parse_index(text, shape)
        except IndexInputError as exc:
            self.go_bar.show_error(self.error_text(exc))
            return False
        self.panel.go_to(index)
        self.go_bar.hide()
        self.panel.table.setFocus(QtCore.Qt.FocusReason.OtherFocusReason)
        return True

    def error_text(self, exc: IndexInputError) -> str:
        """What was wrong with a typed index, in plain words."""
        v = exc.values
        if exc.code == "empty":
            return self.tr("Type an index, like 1, 1")
        if exc.code == "scalar":
            return self.tr("This value has no axes to go to")
        if exc.code == "not_int":
            return self.tr("{text} is not a whole number").format(text=v["text"])
        if exc.code == "count":
            return self.tr("Give {ndim} indices, one per axis (got {given})").format(
                ndim=v["ndim"], given=v["given"])
        if exc.code == "range":
            return self.tr("{index} is outside axis {axis} (size {size})").format(
                index=v["index"], axis=v["axis"], size=v["size"])
        return str(exc)

    def select(self, index: tuple[int, ...]) -> None:
        """Scroll to the cell of the table at ``index`` (into the whole value), make it current
        and select it."""
        panel = self.panel
        row, col = panel.model.table.table_cell(index)
        cell = panel.model.index(row, col)
        panel.table.scrollTo(cell, QtWidgets.QAbstractItemView.ScrollHint.PositionAtCenter)
        selection = panel.table.selectionModel()
        selection.setCurrentIndex(cell, QtCore.QItemSelectionModel.SelectionFlag.ClearAndSelect)

    def selection(self) -> tuple[np.ndarray, str, int] | None:
        """See :meth:`.ValuesPanel.table_selection`."""
        panel = self.panel
        table = panel.model.table
        selection = panel.table.selectionModel()
        if panel.current_view() != "table" or table is None or selection is None:
            return None
        selected = selection.selection()  # rectangles: never one index per cell (10^8 cells)
        ranges = [selected.at(k) for k in range(selected.count())]
        if not ranges:
            return None
        r0 = min(rg.top() for rg in ranges)
        r1 = max(rg.bottom() for rg in ranges) + 1
        c0 = min(rg.left() for rg in ranges)
        c1 = max(rg.right() for rg in ranges) + 1
        return table.block(r0, r1, c0, c1), table.dtype, table.ndim

    def copy(self, kind: str) -> bool:
        """See :meth:`.ValuesPanel.copy_selection`."""
        translate = QtCore.QCoreApplication.translate
        say = self.panel.status_line.say
        try:
            selected = self.selection()
        except SelectionTooLarge as exc:
            say(translate("ValuesPanel", "Not copied: {cells} cells are selected; at most "
                          "{limit} can be copied").format(cells=f"{exc.cells:,}",
                                                          limit=f"{exc.limit:,}"))
            return False
        if selected is None:
            say(translate("ValuesPanel", "Nothing to copy: select cells in the table"))
            return False
        cells, dtype, ndim = selected
        if kind == "numpy":
            text = copy_text.block_literal(cells, dtype, ndim)
        elif kind == "csv":
            text = copy_text.to_csv(cells)
        else:
            text = copy_text.to_tsv(cells)
        QtWidgets.QApplication.clipboard().setText(text)
        self.panel.hover.setText(
            translate("ValuesPanel", "Copied 1 cell") if cells.size == 1 else
            translate("ValuesPanel", "Copied {n} cells").format(n=f"{cells.size:,}"))
        return True

    def fit_columns(self) -> None:
        """Size the first columns to their (sampled) widest text; the rest get the widest."""
        table, model = self.panel.table, self.panel.model
        fm = QtGui.QFontMetrics(table.font())
        header = table.horizontalHeader()
        pad = int(18 * theme.state().scale)
        ncols = model.columnCount()
        widest = 0
        for c in range(0, ncols, max(1, ncols // _FIT_COLUMNS)):  # a few columns, spread out
            texts = [*model.sample_texts(c, rows=16), str(model.headerData(
                c, QtCore.Qt.Orientation.Horizontal)), str(ncols - 1)]
            widest = max(widest, max(fm.horizontalAdvance(t) for t in texts) + pad)
        if widest:
            header.setDefaultSectionSize(widest)
