"""The layout audit (tests/qt/layout_audit.py): the real main window, with something in every
panel, at projector and desktop sizes, in every combination of language, theme and presentation
mode, must show every text whole, at a readable size, with no widget cut off or on top of
another, and keep its docks where they were; and the audit itself catches each kind of defect.

Environment (optional):
    TENSOR_EXPLORER_AUDIT_SIZES   "1280x800,1920x1080": the window sizes to audit
    TENSOR_EXPLORER_AUDIT_REPORT  a file: every problem found, one JSON object a line
    TENSOR_EXPLORER_AUDIT_SHOTS   a folder: a screenshot of every state and shown panel
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from pytestqt.qtbot import QtBot

from tests.qt import layout_audit as la

TIMEOUT = 20_000
ALL_SIZES = ((1280, 720), (1280, 800), (1920, 1080))
SIZES_ENV = "TENSOR_EXPLORER_AUDIT_SIZES"
REPORT_ENV = "TENSOR_EXPLORER_AUDIT_REPORT"
SHOTS_ENV = "TENSOR_EXPLORER_AUDIT_SHOTS"
NO_FONTS_ENV = "TENSOR_EXPLORER_AUDIT_NO_SYSTEM_FONTS"  # set in the fontless subprocess
NORMAL_MIN_PT, PRESENTATION_MIN_PT = 8.0, 14.0
LESSON, LESSON_STEP = "autograd-chain", 3
LAYOUTS = ("lesson", "default")  # the dock layouts the walk starts from

#: values for every panel: a 2-d float tensor with NaN and infinities (Values, Inspector), a
#: NumPy array and tensors sharing its memory (Memory's relations), a small autograd graph with
#: backward run (Autograd graph), printed output (Code bar · output), history (Code)
FILL = """\
grid = torch.randn(4, 6)
grid[1, 2] = float('nan')
grid[2, 3] = float('inf')
array = np.arange(12.0).reshape(3, 4)
shared = torch.from_numpy(array)
view = shared.t()
w = torch.ones(3, requires_grad=True)
b = torch.zeros(3, requires_grad=True)
loss = (w * 2 + b).pow(2).sum()
loss.backward()
print('grid has', int(torch.isnan(grid).sum()), 'NaN')
"""


def _sizes() -> list[tuple[int, int]]:
    chosen = os.environ.get(SIZES_ENV, "").strip()
    if not chosen:
        return list(ALL_SIZES)
    return [(int(w), int(h)) for w, h in (s.lower().split("x") for s in chosen.split(","))]


# -- the real window -----------------------------------------------------------------------------


def _wait_idle(qtbot: QtBot, win: Any) -> None:
    lesson = win.panels["lesson"]
    qtbot.waitUntil(lambda: not lesson.busy and not win.runner.busy, timeout=TIMEOUT)
    la.settle()


@pytest.fixture
def filled_window(qtbot: QtBot, make_window: Callable[..., Any],
                  request: pytest.FixtureRequest) -> Any:
    """The main window at ``request.param`` (width, height, layout), a lesson at step 3, a
    value in every panel, every lazily built panel built, shown (offscreen). Layout "lesson" is
    the one opening a lesson gives (the lesson on the left, every other panel tabbed on the
    right); "default" is the one the app starts with (View ▸ Reset layout)."""
    width, height, layout = request.param
    size = (width, height)
    win = make_window()
    win.resize(*size)
    win.show()
    qtbot.waitExposed(win)
    lesson = win.panels["lesson"]
    with qtbot.waitSignal(lesson.step_shown, timeout=TIMEOUT):
        win.open_lesson(LESSON)
    _wait_idle(qtbot, win)
    for number in range(2, LESSON_STEP + 1):
        with qtbot.waitSignal(lesson.step_shown, timeout=TIMEOUT,
                              check_params_cb=lambda n, number=number: n == number):
            lesson.next_step()
        _wait_idle(qtbot, win)
    console = win.panels["console"]
    console.editor.setPlainText(FILL)
    with qtbot.waitSignal(win.runner.finished, timeout=TIMEOUT):
        console.run_editor()
    _wait_idle(qtbot, win)
    console.editor.setPlainText("y = grid @ grid.T")  # typed, not run
    for name in ("build", "memory", "graph", "code"):  # built on first use
        win.panels[name]
    win.workspace.selected = "grid"
    QtCore.QThreadPool.globalInstance().waitForDone(TIMEOUT)
    if layout == "default":
        win.reset_layout()
    la.settle()
    win.requested_size = size  # what the test asked for (checked by the test)
    win.requested_layout = layout
    return win


Snapshot = tuple[dict[str, la.DockState], list[Any], dict[str, la.BarState]]


def _dock_snapshot(win: Any) -> Snapshot:
    return la.dock_states(win), la.dock_groups(win), la.toolbar_states(win)


def _dock_changes(before: Snapshot, after: Snapshot) -> list[str]:
    out = []
    for name in sorted(set(before[0]) | set(after[0])):
        if before[0].get(name) != after[0].get(name):
            out.append(f"{name}: {before[0].get(name)} -> {after[0].get(name)}")
    if before[1] != after[1]:
        out.append(f"tab groups (names, in front): {before[1]} -> {after[1]}")
    for name in sorted(set(before[2]) | set(after[2])):
        if before[2].get(name) != after[2].get(name):
            out.append(f"tool bar {name}: {before[2].get(name)} -> {after[2].get(name)}")
    return out


class Findings:
    """Every problem of every state, grouped by defect (kind, where, widget, text)."""

    def __init__(self, size: tuple[int, int], layout: str) -> None:
        self.size = size
        self.layout = layout
        self.by_key: dict[tuple[str, ...], list[tuple[str, str]]] = {}
        self.report = os.environ.get(REPORT_ENV)
        self.shots = os.environ.get(SHOTS_ENV)
        self.shot_count = 0

    def add(self, state: str, problems: list[la.Problem]) -> None:
        for p in problems:
            states = self.by_key.setdefault(p.key, [])
            if state not in [s for s, _ in states]:
                states.append((state, p.detail))
        if self.report:
            with open(self.report, "a", encoding="utf-8") as f:
                for p in problems:
                    f.write(json.dumps({"size": f"{self.size[0]}x{self.size[1]}",
                                        "layout": self.layout, "state": state,
                                        "kind": p.kind, "widget": p.widget, "where": p.where,
                                        "text": p.text, "detail": p.detail},
                                       ensure_ascii=False) + "\n")

    def add_line(self, state: str, kind: str, what: str, detail: str) -> None:
        self.add(state, [la.Problem(kind, what, "main window", "", detail)])

    def shot(self, widget: QtWidgets.QWidget, name: str) -> None:
        if self.shots:
            Path(self.shots).mkdir(parents=True, exist_ok=True)
            self.shot_count += 1
            widget.grab().save(str(Path(self.shots) / f"{self.shot_count:03d}-{name}.png"))

    def message(self) -> str:
        lines = [f"{len(self.by_key)} layout problems at {self.size[0]}×{self.size[1]}, "
                 f"starting from the {self.layout} layout:"]
        for key in sorted(self.by_key, key=lambda k: (la.KINDS.index(k[0])
                                                     if k[0] in la.KINDS else 99, k)):
            kind, where, widget, text = key
            states = self.by_key[key]
            shown = f" {text!r}" if text else ""
            lines.append(f"- {kind}: {widget}{shown} in {where}: {states[0][1]}")
            lines.append(f"    in: {'; '.join(s for s, _ in states)}")
        return "\n".join(lines)


def _audit_every_panel(win: Any, findings: Findings, state: str, min_pt: float,
                       presentation: bool) -> None:
    """Audit the window as it is, then bring each panel not on screen to the front (onto the
    stage in presentation mode, where the other panels are hidden) and audit it, then put the
    docks back as they were."""
    findings.add(state, la.find_problems(win, min_point_size=min_pt))
    findings.shot(win, state.replace(" ", "-"))
    before = _dock_snapshot(win)
    in_front = [name for name, dock in win.docks.items() if la.dock_in_front(dock)]
    hidden = [name for name, dock in win.docks.items() if dock.isHidden()]
    no_area = QtCore.Qt.DockWidgetArea.NoDockWidgetArea
    for name, dock in win.docks.items():
        if name in in_front or (dock.isHidden() and not presentation):
            continue  # in normal mode a hidden dock was closed: it is not shown
        win.show_panel(name)
        la.settle()
        if not dock.isFloating() and win.dockWidgetArea(dock) == no_area:
            continue  # shown without a place in the window: reported by the dock checks
        if not la.dock_in_front(dock):
            findings.add_line(state, "hidden panel", f"dock {dock.objectName()}",
                              "show_panel() did not bring it to the front")
            continue
        findings.add(state, la.find_problems(win, min_point_size=min_pt, root=dock))
        findings.shot(dock, f"{state.replace(' ', '-')}-{name}")
    for name in in_front:
        win.show_panel(name)
    for name in hidden:
        win.docks[name].hide()
    la.settle()
    changes = _dock_changes(before, _dock_snapshot(win))
    if changes:
        findings.add_line(state, "dock moved", "showing each panel in turn",
                          "bringing the panels that were in front back did not restore the "
                          "docks: " + "; ".join(changes))


#: a Gray-code walk through (language, theme, presentation): one setting changes at a time,
#: every combination is visited, and the last switch comes back to the start
WALK = ("language", "theme", "language", "presentation", "language", "theme", "language",
        "presentation")


@pytest.mark.parametrize("filled_window", [(w, h, layout) for w, h in _sizes()
                                           for layout in LAYOUTS],
                         ids=lambda p: f"{p[0]}x{p[1]}-{p[2]}", indirect=True)
def test_window_layout_in_every_mode(filled_window: Any) -> None:
    win = filled_window
    size = win.requested_size
    findings = Findings(size, win.requested_layout)
    mode = {"language": "en", "theme": "light", "presentation": False}

    def label() -> str:
        return (f"{size[0]}x{size[1]} {win.requested_layout} {mode['language']} "
                f"{mode['theme']} {'presentation' if mode['presentation'] else 'normal'}")

    def audit() -> None:
        on = bool(mode["presentation"])
        _audit_every_panel(win, findings, label(), PRESENTATION_MIN_PT if on else NORMAL_MIN_PT,
                           on)

    if win.size() != QtCore.QSize(*size):
        findings.add_line(label(), "window size", "the main window",
                          f"cannot be {size[0]}×{size[1]}: it is {win.width()}×{win.height()} "
                          f"(its minimum size hint {win.minimumSizeHint().width()}×"
                          f"{win.minimumSizeHint().height()})")
    audit()
    before_presentation = None
    for switch in WALK:
        before = _dock_snapshot(win)
        try:
            if switch == "language":
                mode["language"] = "zh" if mode["language"] == "en" else "en"
                win.set_language(mode["language"])
            elif switch == "theme":
                mode["theme"] = "dark" if mode["theme"] == "light" else "light"
                win.set_theme(mode["theme"])
            else:
                mode["presentation"] = not mode["presentation"]
                if mode["presentation"]:
                    before_presentation = before
                win.set_presentation(bool(mode["presentation"]))
            QtCore.QThreadPool.globalInstance().waitForDone(TIMEOUT)
            la.settle()
        except Exception as exc:  # recorded, and the walk goes on
            findings.add_line(label(), "error", f"switching the {switch}",
                              f"raised {type(exc).__name__}: {exc}")
            la.settle()
        after = _dock_snapshot(win)
        if switch != "presentation":
            changes = _dock_changes(before, after)
            why = f"switching the {switch} must keep every dock where it was"
        elif not mode["presentation"]:
            assert before_presentation is not None
            changes = _dock_changes(before_presentation, after)
            why = "leaving presentation mode must bring back the docks as they were"
        else:
            changes = []
        if changes:
            findings.add_line(label(), "dock moved", f"switching the {switch}",
                              why + ": " + "; ".join(changes))
        audit()
    if findings.by_key:
        pytest.fail(findings.message(), pytrace=False)


def test_only_bundled_fonts_without_system_fonts(qtbot: QtBot) -> None:
    """Run by the fontless subprocess: the system offers no font at all, only the app's own."""
    if not os.environ.get(NO_FONTS_ENV):
        pytest.skip("checked in the subprocess of test_window_layout_without_system_fonts")
    from tensor_explorer.qt import fonts, theme

    theme.state().apply("light", 1.0)
    bundled = set(fonts.available())
    assert bundled == set(fonts.BUNDLED)
    others = set(QtGui.QFontDatabase.families()) - bundled
    assert others <= {"Monospace", "Sans Serif", "Serif"}, others  # fontconfig's aliases only
    assert QtGui.QFontInfo(QtWidgets.QApplication.font()).family() in bundled


def test_window_layout_without_system_fonts(tmp_path: Path) -> None:
    """The same audit (1280×800) in a process where fontconfig knows no font at all: the
    window must lay out with its bundled fonts alone."""
    if os.environ.get(NO_FONTS_ENV):
        pytest.skip("already in the fontless subprocess")
    conf = tmp_path / "fonts.conf"
    conf.write_text(
        '<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>'
        f"<dir>/nonexistent-font-dir</dir><cachedir>{tmp_path / 'fc-cache'}</cachedir>"
        "</fontconfig>")
    env = dict(os.environ, FONTCONFIG_FILE=str(conf), QT_QPA_PLATFORM="offscreen")
    env[SIZES_ENV] = "1280x800"
    env[NO_FONTS_ENV] = "1"
    here = Path(__file__)
    root = here.parents[2]
    rel = here.relative_to(root).as_posix()
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--no-header",
           f"{rel}::test_only_bundled_fonts_without_system_fonts",
           f"{rel}::test_window_layout_in_every_mode"]
    proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=280,
                          check=False)
    out = proc.stdout + proc.stderr
    if proc.returncode != 0:
        pytest.fail("without system fonts:\n" + out[-20_000:], pytrace=False)


# -- the audit itself ----------------------------------------------------------------------------


@pytest.fixture
def host(qtbot: QtBot) -> QtWidgets.QWidget:
    w = QtWidgets.QWidget()
    w.setObjectName("host")
    w.setWindowTitle("host")
    qtbot.addWidget(w)
    return w


def _show(qtbot: QtBot, w: QtWidgets.QWidget, size: tuple[int, int] = (400, 300)) -> None:
    w.resize(*size)
    w.show()
    qtbot.waitExposed(w)
    la.settle()


def _only(problems: list[la.Problem], kind: str | tuple[str, ...], name: str) -> la.Problem:
    kinds = (kind,) if isinstance(kind, str) else kind
    found = [p for p in problems if p.kind in kinds and name in p.widget]
    assert found, f"no {kind} for {name}: {[str(p) for p in problems]}"
    return found[0]


def _good_form(parent: QtWidgets.QWidget) -> QtWidgets.QVBoxLayout:
    layout = QtWidgets.QVBoxLayout(parent)
    form = QtWidgets.QFormLayout()
    form.addRow("name", QtWidgets.QLineEdit("made"))
    combo = QtWidgets.QComboBox()
    combo.addItems(["float32", "float64"])
    form.addRow("dtype", combo)
    spin = QtWidgets.QSpinBox()
    spin.setPrefix("× ")
    form.addRow("times", spin)
    layout.addLayout(form)
    row = QtWidgets.QHBoxLayout()
    row.addWidget(QtWidgets.QPushButton("Run"))
    row.addWidget(QtWidgets.QPushButton("Stop"))
    row.addWidget(QtWidgets.QCheckBox("retain_graph"))
    layout.addLayout(row)
    tabs = QtWidgets.QTabWidget()
    table = QtWidgets.QTableWidget(3, 2)
    table.setHorizontalHeaderLabels(["fact", "value"])
    tabs.addTab(table, "Details")
    tabs.addTab(QtWidgets.QLabel("hidden page"), "Accumulation")
    layout.addWidget(tabs)
    wrapped = QtWidgets.QLabel("A longer explanation that wraps over more than one line when "
                               "the panel is narrow, as lesson texts do.")
    wrapped.setWordWrap(True)
    layout.addWidget(wrapped)
    return layout


def test_a_well_laid_out_widget_has_no_problems(qtbot: QtBot, host: QtWidgets.QWidget) -> None:
    _good_form(host)
    _show(qtbot, host, (420, 420))
    assert la.audit(host, min_point_size=8.0) == []


def test_scrolling_and_plot_internals_are_not_problems(qtbot: QtBot, host) -> None:
    """Content larger than its scroll area, a scrolled table, a tab bar whose scroll arrows are
    hidden, a splitter, a pyqtgraph plot: no problems from Qt's (or pyqtgraph's) internals."""
    import pyqtgraph as pg

    layout = QtWidgets.QVBoxLayout(host)
    area = QtWidgets.QScrollArea()
    content = QtWidgets.QWidget()
    inner = QtWidgets.QVBoxLayout(content)
    for i in range(30):
        inner.addWidget(QtWidgets.QPushButton(f"button {i}"))
    area.setWidget(content)
    table = QtWidgets.QTableWidget(50, 8)
    table.setHorizontalHeaderLabels([str(i) for i in range(8)])
    splitter = QtWidgets.QSplitter()
    splitter.addWidget(area)
    splitter.addWidget(table)
    layout.addWidget(splitter)
    tabs = QtWidgets.QTabWidget()
    tabs.addTab(QtWidgets.QLabel("a"), "Details")
    tabs.addTab(QtWidgets.QLabel("b"), "Accumulation")
    layout.addWidget(tabs)
    plot = pg.PlotWidget()
    plot.plot([1, 3, 2])
    layout.addWidget(plot)
    _show(qtbot, host, (520, 640))
    table.scrollToBottom()
    area.verticalScrollBar().setValue(area.verticalScrollBar().maximum())
    la.settle()
    assert la.audit(host, min_point_size=8.0) == []


def test_squeezed_button_combo_label_and_line_edit_are_clipped(qtbot: QtBot, host) -> None:
    layout = QtWidgets.QHBoxLayout(host)
    button = QtWidgets.QPushButton("A long button text")
    button.setObjectName("squeezed_button")
    button.setFixedWidth(30)
    combo = QtWidgets.QComboBox()
    combo.setObjectName("squeezed_combo")
    combo.addItems(["1. A tensor is more than its numbers", "2. Shapes"])
    combo.setFixedWidth(90)
    label = QtWidgets.QLabel("A label that is far too long to fit")
    label.setObjectName("squeezed_label")
    label.setFixedWidth(50)
    edit = QtWidgets.QLineEdit("text")
    edit.setObjectName("flat_edit")
    edit.setFixedHeight(12)
    check = QtWidgets.QCheckBox("retain_graph")
    check.setObjectName("squeezed_check")
    check.setFixedWidth(40)
    shortened = QtWidgets.QLabel("Autograd gr…")  # shortened by the application itself
    shortened.setObjectName("shortened")
    shortened.setToolTip("Autograd graph")
    for w in (button, combo, label, edit, check, shortened):
        layout.addWidget(w)
    _show(qtbot, host, (500, 120))
    problems = la.find_problems(host, min_point_size=8.0)
    p = _only(problems, la.CLIPPED_TEXT, "QPushButton#squeezed_button")
    assert p.text == "A long button text" and "cut off at the side" in p.detail
    assert _only(problems, la.CLIPPED_TEXT, "QComboBox#squeezed_combo").text.startswith(
        "1. A tensor is more than")
    assert "far too long" in _only(problems, la.CLIPPED_TEXT, "QLabel#squeezed_label").text
    assert "top or bottom" in _only(problems, la.CLIPPED_TEXT, "QLineEdit#flat_edit").detail
    assert _only(problems, la.CLIPPED_TEXT, "QCheckBox#squeezed_check").text == "retain_graph"
    assert "tool tip" in _only(problems, la.ELIDED, "QLabel#shortened").detail
    assert all(p.where == 'window "host"' for p in problems)


def test_tab_bars_with_elided_or_hidden_tabs(qtbot: QtBot, host) -> None:
    host.resize(140, 80)
    elided = QtWidgets.QTabBar(host)
    elided.setObjectName("elided_tabs")
    elided.setElideMode(QtCore.Qt.TextElideMode.ElideRight)
    elided.setUsesScrollButtons(False)
    scrolled = QtWidgets.QTabBar(host)
    scrolled.setObjectName("scrolled_tabs")
    scrolled.setElideMode(QtCore.Qt.TextElideMode.ElideNone)
    scrolled.setUsesScrollButtons(True)
    for bar in (elided, scrolled):
        for text in ("Values", "Memory", "Autograd graph", "Inspector"):
            bar.addTab(text)
    layout = QtWidgets.QVBoxLayout(host)
    layout.addWidget(elided)
    layout.addWidget(scrolled)
    _show(qtbot, host, (140, 80))
    problems = la.find_problems(host, min_point_size=8.0)
    p = _only(problems, la.ELIDED, "QTabBar#elided_tabs")
    assert "…" in p.detail and p.text in ("Values", "Memory", "Autograd graph", "Inspector")
    hidden = _only(problems, la.HIDDEN_TAB, "QTabBar#scrolled_tabs")
    assert "Inspector" in hidden.text
    assert not [p for p in problems if p.kind == la.HIDDEN_TAB and "elided_tabs" in p.widget]


def test_widget_outside_its_parent_and_overlapping_siblings(qtbot: QtBot, host) -> None:
    layout = QtWidgets.QVBoxLayout(host)
    first, second = QtWidgets.QLabel("first"), QtWidgets.QLabel("second")
    first.setObjectName("first")
    second.setObjectName("second")
    layout.addWidget(first)
    layout.addWidget(second)
    loose = QtWidgets.QPushButton("Out", host)
    loose.setObjectName("loose")
    _show(qtbot, host, (200, 120))
    second.setGeometry(first.geometry().translated(5, 3))  # on top of its layout sibling
    loose.setGeometry(170, 10, 60, 30)  # 30 px past the right edge
    problems = la.find_problems(host, min_point_size=8.0)
    out = _only(problems, la.CLIPPED_WIDGET, "QPushButton#loose")
    assert "right by 30 px" in out.detail and out.text == "Out"
    over = _only(problems, la.OVERLAP, "QLabel#first")
    assert "QLabel#second" in over.detail


def test_text_below_the_minimum_size(qtbot: QtBot, host) -> None:
    layout = QtWidgets.QVBoxLayout(host)
    tiny = QtWidgets.QLabel("tiny print")
    tiny.setObjectName("tiny")
    font = tiny.font()
    font.setPointSizeF(6.0)
    tiny.setFont(font)
    layout.addWidget(tiny)
    fine = QtWidgets.QLabel("big print")
    big = fine.font()
    big.setPointSizeF(16.0)
    fine.setFont(big)
    layout.addWidget(fine)
    browser = QtWidgets.QTextBrowser()
    browser.setObjectName("prose")
    browser.setFont(big)
    browser.setHtml("<p>readable</p><p><span style='font-size:7pt'>small print</span></p>")
    layout.addWidget(browser)
    _show(qtbot, host, (300, 240))
    problems = la.find_problems(host, min_point_size=14.0)
    small = _only(problems, la.SMALL_TEXT, "QLabel#tiny")
    assert small.text == "tiny print" and "below the 14 pt minimum" in small.detail
    assert _only(problems, la.SMALL_TEXT, "QTextBrowser#prose").text == "small print"
    assert not [p for p in problems if "big print" in p.text]


def test_dock_title_menu_bar_tool_bar_and_header(qtbot: QtBot) -> None:
    win = QtWidgets.QMainWindow()
    win.setWindowTitle("audited")
    qtbot.addWidget(win)
    win.setCentralWidget(QtWidgets.QLabel("centre"))
    dock = QtWidgets.QDockWidget("A dock title far too long for its narrow dock", win)
    dock.setObjectName("narrow_dock")
    table = QtWidgets.QTableWidget(2, 2)
    table.setHorizontalHeaderLabels(["a very long column heading", "b"])
    table.horizontalHeader().resizeSection(0, 40)
    dock.setWidget(table)
    win.addDockWidget(QtCore.Qt.DockWidgetArea.LeftDockWidgetArea, dock)
    for title in ("&File", "&Edit", "&Run", "&View", "&Language", "&Help"):
        win.menuBar().addMenu(title).addAction("item")
    bar = win.addToolBar("tools")
    bar.setObjectName("tools")
    bar.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonTextOnly)
    for text in ("Open", "Run code", "Stop", "Presentation mode", "Dark theme"):
        bar.addAction(text)
    win.resize(200, 300)
    win.show()
    qtbot.waitExposed(win)
    win.resizeDocks([dock], [90], QtCore.Qt.Orientation.Horizontal)
    la.settle()
    problems = la.find_problems(win, min_point_size=14.0)
    dock_title = _only(problems, la.ELIDED, "QDockWidget#narrow_dock")
    assert dock_title.text.startswith("A dock title")
    assert dock_title.where.startswith('dock "A dock')
    assert "drawn at about" in _only(problems, la.SMALL_TEXT, "QDockWidget#narrow_dock").detail
    assert "Help" in _only(problems, la.OVERFLOW, "QMenuBar").text
    assert "Dark theme" in _only(problems, la.OVERFLOW, "QToolBar#tools").text
    header = _only(problems, (la.ELIDED, la.CLIPPED_TEXT), "QHeaderView")
    assert header.text == "a very long column heading"


def test_hidden_pages_collapsed_splitters_and_docks_behind_tabs_are_not_audited(
        qtbot: QtBot) -> None:
    def broken(name: str) -> QtWidgets.QWidget:
        page = QtWidgets.QWidget()
        button = QtWidgets.QPushButton("A long button text", page)
        button.setObjectName(name)
        button.setGeometry(0, 0, 20, 20)
        return page

    win = QtWidgets.QMainWindow()
    qtbot.addWidget(win)
    tabs = QtWidgets.QTabWidget()
    tabs.addTab(QtWidgets.QLabel("shown"), "Shown")
    tabs.addTab(broken("in_hidden_page"), "Hidden")
    splitter = QtWidgets.QSplitter()
    splitter.addWidget(tabs)
    splitter.addWidget(broken("in_collapsed_part"))
    win.setCentralWidget(splitter)
    front = QtWidgets.QDockWidget("Front", win)
    front.setObjectName("front")
    front.setWidget(QtWidgets.QLabel("front"))
    behind = QtWidgets.QDockWidget("Behind", win)
    behind.setObjectName("behind")
    behind.setWidget(broken("in_dock_behind"))
    win.addDockWidget(QtCore.Qt.DockWidgetArea.RightDockWidgetArea, front)
    win.tabifyDockWidget(front, behind)
    win.resize(500, 300)
    win.show()
    qtbot.waitExposed(win)
    splitter.setSizes([500, 0])
    front.raise_()
    la.settle()
    problems = la.audit(win, min_point_size=8.0)
    assert not [p for p in problems if "in_" in p], problems
    states = la.dock_states(win)
    assert states == {"front": la.DockState(True, False, "Right"),
                      "behind": la.DockState(True, False, "Right")}
    assert la.dock_groups(win) == [(("behind", "front"), "front")]
    behind.raise_()  # now it is in front, and its broken button is seen
    la.settle()
    assert [p for p in la.audit(win, min_point_size=8.0) if "in_dock_behind" in p]
    behind.setFloating(True)
    front.hide()
    la.settle()
    assert la.dock_states(win) == {"front": la.DockState(False, False, "Right"),
                                   "behind": la.DockState(True, True, "Right")}
