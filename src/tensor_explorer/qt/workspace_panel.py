"""Workspace panel: every value by name, with badges (shape, dtype, device, grad).

Selecting a row selects the value in the workspace (every panel follows). Rename, delete,
duplicate, move to a device and convert the dtype run as statements through the
:class:`RunController`, so each appears in the code history like typed code.

An ``nn.Module`` is one row that expands to its parameters, buffers and submodules
(:func:`~tensor_explorer.core.modules.members`), named by their qualified name relative to the
module (``hidden.weight`` under ``net``); selecting one selects ``net.hidden.weight`` in the
workspace. Member rows are made when their module is expanded, at most :data:`BATCH` at a time
(a "… N more" row shows the next ones), so a model with thousands of parameters stays quick.
The actions apply to the workspace's own values: they are disabled on member rows.
"""

from __future__ import annotations

import contextlib
import keyword
from typing import Any

import numpy as np
import torch
from PySide6 import QtCore, QtGui, QtWidgets

from ..core.devices import devices
from ..core.modules import access_code, first_names, members, size
from ..core.runner import ProgramError
from . import theme
from .bridge import WorkspaceBridge
from .run_controller import RunController
from .workspace_rows import (
    BADGES_ROLE,
    BATCH,
    ID_ROLE,
    KIND_ROLE,
    LABEL_ROLE,
    NAME_ROLE,
    PENDING_ROLE,
    BadgeDelegate,
    MembersModel,
    member_item,
    more_item,
    set_words,
    value_item,
)

__all__ = ["BATCH", "DTYPES", "KIND_ROLE", "LABEL_ROLE", "NAME_ROLE", "RESERVED", "WorkspacePanel"]

#: names a value may not take: the pre-bound modules
RESERVED = ("torch", "np", "nn", "F", "math", "numpy")
DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool",
          "complex64")


class WorkspacePanel(QtWidgets.QWidget):
    """Values by name with badges; actions run as statements through the run controller."""

    def __init__(self, bridge: WorkspaceBridge, runner: RunController,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("WorkspacePanel")
        self.bridge = bridge
        self.workspace = bridge.workspace
        self.runner = runner
        self.model = MembersModel(self._fill, self)
        self.view = QtWidgets.QTreeView()
        self.view.setModel(self.model)
        self.view.setHeaderHidden(True)
        self.view.setUniformRowHeights(True)
        self.view.setItemDelegate(BadgeDelegate(self.view))
        self.view.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setContextMenuPolicy(QtCore.Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._context_menu)
        self.view.selectionModel().currentChanged.connect(self._current_changed)
        self.view.collapsed.connect(self._collapsed)
        self.empty = QtWidgets.QLabel()
        self.empty.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        layout.addWidget(self.empty)
        #: per module root: the module and :func:`first_names` of it (until the next refresh)
        self._firsts: dict[str, tuple[torch.nn.Module, dict[int, str]]] = {}
        #: how many member rows a module row shows when it is made again (after "… more")
        self._loaded: dict[str, int] = {}
        #: the expanded rows of each module as paths under it ("" the module's own row), by
        #: ``id`` of the module and by its name (see :meth:`_remember_expanded`)
        self._expanded: dict[int, set[str]] = {}
        self._expanded_by_name: dict[str, set[str]] = {}
        #: the "… more" row just chosen (its next rows are made once the event is over)
        self._more: QtCore.QPersistentModelIndex | None = None
        self._make_actions()
        self._set_texts()
        bridge.modified.connect(self.refresh)
        bridge.selected.connect(self._follow_selection)
        bridge.renamed.connect(self._renamed)
        runner.busy_changed.connect(self._busy_changed)
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
        (the same objects, wherever they were added), the rows, the expanded modules and the
        selection stay. Badges are code words (shapes, dtypes, devices), the same in every
        language; the "… N more" rows and the tooltips of shared members are re-worded."""
        self._set_texts()
        for item in self._items():
            set_words(item)
        self.view.viewport().update()

    def _context_menu(self, pos: QtCore.QPoint) -> None:
        menu = self.context_menu()
        if menu is not None:
            menu.exec(self.view.viewport().mapToGlobal(pos))
            menu.deleteLater()

    def context_menu(self) -> QtWidgets.QMenu | None:
        """The menu of the current row: the actions on a value; on a module's member, its
        code to copy (``net[0].weight``)."""
        name = self.current_name()
        if name is None:
            return None
        menu = QtWidgets.QMenu(self)
        if "." in name:
            root, _, rest = name.partition(".")
            module = self.workspace.get(root)
            if not isinstance(module, torch.nn.Module):
                return None
            code = access_code(root, module, rest)
            # PySide6 stub: overlapping addAction(text, callable) overloads hide the type
            menu.addAction(self.tr("Copy code: {0}").format(code),  # type: ignore[misc]
                           lambda: QtWidgets.QApplication.clipboard().setText(code))
            return menu
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
        return menu

    def current_name(self) -> str | None:
        """The name of the current row: a value's, or a member's qualified name
        (``"net.hidden.weight"``); None on no row or a "… more" row."""
        idx = self.view.currentIndex()
        name = idx.data(NAME_ROLE) if idx.isValid() else None
        return str(name) if name is not None else None

    def current_value(self) -> str | None:
        """The current row's name when it is a workspace value (what the actions act on)."""
        idx = self.view.currentIndex()
        return self.current_name() if idx.isValid() and not idx.parent().isValid() else None

    def _update_actions(self) -> None:
        """Rename, Duplicate and Delete act on values: disabled on a module's member row."""
        idx = self.view.currentIndex()
        on_value = not idx.isValid() or not idx.parent().isValid()
        for action in (self.rename_action, self.duplicate_action, self.delete_action):
            action.setEnabled(on_value)

    def rename_selected(self) -> None:
        name = self.current_value()
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
        name = self.current_value()
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
        name = self.current_value()
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
        """Rebuild the rows from the workspace (cheap: badges read metadata only); expanded
        modules stay expanded (their member rows are made again), the scroll position stays."""
        self._remember_expanded()
        scroll = self.view.verticalScrollBar().value()
        items = self.workspace.items()
        self._firsts.clear()
        self._more = None
        self.model.blockSignals(True)
        self.model.clear()
        for name, value in items:
            self.model.appendRow(value_item(name, value))
        self.model.blockSignals(False)
        self.view.reset()
        for name, value in items:
            # the module's rows as they were, also under a new name ("model = net; del net")
            # or when made anew under the same name ("net = Net()" again)
            paths = self._expanded.get(id(value), self._expanded_by_name.get(name))
            if isinstance(value, torch.nn.Module) and paths:
                for path in sorted(paths, key=lambda n: n.count(".")):  # parents first
                    self._expand(self.index_of(f"{name}.{path}" if path else name))
        self.empty.setVisible(not items)
        self.view.setVisible(bool(items))
        self._drop_lost_member()
        self._follow_selection(self.workspace.selected)
        self.view.verticalScrollBar().setValue(scroll)
        self._update_actions()

    def _remember_expanded(self) -> None:
        """Note which rows of each module are expanded, by the module (its ``id``) and by its
        name: a refresh while a program runs may find it under neither name for a moment."""
        for r in range(self.model.rowCount()):
            item = self.model.item(r)
            name = str(item.data(NAME_ROLE))
            if item.data(PENDING_ROLE) or not item.rowCount():
                continue  # not a module, or never expanded: what was remembered stays
            paths = {n.partition(".")[2] for n in self._expanded_under(item)}
            ident = int(item.data(ID_ROLE))
            self._expanded.pop(ident, None)  # the latest last: the oldest are forgotten
            self._expanded[ident] = paths
            self._expanded_by_name.pop(name, None)
            self._expanded_by_name[name] = paths
        while len(self._expanded) > 64:  # modules long gone
            del self._expanded[next(iter(self._expanded))]
        while len(self._expanded_by_name) > 64:
            del self._expanded_by_name[next(iter(self._expanded_by_name))]

    def _expanded_under(self, item: QtGui.QStandardItem) -> list[str]:
        out = []
        stack = [item]
        while stack:
            it = stack.pop()
            if it.rowCount() and self.view.isExpanded(it.index()):
                out.append(str(it.data(NAME_ROLE)))
            stack += [c for c in (it.child(r) for r in range(it.rowCount())) if c is not None]
        return out

    def _drop_lost_member(self) -> None:
        """A selected member whose module went (or no longer has it) is selected no more;
        not while a program runs (its names may be missing for a moment)."""
        selected = self.workspace.selected
        if (selected is not None and "." in selected and not self.runner.busy
                and self.workspace.member(selected) is None):
            self.workspace.selected = None

    def _first(self, root: str, module: torch.nn.Module) -> dict[int, str]:
        cached = self._firsts.get(root)
        if cached is None or cached[0] is not module:
            cached = self._firsts[root] = (module, first_names(module))
        return cached[1]

    def _add_rows(self, item: QtGui.QStandardItem, start: int, stop: int) -> bool:
        """Append the member rows ``start:stop`` of the module row ``item`` (and a "… more"
        row when some are left); False when the module is gone (a program runs)."""
        root, _, under = str(item.data(NAME_ROLE)).partition(".")
        module = self.workspace.get(root)
        if not isinstance(module, torch.nn.Module):
            return False
        try:
            total = size(module.get_submodule(under) if under else module)
            tree = members(module, under, depth=1, first=self._first(root, module),
                           start=start, stop=stop)
        except AttributeError:  # the submodule went meanwhile
            return False
        rows = [member_item(root, module, m) for m in tree]
        if total > stop:
            rows.append(more_item(total - stop))
        item.appendRows(rows)
        return True

    def _fill(self, item: QtGui.QStandardItem) -> None:
        """Make the member rows of the module row ``item`` (the first :data:`BATCH`, or as
        many as were shown before a refresh)."""
        item.setData(None, PENDING_ROLE)
        self._add_rows(item, 0, self._loaded.get(str(item.data(NAME_ROLE)), BATCH))

    def _show_more(self, item: QtGui.QStandardItem) -> QtCore.QModelIndex:
        """Replace the "… more" row under ``item`` by the next :data:`BATCH` member rows (and
        a new "… more" row while some are left); the index of the first new row."""
        last = item.child(item.rowCount() - 1)
        if last is None or last.data(KIND_ROLE) != "more":
            return QtCore.QModelIndex()
        start = item.rowCount() - 1
        item.removeRow(start)
        if not self._add_rows(item, start, start + BATCH):
            return QtCore.QModelIndex()
        self._loaded[str(item.data(NAME_ROLE))] = start + BATCH
        child = item.child(start)
        return child.index() if child is not None else QtCore.QModelIndex()

    def _items(self) -> list[QtGui.QStandardItem]:
        """Every row made so far, parents before their members."""
        out: list[QtGui.QStandardItem] = []
        stack = [self.model.item(r) for r in range(self.model.rowCount() - 1, -1, -1)]
        while stack:
            item = stack.pop()
            if item is None:
                continue
            out.append(item)
            stack += [item.child(r) for r in range(item.rowCount() - 1, -1, -1)]
        return out

    def index_of(self, name: str) -> QtCore.QModelIndex:
        """The row of ``name`` (a value or a member's qualified name), making the member rows
        on the way to it (also beyond "… more"); invalid when there is none."""
        root, *parts = name.split(".")
        item = next((self.model.item(r) for r in range(self.model.rowCount())
                     if self.model.item(r).data(NAME_ROLE) == root), None)
        path = root
        for part in parts:
            if item is None:
                return QtCore.QModelIndex()
            path += "." + part
            if item.data(PENDING_ROLE):
                self._fill(item)
            parent, item = item, None
            while item is None:
                item = next((parent.child(r) for r in range(parent.rowCount())
                             if parent.child(r).data(NAME_ROLE) == path), None)
                if item is None and not self._show_more(parent).isValid():
                    return QtCore.QModelIndex()
        return item.index() if item is not None else QtCore.QModelIndex()

    def names_shown(self) -> list[str]:
        """The names of the workspace's values, as listed (the top-level rows)."""
        return [str(self.model.item(r).data(NAME_ROLE)) for r in range(self.model.rowCount())]

    def members_shown(self, name: str) -> list[str]:
        """The rows listed under ``name`` now: members' qualified names, ``"…"`` for a
        "… more" row; empty while ``name`` was never expanded."""
        idx = self.index_of(name)
        item = self.model.itemFromIndex(idx) if idx.isValid() else None
        if item is None:
            return []
        return [str(item.child(r).data(NAME_ROLE) or "…") for r in range(item.rowCount())]

    def badges_shown(self, name: str) -> list[str]:
        """The badge texts of the row of ``name`` (for tests)."""
        idx = self.index_of(name)
        return [b.text for b in idx.data(BADGES_ROLE) or []] if idx.isValid() else []

    def expand(self, name: str, recursive: bool = False) -> bool:
        """Expand the row of ``name`` (its parents too), making its member rows; with
        ``recursive``, every module below it as well (at most :data:`BATCH` rows each)."""
        idx = self.index_of(name)
        if not idx.isValid():
            return False
        p = idx
        while p.isValid():
            self._expand(p)
            p = p.parent()
        if recursive:
            item = self.model.itemFromIndex(idx)
            for r in range(item.rowCount()):
                child = item.child(r)
                if child is not None and child.data(KIND_ROLE) == "module":
                    self.expand(str(child.data(NAME_ROLE)), recursive=True)
        return True

    def _expand(self, idx: QtCore.QModelIndex) -> None:
        """Expand a row now, its member rows made now too (a hidden view would make them
        only when it is next laid out)."""
        item = self.model.itemFromIndex(idx) if idx.isValid() else None
        if item is None:
            return
        if item.data(PENDING_ROLE):
            self._fill(item)
        self.view.expand(idx)

    def expanded_names(self) -> set[str]:
        """The names of the rows shown expanded."""
        return {str(item.data(NAME_ROLE)) for item in self._items()
                if item.rowCount() and self.view.isExpanded(item.index())}

    @QtCore.Slot(object)
    def _follow_selection(self, name: object) -> None:
        if not isinstance(name, str) or self.current_name() == name:
            return
        idx = self.index_of(name)
        if not idx.isValid():
            return
        p = idx.parent()
        while p.isValid():  # a member selected elsewhere (the Inspector): show where it is
            self.view.expand(p)
            p = p.parent()
        if self.view.currentIndex() != idx:
            self.view.setCurrentIndex(idx)

    def _collapsed(self, index: QtCore.QModelIndex) -> None:
        """A module collapsed over the selected member: the module becomes the selection (the
        selection stays in sight, and the next refresh does not expand it again)."""
        p = self.view.currentIndex().parent()
        while p.isValid():
            if p == index:
                self.view.setCurrentIndex(index)
                return
            p = p.parent()

    def _busy_changed(self, busy: bool) -> None:
        if not busy:
            self._drop_lost_member()

    def _renamed(self, old: str, new: str) -> None:
        """A module renamed: a selected member of it keeps being selected, by its new name."""
        selected = self.workspace.selected
        if selected is not None and selected.startswith(old + "."):
            with contextlib.suppress(KeyError):
                self.workspace.selected = new + selected[len(old):]

    def _current_changed(self, current: QtCore.QModelIndex, _prev: QtCore.QModelIndex) -> None:
        self._update_actions()
        if current.isValid() and current.data(KIND_ROLE) == "more":
            # make the next rows once Qt is done changing the current row
            self._more = QtCore.QPersistentModelIndex(current)
            QtCore.QTimer.singleShot(0, self._more_chosen)
            return
        name = current.data(NAME_ROLE) if current.isValid() else None
        if name is not None and self.workspace.selected != name:
            with contextlib.suppress(KeyError):  # deleted meanwhile by a running program
                self.workspace.selected = str(name)

    def _more_chosen(self) -> None:
        more, self._more = self._more, None
        if more is None or not more.isValid():
            return
        parent = self.model.itemFromIndex(more.parent())
        if parent is not None:
            first = self._show_more(parent)
            if first.isValid():
                self.view.setCurrentIndex(first)
