"""The first window: values by name, the selected one's facts."""

from __future__ import annotations

import numpy as np
import torch
from pytestqt.qtbot import QtBot

from tensor_explorer.qt.app import FactsWindow, sample_values


def _facts_shown(win: FactsWindow) -> dict[str, str]:
    t = win.table
    return {t.item(r, 0).text(): t.item(r, 1).text() for r in range(t.rowCount())}


def test_window_lists_values_and_shows_facts(qtbot: QtBot) -> None:
    values = sample_values()
    win = FactsWindow(values)
    qtbot.addWidget(win)
    assert [win.names.item(i).text() for i in range(win.names.count())] == list(values)
    shown = _facts_shown(win)
    assert shown["shape"] == "[2, 2]" and shown["kind"] == "ndarray"
    win.names.setCurrentRow(1)  # `shared`, made by torch.from_numpy
    shown = _facts_shown(win)
    assert shown["dtype"] == "torch.float32" and shown["stride"] == "[2, 1]"


def test_window_reports_load_errors_in_status_bar(qtbot: QtBot) -> None:
    win = FactsWindow({"a": np.zeros(3)}, errors=["bad.npy: not a .npy array"])
    qtbot.addWidget(win)
    assert "bad.npy" in win.statusBar().currentMessage()
    win.values["t"] = torch.ones(1)
    win.show_facts("t")
    assert _facts_shown(win)["numel"] == "1"
