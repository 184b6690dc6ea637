"""Lessons: the format and its errors, the checker, and every shipped lesson run step by step."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from tensor_explorer.core import lessons as L
from tensor_explorer.core.workspace import Workspace

SHIPPED = L.shipped_lessons()
CASES = [(name, lang) for name, variants in SHIPPED.items() for lang in variants]

GOOD = textwrap.dedent(
    """\
    ---
    name: tiny
    title: "Tiny: a test"
    language: en
    ---

    Intro text.

    ## Make two tensors

    Some *prose*.

    ```python
    array = np.zeros((2, 2), dtype=np.float32)
    shared = torch.from_numpy(array)
    copied = torch.tensor(array)
    ```

    panel: memory
    select: shared
    expect: shared.shape == (2, 2)

    ## Write into the array

    ```python
    array[0, 0] = 99
    ```

    expect: shared[0, 0] == 99
    expect: copied[0, 0] == 0

    ## Only words

    No code here.
    """
)


def write(tmp_path: Path, text: str, name: str = "lesson.en.md") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------------------- shipped


def test_shipped_lessons_cover_both_chapters_in_both_languages() -> None:
    names = list(SHIPPED)
    assert names[0] == "welcome" == L.default_lesson()
    for needed in ("tensor-basics", "dtypes", "devices", "numpy-sharing", "shapes",
                   "broadcasting", "expand-clone", "autograd-chain", "grad-accumulation",
                   "no-grad", "freezing", "item", "grad-clipping", "batch-checker",
                   "run-one-step", "debugging"):
        assert needed in SHIPPED, needed
    for name, variants in SHIPPED.items():
        assert set(variants) == {"en", "zh"}, name


@pytest.mark.parametrize(("name", "lang"), CASES)
def test_every_step_of_every_shipped_lesson_holds(name: str, lang: str) -> None:
    lesson = L.load_lesson(name, lang)
    assert lesson.name == name and lesson.language == lang
    ws = Workspace()
    for step in lesson.steps:
        result = L.run_step(ws, step)
        if result.skipped:
            assert step.requires == "cuda" and not torch.cuda.is_available()
            continue
        assert result.ok, (step.number, step.title, [(c.text, c.detail) for c in result.failures])
        if step.select is not None:
            assert result.select == step.select


@pytest.mark.parametrize("name", list(SHIPPED))
def test_translations_share_code_and_directives(name: str) -> None:
    variants = {lang: L.read_lesson(p) for lang, p in SHIPPED[name].items()}
    assert L.compare_languages(variants) == []
    en, zh = variants["en"], variants["zh"]
    assert en.title != zh.title  # the prose really is translated
    for a, b in zip(en.steps, zh.steps, strict=True):
        assert a.shared_part() == b.shared_part()
        assert a.title != b.title or a.markdown != b.markdown  # translated


def test_every_step_names_a_panel_or_has_no_code() -> None:
    for name, variants in SHIPPED.items():
        lesson = L.read_lesson(variants["en"])
        for step in lesson.steps:
            assert step.panel is not None or not step.code, (name, step.number)
            assert step.expectations or not step.code or step.panel == "code", (name, step.number)


def test_list_lessons() -> None:
    infos = L.list_lessons()
    assert [i.name for i in infos] == list(SHIPPED)
    welcome = infos[0].to_dict()
    assert welcome["languages"] == ["en", "zh"]
    assert welcome["steps"] == len(L.load_lesson("welcome").steps)
    assert welcome["titles"]["zh"] and welcome["title"] == welcome["titles"]["en"]
    # the list reads only front matter and step headings: it must agree with a full parse
    for info in infos:
        for lang in info.languages:
            lesson = L.load_lesson(info.name, language=lang)
            assert info.titles[lang] == lesson.title
            assert info.steps == len(lesson.steps), (info.name, lang)


def test_lesson_heads_skip_headings_inside_code_blocks(tmp_path: Path) -> None:
    text = GOOD.replace("array[0, 0] = 99", "## not a step: a comment in code\narray[0, 0] = 99")
    text = text.replace("Some *prose*.", "~~~text\n## also not a step\n~~~\n")
    path = write(tmp_path, text)
    lesson = L.read_lesson(path)
    plain = L.read_lesson(write(tmp_path, GOOD, "plain.en.md"))
    assert len(lesson.steps) == len(plain.steps)  # the headings in code blocks are not steps
    assert L._head(path) == (lesson.title, len(lesson.steps))


# ------------------------------------------------------------------------------- format


def test_parse_a_good_lesson(tmp_path: Path) -> None:
    lesson = L.read_lesson(write(tmp_path, GOOD))
    assert (lesson.name, lesson.title, lesson.language) == ("tiny", "Tiny: a test", "en")
    assert lesson.intro == "Intro text."
    assert [s.title for s in lesson.steps] == ["Make two tensors", "Write into the array",
                                               "Only words"]
    first = lesson.steps[0]
    assert first.panel == "memory" and first.select == "shared"
    assert first.code.startswith("array = np.zeros")
    assert first.file_line(1) == GOOD.splitlines().index(first.code.splitlines()[0]) + 1
    assert "```python" in first.markdown and "panel:" not in first.markdown
    assert [e.directive for e in lesson.steps[1].expectations] == [
        "expect: shared[0, 0] == 99", "expect: copied[0, 0] == 0"]
    assert lesson.steps[2].code == "" and lesson.steps[2].markdown == "No code here."
    with pytest.raises(ValueError, match="steps 1 to 3"):
        lesson.step(4)


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("# no front matter\n", 1, "front matter"),
        ("---\nname: a\ntitle: b\n", 1, "not closed"),
        ("---\nname: a\nlanguage: en\n---\n## S\n", 4, "'title:'"),
        ("---\nname: a\ntitel: b\nlanguage: en\n---\n", 3, "unknown front matter key 'titel'"),
        ("---\nname: a\ntitle: b\nlanguage: fr\n---\n## S\n", None, "language: 'fr'"),
        ("---\nname: A B\ntitle: b\nlanguage: en\n---\n## S\n", None, "lower-case"),
        ("---\nname: a\ntitle: b\nlanguage: en\n---\nJust prose.\n", None, "at least one step"),
        ("---\nname: a\ntitle: b\nlanguage: en\n---\n## S\n\n```python\nx = 1\n", 8,
         "never closed"),
        ("---\nname: a\ntitle: b\nlanguage: en\n---\n## S\npanel: graphs\n", 7,
         "panel 'graphs' does not exist"),
        ("---\nname: a\ntitle: b\nlanguage: en\n---\n## S\nexpect: x ==\n", 7,
         "not a Python expression"),
        ("---\nname: a\ntitle: b\nlanguage: en\n---\n## S\nexpect-error: bad kind\n", 7,
         "one error kind"),
        ("---\nname: a\ntitle: b\nlanguage: en\n---\n## S\nrequires: tpu\n", 7, "'tpu'"),
        ("---\nname: a\ntitle: b\nlanguage: en\n---\npanel: values\n## S\n", 6,
         "before the first"),
        ("---\nname: a\ntitle: b\nlanguage: en\n---\n## S\npanel: values\npanel: graph\n", 8,
         "given twice"),
        ("---\nname: a\ntitle: b\nlanguage: en\n---\n## S\nselect: 2x\n", 7, "not a value name"),
        ("---\nname: a\ntitle: b\nlanguage: en\n---\n## S\n```python\nx = (1\n```\n", 8,
         "not valid Python"),
        ("---\nname: a\ntitle: b\nlanguage: en\n---\n## \n", 6, "needs a title"),
    ],
)
def test_bad_lessons_say_what_and_where(tmp_path: Path, text: str, line: int | None,
                                        words: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(L.LessonError) as info:
        L.read_lesson(path)
    err = info.value
    assert words in str(err)
    assert err.line == line
    assert str(path) in str(err)
    if line is not None:
        assert f"line {line}:" in str(err)


def test_code_meant_to_fail_may_be_invalid(tmp_path: Path) -> None:
    text = "---\nname: a\ntitle: b\nlanguage: en\n---\n## S\n```python\nreturn 1\n```\n" \
           "expect-error: syntax\n"
    lesson = L.read_lesson(write(tmp_path, text))
    [result] = L.run_lesson(lesson)
    assert result.ok and result.error is not None and result.error.kind == "syntax"


def test_unreadable_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(L.LessonError, match="no such file"):
        L.read_lesson(tmp_path / "missing.md")
    bad = tmp_path / "latin.md"
    bad.write_bytes(b"---\nname: a\xe9\n")
    with pytest.raises(L.LessonError, match="UTF-8"):
        L.read_lesson(bad)
    with pytest.raises(L.LessonError, match="shipped"):
        L.load_lesson("no-such-lesson")


def test_is_lesson_and_variants(tmp_path: Path) -> None:
    en = write(tmp_path, GOOD, "tiny.en.md")
    zh = write(tmp_path, GOOD.replace("language: en", "language: zh"), "tiny.zh.md")
    other = write(tmp_path, "# Notes\n\nnot a lesson\n", "notes.md")
    assert L.is_lesson(en) and L.is_lesson(str(zh))
    assert not L.is_lesson(other)
    assert not L.is_lesson(tmp_path / "x.npy")
    assert L.is_lesson("welcome")
    assert not L.is_lesson("no-such-lesson")
    assert L.lesson_variants(en) == {"en": en, "zh": zh}
    assert L.load_lesson(en, "zh").language == "zh"
    assert L.load_lesson(zh).language == "zh"
    assert L.load_lesson("welcome", "zh").language == "zh"


def test_compare_languages_finds_changed_code_and_directives(tmp_path: Path) -> None:
    en = L.parse_lesson(GOOD)
    zh = L.parse_lesson(GOOD.replace("language: en", "language: zh")
                        .replace("Some *prose*.", "一些文字。")
                        .replace("# comment", "# 注释"))
    assert L.compare_languages([en, zh]) == []
    commented = L.parse_lesson(GOOD.replace("copied = torch.tensor(array)",
                                            "copied = torch.tensor(array)  # 复制"))
    assert L.compare_languages([en, commented]) == []  # comments are prose
    changed = L.parse_lesson(GOOD.replace("array[0, 0] = 99", "array[0, 0] = 98"))
    assert "step 2 has different code" in L.compare_languages([en, changed])[0]
    directive = L.parse_lesson(GOOD.replace("panel: memory", "panel: values"))
    assert "step 1 has different directives" in L.compare_languages([en, directive])[0]
    fewer = L.parse_lesson(GOOD.split("## Only words")[0])
    assert "3 steps in en, 2 in en" in L.compare_languages([en, fewer])[0]


# ------------------------------------------------------------------------------- checking


def test_failed_expectations_are_reported_plainly(tmp_path: Path) -> None:
    text = GOOD.replace("expect: copied[0, 0] == 0", "expect: copied[0, 0] == 99\n"
                        "expect: missing_name > 0\nexpect-error: RuntimeError")
    lesson = L.read_lesson(write(tmp_path, text))
    results = L.run_lesson(lesson)
    assert results[0].ok
    second = results[1]
    assert not second.ok
    failures = {c.text: c for c in second.failures}
    wrong = failures["expect: copied[0, 0] == 99"]
    assert wrong.detail == "copied[0, 0] is tensor(0.)"
    assert wrong.line == text.splitlines().index("expect: copied[0, 0] == 99") + 1
    assert "could not be evaluated" in failures["expect: missing_name > 0"].detail
    assert failures["expect-error: RuntimeError"].detail == "the code ran without an error"
    assert second.checks[0].ok  # shared[0, 0] == 99 still held


def test_an_unexpected_error_fails_the_step_with_its_file_line(tmp_path: Path) -> None:
    text = GOOD.replace("array[0, 0] = 99", "array[0, 0] = 99\nboom = torch.ones(2) @ "
                        "torch.ones(3)")
    path = write(tmp_path, text)
    results = L.run_lesson(L.read_lesson(path))
    step = results[1]
    [failure] = step.failures
    assert failure.text == "the step's code runs"
    assert failure.line == text.splitlines().index("boom = torch.ones(2) @ torch.ones(3)") + 1
    assert "boom = torch.ones(2)" in failure.detail
    assert step.error is not None and step.error.line == 2
    # the statement before the failing one kept its effect, and the checks still ran
    assert [c.ok for c in step.checks[1:]] == [True, True]


def test_expected_error_of_another_kind_fails() -> None:
    lesson = L.parse_lesson("---\nname: a\ntitle: b\nlanguage: en\n---\n## S\n```python\n"
                            "x = torch.ones(2) @ torch.ones(3)\n```\n"
                            "expect-error: device-mismatch\n")
    [result] = L.run_lesson(lesson)
    [failure] = result.failures
    assert "it failed differently: matmul-shape (RuntimeError)" in failure.detail


def test_expectations_leave_no_trace_in_the_workspace() -> None:
    ws = Workspace()
    ws.run("x = torch.ones(3)")
    before = (ws.names(), len(ws.history))
    seen: list[str] = []
    ws.events.ran.connect(lambda record: seen.append(record.source))
    assert L.evaluate(ws, "x.sum() == 3")
    assert L.evaluate(ws, "[v * 2 for v in x.tolist()]") == [2.0, 2.0, 2.0]
    assert (ws.names(), len(ws.history)) == before and seen == []


def test_expectations_run_in_the_restricted_runner() -> None:
    ws = Workspace()
    with pytest.raises(L.ProgramError) as info:
        L.evaluate(ws, "torch.ones(1).__class__")
    assert info.value.kind == "refused"
    with pytest.raises(L.ProgramError):
        L.evaluate(ws, "open('/etc/passwd')")
    lesson = L.parse_lesson("---\nname: a\ntitle: b\nlanguage: en\n---\n## S\n"
                            "expect: torch.save\n")
    [result] = L.run_lesson(lesson)
    assert not result.ok and "could not be evaluated" in result.failures[0].detail


def test_tensor_results_must_hold_everywhere() -> None:
    ws = Workspace()
    ws.run("a = torch.tensor([1, 2])\nb = torch.tensor([1, 3])")
    step = L.parse_lesson("---\nname: a\ntitle: b\nlanguage: en\n---\n## S\n"
                          "expect: a == b\nexpect: a <= b\n").steps[0]
    result = L.check_step(ws, step)
    assert [c.ok for c in result.checks] == [False, True]


def test_cuda_steps_are_skipped_without_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    lesson = L.load_lesson("devices", "en")
    results = L.run_lesson(lesson)
    skipped = [r for r in results if r.skipped]
    assert [r.step.requires for r in skipped] == ["cuda"]
    assert "CUDA" in (skipped[0].skipped or "")
    assert all(r.ok for r in results)


def test_run_lesson_upto_and_callback() -> None:
    lesson = L.load_lesson("numpy-sharing", "en")
    seen: list[int] = []
    ws = Workspace()
    results = L.run_lesson(lesson, ws, upto=2, on_step=lambda r: seen.append(r.step.number))
    assert seen == [1, 2] and len(results) == 2
    assert ws["shared"][0, 0].item() == 99
    with pytest.raises(ValueError, match="steps 1 to"):
        L.run_lesson(lesson, upto=99)


# ------------------------------------------------------------------------------- commands


def test_cmd_lessons_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert L.cmd_lessons(False) == 0
    text = capsys.readouterr().out
    assert "welcome" in text and "steps" in text and "[en,zh]" in text
    assert L.cmd_lessons(True) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["name"] for d in data["lessons"]] == list(SHIPPED)
    assert set(data["lessons"][0]) == {"name", "title", "titles", "languages", "steps"}


def test_cmd_check_passes_and_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert L.cmd_check(["welcome"]) == 0
    out = capsys.readouterr().out
    assert "ok   welcome [en]" in out and "ok   welcome [zh]" in out
    bad = write(tmp_path, GOOD.replace("expect: copied[0, 0] == 0", "expect: copied[0, 0] == 5"),
                "tiny.en.md")
    assert L.cmd_check([str(bad), str(tmp_path / "nothing.md")]) == 1
    out = capsys.readouterr().out
    assert "FAIL tiny [en]" in out
    assert 'step 2 "Write into the array"' in out
    assert "expect: copied[0, 0] == 5 -- copied[0, 0] is tensor(0.)" in out
    assert "FAIL " + str(tmp_path / "nothing.md") in out


def test_cmd_check_reports_translations_that_differ(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, GOOD, "tiny.en.md")
    write(tmp_path, GOOD.replace("language: en", "language: zh").replace("= 99", "= 98"),
          "tiny.zh.md")
    assert L.cmd_check([str(tmp_path / "tiny.en.md")]) == 1
    assert "translations differ" in capsys.readouterr().out


def test_core_lessons_never_imports_qt() -> None:
    code = ("import sys, tensor_explorer.core.lessons as L; L.list_lessons(); "
            "print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph', "
            "'tensor_explorer.qt'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
