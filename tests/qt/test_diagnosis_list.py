"""The Inspector's diagnoses list: one label per diagnosis (title, message, code in the tooltip),
a green line when there is none, one line of news instead, and nothing left over between
values."""

from __future__ import annotations

from PySide6 import QtWidgets
from pytestqt.qtbot import QtBot

from tensor_explorer.core.diagnose import Diagnosis
from tensor_explorer.qt import i18n, theme
from tensor_explorer.qt.diagnosis_list import DiagnosisList

NAN = Diagnosis("nonfinite", "error", "x holds 2 NaN values.", "Not-a-number values")
FLOAT64 = Diagnosis("float64", "info", "x is float64; models usually want float32.")


def labels(widget: DiagnosisList) -> list[QtWidgets.QLabel]:
    return widget.box.findChildren(QtWidgets.QLabel, "diagnosis")


def test_each_diagnosis_is_a_label_with_its_code(qtbot: QtBot) -> None:
    widget = DiagnosisList()
    qtbot.addWidget(widget)
    widget.show_diagnoses([NAN, FLOAT64])
    assert widget.shown() == [
        ("✖ Not-a-number values\nx holds 2 NaN values.", "nonfinite"),
        ("ℹ float64\nx is float64; models usually want float32.", "float64"),  # no title: code
    ]
    assert [label.property("code") for label in labels(widget)] == ["nonfinite", "float64"]
    assert theme.current().error in labels(widget)[0].text()
    assert widget.message.isHidden()


def test_none_found_is_one_green_line(qtbot: QtBot) -> None:
    widget = DiagnosisList()
    qtbot.addWidget(widget)
    widget.show_diagnoses([NAN])
    widget.show_diagnoses([])
    assert widget.shown() == []
    assert not widget.message.isHidden()
    assert "No common mistakes found." in widget.message.text()
    assert theme.current().ok in widget.message.text()


def test_none_found_in_chinese(qtbot: QtBot) -> None:
    widget = DiagnosisList()
    qtbot.addWidget(widget)
    i18n.install("zh")
    widget.show_diagnoses([])
    assert "No common mistakes found." not in widget.message.text()
    assert widget.message.text().count("✓") == 1


def test_a_message_replaces_the_diagnoses_and_is_escaped(qtbot: QtBot) -> None:
    widget = DiagnosisList()
    qtbot.addWidget(widget)
    widget.show_diagnoses([NAN, FLOAT64])
    widget.show_message("Statistics failed: <boom>")
    assert widget.shown() == []
    assert widget.message.text() == "Statistics failed: &lt;boom&gt;"
    widget.clear()
    assert widget.message.text() == "" and widget.shown() == []
