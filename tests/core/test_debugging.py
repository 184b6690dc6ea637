"""Debugging a script without Qt: frames to values, the stop condition, the error at a frame,
the NaN watch, and ``tensor-explorer run``'s exit status (issue #30)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

from tensor_explorer.cli import split_run_args
from tensor_explorer.core.debugging import (
    NanWatch,
    NonFiniteError,
    failing_index,
    frame_error,
    frame_values,
    nonfinite_count,
    run_script,
    should_stop,
    stack_from,
    stack_of,
)

GLOBAL_WEIGHT = torch.ones(2, 2)
GLOBAL_NUMBER = 7

ROOT = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------- frames -> values


def test_frame_values_are_the_users_own_objects() -> None:
    t = torch.arange(3.0)
    arr = np.zeros(4)
    net = nn.Linear(2, 2)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    n, text = 3, "hi"
    _hidden = torch.zeros(1)
    values = frame_values(sys._getframe())
    for name, value in [("t", t), ("arr", arr), ("net", net), ("opt", opt), ("n", n),
                        ("text", text)]:
        assert values[name] is value, name
    assert "_hidden" not in values  # a workspace refuses names that start with '_'
    assert values["GLOBAL_WEIGHT"] is GLOBAL_WEIGHT  # a tensor global, after the locals
    assert "GLOBAL_NUMBER" not in values  # other globals do not drown the locals
    assert "nn" not in values  # reserved for the workspace's own module
    assert values["pytest"] is pytest  # imported modules: hidden in a workspace, for code
    names = list(values)
    assert names.index("text") < names.index("GLOBAL_WEIGHT")
    del _hidden


def test_frame_values_go_into_a_workspace_as_they_are() -> None:
    from tensor_explorer.core.workspace import Workspace

    w = torch.ones(3)
    ws = Workspace()
    for name, value in frame_values(sys._getframe()).items():
        ws[name] = value
    assert ws["w"] is w
    ws.run("w.mul_(2)")  # a change in place is the script's object's change
    assert w.tolist() == [2.0, 2.0, 2.0]
    assert "pytest" not in ws.names()  # a module is there for code, not listed


def test_should_stop() -> None:
    calls: list[int] = []
    assert should_stop(None)
    assert not should_stop(lambda: calls.append(1))  # None: false
    assert should_stop(lambda: torch.tensor(True))
    assert calls == [1]


# --------------------------------------------------------------------------- the error at a frame


def _train_step(model: nn.Module, features: torch.Tensor) -> torch.Tensor:
    logits = model(features)
    return logits.sum()


def test_error_at_the_failing_frame_is_explained_with_its_operands() -> None:
    model = nn.Linear(4, 3)
    batch = torch.randn(5, 6)
    try:
        _train_step(model, batch)
    except RuntimeError as exc:
        frames = stack_of(exc.__traceback__)
        caught = exc
    index = failing_index(frames)
    info = frames[index]
    assert info.function == "_train_step" and info.user
    assert all(not f.user for f in frames[index + 1:])  # torch's own frames below
    err = frame_error(caught, info)
    assert err.kind == "matmul-shape"
    assert err.source_line == "logits = model(features)"
    assert err.line == info.line
    operands = dict(err.operands)
    assert list(operands) == ["model", "features"]
    assert operands["features"] == "tensor (5, 6) float32 cpu"
    assert "mat1 and mat2" in err.text()
    assert "(n, k) @ (k, m)" in err.text("en")
    assert "矩阵乘法" in err.text("zh") or err.text("zh") != err.text("en")
    assert frame_values(info.frame)["features"] is batch


def test_a_breakpoint_frame_is_said_without_an_error() -> None:
    x = torch.ones(2)
    info = stack_from(sys._getframe())[-1]
    err = frame_error(None, info)
    assert err.kind == "breakpoint" and "Stopped here" in err.text()
    assert x is frame_values(info.frame)["x"]


# --------------------------------------------------------------------------- NaN watch


def test_nan_watch_stops_at_the_first_op_that_makes_a_non_finite_value() -> None:
    a = torch.tensor([1.0, 0.0, 4.0])
    with pytest.raises(NonFiniteError) as info, NanWatch():
        b = a * 2  # finite
        c = torch.log(b)  # -inf: the first
        c * 0  # NaN, never reached
    err = info.value
    assert err.function == "torch.log" and err.stage == "forward"
    assert err.values["input_0"] is b
    out = err.values["output"]
    assert torch.isneginf(out[1]) and nonfinite_count(out) == (0, 1)
    assert err.where is not None and err.where[0] == __file__
    assert "its inputs were all finite" in str(err)


def test_nan_watch_names_the_operands_of_a_nan() -> None:
    z = torch.zeros(2)
    y = torch.tensor([0.0, 1.0])
    with pytest.raises(NonFiniteError) as info, NanWatch():
        z / y
    assert info.value.function in ("Tensor.div", "Tensor.__truediv__")
    assert info.value.values["input_0"] is z and info.value.values["input_1"] is y
    assert nonfinite_count(info.value.values["output"]) == (1, 0)


def test_nan_watch_ignores_integers_and_finite_values() -> None:
    with NanWatch():
        i = torch.arange(4) // 2
        f = torch.randn(3, 3).softmax(-1)
        assert i.dtype == torch.int64 and torch.isfinite(f).all()


def test_nan_watch_backward_finds_the_op_whose_gradient_is_not_finite() -> None:
    w = torch.tensor([1.0, 0.0, 4.0], requires_grad=True)
    with NanWatch():
        root = torch.sqrt(w)  # finite forward; d sqrt / dw at 0 is inf
        loss = (root * 0).sum()  # 0 * inf = NaN in the gradient
        with pytest.raises(NonFiniteError) as info:
            loss.backward()
    err = info.value
    assert err.stage == "backward" and err.function == "torch.sqrt"
    assert err.values["input_0"] is w
    assert nonfinite_count(err.values["grad_input_0"]) == (1, 0)
    assert torch.isfinite(err.values["grad_output_0"]).all()
    assert "backward of torch.sqrt" in str(err)


def test_nan_watch_error_is_explained_at_its_frame() -> None:
    h = torch.tensor([0.0, 1.0])
    try:
        with NanWatch():
            torch.log(h)
    except NonFiniteError as exc:
        frames, caught = stack_of(exc.__traceback__), exc
    err = frame_error(caught, frames[failing_index(frames)])
    assert err.kind == "non-finite"
    names = [n for n, _d in err.operands]
    assert names[:1] == ["h"] and "input_0" in names and "output" in names
    assert "log or sqrt of zero" in err.text()
    assert "对 0 或负数取 log" in err.text("zh")


# --------------------------------------------------------------------------- running scripts


def _script(tmp_path: Path, body: str, name: str = "script.py") -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(body))
    return p


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TENSOR_EXPLORER_NO_WINDOW": "1", "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run([sys.executable, "-m", "tensor_explorer", "run", *args], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=120)


def test_run_is_the_script_as_python_runs_it(tmp_path: Path) -> None:
    (tmp_path / "helper.py").write_text("VALUE = 41\n")
    script = _script(tmp_path, """
        import sys
        import helper
        print(__name__, sys.argv[1:], helper.VALUE + 1)
        print("qt" if "PySide6" in sys.modules else "no qt")
    """)
    r = _run(str(script), "a", "--lr", "0.1", cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["__main__ ['a', '--lr', '0.1'] 42", "no qt"]


@pytest.mark.parametrize(("body", "status"), [
    ("x = 1\n", 0),
    ("import sys\nsys.exit(4)\n", 4),
    ("raise SystemExit(0)\n", 0),
    ("raise SystemExit('bad input')\n", 1),
    ("import torch\ntorch.ones(2) @ torch.ones(3)\n", 1),
])
def test_exit_status(tmp_path: Path, body: str, status: int) -> None:
    r = _run(str(_script(tmp_path, body)), cwd=tmp_path)
    assert r.returncode == status, r.stderr
    if "'bad input'" in body:
        assert "bad input" in r.stderr


def test_a_failing_script_says_the_error_at_its_frame(tmp_path: Path) -> None:
    script = _script(tmp_path, """
        import torch
        from torch import nn

        model = nn.Linear(4, 3)

        def step(features):
            return model(features).sum()

        for i in range(3):
            step(torch.randn(2, 4 if i < 2 else 5))
    """)
    r = _run(str(script), cwd=tmp_path)
    assert r.returncode == 1
    assert "Traceback (most recent call last)" in r.stderr  # as Python prints it
    assert "Line 8: return model(features).sum()" in r.stderr
    assert "features: tensor (2, 5) float32 cpu" in r.stderr
    assert "What usually causes this" in r.stderr


def test_stop_on_nan_from_the_command_line(tmp_path: Path) -> None:
    script = _script(tmp_path, """
        import torch
        x = torch.tensor([1.0, 0.0])
        y = x * 3
        z = torch.log(y)
        print("not reached")
    """)
    for args in (["--stop-on-nan", str(script)], [str(script), "--stop-on-nan"]):
        r = _run(*args, cwd=tmp_path)
        assert r.returncode == 1
        assert "not reached" not in r.stdout
        assert "Line 5: z = torch.log(y)" in r.stderr
        assert "torch.log made NaN or Inf values" in r.stderr
    r = _run(str(script), cwd=tmp_path)  # without the watch, -inf is just a value
    assert r.returncode == 0 and "not reached" in r.stdout


def test_run_in_process_calls_back_at_the_error_and_restores_argv(tmp_path: Path) -> None:
    script = _script(tmp_path, "import sys\nargs = sys.argv[1:]\nraise KeyError(args[0])\n")
    argv, path = sys.argv[:], sys.path[:]
    seen = []
    status = run_script(str(script), ["k"], on_error=lambda e, tb: seen.append((e, tb)))
    assert status == 1 and sys.argv == argv and sys.path == path
    exc, tb = seen[0]
    assert isinstance(exc, KeyError)
    frames = stack_of(tb)
    assert frames[0].filename == str(script.resolve())  # runpy's frames are left out
    assert frame_values(frames[0].frame)["args"] == ["k"]


def test_split_run_args() -> None:
    assert split_run_args(["s.py", "a"]) == (False, ["s.py", "a"])
    assert split_run_args(["--stop-on-nan", "s.py", "a"]) == (True, ["s.py", "a"])
    assert split_run_args(["s.py", "a", "--stop-on-nan"]) == (True, ["s.py", "a"])
    assert split_run_args(["--", "s.py", "--stop-on-nan"]) == (False, ["s.py", "--stop-on-nan"])


def test_breakpoint_with_a_false_condition_imports_no_qt(tmp_path: Path) -> None:
    code = ("import sys, tensor_explorer as tx\n"
            "for i in range(100):\n    tx.breakpoint(when=lambda: i > 1000)\n"
            "print('PySide6' in sys.modules)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"


def test_explore_stays_the_function_when_its_module_loads_for_another_name() -> None:
    # tx.breakpoint lives in tensor_explorer/explore.py: loading it for breakpoint bound the
    # package's `explore` to the module, and tx.explore(...) said "'module' object is not
    # callable"
    code = ("import tensor_explorer as tx\ntx.breakpoint(when=lambda: False)\n"
            "assert callable(tx.explore) and callable(tx.post_mortem), tx.explore\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120,
                   env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
