"""Every code sample of the two seed chapters runs in the restricted runner, verbatim.

Each sample below is copied character for character from ``shared/seeds/*.txt``. Samples that
are complete programs run on their own; fragments that use names the chapter defines elsewhere
(``model``, ``loss``...) run after a small, separate set-up program that makes those names.
The values asserted are the ones the chapter states, checked against torch run directly.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tensor_explorer as tx

# --- chapter 000 -----------------------------------------------------------------------------

CH0_JS_MIRROR = """\
x = torch.as_tensor(values, dtype=torch.float32, device=device)
logits = x @ weights
loss = ((logits - target) ** 2).mean()
loss.backward()
"""

CH0_EXAMPLE_1 = """\
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
features = torch.tensor(
    [[0.2, 10.0, 0.4], [0.9, 30.0, 1.2]],
    dtype=torch.float32,
    device=device,
)
labels = torch.tensor([0, 1], dtype=torch.long, device=device)
model = nn.Linear(3, 2).to(device)
logits = model(features)

print({
    "device": str(logits.device),
    "features": tuple(features.shape),
    "logits": tuple(logits.shape),
    "feature_dtype": str(features.dtype),
    "label_dtype": str(labels.dtype),
})
assert logits.shape == (2, 2)
assert labels.shape == (2,)
"""

CH0_EXAMPLE_2 = """\
import numpy as np
import torch

array = np.arange(6, dtype=np.float32).reshape(2, 3)
shared = torch.from_numpy(array)
copied = torch.tensor(array, dtype=torch.float32)

array[0, 0] = 99
print(shared[0, 0].item(), copied[0, 0].item())

column = shared[:, :1]
expanded = column.expand(-1, 3)
print(tuple(column.shape), tuple(expanded.shape))
"""

CH0_EXAMPLE_3 = """\
x = torch.tensor([[2.0, 3.0]], requires_grad=True)
weight = torch.tensor([[0.5], [2.0]], requires_grad=True)
bias = torch.tensor([1.0], requires_grad=True)

y = x @ weight + bias
loss = y.square().mean()
loss.backward()

print({
    "y": y.detach().tolist(),
    "loss": float(loss.detach()),
    "weight_grad": weight.grad.tolist(),
    "x_grad": x.grad.tolist(),
})
"""

CH0_INSPECT_BATCH = """\
def inspect_batch(model, features, labels):
    parameters = list(model.parameters())
    model_device = parameters[0].device
    if features.device != model_device or labels.device != model_device:
        raise ValueError("features, labels, and model must share device")
    if features.ndim != 2 or labels.ndim != 1:
        raise ValueError("expected features (batch, features) and labels (batch)")
    if features.shape[0] != labels.shape[0]:
        raise ValueError("batch size mismatch")
    if features.dtype not in (torch.float32, torch.float64):
        raise TypeError("features must be floating point")
    if labels.dtype != torch.long:
        raise TypeError("classification labels must be torch.long")
    logits = model(features)
    if not torch.isfinite(logits).all():
        raise ValueError("model produced NaN or Inf")
    print(tuple(features.shape), tuple(logits.shape), str(logits.device))
    return logits
"""

# The exercise is a function body printed without its "def" line (it ends in "return"), so it
# is not a program by itself; the test runs it verbatim as a program (a syntax error at the
# "return" line) and, indented, as the body of a function.
CH0_EXERCISE = """\
features = torch.as_tensor(array, dtype=torch.float32, device=device)
targets = torch.as_tensor(labels, dtype=torch.long, device=device)
if features.ndim != 2 or targets.ndim != 1:
  raise ValueError("invalid batch shape")
logits = model(features)
loss = torch.nn.functional.cross_entropy(logits, targets)
loss.backward()
return logits.detach(), loss.detach()
"""

CH0_RUN_ONE_STEP = """\
def run_one_step(model, array, labels, device):
    features = torch.as_tensor(array, dtype=torch.float32, device=device)
    targets = torch.as_tensor(labels, dtype=torch.long, device=device)
    if features.ndim != 2 or targets.ndim != 1:
        raise ValueError("expected features (batch, features) and labels (batch)")
    if features.shape[0] != targets.shape[0]:
        raise ValueError("feature and label batch sizes differ")
    if not torch.isfinite(features).all():
        raise ValueError("features contain NaN or Inf")

    model = model.to(device)
    model.train()
    model.zero_grad(set_to_none=True)
    logits = model(features)
    if logits.ndim != 2 or logits.shape[0] != features.shape[0]:
        raise ValueError("model output must be (batch, classes)")
    loss = torch.nn.functional.cross_entropy(logits, targets)
    loss.backward()
    grad_norm = torch.sqrt(sum(
        (parameter.grad.detach().square().sum()
         for parameter in model.parameters()
         if parameter.grad is not None)
    ))
    return {
        "shape": tuple(logits.shape),
        "dtype": str(logits.dtype),
        "device": str(logits.device),
        "loss": float(loss.detach()),
        "grad_norm": float(grad_norm),
    }
"""

# --- chapter 002 -----------------------------------------------------------------------------

CH2_FACTS = """\
print(x.shape, x.dtype, x.device, x.requires_grad)
"""

CH2_CREATION = """\
import torch

a = torch.tensor([1, 2, 3], dtype=torch.float32)
b = torch.zeros((2, 3))
c = torch.ones_like(b)
d = torch.rand((2, 3))       # [0, 1) 均匀分布
e = torch.randn((2, 3))      # 标准正态分布
f = torch.arange(0, 10, 2)
g = torch.linspace(0, 1, steps=5)
"""

CH2_SHAPES = """\
x = torch.randn(3, 4, 5)

x.shape               # torch.Size([3, 4, 5])
x.reshape(12, 5)      # 允许在必要时复制
x.view(12, 5)         # 要求底层存储布局兼容
x.unsqueeze(0)        # (1, 3, 4, 5)
x.squeeze(0)          # 只删除指定的大小为 1 的维度
x.flatten(start_dim=1)
x.permute(0, 2, 1)
"""

CH2_BROADCAST = """\
a = torch.tensor([1, 2, 3])          # (3,)
b = torch.tensor([[4], [5], [6]])    # (3, 1)
c = a + b                            # (3, 3)
"""

CH2_DEVICE = """\
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = model.to(device)
x = x.to(device)
y = y.to(device)
"""

CH2_NON_BLOCKING = """\
x = x.to(device, non_blocking=True)
"""

CH2_AUTOGRAD = """\
x = torch.tensor([2.0, 3.0], requires_grad=True)
y = x**2 + 3 * x
loss = y.sum()
loss.backward()

print(x.grad)  # 2*x + 3 -> tensor([7., 9.])
"""

CH2_VJP = """\
y.backward(torch.ones_like(y))
"""

CH2_STEP = """\
optimizer.zero_grad(set_to_none=True)
loss.backward()
optimizer.step()
"""

CH2_EVAL = """\
model.eval()
with torch.inference_mode():
    logits = model(x)
"""

CH2_DETACH = """\
x = torch.tensor(2.0, requires_grad=True)
y = x**2
z = y.detach()

print(z.requires_grad)  # False
"""

CH2_DETACH_BACKWARD = """\
z.backward()
"""

CH2_NEW_GRAPH = """\
z = y.detach().clone().requires_grad_(True)
"""

CH2_FREEZE = """\
for parameter in backbone.parameters():
    parameter.requires_grad_(False)
"""

CH2_ADAMW = """\
optimizer = torch.optim.AdamW(
    (p for p in model.parameters() if p.requires_grad),
    lr=1e-3,
)
"""

CH2_ITEM = """\
running_loss += loss.item() * batch_size
"""

CH2_CLIP = """\
loss.backward()
torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
optimizer.step()
"""


# --- chapter 000 tests -----------------------------------------------------------------------


def test_js_mirror_fragment_computes_the_mean_squared_error() -> None:
    ws = tx.Workspace()
    ws["values"] = [[1.0, 2.0], [3.0, 4.0]]
    ws.run(
        "device = torch.device('cpu')\n"
        "weights = torch.tensor([[1.0], [0.5]], requires_grad=True)\n"
        "target = torch.tensor([[1.0], [2.0]])"
    )
    ws.run(CH0_JS_MIRROR)
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    w = torch.tensor([[1.0], [0.5]], requires_grad=True)
    loss = ((x @ w - torch.tensor([[1.0], [2.0]])) ** 2).mean()
    loss.backward()
    assert ws["loss"].item() == pytest.approx(loss.item())
    assert torch.equal(ws["weights"].grad, w.grad)


def test_example_1_shapes_dtypes_and_printed_facts() -> None:
    ws = tx.Workspace()
    ws.run(CH0_EXAMPLE_1)
    expected_device = "cuda:0" if torch.cuda.is_available() else "cpu"
    assert ws.last_output == (
        f"{{'device': '{expected_device}', 'features': (2, 3), 'logits': (2, 2), "
        "'feature_dtype': 'torch.float32', 'label_dtype': 'torch.int64'}\n"
    )
    assert ws["logits"].shape == (2, 2)
    assert ws["labels"].dtype == torch.long
    assert torch.allclose(ws["logits"], ws["model"](ws["features"]))


def test_example_2_shared_changes_and_copied_keeps_zero() -> None:
    ws = tx.Workspace()
    names = ws.run(CH0_EXAMPLE_2)
    assert ws.last_output == "99.0 0.0\n(2, 1) (2, 3)\n"
    assert ws["shared"][0, 0].item() == 99.0
    assert ws["copied"][0, 0].item() == 0.0
    assert np.shares_memory(ws["array"], ws["shared"].numpy())
    assert ws["expanded"].stride() == (3, 0)
    assert names == ["array", "shared", "copied", "column", "expanded"]
    # the write through the array is reported as a change of the array and of the tensor
    write = next(r for r in ws.history if r.source == "array[0, 0] = 99")
    assert write.changed == ("array", "shared")


def test_example_3_forward_values_and_gradients() -> None:
    ws = tx.Workspace()
    ws.run(CH0_EXAMPLE_3)
    # y = 2*0.5 + 3*2 + 1 = 8; loss = 64; dloss/dw = 2*y*x^T; dloss/dx = 2*y*w^T
    assert ws.last_output == (
        "{'y': [[8.0]], 'loss': 64.0, 'weight_grad': [[32.0], [48.0]], 'x_grad': [[8.0, 32.0]]}\n"
    )
    x = torch.tensor([[2.0, 3.0]], requires_grad=True)
    w = torch.tensor([[0.5], [2.0]], requires_grad=True)
    ((x @ w + 1.0).square().mean()).backward()
    assert torch.equal(ws["weight"].grad, w.grad)
    assert torch.equal(ws["x"].grad, x.grad)


def test_example_3_backward_twice_without_zeroing_doubles_grad() -> None:
    ws = tx.Workspace()
    ws.run(CH0_EXAMPLE_3.replace("loss.backward()", "loss.backward(retain_graph=True)"))
    first = ws["weight"].grad.clone()
    ws.run("loss.backward()")
    assert torch.equal(ws["weight"].grad, 2 * first)


def test_inspect_batch_accepts_a_good_batch_and_prints_shapes() -> None:
    ws = tx.Workspace()
    ws.run(CH0_INSPECT_BATCH)
    ws.run(
        "model = nn.Linear(3, 2)\n"
        "features = torch.randn(8, 3)\n"
        "labels = torch.randint(0, 2, (8,))\n"
        "logits = inspect_batch(model, features, labels)"
    )
    assert ws.last_output == "(8, 3) (8, 2) cpu\n"
    assert ws["logits"].shape == (8, 2)


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("labels = labels.float()", "classification labels must be torch.long"),
        ("features = features.long()", "features must be floating point"),
        ("labels = labels[:4]", "batch size mismatch"),
        ("features = features.to('meta')", "features, labels, and model must share device"),
        ("features = features.flatten()", "expected features (batch, features)"),
    ],
)
def test_inspect_batch_rejects_each_broken_contract(setup: str, message: str) -> None:
    ws = tx.Workspace()
    ws.run(CH0_INSPECT_BATCH)
    ws.run("model = nn.Linear(3, 2)\nfeatures = torch.randn(8, 3)\nlabels = torch.zeros(8).long()")
    ws.run(setup)
    with pytest.raises(tx.ProgramError) as info:
        ws.run("logits = inspect_batch(model, features, labels)")
    assert message in info.value.torch_message
    assert "logits" not in ws
    # the failing line is the raise inside inspect_batch (line numbers of that program)
    assert info.value.line == 1


def test_exercise_fragment_is_a_syntax_error_as_a_program() -> None:
    ws = tx.Workspace()
    with pytest.raises(tx.ProgramError) as info:
        ws.run(CH0_EXERCISE)
    assert info.value.kind == "syntax"
    assert info.value.line == 8
    assert ws.names() == []  # nothing ran


def test_exercise_fragment_runs_as_a_function_body() -> None:
    ws = tx.Workspace()
    body = "".join("    " + line + "\n" for line in CH0_EXERCISE.splitlines())
    ws.run("def exercise(model, array, labels, device):\n" + body)
    ws["array"] = np.array([[0.2, 10.0, 0.4], [0.9, 30.0, 1.2]], dtype=np.float32)
    ws["labels"] = np.array([0, 1])
    ws.run("model = nn.Linear(3, 2)\nlogits, loss = exercise(model, array, labels, 'cpu')")
    model = ws["model"]
    expected = torch.nn.functional.cross_entropy(
        model(torch.from_numpy(ws["array"])), torch.tensor([0, 1])
    )
    assert ws["loss"].item() == pytest.approx(expected.item())
    assert not ws["logits"].requires_grad
    assert model.weight.grad is not None


def _run_one_step_direct(model: torch.nn.Module, array: np.ndarray, labels: np.ndarray) -> dict:
    features = torch.as_tensor(array, dtype=torch.float32)
    targets = torch.as_tensor(labels, dtype=torch.long)
    model.zero_grad(set_to_none=True)
    loss = torch.nn.functional.cross_entropy(model(features), targets)
    loss.backward()
    norm = torch.sqrt(sum(p.grad.square().sum() for p in model.parameters()))
    return {"loss": loss.item(), "grad_norm": norm.item()}


def _one_step(device: str) -> tuple[dict, dict]:
    ws = tx.Workspace()
    ws.run(CH0_RUN_ONE_STEP)
    ws["array"] = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    ws["labels"] = np.array([0, 1, 1, 0])
    ws.run(f"model = nn.Linear(3, 2)\nresult = run_one_step(model, array, labels, {device!r})")
    reference = torch.nn.Linear(3, 2)
    reference.load_state_dict({k: v.cpu() for k, v in ws["model"].state_dict().items()})
    return ws["result"], _run_one_step_direct(reference, ws["array"], ws["labels"])


def test_run_one_step_on_cpu_matches_torch() -> None:
    result, direct = _one_step("cpu")
    assert result["shape"] == (4, 2)
    assert result["dtype"] == "torch.float32"
    assert result["device"] == "cpu"
    assert result["loss"] == pytest.approx(direct["loss"], rel=1e-6)
    assert result["grad_norm"] == pytest.approx(direct["grad_norm"], rel=1e-6)


@pytest.mark.cuda
def test_run_one_step_on_cuda_same_shape_and_dtype() -> None:
    result, direct = _one_step("cuda")
    assert result["shape"] == (4, 2)
    assert result["dtype"] == "torch.float32"
    assert result["device"] == "cuda:0"
    assert result["loss"] == pytest.approx(direct["loss"], rel=1e-4)


def test_run_one_step_refuses_nan_features() -> None:
    ws = tx.Workspace()
    ws.run(CH0_RUN_ONE_STEP)
    ws["array"] = np.array([[np.nan, 1.0, 2.0]], dtype=np.float32)
    ws["labels"] = np.array([1])
    with pytest.raises(tx.ProgramError) as info:
        ws.run("model = nn.Linear(3, 2)\nresult = run_one_step(model, array, labels, 'cpu')")
    assert info.value.torch_message == "features contain NaN or Inf"
    assert "model" in ws  # the first statement kept its effect
    assert "result" not in ws


# --- chapter 002 tests -----------------------------------------------------------------------


def test_facts_line_prints_shape_dtype_device_requires_grad() -> None:
    ws = tx.Workspace()
    ws["x"] = torch.zeros(2, 3, requires_grad=True)
    ws.run(CH2_FACTS)
    assert ws.last_output == "torch.Size([2, 3]) torch.float32 cpu True\n"


def test_creation_sample_values() -> None:
    ws = tx.Workspace()
    torch.manual_seed(0)
    ws.run(CH2_CREATION)
    assert ws["a"].tolist() == [1.0, 2.0, 3.0] and ws["a"].dtype == torch.float32
    assert torch.equal(ws["b"], torch.zeros(2, 3))
    assert torch.equal(ws["c"], torch.ones(2, 3))
    assert ws["d"].shape == (2, 3) and bool(((ws["d"] >= 0) & (ws["d"] < 1)).all())
    assert ws["e"].shape == (2, 3)
    assert ws["f"].tolist() == [0, 2, 4, 6, 8] and ws["f"].dtype == torch.int64
    assert ws["g"].tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    torch.manual_seed(0)
    torch.rand((2, 3))
    assert torch.equal(ws["e"], torch.randn((2, 3)))


def test_shape_sample_results_match_the_comments() -> None:
    ws = tx.Workspace()
    ws.run(CH2_SHAPES)
    results = [r.result for r in ws.history if r.kind == "run" and r.result is not None]
    x = ws["x"]
    assert results[0] == "torch.Size([3, 4, 5])"
    assert results == [
        repr(v)
        for v in (
            x.shape,
            x.reshape(12, 5),
            x.view(12, 5),
            x.unsqueeze(0),
            x.squeeze(0),
            x.flatten(start_dim=1),
            x.permute(0, 2, 1),
        )
    ]
    ws.run("shapes = [tuple(x.unsqueeze(0).shape), tuple(x.squeeze(0).shape)]")
    assert ws["shapes"] == [(1, 3, 4, 5), (3, 4, 5)]


def test_view_fails_after_permute_and_reshape_works() -> None:
    ws = tx.Workspace()
    ws.run(CH2_SHAPES)
    with pytest.raises(tx.ProgramError) as info:
        ws.run("p = x.permute(0, 2, 1)\nv = p.view(12, 5)")
    assert info.value.kind == "view-non-contiguous"
    assert info.value.line == 2
    ws.run("r = p.reshape(12, 5)")
    assert torch.equal(ws["r"], ws["x"].permute(0, 2, 1).reshape(12, 5))


def test_broadcast_sample_gives_three_by_three() -> None:
    ws = tx.Workspace()
    ws.run(CH2_BROADCAST)
    assert ws["c"].tolist() == [[5, 6, 7], [6, 7, 8], [7, 8, 9]]


def test_device_sample_and_non_blocking() -> None:
    ws = tx.Workspace()
    ws.run("model = nn.Linear(3, 2)\nx = torch.randn(4, 3)\ny = torch.randn(4, 2)")
    ws.run(CH2_DEVICE)
    expected = "cuda:0" if torch.cuda.is_available() else "cpu"
    assert str(ws["x"].device) == expected
    assert str(ws["model"].weight.device) == expected
    ws.run(CH2_NON_BLOCKING)
    assert str(ws["x"].device) == expected


def test_minimal_autograd_prints_seven_nine() -> None:
    ws = tx.Workspace()
    ws.run(CH2_AUTOGRAD)
    assert ws.last_output == "tensor([7., 9.])\n"
    assert ws["x"].grad.tolist() == [7.0, 9.0]


def test_non_scalar_backward_with_ones_like() -> None:
    ws = tx.Workspace()
    ws.run("x = torch.tensor([2.0, 3.0], requires_grad=True)\ny = x**2 + 3 * x")
    with pytest.raises(tx.ProgramError) as info:
        ws.run("y.backward()")
    assert info.value.kind == "backward-non-scalar"
    ws.run(CH2_VJP)
    assert ws["x"].grad.tolist() == [7.0, 9.0]


def test_optimizer_step_sample_updates_parameters() -> None:
    ws = tx.Workspace()
    ws.run(
        "model = nn.Linear(2, 1)\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "loss = model(torch.ones(1, 2)).sum()"
    )
    before = ws["model"].weight.detach().clone()
    names = ws.run(CH2_STEP)
    # d(sum(w.x + b))/dw = x = 1, so SGD moves each weight by -0.1
    assert torch.allclose(ws["model"].weight.detach(), before - 0.1)
    assert "model" in names


def test_eval_and_inference_mode_sample() -> None:
    ws = tx.Workspace()
    ws.run("model = nn.Sequential(nn.Linear(3, 2), nn.Dropout(0.5))\nx = torch.randn(4, 3)")
    ws.run(CH2_EVAL)
    assert not ws["model"].training
    assert ws["logits"].is_inference()
    assert not ws["logits"].requires_grad
    assert ws.origin("logits").grad_mode == "inference_mode"
    assert ws.origin("logits").cut_off == "inference_mode"
    assert torch.allclose(ws["logits"], ws["model"](ws["x"]))


def test_detach_sample_and_the_failing_backward() -> None:
    ws = tx.Workspace()
    ws.run(CH2_DETACH)
    assert ws.last_output == "False\n"
    assert ws.origin("z").cut_off == "detach"
    with pytest.raises(tx.ProgramError) as info:
        ws.run(CH2_DETACH_BACKWARD)
    assert info.value.kind == "backward-no-grad"
    ws.run(CH2_NEW_GRAPH)
    assert ws["z"].requires_grad and ws["z"].is_leaf
    ws.run("(z * 3).backward()")
    assert ws["z"].grad.item() == 3.0
    assert ws["x"].grad is None  # the new graph does not reach the original x


def test_freeze_and_adamw_samples() -> None:
    ws = tx.Workspace()
    ws.run(
        "backbone = nn.Linear(4, 4)\nhead = nn.Linear(4, 2)\nmodel = nn.Sequential(backbone, head)"
    )
    ws.run(CH2_FREEZE)
    assert not any(p.requires_grad for p in ws["backbone"].parameters())
    ws.run(CH2_ADAMW)
    group = ws["optimizer"].param_groups[0]
    assert group["lr"] == 1e-3
    assert {id(p) for p in group["params"]} == {id(p) for p in ws["head"].parameters()}


def test_item_sample_accumulates_a_python_float() -> None:
    ws = tx.Workspace()
    ws.run("running_loss = 0.0\nbatch_size = 8\nloss = torch.tensor(0.5)")
    ws.run(CH2_ITEM)
    ws.run(CH2_ITEM)
    assert ws["running_loss"] == 8.0
    assert isinstance(ws["running_loss"], float)


def test_clip_sample_limits_the_gradient_norm() -> None:
    ws = tx.Workspace()
    ws.run(
        "model = nn.Linear(3, 1)\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.0)\n"
        "loss = (model(torch.full((1, 3), 100.0)) ** 2).sum()"
    )
    ws.run(CH2_CLIP)
    norm = torch.sqrt(sum(p.grad.square().sum() for p in ws["model"].parameters()))
    assert norm.item() == pytest.approx(1.0, rel=1e-5)
