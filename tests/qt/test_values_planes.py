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
    task = loader.task
    assert task is not None
    with qtbot.waitSignal(task.cancelled, timeout=10_000):  # (its worker has stopped)
        loader.cancel()
    assert not loader.busy() and status.progress.isHidden()
    QtWidgets.QApplication.processEvents()
    assert len(planes) == 1 and not failures  # a cancelled request says nothing


def test_why_there_is_no_plane_is_said_in_the_windows_language(qtbot: QtBot) -> None:
    import torch

    from tensor_explorer.qt import i18n

    _owner, loader, _status, planes, failures = make(qtbot)
    i18n.install("zh")
    loader.request(torch.empty(2, 3, device="meta"), (0, 1), {}, "magnitude", 10_000, loader)
    loader.request(np.arange(6.0).reshape(2, 3), (0, 1), {}, "nonsense", 10_000, loader)
    assert planes == [] and len(failures) == 2
    assert "meta" in failures[0] and "没有" in failures[0]  # the preview error's own words
    assert "part" in failures[1]  # torch's or NumPy's words stay as written
