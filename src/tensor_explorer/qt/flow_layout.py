"""A layout that places its items left to right and wraps them onto the next line when the
width runs out, so a row of controls never clips or elides at a large text size (presentation
mode) or in a narrow dock.

Written by hand: Qt has no flow layout class, only an example in its documentation
("Flow Layout Example"), which this follows; neither PySide6 nor pyqtgraph ships one.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets


class FlowLayout(QtWidgets.QLayout):
    """Items in reading order, wrapped at the layout's width; heightForWidth tells the parent
    how tall the wrapped lines are."""

    def __init__(self, parent: QtWidgets.QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QtWidgets.QLayoutItem] = []
        self._spacing = spacing
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QtWidgets.QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QtWidgets.QLayoutItem | None:  # type: ignore[override]
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QtWidgets.QLayoutItem | None:  # type: ignore[override]
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> QtCore.Qt.Orientation:
        return QtCore.Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._place(QtCore.QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QtCore.QRect) -> None:
        super().setGeometry(rect)
        self._place(rect, move=True)

    def sizeHint(self) -> QtCore.QSize:
        """One line, as wide as every item side by side."""
        width = sum(i.sizeHint().width() for i in self._visible()) + self._spacing * max(
            len(self._visible()) - 1, 0)
        height = max((i.sizeHint().height() for i in self._visible()), default=0)
        m = self.contentsMargins()
        return QtCore.QSize(width + m.left() + m.right(), height + m.top() + m.bottom())

    def minimumSize(self) -> QtCore.QSize:
        """As narrow as the widest item (everything else wraps)."""
        size = QtCore.QSize()
        for item in self._visible():
            size = size.expandedTo(item.minimumSize().expandedTo(item.sizeHint()))
        m = self.contentsMargins()
        return size + QtCore.QSize(m.left() + m.right(), m.top() + m.bottom())

    def _visible(self) -> list[QtWidgets.QLayoutItem]:
        out = []
        for item in self._items:
            widget = item.widget()
            if widget is None or not widget.isHidden():
                out.append(item)
        return out

    def _place(self, rect: QtCore.QRect, *, move: bool) -> int:
        """Lay the items out in ``rect`` (only measure unless ``move``); returns the height."""
        m = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        x, y, line = area.x(), area.y(), 0
        row: list[tuple[QtWidgets.QLayoutItem, QtCore.QSize]] = []

        def finish_row() -> None:
            for item, size in row:
                if move:  # each item centred vertically on its line
                    pos = item.geometry().topLeft()
                    item.setGeometry(QtCore.QRect(
                        QtCore.QPoint(pos.x(), y + (line - size.height()) // 2), size))

        for item in self._visible():
            size = item.sizeHint().boundedTo(QtCore.QSize(area.width(), 1 << 20))
            size = size.expandedTo(item.minimumSize())
            if row and x + size.width() > area.right() + 1:
                finish_row()
                row = []
                x, y, line = area.x(), y + line + self._spacing, 0
            if move:
                item.setGeometry(QtCore.QRect(QtCore.QPoint(x, y), size))
            row.append((item, size))
            x += size.width() + self._spacing
            line = max(line, size.height())
        finish_row()
        return y + line - rect.y() + m.bottom()


def together(*widgets: QtWidgets.QWidget) -> QtWidgets.QWidget:
    """Widgets kept side by side on one line of a wrapping row (a label and its field)."""
    if len(widgets) == 1:
        return widgets[0]
    box = QtWidgets.QWidget()
    row = QtWidgets.QHBoxLayout(box)
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(4)
    for w in widgets:
        row.addWidget(w)
    return box
