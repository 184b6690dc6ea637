"""The user's own code runs as full Python; code from a file runs restricted until trusted.

Ground truth: the same statements run with plain ``exec``; torch's own numbers.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch

import tensor_explorer as tx
from tensor_explorer.core import lessons as L
from tensor_explorer.core import trust

#: the issue's table: what learners type next, refused by the restricted runner before
TABLE = {
    "loop with _": "total = 0\nfor _ in range(3):\n    total += 1",
    "sort unpacking": "values, _ = torch.tensor([3.0, 1.0, 2.0]).sort()",
    "comprehension _": "zeros = [0 for _ in range(3)]",
    "version": "version = torch.__version__",
    "type name": "kind = type(torch.ones(1)).__name__",
    "imports": "import random, time, json\nrolled = json.dumps([random.Random(0).random()])",
    "cudnn": "torch.backends.cudnn.deterministic = True\nflag = "
             "torch.backends.cudnn.deterministic",
    "autocast": "with torch.autocast('cpu', dtype=torch.bfloat16):\n"
                "    mixed = torch.ones(2, 2) @ torch.ones(2, 2)",
    "nonlocal": "def counter():\n    count = 0\n    def inc():\n        nonlocal count\n"
                "        count += 1\n        return count\n    return inc\nc = counter()\n"
                "two = (c(), c())[1]",
    "yield": "def gen():\n    yield 1\n    yield 2\ngot = list(gen())",
}
NET = """
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(3, 4)
        self.out = nn.Linear(4, 1)

    def forward(self, x):
        return self.out(torch.relu(self.hidden(x)))

torch.manual_seed(0)
net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x = torch.randn(8, 3)
losses = []
for _ in range(3):
    opt.zero_grad()
    loss = net(x).pow(2).mean()
    loss.backward()
    opt.step()
    losses.append(loss.item())
"""


def _plain(source: str) -> dict:
    ns: dict = {"torch": torch, "nn": torch.nn, "np": __import__("numpy")}
    exec(source, ns)  # the ground truth: Python itself
    return ns


@pytest.mark.parametrize("name", list(TABLE))
def test_what_learners_type_runs_in_their_own_workspace(name: str) -> None:
    ws = tx.Workspace()
    ws.run(TABLE[name])
    truth = _plain(TABLE[name])
    for key in ws.names():
        mine, theirs = ws[key], truth[key]
        if isinstance(mine, torch.Tensor):
            assert torch.equal(mine, theirs), key
        elif not callable(mine):
            assert mine == theirs, key
    # the same code is refused in the restricted runner unless the sandbox now allows it
    assert tx.Workspace(restricted=True).restricted


def test_a_two_layer_module_trains_and_scripts_itself() -> None:
    ws = tx.Workspace()
    ws.run(NET)
    truth = _plain(NET)
    assert ws["losses"] == pytest.approx(truth["losses"])
    assert ws["losses"][2] < ws["losses"][0]
    for (n1, p1), (n2, p2) in zip(ws["net"].named_parameters(),
                                   truth["net"].named_parameters(), strict=True):
        assert n1 == n2 and torch.allclose(p1, p2) and torch.allclose(p1.grad, p2.grad)
    origin = ws.origin("net")
    assert origin is not None and "Net()" in origin.statement
    assert ws.origin("Net") is not None
    # the script re-creates the workspace: class and loop included
    again = _plain(ws.to_script())
    assert again["losses"] == pytest.approx(ws["losses"])


def test_full_python_keeps_rollback_errors_and_stop() -> None:
    ws = tx.Workspace(time_limit=0.5)
    ws.run("a = torch.ones(2, 3)")
    with pytest.raises(tx.ProgramError) as info:
        ws.run("b = 1\nc = a @ a")
    err = info.value
    assert err.line == 2 and err.kind == "matmul-shape"
    assert ("a", "tensor (2, 3) float32 cpu") in err.operands
    assert ws.names() == ["a", "b"]  # the first statement kept, the failing one bound nothing
    with pytest.raises(tx.ProgramError) as info:
        ws.run("while True:\n    try:\n        while True:\n            pass\n"
               "    except:\n        pass")
    assert info.value.kind == "stopped"


@pytest.mark.parametrize("mine", [
    "o = open",
    "_write = lambda p: open(p, 'w').write('x')",
    "import torch as t2\nsaver = t2.save",
    "class Box:\n    def put(self, p):\n        open(p, 'w').write('x')\nbox = Box()",
    "w = torch.ones(2, requires_grad=True)\nh = w.register_hook(lambda g: open(path, 'w'))",
    "seq = [open]",
])
def test_a_restricted_program_never_shares_a_workspace_with_the_users_code(
        mine: str, tmp_path: Path) -> None:
    target = tmp_path / "written.txt"
    ws = tx.Workspace()
    ws["path"] = str(target)
    ws.run(mine)
    calls = ["o(path, 'w')", "_write(path)", "saver(torch.ones(1), path)", "box.put(path)",
             "(w * 2).sum().backward()", "seq[0](path, 'w')"]
    for call in calls:
        with pytest.raises(tx.ProgramError) as info:
            ws.run(call, restricted=True)
        assert info.value.kind == "refused"
        assert "trust" in str(info.value).lower()
    assert not target.exists()


def test_a_restricted_program_may_share_plain_data() -> None:
    ws = tx.Workspace()
    ws.run("x = torch.arange(4.0)\nlayer = nn.Linear(4, 2)\nsizes = [1, 2, 3]")
    ws.run("y = layer(x).sum() + sum(sizes)", restricted=True)
    assert ws["y"].item() == pytest.approx(ws["layer"](ws["x"]).sum().item() + 6)
    # ...and what the program made stays the program's: the user's code may use it
    assert ws.trusted_code() == []
    # after the user's own code ran, every value that is more than data counts as the
    # user's (that code could have given it a hook or a method): here y, which has a graph
    ws.run("z = y.item() * 2")
    assert ws.trusted_code() == ["y"]
    ws.clear()
    ws.run("import os\nf = lambda: 1")
    assert ws.trusted_code() == ["f"]  # (modules never reach restricted code)
    ws.clear()  # clearing forgets the user's code too, hidden names included
    assert ws.trusted_code() == []
    ws.run("q = torch.ones(1)", restricted=True)


def test_trust_is_remembered_by_content(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("TENSOR_EXPLORER_TRUST_FILE", str(tmp_path / "trusted.json"))
    program = tmp_path / "prog.py"
    program.write_text("import os\n")
    assert not trust.is_trusted(program)
    trust.trust_file(program)
    assert trust.is_trusted(program)
    program.write_text("import os\nimport sys\n")  # edited: asks again
    assert not trust.is_trusted(program)
    shipped = next(Path(L.shipped_dir()).glob("*.en.md"))
    assert trust.is_trusted(shipped) and trust.is_shipped(shipped)


LESSON = """---
name: mine
title: Mine
language: en
---

## One

```python
import json
text = json.dumps([1, 2])
```

expect: text == "[1, 2]"
"""


def test_lesson_files_run_restricted_until_trusted(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("TENSOR_EXPLORER_TRUST_FILE", str(tmp_path / "trusted.json"))
    path = tmp_path / "mine.en.md"
    path.write_text(LESSON)
    lesson = L.read_lesson(path)
    assert not lesson.trusted
    [result] = L.run_lesson(lesson)
    assert not result.ok and result.error is not None and result.error.kind == "refused"
    assert "trust" in result.error.headline.lower()
    [result] = L.run_lesson(lesson.trusted_as(True))
    assert result.ok, result.failures
    trust.trust_file(path)
    assert L.read_lesson(path).trusted
    shipped = L.load_lesson("welcome")
    assert shipped.trusted and all(st.trusted for st in shipped.steps)


def test_check_trusts_with_the_flag(tmp_path: Path) -> None:
    path = tmp_path / "mine.en.md"
    path.write_text(LESSON)
    env = {"TENSOR_EXPLORER_TRUST_FILE": str(tmp_path / "trusted.json"), "PATH": "/usr/bin"}
    run = [sys.executable, "-m", "tensor_explorer", "check", str(path)]
    r = subprocess.run(run, capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 1 and "restricted" in r.stdout and "Refused" in r.stdout
    r = subprocess.run([*run, "--trust"], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_programs_own_repr_is_bounded_for_the_panels() -> None:
    """The inspector shows repr() of values: a class of a program may loop or be refused in
    its __repr__; the panel gets a placeholder within the limit, never a hang or a crash."""
    ws = tx.Workspace(restricted=True)
    ws.run("class Loop:\n    def __repr__(self):\n        while True:\n            pass\n"
           "class Sly:\n    def __repr__(self):\n        return '{0.__class__}'.format(self)\n"
           "a = Loop()\nb = Sly()")
    assert ws.text_of(ws["a"]).startswith("<Loop>")  # (within its time limit)
    assert ws.text_of(ws["b"]) == "<Sly>"
    assert ws.text_of([1, 2, 3]) == "[1, 2, 3]"
    assert ws.text_of("x" * 1000).endswith("…") and len(ws.text_of("x" * 1000)) == 501


def test_full_python_still_checks_what_factories_are_asked_for() -> None:
    ws = tx.Workspace()
    for source in ("big = torch.zeros(200_000, 200_000)", "big = np.ones((200_000, 200_000))"):
        with pytest.raises(tx.ProgramError) as info:
            ws.run(source)
        assert "refused before allocating" in str(info.value)
    # the check is a function mode: torch's own device context still applies afterwards
    ws.run("x = torch.zeros(2, 3)\nlayer = nn.Linear(3, 1)", device="meta")
    assert ws["x"].device.type == "meta" and ws["layer"].weight.device.type == "meta"
    with torch.device("meta"):
        assert torch.zeros(2).device.type == "meta"
    assert torch.zeros(2).device.type == "cpu"


# ----- found by a security review of the restricted/trusted split (each reproduced first) ----


@pytest.mark.parametrize("source", [
    # an unbound library method runs on any object: LRScheduler.load_state_dict(obj, d) is
    # obj.__dict__.update(d)
    "torch.optim.lr_scheduler.LRScheduler.load_state_dict(F.softsign, {'a': 1})",
    "nn.Module.set_submodule(F.relu, 'a', nn.Linear(1, 1))",
    # a property's getter reads attributes by name (nn.RNNBase.all_weights.fget)
    "g = nn.RNNBase.all_weights.fget",
    # an attribute that hides a method the app calls (facts, module summaries)
    "x = torch.ones(2)\nx.is_inference = lambda: True",
])
def test_library_gadgets_are_refused(source: str) -> None:
    with pytest.raises(tx.ProgramError) as info:
        tx.Workspace(restricted=True).run(source)
    assert info.value.kind == "refused"


def test_code_a_program_made_never_finds_the_full_builtins(tmp_path: Path) -> None:
    """CPython gives a function made at call time (a comprehension in a method) the builtins
    of its globals at that moment: a program's globals always have the safe ones."""
    ws = tx.Workspace()
    ws["path"] = str(tmp_path / "written.txt")
    ws.run("def probe():\n    return [open for _ in range(1)]\n"
           "def shadow(n):\n    return []\nrange = shadow", restricted=True)
    with pytest.raises(tx.ProgramError) as info:
        ws.run("got = probe()")  # called by the user's own code
    assert info.value.error_type == "NameError"
    ws.run("mine = list(range(3))")  # the program's `range` is its own, not the user's
    assert ws["mine"] == [0, 1, 2]
    assert not (tmp_path / "written.txt").exists()


def test_expectations_share_the_rules_and_the_limits(tmp_path: Path) -> None:
    ws = tx.Workspace()
    ws.run("from pathlib import Path")
    with pytest.raises(tx.ProgramError) as info:
        L.evaluate(ws, f"Path({str(tmp_path / 'x')!r}).write_text('x') > 0")
    assert info.value.kind == "refused" and not (tmp_path / "x").exists()
    ws = tx.Workspace(restricted=True)
    ws.run("class Box:\n    def __len__(self):\n        while True:\n            pass\n"
           "box = Box()")
    with pytest.raises(tx.ProgramError) as info:
        L.evaluate(ws, "box", then=bool)  # bool() runs the program's __len__
    assert info.value.kind == "stopped"


def test_history_records_say_how_they_ran() -> None:
    ws = tx.Workspace()
    ws.run("a = torch.ones(1)")
    ws.run("b = a * 2", restricted=True)
    assert [r.restricted for r in ws.history] == [False, True]
