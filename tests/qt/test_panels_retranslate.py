"""Switching the language re-translates every panel in place: the same panel objects show the
new language's texts, and nothing the user had is lost (output, typed code, lesson step, form
fields, selection, collapsed groups, scroll positions); nothing runs again."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot

from tensor_explorer.core import lessons
from tensor_explorer.qt import i18n

TIMEOUT = 20_000
LESSON = "numpy-sharing"


def tr(context: str, text: str) -> str:
    return QtCore.QCoreApplication.translate(context, text)


def translated(context: str, text: str) -> str:
    """``text`` in the language installed now, which must not be English."""
    out = tr(context, text)
    assert out != text, f"{context}: {text!r} has no translation in {i18n.current()}"
    return out


def wait_step(qtbot: QtBot, win: Any, number: int, action: Any) -> None:
    lesson = win.panels["lesson"]
    with qtbot.waitSignal(lesson.step_shown, timeout=TIMEOUT,
                          check_params_cb=lambda n: n == number):
        action()
    qtbot.waitUntil(lambda: not lesson.busy and not win.runner.busy, timeout=TIMEOUT)
    QtWidgets.QApplication.processEvents()


def run_code_bar(qtbot: QtBot, win: Any, source: str) -> None:
    console = win.panels["console"]
    console.editor.setPlainText(source)
    with qtbot.waitSignal(win.runner.finished, timeout=TIMEOUT):
        console.run_editor()
    qtbot.waitUntil(lambda: not win.runner.busy, timeout=TIMEOUT)
    QtWidgets.QApplication.processEvents()


def snapshot(win: Any) -> dict[str, Any]:
    """Everything a language switch must keep."""
    console, lesson, build = win.panels["console"], win.panels["lesson"], win.panels["build"]
    inspector, ws_panel = win.panels["inspector"], win.panels["workspace"]
    return {
        "output": console.output_text(),
        "editor": console.editor.toPlainText(),
        "history": list(console.editor.history),
        "device": console.device.currentData(),
        "runner_device": win.runner.device,
        "lesson": (lesson.source, lesson.current, lesson.position, lesson.result),
        "lesson_combo": lesson.lesson_combo.currentData(),
        "step_combo": lesson.step_combo.currentIndex(),
        "checks": lesson.checks.count(),
        "ws_history": len(win.workspace.history),
        "names": win.workspace.names(),
        "selected": win.workspace.selected,
        "ws_panel": (ws_panel.names_shown(), ws_panel.current_name()),
        "inspector": (inspector.name, inspector.shown_facts(), inspector.collapsed_groups(),
                      inspector.tree.verticalScrollBar().value()),
        "build": build.spec(),
        "seed_on": build.seed_on.isChecked(),
        "code": win.panels["code"].script(),
    }


def check_texts(win: Any) -> None:
    """The panels' fixed texts are the installed (non-English) language's."""
    console, build, code = win.panels["console"], win.panels["build"], win.panels["code"]
    inspector, ws_panel = win.panels["inspector"], win.panels["workspace"]
    lesson = win.panels["lesson"]
    assert console.run_button.text() == translated("ConsolePanel", "Run")
    assert console.stop_button.text() == translated("ConsolePanel", "Stop")
    assert console.stop_button.toolTip() == translated(
        "ConsolePanel", "Stop a running program; the workspace keeps what it had")
    assert console.clear_button.text() == translated("ConsolePanel", "Clear output")
    assert console.device_label.text() == translated("ConsolePanel", "device:")
    assert console.device.itemText(0) == translated("ConsolePanel", "default device")
    assert console.editor.placeholderText() == translated(
        "ConsolePanel", "Type statements, e.g.  y = x @ w + b   — Ctrl+Enter runs them, ↑/↓ "
        "bring back earlier ones")

    assert lesson.prev_button.text() == translated("LessonPanel", "◀ Previous")
    assert lesson.next_button.text() == translated("LessonPanel", "Next ▶")
    assert lesson.reset_button.text() == translated("LessonPanel", "Reset")
    assert lesson.reset_button.toolTip() == translated(
        "LessonPanel", "Clear the workspace and start the lesson again")
    n = len(lesson.lesson.steps)
    assert lesson.progress.text() == translated("LessonPanel", "Step {0} of {1}").format(
        lesson.current, n)
    last = lesson.lesson_combo.count() - 1
    assert lesson.lesson_combo.itemText(last) == translated("LessonPanel", "Open lesson file…")

    header = inspector.tree.headerItem()
    assert (header.text(0), header.text(1)) == (translated("InspectorPanel", "fact"),
                                                translated("InspectorPanel", "value"))
    assert inspector.progress.format() == translated("InspectorPanel", "statistics %p%")
    groups = [inspector.tree.topLevelItem(i).text(0)
              for i in range(inspector.tree.topLevelItemCount())]
    assert translated("Inspector", "Memory layout") in groups

    assert ws_panel.rename_action.text() == translated("WorkspacePanel", "Rename…")
    assert ws_panel.duplicate_action.text() == translated("WorkspacePanel", "Duplicate (clone)")
    assert ws_panel.delete_action.text() == translated("WorkspacePanel", "Delete")
    assert ws_panel.empty.text() == translated(
        "WorkspacePanel",
        "No values yet.\nOpen a .npy/.npz file, use the Build form,\nor type code below.")

    assert build.create_button.text() == translated("BuildPanel", "Create")
    assert build.seed_on.text() == translated("BuildPanel", "seed")
    assert build.dtype.itemText(0) == translated("BuildPanel", "default")
    assert build.device.itemText(0) == translated("BuildPanel", "default")
    labels = build.row_labels()
    assert labels["shape"] == translated("BuildPanel", "shape")
    assert labels["fill"] == translated("BuildPanel", "fill value")
    assert labels["seed"] == translated("BuildPanel", "random seed")

    assert code.copy_button.text() == translated("CodePanel", "Copy")
    assert code.save_button.text() == translated("CodePanel", "Save as .py…")


def check_lesson(win: Any, lang: str, number: int) -> None:
    """The lesson panel shows step ``number`` of the lesson as written in ``lang``."""
    panel = win.panels["lesson"]
    lesson = lessons.load_lesson(LESSON, lang)
    step = lesson.step(number)
    assert panel.lesson.language == lang
    assert panel.title.text() == f"{number}. {step.title}"
    first = step.markdown.split("\n", 1)[0].replace("`", "").replace("*", "")
    assert first[:20] in panel.prose.toPlainText()
    assert panel.step_combo.currentText() == f"{number}. {step.title}"
    assert [panel.step_combo.itemText(i) for i in range(panel.step_combo.count())] == [
        f"{s.number}. {s.title}" for s in lesson.steps]
    [info] = [i for i in lessons.list_lessons() if i.name == LESSON]
    assert panel.lesson_combo.currentText() == info.titles[lang]


def test_language_switch_keeps_every_panel_and_its_state(qtbot: QtBot, make_window) -> None:
    win = make_window()
    win.show()
    qtbot.waitExposed(win)
    wait_step(qtbot, win, 1, lambda: win.open_lesson(LESSON))
    lesson = win.panels["lesson"]
    wait_step(qtbot, win, 2, lesson.next_step)
    wait_step(qtbot, win, 3, lesson.next_step)
    assert lesson.check_texts() and all(t.startswith("✓") for t in lesson.check_texts())

    console = win.panels["console"]
    run_code_bar(qtbot, win, "extra = torch.arange(6.0).reshape(2, 3)")
    run_code_bar(qtbot, win, "print('hello from the code bar')")
    assert "hello from the code bar" in console.output_text()
    console.editor.setPlainText("not_sent = extra * 2")  # typed, not run
    console.device.setCurrentIndex(console.device.findData("cpu"))
    assert win.runner.device == "cpu"

    build = win.panels["build"]
    build.name.setText("made")
    build.factory.setCurrentText("full")
    build.shape.setText("4, 5")
    build.fill.setText("2.5")
    build.dtype.setCurrentIndex(build.dtype.findData("float64"))
    build.device.setCurrentIndex(build.device.findData("meta"))
    build.requires_grad.setChecked(True)
    build.seed_on.setChecked(False)
    build.seed.setValue(7)
    win.panels["code"]  # built on first use, like the other hidden panels

    win.workspace.selected = "reused"
    QtWidgets.QApplication.processEvents()
    win.show_panel("inspector")
    inspector = win.panels["inspector"]
    qtbot.waitUntil(lambda: inspector.name == "reused" and not inspector.busy)
    for i in range(inspector.tree.topLevelItemCount()):
        group = inspector.tree.topLevelItem(i)
        if group.text(0) == "Memory layout":
            group.setExpanded(False)
    assert inspector.collapsed_groups() == {"Memory layout"}
    bar = inspector.tree.verticalScrollBar()
    if bar.maximum() > 0:
        bar.setValue(1)
    QtWidgets.QApplication.processEvents()

    panels = {name: win.panels[name] for name in dict.keys(win.panels)}
    before = snapshot(win)
    english_title = lesson.title.text()
    assert before["selected"] == "reused" and before["ws_panel"][1] == "reused"
    assert before["lesson"][1:3] == (3, 3)

    win.set_language("zh")
    QtWidgets.QApplication.processEvents()
    assert {name: win.panels[name] for name in dict.keys(win.panels)} == panels
    assert all(win.panels[name] is panel for name, panel in panels.items())
    assert all(win.docks[name].widget().widget() is panel for name, panel in panels.items())
    check_texts(win)
    check_lesson(win, "zh", 3)
    assert lesson.title.text() != english_title
    # the check results are shown again, in Chinese where the checker has words for them
    assert lesson.check_texts() and all(t.startswith("✓") for t in lesson.check_texts())
    after = snapshot(win)
    assert after == before, {k: (before[k], after[k]) for k in before if before[k] != after[k]}
    assert "hello from the code bar" in console.output_text()
    # the Edit menu holds the workspace panel's same action objects, now in Chinese
    ws_panel = win.panels["workspace"]
    edit_actions = [a for a in win.menuBar().actions() if a.text() == translated(
        "MainWindow", "&Edit")]
    [edit] = edit_actions
    shown = [a for a in edit.menu().actions() if not a.isSeparator()]
    workspace_actions = [ws_panel.rename_action, ws_panel.duplicate_action,
                         ws_panel.delete_action]
    assert [a for a in shown if a in workspace_actions] == workspace_actions
    assert win.edit.copy_action in shown and win.edit.find_action in shown
    assert win.edit.copy_action.text() == tr("EditActions", "&Copy")  # (in the .ts: i18n test)

    # and the lesson goes on from where it was, in Chinese
    wait_step(qtbot, win, 4, lesson.next_step)
    check_lesson(win, "zh", 4)
    assert len(win.workspace.history) > before["ws_history"]
    before_en = snapshot(win)

    win.set_language("en")
    QtWidgets.QApplication.processEvents()
    assert all(win.panels[name] is panel for name, panel in panels.items())
    assert console.run_button.text() == "Run"
    assert console.device_label.text() == "device:"
    assert lesson.next_button.text() == "Next ▶"
    assert build.row_labels()["fill"] == "fill value"
    assert ws_panel.rename_action.text() == "Rename…"
    assert win.panels["code"].copy_button.text() == "Copy"
    check_lesson(win, "en", 4)
    after_en = snapshot(win)
    assert after_en == before_en, {k: (before_en[k], after_en[k]) for k in before_en
                                  if before_en[k] != after_en[k]}


def test_inspector_keeps_collapsed_groups_and_scroll(qtbot: QtBot, make_window) -> None:
    win = make_window()
    win.show()
    qtbot.waitExposed(win)
    win.show_panel("inspector")
    win.resize(900, 420)
    run_code_bar(qtbot, win, "w = torch.ones(3, 4, requires_grad=True)\ny = (w * 2).sum()")
    win.workspace.selected = "w"
    inspector = win.panels["inspector"]
    qtbot.waitUntil(lambda: inspector.name == "w" and not inspector.busy)
    QtWidgets.QApplication.processEvents()
    tree = inspector.tree
    groups = {tree.topLevelItem(i).text(0): tree.topLevelItem(i)
              for i in range(tree.topLevelItemCount())}
    groups["Autograd"].setExpanded(False)
    QtWidgets.QApplication.processEvents()
    bar = tree.verticalScrollBar()
    assert bar.maximum() > 4, "the facts must not fit, or the scroll position means nothing"
    where = bar.maximum() // 2
    bar.setValue(where)
    facts = inspector.shown_facts()

    win.set_language("zh")
    QtWidgets.QApplication.processEvents()
    assert win.panels["inspector"] is inspector
    assert inspector.name == "w" and inspector.shown_facts() == facts
    assert inspector.collapsed_groups() == {"Autograd"}
    titles = [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())]
    assert translated("Inspector", "Autograd") in titles and "Autograd" not in titles
    assert bar.value() == where
    tips = [tree.topLevelItem(i).child(j).toolTip(0) for i in range(tree.topLevelItemCount())
            for j in range(tree.topLevelItem(i).childCount())]
    assert translated("Inspector", "Bytes per element.") in tips

    win.set_language("en")
    assert inspector.collapsed_groups() == {"Autograd"} and bar.value() == where
    assert "Autograd" in [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())]


def test_a_lesson_message_is_retranslated(player, tmp_path) -> None:
    """A message shown instead of a step (a lesson that cannot be opened) follows the language
    too, and keeps its detail: the same catalog message, said in the new language."""
    panel = player.panel
    assert not panel.open_lesson(str(tmp_path / "missing.md"))
    assert panel.title.text() == "This lesson cannot be opened"
    detail = panel.prose.toPlainText()
    with pytest.raises(lessons.LessonError) as info:
        lessons.load_lesson(str(tmp_path / "missing.md"))
    assert detail == str(info.value)
    i18n.install("zh")
    panel.retranslate()
    assert panel.title.text() == translated("LessonPanel", "This lesson cannot be opened")
    assert panel.prose.toPlainText() == info.value.text("zh") != detail
    i18n.install("en")
    panel.retranslate()
    assert panel.prose.toPlainText() == detail
    i18n.install("zh")
    panel.retranslate()
    assert panel.progress.text() == translated("LessonPanel", "Choose a lesson.")
