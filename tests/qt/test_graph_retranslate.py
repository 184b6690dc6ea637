"""A language switch re-translates the autograd graph pane (and its training-step dialog) in
place: every text follows the new language, nothing it shows or holds is lost or recomputed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch
from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot

from tensor_explorer.core.catalog import render
from tensor_explorer.core.graph_layout import CollapsedGraph
from tensor_explorer.core.workspace import Workspace
from tensor_explorer.qt import i18n
from tensor_explorer.qt.graph_panel import GraphPanel
from tensor_explorer.qt.training_dialog import TrainingDialog

SMALL = "x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = (x * x).sum()"
LOOP = """\
w = torch.randn(8, 8, requires_grad=True)
b = torch.randn(8, requires_grad=True)
x = torch.randn(4, 8)
for i in range(60):
    x = torch.tanh(x @ w + b)
loss = x.sum()
"""
BATCH = """\
from torch import nn
features = torch.tensor([[0.2, 10.0, 0.4], [0.9, 30.0, 1.2]], dtype=torch.float32)
labels = torch.tensor([0, 1], dtype=torch.long)
model = nn.Linear(3, 2)
"""


def tr(text: str) -> str:
    """``text`` in the language installed now (the catalog's ground truth)."""
    return QtCore.QCoreApplication.translate("GraphPanel", text)


def zh(code: str, **params: Any) -> str:
    """A text the core writes for the pane (a code of the core's catalog), in Chinese."""
    return render(code, "zh", **params)


def tr_details(text: str) -> str:
    """A text of the Details tab in the language installed now."""
    return QtCore.QCoreApplication.translate("GraphDetails", text)


def tr_history(text: str) -> str:
    """A text of the Accumulation tab in the language installed now."""
    return QtCore.QCoreApplication.translate("GradHistoryView", text)


def tr_dialog(text: str) -> str:
    return QtCore.QCoreApplication.translate("TrainingDialog", text)


def graph_pane(qtbot: QtBot, make_window: Callable[..., Any], source: str,
               selected: str) -> tuple[Any, GraphPanel]:
    ws = Workspace()
    ws.run(source)
    ws.selected = selected
    win = make_window(ws)
    win.show()
    win.show_panel("graph")
    panel = win.panels["graph"]
    assert isinstance(panel, GraphPanel)
    qtbot.waitUntil(lambda: panel.target == selected and panel.graph is not None
                    and not panel.busy, timeout=20_000)
    return win, panel


def node_key(panel: GraphPanel, title: str) -> Any:
    return next(k for k, _, t in panel.shown_nodes() if t == title)


def no_workspace_events(panel: GraphPanel, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Record what the pane would tell the workspace's other panels."""
    emitted: list[Any] = []
    ws = panel.bridge.workspace
    for name in ("added", "changed", "removed", "renamed", "ran"):
        getattr(ws.events, name).connect(lambda *args, name=name: emitted.append((name, args)))
    monkeypatch.setattr(ws, "note", lambda *args, **kw: emitted.append(("note", args)))
    return emitted


def test_language_switch_keeps_backward_state_and_says_it_in_chinese(
        qtbot: QtBot, make_window: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    win, panel = graph_pane(qtbot, make_window, SMALL, "y")
    ws = win.workspace
    # torch's own answer: two backward calls with retain_graph accumulate 2 * 2x
    ref = torch.tensor([1.0, 2.0], requires_grad=True)
    out = (ref * ref).sum()
    out.backward(retain_graph=True)
    out.backward()
    assert ref.grad is not None

    panel.times_spin.setValue(2)
    panel.retain_graph_check.setChecked(True)
    panel.gradient_edit.setText("ones")
    with qtbot.waitSignal(panel.backward_done, timeout=20_000):
        panel.backward_btn.click()
    torch.testing.assert_close(ws["x"].grad, ref.grad)
    leaf = panel.leaf_key("x")
    assert leaf is not None
    panel.view.node_clicked.emit(leaf)
    panel.zoom_in_btn.click()
    panel.tabs.setCurrentIndex(1)

    en_message = panel.message_text()
    assert en_message.startswith("backward ×2 done")
    assert panel.backward_btn.text() == "Backward ×2"
    assert "backward calls accumulated: 2" in panel.details_text()
    graph, record, history = panel.graph, panel.record, list(panel.history.entries)
    rows, selected, scale = panel.history_rows(), panel._selected, panel.view.current_scale()
    grad = ws["x"].grad.clone()
    emitted = no_workspace_events(panel, monkeypatch)

    win.set_language("zh")
    assert i18n.current() == "zh"
    assert win.panels["graph"] is panel  # re-translated, not rebuilt
    # the texts are the catalog's Chinese, and not the English
    backward_zh = tr("Backward ×{0}").format(2)
    assert backward_zh != "Backward ×2"
    assert panel.backward_btn.text() == backward_zh
    assert panel.backward_btn.toolTip() == tr(
        "Run root.backward(...) and record the gradient along every edge")
    assert panel.check_btn.text() == tr("Numerical check") != "Numerical check"
    assert panel.training_btn.text() == tr("Training step…")
    assert panel.fit_btn.text() == tr("Fit")
    assert panel.cancel_btn.text() == QtCore.QCoreApplication.translate(
        "JobRunner", "Cancel") != "Cancel"
    assert panel.device_label.text() == tr("Device:") != "Device:"
    assert panel.gradient_label.text() == tr("gradient:")
    assert [panel.tabs.tabText(i) for i in range(2)] == [tr("Details"), tr("Accumulation")]
    assert panel.tabs.tabText(0) != "Details"
    assert panel.gradient_edit.placeholderText() == zh("graph.gradient-not-needed")
    assert panel.retain_combo.itemText(0) == tr("(none)") != "(none)"
    assert panel.title.text() == tr("Graph of {0}: {1}, {2}").format(
        "y", tr("{0} nodes").format(3), tr("{0} edges").format(2))
    plot = panel.history_view.plot
    assert plot.getAxis("bottom").labelText == tr_history("call") != "call"
    headers = [panel.history_view.table.horizontalHeaderItem(c).text() for c in range(4)]
    assert headers == [tr_history("call"), tr_history("event"), tr_history("step"), "‖x.grad‖"]
    # the message is said again in Chinese, with the same figures
    zh_message = panel.message_text()
    assert zh_message != en_message
    assert zh_message == zh("graph.backward-done", count=2, step=2, values="x.grad = [4, 8]")
    # node texts and the selected leaf's details
    assert panel.node_lines(leaf)[1] == zh("graph.leaf", shape="(2,)", dtype="float32")
    assert panel.node_lines(leaf)[1] != "leaf (2,) float32"
    assert zh("graph.root-named", name="y") in panel.node_lines(0)
    details = panel.details_text()
    assert tr_details("backward calls accumulated: {0}").format(2) in details
    assert "backward calls accumulated" not in details
    # nothing was lost or recomputed
    assert panel.graph is graph and panel.record is record
    assert panel.history.entries == history and panel.history_rows() == rows
    assert len(panel.history_view.plot.getPlotItem().listDataItems()) == 1
    assert panel._selected == selected and panel.view.current_scale() == pytest.approx(scale)
    assert panel.tabs.currentIndex() == 1
    assert panel.times_spin.value() == 2 and panel.retain_graph_check.isChecked()
    assert panel.gradient_edit.text() == "ones"
    torch.testing.assert_close(ws["x"].grad, grad)
    assert emitted == []

    win.set_language("en")
    assert win.panels["graph"] is panel
    assert panel.backward_btn.text() == "Backward ×2"
    assert panel.device_label.text() == "Device:"
    assert [panel.tabs.tabText(i) for i in range(2)] == ["Details", "Accumulation"]
    assert panel.retain_combo.itemText(0) == "(none)"
    assert panel.message_text() == en_message
    assert panel.title.text() == "Graph of y: 3 nodes, 2 edges"
    assert panel.node_lines(leaf)[1] == "leaf (2,) float32"
    assert "backward calls accumulated: 2" in panel.details_text()
    assert panel.history_rows() == rows and panel.record is record
    torch.testing.assert_close(ws["x"].grad, ref.grad)
    assert emitted == []


def test_expanded_groups_legend_and_constants_follow_the_language(
        qtbot: QtBot, make_window: Callable[..., Any]) -> None:
    win, panel = graph_pane(qtbot, make_window, LOOP, "loss")
    group = next(k for k, kind, _ in panel.shown_nodes() if kind == "group")
    assert panel.node_lines(group)[0] == "58 × 3 ops"
    panel.node_clicked(group)  # the run of blocks, expanded into its blocks
    en_message = panel.message_text()
    assert en_message == "Expanded 58 repeated blocks of 3 operations each."
    expanded = set(panel.expanded)
    assert "block 1 of 58" in {t for _, _, t in panel.shown_nodes()}
    assert "root: where backward starts" in panel.details_text()  # the legend

    win.set_language("zh")
    assert win.panels["graph"] is panel and panel.expanded == expanded
    titles = {t for _, kind, t in panel.shown_nodes() if kind == "group"}
    assert zh("graph.block", index=1, repeats=58) in titles
    assert "block 1 of 58" not in titles and len(titles) == 58
    assert panel.message_text() == zh("graph.expanded-repeat", repeats=58, count=3) != en_message
    assert tr_details("root: where backward starts") in panel.details_text()
    assert "root: where backward starts" not in panel.details_text()
    graph = panel.graph
    assert graph is not None
    assert panel.title.text() == (
        tr("Graph of {0}: {1}, {2}").format(
            "loss", tr("{0} nodes").format(len(graph.nodes)),
            tr("{0} edges").format(len(graph.edges))) + " "
        + tr("(folded: {0}; click a group to open it)").format(
            tr("{0} blocks").format(58)))

    win.set_language("en")
    assert panel.expanded == expanded
    assert "block 1 of 58" in {t for _, _, t in panel.shown_nodes()}
    assert panel.message_text() == en_message
    assert "root: where backward starts" in panel.details_text()


def test_cut_off_constant_and_numerical_check_result_are_said_again(
        qtbot: QtBot, make_window: Callable[..., Any]) -> None:
    win, panel = graph_pane(
        qtbot, make_window, SMALL + "\nwith torch.no_grad():\n    z = x * 2", "y")
    assert panel.node_lines("const:z") == ["z", "constant · no_grad", "gradient stops here"]
    panel.check_btn.click()
    qtbot.waitUntil(lambda: "Numerical check" in panel.message_text() and not panel.busy,
                    timeout=60_000)
    result = panel.check_result
    assert result.passed and result.max_abs_diff < 1e-6
    en_message = panel.message_text()
    panel.view.node_clicked.emit("const:z")
    assert "Cut off from the graph" in panel.details_text()

    win.set_language("zh")
    assert panel.check_result is result
    zh_message = panel.message_text()
    assert zh_message != en_message
    worst = max(result.inputs.values(), key=lambda c: c.max_abs_diff)
    where = f" ({worst.name}{list(worst.worst_index or ())})"
    per = ", ".join(f"{c.name}: {c.max_abs_diff:.2e}" for c in result.inputs.values())
    template = ("Numerical check (finite differences in float64, eps={0}): largest difference "
                "between autograd and numerical gradients {1:.3e}{2} — {3}. Per leaf: {4}.")
    assert en_message == template.format(result.eps, result.max_abs_diff, where, "passed", per)
    assert zh_message == zh("graph.check-result", eps=result.eps, diff=result.max_abs_diff,
                            where=where, verdict=zh("graph.check-passed"), per_leaf=per)
    assert "passed" not in zh_message
    assert panel.node_lines("const:z") == [
        "z", zh("graph.constant", reason="no_grad"), zh("graph.gradient-stops")]
    assert panel.node_lines("const:z")[2] != "gradient stops here"
    assert panel.view.nodes_by_key["const:z"].text.tooltip == zh("graph.cut-no-grad")
    assert "autograd recorded nothing" not in panel.view.nodes_by_key["const:z"].text.tooltip
    assert tr_details("Cut off from the graph") in panel.details_text()
    assert "Cut off from the graph" not in panel.details_text()

    win.set_language("en")
    assert panel.message_text() == en_message
    assert panel.node_lines("const:z") == ["z", "constant · no_grad", "gradient stops here"]


def test_device_rerun_is_kept_and_titled_in_the_new_language(
        qtbot: QtBot, make_window: Callable[..., Any]) -> None:
    win, panel = graph_pane(qtbot, make_window, SMALL, "y")
    panel.rerun_on("meta")  # always present: the re-run path without a GPU
    qtbot.waitUntil(lambda: panel.replica is not None and panel.root is not None
                    and panel.root.device.type == "meta" and not panel.busy, timeout=20_000)
    replica, device = panel.replica, panel.device_combo.currentData()
    assert "re-run on meta" in panel.title.text()
    assert panel.message_text().startswith("Re-ran the program on meta.")

    win.set_language("zh")
    assert panel.replica is replica and panel.replica_device == "meta"
    assert panel.device_combo.currentData() == device
    assert tr("re-run on {0}").format("meta") in panel.title.text()
    assert "re-run on meta" not in panel.title.text()
    assert panel.message_text() == zh("graph.rerun-done", device="meta", home="cpu")
    assert not panel.message_text().startswith("Re-ran")
    assert win.workspace["y"].device.type == "cpu"


def test_switch_while_a_big_graph_is_laid_out_in_the_background(
        qtbot: QtBot, make_window: Callable[..., Any]) -> None:
    ws = Workspace()
    ws.run("w = torch.randn(4, requires_grad=True)\nh = torch.randn(4, requires_grad=True)\n"
           "for i in range(300):\n    h = torch.tanh(h * w)\nout = h.sum()")
    ws.selected = "out"
    win = make_window(ws)
    win.show()
    panel = win.panels["graph"]
    assert isinstance(panel, GraphPanel)
    assert panel.busy  # more than SYNC_NODES nodes: traced and laid out in a Task
    assert panel.progress.format() == "Laying out the graph…"
    # let the worker finish, in English; its result waits (queued) for the event loop
    assert QtCore.QThreadPool.globalInstance().waitForDone(60_000)
    assert panel.busy
    with qtbot.waitSignal(panel.graph_shown, timeout=60_000):
        win.set_language("zh")
        assert panel.progress.format() == zh("graph.laying-out") != "Laying out the graph…"
    groups = [(k, t) for k, kind, t in panel.shown_nodes() if kind == "group"]
    assert isinstance(panel.shown, CollapsedGraph) and len(groups) == 1
    ((key, title),) = groups
    info = panel.shown.info[key]
    assert info.kind == "repeat" and info.repeats > 200
    assert title == zh("graph.repeat-ops", repeats=info.repeats, count=len(info.block_ops))
    assert title != f"{info.repeats} × {len(info.block_ops)} ops"
    assert zh("graph.root-named", name="out") in panel.node_lines(0)


def test_training_dialog_is_retranslated_with_its_results(
        qtbot: QtBot, make_window: Callable[..., Any]) -> None:
    win, panel = graph_pane(qtbot, make_window, SMALL + "\n" + BATCH, "y")
    dlg = panel.open_training_dialog()
    assert isinstance(dlg, TrainingDialog)
    dlg.choose("features", "labels", "model")
    with qtbot.waitSignal(dlg.done, timeout=20_000):
        dlg.check_btn.click()
    en_results = dlg.results()
    assert en_results and all(r[1] == "pass" for r in en_results)
    assert dlg.summary_text().startswith("Every check passed.")

    win.set_language("zh")
    assert panel.training_dialog is dlg
    assert dlg.windowTitle() == tr_dialog("Training-step check") != "Training-step check"
    assert dlg.check_btn.text() == tr_dialog("Check batch (inspect_batch)")
    assert dlg.step_btn.text() == tr_dialog("Run one step (run_one_step)")
    header = dlg.checks.headerItem()
    assert [header.text(i) for i in range(3)] == [
        tr_dialog("check"), tr_dialog("result"), tr_dialog("message")]
    item = dlg.norms.horizontalHeaderItem(0)
    assert item is not None and item.text() == tr_dialog("parameter") != "parameter"
    label = dlg._form.labelForField(dlg.features_combo)
    assert isinstance(label, QtWidgets.QLabel)
    assert label.text() == tr_dialog("features:") != "features:"
    results = dlg.results()
    assert [(r[0], r[2]) for r in results] == [(r[0], r[2]) for r in en_results]
    assert {r[1] for r in results} == {tr_dialog("pass")} != {"pass"}
    assert dlg.report is not None and dlg.report.logits is not None
    lg = dlg.report.logits
    assert dlg.summary_text() == tr_dialog("Every check passed. logits: {0} {1} on {2}").format(
        tuple(lg.shape), lg.dtype, lg.device)
    assert not dlg.summary_text().startswith("Every check passed")
    assert dlg.features_combo.currentText() == "features"

    win.set_language("en")
    assert dlg.windowTitle() == "Training-step check"
    assert dlg.results() == en_results
    assert dlg.summary_text().startswith("Every check passed.")
    dlg.close()
