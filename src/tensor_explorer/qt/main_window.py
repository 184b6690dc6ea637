"""The main window: dockable panels around one workspace, menus, toolbar, status bar.

Panels are views of the workspace (through a :class:`WorkspaceBridge`); the window owns the
workspace, the :class:`RunController` every change goes through, and the settings (layout,
theme, language, presentation mode, recent files) remembered between runs.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from PySide6 import QtCore, QtGui, QtWidgets

from ..core.preview import write_refusal
from ..core.runner import ProgramError
from ..core.workspace import Workspace
from . import i18n, main_menus, theme
from .autosave import last_session_path
from .bridge import WorkspaceBridge
from .console_panel import ConsolePanel
from .docks import LAYOUT_VERSION, PANELS, DockTitleBar, PanelFrame, Stage, default_state
from .edit_actions import EditActions
from .inspector_panel import InspectorPanel
from .lesson_panel import LessonPanel
from .run_controller import RunController
from .status_bar import StatusBar
from .undo_actions import UndoController
from .values_panel import ValuesPanel
from .window_files import WindowFiles
from .window_layout import WindowLayout
from .workspace_panel import WorkspacePanel

if TYPE_CHECKING:
    from .autosave import Autosaver
    from .code_panel import CodePanel

#: panels built only when first shown or used (start-up builds what is visible)
LAZY = ("build", "memory", "graph", "code")


def literal(value: Any) -> str:
    """Python source for a number typed into the Values table (NaN and infinities included)."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return "float('nan')" if math.isnan(value) else (
            "float('inf')" if value > 0 else "-float('inf')")
    return repr(value)


class ValuesDock(QtWidgets.QWidget):
    """Adapts the Values panel (which shows one value) to follow the workspace selection.

    A cell edited in the table is written by a statement run through the runner
    (``array[0, 0] = 99.0``), so it lands in the code history and every alias (a tensor from
    ``torch.from_numpy``...) is reported changed to every panel.
    """

    def __init__(self, bridge: WorkspaceBridge, runner: RunController,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ValuesDock")
        self.bridge = bridge
        self.runner = runner
        self.panel = ValuesPanel()
        self.panel.set_write_handler(self._write)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.panel)
        self._shown: str | None = None
        # bound methods, not lambdas: Qt drops them when this panel is deleted (language change)
        bridge.selected.connect(self._reshow)
        bridge.changed.connect(self._changed)
        bridge.removed.connect(self._reshow)
        bridge.renamed.connect(self._reshow)
        self.show_selected()

    def retranslate(self) -> None:
        self.panel.retranslate()

    def _write(self, name: str | None, index: tuple[int, ...], new: Any) -> None:
        if name is None or name not in self.bridge.workspace:
            raise ValueError(self.tr("this value is not in the workspace"))
        reason = write_refusal(self.bridge.workspace[name])
        if reason:
            raise ValueError(reason)
        where = ", ".join(str(i) for i in index) if index else "()"
        if not self.runner.run(f"{name}[{where}] = {literal(new)}", select=name):
            raise ValueError(self.tr("a program is still running"))

    def _changed(self, name: str) -> None:
        shown = self._shown
        if shown is None or (name != shown and not shown.startswith(name + ".")):
            return  # (a module's change changes the parameter shown: "net.0.weight")
        value = self.bridge.workspace.get(shown)
        if value is self.panel.value():
            self.panel.refresh()  # changed in place: keep the axes and slider positions
        else:
            self.panel.set_value(shown, value)

    def _reshow(self, *_: object) -> None:
        self.show_selected()

    def show_selected(self) -> None:
        ws = self.bridge.workspace
        name = ws.selected
        self._shown = name
        self.panel.set_value(name, ws.get(name) if name is not None else None)


class PanelMap(dict[str, QtWidgets.QWidget]):
    """The window's panels by name. A panel not built yet is built, and put into its dock, on
    first access (``win.panels["graph"]``) or when its dock is first shown."""

    def __init__(self, build: Callable[[str], QtWidgets.QWidget]) -> None:
        super().__init__()
        self._build = build

    def __missing__(self, name: str) -> QtWidgets.QWidget:
        if name not in PANELS:
            raise KeyError(name)
        return self._build(name)


def _lazy_factory(module: str, cls: str, *args: Any) -> Callable[[], QtWidgets.QWidget]:
    """A factory that imports the panel's module only when the panel is first built."""

    def make() -> QtWidgets.QWidget:
        import importlib

        mod = importlib.import_module(f"{__package__}.{module}")
        return getattr(mod, cls)(*args)

    return make


class MainWindow(QtWidgets.QMainWindow):
    """Tensor Explorer's window. ``settings=None`` remembers nothing (screenshots, tests).

    ``recovered``: ``workspace`` was restored from the recovery file after a crash: it is work
    of the user's own that no session holds, so replacing it asks first (nothing lost)."""

    #: set by the app after the window is made (absent in screenshots and tests)
    autosaver: Autosaver
    #: File ▸ Open recent (made with the menus, :func:`.main_menus.build`)
    recent_menu: QtWidgets.QMenu

    def __init__(self, workspace: Workspace | None = None, *,
                 settings: QtCore.QSettings | None = None,
                 explored: bool = False, recovered: bool = False) -> None:
        super().__init__()
        self.setObjectName("MainWindow")
        self.workspace = workspace if workspace is not None else Workspace(time_limit=None)
        self.settings = settings
        self.explored = explored
        self.bridge = WorkspaceBridge(self.workspace, self)
        self.runner = RunController(self.workspace, self)
        self.panels = PanelMap(self._make_panel)
        self._factories: dict[str, Callable[[], QtWidgets.QWidget]] = {}
        self.docks: dict[str, QtWidgets.QDockWidget] = {}
        #: parent of the actions one build of the UI makes (deleted when the UI is rebuilt)
        self.actions_owner = QtCore.QObject(self)
        self.setAcceptDrops(True)
        self.setDockNestingEnabled(True)
        self.setAnimated(False)  # no half-moved docks or stale tab bars in screenshots
        self.setWindowTitle("Tensor Explorer")
        #: opening and saving files (File menu, drops, recent files, trust)
        self.files = WindowFiles(self)
        #: where the docks go (remembered, default and lesson layouts, presentation mode)
        self.dock_layout = WindowLayout(self)
        if settings is not None:  # remembered look; without settings keep the current one
            presentation = self._setting("presentation", "false") == "true"
            i18n.install(self._setting("language", "en"))
            theme.state().apply(self._setting("theme", "light"),
                                theme.PRESENTATION_SCALE if presentation else 1.0)
        else:
            theme.state().apply()
        self.setStatusBar(StatusBar(self))  # (a long message never covers the counter)
        self.status_label = QtWidgets.QLabel()
        self.statusBar().addPermanentWidget(self.status_label)
        #: undo/redo of the workspace's changes, and whether there is unsaved work
        self.undo = UndoController(self.bridge, self._lesson_stepping,
                                   lambda text: self.statusBar().showMessage(text, 8000), self)
        if recovered:
            self.undo.work.touched_by_user()
        #: ask before unsaved work would be lost (the real app; not screenshots, tests, nor
        #: runs that must not wait on a person: TENSOR_EXPLORER_NO_DIALOGS)
        self.ask_before_losing_work = settings is not None and not os.environ.get(
            "TENSOR_EXPLORER_NO_DIALOGS")
        #: Edit ▸ Copy, Copy as NumPy literal, Find value
        self.edit = EditActions(self, self.workspace, self._values_panel,
                                lambda text: self.statusBar().showMessage(text, 5000))
        self._build_ui()
        self._connect_runner()
        theme.state().changed.connect(self._steady_bars)
        self._steady_bars()
        self.bridge.selected.connect(self._update_status)
        self.bridge.modified.connect(self._update_status)
        self.resize(1280, 800)
        self.dock_layout.restore_saved()
        if theme.state().presentation:
            self.stage.enter(self.dock_layout.normal_state())
        self._update_status()

    # -- settings ------------------------------------------------------------------------------

    def _setting(self, key: str, default: str) -> str:
        if self.settings is None:
            return default
        return str(self.settings.value(key, default))

    def _store(self, key: str, value: Any) -> None:
        if self.settings is not None:
            self.settings.setValue(key, value)

    def recent_files(self) -> list[str]:
        """The files opened last, newest first (File ▸ Open recent)."""
        return self.files.recent_files()

    # -- building the UI -----------------------------------------------------------------------

    def _build_ui(self) -> None:
        """Create the docks (each with its panel, or a placeholder until first shown), then the
        menus and toolbar. Built once: a language switch re-translates in place
        (:meth:`retranslate`), so no dock, selection, output or lesson step is lost."""
        # docks only: every panel can move, float and tab
        self.setCentralWidget(None)  # type: ignore[arg-type]  # PySide6 stub: Qt accepts None
        corner, dock_area = QtCore.Qt.Corner, QtCore.Qt.DockWidgetArea
        self.setCorner(corner.BottomLeftCorner, dock_area.LeftDockWidgetArea)
        self.setCorner(corner.TopLeftCorner, dock_area.LeftDockWidgetArea)
        self._factories = {
            "lesson": lambda: LessonPanel(self.bridge, self.runner, self.show_panel),
            "workspace": lambda: WorkspacePanel(self.bridge, self.runner),
            "build": _lazy_factory("build_panel", "BuildPanel", self.bridge, self.runner),
            "inspector": lambda: InspectorPanel(self.bridge),
            "values": lambda: ValuesDock(self.bridge, self.runner),
            "memory": _lazy_factory("memory_panel", "MemoryPanel", self.bridge),
            "graph": _lazy_factory("graph_panel", "GraphPanel", self.bridge),
            "console": lambda: ConsolePanel(self.bridge, self.runner),
            "code": _lazy_factory("code_panel", "CodePanel", self.bridge),
        }
        for name in PANELS:
            dock = QtWidgets.QDockWidget(self)
            dock.setObjectName(f"dock-{name}")
            dock.setTitleBarWidget(DockTitleBar(dock))
            self.docks[name] = dock
            if name in LAZY:
                dock.setWidget(QtWidgets.QWidget())  # until first shown
                dock.visibilityChanged.connect(functools.partial(self._dock_shown, name))
            else:
                self._make_panel(name)
        self._title_docks()
        # Docks are placed by restoring a layout (built in a template window): tabifying docks
        # directly leaves stray tab bars behind in Qt 6, restoring a state does not.
        self.main_toolbar = QtWidgets.QToolBar()
        self.main_toolbar.setObjectName("toolbar-main")
        self.main_toolbar.setMovable(False)
        self.main_toolbar.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.addToolBar(self.main_toolbar)
        # presentation mode's arrangement; its bar of panel buttons on the next line
        self.stage = Stage(self, self.docks, self._left_panel, self.show_panel)
        self.restoreState(default_state(), LAYOUT_VERSION)
        self.stage.retitle(self.dock_titles())
        self._build_menus()

    def dock_titles(self) -> dict[str, str]:
        """Each panel's title in the current language."""
        return {
            "lesson": self.tr("Lesson"),
            "workspace": self.tr("Workspace"), "build": self.tr("Build"),
            "inspector": self.tr("Inspector"), "values": self.tr("Values"),
            "memory": self.tr("Memory"), "graph": self.tr("Autograd graph"),
            "console": self.tr("Code bar · output"),
            "code": self.tr("Code"),
        }

    def _title_docks(self) -> None:
        titles = self.dock_titles()
        for name, title in titles.items():
            self.docks[name].setWindowTitle(title)
            for bar in self.docks[name].findChildren(DockTitleBar):  # also while put aside
                bar.retranslate()
        if hasattr(self, "stage"):
            self.stage.retitle(titles)

    def _build_menus(self) -> None:
        """(Re)create menus, toolbar and the window's actions in the current language."""
        # A rebuild must not leave the old menus and actions behind: they would pile up and
        # their shortcuts (Ctrl+Enter...) would become ambiguous.
        for action in self.actions():
            if action.parent() is self.actions_owner:  # (the stage's panel actions stay)
                self.removeAction(action)
        self.menuBar().clear()
        direct = QtCore.Qt.FindChildOption.FindDirectChildrenOnly
        for menu in self.menuBar().findChildren(QtWidgets.QMenu, options=direct):
            menu.deleteLater()
        self.actions_owner.deleteLater()
        self.actions_owner = QtCore.QObject(self)
        self._build_actions()

    def retranslate(self) -> None:
        """Show every text in the language just installed, keeping everything else: docks
        where they are (shown or hidden), panels and their state, the output, the lesson."""
        busy = self.runner.busy
        self._title_docks()
        self._build_menus()
        self._busy_changed(busy)
        for panel in list(self.panels.values()):
            retranslate = getattr(panel, "retranslate", None)
            if callable(retranslate):
                retranslate()
        self._update_status()

    def _make_panel(self, name: str) -> QtWidgets.QWidget:
        """Build panel ``name`` and put it into its dock (see :class:`PanelMap`)."""
        panel = self._factories[name]()
        if isinstance(panel, LessonPanel):  # a lesson replaces the workspace: nothing lost
            panel.confirm_replace = self.confirm_replace
            panel.lesson_opened.connect(lambda _source: self.undo.saved())
            panel.restarting.connect(self.undo.saved)
        dock = self.docks[name]
        placeholder = dock.widget()
        dock.setWidget(PanelFrame(panel))  # scrolls when the dock is short: nothing squeezed
        if placeholder is not None:
            placeholder.deleteLater()
        self.panels[name] = panel
        return panel

    def _dock_shown(self, name: str, visible: bool) -> None:
        if visible and name not in self.panels:
            self.panels[name]

    def showEvent(self, e: QtGui.QShowEvent) -> None:
        super().showEvent(e)
        self.dock_layout.shown()

    def make_action(self, text: str, slot: Callable[..., Any],
                    shortcut: str | QtGui.QKeySequence | QtGui.QKeySequence.StandardKey
                    | None = None, checkable: bool = False, tip: str = "") -> QtGui.QAction:
        """An action of this build of the menus (owned by :attr:`actions_owner`)."""
        a = QtGui.QAction(text, self.actions_owner)
        if shortcut is not None:
            a.setShortcut(QtGui.QKeySequence(shortcut))
        a.setCheckable(checkable)
        if tip:
            a.setStatusTip(tip)
            a.setToolTip(tip)
        a.triggered.connect(slot)
        return a

    def _build_actions(self) -> None:
        ks, act = QtGui.QKeySequence.StandardKey, self.make_action
        self.new_action = act(
            self.tr("&New workspace"), self.new_workspace, ks.New,
            tip=self.tr("Start again with an empty workspace (Edit ▸ Undo brings it back)"))
        self.reopen_last_action = act(
            self.tr("Reopen &last session"), self.files.reopen_last_session,
            tip=self.tr("The values and history the window had when it was last closed"))
        self.open_action = act(
            self.tr("&Open…"), self.files.open_dialog, ks.Open,
            tip=self.tr("Open .npy, .npz, .py, lesson .md or session .txs files"))
        self.save_session_action = act(
            self.tr("&Save session…"), self.files.save_session_dialog, ks.Save,
            tip=self.tr("Save every value, its gradient and the history in one .txs file"))
        self.save_script_action = act(
            self.tr("Save code as .py…"),
            lambda: cast("CodePanel", self.panels["code"]).save_dialog(), "Ctrl+Shift+S")
        self.export_action = act(self.tr("Export panel as image…"), self.files.export_dialog,
                                 "Ctrl+E")
        self.quit_action = act(self.tr("&Quit"), self.close, ks.Quit)
        console = self.panels["console"]
        assert isinstance(console, ConsolePanel)
        self.run_action = act(self.tr("&Run code"), console.run_editor, "Ctrl+Return",
                              tip=self.tr("Run the code bar (Ctrl+Enter)"))
        self.stop_action = act(self.tr("&Stop"), self.runner.stop, "Ctrl+.",
                               tip=self.tr("Stop the running program"))
        self.stop_action.setEnabled(False)
        self.dark_action = act(self.tr("&Dark theme"), self.toggle_dark, "Ctrl+Shift+D",
                               checkable=True)
        self.dark_action.setChecked(theme.current().name == "dark")
        self.present_action = act(
            self.tr("&Presentation mode"), self.toggle_presentation, "F5", checkable=True,
            tip=self.tr("Larger text and drawings for a projector (F5)"))
        self.present_action.setChecked(theme.state().presentation)
        self.reset_layout_action = act(self.tr("Reset layout"), self.reset_layout)
        main_menus.build(self)  # the menu bar and the tool bar
        self.addAction(self.run_action)

    # -- look ----------------------------------------------------------------------------------

    def toggle_dark(self, checked: bool | None = None) -> None:
        dark = self.dark_action.isChecked() if checked is None else bool(checked)
        self.set_theme("dark" if dark else "light")

    def set_theme(self, name: str) -> None:
        theme.state().apply(name)
        self.dark_action.setChecked(name == "dark")
        self._store("theme", name)

    def toggle_presentation(self, checked: bool | None = None) -> None:
        on = self.present_action.isChecked() if checked is None else bool(checked)
        self.set_presentation(on)

    def set_presentation(self, on: bool) -> None:
        """Presentation mode on or off (:meth:`.WindowLayout.present`), remembered."""
        self.dock_layout.present(on)
        self.present_action.setChecked(on)
        self._store("presentation", "true" if on else "false")

    @QtCore.Slot()
    def _steady_bars(self) -> None:
        self.dock_layout.steady_bars()

    def _connect_runner(self) -> None:
        """What the window does when code runs: its errors, Run/Stop, the trust bar's Trust
        (a program or a session from elsewhere) and the room the bar needs."""
        self.runner.failed.connect(self._run_failed)
        self.runner.busy_changed.connect(self._busy_changed)
        console = self.panels["console"]
        assert isinstance(console, ConsolePanel)
        console.trust_bar.trusted.connect(self.files.trust_program)
        console.trust_bar.asked.connect(  # once the bar is laid out
            lambda: QtCore.QTimer.singleShot(0, self, self._room_for_console))

    @QtCore.Slot()
    def _room_for_console(self) -> None:
        """The trust bar appeared above the code bar: make its dock tall enough that the
        editor stays in view (at 1278×774 it was squeezed below the dock's edge)."""
        dock, panel = self.docks["console"], self.panels["console"]
        frame = dock.widget()
        inner = frame.viewport() if isinstance(frame, QtWidgets.QScrollArea) else frame
        if inner is None or dock.isFloating() or not dock.isVisible():
            return
        need = panel.minimumSizeHint().height() + (dock.height() - inner.height())
        short = need - dock.height()

        if short <= 0:
            return
        # (Qt resizes a dock only against another: the tallest dock above or below it gives)
        geo = dock.geometry()
        peers = [d for d in self.docks.values() if d is not dock and d.isVisible()
                 and not d.isFloating() and d.geometry().top() >= 0  # (not behind a tab)
                 and d.geometry().left() < geo.right() and geo.left() < d.geometry().right()
                 and d.geometry().top() != geo.top()]
        if peers:
            giver = max(peers, key=lambda d: d.height())
            self.resizeDocks([giver, dock], [giver.height() - short, need],
                             QtCore.Qt.Orientation.Vertical)

    def _left_panel(self) -> str:
        """The panel presentation mode keeps on the left: the lesson when one is open."""
        panel = self.panels.get("lesson")
        has_lesson = isinstance(panel, LessonPanel) and panel.state() is not None
        return "lesson" if has_lesson else "workspace"

    def set_language(self, lang: str) -> None:
        """Switch the interface language in place (nothing is rebuilt or lost)."""
        if lang == i18n.current():
            return
        i18n.install(lang)
        self._store("language", lang)
        self.retranslate()

    def reset_layout(self) -> None:
        """Every dock back where the default layout has it (:meth:`.WindowLayout.reset`)."""
        self.dock_layout.reset()

    # -- lessons -------------------------------------------------------------------------------

    def show_panel(self, name: str) -> None:
        """Bring panel ``name`` to the front (a lesson step asks for its panel); in
        presentation mode, onto the stage."""
        dock = self.docks.get(name)
        if dock is None:
            return
        if self.stage.active:
            self.stage.show(name)
        else:
            dock.show()
            dock.raise_()

    def use_lesson_layout(self) -> None:
        """The lesson on the left, the other panels tabbed on the right."""
        self.dock_layout.use_lesson_layout()

    def open_lesson(self, source: str, *, trusted: bool = False) -> None:
        """Open a lesson (file or shipped name) in the lesson dock and run its first step (a
        lesson file runs restricted unless it is trusted, or ``trusted``: ``--trust``)."""
        panel = self.panels["lesson"]
        assert isinstance(panel, LessonPanel)
        if panel.open_lesson(source, trusted=trusted):
            self.use_lesson_layout()
            self.show_panel("lesson")
            if Path(source).is_file():
                self.files.remember(source)

    # -- opening -------------------------------------------------------------------------------

    def save_session(self, path: str) -> bool:
        """Write the whole workspace to ``path`` (a .txs session file); False on failure."""
        return self.files.save_session(path)

    def open_paths(self, paths: Sequence[str], *, trusted: bool = False) -> None:
        """Open files (:meth:`.WindowFiles.open_paths`; ``trusted``: ``--trust``)."""
        self.files.open_paths(paths, trusted=trusted)

    def dragEnterEvent(self, e: QtGui.QDragEnterEvent) -> None:
        if e.mimeData().hasUrls():
            e.acceptProposedAction()

    def dropEvent(self, e: QtGui.QDropEvent) -> None:
        paths = [u.toLocalFile() for u in e.mimeData().urls() if u.isLocalFile()]
        if paths:
            self.files.open_paths(paths)
            e.acceptProposedAction()

    # -- feedback ------------------------------------------------------------------------------

    def show_error(self, title: str, message: str) -> None:
        """A plain message in the window (status bar + output); never a traceback."""
        self.statusBar().showMessage(message, 10000)
        console = self.panels.get("console")
        if isinstance(console, ConsolePanel):
            console.show_note(f"{title}: {message}", error=True)
        self.last_error = message

    def _run_failed(self, err: object) -> None:
        if isinstance(err, ProgramError):
            first = err.text(i18n.current()).splitlines()
            self.statusBar().showMessage(" — ".join(first[:2]), 10000)
            self.docks["console"].raise_()

    def new_workspace(self) -> None:
        """Start again with an empty workspace (asked about when there is unsaved work; Edit ▸
        Undo brings the values back)."""
        if self.runner.busy:
            self.statusBar().showMessage(
                self.tr("Wait for the running program to finish (or stop it) first."), 8000)
            return
        if not self.confirm_replace(self.tr("A new workspace replaces them.")):
            return
        self.workspace.clear()
        self.undo.saved()

    def _values_panel(self) -> ValuesPanel | None:
        """The Values panel, if it has been built."""
        dock = self.panels.get("values")
        return dock.panel if isinstance(dock, ValuesDock) else None

    def _lesson_stepping(self) -> bool:
        """Whether the lesson panel is running its steps (not the user's own work)."""
        panel = self.panels.get("lesson")
        return bool(getattr(panel, "stepping", False))

    def confirm_replace(self, what: str, hint: str | None = None) -> bool:
        """Before ``what`` replaces the workspace: ask about unsaved work (Save / Discard /
        Cancel); True to go on. ``hint``: how the work comes back after Discard (default:
        Edit ▸ Undo)."""
        if not self.ask_before_losing_work:
            return True
        return self.undo.confirm_replace(self, what, self.files.save_session_dialog, hint)

    def _busy_changed(self, busy: bool) -> None:
        self.undo.set_busy(busy)
        self.stop_action.setEnabled(busy)
        self.run_action.setEnabled(not busy)
        if busy:
            self.statusBar().showMessage(self.tr("Running…"))
        elif self.statusBar().currentMessage() == self.tr("Running…"):
            self.statusBar().clearMessage()

    def _update_status(self, *_: Any) -> None:
        ws = self.workspace
        n = len(ws)
        sel = ws.selected
        # English singular or plural chosen here; Chinese has one form for both
        text = self.tr("1 value") if n == 1 else self.tr("{0} values").format(n)
        if sel is not None:
            text += " — " + self.tr("selected: {0}").format(sel)
        self.status_text = text
        self.status_label.setText(text)

    # -- closing -------------------------------------------------------------------------------

    def closeEvent(self, e: QtGui.QCloseEvent) -> None:
        kept = getattr(self, "autosaver", None) is not None
        if not self.confirm_replace(self.tr("Quitting closes them."), self.tr(
                "File ▸ Reopen last session brings them back at the next start.") if kept
                else self.tr("Discarded, they are lost.")):
            e.ignore()
            return
        self.files.close()  # before the program stops: a file waiting for it is not opened
        if self.runner.busy:
            self.runner.stop()
            self.runner.wait(2.0)
        self.dock_layout.save()
        saver = getattr(self, "autosaver", None)
        if saver is not None:  # clean exit: waits for a write in flight, keeps the workspace
            # as the last session (File ▸ Reopen last session), removes the recovery file
            saver.finish(keep_as=last_session_path(saver.path))
        super().closeEvent(e)
