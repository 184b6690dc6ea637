"""Light and dark themes, and presentation mode (everything larger, for a projector).

One process-wide :class:`ThemeState` holds the current theme and scale; panels read colours
from :func:`current` and re-style themselves when :attr:`ThemeState.changed` fires. Colours
that carry meaning (NaN, +Inf, -Inf, kinds of graph node, relation kinds) are defined here once
so every panel and every screenshot agrees.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets


@dataclass(frozen=True)
class Theme:
    name: str
    window: str
    base: str  # background of views, tables, plots
    alt_base: str
    text: str
    muted: str  # secondary text
    accent: str
    highlight_text: str
    border: str
    nan: str  # NaN cells and markers
    posinf: str
    neginf: str
    error: str
    warning: str
    info: str
    ok: str
    colormap: str  # pyqtgraph colormap for heatmaps
    series: tuple[str, ...]  # distinct colours for values (memory footprints, plot lines)


LIGHT = Theme(
    name="light",
    window="#f4f5f7",
    base="#ffffff",
    alt_base="#f0f2f5",
    text="#1d2330",
    muted="#5f6b7a",
    accent="#2563eb",
    highlight_text="#ffffff",
    border="#c9ced6",
    nan="#d946ef",
    posinf="#f97316",
    neginf="#06b6d4",
    error="#c62828",
    warning="#b26a00",
    info="#1f6feb",
    ok="#2e7d32",
    colormap="viridis",
    series=("#2563eb", "#e4572e", "#17a398", "#f3a712", "#8e44ad", "#c2185b", "#5d6d7e",
            "#3f7d20"),
)

DARK = Theme(
    name="dark",
    window="#1e2127",
    base="#16181d",
    alt_base="#23272f",
    text="#e6e9ef",
    muted="#9aa4b2",
    accent="#5b9cff",
    highlight_text="#0b0d10",
    border="#3a404b",
    nan="#f0abfc",
    posinf="#fdba74",
    neginf="#67e8f9",
    error="#ff6b6b",
    warning="#ffb454",
    info="#6cb6ff",
    ok="#7ee787",
    colormap="viridis",
    series=("#5b9cff", "#ff7b54", "#3dd6c6", "#ffd166", "#c39bff", "#ff6fae", "#a5b1c2",
            "#8bd450"),
)

THEMES = {"light": LIGHT, "dark": DARK}
BASE_POINT_SIZE = 10.0
PRESENTATION_SCALE = 1.6
#: no text the window shows is smaller than this (points), in normal and presentation mode
MIN_POINT_SIZE = 8.0
PRESENTATION_MIN_POINT_SIZE = 14.0


class ThemeState(QtCore.QObject):
    """The current theme and text scale; ``changed`` fires after either changes."""

    changed = QtCore.Signal()

    def __init__(self) -> None:
        super().__init__()
        self.theme: Theme = LIGHT
        self.scale: float = 1.0

    @property
    def presentation(self) -> bool:
        return self.scale > 1.0

    def apply(self, name: str | None = None, scale: float | None = None) -> None:
        """Switch theme and/or scale and re-style the application."""
        if name is not None:
            self.theme = THEMES[name]
        if scale is not None:
            self.scale = float(scale)
        app = QtWidgets.QApplication.instance()
        if isinstance(app, QtWidgets.QApplication):
            style_app(app, self.theme, self.scale)
        pg.setConfigOptions(background=self.theme.base, foreground=self.theme.text,
                            antialias=True)
        self.changed.emit()


_STATE: ThemeState | None = None


def state() -> ThemeState:
    """The process-wide theme state (created on first use, after the QApplication)."""
    global _STATE
    if _STATE is None:
        _STATE = ThemeState()
    return _STATE


def current() -> Theme:
    return state().theme


def min_point_size() -> float:
    """The smallest text size allowed now (points): larger in presentation mode, where it must
    be read from the back of a room."""
    return PRESENTATION_MIN_POINT_SIZE if state().presentation else MIN_POINT_SIZE


def palette_for(theme: Theme) -> QtGui.QPalette:
    p = QtGui.QPalette()
    c = QtGui.QColor
    roles = QtGui.QPalette.ColorRole
    p.setColor(roles.Window, c(theme.window))
    p.setColor(roles.WindowText, c(theme.text))
    p.setColor(roles.Base, c(theme.base))
    p.setColor(roles.AlternateBase, c(theme.alt_base))
    p.setColor(roles.Text, c(theme.text))
    p.setColor(roles.Button, c(theme.window))
    p.setColor(roles.ButtonText, c(theme.text))
    p.setColor(roles.Highlight, c(theme.accent))
    p.setColor(roles.HighlightedText, c(theme.highlight_text))
    p.setColor(roles.ToolTipBase, c(theme.alt_base))
    p.setColor(roles.ToolTipText, c(theme.text))
    p.setColor(roles.PlaceholderText, c(theme.muted))
    p.setColor(roles.Link, c(theme.accent))
    p.setColor(QtGui.QPalette.ColorGroup.Disabled, roles.Text, c(theme.muted))
    p.setColor(QtGui.QPalette.ColorGroup.Disabled, roles.WindowText, c(theme.muted))
    p.setColor(QtGui.QPalette.ColorGroup.Disabled, roles.ButtonText, c(theme.muted))
    return p


class MenuCheckStyle(QtWidgets.QProxyStyle):
    """Fusion, with the box of an unchecked check item in a menu drawn (Fusion draws only the
    check mark of a checked one, so an unchecked "Presentation mode" showed nothing to click
    on); an unchecked choice of a group (a radio item) gets its empty circle."""

    def drawControl(self, element: QtWidgets.QStyle.ControlElement,
                    option: QtWidgets.QStyleOption, painter: QtGui.QPainter,
                    widget: QtWidgets.QWidget | None = None) -> None:
        super().drawControl(element, option, painter, widget)
        if (element != QtWidgets.QStyle.ControlElement.CE_MenuItem
                or not isinstance(option, QtWidgets.QStyleOptionMenuItem)
                or not isinstance(widget, QtWidgets.QMenu)  # a combo box's list draws its
                or option.checked or not option.icon.isNull()):  # items as menu items too
            return
        kind = QtWidgets.QStyleOptionMenuItem.CheckType
        if option.checkType not in (kind.NonExclusive, kind.Exclusive):
            return
        box = unchecked_box(option.rect, option.fontMetrics.height())
        group = (QtGui.QPalette.ColorGroup.Normal
                 if option.state & QtWidgets.QStyle.StateFlag.State_Enabled
                 else QtGui.QPalette.ColorGroup.Disabled)
        colour = option.palette.color(group, QtGui.QPalette.ColorRole.Text)
        colour.setAlphaF(0.75 if group == QtGui.QPalette.ColorGroup.Normal else 0.45)
        painter.save()
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        painter.setPen(QtGui.QPen(colour, 1.2))
        painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        if option.checkType == kind.Exclusive:
            painter.drawEllipse(box)
        else:
            painter.drawRoundedRect(box, 2, 2)
        painter.restore()


def unchecked_box(item: QtCore.QRect, text_height: int) -> QtCore.QRectF:
    """Where :class:`MenuCheckStyle` draws an unchecked item's box: where Fusion draws the
    check mark (in the item's left margin), as high as the text's x-height and a little more."""
    side = max(9.0, round(text_height * 0.62))
    left = item.left() + 6.5
    top = item.center().y() - side / 2 + 1
    return QtCore.QRectF(left, top, side, side)


_APP_STYLE: MenuCheckStyle | None = None


def style_app(app: QtWidgets.QApplication, theme: Theme, scale: float = 1.0) -> None:
    """Apply the style, palette and font (the language's bundled face at the scale's size) to
    the whole application.

    No application style sheet: with one set, Qt stops passing a new application font on to
    existing widgets (a language switch would keep the old face) and re-polishes every widget
    on each change. Tool tips take their colours from the palette; dock titles are our own
    widgets (:class:`.docks.DockTitleBar`).
    """
    from . import fonts, i18n

    global _APP_STYLE
    if not isinstance(app.style(), MenuCheckStyle):
        # Fusion: the same look on every platform, and in screenshots
        _APP_STYLE = MenuCheckStyle("Fusion")
        app.setStyle(_APP_STYLE)
    if app.styleSheet():
        app.setStyleSheet("")
    app.setPalette(palette_for(theme))
    fonts.apply(app, i18n.current(), BASE_POINT_SIZE * scale)
    _refit_combo_boxes(app)


def _refit_combo_boxes(app: QtWidgets.QApplication) -> None:
    """Let every combo box shrink to the new font: on a font change QComboBox forgets its size
    hint but keeps its cached minimum size hint (Qt 6), so after presentation mode the boxes
    stayed projector-sized. A style change event makes it forget both."""
    style_change = QtCore.QEvent(QtCore.QEvent.Type.StyleChange)
    for widget in app.allWidgets():
        if isinstance(widget, QtWidgets.QComboBox):
            QtCore.QCoreApplication.sendEvent(widget, style_change)
            widget.updateGeometry()


class _MonoFont(QtCore.QObject):
    """Keeps its parent widget in the code font at the current text size (presentation mode
    included); a child object, so it goes when the widget goes."""

    def __init__(self, widget: QtWidgets.QWidget, factor: float) -> None:
        super().__init__(widget)
        self._widget = widget
        self._factor = factor
        state().changed.connect(self.apply)
        self.apply()

    @QtCore.Slot()
    def apply(self) -> None:
        from . import fonts

        self._widget.setFont(fonts.mono_font(BASE_POINT_SIZE * state().scale * self._factor))


def use_mono_font(widget: QtWidgets.QWidget, factor: float = 1.0) -> None:
    """Draw ``widget`` in the bundled code font, ``factor`` × the interface's text size,
    following presentation mode."""
    _MonoFont(widget, factor)
