"""Workspace: named values in order, events for the panels, history, origins, to_script."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import tensor_explorer as tx
from tensor_explorer.core.workspace import LITERAL_LIMIT, Record


class Recorder:
    """Collects every event of a workspace as (event, args...)."""

    def __init__(self, ws: tx.Workspace) -> None:
        self.events: list[tuple[Any, ...]] = []
        for name in ("added", "changed", "removed", "renamed", "selected", "output", "ran"):
            getattr(ws.events, name).connect(self._make(name))

    def _make(self, name: str) -> Any:
        def record(*args: Any) -> None:
            self.events.append((name, *args))

        return record

    def names(self, kind: str) -> list[Any]:
        return [e[1] for e in self.events if e[0] == kind]


def test_mapping_semantics_keep_insertion_order() -> None:
    ws = tx.Workspace()
    ws["b"] = 1
    ws["a"] = torch.ones(2)
    ws["c"] = np.zeros(3)
    ws["b"] = 2  # replacing keeps the place
    assert ws.names() == ["b", "a", "c"] == list(ws)
    assert len(ws) == 3 and "a" in ws and "torch" not in ws and "zz" not in ws
    assert ws["b"] == 2 and ws.get("zz", 5) == 5
    del ws["b"]
    assert ws.names() == ["a", "c"]
    with pytest.raises(KeyError):
        ws["b"]
    with pytest.raises(KeyError):
        del ws["b"]


@pytest.mark.parametrize("name", ["_x", "__class__", "for", "1x", "a b", "torch", "np", "F"])
def test_invalid_or_reserved_names_are_refused(name: str) -> None:
    ws = tx.Workspace()
    with pytest.raises(ValueError):
        ws[name] = 1


def test_prebound_modules_are_not_values_but_work_in_programs() -> None:
    ws = tx.Workspace()
    assert ws.names() == []
    ws.run(
        "import torch\nimport numpy as np\nfrom torch import nn\nimport torch.nn.functional as F"
    )
    assert ws.names() == []
    ws.run("y = F.relu(torch.tensor([-1.0, 2.0]))")
    assert ws["y"].tolist() == [0.0, 2.0]


def test_events_for_set_replace_delete_rename_select() -> None:
    ws = tx.Workspace()
    rec = Recorder(ws)
    ws["x"] = torch.ones(2)
    ws["x"] = torch.zeros(2)
    ws.selected = "x"
    ws.rename("x", "y")
    ws["z"] = 3
    del ws["y"]
    assert rec.events == [
        ("added", "x"),
        ("changed", "x"),
        ("selected", "x"),
        ("renamed", "x", "y"),
        ("selected", "y"),
        ("added", "z"),
        ("removed", "y"),
        ("selected", None),
    ]
    assert ws.selected is None
    with pytest.raises(KeyError):
        ws.selected = "nothing"


def test_rename_keeps_the_place_and_the_origin() -> None:
    ws = tx.Workspace()
    ws.run("a = torch.ones(1)\nb = a * 2\nc = 3")
    ws.rename("b", "doubled")
    assert ws.names() == ["a", "doubled", "c"]
    assert ws.origin("doubled").call == "a * 2"
    assert ws.origin("b") is None
    with pytest.raises(ValueError):
        ws.rename("a", "c")
    ws.run("d = doubled + 1")
    assert ws["d"].item() == 3.0


def test_run_emits_added_changed_removed_output_and_one_ran_per_statement() -> None:
    ws = tx.Workspace()
    ws.run("array = np.zeros(3)\nshared = torch.from_numpy(array)\nold = 1")
    rec = Recorder(ws)
    ws.selected = "old"
    ws.run("array[0] = 5\nnew = shared + 1\nprint('hi')\ndel old\nnew = new * 2")
    kinds = [e[0] for e in rec.events]
    assert kinds == [
        "selected",
        "changed", "changed", "ran",  # array[0] = 5 changes array and shared
        "added", "ran",
        "output", "ran",
        "removed", "selected", "ran",
        "changed", "ran",  # rebinding an existing name
    ]  # fmt: skip
    assert rec.names("changed") == ["array", "shared", "new"]
    records = rec.names("ran")
    assert all(isinstance(r, Record) for r in records)
    assert [r.source for r in records] == [
        "array[0] = 5",
        "new = shared + 1",
        "print('hi')",
        "del old",
        "new = new * 2",
    ]
    assert records[0].changed == ("array", "shared")
    assert records[1].bound == ("new",) and records[1].made == {"new": "shared + 1"}
    assert records[2].output == "hi\n"
    assert records[3].deleted == ("old",)


def test_history_holds_only_successful_statements_and_other_changes() -> None:
    ws = tx.Workspace()
    ws["given"] = 1
    ws.run("a = given + 1")
    with pytest.raises(tx.ProgramError):
        ws.run("b = 2\nc = nothing")
    ws.rename("a", "a2")
    del ws["given"]
    assert [(r.kind, r.source) for r in ws.history] == [
        ("set", "given = 1"),
        ("run", "a = given + 1"),
        ("run", "b = 2"),
        ("rename", "a2 = a\ndel a"),
        ("delete", "del given"),
    ]
    ws.history.clear()  # a copy: the workspace keeps its own
    assert len(ws.history) == 5


def test_origin_records_call_contexts_device_and_kind() -> None:
    ws = tx.Workspace()
    ws["handed"] = torch.ones(2)
    ws.run(
        "import numpy as np\n"
        "array = np.arange(3.0)\n"
        "shared = torch.from_numpy(array)\n"
        "w = torch.ones(3, requires_grad=True)\n"
        "with torch.no_grad():\n"
        "    for i in range(2):\n"
        "        frozen = w * i\n"
        "def f(t):\n"
        "    return t\n"
        "a, b = 1, shared.detach()\n",
        device="cpu",
    )
    shared = ws.origin("shared")
    assert shared.kind == "run"
    assert shared.statement == "shared = torch.from_numpy(array)"
    assert shared.call == "torch.from_numpy(array)"
    assert shared.function == "torch.from_numpy"
    assert shared.device == "cpu" and shared.line == 3
    frozen = ws.origin("frozen")
    assert frozen.contexts == ("torch.no_grad()",) and frozen.cut_off == "no_grad"
    assert frozen.statement.startswith("with torch.no_grad():")
    assert ws.origin("i").binding == "for" and ws.origin("i").call is None
    assert ws.origin("f").binding == "def"
    assert ws.origin("b").call == "1, shared.detach()"
    assert ws.origin("handed").kind == "set" and ws.origin("handed").statement is None
    assert ws.origin("nothing") is None


def test_script_rebuilds_equal_values_in_a_fresh_workspace() -> None:
    ws = tx.Workspace()
    ws["weights"] = torch.tensor([[0.5, -1.25], [float("nan"), float("inf")]], requires_grad=True)
    ws["labels"] = torch.tensor([0, 1, 1])
    ws["mask"] = torch.tensor([True, False])
    ws["scalar"] = torch.tensor(3.5, dtype=torch.float64)
    ws["empty"] = torch.empty(0, 3)
    ws["array"] = np.arange(6, dtype=">f4").reshape(2, 3)
    ws["ints"] = np.array([[1, 2]], dtype=np.int16)
    ws["z"] = np.array([1 + 2j, -0.5j], dtype=np.complex64)
    ws["config"] = {"lr": 0.1, "names": ["a", "b"], "n": None}
    ws.run("torch.manual_seed(0)\nnoise = torch.randn(2, 2)\nx = weights.detach() + noise")
    ws.run("shared = torch.from_numpy(array.astype(np.float32))\narray[0, 0] = 99")
    ws.run("m = torch.zeros(4)\nlayer = nn.Linear(2, 2)", device="meta")
    ws.rename("noise", "eps")
    ws.run("del x")
    ws["labels"] = torch.tensor([2, 2])
    script = ws.to_script()
    assert script.startswith(
        "import torch\nimport numpy as np\nfrom torch import nn\nimport torch.nn.functional as F\n"
    )
    assert (
        "with torch.device('meta'):\n    m = torch.zeros(4)\n    layer = nn.Linear(2, 2)" in script
    )
    fresh = tx.Workspace()
    fresh.run(script)
    assert sorted(fresh.names()) == sorted(ws.names())  # a rename moves a name to the end
    for name, value in ws.items():
        other = fresh[name]
        assert type(other) is type(value), name
        if isinstance(value, torch.Tensor):
            assert other.dtype == value.dtype and other.device == value.device, name
            assert other.requires_grad == value.requires_grad, name
            if value.device.type != "meta":
                assert torch.equal(other.nan_to_num(), value.nan_to_num()), name
                assert torch.equal(other.isnan(), value.isnan()), name
        elif isinstance(value, np.ndarray):
            assert other.dtype == value.dtype, name
            np.testing.assert_array_equal(other, value)
        elif isinstance(value, torch.nn.Module):
            assert [p.shape for p in other.parameters()] == [p.shape for p in value.parameters()]
        else:
            assert other == value, name
    # and it is plain Python too
    namespace: dict[str, Any] = {}
    exec(compile(script, "<script>", "exec"), namespace)
    assert torch.equal(namespace["labels"], ws["labels"])


def test_script_marks_values_it_cannot_write_out() -> None:
    ws = tx.Workspace()
    ws["big"] = torch.zeros(LITERAL_LIMIT + 1)
    ws["bigarray"] = np.zeros(LITERAL_LIMIT + 1)
    ws["thing"] = object()
    script = ws.to_script()
    assert "# big: tensor (1001,) torch.float32 on cpu handed in directly" in script
    assert "NOT REBUILT" in script
    assert "# bigarray: ndarray (1001,) float64" in script
    assert "# thing: a object handed in directly" in script
    compile(script, "<script>", "exec")


def test_relations_by_name() -> None:
    ws = tx.Workspace()
    ws.run(
        "array = np.arange(6, dtype=np.float32).reshape(2, 3)\n"
        "shared = torch.from_numpy(array)\n"
        "copied = torch.tensor(array)\n"
        "row = shared[1]\n"
        "n = 3"
    )
    relations = {(r.a, r.b): r.kind for r in ws.relations()}
    assert relations[("array", "shared")] == "alias"
    assert relations[("array", "row")] == "contains"
    assert not any("copied" in pair for pair in relations)


def test_values_handed_in_are_usable_and_shared_not_copied() -> None:
    ws = tx.Workspace()
    t = torch.zeros(3)
    ws["t"] = t
    assert ws.run("t[1] = 5") == ["t"]
    assert t[1].item() == 5.0
    assert ws["t"] is t


def test_relations_are_computed_as_they_are_read(monkeypatch) -> None:
    """A thousand views of one tensor: ws.relations() knows how many pairs there are at once
    and computes a pair only when it is read (#15 point 5); each pair read is right."""
    from tensor_explorer.core import memory

    ws = tx.Workspace()
    base = torch.arange(10_000.0)
    for i in range(1000):
        ws[f"v{i}"] = base[i::1000]
    made: list[tuple[str, str]] = []
    real = memory._relate_pair

    def counting(sa, sb, na, nb, budget):  # type: ignore[no-untyped-def]
        made.append((na, nb))
        return real(sa, sb, na, nb, budget)

    monkeypatch.setattr(memory, "_relate_pair", counting)
    rels = ws.relations()
    assert len(rels) == 1000 * 999 // 2 and not made
    first = [r for _, r in zip(range(3), rels, strict=False)]
    assert len(made) == 3
    for r in first:  # ground truth from torch: interleaved views of one storage, no common byte
        a, b = ws[r.a], ws[r.b]
        assert a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
        elements = [{t.storage_offset() + i * t.stride(0) for i in range(t.numel())}
                    for t in (a, b)]
        assert r.shared_bytes == 4 * len(elements[0] & elements[1]) == 0
        assert r.kind == "same-storage"


# ----- replace_contents: what a session (or anything else) restores, as one change -------------


def test_replace_contents_is_one_change_with_the_events_of_one() -> None:
    from tensor_explorer.core.workspace import Origin

    ws = tx.Workspace()
    ws.run("old = torch.zeros(2)\nk = 1")
    ws.selected = "k"
    ws.track_changes = True
    rec = Recorder(ws)
    undoable: list[Any] = []
    refused: list[str] = []
    ws.events.undoable.connect(undoable.append)
    ws.events.not_undoable.connect(refused.append)
    a = torch.arange(4.0)
    history = [Record("run", "a = torch.arange(4.0)", bound=("a",))]
    origins = {"a": Origin("a", "run", "a = torch.arange(4.0)"), "gone": Origin("gone", "set")}

    def rebuild(notes: list[str]) -> dict[str, Any]:
        assert ws["a"] is a and "old" not in ws  # the values are in place, the old ones gone
        ws.run("def f(u):\n    return u + a", restricted=True)
        ws.run("junk = 5", restricted=True)  # bound, but not returned: left out
        notes.append("f rebuilt")
        return {"f": ws["f"]}

    names = ws.replace_contents({"a": a, "b": 2}, history=history, origins=origins,
                                selected="a", notes=("first",), rebuild=rebuild,
                                order=["f", "a", "b", "missing"], reason="testing")  # fmt: skip
    assert names == ["f", "a", "b"] == ws.names()
    assert ws["a"] is a and ws["f"](torch.ones(4)).tolist() == [1.0, 2.0, 3.0, 4.0]
    assert ws.history == history and ws.origin("a") == origins["a"] and ws.origin("f") is None
    assert ws.selected == "a" and ws.session_notes == ("first", "f rebuilt")
    assert rec.events == [("removed", "old"), ("removed", "k"), ("selected", None),
                          ("added", "f"), ("added", "a"), ("added", "b"), ("selected", "a")]
    assert refused == ["testing"] and undoable == [] and ws.track_changes
    assert ws.trusted_code() == []  # data from a file: a restricted program may share it
    ws.run("c = a.sum()", restricted=True)
    assert ws["c"].item() == 6.0


def test_replace_contents_checks_names_before_changing_anything() -> None:
    ws = tx.Workspace()
    ws.run("x = torch.ones(2)")
    rec = Recorder(ws)
    for bad in ("_hidden", "torch", "not a name", "class"):
        with pytest.raises(ValueError):
            ws.replace_contents({"ok": 1, bad: 2})
    assert ws.names() == ["x"] and rec.events == []


def test_replace_contents_without_order_keeps_values_then_rebuilt() -> None:
    ws = tx.Workspace()
    names = ws.replace_contents({"b": 1, "a": 2}, rebuild=lambda notes: {"c": 3, "a": 4})
    assert names == ["b", "a", "c"] and ws["a"] == 4
    assert ws.selected is None and ws.history == [] and ws.session_notes == ()


def test_replace_contents_that_fails_still_tells_the_panels() -> None:
    ws = tx.Workspace()
    ws.run("old = 1")
    ws.track_changes = True
    rec = Recorder(ws)

    def rebuild(notes: list[str]) -> dict[str, Any]:
        raise KeyError("broken")

    with pytest.raises(KeyError):
        ws.replace_contents({"a": 1}, rebuild=rebuild)
    assert ws.track_changes  # back on
    assert rec.events == [("removed", "old"), *[("added", n) for n in ws.names()]]


def test_held_keeps_programs_out_and_a_held_workspace_refuses_another_hold() -> None:
    # lessons.evaluate checks an expectation under ws.held(): no program may run meanwhile,
    # and an expectation asked for while a program runs is refused as "busy", not waited on
    from tensor_explorer.core.lessons import evaluate
    from tensor_explorer.core.runner import ProgramError

    ws = tx.Workspace()
    ws.run("x = torch.ones(3)")
    with ws.held():
        assert ws.running  # to every other caller, the workspace is busy
        with pytest.raises(ProgramError) as info:
            ws.run("y = x + 1")
        assert info.value.kind == "busy"
        with pytest.raises(ProgramError) as info, ws.held():
            pass
        assert info.value.kind == "busy"
        with pytest.raises(ProgramError) as info:
            evaluate(ws, "x.sum() == 3")
        assert info.value.kind == "busy"
    assert not ws.running and "y" not in ws
    assert bool(evaluate(ws, "x.sum() == 3"))  # released again
    with pytest.raises(ZeroDivisionError), ws.held():
        raise ZeroDivisionError  # an error inside releases the hold too
    assert not ws.running
