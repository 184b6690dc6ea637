"""The lesson player: a lesson's prose step by step, each step run in the workspace and checked.

The lesson itself (parsing, expectations, the list of shipped lessons) lives in
:mod:`tensor_explorer.core.lessons`; this panel only drives it. Each step's code goes through
the window's :class:`~tensor_explorer.qt.run_controller.RunController` (a worker thread, like
everything else that changes the workspace), so it appears in the Code panel and can be stopped;
its expectations are checked when the run reports back, and the result is shown as a green ✓ /
red ✗ list. Going *back* (or re-running the current step) clears the workspace and replays the
steps from the first, so every step is always seen in the state its lesson describes.

Keys (anywhere in the window): PageDown / Alt+Right next step, PageUp / Alt+Left previous step
(presentation clickers send PageDown/PageUp); text editors keep PageDown for scrolling.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from ..core import lessons as core
from ..core.catalog import text_in
from ..core.lesson_player import LessonPlayer, LessonState
from . import fonts, i18n, theme
from .bridge import WorkspaceBridge
from .flow_layout import FlowLayout
from .lesson_checks import CheckList
from .run_controller import RunController
from .trust_bar import TrustBar

__all__ = ["LessonPanel", "LessonState", "StepCombo"]

#: how much larger than the interface the lesson text is (it is read from the back of a room)
PROSE_SCALE = 1.25


class StepCombo(QtWidgets.QComboBox):
    """The step chooser: closed, it says where the lesson is ("Step 3 of 6", which always
    fits); open, it lists every step's full title (the list is as wide as the longest)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = "{0} / {1}"  # "Step {0} of {1}" in the window's language
        self.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToContents)

    def shown_text(self) -> str:
        if self.currentIndex() < 0:
            return ""
        return self.summary.format(self.currentIndex() + 1, self.count())

    def _size_for(self, text: str) -> QtCore.QSize:
        opt = QtWidgets.QStyleOptionComboBox()
        self.initStyleOption(opt)
        fm = self.fontMetrics()
        content = QtCore.QSize(fm.horizontalAdvance(text) + 4, fm.height())
        return self.style().sizeFromContents(
            QtWidgets.QStyle.ContentsType.CT_ComboBox, opt, content, self)

    def sizeHint(self) -> QtCore.QSize:
        n = max(self.count(), 1)
        return self._size_for(self.summary.format(n, n))

    def minimumSizeHint(self) -> QtCore.QSize:
        return self.sizeHint()

    def showPopup(self) -> None:
        view = self.view()
        fm = view.fontMetrics()
        widest = max((fm.horizontalAdvance(self.itemText(i)) for i in range(self.count())),
                     default=0)
        need = widest + 4 * fm.averageCharWidth() + view.verticalScrollBar().sizeHint().width()
        screen = self.screen()
        if screen is not None:  # never wider than the screen: then titles elide in the middle
            need = min(need, screen.availableGeometry().width())
        view.setMinimumWidth(need)
        view.setTextElideMode(QtCore.Qt.TextElideMode.ElideMiddle)
        for i in range(self.count()):  # the whole title, also when elided
            self.setItemData(i, self.itemText(i), QtCore.Qt.ItemDataRole.ToolTipRole)
        super().showPopup()

    def event(self, e: QtCore.QEvent) -> bool:
        if e.type() == QtCore.QEvent.Type.ToolTip:  # closed, it names the current step in full
            self.setToolTip(self.currentText())
        return super().event(e)

    def paintEvent(self, e: QtGui.QPaintEvent) -> None:
        painter = QtWidgets.QStylePainter(self)
        opt = QtWidgets.QStyleOptionComboBox()
        self.initStyleOption(opt)
        opt.currentText = self.shown_text()
        painter.drawComplexControl(QtWidgets.QStyle.ComplexControl.CC_ComboBox, opt)
        painter.drawControl(QtWidgets.QStyle.ControlElement.CE_ComboBoxLabel, opt)


class LessonPanel(QtWidgets.QWidget):
    """Choose a lesson, read a step, run it, go next/previous/reset/jump.

    The lesson, the step shown and the rules for stepping live in :attr:`player` (a Qt-free
    :class:`~tensor_explorer.core.lesson_player.LessonPlayer`); this panel subscribes to its
    events and draws. ``show_panel(name)`` asks the window to bring a panel (``"memory"``,
    ``"graph"``...) to the front. ``step_shown(number)`` fires once a step has run and is
    displayed.
    """

    step_shown = QtCore.Signal(int)
    lesson_opened = QtCore.Signal(str)
    # going back or Reset is about to replace the workspace, and whoever was asked agreed
    restarting = QtCore.Signal()

    def __init__(
        self,
        bridge: WorkspaceBridge,
        runner: RunController,
        show_panel: Callable[[str], None],
        parent: QtWidgets.QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("LessonPanel")
        self.bridge = bridge
        self.runner = runner
        self.show_panel = show_panel
        self.player = LessonPlayer(bridge.workspace, runner,
                                   lambda fn: QtCore.QTimer.singleShot(0, fn))
        #: asked before a lesson replaces the workspace (``what`` happens): True to go on
        self.confirm_replace: Callable[[str], bool] | None = None
        self.player.confirm_clear = self._confirm_clear
        #: the message shown instead of a step (its title, re-translated; its detail), if any
        self._message: tuple[Callable[[], str], str] | None = None
        self._build()
        # the runner reports from its thread: through this panel's slots, on the UI thread
        runner.finished.connect(self._run_finished)
        runner.failed.connect(self._run_failed)
        runner.busy_changed.connect(self._busy_changed)
        events = self.player.events
        events.opened.connect(self._opened)
        events.started.connect(self._steps_started)
        events.running.connect(self._show_running)
        events.displayed.connect(self._render)
        events.show_panel.connect(self._ask_panel)
        events.changed.connect(self._update_controls)
        events.step_done.connect(self._step_done)
        theme.state().changed.connect(self._restyle)
        self._fill_lessons()
        self._restyle()
        self._update_controls()

    def _confirm_clear(self, navigation: str) -> bool:
        """Going back, a jump back or Reset replays the lesson from step 1 in a cleared
        workspace: ask first (see :mod:`tensor_explorer.core.unsaved`)."""
        if self.confirm_replace is None:
            return True
        what = (self.tr("Reset starts the lesson again from step 1, which replaces them.")
                if navigation == "lesson-reset" else
                self.tr("Going back replays the lesson from step 1, which replaces them."))
        if not self.confirm_replace(what):
            if self.current:  # the step chooser shows the step still shown
                self.step_combo.blockSignals(True)
                self.step_combo.setCurrentIndex(self.current - 1)
                self.step_combo.blockSignals(False)
            return False
        self.restarting.emit()
        return True

    # -- building ------------------------------------------------------------------------------

    def _build(self) -> None:
        self._build_navigation()
        self._set_texts()
        self._build_step_view()
        self._lay_out()
        window = QtCore.Qt.ShortcutContext.WindowShortcut
        for keys, slot in (("PgDown", self.next_step), ("Alt+Right", self.next_step),
                           ("PgUp", self.previous_step), ("Alt+Left", self.previous_step)):
            shortcut = QtGui.QShortcut(QtGui.QKeySequence(keys), self)
            shortcut.setContext(window)
            shortcut.activated.connect(slot)

    def _build_navigation(self) -> None:
        """The lesson chooser, the step chooser and the Previous/Next/Reset buttons."""
        self.lesson_combo = QtWidgets.QComboBox()
        self.lesson_combo.setObjectName("lessonCombo")
        self.lesson_combo.setSizeAdjustPolicy(
            QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.lesson_combo.setMinimumContentsLength(12)
        self.lesson_combo.activated.connect(self._lesson_chosen)
        self.step_combo = StepCombo()
        self.step_combo.setObjectName("stepCombo")
        self.step_combo.activated.connect(lambda index: self.go_to(index + 1))
        self.prev_button = QtWidgets.QPushButton()
        self.prev_button.clicked.connect(self.previous_step)
        self.next_button = QtWidgets.QPushButton()
        self.next_button.clicked.connect(self.next_step)
        self.reset_button = QtWidgets.QPushButton()
        self.reset_button.clicked.connect(self.reset)

    def _build_step_view(self) -> None:
        """What shows the step: the progress line, its title, its prose, the trust bar and
        the checks."""
        self.progress = QtWidgets.QLabel()
        self.progress.setObjectName("lessonProgress")
        self.title = QtWidgets.QLabel()
        self.title.setObjectName("lessonStepTitle")
        self.title.setWordWrap(True)
        self.title.setTextFormat(QtCore.Qt.TextFormat.PlainText)
        self.prose = QtWidgets.QTextBrowser()
        self.prose.setObjectName("lessonProse")
        self.prose.setOpenExternalLinks(False)
        self.prose.setOpenLinks(False)
        # a lesson file nobody trusted yet runs restricted: say so, offer to trust it
        self.trust_bar = TrustBar()
        self.trust_bar.trusted.connect(self.trust_lesson)
        self.checks = CheckList()

    def _lay_out(self) -> None:
        top = QtWidgets.QHBoxLayout()
        top.addWidget(self.lesson_combo, 1)
        nav = FlowLayout(spacing=6)  # wraps in a narrow dock or at a projector's text size
        nav.addWidget(self.prev_button)
        nav.addWidget(self.step_combo)
        nav.addWidget(self.next_button)
        nav.addWidget(self.reset_button)
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        split.addWidget(self.prose)
        split.addWidget(self.checks)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.trust_bar)
        layout.addLayout(top)
        layout.addLayout(nav)
        layout.addWidget(self.progress)
        layout.addWidget(self.title)
        layout.addWidget(split, 1)
        self.splitter = split

    def _set_texts(self) -> None:
        """The buttons' labels and tool tips in the current language."""
        self.prev_button.setText(self.tr("◀ Previous"))
        self.prev_button.setToolTip(self.tr("Previous step (PageUp, Alt+Left)"))
        self.next_button.setText(self.tr("Next ▶"))
        self.next_button.setToolTip(self.tr("Next step (PageDown, Alt+Right)"))
        self.reset_button.setText(self.tr("Reset"))
        self.reset_button.setToolTip(self.tr("Clear the workspace and start the lesson again"))

    def retranslate(self) -> None:
        """Show everything in the language just installed, running nothing: the same lesson in
        that language (when it has it), at the same step and position, with the same check
        results; the lesson and step choosers keep their entries selected."""
        self._set_texts()
        self.trust_bar.retranslate()
        self._switch_lesson_language()
        self._fill_lessons()
        step_index = self.step_combo.currentIndex()
        self._fill_steps()
        self.step_combo.blockSignals(True)
        self.step_combo.setCurrentIndex(step_index)
        self.step_combo.blockSignals(False)
        bar = self.prose.verticalScrollBar()
        fraction = bar.value() / bar.maximum() if bar.maximum() > 0 else 0.0
        if self._message is not None:
            self._show_message(*self._message)
        elif self.lesson is not None and self.current:
            self._render()  # title, prose, step chooser, checks
            if fraction:  # the same place in the other language's prose, roughly
                self.prose.document().documentLayout().documentSize()  # lays it out: bar range
                bar.setValue(round(fraction * bar.maximum()))
        pending = self.player.pending
        if pending is not None:
            self._show_running(pending.number)  # "Running step N…"
        else:
            self._update_controls()

    def _switch_lesson_language(self) -> None:
        """Load the open lesson in the current language (the same steps: its code and
        directives are identical in every language); keep it as it is if that fails."""
        self.player.switch_language(i18n.current())

    def _fill_lessons(self) -> None:
        lang = i18n.current()
        self.lesson_combo.blockSignals(True)
        self.lesson_combo.clear()
        try:
            infos = core.list_lessons()
        except core.LessonError as exc:
            infos = []
            self._show_message(lambda: self.tr("The shipped lessons could not be read"),
                               exc.message)
        for info in infos:
            self.lesson_combo.addItem(info.titles.get(lang, info.title), info.name)
        if self.source is not None and self.lesson_combo.findData(self.source) < 0:
            title = self.lesson.title if self.lesson is not None else Path(self.source).name
            self.lesson_combo.addItem(title, self.source)
        self.lesson_combo.insertSeparator(self.lesson_combo.count())
        self.lesson_combo.addItem(self.tr("Open lesson file…"), None)
        index = self.lesson_combo.findData(self.source) if self.source is not None else -1
        self.lesson_combo.setCurrentIndex(max(index, 0) if self.source is not None else -1)
        self.lesson_combo.blockSignals(False)

    def _restyle(self) -> None:
        font = QtWidgets.QApplication.font()
        size = font.pointSizeF() if font.pointSizeF() > 0 else theme.BASE_POINT_SIZE
        font.setPointSizeF(size * PROSE_SCALE)
        self.prose.document().setDefaultFont(font)
        self.prose.setFont(font)
        checks_font = QtWidgets.QApplication.font()
        checks_font.setPointSizeF(size * 1.1)
        self.checks.setFont(checks_font)
        title_font = QtWidgets.QApplication.font()
        title_font.setPointSizeF(size * 1.45)
        title_font.setBold(True)
        self.title.setFont(title_font)
        if self.lesson is not None and self.current:
            self._render()

    # -- opening -------------------------------------------------------------------------------

    def open_lesson(self, source: str | Path, *, run: bool = True,
                    trusted: bool = False) -> bool:
        """Open a lesson (a shipped name or a file) in the app's language; with ``run``, clear
        the workspace and run its first step. False (and a message) if it cannot be read.
        A lesson file runs restricted unless it is trusted (shipped, remembered, or
        ``trusted``: the command line's ``--trust``); the trust bar then says so."""
        try:
            lesson = self.player.load(source, i18n.current(), trusted)
        except core.LessonError as exc:
            self._show_message(lambda: self.tr("This lesson cannot be opened"), exc.message)
            return False
        if run and self.confirm_replace is not None and not self.confirm_replace(
                self.tr("Opening the lesson “{0}” replaces them.").format(lesson.title)):
            self._fill_lessons()  # the chooser shows the lesson still open
            return False
        self.player.open(lesson, source, run=run, trusted=trusted)
        return True

    def _opened(self, source: str) -> None:
        self._ask_trust()
        self._fill_lessons()
        self._fill_steps()
        self.lesson_opened.emit(source)

    def _ask_trust(self) -> None:
        lesson = self.lesson
        if lesson is None or lesson.trusted:
            self.trust_bar.dismiss()
            return
        name = Path(lesson.path).name if lesson.path else lesson.name
        self.trust_bar.ask(lambda: self.tr(
            "{0} came from a file and runs restricted: imports beyond torch, NumPy and math, "
            "file access and other risky calls are refused. Trust it only if you trust where "
            "it came from.").format(name))

    def trust_lesson(self) -> None:
        """Trust the open lesson (each language's file, as it is now) and start it again as
        full Python."""
        if self.source is None or self.lesson is None:
            return
        try:
            self.player.trust()  # each language's file that shows the same steps
        except (OSError, core.LessonError) as exc:
            why = exc.message if isinstance(exc, core.LessonError) else str(exc)
            self.trust_bar.ask(lambda: self.tr("It could not be trusted: {0}").format(
                text_in(why, i18n.current())))
            return
        self.open_lesson(self.source)

    def _lesson_chosen(self, index: int) -> None:
        data = self.lesson_combo.itemData(index)
        if data is None:
            self.open_dialog()
            return
        if data != self.source:
            self.open_lesson(str(data))

    def open_dialog(self) -> None:
        """Ask for a lesson file and open it."""
        path, _ = QtWidgets.QFileDialog.getOpenFileName(
            self, self.tr("Open lesson"), str(core.shipped_dir()),
            self.tr("Lessons (*.md)"))
        if path:
            self.open_lesson(path)
        else:
            self._fill_lessons()  # back to the lesson that is open

    def _fill_steps(self) -> None:
        self.step_combo.blockSignals(True)
        self.step_combo.clear()
        if self.lesson is not None:
            for step in self.lesson.steps:
                self.step_combo.addItem(f"{step.number}. {step.title}")
        self.step_combo.summary = self.tr("Step {0} of {1}")
        self.step_combo.blockSignals(False)
        self.step_combo.updateGeometry()

    # -- state for the window ------------------------------------------------------------------

    def state(self) -> LessonState | None:
        """What this panel shows (None: no lesson), for :meth:`restore`."""
        return self.player.state()

    def restore(self, state: LessonState | None) -> None:
        """Show ``state`` again (after a language change) without running anything: the
        workspace already holds what those steps made."""
        if state is None or not self.open_lesson(state.source, run=False,
                                                 trusted=state.trusted):
            return
        self.present(state.current, state.result, position=state.position, focus=False)

    def present(self, number: int, result: core.StepResult | None = None, *,
                position: int | None = None, focus: bool = True) -> None:
        """Display step ``number`` as already run (the workspace holds steps 1..``position``,
        default ``number``), e.g. after :func:`core.run_lesson` filled it for a screenshot;
        with ``focus``, show its panel and select its value."""
        self.player.present(number, result, position=position, focus=focus)

    # the player's state, read where the panel was read before it had a model
    @property
    def lesson(self) -> core.Lesson | None:
        return self.player.lesson

    @property
    def source(self) -> str | None:
        return self.player.source

    @property
    def position(self) -> int:
        """Steps run in the workspace, in order, since the last reset."""
        return self.player.position

    @property
    def current(self) -> int:
        """The step displayed (0: none)."""
        return self.player.current

    @property
    def result(self) -> core.StepResult | None:
        return self.player.result

    # -- navigation ----------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """True while steps are running (or waiting for another program to finish)."""
        return self.player.busy

    @property
    def stepping(self) -> bool:
        """True while the lesson runs its steps (or clears the workspace for them)."""
        return self.player.stepping

    def next_step(self) -> None:
        self.player.next_step()

    def previous_step(self) -> None:
        self.player.previous_step()

    def reset(self) -> None:
        """Clear the workspace and run the first step again."""
        self.player.reset()

    def go_to(self, number: int, *, fresh: bool = False) -> None:
        """Show step ``number``: run the steps up to it. Going forward runs only the steps not
        yet run; going back (or ``fresh``) clears the workspace and replays from step 1."""
        self.player.go_to(number, fresh=fresh)

    # the runner's reports arrive here, on the UI thread, and go to the player
    def _run_finished(self, names: list[str]) -> None:
        self.player.run_finished(names)

    def _run_failed(self, error: object) -> None:
        self.player.run_failed(error)

    def _busy_changed(self, busy: bool) -> None:
        if not busy:
            self.player.runner_idle()

    def _steps_started(self) -> None:
        self.checks.clear()

    def _step_done(self, number: int) -> None:
        self.step_shown.emit(number)

    def _ask_panel(self, panel: str) -> None:
        # after the window's own reaction to the run (it raises the output on an error)
        QtCore.QTimer.singleShot(0, lambda: self.show_panel(panel))

    # -- display -------------------------------------------------------------------------------

    def _show_running(self, number: int) -> None:
        self.progress.setText(self.tr("Running step {0}…").format(number))
        self.progress.show()
        self._update_controls()

    def _show_message(self, title: Callable[[], str], message: str) -> None:
        """Show a message instead of a step: ``title()`` gives its title and ``message`` (a
        core catalog Message, such as why a lesson cannot be read, or plain text) its detail,
        both in the current language (shown again by :meth:`retranslate`)."""
        self._message = (title, message)
        self.title.setText(title())
        self.prose.setHtml(f"<p>{html.escape(text_in(message, i18n.current()))}</p>")
        self.checks.clear()

    def _render(self) -> None:
        lesson = self.lesson
        if lesson is None or not self.current:
            return
        step = lesson.step(self.current)
        self._message = None
        self.title.setText(f"{step.number}. {step.title}")
        self.prose.setMarkdown(self.player.markdown())
        self._style_code()
        self.step_combo.blockSignals(True)
        self.step_combo.setCurrentIndex(step.number - 1)
        self.step_combo.blockSignals(False)
        self.checks.show_result(self.result, self.player.replay_failures)

    def _style_code(self) -> None:
        """Code in a monospace font: code blocks a little smaller than the prose (so that a
        line of code fits), on a tinted background; inline code in the accent colour."""
        doc = self.prose.document()
        t = theme.current()
        size = doc.defaultFont().pointSizeF()
        cursor = QtGui.QTextCursor(doc)
        block = doc.begin()
        fence = QtGui.QTextFormat.Property.BlockCodeFence
        while block.isValid():
            in_block = block.blockFormat().hasProperty(fence)
            if in_block:
                fmt = block.blockFormat()
                fmt.setBackground(QtGui.QColor(t.alt_base))
                fmt.setNonBreakableLines(False)  # a long line wraps: never cut off at the edge
                cursor.setPosition(block.position())
                cursor.setBlockFormat(fmt)
            it = block.begin()
            while not it.atEnd():
                frag = it.fragment()
                if frag.isValid() and (in_block or frag.charFormat().fontFixedPitch()):
                    char = QtGui.QTextCharFormat()
                    # the whole font (families, pitch, hinting), not just a family name: the
                    # Markdown reader names the system's fixed font, which must not win
                    char.setFont(fonts.mono_font(size * (0.8 if in_block else 0.95)),
                                 QtGui.QTextCharFormat.FontPropertiesInheritanceBehavior
                                 .FontPropertiesAll)
                    if not in_block:
                        char.setForeground(QtGui.QColor(t.accent))
                    cursor.setPosition(frag.position())
                    cursor.setPosition(frag.position() + frag.length(),
                                       QtGui.QTextCursor.MoveMode.KeepAnchor)
                    cursor.mergeCharFormat(char)
                it += 1
            block = block.next()

    def _update_controls(self) -> None:
        lesson = self.lesson
        has = lesson is not None
        n = len(lesson.steps) if lesson is not None else 0
        self.prev_button.setEnabled(self.player.can_go_back)
        self.next_button.setEnabled(self.player.can_go_forward)
        self.reset_button.setEnabled(has)
        self.step_combo.setEnabled(has)
        if not has:
            self.progress.setText(self.tr("Choose a lesson."))
        elif self.player.pending is not None:
            pass  # "Running step N…" stays
        elif self.current:
            self.progress.setText(self.tr("Step {0} of {1}").format(self.current, n))
        else:
            self.progress.setText(self.tr("1 step") if n == 1 else
                                  self.tr("{0} steps").format(n))
        # the step chooser says "Step 3 of 6" already: the line shows only other news
        self.progress.setVisible(self.progress.text() != self.step_combo.shown_text())

    # -- for tests and screenshots -------------------------------------------------------------

    def check_texts(self) -> list[str]:
        """The lines of the checks list, as shown."""
        return self.checks.texts()

    def prose_text(self) -> str:
        """The step title and prose as plain text."""
        return f"{self.title.text()}\n{self.prose.toPlainText()}"

    def sizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(420, 600)

    def closeEvent(self, e: Any) -> None:
        self.player.stop()
        super().closeEvent(e)
