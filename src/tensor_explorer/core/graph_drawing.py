"""The picture of an autograd graph as plain data: boxes, and one polyline per edge (no Qt).

:func:`compute_drawing` (thread-safe; what the graph pane runs in a worker) sizes each node's
box from its text (:class:`NodeText`, measured with a :class:`Metrics`: the pane's are measured
from its Qt fonts, :func:`estimate_metrics` is a Qt-free stand-in), places the nodes with
:func:`~tensor_explorer.core.graph_layout.place` (inputs above the ops that read them, the root
at the bottom) and routes every edge as a polyline that enters no box but its two ends':

- every row has a *band*, as tall as its tallest box, and the bands are separated by box-free
  gaps. A polyline is vertical inside a band (in its own node's column, or in a bus's slot) and
  bends only in the gaps, so it can cross other edges but never a box;
- an edge between adjacent rows leaves its consumer's top, slants across the gap and enters its
  input's bottom (ports spread along the box edges, ordered by where the other end is);
- an edge spanning more rows runs along its input's *bus* (one straight vertical line per node
  whose consumers are further down, in a slot each row keeps free) and leaves the bus in the gap
  above its consumer; so a weight read by every step of a loop shows an edge into each step;
- when buses would be too many points (see ``max_dummies`` of
  :func:`~tensor_explorer.core.graph_layout.place`), the rest go round the drawing through a
  lane in the left margin, crossing rows only in the gaps;
- cut-off constants (values made under ``no_grad`` / ``inference_mode`` or by ``detach``) are
  placed in a column to the right, with dashed "cut" edges leaving their sources' bottoms,
  running through the gap below them to a lane right of the graph, then to the constant.

Labels are part of the layout (``Drawing.labels``): each box title inside its box, and each
edge label in the gap above its consumer, on its own edge (the edge crosses its middle line).
A gap holds up to ``MAX_TRACKS`` rows of labels and is made as tall as its rows need; in each
row the labels are packed in two vectorised sweeps (leftmost without overlap, then as near
their edge's middle as their neighbours allow), so no two labels overlap and none meets a box;
the labels with no room give way to a ``+N`` badge over their consumer.
:meth:`Drawing.place_labels` places them again in the gaps a drawing has (the pane, after
backward on a big graph, with its own font's sizes).

``tx.layout`` (:func:`tensor_explorer.core.graph_session.layout`) draws a traced graph the
way the pane first shows it, with the pane's texts in English and estimated metrics.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from .autograd import no_gc
from .graph_layout import BUS, DIRECT, LANE, CollapsedGraph, place

__all__ = [
    "LABEL_GROW",
    "DrawNode",
    "Drawing",
    "LabelGeometry",
    "Metrics",
    "NodeText",
    "TextMetrics",
    "compute_drawing",
    "estimate_metrics",
    "label_size",
    "node_size",
    "pack_labels",
]

#: graphs with more nodes than this are first shown collapsed (repeats and chains folded)

_WIDE_FROM = 0x1100  # from Hangul Jamo on, characters are drawn about as wide as a CJK one


# ---------------------------------------------------------------------------------------------
# text metrics


class Metrics(Protocol):
    """What sizing a box needs: text widths and line heights in scene units, and the scale
    (presentation mode draws everything larger)."""

    @property
    def title_height(self) -> float: ...  # pragma: no cover - protocol

    @property
    def body_height(self) -> float: ...  # pragma: no cover - protocol

    @property
    def scale(self) -> float: ...  # pragma: no cover - protocol

    def title_width(self, text: str) -> float: ...  # pragma: no cover - protocol

    def body_width(self, text: str) -> float: ...  # pragma: no cover - protocol


@dataclass(frozen=True)
class TextMetrics:
    """Character advances of the title and body fonts, so node sizes can be computed in a
    worker thread (Qt's font classes are for the UI thread). The Qt view measures them from
    its fonts (``qt.graph_view.TextMetrics.measure``); :func:`estimate_metrics` makes them
    without Qt."""

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
    def _width(text: str, adv: dict[str, float], default: float, wide: float) -> float:
        if text.isascii():
            return sum([adv.get(c, default) for c in text])
        wide = max(wide, default)
        return sum([adv.get(c, wide if ord(c) >= _WIDE_FROM else default) for c in text])

    def title_width(self, text: str) -> float:
        return self._width(text, self.title_advance, self.title_default, self.title_wide)

    def body_width(self, text: str) -> float:
        return self._width(text, self.body_advance, self.body_default, self.body_wide)


# advances of printable ASCII (32..126) in the application's bundled sans font at scale 1:
# bold 10 pt titles and 9 pt bodies, as measured by Qt
_TITLE_ASCII = (
    3.38, 3.7, 6.12, 8.39, 7.42, 11.7, 9.75, 3.45, 4.41, 4.41, 7.08, 7.42, 3.7, 4.17, 3.7,
    5.36, 7.42, 7.42, 7.42, 7.42, 7.42, 7.42, 7.42, 7.42, 7.42, 7.42, 3.7, 3.7, 7.42, 7.42,
    7.42, 6.19, 11.66, 8.97, 8.73, 8.27, 9.61, 7.27, 7.12, 9.41, 9.94, 5.05, 4.3, 8.62, 7.34,
    12.25, 10.56, 10.34, 8.16, 10.34, 8.58, 7.16, 7.52, 9.81, 8.44, 12.56, 8.66, 8.11, 7.52,
    4.3, 5.36, 4.3, 7.42, 5.33, 4.7, 7.84, 8.22, 6.67, 8.22, 7.67, 5.02, 8.22, 8.53, 3.95,
    3.95, 8.05, 3.95, 12.77, 8.53, 8.05, 8.22, 8.22, 5.89, 6.45, 5.64, 8.53, 7.39, 11.12, 7.5,
    7.39, 6.34, 5.11, 7.16, 5.11, 7.42,
)
_BODY_ASCII = (
    3.11, 3.22, 4.89, 7.75, 6.86, 9.97, 8.78, 2.69, 3.59, 3.59, 6.61, 6.86, 3.2, 3.86, 3.2,
    4.45, 6.86, 6.86, 6.86, 6.86, 6.86, 6.86, 6.86, 6.86, 6.86, 6.86, 3.2, 3.2, 6.86, 6.86,
    6.86, 5.2, 10.78, 7.66, 7.8, 7.58, 8.75, 6.67, 6.22, 8.73, 8.89, 4.06, 3.27, 7.42, 6.28,
    10.88, 9.11, 9.36, 7.25, 9.36, 7.45, 6.58, 6.67, 8.77, 7.19, 11.16, 7.03, 6.78, 6.86, 3.94,
    4.45, 3.94, 6.86, 5.31, 3.36, 6.72, 7.38, 5.75, 7.38, 6.77, 4.12, 7.38, 7.41, 3.09, 3.09,
    6.41, 3.09, 11.22, 7.41, 7.25, 7.38, 7.38, 4.95, 5.73, 4.33, 7.41, 6.09, 9.42, 6.34, 6.11,
    5.62, 4.55, 6.61, 4.55, 6.86,
)
_SYMBOLS = {"‖": (7.16, 6.61), "…": (11.11, 9.48), "×": (7.42, 6.86), "·": (3.7, 3.2)}


def estimate_metrics(scale: float = 1.0) -> TextMetrics:
    """Metrics without Qt: the advances the pane measures for its bundled font at 100 %
    (other symbols as wide as an em), times ``scale``. Close to what the pane draws, so
    :func:`layout` gives about the pane's geometry."""
    chars = [chr(c) for c in range(32, 127)]
    title = {c: w * scale for c, w in zip(chars, _TITLE_ASCII, strict=True)}
    body = {c: w * scale for c, w in zip(chars, _BODY_ASCII, strict=True)}
    for c, (tw, bw) in _SYMBOLS.items():
        title[c], body[c] = tw * scale, bw * scale
    return TextMetrics(title, body, 13.0 * scale, 12.0 * scale, 17.69 * scale, 16.33 * scale,
                       scale, 13.0 * scale, 12.0 * scale)


# ---------------------------------------------------------------------------------------------
# the drawing


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


@dataclass(eq=False)
class Drawing:
    """Everything the graph pane draws, in scene coordinates (y grows downwards).

    ``nodes``: the boxes (graph nodes, then cut-off constants). Edges, in ``edge_keys`` order
    (the graph's ``(src, dst)`` edges, then ``("cut", node, constant name)``): edge ``i`` is the
    polyline ``points[offsets[i] : offsets[i + 1]]``, from ``src``'s box to ``dst``'s (a cut
    edge from its node to the constant); ``edge_kinds`` 0 plain, 1 carried a gradient, 2 cut;
    ``label_points[i]`` the middle of the polyline's piece in the gap above its consumer, where
    its label goes. ``groups``: each group node's members (a collapsed graph).
    """

    nodes: list[DrawNode]
    edge_keys: list[Any]
    points: np.ndarray  # (P, 2) float: every polyline's points, one polyline after another
    offsets: np.ndarray  # (E + 1,) int
    edge_kinds: np.ndarray  # (E,) int
    edge_labels: list[str]
    metrics: Metrics
    label_points: np.ndarray  # (E, 2) float
    group_members: dict[Any, list[int]] = field(default_factory=dict)
    label_geometry: LabelGeometry | None = None
    #: ``(E, 4)`` each edge label's place ``x, y, w, h`` (NaN: none; see :meth:`place_labels`)
    label_rects: np.ndarray | None = None
    #: ``[(consumer key, "+N", (x, y, w, h))]``: labels that found no place, counted
    badges: list[tuple[Any, str, tuple[float, float, float, float]]] = field(
        default_factory=list)
    _by_key: dict[Any, DrawNode] | None = field(default=None, init=False, repr=False)
    _title_widths: dict[str, float] = field(default_factory=dict, init=False, repr=False)
    _labels: list[tuple[Any, str, tuple[float, float, float, float]]] | None = field(
        default=None, init=False, repr=False)
    _segments: tuple[np.ndarray, np.ndarray] | None = field(default=None, init=False, repr=False)

    def node(self, key: Any) -> DrawNode | None:
        """The box of node ``key`` (a node id, a group's id or ``"const:NAME"``), or None."""
        if self._by_key is None or len(self._by_key) != len(self.nodes):
            self._by_key = {n.key: n for n in self.nodes}
        return self._by_key.get(key)

    def polyline(self, i: int) -> np.ndarray:
        """The points ``(k, 2)`` of edge ``i``."""
        return self.points[self.offsets[i] : self.offsets[i + 1]]

    @property
    def boxes(self) -> dict[Any, tuple[float, float, float, float]]:
        """``{key: (x, y, w, h)}``: each box by its top-left corner and size."""
        return {n.key: (n.x - n.w / 2, n.y - n.h / 2, n.w, n.h) for n in self.nodes}

    @property
    def groups(self) -> dict[Any, list[int]]:
        """``{group key: [node ids]}``: the original nodes each group box stands for."""
        return self.group_members

    @property
    def edges(self) -> list[tuple[Any, Any, list[tuple[float, float]]]]:
        """``[(src_key, dst_key, [(x, y), ...])]``: one polyline per drawn edge, from src's box
        to dst's (a cut edge: from its node to ``"const:NAME"``)."""
        pts = self.points.tolist()
        offs = self.offsets.tolist()
        out: list[tuple[Any, Any, list[tuple[float, float]]]] = []
        for i, key in enumerate(self.edge_keys):
            line = [(p[0], p[1]) for p in pts[offs[i] : offs[i + 1]]]
            if _is_cut(key):
                out.append((key[1], f"const:{key[2]}", line))
            else:
                out.append((key[0], key[1], line))
        return out

    @property
    def segments(self) -> np.ndarray:
        """``(S, 4)``: every straight piece ``x1, y1, x2, y2`` of every polyline (see
        :attr:`segment_edges` for whose)."""
        return self._segs()[0]

    @property
    def segment_edges(self) -> np.ndarray:
        """``(S,)``: the edge index of each of :attr:`segments`."""
        return self._segs()[1]

    def _segs(self) -> tuple[np.ndarray, np.ndarray]:
        if self._segments is None:
            counts = np.diff(self.offsets)
            edge = np.repeat(np.arange(counts.size), counts)
            if self.points.shape[0] > 1:
                same = edge[1:] == edge[:-1]
                seg = np.c_[self.points[:-1][same], self.points[1:][same]]
                self._segments = (seg, edge[1:][same])
            else:
                self._segments = (np.zeros((0, 4)), np.zeros(0, dtype=np.int64))
        return self._segments

    def title_rect(self, node: DrawNode) -> tuple[float, float, float, float]:
        """``(x, y, w, h)`` of a box's title line, inside its box (as the pane draws it)."""
        m = self.metrics
        pad = 10.0 * m.scale
        title = node.text.title
        width = self._title_widths.get(title)
        if width is None:
            width = self._title_widths[title] = m.title_width(title)
        tw = min(width, max(node.w - 2 * pad, 1.0))
        return (node.x - tw / 2, node.y - node.h / 2 + 0.6 * pad, tw, m.title_height)

    @property
    def labels(self) -> list[tuple[Any, str, tuple[float, float, float, float]]]:
        """``[(owner, text, (x, y, w, h))]``: every box title (owner: the box's key), every
        edge label placed (owner: ``(src_key, dst_key)``) and every badge ``+N`` (owner: the
        consumer whose ``N`` edge labels found no room); no two rectangles overlap, and none
        overlaps a box but its owner's."""
        if self._labels is None:
            with no_gc():
                self._labels = self._all_labels()
        return self._labels

    def _all_labels(self) -> list[tuple[Any, str, tuple[float, float, float, float]]]:
        m = self.metrics
        pad = 10.0 * m.scale
        widths = self._title_widths
        for t in {n.text.title for n in self.nodes} - widths.keys():
            widths[t] = m.title_width(t)
        nodes = [n for n in self.nodes if n.text.title]
        k = len(nodes)
        cx = np.fromiter((n.x for n in nodes), float, k)
        top = np.fromiter((n.y - n.h / 2 for n in nodes), float, k) + 0.6 * pad
        inner = np.fromiter((n.w for n in nodes), float, k) - 2 * pad
        tw = np.minimum(np.fromiter((widths[n.text.title] for n in nodes), float, k),
                        np.maximum(inner, 1.0))
        th = m.title_height
        out: list[tuple[Any, str, tuple[float, float, float, float]]] = [
            (n.key, n.text.title, (x0, y0, w0, th))
            for n, x0, y0, w0 in zip(nodes, (cx - tw / 2).tolist(), top.tolist(), tw.tolist(),
                                     strict=True)]
        rects = self.label_rects
        if rects is not None and len(rects):
            placed = np.flatnonzero(~np.isnan(rects[:, 0]))
            keys, texts = self.edge_keys, self.edge_labels
            for i, (x, y, w, h) in zip(placed.tolist(), rects[placed].tolist(), strict=True):
                k = keys[i]
                owner = (k[1], f"const:{k[2]}") if _is_cut(k) else (k[0], k[1])
                out.append((owner, texts[i], (x, y, w, h)))
        out.extend(self.badges)
        return out

    def place_labels(self, labels: Sequence[str] | None = None,
                     size: Callable[[str], tuple[float, float]] | None = None) -> None:
        """Place the edge labels again in the gaps the drawing has (after backward the labels
        of a big graph change but its geometry stays): ``labels`` the new texts (default: the
        drawing's), ``size`` a label's width and height (default: :func:`label_size` with the
        drawing's metrics; the pane passes what its font measures). A gap holds as many rows
        of labels as fit in it; the labels without room give way to a badge."""
        if labels is not None:
            self.edge_labels = list(labels)
        geo = self.label_geometry
        if geo is None:
            return
        w, h = _label_sizes(self.edge_labels, size or (lambda t: label_size(t, self.metrics)))
        th = np.zeros(geo.gap_top.size)
        has = (geo.gap >= 0) & (w > 0)
        np.maximum.at(th, geo.gap[has], h[has])
        th += 4.0 * geo.scale
        height = geo.gap_bot - geo.gap_top
        tracks = np.floor((height - 4.0 * geo.scale) / np.maximum(th, 1e-9)).astype(np.int64)
        tracks = np.clip(tracks, 0, MAX_TRACKS)
        x, y, on_edge = pack_labels(geo, w, h, tracks)
        self._set_labels(w, h, x, y, on_edge, tracks)

    def _set_labels(self, w: np.ndarray, h: np.ndarray, x: np.ndarray, y: np.ndarray,
                    on_edge: np.ndarray, tracks: np.ndarray) -> None:
        geo = self.label_geometry
        assert geo is not None
        self._labels = None
        self.badges = []
        if ((geo.gap >= 0) & (w > 0) & np.isnan(x)).any():
            src = [k[1] if _is_cut(k) else k[0] for k in self.edge_keys]
            by = {n.key: n for n in self.nodes}
            sx = np.array([by[k].x if k in by else 0.0 for k in src])
            half = np.array([by[k].w / 2 if k in by else 0.0 for k in src])
            self.badges = _badges(geo, src, sx, half, w, h, x, y, self.metrics, tracks)
        placed = ~np.isnan(x)
        if placed.any():  # the label's point: where its edge crosses it (clicked in tests)
            self.label_points = self.label_points.copy()
            self.label_points[placed] = on_edge[placed]
        self.label_rects = np.c_[x - w / 2, y - h / 2, w, h]

    def bounds(self) -> tuple[float, float, float, float]:
        """``(x0, y0, x1, y1)`` holding every box and every polyline."""
        if not self.nodes:
            return (0.0, 0.0, 0.0, 0.0)
        cx = np.array([n.x for n in self.nodes])
        cy = np.array([n.y for n in self.nodes])
        hw = np.array([n.w / 2 for n in self.nodes])
        hh = np.array([n.h / 2 for n in self.nodes])
        x0, x1 = float((cx - hw).min()), float((cx + hw).max())
        y0, y1 = float((cy - hh).min()), float((cy + hh).max())
        if self.points.size:
            x0 = min(x0, float(self.points[:, 0].min()))
            x1 = max(x1, float(self.points[:, 0].max()))
            y0 = min(y0, float(self.points[:, 1].min()))
            y1 = max(y1, float(self.points[:, 1].max()))
        return (x0, y0, x1, y1)


def _label_sizes(labels: Sequence[str], size: Callable[[str], tuple[float, float]]
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Widths and heights of ``labels`` (0 for an empty one), measuring each text once."""
    cache: dict[str, tuple[float, float]] = {"": (0.0, 0.0)}
    for t in set(labels) - {""}:
        cache[t] = size(t)
    out = np.array([cache[t] for t in labels], dtype=np.float64).reshape(-1, 2)
    return out[:, 0].copy(), out[:, 1].copy()


def _is_cut(key: Any) -> bool:
    return isinstance(key, tuple) and len(key) == 3 and key[0] == "cut"


def node_size(text: NodeText, m: Metrics) -> tuple[float, float]:
    """Box width and height for a node's text (padding scales with presentation mode)."""
    pad = 10.0 * m.scale
    w = m.title_width(text.title)
    for line in text.lines:
        w = max(w, m.body_width(line))
    w = min(w, 420.0 * m.scale) + 2 * pad
    h = m.title_height + len(text.lines) * m.body_height + 1.2 * pad
    return max(w, 60.0 * m.scale), h


# ---------------------------------------------------------------------------------------------
# labels: every box title and edge label as a rectangle, none overlapping another or a box

#: an edge label reduced to its shape (zoomed out) is drawn this x larger; its place holds both
LABEL_GROW = 1.25
EPS_PX = 1e-6
MAX_TRACKS = 4  # a gap holds at most this many rows of edge labels; the rest give way to a badge


def label_size(text: str, m: Metrics) -> tuple[float, float]:
    """Width and height of an edge label's place: all its lines in the body font, or its
    first line (the shape) ``LABEL_GROW`` x larger, whichever needs more (with padding)."""
    s = m.scale
    lines = text.split("\n")
    full_w = max(m.body_width(t) for t in lines)
    w = max(full_w, m.body_width(lines[0]) * LABEL_GROW) + 8.0 * s
    h = m.body_height * max(len(lines), LABEL_GROW) + 2.0 * s
    return w, h


@dataclass(frozen=True)
class LabelGeometry:
    """Where each edge's label may go: in the gap above its consumer's row (``gap``, -1: no
    label), on its slant across that gap from ``a`` (the gap's bottom, at the consumer) to
    ``b`` (its top); a lane edge (``lane``) crosses the gap's middle from ``a`` to ``b``
    instead. ``gap_top`` / ``gap_bot`` (per row) bound the box-free gaps; no label reaches
    right of ``x_max`` (the column of cut-off constants)."""

    gap: np.ndarray
    a: np.ndarray
    b: np.ndarray
    lane: np.ndarray
    gap_top: np.ndarray
    gap_bot: np.ndarray
    x_max: float
    scale: float


def _group_cumextreme(val: np.ndarray, gid: np.ndarray, maximum: bool) -> np.ndarray:
    """Running max (forwards) or min (backwards) of ``val`` within runs of equal ``gid``
    (``gid`` non-decreasing), in one numpy pass: each run is lifted above the ones before."""
    if not val.size:
        return val
    span = float(val.max() - val.min()) + 1.0
    off = gid.astype(np.float64) * (2.0 * span)
    if maximum:
        return np.maximum.accumulate(val + off) - off
    return np.minimum.accumulate((val + off)[::-1])[::-1] - off


def pack_labels(geo: LabelGeometry, w: np.ndarray, h: np.ndarray, tracks: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centres ``(E,)`` x and y of the edge labels of sizes ``w`` x ``h`` (NaN: not placed),
    and ``(E, 2)`` where each label's edge crosses its middle line (a point of the edge inside
    the label).

    Each gap ``g`` holds ``tracks[g]`` rows of labels, centred in
    it; a label goes in the first row (from the top, where its edges spread most) where it can
    lie on its own edge (covering its slant) without touching another label. In a row the
    labels are packed in one vectorised sweep each way: leftmost without overlap, then as near
    the middle of their edge as the ones to their right allow; the labels still off their
    edge try the next row."""
    s = geo.scale
    sp, ov = 4.0 * s, 4.0 * s
    n = int(w.size)
    x_out = np.full(n, np.nan)
    y_out = np.full(n, np.nan)
    on_edge = np.full((n, 2), np.nan)
    todo = np.flatnonzero((geo.gap >= 0) & (w > 0))
    if not todo.size:
        return x_out, y_out, on_edge
    g_all = geo.gap
    th = np.zeros(geo.gap_top.size)
    np.maximum.at(th, g_all[todo], h[todo])
    th += sp
    mid = (geo.gap_top + geo.gap_bot) / 2
    span = np.maximum(geo.gap_bot - geo.gap_top, 1e-9)
    for j in range(int(tracks.max(initial=0))):
        cand = todo[tracks[g_all[todo]] > j]
        if not cand.size:
            break
        gg = g_all[cand]
        yc = mid[gg] - tracks[gg] * th[gg] / 2 + (j + 0.5) * th[gg]
        hc, wc = h[cand], w[cand]
        ac, bc = geo.a[cand], geo.b[cand]
        # the edge crosses the label's middle line (and the label covers it by ``ov``)
        xlo = xhi = ac + (bc - ac) * (geo.gap_bot[gg] - yc) / span[gg]
        lane = geo.lane[cand]
        if lane.any():  # across the middle, or up the consumer's column below it
            across = lane & (yc - hc / 2 <= mid[gg]) & (yc + hc / 2 >= mid[gg])
            below = lane & ~across & (yc - hc / 2 > mid[gg])
            xlo = np.where(across, np.minimum(ac, bc), np.where(below, ac, xlo))
            xhi = np.where(across, np.maximum(ac, bc), np.where(below, ac, xhi))
            xhi = np.where(lane & ~across & ~below, -np.inf, xhi)
        cover = np.minimum(ov, wc / 2)
        lo = xlo - wc / 2 + cover
        hi = np.minimum(xhi + wc / 2 - cover, geo.x_max - sp - wc / 2)
        p = np.clip((xlo + xhi) / 2, lo, np.maximum(hi, lo))
        active = np.ones(cand.size, dtype=bool)
        ok = np.zeros(cand.size, dtype=bool)
        x = np.zeros(cand.size)
        for _ in range(6):
            idx = np.flatnonzero(active)
            if not idx.size:
                break
            o = idx[np.lexsort((p[idx], gg[idx]))]
            gid = gg[o]
            first = np.r_[True, gid[1:] != gid[:-1]]
            d = np.where(first, 0.0, (np.r_[0.0, wc[o][:-1]] + wc[o]) / 2 + sp)
            c = np.cumsum(d)
            left = c + _group_cumextreme(lo[o] - c, gid, True)
            want = np.minimum(np.maximum(p[o], left), hi[o])
            xo = c + _group_cumextreme(want - c, gid, False)
            bad = xo < lo[o] - 1e-6
            x[o] = xo
            ok[o] = ~bad
            if not bad.any():
                break
            active[o[bad]] = False
        ok &= active
        placed = cand[ok]
        x_out[placed] = x[ok]
        y_out[placed] = yc[ok]
        ex = np.clip(x, xlo, xhi)
        ey = np.where(lane & (xlo != xhi), mid[gg], yc)
        on_edge[placed] = np.c_[ex[ok], ey[ok]]
        todo = cand[~ok] if cand.size == todo.size else np.setdiff1d(todo, placed)
        if not todo.size:
            break
    return x_out, y_out, on_edge


def _badges(geo: LabelGeometry, src_keys: Sequence[Any], src_x: np.ndarray, src_half: np.ndarray,
            w: np.ndarray, h: np.ndarray, x: np.ndarray, y: np.ndarray, m: Metrics,
            tracks: np.ndarray) -> list[tuple[Any, str, tuple[float, float, float, float]]]:
    """A badge ``+N`` per consumer with ``N`` labels that found no place, in its gap's rows
    over the consumer's box where it touches no label, else in the place of the consumer's
    label nearest to it (which it then counts; ``x``, ``y`` of that label become NaN)."""
    missing = np.flatnonzero((geo.gap >= 0) & (w > 0) & np.isnan(x))
    if not missing.size:
        return []
    s = geo.scale
    sp = 4.0 * s
    by_src: dict[Any, list[int]] = {}
    for e in missing.tolist():
        by_src.setdefault(src_keys[e], []).append(e)
    placed = np.flatnonzero(~np.isnan(x))
    out: list[tuple[Any, str, tuple[float, float, float, float]]] = []
    taken: list[tuple[float, float, float, float]] = []
    for key, edges in by_src.items():
        e0 = edges[0]
        g = int(geo.gap[e0])
        text = f"+{len(edges)}"
        bw, bh = label_size(text, m)
        same = placed[geo.gap[placed] == g]
        rects = [(float(x[i] - w[i] / 2), float(y[i] - h[i] / 2), float(x[i] + w[i] / 2),
                  float(y[i] + h[i] / 2)) for i in same.tolist()] + taken
        k = max(int(tracks[g]), 1)
        mid = float(geo.gap_top[g] + geo.gap_bot[g]) / 2
        if bh > float(geo.gap_bot[g] - geo.gap_top[g]):
            continue
        found = None
        rows = [mid] + [mid + (j - (k - 1) / 2) * (bh + sp) for j in range(k)]
        sx, half = float(src_x[e0]), float(src_half[e0])
        for yc in rows:
            y0, y1 = yc - bh / 2, yc + bh / 2
            if y0 < geo.gap_top[g] or y1 > geo.gap_bot[g]:
                continue
            for cx in (sx, sx + half - bw / 2, sx - half + bw / 2):
                x0, x1 = cx - bw / 2, cx + bw / 2
                if x1 > geo.x_max - sp:
                    continue
                if all(x1 + sp <= r[0] or x0 - sp >= r[2] or y1 + sp <= r[1] or y0 - sp >= r[3]
                       for r in rects):
                    found = (x0, y0, x1, y1)
                    break
            if found:
                break
        if found is None:  # no free room: the badge takes the place of one of its labels
            own = [i for i in same.tolist() if src_keys[i] == key]
            own.sort(key=lambda i: abs(float(x[i]) - sx))
            text = f"+{len(edges) + 1}"
            bw, bh = label_size(text, m)
            for i in own:
                if bw <= w[i] + EPS_PX and bh <= h[i] + EPS_PX:
                    cx, cy = float(x[i]), float(y[i])
                    x[i] = y[i] = np.nan
                    found = (cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2)
                    break
        if found is not None:
            taken.append(found)
            out.append((key, text, (found[0], found[1], found[2] - found[0],
                                    found[3] - found[1])))
    return out


def _ports(owner: np.ndarray, other: np.ndarray, centre: np.ndarray, width: np.ndarray,
           step: float) -> np.ndarray:
    """x of each port along its owner's box edge: the ports of one box spread around its
    centre (at most 70 % of its width), ordered by ``other`` (the other end's x)."""
    k = owner.size
    if k == 0:
        return np.zeros(0)
    o = np.lexsort((np.arange(k), other, owner))
    own = owner[o]
    rank = np.arange(k) - np.searchsorted(own, own, side="left")
    cnt = np.bincount(owner)[own]
    st = np.minimum(step, 0.7 * width[own] / np.maximum(cnt - 1, 1))
    out = np.empty(k)
    out[o] = centre[own] + (rank - (cnt - 1) / 2.0) * st
    return out


def compute_drawing(
    graph: Any,
    texts: Mapping[Any, NodeText],
    edge_labels: Mapping[Any, str],
    edge_kinds: Mapping[Any, int],
    metrics: Metrics,
    *,
    constants: Sequence[tuple[str, NodeText, Sequence[int]]] = (),
    cancel: Callable[[], bool] | None = None,
) -> Drawing:
    """Size, place and connect the nodes of ``graph`` (thread-safe; no widgets).

    Args:
        graph: anything with ``nodes`` (having ``id``) and ``edges`` ``(src, dst)``; a
            :class:`~tensor_explorer.core.graph_layout.CollapsedGraph` also gives the
            drawing's ``groups``.
        texts: node id -> :class:`NodeText`.
        edge_labels, edge_kinds: per edge of ``graph``; missing: empty label, kind 0.
        metrics: character widths (measured on the UI thread, or :func:`estimate_metrics`).
        constants: ``(name, text, [node ids it was computed from])`` of cut-off values,
            placed in a column right of the graph with a cut edge from each of those nodes.
        cancel: passed to the layout (raises ``LayoutCancelled``).
    """
    with no_gc():  # many small objects: each collection would scan every live object
        return _compute(graph, texts, edge_labels, edge_kinds, metrics, constants, cancel)


def _compute(
    graph: Any,
    texts: Mapping[Any, NodeText],
    edge_labels: Mapping[Any, str],
    edge_kinds: Mapping[Any, int],
    m: Metrics,
    constants: Sequence[tuple[str, NodeText, Sequence[int]]],
    cancel: Callable[[], bool] | None,
) -> Drawing:
    s = m.scale
    cache: dict[tuple[str, tuple[str, ...]], tuple[float, float]] = {}
    ids = [node.id for node in graph.nodes]
    n = len(ids)
    w = np.empty(n)
    h = np.empty(n)
    for i, nid in enumerate(ids):  # many nodes say the same thing ("MulBackward0", "(16,)")
        t = texts[nid]
        k = (t.title, tuple(t.lines))
        size = cache.get(k)
        if size is None:
            size = cache[k] = node_size(t, m)
        w[i], h[i] = size
    gap = 28.0 * s
    max_h = float(h.max()) if n else 40.0
    pitch = max_h + m.body_height + 24.0 * s  # row to row: room for an edge label between
    free = pitch - max_h  # the least gap between two bands
    pl = place(graph, node_gap=gap, bus_gap=12.0 * s,
               widths=dict(zip(ids, w.tolist(), strict=True)), cancel=cancel)
    row = pl.row
    n_rows = max(pl.n_rows, 1)
    cx = pl.x
    half = np.zeros(n_rows)
    if n:
        np.maximum.at(half, row, h / 2)
    left = float((cx - w / 2).min()) if n else 0.0
    right = float((cx + w / 2).max()) if n else 0.0
    if pl.bus_x.size:
        left = min(left, float(pl.bus_x.min()) - 12.0 * s)
        right = max(right, float(pl.bus_x.max()) + 12.0 * s)
    step = 10.0 * s
    lane_x = left - gap - np.arange(pl.n_lanes) * step
    keys: list[Any] = list(graph.edges)
    kinds = [int(edge_kinds.get(k, 0)) for k in keys]
    labels = [edge_labels.get(k, "") for k in keys]

    # graph edges: src (consumer, below) -> dst (input, above)
    src, dst, route = pl.src, pl.dst, pl.route
    n_e = int(src.size)
    bus_x_of = np.where(pl.bus >= 0, pl.bus_x[np.maximum(pl.bus, 0)] if pl.bus_x.size else 0.0,
                        0.0)
    lane_x_of = np.where(pl.lane >= 0, lane_x[np.maximum(pl.lane, 0)] if lane_x.size else 0.0,
                         0.0)
    far_x = np.where(route == DIRECT, cx[dst], np.where(route == BUS, bus_x_of[dst],
                                                        lane_x_of[dst]))
    port_top = _ports(src, far_x, cx, w, 24.0 * s)  # where each edge enters its consumer
    slot = np.where(route == DIRECT, np.arange(n_e), n_e + dst + np.where(route == BUS, 0, n))
    _, first, inverse = np.unique(slot, return_index=True, return_inverse=True)
    slot_other = np.where(route[first] == DIRECT, port_top[first], far_x[first])
    port_bot = _ports(dst[first], slot_other, cx, w, 24.0 * s)[inverse.reshape(-1)]

    rs, rd = row[src], row[dst]
    a, b = port_top, port_bot
    # the labels, in the gap above each consumer's row, on the edge's slant across it: the
    # rows are spaced so that every gap holds its labels (in up to MAX_TRACKS rows)
    n_c = len(constants)
    x_max = right + gap + n_c * step + gap if n_c else np.inf
    lab_w, lab_h = _label_sizes(labels[:n_e], lambda t: label_size(t, m))
    gap_h = np.r_[0.0, pitch - half[:-1] - half[1:]]
    slant_end = np.where(route == DIRECT, b, far_x).astype(np.float64)
    rel = LabelGeometry(rs.astype(np.int64), a.astype(np.float64), slant_end,
                        route == LANE, np.zeros(n_rows), gap_h.copy(), float(x_max), s)
    tracks = np.ones(n_rows, dtype=np.int64)
    th = np.zeros(n_rows)
    has = lab_w > 0
    np.maximum.at(th, rs[has], lab_h[has])
    th += 4.0 * s
    tracks[0] = 0
    gap_h = np.maximum(gap_h, np.where(th > 4.0 * s, th + 4.0 * s, 0.0))
    rel = LabelGeometry(rel.gap, rel.a, rel.b, rel.lane, rel.gap_top, gap_h.copy(),
                        rel.x_max, s)
    while True:
        lx, ly, l_on = pack_labels(rel, lab_w, lab_h, tracks)
        short = np.zeros(n_rows, dtype=bool)
        short[rs[has & np.isnan(lx)]] = True
        short &= tracks < MAX_TRACKS
        if not short.any():
            break
        tracks[short] += 1
        gap_h = np.maximum(gap_h, np.where(short, tracks * th + 4.0 * s, 0.0))
        rel = LabelGeometry(rel.gap, rel.a, rel.b, rel.lane, rel.gap_top, gap_h.copy(),
                            rel.x_max, s)
    row_y = np.cumsum(np.r_[0.0, half[:-1] + gap_h[1:] + half[1:]])
    band_top, band_bot = row_y - half, row_y + half
    gap_above = np.r_[band_top[0] - free / 2, (band_bot[:-1] + band_top[1:]) / 2]
    gap_below = np.r_[gap_above[1:], band_bot[-1] + free / 2]
    cy = row_y[row] if n else np.zeros(0)
    top, bot = cy - h / 2, cy + h / 2
    if n_e:
        shift = np.r_[0.0, band_bot[:-1]][np.maximum(rs, 0)]
        ly = ly + shift
        l_on[:, 1] += shift
    geo = LabelGeometry(rel.gap, rel.a, rel.b, rel.lane, np.r_[band_top[0], band_bot[:-1]],
                        band_top.copy(), rel.x_max, s)
    nodes = [DrawNode(nid, texts[nid], float(x), float(y), float(bw), float(bh))
             for nid, x, y, bw, bh in zip(ids, cx.tolist(), cy.tolist(), w.tolist(),
                                          h.tolist(), strict=True)]
    ys_top, yd_bot = top[src], bot[dst]
    pts = np.zeros((n_e, 6, 2))
    count = np.where(route == DIRECT, 4, 6)
    lab = np.zeros((n_e, 2))
    d_ = route == DIRECT
    if d_.any():
        bt, bb = band_top[rs[d_]], band_bot[rd[d_]]
        pts[d_, :4] = np.stack([np.c_[a[d_], ys_top[d_]], np.c_[a[d_], bt],
                                np.c_[b[d_], bb], np.c_[b[d_], yd_bot[d_]]], axis=1)
        lab[d_] = np.c_[(a[d_] + b[d_]) / 2, (bt + bb) / 2]
    b_ = route == BUS
    if b_.any():
        xb = bus_x_of[dst[b_]]
        bt, bb_exit = band_top[rs[b_]], band_bot[rs[b_] - 1]
        pts[b_] = np.stack([
            np.c_[a[b_], ys_top[b_]], np.c_[a[b_], bt], np.c_[xb, bb_exit],
            np.c_[xb, band_top[rd[b_] + 1]], np.c_[b[b_], band_bot[rd[b_]]],
            np.c_[b[b_], yd_bot[b_]],
        ], axis=1)
        lab[b_] = np.c_[(a[b_] + xb) / 2, (bt + bb_exit) / 2]
    l_ = route == LANE
    if l_.any():
        xl = lane_x_of[dst[l_]]
        ga, gb = gap_above[rs[l_]], gap_below[rd[l_]]
        pts[l_] = np.stack([
            np.c_[a[l_], ys_top[l_]], np.c_[a[l_], ga], np.c_[xl, ga], np.c_[xl, gb],
            np.c_[b[l_], gb], np.c_[b[l_], yd_bot[l_]],
        ], axis=1)
        reach = np.minimum(np.abs(xl - a[l_]) / 2, 4 * gap)
        lab[l_] = np.c_[a[l_] + np.sign(xl - a[l_]) * reach, ga]
    flat = pts[np.arange(6)[None, :] < count[:, None]]
    edge_of = np.repeat(np.arange(n_e), count)

    # cut-off constants: a column right of everything, one lane each between
    c_lines: list[np.ndarray] = []
    c_labels: list[tuple[float, float]] = []
    col_left = right + gap + len(constants) * step + gap
    c_y = band_top[0] if n else 0.0
    where = dict(zip(ids, range(n), strict=True))
    for k_c, (name, text, sources) in enumerate(constants):
        cw, ch = node_size(text, m)
        dn = DrawNode(f"const:{name}", text, col_left + cw / 2, c_y + ch / 2, cw, ch)
        placed = [where[q] for q in sources if q in where]
        if placed:  # next to the lowest node it was computed from
            dn.y = max(c_y + ch / 2, max(float(cy[q]) for q in placed) + pitch / 2)
        c_y = dn.y + ch / 2 + gap
        nodes.append(dn)
        lane_r = right + gap + k_c * step
        for q in placed:
            x0 = float(cx[q] + 0.42 * w[q])
            gy = float(gap_below[row[q]])
            line = np.array([(x0, float(bot[q])), (x0, gy), (lane_r, gy), (lane_r, dn.y),
                             (dn.x - dn.w / 2, dn.y)])
            keys.append(("cut", ids[q], name))
            kinds.append(2)
            labels.append("")
            c_lines.append(line)
            c_labels.append(((x0 + lane_r) / 2, gy))
    if c_lines:
        flat = np.concatenate([flat, *c_lines])
        edge_of = np.r_[edge_of, np.repeat(np.arange(n_e, n_e + len(c_lines)), 5)]
        lab = np.concatenate([lab, np.asarray(c_labels)])
    # drop repeated points (a box as tall as its band starts where the band does)
    keep = np.ones(len(flat), dtype=bool)
    if len(flat) > 1:
        keep[1:] = ~((edge_of[1:] == edge_of[:-1]) & (flat[1:] == flat[:-1]).all(axis=1))
    flat, edge_of = flat[keep], edge_of[keep]
    offsets = np.zeros(len(keys) + 1, dtype=np.int64)
    np.cumsum(np.bincount(edge_of, minlength=len(keys)), out=offsets[1:])
    groups = {g: list(ms) for g, ms in graph.groups.items()} if isinstance(
        graph, CollapsedGraph) else {}
    drawing = Drawing(nodes, keys, flat.reshape(-1, 2), offsets,
                      np.asarray(kinds, dtype=np.int64), labels, m, lab.reshape(-1, 2), groups)
    n_k = len(keys)
    pad = n_k - n_e  # cut edges: no label
    drawing.label_geometry = LabelGeometry(
        np.r_[geo.gap, np.full(pad, -1)], np.r_[geo.a, np.zeros(pad)],
        np.r_[geo.b, np.zeros(pad)], np.r_[geo.lane, np.zeros(pad, dtype=bool)],
        geo.gap_top, geo.gap_bot, geo.x_max, s)
    drawing._set_labels(np.r_[lab_w, np.zeros(pad)], np.r_[lab_h, np.zeros(pad)],
                        np.r_[lx, np.full(pad, np.nan)], np.r_[ly, np.full(pad, np.nan)],
                        np.r_[l_on, np.full((pad, 2), np.nan)], tracks)
    return drawing
