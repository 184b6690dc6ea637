"""Layered layout of autograd graphs, and chain collapsing, as pure functions (no Qt).

:func:`layout` places a :class:`~tensor_explorer.core.autograd.Graph` (or a
:class:`CollapsedGraph`) as a layered DAG: leaves on the top row, the root alone on the bottom
row. It is the Sugiyama recipe cut down to what stays near-linear in the number of edges:

1. longest-path layering (a node sits one row below its lowest input), one pass in
   topological order;
2. a few barycentre ordering sweeps, each done for all rows at once with NumPy (every node
   moves to the mean position of its neighbours, then each row is re-ranked by a single sort);
3. compact coordinates: each node is pulled to the mean x of its neighbours and each row is
   packed left-to-right and right-to-left with a segmented cumulative maximum (keeping the
   order and the minimum gaps), the two passes averaged.

No dummy nodes are inserted for long edges (an edge from a leaf on the top row to an operation
far below is drawn straight), which is what keeps it linear: 20k nodes lay out in well under a
second. The pane calls it from a worker thread; ``cancel`` lets it give up between phases.

Coordinates are abstract units: ``node_gap`` between neighbours in a row (plus their widths,
when given), ``layer_gap`` between rows; y grows downwards (Qt scene convention), so the top row
(leaves) is y = 0.

:func:`collapse_chains` replaces runs of single-input / single-output operation nodes by one
group node each (kind ``"group"``), which the pane can expand again by id.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from .autograd import Graph, Node

__all__ = [
    "CollapsedGraph",
    "LayoutCancelled",
    "collapse_chains",
    "layers",
    "layout",
]


class GraphLike(Protocol):
    """What :func:`layout` needs: nodes with an ``id`` and ``(src, dst)`` edges."""

    @property
    def nodes(self) -> Sequence[Node]: ...  # pragma: no cover - protocol

    @property
    def edges(self) -> Sequence[tuple[int, int]]: ...  # pragma: no cover - protocol


class LayoutCancelled(Exception):
    """Raised by :func:`layout` when its ``cancel()`` callback returned True."""


def _index(graph: GraphLike) -> tuple[list[int], np.ndarray, np.ndarray]:
    ids = [n.id for n in graph.nodes]
    pos = {nid: i for i, nid in enumerate(ids)}
    if graph.edges:
        e = np.array([(pos[s], pos[d]) for s, d in graph.edges], dtype=np.int64)
        src, dst = e[:, 0], e[:, 1]
    else:
        src = dst = np.zeros(0, dtype=np.int64)
    return ids, src, dst


def _layers_idx(n: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Longest-path layer of each node index: 0 for nodes without inputs (leaves), else one
    more than the highest layer among its ``next_functions``."""
    children_count = np.bincount(src, minlength=n).tolist()
    order = np.argsort(dst, kind="stable")
    dst_sorted = dst[order]
    parents_flat = src[order].tolist()
    starts = np.searchsorted(dst_sorted, np.arange(n + 1)).tolist()
    layer = [0] * n
    stack = [v for v in range(n) if children_count[v] == 0]
    done = 0
    while stack:
        v = stack.pop()
        done += 1
        lv = layer[v] + 1
        for k in range(starts[v], starts[v + 1]):
            p = parents_flat[k]
            if layer[p] < lv:
                layer[p] = lv
            children_count[p] -= 1
            if children_count[p] == 0:
                stack.append(p)
    if done < n:  # a cycle (not from autograd): put what is left below everything else
        top = max(layer, default=0) + 1
        for v in range(n):
            if children_count[v] > 0:
                layer[v] = top
    return np.asarray(layer, dtype=np.int64)


def layers(graph: GraphLike) -> dict[int, int]:
    """``{node_id: row}``: row 0 holds the leaves (top), the root is on the last row."""
    ids, src, dst = _index(graph)
    lay = _layers_idx(len(ids), src, dst)
    return dict(zip(ids, lay.tolist(), strict=True))


def _rank_within(layer: np.ndarray, key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sort nodes by (layer, key); return the order and each node's rank within its layer."""
    order = np.lexsort((key, layer))
    lay_sorted = layer[order]
    first = np.searchsorted(lay_sorted, lay_sorted, side="left")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size) - first
    return order, rank


def _neighbour_mean(
    x: np.ndarray, a: np.ndarray, b: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """Mean of x over the ``b`` ends of edges (a, b), for each node ``a``; and the counts."""
    sums = np.bincount(a, weights=x[b], minlength=n)
    counts = np.bincount(a, minlength=n)
    return sums, counts


def _pack(
    order: np.ndarray, lay_sorted: np.ndarray, desired: np.ndarray, sep: np.ndarray
) -> np.ndarray:
    """Closest order-keeping placement to ``desired`` with gaps >= ``sep`` in each row.

    ``order`` sorts nodes by (row, rank); ``sep[k]`` is the minimum distance between sorted
    node ``k`` and the one before it in the same row (0 at a row's start). Returns x per node.
    """
    m = order.size
    if m == 0:
        return np.zeros(0)
    d = desired[order]
    starts = np.r_[True, lay_sorted[1:] != lay_sorted[:-1]]
    seg = np.cumsum(starts) - 1
    csum = np.cumsum(sep)
    c = csum - csum[np.flatnonzero(starts)][seg]  # offset of each node from its row's start
    span = float(np.ptp(d) + c.max() + 1.0)

    def left_pass(dd: np.ndarray, cc: np.ndarray, sg: np.ndarray) -> np.ndarray:
        big = sg * (2.0 * span)  # rows never influence each other in the running maximum
        return cc + np.maximum.accumulate(dd - cc + big) - big

    xl = left_pass(d, c, seg)
    # right-to-left: mirror the coordinates and the order
    rev = slice(None, None, -1)
    seg_r = seg.max() - seg[rev]
    row_total = c[np.r_[starts[1:], True]][seg]  # offset of the last node of each row
    c_r = (row_total - c)[rev]  # offsets from the row's end, in reversed order
    xr = -left_pass(-d[rev], c_r, seg_r)[rev]
    out = np.empty(m)
    out[order] = (xl + xr) / 2.0
    return out


def _sweep(
    order: np.ndarray,
    lay: np.ndarray,
    src: np.ndarray,
    dst: np.ndarray,
    sweeps: int,
    check: Callable[[], None],
) -> np.ndarray:
    """Barycentre ordering, row by row (each row sees the rows already placed in this sweep).

    Even sweeps go from the root's row up to the leaves, ordering each row by the mean position
    of the nodes that consume it; odd sweeps go down, by the mean position of their inputs.
    Neighbours on any row count (long edges included), which needs no dummy nodes. Pure Python
    lists: one sweep costs O(nodes + edges) plus sorting each row.
    """
    n = lay.size
    if sweeps <= 0 or n == 0:
        return order
    n_rows = int(lay.max()) + 1
    lay_l = lay.tolist()
    rows: list[list[int]] = [[] for _ in range(n_rows)]
    for v in order.tolist():
        rows[lay_l[v]].append(v)
    consumers: list[list[int]] = [[] for _ in range(n)]
    inputs: list[list[int]] = [[] for _ in range(n)]
    for s_, d_ in zip(src.tolist(), dst.tolist(), strict=True):
        consumers[d_].append(s_)
        inputs[s_].append(d_)
    x = [0.0] * n

    def place(row: list[int]) -> None:
        off = (len(row) - 1) / 2.0
        for k, v in enumerate(row):
            x[v] = k - off

    for row in rows:
        place(row)
    for sweep in range(sweeps):
        if sweep % 2 == 0:
            row_ids: range = range(n_rows - 1, -1, -1)
            nbrs = consumers
        else:
            row_ids = range(n_rows)
            nbrs = inputs
        for r in row_ids:
            row = rows[r]
            if len(row) < 2:
                continue
            keyed = []
            for v in row:
                ns = nbrs[v]
                b = sum([x[u] for u in ns]) / len(ns) if ns else x[v]
                keyed.append((b, x[v], v))
            keyed.sort()
            row[:] = [v for _, _, v in keyed]
            place(row)
        check()
    return np.fromiter((v for row in rows for v in row), dtype=np.int64, count=n)


def layout(
    graph: GraphLike,
    *,
    sweeps: int = 4,
    node_gap: float = 1.0,
    layer_gap: float = 1.0,
    widths: Mapping[int, float] | None = None,
    cancel: Callable[[], bool] | None = None,
) -> dict[int, tuple[float, float]]:
    """Positions ``{node_id: (x, y)}`` of a layered drawing of ``graph``.

    Leaves (no inputs) are on the top row (y = 0), the root alone on the bottom row; x starts
    at 0. See the module docstring for the method.

    Args:
        graph: a :class:`Graph` or :class:`CollapsedGraph` (anything with ``nodes`` having
            ``id`` and ``edges`` of ``(src, dst)`` ids).
        sweeps: barycentre ordering sweeps (each alternates looking up and down).
        node_gap: minimum free space between two nodes of a row.
        layer_gap: distance between rows.
        widths: optional node widths by id (default 0): neighbours are kept
            ``(w_a + w_b) / 2 + node_gap`` apart, centre to centre.
        cancel: called between phases; when it returns True, :class:`LayoutCancelled` is
            raised.
    """

    def check() -> None:
        if cancel is not None and cancel():
            raise LayoutCancelled

    ids, src, dst = _index(graph)
    n = len(ids)
    if n == 0:
        return {}
    lay = _layers_idx(n, src, dst)
    check()

    # initial order: id order (breadth-first from the root for a traced graph)
    key = np.arange(n, dtype=np.float64)
    order, rank = _rank_within(lay, key)
    order = _sweep(order, lay, src, dst, sweeps, check)
    lay_sorted = lay[order]
    rank = np.empty_like(order)
    first = np.searchsorted(lay_sorted, lay_sorted, side="left")
    rank[order] = np.arange(n) - first
    width_of_row = np.bincount(lay)
    x = rank - (width_of_row[lay] - 1) / 2.0

    # compact coordinates
    w = np.zeros(n)
    if widths:
        idx = {nid: i for i, nid in enumerate(ids)}
        for nid, wv in widths.items():
            i = idx.get(nid)
            if i is not None:
                w[i] = float(wv)
    ws = w[order]
    starts = np.r_[True, lay_sorted[1:] != lay_sorted[:-1]]
    sep = np.where(starts, 0.0, (ws + np.r_[0.0, ws[:-1]]) / 2.0 + node_gap)
    unit = node_gap + (float(w.mean()) if widths else 0.0)
    xs = _pack(order, lay_sorted, x * unit, sep)
    both_a = np.r_[src, dst]
    both_b = np.r_[dst, src]
    for _ in range(3):
        sums, counts = _neighbour_mean(xs, both_a, both_b, n)
        desired = np.where(counts > 0, sums / np.maximum(counts, 1), xs)
        xs = _pack(order, lay_sorted, desired, sep)
        check()
    xs = xs - xs.min()
    ys = lay.astype(np.float64) * layer_gap
    return dict(zip(ids, zip(xs.tolist(), ys.tolist(), strict=True), strict=True))


# ---------------------------------------------------------------------------------------------
# chain collapsing


@dataclass(eq=False)
class CollapsedGraph:
    """A graph where chains of single-input / single-output op nodes became group nodes.

    A group node is a :class:`Node` with ``kind == "group"``, ``id`` the id of its first member
    (the one nearest the root) and ``label`` like ``"4 ops: TanhBackward0 … SinBackward0"``;
    ``groups[id]`` lists the members, root side first. Other nodes are the original ones.
    ``edge_map`` maps each edge of this view to the original edge whose gradient it shows
    (the edge into a group is the edge into its first member; out of it, the edge out of its
    last member), so ``BackwardRecord.edge_grads[edge_map[e]]`` labels edge ``e``.
    """

    nodes: list[Node]
    edges: list[tuple[int, int]]
    groups: dict[int, tuple[int, ...]]
    edge_map: dict[tuple[int, int], tuple[int, int]]
    source: Graph = field(repr=False)
    root: int = 0

    def members(self, node_id: int) -> tuple[int, ...]:
        """The original node ids shown by ``node_id`` (itself, unless it is a group)."""
        return self.groups.get(node_id, (node_id,))


def collapse_chains(
    graph: Graph, min_length: int = 2, expanded: frozenset[int] | set[int] = frozenset()
) -> CollapsedGraph:
    """Collapse each maximal run of at least ``min_length`` op nodes that have exactly one
    consumer and one input into one group node.

    Not collapsed: the root, leaves, named intermediates (``Node.tensor`` set) and nodes with a
    stale saved tensor, since those are what a learner looks for. Groups whose id is in
    ``expanded`` are left as their members (the pane's "expand" toggles an id in that set).
    Linear in the size of the graph.
    """
    nodes = graph.nodes
    n = len(nodes)
    indeg = [0] * n
    outs: list[list[int]] = [[] for _ in range(n)]
    parent = [-1] * n
    for s, d in graph.edges:
        indeg[d] += 1
        outs[s].append(d)
        parent[d] = s
    cand = [
        nd.kind == "op"
        and nd.tensor is None
        and indeg[nd.id] == 1
        and len(outs[nd.id]) == 1
        and not nd.stale
        for nd in nodes
    ]
    group_of = [-1] * n
    groups: dict[int, tuple[int, ...]] = {}
    for v in range(n):
        if not cand[v] or cand[parent[v]]:
            continue  # not a candidate, or not the start of its chain
        chain = [v]
        u = outs[v][0]
        while cand[u]:
            chain.append(u)
            u = outs[u][0]
        if len(chain) >= min_length and v not in expanded:
            groups[v] = tuple(chain)
            for m in chain:
                group_of[m] = v

    out_nodes: list[Node] = []
    for nd in nodes:
        g = group_of[nd.id]
        if g == -1:
            out_nodes.append(nd)
        elif g == nd.id:
            members = groups[g]
            first, last = nodes[members[0]], nodes[members[-1]]
            out_nodes.append(
                Node(
                    id=g,
                    label=f"{len(members)} ops: {first.label} … {last.label}",
                    kind="group",
                    tensor=None,
                    next_ids=last.next_ids,
                    shapes=first.shapes,
                    dtypes=first.dtypes,
                    device=first.device,
                )
            )
    edges: list[tuple[int, int]] = []
    edge_map: dict[tuple[int, int], tuple[int, int]] = {}
    for s, d in graph.edges:
        gs, gd = group_of[s], group_of[d]
        if gs != -1 and gs == gd:
            continue  # inside a group
        if gd != -1 and gd != d:
            continue  # cannot happen: a group is entered at its first member only
        key = (s if gs == -1 else gs, d if gd == -1 else gd)
        edges.append(key)
        edge_map[key] = (s, d)
    return CollapsedGraph(
        nodes=out_nodes,
        edges=edges,
        groups=groups,
        edge_map=edge_map,
        source=graph,
        root=graph.root,
    )
