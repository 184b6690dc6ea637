"""A crash fuzzer for the restricted runner: no allowed method can crash the process.

Random restricted programs call the methods and read the attributes that
:mod:`tensor_explorer.core.sandbox_allowlist` allows on tensors (dense, sparse COO and CSR,
``nn.Parameter``, tensors over NumPy memory), arrays (and arrays over tensor memory), NumPy
scalars and storages, spelled as a program may spell them (``x.m(...)``, ``type(x).m(x, ...)``,
``torch.Tensor.m(x, ...)``, ``np.ndarray.m(a, ...)``), with random arguments: small, huge and
negative integers, shapes, slices, dtypes, strings, floats (``nan``, ``inf``), index tensors
and the program's other values. Each call is in a ``try``/``except Exception``, so a program
goes on after an error; a refusal or a stop ends it (a ProgramError: fine).

The programs run in batches in a child process (``sys.executable``, an address-space limit so
huge allocations fail instead of waking the OOM killer, a time limit per program). A child that
dies of a signal (rc < 0, or 134/139) is a crash: the program it was running when it died is
named by its progress file, run again alone to confirm, and when it does not crash alone the
programs before it are bisected to the shortest run that does. The test fails with the seed
and the program. ``bench/fuzz_restricted.py --programs 20000 [--seed N]`` is the long run.

A crash found here is fixed by refusing the method (``refused.memory-unchecked`` in
sandbox_allowlist.py), never by leaving it out of the generator.
"""

from __future__ import annotations

import inspect
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
import torch

from tensor_explorer.core import sandbox_allowlist as allowlist

#: the CI run: programs, and the seed unless TX_FUZZ_SEED is set (a number, or "random")
CI_PROGRAMS = 800
CI_SEED = 20240624
#: programs per child process
BATCH = 400
#: a program still running after this many seconds is skipped (a single long C call)
PROGRAM_SECONDS = 10.0
#: the child's address-space limit: huge requests fail with an error instead of the OOM killer
MEMORY_LIMIT = 4 << 30

# ----- the programs ---------------------------------------------------------------------------

#: the values every program starts with: name -> (kind, the expression that makes it)
SETUP: dict[str, tuple[str, str]] = {
    "x": ("tensor", "torch.randn(3, 4)"),
    "y": ("tensor", "torch.arange(6).reshape(2, 3)"),
    "h": ("tensor", "torch.ones(2, 2, dtype=torch.float16)"),
    "b": ("tensor", "torch.tensor([True, False, True])"),
    "z": ("tensor", "torch.zeros(0, 3)"),
    "c": ("tensor", "torch.randn(2, dtype=torch.complex64)"),
    "w": ("tensor", "torch.randn(4).expand(3, 4)"),
    "p": ("tensor", "nn.Parameter(torch.randn(2, 3))"),
    "sp": ("tensor", "torch.eye(3).to_sparse()"),
    "cs": ("tensor", "torch.eye(3).to_sparse_csr()"),
    "n": ("tensor", "torch.from_numpy(np.arange(6.0))"),
    "a": ("ndarray", "np.arange(6.0).reshape(2, 3)"),
    "ai": ("ndarray", "np.arange(5)"),
    "ab": ("ndarray", "np.array([[True, False]])"),
    "ao": ("ndarray", "np.array([1, 'x', None], dtype='O')"),
    "ar": ("ndarray", "np.zeros(3, dtype=[('f', 'f8'), ('i', 'i4')])"),
    "m": ("ndarray", "np.matrix([[1.0, 2.0], [3.0, 4.0]])"),
    "q": ("ndarray", "x.numpy()"),
    "t0": ("ndarray", "np.array(1.5)"),
    "g": ("generic", "np.float64(1.5)"),
    "gi": ("generic", "np.int8(-3)"),
    "gb": ("generic", "np.bool_(True)"),
    "st": ("storage", "x.untyped_storage()"),
    "ts": ("storage", "y.storage()"),
}
_CLASS_SPELLING = {"tensor": "torch.Tensor", "ndarray": "np.ndarray"}
_KIND_CLASSES: dict[str, Sequence[type]] = {
    "tensor": (torch.Tensor,),
    "ndarray": (np.ndarray, np.matrix, np.recarray),
    "generic": (np.generic, np.float64, np.int8, np.bool_),
    "storage": (torch.UntypedStorage, torch.TypedStorage),
}

_INTS = ["0", "1", "-1", "2", "3", "-2", "5", "-7", "2**31 - 1", "2**31", "-2**31", "2**32",
         "2**62", "2**63 - 1", "-2**63", "10**9", "-10**9", "10**18"]  # fmt: skip
_FLOATS = ["0.5", "-1.5", "float('nan')", "float('inf')", "-float('inf')", "1e308", "1e-308"]
_SHAPES = ["(2, 3)", "(-1,)", "(0,)", "(3, 0)", "()", "(6,)", "(2, -1)", "(10**9, 10**9)",
           "(2**31, 2)", "(-5, 2)", "(1, 1, 1, 1, 1, 1)", "[2, 2]", "(2**62,)", "(4, 4)"]
_SLICES = ["slice(None)", "slice(1, None, 2)", "slice(-10**9, 10**9)", "slice(None, None, 3)",
           "slice(2**63 - 1, None)", "(slice(None), 0)", "..."]
_DTYPES = ["torch.float32", "torch.float64", "torch.int64", "torch.int8", "torch.uint8",
           "torch.bool", "torch.complex64", "torch.float16", "torch.bfloat16", "torch.int32",
           "torch.uint16", "np.float32", "np.int64", "np.bool_", "np.complex128", "'float32'",
           "'i8'", "'O'", "'V8'", "'U3'", "'S2'", "'M8[s]'", "'i4,f4'", "np.uint8", "'>f8'"]
_STRINGS = ["'cpu'", "'meta'", "'sum'", "'mean'", "'C'", "'F'", "'K'", "'A'", "'ij'", "'xy'",
            "'reflect'", "'floor'", "'trunc'", "'fro'", "'nuc'", "''", "'raise'", "'clip'",
            "'wrap'", "'quicksort'", "'stable'", "'left'", "'right'", "'linear'", "'f'"]
_INDEXES = ["torch.tensor([0, 1])", "torch.tensor([5])", "torch.tensor([-10**9])",
            "torch.tensor([[0], [2]])", "torch.tensor([2**62])", "np.array([0, -5])",
            "torch.tensor([True, False, True, False])", "np.array([1, 0, 1], dtype=bool)",
            "torch.tensor([], dtype=torch.long)", "torch.tensor([0, 1, 2]).int()"]
_OTHERS = ["None", "True", "False", "[0, 1]", "[[0]]", "[x, x]", "(0, 1)", "lambda *v: 0",
           "lambda *v: v[0]", "torch.ones(1)", "torch.zeros(3, 4, dtype=torch.float64)",
           "np.ones((3, 4))", "torch.randn(4, 3)", "torch.ones(())", "{'a': 1}",
           "torch.channels_last", "torch.contiguous_format", "torch.strided",
           "torch.device('meta')", "torch.Size([2, 3])"]
_KEYWORDS = ["dim", "keepdim", "dtype", "axis", "out", "size", "device", "memory_format",
             "copy", "order", "non_blocking", "value", "index", "src", "alpha", "kind",
             "stable", "descending", "unbiased", "correction", "p", "layout", "shape",
             "requires_grad", "decimals", "blocksize", "dense_dim", "reduce", "include_self"]


@dataclass
class Member:
    kind: str
    name: str
    callable: bool


def members() -> dict[str, list[Member]]:
    """kind -> the allowed names of that kind that exist here, callable or not."""
    out: dict[str, list[Member]] = {}
    for kind, (allowed, _refused) in allowlist.TABLES.items():
        found = []
        for name in sorted(allowed):
            for cls in _KIND_CLASSES[kind]:
                raw = inspect.getattr_static(cls, name, None)
                if raw is not None:
                    found.append(Member(kind, name, callable(raw) and not isinstance(
                        raw, property | type(torch.Tensor.grad))))
                    break
        out[kind] = found
    return out


_SMALL = ["0", "1", "-1", "2", "3", "-2", "1", "0"]
#: (pool, weight): small integers and the program's own values most, the odd ones less
_POOLS = [(_SMALL, 25), (_INTS, 12), (_SHAPES, 10), (_DTYPES, 8), (_INDEXES, 8), (_SLICES, 5),
          (_STRINGS, 5), (_FLOATS, 5), (_OTHERS, 4)]


def _argument(rng: random.Random, values: list[str]) -> str:
    pools = [p for p, _w in _POOLS] + [values]
    weights = [w for _p, w in _POOLS] + [18]
    return rng.choice(rng.choices(pools, weights)[0])


def _call(rng: random.Random, target: str, kind: str, member: Member, values: list[str]) -> str:
    count = rng.choices((0, 1, 2, 3, 4), (30, 35, 20, 10, 5))[0]
    args = [_argument(rng, values) for _ in range(count)]
    if rng.random() < 0.25:
        for key in rng.sample(_KEYWORDS, rng.choice((1, 1, 2))):
            args.append(f"{key}={_argument(rng, values)}")
    spelling = rng.random()
    if spelling < 0.1 and kind in _CLASS_SPELLING and target in SETUP:  # (a value of that class)
        return f"{_CLASS_SPELLING[kind]}.{member.name}({', '.join([target, *args])})"
    if spelling < 0.2:
        return f"type({target}).{member.name}({', '.join([target, *args])})"
    return f"{target}.{member.name}({', '.join(args)})"


def program(rng: random.Random, table: dict[str, list[Member]], calls: int = 16) -> str:
    """One restricted program: the setup values, then ``calls`` random uses of members, each in
    its own ``try`` (grouped in ``if True:`` blocks of 8: a workspace's cost is per top-level
    statement, so more calls fit in the same time)."""
    lines = ["if True:"] + [f"    {name} = {expr}" for name, (_kind, expr) in SETUP.items()]
    kinds = {name: kind for name, (kind, _expr) in SETUP.items()}
    values = list(SETUP)
    for i in range(calls):
        if i % 8 == 0:
            lines.append("if True:")
        target = rng.choice(values)
        kind = kinds[target]
        member = rng.choice(table[kind])
        if member.callable:
            expr = _call(rng, target, kind, member, values)
        else:
            expr = f"{target}.{member.name}"
        if rng.random() < 0.25:  # read through what came back: views, copies, new values
            expr = f"{expr}[{rng.choice(_SLICES + _INTS[:6] + _INDEXES)}]"
        name = f"v{i}"
        tail = rng.choice(("", "", f"\n        {name}.tolist()", f"\n        {name}.sum()",
                           f"\n        {name}.clone()", f"\n        print({name})",
                           f"\n        {name} += 1"))
        lines.append(f"    try:\n        {name} = {expr}{tail}\n    except Exception:\n"
                     f"        {name} = x")
        values.append(name)
        kinds[name] = kind
    lines.append("done = [str(v) for v in (x, a, sp, cs, n, q, st)]")
    return "\n".join(lines) + "\n"


def programs(seed: int, count: int, calls: int = 16) -> list[str]:
    rng = random.Random(seed)
    table = members()
    return [program(rng, table, calls) for _ in range(count)]


# ----- running them ---------------------------------------------------------------------------

_CHILD = r"""
import json, os, resource, sys, warnings
limit = int(sys.argv[3])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
warnings.simplefilter("ignore")
import torch
torch.set_num_threads(1)
from tensor_explorer.core.runner import ProgramError
from tensor_explorer.core.workspace import Workspace
sources = json.load(open(sys.argv[1], encoding="utf-8"))
progress = open(sys.argv[2], "w", encoding="utf-8")
for i, source in enumerate(sources):
    progress.write(f"{i}\n")
    progress.flush()
    ws = Workspace(restricted=True)
    try:
        ws.run(source, time_limit=5.0)
    except ProgramError:
        pass
    except Exception as exc:  # not a crash; an error the runner let through
        print(f"program {i}: {type(exc).__name__}: {exc}"[:300], flush=True)
progress.write("end\n")
progress.flush()
"""
#: the code the child runs (a list, so a test of the harness can put a simulated crash there)
CHILD_CODE = [_CHILD]


@dataclass
class Crash:
    index: int  # in the list of programs
    returncode: int
    source: str
    alone: bool  # whether it crashes when run alone
    context: list[str] = field(default_factory=list)  # programs before it needed to crash

    def report(self, seed: int) -> str:
        head = (f"crash (rc {self.returncode}) in program {self.index} of seed {seed}"
                f"{'' if self.alone else ' (only after the programs before it)'}:")
        before = "".join(f"--- earlier program ---\n{s}" for s in self.context)
        return f"{head}\n{before}--- crashing program ---\n{self.source}"


@dataclass
class Result:
    ran: int = 0
    crashes: list[Crash] = field(default_factory=list)
    hung: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _died(returncode: int) -> bool:
    return returncode < 0 or returncode in (134, 139) or returncode > 128


def _child(sources: Sequence[str], timeout: float = PROGRAM_SECONDS) -> tuple[int | None, int, str]:
    """Run ``sources`` in one child: (rc or None when a program hung and was killed, the index
    of the program it was running last, its stdout)."""
    with tempfile.TemporaryDirectory() as tmp:
        data, progress = Path(tmp, "programs.json"), Path(tmp, "progress")
        log = Path(tmp, "out")
        data.write_text(json.dumps(list(sources)), encoding="utf-8")
        progress.write_text("", encoding="utf-8")
        env = {**os.environ, "MALLOC_ARENA_MAX": "2", "OMP_NUM_THREADS": "1",
               "QT_QPA_PLATFORM": "offscreen"}
        with log.open("w", encoding="utf-8") as out:
            proc = subprocess.Popen(
                [sys.executable, "-c", CHILD_CODE[0], str(data), str(progress),
                 str(MEMORY_LIMIT)],
                stdout=out, stderr=subprocess.STDOUT, env=env,
            )
            rc = _watch(proc, progress, timeout)
        lines = progress.read_text(encoding="utf-8").split()
        output = log.read_text(encoding="utf-8", errors="replace")
    index = -1
    if lines and lines[-1] != "end":
        index = int(lines[-1])
    elif lines:
        index = len(sources)
    return rc, index, output


def _watch(proc: subprocess.Popen[bytes], progress: Path, timeout: float) -> int | None:
    """Wait for the child; kill it (and answer None) when one program runs past ``timeout``."""
    last, since = "", time.monotonic()
    while True:
        try:
            return proc.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            pass
        lines = progress.read_text(encoding="utf-8").split()
        now = lines[-1] if lines else ""
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since > timeout + 30 * (not lines):
            proc.kill()
            proc.wait()
            return None


def _crashes(sources: Sequence[str]) -> int | None:
    rc, _index, _out = _child(sources)
    return rc if rc is not None and _died(rc) else None


def _confirm(sources: Sequence[str], index: int, rc: int, start: int) -> Crash:
    """The crash at ``sources[index]`` (``start``: where its child began): alone, or after
    the fewest programs before it that still make it crash (bisected)."""
    alone = _crashes([sources[index]])
    if alone is not None:
        return Crash(index, alone, sources[index], True)
    lo, hi = start, index  # sources[hi:index + 1] crashes when hi == start
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _crashes(sources[mid:index + 1]) is not None:
            lo = mid
        else:
            hi = mid - 1
    return Crash(index, rc, sources[index], False, list(sources[lo:index]))


def run(sources: Sequence[str], batch: int = BATCH,
        progress: Callable[[int], None] | None = None) -> Result:
    """Run every program, ``batch`` to a child, going on after hangs and crashes."""
    result = Result()
    t0 = time.monotonic()
    start = 0
    while start < len(sources):
        chunk = sources[start:start + batch]
        rc, index, out = _child(chunk)
        result.errors += [line for line in out.splitlines() if line.startswith("program ")]
        if rc == 0 and index >= len(chunk):
            result.ran += len(chunk)
            start += len(chunk)
        elif index < 0:  # died before the first program: the child itself is broken
            raise RuntimeError(f"the fuzz child failed to start (rc {rc}):\n{out[-3000:]}")
        else:
            result.ran += index + 1
            if rc is None:
                result.hung.append(start + index)
            elif _died(rc):
                result.crashes.append(_confirm(sources, start + index, rc, start))
            else:
                raise RuntimeError(f"the fuzz child exited with rc {rc}:\n{out[-3000:]}")
            start += index + 1
        if progress is not None:
            progress(start)
    result.seconds = time.monotonic() - t0
    return result


def seed_from_env(default: int) -> int:
    value = os.environ.get("TX_FUZZ_SEED", "")
    if value == "random":
        return random.SystemRandom().randrange(2**32)
    return int(value) if value else default


# ----- the test -------------------------------------------------------------------------------


def test_the_generator_uses_allowed_members_only() -> None:
    table = members()
    for kind, found in table.items():
        allowed = allowlist.TABLES[kind][0]
        assert found and {m.name for m in found} <= allowed
    assert {"indices", "crow_indices", "add_", "T"} <= {m.name for m in table["tensor"]}
    source = programs(1, 1)[0]
    compile(source, "<fuzz>", "exec")
    assert programs(7, 3) == programs(7, 3)  # seeded


def test_the_programs_run_their_calls() -> None:
    # a fuzzer whose setup fails (or whose calls are refused) runs nothing and finds nothing:
    # the setup runs, and the programs end normally (the calls' own errors are caught)
    from tensor_explorer.core.runner import ProgramError
    from tensor_explorer.core.workspace import Workspace

    ws = Workspace(restricted=True)
    ws.run("\n".join(f"{name} = {expr}" for name, (_kind, expr) in SETUP.items()))
    ended = 0
    for source in programs(3, 20):
        try:
            Workspace(restricted=True).run(source, time_limit=5.0)
            ended += 1
        except ProgramError as err:
            assert err.kind != "refused", err.message
    assert ended >= 15


def test_random_restricted_programs_never_crash_the_process() -> None:
    seed = seed_from_env(CI_SEED)
    print(f"crash fuzz seed {seed}: {CI_PROGRAMS} programs")
    result = run(programs(seed, CI_PROGRAMS))
    print(f"ran {result.ran}, crashes {len(result.crashes)}, hung {len(result.hung)}, "
          f"{result.seconds:.1f} s")
    assert not result.crashes, "\n\n".join(c.report(seed) for c in result.crashes)
    assert result.ran >= CI_PROGRAMS - len(result.hung)


_FAKE_CHILD = r"""
import json, os, signal, sys
sources = json.load(open(sys.argv[1], encoding="utf-8"))
progress = open(sys.argv[2], "w", encoding="utf-8")
armed = False
for i, source in enumerate(sources):
    progress.write(f"{i}\n")
    progress.flush()
    armed = armed or source == "ARM"
    if source == "CRASH" or (source == "FIRE" and armed):
        os.kill(os.getpid(), signal.SIGSEGV)
progress.write("end\n")
progress.flush()
"""


def test_a_crash_is_found_confirmed_and_bisected(monkeypatch: pytest.MonkeyPatch) -> None:
    # the harness itself, with a child that dies of SIGSEGV on "CRASH" (alone) and on "FIRE"
    # only after an "ARM" earlier in the same process (the bisection finds that "ARM")
    monkeypatch.setattr(sys.modules[__name__], "CHILD_CODE", [_FAKE_CHILD])
    result = run(["ok", "ok", "CRASH", "ok", "ARM", "ok", "ok", "FIRE", "ok"], batch=20)
    assert result.ran == 9 and not result.hung
    first, second = result.crashes
    assert (first.index, first.source, first.alone) == (2, "CRASH", True)
    assert first.returncode == -signal.SIGSEGV
    assert (second.index, second.alone, second.context) == (7, False, ["ARM", "ok", "ok"])
    assert "crash (rc -11) in program 2 of seed 5" in first.report(5)


def test_died_reads_signals() -> None:
    assert _died(-11) and _died(-6) and _died(139) and _died(134)
    assert not _died(0) and not _died(1)
