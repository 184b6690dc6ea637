"""Robustness: every menu action and panel control, driven with bad input, on a real window.

Each test builds one :class:`MainWindow` (``make_window``: isolated settings, no modal error
dialogs), puts a few values in its workspace, then feeds it hostile files, failing statements,
odd workspace actions, bad form fields, backward errors, refused table edits, unwritable export
paths and look changes. After every step it checks that

- no exception escaped (pytest-qt fails a test on an exception raised in a Qt slot or virtual
  method; an exception in a worker thread fails it through pytest's unraisable-thread warning,
  an error under ``filterwarnings = error``),
- the window still responds (``ok = 1`` runs and the workspace panel lists it),
- the values that were there before are unchanged (names, and tensor contents compared with
  ``torch.equal`` against clones taken before),
- a plain message was shown (output, status bar or the panel's own message), never a traceback.

Modal dialogs (file choosers, message boxes) are replaced by stubs so nothing waits for a click.
"""

from __future__ import annotations

import pickle
import resource
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from PySide6 import QtCore, QtGui, QtWidgets
from pytestqt.qtbot import QtBot

from tensor_explorer.core.workspace import Workspace
from tensor_explorer.qt.build_panel import BuildPanel
from tensor_explorer.qt.console_panel import ConsolePanel
from tensor_explorer.qt.graph_panel import GraphPanel
from tensor_explorer.qt.lesson_panel import LessonPanel
from tensor_explorer.qt.main_window import MainWindow
from tensor_explorer.qt.memory_panel import MemoryPanel
from tensor_explorer.qt.workspace_panel import WorkspacePanel

# The offscreen platform warns that it "does not support propagateSizeHints()" when a top-level
# window is shown; that is the test platform, not the app.
pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")

TIMEOUT = 20_000
SEED = (
    "a = torch.arange(6.0).reshape(2, 3)\n"
    "n = np.linspace(0.0, 1.0, 5)\n"
    "w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)\n"
)


# ------------------------------------------------------------------------------------ helpers


def console(win: MainWindow) -> ConsolePanel:
    panel = win.panels["console"]
    assert isinstance(panel, ConsolePanel)
    return panel


def output(win: MainWindow) -> str:
    return console(win).output_text()


def run(qtbot: QtBot, win: MainWindow, source: str) -> None:
    """Run ``source`` through the window's runner and wait until it has finished or failed."""
    with qtbot.waitSignal(win.runner.busy_changed, timeout=TIMEOUT,
                          check_params_cb=lambda busy: not busy):
        assert win.runner.run(source)
    QtWidgets.QApplication.processEvents()


def settle(qtbot: QtBot, win: MainWindow) -> None:
    """Wait until no program, file task or graph task is running and events are delivered."""
    def idle() -> bool:
        graph = win.panels["graph"]
        return (not win.runner.busy
                and not any(t.running for t in win._tasks if _alive(t))
                and not (isinstance(graph, GraphPanel) and graph.busy))

    qtbot.waitUntil(idle, timeout=TIMEOUT)
    QtWidgets.QApplication.processEvents()


def _alive(obj: QtCore.QObject) -> bool:
    try:
        obj.objectName()
    except RuntimeError:  # the C++ side is gone (delivered and deleted)
        return False
    return True


def snapshot(ws: Workspace) -> dict[str, Any]:
    """Independent copies of every value (tensors cloned, arrays copied) with their facts."""
    out: dict[str, Any] = {}
    for name, value in ws.items():
        if isinstance(value, torch.Tensor):
            out[name] = (value.detach().clone(), value.requires_grad)
        elif isinstance(value, np.ndarray):
            out[name] = (value.copy(), None)
        else:
            out[name] = (value, None)
    return out


def assert_intact(ws: Workspace, before: dict[str, Any], *, extra: tuple[str, ...] = ()) -> None:
    """Every value of ``before`` is still there, unchanged; nothing else but ``extra``."""
    assert sorted(ws.names()) == sorted([*before, *extra])
    for name, (old, requires_grad) in before.items():
        now = ws[name]
        if isinstance(old, torch.Tensor):
            assert isinstance(now, torch.Tensor), name
            assert (now.dtype, now.device, now.shape) == (old.dtype, old.device, old.shape), name
            assert now.requires_grad == requires_grad, name
            if old.device.type != "meta":
                assert torch.equal(now.detach(), old), name
        elif isinstance(old, np.ndarray):
            assert isinstance(now, np.ndarray), name
            assert now.dtype == old.dtype and np.array_equal(now, old, equal_nan=True), name
        else:
            assert now is old or now == old, name


def assert_responsive(qtbot: QtBot, win: MainWindow) -> None:
    """A trivial statement runs, the workspace panel lists its value, and it is removed again."""
    settle(qtbot, win)
    run(qtbot, win, "ok = 1")
    panel = win.panels["workspace"]
    assert isinstance(panel, WorkspacePanel)
    qtbot.waitUntil(lambda: "ok" in panel.names_shown(), timeout=TIMEOUT)
    run(qtbot, win, "del ok")
    assert "ok" not in win.workspace


def assert_plain(text: str, *fragments: str) -> None:
    """A message was shown, it reads as plain words, and it mentions every fragment."""
    assert text.strip(), "no message was shown"
    assert "Traceback" not in text and 'File "' not in text, text
    for fragment in fragments:
        assert fragment.lower() in text.lower(), (fragment, text)


class Check:
    """Run one bad input and check the window afterwards (see the module docstring)."""

    def __init__(self, qtbot: QtBot, win: MainWindow) -> None:
        self.qtbot = qtbot
        self.win = win

    def __call__(self, action: Callable[[], object], *fragments: str,
                 message: Callable[[], str] | None = None,
                 wait: Callable[[], bool] | None = None,
                 extra: tuple[str, ...] = ()) -> str:
        """Do ``action``; wait until ``wait()`` (default: new output) and everything is idle;
        return the message (default: the output it added) after checking it and the window."""
        win, qtbot = self.win, self.qtbot
        before = snapshot(win.workspace)
        start = len(output(win))
        win.statusBar().clearMessage()
        action()
        qtbot.waitUntil(wait or (lambda: len(output(win)) > start), timeout=TIMEOUT)
        settle(qtbot, win)
        text = message() if message is not None else output(win)[start:]
        assert_plain(text, *fragments)
        assert_intact(win.workspace, before, extra=extra)
        assert_responsive(qtbot, win)
        return text


@pytest.fixture
def window(make_window: Callable[..., MainWindow], qtbot: QtBot) -> Iterator[MainWindow]:
    win = make_window()
    win.show()
    run(qtbot, win, SEED)
    assert win.workspace.names() == ["a", "n", "w"]
    yield win
    settle(qtbot, win)


@pytest.fixture
def no_modal(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Replace the message boxes with recorders (a modal box would wait for a click)."""
    shown: list[tuple[str, str]] = []

    def record(kind: str) -> Callable[..., Any]:
        def box(_parent: object, title: str, text: str, *_a: object, **_k: object) -> Any:
            shown.append((kind, f"{title}: {text}"))
            return QtWidgets.QMessageBox.StandardButton.Ok
        return box

    for kind in ("warning", "information", "critical", "about", "question"):
        monkeypatch.setattr(QtWidgets.QMessageBox, kind, staticmethod(record(kind)))
    return shown


def drop(win: MainWindow, paths: list[Path]) -> None:
    mime = QtCore.QMimeData()
    mime.setUrls([QtCore.QUrl.fromLocalFile(str(p)) for p in paths])
    pos = QtCore.QPointF(20, 20)
    enter = QtGui.QDragEnterEvent(pos.toPoint(), QtCore.Qt.DropAction.CopyAction, mime,
                                  QtCore.Qt.MouseButton.LeftButton,
                                  QtCore.Qt.KeyboardModifier.NoModifier)
    win.dragEnterEvent(enter)
    assert enter.isAccepted()
    event = QtGui.QDropEvent(pos, QtCore.Qt.DropAction.CopyAction, mime,
                             QtCore.Qt.MouseButton.LeftButton,
                             QtCore.Qt.KeyboardModifier.NoModifier)
    win.dropEvent(event)


class _Touch:
    """Unpickling this creates a file: proof that a loader unpickled something."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        return (open, (self.path, "w"))


# -------------------------------------------------------------------------------- hostile files


def hostile_files(tmp_path: Path) -> dict[str, Path]:
    """Files a user might open by mistake, or an attacker might hand over."""
    d = tmp_path / "hostile"
    d.mkdir()
    files: dict[str, Path] = {}
    np.save(d / "good.npy", np.arange(8.0))
    data = (d / "good.npy").read_bytes()
    files["truncated"] = d / "truncated.npy"
    files["truncated"].write_bytes(data[: len(data) - 20])
    files["pickled"] = d / "pickled.npy"
    np.save(files["pickled"], np.array([_Touch(str(tmp_path / "UNPICKLED"))], dtype=object),
            allow_pickle=True)
    files["bad_npz"] = d / "bad.npz"
    files["bad_npz"].write_bytes(b"PK\x03\x04" + bytes(range(256)) * 4)
    files["npz_with_pickle"] = d / "objects.npz"
    with zipfile.ZipFile(files["npz_with_pickle"], "w") as zf:
        zf.writestr("x.npy", (d / "pickled.npy").read_bytes())
    files["fails_line_3"] = d / "fails.py"
    files["fails_line_3"].write_text(
        "p = torch.ones(2)\nq = p * 2\nr = p @ torch.ones(3)\nafter = 1\n")
    files["imports_os"] = d / "evil.py"
    files["imports_os"].write_text(f"import os\nos.system('touch {tmp_path / 'PWNED'}')\n")
    files["binary_py"] = d / "binary.py"
    files["binary_py"].write_bytes(b"\x7fELF\x02\x01\x01\x00\xff\xfe\x00\x00" * 64)
    files["missing_npy"] = d / "missing.npy"
    files["missing_py"] = d / "missing.py"
    files["folder"] = d / "folder"
    files["folder"].mkdir()
    files["folder_py"] = d / "package.py"
    files["folder_py"].mkdir()
    files["bad_lesson"] = d / "lesson.md"
    files["bad_lesson"].write_text("---\nname: broken\ntitle: Broken\nlanguage: en\n---\n\nno steps here\n")
    files["unclosed_lesson"] = d / "unclosed.md"
    files["unclosed_lesson"].write_text(
        "---\nname: unclosed\ntitle: Unclosed\nlanguage: en\n---\n\n## Step\n\n```python\nx = 1\n")
    files["plain_md"] = d / "notes.md"
    files["plain_md"].write_text("# just notes\n")
    files["bad_session"] = d / "broken.txs"
    files["bad_session"].write_bytes(b"PK\x03\x04 not a session at all")
    return files


def test_hostile_files_opened_or_dropped(qtbot: QtBot, window: MainWindow,
                                         tmp_path: Path) -> None:
    win, check = window, Check(qtbot, window)
    files = hostile_files(tmp_path)
    lesson = win.panels["lesson"]
    assert isinstance(lesson, LessonPanel)
    expected = {  # file -> words the message must contain
        "truncated": ("truncated.npy",),
        "pickled": ("pickled.npy",),
        "bad_npz": ("bad.npz",),
        "npz_with_pickle": ("objects.npz",),
        "binary_py": ("binary.py",),
        "missing_npy": ("missing.npy",),
        "missing_py": ("missing.py",),
        "folder": ("folder",),
        "folder_py": ("package.py",),
        "plain_md": ("notes.md",),
        "bad_session": ("broken.txs",),
    }
    for i, (key, words) in enumerate(expected.items()):
        path = files[key]
        how = (lambda p=path: drop(win, [p])) if i % 2 else (
            lambda p=path: win.open_paths([str(p)]))
        text = check(how, *words)
        print(key, "->", text)
    assert not (tmp_path / "UNPICKLED").exists(), "a loader unpickled an object array"

    # programs: a failure on line 3 keeps lines 1-2 (as typed code would), nothing else changes
    before = snapshot(win.workspace)
    text = check(lambda: win.open_paths([str(files["fails_line_3"])]), "line 3",
                 wait=lambda: "Line 3" in output(win), extra=("p", "q"))
    print("fails_line_3 ->", text)
    assert "after" not in win.workspace
    run(qtbot, win, "del p, q")
    assert_intact(win.workspace, before)
    text = check(lambda: drop(win, [files["imports_os"]]), "import", "os",
                 wait=lambda: "Refused" in output(win))
    print("imports_os ->", text)
    assert not (tmp_path / "PWNED").exists()

    # lessons that cannot be read: a message in the lesson pane, the workspace untouched
    for key in ("bad_lesson", "unclosed_lesson"):
        text = check(lambda k=key: win.open_paths([str(files[k])]), "lesson",
                     message=lambda: lesson.title.text() + " " + lesson.prose_text(),
                     wait=lambda: "cannot be opened" in lesson.title.text())
        print(key, "->", text)
        lesson.title.clear()
