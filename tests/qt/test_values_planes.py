"""The Values panel's plane computation on its own (values_planes.PlaneLoader): at once for a
small value, in the background with a progress bar for a large one, a failure said in words,
and a new request cancelling the one before."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtWidgets
from pytestqt.qtbot import QtBot

from tensor_explorer.core import preview
from tensor_explorer.qt import values_planes
from tensor_explorer.qt.values_planes import PlaneLoader
from tensor_explorer.qt.values_status import ValuesStatus

Made = tuple[QtWidgets.QWidget, PlaneLoader, ValuesStatus, list[object], list[str]]


def make(qtbot: QtBot) -> Made:
    """A loader and its status line, children of the widget returned first (keep it)."""
    owner = QtWidgets.QWidget()
    qtbot.addWidget(owner)
    status = ValuesStatus(owner)
    loader = PlaneLoader(status, owner)
    planes: list[object] = []
    failures: list[str] = []
    loader.ready.connect(planes.append)
    loader.failed.connect(failures.append)
    return owner, loader, status, planes, failures


def test_a_small_value_is_computed_at_once(qtbot: QtBot) -> None:
    _owner, loader, _status, planes, failures = make(qtbot)
    a = np.arange(12.0).reshape(3, 4)
    loader.request(a, (0, 1), {}, "magnitude", 10_000, loader)
    assert not loader.busy() and not failures and len(planes) == 1
    plane = planes[0]
    assert isinstance(plane, preview.Plane)
    np.testing.assert_array_equal(plane.data, a)
    loader.request(a, (0, 1), {}, "angle", 10_000, loader)  # not a part: refused in words
    assert len(planes) == 1 and len(failures) == 1 and "part" in failures[0]


def test_a_large_value_is_computed_in_the_background(
        qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(values_planes.preview, "needs_background", lambda value: True)
    _owner, loader, status, planes, failures = make(qtbot)
    a = np.arange(20.0).reshape(4, 5)
    loader.request(np.zeros((2, 2)), (0, 1), {}, "magnitude", 10_000, loader)
    first = loader.task
    loader.request(a, (0, 1), {}, "magnitude", 10_000, loader)  # the first is cancelled
    assert loader.busy() and loader.task is not first and not status.progress.isHidden()
    assert "computing preview" in status.last_message()
    qtbot.waitUntil(lambda: not loader.busy(), timeout=10_000)
    assert len(planes) == 1 and not failures and status.progress.isHidden()
    np.testing.assert_array_equal(planes[0].data, a)  # type: ignore[attr-defined]
    loader.request(a, (0, 1), {}, "magnitude", 10_000, loader)
    loader.cancel()
    assert not loader.busy() and status.progress.isHidden()
    qtbot.wait(50)
    assert len(planes) == 1  # a cancelled request says nothing
