"""Modules are values: one Workspace row that expands to its submodules, parameters and buffers
by qualified name; a member selected there is what the Inspector and Values show; the
Inspector sums a module up (core/modules.py is the ground truth, torch's the ground truth of
that)."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot

from tensor_explorer.core.facts import describe
from tensor_explorer.core.modules import module_summary
from tensor_explorer.core.workspace import Workspace
from tensor_explorer.qt.inspector_panel import MEMBER_ROLE, _fmt
from tensor_explorer.qt.workspace_panel import BATCH, KIND_ROLE, LABEL_ROLE, WorkspacePanel

TIMEOUT = 20_000
NET = "net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))"


def tr(context: str, text: str) -> str:
    return QtCore.QCoreApplication.translate(context, text)


def run(qtbot: QtBot, win: Any, source: str) -> None:
    with qtbot.waitSignal(win.runner.finished, timeout=TIMEOUT):
        assert win.runner.run(source)
    qtbot.waitUntil(lambda: not win.runner.busy, timeout=TIMEOUT)
    QtWidgets.QApplication.processEvents()  # the coalesced refresh


def panel_of(win: Any) -> WorkspacePanel:
    panel = win.panels["workspace"]
    assert isinstance(panel, WorkspacePanel)
    return panel


def parameter_rows(panel: WorkspacePanel, name: str) -> list[str]:
    """The parameter rows under ``name`` and its expanded submodules, in the order shown."""
    out = []
    for child in panel.members_shown(name):
        kind = panel.index_of(child).data(KIND_ROLE) if child != "…" else "more"
        if kind == "parameter":
            out.append(child)
        elif kind == "module":
            out += parameter_rows(panel, child)
    return out


def select_row(panel: WorkspacePanel, name: str) -> None:
    """Click the row of ``name`` (as a user would: the view's current row)."""
    idx = panel.index_of(name)
    assert idx.isValid(), name
    panel.view.setCurrentIndex(idx)


@pytest.fixture
def net_window(make_window) -> Any:
    ws = Workspace()
    ws.run(NET + "\nx = torch.randn(2, 3)")
    return make_window(ws)


def test_a_module_is_one_row_that_expands_to_its_parameters(net_window: Any) -> None:
    win = net_window
    panel, net = panel_of(win), win.workspace["net"]
    assert panel.names_shown() == ["net", "x"]  # top-level values only
    assert panel.badges_shown("net") == ["Sequential", "21 params"]
    assert panel.members_shown("net") == []  # nothing made before it is expanded
    assert panel.expand("net")
    assert panel.members_shown("net") == ["net.0", "net.1", "net.2"]
    assert panel.badges_shown("net.1") == ["ReLU"]  # no parameters, nothing to expand
    assert panel.expand("net", recursive=True)
    assert panel.members_shown("net.0") == ["net.0.weight", "net.0.bias"]
    rows = [n for m in ("net.0", "net.2") for n in panel.members_shown(m)]
    assert rows == [f"net.{n}" for n, _ in net.named_parameters()]
    assert panel.expanded_names() == {"net", "net.0", "net.2"}
    # each row shows its name relative to the module, and the parameter's badges
    idx = panel.index_of("net.0.weight")
    assert idx.data(LABEL_ROLE) == "0.weight"
    assert panel.badges_shown("net.0.weight") == ["4×3", "float32", "cpu", "requires_grad"]
    assert panel.badges_shown("net.0") == ["Linear", "16 params"]


def test_selecting_a_parameter_shows_it_everywhere(qtbot: QtBot, net_window: Any) -> None:
    win = net_window
    panel, inspector, ws = panel_of(win), win.panels["inspector"], win.workspace
    weight = ws["net"][0].weight
    panel.expand("net", recursive=True)
    select_row(panel, "net.0.weight")
    assert ws.selected == "net.0.weight"
    qtbot.waitUntil(lambda: inspector.name == "net.0.weight")
    facts = inspector.shown_facts()
    expected = describe(weight).to_dict()
    shown = {k: facts[k] for k in expected if k in facts}
    assert shown == {k: _fmt(k, expected[k]) for k in shown}
    assert {"shape", "dtype", "requires_grad", "is_parameter", "stride"} <= set(shown)
    assert facts["is_parameter"] == "True" and facts["shape"] == "(4, 3)"
    # where it belongs, and how to reach it in code
    assert facts["member_of"] == tr("InspectorPanel", "a parameter of {0} ({1})").format(
        "net.0", "Linear")
    assert facts["access"] == "net[0].weight"
    assert eval(facts["access"], {"net": ws["net"]}) is weight
    # the Values panel shows the same tensor
    assert win.panels["values"].panel.value() is weight
    # the actions are for the workspace's values: not on a member
    for action in (panel.rename_action, panel.duplicate_action, panel.delete_action):
        assert not action.isEnabled()
    panel.delete_selected()
    assert not win.runner.busy and "net" in ws
    # its menu offers the code that reaches it
    menu = panel.context_menu()
    assert menu is not None
    [copy] = menu.actions()
    assert copy.text() == tr("WorkspacePanel", "Copy code: {0}").format("net[0].weight")
    copy.trigger()
    assert QtWidgets.QApplication.clipboard().text() == "net[0].weight"
    select_row(panel, "x")
    assert ws.selected == "x" and panel.rename_action.isEnabled()


def test_inspector_sums_up_the_module(qtbot: QtBot, net_window: Any) -> None:
    win = net_window
    inspector, ws = win.panels["inspector"], win.workspace
    ws.selected = "net"
    qtbot.waitUntil(lambda: inspector.name == "net")
    facts = inspector.shown_facts()
    summary = module_summary(ws["net"])
    texts = inspector.module_texts(summary)
    assert {k: facts[k] for k in texts} == texts
    net = ws["net"]
    assert facts["parameters"].startswith(f"{sum(p.numel() for p in net.parameters()):,} ")
    assert facts["trainable"] == "21"
    assert facts["mode"] == tr("InspectorPanel", "training (train())")
    assert facts["devices"] == "cpu" and facts["dtypes"] == "float32"
    assert facts["submodules"] == "3"
    # every fact has its one-sentence tooltip
    group = next(inspector.tree.topLevelItem(i) for i in range(inspector.tree.topLevelItemCount())
                 if inspector.tree.topLevelItem(i).data(0, QtCore.Qt.ItemDataRole.UserRole + 1)
                 == "module")
    assert all(group.child(i).toolTip(0).endswith(".") for i in range(group.childCount()))
    # a submodule is a module too; a double click on its parameter row selects it
    ws.selected = "net.2"
    qtbot.waitUntil(lambda: inspector.name == "net.2")
    assert inspector.shown_facts()["parameters"].startswith("5 ")
    assert inspector.shown_facts()["member_of"] == tr(
        "InspectorPanel", "a submodule of {0} ({1})").format("net", "Sequential")
    params = next(inspector.tree.topLevelItem(i) for i in range(inspector.tree.topLevelItemCount())
                  if inspector.tree.topLevelItem(i).text(0) == tr("InspectorPanel", "Parameters"))
    assert [params.child(i).data(0, MEMBER_ROLE) for i in range(params.childCount())] == [
        "net.2.weight", "net.2.bias"]
    inspector.tree.itemDoubleClicked.emit(params.child(1), 0)
    assert ws.selected == "net.2.bias"
    panel = panel_of(win)
    qtbot.waitUntil(lambda: panel.current_name() == "net.2.bias")  # shown where it is
    assert {"net", "net.2"} <= panel.expanded_names()


def test_training_changes_are_shown_and_expansion_kept(qtbot: QtBot, make_window) -> None:
    win = make_window()
    run(qtbot, win, """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(3, 8)
        self.norm = nn.BatchNorm1d(8)
        self.out = nn.Linear(8, 1)

    def forward(self, x):
        return self.out(torch.relu(self.norm(self.hidden(x))))

net = Net()
x = torch.randn(16, 3)
y = torch.randn(16, 1)
""")
    panel, inspector, ws = panel_of(win), win.panels["inspector"], win.workspace
    net = ws["net"]
    panel.expand("net", recursive=True)
    assert parameter_rows(panel, "net") == [f"net.{n}" for n, _ in net.named_parameters()]
    assert [n for n in panel.members_shown("net.norm") if "running" in n] == [
        "net.norm.running_mean", "net.norm.running_var"]
    assert panel.badges_shown("net.norm.running_mean")[0] == "buffer"
    select_row(panel, "net.hidden.weight")
    qtbot.waitUntil(lambda: inspector.name == "net.hidden.weight")
    assert inspector.shown_facts()["grad"] == "None"
    run(qtbot, win, """
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for _ in range(3):
    opt.zero_grad()
    loss = F.mse_loss(net(x), y)
    loss.backward()
    opt.step()
net.hidden.requires_grad_(False)
net.eval()
""")
    # the rows were made again, as expanded as they were; a run selects what it changed last
    assert panel.expanded_names() == {"net", "net.hidden", "net.norm", "net.out"}
    assert panel.current_name() == ws.selected == "net"
    ws.selected = "net.hidden.weight"
    assert panel.current_name() == "net.hidden.weight"
    qtbot.waitUntil(lambda: inspector.shown_facts().get("requires_grad") == "False")
    grad = net.hidden.weight.grad
    assert grad is not None
    assert inspector.shown_facts()["grad"] == _fmt("grad", describe(
        net.hidden.weight).to_dict()["grad"])
    assert "requires_grad=False" in panel.badges_shown("net.hidden.weight")
    assert "eval" in panel.badges_shown("net")
    ws.selected = "net"
    qtbot.waitUntil(lambda: inspector.name == "net")
    facts, s = inspector.shown_facts(), module_summary(net)
    assert s.frozen == 32 and s.with_grad == 6 and not s.training
    assert facts["trainable"] == inspector.module_texts(s)["trainable"]
    assert facts["mode"] == tr("InspectorPanel", "evaluation (eval())")
    # the module deleted: its member is no longer selected
    ws.selected = "net.out.bias"
    run(qtbot, win, "del net")
    assert ws.selected is None and "net" not in panel.names_shown()


def test_shared_parameter_and_handed_in_module(qtbot: QtBot, make_window) -> None:
    ws = Workspace()
    ws.run("tied = nn.Sequential(nn.Linear(4, 4, bias=False), nn.Linear(4, 4, bias=False))\n"
           "tied[1].weight = tied[0].weight")
    ws["model"] = torch.nn.Linear(2, 1)  # as explore(model=...) hands it in
    win = make_window(ws)
    panel, inspector = panel_of(win), win.panels["inspector"]
    assert panel.badges_shown("tied") == ["Sequential", "16 params"]  # counted once
    panel.expand("tied", recursive=True)
    assert panel.badges_shown("tied.1.weight")[0] == "= 0.weight"
    ws.selected = "tied.1.weight"
    qtbot.waitUntil(lambda: inspector.name == "tied.1.weight")
    assert inspector.shown_facts()["shared_with"] == "tied.0.weight"
    ws.selected = "model.bias"
    qtbot.waitUntil(lambda: inspector.name == "model.bias")
    items = [inspector.tree.topLevelItem(0).child(i).text(1)
             for i in range(inspector.tree.topLevelItem(0).childCount())]
    assert tr("InspectorPanel", "handed in (explore() or the API)") in items
    assert panel.current_name() == "model.bias"


def test_thousands_of_parameters_stay_quick(qtbot: QtBot, make_window) -> None:
    ws = Workspace()
    ws.run("big = nn.Sequential(*[nn.Linear(2, 2) for _ in range(3000)])")
    win = make_window(ws)
    panel = panel_of(win)
    panel.expand("big")
    panel.refresh()  # what every change in the workspace does, with the module expanded
    shown = panel.members_shown("big")
    assert len(shown) == BATCH + 1 and shown[-1] == "…"
    more = panel.index_of("big").model().index(BATCH, 0, panel.index_of("big"))
    assert more.data(LABEL_ROLE) == tr("WorkspacePanel", "… {0} more").format("2,800")
    panel.view.setCurrentIndex(more)  # choosing "… more" shows the next ones
    qtbot.waitUntil(lambda: len(panel.members_shown("big")) == 2 * BATCH + 1)
    assert panel.current_name() == f"big.{BATCH}"
    # a member far down, selected elsewhere, is found and shown
    ws.selected = "big.2999.bias"
    qtbot.waitUntil(lambda: panel.current_name() == "big.2999.bias")
    assert panel.members_shown("big")[-1] == "big.2999"


def test_language_switch_keeps_the_tree(qtbot: QtBot, make_window) -> None:
    ws = Workspace()
    ws.run(NET + "\nbig = nn.Sequential(*[nn.Linear(1, 1) for _ in range(250)])")
    win = make_window(ws)
    panel, inspector = panel_of(win), win.panels["inspector"]
    panel.expand("net", recursive=True)
    panel.expand("big")
    select_row(panel, "net.0.weight")
    qtbot.waitUntil(lambda: inspector.name == "net.0.weight")
    before = (panel.names_shown(), panel.expanded_names(), panel.current_name(),
              panel.members_shown("net"), panel.members_shown("big"))
    win.set_language("zh")
    QtWidgets.QApplication.processEvents()
    assert (panel.names_shown(), panel.expanded_names(), panel.current_name(),
            panel.members_shown("net"), panel.members_shown("big")) == before
    more = panel.index_of("big").model().index(BATCH, 0, panel.index_of("big"))
    assert more.data(LABEL_ROLE) == "…… 还有 50 个"
    facts = inspector.shown_facts()
    assert facts["member_of"] == "net.0（Linear）的参数"
    groups = [inspector.tree.topLevelItem(i).text(0)
              for i in range(inspector.tree.topLevelItemCount())]
    assert "如何得到" in groups
    ws.selected = "net"
    qtbot.waitUntil(lambda: inspector.name == "net")
    assert inspector.shown_facts()["mode"] == "训练模式（train()）"
    labels = {inspector.tree.topLevelItem(1).child(i).text(0)
              for i in range(inspector.tree.topLevelItem(1).childCount())}
    assert {"参数量", "可训练", "子模块"} <= labels


def test_changes_collapse_and_rename_keep_the_tree(qtbot: QtBot, net_window: Any) -> None:
    win = net_window
    panel, ws = panel_of(win), win.workspace
    panel.expand("net", recursive=True)
    ws.selected = "net.0.weight"
    assert panel.current_name() == "net.0.weight"
    ws["k"] = torch.ones(1)  # any change makes the rows again: nothing moves
    qtbot.waitUntil(lambda: "k" in panel.names_shown())
    assert panel.current_name() == ws.selected == "net.0.weight"
    assert panel.expanded_names() == {"net", "net.0", "net.2"}
    # collapsing the module over the selected parameter selects the module
    panel.view.collapse(panel.index_of("net"))
    assert ws.selected == "net" and panel.current_name() == "net"
    ws["k2"] = torch.ones(1)
    qtbot.waitUntil(lambda: "k2" in panel.names_shown())
    assert "net" not in panel.expanded_names()  # stays collapsed
    panel.expand("net")
    # renamed by the panel's Rename (statements: "model = net; del net"): still expanded
    with qtbot.waitSignal(win.runner.finished, timeout=TIMEOUT):
        panel.rename("net", "model")
    qtbot.waitUntil(lambda: "model" in panel.names_shown())
    assert {"model", "model.0", "model.2"} <= panel.expanded_names()
    # renamed through the API with a member selected: the member stays selected
    ws.selected = "model.2.bias"
    ws.rename("model", "m2")
    qtbot.waitUntil(lambda: "m2" in panel.names_shown())
    assert ws.selected == "m2.2.bias" and panel.current_name() == "m2.2.bias"
    assert win.panels["inspector"].name == "m2.2.bias"
