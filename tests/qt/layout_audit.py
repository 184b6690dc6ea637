"""A layout audit of a live Qt window: text that is elided or clipped, widgets cut off by their
parent, overlapping layout siblings, text below a minimum point size, and where the docks are.

    problems = audit(win, min_point_size=14.0)   # one readable line per defect, [] if none
    found = find_problems(win, min_point_size=14.0)  # the same as Problem objects
    states = dock_states(win)                    # {dock name: DockState(visible, floating, area)}
    groups = dock_groups(win)                    # [(dock names tabbed together, the one in front)]
    bars = toolbar_states(win)                   # {tool bar name: BarState(visible, area, actions)}

Every check measures what Qt itself would draw: the rectangle the style draws a label into
(a button's contents, a combo box's edit field, a check box's text area, a line edit's text
rectangle, a dock's title text), the text Qt would paint (a tab's or header's elided text, a
cell laid out as QStyledItemDelegate lays it out), the size Qt says a text needs (a wrapped
label's heightForWidth), the font Qt actually matched (QFontInfo; the glyph runs of rich text).
Text is "clipped" when part of its ink (QFontMetricsF.tightBoundingRect, placed as
QPainter.drawText places it) falls outside the rectangle it is drawn into, by more than
:data:`CUT` pixels; text is "elided" when Qt draws it shortened with "…". A problem names the
widget (its class, objectName, the attribute of its panel that holds it), the dock it sits in
(by the dock's title) and the text concerned.

Only what the user can see is audited: widgets visible in the window (``isVisibleTo``), not in a
hidden tab page (a ``QTabWidget``/``QStackedWidget`` page, or a dock behind another dock's tab,
which Qt moves off screen instead of hiding), not parked by Qt wholly at negative coordinates
(an unused dock tab bar), not in a collapsed ``QSplitter`` part. The
exclusions, each for a reason, are listed at :data:`EXCLUSIONS` and marked in the code.

A widget that paints a text other than its Qt text (a combo box that shows "Step 3 of 6" instead
of its current item) may say so with a ``shown_text()`` method; the audit then checks that text.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

from PySide6 import QtCore, QtGui, QtWidgets

QStyle = QtWidgets.QStyle
Qt = QtCore.Qt

# Kinds of problem (Problem.kind)
ELIDED = "elided text"  # Qt draws the text shortened with "…"
CLIPPED_TEXT = "clipped text"  # the text is wider or taller than where it is drawn
HIDDEN_TAB = "hidden tab"  # a tab outside its bar, or behind the bar's scroll buttons
OVERFLOW = "overflow"  # a menu or tool bar item pushed into the "»" extension
CLIPPED_WIDGET = "clipped widget"  # a widget extends outside its parent
OVERLAP = "overlapping widgets"  # two widgets of one layout on top of each other
SMALL_TEXT = "small text"  # text below the minimum point size
KINDS = (ELIDED, CLIPPED_TEXT, HIDDEN_TAB, OVERFLOW, CLIPPED_WIDGET, OVERLAP, SMALL_TEXT)

#: What the audit leaves out, and why (also marked in the code with "EXCLUSION").
EXCLUSIONS = {
    "scrolled content": "children of a scroll area's viewport (the content of a QScrollArea, an "
    "item view's index widgets and editors) may extend outside the viewport: they scroll by "
    "design. Their texts are still checked.",
    "item view and graphics view internals": "the viewport subtree of a QAbstractItemView or "
    "QGraphicsView (pyqtgraph's plots are QGraphicsViews) holds no text widgets of the window's "
    "own; what they draw are items, not widgets. The view's font and its items' FontRole are "
    "checked; the texts a delegate or a QGraphicsItem paints are not.",
    "Qt's own buttons": "a tab bar's scroll arrows and close buttons, the dock's own float and "
    "close buttons (QDockWidgetTitleButton), the menu/tool bar extension buttons: icons, no text. "
    "A shown scroll arrow or extension button is reported by the tab/menu/tool bar check.",
    "text-free widgets": "QScrollBar, QSizeGrip, QSplitterHandle, QRubberBand, frames and plain "
    "containers show no text; they are only checked for clipping and overlap.",
    "stacked layouts": "the pages of a QStackedLayout lie on top of each other by design; only "
    "the shown one is visible, so they are not checked for overlap.",
    "typed text": "an editable QLineEdit's own text may be longer than the field (it scrolls); "
    "only read-only line edits, spin boxes and placeholders must fit.",
    "item view cells": "cells are measured as QStyledItemDelegate draws them (the first 30 rows "
    "× 10 columns that are in view); a cell of a delegate that paints by itself (overrides "
    "paint) is not.",
    "windows": "menus, tool tips and dialogs are separate windows and not shown; only their "
    "fonts are checked (menus of the menu bar). Floating docks are audited.",
    "parked widgets": "a widget wholly at negative coordinates is where Qt parks what it does "
    "not show (a dock behind another dock's tab, an unused dock tab bar): not visible, not "
    "audited. A widget pushed out to the right or bottom is reported as clipped.",
    "collapsed splitter parts": "a splitter part collapsed to zero size is not shown.",
    "custom painting": "what a widget paints by itself is not measured: QGraphicsItem texts "
    "(the graph's nodes, the memory canvas, pyqtgraph's axes), delegates' badges. A widget that "
    "paints another text than its Qt text can name it with shown_text(). Qt's own dock title "
    "keeps the font the dock was made with, so its size is measured from its pixels.",
    "tolerances": "ink cut by at most CUT (1 px: glyph bounds are whole pixels rounded "
    "outwards); a font up to half a pixel under the minimum (fonts are matched at whole pixel "
    "sizes); siblings overlapping by 1 px (a shared border); a wrapped label's widest word "
    "1 px wider than the label.",
    "vertical slack": "a line of text may lose the empty part of its line box (above the "
    "tallest glyph, below the lowest): only ink that is cut is reported. Editable fields must "
    "also fit 'Hgjy' (spin boxes: digits), since anything may be typed; combo boxes every item.",
}

SCROLL_BUTTONS = ("ScrollLeftButton", "ScrollRightButton")  # QTabBar's arrows
EXTENSION_BUTTONS = ("qt_toolbar_ext_button", "qt_menubar_ext_button")


@dataclass(frozen=True)
class Problem:
    """One defect: ``kind`` (one of :data:`KINDS`), the widget, where it is, the text concerned
    and the measurements."""

    kind: str
    widget: str
    where: str
    text: str
    detail: str

    @property
    def key(self) -> tuple[str, str, str, str]:
        """What identifies the defect across window sizes (the measurements may differ)."""
        return (self.kind, self.where, self.widget, self.text)

    def __str__(self) -> str:
        text = f" {self.text!r}" if self.text else ""
        return f"{self.kind}: {self.widget}{text} in {self.where}: {self.detail}"


class DockState(NamedTuple):
    visible: bool  # not hidden (a dock behind another dock's tab is visible)
    floating: bool
    area: str  # "Left", "Right", "Top", "Bottom" or "None"


# -- docks ---------------------------------------------------------------------------------------


def _docks(win: QtWidgets.QMainWindow) -> list[QtWidgets.QDockWidget]:
    return [d for d in win.findChildren(QtWidgets.QDockWidget) if d.parent() is win]


def _dock_name(dock: QtWidgets.QDockWidget) -> str:
    return dock.objectName() or dock.windowTitle()


def dock_states(win: QtWidgets.QMainWindow) -> dict[str, DockState]:
    """Every dock of ``win`` by objectName (the title if it has none): shown or hidden, floating,
    and its dock area."""
    out = {}
    for dock in _docks(win):
        area = str(win.dockWidgetArea(dock).name).replace("DockWidgetArea", "") or "None"
        out[_dock_name(dock)] = DockState(not dock.isHidden(), dock.isFloating(),
                                          "None" if area == "No" else area)
    return out


class BarState(NamedTuple):
    visible: bool  # not hidden
    area: str  # "Top", "Bottom", "Left", "Right" or "None"
    actions: int  # how many visible actions it holds


def toolbar_states(win: QtWidgets.QMainWindow) -> dict[str, BarState]:
    """Every tool bar of ``win`` by objectName (the title if it has none)."""
    out = {}
    for bar in win.findChildren(QtWidgets.QToolBar):
        if bar.parentWidget() is not win:
            continue
        area = str(win.toolBarArea(bar).name).replace("ToolBarArea", "") or "None"
        name = bar.objectName() or bar.windowTitle()
        out[name] = BarState(not bar.isHidden(), "None" if area == "No" else area,
                             sum(1 for a in bar.actions() if a.isVisible()))
    return out


def dock_in_front(dock: QtWidgets.QDockWidget) -> bool:
    """Whether a shown dock is on screen: Qt moves a dock that is behind another dock's tab off
    the window (to negative coordinates) instead of hiding it."""
    win = dock.parentWidget()
    if dock.isHidden() or win is None:
        return False
    if dock.isFloating():
        return True
    return win.rect().intersects(dock.geometry())


def dock_groups(win: QtWidgets.QMainWindow) -> list[tuple[tuple[str, ...], str]]:
    """The tab groups of shown, docked docks: (the names in the group, sorted; the one in
    front), sorted. A dock alone is a group of one."""
    seen: set[str] = set()
    out = []
    for dock in _docks(win):
        if dock.isHidden() or dock.isFloating() or _dock_name(dock) in seen:
            continue
        group = [dock, *(d for d in win.tabifiedDockWidgets(dock) if not d.isHidden())]
        names = tuple(sorted(_dock_name(d) for d in group))
        seen.update(names)
        front = [_dock_name(d) for d in group if dock_in_front(d)]
        out.append((names, ",".join(sorted(front))))
    return sorted(out)


# -- settling and walking ------------------------------------------------------------------------


def settle(rounds: int = 3) -> None:
    """Let posted layout requests, polish and resize events and deletions run (no sleeping)."""
    for _ in range(rounds):
        QtCore.QCoreApplication.sendPostedEvents()
        QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
        QtCore.QCoreApplication.processEvents()


def _is_floating_dock(w: QtWidgets.QWidget) -> bool:
    return isinstance(w, QtWidgets.QDockWidget) and w.isFloating()


def _collapsed_in_splitter(w: QtWidgets.QWidget) -> bool:
    parent = w.parentWidget()
    if not isinstance(parent, QtWidgets.QSplitter) or isinstance(w, QtWidgets.QSplitterHandle):
        return False
    if parent.orientation() == Qt.Orientation.Horizontal:
        return w.width() <= 0
    return w.height() <= 0


def _behind_a_tab(w: QtWidgets.QWidget) -> bool:
    return (isinstance(w, QtWidgets.QDockWidget) and isinstance(w.parentWidget(),
            QtWidgets.QMainWindow) and not dock_in_front(w))


def _parked(w: QtWidgets.QWidget) -> bool:
    """Qt parks what it does not show at negative coordinates, wholly outside the parent: a
    dock behind another dock's tab, a main window's unused dock tab bar."""
    g = w.geometry()
    return not w.isWindow() and (g.right() < 0 or g.bottom() < 0)


def shown_widgets(win: QtWidgets.QWidget,
                  root: QtWidgets.QWidget | None = None) -> list[QtWidgets.QWidget]:
    """The widgets of ``win`` (or of ``root`` inside it) that the user can see, parents first:
    shown, not in a hidden tab page (hidden by Qt, or a dock behind another dock's tab, which
    Qt moves off screen), not in a collapsed splitter part, not a separate window other than a
    floating dock."""
    start = root if root is not None else win
    out: list[QtWidgets.QWidget] = []
    stack = [start]
    while stack:
        w = stack.pop()
        out.append(w)
        kids = [c for c in w.children() if isinstance(c, QtWidgets.QWidget)]
        for child in reversed(kids):
            if child.isHidden():
                continue
            if child.isWindow() and not _is_floating_dock(child):
                continue  # EXCLUSION: menus, tool tips, dialogs (see EXCLUSIONS["windows"])
            if _behind_a_tab(child) or _parked(child) or _collapsed_in_splitter(child):
                continue
            stack.append(child)
    return out


# -- naming --------------------------------------------------------------------------------------


def _qt_class(w: QtCore.QObject) -> str:
    for cls in type(w).__mro__:
        if cls.__module__.startswith("PySide6"):
            return cls.__name__
    return type(w).__name__


def _attribute(w: QtWidgets.QWidget) -> str:
    """``Panel.attribute`` of the nearest ancestor that keeps ``w`` in an attribute."""
    anc = w.parent()
    for _ in range(10):
        if anc is None:
            break
        for key, value in getattr(anc, "__dict__", {}).items():
            if value is w:
                return f"{type(anc).__name__}.{key}"
        anc = anc.parent()
    return ""


def describe(w: QtWidgets.QWidget) -> str:
    """``StepCombo(QComboBox)#name [LessonPanel.step_combo]``."""
    cls = type(w).__name__
    qt = _qt_class(w)
    if w.metaObject().className() not in (cls, qt):
        qt = w.metaObject().className()  # a Qt-private class, e.g. QDockWidgetTitleButton
    name = cls if cls == qt else f"{cls}({qt})"
    if w.objectName():
        name += f"#{w.objectName()}"
    attr = _attribute(w)
    if attr:
        name += f" [{attr}]"
    if isinstance(w, QtWidgets.QTabBar) and not attr:
        tabs = "|".join(w.tabText(i) for i in range(w.count()))
        name += f" [tabs {tabs}]"
    return name


def where(w: QtWidgets.QWidget) -> str:
    """The dock (by title) ``w`` sits in, or the part of the window."""
    p: QtWidgets.QWidget | None = w
    while p is not None:
        if isinstance(p, QtWidgets.QDockWidget):
            panel = p.widget()
            inside = f" ({type(panel).__name__})" if panel is not None else ""
            return f'dock "{p.windowTitle()}"{inside}'
        if isinstance(p, QtWidgets.QToolBar):
            return f'toolbar "{p.objectName() or p.windowTitle()}"'
        if isinstance(p, QtWidgets.QMenuBar):
            return "menu bar"
        if isinstance(p, QtWidgets.QMenu):
            return f'menu "{_no_mnemonic(p.title())}"'
        if isinstance(p, QtWidgets.QStatusBar):
            return "status bar"
        if p.isWindow():
            return f'window "{p.windowTitle()}"' if p.windowTitle() else f"window {describe(p)}"
        p = p.parentWidget()
    return "no window"


def _plain(text: str, limit: int = 70) -> str:
    if QtGui.Qt.mightBeRichText(text):
        text = QtGui.QTextDocumentFragment.fromHtml(text).toPlainText()
    text = " ".join(text.split())
    # shortened with "...", not "…": an ellipsis in a report means Qt elided the text
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _no_mnemonic(text: str) -> str:
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


#: a cut of the text's ink up to this many pixels is not reported: glyph ink bounds are whole
#: pixels rounded outwards (QFontMetricsF.tightBoundingRect), so they overstate the ink by up to
#: a pixel; measured, "factory" at 16 pt inks 69 columns where its bound says 70
CUT = 1.0


def _lines(text: str) -> list[str]:
    return _no_mnemonic(text).split("\n")


def ink_slack(font: QtGui.QFont, text: str) -> tuple[float, float]:
    """How far the ink of ``text`` stays inside its line box: (above, below) in pixels."""
    fm = QtGui.QFontMetricsF(font)
    tops = bottoms = 0.0
    for line in _lines(text):
        if line.strip():
            tight = fm.tightBoundingRect(line)
            tops, bottoms = min(tops, tight.top()), max(bottoms, tight.bottom())
    return fm.ascent() + tops, fm.descent() - bottoms


def ink_cut(font: QtGui.QFont, text: str, width: float, height: float,
            align: Qt.AlignmentFlag, *, probe: str = "") -> tuple[float, float]:
    """How many pixels of ``text``'s ink fall outside a ``width`` × ``height`` rectangle when
    Qt draws it there with ``align`` (as ``QPainter.drawText`` lays it out: one line box of the
    font's height per line, each line aligned on its advance width): (sideways, up/down).
    ``probe`` adds glyphs that must fit in height too (what may be typed or chosen)."""
    fm = QtGui.QFontMetricsF(font)
    lines = _lines(text)
    step = fm.height() + fm.leading()
    box_h = len(lines) * step - fm.leading()
    if align & Qt.AlignmentFlag.AlignTop:
        y0 = 0.0
    elif align & Qt.AlignmentFlag.AlignBottom:
        y0 = height - box_h
    else:
        y0 = (height - box_h) / 2
    cut_x = cut_y = 0.0
    probe_rect = fm.tightBoundingRect(probe) if probe.strip() else None
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        adv = fm.horizontalAdvance(line)
        if align & Qt.AlignmentFlag.AlignRight:
            x0 = width - adv
        elif align & Qt.AlignmentFlag.AlignHCenter:
            x0 = (width - adv) / 2
        else:
            x0 = 0.0
        tight = fm.tightBoundingRect(line)
        base = y0 + i * step + fm.ascent()
        top, bottom = tight.top(), tight.bottom()
        if probe_rect is not None:
            top, bottom = min(top, probe_rect.top()), max(bottom, probe_rect.bottom())
        cut_x = max(cut_x, -(x0 + tight.left()), x0 + tight.right() - width)
        cut_y = max(cut_y, -(base + top), base + bottom - height)
    return cut_x, cut_y


def _distance(a: QtGui.QColor, b: QtGui.QColor) -> int:
    return abs(a.red() - b.red()) + abs(a.green() - b.green()) + abs(a.blue() - b.blue())


def _common_colour(img: QtGui.QImage) -> QtGui.QColor:
    counts: dict[int, int] = {}
    for y in range(img.height()):
        for x in range(img.width()):
            rgb = img.pixel(x, y)
            counts[rgb] = counts.get(rgb, 0) + 1
    return QtGui.QColor.fromRgb(max(counts, key=counts.__getitem__))


def _ink_height(img: QtGui.QImage, bg: QtGui.QColor, limit: float) -> int:
    """How many pixel rows, first to last, hold pixels that differ from ``bg`` by more than
    ``limit``."""
    rows = [y for y in range(img.height())
            if any(_distance(img.pixelColor(x, y), bg) > limit for x in range(img.width()))]
    return rows[-1] - rows[0] + 1 if rows else 0


# -- the audit -----------------------------------------------------------------------------------


class _Audit:
    def __init__(self, win: QtWidgets.QWidget, min_point_size: float) -> None:
        self.win = win
        self.min_pt = min_point_size
        self.problems: list[Problem] = []
        self.shown: set[int] = set()

    def add(self, kind: str, w: QtWidgets.QWidget, text: str, detail: str) -> None:
        self.problems.append(Problem(kind, describe(w), where(w), _plain(text), detail))

    # fonts ------------------------------------------------------------------------------------

    def font_pt(self, font: QtGui.QFont) -> float:
        return QtGui.QFontInfo(font).pointSizeF()

    @staticmethod
    def rounding(w: QtWidgets.QWidget) -> float:
        """Half a pixel in points: fonts are matched at whole pixel sizes, so a font asked for
        at exactly the minimum may come out up to half a pixel smaller."""
        return 0.5 * 72.0 / (w.logicalDpiY() or 96)

    def check_font(self, w: QtWidgets.QWidget, text: str, font: QtGui.QFont | None = None,
                   what: str = "text") -> None:
        pt = self.font_pt(font if font is not None else w.font())
        if pt < self.min_pt - self.rounding(w):
            self.add(SMALL_TEXT, w, text,
                     f"{what} is {pt:.1f} pt, below the {self.min_pt:g} pt minimum")

    def check_document(self, w: QtWidgets.QWidget, doc: QtGui.QTextDocument,
                       blocks: Iterable[QtGui.QTextBlock]) -> None:
        """The smallest font text is really drawn with (glyph runs), in ``blocks``."""
        dpi = w.logicalDpiY() or 96
        smallest: tuple[float, str] | None = None
        for block in blocks:
            layout = block.layout()
            if layout is None or layout.lineCount() == 0:
                continue
            runs = (run for i in range(layout.lineCount())
                    for run in layout.lineAt(i).glyphRuns())
            for run in runs:
                if not run.glyphIndexes():
                    continue
                pt = run.rawFont().pixelSize() * 72.0 / dpi
                if smallest is None or pt < smallest[0]:
                    smallest = (pt, block.text())
        if smallest is not None and smallest[0] < self.min_pt - self.rounding(w):
            self.add(SMALL_TEXT, w, smallest[1],
                     f"text drawn at {smallest[0]:.1f} pt, below the {self.min_pt:g} pt minimum")

    # widgets ----------------------------------------------------------------------------------

    def run(self, root: QtWidgets.QWidget | None) -> list[Problem]:
        widgets = shown_widgets(self.win, root)
        self.shown = {id(w) for w in widgets}
        internal = self.internal_ids(widgets)
        for w in widgets:
            if id(w) in internal:
                continue
            self.check_widget(w)
            self.check_clipped(w)
            if isinstance(w.layout(), QtWidgets.QLayout):
                self.check_overlap(w)
        return self.problems

    def internal_ids(self, widgets: list[QtWidgets.QWidget]) -> set[int]:
        """EXCLUSION "item view and graphics view internals": the viewport subtrees of item
        views and graphics views (pyqtgraph included)."""
        out: set[int] = set()
        for w in widgets:
            if isinstance(w, QtWidgets.QAbstractItemView | QtWidgets.QGraphicsView):
                vp = w.viewport()
                out.add(id(vp))
                out.update(id(c) for c in vp.findChildren(QtWidgets.QWidget))
        return out

    def check_widget(self, w: QtWidgets.QWidget) -> None:
        if isinstance(w, QtWidgets.QLabel):
            self.check_label(w)
        elif isinstance(w, QtWidgets.QAbstractButton):
            self.check_button(w)
        elif isinstance(w, QtWidgets.QComboBox):
            self.check_combo(w)
        elif isinstance(w, QtWidgets.QLineEdit):
            self.check_line_edit(w)
        elif isinstance(w, QtWidgets.QTabBar):
            self.check_tab_bar(w)
        elif isinstance(w, QtWidgets.QHeaderView):
            self.check_header(w)
        elif isinstance(w, QtWidgets.QAbstractItemView):
            self.check_item_view(w)
        elif isinstance(w, QtWidgets.QTextEdit | QtWidgets.QPlainTextEdit):
            self.check_text_edit(w)
        elif isinstance(w, QtWidgets.QDockWidget):
            self.check_dock(w)
        elif isinstance(w, QtWidgets.QMenuBar):
            self.check_menu_bar(w)
        elif isinstance(w, QtWidgets.QToolBar):
            self.check_tool_bar(w)
        elif isinstance(w, QtWidgets.QGroupBox):
            self.check_group_box(w)
        elif isinstance(w, QtWidgets.QProgressBar):
            self.check_progress(w)
        elif isinstance(w, QtWidgets.QStatusBar) and w.currentMessage():
            self.check_font(w, w.currentMessage())
        if type(w).__name__ == "PanelFrame":
            self.check_panel_frame(w)

    def check_panel_frame(self, frame: QtWidgets.QWidget) -> None:
        """A dock's PanelFrame may scroll a panel vertically (a short dock), never sideways: a
        panel wider than its dock shows only part of its controls (its buttons are cut off at
        the dock's edge until one scrolls)."""
        assert isinstance(frame, QtWidgets.QScrollArea)
        bar = frame.horizontalScrollBar()
        if bar.isVisible() and bar.maximum() > 0:
            panel = frame.widget()
            self.add(CLIPPED_WIDGET, frame, type(panel).__name__ if panel else "",
                     f"the panel needs {bar.maximum()} px more width than its dock gives it "
                     f"({frame.viewport().width()} px): it scrolls sideways")

    # labels -----------------------------------------------------------------------------------

    def text_cut(self, w: QtWidgets.QWidget, text: str, rect: QtCore.QRect | QtCore.QRectF,
                 align: Qt.AlignmentFlag, *, what: str, font: QtGui.QFont | None = None,
                 probe: str = "", horizontal: bool = True) -> None:
        """Report ``text`` if Qt, drawing it into ``rect`` of ``w`` with ``align``, puts any of
        its ink outside ``rect`` (see :func:`ink_cut`)."""
        cut_x, cut_y = ink_cut(font or w.font(), text, rect.width(), rect.height(), align,
                               probe=probe)
        fm = QtGui.QFontMetrics(font or w.font())
        shown = _no_mnemonic(text)
        if horizontal and cut_x > CUT:
            need = max(fm.horizontalAdvance(line) for line in shown.split("\n"))
            self.add(CLIPPED_TEXT, w, text,
                     f"{cut_x:.0f} px of the text cut off at the side: it needs {need} px, "
                     f"{what} has {rect.width():.0f} px ({w.width()}×{w.height()})")
        if cut_y > CUT:
            lines = shown.count("\n") + 1
            self.add(CLIPPED_TEXT, w, text,
                     f"{cut_y:.0f} px of the text cut off at the top or bottom: {lines} line(s) "
                     f"of {fm.height()} px, {what} has {rect.height():.0f} px "
                     f"({w.width()}×{w.height()})")

    def check_label(self, label: QtWidgets.QLabel) -> None:
        pix = label.pixmap()
        if (pix is not None and not pix.isNull()) or label.movie() is not None:
            return
        text = label.text()
        if not text.strip():
            return
        self.check_font(label, text)
        # a text the application shortened itself, the whole of it in the tool tip
        stem = _plain(text, 100_000).rstrip(" .…")
        tip = _plain(label.toolTip(), 100_000)
        if (_plain(text, 100_000).endswith(("…", "...")) and len(stem) >= 3
                and tip.startswith(stem) and len(tip) > len(stem) + 1):
            self.add(ELIDED, label, text,
                     f"the application shortened it to fit; the whole text, {_plain(tip)!r}, "
                     f"is only in the tool tip")
        rich = label.textFormat() == Qt.TextFormat.RichText or (
            label.textFormat() == Qt.TextFormat.AutoText and QtGui.Qt.mightBeRichText(text))
        if rich and re.search(r"font-size|<small|<font[^>]*size|<sub|<sup", text, re.I):
            doc = QtGui.QTextDocument()
            doc.setDefaultFont(label.font())
            doc.setHtml(text)
            doc.setTextWidth(max(label.contentsRect().width(), 1))
            block = doc.begin()
            blocks = []
            while block.isValid():
                blocks.append(block)
                block = block.next()
            self.check_document(label, doc, blocks)
        size = label.size()
        if rich or label.wordWrap():
            # Qt's own measure: with word wrap, heightForWidth is the height the text needs at
            # this width and minimumSizeHint's width the widest word; rich text is laid out by a
            # QTextDocument, whose size is sizeHint. Allow the ink's slack of the line box.
            slack_top, slack_bottom = ink_slack(label.font(), _plain(text, 10_000))
            if label.wordWrap():
                need_w = QtWidgets.QLabel.minimumSizeHint(label).width()
                need_h = QtWidgets.QLabel.heightForWidth(label, size.width())
            else:
                need = QtWidgets.QLabel.sizeHint(label)
                need_w, need_h = need.width(), need.height()
            if need_w - size.width() > 1:
                self.add(CLIPPED_TEXT, label, text,
                         f"{'a word' if label.wordWrap() else 'the text'} needs {need_w} px, "
                         f"the label is {size.width()} px wide")
            over = need_h - size.height()
            valign = label.alignment() & Qt.AlignmentFlag.AlignVertical_Mask
            if valign == Qt.AlignmentFlag.AlignTop:
                cut = over - slack_bottom
            elif valign == Qt.AlignmentFlag.AlignBottom:
                cut = over - slack_top
            else:
                cut = over / 2 - min(slack_top, slack_bottom)
            if cut > CUT:
                self.add(CLIPPED_TEXT, label, text,
                         f"the {'wrapped ' if label.wordWrap() else ''}text needs {need_h} px, "
                         f"the label is {size.height()} px high (width {size.width()}): "
                         f"{cut:.0f} px of it cut off")
            return
        # plain text: QLabel draws it with style.drawItemText into the contents rectangle less
        # margin and indent
        rect = label.contentsRect().adjusted(label.margin(), label.margin(), -label.margin(),
                                             -label.margin())
        indent = label.indent()
        if indent < 0 and label.frameWidth() > 0:
            indent = label.fontMetrics().horizontalAdvance("x") // 2
        align = label.alignment()
        if indent > 0:
            if align & Qt.AlignmentFlag.AlignLeft:
                rect.setLeft(rect.left() + indent)
            elif align & Qt.AlignmentFlag.AlignRight:
                rect.setRight(rect.right() - indent)
            elif align & Qt.AlignmentFlag.AlignTop:
                rect.setTop(rect.top() + indent)
            elif align & Qt.AlignmentFlag.AlignBottom:
                rect.setBottom(rect.bottom() - indent)
        # without a buddy, "&" is shown as written
        drawn = text.replace("&", "&&") if label.buddy() is None else text
        self.text_cut(label, drawn, rect, align, what="the label")

    # buttons ----------------------------------------------------------------------------------

    def button_shows_text(self, b: QtWidgets.QAbstractButton) -> bool:
        if not b.text():
            return False
        if isinstance(b, QtWidgets.QToolButton):
            style = b.toolButtonStyle()
            if style == Qt.ToolButtonStyle.ToolButtonFollowStyle:
                style = Qt.ToolButtonStyle(b.style().styleHint(
                    QStyle.StyleHint.SH_ToolButtonStyle, None, b))
            if style == Qt.ToolButtonStyle.ToolButtonIconOnly:
                return b.icon().isNull() and b.arrowType() == Qt.ArrowType.NoArrow
        return True

    def check_button(self, b: QtWidgets.QAbstractButton) -> None:
        # EXCLUSION "Qt's own buttons": tab bar arrows/close buttons, the dock's own title
        # buttons, the extension buttons (reported by the tab/menu/tool bar checks).
        parent = b.parentWidget()
        if (isinstance(parent, QtWidgets.QTabBar) or b.objectName() in EXTENSION_BUTTONS
                or b.metaObject().className() in ("QDockWidgetTitleButton",
                                                  "QToolBarExtension")):
            return
        if not self.button_shows_text(b):
            return
        text = b.text()
        self.check_font(b, text)
        style = b.style()
        se = QStyle.SubElement
        center = Qt.AlignmentFlag.AlignCenter
        # The rectangle the style draws the label into (inside the button's frame): the text's
        # ink must lie in it, or it is cut off or drawn over the frame.
        if isinstance(b, QtWidgets.QPushButton):
            opt = QtWidgets.QStyleOptionButton()
            b.initStyleOption(opt)
            rect = style.subElementRect(se.SE_PushButtonContents, opt, b)
            if b.menu() is not None:
                rect.setWidth(rect.width() - style.pixelMetric(
                    QStyle.PixelMetric.PM_MenuButtonIndicator, opt, b))
            if not b.icon().isNull():
                rect.setWidth(rect.width() - opt.iconSize.width() - 4)
            self.text_cut(b, text, rect, center, what="the button's label area")
        elif isinstance(b, QtWidgets.QCheckBox | QtWidgets.QRadioButton):
            opt = QtWidgets.QStyleOptionButton()
            b.initStyleOption(opt)
            element = (se.SE_CheckBoxContents if isinstance(b, QtWidgets.QCheckBox)
                       else se.SE_RadioButtonContents)
            rect = style.subElementRect(element, opt, b)
            if not b.icon().isNull():
                rect.setLeft(rect.left() + opt.iconSize.width() + 4)
            self.text_cut(b, text, rect, Qt.AlignmentFlag.AlignLeft
                          | Qt.AlignmentFlag.AlignVCenter, what="the text area")
        elif isinstance(b, QtWidgets.QToolButton):
            topt = QtWidgets.QStyleOptionToolButton()
            b.initStyleOption(topt)
            rect = style.subControlRect(QStyle.ComplexControl.CC_ToolButton, topt,
                                        QStyle.SubControl.SC_ToolButton, b)
            fw = style.pixelMetric(QStyle.PixelMetric.PM_DefaultFrameWidth, topt, b)
            rect = rect.adjusted(fw, fw, -fw, -fw)
            tstyle = topt.toolButtonStyle
            if not b.icon().isNull() and tstyle == Qt.ToolButtonStyle.ToolButtonTextBesideIcon:
                rect.setLeft(rect.left() + topt.iconSize.width() + 4)
            elif not b.icon().isNull() and tstyle == Qt.ToolButtonStyle.ToolButtonTextUnderIcon:
                rect.setTop(rect.top() + topt.iconSize.height() + 3)
            self.text_cut(b, text, rect, center, what="the button's label area")
        else:  # a button of the application's own: it says what it needs
            hint = b.minimumSizeHint()
            if hint.width() > b.width() or hint.height() > b.height():
                self.add(CLIPPED_TEXT, b, text,
                         f"the button needs {hint.width()}×{hint.height()} px, it is "
                         f"{b.width()}×{b.height()} px")

    # combo boxes and line edits ---------------------------------------------------------------

    def check_combo(self, combo: QtWidgets.QComboBox) -> None:
        shown = getattr(combo, "shown_text", None)
        text = shown() if callable(shown) else combo.currentText()
        self.check_font(combo, text or combo.placeholderText() or " ")
        if combo.isEditable():
            return  # the line edit inside is checked as a line edit
        opt = QtWidgets.QStyleOptionComboBox()
        combo.initStyleOption(opt)
        rect = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                            QStyle.SubControl.SC_ComboBoxEditField, combo)
        rect = rect.adjusted(1, 0, -1, 0)  # CE_ComboBoxLabel draws 1 px in from each side
        if not combo.itemIcon(combo.currentIndex()).isNull():
            rect.setLeft(rect.left() + combo.iconSize().width() + 4)
        # every item can be the one shown: all must fit in height
        items = "".join(combo.itemText(i) for i in range(min(combo.count(), 60)))
        align = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        if text:
            self.text_cut(combo, text, rect, align, what="the box's text field",
                          probe=items)
        elif items:
            self.text_cut(combo, items, rect, align, what="the box's text field",
                          horizontal=False)

    def check_line_edit(self, le: QtWidgets.QLineEdit) -> None:
        text, placeholder = le.text(), le.placeholderText()
        self.check_font(le, text or placeholder or " ")
        opt = QtWidgets.QStyleOptionFrame()
        le.initStyleOption(opt)
        rect = le.style().subElementRect(QStyle.SubElement.SE_LineEditContents, opt, le)
        rect = rect.marginsRemoved(le.textMargins())
        for child in le.children():  # the icons of addAction (a clear button...) take room
            if isinstance(child, QtWidgets.QWidget) and not child.isHidden():
                g = child.geometry()
                if g.center().x() < rect.center().x():
                    rect.setLeft(max(rect.left(), g.right() + 1))
                else:
                    rect.setRight(min(rect.right(), g.left() - 1))
        rect = rect.adjusted(2, 0, -2, 0)  # QLineEdit draws 2 px in from each side
        parent = le.parentWidget()
        spin = isinstance(parent, QtWidgets.QAbstractSpinBox)
        owner = parent if spin and parent is not None else le
        fm = le.fontMetrics()
        align = (le.alignment() & Qt.AlignmentFlag.AlignHorizontal_Mask) | (
            Qt.AlignmentFlag.AlignVCenter)
        # what can be typed must fit in height; EXCLUSION "typed text": an editable field's own
        # text scrolls sideways, so only read-only and spin box texts must fit in width
        probe = "" if le.isReadOnly() else "0123456789" if spin else "Hgjy"
        shown = text or placeholder or " "
        self.text_cut(owner, shown, rect, align, probe=probe, what="the field",
                      horizontal=bool(text) and (le.isReadOnly() or spin), font=le.font())
        if not text and placeholder and fm.horizontalAdvance(placeholder) > rect.width():
            self.add(ELIDED, le, placeholder,
                     f"the placeholder needs {fm.horizontalAdvance(placeholder)} px, the field "
                     f"shows {rect.width()} px (Qt elides it with '…')")

    # tab bars and headers ---------------------------------------------------------------------

    def check_tab_bar(self, bar: QtWidgets.QTabBar) -> None:
        if bar.count() == 0:
            return
        self.check_font(bar, bar.tabText(bar.currentIndex()) or " ")
        horizontal = bar.shape() in (QtWidgets.QTabBar.Shape.RoundedNorth,
                                     QtWidgets.QTabBar.Shape.RoundedSouth,
                                     QtWidgets.QTabBar.Shape.TriangularNorth,
                                     QtWidgets.QTabBar.Shape.TriangularSouth)
        arrows = [c for c in bar.children() if isinstance(c, QtWidgets.QToolButton)
                  and c.objectName() in SCROLL_BUTTONS and not c.isHidden()]
        hidden = []
        for i in range(bar.count()):
            if not bar.isTabVisible(i):
                continue
            full = bar.tabText(i)
            rect, hint = bar.tabRect(i), bar.tabSizeHint(i)
            opt = QtWidgets.QStyleOptionTab()
            bar.initStyleOption(opt, i)  # with the text Qt will draw (elided to fit)
            along, need = ((rect.width(), hint.width()) if horizontal
                           else (rect.height(), hint.height()))
            if opt.text != full:
                self.add(ELIDED, bar, full,
                         f"tab {i} is drawn as {_no_mnemonic(opt.text)!r}: it is {along} px, "
                         f"it needs {need} px")
            elif along < need and full:
                text_rect = bar.style().subElementRect(QStyle.SubElement.SE_TabBarTabText,
                                                       opt, bar)
                if not horizontal:
                    text_rect = text_rect.transposed()
                self.text_cut(bar, full, text_rect, Qt.AlignmentFlag.AlignCenter,
                              what=f"tab {i}")
            elif full:  # the height of a horizontal tab (the width of a vertical one)
                text_rect = bar.style().subElementRect(QStyle.SubElement.SE_TabBarTabText,
                                                       opt, bar)
                if not horizontal:
                    text_rect = text_rect.transposed()
                self.text_cut(bar, full, text_rect, Qt.AlignmentFlag.AlignCenter,
                              what=f"tab {i}", horizontal=False)
            if not bar.rect().contains(rect) or any(a.geometry().intersects(rect)
                                                      for a in arrows):
                hidden.append(full)
        if hidden:
            self.add(HIDDEN_TAB, bar, ", ".join(hidden),
                     f"{len(hidden)} of {bar.count()} tabs are outside the bar or under its "
                     f"scroll arrows (bar {bar.width()}×{bar.height()} px)")
        elif arrows:
            self.add(HIDDEN_TAB, bar, "",
                     "the bar shows scroll arrows: its tabs do not fit")

    def check_header(self, header: QtWidgets.QHeaderView) -> None:
        model = header.model()
        if model is None or header.count() == 0:
            return
        horizontal = header.orientation() == Qt.Orientation.Horizontal
        length = header.width() if horizontal else header.height()
        first = max(header.visualIndexAt(0), 0)
        last = header.visualIndexAt(length - 1)
        if last < 0:
            last = header.count() - 1
        fm = header.fontMetrics()
        texts = []
        for visual in range(first, last + 1):
            logical = header.logicalIndex(visual)
            if logical < 0 or header.isSectionHidden(logical):
                continue
            size = header.sectionSize(logical)
            text = model.headerData(logical, header.orientation(),
                                    Qt.ItemDataRole.DisplayRole)
            text = "" if text is None else str(text)
            if size <= 0 or not text:
                continue
            texts.append(text)
            # what QHeaderView.paintSection does: the label rectangle of the section, the text
            # elided to its width
            opt = QtWidgets.QStyleOptionHeaderV2()
            header.initStyleOptionForIndex(opt, logical)
            opt.rect = (QtCore.QRect(0, 0, size, header.height()) if horizontal
                        else QtCore.QRect(0, 0, header.width(), size))
            label = header.style().subElementRect(QStyle.SubElement.SE_HeaderLabel, opt, header)
            mode = header.textElideMode()
            if "\n" not in text and (fm.horizontalAdvance(text) > label.width() if
                                     mode == Qt.TextElideMode.ElideNone else
                                     fm.elidedText(text, mode, label.width()) != text):
                need = header.sectionSizeFromContents(logical)
                kind, how = ((CLIPPED_TEXT, "cut off") if mode == Qt.TextElideMode.ElideNone
                             else (ELIDED, "elided"))
                self.add(kind, header, text,
                         f"{'column' if horizontal else 'row'} {logical} is {size} px, its "
                         f"header needs {need.width() if horizontal else need.height()} px: "
                         f"the text ({fm.horizontalAdvance(text)} px) is {how} to "
                         f"{label.width()} px")
            self.text_cut(header, text, opt.rect, Qt.AlignmentFlag.AlignCenter,
                          what=f"section {logical}", horizontal=False)
        if texts:
            self.check_font(header, texts[0])

    def check_item_view(self, view: QtWidgets.QAbstractItemView) -> None:
        model = view.model()
        if model is None:
            return
        self.check_font(view, "", what="the view's text")
        # FontRole of the items near the top (EXCLUSION "item view cells": delegates' painting)
        font_role = Qt.ItemDataRole.FontRole
        smallest: tuple[float, str] | None = None
        for index in self.some_indexes(model, 40, 12):
            data = model.data(index, font_role)
            if isinstance(data, QtGui.QFont):
                pt = self.font_pt(data.resolve(view.font()))
                if smallest is None or pt < smallest[0]:
                    smallest = (pt, str(model.data(index, Qt.ItemDataRole.DisplayRole) or ""))
        if smallest is not None and smallest[0] < self.min_pt - self.rounding(view):
            self.add(SMALL_TEXT, view, smallest[1],
                     f"an item's font is {smallest[0]:.1f} pt, below the {self.min_pt:g} pt "
                     f"minimum")
        if isinstance(view, QtWidgets.QHeaderView):
            return
        by_column: dict[int, list[tuple[str, str]]] = {}
        for index in self.some_indexes(model, 30, 10):
            found = self.cell_cut(view, index)
            if found is not None:
                by_column.setdefault(index.column(), []).append(found)
        for column, cut in sorted(by_column.items()):
            heading = model.headerData(column, Qt.Orientation.Horizontal,
                                       Qt.ItemDataRole.DisplayRole)
            texts = ", ".join(repr(_plain(t, 30)) for t, _ in cut[:6])
            more = f" and {len(cut) - 6} more" if len(cut) > 6 else ""
            self.add(ELIDED, view, f"column {column} {heading!r} cells" if heading
                     else f"column {column} cells",
                     f"{len(cut)} cells are elided with '…': {texts}{more}; first: {cut[0][1]}")

    @staticmethod
    def cell_cut(view: QtWidgets.QAbstractItemView,
                 index: QtCore.QModelIndex) -> tuple[str, str] | None:
        """(text, how) if a shown cell's text does not fit: what QStyledItemDelegate does (the
        item's text rectangle less the focus margins; wrapped if the item wraps; elided where it
        does not fit)."""
        rect = view.visualRect(index)
        if rect.isEmpty() or not view.viewport().rect().intersects(rect):
            return None
        delegate = view.itemDelegateForIndex(index)
        # EXCLUSION "item view cells": a delegate that paints by itself is not measured
        if (not isinstance(delegate, QtWidgets.QStyledItemDelegate)
                or type(delegate).paint is not QtWidgets.QStyledItemDelegate.paint):
            return None
        opt = QtWidgets.QStyleOptionViewItem()
        view.initViewItemOption(opt)
        opt.rect = rect
        delegate.initStyleOption(opt, index)
        text = opt.text
        if not text:
            return None
        style = view.style()
        text_rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, opt, view)
        margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1
        width = text_rect.width() - 2 * margin
        wrap = bool(opt.features & QtWidgets.QStyleOptionViewItem.ViewItemFeature.WrapText)
        layout = QtGui.QTextLayout(text.replace("\n", "\u2028"), opt.font)
        option = QtGui.QTextOption()
        option.setWrapMode(QtGui.QTextOption.WrapMode.WordWrap if wrap
                           else QtGui.QTextOption.WrapMode.ManualWrap)
        layout.setTextOption(option)
        layout.beginLayout()
        height = widest = 0.0
        while True:
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLineWidth(max(width, 1))
            line.setPosition(QtCore.QPointF(0, height))
            height += line.height()
            widest = max(widest, line.naturalTextWidth())
        layout.endLayout()
        if widest > width + 0.5:
            return text, (f"row {index.row()}, column {index.column()}: {widest:.0f} px of "
                          f"text in {width} px")
        if wrap and height > text_rect.height() + 0.5:
            return text, (f"row {index.row()}, column {index.column()}: {height:.0f} px of "
                          f"wrapped text in {text_rect.height()} px")
        return None

    @staticmethod
    def some_indexes(model: QtCore.QAbstractItemModel, rows: int,
                     columns: int) -> Iterator[QtCore.QModelIndex]:
        def call(method: Callable[[QtCore.QModelIndex], Any], index: QtCore.QModelIndex,
                 default: Any) -> Any:
            try:  # list and table models make columnCount / hasChildren private
                return method(index)
            except TypeError:
                return default

        parents = [QtCore.QModelIndex()]
        done = 0
        while parents and done < rows:
            parent = parents.pop(0)
            n_columns = call(model.columnCount, parent, 1)
            for r in range(min(model.rowCount(parent), rows)):
                for c in range(min(n_columns, columns)):
                    index = model.index(r, c, parent)
                    yield index
                    if c == 0 and len(parents) < rows and call(model.hasChildren, index, False):
                        parents.append(index)
                done += 1

    def check_text_edit(self, edit: QtWidgets.QTextEdit | QtWidgets.QPlainTextEdit) -> None:
        self.check_font(edit, "", what="the editor's text")
        doc = edit.document()
        if isinstance(edit, QtWidgets.QPlainTextEdit):
            block = edit.firstVisibleBlock()
        else:
            block = edit.cursorForPosition(QtCore.QPoint(0, 0)).block()
        blocks: list[QtGui.QTextBlock] = []
        while block.isValid() and len(blocks) < 60:
            blocks.append(block)
            block = block.next()
        self.check_document(edit, doc, blocks)

    # docks, menu and tool bars, group boxes ---------------------------------------------------

    def check_dock(self, dock: QtWidgets.QDockWidget) -> None:
        if dock.titleBarWidget() is not None:
            return  # a custom title bar: its widgets are checked as ordinary widgets
        if dock.isFloating() and dock.isWindow() and not (
                dock.windowFlags() & Qt.WindowType.FramelessWindowHint):
            return  # a floating dock with the system's frame: the title is not drawn by Qt
        title = dock.windowTitle()
        opt = QtWidgets.QStyleOptionDockWidget()
        dock.initStyleOption(opt)  # opt.rect: the title area
        rect = dock.style().subElementRect(QStyle.SubElement.SE_DockWidgetTitleBarText, opt, dock)
        # Qt draws its own title with a font fixed when the dock was made (it does not follow
        # the application's font): measure the size it really has from the drawn pixels.
        pt = self.drawn_title_pt(dock, QtCore.QRect(opt.rect), QtCore.QRect(rect), title)
        font = QtGui.QFont(dock.font())
        if pt is not None:
            font.setPointSizeF(pt)
            if pt < self.min_pt - 0.25:
                self.add(SMALL_TEXT, dock, title,
                         f"the dock's title is drawn at about {pt:.1f} pt, below the "
                         f"{self.min_pt:g} pt minimum")
        fm = QtGui.QFontMetrics(font)
        if title and fm.horizontalAdvance(title) > rect.width():
            self.add(ELIDED, dock, title,
                     f"the title needs {fm.horizontalAdvance(title)} px, the title bar has "
                     f"{rect.width()} px for it")
        if fm.height() > rect.height():
            self.add(CLIPPED_TEXT, dock, title,
                     f"the title is {fm.height()} px high, the title bar has {rect.height()} px")

    def drawn_title_pt(self, dock: QtWidgets.QDockWidget, area: QtCore.QRect,
                       text_rect: QtCore.QRect, title: str) -> float | None:
        """About the point size a native dock title is drawn at: the ink height of the title as
        drawn, against the title drawn (elided to the same width) with the dock's font."""
        font = dock.font()
        fm = QtGui.QFontMetricsF(font)
        if not title.strip() or text_rect.width() <= 0 or area.height() <= 0:
            return None
        grabbed = dock.grab(QtCore.QRect(text_rect.left(), area.top(), text_rect.width(),
                                         area.height()))
        drawn = grabbed.toImage().convertToFormat(QtGui.QImage.Format.Format_RGB32)
        if drawn.isNull() or drawn.width() == 0:
            return None
        bg = _common_colour(drawn)
        fg = dock.palette().color(QtGui.QPalette.ColorRole.WindowText)
        shown = fm.elidedText(title, Qt.TextElideMode.ElideRight, text_rect.width())
        if not shown.strip("… "):
            return None  # only an ellipsis would be drawn: reported as elided anyway
        ref = QtGui.QImage(text_rect.width() + 8, int(fm.height()) + 8,
                           QtGui.QImage.Format.Format_RGB32)
        ref.fill(bg)
        painter = QtGui.QPainter(ref)
        painter.setFont(font)
        painter.setPen(fg)
        painter.drawText(QtCore.QPointF(4, 4 + fm.ascent()), shown)
        painter.end()
        limit = 0.35 * _distance(fg, bg)
        ink, ink_ref = _ink_height(drawn, bg, limit), _ink_height(ref, bg, limit)
        if not ink or not ink_ref:
            return None
        return self.font_pt(font) * ink / ink_ref

    def check_menu_bar(self, bar: QtWidgets.QMenuBar) -> None:
        actions = [a for a in bar.actions() if a.isVisible() and not a.isSeparator()]
        if not actions:
            return
        self.check_font(bar, actions[0].text())
        pushed = [a for a in actions
                  if a.text() and (bar.actionGeometry(a).isEmpty()
                                   or not bar.rect().contains(bar.actionGeometry(a)))]
        if pushed:
            self.add(OVERFLOW, bar, ", ".join(_no_mnemonic(a.text()) for a in pushed),
                     f"{len(pushed)} menus are pushed into the » extension "
                     f"(bar {bar.width()} px wide)")
        for a in actions:  # the menus open from here: their text must be large enough too
            menu = a.menu()
            if isinstance(menu, QtWidgets.QMenu):
                items = [m.text() for m in menu.actions() if m.text()]
                if items:
                    self.check_font(menu, items[0], what="the menu's text")

    def check_tool_bar(self, bar: QtWidgets.QToolBar) -> None:
        pushed = []
        for a in bar.actions():
            if not a.isVisible() or a.isSeparator():
                continue
            w = bar.widgetForAction(a)
            if w is None or w.isHidden() or not bar.rect().contains(w.geometry()):
                pushed.append(_no_mnemonic(a.text()) or a.objectName() or "?")
        ext = [c for c in bar.children() if isinstance(c, QtWidgets.QWidget)
               and c.objectName() == "qt_toolbar_ext_button" and not c.isHidden()]
        if pushed or ext:
            self.add(OVERFLOW, bar, ", ".join(pushed),
                     f"{len(pushed)} actions are pushed into the » extension "
                     f"(bar {bar.width()} px wide)")

    def check_group_box(self, box: QtWidgets.QGroupBox) -> None:
        title = box.title()
        if not title:
            return
        self.check_font(box, title)
        opt = QtWidgets.QStyleOptionGroupBox()
        box.initStyleOption(opt)
        rect = box.style().subControlRect(QStyle.ComplexControl.CC_GroupBox, opt,
                                          QStyle.SubControl.SC_GroupBoxLabel, box)
        need = box.fontMetrics().size(Qt.TextFlag.TextShowMnemonic, title)
        if not box.rect().contains(rect) or need.width() > rect.width():
            self.add(CLIPPED_TEXT, box, title,
                     f"the title needs {need.width()} px, the box is {box.width()} px wide")

    def check_progress(self, bar: QtWidgets.QProgressBar) -> None:
        if not bar.isTextVisible() or not bar.text():
            return
        text = bar.text()
        self.check_font(bar, text)
        opt = QtWidgets.QStyleOptionProgressBar()
        bar.initStyleOption(opt)
        rect = bar.style().subElementRect(QStyle.SubElement.SE_ProgressBarLabel, opt, bar)
        fm = bar.fontMetrics()
        if fm.horizontalAdvance(text) > rect.width() or fm.height() > rect.height():
            self.add(CLIPPED_TEXT, bar, text,
                     f"the text needs {fm.horizontalAdvance(text)}×{fm.height()} px, the bar "
                     f"draws it in {rect.width()}×{rect.height()} px")

    # geometry ---------------------------------------------------------------------------------

    def check_clipped(self, w: QtWidgets.QWidget) -> None:
        if w.isWindow():
            return
        parent = w.parentWidget()
        if parent is None:
            return
        # EXCLUSION "scrolled content": the content of a scroll area's viewport scrolls.
        area = parent.parentWidget()
        if isinstance(area, QtWidgets.QAbstractScrollArea) and area.viewport() is parent:
            return
        # EXCLUSION "Qt's own buttons": a tab bar places its arrows itself (see check_tab_bar)
        if isinstance(parent, QtWidgets.QTabBar):
            return
        g, r = w.geometry(), parent.rect()
        if r.contains(g) or g.isEmpty():
            return
        out = {"left": r.left() - g.left(), "top": r.top() - g.top(),
               "right": g.right() - r.right(), "bottom": g.bottom() - r.bottom()}
        sides = ", ".join(f"{k} by {v} px" for k, v in out.items() if v > 0)
        self.add(CLIPPED_WIDGET, w, self.text_of(w),
                 f"sticks out of {describe(parent)} ({r.width()}×{r.height()}): {sides}")

    @staticmethod
    def text_of(w: QtWidgets.QWidget) -> str:
        for attr in ("text", "title", "windowTitle", "currentText"):
            get = getattr(w, attr, None)
            if callable(get):
                try:
                    value = get()
                except TypeError:
                    continue
                if isinstance(value, str) and value:
                    return value
        return ""

    def check_overlap(self, w: QtWidgets.QWidget) -> None:
        layout = w.layout()
        if not isinstance(layout, QtWidgets.QLayout):
            return
        members = [m for m in self.layout_widgets(w, layout)
                   if id(m) in self.shown and not m.isWindow() and not m.geometry().isEmpty()
                   and not _behind_a_tab(m)]
        for a, b in itertools.combinations(members, 2):
            inter = a.geometry().intersected(b.geometry())
            if inter.width() > 1 and inter.height() > 1:
                self.add(OVERLAP, a, self.text_of(a),
                         f"overlaps {describe(b)} {self.text_of(b)!r} by "
                         f"{inter.width()}×{inter.height()} px")

    @staticmethod
    def layout_widgets(w: QtWidgets.QWidget,
                       layout: QtWidgets.QLayout) -> list[QtWidgets.QWidget]:
        """The child widgets of ``w`` that ``layout`` (or a layout nested in it) manages.

        Found with QLayout.indexOf, never through QLayout.itemAt: PySide wraps the QLayoutItem
        pointers itemAt returns, and a wrapper outliving its item (Qt deletes items as layouts
        change) corrupts memory: the window crashed in later tests."""
        layouts = [layout, *layout.findChildren(QtWidgets.QLayout)]
        # EXCLUSION "stacked layouts": their pages lie on top of each other by design.
        layouts = [lay for lay in layouts if not isinstance(lay, QtWidgets.QStackedLayout)]
        return [c for c in w.children() if isinstance(c, QtWidgets.QWidget)
                and any(lay.indexOf(c) >= 0 for lay in layouts)]


def find_problems(win: QtWidgets.QWidget, *, min_point_size: float,
                  root: QtWidgets.QWidget | None = None) -> list[Problem]:
    """Every defect in what ``win`` shows (or ``root``, a widget inside it), in widget order."""
    settle()
    problems = _Audit(win, min_point_size).run(root)
    seen: set[str] = set()
    out = []
    for p in problems:
        if str(p) not in seen:
            seen.add(str(p))
            out.append(p)
    return out


def audit(win: QtWidgets.QWidget, *, min_point_size: float,
          root: QtWidgets.QWidget | None = None) -> list[str]:
    """One readable line per defect in what ``win`` shows; [] when everything fits."""
    return [str(p) for p in find_problems(win, min_point_size=min_point_size, root=root)]
