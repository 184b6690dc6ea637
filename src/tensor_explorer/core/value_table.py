"""The whole 2-D plane of a value as a table, read a block at a time (no Qt here).

:class:`ValueTable` is what the Values panel's table shows: every row and column of the plane
that :func:`.preview.slice_plane` would draw (two displayed axes, every other axis held at an
index), at its *true* index, never downsampled. Nothing is copied up front: the plane is a
view of the value, and only the blocks of cells asked for are read (a block of
:data:`BLOCK_ROWS` x :data:`BLOCK_COLS` cells, through a strided view, so a 16384² memory map
costs the same as a small array), kept in a small LRU of :data:`MAX_BLOCKS` blocks.

Each column gets one :class:`.preview.NumberFormat`, chosen once from a sample of that column
(:data:`COLUMN_SAMPLE` rows spread over its whole length), so a column never mixes ``0.41``
and ``-9.21725e-01`` and its format does not change while the table scrolls.

:func:`parse_index` reads what a person types into "Go to index" (``1, 1``, ``[4000, 17]``,
negative indices as in Python).
"""

from __future__ import annotations

import re
import warnings
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from . import preview
from .preview import NumberFormat

BLOCK_ROWS = 128  # cells read at a time: a block of rows x columns of the plane
BLOCK_COLS = 32
MAX_BLOCKS = 64  # blocks kept (at most 4 MiB for complex128)
#: rows sampled (spread evenly over the whole column) to choose a column's number format; the
#: format of a longer column is a guess from this sample, made once, so it never flickers
COLUMN_SAMPLE = 256
#: most cells a selection may have to be copied as text (about 5 MB of text)
MAX_COPY_CELLS = 250_000

__all__ = [
    "BLOCK_COLS",
    "BLOCK_ROWS",
    "COLUMN_SAMPLE",
    "MAX_BLOCKS",
    "MAX_COPY_CELLS",
    "IndexInputError",
    "SelectionTooLarge",
    "ValueTable",
    "exact_text",
    "parse_index",
]


class SelectionTooLarge(ValueError):
    """A selection has more cells than may be copied; ``cells`` and ``limit`` say how many."""

    def __init__(self, cells: int, limit: int) -> None:
        super().__init__(f"{cells:,} cells selected; at most {limit:,} can be copied")
        self.cells = cells
        self.limit = limit


class IndexInputError(ValueError):
    """Typed text is not an index of the value. ``code`` says why, ``values`` the details
    (the words are chosen where the message is shown):

    - ``"empty"``: nothing typed;
    - ``"scalar"``: the value has no axes to go to;
    - ``"not_int"``: ``values["text"]`` is not a whole number;
    - ``"count"``: ``values["given"]`` indices for ``values["ndim"]`` axes;
    - ``"range"``: ``values["index"]`` is outside axis ``values["axis"]`` of ``values["size"]``.
    """

    def __init__(self, code: str, **values: Any) -> None:
        super().__init__(f"{code}: {values}")
        self.code = code
        self.values = values


def parse_index(text: str, shape: Sequence[int]) -> tuple[int, ...]:
    """The index of ``shape`` typed as ``text`` (``1, 1``, ``[4000, 17]``, ``(-1, 0)``,
    ``3 4``), one per axis, negative ones counted from the end -> non-negative indices.
    Raises :class:`IndexInputError`."""
    shape = tuple(int(n) for n in shape)
    if not shape:
        raise IndexInputError("scalar")
    s = text.strip().strip("[]()").strip()
    if not s:
        raise IndexInputError("empty")
    parts = [p for p in re.split(r"[,\s]+", s) if p]
    out: list[int] = []
    for p in parts:
        try:
            out.append(int(p))
        except ValueError:
            raise IndexInputError("not_int", text=p) from None
    if len(out) != len(shape):
        raise IndexInputError("count", given=len(out), ndim=len(shape))
    for axis, (i, n) in enumerate(zip(out, shape, strict=True)):
        if not -n <= i < n:
            raise IndexInputError("range", index=i, axis=axis, size=n)
    return tuple(i % n for i, n in zip(out, shape, strict=True))


def exact_text(x: Any, kind: str) -> str:
    """One element at full precision (``repr`` of floats round-trips), as a cell's editor
    starts: ``True``, ``7``, ``0.41000000834465027``, ``(1+2j)`` without the brackets."""
    if kind in preview.WORD_KINDS:
        return preview.word_text(x, kind)
    v = x.item() if hasattr(x, "item") else x
    if kind == "bool":
        return "True" if v else "False"
    if kind in ("int", "uint"):
        return str(int(v))
    return repr(v).strip("()")


def _native(dtype: np.dtype[Any]) -> np.dtype[Any]:
    return dtype if dtype.isnative else dtype.newbyteorder("=")


def _to_numpy(view: torch.Tensor | np.ndarray) -> np.ndarray:
    """A small view (a block, a column sample) copied into its own native NumPy array; torch
    dtypes NumPy lacks become the nearest it has (bfloat16 -> float32)."""
    if isinstance(view, torch.Tensor):
        return np.array(preview.chunk_to_numpy(view), copy=True)
    return np.array(view, dtype=_native(view.dtype), copy=True)


class ValueTable:
    """The plane of ``value`` over ``axes`` (rows, columns) with every other axis held at
    ``index`` (as :func:`.preview.slice_plane` takes them), as a table of its true cells.

    A 0-d value is one cell, a 1-d plane one column. ``rows``/``cols`` are the full sizes;
    :meth:`cell` and :meth:`read` give elements in the value's own dtype (bfloat16 and float8
    as float32, complex32 as complex64). ``part`` is the complex part whose NaN/Inf
    :meth:`flag` reports. Raises like :func:`.preview.slice_plane` for values or axes that
    cannot be shown.
    """

    def __init__(self, value: Any, axes: Sequence[int] | None = None,
                 index: dict[int, int] | None = None, part: str = "magnitude", *,
                 block_rows: int = BLOCK_ROWS, block_cols: int = BLOCK_COLS,
                 max_blocks: int = MAX_BLOCKS, column_sample: int = COLUMN_SAMPLE) -> None:
        pv = preview.plane_view(value, axes, index, part)  # (its checks and errors)
        sub: Any = pv.view  # a view: nothing is read yet
        if pv.transposed:
            sub = sub.T
        elif len(pv.axes) == 1:
            sub = sub[:, None]
        elif not pv.axes:
            sub = sub[None, None]
        self._grid = sub
        self.shape = pv.shape
        self.axes = pv.axes
        self.index = pv.index
        self.part = part
        self.dtype = pv.dtype
        self.kind = pv.kind
        self.rows, self.cols = int(sub.shape[0]), int(sub.shape[1])
        #: equal for two tables over the same plane of the same object (a re-read, not a move;
        #: the caller's object: a tensor's detached view is new each time)
        self.key = (id(value), pv.shape, pv.axes, tuple(sorted(pv.index.items())), part)
        self._br, self._bc = max(1, int(block_rows)), max(1, int(block_cols))
        self._max_blocks = max(1, int(max_blocks))
        self._blocks: OrderedDict[tuple[int, int], np.ndarray] = OrderedDict()
        self._sample_rows = max(1, int(column_sample))
        self._samples: dict[int, np.ndarray] = {}
        self._formats: dict[int, NumberFormat] = {}
        self.blocks_read = 0  # how many blocks were read from the value (for tests)

    @property
    def ndim(self) -> int:
        """Axes of the plane: 0 (one cell), 1 (one column) or 2."""
        return len(self.axes)

    # ------------------------------------------------------------------ reading

    def read(self, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
        """Cells ``[r0:r1, c0:c1]`` of the plane as a new 2-d array; reads only them."""
        r0, r1 = max(0, r0), min(self.rows, r1)
        c0, c1 = max(0, c0), min(self.cols, c1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # non-writable NumPy memory maps
            return _to_numpy(self._grid[r0:max(r0, r1), c0:max(c0, c1)])

    def _block(self, br: int, bc: int) -> np.ndarray:
        key = (br, bc)
        block = self._blocks.get(key)
        if block is not None:
            self._blocks.move_to_end(key)
            return block
        r0, c0 = br * self._br, bc * self._bc
        block = self.read(r0, r0 + self._br, c0, c0 + self._bc)
        self.blocks_read += 1
        self._blocks[key] = block
        while len(self._blocks) > self._max_blocks:
            self._blocks.popitem(last=False)
        return block

    def cell(self, row: int, col: int) -> Any:
        """The element at table cell ``(row, col)`` (a NumPy scalar of the block's dtype)."""
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise IndexError(f"cell ({row}, {col}) outside a table of {self.rows} x {self.cols}")
        br, r = divmod(row, self._br)
        bc, c = divmod(col, self._bc)
        return self._block(br, bc)[r, c]

    def forget(self) -> None:
        """Drop every block read (after the value was written); formats are kept."""
        self._blocks.clear()

    def original_index(self, row: int, col: int) -> tuple[int, ...]:
        """The index into the whole value of table cell ``(row, col)``."""
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise IndexError(f"cell ({row}, {col}) outside a table of {self.rows} x {self.cols}")
        full = [0] * len(self.shape)
        for a, i in self.index.items():
            full[a] = i
        for a, i in zip(self.axes, (row, col), strict=False):
            full[a] = i
        return tuple(full)

    def plane_cell(self, row: int, col: int) -> tuple[int, ...]:
        """Table cell ``(row, col)`` as a cell of the plane: ``()``, ``(row,)``, ``(row, col)``."""
        return ((), (row,), (row, col))[self.ndim]

    def table_cell(self, index: Sequence[int]) -> tuple[int, int]:
        """The table cell showing element ``index`` of the value (which must lie in this
        plane: the held axes at their indices)."""
        idx = tuple(int(i) for i in index)
        if len(idx) != len(self.shape) or any(idx[a] != i for a, i in self.index.items()):
            raise IndexError(f"{list(idx)} is not in this plane")
        cell = [idx[a] for a in self.axes] + [0, 0]
        return cell[0], cell[1]

    # ------------------------------------------------------------------ text

    def column_sample(self, col: int) -> np.ndarray:
        """Up to :data:`COLUMN_SAMPLE` cells of column ``col``, from rows spread evenly over
        its whole length (first and last included); read once per column."""
        sample = self._samples.get(col)
        if sample is None:
            n = self.rows
            rows = np.unique(np.linspace(0, n - 1, min(n, self._sample_rows)).round()
                             .astype(np.int64))
            column = self._grid[:, col]  # a strided view: only the sampled rows are read
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                if isinstance(column, torch.Tensor):
                    picked: Any = column[torch.from_numpy(rows)]
                elif len(rows) == n:
                    picked = column
                else:
                    picked = column[rows]
                sample = _to_numpy(picked)
            self._samples[col] = sample
        return sample

    def column_format(self, col: int) -> NumberFormat:
        """The one number format of column ``col`` (chosen from :meth:`column_sample`)."""
        fmt = self._formats.get(col)
        if fmt is None:
            sample = self.column_sample(col)
            fmt = preview.choose_format(sample, self.kind, sample=max(1, sample.size))
            self._formats[col] = fmt
        return fmt

    def text(self, row: int, col: int) -> str:
        """Cell ``(row, col)`` as the table shows it (its column's format)."""
        return self.column_format(col).format(self.cell(row, col))

    def exact(self, row: int, col: int) -> str:
        """Cell ``(row, col)`` at full precision (:func:`exact_text`)."""
        return exact_text(self.cell(row, col), self.kind)

    def part_value(self, row: int, col: int) -> float:
        """The number drawn for cell ``(row, col)``: the ``part`` of a complex element (as
        :func:`.preview.slice_plane` draws it), else the element as a float."""
        return float(preview.display_numbers(np.asarray(self.cell(row, col)), self.kind,
                                             self.part))

    def flag(self, row: int, col: int) -> str | None:
        """``"nan"``, ``"posinf"`` or ``"neginf"`` when the cell (its ``part``, for complex
        values) is not finite, else None."""
        if self.kind not in ("float", "complex", "datetime", "timedelta"):
            return None
        v = self.part_value(row, col)
        if v != v:
            return "nan"
        if v == float("inf"):
            return "posinf"
        if v == float("-inf"):
            return "neginf"
        return None

    def block(self, r0: int, r1: int, c0: int, c1: int,
              limit: int = MAX_COPY_CELLS) -> np.ndarray:
        """Cells ``[r0:r1, c0:c1]`` to copy; :class:`SelectionTooLarge` above ``limit``."""
        cells = max(0, r1 - r0) * max(0, c1 - c0)
        if cells > limit:
            raise SelectionTooLarge(cells, limit)
        return self.read(r0, r1, c0, c1)
