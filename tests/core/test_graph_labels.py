"""``Drawing.labels``: every box title and edge label placed as a rectangle (issue #26, point 2).

Checked geometrically on the models an autograd engineer found overlapping labels in (an LSTM,
a GRU, a TransformerEncoderLayer, a CNN, a tied embedding, a 50-step hand-written loop, an
LSTMCell loop), folded and fully expanded, before and after backward (two-line labels), and on
random graphs: no two label rectangles overlap, no label overlaps a box but its owner's, every
box title is there, and every edge label is placed or counted in a ``+N`` badge.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

import tensor_explorer as tx
from tensor_explorer.core.autograd import Graph, trace
from tensor_explorer.core.graph_drawing import (
    Drawing,
    NodeText,
    compute_drawing,
    estimate_metrics,
    label_size,
)
from tensor_explorer.core.graph_layout import CollapsedGraph
from tensor_explorer.core.graph_session import first_view
from tensor_explorer.core.graph_texts import bundle_norms, edge_norms, edge_texts, node_texts

EPS = 1e-6


# ---------------------------------------------------------------------------------------------
# geometry


def _pairs(r: np.ndarray, s: np.ndarray | None = None) -> list[tuple[int, int]]:
    """Index pairs of rectangles ``x0, y0, x1, y1`` whose interiors meet (within ``r``, or
    between ``r`` and ``s``), by a sweep over x."""
    other = r if s is None else s
    out: list[tuple[int, int]] = []
    order = np.argsort(other[:, 0])
    xs = other[order, 0]
    for i, (x0, y0, x1, y1) in enumerate(r.tolist()):
        hi = int(np.searchsorted(xs, x1 - EPS, side="left"))
        for j in order[:hi].tolist():
            if s is None and j <= i:
                continue
            _, b0, a1, b1 = other[j]
            if a1 > x0 + EPS and b1 > y0 + EPS and b0 < y1 - EPS:
                out.append((i, j))
    return out


def label_problems(d: Drawing) -> list[str]:
    """What is wrong with ``d.labels`` (empty: nothing)."""
    labels = d.labels
    boxes = d.boxes
    problems: list[str] = []
    titles = {owner: text for owner, text, _ in labels if owner in boxes and not
              text.startswith("+")}
    for n in d.nodes:
        if n.text.title and titles.get(n.key) != n.text.title:
            problems.append(f"title of {n.key!r} missing")
    r = np.array([(x, y, x + w, y + h) for _, _, (x, y, w, h) in labels]).reshape(-1, 4)
    for i, j in _pairs(r):
        problems.append(f"labels overlap: {labels[i][:2]} and {labels[j][:2]}")
    keys = list(boxes)
    b = np.array([(x, y, x + w, y + h) for x, y, w, h in boxes.values()]).reshape(-1, 4)
    for i, j in _pairs(r, b):
        if labels[i][0] != keys[j]:
            problems.append(f"label {labels[i][:2]} overlaps box {keys[j]!r}")
    # every edge label is placed, or counted in its consumer's badge
    placed = {owner for owner, _, _ in labels if isinstance(owner, tuple)}
    badged = {owner: int(text[1:]) for owner, text, _ in labels
              if owner in boxes and text.startswith("+") and text[1:].isdigit()}
    missing: dict[Any, int] = {}
    for (src, dst, _), text in zip(d.edges, d.edge_labels, strict=True):
        if text and (src, dst) not in placed:
            missing[src] = missing.get(src, 0) + 1
    for src, k in missing.items():
        if badged.get(src) != k:
            problems.append(f"{k} labels into {src!r} neither placed nor counted")
    return problems


def labels_on_own_edge(d: Drawing) -> list[Any]:
    """The edge labels whose rectangle does not touch their own edge's polyline."""
    lines = {(s, t): np.asarray(p) for s, t, p in d.edges}
    off = []
    for owner, _, (x, y, w, h) in d.labels:
        if not isinstance(owner, tuple):
            continue
        p = lines[owner]
        a, b = p[:-1], p[1:]
        # sample each piece: some point of it inside the rectangle
        t = np.linspace(0.0, 1.0, 1025)[:, None, None]
        pts = (a + (b - a) * t).reshape(-1, 2)
        inside = ((pts[:, 0] >= x - EPS) & (pts[:, 0] <= x + w + EPS)
                  & (pts[:, 1] >= y - EPS) & (pts[:, 1] <= y + h + EPS))
        if not inside.any():
            off.append(owner)
    return off


# ---------------------------------------------------------------------------------------------
# the models (small)


def lstm() -> tuple[torch.Tensor, dict[str, Any]]:
    torch.manual_seed(0)
    net = nn.LSTM(4, 8)
    out, _ = net(torch.randn(3, 1, 4))
    loss = out.sum()
    return loss, {**{f"net.{k}": v for k, v in net.named_parameters()}, "loss": loss}


def gru() -> tuple[torch.Tensor, dict[str, Any]]:
    torch.manual_seed(0)
    net = nn.GRU(4, 8)
    out, _ = net(torch.randn(3, 1, 4))
    loss = out.sum()
    return loss, {**{f"net.{k}": v for k, v in net.named_parameters()}, "loss": loss}


def transformer() -> tuple[torch.Tensor, dict[str, Any]]:
    torch.manual_seed(0)
    net = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0)
    loss = net(torch.randn(3, 1, 8)).sum()
    return loss, {**{f"net.{k}": v for k, v in net.named_parameters()}, "loss": loss}


def cnn() -> tuple[torch.Tensor, dict[str, Any]]:
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                        nn.Linear(2 * 3 * 3, 3))
    loss = nn.functional.cross_entropy(net(torch.randn(2, 1, 8, 8)), torch.tensor([0, 2]))
    return loss, {**{f"net.{k}": v for k, v in net.named_parameters()}, "loss": loss}


def tied() -> tuple[torch.Tensor, dict[str, Any]]:
    torch.manual_seed(0)
    emb = nn.Embedding(10, 4)
    head = nn.Linear(4, 10, bias=False)
    head.weight = emb.weight
    loss = head(emb(torch.tensor([1, 2]))).sum()
    return loss, {"emb.weight": emb.weight, "loss": loss}


def loop50() -> tuple[torch.Tensor, dict[str, Any]]:
    torch.manual_seed(0)
    w = torch.randn(16, 16, requires_grad=True)
    u = torch.randn(8, 16, requires_grad=True)
    b = torch.zeros(16, requires_grad=True)
    xs = torch.randn(50, 8)
    h = torch.zeros(16)
    for t in range(50):
        h = torch.tanh(h @ w + xs[t] @ u + b)
    loss = h.sum()
    return loss, {"W": w, "U": u, "b": b, "loss": loss}


def lstm_cell_loop() -> tuple[torch.Tensor, dict[str, Any]]:
    torch.manual_seed(0)
    cell = nn.LSTMCell(4, 8)
    h, c = torch.zeros(1, 8), torch.zeros(1, 8)
    for x in torch.randn(6, 1, 4):
        h, c = cell(x, (h, c))
    loss = h.sum()
    return loss, {**{f"cell.{k}": v for k, v in cell.named_parameters()}, "loss": loss}


MODELS: dict[str, Callable[[], tuple[torch.Tensor, dict[str, Any]]]] = {
    "lstm": lstm, "gru": gru, "transformer": transformer, "cnn": cnn, "tied": tied,
    "loop50": loop50, "lstm_cell_loop": lstm_cell_loop,
}


def drawings(make: Callable[[], tuple[torch.Tensor, dict[str, Any]]], scale: float = 1.0
             ) -> dict[str, Drawing]:
    """The model's drawing folded and expanded, before and after backward."""
    root, names = make()
    graph = trace(root, names)
    m = estimate_metrics(scale)
    out = {}
    for how in ("first", "all"):
        shown: Graph | CollapsedGraph = first_view(graph) if how == "first" else graph
        labels, kinds = edge_texts(shown, graph, None)
        out[how] = compute_drawing(shown, node_texts(shown, graph), labels, kinds, m)
    record = tx.backward(root, names=names, graph=graph, retain_graph=True)
    for how in ("first", "all"):
        shown = first_view(graph) if how == "first" else graph
        labels, kinds = edge_texts(shown, graph, edge_norms(record), bundle_norms(shown, record))
        assert any("\n" in t for t in labels.values())  # a gradient line under the shape
        out[how + "+backward"] = compute_drawing(shown, node_texts(shown, graph), labels, kinds,
                                                 m)
    return out


# ---------------------------------------------------------------------------------------------
# tests


@pytest.mark.parametrize("scale", [1.0, 1.6], ids=["normal", "presentation"])
@pytest.mark.parametrize("model", sorted(MODELS))
def test_labels_of_real_models_never_overlap(model: str, scale: float) -> None:
    for how, d in drawings(MODELS[model], scale).items():
        assert label_problems(d) == [], (model, how)
        assert labels_on_own_edge(d) == [], (model, how)
        # a model this small has room for every label: no badge
        assert d.badges == [], (model, how, d.badges)


def test_the_50_step_loop_labels_converging_edges_apart() -> None:
    """The issue's example: "(16,) × 49" lay under "(16, 16) × 49" and "(8, 16) × 49"."""
    d = tx.layout(trace(*loop50()))
    texts = [t for _, t, _ in d.labels]
    for want in ("(16, 16) × 49", "(8, 16) × 49", "(16,) × 49"):
        assert want in texts
    assert label_problems(d) == []


def test_tx_layout_labels_follow_the_contract() -> None:
    root, names = tied()
    d = tx.layout(tx.trace(root, names))
    boxes = d.boxes
    for owner, text, rect in d.labels:
        assert owner in boxes or (isinstance(owner, tuple) and len(owner) == 2)
        assert isinstance(text, str) and text
        assert len(rect) == 4 and rect[2] > 0 and rect[3] > 0
    assert label_problems(d) == []


def test_labels_are_placed_again_after_the_texts_change() -> None:
    """A big graph keeps its geometry after backward; its labels (now two lines) are placed
    again in the gaps it has: still none overlapping, the ones without room in a badge."""
    root, names = loop50()
    graph = trace(root, names)
    d = tx.layout(graph, "all")
    record = tx.backward(root, names=names, graph=graph)
    labels, _ = edge_texts(graph, graph, edge_norms(record))
    d.place_labels([labels.get(k, "") for k in d.edge_keys])
    assert any("\n" in t for _, t, _ in d.labels)
    assert label_problems(d) == []
    # with the pane's own sizes (here: wider), the same
    m = d.metrics
    d.place_labels(size=lambda t: (label_size(t, m)[0] * 1.3, label_size(t, m)[1]))
    assert label_problems(d) == []


def test_labels_without_room_give_way_to_a_badge() -> None:
    """Edges converging on one op whose labels cannot all fit in the gap's rows: the rest are
    counted in a "+N" badge over the op, which overlaps nothing either."""
    xs = [torch.randn(3, requires_grad=True) for _ in range(12)]
    y = torch.stack(xs).sum()
    names: dict[str, Any] = {f"x{i}": x for i, x in enumerate(xs)}
    graph = trace(y, names)
    d = tx.layout(graph, "all")
    assert label_problems(d) == []
    # squeeze: labels five times as wide cannot all lie on their edges
    m = d.metrics
    d.place_labels(size=lambda t: (label_size(t, m)[0] * 5, label_size(t, m)[1]))
    assert label_problems(d) == []
    assert d.badges and d.badges[0][1].startswith("+")


@dataclass
class Dag:
    """What :func:`compute_drawing` reads of a graph: nodes with ids, and edges."""

    nodes: list[SimpleNamespace]
    edges: list[tuple[int, int]]


@st.composite
def dags(draw: st.DrawFn) -> Dag:
    """A random DAG with a root (0) reaching every node: ops read earlier ops or leaves."""
    n = draw(st.integers(2, 24))
    kinds = ["root"]
    edges: list[tuple[int, int]] = []
    for i in range(1, n):
        kinds.append("leaf" if draw(st.booleans()) else "op")
        ops = [k for k in range(i) if kinds[k] != "leaf"]
        for p in draw(st.lists(st.sampled_from(ops), min_size=1, max_size=3, unique=True)):
            edges.append((p, i))
    nodes = [SimpleNamespace(id=i, kind=k, label="AccumulateGrad" if k == "leaf"
                             else f"Op{i}Backward0") for i, k in enumerate(kinds)]
    return Dag(nodes, edges)


@settings(max_examples=60, deadline=None)
@given(dags(), st.data())
def test_labels_of_random_graphs_never_overlap(graph: Dag, data: st.DataObject) -> None:
    texts = {n.id: NodeText(n.label, ["(2, 3) float32"], n.kind) for n in graph.nodes}
    labels = {e: data.draw(st.sampled_from(["(3,)", "(16, 16) × 49", "(2, 3)\n‖∇‖ = 1.5e+00",
                                            "", "(128, 128, 3)"])) for e in graph.edges}
    d = compute_drawing(graph, texts, labels, {}, estimate_metrics())
    assert label_problems(d) == []
    assert labels_on_own_edge(d) == []
