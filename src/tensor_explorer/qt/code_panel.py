"""Code panel: the PyTorch code equivalent to the session, copyable and savable as a script."""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtGui, QtWidgets

from .bridge import WorkspaceBridge


class CodePanel(QtWidgets.QWidget):
    """Shows ``workspace.to_script()``, kept up to date; Copy and Save as .py."""

    def __init__(self, bridge: WorkspaceBridge, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("CodePanel")
        self.bridge = bridge
        self.text = QtWidgets.QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setFont(QtGui.QFontDatabase.systemFont(
            QtGui.QFontDatabase.SystemFont.FixedFont))
        copy = QtWidgets.QPushButton(self.tr("Copy"))
        copy.clicked.connect(self.copy)
        save = QtWidgets.QPushButton(self.tr("Save as .py…"))
        save.clicked.connect(self.save_dialog)
        row = QtWidgets.QHBoxLayout()
        row.addStretch(1)
        row.addWidget(copy)
        row.addWidget(save)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.text, 1)
        layout.addLayout(row)
        bridge.modified.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        self.text.setPlainText(self.bridge.workspace.to_script())

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
