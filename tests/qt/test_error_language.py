"""Errors in the learner's language: the Console, the status bar and the graph pane explain a
failing program in Chinese when the window is in Chinese, and in English as before otherwise."""

from __future__ import annotations

import torch
from PySide6 import QtWidgets
from pytestqt.qtbot import QtBot

from tests.qt.window_run import run

MATMUL = "c = torch.randn(2, 3) @ torch.randn(4, 5)"
TORCH_SAYS = "RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"


def fail(qtbot: QtBot, win, source: str) -> object:
    console = win.panels["console"]
    console.editor.setPlainText(source)
    with qtbot.waitSignal(win.runner.failed, timeout=20_000) as blocker:
        console.run_editor()
    qtbot.waitUntil(lambda: not win.runner.busy, timeout=20_000)
    QtWidgets.QApplication.processEvents()
    return blocker.args[0]




def test_console_explains_a_failing_statement_in_chinese(qtbot: QtBot, make_window) -> None:
    win = make_window()
    win.set_language("zh")
    err = fail(qtbot, win, MATMUL)
    text = win.panels["console"].output_text()
    assert f"第 1 行：{MATMUL}" in text
    assert TORCH_SAYS in text  # torch's own words, as torch wrote them
    assert "通常的原因：矩阵乘法要求内侧的两个维度大小一致" in text
    assert err.explanation_in("zh") in text.replace("\n", "")
    assert "What usually causes this" not in text and "Line 1" not in text
    assert win.statusBar().currentMessage() == f"第 1 行：{MATMUL} — {TORCH_SAYS}"
    assert "c" not in win.workspace


def test_console_lists_operands_and_notes_in_chinese(qtbot: QtBot, make_window) -> None:
    win = make_window()
    win.set_language("zh")
    run(qtbot, win, "model = nn.Linear(3, 2)\nx = torch.ones(4, 5, requires_grad=True)\n"
                    "h = x * 2")
    fail(qtbot, win, "pair = (h.grad, model(x))")
    text = win.panels["console"].output_text()
    assert "这一行上的值：" in text
    assert "model: Linear 模块，参数 float32 cpu" in text
    assert "x: tensor (4, 5) float32 cpu requires_grad" in text
    assert "注意：UserWarning: " in text and "（这个张量是由其他张量算出来的" in text
    # a warning on a statement that succeeds gets the Chinese plain words too
    run(qtbot, win, "g = h.grad")

    def warned() -> bool:  # (the output arrives through the event loop, after the run ends)
        last = win.panels["console"].output_text().splitlines()[-2:]
        return any(line.startswith("警告：UserWarning:") and "（这个张量是由其他张量算出来的"
                   in line for line in last)

    qtbot.waitUntil(warned, timeout=5000)


def test_english_console_is_unchanged(qtbot: QtBot, make_window) -> None:
    win = make_window()
    err = fail(qtbot, win, MATMUL)
    text = win.panels["console"].output_text()
    assert f"Line 1: {MATMUL}" in text and TORCH_SAYS in text
    assert "What usually causes this: Matrix multiplication needs the inner sizes" in text
    assert str(err).replace("\n", "") == text.split(f">>> {MATMUL}\n", 1)[1].replace("\n", "")
    assert win.statusBar().currentMessage() == f"Line 1: {MATMUL} — {TORCH_SAYS}"
    run(qtbot, win, "x = torch.ones(2, requires_grad=True)\ny = x * 2\ng = y.grad")
    assert "(This tensor is computed from others (not a leaf)" in \
        win.panels["console"].output_text()


def test_busy_refusal_in_chinese(qtbot: QtBot, make_window) -> None:
    win = make_window()
    win.set_language("zh")
    errors: list[object] = []
    win.runner.failed.connect(errors.append)
    run_started = win.runner.run("while True:\n    pass")
    assert run_started
    assert not win.runner.run("x = 1")
    win.runner.stop()
    qtbot.waitUntil(lambda: not win.runner.busy, timeout=20_000)
    QtWidgets.QApplication.processEvents()
    assert str(errors[0]) == "还有一个程序在运行；请先停止它。"
    assert "已停止：程序被取消了。" in win.panels["console"].output_text()


def test_graph_pane_says_why_there_is_no_graph_in_chinese(qtbot: QtBot, make_window) -> None:
    win = make_window()
    win.set_language("zh")
    run(qtbot, win, "with torch.no_grad():\n    z = torch.ones(2) * 2")
    win.workspace.selected = "z"
    win.show_panel("graph")
    pane = win.panels["graph"]
    pane.refresh()
    qtbot.waitUntil(lambda: "torch.no_grad()" in pane.message.text(), timeout=10_000)
    assert "这个张量不需要梯度，也没有 grad_fn" in pane.message.text()
    assert torch.is_grad_enabled()
