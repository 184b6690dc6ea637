"""core/graph_layout: layered layout invariants (rows, order, gaps, longest-path layering, no
crossings where none are needed, speed at 20k nodes) and chain collapsing."""

from __future__ import annotations

import itertools
import time
from collections import defaultdict

import pytest
import torch

from tensor_explorer.core.autograd import Graph, Node, backward, trace
from tensor_explorer.core.graph_layout import (
    LayoutCancelled,
    collapse_chains,
    layers,
    layout,
)


def synthetic(edges: list[tuple[int, int]], n: int, leaves: set[int] | None = None) -> Graph:
    """A Graph built by hand (node 0 is the root); nodes without out-edges are leaves."""
    outs: dict[int, list[int]] = defaultdict(list)
    for s, d in edges:
        outs[s].append(d)
    nodes = []
    for i in range(n):
        if i == 0:
            kind = "root"
        elif (leaves is not None and i in leaves) or (leaves is None and not outs[i]):
            kind = "leaf"
        else:
            kind = "op"
        label = "AccumulateGrad" if kind == "leaf" else f"Op{i}"
        nodes.append(Node(i, label, kind, None, tuple(outs[i])))  # type: ignore[arg-type]
    info = {}
    return Graph(nodes=nodes, edges=list(dict.fromkeys(edges)), edge_info=info)


def reference_layers(graph: Graph) -> dict[int, int]:
    """Longest path to a node without inputs, computed by memoised relaxation."""
    children: dict[int, list[int]] = defaultdict(list)
    for s, d in graph.edges:
        children[s].append(d)
    layer = {n.id: 0 for n in graph.nodes}
    changed = True
    while changed:
        changed = False
        for s, d in graph.edges:
            if layer[s] < layer[d] + 1:
                layer[s] = layer[d] + 1
                changed = True
    return layer


def crossings(graph: Graph, pos: dict[int, tuple[float, float]]) -> int:
    """Crossings between edges that span exactly one row."""
    rows = layers(graph)
    short = [(s, d) for s, d in graph.edges if rows[s] == rows[d] + 1]
    count = 0
    for i, (a, b) in enumerate(short):
        for c, d in short[i + 1 :]:
            if rows[a] != rows[c] or len({a, b, c, d}) < 4:
                continue
            if (pos[a][0] - pos[c][0]) * (pos[b][0] - pos[d][0]) < 0:
                count += 1
    return count


def torch_graph() -> tuple[Graph, dict[str, torch.Tensor]]:
    torch.manual_seed(0)
    w = torch.randn(4, requires_grad=True)
    b = torch.randn(4, requires_grad=True)
    h = w * b
    for _ in range(6):
        h = torch.tanh(h) * w + b
    names = {"w": w, "b": b, "h": h, "out": h.sum()}
    return trace(names["out"], names), names


def check_basic_invariants(graph: Graph, pos: dict[int, tuple[float, float]], gap: float) -> None:
    assert set(pos) == {n.id for n in graph.nodes}
    ys = {nid: p[1] for nid, p in pos.items()}
    root_y = ys[graph.root]
    assert all(y < root_y for nid, y in ys.items() if nid != graph.root)  # root alone, bottom
    for n in graph.nodes:
        if not n.next_ids or all(i is None for i in n.next_ids):
            assert ys[n.id] == 0.0  # nodes without inputs (leaves) on the top row
    for s, d in graph.edges:
        assert ys[s] > ys[d]  # every edge points up, from consumer to input
    rows: dict[float, list[float]] = defaultdict(list)
    for x, y in pos.values():
        rows[y].append(x)
    for xs in rows.values():
        xs.sort()
        assert all(b - a >= gap - 1e-9 for a, b in itertools.pairwise(xs))
    assert min(x for x, _ in pos.values()) == 0.0


def test_layout_of_a_traced_graph() -> None:
    graph, _ = torch_graph()
    pos = layout(graph, node_gap=2.0, layer_gap=3.0)
    check_basic_invariants(graph, pos, gap=2.0)
    leaves = [n.id for n in graph.leaves()]
    assert {pos[i][1] for i in leaves} == {0.0}
    assert layout(graph, node_gap=2.0, layer_gap=3.0) == pos  # deterministic


def test_layering_is_longest_path() -> None:
    graph, _ = torch_graph()
    assert layers(graph) == reference_layers(graph)
    pos = layout(graph, layer_gap=5.0)
    ref = reference_layers(graph)
    assert all(pos[nid][1] == 5.0 * ref[nid] for nid in ref)


def test_widths_are_respected() -> None:
    # root 0 -> 1..4 (one row of four leaves) of different widths
    graph = synthetic([(0, 1), (0, 2), (0, 3), (0, 4)], 5)
    widths = {1: 10.0, 2: 2.0, 3: 6.0, 4: 1.0}
    pos = layout(graph, node_gap=1.0, widths=widths)
    row = sorted((pos[i][0], i) for i in range(1, 5))
    for (xa, a), (xb, b) in itertools.pairwise(row):
        assert xb - xa >= (widths[a] + widths[b]) / 2 + 1.0 - 1e-9
    # the root is centred under its inputs
    xs = [x for x, _ in row]
    assert pos[0][0] == pytest.approx((min(xs) + max(xs)) / 2, abs=1.0)


def test_a_tree_is_drawn_without_crossings() -> None:
    # a complete binary tree of depth 5 whose children are numbered in scrambled order
    edges = []
    n = 63
    perm = [0, *sorted(range(1, n), key=lambda i: i * 37 % 61)]
    for parent in range(31):
        for child in (2 * parent + 1, 2 * parent + 2):
            edges.append((perm[parent], perm[child]))
    graph = synthetic(edges, n)
    pos = layout(graph)
    check_basic_invariants(graph, pos, gap=1.0)
    assert crossings(graph, pos) == 0


def test_sweeps_remove_crossings_of_a_bad_initial_order() -> None:
    # two parallel chains whose ids interleave so the initial (id) order crosses them
    #   0 -> 1, 0 -> 2; 1 -> 4; 2 -> 3; 4 -> 5 ; 3 -> 6: ids put 3 before 4 though 4 is under 1
    edges = [(0, 1), (0, 2), (1, 4), (2, 3), (4, 6), (3, 5)]
    graph = synthetic(edges, 7)
    assert crossings(graph, layout(graph, sweeps=0)) > 0
    assert crossings(graph, layout(graph)) == 0


def test_cancel() -> None:
    graph, _ = torch_graph()
    with pytest.raises(LayoutCancelled):
        layout(graph, cancel=lambda: True)


def test_empty_and_single_node() -> None:
    assert layout(synthetic([], 0)) == {}
    assert layout(synthetic([], 1)) == {0: (0.0, 0.0)}


def test_twenty_thousand_nodes_lay_out_fast() -> None:
    # a chain of 20k ops, each also reading one of 8 reused leaves every other step
    n_ops, n_leaves = 20_000, 8
    edges = []
    for i in range(n_ops - 1):
        edges.append((i, i + 1))
        if i % 2 == 0:
            edges.append((i, n_ops + (i % n_leaves)))
    edges.append((n_ops - 1, n_ops))
    graph = synthetic(edges, n_ops + n_leaves)
    t0 = time.perf_counter()
    pos = layout(graph)
    elapsed = time.perf_counter() - t0
    assert len(pos) == n_ops + n_leaves
    assert pos[0][1] == max(y for _, y in pos.values())
    assert elapsed < 2.0, f"layout of 20k nodes took {elapsed:.2f} s"


# ------------------------------------------------------------------------ collapse_chains


def chain_graph() -> tuple[Graph, dict[str, torch.Tensor]]:
    """w -> mul(w, b) -> tanh -> sin -> exp -> mul 0.5 -> (named) z -> add b -> sum."""
    w = torch.randn(3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    h = (w * b).tanh().sin().exp() * 0.5
    z = h.neg()
    out = (z + b).sum()
    names = {"w": w, "b": b, "z": z, "out": out}
    return trace(out, names), names


def test_collapse_chains_groups_single_input_single_output_runs() -> None:
    graph, names = chain_graph()
    view = collapse_chains(graph)
    assert len(view.groups) == 1
    ((gid, members),) = view.groups.items()
    labels = [graph.nodes[m].label for m in members]
    assert labels == ["MulBackward0", "ExpBackward0", "SinBackward0", "TanhBackward0"]
    group = next(n for n in view.nodes if n.id == gid)
    assert group.kind == "group" and "4 ops" in group.label
    # the named intermediate, the root and the leaves stay
    kept = {n.id for n in view.nodes}
    assert {n.id for n in graph.nodes if n.tensor or n.kind in ("root", "leaf")} <= kept
    assert len(view.nodes) == len(graph.nodes) - 3
    # every view edge maps to a real edge, entering the group at its first member and leaving
    # it from its last
    for e, orig in view.edge_map.items():
        assert orig in graph.edge_info
        if e[1] == gid:
            assert orig[1] == members[0]
        if e[0] == gid:
            assert orig[0] == members[-1]
    assert len(view.edges) == len(graph.edges) - (len(members) - 1)
    record = backward(names["out"], names=names, graph=graph)
    for e in view.edges:
        assert view.edge_map[e] in record.edge_grads
    check_basic_invariants(view, layout(view), gap=1.0)  # type: ignore[arg-type]


def test_collapse_chains_expanded_and_min_length() -> None:
    graph, _ = chain_graph()
    gid = next(iter(collapse_chains(graph).groups))
    assert collapse_chains(graph, expanded={gid}).groups == {}
    assert len(collapse_chains(graph, expanded={gid}).nodes) == len(graph.nodes)
    assert collapse_chains(graph, min_length=5).groups == {}
    assert len(collapse_chains(graph, min_length=4).groups) == 1


def test_nothing_to_collapse_in_a_branching_graph() -> None:
    graph, _ = torch_graph()  # every tanh feeds a mul that also reads w: no runs of 2
    view = collapse_chains(graph)
    assert view.groups == {} and len(view.nodes) == len(graph.nodes)
    assert view.members(0) == (0,)
