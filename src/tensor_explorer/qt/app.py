"""Start the application: the window, the screenshot command, and ``explore``."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtWidgets

from ..core.loading import LoadError
from ..core.runner import ProgramError
from ..core.sources import open_into
from ..core.workspace import Workspace

#: the program shown when the app starts with nothing to open (until lessons take over)
WELCOME = """\
array = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
shared = torch.from_numpy(array)
copied = torch.tensor(array)
torch.manual_seed(0)
w = torch.randn(2, 2, requires_grad=True)
loss = (shared @ w).sum()
"""


_QUIET = ("This plugin does not support propagateSizeHints()",)


def _message_handler(
    mode: QtCore.QtMsgType, context: QtCore.QMessageLogContext, message: str
) -> None:
    """Qt's messages go to stderr as usual, minus known harmless noise of the offscreen
    platform."""
    if not message.startswith(_QUIET):
        sys.stderr.write(message + "\n")


def get_app() -> QtWidgets.QApplication:
    """Get or create the QApplication (one entry for scripts, tests and notebooks)."""
    app = QtWidgets.QApplication.instance()
    if app is None:
        QtCore.qInstallMessageHandler(_message_handler)
        QtCore.QCoreApplication.setOrganizationName("Tensor Explorer")
        QtCore.QCoreApplication.setApplicationName("tensor-explorer")
        app = QtWidgets.QApplication(sys.argv[:1])
        app.setApplicationDisplayName("Tensor Explorer")
    return app  # type: ignore[return-value]


def default_settings() -> QtCore.QSettings:
    """The user's settings (layout, theme, language, recent files)."""
    path = os.environ.get("TENSOR_EXPLORER_SETTINGS")
    if path:
        return QtCore.QSettings(path, QtCore.QSettings.Format.IniFormat)
    return QtCore.QSettings("Tensor Explorer", "tensor-explorer")


def load_sources(ws: Workspace, paths: Sequence[str]) -> list[str]:
    """Open each path into ``ws``; return one plain message per failure."""
    errors: list[str] = []
    for p in paths:
        try:
            open_into(ws, p)
        except (LoadError, ProgramError) as exc:
            errors.append(str(exc) if isinstance(exc, LoadError) else f"{Path(p).name}: {exc}")
    return errors


def run_app(paths: Sequence[str]) -> int:
    """Open the window on ``paths``, or on the welcome example when none is given."""
    from . import errors
    from .main_window import MainWindow

    app = get_app()
    errors.install()
    ws = Workspace()
    win = MainWindow(ws, settings=default_settings())
    if paths:
        missing = [p for p in paths if not Path(p).exists()]
        for p in missing:
            win.show_error(
                QtCore.QCoreApplication.translate("MainWindow", "Could not open {0}").format(
                    Path(p).name
                ),
                f"{Path(p).name}: no such file",
            )
        win.open_paths([p for p in paths if p not in missing])
    else:
        win.runner.run(WELCOME, select="shared")
    win.show()
    quit_after = os.environ.get("TENSOR_EXPLORER_QUIT_AFTER_MS")  # tests and start-up benchmark
    if quit_after:
        QtCore.QTimer.singleShot(0, lambda: print("tensor-explorer: window shown", flush=True))
        QtCore.QTimer.singleShot(int(quit_after), win.close)
    return int(app.exec())


def explore(block: bool | None = None, **values: Any) -> Any:
    """Open the window on ``values``; block until it is closed unless an event loop runs."""
    from . import errors
    from .main_window import MainWindow

    app = get_app()
    errors.install()
    ws = Workspace()
    for name, value in values.items():
        ws[name] = value
    win = MainWindow(ws, settings=default_settings(), explored=True)
    if values:
        ws.selected = list(values)[-1]
    win.show()
    win.raise_()
    if block is None:
        block = not _event_loop_running()
    if block:
        app.exec()
    return win


def _event_loop_running() -> bool:
    """True inside IPython with ``%gui qt`` (or any running Qt event loop)."""
    if QtCore.QThread.currentThread().loopLevel() > 0:
        return True
    ipython = sys.modules.get("IPython")
    if ipython is not None:
        try:
            shell = ipython.get_ipython()  # type: ignore[attr-defined]
        except Exception:
            return False
        loop = getattr(shell, "active_eventloop", None)
        return bool(loop and str(loop).startswith("qt"))
    return False


def screenshot_main(
    source: str,
    out: str,
    panel: str = "window",
    step: int | None = None,
    select: str | None = None,
    size: str | None = None,
    scale: float = 1.0,
    theme_name: str = "light",
    lang: str = "en",
) -> int:
    """``tensor-explorer screenshot``: render one panel (or the window) to PNG/SVG, headless."""
    if QtWidgets.QApplication.instance() is None:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"  # same pixels on every machine, no display
    from . import i18n, theme
    from .main_window import PANELS, MainWindow
    from .screenshot import parse_size, render_to_file

    wh = parse_size(size)
    if panel not in (*PANELS, "window"):
        raise ValueError(f"--panel {panel!r}: choose one of {', '.join([*PANELS, 'window'])}")
    if step is not None:
        raise ValueError("--step applies to lessons, and this source is not a lesson")
    app = get_app()
    ws = Workspace()
    open_into(ws, source)
    if select is not None:
        if select not in ws:
            raise ValueError(
                f"--select {select!r}: no such value (there are: {', '.join(ws.names()) or 'none'})"
            )
        ws.selected = select
    elif ws.names():
        ws.selected = ws.names()[-1]
    i18n.install(lang)
    win = MainWindow(ws, settings=None)
    theme.state().apply(theme_name, scale=1.0)
    if panel == "window":
        widget: QtWidgets.QWidget = win
        wh = wh or (1280, 800)
    else:
        dock = win.docks[panel]
        widget = dock.widget()
        dock.setWidget(QtWidgets.QWidget())
        widget.setParent(None)
        wh = wh or (900, 600)
    widget.resize(*wh)
    widget.setAttribute(QtCore.Qt.WidgetAttribute.WA_DontShowOnScreen)
    widget.show()
    render_to_file(widget, out, wh, scale)
    widget.close()
    win.close()
    app.processEvents()
    return 0
