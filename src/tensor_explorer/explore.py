"""``tx.explore(**values)``: open the application window on the caller's values.

Blocks until the window is closed when called from a script (like ``plt.show()``); returns the
window at once when a Qt event loop is already running (IPython with ``%gui qt``). Qt is
imported only when this is called.
"""

from __future__ import annotations

from typing import Any


def explore(**values: Any) -> Any:
    """Open Tensor Explorer on ``values`` (tensors, arrays, modules...), by name."""
    from .qt.app import explore as _explore

    return _explore(None, **values)
