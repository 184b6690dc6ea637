"""Facts the Values panel draws with, Qt-free: which cells of a heatmap plane are in view, the
expression that names the slice on screen, the seconds per unit of a plane of dates, and the
kind of a cell that is not a finite number. The Values panel's widgets (qt/values_panel.py and
its helpers) show them; nothing here knows of widgets."""

from __future__ import annotations

import math

import numpy as np

from .preview import Plane

__all__ = ["cells_in_view", "date_seconds", "nonfinite_key", "slice_expression"]


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
