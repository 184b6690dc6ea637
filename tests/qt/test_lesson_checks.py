"""The lesson panel's checks list, fed results the core lesson player made: one coloured line per
expectation, the replayed steps that went wrong first, a skipped step's reason, and an expected
error explained under its check."""

from __future__ import annotations

from PySide6 import QtGui
from pytestqt.qtbot import QtBot

from tensor_explorer.core import lessons as L
from tensor_explorer.core.catalog import Message
from tensor_explorer.core.lesson_player import LessonPlayer
from tensor_explorer.qt import i18n, theme
from tensor_explorer.qt.lesson_checks import CheckList, skip_words
from tests.core.test_lesson_player import TINY


def colours(checks: CheckList) -> list[str]:
    return [checks.item(i).foreground().color().name() for i in range(checks.count())]


def played(text: str, number: int) -> LessonPlayer:
    player = LessonPlayer.inline()
    player.open(L.parse_lesson(text), "tiny.md")
    player.go_to(number)
    return player


def test_each_expectation_is_a_coloured_line(qtbot: QtBot) -> None:
    checks = CheckList()
    qtbot.addWidget(checks)
    player = played(TINY, 2)
    checks.show_result(player.result)
    assert checks.texts() == ["✓ expect: b.shape == (2, 3)"]
    assert colours(checks) == [QtGui.QColor(theme.current().ok).name()]
    checks.show_result(None)
    assert checks.texts() == []


def test_replay_failures_come_first(qtbot: QtBot) -> None:
    checks = CheckList()
    qtbot.addWidget(checks)
    wrong = TINY.replace("expect: a.sum() == 15", "expect: a.sum() == 16")
    player = LessonPlayer.inline()
    player.open(L.parse_lesson(wrong), "tiny.md")
    player.go_to(3)
    player.go_to(2)  # back: step 1 replayed, and fails again
    checks.show_result(player.result, player.replay_failures)
    texts = checks.texts()
    assert texts == ["✗ Step 1 did not go as planned while replaying",
                     "✓ expect: b.shape == (2, 3)"]
    assert checks.item(0).toolTip().startswith("expect: a.sum() == 16: ")
    assert colours(checks)[0] == QtGui.QColor(theme.current().error).name()


def test_an_expected_error_is_explained(qtbot: QtBot) -> None:
    checks = CheckList()
    qtbot.addWidget(checks)
    player = played(TINY, 4)
    result = player.result
    assert result is not None and result.error is not None
    checks.show_result(result)
    texts = checks.texts()
    assert texts[:2] == ["✓ expect-error: RuntimeError", "This error is the point of this step:"]
    assert texts[2] == f"line {result.error.line}: " + result.error.headline_in("en")
    assert checks.item(2).toolTip() == result.error.text("en")


def test_a_skipped_step_says_why(qtbot: QtBot) -> None:
    checks = CheckList()
    qtbot.addWidget(checks)
    step = L.parse_lesson(TINY).step(1)
    cuda = Message("lesson.skip-cuda")  # what skip_reason says of a CUDA step without a GPU
    checks.show_result(L.StepResult(step, skipped=cuda))
    assert checks.texts() == ["Skipped: this step needs a CUDA GPU, and this machine has none."]
    assert colours(checks) == [QtGui.QColor(theme.current().warning).name()]
    assert skip_words("needs a file") == "needs a file"  # (someone else's words: as written)
    assert skip_words("mentions CUDA") == "mentions CUDA"  # (no reading the English back)
    i18n.install("zh")
    assert skip_words(cuda) == "需要 CUDA GPU，而这台机器没有"
