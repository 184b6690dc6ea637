"""The autograd graph is readable at every size (issue #14, point 4): no text is drawn below the
window's minimum size (:func:`theme.min_point_size`); as the zoom shrinks, boxes show less
instead: all their lines, then their title and shape, then their title alone, then nothing.

Driven through the real window at 1280x800 with the default docks (and on the presentation
stage), in English and Chinese; what the view draws, and how large, is recorded by
:meth:`GraphView.drawn_texts` while it paints."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PySide6 import QtCore
from pytestqt.qtbot import QtBot

from tensor_explorer.core.workspace import Workspace
from tensor_explorer.qt import graph_view, theme
from tensor_explorer.qt.graph_panel import GraphPanel
from tensor_explorer.qt.graph_view import BOXES, FULL, SHAPE, TITLE, DrawnText, GraphView
from tests.qt.layout_audit import settle

TIMEOUT = 20_000
# a three-layer perceptron written out: 15 nodes (5 leaves, 10 operations), 9 rows
MLP = """\
torch.manual_seed(0)
x = torch.randn(4, 3)
target = torch.randn(4, 1)
w1 = torch.randn(3, 8, requires_grad=True)
b1 = torch.zeros(8, requires_grad=True)
w2 = torch.randn(8, 8, requires_grad=True)
b2 = torch.zeros(8, requires_grad=True)
w3 = torch.randn(8, 1, requires_grad=True)
h1 = torch.tanh(x @ w1 + b1)
h2 = torch.relu(h1 @ w2 + b2)
out = h2 @ w3
loss = ((out - target) ** 2).mean()
"""
# the same with nn.Linear layers (boxes of modules, whatever the pane groups them into)
LINEAR = """\
from torch import nn
torch.manual_seed(0)
x = torch.randn(4, 3)
target = torch.randn(4, 1)
layer1 = nn.Linear(3, 8)
layer2 = nn.Linear(8, 1)
h = torch.relu(layer1(x))
out = layer2(h)
loss = nn.functional.mse_loss(out, target)
"""


def docked_graph(qtbot: QtBot, make_window: Callable[..., Any], *, lang: str = "en",
                 presentation: bool = False, source: str = MLP) -> GraphPanel:
    """Show the window at 1280x800 in its default layout (or presentation mode) with the graph
    of ``loss`` in its graph pane; the pane."""
    ws = Workspace()
    ws.run(source)
    ws.selected = "loss"
    win = make_window(ws)
    win.resize(1280, 800)
    win.show()
    if lang != "en":
        win.set_language(lang)
    if presentation:
        win.set_presentation(True)
    win.show_panel("graph")
    panel = win.panels["graph"]
    assert isinstance(panel, GraphPanel)
    view = panel.view
    qtbot.waitUntil(lambda: panel.graph is not None and not panel.busy
                    and view.drawing is not None
                    and view.drawing.metrics.scale == theme.state().scale, timeout=TIMEOUT)
    settle()
    assert view.isVisible() and view.viewport().width() > 300
    return panel


def too_small(drawn: list[DrawnText]) -> list[DrawnText]:
    """The texts drawn below the minimum size (ground truth: theme.min_point_size)."""
    least = theme.min_point_size() - 1e-3
    return [t for t in drawn if t.point_size < least]


def level(view: GraphView, drawn: list[DrawnText]) -> int:
    """The most detail any box shows in ``drawn``: ``FULL`` when a line other than a shape is
    drawn ("root: loss", "grad = None", "leaf (3, 8) float32"), ``SHAPE`` when only shapes
    are, ``TITLE`` when only titles, else ``BOXES``."""
    shapes = {graph_view.shape_line(n.text.lines) for n in view.nodes_by_key.values()}
    bodies = [t.text for t in drawn if t.role == "body"]
    if any(b not in shapes for b in bodies):
        return FULL
    if bodies:
        return SHAPE
    return TITLE if any(t.role == "title" for t in drawn) else BOXES


def label_level(drawn: list[DrawnText]) -> int:
    labels = [t.text for t in drawn if t.role == "label"]
    if not labels:
        return BOXES
    return FULL if any("\n" in t for t in labels) else SHAPE


def zoom_out(view: GraphView, factor: float = 0.9) -> list[tuple[float, list[DrawnText]]]:
    """Zoom out step by step (as the "-" key does, by ``factor``) from the current zoom to far
    below the least zoom any text can have; what each step drew."""
    steps = []
    while True:
        steps.append((view.current_scale(), view.drawn_texts()))
        if view.current_scale() < 0.5 * view.style_.text_zoom():
            return steps
        view.zoom(factor)


@pytest.mark.parametrize("presentation", [False, True], ids=["normal", "presentation"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_text_is_drawn_below_the_minimum_at_any_zoom(qtbot: QtBot, make_window,
                                                        lang: str, presentation: bool) -> None:
    panel = docked_graph(qtbot, make_window, lang=lang, presentation=presentation)
    view = panel.view
    minimum = theme.min_point_size()
    assert minimum == (theme.PRESENTATION_MIN_POINT_SIZE if presentation
                       else theme.MIN_POINT_SIZE)
    first = view.drawn_texts()
    assert first and too_small(first) == []
    panel.backward_btn.click()  # edge labels get a gradient line
    assert any("‖∇‖" in t.text for t in view.drawn_texts() if t.role == "label")
    view.zoom(graph_view.MAX_SCALE)  # from the largest zoom...
    for zoom, drawn in zoom_out(view, 0.8):  # ...to far below the least that shows text
        assert too_small(drawn) == [], (zoom, too_small(drawn))
    assert drawn == []  # boxes only at the end


@pytest.mark.parametrize("presentation", [False, True], ids=["normal", "presentation"])
def test_docked_15_node_graph_shows_every_title_readable(qtbot: QtBot, make_window,
                                                        presentation: bool) -> None:
    panel = docked_graph(qtbot, make_window, presentation=presentation)
    view = panel.view
    assert len(panel.shown_nodes()) == 15
    minimum = theme.min_point_size()
    # the graph does not fit the pane readably, so it starts at the root, every line readable
    # (not an overview of tiny boxes); the root's box is wholly in view
    assert view.current_scale() * view.style_.body_pt >= minimum - 1e-3
    root = view.nodes_by_key[0]
    box = view.mapFromScene(QtCore.QRectF(root.x - root.w / 2, root.y - root.h / 2,
                                          root.w, root.h)).boundingRect()
    assert view.viewport().rect().contains(box)
    first = view.drawn_texts()
    assert root.text.title in [t.text for t in first if t.role == "title"]
    assert level(view, first) == FULL and too_small(first) == []
    # scrolling over the graph at that zoom shows each node's whole title, readable
    zoom = view.current_scale()
    for key, node in view.nodes_by_key.items():
        view.centerOn(node.x, node.y)
        drawn = view.drawn_texts()
        titles = {t.text: t.point_size for t in drawn if t.role == "title"}
        assert node.text.title in titles, (key, node.text.title, sorted(titles))
        assert titles[node.text.title] >= minimum - 1e-3
        assert too_small(drawn) == []
    assert view.current_scale() == pytest.approx(zoom)


@pytest.mark.parametrize("presentation", [False, True], ids=["normal", "presentation"])
def test_zooming_out_shows_less_detail_instead_of_smaller_text(qtbot: QtBot, make_window,
                                                              presentation: bool) -> None:
    """Full text, then title and shape, then title alone (drawn larger), then boxes only; edge
    labels lose their gradient line, then go. Never a text below the minimum on the way."""
    panel = docked_graph(qtbot, make_window, presentation=presentation)
    view = panel.view
    panel.backward_btn.click()
    steps = zoom_out(view)
    levels = [level(view, drawn) for _, drawn in steps]
    labels = [label_level(drawn) for _, drawn in steps]
    assert levels == sorted(levels, reverse=True), levels  # less and less detail
    assert set(levels) == {FULL, SHAPE, TITLE, BOXES}, levels
    assert labels == sorted(labels, reverse=True) and set(labels) == {FULL, SHAPE, BOXES}
    for zoom, drawn in steps:
        assert too_small(drawn) == [], (zoom, too_small(drawn))
    # the shape level shows the title and the shape ("(3, 8) float32"), not "leaf ..." nor
    # "grad = ..."; the title level draws titles larger than their normal size
    shape_step = next(drawn for (_, drawn), lv in zip(steps, levels, strict=True) if lv == SHAPE)
    assert any(t.text.startswith("(") for t in shape_step if t.role == "body")
    title_zoom, title_step = next(s for s, lv in zip(steps, levels, strict=True) if lv == TITLE)
    normal_title = view.style_.title_pt * title_zoom
    assert max(t.point_size for t in title_step) > normal_title
    assert normal_title < theme.min_point_size()  # the normal title would be unreadable here


def test_the_painting_of_big_graphs_keeps_the_rule(qtbot: QtBot, make_window,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Above ``LAYER_ABOVE`` nodes one layer paints every box: the same levels of detail (here
    forced on the perceptron with nn.Linear layers, after backward)."""
    panel = docked_graph(qtbot, make_window, source=LINEAR)
    view = panel.view
    panel.backward_btn.click()
    monkeypatch.setattr(graph_view, "LAYER_ABOVE", 0)
    assert view.drawing is not None
    view.show_drawing(view.drawing)
    assert view.node_layer is not None and not view.items_by_key
    steps = zoom_out(view)
    levels = [level(view, drawn) for _, drawn in steps]
    assert levels == sorted(levels, reverse=True) and levels[0] == FULL and levels[-1] == BOXES
    for zoom, drawn in steps:
        assert too_small(drawn) == [], (zoom, too_small(drawn))


def test_shape_lines_and_short_titles() -> None:
    shape = graph_view.shape_line
    assert shape(["= h", "(1, 4) float32"]) == "(1, 4) float32"
    assert shape(["root: loss", "() float32"]) == "() float32"
    assert shape(["leaf (4, 4) float32", "grad = None"]) == "(4, 4) float32"
    assert shape(["叶子 (8,) float32", "grad = None"]) == "(8,) float32"
    assert shape(["MmBackward0 → … → TanhBackward0 (4)", "click to expand"]) is None
    assert shape(["constant · no_grad", "gradient stops here"]) is None
    assert graph_view.short_title("MseLossBackward0") == "MseLoss"
    assert graph_view.short_title("AccumulateGrad") == "AccumulateGrad"
    assert graph_view.short_title("47 × 4 ops") == "47 × 4 ops"
