"""The Values panel's Qt-free facts (core/values_view.py)."""

from __future__ import annotations

import numpy as np
import pytest

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


def test_values_choice_refuses_what_cannot_be_shown_and_picks_the_view() -> None:
    choice = values_view.ValuesChoice()
    assert (choice.mode, choice.part, choice.axes) == ("auto", "magnitude", ())
    choice.set_mode("table")
    assert choice.mode == "table"
    with pytest.raises(ValueError, match="mode"):
        choice.set_mode("chart")
    assert choice.mode == "table"
    choice.set_part("imag")
    with pytest.raises(ValueError, match="part"):
        choice.set_part("angle")
    assert choice.part == "imag"
    with pytest.raises(ValueError, match="two dimensions"):
        choice.set_axes(0, 1)  # no value yet
    choice.value = np.zeros((2, 3, 4))
    choice.set_axes(-1, 0)  # negative axes count from the end
    assert choice.axes == (2, 0)
    with pytest.raises(ValueError, match="differ"):
        choice.set_axes(1, -2)
    assert choice.axes == (2, 0)

    assert choice.max_cells(100, 10) == 100
    choice.axes = (0,)
    assert choice.max_cells(100, 10) == 10 and choice.max_cells(5, 10) == 5

    def view(array: np.ndarray, axes: tuple[int, ...], mode: str) -> str:
        choice.set_mode(mode)
        return choice.view_for(preview.slice_plane(array, axes, {}, "magnitude", 10_000))

    assert [view(np.float32(1.0), (), "auto"), view(np.arange(3.0), (0,), "auto"),
            view(np.zeros((2, 2)), (0, 1), "auto"), view(np.zeros((2, 2)), (0, 1), "table"),
            view(np.array(["a", "b"]), (0,), "auto")] == [
        "scalar", "plot", "heatmap", "table", "table"]
