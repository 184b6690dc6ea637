"""core/graph_layout: layered layout invariants (rows, order, gaps, each node just above its
nearest consumer, no crossings where none are needed, speed at 20k nodes), chain collapsing, and
repeated blocks (loops, stacks of layers) checked against torch's own graph."""

from __future__ import annotations

import itertools
from collections import defaultdict

import pytest
import torch

from tensor_explorer.core.autograd import Graph, Node, backward, trace
from tensor_explorer.core.graph_layout import (
    CollapsedGraph,
    GroupInfo,
    LayoutCancelled,
    collapse,
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
    """Longest path to a node without inputs, computed by relaxation."""
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


def reference_rows(graph: Graph) -> dict[int, int]:
    """The layout's rows: longest-path layers, then every node that has consumers one row
    above its nearest consumer (nodes without consumers keep their layer), rows numbered
    without gaps."""
    longest = reference_layers(graph)
    consumers: dict[int, list[int]] = defaultdict(list)
    for s, d in graph.edges:
        consumers[d].append(s)
    memo: dict[int, int] = {}

    def row(v: int) -> int:
        if v not in memo:
            memo[v] = min(row(c) for c in consumers[v]) - 1 if consumers[v] else longest[v]
        return memo[v]

    raw = {n.id: row(n.id) for n in graph.nodes}
    rank = {y: i for i, y in enumerate(sorted(set(raw.values())))}
    return {k: rank[v] for k, v in raw.items()}


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
    for s, d in graph.edges:
        assert ys[s] > ys[d]  # every edge points up, from consumer to input
    # every node with consumers is on the row just above its nearest (highest) consumer
    row_of = {y: i for i, y in enumerate(sorted(set(ys.values())))}
    nearest: dict[int, int] = {}
    for s, d in graph.edges:
        nearest[d] = min(nearest.get(d, 1 << 30), row_of[ys[s]])
    for nid, r in nearest.items():
        assert row_of[ys[nid]] == r - 1
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


def test_layering_puts_each_node_just_above_its_nearest_consumer() -> None:
    graph, _ = torch_graph()
    ref = reference_rows(graph)
    assert layers(graph) == ref
    pos = layout(graph, layer_gap=5.0)
    assert all(pos[nid][1] == 5.0 * ref[nid] for nid in ref)
    # a leaf read only near the root sits just above it, not on the top row
    late = synthetic([(0, 1), (1, 2), (2, 3), (0, 4)], 5)  # 4: a leaf read by the root
    assert layers(late) == {3: 0, 2: 1, 1: 2, 4: 2, 0: 3}


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
    pos = layout(graph)  # (its speed: bench/bench_graph_draw.py)
    assert len(pos) == n_ops + n_leaves
    assert pos[0][1] == max(y for _, y in pos.values())


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


# ------------------------------------------------------------------------ repeated blocks


def check_view(graph: Graph, view: CollapsedGraph) -> dict[int, int]:
    """Invariants of any collapsed view, checked against the torch graph itself; returns the
    view node showing each original node."""
    shown: dict[int, int] = {}
    for nd in view.nodes:
        for m in view.members(nd.id):
            assert m not in shown, f"node {m} shown twice"
            shown[m] = nd.id
    assert set(shown) == {n.id for n in graph.nodes}  # every node, exactly once
    for gid, members in view.groups.items():
        assert gid in view.info and view.info[gid].members == members
        for m in members:  # never hidden: the root, leaves, named values, stale nodes
            node = graph.nodes[m]
            assert node.kind == "op" and node.tensor is None and not node.stale, node
    # view edges are exactly the original edges between different view nodes, and each one's
    # originals are real edges of torch's graph (dst is among src's next_functions)
    contracted = {(shown[s], shown[d]) for s, d in graph.edges if shown[s] != shown[d]}
    assert set(view.edges) == contracted and len(view.edges) == len(contracted)
    covered = 0
    for e in view.edges:
        originals = view.originals(e)
        assert originals and (e in view.edge_map) != (e in view.bundles)
        # a bundle ends at one node, or inside one group (a loop carrying h and c)
        assert len({d for _, d in originals}) == 1 or e[1] in view.groups
        for s, d in originals:
            assert (shown[s], shown[d]) == e
            nexts = [f for f, _ in graph.function(s).next_functions]
            assert any(f is graph.function(d) for f in nexts)
        covered += len(originals)
    assert covered == sum(1 for s, d in graph.edges if shown[s] != shown[d])
    # a DAG (Kahn's algorithm removes every node)
    indeg = {nd.id: 0 for nd in view.nodes}
    outs: dict[int, list[int]] = defaultdict(list)
    for s, d in view.edges:
        indeg[d] += 1
        outs[s].append(d)
    ready = [v for v, k in indeg.items() if k == 0]
    done = 0
    while ready:
        v = ready.pop()
        done += 1
        for d in outs[v]:
            indeg[d] -= 1
            if indeg[d] == 0:
                ready.append(d)
    assert done == len(view.nodes), "the collapsed view has a cycle"
    check_basic_invariants(view, layout(view), gap=1.0)  # type: ignore[arg-type]
    return shown


def expand_everything(graph: Graph) -> set[int]:
    """Expand group after group until none is left, checking every view on the way."""
    expanded: set[int] = set()
    while True:
        view = collapse(graph, expanded)
        check_view(graph, view)
        new = set(view.groups) - expanded
        if not new:
            assert len(view.nodes) == len(graph.nodes)
            return expanded
        expanded |= new


def repeats(view: CollapsedGraph) -> list[GroupInfo]:
    """The runs of repeated blocks shown, nearest the root first."""
    return [view.info[n.id] for n in view.nodes if n.kind == "group"
            and view.info[n.id].kind == "repeat"]


def spine(root: torch.Tensor) -> list[object]:
    """torch's own main path: from the root, always the first of next_functions."""
    out = []
    fn = root.grad_fn
    while fn is not None:
        out.append(fn)
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return out


def tanh_loop(
    n: int, name_x: bool = False, name_at: int | None = None, stale_at: int | None = None
) -> tuple[Graph, dict[str, torch.Tensor]]:
    """``for i in range(n): x = torch.tanh(x @ w + b)`` with shared leaves w, b and a start x
    that needs no gradient (so the first iteration's MmBackward0 reads None)."""
    torch.manual_seed(0)
    w = torch.randn(8, 8, requires_grad=True)
    b = torch.randn(8, requires_grad=True)
    x = torch.randn(4, 8)
    names: dict[str, torch.Tensor] = {"w": w, "b": b}
    for i in range(n):
        prev = x
        x = torch.tanh(x @ w + b)
        if i == name_at:
            names["mid"] = x
        if i == stale_at:
            with torch.no_grad():
                prev.add_(0)  # saved by this iteration's mm and the last one's tanh: stale
    names["loss"] = x.sum()
    if name_x:
        names["x"] = x
    return trace(names["loss"], names), names


LOOP_OPS = ("MmBackward0", "AddBackward0", "TanhBackward0")


def test_a_loop_over_shared_leaves_collapses_into_one_run() -> None:
    graph, names = tanh_loop(60)
    assert collapse_chains(graph).groups == {}  # every op reads w or b: no chains
    view = collapse(graph)
    shown = check_view(graph, view)
    (run,) = repeats(view)
    # 59 blocks: the first iteration differs (its x needs no gradient: MmBackward0 reads None)
    assert run.repeats == 59 and run.block_ops == LOOP_OPS and len(run.members) == 3 * 59
    fns = spine(names["loss"])
    assert len(fns) == 1 + 3 * 60 and fns[-1].next_functions[0][0] is None
    ids = {id(graph.function(i)): i for i in range(len(graph))}
    outside = [ids[id(f)] for f in fns[:1] + fns[-3:]]  # the root and the first iteration
    assert [nd.id for nd in view.nodes if nd.kind in ("root", "op")] == outside
    grouped = [ids[id(f)] for f in fns[1:-3]]  # everything between, in root-first order
    assert list(run.members) == grouped
    assert "59 × block of 3 ops: MmBackward0 → AddBackward0 → TanhBackward0" in (
        next(n.label for n in view.nodes if n.kind == "group"))
    # one edge to each shared leaf, standing for the 59 reads of it
    gid = shown[grouped[0]]
    for leaf in ("w", "b"):
        lid = next(n.id for n in graph.leaves() if n.tensor == leaf)
        assert len(view.bundles[(gid, lid)]) == 59
    assert len(view.nodes) == 1 + 1 + 3 + 2  # root, group, first iteration, two leaves


def test_blocks_line_up_with_iterations_and_expand_by_stable_ids() -> None:
    graph, _ = tanh_loop(60, name_x=True)  # the last x is a named value
    view = collapse(graph)
    (run,) = repeats(view)
    # 58: the last iteration's tanh is named (kept out), the first reads None; the blocks
    # still start at an iteration's first op rather than one op later
    assert run.repeats == 58 and run.block_ops == LOOP_OPS
    x_id = next(n.id for n in graph.nodes if n.tensor == "x")
    assert x_id not in run.members
    rid = next(g for g, i in view.info.items() if i.kind == "repeat")
    assert rid >= len(graph.nodes)  # never a node id
    again, _ = tanh_loop(60, name_x=True)
    assert set(collapse(again).groups) == set(view.groups)  # same graph, same ids
    # expanding the run shows its 58 blocks, numbered from the first computed
    blocks_view = collapse(graph, {rid})
    check_view(graph, blocks_view)
    blocks = [blocks_view.info[n.id] for n in blocks_view.nodes if n.kind == "group"]
    assert [b.kind for b in blocks] == ["block"] * 58
    assert sorted(b.index for b in blocks) == list(range(1, 59))
    assert all(b.parent == rid and b.repeats == 58 and len(b.members) == 3 for b in blocks)
    assert sorted(m for b in blocks for m in b.members) == sorted(run.members)
    for b in blocks:  # each block is one iteration: mm, add, tanh
        assert [graph.nodes[m].label for m in reversed(b.members)] == list(LOOP_OPS)
    # expanding one block shows its three ops, the others stay
    bid = next(n.id for n in blocks_view.nodes if n.kind == "group")
    one = collapse(graph, {rid, bid})
    assert len(one.nodes) == len(blocks_view.nodes) + 2
    assert set(blocks_view.groups[bid]) <= {n.id for n in one.nodes}
    expand_everything(graph)


def test_named_and_stale_nodes_split_the_run() -> None:
    graph, _ = tanh_loop(60, name_at=29)  # "mid" = x after the 30th iteration
    view = collapse(graph)
    check_view(graph, view)
    # iterations 31..60 above the named value, 2..29 below it (30 ends with "mid")
    assert [r.repeats for r in repeats(view)] == [30, 28]
    assert next(n.id for n in graph.nodes if n.tensor == "mid") in {n.id for n in view.nodes}
    expand_everything(graph)

    graph, _ = tanh_loop(60, stale_at=30)
    stale = graph.stale_nodes()
    # the 30th iteration's tanh (its saved result) and the 31st's mm (its saved input)
    assert sorted(graph.nodes[i].label for i in stale) == ["MmBackward0", "TanhBackward0"]
    view = collapse(graph)
    check_view(graph, view)
    assert set(stale) <= {n.id for n in view.nodes}
    assert [r.repeats for r in repeats(view)] == [29, 28]  # 32..60 and 2..29
    expand_everything(graph)


def test_layers_with_their_own_weights_are_repeated_blocks() -> None:
    torch.manual_seed(0)
    h = torch.randn(4, 6)
    names: dict[str, torch.Tensor] = {}
    for k in range(12):
        w = names[f"W{k}"] = torch.randn(6, 6, requires_grad=True)
        b = names[f"b{k}"] = torch.randn(6, requires_grad=True)
        h = torch.relu(h @ w + b)
    names["loss"] = h.square().mean()
    graph = trace(names["loss"], names)
    view = collapse(graph)
    shown = check_view(graph, view)
    (run,) = repeats(view)
    assert run.repeats == 11  # the first layer reads no gradient-carrying input
    assert run.block_ops == ("MmBackward0", "AddBackward0", "ReluBackward0")
    # every leaf stays visible; the group reads the 22 leaves of layers 1..11 (one edge each)
    gid = shown[run.members[0]]
    read = {graph.nodes[d].tensor for s, d in view.edges
            if s == gid and graph.nodes[d].kind == "leaf"}
    assert read == {f"{p}{k}" for p in "Wb" for k in range(1, 12)}
    assert not view.bundles
    expand_everything(graph)


def test_residual_diamonds_and_values_shared_from_before_the_loop() -> None:
    torch.manual_seed(0)
    w = torch.randn(8, 8, requires_grad=True)
    h = h0 = torch.randn(4, 8, requires_grad=True)
    for _ in range(40):  # two paths from h to the next h in every block
        h = h + torch.relu(h @ w) * torch.sigmoid(h)
    names = {"w": w, "h0": h0, "loss": h.sum()}
    graph = trace(names["loss"], names)
    view = collapse(graph)
    check_view(graph, view)
    (run,) = repeats(view)
    assert run.repeats == 39 and len(run.block_ops) == 5  # the first reads the leaf h0
    assert set(run.block_ops) == {"AddBackward0", "MulBackward0", "ReluBackward0",
                                  "MmBackward0", "SigmoidBackward0"}
    expand_everything(graph)

    wt = w.t()  # computed once, read by every iteration: it stays out of the blocks
    x = torch.randn(4, 8)
    for _ in range(40):
        x = torch.tanh(x @ wt)
    graph = trace(x.sum(), {"w": w})
    view = collapse(graph)
    check_view(graph, view)
    t_id = next(n.id for n in graph.nodes if n.label == "TBackward0")
    assert t_id in {n.id for n in view.nodes}
    assert [r.repeats for r in repeats(view)] == [38]
    expand_everything(graph)


def test_a_value_read_by_an_earlier_block_breaks_the_run() -> None:
    # iteration 5 reuses iteration 2's sin(w): that sin is dominated by iteration 5's mul,
    # so it sits in that block, but iteration 2 reads it too. A group holding it would be
    # entered from below, and the view would have a cycle; the run is cut there instead.
    torch.manual_seed(0)
    w = torch.randn(3, requires_grad=True)
    h = torch.randn(3)
    sines = []
    for i in range(12):
        sines.append(torch.sin(w))
        h = h * (sines[2] if i == 5 else sines[i])
    graph = trace(h.sum(), {"w": w})
    view = collapse(graph)
    check_view(graph, view)
    reused = next(n.id for n in graph.nodes if n.label == "SinBackward0"
                  and sum(1 for s, d in graph.edges if d == n.id) == 2)
    assert reused in {n.id for n in view.nodes}
    expand_everything(graph)


def test_nested_loops_expand_level_by_level() -> None:
    torch.manual_seed(0)
    w = torch.randn(8, 8, requires_grad=True)
    x = torch.randn(4, 8)
    for _ in range(10):
        for _ in range(5):
            x = torch.tanh(x) * 1.1
        x = x @ w
    graph = trace(x.sum(), {"w": w})
    view = collapse(graph)
    check_view(graph, view)
    (outer,) = repeats(view)
    assert outer.repeats == 9 and len(outer.block_ops) == 11  # 5 x (tanh, mul) + mm
    rid = next(g for g, i in view.info.items() if i.kind == "repeat")
    blocks = collapse(graph, {rid})
    bid = next(g for g, i in blocks.info.items() if i.kind == "block")
    inner = collapse(graph, {rid, bid})
    check_view(graph, inner)
    (run,) = [i for i in inner.info.values() if i.kind == "repeat"]
    assert run.repeats == 5 and run.block_ops == ("TanhBackward0", "MulBackward0")
    assert run.members and set(run.members) < set(blocks.groups[bid])
    expand_everything(graph)


def test_two_loops_joined_at_the_root_are_both_found() -> None:
    torch.manual_seed(0)
    w = torch.randn(8, 8, requires_grad=True)
    x, y = torch.randn(4, 8), torch.randn(4, 8)
    for _ in range(20):
        x = torch.tanh(x @ w)
    for _ in range(30):
        y = torch.sigmoid(y @ w) * 2
    graph = trace(x.sum() + y.sum(), {"w": w})
    view = collapse(graph)
    check_view(graph, view)
    assert sorted(r.repeats for r in repeats(view)) == [19, 29]
    expand_everything(graph)


def test_no_repetition_leaves_the_graph_alone() -> None:
    a = torch.randn(3, requires_grad=True)
    out = ((a.sin() * a.cos() + a.exp()).log() * a).sum()
    graph = trace(out, {"a": a})
    view = collapse(graph)
    check_view(graph, view)
    assert view.groups == {} and [n.id for n in view.nodes] == [n.id for n in graph.nodes]
    assert view.edges == graph.edges and not view.bundles
    # chains still collapse as collapse_chains does
    graph, _ = chain_graph()
    assert collapse(graph).groups == collapse_chains(graph).groups


def test_bundled_edges_carry_every_gradient() -> None:
    graph, names = tanh_loop(30)
    view = collapse(graph)
    record = backward(names["loss"], names=names, graph=graph)
    for leaf in ("w", "b"):
        lid = next(n.id for n in graph.leaves() if n.tensor == leaf)
        total = sum(
            (sum(record.edge_grads[o] for o in view.originals(e))
             for e in view.edges if e[1] == lid),
            torch.zeros_like(names[leaf]),
        )
        torch.testing.assert_close(total, names[leaf].grad)  # every read of the leaf, once


def test_twenty_thousand_traced_nodes_collapse_fast() -> None:
    graph, _ = tanh_loop(7000)
    assert len(graph) > 21_000
    view = collapse(graph)  # (its speed: bench/bench_graph_draw.py)
    assert [r.repeats for r in repeats(view)] == [6999]


def test_a_loop_carrying_two_values_folds_in_creation_order() -> None:
    # A hand-written LSTM: each step reads both h and c of the step before, so no single node
    # enters a step (the dominator tree sees no repeat); its steps are still consecutive
    # stretches of the order the forward pass made the ops, and fold into one run.
    torch.manual_seed(0)
    w = torch.randn(3, 12, requires_grad=True)
    u = torch.randn(3, 12, requires_grad=True)
    xs = torch.randn(40, 1, 3)
    h = torch.zeros(1, 3)
    c = torch.zeros(1, 3)
    for t in range(40):
        gates = xs[t] @ w + h @ u
        i, f, g, o = gates.chunk(4, 1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        h = o.sigmoid() * c.tanh()
    graph = trace(h.sum() + c.sum(), {"w": w, "u": u})
    view = collapse(graph)
    check_view(graph, view)
    runs = [i for i in view.info.values() if i.kind == "repeat"]
    assert len(runs) == 1 and runs[0].repeats >= 36
    # the blocks line up with the iterations: each starts with the two matrix products
    assert runs[0].block_ops[:4] == (
        "MmBackward0", "MmBackward0", "AddBackward0", "SplitBackward0")
    assert len(runs[0].block_ops) == 13
    assert len(view.nodes) < 40
    # the gradient along the bundled edges still adds up to each weight's .grad
    record = backward(h.sum() + c.sum(), names={"w": w, "u": u}, graph=graph)
    w_id = next(n.id for n in graph.leaves() if n.tensor == "w")
    into_w = [e for e in graph.edges if e[1] == w_id]
    total = sum(record.edge_grads[e] for e in into_w)
    torch.testing.assert_close(total, w.grad)
    expand_everything(graph)
