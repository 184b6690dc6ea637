"""The main window's files: open (dialog, drop, recent, last session), save a session, trust a
program that ran restricted, export a panel as an image.

:class:`WindowFiles` does the work of the File menu for one
:class:`~tensor_explorer.qt.main_window.MainWindow`: arrays load in the background, programs run
through the window's runner (restricted unless trusted), sessions replace the workspace only
after :meth:`MainWindow.confirm_replace`; a failure is a plain message (``show_error``), never a
traceback, in the window's language: why a file cannot be opened is a catalog message of the core
(:class:`~tensor_explorer.core.loading.LoadError`), rendered here. Its own texts belong to the
window's translation context ("MainWindow").
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6 import QtCore, QtWidgets
from PySide6.QtCore import QCoreApplication

from ..core import session as core_session
from ..core import trust as core_trust
from ..core.catalog import error_in, render
from ..core.lessons import is_lesson
from ..core.loading import LoadError, load_notes
from ..core.sources import SESSION_SUFFIX, open_into, read_program_bytes, replaces_workspace
from ..core.workspace import WorkspaceBusy
from . import i18n
from .autosave import last_session_path
from .console_panel import ConsolePanel
from .docks import PANELS
from .workers import Task

if TYPE_CHECKING:
    from .main_window import MainWindow

translate = QCoreApplication.translate

OPENABLE = ("*.npy", "*.npz", "*.py", "*.md", "*.txs")
MAX_RECENT = 8


class WindowFiles(QtCore.QObject):
    """Opening and saving for ``window`` (which owns the workspace, runner and settings)."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        #: background loads started here (cancelled when the window closes)
        self.tasks: list[Task] = []
        #: the program from a file that ran restricted, for the Trust button: path, bytes, text
        self.untrusted: tuple[Path, bytes, str] | None = None
        #: the name of a session from elsewhere whose code waits for Trust (data opened)
        self.untrusted_session: str | None = None
        #: files to open once the program running now has finished (in the order asked)
        self.waiting: list[str] = []
        self._trusted_waiting: set[str] = set()
        self._retrying = False
        #: the window is closing: nothing more is opened
        self.closed = False
        window.runner.busy_changed.connect(self._open_waiting)

    # -- recent files ------------------------------------------------------------------------

    def recent_files(self) -> list[str]:
        """The files opened last, newest first (none without settings)."""
        settings = self.window.settings
        if settings is None:
            return []
        value: Any = settings.value("recent", [])  # a list, a str, or None
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def remember(self, path: str | Path) -> None:
        """Put ``path`` first in File ▸ Open recent."""
        settings = self.window.settings
        if settings is None:
            return
        path = str(Path(path).resolve())
        recent = [p for p in self.recent_files() if p != path]
        settings.setValue("recent", [path, *recent][:MAX_RECENT])
        self.fill_recent_menu()

    def fill_recent_menu(self) -> None:
        menu = self.window.recent_menu
        menu.clear()
        recent = self.recent_files()
        for path in recent:
            # PySide6 stub: overlapping addAction(text, callable) overloads hide the lambda's type
            menu.addAction(path, lambda p=path: self.open_paths([p]))  # type: ignore[misc]
        menu.setEnabled(bool(recent))

    def last_session_path(self) -> Path | None:
        """Where the last clean quit kept its workspace (None: this window is not the app's,
        it keeps nothing)."""
        saver = getattr(self.window, "autosaver", None)
        return None if saver is None else last_session_path(saver.path)

    def update_reopen_last(self) -> None:
        path = self.last_session_path()
        self.window.reopen_last_action.setEnabled(path is not None and path.is_file())

    def reopen_last_session(self) -> None:
        """Open the workspace the window had when it was last closed."""
        path = self.last_session_path()
        if path is not None and path.is_file():
            self.open_paths([str(path)])

    # -- saving ------------------------------------------------------------------------------

    def save_session_dialog(self) -> bool:
        """Ask where, then save the session there; True when saved."""
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self.window, translate("MainWindow", "Save session"), "session.txs",
            translate("MainWindow", "Sessions (*.txs)"))
        return bool(path) and self.save_session(path)

    def save_session(self, path: str) -> bool:
        """Write the whole workspace to ``path`` (a .txs session file); False on failure."""
        win = self.window
        title = translate("MainWindow", "Save session")
        if win.runner.busy:
            win.show_error(title, translate("MainWindow", "a program is still running"))
            return False
        try:
            win.workspace.save(path)
        except (OSError, ValueError, RuntimeError) as exc:
            win.show_error(title, error_in(exc, i18n.current()))
            return False
        self.remember(path)
        win.statusBar().showMessage(
            translate("MainWindow", "Saved {0}").format(Path(path).name), 5000)
        win.undo.saved()
        return True

    # -- opening -----------------------------------------------------------------------------

    def open_dialog(self) -> None:
        paths, _ = QtWidgets.QFileDialog.getOpenFileNames(
            self.window, translate("MainWindow", "Open"), "",
            translate("MainWindow", "Arrays and programs ({0})").format(" ".join(OPENABLE)))
        if paths:
            self.open_paths(paths)

    def open_paths(self, paths: Sequence[str], *, trusted: bool = False) -> None:
        """Open files: arrays load in the background, programs run through the runner (a
        program or lesson file restricted unless it is trusted, or ``trusted``: ``--trust``)."""
        win = self.window
        for path in paths:
            if is_lesson(path):
                win.open_lesson(path, trusted=trusted)
                continue
            if replaces_workspace(path):
                if self._busy():  # asked when it opens: the program is still making values
                    self._wait(path)
                    continue
                if not win.confirm_replace(translate(
                        "MainWindow", "Opening the session “{0}” replaces them.").format(
                            Path(path).name)):
                    continue
            if Path(path).suffix.lower() == ".py":
                if self._busy():  # (the runner takes one program at a time)
                    self._wait(path, trusted=trusted)
                    continue
                self.open_program(path, trusted=trusted)
            else:
                self.open_arrays(path)

    def open_program(self, path: str, *, trusted: bool = False) -> None:
        """Run a .py file: restricted, with the trust bar, unless it is trusted."""
        p = Path(path)
        try:
            data, source = read_program_bytes(p)
        except LoadError as exc:
            self.window.show_error(translate("MainWindow", "Could not open {0}").format(p.name),
                                   exc.text(i18n.current()))
            return
        self.remember(p)
        trusted = core_trust.decide(p, data, asked=trusted).full
        console = self._console()
        if trusted:
            if self.untrusted_session is None:  # (a session's question stays on the bar)
                console.trust_bar.dismiss()
        else:
            self.untrusted_session = None  # the bar now asks about this program
            name = p.name
            console.trust_bar.ask(lambda: translate(
                "MainWindow",
                "{0} came from a file and ran restricted: imports beyond torch, NumPy and math, "
                "file access and other risky calls are refused. Trust it only if you trust "
                "where it came from.").format(name))
            self.untrusted = (p, data, source)
        self.window.runner.run(source, restricted=not trusted)

    def trust_program(self) -> None:
        """Trust the program the bar is about (its content, as it was opened) and run it again
        as full Python."""
        if self.untrusted_session is not None:
            self.trust_session()
            return
        if self.untrusted is None:
            return
        path, data, source = self.untrusted
        try:
            core_trust.trust(data)
        except OSError as exc:
            self.window.show_error(
                translate("MainWindow", "Could not trust {0}").format(path.name), str(exc))
            return
        self.untrusted = None
        self._console().trust_bar.dismiss()
        self.window.runner.run(source, restricted=core_trust.decide(path, data).restricted)

    def _ask_about_session_code(self, name: str) -> None:
        """A session just replaced the workspace: what a trust bar said of an earlier program
        is about values that are gone; a session from elsewhere whose code did not run (its
        data did open) asks for Trust (:func:`~tensor_explorer.core.session.rebuild_code`)."""
        self.untrusted = None
        bar = self._console().trust_bar
        code = core_session.pending_code(self.window.workspace)
        if code is None:
            self.untrusted_session = None
            bar.dismiss()
            return
        self.untrusted_session = name
        names = ", ".join(code.names)
        bar.ask(lambda: translate(
            "MainWindow",
            "{0} was not saved by this app for you, so its data opened but its code ({1}) did "
            "not run: modules of its own classes are shown by their parameters. Trust it only "
            "if you trust where it came from: Trust runs that code as full Python.").format(
                name, names))

    def trust_session(self) -> None:
        """Run the code the session held (its classes, functions and modules' statements) as
        full Python, in the background: the user trusted it."""
        name, win = self.untrusted_session, self.window
        if name is None:
            return
        if win.runner.busy or win.workspace.running:  # the bar stays: Trust again after it
            win.statusBar().showMessage(translate(
                "MainWindow", "Wait for the running program to finish (or stop it) first."),
                5000)
            return
        self.untrusted_session = None
        self._console().trust_bar.dismiss()

        def work(progress: Any, cancel: Any) -> list[str]:
            return core_session.rebuild_code(win.workspace)

        def done(names: list[str]) -> None:
            win.statusBar().showMessage(translate("MainWindow", "Rebuilt {0}").format(
                ", ".join(names) or "—"), 5000)
            lang = i18n.current()
            for note in win.workspace.session_notes:
                self._console().show_note(render("frame.note", lang, text=note))

        def failed(task: Task, msg: str) -> None:
            win.show_error(translate("MainWindow", "Could not rebuild {0}").format(name),
                           _why(task, msg))

        self._in_background(work, done, failed)

    def _in_background(self, work: Any, done: Any, failed: Any) -> Task:
        """Run ``work`` as a background :class:`.Task`, kept in :attr:`tasks` until it ends;
        then ``done(result)`` or ``failed(task, message)`` on the UI thread."""
        task = Task(work, parent=self)
        self.tasks.append(task)

        def forget() -> None:
            if task in self.tasks:
                self.tasks.remove(task)

        def finished(result: Any) -> None:
            forget()
            done(result)

        def failed_(msg: str) -> None:
            forget()
            failed(task, msg)

        task.finished.connect(finished)
        task.failed.connect(failed_)
        task.cancelled.connect(forget)
        task.start()
        return task

    def open_arrays(self, path: str) -> None:
        """Load an array, archive or session file in the background, then select what came.
        While a program runs (say a .py opened with it), it waits and opens after it."""
        if self.closed:
            return
        if self._busy():
            self._wait(path)
            return
        win = self.window
        name = Path(path).name

        def work(progress: Any, cancel: Any) -> list[str]:
            return open_into(win.workspace, path)

        def done(names: list[str]) -> None:
            self.remember(path)
            if Path(path).suffix.lower() == SESSION_SUFFIX:  # the workspace is as saved
                win.undo.saved()
            if replaces_workspace(path):
                self._ask_about_session_code(name)
            live = [n for n in names if n in win.workspace]  # a program may have run since
            if live:
                win.workspace.selected = live[-1]
            win.statusBar().showMessage(translate("MainWindow", "Opened {0}").format(name), 5000)
            lang = i18n.current()
            for note in self.notes_after_open(path, live):
                self._console().show_note(render("frame.note", lang, text=note))

        def failed(task: Task, msg: str) -> None:
            if isinstance(task.error, WorkspaceBusy):  # a program started while it was read
                self._wait(path)
                return
            win.show_error(translate("MainWindow", "Could not open {0}").format(name),
                           _why(task, msg))

        win.statusBar().showMessage(translate("MainWindow", "Opening {0}…").format(name))
        self._in_background(work, done, failed)

    def _busy(self) -> bool:
        """A program runs in the workspace (the runner's, or a moment's hold of another)."""
        return self.window.runner.busy or self.window.workspace.running

    def _wait(self, path: str, *, trusted: bool = False) -> None:
        """Open ``path`` once nothing runs in the workspace (without reading it meanwhile);
        ``trusted``: a program opened with ``--trust``."""
        if path not in self.waiting:
            self.waiting.append(path)
        if trusted:
            self._trusted_waiting.add(path)
        self.window.statusBar().showMessage(translate(
            "MainWindow", "{0} opens when the running program has finished.").format(
                Path(path).name))
        if not self.window.runner.busy and not self._retrying:
            # held by something else for a moment (no busy_changed will come): look again soon
            self._retrying = True
            QtCore.QTimer.singleShot(250, self, self._retry)

    def _retry(self) -> None:
        self._retrying = False
        self._open_waiting(self.window.runner.busy)

    def _open_waiting(self, busy: bool) -> None:
        if busy or self.closed or not self.waiting:
            return
        waiting, self.waiting = self.waiting, []
        trusted, self._trusted_waiting = self._trusted_waiting, set()
        for path in waiting:  # (a session is asked about now, when it would replace)
            self.open_paths([path], trusted=path in trusted)

    def notes_after_open(self, path: str, names: Sequence[str]) -> list[str]:
        """What the person should know about a file just opened (catalog Messages): a session's
        notes (values not saved, CUDA values now on the CPU...) or what reading an array noted
        (bytes after its data ignored...)."""
        ws = self.window.workspace
        if replaces_workspace(path):
            return list(ws.session_notes)
        notes: list[str] = []
        for n in names:
            value = ws[n]
            if isinstance(value, np.ndarray):
                notes += [note for note in load_notes(value) if note not in notes]
        return notes

    def close(self) -> None:
        """The window is closing: forget the files waiting for a program, open nothing more,
        and stop the loads still running."""
        if self.closed:
            return
        self.closed = True
        self.waiting.clear()
        self.window.runner.busy_changed.disconnect(self._open_waiting)
        for task in list(self.tasks):
            with contextlib.suppress(RuntimeError):  # already delivered and deleted
                task.cancel()

    # -- export ------------------------------------------------------------------------------

    def export_dialog(self) -> None:
        """Ask for a panel (or the whole window) and a file, and draw it there."""
        from .screenshot import render_to_file

        win = self.window
        title = translate("MainWindow", "Export panel")
        names = [*PANELS, "window"]
        name, ok = QtWidgets.QInputDialog.getItem(win, title, translate("MainWindow", "Panel:"),
                                                  names, 3, False)
        if not ok:
            return
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            win, title, f"{name}.png", translate("MainWindow", "Images (*.png *.svg)"))
        if path:
            widget = win if name == "window" else win.panels[name]
            try:
                render_to_file(widget, path, None, 1.0)
            except (OSError, ValueError) as exc:
                win.show_error(translate("MainWindow", "Export failed"), str(exc))

    def _console(self) -> ConsolePanel:
        console = self.window.panels["console"]
        assert isinstance(console, ConsolePanel)
        return console


def _why(task: Task, msg: str) -> str:
    """Why ``task`` (a load) failed, for the person: a LoadError's message in the window's
    language; another error's text without its type (``msg`` is ``failed``'s "Type: text")."""
    if isinstance(task.error, LoadError):
        return task.error.text(i18n.current())
    return msg.split(": ", 1)[1] if msg.startswith(("LoadError", "RuntimeError")) else msg
