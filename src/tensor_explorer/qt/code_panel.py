"""Code panel: the PyTorch code equivalent to the session, copyable and savable as a script."""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtWidgets

from . import theme
from .bridge import WorkspaceBridge


class CodePanel(QtWidgets.QWidget):
    """Shows ``workspace.to_script()``, kept up to date; Copy and Save as .py."""

    def __init__(self, bridge: WorkspaceBridge, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("CodePanel")
        self.bridge = bridge
        self.text = QtWidgets.QPlainTextEdit()
        self.text.setReadOnly(True)
        theme.use_mono_font(self.text)
        self.copy_button = QtWidgets.QPushButton()
        self.copy_button.clicked.connect(self.copy)
        self.save_button = QtWidgets.QPushButton()
        self.save_button.clicked.connect(self.save_dialog)
        self._set_texts()
        row = QtWidgets.QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.copy_button)
        row.addWidget(self.save_button)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.text, 1)
        layout.addLayout(row)
        bridge.modified.connect(self.refresh)
        self.refresh()

    def _set_texts(self) -> None:
        self.copy_button.setText(self.tr("Copy"))
        self.save_button.setText(self.tr("Save as .py…"))

    def retranslate(self) -> None:
        """Show the buttons in the language just installed (the script is code: it stays, and
        so does its scroll position)."""
        self._set_texts()

    def refresh(self) -> None:
        """Show the script again, keeping the reader's place: at the end when they were there
        (the lines just added, such as the graph pane's ``loss.backward()``), else where they
        were."""
        script = self.bridge.workspace.to_script()
        if script == self.text.toPlainText():
            return
        bar = self.text.verticalScrollBar()
        at_end = bar.value() >= bar.maximum() > 0
        where = bar.value()
        self.text.setPlainText(script)
        bar.setValue(bar.maximum() if at_end else where)

    def script(self) -> str:
        return self.text.toPlainText()

    def copy(self) -> None:
        QtWidgets.QApplication.clipboard().setText(self.script())

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.script(), encoding="utf-8")

    def save_dialog(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self, self.tr("Save script"), "session.py", self.tr("Python (*.py)"))
        if path:
            try:
                self.save(path)
            except OSError as exc:
                QtWidgets.QMessageBox.warning(self, self.tr("Save script"),
                                              self.tr("Could not save: {0}").format(exc))
