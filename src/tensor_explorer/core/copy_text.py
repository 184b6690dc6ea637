"""What Edit ▸ Copy puts on the clipboard, as plain text (no Qt here).

- :func:`value_text`: a whole value as torch (or NumPy) prints it; past ``limit`` elements the
  printout is torch's own summary (first and last items, ``...`` between), under a header line
  that says what was left out.
- :func:`block`: the cells of a table selection, as the rectangle that holds them all.
- :func:`to_tsv` / :func:`to_csv` / :func:`to_numpy_literal`: such a block as tab-separated
  text or CSV (a spreadsheet pastes either) or
  as Python source (``np.array([[1.0, 2.0]], dtype=np.float32)``) that gives the same values.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from .preview import WORD_KINDS, dtype_kind, word_text

#: elements above which a copied value is a summary (torch prints a summary from 1000 on)
SUMMARY_LIMIT = 1000

# NumPy's spelling of torch dtypes it has no exact match for
_NUMPY_DTYPES = {"bfloat16": "float32", "complex32": "complex64", "bool": "bool_"}


def value_text(value: Any, name: str | None = None, *, limit: int = SUMMARY_LIMIT) -> str:
    """``value`` as torch (or NumPy) prints it: ``repr``; a tensor or array of more than
    ``limit`` elements as a summary (a ``#`` header line with its shape, dtype and device,
    then the printout with only its first and last items)."""
    if isinstance(value, torch.Tensor):
        numel = value.numel()
        if numel <= limit:
            return repr(value)
        with _print_options(torch_limit=limit):
            body = repr(value)
        head = (f"# {name + ': ' if name else ''}tensor of shape {tuple(value.shape)}, "
                f"{value.dtype}, device {value.device}: {numel:,} elements, summarized")
        return f"{head}\n{body}"
    if isinstance(value, np.ndarray):
        if value.size <= limit:
            return repr(value)
        with np.printoptions(threshold=limit):
            body = repr(value)
        head = (f"# {name + ': ' if name else ''}ndarray of shape {value.shape}, "
                f"{value.dtype}: {value.size:,} elements, summarized")
        return f"{head}\n{body}"
    return repr(value)


class _print_options:
    """torch's print options for one ``with`` block (torch has no context manager)."""

    def __init__(self, torch_limit: int) -> None:
        self.limit = torch_limit

    def __enter__(self) -> None:
        from torch._tensor_str import PRINT_OPTS

        self.saved = PRINT_OPTS.threshold
        torch.set_printoptions(threshold=self.limit)

    def __exit__(self, *exc: object) -> None:
        torch.set_printoptions(threshold=self.saved)


def block(values: np.ndarray, rows: Sequence[int], cols: Sequence[int]) -> np.ndarray:
    """The rectangle of ``values`` (2-d; 1-d is one column, 0-d one cell) that holds every
    selected cell ``(rows[k], cols[k])``, as a 2-d array (a view where it can be)."""
    if not rows or len(rows) != len(cols):
        raise ValueError("no cells selected")
    a = np.asarray(values)
    if a.ndim == 0:
        a = a.reshape(1, 1)
    elif a.ndim == 1:
        a = a.reshape(-1, 1)
    elif a.ndim != 2:
        raise ValueError(f"a table has 2 axes, not {a.ndim}")
    r0, r1, c0, c1 = min(rows), max(rows), min(cols), max(cols)
    if r0 < 0 or c0 < 0 or r1 >= a.shape[0] or c1 >= a.shape[1]:
        raise IndexError("a selected cell is outside the values")
    return a[r0:r1 + 1, c0:c1 + 1]


def _cell(x: Any, *, python: bool) -> str:
    """One element as text: exact (shortest round-trip) for floats; as Python source when
    ``python`` (``np.nan``, ``np.inf``, ``(1+2j)``), else as a spreadsheet reads it."""
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (complex, np.complexfloating)):
        z = complex(x)
        if python:
            return f"complex({_cell(z.real, python=True)}, {_cell(z.imag, python=True)})"
        return str(z).strip("()")
    f = float(x)
    if math.isnan(f):
        return "np.nan" if python else "nan"
    if math.isinf(f):
        return ("np.inf" if f > 0 else "-np.inf") if python else ("inf" if f > 0 else "-inf")
    return repr(f)


def _rows(cells: np.ndarray) -> list[list[str]]:
    """A 2-d block's cells as text: dates (``2024-01-31T12:00``), durations, strings and
    ``NaT`` as the table shows them; numbers exact."""
    a = np.asarray(cells)
    kind = dtype_kind(a.dtype)
    if kind in WORD_KINDS:
        return [[word_text(x, kind) for x in row] for row in a]
    return [[_cell(x, python=False) for x in row] for row in a.tolist()]


def to_csv(cells: np.ndarray) -> str:
    """A 2-d block as CSV text, one line per row (floats exact, ``nan``/``inf`` spelled out)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerows(_rows(cells))
    return out.getvalue()


def to_tsv(cells: np.ndarray) -> str:
    """A 2-d block as tab-separated text, one line per row (what a spreadsheet pastes into
    cells; floats exact, ``nan``/``inf`` spelled out)."""
    return "".join("\t".join(row) + "\n" for row in _rows(cells))


def numpy_dtype(dtype: str) -> str:
    """NumPy's name for a dtype as torch or NumPy spells it (``torch.float32`` -> ``float32``;
    ``torch.bfloat16``, which NumPy lacks, -> ``float32``)."""
    name = dtype.removeprefix("torch.")
    return _NUMPY_DTYPES.get(name, name)


def _nested(x: Any) -> str:
    if isinstance(x, list):
        return "[" + ", ".join(_nested(e) for e in x) + "]"
    return _cell(x, python=True)


def _word_nested(a: np.ndarray) -> str:
    """Dates as ISO strings, durations as integers of their unit, ``'NaT'``, strings and
    bytes as Python literals: what ``np.array(..., dtype=...)`` reads back exactly."""
    if a.ndim:
        return "[" + ", ".join(_word_nested(np.asarray(e)) for e in a) + "]"
    if a.dtype.kind in "Mm" and np.isnat(a):
        return "'NaT'"
    if a.dtype.kind == "M":
        return repr(str(np.datetime_as_string(a)))
    if a.dtype.kind == "m":
        return str(int(a.view(np.int64)))
    v = a[()]
    return repr(bytes(v)) if isinstance(v, bytes) else repr(str(v))


def array_literal(values: np.ndarray, dtype: str) -> str:
    """Python source for an array of any number of axes:
    ``np.array([[1.0, 2.0]], dtype=np.float32)``; ``dtype`` as torch or NumPy spells it
    (dates, durations and strings: ``dtype='datetime64[m]'``, ``dtype='<U3'``)."""
    a = np.asarray(values)
    if a.dtype.kind in "MmUS":
        native = a.astype(a.dtype.newbyteorder("="))
        return f"np.array({_word_nested(native)}, dtype={native.dtype.str!r})"
    return f"np.array({_nested(a.tolist())}, dtype=np.{numpy_dtype(dtype)})"


def to_numpy_literal(cells: np.ndarray, dtype: str) -> str:
    """A 2-d block as Python source (:func:`array_literal`)."""
    return array_literal(np.asarray(cells).reshape(np.shape(cells)[0], -1), dtype)


def block_literal(cells: np.ndarray, dtype: str, ndim: int) -> str:
    """A table's block as Python source with the axes of the values it came from: flat
    (``np.array([1.0, 2.0])``) for cells of a 1-d value, a number for a 0-d one."""
    a = np.asarray(cells)
    if ndim == 0:
        return array_literal(a.reshape(()), dtype)
    if ndim == 1:
        return array_literal(a.reshape(-1), dtype)
    return array_literal(a, dtype)
