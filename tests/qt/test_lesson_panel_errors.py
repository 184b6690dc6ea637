"""Why a lesson cannot be opened, in the window's language (qt/lesson_panel.py): a broken lesson
file opened in the real window is explained in the Lesson panel in Chinese when the window
speaks Chinese (the core's catalog message, file name and directives as written), in English
exactly as before, and again in the other language when the language is switched."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication

from tensor_explorer.core import lessons
from tensor_explorer.core.catalog import Message
from tensor_explorer.qt.lesson_panel import LessonPanel
from tensor_explorer.qt.main_window import MainWindow

BROKEN = "---\nname: broken\ntitle: Broken\nlanguage: en\n---\n## S\n\npanel: nowhere\n"
PANELS = "workspace, inspector, values, memory, graph, code"
PANELS_ZH = "workspace、inspector、values、memory、graph、code"


def _why(path: Path, lang: str) -> str:
    if lang == "zh":
        return f"{path}，第 8 行：面板 'nowhere' 不存在；请使用 {PANELS_ZH} 之一"
    return f"{path}, line 8: panel 'nowhere' does not exist; use one of {PANELS}"


def _panel(win: MainWindow) -> LessonPanel:
    panel = win.panels["lesson"]
    assert isinstance(panel, LessonPanel)
    return panel


def _title(lang: str) -> str:
    return "无法打开这节课" if lang == "zh" else "This lesson cannot be opened"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_broken_lesson_is_explained_in_the_windows_language(
        make_window: Callable[..., MainWindow], tmp_path: Path, lang: str) -> None:
    path = tmp_path / "broken.md"
    path.write_text(BROKEN, encoding="utf-8")
    win = make_window()
    win.set_language(lang)
    win.open_paths([str(path)])  # a lesson file: it goes to the Lesson panel
    panel = _panel(win)
    assert panel.title.text() == _title(lang)
    assert panel.prose.toPlainText() == _why(path, lang)
    assert win.workspace.names() == []  # nothing ran
    other = "en" if lang == "zh" else "zh"
    win.set_language(other)  # the same message, said again in the other language
    assert panel.title.text() == _title(other)
    assert panel.prose.toPlainText() == _why(path, other)


def test_a_lesson_without_a_title_line_is_explained_in_chinese(
        make_window: Callable[..., MainWindow], tmp_path: Path) -> None:
    path = tmp_path / "bad.md"
    path.write_text("---\nname: bad\n---\n", encoding="utf-8")
    win = make_window()
    win.set_language("zh")
    win.open_lesson(str(path))
    assert _panel(win).prose_text() == (f"无法打开这节课\n{path}，第 3 行："
                                        "前置信息缺少 'title:' 这一行")


def test_why_a_lesson_cannot_be_trusted_follows_the_language(
        make_window: Callable[..., MainWindow], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "fine.md"
    path.write_text("---\nname: fine\ntitle: Fine\nlanguage: en\n---\n## S\n\nNo code.\n",
                    encoding="utf-8")
    win = make_window()
    panel = _panel(win)
    assert panel.open_lesson(str(path), run=False)

    def gone() -> None:
        raise lessons.LessonError(Message("load.no-file"), path=str(path))

    monkeypatch.setattr(panel.player, "trust", gone)
    win.set_language("zh")
    panel.trust_lesson()
    label = panel.trust_bar.label.text()
    frame = QCoreApplication.translate("LessonPanel", "It could not be trusted: {0}")
    assert label == frame.format(f"{path}：没有这个文件") and frame.startswith("无法")
    win.set_language("en")
    assert panel.trust_bar.label.text() == f"It could not be trusted: {path}: no such file"
