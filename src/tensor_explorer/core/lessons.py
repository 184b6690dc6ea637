"""Lessons: step-by-step classroom scenarios written as Markdown, run and checked headlessly.

A lesson is a Markdown file with a small front matter and one ``## `` section per step. Each step
has prose (any Markdown), an optional ```` ```python ```` block that the restricted runner runs
(all steps run in order in one workspace), and *directive* lines: which panel to show, which
value to select, and expectations that check the teaching point really holds::

    ---
    name: numpy-sharing
    title: NumPy and tensors: share or copy?
    language: en
    ---

    An optional introduction, shown above the first step.

    ## Change one NumPy cell

    `from_numpy` shares the array's memory; `torch.tensor` copies it.

    ```python
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    shared = torch.from_numpy(array)
    copied = torch.tensor(array)
    array[0, 0] = 99
    ```

    panel: memory
    select: shared
    expect: shared[0, 0] == 99
    expect: copied[0, 0] == 0

Directives are lines that start with the keyword and a colon, outside code blocks:

``panel: NAME``
    the panel to show: ``workspace``, ``inspector``, ``values``, ``memory``, ``graph``, ``code``.
``select: NAME``
    the value to select (default: the last value the step bound or changed).
``expect: EXPRESSION``
    a Python expression evaluated by the restricted runner after the step; it must be true (a
    tensor or array result must be true everywhere).
``expect-error: KIND``
    the step's code must fail with this :class:`~tensor_explorer.core.runner.ProgramError`
    kind (``device-mismatch``, ``view-non-contiguous``...) or exception type
    (``RuntimeError``). Statements before the failing one keep their effect.
``requires: cuda``
    run the step only when CUDA is available; otherwise it is skipped with a note.

Languages: one file per language, ``NAME.en.md`` and ``NAME.zh.md`` side by side. Prose and
titles are translated; code and directives must be identical (:func:`compare_languages`, run by
``tensor-explorer check`` and the test suite). Shipped lessons live in ``resources/lessons/`` as
``NN-NAME.LANG.md`` (``NN`` orders the list).

Safety: a lesson file is data. Its code and its expectations only ever run through the restricted
runner (:meth:`Workspace.run` and :func:`evaluate`); nothing in a lesson is passed to ``eval``.
This module never imports Qt.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import dataclasses
import functools
import io
import json
import math
import os
import re
import sys
import tokenize
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..paths import resources_dir
from . import sandbox, trust
from .catalog import Message, error_in, message_of, text_in
from .runner import ProgramError, Runner, compile_program, refused_error, stopped_error
from .workspace import Workspace, restricted_among_trusted

__all__ = [
    "LANGUAGES",
    "PANELS",
    "Check",
    "Expectation",
    "Lesson",
    "LessonError",
    "LessonInfo",
    "Step",
    "StepResult",
    "check_step",
    "cmd_check",
    "cmd_lessons",
    "compare_languages",
    "default_lesson",
    "evaluate",
    "is_lesson",
    "lesson_variants",
    "list_lessons",
    "load_lesson",
    "parse_lesson",
    "read_lesson",
    "result_without_running",
    "run_lesson",
    "run_step",
    "shipped_dir",
    "shipped_lessons",
    "skip_reason",
    "step_ran",
]

LANGUAGES = ("en", "zh")
PANELS = ("workspace", "inspector", "values", "memory", "graph", "code")
REQUIREMENTS = ("cuda",)
DEFAULT_LESSON = "welcome"
MAX_LESSON_BYTES = 1 << 20
#: seconds one step (or one expectation) may run before it is stopped
STEP_TIME_LIMIT = 60.0
EXPECT_TIME_LIMIT = 3.0  # an expectation is a quick test; it runs where the lesson panel waits

_FRONT_KEYS = ("name", "title", "language")
_DIRECTIVE = re.compile(r"^(panel|select|expect-error|expect|requires):(.*)$")
_FENCE = re.compile(r"^(```+|~~~+)\s*([\w+-]*)")
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_ERROR_TOKEN = re.compile(r"^[A-Za-z][\w-]*$")
_VARIANT = re.compile(r"^(?P<stem>.+)\.(?P<lang>[a-z]{2})$")
_SHIPPED = re.compile(r"^(?:\d+-)?(?P<name>[a-z0-9][a-z0-9-]*)\.(?P<lang>[a-z]{2})\.md$")


class LessonError(ValueError):
    """A lesson file that cannot be used; the message names the file and the line.

    ``reason`` says what is wrong, usually a catalog
    :class:`~tensor_explorer.core.catalog.Message` (``lesson.*``); ``str(err)`` is
    "path, line N: reason" in English, as it always was (the CLI and tests read it), and
    :attr:`message` is that text as a Message (``lesson.failed``), so where it is shown it is
    rendered in the reader's language: :meth:`text`."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None) -> None:
        self.path = path
        self.line = line
        self.reason = message
        where: str = path or Message("lesson.unnamed")
        if line is not None:
            where = Message("lesson.at-line", where=where, line=line)
        super().__init__(Message("lesson.failed", where=where, why=message))

    @property
    def message(self) -> str:
        """The error's text as a catalog Message (its English as a ``str``)."""
        return message_of(self)

    def text(self, lang: str = "en") -> str:
        """The message in ``lang`` ("en" or "zh")."""
        return error_in(self, lang)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_lesson_error, (self.reason, self.path, self.line))


def _lesson_error(reason: str, path: str | None, line: int | None) -> LessonError:
    """A LessonError again (unpickling: the keywords are not in ``args``)."""
    return LessonError(reason, path=path, line=line)


# ---------------------------------------------------------------------------------- model


@dataclass(frozen=True)
class Expectation:
    """One ``expect:`` (``error=False``: an expression) or ``expect-error:`` (``error=True``:
    a ProgramError kind or exception type) line; ``line`` is its line in the file."""

    text: str
    line: int
    error: bool = False

    @property
    def directive(self) -> str:
        """The line as written: ``"expect: x.grad is None"``."""
        return f"{'expect-error' if self.error else 'expect'}: {self.text}"


@dataclass(frozen=True)
class Step:
    """One ``## `` section of a lesson (``number`` counts from 1).

    ``markdown`` is what the player shows: the prose with its code blocks, without the
    directive lines. ``code`` is the program the step runs (its ```` ```python ```` blocks,
    joined); ``code_lines[i]`` is the file line of the code's line ``i + 1``.
    """

    number: int
    title: str
    markdown: str
    code: str
    code_lines: tuple[int, ...]
    line: int
    panel: str | None = None
    select: str | None = None
    expectations: tuple[Expectation, ...] = ()
    requires: str | None = None
    #: its code runs as full Python (a shipped or trusted lesson), else restricted
    trusted: bool = False

    def file_line(self, code_line: int | None) -> int | None:
        """The lesson-file line of the step code's 1-based line ``code_line``."""
        if code_line is None or not 1 <= code_line <= len(self.code_lines):
            return None
        return self.code_lines[code_line - 1]

    def shared_part(self) -> tuple[Any, ...]:
        """Everything that must be identical across languages (code and directives)."""
        return (
            _program_text(self.code),
            self.panel,
            self.select,
            self.requires,
            tuple((e.error, e.text) for e in self.expectations),
        )


@dataclass(frozen=True)
class Lesson:
    """A parsed lesson in one language."""

    name: str
    title: str
    language: str
    intro: str
    steps: tuple[Step, ...]
    path: str | None = None
    #: shipped with the app, or trusted by the user (by content): its code runs as full
    #: Python; otherwise in the restricted runner (:mod:`.trust`)
    trusted: bool = False

    def trusted_as(self, trusted: bool) -> Lesson:
        """This lesson, trusted or not (its steps say so too)."""
        steps = tuple(dataclasses.replace(st, trusted=trusted) for st in self.steps)
        return dataclasses.replace(self, steps=steps, trusted=trusted)

    def step(self, number: int) -> Step:
        """Step ``number`` (from 1); raises ``ValueError`` with the valid range."""
        if not 1 <= number <= len(self.steps):
            raise ValueError(
                f"lesson {self.name!r} has steps 1 to {len(self.steps)}, not {number}"
            )
        return self.steps[number - 1]


@dataclass(frozen=True)
class LessonInfo:
    """One entry of :func:`list_lessons`."""

    name: str
    title: str  # the English title (else the first language's)
    titles: Mapping[str, str]
    languages: tuple[str, ...]
    steps: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "titles": dict(self.titles),
            "languages": list(self.languages),
            "steps": self.steps,
        }


@dataclass(frozen=True)
class Check:
    """One line of a step's report: an expectation (or the step's own error) and whether it
    held; ``detail`` says what was found when it did not."""

    text: str
    ok: bool
    detail: str = ""
    line: int | None = None
    #: ``detail`` in other languages (``(("zh", ...),)``) where it differs from the English
    details: tuple[tuple[str, str], ...] = ()

    def text_in(self, lang: str) -> str:
        """The expectation in ``lang``: directives (``expect: x.grad is None``) stay as written;
        the checker's own (:data:`CODE_RUNS`, a catalog Message) is said in ``lang``."""
        return text_in(self.text, lang)

    def detail_in(self, lang: str) -> str:
        """``detail`` in ``lang`` (the English where there is no translation); values, code and
        torch's own messages stay as written."""
        if lang == "en":
            return self.detail
        return dict(self.details).get(lang, self.detail)


@dataclass(frozen=True)
class StepResult:
    """What running one step did: its checks, the error its code raised (expected or not), the
    names it bound or changed, what it printed, and ``skipped`` (the reason) when it did not run.
    """

    step: Step
    checks: tuple[Check, ...] = ()
    error: ProgramError | None = None
    names: tuple[str, ...] = ()
    output: str = ""
    skipped: str | None = None
    select: str | None = None

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if not c.ok]


# ---------------------------------------------------------------------------------- parsing


def _lines(text: str) -> list[str]:
    """A lesson's lines, whatever its line endings."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _closes(fence: str, raw: str) -> bool:
    """True when ``raw`` closes the code block opened with ``fence``."""
    stripped = raw.strip()
    return stripped.startswith(fence) and stripped.strip(fence[0]) == ""


def _front_matter(lines: list[str], where: str) -> tuple[dict[str, str], int]:
    """The ``key: value`` pairs between the first two ``---`` lines, and the index after."""
    if not lines or lines[0].strip() != "---":
        raise LessonError(Message("lesson.no-front-matter"), path=where, line=1)
    meta: dict[str, str] = {}
    for i in range(1, len(lines)):
        text = lines[i].strip()
        if text == "---":
            for key in _FRONT_KEYS:
                if not meta.get(key):
                    raise LessonError(Message("lesson.front-needs-key", key=key), path=where,
                                      line=i + 1)
            return meta, i + 1
        if not text or text.startswith("#"):
            continue
        key, colon, value = text.partition(":")
        key = key.strip()
        if not colon:
            raise LessonError(Message("lesson.front-not-pair", text=text), path=where,
                              line=i + 1)
        if key not in _FRONT_KEYS:
            raise LessonError(Message("lesson.front-unknown-key", key=key, keys=_FRONT_KEYS),
                              path=where, line=i + 1)
        if key in meta:
            raise LessonError(Message("lesson.front-twice", key=key), path=where, line=i + 1)
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        meta[key] = value
    raise LessonError(Message("lesson.front-not-closed"), path=where, line=1)


@dataclass
class _StepDraft:
    title: str
    line: int
    prose: list[str] = field(default_factory=list)
    code: list[str] = field(default_factory=list)
    code_lines: list[int] = field(default_factory=list)
    panel: str | None = None
    select: str | None = None
    expectations: list[Expectation] = field(default_factory=list)
    requires: str | None = None


def _directive(draft: _StepDraft, key: str, value: str, line: int, where: str) -> None:
    def fail(code: str, **params: Any) -> LessonError:
        return LessonError(Message(code, **params), path=where, line=line)

    if not value:
        raise fail("lesson.needs-value", key=key)
    if key in ("panel", "select", "requires") and getattr(draft, key) is not None:
        raise fail("lesson.step-twice", key=key, title=draft.title)
    if key == "panel":
        if value not in PANELS:
            raise fail("lesson.no-panel", value=value, panels=PANELS)
        draft.panel = value
    elif key == "select":
        if not value.isidentifier() or value.startswith("_"):
            raise fail("lesson.select-not-name", value=value)
        draft.select = value
    elif key == "requires":
        if value not in REQUIREMENTS:
            raise fail("lesson.requires-unknown", value=value, known=REQUIREMENTS)
        draft.requires = value
    elif key == "expect-error":
        if not _ERROR_TOKEN.match(value):
            raise fail("lesson.expect-error-token", value=value)
        draft.expectations.append(Expectation(value, line, error=True))
    else:
        try:
            ast.parse(value, mode="eval")
        except SyntaxError as exc:
            raise fail("lesson.expect-not-python", value=value, why=str(exc.msg)) from None
        draft.expectations.append(Expectation(value, line))


def _finish(draft: _StepDraft, number: int, where: str) -> Step:
    code = "".join(line + "\n" for line in draft.code)
    if code.strip() and not any(e.error for e in draft.expectations):
        try:
            ast.parse(code)
        except SyntaxError as exc:
            line = draft.code_lines[exc.lineno - 1] if exc.lineno and exc.lineno <= len(
                draft.code_lines) else draft.line
            raise LessonError(Message("lesson.code-invalid", number=number, why=str(exc.msg)),
                              path=where, line=line) from None
    if not code.strip():
        code = ""
    markdown = "\n".join(draft.prose).strip("\n")
    markdown = re.sub(r"\n{3,}", "\n\n", markdown)
    return Step(
        number=number,
        title=draft.title,
        markdown=markdown,
        code=code,
        code_lines=tuple(draft.code_lines) if code else (),
        line=draft.line,
        panel=draft.panel,
        select=draft.select,
        expectations=tuple(draft.expectations),
        requires=draft.requires,
    )


def parse_lesson(text: str, path: str | None = None) -> Lesson:
    """Parse a lesson's text; raise :class:`LessonError` (with the line) if it is malformed."""
    where: str = path or Message("lesson.unnamed")
    lines = _lines(text)
    meta, start = _front_matter(lines, where)
    name, title, language = meta["name"], meta["title"], meta["language"]
    if not _NAME.match(name):
        raise LessonError(Message("lesson.bad-name", name=name), path=where)
    if language not in LANGUAGES:
        raise LessonError(Message("lesson.bad-language", language=language,
                                  languages=LANGUAGES), path=where)
    intro: list[str] = []
    drafts: list[_StepDraft] = []
    fence: str | None = None  # the opening fence while inside a code block
    runs = False  # the current block is a step's code
    fence_line = 0
    for i in range(start, len(lines)):
        raw, n = lines[i], i + 1
        draft = drafts[-1] if drafts else None
        if fence is not None:
            if _closes(fence, raw):
                fence = None
                if draft is not None:
                    draft.prose.append(raw)
                else:
                    intro.append(raw)
                continue
            if runs and draft is not None:
                draft.code.append(raw)
                draft.code_lines.append(n)
            (draft.prose if draft is not None else intro).append(raw)
            continue
        m = _FENCE.match(raw)
        if m:
            fence, fence_line = m.group(1), n
            runs = m.group(2).lower() in ("python", "py")
            if runs and draft is None:
                raise LessonError(Message("lesson.code-before-step"), path=where, line=n)
            (draft.prose if draft is not None else intro).append(raw)
            continue
        if raw.startswith("## "):
            heading = raw[3:].strip()
            if not heading:
                raise LessonError(Message("lesson.step-needs-title"), path=where, line=n)
            drafts.append(_StepDraft(heading, n))
            continue
        if raw.startswith("# ") and not drafts:
            continue  # a top-level title repeats the front matter's; not shown twice
        d = _DIRECTIVE.match(raw)
        if d:
            if draft is None:
                raise LessonError(Message("lesson.directive-before-step", key=d.group(1)),
                                  path=where, line=n)
            _directive(draft, d.group(1), d.group(2).strip(), n, where)
            continue
        (draft.prose if draft is not None else intro).append(raw)
    if fence is not None:
        raise LessonError(Message("lesson.fence-not-closed", fence=fence), path=where,
                          line=fence_line)
    if not drafts:
        raise LessonError(Message("lesson.no-steps"), path=where)
    steps = tuple(_finish(d, k, where) for k, d in enumerate(drafts, start=1))
    return Lesson(name, title, language, "\n".join(intro).strip(), steps, path)


def read_lesson(path: str | Path, *, asked: bool = False) -> Lesson:
    """Read and parse a lesson file; :class:`LessonError` if it cannot be read or parsed.
    Whether its code runs as full Python is :func:`.trust.decide`'s answer (``asked``: the
    user's ``--trust``)."""
    p = Path(path)
    try:
        if p.stat().st_size > MAX_LESSON_BYTES:
            raise LessonError(Message("lesson.too-large", nbytes=p.stat().st_size),
                              path=str(p))
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LessonError(Message("load.no-file"), path=str(p)) from None
    except UnicodeDecodeError:
        raise LessonError(Message("load.not-utf8"), path=str(p)) from None
    except OSError as exc:
        raise LessonError(Message("load.unreadable", why=str(exc.strerror or exc)),
                          path=str(p)) from None
    lesson = parse_lesson(text, str(p))
    return lesson.trusted_as(trust.decide(p, text.encode("utf-8"), asked=asked).full)


# ---------------------------------------------------------------------------------- finding


def shipped_dir() -> Path:
    """The folder of the lessons that ship with the application."""
    return resources_dir() / "lessons"


def shipped_lessons() -> dict[str, dict[str, Path]]:
    """Shipped lessons in order: ``{name: {language: path}}``."""
    out: dict[str, dict[str, Path]] = {}
    folder = shipped_dir()
    if not folder.is_dir():
        return out
    for path in sorted(folder.glob("*.md")):
        m = _SHIPPED.match(path.name)
        if m and m.group("lang") in LANGUAGES:
            out.setdefault(m.group("name"), {})[m.group("lang")] = path
    return out


def default_lesson() -> str:
    """The name of the lesson the app opens when it starts with nothing to open."""
    return DEFAULT_LESSON


def is_lesson(source: str | os.PathLike[str]) -> bool:
    """True for a lesson file (``.md`` starting with a front matter that has ``name:`` and
    ``title:``) or the name of a shipped lesson that is not also an existing path."""
    p = Path(source)
    if p.suffix.lower() == ".md" and p.is_file():
        try:
            with p.open("rb") as fh:
                head = fh.read(4096).decode("utf-8", "replace")
        except OSError:
            return False
        lines = head.replace("\r\n", "\n").split("\n")
        if not lines or lines[0].strip() != "---":
            return False
        keys = {ln.partition(":")[0].strip() for ln in lines[1:40] if ":" in ln}
        return {"name", "title"} <= keys
    return not p.exists() and str(source) in shipped_lessons()


def lesson_variants(source: str | os.PathLike[str]) -> dict[str, Path]:
    """``{language: path}`` of a lesson given as a shipped name or as one of its files
    (``x.en.md`` finds ``x.zh.md`` beside it); :class:`LessonError` if there is none."""
    p = Path(source)
    if not p.exists() and str(source) in (shipped := shipped_lessons()):
        return dict(shipped[str(source)])
    if not p.is_file():
        names: Any = tuple(shipped_lessons()) or Message("lesson.none-shipped")
        raise LessonError(Message("lesson.not-found", names=names), path=str(source))
    m = _VARIANT.match(p.stem)
    if m and m.group("lang") in LANGUAGES:
        found = {lang: p.with_name(f"{m.group('stem')}.{lang}{p.suffix}") for lang in LANGUAGES}
        return {lang: q for lang, q in found.items() if q.is_file()}
    return {read_lesson(p).language: p}


def load_lesson(source: str | os.PathLike[str], language: str | None = None, *,
                asked: bool = False) -> Lesson:
    """The lesson ``source`` (shipped name or file) in ``language`` when it has it, else in
    English, else in the language it has. ``asked``: the user's ``--trust`` (see
    :func:`read_lesson`)."""
    variants = lesson_variants(source)
    p = Path(source)
    if language in variants:
        return read_lesson(variants[language], asked=asked)
    if p.is_file() and language is None:
        return read_lesson(p, asked=asked)
    for lang in ("en", *LANGUAGES):
        if lang in variants:
            return read_lesson(variants[lang], asked=asked)
    return read_lesson(p, asked=asked)  # pragma: no cover - variants is never empty


@functools.lru_cache(maxsize=256)
def _head_unchanged(path: str, mtime_ns: int, size: int) -> tuple[str, int]:
    """A lesson file's title and number of steps, without parsing its steps (the list of
    lessons needs only these, at every start); memoised on the file's identity."""
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LessonError(Message("lesson.cannot-read", why=str(exc)), path=where) from None
    lines = _lines(text)
    meta, start = _front_matter(lines, where)
    steps = 0
    fence: str | None = None
    for raw in lines[start:]:
        if fence is not None:
            if _closes(fence, raw):
                fence = None
            continue
        m = _FENCE.match(raw)
        if m:
            fence = m.group(1)
        elif raw.startswith("## ") and raw[3:].strip():
            steps += 1
    return meta["title"], steps


def _head(path: str | Path) -> tuple[str, int]:
    st = Path(path).stat()
    return _head_unchanged(str(path), st.st_mtime_ns, st.st_size)


def list_lessons() -> list[LessonInfo]:
    """The shipped lessons: name, titles, languages and number of steps (read from each file's
    front matter and step headings only; a lesson is parsed in full when it is opened)."""
    out = []
    for name, variants in shipped_lessons().items():
        heads = {lang: _head(path) for lang, path in variants.items()}
        first = heads.get("en") or next(iter(heads.values()))
        out.append(
            LessonInfo(
                name=name,
                title=first[0],
                titles={lang: head[0] for lang, head in heads.items()},
                languages=tuple(lang for lang in LANGUAGES if lang in heads),
                steps=first[1],
            )
        )
    return out


def compare_languages(lessons: Mapping[str, Lesson] | Iterable[Lesson]) -> list[str]:
    """Differences between translations of one lesson that must not differ: name, number of
    steps, and each step's code and directives. Empty when they agree."""
    items = list(lessons.values() if isinstance(lessons, Mapping) else lessons)
    problems: list[str] = []
    if len(items) < 2:
        return problems
    base = items[0]
    for other in items[1:]:
        pair = f"{base.language}/{other.language}"
        if other.name != base.name:
            problems.append(f"{pair}: names differ ({base.name!r} / {other.name!r})")
        if len(other.steps) != len(base.steps):
            problems.append(
                f"{pair}: {len(base.steps)} steps in {base.language}, "
                f"{len(other.steps)} in {other.language}"
            )
            continue
        for a, b in zip(base.steps, other.steps, strict=True):
            if _program_text(a.code) != _program_text(b.code):
                problems.append(f"{pair}: step {a.number} has different code "
                                f"({other.path or other.language} line {b.line})")
            elif a.shared_part() != b.shared_part():
                problems.append(f"{pair}: step {a.number} has different directives "
                                f"(panel/select/expect/requires; {other.path or other.language} "
                                f"line {b.line})")
    return problems


def _program_text(code: str) -> str:
    """``code`` without its comments and trailing spaces: what must match across languages
    (comments are prose and may be translated)."""
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(code).readline)
                  if t.type != tokenize.COMMENT]
        text = tokenize.untokenize(tokens)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        text = code
    return "\n".join(line.rstrip() for line in text.splitlines()).strip()


# ---------------------------------------------------------------------------------- running


def _truth(value: Any) -> bool:
    if isinstance(value, torch.Tensor):
        if value.device.type == "meta":
            raise ValueError(Message("checker.meta-no-values"))
        return bool(value.all().item()) if value.numel() else True
    if isinstance(value, np.ndarray):
        return bool(np.all(value))
    return bool(value)


def _short(value: Any, limit: int = 120) -> str:
    try:
        text = repr(value)
    except Exception as exc:  # a broken repr must not break the report
        text = f"<{type(value).__name__}: {exc}>"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def evaluate(ws: Workspace, expression: str, device: str | None = None, *,
             restricted: bool = True, then: Callable[[Any], Any] | None = None) -> Any:
    """Evaluate one expression against ``ws``'s values, without recording anything in the
    workspace (no history, no events): in the restricted runner, or as full Python for a
    trusted lesson (``restricted=False``). Raises :class:`ProgramError`.
    """
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError as exc:
        raise ProgramError(Message("error.syntax", detail=exc.msg), kind="syntax",
                           error_type="SyntaxError") from None
    del tree
    # the workspace's own controller: the functions programs defined in it check that one
    # (a loop in a program's __len__, called by bool() here, stops at the limit)
    ctrl = ws._ctrl
    if restricted:
        holding = ws.trusted_code()  # (the same rule as a restricted run in ``ws``)
        if holding:
            raise restricted_among_trusted(holding)
        ns: dict[str, Any] = {
            "__builtins__": sandbox.make_builtins(ctrl.print),
            "__name__": "__expectation__",
            **sandbox.runtime_names(ctrl.tick),
            **sandbox.prebound(),
            **dict(ws.items()),
        }
    else:
        ns = {
            "__builtins__": {**vars(builtins), "print": ctrl.print},
            "__name__": "__expectation__",
            **sandbox.trusted_names(ctrl.tick),
            "torch": torch, "np": np, "nn": torch.nn, "F": torch.nn.functional, "math": math,
            **dict(ws.items()),
        }
    program = compile_program(expression, restricted=restricted)
    if len(program.statements) != 1 or not program.statements[0].is_expression:
        raise ProgramError(Message("error.expect-one"), kind="syntax")
    grad_enabled = torch.is_grad_enabled()
    with ws.held():  # no program runs while the expectation is evaluated
        ctrl.start(EXPECT_TIME_LIMIT, None)
        try:
            value = Runner(ns, ctrl).run_statement(program, program.statements[0], device).value
            if then is None:
                return value
            # what the checker does with the value (bool(), len(), repr()) may run a program's
            # own methods: under the same limits and policy as the expression
            sandbox.take_refusals()
            try:
                result = then(value)
            except sandbox.Stopped as exc:  # the catalog's words, in either language
                raise stopped_error(exc.reason, None, expression, ()) from None
            except sandbox.Refused as exc:
                raise refused_error(exc.text, None, []) from None
            refused = sandbox.take_refusals()
            if refused:
                raise refused_error(refused[0], None, [])
            return result
        finally:
            ctrl.stop()
            torch.set_grad_enabled(grad_enabled)


def _error_matches(error: ProgramError, token: str) -> bool:
    return token in (error.kind, error.error_type)


def _headline(error: ProgramError) -> dict[str, str]:
    """The error's headline in every language (torch's words as written), for a parameter."""
    return {lang: error.headline_in(lang) for lang in LANGUAGES}


def _error_text(step: Step, error: ProgramError) -> str | dict[str, str]:
    """Where a step's code failed and why: ``line 3: x @ y → mat1 and mat2 shapes ...`` (a
    catalog Message; torch's words alone, in each language, when there is no line)."""
    line = step.file_line(error.line)
    detail = _headline(error)
    if error.source_line:  # the line as written, then torch's (or the catalog's) words
        detail = {lang: f"{error.source_line} → {text}" for lang, text in detail.items()}
    return detail if line is None else Message("checker.at-line", line=line, detail=detail)


#: the check of a step's own error (a step without expect-error must run without one)
CODE_RUNS = Message("checker.code-runs")


def _message(exc: Exception, lang: str) -> str:
    """Why an expectation could not be tested, in ``lang``: the checker's own words (a catalog
    Message) in it; torch's or a program's words as they were written."""
    if isinstance(exc, ProgramError):
        return exc.headline_in(lang)
    return error_in(exc, lang)


def _left_side(expression: str) -> str | None:
    """The left operand of ``a == b`` (and other single comparisons), to report its value."""
    try:
        node = ast.parse(expression, mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        return ast.unparse(node.left)
    return None


def check_step(
    ws: Workspace,
    step: Step,
    error: ProgramError | None = None,
    names: Sequence[str] = (),
    device: str | None = None,
    output: str = "",
) -> StepResult:
    """Check a step that has just run in ``ws`` (``error``: what its code raised, if anything):
    every expectation, and that the code did not fail unless an ``expect-error`` says so."""
    checks: list[Check] = []
    wanted = [e for e in step.expectations if e.error]
    if error is not None and not wanted:
        checks.append(_check(CODE_RUNS, False, _error_text(step, error),
                             step.file_line(error.line)))
    for exp in step.expectations:
        if exp.error:
            checks.append(_check_error(exp, error))
            continue
        try:
            ok, shown = evaluate(ws, exp.text, device, restricted=not step.trusted,
                                 then=lambda v: (_truth(v), _short(v)))
        except (ProgramError, ValueError, RuntimeError, TypeError) as exc:
            why = {lang: _message(exc, lang) for lang in LANGUAGES}
            checks.append(_check(exp.directive, False, Message("checker.not-evaluated", why=why),
                                 exp.line))
            continue
        found: str = ""
        if not ok:
            found = Message("checker.it-is", shown=shown)
            left = _left_side(exp.text)
            if left is not None:
                with contextlib.suppress(ProgramError, ValueError, RuntimeError, TypeError):
                    shown = evaluate(ws, left, device, restricted=not step.trusted,
                                     then=_short)
                    found = Message("checker.left-is", left=left, shown=shown)
        checks.append(_check(exp.directive, ok, found, exp.line))
    select = step.select
    if select is not None and select not in ws:
        checks.append(_check(f"select: {select}", False,
                             Message("checker.no-value", name=select), None))
        select = None
    if select is None:
        select = next((n for n in reversed(names) if n in ws), None)
    return StepResult(step, tuple(checks), error, tuple(names), output, None, select)


def _check(text: str, ok: bool, found: str | Mapping[str, str], line: int | None) -> Check:
    """A :class:`Check` whose ``detail`` is ``found``: a catalog Message, words in each
    language (``{"en": ..., "zh": ...}``, torch's as it wrote them), or plain words."""
    said = found if isinstance(found, Mapping) else {
        lang: text_in(found, lang) for lang in LANGUAGES}
    english = said["en"]
    return Check(text, ok, english, line,
                 tuple((lang, said[lang]) for lang in LANGUAGES
                       if lang != "en" and said.get(lang, english) != english))


def _check_error(exp: Expectation, error: ProgramError | None) -> Check:
    """The check of an ``expect-error:`` line against the error the step raised (if any)."""
    if error is None:
        return _check(exp.directive, False, Message("checker.no-error"), exp.line)
    if _error_matches(error, exp.text):
        return _check(exp.directive, True, _headline(error), exp.line)
    return _check(exp.directive, False, Message(
        "checker.other-error", kind=error.kind, error_type=error.error_type,
        headline=_headline(error)), exp.line)


def skip_reason(step: Step) -> str | None:
    """Why ``step`` cannot run on this machine, in words that follow "this step ..." (a
    catalog Message; None: it can)."""
    if step.requires == "cuda" and not torch.cuda.is_available():
        return Message("lesson.skip-cuda")
    return None


def result_without_running(ws: Workspace, step: Step,
                           device: str | None = None) -> StepResult | None:
    """The result of a step that has no code to run here: skipped on this machine (its
    reason), or prose and expectations only (checked now). None: its code must run first,
    then :func:`step_ran` checks it. The headless runner (:func:`run_step`) and the lesson
    player (:class:`~tensor_explorer.core.lesson_player.LessonPlayer`) share these two."""
    reason = skip_reason(step)
    if reason is not None:
        return StepResult(step, skipped=reason)
    if not step.code:
        return check_step(ws, step, device=device)
    return None


def step_ran(ws: Workspace, step: Step, names: Sequence[str] = (),
             error: ProgramError | None = None, device: str | None = None) -> StepResult:
    """Check ``step`` after its code ran in ``ws`` (``error``: what it raised, if anything),
    with what it printed (``ws.last_output``)."""
    return check_step(ws, step, error, names, device, ws.last_output)


def run_step(ws: Workspace, step: Step, device: str | None = None) -> StepResult:
    """Run one step's code in ``ws`` (on ``device``; as full Python when the step's lesson is
    trusted, else restricted) and check its expectations."""
    done = result_without_running(ws, step, device)
    if done is not None:
        return done
    error: ProgramError | None = None
    names: list[str] = []
    try:
        names = ws.run(step.code, device=device, restricted=not step.trusted,
                       time_limit=STEP_TIME_LIMIT)
    except ProgramError as err:
        error = err
    return step_ran(ws, step, names, error, device)


def run_lesson(
    lesson: Lesson,
    ws: Workspace | None = None,
    *,
    device: str | None = None,
    upto: int | None = None,
    on_step: Callable[[StepResult], None] | None = None,
) -> list[StepResult]:
    """Run steps 1..``upto`` (default: all) in ``ws`` (default: a fresh workspace)."""
    ws = ws if ws is not None else Workspace()
    last = len(lesson.steps) if upto is None else upto
    if not 0 <= last <= len(lesson.steps):
        raise ValueError(f"lesson {lesson.name!r} has steps 1 to {len(lesson.steps)}, not {last}")
    results = []
    for step in lesson.steps[:last]:
        result = run_step(ws, step, device)
        results.append(result)
        if on_step is not None:
            on_step(result)
    return results


# ---------------------------------------------------------------------------------- commands


def _out(text: str = "", stream: Any = None) -> None:
    stream = stream if stream is not None else sys.stdout
    try:
        print(text, file=stream)
    except UnicodeEncodeError:  # a terminal that cannot show Chinese titles
        print(text.encode("ascii", "replace").decode("ascii"), file=stream)


def cmd_lessons(as_json: bool = False) -> int:
    """``tensor-explorer lessons [--json]``: the shipped lessons."""
    try:
        infos = list_lessons()
    except LessonError as exc:
        _out(f"tensor-explorer: {exc}", sys.stderr)
        return 1
    if as_json:
        _out(json.dumps({"lessons": [i.to_dict() for i in infos]}, ensure_ascii=False, indent=2))
        return 0
    width = max((len(i.name) for i in infos), default=4)
    for info in infos:
        zh = info.titles.get("zh")
        title = info.title + (f" / {zh}" if zh and zh != info.title else "")
        _out(f"{info.name:<{width}}  {info.steps:>2} steps  [{','.join(info.languages)}]  "
             f"{title}")
    return 0


def cmd_check(sources: Sequence[str], device: str | None = None, trusted: bool = False) -> int:
    """``tensor-explorer check LESSON... [--trust]``: run each lesson headlessly in every
    language it has, check every expectation and that the translations share their code. A
    lesson file runs restricted unless it is trusted (shipped, remembered, or ``trusted``).
    Prints one line per lesson and language, and each failed step; returns 1 if anything
    failed."""
    failed = False
    for source in sources:
        try:
            variants = lesson_variants(source)
            lessons = {lang: read_lesson(path, asked=trusted)
                       for lang, path in variants.items()}
        except LessonError as exc:
            failed = True
            _out(f"FAIL {source}: {exc}")
            continue
        for problem in compare_languages(lessons):
            failed = True
            _out(f"FAIL {source}: translations differ: {problem}")
        for lang, lesson in lessons.items():
            results = run_lesson(lesson, device=device)
            bad = [r for r in results if not r.ok]
            skipped = [r for r in results if r.skipped]
            note = f", {len(skipped)} skipped" if skipped else ""
            status = "FAIL" if bad else "ok  "
            mode = "" if lesson.trusted else ", restricted"
            _out(f"{status} {lesson.name} [{lang}] {len(results)} steps{note}{mode}  "
                 f"({lesson.path})")
            for r in bad:
                failed = True
                _out(f"     step {r.step.number} \"{r.step.title}\" (line {r.step.line}):")
                for c in r.failures:
                    where = f"line {c.line}: " if c.line is not None else ""
                    _out(f"       {where}{c.text} -- {c.detail}")
            for r in skipped:
                _out(f"     step {r.step.number} skipped: {r.skipped}")
    return 1 if failed else 0
