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


#: code -> (severity, {language: message template}); templates use str.format fields
MESSAGES: dict[str, tuple[str, dict[str, str]]] = {
    "nonfinite": ("error", {
        "en": "{bad:,} of {count:,} values are not finite ({parts}); the first is at index "
              "{first}. A loss computed from them will be NaN: look for a division by zero, "
              "log of 0 or a negative number, an overflow in float16, or a learning rate too "
              "high.",
        "zh": "{count:,} 个值中有 {bad:,} 个不是有限数（{parts}）；第一个位于下标 {first}。"
              "由它们算出的 loss 会是 NaN：检查是否除以零、对 0 或负数取 log、float16 溢出，"
              "或学习率过大。",
    }),
    "meta-device": ("info", {
        "en": "This tensor is on the 'meta' device: it has a shape and dtype but no values. "
              "Mixing it with tensors on other devices fails like a CPU/CUDA mismatch does.",
        "zh": "这个张量在 'meta' 设备上：只有形状和 dtype，没有数值。"
              "把它和其他设备上的张量混用，会像 CPU/CUDA 不匹配一样报错。",
    }),
    "inference-tensor": ("warning", {
        "en": "This tensor was made under torch.inference_mode(): it can never enter "
              "autograd. Using it in a computation that needs gradients fails; clone() it "
              "outside inference_mode, or use torch.no_grad() instead.",
        "zh": "这个张量是在 torch.inference_mode() 下创建的：永远不能进入 autograd。"
              "在需要梯度的计算中使用它会报错；请在 inference_mode 之外 clone() 一份，"
              "或改用 torch.no_grad()。",
    }),
    "internal-overlap": ("warning", {
        "en": "Several elements of this value share the same memory (as after expand() or "
              "broadcast_to): an in-place write would change all of them at once, and torch "
              "refuses most in-place operations on it. Use .clone() (or .contiguous()) to get "
              "independent elements first.",
        "zh": "这个值的多个元素共享同一块内存（例如 expand() 或 broadcast_to 之后）："
              "原地写入会同时改变它们，torch 也会拒绝大多数原地操作。"
              "请先用 .clone()（或 .contiguous()）得到彼此独立的元素。",
    }),
    "non-contiguous": ("info", {
        "en": "Not contiguous (stride {stride} for shape {shape}), as after t(), permute() or "
              "a step slice: .view() with a new shape will fail. Use .reshape(), or "
              ".contiguous() first.",
        "zh": "不连续（形状 {shape} 的步长为 {stride}），例如 t()、permute() 或带步长的切片之后："
              "用 .view() 改变形状会失败。请用 .reshape()，或先调用 .contiguous()。",
    }),
    "grad-none-no-requires-grad": ("info", {
        "en": ".grad is None and will stay None: requires_grad is False, so autograd does not "
              "track this tensor. Create it with requires_grad=True (or call "
              ".requires_grad_()) if you want its gradient.",
        "zh": ".grad 是 None，并且会一直是 None：requires_grad 为 False，autograd 不跟踪这个张量。"
              "如果需要它的梯度，请用 requires_grad=True 创建（或调用 .requires_grad_()）。",
    }),
    "grad-none-not-leaf": ("info", {
        "en": ".grad is None because this tensor is not a leaf: it was computed "
              "(grad_fn={grad_fn}), and backward() only fills .grad of leaves. Call "
              ".retain_grad() on it before backward() to keep its gradient.",
        "zh": ".grad 是 None，因为这个张量不是叶子：它是计算得到的（grad_fn={grad_fn}），"
              "而 backward() 只填充叶子张量的 .grad。若要保留它的梯度，请在 backward() 之前"
              "调用 .retain_grad()。",
    }),
    "grad-none-no-backward": ("info", {
        "en": ".grad is None because no backward() has reached this tensor yet (or its "
              "gradient was reset with zero_grad(set_to_none=True)). Run loss.backward() on a "
              "result computed from it.",
        "zh": ".grad 是 None，因为还没有 backward() 传到这个张量"
              "（或梯度已被 zero_grad(set_to_none=True) 清空）。"
              "请对由它计算出的结果调用 loss.backward()。",
    }),
    "integer-features": ("error", {
        "en": "These look like model inputs (features) but the dtype is {dtype}: layers such "
              "as nn.Linear expect floating point and fail with \"expected scalar type "
              "Float\". Convert with .float() (or dtype=torch.float32 when creating it).",
        "zh": "这看起来是模型输入（特征），但 dtype 是 {dtype}：nn.Linear 等层需要浮点数，"
              "否则报错 \"expected scalar type Float\"。请用 .float() 转换"
              "（或创建时指定 dtype=torch.float32）。",
    }),
    "float-labels": ("error", {
        "en": "These look like class labels but the dtype is {dtype}: cross_entropy with "
              "class indices expects int64 (torch.long) labels of shape (batch,). Convert with "
              ".long(); keep float only for probabilities/soft targets of shape "
              "(batch, classes).",
        "zh": "这看起来是分类标签，但 dtype 是 {dtype}：使用类别下标的 cross_entropy "
              "需要形状为 (batch,) 的 int64（torch.long）标签。请用 .long() 转换；"
              "只有形状为 (batch, classes) 的概率/软标签才用浮点。",
    }),
    "labels-not-long": ("warning", {
        "en": "Class labels are {dtype}; cross_entropy expects int64 (torch.long) and fails "
              "with \"expected target dtype to be Long\". Convert with .long().",
        "zh": "类别标签是 {dtype}；cross_entropy 需要 int64（torch.long），否则报错 "
              "\"expected target dtype to be Long\"。请用 .long() 转换。",
    }),
}


#: code -> {language: title}: what a person reads first (the code is for programs)
TITLES: dict[str, dict[str, str]] = {
    "nonfinite": {"en": "NaN or Inf values", "zh": "含有 NaN 或 Inf"},
    "meta-device": {"en": "On the meta device: no values", "zh": "在 meta 设备上：没有数值"},
    "inference-tensor": {"en": "Made in inference mode", "zh": "在 inference_mode 下创建"},
    "internal-overlap": {"en": "Elements share memory", "zh": "元素共享内存"},
    "non-contiguous": {"en": "Not contiguous: view() fails",
                       "zh": "不连续：view() 会失败"},
    "grad-none-no-requires-grad": {"en": "No gradient: requires_grad is False",
                                   "zh": "没有梯度：requires_grad 为 False"},
    "grad-none-not-leaf": {"en": "No .grad: not a leaf", "zh": "没有 .grad：不是叶子张量"},
    "grad-none-no-backward": {"en": "No .grad yet: no backward() reached it",
                              "zh": "还没有 .grad：backward() 尚未传到"},
    "integer-features": {"en": "Integer features", "zh": "特征是整数类型"},
    "float-labels": {"en": "Float class labels", "zh": "类别标签是浮点类型"},
    "labels-not-long": {"en": "Labels are not int64", "zh": "标签不是 int64"},
}


def title(code: str, lang: str = "en") -> str:
    """The human title of diagnosis ``code`` in ``lang`` (the code itself if it has none)."""
    texts = TITLES.get(code)
    if texts is None:
        return code
    return texts.get(lang, texts["en"])


def _make(code: str, lang: str, **fields: object) -> Diagnosis:
    severity, texts = MESSAGES[code]
    return Diagnosis(code, severity, texts.get(lang, texts["en"]).format(**fields),
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
