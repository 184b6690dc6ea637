"""core/undo: every change made to a workspace can be taken back and made again — names,
values, the bytes changed in place, which values share memory, ``.grad``, history — with
bounded memory. Ground truth: the same state recorded before the change, compared with
torch.equal, untyped_storage() and ``_version``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from tensor_explorer.core import undo
from tensor_explorer.core.runner import ProgramError
from tensor_explorer.core.undo import Change, UndoHistory
from tensor_explorer.core.workspace import Workspace


def tracked() -> tuple[Workspace, UndoHistory, list[Any]]:
    ws = Workspace()
    ws.track_changes = True
    history = UndoHistory()
    refused: list[str] = []
    ws.events.undoable.connect(history.push)
    ws.events.not_undoable.connect(lambda why: (refused.append(why), history.clear(why)))
    return ws, history, refused


def state(ws: Workspace) -> dict[str, Any]:
    """What the user sees: each value's data (a copy), object identity, grad and history."""
    out: dict[str, Any] = {"__names": ws.names(), "__history": [r.source for r in ws.history],
                           "__selected": ws.selected}
    for name, value in ws.items():
        if isinstance(value, torch.Tensor):
            grad = value.grad if value.is_leaf else None
            out[name] = (id(value), value.detach().clone(),
                         None if grad is None else grad.clone())
        elif isinstance(value, np.ndarray):
            out[name] = (id(value), value.copy(), None)
        elif isinstance(value, torch.nn.Module):
            out[name] = (id(value), [p.detach().clone() for p in value.parameters()],
                         [None if p.grad is None else p.grad.clone() for p in value.parameters()])
        else:
            out[name] = (id(value), value, None)
    return out


def same(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert a.keys() == b.keys()
    for k in a:
        if k.startswith("__"):
            assert a[k] == b[k], k
            continue
        ia, va, ga = a[k]
        ib, vb, gb = b[k]
        assert ia == ib, k
        _eq(va, vb, k)
        _eq(ga, gb, k)


def _eq(x: Any, y: Any, k: str) -> None:
    if isinstance(x, torch.Tensor):
        assert isinstance(y, torch.Tensor) and torch.equal(x, y), k
    elif isinstance(x, np.ndarray):
        assert np.array_equal(x, y), k
    elif isinstance(x, list):
        assert len(x) == len(y)
        for p, q in zip(x, y, strict=True):
            _eq(p, q, k)
    else:
        assert x == y or (x is None and y is None), k


PROGRAMS = [
    "x.add_(1)",
    "x[0] = 100.0",
    "x += 5\ny = x * 2",
    "v = x[1:]\nv.mul_(0)",  # a view written into: the base's bytes change
    "torch.nn.init.uniform_(w)",
    "a[0] = 7",  # a NumPy array, written by NumPy
    "t = torch.from_numpy(a)\nt.add_(1)",  # NumPy's memory, written by torch
    "loss = (w * x).sum()\nloss.backward()",  # .grad filled
    "loss = (w * x).sum()\nloss.backward()\nloss2 = (w * w).sum()\nloss2.backward()",
    "opt = torch.optim.SGD([w], lr=0.1)\n(w * 3).sum().backward()\nopt.step()",
    "del x",
    "x = torch.zeros(1)",
    "net.weight.data.fill_(3)",
]


@pytest.mark.parametrize("program", PROGRAMS)
def test_undo_puts_everything_back_and_redo_makes_it_again(program: str) -> None:
    ws, history, refused = tracked()
    ws.run("x = torch.arange(4.0)\nw = torch.ones(4, requires_grad=True)\n"
           "a = np.arange(3.0)\nnet = nn.Linear(2, 2)")
    ws.run("(w * 2).sum().backward()")  # w.grad exists: backward accumulates into it
    before = state(ws)
    ws.run(program)
    after = state(ws)
    assert not refused
    change = history.undo(ws)
    assert change is not None
    same(state(ws), before)
    history.redo(ws)
    same(state(ws), after)
    history.undo(ws)
    same(state(ws), before)


def test_sharing_survives_undo() -> None:
    ws, history, _ = tracked()
    ws.run("base = torch.arange(6.0)\nv = base[2:]\nn = base.numpy()")
    ws.run("v.mul_(10)\ndel base")
    history.undo(ws)
    base, v, n = ws["base"], ws["v"], ws["n"]
    assert v.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
    assert torch.equal(base, torch.arange(6.0))
    base[3] = -1.0  # still one allocation: the view and the array see it
    assert v[1] == -1.0 and n[3] == -1.0


def test_a_failing_run_keeps_what_ran_before_it_and_undoes_in_one_step() -> None:
    ws, history, _ = tracked()
    ws.run("x = torch.zeros(3)")
    before = state(ws)
    with pytest.raises(ProgramError):
        ws.run("x.add_(1)\ny = 2\nz = x @ torch.ones(5)")
    assert torch.equal(ws["x"], torch.ones(3)) and "y" in ws
    history.undo(ws)
    same(state(ws), before)


def test_rename_delete_set_and_clear_are_undone() -> None:
    ws, history, _ = tracked()
    ws.run("x = torch.ones(2)\ny = torch.zeros(2)")
    ws.selected = "x"
    before = state(ws)
    ws.rename("x", "renamed")
    del ws["y"]
    ws["z"] = torch.full((2,), 3.0)
    ws.clear()
    assert ws.names() == [] and [c.label for c in history.done][-4:] == [
        "rename x to renamed", "del y", "set z", "clear the workspace"]
    for _ in range(4):
        history.undo(ws)
    same(state(ws), before)
    assert ws.selected == "x"


def test_history_and_script_follow_undo() -> None:
    ws, history, _ = tracked()
    ws.run("x = torch.ones(2)")
    script = ws.to_script()
    ws.run("y = x + 1")
    history.undo(ws)
    assert ws.to_script() == script
    history.redo(ws)
    assert "y = x + 1" in ws.to_script()


def test_new_change_drops_redo_and_events_tell_the_panels() -> None:
    ws, history, _ = tracked()
    ws.run("x = torch.ones(2)")
    ws.run("y = 1")
    seen: list[tuple[str, str]] = []
    ws.events.removed.connect(lambda n: seen.append(("removed", n)))
    ws.events.added.connect(lambda n: seen.append(("added", n)))
    history.undo(ws)
    assert ("removed", "y") in seen
    assert history.redo_label == "y = 1"
    ws.run("z = 2")
    assert history.redo_label is None and history.undo_label == "z = 2"


def test_undo_is_refused_while_a_program_runs() -> None:
    ws, history, _ = tracked()
    ws.run("x = torch.ones(2)")
    with ws._lock, pytest.raises(RuntimeError):
        history.undo(ws)
    assert history.undo_label == "x = torch.ones(2)"


def test_a_change_past_its_budget_is_not_undoable_and_clears_the_history(
        monkeypatch: pytest.MonkeyPatch) -> None:
    ws, history, refused = tracked()
    ws.run("big = torch.zeros(1000, 1000)\nsmall = torch.zeros(3)")
    monkeypatch.setattr(undo.budget, "change", 1 << 20)  # 1 MiB: big is 4 MB
    ws.run("small.add_(1)")
    assert history.undo_label == "small.add_(1)"
    ws.run("big.add_(1)")
    assert refused and "MiB" in refused[0]
    assert history.undo_label is None


def test_only_what_is_written_is_copied() -> None:
    ws, history, _ = tracked()
    ws.run("big = torch.zeros(1000, 1000)\nsmall = torch.zeros(3)")
    ws.run("small.add_(1)\nc = big.sum()")  # big is read, never written
    change = history.done[-1]
    assert isinstance(change, Change)
    assert change.nbytes == 3 * 4  # small's 12 bytes, not big's 4 MB


def test_stack_budget_forgets_the_oldest(monkeypatch: pytest.MonkeyPatch) -> None:
    ws, history, _ = tracked()
    ws.run("x = torch.zeros(1000)")
    monkeypatch.setattr(undo.budget, "stack", 10_000)
    for _ in range(5):
        ws.run("x.add_(1)")  # 4000 bytes each
    assert 1 <= len(history.done) <= 3
    assert sum(c.nbytes for c in history.done) <= 10_000 or len(history.done) == 1


def test_nothing_is_recorded_when_tracking_is_off() -> None:
    ws = Workspace()
    got: list[Any] = []
    ws.events.undoable.connect(got.append)
    ws.run("x = torch.ones(2)\nx.add_(1)")
    del ws["x"]
    assert got == []


def test_graph_pane_backward_is_undone_with_its_gradients() -> None:
    from tensor_explorer.core.graph_session import GraphSession

    ws, history, _ = tracked()
    ws.run("w = torch.ones(3, requires_grad=True)\nloss = (w * w).sum()")
    s = GraphSession(ws)
    s.run(s.follow())
    s.run(s.backward(retain_graph=True))
    s.run(s.backward())
    assert torch.equal(ws["w"].grad, torch.full((3,), 4.0))
    history.undo(ws)
    assert torch.equal(ws["w"].grad, torch.full((3,), 2.0))
    history.undo(ws)
    assert ws["w"].grad is None
    assert "backward" not in ws.to_script()
    history.redo(ws)
    assert torch.equal(ws["w"].grad, torch.full((3,), 2.0))


def test_redo_of_a_write_through_memory_shared_with_numpy() -> None:
    """A tensor and the NumPy array it shares bytes with (torch.from_numpy) are both kept:
    redo must invert undo exactly, whichever of the two wrote, cycle after cycle."""
    ws = Workspace()
    ws.track_changes = True
    history = UndoHistory()
    ws.events.undoable.connect(history.push)
    ws.run("a = np.zeros((2, 3), dtype=np.float32)\nt = torch.from_numpy(a)")
    for statement in ("t[1, 2] = 7.5", "a[0, 0] = 3.0", "t.add_(1)"):
        before = ws["a"].copy()
        ws.run(statement)
        after = ws["a"].copy()
        for _ in range(2):
            history.undo(ws)
            assert np.array_equal(ws["a"], before)
            assert torch.equal(ws["t"], torch.from_numpy(before))
            history.redo(ws)
            assert np.array_equal(ws["a"], after)
            assert torch.equal(ws["t"], torch.from_numpy(after))
        assert ws["t"].untyped_storage().data_ptr() == ws["a"].__array_interface__["data"][0]
