"""Why a lesson file cannot be used, in every language: a LessonError carries a catalog Message
(lesson.* codes) whose English is exactly the text it always had ("path, line N: reason"), and
which renders in Chinese where it is shown (file names, keys such as 'title:', directives and
code stay as written)."""

from __future__ import annotations

import copy
import pickle
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tensor_explorer.core import lessons as L
from tensor_explorer.core.catalog import CATALOG, Message
from tensor_explorer.core.loading import LoadError
from tensor_explorer.core.sources import open_into
from tensor_explorer.core.workspace import Workspace

FM = "---\nname: a\ntitle: b\nlanguage: en\n---\n"
PANELS = "workspace, inspector, values, memory, graph, code"
#: three English words in a row (outside quotes and code) is an untranslated sentence
_ENGLISH = re.compile(r"(?<![\w.'-])[A-Za-z]{2,}(?: [A-Za-z]{2,}){2,}")

#: lesson text -> (line, the reason in English as it always was, the reason in Chinese)
CASES: dict[str, tuple[int | None, str, str]] = {
    "hello\n": (1, "a lesson starts with a front matter: a line '---', then 'name:', 'title:' "
                   "and 'language:' lines, then '---'",
                "课程以前置信息（front matter）开头：先是一行 '---'，然后是 'name:'、'title:' "
                "和 'language:' 这几行，最后再是一行 '---'"),
    "---\nname: a\n---\n": (3, "the front matter needs a 'title:' line",
                            "前置信息缺少 'title:' 这一行"),
    "---\nname: a\nxx\n---\n": (3, "expected 'key: value' in the front matter, got 'xx'",
                                "前置信息里应当是 'key: value' 的形式，实际是 'xx'"),
    "---\nname: a\nfoo: 1\n---\n": (3, "unknown front matter key 'foo' (use name, title, "
                                       "language)",
                                    "未知的前置信息键 'foo'（请使用 name、title、language）"),
    "---\nname: a\nname: b\n---\n": (3, "'name:' is given twice", "'name:' 出现了两次"),
    "---\nname: a\n": (1, "the front matter is not closed with a '---' line",
                       "前置信息没有以一行 '---' 结束"),
    "---\nname: A B\ntitle: b\nlanguage: en\n---\n## S\n": (
        None, "name: 'A B' should be lower-case letters, digits and '-' (like numpy-sharing)",
        "name: 'A B' 只能由小写字母、数字和 '-' 组成（例如 numpy-sharing）"),
    "---\nname: a\ntitle: b\nlanguage: fr\n---\n## S\n": (
        None, "language: 'fr' is not one of en, zh", "language: 'fr' 不是 en、zh 之一"),
    FM + "## S\npanel:\n": (7, "'panel:' needs a value", "'panel:' 需要一个值"),
    FM + "## S\npanel: values\npanel: graph\n": (8, "'panel:' is given twice in step 'S'",
                                                "'panel:' 在步骤 'S' 里出现了两次"),
    FM + "## S\npanel: nope\n": (7, f"panel 'nope' does not exist; use one of {PANELS}",
                                 f"面板 'nope' 不存在；请使用 {PANELS.replace(', ', '、')} 之一"),
    FM + "## S\nselect: 2x\n": (7, "select: '2x' is not a value name",
                                "select: '2x' 不是值的名字"),
    FM + "## S\nrequires: tpu\n": (7, "requires: 'tpu' is not known; use cuda",
                                   "requires: 'tpu' 未知；请使用 cuda"),
    FM + "## S\nexpect-error: a b\n": (
        7, "expect-error: 'a b' should be one error kind (device-mismatch) or exception type "
           "(RuntimeError)",
        "expect-error: 'a b' 应当是一个错误类别（如 device-mismatch）或一个异常类型"
        "（如 RuntimeError）"),
    FM + "## S\nexpect: x ==\n": (7, "expect: 'x ==' is not a Python expression (invalid "
                                     "syntax)",
                                  "expect: 'x ==' 不是 Python 表达式（invalid syntax）"),
    FM + "## S\n```python\nx = (1\n```\n": (
        8, "the code of step 1 is not valid Python ('(' was never closed); a step whose code "
           "is meant to fail says so with 'expect-error: syntax'",
        "第 1 步的代码不是有效的 Python（'(' was never closed）；如果这一步的代码本来就要出错，"
        "请用 'expect-error: syntax' 注明"),
    FM + "```python\nx=1\n```\n## S\n": (
        6, "a python block before the first '## ' step runs nowhere; put it inside a step",
        "第一个 '## ' 步骤之前的 python 代码块不会运行；请把它放进某个步骤里"),
    FM + "## \n": (6, "a step needs a title after '## '", "步骤需要在 '## ' 后面写上标题"),
    FM + "panel: values\n## S\n": (6, "'panel:' before the first '## ' step",
                                   "'panel:' 出现在第一个 '## ' 步骤之前"),
    FM + "## S\n````python\nx=1\n": (7, "the code block opened here is never closed with ````",
                                     "从这里开始的代码块始终没有用 ```` 结束"),
    FM + "hello\n": (None, "a lesson needs at least one step (a '## Title' section)",
                     "课程至少需要一个步骤（一个以 '## Title' 开头的小节）"),
}


def _no_english_sentence(text: str, *allowed: str) -> None:
    for words in allowed:
        text = text.replace(words, "")
    assert not _ENGLISH.search(text), text


@pytest.mark.parametrize("text", list(CASES))
def test_a_broken_lesson_is_said_in_english_as_before_and_in_chinese(text: str) -> None:
    line, english, chinese = CASES[text]
    with pytest.raises(L.LessonError) as info:
        L.parse_lesson(text, "x.md")
    err = info.value
    where_en = "x.md" if line is None else f"x.md, line {line}"
    where_zh = "x.md" if line is None else f"x.md，第 {line} 行"
    assert str(err) == f"{where_en}: {english}" == err.text("en") == err.message
    assert err.text("zh") == f"{where_zh}：{chinese}"
    assert (err.path, err.line, err.reason) == ("x.md", line, english)
    _no_english_sentence(err.text("zh"), "'(' was never closed", "invalid syntax")


def test_every_lesson_code_is_met() -> None:
    met: set[str] = set()
    for text in CASES:
        with pytest.raises(L.LessonError) as info:
            L.parse_lesson(text)
        met |= info.value.message.codes()
    met |= {"lesson.too-large", "lesson.not-found", "lesson.none-shipped", "lesson.cannot-read"}
    met.add("lesson.skip-cuda")  # (not an error: test_a_cuda_step_is_skipped_with_a_message)
    assert met >= {code for code in CATALOG if code.startswith("lesson.")}


def test_a_cuda_step_is_skipped_with_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    lesson = L.parse_lesson("---\nname: t\ntitle: T\nlanguage: en\n---\n## On a GPU\n"
                            "requires: cuda\n\n```python\nx = torch.ones(2, device='cuda')\n```\n")
    step = lesson.step(1)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    reason = L.skip_reason(step)
    assert isinstance(reason, Message) and reason.code == "lesson.skip-cuda"
    assert reason == "needs a CUDA GPU, and this machine has none"
    assert reason.render("zh") == "需要 CUDA GPU，而这台机器没有"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert L.skip_reason(step) is None


def test_a_lesson_without_a_path_is_called_lesson() -> None:
    with pytest.raises(L.LessonError) as info:
        L.parse_lesson("hello\n")
    assert str(info.value).startswith("lesson, line 1: a lesson starts with")
    assert info.value.text("zh").startswith("课程，第 1 行：课程以前置信息")


def test_files_that_cannot_be_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def said(fn: Callable[[], object]) -> tuple[str, str]:
        with pytest.raises(L.LessonError) as info:
            fn()
        return str(info.value), info.value.text("zh")

    missing = tmp_path / "missing.md"
    assert said(lambda: L.read_lesson(missing)) == (f"{missing}: no such file",
                                                    f"{missing}：没有这个文件")
    latin = tmp_path / "latin.md"
    latin.write_bytes(b"---\nname: a\xe9\n")
    assert said(lambda: L.read_lesson(latin)) == (f"{latin}: not a UTF-8 text file",
                                                  f"{latin}：不是 UTF-8 编码的文本文件")
    big = tmp_path / "big.md"
    big.write_bytes(b"#" * (L.MAX_LESSON_BYTES + 1))
    assert said(lambda: L.read_lesson(big)) == (
        f"{big}: a lesson of 1,048,577 bytes is too large",
        f"{big}：课程文件有 1,048,577 字节，太大了")
    english, chinese = said(lambda: L.load_lesson("no-such-lesson"))
    assert english.startswith("no-such-lesson: no lesson file or shipped lesson of this name "
                              "(shipped: welcome, ")
    assert chinese.startswith("no-such-lesson：没有这个名字的课程文件或内置课程"
                              "（内置课程：welcome、")
    # the shipped lessons' list reads each file's head: one that is not UTF-8
    (tmp_path / "shipped").mkdir()
    (tmp_path / "shipped" / "00-x.en.md").write_bytes(b"---\nname: a\xe9\n")
    monkeypatch.setattr(L, "shipped_dir", lambda: tmp_path / "shipped")
    english, chinese = said(L.list_lessons)
    assert english.startswith(f"{tmp_path / 'shipped' / '00-x.en.md'}: cannot read the lesson: "
                              "'utf-8' codec can't decode")
    assert chinese.startswith(f"{tmp_path / 'shipped' / '00-x.en.md'}：无法读取课程：'utf-8'")
    monkeypatch.setattr(L, "shipped_dir", lambda: tmp_path / "nothing")
    english, chinese = said(lambda: L.load_lesson("no-such-lesson"))
    assert english.endswith("(shipped: none)") and chinese.endswith("（内置课程：无）")


def test_a_lesson_error_pickles_and_copies_with_its_message() -> None:
    with pytest.raises(L.LessonError) as info:
        L.parse_lesson(FM + "## S\npanel: nope\n", "x.md")
    err = info.value
    for other in (pickle.loads(pickle.dumps(err)), copy.copy(err), copy.deepcopy(err)):
        assert isinstance(other, L.LessonError) and str(other) == str(err)
        assert (other.path, other.line, other.reason) == (err.path, err.line, err.reason)
        assert other.text("zh") == err.text("zh")


def test_opening_a_broken_lesson_file_says_why_in_the_readers_language(tmp_path: Path) -> None:
    path = tmp_path / "broken.md"
    path.write_text(FM.replace("name: a", "name: broken") + "## S\npanel: nope\n",
                    encoding="utf-8")
    with pytest.raises(LoadError) as info:
        open_into(Workspace(), path)
    err = info.value
    assert str(err) == f"{path}, line 7: panel 'nope' does not exist; use one of {PANELS}"
    assert err.text("zh") == (f"{path}，第 7 行：面板 'nope' 不存在；请使用 "
                              f"{PANELS.replace(', ', '、')} 之一")
