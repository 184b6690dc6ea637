"""core/undo (#25 point 3): undo restores everything a change touched — values (bytes), names,
shape, strides, storage offset, storage size, ``requires_grad``, ``is_leaf``, ``.grad``, which
values share memory, an array's shape, strides, dtype and ``writeable`` flag — including writes
through a NumPy array or tensor made in the same statement over a workspace value's memory
(``t.numpy()[0] = 5``). Ground truth: torch's and NumPy's own answers (``stride()``,
``storage_offset()``, ``untyped_storage().nbytes()``, ``requires_grad``, ``.grad``, ``a.flags``,
the raw bytes of each storage and array) recorded before the change.

The property test runs random sequences of statements from a small grammar (tensors, views,
expand, NumPy sharing, in-place writes, in-place metadata, ``requires_grad_``, ``backward``,
``del``, renames through the workspace), then undoes them all (the start state, exactly) and
redoes them all (the end state). ``bench/undo_fuzz.py --sequences 850`` is the long run.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tensor_explorer.core.catalog import Message
from tensor_explorer.core.memory import relation
from tensor_explorer.core.runner import ProgramError
from tensor_explorer.core.undo import UndoHistory
from tensor_explorer.core.workspace import Workspace

T = TypeVar("T")

# -- the state, as torch and NumPy report it ------------------------------------------------


def _storage_bytes(t: torch.Tensor) -> bytes:
    raw = torch.empty(0, dtype=torch.uint8).set_(t.untyped_storage())
    return bytes(raw.clone().numpy().tobytes())  # (.numpy() would make it not resizable)


def _tensor_facts(t: torch.Tensor) -> tuple[Any, ...]:
    grad = t.grad if t.is_leaf else None
    return ("tensor", id(t), tuple(t.shape), t.stride(), t.storage_offset(),
            t.untyped_storage().nbytes(), t.dtype, t.requires_grad, t.is_leaf,
            _storage_bytes(t),
            None if grad is None else (id(grad), tuple(grad.shape), grad.stride(),
                                       grad.detach().clone().numpy().tobytes()))


def _array_facts(a: np.ndarray) -> tuple[Any, ...]:
    return ("array", id(a), a.shape, a.strides, a.dtype.str, bool(a.flags.writeable),
            a.tobytes())


def _address(v: Any) -> int:
    return int(v.data_ptr()) if isinstance(v, torch.Tensor) else int(
        v.__array_interface__["data"][0])


def world(ws: Workspace, skip: frozenset[str] = frozenset()) -> dict[Any, Any]:
    """Every fact undo must restore; ``skip``: names a change said it cannot put back."""
    out: dict[Any, Any] = {"__names": sorted(ws.names())}
    shared: list[tuple[str, Any]] = []
    for name in ws.names():
        if name in skip:
            continue
        v = ws[name]
        if isinstance(v, torch.Tensor):
            out[name] = _tensor_facts(v)
            shared.append((name, v))
        elif isinstance(v, np.ndarray):
            out[name] = _array_facts(v)
            shared.append((name, v))
        else:
            out[name] = ("other", id(v))
    for i, (n1, v1) in enumerate(shared):  # sharing: same allocation, and where in it
        for n2, v2 in shared[i + 1:]:
            rel = relation(v1, v2)
            out[(n1, n2)] = None if rel is None else (rel.kind, rel.shared_bytes,
                                                      _address(v1) - _address(v2))
    return out


def differences(a: dict[Any, Any], b: dict[Any, Any]) -> list[str]:
    return [f"{k!r}: {a.get(k)!r:.200} != {b.get(k)!r:.200}"
            for k in sorted(set(a) | set(b), key=repr) if a.get(k) != b.get(k)]


def noted_names(history: UndoHistory) -> frozenset[str]:
    """The names the changes said they cannot put back (their notes)."""
    out = set()
    for change in [*history.done, *history.undone]:
        for note in change.notes:
            if isinstance(note, Message) and "names" in note.params:
                out.add(str(note.params["names"]).removesuffix(".grad"))
    return frozenset(out)


def tracked(setup: str) -> tuple[Workspace, UndoHistory]:
    ws = Workspace()
    ws.run("import torch\nimport numpy as np\n" + setup)
    return ws, UndoHistory(ws)


# -- each reproducer of the issue ------------------------------------------------------------

REPRODUCERS = [
    ("x = torch.arange(6.)", "x.requires_grad_()"),
    ("x = torch.ones(3, requires_grad=True)", "x.requires_grad_(False)"),
    ("x = torch.arange(6.)", "x.unsqueeze_(0)"),
    ("x = torch.arange(6.).reshape(1, 2, 3)", "x.squeeze_()"),
    ("x = torch.arange(6.).reshape(2, 3)", "x.t_()"),
    ("x = torch.arange(6.).reshape(2, 3)", "x.transpose_(0, 1)"),
    ("x = torch.arange(6.)", "x.resize_(2)"),
    ("x = torch.arange(6.)\nv = x[2:]", "x.resize_(20)\nx.fill_(1)"),
    ("x = torch.arange(6.)", "x.as_strided_((2, 2), (1, 2), 1)"),
    ("x = torch.arange(6.)\ny = torch.zeros(3)", "x.set_(y)"),
    ("x = torch.arange(6.)\ny = torch.zeros(3)", "x.data = y"),
    ("x = torch.ones(3, requires_grad=True)", "x.detach_()"),
    ("x = torch.arange(6.)\ny = x[1:]", "y.unsqueeze_(0).mul_(2)"),
    ("x = torch.ones(3, requires_grad=True)", "(x * 2).sum().backward()"),
    ("x = torch.ones(3)", "x.requires_grad_()\n(x * 2).sum().backward()"),
    ("x = torch.ones(3, requires_grad=True)\n(x * 2).sum().backward()", "x.grad.unsqueeze_(0)"),
    ("x = torch.ones(3, requires_grad=True)\n(x * 2).sum().backward()", "x.grad.numpy()[0] = 9"),
    ("a = np.arange(6.)", "a.shape = (2, 3)"),
    ("a = np.arange(6.).reshape(2, 3)", "a.shape = (6,)\na[0] = 7"),
    ("a = np.arange(6.)", "a.flags.writeable = False"),
    ("a = np.arange(6.)", "a[0] = 9\na.flags.writeable = False"),
    ("a = np.arange(6.)", "a.dtype = np.int64"),
    ("a = np.arange(6.)", "a.dtype = np.float32"),
    ("b = np.arange(12.)\na = b[::2]", "a.strides = (8,)"),
    ("t = torch.arange(6.)", "t.numpy()[0] = 5"),
    ("t = torch.arange(6.)", "np.asarray(t)[0] = 5"),
    ("t = torch.arange(6.)", "t.numpy().fill(0)"),
    ("t = torch.arange(6.)", "torch.from_numpy(t.numpy()[2:])[0] = 1"),
    ("t = torch.arange(6.)", "t.untyped_storage().fill_(0)"),
    ("a = np.arange(6.)", "torch.from_numpy(a)[0] = 1"),
    ("a = np.arange(6.)\nt = torch.from_numpy(a)", "t.numpy()[1] = 4\na.shape = (3, 2)"),
]


@pytest.mark.parametrize(("setup", "statement"), REPRODUCERS)
def test_undo_restores_what_the_statement_touched(setup: str, statement: str) -> None:
    ws, history = tracked(setup)
    start = world(ws)
    ws.run(statement)
    end = world(ws)
    assert start != end, "the statement changed nothing: not a reproducer"
    assert history.can_undo and not history.done[-1].notes
    history.undo()
    assert differences(world(ws), start) == []
    assert history.can_redo
    history.redo()
    assert differences(world(ws), end) == []
    history.undo()  # and again: undo after redo is undo
    assert differences(world(ws), start) == []


def test_ground_truth_of_one_reproducer() -> None:
    """The facts compared above, spelled out for ``x.t_()`` and ``t.numpy()[0] = 5``."""
    ws, history = tracked("x = torch.arange(6.).reshape(2, 3)\nt = torch.arange(4.)")
    x, t = ws["x"], ws["t"]
    ws.run("x.t_()\nt.numpy()[0] = 5")
    assert x.stride() == (1, 3) and t[0].item() == 5
    history.undo()
    assert ws["x"] is x and x.shape == (2, 3) and x.stride() == (3, 1)
    assert x.storage_offset() == 0 and x.untyped_storage().nbytes() == 24
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_a_write_that_changed_nothing_keeps_no_copy() -> None:
    ws, history = tracked("t = torch.arange(1000.)")
    ws.run("print(t.numpy().sum())")  # memory handed to NumPy, not written
    assert history.done[-1].nbytes == 0
    ws.run("t.numpy()[0] = 0")  # the same value written: nothing to keep
    assert history.done[-1].nbytes == 0
    ws.run("t.numpy()[0] = 1")
    assert history.done[-1].nbytes == 4000


def test_memory_handed_to_numpy_past_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    from tensor_explorer.core import undo

    ws, history = tracked("t = torch.arange(1000.)")
    monkeypatch.setattr(undo.budget, "change", 1000)
    ws.run("print(t.numpy().sum())")  # too large to copy; a digest says it did not change
    assert history.cleared_because == ""
    ws.run("t.numpy()[0] = 1")
    assert history.cleared_because.code == "undo.too-large"  # type: ignore[attr-defined]


def test_what_cannot_be_undone_is_said() -> None:
    ws, history = tracked("w = torch.ones(3, requires_grad=True)\ny = w * 2\n"
                          "t = torch.arange(3.)\nn = t.numpy()")
    ws.run("y.detach_()")  # autograd history cannot be given back
    text = history.undo_text
    assert isinstance(text, Message) and text.code == "undo.text-partial"
    assert "autograd history" in text and "y" in text and "自动求导" in text.render("zh")
    history.undo()
    assert ws["y"].shape == (3,)  # the rest is put back
    ws.run("n.flags.writeable = False")  # NumPy refuses writeable=True for borrowed memory
    assert history.done[-1].notes == [Message("undo.read-only-kept", names="n")]
    ws.run("z = t + 1")
    assert history.undo_text == Message("undo.text", label="z = t + 1")


def test_history_from_the_workspace() -> None:
    ws = Workspace()
    history = UndoHistory(ws)
    assert ws.track_changes and not history.can_undo and history.undo_text is None
    ws.run("x = 1")
    assert history.can_undo and history.undo_text == "Undo x = 1"
    history.undo()
    assert "x" not in ws and history.can_redo
    history.redo()
    assert ws["x"] == 1


# -- random sequences ------------------------------------------------------------------------

NAMES = ["p", "q", "r", "s", "u"]
MAKE = [
    "{n} = torch.arange(6.)",
    "{n} = torch.arange(12.).reshape(3, 4)",
    "{n} = torch.ones(4, requires_grad=True)",
    "{n} = torch.zeros(2, 3, dtype=torch.float64)",
    "{n} = np.arange(6.)",
    "{n} = np.arange(12.).reshape(3, 4)",
    "{n} = np.zeros(4, dtype=np.float32)",
]
FROM_TENSOR = [
    "{n} = {t}[1:]", "{n} = {t}.view(-1)", "{n} = {t}.t()", "{n} = {t}.unsqueeze(0)",
    "{n} = {t}.expand(2, *{t}.shape)", "{n} = {t}.detach()", "{n} = {t} * 2",
    "{n} = {t}.numpy()", "{n} = {t}.sum()",
]
FROM_ARRAY = [
    "{n} = torch.from_numpy({a})", "{n} = {a}[::2]", "{n} = {a}.T", "{n} = torch.as_tensor({a})",
    "{n} = {a}.reshape(-1)",
]
WRITE_TENSOR = [
    "{t}.add_(1)", "{t}[0] = 7", "{t}.mul_(2)", "{t}.zero_()", "{t}.numpy()[0] = 5",
    "np.asarray({t}).flat[-1] = 9", "{t}.numpy().fill(3)", "{t}.sum().backward()",
    "{t}.grad = None", "{t}.grad = torch.ones_like({t})", "{t}.copy_({u})",
    "torch.from_numpy({t}.numpy().reshape(-1)[1:])[0] = 4", "{t}.untyped_storage().fill_(1)",
]
WRITE_ARRAY = [
    "{a}[0] = 3", "{a} += 1", "{a}.fill(2)", "torch.from_numpy({a})[0] = 1",
    "torch.from_numpy({a}).mul_(3)", "np.asarray({a}).flat[-1] = 8",
]
META_TENSOR = [
    "{t}.unsqueeze_(0)", "{t}.squeeze_()", "{t}.t_()", "{t}.transpose_(0, -1)",
    "{t}.resize_(1)", "{t}.as_strided_((2,), (1,))", "{t}.set_({u})", "{t}.detach_()",
    "{t}.requires_grad_()", "{t}.requires_grad_(False)", "{t}.data = {u}",
    "{t}.unsqueeze_(0).add_(1)",
]
META_ARRAY = [
    "{a}.shape = (-1,)", "{a}.shape = (1, -1)", "{a}.flags.writeable = False",
    "{a}.flags.writeable = True", "{a}.dtype = np.int64", "{a}.dtype = np.float32",
    "{a}.shape = (-1,)\n{a}[0] = 6",
]
KINDS = ["make", "make", "view", "view", "write", "write", "meta", "meta", "meta", "del",
         "rename"]


def step(choose: Callable[[Sequence[Any]], Any], ws: Workspace) -> str:
    """One random action on ``ws`` (a statement, or ``del``/rename through the API); returns
    what it was."""
    values = {n: ws[n] for n in ws.names()}
    tensors = [n for n, v in values.items() if isinstance(v, torch.Tensor)]
    arrays = [n for n, v in values.items() if isinstance(v, np.ndarray)]
    kind = choose(KINDS)
    if kind == "del" and values:
        name = choose(sorted(values))
        if choose([True, False]):
            del ws[name]
            return f"del ws[{name!r}]"
        source = f"del {name}"
    elif kind == "rename" and values:
        old, new = choose(sorted(values)), choose(NAMES)
        if new in ws or new == old:
            return "(no rename)"
        ws.rename(old, new)
        return f"ws.rename({old!r}, {new!r})"
    else:
        options = list(MAKE)
        if kind in ("view", "write", "meta"):
            pools = {"view": (FROM_TENSOR, FROM_ARRAY), "write": (WRITE_TENSOR, WRITE_ARRAY),
                     "meta": (META_TENSOR, META_ARRAY)}[kind]
            options = ([*(pools[0] if tensors else []), *(pools[1] if arrays else [])]
                       or options)
        template = choose(options)
        source = template.format(
            n=choose(NAMES), t=choose(tensors) if tensors else "", a=choose(arrays) if arrays
            else "", u=choose(tensors) if tensors else "")
    with contextlib.suppress(ProgramError):
        ws.run(source)
    return source


@dataclass
class Outcome:
    steps: list[str] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    refused: bool = False  # a change could not be undone (the history was cleared)


def run_sequence(choose: Callable[[Sequence[Any]], Any], steps: int) -> Outcome:
    """``steps`` random actions in a fresh workspace, then undo all (== the start) and redo
    all (== the end). (Only the history's oldest API here, so the long run can measure an
    older undo.py too.)"""
    ws = Workspace()
    ws.run("import torch\nimport numpy as np")
    ws.track_changes = True
    history = UndoHistory()
    ws.events.undoable.connect(history.push)
    ws.events.not_undoable.connect(history.clear)
    out = Outcome()
    start = world(ws)
    for _ in range(steps):
        out.steps.append(step(choose, ws))
    if history.cleared_because:
        out.refused = True
        return out
    skip = noted_names(history)
    end = world(ws, skip)
    try:
        while history.done:
            history.undo(ws)
        skip = noted_names(history)
        out.mismatches += [f"undo all: {d}" for d in differences(world(ws, skip), start)]
        while history.undone:
            history.redo(ws)
        out.mismatches += [f"redo all: {d}" for d in differences(world(ws, skip),
                                                                 _without(end, skip))]
    except Exception as exc:  # (undo itself failed)
        out.mismatches.append(f"raised {exc!r:.300}")
    return out


def _without(w: dict[Any, Any], skip: frozenset[str]) -> dict[Any, Any]:
    return {k: v for k, v in w.items()
            if not (k in skip or (isinstance(k, tuple) and set(k) & skip))}


def seeded(seed: int) -> Callable[[Sequence[T]], T]:
    rng = random.Random(seed)
    return lambda options: options[rng.randrange(len(options))]


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_undo_all_then_redo_all(data: st.DataObject) -> None:
    def choose(options: Sequence[T]) -> T:
        return data.draw(st.sampled_from(list(options)))

    outcome = run_sequence(choose, steps=12)
    assert outcome.mismatches == [], "\n".join(outcome.steps)


@pytest.mark.parametrize("seed", range(20))
def test_seeded_sequences(seed: int) -> None:
    outcome = run_sequence(seeded(seed), steps=14)
    assert outcome.mismatches == [], "\n".join(outcome.steps)
