"""In the window: what the user types runs as full Python; a program or lesson from a file runs
restricted, with a bar that says so and a Trust button; trust is remembered by content."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot

from tensor_explorer.core import trust
from tensor_explorer.core.workspace import Workspace

TIMEOUT = 20_000

LESSON = """---
name: mine
title: Mine
language: en
---

## One

```python
import json
text = json.dumps([1, 2])
```

expect: text == "[1, 2]"
"""


@pytest.fixture(autouse=True)
def _trust_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENSOR_EXPLORER_TRUST_FILE", str(tmp_path / "trusted.json"))


def _run(qtbot: QtBot, win, action) -> None:
    with qtbot.waitSignal(win.runner.busy_changed, timeout=TIMEOUT,
                          check_params_cb=lambda busy: not busy):
        action()
    QtWidgets.QApplication.processEvents()


def test_the_code_bar_is_full_python(qtbot: QtBot, make_window) -> None:
    win = make_window(Workspace())
    console = win.panels["console"]
    console.editor.setPlainText("import json\nclass P:\n    def __init__(self):\n"
                                "        self.v = json.dumps([1])\np = P()\nv = p.v")
    _run(qtbot, win, console.run_editor)
    assert win.workspace["v"] == "[1]"
    assert not console.trust_bar.isVisible()


def test_a_program_file_runs_restricted_until_trusted(qtbot: QtBot, make_window,
                                                      tmp_path: Path) -> None:
    program = tmp_path / "prog.py"
    program.write_text("import json\nx = json.dumps([1, 2])\n")
    win = make_window(Workspace())
    win.show()
    console = win.panels["console"]
    _run(qtbot, win, lambda: win.open_paths([str(program)]))
    assert "x" not in win.workspace
    assert "Refused" in console.output_text() and "trust" in console.output_text()
    bar = console.trust_bar
    assert bar.isVisible() and "prog.py" in bar.label.text() and "restricted" in bar.label.text()
    _run(qtbot, win, bar.button.click)  # Trust and run again
    assert win.workspace["x"] == "[1, 2]"
    assert not bar.isVisible()
    assert trust.is_trusted(program)
    # opened again: trusted by its content, no bar; edited: restricted again
    _run(qtbot, win, lambda: win.open_paths([str(program)]))
    assert not bar.isVisible()
    program.write_text("import json\nx = json.dumps([3])\n")
    _run(qtbot, win, lambda: win.open_paths([str(program)]))
    assert bar.isVisible() and win.workspace["x"] == "[1, 2]"


def test_trust_on_the_command_line(qtbot: QtBot, make_window, tmp_path: Path) -> None:
    program = tmp_path / "prog.py"
    program.write_text("import json\nx = json.dumps([1, 2])\n")
    win = make_window(Workspace())
    _run(qtbot, win, lambda: win.open_paths([str(program)], trusted=True))
    assert win.workspace["x"] == "[1, 2]"
    assert not win.panels["console"].trust_bar.isVisible()
    assert not trust.is_trusted(program)  # --trust is for this run, not remembered


def test_a_lesson_file_runs_restricted_until_trusted(qtbot: QtBot, make_window,
                                                     tmp_path: Path) -> None:
    path = tmp_path / "mine.en.md"
    path.write_text(LESSON)
    win = make_window(Workspace())
    win.show()
    panel = win.panels["lesson"]
    with qtbot.waitSignal(panel.step_shown, timeout=TIMEOUT):
        win.open_lesson(str(path))
    qtbot.waitUntil(lambda: not panel.busy and not win.runner.busy, timeout=TIMEOUT)
    assert panel.trust_bar.isVisible() and "mine.en.md" in panel.trust_bar.label.text()
    assert panel.result is not None and not panel.result.ok
    with qtbot.waitSignal(panel.step_shown, timeout=TIMEOUT):
        panel.trust_bar.button.click()
    qtbot.waitUntil(lambda: not panel.busy and not win.runner.busy, timeout=TIMEOUT)
    assert panel.result is not None and panel.result.ok, panel.check_texts()
    assert not panel.trust_bar.isVisible() and win.workspace["text"] == "[1, 2]"
    # a shipped lesson never asks
    with qtbot.waitSignal(panel.step_shown, timeout=TIMEOUT):
        win.open_lesson("welcome")
    assert not panel.trust_bar.isVisible()


def test_the_trust_bar_leaves_the_code_input_in_view(qtbot: QtBot, make_window,
                                                      tmp_path: Path) -> None:
    """#27 point 4: the trust bar of a .py squeezed the code input out of view (window as
    restored on restart, 1278x774): the code bar's dock makes room, the editor keeps two
    lines, nothing scrolls."""
    program = tmp_path / "prog.py"
    program.write_text("import os\nx = 1\n")
    win = make_window(Workspace())
    win.resize(1278, 774)
    win.show()
    qtbot.waitExposed(win)
    console = win.panels["console"]
    _run(qtbot, win, lambda: win.open_paths([str(program)]))
    qtbot.waitUntil(console.trust_bar.isVisible)
    qtbot.wait(50)
    dock = win.docks["console"]
    editor = console.editor
    top_left = editor.mapTo(dock, QtCore.QPoint(0, 0))
    assert top_left.y() >= 0 and top_left.y() + editor.height() <= dock.height()
    assert editor.height() >= 2 * editor.fontMetrics().lineSpacing()
    frame = dock.widget()
    assert isinstance(frame, QtWidgets.QScrollArea)
    assert not frame.verticalScrollBar().isVisible()
