"""Drawing of an autograd graph: a zoomable, pannable ``QGraphicsView`` of a layered DAG.

Two halves, so that the expensive part can run in a worker thread:

- :func:`~tensor_explorer.core.graph_drawing.compute_drawing` (Qt-free, thread-safe; re-exported
  here with :class:`Drawing`, :class:`NodeText`, :class:`DrawNode` and :func:`node_size`) turns
  a graph (a traced :class:`~tensor_explorer.core.autograd.Graph` or a
  :class:`~tensor_explorer.core.graph_layout.CollapsedGraph`) plus the text of each node into a
  :class:`Drawing`: node boxes sized from a per-character width table measured on the UI thread
  (:class:`TextMetrics`), placed in rows (inputs above the ops that read them, the root at the
  bottom), and one polyline per edge that enters no box but its ends' (long edges run along a
  shared vertical bus per input). Cut-off constants (values made under ``no_grad`` /
  ``inference_mode`` or by ``detach``) are placed apart, in a column to the right of the graph,
  with dashed "cut" edges from the nodes they were computed from.
- :class:`GraphView` shows a :class:`Drawing`: one light item per node (:class:`NodeItem`) and
  a single :class:`EdgeLayer` that paints only the lines crossing the exposed area. Text is
  never drawn below the window's minimum size (:func:`theme.min_point_size`): as the zoom
  shrinks, a box shows less instead (all its lines, then its title and shape, then its title
  alone drawn as large as the box allows, then nothing; see :class:`NodeFit`), and an edge
  label drops its gradient line, then itself. So a 20k-node graph fitted to the window costs
  a few filled rectangles per node. Wheel, ``+``/``-`` and ``0``
  zoom (``0``: fit), dragging pans; a click (press and release without moving) on a node or
  near an edge emits :attr:`GraphView.node_clicked` / :attr:`GraphView.edge_clicked`.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from ..core.graph_drawing import LABEL_GROW as LABEL_GROW
from ..core.graph_drawing import Drawing as Drawing
from ..core.graph_drawing import DrawNode as DrawNode
from ..core.graph_drawing import NodeText as NodeText
from ..core.graph_drawing import TextMetrics as CoreTextMetrics
from ..core.graph_drawing import compute_drawing as compute_drawing
from ..core.graph_drawing import node_size as node_size
from . import theme

#: node kinds drawn: the core's kinds plus "const" (a cut-off constant drawn apart)
KINDS = ("root", "op", "leaf", "group", "const")
MAX_FIT_SCALE = 2.5  # "fit" never magnifies a small graph beyond this (readable, not huge)
MIN_SCALE, MAX_SCALE = 0.01, 8.0
# Thresholds on the zoom times the style's scale (presentation mode draws larger, so it stays
# legible at a smaller zoom). They decide the *look* (rounded boxes, arrowheads), not the text:
# text is drawn only at least at theme.min_point_size() on screen (see NodeFit)
TEXT_LOD = 0.45  # below this, boxes are plain rectangles
EDGE_LABEL_LOD = 0.6  # below this (or with too many edges in view), no arrowheads nor labels
MAX_LABELLED_EDGES = 400
MAX_GROW = 2.0  # a box showing less than all its lines draws them up to this x larger
FIT_MARGIN = 0.96  # enlarged text is fitted to this share of the box (hinting, kerning)
SMALL_TEXT = 0.9  # the smallest text of a drawing (node bodies, edge labels) x the base size
LAYER_ABOVE = 1500  # bigger drawings paint their nodes from one NodeLayer, not one item each


# ---------------------------------------------------------------------------------------------
# colours


@dataclass(frozen=True)
class GraphColors:
    """Colours of the drawing, derived from the application theme."""

    background: str
    text: str
    muted: str
    border: dict[str, str]
    fill: dict[str, str]
    named: str
    stale: str
    edge: str
    edge_grad: str
    cut: str
    selection: str
    label_bg: str

    @staticmethod
    def from_theme(t: theme.Theme) -> GraphColors:
        """Node colours by kind: root (orange-red), operation (neutral), leaf (green), group
        (purple), constant (muted, dashed); named intermediates get the accent colour."""
        border = {
            "root": t.series[1],
            "op": t.muted,
            "leaf": t.ok,
            "group": t.series[4],
            "const": t.muted,
        }
        amount = 0.16 if t.name == "light" else 0.28
        fill = {k: _mix(t.base, v, amount) for k, v in border.items()}
        fill["op"] = t.alt_base
        fill["const"] = t.window
        return GraphColors(
            background=t.base,
            text=t.text,
            muted=t.muted,
            border=border,
            fill=fill,
            named=t.accent,
            stale=t.warning,
            edge=t.muted,
            edge_grad=t.accent,
            cut=t.error,
            selection=t.accent,
            label_bg=t.base,
        )


def _mix(a: str, b: str, amount: float) -> str:
    ca, cb = QtGui.QColor(a), QtGui.QColor(b)
    r = ca.redF() + (cb.redF() - ca.redF()) * amount
    g = ca.greenF() + (cb.greenF() - ca.greenF()) * amount
    bl = ca.blueF() + (cb.blueF() - ca.blueF()) * amount
    return QtGui.QColor.fromRgbF(r, g, bl).name()


# ---------------------------------------------------------------------------------------------
# text metrics (measured on the UI thread, used anywhere)


class TextMetrics(CoreTextMetrics):
    """:class:`~tensor_explorer.core.graph_drawing.TextMetrics` measured from Qt fonts."""

    @staticmethod
    def measure(title_font: QtGui.QFont, body_font: QtGui.QFont, scale: float) -> TextMetrics:
        """Measure printable ASCII (and a few symbols used in labels) in both fonts, and one
        CJK character for the wide characters of the Chinese interface."""
        chars = [chr(c) for c in range(32, 127)] + list("‖∇…×·✂—→∑")
        tf, bf = QtGui.QFontMetricsF(title_font), QtGui.QFontMetricsF(body_font)
        return TextMetrics(
            {c: tf.horizontalAdvance(c) for c in chars},
            {c: bf.horizontalAdvance(c) for c in chars},
            tf.horizontalAdvance("M"),
            bf.horizontalAdvance("M"),
            tf.height(),
            bf.height(),
            scale,
            tf.horizontalAdvance("中"),
            bf.horizontalAdvance("中"),
        )


# ---------------------------------------------------------------------------------------------
# style shared by the items


class DrawnText(NamedTuple):
    """A text the view drew, as :meth:`GraphView.drawn_texts` records it (a test hook)."""

    role: str  # "title" (of a box), "body" (another line of a box) or "label" (of an edge)
    text: str
    point_size: float  # as seen on screen: the font's point size times the painter's scale


# levels of detail of a box, from most to least
FULL, SHAPE, TITLE, BOXES = 3, 2, 1, 0
LEVEL_NAMES = {FULL: "full", SHAPE: "shape", TITLE: "title", BOXES: "boxes"}

# a tensor's shape as the core writes it, "()", "(3,)", "(2, 3)", between spaces or line ends
# ("MmBackward0 → … → TanhBackward0 (4)", a group's count of blocks, is not one)
_SHAPE = re.compile(r"(?:^|\s)(\((?:\d+(?:, \d+)+|\d+,)?\))(?=\s|$)")


def shape_line(lines: Sequence[str]) -> str | None:
    """What a box's shape-only level shows under its title: its first line with a shape, from
    the shape on (``"(4, 8) float32"``; a leaf's ``"leaf (8,) float32"`` gives
    ``"(8,) float32"``, in any language); None when no line has one (groups, constants)."""
    for line in lines:
        m = _SHAPE.search(line)
        if m is not None:
            return line[m.start(1):]
    return None


# the suffix of a backward function's name ("MmBackward0" is "Mm" in a box showing less)
_BACKWARD = re.compile(r"(?<=.)Backward\d*$")


def short_title(title: str) -> str:
    """The title a box shows when it shows less than all its lines: an operation's name
    without its ``Backward0`` suffix (``"MseLoss"``), so it can be drawn larger."""
    return _BACKWARD.sub("", title)


CACHE_LIMIT = 50_000  # entries of a style's text caches (texts change after every backward)


def _room(cache: dict[Any, Any]) -> dict[Any, Any]:
    """``cache``, emptied when full (a long session must not keep every text it drew)."""
    if len(cache) >= CACHE_LIMIT:
        cache.clear()
    return cache


def _floor_pt(pt: float) -> float:
    """Point sizes in quarter points, rounded down (few distinct fonts, never larger than
    what was fitted)."""
    return math.floor(pt * 4.0 + 1e-9) / 4.0


@dataclass(frozen=True)
class NodeFit:
    """How a box's text fits it at each level of detail: font point sizes at zoom 1, so the
    level at a zoom is a few multiplications (one per distinct text and box size, cached by
    :meth:`GraphStyle.node_fit`). A level is drawn when its smallest text, times the zoom, is
    at least :func:`theme.min_point_size` (:meth:`level`):

    - ``FULL``: the title and every line at their normal sizes (the lines' size decides);
    - ``SHAPE``: the title (``title``: :func:`short_title`, at ``shape_title_pt``) and the
      tensor's shape (:func:`shape_line`, ``shape_pt``, never larger than the title), as
      large as both fit the box;
    - ``TITLE``: the (short) title alone at ``title_pt``, as large as it fits the box (at
      most ``MAX_GROW`` x its normal size), so it stays readable longest;
    - ``BOXES``: no text.
    """

    title: str
    shape: str | None
    shape_title_pt: float
    shape_pt: float
    title_pt: float

    def level(self, zoom: float, min_pt: float, body_pt: float) -> int:
        if body_pt * zoom >= min_pt:
            return FULL
        if self.shape is not None and self.shape_pt * zoom >= min_pt:
            return SHAPE
        if self.title_pt * zoom >= min_pt:
            return TITLE
        return BOXES


class GraphStyle:
    """Fonts, pens and brushes the items paint with (rebuilt on a theme or scale change), and
    the caches of what their texts measure."""

    def __init__(self, colors: GraphColors, scale: float) -> None:
        self.colors = colors
        self.scale = scale
        base = QtWidgets.QApplication.font()
        self.title_font = QtGui.QFont(base)
        self.title_font.setPointSizeF(theme.BASE_POINT_SIZE * scale)
        self.title_font.setBold(True)
        self.body_font = QtGui.QFont(base)
        self.body_font.setPointSizeF(theme.BASE_POINT_SIZE * SMALL_TEXT * scale)
        self.label_font = QtGui.QFont(base)
        self.label_font.setPointSizeF(theme.BASE_POINT_SIZE * SMALL_TEXT * scale)
        self.title_pt = self.title_font.pointSizeF()
        self.body_pt = self.body_font.pointSizeF()
        self.label_pt = self.label_font.pointSizeF()
        self.metrics = TextMetrics.measure(self.title_font, self.body_font, scale)
        c = QtGui.QColor
        self.text = c(colors.text)
        self.muted = c(colors.muted)
        self.pens: dict[str, QtGui.QPen] = {}
        self.brushes: dict[str, QtGui.QBrush] = {}
        for kind in KINDS:
            pen = QtGui.QPen(c(colors.border[kind]), 1.6 * scale)
            if kind == "const":
                pen.setStyle(QtCore.Qt.PenStyle.DashLine)
            self.pens[kind] = pen
            self.brushes[kind] = QtGui.QBrush(c(colors.fill[kind]))
        self.named_pen = QtGui.QPen(c(colors.named), 2.2 * scale)
        self.stale_pen = QtGui.QPen(c(colors.stale), 2.6 * scale)
        halo = c(colors.selection)
        halo.setAlpha(150)
        self.selected_pen = QtGui.QPen(halo, 4.0 * scale)
        self.edge_pens = [
            QtGui.QPen(c(colors.edge), 1.3 * scale),
            QtGui.QPen(c(colors.edge_grad), 1.8 * scale),
            QtGui.QPen(c(colors.cut), 1.6 * scale, QtCore.Qt.PenStyle.DashLine),
        ]
        for p in self.edge_pens:
            p.setCosmetic(False)
        self.label_bg = QtGui.QBrush(c(colors.label_bg))
        #: a test hook: while a list, every text painted is appended (GraphView.drawn_texts)
        self.recording: list[DrawnText] | None = None
        self._title_fm = QtGui.QFontMetricsF(self.title_font)
        self._body_fm = QtGui.QFontMetricsF(self.body_font)
        self._widths: dict[tuple[bool, str], float] = {}
        self._fits: dict[tuple[str, tuple[str, ...], float, float], NodeFit] = {}
        self._fonts: dict[tuple[bool, float], QtGui.QFont] = {}
        self._elided: dict[tuple[str, bool, float, float], str] = {}
        self._labels: dict[tuple[str, bool], tuple[str, float, float]] = {}

    def text_size(self, zoom: float) -> float:
        """The text's size on screen at ``zoom`` relative to normal text at 100 % (what the
        ``*_LOD`` thresholds of the look are compared with)."""
        return zoom * self.scale

    @staticmethod
    def min_pt() -> float:
        """The least point size on screen any text may have (:func:`theme.min_point_size`),
        less a rounding error (a zoom of exactly ``readable_zoom`` must draw all the lines)."""
        return theme.min_point_size() * (1.0 - 1e-6)

    def readable_zoom(self) -> float:
        """The least zoom at which the drawing's smallest text is at least the window's
        minimum text size (:func:`theme.min_point_size`; larger in presentation mode): where
        boxes show all their lines."""
        return theme.min_point_size() / self.body_pt

    def text_zoom(self) -> float:
        """The least zoom at which any text can be drawn (a title enlarged ``MAX_GROW`` x):
        below it, boxes only."""
        return self.min_pt() / (self.title_pt * MAX_GROW)

    # -- measuring, once per distinct text ----------------------------------------------------

    def width(self, text: str, bold: bool) -> float:
        """``text``'s width in the normal title (``bold``) or body font, in scene units."""
        key = (bold, text)
        w = self._widths.get(key)
        if w is None:
            fm = self._title_fm if bold else self._body_fm
            w = _room(self._widths)[key] = fm.horizontalAdvance(text)
        return w

    def node_fit(self, text: NodeText, w: float, h: float) -> NodeFit:
        """How ``text`` fits a ``w`` x ``h`` box (cached per distinct text and size)."""
        key = (text.title, tuple(text.lines), w, h)
        fit = self._fits.get(key)
        if fit is None:
            fit = _room(self._fits)[key] = self._fit(text, w, h)
        return fit

    def _fit(self, text: NodeText, w: float, h: float) -> NodeFit:
        pad = 10.0 * self.scale
        iw = max(w - 2 * pad, 1.0) * FIT_MARGIN
        ih = max(h - 1.2 * pad, 1.0)
        th, bh = self.metrics.title_height, self.metrics.body_height
        title = short_title(text.title)
        grow_w = iw / max(self.width(title, True), 1e-6)
        title_pt = _floor_pt(self.title_pt * max(1.0, min(MAX_GROW, grow_w, ih / th)))
        shape = shape_line(text.lines)
        if shape is None:
            return NodeFit(title, None, 0.0, 0.0, title_pt)
        # the shape as large as the width allows (not larger than the title can be), the
        # title in the height left, never smaller than the shape
        t_max = self.title_pt * max(1.0, min(MAX_GROW, grow_w))
        s_grow = iw / max(self.width(shape, False), 1e-6)
        s_pt = min(self.body_pt * max(1.0, min(MAX_GROW, s_grow)), t_max)
        t_pt = (ih - s_pt / self.body_pt * bh) * self.title_pt / th
        if t_pt >= s_pt:
            t_pt = min(t_max, t_pt)
        else:  # both lines the same size, as large as the height allows
            t_pt = s_pt = min(s_pt, ih / (th / self.title_pt + bh / self.body_pt))
        return NodeFit(title, shape, _floor_pt(t_pt), _floor_pt(s_pt), title_pt)

    def font(self, bold: bool, pt: float) -> QtGui.QFont:
        """The title (``bold``) or body font at ``pt`` points (cached)."""
        key = (bold, pt)
        f = self._fonts.get(key)
        if f is None:
            f = QtGui.QFont(self.title_font if bold else self.body_font)
            f.setPointSizeF(pt)
            self._fonts[key] = f
        return f

    def elided(self, text: str, font: QtGui.QFont, bold: bool, width: float) -> str:
        """``text`` shortened with "…" to ``width`` in ``font`` (cached)."""
        key = (text, bold, font.pointSizeF(), round(width, 1))
        out = self._elided.get(key)
        if out is None:
            out = _room(self._elided)[key] = _elide(text, font, width)
        return out

    def label_box(self, label: str, full: bool) -> tuple[str, float, float]:
        """An edge label as drawn: all its lines (``full``) or its first (the shape), with
        the width and height of its background (cached)."""
        key = (label, full)
        out = self._labels.get(key)
        if out is None:
            lines = label.split("\n") if full else label.split("\n")[:1]
            fm = QtGui.QFontMetricsF(self.label_font if full else self.shape_label_font())
            w = max(fm.horizontalAdvance(t) for t in lines) + 8 * self.scale
            h = fm.height() * len(lines) + 2 * self.scale
            out = _room(self._labels)[key] = ("\n".join(lines), w, h)
        return out

    def label_place(self, label: str) -> tuple[float, float]:
        """The room an edge label needs (what the layout places): all its lines, or its shape
        alone ``LABEL_GROW`` x larger, whichever is bigger."""
        _, w1, h1 = self.label_box(label, True)
        _, w2, h2 = self.label_box(label, False)
        return max(w1, w2), max(h1, h2)

    def titles_zoom(self, drawing: Drawing) -> float:
        """The least zoom at which every box of ``drawing`` shows its title and every edge
        label its shape at least at the minimum text size: what Fit never goes below."""
        m = self.min_pt()
        z = m / self.shape_label_font().pointSizeF() if drawing.edge_keys else 0.0
        seen: set[tuple[str, tuple[str, ...], float, float]] = set()
        for n in drawing.nodes:
            key = (n.text.title, tuple(n.text.lines), n.w, n.h)
            if key in seen:
                continue
            seen.add(key)
            z = max(z, m / max(self.node_fit(n.text, n.w, n.h).title_pt, 1e-6))
        return z * (1.0 + 1e-6)

    def shape_label_font(self) -> QtGui.QFont:
        """The font of an edge label reduced to its shape (``LABEL_GROW`` x larger)."""
        return self.font(False, _floor_pt(self.label_pt * LABEL_GROW))

    def label_level(self, zoom: float) -> int:
        """``FULL`` (every line of the edge labels), ``SHAPE`` (their first line, larger) or
        ``BOXES`` (none), by the size they would have on screen at ``zoom``."""
        m = self.min_pt()
        if self.label_pt * zoom >= m:
            return FULL
        if self.shape_label_font().pointSizeF() * zoom >= m:
            return SHAPE
        return BOXES


# ---------------------------------------------------------------------------------------------
# items


class NodeItem(QtWidgets.QGraphicsItem):
    """A node box; paints as much of its text as is readable at the current zoom."""

    def __init__(self, node: DrawNode, style: GraphStyle) -> None:
        super().__init__()
        self.node = node
        self.style = style
        self.selected = False
        self._rect = QtCore.QRectF(-node.w / 2, -node.h / 2, node.w, node.h)
        self.setPos(node.x, node.y)
        self.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        if node.text.tooltip:
            self.setToolTip(node.text.tooltip)

    @property
    def key(self) -> Any:
        return self.node.key

    def boundingRect(self) -> QtCore.QRectF:
        m = 8.0 * self.style.scale
        return self._rect.adjusted(-m, -m, m, m)

    def set_text(self, text: NodeText) -> None:
        """Change what the box says (its size stays: long lines are elided)."""
        self.node.text = text
        self.setToolTip(text.tooltip)
        self.update()

    def paint(
        self,
        painter: QtGui.QPainter,
        option: QtWidgets.QStyleOptionGraphicsItem,
        widget: QtWidgets.QWidget | None = None,
    ) -> None:
        lod = QtWidgets.QStyleOptionGraphicsItem.levelOfDetailFromTransform(
            painter.worldTransform()
        )
        paint_node(painter, self._rect, self.node.text, self.style, lod, self.selected)


def _node_pen(text: NodeText, st: GraphStyle) -> QtGui.QPen:
    if text.stale:
        return st.stale_pen
    if text.named and text.kind == "op":
        return st.named_pen
    return st.pens.get(text.kind, st.pens["op"])


def _draw_text(painter: QtGui.QPainter, rect: QtCore.QRectF, text: str, st: GraphStyle,
               role: str) -> None:
    """``painter.drawText`` centred in ``rect``, recorded while the style records."""
    if st.recording is not None:
        t = painter.worldTransform()
        st.recording.append(DrawnText(role, text, painter.font().pointSizeF()
                                      * math.hypot(t.m11(), t.m12())))
    painter.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter, text)


def node_level(text: NodeText, rect: QtCore.QRectF, st: GraphStyle, lod: float) -> int:
    """The level of detail of a box at zoom ``lod`` (see :class:`NodeFit`)."""
    m = st.min_pt()
    if st.body_pt * lod >= m:
        return FULL
    if st.title_pt * MAX_GROW * lod < m:
        return BOXES
    return st.node_fit(text, rect.width(), rect.height()).level(lod, m, st.body_pt)


def paint_node(
    painter: QtGui.QPainter,
    rect: QtCore.QRectF,
    text: NodeText,
    st: GraphStyle,
    lod: float,
    selected: bool,
) -> None:
    """Draw one node box in ``rect``: coloured by kind, with as much of its text as is
    readable at zoom ``lod`` (:func:`node_level`)."""
    _paint_box(painter, rect, text, st, lod, selected)
    level = node_level(text, rect, st, lod)
    if level == BOXES:
        return
    pad = 10.0 * st.scale
    painter.setPen(st.text)
    if level == FULL:
        _paint_all_lines(painter, rect, text, st, pad)
    else:
        _paint_fitted_lines(painter, rect, text, st, level, pad)


def _paint_box(painter: QtGui.QPainter, rect: QtCore.QRectF, text: NodeText, st: GraphStyle,
               lod: float, selected: bool) -> None:
    """The box itself: a halo around it when selected, filled and bordered by its kind;
    square (and, zoomed far out, borderless) while its text is too small to draw."""
    if selected:  # a halo around the box; the border keeps its meaning
        painter.setPen(st.selected_pen)
        painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        m = 4.0 * st.scale
        painter.drawRoundedRect(rect.adjusted(-m, -m, m, m), 9 * st.scale, 9 * st.scale)
    pen = _node_pen(text, st)
    painter.setBrush(st.brushes.get(text.kind, st.brushes["op"]))
    if st.text_size(lod) < TEXT_LOD:
        painter.setPen(pen if lod > 0.1 else QtCore.Qt.PenStyle.NoPen)
        painter.drawRect(rect)
    else:
        painter.setPen(pen)
        r = 7.0 * st.scale
        painter.drawRoundedRect(rect, r, r)


def _paint_all_lines(painter: QtGui.QPainter, rect: QtCore.QRectF, text: NodeText,
                     st: GraphStyle, pad: float) -> None:
    """Level :data:`FULL`: the title, then every body line (muted; a leaf's last line not)."""
    metrics = st.metrics
    inner = rect.adjusted(pad, 0.6 * pad, -pad, 0)
    painter.setFont(st.title_font)
    title_rect = QtCore.QRectF(inner.left(), inner.top(), inner.width(),
                               metrics.title_height)
    _draw_text(painter, title_rect,
               st.elided(text.title, st.title_font, True, inner.width()), st, "title")
    painter.setFont(st.body_font)
    y = title_rect.bottom()
    for i, line in enumerate(text.lines):
        painter.setPen(st.text if i == len(text.lines) - 1 and text.kind == "leaf" else st.muted)
        line_rect = QtCore.QRectF(inner.left(), y, inner.width(), metrics.body_height)
        _draw_text(painter, line_rect,
                   st.elided(line, st.body_font, False, inner.width()), st, "body")
        y += metrics.body_height


def _paint_fitted_lines(painter: QtGui.QPainter, rect: QtCore.QRectF, text: NodeText,
                        st: GraphStyle, level: int, pad: float) -> None:
    """Levels :data:`TITLE` and :data:`SHAPE`: fewer lines, larger, centred in the box."""
    fit = st.node_fit(text, rect.width(), rect.height())
    inner = rect.adjusted(pad, 0.6 * pad, -pad, -0.6 * pad)
    t_pt = fit.title_pt if level == TITLE else fit.shape_title_pt
    title_font = st.font(True, t_pt)
    th = st.metrics.title_height * t_pt / st.title_pt
    lines: list[tuple[str, QtGui.QFont, bool, float]] = [(fit.title, title_font, True, th)]
    if level == SHAPE and fit.shape is not None:
        lines.append((fit.shape, st.font(False, fit.shape_pt), False,
                      st.metrics.body_height * fit.shape_pt / st.body_pt))
    y = inner.center().y() - sum(line[3] for line in lines) / 2
    for i, (line, font, bold, lh) in enumerate(lines):
        painter.setFont(font)
        if i:
            painter.setPen(st.muted)
        _draw_text(painter, QtCore.QRectF(inner.left(), y, inner.width(), lh),
                   st.elided(line, font, bold, inner.width()), st, "title" if bold else "body")
        y += lh


class NodeLayer(QtWidgets.QGraphicsItem):
    """All nodes of a big graph in one item (no per-node Python objects in the scene): paints
    only the nodes in the exposed area, as plain rectangles batched by kind when zoomed out,
    with their text when zoomed in. Used above ``LAYER_ABOVE`` nodes."""

    def __init__(self, drawing: Drawing, style: GraphStyle) -> None:
        super().__init__()
        self.style = style
        self.nodes = drawing.nodes
        self.selected_key: Any = None
        nodes = drawing.nodes
        self.cx = np.fromiter((n.x for n in nodes), float, len(nodes))
        self.cy = np.fromiter((n.y for n in nodes), float, len(nodes))
        self.hw = np.fromiter((n.w / 2 for n in nodes), float, len(nodes))
        self.hh = np.fromiter((n.h / 2 for n in nodes), float, len(nodes))
        self.index = {n.key: i for i, n in enumerate(nodes)}
        m = 8.0 * style.scale
        if nodes:
            x0 = float((self.cx - self.hw).min()) - m
            y0 = float((self.cy - self.hh).min()) - m
            x1 = float((self.cx + self.hw).max()) + m
            y1 = float((self.cy + self.hh).max()) + m
            self._rect = QtCore.QRectF(x0, y0, x1 - x0, y1 - y0)
        else:
            self._rect = QtCore.QRectF()
        self.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        self.setFlag(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)

    def boundingRect(self) -> QtCore.QRectF:
        return self._rect

    def visible(self, rect: QtCore.QRectF) -> np.ndarray:
        mask = (
            (self.cx + self.hw >= rect.left()) & (self.cx - self.hw <= rect.right())
            & (self.cy + self.hh >= rect.top()) & (self.cy - self.hh <= rect.bottom())
        )
        return np.flatnonzero(mask)

    def node_at(self, p: QtCore.QPointF) -> Any:
        """The key of the node under scene point ``p``, or None."""
        hit = np.flatnonzero(
            (np.abs(self.cx - p.x()) <= self.hw) & (np.abs(self.cy - p.y()) <= self.hh)
        )
        return self.nodes[int(hit[0])].key if hit.size else None

    def node_rect(self, i: int) -> QtCore.QRectF:
        return QtCore.QRectF(self.cx[i] - self.hw[i], self.cy[i] - self.hh[i],
                             2 * self.hw[i], 2 * self.hh[i])

    def paint(
        self,
        painter: QtGui.QPainter,
        option: QtWidgets.QStyleOptionGraphicsItem,
        widget: QtWidgets.QWidget | None = None,
    ) -> None:
        st = self.style
        shown = _exposed(self, painter, option)
        if shown is None:
            return
        idx, lod = shown
        nodes = self.nodes
        sel = self.index.get(self.selected_key)
        if idx.size <= 2000 and (st.text_size(lod) >= TEXT_LOD or lod >= st.text_zoom()):
            for i in idx.tolist():
                n = nodes[i]
                paint_node(painter, self.node_rect(i), n.text, st, lod, i == sel)
            return
        if idx.size > 2000:
            painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, False)
        x0 = (self.cx - self.hw)[idx].tolist()
        y0 = (self.cy - self.hh)[idx].tolist()
        w = (2 * self.hw)[idx].tolist()
        h = (2 * self.hh)[idx].tolist()
        groups: dict[tuple[str, int], list[QtCore.QRectF]] = {}
        for k, i in enumerate(idx.tolist()):
            t = nodes[i].text
            style_key = (t.kind, 2 if t.stale else 1 if t.named and t.kind == "op" else 0)
            groups.setdefault(style_key, []).append(QtCore.QRectF(x0[k], y0[k], w[k], h[k]))
        for (kind, flag), rects in groups.items():
            pen = st.stale_pen if flag == 2 else st.named_pen if flag == 1 else st.pens[kind]
            painter.setPen(pen if lod > 0.1 else QtCore.Qt.PenStyle.NoPen)
            painter.setBrush(st.brushes.get(kind, st.brushes["op"]))
            painter.drawRects(rects)
        if sel is not None:
            paint_node(painter, self.node_rect(sel), nodes[sel].text, st, lod, True)


def _exposed(item: Any, painter: QtGui.QPainter,
             option: QtWidgets.QStyleOptionGraphicsItem) -> tuple[np.ndarray, float] | None:
    """The indices ``item.visible`` finds in the exposed area, and the level of detail; None
    when nothing is exposed (shared by the node and edge layers' ``paint``)."""
    exposed = option.exposedRect if option.exposedRect.isValid() else item._rect
    idx = item.visible(exposed)
    if not idx.size:
        return None
    lod = QtWidgets.QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
    return idx, lod


def _elide(text: str, font: QtGui.QFont, width: float) -> str:
    fm = QtGui.QFontMetricsF(font)
    if fm.horizontalAdvance(text) <= width + 0.5:
        return text
    return fm.elidedText(text, QtCore.Qt.TextElideMode.ElideRight, width)


def _lines_path(seg: np.ndarray) -> QtGui.QPainterPath:
    """One path of straight lines ``x1, y1, x2, y2`` per row of ``seg``, built in one go from
    Qt's binary form of a path (a move and a line per row), not point by point in Python."""
    k = len(seg)
    path = QtGui.QPainterPath()
    if not k:
        return path
    rec = np.empty(2 * k, dtype=[("c", ">i4"), ("x", ">f8"), ("y", ">f8")])
    rec["c"][0::2] = 0  # QPainterPath.MoveToElement
    rec["c"][1::2] = 1  # LineToElement
    rec["x"][0::2], rec["y"][0::2] = seg[:, 0], seg[:, 1]
    rec["x"][1::2], rec["y"][1::2] = seg[:, 2], seg[:, 3]
    data = struct.pack(">i", 2 * k) + rec.tobytes() + struct.pack(">ii", 0, 0)
    stream = QtCore.QDataStream(QtCore.QByteArray(data))
    stream >> path
    return path


def _merged_segments(seg: np.ndarray, kind: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The lines to paint for ``seg`` (with their kinds): vertical pieces of one kind on the
    same x merged where they overlap, and repeated slants once (the edges sharing a bus would
    paint it once each)."""
    if not len(seg):
        return seg, kind
    vert = seg[:, 0] == seg[:, 2]
    other, other_kind = seg[~vert], kind[~vert]
    if len(other):  # the same slant from a node to its bus, once
        both = np.unique(np.c_[other, other_kind], axis=0)
        other, other_kind = both[:, :4], both[:, 4].astype(np.int64)
    v, vk = seg[vert], kind[vert]
    if not len(v):
        return other, other_kind
    x = v[:, 0]
    lo = np.minimum(v[:, 1], v[:, 3])
    hi = np.maximum(v[:, 1], v[:, 3])
    o = np.lexsort((lo, x, vk))
    x, lo, hi, vk = x[o], lo[o], hi[o], vk[o]
    new_group = np.r_[True, (x[1:] != x[:-1]) | (vk[1:] != vk[:-1])]
    g = np.cumsum(new_group)
    big = float(hi.max() - lo.min() + 1.0) * 2.0
    base = g * big
    reach = np.maximum.accumulate(hi + base) - base  # furthest end so far in the group
    starts = new_group | np.r_[True, lo[1:] > reach[:-1]]
    first = np.flatnonzero(starts)
    last = np.r_[first[1:], len(x)] - 1
    merged = np.c_[x[first], lo[first], x[first], reach[last]]
    return np.r_[other, merged], np.r_[other_kind, vk[first]]


class EdgeLayer(QtWidgets.QGraphicsItem):
    """All edges in one item: paints only the lines crossing the exposed area (a bus that many
    edges share, once); arrowheads (into each consumer's top) and labels only when zoomed in
    enough and few edges end in view. A label is drawn whole while its text is readable, then
    its first line alone (the shape; ``LABEL_GROW`` x larger), then not at all
    (:meth:`GraphStyle.label_level`)."""

    def __init__(self, drawing: Drawing, style: GraphStyle) -> None:
        super().__init__()
        self.style = style
        self.drawing = drawing
        self.kinds = drawing.edge_kinds.copy()
        self.labels = list(drawing.edge_labels)
        self.setZValue(-1)
        self.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        self.setFlag(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)
        pts, offs = drawing.points, drawing.offsets
        n_e = len(drawing.edge_keys)
        counts = np.diff(offs)
        ok = counts >= 2
        first = np.minimum(offs[:-1], max(len(pts) - 1, 0))
        last = np.maximum(offs[1:] - 1, 0)
        cut = self.kinds == 2
        # an arrowhead at the consumer: a graph edge's start, a cut edge's end (the constant)
        self.tip_i = np.where(cut, last, first)[ok]
        self.from_i = np.where(cut, last - 1, first + 1)[ok]
        self.arrow_edges = np.flatnonzero(ok)
        self.label_points = drawing.label_points
        if len(pts):
            bx0 = np.full(n_e, np.inf)
            by0 = np.full(n_e, np.inf)
            bx1 = np.full(n_e, -np.inf)
            by1 = np.full(n_e, -np.inf)
            s0 = offs[:-1][counts > 0]
            bx0[counts > 0] = np.minimum.reduceat(pts[:, 0], s0)
            by0[counts > 0] = np.minimum.reduceat(pts[:, 1], s0)
            bx1[counts > 0] = np.maximum.reduceat(pts[:, 0], s0)
            by1[counts > 0] = np.maximum.reduceat(pts[:, 1], s0)
            self.bbox = np.c_[bx0, by0, bx1, by1]
            x0, y0 = float(pts[:, 0].min()), float(pts[:, 1].min())
            x1, y1 = float(pts[:, 0].max()), float(pts[:, 1].max())
            m = 80.0 * style.scale
            self._rect = QtCore.QRectF(x0 - m, y0 - m, x1 - x0 + 2 * m, y1 - y0 + 2 * m)
        else:
            self.bbox = np.zeros((0, 4))
            self._rect = QtCore.QRectF()
        self._lines()

    def _lines(self) -> None:
        """The lines to paint, by kind (rebuilt when the kinds change after backward)."""
        d = self.drawing
        seg = d.segments
        kind = self.kinds[d.segment_edges] if len(seg) else np.zeros(0, dtype=np.int64)
        self.paint_segs, self.paint_kinds = _merged_segments(seg, kind)

    def boundingRect(self) -> QtCore.QRectF:
        return self._rect

    def labels_in(self, rect: QtCore.QRectF) -> np.ndarray:
        """Indices of the edges whose placed label meets ``rect``."""
        r = self.drawing.label_rects
        if r is None or not len(r):
            return np.zeros(0, dtype=np.int64)
        with np.errstate(invalid="ignore"):
            mask = ((r[:, 0] + r[:, 2] >= rect.left()) & (r[:, 0] <= rect.right())
                    & (r[:, 1] + r[:, 3] >= rect.top()) & (r[:, 1] <= rect.bottom()))
        return np.flatnonzero(mask)

    def set_labels(self, labels: Sequence[str], kinds: np.ndarray) -> None:
        """New label texts (placed again, with the style's font sizes) and edge kinds."""
        changed = not np.array_equal(kinds, self.kinds)
        self.labels = list(labels)
        self.drawing.place_labels(self.labels, self.style.label_place)
        self.kinds = kinds
        if changed:
            self._lines()
        self.update()

    def visible(self, rect: QtCore.QRectF) -> np.ndarray:
        """Indices of the edges whose bounding box meets ``rect``."""
        b = self.bbox
        if not len(b):
            return np.zeros(0, dtype=np.int64)
        mask = (
            (b[:, 2] >= rect.left()) & (b[:, 0] <= rect.right())
            & (b[:, 3] >= rect.top()) & (b[:, 1] <= rect.bottom())
        )
        return np.flatnonzero(mask)

    def paint(
        self,
        painter: QtGui.QPainter,
        option: QtWidgets.QStyleOptionGraphicsItem,
        widget: QtWidgets.QWidget | None = None,
    ) -> None:
        st = self.style
        rect = option.exposedRect if option.exposedRect.isValid() else self._rect
        if not len(self.paint_segs):
            return
        lod = QtWidgets.QStyleOptionGraphicsItem.levelOfDetailFromTransform(
            painter.worldTransform()
        )
        if not self._paint_lines(painter, rect):
            return
        if st.text_size(lod) < EDGE_LABEL_LOD:
            return
        # arrowheads and labels of the edges that end (or are labelled) in view
        pts = self.drawing.points
        tips = pts[self.tip_i] if len(self.tip_i) else np.zeros((0, 2))
        arrows = np.flatnonzero(_inside(tips, rect)) if len(tips) else np.zeros(0, dtype=np.int64)
        labelled = self.labels_in(rect)
        if max(arrows.size, labelled.size) > MAX_LABELLED_EDGES:
            return
        self._paint_arrows(painter, arrows)
        label_level = st.label_level(lod)
        if label_level == BOXES:
            return
        self._paint_labels(painter, labelled, label_level == FULL)

    def _paint_lines(self, painter: QtGui.QPainter, rect: QtCore.QRectF) -> bool:
        """The lines crossing ``rect``, each kind with its pen; False when none does."""
        s = self.paint_segs
        seen = (
            (np.maximum(s[:, 0], s[:, 2]) >= rect.left())
            & (np.minimum(s[:, 0], s[:, 2]) <= rect.right())
            & (np.maximum(s[:, 1], s[:, 3]) >= rect.top())
            & (np.minimum(s[:, 1], s[:, 3]) <= rect.bottom())
        )
        if not seen.any():
            return False
        painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        if int(seen.sum()) > 12000:  # thousands of hairlines: antialiasing costs, shows nothing
            painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, False)
        for kind, pen in enumerate(self.style.edge_pens):
            sel = seen & (self.paint_kinds == kind)
            if sel.any():
                painter.setPen(pen)
                painter.drawPath(_lines_path(s[sel]))
        return True

    def _paint_arrows(self, painter: QtGui.QPainter, arrows: np.ndarray) -> None:
        """An arrowhead at the tip of each edge in ``arrows``, in its kind's colour."""
        st = self.style
        pts = self.drawing.points
        a = 7.0 * st.scale
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        for k in arrows.tolist():
            x2, y2 = pts[self.tip_i[k]]
            x1, y1 = pts[self.from_i[k]]
            ang = math.atan2(y2 - y1, x2 - x1)
            painter.setBrush(st.edge_pens[int(self.kinds[self.arrow_edges[k]])].color())
            painter.drawPolygon([
                QtCore.QPointF(x2, y2),
                QtCore.QPointF(x2 - a * math.cos(ang - 0.4), y2 - a * math.sin(ang - 0.4)),
                QtCore.QPointF(x2 - a * math.cos(ang + 0.4), y2 - a * math.sin(ang + 0.4)),
            ])

    def _paint_labels(self, painter: QtGui.QPainter, labelled: np.ndarray, full: bool) -> None:
        """The labels of the edges in ``labelled`` where the layout placed them: every line
        while readable (``full``), else the shape alone (larger); and the ``+N`` badges."""
        st = self.style
        rects = self.drawing.label_rects
        painter.setFont(st.label_font if full else st.shape_label_font())
        for i in labelled.tolist():
            label = self.labels[i]
            if not label or rects is None:
                continue
            kind = int(self.kinds[i])
            self._paint_label(painter, label, rects[i].tolist(), full,
                              st.edge_pens[kind].color() if kind == 1 else st.muted)
        for _, text, rect in self.drawing.badges:
            self._paint_label(painter, text, list(rect), full, st.muted)

    def _paint_label(self, painter: QtGui.QPainter, label: str, rect: list[float], full: bool,
                     colour: QtGui.QColor) -> None:
        st = self.style
        shown, w, h = st.label_box(label, full)
        x, y, rw, rh = rect
        w, h = min(w, rw), min(h, rh)
        box = QtCore.QRectF(x + (rw - w) / 2, y + (rh - h) / 2, w, h)
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        painter.setBrush(st.label_bg)
        painter.drawRoundedRect(box, 3, 3)
        painter.setPen(colour)
        _draw_text(painter, box, shown, st, "label")


def _inside(xy: np.ndarray, rect: QtCore.QRectF) -> np.ndarray:
    """Which of the points ``xy`` (n x 2) lie in ``rect`` (its edges included)."""
    return ((xy[:, 0] >= rect.left()) & (xy[:, 0] <= rect.right())
            & (xy[:, 1] >= rect.top()) & (xy[:, 1] <= rect.bottom()))


# ---------------------------------------------------------------------------------------------
# the view


class GraphView(QtWidgets.QGraphicsView):
    """Shows a :class:`Drawing`; zoom with the wheel or ``+``/``-``, ``0`` fits, drag pans."""

    node_clicked = QtCore.Signal(object)  # node key (graph id or "const:NAME")
    edge_clicked = QtCore.Signal(object)  # edge key
    background_clicked = QtCore.Signal()
    zoomed = QtCore.Signal(float)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("GraphView")
        self.setScene(QtWidgets.QGraphicsScene(self))
        self.setDragMode(QtWidgets.QGraphicsView.DragMode.ScrollHandDrag)
        # no scroll bars: dragging pans, the wheel zooms, Fit shows all; scroll bars that come
        # and go would change the viewport, which re-fits, which brings them back...
        off = QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff
        self.setHorizontalScrollBarPolicy(off)
        self.setVerticalScrollBarPolicy(off)
        self.setTransformationAnchor(QtWidgets.QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QtWidgets.QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setViewportUpdateMode(QtWidgets.QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setRenderHints(QtGui.QPainter.RenderHint.Antialiasing
                            | QtGui.QPainter.RenderHint.TextAntialiasing)
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.StrongFocus)
        self.drawing: Drawing | None = None
        self.items_by_key: dict[Any, NodeItem] = {}
        self.nodes_by_key: dict[Any, DrawNode] = {}
        self.edge_layer: EdgeLayer | None = None
        self.node_layer: NodeLayer | None = None
        self.auto_fit = True
        self._fit_whole = False
        self._content = QtCore.QRectF()  # the drawing's own extent, without the margin
        self._press: QtCore.QPoint | None = None
        self._selected: Any = None
        self.style_ = self.make_style()
        #: what is outside the view, when a fit could not show everything readably
        self.outside_note = QtWidgets.QLabel(self)
        self.outside_note.setObjectName("GraphOutsideNote")
        self.outside_note.setWordWrap(True)
        self.outside_note.setAttribute(
            QtCore.Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.outside_note.hide()
        self._apply_background()

    # -- style -------------------------------------------------------------------------------

    @staticmethod
    def make_style() -> GraphStyle:
        st = theme.state()
        return GraphStyle(GraphColors.from_theme(st.theme), st.scale)

    def restyle(self) -> GraphStyle:
        """Take the current theme and scale; returns the new style (the caller re-draws when
        the scale changed, since node sizes depend on it)."""
        self.style_ = self.make_style()
        self._apply_background()
        for item in self.items_by_key.values():
            item.style = self.style_
            item.update()
        for layer in (self.edge_layer, self.node_layer):
            if layer is not None:
                layer.style = self.style_
                layer.update()
        return self.style_

    def drawn_texts(self) -> list[DrawnText]:
        """Paint the visible area once and return every text drawn, with its size on screen
        (a test hook: what a person would read, and how large)."""
        st = self.style_
        drawn: list[DrawnText] = []
        st.recording = drawn
        try:
            self.viewport().grab()
        finally:
            st.recording = None
        return drawn

    def _apply_background(self) -> None:
        c = self.style_.colors
        self.setBackgroundBrush(QtGui.QBrush(QtGui.QColor(c.background)))
        self.outside_note.setStyleSheet(
            f"QLabel#GraphOutsideNote {{ color: {c.text}; background: {c.label_bg}; "
            f"border: 1px solid {c.muted}; border-radius: 3px; padding: 2px 6px; }}")

    # -- content -----------------------------------------------------------------------------

    def clear(self) -> None:
        self.scene().clear()
        self.items_by_key = {}
        self.nodes_by_key = {}
        self.edge_layer = None
        self.node_layer = None
        self.drawing = None
        self.outside_note.hide()

    def show_drawing(self, drawing: Drawing, *, keep_view: bool = False) -> None:
        """Replace the scene's content. ``keep_view``: keep zoom and centre (a re-draw of the
        same graph), else fit when auto-fit is on."""
        centre = self.mapToScene(self.viewport().rect().center())
        scene = self.scene()
        scene.clear()
        self.drawing = drawing
        self.edge_layer = EdgeLayer(drawing, self.style_)
        scene.addItem(self.edge_layer)
        self.nodes_by_key = {n.key: n for n in drawing.nodes}
        items: dict[Any, NodeItem] = {}
        self.node_layer = None
        if len(drawing.nodes) > LAYER_ABOVE:
            self.node_layer = NodeLayer(drawing, self.style_)
            self.node_layer.selected_key = self._selected
            scene.addItem(self.node_layer)
            rect = self.node_layer.boundingRect()
        else:
            for node in drawing.nodes:
                item = NodeItem(node, self.style_)
                scene.addItem(item)
                items[node.key] = item
            if self._selected in items:
                items[self._selected].selected = True
            rect = QtCore.QRectF()
            for item in items.values():
                rect = rect.united(item.sceneBoundingRect())
        self.items_by_key = items
        if drawing.edge_keys:  # lanes round the drawing lie outside the boxes
            x0, y0, x1, y1 = drawing.bounds()
            rect = rect.united(QtCore.QRectF(x0, y0, x1 - x0, y1 - y0))
        self._content = rect  # what fitting shows
        m = 8.0 * self.style_.scale
        scene.setSceneRect(rect.adjusted(-m, -m, m, m))
        if keep_view and not self.auto_fit:
            self.centerOn(centre)
        else:
            self.fit(whole=keep_view and self._fit_whole)

    def update_texts(
        self, texts: Mapping[Any, NodeText], labels: Sequence[str], kinds: np.ndarray
    ) -> None:
        """New node texts and edge labels, same geometry (big graphs after backward)."""
        for key, text in texts.items():
            node = self.nodes_by_key.get(key)
            if node is not None:
                node.text = text
            item = self.items_by_key.get(key)
            if item is not None:
                item.set_text(text)
        if self.node_layer is not None:
            self.node_layer.update()
        if self.edge_layer is not None:
            self.edge_layer.set_labels(labels, kinds)

    def select(self, key: Any) -> None:
        """Outline ``key``'s node (None: no selection)."""
        old = self.items_by_key.get(self._selected)
        if old is not None:
            old.selected = False
            old.update()
        self._selected = key
        new = self.items_by_key.get(key)
        if new is not None:
            new.selected = True
            new.update()
        if self.node_layer is not None:
            self.node_layer.selected_key = key
            self.node_layer.update()

    # -- zoom --------------------------------------------------------------------------------

    def current_scale(self) -> float:
        return float(self.transform().m11())

    def zoom(self, factor: float, *, user: bool = True) -> None:
        """Multiply the zoom by ``factor`` (kept within sensible bounds)."""
        s = self.current_scale()
        target = min(MAX_SCALE, max(MIN_SCALE, s * factor))
        if s > 0 and target != s:
            self.scale(target / s, target / s)
        if user:
            self.auto_fit = False
        self._update_outside()
        self.zoomed.emit(self.current_scale())

    def fit(self, *, whole: bool = True) -> None:
        """Show as much of the graph as can be read: the whole graph (never magnified beyond
        ``MAX_FIT_SCALE``) when every box's title and every edge label fits the window's
        minimum text size (:meth:`GraphStyle.titles_zoom`); else, at that least readable
        zoom, the root and every named leaf when they fit, else the root at the bottom of the
        view, where backward starts, with as much above it as fits (Fit, ``whole``: at that
        least zoom; a graph just shown: every line readable). A line over the view says how
        many boxes are outside (:meth:`outside_text`). Resizing keeps fitting until the user
        zooms or pans."""
        rect = self.sceneRect() if self._content.isEmpty() else self._content
        if rect.isEmpty() or self.drawing is None:
            return
        pad = 6.0 * self.style_.scale
        rect = rect.adjusted(-pad, -pad, pad, pad)
        self.resetTransform()
        self.fitInView(rect, QtCore.Qt.AspectRatioMode.KeepAspectRatio)
        s = self.current_scale()
        floor = self.style_.titles_zoom(self.drawing)
        if s > MAX_FIT_SCALE:
            self._zoom_on(MAX_FIT_SCALE, rect.center())
        elif s < floor:
            self._fit_part(rect, floor, pad, whole)
        self._fit_whole = whole
        self.auto_fit = True
        self._update_outside()
        self.zoomed.emit(self.current_scale())

    def _fit_part(self, rect: QtCore.QRectF, floor: float, pad: float, whole: bool) -> None:
        """The root and the named leaves when they fit at zoom ``floor`` (as large as they
        fit, up to every line readable); else the root at the bottom, at ``floor`` for Fit
        (``whole``: the largest readable part), every line readable for a first view
        (``rect``: the whole drawing)."""
        full = max(floor, self.style_.readable_zoom())
        vw = self.viewport().width() / floor
        vh = self.viewport().height() / floor
        root = self.nodes_by_key.get(0)
        if root is None:
            self._zoom_on(floor, rect.center())
            return
        part = QtCore.QRectF(root.x - root.w / 2, root.y - root.h / 2, root.w, root.h)
        for n in self.nodes_by_key.values():
            if n.text.kind == "leaf" and n.text.title != "AccumulateGrad":
                part = part.united(QtCore.QRectF(n.x - n.w / 2, n.y - n.h / 2, n.w, n.h))
        part = part.adjusted(-pad, -pad, pad, pad)
        if part.width() <= vw and part.height() <= vh:
            zoom = max(floor, min(full, self.viewport().width() / part.width(),
                                  self.viewport().height() / part.height()))
            vw = self.viewport().width() / zoom
            vh = self.viewport().height() / zoom
            c = part.center()
            # as much of the drawing as the view holds, the part in it
            cx = min(max(c.x(), rect.left() + vw / 2), rect.right() - vw / 2)
            cy = min(max(c.y(), rect.top() + vh / 2), rect.bottom() - vh / 2)
            if rect.width() < vw:
                cx = rect.center().x()
            cx = min(max(cx, part.right() - vw / 2), part.left() + vw / 2)
            cy = min(max(cy, part.bottom() - vh / 2), part.top() + vh / 2)
            self._zoom_on(zoom, QtCore.QPointF(cx, cy))
            return
        # the root's row at the bottom, as much above it as fits
        zoom = floor if whole else full
        vh = self.viewport().height() / zoom
        bottom = max(rect.bottom(), root.y + root.h / 2 + pad)
        self._zoom_on(zoom, QtCore.QPointF(root.x, bottom - vh / 2))

    def _zoom_on(self, zoom: float, centre: QtCore.QPointF) -> None:
        self.resetTransform()
        self.scale(zoom, zoom)
        self.centerOn(centre)

    def visible_scene_rect(self) -> QtCore.QRectF:
        """The part of the scene the viewport shows."""
        return self.mapToScene(self.viewport().rect()).boundingRect()

    def outside(self) -> tuple[int, int]:
        """How many boxes are (partly) outside the view, and how many there are."""
        if not self.nodes_by_key:
            return 0, 0
        r = self.visible_scene_rect()
        out = sum(1 for n in self.nodes_by_key.values()
                  if n.x - n.w / 2 < r.left() - 0.5 or n.x + n.w / 2 > r.right() + 0.5
                  or n.y - n.h / 2 < r.top() - 0.5 or n.y + n.h / 2 > r.bottom() + 0.5)
        return out, len(self.nodes_by_key)

    def outside_text(self) -> str:
        """The line over the view when boxes are outside it (empty when all are in view)."""
        out, total = self.outside()
        if not out:
            return ""
        return self.tr("{0} of {1} boxes are outside the view: drag to see them, or "
                       "zoom out (−)").format(out, total)

    def _update_outside(self) -> None:
        text = self.outside_text() if self.drawing is not None else ""
        self.outside_note.setText(text)
        self.outside_note.setVisible(bool(text))
        self._place_note()

    def _place_note(self) -> None:
        note = self.outside_note
        if not note.isVisible():
            return
        vp = self.viewport().geometry()
        note.setMaximumWidth(max(vp.width() - 8, 40))
        note.adjustSize()
        note.move(vp.left() + 4, vp.bottom() - note.height() - 3)
        note.raise_()

    def retranslate(self) -> None:
        """Say the line over the view in the language just installed."""
        self._update_outside()

    def wheelEvent(self, e: QtGui.QWheelEvent) -> None:
        steps = e.angleDelta().y() / 120.0
        if steps:
            self.zoom(1.15**steps)
        e.accept()

    def keyPressEvent(self, e: QtGui.QKeyEvent) -> None:
        key = e.key()
        if key in (QtCore.Qt.Key.Key_Plus, QtCore.Qt.Key.Key_Equal):
            self.zoom(1.25)
        elif key == QtCore.Qt.Key.Key_Minus:
            self.zoom(0.8)
        elif key == QtCore.Qt.Key.Key_0:
            self.fit(whole=True)
        else:
            super().keyPressEvent(e)

    def resizeEvent(self, e: QtGui.QResizeEvent) -> None:
        super().resizeEvent(e)
        if self.auto_fit and self.drawing is not None:
            self.fit(whole=self._fit_whole)
        else:
            self._update_outside()

    # -- clicks ------------------------------------------------------------------------------

    def mousePressEvent(self, e: QtGui.QMouseEvent) -> None:
        self._press = e.position().toPoint()
        super().mousePressEvent(e)

    def mouseReleaseEvent(self, e: QtGui.QMouseEvent) -> None:
        super().mouseReleaseEvent(e)
        press, self._press = self._press, None
        if press is None:
            return
        pos = e.position().toPoint()
        if (pos - press).manhattanLength() > 4:
            self.auto_fit = False  # the user panned
            self._update_outside()
            return
        self.click_at(pos)

    def click_at(self, pos: QtCore.QPoint) -> None:
        """Handle a click at viewport position ``pos``: a node, else the nearest edge."""
        for item in self.items(pos):
            if isinstance(item, NodeItem):
                self.node_clicked.emit(item.key)
                return
        if self.node_layer is not None:
            hit = self.node_layer.node_at(self.mapToScene(pos))
            if hit is not None:
                self.node_clicked.emit(hit)
                return
        key = self.edge_at(self.mapToScene(pos), 6.0 / max(self.current_scale(), 1e-6))
        if key is not None:
            self.edge_clicked.emit(key)
        else:
            self.background_clicked.emit()

    def edge_at(self, p: QtCore.QPointF, tolerance: float) -> Any:
        """The key of the edge nearest to scene point ``p`` within ``tolerance``, or None
        (the distance to any straight piece of its polyline)."""
        d = self.drawing
        if d is None or not len(d.segments):
            return None
        r = d.label_rects
        if r is not None and len(r) and self.edge_layer is not None:
            hit = self.edge_layer.labels_in(QtCore.QRectF(p, p))
            if hit.size:
                return d.edge_keys[int(hit[0])]
        s = d.segments
        ax, ay, bx, by = s[:, 0], s[:, 1], s[:, 2], s[:, 3]
        dx, dy = bx - ax, by - ay
        length2 = np.maximum(dx * dx + dy * dy, 1e-12)
        t = np.clip(((p.x() - ax) * dx + (p.y() - ay) * dy) / length2, 0.0, 1.0)
        dist = np.hypot(ax + t * dx - p.x(), ay + t * dy - p.y())
        i = int(np.argmin(dist))
        return d.edge_keys[int(d.segment_edges[i])] if dist[i] <= tolerance else None

    def edge_midpoint(self, key: Any) -> QtCore.QPointF | None:
        """A scene point on an edge's polyline, in the gap above its consumer (where its label
        is; tests click there)."""
        d = self.drawing
        if d is None or key not in d.edge_keys:
            return None
        x, y = d.label_points[d.edge_keys.index(key)]
        return QtCore.QPointF(float(x), float(y))
