"""Diagnoses: the course's common mistakes that can be seen on one value, in plain words.

`diagnose(value, name=None, role=None)` looks at one tensor or array and returns what a learner
should know about it: non-finite values, why `.grad` is (or will stay) None, non-contiguous
layouts where `view` fails, internal overlap where in-place writes are unsafe, inference tensors,
integer features and float labels. `role` ("features" | "labels") says what the value is for;
when it is not given, it is guessed from the name (``x``/``features``/``inputs`` and
``y``/``labels``/``targets``).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch

from .catalog import CATALOG, render
from .facts import TensorFacts, describe
from .stats import Stats, stats

SEVERITIES = ("error", "warning", "info")

_FEATURE_NAMES = re.compile(r"^(x|xb|x_?batch|inputs?|features?|feats?|batch_x|data)(_\w+)?$", re.I)
_LABEL_NAMES = re.compile(r"^(y|yb|y_?batch|labels?|targets?|classes|batch_y)(_\w+)?$", re.I)


@dataclass(frozen=True)
class Diagnosis:
    """One finding: a stable ``code``, a ``severity`` ("error" | "warning" | "info") and a
    ``message`` in plain words that says what it means and what to do."""

    code: str
    severity: str
    message: str
    title: str = ""  # a few words that name the finding (``TITLES``), in the same language

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def guess_role(name: str | None) -> str | None:
    """'features' or 'labels' when the name says so, else None."""
    if not name:
        return None
    if _FEATURE_NAMES.match(name):
        return "features"
    if _LABEL_NAMES.match(name):
        return "labels"
    return None


def _fmt_index(index: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(i) for i in index) + "]" if index else "[]"


#: code -> severity. The words of a diagnosis are the catalog's (core/catalog.py): its title
#: "diagnose.<code>.title" and its message "diagnose.<code>", in every language.
SEVERITY: dict[str, str] = {
    "nonfinite": "error",
    "meta-device": "info",
    "inference-tensor": "warning",
    "internal-overlap": "warning",
    "non-contiguous": "info",
    "grad-none-no-requires-grad": "info",
    "grad-none-not-leaf": "info",
    "grad-none-no-backward": "info",
    "integer-features": "error",
    "float-labels": "error",
    "labels-not-long": "warning",
}
#: the catalog codes of each diagnosis: (message, title)
_WORDS: dict[str, tuple[str, str]] = {
    "nonfinite": ("diagnose.nonfinite", "diagnose.nonfinite.title"),
    "meta-device": ("diagnose.meta-device", "diagnose.meta-device.title"),
    "inference-tensor": ("diagnose.inference-tensor", "diagnose.inference-tensor.title"),
    "internal-overlap": ("diagnose.internal-overlap", "diagnose.internal-overlap.title"),
    "non-contiguous": ("diagnose.non-contiguous", "diagnose.non-contiguous.title"),
    "grad-none-no-requires-grad": ("diagnose.grad-none-no-requires-grad",
                                   "diagnose.grad-none-no-requires-grad.title"),
    "grad-none-not-leaf": ("diagnose.grad-none-not-leaf", "diagnose.grad-none-not-leaf.title"),
    "grad-none-no-backward": ("diagnose.grad-none-no-backward",
                              "diagnose.grad-none-no-backward.title"),
    "integer-features": ("diagnose.integer-features", "diagnose.integer-features.title"),
    "float-labels": ("diagnose.float-labels", "diagnose.float-labels.title"),
    "labels-not-long": ("diagnose.labels-not-long", "diagnose.labels-not-long.title"),
}
#: code -> (severity, {language: message template}), read from the catalog
MESSAGES: dict[str, tuple[str, dict[str, str]]] = {
    code: (SEVERITY[code], CATALOG[message]) for code, (message, _title) in _WORDS.items()}
#: code -> {language: title}: what a person reads first (the code is for programs)
TITLES: dict[str, dict[str, str]] = {
    code: CATALOG[title] for code, (_message, title) in _WORDS.items()}


def title(code: str, lang: str = "en") -> str:
    """The human title of diagnosis ``code`` in ``lang`` (the code itself if it has none)."""
    words = _WORDS.get(code)
    return code if words is None else render(words[1], lang)


def _make(code: str, lang: str, **fields: object) -> Diagnosis:
    return Diagnosis(code, SEVERITY[code], render(_WORDS[code][0], lang, **fields),
                     title(code, lang))


def _nonfinite(s: Stats, lang: str) -> Diagnosis | None:
    bad = s.nan + s.posinf + s.neginf
    if not bad:
        return None
    parts = ", ".join(
        f"{n} {what}" for n, what in ((s.nan, "NaN"), (s.posinf, "+Inf"), (s.neginf, "-Inf")) if n
    )
    return _make("nonfinite", lang, bad=bad, count=s.count, parts=parts,
                 first=_fmt_index(s.first_nonfinite or ()))


def _grad(f: TensorFacts, t: torch.Tensor, lang: str) -> Diagnosis | None:
    if f.grad is not None:
        return None
    if not f.requires_grad:
        if not (t.is_floating_point() or t.is_complex()):
            return None  # integer tensors can never require grad; nothing to explain
        return _make("grad-none-no-requires-grad", lang)
    if not f.is_leaf:
        return _make("grad-none-not-leaf", lang, grad_fn=f.grad_fn)
    return _make("grad-none-no-backward", lang)


def diagnose(
    value: torch.Tensor | np.ndarray,
    name: str | None = None,
    role: str | None = None,
    *,
    value_stats: Stats | None = None,
    lang: str = "en",
) -> list[Diagnosis]:
    """The common mistakes visible on ``value``, most severe first.

    ``value_stats`` may pass statistics computed earlier (the full pass is the costly part);
    ``lang`` is "en" or "zh".
    """
    f = describe(value)
    role = role or guess_role(name)
    out: list[Diagnosis] = []
    tensor = value if isinstance(value, torch.Tensor) else None
    numeric = isinstance(value, torch.Tensor) or value.dtype.kind in "biufc"
    if tensor is not None and tensor.device.type == "meta":
        out.append(_make("meta-device", lang))
    elif numeric and f.numel:
        s = value_stats if value_stats is not None else stats(value)
        d = _nonfinite(s, lang)
        if d:
            out.append(d)
    if f.is_inference:
        out.append(_make("inference-tensor", lang))
    if f.internal_overlap:
        out.append(_make("internal-overlap", lang))
    elif not f.is_contiguous and f.numel > 1:
        out.append(_make("non-contiguous", lang, stride=tuple(f.stride), shape=tuple(f.shape)))
    if tensor is not None:
        d = _grad(f, tensor, lang)
        if d:
            out.append(d)
    if not numeric:  # records, dates, strings: none of the dtype mistakes below apply
        return out
    dt = f.dtype
    if "complex" in dt:
        kind = "complex"
    elif "float" in dt:
        kind = "floating"
    elif "bool" in dt:
        kind = "bool"
    else:
        kind = "integer"
    if role == "features" and kind in ("integer", "bool"):
        out.append(_make("integer-features", lang, dtype=dt))
    if role == "labels" and kind == "floating":
        out.append(_make("float-labels", lang, dtype=dt))
    elif role == "labels" and kind == "integer" and dt not in ("torch.int64", "int64"):
        out.append(_make("labels-not-long", lang, dtype=dt))
    order = {s: i for i, s in enumerate(SEVERITIES)}
    out.sort(key=lambda d: order[d.severity])
    return out
