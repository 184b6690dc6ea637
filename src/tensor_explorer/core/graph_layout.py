"""Layered layout of autograd graphs, and collapsing of big ones, as pure functions (no Qt).

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
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import Literal, Protocol

import numpy as np

from .autograd import Graph, Node, _no_gc

__all__ = [
    "CollapsedGraph",
    "GroupInfo",
    "LayoutCancelled",
    "collapse",
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
# collapsing: chains and repeated blocks

GroupKind = Literal["chain", "repeat", "block"]


@dataclass(frozen=True)
class GroupInfo:
    """What a group node of a :class:`CollapsedGraph` stands for.

    ``kind`` is ``"chain"`` (ops with one input and one consumer each), ``"repeat"`` (a run of
    structurally identical consecutive blocks, e.g. the iterations of a loop or the layers of a
    stack) or ``"block"`` (one block of a run the pane expanded). ``members`` are the original
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
    all of them; they all end at the same node, so their gradients add up to what the group
    sends there. :meth:`originals` gives either.
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
    with _no_gc():  # many small lists: each collection would scan every live object
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
    graph: Graph, expanded: Set[int] = frozenset(), *, min_chain: int = 2
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
    and ``c``) is not found.

    **Chains**: then, among the nodes in no repeated group, each maximal run of at least
    ``min_chain`` ops with one input and one consumer becomes a group (:func:`collapse_chains`).

    **Ids and expanding.** A chain's id is its first member's id (nearest the root). Runs and
    blocks get ids from ``len(graph.nodes)`` upwards, in a fixed order, so the same graph
    always gives the same ids. A group whose id is in ``expanded`` shows what is inside it: a
    run its blocks (or its ops, for blocks of one op), a block its ops and inner runs.

    Near-linear: O(nodes + edges) for the chain-like graphs of loops, plus a log factor for
    nested paths and jump-pointer queries; 20k nodes take about 0.1 s.
    """
    with _no_gc():  # many small lists: each collection would scan every live object
        return _collapse(graph, expanded, min_chain)


def _collapse(graph: Graph, expanded: Set[int], min_chain: int) -> CollapsedGraph:
    nodes = graph.nodes
    n = len(nodes)
    reps = _find_repeats(graph)
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
    return _view(graph, groups, info, labels)
