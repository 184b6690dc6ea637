"""Autograd graph pane: the view of a :class:`~tensor_explorer.core.graph_session.GraphSession`.

The session (core, no Qt) holds everything the pane shows and does: which value's graph
(the selection if it has a ``grad_fn``, else the last one bound that has one), the traced and
folded graph, backward (×N, ``retain_graph``, ``gradient=``, ``retain_grad``), zero_grad, the
accumulation history, the device re-run, the numerical check, node and edge labels, and the
message above the graph. The pane subscribes to its events and draws:

- :class:`~tensor_explorer.qt.graph_view.GraphView`: the drawing (laid out off the UI thread
  for big graphs, in the session's job);
- :class:`~tensor_explorer.qt.graph_details.GraphDetails`: what a clicked node or edge is;
- :class:`~tensor_explorer.qt.graph_history.GradHistoryView`: the accumulation table and plot.

Jobs that may be long run in a background :class:`~tensor_explorer.qt.workers.Task` with
progress and Cancel; small graphs run inline (well under 50 ms).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from PySide6 import QtCore, QtWidgets

from ..core import autograd as ag
from ..core.catalog import Message
from ..core.graph_layout import CollapsedGraph
from ..core.graph_session import (
    COLLAPSE_ABOVE,
    SYNC_NODES,
    Built,
    GraphSession,
    Job,
    Notice,
    graph_target,
    retained_choices,
    root_shape_hint,
)
from ..core.graph_texts import GradientInputError, parse_gradient, shape_text, short_values
from . import i18n, theme
from .bridge import WorkspaceBridge
from .flow_layout import FlowLayout
from .flow_layout import together as _together
from .graph_details import GraphDetails
from .graph_history import GradHistoryView
from .graph_view import Drawing, GraphView, TextMetrics, compute_drawing
from .job_runner import JobRunner

__all__ = [
    "COLLAPSE_ABOVE",
    "SYNC_NODES",
    "GradientInputError",
    "GraphPanel",
    "graph_target",
    "parse_gradient",
    "shape_text",
    "short_values",
]


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

    def refill(self, items: list[tuple[str, Any]]) -> None:
        """Replace the items (text, data), keeping the chosen one where it is still offered
        (else the first), without signalling a choice."""
        current = self.currentData()
        self.blockSignals(True)
        self.clear()
        for text, data in items:
            self.addItem(text, data)
        self.setCurrentIndex(max(self.findData(current), 0))
        self.blockSignals(False)
        self.updateGeometry()  # as wide as its items now are


class HintedLineEdit(QtWidgets.QLineEdit):
    """A line edit that asks for the room its placeholder (what to type) needs."""

    def sizeHint(self) -> QtCore.QSize:
        hint = super().sizeHint()
        need = self.fontMetrics().horizontalAdvance(self.placeholderText()) + 4 * self.fontMetrics(
        ).averageCharWidth()
        return QtCore.QSize(max(hint.width(), need), hint.height())


class NoticeLine(QtWidgets.QLabel):
    """The line above the graph: what the session says (a :class:`Notice`) in the interface's
    language, coloured by its kind, with torch's own words as its tool tip; hidden when the
    session says nothing."""

    def __init__(self) -> None:
        super().__init__()
        self.setWordWrap(True)
        self.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)

    def show_notice(self, notice: Notice | None) -> None:
        """Say ``notice`` (again, after a change of language or theme)."""
        t = theme.current()
        kind = notice.kind if notice is not None else "info"
        colour = {"error": t.error, "ok": t.ok, "warning": t.warning}.get(kind, t.muted)
        self.setStyleSheet(f"color: {colour};")
        text = "" if notice is None else notice.render(i18n.current())
        self.setText(text)
        self.setToolTip(notice.detail if notice is not None else "")
        self.setVisible(bool(text))


def _session_fact(name: str) -> Any:
    """A read-only property of the pane that reads the session's ``name``."""
    return property(lambda self: getattr(self.session, name),
                    doc=f"The session's ``{name}``.")


def _draw(session: GraphSession, built: Built, metrics: TextMetrics,
          cancel: Callable[[], bool]) -> Drawing:
    """The drawing of a built graph (any thread): sizes, layout, routed edges."""
    labels, kinds = session.edge_labels(built)
    return compute_drawing(built.shown, session.node_labels(built), labels, kinds, metrics,
                           constants=session.constant_labels(built), cancel=cancel)


def _drawing(shown: Any, graph: ag.Graph, retained: Any, norms: Any, constants: Any,
             metrics: TextMetrics, cancel: Callable[[], bool] | None,
             bundled: Any = None) -> Drawing:
    """The pane's drawing of ``shown`` without a session (bench/bench_graph_draw.py)."""
    from ..core.graph_texts import edge_texts, node_texts

    lang = i18n.current()
    labels, kinds = edge_texts(shown, graph, norms, bundled, lang)
    return compute_drawing(shown, node_texts(shown, graph, retained, lang), labels,
                           kinds, metrics, constants=constants, cancel=cancel)


class GraphPanel(QtWidgets.QWidget):
    """The autograd graph of the selected (or last) tensor with a grad_fn, and its controls."""

    #: emitted after a graph is shown (drawn), and after each backward / zero_grad
    graph_shown = QtCore.Signal()
    backward_done = QtCore.Signal()

    def __init__(self, bridge: WorkspaceBridge, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("GraphPanel")
        # torch imports ~0.3 s of modules on its first backward: do it now, off the UI thread,
        # so that the first Backward click on a small graph (run inline) does not pause
        threading.Thread(target=ag.warm_up, name="tx-warm-backward", daemon=True).start()
        self.bridge = bridge
        self.session = GraphSession(bridge.workspace, language=i18n.current, draw=_draw)
        self._selected: tuple[str, Any] | None = None
        self._scale = theme.state().scale
        self.training_dialog: QtWidgets.QDialog | None = None
        self._build_ui()
        ev = self.session.events
        ev.shown.connect(self._on_shown)
        ev.changed.connect(self._on_changed)
        ev.message.connect(self.message.show_notice)
        bridge.modified.connect(self.refresh)
        bridge.selected.connect(self._on_selected)
        theme.state().changed.connect(self._restyle)
        self._restyle()
        self.refresh()

    # -- what the session holds (for tests and the main window) -----------------------------

    graph: ag.Graph | None = _session_fact("graph")
    shown: ag.Graph | CollapsedGraph | None = _session_fact("shown")
    root: torch.Tensor | None = _session_fact("root")
    target: str | None = _session_fact("target")
    record: ag.BackwardRecord | None = _session_fact("record")
    history: ag.GradHistory = _session_fact("history")
    expanded: set[int] = _session_fact("expanded")
    replica: Any = _session_fact("replica")
    replica_device: str | None = _session_fact("replica_device")
    check_result: ag.NumericalCheck | None = _session_fact("check_result")

    # -- UI ----------------------------------------------------------------------------------

    def _build_ui(self) -> None:
        self._make_controls()
        self._make_views()
        self._lay_out()
        self._connect_controls()
        for dev in ag_devices():
            self.device_combo.addItem(dev, dev)
        self._set_texts()

    def _make_controls(self) -> None:
        """The title, the device box, the zoom and backward controls, the job runner and the
        message line."""
        self.title = QtWidgets.QLabel()
        self.title.setTextFormat(QtCore.Qt.TextFormat.PlainText)
        self.title.setWordWrap(True)  # long in presentation mode and in narrow docks
        self.title.setMinimumWidth(1)
        self.device_combo = QtWidgets.QComboBox()
        self.device_combo.setSizeAdjustPolicy(
            QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.device_combo.activated.connect(
            lambda i: self.rerun_on(self.device_combo.itemData(i)))
        # PySide6 stub: Qt properties as keyword arguments (text=) are missing from it
        self.zoom_out_btn = QtWidgets.QToolButton(text="−")  # type: ignore[call-arg]
        self.zoom_in_btn = QtWidgets.QToolButton(text="+")  # type: ignore[call-arg]
        self.fit_btn = QtWidgets.QToolButton()
        self.fold_btn = QtWidgets.QToolButton()
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
        self.jobs = JobRunner(self._render)
        self.jobs.busy_changed.connect(self._update_controls)
        self.progress, self.cancel_btn = self.jobs.progress, self.jobs.cancel_btn
        self.message = NoticeLine()

    def _make_views(self) -> None:
        """The graph view beside the tabs of details and gradient history."""
        self.view = GraphView()
        self.details = GraphDetails(self.session)
        self.history_view = GradHistoryView()
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.tabBar().setElideMode(QtCore.Qt.TextElideMode.ElideNone)  # whole titles, and
        self.tabs.tabBar().setUsesScrollButtons(False)  # the pane is at least that wide
        self.tabs.addTab(self.details, "")  # titled by _set_texts
        self.tabs.addTab(self.history_view, "")
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        split.addWidget(self.view)
        split.addWidget(self.tabs)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([680, 300])
        self.splitter = split

    def _lay_out(self) -> None:
        """The title row, the wrapping controls, the message and the splitter, top down."""
        row1 = QtWidgets.QHBoxLayout()
        row1.addWidget(self.title, 1)
        row1.addWidget(self.jobs)
        self.device_label = QtWidgets.QLabel()
        row1.addWidget(self.device_label)
        row1.addWidget(self.device_combo)
        for b in (self.zoom_out_btn, self.zoom_in_btn, self.fit_btn, self.fold_btn):
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
        layout.addWidget(self.splitter, 1)

    def _connect_controls(self) -> None:
        """The buttons' and the view's signals to the pane's actions."""
        self.zoom_in_btn.clicked.connect(lambda: self.view.zoom(1.25))
        self.zoom_out_btn.clicked.connect(lambda: self.view.zoom(0.8))
        self.fit_btn.clicked.connect(lambda: self.view.fit(whole=True))
        self.fold_btn.clicked.connect(lambda: self._start(self.session.fold()))
        self.backward_btn.clicked.connect(lambda: self.backward())
        self.times_spin.valueChanged.connect(self._times_changed)
        self.zero_btn.clicked.connect(lambda: self.zero_grad())
        self.check_btn.clicked.connect(lambda: self.numerical_check())
        self.training_btn.clicked.connect(self.open_training_dialog)
        self.view.node_clicked.connect(self.node_clicked)
        self.view.edge_clicked.connect(self.edge_clicked)
        self.view.background_clicked.connect(lambda: self._select(None))

    def _set_texts(self) -> None:
        """The pane's fixed texts in the current language (from :meth:`_build_ui`, and again
        from :meth:`retranslate`)."""
        self.device_label.setText(self.tr("Device:"))
        self.device_combo.setToolTip(self.tr(
            "Re-run the program that built this graph on another device"))
        self.fit_btn.setText(self.tr("Fit"))
        self.zoom_out_btn.setToolTip(self.tr("Zoom out (-)"))
        self.zoom_in_btn.setToolTip(self.tr("Zoom in (+)"))
        self.fit_btn.setToolTip(self.tr("Show the whole graph (0)"))
        self.fold_btn.setText(self.tr("Fold"))
        self.fold_btn.setToolTip(self.tr("Fold the groups you opened again (the first view)"))
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
        self.tabs.setTabText(0, self.tr("Details"))
        self.tabs.setTabText(1, self.tr("Accumulation"))

    def retranslate(self) -> None:
        """Say everything in the language just installed, in place: the graph, zoom, expanded
        groups, selection, backward record, history, device re-run and message are kept;
        nothing is recomputed but texts."""
        self._set_texts()
        self.view.retranslate()
        self.history_view.retranslate()
        self.jobs.retranslate()
        self._update_title()
        self._update_controls()
        self._on_changed()
        self.message.show_notice(self.session.message)
        dialog = self.training_dialog
        if dialog is not None:
            from .training_dialog import TrainingDialog

            if isinstance(dialog, TrainingDialog):
                dialog.retranslate()

    def _times_changed(self, n: int) -> None:
        self.backward_btn.setText(self.tr("Backward") if n == 1
                                  else self.tr("Backward ×{0}").format(n))

    def device_names(self) -> list[str]:
        """The devices the chooser lists."""
        return [self.device_combo.itemData(i) for i in range(self.device_combo.count())]

    def _restyle(self) -> None:
        scale = theme.state().scale
        scale_changed, self._scale = scale != self._scale, scale
        self.view.restyle()
        self.history_view.restyle()
        self.message.show_notice(self.session.message)
        if scale_changed:
            self.refresh()  # node sizes depend on the text size: drawn again
        if self._selected is None:
            self.details.show_legend()

    # -- the session's events ----------------------------------------------------------------

    def _render(self, message: Message | None) -> str:
        return "" if message is None else message.render(i18n.current())

    def message_text(self) -> str:
        """The message shown above the graph (for tests)."""
        return self.message.text()

    def _on_shown(self, built: Built | None) -> None:
        if built is None:
            self.cancel_task()
            self.view.clear()
            self._selected = None
        else:
            same = self.view.drawing is not None and self._shown_graph is built.graph
            if not same:
                self._selected = None
            self.view.select(self._selected_node())
            self.view.show_drawing(built.drawing, keep_view=same)
        self._shown_graph = built.graph if built is not None else None
        if built is not None and self._job_language != i18n.current():
            self._job_language = i18n.current()  # switched while it was laid out
            self._on_changed()
        self._update_title()
        self._update_controls()
        self.history_view.show_history(self.session.history)
        self._show_selected()
        self.graph_shown.emit()

    _shown_graph: ag.Graph | None = None
    _job_language: str = "en"

    def _on_changed(self) -> None:
        """Re-read labels (leaf .grad, edge norms) into the drawing, the history, details."""
        s = self.session
        if s.graph is not None and s.shown is not None and self.view.drawing is not None:
            if len(s.shown.nodes) <= SYNC_NODES:  # boxes may need to grow: drawn again
                built = Built(s.graph, s.shown, s.constants, s.bundled_norms)
                self.view.show_drawing(_draw(s, built, self.view.style_.metrics, lambda: False),
                                       keep_view=True)
                self.view.select(self._selected_node())
            else:
                labels, kinds = s.edge_labels()
                d = self.view.drawing
                cut = [isinstance(k, tuple) and bool(k) and k[0] == "cut" for k in d.edge_keys]
                self.view.update_texts(
                    s.node_labels(),
                    ["" if c else labels.get(k, d.edge_labels[i])
                     for i, (k, c) in enumerate(zip(d.edge_keys, cut, strict=True))],
                    np.asarray([2 if c else kinds.get(k, 0)
                                for k, c in zip(d.edge_keys, cut, strict=True)], dtype=np.int64))
        self._update_controls()
        self.history_view.show_history(s.history)
        self._show_selected()

    # -- following the workspace -------------------------------------------------------------

    @QtCore.Slot()
    def _on_selected(self, *_: object) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Follow the workspace (the session decides whether the graph changed)."""
        # the drawing depends on the text size: the view's metrics are what follow() compares
        self._start(self.session.follow(self.view.style_.metrics))

    def _update_title(self) -> None:
        self.title.setText(self._title())

    def _title(self) -> str:
        s = self.session
        g, shown = s.graph, s.shown
        if g is None or shown is None:
            return self.tr("No graph")
        nodes, edges = len(g.nodes), len(g.edges)  # English says "1 node", "2 nodes"
        text = self.tr("Graph of {0}: {1}, {2}").format(
            s.target or "",
            self.tr("1 node") if nodes == 1 else self.tr("{0} nodes").format(nodes),
            self.tr("1 edge") if edges == 1 else self.tr("{0} edges").format(edges))
        if isinstance(shown, CollapsedGraph) and shown.groups:
            kinds = [i.kind for i in shown.info.values()]
            parts = [(one if n == 1 else many.format(n)) for one, many, n in (
                (self.tr("1 module call"), self.tr("{0} module calls"), kinds.count("module")),
                (self.tr("1 run of repeated blocks"), self.tr("{0} runs of repeated blocks"),
                 kinds.count("repeat")),
                (self.tr("1 block"), self.tr("{0} blocks"), kinds.count("block")),
                (self.tr("1 chain"), self.tr("{0} chains"), kinds.count("chain"))) if n]
            text += " " + self.tr("(folded: {0}; click a group to open it)").format(
                ", ".join(parts))
        if s.replica is not None:
            text += " · " + self.tr("re-run on {0}").format(s.replica_device)
        return text

    def _update_controls(self) -> None:
        s = self.session
        root = s.root
        has = s.graph is not None and root is not None
        busy = self.jobs.busy
        for w in (self.backward_btn, self.times_spin, self.retain_graph_check,
                  self.gradient_edit, self.retain_combo, self.zero_btn, self.check_btn,
                  self.device_combo):
            w.setEnabled(has and not busy)
        self.fold_btn.setEnabled(has and not busy and bool(s.expanded))
        self.gradient_edit.setPlaceholderText(self._render(root_shape_hint(root)))
        self.gradient_edit.updateGeometry()  # room for what the placeholder now says
        if root is not None:
            dev = str(root.device)
            i = self.device_combo.findData(dev)
            if i < 0 and dev != "meta":
                self.device_combo.addItem(dev, dev)
                i = self.device_combo.findData(dev)
            if i >= 0:
                self.device_combo.setCurrentIndex(i)
        self.retain_combo.refill([(self.tr("(none)"), None),
                                  *((name, name) for name in retained_choices(s.graph))])

    # -- actions -----------------------------------------------------------------------------

    def _can_start(self) -> bool:
        if self.jobs.busy:
            self.session.say(Message("graph.wait", what=self.jobs.what), kind="warning")
            return False
        return True

    def backward(self, times: int | None = None) -> None:
        """Run backward ``times`` times (default: the spin box) with the pane's settings."""
        if self._can_start():
            self._start(self.session.backward(
                times if times is not None else self.times_spin.value(),
                self.gradient_edit.text(), self.retain_graph_check.isChecked(),
                self.retain_combo.currentData()), then=self.backward_done.emit)

    def zero_grad(self, set_to_none: bool | None = None) -> None:
        """Clear the leaves' gradients: None (set_to_none) or zeros."""
        if self._can_start():
            stn = self.set_to_none_check.isChecked() if set_to_none is None else set_to_none
            if self.session.zero_grad(stn):
                self.backward_done.emit()

    def rerun_on(self, device: str) -> None:
        """Re-run the program that built the graph on ``device`` and show that graph."""
        if self._can_start():
            self._start(self.session.rerun_on(device),
                        failed=lambda msg: self.session.rerun_failed(device, msg))
        self._update_controls()

    def numerical_check(self) -> None:
        """Compare autograd with finite differences (float64) for the named leaves."""
        if self._can_start():
            self._start(self.session.numerical_check(), failed=self.session.check_done)

    def node_clicked(self, key: Any) -> None:
        """A click on a node: a group expands; anything else shows its details."""
        shown = self.session.shown
        if isinstance(key, int) and isinstance(shown, CollapsedGraph) and key in shown.groups:
            self._start(self.session.expand(key))
            return
        self._select(("node", key))

    def edge_clicked(self, key: Any) -> None:
        """A click on an edge: its gradient's values (after backward)."""
        self._select(("edge", key))

    def _select(self, what: tuple[str, Any] | None) -> None:
        self._selected = what
        self.view.select(self._selected_node())
        self._show_selected()
        if what is not None:
            self.tabs.setCurrentIndex(0)

    def _selected_node(self) -> Any:
        what = self._selected
        return what[1] if what is not None and what[0] == "node" else None

    def _show_selected(self) -> None:
        what = self._selected
        if what is not None and not self.details.show_item(*what):
            self._selected = None
        if self._selected is None:
            self.details.show_legend()

    def details_text(self) -> str:
        """The details pane as plain text (for tests)."""
        return self.details.toPlainText()

    def history_rows(self) -> list[list[str]]:
        """The accumulation table's cells (for tests)."""
        return self.history_view.rows()

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

    # -- jobs --------------------------------------------------------------------------------

    def _start(self, job: Job | None, failed: Callable[[str], None] | None = None,
               then: Callable[[], None] | None = None) -> None:
        """Run a session job (inline when light, else in the background with progress)."""
        if job is None:
            return
        self._job_language = i18n.current()  # what the job writes its texts in

        def fail(msg: str) -> None:
            if failed is not None:
                failed(msg)
            else:
                self.session.say(Message("graph.job-failed", what=job.what, error=msg),
                                 kind="error")

        self.jobs.start(job, fail, then)

    def cancel_task(self) -> None:
        """Stop the background work in progress (layout, backward, re-run, check)."""
        self.jobs.cancel()

    @property
    def busy(self) -> bool:
        """True while background work runs."""
        return self.jobs.busy

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
        graph = self.session.graph
        if graph is None:
            return None
        for n in graph.leaves():
            if name in n.tensors:
                return n.id
        return None

    def edge_labels(self) -> dict[Any, str]:
        """Label of each drawn edge."""
        d = self.view.drawing
        return {} if d is None else dict(zip(d.edge_keys, d.edge_labels, strict=True))


def ag_devices() -> list[str]:
    """The devices the chooser offers."""
    from ..core.devices import devices

    return list(devices())
