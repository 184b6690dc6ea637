"""The coverage table of ``resources/lessons/README.md`` stays true, in meaning, not only words.

Each row maps one point of the two course chapters (or a point beyond them, ``C..``) to lesson
steps. For every row: each step exists in English and in Chinese, the first step listed contains
the row's evidence and its *proof* (one ``expect:``/``expect-error:`` line, as written) in both
languages, and every listed step passes its checks, as shipped (full Python) and as a copy a
teacher would open (the restricted runner). A step marked ``requires: cuda`` may be skipped
without CUDA.

That a proof is present and holds is not enough: it must also *mean* something. So each proof
must fail when the step's code does not run (the step run with its code removed: a proof that
still holds was true before the step and proves nothing about it), and, for the rows of
:data:`MUTATIONS`, when the code is broken on purpose in the way the point warns about.
"""

from __future__ import annotations

import dataclasses
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
    # issue #28: points once missing or only named by a step that did not show them
    "A13",  # a (2,) output breaks the loss
    "A17",  # log at intervals
    "A22",  # backward leaves the parameters, the optimizer moves them
    "A52",  # feature order, standardisation, data_version
    "A53",  # control the batch size
    "A54",  # device passed explicitly
    "A55",  # time a copy
    "B29",  # item() frees no graph
    "B40",  # implicit conversion
    "B41",  # eval() and BatchNorm
    *(f"C0{n}" for n in range(1, 10)),  # beyond the chapters
}

#: steps whose code needs full Python (``import time``): as an untrusted copy they are refused
FULL_PYTHON = {("batch-checker", 11)}

#: row -> (step of the row's first lesson, code replaced, replacement): the step broken the way
#: the point warns about; the row's proof must then fail
MUTATIONS: dict[str, tuple[int, str, str]] = {
    # from_numpy made to copy: shared no longer follows the array
    "A19": (1, "shared = torch.from_numpy(array)", "shared = torch.tensor(array)"),
    # zero_grad before the second batch: .grad is no longer the sum of both
    "A23": (4, "loss.backward()", "optimizer.zero_grad()\nloss.backward()"),
    # the optimizer steps before the snapshot: backward alone seems to move the weights
    "A22": (
        9,
        "after_backward = model.weight.detach().clone()\noptimizer.step()",
        "optimizer.step()\nafter_backward = model.weight.detach().clone()",
    ),
    # a right head: nothing breaks
    "A13": (5, "nn.Linear(3, 1)", "nn.Linear(3, 2)"),
    # inference recomputes the statistics from its own batch
    "A52": (9, '(raw - contract["mean"]) / contract["std"]', "(raw - raw.mean(axis=0)) / 1.0"),
    # the device hidden in prepare: the caller's choice is ignored
    "A54": (9, "device=device)", 'device="cpu")'),
    # a sync at every step instead of at intervals
    "A17": (5, "% 50 == 0", "% 1 == 0"),
    # the shapes made to agree: no hidden (3, 3)
    "B39": (4, "diff = pred - target", "diff = pred.squeeze(1) - target"),
    # the missing leading axis put at the end: not the broadcasting rule
    "B07": (1, "c = a + b", "c = a.reshape(3, 1) + b"),
    # converted before the arithmetic: no wrap-around
    "B40": (12, "wrapped = pixels + 10", "wrapped = pixels.to(torch.int16) + 10"),
    # BatchNorm left in train(): eval gives the same as training
    "B41": (6, "bn.eval()", "bn.train()"),
    # the write done on a copy: autograd's gradient is right again
    "C01": (10, "out.data.zero_()", "out.data.clone().zero_()"),
    # detach().clone(): a new version counter, backward has nothing to refuse
    "C02": (11, "out.detach().zero_()", "out.detach().clone().zero_()"),
    # the in-place update done under no_grad: no error
    "C05": (10, "w -= 0.1 * w.grad", "with torch.no_grad():\n    w -= 0.1 * w.grad"),
    # a copy before numpy(): the parameter no longer changes
    "C08": (5, "values = w.detach().cpu().numpy()", "values = w.detach().clone().cpu().numpy()"),
    # no clone: z shares y's memory
    "C09": (
        3,
        "z = y.detach().clone().requires_grad_(True)",
        "z = y.detach().requires_grad_(True)",
    ),
    # expand instead of repeat: no copy
    "C03": (5, "repeated = values.repeat(1, 3)", "repeated = values.expand(-1, 3)"),
}


@dataclass(frozen=True)
class Row:
    id: str
    point: str
    refs: tuple[tuple[str, tuple[int, ...]], ...]  # (lesson, steps)
    evidence: str
    proof: str  # an expectation line of the first step, as written ("expect: ...")


_ROW = re.compile(r"^\|\s*([ABC]\d\d)\s*\|(.+?)\|(.+?)\|\s*`(.+?)`\s*\|\s*`(.+)`\s*\|\s*$")
_PROOF = re.compile(r"^expect(-error)?: \S")
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
        assert _PROOF.match(m.group(5)), f"{m.group(1)}: a proof is an expectation line"
        rows.append(Row(m.group(1), m.group(2).strip(), tuple(refs), m.group(4), m.group(5)))
    return rows


ROWS = parse_table(README.read_text(encoding="utf-8"))
LESSONS = sorted({name for row in ROWS for name, _ in row.refs})


@cache
def lesson(name: str, lang: str) -> L.Lesson:
    return L.load_lesson(name, lang)


@cache
def results(name: str, lang: str, trusted: bool) -> tuple[L.StepResult, ...]:
    return tuple(L.run_lesson(lesson(name, lang).trusted_as(trusted), Workspace()))


def proves(step: L.Step, row: Row) -> bool:
    """The step has the row's proof among its expectation lines, as written."""
    return row.proof in [e.directive for e in step.expectations]


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
                step = found.step(steps[0])
                assert row.evidence in step_text(step), (row.id, name, lang, steps[0], row.evidence)
                assert proves(step, row), (row.id, name, lang, steps[0], row.proof)


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
        if not trusted and (name, number) in FULL_PYTHON:
            assert result.error is not None and result.error.kind == "refused", (name, number)
            continue
        assert result.ok, (name, lang, number, [(c.text, c.detail) for c in result.failures])


def proof_check(row: Row, mutate: tuple[int, str, str] | None) -> L.Check | None:
    """Run the row's first lesson (English, as shipped) up to its first step, that step with its
    code removed (``mutate`` None) or with step ``mutate[0]``'s code changed, and return the
    check of the row's proof (None: the step was skipped on this machine)."""
    name, steps = row.refs[0]
    found = lesson(name, "en")
    target = steps[0]
    ws = Workspace()
    result = None
    for step in found.steps[:target]:
        if mutate is None and step.number == target:
            step = dataclasses.replace(step, code="")
        elif mutate is not None and step.number == mutate[0]:
            number, old, new = mutate
            assert old in step.code, (row.id, number, old)
            step = dataclasses.replace(step, code=step.code.replace(old, new))
        result = L.run_step(ws, step)
    assert result is not None
    if result.skipped:
        return None
    [check] = [c for c in result.checks if c.text == row.proof]
    return check


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_the_proof_fails_without_the_steps_code(row: Row) -> None:
    check = proof_check(row, None)
    if check is None:
        pytest.skip("the step needs CUDA")
    assert not check.ok, f"{row.id}: {row.proof!r} holds before its step runs: it proves nothing"


@pytest.mark.parametrize("row_id", sorted(MUTATIONS))
def test_the_proof_fails_when_the_code_is_broken(row_id: str) -> None:
    [row] = [r for r in ROWS if r.id == row_id]
    assert MUTATIONS[row_id][0] <= row.refs[0][1][0], "the mutated step runs before the proof"
    check = proof_check(row, MUTATIONS[row_id])
    assert check is not None
    assert not check.ok, f"{row.id}: {row.proof!r} still holds with the code broken"


def test_the_parser_refuses_a_malformed_row() -> None:
    with pytest.raises(AssertionError, match="does not parse"):
        parse_table("| A01 | a point | debugging 1 | no backticks | `expect: x` |\n")
    with pytest.raises(AssertionError, match="does not parse"):
        parse_table("| A01 | a point | debugging 1 | `x` |\n")  # no proof
    with pytest.raises(AssertionError, match="not 'lesson step"):
        parse_table("| A01 | a point | debugging one | `x` | `expect: x` |\n")
    with pytest.raises(AssertionError, match="a proof is an expectation"):
        parse_table("| A01 | a point | debugging 1 | `x` | `x == 1` |\n")
    [row] = parse_table(
        "| B02 | a point | shapes 1, 2; debugging 3 | `x = 1` | `expect-error: ValueError` |\n"
    )
    assert row.refs == (("shapes", (1, 2)), ("debugging", (3,))) and row.evidence == "x = 1"
    assert row.proof == "expect-error: ValueError"


def test_a_proof_removed_from_its_step_is_noticed() -> None:
    """Deleting a row's proof from its step (simulated on a copy, for every row) makes the
    check of :func:`test_each_step_exists_in_both_languages_with_its_evidence` fail."""
    for row in ROWS:
        name, steps = row.refs[0]
        step = lesson(name, "en").step(steps[0])
        kept = tuple(e for e in step.expectations if e.directive != row.proof)
        assert proves(step, row) and len(kept) == len(step.expectations) - 1, row.id
        assert not proves(dataclasses.replace(step, expectations=kept), row), row.id
