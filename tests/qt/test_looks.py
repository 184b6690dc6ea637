"""Every panel in light/dark and English/Chinese: not blank, and different where it should be;
presentation mode; the never-crash error hook."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot

from tensor_explorer.core.workspace import Workspace
from tensor_explorer.qt import errors, theme
from tensor_explorer.qt.main_window import PANELS
from tensor_explorer.qt.screenshot import render_image, settle
from tests.qt.pixels import assert_drawn
from tests.qt.test_app import PROGRAM


def test_every_panel_light_dark_english_chinese(qtbot: QtBot, make_window) -> None:
    ws = Workspace()
    ws.run(PROGRAM)
    ws.selected = "shared"
    win = make_window(ws)
    win.resize(1000, 700)
    win.show()
    shots: dict[tuple[str, str, str], bytes] = {}
    for lang in ("en", "zh"):
        win.set_language(lang)
        for name in ("light", "dark"):
            win.set_theme(name)
            for panel in PANELS:
                win.show_panel(panel)
                settle(2)
                widget = win.panels[panel]
                if widget.width() < 300 or widget.height() < 200:  # a tab not laid out yet
                    widget.resize(600, 420)
                    settle(1)
                img = render_image(widget)
                assert_drawn(img, theme.THEMES[name], f"{panel} {lang} {name}")
                buf = QtCore.QBuffer()
                buf.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
                img.save(buf, "PNG")
                shots[(panel, lang, name)] = bytes(buf.data())
    for panel in PANELS:
        assert shots[(panel, "en", "light")] != shots[(panel, "en", "dark")], panel
        assert shots[(panel, "en", "light")] != shots[(panel, "zh", "light")], panel


def test_presentation_mode_enlarges_every_panel_text(qtbot: QtBot, make_window) -> None:
    win = make_window()
    sizes = {}
    for on in (False, True):
        win.set_presentation(on)
        sizes[on] = {name: win.panels[name].font().pointSizeF() for name in PANELS}
    win.set_presentation(False)
    for name in PANELS:
        assert sizes[True][name] >= sizes[False][name] * theme.PRESENTATION_SCALE * 0.95, name


def test_uncaught_errors_are_logged_and_the_app_keeps_running(
    qtbot: QtBot, make_window, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("TENSOR_EXPLORER_LOG_DIR", str(tmp_path))
    old_hook = sys.excepthook
    errors.install()
    try:
        win = make_window()
        try:
            raise ZeroDivisionError("boom in a slot")
        except ZeroDivisionError:
            sys.excepthook(*sys.exc_info())
        log = (tmp_path / "errors.log").read_text()
        assert "ZeroDivisionError: boom in a slot" in log and "Traceback" in log
        with qtbot.waitSignal(win.runner.finished, timeout=20_000):
            win.runner.run("still = 1")  # still responsive
        assert "still" in win.workspace
    finally:
        sys.excepthook = old_hook
    assert isinstance(QtWidgets.QApplication.instance(), QtWidgets.QApplication)
