"""The garbage-collection guard: collection on the UI thread only, and start-up's objects
frozen so that a full collection does not scan them again (a UI-thread pause otherwise)."""

from __future__ import annotations

import gc
import weakref

from tensor_explorer.qt.gc_guard import install


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cyclic collector frees it


def test_freeze_keeps_start_up_out_of_reach_and_new_cycles_are_still_collected(qtbot) -> None:
    guard = install()
    assert guard is not None and not gc.isenabled()  # the automatic collector is off
    gc.unfreeze()
    try:
        alive = _Node()
        guard.freeze_start_up()
        frozen = gc.get_freeze_count()
        assert frozen > 1000  # the objects alive now: modules, classes, this test's
        garbage = _Node()
        gone = weakref.ref(garbage)
        del garbage
        gc.collect()  # what the guard's timer does when a threshold is passed
        assert gone() is None  # made after the freeze: collected as before
        assert alive.me is alive
    finally:
        gc.unfreeze()  # the rest of the suite collects everything, as before
