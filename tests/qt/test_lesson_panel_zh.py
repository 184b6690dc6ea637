"""The lesson checker's results in Chinese: the Lesson panel shows why an expectation failed in
the window's language (directives, code, values and torch's own messages stay as written)."""

from __future__ import annotations

import re
from pathlib import Path

from tensor_explorer.qt import i18n
from tests.qt.lesson_player import Player

#: three English words in a row (outside quotes and code) is an untranslated sentence
_ENGLISH = re.compile(r"(?<![\w.'])[A-Za-z]{2,}(?: [A-Za-z]{2,}){2,}")

LESSON = """---
name: wrong-zh
title: 故意出错
language: zh
---
## 错误的种类不对

```python
x = torch.ones(2) @ torch.ones(3)
```

expect-error: device-mismatch

## 期望没有满足

```python
y = torch.zeros(3)
```

select: nothing_here
expect: y.sum() == 1
expect: torch.save
expect-error: RuntimeError
"""


def test_failed_checks_are_shown_in_chinese(player: Player, tmp_path: Path) -> None:
    i18n.install("zh")
    path = tmp_path / "wrong.zh.md"
    path.write_text(LESSON, encoding="utf-8")
    panel = player.panel
    player.wait_step(1, lambda: panel.open_lesson(str(path)))
    [text] = panel.check_texts()
    assert text.startswith(
        "✗ expect-error: device-mismatch — 出了另一种错误：matmul-shape（RuntimeError）："
        "RuntimeError: ")  # torch's own message stays as torch wrote it

    player.wait_step(2, panel.next_step)
    texts = panel.check_texts()
    assert texts == [
        "✗ expect: y.sum() == 1 — y.sum() 实际是 tensor(0.)",
        "✗ expect: torch.save — 无法求值：已拒绝：'save' 在受限运行器里不可用"
        "（程序不能访问文件、进程或原生代码）；信任这个课程或程序即可把它作为完整的 Python 运行",
        "✗ expect-error: RuntimeError — 代码运行时没有出错",
        "✗ select: nothing_here — 没有名为 'nothing_here' 的值",
    ]

    # replaying from step 1: the failed step's tooltip is Chinese too
    player.wait_step(2, lambda: panel.go_to(2, fresh=True))
    item = panel.checks.item(0)
    assert item.text() == "✗ 重放时第 1 步没有按预期进行"
    assert item.toolTip().startswith("expect-error: device-mismatch: 出了另一种错误：")
    for line in panel.check_texts()[1:]:
        assert not _ENGLISH.search(line.split(" — ", 1)[1]), line


def test_an_unexpected_error_and_a_meta_expectation_in_chinese(player: Player,
                                                                tmp_path: Path) -> None:
    i18n.install("zh")
    path = tmp_path / "refused.zh.md"
    path.write_text("---\nname: refused\ntitle: 拒绝\nlanguage: zh\n---\n## S\n```python\n"
                    "import os\n```\nexpect: torch.ones(2, device='meta') == 1\n", encoding="utf-8")
    panel = player.panel
    player.wait_step(1, lambda: panel.open_lesson(str(path)))
    assert panel.check_texts() == [
        "✗ 代码出错：第 8 行：import os → 已拒绝：不能导入 'os'：程序只能导入 torch、numpy、math "
        "以及 torch.nn / torch.nn.functional / torch.nn.init / torch.optim / torch.linalg / "
        "torch.fft / torch.autograd / torch.utils.data / numpy.random / numpy.linalg"
        "；信任这个课程或程序即可把它作为完整的 Python 运行",
        "✗ expect: torch.ones(2, device='meta') == 1 — 无法求值：meta 张量没有可以检验的值",
    ]


def test_the_english_panel_is_unchanged(player: Player, tmp_path: Path) -> None:
    path = tmp_path / "wrong.en.md"
    path.write_text(LESSON.replace("language: zh", "language: en"), encoding="utf-8")
    panel = player.panel
    player.wait_step(1, lambda: panel.open_lesson(str(path)))
    player.wait_step(2, panel.next_step)
    assert panel.check_texts() == [
        "✗ expect: y.sum() == 1 — y.sum() is tensor(0.)",
        "✗ expect: torch.save — could not be evaluated: Refused: 'save' is not available in "
        "the restricted runner (no file, process or native access); trust this lesson or "
        "program to run it as full Python.",
        "✗ expect-error: RuntimeError — the code ran without an error",
        "✗ select: nothing_here — there is no value named 'nothing_here'",
    ]
