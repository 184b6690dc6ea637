"""The Memory panel's drawing: its rows laid out in slices, scene items made near the view.

:class:`MemoryLayout` belongs to one :class:`~tensor_explorer.qt.memory_panel.MemoryPanel`. It
lays the rows of the panel's model out from the top (a strip's caption and bytes, then a row per
value), :data:`LAYOUT_SECONDS` at a time, the rest in later turns of the event loop (the scene's
height estimated meanwhile); each row keeps the calls that make its scene items
(:class:`Block`), run once the row is near the visible part of the drawing. Its texts belong to
the panel's translation context ("MemoryPanel").
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import QCoreApplication

from ..core.catalog import text_in
from ..core.memory_drawing import LaneModel, StripGeometry, StripModel
from . import i18n, memory_texts, theme
from .memory_relations import SLICE_SECONDS
from .memory_view import BytesItem, LaneItem, Palette

if TYPE_CHECKING:
    from .memory_panel import MemoryPanel

translate = QCoreApplication.translate

#: drawings with at most this many rows (strip headers and values) get all their items at once
EAGER_BLOCKS = 120
#: scene items are made for this far above and below the visible part (pixels, at scale 1)
MATERIALIZE_MARGIN = 800
#: longest one turn of laying the drawing's rows out (the rest: next turns, one slice of
#: :class:`~.memory_relations.Slices` each), and the rows it lays out at least (a screenful)
LAYOUT_SECONDS = SLICE_SECONDS
LAYOUT_MIN_ROWS = 40


class Block:
    """One row of the drawing (a strip's header and box, or one value): where it lies, and
    the calls that make its scene items, run once it is near the visible part."""

    __slots__ = ("bottom", "lane", "made", "ops", "top")

    def __init__(self, top: float, lane: str | None = None) -> None:
        self.top, self.bottom, self.lane = top, top, lane
        self.made = False
        self.ops: list[Callable[[], object]] = []


@dataclass(frozen=True)
class _Frame:
    """The measures of one layout: fonts, margins, columns and row heights (scene pixels)."""

    pal: Palette
    margin: float
    avail: float  # the width inside the margins
    indent: float  # of a view under its parent
    x0: float  # where the cells start
    cells_w: float
    cell_h: float
    bytes_h: float
    line: float  # a line of small text
    fm: QtGui.QFontMetricsF
    fm_bold: QtGui.QFontMetricsF
    fm_small: QtGui.QFontMetricsF

    @property
    def s(self) -> float:
        return self.pal.scale

    @property
    def full_width(self) -> float:
        return self.avail + 2 * self.margin


class MemoryLayout:
    """The laid-out drawing of one Memory panel: its rows (``blocks``, ``lane_rows``: value
    name -> scene top, bottom), the scene items made so far (``lane_items``, ``bytes_items``),
    each strip's geometry and rectangle, and the layout still to do."""

    def __init__(self, panel: MemoryPanel) -> None:
        self.panel = panel
        self.scene = panel.scene
        self.view = panel.view
        self.blocks: list[Block] = []
        self.lane_rows: dict[str, tuple[float, float]] = {}
        self.lane_items: dict[str, LaneItem] = {}
        self.bytes_items: dict[int, BytesItem] = {}
        self.geoms: dict[int, StripGeometry] = {}
        self.strip_rects: dict[int, QtCore.QRectF] = {}
        self.rows: Iterator[tuple[int, int, float, float]] | None = None  # the layout to do
        self._name_widths: tuple[str, dict[str, float]] = ("", {})
        self.laid_width: int | None = None  # the width the drawing was laid out for

    def clear(self) -> None:
        """Nothing drawn, nothing left to lay out."""
        self.panel.slices.drop(self.more)
        self.rows = None
        self.scene.clear()
        self.lane_items, self.bytes_items = {}, {}
        self.blocks, self.lane_rows = [], {}

    def start(self) -> None:
        """Lay the panel's model out again: the first slice now, the rest in later turns."""
        self.panel.slices.drop(self.more)
        self.rows = self._layout()
        self.more(time.perf_counter() + LAYOUT_SECONDS)

    def is_laid_out(self) -> bool:
        return self.rows is None

    def width(self) -> int:
        """The width the drawing is laid out for: the view's, less a vertical scroll bar (so
        nothing moves, and nothing is laid out again, when the bar shows or hides)."""
        bar = self.view.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_ScrollBarExtent)
        return self.view.width() - 2 * self.view.frameWidth() - bar

    def more(self, deadline: float) -> bool:
        """A slice of laying rows out (until ``deadline``, perf_counter, and at least
        :data:`LAYOUT_MIN_ROWS` rows); True when rows are left for a later turn."""
        rows = self.rows
        if rows is None:
            return False
        count = 0
        while True:
            got = next(rows, None)
            if got is None:
                self.rows = None
                break
            count += 1
            if count >= LAYOUT_MIN_ROWS and time.perf_counter() > deadline:
                break
        if self.rows is not None and got is not None:
            # meanwhile the scene is as tall as the rows left would make it, at their mean
            done, left, width, y = got
            height = y + left * (y / max(done, 1))
            self.scene.setSceneRect(QtCore.QRectF(0, 0, width, height))
            self.panel.slices.want(self.more)
        self.materialize_visible()
        target = self.panel._scroll_to
        if target is not None and target in self.lane_rows:
            self.panel.scroll_to(target)
        return self.rows is not None

    # ------------------------------------------------------------------ scene items on demand

    def materialize_visible(self) -> None:
        """Make the items of the rows in view now, and of those near it (above and below, for
        scrolling) in later turns, a slice at a time."""
        if not self.blocks:
            return
        if self._eager():
            self.materialize(-math.inf, math.inf)
            return
        shown = self.view.mapToScene(self.view.viewport().rect()).boundingRect()
        self.materialize(shown.top(), shown.bottom())
        self.panel.slices.want(self._materialize_near)

    def _materialize_near(self, deadline: float) -> bool:
        """A slice: the items of the rows near the visible part; True when some are left."""
        if not self.blocks or self._eager():
            self.materialize_visible()
            return False
        shown = self.view.mapToScene(self.view.viewport().rect()).boundingRect()
        extra = shown.height() + MATERIALIZE_MARGIN * theme.state().scale
        return not self.materialize(shown.top() - extra, shown.bottom() + extra, deadline)

    def _eager(self) -> bool:
        """True when every row gets its items at once: a small drawing, all laid out (while
        it is laid out, the rows in view first, like a large one's)."""
        return len(self.blocks) <= EAGER_BLOCKS and self.rows is None

    def materialize(self, top: float, bottom: float, deadline: float | None = None) -> bool:
        """Make the items of the rows between scene ``top`` and ``bottom``; False when the
        ``deadline`` (perf_counter) came first."""
        made_lane = False
        finished = True
        for block in self.blocks:
            if block.made or block.bottom < top or block.top > bottom:
                continue
            if deadline is not None and time.perf_counter() > deadline:
                finished = False
                break
            block.made = True
            for op in block.ops:
                op()
            block.ops = []
            made_lane = made_lane or block.lane is not None
        hover = self.panel.hover
        if made_lane and hover.hovered is not None and hover.pos is None:
            hover.rehover(hover.hovered)  # light what is lit on the new rows too
        return finished

    def ensure_made(self, name: str) -> None:
        """The scene items of ``name``'s row, made now if they were not yet."""
        row = self.lane_rows.get(name)
        if row is not None and name not in self.lane_items:
            self.materialize(row[0], row[1])

    def _do(self, fn: Callable[..., object], *args: object) -> None:
        """Make a scene item now, or, while the rows are laid out, when its row is first near
        the visible part of the drawing."""
        if self.blocks and not self.blocks[-1].made:
            self.blocks[-1].ops.append(partial(fn, *args))
        else:
            fn(*args)

    def _lines(self, text: str, font: QtGui.QFont, colour: QtGui.QColor, x: float, y: float,
               width: float) -> float:
        """``text`` wrapped to ``width`` from (x, y); returns the y below it."""
        height = QtGui.QFontMetricsF(font).height() + 2
        for part in wrap(text, font, width):
            self._text(part, font, colour, x, y)
            y += height
        return y

    def _text(self, text: str, font: QtGui.QFont, colour: QtGui.QColor, x: float,
              y: float) -> None:
        self._do(self._add_text, text, font, colour, x, y)

    def _add_text(self, text: str, font: QtGui.QFont, colour: QtGui.QColor, x: float,
                  y: float) -> None:
        item = self.scene.addSimpleText(text, font)
        item.setBrush(colour)
        item.setPos(x, y)

    def _add_box(self, rect: QtCore.QRectF, colour: QtGui.QColor) -> None:
        box = self.scene.addRect(rect, QtGui.QPen(colour, 1, QtCore.Qt.PenStyle.DashLine))
        box.setBrush(QtCore.Qt.BrushStyle.NoBrush)

    def _add_bytes(self, strip: StripModel, geom: StripGeometry, pal: Palette, height: float,
                   y: float) -> None:
        item = BytesItem(strip, geom, pal, height, None)
        item.setPos(0, y)
        self.scene.addItem(item)
        self.bytes_items[strip.number] = item

    def _add_lane(self, lane: LaneModel, geom: StripGeometry, pal: Palette, height: float,
                  y: float) -> None:
        item = LaneItem(lane, geom, pal, height, self.panel.marks.changed_cells.get(lane.name))
        item.setPos(0, y)
        self.scene.addItem(item)
        self.lane_items[lane.name] = item

    def _strip_box(self, rect: QtCore.QRectF, pal: Palette) -> None:
        """The grey strip behind an allocation and the values on it."""
        box = self.scene.addRect(rect, QtGui.QPen(pal.border, 1), pal.alt)
        box.setZValue(-1)

    # ------------------------------------------------------------------ the rows

    def _frame(self) -> _Frame:
        """Start a layout: the scene cleared, and the measures of this one."""
        pal = self.panel.palette_now()
        s = pal.scale
        self.scene.clear()
        self.lane_items, self.bytes_items, self.geoms, self.strip_rects = {}, {}, {}, {}
        self.blocks, self.lane_rows = [], {}
        self.panel.hover.forget()
        margin = 10 * s
        fm_bold = QtGui.QFontMetricsF(pal.bold)
        fm_small = QtGui.QFontMetricsF(pal.small)
        # the width left when the vertical scroll bar shows (so nothing moves when it does)
        self.laid_width = self.width()
        avail = max(self.laid_width, 200) - 2 * margin
        indent = 16 * s
        name_w = self._name_width(pal, fm_bold, indent) + 12 * s
        return _Frame(pal, margin, avail, indent, margin + name_w,
                      max(avail - name_w, 120 * s), 30 * s, 30 * s, fm_small.height() + 2,
                      QtGui.QFontMetricsF(pal.font), fm_bold, fm_small)

    def _name_width(self, pal: Palette, fm_bold: QtGui.QFontMetricsF, indent: float) -> float:
        """The widest value name, indented (the names measured once per font)."""
        key = pal.bold.key()
        if self._name_widths[0] != key:
            self._name_widths = (key, {})
        widths = self._name_widths[1]
        name_w = fm_bold.horizontalAdvance(translate("MemoryPanel", "bytes"))
        for strip in self.panel.model.strips:
            for lane in strip.lanes:
                w = widths.get(lane.name)
                if w is None:
                    w = widths[lane.name] = fm_bold.horizontalAdvance("└ " + lane.name)
                name_w = max(name_w, w + lane.depth * indent)
        return name_w

    def _layout(self) -> Iterator[tuple[int, int, float, float]]:
        """Lay the rows out, top to bottom; yields (rows done, rows left, scene width, y)
        after each row."""
        f = self._frame()
        model = self.panel.model
        if not model.strips:
            self._text(translate("MemoryPanel", "No tensors or arrays in the workspace yet."),
                       f.pal.font, f.pal.muted, f.margin, f.margin)
            self.scene.setSceneRect(self.scene.itemsBoundingRect())
            return
        total = sum(len(strip.lanes) + 1 for strip in model.strips)
        done = 0
        y = f.margin + 6 * f.s
        for strip in model.strips:
            top = y
            head = Block(top - 6 * f.s)
            self.blocks.append(head)
            y = self._caption(strip, f, y)
            if not strip.has_memory:
                y = self._no_bytes(strip, f, y)
                self._close_strip(strip, head, f, top, y)
                done += 2
                yield done, total - done, f.full_width, y
                continue
            geom, y = self._bytes_row(strip, f, y)
            done += 1
            for lane in strip.lanes:
                y = self._lane_row(lane, geom, f, y)
                head.bottom = y  # (the strip's box: made when any of its rows is)
                done += 1
                yield done, total - done, f.full_width, y
            self._close_strip(strip, head, f, top, y)
            y += 14 * f.s
        self.scene.setSceneRect(QtCore.QRectF(0, 0, f.full_width, y + f.margin))
        self.view.horizontalScrollBar().setValue(0)

    def _close_strip(self, strip: StripModel, head: Block, f: _Frame, top: float,
                     y: float) -> None:
        """The grey box of ``strip``, from ``top`` to ``y``: made with its first row."""
        rect = QtCore.QRectF(f.margin / 2, top - 6 * f.s, f.avail + f.margin, y - top + 6 * f.s)
        box = partial(self._strip_box, rect, f.pal)
        if head.made:
            box()
        else:
            head.ops.append(box)
        self.strip_rects[strip.number] = rect
        head.bottom = y

    def _caption(self, strip: StripModel, f: _Frame, y: float) -> float:
        """The strip's title (and who owns it alone), wrapped at the drawing's width (never cut
        off at its edge); returns the y below it."""
        pal = f.pal
        y = self._lines(memory_texts.strip_title(strip), pal.bold, pal.text, f.margin, y,
                        f.avail)
        y += 4 * f.s
        if strip.owner and strip.has_memory and len(strip.lanes) == 1:
            why = strip.lanes[0].why
            own = translate("MemoryPanel",
                            "Only {0} reads this memory: it has bytes of its own.").format(
                strip.owner)
            y = self._lines(own + (f"  ({why})" if why else ""), pal.small, pal.muted,
                            f.margin, y, f.avail)
        return y

    def _no_bytes(self, strip: StripModel, f: _Frame, y: float) -> float:
        """The row of a value without memory (a meta tensor); returns the y below it."""
        pal, lane = f.pal, strip.lanes[0]
        self.lane_rows[lane.name] = (y, y + f.cell_h)
        self._text(lane.name, pal.bold, pal.colour(lane.colour), f.margin, y)
        self._do(self._add_box, QtCore.QRectF(f.x0, y, min(f.cells_w, 240 * f.s), f.cell_h),
                 pal.muted)
        self._text(translate("MemoryPanel", "no bytes"), pal.font, pal.muted, f.x0 + 8 * f.s,
                   y + (f.cell_h - f.fm.height()) / 2)
        y += f.cell_h + 2
        right = f.avail + f.margin - f.x0
        y = self._lines(memory_texts.lane_detail(lane, self.panel.marks), pal.small, pal.muted,
                        f.x0, y, right)
        y = self._lines(text_in(strip.note, i18n.current()), pal.small, pal.muted, f.x0, y,
                        right)
        return y + 14 * f.s

    def _bytes_row(self, strip: StripModel, f: _Frame, y: float) -> tuple[StripGeometry, float]:
        """The strip's bytes, in the zoom's window; returns its geometry and the y below."""
        pal = f.pal
        lo, hi = self.panel.zoom.window(strip)
        geom = StripGeometry(f.x0, f.cells_w, lo, hi, strip.unit, 64 * f.s)
        self.geoms[strip.number] = geom
        self._text(translate("MemoryPanel", "bytes"), pal.bold, pal.muted, f.margin, y + 2)
        self._do(self._add_bytes, strip, geom, pal, f.bytes_h, y)
        if geom.mode == "ranges" or (lo, hi) != (0, strip.nbytes):
            numbers = (f"{lo:,}", f"{hi:,}", f"{strip.nbytes:,}")
            shown = translate("MemoryPanel", "bytes {0}–{1} of {2}, drawn as ranges").format(
                *numbers) if geom.mode == "ranges" else \
                translate("MemoryPanel", "bytes {0}–{1} of {2}").format(*numbers)
            tw = f.fm_small.horizontalAdvance(shown)
            self._text(shown, pal.small, pal.muted, f.x0 + geom.drawn_width - tw,
                       y - f.fm_small.height() - 2)
        return geom, y + f.bytes_h + 2 * f.s

    def _details(self, lane: LaneModel, pal: Palette) -> list[tuple[str, QtGui.QColor]]:
        """The lines beside (or under) a value's cells, each with its colour."""
        details = [(memory_texts.lane_detail(lane, self.panel.marks), pal.muted)]
        written = memory_texts.written_note(lane, self.panel.marks)
        if written:
            details.append((written, pal.warning))
        relation = memory_texts.lane_relation(lane)
        if relation:
            details.append((relation, pal.text))
        if lane.why and lane.depth:
            details.append((lane.why, pal.muted))
        return details

    def _lane_row(self, lane: LaneModel, geom: StripGeometry, f: _Frame, y: float) -> float:
        """The row of one value: its name, its cells, its details (beside the cells when they
        fit, else under them); returns the y below it."""
        pal, s = f.pal, f.s
        row = Block(y, lane.name)
        self.blocks.append(row)
        prefix = "└ " if lane.depth else ""
        self._text(prefix + lane.name, pal.bold, pal.colour(lane.colour),
                   f.margin + lane.depth * f.indent, y + (f.cell_h - f.fm_bold.height()) / 2)
        self._do(self._add_lane, lane, geom, pal, f.cell_h, y)
        details = self._details(lane, pal)
        right_x = f.x0 + geom.drawn_width + 14 * s
        edge = f.avail + f.margin
        if right_x < edge and len(details) <= 3 and right_x + max(
                f.fm_small.horizontalAdvance(t) for t, _ in details) <= edge:
            dy = y + max((f.cell_h - len(details) * f.line) / 2, 0)
            for text, col in details:
                self._text(text, pal.small, col, right_x, dy)
                dy += f.line
            y += max(f.cell_h, len(details) * f.line) + 6 * s
        else:
            y += f.cell_h + 2
            for text, col in details:
                for part in wrap(text, pal.small, edge - f.x0):
                    self._text(part, pal.small, col, f.x0, y)
                    y += f.line
            y += 6 * s
        row.bottom = y
        self.lane_rows[lane.name] = (row.top, y)
        return y


def wrap(text: str, font: QtGui.QFont, width: float) -> list[str]:
    """One line of drawn text wrapped to ``width`` pixels, as Qt breaks lines: between words,
    between Chinese characters, and inside a word only when it is wider than the line."""
    if width <= 0 or QtGui.QFontMetricsF(font).horizontalAdvance(text) <= width:
        return [text]
    layout = QtGui.QTextLayout(text, font)
    option = QtGui.QTextOption()
    option.setWrapMode(QtGui.QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    layout.setTextOption(option)
    layout.beginLayout()
    lines: list[str] = []
    while True:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(width)
        start = line.textStart()
        lines.append(text[start:start + line.textLength()].rstrip())
    layout.endLayout()
    return [part for part in lines if part] or [text]
