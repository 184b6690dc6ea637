"""The Values panel's Qt-free facts (core/values_view.py)."""

from __future__ import annotations

import numpy as np

from tensor_explorer.core import preview, values_view


def test_slice_expression_names_the_held_axes_and_a_transpose() -> None:
    a = np.arange(24.0).reshape(2, 3, 4)
    plane = preview.slice_plane(a, (2, 1), {0: 1}, "magnitude", 10_000)
    assert values_view.slice_expression(plane, "x") == "x[1, :, :].T"
    whole = preview.slice_plane(a[0], (0, 1), {}, "magnitude", 10_000)
    assert values_view.slice_expression(whole, None) is None


def test_date_seconds_and_nonfinite_keys() -> None:
    days = preview.slice_plane(np.array(["2024-01-01", "2024-01-02"], dtype="M8[D]"), (0,),
                               {}, "magnitude", 10_000)
    assert values_view.date_seconds(days) == 86_400.0
    months = preview.slice_plane(np.array(["2024-01"], dtype="M8[M]"), (0,), {}, "magnitude",
                                 10_000)
    assert values_view.date_seconds(months) is None
    plane = preview.slice_plane(np.array([1.0, np.nan, np.inf, -np.inf]), (0,), {},
                                "magnitude", 10_000)
    assert [values_view.nonfinite_key(plane, (i,)) for i in range(4)] == [
        None, "nan", "posinf", "neginf"]


def test_cells_in_view_clips_to_the_plane() -> None:
    plane = preview.slice_plane(np.zeros((10, 20)), (0, 1), {}, "magnitude", 10_000)
    assert values_view.cells_in_view(plane, (-0.5, 19.5), (-0.5, 9.5)) == (0, 9, 0, 19)
    assert values_view.cells_in_view(plane, (2.0, 4.0), (-5.0, 1.0)) == (0, 1, 2, 4)
    assert values_view.cells_in_view(plane, (30.0, 40.0), (0.0, 5.0)) is None
