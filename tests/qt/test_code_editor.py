"""The code bar's editor in the real window: Python highlighting in the theme's colours,
auto-indent, bracket matching, history on Up/Down at the first/last line, the failed input
kept with its line marked, completion of workspace names and attributes (never running the
user's code)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from pytestqt.qtbot import QtBot

from tensor_explorer.qt import theme
from tensor_explorer.qt.code_editor import CodeEditor, code_mask, matching_bracket, scan

TIMEOUT = 20_000
Key = QtCore.Qt.Key
CTRL = QtCore.Qt.KeyboardModifier.ControlModifier


@pytest.fixture
def win(qtbot: QtBot, make_window: Any) -> Any:
    w = make_window()
    w.show()
    qtbot.waitExposed(w)
    return w


def editor_of(win: Any) -> CodeEditor:
    ed = win.panels["console"].editor
    assert isinstance(ed, CodeEditor)
    ed.setFocus()
    return ed


def run_typed(qtbot: QtBot, win: Any, source: str, *, fails: bool = False) -> None:
    console = win.panels["console"]
    console.editor.setPlainText(source)
    with qtbot.waitSignal(win.runner.failed if fails else win.runner.finished, timeout=TIMEOUT):
        console.run_editor()
    qtbot.waitUntil(lambda: not win.runner.busy, timeout=TIMEOUT)
    QtWidgets.QApplication.processEvents()


def colour_at(ed: CodeEditor, block: int, column: int) -> str | None:
    """The foreground colour the highlighter gave the character at ``column`` of ``block``."""
    layout = ed.document().findBlockByNumber(block).layout()
    for r in layout.formats():
        if r.start <= column < r.start + r.length and r.format.hasProperty(
                QtGui.QTextFormat.Property.ForegroundBrush):
            return r.format.foreground().color().name()
    return None


def cursor_to(ed: CodeEditor, position: int) -> None:
    cur = ed.textCursor()
    cur.setPosition(position)
    ed.setTextCursor(cur)


# ------------------------------------------------------------------------------ highlighting


def test_python_is_highlighted_in_the_theme_colours(qtbot: QtBot, win: Any) -> None:
    ed = editor_of(win)
    ed.setPlainText("for i in range(3):  # count\n    s = 'text' + str(1.5)\nx = '''a\nb''' + 2")
    light = theme.LIGHT
    assert colour_at(ed, 0, 0) == light.accent  # for
    assert colour_at(ed, 0, 6) == light.accent  # in
    assert colour_at(ed, 0, 9) == light.series[4]  # range: a builtin
    assert colour_at(ed, 0, 4) is None  # i: a plain name
    assert colour_at(ed, 0, 22) == light.muted  # the comment
    assert colour_at(ed, 1, 9) == light.ok  # 'text'
    assert colour_at(ed, 1, 23) == light.series[2]  # 1.5
    assert colour_at(ed, 3, 0) == light.ok  # a triple-quoted string goes on over lines
    assert colour_at(ed, 3, 7) == light.series[2]  # ... and ends there: 2 is a number
    italic = ed.document().findBlockByNumber(0).layout().formats()
    assert any(r.format.fontItalic() for r in italic)  # comments are italic

    theme.state().apply("dark")
    dark = theme.DARK
    assert colour_at(ed, 0, 0) == dark.accent
    assert colour_at(ed, 1, 9) == dark.ok
    assert colour_at(ed, 0, 22) == dark.muted


def test_scanner_rules() -> None:
    kinds = {(s, k) for s, _, k in scan("def f(a, b='x#y'):  # hi")[0]}
    assert kinds == {(0, "keyword"), (4, "definition"), (11, "string"), (20, "comment")}
    assert scan("match = 3")[0] == [(8, 1, "number")]  # a soft keyword used as a name
    assert scan("x1 = 0x1F + 1e-3 + 2j")[0] == [(5, 4, "number"), (12, 4, "number"),
                                                (19, 2, "number")]
    assert scan('s = """open')[1] != 0 and scan('still"""  x', scan('"""')[1])[1] == 0
    code = code_mask("f('(', x)  # )")
    assert matching_bracket(code, 1) == 8 and matching_bracket(code, 3) is None


# ---------------------------------------------------------------------- indent and brackets


def test_auto_indent_and_dedent(qtbot: QtBot, win: Any) -> None:
    ed = editor_of(win)
    ed.clear()
    qtbot.keyClicks(ed, "for i in range(3):")
    qtbot.keyClick(ed, Key.Key_Return)
    assert ed.toPlainText() == "for i in range(3):\n    "
    qtbot.keyClicks(ed, "if i:  # a comment")
    qtbot.keyClick(ed, Key.Key_Return)
    qtbot.keyClicks(ed, "y = i")
    qtbot.keyClick(ed, Key.Key_Return)
    assert ed.toPlainText().endswith("\n        y = i\n        ")  # the indentation kept
    qtbot.keyClick(ed, Key.Key_Backspace)  # in the leading spaces: one level out
    assert ed.toPlainText().endswith("\n        y = i\n    ")
    qtbot.keyClick(ed, Key.Key_Backspace)
    assert ed.toPlainText().endswith("\n        y = i\n")
    qtbot.keyClick(ed, Key.Key_Tab)
    qtbot.keyClicks(ed, "pass")
    qtbot.keyClick(ed, Key.Key_Return)  # after pass: one level out
    assert ed.toPlainText().endswith("\n    pass\n")
    qtbot.keyClicks(ed, "ab")
    qtbot.keyClick(ed, Key.Key_Backspace)  # an ordinary Backspace elsewhere
    assert ed.toPlainText().endswith("\n    pass\na")


def test_bracket_partner_is_highlighted(qtbot: QtBot, win: Any) -> None:
    ed = editor_of(win)
    ed.setPlainText("y = f(a[0], ')')")
    cursor_to(ed, 5)  # at "("
    assert ed.bracket_pair() == (5, 15)  # the ")" in the string does not count
    marked = {s.cursor.selectionStart() for s in ed.extraSelections()}
    assert {5, 15} <= marked
    cursor_to(ed, 10)  # just after "]"
    assert ed.bracket_pair() == (9, 7)
    cursor_to(ed, 2)
    assert ed.bracket_pair() is None and not ed.extraSelections()


# ------------------------------------------------------------------------------------ history


def test_up_and_down_walk_the_history_from_the_first_and_last_line(
        qtbot: QtBot, win: Any) -> None:
    console = win.panels["console"]
    assert "↑" in console.editor.placeholderText() and "Ctrl+Enter" in \
        console.editor.placeholderText()
    run_typed(qtbot, win, "a = 1")
    run_typed(qtbot, win, "b = 2\nc = 3")
    ed = editor_of(win)
    assert ed.toPlainText() == ""  # ran: cleared
    qtbot.keyClicks(ed, "dra")
    qtbot.keyClick(ed, Key.Key_Up)
    assert ed.toPlainText() == "b = 2\nc = 3"
    assert ed.textCursor().blockNumber() == 0  # on the first line: Up goes on back
    qtbot.keyClick(ed, Key.Key_Up)
    assert ed.toPlainText() == "a = 1"
    qtbot.keyClick(ed, Key.Key_Up)  # the oldest: stays
    assert ed.toPlainText() == "a = 1"
    qtbot.keyClick(ed, Key.Key_Down)
    assert ed.toPlainText() == "b = 2\nc = 3"
    assert ed.textCursor().atEnd()
    qtbot.keyClick(ed, Key.Key_Down)
    assert ed.toPlainText() == "dra"  # what was being typed comes back
    # not on the first line: Up moves the cursor; Ctrl+Up walks from anywhere
    ed.setPlainText("p = 1\nq = 2")
    cursor_to(ed, len("p = 1\nq = 2"))
    qtbot.keyClick(ed, Key.Key_Up)
    assert ed.toPlainText() == "p = 1\nq = 2" and ed.textCursor().blockNumber() == 0
    cursor_to(ed, len("p = 1\nq"))
    qtbot.keyClick(ed, Key.Key_Up, CTRL)
    assert ed.toPlainText() == "b = 2\nc = 3"
    qtbot.keyClick(ed, Key.Key_Down, CTRL)
    assert ed.toPlainText() == "p = 1\nq = 2"


# ------------------------------------------------------------------------------------- errors


def test_failed_input_stays_with_the_line_marked(qtbot: QtBot, win: Any) -> None:
    console = win.panels["console"]
    source = "a = torch.ones(2)\nb = a @ undefined_name\nc = 3"
    run_typed(qtbot, win, source, fails=True)
    ed = editor_of(win)
    assert ed.toPlainText() == source
    assert ed.error_line == 2 and ed.textCursor().blockNumber() == 1
    error = QtGui.QColor(theme.current().error)
    marks = [s for s in ed.extraSelections()
             if s.format.background().color().rgb() == error.rgb()]
    assert len(marks) == 1 and marks[0].cursor.block().blockNumber() == 1
    assert "undefined_name" in console.output_text()
    qtbot.keyClicks(ed, "x")  # an edit clears the mark
    assert ed.error_line is None
    assert not [s for s in ed.extraSelections()
                if s.format.background().color().rgb() == error.rgb()]
    # a syntax error marks its line too; success clears the editor as before
    run_typed(qtbot, win, "ok = 1\nbad = (", fails=True)
    assert ed.error_line == 2
    run_typed(qtbot, win, "ok = 1")
    assert ed.toPlainText() == "" and ed.error_line is None


# --------------------------------------------------------------------------------- completion


def test_completion_of_names_and_attributes(qtbot: QtBot, win: Any) -> None:
    run_typed(qtbot, win, "grid = torch.zeros(2, 3)\nseen = []\n"
                          "class Spy:\n"
                          "    def method(self):\n        return 1\n"
                          "    def __getattr__(self, name):\n        seen.append(name)\n"
                          "    def __dir__(self):\n        seen.append('dir')\n        return []\n"
                          "spy = Spy()\n"
                          "net = nn.Sequential(nn.Linear(2, 3))\nnet.head = nn.Linear(3, 1)")
    ed = editor_of(win)
    ed.clear()
    popup = ed.completer.popup()
    qtbot.keyClicks(ed, "gr")
    qtbot.waitUntil(popup.isVisible)
    assert ed.completion_words() == ["grid"]
    qtbot.keyClick(popup, Key.Key_Return)  # the popup takes Enter: the name goes in
    assert ed.toPlainText() == "grid" and not popup.isVisible()
    qtbot.keyClicks(ed, ".")
    qtbot.waitUntil(popup.isVisible)
    words = ed.completion_words()
    assert {"sum", "reshape", "shape", "dtype"} <= set(words)
    assert not [w for w in words if w.startswith("_")]
    qtbot.keyClicks(ed, "su")
    assert "sum" in ed.completion_words() and "reshape" not in ed.completion_words()
    qtbot.keyClick(popup, Key.Key_Escape)
    assert not popup.isVisible()

    ed.clear()
    qtbot.keyClicks(ed, "spy.")  # the type's attributes; the user's code never runs
    qtbot.waitUntil(popup.isVisible)
    assert "method" in ed.completion_words()
    assert win.workspace["seen"] == []
    qtbot.keyClick(popup, Key.Key_Escape)

    ed.clear()
    qtbot.keyClicks(ed, "net.")  # a module's submodules and methods
    qtbot.waitUntil(popup.isVisible)
    assert {"head", "forward", "parameters"} <= set(ed.completion_words())
    qtbot.keyClick(popup, Key.Key_Escape)

    ed.clear()
    qtbot.keyClicks(ed, "torch.ran")
    qtbot.waitUntil(popup.isVisible)
    assert "randn" in ed.completion_words()
    qtbot.keyClick(popup, Key.Key_Escape)

    ed.clear()
    qtbot.keyClicks(ed, "s = 'gr")  # nothing completes inside a string
    assert not popup.isVisible()


def test_ctrl_enter_with_the_completion_list_open_runs_and_closes_it(qtbot: QtBot,
                                                                      win: Any) -> None:
    """#27 point 10: the completion popup stayed open after Ctrl+Enter."""
    run_typed(qtbot, win, "grid = torch.zeros(2, 3)")
    ed = editor_of(win)
    ed.clear()
    popup = ed.completer.popup()
    qtbot.keyClicks(ed, "gr")
    qtbot.waitUntil(popup.isVisible)
    with qtbot.waitSignal(win.runner.failed, timeout=TIMEOUT):  # "gr" ran: a NameError
        qtbot.keyClick(popup, Key.Key_Return, CTRL)  # where the key goes with the list open
    qtbot.waitUntil(lambda: not popup.isVisible())
    assert ed.toPlainText() == "gr"  # a failed input stays, as always
    # the window's Run (its Ctrl+Enter shortcut, the toolbar's Run code) with the list open
    ed.moveCursor(QtGui.QTextCursor.MoveOperation.End)
    qtbot.keyClicks(ed, "i")
    qtbot.waitUntil(popup.isVisible)
    with qtbot.waitSignal(win.runner.failed, timeout=TIMEOUT):  # "gri": a NameError
        win.run_action.trigger()
    assert not popup.isVisible()


def _output_colours(win: Any) -> set[str]:
    doc = win.panels["console"].output.document()
    found = set()
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            brush = it.fragment().charFormat().foreground()
            if brush.style() != QtCore.Qt.BrushStyle.NoBrush:
                found.add(brush.color().name())
            it += 1
        block = block.next()
    return found


def test_a_theme_switch_recolours_the_output_already_there(qtbot: QtBot, win: Any) -> None:
    """#27 point 7: the dark theme kept old output's colours (dark blue on dark grey)."""
    run_typed(qtbot, win, "y = 1")
    run_typed(qtbot, win, "undefined_name", fails=True)
    light, dark = theme.THEMES["light"], theme.THEMES["dark"]
    roles = ("muted", "accent", "ok", "error")
    assert {getattr(light, r) for r in roles} <= _output_colours(win)
    try:
        theme.state().apply("dark")
        colours = _output_colours(win)
        assert {getattr(dark, r) for r in roles} <= colours
        assert not colours & {getattr(light, r) for r in roles}
    finally:
        theme.state().apply("light")
    assert {getattr(light, r) for r in roles} <= _output_colours(win)
