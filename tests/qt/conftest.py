"""Qt test set-up: an isolated settings file, no modal error dialogs, a window factory, a
lesson player."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from PySide6 import QtCore
from pytestqt.qtbot import QtBot

from tensor_explorer.core.workspace import Workspace

if TYPE_CHECKING:
    from tests.qt.lesson_player import Player


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TENSOR_EXPLORER_SETTINGS", str(tmp_path / "settings.ini"))
    monkeypatch.setenv("TENSOR_EXPLORER_LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setenv("TENSOR_EXPLORER_NO_DIALOGS", "1")
    monkeypatch.setenv("TENSOR_EXPLORER_RECOVERY", str(tmp_path / "recovery.txs"))
    from PySide6 import QtWidgets

    from tensor_explorer.qt import theme
    from tensor_explorer.qt.gc_guard import install

    app = QtWidgets.QApplication.instance()
    install()  # collect garbage on the UI thread only, as the app does
    if isinstance(app, QtWidgets.QApplication) and app.font().pointSizeF() != theme.BASE_POINT_SIZE:
        theme.state().apply("light", 1.0)  # every test starts from the app's own look
    yield
    from tensor_explorer.qt import i18n, theme

    if QtCore.QCoreApplication.instance() is not None:
        if i18n.current() != "en":
            i18n.install("en")
        state = theme.state()
        if state.theme.name != "light" or state.scale != 1.0:  # restyling every widget is slow
            state.apply("light", 1.0)
        QtCore.QThreadPool.globalInstance().waitForDone(10_000)


@pytest.fixture
def make_window(qtbot: QtBot, tmp_path: Path) -> Iterator[Callable[..., object]]:
    from tensor_explorer.qt.main_window import MainWindow

    made: list[MainWindow] = []

    def make(ws: Workspace | None = None, remember: bool = False, ask: bool = False) -> MainWindow:
        settings = (
            QtCore.QSettings(
                os.environ["TENSOR_EXPLORER_SETTINGS"], QtCore.QSettings.Format.IniFormat
            )
            if remember
            else None
        )
        win = MainWindow(ws or Workspace(), settings=settings)
        win.ask_before_losing_work = ask  # a modal question would wait forever in a test
        qtbot.addWidget(win, before_close_func=lambda w: setattr(w, "ask_before_losing_work",
                                                                 False))
        made.append(win)
        return win

    yield make
    for win in made:  # no program may outlive its test; closing asks nothing
        win.ask_before_losing_work = False
        win.runner.stop()
        win.runner.wait(5.0)


@pytest.fixture
def player(qtbot: QtBot) -> Iterator[Player]:
    """A LessonPanel on its own workspace (tests/qt/lesson_player.py)."""
    from tests.qt.lesson_player import Player

    p = Player(qtbot)
    yield p
    p.runner.wait(5.0)
    p.bridge.disconnect_workspace()


@pytest.fixture
def values_panel(qtbot: QtBot) -> Iterator[object]:
    """A Values panel of its own (800 x 560, light theme at normal size); every background
    read it started is over when the test ends."""
    from tensor_explorer.qt import theme
    from tensor_explorer.qt.values_panel import ValuesPanel
    from tensor_explorer.qt.workers import wait_for_tasks

    s = theme.state()
    if s.theme is not theme.LIGHT or s.scale != 1.0:  # (restyling is slow: only if needed)
        s.apply("light", 1.0)
    p = ValuesPanel()
    p.resize(800, 560)
    qtbot.addWidget(p)
    yield p
    p.set_value(None, None)  # cancels every background read
    assert wait_for_tasks(10_000)
