"""What the Values panel draws, computed without Qt: planes, previews, number formats, writes.

- :func:`slice_plane` cuts the 0-, 1- or 2-D *plane* of a value that a panel shows: two chosen
  axes (or one, or none), every other axis held at an index, complex values reduced to one
  ``part``; the result is a small float64 array for drawing plus the same cells in their own
  dtype (for exact numbers), masks of NaN/+Inf/-Inf, and where each cell came from.
- :func:`downsample` reads a huge value through a strided view, one element per step on each
  axis, so only the elements shown are ever read or copied (a 10^12-element ``expand``-ed
  tensor or a memory-mapped file costs the same as a small one). It reports the steps, so each
  displayed cell maps back to its true index in the original.
- :func:`format_value` and :func:`choose_format` spell numbers for people: integers exactly,
  floats ``%.6g``-style (one format per plane so table columns align), bool ``True``/``False``,
  ``nan``/``inf``/``-inf`` spelled out, complex ``a+bj``.
- :func:`write_refusal`, :func:`parse_value` and :func:`write_element` write one element *in
  place* (every alias sees it), after refusing, in plain words, what should not be written.
"""

from __future__ import annotations

import math
import mmap
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from . import memory
from .catalog import Message
from .stats import Cancelled

Value = torch.Tensor | np.ndarray
Progress = Callable[[float], None]
CancelFn = Callable[[], bool]

PARTS = ("magnitude", "phase", "real", "imag")
DEFAULT_MAX_CELLS = 250_000  # a 500 x 500 heatmap; a table or a 1-D plot of 250k points
BACKGROUND_NUMEL = 1 << 18  # values larger than this are previewed off the UI thread
_CHUNK_CELLS = 1 << 16  # cells copied between progress/cancel checks

__all__ = [
    "BACKGROUND_NUMEL",
    "DEFAULT_MAX_CELLS",
    "PARTS",
    "WORD_KINDS",
    "Cancelled",
    "NonFiniteCounts",
    "NumberFormat",
    "Plane",
    "PlaneView",
    "PreviewError",
    "Sample",
    "WriteRefused",
    "check_showable",
    "choose_format",
    "choose_steps",
    "default_axes",
    "downsample",
    "dtype_kind",
    "format_value",
    "needs_background",
    "parse_value",
    "plane_view",
    "slice_plane",
    "word_text",
    "write_element",
    "write_refusal",
]


class PreviewError(ValueError):
    """The value cannot be shown; the message says why in plain words (English). ``code``
    names the reason and ``params`` its details, so a window words it in its own language:
    ``"meta"`` (shape, dtype), ``"nested"``, ``"sparse"`` (layout), ``"quantized"``,
    ``"not_array"`` (type), ``"record"`` (fields), ``"not_numbers"`` (dtype), ``"empty"``
    (shape)."""

    def __init__(self, message: str, code: str = "", **params: str) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


class WriteRefused(ValueError):
    """An element cannot (or should not) be written; the message says why in plain words."""


# ---------------------------------------------------------------------------- kinds


def dtype_kind(dtype: Any) -> str:
    """``"bool"``, ``"int"``, ``"uint"``, ``"float"``, ``"complex"``, ``"datetime"``,
    ``"timedelta"`` (NumPy dates and durations: drawn as their integers, shown as dates),
    ``"text"`` (NumPy strings: shown in the table only) or ``"other"``.

    ``dtype`` is a torch dtype, a NumPy dtype (or anything ``np.dtype`` accepts).
    """
    if isinstance(dtype, torch.dtype):
        if dtype == torch.bool:
            return "bool"
        if dtype.is_complex:
            return "complex"
        if dtype.is_floating_point:
            return "float"
        if dtype in (torch.uint8, torch.uint16, torch.uint32, torch.uint64):
            return "uint"
        if dtype in (torch.int8, torch.int16, torch.int32, torch.int64):
            return "int"
        return "other"  # quantized, bits...
    try:
        k = np.dtype(dtype).kind
    except TypeError:
        return "other"
    return {"b": "bool", "i": "int", "u": "uint", "f": "float", "c": "complex", "M": "datetime",
            "m": "timedelta", "U": "text", "S": "text"}.get(k, "other")


#: kinds whose cells are not numbers: the table spells them (dates, durations, strings)
WORD_KINDS = ("datetime", "timedelta", "text")


def word_text(x: Any, kind: str) -> str:
    """A date (``2024-01-31T12:00``), a duration (``5 milliseconds``), a string, or ``NaT``."""
    a = np.asarray(x)
    if kind == "datetime":
        return str(np.datetime_as_string(a))
    if kind == "timedelta":
        return "NaT" if np.isnat(a) else str(a[()])
    v = a[()]
    return repr(bytes(v)) if isinstance(v, bytes) else str(v)


def _shape(value: Value) -> tuple[int, ...]:
    return tuple(int(n) for n in value.shape)


def check_showable(value: Any) -> None:
    """Raise :class:`PreviewError` with a plain message when ``value`` has no numbers to show."""
    if isinstance(value, torch.Tensor):
        if value.is_meta:
            raise PreviewError(
                f"meta tensor: it has a shape {list(value.shape)} and a dtype ({value.dtype}) "
                "but no data to show", "meta", shape=str(list(value.shape)),
                dtype=str(value.dtype))
        if getattr(value, "is_nested", False):
            raise PreviewError("nested tensor: its rows have different lengths; not shown",
                               "nested")
        if value.layout != torch.strided:
            raise PreviewError(
                f"sparse tensor ({value.layout}): convert it with .to_dense() to see its values",
                "sparse", layout=str(value.layout))
        if value.is_quantized:
            raise PreviewError("quantized tensor: call .dequantize() to see its values",
                               "quantized")
    elif isinstance(value, np.ndarray | np.generic):
        pass
    else:
        raise PreviewError(f"not a tensor or an array: {type(value).__name__}", "not_array",
                           type=type(value).__name__)
    names = getattr(value.dtype, "names", None)
    if names:
        fields = ", ".join(names)
        raise PreviewError(
            f"a record with the fields {fields}: each field is a value of its own (expand the "
            "record in the Workspace and select one)", "record", fields=fields)
    if dtype_kind(value.dtype) == "other":
        raise PreviewError(f"values of dtype {value.dtype} are not numbers; not shown",
                           "not_numbers", dtype=str(value.dtype))
    if any(n == 0 for n in value.shape):
        raise PreviewError(f"empty: shape {list(value.shape)} has no elements", "empty",
                           shape=str(list(value.shape)))


def needs_background(value: Value) -> bool:
    """True when even a preview of ``value`` may take a while (large, mapped, or on a GPU)."""
    if isinstance(value, torch.Tensor):
        if value.is_meta:
            return False
        return value.device.type != "cpu" or value.numel() > BACKGROUND_NUMEL
    if isinstance(value, np.ndarray):
        return int(value.size) > BACKGROUND_NUMEL or _is_mapped(value)
    return False


def _is_mapped(a: np.ndarray) -> bool:
    base: Any = a
    while base is not None:
        if isinstance(base, np.memmap | mmap.mmap):
            return True
        base = getattr(base, "base", None)
    return False


def default_axes(ndim: int) -> tuple[int, ...]:
    """The axes shown first: none for 0-d, the only one for 1-d, the last two otherwise."""
    if ndim == 0:
        return ()
    if ndim == 1:
        return (0,)
    return (ndim - 2, ndim - 1)


# ---------------------------------------------------------------------------- downsampling


def choose_steps(shape: Sequence[int], max_cells: int) -> tuple[int, ...]:
    """A step per axis so that taking every ``step``-th element leaves at most ``max_cells``.

    Small axes (at most the fair share of the budget) are kept whole; the others share one
    common step, so a heatmap's cells stay square.
    """
    shape = [max(1, int(n)) for n in shape]
    budget = max(1, int(max_cells))
    steps = [1] * len(shape)
    if math.prod(shape) <= budget:
        return tuple(steps)
    rest = sorted(range(len(shape)), key=lambda i: shape[i])
    while rest:
        k = len(rest)
        i = rest[0]
        share = max(1, int(budget ** (1.0 / k) + 1e-9))
        if shape[i] <= share:
            budget = max(1, budget // shape[i])
            rest.pop(0)
            continue
        def cells(step: int) -> int:
            return math.prod(-(-shape[j] // step) for j in rest)

        # the smallest common step that fits (cells() only falls as the step grows)
        total = math.prod(shape[j] for j in rest)
        lo_s = max(1, int((total / budget) ** (1.0 / k)))
        hi_s = max(shape[j] for j in rest)
        while lo_s < hi_s:
            mid = (lo_s + hi_s) // 2
            if cells(mid) <= budget:
                hi_s = mid
            else:
                lo_s = mid + 1
        s = lo_s
        for j in rest:
            steps[j] = s
        break
    return tuple(steps)


@dataclass(frozen=True, eq=False)
class Sample:
    """Every ``steps[d]``-th element of a value along each axis ``d``, copied small.

    ``values`` has the value's own dtype where NumPy has it (bfloat16 and float8 become
    float32, complex32 becomes complex64), native byte order. Cell ``(i, j, ...)`` is element
    ``(i * steps[0], j * steps[1], ...)`` of the original: see :meth:`positions`.
    """

    values: np.ndarray
    steps: tuple[int, ...]
    shape: tuple[int, ...]  # the original's shape

    def positions(self, axis: int) -> np.ndarray:
        """Original indices along ``axis`` of the sample's cells along that axis."""
        return np.arange(0, self.shape[axis], self.steps[axis], dtype=np.int64)

    @property
    def downsampled(self) -> bool:
        return any(s > 1 for s in self.steps)


def _numpy_dtype_for(t: torch.Tensor) -> torch.dtype | None:
    """The torch dtype to convert to before ``.numpy()``, or None when it converts as is."""
    if t.dtype in (torch.bfloat16,) or (t.dtype.is_floating_point and t.element_size() == 1):
        return torch.float32
    if t.dtype == torch.complex32:
        return torch.complex64
    return None


def chunk_to_numpy(t: torch.Tensor) -> np.ndarray:
    """A block of a tensor as a NumPy array on the CPU (bfloat16 and other types NumPy lacks
    widened), for the table and the block summaries."""
    t = t.detach()
    if t.device.type != "cpu":
        t = t.to("cpu")  # copies only this (small) strided view
    conv = _numpy_dtype_for(t)
    if conv is not None:
        t = t.to(conv)
    if t.is_conj():
        t = t.resolve_conj()
    if t.is_neg():
        t = t.resolve_neg()
    return t.numpy()


def _materialise(view: Value, progress: Progress | None, cancel: CancelFn | None) -> np.ndarray:
    """Copy a (small) view into a new native-order NumPy array, in chunks along axis 0."""
    if view.ndim == 0:
        out = chunk_to_numpy(view) if isinstance(view, torch.Tensor) else np.array(view)
        out = np.array(out)
        if not out.dtype.isnative:
            out = out.astype(out.dtype.newbyteorder("="))
        return out
    if isinstance(view, torch.Tensor):
        conv = _numpy_dtype_for(view)
        probe = torch.empty(0, dtype=conv or view.dtype)
        np_dtype = probe.numpy().dtype
    else:
        np_dtype = view.dtype.newbyteorder("=") if not view.dtype.isnative else view.dtype
    shape = tuple(int(n) for n in view.shape)
    out = np.empty(shape, dtype=np_dtype)
    rows = shape[0]
    per_row = max(1, math.prod(shape[1:]))
    step = max(1, _CHUNK_CELLS // per_row)
    for r in range(0, rows, step):
        if cancel is not None and cancel():
            raise Cancelled("preview cancelled")
        if isinstance(view, torch.Tensor):
            out[r : r + step] = chunk_to_numpy(view[r : r + step])
        else:
            out[r : r + step] = view[r : r + step]
        if progress is not None:
            progress(min(1.0, (r + step) / rows))
    return out


def downsample(
    value: Any,
    max_cells: int = DEFAULT_MAX_CELLS,
    progress: Progress | None = None,
    cancel: CancelFn | None = None,
) -> Any:
    """Every n-th element of ``value`` along each axis, at most ``max_cells`` of them.

    ``value`` is a torch tensor (any device; only the sampled elements are copied to the CPU)
    or a NumPy array (memory-mapped and negative-stride ones included) -> :class:`Sample`; or a
    :class:`Plane` -> a coarser :class:`Plane` whose cells are a subset of the original's.
    The value is never copied whole: the sample is taken through a strided view.
    ``progress(fraction)`` is called as it copies; ``cancel() -> True`` raises
    :class:`Cancelled`.
    """
    if isinstance(value, Plane):
        return _downsample_plane(value, max_cells)
    check_showable(value)
    if isinstance(value, np.generic):  # a NumPy scalar: a 0-d array of it
        value = np.asarray(value)
    shape = _shape(value)
    steps = choose_steps(shape, max_cells)
    view = value[tuple(slice(None, None, s) for s in steps)] if shape else value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # non-writable NumPy memory maps
        values = _materialise(view, progress, cancel)
    return Sample(values=values, steps=steps, shape=shape)


# ---------------------------------------------------------------------------- planes


class NonFiniteCounts:
    """How many NaN, +Inf and -Inf a class's ``nan``/``posinf``/``neginf`` arrays hold (masks
    of a plane's cells, or counts per block of a summary: the sum is the count either way)."""

    nan: np.ndarray
    posinf: np.ndarray
    neginf: np.ndarray

    @property
    def nan_count(self) -> int:
        return int(self.nan.sum())

    @property
    def posinf_count(self) -> int:
        return int(self.posinf.sum())

    @property
    def neginf_count(self) -> int:
        return int(self.neginf.sum())


@dataclass(frozen=True, eq=False)
class Plane(NonFiniteCounts):
    """The 0-, 1- or 2-D slice of a value that is drawn, possibly downsampled.

    ``data`` (float64) is what is drawn: the chosen complex ``part``, bool as 0/1, integers as
    floats; ``raw`` holds the same cells in their own dtype (exact integers, complex numbers).
    ``nan``/``posinf``/``neginf`` are masks over ``data``. Displayed cell ``(i, j)`` is element
    :meth:`original_index` ``(i, j)`` of the whole value: along displayed axis ``d`` it is
    ``positions(d)[i]``, every other axis ``a`` is held at ``index[a]``. A plane read from a
    *region* of the displayed axes (a zoomed-in view) starts at ``origin`` (one index per
    displayed axis) instead of 0.
    """

    data: np.ndarray
    raw: np.ndarray
    nan: np.ndarray
    posinf: np.ndarray
    neginf: np.ndarray
    shape: tuple[int, ...]  # the whole value's shape
    dtype: str  # the value's dtype, as torch or NumPy spells it
    kind: str  # "bool" | "int" | "uint" | "float" | "complex"
    axes: tuple[int, ...]  # displayed axes of the value (rows, columns)
    index: dict[int, int] = field(default_factory=dict)  # every other axis -> its index
    steps: tuple[int, ...] = ()  # step along each displayed axis
    part: str | None = None  # complex part shown; None for real values
    lo: float | None = None  # smallest finite displayed value (None: no finite value)
    hi: float | None = None
    origin: tuple[int, ...] = ()  # first index along each displayed axis (() : all zeros)

    @property
    def full_size(self) -> tuple[int, ...]:
        """Sizes of the displayed axes in the original (before downsampling)."""
        return tuple(self.shape[a] for a in self.axes)

    @property
    def downsampled(self) -> bool:
        return any(s > 1 for s in self.steps)

    def start(self, d: int) -> int:
        """Original index along displayed axis ``d`` of the plane's first cell."""
        return int(self.origin[d]) if self.origin else 0

    def positions(self, d: int) -> np.ndarray:
        """Original indices along displayed axis ``d`` (0: rows, 1: columns) of its cells."""
        return self.start(d) + np.arange(self.data.shape[d], dtype=np.int64) * self.steps[d]

    def original_index(self, *cell: int) -> tuple[int, ...]:
        """The index into the whole value of displayed cell ``cell`` (one int per axis)."""
        if len(cell) != len(self.axes):
            raise IndexError(f"expected {len(self.axes)} indices, got {len(cell)}")
        full = [0] * len(self.shape)
        for a, i in self.index.items():
            full[a] = i
        for d, (a, c) in enumerate(zip(self.axes, cell, strict=True)):
            if not 0 <= c < self.data.shape[d]:
                raise IndexError(f"cell {cell} outside a plane of shape {self.data.shape}")
            full[a] = self.start(d) + int(c) * self.steps[d]
        return tuple(full)



def display_numbers(raw: np.ndarray, kind: str, part: str | None) -> np.ndarray:
    """The numbers a plane of ``kind`` is drawn as: dates and durations as their integers (NaT
    as NaN), a complex plane's ``part``, booleans as 0/1, text as zeros (the table spells it)."""
    if kind in ("datetime", "timedelta"):  # their integers (in their unit); NaT as NaN
        ints = raw.astype(raw.dtype.newbyteorder("=")).view(np.int64)
        return np.where(np.isnat(raw), np.nan, ints.astype(np.float64))
    if kind == "text":  # nothing to draw: the table spells them
        return np.zeros(raw.shape)
    with np.errstate(all="ignore"):
        if kind == "complex":
            if part == "phase":
                return np.angle(raw).astype(np.float64)
            if part == "real":
                return raw.real.astype(np.float64)
            if part == "imag":
                return raw.imag.astype(np.float64)
            return np.abs(raw).astype(np.float64)
        return raw.astype(np.float64)


def _make_plane(
    raw: np.ndarray,
    *,
    shape: tuple[int, ...],
    dtype: str,
    kind: str,
    axes: tuple[int, ...],
    index: dict[int, int],
    steps: tuple[int, ...],
    part: str | None,
    origin: tuple[int, ...] = (),
) -> Plane:
    data = display_numbers(raw, kind, part)
    nan = np.isnan(data)
    posinf = np.isposinf(data)
    neginf = np.isneginf(data)
    finite = data[~(nan | posinf | neginf)]
    lo = float(finite.min()) if finite.size else None
    hi = float(finite.max()) if finite.size else None
    return Plane(data=data, raw=raw, nan=nan, posinf=posinf, neginf=neginf, shape=shape,
                 dtype=dtype, kind=kind, axes=axes, index=index, steps=steps,
                 part=part if kind == "complex" else None, lo=lo, hi=hi, origin=origin)


@dataclass(frozen=True)
class PlaneView:
    """The 0-, 1- or 2-D view of a value that a plane is read from (nothing copied).

    ``view`` keeps the value's own axis order: when ``transposed``, displayed rows are the
    view's columns. ``axes`` and ``index`` are as in :class:`Plane`.
    """

    view: Any
    shape: tuple[int, ...]
    axes: tuple[int, ...]
    index: dict[int, int]
    kind: str
    dtype: str

    @property
    def transposed(self) -> bool:
        return len(self.axes) == 2 and self.axes[0] > self.axes[1]

    def region(self, region: Sequence[tuple[int, int]]) -> tuple[Any, tuple[int, ...]]:
        """The part of :attr:`view` in ``region`` (one ``(start, stop)`` per displayed axis,
        in displayed order; the view's own order when transposed) and its origin (the
        starts); ``ValueError`` when it does not fit the plane."""
        if len(region) != len(self.axes):
            raise ValueError(f"region {list(region)} needs one (start, stop) per displayed axis")
        full = [self.shape[a] for a in self.axes]
        bounds = [(int(a), int(b)) for a, b in region]
        for (a, b), n in zip(bounds, full, strict=True):
            if not 0 <= a < b <= n:
                raise ValueError(f"region {bounds} does not fit the plane's size {full}")
        origin = tuple(a for a, _ in bounds)
        if self.transposed:
            bounds = bounds[::-1]
        return self.view[tuple(slice(a, b) for a, b in bounds)], origin


def plane_view(
    value: Value,
    axes: Sequence[int] | None = None,
    index: dict[int, int] | None = None,
    part: str = "magnitude",
) -> PlaneView:
    """The view of ``value`` that :func:`slice_plane` reads (same arguments and errors)."""
    check_showable(value)
    if isinstance(value, torch.Tensor):
        value = value.detach()  # a view: no autograd nodes for the slicing below
    elif isinstance(value, np.generic):
        value = np.asarray(value)
    shape = _shape(value)
    ndim = len(shape)
    axes_t = tuple(int(a) for a in (default_axes(ndim) if axes is None else axes))
    axes_t = tuple(a + ndim if a < 0 else a for a in axes_t)
    if len(axes_t) > 2 or len(set(axes_t)) != len(axes_t) or any(
        not 0 <= a < ndim for a in axes_t
    ):
        raise ValueError(f"axes {tuple(axes) if axes is not None else ()} do not fit shape "
                         f"{list(shape)}: give up to two distinct axes")
    if part not in PARTS:
        raise ValueError(f"part must be one of {', '.join(PARTS)}, not {part!r}")
    given = dict(index or {})
    fixed: dict[int, int] = {}
    for a in range(ndim):
        if a in axes_t:
            continue
        i = int(given.get(a, given.get(a - ndim, 0)))
        if not -shape[a] <= i < shape[a]:
            raise ValueError(f"index {i} is out of range for axis {a} of size {shape[a]}")
        fixed[a] = i % shape[a]
    key = tuple(fixed[a] if a in fixed else slice(None) for a in range(ndim))
    sub = value[key] if ndim else value
    return PlaneView(view=sub, shape=shape, axes=axes_t, index=fixed,
                     kind=dtype_kind(value.dtype), dtype=str(value.dtype))


def slice_plane(
    value: Value,
    axes: Sequence[int] | None = None,
    index: dict[int, int] | None = None,
    part: str = "magnitude",
    max_cells: int = DEFAULT_MAX_CELLS,
    progress: Progress | None = None,
    cancel: CancelFn | None = None,
    region: Sequence[tuple[int, int]] | None = None,
) -> Plane:
    """The plane of ``value`` over ``axes`` (rows, columns), other axes held at ``index``.

    ``axes``: 0, 1 or 2 distinct axes (default :func:`default_axes`); their order is the
    order displayed, so ``(1, 0)`` shows the transpose. ``index`` maps every other axis to an
    index (default 0; negative counts from the end). ``part`` picks what a complex value shows:
    ``"magnitude"``, ``"phase"`` (radians), ``"real"`` or ``"imag"``. At most ``max_cells``
    cells are read (see :func:`downsample`). ``region``: one ``(start, stop)`` per displayed
    axis, in displayed order, to read only that part of the plane (a zoomed-in view; the
    plane's ``origin`` is then the starts). Raises :class:`PreviewError` for values with no
    numbers to show, ``ValueError`` for bad axes, indices, regions or parts.
    """
    pv = plane_view(value, axes, index, part)
    sub = pv.view
    origin: tuple[int, ...] = ()
    if region is not None:
        sub, origin = pv.region(region)
    sample = downsample(sub, max_cells, progress, cancel)
    raw = sample.values
    steps = sample.steps
    if pv.transposed:
        raw = raw.T
        steps = steps[::-1]
    return _make_plane(raw, shape=pv.shape, dtype=pv.dtype, kind=pv.kind, axes=pv.axes,
                       index=pv.index, steps=tuple(steps), part=part, origin=origin)


def _downsample_plane(plane: Plane, max_cells: int) -> Plane:
    steps = choose_steps(plane.raw.shape, max_cells)
    if not any(s > 1 for s in steps):
        return plane
    raw = plane.raw[tuple(slice(None, None, s) for s in steps)].copy()
    return _make_plane(raw, shape=plane.shape, dtype=plane.dtype, kind=plane.kind,
                       axes=plane.axes, index=dict(plane.index),
                       steps=tuple(a * b for a, b in zip(plane.steps, steps, strict=True)),
                       part=plane.part or "magnitude", origin=plane.origin)


# ---------------------------------------------------------------------------- number formats


def _g(x: float) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    s = f"{x:.6g}"
    return "0" if s == "-0" else s


def format_value(x: Any, dtype: Any = None) -> str:
    """One number for people: ints exact, floats ``%.6g``, ``True``/``False``, ``nan``,
    ``inf``, ``-inf``, complex ``a+bj``. ``dtype`` (torch or NumPy) decides the kind; without
    it the Python type of ``x`` does."""
    kind = dtype_kind(dtype) if dtype is not None else None
    if kind in WORD_KINDS:
        return word_text(x, kind)
    if isinstance(x, np.datetime64 | np.timedelta64 | str | bytes):
        return word_text(x, dtype_kind(np.asarray(x).dtype))
    if isinstance(x, torch.Tensor | np.ndarray):
        x = x.item()
    if kind is None or kind == "other":
        if isinstance(x, bool | np.bool_):
            kind = "bool"
        elif isinstance(x, int | np.integer):
            kind = "int"
        elif isinstance(x, complex | np.complexfloating):
            kind = "complex"
        else:
            kind = "float"
    if kind == "bool":
        return "True" if bool(x) else "False"
    if kind in ("int", "uint"):
        return str(int(x))
    if kind == "complex":
        z = complex(x)
        re, im = _g(z.real), _g(z.imag)
        sign = "-" if im.startswith("-") else "+"
        return f"{re}{sign}{im.lstrip('-')}j"
    return _g(float(x))


@dataclass(frozen=True)
class NumberFormat:
    """One way to spell every number of a plane, so a table's columns line up.

    ``style``: ``"bool"``, ``"int"``, ``"fixed"`` (``decimals`` after the point), ``"sci"``
    (``decimals`` in the mantissa), ``"complex"`` (each part ``%.6g``), or one of
    :data:`WORD_KINDS` (dates, durations, strings: :func:`word_text`).
    """

    style: str
    decimals: int = 0

    def format(self, x: Any) -> str:
        if self.style in WORD_KINDS:
            return word_text(x, self.style)
        if self.style == "bool":
            return "True" if bool(x) else "False"
        if self.style == "int":
            return str(int(x))
        if self.style == "complex":
            return format_value(complex(x), "complex64")
        v = float(x)
        if not math.isfinite(v):
            return _g(v)
        if self.style == "sci":
            return f"{v:.{self.decimals}e}"
        if isinstance(x, np.floating) and x.dtype.itemsize < 8:
            # a float16/float32 in its own shortest digits (at most the column's decimals):
            # float32 0.797433 is "0.797433", never float64's "0.79743302"
            s = np.format_float_positional(x, unique=True, precision=self.decimals, trim="-")
        else:
            s = f"{v:.{self.decimals}f}"
        return s[1:] if s.startswith("-") and float(s) == 0.0 else s

    def align(self, text: str) -> str:
        """``text`` (from :meth:`format`) padded on the right with figure spaces to the
        column's decimals, so a right-aligned column lines its decimal points up (as NumPy
        pads ``[0.797433  , 0.00123457]``); for display only, never for copied text."""
        if self.style != "fixed" or self.decimals == 0 or not text[-1:].isdigit():
            return text
        _head, point, tail = text.partition(".")
        return text + ("" if point else "\u2008") + "\u2007" * (self.decimals - len(tail))


def choose_format(values: np.ndarray, kind: str, sample: int = 4096) -> NumberFormat:
    """The :class:`NumberFormat` for ``values`` (a plane's ``raw``) of dtype kind ``kind``.

    Floats get fixed decimals when every value reads well that way (as many decimals as the
    ``%.6g`` spelling of the most precise one needs), scientific otherwise; at most ``sample``
    values (spread evenly) are looked at, so this stays fast on any plane.
    """
    if kind == "bool":
        return NumberFormat("bool")
    if kind in ("int", "uint"):
        return NumberFormat("int")
    if kind == "complex":
        return NumberFormat("complex")
    if kind in WORD_KINDS:
        return NumberFormat(kind)
    arr = np.asarray(values)
    own = arr.dtype if arr.dtype.kind == "f" else np.dtype(np.float64)
    flat = arr.astype(own, copy=False).reshape(-1)
    if flat.size > sample:
        flat = flat[:: -(-flat.size // sample)]
    flat = flat[np.isfinite(flat)]
    if flat.size == 0:
        return NumberFormat("fixed", 0)
    # each value's digits: the shorter of its dtype's shortest round-trip spelling (float32
    # 123.456 is "123.456", not float64's 123.45600128) and six significant digits
    decimals, sci, mantissa, whole = 0, False, 0, 1
    for v in flat:
        s = _short(v)
        if "e" in s:
            sci = True
            m = s.split("e")[0]
            mantissa = max(mantissa, len(m.split(".")[1]) if "." in m else 0)
        else:
            head, _, tail = s.lstrip("-").partition(".")
            decimals = max(decimals, len(tail))
            whole = max(whole, len(head) if head != "0" else 0)
    # fixed decimals that would print more digits than the dtype holds (a float32 column of
    # 123.456 and 0.00123457) would show noise: scientific, as NumPy does
    if sci or decimals > 8 or whole + decimals > _SIGNIFICANT.get(own.itemsize, 17):
        if not sci:
            mantissa = max((len(_short(v, sci=True).split("e")[0].partition(".")[2])
                            for v in flat), default=0)
        return NumberFormat("sci", mantissa)
    return NumberFormat("fixed", decimals)


#: significant decimal digits a float of this many bytes holds (its shortest round-trip bound)
_SIGNIFICANT = {2: 5, 4: 9, 8: 17}


def _short(v: np.floating[Any], sci: bool = False) -> str:
    """``v`` in the fewest digits that read back as ``v`` in its own dtype, at most six
    significant (``%.6g``'s), positional unless ``sci`` or too large or small for it."""
    six = f"{float(v):.6e}" if sci else f"{float(v):.6g}"
    if sci:
        own = np.format_float_scientific(v, unique=True, trim="-")
        mant, _, exp = own.partition("e")
        six_m, _, _ = six.partition("e")
        six_m = six_m.rstrip("0").rstrip(".")
        return (mant if len(mant) <= len(six_m) else six_m) + "e" + exp
    if "e" in six:
        return six
    own = np.format_float_positional(v, unique=True, trim="-")
    return own if len(own) <= len(six) else six


# ---------------------------------------------------------------------------- writing


def write_refusal(value: Any) -> str | None:
    """Why one element of ``value`` should not be written in place (a catalog Message), or
    None when it may be."""
    if isinstance(value, torch.Tensor):
        if value.is_meta:
            return Message("write.meta")
        if value.layout != torch.strided or value.is_quantized:
            return Message("write.layout", layout=str(value.layout))
        if value.is_inference():
            return Message("write.inference")
        if value.requires_grad and value.is_leaf:
            return Message("write.leaf")
        base = value._base
        if base is not None and base.requires_grad and base.is_leaf:
            return Message("write.view-of-leaf")
        if memory.internal_overlap(value):
            return Message("write.overlap-tensor")
        return None
    if isinstance(value, np.ndarray):
        if dtype_kind(value.dtype) in WORD_KINDS:
            return Message("write.words")
        if not value.flags.writeable:
            return Message("write.read-only")
        if memory.internal_overlap(value):
            return Message("write.overlap-array")
        return None
    if isinstance(value, np.generic):
        return Message("write.numpy-scalar")
    return Message("write.not-array", kind=type(value).__name__)


def parse_value(text: str, dtype: Any) -> bool | int | float | complex:
    """Read ``text`` as one element of ``dtype`` (torch or NumPy); ValueError in plain words."""
    s = text.strip()
    kind = dtype_kind(dtype)
    if not s:
        raise ValueError(Message("edit.empty"))
    if kind == "bool":
        low = s.lower()
        if low in ("true", "1", "yes"):
            return True
        if low in ("false", "0", "no"):
            return False
        raise ValueError(Message("edit.not-bool", text=repr(s)))
    if kind in ("int", "uint"):
        try:
            f = float(s)
        except ValueError:
            raise ValueError(Message("edit.not-number", text=repr(s))) from None
        try:
            n = int(s)
        except ValueError:
            if not math.isfinite(f) or f != int(f):
                raise ValueError(Message("edit.not-whole", text=repr(s), dtype=str(dtype))) \
                    from None
            n = int(f)
        info = torch.iinfo(dtype) if isinstance(dtype, torch.dtype) else np.iinfo(dtype)
        if not info.min <= n <= info.max:
            raise ValueError(Message("edit.out-of-range", n=n, dtype=str(dtype), low=info.min,
                                     high=info.max))
        return n
    if kind == "complex":
        try:
            return complex(s.replace(" ", "").replace("i", "j"))
        except ValueError:
            raise ValueError(Message("edit.not-complex", text=repr(s))) from None
    try:
        return float(s)
    except ValueError:
        raise ValueError(Message("edit.not-number", text=repr(s))) from None


def write_element(value: Value, index: Sequence[int], new: Any) -> None:
    """Write ``new`` into element ``index`` of ``value`` in place (aliases see the change).

    Raises :class:`WriteRefused` when :func:`write_refusal` objects, ``IndexError`` for an
    index outside the value. Tensors are written under ``torch.no_grad()`` (the write is a
    change of data, not a step of the computation), which bumps their version counter.
    """
    reason = write_refusal(value)
    if reason is not None:
        raise WriteRefused(reason)
    idx = tuple(int(i) for i in index)
    if len(idx) != value.ndim:
        raise IndexError(f"index {list(idx)} does not fit shape {list(value.shape)}")
    for i, n in zip(idx, value.shape, strict=True):
        if not -n <= i < n:
            raise IndexError(f"index {list(idx)} is outside shape {list(value.shape)}")
    if isinstance(value, torch.Tensor):
        with torch.no_grad():
            value[idx] = new
    else:
        value[idx] = new
