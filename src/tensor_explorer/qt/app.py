"""Start the application: the window, the screenshot command, and ``explore``."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6 import QtCore, QtWidgets

from ..core.catalog import Message, render
from ..core.lessons import Lesson, StepResult, default_lesson, is_lesson
from ..core.loading import LoadError
from ..core.sources import open_into
from ..core.workspace import Workspace

if TYPE_CHECKING:
    from .lesson_panel import LessonPanel
    from .main_window import MainWindow

_QUIET = ("This plugin does not support propagateSizeHints()",)


def _message_handler(
    mode: QtCore.QtMsgType, context: QtCore.QMessageLogContext, message: str
) -> None:
    """Qt's messages go to stderr as usual, minus known harmless noise of the offscreen
    platform."""
    if not message.startswith(_QUIET):
        sys.stderr.write(message + "\n")


def get_app() -> QtWidgets.QApplication:
    """Get or create the QApplication (one entry for scripts, tests and notebooks), drawing
    with the bundled fonts."""
    app = QtWidgets.QApplication.instance()
    if app is None:
        QtCore.qInstallMessageHandler(_message_handler)
        QtCore.QCoreApplication.setOrganizationName("Tensor Explorer")
        QtCore.QCoreApplication.setApplicationName("tensor-explorer")
        app = QtWidgets.QApplication(sys.argv[:1])
        app.setApplicationDisplayName("Tensor Explorer")
    if not isinstance(app, QtWidgets.QApplication):
        raise RuntimeError("a QCoreApplication without widgets is running; Tensor Explorer "
                           "needs a QApplication")
    from . import fonts, i18n
    from .gc_guard import install

    if fonts.register() and app.font().family() not in fonts.BUNDLED:
        fonts.apply(app, i18n.current())  # the bundled fonts, whatever the system has
    install()  # garbage is collected on this (the UI) thread only
    return app


def default_settings() -> QtCore.QSettings:
    """The user's settings (layout, theme, language, recent files)."""
    path = os.environ.get("TENSOR_EXPLORER_SETTINGS")
    if path:
        return QtCore.QSettings(path, QtCore.QSettings.Format.IniFormat)
    return QtCore.QSettings("Tensor Explorer", "tensor-explorer")


def run_app(paths: Sequence[str], *, offer_recovery: bool = True, trust: bool = False) -> int:
    """Open the window on ``paths``, or on the default lesson when none is given.

    ``trust``: program and lesson files run as full Python (``--trust``); otherwise those not
    trusted before run restricted, with a bar that offers to trust them.
    The session is autosaved in the background; after a crash or a kill the next start offers
    to restore it (``offer_recovery``; never asked when TENSOR_EXPLORER_NO_DIALOGS is set).
    """
    from . import errors, i18n
    from .autosave import Autosaver, default_path, discard, pending_recovery, restore
    from .main_window import MainWindow

    app = get_app()
    errors.install()
    settings = default_settings()
    i18n.install(str(settings.value("language", "en")))  # the recovery question is asked in it
    recovery, restored = default_path(), False
    ws = Workspace()
    auto = os.environ.get("TENSOR_EXPLORER_RESTORE") == "1"  # restore without asking
    if offer_recovery and pending_recovery(recovery) and (
            auto or not os.environ.get("TENSOR_EXPLORER_NO_DIALOGS")):
        box = QtWidgets.QMessageBox
        answer = box.StandardButton.Yes if auto else box.question(
            None, "Tensor Explorer", QtCore.QCoreApplication.translate(
                "MainWindow", "Tensor Explorer did not close cleanly last time. Restore the "
                "values and history it had?"), box.StandardButton.Yes | box.StandardButton.No)
        if answer == box.StandardButton.Yes:
            try:
                ws, restored = restore(recovery), True
            except LoadError as exc:
                box.warning(None, "Tensor Explorer", exc.text(i18n.current()))
        if not restored:
            discard(recovery)
        else:
            print(f"tensor-explorer: restored {len(ws)} values: {', '.join(ws.names())}",
                  flush=True)
    win = MainWindow(ws, settings=settings, recovered=restored)
    win.autosaver = Autosaver(win, recovery)
    if paths:
        missing = [p for p in paths if not Path(p).exists() and not is_lesson(p)]
        for p in missing:
            win.show_error(
                QtCore.QCoreApplication.translate("MainWindow", "Could not open {0}").format(
                    Path(p).name), render("load.failed", i18n.current(), name=Path(p).name,
                                          why=Message("load.no-file")))
        win.open_paths([p for p in paths if p not in missing], trusted=trust)
    elif not restored:
        win.open_lesson(default_lesson())
    win.show()
    from .gc_guard import install as gc_guard

    guard = gc_guard()
    if guard is not None:  # start-up's objects stay: full collections skip them from now on
        QtCore.QTimer.singleShot(0, guard.freeze_start_up)
    quit_after = os.environ.get("TENSOR_EXPLORER_QUIT_AFTER_MS")  # tests and start-up benchmark
    if quit_after:
        QtCore.QTimer.singleShot(0, lambda: print("tensor-explorer: window shown", flush=True))
        QtCore.QTimer.singleShot(int(quit_after), win.close)
    return int(app.exec())


def explore(block: bool | None = None, **values: Any) -> Any:
    """Open the window on ``values``; block until it is closed unless an event loop runs."""
    from . import errors
    from .main_window import MainWindow

    app = get_app()
    errors.install()
    ws = Workspace()
    for name, value in values.items():
        ws[name] = value
    win = MainWindow(ws, settings=default_settings(), explored=True)
    if values:
        ws.selected = list(values)[-1]
    win.show()
    win.raise_()
    if block is None:
        block = not event_loop_running()
    if block:
        app.exec()
    return win


def event_loop_running() -> bool:
    """True inside IPython with ``%gui qt`` (or any running Qt event loop)."""
    if QtCore.QThread.currentThread().loopLevel() > 0:
        return True
    ipython = sys.modules.get("IPython")
    if ipython is not None:
        try:
            shell = ipython.get_ipython()  # type: ignore[attr-defined]
        except Exception:
            return False
        loop = getattr(shell, "active_eventloop", None)
        return bool(loop and str(loop).startswith("qt"))
    return False


def _prepare_offscreen() -> None:
    """Before the first QApplication: the offscreen platform and the bundled fonts, so a
    figure has the same pixels on every machine."""
    import atexit
    import shutil
    import tempfile

    from . import fonts

    os.environ["QT_QPA_PLATFORM"] = "offscreen"  # same pixels on every machine, no display
    scratch = tempfile.mkdtemp(prefix="tensor-explorer-")
    atexit.register(shutil.rmtree, scratch, True)
    fonts.for_figures(os.environ, scratch)  # and whatever the fontconfig or scaling


def _screenshot_lesson(source: str, lang: str, panel: str, step: int | None,
                       all_steps: str | None, out: str | None, trust: bool = False
                       ) -> Lesson | None:
    """Check the screenshot options; the lesson SOURCE names, or None for a script or file."""
    from ..core import lessons
    from .main_window import PANELS

    if panel not in (*PANELS, "window"):
        raise ValueError(f"--panel {panel!r}: choose one of {', '.join([*PANELS, 'window'])}")
    lesson = (lessons.load_lesson(source, lang, asked=trust) if lessons.is_lesson(source)
              else None)
    if lesson is None and (step is not None or all_steps is not None):
        raise ValueError("--step and --all-steps apply to lessons, and this source is not a "
                         "lesson")
    if lesson is not None and step is not None:
        lesson.step(step)  # ValueError: "lesson 'x' has steps 1 to N, not 9"
    if out is None and all_steps is None:
        raise ValueError("give --out FILE (or --all-steps DIR for a lesson)")
    return lesson


def _screenshot_workspace(source: str, lesson: Lesson | None, select: str | None,
                          step: int | None, all_steps: str | None, trust: bool = False
                          ) -> tuple[Workspace, StepResult | None]:
    """The workspace to show: a script or file opened (its last value selected unless
    ``--select`` names one), or a lesson's steps 1..``step`` run (none yet with
    ``--all-steps``); and the result of the last step run."""
    from ..core import lessons

    ws = Workspace()
    result = None
    if lesson is None:
        open_into(ws, source, trust=trust)
        if select is None and ws.names():
            ws.selected = ws.names()[-1]
    elif all_steps is None:
        result = lessons.run_lesson(lesson, ws, upto=step or 1)[-1]
    return ws, result


def _select_value(ws: Workspace, select: str | None) -> None:
    """Select the value ``--select`` names, if any."""
    if select is not None:
        if select not in ws:
            raise ValueError(f"--select {select!r}: no such value (there are: "
                             f"{', '.join(ws.names()) or 'none'})")
        ws.selected = select


def _screenshot_shown(win: MainWindow, panel: str, wh: tuple[int, int] | None,
                      lesson: bool, presentation: bool
                      ) -> tuple[QtWidgets.QWidget, tuple[int, int]]:
    """The widget to render, shown off screen at its size and laid out as the live window
    would be: the lesson layout for a lesson, the F5 layout with ``presentation``."""
    widget, wh = _screenshot_widget(win, panel, wh)
    widget.resize(*wh)
    widget.setAttribute(QtCore.Qt.WidgetAttribute.WA_DontShowOnScreen)
    widget.show()
    if lesson and panel == "window":
        win.use_lesson_layout()
    if presentation and panel == "window":  # the F5 layout, as the live window draws it
        win.set_presentation(True)
    return widget, wh


def _screenshot_widget(win: MainWindow, panel: str, wh: tuple[int, int] | None
                       ) -> tuple[QtWidgets.QWidget, tuple[int, int]]:
    """The widget to render (the window, or one panel taken out of its dock) and its size."""
    if panel == "window":
        widget: QtWidgets.QWidget = win
        wh = wh or (1280, 800)
    else:
        dock = win.docks[panel]
        widget = win.panels[panel]  # built now if it was not yet
        frame = dock.widget()
        if isinstance(frame, QtWidgets.QScrollArea):
            frame.takeWidget()  # out of its PanelFrame, which would size it to the dock
        dock.setWidget(QtWidgets.QWidget())
        widget.setParent(None)
        widget.setMinimumSize(1, 1)  # the figure has the size asked for, even below the panel's

        wh = wh or (900, 600)
    return widget, wh


def _drive_graph(win: MainWindow, backward: int | None, fit: bool, expand: str | None,
                 select_edge: str | None) -> None:
    """Do in the graph pane what ``screenshot --expand/--backward/--select-edge/--fit`` ask,
    in that order, each finished before the next (as the pane's buttons do)."""
    if backward is None and not fit and expand is None and select_edge is None:
        return
    from ..core.graph_layout import CollapsedGraph
    from .graph_panel import GraphPanel
    from .screenshot import settle

    panel = win.panels["graph"]
    assert isinstance(panel, GraphPanel)

    def done() -> None:
        settle()
        deadline = time.monotonic() + 120.0
        while panel.busy and time.monotonic() < deadline:
            settle()

    done()
    if panel.graph is None:
        raise ValueError("the graph pane shows no graph (nothing has a grad_fn)")
    if expand is not None:
        for _ in range(50):  # groups open into groups
            shown = panel.shown
            if not isinstance(shown, CollapsedGraph) or not shown.groups:
                break
            keys = _group_keys(shown, expand)
            if not keys:
                if expand != "all":
                    raise ValueError(f"--expand {expand}: no folded group has that key or "
                                     f"title")
                break
            for key in keys:
                panel.node_clicked(key)
                done()
            if expand != "all":
                break
    if backward is not None:
        if backward < 1:
            raise ValueError(f"--backward {backward}: must be at least 1")
        panel.backward(backward)
        done()
    if select_edge is not None:
        try:
            src, dst = (int(v) for v in select_edge.split(","))
        except ValueError:
            raise ValueError(f"--select-edge {select_edge}: write SRC,DST (node ids)") from None
        panel.edge_clicked((src, dst))
        done()
    if fit:
        panel.view.fit(whole=True)
        done()


def _group_keys(shown: Any, expand: str) -> list[int]:
    """The folded groups ``--expand`` names: every one ("all"), or one by key or title."""
    keys = list(shown.groups)
    if expand == "all":
        return keys
    if expand.lstrip("-").isdigit():
        return [int(expand)] if int(expand) in keys else []
    titles = {k: (i.title if getattr(i, "title", None) else "") for k, i in shown.info.items()}
    return [k for k in keys if titles.get(k) == expand
            or titles.get(k, "").split(" · ")[0] == expand][:1]


def _render_all_steps(lesson: Lesson, ws: Workspace, lesson_panel: LessonPanel,
                      widget: QtWidgets.QWidget, all_steps: str, out: str | None,
                      wh: tuple[int, int], scale: float, select: str | None
                      ) -> list[StepResult]:
    """Run and render every step of ``lesson`` into ALL_STEPS; the steps that failed."""
    from ..core import lessons
    from .screenshot import render_to_file

    failed: list[StepResult] = []
    folder = Path(all_steps)
    suffix = ".svg" if out and out.lower().endswith(".svg") else ".png"
    for st in lesson.steps:
        res = lessons.run_step(ws, st)
        lesson_panel.present(st.number, res)
        _select_value(ws, select)
        failed += [] if res.ok else [res]
        render_to_file(widget, folder / f"{lesson.name}-{lesson.language}-"
                       f"{st.number:02d}{suffix}", wh, scale)
    return failed


def _warn_failures(failed: list[StepResult]) -> None:
    """One warning on stderr for each expectation a step did not meet."""
    for res in failed:
        for c in res.failures:
            print(f"tensor-explorer: warning: step {res.step.number}: {c.text} -- {c.detail}",
                  file=sys.stderr)


def screenshot_main(source: str, out: str | None, panel: str = "window", step: int | None = None,
                    select: str | None = None, size: str | None = None, scale: float = 1.0,
                    theme_name: str = "light", lang: str = "en",
                    all_steps: str | None = None, presentation: bool = False,
                    trust: bool = False, backward: int | None = None, fit: bool = False,
                    expand: str | None = None, select_edge: str | None = None) -> int:
    """``tensor-explorer screenshot``: render one panel (or the window) to PNG/SVG, headless.

    A lesson SOURCE (file or shipped name) runs steps 1..``step`` (default 1) and shows that
    step: prose in the lesson panel, its panel in front, its value selected. ``all_steps=DIR``
    writes every step as DIR/<lesson>-<lang>-NN.png (.svg when ``out`` ends in .svg).
    Returns 1 (after writing) if a step's expectations did not hold. A program or lesson file
    runs as in the window: restricted unless trusted (shipped, remembered, or ``trust``).
    The graph pane is then driven as a person would (:func:`_drive_graph`): ``expand``
    ("all" or a group's key or title), Backward ``backward`` times, ``select_edge``
    ("SRC,DST"), Fit (``fit``).
    """
    if QtWidgets.QApplication.instance() is None:
        _prepare_offscreen()
    from . import i18n, theme
    from .lesson_panel import LessonPanel
    from .main_window import MainWindow
    from .screenshot import parse_size, render_to_file

    wh = parse_size(size)
    lesson = _screenshot_lesson(source, lang, panel, step, all_steps, out, trust)
    app = get_app()
    i18n.install(lang)
    ws, result = _screenshot_workspace(source, lesson, select, step, all_steps, trust)
    win = MainWindow(ws, settings=None)
    theme.state().apply(theme_name, scale=theme.PRESENTATION_SCALE if presentation else 1.0)
    lesson_panel = win.panels["lesson"]
    assert isinstance(lesson_panel, LessonPanel)
    if lesson is not None:
        lesson_panel.open_lesson(source, run=False, trusted=trust)
    widget, wh = _screenshot_shown(win, panel, wh, lesson is not None, presentation)
    failed: list[StepResult] = []
    try:
        if lesson is not None and all_steps is not None:
            failed = _render_all_steps(lesson, ws, lesson_panel, widget, all_steps, out, wh,
                                       scale, select)
        else:
            if lesson is not None and result is not None:
                lesson_panel.present(result.step.number, result)
                failed += [] if result.ok else [result]
            _select_value(ws, select)
            _drive_graph(win, backward, fit, expand, select_edge)
            assert out is not None
            render_to_file(widget, out, wh, scale)
    finally:
        widget.close()
        win.close()
        app.processEvents()
    _warn_failures(failed)
    return 1 if failed else 0
