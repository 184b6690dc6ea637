"""The autograd graph pane: drive its controls and check what it shows against torch."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import torch
from PySide6 import QtCore, QtGui, QtWidgets
from pytestqt.qtbot import QtBot

import tensor_explorer as tx
from tensor_explorer.core import graph_session
from tensor_explorer.core.workspace import Workspace
from tensor_explorer.qt import graph_panel, i18n, theme
from tensor_explorer.qt.bridge import WorkspaceBridge
from tensor_explorer.qt.graph_panel import GraphPanel, graph_target, parse_gradient
from tensor_explorer.qt.graph_view import NodeItem
from tests.qt.pixels import assert_drawn, where

CHAIN = "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\ny = (x * x).sum()\n"
SEED3 = """\
x = torch.tensor([[2.0, 3.0]], requires_grad=True)
weight = torch.tensor([[0.5], [2.0]], requires_grad=True)
bias = torch.tensor([1.0], requires_grad=True)

y = x @ weight + bias
loss = y.square().mean()
"""
SEED_BATCH = """\
import torch
from torch import nn
features = torch.tensor([[0.2, 10.0, 0.4], [0.9, 30.0, 1.2]], dtype=torch.float32)
labels = torch.tensor([0, 1], dtype=torch.long)
model = nn.Linear(3, 2)
float_labels = torch.tensor([0.5, 1.0])
"""


@pytest.fixture
def ws() -> Workspace:
    return Workspace()


@pytest.fixture
def panel(qtbot: QtBot, ws: Workspace) -> Iterator[GraphPanel]:
    bridge = WorkspaceBridge(ws)
    p = GraphPanel(bridge)
    qtbot.addWidget(p)
    p.resize(1000, 700)
    p.show()
    yield p
    p.cancel_task()
    QtCore.QThreadPool.globalInstance().waitForDone(10_000)
    bridge.disconnect_workspace()


def run(panel: GraphPanel, source: str) -> None:
    panel.bridge.workspace.run(source)
    panel.refresh()


def leaf_grad_line(panel: GraphPanel, name: str) -> str:
    key = panel.leaf_key(name)
    assert key is not None, name
    return panel.node_lines(key)[-1]


def test_chain_nodes_and_edges_match_trace(panel: GraphPanel, ws: Workspace) -> None:
    run(panel, CHAIN)
    graph = tx.trace(ws["y"], names=dict(ws.items()))
    shown = {key: (kind, title) for key, kind, title in panel.shown_nodes()}
    assert set(shown) == {n.id for n in graph.nodes}
    for n in graph.nodes:
        kind, title = shown[n.id]
        assert kind == n.kind
        assert title == (n.tensor if n.kind == "leaf" else n.label)
    assert set(panel.edge_labels()) == set(graph.edges)
    assert [label for _, label in panel.edge_labels().items()] == ["(3,) ×2", "(3,)"][::-1] or (
        "(3,) ×2" in panel.edge_labels().values())
    assert "Graph of y: 3 nodes, 2 edges" in panel.title.text()
    assert leaf_grad_line(panel, "x") == "grad = None"
    # the drawing: one item per node, leaves above the root
    items = [i for i in panel.view.scene().items() if isinstance(i, NodeItem)]
    assert len(items) == 3
    leaf = panel.view.items_by_key[panel.leaf_key("x")]
    assert leaf.pos().y() < panel.view.items_by_key[0].pos().y()


def test_backward_shows_leaf_grad_equal_to_torch(qtbot: QtBot, panel: GraphPanel,
                                                 ws: Workspace) -> None:
    run(panel, CHAIN)
    with qtbot.waitSignal(panel.bridge.changed, timeout=5000) as sig:
        panel.backward_btn.click()
    assert sig.args == ["x"]
    expected = torch.tensor([2.0, 4.0, 6.0])
    torch.testing.assert_close(ws["x"].grad, expected)
    assert leaf_grad_line(panel, "x") == "grad = [2, 4, 6]"
    labels = panel.edge_labels()
    mul_edge = next(k for k, v in labels.items() if "×2" in v)
    assert f"‖∇‖ = {np.linalg.norm(expected.numpy()):.4g}" in labels[mul_edge]
    assert len(panel.history_rows()) == 1
    assert "backward ×1 done" in panel.message_text()


def test_backward_three_times_with_retain_graph(panel: GraphPanel, ws: Workspace) -> None:
    run(panel, SEED3)
    ref = {n: torch.tensor(ws[n].detach().numpy(), requires_grad=True)
           for n in ("x", "weight", "bias")}
    ((ref["x"] @ ref["weight"] + ref["bias"]).square().mean()).backward()
    panel.retain_graph_check.setChecked(True)
    panel.times_spin.setValue(3)
    assert panel.backward_btn.text() == "Backward ×3"
    panel.backward_btn.click()
    rows = panel.history_rows()
    assert len(rows) == 3
    assert [r[2] for r in rows] == ["1", "2", "3"]  # step since .grad was None
    for n in ("x", "weight", "bias"):
        torch.testing.assert_close(ws[n].grad, 3 * ref[n].grad)
    # the table's norms are those of .grad after each call
    col = panel.history_view.table.horizontalHeaderItem(3).text()
    name = col.strip("‖").removesuffix(".grad")
    assert float(rows[2][3]) == pytest.approx(
        float(torch.linalg.vector_norm(3 * ref[name].grad)), rel=1e-3)
    assert len(panel.history_view.plot.getPlotItem().listDataItems()) == 3


def test_zero_grad_none_versus_zeros(panel: GraphPanel, ws: Workspace) -> None:
    run(panel, CHAIN)
    panel.retain_graph_check.setChecked(True)
    panel.backward()
    panel.set_to_none_check.setChecked(True)
    panel.zero_btn.click()
    assert ws["x"].grad is None
    assert leaf_grad_line(panel, "x") == "grad = None"
    panel.backward()
    panel.set_to_none_check.setChecked(False)
    panel.zero_btn.click()
    torch.testing.assert_close(ws["x"].grad, torch.zeros(3))
    assert leaf_grad_line(panel, "x") == "grad = [0, 0, 0]"
    events = [r[1] for r in panel.history_rows()]
    assert events == ["backward", "zero_grad(None)", "backward", "zero_grad(zeros)"]


def test_non_scalar_root_needs_a_gradient(panel: GraphPanel, ws: Workspace) -> None:
    run(panel, "x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x * 3\n")
    panel.backward()
    msg = panel.message_text()
    assert "gradient" in msg and "(2,)" in msg and "Traceback" not in msg
    assert ws["x"].grad is None
    panel.gradient_edit.setText("[1.0, 2.0, 3.0]")
    panel.backward()
    assert "same" in panel.message_text() and "(3,)" in panel.message_text()
    panel.gradient_edit.setText("[1.0, 1.0")
    panel.backward()
    assert "Could not read the gradient" in panel.message_text()
    panel.gradient_edit.setText("ones")
    panel.backward()
    torch.testing.assert_close(ws["x"].grad, torch.tensor([3.0, 3.0]))
    assert "backward ×1 done" in panel.message_text()


def test_parse_gradient() -> None:
    root = torch.zeros(2, 2)
    assert parse_gradient("", root) is None
    torch.testing.assert_close(parse_gradient("ones", root), torch.ones(2, 2))
    torch.testing.assert_close(parse_gradient("0.5", root), torch.full((2, 2), 0.5))
    torch.testing.assert_close(parse_gradient("[[1, 2], [3, 4]]", root),
                               torch.tensor([[1.0, 2.0], [3.0, 4.0]]))


def test_backward_twice_without_retain_graph_says_so(panel: GraphPanel, ws: Workspace) -> None:
    run(panel, CHAIN)
    panel.backward()
    panel.backward()
    msg = panel.message_text()
    assert "retain_graph" in msg and "Traceback" not in msg
    torch.testing.assert_close(ws["x"].grad, torch.tensor([2.0, 4.0, 6.0]))  # unchanged
    panel.times_spin.setValue(3)  # ×N stops at the first failure and says how many ran
    panel.backward()
    assert "retain_graph" in panel.message_text()
    assert len(panel.history_rows()) == 1


def test_cut_off_values_are_drawn_apart_with_their_reason(qtbot: QtBot, panel: GraphPanel,
                                                           ws: Workspace) -> None:
    run(panel, CHAIN + "with torch.no_grad():\n    z = x * 2\nd = y.detach()\n"
        "with torch.inference_mode():\n    i = x + 1\n")
    nodes = {key: (kind, title) for key, kind, title in panel.shown_nodes()}
    assert nodes["const:z"] == ("const", "z")
    assert nodes["const:d"] == ("const", "d")
    assert nodes["const:i"] == ("const", "i")
    assert "constant · no_grad" in panel.node_lines("const:z")
    assert "constant · detach" in panel.node_lines("const:d")
    assert "constant · inference_mode" in panel.node_lines("const:i")
    cut = [k for k in panel.edge_labels() if k[0] == "cut"]
    assert ("cut", panel.leaf_key("x"), "z") in cut and ("cut", 0, "d") in cut
    # a click on the constant explains it
    view = panel.view
    pos = view.mapFromScene(view.items_by_key["const:d"].pos())
    view.click_at(pos)
    assert "detach" in panel.details_text() and "gradient does not flow" in panel.details_text()
    # the graph target stays the graph even when the cut-off value is selected
    ws.selected = "d"
    panel.refresh()
    assert graph_target(ws, "d") == "y"
    assert "const:d" in {k for k, _, _ in panel.shown_nodes()}


def test_click_node_shows_saved_tensors_and_edge_shows_gradient(panel: GraphPanel) -> None:
    run(panel, CHAIN)
    view = panel.view
    mul = next(k for k, _, t in panel.shown_nodes() if t == "MulBackward0")
    view.click_at(view.mapFromScene(view.items_by_key[mul].pos()))
    text = panel.details_text()
    assert "MulBackward0" in text and "self" in text and "other" in text and "(3,)" in text
    assert view.items_by_key[mul].selected
    edge = next(k for k, v in panel.edge_labels().items() if "×2" in v)
    view.click_at(view.mapFromScene(view.edge_midpoint(edge)))
    assert "Run backward" in panel.details_text()
    panel.backward()  # the details follow
    text = panel.details_text()
    assert "‖∇‖" in text and "2." in text and "6." in text
    view.click_at(view.mapFromScene(view.items_by_key[mul].pos()))
    assert "freed by backward" in panel.details_text()


def test_retain_grad_on_a_chosen_intermediate(panel: GraphPanel, ws: Workspace) -> None:
    run(panel, "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\nh = x * 2\n"
        "y = h.sum()\n")
    names = [panel.retain_combo.itemText(i) for i in range(panel.retain_combo.count())]
    assert "h" in names
    panel.retain_combo.setCurrentIndex(names.index("h"))
    panel.backward()
    h = next(k for k, _, t in panel.shown_nodes() if t == "MulBackward0")
    assert "grad (retained) = [1, 1, 1]" in panel.node_lines(h)
    torch.testing.assert_close(ws["h"].grad, torch.ones(3))


def test_device_chooser_lists_cpu_and_explains_handed_in_values(panel: GraphPanel,
                                                                ws: Workspace) -> None:
    assert panel.device_names()[0] == "cpu"
    assert panel.device_names() == tx.devices()
    ws["x"] = torch.tensor([1.0, 2.0], requires_grad=True)  # as explore() hands it in
    run(panel, "y = (x * x).sum()")
    panel.rerun_on("meta")
    msg = panel.message_text()
    assert "Can't re-run" in msg and "x" in msg and "handed in" in msg
    assert panel.replica is None


def test_rerun_on_another_device_retraces(qtbot: QtBot, panel: GraphPanel,
                                          ws: Workspace) -> None:
    run(panel, CHAIN)
    panel.rerun_on("meta")  # always present: exercises the re-run path without a GPU
    qtbot.waitUntil(lambda: panel.replica is not None and panel.root is not None
                    and panel.root.device.type == "meta", timeout=20_000)
    assert "re-run on meta" in panel.title.text()
    assert ws["y"].device.type == "cpu"  # the workspace keeps its values
    assert {t for _, _, t in panel.shown_nodes()} == {"SumBackward0", "MulBackward0", "x"}
    panel.backward()
    assert ws["x"].grad is None  # backward ran on the copy
    assert "meta" in leaf_grad_line(panel, "x")
    panel.rerun_on("cpu")  # back home
    assert panel.replica is None and panel.root is ws["y"]


@pytest.mark.cuda
def test_rerun_on_cuda(qtbot: QtBot, panel: GraphPanel, ws: Workspace) -> None:
    run(panel, CHAIN)
    assert "cuda:0" in panel.device_names()
    idx = panel.device_combo.findData("cuda:0")
    panel.device_combo.setCurrentIndex(idx)
    panel.device_combo.activated.emit(idx)
    qtbot.waitUntil(lambda: panel.root is not None and panel.root.device.type == "cuda",
                    timeout=60_000)
    panel.backward()
    assert leaf_grad_line(panel, "x") == "grad = [2, 4, 6]"


def test_big_graph_lays_out_in_background_and_collapses_repeats(qtbot: QtBot, panel: GraphPanel,
                                                                ws: Workspace) -> None:
    x = torch.randn(4, requires_grad=True)
    w = torch.randn(4, requires_grad=True)
    h = x
    for i in range(5000):  # 100 blocks: a multiplication by w, then 49 single-input ops
        h = h * w if i % 50 == 0 else torch.tanh(h) if i % 2 else h * 1.01
    ws["x"], ws["w"] = x, w
    ws["h"] = h.sum()
    with qtbot.waitSignal(panel.graph_shown, timeout=60_000):
        panel.refresh()
        assert panel.busy  # trace and layout run in a Task
    assert panel.graph is not None and len(panel.graph) > 5000
    titles = {k: title for k, kind, title in panel.shown_nodes() if kind == "group"}
    # 99 blocks of 50 (the first block reads the leaf x); what is left of the first block has
    # 24 repeats of (mul, tanh)
    assert sorted(titles.values()) == ["24 × 2 ops", "99 × 50 ops"]
    assert len(panel.shown_nodes()) < 10
    assert "(folded: 2 runs of repeated blocks; click a group to open it)" in (
        panel.title.text())
    # a click on a group expands it (in the background again): the run into its blocks
    run = next(k for k, t in titles.items() if t == "99 × 50 ops")
    with qtbot.waitSignal(panel.graph_shown, timeout=60_000):
        panel.node_clicked(run)
    blocks = [k for k, kind, t in panel.shown_nodes() if kind == "group" and t.startswith("block")]
    assert len(blocks) == 99 and "Expanded 99 repeated blocks" in panel.message_text()
    # and a block into its ops: the multiplication by w, a run of (mul, tanh) and a last tanh
    before = len(panel.shown_nodes())
    with qtbot.waitSignal(panel.graph_shown, timeout=60_000):
        panel.node_clicked(blocks[0])
    assert len(panel.shown_nodes()) == before + 2
    # backward on a big graph runs in a Task too, then shows the gradient
    with qtbot.waitSignal(panel.backward_done, timeout=60_000):
        panel.backward()
    assert x.grad is not None and leaf_grad_line(panel, "x").startswith("grad = ")


LOOP = """\
w = torch.randn(8, 8, requires_grad=True)
b = torch.randn(8, requires_grad=True)
x = torch.randn(4, 8)
for i in range(60):
    x = torch.tanh(x @ w + b)
loss = x.sum()
"""


def test_a_loop_shows_as_repeated_blocks_that_expand(qtbot: QtBot, panel: GraphPanel,
                                                    ws: Workspace) -> None:
    run(panel, LOOP)
    graph = panel.graph
    assert graph is not None and len(graph) == 1 + 3 * 60 + 2
    # iterations 2..59: the first one's x needs no gradient, the last one's tanh is named x
    groups = {k: t for k, kind, t in panel.shown_nodes() if kind == "group"}
    assert list(groups.values()) == ["58 × 3 ops"]
    ((gid, _),) = groups.items()
    assert panel.node_lines(gid)[1] == "MmBackward0 → AddBackward0 → TanhBackward0"
    assert "(folded: 1 run of repeated blocks; click a group to open it)" in (
        panel.title.text())
    assert len(panel.shown_nodes()) == 1 + 1 + 3 + 3 + 2  # root, group, 2 iterations, leaves
    panel._select(("node", gid))
    details = panel.details_text()
    assert "58 repeated blocks of 3 operations" in details and "w" in details
    # one edge to each shared leaf stands for 58 edges
    w_id, b_id = panel.leaf_key("w"), panel.leaf_key("b")
    labels = panel.edge_labels()
    assert labels[(gid, w_id)] == "(8, 8) × 58" and labels[(gid, b_id)] == "(8,) × 58"
    # backward: the bundled edge shows the norm of the sum of its gradients, and with the
    # other edges into w it adds up to w.grad (torch's own gradient)
    panel.backward_btn.click()
    assert ws["w"].grad is not None
    shown = panel.shown
    rec = panel.record
    assert rec is not None and shown is not None
    bundle = sum(rec.edge_grads[e] for e in shown.bundles[(gid, w_id)])
    rest = sum(rec.edge_grads[e] for e in graph.edges if e[1] == w_id
               and e not in shown.bundles[(gid, w_id)])
    torch.testing.assert_close(bundle + rest, ws["w"].grad)
    norm = float(torch.linalg.vector_norm(bundle.double()))
    assert panel.edge_labels()[(gid, w_id)] == f"(8, 8) × 58\n‖∑∇‖ = {norm:.4g}"
    panel.edge_clicked((gid, w_id))
    assert "58 edges of the graph" in panel.details_text()
    assert f"{norm:.4g}" in panel.details_text()
    # a click expands the run into its blocks, then one block into its three ops
    panel.node_clicked(gid)
    assert "Expanded 58 repeated blocks of 3 operations each." in panel.message_text()
    blocks = [(k, t) for k, kind, t in panel.shown_nodes() if kind == "group"]
    assert len(blocks) == 58 and {t for _, t in blocks} == {
        f"block {i} of 58" for i in range(1, 59)}
    labels = panel.edge_labels()
    assert all("‖∇‖ = " in labels[(k, w_id)] for k, _ in blocks)  # one edge each now
    first = next(k for k, t in blocks if t == "block 1 of 58")
    panel.node_clicked(first)
    assert "Expanded block 1 of 58 (3 operations)." in panel.message_text()
    kinds = [kind for _, kind, _ in panel.shown_nodes()]
    assert kinds.count("group") == 57 and kinds.count("op") == 9
    # backward again with everything drawn so far
    panel.retain_graph_check.setChecked(True)
    panel.backward_btn.click()
    assert all(label for label in panel.edge_labels().values())


def test_numerical_check_shows_a_small_difference(qtbot: QtBot, panel: GraphPanel) -> None:
    run(panel, SEED3)
    panel.check_btn.click()
    qtbot.waitUntil(lambda: "Numerical check" in panel.message_text(), timeout=60_000)
    assert panel.check_result.max_abs_diff < 1e-6
    assert "largest difference" in panel.message_text() and "passed" in panel.message_text()


def test_training_step_check(qtbot: QtBot, panel: GraphPanel, ws: Workspace) -> None:
    run(panel, SEED_BATCH)
    dlg = panel.open_training_dialog()
    qtbot.addWidget(dlg)
    dlg.choose("features", "labels", "model")
    with qtbot.waitSignal(dlg.done, timeout=20_000):
        dlg.check_btn.click()
    results = dlg.results()
    assert results and all(r[1] == "pass" for r in results)
    assert "Every check passed" in dlg.summary_text() and "(2, 2)" in dlg.summary_text()
    before = ws["model"].weight.detach().clone()
    with qtbot.waitSignal(dlg.done, timeout=20_000):
        dlg.step_btn.click()
    assert "loss = " in dlg.summary_text() and "torch.float32" in dlg.summary_text()
    assert [r[0] for r in dlg.norm_rows()] == ["weight", "bias"]
    assert all(float(r[1]) > 0 for r in dlg.norm_rows())
    assert ws["model"].weight.grad is None  # ran on a copy
    torch.testing.assert_close(ws["model"].weight, before)
    dlg.choose("features", "float_labels", "model")
    with qtbot.waitSignal(dlg.done, timeout=20_000):
        dlg.step_btn.click()
    failed = [r for r in dlg.results() if r[1] == "FAIL"]
    assert failed and failed[0][0] == "labels_integral" and "fractional" in failed[0][2]
    assert "did not run" in dlg.summary_text()
    with qtbot.waitSignal(dlg.done, timeout=20_000):
        dlg.check_btn.click()
    failed = [r for r in dlg.results() if r[1] == "FAIL"]
    assert [r[0] for r in failed] == ["labels_long"] and "torch.long" in failed[0][2]


def test_no_graph_says_why(panel: GraphPanel, ws: Workspace) -> None:
    run(panel, "x = torch.ones(2)")
    ws.selected = "x"
    panel.refresh()
    assert panel.graph is None and "does not require grad" in panel.message_text()
    assert not panel.backward_btn.isEnabled()


def test_theme_and_presentation_scale(panel: GraphPanel) -> None:
    run(panel, CHAIN)
    item = panel.view.items_by_key[0]
    w = item.node.w
    dark = theme.DARK
    theme.state().apply("dark", theme.PRESENTATION_SCALE)
    assert panel.view.backgroundBrush().color().name() == QtGui.QColor(dark.base).name()
    assert panel.view.items_by_key[0].node.w > 1.3 * w  # bigger boxes and text
    theme.state().apply("light", 1.0)
    assert panel.view.items_by_key[0].node.w == pytest.approx(w)


def test_zoom_and_fit(panel: GraphPanel) -> None:
    run(panel, SEED3)
    view = panel.view
    s = view.current_scale()
    panel.zoom_in_btn.click()
    assert view.current_scale() == pytest.approx(s * 1.25)
    assert not view.auto_fit
    QtWidgets.QApplication.sendEvent(
        view, QtGui.QKeyEvent(QtCore.QEvent.Type.KeyPress, QtCore.Qt.Key.Key_Minus,
                              QtCore.Qt.KeyboardModifier.NoModifier))
    assert view.current_scale() == pytest.approx(s)
    panel.fit_btn.click()
    assert view.auto_fit and view.current_scale() == pytest.approx(s)


def test_screenshot_png_and_svg(tmp_path: Path) -> None:
    from tensor_explorer.qt.app import screenshot_main

    prog = tmp_path / "prog.py"
    prog.write_text(CHAIN + "z = torch.ones(2)\n")
    png, svg = tmp_path / "g.png", tmp_path / "g.svg"
    assert screenshot_main(str(prog), str(png), panel="graph", size="1000x700") == 0
    img = QtGui.QImage(str(png))
    assert img.width() == 1000 and img.height() == 700
    light = theme.LIGHT
    assert_drawn(img, light, "graph")  # the background, the nodes' words, antialiased detail
    # the leaf x (green border) above the root y (orange-red border): gradients flow upward
    leaf_y, _ = where(img, light.ok)
    root_y, _ = where(img, light.series[1])
    assert len(leaf_y) > 200 and len(root_y) > 200  # their borders, not only the legend
    assert leaf_y.mean() < root_y.mean()
    assert screenshot_main(str(prog), str(svg), panel="graph", size="1000x700") == 0
    text = svg.read_text()
    assert "MulBackward0" in text and "SumBackward0" in text


def test_thousands_of_nodes_are_painted_from_one_layer(qtbot: QtBot, panel: GraphPanel,
                                                       ws: Workspace,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from tensor_explorer.qt.graph_view import LAYER_ABOVE, NodeLayer

    w = torch.randn(3, requires_grad=True)
    h = torch.randn(3, requires_grad=True)
    ws["w"], ws["h0"] = w, h
    for i in range(2000):  # repeated blocks: shown as they are only with collapsing off
        h = h * w if i % 2 else h + w
    ws["out"] = h.sum()
    monkeypatch.setattr(graph_session, "COLLAPSE_ABOVE", 10**9)
    with qtbot.waitSignal(panel.graph_shown, timeout=60_000):
        panel.refresh()
    view = panel.view
    assert len(panel.shown_nodes()) > LAYER_ABOVE
    assert view.node_layer is not None and not view.items_by_key
    assert [i for i in view.scene().items() if isinstance(i, NodeLayer)]
    img = view.grab().toImage()  # zoomed out: plain boxes, no text
    assert img.width() > 0
    # click the root through the layer's picking, zoomed in on it
    root = view.nodes_by_key[0]
    view.centerOn(root.x, root.y)
    view.zoom(1.0 / view.current_scale())
    view.grab()
    with qtbot.waitSignal(view.node_clicked, timeout=2000) as sig:
        view.click_at(view.mapFromScene(QtCore.QPointF(root.x, root.y)))
    assert sig.args == [0]
    assert "SumBackward0" in panel.details_text()
    assert view.node_layer.selected_key == 0


def test_the_pane_says_the_core_texts_from_the_catalog(panel: GraphPanel) -> None:
    """The texts core writes for the pane are codes of the core's one catalog, said in the
    pane's language where they are shown: no hand-kept list for pyside6-lupdate, no N_ marks,
    and in Chinese no English template words on the nodes, the edges or the message."""
    import re

    from tensor_explorer.core import graph_texts
    from tensor_explorer.core.catalog import render
    from tests.core.test_graph_texts import assert_no_english, texts_of

    for module in (graph_texts, graph_session, graph_panel):
        source = Path(module.__file__).read_text(encoding="utf-8")
        assert "_LUPDATE" not in source and "QT_TRANSLATE_NOOP" not in source
        assert not re.search(r"\bN_\(", source)
    run(panel, "net = nn.Linear(3, 2)\nx = torch.ones(4, 3, requires_grad=True)\n"
            "y = net(x).sum()\nwith torch.no_grad():\n    c = x * 2")
    panel.backward()
    session = panel.session
    assert session.language is i18n.current
    session.language = lambda: "zh"  # as the pane does while Chinese is installed
    try:
        labels = session.node_labels()
        assert_no_english(texts_of(labels) + list(session.edge_labels()[0].values()))
        assert render("graph.root-named", "zh", name="y") in labels[0].lines
    finally:
        session.language = i18n.current
    message = session.message
    assert message is not None and panel.message_text() == message.render("en")
    assert message.render("zh") == render("graph.backward-done", "zh", count=1, step=1,
                                          values=message.text.params["values"])


def test_gradient_norms_of_complex_edges_keep_the_imaginary_parts() -> None:
    # A loop over a complex leaf: every edge gradient into w is complex. The norms the pane
    # shows (one edge, or a bundle of them) must be torch's norm of the complex gradient.
    from tensor_explorer.core.autograd import backward, grad_norm, trace
    from tensor_explorer.core.graph_layout import collapse
    from tensor_explorer.core.graph_texts import bundle_norms

    torch.manual_seed(0)
    w = torch.randn(3, dtype=torch.cfloat, requires_grad=True)
    x = torch.randn(3, dtype=torch.cfloat)
    for _ in range(20):
        x = torch.tanh(x * w)
    names = {"w": w, "loss": x.abs().sum()}
    graph = trace(names["loss"], names)
    view = collapse(graph)
    record = backward(names["loss"], names=names, graph=graph)
    assert view.bundles
    norms = bundle_norms(view, record)
    for key, originals in view.bundles.items():
        total = sum(record.edge_grads[e] for e in originals)
        assert total.is_complex()
        assert norms[key] == pytest.approx(float(torch.linalg.vector_norm(total)), rel=1e-5)
    for g in record.edge_grads.values():
        if g.is_complex():
            assert grad_norm(g) == pytest.approx(
                float(torch.linalg.vector_norm(g)), rel=1e-5)


def test_presentation_mode_starts_a_tall_graph_readable_at_its_root(panel: GraphPanel) -> None:
    """#26 point 1: the first view and Fit never go below the zoom at which every box shows
    its title and every edge label its shape readably; what does not fit is said."""
    view = panel.view
    panel.resize(1280, 720)

    def readable() -> None:
        assert view.drawing is not None
        assert view.current_scale() >= view.style_.titles_zoom(view.drawing) * (1 - 1e-6)
        drawn = view.drawn_texts()
        assert any(t.role == "title" for t in drawn) and any(t.role == "label" for t in drawn)
        assert all(t.point_size >= theme.min_point_size() - 1e-3 for t in drawn)

    run(panel, LOOP)  # 11 rows even when collapsed: fitting it whole makes the text tiny
    readable()  # normal mode: the first view never draws text below the minimum (it was ~6 px)
    theme.state().apply("light", theme.PRESENTATION_SCALE)
    run(panel, LOOP)
    readable()  # on a projector: the presentation minimum
    root = view.nodes_by_key[0]
    box = view.mapFromScene(QtCore.QRectF(root.x - root.w / 2, root.y - root.h / 2, root.w,
                                          root.h)).boundingRect()
    assert view.viewport().rect().contains(box)  # backward starts here: it is on screen
    panel.fit_btn.click()  # Fit keeps the labels, and says what is outside
    readable()
    out, total = view.outside()
    assert 0 < out < total
    assert view.outside_note.isVisible() and f"of {total} boxes" in view.outside_note.text()


def test_backward_with_a_sparse_gradient_shows_it(qtbot: QtBot, panel: GraphPanel,
                                                  ws: Workspace) -> None:
    """#26: nn.Embedding(sparse=True): the pane's Backward raised in finish."""
    run(panel, "emb = nn.Embedding(10, 3, sparse=True)\nidx = torch.tensor([1, 2, 1])\n"
               "out = emb(idx).sum()\n")
    with qtbot.waitSignal(panel.bridge.changed, timeout=5000):
        panel.backward_btn.click()
    grad = ws["emb"].weight.grad
    assert grad is not None and grad.layout == torch.sparse_coo
    norm = float(grad.to_dense().norm())
    assert leaf_grad_line(panel, "emb.weight") == f"grad = ‖·‖ = {norm:.4g}"
    assert "backward ×1 done" in panel.message_text() and "emb.weight.grad" in (
        panel.message_text())
    assert panel.history_rows()
