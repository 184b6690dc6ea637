"""core/autograd: a graph traced without saved tensors (what tx.backward traces) makes its
nodes, edges and edge details on first read, and they are those of a full trace; the slot
and edge gradients read from the flat form agree with the graph's own; a graph given by hand
(nodes and edges only) records the same gradients."""

from __future__ import annotations

import torch

from tensor_explorer.core import autograd as ag
from tensor_explorer.core.autograd import backward, trace

from .test_autograd import assert_edges_match_reference


def build() -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    w = torch.randn(4, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, dtype=torch.float64, requires_grad=True)
    h = w * b
    for i in range(9):
        h = torch.tanh(h) * w if i % 2 else h + torch.sin(h) * b
    left, right = h.split(2)
    y = left * right
    root = torch.cat([y * y, right.exp(), left]).sum()
    return root, {"w": w, "b": b, "y": y}


def without_saved(nodes: list[ag.Node]) -> list[ag.Node]:
    return [n._replace(saved=()) for n in nodes]


def test_lazy_trace_equals_full_trace() -> None:
    root, names = build()
    full = trace(root, names)
    lazy = trace(root, names, saved=False)
    assert lazy._nodes is None and lazy._edge_info is None  # nothing made yet
    assert len(lazy) == len(full)
    assert without_saved(lazy.nodes) == without_saved(full.nodes)
    assert lazy.edges == full.edges
    assert lazy.edge_info == full.edge_info
    assert any(n.saved for n in full.nodes) and not any(n.saved for n in lazy.nodes)
    named = {n.tensor for n in lazy.nodes if n.tensor}
    assert named == {"w", "b", "y"}


def test_backward_makes_no_node_objects_and_they_come_later() -> None:
    root, names = build()
    record = backward(root, names=names, retain_graph=True)
    graph = record.graph
    assert graph._nodes is None and graph._edge_info is None
    assert_edges_match_reference(record, root)  # reads nodes, edge_info, edge_grads
    # every slot of every edge is there, with the edge's gradient or its parts
    for (src, dst), info in graph.edge_info.items():
        got = [record.slot_grads.get((src, slot)) for slot in info.slots]
        if len(info.slots) == 1:
            assert got[0] is record.edge_grads.get((src, dst))
        else:
            assert all(g is not None for g in got)
    assert len(record.slot_grads) == sum(len(i.slots) for i in graph.edge_info.values())


def test_graph_given_by_hand_records_the_same() -> None:
    root, names = build()
    traced = trace(root, names)
    by_hand = ag.Graph(
        list(traced.nodes),
        list(traced.edges),
        dict(traced.edge_info),
        0,
        traced._functions,
    )
    record = backward(root, names=names, retain_graph=True, graph=by_hand)
    assert record.graph is by_hand
    assert_edges_match_reference(record, root)
    again = backward(root, names=names, retain_graph=True, graph=traced)
    assert set(again.edge_grads) == set(record.edge_grads)
    assert set(again.slot_grads) == set(record.slot_grads)
    for key, g in record.slot_grads.items():
        torch.testing.assert_close(again.slot_grads[key], g)
