"""What the Memory panel draws: a plain model of allocations and footprints, and its scene items.

:func:`compute_model` turns workspace values into a :class:`MemoryModel` (no Qt: it runs in a
background :class:`~tensor_explorer.qt.workers.Task` for big workspaces). Everything in it comes
from :mod:`tensor_explorer.core.memory`: ``allocation`` groups values into strips (values whose
blocks intersect share one strip), ``footprint`` gives the bytes each value occupies,
``element_offsets`` / ``element_multiplicity`` give per-element detail for values small enough
to draw cell by cell, ``parents`` gives the nesting (a view sits under the smallest value that
contains it; an alias under the earlier of the two). The model never lists every related pair:
a thousand views of one tensor are half a million pairs; the panel's relation list reads them
lazily (:mod:`.memory_relations`). Per-cell detail (offsets, texts) is computed up front for the
first :data:`EAGER_CELLS` elements in drawing order, and for the rest when a lane is first drawn
(:meth:`LaneModel.detail`).

The scene side is two item classes: :class:`BytesItem` (the allocation's byte row) and
:class:`LaneItem` (one value's footprint on it). Both paint themselves and only what lies in
the exposed rectangle; text is painted as text, so SVG exports keep it.
A :class:`StripGeometry` maps bytes to x: *cells* mode draws each element as a cell (with its
value when the cell is wide enough), *ranges* mode draws pixel bins of covered bytes (any size,
O(width) work per lane, never per element).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.ma  # (np.unique imports it on first use: here, not in a worker, where the
import torch  # import holds the UI thread up for ~0.1 s)
from PySide6 import QtCore, QtGui, QtWidgets

from ..core import memory

#: values with at most this many elements are drawn cell by cell, with values and multiplicities
SMALL_NUMEL = 1 << 14
#: a strip (or zoomed window) with more cells than this is drawn as ranges
MAX_CELLS = 256
#: per-cell detail of small values computed with the model, in drawing order (the rest: on draw)
EAGER_CELLS = 1 << 12


# --------------------------------------------------------------------------------------------
# Model (no Qt)
# --------------------------------------------------------------------------------------------


@dataclass
class LaneModel:
    """One value's footprint on its strip.

    Byte offsets (``base``, ``cell_offsets``, ``footprint`` via ``delta``) are relative to the
    strip's start: ``footprint`` itself is relative to the value's own allocation start, which
    lies ``delta`` bytes into the strip.
    """

    name: str
    value: Any
    kind: str  # "tensor" | "ndarray"
    dtype: str
    shape: tuple[int, ...]
    stride: tuple[int, ...]  # elements
    offset: int  # storage offset, elements
    itemsize: int
    device: str
    version: int | None
    colour: int
    numel: int
    delta: int = 0
    base: int = 0  # strip offset of element (0, ..., 0)
    byte_strides: tuple[int, ...] = ()
    footprint: memory.ByteSet | None = None
    nbytes: int = 0  # distinct bytes occupied
    max_mult: int = 1  # most elements reading one element's bytes
    uniform_mult: bool = True
    depth: int = 0
    parent: str | None = None
    parent_kind: str | None = None
    why: str | None = None
    # small values only: one entry per distinct element offset, sorted
    cell_offsets: np.ndarray | None = None
    cell_first: np.ndarray | None = None  # flat (C-order) index of the first element there
    cell_mult: np.ndarray | None = None
    cell_text: list[str] | None = None
    detailed: bool = False  # cell_* computed (or not applicable)

    def detail(self) -> LaneModel:
        """Compute the per-cell detail now if it was left for later (UI thread: one small
        value, well under a millisecond). Returns self."""
        if not self.detailed:
            _cell_detail(self)
        return self

    def offset_of(self, index: tuple[int, ...]) -> int:
        """Strip offset of the element at ``index``."""
        return self.base + sum(i * s for i, s in zip(index, self.byte_strides, strict=True))

    def index_at(self, offset: int) -> tuple[int, ...] | None:
        """An element index whose first byte is ``offset`` (small values only)."""
        self.detail()
        if self.cell_offsets is None or self.cell_first is None:
            return None
        i = int(np.searchsorted(self.cell_offsets, offset))
        if i >= len(self.cell_offsets) or int(self.cell_offsets[i]) != offset:
            return None
        flat = int(self.cell_first[i])
        return tuple(int(v) for v in np.unravel_index(flat, self.shape)) if self.shape else ()

    def text_at(self, offset: int) -> str | None:
        """The value text drawn in the cell at ``offset`` (small values only)."""
        self.detail()
        if self.cell_offsets is None or self.cell_text is None:
            return None
        i = int(np.searchsorted(self.cell_offsets, offset))
        if i < len(self.cell_offsets) and int(self.cell_offsets[i]) == offset:
            return self.cell_text[i]
        return None

    def covered(self, lo: int, hi: int) -> int:
        """Bytes of this value within the strip window ``[lo, hi)``."""
        if self.footprint is None:
            return 0
        return self.footprint.count_in(lo - self.delta, hi - self.delta)


@dataclass
class StripModel:
    """One allocation (or a group of intersecting blocks, e.g. ``from_numpy`` of a slice)."""

    number: int
    device: str
    start: int | None
    nbytes: int
    unit: int
    owner: str | None
    lanes: list[LaneModel]
    note: str = ""

    @property
    def has_memory(self) -> bool:
        return self.start is not None

    @property
    def cells(self) -> int:
        return -(-self.nbytes // self.unit) if self.unit else 0


@dataclass
class MemoryModel:
    """Everything the panel draws, computed off the UI thread."""

    strips: list[StripModel] = field(default_factory=list)
    #: the tensors and arrays, by name, in workspace order (the relation list reads their pairs)
    values: dict[str, Any] = field(default_factory=dict)
    whys: dict[str, str] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # names that are not tensors/arrays
    pairs: int = 0  # related pairs (every two values in one strip), known without counting

    def lane(self, name: str) -> LaneModel | None:
        for strip in self.strips:
            for lane in strip.lanes:
                if lane.name == name:
                    return lane
        return None

    def strip_of(self, name: str) -> StripModel | None:
        for strip in self.strips:
            if any(lane.name == name for lane in strip.lanes):
                return strip
        return None


def format_number(v: Any) -> str:
    """Short text for one element, for a cell."""
    if isinstance(v, bool | np.bool_):
        return "T" if v else "F"
    if isinstance(v, complex | np.complexfloating):
        return f"{v.real:.3g}{v.imag:+.3g}j"
    if isinstance(v, float | np.floating):
        f = float(v)
        if math.isnan(f):
            return "nan"
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        if f == int(f) and abs(f) < 1e6:
            return f"{f:.1f}"
        return f"{f:.4g}"
    return str(v)


def _element_texts(value: Any, flat: np.ndarray) -> list[str]:
    """Texts of the elements at C-order flat indices ``flat`` of a small value."""
    if isinstance(value, torch.Tensor):
        if value.device.type == "meta" or value.layout != torch.strided:
            return ["" for _ in flat]
        t = value.detach()
        if t.device.type != "cpu":
            t = t.cpu()
        if t.dtype.is_floating_point and t.element_size() < 4:  # half, bfloat16
            t = t.float()
        arr = t.resolve_conj().resolve_neg().reshape(-1).numpy()
    else:
        arr = np.asarray(value).reshape(-1)
    return [format_number(arr[int(i)].item()) for i in flat]


def _gcd_all(numbers: list[int]) -> int:
    g = 0
    for n in numbers:
        g = math.gcd(g, abs(int(n)))
    return g or 1


#: how often background work lets the UI thread have the interpreter (seconds)
YIELD_EVERY = 0.001


def yielding(cancel: Callable[[], bool] | None) -> Callable[[], bool]:
    """``cancel`` for work in a background thread that also, every :data:`YIELD_EVERY`, lets
    the UI thread have the interpreter lock: the UI thread takes it each time Qt calls into
    Python (a timer, a paint, a model's ``data``) and would otherwise wait out the
    interpreter's switch interval (5 ms) each time: a turn of the event loop held for a
    hundred milliseconds while a model is computed. The background work runs a little
    longer."""
    due = time.perf_counter() + YIELD_EVERY

    def check() -> bool:
        nonlocal due
        now = time.perf_counter()
        if now >= due:
            time.sleep(0)  # (releases the lock; a waiting thread takes it)
            due = time.perf_counter() + YIELD_EVERY
        return cancel() if cancel is not None else False

    return check


def compute_model(
    items: list[tuple[str, Any]],
    whys: Mapping[str, str] | None = None,
    cancel: Any = None,
) -> MemoryModel:
    """The model of ``items`` (workspace ``(name, value)`` pairs, in order): strips, lanes,
    nesting, the number of related pairs (not the pairs: see :mod:`.memory_relations`).
    Non-tensor values are listed in ``skipped``. ``whys``: for each name, the sentence saying
    why it shares or copies (see :func:`memory.sharing_reason`). ``cancel()`` is asked often
    (in a background thread it also lets the UI thread run: :func:`yielding`)."""
    cancel = yielding(cancel)
    whys = dict(whys or {})
    values: dict[str, Any] = {}
    skipped: list[str] = []
    for name, v in items:
        if isinstance(v, torch.Tensor | np.ndarray) and not (
            isinstance(v, np.ndarray) and v.dtype.hasobject
        ):
            values[name] = v
        else:
            skipped.append(name)
    order = {n: i for i, n in enumerate(values)}
    lanes: dict[str, LaneModel] = {}
    allocs: dict[str, memory.Allocation] = {}
    for name, v in values.items():
        if cancel is not None and cancel():
            return MemoryModel()
        alloc = memory.allocation(v)
        allocs[name] = alloc
        is_t = isinstance(v, torch.Tensor)
        itemsize = v.element_size() if is_t else v.itemsize
        if is_t:
            stride = tuple(v.stride()) if v.layout == torch.strided else ()
            offset = int(v.storage_offset()) if v.layout == torch.strided else 0
            dtype = str(v.dtype).replace("torch.", "")
            version = int(v._version) if not v.is_inference() else None
        else:
            stride = tuple(s // itemsize if itemsize else 0 for s in v.strides)
            offset = alloc.offset_bytes // itemsize if itemsize else 0
            dtype = str(v.dtype)
            version = None
        lanes[name] = LaneModel(
            name=name, value=v, kind="tensor" if is_t else "ndarray", dtype=dtype,
            shape=tuple(int(n) for n in v.shape), stride=stride, offset=offset,
            itemsize=int(itemsize), device=alloc.device, version=version,
            colour=order[name], numel=int(math.prod(v.shape)), why=whys.get(name),
        )
    # group values into strips: intersecting address ranges, per device (as relations_among)
    groups: list[list[str]] = []
    by_device: dict[str, list[tuple[int, int, str]]] = {}
    for name, alloc in allocs.items():
        if alloc.key is None or alloc.start is None:
            groups.append([name])
            continue
        by_device.setdefault(alloc.device, []).append(
            (alloc.start, alloc.start + max(alloc.nbytes, 1), name))
    for ranges in by_device.values():
        ranges.sort()
        reach = -1
        current: list[str] = []
        for start, end, name in ranges:
            if start < reach:
                current.append(name)
                reach = max(reach, end)
            else:
                current = [name]
                groups.append(current)
                reach = end
    groups.sort(key=lambda g: min(order[n] for n in g))

    strips: list[StripModel] = []
    eager = EAGER_CELLS  # elements whose cells are detailed now; the rest when drawn
    pairs = 0
    for number, group in enumerate(groups, start=1):
        group.sort(key=order.__getitem__)
        a0 = allocs[group[0]]
        if a0.key is None or a0.start is None:
            lane = lanes[group[0]]
            lane.detailed = True
            strips.append(StripModel(number, a0.device, None, a0.nbytes, lane.itemsize or 1,
                                     group[0], [lane], a0.note))
            continue
        pairs += len(group) * (len(group) - 1) // 2
        start = min(allocs[n].start or 0 for n in group)
        end = max((allocs[n].start or 0) + allocs[n].nbytes for n in group)
        unit_parts: list[int] = []
        sets: dict[str, memory.ByteSet] = {}
        for n in group:
            lane, alloc = lanes[n], allocs[n]
            lane.delta = (alloc.start or 0) - start
            lane.base = lane.delta + alloc.offset_bytes
            v = lane.value
            if isinstance(v, torch.Tensor):
                lane.byte_strides = tuple(s * lane.itemsize for s in v.stride())
            else:
                lane.byte_strides = tuple(int(s) for s in v.strides)
            lane.footprint = memory.footprint(v)
            lane.nbytes = lane.footprint.size
            sets[n] = lane.footprint.shifted(lane.delta)
            unit_parts += [lane.itemsize, lane.base]
            unit_parts += [s for s, k in zip(lane.byte_strides, lane.shape, strict=True) if k > 1]
            if cancel is not None and cancel():
                return MemoryModel()
        unit = _gcd_all(unit_parts)
        # nesting: parent = the smallest value containing it, or an earlier alias
        parent = memory.parents(sets, cancel=cancel) if len(group) > 1 else {}
        # tree order inside the group: depth-first from the roots
        children: dict[str | None, list[str]] = {}
        for n in group:
            up = parent.get(n)
            children.setdefault(up[0] if up and up[0] in group else None, []).append(n)
        ordered: list[str] = []

        stack = [(root, 0) for root in reversed(children.get(None, []))]
        while stack:
            n, depth = stack.pop()
            lanes[n].depth = depth
            if n in parent:
                lanes[n].parent, lanes[n].parent_kind = parent[n]
            ordered.append(n)
            stack.extend((c, depth + 1) for c in reversed(children.get(n, [])))
        roots = children.get(None, [])
        owner = max(roots, key=lambda n: (lanes[n].nbytes, -order[n])) if roots else None
        for n in ordered:
            lane = lanes[n]
            _multiplicity(lane)
            if 0 < lane.numel <= SMALL_NUMEL and lane.numel <= eager:
                eager -= lane.numel
                _cell_detail(lane)
            elif lane.numel > SMALL_NUMEL or lane.numel == 0:
                lane.detailed = True
            if cancel is not None and cancel():
                return MemoryModel()
        strips.append(StripModel(number, a0.device, start, end - start, unit, owner,
                                 [lanes[n] for n in ordered]))
    return MemoryModel(strips, values, whys, skipped, pairs)


def _multiplicity(lane: LaneModel) -> None:
    """Most elements reading one element's bytes, and whether every element has as many
    (cheap: no per-element work unless the value overlaps itself other than by expanding)."""
    v = lane.value
    if lane.numel == 0:
        lane.max_mult = 0
        return
    if lane.numel > SMALL_NUMEL:
        expanded = math.prod(n for n, s in zip(lane.shape, lane.byte_strides, strict=True)
                             if s == 0 and n > 1)
        lane.max_mult = expanded
        lane.uniform_mult = not memory.internal_overlap(v) or expanded > 1
        return
    mult = np.asarray(memory.element_multiplicity(v))
    lane.max_mult = int(mult.max())
    lane.uniform_mult = bool(mult.min() == mult.max())


def _cell_detail(lane: LaneModel) -> None:
    """Per-cell data of a small value: distinct offsets, the first element at each, its
    multiplicity and its text."""
    lane.detailed = True
    v = lane.value
    if lane.numel == 0 or lane.numel > SMALL_NUMEL:
        return
    offs = memory.element_offsets(v).reshape(-1) + lane.delta
    mult = np.asarray(memory.element_multiplicity(v)).reshape(-1)
    uniq, first = np.unique(offs, return_index=True)
    lane.cell_offsets = uniq.astype(np.int64)
    lane.cell_first = first.astype(np.int64)
    lane.cell_mult = mult[first].astype(np.int64)
    lane.cell_text = _element_texts(v, first)


# --------------------------------------------------------------------------------------------
# Geometry and items
# --------------------------------------------------------------------------------------------


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


@dataclass
class StripGeometry:
    """Where bytes ``[lo, hi)`` of a strip go on screen: ``x0`` to ``x0 + width``."""

    x0: float
    width: float
    lo: int
    hi: int
    unit: int
    max_cell: float
    _bins: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def cells(self) -> int:
        return -(-(self.hi - self.lo) // self.unit)

    @property
    def mode(self) -> str:
        return "cells" if self.cells <= MAX_CELLS and self.width / self.cells >= 6 else "ranges"

    @property
    def px_per_byte(self) -> float:
        if self.mode == "cells":
            return min(self.max_cell, self.width / self.cells) / self.unit
        return self.width / max(self.hi - self.lo, 1)

    @property
    def drawn_width(self) -> float:
        return (self.hi - self.lo) * self.px_per_byte

    def x(self, byte: float) -> float:
        return self.x0 + (byte - self.lo) * self.px_per_byte

    def byte_at(self, x: float) -> int:
        return int(self.lo + (x - self.x0) / self.px_per_byte)

    def bins(self) -> np.ndarray:
        """Bin edges (strip byte offsets) for ranges mode: about one bin per pixel (made once
        per geometry: every lane of the strip shares them)."""
        if self._bins is None:
            n = max(1, min(int(self.width), self.hi - self.lo))
            edges = np.linspace(self.lo, self.hi, n + 1).round().astype(np.int64)
            self._bins = edges[np.concatenate(([True], np.diff(edges) != 0))]  # sorted: dedup
        return self._bins


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


def human_bytes(n: int) -> str:
    """1536 -> '1.5 KiB'; small numbers stay exact."""
    if n < 1024:
        return f"{n} B"
    value = float(n)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if value < 1024:
            return f"{value:.3g} {unit}"
    return f"{value:.3g} PiB"
