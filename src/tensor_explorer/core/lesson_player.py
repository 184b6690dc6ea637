"""The lesson player's model: which lesson is open, which step is shown, what ran, what is next.

:class:`LessonPlayer` follows a :class:`~tensor_explorer.core.workspace.Workspace` through one
:class:`~tensor_explorer.core.lessons.Lesson`. It holds the step state machine — steps run so far
(``position``), the step shown (``current``) and its :class:`~tensor_explorer.core.lessons.
StepResult`, the steps queued to run, a step asked for while another program held the
workspace — and the rules: going forward runs only the steps not yet run; going back (or
``fresh``) clears the workspace and replays from step 1, so a step is always seen in the state its
lesson describes. What one step means (skipped here, checked without running, run then checked)
comes from :mod:`tensor_explorer.core.lessons` (:func:`~tensor_explorer.core.lessons.
result_without_running`, :func:`~tensor_explorer.core.lessons.step_ran`), shared with the
headless ``tensor-explorer check``.

A step's code runs through a :class:`StepRunner`: the window's ``RunController`` (a worker
thread; its owner forwards its reports to :meth:`LessonPlayer.run_finished`,
:meth:`~LessonPlayer.run_failed` and :meth:`~LessonPlayer.runner_idle`), or :class:`InlineRunner`
here, which runs in the calling thread (tests, scripts). The lesson panel (``qt/lesson_panel.py``)
subscribes to the events and only draws:

- ``events.opened(source)``: a lesson was opened (nothing ran yet);
- ``events.started()``: a run of steps begins: the checks shown are out of date;
- ``events.running(number)``: step ``number``'s code now runs;
- ``events.displayed()``: ``current`` and ``result`` changed: show that step;
- ``events.show_panel(name)``: the step shown wants this panel in front;
- ``events.changed()``: what can be done next changed (queue, position, busy);
- ``events.step_done(number)``: step ``number`` ran and is displayed.

This module never imports Qt.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from psygnal import Signal, SignalGroup

from . import lessons as core
from . import trust as core_trust
from .runner import ProgramError
from .workspace import Workspace

__all__ = ["InlineRunner", "LessonPlayer", "LessonPlayerEvents", "LessonState", "StepRunner"]


class StepRunner(Protocol):
    """What runs a step's code (the window's ``RunController`` is one): it reports back later,
    through its owner, to :meth:`LessonPlayer.run_finished` or :meth:`LessonPlayer.run_failed`."""

    device: str | None

    @property
    def busy(self) -> bool: ...

    def run(self, source: str, device: str | None = None, *, select: str | None = None,
            restricted: bool | None = None) -> bool: ...


class InlineRunnerEvents(SignalGroup):
    finished = Signal(list)  # names bound or changed
    failed = Signal(object)  # the ProgramError


class InlineRunner:
    """A :class:`StepRunner` that runs in the calling thread and reports at once (tests,
    scripts); :meth:`LessonPlayer.inline` makes one and connects it."""

    def __init__(self, workspace: Workspace, device: str | None = None) -> None:
        self.workspace = workspace
        self.device = device
        self.events = InlineRunnerEvents()
        self._busy = False

    @property
    def busy(self) -> bool:
        return self._busy

    def run(self, source: str, device: str | None = None, *, select: str | None = None,
            restricted: bool | None = None) -> bool:
        if self._busy:
            return False
        self._busy = True
        try:
            names = self.workspace.run(source, device=device or self.device,
                                       restricted=restricted, time_limit=core.STEP_TIME_LIMIT)
        except ProgramError as err:
            self._busy = False
            self.events.failed.emit(err)
            return True
        self._busy = False
        self.events.finished.emit(names)
        return True


@dataclass(frozen=True)
class LessonState:
    """What the player shows, to carry over when the window rebuilds its panels: the lesson
    source (a shipped name or a file), how many steps have run, and the step displayed."""

    source: str
    position: int
    current: int
    result: core.StepResult | None = None
    #: the user asked for this lesson to run as full Python (``--trust``) for this session
    trusted: bool = False


class LessonPlayerEvents(SignalGroup):
    """The player's events (see the module's documentation)."""

    opened = Signal(str)
    started = Signal()
    running = Signal(int)
    displayed = Signal()
    show_panel = Signal(str)
    changed = Signal()
    step_done = Signal(int)


def _now(fn: Callable[[], None]) -> None:
    fn()


class LessonPlayer:
    """One lesson, stepped through in ``workspace`` by ``runner``.

    ``call_soon(fn)`` runs ``fn`` once the caller's event loop is free (the panel passes a
    zero-delay timer); by default it runs at once.
    """

    def __init__(self, workspace: Workspace, runner: StepRunner,
                 call_soon: Callable[[Callable[[], None]], None] = _now) -> None:
        self.workspace = workspace
        self.runner = runner
        self.call_soon = call_soon
        self.events = LessonPlayerEvents()
        self.lesson: core.Lesson | None = None
        self.source: str | None = None
        self.trusted_by_user = False  # trusted for this session (the command line's --trust)
        self.position = 0  # steps run in the workspace, in order, since the last reset
        self.current = 0  # the step displayed (0: none)
        self.result: core.StepResult | None = None
        #: steps that failed while replaying towards the step shown
        self.replay_failures: list[core.StepResult] = []
        self._queue: list[int] = []
        self.pending: core.Step | None = None  # the step whose code is running
        self._launching = False
        self._clearing = False
        self._deferred: int | None = None  # a step asked for while something was running
        #: asked before going back, a jump back or Reset clears the workspace (with the
        #: navigation: "lesson-back", "lesson-jump-back" or "lesson-reset", see
        #: :mod:`.unsaved`); False keeps everything as it is. None: never asked (scripts).
        self.confirm_clear: Callable[[str], bool] | None = None

    @classmethod
    def inline(cls, workspace: Workspace | None = None,
               device: str | None = None) -> LessonPlayer:
        """A player that runs each step in the calling thread (tests, scripts)."""
        ws = workspace if workspace is not None else Workspace()
        runner = InlineRunner(ws, device)
        player = cls(ws, runner)
        runner.events.finished.connect(player.run_finished)
        runner.events.failed.connect(player.run_failed)
        return player

    # -- opening -------------------------------------------------------------------------------

    @staticmethod
    def load(source: str | Path, lang: str | None, trusted: bool = False) -> core.Lesson:
        """Read a lesson (a shipped name or a file) in ``lang``, trusted when ``trusted``
        (the command line's ``--trust``); :class:`~tensor_explorer.core.lessons.LessonError`
        if it cannot be read."""
        return core.load_lesson(source, lang, asked=trusted)

    def open(self, lesson: core.Lesson, source: str | Path, *, run: bool = True,
             trusted: bool = False) -> None:
        """Show ``lesson`` (read from ``source``) from its start; with ``run``, clear the
        workspace and run its first step."""
        self.trusted_by_user = trusted
        self.lesson = lesson
        self.source = str(source)
        self.position = 0
        self.current = 0
        self.result = None
        self._queue.clear()
        self.events.opened.emit(self.source)
        if run:
            self.go_to(1, fresh=True, asked=True)  # (whoever opened it asked)
        else:
            self.events.changed.emit()

    def switch_language(self, lang: str) -> bool:
        """Load the open lesson in ``lang`` (the same steps: code and directives are identical
        in every language); False, keeping it as it is, if that fails or changes nothing."""
        if self.lesson is None or self.source is None or self.lesson.language == lang:
            return False
        try:
            lesson = self.load(self.source, lang, self.trusted_by_user)
        except core.LessonError:
            return False  # the file went away or broke: keep showing what was read
        if len(lesson.steps) != len(self.lesson.steps):
            return False  # not the same lesson step by step: the position would mean another
        self.lesson = lesson
        if self.pending is not None:  # the step now running, as the new language has it
            self.pending = lesson.step(self.pending.number)
        return True

    def trust(self) -> None:
        """Remember each language's file of the open lesson as trusted — only those whose code
        and directives, as the file is now, are those of the lesson shown (another file, or a
        file changed since, could hide other code). OSError or LessonError if that fails."""
        if self.source is None or self.lesson is None:
            return
        shown = self.lesson
        for path in core.lesson_variants(self.source).values():
            if not core.compare_languages([shown, core.read_lesson(path)]):
                core_trust.trust_file(path)

    # -- state ---------------------------------------------------------------------------------

    def state(self) -> LessonState | None:
        """What this player shows (None: no lesson), for :meth:`present` after a reopen."""
        if self.source is None:
            return None
        return LessonState(self.source, self.position, self.current, self.result,
                           self.trusted_by_user)

    @property
    def busy(self) -> bool:
        """True while steps are running (or waiting for another program to finish)."""
        return self.pending is not None or bool(self._queue) or self._deferred is not None

    @property
    def stepping(self) -> bool:
        """True while the lesson runs its steps (or clears the workspace for them)."""
        return self._clearing or self.pending is not None or bool(self._queue)

    @property
    def target(self) -> int:
        """The step that will be shown once what is queued has run."""
        return self._queue[-1] if self._queue else (
            self.pending.number if self.pending is not None else self.current)

    @property
    def wanted(self) -> int:
        """The step last asked for (also one waiting for another program)."""
        return abs(self._deferred) if self._deferred is not None else self.target

    @property
    def can_go_back(self) -> bool:
        return self.lesson is not None and self.target > 1

    @property
    def can_go_forward(self) -> bool:
        return self.lesson is not None and self.target < len(self.lesson.steps)

    def present(self, number: int, result: core.StepResult | None = None, *,
                position: int | None = None, focus: bool = True) -> None:
        """Display step ``number`` as already run (the workspace holds steps 1..``position``,
        default ``number``), e.g. after :func:`core.run_lesson` filled it; with ``focus``,
        select its value and ask for its panel."""
        if self.lesson is None:
            raise RuntimeError("open a lesson first")
        step = self.lesson.step(number)
        self.position = number if position is None else position
        self.current = number
        self.result = result
        self.replay_failures = []
        self.events.displayed.emit()
        if focus:
            self.focus(step, result)
        self.events.changed.emit()

    def markdown(self) -> str:
        """The text of the step shown, as Markdown ("" when none is): the lesson's
        introduction comes before the first step's own text."""
        if self.lesson is None or not self.current:
            return ""
        step = self.lesson.step(self.current)
        parts = []
        if step.number == 1 and self.lesson.intro:
            parts.append(self.lesson.intro)
        if step.markdown:
            parts.append(step.markdown)
        return "\n\n".join(parts)

    def selection(self, step: core.Step, result: core.StepResult | None) -> str | None:
        """The value the step shown selects: its ``select:``, else what it bound last."""
        return result.select if result is not None else step.select

    def focus(self, step: core.Step, result: core.StepResult | None) -> None:
        """Select the step's value (when it exists and nothing runs) and ask for its panel."""
        select = self.selection(step, result)
        ws = self.workspace
        if select is not None and select in ws and not ws.running:
            ws.selected = select
        if step.panel is not None:
            self.events.show_panel.emit(step.panel)

    # -- navigation ----------------------------------------------------------------------------

    def next_step(self) -> None:
        if self.lesson is not None and self.wanted + 1 <= len(self.lesson.steps):
            self.go_to(self.wanted + 1)

    def previous_step(self) -> None:
        if self.lesson is not None and self.wanted - 1 >= 1:
            self.go_to(self.wanted - 1, navigation="lesson-back")

    def reset(self) -> None:
        """Clear the workspace and run the first step again."""
        if self.lesson is not None:
            self.go_to(1, fresh=True, navigation="lesson-reset")

    def go_to(self, number: int, *, fresh: bool = False, asked: bool = False,
              navigation: str = "lesson-jump-back") -> None:
        """Show step ``number``: run the steps up to it. Going forward runs only the steps not
        yet run; going back (or ``fresh``) clears the workspace and replays from step 1, after
        :attr:`confirm_clear` agreed (unless ``asked`` already). While a step (or another
        program) runs, the request waits for it."""
        if self.lesson is None:
            return
        number = max(1, min(number, len(self.lesson.steps)))
        busy = self.pending is not None or self.runner.busy
        clears = fresh or number <= (self.target if busy else self.position)
        if (clears and not asked and self.confirm_clear is not None
                and not self.confirm_clear("lesson-reset" if fresh else navigation)):
            self.events.changed.emit()  # (the step chooser shows the step still shown)
            return
        if busy:
            if self.pending is not None and not fresh and number > self.target \
                    and self._deferred is None:
                self._queue.extend(range(self.target + 1, number + 1))
            else:
                self._deferred = -number if fresh else number
            self.events.changed.emit()
            return
        if fresh or number <= self.position:
            self._clear_workspace()
            self.position = 0
        self._queue = list(range(self.position + 1, number + 1))
        self.replay_failures = []
        self.events.started.emit()
        self._run_next()

    def stop(self) -> None:
        """Forget what is queued or waiting (the step running, if any, still reports)."""
        self._queue.clear()
        self._deferred = None

    def _clear_workspace(self) -> None:
        self._clearing = True
        try:
            self.workspace.clear()
        finally:
            self._clearing = False

    def _run_next(self) -> None:
        assert self.lesson is not None
        while self._queue:
            step = self.lesson.step(self._queue.pop(0))
            done = core.result_without_running(self.workspace, step, self.runner.device)
            if done is not None:
                self._step_done(done)
                continue
            if self.runner.busy:  # another program holds the workspace: wait for it
                self._deferred = self._queue[-1] if self._queue else step.number
                self._queue.clear()
                self.events.changed.emit()
                return
            self._launch(step)
            return
        self.events.changed.emit()

    def _launch(self, step: core.Step) -> None:
        self.pending = step  # before run(): a runner may report back before it returns
        self.events.running.emit(step.number)
        self._launching = True
        try:
            started = self.runner.run(step.code, select=step.select,
                                      restricted=not step.trusted)
        finally:
            self._launching = False
        if not started and self.pending is step:  # refused: another program got there first
            self.pending = None
            self._deferred = self._queue[-1] if self._queue else step.number
            self._queue.clear()
            self.events.changed.emit()

    # -- what the runner reports ---------------------------------------------------------------

    def run_finished(self, names: Sequence[str]) -> None:
        """The step's code ran (``names``: bound or changed); ignored for other programs."""
        step = self.pending
        if step is None:
            return  # a program that is not ours (code bar, build form)
        self.pending = None
        self._step_done(core.step_ran(self.workspace, step, list(names), None,
                                      self.runner.device))
        self._continue()

    def run_failed(self, error: Any) -> None:
        """The step's code failed with ``error``; ignored for other programs."""
        step = self.pending
        if step is None:
            return
        if self._launching and getattr(error, "kind", None) == "busy":
            return  # refused to start: run() returns False, handled there
        self.pending = None
        if not isinstance(error, ProgramError):
            error = ProgramError(str(error), kind="internal")
        self._step_done(core.step_ran(self.workspace, step, (), error, self.runner.device))
        self._continue()

    def runner_idle(self) -> None:
        """The runner finished a program (ours or another): take a step that waited for it."""
        if self.pending is None and self._deferred is not None:
            self.call_soon(self._take_deferred)

    def _continue(self) -> None:
        if self._deferred is not None:
            self._queue.clear()
            self.call_soon(self._take_deferred)
            return
        self._run_next()

    def _take_deferred(self) -> None:
        if self._deferred is None or self.pending is not None or self.runner.busy:
            return
        target, self._deferred = self._deferred, None
        self.go_to(abs(target), fresh=target < 0, asked=True)  # (asked when it was asked for)

    def _step_done(self, result: core.StepResult) -> None:
        self.position = result.step.number
        if self._queue or self._deferred is not None:
            if not result.ok:
                self.replay_failures.append(result)
            return
        self.current = result.step.number
        self.result = result
        self.events.displayed.emit()
        self.focus(result.step, result)
        self.events.changed.emit()
        self.events.step_done.emit(self.current)
