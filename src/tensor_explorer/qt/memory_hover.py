"""Hover linking in the Memory panel: what lights up when the pointer is over a cell or bytes.

:class:`MemoryHover` belongs to one :class:`~tensor_explorer.qt.memory_panel.MemoryPanel`: it
rate-limits the pointer's moves (a single-shot timer), finds the element or bytes under it, asks
:func:`tensor_explorer.core.memory.readers` for every element that reads the same bytes, lights
them on the panel's scene items and writes the hover line. It remembers what it lit, to light it
again after a redraw. Its texts belong to the panel's translation context ("MemoryPanel").
What it says goes to a :class:`HoverLine` under the drawing, of fixed height.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import QCoreApplication

from ..core import memory
from ..core.memory_drawing import LaneModel, StripModel
from .memory_layout import wrap
from .memory_view import BytesItem, LaneItem

if TYPE_CHECKING:
    from .memory_panel import MemoryPanel

translate = QCoreApplication.translate

HOVER_INTERVAL_MS = 30  # at most ~33 hover updates a second
INFO_LINES = 2  # the hover line's fixed height, in lines (longer texts end in "…")


class HoverLine(QtWidgets.QLabel):
    """The line under the drawing that says what is hovered: always there, its height fixed
    (:data:`INFO_LINES` lines, so the drawing never moves); a text longer than its lines ends
    in "…" and the tool tip has it all."""

    def __init__(self) -> None:
        super().__init__()
        self.setWordWrap(True)
        self.setTextFormat(QtCore.Qt.TextFormat.PlainText)
        self.setAlignment(QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignTop)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored,
                           QtWidgets.QSizePolicy.Policy.Fixed)
        self.full_text = ""  # what is said, before eliding

    def say(self, text: str | None) -> None:
        """Show ``text`` (None: nothing), elided to the line's height."""
        self.full_text = text or ""
        self.fit()

    def bold_font(self) -> QtGui.QFont:
        font = QtGui.QFont(self.font())
        font.setBold(True)
        return font

    def restyle(self, colour: str) -> None:
        """Bold text in ``colour``; the height of :data:`INFO_LINES` lines of it."""
        self.setStyleSheet(f"color: {colour}; font-weight: bold;")
        self.ensurePolished()
        self.setFixedHeight(math.ceil(
            QtGui.QFontMetricsF(self.bold_font()).lineSpacing() * INFO_LINES)
            + 2 * self.margin() + 2)
        self.fit()

    def fit(self) -> None:
        """Wrap the text to the line's width again (after a resize or a new font)."""
        text = self.full_text
        width = self.width() - 2 * self.margin()
        font = self.bold_font()
        lines = wrap(text, font, width) if text and width > 0 else [text]
        if len(lines) > INFO_LINES:
            fm = QtGui.QFontMetricsF(font)
            last = fm.elidedText(" ".join(lines[INFO_LINES - 1:]),
                                 QtCore.Qt.TextElideMode.ElideRight, width)
            shown = "\n".join([*lines[:INFO_LINES - 1], last])
            self.setToolTip(text)
        else:
            shown = text
            self.setToolTip("")
        if self.text() != shown:
            self.setText(shown)


class MemoryHover(QtCore.QObject):
    """The hover state of one Memory panel: the pointer's last scene position (``pos``), what
    was lit last (``hovered``: ``("element", name, index)`` or ``("bytes", name, byte, strip
    number)``; None when nothing is lit), and ``{value name: [index, ...]}`` lit."""

    def __init__(self, panel: MemoryPanel) -> None:
        super().__init__(panel)
        self.panel = panel
        self.lit_now: dict[str, list[tuple[int, ...]]] = {}
        self.pos: QtCore.QPointF | None = None
        self.hovered: tuple[object, ...] | None = None
        self.timer = QtCore.QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(HOVER_INTERVAL_MS)
        self.timer.timeout.connect(self.now)

    def forget(self) -> None:
        """The scene was cleared: nothing is lit any more."""
        self.lit_now = {}
        self.hovered = None

    def queue(self, pos: QtCore.QPointF | None) -> None:
        self.pos = pos
        if not self.timer.isActive():
            self.timer.start()

    def now(self) -> None:
        pos = self.pos
        if pos is None:
            self.clear()
            return
        self.at(pos)

    def at(self, pos: QtCore.QPointF) -> dict[str, list[tuple[int, ...]]]:
        """Hover the scene point ``pos``: an element (cells) lights its readers; a byte range
        (ranges mode, or the bytes row) lights the values that cover it."""
        for item in self.panel.scene.items(pos):
            if isinstance(item, LaneItem):
                local = item.mapFromScene(pos)
                if item.geom.mode == "cells" and item.lane.cell_offsets is not None:
                    off = item.cell_at(local.x())
                    if off is None:
                        break
                    index = item.lane.index_at(off)
                    if index is not None:
                        return self.element(item.lane.name, index)
                    break
                b = item.geom.byte_at(local.x())
                return self.bytes_at(item.lane.name, b)
            if isinstance(item, BytesItem):
                b = item.geom.byte_at(item.mapFromScene(pos).x())
                return self.bytes_at(None, b, item.strip)
        self.clear()
        return {}

    def element(self, name: str, index: Iterable[int]) -> dict[str, list[tuple[int, ...]]]:
        """Light up element ``index`` of ``name``, its bytes, and every element of every value
        that reads them. Returns ``{value name: [index, ...]}`` of what is lit."""
        lane = self.panel.model.lane(name)
        strip = self.panel.model.strip_of(name)
        if lane is None or strip is None or not strip.has_memory:
            self.clear()
            return {}
        index = tuple(int(i) for i in index)
        off = lane.offset_of(tuple(i % n for i, n in zip(index, lane.shape, strict=True)))
        # only the values with a byte there can read it (O(ndim) each, from the footprints)
        values = {ln.name: ln.value for ln in strip.lanes
                  if ln.name == name or ln.covered(off, off + lane.itemsize)}
        try:
            found = memory.readers(values, name, index, limit=5000)
        except ValueError:  # too many readers to list (huge expanded views): light bytes
            return self.bytes_at(name, off)
        # the hover line first: showing it can resize the view, which redraws (unlit) items
        self.panel.set_info(self.describe(name, index, off, lane, found, strip))
        self.clear_items()
        self.lit_now = found
        for other, idxs in found.items():
            item = self.panel.drawing.lane_items.get(other)
            olane = self.panel.model.lane(other)
            if item is None or olane is None:
                continue
            item.lit = {olane.offset_of(i) for i in idxs}
            item.lit_range = (off, off + lane.itemsize)
            if other == name:
                item.hovered = off
            item.update()
        bytes_item = self.panel.drawing.bytes_items.get(strip.number)
        if bytes_item is not None:
            bytes_item.lit = (off, off + lane.itemsize)
            bytes_item.update()
        self.hovered = ("element", name, index)
        return found

    def describe(self, name: str, index: tuple[int, ...], off: int, lane: LaneModel,
                        found: dict[str, list[tuple[int, ...]]], strip: StripModel) -> str:
        text = lane.text_at(off)
        head = f"{name}{list(index)}" + (f" = {text}" if text else "")
        head += translate("MemoryPanel", ": bytes {0}–{1} of allocation {2}.").format(
            off, off + lane.itemsize - 1, strip.number)
        readers = []
        for other, idxs in found.items():
            shown = [list(i) for i in idxs if not (other == name and i == index)][:4]
            more = len(idxs) - len(shown) - (1 if other == name else 0)
            if not shown:
                continue
            tail = translate("MemoryPanel", " and {0} more").format(more) if more > 0 else ""
            readers.append(f"{other}" + ", ".join(str(i) for i in shown) + tail)
        if readers:
            head += " " + translate("MemoryPanel", "The same bytes are read by: {0}.").format(
                "; ".join(readers))
        else:
            head += " " + translate("MemoryPanel", "No other element reads these bytes.")
        others = [ln.name for st in self.panel.model.strips if st is not strip
                  for ln in st.lanes]
        if others:
            head += " " + translate("MemoryPanel", "Not by {0}: separate memory.").format(
                ", ".join(others[:6]))
        return head

    def bytes_at(self, name: str | None, byte: int,
                     strip: StripModel | None = None) -> dict[str, list[tuple[int, ...]]]:
        strip = strip or (self.panel.model.strip_of(name) if name else None)
        if strip is None or strip.number not in self.panel.drawing.geoms:
            self.clear()
            return {}
        geom = self.panel.drawing.geoms[strip.number]
        if geom.mode == "cells":
            lo = byte - (byte % strip.unit)
            hi = lo + strip.unit
        else:
            per_px = max(1, round(1 / geom.px_per_byte))
            lo, hi = byte, byte + per_px
        readers = [lane for lane in strip.lanes if lane.covered(lo, hi)]
        # the hover line first: showing it can resize the view, which redraws (unlit) items
        where = translate("MemoryPanel", "Bytes {0}–{1} of allocation {2}").format(
            f"{lo:,}", f"{hi - 1:,}", strip.number)
        if readers:
            self.panel.set_info(where + ": " + translate("MemoryPanel", "read by {0}.").format(
                ", ".join(lane.name for lane in readers)))
        else:
            self.panel.set_info(where + ": " + translate("MemoryPanel", "no value reads them."))
        self.clear_items()
        for lane in readers:
            item = self.panel.drawing.lane_items.get(lane.name)
            if item is not None:
                item.lit_range = (lo, hi)
                if lane.cell_offsets is not None:
                    item.lit = {int(o) for o in lane.cell_offsets
                                if o < hi and o + lane.itemsize > lo}
                item.update()
        bytes_item = self.panel.drawing.bytes_items.get(strip.number)
        if bytes_item is not None:
            bytes_item.lit = (lo, hi)
            bytes_item.update()
        self.lit_now = {lane.name: [] for lane in readers}
        self.hovered = ("bytes", name, byte, strip.number)
        return {lane.name: [] for lane in readers}

    def rehover(self, hovered: tuple[object, ...]) -> None:
        """Light again what :attr:`_hovered` recorded (after a redraw)."""
        if hovered[0] == "element":
            _, name, index = hovered
            assert isinstance(name, str) and isinstance(index, tuple)
            self.element(name, index)
            return
        _, name, byte, number = hovered
        assert isinstance(byte, int) and (name is None or isinstance(name, str))
        strip = next((s for s in self.panel.model.strips if s.number == number), None)
        self.bytes_at(name, byte, strip)

    def clear_items(self) -> None:
        for item in self.panel.drawing.lane_items.values():
            if item.lit or item.lit_range is not None or item.hovered is not None:
                item.lit, item.lit_range, item.hovered = set(), None, None
                item.update()
        for bitem in self.panel.drawing.bytes_items.values():
            if bitem.lit is not None:
                bitem.lit = None
                bitem.update()

    def clear(self) -> None:
        """Nothing lit."""
        self.clear_items()
        self.lit_now = {}
        self.hovered = None
        self.panel.set_info(None)

    def lit(self) -> dict[str, set[tuple[int, ...]]]:
        """What the last hover lit: ``{value name: {element index, ...}}``."""
        return {n: set(idxs) for n, idxs in self.lit_now.items()}
