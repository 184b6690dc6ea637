"""The Memory panel's small parts on their own: the hover line (memory_hover.HoverLine), the
words under the relation list (memory_texts.relation_note) and the drawing's palette
(memory_view.palette_for)."""

from __future__ import annotations

import torch
from PySide6 import QtGui
from pytestqt.qtbot import QtBot

from tensor_explorer.core.memory_drawing import compute_model
from tensor_explorer.qt import memory_texts, theme
from tensor_explorer.qt.memory_hover import INFO_LINES, HoverLine
from tensor_explorer.qt.memory_view import palette_for


def test_hover_line_keeps_its_height_and_elides_what_does_not_fit(qtbot: QtBot) -> None:
    line = HoverLine()
    qtbot.addWidget(line)
    line.restyle("#112233")
    line.resize(300, line.height())
    line.show()
    height = line.height()
    spacing = QtGui.QFontMetricsF(line.bold_font()).lineSpacing()
    assert height >= spacing * INFO_LINES
    line.say("x[0] = 1")
    assert line.text() == "x[0] = 1" and line.toolTip() == ""
    long = "a very long hover caption " * 40
    line.say(long)
    assert line.text().endswith("…") and line.text().count("\n") == INFO_LINES - 1
    assert line.toolTip() == long and line.full_text == long
    assert line.height() == height  # nothing under it moves
    line.say(None)
    assert line.text() == "" and line.toolTip() == "" and line.height() == height


def test_relation_note_names_own_memory_the_count_and_what_is_not_drawn() -> None:
    base = torch.arange(4.0)
    model = compute_model([("base", base), ("view", base[1:]), ("alone", torch.zeros(2)),
                           ("text", "words")])
    note = memory_texts.relation_note(model, 0)
    assert "alone" in note and "base" not in note.split("\n")[0] and "text" in note
    assert "No two values share memory." not in note  # (base and view do)
    assert "Counting the shared bytes of 1 pair…" in memory_texts.relation_note(model, 1)
    assert "of 7 pairs…" in memory_texts.relation_note(model, 7)
    lonely = compute_model([("alone", torch.zeros(2))])
    assert memory_texts.relation_note(lonely, 0).split("\n")[0] == "No two values share memory."
    assert memory_texts.headers() == ["a", "b", "relation", "shared bytes", "why"]
    assert memory_texts.pending_text("a", "b") == "overlap? counting…"


def test_palette_follows_the_theme_and_text_size(qtbot: QtBot) -> None:
    base = QtGui.QFont()
    pal = palette_for(base)
    t = theme.current()
    assert pal.text == QtGui.QColor(t.text) and pal.accent == QtGui.QColor(t.accent)
    assert pal.scale == theme.state().scale
    assert pal.font.pointSizeF() == 9.0 * pal.scale and pal.bold.bold()
    assert pal.colour(len(pal.series)) == pal.series[0]
