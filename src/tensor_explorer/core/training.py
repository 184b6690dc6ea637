"""The seed's training-step check: ``inspect_batch`` (contract checks on features, labels and a
model) and ``run_one_step`` (convert, check, forward, cross-entropy, backward, optional optimizer
step), reported as plain data instead of exceptions so the graph pane can list every check.

Each :class:`Check` has a stable ``name`` (a key for translations), ``passed`` (``True``,
``False``, or ``None`` when it could not run because an earlier check failed) and a plain-words
``message``. The checks follow the seed chapter (``inspect_batch`` / ``run_one_step``):

=================  ==========================================================================
name               passes when
=================  ==========================================================================
features_tensor    features is a torch.Tensor (``inspect_batch`` only; ``run_one_step``
                   converts with ``torch.as_tensor`` as the seed does)
labels_tensor      labels is a torch.Tensor (``inspect_batch`` only)
labels_integral    labels hold whole numbers, so converting them to long loses nothing
                   (``run_one_step`` only)
model_parameters   the model has parameters (their device is the model's device)
same_device        features, labels and the model's parameters are on one device
features_2d        features are (batch, features)
labels_1d          labels are (batch,)
batch_size         features and labels have the same batch size
features_float     features are float32 or float64
labels_long        labels are torch.long (what cross-entropy expects for class indices)
features_finite    features contain no NaN or Inf
forward            ``model(features)`` runs
logits_finite      the logits contain no NaN or Inf
logits_shape       logits are (batch, classes)
labels_in_range    every label is in [0, classes)
loss_finite        the cross-entropy loss is finite (``run_one_step`` only)
=================  ==========================================================================
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

__all__ = ["BatchReport", "Check", "StepResult", "inspect_batch", "run_one_step"]

_FLOATS = (torch.float32, torch.float64)


@dataclass(frozen=True)
class Check:
    """One contract check: ``passed`` is None when it was not run (an earlier one failed)."""

    name: str
    passed: bool | None
    message: str


@dataclass(frozen=True)
class BatchReport:
    """Result of :func:`inspect_batch`: every check, and the logits when the model ran."""

    checks: list[Check]
    logits: torch.Tensor | None = None

    @property
    def ok(self) -> bool:
        """True when every check passed."""
        return all(c.passed for c in self.checks)

    @property
    def failed(self) -> list[Check]:
        """The checks that failed (not those that were skipped)."""
        return [c for c in self.checks if c.passed is False]

    def check(self, name: str) -> Check:
        """The check with this name."""
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(name)


def _shape(t: torch.Tensor) -> str:
    return str(tuple(t.shape))


class _Checker:
    """Accumulates checks; ``need(*names)`` says whether the named ones all passed."""

    def __init__(self) -> None:
        self.checks: list[Check] = []
        self._passed: dict[str, bool | None] = {}

    def add(self, name: str, passed: bool | None, message: str) -> bool:
        self.checks.append(Check(name, passed, message))
        self._passed[name] = passed
        return bool(passed)

    def need(self, *names: str) -> bool:
        return all(self._passed.get(n) for n in names)

    def skip(self, name: str, because: str) -> None:
        self.add(name, None, f"Not checked: {because}.")


def _model_device(model: nn.Module) -> torch.device | None:
    for p in model.parameters():
        return p.device
    return None


def _contract_checks(
    c: _Checker, model: nn.Module, features: torch.Tensor, labels: torch.Tensor
) -> torch.Tensor | None:
    """The seed's checks on tensors; runs the model when they allow. Returns the logits."""
    device = _model_device(model)
    if device is None:
        c.add(
            "model_parameters",
            False,
            "The model has no parameters, so there is nothing to train and no device to "
            "compare the batch with.",
        )
    else:
        c.add("model_parameters", True, f"The model's parameters are on {device}.")
    devices = {str(features.device), str(labels.device)}
    if device is not None:
        devices.add(str(device))
    if len(devices) == 1:
        c.add("same_device", True, f"Features, labels and model are all on {devices.pop()}.")
    else:
        c.add(
            "same_device",
            False,
            f"Features are on {features.device}, labels on {labels.device}"
            + (f", the model on {device}" if device is not None else "")
            + ". They must share one device: move the batch with .to(device) at the batch "
            "boundary (Expected all tensors to be on the same device).",
        )
    if features.ndim == 2:
        c.add("features_2d", True, f"Features are (batch, features) = {_shape(features)}.")
    else:
        c.add(
            "features_2d",
            False,
            f"Features have shape {_shape(features)}; expected (batch, features). A single "
            "sample needs a batch axis too: unsqueeze(0).",
        )
    if labels.ndim == 1:
        c.add("labels_1d", True, f"Labels are (batch,) = {_shape(labels)}.")
    else:
        c.add(
            "labels_1d",
            False,
            f"Labels have shape {_shape(labels)}; expected (batch,): one class index per sample.",
        )
    if c.need("features_2d", "labels_1d"):
        if features.shape[0] == labels.shape[0]:
            c.add("batch_size", True, f"Features and labels both have {labels.shape[0]} rows.")
        else:
            c.add(
                "batch_size",
                False,
                f"Features have {features.shape[0]} rows but labels have {labels.shape[0]}; "
                "each sample needs exactly one label.",
            )
    else:
        c.skip("batch_size", "features or labels have the wrong number of axes")
    if features.dtype in _FLOATS:
        c.add("features_float", True, f"Features are {features.dtype}.")
    else:
        c.add(
            "features_float",
            False,
            f"Features are {features.dtype}; the model computes in float32 (or float64). "
            "Integer features usually come from a list of whole numbers: create them with "
            "dtype=torch.float32 (Expected floating point type).",
        )
    if labels.dtype == torch.long:
        c.add("labels_long", True, "Labels are torch.long class indices.")
    else:
        c.add(
            "labels_long",
            False,
            f"Labels are {labels.dtype}; CrossEntropyLoss expects class indices as torch.long. "
            "Use labels.long() (or dtype=torch.long when creating them).",
        )
    if features.device.type == "meta":
        c.skip("features_finite", "tensors on the meta device have no values")
    elif features.dtype.is_floating_point or features.dtype.is_complex:
        bad = int((~torch.isfinite(features)).sum())
        if bad == 0:
            c.add("features_finite", True, "Features contain no NaN or Inf.")
        else:
            c.add(
                "features_finite",
                False,
                f"Features contain {bad} NaN or Inf value(s); the model would spread them "
                "into the logits and the loss.",
            )
    else:
        c.add("features_finite", True, "Integer features are always finite.")

    logits: torch.Tensor | None = None
    if c.need("model_parameters", "same_device", "features_2d", "features_float"):
        try:
            out = model(features)
        except Exception as exc:  # the model is user code: report whatever it raises
            c.add("forward", False, f"model(features) failed: {type(exc).__name__}: {exc}")
        else:
            if isinstance(out, torch.Tensor):
                logits = out
                c.add("forward", True, f"model(features) returned {_shape(out)} {out.dtype}.")
            else:
                c.add(
                    "forward",
                    False,
                    f"model(features) returned {type(out).__name__}, not a tensor of logits.",
                )
    else:
        c.skip("forward", "the model cannot run on this batch (see the failed checks above)")

    if logits is None:
        for name in ("logits_finite", "logits_shape", "labels_in_range"):
            c.skip(name, "the model did not produce logits")
        return None
    with torch.no_grad():
        bad = int((~torch.isfinite(logits)).sum()) if logits.is_floating_point() else 0
    if bad == 0:
        c.add("logits_finite", True, "The logits are finite.")
    else:
        c.add(
            "logits_finite",
            False,
            f"The model produced {bad} NaN or Inf logit(s): check the input range, the "
            "weights and divisions by zero.",
        )
    if logits.ndim == 2 and features.ndim >= 1 and logits.shape[0] == features.shape[0]:
        c.add(
            "logits_shape",
            True,
            f"Logits are (batch, classes) = {_shape(logits)}: {logits.shape[1]} classes.",
        )
    else:
        c.add(
            "logits_shape",
            False,
            f"Logits have shape {_shape(logits)}; expected (batch, classes) = "
            f"({features.shape[0] if features.ndim else '?'}, classes). If it is (batch,), the "
            "model head or the loss contract is wrong: training should not go on.",
        )
    if c.need("logits_shape", "labels_1d", "labels_long", "same_device") and labels.numel():
        classes = logits.shape[1]
        lo, hi = int(labels.min()), int(labels.max())
        if lo >= 0 and hi < classes:
            c.add("labels_in_range", True, f"Every label is in [0, {classes}).")
        else:
            c.add(
                "labels_in_range",
                False,
                f"Labels range from {lo} to {hi}, but the logits have {classes} classes: "
                f"each label must be in [0, {classes}).",
            )
    elif labels.numel() == 0:
        c.add("labels_in_range", True, "There are no labels to check (empty batch).")
    else:
        c.skip("labels_in_range", "labels or logits have the wrong shape, dtype or device")
    return logits


def inspect_batch(model: nn.Module, features: Any, labels: Any) -> BatchReport:
    """Run the seed's batch contract checks on ``features``, ``labels`` and ``model``.

    Unlike the seed's version, it never raises on a bad batch: every check is reported, and
    the model runs (``model(features)``, gradients enabled, as in the seed) only when the
    checks it depends on passed. The logits are returned when it ran.
    """
    c = _Checker()
    ok_f = isinstance(features, torch.Tensor)
    ok_l = isinstance(labels, torch.Tensor)
    c.add(
        "features_tensor",
        ok_f,
        "Features are a torch.Tensor."
        if ok_f
        else f"Features are a {type(features).__name__}, not a torch.Tensor: convert them "
        "with torch.as_tensor(array, dtype=torch.float32, device=device).",
    )
    c.add(
        "labels_tensor",
        ok_l,
        "Labels are a torch.Tensor."
        if ok_l
        else f"Labels are a {type(labels).__name__}, not a torch.Tensor: convert them with "
        "torch.as_tensor(labels, dtype=torch.long, device=device).",
    )
    if not (ok_f and ok_l):
        return BatchReport(c.checks, None)
    logits = _contract_checks(c, model, features, labels)
    return BatchReport(c.checks, logits)


@dataclass(frozen=True)
class StepResult:
    """Result of :func:`run_one_step`.

    ``ok`` is True when every check passed and the step ran. ``grad_norms`` maps each
    parameter name to the L2 norm of its gradient (None: no gradient, e.g. a frozen
    parameter); ``grad_norm`` is the norm over all of them (the seed's figure). ``stepped``
    says whether ``optimizer.step()`` ran. ``conversions`` lists what ``torch.as_tensor`` had
    to change (dtype, device) on the way in.
    """

    checks: list[Check]
    ok: bool
    logits_shape: tuple[int, ...] | None = None
    logits_dtype: str | None = None
    logits_device: str | None = None
    loss: float | None = None
    grad_norms: dict[str, float | None] = field(default_factory=dict)
    grad_norm: float | None = None
    stepped: bool = False
    conversions: list[str] = field(default_factory=list)

    @property
    def failed(self) -> list[Check]:
        """The checks that failed."""
        return [c for c in self.checks if c.passed is False]


def _convert(
    value: Any, dtype: torch.dtype, device: torch.device, what: str, notes: list[str]
) -> torch.Tensor:
    src_dtype = getattr(value, "dtype", None)
    src_device = getattr(value, "device", None)
    out = torch.as_tensor(value, dtype=dtype, device=device)
    if src_dtype is not None and str(src_dtype) not in (str(dtype), str(dtype).split(".")[-1]):
        notes.append(f"{what}: {src_dtype} converted to {dtype}.")
    if isinstance(value, torch.Tensor) and src_device is not None and src_device != out.device:
        notes.append(f"{what}: moved from {src_device} to {out.device}.")
    return out


def run_one_step(
    model: nn.Module,
    features: Any,
    labels: Any,
    device: str | torch.device | None = None,
    optimizer: torch.optim.Optimizer | None = None,
    *,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] | None = None,
) -> StepResult:
    """One training step as in the seed's ``run_one_step``, with every check reported.

    Converts ``features`` to float32 and ``labels`` to long on ``device`` with
    ``torch.as_tensor`` (``device=None``: the model's device, else CPU), moves the model
    there, ``model.train()``, ``model.zero_grad(set_to_none=True)``, runs the contract checks
    and the forward pass, then cross-entropy (or ``loss_fn``), ``backward()`` and, when an
    ``optimizer`` is given, ``optimizer.step()``. Nothing after a failed check runs; no
    exception escapes for a bad batch (the failed check says what is wrong).
    """
    notes: list[str] = []
    c = _Checker()
    dev = torch.device(device) if device is not None else (_model_device(model) or "cpu")
    dev = torch.device(dev)

    labels_t: torch.Tensor | None = None
    raw_labels = torch.as_tensor(labels)
    if raw_labels.dtype.is_floating_point:
        whole = bool(torch.all(torch.isfinite(raw_labels) & (raw_labels == raw_labels.round())))
        if whole:
            c.add(
                "labels_integral",
                True,
                f"Labels were {raw_labels.dtype} holding whole numbers; converted to "
                "torch.long without loss.",
            )
        else:
            c.add(
                "labels_integral",
                False,
                f"Labels are {raw_labels.dtype} with fractional (or NaN) values: they are not "
                "class indices, and converting them to long would silently truncate them.",
            )
    else:
        c.add("labels_integral", True, f"Labels are {raw_labels.dtype} whole numbers.")
    if c.need("labels_integral"):
        labels_t = _convert(labels, torch.long, dev, "labels", notes)
    features_t = _convert(features, torch.float32, dev, "features", notes)
    model.to(dev)
    model.train()
    model.zero_grad(set_to_none=True)
    if labels_t is None:
        labels_t = torch.zeros(raw_labels.shape, dtype=torch.long, device=dev)
        for name in ("model_parameters", "same_device", "features_2d", "labels_1d"):
            c.skip(name, "the labels are not class indices")
        return StepResult(c.checks, False, conversions=notes)

    logits = _contract_checks(c, model, features_t, labels_t)
    result: dict[str, Any] = {"conversions": notes}
    if logits is not None:
        result.update(
            logits_shape=tuple(logits.shape),
            logits_dtype=str(logits.dtype),
            logits_device=str(logits.device),
        )
    if logits is None or not all(ch.passed for ch in c.checks):
        c.skip("loss_finite", "the batch did not pass the checks above")
        return StepResult(c.checks, False, **result)

    loss = (loss_fn or nn.functional.cross_entropy)(logits, labels_t)
    loss_value = float(loss.detach())
    result["loss"] = loss_value
    if not torch.isfinite(loss.detach()):
        c.add(
            "loss_finite",
            False,
            f"The loss is {loss_value}: print the first non-finite intermediate, check the "
            "learning rate, the input range and divisions by zero.",
        )
        return StepResult(c.checks, False, **result)
    c.add("loss_finite", True, f"The loss is {loss_value:.6g}.")
    loss.backward()
    norms: dict[str, float | None] = {}
    squares = []
    for name, p in model.named_parameters():
        if p.grad is None:
            norms[name] = None
        else:
            g = p.grad.detach()
            sq = g.double().square().sum()
            squares.append(sq)
            norms[name] = float(sq.sqrt())
    total = float(torch.stack(squares).sum().sqrt()) if squares else None
    stepped = False
    if optimizer is not None:
        optimizer.step()
        stepped = True
    return StepResult(c.checks, True, grad_norms=norms, grad_norm=total, stepped=stepped, **result)
