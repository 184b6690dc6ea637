"""Where the main window's docks go: the remembered layout, the default and lesson layouts,
their proportions, presentation mode's stage, and bars as tall in every language.

:class:`WindowLayout` arranges the docks of one
:class:`~tensor_explorer.qt.main_window.MainWindow`; the arrangements themselves (the default
layout, a side layout, the stage) are made in :mod:`.docks`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6 import QtCore, QtGui

from . import fonts, i18n, theme
from .docks import LAYOUT_VERSION, default_state, restore, settle_layouts, side_state

if TYPE_CHECKING:
    from .main_window import MainWindow

_H, _V = QtCore.Qt.Orientation.Horizontal, QtCore.Qt.Orientation.Vertical


class WindowLayout:
    """The dock arrangement of ``window``; sized once when it is first shown."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        #: the docks have their proportions (set on the first show, or by a layout change)
        self.sized = False
        #: the remembered layout was restored at start-up (then its sizes are kept)
        self.restored = False
        self._remembered: QtCore.QByteArray | None = None

    # -- remembered ----------------------------------------------------------------------------

    def restore_saved(self) -> None:
        """The geometry and docks remembered in the settings, if they are of this version."""
        win, settings = self.window, self.window.settings
        self.restored = False
        if settings is None:
            return
        version: Any = settings.value("layout_version", 0)  # int, or str from an ini file
        if int(version or 0) != LAYOUT_VERSION:
            return
        geo = settings.value("geometry")
        state = settings.value("window_state")
        if isinstance(geo, QtCore.QByteArray):
            win.restoreGeometry(geo)
        if isinstance(state, QtCore.QByteArray):
            self.restored = self.restore_state(state)
            self._remembered = state if self.restored else None

    def normal_state(self) -> QtCore.QByteArray:
        """The arrangement leaving presentation mode gives when the window started in it: the
        remembered one, or the default layout (then sized for the window). Not the state of
        the docks now: before the window is first shown they have no sizes yet, and leaving
        would squeeze some panels to a strip."""
        return self._remembered if self._remembered is not None else default_state()

    def save(self) -> None:
        """Remember geometry and docks (the normal arrangement, also in presentation mode)."""
        win, settings = self.window, self.window.settings
        if settings is None:
            return
        normal = win.stage.saved_state() if win.stage.active else None
        settings.setValue("geometry", win.saveGeometry())
        settings.setValue("window_state", normal or win.saveState(LAYOUT_VERSION))
        settings.setValue("layout_version", LAYOUT_VERSION)

    def restore_state(self, state: QtCore.QByteArray) -> bool:
        """``restoreState`` without Qt 6's stray tab bars (see :func:`.docks.restore`)."""
        return restore(self.window, state)

    # -- arrangements --------------------------------------------------------------------------

    def reset(self) -> None:
        """Every dock back where the default layout has it (nothing is rebuilt); in
        presentation mode, the stage arranged afresh (leaving it gives the default layout)."""
        win = self.window
        for dock in win.docks.values():
            dock.setFloating(False)
            dock.show()
        if win.stage.active:
            win.stage.enter(default_state())
            return
        self.restore_state(default_state())
        self.default_sizes()

    def use_lesson_layout(self) -> None:
        """Lesson on the left (full height), every other panel tabbed on the right, also full
        height, so the panel a step shows gets all the room. In presentation mode the stage is
        arranged around the lesson, and this layout is the one leaving it gives."""
        if self.window.stage.active:
            self.window.stage.enter(side_state("lesson"))
            return
        self.restore_state(side_state("lesson"))
        self.side_sizes()

    def default_sizes(self) -> None:
        """Give the default dock layout sensible proportions for the window's size."""
        win, docks = self.window, self.window.docks
        w, h = max(win.width(), 800), max(win.height(), 500)
        win.resizeDocks([docks["workspace"], docks["values"]], [int(w * 0.32), int(w * 0.68)], _H)
        win.resizeDocks([docks["workspace"], docks["inspector"]], [int(h * 0.3), int(h * 0.7)], _V)
        win.resizeDocks([docks["values"], docks["console"]], [int(h * 0.68), int(h * 0.32)], _V)
        self.sized = True

    def side_sizes(self) -> None:
        """Proportions of the lesson layout: the code bar below the panels, in view, not in
        the way."""
        win, docks = self.window, self.window.docks
        w, h = max(win.width(), 800), max(win.height(), 500)
        win.resizeDocks([docks["lesson"], docks["values"]], [int(w * 0.36), int(w * 0.64)], _H)
        win.resizeDocks([docks["values"], docks["console"]], [int(h * 0.7), int(h * 0.3)], _V)
        self.sized = True

    def shown(self) -> None:
        """The window is shown: size the docks once (unless a remembered layout was restored)."""
        if self.window.stage.active and not self.sized:  # started in presentation mode
            self.window.stage.size_docks()
            self.sized = True
        elif not self.sized and not self.restored:
            self.default_sizes()

    def present(self, on: bool) -> None:
        """Presentation mode: text 1.6× larger and the docks rearranged for a projector (the
        left panel and one panel on a stage, see :mod:`.docks`); off again restores the docks
        exactly as they were."""
        stage = self.window.stage
        if on and not stage.active:
            normal = self.window.saveState(LAYOUT_VERSION)
            theme.state().apply(scale=theme.PRESENTATION_SCALE)
            stage.enter(normal)
        elif not on and stage.active:
            saved = stage.leave()
            theme.state().apply(scale=1.0)
            settle_layouts()  # the bars at their normal height first, or the docks absorb it
            if saved is not None:
                self.restore_state(saved)
                if saved is side_state("lesson"):
                    self.side_sizes()
                elif saved is default_state():
                    self.default_sizes()
        else:
            theme.state().apply(scale=theme.PRESENTATION_SCALE if on else 1.0)

    # -- bars ----------------------------------------------------------------------------------

    def steady_bars(self) -> None:
        """Menu, tool and status bar as tall in one language as in the other: the Chinese
        face has taller lines, and a bar that grew would take its height from the docks (a
        dock would shrink a little at every switch)."""
        win = self.window
        size = theme.BASE_POINT_SIZE * theme.state().scale
        for bar in (win.menuBar(), win.main_toolbar):
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
        win.status_label.setMinimumHeight(max(
            QtGui.QFontMetrics(fonts.ui_font(size, lang)).height() for lang in i18n.LANGUAGES))
