"""Every step of every shipped lesson, in both languages, renders its window: the theme's
background, words in its text colour, and the detail of a drawn screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6 import QtGui

from tensor_explorer.core.lessons import list_lessons
from tensor_explorer.qt import theme
from tensor_explorer.qt.app import screenshot_main
from tests.qt.pixels import assert_drawn

LESSONS = [info.name for info in list_lessons()]
#: every step in English; in Chinese the lessons whose screens carry the most text (the suite
#: stays well under its time budget; tests/core/test_lessons.py runs every step in both)
CASES = [(name, "en") for name in LESSONS] + [
    (name, "zh") for name in ("welcome", "numpy-sharing", "grad-accumulation", "debugging")
]


@pytest.mark.parametrize(("name", "lang"), CASES)
def test_every_step_screenshot_is_not_blank(qtbot, tmp_path: Path, name: str, lang: str) -> None:
    folder = tmp_path / "steps"
    assert screenshot_main(name, None, panel="window", size="640x400", lang=lang,
                           all_steps=str(folder)) == 0  # 0: every expectation held
    images = sorted(folder.glob("*.png"))
    steps = next(i.steps for i in list_lessons() if i.name == name)
    assert len(images) == steps
    for path in images:
        img = QtGui.QImage(str(path))
        assert (img.width(), img.height()) == (640, 400)
        assert_drawn(img, theme.LIGHT, path.name)  # background, words, antialiased detail
