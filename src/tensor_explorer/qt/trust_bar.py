"""The bar above a lesson or program from a file that runs restricted, with its Trust button
(as editors' restricted mode does it): what the user trusts is remembered by the file's content
(:mod:`..core.trust`)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6 import QtCore, QtGui, QtWidgets


class TrustBar(QtWidgets.QFrame):
    """"This … runs restricted" and a Trust button; hidden until :meth:`ask`."""

    trusted = QtCore.Signal()
    asked = QtCore.Signal()  # the bar was just shown (the window may make room for it)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("TrustBar")
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QtGui.QPalette.ColorRole.AlternateBase)
        self.label = QtWidgets.QLabel()
        self.label.setWordWrap(True)
        self.button = QtWidgets.QPushButton()
        self.button.clicked.connect(self.trusted.emit)
        row = QtWidgets.QHBoxLayout(self)
        row.setContentsMargins(8, 4, 8, 4)
        row.addWidget(self.label, 1)
        row.addWidget(self.button, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        self._what: Callable[[], str] | None = None
        self.retranslate()
        self.hide()

    def ask(self, what: Callable[[], str]) -> None:
        """Show the bar; ``what()`` says, in the current language, what runs restricted."""
        self._what = what
        self.retranslate()
        self.show()
        self.asked.emit()

    def dismiss(self) -> None:
        self._what = None
        self.hide()

    def retranslate(self) -> None:
        self.button.setText(self.tr("Trust and run again"))
        self.button.setToolTip(self.tr(
            "Run it as full Python (imports, files, everything), now and whenever this exact "
            "file is opened again"))
        if self._what is not None:
            self.label.setText(self._what())
