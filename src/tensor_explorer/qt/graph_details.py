"""The graph pane's Details tab: what a clicked node, group or edge is, and the legend.

It reads a :class:`~tensor_explorer.core.graph_session.GraphSession` (the graph shown, the last
backward's record, retained gradients); it holds nothing of its own but the text shown.
"""

from __future__ import annotations

import html
from typing import Any

import torch
from PySide6 import QtWidgets

from ..core import autograd as ag
from ..core.catalog import render
from ..core.graph_layout import CollapsedGraph
from ..core.graph_session import GraphSession
from ..core.graph_texts import CUT_REASONS, edge_grad_norm, full_values, norm_text, shape_text
from . import i18n, theme
from .graph_view import GraphColors


def _p(text: str) -> str:
    return f"<p>{html.escape(text)}</p>"


class GraphDetails(QtWidgets.QTextBrowser):
    """Details of the node or edge selected in the graph, or the legend."""

    def __init__(self, session: GraphSession, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.setOpenLinks(False)
        self.setObjectName("GraphDetails")

    def _values(self, t: torch.Tensor | None) -> str:
        return full_values(t, i18n.current())

    def show_legend(self) -> None:
        """What the colours mean and what to click."""
        c = GraphColors.from_theme(theme.current())
        rows = [
            (c.border["root"], self.tr("root: where backward starts")),
            (c.border["op"], self.tr("operation (its backward function)")),
            (c.named, self.tr("named intermediate (a workspace value)")),
            (c.border["leaf"], self.tr("leaf: .grad accumulates here")),
            (c.border["group"], self.tr("group: a module call, repeated blocks or a chain of "
                                        "operations (click to open it)")),
            (c.cut, self.tr("constant cut off from the graph (no_grad, inference_mode, "
                            "detach)")),
        ]
        items = "".join(
            f"<tr><td style='background:{col}'>&nbsp;&nbsp;&nbsp;</td>"
            f"<td>&nbsp;{html.escape(t)}</td></tr>" for col, t in rows)
        body = self.tr("Click a node for its saved tensors and .grad, or an edge for the "
                       "gradient that flowed along it. Data flows down the arrows; backward "
                       "sends gradients back up.")
        self.setHtml(f"<p>{html.escape(body)}</p><table>{items}</table>")

    def show_item(self, kind: str, key: Any) -> bool:
        """Show a node's (``kind`` "node") or an edge's details; False when it is not there."""
        text = self.node_html(key) if kind == "node" else self.edge_html(key)
        if text is None:
            return False
        self.setHtml(text)
        return True

    # -- nodes -------------------------------------------------------------------------------

    def node_html(self, key: Any) -> str | None:
        """A node's details as HTML, or None when there is no such node now."""
        s = self.session
        graph, shown = s.graph, s.shown
        if graph is None or shown is None:
            return None
        esc = html.escape
        if isinstance(key, str) and key.startswith("const:"):
            return self._const_html(key[len("const:"):])
        if isinstance(key, int) and isinstance(shown, CollapsedGraph) and key in shown.groups:
            return self._group_html(shown, key)
        if not isinstance(key, int) or not 0 <= key < len(graph.nodes):
            return None
        node = graph.nodes[key]
        kind, names = self.tr("kind"), self.tr("names")
        parts = [f"<h3>{esc(node.label)}</h3>", f"<p>{esc(kind)}: <b>{esc(node.kind)}</b>"]
        if node.tensors:
            parts.append(f" · {esc(names)}: <b>{esc(', '.join(node.tensors))}</b>")
        parts.append("</p>")
        if node.shapes:
            meta = ", ".join(f"{shape_text(sh)} {d}" for sh, d in
                             zip(node.shapes, node.dtypes, strict=False))
            receives, on = self.tr("gradient it receives"), self.tr("on")
            parts.append(f"<p>{esc(receives)}: {esc(meta)} {esc(on)} "
                         f"{esc(node.device or '?')}</p>")
        if node.kind == "leaf":
            var = graph.leaf_tensor(key)
            grad = None if var is None else var.grad
            parts.append(f"<p><b>.grad</b> = <pre>{esc(self._values(grad))}</pre></p>")
            if grad is None:
                parts.append(_p(self.tr(".grad is None: no backward has reached this leaf "
                                        "since it was made or last set to None.")))
            else:
                step = ag.step_count(var) if var is not None else 0
                parts.append(_p(self.tr("backward calls accumulated: {0}").format(step)))
            return "".join(parts)
        parts.append(self._saved_html(key))
        if node.tensor is not None and node.tensor in s.retained:
            parts.append(f"<p><b>{esc(node.tensor)}.grad</b> (retain_grad) = <pre>"
                         f"{esc(self._values(s.retained[node.tensor]))}</pre></p>")
        return "".join(parts)

    def _const_html(self, name: str) -> str | None:
        esc = html.escape
        ws = self.session.workspace()
        origin = ws.origin(name)
        value = ws.get(name)
        if origin is None or origin.cut_off not in CUT_REASONS or not isinstance(
                value, torch.Tensor):
            return None
        reason = origin.cut_off
        assert reason is not None
        cut = self.tr("Cut off from the graph")
        why = render(CUT_REASONS[reason], i18n.current())
        return (f"<h3>{esc(name)}</h3><p><b>{esc(cut)}</b> ({esc(reason)})</p>"
                f"<p>{esc(why)}</p><p><code>{esc(origin.statement or '')}</code></p>"
                f"<p>requires_grad = {value.requires_grad}, grad_fn = None, "
                f"{esc(shape_text(value.shape))} {esc(str(value.dtype))}</p>")

    def _saved_html(self, key: int) -> str:
        esc = html.escape
        graph = self.session.graph
        assert graph is not None
        try:
            saved = ag.saved_infos(graph, key)  # read now: stale or freed since the trace
        except (RuntimeError, ValueError):  # an odd node must not break the details
            saved = graph.nodes[key].saved
        if not saved:
            return _p(self.tr("Saved nothing for backward."))
        rows = []
        for sv in saved:
            state = self.tr("ok")
            if sv.stale:
                state = self.tr("STALE: changed in place")
            elif sv.freed:
                state = self.tr("freed by backward")
            rows.append(f"<tr><td>{esc(sv.name)}</td><td>{esc(shape_text(sv.shape))}</td>"
                        f"<td>{esc((sv.dtype or '?').replace('torch.', ''))}</td>"
                        f"<td>{esc(state)}</td></tr>")
        head = "".join(f"<th align='left'>{esc(h)}</th>" for h in (
            self.tr("saved tensor"), self.tr("shape"), self.tr("dtype"), self.tr("state")))
        title = self.tr("Saved for backward")
        parts = [f"<p><b>{esc(title)}</b></p>"
                 f"<table cellspacing='4'><tr>{head}</tr>{''.join(rows)}</table>"]
        parts += [f"<p>{esc(sv.message)}</p>" for sv in saved if sv.message]
        return "".join(parts)

    def _group_html(self, shown: CollapsedGraph, key: int) -> str:
        """What a group stands for: its operations, and for repeated blocks what repeats."""
        esc = html.escape
        graph = shown.source
        members = shown.groups[key]
        info = shown.info.get(key)
        if info is None or info.kind == "chain":
            labels = "".join(f"<li>{esc(graph.nodes[m].label)}</li>" for m in members[:30])
            more = f"<li>… {len(members) - 30}</li>" if len(members) > 30 else ""
            head = self.tr("Group of {0} operations").format(len(members))
            click = self.tr("Click it in the graph to expand it.")
            return f"<h3>{esc(head)}</h3>{_p(click)}<ol>{labels}{more}</ol>"
        ops = info.block_ops
        items = "".join(f"<li>{esc(op)}</li>" for op in ops[:30])
        more = f"<li>… {len(ops) - 30}</li>" if len(ops) > 30 else ""
        inside = set(members)
        leaves = sorted({graph.nodes[d].tensor or graph.nodes[d].label
                         for s, d in graph.edges
                         if s in inside and graph.nodes[d].kind == "leaf"})
        if info.kind == "module":
            head = info.title
            body = self.tr("The operations one call of this module made (forward hooks noted "
                           "them while the program ran): {0} operations.").format(len(members))
            if info.index > 1:
                body += " " + self.tr("This is call {0} of it.").format(info.index)
            click = self.tr("Click it in the graph to show its operations.")
        elif info.kind == "repeat":
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
        order = (self.tr("Its operations") if info.kind == "module"
                 else self.tr("Each block, in the order computed"))
        parts = [f"<h3>{esc(head)}</h3>", _p(body),
                 f"<p><b>{esc(order)}</b></p><ol>{items}{more}</ol>"]
        named = [t for m in members if (t := graph.nodes[m].tensor)]
        if named:
            parts.append(_p(self.tr("Named values inside: {0}").format(", ".join(named))))
        if leaves:
            shown_leaves = ", ".join(leaves[:12]) + (" …" if len(leaves) > 12 else "")
            parts.append(_p(self.tr("Leaves it reads ({0}): {1}").format(
                len(leaves), shown_leaves)))
        parts.append(_p(click))
        return "".join(parts)

    # -- edges -------------------------------------------------------------------------------

    def edge_html(self, key: Any) -> str | None:
        """An edge's details as HTML (the gradient along it, per use), or None."""
        s = self.session
        graph, shown = s.graph, s.shown
        if graph is None or shown is None:
            return None
        esc = html.escape
        if isinstance(key, tuple) and key and key[0] == "cut":
            _, _src, name = key
            head = self.tr("Cut: gradient stops here")
            return (f"<h3>{esc(head)}</h3>"
                    + _p(self.tr("{0} was computed from this node, but without a graph: "
                                 "backward will never reach it.").format(name)))
        if isinstance(shown, CollapsedGraph) and key in shown.bundles:
            return self._bundle_html(shown, key)
        edge_map = shown.edge_map if isinstance(shown, CollapsedGraph) else None
        if edge_map is not None and key not in edge_map:
            return None
        orig = edge_map[key] if edge_map is not None else key
        info = graph.edge_info.get(orig)
        if info is None:
            return None
        src, dst = graph.nodes[orig[0]], graph.nodes[orig[1]]
        dst_name = dst.tensor or dst.label
        parts = [f"<h3>{esc(src.label)} → {esc(dst_name)}</h3>", self._shape_html(info)]
        multi = len(set(info.input_nrs)) > 1
        if multi:
            parts.append(_p(self.tr("{0} uses of different outputs of {1}: each output gets "
                                    "its own gradient.").format(len(info.slots), dst.label)))
        elif len(info.slots) > 1:
            parts.append(_p(self.tr("This input is used {0} times by the operation; the "
                                    "gradients of each use add up.").format(len(info.slots))))
        rec = s.record
        if rec is None or rec.graph is not graph:
            parts.append(_p(self.tr("Run backward to see the gradient that flows along "
                                    "this edge.")))
            return "".join(parts)
        if len(info.slots) > 1:
            for slot, nr in zip(info.slots, info.input_nrs, strict=True):
                g = rec.slot_grads.get((orig[0], slot))
                head = (self.tr("use {0} (input {1} of {2}), output {3}").format(
                    info.slots.index(slot) + 1, slot, src.label, nr) if multi
                    else self.tr("use {0} (input {1} of {2})").format(
                    info.slots.index(slot) + 1, slot, src.label))
                parts.append(self._grad_html(head, g))
            if not multi:
                parts.append(self._grad_html(self.tr("sum: what {0} receives from this "
                                                     "operation").format(dst_name),
                                             rec.edge_grads.get(orig)))
            return "".join(parts)
        one = rec.edge_grads.get(orig)
        parts.append(self._grad_html("", one if isinstance(one, torch.Tensor) else None))
        return "".join(parts)

    def _shape_html(self, info: ag.EdgeInfo) -> str:
        """The shape and dtype of the gradient along an edge."""
        label = self.tr("gradient shape")
        dtype = (info.dtype or "").replace("torch.", "")
        return (f"<p>{html.escape(label)}: {html.escape(shape_text(info.shape))} "
                f"{html.escape(dtype)}</p>")

    def _grad_html(self, head: str, g: Any) -> str:
        esc = html.escape
        top = f"<p><b>{esc(head)}</b></p>" if head else ""
        if g is None:
            return top + _p(self.tr("No gradient flowed along this edge."))
        norm = edge_grad_norm(g)
        return (f"{top}<p>‖∇‖ = {esc(norm_text(norm or 0.0))}</p>"
                f"<pre>{esc(self._values(g))}</pre>")

    def _bundle_html(self, shown: CollapsedGraph, key: tuple[int, int]) -> str:
        """A shown edge that stands for several: how many, and the sum of their gradients."""
        esc = html.escape
        s = self.session
        graph = shown.source
        originals = shown.bundles[key]
        dsts = dict.fromkeys(graph.nodes[d].tensor or graph.nodes[d].label
                             for _, d in originals)
        dst_name = ", ".join(dsts)
        info = graph.edge_info.get(originals[0])
        group = self.tr("group")
        parts = [f"<h3>{esc(group)} → {esc(dst_name)} (× {len(originals)})</h3>",
                 _p(self.tr("{0} edges of the graph, one from each place in the group that "
                            "uses {1}; the gradients along them add up.").format(
                     len(originals), dst_name))]
        if info is not None:
            parts.append(self._shape_html(info))
        rec = s.record
        if rec is None or rec.graph is not graph:
            parts.append(_p(self.tr("Run backward to see the gradient that flows along "
                                    "this edge.")))
        else:
            norm = (s.bundled_norms or {}).get(key)
            if norm is None:
                parts.append(_p(self.tr("No gradient flowed along this edge.")))
            else:
                parts.append(_p(self.tr("Norm of the summed gradient: {0}").format(
                    norm_text(norm))))
            parts.append(_p(self.tr("Expand the group to see the gradient along each edge.")))
        return "".join(parts)
