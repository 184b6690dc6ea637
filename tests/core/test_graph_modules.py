"""core/graph_modules: which ops each nn.Module call made, checked against torch's own graph
(the nodes reachable from a call's output and not from its input)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import torch
from torch import nn

from tensor_explorer.core.autograd import trace
from tensor_explorer.core.graph_modules import module_calls, recording
from tensor_explorer.core.runner import ProgramError
from tensor_explorer.core.workspace import Workspace


def reachable(fn: Any) -> set[int]:
    """ids of the op nodes reachable from ``fn`` (AccumulateGrad excluded)."""
    seen: set[int] = set()
    stack = [fn] if fn is not None else []
    out: set[int] = set()
    while stack:
        f = stack.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        if type(f).__name__ != "AccumulateGrad":
            out.add(id(f))
        stack.extend(c for c, _ in f.next_functions if c is not None)
    return out


def truth(module: nn.Module) -> list[set[int]]:
    """Per call of ``module`` (hooks of the test's own): ids of the op nodes the call made."""
    calls: list[set[int]] = []
    inputs: list[Any] = []

    def pre(_m: Any, args: Any) -> None:
        fns = [a.grad_fn for a in args if isinstance(a, torch.Tensor)]
        for a in args:
            if isinstance(a, tuple):
                fns += [t.grad_fn for t in a if isinstance(t, torch.Tensor)]
        inputs.append(fns)

    def post(_m: Any, _args: Any, out: Any) -> None:
        outs = out if isinstance(out, tuple) else (out,)
        made: set[int] = set()
        for o in outs:
            made |= reachable(o.grad_fn)
        for fn in inputs.pop():
            made -= reachable(fn)
        calls.append(made)

    module.register_forward_pre_hook(pre)
    module.register_forward_hook(post)
    return calls


def ids_of(graph: Any, members: tuple[int, ...]) -> set[int]:
    return {id(graph.function(m)) for m in members}


def test_an_mlp_call_by_call_as_torch_built_it() -> None:
    ws = Workspace()
    ws.run("net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))\n"
           "x = torch.randn(3, 4)")
    net = ws["net"]
    want = {name: truth(m) for name, m in [("net", net), *(
        (f"net.{i}", net[i]) for i in range(3))]}
    ws.run("loss = net(x).pow(2).mean()")
    graph = trace(ws["loss"], dict(ws.items()))
    calls = module_calls(graph, dict(ws.items()))
    assert [c.title for c in calls] == [
        "net · Sequential", "net.0 · Linear", "net.1 · ReLU", "net.2 · Linear"]
    assert [c.parent for c in calls] == [None, 0, 0, 0]
    for c in calls:
        assert ids_of(graph, c.members) == want[c.path][0], c.title
        assert all(graph.nodes[m].kind != "leaf" for m in c.members)
    labels = {c.path: sorted(graph.nodes[m].label for m in c.members) for c in calls}
    assert labels["net.0"] == ["AddmmBackward0", "TBackward0"]
    assert labels["net.1"] == ["ReluBackward0"]
    # the loss's own ops are no module's
    inside = {m for c in calls for m in c.members}
    assert {graph.nodes[v].label for v in range(len(graph.nodes))
            if v not in inside and graph.nodes[v].kind != "leaf"} == {
        "MeanBackward0", "PowBackward0"}


def test_a_cell_called_in_a_loop_is_one_call_per_step() -> None:
    ws = Workspace()
    ws.run("cell = nn.LSTMCell(2, 3)\nxs = torch.randn(5, 1, 2)")
    want = truth(ws["cell"])
    ws.run("h = torch.zeros(1, 3)\nc = torch.zeros(1, 3)\n"
           "for t in range(5):\n    h, c = cell(xs[t], (h, c))\nloss = h.sum() + c.sum()")
    graph = trace(ws["loss"], dict(ws.items()))
    calls = module_calls(graph, dict(ws.items()))
    assert [(c.title, c.index, c.parent) for c in calls] == [
        ("cell · LSTMCell", i, None) for i in range(1, 6)]
    for c, made in zip(calls, want, strict=True):
        assert ids_of(graph, c.members) == made
    assert all(len(c.exits) == 2 for c in calls)  # h and c
    assert not set(calls[0].members) & set(calls[1].members)


def test_nested_user_modules_and_functional_ops() -> None:
    ws = Workspace()
    ws.run(
        "class Block(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.lin = nn.Linear(3, 3)\n"
        "    def forward(self, x):\n"
        "        return torch.tanh(self.lin(x)) * 2 + x\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.blocks = nn.ModuleList([Block(), Block()])\n"
        "    def forward(self, x):\n"
        "        for b in self.blocks:\n"
        "            x = b(x)\n"
        "        return x\n"
        "model = Net()\n"
        "x = torch.randn(2, 3, requires_grad=True)\n")
    model = ws["model"]
    want = {"model": truth(model), "model.blocks.0": truth(model.blocks[0]),
            "model.blocks.1": truth(model.blocks[1]),
            "model.blocks.0.lin": truth(model.blocks[0].lin)}
    ws.run("y = model(x).sum()")
    graph = trace(ws["y"], dict(ws.items()))
    calls = module_calls(graph, dict(ws.items()))
    titles = [c.title for c in calls]
    assert titles == ["model · Net", "model.blocks.0 · Block", "model.blocks.0.lin · Linear",
                      "model.blocks.1 · Block", "model.blocks.1.lin · Linear"]
    assert [c.parent for c in calls] == [None, 0, 1, 0, 3]
    for c in calls:
        if c.path in want:
            assert ids_of(graph, c.members) == want[c.path][0], c.title


def test_a_module_outside_the_workspace_is_named_by_its_class() -> None:
    ws = Workspace()
    ws.run("def f(x):\n    return nn.Linear(2, 2)(x)\ny = f(torch.ones(1, 2)).sum()")
    graph = trace(ws["y"], dict(ws.items()))
    assert [(c.path, c.title) for c in module_calls(graph, dict(ws.items()))] == [
        ("", "Linear")]


def test_an_input_handed_back_is_no_call_and_errors_do_not_confuse_later_calls() -> None:
    ws = Workspace()
    ws.run("ident = nn.Identity()\nlin = nn.Linear(2, 2)\nx = torch.ones(1, 2, "
           "requires_grad=True)\nz = ident(x * 3)")
    graph = trace(ws["z"], dict(ws.items()))
    assert module_calls(graph, dict(ws.items())) == []
    with pytest.raises(ProgramError):  # a shape error inside the call
        ws.run("bad = lin(torch.ones(1, 5))")
    ws.run("good = lin(x).sum()")
    graph = trace(ws["good"], dict(ws.items()))
    assert [c.title for c in module_calls(graph, dict(ws.items()))] == ["lin · Linear"]


def test_nothing_is_noted_outside_recording_or_on_another_thread() -> None:
    lin = nn.Linear(2, 2)
    y = lin(torch.ones(1, 2)).sum()
    assert module_calls(trace(y), {"lin": lin}) == []
    other: list[torch.Tensor] = []
    with recording():
        t = threading.Thread(target=lambda: other.append(lin(torch.ones(1, 2)).sum()))
        t.start()
        t.join()
        mine = lin(torch.ones(1, 2)).sum()
    assert module_calls(trace(other[0]), {"lin": lin}) == []
    assert [c.title for c in module_calls(trace(mine), {"lin": lin})] == ["lin · Linear"]


def test_no_grad_calls_leave_no_note() -> None:
    lin = nn.Linear(2, 2)
    with recording(), torch.no_grad():
        y = lin(torch.ones(1, 2))
    assert y.grad_fn is None


# ---------------------------------------------------------------------------------------------
# module boxes in the folded view and the drawing


def is_dag(view: Any) -> bool:
    outs: dict[int, list[int]] = {}
    for s, d in view.edges:
        outs.setdefault(s, []).append(d)
    state: dict[int, int] = {}

    def visit(v: int) -> bool:
        stack = [(v, iter(outs.get(v, ())))]
        state[v] = 1
        while stack:
            u, it = stack[-1]
            for w in it:
                if state.get(w) == 1:
                    return False
                if w not in state:
                    state[w] = 1
                    stack.append((w, iter(outs.get(w, ()))))
                    break
            else:
                state[u] = 2
                stack.pop()
        return True

    return all(visit(n.id) for n in view.nodes if n.id not in state)


def workspace_graph(source: str, root: str) -> tuple[Workspace, Any, list[Any]]:
    ws = Workspace()
    ws.run(source)
    graph = trace(ws[root], dict(ws.items()))
    return ws, graph, module_calls(graph, dict(ws.items()))


MLP = ("net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))\n"
       "x = torch.randn(3, 4)\nloss = (net(x) - 1).pow(2).mean()\n")
LSTM = ("cell = nn.LSTMCell(2, 3)\nxs = torch.randn(48, 1, 2)\nh = torch.zeros(1, 3)\n"
        "c = torch.zeros(1, 3)\nfor t in range(48):\n    h, c = cell(xs[t], (h, c))\n"
        "loss = h.sum() + c.sum()\n")


def test_an_mlp_shows_one_box_per_layer_and_every_edge() -> None:
    from tensor_explorer.core.graph_layout import collapse
    from tensor_explorer.core.graph_session import first_view, layout
    from tests.core.test_graph_drawing import check_drawing

    ws, graph, calls = workspace_graph(MLP, "loss")
    view = first_view(graph, None, dict(ws.items()))
    assert isinstance(view, type(collapse(graph)))
    boxes = {view.info[g].title: g for g in view.groups if view.info[g].kind == "module"}
    assert set(boxes) == {"net.0 · Linear", "net.1 · ReLU", "net.2 · Linear"}
    for c in calls[1:]:  # each layer's box holds exactly the ops that layer's call made
        assert set(view.groups[boxes[c.title]]) == set(c.members)
    # the Sequential starts open; the layers' weights stay outside, as leaves
    assert all(n.kind in ("root", "op", "leaf", "group") for n in view.nodes)
    assert sum(n.kind == "leaf" for n in view.nodes) == 4
    assert is_dag(view)
    d = layout(graph, modules=dict(ws.items()))
    check_drawing(graph, view, d)
    titles = {n.text.title for n in d.nodes}
    assert {"net.0 · Linear", "net.1 · ReLU", "net.2 · Linear"} <= titles
    # opening a box shows what the call made
    opened = collapse(graph, {boxes["net.0 · Linear"]}, modules=calls, fold=False)
    assert {n.label for n in opened.nodes} >= {"AddmmBackward0", "TBackward0"}
    assert boxes["net.0 · Linear"] not in opened.groups
    assert is_dag(opened)


def test_an_lstm_loop_folds_into_one_run_of_cell_calls() -> None:
    from tensor_explorer.core.graph_layout import collapse
    from tensor_explorer.core.graph_session import layout
    from tests.core.test_graph_drawing import check_drawing

    ws, graph, calls = workspace_graph(LSTM, "loss")
    assert len(calls) == 48
    view = collapse(graph, modules=calls)
    runs = [g for g, i in view.info.items() if i.kind == "repeat"]
    assert len(runs) == 1
    run = view.info[runs[0]]
    assert run.title == "cell · LSTMCell" and run.repeats >= 46
    assert len(view.nodes) < 20 and is_dag(view)
    check_drawing(graph, view, layout(graph, modules=dict(ws.items())))
    # every original node is shown once: in a box, a run, or as itself
    shown = [m for ms in view.groups.values() for m in ms]
    assert len(shown) == len(set(shown))
    # the run opens into its cell calls, and a call into its ops; the run stays open
    opened = collapse(graph, {runs[0]}, modules=calls)
    cells = [g for g, i in opened.info.items() if i.kind == "module"]
    assert len(cells) >= run.repeats and is_dag(opened)
    deeper = collapse(graph, {runs[0], cells[3]}, modules=calls)
    assert cells[3] not in deeper.groups and runs[0] not in deeper.groups
    assert set(cells[:3]) <= set(deeper.groups)
    assert is_dag(deeper)
    check_drawing(graph, deeper, layout(deeper))


def test_named_values_stay_visible_unless_the_box_reads_them() -> None:
    from tensor_explorer.core.graph_layout import collapse

    _ws, graph, calls = workspace_graph(
        "cell = nn.LSTMCell(2, 3)\nh, c = cell(torch.ones(1, 2))\nloss = h.sum() + c.sum()",
        "loss")
    view = collapse(graph, modules=calls, fold=False)
    (box,) = [g for g, i in view.info.items() if i.kind == "module"]
    named = {graph.nodes[m].tensor for m in view.groups[box]}
    assert "c" in named  # h = o * tanh(c) reads c inside the call: c stays in the box
    assert any(n.tensor == "h" for n in view.nodes if n.kind != "group")  # h is outside
    assert is_dag(view)


def test_the_session_shows_module_boxes_with_their_titles() -> None:
    from tensor_explorer.core.graph_session import GraphSession

    ws = Workspace()
    ws.run(MLP)
    s = GraphSession(ws)
    s.run(s.follow())
    titles = {t.title for t in s.node_labels().values()}
    assert {"net.0 · Linear", "net.1 · ReLU", "net.2 · Linear"} <= titles
    box = next(g for g, i in s.shown.info.items() if i.title == "net.0 · Linear")
    s.run(s.expand(box))
    assert "AddmmBackward0" in {t.title for t in s.node_labels().values()}
    s.run(s.backward())
    assert ws["net"][0].weight.grad is not None
