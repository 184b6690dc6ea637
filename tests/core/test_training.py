"""core/training: the seed's inspect_batch / run_one_step checks, each failing for the reason
the seed names, and the step's loss and gradient norms against torch computed by hand."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
import torch
from torch import nn

from tensor_explorer.core.training import inspect_batch, run_one_step


def seed_batch(device: str = "cpu") -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    """The seed's example one: features (2, 3) float32, labels (2,) long, Linear(3, 2)."""
    torch.manual_seed(0)
    features = torch.tensor(
        [[0.2, 10.0, 0.4], [0.9, 30.0, 1.2]], dtype=torch.float32, device=device
    )
    labels = torch.tensor([0, 1], dtype=torch.long, device=device)
    return nn.Linear(3, 2).to(device), features, labels


def test_seed_batch_passes_every_check() -> None:
    model, features, labels = seed_batch()
    report = inspect_batch(model, features, labels)
    assert report.ok and report.failed == []
    assert all(c.passed is True and c.message for c in report.checks)
    names = [c.name for c in report.checks]
    for expected in (
        "same_device",
        "features_2d",
        "labels_1d",
        "batch_size",
        "features_float",
        "labels_long",
        "logits_finite",
        "logits_shape",
        "labels_in_range",
    ):
        assert expected in names
    assert report.logits is not None and report.logits.shape == (2, 2)
    torch.testing.assert_close(report.logits, model(features))


@pytest.mark.parametrize(
    ("change", "failing", "words"),
    [
        (lambda m, f, lab: (m, f.long(), lab), "features_float", "float32"),
        (lambda m, f, lab: (m, f, lab.float()), "labels_long", "torch.long"),
        (lambda m, f, lab: (m, f[0], lab), "features_2d", "(batch, features)"),
        (lambda m, f, lab: (m, f, lab[:, None]), "labels_1d", "(batch,)"),
        (lambda m, f, lab: (m, f, lab[:1]), "batch_size", "2 rows"),
        (lambda m, f, lab: (m, f, torch.tensor([0, 2])), "labels_in_range", "[0, 2)"),
        (lambda m, f, lab: (m, f, torch.tensor([-1, 1])), "labels_in_range", "-1"),
        (
            lambda m, f, lab: (m, f.to("meta"), lab),
            "same_device",
            "same device",
        ),
        (
            lambda m, f, lab: (nn.Sequential(m, nn.Flatten(0)), f, lab),
            "logits_shape",
            "(batch, classes)",
        ),
        (
            lambda m, f, lab: (m, torch.where(f > 5, torch.nan, f), lab),
            "features_finite",
            "NaN",
        ),
        (lambda m, f, lab: (nn.ReLU(), f, lab), "model_parameters", "no parameters"),
        (lambda m, f, lab: (m, f.numpy(), lab), "features_tensor", "as_tensor"),
    ],
    ids=[
        "int-features",
        "float-labels",
        "single-sample",
        "2d-labels",
        "batch-mismatch",
        "label-too-big",
        "label-negative",
        "device-mismatch",
        "logits-flat",
        "nan-features",
        "no-parameters",
        "numpy-features",
    ],
)
def test_each_contract_violation_fails_its_check(change, failing, words) -> None:  # type: ignore[no-untyped-def]
    model, features, labels = seed_batch()
    report = inspect_batch(*change(model, features, labels))
    assert not report.ok
    check = report.check(failing)
    assert check.passed is False
    assert words in check.message
    # checks that had nothing to do with the change still pass
    if failing not in ("features_tensor", "model_parameters", "same_device"):
        assert report.check("same_device").passed is True


def test_logits_non_finite_is_reported() -> None:
    model, features, labels = seed_batch()
    with torch.no_grad():
        model.weight[0, 0] = math.inf
    report = inspect_batch(model, features, labels)
    assert report.check("logits_finite").passed is False
    assert "NaN or Inf" in report.check("logits_finite").message


def test_checks_that_cannot_run_are_skipped_not_failed() -> None:
    model, features, labels = seed_batch()
    report = inspect_batch(model, features.long(), labels)
    assert report.check("forward").passed is None
    assert report.check("logits_shape").passed is None
    assert report.logits is None
    assert [c.name for c in report.failed] == ["features_float"]


def test_a_failing_model_is_reported_with_its_error() -> None:
    _, features, labels = seed_batch()
    report = inspect_batch(nn.Linear(4, 2), features, labels)  # wrong number of inputs
    assert report.check("forward").passed is False
    assert "RuntimeError" in report.check("forward").message


def test_run_one_step_matches_torch_by_hand() -> None:
    model, features, labels = seed_batch()
    ref = copy.deepcopy(model)
    array = features.numpy().astype(np.float64)  # NumPy float64 in, as in the exercise
    result = run_one_step(model, array, labels.numpy(), device="cpu")
    assert result.ok and result.failed == []
    assert result.logits_shape == (2, 2)
    assert result.logits_dtype == "torch.float32" and result.logits_device == "cpu"
    assert "features: float64 converted to torch.float32." in result.conversions

    ref.zero_grad(set_to_none=True)
    loss = nn.functional.cross_entropy(ref(features), labels)
    loss.backward()
    assert result.loss == pytest.approx(float(loss.detach()))
    for (name, p), (_, q) in zip(model.named_parameters(), ref.named_parameters(), strict=True):
        torch.testing.assert_close(p.grad, q.grad)
        assert result.grad_norms[name] == pytest.approx(float(q.grad.norm()), rel=1e-6)
    seed_norm = torch.sqrt(sum(p.grad.detach().square().sum() for p in ref.parameters()))
    assert result.grad_norm == pytest.approx(float(seed_norm), rel=1e-6)
    assert not result.stepped
    torch.testing.assert_close(model.weight, ref.weight)  # no optimizer: no update


def test_run_one_step_with_an_optimizer_updates_parameters() -> None:
    model, features, labels = seed_batch()
    before = model.weight.detach().clone()
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    result = run_one_step(model, features, labels, optimizer=opt)
    assert result.ok and result.stepped
    torch.testing.assert_close(model.weight.detach(), before - 0.5 * model.weight.grad)


def test_run_one_step_frozen_parameter_has_no_gradient_norm() -> None:
    model, features, labels = seed_batch()
    model.bias.requires_grad_(False)
    result = run_one_step(model, features, labels)
    assert result.ok
    assert result.grad_norms["bias"] is None and result.grad_norms["weight"] is not None


@pytest.mark.parametrize(
    ("features", "labels", "failing"),
    [
        (np.ones((2, 4), dtype=np.float32), [0, 1], "forward"),  # wrong number of columns
        (np.array([[np.nan, 1, 2], [3, 4, 5]], dtype=np.float32), [0, 1], "features_finite"),
        (np.ones((2, 3), dtype=np.float32), [0.0, 0.5], "labels_integral"),
        (np.ones((2, 3), dtype=np.float32), [0, 1, 1], "batch_size"),
    ],
    ids=["columns", "nan", "fractional-labels", "batch"],
)
def test_run_one_step_stops_at_the_input_boundary(features, labels, failing) -> None:  # type: ignore[no-untyped-def]
    model, _, _ = seed_batch()
    result = run_one_step(model, features, labels)
    assert not result.ok and result.loss is None
    assert failing in [c.name for c in result.failed]
    assert all(p.grad is None for p in model.parameters())  # no backward ran


def test_run_one_step_whole_float_labels_are_converted() -> None:
    model, features, _ = seed_batch()
    result = run_one_step(model, features, np.array([0.0, 1.0]))
    assert result.ok and result.loss is not None


@pytest.mark.cuda
def test_run_one_step_on_cuda_matches_cpu() -> None:
    model, features, labels = seed_batch()
    cpu = run_one_step(copy.deepcopy(model), features, labels, device="cpu")
    gpu = run_one_step(copy.deepcopy(model), features.numpy(), labels.numpy(), device="cuda")
    assert gpu.ok and gpu.logits_device.startswith("cuda")
    assert gpu.logits_shape == cpu.logits_shape and gpu.logits_dtype == cpu.logits_dtype
    assert gpu.loss == pytest.approx(cpu.loss, rel=1e-5)


@pytest.mark.cuda
def test_inspect_batch_device_mismatch_on_cuda() -> None:
    model, features, labels = seed_batch("cuda")
    report = inspect_batch(model, features.cpu(), labels)
    assert report.check("same_device").passed is False
    assert "cuda" in report.check("same_device").message
