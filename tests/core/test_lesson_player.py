"""The lesson player's model (core/lesson_player.py), without Qt: stepping rules, events, and
shipped lessons run step by step give the values torch itself gives."""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np
import torch

from tensor_explorer.core import lessons as L
from tensor_explorer.core.lesson_player import LessonPlayer, LessonState
from tensor_explorer.core.runner import ProgramError
from tensor_explorer.core.workspace import Workspace

TINY = textwrap.dedent(
    """\
    ---
    name: tiny
    title: Tiny
    language: en
    ---

    ## One

    ```python
    a = torch.arange(6.0)
    ```

    panel: values
    expect: a.sum() == 15

    ## Two

    ```python
    b = a.view(2, 3)
    ```

    panel: memory
    select: a
    expect: b.shape == (2, 3)

    ## Three: prose only

    expect: b[1, 2] == 5

    ## Four

    ```python
    c = b.t().view(6)
    ```

    expect-error: RuntimeError
    """
)


def record(player: LessonPlayer) -> list[tuple[str, Any]]:
    seen: list[tuple[str, Any]] = []
    ev = player.events
    ev.opened.connect(lambda s: seen.append(("opened", s)))
    ev.started.connect(lambda: seen.append(("started", None)))
    ev.running.connect(lambda n: seen.append(("running", n)))
    ev.displayed.connect(lambda: seen.append(("displayed", player.current)))
    ev.show_panel.connect(lambda p: seen.append(("show_panel", p)))
    ev.step_done.connect(lambda n: seen.append(("step_done", n)))
    return seen


def tiny_player() -> tuple[LessonPlayer, list[tuple[str, Any]]]:
    player = LessonPlayer.inline()
    seen = record(player)
    player.open(L.parse_lesson(TINY), "tiny.md", run=False)
    return player, seen


def test_shipped_numpy_sharing_gives_what_torch_gives() -> None:
    player = LessonPlayer.inline()
    player.open(LessonPlayer.load("numpy-sharing", "en"), "numpy-sharing")
    ws = player.workspace
    assert player.current == 1 and player.result is not None and player.result.ok
    array = ws["array"]
    # what torch itself does with that array: from_numpy shares its bytes, tensor copies
    assert ws["shared"].data_ptr() == torch.from_numpy(array).data_ptr()
    assert ws["copied"].data_ptr() != array.__array_interface__["data"][0]
    player.next_step()
    assert player.current == 2 and player.result.ok
    assert torch.equal(ws["shared"], torch.from_numpy(ws["array"]))
    assert ws["copied"][0, 0].item() == 0.0 and ws["array"][0, 0] == 99
    assert "99.0 0.0" in player.result.output
    assert ws.selected == "shared"


def test_shipped_shapes_views_match_torch() -> None:
    player = LessonPlayer.inline()
    player.open(LessonPlayer.load("shapes", "en"), "shapes")
    player.go_to(2)
    ws = player.workspace
    x = ws["x"]
    for name in ("r", "v"):
        mine = x.view(12, 5)
        assert ws[name].stride() == mine.stride()
        assert ws[name].untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        assert torch.equal(ws[name], mine)
    assert [r.ok for r in [player.result]] == [True] and player.position == 2


def test_every_step_of_a_shipped_lesson_matches_the_headless_check() -> None:
    # the player and run_lesson share the step semantics: the same checks, step by step
    lesson = LessonPlayer.load("tensor-basics", "en")
    headless = L.run_lesson(lesson)
    player = LessonPlayer.inline()
    results: list[L.StepResult] = []
    player.events.step_done.connect(lambda n: results.append(player.result))
    player.open(lesson, "tensor-basics")
    for _ in lesson.steps[1:]:
        player.next_step()
    assert [r.step.number for r in results] == [r.step.number for r in headless]
    assert [[c.ok for c in r.checks] for r in results] == [[c.ok for c in r.checks]
                                                           for r in headless]
    assert all(r.ok for r in results)


def test_forward_runs_only_new_steps_and_back_replays() -> None:
    player, seen = tiny_player()
    assert seen == [("opened", "tiny.md")] and player.current == 0
    player.go_to(1)
    assert player.current == 1 and player.position == 1
    assert seen[1:] == [("started", None), ("running", 1), ("displayed", 1),
                        ("show_panel", "values"), ("step_done", 1)]
    a = player.workspace["a"]
    player.go_to(3)  # runs 2 and 3 only: a is the same tensor
    assert player.current == 3 and player.position == 3 and player.workspace["a"] is a
    assert player.result is not None and player.result.ok and player.result.names == ()
    seen.clear()
    player.previous_step()  # back: cleared and replayed from step 1
    assert player.current == 2 and player.position == 2
    assert player.workspace["a"] is not a
    assert [e for e in seen if e[0] in ("running", "step_done")] == [
        ("running", 1), ("running", 2), ("step_done", 2)]
    assert player.workspace.selected == "a"  # the step's select:


def test_every_navigation_that_clears_asks_first_and_refusal_keeps_everything() -> None:
    """#25: Previous, Reset and a jump back clear the workspace, so they ask (the window's
    Save / Discard / Cancel); forward never asks; a refusal changes nothing."""
    player, _seen = tiny_player()
    player.go_to(3)
    asked: list[str] = []
    answer = False
    player.confirm_clear = lambda navigation: asked.append(navigation) or answer
    player.workspace.run("mine = torch.ones(2)")
    a = player.workspace["a"]
    for navigate in (player.previous_step, player.reset, lambda: player.go_to(1)):
        navigate()
        assert player.current == 3 and player.position == 3
        assert player.workspace["a"] is a and "mine" in player.workspace
    assert asked == ["lesson-back", "lesson-reset", "lesson-jump-back"]
    player.next_step()  # forward: adds, never asks
    assert asked == ["lesson-back", "lesson-reset", "lesson-jump-back"]
    assert player.current == 4 and "mine" in player.workspace
    answer = True
    player.previous_step()
    assert asked[-1] == "lesson-back" and player.current == 3
    assert "mine" not in player.workspace and player.workspace["a"] is not a


def test_expected_error_and_bounds() -> None:
    player, _ = tiny_player()
    player.go_to(99)  # clamped to the last step
    assert player.current == 4
    result = player.result
    assert result is not None and result.ok and isinstance(result.error, ProgramError)
    assert not player.can_go_forward and player.can_go_back
    player.next_step()
    assert player.current == 4
    player.reset()
    assert player.current == 1 and player.position == 1 and "b" not in player.workspace
    assert not player.can_go_back


def test_replay_failures_are_kept_for_the_step_shown() -> None:
    text = TINY.replace("expect: a.sum() == 15", "expect: a.sum() == 16")
    player = LessonPlayer.inline()
    player.open(L.parse_lesson(text), "tiny.md")
    assert player.result is not None and not player.result.ok
    player.go_to(3)
    assert player.replay_failures == []  # step 1 ran before, not replayed
    player.go_to(2)
    assert [r.step.number for r in player.replay_failures] == [1]
    assert player.result is not None and player.result.ok


def test_markdown_is_the_step_shown_after_the_intro_on_step_one() -> None:
    text = TINY.replace("---\n\n## One", "---\n\nWhy views matter.\n\n## One")
    player = LessonPlayer.inline()
    lesson = L.parse_lesson(text)
    assert lesson.intro == "Why views matter."
    assert player.markdown() == ""  # no lesson
    player.open(lesson, "tiny.md", run=False)
    assert player.markdown() == ""  # no step shown yet
    player.go_to(1)
    assert player.markdown() == "\n\n".join([lesson.intro, lesson.step(1).markdown])
    player.go_to(2)
    assert player.markdown() == lesson.step(2).markdown != ""  # no intro after step 1
    player.go_to(3)
    assert lesson.step(3).markdown == "" and player.markdown() == ""


class SlowRunner:
    """A runner whose program finishes only when the test says so."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.device: str | None = None
        self.busy = False
        self.started: list[str] = []

    def run(self, source: str, device: str | None = None, *, select: str | None = None,
            restricted: bool | None = None) -> bool:
        if self.busy:
            return False
        self.busy = True
        self.started.append(source)
        return True

    def finish(self, player: LessonPlayer) -> None:
        names = self.ws.run(self.started[-1])
        self.busy = False
        player.run_finished(names)
        player.runner_idle()


def test_requests_while_running_wait_for_the_step() -> None:
    ws = Workspace()
    runner = SlowRunner(ws)
    player = LessonPlayer(ws, runner)
    player.open(L.parse_lesson(TINY), "tiny.md")
    assert player.busy and player.stepping and player.pending is not None
    player.next_step()  # queued behind step 1
    player.next_step()
    assert player.target == 3 and player.current == 0
    runner.finish(player)  # step 1 done: 2 starts, 3 (no code) follows it
    assert player.current == 0 and player.position == 1
    runner.finish(player)
    assert player.current == 3 and not player.busy
    assert len(runner.started) == 2


def test_another_program_defers_the_step() -> None:
    ws = Workspace()
    runner = SlowRunner(ws)
    runner.busy = True  # the user's own program holds the workspace
    runner.started.append("z = 1")
    player = LessonPlayer(ws, runner)
    player.open(L.parse_lesson(TINY), "tiny.md")
    assert player.busy and not player.stepping and player.wanted == 1
    player.run_finished(["z"])  # not ours: ignored
    assert player.position == 0
    runner.finish(player)  # idle: the deferred fresh start runs now
    assert player.pending is not None and player.pending.number == 1
    runner.finish(player)
    assert player.current == 1 and "z" not in ws  # fresh: the workspace was cleared


def test_failure_reported_by_the_runner() -> None:
    ws = Workspace()
    runner = SlowRunner(ws)
    player = LessonPlayer(ws, runner)
    player.open(L.parse_lesson(TINY), "tiny.md")
    runner.busy = False
    player.run_failed(RuntimeError("boom"))
    result = player.result
    assert result is not None and not result.ok
    assert result.error is not None and result.error.kind == "internal"


def test_state_present_and_language() -> None:
    lesson = LessonPlayer.load("numpy-sharing", "en")
    ws = Workspace()
    results = L.run_lesson(lesson, ws, upto=2)
    player = LessonPlayer.inline(ws)
    seen = record(player)
    assert player.state() is None
    player.open(lesson, "numpy-sharing", run=False)
    player.present(2, results[-1], focus=False)
    assert player.state() == LessonState("numpy-sharing", 2, 2, results[-1])
    assert ("show_panel", "memory") not in seen and ("step_done", 2) not in seen
    assert player.switch_language("zh") and player.lesson is not None
    assert player.lesson.language == "zh" and player.current == 2
    assert not player.switch_language("zh")  # already
    player.present(1)
    assert ("show_panel", "memory") in seen and ws.selected == "shared"
    assert isinstance(ws["array"], np.ndarray)
