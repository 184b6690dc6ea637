"""core/autograd: traces against an independent walk of ``next_functions``, recorded gradients
against a plain ``backward()`` / ``torch.autograd.grad`` on identical graphs, accumulation,
zero_grad, retain_grad, the plain-words errors, and the numerical check."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import tensor_explorer as tx
from tensor_explorer.core import autograd as ag
from tensor_explorer.core.autograd import (
    BackwardError,
    GradHistory,
    backward,
    numerical_check,
    step_count,
    trace,
    zero_grad,
)

# --------------------------------------------------------------------------------- helpers


def independent_walk(root: torch.Tensor) -> tuple[list[object], set[tuple[int, int]]]:
    """Depth-first walk of grad_fn.next_functions with an explicit stack: nodes and the set
    of (id(src), id(dst)) pairs. The graph under test must be alive (it keeps the node
    wrappers, so their identity is stable)."""
    start = root.grad_fn
    seen = {id(start): start}
    edges: set[tuple[int, int]] = set()
    stack = [start]
    while stack:
        fn = stack.pop()
        for child, _ in fn.next_functions:
            if child is None:
                continue
            edges.add((id(fn), id(child)))
            if id(child) not in seen:
                seen[id(child)] = child
                stack.append(child)
    return list(seen.values()), edges


def seed_example(device: str = "cpu") -> dict[str, torch.Tensor]:
    """The seed chapter's example three: y = x @ weight + bias; loss = y.square().mean()."""
    x = torch.tensor([[2.0, 3.0]], requires_grad=True, device=device)
    weight = torch.tensor([[0.5], [2.0]], requires_grad=True, device=device)
    bias = torch.tensor([1.0], requires_grad=True, device=device)
    y = x @ weight + bias
    loss = y.square().mean()
    return {"x": x, "weight": weight, "bias": bias, "y": y, "loss": loss}


def in_edge_sum(record: ag.BackwardRecord, node_id: int) -> torch.Tensor:
    parts = [g for (s, d), g in record.edge_grads.items() if d == node_id]
    assert parts, f"no gradient flowed into node {node_id}"
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    return total


def reference_edge_grads(
    root: torch.Tensor, graph: ag.Graph, gradient: torch.Tensor | None = None
) -> dict[tuple[int, int], torch.Tensor | tuple[torch.Tensor | None, ...]]:
    """Edge gradients the obvious way: a hook on every op node, grad_inputs[i] is the gradient
    along next_functions[i] (summed when two slots feed the same input of a node; a tuple, in
    slot order, when they feed different outputs of a multi-output op). Runs a second
    backward on the graph (it must have been retained)."""
    seen: dict[int, tuple[torch.Tensor | None, ...]] = {}
    handles = []
    for node in graph.nodes:
        fn = graph.function(node.id)
        if node.kind != "leaf":
            handles.append(fn.register_hook(lambda gi, go, nid=node.id: seen.__setitem__(nid, gi)))
    try:
        torch.autograd.backward(root, gradient, retain_graph=True)
    finally:
        for h in handles:
            h.remove()
    out: dict[tuple[int, int], torch.Tensor | tuple[torch.Tensor | None, ...]] = {}
    for node in graph.nodes:
        parts: dict[int, list[tuple[int, torch.Tensor | None]]] = {}  # dst -> (input_nr, g)
        gi = seen.get(node.id, ())
        for slot, (dst, (_, nr)) in enumerate(
            zip(node.next_ids, graph.function(node.id).next_functions, strict=True)
        ):
            if dst is not None:
                parts.setdefault(dst, []).append((nr, gi[slot] if slot < len(gi) else None))
        for dst, got in parts.items():
            grads = [g for _, g in got]
            if all(g is None for g in grads):
                continue
            if len({nr for nr, _ in got}) > 1:  # different outputs of a multi-output op
                out[(node.id, dst)] = tuple(grads)
                continue
            total = None
            for g in grads:
                if g is not None:
                    total = g if total is None else total + g
            assert total is not None
            out[(node.id, dst)] = total
    return out


def assert_edges_match_reference(record: ag.BackwardRecord, root: torch.Tensor) -> None:
    ref = reference_edge_grads(root, record.graph, record.root_gradient)
    assert set(record.edge_grads) == set(ref)
    for key, g in ref.items():
        got = record.edge_grads[key]
        if isinstance(g, tuple):  # right * left: one edge, two outputs of the split
            assert isinstance(got, tuple) and len(got) == len(g)
            for a, b in zip(got, g, strict=True):
                assert (a is None) == (b is None)
                if a is not None:
                    torch.testing.assert_close(a, b)
        else:
            torch.testing.assert_close(got, g)


def assert_no_python_calls_during(fn: Callable[[], object]) -> None:
    """Fail if any function defined in core/autograd.py runs while ``fn`` runs (a hook left
    registered on a node would)."""
    calls: list[str] = []

    def profiler(frame, event, arg):  # type: ignore[no-untyped-def]
        if event == "call" and frame.f_code.co_filename == ag.__file__:
            calls.append(frame.f_code.co_name)

    sys.setprofile(profiler)
    try:
        fn()
    finally:
        sys.setprofile(None)
    assert calls == []


# --------------------------------------------------------------------------------- trace


def test_public_names_come_from_core() -> None:
    assert tx.trace is trace
    assert tx.backward is backward
    assert tx.Graph is ag.Graph
    assert tx.Node is ag.Node
    assert tx.BackwardRecord is ag.BackwardRecord


def test_trace_seed_example_labels_kinds_names_and_edges() -> None:
    v = seed_example()
    graph = trace(v["loss"], v)
    labels = [n.label for n in graph.nodes]
    assert labels[0] == "MeanBackward0"
    assert sorted(labels) == sorted(
        ["MeanBackward0", "PowBackward0", "AddBackward0", "MmBackward0"] + ["AccumulateGrad"] * 3
    )
    assert [n.id for n in graph.nodes] == list(range(len(graph.nodes)))
    root = graph.nodes[graph.root]
    assert root.kind == "root" and root.tensor == "loss"
    leaves = {n.tensor: n for n in graph.nodes if n.kind == "leaf"}
    assert set(leaves) == {"x", "weight", "bias"}
    assert all(n.label == "AccumulateGrad" for n in leaves.values())
    assert leaves["weight"].shape == (2, 1) and leaves["weight"].dtype == "torch.float32"
    for name, node in leaves.items():
        assert graph.leaf_tensor(node.id) is v[name]
    # the named intermediate y
    (y_node,) = [n for n in graph.nodes if n.tensor == "y"]
    assert graph.function(y_node.id) is v["y"].grad_fn and y_node.kind == "op"
    assert [n.kind for n in graph.nodes if n.tensor is None] == ["op", "op"]


def test_trace_matches_an_independent_walk() -> None:
    v = seed_example()
    graph = trace(v["loss"], v)
    fns, ref_edges = independent_walk(v["loss"])
    assert {id(graph.function(n.id)) for n in graph.nodes} == {id(f) for f in fns}
    got = {(id(graph.function(s)), id(graph.function(d))) for s, d in graph.edges}
    assert got == ref_edges
    assert len(graph.edges) == len(ref_edges)  # each pair once
    for node in graph.nodes:  # next_ids follows next_functions order, None where None
        nf = graph.function(node.id).next_functions
        assert len(node.next_ids) == len(nf)
        for nid, (child, _) in zip(node.next_ids, nf, strict=True):
            assert (nid is None) == (child is None)
            if nid is not None:
                assert graph.function(nid) is child


def test_none_next_functions_are_skipped() -> None:
    a = torch.randn(3, requires_grad=True)
    c = torch.randn(3)  # needs no gradient
    out = (a * c).sum()
    graph = trace(out, {"a": a, "c": c})
    (mul,) = [n for n in graph.nodes if n.label == "MulBackward0"]
    assert mul.next_ids[1] is None and mul.next_ids[0] is not None
    assert all(None not in e for e in graph.edges)
    assert len(graph.edges) == 2


def test_same_input_twice_is_one_edge_with_two_slots() -> None:
    x = torch.randn(4, dtype=torch.float64, requires_grad=True)
    y = (x * x).sum()
    graph = trace(y, {"x": x})
    (mul,) = [n for n in graph.nodes if n.label == "MulBackward0"]
    leaf = next(n for n in graph.nodes if n.tensor == "x")
    assert graph.edges.count((mul.id, leaf.id)) == 1
    assert graph.edge_info[(mul.id, leaf.id)].slots == (0, 1)
    record = backward(y, names={"x": x}, graph=graph)
    torch.testing.assert_close(record.edge_grads[(mul.id, leaf.id)], 2 * x.detach())


def test_trace_is_iterative_on_deep_graphs() -> None:
    depth = 3 * sys.getrecursionlimit()
    x = torch.ones(1, requires_grad=True)
    h = x
    for _ in range(depth):
        h = h * 1.0
    graph = trace(h, saved=False)
    assert len(graph.nodes) == depth + 1
    assert len(graph.edges) == depth
    assert graph.nodes[-1].kind == "leaf"


def test_multi_output_node_lists_every_name() -> None:
    x = torch.randn(4, requires_grad=True)
    a, b = x.split(2)
    out = (a * b).sum()
    graph = trace(out, {"a": a, "b": b, "x": x})
    (split,) = [n for n in graph.nodes if n.label.startswith("Split")]
    assert split.tensors == ("a", "b") and split.tensor == "a"


def test_names_may_be_a_workspace_like_object() -> None:
    v = seed_example()

    class FakeWorkspace:
        def names(self) -> list[str]:
            return list(v)

        def __getitem__(self, name: str) -> torch.Tensor:
            return v[name]

    graph = trace(v["loss"], FakeWorkspace())
    assert {n.tensor for n in graph.leaves()} == {"x", "weight", "bias"}


def test_edge_shapes_are_known_before_backward_and_match_the_gradients() -> None:
    v = seed_example()
    graph = trace(v["loss"], v)
    for info in graph.edge_info.values():
        assert info.shape is not None and info.dtype == "torch.float32"
    record = backward(v["loss"], names=v, graph=graph)
    assert set(record.edge_grads) == set(graph.edges)
    for key, grad in record.edge_grads.items():
        assert tuple(grad.shape) == graph.edge_info[key].shape


def test_saved_tensors_shapes_and_dtypes() -> None:
    x = torch.randn(2, 3, requires_grad=True)
    w = torch.randn(3, 4, dtype=torch.float32, requires_grad=True)
    out = (x @ w).exp().sum()
    graph = trace(out)
    mm = next(n for n in graph.nodes if n.label == "MmBackward0")
    saved = {s.name: s for s in mm.saved}
    assert saved["self"].shape == (2, 3) and saved["mat2"].shape == (3, 4)
    assert saved["self"].dtype == "torch.float32" and saved["self"].device == "cpu"
    assert not any(s.stale or s.freed for s in mm.saved)
    exp = next(n for n in graph.nodes if n.label == "ExpBackward0")
    assert [s.name for s in exp.saved] == ["result"]
    torch.testing.assert_close(graph.saved_value(exp.id, "result"), (x @ w).exp())
    assert trace(out, saved=False).nodes[mm.id].saved == ()


def test_in_place_change_after_save_is_stale_with_versions() -> None:
    # the seed's in-place-after-save error: modify a tensor autograd saved for backward
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.exp()  # ExpBackward0 saves its result, y
    z = (y * 2).sum()
    y.add_(1)  # y is now at version 1; autograd saved version 0
    graph = trace(z, {"x": x, "y": y})
    (exp,) = [n for n in graph.nodes if n.label == "ExpBackward0"]
    assert exp.stale and graph.stale_nodes() == [exp.id]
    (info,) = exp.saved
    assert info.name == "result" and info.stale and not info.freed
    assert (info.version, info.saved_version) == (y._version, 0) == (1, 0)
    assert info.shape == (3,) and "version 1" in (info.message or "")
    with pytest.raises(BackwardError) as err:
        backward(z, names={"x": x, "y": y}, graph=graph)
    e = err.value
    assert isinstance(e, ValueError) and e.code == "stale_saved"
    assert e.node_ids == (exp.id,)
    assert "version 1" in e.explanation and "version 0" in e.explanation
    assert "ExpBackward0" in e.explanation
    assert e.torch_message is not None and "inplace operation" in e.torch_message
    assert e.torch_message in str(e)
    with pytest.raises(BackwardError):
        graph.saved_value(exp.id, "result")


def test_saved_tensors_show_as_freed_after_backward() -> None:
    x = torch.randn(3, requires_grad=True)
    out = x.exp().sum()
    backward(out)
    exp = next(n for n in trace(out).nodes if n.label == "ExpBackward0")
    assert exp.saved[0].freed and not exp.saved[0].stale


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda x: x, "leaf"),
        (lambda x: x.detach() * 2, "detach"),
        (lambda x: _under(torch.no_grad, lambda: x * 2), "no_grad"),
        (lambda x: _under(torch.inference_mode, lambda: x * 2), "inference_mode"),
    ],
    ids=["leaf", "detach", "no_grad", "inference_mode"],
)
def test_no_grad_fn_is_a_plain_words_value_error(
    make: Callable[[torch.Tensor], torch.Tensor], words: str
) -> None:
    x = torch.randn(3, requires_grad=True)
    t = make(x)
    assert t.grad_fn is None
    for call in (lambda: trace(t), lambda: backward(t, gradient=torch.ones(3))):
        with pytest.raises(ValueError) as err:
            call()
        assert isinstance(err.value, BackwardError) and err.value.code == "no_graph"
        assert words in str(err.value)
        assert ag.no_graph_reason(t) == err.value.explanation


def _under(ctx: Callable[[], object], fn: Callable[[], torch.Tensor]) -> torch.Tensor:
    with ctx():  # type: ignore[attr-defined]
        return fn()


# ------------------------------------------------------------------------------ backward


def test_backward_matches_plain_backward_on_the_seed_example() -> None:
    v, ref = seed_example(), seed_example()
    record = backward(v["loss"], names=v)
    ref["loss"].backward()
    assert set(record.grads) == {"x", "weight", "bias"}
    for name in ("x", "weight", "bias"):
        torch.testing.assert_close(record.grads[name], ref[name].grad)
        torch.testing.assert_close(v[name].grad, ref[name].grad)
        assert record.grads_before[name] is None
    # the seed's printed values: weight_grad = [[32], [48]], x_grad = [[8, 32]]
    assert record.grads["weight"].tolist() == [[32.0], [48.0]]
    assert record.grads["x"].tolist() == [[8.0, 32.0]]
    assert record.step == 1 and record.steps == {"x": 1, "weight": 1, "bias": 1}
    assert record.graph.nodes[0].tensor == "loss"


def test_edge_gradients_match_autograd_grad() -> None:
    v, ref = seed_example(), seed_example()
    record = backward(v["loss"], names=v)
    g = record.graph
    y_node = next(n.id for n in g.nodes if n.tensor == "y")
    (gy,) = torch.autograd.grad(ref["loss"], ref["y"])
    torch.testing.assert_close(in_edge_sum(record, y_node), gy)
    for leaf in g.leaves():
        torch.testing.assert_close(in_edge_sum(record, leaf.id), v[leaf.tensor].grad)
    # the first edge carries d loss / d (y ** 2) = 1 / numel
    torch.testing.assert_close(record.edge_grads[(0, g.nodes[0].next_ids[0])], torch.ones(1, 1))


def test_leaves_used_several_times() -> None:
    def build() -> dict[str, torch.Tensor]:
        w = torch.linspace(-1, 1, 5, dtype=torch.float64).requires_grad_(True)
        b = torch.full((5,), 0.5, dtype=torch.float64, requires_grad=True)
        h = w * b
        h = torch.sin(h) + w  # w used again
        h = h * w + b  # and again, b too
        return {"w": w, "b": b, "h": h, "out": (h * h).sum()}

    v, ref = build(), build()
    record = backward(v["out"], names=v)
    ref["out"].backward()
    g = record.graph
    w_leaf = next(n for n in g.leaves() if n.tensor == "w")
    assert sum(1 for _, d in g.edges if d == w_leaf.id) == 3
    for name in ("w", "b"):
        torch.testing.assert_close(record.grads[name], ref[name].grad)
        leaf = next(n for n in g.leaves() if n.tensor == name)
        torch.testing.assert_close(in_edge_sum(record, leaf.id), ref[name].grad)


def test_non_scalar_root_with_gradient() -> None:
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x_ref = x.detach().clone().requires_grad_(True)
    grad = torch.tensor([0.1, 1.0, 10.0])
    record = backward(x**2 + 3 * x, gradient=grad, names={"x": x})
    (x_ref**2 + 3 * x_ref).backward(grad)
    torch.testing.assert_close(record.grads["x"], x_ref.grad)
    torch.testing.assert_close(record.root_gradient, grad)
    # a nested list works as gradient too (the pane's text input)
    z = torch.ones(2, requires_grad=True)
    record = backward(z * 3, gradient=[1, 2], names={"z": z})
    assert record.grads["z"].tolist() == [3.0, 6.0]


def test_non_scalar_root_without_gradient_says_to_pass_one() -> None:
    x = torch.randn(2, 3, requires_grad=True)
    y = x * 2
    with pytest.raises(BackwardError) as err:
        backward(y)
    assert err.value.code == "non_scalar" and isinstance(err.value, ValueError)
    assert "(2, 3)" in str(err.value) and "gradient=" in str(err.value)
    assert x.grad is None
    with pytest.raises(BackwardError) as err:
        backward(y, gradient=torch.ones(3))
    assert err.value.code == "bad_gradient"
    # torch itself refuses the same thing: our message replaces, not hides, a real error
    with pytest.raises(RuntimeError, match="scalar outputs"):
        y.backward()
    # a one-element root is fine without gradient, like in torch
    backward((x.sum() * 2).reshape(1, 1))
    torch.testing.assert_close(x.grad, torch.full((2, 3), 2.0))


def test_backward_twice_without_retain_graph() -> None:
    v = seed_example()
    backward(v["loss"], names=v)
    with pytest.raises(BackwardError) as err:
        backward(v["loss"], names=v)
    e = err.value
    assert e.code == "backward_twice" and "retain_graph=True" in e.explanation
    assert e.torch_message is not None and "second time" in e.torch_message
    assert isinstance(e.__cause__, RuntimeError)


def test_accumulation_over_three_calls() -> None:
    v, ref = seed_example(), seed_example()
    ref["loss"].backward()
    history = GradHistory()
    records = [backward(v["loss"], retain_graph=True, names=v) for _ in range(3)]
    for r in records:
        history.add(r)
    assert [r.step for r in records] == [1, 2, 3]
    assert records[2].steps == {"x": 3, "weight": 3, "bias": 3}
    for name in ("x", "weight", "bias"):
        torch.testing.assert_close(records[2].grads[name], 3 * ref[name].grad)
        torch.testing.assert_close(records[2].grads_before[name], 2 * ref[name].grad)
        torch.testing.assert_close(records[0].grads[name], ref[name].grad)  # a snapshot
        assert step_count(v[name]) == 3
    # per-call edge gradients are the same each call (they do not accumulate)
    for key, grad in records[2].edge_grads.items():
        torch.testing.assert_close(grad, records[0].edge_grads[key])
    norms = history.norms("weight")
    w = float(ref["weight"].grad.norm())
    assert norms == pytest.approx([w, 2 * w, 3 * w])
    assert [row["step"] for row in history.rows()] == [1, 2, 3]
    assert set(history.names()) == {"x", "weight", "bias"}


def test_zero_grad_set_to_none_and_zeros() -> None:
    v, ref = seed_example(), seed_example()
    ref["loss"].backward()
    leaves = ["x", "weight", "bias"]
    history = GradHistory()
    history.add(backward(v["loss"], retain_graph=True, names=v))
    history.add(backward(v["loss"], retain_graph=True, names=v))

    zr = zero_grad(leaves, set_to_none=True, names=v)
    history.add(zr)
    assert all(v[n].grad is None for n in leaves) and zr.grads == dict.fromkeys(leaves)
    r = backward(v["loss"], retain_graph=True, names=v)
    history.add(r)
    assert r.step == 1
    torch.testing.assert_close(r.grads["weight"], ref["weight"].grad)

    zr = zero_grad([v["x"], v["weight"], v["bias"]], set_to_none=False, names=v)
    history.add(zr)
    for n in leaves:
        assert v[n].grad is not None and torch.count_nonzero(v[n].grad) == 0
        assert zr.grads[n] is not None and zr.grads[n].shape == v[n].shape
    r = backward(v["loss"], retain_graph=True, names=v)
    history.add(r)
    torch.testing.assert_close(r.grads["weight"], ref["weight"].grad)
    # .grad was never None since the last reset, so the count goes on (the contract)
    assert r.step == 2
    w = float(ref["weight"].grad.norm())
    assert history.norms("weight") == pytest.approx([w, 2 * w, None, w, 0.0, w])
    assert [e.event for e in history.entries].count("zero_grad") == 2

    with pytest.raises(ValueError, match="not a leaf"):
        zero_grad([v["y"]])
    zero_grad(trace(v["loss"], v), set_to_none=True)
    assert all(v[n].grad is None for n in leaves)


def test_retain_grad_on_named_intermediates() -> None:
    v, ref = seed_example(), seed_example()
    record = backward(v["loss"], names=v, retain=["y"])
    (gy,) = torch.autograd.grad(ref["loss"], ref["y"])
    torch.testing.assert_close(record.retained["y"], gy)
    assert v["y"].retains_grad
    with pytest.raises(BackwardError):
        backward(seed_example()["loss"], names=v, retain=["x"])  # a leaf


def test_hooks_are_removed_after_success_and_after_an_error() -> None:
    x = torch.randn(3, requires_grad=True)
    y = x.exp() * 2
    backward(y, gradient=torch.ones(3), retain_graph=True, names={"x": x})
    assert_no_python_calls_during(lambda: y.backward(torch.ones(3), retain_graph=True))

    class FailOnce(torch.autograd.Function):
        failed = False

        @staticmethod
        def forward(ctx, a):  # type: ignore[no-untyped-def, override]
            return a * 1.0

        @staticmethod
        def backward(ctx, g):  # type: ignore[no-untyped-def, override]
            if not FailOnce.failed:
                FailOnce.failed = True
                raise RuntimeError("deliberate failure")
            return g

    z = FailOnce.apply(x.sin()).exp().sum()
    with pytest.raises(BackwardError) as err:
        backward(z, retain_graph=True)
    assert err.value.code == "other" and "deliberate failure" in str(err.value)
    # the custom backward itself is Python, so profile only our module's functions
    assert_no_python_calls_during(lambda: z.backward(retain_graph=True))


def test_record_keeps_first_call_edges_when_graph_is_reused() -> None:
    x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    y = x.sin() * x
    g1 = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    record = backward(y, gradient=g1, retain_graph=True)
    y.backward(5 * g1, retain_graph=True)  # would overwrite captures if a hook were left
    first = record.edge_grads[(0, record.graph.nodes[0].next_ids[0])]
    torch.testing.assert_close(first, g1 * x.detach())


def test_every_edge_matches_a_hook_on_every_node() -> None:
    # recording hooks only some nodes (reading the others' edges at their destination);
    # compare every edge with hooks on all nodes, on a graph with long single-input runs,
    # reused leaves, a multi-output op and a non-scalar root
    w = torch.randn(6, dtype=torch.float64, requires_grad=True)
    b = torch.randn(6, dtype=torch.float64, requires_grad=True)
    h = w * b
    for i in range(12):
        h = torch.tanh(h).sin() * 0.9 if i % 3 else h * w + b
    left, right = h.split(3)
    root = torch.cat([left.exp(), right * left])
    gradient = torch.linspace(-1, 1, 6, dtype=torch.float64)
    record = backward(root, gradient=gradient, retain_graph=True, names={"w": w, "b": b})
    hooked, _ = record.graph._hook_plan or ([], None)
    assert len(hooked) < len([n for n in record.graph.nodes if n.kind != "leaf"])
    assert_edges_match_reference(record, root)


def test_unnamed_leaves_are_in_leaf_grads() -> None:
    model = torch.nn.Linear(3, 2)
    out = model(torch.randn(4, 3)).sum()
    record = backward(out)
    assert record.grads == {}
    by_tensor = {id(record.graph.leaf_tensor(i)): g for i, g in record.leaf_grads.items()}
    for p in model.parameters():
        torch.testing.assert_close(by_tensor[id(p)], p.grad)
    assert record.step == 1


# random graphs ------------------------------------------------------------------------

OPS = ["add", "mul", "sin", "square", "exp", "sub_const", "mean_bcast"]


def _build_random(ops: list[tuple[str, int, int]], n_leaves: int) -> list[torch.Tensor]:
    torch.manual_seed(1)
    pool = [
        torch.randn(3, dtype=torch.float64).requires_grad_(i != n_leaves - 1 or i == 0)
        for i in range(n_leaves)
    ]
    for op, i, j in ops:
        a, b = pool[i % len(pool)], pool[j % len(pool)]
        if op == "add":
            pool.append(a + b)
        elif op == "mul":
            pool.append(a * b)
        elif op == "sin":
            pool.append(torch.sin(a))
        elif op == "square":
            pool.append(a * a)
        elif op == "exp":
            pool.append(torch.exp(a * 0.1))
        elif op == "sub_const":
            pool.append(a - torch.arange(3, dtype=torch.float64))
        else:
            pool.append(a - a.mean())
    return pool


def _root_of(pool: list[torch.Tensor]) -> torch.Tensor:
    total = pool[0].sum()
    for t in pool[1:]:
        if t.requires_grad:
            total = total + (t * t).sum()
    return total


@settings(max_examples=25, deadline=None)
@given(
    ops=st.lists(
        st.tuples(st.sampled_from(OPS), st.integers(0, 40), st.integers(0, 40)),
        min_size=1,
        max_size=12,
    ),
    n_leaves=st.integers(1, 3),
)
def test_random_graphs_trace_and_gradients(ops: list[tuple[str, int, int]], n_leaves: int) -> None:
    pool = _build_random(ops, n_leaves)
    root = _root_of(pool)
    names = {f"t{i}": t for i, t in enumerate(pool)}
    graph = trace(root, names)
    fns, ref_edges = independent_walk(root)
    assert len(graph.nodes) == len(fns)
    assert {(id(graph.function(s)), id(graph.function(d))) for s, d in graph.edges} == ref_edges

    ref_pool = _build_random(ops, n_leaves)
    ref_root = _root_of(ref_pool)
    wanted = [i for i, t in enumerate(ref_pool) if t.requires_grad]
    ref_grads = torch.autograd.grad(ref_root, [ref_pool[i] for i in wanted])
    record = backward(root, names=names, graph=graph, retain_graph=True)
    assert_edges_match_reference(record, root)
    node_of_fn = {id(graph.function(n.id)): n.id for n in graph.nodes}
    for i, g in zip(wanted, ref_grads, strict=True):
        t = pool[i]
        if t.grad_fn is None:  # a leaf
            torch.testing.assert_close(record.grads[f"t{i}"], g)
            nid = next(n.id for n in graph.leaves() if n.tensor == f"t{i}")
        else:
            nid = node_of_fn[id(t.grad_fn)]
        torch.testing.assert_close(in_edge_sum(record, nid), g)


# ------------------------------------------------------------------------- numerical check


def test_numerical_check_agrees_on_a_correct_graph() -> None:
    x = torch.randn(2, 3)
    w = torch.randn(3, 4, requires_grad=True)
    before = w.detach().clone()
    result = numerical_check(lambda x, w: (x @ w).tanh().sum(dim=0), {"x": x, "w": w})
    assert set(result.inputs) == {"x", "w"}
    assert result.passed and result.max_abs_diff < 1e-7
    assert result.inputs["w"].analytic.shape == (4, 3, 4)
    assert result.inputs["w"].analytic.dtype == torch.float64
    assert torch.equal(w.detach(), before) and w.grad is None  # originals untouched


def test_numerical_check_catches_a_wrong_backward() -> None:
    class WrongSquare(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):  # type: ignore[no-untyped-def, override]
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):  # type: ignore[no-untyped-def, override]
            (a,) = ctx.saved_tensors
            return g * 3 * a  # should be 2 * a

    x = torch.tensor([1.0, -2.0, 0.5])
    result = numerical_check(lambda x: WrongSquare.apply(x).sum(), {"x": x})
    assert not result.passed
    assert result.inputs["x"].max_abs_diff == pytest.approx(2.0, rel=1e-5)  # |3a - 2a| at -2
    assert result.inputs["x"].worst_index == (1,)


def test_numerical_check_refuses_large_inputs() -> None:
    with pytest.raises(BackwardError) as err:
        numerical_check(lambda x: x.sum(), {"x": torch.randn(100, 100)})
    assert err.value.code == "too_large" and "10000" in str(err.value)


# ------------------------------------------------------------------------------ CUDA


@pytest.mark.cuda
def test_cuda_trace_backward_and_edges() -> None:
    v, ref = seed_example("cuda"), seed_example("cpu")
    graph = trace(v["loss"], v)
    assert {n.device for n in graph.nodes} == {"cuda:0"}
    record = backward(v["loss"], names=v, graph=graph, retain=["y"])
    ref["loss"].backward()
    for name in ("x", "weight", "bias"):
        assert record.grads[name].device.type == "cuda"
        torch.testing.assert_close(record.grads[name].cpu(), ref[name].grad)
    assert all(g.device.type == "cuda" for g in record.edge_grads.values())
    zero_grad(["x"], set_to_none=False, names=v)
    assert v["x"].grad.device.type == "cuda" and not v["x"].grad.any()


@pytest.mark.cuda
def test_cuda_numerical_check_and_errors() -> None:
    x = torch.randn(3, device="cuda")
    assert numerical_check(lambda x: (x.sin() * x).sum(), {"x": x}).passed
    y = torch.randn(3, device="cuda", requires_grad=True) * 2
    with pytest.raises(BackwardError, match="gradient="):
        backward(y)


def test_history_norms_of_meta_gradients_are_none() -> None:
    from tensor_explorer.core.autograd import _norm

    assert _norm(None) is None
    assert _norm(torch.empty(3, device="meta")) is None
    assert _norm(torch.tensor([3.0, 4.0])) == 5.0


def test_saved_infos_reread_after_backward() -> None:
    from tensor_explorer.core.autograd import saved_infos

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    g = tx.trace(y, names={"x": x})
    mul = next(n.id for n in g.nodes if n.label == "MulBackward0")
    assert saved_infos(g, mul) and not any(s.freed for s in saved_infos(g, mul))
    y.backward()
    assert all(s.freed for s in saved_infos(g, mul))
