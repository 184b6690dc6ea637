"""Autograd graph pane: the graph behind a tensor, backward and its accumulation, devices, and
the seed's checks.

The pane shows the graph of the selected value when it has a ``grad_fn``, else of the last value
bound that has one (:func:`graph_target`), as a layered DAG (leaves on top, the root at the
bottom, :mod:`.graph_view`). Everything it shows comes from the Qt-free core:

- :func:`~tensor_explorer.core.autograd.trace` for nodes, edges and saved tensors;
  :func:`~tensor_explorer.core.graph_layout.layout` for positions and
  :func:`~tensor_explorer.core.graph_layout.collapse` for big graphs: repeated blocks (the
  iterations of a loop, the layers of a stack) and chains of single-input ops become groups
  that expand on a click (a run of blocks into its blocks, a block into its ops);
- :func:`~tensor_explorer.core.autograd.backward` (backward, ×N, ``retain_graph``, ``gradient=``
  for non-scalar roots, ``retain_grad`` on a chosen intermediate) and
  :func:`~tensor_explorer.core.autograd.zero_grad` (``set_to_none`` on or off), kept in a
  :class:`~tensor_explorer.core.autograd.GradHistory` shown as a table and a plot;
- ``Origin.cut_off`` of workspace values: tensors made under ``no_grad`` / ``inference_mode`` or
  by ``detach`` are drawn apart, as constants, with a dashed cut edge from what they were
  computed from and the reason;
- :func:`~tensor_explorer.core.autograd.numerical_check` (finite differences in float64, by
  re-running the program with the leaves replaced) and, in a dialog, the seed's
  ``inspect_batch`` / ``run_one_step`` (:mod:`.training_dialog`).

Backward runs through the core (not as a program statement) because only the core records the
gradient on every edge; the pane then emits ``workspace.events.changed`` for each named leaf,
so every other panel (inspector, values, workspace badges) shows the new ``.grad``. Small graphs
run on the UI thread (well under 50 ms); big ones run trace + layout, backward, re-runs and
checks in a background :class:`~tensor_explorer.qt.workers.Task` with progress.

The device chooser re-runs the workspace's program (its history, statement by statement) in a
separate copy of the workspace on the chosen device and shows that copy's graph; the workspace
itself keeps its values. Values handed in with ``explore()`` or from files cannot be re-run, and
the pane says so.
"""

from __future__ import annotations

import ast
import contextlib
import html
import re
import threading
from collections.abc import Callable, Mapping
from typing import Any, cast

import numpy as np
import pyqtgraph as pg
import torch
from PySide6 import QtCore, QtWidgets
from PySide6.QtCore import QT_TRANSLATE_NOOP

from ..core import autograd as ag
from ..core.autograd import (
    BackwardError,
    BackwardRecord,
    GradHistory,
    Graph,
    numerical_check,
    trace,
    zero_grad,
)
from ..core.autograd import backward as tx_backward
from ..core.devices import devices
from ..core.graph_layout import CollapsedGraph, collapse
from ..core.runner import ProgramError
from ..core.workspace import Workspace
from . import i18n, theme
from .bridge import WorkspaceBridge
from .flow_layout import FlowLayout
from .graph_view import (
    Drawing,
    GraphColors,
    GraphView,
    NodeText,
    TextMetrics,
    compute_drawing,
)
from .workers import Task

SYNC_NODES = 400  # graphs up to this size are traced, laid out and backpropagated inline
COLLAPSE_ABOVE = 150  # graphs bigger than this show chains collapsed into groups
MAX_CONSTANTS = 12
NUMCHECK_MAX_ELEMENTS = 256  # the numerical check re-runs the program 2x per element
SKIP_ON_REPLAY = re.compile(r"\.backward\(|\.zero_grad\(|\.step\(\)|\.grad\s*=")

# cast: the PySide6 stub types QT_TRANSLATE_NOOP as returning object; it returns its message
CUT_REASONS = cast("dict[str, str]", {
    "no_grad": QtCore.QT_TRANSLATE_NOOP(
        "GraphPanel",
        "Made inside torch.no_grad(): autograd recorded nothing, so this value is a constant "
        "and gradient stops here."),
    "inference_mode": QtCore.QT_TRANSLATE_NOOP(
        "GraphPanel",
        "Made inside torch.inference_mode(): no graph and no version counter; this value is a "
        "constant and gradient stops here."),
    "detach": QtCore.QT_TRANSLATE_NOOP(
        "GraphPanel",
        "Made by .detach(): it shares memory with the value it came from but is cut off from "
        "the graph; gradient does not flow through it."),
})


def _tr(text: str) -> str:
    """Translate in the pane's context (thread-safe: used by workers building node texts)."""
    return QtCore.QCoreApplication.translate("GraphPanel", text)


def graph_target(ws: Any, selected: str | None) -> str | None:
    """The value the graph shows: the selection if it has a grad_fn, else the last one bound
    that has one."""

    def has_graph(name: str) -> bool:
        v = ws.get(name)
        return isinstance(v, torch.Tensor) and v.grad_fn is not None

    if selected is not None and selected in ws and has_graph(selected):
        return selected
    for name in reversed(ws.names()):
        if has_graph(name):
            return name
    return None


# ---------------------------------------------------------------------------------------------
# plain helpers (no widgets)


def ops_text(labels: Any) -> str:
    """``A → B → C`` for up to three op labels, else ``A → … → Z (n)``."""
    labels = list(labels)
    if len(labels) <= 3:
        return " → ".join(labels)
    return f"{labels[0]} → … → {labels[-1]} ({len(labels)})"


def shape_text(shape: Any) -> str:
    """``(3,)``, ``(2, 3)``, ``()``."""
    if shape is None:
        return "?"
    dims = [int(s) for s in shape]
    return "(" + ", ".join(map(str, dims)) + (",)" if len(dims) == 1 else ")")


def _num(v: float) -> str:
    return f"{v:.4g}"


def _as_numbers(t: torch.Tensor) -> np.ndarray | None:
    if t.device.type == "meta":
        return None
    t = t.detach()
    if t.is_complex():
        return t.to("cpu").resolve_conj().numpy()
    return t.to("cpu", torch.float64).numpy()


def short_values(t: torch.Tensor | None, limit: int = 4) -> str:
    """``None``, ``[2, 4, 6]`` for a few elements, else ``‖·‖ = 7.483``."""
    if t is None:
        return "None"
    a = _as_numbers(t)
    if a is None:
        return _tr("(meta: no values)")
    if a.ndim == 0:
        return _num(float(a))
    if a.size <= limit:
        return _nested(a)
    return f"‖·‖ = {_num(float(np.linalg.norm(a.reshape(-1))))}"


def _nested(a: np.ndarray) -> str:
    """``[[32], [48]]``: a small array written as nested lists."""
    if a.ndim == 0:
        return _num(float(a.real) if np.iscomplexobj(a) else float(a))
    return "[" + ", ".join(_nested(sub) for sub in a) + "]"


def full_values(t: torch.Tensor | None) -> str:
    """The values as text (summarised beyond a few hundred elements)."""
    if t is None:
        return "None"
    a = _as_numbers(t)
    if a is None:
        return _tr("(meta: no values)")
    return np.array2string(a, precision=5, threshold=200, edgeitems=4, suppress_small=False)


def _wide(t: torch.Tensor) -> torch.Tensor:
    """``t`` detached, in float64 (complex128 for complex: keep imaginary parts)."""
    return t.detach().to(torch.complex128 if t.is_complex() else torch.float64)


def norm_of(t: torch.Tensor | None) -> float | None:
    """L2 norm in float64 (None for None or meta tensors)."""
    if t is None or t.device.type == "meta":
        return None
    return float(torch.linalg.vector_norm(_wide(t)))


class GradientInputError(ValueError):
    """The gradient text could not be read (message in plain words).

    ``str(error)`` is the message in the language installed when it was raised; :meth:`text`
    says it in the language installed now (a language switch re-says it).
    """

    def __init__(self, message: str, *values: object) -> None:
        self.message = message  # English, translated in the GraphPanel context
        self.values = values
        super().__init__(self.text())

    def text(self) -> str:
        """The message in the current language."""
        return _tr(self.message).format(*self.values)


def parse_gradient(text: str, root: torch.Tensor) -> torch.Tensor | None:
    """The ``gradient=`` argument from the pane's text: empty -> None; ``ones`` / ``zeros`` ->
    like the root; a number -> the root's shape filled with it; a nested list -> that tensor
    (shape checked by backward)."""
    t = text.strip()
    if not t:
        return None
    low = t.lower().replace(" ", "")
    if low in ("ones", "ones_like", "torch.ones_like(root)", "torch.ones_like(y)"):
        return torch.ones_like(root)
    if low in ("zeros", "zeros_like", "torch.zeros_like(root)"):
        return torch.zeros_like(root)
    try:
        value = ast.literal_eval(t)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise GradientInputError(
            "Could not read the gradient '{0}': write ones, a number, or a list like "
            "[1.0, 1.0] with the root's shape.", t) from None
    if isinstance(value, bool) or not isinstance(value, (int, float, list, tuple)):
        raise GradientInputError(
            "The gradient must be numbers: ones, a number, or a list like [1.0, 1.0].")
    if isinstance(value, (int, float)):
        return torch.full_like(root, float(value))
    try:
        return torch.as_tensor(value, dtype=root.dtype, device=root.device)
    except (TypeError, ValueError, RuntimeError) as exc:
        raise GradientInputError(
            "The gradient list is not a rectangular list of numbers ({0}).", str(exc)
        ) from None


def name_map(ws: Any) -> dict[str, torch.Tensor]:
    """Workspace tensors by name, plus each module's parameters as ``model.weight``."""
    out: dict[str, torch.Tensor] = {}
    for name, value in ws.items():
        if isinstance(value, torch.Tensor):
            out[name] = value
    for name, value in ws.items():
        if isinstance(value, torch.nn.Module):
            for pname, p in value.named_parameters():
                out.setdefault(f"{name}.{pname}", p)
    return out


def _small(root: torch.Tensor, limit: int) -> bool:
    """Whether the graph behind ``root`` has at most ``limit`` nodes (stops counting early)."""
    fn = root.grad_fn
    if fn is None:
        return True
    seen = {id(fn)}
    stack = [fn]
    while stack:
        for child, _ in stack.pop().next_functions:
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                if len(seen) > limit:
                    return False
                stack.append(child)
    return True


def node_texts(
    shown: Graph | CollapsedGraph,
    graph: Graph,
    retained: Mapping[str, torch.Tensor | None],
) -> dict[int, NodeText]:
    """What each node of the shown graph says (leaf ``.grad`` read live from the leaf).

    Linear and cheap per node (translations looked up once, shape texts cached): big graphs
    have tens of thousands of nodes.
    """
    t_leaf = _tr("leaf {0} {1}")
    t_ops = _tr("{0} ops")
    t_repeat = _tr("{0} × {1} ops")
    t_block = _tr("block {0} of {1}")
    t_expand = _tr("click to expand")
    t_root_named = _tr("root: {0}")
    t_root = _tr("root")
    t_retained = _tr("grad (retained) = {0}")
    t_stale = _tr("saved tensor changed in place!")
    tip_leaf = _tr("A leaf: backward accumulates its gradient into .grad.")
    tip_group = _tr("A chain of operations with one input and one consumer each.")
    tip_repeat = _tr("The same block of operations {0} times in a row (a loop, or a stack of "
                     "layers): click to show the blocks.")
    tip_block = _tr("One block of a repeated run; block 1 was computed first. Click to show "
                    "its operations.")
    tip_op = _tr("Click for its saved tensors.")
    meta_cache: dict[tuple[Any, Any], tuple[str, str, str]] = {}
    groups = shown.groups if isinstance(shown, CollapsedGraph) else {}
    infos = shown.info if isinstance(shown, CollapsedGraph) else {}
    out: dict[int, NodeText] = {}
    for node in shown.nodes:
        mk = (node.shapes[0] if node.shapes else None, node.dtypes[0] if node.dtypes else None)
        cached = meta_cache.get(mk)
        if cached is None:
            shape = shape_text(mk[0]) if mk[0] is not None else ""
            dtype = (mk[1] or "").replace("torch.", "")
            cached = meta_cache[mk] = (f"{shape} {dtype}".strip(), shape, dtype)
        meta = cached[0]
        named = node.tensor is not None
        kind = node.kind
        saved = node.saved
        stale = bool(saved) and True in [sv.stale for sv in saved]
        if kind == "leaf":
            var = graph.leaf_tensor(node.id)
            grad = None if var is None else var.grad
            title = node.tensor or "AccumulateGrad"
            lines = [t_leaf.format(cached[1], cached[2]).strip(),
                     f"grad = {short_values(grad)}"]
            tip = tip_leaf
        elif kind == "group":
            members = groups.get(node.id, ())
            info = infos.get(node.id)
            if info is not None and info.kind == "repeat":
                title = t_repeat.format(info.repeats, len(info.block_ops))
                lines = [ops_text(info.block_ops), t_expand]
                tip = tip_repeat.format(info.repeats)
            elif info is not None and info.kind == "block":
                title = t_block.format(info.index, info.repeats)
                lines = [ops_text(info.block_ops), t_expand]
                tip = tip_block
            else:
                first = graph.nodes[members[0]].label if members else ""
                last = graph.nodes[members[-1]].label if members else ""
                title = t_ops.format(len(members))
                lines = [f"{first} … {last}", t_expand]
                tip = tip_group
        else:
            title = node.label
            lines = []
            if kind == "root":
                lines.append(t_root_named.format(node.tensor) if named else t_root)
            elif named:
                lines.append(f"= {node.tensor}")
            lines.append(meta)
            if node.tensor is not None and node.tensor in retained:
                lines.append(t_retained.format(short_values(retained[node.tensor])))
            if stale:
                lines.append(t_stale)
            tip = tip_op
        out[node.id] = NodeText(title, lines, kind, named, stale, tip)
    return out


def bundle_norms(
    shown: Graph | CollapsedGraph, record: BackwardRecord | None
) -> dict[tuple[int, int], float | None]:
    """For each shown edge that stands for several edges (a group of repeated blocks to a leaf
    they all read), the norm of the sum of their gradients: what the group sends along it.

    All the edges of a bundle end at the same node; when they feed different outputs of a
    multi-output op, the sums per output are combined as one vector (root of the sum of
    squares). ``None`` where no gradient flowed.
    """
    out: dict[tuple[int, int], float | None] = {}
    if record is None or not isinstance(shown, CollapsedGraph):
        return out
    grads = record.edge_grads
    info_of = shown.source.edge_info
    for key, originals in shown.bundles.items():
        sums: dict[int, torch.Tensor] = {}
        for e in originals:
            g = grads.get(e)
            if g is None or g.device.type == "meta":
                continue
            info = info_of.get(e)
            slot = info.input_nr if info is not None else 0
            g64 = _wide(g)
            prev = sums.get(slot)
            sums[slot] = g64 if prev is None else prev + g64
        if not sums:
            out[key] = None
        else:
            sq = sum(float(torch.linalg.vector_norm(t)) ** 2 for t in sums.values())
            out[key] = sq ** 0.5
    return out


def edge_texts(
    shown: Graph | CollapsedGraph,
    graph: Graph,
    norms: Mapping[tuple[int, int], float | None] | None,
    bundled: Mapping[tuple[int, int], float | None] | None = None,
) -> tuple[dict[tuple[int, int], str], dict[tuple[int, int], int]]:
    """Label (shape, and the gradient's norm after backward) and kind of each shown edge.

    ``norms`` are by original edge; an edge that stands for several (see
    :func:`bundle_norms`, which gives ``bundled``) says how many and the norm of their sum.
    """
    labels: dict[tuple[int, int], str] = {}
    kinds: dict[tuple[int, int], int] = {}
    edge_map = shown.edge_map if isinstance(shown, CollapsedGraph) else None
    bundles = shown.bundles if isinstance(shown, CollapsedGraph) else {}
    no_grad = "\n" + _tr("no grad")
    t_edges = _tr("{0} edges")
    cache: dict[tuple[Any, int], str] = {}
    info_of = graph.edge_info
    for key in shown.edges:
        bundle = bundles.get(key)
        norm: float | None
        if bundle is not None:
            info = info_of.get(bundle[0])
            shape = shape_text(info.shape) if info is not None and info.shape is not None else ""
            text = f"{shape} · {t_edges.format(len(bundle))}".strip(" ·")
            norm, sign = (None if bundled is None else bundled.get(key)), "‖∑∇‖"
        else:
            orig = edge_map[key] if edge_map is not None else key
            info = info_of.get(orig)
            ck = (None, 0) if info is None else (info.shape, len(info.slots))
            cached = cache.get(ck)
            if cached is None:
                cached = shape_text(ck[0]) if ck[0] is not None else ""
                if ck[1] > 1:
                    cached += f" ×{ck[1]}"
                cache[ck] = cached
            text = cached
            norm, sign = (None if norms is None else norms.get(orig)), "‖∇‖"
        if norms is not None:
            if norm is None:
                text += no_grad
            else:
                text += f"\n{sign} = {_num(norm)}"
                kinds[key] = 1
        labels[key] = text
    return labels, kinds


def cut_constants(
    ws: Any, graph: Graph | None, selected: str | None
) -> list[tuple[str, NodeText, list[int]]]:
    """Workspace tensors cut off from the graph (origin says no_grad / inference_mode /
    detach), each with the ids of the graph nodes named in the expression that made it."""
    by_name: dict[str, list[int]] = {}
    if graph is not None:
        for node in graph.nodes:
            for t in node.tensors:
                by_name.setdefault(t, []).append(node.id)
    out: list[tuple[str, NodeText, list[int]]] = []
    for name in ws.names():
        value = ws.get(name)
        if not isinstance(value, torch.Tensor) or value.grad_fn is not None:
            continue
        origin = ws.origin(name)
        reason = origin.cut_off if origin is not None else None
        if reason is None:
            continue
        expr = origin.call or origin.statement or ""
        refs = set(re.findall(r"[A-Za-z_]\w*", expr))
        sources = sorted({i for r in refs for i in by_name.get(r, ())})
        if not sources and name != selected:
            continue
        out.append((name, const_text(name, reason), sources))
        if len(out) >= MAX_CONSTANTS:
            break
    return out


def const_text(name: str, reason: str) -> NodeText:
    """What the box of a cut-off constant says (``reason``: a key of :data:`CUT_REASONS`)."""
    return NodeText(
        name,
        [_tr("constant · {0}").format(reason), _tr("gradient stops here")],
        "const",
        tooltip=_tr(CUT_REASONS[reason]),
    )


def replay_sources(ws: Workspace, *,
                   skip_backward: bool = False) -> list[tuple[str, tuple[str, ...], bool]]:
    """(source, names bound, restricted) of the workspace's history records that can be
    re-run; what ran restricted (code from a file nobody trusted) is replayed restricted."""
    out = []
    for r in ws.history:
        if r.kind not in ("run", "delete", "rename"):
            continue
        if skip_backward and SKIP_ON_REPLAY.search(r.source):
            continue
        out.append((r.source, r.bound, r.restricted))
    return out


def handed_in(ws: Workspace, names: list[str]) -> list[str]:
    """Those of ``names`` (or their module, for ``model.weight``) handed in, not made by a
    program here (origin kind "set": explore(), files, the API)."""
    out = []
    for n in names:
        base = n.split(".")[0]
        o = ws.origin(base)
        if o is not None and o.kind == "set" and base not in out:
            out.append(base)
    return out


# ---------------------------------------------------------------------------------------------
# the pane


def _together(*widgets: QtWidgets.QWidget) -> QtWidgets.QWidget:
    """Widgets kept side by side on one line of a wrapping row (a label and its field)."""
    if len(widgets) == 1:
        return widgets[0]
    box = QtWidgets.QWidget()
    row = QtWidgets.QHBoxLayout(box)
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(4)
    for w in widgets:
        row.addWidget(w)
    return box


class ItemsCombo(QtWidgets.QComboBox):
    """A combo box as wide as its longest item as drawn. (Qt's AdjustToContents measures the
    ink, and full-width brackets such as "（无）" are drawn wider than their ink.)"""

    def sizeHint(self) -> QtCore.QSize:
        fm = self.fontMetrics()
        widest = max((fm.horizontalAdvance(self.itemText(i)) for i in range(self.count())),
                     default=0)
        opt = QtWidgets.QStyleOptionComboBox()
        self.initStyleOption(opt)
        size = self.style().sizeFromContents(QtWidgets.QStyle.ContentsType.CT_ComboBox, opt,
                                             QtCore.QSize(widest + 2, fm.height()), self)
        return size.expandedTo(super().sizeHint())

    def minimumSizeHint(self) -> QtCore.QSize:
        return self.sizeHint()


class HintedLineEdit(QtWidgets.QLineEdit):
    """A line edit that asks for the room its placeholder (what to type) needs."""

    def sizeHint(self) -> QtCore.QSize:
        hint = super().sizeHint()
        need = self.fontMetrics().horizontalAdvance(self.placeholderText()) + 4 * self.fontMetrics(
        ).averageCharWidth()
        return QtCore.QSize(max(hint.width(), need), hint.height())


class GraphPanel(QtWidgets.QWidget):
    """The autograd graph of the selected (or last) tensor with a grad_fn, and its controls."""

    #: emitted after a graph is shown (drawn), and after each backward / zero_grad
    graph_shown = QtCore.Signal()
    backward_done = QtCore.Signal()

    def __init__(
        self,
        bridge: WorkspaceBridge,
        runner: Any | None = None,
        parent: QtWidgets.QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("GraphPanel")
        # torch imports ~0.3 s of modules on its first backward: do it now, off the UI thread,
        # so that the first Backward click on a small graph (run inline) does not pause
        threading.Thread(target=ag.warm_up, name="tx-warm-backward", daemon=True).start()
        self.bridge = bridge
        self.runner = runner
        self.history = GradHistory()
        self.graph: Graph | None = None
        self.shown: Graph | CollapsedGraph | None = None
        self.target: str | None = None
        self.root: torch.Tensor | None = None
        self.names: dict[str, torch.Tensor] = {}
        self.expanded: set[int] = set()
        self.record: BackwardRecord | None = None
        self.edge_norms: dict[tuple[int, int], float | None] | None = None
        # norms of the summed gradients of the shown graph's bundled edges (see bundle_norms)
        self.bundled_norms: dict[tuple[int, int], float | None] | None = None
        self.retained: dict[str, torch.Tensor | None] = {}
        self.constants: list[tuple[str, NodeText, list[int]]] = []
        self.replica: Workspace | None = None
        self.replica_device: str | None = None
        self._replica_history = 0
        self._history_target: str | None = None
        self._signature: Any = None
        self._task: Task | None = None
        self._busy: str | None = None
        # what the busy work, the title and the message say, made again in the current
        # language by retranslate (and by a restyle, for the message)
        self._busy_text: Callable[[], str] = _fixed("")
        self._title_text: Callable[[], str] = _fixed("")
        self._message: tuple[Callable[[], str], str] = (_fixed(""), "info")
        self._generation = 0
        self._selected: Any = None
        self._scale = theme.state().scale
        self.training_dialog: QtWidgets.QDialog | None = None
        self._build_ui()
        bridge.modified.connect(self.refresh)
        bridge.selected.connect(self._on_selected)  # a bound method: dropped with the panel
        theme.state().changed.connect(self._restyle)
        self._restyle()
        self.refresh()

    # -- UI ----------------------------------------------------------------------------------

    def _build_ui(self) -> None:
        self.title = QtWidgets.QLabel()
        self.title.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.title.setWordWrap(True)  # long in presentation mode and in narrow docks
        self.title.setMinimumWidth(1)
        self.device_combo = QtWidgets.QComboBox()
        self.device_combo.setSizeAdjustPolicy(
            QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.device_combo.activated.connect(self._device_chosen)
        # PySide6 stub: Qt properties as keyword arguments (text=) are missing from it
        self.zoom_out_btn = QtWidgets.QToolButton(text="−")  # type: ignore[call-arg]
        self.zoom_in_btn = QtWidgets.QToolButton(text="+")  # type: ignore[call-arg]
        self.fit_btn = QtWidgets.QToolButton()

        self.backward_btn = QtWidgets.QPushButton()
        self.times_spin = QtWidgets.QSpinBox()
        self.times_spin.setRange(1, 100)
        self.times_spin.setPrefix("× ")
        self.retain_graph_check = QtWidgets.QCheckBox("retain_graph")
        self.gradient_edit = HintedLineEdit()
        self.retain_combo = ItemsCombo()  # "(none)" / "（无）" never cut off
        self.zero_btn = QtWidgets.QPushButton("zero_grad")
        self.set_to_none_check = QtWidgets.QCheckBox("set_to_none")
        self.set_to_none_check.setChecked(True)
        self.check_btn = QtWidgets.QPushButton()
        self.training_btn = QtWidgets.QPushButton()
        self.progress = QtWidgets.QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setMaximumWidth(160)
        self.progress.hide()
        self.cancel_btn = QtWidgets.QToolButton()
        self.cancel_btn.hide()
        self._nothing_said = False
        self.message = QtWidgets.QLabel()
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(
            QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)

        self.view = GraphView()
        self.details = QtWidgets.QTextBrowser()
        self.details.setOpenLinks(False)
        self.details.setObjectName("GraphDetails")
        self.history_table = QtWidgets.QTableWidget(0, 0)
        self.history_table.verticalHeader().setVisible(False)
        self.history_table.setEditTriggers(
            QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.plot = pg.PlotWidget()
        self.plot.setMinimumHeight(80)
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.legend = self.plot.addLegend(offset=(5, 5))
        hist = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        hist.addWidget(self.history_table)
        hist.addWidget(self.plot)
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.tabBar().setElideMode(QtCore.Qt.TextElideMode.ElideNone)  # whole titles, and
        self.tabs.tabBar().setUsesScrollButtons(False)  # the pane is at least that wide
        self.tabs.addTab(self.details, "")  # titled by _set_texts
        self.tabs.addTab(hist, "")
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        split.addWidget(self.view)
        split.addWidget(self.tabs)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([680, 300])
        self.splitter = split

        row1 = QtWidgets.QHBoxLayout()
        row1.addWidget(self.title, 1)
        row1.addWidget(self.progress)
        row1.addWidget(self.cancel_btn)
        self.device_label = QtWidgets.QLabel()
        row1.addWidget(self.device_label)
        row1.addWidget(self.device_combo)
        for b in (self.zoom_out_btn, self.zoom_in_btn, self.fit_btn):
            row1.addWidget(b)
        # the controls wrap onto more lines when the panel is narrow or the text large
        # (presentation mode), each label with its field, instead of clipping
        self.gradient_label = QtWidgets.QLabel()
        controls = FlowLayout(spacing=8)
        for unit in ((self.backward_btn, self.times_spin), (self.retain_graph_check,),
                     (self.gradient_label, self.gradient_edit),
                     (QtWidgets.QLabel("retain_grad:"), self.retain_combo),
                     (self.zero_btn, self.set_to_none_check), (self.check_btn,),
                     (self.training_btn,)):
            controls.addWidget(_together(*unit))
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addLayout(row1)
        layout.addLayout(controls)
        layout.addWidget(self.message)
        layout.addWidget(split, 1)

        self.zoom_in_btn.clicked.connect(lambda: self.view.zoom(1.25))
        self.zoom_out_btn.clicked.connect(lambda: self.view.zoom(0.8))
        self.fit_btn.clicked.connect(lambda: self.view.fit(whole=True))
        self.backward_btn.clicked.connect(lambda: self.backward())
        self.times_spin.valueChanged.connect(self._times_changed)
        self.zero_btn.clicked.connect(lambda: self.zero_grad())
        self.check_btn.clicked.connect(lambda: self.numerical_check())
        self.training_btn.clicked.connect(self.open_training_dialog)
        self.cancel_btn.clicked.connect(self.cancel_task)
        self.view.node_clicked.connect(self.node_clicked)
        self.view.edge_clicked.connect(self.edge_clicked)
        self.view.background_clicked.connect(lambda: self._select(None))
        self._fill_devices()
        self._set_texts()

    def _set_texts(self) -> None:
        """The pane's fixed texts (labels, tool tips, tab titles, axis labels) in the current
        language: from :meth:`_build_ui`, and again from :meth:`retranslate`."""
        self.device_label.setText(self.tr("Device:"))
        self.device_combo.setToolTip(self.tr(
            "Re-run the program that built this graph on another device"))
        self.fit_btn.setText(self.tr("Fit"))
        self.zoom_out_btn.setToolTip(self.tr("Zoom out (-)"))
        self.zoom_in_btn.setToolTip(self.tr("Zoom in (+)"))
        self.fit_btn.setToolTip(self.tr("Show the whole graph (0)"))
        self._times_changed(self.times_spin.value())  # "Backward" or "Backward ×N"
        self.backward_btn.setToolTip(self.tr(
            "Run root.backward(...) and record the gradient along every edge"))
        self.times_spin.setToolTip(self.tr("How many backward calls to run in a row"))
        self.retain_graph_check.setToolTip(self.tr(
            "Keep the saved tensors so backward can run on this graph again"))
        self.gradient_label.setText(self.tr("gradient:"))
        self.gradient_edit.setToolTip(self.tr(
            "gradient= for a root with more than one element: ones, a number, or a list "
            "like [1.0, 1.0]"))
        self.retain_combo.setToolTip(self.tr(
            "Call retain_grad() on this intermediate so its .grad is kept"))
        self.zero_btn.setToolTip(self.tr("Clear the leaves' .grad (like optimizer.zero_grad)"))
        self.set_to_none_check.setToolTip(self.tr(
            "On: .grad becomes None. Off: .grad is filled with zeros."))
        self.check_btn.setText(self.tr("Numerical check"))
        self.check_btn.setToolTip(self.tr(
            "Compare autograd's gradients with finite differences in float64 (small graphs)"))
        self.training_btn.setText(self.tr("Training step…"))
        self.training_btn.setToolTip(self.tr(
            "The seed's inspect_batch and run_one_step on features, labels and a model"))
        self.cancel_btn.setText(self.tr("Cancel"))
        self.tabs.setTabText(0, self.tr("Details"))
        self.tabs.setTabText(1, self.tr("Accumulation"))
        self.plot.setLabel("bottom", self.tr("call"))
        self.plot.setLabel("left", self.tr("‖grad‖"))

    def retranslate(self) -> None:
        """Say everything in the language just installed (``i18n.install``), in place: the
        graph, zoom, expanded groups, selection, backward record, gradient history, retained
        grads, device re-run, check result, the controls' values and the message are kept.
        Nothing is recomputed but texts (no backward, no re-run, no workspace event)."""
        self._set_texts()
        if self._busy is not None:
            self._busy = self._busy_text()
            self.progress.setFormat(self._busy)
        self.title.setText(self._title_text())
        self._update_controls()  # the gradient placeholder, "(none)" among retain_grad's
        self._retranslate_constants()
        if self.graph is not None:
            self._update_labels()  # node and edge texts, history, the selection's details
        else:
            self._update_history_view()
        if self._selected is None:
            self._show_legend()
        self._say_again()
        dialog = self.training_dialog
        if dialog is not None:
            from .training_dialog import TrainingDialog

            if isinstance(dialog, TrainingDialog):
                dialog.retranslate()

    def _retranslate_constants(self) -> None:
        """The cut-off constants' boxes in the current language (same constants)."""
        ws = self.workspace()
        out = []
        for name, text, sources in self.constants:
            origin = ws.origin(name)
            reason = origin.cut_off if origin is not None else None
            known = reason is not None and reason in CUT_REASONS
            out.append((name, const_text(name, reason) if known and reason else text, sources))
        self.constants = out

    def _times_changed(self, n: int) -> None:
        self.backward_btn.setText(self.tr("Backward") if n == 1
                                  else self.tr("Backward ×{0}").format(n))

    def _fill_devices(self) -> None:
        self.device_combo.clear()
        for dev in devices():
            self.device_combo.addItem(dev, dev)

    def device_names(self) -> list[str]:
        """The devices the chooser lists."""
        return [self.device_combo.itemData(i) for i in range(self.device_combo.count())]

    def _restyle(self) -> None:
        st = theme.state()
        scale_changed = st.scale != self._scale
        self._scale = st.scale
        self.view.restyle()
        self.plot.setBackground(st.theme.base)
        self._say_again()
        if scale_changed and self.graph is not None:
            self._signature = None
            self.refresh()
        elif self.graph is not None:
            self._update_history_view()
        if self._selected is None:
            self._show_legend()

    # -- messages ----------------------------------------------------------------------------

    def _say(self, text: str | Callable[[], str], kind: str = "info") -> None:
        """Show a plain-words message above the graph (kind: info, ok, error, warning).

        ``text``: the message, or a function that makes it in the current language, so that
        a language switch can say it again (:meth:`retranslate`); a plain string (torch's or
        the core's words) is shown as it is.
        """
        make = _fixed(text) if isinstance(text, str) else text
        self._message = (make, kind)
        self._say_again()

    def _say_again(self) -> None:
        """Show the message again: in the current look and language."""
        make, kind = self._message
        text = make()
        t = theme.current()
        colour = {"error": t.error, "ok": t.ok, "warning": t.warning}.get(kind, t.muted)
        self.message.setStyleSheet(f"color: {colour};")
        self.message.setText(text)
        self.message.setVisible(bool(text))

    def message_text(self) -> str:
        """The message shown above the graph (for tests)."""
        return self.message.text()

    # -- workspace -> graph ------------------------------------------------------------------

    def workspace(self) -> Any:
        """The workspace whose graph is shown: the device re-run copy, else the real one."""
        return self.replica if self.replica is not None else self.bridge.workspace

    @QtCore.Slot()
    def _on_selected(self, *_: object) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Follow the workspace: rebuild when the graph changed, else update the labels."""
        main = self.bridge.workspace
        if self.replica is not None and len(main.history) != self._replica_history:
            self._drop_replica()
            self._say(lambda: self.tr("The workspace changed, so the pane shows it again (the "
                                      "device re-run was dropped)."))
        ws = self.workspace()
        selected = main.selected if (main.selected in ws) else None
        name = graph_target(ws, selected)
        if name is None:
            self._show_nothing(ws, selected)
            return
        root = ws[name]
        constants = cut_constants(ws, None, selected)  # names only, for the signature
        sig = (name, id(root), id(root.grad_fn), tuple(ws.names()),
               tuple(c[0] for c in constants), frozenset(self.expanded), self._scale)
        if sig == self._signature and self.graph is not None:
            self._update_labels()
            return
        self._signature = sig
        if name != self._history_target:
            self.history.clear()
            self._history_target = name
            self.record = None
            self.edge_norms = None
            self.bundled_norms = None
            self.retained = {}
            self.expanded.clear()
            self._selected = None
        elif self.root is not root:
            self.record = None  # a new forward pass: edge gradients belong to the old one
            self.edge_norms = None
            self.bundled_norms = None
        self.target = name
        self.root = root
        self.names = name_map(ws)
        if self._nothing_said:  # "no graph yet" no longer holds
            self._say("")
            self._nothing_said = False
        self._build(selected)

    def _show_nothing(self, ws: Any, selected: str | None) -> None:
        self.cancel_task()
        self.graph = self.shown = self.root = None
        self.target = None
        self._signature = None
        self.view.clear()
        value = ws.get(selected) if selected is not None else None
        # the reason in every language: the message must not keep the tensor alive
        reasons = ({lang: ag.no_graph_reason(value, lang) for lang in i18n.LANGUAGES}
                   if isinstance(value, torch.Tensor) else {})
        self._set_title(lambda: self.tr("No graph"))
        self._say(lambda: reasons.get(i18n.current()) or self.tr(
            "No value has a grad_fn yet: compute something from a tensor with "
            "requires_grad=True."))
        self._nothing_said = True
        self._update_controls()
        self._update_history_view()

    def _build(self, selected: str | None) -> None:
        """Trace, collapse, lay out and draw (inline for small graphs, else in a Task)."""
        self._generation += 1
        gen = self._generation
        root, names, ws = self.root, self.names, self.workspace()
        assert root is not None
        metrics = self.view.style_.metrics
        expanded = frozenset(self.expanded)
        retained = dict(self.retained)
        norms = self.edge_norms
        record = self.record if norms is not None else None
        old_graph = self.graph if self.graph is not None and self.record is not None else None

        def work(progress: Callable[[float], None], cancel: Callable[[], bool]) -> Any:
            if old_graph is not None and old_graph.function(0) is root.grad_fn:
                graph = old_graph
            else:
                graph = trace(root, names)
            progress(0.3)
            shown: Graph | CollapsedGraph = graph
            if len(graph) > COLLAPSE_ABOVE:
                shown = collapse(graph, expanded=expanded)
            progress(0.4)
            constants = cut_constants(ws, graph, selected)
            bundled = (bundle_norms(shown, record)
                       if record is not None and record.graph is graph else None)
            drawing = _drawing(shown, graph, retained, norms, constants, metrics, cancel,
                               bundled)
            progress(1.0)
            return graph, shown, constants, drawing, bundled

        if _small(root, SYNC_NODES):
            try:
                result = work(lambda _f: None, lambda: False)
            except BackwardError as exc:
                error = exc  # ``exc`` itself is unbound after the except clause
                self._say(lambda: error.explanation_in(i18n.current()), "error")
                return
            self._install(gen, result)
        else:
            lang = i18n.current()  # the worker writes the node texts in this language
            self._run_task(lambda: self.tr("Laying out the graph…"), work,
                           lambda res: self._install(gen, res, lang))

    def _install(self, gen: int, result: Any, lang: str | None = None) -> None:
        """Show a traced and drawn graph (``lang``: the language its texts were written in,
        when that was on a worker while the language could change)."""
        if gen != self._generation:
            return
        graph, shown, constants, drawing, bundled = result
        same = self.graph is graph
        self.graph, self.shown, self.constants = graph, shown, constants
        self.bundled_norms = bundled
        if not same:
            self._selected = None
        self.view.select(self._selected_node())
        self.view.show_drawing(drawing, keep_view=same)
        if lang is not None and lang != i18n.current():  # switched while it was laid out
            self._retranslate_constants()
            self._update_labels()
        self._update_title()
        self._update_controls()
        self._update_history_view()
        if self._selected is None:
            self._show_legend()
        else:
            self._show_selected()
        self.graph_shown.emit()

    def _set_title(self, make: Callable[[], str]) -> None:
        """Show the title ``make()`` makes, and keep ``make`` for a language switch."""
        self._title_text = make
        self.title.setText(make())

    def _update_title(self) -> None:
        g, s = self.graph, self.shown
        if g is None or s is None:
            return
        target, device = self.target, self.replica_device
        rerun = self.replica is not None
        self._set_title(lambda: self._title_of(g, s, target, device if rerun else None))

    def _title_of(self, g: Graph, s: Graph | CollapsedGraph, target: str | None,
                  device: str | None) -> str:
        """The title for graph ``g`` shown as ``s`` (``device``: of a re-run copy)."""
        text = self.tr("Graph of <b>{0}</b>: {1} nodes, {2} edges").format(
            html.escape(target or ""), len(g.nodes), len(g.edges))
        if isinstance(s, CollapsedGraph) and s.groups:
            repeats = sum(1 for i in s.info.values() if i.kind != "chain")
            chains = len(s.groups) - repeats
            if repeats and chains:
                text += " " + self.tr("(collapsed: repeated blocks in {0} group(s), {1} "
                                      "chain(s); click a group to expand)").format(
                    repeats, chains)
            elif repeats:
                text += " " + self.tr("(repeated blocks collapsed into {0} group(s): click a "
                                      "group to expand)").format(repeats)
            else:
                text += " " + self.tr("({0} chains collapsed: click a group to expand)").format(
                    len(s.groups))
        if device is not None:
            text += " · " + self.tr("re-run on {0}").format(device)
        return text

    def _update_controls(self) -> None:
        root = self.root
        has = self.graph is not None and root is not None
        busy = self._busy is not None
        for w in (self.backward_btn, self.times_spin, self.retain_graph_check,
                  self.gradient_edit, self.retain_combo, self.zero_btn, self.check_btn):
            w.setEnabled(has and not busy)
        self.device_combo.setEnabled(has and not busy)
        if not has:
            self.gradient_edit.setPlaceholderText("")
        else:
            assert root is not None
            if root.numel() == 1:
                self.gradient_edit.setPlaceholderText(
                    self.tr("not needed: the root is a single number"))
            else:
                self.gradient_edit.setPlaceholderText(
                    self.tr("needed: root has shape {0}; e.g. ones or [1.0, ...]").format(
                        shape_text(root.shape)))
            self.gradient_edit.updateGeometry()  # room for what the placeholder now says
            dev = str(root.device)
            i = self.device_combo.findData(dev)
            if i < 0 and dev != "meta":
                self.device_combo.addItem(dev, dev)
                i = self.device_combo.findData(dev)
            if i >= 0:
                self.device_combo.setCurrentIndex(i)
        # retain_grad choices: named intermediates of the graph
        current = self.retain_combo.currentData()
        self.retain_combo.blockSignals(True)
        self.retain_combo.clear()
        self.retain_combo.addItem(self.tr("(none)"), None)
        if self.graph is not None:
            for node in self.graph.nodes:
                if node.kind != "leaf" and node.tensor is not None:
                    self.retain_combo.addItem(node.tensor, node.tensor)
        i = self.retain_combo.findData(current)
        self.retain_combo.setCurrentIndex(max(i, 0))
        self.retain_combo.blockSignals(False)
        self.retain_combo.updateGeometry()  # as wide as its items now are

    def _update_labels(self) -> None:
        """Re-read leaf .grad and edge norms into the drawing (same geometry for big graphs,
        a fresh layout for small ones, whose boxes may need to grow)."""
        graph, shown = self.graph, self.shown
        if graph is None or shown is None:
            return
        if len(shown.nodes) <= SYNC_NODES:
            drawing = _drawing(shown, graph, self.retained, self.edge_norms, self.constants,
                               self.view.style_.metrics, None, self.bundled_norms)
            self.view.show_drawing(drawing, keep_view=True)
            self.view.select(self._selected_node())
        else:
            texts = node_texts(shown, graph, self.retained)
            labels, kinds = edge_texts(shown, graph, self.edge_norms, self.bundled_norms)
            d = self.view.drawing
            if d is not None:
                lab = [labels.get(k, d.edge_labels[i]) if not _is_cut(k) else ""
                       for i, k in enumerate(d.edge_keys)]
                kd = np.asarray([2 if _is_cut(k) else kinds.get(k, 0) for k in d.edge_keys],
                                dtype=np.int64)
                self.view.update_texts(texts, lab, kd)
        self._update_history_view()
        self._show_selected()

    # -- backward ----------------------------------------------------------------------------

    def _can_change(self) -> bool:
        if self._busy is not None:
            busy = self._busy_text
            self._say(lambda: self.tr("Wait: {0}").format(busy()), "warning")
            return False
        if self.replica is None and self.bridge.workspace.running:
            self._say(lambda: self.tr("A program is running in the workspace; wait for it to "
                                      "finish (or stop it) first."), "warning")
            return False
        if self.graph is None or self.root is None:
            self._say(lambda: self.tr("There is no graph to work on."), "warning")
            return False
        return True

    def backward(self, times: int | None = None) -> None:
        """Run backward ``times`` times (default: the spin box) with the pane's settings."""
        if not self._can_change():
            return
        root, graph, names, shown = self.root, self.graph, self.names, self.shown
        assert root is not None and graph is not None
        n = times if times is not None else self.times_spin.value()
        try:
            gradient = parse_gradient(self.gradient_edit.text(), root)
        except GradientInputError as exc:
            self._say(exc.text, "error")
            return
        retain_graph = self.retain_graph_check.isChecked()
        chosen = self.retain_combo.currentData()
        retain = [chosen] if chosen else []

        def work(progress: Callable[[float], None], cancel: Callable[[], bool]) -> Any:
            records: list[BackwardRecord] = []
            error: BackwardError | None = None
            for i in range(n):
                if cancel():
                    break
                try:
                    records.append(tx_backward(root, gradient, retain_graph, names,
                                               retain=retain, graph=graph))
                except BackwardError as exc:
                    error = exc
                    break
                progress((i + 1) / (n + 1))
            norms = bundled = None
            if records:
                norms = {k: norm_of(g) for k, g in records[-1].edge_grads.items()}
                bundled = bundle_norms(shown, records[-1]) if shown is not None else None
            return records, norms, bundled, error

        if len(graph) <= SYNC_NODES:
            self._backward_done(work(lambda _f: None, lambda: False))
        else:
            self._run_task(lambda: self.tr("Running backward…"), work, self._backward_done)

    def _backward_done(self, result: Any) -> None:
        records, norms, bundled, error = result
        for rec in records:
            self.history.add(rec)
        if records:
            last = records[-1]
            self.record = last
            self.edge_norms = norms
            self.bundled_norms = bundled
            self.retained.update(last.retained)
        changed = sorted({n for rec in records for n in rec.grads})
        if error is not None:
            ran, err = len(records), error

            def failed() -> str:
                done = self.tr("{0} backward call(s) ran, then: ").format(ran) if ran else ""
                return done + err.explanation_in(i18n.current())

            self._say(failed, "error")
            self.message.setToolTip(error.torch_message or "")
        elif records:
            count, step = len(records), records[-1].step
            # the values as text now (the message must not keep the gradients alive); only
            # a meta tensor's words depend on the language
            values: list[tuple[str, str | None]] = []
            for n in changed[:4]:
                g = records[-1].grads[n]
                values.append((n, None if g is not None and g.device.type == "meta"
                               else short_values(g)))

            def said() -> str:
                shown = ", ".join(f"{n}.grad = {_tr('(meta: no values)') if v is None else v}"
                                  for n, v in values)
                return self.tr("backward ×{0} done (call {1} since .grad was None). {2}").format(
                    count, step, shown)

            self._say(said, "ok")
            self.message.setToolTip("")
        self._emit_changed(changed)
        self._update_labels()
        self.backward_done.emit()

    def _emit_changed(self, names: list[str]) -> None:
        """Tell the workspace's other panels that these leaves' .grad changed."""
        if self.replica is not None:
            return
        ws = self.bridge.workspace
        for n in names:
            if n in ws:
                ws.events.changed.emit(n)
            elif "." in n and n.split(".")[0] in ws:
                ws.events.changed.emit(n.split(".")[0])

    def zero_grad(self, set_to_none: bool | None = None) -> None:
        """Clear the leaves' gradients: None (set_to_none) or zeros."""
        if not self._can_change():
            return
        graph = self.graph
        assert graph is not None
        stn = self.set_to_none_check.isChecked() if set_to_none is None else set_to_none
        try:
            rec = zero_grad(graph, set_to_none=stn, names=self.names)
        except ValueError as exc:
            self._say(str(exc), "error")
            return
        self.history.add(rec)
        if stn:
            self._say(lambda: self.tr("zero_grad(set_to_none=True): every leaf's .grad is None "
                                      "now; the next backward starts counting again at call "
                                      "1."), "ok")
        else:
            self._say(lambda: self.tr("zero_grad(set_to_none=False): each .grad is a tensor of "
                                      "zeros (a leaf that had no gradient stays None)."), "ok")
        self._emit_changed(sorted(rec.grads))
        self._update_labels()
        self.backward_done.emit()

    # -- history view ------------------------------------------------------------------------

    def _update_history_view(self) -> None:
        names = self.history.names()
        entries = self.history.entries
        norms = {n: [norm_of(e.grads.get(n)) for e in entries] for n in names}
        cols = [self.tr("call"), self.tr("event"), self.tr("step"),
                *[f"‖{n}.grad‖" for n in names]]
        tbl = self.history_table
        tbl.setColumnCount(len(cols))
        tbl.setHorizontalHeaderLabels(cols)
        tbl.setRowCount(len(entries))
        for r, entry in enumerate(entries):
            event: str = entry.event
            if event == "zero_grad":
                event = f"zero_grad({'None' if entry.set_to_none else 'zeros'})"
            values = [str(r + 1), event, str(entry.step)]
            for n in names:
                g, norm = entry.grads.get(n), norms[n][r]
                values.append("None" if g is None else "?" if norm is None else _num(norm))
            for c, cell in enumerate(values):
                tbl.setItem(r, c, QtWidgets.QTableWidgetItem(cell))
        tbl.resizeColumnsToContents()
        self.plot.clear()
        if self.legend is not None:
            self.legend.clear()
        colours = theme.current().series
        self.plot.getAxis("bottom").setTickSpacing(max(1, -(-len(entries) // 8)), 1)
        x = np.arange(1, len(entries) + 1, dtype=float)
        for i, n in enumerate(names):
            y = np.array([np.nan if v is None else v for v in norms[n]], float)
            self.plot.plot(x, y, pen=pg.mkPen(colours[i % len(colours)], width=2),
                           symbol="o", symbolSize=6, symbolBrush=colours[i % len(colours)],
                           connect="finite", name=f"{n}.grad")

    def history_rows(self) -> list[list[str]]:
        """The accumulation table's cells (for tests)."""
        tbl = self.history_table
        return [[item.text() if (item := tbl.item(r, c)) is not None else ""
                 for c in range(tbl.columnCount())]
                for r in range(tbl.rowCount())]

    # -- clicks and details ------------------------------------------------------------------

    def node_clicked(self, key: Any) -> None:
        """A click on a node: a group expands; anything else shows its details."""
        shown = self.shown
        if isinstance(key, int) and isinstance(shown, CollapsedGraph) and key in shown.groups:
            self.expanded.add(key)
            info = shown.info.get(key)
            if info is not None and info.kind == "repeat":
                repeats, ops = info.repeats, len(info.block_ops)
                self._say(lambda: self.tr(
                    "Expanded {0} repeated blocks of {1} operations each.").format(repeats, ops))
            elif info is not None and info.kind == "block":
                index, repeats, ops = info.index, info.repeats, len(info.members)
                self._say(lambda: self.tr("Expanded block {0} of {1} ({2} operations).").format(
                    index, repeats, ops))
            else:
                ops = len(shown.groups[key])
                self._say(lambda: self.tr("Expanded a chain of {0} operations.").format(ops))
            self.refresh()
            return
        self._select(("node", key))

    def edge_clicked(self, key: Any) -> None:
        """A click on an edge: its gradient's values (after backward)."""
        self._select(("edge", key))

    def _select(self, what: Any) -> None:
        self._selected = what
        self.view.select(what[1] if what is not None and what[0] == "node" else None)
        if what is None:
            self._show_legend()
        else:
            self._show_selected()
            self.tabs.setCurrentIndex(0)

    def _selected_node(self) -> Any:
        what = self._selected
        return what[1] if what is not None and what[0] == "node" else None

    def _show_selected(self) -> None:
        what = self._selected
        if what is None:
            return
        kind, key = what
        text = self._node_details(key) if kind == "node" else self._edge_details(key)
        if text is None:
            self._selected = None
            self._show_legend()
        else:
            self.details.setHtml(text)

    def details_text(self) -> str:
        """The details pane as plain text (for tests)."""
        return self.details.toPlainText()

    def _show_legend(self) -> None:
        c = GraphColors.from_theme(theme.current())
        rows = [
            (c.border["root"], self.tr("root: where backward starts")),
            (c.border["op"], self.tr("operation (its backward function)")),
            (c.named, self.tr("named intermediate (a workspace value)")),
            (c.border["leaf"], self.tr("leaf: .grad accumulates here")),
            (c.border["group"], self.tr("group: repeated blocks or a chain of operations "
                                        "(click to expand)")),
            (c.cut, self.tr("constant cut off from the graph (no_grad, inference_mode, "
                            "detach)")),
        ]
        items = "".join(
            f"<tr><td style='background:{col}'>&nbsp;&nbsp;&nbsp;</td>"
            f"<td>&nbsp;{html.escape(t)}</td></tr>" for col, t in rows)
        body = self.tr("Click a node for its saved tensors and .grad, or an edge for the "
                       "gradient that flowed along it. Data flows down the arrows; backward "
                       "sends gradients back up.")
        self.details.setHtml(f"<p>{html.escape(body)}</p><table>{items}</table>")

    def _node_details(self, key: Any) -> str | None:
        graph, shown = self.graph, self.shown
        if graph is None or shown is None:
            return None
        esc = html.escape
        if isinstance(key, str) and key.startswith("const:"):
            name = key[len("const:"):]
            ws = self.workspace()
            origin = ws.origin(name)
            value = ws.get(name)
            if origin is None or origin.cut_off is None or not isinstance(value, torch.Tensor):
                return None
            return (f"<h3>{esc(name)}</h3><p><b>{esc(self.tr('Cut off from the graph'))}"
                    f"</b> ({esc(origin.cut_off)})</p><p>{esc(_tr(CUT_REASONS[origin.cut_off]))}"
                    f"</p><p><code>{esc(origin.statement or '')}</code></p>"
                    f"<p>requires_grad = {value.requires_grad}, grad_fn = None, "
                    f"{esc(shape_text(value.shape))} {esc(str(value.dtype))}</p>")
        if isinstance(key, int) and isinstance(shown, CollapsedGraph) and key in shown.groups:
            return self._group_details(shown, key)
        if not isinstance(key, int) or not 0 <= key < len(graph.nodes):
            return None
        node = graph.nodes[key]
        parts = [f"<h3>{esc(node.label)}</h3>",
                 f"<p>{esc(self.tr('kind'))}: <b>{esc(node.kind)}</b>"]
        if node.tensors:
            parts.append(f" · {esc(self.tr('names'))}: <b>{esc(', '.join(node.tensors))}</b>")
        parts.append("</p>")
        if node.shapes:
            meta = ", ".join(f"{shape_text(s)} {d}" for s, d in
                             zip(node.shapes, node.dtypes, strict=False))
            parts.append(f"<p>{esc(self.tr('gradient it receives'))}: {esc(meta)} "
                         f"{esc(self.tr('on'))} {esc(node.device or '?')}</p>")
        if node.kind == "leaf":
            var = graph.leaf_tensor(key)
            grad = None if var is None else var.grad
            parts.append(f"<p><b>.grad</b> = <pre>{esc(full_values(grad))}</pre></p>")
            if grad is None:
                parts.append(_p(self.tr(".grad is None: no backward has reached this leaf "
                                        "since it was made or last set to None.")))
            else:
                step = ag.step_count(var) if var is not None else 0
                parts.append(f"<p>{esc(self.tr('backward calls accumulated: {0}').format(step))}"
                             "</p>")
            return "".join(parts)
        saved = self._saved(key)
        if saved:
            rows = []
            for s in saved:
                state = self.tr("ok")
                if s.stale:
                    state = self.tr("STALE: changed in place")
                elif s.freed:
                    state = self.tr("freed by backward")
                rows.append(f"<tr><td>{esc(s.name)}</td><td>{esc(shape_text(s.shape))}</td>"
                            f"<td>{esc((s.dtype or '?').replace('torch.', ''))}</td>"
                            f"<td>{esc(state)}</td></tr>")
            head = "".join(f"<th align='left'>{esc(h)}</th>" for h in (
                self.tr("saved tensor"), self.tr("shape"), self.tr("dtype"), self.tr("state")))
            parts.append(f"<p><b>{esc(self.tr('Saved for backward'))}</b></p>"
                         f"<table cellspacing='4'><tr>{head}</tr>{''.join(rows)}</table>")
            for s in saved:
                if s.message:
                    parts.append(f"<p>{esc(s.message)}</p>")
        else:
            parts.append(f"<p>{esc(self.tr('Saved nothing for backward.'))}</p>")
        if node.tensor is not None and node.tensor in self.retained:
            parts.append(f"<p><b>{esc(node.tensor)}.grad</b> (retain_grad) = <pre>"
                         f"{esc(full_values(self.retained[node.tensor]))}</pre></p>")
        return "".join(parts)

    def _group_details(self, shown: CollapsedGraph, key: int) -> str:
        """What a group stands for: its operations, and for repeated blocks what repeats."""
        esc = html.escape
        graph = shown.source
        members = shown.groups[key]
        info = shown.info.get(key)
        if info is None or info.kind == "chain":
            labels = "".join(f"<li>{esc(graph.nodes[m].label)}</li>" for m in members[:30])
            more = f"<li>… {len(members) - 30}</li>" if len(members) > 30 else ""
            return (f"<h3>{esc(self.tr('Group of {0} operations').format(len(members)))}</h3>"
                    f"<p>{esc(self.tr('Click it in the graph to expand it.'))}</p>"
                    f"<ol>{labels}{more}</ol>")
        ops = info.block_ops
        items = "".join(f"<li>{esc(op)}</li>" for op in ops[:30])
        more = f"<li>… {len(ops) - 30}</li>" if len(ops) > 30 else ""
        inside = set(members)
        leaves = sorted({graph.nodes[d].tensor or graph.nodes[d].label
                         for s, d in graph.edges
                         if s in inside and graph.nodes[d].kind == "leaf"})
        if info.kind == "repeat":
            head = self.tr("{0} repeated blocks of {1} operations").format(
                info.repeats, len(ops))
            body = self.tr("The same block of operations, {0} times in a row: the iterations of "
                           "a loop or the layers of a stack. Blocks count as the same when "
                           "their operations and the way they connect are the same; their "
                           "values, shapes and weights may differ.").format(info.repeats)
            click = self.tr("Click it in the graph to show its blocks.")
        else:
            head = self.tr("Block {0} of {1} ({2} operations)").format(
                info.index, info.repeats, len(members))
            body = self.tr("One block of a run of repeated blocks; block 1 was computed first "
                           "(the first iteration the run covers).")
            click = self.tr("Click it in the graph to show its operations.")
        parts = [f"<h3>{esc(head)}</h3>", _p(body),
                 f"<p><b>{esc(self.tr('Each block, in the order computed'))}</b></p>"
                 f"<ol>{items}{more}</ol>"]
        if leaves:
            shown_leaves = ", ".join(leaves[:12]) + (" …" if len(leaves) > 12 else "")
            parts.append(_p(self.tr("Leaves it reads ({0}): {1}").format(
                len(leaves), shown_leaves)))
        parts.append(_p(click))
        return "".join(parts)

    def _saved(self, key: int) -> tuple[ag.SavedTensorInfo, ...]:
        """Saved tensors of a node, read now (stale or freed since the trace)."""
        graph = self.graph
        assert graph is not None
        try:
            return ag.saved_infos(graph, key)
        except (RuntimeError, ValueError):  # an odd node must not break the details
            pass
        return graph.nodes[key].saved

    def _edge_details(self, key: Any) -> str | None:
        graph, shown = self.graph, self.shown
        if graph is None or shown is None:
            return None
        esc = html.escape
        if isinstance(key, tuple) and key and key[0] == "cut":
            _, src, name = key
            return (f"<h3>{esc(self.tr('Cut: gradient stops here'))}</h3>"
                    + _p(self.tr("{0} was computed from this node, but without a graph: "
                                 "backward will never reach it.").format(name)))
        if isinstance(shown, CollapsedGraph) and key in shown.bundles:
            return self._bundle_details(shown, key)
        edge_map = shown.edge_map if isinstance(shown, CollapsedGraph) else None
        if edge_map is not None and key not in edge_map:
            return None
        orig = edge_map[key] if edge_map is not None else key
        info = graph.edge_info.get(orig)
        if info is None:
            return None
        src, dst = graph.nodes[orig[0]], graph.nodes[orig[1]]
        dst_name = dst.tensor or dst.label
        parts = [f"<h3>{esc(src.label)} → {esc(dst_name)}</h3>",
                 f"<p>{esc(self.tr('gradient shape'))}: {esc(shape_text(info.shape))} "
                 f"{esc((info.dtype or '').replace('torch.', ''))}</p>"]
        if len(info.slots) > 1:
            parts.append(_p(self.tr("This input is used {0} times by the operation; the "
                                    "gradients of each use add up.").format(len(info.slots))))
        rec = self.record
        if rec is None or rec.graph is not graph:
            parts.append(_p(self.tr("Run backward to see the gradient that flows along "
                                    "this edge.")))
        else:
            g = rec.edge_grads.get(orig)
            if g is None:
                parts.append(f"<p>{esc(self.tr('No gradient flowed along this edge.'))}</p>")
            else:
                parts.append(f"<p>‖∇‖ = {esc(_num(norm_of(g) or 0.0))}</p>"
                             f"<pre>{esc(full_values(g))}</pre>")
        return "".join(parts)

    def _bundle_details(self, shown: CollapsedGraph, key: tuple[int, int]) -> str:
        """A shown edge that stands for several: how many, and the sum of their gradients."""
        esc = html.escape
        graph = shown.source
        originals = shown.bundles[key]
        dst = graph.nodes[originals[0][1]]
        dst_name = dst.tensor or dst.label
        info = graph.edge_info.get(originals[0])
        parts = [f"<h3>{esc(self.tr('group'))} → {esc(dst_name)}</h3>",
                 _p(self.tr("{0} edges of the graph, one from each place in the group that "
                            "uses {1}; the gradients along them add up.").format(
                     len(originals), dst_name))]
        if info is not None:
            parts.append(f"<p>{esc(self.tr('gradient shape'))}: {esc(shape_text(info.shape))} "
                         f"{esc((info.dtype or '').replace('torch.', ''))}</p>")
        rec = self.record
        if rec is None or rec.graph is not graph:
            parts.append(_p(self.tr("Run backward to see the gradient that flows along "
                                    "this edge.")))
        else:
            norm = (self.bundled_norms or {}).get(key)
            if norm is None:
                parts.append(f"<p>{esc(self.tr('No gradient flowed along this edge.'))}</p>")
            else:
                parts.append(_p(self.tr("Norm of the summed gradient: {0}").format(_num(norm))))
            parts.append(_p(self.tr("Expand the group to see the gradient along each edge.")))
        return "".join(parts)

    # -- devices -----------------------------------------------------------------------------

    def _device_chosen(self, index: int) -> None:
        self.rerun_on(self.device_combo.itemData(index))

    def rerun_on(self, device: str) -> None:
        """Re-run the program that built the graph on ``device`` and show that graph."""
        if self.root is None or self.graph is None:
            return
        main = self.bridge.workspace
        if self.replica is not None and device == self._home_device():
            self._drop_replica()
            self._say(lambda: self.tr("Back to the workspace's own values."))
            self.refresh()
            return
        if str(self.root.device) == device:
            return
        involved = [self.target or ""]
        for node in self.graph.nodes:
            involved.extend(node.tensors)
        if main.running:
            self._say(lambda: self.tr("A program is running in the workspace; wait for it "
                                      "first."), "warning")
            self._update_controls()
            return
        handed = handed_in(main, involved)
        if handed:
            self._say(lambda: self.tr(
                "Can't re-run on {0}: {1} was handed in (explore(), a file or the API), not "
                "made by a program here, so there is no program to re-run. Move it with "
                ".to('{0}') in the code bar instead.").format(device, ", ".join(handed)),
                "warning")
            self._update_controls()
            return
        sources = replay_sources(main)
        history_len = len(main.history)

        def work(progress: Callable[[float], None], cancel: Callable[[], bool]) -> Any:
            fresh = Workspace(time_limit=120)
            for i, (src, _bound, restricted) in enumerate(sources):
                if cancel():
                    fresh.cancel()
                    return None
                try:
                    fresh.run(src, device=device, restricted=restricted)
                except ProgramError as err:
                    return err
                progress((i + 1) / max(len(sources), 1))
            return fresh

        def done(fresh: Any) -> None:
            if isinstance(fresh, ProgramError):
                err = fresh
                self._rerun_failed(device, lambda: err.text(i18n.current()))
                return
            if fresh is None:
                return
            self.replica = fresh
            self.replica_device = device
            self._replica_history = history_len
            self._signature = None
            home = self._home_device()
            self._say(lambda: self.tr(
                "Re-ran the program on {0}. This is a separate copy: the workspace keeps its "
                "own values; choose {1} to go back.").format(device, home), "ok")
            self.refresh()

        self._run_task(lambda: self.tr("Re-running on {0}…").format(device), work, done,
                       failed=lambda msg: self._rerun_failed(device, msg))

    def _home_device(self) -> str:
        main = self.bridge.workspace
        name = self.target
        v = main.get(name) if name is not None else None
        return str(v.device) if isinstance(v, torch.Tensor) else "cpu"

    def _rerun_failed(self, device: str, msg: str | Callable[[], str]) -> None:
        """Say why the re-run failed (``msg``: the reason, or what makes it in the current
        language)."""
        reason = _fixed(msg) if isinstance(msg, str) else msg
        self._say(lambda: self.tr("Could not re-run the program on {0}: {1}").format(
            device, reason()), "error")
        self._update_controls()

    def _drop_replica(self) -> None:
        self.replica = None
        self.replica_device = None
        self._signature = None
        self.record = None
        self.edge_norms = None
        self.bundled_norms = None

    # -- numerical check ---------------------------------------------------------------------

    def numerical_check(self) -> None:
        """Compare autograd with finite differences (float64) for the named leaves, by
        re-running the program with the leaves replaced by float64 copies."""
        if not self._can_change():
            return
        graph = self.graph
        assert graph is not None
        ws = self.workspace()
        target = self.target
        assert target is not None  # set with the graph
        leaves = [n.tensor for n in graph.leaves() if n.tensor is not None and n.tensor in ws]
        if not leaves:
            self._say(lambda: self.tr("The numerical check needs leaves that are workspace "
                                      "values; this graph has none."), "warning")
            return
        handed = handed_in(ws, [target or "", *leaves])
        if handed:
            self._say(lambda: self.tr(
                "Can't run the numerical check: {0} was handed in, not made by a program here, "
                "so the program can't be re-run.").format(", ".join(handed)), "warning")
            return
        total = sum(ws[n].numel() for n in leaves)
        if total > NUMCHECK_MAX_ELEMENTS:
            self._say(lambda: self.tr(
                "The numerical check is for small graphs: the leaves have {0} elements (at "
                "most {1}).").format(total, NUMCHECK_MAX_ELEMENTS), "warning")
            return
        sources = replay_sources(ws, skip_backward=True)
        device = str(self.root.device) if self.root is not None else None
        inputs = {n: ws[n] for n in leaves}

        def fn(**values: torch.Tensor) -> torch.Tensor:
            fresh = Workspace(time_limit=60)
            for src, bound, restricted in sources:
                fresh.run(src, device=device, restricted=restricted)
                for n in bound:
                    if n in values:
                        fresh[n] = values[n]
            out = fresh[target]
            if not isinstance(out, torch.Tensor):
                raise BackwardError("other", _tr("The root is not a tensor after re-running."))
            return out

        def work(progress: Callable[[float], None], cancel: Callable[[], bool]) -> Any:
            try:
                return numerical_check(fn, inputs)
            except (BackwardError, ProgramError) as err:
                return err  # put in words on the UI thread, in the language shown then

        self._run_task(lambda: self.tr("Checking gradients numerically…"), work,
                       self._check_done, failed=self._check_done)

    def _check_done(self, result: ag.NumericalCheck | BackwardError | ProgramError | str) -> None:
        """Say the numerical check's verdict, or why it could not run (an error, or the
        message of a failed task)."""
        if not isinstance(result, ag.NumericalCheck):
            def why() -> str:
                lang = i18n.current()
                if isinstance(result, BackwardError):
                    reason = result.explanation_in(lang)
                elif isinstance(result, ProgramError):
                    reason = _tr("re-running the program failed: {0}").format(result.text(lang))
                else:
                    reason = result
                return self.tr("The numerical check could not run: {0}").format(reason)

            self._say(why, "error")
            return
        worst = max(result.inputs.values(), key=lambda c: c.max_abs_diff, default=None)
        where = ""
        if worst is not None:
            where = f" ({worst.name}{list(worst.worst_index or ())})"
        per = ", ".join(f"{c.name}: {c.max_abs_diff:.2e}" for c in result.inputs.values())
        self.check_result = result

        def said() -> str:
            verdict = self.tr("passed") if result.passed else self.tr("FAILED")
            return self.tr("Numerical check (finite differences in float64, eps={0}): largest "
                           "difference between autograd and numerical gradients {1:.3e}{2} — "
                           "{3}. Per leaf: {4}.").format(
                               result.eps, result.max_abs_diff, where, verdict, per)

        self._say(said, "ok" if result.passed else "error")

    # -- training step -----------------------------------------------------------------------

    def open_training_dialog(self) -> QtWidgets.QDialog:
        """The seed's training-step check (inspect_batch / run_one_step) as a dialog."""
        from .training_dialog import TrainingDialog

        if self.training_dialog is None:
            self.training_dialog = TrainingDialog(self.bridge.workspace, self)
        dlg = self.training_dialog
        assert isinstance(dlg, TrainingDialog)
        dlg.refill()
        dlg.show()
        dlg.raise_()
        return dlg

    # -- tasks -------------------------------------------------------------------------------

    def _run_task(self, what: str | Callable[[], str], fn: Callable[..., Any],
                  done: Callable[[Any], None],
                  failed: Callable[[str], None] | None = None) -> None:
        """Run ``fn`` in a :class:`Task` with progress (``what``: what it does, or what says it
        in the current language)."""
        self.cancel_task()
        task = Task(fn, parent=self)
        self._task = task
        say_what = _fixed(what) if isinstance(what, str) else what
        self._busy_text = say_what
        self._busy = say_what()
        self.progress.setValue(0)
        self.progress.setFormat(self._busy)
        self.progress.show()
        self.cancel_btn.show()
        self._update_controls()

        def finish() -> None:
            if self._task is task:
                self._task = None
                self._busy = None
                self.progress.hide()
                self.cancel_btn.hide()
                self._update_controls()

        def ok(result: Any) -> None:
            finish()
            done(result)

        def bad(msg: str) -> None:
            finish()
            if failed is not None:
                failed(msg)
            else:
                self._say(lambda: self.tr("{0} failed: {1}").format(
                    say_what().rstrip("…"), msg), "error")

        task.progress.connect(lambda f: self.progress.setValue(int(f * 1000)))
        task.finished.connect(ok)
        task.failed.connect(bad)
        task.cancelled.connect(finish)
        task.start()

    def cancel_task(self) -> None:
        """Stop the background work in progress (layout, backward, re-run, check)."""
        task, self._task = self._task, None
        if task is not None:
            with contextlib.suppress(RuntimeError):  # already delivered and deleted
                task.cancel()
        self._busy = None
        self.progress.hide()
        self.cancel_btn.hide()

    @property
    def busy(self) -> bool:
        """True while background work runs."""
        return self._busy is not None

    # -- for tests and screenshots -----------------------------------------------------------

    def shown_nodes(self) -> list[tuple[Any, str, str]]:
        """(key, kind, title) of every node drawn."""
        d = self.view.drawing
        return [] if d is None else [(n.key, n.text.kind, n.text.title) for n in d.nodes]

    def node_lines(self, key: Any) -> list[str]:
        """The text lines of a drawn node (title first)."""
        node = self.view.nodes_by_key.get(key)
        return [] if node is None else [node.text.title, *node.text.lines]

    def leaf_key(self, name: str) -> int | None:
        """The node id of the leaf called ``name``."""
        if self.graph is None:
            return None
        for n in self.graph.leaves():
            if name in n.tensors:
                return n.id
        return None

    def edge_labels(self) -> dict[Any, str]:
        """Label of each drawn edge."""
        d = self.view.drawing
        return {} if d is None else dict(zip(d.edge_keys, d.edge_labels, strict=True))


def _fixed(text: str) -> Callable[[], str]:
    """A function that says ``text`` (a message that is the same in every language)."""
    return lambda: text


def _p(text: str) -> str:
    return f"<p>{html.escape(text)}</p>"


def _is_cut(key: Any) -> bool:
    return isinstance(key, tuple) and bool(key) and key[0] == "cut"


def _drawing(
    shown: Graph | CollapsedGraph,
    graph: Graph,
    retained: Mapping[str, torch.Tensor | None],
    norms: Mapping[tuple[int, int], float | None] | None,
    constants: list[tuple[str, NodeText, list[int]]],
    metrics: TextMetrics,
    cancel: Callable[[], bool] | None,
    bundled: Mapping[tuple[int, int], float | None] | None = None,
) -> Drawing:
    texts = node_texts(shown, graph, retained)
    labels, kinds = edge_texts(shown, graph, norms, bundled)
    members: dict[int, int] = {}
    if isinstance(shown, CollapsedGraph):
        for gid, ms in shown.groups.items():
            for m in ms:
                members[m] = gid
    consts = [(n, t, sorted({members.get(s, s) for s in srcs})) for n, t, srcs in constants]
    return compute_drawing(shown, texts, labels, kinds, metrics, constants=consts,
                           cancel=cancel)


# Texts this module translates where pyside6-lupdate cannot see them (inside f-strings, and
# through the module-level _tr helper): listed here so they are extracted for translation
# (tests/qt/test_i18n.py and tests/qt/test_graph_panel.py check this).
_LUPDATE = (
    QT_TRANSLATE_NOOP("GraphPanel", "(meta: no values)"),
    QT_TRANSLATE_NOOP("GraphPanel", "A chain of operations with one input and one consumer each."),
    QT_TRANSLATE_NOOP("GraphPanel", "A leaf: backward accumulates its gradient into .grad."),
    QT_TRANSLATE_NOOP("GraphPanel", "backward calls accumulated: {0}"),
    QT_TRANSLATE_NOOP("GraphPanel", "block {0} of {1}"),
    QT_TRANSLATE_NOOP("GraphPanel", "Click for its saved tensors."),
    QT_TRANSLATE_NOOP("GraphPanel", "Click it in the graph to expand it."),
    QT_TRANSLATE_NOOP("GraphPanel", "click to expand"),
    QT_TRANSLATE_NOOP("GraphPanel", "constant · {0}"),
    QT_TRANSLATE_NOOP(
        "GraphPanel",
        "Could not read the gradient '{0}': write ones, a number, or a list like [1.0, "
        "1.0] with the root's shape."),
    QT_TRANSLATE_NOOP("GraphPanel", "Cut off from the graph"),
    QT_TRANSLATE_NOOP("GraphPanel", "Cut: gradient stops here"),
    QT_TRANSLATE_NOOP("GraphPanel", "Each block, in the order computed"),
    QT_TRANSLATE_NOOP("GraphPanel", "grad (retained) = {0}"),
    QT_TRANSLATE_NOOP("GraphPanel", "gradient it receives"),
    QT_TRANSLATE_NOOP("GraphPanel", "gradient shape"),
    QT_TRANSLATE_NOOP("GraphPanel", "gradient stops here"),
    QT_TRANSLATE_NOOP("GraphPanel", "group"),
    QT_TRANSLATE_NOOP("GraphPanel", "Group of {0} operations"),
    QT_TRANSLATE_NOOP("GraphPanel", "kind"),
    QT_TRANSLATE_NOOP("GraphPanel", "leaf {0} {1}"),
    QT_TRANSLATE_NOOP("GraphPanel", "names"),
    QT_TRANSLATE_NOOP("GraphPanel", "no grad"),
    QT_TRANSLATE_NOOP("GraphPanel", "No gradient flowed along this edge."),
    QT_TRANSLATE_NOOP("GraphPanel", "on"),
    QT_TRANSLATE_NOOP(
        "GraphPanel",
        "One block of a repeated run; block 1 was computed first. Click to show its "
        "operations."),
    QT_TRANSLATE_NOOP("GraphPanel", "re-running the program failed: {0}"),
    QT_TRANSLATE_NOOP("GraphPanel", "root"),
    QT_TRANSLATE_NOOP("GraphPanel", "root: {0}"),
    QT_TRANSLATE_NOOP("GraphPanel", "Saved for backward"),
    QT_TRANSLATE_NOOP("GraphPanel", "Saved nothing for backward."),
    QT_TRANSLATE_NOOP("GraphPanel", "saved tensor changed in place!"),
    QT_TRANSLATE_NOOP(
        "GraphPanel",
        "The gradient list is not a rectangular list of numbers ({0})."),
    QT_TRANSLATE_NOOP(
        "GraphPanel",
        "The gradient must be numbers: ones, a number, or a list like [1.0, 1.0]."),
    QT_TRANSLATE_NOOP("GraphPanel", "The root is not a tensor after re-running."),
    QT_TRANSLATE_NOOP(
        "GraphPanel",
        "The same block of operations {0} times in a row (a loop, or a stack of "
        "layers): click to show the blocks."),
    QT_TRANSLATE_NOOP("GraphPanel", "{0} edges"),
    QT_TRANSLATE_NOOP("GraphPanel", "{0} ops"),
    QT_TRANSLATE_NOOP("GraphPanel", "{0} × {1} ops"),
)
