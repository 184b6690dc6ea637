"""The window's status bar: a long message never runs into the value counter.

``QStatusBar`` draws a temporary message without clipping it, so a long one ("… colour range
1–99 %") was painted over the permanent value counter at its right ("…colo9 values —
selected: c"). This bar shows a message elided to the room left of its permanent widgets (the
whole text in its tooltip), and elides it again when the window is resized.
"""

from __future__ import annotations

import time

from PySide6 import QtCore, QtGui, QtWidgets


class StatusBar(QtWidgets.QStatusBar):
    """A status bar whose temporary messages fit beside its permanent widgets."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        self._until: float | None = None  # when the message goes (None: when replaced)
        self._permanent: list[QtWidgets.QWidget] = []
        self.messageChanged.connect(self._changed)

    def addPermanentWidget(self, widget: QtWidgets.QWidget, stretch: int | None = 0) -> None:
        self._permanent.append(widget)
        super().addPermanentWidget(widget, stretch or 0)

    def showMessage(self, text: str, timeout: int | None = 0) -> None:
        timeout = timeout or 0
        self._full = text
        self._until = time.monotonic() + timeout / 1000 if timeout > 0 else None
        super().showMessage(self._elided(text), timeout)
        self.setToolTip(text if super().currentMessage() != text else "")

    def currentMessage(self) -> str:
        """The message as it was given (not as elided)."""
        shown = super().currentMessage()
        return self._full if shown and shown == self._elided(self._full) else shown

    def room(self) -> int:
        """The width a message may take: left of the permanent widgets."""
        shown = [w for w in self._permanent if w.isVisible()]
        if shown and all(w.geometry().width() > 0 for w in shown):  # laid out: where they are
            return max(0, min(w.geometry().left() for w in shown) - 20)
        used = sum(w.sizeHint().width() + 12 for w in shown)
        return max(0, self.width() - used - 28)

    def _elided(self, text: str) -> str:
        metrics = QtGui.QFontMetrics(self.font())
        return metrics.elidedText(text, QtCore.Qt.TextElideMode.ElideRight, self.room())

    def _changed(self, shown: str) -> None:
        if not shown:
            self._full = ""
            self.setToolTip("")

    def resizeEvent(self, e: QtGui.QResizeEvent) -> None:
        super().resizeEvent(e)
        QtCore.QTimer.singleShot(0, self, self._elide_again)  # once the layout has moved

    def _elide_again(self) -> None:
        if self._full and super().currentMessage():
            left = (0 if self._until is None
                    else max(1, int((self._until - time.monotonic()) * 1000)))
            super().showMessage(self._elided(self._full), left)
