"""Trust on every route: one function (``trust.decide``) says how a file's code runs, and every
route that runs code from a file calls it.

The routes are found in the code, not listed by hand: every call that runs code with a
``restricted=`` choice, every call that reads a lesson, every command-line subcommand that
takes a file. The same hostile files then go through each route; none may run as full Python
unless the user asked (``--trust``) or trusted the file before.
"""

from __future__ import annotations

import ast
import contextlib
import io
from pathlib import Path

import pytest

import tensor_explorer as tx
from tensor_explorer import cli
from tensor_explorer.core import lessons as L
from tensor_explorer.core import trust
from tensor_explorer.core.lesson_player import LessonPlayer
from tensor_explorer.core.sources import open_into
from tests.core.session_files import unsigned_copy

SRC = Path(tx.__file__).parent

#: every function that runs code with a ``restricted=`` choice, found below in the code, and
#: where that choice comes from. A new one fails the test until it is reviewed and added.
RUNNERS = {
    "core/sources.py:open_into": "trust.decide on the program file",
    "core/lessons.py:evaluate": "its caller's choice (the lesson step's decision)",
    "core/lessons.py:check_step": "not step.trusted: the lesson's trust.decide",
    "core/lessons.py:run_step": "not step.trusted: the lesson's trust.decide",
    "core/lesson_player.py:_launch": "not step.trusted: the lesson's trust.decide",
    "core/lesson_player.py:run": "InlineRunner: its caller's choice (_launch)",
    "core/workspace.py:run": "the caller's choice, else the workspace's own mode",
    "core/graph_session.py:work": "replays the workspace's records, each in the mode it ran",
    "core/graph_session.py:fn": "replays the workspace's records, each in the mode it ran",
    "core/session.py:run": "a session's code: trust.decide (own, signed file, or Trust)",
    "qt/run_controller.py:_work": "its caller's choice (the code bar: the user's own)",
    "qt/window_files.py:open_program": "trust.decide on the program file",
    "qt/window_files.py:trust_program": "trust.decide after the user's Trust",
}


def _functions_with(predicate) -> set[str]:
    found: set[str] = set()
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        rel = path.relative_to(SRC).as_posix()
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and predicate(node):
                    # the innermost function holding the call
                    inner = [f for f in ast.walk(fn) if isinstance(f, ast.FunctionDef)
                             and f is not fn and node in list(ast.walk(f))]
                    if not inner:
                        found.add(f"{rel}:{fn.name}")
    return found


def _runs_code(call: ast.Call) -> bool:
    return any(k.arg == "restricted" for k in call.keywords)


def test_every_function_that_runs_code_is_reviewed() -> None:
    found = _functions_with(_runs_code)
    assert found - set(RUNNERS) == set(), "new code-running call sites: review their trust"
    assert set(RUNNERS) - found == set(), "reviewed call sites that are gone: drop them"


def test_lessons_are_read_through_the_decision(tmp_path: Path, monkeypatch) -> None:
    """Every lesson read asks trust.decide (with the user's --trust passed on), and what it
    answers is what the lesson's steps run as; no route makes a lesson trusted by itself."""
    path, _mark = _lesson(tmp_path, "code")
    seen: list[tuple[str, bool]] = []
    real = trust.decide

    def spy(p, data=None, *, asked: bool = False, own: bool = False) -> trust.Decision:
        seen.append((Path(p).name, asked))  # (and decide's own answer)
        return real(p, data, asked=asked, own=own)

    monkeypatch.setattr(trust, "decide", spy)
    assert not L.read_lesson(path).steps[0].trusted
    assert L.load_lesson(path, asked=True).steps[0].trusted
    assert LessonPlayer.load(path, "en", True).trusted
    assert seen == [(path.name, False), (path.name, True), (path.name, True)]
    for source in SRC.rglob("*.py"):
        assert "trusted_as(True)" not in source.read_text(encoding="utf-8"), source


# ----- the hostile files -------------------------------------------------------------------


def _payload(mark: Path) -> str:
    return f"open(r'{mark}', 'w').close()"


def _program(tmp_path: Path) -> tuple[Path, Path]:
    mark = tmp_path / "PWNED-program"
    path = tmp_path / "hostile.py"
    path.write_text(f"import torch\nx = torch.ones(2)\n{_payload(mark)}\n")
    return path, mark


def _lesson(tmp_path: Path, where: str) -> tuple[Path, Path]:
    """A lesson whose step code (``where="code"``) or expectation (``"expect"``) writes a
    file."""
    mark = tmp_path / f"PWNED-lesson-{where}"
    code = _payload(mark) if where == "code" else "x = torch.ones(2)"
    expect = f"{_payload(mark)} is None" if where == "expect" else "x.shape == (2,)"
    path = tmp_path / f"hostile-{where}.en.md"
    path.write_text(f"---\nname: hostile-{where}\ntitle: Hostile\nlanguage: en\n---\n\n"
                    f"## One\n\n```python\n{code}\n```\n\nexpect: {expect}\n")
    return path, mark


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[Path, Path]]:
    monkeypatch.setenv("TENSOR_EXPLORER_TRUST_FILE", str(tmp_path / "trusted.json"))
    return [_program(tmp_path), _lesson(tmp_path, "code"), _lesson(tmp_path, "expect")]


def test_decide_is_restricted_unless_shipped_remembered_asked_or_own(tmp_path: Path,
                                                                     monkeypatch) -> None:
    monkeypatch.setenv("TENSOR_EXPLORER_TRUST_FILE", str(tmp_path / "trusted.json"))
    path, _ = _program(tmp_path)
    assert trust.decide(path) == trust.Decision(False, "untrusted")
    assert trust.decide(path, asked=True) == trust.Decision(True, "asked")
    assert trust.decide(path, own=True).reason == "own"
    trust.trust_file(path)
    assert trust.decide(path) == trust.Decision(True, "remembered")
    path.write_text(path.read_text() + "\n# edited\n")
    assert trust.decide(path).restricted
    shipped = next(L.shipped_dir().glob("*.en.md"))
    assert trust.decide(shipped).reason == "shipped"


def test_open_into_runs_a_file_restricted_whatever_the_workspace(hostile) -> None:
    for path, mark in hostile:
        ws = tx.Workspace()  # full Python for what the user types...
        with contextlib.suppress(tx.ProgramError):
            open_into(ws, path)  # ...but the file is not the user's
        assert not mark.exists(), path
    program, mark = hostile[0]
    open_into(tx.Workspace(), program, trust=True)  # --trust: the user asked
    assert mark.exists()


def test_lesson_api_and_player_run_restricted(hostile) -> None:
    for path, mark in hostile[1:]:
        results = L.run_lesson(L.load_lesson(path))
        assert not results[0].ok
        player = LessonPlayer.inline(tx.Workspace())
        player.open(player.load(path, "en"), path)  # runs its first step
        player.go_to(1)
        assert player.result is not None and not player.result.ok
        assert not mark.exists(), path
    path, mark = hostile[2]
    assert L.run_lesson(L.load_lesson(path, asked=True))[0].ok and mark.exists()


#: subcommands whose whole point is to run the file given as the user's own full Python: the
#: user asked for it by name (``trust.decide(asked=True)``), as ``python SCRIPT`` would
ASKED = {"run": "tensor-explorer run SCRIPT: your own script (PRODUCT.md's command line)"}


def _file_subcommands() -> list[str]:
    """The subcommands whose positional arguments are files (read from their parsers), but
    for those that run the user's own script by name (:data:`ASKED`)."""
    out = []
    for sub in cli.SUBCOMMANDS:
        parser = cli._parser(sub)
        if any(not a.option_strings for a in parser._actions):
            out.append(sub)
    assert set(ASKED) <= set(out), "an asked-for subcommand is gone: drop it from ASKED"
    return [sub for sub in out if sub not in ASKED]


def test_the_file_subcommands_are_found() -> None:
    assert {"inspect", "check", "screenshot"} <= set(_file_subcommands())


def test_run_runs_your_own_script_as_you_asked_and_nothing_else(hostile, monkeypatch) -> None:
    """`run` is `python SCRIPT`: the user names the script to run as full Python. A lesson or
    a session given to it is not a script: it fails (no window here) and runs nothing."""
    monkeypatch.setenv("TENSOR_EXPLORER_NO_WINDOW", "1")  # the explanation on stderr
    program, mark = hostile[0]
    for path, other in hostile[1:]:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            assert cli.main(["run", str(path)]) != 0
        assert not other.exists()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        cli.main(["run", str(program)])
    assert mark.exists()


@pytest.mark.parametrize("sub", _file_subcommands())
def test_every_file_subcommand_refuses_to_run_a_hostile_file(sub: str, hostile, tmp_path: Path,
                                                             qapp) -> None:
    extra = {"screenshot": ["--out", str(tmp_path / "o.png"), "--size", "320x200"]}
    for path, mark in hostile:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            rc = cli.main([sub, str(path), *extra.get(sub, [])])
        assert not mark.exists(), (sub, path)
        if sub in ("check", "screenshot") and path.suffix == ".md":
            assert rc != 0  # the refused step is reported
    if sub in ("check", "screenshot"):  # --trust: the user asked, so it runs
        path, mark = hostile[1]
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            cli.main([sub, str(path), "--trust", *extra.get(sub, [])])
        assert mark.exists()


def _foreign_session(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A session whose class body writes a file: signed (the user's own), and the same file
    without its signature (from someone else)."""
    mark = tmp_path / "PWNED-session"
    ws = tx.Workspace()
    ws.run(f"import torch\nclass Net(torch.nn.Module):\n    {_payload(mark)}\n"
           "    def __init__(self):\n        super().__init__()\n"
           "        self.fc = torch.nn.Linear(2, 2)\nnet = Net()\n")
    own = tmp_path / "own.txs"
    ws.save(own)
    foreign = tmp_path / "foreign.txs"
    unsigned_copy(own, foreign)
    mark.unlink()
    return own, foreign, mark


def test_a_foreign_session_runs_no_code_on_any_route(tmp_path: Path, monkeypatch,
                                                      qapp) -> None:
    monkeypatch.setenv("TENSOR_EXPLORER_TRUST_FILE", str(tmp_path / "trusted.json"))
    own, foreign, mark = _foreign_session(tmp_path)
    opened = tx.Workspace.open(foreign)
    assert "Net (saved, not rebuilt)" in repr(opened["net"])
    open_into(tx.Workspace(), foreign)
    for sub in _file_subcommands():
        extra = ["--out", str(tmp_path / "o.png"), "--size", "320x200"] \
            if sub == "screenshot" else []
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            cli.main([sub, str(foreign), *extra])
    assert not mark.exists()
    tx.Workspace.open(own)  # the user's own, signed: their class is made again
    assert mark.exists()
