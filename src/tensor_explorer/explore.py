"""``tx.explore(**values)``, ``tx.breakpoint()`` and ``tx.post_mortem()``: the application
window on the caller's values.

``explore`` blocks until the window is closed when called from a script (like ``plt.show()``);
it returns the window at once when a Qt event loop is already running (IPython with
``%gui qt``). Qt is imported only when a window opens: a ``breakpoint(when=...)`` whose
condition is false imports nothing and looks at no frame.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any


def explore(**values: Any) -> Any:
    """Open Tensor Explorer on ``values`` (tensors, arrays, modules...), by name."""
    from .qt.app import explore as _explore

    return _explore(None, **values)


def breakpoint(when: Callable[[], object] | None = None, **extra: Any) -> None:
    """Stop here and open Tensor Explorer on the caller's values; Continue (F8) returns.

    The workspace holds the caller's locals, then the globals that are tensors, arrays,
    modules or optimizers, and ``extra`` (``tx.breakpoint(batch=b)``). They are the script's
    own objects: what the code bar changes in place (``w.data.zero_()``, ``net.fc.weight[0]
    = 0``, ``opt.param_groups[0]["lr"] = 0.01``, ``history.append(x)``) the script sees when
    it goes on. Rebinding a name (``x = x * 2``) changes the workspace's name only: on
    Python 3.11 and 3.12 a new binding cannot be written back into a running function's
    frame reliably, so it is not (the stack chooser shows the callers' frames too).

    ``when``: stop only when ``when()`` returns True (``when=lambda: loss.isnan()``); when it
    is false this costs one call of ``when``: nothing is imported, no frame is read.
    """
    if when is not None and not when():
        return
    frame = sys._getframe(1)
    from .qt.debug_window import stop_here

    try:
        stop_here(frame, extra)
    finally:
        del frame


def post_mortem(tb: types.TracebackType | BaseException | None = None) -> Any:
    """Open Tensor Explorer at the failing frame of an exception: in an ``except`` block (the
    exception being handled), after an error in IPython (the last one), or ``tb`` (a
    traceback, or the exception itself). The frame's locals are the workspace's values, the
    error is explained as the code bar explains it, and the stack chooser shows any frame's
    values. Blocks until the window is closed unless an event loop runs (``%gui qt``); returns
    the debugger (its ``win`` is the window)."""
    from .core.catalog import Message

    exc: BaseException | None
    if isinstance(tb, BaseException):
        exc, tb = tb, tb.__traceback__
    else:
        exc = _exception_of(tb)
        if tb is None and exc is not None:
            tb = exc.__traceback__
    if tb is None:
        raise ValueError(Message("debug.no-exception"))
    from .qt.debug_window import post_mortem as _post_mortem

    return _post_mortem(exc, tb)


def _exception_of(tb: types.TracebackType | None) -> BaseException | None:
    """The exception being handled, or the last one IPython (or the interpreter) saw; the one
    whose traceback is ``tb`` when ``tb`` is given."""
    candidates = [sys.exc_info()[1], getattr(sys, "last_exc", None),
                  getattr(sys, "last_value", None)]
    for exc in candidates:
        if exc is not None and (tb is None or _has(exc.__traceback__, tb)):
            return exc
    return None


def _has(tb: types.TracebackType | None, part: types.TracebackType) -> bool:
    while tb is not None:
        if tb is part:
            return True
        tb = tb.tb_next
    return False
