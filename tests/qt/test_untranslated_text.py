"""No English sentence reaches a widget without a Chinese entry (issue #19, point 1).

``test_i18n.py`` checks that every text passed to ``tr()``/``translate()`` is in the catalog and
translated. This test finds the texts that never go through it: a string literal (or the literal
parts of an f-string) handed straight to a widget's text setter or constructor in
``tensor_explorer.qt``. Names a person reads as code (``retain_graph``, ``meta``) and the
product's name are listed below; markup is ignored.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import tensor_explorer.qt as qt_package

#: methods whose first arguments are text a person reads
SETTERS = {
    "setText", "setToolTip", "setStatusTip", "setPlaceholderText", "setWindowTitle",
    "showMessage", "setTitle", "addItem", "addItems", "setHtml", "setPlainText", "setWhatsThis",
    "addMenu", "addTab", "setTabText", "setHeaderLabels", "setLabelText", "information",
    "warning", "critical", "question", "about", "setItemText", "insertItem", "setSuffix",
    "setPrefix", "setSpecialValueText", "setAccessibleName",
}
#: widgets whose constructor's first argument is their text
CONSTRUCTORS = {"QLabel", "QPushButton", "QCheckBox", "QAction", "QGroupBox", "QRadioButton",
                "QToolButton", "QMenu"}
#: read as they are in every language: the product's name and Python/torch names
AS_WRITTEN = {"Tensor Explorer", "meta", "retain_graph", "zero_grad", "set_to_none",
              "retain_grad:"}
#: loggers: what they write goes to the log, not the window
_LOGS = {"log", "_log", "logger", "logging"}
_MARKUP = re.compile(r"<[^>]*(>|$)|^[^<]*>|&\w+;|\{[^}]*\}|%[sd]")
_WORD = re.compile(r"\b[A-Za-z]{3,}\b")


def _literals(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.JoinedStr):
        for part in node.values:
            yield from _literals(part)
    elif isinstance(node, ast.BinOp):
        yield from _literals(node.left)
        yield from _literals(node.right)


def _untranslated(path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = (func.attr if isinstance(func, ast.Attribute)
                else func.id if isinstance(func, ast.Name) else "")
        owner = func.value if isinstance(func, ast.Attribute) else None
        if isinstance(owner, ast.Name) and owner.id in _LOGS:
            continue  # the log, not the window
        if name not in SETTERS and name not in CONSTRUCTORS:
            continue
        english = [text for arg in node.args[:3] for text in _literals(arg)
                   if text.strip() not in AS_WRITTEN and _WORD.search(_MARKUP.sub(" ", text))]
        if english:
            yield f"{path.name}:{node.lineno}: {name}({english[0]!r})"


def test_no_english_text_goes_to_a_widget_untranslated() -> None:
    folder = Path(qt_package.__file__).parent
    found = [hit for path in sorted(folder.glob("*.py")) for hit in _untranslated(path)]
    assert not found, "wrap in self.tr()/translate() and translate it: " + "; ".join(found)


def test_the_check_finds_an_untranslated_text(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "label.setText('Select a value')\n"
        "QtWidgets.QPushButton(f'Run {name} now')\n"
        "label.setText(self.tr('Select a value'))\n"
        "label.setText(\"<span style='color:red'>\" + text + '</span>')\n"
        "_log.warning('could not write %s', path)\n"
        "QtWidgets.QMessageBox.warning(self, 'Tensor Explorer', self.tr('It failed'))\n"
        "QtWidgets.QMessageBox.warning(self, 'Tensor Explorer', 'It failed')\n",
        encoding="utf-8")
    found = list(_untranslated(sample))
    assert [hit.split(": ", 1)[0] for hit in found] == ["sample.py:1", "sample.py:2",
                                                          "sample.py:7"]
