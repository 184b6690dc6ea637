"""The Memory panel's scene items: :class:`BytesItem` (an allocation's byte row) and
:class:`LaneItem` (one value's footprint on it), painted from the plain model in
:mod:`tensor_explorer.core.memory_drawing` (:func:`~tensor_explorer.core.memory_drawing.
compute_model`, :class:`~tensor_explorer.core.memory_drawing.StripGeometry`). Both items paint
themselves and only what lies in the exposed rectangle; text is painted as text, so SVG exports
keep it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from ..core.memory_drawing import LaneModel, StripGeometry, StripModel, human_bytes
from . import theme

__all__ = ["BytesItem", "LaneItem", "Palette", "palette_for"]


@dataclass
class Palette:
    """Colours and fonts for one drawing (from the current theme and scale)."""

    text: QtGui.QColor
    muted: QtGui.QColor
    border: QtGui.QColor
    base: QtGui.QColor
    alt: QtGui.QColor
    accent: QtGui.QColor
    highlight_text: QtGui.QColor
    warning: QtGui.QColor
    series: list[QtGui.QColor]
    font: QtGui.QFont
    small: QtGui.QFont
    bold: QtGui.QFont
    scale: float

    def colour(self, i: int) -> QtGui.QColor:
        return self.series[i % len(self.series)]


def palette_for(base: QtGui.QFont) -> Palette:
    """The colours of the current theme, and fonts from ``base`` at the current text size."""
    t = theme.current()
    s = theme.state().scale
    c = QtGui.QColor
    font = QtGui.QFont(base)
    font.setPointSizeF(9.0 * s)
    small = QtGui.QFont(base)
    small.setPointSizeF(max(8.0 * s, theme.min_point_size()))
    bold = QtGui.QFont(base)
    bold.setPointSizeF(10.0 * s)
    bold.setBold(True)
    return Palette(c(t.text), c(t.muted), c(t.border), c(t.base), c(t.alt_base), c(t.accent),
                   c(t.highlight_text), c(t.warning), [c(x) for x in t.series], font, small,
                   bold, s)


def _cell_text_fits(fm: QtGui.QFontMetricsF, text: str, w: float) -> bool:
    return fm.horizontalAdvance(text) + 4 <= w


class BytesItem(QtWidgets.QGraphicsItem):
    """The allocation's bytes: one box per ``unit`` bytes (cells) or a bar with a byte scale
    (ranges); the bytes under the hovered element are lit."""

    def __init__(self, strip: StripModel, geom: StripGeometry, pal: Palette, height: float,
                 used: np.ndarray | None) -> None:
        super().__init__()
        self.strip, self.geom, self.pal, self.h = strip, geom, pal, height
        self.used = used  # ranges mode: bytes covered by any value, per bin
        self.lit: tuple[int, int] | None = None
        self.setAcceptHoverEvents(False)

    def boundingRect(self) -> QtCore.QRectF:
        return QtCore.QRectF(self.geom.x0 - 1, -1, self.geom.drawn_width + 2, self.h + 2)

    def paint(self, p: QtGui.QPainter, option: Any, widget: Any = None) -> None:
        g, pal = self.geom, self.pal
        p.setFont(pal.small)
        fm = QtGui.QFontMetricsF(pal.small)
        box_h = self.h * 0.55
        if g.mode == "cells":
            cell_w = g.unit * g.px_per_byte
            exposed = option.exposedRect if option is not None else self.boundingRect()
            first = max(0, int((exposed.left() - g.x0) / cell_w) - 1)
            last = min(g.cells, int((exposed.right() - g.x0) / cell_w) + 2)
            step = max(1, math.ceil((fm.horizontalAdvance("0000") + 6) / cell_w))
            for c in range(first, last):
                b = g.lo + c * g.unit
                r = QtCore.QRectF(g.x(b), 0, cell_w, box_h)
                lit = self.lit is not None and self.lit[0] <= b < self.lit[1]
                p.setPen(QtGui.QPen(pal.border, 1))
                p.setBrush(pal.accent if lit else pal.base)
                p.drawRect(r)
                if g.unit > 1 and g.px_per_byte >= 4:  # byte ticks inside the cell
                    p.setPen(QtGui.QPen(pal.border, 0.5))
                    for k in range(1, g.unit):
                        x = r.left() + k * g.px_per_byte
                        p.drawLine(QtCore.QPointF(x, box_h * 0.65), QtCore.QPointF(x, box_h))
                if c % step == 0:
                    p.setPen(pal.muted)
                    p.drawText(QtCore.QRectF(r.left(), box_h, cell_w * step, self.h - box_h),
                               QtCore.Qt.AlignmentFlag.AlignLeft
                               | QtCore.Qt.AlignmentFlag.AlignVCenter, f"{b}")
        else:
            r = QtCore.QRectF(g.x0, 0, g.drawn_width, box_h)
            p.setPen(QtGui.QPen(pal.border, 1))
            p.setBrush(pal.base)
            p.drawRect(r)
            if self.lit is not None:
                x0, x1 = g.x(self.lit[0]), max(g.x(self.lit[1]), g.x(self.lit[0]) + 2)
                p.fillRect(QtCore.QRectF(x0, 0, x1 - x0, box_h), pal.accent)
            p.setPen(pal.muted)
            for k in range(5):
                b = g.lo + (g.hi - g.lo) * k // 4
                x = g.x(b)
                p.drawLine(QtCore.QPointF(x, box_h), QtCore.QPointF(x, box_h + 3))
                text = human_bytes(b)
                tw = fm.horizontalAdvance(text)
                tx = min(max(x - tw / 2, g.x0), g.x0 + g.drawn_width - tw)
                p.drawText(QtCore.QPointF(tx, box_h + 3 + fm.ascent()), text)


class LaneItem(QtWidgets.QGraphicsItem):
    """One value's footprint: its elements as cells on the bytes they occupy (value written
    inside, ×N marks where several elements read the same bytes), or covered ranges."""

    def __init__(self, lane: LaneModel, geom: StripGeometry, pal: Palette, height: float,
                 changed_cells: set[int] | None = None) -> None:
        super().__init__()
        self.lane, self.geom, self.pal, self.h = lane, geom, pal, height
        self.lit: set[int] = set()  # strip offsets of lit elements (cells mode)
        self.lit_range: tuple[int, int] | None = None  # lit bytes (ranges mode)
        self.hovered: int | None = None
        self.changed_cells = changed_cells or set()
        lane.detail()
        self._density: np.ndarray | None = None
        self._edges: np.ndarray | None = None
        self._runs: tuple[np.ndarray, np.ndarray] | None = None
        if geom.mode == "ranges":
            self._edges = geom.bins()
            fp = lane.footprint
            if fp is not None and len(self._edges) > 1:
                below = fp.below_many(self._edges - lane.delta)
                width = np.diff(self._edges).astype(np.float64)
                self._density = np.diff(below) / np.maximum(width, 1)
        elif lane.cell_offsets is None and lane.footprint is not None:
            try:
                s, e = lane.footprint.runs(geom.lo - lane.delta, geom.hi - lane.delta, 20_000)
                self._runs = (s + lane.delta, e + lane.delta)
            except ValueError:
                self._runs = None

    def boundingRect(self) -> QtCore.QRectF:
        return QtCore.QRectF(self.geom.x0 - 2, -2, self.geom.drawn_width + 4, self.h + 4)

    def visible_cells(self) -> list[tuple[int, int]]:
        """(index into the lane's cell arrays, strip offset) of cells in the window."""
        lane, g = self.lane, self.geom
        if lane.cell_offsets is None:
            return []
        lo = int(np.searchsorted(lane.cell_offsets, g.lo - lane.itemsize, side="right"))
        hi = int(np.searchsorted(lane.cell_offsets, g.hi, side="left"))
        return [(i, int(lane.cell_offsets[i])) for i in range(lo, hi)]

    def paint(self, p: QtGui.QPainter, option: Any, widget: Any = None) -> None:
        lane, g, pal = self.lane, self.geom, self.pal
        colour = pal.colour(lane.colour)
        light = QtGui.QColor(colour)
        light.setAlphaF(0.28)
        if g.mode == "ranges":
            self._paint_ranges(p, colour)
            return
        fm = QtGui.QFontMetricsF(pal.font)
        fm_small = QtGui.QFontMetricsF(pal.small)
        if lane.cell_offsets is None:  # a large value, zoomed in: covered runs
            if self._runs is not None:
                p.setPen(QtGui.QPen(colour.darker(130), 1))
                p.setBrush(light)
                for s, e in zip(*self._runs, strict=True):
                    p.drawRect(QtCore.QRectF(g.x(s), 0, (e - s) * g.px_per_byte, self.h))
            return
        exposed = option.exposedRect if option is not None else self.boundingRect()
        for i, off in self.visible_cells():
            r = QtCore.QRectF(g.x(off), 0, lane.itemsize * g.px_per_byte, self.h)
            if r.right() < exposed.left() or r.left() > exposed.right():
                continue
            lit = off in self.lit
            mult = int(lane.cell_mult[i]) if lane.cell_mult is not None else 1
            if lit:
                p.setBrush(colour)
                p.setPen(QtGui.QPen(pal.accent if off != self.hovered else pal.text,
                                    2.5 * pal.scale))
            else:
                p.setBrush(light)
                p.setPen(QtGui.QPen(colour.darker(120), 1))
            p.drawRect(r.adjusted(1, 1, -1, -1))
            if off in self.changed_cells:
                p.setPen(QtGui.QPen(pal.warning, 2 * pal.scale, QtCore.Qt.PenStyle.DashLine))
                p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
                p.drawRect(r.adjusted(3, 3, -3, -3))
            text = lane.cell_text[i] if lane.cell_text is not None else ""
            p.setPen(pal.highlight_text if lit else pal.text)
            if text and _cell_text_fits(fm, text, r.width()):
                p.setFont(pal.font)
                p.drawText(r, QtCore.Qt.AlignmentFlag.AlignCenter, text)
            if mult > 1:
                mark = f"×{mult}"
                p.setFont(pal.small)
                mw = fm_small.horizontalAdvance(mark)
                if mw + 2 <= r.width():
                    p.setPen(pal.warning if not lit else pal.highlight_text)
                    p.drawText(QtCore.QPointF(r.right() - mw - 3, r.top() + fm_small.ascent()),
                               mark)

    def _paint_ranges(self, p: QtGui.QPainter, colour: QtGui.QColor) -> None:
        g, dens, edges = self.geom, self._density, self._edges
        if dens is None or edges is None:
            return
        levels = np.where(dens > 0, np.clip(np.ceil(dens * 4), 1, 4), 0).astype(np.int64)
        change = np.flatnonzero(np.diff(levels)) + 1
        starts = np.concatenate(([0], change))
        ends = np.concatenate((change, [len(levels)]))
        p.setPen(QtCore.Qt.PenStyle.NoPen)
        for s, e in zip(starts, ends, strict=True):
            level = int(levels[s])
            if level == 0:
                continue
            c = QtGui.QColor(colour)
            c.setAlphaF(0.25 + 0.1875 * level)  # sparse (strided) coverage is lighter
            x0, x1 = g.x(int(edges[s])), g.x(int(edges[e]))
            p.fillRect(QtCore.QRectF(x0, 0, max(x1 - x0, 1.0), self.h), c)
        p.setPen(QtGui.QPen(self.pal.border, 1))
        p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        p.drawRect(QtCore.QRectF(g.x0, 0, g.drawn_width, self.h))
        if self.lit_range is not None:
            x0 = g.x(self.lit_range[0])
            x1 = max(g.x(self.lit_range[1]), x0 + 2)
            p.setPen(QtGui.QPen(self.pal.accent, 2.5 * self.pal.scale))
            p.drawRect(QtCore.QRectF(x0, 0, x1 - x0, self.h))

    def cell_at(self, x: float) -> int | None:
        """Strip offset of the element drawn under scene x (cells mode, small values)."""
        lane, g = self.lane, self.geom
        if g.mode != "cells" or lane.cell_offsets is None:
            return None
        byte = g.byte_at(x)
        i = int(np.searchsorted(lane.cell_offsets, byte, side="right")) - 1
        if i >= 0 and int(lane.cell_offsets[i]) <= byte < int(lane.cell_offsets[i]) + lane.itemsize:
            return int(lane.cell_offsets[i])
        return None
