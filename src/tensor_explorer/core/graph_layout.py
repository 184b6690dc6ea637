"""Layered layout of autograd graphs, and collapsing of big ones, as pure functions (no Qt).

:func:`place` places a :class:`~tensor_explorer.core.autograd.Graph` (or a
:class:`CollapsedGraph`) as a layered DAG and says how each edge is routed past the rows it
spans; :func:`layout` gives only the node positions. Inputs are above the ops that read them,
the root alone on the bottom row. It is the Sugiyama recipe cut down to what stays near-linear
in the number of edges:

1. **layering**: longest path from the leaves (one pass in topological order), then every
   node that has consumers moves down to the row just above its nearest consumer, from the
   root upwards (rows left empty are removed). A leaf sits just above its first use and a
   value just above where it is first read, so ordinary edges span one row;
2. **long edges**: an edge that spans several rows must pass the rows between without going
   through their boxes. Each node whose lowest consumer is two or more rows below it gets one
   *bus*: a straight vertical line of virtual points, one per row from the row below the node
   down to the row above that consumer, each reserving a narrow slot in its row. Every long
   edge of the node runs along the bus and leaves it at the row above its consumer, so a weight
   read by every step of a 5000-step loop costs one bus (a point per row), not one chain of
   points per read (quadratic). When the buses would hold more than ``max_dummies`` points,
   the longest ones are left out and their edges go round the drawing through *lanes* (one per
   node, in the left margin) instead;
3. **ordering**: a few barycentre sweeps over nodes and bus points (each row sorted by the
   mean position of its neighbours in the row below or above, alternating); the last sweep
   goes down, which keeps any two buses in the same order in every row they share;
4. **coordinates**: every node, and every bus as one block (all its points at one x), is
   pulled to the mean x of its neighbours and then placed as near to that as the rows allow,
   keeping their order and minimum gaps: a left-to-right and a right-to-left pass over the
   blocks in topological order of "just left of, in some row", averaged (without buses: a
   segmented cumulative maximum per row with NumPy).

20k nodes lay out in about a second even when a few leaves are read all the way down. The pane
calls it from a worker thread; ``cancel`` lets it give up between phases.

Coordinates are abstract units: ``node_gap`` between neighbours in a row (plus their widths,
when given; ``bus_gap`` next to a bus), rows are numbered from 0 at the top; y grows downwards
(Qt scene convention). :mod:`.graph_drawing` turns a :class:`Placement` into boxes and one
polyline per edge.

Collapsing turns a big graph into a :class:`CollapsedGraph` with group nodes (kind ``"group"``)
that the pane expands again by id:

- :func:`collapse` (what the pane uses) folds *repeated blocks* (the iterations of a loop, the
  layers of a stack: runs of structurally identical consecutive blocks along the graph's main
  paths, found with its dominator tree) into one group per run, whose blocks are groups again
  once it is expanded, then *chains* among the rest;
- :func:`collapse_chains` folds only chains: runs of operation nodes with one input and one
  consumer each.

Neither ever hides the root, a leaf, a named value or a node with a stale saved tensor.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import Literal, Protocol

import numpy as np

from .autograd import Graph, Node, no_gc

__all__ = [
    "BUS",
    "DIRECT",
    "LANE",
    "CollapsedGraph",
    "GroupInfo",
    "LayoutCancelled",
    "Placement",
    "collapse",
    "collapse_chains",
    "layers",
    "layout",
    "place",
]

#: how an edge is routed (:attr:`Placement.route`): from its input's row straight to the next
#: row; along its input's bus; through its input's lane round the drawing
DIRECT, BUS, LANE = 0, 1, 2
DUMMIES_PER_NODE = 8  # default cap on bus points: this many per node of the graph


class GraphLike(Protocol):
    """What :func:`layout` needs: nodes with an ``id`` and ``(src, dst)`` edges."""

    @property
    def nodes(self) -> Sequence[Node]: ...  # pragma: no cover - protocol

    @property
    def edges(self) -> Sequence[tuple[int, int]]: ...  # pragma: no cover - protocol


class LayoutCancelled(Exception):
    """Raised by :func:`layout` when its ``cancel()`` callback returned True."""


class _Cyclic(Exception):
    """The blocks' "left of" relation has a cycle (buses out of order): route without buses."""


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


def _rows_idx(n: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Row of each node index: longest-path layering, then each node with consumers moved
    down to one row above its nearest consumer (consumers first, so from the root up); empty
    rows removed. Every edge still points up; nodes without consumers (the root) stay."""
    lay = _layers_idx(n, src, dst)
    if src.size == 0 or not bool((lay[src] > lay[dst]).all()):
        return lay  # no edges, or a cycle: keep the longest-path rows
    order = np.argsort(-lay[dst], kind="stable")  # an edge's consumer is final before it
    lay_l = lay.tolist()
    low = [-1] * n  # the row above the nearest consumer found so far (-1: none yet)
    for s, d in zip(src[order].tolist(), dst[order].tolist(), strict=True):
        r = low[s]
        if r < 0:
            r = lay_l[s]
        r -= 1
        if low[d] < 0 or r < low[d]:
            low[d] = r
    low_a = np.asarray(low, dtype=np.int64)
    rows = np.where(low_a >= 0, low_a, lay)
    _, compact = np.unique(rows, return_inverse=True)
    return compact.astype(np.int64).reshape(-1)


def layers(graph: GraphLike) -> dict[int, int]:
    """``{node_id: row}``: row 0 is the top; every node with consumers is on the row just
    above its nearest (highest) consumer, the root alone on the last row."""
    ids, src, dst = _index(graph)
    lay = _rows_idx(len(ids), src, dst)
    return dict(zip(ids, lay.tolist(), strict=True))


def _rank_within(layer: np.ndarray, key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sort nodes by (layer, key); return the order and each node's rank within its layer."""
    order = np.lexsort((key, layer))
    lay_sorted = layer[order]
    first = np.searchsorted(lay_sorted, lay_sorted, side="left")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size) - first
    return order, rank


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


class _BlockPacker:
    """The same placement as :func:`_pack` when some items are tied together in one x (the
    points of a bus): blocks, with ``x[b] >= x[a] + sep`` for each block ``a`` just left of
    ``b`` in some row. One pass left to right in topological order of that relation, one right
    to left, averaged (each satisfies every gap, so their mean does too)."""

    def __init__(
        self, order: np.ndarray, starts: np.ndarray, sep: np.ndarray, block: np.ndarray, nb: int
    ) -> None:
        keep = ~starts[1:]
        a = block[order[:-1]][keep]
        b = block[order[1:]][keep]
        s = sep[1:][keep]
        code = a * nb + b
        o = np.lexsort((-s, code))  # each pair once, with its largest gap
        code, a, b, s = code[o], a[o], b[o], s[o]
        first = np.r_[True, code[1:] != code[:-1]] if code.size else np.zeros(0, dtype=bool)
        a, b, s = a[first], b[first], s[first]
        indeg = np.bincount(b, minlength=nb).tolist()
        by_a = np.argsort(a, kind="stable")
        succ = b[by_a].tolist()
        start = np.searchsorted(a[by_a], np.arange(nb + 1)).tolist()
        stack = [v for v in range(nb) if indeg[v] == 0]
        topo: list[int] = []
        while stack:
            v = stack.pop()
            topo.append(v)
            for k in range(start[v], start[v + 1]):
                t = succ[k]
                indeg[t] -= 1
                if indeg[t] == 0:
                    stack.append(t)
        if len(topo) < nb:
            raise _Cyclic
        rank = np.empty(nb, dtype=np.int64)
        rank[np.asarray(topo, dtype=np.int64)] = np.arange(nb)
        fwd = np.argsort(rank[a], kind="stable")
        bwd = np.argsort(-rank[b], kind="stable")
        self.fwd = (a[fwd].tolist(), b[fwd].tolist(), s[fwd].tolist())
        self.bwd = (a[bwd].tolist(), b[bwd].tolist(), s[bwd].tolist())

    def __call__(self, desired: np.ndarray) -> np.ndarray:
        x = desired.tolist()
        for a, b, s in zip(*self.fwd, strict=True):
            v = x[a] + s
            if v > x[b]:
                x[b] = v
        y = desired.tolist()
        for a, b, s in zip(*self.bwd, strict=True):
            v = y[b] - s
            if v < y[a]:
                y[a] = v
        return (np.asarray(x) + np.asarray(y)) / 2.0


def _neighbours(n: int, a: np.ndarray, b: np.ndarray) -> tuple[list[int], dict[int, list[int]]]:
    """The ``b`` ends of edges ``(a, b)`` for each node ``a``: ``one[a]`` is the neighbour when
    there is exactly one (the common case: bus points, most ops), -1 when there are several
    (then in ``many[a]``), -2 when there is none."""
    count = np.bincount(a, minlength=n)
    o = np.argsort(a, kind="stable")
    b_sorted = b[o]
    start = np.searchsorted(a[o], np.arange(n))
    one = np.where(count == 1, b_sorted[np.minimum(start, max(b.size - 1, 0))] if b.size else 0,
                   np.where(count == 0, -2, -1))
    many: dict[int, list[int]] = {}
    multi = np.flatnonzero(count > 1)
    if multi.size:
        st = start[multi].tolist()
        en = (start[multi] + count[multi]).tolist()
        flat = b_sorted.tolist()
        for v, i, j in zip(multi.tolist(), st, en, strict=True):
            many[v] = flat[i:j]
    return one.tolist(), many


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
    of the items that consume it; odd sweeps go down, by the mean position of their inputs
    (ties keep the current order: the sort is stable). ``src``/``dst`` are the edges of the
    proper graph (between adjacent rows: nodes and bus points). Pure Python lists: one sweep
    costs O(items + edges) plus sorting each row.
    """
    n = lay.size
    if sweeps <= 0 or n == 0:
        return order
    n_rows = int(lay.max()) + 1
    lay_l = lay.tolist()
    rows: list[list[int]] = [[] for _ in range(n_rows)]
    for v in order.tolist():
        rows[lay_l[v]].append(v)
    below = _neighbours(n, dst, src)  # consumers
    above = _neighbours(n, src, dst)  # inputs
    x = [0.0] * n
    for row in rows:
        off = (len(row) - 1) / 2.0
        for k, v in enumerate(row):
            x[v] = k - off
    for sweep in range(sweeps):
        if sweep % 2 == 0:
            row_ids: range = range(n_rows - 1, -1, -1)
            one, many = below
        else:
            row_ids = range(n_rows)
            one, many = above
        for r in row_ids:
            row = rows[r]
            if len(row) < 2:
                continue
            keys = []
            for v in row:
                u = one[v]
                if u >= 0:
                    keys.append(x[u])
                elif u == -2:
                    keys.append(x[v])
                else:
                    ns = many[v]
                    keys.append(sum([x[w] for w in ns]) / len(ns))
            perm = sorted(range(len(row)), key=keys.__getitem__)
            row[:] = [row[i] for i in perm]
            off = (len(row) - 1) / 2.0
            for k, v in enumerate(row):
                x[v] = k - off
        check()
    return np.fromiter((v for row in rows for v in row), dtype=np.int64, count=n)


@dataclass(eq=False)
class Placement:
    """Where :func:`place` put each node, and how each edge gets past the rows it spans.

    Nodes are by index (``ids[i]`` is the node id of index ``i``), edges in ``graph.edges``
    order as index pairs ``src[e]`` (the consumer, lower) and ``dst[e]`` (its input, higher).
    ``route[e]`` is :data:`DIRECT` (spans one row), :data:`BUS` (runs along the bus of its
    input ``dst[e]``, leaving it at the row above its consumer) or :data:`LANE` (goes round the
    drawing through the lane of ``dst[e]``). Node ``i``'s bus, if any, is ``bus[i]``: a
    vertical line at ``bus_x[b]`` through rows ``bus_rows[b, 0] .. bus_rows[b, 1]``, where each
    row keeps a slot free for it (at least ``bus_gap`` from any box); its lane is ``lane[i]``
    (lanes are placed by the drawing, outside every box).
    """

    ids: list[int]
    row: np.ndarray
    x: np.ndarray
    n_rows: int
    src: np.ndarray
    dst: np.ndarray
    route: np.ndarray
    bus: np.ndarray
    bus_x: np.ndarray
    bus_rows: np.ndarray
    lane: np.ndarray
    n_lanes: int

    @property
    def dummies(self) -> int:
        """How many bus points the rows hold (one per bus and row it passes)."""
        r = self.bus_rows
        return int((r[:, 1] - r[:, 0] + 1).sum()) if r.size else 0

    def positions(self, layer_gap: float = 1.0) -> dict[int, tuple[float, float]]:
        """``{node_id: (x, row * layer_gap)}``."""
        ys = self.row.astype(np.float64) * layer_gap
        return dict(zip(self.ids, zip(self.x.tolist(), ys.tolist(), strict=True), strict=True))


def place(
    graph: GraphLike,
    *,
    sweeps: int = 4,
    node_gap: float = 1.0,
    bus_gap: float | None = None,
    widths: Mapping[int, float] | None = None,
    max_dummies: int | None = None,
    cancel: Callable[[], bool] | None = None,
) -> Placement:
    """Rows, x positions and edge routes of a layered drawing of ``graph`` (see the module
    docstring for the method).

    Args:
        graph: a :class:`Graph` or :class:`CollapsedGraph` (anything with ``nodes`` having
            ``id`` and ``edges`` of ``(src, dst)`` ids).
        sweeps: barycentre ordering sweeps (each alternates looking up and down; one more is
            made when needed so that the last goes down).
        node_gap: minimum free space between two nodes of a row.
        bus_gap: minimum free space between a bus and its neighbours (default ``node_gap / 2``).
        widths: optional node widths by id (default 0): neighbours are kept
            ``(w_a + w_b) / 2 + node_gap`` apart, centre to centre.
        max_dummies: most bus points in all (default 8 per node); beyond, the longest buses are
            left out and their edges routed through lanes.
        cancel: called between phases; when it returns True, :class:`LayoutCancelled` is
            raised.
    """

    def check() -> None:
        if cancel is not None and cancel():
            raise LayoutCancelled

    ids, src, dst = _index(graph)
    n = len(ids)
    w = np.zeros(n)
    if widths:
        idx = {nid: i for i, nid in enumerate(ids)}
        for nid, wv in widths.items():
            i = idx.get(nid)
            if i is not None:
                w[i] = float(wv)
    rows = _rows_idx(n, src, dst)
    check()
    cap = DUMMIES_PER_NODE * n if max_dummies is None else max_dummies
    gap_b = node_gap / 2.0 if bus_gap is None else bus_gap
    args = (ids, src, dst, rows, w, bool(widths), sweeps, node_gap, gap_b)
    with no_gc():  # many small lists: each collection would scan every live object
        try:
            return _place_items(*args, cap, check)
        except _Cyclic:  # cannot happen after a final downward sweep; be safe anyway
            return _place_items(*args, 0, check)


def _place_items(
    ids: list[int],
    src: np.ndarray,
    dst: np.ndarray,
    rows: np.ndarray,
    w_nodes: np.ndarray,
    has_widths: bool,
    sweeps: int,
    node_gap: float,
    bus_gap: float,
    cap: int,
    check: Callable[[], None],
) -> Placement:
    n = len(ids)
    i64 = np.int64
    if n == 0:
        z = np.zeros(0, dtype=i64)
        return Placement(ids, z, np.zeros(0), 0, src, dst, z.astype(np.int8), z, np.zeros(0),
                         np.zeros((0, 2), dtype=i64), z, 0)
    n_rows = int(rows.max()) + 1

    # buses: a node whose lowest consumer is 2+ rows below it
    far = np.full(n, -1, dtype=i64)
    if src.size:
        np.maximum.at(far, dst, rows[src])
    length = np.where(far >= 0, far - rows - 1, 0)
    bus_src = np.flatnonzero(length >= 1)
    if int(length[bus_src].sum()) > cap:  # keep the shortest buses; the rest use lanes
        by_len = bus_src[np.argsort(length[bus_src], kind="stable")]
        bus_src = np.sort(by_len[np.cumsum(length[by_len]) <= cap])
    n_bus = int(bus_src.size)
    bus = np.full(n, -1, dtype=i64)
    bus[bus_src] = np.arange(n_bus)
    span = rows[src] - rows[dst]
    route = np.where(
        span == 1, DIRECT, np.where((span >= 2) & (bus[dst] >= 0), BUS, LANE)
    ).astype(np.int8)
    lane_nodes = np.unique(dst[route == LANE])
    lane_nodes = lane_nodes[np.argsort(rows[lane_nodes], kind="stable")]
    lane = np.full(n, -1, dtype=i64)
    lane[lane_nodes] = np.arange(lane_nodes.size)

    # items: nodes, then the bus points (bus b: rows lo[b] .. lo[b] + ln[b] - 1)
    lo = rows[bus_src] + 1
    ln = length[bus_src]
    boff = np.zeros(n_bus + 1, dtype=i64)
    np.cumsum(ln, out=boff[1:])
    n_dum = int(boff[-1])
    d_bus = np.repeat(np.arange(n_bus, dtype=i64), ln)
    d_k = np.arange(n_dum, dtype=i64) - boff[:-1][d_bus]  # index within its bus
    d_row = lo[d_bus] + d_k
    lay = np.r_[rows, d_row]
    m = n + n_dum
    # the proper graph: (lower item, upper item), adjacent rows
    direct = route == DIRECT
    lower = [src[direct]]
    upper = [dst[direct]]
    if n_bus:
        lower.append(n + boff[:-1])  # a bus's first point reads its node
        upper.append(bus_src)
        inner = np.flatnonzero(d_k > 0)
        lower.append(n + inner)
        upper.append(n + inner - 1)
        along = route == BUS
        eb = bus[dst[along]]
        lower.append(src[along])
        upper.append(n + boff[:-1][eb] + rows[src[along]] - 1 - lo[eb])
    p_lo = np.concatenate(lower).astype(i64)
    p_up = np.concatenate(upper).astype(i64)
    check()

    # ordering; bus points start in their bus's order (the same in every row)
    key = np.r_[np.arange(n, dtype=np.float64), bus_src[d_bus].astype(np.float64)]
    order, _ = _rank_within(lay, key)
    if n_bus and sweeps % 2:
        sweeps += 1  # end going down: buses keep one order in every row
    order = _sweep(order, lay, p_lo, p_up, sweeps, check)

    # coordinates
    lay_sorted = lay[order]
    starts = np.r_[True, lay_sorted[1:] != lay_sorted[:-1]]
    first = np.searchsorted(lay_sorted, lay_sorted, side="left")
    rank = np.empty(m, dtype=np.float64)
    rank[order] = np.arange(m) - first
    count = np.bincount(lay)
    x0 = rank - (count[lay] - 1) / 2.0
    w = np.r_[w_nodes, np.zeros(n_dum)]
    real = np.r_[np.ones(n, dtype=bool), np.zeros(n_dum, dtype=bool)]
    ws, rs = w[order], real[order]
    gaps = np.where(rs & np.r_[False, rs[:-1]], node_gap, bus_gap)
    sep = np.where(starts, 0.0, (ws + np.r_[0.0, ws[:-1]]) / 2.0 + gaps)
    unit = node_gap + (float(w_nodes.mean()) if has_widths else 0.0)
    block = np.r_[np.arange(n, dtype=i64), n + d_bus]
    nb = n + n_bus
    pack: Callable[[np.ndarray], np.ndarray]
    if n_bus:
        pack = _BlockPacker(order, starts, sep, block, nb)
    else:
        def pack(desired: np.ndarray) -> np.ndarray:
            return _pack(order, lay_sorted, desired, sep)
    size = np.bincount(block, minlength=nb)
    xb = pack(np.bincount(block, weights=x0 * unit, minlength=nb) / np.maximum(size, 1))
    ea, eb2 = block[p_lo], block[p_up]
    keep = ea != eb2
    both_a = np.r_[ea[keep], eb2[keep]]
    both_b = np.r_[eb2[keep], ea[keep]]
    counts = np.bincount(both_a, minlength=nb)
    for _ in range(3):
        sums = np.bincount(both_a, weights=xb[both_b], minlength=nb)
        desired = np.where(counts > 0, sums / np.maximum(counts, 1), xb)
        xb = pack(desired)
        check()
    shift = float(xb[:n].min())
    return Placement(
        ids=ids,
        row=rows,
        x=xb[:n] - shift,
        n_rows=n_rows,
        src=src,
        dst=dst,
        route=route,
        bus=bus,
        bus_x=xb[n:] - shift,
        bus_rows=np.c_[lo, lo + ln - 1].astype(i64).reshape(-1, 2),
        lane=lane,
        n_lanes=int(lane_nodes.size),
    )


def layout(
    graph: GraphLike,
    *,
    sweeps: int = 4,
    node_gap: float = 1.0,
    layer_gap: float = 1.0,
    widths: Mapping[int, float] | None = None,
    cancel: Callable[[], bool] | None = None,
) -> dict[int, tuple[float, float]]:
    """Positions ``{node_id: (x, y)}`` of a layered drawing of ``graph`` (:func:`place`'s
    nodes; its bus slots keep the gaps).

    Each node with consumers is on the row just above its nearest consumer, the root alone on
    the bottom row (y = ``layer_gap * row``, row 0 at the top); x starts at 0.

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
    p = place(graph, sweeps=sweeps, node_gap=node_gap, widths=widths, cancel=cancel)
    return p.positions(layer_gap)


# ---------------------------------------------------------------------------------------------
# collapsing: chains and repeated blocks

GroupKind = Literal["chain", "repeat", "block", "module"]


@dataclass(frozen=True)
class GroupInfo:
    """What a group node of a :class:`CollapsedGraph` stands for.

    ``kind`` is ``"chain"`` (ops with one input and one consumer each), ``"repeat"`` (a run of
    structurally identical consecutive blocks, e.g. the iterations of a loop or the layers of a
    stack), ``"block"`` (one block of a run the pane expanded) or ``"module"`` (the ops one
    call of an ``nn.Module`` made; ``title`` says which: ``"encoder.0 · Linear"``, ``index``
    which call of it, 1 for the first). ``members`` are the original
    node ids it hides, root side first (never leaves: those stay visible). ``repeats`` is the
    number of blocks of a run (1 otherwise) and ``block_ops`` the labels of one block's ops in
    the order the forward pass computed them. ``index`` numbers a block within its run
    (1 = computed first, so block ``i`` is the ``i``-th iteration the run covers) and
    ``parent`` is that run's id.
    """

    kind: GroupKind
    members: tuple[int, ...]
    repeats: int = 1
    block_ops: tuple[str, ...] = ()
    index: int = 0
    parent: int | None = None
    title: str = ""


@dataclass(eq=False)
class CollapsedGraph:
    """A graph where some op nodes were folded into group nodes (``kind == "group"``).

    ``groups[id]`` lists each shown group's members, root side first, and ``info[id]`` says
    what the group is (:class:`GroupInfo`). Other nodes are the original ones.

    Edges: ``edge_map`` maps each edge of this view that stands for exactly one original edge
    to that edge (an edge into a group is the edge into its first member, its entry), so
    ``BackwardRecord.edge_grads[edge_map[e]]`` labels ``e``. A view edge that stands for
    several original edges (a run of blocks that all read the same leaf ``w``: one edge from
    the group to ``w`` for 500 original ones) is not in ``edge_map`` but in ``bundles``, with
    all of them; they all end at the same node (their gradients add up to what the group sends
    there), or, between two groups, inside the same group (a loop carrying ``h`` and ``c``
    from block to block). :meth:`originals` gives either.
    """

    nodes: list[Node]
    edges: list[tuple[int, int]]
    groups: dict[int, tuple[int, ...]]
    edge_map: dict[tuple[int, int], tuple[int, int]]
    source: Graph = field(repr=False)
    root: int = 0
    info: dict[int, GroupInfo] = field(default_factory=dict)
    bundles: dict[tuple[int, int], tuple[tuple[int, int], ...]] = field(default_factory=dict)

    def members(self, node_id: int) -> tuple[int, ...]:
        """The original node ids shown by ``node_id`` (itself, unless it is a group)."""
        return self.groups.get(node_id, (node_id,))

    def originals(self, edge: tuple[int, int]) -> tuple[tuple[int, int], ...]:
        """The original edges a view edge stands for (one, or a bundle; none if unknown)."""
        bundle = self.bundles.get(edge)
        if bundle is not None:
            return bundle
        single = self.edge_map.get(edge)
        return () if single is None else (single,)


def _pinned(nd: Node, root: int) -> bool:
    """Nodes a learner looks for, never hidden in a group: the root, named values (leaves and
    intermediates) and nodes whose saved tensors were changed in place."""
    return nd.id == root or nd.tensor is not None or bool(nd.tensors) or nd.stale


def _ops_text(labels: Sequence[str]) -> str:
    return " → ".join(labels) if len(labels) <= 3 else f"{labels[0]} → … → {labels[-1]}"


def _chains(
    graph: Graph, allowed: Sequence[bool], min_length: int, expanded: Set[int]
) -> dict[int, tuple[int, ...]]:
    """Maximal runs of allowed op nodes with exactly one consumer and one input (root side
    first), keyed by their first member, except those whose key is in ``expanded``."""
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
        allowed[nd.id]
        and nd.kind == "op"
        and indeg[nd.id] == 1
        and len(outs[nd.id]) == 1
        and not _pinned(nd, graph.root)
        for nd in nodes
    ]
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
    return groups


def _view(
    graph: Graph,
    groups: dict[int, tuple[int, ...]],
    info: dict[int, GroupInfo],
    labels: dict[int, str],
) -> CollapsedGraph:
    """The collapsed view: each group (disjoint sets of op nodes, each entered only at its
    first member) becomes one node placed where its first member was."""
    nodes = graph.nodes
    rep = list(range(len(nodes)))
    head_of: dict[int, int] = {}
    for gid, members in groups.items():
        head_of[members[0]] = gid
        for m in members:
            rep[m] = gid
    edges: list[tuple[int, int]] = []
    first: dict[tuple[int, int], tuple[int, int]] = {}
    many: dict[tuple[int, int], list[tuple[int, int]]] = {}
    targets: dict[int, list[int]] = {gid: [] for gid in groups}
    for e in graph.edges:
        key = (rep[e[0]], rep[e[1]])
        if key[0] == key[1]:
            continue  # inside a group
        seen = first.get(key)
        if seen is None:
            first[key] = e
            edges.append(key)
            if key[0] in targets:
                targets[key[0]].append(key[1])
        else:
            many.setdefault(key, [seen]).append(e)
    out_nodes: list[Node] = []
    for nd in nodes:
        gid = rep[nd.id]
        if gid == nd.id and gid not in groups:
            out_nodes.append(nd)
        elif head_of.get(nd.id) == gid:
            out_nodes.append(
                Node(
                    id=gid,
                    label=labels[gid],
                    kind="group",
                    tensor=None,
                    next_ids=tuple(targets[gid]),
                    shapes=nd.shapes,
                    dtypes=nd.dtypes,
                    device=nd.device,
                )
            )
    return CollapsedGraph(
        nodes=out_nodes,
        edges=edges,
        groups=groups,
        edge_map={k: e for k, e in first.items() if k not in many},
        source=graph,
        root=graph.root,
        info=info,
        bundles={k: tuple(v) for k, v in many.items()},
    )


def _chain_view_parts(
    graph: Graph, groups: dict[int, tuple[int, ...]]
) -> tuple[dict[int, GroupInfo], dict[int, str]]:
    nodes = graph.nodes
    info, labels = {}, {}
    for gid, members in groups.items():
        info[gid] = GroupInfo("chain", members)
        labels[gid] = f"{len(members)} ops: {nodes[members[0]].label} … {nodes[members[-1]].label}"
    return info, labels


def collapse_chains(
    graph: Graph, min_length: int = 2, expanded: Set[int] = frozenset()
) -> CollapsedGraph:
    """Collapse each maximal run of at least ``min_length`` op nodes that have exactly one
    consumer and one input into one group node (id: its first member, the one nearest the
    root; label like ``"4 ops: TanhBackward0 … SinBackward0"``).

    Not collapsed: the root, leaves, named intermediates (``Node.tensor`` set) and nodes with a
    stale saved tensor, since those are what a learner looks for. Groups whose id is in
    ``expanded`` are left as their members (the pane's "expand" toggles an id in that set).
    Linear in the size of the graph. :func:`collapse` also folds repeated blocks.
    """
    with no_gc():  # many small lists: each collection would scan every live object
        groups = _chains(graph, [True] * len(graph.nodes), min_length, expanded)
        info, labels = _chain_view_parts(graph, groups)
        return _view(graph, groups, info, labels)


@dataclass(eq=False)
class _Run:
    """A run of repeated blocks ("repeat") or one of its blocks ("block"): the segments
    ``lo .. hi - 1`` of heavy path ``path`` (see :func:`_find_repeats`)."""

    id: int
    kind: GroupKind
    path: int
    lo: int
    hi: int
    repeats: int
    period: int
    index: int = 0
    parent: _Run | None = None
    children: list[_Run] = field(default_factory=list)


@dataclass
class _Repeats:
    """Every run and block found in a graph, as a forest (a block inside its run, a run found
    inside a block inside that block), with the members of each segment of each path."""

    segments: dict[int, list[list[int]]]
    top: list[_Run]

    def members(self, g: _Run) -> list[int]:
        segs = self.segments[g.path]
        return [v for i in range(g.lo, g.hi) for v in segs[i]]


def _dominator_tree(
    n: int, outs: Sequence[Sequence[int]], skip: Sequence[bool]
) -> tuple[list[int], list[int]]:
    """Immediate dominators from node 0 following edges (consumer -> input), over the nodes
    not in ``skip``: ``(idom, order)`` with ``idom[0] == 0``, ``-1`` for skipped or
    unreachable nodes, and ``order`` the reached nodes, each after all of its consumers.

    For a DAG in that order, ``idom(v)`` is the lowest common ancestor, in the dominator tree
    built so far, of ``v``'s consumers. Ancestors are found with skew-binary jump pointers
    (Myers 1983: each node keeps its parent and one longer jump), so each query takes
    O(log depth) steps even when the tree is a path of 20k nodes.
    """
    cons: list[list[int]] = [[] for _ in range(n)]
    for s in range(n):
        for d in outs[s]:
            if not skip[d]:
                cons[d].append(s)
    remaining = [len(c) for c in cons]
    order = [0]
    k = 0
    while k < len(order):
        v = order[k]
        k += 1
        for d in outs[v]:
            if not skip[d]:
                remaining[d] -= 1
                if remaining[d] == 0:
                    order.append(d)
    idom = [-1] * n
    depth = [0] * n
    jump = [0] * n
    idom[0] = 0

    def lca(a: int, b: int) -> int:
        if depth[a] < depth[b]:
            a, b = b, a
        db = depth[b]
        while depth[a] > db:
            j = jump[a]
            a = j if depth[j] >= db else idom[a]
        while a != b:
            ja, jb = jump[a], jump[b]
            if ja != jb:
                a, b = ja, jb
            else:
                a, b = idom[a], idom[b]
        return a

    for v in order[1:]:
        c = cons[v]
        a = c[0]
        for b in c[1:]:
            if b != a:
                a = lca(a, b)
        idom[v] = a
        depth[v] = depth[a] + 1
        j = jump[a]
        jump[v] = jump[j] if depth[a] - depth[j] == depth[j] - depth[jump[j]] else a
    return idom, order


def _find_runs(codes: np.ndarray, raw: np.ndarray) -> list[tuple[int, int, int]]:
    """Non-overlapping runs ``(start, period, repeats)`` of a code sequence, ``repeats >= 2``:
    ``codes[start : start + period * repeats]`` is ``period``-periodic.

    Candidate periods are the distances between consecutive equal codes, most frequent first
    (at most 64). For each, every maximal periodic stretch is a candidate run; runs are taken
    greedily by the number of positions they cover (then the shorter period). Negative codes
    (barriers) are unique, so no run crosses them. A run's blocks start where the periodic
    pattern of ``raw`` (the codes before barriers were set) starts, when that still leaves two
    blocks: so when the last iteration of a loop is a named value, the blocks still line up
    with the iterations instead of starting one op later. O(len * periods) with NumPy.
    """
    size = codes.size
    if size < 2:
        return []
    order = np.argsort(codes, kind="stable")
    sc = codes[order]
    same = (sc[1:] == sc[:-1]) & (sc[1:] >= 0)
    lags = (order[1:] - order[:-1])[same]
    lags = lags[lags <= size // 2]
    if lags.size == 0:
        return []
    values, counts = np.unique(lags, return_counts=True)
    periods = values[np.argsort(-counts, kind="stable")[:64]].tolist()
    cands: list[tuple[int, int, int, int]] = []
    for p in periods:
        eq = codes[:-p] == codes[p:]
        edges = np.diff(np.r_[np.int8(0), eq.astype(np.int8), np.int8(0)])
        starts = np.flatnonzero(edges == 1)
        ends = np.flatnonzero(edges == -1)
        keep = (ends - starts + p) // p >= 2
        if not keep.any():
            continue
        raw_eq = raw[:-p] == raw[p:]
        idx = np.arange(raw_eq.size)
        raw_start = np.maximum.accumulate(np.where(raw_eq, 0, idx + 1))
        for s, e in zip(starts[keep].tolist(), ends[keep].tolist(), strict=True):
            top = int(raw_start[s - 1]) if s > 0 and raw_eq[s - 1] else s
            a = s + (top - s) % p
            if (e + p - a) // p < 2:
                a = s
            r = (e + p - a) // p
            cands.append((r * p, p, a, r))
    cands.sort(key=lambda c: (-c[0], c[1], c[2]))
    used = np.zeros(size, dtype=bool)
    runs = []
    for cover, p, a, r in cands:
        if not used[a : a + cover].any():
            used[a : a + cover] = True
            runs.append((a, p, r))
    runs.sort()
    return runs


Plan = list[tuple[int, int, int, "Plan"]]


def _plan(codes: np.ndarray, raw: np.ndarray) -> Plan:
    """Runs of a code sequence and, inside one block of each, the runs within blocks."""
    out: Plan = []
    for s, p, r in _find_runs(codes, raw):
        inner = _plan(codes[s : s + p], raw[s : s + p]) if p >= 2 else []
        inner = [x for x in inner if x[1] * x[2] < p]  # never a run as big as its block
        out.append((s, p, r, inner))
    return out


def _place(
    plan: Plan,
    offset: int,
    parent: _Run | None,
    pid: int,
    seg_members: list[list[int]],
    enc: list[_Run | None],
    top: list[_Run],
    next_id: int,
) -> int:
    """Make the runs (and their blocks, and the runs inside those) of ``plan`` on path
    ``pid``, starting at segment ``offset``; ``enc[i]`` becomes the innermost group holding
    segment ``i``. Returns the next free id."""
    for s, p, r, inner in plan:
        a = offset + s
        run = _Run(next_id, "repeat", pid, a, a + p * r, r, p, parent=parent)
        next_id += 1
        (parent.children if parent is not None else top).append(run)
        enc[a : a + p * r] = [run] * (p * r)
        if p == 1 and len(seg_members[a]) == 1:
            continue  # blocks of one op: expanding the run shows the ops
        for t in range(r):
            b = a + t * p
            block = _Run(next_id, "block", pid, b, b + p, r, p, r - t, run)
            next_id += 1
            run.children.append(block)
            enc[b : b + p] = [block] * p
            next_id = _place(inner, b, block, pid, seg_members, enc, top, next_id)
    return next_id


def _find_repeats(graph: Graph) -> _Repeats:
    """Runs of structurally identical consecutive blocks (see :func:`collapse`)."""
    nodes = graph.nodes
    n = len(nodes)
    if n == 0:
        return _Repeats({}, [])
    is_leaf = [nd.kind == "leaf" for nd in nodes]
    outs: list[list[int]] = [[] for _ in range(n)]
    for s, d in graph.edges:
        outs[s].append(d)
    idom, order = _dominator_tree(n, outs, is_leaf)
    size = [1] * n
    for v in reversed(order[1:]):
        size[idom[v]] += size[v]
    heavy = [-1] * n
    kids: list[list[int]] = [[] for _ in range(n)]
    for v in order[1:]:
        p = idom[v]
        kids[p].append(v)
        h = heavy[p]
        if h == -1 or size[v] > size[h]:
            heavy[p] = v
    labels = [nd.label for nd in nodes]
    next_ids = [nd.next_ids for nd in nodes]
    pinned = [_pinned(nd, graph.root) for nd in nodes]
    stamp = [-1] * n
    segof = [-1] * n
    table: dict[tuple, int] = {}
    segments: dict[int, list[list[int]]] = {}
    top: list[_Run] = []
    next_id = n
    queue: deque[tuple[int, _Run | None]] = deque([(graph.root, None)])
    pid = -1
    while queue:
        head, enclosing = queue.popleft()
        path = [head]
        while heavy[path[-1]] != -1:
            path.append(heavy[path[-1]])
        if len(path) < 2:
            continue  # a single node: nothing repeats, and nothing hangs below it
        pid += 1
        # segment i: path[i] and everything it dominates through its other children
        for i, p in enumerate(path):
            segof[p], stamp[p] = i, pid
            stack = [c for c in kids[p] if c != heavy[p]]
            while stack:
                v = stack.pop()
                segof[v], stamp[v] = i, pid
                stack.extend(kids[v])
        seg_members: list[list[int]] = []
        raw: list[int] = []
        barrier = [False] * len(path)
        for i, p in enumerate(path):
            nxt_head = path[i + 1] if i + 1 < len(path) else -1
            if len(kids[p]) <= 1:  # no other children: the segment is p alone
                members = [p]
            else:  # depth-first from p in next_functions order; reverse postorder
                post: list[int] = []
                seen = {p}
                stack, pos = [p], [0]
                while stack:
                    v = stack[-1]
                    nx = next_ids[v]
                    k = pos[-1]
                    while k < len(nx):
                        t = nx[k]
                        k += 1
                        if t is not None and stamp[t] == pid and segof[t] == i and t not in seen:
                            seen.add(t)
                            pos[-1] = k
                            stack.append(t)
                            pos.append(0)
                            break
                    else:
                        stack.pop()
                        pos.pop()
                        post.append(v)
                members = post[::-1]
            local = {v: k for k, v in enumerate(members)}
            items = []
            for v in members:
                if pinned[v]:
                    barrier[i] = True
                targets: list[int | str] = []
                for t in next_ids[v]:
                    if t is None:
                        targets.append(-1)
                    elif is_leaf[t]:
                        targets.append(-2)
                    elif t == nxt_head:
                        targets.append(-3)
                    elif t in local:
                        targets.append(local[t])
                    else:  # a value computed above (root side) and shared: by its label
                        targets.append(labels[t])
                        if stamp[t] == pid:
                            barrier[segof[t]] = True  # read from below: not in a group
                items.append((labels[v], tuple(targets)))
            raw.append(table.setdefault(tuple(items), len(table)))
            seg_members.append(members)
        raw_a = np.asarray(raw, dtype=np.int64)
        codes = np.where(barrier, -1 - np.arange(len(path)), raw_a)
        enc: list[_Run | None] = [enclosing] * len(path)
        plan = _plan(codes, raw_a)
        if plan:
            segments[pid] = seg_members
            next_id = _place(plan, 0, enclosing, pid, seg_members, enc, top, next_id)
        for i, p in enumerate(path):
            for c in kids[p]:
                if c != heavy[p]:
                    queue.append((c, enc[i]))
    return _Repeats(segments, top)


def collapse(
    graph: Graph,
    expanded: Set[int] = frozenset(),
    *,
    min_chain: int = 2,
    modules: Sequence[ModuleCallLike] = (),
    fold: bool = True,
) -> CollapsedGraph:
    """Fold repeated blocks and chains of single-input ops into expandable group nodes.

    **Repeated blocks.** A loop ``for i in range(500): x = torch.tanh(x @ w + b)`` leaves 500
    copies of the same few ops, all reading the shared leaves ``w`` and ``b``. They are found
    along the graph's main paths:

    1. the dominator tree from the root (``d`` dominates ``v`` when every path from the root
       to ``v`` passes ``d``), computed in one topological pass (:func:`_dominator_tree`);
    2. its heavy-path decomposition: from the root, follow the child with the largest
       dominated subtree; every other child starts a path of its own. A path node together
       with what it dominates through its other children is a *segment* (for the loop: one op
       per segment, the spine ``TanhBackward0 → AddBackward0 → MmBackward0 → TanhBackward0 …``);
    3. each segment gets a signature: its ops' labels in depth-first order and, for each
       ``next_functions`` entry, the position of the input inside the segment, or "the next
       segment", "a leaf", ``None`` or the label of a shared value computed above (never a node
       id, so layers with their own weights look the same);
    4. :func:`_find_runs` finds maximal runs of >= 2 consecutive repeats of a period of
       segments; each run becomes a group, each of its blocks a group inside it, and runs
       inside one block (a period within a period) groups inside each block.

    Never inside a repeated group: the root, named values (leaves or intermediates: their
    segment breaks the run), nodes with a stale saved tensor, values read by a block further
    from the root (their segment breaks the run, so every group is entered only at its first
    member and the view stays a DAG), and leaves: every leaf stays visible, and a group gets
    one edge to each leaf its blocks read (a bundle of edges, see :class:`CollapsedGraph`).
    What the dominator tree cannot split (several loop-carried values, like an LSTM's ``h``
    and ``c``) is found in the order the forward pass made the ops
    (:func:`_add_runs_in_time`).

    **Chains**: then, among the nodes in no repeated group, each maximal run of at least
    ``min_chain`` ops with one input and one consumer becomes a group (:func:`collapse_chains`).

    **Ids and expanding.** A chain's id is its first member's id (nearest the root). Runs and
    blocks get ids from ``len(graph.nodes)`` upwards, in a fixed order, so the same graph
    always gives the same ids. A group whose id is in ``expanded`` shows what is inside it: a
    run its blocks (or its ops, for blocks of one op), a block its ops and inner runs.

    **Modules.** ``modules`` (:func:`~tensor_explorer.core.graph_modules.module_calls`: which
    ops each ``nn.Module`` call made, outer calls first) fold first: each call shown folded is
    one box (:class:`GroupInfo` kind ``"module"``, titled ``"encoder.0 · Linear"``); a call
    that is open shows the calls made inside it, folded, and its own ops. Calls at the top
    that made other calls (a ``Sequential``, a model) start open; the rest start folded; a
    module box's id in ``expanded`` opens it. Repeated blocks and chains are then found among
    the boxes and the ops outside them, so a cell called in a loop folds into one run of its
    calls ("48 × cell · LSTMCell"), however many values it carries from step to step. With
    ``modules``, run and block ids are made from where they start (stable when a module box
    inside them is opened), and ``fold=False`` folds module calls only (small graphs).

    Near-linear: O(nodes + edges) for the chain-like graphs of loops, plus a log factor for
    nested paths and jump-pointer queries; 20k nodes take about 0.1 s.
    """
    with no_gc():  # many small lists: each collection would scan every live object
        if modules:
            return _collapse_modules(graph, expanded, min_chain, modules, fold)
        return _collapse(graph, expanded, min_chain)


def _collapse(graph: Graph, expanded: Set[int], min_chain: int,
              ids: Callable[[_Run, _Repeats, int], int] | None = None,
              seq: Sequence[int] | None = None, by_time: bool = True) -> CollapsedGraph:
    nodes = graph.nodes
    n = len(nodes)
    reps = _find_repeats(graph)
    if by_time:
        order = seq if seq is not None else _sequence_numbers(graph)
        if order is not None:
            _add_runs_in_time(graph, reps, order)
    if ids is not None:  # stable ids: from where each run starts
        todo = [(g, 0) for g in reps.top]
        while todo:
            g, depth = todo.pop()
            g.id = ids(g, reps, depth)
            todo.extend((c, depth + 1) for c in g.children)
    allowed = [True] * n
    for g in reps.top:
        for v in reps.members(g):
            allowed[v] = False
    shown: list[_Run] = []
    stack = list(reversed(reps.top))
    while stack:
        g = stack.pop()
        if g.id in expanded:
            stack.extend(reversed(g.children))
        else:
            shown.append(g)
    groups: dict[int, tuple[int, ...]] = {}
    info: dict[int, GroupInfo] = {}
    labels: dict[int, str] = {}
    for g in shown:
        members = tuple(reps.members(g))
        groups[g.id] = members
        block = reps.segments[g.path][g.lo : g.lo + g.period]
        ops = tuple(nodes[v].label for seg in reversed(block) for v in reversed(seg))
        if g.kind == "repeat":
            info[g.id] = GroupInfo("repeat", members, g.repeats, ops)
            labels[g.id] = f"{g.repeats} × block of {len(ops)} ops: {_ops_text(ops)}"
        else:
            parent = g.parent.id if g.parent is not None else None
            info[g.id] = GroupInfo("block", members, g.repeats, ops, g.index, parent)
            labels[g.id] = f"block {g.index} of {g.repeats}: {_ops_text(ops)}"
    chains = _chains(graph, allowed, min_chain, expanded)
    chain_info, chain_labels = _chain_view_parts(graph, chains)
    groups.update(chains)
    info.update(chain_info)
    labels.update(chain_labels)
    view = _view(graph, groups, info, labels)
    if by_time and len(reps.segments) and not _acyclic(view):  # (runs found in time order
        return _collapse(graph, expanded, min_chain, ids, seq, by_time=False)  # and others)
    return view


def _acyclic(view: CollapsedGraph) -> bool:
    """Whether the view's edges make no cycle (Kahn's algorithm)."""
    index = {nd.id: i for i, nd in enumerate(view.nodes)}
    indeg = [0] * len(index)
    outs: list[list[int]] = [[] for _ in index]
    for a, b in view.edges:
        outs[index[a]].append(index[b])
        indeg[index[b]] += 1
    ready = [i for i, d in enumerate(indeg) if d == 0]
    done = 0
    while ready:
        i = ready.pop()
        done += 1
        for j in outs[i]:
            indeg[j] -= 1
            if indeg[j] == 0:
                ready.append(j)
    return done == len(index)


def _sequence_numbers(graph: Graph) -> list[int] | None:
    """Autograd's creation number of each node (``Node._sequence_nr()``: in the order the
    forward pass made them, on one thread); None when the graph has no autograd objects."""
    functions = graph._functions
    if len(functions) != len(graph.nodes):
        return None
    try:
        return [-1 if nd.kind == "leaf" else int(fn._sequence_nr())
                for nd, fn in zip(graph.nodes, functions, strict=True)]
    except (AttributeError, RuntimeError, TypeError):
        return None


def _add_runs_in_time(graph: Graph, reps: _Repeats, seq: Sequence[int]) -> None:
    """Repeated blocks the dominator tree cannot see, found in the order the forward pass made
    the ops: a loop that carries two values (an LSTM's ``h`` and ``c``) has no single node
    through which each iteration is entered, but its iterations are consecutive stretches of
    that order with the same ops, each reading the one before it the same way.

    The ops not already in a run, ordered by creation, get a code from their label and their
    inputs' labels (pinned nodes and nodes in other runs are barriers: no run crosses them);
    :func:`_find_runs` finds periodic stretches, and each is checked op by op (every input is
    the same node as the previous block's, a leaf in both, or the input at the same place one
    block earlier) and cut where the check fails. A run found so is a stretch of a
    topological order, so folding it keeps the view a DAG. Adds runs (and their blocks) to
    ``reps``, on paths of their own.
    """
    nodes = graph.nodes
    n = len(nodes)
    taken = [False] * n
    for g in reps.top:
        for v in reps.members(g):
            taken[v] = True
    live = [v for v in range(n) if nodes[v].kind != "leaf" and seq[v] >= 0]
    if len(live) < 4:
        return
    live.sort(key=lambda v: seq[v])
    pos = {v: i for i, v in enumerate(live)}
    labels = [nd.label for nd in nodes]
    table: dict[tuple, int] = {}
    raw = np.empty(len(live), dtype=np.int64)
    codes = np.empty(len(live), dtype=np.int64)
    for i, v in enumerate(live):
        nd = nodes[v]
        key = (nd.label, nd.kind, tuple(
            "-" if t is None else "L" if nodes[t].kind == "leaf" else labels[t]
            for t in nd.next_ids))
        raw[i] = table.setdefault(key, len(table))
        barrier = taken[v] or _pinned(nd, graph.root)
        codes[i] = -1 - i if barrier else raw[i]
    next_id = max((r.id for r in _all_runs(reps)), default=n - 1) + 1
    pid = max(reps.segments, default=-1) + 1

    def same_place(t: int | None, u: int | None, p: int) -> bool:
        if t is None or u is None:
            return t is u
        if t == u:
            return True
        if nodes[t].kind == "leaf" or nodes[u].kind == "leaf":
            return nodes[t].kind == nodes[u].kind == "leaf"
        pt, pu = pos.get(t), pos.get(u)
        return pt is not None and pu is not None and pt - pu == p

    def alike(k: int, a: int, p: int) -> bool:  # block k of a run starting at a, vs block k-1
        for j in range(p):
            v, u = live[a + k * p + j], live[a + (k - 1) * p + j]
            if labels[v] != labels[u] or len(nodes[v].next_ids) != len(nodes[u].next_ids):
                return False
            for t, w in zip(nodes[v].next_ids, nodes[u].next_ids, strict=True):
                if not same_place(t, w, p):
                    return False
        return True

    def crossing(q: int, a: int, p: int) -> int:  # edges from block 1 into earlier blocks
        lo, hi = a + q + p, a + q + 2 * p
        count = 0
        for i in range(lo, hi):
            for t in nodes[live[i]].next_ids:
                j = pos.get(t) if t is not None else None
                if j is not None and j < lo:
                    count += 1
        return count

    consumers: list[list[int]] = [[] for _ in range(n)]
    for src, dst in graph.edges:
        consumers[dst].append(src)

    def side_exit(b: int, a: int, p: int) -> bool:
        """Whether a value of block ``b`` is read after the next block (then ``b`` ends the
        run: a group is left only by its last block's values, as a loop passes on what it
        carries; a value kept for later stays in sight)."""
        beyond = a + (b + 2) * p
        for i in range(a + b * p, a + (b + 1) * p):
            for c in consumers[live[i]]:
                j = pos.get(c)
                if j is not None and j >= beyond:
                    return True
        return False

    for a0, p, r0 in _find_runs(codes, raw):
        # blocks start where an iteration starts: the rotation across which fewest values
        # flow (a loop passes on only what it carries); a partial block at the end is left
        a, r = a0, r0
        if p > 1 and r0 >= 3:
            q = min(range(p), key=lambda q: (crossing(q, a0, p), q))
            if q:
                a, r = a0 + q, r0 - 1
        k, start = 1, 0
        while k <= r:
            if k == r or not alike(k, a, p) or side_exit(k - 1, a, p):
                count = k - start
                while count >= 2 and side_exit(start + count - 1, a, p):
                    count -= 1  # (the last block's values too are read on soon, or not at all)
                if count >= 2:
                    blocks = [[live[a + b * p + j] for j in reversed(range(p))]
                              for b in reversed(range(start, start + count))]  # root side 1st
                    segs = reps.segments.setdefault(pid, [])
                    lo = len(segs)
                    segs.extend(blocks)
                    run = _Run(next_id, "repeat", pid, lo, lo + count, count, 1)
                    next_id += 1
                    if p > 1:
                        for t in range(count):
                            block = _Run(next_id, "block", pid, lo + t, lo + t + 1, count, 1,
                                         count - t, run)
                            next_id += 1
                            run.children.append(block)
                    reps.top.append(run)
                start = k
            k += 1


def _all_runs(reps: _Repeats) -> Iterator[_Run]:
    stack = list(reps.top)
    while stack:
        g = stack.pop()
        yield g
        stack.extend(g.children)


# ---------------------------------------------------------------------------------------------
# module calls


class ModuleCallLike(Protocol):
    """What :func:`collapse` needs of a module call (see ``graph_modules.ModuleCall``)."""

    @property
    def members(self) -> tuple[int, ...]: ...  # pragma: no cover - protocol

    @property
    def parent(self) -> int | None: ...  # pragma: no cover - protocol

    @property
    def title(self) -> str: ...  # pragma: no cover - protocol

    @property
    def index(self) -> int: ...  # pragma: no cover - protocol


def module_box_id(graph: Graph, call: int) -> int:
    """The id of the box of module call number ``call`` (its place in the calls list) in a
    :func:`collapse` of ``graph`` with modules."""
    return 17 * len(graph.nodes) + 16 + call


def _open_calls(calls: Sequence[ModuleCallLike], expanded: Set[int], base: int) -> list[bool]:
    """Which calls show what is inside them: the ones opened (their box id in ``expanded``)
    and, from the start, calls at the top that made other calls (a model, a Sequential)."""
    has_children = [False] * len(calls)
    for c in calls:
        if c.parent is not None:
            has_children[c.parent] = True
    return [(c.parent is None and has_children[i]) or base + i in expanded
            for i, c in enumerate(calls)]


def _fold_modules(
    graph: Graph, calls: Sequence[ModuleCallLike], expanded: Set[int]
) -> tuple[Graph, list[int], dict[int, int], dict[int, tuple[int, ...]]]:
    """The graph with each folded module call as one node (kind ``"group"``, labelled by its
    title): ``(folded graph, original id of each of its nodes (-1 for a call box), call index
    of each box, original nodes of each box)``. A call is folded when every call containing it
    is open and it is not; its box holds its ops (those of the calls made inside it too), never
    a leaf, and a pinned node (the root, named values, stale ones) only when the box reads it.
    """
    nodes = graph.nodes
    n = len(nodes)
    is_open = _open_calls(calls, expanded, module_box_id(graph, 0))
    inside_open = [False] * len(calls)  # every call containing it is open
    for i, c in enumerate(calls):  # outer calls come first
        inside_open[i] = c.parent is None or (inside_open[c.parent] and is_open[c.parent])
    owner = [-1] * n
    for i, c in enumerate(calls):
        if not inside_open[i] or is_open[i]:
            continue
        members = {v for v in c.members if 0 <= v < n and nodes[v].kind != "leaf"}
        used_inside = {t for v in members for t in nodes[v].next_ids if t in members}
        for v in members:
            # a pinned node stays outside when nothing in the box reads it (the root, a named
            # result); one the box reads on (an LSTM cell's named c) stays in: outside, it
            # would be read by the box and read it, a cycle
            if owner[v] == -1 and (v in used_inside or not _pinned(nodes[v], graph.root)):
                owner[v] = i
    fid = [-1] * n
    orig: list[int] = []
    call_of: dict[int, int] = {}
    box_of: dict[int, int] = {}
    box_members: dict[int, list[int]] = {}
    for v in range(n):
        o = owner[v]
        if o == -1:
            fid[v] = len(orig)
            orig.append(v)
            continue
        f = box_of.get(o)
        if f is None:
            f = box_of[o] = len(orig)
            call_of[f] = o
            box_members[f] = []
            orig.append(-1)
        fid[v] = f
        box_members[f].append(v)
    m = len(orig)
    outs: list[list[int]] = [[] for _ in range(m)]
    seen: list[set[int]] = [set() for _ in range(m)]
    for v in range(n):
        a = fid[v]
        for t in nodes[v].next_ids:
            if t is None:
                continue
            b = fid[t]
            if b != a and b not in seen[a]:
                seen[a].add(b)
                outs[a].append(b)
    fnodes: list[Node] = []
    for f in range(m):
        v = orig[f]
        if v >= 0:
            fnodes.append(nodes[v]._replace(id=f, next_ids=tuple(outs[f])))
        else:
            first = nodes[box_members[f][0]]
            fnodes.append(Node(f, calls[call_of[f]].title, "group", None, tuple(outs[f]),
                               first.shapes, first.dtypes, first.device))
    edges = [(a, b) for a in range(m) for b in outs[a]]
    folded = Graph(nodes=fnodes, edges=edges, edge_info={}, root=0)
    return folded, orig, call_of, {f: tuple(ms) for f, ms in box_members.items()}


def _collapse_modules(graph: Graph, expanded: Set[int], min_chain: int,
                      calls: Sequence[ModuleCallLike], fold: bool) -> CollapsedGraph:
    nodes = graph.nodes
    n = len(nodes)
    base = module_box_id(graph, 0)
    folded, orig, call_of, box_members = _fold_modules(graph, calls, expanded)

    def originals(f: int) -> tuple[int, ...]:
        return box_members.get(f, (orig[f],))

    def stable(g: _Run, reps: _Repeats, depth: int) -> int:
        first = min(originals(reps.members(g)[0]))
        return n + 16 * first + 2 * min(depth, 7) + (0 if g.kind == "repeat" else 1)

    if fold:
        fexp = {e for e in expanded if e >= n} | {
            f for f, v in enumerate(orig) if v >= 0 and v in expanded}
        view = _collapse(folded, fexp, min_chain, ids=stable)
        fgroups, finfo = view.groups, view.info
    else:
        fgroups, finfo = {}, {}
    groups: dict[int, tuple[int, ...]] = {}
    info: dict[int, GroupInfo] = {}
    labels: dict[int, str] = {}
    inside: set[int] = set()
    for gid, fmembers in fgroups.items():
        gi = finfo[gid]
        ms = tuple(sorted(v for f in fmembers for v in originals(f)))
        inside.update(fmembers)
        key = orig[gid] if gi.kind == "chain" else gid
        groups[key] = ms
        titles = {folded.nodes[f].label for f in fmembers if f in call_of}
        boxes_only = gi.kind != "chain" and all(f in call_of for f in fmembers)
        info[key] = GroupInfo(gi.kind, ms, gi.repeats, gi.block_ops, gi.index, gi.parent,
                              " + ".join(sorted(titles)) if boxes_only else "")
        labels[key] = (f"{len(fmembers)} ops" if gi.kind == "chain"
                       else f"{gi.repeats} × {_ops_text(gi.block_ops)}")
    for f, i in call_of.items():
        if f in inside:
            continue
        c = calls[i]
        ms = box_members[f]
        groups[base + i] = ms
        info[base + i] = GroupInfo("module", ms, 1, tuple(nodes[v].label for v in ms),
                                   c.index, None, c.title)
        labels[base + i] = c.title
    return _view(graph, groups, info, labels)
