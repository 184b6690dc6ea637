"""The Workspace panel's rows: what each row holds (the item data roles), how a row is made
from a workspace value, a record's field, a module's member or the "… N more" row that shows
the next ones, and how a row is drawn (its name, then its badges as small rounded tags).

Owned by :class:`~tensor_explorer.qt.workspace_panel.WorkspacePanel`; the texts of its rows are
translated in that panel's context.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from PySide6 import QtCore, QtGui, QtWidgets

from ..core.facts import Badge, badges
from ..core.modules import Member, access_code, module_summary, size
from . import theme

translate = QtCore.QCoreApplication.translate

#: the workspace name of a row: a value's name or a member's qualified name (None: "… more")
NAME_ROLE = QtCore.Qt.ItemDataRole.UserRole + 1
BADGES_ROLE = QtCore.Qt.ItemDataRole.UserRole + 2
#: what the row shows: "value" (a workspace value), "parameter", "buffer", "module" (members
#: of a module) or "more" (the row that shows the next members)
KIND_ROLE = QtCore.Qt.ItemDataRole.UserRole + 3
#: the text drawn for the row (the name relative to its module for members)
LABEL_ROLE = QtCore.Qt.ItemDataRole.UserRole + 4
#: a module row whose members are not made yet: True until it is first expanded
PENDING_ROLE = QtCore.Qt.ItemDataRole.UserRole + 5
#: members: the qualified name of the first place of a shared tensor or module, or None
SHARED_ROLE = QtCore.Qt.ItemDataRole.UserRole + 6
#: "… more" rows: how many members are not shown yet
MORE_ROLE = QtCore.Qt.ItemDataRole.UserRole + 7
#: members: the tooltip's code part (how to reach it, its badges)
TIP_ROLE = QtCore.Qt.ItemDataRole.UserRole + 8
#: values: ``id`` of the value (a module renamed keeps its rows expanded)
ID_ROLE = QtCore.Qt.ItemDataRole.UserRole + 9

#: member rows made at a time under one module
BATCH = 200


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
        label = str(index.data(LABEL_ROLE) or index.data(NAME_ROLE) or "")
        kind = index.data(KIND_ROLE)
        # a member's name relative to its module: the path to it muted, its own name bold
        prefix, dot, name = label.rpartition(".") if kind != "more" else ("", "", label)
        prefix += dot
        tags: list[Badge] = index.data(BADGES_ROLE) or []
        opt.text = ""
        style = opt.widget.style() if opt.widget else QtWidgets.QApplication.style()
        style.drawControl(QtWidgets.QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        painter.save()
        rect = opt.rect.adjusted(8, 0, -4, 0)
        selected = bool(opt.state & QtWidgets.QStyle.StateFlag.State_Selected)
        pal = opt.palette
        fg = pal.highlightedText().color() if selected else pal.text().color()
        x = rect.left()
        if prefix:
            painter.setFont(opt.font)
            painter.setPen(fg if selected else QtGui.QColor(theme.current().muted))
            painter.drawText(rect, QtCore.Qt.AlignmentFlag.AlignVCenter, prefix)
            x += QtGui.QFontMetrics(opt.font).horizontalAdvance(prefix)
        font = QtGui.QFont(opt.font)
        font.setBold(kind != "more")
        font.setItalic(kind == "more")
        painter.setFont(font)
        painter.setPen(fg if selected or kind != "more" else QtGui.QColor(theme.current().muted))
        fm = QtGui.QFontMetrics(font)
        painter.drawText(rect.adjusted(x - rect.left(), 0, 0, 0),
                         QtCore.Qt.AlignmentFlag.AlignVCenter, name)
        x += fm.horizontalAdvance(name) + 10
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


def module_badges(module: torch.nn.Module) -> list[Badge]:
    """A module's badges: its class, its parameter count, where its tensors are when that is
    not (only) the CPU, and "eval" after ``eval()``."""
    s = module_summary(module)
    out = [Badge("type", s.class_name), Badge("shape", f"{s.parameters:,} params")]
    devs = sorted(s.devices)
    if devs and devs != ["cpu"]:
        out.append(Badge("device", ", ".join(devs)))
    if not s.training:
        out.append(Badge("no_grad", "eval"))
    return out


def member_badges(m: Member) -> list[Badge]:
    """A member's badges: a submodule's class and parameter count; a tensor's shape, dtype,
    device and grad state (``requires_grad=False`` spelled out for a frozen parameter), a
    buffer marked as one; ``= first.name`` for a shared tensor or module."""
    if m.kind == "module":
        out = [Badge("type", m.class_name or "")]
        if m.numel or m.size:
            out.append(Badge("shape", f"{m.numel:,} params"))
    elif m.shape is None:  # a lazy module's parameter before its first forward pass
        out = [Badge("type", "uninitialized"), Badge("device", str(m.device))]
    else:
        out = badges(m.value)
        if m.kind == "buffer":
            out.insert(0, Badge("type", "buffer"))
        elif not m.requires_grad:  # where "requires_grad" would be: seen in a narrow panel
            out.insert(3, Badge("no_grad", "requires_grad=False"))
    if m.shared_with:
        out.insert(0, Badge("type", f"= {m.shared_with}"))
    return out


_ROOT = QtCore.QModelIndex()


class MembersModel(QtGui.QStandardItemModel):
    """The panel's rows. A module row makes its member rows when it is first expanded: Qt's
    view asks ``canFetchMore``/``fetchMore`` on expanding, and ``hasChildren`` for its arrow."""

    def __init__(self, fill: Callable[[QtGui.QStandardItem], None],
                 parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._fill = fill

    def _pending(self, parent: QtCore.QModelIndex | QtCore.QPersistentModelIndex
                 ) -> QtGui.QStandardItem | None:
        if not parent.isValid():
            return None
        index = parent if isinstance(parent, QtCore.QModelIndex) else self.index(
            parent.row(), parent.column(), parent.parent())
        item = self.itemFromIndex(index)
        return item if item is not None and item.data(PENDING_ROLE) else None

    def hasChildren(self, parent: QtCore.QModelIndex | QtCore.QPersistentModelIndex = _ROOT
                    ) -> bool:
        return self._pending(parent) is not None or super().hasChildren(parent)

    def canFetchMore(self, parent: QtCore.QModelIndex | QtCore.QPersistentModelIndex) -> bool:
        return self._pending(parent) is not None

    def fetchMore(self, parent: QtCore.QModelIndex | QtCore.QPersistentModelIndex) -> None:
        item = self._pending(parent)
        if item is not None:
            self._fill(item)


# -- rows --------------------------------------------------------------------------------------


def value_item(name: str, value: Any) -> QtGui.QStandardItem:
    """The row of a workspace value: its badges; a module's members made when it is first
    expanded, a record's fields at once."""
    item = QtGui.QStandardItem(name)
    item.setData(name, NAME_ROLE)
    item.setData("value", KIND_ROLE)
    item.setData(id(value), ID_ROLE)
    tags = module_badges(value) if isinstance(value, torch.nn.Module) else badges(value)
    item.setData(tags, BADGES_ROLE)
    item.setToolTip(f"{name}: " + ", ".join(b.text for b in tags))
    if isinstance(value, torch.nn.Module) and size(value):
        item.setData(True, PENDING_ROLE)
    if isinstance(value, np.ndarray) and value.dtype.names:
        item.appendRows(field_items(name, value, ""))
    return item


def field_items(root: str, record: np.ndarray, under: str) -> list[QtGui.QStandardItem]:
    """A row for each field of a record (a structured array), nested records by path: each
    a value of its own (``data.x``), a view of the record's memory."""
    rows = []
    for field in record.dtype.names or ():
        path = f"{under}.{field}" if under else field
        sub = record[field]
        item = QtGui.QStandardItem(path)
        item.setData(f"{root}.{path}", NAME_ROLE)
        item.setData(path, LABEL_ROLE)
        item.setData("field", KIND_ROLE)
        tags = badges(sub)
        item.setData(tags, BADGES_ROLE)
        code = root + "".join(f"[{part!r}]" for part in path.split("."))
        item.setData(f"{code}: " + ", ".join(b.text for b in tags), TIP_ROLE)
        item.setToolTip(str(item.data(TIP_ROLE)))
        if sub.dtype.names:
            item.appendRows(field_items(root, sub, path))
        rows.append(item)
    return rows


def member_item(root: str, module: torch.nn.Module, m: Member) -> QtGui.QStandardItem:
    """The row of a member of the module ``root`` (its tooltip: how to reach it in code)."""
    item = QtGui.QStandardItem(m.name)
    item.setData(f"{root}.{m.name}", NAME_ROLE)
    item.setData(m.name, LABEL_ROLE)
    item.setData(m.kind, KIND_ROLE)
    item.setData(m.shared_with, SHARED_ROLE)
    tags = member_badges(m)
    item.setData(tags, BADGES_ROLE)
    code = access_code(root, module, m.name)
    item.setData(f"{code}: " + ", ".join(b.text for b in tags), TIP_ROLE)
    if m.kind == "module" and m.size:
        item.setData(True, PENDING_ROLE)
    set_words(item)
    return item


def more_item(left: int) -> QtGui.QStandardItem:
    """The "… N more" row: choosing it shows the next members, ``left`` of them not yet."""
    item = QtGui.QStandardItem()
    item.setData("more", KIND_ROLE)
    item.setData(left, MORE_ROLE)
    set_words(item)
    return item


def set_words(item: QtGui.QStandardItem) -> None:
    """The texts of a row that are words, in the current language."""
    kind = item.data(KIND_ROLE)
    if kind == "more":
        left = int(item.data(MORE_ROLE))
        item.setData(translate("WorkspacePanel", "… {0} more").format(f"{left:,}"), LABEL_ROLE)
        item.setToolTip(translate("WorkspacePanel", "Select to show the next {0}.").format(
            min(left, BATCH)))
        return
    tip = item.data(TIP_ROLE)
    if tip is None:
        return
    shared = item.data(SHARED_ROLE)
    if shared:
        tip += "\n" + (
            translate("WorkspacePanel", "The same module as {0}; its members are listed there.")
            if kind == "module" else
            translate("WorkspacePanel", "The same tensor as {0}: a change to one is a change to "
                      "the other.")).format(shared)
    item.setToolTip(tip)
