"""Nothing lost: the one rule for when replacing the workspace must ask first. Qt-free.

Every navigation that *replaces* the workspace's values (:data:`REPLACING`: a lesson's
Previous, Reset or a jump back, another lesson, a session, File ▸ New, quitting) asks the
same question — Save / Discard / Cancel — when :meth:`UnsavedWork.at_risk` says the
workspace holds work of the user's own that nothing has saved. Work of the user's own is any
change that the lesson did not make while stepping through its steps: statements typed in the
code bar, files opened, edits in the panels, undo and redo. Saving a session, opening one and
starting a lesson afresh make the workspace "saved" again.

The window keeps one :class:`UnsavedWork` and asks through one dialog; the lesson player asks
through its ``confirm_clear`` callback before going back clears the workspace. Going forward
in a lesson adds to the workspace and never asks.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["REPLACING", "UnsavedWork"]

#: the navigations that replace the workspace's values (each asks when work is at risk)
REPLACING = ("lesson-back", "lesson-reset", "lesson-jump-back", "other-lesson", "session",
             "new", "quit")


class UnsavedWork:
    """Whether the workspace holds work of the user's own that is not saved.

    ``has_values()`` says whether the workspace holds anything at all (an empty workspace
    has nothing to lose); ``by_lesson()`` whether the change being reported is a lesson
    replaying its own steps."""

    def __init__(self, has_values: Callable[[], bool], by_lesson: Callable[[], bool]) -> None:
        self.has_values = has_values
        self.by_lesson = by_lesson
        self.unsaved = False

    def changed(self) -> None:
        """The workspace changed (a statement, an edit, an undo or redo, a file opened into
        it); it counts as the user's own unless a lesson is stepping."""
        if not self.by_lesson():
            self.unsaved = True

    def touched_by_user(self) -> None:
        """A change that is the user's whatever the lesson does (undo, redo, a change that
        cannot be undone)."""
        self.unsaved = True

    def saved(self) -> None:
        """The workspace was just saved, opened, or started afresh: nothing unsaved."""
        self.unsaved = False

    def at_risk(self) -> bool:
        """Whether replacing the workspace now would lose work of the user's own (so it must
        ask first)."""
        return self.unsaved and self.has_values()
