"""The window opened at a frame of the user's script (issue #30): post-mortem of a training
script with a planted shape error, the stack chooser, breakpoints and Continue."""

from __future__ import annotations

import sys
import textwrap
import types
from pathlib import Path
from typing import Any

import pytest
import torch
from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot

import tensor_explorer as tx
from tensor_explorer.core.debugging import run_script
from tensor_explorer.qt.console_panel import ConsolePanel
from tensor_explorer.qt.debug_window import DebugBar, Debugger, post_mortem

TRAINING = """\
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
losses = []


def train_step(features, labels):
    logits = model(features)
    loss = nn.functional.cross_entropy(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


for step in range(3):
    batch = torch.randn(5, 4 if step < 2 else 6)  # the planted shape error: 6 features
    targets = torch.randint(0, 3, (5,))
    losses.append(train_step(batch, targets))
"""


def _output(dbg: Debugger) -> str:
    console = dbg.win.panels["console"]
    assert isinstance(console, ConsolePanel)
    return console.output_text()


@pytest.fixture
def failed(tmp_path: Path, qtbot: QtBot) -> Any:
    script = tmp_path / "train.py"
    script.write_text(TRAINING)
    opened: list[Debugger] = []

    def on_error(exc: BaseException, tb: types.TracebackType | None) -> None:
        opened.append(post_mortem(exc, tb, block=False))

    assert run_script(str(script), on_error=on_error) == 1
    dbg = opened[0]
    qtbot.addWidget(dbg.win)
    yield dbg
    dbg.win.close()
    dbg.release()


def test_post_mortem_opens_at_the_failing_frame_with_its_values(failed: Debugger) -> None:
    dbg = failed
    ws = dbg.workspace
    info = dbg.frames[dbg.index]
    assert info.function == "train_step"
    local = info.frame.f_locals
    assert ws["features"] is local["features"] and ws["labels"] is local["labels"]
    assert ws["model"] is info.frame.f_globals["model"]  # the script's module, not a copy
    assert ws["optimizer"] is info.frame.f_globals["optimizer"]
    assert tuple(ws["features"].shape) == (5, 6)
    assert ws.selected == "features"  # the first tensor the failing line reads
    assert "train.py:11 in train_step()" in dbg.win.windowTitle()


def test_the_error_is_explained_with_its_operands(failed: Debugger) -> None:
    out = _output(failed)
    assert "Line 11: logits = model(features)" in out
    assert "RuntimeError: mat1 and mat2 shapes cannot be multiplied (5x6 and 4x8)" in out
    assert "What usually causes this" in out and "in_features" in out
    assert "features: tensor (5, 6) float32 cpu" in out
    assert "model: Sequential module" in out


def test_the_stack_chooser_switches_frames(failed: Debugger, qtbot: QtBot) -> None:
    dbg = failed
    combo = dbg.chooser
    labels = [combo.itemText(i) for i in range(combo.count())]
    assert labels[0].startswith("linear.py") or "forward" in labels[0]  # innermost first
    assert "train.py:11 in train_step()" in labels
    assert "train.py:22 in <module>" in labels
    combo.setCurrentIndex(labels.index("train.py:22 in <module>"))
    ws = dbg.workspace
    assert ws["step"] == 2 and tuple(ws["batch"].shape) == (5, 6)
    assert ws["losses"] is dbg.frames[dbg.shown or 0].frame.f_globals["losses"]
    assert len(ws["losses"]) == 2
    assert "features" not in ws
    assert "train.py:22 in <module>" in _output(dbg)
    combo.setCurrentIndex(labels.index("train.py:11 in train_step()"))
    assert "features" in ws and "step" not in ws


def test_the_code_bar_runs_in_the_frames_namespace(failed: Debugger, qtbot: QtBot) -> None:
    ws = failed.workspace
    ws.run("fixed = features[:, :4] @ model[0].weight.T")  # the frame's names, torch's modules
    assert tuple(ws["fixed"].shape) == (5, 8)
    ws.run("model[0].weight.data.zero_()")  # a change in place: the script's own module
    assert failed.frames[failed.index].frame.f_globals["model"][0].weight.abs().sum() == 0


def test_continue_closes_the_window(failed: Debugger, qtbot: QtBot) -> None:
    assert failed.win.isVisible()
    assert failed.continue_action.shortcut().toString() == "F8"
    assert failed.continue_action in failed.bar.actions()
    failed.continue_action.trigger()
    qtbot.waitUntil(lambda: not failed.win.isVisible())


def _debug_windows() -> list[QtWidgets.QMainWindow]:
    return [w for w in QtWidgets.QApplication.topLevelWidgets()
            if isinstance(w, QtWidgets.QMainWindow) and w.isVisible()
            and w.findChild(DebugBar) is not None]


def test_breakpoint_stops_shows_the_callers_values_and_continue_returns(qtbot: QtBot) -> None:
    seen: dict[str, Any] = {}

    def at_stop() -> None:
        (win,) = _debug_windows()
        ws = win.workspace  # type: ignore[attr-defined]
        seen["names"] = ws.names()
        ws.run("weights.mul_(10)")  # the script sees changes in place
        ws.run("scale = 99")  # a rebinding stays in the workspace (documented)
        win.findChild(DebugBar).continue_action.trigger()

    weights = torch.ones(3)
    scale = 2.0
    QtCore.QTimer.singleShot(50, at_stop)
    tx.breakpoint(batch_size=32)  # blocks until Continue
    assert {"weights", "scale", "batch_size"} <= set(seen["names"])
    assert weights.tolist() == [10.0, 10.0, 10.0]
    assert scale == 2.0
    assert not _debug_windows()


def test_breakpoint_when_false_does_not_stop(qtbot: QtBot) -> None:
    calls = []
    tx.breakpoint(when=lambda: calls.append(1))  # returns None: false, no window
    assert calls == [1] and not _debug_windows()


def test_post_mortem_in_an_except_block(qtbot: QtBot) -> None:
    def fail(values: torch.Tensor) -> torch.Tensor:
        return values.view(4)

    t = torch.ones(2, 3)
    QtCore.QTimer.singleShot(50, lambda: _debug_windows()[0].close())
    try:
        fail(t.t())
    except RuntimeError:
        dbg = tx.post_mortem()
    assert dbg.frames == [] and dbg.exc is None  # let go once the window closed
    assert not _debug_windows()


def test_post_mortem_without_an_exception_says_so() -> None:
    if getattr(sys, "last_value", None) is not None or getattr(sys, "last_exc", None):
        pytest.skip("an earlier error is kept as sys.last_value in this process")
    with pytest.raises(ValueError, match="no exception to look at"):
        tx.post_mortem()


@pytest.mark.parametrize("lang", ["zh"])
def test_the_debug_bar_speaks_the_window_language(failed: Debugger, lang: str) -> None:
    failed.win.set_language(lang)
    QtWidgets.QApplication.processEvents()
    assert failed.continue_action.text() != "Continue (F8)"
    assert "F8" in failed.continue_action.text()


def test_training_script_source_is_as_planted() -> None:
    assert textwrap.dedent(TRAINING).splitlines()[10] == "    logits = model(features)"


# --------------------------------------------------------------------------- IPython, %gui qt


@pytest.fixture
def ipython_qt(qtbot: QtBot) -> Any:
    """IPython's own terminal shell with ``%gui qt`` on (skipped where IPython is missing)."""
    pytest.importorskip("IPython", reason="IPython is not installed (pip install ipython)")
    from IPython.terminal.interactiveshell import TerminalInteractiveShell

    shell = TerminalInteractiveShell.instance()
    shell.simple_prompt = False  # (no terminal under pytest: IPython would refuse the hook)
    shell.enable_gui("qt")
    assert str(shell.active_eventloop).startswith("qt")
    yield shell
    shell.enable_gui(None)
    TerminalInteractiveShell.clear_instance()
    for name in ("last_type", "last_value", "last_traceback", "last_exc"):
        if hasattr(sys, name):
            delattr(sys, name)


def test_explore_under_ipython_gui_qt_returns_at_once(ipython_qt: Any, qtbot: QtBot) -> None:
    result = ipython_qt.run_cell(
        "import torch, tensor_explorer as tx\nwin = tx.explore(a=torch.ones(2))")
    assert result.success, result.error_in_exec
    win = ipython_qt.user_ns["win"]
    qtbot.addWidget(win)
    assert win.isVisible()  # returned with the window live (no event loop of its own)
    assert win.workspace["a"].tolist() == [1.0, 1.0]
    ipython_qt.run_cell("win.workspace.run('b = a * 2')")
    assert win.workspace["b"].tolist() == [2.0, 2.0]
    win.close()


def test_post_mortem_after_an_error_in_ipython(ipython_qt: Any, qtbot: QtBot) -> None:
    ipython_qt.run_cell("import torch, tensor_explorer as tx\n"
                        "def scale(t):\n    return t.view(4)\n")
    failed = ipython_qt.run_cell("scale(torch.ones(2, 3).t())")
    assert not failed.success
    result = ipython_qt.run_cell("dbg = tx.post_mortem()")  # the last error, at once
    assert result.success, result.error_in_exec
    dbg = ipython_qt.user_ns["dbg"]
    qtbot.addWidget(dbg.win)
    assert dbg.win.isVisible()
    assert dbg.frames[dbg.index].function == "scale"
    assert tuple(dbg.workspace["t"].shape) == (3, 2)
    assert "view" in _output(dbg)
    dbg.win.close()
    dbg.release()
