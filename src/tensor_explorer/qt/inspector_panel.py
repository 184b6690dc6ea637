"""Inspector panel: every fact of the selected value, grouped, each with a one-sentence tooltip;
statistics (in the background for large values, with progress); diagnoses by severity; and how
the value was made.

The panel holds no facts of its own: it shows :func:`describe`, :func:`stats`,
:func:`diagnose`, :func:`module_summary` and the workspace's origin records.

A module (``net``, or a submodule ``net.hidden``) shows its summary and its parameters and
buffers (a double click selects one); a module's parameter or buffer selected by its qualified
name (``net.hidden.weight``) shows every fact of a tensor, and where it belongs.
"""

from __future__ import annotations

import contextlib
import html
from typing import Any, cast

import numpy as np
import torch
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import QT_TRANSLATE_NOOP
from torch.nn.parameter import is_lazy

from ..core.diagnose import Diagnosis, diagnose
from ..core.facts import TensorFacts, describe, grad_norm
from ..core.memory import sharing_reason
from ..core.modules import ModuleSummary, access_code, first_names, member_kind, module_summary
from ..core.stats import Stats, stats
from . import i18n, theme
from .bridge import WorkspaceBridge
from .diagnosis_list import DiagnosisList
from .workers import Task

CTX = "Inspector"
#: item data role of a group row's language-independent key ("Memory layout", "statistics"...)
GROUP_ROLE = QtCore.Qt.ItemDataRole.UserRole + 1
#: values with at most this many elements get their statistics synchronously
SYNC_STATS_LIMIT = 200_000
#: item data role of a module's parameter or buffer row: its qualified name in the workspace
MEMBER_ROLE = QtCore.Qt.ItemDataRole.UserRole + 2
#: a module's parameters (and buffers) listed at most, each; the Workspace panel has them all
MEMBER_ROWS = 100

#: how a memory-mapped value's writes behave (core's MapInfo.mode -> the shown text)
MAP_MODES = cast("dict[str, str]", {
    "copy-on-write": QT_TRANSLATE_NOOP("Inspector", "copy-on-write: edits stay in memory"),
    "read-only": QT_TRANSLATE_NOOP("Inspector", "read-only"),
    "read-write": QT_TRANSLATE_NOOP("Inspector", "read-write: edits reach the file"),
})  # fmt: skip

# cast: the PySide6 stub types QT_TRANSLATE_NOOP as returning object; it returns its message
GROUPS = cast("list[tuple[str, list[tuple[str, str, str]]]]", [
    (QT_TRANSLATE_NOOP("Inspector", "What it is"), [
        ("kind", QT_TRANSLATE_NOOP("Inspector", "kind"), QT_TRANSLATE_NOOP("Inspector", "Whether this is a torch tensor or a NumPy array.")),
        ("shape", QT_TRANSLATE_NOOP("Inspector", "shape"), QT_TRANSLATE_NOOP("Inspector", "The size along each axis; its length is the number of dimensions.")),
        ("dtype", QT_TRANSLATE_NOOP("Inspector", "dtype"), QT_TRANSLATE_NOOP("Inspector", "The type of every element: it decides precision, range and which operations are allowed.")),
        ("device", QT_TRANSLATE_NOOP("Inspector", "device"), QT_TRANSLATE_NOOP("Inspector", "Where the data lives (cpu, cuda:0...); tensors in one operation must share a device.")),
        ("numel", QT_TRANSLATE_NOOP("Inspector", "elements"), QT_TRANSLATE_NOOP("Inspector", "How many elements there are: the product of the shape.")),
    ]),
    (QT_TRANSLATE_NOOP("Inspector", "Memory layout"), [
        ("stride", QT_TRANSLATE_NOOP("Inspector", "stride"), QT_TRANSLATE_NOOP("Inspector", "How many elements to skip in memory to move one step along each axis.")),
        ("storage_offset", QT_TRANSLATE_NOOP("Inspector", "storage offset"), QT_TRANSLATE_NOOP("Inspector", "Where the first element sits in its storage, counted in elements.")),
        ("is_contiguous", QT_TRANSLATE_NOOP("Inspector", "contiguous"), QT_TRANSLATE_NOOP("Inspector", "True when the elements lie in memory in row-major order with no gaps; view() needs this.")),
        ("element_size", QT_TRANSLATE_NOOP("Inspector", "element size"), QT_TRANSLATE_NOOP("Inspector", "Bytes per element.")),
        ("nbytes", QT_TRANSLATE_NOOP("Inspector", "bytes"), QT_TRANSLATE_NOOP("Inspector", "Bytes the elements would need: elements x element size.")),
        ("storage_nbytes", QT_TRANSLATE_NOOP("Inspector", "storage bytes"), QT_TRANSLATE_NOOP("Inspector", "Bytes of the whole allocation this value looks into (views share it).")),
        ("internal_overlap", QT_TRANSLATE_NOOP("Inspector", "internal overlap"), QT_TRANSLATE_NOOP("Inspector", "True when two elements read the same bytes (after expand): in-place writes are unsafe.")),
        ("is_view", QT_TRANSLATE_NOOP("Inspector", "is a view"), QT_TRANSLATE_NOOP("Inspector", "True when this value looks into memory owned by another value.")),
        ("mapped_file", QT_TRANSLATE_NOOP("Inspector", "memory-mapped file"), QT_TRANSLATE_NOOP("Inspector", "The file whose pages hold these bytes, read only when used.")),
        ("mapped_offset", QT_TRANSLATE_NOOP("Inspector", "file offset"), QT_TRANSLATE_NOOP("Inspector", "The byte of the file where the first element lies (after the file's header).")),
        ("mapped_mode", QT_TRANSLATE_NOOP("Inspector", "mapping"), QT_TRANSLATE_NOOP("Inspector", "Whether a write reaches the file.")),
        ("byte_order", QT_TRANSLATE_NOOP("Inspector", "byte order"), QT_TRANSLATE_NOOP("Inspector", "The order of bytes in each element; torch needs this machine's order.")),
        ("writeable", QT_TRANSLATE_NOOP("Inspector", "writeable"), QT_TRANSLATE_NOOP("Inspector", "Whether the memory can be written to.")),
    ]),
    (QT_TRANSLATE_NOOP("Inspector", "Autograd"), [
        ("requires_grad", QT_TRANSLATE_NOOP("Inspector", "requires_grad"), QT_TRANSLATE_NOOP("Inspector", "True when autograd records operations on this tensor so gradients can flow to it.")),
        ("is_leaf", QT_TRANSLATE_NOOP("Inspector", "is leaf"), QT_TRANSLATE_NOOP("Inspector", "True for tensors created by you rather than computed; only leaves get .grad filled by backward().")),
        ("grad_fn", QT_TRANSLATE_NOOP("Inspector", "grad_fn"), QT_TRANSLATE_NOOP("Inspector", "The autograd node that made this tensor; backward() starts here.")),
        ("grad", QT_TRANSLATE_NOOP("Inspector", "grad"), QT_TRANSLATE_NOOP("Inspector", "The accumulated gradient (shape and norm), or None.")),
        ("retains_grad", QT_TRANSLATE_NOOP("Inspector", "retains grad"), QT_TRANSLATE_NOOP("Inspector", "True after retain_grad(): this non-leaf keeps its gradient.")),
        ("version", QT_TRANSLATE_NOOP("Inspector", "version"), QT_TRANSLATE_NOOP("Inspector", "Counts in-place changes; autograd uses it to detect a saved tensor that was modified.")),
        ("is_inference", QT_TRANSLATE_NOOP("Inspector", "inference tensor"), QT_TRANSLATE_NOOP("Inspector", "Made under torch.inference_mode(): it can never enter autograd.")),
        ("is_parameter", QT_TRANSLATE_NOOP("Inspector", "parameter"), QT_TRANSLATE_NOOP("Inspector", "An nn.Parameter: a leaf that a module trains.")),
    ]),
])

MODULE_ROWS = cast("list[tuple[str, str, str]]", [
    ("parameters", QT_TRANSLATE_NOOP("Inspector", "parameters"), QT_TRANSLATE_NOOP("Inspector", "How many numbers the module learns: the elements of all its parameters, a shared one counted once.")),
    ("trainable", QT_TRANSLATE_NOOP("Inspector", "trainable"), QT_TRANSLATE_NOOP("Inspector", "Elements of the parameters with requires_grad=True: what an optimizer updates; the others are frozen.")),
    ("with_grad", QT_TRANSLATE_NOOP("Inspector", "gradients"), QT_TRANSLATE_NOOP("Inspector", "How many parameters hold a .grad from backward(); zero_grad() clears them.")),
    ("buffers", QT_TRANSLATE_NOOP("Inspector", "buffers"), QT_TRANSLATE_NOOP("Inspector", "Tensors the module keeps but does not train (batch norm's running mean and variance); saved in its state_dict.")),
    ("devices", QT_TRANSLATE_NOOP("Inspector", "devices"), QT_TRANSLATE_NOOP("Inspector", "Where its parameters and buffers live; its inputs must be on the same device.")),
    ("dtypes", QT_TRANSLATE_NOOP("Inspector", "dtypes"), QT_TRANSLATE_NOOP("Inspector", "The dtypes of its parameters and buffers; floating inputs should have the parameters' dtype.")),
    ("mode", QT_TRANSLATE_NOOP("Inspector", "mode"), QT_TRANSLATE_NOOP("Inspector", "train() or eval(): dropout and batch norm behave differently in each.")),
    ("submodules", QT_TRANSLATE_NOOP("Inspector", "submodules"), QT_TRANSLATE_NOOP("Inspector", "How many modules it contains at every depth (a shared one counted once).")),
    ("uninitialized", QT_TRANSLATE_NOOP("Inspector", "uninitialized"), QT_TRANSLATE_NOOP("Inspector", "Parameters of a lazy module: they get their shape at the first forward pass.")),
])

STAT_ROWS = cast("list[tuple[str, str, str]]", [
    ("min", QT_TRANSLATE_NOOP("Inspector", "min"), QT_TRANSLATE_NOOP("Inspector", "The smallest finite value.")),
    ("max", QT_TRANSLATE_NOOP("Inspector", "max"), QT_TRANSLATE_NOOP("Inspector", "The largest finite value.")),
    ("mean", QT_TRANSLATE_NOOP("Inspector", "mean"), QT_TRANSLATE_NOOP("Inspector", "The average of the finite values (accumulated in float64).")),
    ("std", QT_TRANSLATE_NOOP("Inspector", "std"), QT_TRANSLATE_NOOP("Inspector", "The standard deviation of the finite values (population, ddof=0).")),
    ("nan", QT_TRANSLATE_NOOP("Inspector", "NaN"), QT_TRANSLATE_NOOP("Inspector", "How many elements are Not a Number.")),
    ("posinf", QT_TRANSLATE_NOOP("Inspector", "+Inf"), QT_TRANSLATE_NOOP("Inspector", "How many elements are positive infinity.")),
    ("neginf", QT_TRANSLATE_NOOP("Inspector", "-Inf"), QT_TRANSLATE_NOOP("Inspector", "How many elements are negative infinity.")),
    ("zeros", QT_TRANSLATE_NOOP("Inspector", "zeros"), QT_TRANSLATE_NOOP("Inspector", "How many elements are exactly zero.")),
    ("first_nonfinite", QT_TRANSLATE_NOOP("Inspector", "first non-finite"), QT_TRANSLATE_NOOP("Inspector", "The index of the first NaN or Inf, in row-major order.")),
])


def tr(text: str) -> str:
    return QtCore.QCoreApplication.translate(CTX, text)


def _fmt(key: str, v: Any) -> str:
    if v is None:
        return "None"
    if key == "grad" and isinstance(v, dict):
        return f"shape {tuple(v['shape'])}, norm {v['norm']:.6g}"
    if isinstance(v, list):
        return "(" + ", ".join(str(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


class InspectorPanel(QtWidgets.QWidget):
    """Facts, statistics, diagnoses and origin of the workspace's selected value."""

    def __init__(self, bridge: WorkspaceBridge, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("InspectorPanel")
        self.bridge = bridge
        self.workspace = bridge.workspace
        self.name: str | None = None
        self._task: Task | None = None
        self.title = QtWidgets.QLabel()
        self.title.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.tree = QtWidgets.QTreeWidget()
        self.tree.setColumnCount(2)
        self.tree.setRootIsDecorated(True)
        self.tree.setAlternatingRowColors(True)
        # a long value (how it was made, a repr) wraps onto more lines instead of ending in
        # "…"; fact names keep their column as wide as the longest
        self.tree.setUniformRowHeights(False)
        self.tree.setWordWrap(True)
        self.tree.setTextElideMode(QtCore.Qt.TextElideMode.ElideNone)
        header = self.tree.header()
        header.setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        # wrapped rows are as tall as their text at the column's width: lay out again when it
        # changes (a resize, a larger font)
        header.sectionResized.connect(self._relayout_rows)
        self.tree.setItemDelegate(WrappingDelegate(self.tree))
        self.progress = QtWidgets.QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(True)
        self.progress.hide()
        #: groups to show collapsed and scroll positions to restore when statistics computed in
        #: the background arrive after a language switch (see :meth:`retranslate`)
        self._keep_view: tuple[set[str], tuple[int, int, int]] | None = None
        self._set_texts()
        # each diagnosis its own label: titled in plain words, its code in the tooltip
        self.diagnoses = DiagnosisList()
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        split.addWidget(self.tree)
        split.addWidget(self.diagnoses)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.title)
        layout.addWidget(split, 1)
        layout.addWidget(self.progress)
        bridge.selected.connect(self._on_selected)
        bridge.changed.connect(self._on_changed)
        bridge.renamed.connect(self._on_renamed)
        bridge.removed.connect(self._on_removed)
        self.tree.itemDoubleClicked.connect(self._open_member)
        self._built_for: str | None = None  # the value the tree was last built for
        theme.state().changed.connect(self.refresh)
        self._on_selected(self.workspace.selected)

    def _relayout_rows(self, index: int, old: int, new: int) -> None:
        if index == 1 and old != new:
            self.tree.doItemsLayout()

    def _set_texts(self) -> None:
        self.tree.setHeaderLabels([self.tr("fact"), self.tr("value")])
        self.progress.setFormat(self.tr("statistics %p%"))

    def retranslate(self) -> None:
        """Show the panel in the language just installed: the same value, with the groups the
        user collapsed still collapsed and the same scroll positions. Facts are recomputed (the
        diagnoses and the origin's words depend on the language); nothing runs in the
        workspace."""
        self._set_texts()
        self.refresh()

    def collapsed_groups(self) -> set[str]:
        """The keys of the groups shown collapsed (for tests and :meth:`retranslate`)."""
        out = set()
        for i in range(self.tree.topLevelItemCount()):
            g = self.tree.topLevelItem(i)
            if g is not None and not g.isExpanded():
                out.add(str(g.data(0, GROUP_ROLE)))
        return out

    def scroll_positions(self) -> tuple[int, int, int]:
        """The facts' vertical and horizontal scroll positions and the diagnoses' vertical."""
        return (self.tree.verticalScrollBar().value(), self.tree.horizontalScrollBar().value(),
                self.diagnoses.verticalScrollBar().value())

    def _restore_view(self, collapsed: set[str], scroll: tuple[int, int, int]) -> None:
        for i in range(self.tree.topLevelItemCount()):
            g = self.tree.topLevelItem(i)
            if g is not None:
                g.setExpanded(str(g.data(0, GROUP_ROLE)) not in collapsed)
        self.tree.doItemsLayout()  # scroll ranges for the new rows, now
        self.tree.verticalScrollBar().setValue(scroll[0])
        self.tree.horizontalScrollBar().setValue(scroll[1])
        self.diagnoses.verticalScrollBar().setValue(scroll[2])

    # -- events --------------------------------------------------------------------------------

    def _on_selected(self, name: object) -> None:
        self.show_value(name if isinstance(name, str) else None)

    def _shows(self, name: str) -> bool:
        """Whether the value shown is ``name`` or a member of the module ``name``."""
        return self.name is not None and (self.name == name or self.name.startswith(name + "."))

    def _on_changed(self, name: str) -> None:
        if self._shows(name):
            self.refresh()

    def _on_renamed(self, old: str, new: str) -> None:
        if self.name is not None and self._shows(old):
            self.name = self._built_for = new + self.name[len(old):]
            self.refresh()

    def _on_removed(self, name: str) -> None:
        if self._shows(name):
            self.show_value(None)

    def _open_member(self, item: QtWidgets.QTreeWidgetItem, _column: int) -> None:
        """A double click on a module's parameter or buffer row selects it."""
        name = item.data(0, MEMBER_ROLE)
        if name:
            with contextlib.suppress(KeyError):  # gone meanwhile
                self.workspace.selected = str(name)

    # -- display -------------------------------------------------------------------------------

    def show_value(self, name: str | None) -> None:
        self.name = name
        self.refresh()

    def refresh(self) -> None:
        """Show the facts of the value again (after a change, a new theme or language); the
        same value keeps the groups the user collapsed and its scroll positions."""
        same = self.name is not None and self.name == self._built_for
        collapsed, scroll = self.collapsed_groups(), self.scroll_positions()
        self._rebuild()
        self._built_for = self.name
        if same:
            self._restore_view(collapsed, scroll)
            if self._task is not None:  # statistics still to come: again when they arrive
                self._keep_view = (collapsed, scroll)

    def _rebuild(self) -> None:
        self._cancel_task()
        self._keep_view = None
        self.tree.clear()
        self.diagnoses.clear()
        name = self.name
        missing = object()
        # one read: a program in the worker thread may delete the name at any moment
        value = self.workspace.get(name, missing) if name is not None else missing
        if name is None or value is missing:
            hint = self.tr("Select a value to inspect it.")
            self.title.setText(f"<i>{html.escape(hint)}</i>")
            return
        t = theme.current()
        self.title.setText(f"<b style='font-size:120%'>{html.escape(name)}</b> "
                           f"<span style='color:{t.muted}'>{html.escape(type(value).__name__)}"
                           f"</span>")
        if "." in name:
            self._member_rows(name)
        else:
            self._origin_rows(name)
        # facts of every array but one of Python objects (records, dates and strings too)
        if isinstance(value, torch.Tensor | np.ndarray) and not (
            isinstance(value, np.ndarray) and value.dtype.hasobject
        ) and not (isinstance(value, torch.Tensor) and is_lazy(value)):
            facts = describe(value)
            self._fact_rows(facts)
            self._stats(name, value, facts)
        elif isinstance(value, torch.nn.Module):
            self._module_rows(name, value)
        else:
            item = self._group(self.tr("Value"), "value")
            # bounded: a program's own __repr__ may loop or be refused (never break the panel)
            text = self.workspace.text_of(value) if hasattr(self.workspace, "text_of") else (
                repr(value)[:500])
            self._row(item, self.tr("repr"), text, "")
        self.tree.expandAll()
        self.tree.resizeColumnToContents(0)

    def _group(self, title: str, key: str) -> QtWidgets.QTreeWidgetItem:
        item = QtWidgets.QTreeWidgetItem([title])
        item.setData(0, GROUP_ROLE, key)
        font = item.font(0)
        font.setBold(True)
        item.setFont(0, font)
        item.setFirstColumnSpanned(False)
        self.tree.addTopLevelItem(item)
        return item

    def _row(self, parent: QtWidgets.QTreeWidgetItem, label: str, value: str,
             tip: str, key: str = "") -> QtWidgets.QTreeWidgetItem:
        item = QtWidgets.QTreeWidgetItem([label, value])
        item.setData(0, QtCore.Qt.ItemDataRole.UserRole, key)
        if tip:
            item.setToolTip(0, tip)
            item.setToolTip(1, tip)
        parent.addChild(item)
        return item

    def _fact_rows(self, facts: TensorFacts) -> None:
        d = facts.to_dict()
        groups = GROUPS
        if facts.requires_grad or facts.grad_fn or facts.grad:  # autograd facts matter most
            groups = [GROUPS[0], GROUPS[2], GROUPS[1]]
        for title, rows in groups:
            group = self._group(tr(title), title)
            for key, label, tip in rows:
                if key in ("mapped_file", "mapped_offset", "mapped_mode") and d[key] is None:
                    continue
                if facts.kind == "tensor" and key in ("byte_order", "writeable"):
                    continue
                if facts.kind == "ndarray" and title == GROUPS[2][0]:  # no autograd for arrays
                    continue
                text = tr(MAP_MODES.get(d[key], d[key])) if key == "mapped_mode" else _fmt(key, d[key])
                size = facts.element_size
                if key == "stride" and size and any(b % size for b in facts.byte_stride):
                    # no whole number of elements (a record's field): the bytes, exactly
                    text = _fmt(key, [f"{b} B" for b in facts.byte_stride])
                elif key == "storage_offset" and size and facts.byte_offset % size:
                    text = f"{facts.byte_offset} B"
                self._row(group, tr(label), text, tr(tip), key)
            if group.childCount() == 0:
                self.tree.takeTopLevelItem(self.tree.indexOfTopLevelItem(group))

    def module_texts(self, s: ModuleSummary) -> dict[str, str]:
        """The shown text of each fact of a module summary, by key (see :data:`MODULE_ROWS`)."""
        trainable = f"{s.trainable:,}"
        if s.frozen:
            trainable = self.tr("{0} ({1} frozen)").format(trainable, f"{s.frozen:,}")
        mode = self.tr("training (train())") if s.training else self.tr("evaluation (eval())")
        if s.other_mode:
            # counts: English singular or plural chosen here (Chinese has one form for both)
            other = (self.tr("{0}; 1 submodule in the other mode") if s.other_mode == 1 else
                     self.tr("{0}; {1} submodules in the other mode"))
            mode = other.format(mode, s.other_mode)
        tensors = (self.tr("{0} in 1 tensor") if s.parameter_tensors == 1 else
                   self.tr("{0} in {1} tensors"))
        with_grad = (self.tr("{0} of 1 parameter has .grad") if s.parameter_tensors == 1 else
                     self.tr("{0} of {1} parameters have .grad"))
        elements = (self.tr("{0} (1 element)") if s.buffer_elements == 1 else
                    self.tr("{0} ({1} elements)"))
        out = {
            "parameters": tensors.format(f"{s.parameters:,}", s.parameter_tensors),
            "trainable": trainable,
            "with_grad": with_grad.format(s.with_grad, s.parameter_tensors),
            "buffers": elements.format(s.buffers, f"{s.buffer_elements:,}")
            if s.buffers else "0",
            "devices": ", ".join(sorted(s.devices)) or "—",
            "dtypes": ", ".join(sorted(s.dtypes)) or "—",
            "mode": mode,
            "submodules": f"{s.submodules:,}",
        }
        if s.uninitialized:
            out["uninitialized"] = f"{s.uninitialized:,}"
        return out

    def _module_rows(self, name: str, module: torch.nn.Module) -> None:
        """The module's summary, then its parameters and buffers by qualified name (at most
        :data:`MEMBER_ROWS` each; the Workspace panel lists them all)."""
        texts = self.module_texts(module_summary(module))
        group = self._group(self.tr("Module"), "module")
        for key, label, tip in MODULE_ROWS:
            if key in texts:
                self._row(group, tr(label), texts[key], tr(tip), key)
        for title, key, named in (
            (self.tr("Parameters"), "parameters", module.named_parameters()),
            (self.tr("Buffers"), "buffers", module.named_buffers()),
        ):
            rows: QtWidgets.QTreeWidgetItem | None = None
            for i, (pname, t) in enumerate(named):
                if rows is None:
                    rows = self._group(title, key)
                if i == MEMBER_ROWS:
                    rest = sum(1 for _ in named) + 1
                    self._row(rows, "…", self.tr("{0} more: expand {1} in the Workspace panel"
                                                  ).format(f"{rest:,}", name), "")
                    break
                if is_lazy(t):
                    text = self.tr("not initialized yet (lazy module)")
                else:
                    text = (f"{tuple(t.shape)} {str(t.dtype).removeprefix('torch.')} "
                            f"{t.device}")
                    if key == "parameters":
                        norm = grad_norm(t.grad)
                        grad = "—" if norm is None else f"norm {norm:.4g}"
                        text += f" requires_grad={t.requires_grad} grad {grad}"
                row = self._row(rows, _short(pname), text, f"{name}.{pname}\n" + self.tr(
                    "Double-click to inspect {0}.{1}").format(name, pname))
                row.setData(0, MEMBER_ROLE, f"{name}.{pname}")

    def _member_rows(self, qualified: str) -> None:
        """Where a module's member (``net.hidden.weight``) belongs: its module, how to reach
        it in code, the statement that made the module, the other name of a shared one."""
        root, _, rest = qualified.partition(".")
        module = self.workspace.get(root)
        kind = member_kind(module, rest) if isinstance(module, torch.nn.Module) else None
        if not isinstance(module, torch.nn.Module) or kind is None:
            return
        group = self._group(self.tr("How it was made"), "origin")
        parent_name, _, _leaf = rest.rpartition(".")
        parent = module.get_submodule(parent_name)
        owner = f"{root}.{parent_name}" if parent_name else root
        text = {"parameter": self.tr("a parameter of {0} ({1})"),
                "buffer": self.tr("a buffer of {0} ({1})"),
                "module": self.tr("a submodule of {0} ({1})")}[kind]
        self._row(group, self.tr("belongs to"), text.format(owner, type(parent).__name__),
                  self.tr("The module that holds it; the module's parameters(), state_dict() "
                          "and optimizer include it."), "member_of")
        self._row(group, self.tr("code"), access_code(root, module, rest),
                  self.tr("How to reach it in Python."), "access")
        value = self.workspace.get(qualified)
        first = first_names(module).get(id(value))
        if first is not None and first != rest:
            self._row(group, self.tr("shared with"), f"{root}.{first}",
                      self.tr("The same object is registered under this name too: a change to "
                              "one is a change to the other."), "shared_with")
        origin = self.workspace.origin(root)
        if origin is None:
            return
        if origin.kind == "set":
            self._row(group, self.tr("source"), self._source_text(origin), "", "source")
        elif origin.statement:
            self._row(group, self.tr("statement"), origin.statement.strip().splitlines()[0],
                      self.tr("The code that bound {0}, the module it belongs to.").format(root))

    def _source_text(self, origin: Any) -> str:
        if origin.file:
            return self.tr("opened from {0}").format(origin.file)
        return self.tr("handed in (explore() or the API)")

    def _origin_rows(self, name: str) -> None:
        origin = self.workspace.origin(name)
        if origin is None:
            return
        group = self._group(self.tr("How it was made"), "origin")
        if origin.kind == "set":
            self._row(group, self.tr("source"), self._source_text(origin), "", "source")
            return
        if origin.statement:
            self._row(group, self.tr("statement"), origin.statement.strip().splitlines()[0],
                      self.tr("The code that bound this name."))
        if origin.grad_mode:
            self._row(group, self.tr("grad mode"), origin.grad_mode,
                      self.tr("The autograd mode in force when it was made."))
        reason = (sharing_reason(name, origin.call, lang=i18n.current())
                  if origin.call else None)
        if reason:
            self._row(group, self.tr("memory"), reason.replace("`", ""), reason.replace("`", ""))

    # -- statistics ----------------------------------------------------------------------------

    def _stats(self, name: str, value: Any, facts: TensorFacts) -> None:
        words = isinstance(value, np.ndarray) and value.dtype.kind not in "biufc"
        if facts.device == "meta" or facts.numel == 0 or facts.layout != "strided" or words:
            # no statistics of records, dates or strings (their fields and integers have them)
            diags = diagnose(value, name=name, lang=i18n.current()) if (
                facts.numel or facts.device == "meta") else []
            self._show_results(name, (None, diags))
            return
        if facts.numel <= SYNC_STATS_LIMIT:
            s = stats(value)
            lang = i18n.current()
            self._show_results(name, (s, diagnose(value, name=name, value_stats=s, lang=lang)))
            return

        def work(progress: Any, cancel: Any) -> tuple[Stats, list[Diagnosis]]:
            s = stats(value, progress=progress, cancel=cancel)
            return s, diagnose(value, name=name, value_stats=s, lang=i18n.current())

        task = Task(work, parent=self)
        task.progress.connect(lambda f: self.progress.setValue(int(f * 1000)))
        task.finished.connect(lambda res, n=name: self._show_results(n, res))
        task.failed.connect(lambda msg: self._stats_failed(msg))
        self.progress.setValue(0)
        self.progress.show()
        self._task = task
        task.start()

    def _cancel_task(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
        self.progress.hide()

    @property
    def busy(self) -> bool:
        return self._task is not None

    def _stats_failed(self, message: str) -> None:
        self._task = None
        self.progress.hide()
        self.diagnoses.show_message(self.tr("Statistics failed: {0}").format(message))

    def _show_results(self, name: str, result: tuple[Stats | None, list[Diagnosis]]) -> None:
        if name != self.name:
            return
        self._task = None
        self.progress.hide()
        s, diags = result
        if s is not None:
            group = self._group(self.tr("Statistics") + (
                self.tr(" (of |z|)") if s.of == "magnitude" else ""), "statistics")
            d = s.to_dict()
            t = theme.current()
            for key, label, tip in STAT_ROWS:
                v = d[key]
                if key == "first_nonfinite" and v is None:
                    continue
                item = self._row(group, tr(label), _fmt(key, tuple(v) if isinstance(v, list)
                                                        else v), tr(tip), key)
                if key in ("nan", "posinf", "neginf") and v:
                    color = {"nan": t.nan, "posinf": t.posinf, "neginf": t.neginf}[key]
                    item.setForeground(1, QtWidgets.QApplication.palette().text())
                    item.setBackground(1, _brush(color))
            group.setExpanded(True)
        self.diagnoses.show_diagnoses(diags)
        keep, self._keep_view = self._keep_view, None
        if keep is not None:  # the language changed while these were computed
            self._restore_view(*keep)

    def shown_diagnoses(self) -> list[tuple[str, str]]:
        """(displayed text, tooltip) of every diagnosis shown (for tests)."""
        return self.diagnoses.shown()

    def shown_facts(self) -> dict[str, str]:
        """key -> displayed text of every fact row (for tests)."""
        out: dict[str, str] = {}
        for i in range(self.tree.topLevelItemCount()):
            g = self.tree.topLevelItem(i)
            if g is None:
                continue
            for j in range(g.childCount()):
                c = g.child(j)
                if c is None:
                    continue
                key = c.data(0, QtCore.Qt.ItemDataRole.UserRole)
                if key:
                    out[str(key)] = c.text(1)
        return out


class WrappingDelegate(QtWidgets.QStyledItemDelegate):
    """Rows as tall as their wrapped text at the column's current width (QTreeView itself
    asks its delegate for a row's height without saying how wide the column is)."""

    def __init__(self, view: QtWidgets.QTreeView) -> None:
        super().__init__(view)
        self.view = view

    def sizeHint(self, option: QtWidgets.QStyleOptionViewItem,
                 index: QtCore.QModelIndex | QtCore.QPersistentModelIndex) -> QtCore.QSize:
        hint = super().sizeHint(option, index)
        if index.column() == 0 or not self.view.wordWrap():
            return hint
        opt = QtWidgets.QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.rect = QtCore.QRect(0, 0, self.view.header().sectionSize(index.column()), 1 << 16)
        style = self.view.style()
        wrapped = style.sizeFromContents(QtWidgets.QStyle.ContentsType.CT_ItemViewItem, opt,
                                         QtCore.QSize(), self.view)
        return QtCore.QSize(hint.width(), max(hint.height(), wrapped.height()))


def _short(qualified: str, limit: int = 26) -> str:
    """A long qualified name with its middle parts left out, so the fact column stays narrow:
    ``decoder.layers.5.multihead_attn.out_proj.weight`` -> ``decoder.….out_proj.weight``."""
    if len(qualified) <= limit:
        return qualified
    out = qualified
    parts = qualified.split(".")
    if len(parts) > 2:
        first, *middle, last = parts
        tail = [last]
        for part in reversed(middle):
            if len(first) + len(".….") + len(".".join([part, *tail])) > limit:
                break
            tail.insert(0, part)
        if len(tail) <= len(middle):
            out = ".".join([first, "…", *tail])
    if len(out) > limit:  # a long part: the middle characters left out instead
        keep = limit - 1
        out = qualified[: keep // 2] + "…" + qualified[len(qualified) - (keep - keep // 2):]
    return out


def _brush(color: str) -> Any:
    c = QtGui.QColor(color)
    c.setAlpha(90)
    return QtGui.QBrush(c)

