"""Drawing of an autograd graph: a zoomable, pannable ``QGraphicsView`` of a layered DAG.

Two halves, so that the expensive part can run in a worker thread:

- :func:`compute_drawing` (no widgets, thread-safe) turns a graph (a traced
  :class:`~tensor_explorer.core.autograd.Graph` or a
  :class:`~tensor_explorer.core.graph_layout.CollapsedGraph`) plus the text of each node into a
  :class:`Drawing`: node boxes sized from a per-character width table measured on the UI thread
  (:class:`TextMetrics`), placed by :func:`~tensor_explorer.core.graph_layout.layout` (leaves on
  top, the root at the bottom), and edge segments with their labels. Cut-off constants (values
  made under ``no_grad`` / ``inference_mode`` or by ``detach``) are placed apart, in a column to
  the right of the graph, with dashed "cut" edges from the nodes they were computed from.
- :class:`GraphView` shows a :class:`Drawing`: one light item per node (:class:`NodeItem`) and
  a single :class:`EdgeLayer` that paints only the edges crossing the exposed area. Text is
  drawn only when it would be readable (level of detail from the zoom), so a 20k-node graph
  fitted to the window costs a few filled rectangles per node. Wheel, ``+``/``-`` and ``0``
  zoom (``0``: fit), dragging pans; a click (press and release without moving) on a node or
  near an edge emits :attr:`GraphView.node_clicked` / :attr:`GraphView.edge_clicked`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from ..core.graph_layout import layout
from . import theme

#: node kinds drawn: the core's kinds plus "const" (a cut-off constant drawn apart)
KINDS = ("root", "op", "leaf", "group", "const")
MAX_FIT_SCALE = 2.5  # "fit" never magnifies a small graph beyond this (readable, not huge)
MIN_SCALE, MAX_SCALE = 0.01, 8.0
# Thresholds on the *text's* on-screen size: zoom times the style's scale (presentation mode
# draws larger text, so it stays readable at a smaller zoom)
TEXT_LOD = 0.45  # below this, nodes are drawn without text
EDGE_LABEL_LOD = 0.6  # below this (or with too many edges in view), no edge labels
MAX_LABELLED_EDGES = 400
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


_WIDE_FROM = 0x1100  # from Hangul Jamo on, characters are drawn about as wide as a CJK one


@dataclass(frozen=True)
class TextMetrics:
    """Character advances of the title and body fonts, so node sizes can be computed in a
    worker thread (Qt's font classes are for the UI thread)."""

    title_advance: dict[str, float]
    body_advance: dict[str, float]
    title_default: float
    body_default: float
    title_height: float
    body_height: float
    scale: float
    title_wide: float = 0.0  # advance of a CJK character (0: use the default)
    body_wide: float = 0.0

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

    @staticmethod
    def _width(text: str, adv: dict[str, float], default: float, wide: float) -> float:
        if text.isascii():
            return sum([adv.get(c, default) for c in text])
        wide = max(wide, default)
        return sum([adv.get(c, wide if ord(c) >= _WIDE_FROM else default) for c in text])

    def title_width(self, text: str) -> float:
        return self._width(text, self.title_advance, self.title_default, self.title_wide)

    def body_width(self, text: str) -> float:
        return self._width(text, self.body_advance, self.body_default, self.body_wide)


# ---------------------------------------------------------------------------------------------
# the drawing (plain data)


@dataclass
class NodeText:
    """What a node box says: a title (bold) and a few lines below it."""

    title: str
    lines: list[str] = field(default_factory=list)
    kind: str = "op"
    named: bool = False  # a named intermediate (or the named root): accent border
    stale: bool = False  # holds a saved tensor changed in place: warning border
    tooltip: str = ""


@dataclass
class DrawNode:
    """A node box: ``key`` is the graph node id, or ``"const:NAME"`` for a constant."""

    key: Any
    text: NodeText
    x: float  # centre
    y: float  # centre
    w: float
    h: float


@dataclass
class Drawing:
    """Everything :class:`GraphView` needs to draw a graph, in scene coordinates."""

    nodes: list[DrawNode]
    edge_keys: list[Any]  # per edge: (src, dst) of the shown graph, or ("cut", from, const)
    segments: np.ndarray  # (E, 4): x1, y1 (input node's bottom), x2, y2 (consumer's top)
    edge_kinds: np.ndarray  # (E,) int: 0 plain, 1 carried a gradient, 2 cut
    edge_labels: list[str]
    metrics: TextMetrics

    def node(self, key: Any) -> DrawNode | None:
        for n in self.nodes:
            if n.key == key:
                return n
        return None


def node_size(text: NodeText, m: TextMetrics) -> tuple[float, float]:
    """Box width and height for a node's text (padding scales with presentation mode)."""
    pad = 10.0 * m.scale
    w = m.title_width(text.title)
    for line in text.lines:
        w = max(w, m.body_width(line))
    w = min(w, 420.0 * m.scale) + 2 * pad
    h = m.title_height + len(text.lines) * m.body_height + 1.2 * pad
    return max(w, 60.0 * m.scale), h


def compute_drawing(
    graph: Any,
    texts: Mapping[Any, NodeText],
    edge_labels: Mapping[Any, str],
    edge_kinds: Mapping[Any, int],
    metrics: TextMetrics,
    *,
    constants: Sequence[tuple[str, NodeText, Sequence[int]]] = (),
    cancel: Callable[[], bool] | None = None,
) -> Drawing:
    """Size, place and connect the nodes of ``graph`` (thread-safe; no widgets).

    Args:
        graph: anything with ``nodes`` (having ``id``) and ``edges`` ``(src, dst)``.
        texts: node id -> :class:`NodeText`.
        edge_labels, edge_kinds: per edge of ``graph``; missing: empty label, kind 0.
        metrics: character widths measured on the UI thread.
        constants: ``(name, text, [node ids it was computed from])`` of cut-off values,
            placed in a column right of the graph with a cut edge from each of those nodes.
        cancel: passed to the layout (raises ``LayoutCancelled``).
    """
    m = metrics
    cache: dict[tuple[str, tuple[str, ...]], tuple[float, float]] = {}
    sizes: dict[Any, tuple[float, float]] = {}
    for nid, t in texts.items():  # many nodes say the same thing ("MulBackward0", "(16,)")
        k = (t.title, tuple(t.lines))
        size = cache.get(k)
        if size is None:
            size = cache[k] = node_size(t, m)
        sizes[nid] = size
    gap = 28.0 * m.scale
    max_h = max((h for _, h in sizes.values()), default=40.0)
    row = max_h + m.body_height + 24.0 * m.scale  # room for an edge label between rows
    pos = layout(
        graph,
        node_gap=gap,
        layer_gap=row,
        widths={nid: s[0] for nid, s in sizes.items()},
        cancel=cancel,
    )
    nodes: list[DrawNode] = []
    where: dict[Any, DrawNode] = {}
    for node in graph.nodes:
        nid = node.id
        x, y = pos[nid]
        w, h = sizes[nid]
        dn = DrawNode(nid, texts[nid], x, y, w, h)
        nodes.append(dn)
        where[nid] = dn
    right = max((d.x + d.w / 2 for d in nodes), default=0.0)
    keys: list[Any] = []
    segs: list[tuple[float, float, float, float]] = []
    kinds: list[int] = []
    labels: list[str] = []
    for key in graph.edges:
        src, dst = where[key[0]], where[key[1]]  # src consumes dst's output
        keys.append(key)
        segs.append((dst.x, dst.y + dst.h / 2, src.x, src.y - src.h / 2))
        kinds.append(int(edge_kinds.get(key, 0)))
        labels.append(edge_labels.get(key, ""))
    cy = 0.0
    for name, text, sources in constants:
        w, h = node_size(text, m)
        dn = DrawNode(f"const:{name}", text, right + 3 * gap + w / 2, cy + h / 2, w, h)
        placed = [where[s] for s in sources if s in where]
        if placed:  # next to the lowest node it was computed from
            dn.y = max(cy + h / 2, max(p.y for p in placed) + row / 2)
        cy = dn.y + h / 2 + gap
        nodes.append(dn)
        for p in placed:
            keys.append(("cut", p.key, name))
            segs.append((p.x + p.w / 2, p.y, dn.x - dn.w / 2, dn.y))
            kinds.append(2)
            labels.append("")
    seg_arr = np.asarray(segs, dtype=np.float64).reshape(-1, 4)
    return Drawing(nodes, keys, seg_arr, np.asarray(kinds, dtype=np.int64), labels, m)


# ---------------------------------------------------------------------------------------------
# style shared by the items


class GraphStyle:
    """Fonts, pens and brushes the items paint with (rebuilt on a theme or scale change)."""

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

    def text_size(self, zoom: float) -> float:
        """The text's on-screen size at ``zoom`` (1 = normal text at 100 %): what the
        ``*_LOD`` thresholds are compared with."""
        return zoom * self.scale

    def readable_zoom(self) -> float:
        """The least zoom at which the drawing's smallest text is at least the window's
        minimum text size (:func:`theme.min_point_size`; larger in presentation mode)."""
        return theme.min_point_size() / (theme.BASE_POINT_SIZE * SMALL_TEXT * self.scale)


# ---------------------------------------------------------------------------------------------
# items


class NodeItem(QtWidgets.QGraphicsItem):
    """A node box; paints its text only when readable at the current zoom."""

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


def paint_node(
    painter: QtGui.QPainter,
    rect: QtCore.QRectF,
    text: NodeText,
    st: GraphStyle,
    lod: float,
    selected: bool,
) -> None:
    """Draw one node box in ``rect``: coloured by kind, with its text when readable."""
    kind = text.kind
    if selected:  # a halo around the box; the border keeps its meaning
        painter.setPen(st.selected_pen)
        painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        m = 4.0 * st.scale
        painter.drawRoundedRect(rect.adjusted(-m, -m, m, m), 9 * st.scale, 9 * st.scale)
    pen = _node_pen(text, st)
    painter.setBrush(st.brushes.get(kind, st.brushes["op"]))
    if st.text_size(lod) < TEXT_LOD:
        painter.setPen(pen if lod > 0.1 else QtCore.Qt.PenStyle.NoPen)
        painter.drawRect(rect)
        return
    painter.setPen(pen)
    r = 7.0 * st.scale
    painter.drawRoundedRect(rect, r, r)
    metrics = st.metrics
    pad = 10.0 * st.scale
    inner = rect.adjusted(pad, 0.6 * pad, -pad, 0)
    painter.setPen(st.text)
    painter.setFont(st.title_font)
    title_rect = QtCore.QRectF(inner.left(), inner.top(), inner.width(), metrics.title_height)
    painter.drawText(title_rect, QtCore.Qt.AlignmentFlag.AlignCenter,
                     _elide(text.title, st.title_font, inner.width()))
    painter.setFont(st.body_font)
    y = title_rect.bottom()
    for i, line in enumerate(text.lines):
        painter.setPen(st.text if i == len(text.lines) - 1 and kind == "leaf" else st.muted)
        line_rect = QtCore.QRectF(inner.left(), y, inner.width(), metrics.body_height)
        painter.drawText(line_rect, QtCore.Qt.AlignmentFlag.AlignCenter,
                         _elide(line, st.body_font, inner.width()))
        y += metrics.body_height


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
        if st.text_size(lod) >= TEXT_LOD and idx.size <= 2000:
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


class EdgeLayer(QtWidgets.QGraphicsItem):
    """All edges in one item: paints only the segments crossing the exposed area; arrowheads
    and labels only when zoomed in enough and few edges are in view."""

    def __init__(self, drawing: Drawing, style: GraphStyle) -> None:
        super().__init__()
        self.style = style
        self.segments = drawing.segments
        self.kinds = drawing.edge_kinds.copy()
        self.labels = list(drawing.edge_labels)
        self.setZValue(-1)
        self.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        self.setFlag(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)
        s = self.segments
        if len(s):
            x0 = float(min(s[:, 0].min(), s[:, 2].min()))
            x1 = float(max(s[:, 0].max(), s[:, 2].max()))
            y0 = float(min(s[:, 1].min(), s[:, 3].min()))
            y1 = float(max(s[:, 1].max(), s[:, 3].max()))
            m = 80.0 * style.scale
            self._rect = QtCore.QRectF(x0 - m, y0 - m, x1 - x0 + 2 * m, y1 - y0 + 2 * m)
        else:
            self._rect = QtCore.QRectF()

    def boundingRect(self) -> QtCore.QRectF:
        return self._rect

    def set_labels(self, labels: Sequence[str], kinds: np.ndarray) -> None:
        self.labels = list(labels)
        self.kinds = kinds
        self.update()

    def visible(self, rect: QtCore.QRectF) -> np.ndarray:
        """Indices of the edges whose bounding box meets ``rect``."""
        s = self.segments
        if not len(s):
            return np.zeros(0, dtype=np.int64)
        lo_x = np.minimum(s[:, 0], s[:, 2])
        hi_x = np.maximum(s[:, 0], s[:, 2])
        lo_y = np.minimum(s[:, 1], s[:, 3])
        hi_y = np.maximum(s[:, 1], s[:, 3])
        mask = (
            (hi_x >= rect.left()) & (lo_x <= rect.right())
            & (hi_y >= rect.top()) & (lo_y <= rect.bottom())
        )
        return np.flatnonzero(mask)

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
        s = self.segments
        kinds = self.kinds
        painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        if idx.size > 3000:  # thousands of hairlines: antialiasing costs, and shows nothing
            painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, False)
        for kind, pen in enumerate(st.edge_pens):
            sel = idx[kinds[idx] == kind]
            if not sel.size:
                continue
            painter.setPen(pen)
            painter.drawLines([QtCore.QLineF(*row) for row in s[sel].tolist()])
        if st.text_size(lod) < EDGE_LABEL_LOD or idx.size > MAX_LABELLED_EDGES:
            return
        # arrowheads at the consuming end (data flows down; gradient flows back up)
        a = 7.0 * st.scale
        for i in idx.tolist():
            x1, y1, x2, y2 = s[i]
            ang = math.atan2(y2 - y1, x2 - x1)
            pen = st.edge_pens[int(kinds[i])]
            painter.setPen(QtCore.Qt.PenStyle.NoPen)
            painter.setBrush(pen.color())
            pts = [
                QtCore.QPointF(x2, y2),
                QtCore.QPointF(x2 - a * math.cos(ang - 0.4), y2 - a * math.sin(ang - 0.4)),
                QtCore.QPointF(x2 - a * math.cos(ang + 0.4), y2 - a * math.sin(ang + 0.4)),
            ]
            painter.drawPolygon(pts)
        painter.setFont(st.label_font)
        fm = QtGui.QFontMetricsF(st.label_font)
        for i in idx.tolist():
            label = self.labels[i]
            if not label:
                continue
            x1, y1, x2, y2 = s[i]
            lines = label.split("\n")
            w = max(fm.horizontalAdvance(t) for t in lines) + 8 * st.scale
            h = fm.height() * len(lines) + 2 * st.scale
            cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
            rect = QtCore.QRectF(cx - w / 2, cy - h / 2, w, h)
            painter.setPen(QtCore.Qt.PenStyle.NoPen)
            painter.setBrush(st.label_bg)
            painter.drawRoundedRect(rect, 3, 3)
            painter.setPen(st.edge_pens[int(kinds[i])].color() if kinds[i] == 1 else st.muted)
            painter.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter, label)


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

    def _apply_background(self) -> None:
        self.setBackgroundBrush(QtGui.QBrush(QtGui.QColor(self.style_.colors.background)))

    # -- content -----------------------------------------------------------------------------

    def clear(self) -> None:
        self.scene().clear()
        self.items_by_key = {}
        self.nodes_by_key = {}
        self.edge_layer = None
        self.node_layer = None
        self.drawing = None

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
        self.zoomed.emit(self.current_scale())

    def fit(self, *, whole: bool = True) -> None:
        """Show the whole graph (never magnified beyond ``MAX_FIT_SCALE``); resizing keeps
        fitting until the user zooms or pans.

        ``whole=False`` (a graph just shown): when the whole graph would draw its text below
        the window's minimum size (a deep network, a projector), start instead at the least
        readable zoom on the root, at the bottom of the view, where backward starts; the Fit
        button (``0``) still shows everything.
        """
        rect = self.sceneRect() if self._content.isEmpty() else self._content
        if rect.isEmpty():
            return
        pad = 6.0 * self.style_.scale
        rect = rect.adjusted(-pad, -pad, pad, pad)
        self.resetTransform()
        self.fitInView(rect, QtCore.Qt.AspectRatioMode.KeepAspectRatio)
        s = self.current_scale()
        root = self.nodes_by_key.get(0)
        if s > MAX_FIT_SCALE:
            self.resetTransform()
            self.scale(MAX_FIT_SCALE, MAX_FIT_SCALE)
            self.centerOn(rect.center())
        elif not whole and root is not None and s < self.style_.readable_zoom():
            start = self.style_.readable_zoom()
            self.resetTransform()
            self.scale(start, start)
            half = self.viewport().height() / 2 / start
            # the bottom of the drawing (the root's row) at the bottom of the view: as much
            # of the graph above it as fits
            self.centerOn(root.x, max(rect.bottom(), root.y + root.h / 2 + pad) - half)
        self._fit_whole = whole
        self.auto_fit = True
        self.zoomed.emit(self.current_scale())

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
        """The key of the edge nearest to scene point ``p`` within ``tolerance``, or None."""
        d = self.drawing
        if d is None or not len(d.segments):
            return None
        s = d.segments
        ax, ay, bx, by = s[:, 0], s[:, 1], s[:, 2], s[:, 3]
        dx, dy = bx - ax, by - ay
        length2 = np.maximum(dx * dx + dy * dy, 1e-12)
        t = np.clip(((p.x() - ax) * dx + (p.y() - ay) * dy) / length2, 0.0, 1.0)
        dist = np.hypot(ax + t * dx - p.x(), ay + t * dy - p.y())
        i = int(np.argmin(dist))
        return d.edge_keys[i] if dist[i] <= tolerance else None

    def edge_midpoint(self, key: Any) -> QtCore.QPointF | None:
        """Scene position of the middle of an edge (tests click there)."""
        d = self.drawing
        if d is None or key not in d.edge_keys:
            return None
        x1, y1, x2, y2 = d.segments[d.edge_keys.index(key)]
        return QtCore.QPointF((x1 + x2) / 2, (y1 + y2) / 2)
