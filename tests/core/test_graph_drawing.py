"""core/graph_drawing and ``tx.layout``: the picture of a graph as data, checked geometrically.

For real torch graphs (an RNN loop, an MLP, ``x * x``, split/cat, a diamond), collapsed and not:
every edge has exactly one polyline and every original edge is accounted for; each polyline runs
from its src's box boundary to its dst's; no straight piece of any polyline enters any box (an
exact segment/rectangle test, stricter than the contract, which allows the two ends); boxes do
not overlap; a weight shared by every step of a loop shows an edge into each step. Also the
margin lanes (when buses would be too many points), the cut edges of constants, and the
structure of a 20k-node drawing (no timing asserted).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from torch import nn

import tensor_explorer as tx
from tensor_explorer.core import graph_layout
from tensor_explorer.core.autograd import Graph, trace
from tensor_explorer.core.graph_drawing import (
    Drawing,
    NodeText,
    compute_drawing,
    estimate_metrics,
)
from tensor_explorer.core.graph_layout import BUS, LANE, CollapsedGraph, collapse, place
from tensor_explorer.core.graph_session import COLLAPSE_ABOVE, layout
from tensor_explorer.core.graph_texts import node_texts

EPS = 1e-6


# ---------------------------------------------------------------------------------------------
# geometry


def _rects(d: Drawing) -> np.ndarray:
    """(N, 4) x0, y0, x1, y1 of every box, in ``d.nodes`` order."""
    return np.array([(n.x - n.w / 2, n.y - n.h / 2, n.x + n.w / 2, n.y + n.h / 2)
                     for n in d.nodes]).reshape(-1, 4)


def _grid_pairs(a: np.ndarray, b: np.ndarray, cw: float, ch: float) -> tuple[np.ndarray,
                                                                              np.ndarray]:
    """Candidate pairs ``(i, j)`` of rectangles ``a[i]``, ``b[j]`` (x0, y0, x1, y1) that share
    a cell of a ``cw`` x ``ch`` grid (every pair that meets is among them)."""

    def cells(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        gx0 = np.floor(np.minimum(r[:, 0], r[:, 2]) / cw).astype(np.int64)
        gx1 = np.floor(np.maximum(r[:, 0], r[:, 2]) / cw).astype(np.int64)
        gy0 = np.floor(np.minimum(r[:, 1], r[:, 3]) / ch).astype(np.int64)
        gy1 = np.floor(np.maximum(r[:, 1], r[:, 3]) / ch).astype(np.int64)
        nx = gx1 - gx0 + 1
        cnt = nx * (gy1 - gy0 + 1)
        item = np.repeat(np.arange(len(r)), cnt)
        k = np.arange(int(cnt.sum())) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        gx = gx0[item] + k % nx[item]
        gy = gy0[item] + k // nx[item]
        return item, (gx + (1 << 24)) * (1 << 26) + (gy + (1 << 24))

    ia, ka = cells(a)
    ib, kb = cells(b)
    o = np.argsort(kb, kind="stable")
    kb, ib = kb[o], ib[o]
    lo = np.searchsorted(kb, ka, side="left")
    cnt = np.searchsorted(kb, ka, side="right") - lo
    i = np.repeat(ia, cnt)
    j = ib[np.repeat(lo, cnt) + np.arange(int(cnt.sum())) - np.repeat(np.cumsum(cnt) - cnt, cnt)]
    code = np.unique(i * len(b) + j)
    return code // len(b), code % len(b)


def _segment_enters(seg: np.ndarray, box: np.ndarray) -> np.ndarray:
    """Whether each segment ``x1, y1, x2, y2`` meets the interior of its box (x0, y0, x1, y1)
    shrunk by EPS (Liang-Barsky clipping: exact for any slope)."""
    x0, y0 = box[:, 0] + EPS, box[:, 1] + EPS
    x1, y1 = box[:, 2] - EPS, box[:, 3] - EPS
    ax, ay = seg[:, 0], seg[:, 1]
    dx, dy = seg[:, 2] - ax, seg[:, 3] - ay
    t0 = np.zeros(len(seg))
    t1 = np.ones(len(seg))
    ok = (x0 < x1) & (y0 < y1)
    for p, q in ((-dx, ax - x0), (dx, x1 - ax), (-dy, ay - y0), (dy, y1 - ay)):
        flat = np.abs(p) < 1e-12
        ok &= ~(flat & (q <= 0))  # parallel to this side and outside it
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(flat, 0.0, q / np.where(flat, 1.0, p))
        t0 = np.where(~flat & (p < 0), np.maximum(t0, r), t0)
        t1 = np.where(~flat & (p > 0), np.minimum(t1, r), t1)
    return ok & (t0 < t1 - 1e-12)


def _merged_verticals(seg: np.ndarray) -> np.ndarray:
    """The same lines with overlapping vertical pieces on one x merged (edges sharing a bus
    overlap; checking each copy would be quadratic)."""
    vert = np.abs(seg[:, 0] - seg[:, 2]) < 1e-9
    v = seg[vert]
    lo = np.minimum(v[:, 1], v[:, 3])
    hi = np.maximum(v[:, 1], v[:, 3])
    o = np.lexsort((lo, v[:, 0]))
    x, lo, hi = v[o, 0], lo[o], hi[o]
    out = []
    for xs in np.unique(x):
        sel = x == xs
        cur_lo = cur_hi = None
        for a, b in zip(lo[sel].tolist(), hi[sel].tolist(), strict=True):
            if cur_hi is None or a > cur_hi:
                if cur_hi is not None:
                    out.append((xs, cur_lo, xs, cur_hi))
                cur_lo, cur_hi = a, b
            else:
                cur_hi = max(cur_hi, b)
        out.append((xs, cur_lo, xs, cur_hi))
    return np.r_[seg[~vert], np.asarray(out).reshape(-1, 4)]


def entered_boxes(d: Drawing, *, merge: bool = False) -> list[tuple[Any, Any]]:
    """``(edge key, box key)`` for each piece of a polyline that enters a box, any box (with
    ``merge``: the union of all lines, against every box)."""
    rects = _rects(d)
    seg, owner = d.segments, d.segment_edges
    if merge:
        seg = _merged_verticals(seg)
        owner = np.full(len(seg), -1)
    if not len(seg) or not len(rects):
        return []
    cw = float(np.median(rects[:, 2] - rects[:, 0])) * 2
    ch = float(np.median(rects[:, 3] - rects[:, 1])) * 2
    i, j = _grid_pairs(seg, rects, cw, ch)
    hit = _segment_enters(seg[i], rects[j])
    return [(d.edge_keys[owner[a]] if owner[a] >= 0 else None, d.nodes[b].key)
            for a, b in zip(i[hit].tolist(), j[hit].tolist(), strict=True)]


def overlapping_boxes(d: Drawing) -> list[tuple[Any, Any]]:
    rects = _rects(d)
    cw = float(np.median(rects[:, 2] - rects[:, 0])) * 2
    ch = float(np.median(rects[:, 3] - rects[:, 1])) * 2
    i, j = _grid_pairs(rects, rects, cw, ch)
    keep = i < j
    i, j = i[keep], j[keep]
    a, b = rects[i], rects[j]
    meet = ((np.minimum(a[:, 2], b[:, 2]) - np.maximum(a[:, 0], b[:, 0]) > EPS)
            & (np.minimum(a[:, 3], b[:, 3]) - np.maximum(a[:, 1], b[:, 1]) > EPS))
    return [(d.nodes[p].key, d.nodes[q].key)
            for p, q in zip(i[meet].tolist(), j[meet].tolist(), strict=True)]


def on_boundary(p: tuple[float, float], box: tuple[float, float, float, float]) -> bool:
    x, y = p
    x0, y0, w, h = box
    x1, y1 = x0 + w, y0 + h
    inside = x0 - EPS <= x <= x1 + EPS and y0 - EPS <= y <= y1 + EPS
    return inside and min(abs(x - x0), abs(x - x1), abs(y - y0), abs(y - y1)) <= 1e-6


def rep_of(shown: Graph | CollapsedGraph) -> dict[int, int]:
    """Original node id -> the key of the box that shows it."""
    rep = {n.id: n.id for n in (shown.source if isinstance(shown, CollapsedGraph)
                                else shown).nodes}
    if isinstance(shown, CollapsedGraph):
        for gid, members in shown.groups.items():
            for m in members:
                rep[m] = gid
    return rep


def check_drawing(graph: Graph, shown: Graph | CollapsedGraph, d: Drawing, *,
                  merge: bool = False) -> None:
    """(a) one polyline per shown edge, every original edge accounted for; (b) polylines from
    src's box boundary to dst's; (c) no piece of a polyline inside a box; (e) no overlapping
    boxes; labels on their polylines, outside every box."""
    boxes = d.boxes
    assert set(boxes) == {n.id for n in shown.nodes}
    # (a)
    drawn = [(s, t) for s, t, _ in d.edges]
    assert len(drawn) == len(set(drawn)) == len(shown.edges)
    assert set(drawn) == set(shown.edges)
    rep = rep_of(shown)
    groups = {g: set(ms) for g, ms in d.groups.items()}
    drawn_set = set(drawn)
    for e in graph.edges:
        a, b = rep[e[0]], rep[e[1]]
        if a == b:  # folded inside a group
            assert a in groups and e[0] in groups[a] and e[1] in groups[a]
        else:
            assert (a, b) in drawn_set
            if isinstance(shown, CollapsedGraph):
                assert e in shown.originals((a, b))
    # (b)
    for s, t, line in d.edges:
        assert len(line) >= 2
        assert on_boundary(line[0], boxes[s]), (s, t, line[0], boxes[s])
        assert on_boundary(line[-1], boxes[t]), (s, t, line[-1], boxes[t])
    # (c), (e)
    assert entered_boxes(d, merge=merge) == []
    assert overlapping_boxes(d) == []
    # labels: on the polyline, in a gap
    if not merge:
        lp = d.label_points
        rects = _rects(d)
        for i in range(len(d.edge_keys)):
            x, y = lp[i]
            pts = d.polyline(i)
            p0, p1 = pts[:-1], pts[1:]
            ab = p1 - p0
            t = np.clip(((x - p0[:, 0]) * ab[:, 0] + (y - p0[:, 1]) * ab[:, 1])
                        / np.maximum((ab * ab).sum(axis=1), 1e-12), 0, 1)
            dist = np.hypot(p0[:, 0] + t * ab[:, 0] - x, p0[:, 1] + t * ab[:, 1] - y)
            assert dist.min() < 1e-6
            assert not ((rects[:, 0] < x) & (x < rects[:, 2])
                        & (rects[:, 1] < y) & (y < rects[:, 3])).any()


# ---------------------------------------------------------------------------------------------
# graphs


def rnn(steps: int) -> tuple[Graph, int]:
    """``h = tanh(h @ W + x[t])`` for ``steps`` steps; the graph and W's node id."""
    torch.manual_seed(0)
    w = torch.randn(4, 4, requires_grad=True)
    x = torch.randn(steps, 4, requires_grad=True)
    h = torch.zeros(1, 4)
    for t in range(steps):
        h = torch.tanh(h @ w + x[t])
    loss = h.sum()
    graph = trace(loss, {"W": w, "x": x, "loss": loss})
    return graph, next(n.id for n in graph.nodes if n.tensor == "W")


def mlp() -> Graph:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    x, target = torch.randn(5, 4), torch.randn(5, 2)
    loss = nn.functional.mse_loss(model(x), target)
    names: dict[str, Any] = dict(model.named_parameters())
    names["loss"] = loss
    return trace(loss, names)


def square() -> Graph:
    x = torch.randn(3, requires_grad=True)
    y = (x * x).sum()
    return trace(y, {"x": x, "y": y})


def split_cat() -> Graph:
    x = torch.randn(6, requires_grad=True)
    a, b, c = x.split(2)
    y = torch.cat([c * 2, a, b.exp()]).sum()
    return trace(y, {"x": x, "y": y})


def diamond() -> Graph:
    x = torch.randn(3, requires_grad=True)
    a = x * 2
    y = (a.sin() + a.cos() * x).sum()  # and x read again further down
    return trace(y, {"x": x, "a": a, "y": y})


def shown_for(graph: Graph, expanded: Any) -> Graph | CollapsedGraph:
    if expanded == "all":
        return graph
    if expanded is None:
        return collapse(graph) if len(graph) > COLLAPSE_ABOVE else graph
    return collapse(graph, expanded=expanded)


# ---------------------------------------------------------------------------------------------
# tests


def test_tx_layout_is_public_and_returns_the_drawing() -> None:
    assert "layout" in tx.__all__
    graph, _ = rnn(5)
    d = tx.layout(graph)
    assert isinstance(d, Drawing)
    _, y, w, h = d.boxes[0]  # the root: at the bottom
    assert w > 0 and h > 0
    assert y == max(b[1] for b in d.boxes.values())
    with pytest.raises(ValueError):
        tx.layout(graph, "everything")  # type: ignore[arg-type]


@pytest.mark.parametrize("expanded", ["all", None])
def test_rnn_of_five_steps_shows_an_edge_from_each_step_into_w(expanded: Any) -> None:
    graph, w = rnn(5)
    d = layout(graph, expanded)
    shown = shown_for(graph, expanded)
    assert len(graph) <= COLLAPSE_ABOVE and not d.groups  # small: shown whole
    check_drawing(graph, shown, d)
    into_w = [(s, line) for s, t, line in d.edges if t == w]
    users = {s for s, t in graph.edges if t == w}
    assert len(into_w) == 5 and {s for s, _ in into_w} == users
    assert {graph.nodes[s].label for s in users} == {"MmBackward0"}
    _, wy, _, wh = d.boxes[w]
    for _, line in into_w:  # each ends at W's bottom, coming from below
        assert line[-1][1] == pytest.approx(wy + wh)
        assert line[-2][1] > line[-1][1] - 1e-9
    # the edges that skip rows run along W's bus: one vertical line for all of them
    p = place(graph)
    routed = p.route[[i for i, e in enumerate(graph.edges) if e[1] == w]]
    assert (routed == BUS).sum() >= 3 and p.bus[p.ids.index(w)] >= 0


def test_rnn_of_48_steps_first_view_is_folded_and_still_shows_every_use_of_w() -> None:
    graph, w = rnn(48)
    assert len(graph) > COLLAPSE_ABOVE
    d = layout(graph)
    shown = collapse(graph)
    check_drawing(graph, shown, d)
    assert d.groups and set(d.groups) == set(shown.groups)
    assert len(d.boxes) < 20
    # every op that reads W is drawn with an edge into W: its own, or its group's (bundled)
    rep = rep_of(shown)
    into_w = {s for s, t, _ in d.edges if t == w}
    assert {rep[s] for s, t in graph.edges if t == w} == into_w
    bundled = [e for e in shown.bundles if e[1] == w]
    assert bundled
    labels = dict(zip(d.edge_keys, d.edge_labels, strict=True))
    for e in bundled:
        assert labels[e].endswith(f" × {len(shown.bundles[e])}")
    titles = {n.text.title for n in d.nodes}
    assert any(t.endswith("× 4 ops") for t in titles)


def test_rnn_of_48_steps_expanded() -> None:
    graph, w = rnn(48)
    d = layout(graph, "all")
    check_drawing(graph, graph, d)
    into_w = [s for s, t, _ in d.edges if t == w]
    assert len(into_w) == len(set(into_w)) == 48
    # opening the run: its blocks, each with an edge into W
    run = next(g for g, i in collapse(graph).info.items() if i.kind == "repeat")
    opened = collapse(graph, expanded={run})
    d2 = layout(graph, {run})
    check_drawing(graph, opened, d2)
    blocks = [g for g, i in opened.info.items() if i.kind == "block"]
    assert len(blocks) > 10
    assert {s for s, t, _ in d2.edges if t == w} >= set(blocks)


@pytest.mark.parametrize("make", [mlp, square, split_cat, diamond])
def test_small_graphs(make: Any) -> None:
    graph = make()
    d = layout(graph)
    check_drawing(graph, graph, d)
    assert len(d.edges) == len(graph.edges)


def test_every_input_is_above_the_ops_that_read_it() -> None:
    graph = mlp()
    d = layout(graph)
    for s, t in graph.edges:
        assert d.boxes[t][1] + d.boxes[t][3] < d.boxes[s][1]


def test_lanes_round_the_drawing_when_buses_would_be_too_many(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(graph_layout, "DUMMIES_PER_NODE", 0)
    graph, w = rnn(12)
    p = place(graph)
    assert p.dummies == 0 and (p.route == LANE).any()
    d = layout(graph)
    check_drawing(graph, graph, d)
    into_w = [line for s, t, line in d.edges if t == w]
    assert len(into_w) == 12
    left = min(x for x, _, _, _ in d.boxes.values())
    assert min(min(x for x, _ in line) for line in into_w) < left  # through the margin


def test_cut_edges_of_constants_enter_no_box() -> None:
    graph, w = rnn(5)
    texts = node_texts(graph, graph)
    mids = [n.id for n in graph.nodes if n.label == "TanhBackward0"]
    consts = [("c", NodeText("c", ["constant"], "const"), [mids[0], w]),
              ("d", NodeText("d", ["constant"], "const"), [0])]
    d = compute_drawing(graph, texts, {}, {}, estimate_metrics(), constants=consts)
    cuts = [k for k in d.edge_keys if k[0] == "cut"]
    assert set(cuts) == {("cut", mids[0], "c"), ("cut", w, "c"), ("cut", 0, "d")}
    assert entered_boxes(d) == [] and overlapping_boxes(d) == []
    boxes = d.boxes
    for s, t, line in d.edges:
        assert on_boundary(line[0], boxes[s]) and on_boundary(line[-1], boxes[t])
    right = max(boxes[n.id][0] + boxes[n.id][2] for n in graph.nodes)
    assert all(boxes[f"const:{c}"][0] > right for c in "cd")


def build(n_nodes: int) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Like bench/bench_graph.py: small ops in a loop, eight leaves read all the way down."""
    g = torch.Generator().manual_seed(0)
    leaves = [torch.randn(16, generator=g).requires_grad_(True) for _ in range(8)]
    h = leaves[0] * 0.5
    made, i = 10, 0
    while made < n_nodes:
        w = leaves[i % 8]
        kind = i % 5
        if kind == 0:
            h = h * w
        elif kind == 1:
            h = h + w
        elif kind == 2:
            h = torch.tanh(h)
        elif kind == 3:
            h = h + torch.sin(h)
            made += 1
        else:
            h = h * 0.9
        made += 1
        i += 1
    names = {f"w{k}": t for k, t in enumerate(leaves)}
    names["out"] = h.sum()
    return names["out"], names


def test_twenty_thousand_nodes_every_edge_drawn_and_no_box_entered() -> None:
    root, names = build(20_000)
    graph = trace(root, names, saved=False)
    assert len(graph) >= 20_000
    d = layout(graph, "all")
    check_drawing(graph, graph, d, merge=True)
    # a leaf read at every depth: a polyline into it from each op that reads it, along a bus
    leaf = next(n.id for n in graph.nodes if n.tensor == "w3")
    into = [s for s, t, _ in d.edges if t == leaf]
    assert len(into) == sum(1 for _, t in graph.edges if t == leaf) > 100
    assert int(np.diff(d.offsets).max()) <= 6  # a bounded number of points per edge
    folded = layout(graph)
    check_drawing(graph, collapse(graph), folded)
    assert len(folded.boxes) < 100
