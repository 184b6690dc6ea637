"""The code bar's editor: Python highlighting, auto-indent, bracket matching, history and
completion.

Highlighting is a small rule set (keywords, builtins, strings, comments, numbers, the names
``def``/``class`` define), not Pygments: the code bar holds a few statements, the rules fit in
one scanner that also tells the editor which characters are code (brackets inside strings do not
match, nothing completes inside a comment), triple-quoted strings carry over lines through the
block state, and the app needs no further run-time dependency.

Completion offers the names of the workspace the console follows and, after ``name.``, that
value's attributes. It never runs the user's code: attributes come from the value's *type*
(read from the classes' own ``__dict__``, so no ``__getattr__``/``__dir__``/metaclass is
called), a module's from its namespace, an ``nn.Module``'s parameters, buffers and submodules
from its own tables.
"""

from __future__ import annotations

import builtins
import contextlib
import inspect
import keyword
import math
import re
import types
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch
from PySide6 import QtCore, QtGui, QtWidgets

from ..core.workspace import Workspace
from . import theme

INDENT = "    "

# ---------------------------------------------------------------------------------- scanning

KEYWORDS = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) - {"_"}
BUILTINS = frozenset(
    name for name, value in vars(builtins).items()
    if not name.startswith("_") and name not in KEYWORDS
    and (isinstance(value, type | types.BuiltinFunctionType))
)
_TOKEN = re.compile(
    r"(?P<comment>\#.*)"
    r"|(?P<string>(?:[rRbBuUfF]|[rR][bBfF]|[bBfF][rR])?(?:'''|\"\"\"|'|\"))"
    r"|(?P<number>(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+"
    r"|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?[jJ]?))"
    r"|(?P<name>[^\W\d]\w*)"
)
#: block states: inside a ''' / """ string that goes on past the end of the line
_IN_TRIPLE = {1: "'''", 2: '"""'}
_TRIPLE_STATE = {q: s for s, q in _IN_TRIPLE.items()}

Span = tuple[int, int, str]  # start, length, kind


def _string_end(line: str, start: int, quote: str) -> int:
    """Where the string whose body starts at ``start`` ends (after its closing quote), or -1
    when it goes on past the line."""
    i, n = start, len(line)
    while i < n:
        if line[i] == "\\":
            i += 2
            continue
        if line.startswith(quote, i):
            return i + len(quote)
        i += 1
    return -1


def scan(line: str, state: int = 0) -> tuple[list[Span], int]:
    """The highlighted spans of one line, and the state the next line starts in (0, or inside a
    triple-quoted string). ``state`` is the state this line starts in."""
    spans: list[Span] = []
    pos = 0
    if state in _IN_TRIPLE:
        end = _string_end(line, 0, _IN_TRIPLE[state])
        if end < 0:
            return [(0, len(line), "string")] if line else [], state
        spans.append((0, end, "string"))
        pos = end
    after_def = False
    while True:
        m = _TOKEN.search(line, pos)
        if m is None:
            return spans, 0
        kind = m.lastgroup or ""
        start = m.start()
        if kind == "string":
            quote = m.group()[-3:] if m.group()[-3:] in _TRIPLE_STATE else m.group()[-1]
            end = _string_end(line, m.end(), quote)
            if end < 0:
                spans.append((start, len(line) - start, "string"))
                # an unclosed one-line string ends with its line; a triple-quoted one goes on
                return spans, _TRIPLE_STATE.get(quote, 0)
            spans.append((start, end - start, "string"))
            pos, after_def = end, False
            continue
        pos = m.end()
        if kind == "name":
            word = m.group()
            if after_def:
                spans.append((start, pos - start, "definition"))
            elif word in KEYWORDS and (word in keyword.kwlist
                                       or _soft_keyword_here(line, start, pos)):
                spans.append((start, pos - start, "keyword"))
            elif word in BUILTINS:
                spans.append((start, pos - start, "builtin"))
            after_def = word in ("def", "class")
            continue
        spans.append((start, pos - start, kind))
        after_def = False


def _soft_keyword_here(line: str, start: int, end: int) -> bool:
    """``match``/``case``/``type`` are keywords only where they start a statement and more than
    an operator follows (``match = 3`` and ``type(x)`` use names)."""
    rest = line[end:].lstrip()
    if line[:start].strip() or not rest:
        return False
    if rest[0].isalpha() or rest[0] == "_":
        return True
    return line[start:end] != "type" and rest[0] in "([{-'\"0123456789"


def code_mask(text: str, fill: str = " ") -> str:
    """``text`` with every character of strings and comments replaced by ``fill`` (newlines
    kept): what is left is code, where brackets match and names complete."""
    out: list[str] = []
    state = 0
    for line in text.split("\n"):
        spans, state_after = scan(line, state)
        chars = list(line)
        for start, length, kind in spans:
            if kind in ("string", "comment"):
                chars[start:start + length] = fill * length
        out.append("".join(chars))
        state = state_after
    return "\n".join(out)


_OPEN, _CLOSE = "([{", ")]}"


def matching_bracket(code: str, index: int) -> int | None:
    """The index of the partner of the bracket at ``index`` in ``code`` (a :func:`code_mask`),
    None when it has none."""
    ch = code[index] if 0 <= index < len(code) else ""
    if ch in _OPEN:
        partner, step = _CLOSE[_OPEN.index(ch)], 1
    elif ch in _CLOSE:
        partner, step = _OPEN[_CLOSE.index(ch)], -1
    else:
        return None
    depth = 0
    i = index
    while 0 <= i < len(code):
        c = code[i]
        if c == ch:
            depth += 1
        elif c == partner:
            depth -= 1
            if depth == 0:
                return i
        i += step
    return None


def _utf16(text: str, index: int) -> int:
    """A Python index into ``text`` as a Qt (UTF-16) position."""
    head = text[:index]
    return index if head.isascii() else len(head.encode("utf-16-le")) // 2


def _from_utf16(text: str, pos: int) -> int:
    """A Qt (UTF-16) position in ``text`` as a Python index."""
    if text.isascii() or all(ord(c) < 0x10000 for c in text):
        return pos
    units = 0
    for i, c in enumerate(text):
        if units >= pos:
            return i
        units += 2 if ord(c) >= 0x10000 else 1
    return len(text)


# -------------------------------------------------------------------------------- completion

#: the modules every workspace binds (core.workspace), completed like workspace names
MODULES: dict[str, types.ModuleType] = {"torch": torch, "np": np, "nn": torch.nn,
                                        "F": torch.nn.functional, "math": math}
#: attributes of a tensor that are tensors again (``x.T.`` completes as a tensor)
_TENSOR_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "grad", "data", "real", "imag"})
_CHAIN = re.compile(r"((?:[^\W\d]\w*\.)*)(\w*)$")
_MISSING = object()
_TYPE_NAMES: weakref.WeakKeyDictionary[type, tuple[str, ...]] = weakref.WeakKeyDictionary()
_type_mro = type.__dict__["__mro__"].__get__
_type_dict = type.__dict__["__dict__"].__get__
_module_dict: Callable[[Any], Any] = vars(types.ModuleType)["__dict__"].__get__


class _InstanceOf:
    """Stands for "some instance of ``cls``" where the value itself is not read."""

    def __init__(self, cls: type) -> None:
        self.cls = cls


def type_attributes(cls: type) -> tuple[str, ...]:
    """The public attribute names ``cls`` and its bases define, sorted. Read from each class's
    own ``__dict__`` through ``type``'s descriptors: no metaclass ``__dir__``/``__getattr__`` or
    property runs. Cached per class."""
    try:
        return _TYPE_NAMES[cls]
    except (KeyError, TypeError):
        pass
    names: set[str] = set()
    for c in _type_mro(cls):
        names.update(k for k in _type_dict(c) if isinstance(k, str) and not k.startswith("_"))
    out = tuple(sorted(names))
    with contextlib.suppress(TypeError):  # a class that cannot be weakly referenced
        _TYPE_NAMES[cls] = out
    return out


def _static(obj: Any, name: str) -> Any:
    try:
        return inspect.getattr_static(obj, name, _MISSING)
    except Exception:
        return _MISSING


def _module_tables(obj: Any) -> Iterator[dict[str, Any]]:
    """An ``nn.Module``'s own parameter, buffer and submodule tables (no ``__getattr__``)."""
    for table in ("_parameters", "_buffers", "_modules"):
        d = _static(obj, table)
        if type(d) is dict:
            yield d


def member(obj: Any, name: str) -> Any:
    """``obj.name`` where it can be known without running code, else ``_MISSING``."""
    cls = obj.cls if type(obj) is _InstanceOf else type(obj)
    if issubclass(cls, torch.Tensor):
        return _InstanceOf(torch.Tensor) if name in _TENSOR_ATTRIBUTES else _MISSING
    if type(obj) is _InstanceOf:
        return _MISSING
    if issubclass(cls, types.ModuleType):
        d = _module_dict(obj)
        return d.get(name, _MISSING) if type(d) is dict else _MISSING
    if issubclass(cls, torch.nn.Module):
        for d in _module_tables(obj):
            if name in d:
                return d[name] if d[name] is not None else _MISSING
    return _MISSING


def attributes(obj: Any) -> list[str]:
    """The public attribute names to offer after ``obj.``."""
    if type(obj) is _InstanceOf:
        return list(type_attributes(obj.cls))
    cls = type(obj)
    if issubclass(cls, types.ModuleType):
        d = _module_dict(obj)
        return sorted(k for k in (d if type(d) is dict else ())
                      if isinstance(k, str) and k.isidentifier() and not k.startswith("_"))
    names = set(type_attributes(cls))
    if issubclass(cls, torch.nn.Module):
        for d in _module_tables(obj):
            names.update(k for k in d
                         if isinstance(k, str) and k.isidentifier() and not k.startswith("_"))
    return sorted(names)


class Completions:
    """What to offer at the cursor: workspace names, or the attributes after ``name.``."""

    def __init__(self, workspace: Callable[[], Workspace | None]) -> None:
        self._workspace = workspace
        self._names: list[str] = []

    def names(self) -> list[str]:
        ws = self._workspace()
        if ws is not None:
            # a program may bind names meanwhile (another thread): then keep the last list
            with contextlib.suppress(RuntimeError):
                self._names = ws.names()
        return sorted({*self._names, *MODULES})

    def _root(self, name: str) -> Any:
        ws = self._workspace()
        if ws is not None:
            try:
                if name in ws:
                    return ws[name]
            except (KeyError, RuntimeError):
                pass
        return MODULES.get(name, _MISSING)

    def complete(self, before: str) -> tuple[str, list[str], bool] | None:
        """For the code ``before`` the cursor: (the prefix typed, the candidates, whether they
        are attributes), or None where nothing completes."""
        m = _CHAIN.search(before)
        if m is None:
            return None
        chain, prefix = m.group(1), m.group(2)
        if prefix[:1].isdigit() or (m.start() > 0 and before[m.start() - 1] in ".\\"):
            return None
        if not chain:
            return prefix, self.names(), False
        parts = chain[:-1].split(".")
        obj = self._root(parts[0])
        for part in parts[1:]:
            if obj is _MISSING:
                break
            obj = member(obj, part)
        if obj is _MISSING:
            return None
        try:
            return prefix, attributes(obj), True
        except Exception:  # a broken type: offer nothing rather than fail while typing
            return None


# ------------------------------------------------------------------------------ highlighting


def _formats(t: theme.Theme) -> dict[str, QtGui.QTextCharFormat]:
    def fmt(colour: str, bold: bool = False, italic: bool = False) -> QtGui.QTextCharFormat:
        f = QtGui.QTextCharFormat()
        f.setForeground(QtGui.QColor(colour))
        if bold:
            f.setFontWeight(QtGui.QFont.Weight.Bold)
        f.setFontItalic(italic)
        return f

    return {
        "keyword": fmt(t.accent, bold=True),
        "builtin": fmt(t.series[4]),
        "string": fmt(t.ok),
        "comment": fmt(t.muted, italic=True),
        "number": fmt(t.series[2]),
        "definition": fmt(t.series[1], bold=True),
    }


class PythonHighlighter(QtGui.QSyntaxHighlighter):
    """Colours Python in the app theme's colours (re-coloured when the theme changes)."""

    def __init__(self, document: QtGui.QTextDocument) -> None:
        super().__init__(document)
        self.formats = _formats(theme.current())

    def set_theme(self, t: theme.Theme) -> None:
        self.formats = _formats(t)
        self.rehighlight()

    def highlightBlock(self, text: str) -> None:
        spans, state = scan(text, max(self.previousBlockState(), 0))
        for start, length, kind in spans:
            begin = _utf16(text, start)
            self.setFormat(begin, _utf16(text, start + length) - begin, self.formats[kind])
        self.setCurrentBlockState(state)


# ------------------------------------------------------------------------------------ editor

Key = QtCore.Qt.Key
_WORD_KEYS = re.compile(r"[\w.]")
#: what :meth:`CodeEditor._code` puts in place of strings and comments
_NOT_CODE = "\x00"
#: after a line starting with one of these, the next line goes one level out
_DEDENT_AFTER = ("return", "pass", "break", "continue", "raise")


class CodeEditor(QtWidgets.QPlainTextEdit):
    """Python with highlighting and auto-indent; Ctrl+Enter runs (``submitted``); Up on the
    first line and Down on the last walk the history (Ctrl+Up/Down anywhere); completion of
    workspace names and attributes (Ctrl+Space asks)."""

    submitted = QtCore.Signal()

    def __init__(self, parent: QtWidgets.QWidget | None = None,
                 completions: Completions | None = None) -> None:
        super().__init__(parent)
        theme.use_mono_font(self)
        self.setTabChangesFocus(False)
        self.history: list[str] = []
        self._pos = 0
        self._draft = ""
        self.completions = completions
        self.highlighter = PythonHighlighter(self.document())
        #: the failing line marked (0-based block number) and the text it was marked in
        self._error: tuple[int, str] | None = None
        self._mask: tuple[int, str] = (-1, "")
        self.completer = QtWidgets.QCompleter(self)
        self.completer.setWidget(self)
        self.completer.setModel(QtCore.QStringListModel(self.completer))
        self.completer.setCompletionMode(QtWidgets.QCompleter.CompletionMode.PopupCompletion)
        self.completer.setCaseSensitivity(QtCore.Qt.CaseSensitivity.CaseSensitive)
        self.completer.setModelSorting(
            QtWidgets.QCompleter.ModelSorting.CaseSensitivelySortedModel)
        self.completer.setMaxVisibleItems(10)
        self.completer.activated.connect(self.insert_completion)  # the text overload
        # Ctrl+Enter runs even while the list is open: the completer's own filter would take
        # Enter (a filter installed later is asked first)
        self._popup().installEventFilter(self)
        self.cursorPositionChanged.connect(self._update_selections)
        self.textChanged.connect(self._text_changed)
        theme.state().changed.connect(self._restyle)

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        completer = self.__dict__.get("completer")  # (Qt asks before __init__ made it)
        if (completer is not None and watched is completer.popup()
                and isinstance(event, QtGui.QKeyEvent)
                and event.type() == QtCore.QEvent.Type.KeyPress
                and event.key() in (Key.Key_Return, Key.Key_Enter)
                and event.modifiers() & QtCore.Qt.KeyboardModifier.ControlModifier):
            self._popup().hide()
            self.submitted.emit()
            return True
        return super().eventFilter(watched, event)

    def _popup(self) -> QtWidgets.QAbstractItemView:
        popup = self.completer.popup()
        assert popup is not None  # QCompleter makes one with PopupCompletion
        return popup

    # -- theme, marks ----------------------------------------------------------------------

    def _restyle(self) -> None:
        self.highlighter.set_theme(theme.current())
        self._update_selections()

    def mark_error(self, line: int | None) -> None:
        """Mark ``line`` (1-based, as a ProgramError's ``.line``) of the text as the failing one,
        and put the cursor there; cleared when the text changes."""
        block = self.document().findBlockByNumber(line - 1) if line else QtGui.QTextBlock()
        if not block.isValid():
            self._error = None
        else:
            self._error = (block.blockNumber(), self.toPlainText())
            cur = self.textCursor()
            cur.setPosition(block.position() + block.length() - 1)
            self.setTextCursor(cur)
            self.ensureCursorVisible()
        self._update_selections()

    @property
    def error_line(self) -> int | None:
        """The line marked as failing (1-based), None when none is."""
        return None if self._error is None else self._error[0] + 1

    def _text_changed(self) -> None:
        if self._error is not None and self.toPlainText() != self._error[1]:
            self._error = None
            self._update_selections()

    def _code(self) -> tuple[str, str]:
        """The text, and its :func:`code_mask` with strings and comments as ``_NOT_CODE``
        (cached per document revision)."""
        text = self.toPlainText()
        rev = self.document().revision()
        if self._mask[0] != rev or len(self._mask[1]) != len(text):
            self._mask = (rev, code_mask(text, _NOT_CODE))
        return text, self._mask[1]

    def _update_selections(self) -> None:
        t = theme.current()
        selections: list[QtWidgets.QTextEdit.ExtraSelection] = []
        if self._error is not None:
            block = self.document().findBlockByNumber(self._error[0])
            if block.isValid():
                sel = QtWidgets.QTextEdit.ExtraSelection()
                colour = QtGui.QColor(t.error)
                colour.setAlpha(48)
                sel.format.setBackground(colour)
                sel.format.setProperty(QtGui.QTextFormat.Property.FullWidthSelection, True)
                sel.format.setUnderlineColor(QtGui.QColor(t.error))
                sel.format.setUnderlineStyle(
                    QtGui.QTextCharFormat.UnderlineStyle.WaveUnderline)
                cur = QtGui.QTextCursor(block)
                cur.movePosition(QtGui.QTextCursor.MoveOperation.EndOfBlock,
                                 QtGui.QTextCursor.MoveMode.KeepAnchor)
                sel.cursor = cur
                selections.append(sel)
        selections.extend(self._bracket_selections(t))
        self.setExtraSelections(selections)

    def bracket_pair(self) -> tuple[int, int | None] | None:
        """The bracket at (or just before) the cursor and its partner, as document positions
        (the partner None when it has none); None when the cursor is at no bracket."""
        text, code = self._code()
        pos = _from_utf16(text, self.textCursor().position())
        for index in (pos, pos - 1):
            if 0 <= index < len(code) and code[index] in "()[]{}":
                partner = matching_bracket(code, index)
                return _utf16(text, index), None if partner is None else _utf16(text, partner)
        return None

    def _bracket_selections(self, t: theme.Theme) -> list[QtWidgets.QTextEdit.ExtraSelection]:
        pair = self.bracket_pair()
        if pair is None:
            return []
        out = []
        at, partner = pair
        for pos, colour in ((at, t.accent if partner is not None else t.error),
                            (partner, t.accent)):
            if pos is None:
                continue
            sel = QtWidgets.QTextEdit.ExtraSelection()
            background = QtGui.QColor(colour)
            background.setAlpha(60)
            sel.format.setBackground(background)
            sel.format.setForeground(QtGui.QColor(colour))
            sel.format.setFontWeight(QtGui.QFont.Weight.Bold)
            cur = self.textCursor()
            cur.setPosition(pos)
            cur.setPosition(pos + 1, QtGui.QTextCursor.MoveMode.KeepAnchor)
            sel.cursor = cur
            out.append(sel)
        return out

    # -- keys --------------------------------------------------------------------------------

    def event(self, e: QtCore.QEvent) -> bool:
        """Ctrl+Z / Ctrl+Shift+Z undo and redo the typing while there is typing to undo or
        redo; otherwise (the statement ran and the editor is fresh) they go to the window's
        Edit ▸ Undo / Redo, which take back what the statements did."""
        if e.type() == QtCore.QEvent.Type.ShortcutOverride and isinstance(e, QtGui.QKeyEvent):
            keys = QtGui.QKeySequence.StandardKey
            doc = self.document()
            redo = e.matches(keys.Redo) or e.keyCombination() == QtCore.QKeyCombination(
                QtCore.Qt.KeyboardModifier.ControlModifier
                | QtCore.Qt.KeyboardModifier.ShiftModifier, QtCore.Qt.Key.Key_Z)
            if (redo and not doc.isRedoAvailable()) or (
                    not redo and e.matches(keys.Undo) and not doc.isUndoAvailable()):
                e.ignore()  # not taken here: the shortcut goes to the window
                return False
        return super().event(e)

    def keyPressEvent(self, e: QtGui.QKeyEvent) -> None:
        key = e.key()
        mods = e.modifiers()
        ctrl = bool(mods & QtCore.Qt.KeyboardModifier.ControlModifier)
        popup = self._popup()
        if popup.isVisible() and key in (Key.Key_Return, Key.Key_Enter, Key.Key_Tab,
                                         Key.Key_Backtab, Key.Key_Escape) and not ctrl:
            e.ignore()  # the completer takes them
            return
        if key in (Key.Key_Return, Key.Key_Enter):
            if ctrl:
                popup.hide()
                self.submitted.emit()
            else:
                self._new_line()
            return
        if key == Key.Key_Tab and not ctrl:
            self._indent(True)
            return
        if key == Key.Key_Backtab:
            self._indent(False)
            return
        if key == Key.Key_Backspace and not ctrl and self._dedent_backspace():
            self._refresh_completion()
            return
        if key == Key.Key_Space and ctrl:
            self.complete(force=True)
            return
        if key == Key.Key_Up and (ctrl or self._on_edge_line(first=True)) and self._walk(-1):
            return
        if key == Key.Key_Down and (ctrl or self._on_edge_line(first=False)) and self._walk(1):
            return
        super().keyPressEvent(e)
        typed = e.text()
        if typed and not ctrl and _WORD_KEYS.fullmatch(typed[-1]):
            self.complete()
        elif key == Key.Key_Backspace:
            self._refresh_completion()
        elif typed or key in (Key.Key_Left, Key.Key_Right, Key.Key_Home, Key.Key_End):
            popup.hide()

    def close_completion(self) -> None:
        """Hide the completion list (the statements are being run)."""
        self._popup().hide()

    def _refresh_completion(self) -> None:
        if self._popup().isVisible():
            self.complete()

    def _on_edge_line(self, first: bool) -> bool:
        """The cursor is on the first (last) line shown: Up (Down) cannot move it further."""
        cur = self.textCursor()
        block = cur.block()
        if block.isValid() and (block.previous() if first else block.next()).isValid():
            return False
        layout = block.layout()
        line = layout.lineForTextPosition(cur.positionInBlock()) if layout else None
        if line is None or not line.isValid():
            return True
        return line.lineNumber() == 0 if first else line.lineNumber() == layout.lineCount() - 1

    def _walk(self, step: int) -> bool:
        """Show the previous (``step`` -1) or next history entry; False when there is none
        (then the key does what it would)."""
        if not self.history:
            return False
        if step < 0:
            if self._pos <= 0:
                return True  # the oldest entry: stay
            if self._pos >= len(self.history):
                self._draft = self.toPlainText()
            self._pos -= 1
        else:
            if self._pos >= len(self.history):
                return False
            self._pos += 1
        text = self.history[self._pos] if self._pos < len(self.history) else self._draft
        self._popup().hide()
        cur = self.textCursor()
        cur.beginEditBlock()
        cur.select(QtGui.QTextCursor.SelectionType.Document)
        cur.insertText(text)
        cur.endEditBlock()
        if step < 0:  # at the end of the first line: Up again goes on back
            cur.setPosition(0)
            cur.movePosition(QtGui.QTextCursor.MoveOperation.EndOfLine)
        self.setTextCursor(cur)
        self.ensureCursorVisible()
        return True

    def remember(self, source: str) -> None:
        """Add ``source`` to the history (once in a row) and start walking from the end."""
        if source and (not self.history or self.history[-1] != source):
            self.history.append(source)
        self._pos = len(self.history)
        self._draft = ""

    def _new_line(self) -> None:
        """Enter: a new line with this line's indentation, one level more after ``:``, one
        less after ``return``/``pass``/``break``/``continue``/``raise``."""
        cur = self.textCursor()
        if cur.hasSelection():
            cur.removeSelectedText()
        line = cur.block().text()
        col = _from_utf16(line, cur.positionInBlock())
        before = line[:col]
        indent = before[: len(before) - len(before.lstrip(" \t"))]
        code = code_mask(before).rstrip()
        first_word = code.split(maxsplit=1)[0] if code.strip() else ""
        if code.endswith(":"):
            indent += INDENT
        elif first_word in _DEDENT_AFTER:
            indent = indent[:-len(INDENT)] if indent.endswith(INDENT) else indent.rstrip(" ")
        cur.insertText("\n" + indent)
        self.setTextCursor(cur)
        self.ensureCursorVisible()

    def _dedent_backspace(self) -> bool:
        """Backspace in a line's leading spaces removes one level (to the previous multiple of
        four); False where it is an ordinary Backspace."""
        cur = self.textCursor()
        if cur.hasSelection():
            return False
        col = cur.positionInBlock()
        head = cur.block().text()[:col]
        if col == 0 or head.strip(" "):
            return False
        cur.movePosition(QtGui.QTextCursor.MoveOperation.Left,
                         QtGui.QTextCursor.MoveMode.KeepAnchor, (col - 1) % len(INDENT) + 1)
        cur.removeSelectedText()
        self.setTextCursor(cur)
        return True

    def _indent(self, more: bool) -> None:
        """Tab: four spaces (each selected line one level in, when several are selected);
        Shift+Tab: the line(s) one level out."""
        cur = self.textCursor()
        doc = self.document()
        first = doc.findBlock(cur.selectionStart())
        last = doc.findBlock(cur.selectionEnd())
        if more and first == last:
            cur.insertText(INDENT)
            return
        cur.beginEditBlock()
        block = first
        while block.isValid():
            edit = QtGui.QTextCursor(block)
            if more:
                edit.insertText(INDENT)
            else:
                text = block.text()
                n = min(len(INDENT), len(text) - len(text.lstrip(" ")))
                edit.movePosition(QtGui.QTextCursor.MoveOperation.Right,
                                  QtGui.QTextCursor.MoveMode.KeepAnchor, n)
                edit.removeSelectedText()
            if block == last:
                break
            block = block.next()
        cur.endEditBlock()

    # -- completion --------------------------------------------------------------------------

    def complete(self, force: bool = False) -> bool:
        """Show the completions at the cursor (with ``force``, even with nothing typed yet);
        True when the popup is shown."""
        popup = self._popup()
        found = None
        if self.completions is not None and not self.textCursor().hasSelection():
            text, code = self._code()
            pos = _from_utf16(text, self.textCursor().position())
            end = pos
            while end < len(text) and (text[end].isalnum() or text[end] == "_"):
                end += 1
            in_code = pos == 0 or code[pos - 1] != _NOT_CODE
            if in_code and end == pos:  # not inside a string or comment, nor mid-word
                found = self.completions.complete(code[:pos])
        if found is None or not (force or found[2] or found[0]):
            popup.hide()
            return False
        prefix, words, _ = found
        model = self.completer.model()
        assert isinstance(model, QtCore.QStringListModel)
        if model.stringList() != words:
            model.setStringList(words)
        self.completer.setCompletionPrefix(prefix)
        count = self.completer.completionCount()
        if count == 0 or (count == 1 and self.completer.currentCompletion() == prefix):
            popup.hide()
            return False
        popup.setFont(self.font())
        popup.setCurrentIndex(self.completer.completionModel().index(0, 0))
        rect = self.cursorRect()
        rect.setWidth(popup.sizeHintForColumn(0) + popup.verticalScrollBar().sizeHint().width()
                      + 2 * popup.frameWidth())
        self.completer.complete(rect)
        return True

    def completion_words(self) -> list[str]:
        """The completions the popup offers now (for tests)."""
        model = self.completer.completionModel()
        return [model.index(i, 0).data() for i in range(model.rowCount())]

    @QtCore.Slot(str)
    def insert_completion(self, word: str) -> None:
        cur = self.textCursor()
        prefix = self.completer.completionPrefix()
        cur.movePosition(QtGui.QTextCursor.MoveOperation.Left,
                         QtGui.QTextCursor.MoveMode.KeepAnchor,
                         len(prefix.encode("utf-16-le")) // 2)
        cur.insertText(word)
        self.setTextCursor(cur)
