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
