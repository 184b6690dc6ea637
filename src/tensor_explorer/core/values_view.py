"""Facts the Values panel draws with, Qt-free: what it shows and how (:class:`ValuesChoice`:
the value, displayed axes, complex part and mode, with the rules for changing them and the view
a plane gets), which cells of a heatmap plane are in view, the expression that names the slice
on screen, the seconds per unit of a plane of dates, and the kind of a cell that is not a
finite number. The Values panel's widgets (qt/values_panel.py and its helpers) show them;
nothing here knows of widgets."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .preview import PARTS, Plane

__all__ = [
    "MODES",
    "ValuesChoice",
    "cells_in_view",
    "date_seconds",
    "nonfinite_key",
    "slice_expression",
]

#: how the panel shows a value: by rank (number, plot or heatmap), or always as a table
MODES = ("auto", "table")


@dataclass
class ValuesChoice:
    """What the Values panel shows and how: the value (and its name), the displayed axes
    (rows, columns), the part of a complex value drawn and the mode; the setters refuse what
    the panel cannot show (ValueError)."""

    name: str | None = None
    value: Any = None
    axes: tuple[int, ...] = ()
    part: str = "magnitude"
    mode: str = "auto"

    def set_mode(self, mode: str) -> None:
        """``"auto"`` (number, plot or heatmap by rank) or ``"table"``."""
        if mode not in MODES:
            raise ValueError(f"mode must be 'auto' or 'table', not {mode!r}")
        self.mode = mode

    def set_part(self, part: str) -> None:
        """Which part of a complex value is drawn: one of :data:`preview.PARTS`."""
        if part not in PARTS:
            raise ValueError(f"part must be one of {PARTS}, not {part!r}")
        self.part = part

    def set_axes(self, rows: int, cols: int) -> None:
        """Display axis ``rows`` downwards and ``cols`` across (negative ones count from the
        end); the value needs two dimensions or more, and the axes must differ."""
        v = self.value
        if v is None or v.ndim < 2:
            raise ValueError("choosing axes needs a value with at least two dimensions")
        nd = v.ndim
        rows, cols = rows % nd, cols % nd
        if rows == cols:
            raise ValueError("the row and column axes must differ")
        self.axes = (rows, cols)

    def max_cells(self, cells: int, points: int) -> int:
        """The most cells to compute of the plane: ``cells``, or at most ``points`` for a
        1-d one (a plot)."""
        return cells if len(self.axes) != 1 else min(cells, points)

    def view_for(self, plane: Plane) -> str:
        """The view that draws ``plane``: ``"table"`` in table mode and for words, else by
        rank ``"scalar"``, ``"plot"`` or ``"heatmap"``."""
        if self.mode == "table" or (plane.kind == "text" and plane.data.ndim):
            return "table"
        return {0: "scalar", 1: "plot"}.get(plane.data.ndim, "heatmap")


def nonfinite_key(plane: Plane, cell: tuple[int, ...]) -> str | None:
    """``"nan"``, ``"posinf"`` or ``"neginf"`` for such a cell of ``plane``; None otherwise."""
    if plane.nan[cell]:
        return "nan"
    if plane.posinf[cell]:
        return "posinf"
    if plane.neginf[cell]:
        return "neginf"
    return None


def slice_expression(plane: Plane, name: str | None) -> str | None:
    """The slice of the value that ``plane`` shows, as code (``"x[2, :, :].T"``; ``value``
    when unnamed); None when no axis is held (the plane is the whole value)."""
    if not plane.index:
        return None
    key = ", ".join(str(plane.index[a]) if a in plane.index else ":"
                    for a in range(len(plane.shape)))
    transposed = ".T" if len(plane.axes) == 2 and plane.axes[0] > plane.axes[1] else ""
    return f"{name or 'value'}[{key}]{transposed}"


def date_seconds(plane: Plane) -> float | None:
    """Seconds per unit of a plane of dates (its integers are counts of that unit), or None:
    not dates, or in months or years (no fixed length)."""
    if plane.kind != "datetime":
        return None
    unit, count = np.datetime_data(np.dtype(plane.dtype))
    if unit in ("Y", "M", "generic"):
        return None
    step = np.array(count, dtype=f"m8[{unit}]")  # one unit, as NumPy spells it
    return float(step / np.timedelta64(1, "s"))


def cells_in_view(plane: Plane, x_range: tuple[float, float],
                  y_range: tuple[float, float]) -> tuple[int, int, int, int] | None:
    """The cells of a 2-d ``plane`` (rows and columns of its data) that a view showing
    ``x_range`` across and ``y_range`` down (in indices of the whole value, each cell centred
    on its index) touches: ``(first row, last row, first column, last column)``, inclusive;
    None when none is in view."""
    (x0, x1), (y0, y1) = x_range, y_range
    sr, sc = plane.steps
    o_r, o_c = plane.start(0), plane.start(1)
    rows, cols = plane.data.shape
    r0 = max(0, math.ceil((y0 - o_r + 0.5) / sr - 1))
    r1 = min(rows - 1, int((y1 - o_r + 0.5) / sr))
    c0 = max(0, math.ceil((x0 - o_c + 0.5) / sc - 1))
    c1 = min(cols - 1, int((x1 - o_c + 0.5) / sc))
    if r1 < r0 or c1 < c0 or x1 <= x0 or y1 <= y0:
        return None
    return r0, r1, c0, c1
