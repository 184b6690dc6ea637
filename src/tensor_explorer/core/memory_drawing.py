"""What the Memory panel draws, as plain data: allocations, lanes, cells, and the byte-to-x map.

:func:`compute_model` turns workspace values into a :class:`MemoryModel` (it runs in a
background task for big workspaces: it takes a ``cancel`` callback and yields often). Everything
in it comes from :mod:`tensor_explorer.core.memory`: ``allocation`` groups values into strips
(values whose blocks intersect share one strip), ``footprint`` gives the bytes each value
occupies, ``element_offsets`` / ``element_multiplicity`` give per-element detail for values small
enough to draw cell by cell, ``parents`` gives the nesting (a view sits under the smallest value
that contains it; an alias under the earlier of the two). The model never lists every related
pair: a thousand views of one tensor are half a million pairs; the panel's relation list reads
them lazily (``qt/memory_relations.py``). Per-cell detail (offsets, texts) is computed up front
for the first :data:`EAGER_CELLS` elements in drawing order, and for the rest when a lane is
first drawn (:meth:`LaneModel.detail`).

A :class:`StripGeometry` maps bytes to x: *cells* mode draws each element as a cell (with its
value when the cell is wide enough), *ranges* mode draws pixel bins of covered bytes (any size,
O(width) work per lane, never per element). The scene items that paint all this live in
``qt/memory_view.py``. This module never imports Qt.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.ma  # (np.unique imports it on first use: here, not in a worker, where the
import torch  # import holds the UI thread up for ~0.1 s)

from . import memory

if TYPE_CHECKING:
    from .workspace import Workspace

__all__ = [
    "EAGER_CELLS",
    "MAX_CELLS",
    "SMALL_NUMEL",
    "YIELD_EVERY",
    "LaneModel",
    "MemoryModel",
    "StripGeometry",
    "StripKey",
    "StripModel",
    "WriteMarks",
    "ZoomWindows",
    "compute_model",
    "format_number",
    "human_bytes",
    "sharing_whys",
    "yielding",
]

#: values with at most this many elements are drawn cell by cell, with values and multiplicities
SMALL_NUMEL = 1 << 14
#: a strip (or zoomed window) with more cells than this is drawn as ranges
MAX_CELLS = 256
#: per-cell detail of small values computed with the model, in drawing order (the rest: on draw)
EAGER_CELLS = 1 << 12





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

    def own_memory(self) -> list[str]:
        """The values alone in their allocation (no other value reads their bytes)."""
        return [lane.name for strip in self.strips if strip.has_memory and len(strip.lanes) == 1
                for lane in strip.lanes]

    def set_whys(self, whys: Mapping[str, str]) -> None:
        """Put the "why" sentences of ``whys`` (another language's) in place of the model's
        and its lanes'; a value that ``whys`` lacks keeps its own."""
        self.whys = {n: whys.get(n, w) for n, w in self.whys.items()}
        for strip in self.strips:
            for lane in strip.lanes:
                if lane.why is not None:
                    lane.why = whys.get(lane.name, lane.why)


def sharing_whys(workspace: Workspace, lang: str) -> dict[str, str]:
    """For each value of ``workspace`` made by a call that shares (or copies) memory, the
    sentence that says so (:func:`memory.sharing_reason`), in ``lang``, without backticks."""
    whys: dict[str, str] = {}
    for name in workspace.names():
        origin = workspace.origin(name)
        if origin is not None and origin.call:
            reason = memory.sharing_reason(name, origin.call, lang=lang)
            if reason:
                whys[name] = reason.replace("`", "")
    return whys


class WriteMarks:
    """What the last in-place write changed, from one model of the workspace to the next: the
    cells whose text changed (strip offsets, per value) and the values whose version counter
    went up (with the version before). Writes are :meth:`note`-d as they happen (the
    workspace's ``changed`` event fires for every alias of a written value; a table edit in
    the Values panel is noted by hand); :meth:`update` compares the new model with the last.
    When nothing was written since, the marks stay (a redraw for another reason keeps them)."""

    #: values compared cell by cell per update (their cells detailed now if need be)
    COMPARED = 64

    def __init__(self) -> None:
        self.written: set[str] = set()
        self.changed_cells: dict[str, set[int]] = {}
        self.version_up: dict[str, int] = {}  # name -> version before the write
        self._prev_texts: dict[str, dict[int, str]] = {}
        self._prev_versions: dict[str, tuple[int, int]] = {}  # name -> (id(value), version)

    def note(self, name: str) -> None:
        """``name`` was written in place."""
        self.written.add(name)

    @staticmethod
    def aliases_of(names: set[str], model: MemoryModel) -> set[str]:
        """The values in the same allocation as one of ``names`` (those a write to them may
        have changed: the cells whose text changed are the ones marked)."""
        out: set[str] = set()
        for strip in model.strips:
            here = {lane.name for lane in strip.lanes}
            if strip.has_memory and here & names:
                out |= here
        return out

    def update(self, model: MemoryModel) -> None:
        """Mark what changed between the last model and ``model``; remember ``model``."""
        prev_changed, prev_up = self.changed_cells, self.version_up
        self.changed_cells, self.version_up = {}, {}
        written = self.written | self.aliases_of(self.written, model)
        compared = 0
        lanes = [lane for strip in model.strips for lane in strip.lanes]
        for lane in lanes:
            prev = self._prev_texts.get(lane.name)
            if lane.name in written and prev is not None and compared < self.COMPARED:
                compared += 1
                lane.detail()
            if lane.name in written and prev is not None and lane.cell_offsets is not None:
                texts = lane.cell_text or []
                self.changed_cells[lane.name] = {
                    int(off) for off, t in zip(lane.cell_offsets, texts, strict=True)
                    if prev.get(int(off), t) != t}
            before = self._prev_versions.get(lane.name)
            if (lane.version is not None and before is not None
                    and before[0] == id(lane.value) and lane.version > before[1]):
                self.version_up[lane.name] = before[1]
        if not written and not self.version_up:  # nothing written since: the marks stay
            names = {lane.name for lane in lanes}
            self.changed_cells = {n: c for n, c in prev_changed.items() if n in names}
            self.version_up = {n: v for n, v in prev_up.items() if n in names}
        self.written = set()
        self._prev_texts = {
            lane.name: dict(zip((int(o) for o in lane.cell_offsets), lane.cell_text, strict=True))
            for lane in lanes if lane.cell_offsets is not None and lane.cell_text is not None}
        self._prev_versions = {
            lane.name: (id(lane.value), lane.version) for lane in lanes
            if lane.version is not None}


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
    groups = memory.allocation_groups(allocs) + [
        [name] for name, alloc in allocs.items() if alloc.key is None or alloc.start is None]
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


#: an allocation across models: (device, start address, size in bytes)
StripKey = tuple[str, int | None, int]


class ZoomWindows:
    """Which bytes of each allocation the drawing shows (the zoom): ``{strip key: (lo, hi)}``,
    kept across models by the allocation's key (:meth:`key`); an allocation not listed is shown
    whole."""

    def __init__(self) -> None:
        self.windows: dict[StripKey, tuple[int, int]] = {}

    @staticmethod
    def key(strip: StripModel) -> StripKey:
        return (strip.device, strip.start, strip.nbytes)

    def window(self, strip: StripModel) -> tuple[int, int]:
        """Bytes ``[lo, hi)`` of ``strip`` shown now."""
        return self.windows.get(self.key(strip), (0, strip.nbytes))

    def zoom(self, strip: StripModel, lo: int, hi: int, centre: int, factor: float) -> bool:
        """Zoom the window ``[lo, hi)`` of ``strip`` by ``factor`` (< 1: in) around byte
        ``centre``, down to 8 cells; False when the window stays the same."""
        centre = min(max(centre, lo), hi)
        span = max(int((hi - lo) * factor), min(8 * strip.unit, strip.nbytes))
        span = min(span, strip.nbytes)
        new_lo = int(centre - (centre - lo) * span / max(hi - lo, 1))
        new_lo = min(max(new_lo - new_lo % strip.unit, 0), strip.nbytes - span)
        window = (new_lo, new_lo + span)
        if window == (lo, hi):
            return False
        if window == (0, strip.nbytes):
            self.windows.pop(self.key(strip), None)
        else:
            self.windows[self.key(strip)] = window
        return True

    def reset(self, strips: list[StripModel], number: int | None = None) -> None:
        """Show whole allocations again (strip ``number``, or all)."""
        for strip in strips:
            if number is None or strip.number == number:
                self.windows.pop(self.key(strip), None)

    def set(self, strip: StripModel, lo: int, hi: int) -> None:
        """Show bytes ``[lo, hi)`` of ``strip`` (clipped to it)."""
        self.windows[self.key(strip)] = (max(0, lo), min(strip.nbytes, hi))


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
