"""Trust on every route into the window: File ▸ Open, drop, the command line, recent files,
the lesson chooser and its Open dialog, a language switch. The routes are found in the code
(every call that opens a path), and the same hostile files go through each: none runs as full
Python unless trusted (``trust.decide``)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from pytestqt.qtbot import QtBot

import tensor_explorer as tx
from tensor_explorer.core.workspace import Workspace
from tests.core.session_files import unsigned_copy

QT = Path(tx.__file__).parent / "qt"
OPENERS = ("open_paths", "open_lesson", "open_program")

#: every function of the window that opens a path, as found below in the code, and the test
#: driver that goes through it (or the opener it hands the path to)
ROUTES = {
    "app.py:run_app": "command line",
    "app.py:screenshot_main": "tests/test_trust_routes.py (screenshot)",
    "main_window.py:open_paths": "command line",
    "main_window.py:open_lesson": "via window_files.open_paths",
    "main_window.py:dropEvent": "drop",
    "window_files.py:fill_recent_menu": "recent files",
    "window_files.py:reopen_last_session": "a session: data, never code (test_session)",
    "window_files.py:open_dialog": "File ▸ Open",
    "window_files.py:open_paths": "every window route",
    "window_files.py:_open_waiting": "via window_files.open_paths",
    "lesson_panel.py:trust_lesson": "the Trust button (test_trust.py)",
    "lesson_panel.py:_lesson_chosen": "lesson chooser",
    "lesson_panel.py:open_dialog": "lesson Open dialog",
    "lesson_panel.py:restore": "language switch",
}


def _openers_in_code() -> set[str]:
    found = set()
    for path in QT.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef):
                continue
            calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call)
                     and isinstance(n.func, ast.Attribute) and n.func.attr in OPENERS]
            if calls:
                found.add(f"{path.name}:{fn.name}")
    return found


def test_every_window_route_is_known() -> None:
    found = _openers_in_code()
    assert found - set(ROUTES) == set(), "a new route opens files: add its driver below"
    assert set(ROUTES) - found == set()


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, tuple[Path, Path]]:
    monkeypatch.setenv("TENSOR_EXPLORER_TRUST_FILE", str(tmp_path / "trusted.json"))
    out = {}
    mark = tmp_path / "PWNED-program"
    program = tmp_path / "hostile.py"
    program.write_text(f"x = 1\nopen(r'{mark}', 'w').close()\n")
    out["program"] = (program, mark)
    for where in ("code", "expect"):
        mark = tmp_path / f"PWNED-{where}"
        payload = f"open(r'{mark}', 'w').close()"
        code = payload if where == "code" else "x = torch.ones(2)"
        expect = f"{payload} is None" if where == "expect" else "x.shape == (2,)"
        lesson = tmp_path / f"hostile-{where}.en.md"
        lesson.write_text(f"---\nname: hostile-{where}\ntitle: Hostile {where}\nlanguage: en\n"
                          f"---\n\n## One\n\n```python\n{code}\n```\n\nexpect: {expect}\n")
        out[where] = (lesson, mark)
    return out


def _settle(qtbot: QtBot, win) -> None:
    panel = win.panels["lesson"]
    qtbot.wait(50)
    qtbot.waitUntil(lambda: not win.runner.busy and not panel.busy and not win.files.waiting,
                    timeout=20_000)
    QtWidgets.QApplication.processEvents()


def _drop(win, path: Path) -> None:
    mime = QtCore.QMimeData()
    mime.setUrls([QtCore.QUrl.fromLocalFile(str(path))])
    event = QtGui.QDropEvent(QtCore.QPointF(10, 10), QtCore.Qt.DropAction.CopyAction, mime,
                             QtCore.Qt.MouseButton.LeftButton,
                             QtCore.Qt.KeyboardModifier.NoModifier)
    win.dropEvent(event)


def _file_open(monkeypatch, win, path: Path) -> None:
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileNames",
                        staticmethod(lambda *a, **k: ([str(path)], "")))
    win.files.open_dialog()


def _recent(win, path: Path) -> None:
    win.files.remember(str(path))
    win.files.fill_recent_menu()
    action = next(a for a in win.recent_menu.actions() if a.text() == str(path.resolve()))
    action.trigger()


def _lesson_dialog(monkeypatch, win, path: Path) -> None:
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (str(path), "")))
    win.panels["lesson"].open_dialog()


def _lesson_chooser(win, path: Path) -> None:
    panel = win.panels["lesson"]
    win.open_lesson("welcome")
    panel.lesson_combo.addItem("hostile", str(path))
    panel.lesson_combo.setCurrentIndex(panel.lesson_combo.count() - 1)
    panel.lesson_combo.activated.emit(panel.lesson_combo.count() - 1)  # as a click on it


DRIVERS: dict[str, Callable[..., None]] = {
    "command line": lambda mp, win, p: win.open_paths([str(p)]),
    "drop": lambda mp, win, p: _drop(win, p),
    "File ▸ Open": lambda mp, win, p: _file_open(mp, win, p),
    "recent files": lambda mp, win, p: _recent(win, p),
    "lesson Open dialog": lambda mp, win, p: _lesson_dialog(mp, win, p),
    "lesson chooser": lambda mp, win, p: _lesson_chooser(win, p),
}


def test_the_drivers_cover_the_routes() -> None:
    direct = {how for how in ROUTES.values() if not how.startswith(("via ", "tests/", "a "))
              and "(" not in how}
    assert direct - set(DRIVERS) - {"every window route", "language switch"} == set()


@pytest.mark.parametrize("route", sorted(DRIVERS))
def test_no_window_route_runs_a_hostile_file(route: str, qtbot: QtBot, make_window, hostile,
                                             monkeypatch) -> None:
    win = make_window(Workspace(), remember=True)  # (recent files are kept in the settings)
    win.show()
    kinds = ("code", "expect") if route.startswith("lesson") else tuple(hostile)
    for kind in kinds:
        path, mark = hostile[kind]
        DRIVERS[route](monkeypatch, win, path)
        _settle(qtbot, win)
        assert not mark.exists(), (route, kind)
        if kind == "program":  # it did run, restricted: the line before the payload bound x
            assert win.workspace.get("x") == 1 and win.panels["console"].trust_bar.isVisible()
        else:
            lesson = win.panels["lesson"]
            assert lesson.lesson is not None and lesson.lesson.path == str(path), route
            assert lesson.trust_bar.isVisible()


def test_a_language_switch_keeps_a_lesson_as_it_was_trusted(qtbot: QtBot, make_window,
                                                            hostile) -> None:
    """--trust is for the session: a language switch keeps it, and an untrusted lesson stays
    restricted after the switch."""
    win = make_window(Workspace())
    path, mark = hostile["code"]
    win.open_lesson(str(path))
    _settle(qtbot, win)
    win.set_language("zh")
    _settle(qtbot, win)
    panel = win.panels["lesson"]
    assert panel.lesson is not None and not panel.lesson.trusted
    panel.player.go_to(1)
    _settle(qtbot, win)
    assert not mark.exists()
    win.open_lesson(str(path), trusted=True)
    _settle(qtbot, win)
    assert mark.exists()
    mark.unlink()
    win.set_language("en")
    _settle(qtbot, win)
    assert panel.lesson is not None and panel.lesson.trusted


def test_a_session_from_elsewhere_opens_its_data_and_asks_before_its_code(
        qtbot: QtBot, make_window, tmp_path: Path, monkeypatch) -> None:
    """#24: opening a session never runs code; one that this app did not write for this user
    shows its data (a module of its own class by its parameters) and the trust bar; Trust
    rebuilds the class and the module over the saved parameters. The user's own reopens whole
    with no question."""
    import torch


    monkeypatch.setenv("TENSOR_EXPLORER_TRUST_FILE", str(tmp_path / "trusted.json"))
    ws = Workspace()
    ws.run("import torch\nclass Net(torch.nn.Module):\n    def __init__(self):\n"
           "        super().__init__()\n        self.fc = torch.nn.Linear(2, 2)\n"
           "    def forward(self, v):\n        return self.fc(v) * 2\nnet = Net()\n"
           "x = torch.ones(1, 2)\n")
    expected = ws["net"](ws["x"]).detach()
    own = tmp_path / "own.txs"
    ws.save(own)
    foreign = tmp_path / "foreign.txs"
    unsigned_copy(own, foreign)
    win = make_window(Workspace())
    win.show()
    bar = win.panels["console"].trust_bar
    win.open_paths([str(foreign)])
    qtbot.waitUntil(lambda: "net" in win.workspace.names() and not win.files.tasks,
                    timeout=20_000)
    assert type(win.workspace["net"]).__name__ == "SavedModule"
    assert torch.equal(win.workspace["net"].fc.weight, ws["net"].fc.weight)
    assert bar.isVisible() and "foreign.txs" in bar.label.text() and "Net" in bar.label.text()
    bar.button.click()
    qtbot.waitUntil(lambda: not win.files.tasks and type(win.workspace["net"]).__name__ == "Net",
                    timeout=20_000)
    assert not bar.isVisible()
    assert torch.equal(win.workspace["net"](win.workspace["x"]).detach(), expected)
    win.open_paths([str(own)])  # the user's own: whole, no question
    qtbot.waitUntil(lambda: not win.files.tasks, timeout=20_000)
    qtbot.waitUntil(lambda: type(win.workspace["net"]).__name__ == "Net", timeout=20_000)
    assert not bar.isVisible()
