"""core/graph_session: the graph pane's model without Qt — which graph, backward and its
accumulation, what the script says was done, and messages that describe the graph shown now.
Ground truth: torch's own backward on the same program, and the script run as plain Python."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from tensor_explorer.core.graph_layout import CollapsedGraph
from tensor_explorer.core.graph_session import Built, GraphSession, Message
from tensor_explorer.core.workspace import Workspace

CHAIN = "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\nh = x * 2\ny = (h * h).sum()\n"


def session_on(source: str) -> tuple[Workspace, GraphSession, list[Any]]:
    ws = Workspace()
    ws.run(source)
    s = GraphSession(ws)
    seen: list[Any] = []
    s.events.shown.connect(lambda built: seen.append(built))
    s.run(s.follow())
    return ws, s, seen


def run_script(ws: Workspace) -> dict[str, Any]:
    """The workspace's script run as plain Python."""
    ns: dict[str, Any] = {}
    exec(compile(ws.to_script(), "<script>", "exec"), ns)  # our own script
    return ns


def said(s: GraphSession) -> str:
    return "" if s.message is None else s.message.render()


def test_follow_shows_the_last_value_with_a_graph() -> None:
    ws, s, seen = session_on(CHAIN + "z = torch.ones(2)\n")
    assert s.target == "y" and s.root is ws["y"]
    assert isinstance(seen[-1], Built) and seen[-1].graph is s.graph
    assert s.graph is not None and s.graph.function(0) is ws["y"].grad_fn
    ws.selected = "h"
    s.run(s.follow())
    assert s.target == "h" and s.graph is not None and s.graph.function(0) is ws["h"].grad_fn


def test_no_graph_says_why_in_each_language() -> None:
    ws, s, seen = session_on("x = torch.ones(3, requires_grad=True)\n")
    assert s.graph is None and seen[-1] is None
    assert s.nothing is not None and "No value has a grad_fn" in s.nothing.render()
    ws.selected = "x"
    s.run(s.follow())
    assert s.nothing is not None and "leaf" in s.nothing.render()
    assert "叶子" in s.nothing.render(lang="zh")


def test_backward_records_gradients_and_writes_the_script() -> None:
    ws, s, _ = session_on(CHAIN)
    changes: list[str] = []
    ws.events.changed.connect(changes.append)
    s.run(s.backward(times=3, retain_graph=True, retain="h"))
    x = ws["x"]
    ref = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for _ in range(3):
        ((ref * 2) * (ref * 2)).sum().backward(retain_graph=True)
    assert torch.equal(x.grad, ref.grad)
    assert [e.step for e in s.history.entries] == [1, 2, 3]
    assert "x" in changes
    assert s.message is not None and s.message.kind == "ok"
    assert "call 3" in said(s)
    # the script reproduces it: the retained intermediate and three calls
    script = ws.to_script()
    assert "h.retain_grad()" in script
    assert "for _ in range(3):\n    y.backward(retain_graph=True)" in script
    ns = run_script(ws)
    assert torch.equal(ns["x"].grad, x.grad)
    assert torch.equal(ns["h"].grad, s.retained["h"])


def test_gradient_text_is_written_as_code() -> None:
    ws, s, _ = session_on("x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x * 3\n")
    s.run(s.backward(gradient="[1.0, 0.5]"))
    assert torch.equal(ws["x"].grad, torch.tensor([3.0, 1.5]))
    ns = run_script(ws)
    assert torch.equal(ns["x"].grad, ws["x"].grad)
    s.run(s.backward(gradient="ones", retain_graph=False))  # graph freed by the first call
    assert s.message is not None and s.message.kind == "error"


def test_zero_grad_is_in_the_script() -> None:
    ws, s, _ = session_on(CHAIN)
    s.run(s.backward(retain_graph=True))
    assert s.zero_grad(set_to_none=False)
    assert torch.equal(ws["x"].grad, torch.zeros(3))
    assert "x.grad.zero_()" in ws.to_script()
    assert torch.equal(run_script(ws)["x"].grad, torch.zeros(3))
    assert s.zero_grad(set_to_none=True)
    assert ws["x"].grad is None
    assert "x.grad = None" in ws.to_script()
    assert run_script(ws)["x"].grad is None
    assert [e.event for e in s.history.entries] == ["backward", "zero_grad", "zero_grad"]


def test_an_error_is_forgotten_when_the_root_is_recomputed() -> None:
    ws, s, _ = session_on(CHAIN)
    s.run(s.backward())
    s.run(s.backward())  # the graph was freed
    assert s.message is not None and s.message.kind == "error"
    assert "retain_graph" in said(s)
    assert len(s.history) == 1
    ws.run("y = (h * h).sum()")  # a new forward pass (h's graph is still there)
    s.run(s.follow())
    assert s.message is None  # it spoke of the old graph
    assert len(s.history) == 0 and s.record is None and s.edge_norms is None


def test_a_message_is_forgotten_when_the_workspace_runs_something() -> None:
    ws, s, _ = session_on(CHAIN)
    s.run(s.backward(retain_graph=True))
    s.zero_grad(set_to_none=True)
    assert "None now" in said(s)
    s.run(s.follow())  # nothing ran: still true
    assert "None now" in said(s)
    ws.run("y.backward()")  # the user's own backward: the leaves have gradients again
    s.run(s.follow())
    assert s.message is None


def test_messages_render_in_chinese_from_the_catalog() -> None:
    _ws, s, _ = session_on(CHAIN)
    msg = Message("graph.no-graph")
    assert msg == "There is no graph to work on."
    assert msg.render("zh") == "没有可以操作的计算图。"
    s.run(s.backward())
    s.run(s.backward())
    assert s.message is not None
    assert "retain_graph" in s.message.render(lang="zh")
    assert any("\u4e00" <= ch <= "\u9fff" for ch in s.message.render(lang="zh"))


def test_edge_labels_show_each_use_and_each_output() -> None:
    ws, s, _ = session_on(
        "x = torch.arange(5.0, requires_grad=True)\np, q = x.split([2, 3])\n"
        "y = torch.cat([q, p]).sum() + (x * x).sum()\n")
    s.run(s.backward())
    graph = s.graph
    assert graph is not None
    labels, kinds = s.edge_labels()
    by_pair = {(graph.nodes[a].label, graph.nodes[b].label): labels[(a, b)]
               for a, b in graph.edges}
    split_label = by_pair[("CatBackward0", "SplitWithSizesBackward0")]
    assert split_label.startswith("outputs 0, 1")
    # cat([q, p]): slot 0 sends q's gradient (output 1 of the split), slot 1 p's (output 0)
    assert split_label.split("\n")[1:] == [f"out 1: ‖∇‖ = {3 ** 0.5:.4g}",
                                           f"out 0: ‖∇‖ = {2 ** 0.5:.4g}"]
    mul = next(v for (a, b), v in by_pair.items() if a == "MulBackward0")
    assert mul.startswith("(5,) ×2")
    assert all(kinds.get(e) == 1 for e in graph.edges)
    x = ws["x"]
    assert torch.equal(x.grad, torch.ones(5) + 2 * torch.arange(5.0))


def test_complex_gradients_keep_their_imaginary_parts_in_labels() -> None:
    ws, s, _ = session_on(
        "z = torch.tensor([3 + 4j, 5j], requires_grad=True)\ny = (z * 1).abs().sum()\n")
    s.run(s.backward())
    assert s.edge_norms is not None
    g = ws["z"].grad
    want = float(torch.linalg.vector_norm(g.to(torch.complex128)))
    z_node = next(n.id for n in s.graph.leaves()) if s.graph else None
    got = [v for (a, b), v in s.edge_norms.items() if b == z_node]
    assert got and got[0] == pytest.approx(want)


def test_expand_opens_a_folded_group() -> None:
    _ws, s, _ = session_on(
        "W = torch.randn(3, 3, requires_grad=True)\nh = torch.zeros(3)\n"
        "for t in range(60):\n    h = torch.tanh(h @ W + 1)\nloss = h.sum()\n")
    shown = s.shown
    assert isinstance(shown, CollapsedGraph) and shown.groups
    key = next(iter(shown.groups))
    s.run(s.expand(key))
    assert key in s.expanded
    assert isinstance(s.shown, CollapsedGraph) and key not in s.shown.groups
    assert s.message is not None and "Expanded" in said(s)


def test_numerical_check_passes_on_a_program() -> None:
    _ws, s, _ = session_on("a = torch.tensor([0.5, -1.0], requires_grad=True)\n"
                          "y = (a.sin() * a).sum()\n")
    s.run(s.numerical_check())
    assert s.check_result is not None and s.check_result.passed
    assert s.message is not None and s.message.kind == "ok" and "passed" in said(s)


def test_rerun_on_a_device_leaves_the_workspace_alone() -> None:
    ws, s, _ = session_on(CHAIN)
    s.run(s.rerun_on("meta"))
    assert s.replica is not None and s.root is not None and s.root.device.type == "meta"
    assert ws["y"].device.type == "cpu"
    s.run(s.backward())  # on the copy: nothing written to the workspace's script
    assert ".backward(" not in ws.to_script()
    s.run(s.rerun_on("cpu"))
    assert s.replica is None and s.root is ws["y"]


def test_handed_in_values_cannot_be_rerun() -> None:
    ws = Workspace()
    ws["x"] = torch.ones(2, requires_grad=True)
    ws.run("y = (x * 2).sum()")
    s = GraphSession(ws)
    s.run(s.follow())
    assert s.rerun_on("meta") is None
    assert s.message is not None and "handed in" in said(s)


def test_backward_while_a_program_runs_is_refused() -> None:
    ws, s, _ = session_on(CHAIN)
    with ws._lock:  # as while a program runs
        assert s.backward() is None
    assert s.message is not None and s.message.kind == "warning"


def test_fold_goes_back_to_the_first_view() -> None:
    ws, s, _ = session_on(
        "W = torch.randn(3, 3, requires_grad=True)\nh = torch.zeros(3)\n"
        "for t in range(60):\n    h = torch.tanh(h @ W + 1)\nloss = h.sum()\n")
    first = set(s.shown.groups) if isinstance(s.shown, CollapsedGraph) else set()
    assert s.fold() is None  # nothing opened yet
    s.run(s.expand(next(iter(first))))
    assert isinstance(s.shown, CollapsedGraph) and set(s.shown.groups) != first
    s.run(s.fold())
    assert not s.expanded and set(s.shown.groups) == first
    assert ws["W"].grad is None


def test_opening_a_group_keeps_the_traced_graph_and_says_what_opened() -> None:
    ws, s, seen = session_on(
        "net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))\n"
        "loss = net(torch.randn(3, 4)).sum()\n")
    graph = s.graph
    box = next(g for g, i in s.shown.info.items() if i.title == "net.2 · Linear")
    s.run(s.expand(box))
    assert s.graph is graph and seen[-1].graph is graph  # the view keeps its place
    assert said(s) == "Opened net.2 · Linear: the 2 operations this call made."
    ws.run("other = torch.ones(2)")  # a new name: traced again (names label the nodes)
    s.run(s.follow())
    assert s.graph is not graph


def test_backward_reports_the_leaves_of_the_graph_shown_by_their_qualified_names() -> None:
    """#26: after Backward on y = (x*x).sum() the message listed net.fc1.bias.grad = None (the
    first workspace leaves, not the graph's) and the table had a column for a w outside it."""
    ws, s, _ = session_on(
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.fc1 = nn.Linear(2, 2)\n    def forward(self, v):\n"
        "        return self.fc1(v)\n"
        "net = Net()\nw = torch.ones(2, requires_grad=True)\n"
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = (x * x).sum()\n")
    assert s.target == "y"
    s.run(s.backward())
    text = said(s)
    assert "x.grad = [2, 4]" in text and "net" not in text and "w.grad" not in text
    assert s.history.names() == ["x"]
    # a model's parameters by their qualified names
    ws.run("out = net(x).sum()")
    ws.selected = "out"
    s.run(s.follow())
    s.run(s.backward())
    assert set(s.history.names()) == {"net.fc1.weight", "net.fc1.bias", "x"}
    assert "net.fc1.weight.grad" in said(s) or "net.fc1.bias.grad" in said(s)


def test_tx_names_gives_every_value_parameter_and_buffer_its_qualified_name() -> None:
    import tensor_explorer as tx

    ws = Workspace()
    ws.run("net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))\nx = torch.ones(4, 2)\n"
           "tied = nn.Linear(3, 3)\nother = nn.Linear(3, 3)\nother.weight = tied.weight\n"
           "loss = net(x).sum()")
    found = tx.names(ws)
    assert found["net.0.weight"] is ws["net"][0].weight
    assert found["net.1.running_mean"] is ws["net"][1].running_mean
    assert found["x"] is ws["x"] and found["loss"] is ws["loss"]
    assert found["other.weight"] is ws["tied"].weight  # tied: both names reach it
    graph = tx.trace(ws["loss"], names=ws)  # names=ws: the module's parameters by name
    leaves = {n.tensor for n in graph.nodes if n.kind == "leaf"}
    assert {"net.0.weight", "net.0.bias", "net.1.weight", "net.1.bias"} <= leaves


def test_sparse_gradients_are_described_traced_and_labelled() -> None:
    """#26: with nn.Embedding(sparse=True) after backward, describe raised NotImplementedError
    (linalg_vector_norm on SparseCPU) and the pane's Backward raised in finish."""
    import tensor_explorer as tx

    ws, s, _ = session_on("emb = nn.Embedding(10, 3, sparse=True)\n"
                          "idx = torch.tensor([1, 2, 1])\nout = emb(idx).sum()\n")
    s.run(s.backward())
    g = ws["emb"].weight.grad
    assert g is not None and g.layout == torch.sparse_coo
    facts = tx.describe(ws["emb"].weight).to_dict()
    assert facts["grad"]["norm"] == pytest.approx(float(g.to_dense().norm()))
    assert "emb.weight.grad" in said(s) and s.message is not None and s.message.kind == "ok"
    drawing = tx.layout(s.graph)
    assert drawing.boxes
