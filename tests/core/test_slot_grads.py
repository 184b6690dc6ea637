"""core/autograd: exact per-slot and per-edge gradients (``BackwardRecord.slot_grads`` and
``.edge_grads``), checked against torch itself: the same graph is built twice from the same
seed; on one copy a post-hook on *every* node of the traced graph records ``grad_inputs`` during
a plain ``backward()`` (``grad_inputs[slot]`` is what ``next_functions[slot]`` carried), the
other goes through ``tx.backward``. Also: named leaves the graph does not reach, and
``grad_norm`` (complex-correct) with ``GradHistory``."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import tensor_explorer as tx
from tensor_explorer.core import autograd as ag
from tensor_explorer.core.autograd import GradHistory, grad_norm

Built = tuple[torch.Tensor, dict[str, torch.Tensor]]  # root, names
Truth = dict[tuple[int, int], torch.Tensor | None]  # (src, slot) -> grad_inputs[slot]


# --------------------------------------------------------------------------------- helpers


def torch_slot_grads(
    root: torch.Tensor, graph: ag.Graph, gradient: torch.Tensor | None
) -> Truth:
    """``{(src, slot): grad_inputs[slot]}`` for every non-None slot of every node, from a
    post-hook on every node of ``graph`` during a plain backward (None: the slot carried
    nothing, or its node never ran)."""
    seen: dict[int, tuple[torch.Tensor | None, ...]] = {}
    handles = [
        graph.function(n.id).register_hook(
            lambda gi, go, nid=n.id: seen.__setitem__(nid, tuple(gi))
        )
        for n in graph.nodes
    ]
    try:
        torch.autograd.backward(root, gradient)
    finally:
        for h in handles:
            h.remove()
    truth: Truth = {}
    for node in graph.nodes:
        gi = seen.get(node.id, ())
        for slot, dst in enumerate(node.next_ids):
            if dst is not None:
                truth[(node.id, slot)] = gi[slot] if slot < len(gi) else None
    return truth


def expected_edge(info: ag.EdgeInfo, truth: Truth) -> torch.Tensor | tuple | None:
    """The contract's rule: one slot -> its gradient; slots into one input -> their sum; slots
    into different inputs of a multi-output op -> a tuple in slot order (None: no entry)."""
    parts = [truth[(info.src, s)] for s in info.slots]
    if all(p is None for p in parts):
        return None
    if len(set(info.input_nrs)) > 1:
        return tuple(parts)
    present = [p for p in parts if p is not None]
    total = present[0]
    for p in present[1:]:
        total = total + p
    return total


def check_against_torch(
    build: Callable[[], Built], gradient: torch.Tensor | None = None
) -> ag.BackwardRecord:
    """Build twice from the same seed; compare every slot and edge of ``tx.backward`` on one
    copy with torch's own grad_inputs on the other, and the named leaves' ``.grad``."""
    torch.manual_seed(0)
    ref_root, ref_names = build()
    torch.manual_seed(0)
    root, names = build()
    ref_graph = tx.trace(ref_root, ref_names)
    truth = torch_slot_grads(ref_root, ref_graph, gradient)

    record = tx.backward(root, gradient=gradient, names=names)
    graph = record.graph
    assert [n.label for n in graph.nodes] == [n.label for n in ref_graph.nodes]
    assert [n.next_ids for n in graph.nodes] == [n.next_ids for n in ref_graph.nodes]

    # every slot that carried a gradient, and only those
    carried = {k for k, g in truth.items() if g is not None}
    assert set(record.slot_grads) == carried
    assert len(record.slot_grads) == len(carried)
    for key in carried:
        torch.testing.assert_close(record.slot_grads[key], truth[key], rtol=1e-6, atol=1e-12)

    # every edge, by the contract's rule
    expected_keys = set()
    for key, info in graph.edge_info.items():
        assert len(info.input_nrs) == len(info.slots)
        assert info.input_nr == info.input_nrs[0]
        assert info.multi_output == (len(set(info.input_nrs)) > 1)
        want = expected_edge(info, truth)
        if want is None:
            assert key not in record.edge_grads
            continue
        expected_keys.add(key)
        got = record.edge_grads[key]
        if isinstance(want, tuple):
            assert isinstance(got, tuple) and len(got) == len(want)
            for g, w in zip(got, want, strict=True):
                if w is None:
                    assert g is None
                else:
                    torch.testing.assert_close(g, w, rtol=1e-6, atol=1e-12)
        else:
            assert isinstance(got, torch.Tensor)
            torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-12)
    assert set(record.edge_grads) == expected_keys

    for name, ref in ref_names.items():
        if name in record.grads:
            if ref.grad is None:
                assert record.grads[name] is None
            else:
                torch.testing.assert_close(record.grads[name], ref.grad)
    return record


def slot_of(record: ag.BackwardRecord, src_label: str, dst_label: str) -> ag.EdgeInfo:
    g = record.graph
    (info,) = [
        i for i in g.edge_info.values()
        if g.nodes[i.src].label == src_label and g.nodes[i.dst].label == dst_label
    ]
    return info


# ------------------------------------------------------------------------- graph shapes


def square() -> Built:
    x = torch.randn(4, dtype=torch.float64, requires_grad=True)
    return (x * x).sum(), {"x": x}


def test_x_times_x_two_slots_each_with_its_own_part() -> None:
    record = check_against_torch(square)
    info = slot_of(record, "MulBackward0", "AccumulateGrad")
    assert info.slots == (0, 1) and info.input_nrs == (0, 0) and not info.multi_output
    x = record.graph.leaf_tensor(info.dst)
    assert x is not None
    for slot in info.slots:
        torch.testing.assert_close(record.slot_grads[(info.src, slot)], x.detach())
    torch.testing.assert_close(record.edge_grads[(info.src, info.dst)], 2 * x.detach())


def split_cat(then_exp: bool) -> Callable[[], Built]:
    def build() -> Built:
        x = torch.randn(5, dtype=torch.float64, requires_grad=True)
        p, q = x.split([2, 3])
        out = torch.cat([q, p])
        if then_exp:
            out = out.exp()
        return (out * torch.arange(5.0, dtype=torch.float64)).sum(), {"x": x}

    return build


@pytest.mark.parametrize("then_exp", [False, True])
def test_split_then_cat_in_the_other_order(then_exp: bool) -> None:
    record = check_against_torch(split_cat(then_exp))
    info = slot_of(record, "CatBackward0", "SplitWithSizesBackward0")
    assert info.input_nrs == (1, 0) and info.multi_output
    q_grad, p_grad = record.edge_grads[(info.src, info.dst)]  # slot order: q first, then p
    assert q_grad is not None and p_grad is not None
    assert q_grad.shape == (3,) and p_grad.shape == (2,)
    if not then_exp:
        weights = torch.arange(5.0, dtype=torch.float64)
        torch.testing.assert_close(q_grad, weights[:3])
        torch.testing.assert_close(p_grad, weights[3:])
    # both ways of reading are covered: without exp, CatBackward is not hooked and its two
    # slots are read at the split's hook, input by input; with exp, at CatBackward's own hook
    hooked, from_dst = record.graph._hook_plan or ([], frozenset())
    assert (info.src in hooked) == then_exp
    if not then_exp:
        assert info.dst in hooked and (info.src, info.dst) in from_dst


@pytest.mark.parametrize("then_exp", [False, True])
def test_unbind_a_times_b(then_exp: bool) -> None:
    def build() -> Built:
        x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True)
        a, b = x.unbind(0)
        out = a * b
        return (out.exp() if then_exp else out).sum(), {"x": x}

    record = check_against_torch(build)
    info = slot_of(record, "MulBackward0", "UnbindBackward0")
    assert info.slots == (0, 1) and info.input_nrs == (0, 1) and info.multi_output
    to_a, to_b = record.edge_grads[(info.src, info.dst)]
    if not then_exp:  # d(a*b)/da = b, d(a*b)/db = a: never a + b
        torch.testing.assert_close(to_a, torch.tensor([3.0, 4.0], dtype=torch.float64))
        torch.testing.assert_close(to_b, torch.tensor([1.0, 2.0], dtype=torch.float64))
        torch.testing.assert_close(record.slot_grads[(info.src, 0)], to_a)
        torch.testing.assert_close(record.slot_grads[(info.src, 1)], to_b)


def test_chunks_reordered_and_one_unused() -> None:
    def build() -> Built:
        x = torch.randn(9, dtype=torch.float64, requires_grad=True)
        c0, _unused, c2 = x.chunk(3)
        return (c2 * c0.sin() + c0 * 3).sum(), {"x": x}

    record = check_against_torch(build)
    split = next(n for n in record.graph.nodes if n.label == "SplitBackward0")
    into = [i for i in record.graph.edge_info.values() if i.dst == split.id]
    assert {nr for i in into for nr in i.input_nrs} == {0, 2}  # chunk 1 feeds nothing
    assert sorted(i.input_nrs for i in into) == [(0,), (0,), (2,)]
    assert not any(i.multi_output for i in into)


def test_one_op_sending_to_three_outputs_one_of_them_twice() -> None:
    def build() -> Built:
        x = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
        a, b, c = x.unbind(0)
        return torch.stack([a, b, a, c]).square().sum(), {"x": x}

    record = check_against_torch(build)
    info = slot_of(record, "StackBackward0", "UnbindBackward0")
    assert info.input_nrs == (0, 1, 0, 2) and info.multi_output
    assert len(record.edge_grads[(info.src, info.dst)]) == 4


def rnn(steps: int = 5, width: int = 4) -> Callable[[], Built]:
    def build() -> Built:
        x = torch.randn(steps, width, dtype=torch.float64, requires_grad=True)
        W = torch.randn(width, width, dtype=torch.float64).mul(0.5).requires_grad_(True)
        h = torch.zeros(width, dtype=torch.float64)
        for t in range(steps):
            h = torch.tanh(h @ W + x[t])
        return h.square().sum(), {"x": x, "W": W}

    return build


def test_rnn_loop_shared_leaf_at_several_depths() -> None:
    record = check_against_torch(rnn())
    w_id = next(n.id for n in record.graph.leaves() if n.tensor == "W")
    into_w = [k for k in record.slot_grads if record.graph.nodes[k[0]].next_ids[k[1]] == w_id]
    assert len(into_w) >= 5  # one read of W per step, each its own slot
    x_id = next(n.id for n in record.graph.leaves() if n.tensor == "x")
    assert sum(1 for e in record.edge_grads if e[1] == x_id) >= 5


def test_mlp() -> None:
    def build() -> Built:
        net = torch.nn.Sequential(
            torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3)
        ).double()
        inp = torch.randn(5, 6, dtype=torch.float64)
        target = torch.randint(0, 3, (5,))
        loss = torch.nn.functional.cross_entropy(net(inp), target)
        return loss, {f"net.{k}": v for k, v in net.named_parameters()}

    record = check_against_torch(build)
    assert set(record.grads) == {"net.0.weight", "net.0.bias", "net.2.weight", "net.2.bias"}
    assert all(g is not None for g in record.grads.values())


def loop_with_branches(n_steps: int) -> Callable[[], Built]:
    """Like bench/bench_graph.py: elementwise ops, leaves reused, branches and splits."""

    def build() -> Built:
        leaves = [torch.randn(6, dtype=torch.float64).requires_grad_(True) for _ in range(4)]
        h = leaves[0] * 0.5
        for i in range(n_steps):
            w = leaves[i % 4]
            kind = i % 6
            if kind == 0:
                h = h * w
            elif kind == 1:
                h = h + w
            elif kind == 2:
                h = torch.tanh(h)
            elif kind == 3:
                h = h + torch.sin(h)
            elif kind == 4:
                a, b = h.split([2, 4])
                h = torch.cat([b, a.cos()])
            else:
                h = h * 0.9
        return h.sum(), {f"w{i}": t for i, t in enumerate(leaves)}

    return build


def test_big_graph_reads_many_slots_at_their_destination() -> None:
    record = check_against_torch(loop_with_branches(300))
    graph = record.graph
    assert len(graph) > 400
    hooked, from_dst = graph._hook_plan or ([], frozenset())
    ops = [n for n in graph.nodes if n.kind != "leaf"]
    assert len(hooked) < 0.75 * len(ops)
    assert len(from_dst) > 150  # edges read at their destination, slot by slot
    multi_dst = [
        (s, d) for s, d in from_dst if graph.nodes[d].label == "SplitWithSizesBackward0"
    ]
    assert multi_dst  # the per-input reading of multi-output destinations is exercised


def test_non_scalar_root_with_gradient() -> None:
    def build() -> Built:
        x = torch.randn(6, dtype=torch.float64, requires_grad=True)
        a, b = x.split(3)
        return torch.cat([b * a, a.exp(), b]), {"x": x}

    check_against_torch(build, gradient=torch.linspace(-1, 2, 9, dtype=torch.float64))


def test_complex_tensors() -> None:
    def build() -> Built:
        z = torch.randn(6, dtype=torch.complex128, requires_grad=True)
        w = torch.randn(6, dtype=torch.complex128, requires_grad=True)
        a, b = (z * w).split([2, 4])
        out = torch.cat([b.conj() * w[:4], a * a])
        return (out * out.conj()).real.sum() + out.abs().sum(), {"z": z, "w": w}

    record = check_against_torch(build)
    assert any(g.is_complex() for g in record.slot_grads.values())


@pytest.mark.parametrize("multi", [False, True])
def test_named_intermediate_with_its_own_hook(multi: bool) -> None:
    # a hook on y changes what y's node receives; the slots into it still carry what their
    # source sent (so they must not be read at y's node)
    def build() -> Built:
        x = torch.randn(5, dtype=torch.float64, requires_grad=True)
        if not multi:
            y = x.sin()
            y.register_hook(lambda g: 2 * g)
            return y.sum(), {"x": x, "y": y}
        p, q = x.split([2, 3])
        p.register_hook(lambda g: g + 1)
        return (torch.cat([q, p]) * 3).sum(), {"x": x, "p": p}

    record = check_against_torch(build)  # fails if those slots are read at the hooked node
    if not multi:
        torch.testing.assert_close(record.slot_grads[(0, 0)], torch.ones(5, dtype=torch.float64))


# random programs --------------------------------------------------------------------------

OPS = ["mul", "add", "sin", "split_cat", "unbind_mul", "chunk_stack", "square"]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 1000)), min_size=1, max_size=10))
def test_random_programs_match_torch(program: list[tuple[str, int]]) -> None:
    def build() -> Built:
        x = torch.randn(6, dtype=torch.float64, requires_grad=True)
        y = torch.randn(6, dtype=torch.float64, requires_grad=True)
        pool = [x, y, x * 0.5]
        for op, k in program:
            a, b = pool[k % len(pool)], pool[(k // 7) % len(pool)]
            if op == "mul":
                out = a * b
            elif op == "add":
                out = a + b
            elif op == "sin":
                out = a.sin()
            elif op == "square":
                out = a.square()
            elif op == "split_cat":
                p, q = a.split([k % 5 + 1, 5 - k % 5])
                out = torch.cat([q, p * q.sum()] if k % 2 else [q, p])
            elif op == "unbind_mul":
                r = a.view(2, 3).unbind(0 if k % 2 else 1)
                out = torch.cat([r[0] * r[-1], r[0]]).repeat(2)[:6]
            else:  # chunk_stack: chunks reordered, one dropped now and then
                c = a.chunk(3)
                picked = [c[2], c[0], c[2]] if k % 3 else [c[1], c[0], c[1]]
                out = torch.stack(picked).reshape(6)
            pool.append(out)
        return torch.stack([t.sum() for t in pool[2:]]).sum(), {"x": x, "y": y}

    check_against_torch(build)


# ------------------------------------------------------------------- named leaves, grads


def test_named_leaf_not_reached_is_none_and_left_alone() -> None:
    x = torch.randn(3, requires_grad=True)
    unused = torch.randn(2, requires_grad=True)
    layer = torch.nn.Linear(2, 2)
    unused.grad = torch.ones(2)  # from some earlier call
    names = {"x": x, "unused": unused, "layer.weight": layer.weight, "k": 3}
    record = tx.backward((x * 2).sum(), names=names)
    assert set(record.grads) == {"x", "unused", "layer.weight"}
    assert record.grads["unused"] is None and record.grads["layer.weight"] is None
    assert record.grads_before["unused"] is None and record.grads_before["layer.weight"] is None
    assert record.steps == {"x": 1, "unused": 0, "layer.weight": 0}
    assert record.step == 1
    torch.testing.assert_close(unused.grad, torch.ones(2))  # untouched
    assert layer.weight.grad is None
    torch.testing.assert_close(record.grads["x"], torch.full((3,), 2.0))

    history = GradHistory()
    history.add(record)
    assert history.norms("unused") == [None]
    assert history.rows()[0]["unused"] is None


# --------------------------------------------------------------------------------- norms


def test_grad_norm_keeps_imaginary_parts() -> None:
    z = torch.tensor([3 + 4j, 5j])
    assert grad_norm(z) == pytest.approx(math.sqrt(50))
    ref = float(torch.linalg.vector_norm(z.to(torch.complex128)))
    assert grad_norm(z) == pytest.approx(ref, rel=1e-15)
    assert grad_norm(torch.tensor([3.0, 4.0])) == 5.0
    assert grad_norm(torch.tensor([1.0, 2.0], dtype=torch.bfloat16)) == pytest.approx(
        math.sqrt(5)
    )
    assert grad_norm(None) is None
    assert grad_norm(torch.empty(3, device="meta")) is None
    assert grad_norm(torch.empty(3, dtype=torch.complex64, device="meta")) is None
    assert grad_norm(torch.zeros(0)) == 0.0
    sparse = torch.sparse_coo_tensor(  # index 0 appears twice: 3 + 1
        torch.tensor([[0, 0, 2]]), torch.tensor([3.0, 1.0, 4.0]), (4,), check_invariants=True
    )
    assert grad_norm(sparse) == pytest.approx(math.sqrt(16 + 16))
    assert ag._norm is grad_norm


def test_grad_history_norms_of_complex_gradients() -> None:
    c = torch.tensor([3 + 4j, 5j], dtype=torch.complex128)
    z = torch.tensor([1 + 1j, 2j], dtype=torch.complex128, requires_grad=True)
    names = {"z": z}
    history = GradHistory()
    for _ in range(2):
        rec = tx.backward((z * c.conj()).real.sum(), names=names)  # d/dz: c per call
        history.add(rec)
    torch.testing.assert_close(z.grad, 2 * c)
    expected = [math.sqrt(50), 2 * math.sqrt(50)]
    assert history.norms("z") == pytest.approx(expected)
    assert [r["z"] for r in history.rows()] == pytest.approx(expected)
    assert [r["step"] for r in history.rows()] == [1, 2]
