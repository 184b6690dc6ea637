"""Explanations that are right (issue 13, point 4): the advice, applied, gives the right answer.

- ``F.cross_entropy`` with 1-D logits used to advise ``.float()`` on the target, which then runs
  and computes a wrong loss; a float target of probabilities was advised ``.long()``, which also
  runs and computes a wrong loss. Every piece of advice here is applied in the workspace and the
  loss compared with the value computed by hand from the definition (log-softmax).
- An in-place write to an inference tensor was explained as "a computation autograd records".
- "Values on this line" listed a name the failing statement only assigns, with the old value an
  earlier run had bound to it.

Each case runs in the full-Python workspace and in the restricted one, in English and Chinese.
"""

from __future__ import annotations

import math

import pytest
import torch

import tensor_explorer as tx
from tensor_explorer.core.explain import explain
from tensor_explorer.core.runner import ProgramError

MODES = pytest.mark.parametrize("restricted", [False, True], ids=["full", "restricted"])

#: the old explanation of a cross-entropy target that is not floating point (kind not-floating)
OLD_FLOAT_EN = "convert with .float()"
OLD_FLOAT_ZH = "或者用 .float() 转换"
#: the old explanation of an in-place write to an inference tensor
OLD_INFERENCE_EN = "is used in a computation that autograd records"
OLD_INFERENCE_ZH = "被用在了 autograd 要记录的计算里"


def _error(ws: tx.Workspace, source: str) -> ProgramError:
    with pytest.raises(ProgramError) as info:
        ws.run(source)
    return info.value


def _texts(err: ProgramError) -> tuple[str, str]:
    en, zh = err.explanation_in("en"), err.explanation_in("zh")
    assert en and zh and en != zh
    assert err.text("zh").count(zh) == 1 and zh in err.text("zh")
    return en, zh


def _log_softmax(row: list[float]) -> list[float]:
    """log softmax of one row of logits, from the definition: z_c - log(sum_k exp(z_k))."""
    log_sum = math.log(sum(math.exp(z) for z in row))
    return [z - log_sum for z in row]


def _by_hand(logits: list[list[float]], labels: list[int]) -> torch.Tensor:
    """Mean cross-entropy of class-index labels: the mean of -log_softmax(z_i)[y_i]."""
    losses = [-_log_softmax(row)[k] for row, k in zip(logits, labels, strict=True)]
    return torch.tensor(sum(losses) / len(losses))


def _by_hand_soft(logits: list[list[float]], probs: list[list[float]]) -> torch.Tensor:
    """Mean cross-entropy of class probabilities: the mean of -sum_c q_ic log_softmax(z_i)_c."""
    losses = [
        -sum(q * lp for q, lp in zip(qs, _log_softmax(row), strict=True))
        for row, qs in zip(logits, probs, strict=True)
    ]
    return torch.tensor(sum(losses) / len(losses))


def _close(a: object, b: torch.Tensor) -> bool:
    assert isinstance(a, torch.Tensor)
    return torch.allclose(a.double(), b.double(), atol=1e-6)


# --- cross-entropy with 1-D logits ------------------------------------------------------------

SCORES = [0.3, -1.2, 2.0, 0.5]  # one score per sample (a yes/no model), 4 samples
LABELS = [0, 1, 1, 0]


@MODES
def test_one_score_per_sample_with_class_labels(restricted: bool) -> None:
    # the case of the issue: 1-D logits, a long target as long as the logits
    ws = tx.Workspace(restricted=restricted)
    ws.run(f"logits = torch.tensor({SCORES})\ntarget = torch.tensor({LABELS})")
    err = _error(ws, "loss = F.cross_entropy(logits, target)")
    assert "for target with class probabilities" in err.torch_message
    assert err.kind == "cross-entropy-target-shape"
    en, zh = _texts(err)
    # the right fix: logits must be (batch, classes); with one score per sample, the binary loss
    assert "logits is 1-D, shape (4,)" in en and "Logits must be (batch, classes)" in en
    assert "logits.unsqueeze(0)" in en and "logits.unsqueeze(0)" in zh
    assert "(4, 2)" in en and "(4, 2)" in zh
    assert "F.binary_cross_entropy_with_logits(logits, target.float())" in en
    assert "F.binary_cross_entropy_with_logits(logits, target.float())" in zh
    assert "logits 的形状必须是 (batch, classes)" in zh
    # and not the old one: .float() on the target is named as the wrong fix
    assert OLD_FLOAT_EN not in en and OLD_FLOAT_ZH not in zh
    assert "Do not convert target with .float()" in en and "gives a wrong loss" in en
    assert "不要用 .float() 转换 target" in zh and "算出的 loss 却是错的" in zh

    # by hand: one score z per sample is the two-class logits (0, z)
    expected = _by_hand([[0.0, z] for z in SCORES], LABELS)
    ws.run("fixed = F.binary_cross_entropy_with_logits(logits, target.float())")
    assert _close(ws["fixed"], expected)
    ws.run("two = torch.stack([torch.zeros(4), logits], dim=1)\n"
           "fixed2 = F.cross_entropy(two, target)")  # fmt: skip
    assert ws["two"].shape == (4, 2) and _close(ws["fixed2"], expected)
    # the old advice runs, and its loss is wrong
    ws.run("old = F.cross_entropy(logits, target.float())")
    assert not _close(ws["old"], expected)


@MODES
def test_one_dimensional_logits_and_more_labels_than_one_sample(restricted: bool) -> None:
    ws = tx.Workspace(restricted=restricted)
    ws.run("logits = torch.randn(3)\ntarget = torch.tensor([1, 2, 0])")
    err = _error(ws, "loss = F.cross_entropy(logits, target)")
    assert err.kind == "cross-entropy-target-shape"
    en, zh = _texts(err)
    assert "(3, classes)" in en and "(3, classes)" in zh
    assert "Do not convert target with .float()" in en and "不要用 .float() 转换 target" in zh
    assert "binary_cross_entropy" not in en  # labels 0..2 are not yes/no labels

    # torch's other message for it: a target length other than the number of scores
    ws.run("labels = torch.tensor([1, 0])")
    err = _error(ws, "loss = F.cross_entropy(logits, labels)")
    assert "For 1D input, 1D target must have size 1" in err.torch_message
    assert err.kind == "cross-entropy-target-shape"  # was "error", with no explanation
    en, zh = _texts(err)
    assert "labels holds 2 labels" in en and "(2, classes)" in en
    assert "labels 有 2 个标签" in zh and "(2, classes)" in zh


ONE = [2.0, 0.5, -1.0]  # one sample, three classes


@MODES
@pytest.mark.parametrize("label", ["torch.tensor(2.0)", "torch.tensor([2.0])",
                                   "torch.tensor(2, dtype=torch.int32)"])  # fmt: skip
def test_one_sample_gets_a_batch_dimension(restricted: bool, label: str) -> None:
    ws = tx.Workspace(restricted=restricted)
    ws.run(f"scores = torch.tensor({ONE})\nclass_id = {label}")  # the learner's own names
    err = _error(ws, "loss = F.cross_entropy(scores, class_id)")
    assert "expected target dtype to be Long" in err.torch_message
    assert err.kind == "cross-entropy-target-shape"
    en, zh = _texts(err)
    advice = "F.cross_entropy(scores.unsqueeze(0), class_id.reshape(1).long())"
    assert advice in en and advice in zh
    assert "(batch, classes)" in en and "(batch, classes)" in zh
    assert "加上 batch 维" in zh
    ws.run(f"fixed = {advice}")
    assert _close(ws["fixed"], _by_hand([ONE], [2]))


# --- cross-entropy with logits (batch, classes) -----------------------------------------------

BATCH = [[1.0, -0.5, 0.2], [0.1, 0.4, -1.3], [2.2, 0.0, -0.7], [-0.3, 1.1, 0.6]]


@MODES
def test_float_class_indices_are_made_long(restricted: bool) -> None:
    ws = tx.Workspace(restricted=restricted)
    ws.run(f"logits = torch.tensor({BATCH})\ntarget = torch.tensor([1.0, 2.0, 0.0, 1.0])")
    err = _error(ws, "loss = F.cross_entropy(logits, target)")
    assert err.kind == "cross-entropy-target-dtype"
    en, zh = _texts(err)
    assert "convert with target.long()" in en and "请用 target.long() 转换" in zh
    assert "whole numbers from 0 to 2" in en and "0 到 2 之间的整数" in zh
    assert "torch.long" in en and "torch.long" in zh
    ws.run("fixed = F.cross_entropy(logits, target.long())")
    assert _close(ws["fixed"], _by_hand(BATCH, [1, 2, 0, 1]))


TWO = [[0.5, -0.2], [1.5, 0.3], [-0.4, 0.9], [0.0, 2.0]]
P1 = [0.2, 0.9, 0.5, 0.0]  # the probability of class 1, one per sample


@MODES
def test_probabilities_are_not_made_long(restricted: bool) -> None:
    ws = tx.Workspace(restricted=restricted)
    ws.run(f"logits = torch.tensor({TWO})\np = torch.tensor({P1})")
    err = _error(ws, "loss = F.cross_entropy(logits, p)")
    assert "expected target dtype to be Long" in err.torch_message
    assert err.kind == "cross-entropy-target-dtype"
    en, zh = _texts(err)
    # not the old advice (.long()): it is named as what would give a wrong loss
    assert "convert with p.long()" not in en and "labels.long()" not in en
    assert "请用 p.long() 转换" not in zh and "labels.long()" not in zh
    assert "p.long() would cut them to wrong classes (0.2 becomes 0)" in en
    assert "p.long() 会把它们截成错误的类别（0.2 变成 0）" in zh
    # the right fix: probabilities of the logits' shape
    fix = "torch.stack([1 - p, p], dim=1)"
    assert fix in en and fix in zh
    assert "the same shape as the logits (4, 2)" in en and "logits 的 (4, 2) 相同" in zh

    expected = _by_hand_soft(TWO, [[1 - q, q] for q in P1])
    ws.run(f"fixed = F.cross_entropy(logits, {fix})")
    assert _close(ws["fixed"], expected)
    ws.run("old = F.cross_entropy(logits, p.long())")  # the old advice runs: a wrong loss
    assert not _close(ws["old"], expected)


@MODES
def test_one_hot_rows_become_class_indices(restricted: bool) -> None:
    ws = tx.Workspace(restricted=restricted)
    ws.run(f"logits = torch.tensor({BATCH})\n"
           "onehot = torch.tensor([[0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]])")  # fmt: skip
    err = _error(ws, "loss = F.cross_entropy(logits, onehot)")
    assert "for target with class probabilities, got Long" in err.torch_message
    assert err.kind == "cross-entropy-target-dtype"
    en, zh = _texts(err)
    assert "onehot.argmax(dim=1)" in en and "onehot.argmax(dim=1)" in zh
    assert OLD_FLOAT_EN not in en and OLD_FLOAT_ZH not in zh
    expected = _by_hand(BATCH, [1, 2, 0, 1])
    ws.run("fixed = F.cross_entropy(logits, onehot.argmax(dim=1))\n"
           "same = F.cross_entropy(logits, onehot.float())")  # fmt: skip
    assert _close(ws["fixed"], expected) and _close(ws["same"], expected)


@MODES
def test_a_column_of_labels_is_squeezed(restricted: bool) -> None:
    ws = tx.Workspace(restricted=restricted)
    ws.run(f"logits = torch.tensor({BATCH})\ny = torch.tensor([[1.0], [2.0], [0.0], [1.0]])")
    err = _error(ws, "loss = F.cross_entropy(logits, y)")
    assert err.kind == "cross-entropy-target-shape"
    en, zh = _texts(err)
    assert "Remove the column: y.squeeze(1).long()" in en and "y.squeeze(1).long()" in zh
    ws.run("fixed = F.cross_entropy(logits, y.squeeze(1).long())")
    assert _close(ws["fixed"], _by_hand(BATCH, [1, 2, 0, 1]))


@MODES
def test_labels_counted_from_one(restricted: bool) -> None:
    ws = tx.Workspace(restricted=restricted)
    ws.run(f"logits = torch.tensor({BATCH})\ny = torch.tensor([2.0, 3.0, 1.0, 2.0])")
    err = _error(ws, "loss = F.cross_entropy(logits, y)")
    assert err.kind == "cross-entropy-target-dtype"
    en, zh = _texts(err)
    assert "convert with y.long()" not in en  # y.long() would fail: label 3 of 3 classes
    assert "(y - 1).long()" in en and "(y - 1).long()" in zh
    ws.run("fixed = F.cross_entropy(logits, (y - 1).long())")
    assert _close(ws["fixed"], _by_hand(BATCH, [1, 2, 0, 1]))


def test_the_message_alone_gives_no_wrong_fix() -> None:
    # without the values (an exception with no traceback) the words stay true in every case
    why = explain(RuntimeError("Expected floating point type for target with class "
                               "probabilities, got Long"))  # fmt: skip
    assert why is not None and why.kind == "cross-entropy-target-shape"
    assert "logits.unsqueeze(0)" in why.text and "logits.unsqueeze(0)" in why.text_zh
    assert "only if it really holds probabilities" in why.text
    assert "只有 target 确实是概率" in why.text_zh
    why = explain(ValueError("For 1D input, 1D target must have size 1, but got target size: 2"))
    assert why is not None and why.kind == "cross-entropy-target-shape"
    assert "logits.unsqueeze(0)" in why.text and "logits.unsqueeze(0)" in why.text_zh
    why = explain(RuntimeError("expected target dtype to be Long or Byte, but got Float"))
    assert why is not None and why.kind == "cross-entropy-target-dtype"
    assert "If they are class indices" in why.text and "If they are probabilities" in why.text
    assert "如果它们是类别索引" in why.text_zh and "如果它们是概率" in why.text_zh


# --- in-place writes to an inference tensor ---------------------------------------------------


@MODES
@pytest.mark.parametrize("write", ["cache.add_(1)", "cache[0] = 5", "cache += 1"])
def test_in_place_write_to_an_inference_tensor(restricted: bool, write: str) -> None:
    ws = tx.Workspace(restricted=restricted)
    ws.run("with torch.inference_mode():\n    cache = torch.ones(3)")
    err = _error(ws, write)
    assert "Inplace update to inference tensor outside InferenceMode" in err.torch_message
    assert err.kind == "inference-tensor"
    en, zh = _texts(err)
    assert OLD_INFERENCE_EN not in en and OLD_INFERENCE_ZH not in zh
    assert "can never be changed in place outside inference mode" in en
    assert "在 inference_mode 之外永远不能被原地修改" in zh
    assert "cache = cache.clone()" in en and "cache = cache.clone()" in zh
    assert "with torch.inference_mode():" in en and "with torch.inference_mode():" in zh
    assert torch.equal(ws["cache"], torch.ones(3))  # the failing write was rolled back
    # both fixes work: write inside inference_mode, or change a normal copy
    ws.run(f"with torch.inference_mode():\n    {write}")
    assert ws["cache"].is_inference() and ws["cache"].sum().item() != 3.0
    ws.run(f"cache = cache.clone()\n{write}")
    assert not ws["cache"].is_inference()


@MODES
def test_requires_grad_on_an_inference_tensor(restricted: bool) -> None:
    ws = tx.Workspace(restricted=restricted)
    ws.run("with torch.inference_mode():\n    w = torch.ones(3)")
    err = _error(ws, "w.requires_grad_()")
    assert err.kind == "inference-tensor"
    en, zh = _texts(err)
    assert "can never require grad" in en and "永远不能需要梯度" in zh
    assert "w = w.clone().requires_grad_()" in en and "w = w.clone().requires_grad_()" in zh
    ws.run("w = w.clone().requires_grad_()\nloss = (w * w).sum()\nloss.backward()")
    assert torch.equal(ws["w"].grad, torch.full((3,), 2.0))


@MODES
def test_inference_tensor_saved_for_backward_keeps_its_explanation(restricted: bool) -> None:
    ws = tx.Workspace(restricted=restricted)
    ws.run("with torch.inference_mode():\n    x = torch.ones(2)\n"
           "w = torch.ones(2, requires_grad=True)")  # fmt: skip
    err = _error(ws, "(w * x).sum().backward()")
    assert err.kind == "inference-tensor"
    en, zh = _texts(err)
    assert OLD_INFERENCE_EN in en and "no_grad" in zh


# --- values on this line ------------------------------------------------------------------------


@MODES
def test_a_name_the_failing_line_only_assigns_is_not_listed(restricted: bool) -> None:
    ws = tx.Workspace(restricted=restricted)
    ws.run("y = torch.ones(2)")
    err = _error(ws, "y = torch.ones(3) @ torch.ones(2)")
    assert err.kind == "matmul-shape"
    assert "y" not in dict(err.operands)
    for lang in ("en", "zh"):
        assert "y: tensor" not in err.text(lang)
    assert torch.equal(ws["y"], torch.ones(2))  # the earlier value is kept


@MODES
def test_names_the_line_reads_are_listed_with_their_current_values(restricted: bool) -> None:
    ws = tx.Workspace(restricted=restricted)
    ws.run("y = torch.ones(2)\nw = torch.ones(3, 4)")
    for source in ("y = y @ w", "y += w"):
        ops = dict(_error(ws, source).operands)
        assert ops == {"y": "tensor (2,) float32 cpu", "w": "tensor (3, 4) float32 cpu"}
    # y read on the line after the program bound it anew: its value then, not the earlier one
    err = _error(ws, "y = torch.ones(5)\nz = y @ w")
    assert err.line == 2 and err.operands == [("y", "tensor (5,) float32 cpu"),
                                              ("w", "tensor (3, 4) float32 cpu")]  # fmt: skip
    assert "  y: tensor (5,) float32 cpu" in err.text("zh")
    # two statements on one line: the failing one's names only
    err = _error(ws, "z = torch.ones(7); y = z @ torch.ones(2)")
    assert err.operands == [("z", "tensor (7,) float32 cpu")]
    # a loop variable, and a comprehension's: the value when the error happened
    err = _error(ws, "for x in [torch.ones(3), torch.ones(2)]:\n    v = x @ w")
    assert ("x", "tensor (2,) float32 cpu") in err.operands and "v" not in dict(err.operands)
    ws.run("x = torch.ones(9)")
    err = _error(ws, "vs = [x @ w for x in [torch.ones(3), torch.ones(6)]]")
    assert ("x", "tensor (6,) float32 cpu") in err.operands and "vs" not in dict(err.operands)
    # in a function: its locals; a local the line only assigns is not listed
    err = _error(ws, "def f(a):\n    y = a @ w\n    return y\nr = f(torch.ones(8))")
    assert err.line == 2 and err.operands == [("a", "tensor (8,) float32 cpu"),
                                              ("w", "tensor (3, 4) float32 cpu")]  # fmt: skip


@MODES
def test_explanations_name_the_values_the_line_reads(restricted: bool) -> None:
    # the cross-entropy advice names the learner's tensors, found among the values read
    ws = tx.Workspace(restricted=restricted)
    ws.run("out = torch.randn(3)\nys = torch.tensor([1, 2, 0])")
    err = _error(ws, "loss = nn.CrossEntropyLoss()(out, ys)")
    assert err.kind == "cross-entropy-target-shape"
    assert "out is 1-D, shape (3,)" in err.explanation
    assert "Do not convert ys with .float()" in err.explanation
    assert dict(err.operands) == {"out": "tensor (3,) float32 cpu", "ys": "tensor (3,) int64 cpu"}


def test_the_device_mismatch_explanation_says_what_to_returns() -> None:
    # issue #18: Tensor.to returns the same tensor when nothing changes; Module.to is in place
    x = torch.zeros(2)
    assert x.to("cpu") is x
    net = torch.nn.Linear(2, 2)
    assert net.to("meta") is net and net.weight.device.type == "meta"
    from tensor_explorer.core.explain import explain

    model = torch.nn.Linear(3, 2).to("meta")  # the same cause as cpu vs cuda, on any machine
    with pytest.raises(RuntimeError) as info:
        model(torch.zeros(4, 3))
    e = explain(info.value)
    assert e is not None and e.kind == "device-mismatch"
    assert "the same tensor when it is already there" in e.text_in("en")
    assert "Module.to() moves the module itself" in e.text_in("en")
    assert "本来就在那里时返回原张量" in e.text_in("zh")
