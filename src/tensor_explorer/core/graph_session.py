"""The model behind the autograd graph pane (no Qt): which graph is shown, backward and its
accumulation, zero_grad and retain_grad, the device re-run and the numerical check.

A :class:`GraphSession` follows a :class:`~tensor_explorer.core.workspace.Workspace`. The pane
(``qt/graph_panel.py``) subscribes to its events and draws what it holds, like napari's
``QtDims`` follows ``Dims``:

- ``events.shown(result)``: a graph was traced (or re-folded) and is now the one shown;
  ``result`` is the :class:`Built` the pane's drawing came with;
- ``events.changed()``: gradients, the backward record, the history or the retained values
  changed: labels and the accumulation table must be read again;
- ``events.message(notice)``: what the pane says above the graph (a :class:`Notice`, or
  None to say nothing).

Every text the session writes is a ``graph.*`` code of the core's one catalog
(:mod:`~tensor_explorer.core.catalog`) with its parameters (a :class:`Message`), said in a
language only where it is shown: a message kept while the pane switches language is said
again in the new one. Node and edge labels are written in :attr:`GraphSession.language`.

Work that may be long (tracing and laying out big graphs, backward ×N on them, the re-run on a
device, the numerical check) comes back as a :class:`Job`: ``work(progress, cancel)`` runs on
any thread, ``finish(result)`` on the thread that owns the session. The pane runs heavy jobs
in a background task and light ones inline; :meth:`GraphSession.run` runs any job inline
(scripts and tests).

What the pane does to the workspace's values is noted in the workspace's history
(:meth:`Workspace.note`): ``y.backward()``, ``x.grad = None``, ``h.retain_grad()``; the Code
panel's script and a saved session reproduce it. Messages describe the graph shown now: they
are dropped when the root is recomputed or the workspace runs anything else.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import torch
from psygnal import Signal, SignalGroup

from . import autograd as ag
from .autograd import BackwardError, BackwardRecord, GradHistory, Graph, numerical_check, trace
from .autograd import backward as tx_backward
from .autograd import names as workspace_names
from .autograd import zero_grad as tx_zero_grad
from .catalog import LANGUAGES, Message, render
from .graph_drawing import Drawing, Metrics, compute_drawing, estimate_metrics
from .graph_layout import CollapsedGraph, collapse
from .graph_modules import module_calls
from .graph_texts import (
    EdgeNorm,
    bundle_norms,
    const_label,
    cut_constants,
    edge_norms,
    edge_texts,
    gradient_code,
    node_texts,
    parse_gradient,
    shape_text,
    short_values,
)
from .graph_texts import GradientInputError as GradientInputError
from .runner import ProgramError
from .workspace import Workspace

__all__ = [
    "COLLAPSE_ABOVE",
    "Built",
    "GraphSession",
    "GraphSessionEvents",
    "Job",
    "Message",
    "Notice",
    "graph_target",
    "handed_in",
    "layout",
    "replay_sources",
]

SYNC_NODES = 400  # graphs up to this size are traced, laid out and backpropagated inline
COLLAPSE_ABOVE = 150  # graphs bigger than this are first shown folded (repeats, chains)
NUMCHECK_MAX_ELEMENTS = 256  # the numerical check re-runs the program 2x per element
SKIP_ON_REPLAY = re.compile(r"\.backward\(|\.zero_grad\(|\.step\(\)|\.grad\s*=")


def _english() -> str:
    return "en"


# ---------------------------------------------------------------------------------------------
# messages

#: the same words in each language (``{"en": ..., "zh": ...}``): torch's error explained
InLanguages = Mapping[str, str]


@dataclass(frozen=True)
class Notice:
    """What the pane says above the graph, said in a language where it is shown (``render``).

    ``text``: a catalog :class:`Message` (its code and parameters), text written in each
    language (:data:`InLanguages`: torch's error explained, a reason autograd gave), or a plain
    ``str`` said as it is. ``kind``: ``"info"``, ``"ok"``, ``"warning"`` or ``"error"``;
    ``detail``: torch's own message, for a tool tip.
    """

    text: Message | InLanguages | str
    kind: str = "info"
    detail: str = ""

    def render(self, lang: str = "en") -> str:
        """The notice in ``lang``."""
        text = self.text
        if isinstance(text, Message):
            return text.render(lang)
        if isinstance(text, str):
            return text
        return text.get(lang) or text["en"]


def _explained(error: BackwardError) -> InLanguages:
    """Torch's error in plain words, in each language (said now: the notice must not keep the
    error and the tensors of its traceback alive)."""
    return {lang: error.explanation_in(lang) for lang in LANGUAGES}


def _program_error(error: ProgramError) -> InLanguages:
    return {lang: error.text(lang) for lang in LANGUAGES}


# ---------------------------------------------------------------------------------------------
# plain helpers


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


def graph_leaves(graph: Graph, names: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The named leaves of ``graph`` (each leaf node's name, in the graph's order) and the
    named intermediates in it, with their tensors from ``names``."""
    return {n.tensor: names[n.tensor] for n in graph.nodes
            if n.tensor is not None and n.tensor in names}


def small(root: torch.Tensor, limit: int = SYNC_NODES) -> bool:
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


def replay_sources(ws: Workspace, *,
                   skip_backward: bool = False) -> list[tuple[str, tuple[str, ...], bool]]:
    """(source, names bound, restricted) of the workspace's history records that can be
    re-run; what ran restricted (code from a file nobody trusted) is replayed restricted.
    What the graph pane did (backward, zero_grad) is not a program statement: never replayed."""
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


def _base(name: str) -> str:
    return name.split(".")[0]


# ---------------------------------------------------------------------------------------------
# jobs


@dataclass
class Job:
    """Work for the pane to run: ``work(progress, cancel)`` anywhere (``progress(fraction)``,
    ``cancel() -> bool``), then ``finish(result)`` where the session lives. ``heavy``: run it
    in the background with progress and Cancel; ``what``: what it does, to show meanwhile."""

    work: Callable[[Callable[[float], None], Callable[[], bool]], Any]
    finish: Callable[[Any], Any]  # may return the next job (a re-run shows its graph)
    heavy: bool
    what: Message


@dataclass(eq=False)
class Built:
    """A traced graph and how it is shown: ``shown`` is ``graph`` itself or its folded view;
    ``constants`` the cut-off values drawn beside it (name, reason, node ids of ``shown``);
    ``drawing``: whatever the view made of it in the same background job (see
    :meth:`GraphSession.follow`)."""

    graph: Graph
    shown: Graph | CollapsedGraph
    constants: list[tuple[str, str, list[int]]]
    bundled: dict[tuple[int, int], float | None] | None
    drawing: Any = None


class GraphSessionEvents(SignalGroup):
    """What a :class:`GraphSession` tells its views."""

    shown = Signal(object)  # Built: a graph (or another view of it) is now shown
    changed = Signal()  # gradients, the record, the history, retained values
    message = Signal(object)  # Notice | None


@dataclass
class _State:
    """What belongs to the graph shown now (reset together)."""

    record: BackwardRecord | None = None
    edge_norms: dict[tuple[int, int], EdgeNorm] | None = None
    bundled_norms: dict[tuple[int, int], float | None] | None = None
    retained: dict[str, torch.Tensor | None] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# the session


class GraphSession:
    """The autograd graph of a workspace value, and what the pane does with it.

    Args:
        workspace: the workspace followed.
        language: the language node and edge labels are written in, asked each time they are
            written (the pane passes the interface's); English without it.
        draw: run in the same background job after tracing, ``draw(session, built, extra,
            cancel) -> drawing`` (the view lays out and sizes its boxes off the UI thread;
            ``extra`` is what :meth:`follow` was given); its result is ``Built.drawing``.
    """

    def __init__(self, workspace: Workspace, *, language: Callable[[], str] = _english,
                 draw: Callable[[GraphSession, Built, Any, Callable[[], bool]], Any] | None = None
                 ) -> None:
        self.main = workspace
        self.events = GraphSessionEvents()
        self.language = language
        self.draw = draw
        self.history = GradHistory()
        self.graph: Graph | None = None
        self.shown: Graph | CollapsedGraph | None = None
        self.target: str | None = None
        self.root: torch.Tensor | None = None
        self.names: dict[str, torch.Tensor] = {}
        self.expanded: set[int] = set()
        self.constants: list[tuple[str, str, list[int]]] = []
        self.replica: Workspace | None = None
        self.replica_device: str | None = None
        self.check_result: ag.NumericalCheck | None = None
        #: why there is no graph (a value without grad_fn is selected), when there is none
        self.nothing: Notice | None = None
        self.message: Notice | None = None
        self._state = _State()
        self._replica_history = 0
        self._history_target: str | None = None
        self._signature: Any = None
        self._extra: Any = None
        self._root_fn: Any = None
        self._traced_names: tuple[str, ...] = ()
        self._generation = 0
        self._said_at: tuple[int, Any] | None = None  # (history length, root's grad_fn id)

    # -- what is shown -----------------------------------------------------------------------

    @property
    def record(self) -> BackwardRecord | None:
        """The last backward's record, while it belongs to the graph shown."""
        return self._state.record

    @property
    def edge_norms(self) -> dict[tuple[int, int], EdgeNorm] | None:
        """Norm of the gradient along each edge of the graph (by original edge) after the last
        backward; None before one."""
        return self._state.edge_norms

    @property
    def bundled_norms(self) -> dict[tuple[int, int], float | None] | None:
        """Norm of the summed gradient of each shown edge that stands for several."""
        return self._state.bundled_norms

    @property
    def retained(self) -> dict[str, torch.Tensor | None]:
        """``.grad`` of the intermediates retain_grad was called on, by name."""
        return self._state.retained

    def workspace(self) -> Workspace:
        """The workspace whose graph is shown: the device re-run copy, else the real one."""
        return self.replica if self.replica is not None else self.main

    def node_labels(self, built: Built | None = None) -> dict[Any, Any]:
        """What each shown node says (constants too, keyed ``"const:NAME"``), read now;
        ``built``: of that graph instead of the one shown (a view drawing it off the UI
        thread, before it is shown)."""
        graph, shown, constants = ((built.graph, built.shown, built.constants) if built
                                   else (self.graph, self.shown, self.constants))
        if graph is None or shown is None:
            return {}
        lang = self.language()
        out: dict[Any, Any] = node_texts(shown, graph, dict(self.retained), lang)
        for name, reason, _ in constants:
            out[f"const:{name}"] = const_label(name, reason, lang)
        return out

    def edge_labels(self, built: Built | None = None
                    ) -> tuple[dict[tuple[int, int], str], dict[tuple[int, int], int]]:
        """Label and kind (0 plain, 1 carried a gradient) of each shown edge, read now."""
        graph, shown = (built.graph, built.shown) if built else (self.graph, self.shown)
        if graph is None or shown is None:
            return {}, {}
        norms = self.edge_norms
        bundled = self.bundled_norms
        if built is not None:
            record = self.record
            if record is None or record.graph is not graph:
                norms = None
            bundled = built.bundled
        return edge_texts(shown, graph, norms, bundled, self.language())

    def constant_labels(self, built: Built | None = None) -> list[tuple[str, Any, list[int]]]:
        """The cut-off constants as ``(name, label, ids of shown nodes it was computed from)``."""
        constants = built.constants if built else self.constants
        lang = self.language()
        return [(n, const_label(n, r, lang), s) for n, r, s in constants]

    # -- messages ----------------------------------------------------------------------------

    def say(self, text: Notice | Message | InLanguages | str | None, *, kind: str = "info",
            detail: str = "") -> None:
        """Say ``text`` (a :class:`Notice`, or what one says: see there) above the graph;
        None says nothing."""
        msg = text if isinstance(text, Notice) or text is None else Notice(text, kind, detail)
        self.message = msg
        root_fn = None if self.root is None else id(self.root.grad_fn)
        self._said_at = (len(self.main.history), root_fn)
        self.events.message.emit(msg)

    def _forget_message_if_stale(self) -> None:
        """Drop the message when it no longer describes what is shown: the workspace ran
        something since, or the root was recomputed."""
        if self.message is None or self._said_at is None:
            return
        root_fn = None if self.root is None else id(self.root.grad_fn)
        if self._said_at != (len(self.main.history), root_fn):
            self.say(None)

    # -- following the workspace -------------------------------------------------------------

    def follow(self, extra: Any = None) -> Job | None:
        """Follow the workspace: a Job that traces and shows a new graph when the graph
        changed, else None (labels were re-read: ``changed`` was emitted). ``extra``: what else
        the drawing depends on (the view's text size)."""
        main = self.main
        self._extra = extra
        dropped = self.replica is not None and len(main.history) != self._replica_history
        if dropped:
            self._drop_replica()
        ws = self.workspace()
        selected = main.selected if (main.selected in ws) else None
        name = graph_target(ws, selected)
        if name is None:
            self._show_nothing(ws, selected)
            return None
        self.nothing = None
        root = ws[name]
        root_fn = root.grad_fn
        constants = cut_constants(ws, None, selected)  # names only, for the signature
        sig = (name, id(root), id(root_fn), tuple(ws.names()),
               tuple(c[0] for c in constants), frozenset(self.expanded), extra)
        if sig == self._signature and self.graph is not None:
            self._forget_message_if_stale()
            self.events.changed.emit()
            return None
        self._signature = sig
        if name != self._history_target:
            self.history.clear()
            self._history_target = name
            self._state = _State()
            self.expanded.clear()
        elif self.root is not root or self._root_fn is not root_fn:
            # a new forward pass: gradients along edges, the accumulation table and what was
            # said belong to the old graph
            self._state = _State()
            self.history.clear()
        self.target = name
        self.root = root
        self._root_fn = root_fn  # (an in-place op on the root gives it a new grad_fn)
        self.names = workspace_names(ws)
        self._forget_message_if_stale()
        if dropped:
            self.say(Message("graph.replica-dropped"))
        return self._build(selected)

    def _show_nothing(self, ws: Any, selected: str | None) -> None:
        self._generation += 1
        self.graph = self.shown = self.root = None
        self.target = None
        self._signature = None
        self.constants = []
        value = ws.get(selected) if selected is not None else None
        # (a Message of no parameters: the notice does not keep the tensor alive)
        reason = ag.no_graph_message(value) if isinstance(value, torch.Tensor) else None
        self.nothing = Notice(reason or Message("graph.no-grad-fn"))
        self.say(self.nothing)
        self.events.shown.emit(None)
        self.events.changed.emit()

    def expand(self, key: int) -> Job | None:
        """Open a folded group (a run of repeated blocks, one block, or a chain)."""
        shown = self.shown
        if not isinstance(shown, CollapsedGraph) or key not in shown.groups:
            return None
        self.expanded.add(key)
        info = shown.info.get(key)
        if info is not None and info.kind == "module":
            self.say(Message("graph.opened-module", title=info.title, count=len(info.members)))
        elif info is not None and info.kind == "repeat":
            self.say(Message("graph.expanded-repeat", repeats=info.repeats,
                             count=len(info.block_ops)))
        elif info is not None and info.kind == "block":
            self.say(Message("graph.expanded-block", index=info.index, repeats=info.repeats,
                             count=len(info.members)))
        else:
            self.say(Message("graph.expanded-chain", count=len(shown.groups[key])))
        return self.follow(self._extra)

    def fold(self) -> Job | None:
        """Fold every group opened since the graph was first shown (the first view again)."""
        if not self.expanded:
            return None
        self.expanded.clear()
        self.say(Message("graph.folded"))
        return self.follow(self._extra)

    def _build(self, selected: str | None) -> Job:
        """Trace, fold, and let the view draw (inline for small graphs, else in the
        background)."""
        self._generation += 1
        gen = self._generation
        root, names, ws = self.root, self.names, self.workspace()
        assert root is not None
        expanded = frozenset(self.expanded)
        record = self.record if self.edge_norms is not None else None
        names_now = tuple(ws.names())
        # the graph traced before still serves (same root, same names: a group opened, or
        # the text size changed; or its edge gradients must stay with it)
        same_names = names_now == self._traced_names
        old = (self.graph if self.graph is not None and (self.record is not None or same_names)
               else None)
        self._traced_names = names_now
        draw = self.draw
        extra = self._extra
        modules = {n: v for n, v in ws.items() if isinstance(v, torch.nn.Module)}

        def work(progress: Callable[[float], None], cancel: Callable[[], bool]) -> Built:
            if old is not None and old.function(0) is root.grad_fn:
                graph = old
            else:
                graph = trace(root, names)
            progress(0.3)
            shown = first_view(graph, expanded, modules)
            progress(0.4)
            constants = cut_constants(ws, graph, selected)
            members: dict[int, int] = {}
            if isinstance(shown, CollapsedGraph):
                for gid, ms in shown.groups.items():
                    for m in ms:
                        members[m] = gid
            constants = [(n, r, sorted({members.get(s, s) for s in srcs}))
                         for n, r, srcs in constants]
            bundled = (bundle_norms(shown, record)
                       if record is not None and record.graph is graph else None)
            built = Built(graph, shown, constants, bundled)
            if draw is not None:
                built.drawing = draw(self, built, extra, cancel)
            progress(1.0)
            return built

        def finish(built: Built | BackwardError) -> None:
            if gen != self._generation:
                return
            if isinstance(built, BackwardError):
                self.say(_explained(built), kind="error")
                return
            self.graph, self.shown, self.constants = built.graph, built.shown, built.constants
            if built.bundled is not None:
                self._state.bundled_norms = built.bundled
            self.events.shown.emit(built)

        def safe_work(progress: Callable[[float], None], cancel: Callable[[], bool]) -> Any:
            try:
                return work(progress, cancel)
            except BackwardError as exc:
                return exc

        return Job(safe_work, finish, not small(root, SYNC_NODES),
                   Message("graph.laying-out"))

    # -- backward ----------------------------------------------------------------------------

    def can_change(self) -> bool:
        """Whether backward, zero_grad and the checks may run now (else says why)."""
        if self.replica is None and self.main.running:
            self.say(Message("graph.busy"), kind="warning")
            return False
        if self.graph is None or self.root is None:
            self.say(Message("graph.no-graph"), kind="warning")
            return False
        return True

    def backward(self, times: int = 1, gradient: str = "", retain_graph: bool = False,
                 retain: str | None = None) -> Job | None:
        """Run backward ``times`` times from the root (``gradient``: the pane's text for
        ``gradient=``; ``retain``: an intermediate to call ``retain_grad()`` on)."""
        if not self.can_change():
            return None
        root, graph, names, shown = self.root, self.graph, self.names, self.shown
        assert root is not None and graph is not None
        try:
            grad = parse_gradient(gradient, root)
        except GradientInputError as exc:
            self.say(exc.message, kind="error")
            return None
        retain_list = [retain] if retain else []
        n = max(1, int(times))
        target = self.target
        main, on_copy = self.main, self.replica is not None
        # the leaves of the graph shown, by their qualified names: what the message, the
        # accumulation table and its plot report (not every leaf of the workspace)
        names = graph_leaves(graph, names)

        def work(progress: Callable[[float], None], cancel: Callable[[], bool]) -> Any:
            # for undo: the leaves' .grad as they are (autograd writes them in C++)
            change = None if on_copy else main.begin_change(
                f"{target}.backward()", torch_writes=False)
            records: list[BackwardRecord] = []
            error: BackwardError | None = None
            for i in range(n):
                if cancel():
                    break
                try:
                    records.append(tx_backward(root, grad, retain_graph, names,
                                               retain=retain_list, graph=graph))
                except BackwardError as exc:
                    error = exc
                    break
                progress((i + 1) / (n + 1))
            norms = bundled = None
            if records:
                norms = edge_norms(records[-1])
                bundled = bundle_norms(shown, records[-1]) if shown is not None else None
            return records, norms, bundled, error, change

        def finish(result: Any) -> None:
            records, norms, bundled, error, change = result
            if self.graph is not graph:  # the graph changed meanwhile: say nothing of it
                return
            for rec in records:
                self.history.add(rec)
            if records:
                last = records[-1]
                self._state.record = last
                self._state.edge_norms = norms
                self._state.bundled_norms = bundled
                self._state.retained.update(last.retained)
            changed = sorted({n for rec in records for n in rec.grads})
            if records or retain_list:
                self._note_backward(target, len(records), gradient, retain_graph, retain_list,
                                    changed, change)
            if error is not None:
                explained = _explained(error)
                self.say(Message("graph.backward-then", count=len(records), error=explained)
                         if records else explained, kind="error",
                         detail=error.torch_message or "")
            elif records:
                count, step = len(records), records[-1].step
                values: list[tuple[str, torch.Tensor | None]] = [
                    (n, records[-1].grads[n]) for n in changed[:4]]
                # the values as text now (the message must not keep the gradients alive)
                texts = [(n, None if g is not None and g.device.type == "meta"
                          else short_values(g)) for n, g in values]

                shown_values = {lang: ", ".join(
                    f"{n}.grad = {render('graph.no-values', lang) if v is None else v}"
                    for n, v in texts) for lang in LANGUAGES}
                self.say(Message("graph.backward-done", count=count, step=step,
                                 values=shown_values), kind="ok")
            self.events.changed.emit()

        return Job(work, finish, len(graph) > SYNC_NODES, Message("graph.running-backward"))

    def _note_backward(self, target: str | None, calls: int, gradient: str,
                       retain_graph: bool, retain: list[str], changed: list[str],
                       change: Any = None) -> None:
        """Write what backward did into the workspace's history (the script's lines)."""
        if self.replica is not None or target is None:
            return
        lines = [f"{name}.retain_grad()" for name in retain]
        if calls:
            args = []
            if gradient.strip():
                with contextlib.suppress(ValueError, SyntaxError):
                    args.append(f"gradient={gradient_code(gradient, target)}")
            if retain_graph:
                args.append("retain_graph=True")
            call = f"{target}.backward({', '.join(args)})"
            if calls == 1:
                lines.append(call)
            else:
                lines.append(f"for _ in range({calls}):\n    {call}")
        self.main.note("\n".join(lines), tuple(dict.fromkeys(_base(n) for n in changed)),
                       change)

    def zero_grad(self, set_to_none: bool = True) -> bool:
        """Clear the leaves' gradients: None (``set_to_none``) or zeros, like
        ``optimizer.zero_grad``. Returns whether it ran."""
        if not self.can_change():
            return False
        graph = self.graph
        assert graph is not None
        named = [(n.tensor, graph.leaf_tensor(n.id)) for n in graph.leaves()
                 if n.tensor is not None]
        had = {name for name, var in named if var is not None and var.grad is not None}
        unnamed = sum(1 for n in graph.leaves() if n.tensor is None)
        change = (None if self.replica is not None else
                  self.main.begin_change("zero_grad", torch_writes=False))
        try:
            rec = tx_zero_grad(graph, set_to_none=set_to_none, names=self.names)
        except ValueError as exc:
            self.say(str(exc), kind="error")
            return False
        self.history.add(rec)
        if self.replica is None:
            if set_to_none:
                lines = [f"{name}.grad = None" for name, _ in named]
            else:
                lines = [f"{name}.grad.zero_()" for name, _ in named if name in had]
            if unnamed:
                lines.append(f"# and {unnamed} leaf tensor(s) without a name")
            if lines:
                self.main.note("\n".join(lines),
                               tuple(dict.fromkeys(_base(n) for n, _ in named)), change)
        if set_to_none:
            self.say(Message("graph.zero-grad-none"), kind="ok")
        else:
            self.say(Message("graph.zero-grad-zeros"), kind="ok")
        self.events.changed.emit()
        return True

    # -- devices -----------------------------------------------------------------------------

    def home_device(self) -> str:
        """The device of the shown value in the workspace itself."""
        name = self.target
        v = self.main.get(name) if name is not None else None
        return str(v.device) if isinstance(v, torch.Tensor) else "cpu"

    def rerun_on(self, device: str) -> Job | None:
        """Re-run the program that built the graph on ``device`` in a separate copy of the
        workspace, and show that copy's graph (the workspace keeps its values). Choosing the
        workspace's own device again goes back to it."""
        if self.root is None or self.graph is None:
            return None
        main = self.main
        if self.replica is not None and device == self.home_device():
            self._drop_replica()
            job = self.follow(self._extra)
            self.say(Message("graph.back-home"))
            return job
        if str(self.root.device) == device:
            return None
        involved = [self.target or ""]
        for node in self.graph.nodes:
            involved.extend(node.tensors)
        if main.running:
            self.say(Message("graph.rerun-busy"), kind="warning")
            return None
        handed = handed_in(main, involved)
        if handed:
            self.say(Message("graph.rerun-handed-in", device=device, names=", ".join(handed)),
                     kind="warning")
            return None
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

        def finish(fresh: Any) -> Job | None:
            if isinstance(fresh, ProgramError):
                self.rerun_failed(device, _program_error(fresh))
                return None
            if fresh is None:
                return None
            self.replica = fresh
            self.replica_device = device
            self._replica_history = history_len
            self._signature = None
            job = self.follow(self._extra)
            self.say(Message("graph.rerun-done", device=device, home=self.home_device()),
                     kind="ok")
            return job

        return Job(work, finish, True, Message("graph.rerunning", device=device))

    def rerun_failed(self, device: str, reason: str | Message | InLanguages) -> None:
        """Say why the re-run on ``device`` failed (``reason``: the job's error, as text)."""
        self.say(Message("graph.rerun-failed", device=device, reason=reason), kind="error")

    def _drop_replica(self) -> None:
        self.replica = None
        self.replica_device = None
        self._signature = None
        self._state = _State(retained=self.retained)

    # -- numerical check ---------------------------------------------------------------------

    def numerical_check(self) -> Job | None:
        """Compare autograd with finite differences (float64) for the named leaves, by
        re-running the program with the leaves replaced by float64 copies."""
        if not self.can_change():
            return None
        graph = self.graph
        assert graph is not None
        ws = self.workspace()
        target = self.target
        assert target is not None
        leaves = [n.tensor for n in graph.leaves() if n.tensor is not None and n.tensor in ws]
        if not leaves:
            self.say(Message("graph.check-no-leaves"), kind="warning")
            return None
        handed = handed_in(ws, [target, *leaves])
        if handed:
            self.say(Message("graph.check-handed-in", names=", ".join(handed)), kind="warning")
            return None
        total = sum(ws[n].numel() for n in leaves)
        if total > NUMCHECK_MAX_ELEMENTS:
            self.say(Message("graph.check-too-big", count=total, limit=NUMCHECK_MAX_ELEMENTS),
                     kind="warning")
            return None
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
                raise BackwardError("other", Message("autograd.rerun-not-tensor"))
            return out

        def work(progress: Callable[[float], None], cancel: Callable[[], bool]) -> Any:
            try:
                return numerical_check(fn, inputs)
            except (BackwardError, ProgramError) as err:
                return err

        return Job(work, self.check_done, True, Message("graph.checking"))

    def check_done(self, result: ag.NumericalCheck | BackwardError | ProgramError | str) -> None:
        """Say the numerical check's verdict, or why it could not run."""
        if not isinstance(result, ag.NumericalCheck):
            reason: Message | InLanguages | str
            if isinstance(result, BackwardError):
                reason = _explained(result)
            elif isinstance(result, ProgramError):
                reason = Message("graph.check-rerun-failed", error=_program_error(result))
            else:
                reason = result
            self.say(Message("graph.check-not-run", reason=reason), kind="error")
            return
        self.check_result = result
        worst = max(result.inputs.values(), key=lambda c: c.max_abs_diff, default=None)
        where = ""
        if worst is not None:
            where = f" ({worst.name}{list(worst.worst_index or ())})"
        per = ", ".join(f"{c.name}: {c.max_abs_diff:.2e}" for c in result.inputs.values())
        verdict = Message("graph.check-passed") if result.passed else Message("graph.check-failed")
        self.say(Message("graph.check-result", eps=result.eps, diff=result.max_abs_diff,
                         where=where, verdict=verdict, per_leaf=per),
                 kind="ok" if result.passed else "error")

    # -- running jobs without a view ---------------------------------------------------------

    @staticmethod
    def run(job: Job | None) -> None:
        """Run ``job`` here and now (scripts and tests); a finish that returns another job
        (a re-run shows its graph) runs that one too."""
        while job is not None:
            nxt = job.finish(job.work(lambda _f: None, lambda: False))
            job = nxt if isinstance(nxt, Job) else None


def root_shape_hint(root: torch.Tensor | None) -> Message | None:
    """What the ``gradient=`` field says it needs, for the root shown."""
    if root is None:
        return None
    if root.numel() == 1:
        return Message("graph.gradient-not-needed")
    return Message("graph.gradient-needed", shape=shape_text(root.shape))


def retained_choices(graph: Graph | None) -> list[str]:
    """The named intermediates retain_grad can be called on."""
    if graph is None:
        return []
    return [n.tensor for n in graph.nodes if n.kind != "leaf" and n.tensor is not None]


# ---------------------------------------------------------------------------------------------
# tx.layout


def first_view(graph: Graph, expanded: Collection[int] | None = None,
               modules: Mapping[str, Any] | None = None) -> Graph | CollapsedGraph:
    """How the pane shows ``graph``: each ``nn.Module`` call that made its ops folded into a
    box (named by its path among ``modules``, the workspace's values; see
    :mod:`~tensor_explorer.core.graph_modules`), and above :data:`COLLAPSE_ABOVE` nodes repeated
    blocks and chains folded too; ``expanded``: the group keys opened."""
    calls = module_calls(graph, modules or {})
    big = len(graph.nodes) > COLLAPSE_ABOVE
    if not big and not calls:
        return graph
    return collapse(graph, expanded=frozenset(expanded or ()), modules=calls, fold=big)


def layout(
    graph: Graph | CollapsedGraph,
    expanded: Literal["all"] | Collection[int] | None = None,
    *,
    metrics: Metrics | None = None,
    modules: Mapping[str, Any] | None = None,
) -> Drawing:
    """The picture the graph pane draws of ``graph``, as data (``tx.layout``).

    Args:
        graph: a traced :class:`~tensor_explorer.core.autograd.Graph` (``tx.trace``), or an
            already folded view (then ``expanded`` is not used).
        expanded: ``None``: the pane's first view (graphs of more than :data:`COLLAPSE_ABOVE`
            nodes with repeated blocks and chains folded into groups); ``"all"``: every node;
            a set of group keys: those groups opened (``collapse(graph, expanded=...)``).
        metrics: text metrics for the box sizes (default: the bundled font's, estimated).
        modules: values by name whose ``nn.Module`` s name the module boxes by path (module
            calls are known for graphs built by a workspace's programs).

    Returns a :class:`~tensor_explorer.core.graph_drawing.Drawing`: ``boxes`` ``{key: (x, y,
    w, h)}`` (top-left corner, y down; inputs above the ops that read them, the root at the
    bottom), ``groups`` ``{key: [node ids]}``, ``edges`` ``[(src_key, dst_key, [(x, y),
    ...])]``: one polyline per drawn edge, entering no box but its ends'. The node and edge
    texts are the pane's, in English; an edge standing for several (a group reading a leaf in
    each of its blocks) is labelled ``× N``.
    """
    shown: Graph | CollapsedGraph
    if isinstance(graph, CollapsedGraph):
        shown = graph
        source = graph.source
    elif isinstance(expanded, str):
        if expanded != "all":
            raise ValueError(f"expanded must be None, 'all' or a set of group keys, "
                             f"not {expanded!r}")
        shown = source = graph
    else:
        shown, source = first_view(graph, expanded, modules), graph
    labels, kinds = edge_texts(shown, source, None)
    return compute_drawing(shown, node_texts(shown, source), labels, kinds,
                           metrics if metrics is not None else estimate_metrics())
