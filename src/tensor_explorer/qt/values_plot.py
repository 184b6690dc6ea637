"""The Values panel's drawings of a 0-d and a 1-d plane: the big number and the line plot (its
NaN/Inf marks, a date axis for dates, the index under the pointer).

Owned by :class:`.ValuesPanel`, which tells them what to draw; texts are translated in the
panel's context (``"ValuesPanel"``).
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ..core import preview, values_view
from ..core.preview import Plane
from . import theme
from .values_status import part_text

_PLOT_SYMBOLS_UP_TO = 200  # 1-d plots mark every point when there are at most this many
_WIDE_LINE_UP_TO = 100  # longer lines are drawn 1 pixel wide (fast)


def draw_scalar(label: QtWidgets.QLabel, plane: Plane, part: str) -> None:
    """Show the one element of a 0-d ``plane`` in ``label``, large (and, for a complex
    number, the ``part`` drawn)."""
    t = theme.current()
    text = preview.format_value(plane.raw[()], plane.dtype)
    colour = t.text
    key = values_view.nonfinite_key(plane, ())
    if key is not None:
        colour = getattr(t, key)
    size = round(32 * theme.state().scale)
    rich = html.escape(text)
    if plane.kind == "complex":
        shown = f"{part_text(part)} = {preview.format_value(plane.data[()], 'float64')}"
        rich += (f'<br/><span style="font-size: {size // 2}pt; color: {t.muted}">'
                 f"{html.escape(shown)}</span>")
    label.setText(rich)
    label.setStyleSheet(f"color: {colour}; font-size: {size}pt;")


class ValuesPlot(QtCore.QObject):
    """The line plot of a 1-d plane: :attr:`widget` (its :attr:`item`, :attr:`curve` and the
    NaN/Inf :attr:`marks`). Emits :attr:`hovered` with the cell of :attr:`plane` (the plane
    drawn last) under the pointer (None when none), at most 30 times a second."""

    hovered = QtCore.Signal(object)

    def __init__(self, parent: QtCore.QObject) -> None:
        super().__init__(parent)
        self.plane: Plane | None = None  # the plane drawn last
        self.widget = pg.PlotWidget()
        self.item = self.widget.getPlotItem()
        self._number_axis = self.item.getAxis("left")
        self._date_axis = pg.DateAxisItem(orientation="left", utcOffset=0)  # NumPy's dates
        self.item.showGrid(x=True, y=True, alpha=0.25)
        self.item.setMenuEnabled(False)
        # draw at most ~2 points per pixel (min/max per bin, so spikes survive); only what is
        # in view: a 250k-point line then paints in milliseconds, not seconds
        self.item.setDownsampling(auto=True, mode="peak")
        self.item.setClipToView(True)
        self.curve = self.item.plot([], [], connect="finite")
        self.marks = pg.ScatterPlotItem()
        self.marks.setZValue(10)
        self.item.addItem(self.marks)
        # hover, rate-limited: the slot runs at most 30 times a second
        self._proxy = pg.SignalProxy(self.widget.scene().sigMouseMoved,
                                     rateLimit=30, slot=self._on_hover)

    def _left_axis(self, dates: bool) -> None:
        """The plot's value axis: dates and times for dates, numbers otherwise."""
        want = self._date_axis if dates else self._number_axis
        if self.item.getAxis("left") is not want:
            self.item.setAxisItems({"left": want})

    def draw(self, plane: Plane, part: str) -> None:
        """Draw the 1-d ``plane`` (``part``: the part of complex numbers it holds)."""
        self.plane = plane
        t = theme.current()
        x = plane.positions(0).astype(np.float64)
        y = np.where(np.isfinite(plane.data), plane.data, np.nan)
        seconds = values_view.date_seconds(plane)
        self._left_axis(seconds is not None)
        if seconds is not None:
            y = y * seconds  # POSIX seconds: the axis reads dates and times
        scale = theme.state().scale
        n = len(x)
        # Qt strokes wide antialiased lines very slowly (~0.5 ms a point): only short lines
        # get a width that grows with the presentation scale
        pen = pg.mkPen(t.series[0], width=1.6 * scale if n <= _WIDE_LINE_UP_TO else 1)
        symbols: dict[str, Any] = {}
        if n <= _PLOT_SYMBOLS_UP_TO:
            symbols = {"symbol": "o", "symbolSize": 5 * scale, "symbolPen": None,
                       "symbolBrush": t.series[0]}
        else:
            symbols = {"symbol": None}
        self.curve.setData(x, y, pen=pen, connect="finite", **symbols)
        lo = plane.lo if plane.lo is not None else 0.0
        hi = plane.hi if plane.hi is not None else 1.0
        if seconds is not None:
            lo, hi = lo * seconds, hi * seconds
        spots = []
        for key, mask, symbol, ypos in (("nan", plane.nan, "x", lo),
                                        ("posinf", plane.posinf, "t1", hi),
                                        ("neginf", plane.neginf, "t", lo)):
            colour = getattr(t, key)
            for i in np.flatnonzero(mask)[:10_000]:
                spots.append({"pos": (x[i], ypos), "symbol": symbol, "size": 12 * scale,
                              "brush": pg.mkBrush(colour), "pen": pg.mkPen(colour, width=2)})
        self.marks.setData(spots)
        self.label_axes(plane, part)
        self.item.enableAutoRange()

    def label_axes(self, plane: Plane, part: str) -> None:
        """The axis labels for the 1-d ``plane``."""
        self.item.setLabel("bottom", QtCore.QCoreApplication.translate("ValuesPanel", "index"))
        left = part_text(part) if plane.kind == "complex" else ""
        if plane.kind == "timedelta":  # durations: their integers count this unit
            unit, count = np.datetime_data(np.dtype(plane.dtype))
            left = f"{count} {unit}" if count != 1 else unit
        self.item.setLabel("left", left)

    def _on_hover(self, event: tuple[Any, ...]) -> None:
        plane = self.plane
        if plane is None or plane.data.ndim != 1:
            return
        pos = event[0]
        vb = self.item.getViewBox()
        if not vb.sceneBoundingRect().contains(pos):
            self.hovered.emit(None)
            return
        p = vb.mapSceneToView(pos)
        i = round(p.x() / plane.steps[0])
        self.hovered.emit((i,) if 0 <= i < plane.data.shape[0] else None)
