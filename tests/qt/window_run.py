"""Running statements in the real window as the code bar does, for tests."""

from __future__ import annotations

from typing import Any

from PySide6 import QtWidgets
from pytestqt.qtbot import QtBot

TIMEOUT = 30_000


def run(qtbot: QtBot, win: Any, source: str, timeout: int = TIMEOUT) -> None:
    """Run ``source`` through the window's runner and wait until it has finished or failed
    (until the runner is no longer busy: one signal, with its argument checked — waiting for
    the same signal twice is fragile), then let the panels' coalesced refresh happen."""
    with qtbot.waitSignal(win.runner.busy_changed, timeout=timeout,
                          check_params_cb=lambda busy: not busy):
        assert win.runner.run(source)
    QtWidgets.QApplication.processEvents()
