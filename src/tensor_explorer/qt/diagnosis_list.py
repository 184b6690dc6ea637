"""The Inspector's diagnoses (:func:`~tensor_explorer.core.diagnose.diagnose`), under its facts:
each diagnosis its own label, titled in plain words and coloured by its severity, its stable
code in the tooltip; one line instead when there is none (or the statistics failed).

Owned by :class:`~tensor_explorer.qt.inspector_panel.InspectorPanel`; its texts are translated
in that panel's context.
"""

from __future__ import annotations

import html

from PySide6 import QtCore, QtGui, QtWidgets

from ..core.diagnose import Diagnosis
from . import theme

translate = QtCore.QCoreApplication.translate

#: a diagnosis's mark by severity (glyphs in DejaVu Sans)
ICONS = {"error": "✖", "warning": "⚠", "info": "ℹ"}


class DiagnosisList(QtWidgets.QScrollArea):
    """The diagnoses of the value shown, or one line of news (:meth:`show_message`)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        #: the one line shown when there is no diagnosis to list
        self.message = QtWidgets.QLabel()
        self.message.setWordWrap(True)
        self.message.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.message.setAlignment(QtCore.Qt.AlignmentFlag.AlignTop)
        self.message.setTextInteractionFlags(
            QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.box = QtWidgets.QWidget()
        layout = QtWidgets.QVBoxLayout(self.box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.message)
        layout.addStretch(1)
        self._labels: list[QtWidgets.QLabel] = []
        self.setWidgetResizable(True)
        self.setWidget(self.box)
        self.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)

    def clear(self) -> None:
        """Nothing shown: no diagnosis, an empty line."""
        self.message.clear()
        self.message.show()
        layout = self.box.layout()
        for label in self._labels:
            if layout is not None:
                layout.removeWidget(label)
            label.deleteLater()
        self._labels = []

    def show_message(self, text: str) -> None:
        """One line of plain text instead of the diagnoses."""
        self.clear()
        self.message.setText(html.escape(text))

    def show_diagnoses(self, diags: list[Diagnosis]) -> None:
        """Each of ``diags`` in its own label; a green line when there is none."""
        t = theme.current()
        self.clear()
        if not diags:
            fine = translate("InspectorPanel", "No common mistakes found.")
            self.message.setText(f"<span style='color:{t.ok}'>✓ {html.escape(fine)}</span>")
            return
        self.message.hide()
        color = {"error": t.error, "warning": t.warning, "info": t.info}
        layout = self.box.layout()
        assert isinstance(layout, QtWidgets.QVBoxLayout)
        for i, d in enumerate(diags):
            label = QtWidgets.QLabel(
                f"<p style='margin:2px 0 6px 0'><span style='color:{color[d.severity]}'>"
                f"{ICONS[d.severity]} <b>{html.escape(d.title or d.code)}</b></span><br>"
                f"{html.escape(d.message)}</p>")
            label.setObjectName("diagnosis")
            label.setWordWrap(True)
            label.setTextFormat(QtCore.Qt.TextFormat.RichText)
            label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
            label.setToolTip(d.code)  # the stable code, for searching and bug reports
            label.setProperty("code", d.code)
            layout.insertWidget(1 + i, label)
            self._labels.append(label)

    def shown(self) -> list[tuple[str, str]]:
        """(displayed text, tooltip) of every diagnosis shown."""
        doc = QtGui.QTextDocument()
        out = []
        for label in self._labels:
            doc.setHtml(label.text())
            out.append((doc.toPlainText(), label.toolTip()))
        return out
