"""The window side of debugging a script: the explorer opened at a frame.

:func:`post_mortem` opens the window at the failing frame of an exception (``tensor-explorer
run``, ``tx.post_mortem``), :func:`stop_here` at a breakpoint's caller (``tx.breakpoint``).
The frame's values become the workspace's (the script's own objects,
:func:`~tensor_explorer.core.debugging.frame_values`), the error is said in the code bar's
output as the code bar says its own errors (:func:`~tensor_explorer.core.debugging.frame_error`),
and a *Debug* tool bar holds the stack chooser (any frame's values) and Continue (F8), which
closes the window and lets the script go on.
"""

from __future__ import annotations

import os
import types
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from PySide6 import QtCore, QtGui, QtWidgets

from ..core.debugging import (
    FrameInfo,
    NonFiniteError,
    failing_index,
    frame_error,
    frame_values,
    stack_from,
    stack_of,
)
from ..core.workspace import Workspace, check_name
from . import i18n, theme
from .app import default_settings, event_loop_running, get_app
from .main_window import MainWindow

__all__ = ["DebugBar", "Debugger", "post_mortem", "stop_here"]


class DebugBar(QtWidgets.QToolBar):
    """The stack chooser and Continue, in a tool bar of the window."""

    def __init__(self, frames: Sequence[FrameInfo], index: int,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolbar-debug")
        self.setMovable(False)
        self.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.label = QtWidgets.QLabel()
        self.chooser = QtWidgets.QComboBox()
        self.chooser.setObjectName("stack-chooser")
        self.chooser.setSizeAdjustPolicy(
            QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToContents)
        muted = QtGui.QColor(theme.current().muted)
        for i in range(len(frames) - 1, -1, -1):  # innermost first, as a debugger lists them
            f = frames[i]
            self.chooser.addItem(f.where, i)
            if not f.user:
                self.chooser.setItemData(self.chooser.count() - 1, muted,
                                         QtCore.Qt.ItemDataRole.ForegroundRole)
        self.chooser.setCurrentIndex(self.chooser.findData(index))
        self.continue_action = QtGui.QAction(self)
        self.continue_action.setShortcut(QtGui.QKeySequence("F8"))
        self.continue_action.setShortcutContext(QtCore.Qt.ShortcutContext.WindowShortcut)
        self.addWidget(self.label)
        self.addWidget(self.chooser)
        self.addSeparator()
        self.addAction(self.continue_action)
        self.retranslate()

    def retranslate(self) -> None:
        self.label.setText(self.tr("Frame:") + " ")
        self.chooser.setToolTip(self.tr(
            "The frames of the stack, innermost first: choose one to see its values (grey: "
            "torch's or Python's own code)"))
        self.continue_action.setText(self.tr("Continue (F8)"))
        self.continue_action.setToolTip(self.tr(
            "Close the window and let the script go on"))

    def changeEvent(self, e: QtCore.QEvent) -> None:
        if e.type() == QtCore.QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(e)


class _CloseWatch(QtCore.QObject):
    """Quits an event loop once the window is closed (not when a close was refused)."""

    def __init__(self, win: QtWidgets.QWidget, loop: QtCore.QEventLoop) -> None:
        super().__init__(win)
        self.win, self.loop = win, loop

    def eventFilter(self, obj: QtCore.QObject, e: QtCore.QEvent) -> bool:
        if obj is self.win and e.type() == QtCore.QEvent.Type.Close:
            QtCore.QTimer.singleShot(0, self._check)
        return False

    def _check(self) -> None:
        if not self.win.isVisible():
            self.loop.quit()


class Debugger:
    """A window opened at a frame: the workspace holds that frame's values; the stack chooser
    shows any other frame's (``show_frame``)."""

    def __init__(self, frames: Sequence[FrameInfo], index: int, exc: BaseException | None,
                 extra: dict[str, Any] | None = None) -> None:
        self.frames = list(frames)
        self.index = index
        self.exc = exc
        self.extra = dict(extra or {})
        if isinstance(exc, NonFiniteError):
            self.extra = {**exc.values, **self.extra}
        get_app()
        from . import errors

        errors.install()
        self.workspace = Workspace()
        self.win = MainWindow(self.workspace, settings=default_settings(), explored=True)
        self.win.ask_before_losing_work = False  # the values are the script's: nothing to save
        self.bar = DebugBar(self.frames, index, self.win)
        self.win.addToolBar(self.bar)
        self.bar.continue_action.triggered.connect(self.resume)
        self.win.addAction(self.bar.continue_action)
        self.bar.chooser.currentIndexChanged.connect(self._chosen)
        self.shown: int | None = None
        self.show_frame(index)

    @property
    def chooser(self) -> QtWidgets.QComboBox:
        return self.bar.chooser

    @property
    def continue_action(self) -> QtGui.QAction:
        return self.bar.continue_action

    def _chosen(self, row: int) -> None:
        index = self.bar.chooser.itemData(row)
        if isinstance(index, int) and index != self.shown:
            self.show_frame(index)

    def show_frame(self, index: int) -> None:
        """Show frame ``index`` (0: outermost): its values in the workspace, and what happened
        there in the code bar's output (the error, explained, at the failing frame)."""
        info = self.frames[index]
        values = frame_values(info.frame)
        if index == self.index:
            values.update(self.extra)
        kept: dict[str, Any] = {}
        for name, value in values.items():
            try:
                check_name(name)
            except ValueError:
                continue
            kept[name] = value
        err = frame_error(self.exc if index == self.index else None, info)
        selected = self._to_select(kept, [n for n, _d in err.operands])
        self.workspace.replace_contents(kept, selected=selected)
        self.workspace.selected = selected
        self.shown = index
        row = self.bar.chooser.findData(index)
        if row != self.bar.chooser.currentIndex():
            self.bar.chooser.setCurrentIndex(row)
        self.win.setWindowTitle(QtCore.QCoreApplication.translate(
            "DebugBar", "Tensor Explorer — {0}").format(info.where))
        if index == self.index:
            self.win.runner.failed.emit(err)  # said as the code bar says its errors
        else:
            console = self.win.panels["console"]
            show_note = getattr(console, "show_note", None)
            if callable(show_note):
                show_note(err.text(i18n.current()).splitlines()[0] + f"  ({info.where})")

    def _to_select(self, values: dict[str, Any], operands: list[str]) -> str | None:
        if isinstance(self.exc, NonFiniteError) and "output" in values:
            return "output"
        present = [n for n in operands if n in values]
        for name in present:  # a tensor or an array of the line first: it has values to show
            if isinstance(values[name], torch.Tensor | np.ndarray):
                return name
        for name in present:
            if not isinstance(values[name], types.ModuleType):
                return name
        names = [n for n, v in values.items() if not isinstance(v, types.ModuleType)]
        return names[-1] if names else None

    def resume(self) -> None:
        """Continue: close the window; the script goes on (a breakpoint) or ends."""
        self.win.close()

    def wait(self) -> None:
        """Block until the window is closed (Continue, or closing it)."""
        app = get_app()
        loop = QtCore.QEventLoop()
        watch = _CloseWatch(self.win, loop)
        self.win.installEventFilter(watch)
        quit_after = os.environ.get("TENSOR_EXPLORER_QUIT_AFTER_MS")  # tests: never wait
        if quit_after:
            QtCore.QTimer.singleShot(0, lambda: print("tensor-explorer: window shown",
                                                      flush=True))
            QtCore.QTimer.singleShot(int(quit_after), self.win.close)
        quits = app.quitOnLastWindowClosed()
        app.setQuitOnLastWindowClosed(False)  # the script goes on after this window
        try:
            if self.win.isVisible():
                loop.exec()
        finally:
            app.setQuitOnLastWindowClosed(quits)
            self.win.removeEventFilter(watch)

    def release(self) -> None:
        """Let go of the frames and the script's objects (after the window is closed)."""
        self.workspace.clear()
        self.frames.clear()
        self.extra.clear()
        self.exc = None


def _open(dbg: Debugger, block: bool) -> Debugger:
    dbg.win.show()
    if QtGui.QGuiApplication.platformName() != "offscreen":  # (it says it cannot raise)
        dbg.win.raise_()
    if block:
        dbg.wait()
        dbg.release()
        dbg.win.deleteLater()
    return dbg


def post_mortem(exc: BaseException | None, tb: types.TracebackType | None, *,
                block: bool | None = None) -> Debugger:
    """Open the window at the failing frame of ``tb`` (the innermost frame of the user's
    code), its error explained; block until it is closed unless an event loop runs (IPython's
    ``%gui qt``) or ``block`` says otherwise."""
    frames = stack_of(tb)
    if not frames:
        raise ValueError("the traceback has no frames")
    dbg = Debugger(frames, failing_index(frames), exc)
    return _open(dbg, not event_loop_running() if block is None else block)


def stop_here(frame: types.FrameType, extra: dict[str, Any] | None = None, *,
              block: bool = True) -> Debugger:
    """Open the window at ``frame`` (a breakpoint's caller) and, with ``block``, wait for
    Continue (a nested event loop, so it also waits under IPython's ``%gui qt``)."""
    frames = stack_from(frame)
    dbg = Debugger(frames, len(frames) - 1, None, extra)
    return _open(dbg, block)
