"""The lesson player: steps run through the RunController, panels follow, checks are shown."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from PySide6 import QtCore, QtGui
from pytestqt.qtbot import QtBot

from tensor_explorer.core import lessons as core
from tensor_explorer.qt import i18n, theme
from tensor_explorer.qt.lesson_panel import LessonPanel
from tests.qt.lesson_player import Player


def test_lesson_combo_lists_shipped_lessons_and_open(player: Player) -> None:
    combo = player.panel.lesson_combo
    names = [combo.itemData(i) for i in range(combo.count())]
    assert names[: len(core.shipped_lessons())] == list(core.shipped_lessons())
    assert combo.itemText(combo.count() - 1) == "Open lesson file…"
    assert not player.panel.next_button.isEnabled()


def test_open_runs_step_one_shows_its_panel_and_value(player: Player) -> None:
    player.wait_step(1, lambda: player.panel.open_lesson("welcome"))
    panel = player.panel
    assert panel.current == 1 and panel.position == 1
    assert "A tensor is more than numbers" in panel.prose_text()
    assert "Tensor Explorer makes the invisible" in panel.prose_text()  # intro on step 1
    assert all(t.startswith("✓") for t in panel.check_texts()) and panel.check_texts()
    player.qtbot.waitUntil(lambda: player.panels == ["inspector"])
    assert player.ws.selected == "x"
    assert panel.progress.text() == "Step 1 of 5"
    assert not panel.prev_button.isEnabled() and panel.next_button.isEnabled()


def test_next_previous_reset_and_jump(player: Player) -> None:
    panel = player.panel
    player.wait_step(1, lambda: panel.open_lesson("numpy-sharing"))
    player.wait_step(2, panel.next_button.click)
    assert player.ws["shared"][0, 0].item() == 99
    assert all(t.startswith("✓") for t in panel.check_texts())
    player.wait_step(3, panel.next_step)
    assert "reused" in player.ws
    # back: a fresh replay of steps 1..2, so step 3's value is gone
    player.wait_step(2, panel.previous_step)
    assert "reused" not in player.ws and player.ws["shared"][0, 0].item() == 99
    assert panel.position == 2
    # jump ahead with the step combo: runs 3 and 4 (4 expects an error)
    player.wait_step(4, lambda: panel.step_combo.activated.emit(3))
    assert "reused" in player.ws and "w" in player.ws
    assert any(t.startswith("✓ expect-error: numpy-requires-grad") for t in panel.check_texts())
    player.wait_step(1, panel.reset)
    assert "copied" in player.ws and "w" not in player.ws
    assert panel.current == 1
    player.qtbot.waitUntil(lambda: player.panels[-1:] == ["memory"])


def test_keyboard_moves_between_steps(player: Player) -> None:
    panel = player.panel
    player.wait_step(1, lambda: panel.open_lesson("welcome"))
    player.wait_step(2, lambda: player.qtbot.keyClick(panel, QtCore.Qt.Key.Key_PageDown))
    player.wait_step(3, lambda: player.qtbot.keyClick(
        panel, QtCore.Qt.Key.Key_Right, QtCore.Qt.KeyboardModifier.AltModifier))
    player.wait_step(2, lambda: player.qtbot.keyClick(panel, QtCore.Qt.Key.Key_PageUp))
    assert panel.current == 2


def test_failed_expectation_is_shown_in_red(player: Player, tmp_path: Path) -> None:
    path = tmp_path / "wrong.en.md"
    path.write_text(
        "---\nname: wrong\ntitle: Wrong on purpose\nlanguage: en\n---\n"
        "## Copy\n\nA copy does not follow the array.\n\n```python\n"
        "array = np.zeros(3, dtype=np.float32)\ncopied = torch.tensor(array)\n"
        "array[0] = 7\n```\n\npanel: values\nselect: copied\nexpect: copied[0] == 7\n"
        "expect: copied.shape == (3,)\n", encoding="utf-8")
    panel = player.panel
    player.wait_step(1, lambda: panel.open_lesson(str(path)))
    texts = panel.check_texts()
    assert texts[0] == "✗ expect: copied[0] == 7 — copied[0] is tensor(0.)"
    assert texts[1] == "✓ expect: copied.shape == (3,)"
    colours = [panel.checks.item(i).foreground().color().name() for i in range(2)]
    assert colours == [QtGui.QColor(theme.current().error).name(),
                       QtGui.QColor(theme.current().ok).name()]
    combo = panel.lesson_combo
    assert combo.itemText(combo.currentIndex()) == "Wrong on purpose"


def test_unexpected_error_is_reported(player: Player, tmp_path: Path) -> None:
    path = tmp_path / "boom.md"
    path.write_text("---\nname: boom\ntitle: Boom\nlanguage: en\n---\n## S\n```python\n"
                    "x = torch.ones(2) @ torch.ones(3)\n```\npanel: inspector\n",
                    encoding="utf-8")
    player.wait_step(1, lambda: player.panel.open_lesson(str(path)))
    [text] = player.panel.check_texts()
    assert text.startswith("✗ The code failed: line 8: x = torch.ones(2) @ torch.ones(3)")


def test_errors_are_explained_in_chinese(player: Player, tmp_path: Path) -> None:
    i18n.install("zh")
    panel = player.panel
    player.wait_step(1, lambda: panel.open_lesson("dtypes"))
    player.wait_step(2, panel.next_step)  # expect-error: dtype-mismatch
    texts = panel.check_texts()
    assert texts[0] == "✓ expect-error: dtype-mismatch"
    assert texts[1] == "这个错误正是这一步要演示的："
    assert texts[2].startswith("第 2 行：RuntimeError: mat1 and mat2 must have the same dtype")
    assert texts[3].startswith("操作数的 dtype 不同（例如 Float 和 Long")
    assert panel.checks.item(3).toolTip().startswith("第 2 行：logits = model(ints)\n")
    assert "通常的原因：操作数的 dtype 不同" in panel.checks.item(3).toolTip()

    path = tmp_path / "boom.zh.md"
    path.write_text("---\nname: boom\ntitle: 出错\nlanguage: zh\n---\n## S\n```python\n"
                    "x = torch.ones(2) @ torch.ones(3)\n```\npanel: inspector\n",
                    encoding="utf-8")
    player.wait_step(1, lambda: panel.open_lesson(str(path)))
    [text] = panel.check_texts()
    assert text.startswith("✗ 代码出错：第 8 行："
                           "x = torch.ones(2) @ torch.ones(3) → RuntimeError: ")


def test_bad_lesson_file_gives_a_message_not_a_crash(player: Player, tmp_path: Path) -> None:
    path = tmp_path / "bad.md"
    path.write_text("---\nname: bad\n---\n", encoding="utf-8")
    assert not player.panel.open_lesson(str(path))
    assert "cannot be opened" in player.panel.prose_text()
    assert "'title:'" in player.panel.prose_text()


def test_cuda_step_is_skipped_with_a_note(player: Player, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    panel = player.panel
    player.wait_step(1, lambda: panel.open_lesson("devices"))
    player.wait_step(5, lambda: panel.go_to(5))
    [text] = panel.check_texts()
    assert text == "Skipped: this step needs a CUDA GPU, and this machine has none."
    player.wait_step(6, panel.next_step)  # the lesson goes on without it
    assert all(t.startswith("✓") for t in panel.check_texts())


def test_language_follows_the_app_and_state_survives_a_rebuild(player: Player,
                                                               qtbot: QtBot) -> None:
    panel = player.panel
    player.wait_step(1, lambda: panel.open_lesson("welcome"))
    player.wait_step(2, panel.next_step)
    state = panel.state()
    assert state is not None and (state.source, state.position, state.current) == (
        "welcome", 2, 2)
    i18n.install("zh")
    again = LessonPanel(player.bridge, player.runner, player.panels.append)
    qtbot.addWidget(again)
    history = len(player.ws.history)
    again.restore(state)
    assert again.current == 2 and again.position == 2
    assert "看看数值" in again.prose_text()
    assert len(player.ws.history) == history  # nothing ran again
    assert again.lesson_combo.itemText(again.lesson_combo.currentIndex()) == \
        "欢迎使用 Tensor Explorer"


def test_present_shows_a_step_run_headlessly(player: Player) -> None:
    lesson = core.load_lesson("grad-accumulation", "en")
    results = core.run_lesson(lesson, player.ws, upto=2)
    panel = player.panel
    assert panel.open_lesson("grad-accumulation", run=False)
    panel.present(2, results[-1])
    assert panel.current == 2 and player.ws.selected == "w"
    assert "Backward again" in panel.prose_text()
    player.qtbot.waitUntil(lambda: player.panels == ["graph"])
    assert panel.check_texts() == ["✓ expect: w.grad.tolist() == [6.0, 6.0]"]


def test_presentation_mode_makes_the_prose_larger(player: Player) -> None:
    panel = player.panel
    player.wait_step(1, lambda: panel.open_lesson("welcome"))
    normal = panel.prose.document().defaultFont().pointSizeF()
    theme.state().apply(scale=theme.PRESENTATION_SCALE)
    large = panel.prose.document().defaultFont().pointSizeF()
    assert large == pytest.approx(normal * theme.PRESENTATION_SCALE)
    assert large >= 1.25 * theme.BASE_POINT_SIZE * theme.PRESENTATION_SCALE - 0.01
