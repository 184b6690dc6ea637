"""Run Python's cyclic garbage collector on the UI thread only.

Background work (statistics, previews, layouts, programs) runs in worker threads. When Python's
automatic collector happens to run in one of them and collects a cycle that holds a Qt object
(a closed window, a discarded panel), the C++ destructor runs in the wrong thread: its timers
are not unregistered from the UI thread's event dispatcher, and a later timer event reaches a
deleted object (a segmentation fault in ``QTimerInfoList::activateTimers``). We saw exactly
that in the test suite.

:func:`install` turns the automatic collector off and collects from a timer on the UI thread
instead, generation by generation with CPython's own thresholds, so nothing changes but where
collection happens.
"""

from __future__ import annotations

import gc

from PySide6 import QtCore

INTERVAL_MS = 200


class GcGuard(QtCore.QObject):
    """Collects garbage on the thread it lives on (the UI thread), on a timer."""

    def __init__(self, parent: QtCore.QObject, interval_ms: int = INTERVAL_MS) -> None:
        super().__init__(parent)
        self.timer = QtCore.QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.collect)
        gc.disable()
        self.timer.start()

    @QtCore.Slot()
    def collect(self) -> int:
        """Collect the generations whose thresholds are exceeded, as CPython would have."""
        counts, thresholds = gc.get_count(), gc.get_threshold()
        generation = -1
        for g in range(3):
            if counts[g] > thresholds[g]:
                generation = g
        return gc.collect(generation) if generation >= 0 else 0

    @QtCore.Slot()
    def freeze_start_up(self) -> None:
        """Move every object alive now (modules, classes, the window: ~200,000 objects after
        start-up) out of the collector's reach (``gc.freeze``): a full collection then scans
        only what was made since, ~20 ms instead of 40-350 ms on the UI thread. Call once,
        when the window is shown."""
        gc.freeze()


def install() -> GcGuard | None:
    """Install the guard on the running QApplication (once); None without an application."""
    app = QtCore.QCoreApplication.instance()
    if app is None:
        return None
    guard = app.findChild(GcGuard)
    if guard is None:
        guard = GcGuard(app)
    return guard
