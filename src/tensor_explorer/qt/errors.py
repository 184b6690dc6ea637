"""Never crash: an uncaught error anywhere in the UI shows a plain message and is logged.

`install()` replaces ``sys.excepthook`` and ``threading.excepthook``: the full traceback goes
to a log file (``errors.log`` in the app's data folder, or ``$TENSOR_EXPLORER_LOG_DIR``), the
user sees one short dialog, and the application keeps running.
"""

from __future__ import annotations

import datetime
import os
import sys
import threading
import traceback
from pathlib import Path
from types import TracebackType

from PySide6 import QtCore, QtWidgets

_shown = 0
MAX_DIALOGS = 3  # a storm of errors must not bury the user in dialogs


def log_path() -> Path:
    base = os.environ.get("TENSOR_EXPLORER_LOG_DIR") or QtCore.QStandardPaths.writableLocation(
        QtCore.QStandardPaths.StandardLocation.AppLocalDataLocation) or str(Path.home())
    path = Path(base)
    path.mkdir(parents=True, exist_ok=True)
    return path / "errors.log"


def log_error(exc_type: type[BaseException], exc: BaseException,
              tb: TracebackType | None) -> Path | None:
    try:
        path = log_path()
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"--- {datetime.datetime.now().isoformat(timespec='seconds')}\n")
            f.write("".join(traceback.format_exception(exc_type, exc, tb)))
        return path
    except OSError:
        return None


def _report(exc_type: type[BaseException], exc: BaseException,
            tb: TracebackType | None) -> None:
    global _shown
    path = log_error(exc_type, exc, tb)
    message = f"{exc_type.__name__}: {exc}" if str(exc) else exc_type.__name__
    app = QtWidgets.QApplication.instance()
    if app is None or _shown >= MAX_DIALOGS or os.environ.get("TENSOR_EXPLORER_NO_DIALOGS"):
        print(f"tensor-explorer: unexpected error: {message}", file=sys.stderr)
        return
    _shown += 1
    where = f"\n\nDetails were written to {path}." if path else ""
    box = QtWidgets.QMessageBox(
        QtWidgets.QMessageBox.Icon.Warning,
        QtCore.QCoreApplication.translate("Errors", "Something went wrong"),
        QtCore.QCoreApplication.translate(
            "Errors", "An unexpected error occurred; your work is still here.")
        + f"\n\n{message}{where}",
    )
    box.setModal(False)
    box.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
    box.show()


def install() -> None:
    """Route uncaught exceptions (UI thread and worker threads) to :func:`_report`."""
    sys.excepthook = _report

    def thread_hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit:
            return
        exc = args.exc_value if args.exc_value is not None else args.exc_type()
        QtCore.QTimer.singleShot(0, lambda: _report(args.exc_type, exc, args.exc_traceback))

    threading.excepthook = thread_hook
