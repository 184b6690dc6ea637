"""The lesson panel's checks list: what became of the step shown, one coloured line each — a
green ✓ / red ✗ per expectation, why a step was skipped, the steps that went wrong while
replaying towards it, and, where an error is the point of the step, that error explained.

Owned by :class:`~tensor_explorer.qt.lesson_panel.LessonPanel`; its texts are translated in
that panel's context.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6 import QtCore, QtGui, QtWidgets

from ..core import lessons as core
from ..core.catalog import text_in
from . import i18n, theme

translate = QtCore.QCoreApplication.translate


class CheckList(QtWidgets.QListWidget):
    """The results of one step, as shown lines (read back with :meth:`texts`)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lessonChecks")
        self.setWordWrap(True)
        self.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)

    def texts(self) -> list[str]:
        """The lines, as shown."""
        return [self.item(i).text() for i in range(self.count())]

    def _add(self, text: str, colour: str, tip: str = "") -> None:
        item = QtWidgets.QListWidgetItem(text)
        item.setForeground(QtGui.QColor(colour))
        if tip:
            item.setToolTip(tip)
        self.addItem(item)

    def show_result(self, result: core.StepResult | None,
                    replay_failures: Sequence[core.StepResult] = ()) -> None:
        """The steps that failed while replaying, then ``result``'s checks (none: nothing
        more), in the current language and theme."""
        t = theme.current()
        self.clear()
        lang = i18n.current()
        for failed in replay_failures:
            self._add(translate("LessonPanel",
                                "✗ Step {0} did not go as planned while replaying").format(
                failed.step.number), t.error,
                "\n".join(f"{c.text_in(lang)}: {c.detail_in(lang)}" for c in failed.failures))
        if result is None:
            return
        if result.skipped:
            self._add(translate("LessonPanel", "Skipped: this step {0}.").format(
                skip_words(result.skipped)), t.warning)
            return
        for check in result.checks:
            if check.text == core.CODE_RUNS:
                self._add(translate("LessonPanel", "✗ The code failed: {0}").format(
                    check.detail_in(lang)), t.error)
            elif check.ok:
                self._add(f"✓ {check.text_in(lang)}", t.ok, check.detail_in(lang))
            else:
                self._add(f"✗ {check.text_in(lang)} — {check.detail_in(lang)}", t.error)
        if result.checks and result.ok and any(c.text.startswith("expect-error") for c in
                                               result.checks):
            self._show_expected_error(result, lang)

    def _show_expected_error(self, result: core.StepResult, lang: str) -> None:
        """The error that is the point of the step: where, its headline, its explanation."""
        t = theme.current()
        self._add(translate("LessonPanel", "This error is the point of this step:"), t.muted)
        err = result.error
        if err is not None:
            where = translate("LessonPanel", "line {0}: ").format(err.line) if err.line else ""
            full = err.text(lang)
            self._add(where + err.headline_in(lang), t.warning, full)
            explanation = err.explanation_in(lang)
            if explanation:
                self._add(explanation, t.muted, full)


def skip_words(reason: str) -> str:
    """Why a step was skipped, in words that end "this step …": the core's reason (a catalog
    Message) in the current language; any other reason as it was given."""
    return text_in(reason, i18n.current())
