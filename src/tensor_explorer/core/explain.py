"""Plain-words explanations of the errors and warnings learners meet in the seed chapters.

:func:`explain` maps an exception raised by a program (usually torch's ``RuntimeError``) to a
short *kind* code and a paragraph that says what usually causes it and what to do. The kind codes
are stable; the lesson checker and the Inspector can match on them:

``device-mismatch``, ``not-floating``, ``dtype-mismatch``, ``cross-entropy-target-dtype``,
``cross-entropy-target-shape``, ``backward-twice``, ``numpy-requires-grad``, ``numpy-device``,
``view-non-contiguous``, ``inplace-leaf``, ``inplace-saved``, ``matmul-shape``,
``broadcast-shape``, ``backward-non-scalar``, ``backward-no-grad``, ``inference-tensor``,
``item-non-scalar``, ``ambiguous-bool``, ``inplace-overlap``, ``device-unavailable``,
``out-of-memory``, ``not-defined``, ``not-available``, ``recursion``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .sandbox import REFUSED_BUILTINS


@dataclass(frozen=True)
class Explanation:
    """What an error usually means: a stable ``kind`` code and plain words."""

    kind: str
    text: str


_OOM = (
    "There is not enough memory for this tensor. Use a smaller shape or batch, free tensors "
    "you no longer need (del x), or compute under torch.no_grad() so that no graph is kept."
)

_Rule = tuple[str, "re.Pattern[str]", Callable[["re.Match[str]"], str]]


def _const(text: str) -> Callable[[re.Match[str]], str]:
    return lambda _m: text


def _inplace_saved(m: re.Match[str]) -> str:
    return (
        "A tensor that autograd saved during the forward pass was changed in place afterwards "
        f"(it is now at version {m.group(1)}, but backward needs the version {m.group(2)} it "
        "saw). Every in-place operation (a method ending in '_', x[...] = ..., +=) bumps a "
        "tensor's version counter. Make the change out of place (y = y + 1), or clone() the "
        "tensor before changing it, or change it only after backward."
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
            "Remember that .to() returns a new tensor; it does not move the old one."
        ),
    ),
    (
        "cross-entropy-target-dtype",
        re.compile(r"expected target dtype to be Long|expected scalar type Long but found", re.I),
        _const(
            "Cross-entropy wants class labels as integer class indices (torch.long), one per "
            "sample, but the labels here are floating point. Make them with dtype=torch.long "
            "(or call labels.long()). Float targets are only for class probabilities, with the "
            "same shape as the logits."
        ),
    ),
    (
        "cross-entropy-target-shape",
        re.compile(
            r"0D or 1D target tensor expected|multi-target not supported|"
            r"Expected input batch_size \(\d+\) to match target batch_size|"
            r"Expected target size|Target \d+ is out of bounds",
            re.I,
        ),
        _const(
            "Cross-entropy expects logits of shape (batch, classes) and a target of shape "
            "(batch,) holding one class index per sample, each between 0 and classes - 1. "
            "Check that the target is not (batch, 1), that both have the same batch size and "
            "that no label is >= the number of classes."
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
            "Say dtype=torch.float32 when you create it, or convert with .float()."
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
            "float32, class labels long."
        ),
    ),
    (
        "backward-twice",
        re.compile(r"backward through the graph a second time", re.I),
        _const(
            "backward() frees the values the graph saved, so the same graph cannot be walked "
            "again. Usually you want a fresh forward pass before each backward. If you really "
            "need to go through the same graph twice, pass retain_graph=True to the first "
            "backward() call."
        ),
    ),
    (
        "numpy-requires-grad",
        re.compile(r"Can't call numpy\(\) on Tensor that requires grad", re.I),
        _const(
            "This tensor is part of an autograd graph (it requires grad), and a NumPy array "
            "cannot carry that graph. Take it out of the graph first: "
            "tensor.detach().cpu().numpy()."
        ),
    ),
    (
        "numpy-device",
        re.compile(r"can't convert .* device type tensor to numpy", re.I),
        _const(
            "NumPy arrays live in CPU memory, and this tensor is on another device. Copy it to "
            "the CPU first: tensor.detach().cpu().numpy()."
        ),
    ),
    (
        "view-non-contiguous",
        re.compile(r"view size is not compatible with input tensor's size and stride", re.I),
        _const(
            "view() only re-reads the same memory with a new shape, and this tensor's elements "
            "are not laid out in the order the new shape needs (it is not contiguous, e.g. "
            "after t(), transpose or permute). Use reshape(), which copies when it must, or "
            "call contiguous() first (that also copies)."
        ),
    ),
    (
        "inplace-leaf",
        re.compile(r"leaf Variable that requires grad is being used in an in-place", re.I),
        _const(
            "You changed in place a leaf tensor that requires grad (a parameter, or a tensor "
            "made with requires_grad=True). autograd cannot record that. Update parameters "
            "inside 'with torch.no_grad():' (that is what an optimizer does), or compute a new "
            "tensor out of place instead."
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
            "in_features. Check the operands' shapes below."
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
            "the sizes line up as you mean them."
        ),
    ),
    (
        "backward-non-scalar",
        re.compile(r"grad can be implicitly created only for scalar outputs", re.I),
        _const(
            "backward() without arguments needs a single number (a scalar loss). For a tensor "
            "with several elements pass the upstream gradient of the same shape, e.g. "
            "y.backward(torch.ones_like(y)), or reduce it first (y.sum().backward())."
        ),
    ),
    (
        "backward-no-grad",
        re.compile(r"does not require grad and does not have a grad_fn", re.I),
        _const(
            "This tensor is not connected to any autograd graph, so there is nothing to "
            "differentiate. It was made by detach(), under torch.no_grad() or "
            "torch.inference_mode(), or from tensors none of which has requires_grad=True."
        ),
    ),
    (
        "inference-tensor",
        re.compile(r"Inference tensors cannot be saved for backward|inference tensor", re.I),
        _const(
            "A tensor made under torch.inference_mode() is used in a computation that autograd "
            "records. Inference tensors never join a graph. Make it under torch.no_grad() "
            "instead, or use tensor.clone() outside inference mode to get a normal tensor."
        ),
    ),
    (
        "item-non-scalar",
        re.compile(
            r"cannot be converted to Scalar|only one element tensors can be converted", re.I
        ),
        _const(
            "item() and float() turn a tensor with exactly one element into a Python number; "
            "this tensor has more. Reduce it first (sum(), mean()) or index one element, or "
            "use tolist() for all of them."
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
            "Say which you mean: .all() (every element) or .any() (at least one)."
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
            "it first to get a tensor that owns separate memory."
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
            "devices listed by the app's device chooser."
        ),
    ),
    (
        "out-of-memory",
        re.compile(r"out of memory|can't allocate memory|DefaultCPUAllocator", re.I),
        _const(_OOM),
    ),
]

_NAME_ERROR = re.compile(r"name '(\w+)' is not defined")


def explain(exc: BaseException) -> Explanation | None:
    """The usual cause of ``exc`` in plain words, or None when there is nothing to add."""
    message = str(exc)
    if isinstance(exc, NameError):
        m = _NAME_ERROR.search(message)
        if m and m.group(1) in REFUSED_BUILTINS | {"type"}:
            return Explanation(
                "not-available",
                f"{m.group(1)}() is not available in the restricted runner: lessons and "
                "programs may not open files, run code from strings or reach Python internals.",
            )
        name = m.group(1) if m else "this name"
        return Explanation(
            "not-defined",
            f"{name} has no value yet. Run the statement that makes it first, or check the "
            "spelling (names are case-sensitive).",
        )
    if isinstance(exc, RecursionError):
        return Explanation(
            "recursion",
            "A function called itself (directly or through others) too many times without "
            "stopping. Check the condition that should end the recursion.",
        )
    if isinstance(exc, MemoryError):
        return Explanation("out-of-memory", _OOM)
    for kind, pattern, text in _RULES:
        m = pattern.search(message)
        if m:
            return Explanation(kind, text(m))
    return None


_WARNINGS: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(r"\.grad attribute of a Tensor that is not a leaf Tensor", re.I),
        "This tensor is computed from others (not a leaf), so backward() does not keep its "
        "gradient and .grad is None. Call .retain_grad() on it before backward() if you want "
        "it, or read .grad of the leaf tensors (those you made with requires_grad=True).",
    ),
    (
        re.compile(r"TypedStorage is deprecated", re.I),
        "tensor.storage() is the old API; tensor.untyped_storage() shows the same bytes.",
    ),
    (
        re.compile(r"non-writable|not writable|non-writeable", re.I),
        "The NumPy array is read-only, and the tensor made from it shares its memory; "
        "writing to the tensor would be undefined. Copy it first (array.copy()).",
    ),
]


def explain_warning(message: str) -> str | None:
    """Plain words for a warning torch or NumPy raised while a program ran, if we have any."""
    for pattern, text in _WARNINGS:
        if pattern.search(message):
            return text
    return None
