"""Workspace panel: every value by name, with badges (shape, dtype, device, grad).

Selecting a row selects the value in the workspace (every panel follows). Rename, delete,
duplicate, move to a device and convert the dtype run as statements through the
:class:`RunController`, so each appears in the code history like typed code.
"""

from __future__ import annotations

import contextlib
import keyword
from typing import Any

import numpy as np
import torch
from PySide6 import QtCore, QtGui, QtWidgets

from ..core.devices import devices
from ..core.facts import Badge, badges
from ..core.runner import ProgramError
from . import theme
from .bridge import WorkspaceBridge
from .run_controller import RunController

NAME_ROLE = QtCore.Qt.ItemDataRole.UserRole + 1
BADGES_ROLE = QtCore.Qt.ItemDataRole.UserRole + 2

#: names a value may not take: the pre-bound modules
RESERVED = ("torch", "np", "nn", "F", "math", "numpy")
DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool",
          "complex64")


def _badge_color(kind: str) -> str:
    t = theme.current()
    return {
        "shape": t.series[0],
        "dtype": t.series[2],
        "device": t.series[4],
        "grad": t.series[1],
        "grad_fn": t.series[1],
        "has_grad": t.ok,
        "inference": t.warning,
        "type": t.muted,
    }.get(kind, t.muted)


class BadgeDelegate(QtWidgets.QStyledItemDelegate):
    """Draws a value's name followed by its badges as small rounded tags."""

    def paint(self, painter: QtGui.QPainter, option: QtWidgets.QStyleOptionViewItem,
              index: QtCore.QModelIndex | QtCore.QPersistentModelIndex) -> None:
        opt = QtWidgets.QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        name = str(index.data(NAME_ROLE) or "")
        tags: list[Badge] = index.data(BADGES_ROLE) or []
        opt.text = ""
        style = opt.widget.style() if opt.widget else QtWidgets.QApplication.style()
        style.drawControl(QtWidgets.QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        painter.save()
        rect = opt.rect.adjusted(8, 0, -4, 0)
        font = QtGui.QFont(opt.font)
        font.setBold(True)
        painter.setFont(font)
        selected = bool(opt.state & QtWidgets.QStyle.StateFlag.State_Selected)
        pal = opt.palette
        fg = pal.highlightedText().color() if selected else pal.text().color()
        painter.setPen(fg)
        fm = QtGui.QFontMetrics(font)
        painter.drawText(rect, QtCore.Qt.AlignmentFlag.AlignVCenter, name)
        x = rect.left() + fm.horizontalAdvance(name) + 10
        small = QtGui.QFont(opt.font)
        small.setPointSizeF(max(theme.min_point_size(), opt.font.pointSizeF() * 0.85))
        painter.setFont(small)
        sfm = QtGui.QFontMetrics(small)
        h = sfm.height() + 4
        y = rect.top() + (rect.height() - h) // 2
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        for tag in tags:
            w = sfm.horizontalAdvance(tag.text) + 10
            if x + w > rect.right():
                break
            color = QtGui.QColor(_badge_color(tag.kind))
            fill = QtGui.QColor(color)
            fill.setAlpha(40 if not selected else 90)
            painter.setPen(QtGui.QPen(color, 1))
            painter.setBrush(fill)
            painter.drawRoundedRect(QtCore.QRectF(x, y, w, h), 4, 4)
            painter.setPen(fg if selected else color.darker(115) if theme.current().name ==
                           "light" else color)
            painter.drawText(QtCore.QRectF(x, y, w, h), QtCore.Qt.AlignmentFlag.AlignCenter,
                             tag.text)
            x += w + 5
        painter.restore()

    def sizeHint(self, option: QtWidgets.QStyleOptionViewItem,
                 index: QtCore.QModelIndex | QtCore.QPersistentModelIndex) -> QtCore.QSize:
        fm = QtGui.QFontMetrics(option.font)
        return QtCore.QSize(200, int(fm.height() * 1.9))


class WorkspacePanel(QtWidgets.QWidget):
    """Values by name with badges; actions run as statements through the run controller."""

    def __init__(self, bridge: WorkspaceBridge, runner: RunController,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("WorkspacePanel")
        self.bridge = bridge
        self.workspace = bridge.workspace
        self.runner = runner
        self.model = QtGui.QStandardItemModel(self)
        self.view = QtWidgets.QListView()
        self.view.setModel(self.model)
        self.view.setItemDelegate(BadgeDelegate(self.view))
        self.view.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setContextMenuPolicy(QtCore.Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._context_menu)
        self.view.selectionModel().currentChanged.connect(self._current_changed)
        self.empty = QtWidgets.QLabel()
        self.empty.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        layout.addWidget(self.empty)
        self._make_actions()
        self._set_texts()
        bridge.modified.connect(self.refresh)
        bridge.selected.connect(self._follow_selection)
        theme.state().changed.connect(self.view.viewport().update)
        self.refresh()

    # -- actions -------------------------------------------------------------------------------

    def _make_actions(self) -> None:
        """The Rename/Duplicate/Delete actions (also in the window's Edit menu): made once, so
        a language switch re-labels these same objects (:meth:`_set_texts`)."""

        def act(slot: Any) -> QtGui.QAction:
            a = QtGui.QAction(self)
            a.setShortcutContext(QtCore.Qt.ShortcutContext.WidgetWithChildrenShortcut)
            a.triggered.connect(slot)
            self.addAction(a)
            return a

        self.rename_action = act(self.rename_selected)
        self.duplicate_action = act(self.duplicate_selected)
        self.delete_action = act(self.delete_selected)

    def _set_texts(self) -> None:
        """Every fixed text of the panel, in the current language."""
        self.empty.setText(self.tr(
            "No values yet.\nOpen a .npy/.npz file, use the Build form,\nor type code below."))
        for action, text, shortcut in (
            (self.rename_action, self.tr("Rename…"), "F2"),
            (self.duplicate_action, self.tr("Duplicate (clone)"), "Ctrl+D"),
            (self.delete_action, self.tr("Delete"), "Del"),
        ):
            action.setText(text)
            action.setShortcut(QtGui.QKeySequence(shortcut))

    def retranslate(self) -> None:
        """Show the panel in the language just installed: the actions are re-labelled in place
        (the same objects, wherever they were added), the rows and selection stay. Badges are
        code words (shapes, dtypes, devices), the same in every language."""
        self._set_texts()
        self.view.viewport().update()

    def _context_menu(self, pos: QtCore.QPoint) -> None:
        name = self.current_name()
        if name is None:
            return
        menu = QtWidgets.QMenu(self)
        menu.addAction(self.rename_action)
        menu.addAction(self.duplicate_action)
        menu.addAction(self.delete_action)
        value = self.workspace.get(name)
        if isinstance(value, torch.Tensor | torch.nn.Module):
            dev_menu = menu.addMenu(self.tr("Move to device"))
            for dev in [*devices(), "meta"]:
                # PySide6 stub: overlapping addAction(text, callable) overloads hide the type
                dev_menu.addAction(dev, lambda d=dev: self.move_to_device(name, d))  # type: ignore[misc]
        if isinstance(value, torch.Tensor | np.ndarray):
            dt_menu = menu.addMenu(self.tr("Convert dtype"))
            for dt in DTYPES:
                if isinstance(value, np.ndarray) and dt == "bfloat16":
                    continue  # NumPy has no bfloat16
                # PySide6 stub: overlapping addAction(text, callable) overloads hide the type
                dt_menu.addAction(dt, lambda d=dt: self.convert_dtype(name, d))  # type: ignore[misc]
        menu.exec(self.view.viewport().mapToGlobal(pos))

    def current_name(self) -> str | None:
        idx = self.view.currentIndex()
        return str(idx.data(NAME_ROLE)) if idx.isValid() else None

    def rename_selected(self) -> None:
        name = self.current_name()
        if name is None:
            return
        new, ok = QtWidgets.QInputDialog.getText(self, self.tr("Rename"),
                                                 self.tr("New name for {0}:").format(name),
                                                 text=name)
        if ok and new and new != name:
            self.rename(name, new.strip())

    def rename(self, old: str, new: str) -> None:
        """Rename ``old`` to ``new`` by statements; refuse (with a message) a name that is not
        a Python name, is taken by another value, or would hide torch/np/nn/F/math."""
        reason = None
        if not new.isidentifier() or keyword.iskeyword(new) or new.startswith("_"):
            reason = self.tr("{0!r} is not a valid Python name").format(new)
        elif new in RESERVED:
            reason = self.tr("{0} is the name of a module; renaming a value to it would hide "
                             "the module").format(new)
        elif new in self.workspace:
            reason = self.tr("{0} is already a value; delete or rename it first").format(new)
        if reason is not None:
            self.runner.failed.emit(ProgramError(self.tr("Rename refused: {0}.").format(reason),
                                                 kind="refused"))
            return
        self.runner.run(f"{new} = {old}\ndel {old}", select=new)

    def duplicate_selected(self) -> None:
        name = self.current_name()
        if name is not None:
            self.duplicate(name)

    def duplicate(self, name: str) -> None:
        value = self.workspace.get(name)
        new = self._free_name(f"{name}_copy")
        if isinstance(value, np.ndarray):
            self.runner.run(f"{new} = {name}.copy()", select=new)
        elif isinstance(value, torch.Tensor):
            self.runner.run(f"{new} = {name}.clone()", select=new)
        else:
            self.runner.run(f"{new} = {name}", select=new)

    def delete_selected(self) -> None:
        name = self.current_name()
        if name is not None:
            self.runner.run(f"del {name}")

    def move_to_device(self, name: str, device: str) -> None:
        self.runner.run(f"{name} = {name}.to({device!r})", select=name)

    def convert_dtype(self, name: str, dtype: str) -> None:
        value = self.workspace.get(name)
        if isinstance(value, np.ndarray):
            self.runner.run(f"{name} = {name}.astype(np.{dtype})", select=name)
        else:
            self.runner.run(f"{name} = {name}.to(torch.{dtype})", select=name)

    def _free_name(self, base: str) -> str:
        name, n = base, 2
        while name in self.workspace:
            name, n = f"{base}{n}", n + 1
        return name

    # -- model ---------------------------------------------------------------------------------

    @QtCore.Slot()
    def refresh(self) -> None:
        """Rebuild the rows from the workspace (cheap: badges read metadata only)."""
        items = self.workspace.items()
        self.model.blockSignals(True)
        self.model.clear()
        for name, value in items:
            item = QtGui.QStandardItem(name)
            item.setData(name, NAME_ROLE)
            item.setData(badges(value), BADGES_ROLE)
            item.setToolTip(f"{name}: " + ", ".join(b.text for b in badges(value)))
            self.model.appendRow(item)
        self.model.blockSignals(False)
        self.view.reset()
        self.empty.setVisible(not items)
        self.view.setVisible(bool(items))
        self._follow_selection(self.workspace.selected)

    def names_shown(self) -> list[str]:
        return [str(self.model.item(r).data(NAME_ROLE)) for r in range(self.model.rowCount())]

    @QtCore.Slot(object)
    def _follow_selection(self, name: object) -> None:
        for r in range(self.model.rowCount()):
            if self.model.item(r).data(NAME_ROLE) == name:
                idx = self.model.index(r, 0)
                if self.view.currentIndex() != idx:
                    self.view.setCurrentIndex(idx)
                return

    def _current_changed(self, current: QtCore.QModelIndex, _prev: QtCore.QModelIndex) -> None:
        name = current.data(NAME_ROLE) if current.isValid() else None
        if name is not None and self.workspace.selected != name:
            with contextlib.suppress(KeyError):  # deleted meanwhile by a running program
                self.workspace.selected = str(name)
