""""Nothing lost" as an invariant of the whole window (#25 point 4): a Hypothesis state machine
that drives the real :class:`~tensor_explorer.qt.main_window.MainWindow` as a person does, and
a model of the workspace it keeps beside it.

The model is plain Python: the user's own values live in a namespace of their own where the same
statements run with ``exec`` (torch and NumPy decide the values, never the app), replayed from a
base copy when Undo or Redo lands on a known point; values the user did not make (a lesson's) are
kept as the facts the window showed when the lesson made them. Facts compared: names, and for each
value its kind, shape, strides, storage offset, dtype, ``requires_grad``, ``is_leaf``, bytes,
``.grad``; a module's parameters and buffers by qualified name; an optimizer's parameters by
qualified name; which values share an allocation (grouped by address ranges, as torch and NumPy
report them: ``untyped_storage()``, ``np.byte_bounds``), how many bytes each pair has in common and
how far apart their first elements are.

Invariants, checked after every rule:

* a rule that replaces the workspace (a lesson's Previous, Reset, another lesson, a session, quit)
  asks first whenever the user has work of their own that nothing saved; Cancel changes nothing;
  rules that do not replace (forward, language, theme, presentation, save) never ask and change
  nothing of the user's;
* after every accepted rule the window's workspace equals the model;
* Undo (to the previous point a rule left) gives the model of that point, Undo of everything the
  start state, Redo the later point;
* save then open gives the saved workspace (facts a session keeps: everything but ``is_leaf``, and
  ``requires_grad`` of a tensor with autograd history);
* quit then File ▸ Reopen last session gives the closed workspace; a crash (the app dies after
  its last autosave) then restoring the recovery file gives the last autosaved workspace.

``tests/qt/test_nothing_lost_machine.py`` runs it in CI; ``bench/nothing_lost_machine.py`` longer.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import ctypes
import math
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch
import torch.nn.functional as F
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from PySide6 import QtCore, QtWidgets
from torch import nn

from tests.core.session_files import unsigned_copy

# -- the grammar ------------------------------------------------------------------------------

#: the names the user's statements bind (no shipped lesson uses them)
NAMES = ["u1", "u2", "u3", "u4"]
NET = ["UNet", "unet", "uopt", "uloss"]
USER = frozenset(NAMES + NET)
MAKE = [
    "{n} = torch.arange(6.)",
    "{n} = torch.arange(12.).reshape(3, 4)",
    "{n} = torch.ones(4, requires_grad=True)",
    "{n} = torch.zeros(2, 3, dtype=torch.float64)",
    "{n} = np.arange(6.)",
    "{n} = np.zeros((2, 3), dtype=np.float32)",
]
FROM_TENSOR = [
    "{n} = {t}[1:]", "{n} = {t}.t()", "{n} = {t}.expand(2, *{t}.shape)", "{n} = {t}.detach()",
    "{n} = {t} * 2", "{n} = {t}.numpy()", "{n} = {t}.view(-1)", "{n} = {t}.clone()",
]
FROM_ARRAY = [
    "{n} = torch.from_numpy({a})", "{n} = {a}[::2]", "{n} = {a}.reshape(-1)",
    "{n} = torch.as_tensor({a})", "{n} = {a}.copy()",
]
WRITE_TENSOR = [
    "{t}.add_(1)", "{t}[0] = 7", "{t}.mul_(2)", "{t}.requires_grad_()", "{t}.sum().backward()",
    "{t}.numpy()[0] = 5", "{t}.grad = None",
]
WRITE_ARRAY = ["{a}[0] = 3", "{a} += 1", "torch.from_numpy({a}).mul_(3)", "{a}.fill(2)"]
CLASS = """class UNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x)"""
NET_MAKE = "torch.manual_seed(0)\nunet = UNet()\nuopt = torch.optim.SGD(unet.parameters(), lr=0.1)"
NET_STEP = ("uopt.zero_grad()\nuloss = unet(torch.arange(12.).reshape(4, 3) / 10).pow(2).mean()"
            "\nuloss.backward()\nuopt.step()")
#: short shipped lessons (each step is quick)
LESSONS = ["welcome", "expand-clone"]

PRELOAD: dict[str, Any] = {"torch": torch, "np": np, "nn": nn, "F": F, "math": math}


def statement(kind: str, pick: int, values: dict[str, Any]) -> str | None:
    """A statement of ``kind`` on the model's ``values`` (``pick`` chooses), or None."""
    tensors = sorted(n for n in NAMES if isinstance(values.get(n), torch.Tensor))
    arrays = sorted(n for n in NAMES if isinstance(values.get(n), np.ndarray))

    def one(options: list[str]) -> str:
        return options[pick % len(options)]

    n = NAMES[(pick // 7) % len(NAMES)]
    t = tensors[(pick // 3) % len(tensors)] if tensors else ""
    a = arrays[(pick // 3) % len(arrays)] if arrays else ""
    if kind == "make":
        return one(MAKE).format(n=n)
    if kind == "view":
        options = (FROM_TENSOR if tensors else []) + (FROM_ARRAY if arrays else [])
        return one(options).format(n=n, t=t, a=a) if options else None
    if kind == "write":
        options = (WRITE_TENSOR if tensors else []) + (WRITE_ARRAY if arrays else [])
        return one(options).format(t=t, a=a) if options else None
    if kind == "del":
        names = sorted(set(values) & set(NAMES))
        return f"del {one(names)}" if names else None
    if kind == "class":
        return CLASS
    if kind == "net":
        return NET_MAKE if "UNet" in values else None
    if kind == "step":
        ok = isinstance(values.get("unet"), nn.Module) and isinstance(
            values.get("uopt"), torch.optim.Optimizer)
        return NET_STEP if ok else None
    raise ValueError(kind)


def exec_source(source: str, ns: dict[str, Any]) -> bool:
    """Run ``source`` statement by statement as plain Python; stop at the first that raises
    (the ones before keep their effect, as in the app). True when all ran."""
    for node in ast.parse(source).body:
        code = compile(ast.Module(body=[node], type_ignores=[]), "<model>", "exec")
        try:
            exec(code, ns)
        except Exception:
            return False
    return True


def user_values(ns: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in ns.items() if k in USER}


# -- the facts, as torch and NumPy report them ------------------------------------------------

def _bytes(t: torch.Tensor) -> bytes:
    return bytes(t.detach().cpu().clone().contiguous().numpy().tobytes())


def tensor_facts(t: torch.Tensor) -> dict[str, Any]:
    grad = t.grad if t.is_leaf else None
    return {"kind": "tensor", "shape": tuple(t.shape), "stride": t.stride(),
            "offset": t.storage_offset(), "dtype": str(t.dtype),
            "requires_grad": t.requires_grad, "is_leaf": t.is_leaf, "bytes": _bytes(t),
            "grad": None if grad is None else (tuple(grad.shape), grad.stride(), _bytes(grad))}


def array_facts(a: np.ndarray) -> dict[str, Any]:
    return {"kind": "array", "shape": a.shape, "strides": a.strides, "dtype": a.dtype.str,
            "writeable": bool(a.flags.writeable), "bytes": a.tobytes()}


def _members(name: str, m: nn.Module) -> list[tuple[str, torch.Tensor]]:
    return ([(f"{name}.{q}", p) for q, p in m.named_parameters(remove_duplicate=False)]
            + [(f"{name}.{q}", b) for q, b in m.named_buffers(remove_duplicate=False)])


def memory_values(values: dict[str, Any]) -> list[tuple[str, Any]]:
    """Every tensor and array by qualified name (a module's parameters and buffers too)."""
    out: list[tuple[str, Any]] = []
    for name in sorted(values):
        v = values[name]
        if isinstance(v, (torch.Tensor, np.ndarray)):
            out.append((name, v))
        elif isinstance(v, nn.Module):
            out += _members(name, v)
    return out


def _range(v: Any) -> tuple[int, int]:
    """The address range of the allocation ``v`` reads (as far as torch and NumPy say)."""
    if isinstance(v, torch.Tensor):
        s = v.untyped_storage()
        return s.data_ptr(), s.data_ptr() + s.nbytes()
    root = v
    while isinstance(root.base, np.ndarray):
        root = root.base
    lo, hi = np.lib.array_utils.byte_bounds(root)
    return int(lo), int(hi)


def _address(v: Any) -> int:
    return int(v.data_ptr()) if isinstance(v, torch.Tensor) else int(
        v.__array_interface__["data"][0])


def _element_bytes(v: Any) -> set[int]:
    if isinstance(v, torch.Tensor):
        shape, strides, size = tuple(v.shape), [s * v.element_size() for s in v.stride()], \
            v.element_size()
    else:
        shape, strides, size = v.shape, list(v.strides), v.itemsize
    if math.prod(shape) == 0:
        return set()
    starts = np.zeros(shape, dtype=np.int64)
    for axis, stride in enumerate(strides):
        idx = np.arange(shape[axis], dtype=np.int64) * stride
        starts = starts + idx.reshape([-1 if i == axis else 1 for i in range(len(shape))])
    base = _address(v)
    return {base + int(s) + k for s in starts.ravel() for k in range(size)}


def allocations(items: list[tuple[str, Any]]) -> list[tuple[int, int, list[tuple[str, Any]]]]:
    """The values grouped by allocation: overlapping address ranges are one allocation."""
    spans = sorted(((*_range(v), n, v) for n, v in items), key=lambda s: (s[0], s[1]))
    groups: list[tuple[int, int, list[tuple[str, Any]]]] = []
    for lo, hi, n, v in spans:
        if groups and hi > lo and lo < groups[-1][1]:
            glo, ghi, members = groups[-1]
            groups[-1] = (glo, max(ghi, hi), [*members, (n, v)])
        else:
            groups.append((lo, hi, [(n, v)]))
    return groups


def value_facts(name: str, v: Any, params: dict[int, str]) -> Any:
    if isinstance(v, torch.Tensor):
        return tensor_facts(v)
    if isinstance(v, np.ndarray):
        return array_facts(v)
    if isinstance(v, nn.Module):
        return {"kind": "module", "type": type(v).__name__, "training": v.training,
                "members": [(q, tensor_facts(t)) for q, t in _members(name, v)]}
    if isinstance(v, torch.optim.Optimizer):
        return {"kind": "optimizer", "type": type(v).__name__,
                "groups": [({k: g[k] for k in sorted(g) if k != "params" and
                             isinstance(g[k], (int, float, bool, str, type(None)))},
                            [params.get(id(p), "?") for p in g["params"]])
                           for g in v.param_groups],
                "state": sorted((params.get(id(p), "?"), sorted(s))
                                for p, s in v.state.items())}
    if isinstance(v, type):
        return {"kind": "class", "name": v.__name__}
    if callable(v):
        return {"kind": "callable", "name": getattr(v, "__name__", type(v).__name__)}
    return {"kind": type(v).__name__, "repr": repr(v)[:200]}


Facts = dict[tuple[Any, ...], Any]


def facts(values: dict[str, Any]) -> Facts:
    """Every fact the invariants compare, keyed so that the keys of a set of names can be
    picked out (:func:`part`)."""
    out: Facts = {}
    items = memory_values(values)
    params = {id(t): q for q, t in items}
    for name in sorted(values):
        out[("value", name)] = value_facts(name, values[name], params)
    for _lo, _hi, members in allocations(items):
        names = tuple(sorted(n for n, _ in members))
        for n, _ in members:
            out[("group", n)] = names
        touched = {n: _element_bytes(v) for n, v in members}
        for i, (n1, v1) in enumerate(sorted(members, key=lambda m: m[0])):
            for n2, v2 in sorted(members, key=lambda m: m[0])[i + 1:]:
                out[("pair", n1, n2)] = (len(touched[n1] & touched[n2]),
                                         _address(v2) - _address(v1))
    return out


def _root(key: tuple[Any, ...]) -> set[str]:
    return {str(k).split(".")[0] for k in key[1:]}


def part(f: Facts, names: Iterable[str]) -> Facts:
    """The facts about ``names`` only."""
    keep = set(names)
    return {k: v for k, v in f.items() if _root(k) <= keep}


def session_kept(f: Facts, saved: Facts) -> Facts:
    """What a session keeps of ``f``: everything but ``is_leaf`` (a value reopens as data), and
    a tensor with autograd history in ``saved`` (what was saved) reopens without
    ``requires_grad``."""
    out: Facts = {}
    for k, v in f.items():
        if k[0] == "value" and isinstance(v, dict) and v.get("kind") == "tensor":
            v = {**v, "is_leaf": None}
            was = saved.get(k)
            if isinstance(was, dict) and was.get("is_leaf") is False:
                v["requires_grad"] = None
        out[k] = v
    return out


def differences(got: Facts, want: Facts) -> list[str]:
    return [f"{k!r}: window {got.get(k)!r:.300} != model {want.get(k)!r:.300}"
            for k in sorted(set(got) | set(want), key=repr) if got.get(k) != want.get(k)]


# -- copying values with their sharing (the model's base points) ------------------------------

def clone_values(values: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``values`` with its own memory that shares among its values what they shared
    (views, from_numpy, expand; a module's parameters with its optimizer). A tensor with autograd
    history comes back as a leaf."""
    items = memory_values(values)
    grads = [(f"{n}.grad", v.grad) for n, v in items
             if isinstance(v, torch.Tensor) and v.is_leaf and v.grad is not None]
    memo: dict[int, Any] = {}
    for lo, hi, members in allocations(items + grads):
        buf = np.empty(max(hi - lo, 1), dtype=np.uint8)
        if hi > lo:
            ctypes.memmove(buf.ctypes.data, lo, hi - lo)
        storage = torch.from_numpy(buf).untyped_storage()
        for _n, v in members:
            if id(v) in memo:
                continue
            at = _address(v) - lo
            new: Any
            if isinstance(v, torch.Tensor):
                new = torch.empty(0, dtype=v.dtype)
                assert at % v.element_size() == 0
                new.set_(storage, at // v.element_size(), v.shape, v.stride())
                if isinstance(v, nn.Parameter):
                    new = nn.Parameter(new, requires_grad=v.requires_grad)
                elif v.requires_grad:
                    new.requires_grad_(True)
            else:
                new = np.ndarray(v.shape, v.dtype, buffer=buf, offset=at, strides=v.strides)
                new.flags.writeable = v.flags.writeable
            memo[id(v)] = new
    for _n, v in items:
        if isinstance(v, torch.Tensor) and v.is_leaf and v.grad is not None:
            memo[id(v)].grad = memo[id(v.grad)]
    return {k: memo[id(v)] if id(v) in memo else copy.deepcopy(v, memo)
            for k, v in values.items()}


# -- the model --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Point:
    """A state of the workspace: the user's values as ``base`` (copied) then ``statements``
    run in it, and the facts of the values the user did not make (``other``)."""

    base: dict[str, Any]
    statements: tuple[str, ...] = ()
    other: Facts = field(default_factory=dict)

    def replay(self) -> dict[str, Any]:
        ns = {**PRELOAD, **clone_values(self.base)}
        for source in self.statements:
            exec_source(source, ns)
        return ns

    def then(self, source: str) -> Point:
        return Point(self.base, (*self.statements, source), self.other)


# -- driving the window -----------------------------------------------------------------------

TIMEOUT = 60.0


def pump(until: Callable[[], bool] = lambda: True, timeout: float = TIMEOUT) -> None:
    """Process Qt events until ``until()`` (then a few rounds more, for queued reports)."""
    deadline = time.monotonic() + timeout
    app = QtWidgets.QApplication.instance()
    assert app is not None
    while not until():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {until}")
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 20)
        time.sleep(0.001)
    for _ in range(4):
        QtCore.QCoreApplication.sendPostedEvents()
        app.processEvents()


class Answerer:
    """Answers the next question box with the button chosen (and records what it said)."""

    def __init__(self) -> None:
        self.button: QtWidgets.QMessageBox.StandardButton | None = None
        self.seen: list[str] = []

    def arm(self, button: QtWidgets.QMessageBox.StandardButton) -> None:
        self.button = button
        QtCore.QTimer.singleShot(0, self._click)

    def disarm(self) -> None:
        self.button = None

    def _click(self) -> None:
        if self.button is None:
            return
        box = QtWidgets.QApplication.activeModalWidget()
        if not isinstance(box, QtWidgets.QMessageBox):
            QtCore.QTimer.singleShot(10, self._click)
            return
        self.seen.append(box.text() + "\n" + box.informativeText())
        button, self.button = self.button, None
        box.button(button).click()


def make_window(ws: Any = None, recovered: bool = False) -> Any:
    from tensor_explorer.core.workspace import Workspace
    from tensor_explorer.qt.main_window import MainWindow

    win = MainWindow(ws if ws is not None else Workspace(time_limit=None), recovered=recovered)
    win.ask_before_losing_work = True
    return win


def close_window(win: Any) -> None:
    win.ask_before_losing_work = False
    win.runner.stop()
    win.runner.wait(5.0)
    saver = getattr(win, "autosaver", None)
    if saver is not None:
        saver.finish(remove=False)
        del win.autosaver
    win.close()
    win.deleteLater()
    pump()


CANCEL = QtWidgets.QMessageBox.StandardButton.Cancel
DISCARD = QtWidgets.QMessageBox.StandardButton.Discard
ANSWERS = st.sampled_from([CANCEL, DISCARD])


class NothingLost(RuleBasedStateMachine):
    """The machine (see the module's docstring). ``STATS`` counts, over every run in this
    process, the examples (machines made) and the rules that acted, by kind."""

    STATS: ClassVar[Counter[str]] = Counter()
    #: seconds spent in each kind of rule
    SECONDS: ClassVar[dict[str, float]] = {}

    def __init__(self) -> None:
        super().__init__()
        NothingLost.STATS["examples"] += 1
        self.dir = Path(tempfile.mkdtemp(prefix="nothing-lost-"))
        self.recovery = self.dir / "recovery.txs"
        self.answers = Answerer()
        self.saved: list[tuple[Path, Facts]] = []
        self.log: list[str] = []
        self.timing: tuple[str, float] | None = None
        self._open(make_window())
        self.point = Point({})  # the model now
        self.ns: dict[str, Any] = dict(PRELOAD)  # its values, live
        self.unsaved = False  # the user made something nothing saved
        self.marks: dict[int, tuple[Any, Point]] = {}  # id(change) -> (change, point)
        self.origin: Point | None = self.point  # the state before the history's first change

    def has_user_values(self) -> bool:
        return bool(set(self.ns) & set(NAMES))

    def note(self, what: str) -> None:
        """A rule acts: ``what`` it does (its first word counts it)."""
        self.log.append(what)
        NothingLost.STATS["steps"] += 1
        NothingLost.STATS[what.split()[0]] += 1
        self.timing = (what.split()[0], time.perf_counter())

    # -- plumbing --------------------------------------------------------------------------------

    def _open(self, win: Any) -> None:
        from tensor_explorer.qt.autosave import Autosaver

        self.win = win
        win.autosaver = Autosaver(win, self.recovery, interval_ms=30)
        self.idle_seen = 0
        self.forgotten = False
        win.runner.busy_changed.connect(self._busy)
        self._watch_history()

    def _busy(self, busy: bool) -> None:
        if not busy:
            self.idle_seen += 1

    def settle(self) -> None:
        win = self.win
        panel = win.panels.get("lesson")
        pump(lambda: not win.runner.busy and not win.workspace.running
             and not (panel is not None and panel.busy) and not win.files.tasks
             and not win.files.waiting)

    def run(self, source: str) -> None:
        before = self.idle_seen
        assert self.win.runner.run(source)
        pump(lambda: self.idle_seen > before)
        self.settle()

    @property
    def history(self) -> Any:
        return self.win.undo.history

    def window_facts(self) -> Facts:
        ws = self.win.workspace
        return facts({n: ws[n] for n in ws.names()})

    def model_facts(self) -> Facts:
        return {**facts(user_values(self.ns)), **self.point.other}

    def check(self, what: str, got: Facts | None = None, want: Facts | None = None) -> None:
        got = self.window_facts() if got is None else got
        want = self.model_facts() if want is None else want
        diff = differences(got, want)
        assert not diff, f"{what}: the window is not the model:\n  " + "\n  ".join(diff[:12])

    def at(self, point: Point) -> None:
        """The model is now ``point``."""
        self.point = point
        self.ns = point.replay()

    def _watch_history(self) -> None:
        """Notice when the window's history forgets changes (cleared by a change that cannot
        be undone, or its oldest dropped past the budget): the start is no longer reachable."""
        h = self.history
        clear, push = h.clear, h.push

        def cleared(reason: Any = "") -> None:
            self.forgotten = True
            clear(reason)

        def pushed(change: Any) -> None:
            n = len(h.done)
            push(change)
            if len(h.done) <= n:
                self.forgotten = True

        h.clear, h.push = cleared, pushed

    def mark(self) -> None:
        """Remember the model as the state after the history's last change."""
        h = self.history
        if self.forgotten:
            self.forgotten = False
            self.marks.clear()
            self.origin = None if h.done else self.point
        if h.done:
            self.marks[id(h.done[-1])] = (h.done[-1], self.point)

    def known(self) -> Point | None:
        """The model of the history's present position, if a rule left it there."""
        h = self.history
        if not h.done:
            return self.origin
        entry = self.marks.get(id(h.done[-1]))
        return entry[1] if entry is not None and entry[0] is h.done[-1] else None

    def other_facts(self) -> Facts:
        f = self.window_facts()
        return {k: v for k, v in f.items() if not (_root(k) & USER)}

    def resync(self) -> None:
        """The model takes the window's values as they are now (after a session, a lesson
        replaced everything, or a reopened window): a new base point."""
        ws = self.win.workspace
        mine = {n: ws[n] for n in ws.names() if n in USER}
        self.at(Point(clone_values(mine), (), self.other_facts()))

    def replace(self, answer: QtWidgets.QMessageBox.StandardButton,
                act: Callable[[], Any]) -> tuple[bool, Any]:
        """Do ``act`` (which may replace the workspace), answering a question with ``answer``;
        returns (asked, act's result) after checking the rule of asking."""
        risk = self.unsaved and bool(self.win.workspace.names())
        seen = len(self.answers.seen)
        before = self.window_facts()
        self.answers.arm(answer)
        try:
            result = act()
            self.settle()
        finally:
            self.answers.disarm()
        asked = len(self.answers.seen) > seen
        assert asked == risk, (
            f"asked={asked} but the user's unsaved work at risk={risk} "
            f"({self.answers.seen[-1:] if asked else 'no question'})")
        if asked and answer == CANCEL:
            self.check("Cancel changed the workspace", want=before)
        return asked, result

    def cancelled(self, asked: bool, answer: Any) -> bool:
        return asked and answer == CANCEL

    # -- rules: statements ------------------------------------------------------------------

    @rule(pick=st.integers(0, 10_000))
    def make(self, pick: int) -> None:
        self.statement("make", pick)

    @precondition(lambda self: self.has_user_values())
    @rule(pick=st.integers(0, 10_000))
    def view(self, pick: int) -> None:
        self.statement("view", pick)

    @precondition(lambda self: self.has_user_values())
    @rule(pick=st.integers(0, 10_000))
    def write(self, pick: int) -> None:
        self.statement("write", pick)

    @precondition(lambda self: self.has_user_values())
    @rule(pick=st.integers(0, 10_000))
    def delete_statement(self, pick: int) -> None:
        self.statement("del", pick)

    @rule(kind=st.sampled_from(["class", "net", "step", "step"]))
    def network(self, kind: str) -> None:
        self.statement(kind, 0)

    def statement(self, kind: str, pick: int) -> None:
        source = statement(kind, pick, self.ns)
        if source is None:
            return
        self.note(f"statement {source}")
        depth = len(self.history.done)
        self.run(source)
        exec_source(source, self.ns)
        self.point = self.point.then(source)
        if len(self.history.done) != depth or self.history.cleared_because:
            self.unsaved = True
        self.check(f"after {source!r}")
        self.mark()

    @precondition(lambda self: self.has_user_values())
    @rule(pick=st.integers(0, 100), new=st.sampled_from(NAMES))
    def rename(self, pick: int, new: str) -> None:
        names = sorted(set(user_values(self.ns)) & set(NAMES))
        if not names:
            return
        old = names[pick % len(names)]
        self.note(f"rename {old} -> {new} (workspace panel)")
        panel = self.win.panels["workspace"]
        before = self.idle_seen
        panel.rename(old, new)
        if new == old or new in self.ns:  # refused, with a message: nothing runs
            self.settle()
        else:
            pump(lambda: self.idle_seen > before)
            self.settle()
            source = f"{new} = {old}\ndel {old}"
            exec_source(source, self.ns)
            self.point = self.point.then(source)
            self.unsaved = True
        self.check(f"after renaming {old} to {new}")
        self.mark()

    @precondition(lambda self: self.has_user_values())
    @rule(pick=st.integers(0, 100))
    def delete(self, pick: int) -> None:
        names = sorted(set(user_values(self.ns)) & set(NAMES))
        if not names:
            return
        name = names[pick % len(names)]
        self.note(f"delete {name} (workspace panel)")
        self.win.workspace.selected = name
        pump()
        before = self.idle_seen
        self.win.panels["workspace"].delete_action.trigger()
        pump(lambda: self.idle_seen > before)
        self.settle()
        source = f"del {name}"
        exec_source(source, self.ns)
        self.point = self.point.then(source)
        self.unsaved = True
        self.check(f"after deleting {name}")
        self.mark()

    # -- rules: lessons ---------------------------------------------------------------------

    @rule(lesson=st.sampled_from(LESSONS), answer=ANSWERS)
    def open_lesson(self, lesson: str, answer: Any) -> None:
        self.note(f"lesson-open {lesson} ({answer.name} if asked)")
        asked, _ = self.replace(answer, lambda: self.win.open_lesson(lesson))
        if self.cancelled(asked, answer):
            return
        assert not (set(self.win.workspace.names()) & USER), "another lesson kept your values"
        self.unsaved = False
        self.resync()
        self.mark()

    def _lesson(self) -> Any:
        panel = self.win.panels["lesson"]
        return panel if panel.state() is not None and panel.lesson is not None else None

    @precondition(lambda self: self._lesson() is not None)
    @rule()
    def lesson_next(self) -> None:
        panel = self._lesson()
        if panel is None:
            return
        self.note("lesson-next")
        seen = len(self.answers.seen)
        panel.next_step()
        self.settle()
        assert len(self.answers.seen) == seen, "going forward asked"
        self.check("lesson next changed your values",
                   part(self.window_facts(), USER), facts(user_values(self.ns)))
        self.point = Point(self.point.base, self.point.statements, self.other_facts())
        self.mark()

    @precondition(lambda self: self._lesson() is not None)
    @rule(how=st.sampled_from(["previous", "reset", "first"]), answer=ANSWERS)
    def lesson_back(self, how: str, answer: Any) -> None:
        panel = self._lesson()
        if panel is None or (panel.current <= 1 and how != "reset"):
            return
        self.note(f"lesson-{how} ({answer.name} if asked)")
        step = panel.current
        act = {"previous": panel.previous_step, "reset": panel.reset,
               "first": lambda: panel.go_to(1)}[how]
        asked, _ = self.replace(answer, act)
        if self.cancelled(asked, answer):
            assert panel.current == step
            return
        assert not (set(self.win.workspace.names()) & USER), f"lesson {how} kept your values"
        self.unsaved = False
        self.resync()
        self.mark()

    # -- rules: the look ----------------------------------------------------------------------

    def _unchanged(self, what: str, act: Callable[[], Any]) -> None:
        self.note(what)
        seen = len(self.answers.seen)
        act()
        self.settle()
        assert len(self.answers.seen) == seen, f"{what} asked a question"
        self.check(f"{what} changed the workspace")

    @rule(lang=st.sampled_from(["en", "zh"]))
    def language(self, lang: str) -> None:
        self._unchanged(f"language {lang}", lambda: self.win.set_language(lang))

    @rule()
    def theme(self) -> None:
        self._unchanged("theme", self.win.dark_action.trigger)

    @rule()
    def presentation(self) -> None:
        self._unchanged("presentation (F5)", self.win.present_action.trigger)

    # -- rules: sessions ----------------------------------------------------------------------

    @rule()
    def save(self) -> None:
        path = self.dir / f"s{len(self.saved)}.txs"
        self._unchanged(f"session-save {path.name}", lambda: self.win.save_session(str(path)))
        self.saved.append((path, self.model_facts()))
        self.unsaved = False

    @precondition(lambda self: bool(self.saved))
    @rule(pick=st.integers(0, 100), answer=ANSWERS)
    def open_session(self, pick: int, answer: Any) -> None:
        path, want = self.saved[pick % len(self.saved)]
        self.note(f"session-open {path.name} ({answer.name} if asked)")
        asked, _ = self.replace(answer, lambda: self.win.open_paths([str(path)]))
        if self.cancelled(asked, answer):
            return
        self.check(f"save -> open {path.name}", session_kept(self.window_facts(), want),
                       session_kept(want, want))
        self.unsaved = False
        self.resync()
        self.mark()

    @precondition(lambda self: bool(self.saved))
    @rule(pick=st.integers(0, 100), answer=ANSWERS)
    def open_foreign_session_and_trust(self, pick: int, answer: Any) -> None:
        """A saved session as if from someone else (its signature dropped): its data opens
        with no code run, the trust bar asks about its code when it has some, and Trust gives
        back the workspace that was saved (trust on every route, nothing lost)."""
        path, want = self.saved[pick % len(self.saved)]
        foreign = self.dir / f"foreign-{path.name}"
        unsigned_copy(path, foreign)
        self.note(f"foreign-open {foreign.name} ({answer.name} if asked), Trust")
        asked, _ = self.replace(answer, lambda: self.win.open_paths([str(foreign)]))
        if self.cancelled(asked, answer):
            return
        bar = self.win.panels["console"].trust_bar
        if not bar.isHidden():
            bar.button.click()
            self.settle()
        self.check(f"foreign {path.name} -> Trust", session_kept(self.window_facts(), want),
                   session_kept(want, want))
        self.unsaved = False
        self.resync()
        self.mark()

    # -- rules: undo -------------------------------------------------------------------------

    @precondition(lambda self: self.history.can_undo)
    @rule()
    def undo(self) -> None:
        """Edit ▸ Undo until the state a rule left (one rule back)."""
        self.note("undo")
        self._walk(self.win.undo.undo_action, lambda: self.history.can_undo)

    @precondition(lambda self: self.history.can_redo)
    @rule()
    def redo(self) -> None:
        self.note("redo")
        self._walk(self.win.undo.redo_action, lambda: self.history.can_redo)

    def _walk(self, action: Any, can: Callable[[], bool]) -> None:
        moved = False
        while can():
            action.trigger()
            self.settle()
            moved = True
            if self.known() is not None:
                break
        if not moved:
            return
        self.unsaved = True
        point = self.known()
        if point is None:  # (the start of a trimmed history: nothing known to compare)
            self.resync()
            return
        self.at(point)
        self.check("after undo/redo")

    @precondition(lambda self: self.history.can_undo)
    @rule()
    def undo_all(self) -> None:
        """Undo of everything gives the start state; Redo as many times the state it left."""
        self.note("undo-all, then redo all")
        end = self.point
        if not self.history.can_undo:
            return
        steps = 0
        while self.history.can_undo:
            self.win.undo.undo_action.trigger()
            self.settle()
            steps += 1
        self.unsaved = True
        if self.known() is not None:
            self.at(self.known())  # type: ignore[arg-type]
            self.check("undo of everything")
        for _ in range(steps):  # back to where it was
            assert self.history.can_redo
            self.win.undo.redo_action.trigger()
            self.settle()
        assert self.known() in (end, None)
        self.at(end)
        self.check("redo of everything")

    # -- rules: quitting, crashing -------------------------------------------------------------

    @rule(answer=ANSWERS)
    def quit_and_reopen(self, answer: Any) -> None:
        from tensor_explorer.qt.autosave import last_session_path

        self.note(f"quit-reopen: quit and reopen the last session ({answer.name} if asked)")
        want = self.model_facts()
        asked, closed = self.replace(answer, self.win.close)
        if self.cancelled(asked, answer):
            assert not closed
            return
        assert closed
        old = self.win
        old.deleteLater()
        self._open(make_window())
        self.marks.clear()
        self.origin = Point({})
        self.at(self.origin)
        last = last_session_path(self.recovery)
        if want:
            assert last.is_file()
            self.win.files.update_reopen_last()
            assert self.win.reopen_last_action.isEnabled()
            self.win.reopen_last_action.trigger()
            self.settle()
            self.check("quit -> reopen last session", session_kept(self.window_facts(), want),
                       session_kept(want, want))
            self.resync()
            self.mark()
        self.unsaved = False

    @rule()
    def crash(self) -> None:
        """The app dies after its last autosave; the next start restores the recovery file."""
        from tensor_explorer.qt.autosave import pending_recovery, restore

        self.note("crash: then restore the recovery file")
        saver = self.win.autosaver
        saver.schedule()
        pump(lambda: not saver._timer.isActive() and saver._task is None)
        want = self.model_facts()
        saver.finish(remove=False)  # dead: nothing more is written
        del self.win.autosaver
        close_window(self.win)
        self.marks.clear()
        if not pending_recovery(self.recovery):  # (kept while it has values or history)
            assert not want, "values made before the last autosave were not saved"
            self._open(make_window())
            self.origin = Point({})
            self.at(self.origin)
            self.unsaved = False
            return
        self._open(make_window(restore(self.recovery), recovered=True))
        self.check("crash -> recovery", session_kept(self.window_facts(), want),
                       session_kept(want, want))
        self.resync()
        self.origin = self.point
        self.unsaved = True  # recovered work is saved nowhere but in the recovery file

    # -- invariants, teardown --------------------------------------------------------------------

    @invariant()
    def no_program_left_running(self) -> None:
        assert not self.win.runner.busy
        if self.timing is not None:
            kind, began = self.timing
            NothingLost.SECONDS[kind] = (NothingLost.SECONDS.get(kind, 0.0)
                                         + time.perf_counter() - began)
            self.timing = None

    def teardown(self) -> None:
        with contextlib.suppress(Exception):
            close_window(self.win)
        QtCore.QThreadPool.globalInstance().waitForDone(10_000)
        shutil.rmtree(self.dir, ignore_errors=True)
