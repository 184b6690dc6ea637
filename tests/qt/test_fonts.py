"""The bundled fonts: every shipped text draws with them, in every widget and figure, and a
screenshot is the same image on a machine with no fonts at all as on one with many."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fontTools.ttLib import TTFont
from PySide6 import QtGui, QtWidgets
from pytestqt.qtbot import QtBot

from tensor_explorer.core.texts import gb2312_characters, shipped_characters
from tensor_explorer.core.workspace import Workspace
from tensor_explorer.paths import resources_dir
from tensor_explorer.qt import fonts, theme

FONTS = resources_dir() / "fonts"
NO_FONTS = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>/nonexistent-font-dir</dir><cachedir>{cache}</cachedir>{rules}</fontconfig>
"""
#: rendering settings a desktop may have: sub-pixel colours, no antialiasing, full hinting
HOSTILE_RULES = """<match target="font">
<edit name="rgba" mode="assign"><const>rgb</const></edit>
<edit name="antialias" mode="assign"><bool>false</bool></edit>
<edit name="hintstyle" mode="assign"><const>hintfull</const></edit></match>"""


def test_every_bundled_face_registers_under_its_own_name(qapp) -> None:
    registered = fonts.register()
    files = sorted(p.name for p in FONTS.glob("*.[ot]tf"))
    assert sorted(registered) == files and len(files) == 7
    assert all(registered[f] for f in files), registered
    assert fonts.available() == sorted(fonts.BUNDLED)
    assert fonts.families("en")[0] == fonts.SANS
    assert fonts.families("zh")[0] == fonts.SANS_SC


def test_the_fonts_are_open_font_license_with_their_licence() -> None:
    licence = (FONTS / "OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in licence
    for path in FONTS.glob("*.[ot]tf"):
        names = TTFont(path)["name"]
        assert "Open Font License" in (names.getDebugName(13) or ""), path.name
        assert (names.getDebugName(1) or "").startswith("Tensor Explorer"), path.name


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_shipped_character_is_missing(qapp, lang: str) -> None:
    assert fonts.missing(lang) == []
    # the check can fail: the Latin face alone lacks every Chinese character of the texts
    if lang == "zh":
        lacking = fonts.missing("zh", chain=[fonts.SANS])
        assert "张" in lacking and "量" in lacking and "a" not in lacking


def test_common_chinese_beyond_the_shipped_texts_draws_too(qapp) -> None:
    """What a learner types in Chinese (the 3,755 common characters of GB2312) draws with the
    bundled face; a rarer character is left to the system's fonts."""
    common = gb2312_characters(level=1)
    assert len([c for c in common if "\u4e00" <= c <= "\u9fff"]) == 3755
    assert fonts.lacking(common, [fonts.SANS_SC]) == []
    rare = frozenset("龘한")
    assert fonts.lacking(rare, fonts.families("zh")) == sorted(rare)


def test_shipped_texts_are_what_the_lessons_and_catalog_say() -> None:
    zh, en = shipped_characters("zh"), shipped_characters("en")
    lesson = (resources_dir() / "lessons" / "04-numpy-sharing.zh.md").read_text("utf-8")
    assert {c for c in lesson if "\u4e00" <= c <= "\u9fff"} <= zh
    assert en <= zh and not any("\u4e00" <= c <= "\u9fff" for c in en)


def test_the_window_draws_every_text_with_the_bundled_fonts(qtbot: QtBot, make_window) -> None:
    ws = Workspace()
    ws.run("x = torch.ones(2, 3)")
    win = make_window(ws)
    for name in ("code", "console"):
        win.panels[name]
    app = QtWidgets.QApplication.instance()
    assert isinstance(app, QtWidgets.QApplication)
    for lang, first in (("zh", fonts.SANS_SC), ("en", fonts.SANS)):
        win.set_language(lang)
        assert QtGui.QFontInfo(app.font()).family() == first
        label = win.docks["workspace"].titleBarWidget().findChild(QtWidgets.QLabel)
        assert QtGui.QFontInfo(label.font()).family() == first
    editor = win.panels["console"].editor
    code = win.panels["code"].text
    for widget in (editor, code):
        assert QtGui.QFontInfo(widget.font()).family() == fonts.MONO
    before = editor.font().pointSizeF()
    win.set_presentation(True)
    assert editor.font().pointSizeF() == pytest.approx(before * theme.PRESENTATION_SCALE)
    assert QtGui.QFontInfo(editor.font()).family() == fonts.MONO
    win.set_presentation(False)


def _screenshot(out: Path, env: dict[str, str], *args: str) -> None:
    r = subprocess.run([sys.executable, "-m", "tensor_explorer", "screenshot", *args, "--out",
                        str(out)], capture_output=True, text=True, timeout=240, env=env)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_screenshot_is_the_same_image_with_no_fonts_at_all(tmp_path: Path, lang: str) -> None:
    """The lesson window (prose, code, checks, graph) in presentation mode, drawn on this
    machine's fonts, on a machine with none at all, and on one whose desktop asks for sub-pixel
    colours, no antialiasing, full hinting and a larger DPI: byte for byte the same PNG."""
    conf = tmp_path / "no-fonts.conf"
    conf.write_text(NO_FONTS.format(cache=tmp_path / "fc-cache", rules=""))
    hostile = tmp_path / "hostile.conf"
    hostile.write_text(NO_FONTS.format(cache=tmp_path / "fc-cache", rules=HOSTILE_RULES))
    env = {k: v for k, v in os.environ.items() if not k.startswith("TENSOR_EXPLORER")}
    env["QT_QPA_PLATFORM"] = "offscreen"
    args = ("autograd-chain", "--step", "3", "--lang", lang, "--presentation")
    _screenshot(tmp_path / "system.png", env, *args)
    _screenshot(tmp_path / "none.png", {**env, "FONTCONFIG_FILE": str(conf)}, *args)
    _screenshot(tmp_path / "hostile.png", {**env, "FONTCONFIG_FILE": str(hostile),
                                           "QT_FONT_DPI": "120", "QT_SCALE_FACTOR": "1.5"},
                *args)
    system, none = (tmp_path / "system.png").read_bytes(), (tmp_path / "none.png").read_bytes()
    assert len(system) > 20_000
    assert system == none
    assert (tmp_path / "hostile.png").read_bytes() == system
