"""Plain-words explanations of the errors and warnings learners meet in the seed chapters.

:func:`explain` maps an exception raised by a program (usually torch's ``RuntimeError``) to a
short *kind* code and a paragraph that says what usually causes it and what to do, in English
(``text``) and in Chinese (``text_zh``; :meth:`Explanation.text_in` picks one). The kind codes
are stable; the lesson checker and the Inspector can match on them:

``device-mismatch``, ``not-floating``, ``dtype-mismatch``, ``cross-entropy-target-dtype``,
``cross-entropy-target-shape``, ``backward-twice``, ``numpy-requires-grad``, ``numpy-device``,
``view-non-contiguous``, ``inplace-leaf``, ``inplace-saved``, ``matmul-shape``,
``broadcast-shape``, ``backward-non-scalar``, ``backward-no-grad``, ``inference-tensor``,
``item-non-scalar``, ``ambiguous-bool``, ``inplace-overlap``, ``device-unavailable``,
``out-of-memory``, ``not-defined``, ``not-available``, ``recursion``.

:func:`explain` looks at torch's message first and, where the message alone could mislead, at the
values involved: the arguments torch was called with (found in the exception's traceback, e.g.
``F.cross_entropy``'s logits and target) and the values the failing line reads (``values``,
which also give the learner's own names to use in the advice).

The Chinese follows the seed chapters' words (张量, 设备, 梯度, 计算图, 叶子张量, 视图, 连续,
原地操作); code, function names and dtypes stay as they are written in Python.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import torch

from .sandbox import REFUSED_BUILTINS


@dataclass(frozen=True)
class Explanation:
    """What an error usually means: a stable ``kind`` code and plain words, in English
    (``text``) and Chinese (``text_zh``)."""

    kind: str
    text: str
    text_zh: str = ""

    @property
    def texts(self) -> dict[str, str]:
        """``{"en": text, "zh": text_zh}`` (the English where there is no Chinese)."""
        return {"en": self.text, "zh": self.text_zh or self.text}

    def text_in(self, lang: str) -> str:
        """The text in ``lang`` ("en" or "zh"; anything else gets the English)."""
        return self.text_zh if lang == "zh" and self.text_zh else self.text


_Texts = tuple[str, str]  # (English, Chinese)
_Values = Mapping[str, Any]  # the values the failing line reads, by name
_Rule = tuple[str, "re.Pattern[str]", Callable[["re.Match[str]", _Values], _Texts]]

_OOM: _Texts = (
    "There is not enough memory for this tensor. Use a smaller shape or batch, free tensors "
    "you no longer need (del x), or compute under torch.no_grad() so that no graph is kept.",
    "内存不够放下这个张量。请用更小的形状或 batch，释放不再需要的张量（del x），"
    "或者在 torch.no_grad() 下计算，这样就不会保留计算图。",
)


def _const(en: str, zh: str) -> Callable[[re.Match[str], _Values], _Texts]:
    return lambda _m, _v: (en, zh)


def _inplace_saved(m: re.Match[str], _values: _Values) -> _Texts:
    now, saved = m.group(1), m.group(2)
    return (
        "A tensor that autograd saved during the forward pass was changed in place afterwards "
        f"(it is now at version {now}, but backward needs the version {saved} it "
        "saw). Every in-place operation (a method ending in '_', x[...] = ..., +=) bumps a "
        "tensor's version counter. Make the change out of place (y = y + 1), or clone() the "
        "tensor before changing it, or change it only after backward.",
        "autograd 在前向计算时保存的一个张量，之后被原地修改了"
        f"（它现在是版本 {now}，而 backward 需要它被保存时的版本 {saved}）。"
        "每次原地操作（以 '_' 结尾的方法、x[...] = ...、+=）都会让张量的版本计数加一。"
        "请改用非原地的写法（y = y + 1），或者在修改前先 clone() 一份，"
        "或者等 backward 之后再修改。",
    )


def _inference_name(values: _Values) -> str:
    """The name of the one inference tensor the line reads, or "t"."""
    names = [n for n, v in values.items() if isinstance(v, torch.Tensor) and v.is_inference()]
    return names[0] if len(names) == 1 else "t"


def _inference(m: re.Match[str], values: _Values) -> _Texts:
    t = _inference_name(values)
    if m.group("inplace"):
        return (
            "This tensor was made under torch.inference_mode(), and an inference tensor can "
            "never be changed in place outside inference mode (a method ending in '_', "
            "x[...] = ..., +=): torch keeps no version counter for it, so it could not tell "
            "whether something still needs the old values. Make a normal copy first and change "
            f"the copy: {t} = {t}.clone() (outside inference_mode); or do the write inside "
            "'with torch.inference_mode():'. A tensor made under torch.no_grad() instead is a "
            "normal tensor and can be changed in place later.",
            "这个张量是在 torch.inference_mode() 下创建的推理张量，而推理张量在 inference_mode "
            "之外永远不能被原地修改（以 '_' 结尾的方法、x[...] = ...、+=）：torch 不为它记录"
            "版本计数，无法判断是否还有地方需要旧的值。请先复制出一个普通张量，再修改这份副本："
            f"{t} = {t}.clone()（在 inference_mode 之外）；或者把这次写入放到 "
            "'with torch.inference_mode():' 里面。改在 torch.no_grad() 下创建的张量是普通张量，"
            "之后可以原地修改。",
        )
    if m.group("grad"):
        return (
            "This tensor was made under torch.inference_mode(), and an inference tensor can "
            "never require grad: it can never join an autograd graph. Make a normal copy that "
            f"does: {t} = {t}.clone().requires_grad_() (outside inference_mode), or create the "
            "tensor under torch.no_grad() instead.",
            "这个张量是在 torch.inference_mode() 下创建的推理张量，而推理张量永远不能需要梯度，"
            "也就永远不能加入 autograd 计算图。请复制出一个可以需要梯度的普通张量："
            f"{t} = {t}.clone().requires_grad_()（在 inference_mode 之外），"
            "或者改在 torch.no_grad() 下创建这个张量。",
        )
    return (
        "A tensor made under torch.inference_mode() is used in a computation that autograd "
        "records. Inference tensors never join a graph. Make it under torch.no_grad() "
        "instead, or use tensor.clone() outside inference mode to get a normal tensor.",
        "一个在 torch.inference_mode() 下创建的张量被用在了 autograd 要记录的计算里。"
        "这种推理张量永远不会加入计算图。请改在 torch.no_grad() 下创建它，"
        "或者在 inference_mode 之外用 tensor.clone() 得到一个普通张量。",
    )


_RULES: list[_Rule] = [
    (
        "device-mismatch",
        re.compile(
            r"Expected all tensors to be on the same device|is not on the expected device|"
            r"found at least two devices|Expected .* to be on .* device",
            re.I,
        ),
        _const(
            "The tensors in this operation live on different devices (for example one on the "
            "CPU and one on a GPU, or one on 'meta'). An operation runs on one device, so every "
            "operand must be there. Move them to one device at the batch boundary with "
            ".to(device): the model's parameters, the features and the labels must agree. "
            "Tensor.to() returns a tensor on that device (the same tensor when it is already "
            "there) and leaves the original where it was: use what it returns. Module.to() "
            "moves the module itself.",
            "这次运算用到的张量位于不同的设备上（例如一个在 CPU、一个在 GPU，"
            "或者有一个在 'meta' 上）。一次运算只在一个设备上执行，所以每个操作数都必须在那里。"
            "请在 batch 边界用 .to(device) 把它们放到同一个设备上：模型参数、features 和 labels "
            "的设备必须一致。注意 Tensor.to() 返回目标设备上的张量（本来就在那里时返回原张量），"
            "不会移动原来的那个，要用它的返回值；Module.to() 则原地移动模型本身。",
        ),
    ),
    (
        "cross-entropy-target-dtype",
        re.compile(r"expected target dtype to be Long|expected scalar type Long but found", re.I),
        _const(
            "Cross-entropy wants class labels as integer class indices (torch.long), one per "
            "sample, but the labels here have another dtype. If they are class indices (whole "
            "numbers from 0 to classes - 1) and the logits are (batch, classes), make them "
            "with dtype=torch.long (or call labels.long()). If they are probabilities, .long() "
            "would cut them to wrong classes: float targets are only for class probabilities, "
            "with the same shape as the logits. Logits of shape (classes,) are a single "
            "sample: logits.unsqueeze(0) makes them (1, classes).",
            "交叉熵要求类别标签是整数类别索引（torch.long），每个样本一个，"
            "但这里的标签是别的 dtype。如果它们是类别索引（0 到 classes - 1 的整数），"
            "而且 logits 的形状是 (batch, classes)，请用 dtype=torch.long 创建标签"
            "（或者调用 labels.long()）。如果它们是概率，.long() 会把它们截成错误的类别："
            "只有表示类别概率时 target 才用浮点数，而且形状要与 logits 相同。"
            "形状为 (classes,) 的 logits 只是单个样本：logits.unsqueeze(0) 把它变成 (1, classes)。",
        ),
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
        _const(
            "Cross-entropy expects logits of shape (batch, classes) and a target of shape "
            "(batch,) holding one class index per sample, each between 0 and classes - 1. "
            "Check that the target is not (batch, 1), that both have the same batch size, "
            "that no label is >= the number of classes, and that the logits are not 1-D: "
            "logits of shape (classes,) are a single sample (logits.unsqueeze(0) makes them "
            "(1, classes)).",
            "交叉熵要求 logits 的形状是 (batch, classes)，target 的形状是 (batch,)："
            "每个样本一个类别索引，取值在 0 到 classes - 1 之间。"
            "请检查 target 不是 (batch, 1)、两者的 batch 大小相同、没有标签 >= 类别数，"
            "并且 logits 不是一维的：形状为 (classes,) 的 logits 只是单个样本"
            "（logits.unsqueeze(0) 把它变成 (1, classes)）。",
        ),
    ),
    (
        "cross-entropy-target-shape",
        re.compile(r"floating point type for target with class probabilities", re.I),
        _const(
            "Cross-entropy read the target as class probabilities, because it has the same "
            "shape as the logits, and probabilities must be floating point. Usually the target "
            "holds class indices instead: then the logits must be (batch, classes), one row "
            "per sample (logits of shape (classes,) are a single sample: logits.unsqueeze(0)), "
            "and the target (batch,) of class indices (torch.long). Convert the target with "
            ".float() only if it really holds probabilities (one-hot rows, or rows summing to "
            "1): class indices made float run but give a wrong loss.",
            "交叉熵把 target 当作了类别概率，因为它的形状与 logits 相同，而概率必须是浮点数。"
            "通常 target 存放的是类别索引：这时 logits 的形状必须是 (batch, classes)，"
            "每个样本一行（形状为 (classes,) 的 logits 只是单个样本：用 logits.unsqueeze(0)），"
            "target 的形状是 (batch,)，存放类别索引（torch.long）。"
            "只有 target 确实是概率（one-hot 的行，或每行加起来等于 1）时才用 .float() 转换："
            "把类别索引转成浮点数虽然能运行，算出的 loss 却是错的。",
        ),
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
        _const(
            "This operation needs floating-point numbers, but it got an integer tensor. A "
            "tensor made from a list of whole numbers (torch.tensor([1, 2])) is int64 (Long). "
            "Say dtype=torch.float32 when you create it, or convert with .float().",
            "这个运算需要浮点数，拿到的却是整数张量。由整数列表创建的张量"
            "（torch.tensor([1, 2])）是 int64（Long）。"
            "请在创建时写明 dtype=torch.float32，或者用 .float() 转换。",
        ),
    ),
    (
        "dtype-mismatch",
        re.compile(
            r"must have the same dtype|expected scalar type|to have the same dtype|"
            r"Found dtype \w+ but expected|result type \w+ can't be cast",
            re.I,
        ),
        _const(
            "The operands have different dtypes (for example Float and Long, or float32 and "
            "float64). torch does not convert them silently for this operation. Create them "
            "with the same dtype, or convert one with .to(other.dtype); features are usually "
            "float32, class labels long.",
            "操作数的 dtype 不同（例如 Float 和 Long，或者 float32 和 float64），"
            "这个运算不会悄悄帮你转换。请用相同的 dtype 创建它们，"
            "或者用 .to(other.dtype) 转换其中一个；特征通常是 float32，类别标签是 long。",
        ),
    ),
    (
        "backward-twice",
        re.compile(r"backward through the graph a second time", re.I),
        _const(
            "backward() frees the values the graph saved, so the same graph cannot be walked "
            "again. Usually you want a fresh forward pass before each backward. If you really "
            "need to go through the same graph twice, pass retain_graph=True to the first "
            "backward() call.",
            "backward() 会释放计算图保存的中间值，所以同一张图不能再反向传播一次。"
            "通常应该在每次 backward 之前重新做一次前向计算。"
            "如果确实需要对同一张图反向传播两次，请在第一次调用 backward() 时传入 "
            "retain_graph=True。",
        ),
    ),
    (
        "numpy-requires-grad",
        re.compile(r"Can't call numpy\(\) on Tensor that requires grad", re.I),
        _const(
            "This tensor is part of an autograd graph (it requires grad), and a NumPy array "
            "cannot carry that graph. Take it out of the graph first: "
            "tensor.detach().cpu().numpy().",
            "这个张量在 autograd 的计算图上（它需要梯度），而 NumPy 数组带不走这张图。"
            "请先把它从图中分离出来：tensor.detach().cpu().numpy()。",
        ),
    ),
    (
        "numpy-device",
        re.compile(r"can't convert .* device type tensor to numpy", re.I),
        _const(
            "NumPy arrays live in CPU memory, and this tensor is on another device. Copy it to "
            "the CPU first: tensor.detach().cpu().numpy().",
            "NumPy 数组存放在 CPU 内存里，而这个张量在另一个设备上。"
            "请先把它复制到 CPU：tensor.detach().cpu().numpy()。",
        ),
    ),
    (
        "view-non-contiguous",
        re.compile(r"view size is not compatible with input tensor's size and stride", re.I),
        _const(
            "view() only re-reads the same memory with a new shape, and this tensor's elements "
            "are not laid out in the order the new shape needs (it is not contiguous, e.g. "
            "after t(), transpose or permute). Use reshape(), which copies when it must, or "
            "call contiguous() first (that also copies).",
            "view() 只是用新形状重新解读同一块内存，而这个张量的元素在内存里的排列顺序"
            "不符合新形状的要求（它不连续，例如经过 t()、transpose 或 permute 之后）。"
            "请改用 reshape()（必要时会复制），或者先调用 contiguous()（这也会复制）。",
        ),
    ),
    (
        "inplace-leaf",
        re.compile(r"leaf Variable that requires grad is being used in an in-place", re.I),
        _const(
            "You changed in place a leaf tensor that requires grad (a parameter, or a tensor "
            "made with requires_grad=True). autograd cannot record that. Update parameters "
            "inside 'with torch.no_grad():' (that is what an optimizer does), or compute a new "
            "tensor out of place instead.",
            "你原地修改了一个需要梯度的叶子张量（模型参数，或者用 requires_grad=True 创建的张量），"
            "autograd 无法记录这种修改。请在 'with torch.no_grad():' 里更新参数"
            "（optimizer 就是这样做的），或者改用非原地操作算出一个新张量。",
        ),
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
        _const(
            "Matrix multiplication needs the inner sizes to agree: (n, k) @ (k, m) gives "
            "(n, m). Here the last size of the left operand differs from the first size of the "
            "right one. For nn.Linear(in_features, out_features) the input's last size must be "
            "in_features. Check the operands' shapes below.",
            "矩阵乘法要求内侧的两个维度大小一致：(n, k) @ (k, m) 得到 (n, m)。"
            "这里左操作数最后一维的大小和右操作数第一维的大小不同。"
            "对于 nn.Linear(in_features, out_features)，输入最后一维的大小必须是 in_features。"
            "请对照下面列出的操作数形状检查。",
        ),
    ),
    (
        "broadcast-shape",
        re.compile(
            r"The size of tensor a \(\d+\) must match the size of tensor b|"
            r"operands could not be broadcast together|shape mismatch|"
            r"The expanded size of the tensor",
            re.I,
        ),
        _const(
            "Broadcasting compares shapes from the last dimension backwards: two sizes fit "
            "when they are equal or one of them is 1. Here one dimension has two different "
            "sizes, neither 1. Reshape or unsqueeze one operand (e.g. b.unsqueeze(1)) so that "
            "the sizes line up as you mean them.",
            "广播从尾部维度向前比较形状：两个维度相等，或者其中一个为 1，才能广播。"
            "这里有一个维度的两个大小不同，而且都不是 1。"
            "请对其中一个操作数做 reshape 或 unsqueeze（例如 b.unsqueeze(1)），"
            "让各个维度按你的本意对齐。",
        ),
    ),
    (
        "backward-non-scalar",
        re.compile(r"grad can be implicitly created only for scalar outputs", re.I),
        _const(
            "backward() without arguments needs a single number (a scalar loss). For a tensor "
            "with several elements pass the upstream gradient of the same shape, e.g. "
            "y.backward(torch.ones_like(y)), or reduce it first (y.sum().backward()).",
            "不带参数的 backward() 需要一个单独的数（标量 loss）。"
            "对有多个元素的张量，请传入同形状的上游梯度，例如 "
            "y.backward(torch.ones_like(y))，或者先把它归约成标量（y.sum().backward()）。",
        ),
    ),
    (
        "backward-no-grad",
        re.compile(r"does not require grad and does not have a grad_fn", re.I),
        _const(
            "This tensor is not connected to any autograd graph, so there is nothing to "
            "differentiate. It was made by detach(), under torch.no_grad() or "
            "torch.inference_mode(), or from tensors none of which has requires_grad=True.",
            "这个张量没有连接到任何 autograd 计算图，所以没有东西可以求导。"
            "它是由 detach() 得到的，或者是在 torch.no_grad() 或 torch.inference_mode() "
            "下算出来的，或者算出它的张量都没有 requires_grad=True。",
        ),
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
        _const(
            "item() and float() turn a tensor with exactly one element into a Python number; "
            "this tensor has more. Reduce it first (sum(), mean()) or index one element, or "
            "use tolist() for all of them.",
            "item() 和 float() 只能把恰好只有一个元素的张量转成 Python 数字，"
            "而这个张量的元素不止一个。请先归约（sum()、mean()）或用索引取出一个元素；"
            "要得到全部元素请用 tolist()。",
        ),
    ),
    (
        "ambiguous-bool",
        re.compile(
            r"Boolean value of Tensor with more than one value is ambiguous|"
            r"truth value of an array with more than one element is ambiguous",
            re.I,
        ),
        _const(
            "An if/while/and/or needs one True or False, but the tensor has many elements. "
            "Say which you mean: .all() (every element) or .any() (at least one).",
            "if/while/and/or 需要一个 True 或 False，但这个张量有多个元素。"
            "请写明你的意思：.all()（每个元素都为真）或 .any()（至少有一个为真）。",
        ),
    ),
    (
        "inplace-overlap",
        re.compile(
            r"more than one element of the written-to tensor refers to a single memory", re.I
        ),
        _const(
            "The tensor written to is a view in which several elements share the same memory "
            "(for example made by expand()), so an in-place write would be ambiguous. clone() "
            "it first to get a tensor that owns separate memory.",
            "被写入的张量是一个视图，它的多个元素共享同一块内存（例如由 expand() 得到），"
            "所以原地写入的结果是不确定的。请先 clone() 一份，得到拥有独立内存的张量。",
        ),
    ),
    (
        "device-unavailable",
        re.compile(
            r"not compiled with CUDA|no NVIDIA driver|CUDA driver|"
            r"invalid device ordinal|MPS backend",
            re.I,
        ),
        _const(
            "The device asked for does not exist on this machine. Use "
            "torch.device('cuda' if torch.cuda.is_available() else 'cpu'), or one of the "
            "devices listed by the app's device chooser.",
            "这台机器上没有所请求的设备。请用 "
            "torch.device('cuda' if torch.cuda.is_available() else 'cpu')，"
            "或者选择本应用设备选择框里列出的设备。",
        ),
    ),
    (
        "out-of-memory",
        re.compile(r"out of memory|can't allocate memory|DefaultCPUAllocator", re.I),
        _const(*_OOM),
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
_CE_Texts = tuple[str, str, str]  # (kind, English, Chinese)


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


def _ce_one_sample(
    logits: torch.Tensor, target: torch.Tensor, lg: str, tg: str, ignore: Any
) -> _CE_Texts | None:
    """Advice for 1-D logits, shape (classes,): a single sample."""
    classes = logits.shape[0]
    v = _numbers(target)
    if target.numel() == 1 and target.dim() <= 1:
        if target.dtype == torch.long or v is None or not _indices(v, classes, ignore):
            return None
        return (
            "cross-entropy-target-shape",
            f"{lg} is 1-D, shape ({classes},): cross-entropy wants logits of shape "
            "(batch, classes) and a target of shape (batch,) holding one class index per "
            f"sample, as torch.long. Here that is one sample with {classes} classes: give it "
            "a batch dimension and make the label a long class index: "
            f"F.cross_entropy({lg}.unsqueeze(0), {tg}.reshape(1).long()) "
            f"(logits (1, {classes}), target (1,)).",
            f"{lg} 是一维的，形状为 ({classes},)：交叉熵要求 logits 的形状是 (batch, classes)，"
            "target 的形状是 (batch,)，每个样本一个 torch.long 类型的类别索引。"
            f"这里是一个有 {classes} 个类别的样本：请给它加上 batch 维，"
            "并把标签转成 long 类型的类别索引："
            f"F.cross_entropy({lg}.unsqueeze(0), {tg}.reshape(1).long())"
            f"（logits 为 (1, {classes})，target 为 (1,)）。",
        )
    if target.dim() != 1:
        return None
    n = target.shape[0]
    en = (
        f"{lg} is 1-D, shape ({classes},), so cross-entropy reads it as the scores of a single "
        f"sample over {classes} classes, but {tg} holds {n} labels, one per sample. Logits must "
        "be (batch, classes): one row of class scores per sample, here "
        f"({n}, classes), with {tg} of shape ({n},) holding class indices (torch.long). Make "
        "the model give one row per sample (for a single sample, "
        f"{lg}.unsqueeze(0) gives (1, {classes}) and the target is one class index)."
    )
    zh = (
        f"{lg} 是一维的，形状为 ({classes},)，所以交叉熵把它当作单个样本在 {classes} 个类别上的"
        f"分数；而 {tg} 有 {n} 个标签，每个样本一个。logits 的形状必须是 (batch, classes)："
        f"每个样本一行类别分数，这里应为 ({n}, classes)，{tg} 的形状为 ({n},)，"
        "存放类别索引（torch.long）。请让模型为每个样本给出一行"
        f"（只有一个样本时，{lg}.unsqueeze(0) 得到 (1, {classes})，target 是一个类别索引）。"
    )
    if n == classes and not target.is_floating_point():
        en += (
            f" Do not convert {tg} with .float(): a float target of the logits' shape is read "
            "as class probabilities, so that runs but gives a wrong loss."
        )
        zh += (
            f"不要用 .float() 转换 {tg}：与 logits 形状相同的浮点 target 会被当作类别概率，"
            "这样虽然能运行，算出的 loss 却是错的。"
        )
        if v is not None and bool(((v == 0) | (v == 1)).all()):
            en += (
                f" If {lg} holds one score per sample for a yes/no label, use "
                f"F.binary_cross_entropy_with_logits({lg}, {tg}.float()) instead, or give two "
                f"scores per sample, shape ({n}, 2)."
            )
            zh += (
                f"如果 {lg} 是每个样本在“是/否”问题上的一个分数，请改用 "
                f"F.binary_cross_entropy_with_logits({lg}, {tg}.float())，"
                f"或者为每个样本给出两个分数，形状为 ({n}, 2)。"
            )
    return "cross-entropy-target-shape", en, zh


def _ce_batch(
    logits: torch.Tensor, target: torch.Tensor, lg: str, tg: str, ignore: Any
) -> _CE_Texts | None:
    """Advice for logits of shape (batch, classes) (or (batch, classes, d1, ...))."""
    classes = logits.shape[1]
    index_shape = logits.shape[:1] + logits.shape[2:]
    v = _numbers(target)
    if v is None or not bool(torch.isfinite(v).all()):
        return None  # nan or inf among the labels: the message's own words
    last = classes - 1
    if target.shape == index_shape and target.dtype != torch.long:
        if _indices(v, classes, ignore):
            return (
                "cross-entropy-target-dtype",
                "Cross-entropy wants class labels as integer class indices (torch.long), one "
                f"per sample, but {tg} is {_dtype(target)}. Its values are whole numbers from 0 "
                f"to {last}, so they are class indices: convert with {tg}.long() (or make it "
                "with dtype=torch.long). Float targets are only for class probabilities, with "
                "the same shape as the logits.",
                "交叉熵要求类别标签是整数类别索引（torch.long），每个样本一个，"
                f"但 {tg} 的 dtype 是 {_dtype(target)}。它的值都是 0 到 {last} 之间的整数，"
                f"所以它们是类别索引：请用 {tg}.long() 转换（或者用 dtype=torch.long 创建）。"
                "只有表示类别概率时 target 才用浮点数，而且形状要与 logits 相同。",
            )
        fractions = v[v != torch.round(v)]
        if fractions.numel():
            x = float(fractions.flatten()[0])
            example, cut = f"{x:g}", f"{math.trunc(x)}"
            en = (
                f"{tg} has one value per sample, shape {_shape(target)}, but its values are "
                f"fractions (such as {example}), not class indices, so {tg}.long() would cut "
                f"them to wrong classes ({example} becomes {cut}) and the loss would be wrong. "
                "Cross-entropy takes either class indices (shape (batch,), whole numbers "
                f"from 0 to {last}, torch.long) or class probabilities (float, the same shape "
                f"as the logits {_shape(logits)}, each row summing to 1)."
            )
            zh = (
                f"{tg} 每个样本一个值，形状为 {_shape(target)}，但它的值是小数（例如 {example}），"
                f"不是类别索引，所以 {tg}.long() 会把它们截成错误的类别（{example} 变成 {cut}），"
                "算出的 loss 是错的。交叉熵的 target 要么是类别索引：形状为 (batch,)，"
                f"取值为 0 到 {last} 的整数，dtype 为 torch.long；要么是类别概率：浮点数，"
                f"形状与 logits 的 {_shape(logits)} 相同，每一行加起来等于 1。"
            )
            if classes == 2 and logits.dim() == 2 and bool(((v >= 0) & (v <= 1)).all()):
                en += (
                    f" If {tg} is the probability of class 1, the class probabilities are "
                    f"torch.stack([1 - {tg}, {tg}], dim=1)."
                )
                zh += (
                    f"如果 {tg} 表示属于类别 1 的概率，对应的类别概率是 "
                    f"torch.stack([1 - {tg}, {tg}], dim=1)。"
                )
            return "cross-entropy-target-dtype", en, zh
        bad = v[~(((v >= 0) & (v < classes)) | (v == ignore))]
        shown = f"{float(bad.flatten()[0]):g}" if bad.numel() else "?"
        en = (
            "Cross-entropy wants class labels as integer class indices (torch.long), one per "
            f"sample, from 0 to {last} for these {classes} classes, but {tg} is "
            f"{_dtype(target)} and holds {shown}. Check the labels and the number of classes "
            f"(the logits' size in dimension 1, {classes}) first; then make the labels "
            "torch.long."
        )
        zh = (
            "交叉熵要求类别标签是整数类别索引（torch.long），每个样本一个，"
            f"对这 {classes} 个类别取值为 0 到 {last}，但 {tg} 的 dtype 是 {_dtype(target)}，"
            f"并且含有 {shown}。请先检查标签和类别数（logits 第 1 维的大小，{classes}），"
            "再把标签转成 torch.long。"
        )
        if bool((v >= 1).all() & (v <= classes).all()):
            en += f" Labels counted from 1 become class indices with ({tg} - 1).long()."
            zh += f"从 1 开始编号的标签可以用 ({tg} - 1).long() 变成类别索引。"
        return "cross-entropy-target-dtype", en, zh
    if target.shape == logits.shape and not target.is_floating_point():
        one_hot = bool(((v == 0) | (v == 1)).all()) and bool((v.sum(1) == 1).all())
        en = (
            f"{tg} has the same shape as the logits, {_shape(logits)}, so cross-entropy reads "
            "it as class probabilities, which must be floating point; but "
            f"{tg} is {_dtype(target)}."
        )
        zh = (
            f"{tg} 的形状与 logits 相同，都是 {_shape(logits)}，所以交叉熵把它当作类别概率，"
            f"而概率必须是浮点数；但 {tg} 的 dtype 是 {_dtype(target)}。"
        )
        if one_hot:
            en += (
                f" Its rows are one-hot, so the class indices are {tg}.argmax(dim=1) (shape "
                f"{_shape(index_shape)}, torch.long), what cross-entropy usually takes; "
                f"{tg}.float() gives the same loss."
            )
            zh += (
                f"它的每一行都是 one-hot，所以类别索引就是 {tg}.argmax(dim=1)"
                f"（形状 {_shape(index_shape)}，torch.long），这是交叉熵通常使用的形式；"
                f"{tg}.float() 得到的 loss 相同。"
            )
        else:
            en += (
                " Its rows are not one-hot, so they are not probabilities as they are. If it "
                f"should hold one class index per sample, its shape is {_shape(index_shape)}; "
                "if it holds counts, probabilities are "
                f"{tg}.float() / {tg}.sum(dim=1, keepdim=True)."
            )
            zh += (
                "它的行不是 one-hot，本身并不是概率。如果它应当为每个样本存放一个类别索引，"
                f"形状应为 {_shape(index_shape)}；如果它存放的是计数，对应的概率是 "
                f"{tg}.float() / {tg}.sum(dim=1, keepdim=True)。"
            )
        return "cross-entropy-target-dtype", en, zh
    if (
        target.dim() == logits.dim()
        and target.shape[1] == 1
        and target.shape[:1] + target.shape[2:] == index_shape
        and _indices(v, classes, ignore)
    ):
        fix = f"{tg}.squeeze(1)" + ("" if target.dtype == torch.long else ".long()")
        return (
            "cross-entropy-target-shape",
            f"{tg} has shape {_shape(target)}: one column, but cross-entropy wants one class "
            f"index per sample in a target of shape {_shape(index_shape)}, that is (batch,). "
            f"Remove the column: {fix}.",
            f"{tg} 的形状是 {_shape(target)}：只有一列，而交叉熵要求 target 的形状是 "
            f"{_shape(index_shape)}，即 (batch,)，每个样本一个类别索引。请去掉这一列：{fix}。",
        )
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


def explain(exc: BaseException, values: _Values | None = None) -> Explanation | None:
    """The usual cause of ``exc`` in plain words, or None when there is nothing to add.

    ``values``: the values the failing line reads, by name (the runner passes them); the
    advice names the learner's tensors with them. The arguments torch was called with are
    read from ``exc``'s traceback where the message alone could mislead (cross-entropy)."""
    message = str(exc)
    values = values or {}
    if isinstance(exc, NameError):
        m = _NAME_ERROR.search(message)
        if m and m.group(1) in REFUSED_BUILTINS | {"type"}:
            return Explanation(
                "not-available",
                f"{m.group(1)}() is not available in the restricted runner: lessons and "
                "programs may not open files, run code from strings or reach Python internals.",
                f"{m.group(1)}() 在受限运行器里不可用：课程和程序不能打开文件、"
                "不能执行写在字符串里的代码，也不能访问 Python 的内部机制。",
            )
        if m:
            name, name_zh = m.group(1), m.group(1)
        else:
            name, name_zh = "this name", "这个名字"
        return Explanation(
            "not-defined",
            f"{name} has no value yet. Run the statement that makes it first, or check the "
            "spelling (names are case-sensitive).",
            f"{name_zh} 还没有值。请先运行创建它的语句，或者检查拼写（名字区分大小写）。",
        )
    if isinstance(exc, RecursionError):
        return Explanation(
            "recursion",
            "A function called itself (directly or through others) too many times without "
            "stopping. Check the condition that should end the recursion.",
            "一个函数（直接或通过别的函数）调用自己的次数太多，一直停不下来。"
            "请检查本应结束递归的条件。",
        )
    if isinstance(exc, MemoryError):
        return Explanation("out-of-memory", *_OOM)
    try:
        found = _cross_entropy(exc, message, values)
    except Exception:  # reading the values must never hide the error itself
        found = None
    if found is not None:
        return found
    for kind, pattern, texts in _RULES:
        m = pattern.search(message)
        if m:
            return Explanation(kind, *texts(m, values))
    return None


_WARNINGS: list[tuple[re.Pattern[str], _Texts]] = [
    (
        re.compile(r"\.grad attribute of a Tensor that is not a leaf Tensor", re.I),
        (
            "This tensor is computed from others (not a leaf), so backward() does not keep its "
            "gradient and .grad is None. Call .retain_grad() on it before backward() if you "
            "want it, or read .grad of the leaf tensors (those you made with "
            "requires_grad=True).",
            "这个张量是由其他张量算出来的（不是叶子张量），所以 backward() 不会保留它的梯度，"
            ".grad 是 None。如果需要它的梯度，请在 backward() 之前对它调用 .retain_grad()，"
            "或者读取叶子张量（你用 requires_grad=True 创建的那些）的 .grad。",
        ),
    ),
    (
        re.compile(r"TypedStorage is deprecated", re.I),
        (
            "tensor.storage() is the old API; tensor.untyped_storage() shows the same bytes.",
            "tensor.storage() 是旧的 API；tensor.untyped_storage() 显示的是同样的字节。",
        ),
    ),
    (
        re.compile(r"non-writable|not writable|non-writeable", re.I),
        (
            "The NumPy array is read-only, and the tensor made from it shares its memory; "
            "writing to the tensor would be undefined. Copy it first (array.copy()).",
            "这个 NumPy 数组是只读的，而由它创建的张量与它共享内存；"
            "写入这个张量的结果是未定义的。请先复制一份（array.copy()）。",
        ),
    ),
]


def explain_warning(message: str, lang: str = "en") -> str | None:
    """Plain words for a warning torch or NumPy raised while a program ran, if we have any
    (``lang``: "en" or "zh")."""
    for pattern, (en, zh) in _WARNINGS:
        if pattern.search(message):
            return zh if lang == "zh" else en
    return None


def warning_texts() -> list[_Texts]:
    """Every (English, Chinese) pair :func:`explain_warning` can give."""
    return [texts for _pattern, texts in _WARNINGS]
