"""A memory-mapped file in the real window: the Inspector says which file, from which byte and
how writes behave, and calls the file's array a value of its own, not a view (issue #17)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from PySide6 import QtCore
from pytestqt.qtbot import QtBot

import tensor_explorer as tx


def tr(text: str) -> str:
    return QtCore.QCoreApplication.translate("InspectorPanel", text)


def test_a_memory_mapped_npy_shows_its_file_offset_and_mode(
    qtbot: QtBot, make_window: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    from tensor_explorer.core import loading

    # map even this small file (the window opens files with load_array's default threshold)
    monkeypatch.setattr(loading.load_array, "__kwdefaults__", {"mmap_threshold": 0})
    data = np.arange(64, dtype=np.float32).reshape(8, 8)
    path = tmp_path / "big.npy"
    np.save(path, data)
    win = make_window()
    win.open_paths([str(path)])
    qtbot.waitUntil(lambda: "big" in win.workspace.names())
    win.workspace.selected = "big"
    inspector = win.panels["inspector"]
    qtbot.waitUntil(lambda: inspector.name == "big")
    facts = inspector.shown_facts()
    truth = tx.describe(win.workspace["big"])
    assert facts["mapped_file"] == str(path) == truth.mapped_file
    assert facts["mapped_offset"] == f"{path.stat().st_size - data.nbytes:,}"
    assert facts["mapped_mode"] == tr("copy-on-write: edits stay in memory")
    assert facts["is_view"] == "False" and facts["storage_offset"] == "0"
    assert facts["source"] == tr("opened from {0}").format(path)


def test_a_record_lists_its_fields_and_selecting_one_shows_it(
    qtbot: QtBot, make_window: Any, tmp_path: Path
) -> None:
    from tensor_explorer.qt.workspace_panel import WorkspacePanel

    data = np.zeros(5, dtype=[("x", "<f4"), ("pos", [("a", "<i2"), ("b", "<f8")])])
    data["x"] = [1, 2, np.nan, 4, 5]
    data["pos"]["b"] = np.linspace(0, 1, 5)
    path = tmp_path / "data.npy"
    np.save(path, data)
    win = make_window()
    win.open_paths([str(path)])
    qtbot.waitUntil(lambda: "data" in win.workspace.names())
    panel = win.panels["workspace"]
    assert isinstance(panel, WorkspacePanel)
    qtbot.waitUntil(lambda: "data" in panel.names_shown())
    panel.expand("data", recursive=True)
    assert panel.members_shown("data") == ["data.x", "data.pos"]
    assert panel.members_shown("data.pos") == ["data.pos.a", "data.pos.b"]
    assert panel.badges_shown("data.pos.b") == ["5", "float64", "ndarray"]
    panel.view.setCurrentIndex(panel.index_of("data.pos.b"))
    assert win.workspace.selected == "data.pos.b"
    inspector = win.panels["inspector"]
    qtbot.waitUntil(lambda: inspector.name == "data.pos.b")
    facts = inspector.shown_facts()
    want = tx.describe(data["pos"]["b"])
    assert facts["shape"] == "(5,)" and facts["dtype"] == "float64"
    # a field: a strided view of the record, 14 bytes a step (no whole number of float64s)
    assert want.byte_stride == [14] and facts["stride"] == "(14 B,)"
    values = win.panels["values"].panel
    qtbot.waitUntil(lambda: values.name() == "data.pos.b" and values.plane() is not None)
    plane = values.plane()
    assert np.array_equal(plane.raw, data["pos"]["b"])


def test_dates_durations_and_strings_show_in_the_values_panel(
    qtbot: QtBot, make_window: Any, tmp_path: Path
) -> None:
    when = np.array([["2024-01-31T12:00", "NaT"], ["1969-07-20T20:17", "2000-01-01"]],
                    dtype="M8[m]")
    took = np.array([1500, -2, np.timedelta64("NaT")], dtype="m8[ms]")
    names = np.array([["ab", "漢字"], ["x", ""]])
    for n, a in (("when", when), ("took", took), ("names", names)):
        np.save(tmp_path / f"{n}.npy", a)
    win = make_window()
    win.open_paths([str(tmp_path / f"{n}.npy") for n in ("when", "took", "names")])
    qtbot.waitUntil(lambda: {"when", "took", "names"} <= set(win.workspace.names()))
    values = win.panels["values"].panel
    # dates: drawn as their integers (NaT marked like NaN), hovered and listed as dates
    win.workspace.selected = "when"
    qtbot.waitUntil(lambda: values.name() == "when" and values.plane() is not None)
    plane = values.plane()
    assert values.current_view() == "heatmap" and plane.kind == "datetime"
    assert plane.data[0, 0] == when[0, 0].astype(np.int64) and bool(plane.nan[0, 1])
    assert values.cell_text(1, 0) == "[1, 0] = 1969-07-20T20:17"
    values.set_mode("table")
    assert values.cell_text(0, 1) == "[0, 1] = NaT"
    assert values.cell_text(1, 1) == "[1, 1] = 2000-01-01T00:00"
    # durations: the plot of their integers, the table in words
    values.set_mode("auto")
    win.workspace.selected = "took"
    qtbot.waitUntil(lambda: values.name() == "took" and values.plane() is not None)
    assert values.current_view() == "plot"
    assert values.plane().data.tolist()[:2] == [1500.0, -2.0]
    values.set_mode("table")
    assert values.cell_text(0, 0) == "[0] = 1500 milliseconds"
    # strings: the table, whatever the mode
    values.set_mode("auto")
    win.workspace.selected = "names"
    qtbot.waitUntil(lambda: values.name() == "names" and values.plane() is not None)
    assert values.current_view() == "table"
    assert values.cell_text(0, 1) == "[0, 1] = 漢字"
    inspector = win.panels["inspector"]
    qtbot.waitUntil(lambda: inspector.name == "names")
    assert inspector.shown_facts()["dtype"] == "<U2"


def test_why_a_value_is_not_shown_is_said_in_the_window_language(
    qtbot: QtBot, make_window: Any
) -> None:
    # seen in the real window: in Chinese, the Values panel said why a record is not drawn
    # in English (core's words); core now gives a code and its details
    from tensor_explorer.core import preview

    win = make_window()
    win.workspace["data"] = np.zeros(3, dtype=[("x", "<f4"), ("y", "<i2")])
    win.workspace["m"] = torch.ones(2, 3, device="meta")
    values = win.panels["values"].panel
    for lang in ("zh", "en"):
        win.set_language(lang)
        values = win.panels["values"].panel
        for name in ("data", "m"):
            win.workspace.selected = name
            qtbot.waitUntil(lambda n=name, v=values: v.name() == n)
            with pytest.raises(preview.PreviewError) as info:
                preview.check_showable(win.workspace[name])
            want = QtCore.QCoreApplication.translate(
                "ValuesPanel", {"data": "a record with the fields {fields}: each field is a "
                                        "value of its own (expand the record in the Workspace "
                                        "and select one)",
                                "m": "meta tensor: it has a shape {shape} and a dtype "
                                     "({dtype}) but no data to show"}[name]
            ).format(**info.value.params)
            assert values.message.text() == want
            assert (("记录" in want) if name == "data" else ("数据" in want)) == (lang == "zh")


def test_a_plot_of_dates_reads_dates_and_a_field_says_its_stride_in_bytes(
    qtbot: QtBot, make_window: Any, tmp_path: Path
) -> None:
    # seen in the real window: a plot of dates read '1.79618e+09' on every tick, and a float64
    # field of a 22-byte record said 'stride (2,)', 'storage offset 1' (floored elements)
    import pyqtgraph as pg

    rec = np.zeros(5, dtype=[("x", "<f4"), ("pos", [("a", "<i2"), ("b", "<f8")]),
                             ("when", "<M8[s]")])
    rec["when"] = np.datetime64("2026-12-02T01:00:00") + np.arange(5) * 3600
    np.save(tmp_path / "data.npy", rec)
    win = make_window()
    win.open_paths([str(tmp_path / "data.npy")])
    qtbot.waitUntil(lambda: "data" in win.workspace.names())
    win.workspace.selected = "data.when"
    values = win.panels["values"].panel
    qtbot.waitUntil(lambda: values.name() == "data.when" and values.plane() is not None)
    assert values.current_view() == "plot"
    axis = values.plot_item.getAxis("left")
    assert isinstance(axis, pg.DateAxisItem)
    y = values.curve.getData()[1]
    want = rec["when"].astype("M8[s]").astype(np.int64).astype(np.float64)  # POSIX seconds
    assert np.array_equal(y, want)
    assert axis.utcOffset == 0  # NumPy's dates have no time zone: shown as UTC
    inspector = win.panels["inspector"]
    qtbot.waitUntil(lambda: inspector.name == "data.when")
    facts = inspector.shown_facts()
    assert facts["stride"] == "(22 B,)" and facts["storage_offset"] == "14 B"
    assert tx.describe(rec["when"]).byte_stride == [22]
    # a plain value again: numbers on the axis
    win.workspace["v"] = np.arange(4.0)
    win.workspace.selected = "v"
    qtbot.waitUntil(lambda: values.name() == "v" and values.plane() is not None)
    assert not isinstance(values.plot_item.getAxis("left"), pg.DateAxisItem)
