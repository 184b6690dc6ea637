"""The main window: dockable panels around one workspace, menus, toolbar, status bar.

Panels are views of the workspace (through a :class:`WorkspaceBridge`); the window owns the
workspace, the :class:`RunController` every change goes through, and the settings (layout,
theme, language, presentation mode, recent files) remembered between runs.
"""

from __future__ import annotations

import contextlib
import functools
import html
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from PySide6 import QtCore, QtGui, QtWidgets

from ..core import trust as core_trust
from ..core.lessons import is_lesson
from ..core.loading import LoadError
from ..core.preview import write_refusal
from ..core.runner import ProgramError
from ..core.sources import SESSION_SUFFIX, open_into, replaces_workspace
from ..core.workspace import Workspace
from . import fonts, i18n, main_menus, theme
from .autosave import last_session_path
from .bridge import WorkspaceBridge
from .console_panel import ConsolePanel
from .docks import (
    LAYOUT_VERSION,
    PANELS,
    DockTitleBar,
    PanelFrame,
    Stage,
    default_state,
    restore,
    settle_layouts,
    side_state,
)
from .edit_actions import EditActions
from .inspector_panel import InspectorPanel
from .lesson_panel import LessonPanel
from .run_controller import RunController
from .undo_actions import UndoController
from .values_panel import ValuesPanel
from .workers import Task
from .workspace_panel import WorkspacePanel

if TYPE_CHECKING:
    from .autosave import Autosaver
    from .code_panel import CodePanel

#: panels built only when first shown or used (start-up builds what is visible)
LAZY = ("build", "memory", "graph", "code")
OPENABLE = ("*.npy", "*.npz", "*.py", "*.md", "*.txs")
MAX_RECENT = 8


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
    """Tensor Explorer's window. ``settings=None`` remembers nothing (screenshots, tests)."""

    #: set by the app after the window is made (absent in screenshots and tests)
    autosaver: Autosaver
    #: File ▸ Open recent (made with the menus, :func:`.main_menus.build`)
    recent_menu: QtWidgets.QMenu

    def __init__(self, workspace: Workspace | None = None, *,
                 settings: QtCore.QSettings | None = None,
                 explored: bool = False) -> None:
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
        self._actions_owner = QtCore.QObject(self)
        self.setAcceptDrops(True)
        self.setDockNestingEnabled(True)
        self.setAnimated(False)  # no half-moved docks or stale tab bars in screenshots
        self.setWindowTitle("Tensor Explorer")
        self._tasks: list[Task] = []
        if settings is not None:  # remembered look; without settings keep the current one
            presentation = self._setting("presentation", "false") == "true"
            i18n.install(self._setting("language", "en"))
            theme.state().apply(self._setting("theme", "light"),
                                theme.PRESENTATION_SCALE if presentation else 1.0)
        else:
            theme.state().apply()
        self.status_label = QtWidgets.QLabel()
        self.statusBar().addPermanentWidget(self.status_label)
        #: undo/redo of the workspace's changes, and whether there is unsaved work
        self.undo = UndoController(self.bridge, self._lesson_stepping,
                                   lambda text: self.statusBar().showMessage(text, 8000), self)
        #: ask before unsaved work would be lost (the real app; not screenshots, tests, nor
        #: runs that must not wait on a person: TENSOR_EXPLORER_NO_DIALOGS)
        self.ask_before_losing_work = settings is not None and not os.environ.get(
            "TENSOR_EXPLORER_NO_DIALOGS")
        #: Edit ▸ Copy, Copy as NumPy literal, Find value
        self.edit = EditActions(self, self.workspace, self._values_panel,
                                lambda text: self.statusBar().showMessage(text, 5000))
        self._build_ui()
        self.runner.failed.connect(self._run_failed)
        self.runner.busy_changed.connect(self._busy_changed)
        #: the program from a file that ran restricted, for the Trust button: path, bytes, text
        self._untrusted: tuple[Path, bytes, str] | None = None
        console = self.panels["console"]
        assert isinstance(console, ConsolePanel)
        console.trust_bar.trusted.connect(self._trust_program)
        theme.state().changed.connect(self._steady_bars)
        self._steady_bars()
        self.bridge.selected.connect(self._update_status)
        self.bridge.modified.connect(self._update_status)
        self.resize(1280, 800)
        self._restore_layout()
        if theme.state().presentation:
            self.stage.enter()
        self._update_status()

    # -- settings ------------------------------------------------------------------------------

    def _setting(self, key: str, default: str) -> str:
        if self.settings is None:
            return default
        return str(self.settings.value(key, default))

    def _store(self, key: str, value: Any) -> None:
        if self.settings is not None:
            self.settings.setValue(key, value)

    def _restore_layout(self) -> None:
        self._restored = False
        if self.settings is None:
            return
        version: Any = self.settings.value("layout_version", 0)  # int, or str from an ini file
        if int(version or 0) != LAYOUT_VERSION:
            return
        geo = self.settings.value("geometry")
        state = self.settings.value("window_state")
        if isinstance(geo, QtCore.QByteArray):
            self.restoreGeometry(geo)
        if isinstance(state, QtCore.QByteArray):
            self._restored = self.restore_layout_state(state)

    def save_layout(self) -> None:
        """Remember geometry and docks (the normal arrangement, also in presentation mode)."""
        normal = self.stage.saved_state() if self.stage.active else None
        self._store("geometry", self.saveGeometry())
        self._store("window_state", normal or self.saveState(LAYOUT_VERSION))
        self._store("layout_version", LAYOUT_VERSION)

    def recent_files(self) -> list[str]:
        if self.settings is None:
            return []
        value: Any = self.settings.value("recent", [])  # a list, a str, or None
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def _remember_file(self, path: str) -> None:
        if self.settings is None:
            return
        recent = [p for p in self.recent_files() if p != path]
        self._store("recent", [path, *recent][:MAX_RECENT])
        self._fill_recent_menu()

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
        self._sized = False
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
            if action.parent() is self._actions_owner:  # (the stage's panel actions stay)
                self.removeAction(action)
        self.menuBar().clear()
        direct = QtCore.Qt.FindChildOption.FindDirectChildrenOnly
        for menu in self.menuBar().findChildren(QtWidgets.QMenu, options=direct):
            menu.deleteLater()
        self._actions_owner.deleteLater()
        self._actions_owner = QtCore.QObject(self)
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

    def apply_default_sizes(self) -> None:
        """Give the default dock layout sensible proportions for the window's size."""
        w, h = max(self.width(), 800), max(self.height(), 500)
        self.resizeDocks([self.docks["workspace"], self.docks["values"]],
                         [int(w * 0.32), int(w * 0.68)], QtCore.Qt.Orientation.Horizontal)
        self.resizeDocks([self.docks["workspace"], self.docks["inspector"]],
                         [int(h * 0.3), int(h * 0.7)], QtCore.Qt.Orientation.Vertical)
        self.resizeDocks([self.docks["values"], self.docks["console"]],
                         [int(h * 0.68), int(h * 0.32)], QtCore.Qt.Orientation.Vertical)
        self._sized = True

    def showEvent(self, e: QtGui.QShowEvent) -> None:
        super().showEvent(e)
        if self.stage.active and not self._sized:  # started in presentation mode
            self.stage.size_docks()
            self._sized = True
        elif not self._sized and not self._restored:
            self.apply_default_sizes()

    def _action(self, text: str, slot: Callable[..., Any],
                shortcut: str | QtGui.QKeySequence | QtGui.QKeySequence.StandardKey
                | None = None, checkable: bool = False, tip: str = "") -> QtGui.QAction:
        a = QtGui.QAction(text, self._actions_owner)
        if shortcut is not None:
            a.setShortcut(QtGui.QKeySequence(shortcut))
        a.setCheckable(checkable)
        if tip:
            a.setStatusTip(tip)
            a.setToolTip(tip)
        a.triggered.connect(slot)
        return a

    def _build_actions(self) -> None:
        ks = QtGui.QKeySequence.StandardKey
        self.new_action = self._action(self.tr("&New workspace"), self.new_workspace, ks.New,
                                       tip=self.tr("Start again with an empty workspace "
                                                   "(Edit ▸ Undo brings it back)"))
        self.reopen_last_action = self._action(
            self.tr("Reopen &last session"), self.reopen_last_session,
            tip=self.tr("The values and history the window had when it was last closed"))
        self.open_action = self._action(self.tr("&Open…"), self.open_dialog, ks.Open,
                                        tip=self.tr("Open .npy, .npz, .py, lesson .md or "
                                                    "session .txs files"))
        self.save_session_action = self._action(self.tr("&Save session…"),
                                                self.save_session_dialog, ks.Save,
                                                tip=self.tr("Save every value, its gradient "
                                                            "and the history in one .txs file"))
        self.save_script_action = self._action(self.tr("Save code as .py…"),
                                               lambda: cast("CodePanel",
                                                            self.panels["code"]).save_dialog(),
                                               "Ctrl+Shift+S")
        self.export_action = self._action(self.tr("Export panel as image…"), self.export_dialog,
                                          "Ctrl+E")
        self.quit_action = self._action(self.tr("&Quit"), self.close, ks.Quit)
        console = self.panels["console"]
        assert isinstance(console, ConsolePanel)
        self.run_action = self._action(self.tr("&Run code"), console.run_editor,
                                       "Ctrl+Return", tip=self.tr("Run the code bar (Ctrl+Enter)"))
        self.stop_action = self._action(self.tr("&Stop"), self.runner.stop, "Ctrl+.",
                                        tip=self.tr("Stop the running program"))
        self.stop_action.setEnabled(False)
        self.dark_action = self._action(self.tr("&Dark theme"), self.toggle_dark, "Ctrl+Shift+D",
                                        checkable=True)
        self.dark_action.setChecked(theme.current().name == "dark")
        self.present_action = self._action(self.tr("&Presentation mode"),
                                           self.toggle_presentation, "F5", checkable=True,
                                           tip=self.tr("Larger text and drawings for a "
                                                       "projector (F5)"))
        self.present_action.setChecked(theme.state().presentation)
        self.reset_layout_action = self._action(self.tr("Reset layout"), self.reset_layout)
        main_menus.build(self)  # the menu bar and the tool bar
        self.addAction(self.run_action)

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = self.recent_files()
        for path in recent:
            # PySide6 stub: overlapping addAction(text, callable) overloads hide the lambda's type
            self.recent_menu.addAction(path, lambda p=path: self.open_paths([p]))  # type: ignore[misc]
        self.recent_menu.setEnabled(bool(recent))

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
        """Presentation mode: text 1.6× larger and the docks rearranged for a projector (the
        left panel and one panel on a stage, see :mod:`.docks`); off again restores the docks
        exactly as they were."""
        if on and not self.stage.active:
            normal = self.saveState(LAYOUT_VERSION)
            theme.state().apply(scale=theme.PRESENTATION_SCALE)
            self.stage.enter(normal)
        elif not on and self.stage.active:
            saved = self.stage.leave()
            theme.state().apply(scale=1.0)
            settle_layouts()  # the bars at their normal height first, or the docks absorb it
            if saved is not None:
                self.restore_layout_state(saved)
                if saved is side_state("lesson"):
                    self._size_side_layout()
                elif saved is default_state():
                    self.apply_default_sizes()
        else:
            theme.state().apply(scale=theme.PRESENTATION_SCALE if on else 1.0)
        self.present_action.setChecked(on)
        self._store("presentation", "true" if on else "false")

    @QtCore.Slot()
    def _steady_bars(self) -> None:
        """Menu, tool and status bar as tall in one language as in the other: the Chinese
        face has taller lines, and a bar that grew would take its height from the docks (a
        dock would shrink a little at every switch)."""
        size = theme.BASE_POINT_SIZE * theme.state().scale
        for bar in (self.menuBar(), self.main_toolbar):
            bar.setMinimumHeight(0)
            heights = []
            for lang in i18n.LANGUAGES:
                bar.setFont(fonts.ui_font(size, lang))
                layout = bar.layout()
                if layout is not None:
                    layout.invalidate()
                heights.append(bar.sizeHint().height())
            bar.setFont(QtGui.QFont())  # the application's font again
            bar.setMinimumHeight(max(heights))
        # the status bar is as tall as its text: give its label the taller language's line
        self.status_label.setMinimumHeight(max(
            QtGui.QFontMetrics(fonts.ui_font(size, lang)).height() for lang in i18n.LANGUAGES))

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
        """Put every dock back where the default layout has it (nothing is rebuilt); in
        presentation mode, arrange the stage afresh (leaving it gives the default layout)."""
        for dock in self.docks.values():
            dock.setFloating(False)
            dock.show()
        if self.stage.active:
            self.stage.enter(default_state())
            return
        self.restore_layout_state(default_state())
        self.apply_default_sizes()

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

    def restore_layout_state(self, state: QtCore.QByteArray) -> bool:
        """``restoreState`` without Qt 6's stray tab bars (see :func:`.docks.restore`)."""
        return restore(self, state)

    def use_lesson_layout(self) -> None:
        """Lesson on the left (full height), every other panel tabbed on the right, also full
        height, so the panel a step shows gets all the room. In presentation mode the stage is
        arranged around the lesson, and this layout is the one leaving it gives."""
        if self.stage.active:
            self.stage.enter(side_state("lesson"))
            return
        self.restore_layout_state(side_state("lesson"))
        self._size_side_layout()

    def _size_side_layout(self) -> None:
        w = max(self.width(), 800)
        self.resizeDocks([self.docks["lesson"], self.docks["values"]],
                         [int(w * 0.36), int(w * 0.64)], QtCore.Qt.Orientation.Horizontal)
        h = max(self.height(), 500)  # the code bar below the panels: in view, not in the way
        self.resizeDocks([self.docks["values"], self.docks["console"]],
                         [int(h * 0.7), int(h * 0.3)], QtCore.Qt.Orientation.Vertical)
        self._sized = True

    def open_lesson(self, source: str, *, trusted: bool = False) -> None:
        """Open a lesson (file or shipped name) in the lesson dock and run its first step (a
        lesson file runs restricted unless it is trusted, or ``trusted``: ``--trust``)."""
        panel = self.panels["lesson"]
        assert isinstance(panel, LessonPanel)
        if panel.open_lesson(source, trusted=trusted):
            self.use_lesson_layout()
            self.show_panel("lesson")
            if Path(source).is_file():
                self._remember_file(str(Path(source).resolve()))

    # -- opening -------------------------------------------------------------------------------

    def open_dialog(self) -> None:
        paths, _ = QtWidgets.QFileDialog.getOpenFileNames(
            self, self.tr("Open"), "", self.tr("Arrays and programs ({0})").format(
                " ".join(OPENABLE)))
        if paths:
            self.open_paths(paths)

    def save_session_dialog(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self, self.tr("Save session"), "session.txs", self.tr("Sessions (*.txs)"))
        if path:
            self.save_session(path)

    def save_session(self, path: str) -> bool:
        """Write the whole workspace to ``path`` (a .txs session file); False on failure."""
        if self.runner.busy:
            self.show_error(self.tr("Save session"), self.tr("a program is still running"))
            return False
        try:
            self.workspace.save(path)
        except (OSError, ValueError, RuntimeError) as exc:
            self.show_error(self.tr("Save session"), str(exc))
            return False
        self._remember_file(str(Path(path).resolve()))
        self.statusBar().showMessage(self.tr("Saved {0}").format(Path(path).name), 5000)
        self.undo.saved()
        return True

    def open_paths(self, paths: Sequence[str], *, trusted: bool = False) -> None:
        """Open files: arrays load in the background, programs run through the runner (a
        program or lesson file restricted unless it is trusted, or ``trusted``: ``--trust``).
        """
        for path in paths:
            if is_lesson(path):
                self.open_lesson(path, trusted=trusted)
                continue
            if replaces_workspace(path) and not self.confirm_replace(
                    self.tr("Opening the session “{0}” replaces them.").format(Path(path).name)):
                continue
            if Path(path).suffix.lower() == ".py":
                self._open_program(path, trusted=trusted)
            else:
                self._open_arrays(path)

    def _open_program(self, path: str, *, trusted: bool = False) -> None:
        p = Path(path)
        try:
            if p.is_dir():
                raise LoadError(f"{p.name}: is a folder, not a program")
            data = p.read_bytes()
            if len(data) > 1 << 20:
                raise LoadError(f"{p.name}: a program of {len(data):,} bytes is too large")
            source = data.decode("utf-8")
        except FileNotFoundError:
            self.show_error(self.tr("Could not open {0}").format(p.name), f"{p.name}: no such file")
            return
        except UnicodeDecodeError:
            self.show_error(self.tr("Could not open {0}").format(p.name),
                            f"{p.name}: not a UTF-8 text file")
            return
        except (OSError, LoadError) as exc:
            self.show_error(self.tr("Could not open {0}").format(p.name),
                            str(exc) if isinstance(exc, LoadError) else
                            f"{p.name}: could not be read ({getattr(exc, 'strerror', exc)})")
            return
        self._remember_file(str(Path(path).resolve()))
        trusted = trusted or core_trust.is_trusted(p, data)
        console = self.panels["console"]
        assert isinstance(console, ConsolePanel)
        if trusted:
            console.trust_bar.dismiss()
        else:
            name = p.name
            console.trust_bar.ask(lambda: self.tr(
                "{0} came from a file and ran restricted: imports beyond torch, NumPy and math, "
                "file access and other risky calls are refused. Trust it only if you trust "
                "where it came from.").format(name))
            self._untrusted = (p, data, source)
        self.runner.run(source, restricted=not trusted)

    def _trust_program(self) -> None:
        """Trust the program the bar is about (its content, as it was opened) and run it again
        as full Python."""
        if self._untrusted is None:
            return
        path, data, source = self._untrusted
        console = self.panels["console"]
        assert isinstance(console, ConsolePanel)
        try:
            core_trust.trust(data)
        except OSError as exc:
            self.show_error(self.tr("Could not trust {0}").format(path.name), str(exc))
            return
        self._untrusted = None
        console.trust_bar.dismiss()
        self.runner.run(source, restricted=False)

    def _open_arrays(self, path: str) -> None:
        def work(progress: Any, cancel: Any) -> list[str]:
            return open_into(self.workspace, path)

        task = Task(work, parent=self)
        self._tasks.append(task)
        self.statusBar().showMessage(self.tr("Opening {0}…").format(Path(path).name))

        def done(names: list[str]) -> None:
            self._remember_file(str(Path(path).resolve()))
            if Path(path).suffix.lower() == SESSION_SUFFIX:  # the workspace is as saved
                self.undo.saved()
            live = [n for n in names if n in self.workspace]  # a program may have run since
            if live:
                self.workspace.selected = live[-1]
            self.statusBar().showMessage(self.tr("Opened {0}").format(Path(path).name), 5000)

        task.finished.connect(done)
        task.failed.connect(lambda msg: self.show_error(
            self.tr("Could not open {0}").format(Path(path).name),
            msg.split(": ", 1)[1] if msg.startswith(("LoadError", "RuntimeError")) else msg))
        task.start()

    def dragEnterEvent(self, e: QtGui.QDragEnterEvent) -> None:
        if e.mimeData().hasUrls():
            e.acceptProposedAction()

    def dropEvent(self, e: QtGui.QDropEvent) -> None:
        paths = [u.toLocalFile() for u in e.mimeData().urls() if u.isLocalFile()]
        if paths:
            self.open_paths(paths)
            e.acceptProposedAction()

    # -- feedback ------------------------------------------------------------------------------

    def show_error(self, title: str, message: str) -> None:
        """A plain message in the window (status bar + output); never a traceback."""
        self.statusBar().showMessage(message, 10000)
        console = self.panels.get("console")
        if isinstance(console, ConsolePanel):
            t = theme.current()
            console._append(f"<span style='color:{t.error}'>{html.escape(title)}: "
                            f"{html.escape(message)}</span>")
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

    def last_session_path(self) -> Path | None:
        """Where the last clean quit kept its workspace (None: this window is not the app's,
        it keeps nothing)."""
        saver = getattr(self, "autosaver", None)
        return None if saver is None else last_session_path(saver.path)

    def _update_reopen_last(self) -> None:
        path = self.last_session_path()
        self.reopen_last_action.setEnabled(path is not None and path.is_file())

    def reopen_last_session(self) -> None:
        """Open the workspace the window had when it was last closed."""
        path = self.last_session_path()
        if path is not None and path.is_file():
            self.open_paths([str(path)])

    def _values_panel(self) -> ValuesPanel | None:
        """The Values panel, if it has been built."""
        dock = self.panels.get("values")
        return dock.panel if isinstance(dock, ValuesDock) else None

    def _lesson_stepping(self) -> bool:
        """Whether the lesson panel is running its steps (not the user's own work)."""
        panel = self.panels.get("lesson")
        return bool(getattr(panel, "stepping", False))

    def _save_for_replace(self) -> bool:
        """Ask where to save the session before the workspace is replaced; True when saved."""
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self, self.tr("Save session"), "session.txs", self.tr("Sessions (*.txs)"))
        return bool(path) and self.save_session(path)

    def confirm_replace(self, what: str, hint: str | None = None) -> bool:
        """Before ``what`` replaces the workspace: ask about unsaved work (Save / Discard /
        Cancel); True to go on. ``hint``: how the work comes back after Discard (default:
        Edit ▸ Undo)."""
        if not self.ask_before_losing_work:
            return True
        return self.undo.confirm_replace(self, what, self._save_for_replace, hint)

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

    def show_shortcuts(self) -> None:
        rows = [
            ("Ctrl+O", self.tr("Open files")), ("Ctrl+Enter", self.tr("Run the code bar")),
            ("Ctrl+.", self.tr("Stop a running program")), ("F2", self.tr("Rename value")),
            ("Del", self.tr("Delete value")), ("Ctrl+D", self.tr("Duplicate value (clone)")),
            ("F5", self.tr("Presentation mode")), ("Ctrl+Shift+D", self.tr("Dark theme")),
            ("Ctrl+E", self.tr("Export panel as image")),
        ]
        text = "<table>" + "".join(f"<tr><td><b>{k}</b>&nbsp;&nbsp;</td><td>{html.escape(v)}"
                                   f"</td></tr>" for k, v in rows) + "</table>"
        QtWidgets.QMessageBox.information(self, self.tr("Keyboard shortcuts"), text)

    def show_about(self) -> None:
        QtWidgets.QMessageBox.about(
            self, self.tr("About Tensor Explorer"),
            self.tr("Tensor Explorer shows what a tensor is, which values share memory, and how "
                    "autograd flows."))

    def export_dialog(self) -> None:
        from .screenshot import render_to_file

        names = [*PANELS, "window"]
        name, ok = QtWidgets.QInputDialog.getItem(self, self.tr("Export panel"),
                                                  self.tr("Panel:"), names, 3, False)
        if not ok:
            return
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self, self.tr("Export panel"), f"{name}.png", self.tr("Images (*.png *.svg)"))
        if path:
            widget = self if name == "window" else self.panels[name]
            try:
                render_to_file(widget, path, None, 1.0)
            except (OSError, ValueError) as exc:
                self.show_error(self.tr("Export failed"), str(exc))

    # -- closing -------------------------------------------------------------------------------

    def closeEvent(self, e: QtGui.QCloseEvent) -> None:
        kept = getattr(self, "autosaver", None) is not None
        if not self.confirm_replace(self.tr("Quitting closes them."), self.tr(
                "File ▸ Reopen last session brings them back at the next start.") if kept
                else self.tr("Discarded, they are lost.")):
            e.ignore()
            return
        if self.runner.busy:
            self.runner.stop()
            self.runner.wait(2.0)
        self.save_layout()
        saver = getattr(self, "autosaver", None)
        if saver is not None:  # clean exit: waits for a write in flight, keeps the workspace
            # as the last session (File ▸ Reopen last session), removes the recovery file
            saver.finish(keep_as=last_session_path(saver.path))
        for task in self._tasks:
            with contextlib.suppress(RuntimeError):  # already delivered and deleted
                task.cancel()
        super().closeEvent(e)
