"""How the main window's docks are arranged: the default and lesson layouts, the dock title
bars, and presentation mode's stage.

Presentation mode (F5) is made for a 1280×720 or 1280×800 projector: text is 1.6× larger, so
the normal arrangement (eight tabs side by side, three dock areas) would not fit without
eliding. Instead of shrinking anything, it rearranges: the lesson (or, with no lesson, the
workspace) on the left, and ONE panel on the right, the *stage*; a bar of panel buttons above
switches what the stage shows (Ctrl+1…Ctrl+9 too), and a lesson step brings its own panel onto
it. The docks' title bars make way for content (the bar shows which panel is on the stage).
Leaving presentation mode restores the docks exactly as they were.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

PANELS = ("lesson", "workspace", "build", "inspector", "values", "memory", "graph", "console",
          "code")
LAYOUT_VERSION = 2  # layouts saved before the lesson dock existed are not restored

_STATES: dict[str, QtCore.QByteArray] = {}


def layout_state(key: str, arrange: Callable[[QtWidgets.QMainWindow, dict[str, Any]], None]
                 ) -> QtCore.QByteArray:
    """A dock layout, built once in a hidden template window and kept as a saved state.

    Restoring a state into the real window (instead of tabifying its docks directly) avoids the
    stray tab bars Qt 6 leaves behind when tabified docks are rearranged.
    """
    if key not in _STATES:
        tpl = QtWidgets.QMainWindow()
        tpl.setCentralWidget(None)  # type: ignore[arg-type]  # PySide6 stub: Qt accepts None
        tpl.setDockNestingEnabled(True)
        corner, area = QtCore.Qt.Corner, QtCore.Qt.DockWidgetArea
        tpl.setCorner(corner.BottomLeftCorner, area.LeftDockWidgetArea)
        tpl.setCorner(corner.TopLeftCorner, area.LeftDockWidgetArea)
        docks = {}
        for name in PANELS:
            dock = QtWidgets.QDockWidget(name, tpl)
            dock.setObjectName(f"dock-{name}")
            docks[name] = dock
        arrange(tpl, docks)
        _STATES[key] = tpl.saveState(LAYOUT_VERSION)
        tpl.deleteLater()
    return _STATES[key]


def default_state() -> QtCore.QByteArray:
    """The default dock layout: workspace/build/lesson over inspector on the left (full
    height); values/memory/graph tabbed on the right; code bar/code tabbed below them."""

    def arrange(tpl: QtWidgets.QMainWindow, docks: dict[str, Any]) -> None:
        area = QtCore.Qt.DockWidgetArea
        tpl.addDockWidget(area.LeftDockWidgetArea, docks["workspace"])
        tpl.addDockWidget(area.RightDockWidgetArea, docks["values"])
        tpl.splitDockWidget(docks["workspace"], docks["inspector"], QtCore.Qt.Orientation.Vertical)
        for left in ("build", "lesson"):
            tpl.tabifyDockWidget(docks["workspace"], docks[left])
        for right in ("memory", "graph"):
            tpl.tabifyDockWidget(docks["values"], docks[right])
        tpl.addDockWidget(area.BottomDockWidgetArea, docks["console"])
        tpl.tabifyDockWidget(docks["console"], docks["code"])
        for name in ("workspace", "values", "console"):
            docks[name].raise_()

    return layout_state("default", arrange)


def side_state(left: str) -> QtCore.QByteArray:
    """``left`` on the left (full height), every other panel tabbed on the right, with the
    code bar below them (so where to type is in view from the first step): the lesson layout
    (``left="lesson"``) and presentation mode's arrangement (which shows one of the right
    panels at a time: the code bar, alone, then takes the whole right side)."""

    def arrange(tpl: QtWidgets.QMainWindow, docks: dict[str, Any]) -> None:
        area = QtCore.Qt.DockWidgetArea
        first = "values" if left != "values" else "workspace"
        below = "console" if left != "console" else None
        tpl.addDockWidget(area.LeftDockWidgetArea, docks[left])
        tpl.addDockWidget(area.RightDockWidgetArea, docks[first])
        if below is not None:  # before the tabs: Qt splits a tabbed dock into one more tab
            tpl.splitDockWidget(docks[first], docks[below], QtCore.Qt.Orientation.Vertical)
        for name in ("values", "memory", "graph", "inspector", "workspace", "console", "build",
                     "code", "lesson"):
            if name not in (left, first, below):
                tpl.tabifyDockWidget(docks[first], docks[name])
        docks[first].raise_()

    return layout_state(f"side-{left}", arrange)


class PanelFrame(QtWidgets.QScrollArea):
    """A dock's content: its panel, scrolled when the dock is smaller than the panel's minimum
    (a short dock on a small screen, large text) instead of squeezing the panel's rows until
    their text is cut; exactly as large as the dock otherwise (then it shows no scroll bar).

    Sized by hand: QScrollArea's own resizing (``widgetResizable``) keeps a panel with wrapping
    text at its *preferred* height, which would scroll a panel that fits."""

    def __init__(self, panel: QtWidgets.QWidget) -> None:
        super().__init__()
        self.panel = panel  # first: setWidget already asks for sizes (our overrides use it)
        self.setObjectName(f"frame-{panel.objectName() or type(panel).__name__}")
        self.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.setWidgetResizable(False)
        self.setWidget(panel)
        self._refit = QtCore.QTimer(self)  # owned: it goes with the frame, never fires after
        self._refit.setSingleShot(True)
        self._refit.setInterval(0)
        self._refit.timeout.connect(self.fit)
        panel.installEventFilter(self)

    def minimum(self, width: int) -> QtCore.QSize:
        """The least size the panel needs at ``width`` (its wrapped text included)."""
        need = self.panel.minimumSizeHint().expandedTo(self.panel.minimumSize())
        layout = self.panel.layout()
        height = need.height()
        if layout is not None and layout.hasHeightForWidth():
            height = max(height, layout.minimumHeightForWidth(max(width, need.width())))
        return QtCore.QSize(need.width(), height)

    def fit(self) -> None:
        if self.widget() is not self.panel:  # (a screenshot may have taken the panel out)
            return
        view = self.viewport().size()
        need = self.minimum(view.width())
        size = QtCore.QSize(max(view.width(), need.width()), max(view.height(), need.height()))
        if size != self.panel.size():
            self.panel.resize(size)

    def resizeEvent(self, e: QtGui.QResizeEvent) -> None:
        super().resizeEvent(e)
        self.fit()

    def viewportEvent(self, e: QtCore.QEvent) -> bool:
        if e.type() == QtCore.QEvent.Type.Resize:  # a scroll bar came or went
            self.fit()
        return super().viewportEvent(e)

    def eventFilter(self, watched: QtCore.QObject, e: QtCore.QEvent) -> bool:
        if watched is self.panel and e.type() == QtCore.QEvent.Type.LayoutRequest:
            self._refit.start()  # after the panel's layout settled
        return False

    def sizeHint(self) -> QtCore.QSize:
        return self.panel.sizeHint()


class DockTitleBar(QtWidgets.QWidget):
    """A dock's title bar: its title in the window's font (so it grows with presentation mode,
    which Qt's own title bar does not), float and close buttons. Dragging it moves the dock and a
    double click floats it, as with Qt's own."""

    def __init__(self, dock: QtWidgets.QDockWidget) -> None:
        super().__init__(dock)
        self.setObjectName(f"title-{dock.objectName()}")
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QtGui.QPalette.ColorRole.AlternateBase)
        self.dock = dock
        self.label = QtWidgets.QLabel(dock.windowTitle())
        self.label.setObjectName("dock-title")
        style = self.style()
        pix = QtWidgets.QStyle.StandardPixmap
        self.float_button = QtWidgets.QToolButton()
        self.float_button.setIcon(style.standardIcon(pix.SP_TitleBarNormalButton))
        self.float_button.setAutoRaise(True)
        self.float_button.clicked.connect(lambda: dock.setFloating(not dock.isFloating()))
        self.close_button = QtWidgets.QToolButton()
        self.close_button.setIcon(style.standardIcon(pix.SP_TitleBarCloseButton))
        self.close_button.setAutoRaise(True)
        self.close_button.clicked.connect(dock.close)
        layout = QtWidgets.QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 2, 2)
        layout.setSpacing(2)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.float_button)
        layout.addWidget(self.close_button)
        dock.windowTitleChanged.connect(self.label.setText)
        self.retranslate()

    def retranslate(self) -> None:
        self.float_button.setToolTip(self.tr("Float or dock this panel"))
        self.close_button.setToolTip(self.tr("Close this panel (View menu brings it back)"))

    def changeEvent(self, e: QtCore.QEvent) -> None:
        super().changeEvent(e)
        if e.type() == QtCore.QEvent.Type.FontChange:
            side = QtGui.QFontMetrics(self.font()).height()
            for button in (self.float_button, self.close_button):
                button.setIconSize(QtCore.QSize(side, side) * 0.8)


class Stage(QtCore.QObject):
    """Presentation mode's arrangement of a main window's docks (see the module's text).

    ``docks`` are the window's docks by panel name; ``left_name()`` says which panel takes the
    left side ("lesson" when a lesson is open); ``choose(name)`` is what a panel button or its
    shortcut (Ctrl+1…Ctrl+9, in normal mode too) does: the window's "show this panel"."""

    shown = QtCore.Signal(str)  # the panel now on the stage

    def __init__(self, win: QtWidgets.QMainWindow, docks: Mapping[str, QtWidgets.QDockWidget],
                 left_name: Callable[[], str], choose: Callable[[str], None]) -> None:
        super().__init__(win)
        self.win = win
        self.docks = docks
        self.left_name = left_name
        self.active = False
        self.left = "lesson"
        self.current = "values"
        self._saved: QtCore.QByteArray | None = None
        self._titles: dict[str, QtWidgets.QWidget] = {}  # each dock's own title bar, kept
        # once more when control is back in the event loop: deleting what a rearrangement left
        # behind can make Qt show a stale tab bar again
        self._tidy = QtCore.QTimer(self)
        self._tidy.setSingleShot(True)
        self._tidy.setInterval(0)
        self._tidy.timeout.connect(lambda: tidy_tab_bars(self.win))
        self.bar = QtWidgets.QToolBar()
        self.bar.setObjectName("toolbar-panels")
        self.bar.setMovable(False)
        self.bar.setFloatable(False)
        self.bar.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonTextOnly)
        win.addToolBarBreak(QtCore.Qt.ToolBarArea.TopToolBarArea)
        win.addToolBar(QtCore.Qt.ToolBarArea.TopToolBarArea, self.bar)
        self.bar.hide()  # shown in presentation mode only
        self.group = QtGui.QActionGroup(self)
        self.actions: dict[str, QtGui.QAction] = {}
        for i, name in enumerate(PANELS):
            action = QtGui.QAction(name, self, checkable=True)
            action.setShortcut(QtGui.QKeySequence(f"Ctrl+{i + 1}"))
            action.triggered.connect(lambda _c=False, n=name: choose(n))
            self.group.addAction(action)
            self.actions[name] = action
            self.bar.addAction(action)
            win.addAction(action)  # its shortcut works while the bar is hidden too

    def retitle(self, titles: Mapping[str, str]) -> None:
        for name, action in self.actions.items():
            action.setText(titles[name])
            action.setToolTip(f"{titles[name]} ({action.shortcut().toString()})")

    def stage_names(self) -> list[str]:
        return [n for n in PANELS if n != self.left]

    def saved_state(self) -> QtCore.QByteArray | None:
        """The normal arrangement to come back to (while presentation mode is on)."""
        return self._saved

    def enter(self, normal: QtCore.QByteArray | None = None) -> None:
        """Arrange the docks for the projector; ``normal`` (default: the current state) is what
        :meth:`leave` restores."""
        if normal is not None or not self.active:
            self._saved = normal if normal is not None else self.win.saveState(LAYOUT_VERSION)
        if not self.active:
            front = [n for n in PANELS if self._in_front(self.docks[n])]
            if front:  # the panel in front on the right stays in front
                self.current = next((n for n in ("graph", "memory", "values") if n in front),
                                    front[-1])
        self.active = True
        self.arrange()

    def _hide_titles(self) -> None:
        for name, dock in self.docks.items():
            bar = dock.titleBarWidget()
            if name not in self._titles and bar is not None:
                self._titles[name] = bar
                dock.setTitleBarWidget(QtWidgets.QWidget(dock))  # an empty one: no title bar

    def _show_titles(self) -> None:
        for name, bar in self._titles.items():
            empty = self.docks[name].titleBarWidget()
            self.docks[name].setTitleBarWidget(bar)
            bar.show()
            if empty is not None and empty is not bar:
                empty.deleteLater()
        self._titles.clear()

    def _in_front(self, dock: QtWidgets.QDockWidget) -> bool:
        """Shown, and not behind another dock's tab (Qt moves those out of the window)."""
        where = QtCore.QRect(dock.mapTo(self.win, QtCore.QPoint(0, 0)), dock.size())
        return dock.isVisible() and self.win.rect().intersects(where)

    def arrange(self) -> None:
        """(Re)arrange: the left panel and one panel on the stage, nothing else in view."""
        self._hide_titles()
        self.left = self.left_name()
        if self.current == self.left:
            self.current = "values"
        restore(self.win, side_state(self.left))
        for name, dock in self.docks.items():
            dock.setFloating(False)
            dock.setVisible(name in (self.left, self.current))
        if not self.win.toolBarBreak(self.bar):  # its own line, below the main tool bar
            self.win.insertToolBarBreak(self.bar)
        self.bar.show()
        self.actions[self.left].setVisible(False)
        for name in self.stage_names():
            self.actions[name].setVisible(True)
        self.show(self.current)
        tidy_tab_bars(self.win)
        self._tidy.start()
        self.size_docks()

    def size_docks(self) -> None:
        """The left panel 40 % of the width, the stage the rest (again once the window is
        shown: before that, Qt does not apply dock sizes)."""
        width = max(self.win.width(), 800)
        self.win.resizeDocks([self.docks[self.left], self.docks[self.current]],
                             [int(width * 0.4), int(width * 0.6)],
                             QtCore.Qt.Orientation.Horizontal)

    def show(self, name: str) -> None:
        """Put panel ``name`` on the stage (the left panel is always in view)."""
        if name == self.left:
            self.docks[name].show()
            return
        self.current = name
        for other in self.stage_names():
            if other != name:
                self.docks[other].hide()
        self.docks[name].show()
        self.docks[name].raise_()
        self.actions[name].setChecked(True)
        tidy_tab_bars(self.win)
        self._tidy.start()
        self.shown.emit(name)

    def leave(self) -> QtCore.QByteArray | None:
        """Stop arranging; returns the normal state saved by :meth:`enter` (the caller restores
        it after the text size is back to normal)."""
        self.active = False
        self.bar.hide()
        for action in self.actions.values():
            action.setVisible(True)
        self._show_titles()
        saved, self._saved = self._saved, None
        return saved


def restore(win: QtWidgets.QMainWindow, state: QtCore.QByteArray) -> bool:
    """``restoreState``, then :func:`tidy_tab_bars`."""
    ok = win.restoreState(state, LAYOUT_VERSION)
    tidy_tab_bars(win)
    return ok


def settle_layouts() -> None:
    """Run the layout requests Qt has posted (new sizes after a font or dock change) now, and
    nothing else (no queued signals from worker threads run inside the caller)."""
    for _ in range(3):
        QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.LayoutRequest.value)


def tidy_tab_bars(win: QtWidgets.QMainWindow) -> None:
    """Hide the stray tab bars Qt 6 leaves behind when docks that were tabbed are rearranged
    or hidden: a bar is kept only when its tabs are exactly one group of shown, docked docks."""
    # everything Qt posted to lay the docks out (its dock layout works through several kinds
    # of posted events), so that the bars are judged as they will be shown
    QtCore.QCoreApplication.sendPostedEvents()
    docks = [d for d in win.findChildren(QtWidgets.QDockWidget) if d.parent() is win]
    by_title = {d.windowTitle(): d for d in docks}
    for bar in win.findChildren(QtWidgets.QTabBar):
        if bar.parent() is not win or not bar.isVisibleTo(win):
            continue
        dock = by_title.get(bar.tabText(bar.currentIndex()))
        group = -1
        if dock is not None and not dock.isFloating() and not dock.isHidden():
            group = 1 + sum(1 for d in win.tabifiedDockWidgets(dock) if not d.isHidden())
        if group != bar.count() or group < 2:
            bar.hide()
