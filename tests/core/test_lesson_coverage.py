"""The coverage table of ``resources/lessons/README.md`` stays true.

Each row maps one point of the two course chapters to lesson steps. For every row: each step
exists in English and in Chinese, the first step listed contains the row's evidence in both
languages, and every listed step passes its checks, as shipped (full Python) and as a copy a
teacher would open (the restricted runner). A step marked ``requires: cuda`` may be skipped
without CUDA.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import pytest
import torch

from tensor_explorer.core import lessons as L
from tensor_explorer.core.workspace import Workspace

README = L.shipped_dir() / "README.md"
LANGUAGES = ("en", "zh")

#: the points that were missing once (issue #18): they must stay in the table
REQUIRED = {
    "A06",  # time / channel / height / width axes
    "A08",  # float16 / bfloat16 and mixed precision
    "A11",  # to(device) returns a tensor, Module.to works in place
    "A15",  # DataLoader workers and sharing
    "A18",  # JSON-serialisable output
    "A24",  # labels need no gradient, integer tensors cannot require grad
    "A27",  # detaching a branch that must learn
    "A34",  # measure before deploying
    "A35",  # "Expected all tensors to be on the same device"
    "A36",  # "Expected floating point type"
    "A38",  # a parameter not given to the optimizer
    "A41",  # CUDA determinism and the torch version
    "A42",  # the exercise's outline
    "A44",  # per-parameter gradient norms
    "A46",  # wrong columns caught at the boundary
    "A48",  # float labels
    "A49",  # the "different device" reproduction
    "B08",  # broadcasting does not copy
    "B12",  # pin_memory
    "B18",  # None and zero gradients differ for the optimizer
    "B21",  # inference_mode turns off view tracking and version counters
    "B22",  # train() vs eval()
    "B34",  # a label out of range
    "B37",  # reading gradients at the wrong time
    "A30",  # .grad of a non-leaf
}


@dataclass(frozen=True)
class Row:
    id: str
    point: str
    refs: tuple[tuple[str, tuple[int, ...]], ...]  # (lesson, steps)
    evidence: str


_ROW = re.compile(r"^\|\s*([AB]\d\d)\s*\|(.+?)\|(.+?)\|\s*`(.+)`\s*\|\s*$")
_REF = re.compile(r"^\s*([a-z0-9-]+)\s+(\d+(?:\s*,\s*\d+)*)\s*$")


def parse_table(text: str) -> list[Row]:
    rows = []
    for line in text.splitlines():
        if not line.startswith("| ") or line.startswith(("| id ", "|---")):
            continue
        m = _ROW.match(line)
        assert m, f"a table row that does not parse: {line!r}"
        refs = []
        for part in m.group(3).split(";"):
            ref = _REF.match(part)
            assert ref, f"{m.group(1)}: not 'lesson step, step': {part!r}"
            refs.append((ref.group(1), tuple(int(n) for n in ref.group(2).split(","))))
        rows.append(Row(m.group(1), m.group(2).strip(), tuple(refs), m.group(4)))
    return rows


ROWS = parse_table(README.read_text(encoding="utf-8"))
LESSONS = sorted({name for row in ROWS for name, _ in row.refs})


@cache
def lesson(name: str, lang: str) -> L.Lesson:
    return L.load_lesson(name, lang)


@cache
def results(name: str, lang: str, trusted: bool) -> tuple[L.StepResult, ...]:
    return tuple(L.run_lesson(lesson(name, lang).trusted_as(trusted), Workspace()))


def step_text(step: L.Step) -> str:
    return "\n".join(
        [step.title, step.markdown, step.code, *(e.directive for e in step.expectations)]
    )


def test_the_table_parses_and_covers_both_chapters() -> None:
    ids = [row.id for row in ROWS]
    assert len(ids) == len(set(ids)), "ids are unique"
    assert sum(i.startswith("A") for i in ids) >= 45
    assert sum(i.startswith("B") for i in ids) >= 35
    assert set(ids) >= REQUIRED, sorted(REQUIRED - set(ids))
    for row in ROWS:
        assert row.point and row.evidence and row.refs, row.id


def test_every_shipped_lesson_teaches_some_point() -> None:
    assert set(LESSONS) == set(L.shipped_lessons())


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_each_step_exists_in_both_languages_with_its_evidence(row: Row) -> None:
    for index, (name, steps) in enumerate(row.refs):
        assert name in L.shipped_lessons(), f"{row.id}: no lesson {name!r}"
        for lang in LANGUAGES:
            found = lesson(name, lang)
            for number in steps:
                assert 1 <= number <= len(found.steps), (row.id, name, lang, number)
            if index == 0:
                text = step_text(found.step(steps[0]))
                assert row.evidence in text, (row.id, name, lang, steps[0], row.evidence)


@pytest.mark.parametrize("trusted", [True, False], ids=["shipped", "restricted"])
@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", LESSONS)
def test_every_listed_step_passes_its_checks(name: str, lang: str, trusted: bool) -> None:
    listed = sorted(
        {n for row in ROWS for lesson_name, steps in row.refs if lesson_name == name for n in steps}
    )
    done = results(name, lang, trusted)
    for number in listed:
        result = done[number - 1]
        if result.skipped:
            assert result.step.requires == "cuda" and not torch.cuda.is_available()
            continue
        assert result.ok, (name, lang, number, [(c.text, c.detail) for c in result.failures])


def test_the_parser_refuses_a_malformed_row() -> None:
    with pytest.raises(AssertionError, match="does not parse"):
        parse_table("| A01 | a point | debugging 1 | no backticks |\n")
    with pytest.raises(AssertionError, match="not 'lesson step"):
        parse_table("| A01 | a point | debugging one | `x` |\n")
    [row] = parse_table("| B02 | a point | shapes 1, 2; debugging 3 | `x = 1` |\n")
    assert row.refs == (("shapes", (1, 2)), ("debugging", (3,))) and row.evidence == "x = 1"
