"""The Memory panel's plain model (core/memory_drawing.py), without Qt: strips, lanes, cells
and the byte-to-x map, checked against what torch and NumPy say about the same values."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from tensor_explorer.core import memory
from tensor_explorer.core.memory_drawing import (
    MAX_CELLS,
    StripGeometry,
    StripModel,
    ZoomWindows,
    compute_model,
    format_number,
    human_bytes,
    sharing_whys,
    yielding,
)
from tensor_explorer.core.workspace import Workspace


def test_views_share_one_strip_with_torch_strides_and_offsets() -> None:
    base = torch.arange(12.0)
    grid = base.view(3, 4)
    col = grid[:, 1]
    other = torch.zeros(3)
    model = compute_model([("base", base), ("grid", grid), ("col", col), ("other", other),
                           ("note", "text")])
    assert model.skipped == ["note"]
    assert [[lane.name for lane in s.lanes] for s in model.strips] == [
        ["base", "grid", "col"], ["other"]]
    strip = model.strip_of("col")
    assert strip is not None and strip.nbytes == base.untyped_storage().nbytes()
    assert model.pairs == 3  # every two values of one strip
    lane = model.lane("col")
    assert lane is not None
    assert lane.stride == col.stride() and lane.offset == col.storage_offset()
    assert lane.shape == tuple(col.shape) and lane.itemsize == col.element_size()
    assert lane.version == col._version and lane.parent is not None
    for i in range(3):  # the byte where each element lies, as torch computes it
        want = col[i].data_ptr() - base.untyped_storage().data_ptr()
        assert lane.offset_of((i,)) == want
        assert lane.index_at(want) == (i,)
        assert lane.text_at(want) == format_number(col[i].item())
    assert lane.nbytes == col.numel() * col.element_size()
    assert lane.covered(0, strip.nbytes) == lane.nbytes


def test_numpy_sharing_is_one_strip_and_a_copy_is_another() -> None:
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    shared = torch.from_numpy(array)
    copied = torch.tensor(array)
    model = compute_model([("array", array), ("shared", shared), ("copied", copied)])
    assert [[lane.name for lane in s.lanes] for s in model.strips] == [
        ["array", "shared"], ["copied"]]
    lane = model.lane("array")
    assert lane is not None and lane.kind == "ndarray"
    assert lane.stride == tuple(s // array.itemsize for s in array.strides)
    expanded = torch.ones(1, 3).expand(4, 3)  # four elements read each byte
    exp = compute_model([("e", expanded)]).lane("e")
    assert exp is not None and exp.max_mult == 4
    assert exp.nbytes == expanded.untyped_storage().nbytes()


def test_cancel_gives_an_empty_model() -> None:
    model = compute_model([("a", torch.ones(2))], cancel=lambda: True)
    assert model.strips == [] and model.values == {}
    assert yielding(None)() is False


def test_geometry_cells_and_ranges() -> None:
    g = StripGeometry(x0=10.0, width=240.0, lo=0, hi=4 * 24, unit=4, max_cell=20.0)
    assert g.cells == 24 and g.mode == "cells"
    assert g.px_per_byte == pytest.approx(10.0 / 4)
    assert g.x(8) == pytest.approx(30.0) and g.byte_at(30.0) == 8
    big = StripGeometry(x0=0.0, width=100.0, lo=0, hi=4 * (MAX_CELLS + 1), unit=4,
                        max_cell=20.0)
    assert big.mode == "ranges" and big.drawn_width == pytest.approx(100.0)
    edges = big.bins()
    assert edges[0] == 0 and edges[-1] == big.hi and np.all(np.diff(edges) > 0)


def test_texts() -> None:
    assert human_bytes(1000) == "1000 B" and human_bytes(1536) == "1.5 KiB"
    assert [format_number(v) for v in (True, 2.0, math.nan, -math.inf, 1 + 2j, 7)] == [
        "T", "2.0", "nan", "-inf", "1+2j", "7"]


def test_write_marks_follow_torch_version_counter_and_aliases() -> None:
    from tensor_explorer.core.memory_drawing import WriteMarks

    base = torch.zeros(4)
    view = base[1:3]
    other = torch.zeros(2)
    items = [("base", base), ("view", view), ("other", other)]
    marks = WriteMarks()
    marks.update(compute_model(items))
    before = base._version
    view[0] = 5.0  # an in-place write through the view: torch bumps the shared counter
    marks.note("view")
    marks.update(compute_model(items))
    assert marks.version_up == {"base": before, "view": before}
    itemsize = base.element_size()
    assert marks.changed_cells == {"base": {1 * itemsize}, "view": {1 * itemsize}}
    marks.update(compute_model(items))  # nothing written since: the marks stay
    assert marks.changed_cells["view"] == {itemsize} and "other" not in marks.changed_cells


def test_zoom_windows_zoom_in_around_a_byte_and_back_out() -> None:
    strip = StripModel(0, "cpu", 4096, 4000, 4, "x", [])
    zoom = ZoomWindows()
    assert zoom.window(strip) == (0, 4000)
    assert zoom.zoom(strip, 0, 4000, 2000, 0.5)
    lo, hi = zoom.window(strip)
    assert hi - lo == 2000 and lo <= 2000 < hi and lo % 4 == 0
    # down to 8 cells, never less; a window that stays the same is no zoom
    while zoom.zoom(strip, *zoom.window(strip), 2000, 0.1):
        pass
    assert zoom.window(strip)[1] - zoom.window(strip)[0] == 32
    # the same allocation in a new model keeps its window; zooming out to all of it forgets it
    again = StripModel(1, "cpu", 4096, 4000, 4, "x", [])
    assert zoom.window(again) == zoom.window(strip)
    assert zoom.zoom(again, *zoom.window(again), 2000, 1000.0)
    assert zoom.windows == {}
    zoom.set(strip, -5, 10_000)
    assert zoom.window(strip) == (0, 4000)
    zoom.reset([again], number=1)
    assert zoom.windows == {}


def test_own_memory_is_a_value_alone_in_its_allocation() -> None:
    base = torch.arange(4.0)
    model = compute_model([("base", base), ("view", base[1:]), ("alone", torch.zeros(2)),
                           ("empty", torch.empty(0, device="meta"))])
    assert model.own_memory() == ["alone"]  # (a meta tensor has no memory to own)
    assert [s.has_memory for s in model.strips if "empty" in [ln.name for ln in s.lanes]] == [
        False]


def test_sharing_whys_say_why_in_the_language_asked_and_set_whys_swaps_them() -> None:
    ws = Workspace()
    ws.run("array = np.arange(3.0)\nshared = torch.from_numpy(array)\nn = 3\n")
    whys = sharing_whys(ws, "en")
    assert "shared" in whys and "n" not in whys  # (n = 3: no call)
    for name, why in whys.items():  # what memory.sharing_reason says of the call, plainly
        call = ws.origin(name).call
        assert call is not None
        assert why == (memory.sharing_reason(name, call, lang="en") or "").replace("`", "")
        assert "`" not in why
    zh = sharing_whys(ws, "zh")
    assert zh["shared"] != whys["shared"]

    model = compute_model(list(ws.items()), whys)
    lane = model.lane("shared")
    assert lane is not None and lane.why == whys["shared"]
    assert model.whys == whys
    model.set_whys(zh)
    assert model.whys == zh and lane.why == zh["shared"]
    model.set_whys({})  # a value the new sentences lack keeps its own
    assert model.whys == zh and lane.why == zh["shared"]
