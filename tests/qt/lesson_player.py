"""A LessonPanel on its own workspace, for the lesson panel's tests (the ``player`` fixture in
conftest.py makes one)."""

from __future__ import annotations

from PySide6 import QtCore
from pytestqt.qtbot import QtBot

from tensor_explorer.core.workspace import Workspace
from tensor_explorer.qt.bridge import WorkspaceBridge
from tensor_explorer.qt.lesson_panel import LessonPanel
from tensor_explorer.qt.run_controller import RunController

TIMEOUT = 20_000


class Player:
    """A LessonPanel on its own workspace, recording the panels it asks for."""

    def __init__(self, qtbot: QtBot) -> None:
        self.qtbot = qtbot
        self.ws = Workspace()
        self.bridge = WorkspaceBridge(self.ws)
        self.runner = RunController(self.ws)
        self.panels: list[str] = []
        self.panel = LessonPanel(self.bridge, self.runner, self.panels.append)
        qtbot.addWidget(self.panel)
        self.panel.resize(500, 700)
        self.panel.show()

    def wait_step(self, number: int, action: object) -> None:
        with self.qtbot.waitSignal(self.panel.step_shown, timeout=TIMEOUT,
                                   check_params_cb=lambda n: n == number):
            action()  # type: ignore[operator]
        self.qtbot.waitUntil(lambda: not self.panel.busy and not self.runner.busy,
                             timeout=TIMEOUT)
        QtCore.QCoreApplication.processEvents()
