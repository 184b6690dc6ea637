"""Memory panel with a thousand views of one tensor (#15 point 5): it groups by allocation,
makes scene items only for what is on screen, and reads its relation list lazily; pairs past
their work budget read "overlap? counting…" and are finished in the background (cancellable).
Facts are checked against torch: storages' data pointers, storage offsets and strides."""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest
import torch
from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot

from tensor_explorer.core import memory
from tensor_explorer.core.workspace import Workspace
from tensor_explorer.qt import memory_relations
from tensor_explorer.qt.bridge import WorkspaceBridge
from tensor_explorer.qt.memory_panel import MemoryPanel
from tensor_explorer.qt.memory_relations import RelationModel
from tensor_explorer.qt.memory_view import LaneItem


def torch_bytes(t: torch.Tensor) -> set[int]:
    """Absolute addresses of every byte of ``t``, from torch alone."""
    w = t.element_size()
    index = np.zeros(1, dtype=np.int64)
    for n, s in zip(t.shape, t.stride(), strict=True):
        index = (index[:, None] + np.arange(n, dtype=np.int64)[None, :] * s).ravel()
    start = t.untyped_storage().data_ptr() + t.storage_offset() * w
    return {int(start + i * w + j) for i in index for j in range(w)}


def torch_kind(a: torch.Tensor, b: torch.Tensor) -> tuple[str, int]:
    ba, bb = torch_bytes(a), torch_bytes(b)
    shared = len(ba & bb)
    if ba == bb:
        return "alias", shared
    if bb < ba:
        return "contains", shared
    if ba < bb:
        return "inside", shared
    return ("overlap" if shared else "same-storage"), shared


def make_panel(qtbot: QtBot, ws: Workspace) -> MemoryPanel:
    bridge = WorkspaceBridge(ws)
    panel = MemoryPanel(bridge)
    bridge.setParent(panel)
    qtbot.addWidget(panel)
    panel.resize(1000, 700)
    panel.show()
    qtbot.waitUntil(panel.is_ready, timeout=30_000)
    return panel


def thousand_views() -> Workspace:
    ws = Workspace()
    base = torch.arange(100_000.0)
    ws["base"] = base
    for i in range(1000):
        ws[f"v{i}"] = base[i::1000]
    return ws


def test_thousand_views_draw_what_is_on_screen_and_list_lazily(qtbot: QtBot) -> None:
    ws = thousand_views()
    panel = make_panel(qtbot, ws)
    model = panel.model
    # one allocation, every view nested under base (its parent found without listing pairs)
    assert panel.allocations() == [["base", *(f"v{i}" for i in range(1000))]]
    assert all(lane.parent == "base" and lane.parent_kind == "contains"
               for lane in model.strips[0].lanes[1:])
    assert model.pairs == 1001 * 1000 // 2
    # the relation list: a first batch, not half a million rows
    first = panel.table.rowCount()
    assert 0 < first < 2000
    assert panel.relations.canFetchMore()
    # the drawing: items for the rows near the view only
    lanes = [i for i in panel.scene.items() if isinstance(i, LaneItem)]
    assert 0 < len(lanes) < 150
    qtbot.waitUntil(panel.is_laid_out, timeout=20_000)
    # scrolling the list to its end reads more pairs; every row read agrees with torch
    def read_past(n: int) -> bool:
        panel.table.scrollToBottom()
        return panel.table.rowCount() > n

    qtbot.waitUntil(lambda: read_past(1100), timeout=20_000)  # past base's 1000 pairs
    assert panel.table.rowCount() < 20_000
    values = dict(ws.items())
    rows = panel.relation_rows()
    checked = rows[:40] + rows[-40:]
    for a, b, kind, shared, _ in checked:
        assert (kind, shared) == torch_kind(values[a], values[b]), (a, b)
    assert {kind for _, _, kind, _, _ in checked} == {"contains", "same-storage"}
    # scrolling the drawing to its end makes the last rows' items
    assert "v999" not in panel._lane_items
    bar = panel.view.verticalScrollBar()
    bar.setValue(bar.maximum())
    qtbot.waitUntil(lambda: "v999" in panel._lane_items, timeout=5000)
    rect = panel.lane_rect("v999")
    assert rect is not None and panel.view.viewport().rect().intersects(rect)
    assert len([i for i in panel.scene.items() if isinstance(i, LaneItem)]) < 400
    # selecting a value far down scrolls to it
    bar.setValue(0)
    ws.selected = "v500"
    qtbot.waitUntil(lambda: panel.view.viewport().rect().contains(
        panel.lane_rect("v500") or panel.view.viewport().rect().adjusted(0, -9, 0, 0)),
        timeout=5000)


def test_split_and_unbind_group_by_allocation(qtbot: QtBot) -> None:
    ws = Workspace()
    x = torch.arange(600.0).reshape(300, 2)
    ws["x"] = x
    for i, part in enumerate(x.split(1)):
        ws[f"s{i}"] = part
    for i, row in enumerate(x.unbind(0)):
        ws[f"u{i}"] = row
    panel = make_panel(qtbot, ws)
    assert len(panel.allocations()) == 1
    lanes = {lane.name: lane for lane in panel.model.strips[0].lanes}
    # s7 and u7 read the same bytes: one is drawn under the other (an alias), both under x
    assert (lanes["u7"].parent, lanes["u7"].parent_kind) == ("s7", "alias")
    assert lanes["s7"].parent == "x"
    assert torch_kind(x, ws["s7"]) == ("contains", 8)
    assert torch_kind(ws["s7"], ws["u7"]) == ("alias", 8)


class Texts:
    """What the panel gives the relation model (plain words, for tests)."""

    def headers(self) -> list[str]:
        return ["a", "b", "relation", "shared bytes", "why"]

    def kind_text(self, kind: str, a: str, b: str) -> str:
        return f"{kind}({a},{b})"

    def kind_tip(self, kind: str, a: str, b: str) -> str:
        return ""

    def pending_text(self, a: str, b: str) -> str:
        return "overlap? counting…"


def views() -> dict[str, torch.Tensor]:
    x = torch.arange(4096.0)
    grid = x.view(64, 64)
    return {"x": x, "t": grid.t(), "cols": grid[:, ::3], "rows": grid[1::2],
            "diag": grid.diagonal(), "odd": x.as_strided((500, 9), (7, 5))}


def test_pairs_past_the_budget_are_counted_in_the_background(
        qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory_relations, "PAIR_BUDGET", 1)  # every pair runs past it
    owner = QtWidgets.QWidget()
    qtbot.addWidget(owner)
    model = RelationModel(Texts(), owner)
    values = views()
    model.reset(values, 15, {})
    assert model.rowCount() == 0
    model.fetch(100, 10.0)
    assert model.rowCount() == 15 and model.pending() > 0
    pending = [r for r in range(15) if isinstance(model.rows[r], memory.PendingRelation)]
    assert model.text(pending[0], 2) == "overlap? counting…" and model.text(pending[0], 3) == "…"
    qtbot.waitUntil(model.done, timeout=30_000)
    assert model.pending() == 0
    for r, row in enumerate(model.rows):
        assert isinstance(row, memory.Relation)
        assert row.a is not None and row.b is not None
        assert (row.kind, row.shared_bytes) == torch_kind(values[row.a], values[row.b])
        assert model.text(r, 2) == f"{row.kind}({row.a},{row.b})"
    assert {frozenset((r.a, r.b)) for r in model.rows} == {
        frozenset(p) for p in itertools.combinations(values, 2)}


def test_counting_stops_when_the_list_is_replaced(
        qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory_relations, "PAIR_BUDGET", 1)
    owner = QtWidgets.QWidget()
    qtbot.addWidget(owner)
    model = RelationModel(Texts(), owner)
    model.reset(views(), 15, {})
    model.fetch(100, 10.0)
    task = model._task
    assert task is not None and task.running
    with qtbot.waitSignal(task.cancelled, timeout=30_000):
        model.reset({"y": torch.ones(2)}, 0, {})  # another workspace: the old count stops
    assert model.rowCount() == 0 and model.done() and not model.canFetchMore()


def test_deferred_work_runs_one_slice_a_turn_in_turns(qtbot: QtBot) -> None:
    """Laying out, filling and measuring share one scheduler: one job's slice per turn of the
    event loop (never several adding up), round robin, and a turn left alone when the thread
    was just busy (an input)."""
    owner = QtWidgets.QWidget()
    qtbot.addWidget(owner)
    slices = memory_relations.Slices(owner)
    ran: list[str] = []
    deadlines: list[float] = []
    left = {"a": 3, "b": 2}

    def job(name: str):
        def run(deadline: float) -> bool:
            deadlines.append(deadline)  # the slice's end, on perf_counter's clock
            ran.append(name)
            left[name] -= 1
            return left[name] > 0
        return run

    a, b = job("a"), job("b")
    slices.want(a)
    t0 = time.perf_counter()  # every deadline lies after this: a duration would not
    slices.want(b)
    slices.want(a)  # asked again before it ran: still one job
    slices._run()
    assert ran == ["a"]
    slices._run()
    assert ran == ["a", "b"]
    slices._since = time.perf_counter() - 1  # the thread was busy since: this turn is its own
    slices._run()
    assert ran == ["a", "b"]
    slices._run()
    assert ran == ["a", "b", "a"]
    qtbot.waitUntil(lambda: not slices.pending(a) and not slices.pending(b), timeout=2000)
    assert ran == ["a", "b", "a", "b", "a"]
    # each job is handed the end of its own slice (a deadline, not a duration: no timing here)
    assert len(deadlines) == 5 and all(isinstance(d, float) for d in deadlines)
    assert deadlines == sorted(deadlines) and all(d > t0 for d in deadlines)


def test_one_scheduler_for_the_panels_deferred_work(qtbot: QtBot) -> None:
    """The drawing's layout, the items near the view, a redraw after a resize, the relation
    list's fill, fetches and row heights: no zero-delay timer of their own (several firing in
    one turn held the UI thread past 50 ms), all through the panel's one :class:`Slices`."""
    panel = make_panel(qtbot, thousand_views())
    assert panel.table.slices is panel.slices and panel.relations.slices is panel.slices
    zero = [t for t in panel.findChildren(QtCore.QTimer) if t.interval() == 0]
    assert zero == [panel.slices._timer]
    qtbot.waitUntil(lambda: panel.is_laid_out() and panel.table.measured(), timeout=20_000)
    # a new language re-fits the columns over every row read, in slices
    panel.relations.fetch(1000, 10.0)
    qtbot.waitUntil(panel.table.measured, timeout=20_000)
    panel.retranslate()
    assert not panel.table.measured()
    qtbot.waitUntil(panel.table.measured, timeout=20_000)
    # a width the drawing is laid out for already (the scroll bar shows or hides): no new
    # layout
    laid = panel._laid_width
    panel._resized(time.perf_counter() + 1)
    assert panel.is_laid_out() and panel._laid_width == laid
