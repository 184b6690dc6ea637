"""The graph pane's labels are always readable (issue #26, points 1, 3 and 8).

Fit and Fold keep every title and edge label at least at the minimum text size; the first view
shows the root and every named leaf when they fit readably (a tied embedding's shared weight,
the 50-step loop's W, U and b), and is fitted again when a message line appears over it; the
view paints the labels where the layout placed them (none overlapping); ``screenshot
--backward --fit --expand`` draws what the pane draws after those clicks (gradient texts
included).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6 import QtCore
from pytestqt.qtbot import QtBot

from tensor_explorer.core.catalog import Message
from tensor_explorer.core.workspace import Workspace
from tensor_explorer.qt import graph_view, theme
from tensor_explorer.qt.bridge import WorkspaceBridge
from tensor_explorer.qt.graph_panel import GraphPanel
from tensor_explorer.qt.graph_view import DrawnText, GraphView
from tests.core.test_graph_labels import label_problems
from tests.qt.layout_audit import settle

TIED = """\
from torch import nn
emb = nn.Embedding(10, 4)
head = nn.Linear(4, 10, bias=False)
head.weight = emb.weight
loss = head(emb(torch.tensor([1, 2]))).sum()
"""
LOOP50 = """\
torch.manual_seed(0)
W = torch.randn(16, 16, requires_grad=True)
U = torch.randn(8, 16, requires_grad=True)
b = torch.zeros(16, requires_grad=True)
xs = torch.randn(50, 8)
h = torch.zeros(16)
for t in range(50):
    h = torch.tanh(h @ W + xs[t] @ U + b)
loss = h.sum()
"""
LSTM = """\
from torch import nn
torch.manual_seed(0)
net = nn.LSTM(4, 8, num_layers=2)
out, _ = net(torch.randn(3, 1, 4))
loss = out.sum()
"""


def shown(qtbot: QtBot, source: str, *, presentation: bool = False,
          size: tuple[int, int] = (1000, 700)) -> GraphPanel:
    """A graph pane of ``size`` (in presentation mode) showing the graph of ``loss``."""
    ws = Workspace()
    ws.run(source)
    ws.selected = "loss"
    if presentation:
        theme.state().apply("light", theme.PRESENTATION_SCALE)
    panel = GraphPanel(WorkspaceBridge(ws))
    qtbot.addWidget(panel)
    panel.resize(*size)
    panel.show()
    qtbot.waitUntil(lambda: panel.graph is not None and not panel.busy
                    and panel.view.drawing is not None
                    and panel.view.drawing.metrics.scale == theme.state().scale, timeout=20_000)
    settle()
    return panel


def in_view(view: GraphView, key: Any) -> bool:
    n = view.nodes_by_key[key]
    box = view.mapFromScene(QtCore.QRectF(n.x - n.w / 2, n.y - n.h / 2, n.w, n.h))
    return view.viewport().rect().adjusted(-1, -1, 1, 1).contains(box.boundingRect())


def named_leaves(view: GraphView) -> list[Any]:
    return [k for k, n in view.nodes_by_key.items()
            if n.text.kind == "leaf" and n.text.title != "AccumulateGrad"]


def readable(view: GraphView) -> list[DrawnText]:
    """What the view draws; asserts every text is at least the minimum size and every box in
    view shows its title."""
    drawn = view.drawn_texts()
    assert all(t.point_size >= theme.min_point_size() - 1e-3 for t in drawn), drawn
    titles = {t.text for t in drawn if t.role == "title"}
    for key, n in view.nodes_by_key.items():
        if in_view(view, key):
            assert graph_view.short_title(n.text.title) in titles or n.text.title in titles, (
                n.text.title, titles)
    return drawn


@pytest.mark.parametrize("presentation", [False, True], ids=["normal", "presentation"])
@pytest.mark.parametrize("source", [TIED, LOOP50, LSTM], ids=["tied", "loop50", "lstm"])
def test_first_view_shows_the_root_and_every_named_leaf(qtbot: QtBot, source: str,
                                                        presentation: bool) -> None:
    panel = shown(qtbot, source, presentation=presentation, size=(1400, 1050))
    view = panel.view
    assert in_view(view, 0)
    assert view.drawing is not None
    floor = view.style_.titles_zoom(view.drawing)
    keys = [0, *named_leaves(view)]
    nodes = [view.nodes_by_key[k] for k in keys]
    width = max(n.x + n.w / 2 for n in nodes) - min(n.x - n.w / 2 for n in nodes)
    height = max(n.y + n.h / 2 for n in nodes) - min(n.y - n.h / 2 for n in nodes)
    vp = view.viewport().rect()
    if width * floor <= vp.width() - 20 and height * floor <= vp.height() - 20:
        for key in keys:  # they fit readably: all shown
            assert in_view(view, key), view.nodes_by_key[key].text.title
    else:  # they do not: the root at the bottom, and the pane says what is outside
        assert view.outside_note.isVisible() and view.outside()[0] > 0
    drawn = readable(view)
    assert any(t.role == "label" for t in drawn)  # edge labels too


@pytest.mark.parametrize("presentation", [False, True], ids=["normal", "presentation"])
def test_fit_and_fold_keep_the_labels(qtbot: QtBot, presentation: bool) -> None:
    panel = shown(qtbot, TIED, presentation=presentation)
    view = panel.view
    group = next(k for k, n in view.nodes_by_key.items() if n.text.kind == "group")
    panel.node_clicked(group)  # open a module box
    qtbot.waitUntil(lambda: not panel.busy and panel.fold_btn.isEnabled(), timeout=10_000)
    panel.fit_btn.click()
    assert any(t.role == "label" for t in readable(view))
    panel.fold_btn.click()
    qtbot.waitUntil(lambda: not panel.busy and not panel.expanded, timeout=10_000)
    settle()
    assert any(t.role == "label" for t in readable(view))


def test_a_message_line_refits_the_graph(qtbot: QtBot) -> None:
    panel = shown(qtbot, TIED, size=(1000, 520))
    view = panel.view
    before = view.viewport().height()
    panel.session.say(Message("graph.folded"))  # a line appears over the graph
    settle()
    assert view.viewport().height() < before
    for key in [0, *named_leaves(view)]:
        assert in_view(view, key)


def test_the_view_paints_labels_where_the_layout_placed_them(qtbot: QtBot) -> None:
    panel = shown(qtbot, LOOP50)
    view = panel.view
    panel.backward_btn.click()
    qtbot.waitUntil(lambda: not panel.busy, timeout=10_000)
    settle()
    d = view.drawing
    assert d is not None and label_problems(d) == []
    assert any("‖∇‖" in t for _, t, _ in d.labels)
    # a big graph keeps its geometry and places its new labels again: still none overlapping
    d.place_labels(size=view.style_.label_place)
    assert label_problems(d) == []
    # a click on a label selects its edge
    owner, _, (x, y, w, h) = next(lab for lab in d.labels if isinstance(lab[0], tuple))
    assert view.edge_at(QtCore.QPointF(x + w / 2, y + h / 2), 0.1) == owner


def test_screenshot_presses_backward_fit_and_expand(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from tensor_explorer.qt.app import screenshot_main

    prog = tmp_path / "tied.py"
    prog.write_text("import torch\n" + TIED)
    drawn: list[DrawnText] = []
    make = GraphView.make_style

    def recording() -> graph_view.GraphStyle:
        st = make()
        st.recording = drawn
        return st

    monkeypatch.setattr(GraphView, "make_style", staticmethod(recording))
    out = tmp_path / "tied.png"
    assert screenshot_main(str(prog), str(out), panel="graph", trust=True, backward=2,
                           fit=True) == 0
    assert out.is_file()
    labels = [t for t in drawn if t.role == "label"]
    titles = {t.text for t in drawn if t.role == "title"}
    assert "emb.weight" in titles
    # both edges of the shared weight, with their gradients, readable
    grads = [t for t in labels if t.text.startswith("(10, 4)") and "‖∇‖" in t.text]
    assert len({t.text for t in grads}) == 2, labels
    assert all(t.point_size >= theme.MIN_POINT_SIZE - 1e-3 for t in drawn)
    drawn.clear()
    out2 = tmp_path / "open.png"
    assert screenshot_main(str(prog), str(out2), panel="graph", trust=True, backward=1,
                           expand="all") == 0
    assert "EmbeddingBackward0" in {t.text for t in drawn if t.role == "title"}
    with pytest.raises(ValueError, match="--expand nothing"):
        screenshot_main(str(prog), str(tmp_path / "x.png"), panel="graph", trust=True,
                        expand="nothing")
