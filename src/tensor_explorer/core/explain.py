"""Plain-words explanations of the errors and warnings learners meet in the seed chapters.

:func:`explain` maps an exception raised by a program (usually torch's ``RuntimeError``) to a
short *kind* code and a paragraph that says what usually causes it and what to do: a catalog
:class:`~tensor_explorer.core.catalog.Message` (codes ``explain.*``), so its words, English and
Chinese side by side, live in :mod:`~tensor_explorer.core.catalog` and it is rendered in the
language where it is shown (:meth:`Explanation.text_in`). The kind codes are stable; the lesson
checker and the Inspector can match on them:

``device-mismatch``, ``not-floating``, ``dtype-mismatch``, ``cross-entropy-target-dtype``,
``cross-entropy-target-shape``, ``backward-twice``, ``numpy-requires-grad``, ``numpy-device``,
``view-non-contiguous``, ``inplace-leaf``, ``inplace-saved``, ``matmul-shape``,
``broadcast-shape``, ``backward-non-scalar``, ``backward-no-grad``, ``inference-tensor``,
``item-non-scalar``, ``ambiguous-bool``, ``inplace-overlap``, ``device-unavailable``,
``out-of-memory``, ``not-defined``, ``not-available``, ``recursion``.

:func:`explain` looks at torch's message first and, where the message alone could mislead, at the
values involved: the arguments torch was called with (found in the exception's traceback, e.g.
``F.cross_entropy``'s logits and target) and the values the failing line reads (``values``,
which also give the learner's own names to use in the advice). The regular expressions here
recognise torch's own (English) messages; none of them translates ours.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import torch

from .catalog import LANGUAGES, Message
from .sandbox import REFUSED_BUILTINS


@dataclass(frozen=True)
class Explanation:
    """What an error usually means: a stable ``kind`` code and plain words, a catalog
    :class:`~tensor_explorer.core.catalog.Message` (``text`` is its English, ``text_zh`` its
    Chinese)."""

    kind: str
    message: Message

    @property
    def text(self) -> Message:
        """The words; as a ``str``, their English (the Message itself, so that whoever keeps it,
        e.g. a ``ProgramError``, can render it in another language)."""
        return self.message

    @property
    def text_zh(self) -> str:
        """The words in Chinese."""
        return self.message.render("zh")

    @property
    def texts(self) -> dict[str, str]:
        """The words in every language of the catalog: ``{"en": ..., "zh": ...}``."""
        return {lang: self.message.render(lang) for lang in LANGUAGES}

    def text_in(self, lang: str) -> str:
        """The words in ``lang`` ("en" or "zh"; anything else gets the English)."""
        return self.message.render(lang)


_Values = Mapping[str, Any]  # the values the failing line reads, by name
_Say = Callable[["re.Match[str]", _Values], Message]  # the words for a rule's match
_Rule = tuple[str, "re.Pattern[str]", _Say]


def _const(code: str) -> _Say:
    return lambda _m, _v: Message(code)


def _inplace_saved(m: re.Match[str], _values: _Values) -> Message:
    return Message("explain.inplace-saved", now=m.group(1), saved=m.group(2))


def _inference_name(values: _Values) -> str:
    """The name of the one inference tensor the line reads, or "t"."""
    names = [n for n, v in values.items() if isinstance(v, torch.Tensor) and v.is_inference()]
    return names[0] if len(names) == 1 else "t"


def _inference(m: re.Match[str], values: _Values) -> Message:
    if m.group("inplace"):
        return Message("explain.inference-inplace", name=_inference_name(values))
    if m.group("grad"):
        return Message("explain.inference-grad", name=_inference_name(values))
    return Message("explain.inference-tensor")


_RULES: list[_Rule] = [
    (
        "device-mismatch",
        re.compile(
            r"Expected all tensors to be on the same device|is not on the expected device|"
            r"found at least two devices|Expected .* to be on .* device",
            re.I,
        ),
        _const("explain.device-mismatch"),
    ),
    (
        "cross-entropy-target-dtype",
        re.compile(r"expected target dtype to be Long|expected scalar type Long but found", re.I),
        _const("explain.cross-entropy-target-dtype"),
    ),
    (
        "cross-entropy-target-shape",
        re.compile(
            r"0D or 1D target tensor expected|multi-target not supported|"
            r"Expected input batch_size \(\d+\) to match target batch_size|"
            r"Expected target size|Target -?\d+ is out of bounds|"
            r"For 1D input, 1D target must have size 1",
            re.I,
        ),
        _const("explain.cross-entropy-target-shape"),
    ),
    (
        "cross-entropy-target-shape",
        re.compile(r"floating point type for target with class probabilities", re.I),
        _const("explain.cross-entropy-target-probabilities"),
    ),
    (
        "not-floating",
        re.compile(
            r"Expected floating point type|floating point and complex dtype can require|"
            r"Input dtype must be either a floating point|"
            r"not implemented for '(Long|Int|Short|Char|Byte|Bool)'|"
            r"only floating point|must be a floating point",
            re.I,
        ),
        _const("explain.not-floating"),
    ),
    (
        "dtype-mismatch",
        re.compile(
            r"must have the same dtype|expected scalar type|to have the same dtype|"
            r"Found dtype \w+ but expected|result type \w+ can't be cast",
            re.I,
        ),
        _const("explain.dtype-mismatch"),
    ),
    (
        "backward-twice",
        re.compile(r"backward through the graph a second time", re.I),
        _const("explain.backward-twice"),
    ),
    (
        "numpy-requires-grad",
        re.compile(r"Can't call numpy\(\) on Tensor that requires grad", re.I),
        _const("explain.numpy-requires-grad"),
    ),
    (
        "numpy-device",
        re.compile(r"can't convert .* device type tensor to numpy", re.I),
        _const("explain.numpy-device"),
    ),
    (
        "view-non-contiguous",
        re.compile(r"view size is not compatible with input tensor's size and stride", re.I),
        _const("explain.view-non-contiguous"),
    ),
    (
        "inplace-leaf",
        re.compile(r"leaf Variable that requires grad is being used in an in-place", re.I),
        _const("explain.inplace-leaf"),
    ),
    (
        "inplace-saved",
        re.compile(
            r"modified by an inplace operation.*is at version (\d+); expected version (\d+)",
            re.I | re.S,
        ),
        _inplace_saved,
    ),
    (
        "matmul-shape",
        re.compile(
            r"shapes cannot be multiplied|size mismatch|Expected size for first two dimensions|"
            r"mat1 dim 1 must match mat2 dim 0|inconsistent tensor size",
            re.I,
        ),
        _const("explain.matmul-shape"),
    ),
    (
        "broadcast-shape",
        re.compile(
            r"The size of tensor a \(\d+\) must match the size of tensor b|"
            r"operands could not be broadcast together|shape mismatch|"
            r"The expanded size of the tensor",
            re.I,
        ),
        _const("explain.broadcast-shape"),
    ),
    (
        "backward-non-scalar",
        re.compile(r"grad can be implicitly created only for scalar outputs", re.I),
        _const("explain.backward-non-scalar"),
    ),
    (
        "backward-no-grad",
        re.compile(r"does not require grad and does not have a grad_fn", re.I),
        _const("explain.backward-no-grad"),
    ),
    (
        "inference-tensor",
        re.compile(
            r"(?P<inplace>Inplace update to inference tensor)|"
            r"(?P<grad>Setting requires_grad=True on inference tensor)|"
            r"Inference tensors cannot be saved for backward|inference tensor",
            re.I,
        ),
        _inference,
    ),
    (
        "item-non-scalar",
        re.compile(
            r"cannot be converted to Scalar|only one element tensors can be converted", re.I
        ),
        _const("explain.item-non-scalar"),
    ),
    (
        "ambiguous-bool",
        re.compile(
            r"Boolean value of Tensor with more than one value is ambiguous|"
            r"truth value of an array with more than one element is ambiguous",
            re.I,
        ),
        _const("explain.ambiguous-bool"),
    ),
    (
        "inplace-overlap",
        re.compile(
            r"more than one element of the written-to tensor refers to a single memory", re.I
        ),
        _const("explain.inplace-overlap"),
    ),
    (
        "device-unavailable",
        re.compile(
            r"not compiled with CUDA|no NVIDIA driver|CUDA driver|"
            r"invalid device ordinal|MPS backend",
            re.I,
        ),
        _const("explain.device-unavailable"),
    ),
    (
        "out-of-memory",
        re.compile(r"out of memory|can't allocate memory|DefaultCPUAllocator", re.I),
        _const("explain.out-of-memory"),
    ),
]

_NAME_ERROR = re.compile(r"name '(\w+)' is not defined")

# --- cross-entropy: what the logits and the target hold decides the advice -----------------
#
# torch's message alone can mislead: 1-D logits with a target of class indices are read as one
# sample whose target holds class probabilities ("Expected floating point type for target with
# class probabilities"), and .float() on that target then runs and gives a wrong loss; a float
# target of probabilities turned .long() runs too. So the advice is chosen from the logits and
# the target that F.cross_entropy was called with.

_CE_TARGET = re.compile(
    r"expected target dtype to be Long|expected scalar type Long but found|"
    r"floating point type for target with class probabilities|For 1D input, 1D target|"
    r"0D or 1D target tensor expected|multi-target not supported",
    re.I,
)
_CE_SOURCE = "torch/nn/functional.py"
_CE_Advice = tuple[str, Message]  # (kind, words)


def _call_arguments(exc: BaseException, function: str, source: str) -> Mapping[str, Any] | None:
    """The arguments of the innermost call of ``function`` (defined in a file ending in
    ``source``) on the way to ``exc``, from its traceback."""
    found = None
    tb: TracebackType | None = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_name == function and code.co_filename.replace("\\", "/").endswith(source):
            found = tb.tb_frame.f_locals
        tb = tb.tb_next
    return found


def _name_of(value: Any, values: _Values, default: str) -> str:
    """The learner's name for ``value`` on the failing line, or ``default``."""
    return next((name for name, v in values.items() if v is value), default)


def _numbers(t: torch.Tensor) -> torch.Tensor | None:
    """``t``'s values as float64 on the CPU; None when they cannot be read (meta, complex...)."""
    if t.device.type == "meta" or t.is_complex() or t.is_sparse or t.numel() > 10_000_000:
        return None
    try:
        return t.detach().to("cpu", torch.float64)
    except (RuntimeError, TypeError):
        return None


def _indices(v: torch.Tensor, classes: int, ignore: Any) -> bool:
    """All of ``v`` are class indices 0 .. classes - 1 (or the ignored index)."""
    ok = (v == torch.round(v)) & (((v >= 0) & (v < classes)) | (v == ignore))
    return bool(ok.all())


def _shape(t: torch.Tensor | torch.Size) -> str:
    return str(tuple(t.shape if isinstance(t, torch.Tensor) else t))


def _dtype(t: torch.Tensor) -> str:
    return str(t.dtype).removeprefix("torch.")


def _yes_no(v: torch.Tensor | None) -> bool:
    """Every value of ``v`` is 0 or 1."""
    return v is not None and bool(((v == 0) | (v == 1)).all())


def _ce_one_sample(
    logits: torch.Tensor, target: torch.Tensor, lg: str, tg: str, ignore: Any
) -> _CE_Advice | None:
    """Advice for 1-D logits, shape (classes,): a single sample."""
    classes = logits.shape[0]
    v = _numbers(target)
    if target.numel() == 1 and target.dim() <= 1:
        if target.dtype == torch.long or v is None or not _indices(v, classes, ignore):
            return None
        return "cross-entropy-target-shape", Message(
            "explain.ce-one-sample", logits=lg, target=tg, classes=classes)
    if target.dim() != 1:
        return None
    n = target.shape[0]
    more: Message | str = ""
    if n == classes and not target.is_floating_point():
        yes_no = (Message("explain.ce-yes-no", logits=lg, target=tg, n=n) if _yes_no(v)
                  else "")
        more = Message("explain.ce-not-float", target=tg, more=yes_no)
    return "cross-entropy-target-shape", Message(
        "explain.ce-one-row-many-labels", logits=lg, target=tg, classes=classes, n=n, more=more)


def _ce_not_long(
    logits: torch.Tensor, target: torch.Tensor, v: torch.Tensor, tg: str, ignore: Any
) -> _CE_Advice:
    """Advice for a target of one label per sample that is not torch.long: class indices,
    fractions (probabilities) or labels out of range."""
    classes = logits.shape[1]
    last = classes - 1
    if _indices(v, classes, ignore):
        return "cross-entropy-target-dtype", Message(
            "explain.ce-indices-not-long", target=tg, dtype=_dtype(target), last=last)
    fractions = v[v != torch.round(v)]
    if fractions.numel():
        x = float(fractions.flatten()[0])
        two = classes == 2 and logits.dim() == 2 and bool(((v >= 0) & (v <= 1)).all())
        more = Message("explain.ce-probability-of-class-1", target=tg) if two else ""
        return "cross-entropy-target-dtype", Message(
            "explain.ce-fractions", target=tg, shape=_shape(target), example=f"{x:g}",
            cut=f"{math.trunc(x)}", last=last, logits_shape=_shape(logits), more=more)
    bad = v[~(((v >= 0) & (v < classes)) | (v == ignore))]
    shown = f"{float(bad.flatten()[0]):g}" if bad.numel() else "?"
    from_1 = bool((v >= 1).all() & (v <= classes).all())
    return "cross-entropy-target-dtype", Message(
        "explain.ce-bad-labels", last=last, classes=classes, target=tg, dtype=_dtype(target),
        shown=shown, more=Message("explain.ce-counted-from-1", target=tg) if from_1 else "")


def _ce_batch(
    logits: torch.Tensor, target: torch.Tensor, lg: str, tg: str, ignore: Any
) -> _CE_Advice | None:
    """Advice for logits of shape (batch, classes) (or (batch, classes, d1, ...))."""
    classes = logits.shape[1]
    index_shape = logits.shape[:1] + logits.shape[2:]
    v = _numbers(target)
    if v is None or not bool(torch.isfinite(v).all()):
        return None  # nan or inf among the labels: the message's own words
    if target.shape == index_shape and target.dtype != torch.long:
        return _ce_not_long(logits, target, v, tg, ignore)
    if target.shape == logits.shape and not target.is_floating_point():
        one_hot = _yes_no(v) and bool((v.sum(1) == 1).all())
        rows = "explain.ce-one-hot" if one_hot else "explain.ce-not-one-hot"
        return "cross-entropy-target-dtype", Message(
            "explain.ce-probabilities-not-float", target=tg, shape=_shape(logits),
            dtype=_dtype(target), more=Message(rows, target=tg, index_shape=_shape(index_shape)))
    if (
        target.dim() == logits.dim()
        and target.shape[1] == 1
        and target.shape[:1] + target.shape[2:] == index_shape
        and _indices(v, classes, ignore)
    ):
        fix = f"{tg}.squeeze(1)" + ("" if target.dtype == torch.long else ".long()")
        return "cross-entropy-target-shape", Message(
            "explain.ce-column", target=tg, shape=_shape(target),
            index_shape=_shape(index_shape), fix=fix)
    return None


def _cross_entropy(exc: BaseException, message: str, values: _Values) -> Explanation | None:
    """The advice for a cross-entropy target error, from the logits and target torch got."""
    if not _CE_TARGET.search(message):
        return None
    args = _call_arguments(exc, "cross_entropy", _CE_SOURCE)
    if args is None:
        return None
    logits, target = args.get("input"), args.get("target")
    if not isinstance(logits, torch.Tensor) or not isinstance(target, torch.Tensor):
        return None
    if not logits.is_floating_point() or logits.dim() == 0:
        return None
    lg = _name_of(logits, values, "logits")
    tg = _name_of(target, values, "target")
    ignore = args.get("ignore_index", -100)
    advise = _ce_one_sample if logits.dim() == 1 else _ce_batch
    found = advise(logits, target, lg, tg, ignore)
    return Explanation(*found) if found else None


#: every kind :func:`explain` can return
KINDS: tuple[str, ...] = tuple(
    dict.fromkeys([kind for kind, _p, _t in _RULES] + ["not-defined", "not-available", "recursion"])
)


def _python_error(exc: BaseException, message: str) -> Explanation | None:
    """The words for Python's own errors: a name with no value (or not available), recursion,
    memory."""
    if isinstance(exc, NameError):
        m = _NAME_ERROR.search(message)
        if m and m.group(1) in REFUSED_BUILTINS | {"type"}:
            return Explanation("not-available", Message("explain.not-available", name=m.group(1)))
        name = m.group(1) if m else Message("explain.this-name")
        return Explanation("not-defined", Message("explain.not-defined", name=name))
    if isinstance(exc, RecursionError):
        return Explanation("recursion", Message("explain.recursion"))
    if isinstance(exc, MemoryError):
        return Explanation("out-of-memory", Message("explain.out-of-memory"))
    return None


def explain(exc: BaseException, values: _Values | None = None) -> Explanation | None:
    """The usual cause of ``exc`` in plain words, or None when there is nothing to add.

    ``values``: the values the failing line reads, by name (the runner passes them); the
    advice names the learner's tensors with them. The arguments torch was called with are
    read from ``exc``'s traceback where the message alone could mislead (cross-entropy)."""
    message = str(exc)
    values = values or {}
    found = _python_error(exc, message)  # (NameError, RecursionError, MemoryError)
    if found is not None:
        return found
    try:
        found = _cross_entropy(exc, message, values)
    except Exception:  # reading the values must never hide the error itself
        found = None
    if found is not None:
        return found
    for kind, pattern, say in _RULES:
        m = pattern.search(message)
        if m:
            return Explanation(kind, say(m, values))
    return None


#: (torch's or NumPy's words of a warning, the code of our plain words for it)
_WARNINGS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\.grad attribute of a Tensor that is not a leaf Tensor", re.I),
     "explain.warning-non-leaf-grad"),
    (re.compile(r"TypedStorage is deprecated", re.I), "explain.warning-typed-storage"),
    (re.compile(r"non-writable|not writable|non-writeable", re.I),
     "explain.warning-read-only-array"),
]  # fmt: skip


def explain_warning(message: str, lang: str = "en") -> str | None:
    """Plain words for a warning torch or NumPy raised while a program ran, if we have any:
    a catalog Message (its English as a ``str``) for ``lang`` "en", its text in another
    ``lang`` ("zh")."""
    for pattern, code in _WARNINGS:
        if pattern.search(message):
            words = Message(code)
            return words if lang == "en" else words.render(lang)
    return None



