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

import resource
import zipfile
from collections.abc import Callable, Iterator
from functools import partial
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
from tensor_explorer.qt.main_window import PANELS, MainWindow, ValuesDock
from tensor_explorer.qt.memory_panel import MemoryPanel
from tensor_explorer.qt.training_dialog import TrainingDialog
from tensor_explorer.qt.values_panel import ValuesPanel
from tensor_explorer.qt.workspace_panel import WorkspacePanel
from tests.qt.window_run import run

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




def settle(qtbot: QtBot, win: MainWindow) -> None:
    """Wait until no program, file task or graph task is running and events are delivered."""
    def idle() -> bool:
        graph = win.panels["graph"]
        return (not win.runner.busy
                and not any(t.running for t in win.files.tasks if _alive(t))
                and not (isinstance(graph, GraphPanel) and graph.busy))

    qtbot.waitUntil(idle, timeout=TIMEOUT)
    QtWidgets.QApplication.processEvents()


def deliver_posted() -> None:
    """Deliver the events posted so far, the deferred deletions (``deleteLater``) included, and
    those that delivering them posts: what a short wait in the event loop was for, without
    depending on how long the wait is."""
    for _ in range(2):
        QtCore.QCoreApplication.sendPostedEvents()
        QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)


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
        self.start = 0
        self.status = ""

    def new(self) -> str:
        """The output added since the current check began."""
        return output(self.win)[self.start:]

    def failed(self) -> bool:
        """The program of the current check has failed with a "Line N: ..." message."""
        return not self.win.runner.busy and "Line" in self.new()

    def __call__(self, action: Callable[[], object], *fragments: str,
                 message: Callable[[], str] | None = None,
                 wait: Callable[[], bool] | None = None,
                 extra: tuple[str, ...] = ()) -> str:
        """Do ``action``; wait until ``wait()`` (default: new output) and everything is idle;
        return the message (default: the output it added) after checking it and the window."""
        win, qtbot = self.win, self.qtbot
        before = snapshot(win.workspace)
        self.start = len(output(win))
        win.statusBar().clearMessage()
        action()
        try:
            qtbot.waitUntil(wait or (lambda: bool(self.new())), timeout=TIMEOUT)
        except qtbot.TimeoutError:
            pytest.fail(f"no message came; the output says {self.new()!r}, the status bar "
                        f"{win.statusBar().currentMessage()!r}")
        settle(qtbot, win)
        self.status = win.statusBar().currentMessage()
        text = message() if message is not None else self.new()
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
    files["bad_lesson"].write_text(
        "---\nname: broken\ntitle: Broken\nlanguage: en\n---\n\nno steps here\n")
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
        check(how, *words)
        assert_plain(check.status, *words)  # the status bar says it too
    assert not (tmp_path / "UNPICKLED").exists(), "a loader unpickled an object array"

    # programs: a failure on line 3 keeps lines 1-2 (as typed code would), nothing else changes
    before = snapshot(win.workspace)
    check(lambda: win.open_paths([str(files["fails_line_3"])]), "line 3",
                 wait=lambda: "Line 3" in check.new(), extra=("p", "q"))
    assert "after" not in win.workspace
    run(qtbot, win, "del p, q")
    assert_intact(win.workspace, before)
    check(lambda: drop(win, [files["imports_os"]]), "import", "os",
                 wait=lambda: "Refused" in check.new())
    assert not (tmp_path / "PWNED").exists()

    # lessons that cannot be read: a message in the lesson pane, the workspace untouched
    for key in ("bad_lesson", "unclosed_lesson"):
        check(partial(win.open_paths, [str(files[key])]), "lesson",
                     message=lambda: lesson.title.text() + " " + lesson.prose_text(),
                     wait=lambda: "cannot be opened" in lesson.title.text())
        lesson.title.clear()


# ------------------------------------------------------------------------------------ code bar


def type_and_run(win: MainWindow, source: str) -> None:
    """Type ``source`` into the code bar and press Run (the menu action, Ctrl+Enter)."""
    console(win).editor.setPlainText(source)
    win.run_action.trigger()


def test_failing_statements_in_the_code_bar(qtbot: QtBot, window: MainWindow) -> None:
    win, check = window, Check(qtbot, window)
    failed = check.failed
    cases = [
        ("y = (a +", "syntaxerror"),
        ("y = a * undefined_name", "undefined_name"),
        ("y = a @ a", "a: tensor (2, 3)"),
        ("y = a + torch.ones(3, device='meta')", "meta"),
        ("w.add_(1)", "leaf"),
        ("y = torch.ones(3, device='cuda:7')", "device"),
        ("y = torch.ones(3, device='bogus')", "bogus"),
        ("y = torch.zeros(-1)", "non-negative"),
        # the code bar is the user's own Python: it fails as Python fails, with the reason
        ("import not_a_module_anywhere", "modulenotfounderror"),
        ("f = open('/nonexistent/folder/data.txt')", "no such file"),
        ("y = a.__class__.no_such_attribute", "attributeerror"),
        ("y = 1 / 0", "zerodivisionerror"),
    ]
    for source, words in cases:
        check(partial(type_and_run, win, source), words, wait=failed)
    # a failed input stays in the code bar, its line marked, to be fixed and run again
    assert console(win).editor.toPlainText() == cases[-1][0]
    assert console(win).editor.error_line == 1

    # requests that would exhaust memory are refused before allocating anything
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB, the peak so far
    for source in ("big = torch.zeros(10**12)", "big = torch.zeros(200_000, 200_000)",
                   "big = torch.randn(200_000, 200_000, dtype=torch.float64)",
                   "big = np.ones((200_000, 200_000))", "big = torch.empty(2**63)"):
        check(partial(type_and_run, win, source), "refused before allocating", wait=failed)
        assert "big" not in win.workspace
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss
    assert grown < 512 * 1024, f"peak memory grew by {grown // 1024} MiB"

    # an endless loop: Run is disabled while it runs, a second Run is refused, Stop ends it
    def loop_then_stop() -> None:
        type_and_run(win, "while True:\n    pass")
        qtbot.waitUntil(lambda: win.runner.busy and win.stop_action.isEnabled())
        assert not win.run_action.isEnabled()
        assert not win.runner.run("other = 1")  # refused with a message, not queued
        win.stop_action.trigger()

    text = check(loop_then_stop, "stopped", wait=lambda: "Stopped" in check.new())
    assert "still running" in text
    assert win.run_action.isEnabled() and not win.stop_action.isEnabled()


def test_a_huge_integer_power_does_not_freeze_the_window(qtbot: QtBot,
                                                         window: MainWindow) -> None:
    """Pure-Python arithmetic on huge integers holds the GIL: a power too large to compute
    is refused up front, and a loop of allowed ones leaves the UI thread its events (a timer
    fires while it runs) and is ended by Stop, pressed from that timer, with nothing bound.
    (How long each takes is measured in bench/, not here.)"""
    win, check = window, Check(qtbot, window)
    check(partial(type_and_run, win, "big = 10 ** (4 * 10 ** 6) % 7"), "too large to compute",
          wait=check.failed)
    assert "big" not in win.workspace

    before = snapshot(win.workspace)
    start = len(output(win))
    fired: list[bool] = []  # the timer's calls while the program ran

    def tick() -> None:
        if win.runner.busy:
            fired.append(True)
            if len(fired) == 1:
                win.stop_action.trigger()

    timer = QtCore.QTimer()
    timer.setInterval(20)
    timer.timeout.connect(tick)
    timer.start()
    # each power (3 million bits, under the limit) holds the GIL for a while; the loop would
    # run for many minutes if Stop did not end it
    type_and_run(win, "for i in range(10_000):\n    big = 3 ** 2_000_000 % 7")
    qtbot.waitUntil(lambda: not win.runner.busy, timeout=60_000)
    timer.stop()
    settle(qtbot, win)
    assert fired, "the UI thread processed no timer event while the program ran"
    assert "Stopped" in output(win)[start:]
    assert_intact(win.workspace, before)  # the stopped statement bound nothing
    assert_responsive(qtbot, win)


def test_a_huge_python_int_is_shown_without_an_exception(qtbot: QtBot, window: MainWindow) -> None:
    """Every panel that shows a value copes with an ``int`` of more than 4300 digits (Python
    refuses to convert it to text)."""
    win = window
    before = snapshot(win.workspace)
    with qtbot.capture_exceptions() as errors:
        run(qtbot, win, "big = 10 ** 5000")
        qtbot.waitUntil(lambda: win.workspace.selected == "big", timeout=TIMEOUT)
        settle(qtbot, win)
    assert_intact(win.workspace, before, extra=("big",))
    assert_responsive(qtbot, win)
    where = {tb.tb_frame.f_code.co_name for _t, _e, tb in errors if tb is not None}
    assert not errors, (f"{len(errors)} exception(s) escaped into Qt ({errors[0][1]!r}) from "
                        f"{sorted(where)}: repr() of an int over 4300 digits raises ValueError")


# ---------------------------------------------------------------------------- workspace actions


def test_workspace_actions_on_odd_values(qtbot: QtBot, window: MainWindow,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    win, check = window, Check(qtbot, window)
    panel = win.panels["workspace"]
    assert isinstance(panel, WorkspacePanel)
    failed = check.failed

    def refused() -> bool:  # a rename refused up front: no program runs
        return not win.runner.busy and "Rename refused" in check.new()

    for bad in ("1bad", "a b", "x; import os", "x\nimport os", "w.grad", "None"):
        check(partial(panel.rename, "a", bad), "not a valid Python name", wait=refused)
    check(lambda: panel.move_to_device("a", "cuda:7"), "cuda", wait=failed)
    check(lambda: panel.move_to_device("n", "cuda:7"), "line", wait=failed)  # an ndarray
    # not offered by the context menu for arrays (NumPy has no bfloat16); typed anyway, refused
    check(lambda: panel.convert_dtype("n", "bfloat16"), "bfloat16", wait=failed)
    # the Rename… dialog: a name typed with spaces around it, then an invalid one
    win.workspace.selected = "a"
    qtbot.waitUntil(lambda: panel.current_name() == "a")
    monkeypatch.setattr(QtWidgets.QInputDialog, "getText",
                        staticmethod(lambda *_a, **_k: ("2x", True)))
    check(panel.rename_action.trigger, "not a valid Python name", wait=refused)
    monkeypatch.setattr(QtWidgets.QInputDialog, "getText",
                        staticmethod(lambda *_a, **_k: ("", False)))  # cancelled
    panel.rename_action.trigger()
    assert not win.runner.busy

    # a tensor that requires grad converted to int64: PyTorch drops requires_grad (allowed, but
    # the result must be consistent and the other values untouched)
    before = snapshot(win.workspace)
    del before["w"]
    with qtbot.waitSignal(win.runner.busy_changed, check_params_cb=lambda b: not b):
        panel.convert_dtype("w", "int64")
    w = win.workspace["w"]
    assert w.dtype == torch.int64 and not w.requires_grad
    assert torch.equal(w, torch.tensor([1, -2, 3]))
    assert_intact(win.workspace, before, extra=("w",))
    assert_responsive(qtbot, win)


@pytest.mark.parametrize("taken", ["w", "torch"])
def test_rename_to_a_taken_name_keeps_every_value(qtbot: QtBot, window: MainWindow,
                                                  taken: str) -> None:
    """Renaming ``a`` to a name in use (a value ``w``, the module ``torch``) must be refused
    with a message, not overwrite the value or shadow the module."""
    win = window
    panel = win.panels["workspace"]
    assert isinstance(panel, WorkspacePanel)
    before = snapshot(win.workspace)
    start = len(output(win))
    with qtbot.waitSignal(win.runner.failed):
        panel.rename("a", taken)
    settle(qtbot, win)
    assert "Rename refused" in output(win)[start:]
    assert_plain(output(win)[start:])
    assert_responsive(qtbot, win)
    assert_intact(win.workspace, before)


# ---------------------------------------------------------------------------------- build form


def test_build_form_with_bad_fields(qtbot: QtBot, window: MainWindow) -> None:
    win, check = window, Check(qtbot, window)
    build = win.panels["build"]
    assert isinstance(build, BuildPanel)

    def form(factory: str, **fields: str) -> None:
        build.factory.setCurrentText(factory)
        for key, text in fields.items():
            getattr(build, key).setText(text)

    bad_forms: list[tuple[str, dict[str, str]]] = [
        ("zeros", {"shape": "2, y"}),
        ("zeros", {"shape": "two"}),
        ("zeros", {"shape": "-3"}),
        ("zeros", {"shape": "2.5"}),
        ("zeros", {"shape": "__import__('os')"}),
        ("tensor", {"literal": "not a list"}),
        ("tensor", {"literal": "[[1, 2], [3]]"}),
        ("tensor", {"literal": "open('/etc/passwd')"}),
        ("full", {"shape": "2", "fill": "abc"}),
        ("arange", {"start": "0", "end": "10", "step": "0"}),
        ("linspace", {"start": "0", "end": "1", "steps": "-2"}),
        ("zeros", {"shape": "2", "name": "1bad"}),
        ("zeros", {"shape": "2", "name": ""}),
        ("ones", {"shape": "2", "name": "for"}),
    ]
    for factory, fields in bad_forms:
        build.name.setText("t")
        form(factory, **fields)
        created = len(win.workspace.history)
        if build.create_button.isEnabled():  # then Create must give a message, change nothing
            check(build.create_button.click, "line",
                  wait=check.failed)
        else:
            assert build.preview.text().startswith("⚠"), (fields, build.preview.text())
            assert_plain(build.preview.text())
            build.create()  # a click that slips through does nothing
            assert not win.runner.busy and len(win.workspace.history) == created
        assert "t" not in win.workspace
    # requires_grad with an integer dtype, a huge shape: refused, with a message
    build.name.setText("t")
    form("ones", shape="2, 3")
    build.dtype.setCurrentIndex(build.dtype.findData("int64"))
    build.requires_grad.setChecked(True)
    if build.create_button.isEnabled():
        check(build.create_button.click, "line",
              wait=check.failed)
    else:
        assert_plain(build.preview.text(), "requires_grad")
    build.requires_grad.setChecked(False)
    build.dtype.setCurrentIndex(0)
    form("zeros", shape="200000, 200000")
    check(build.create_button.click, "refused before allocating",
          wait=check.failed)
    form("randn", shape="10**12")
    if build.create_button.isEnabled():
        check(build.create_button.click, "line",
              wait=check.failed)
    assert "t" not in win.workspace


# ------------------------------------------------------------------------------- autograd graph


def graph_of(qtbot: QtBot, win: MainWindow, name: str) -> GraphPanel:
    graph = win.panels["graph"]
    assert isinstance(graph, GraphPanel)
    win.workspace.selected = name
    qtbot.waitUntil(lambda: graph.target == name and graph.graph is not None and not graph.busy,
                    timeout=TIMEOUT)
    return graph


def test_backward_errors_in_the_graph_panel(qtbot: QtBot, window: MainWindow) -> None:
    win, check = window, Check(qtbot, window)
    graph = win.panels["graph"]
    assert isinstance(graph, GraphPanel)

    def said(*words: str) -> Callable[[], bool]:
        def shown() -> bool:
            pane = win.panels["graph"]
            assert isinstance(pane, GraphPanel)
            text = pane.message_text().lower()
            return bool(text) and all(w.lower() in text for w in words)
        return shown

    # no graph yet: every control answers with a message
    win.workspace.selected = "a"
    for action in (graph.backward, graph.zero_grad, graph.numerical_check):
        graph.message.clear()
        check(action, message=graph.message_text, wait=said(""))
    graph.rerun_on("cuda:7")  # nothing to re-run: ignored
    run(qtbot, win, "loss = (w * w).sum()\nz = w * 2")

    # backward twice without retain_graph
    graph = graph_of(qtbot, win, "loss")
    graph.retain_graph_check.setChecked(False)
    graph.backward()
    assert torch.equal(win.workspace["w"].grad, torch.tensor([2.0, -4.0, 6.0]))
    check(graph.backward, "retain_graph", message=graph.message_text,
          wait=said("retain_graph"))
    assert torch.equal(win.workspace["w"].grad, torch.tensor([2.0, -4.0, 6.0]))

    # a non-scalar root: no gradient, a gradient of the wrong shape, text that is not numbers
    graph = graph_of(qtbot, win, "z")
    for text, words in (("", ("gradient",)), ("[1.0, 2.0]", ("shape",)),
                        ("abc", ("could not read",)), ("__import__('os')", ("could not read",)),
                        ("[[1, 2], [3]]", ("rectangular",)), ("'text'", ("numbers",)),
                        ("1e999999", ()), ("[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]", ("shape",))):
        graph.gradient_edit.setText(text)
        graph.message.clear()
        check(graph.backward_btn.click, *words, message=graph.message_text, wait=said(""))
    graph.gradient_edit.clear()
    graph.times_spin.setValue(100)  # ×100 on a graph that was freed after the first call
    graph.gradient_edit.setText("ones")
    graph.retain_graph_check.setChecked(False)
    graph.backward_btn.click()
    check(graph.backward_btn.click, "retain_graph", message=graph.message_text,
          wait=said("retain_graph"))
    graph.times_spin.setValue(1)

    # re-run on a device that is not there: a message, the workspace keeps its own values
    check(partial(graph.rerun_on, "cuda:7"), "cuda:7", message=graph.message_text,
          wait=said("could not re-run"))
    assert graph.replica is None

    # values handed in (explore(), a file, the API): no program to re-run or check numerically
    before = snapshot(win.workspace)
    win.workspace["h"] = torch.tensor([0.5, 1.5], requires_grad=True)
    run(qtbot, win, "g = (h * h).sum()")
    graph = graph_of(qtbot, win, "g")
    check(graph.numerical_check, "handed in", message=graph.message_text,
          wait=said("handed in"))
    check(lambda: graph.rerun_on("meta"), "handed in", message=graph.message_text,
          wait=said("handed in"))
    assert_intact(win.workspace, before, extra=("h", "g"))

    # the training-step dialog with nothing suitable chosen
    dialog = graph.open_training_dialog()
    assert isinstance(dialog, TrainingDialog)
    check(dialog.check_btn.click, "model", message=dialog.summary.text,
          wait=lambda: bool(dialog.summary.text()))
    dialog.choose("a", "n", "")
    check(dialog.step_btn.click, "model", message=dialog.summary.text,
          wait=lambda: not dialog.busy and bool(dialog.summary.text()))
    dialog.close()


# ------------------------------------------------------------------------------- values table


def _values_table(win: MainWindow) -> ValuesPanel:
    """The window's Values panel, showing its table."""
    dock = win.panels["values"]
    assert isinstance(dock, ValuesDock)
    dock.panel.set_mode("table")
    return dock.panel


def test_refused_table_edits(qtbot: QtBot, window: MainWindow) -> None:
    win, check = window, Check(qtbot, window)
    run(qtbot, win, "e = torch.ones(1).expand(2, 3)\nm = torch.ones(2, 2, device='meta')\n"
                    "i = torch.zeros(2, 2, dtype=torch.uint8)")
    values = _values_table(win)

    def edit(name: str, text: str) -> Callable[[], None]:
        def do() -> None:
            win.workspace.selected = name
            qtbot.waitUntil(lambda: values.name() == name and values.plane() is not None)
            assert not values.model.setData(values.model.index(0, 0), text)
        return do

    for name, text, words in (("w", "5", "leaf tensor that requires grad"),
                              ("e", "5", "share the same memory"),
                              ("a", "abc", "abc"), ("a", "1+", ""), ("i", "300", "fit"),
                              ("i", "-1", ""), ("n", "nan nan", "")):
        check(edit(name, text), *([words] if words else []), message=values.last_message,
              wait=lambda: "Not written" in values.last_message())
    win.workspace.selected = "m"  # a meta tensor has no values to show or write
    qtbot.waitUntil(lambda: values.name() == "m")
    assert values.plane() is None
    # a write while a program runs is refused, not queued
    win.workspace.selected = "a"
    qtbot.waitUntil(lambda: values.name() == "a" and values.plane() is not None)
    type_and_run(win, "while True:\n    pass")
    qtbot.waitUntil(lambda: win.runner.busy)
    assert not values.model.setData(values.model.index(0, 0), "7")
    assert "still running" in values.last_message()
    win.stop_action.trigger()
    settle(qtbot, win)
    assert float(win.workspace["a"][0, 0]) == 0.0
    assert_responsive(qtbot, win)


def test_a_refused_table_edit_says_why_in_the_windows_language(qtbot: QtBot,
                                                                window: MainWindow) -> None:
    win = window
    win.set_language("zh")
    run(qtbot, win, "leaf = torch.ones(2, requires_grad=True)\nints = torch.zeros(2, "
                    "dtype=torch.uint8)")
    values = _values_table(win)
    for name, text, words in (("leaf", "5", "需要梯度的叶子张量不能被原地修改"),
                              ("ints", "300", "超出了 torch.uint8 的范围"),
                              ("ints", "x", "'x' 不是数字")):
        win.workspace.selected = name
        qtbot.waitUntil(lambda n=name: values.name() == n and values.plane() is not None)
        assert not values.model.setData(values.model.index(0, 0), text)
        qtbot.waitUntil(lambda w=words: w in values.last_message(), timeout=5000)
        assert "cannot" not in values.last_message() and "not a number" not in \
            values.last_message()
    win.set_language("en")  # the refusal on screen is said again, in English
    assert values.last_message() == "Not written: 'x' is not a number"


# ------------------------------------------------------------------------- menus, export, look


def all_actions(menu: QtWidgets.QMenu) -> list[QtGui.QAction]:
    out = []
    for action in menu.actions():
        sub = action.menu()
        if isinstance(sub, QtWidgets.QMenu):
            out += all_actions(sub)
        elif not action.isSeparator():
            out.append(action)
    return out


def test_every_menu_action_and_unwritable_paths(qtbot: QtBot, make_window: Callable[..., Any],
                                                no_modal: list[tuple[str, str]],
                                                monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    win = make_window(remember=True)
    win.show()
    run(qtbot, win, SEED)
    check = Check(qtbot, win)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    unwritable = str(blocker / "out.png")  # its "folder" is a file (root may write anywhere)
    Dialog = QtWidgets.QFileDialog
    monkeypatch.setattr(Dialog, "getSaveFileName",
                        staticmethod(lambda *_a, **_k: (unwritable, "")))
    monkeypatch.setattr(Dialog, "getOpenFileNames", staticmethod(
        lambda *_a, **_k: ([str(tmp_path / "gone.npy"), str(tmp_path)], "")))
    monkeypatch.setattr(Dialog, "getOpenFileName", staticmethod(lambda *_a, **_k: ("", "")))
    monkeypatch.setattr(QtWidgets.QInputDialog, "getItem",
                        staticmethod(lambda *_a, **_k: ("graph", True)))
    monkeypatch.setattr(QtWidgets.QInputDialog, "getText",
                        staticmethod(lambda *_a, **_k: ("a", True)))

    # File: export and save to an unwritable path, to a bad suffix; open missing files
    check(win.export_action.trigger, "export failed")
    monkeypatch.setattr(Dialog, "getSaveFileName",
                        staticmethod(lambda *_a, **_k: (str(tmp_path / "out.jpg"), "")))
    check(win.export_action.trigger, ".png or .svg")
    monkeypatch.setattr(Dialog, "getSaveFileName",
                        staticmethod(lambda *_a, **_k: (unwritable[:-3] + "py", "")))
    no_modal.clear()
    win.save_script_action.trigger()
    assert no_modal and no_modal[-1][0] == "warning", no_modal
    assert_plain(no_modal[-1][1], "could not save")
    check(win.open_action.trigger, "gone.npy",
          wait=lambda: "gone.npy" in check.new() and tmp_path.name in check.new())
    # Open recent: a file that was opened, then deleted
    np.save(tmp_path / "once.npy", np.ones(2))
    win.open_paths([str(tmp_path / "once.npy")])
    qtbot.waitUntil(lambda: "once" in win.workspace, timeout=TIMEOUT)
    run(qtbot, win, "del once")
    (tmp_path / "once.npy").unlink()
    recent = [a for a in win.recent_menu.actions() if a.text().endswith("once.npy")]
    assert recent
    check(recent[0].trigger, "once.npy")

    # every other menu action, on a workspace of odd values, with the dialogs stubbed out
    run(qtbot, win, "e = torch.ones(1).expand(2, 3)\nm = torch.ones(2, device='meta')")
    win.workspace.selected = "m"
    skip = {win.quit_action, win.open_action, win.export_action, win.save_script_action,
            # they replace or take back what is there: tests/qt/test_undo_window.py
            win.new_action, win.undo.undo_action, win.undo.redo_action}
    menus = [m for a in win.menuBar().actions() if isinstance(m := a.menu(), QtWidgets.QMenu)]
    for action in [a for m in menus for a in all_actions(m)]:
        if action in skip or action.parent() is win.recent_menu or action.actionGroup():
            continue
        before = snapshot(win.workspace)
        action.trigger()
        settle(qtbot, win)
        if action.isCheckable() and action.isChecked():
            action.trigger()  # back
            settle(qtbot, win)
        if not action.text().startswith(("&Run", "Duplicate", "Delete", "Rename")):
            assert_intact(win.workspace, before)
        assert_responsive(qtbot, win)
    assert {kind for kind, _text in no_modal} >= {"information", "about"}


def test_theme_presentation_and_language_while_a_lesson_is_open(
        qtbot: QtBot, make_window: Callable[..., Any]) -> None:
    """Look changes keep the lesson and its step, and no panel replaced by a language change
    is still reached afterwards (:func:`stale_panel_errors`)."""
    with qtbot.capture_exceptions() as errors:
        problems = _look_changes(qtbot, make_window)
        deliver_posted()  # what the replaced panels would still receive
    problems += stale_panel_errors(errors)
    assert not problems, "; ".join(problems)


def stale_panel_errors(errors: list[Any]) -> list[str]:
    """Describe the 'already deleted' errors of panels replaced by a language change; fail on
    any other exception."""
    other = [e for e in errors if not (isinstance(e[1], RuntimeError)
                                       and "already deleted" in str(e[1]))]
    if other:
        raise other[0][1]
    if not errors:
        return []
    return [f"{len(errors)} RuntimeError(s) 'Internal C++ object already deleted': after "
            "set_language the old ValuesDock/GraphPanel keep their lambda connections to "
            "bridge.selected and are called after their widgets were deleted"]


def _look_changes(qtbot: QtBot, make_window: Callable[..., Any]) -> list[str]:
    win = make_window()
    win.show()
    lesson = win.panels["lesson"]
    assert isinstance(lesson, LessonPanel)
    with qtbot.waitSignal(lesson.step_shown, timeout=TIMEOUT):
        win.open_lesson("autograd-chain")
    qtbot.waitUntil(lambda: not lesson.busy and not win.runner.busy, timeout=TIMEOUT)
    with qtbot.waitSignal(lesson.step_shown, timeout=TIMEOUT):
        lesson.next_step()
    qtbot.waitUntil(lambda: not lesson.busy and not win.runner.busy, timeout=TIMEOUT)
    state = lesson.state()
    assert state is not None and state.current == 2
    before = snapshot(win.workspace)
    assert before

    def language(code: str) -> QtGui.QAction:
        label = {"en": "English", "zh": "中文"}[code]
        return next(a for m in win.menuBar().findChildren(QtWidgets.QMenu)
                    for a in m.actions() if a.text() == label)

    for step in ("dark", "present", "zh", "dark", "present", "en", "zh", "en"):
        if step == "dark":
            win.dark_action.trigger()
        elif step == "present":
            win.present_action.trigger()
        else:
            language(step).trigger()
        QtWidgets.QApplication.processEvents()
        settle(qtbot, win)
        lesson = win.panels["lesson"]
        assert isinstance(lesson, LessonPanel)
        now = lesson.state()
        assert now is not None and (now.source, now.current) == (state.source, state.current)
        assert lesson.title.text().startswith("2.")
        assert_intact(win.workspace, before)
    assert win.dark_action.isChecked() is False and win.present_action.isChecked() is False
    assert_responsive(qtbot, win)
    memory = win.panels["memory"]
    assert isinstance(memory, MemoryPanel)
    qtbot.waitUntil(memory.is_ready, timeout=TIMEOUT)
    deliver_posted()  # deferred deletions of the panels replaced by the language changes

    def docks() -> int:
        return len(win.findChildren(QtWidgets.QDockWidget))

    assert docks() == len(PANELS)
    win.reset_layout_action.trigger()
    deliver_posted()
    settle(qtbot, win)
    assert_intact(win.workspace, before)
    assert_responsive(qtbot, win)
    lesson = win.panels["lesson"]
    assert isinstance(lesson, LessonPanel)
    problems: list[str] = []
    if lesson.state() is None:
        problems.append("the open lesson is dropped (the lesson pane is empty)")
    if docks() != len(PANELS):
        problems.append(f"{docks()} docks instead of {len(PANELS)}: the old panels are "
                        "never removed and stay connected to the workspace and runner")
    if problems:
        return ["Reset layout (MainWindow._build_ui_fresh clears self.docks before "
                "_build_ui): " + "; ".join(problems)]
    return []


def test_select_a_value_after_switching_language(qtbot: QtBot, window: MainWindow) -> None:
    """After the interface is rebuilt in another language, selecting a value must not reach
    the panels that were replaced."""
    win = window
    before = snapshot(win.workspace)
    with qtbot.capture_exceptions() as errors:
        for lang in ("zh", "en"):
            win.set_language(lang)
            deliver_posted()  # the replaced panels are deleted by the event loop
        win.workspace.selected = "a"
        run(qtbot, win, "b = a + 1")
        assert_intact(win.workspace, before, extra=("b",))
        assert_responsive(qtbot, win)
        deliver_posted()
    assert not stale_panel_errors(errors)
