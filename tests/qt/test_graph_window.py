"""The autograd graph in the real window (#14): a model's module boxes, every use of a shared
weight, and what the pane does written into the Code panel's script."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from pytestqt.qtbot import QtBot

from tensor_explorer.core.workspace import Workspace
from tensor_explorer.qt.graph_panel import GraphPanel

TWO_LAYER = """\
torch.manual_seed(0)

class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 8)
        self.out = nn.Linear(8, 1)

    def forward(self, x):
        return self.out(torch.relu(self.hidden(x)))

net = TwoLayer()
x = torch.randn(5, 4)
target = torch.randn(5, 1)
loss = ((net(x) - target) ** 2).mean()
"""
RNN = """\
W = torch.randn(4, 4, requires_grad=True)
xs = torch.randn(6, 1, 4)
h = torch.zeros(1, 4)
for t in range(6):
    h = torch.tanh(h @ W + xs[t])
loss = h.sum()
"""


def window_on(qtbot: QtBot, make_window: Callable[..., Any], source: str) -> tuple[Any,
                                                                                  GraphPanel]:
    ws = Workspace()
    ws.run(source)
    ws.selected = "loss"
    win = make_window(ws)
    win.resize(1280, 800)
    win.show()
    win.show_panel("graph")
    panel = win.panels["graph"]
    assert isinstance(panel, GraphPanel)
    qtbot.waitUntil(lambda: panel.graph is not None and not panel.busy, timeout=20_000)
    return win, panel


def test_a_two_layer_module_shows_its_module_boxes(qtbot: QtBot,
                                                   make_window: Callable[..., Any]) -> None:
    _win, panel = window_on(qtbot, make_window, TWO_LAYER)
    titles = {title for _, kind, title in panel.shown_nodes() if kind == "group"}
    assert titles == {"net.hidden · Linear", "net.out · Linear"}
    leaves = {title for _, kind, title in panel.shown_nodes() if kind == "leaf"}
    assert leaves == {"net.hidden.weight", "net.hidden.bias", "net.out.weight", "net.out.bias"}
    assert "2 module calls" in panel.title.text()
    box = next(k for k, _, t in panel.shown_nodes() if t == "net.out · Linear")
    graph = panel.graph
    panel.view.node_clicked.emit(box)
    qtbot.waitUntil(lambda: not panel.busy)
    assert panel.graph is graph
    assert {"AddmmBackward0", "TBackward0"} <= {t for _, _, t in panel.shown_nodes()}
    assert panel.message_text() == "Opened net.out · Linear: the 2 operations this call made."
    panel.fold_btn.click()
    qtbot.waitUntil(lambda: not panel.busy)
    assert box in {k for k, _, _ in panel.shown_nodes()}


def test_every_use_of_a_shared_weight_has_its_edge(qtbot: QtBot,
                                                   make_window: Callable[..., Any]) -> None:
    _win, panel = window_on(qtbot, make_window, RNN)
    w = panel.leaf_key("W")
    drawing = panel.view.drawing
    assert drawing is not None
    into_w = [(s, line) for s, t, line in drawing.edges if t == w]
    mm = [n.id for n in panel.graph.nodes if n.label == "MmBackward0"]
    assert sorted(s for s, _ in into_w) == sorted(mm) and len(mm) == 6


def test_backward_from_the_pane_is_in_the_script(qtbot: QtBot,
                                                 make_window: Callable[..., Any]) -> None:
    win, panel = window_on(qtbot, make_window, TWO_LAYER)
    win.show_panel("code")
    code = win.panels["code"]
    bar = code.text.verticalScrollBar()
    bar.setValue(bar.maximum())  # reading the end of the script
    panel.retain_graph_check.setChecked(True)
    panel.times_spin.setValue(2)
    panel.backward_btn.click()
    qtbot.waitUntil(lambda: "for _ in range(2):" in code.script(), timeout=5000)
    assert code.script().rstrip().endswith(
        "for _ in range(2):\n    loss.backward(retain_graph=True)")
    assert bar.value() == bar.maximum()  # the new lines are in view
    # the script run as plain Python gives the same gradients
    ns: dict[str, Any] = {}
    exec(compile(code.script(), "<script>", "exec"), ns)
    net = win.workspace["net"]
    torch.testing.assert_close(ns["net"].out.weight.grad, net.out.weight.grad)
    panel.zero_grad()
    qtbot.waitUntil(lambda: "net.out.weight.grad = None" in code.script(), timeout=5000)
