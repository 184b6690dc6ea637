"""The numbers drawn in the cells of the Values panel's heatmap: when few cells are in view
(at most :data:`MAX_CELL_LABELS`) and each is large enough on screen for its text, each gets
its number, in black or white to read on its colour. Owned by :class:`.ValuesPanel`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from ..core import preview, values_view
from ..core.preview import Plane
from . import theme

if TYPE_CHECKING:
    from .values_panel import ValuesPanel

#: at most this many cells in view get their number drawn in the heatmap
MAX_CELL_LABELS = 400


class CellLabels(QtCore.QObject):
    """The cell numbers of ``panel``'s heatmap (:attr:`items`), placed again 15 ms after the
    view last moved or was resized (:attr:`timer`; start it to place them again)."""

    def __init__(self, panel: ValuesPanel) -> None:
        super().__init__(panel)
        self._panel = panel
        self.items: list[pg.TextItem] = []
        self.timer = QtCore.QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(15)
        self.timer.timeout.connect(self.update)
        box = panel.heat_item.getViewBox()
        box.sigRangeChanged.connect(self.timer.start)
        box.sigResized.connect(self.timer.start)

    def shown(self) -> dict[tuple[int, int], str]:
        """(row, column) index along the displayed axes -> the number drawn in that cell."""
        return {item.cell: item.toPlainText() for item in self.items  # type: ignore[attr-defined]
                if item.isVisible()}

    @QtCore.Slot()
    def update(self) -> None:
        """Draw the number of every cell in view when there are at most
        :data:`MAX_CELL_LABELS` of them and each is large enough on screen for its text."""
        panel = self._panel
        plane = panel.heatmap.label_plane()
        if panel.current_view() != "heatmap" or plane is None or plane.data.ndim != 2:
            self._place(None, [])
            return
        box = panel.heat_item.getViewBox()
        (x0, x1), (y0, y1) = box.viewRange()
        cells = values_view.cells_in_view(plane, (x0, x1), (y0, y1))
        if cells is None or (cells[1] - cells[0] + 1) * (cells[3] - cells[2] + 1) > (
                MAX_CELL_LABELS):
            self._place(None, [])
            return
        r0, r1, c0, c1 = cells
        sr, sc = plane.steps
        cell_w = box.width() / (x1 - x0) * sc  # a cell's size on screen, in pixels
        cell_h = box.height() / (y1 - y0) * sr
        texts = [((r, c), preview.format_value(plane.raw[r, c], plane.dtype))
                 for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]
        fm = QtGui.QFontMetrics(panel.font())
        widest = max(fm.horizontalAdvance(text) for _, text in texts)
        if cell_w < widest + 6 or cell_h < fm.height() + 2:
            self._place(None, [])
            return
        self._place(plane, texts)

    def _place(self, plane: Plane | None, texts: list[tuple[tuple[int, int], str]]) -> None:
        panel = self._panel
        while len(self.items) < len(texts):
            item = pg.TextItem(anchor=(0.5, 0.5))
            item.setZValue(20)
            panel.heat_item.addItem(item)
            self.items.append(item)
        for item in self.items[len(texts):]:
            item.hide()
        if not texts or plane is None:
            return
        t = theme.current()
        lo, hi = panel.heatmap.levels()
        cmap = pg.colormap.get(t.colormap)
        sr, sc = plane.steps
        o_r, o_c = plane.start(0), plane.start(1)
        font = QtGui.QFont(panel.font())
        for item, ((r, c), text) in zip(self.items, texts, strict=False):
            key = values_view.nonfinite_key(plane, (r, c))
            if key is not None:
                back = QtGui.QColor(getattr(t, key))
            else:
                v = float(plane.data[r, c])
                back = cmap.map(min(1.0, max(0.0, (v - lo) / (hi - lo))) if hi > lo else 0.5,
                                mode="qcolor")
            dark = 0.299 * back.red() + 0.587 * back.green() + 0.114 * back.blue() > 140
            item.setColor("#000000" if dark else "#ffffff")
            item.setFont(font)
            item.setText(text)
            item.cell = (o_r + r * sr, o_c + c * sc)  # type: ignore[attr-defined]
            item.setPos(o_c + (c + 0.5) * sc - 0.5, o_r + (r + 0.5) * sr - 0.5)
            item.show()
