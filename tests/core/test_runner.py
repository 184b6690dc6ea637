"""The restricted runner: REPL semantics, errors a learner understands, stopping, devices."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
import torch

import tensor_explorer as tx
from tests.core.error_cases import COMMON_ERRORS


def _error(ws: tx.Workspace, source: str, device: str | None = None) -> tx.ProgramError:
    with pytest.raises(tx.ProgramError) as info:
        ws.run(source, device=device)
    return info.value


# --- REPL semantics --------------------------------------------------------------------------


def test_statements_before_the_failing_one_keep_their_effect() -> None:
    ws = tx.Workspace()
    err = _error(ws, "a = 1\nb = a + 1\nc = undefined_name\nd = 4")
    assert err.line == 3
    assert err.source_line == "c = undefined_name"
    assert err.kind == "not-defined"
    assert ws.names() == ["a", "b"]
    assert [r.source for r in ws.history] == ["a = 1", "b = a + 1"]


def test_failing_compound_statement_binds_nothing() -> None:
    ws = tx.Workspace()
    ws.run("z = 'before'")
    err = _error(
        ws,
        "for i in range(3):\n    z = i\n    w = i\n    if i == 2:\n        raise ValueError('no')",
    )
    assert err.line == 5
    assert err.error_type == "ValueError" and err.torch_message == "no"
    assert ws.names() == ["z"] and ws["z"] == "before"


def test_failing_statement_does_not_delete_or_rebind() -> None:
    ws = tx.Workspace()
    ws.run("x = torch.ones(2)\ny = x")
    y = ws["y"]
    _error(ws, "del y\nx = x + undefined_name")
    assert "y" not in ws  # "del y" was its own statement and succeeded
    ws.run("y = x")
    _error(ws, "y, q = x, 1 / 0")
    assert ws["y"] is ws["x"] and y is ws["x"]
    assert "q" not in ws


def test_in_place_changes_of_a_failing_statement_are_written_back() -> None:
    ws = tx.Workspace()
    ws.run("x = torch.zeros(3)\narr = np.zeros(3)\nshared = torch.from_numpy(arr)")
    _error(ws, "x.add_(1) + undefined_name")
    assert ws["x"].tolist() == [0.0, 0.0, 0.0]
    _error(ws, "for i in range(3):\n    arr[i] = 7\n    if i == 1:\n        raise ValueError('x')")
    assert ws["arr"].tolist() == [0.0, 0.0, 0.0]
    assert ws["shared"].tolist() == [0.0, 0.0, 0.0]


def test_a_value_that_cannot_be_written_back_is_named_in_the_error() -> None:
    ws = tx.Workspace()
    ws.run("t = torch.arange(3.)\nkept = torch.zeros(2)\na = np.arange(3.)")
    # the statement grows t's storage in place: the saved three values no longer fit it
    err = _error(ws, "if True:\n    kept.add_(1)\n    t.resize_(5).fill_(7)\n    undefined_name")
    assert err.kind == "not-defined"
    t = ws["t"]
    assert t.shape == (5,) and t.tolist() == [7.0] * 5  # torch: still the statement's result
    with pytest.raises(RuntimeError):
        t.clone().copy_(torch.arange(3.))  # torch: the old values cannot be copied into it
    assert ws["kept"].tolist() == [0.0, 0.0]  # what could be restored was
    note = "t could not be restored after the error and may keep the failed statement's changes."
    assert err.notes[-1] == note
    assert str(err).endswith("Note: " + note)
    assert err.text("zh").endswith("注意：t 在出错后无法恢复原值，可能仍带着出错语句所做的修改。")
    # an array the statement changed, then made read-only
    err = _error(ws, "if True:\n    a += 1\n    a.flags.writeable = False\n    undefined_name")
    a = ws["a"]
    assert not a.flags.writeable and a.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="read-only"):
        np.copyto(a, np.arange(3.))  # NumPy: the old values cannot be written back
    assert err.notes[-1] == ("a could not be restored after the error and may keep the failed "
                             "statement's changes.")
    # a shape change that a copy would broadcast over is not a restore either
    ws.run("s = torch.arange(3.)")
    err = _error(ws, "s.resize_(2, 3).fill_(7) + undefined_name")
    assert ws["s"].shape == (2, 3) and err.notes[-1].startswith("s could not be restored")


def test_a_failed_statement_that_changes_nothing_adds_no_note() -> None:
    ws = tx.Workspace()
    ws.run("t = torch.arange(3.)\na = np.arange(3.)")
    err = _error(ws, "t.add_(1) + torch.from_numpy(a).mul_(2) + undefined_name")
    assert err.notes == ()
    assert ws["t"].tolist() == [0.0, 1.0, 2.0] and ws["a"].tolist() == [0.0, 1.0, 2.0]


def test_functions_see_later_bindings_like_a_repl() -> None:
    ws = tx.Workspace()
    ws.run("def scaled(t):\n    return t * k")
    ws.run("k = 3")
    ws.run("y = scaled(torch.ones(2))")
    assert ws["y"].tolist() == [3.0, 3.0]


def test_run_returns_bound_and_changed_names_in_order() -> None:
    ws = tx.Workspace()
    assert ws.run("b = torch.zeros(2)\na = torch.ones(2)") == ["b", "a"]
    assert ws.run("a.add_(1)") == ["a"]
    assert ws.run("c, b = b, a") == ["c", "b"]
    assert ws.run("c[0] = 5") == ["c"]
    assert ws.run("print(a)") == []
    # b is the same tensor as a (bound by "c, b = b, a"), so it changes with it
    assert ws.run("a += 1\nd = 1") == ["a", "b", "d"]


def test_writes_through_shared_memory_count_as_changes() -> None:
    ws = tx.Workspace()
    ws.run(
        "array = np.arange(6, dtype=np.float32).reshape(2, 3)\n"
        "shared = torch.from_numpy(array)\n"
        "copied = torch.tensor(array)\n"
        "back = shared.numpy()\n"
        "row = shared[1]"
    )
    # every value on the same bytes counts (row does not hold [0, 0], but the check is by
    # the span of bytes each value covers, which is conservative)
    assert ws.run("array[0, 0] = 99") == ["array", "shared", "back", "row"]
    assert ws.run("shared.mul_(2)") == ["shared", "array", "back", "row"]
    assert np.shares_memory(ws["array"], ws["back"])
    assert ws["copied"][0, 0].item() == 0.0


def test_backward_reports_the_leaves_whose_grad_changed() -> None:
    ws = tx.Workspace()
    ws.run(
        "x = torch.tensor([2.0, 3.0], requires_grad=True)\n"
        "c = torch.tensor([1.0, 1.0])\n"
        "loss = (x * x).sum()"
    )
    assert ws.run("loss.backward()") == ["x"]
    assert ws.run("x.grad = None") == ["x"]


def test_expression_value_is_kept_as_result() -> None:
    ws = tx.Workspace()
    ws.run("x = torch.arange(3)\nx.shape")
    assert ws.last_result == "torch.Size([3])"
    assert ws.history[-1].result == "torch.Size([3])"
    ws.run("x.add_(1)")  # a value that is a workspace value is named, not printed
    assert ws.last_result == "x"


def test_print_is_captured_and_emitted() -> None:
    ws = tx.Workspace()
    seen: list[str] = []
    ws.events.output.connect(seen.append)
    ws.run("print('a', 1)\nx = 2\nprint(x, end='!')")
    assert ws.last_output == "a 1\n2!"
    assert seen == ["a 1\n", "2!"]


def test_output_before_an_error_is_still_emitted() -> None:
    ws = tx.Workspace()
    seen: list[str] = []
    ws.events.output.connect(seen.append)
    _error(ws, "print('step 1')\nfor i in range(2):\n    print(i)\n    i / 0")
    assert "".join(seen) == "step 1\n0\n"
    assert ws.last_output == "step 1\n0\n"


def test_print_to_a_file_is_refused() -> None:
    ws = tx.Workspace()
    err = _error(ws, "print('x', file=None)")
    assert err.error_type == "TypeError"


def test_grad_mode_and_default_dtype_do_not_leak_out_of_a_run() -> None:
    ws = tx.Workspace()
    ws.run(
        "torch.set_grad_enabled(False)\ntorch.set_default_dtype(torch.float64)\nx = torch.ones(1)"
    )
    assert ws["x"].dtype == torch.float64
    assert torch.is_grad_enabled()
    assert torch.get_default_dtype() == torch.float32


def test_with_no_grad_and_inference_mode() -> None:
    ws = tx.Workspace()
    ws.run(
        "w = torch.ones(2, requires_grad=True)\n"
        "with torch.no_grad():\n"
        "    a = w * 2\n"
        "with torch.inference_mode():\n"
        "    b = w * 2\n"
        "with torch.no_grad():\n"
        "    with torch.enable_grad():\n"
        "        c = w * 2\n"
        "d = w.detach()"
    )
    assert not ws["a"].requires_grad and ws["b"].is_inference() and ws["c"].requires_grad
    assert ws.origin("a").grad_mode == "no_grad" and ws.origin("a").cut_off == "no_grad"
    assert ws.origin("b").cut_off == "inference_mode"
    assert ws.origin("c").grad_mode == "enable_grad" and ws.origin("c").cut_off is None
    assert ws.origin("c").contexts == ("torch.no_grad()", "torch.enable_grad()")
    assert ws.origin("d").cut_off == "detach"


def test_language_features_of_the_seeds() -> None:
    ws = tx.Workspace()
    ws.run(
        "squares = [i * i for i in range(4) if i % 2 == 0]\n"
        "total = sum(i for i in range(5))\n"
        "table = {k: v for k, v in zip('ab', (1, 2))}\n"
        "double = lambda v: v * 2\n"
        "n = 0\n"
        "while n < 3:\n"
        "    n += 1\n"
        "try:\n"
        "    assert n == 4, 'n is not 4'\n"
        "except AssertionError as e:\n"
        "    message = f'caught: {e} ({n:>3d})'\n"
        "if (m := double(n)) > 5:\n"
        "    big = True\n"
    )
    assert ws["squares"] == [0, 4] and ws["total"] == 10 and ws["table"] == {"a": 1, "b": 2}
    assert ws["message"] == "caught: n is not 4 (  3)"
    assert ws["m"] == 6 and ws["big"] is True


# --- errors a learner understands --------------------------------------------------------------


def test_syntax_error_has_a_line() -> None:
    ws = tx.Workspace()
    err = _error(ws, "a = 1\nb = (2,\n")
    assert err.kind == "syntax"
    assert err.line == 2


def test_device_mismatch_names_the_operands_and_their_devices() -> None:
    ws = tx.Workspace()
    ws.run("features = torch.ones(2, 3)\nmodel = nn.Linear(3, 2).to('meta')")
    err = _error(ws, "logits = model(features)")
    assert err.kind == "device-mismatch"
    assert err.line == 1
    assert ("model", "Linear module, parameters float32 meta") in err.operands
    assert ("features", "tensor (2, 3) float32 cpu") in err.operands
    text = str(err)
    assert text.splitlines()[0] == "Line 1: logits = model(features)"
    assert ".to(device)" in text
    assert "features: tensor (2, 3) float32 cpu" in text
    assert err.torch_message in text


@pytest.mark.parametrize(("setup", "failing", "kind", "words"), COMMON_ERRORS)
def test_common_errors_are_explained(setup: str, failing: str, kind: str, words: str) -> None:
    ws = tx.Workspace()
    if setup:
        ws.run(setup)
    names = ws.names()
    err = _error(ws, failing)
    assert err.kind == kind, str(err)
    assert words in err.explanation
    assert err.line == 1
    assert ws.names() == names


def test_in_place_change_of_a_saved_tensor_shows_the_version_counter() -> None:
    ws = tx.Workspace()
    ws.run("x = torch.ones(2, requires_grad=True)\ny = x * 2\nz = y * y\ny.add_(1)\nloss = z.sum()")
    err = _error(ws, "loss.backward()")
    assert err.kind == "inplace-saved"
    assert "is at version 1; expected version 0" in err.torch_message
    assert "version 1" in err.explanation and "version 0" in err.explanation
    assert ws["y"]._version == 1


def test_error_inside_a_function_reports_the_line_in_the_function() -> None:
    ws = tx.Workspace()
    source = "def f(a, b):\n    c = a * 2\n    return c @ b\nx = torch.ones(2, 3)\nr = f(x, x)"
    err = _error(ws, source)
    assert err.line == 3
    assert err.source_line == "return c @ b"
    assert ("c", "tensor (2, 3) float32 cpu") in err.operands
    assert ("b", "tensor (2, 3) float32 cpu") in err.operands
    assert "f" in ws and "x" in ws and "r" not in ws


def test_error_inside_a_function_of_an_earlier_program() -> None:
    ws = tx.Workspace()
    ws.run("def f(a):\n    return a @ a")
    err = _error(ws, "x = torch.ones(2, 3)\ny = f(x)")
    assert err.line == 2
    assert any("inside f()" in note for note in err.notes)


def test_non_leaf_grad_warning_becomes_a_note_not_a_python_warning() -> None:
    ws = tx.Workspace()
    seen: list[str] = []
    ws.events.output.connect(seen.append)
    ws.run("x = torch.ones(2, requires_grad=True)\ny = x * 2\ng = y.grad")
    assert ws["g"] is None
    assert len(ws.last_notes) == 1
    assert "not a leaf" in ws.last_notes[0] and "retain_grad()" in ws.last_notes[0]
    assert "warning: UserWarning" in "".join(seen)
    assert ws.history[-1].notes == ws.last_notes


def test_unknown_device_lists_the_available_ones() -> None:
    ws = tx.Workspace()
    err = _error(ws, "x = torch.zeros(2)", device="cuda:7")
    assert err.kind == "device"
    assert err.line is None
    for name in tx.devices():
        assert name in str(err)
    assert _error(ws, "x = 1", device="not-a-device").kind == "device"
    assert "x" not in ws


def test_factories_run_on_the_device_given() -> None:
    ws = tx.Workspace()
    ws.run("x = torch.zeros(2, 3)\nlayer = nn.Linear(3, 1)", device="meta")
    assert ws["x"].device.type == "meta"
    assert ws["layer"].weight.device.type == "meta"
    assert ws.origin("x").device == "meta"
    ws.run("y = torch.zeros(2)", device="cpu")
    assert ws["y"].device.type == "cpu"
    err = _error(ws, "z = x + torch.ones(2, 3, device='cpu')")
    assert err.kind == "device-mismatch"


@pytest.mark.cuda
def test_factories_run_on_cuda() -> None:
    ws = tx.Workspace()
    ws.run("x = torch.zeros(2)\ny = x + 1", device="cuda:0")
    assert ws["y"].device == torch.device("cuda:0")
    ws.run("c = torch.ones(2)")
    err = _error(ws, "d = c + y")
    assert err.kind == "device-mismatch"
    assert ("y", "tensor (2,) float32 cuda:0") in err.operands


# --- stopping -----------------------------------------------------------------------------------


def _cancel_after(ws: tx.Workspace, delay: float) -> threading.Thread:
    def go() -> None:
        deadline = time.monotonic() + 5
        while not ws.running and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(delay)
        ws.cancel()

    thread = threading.Thread(target=go)
    thread.start()
    return thread


@pytest.mark.parametrize(
    "source",
    [
        "while True:\n    pass",
        "def spin():\n    while True:\n        n = 1\nspin()",
        "total = sum(i for i in range(10**12))",
        "found = [i for i in range(10**12) if i < 0]",
        "def again(k):\n    return again(k)\n\nwhile True:\n    try:\n        again(1)\n"
        "    except RecursionError:\n        pass",
    ],
    ids=["while", "function", "genexpr", "listcomp", "recursion-loop"],
)
def test_cancel_stops_a_runaway_program(source: str) -> None:
    # (how fast is measured in bench/, not asserted here: a shared machine is noisy)
    ws = tx.Workspace()
    ws.run("x = torch.ones(2)\ncount = 0")
    x = ws["x"]
    thread = _cancel_after(ws, 0.2)
    err = _error(ws, "count = 1\n" + source)
    thread.join()
    assert err.kind == "stopped" and err.cancelled
    assert "cancelled" in str(err)
    assert ws["x"] is x and ws["count"] == 1
    assert ws.run("y = x + 1") == ["y"]  # the workspace works afterwards


def test_program_cannot_swallow_a_stop() -> None:
    ws = tx.Workspace(time_limit=0.3)
    source = (
        "while True:\n    try:\n        while True:\n            pass\n    except:\n        pass"
    )
    err = _error(ws, source)
    assert err.kind == "stopped"


def test_time_and_step_limits() -> None:
    ws = tx.Workspace()
    err = _limit(ws, time_limit=0.2)
    assert err.kind == "stopped" and "time limit" in str(err)
    err = _limit(ws, max_steps=1000)
    assert err.kind == "stopped" and "1000 steps" in str(err)
    ws.run("for i in range(500):\n    pass", max_steps=1000)
    assert ws["i"] == 499


def _limit(ws: tx.Workspace, **limits: float) -> tx.ProgramError:
    with pytest.raises(tx.ProgramError) as info:
        ws.run("n = 0\nwhile True:\n    n += 1", **limits)  # type: ignore[arg-type]
    return info.value


def test_a_second_run_while_one_is_running_is_refused() -> None:
    ws = tx.Workspace()
    errors: list[tx.ProgramError] = []

    def other() -> None:
        deadline = time.monotonic() + 5
        while not ws.running and time.monotonic() < deadline:
            time.sleep(0.01)
        try:
            ws.run("y = 1")
        except tx.ProgramError as exc:
            errors.append(exc)
        with pytest.raises(RuntimeError):
            ws["z"] = 1
        ws.cancel()

    thread = threading.Thread(target=other)
    thread.start()
    _error(ws, "while True:\n    pass")
    thread.join()
    assert [e.kind for e in errors] == ["busy"]
    assert "y" not in ws and "z" not in ws


