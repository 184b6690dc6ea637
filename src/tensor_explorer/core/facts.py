"""What a value *is*: `describe(value) -> TensorFacts`, for torch tensors and NumPy arrays.

Every fact is read from torch or NumPy themselves (``stride()``, ``_version``,
``untyped_storage()``, ``__array_interface__``...), never re-derived, so the Inspector can show
them with confidence. The result is a plain dataclass; ``to_dict()`` is JSON-safe.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import torch

from . import loading, memory
from .catalog import Message

Value = torch.Tensor | np.ndarray


@dataclass(frozen=True)
class GradFacts:
    """The ``.grad`` of a tensor, summarised: its shape and its L2 norm (float64)."""

    shape: list[int]
    norm: float


@dataclass(frozen=True)
class TensorFacts:
    """All facts of one tensor or array. Field names match the public ``to_dict`` keys."""

    kind: str  # "tensor" | "ndarray"
    shape: list[int]
    dtype: str  # "torch.float32" for tensors, "float32" for arrays
    device: str  # "cpu" for arrays
    requires_grad: bool
    is_leaf: bool
    grad_fn: str | None
    grad: GradFacts | None
    stride: list[int]  # in elements
    storage_offset: int  # in elements
    is_contiguous: bool
    numel: int
    element_size: int
    nbytes: int
    storage_nbytes: int
    version: int
    is_inference: bool
    internal_overlap: bool
    # -- extra facts (beyond the contract's minimum) --
    layout: str = "strided"
    is_view: bool = False
    is_parameter: bool = False
    retains_grad: bool = False
    byte_order: str = "native"  # "native" | "big-endian" | "little-endian" (NumPy only)
    writeable: bool = True
    mapped_file: str | None = None  # the file whose memory map holds this value's bytes
    mapped_offset: int | None = None  # the byte of that file where the first element lies
    mapped_mode: str | None = None  # "copy-on-write" | "read-only" | "read-write"
    #: the same in bytes (what NumPy's ``strides`` say): a record's field steps over the other
    #: fields, so its stride may be no whole number of its own elements (22 bytes of float64)
    byte_stride: list[int] = field(default_factory=list)
    byte_offset: int = 0
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict of every fact (``grad`` is None or {"shape", "norm"})."""
        return asdict(self)


def describe(value: Value) -> TensorFacts:
    """Return the facts of a ``torch.Tensor`` or ``numpy.ndarray``.

    NumPy scalars are described as 0-d arrays. Anything else raises ``TypeError`` with a
    message naming what was given.
    """
    if isinstance(value, torch.Tensor):
        return _describe_tensor(value)
    if isinstance(value, np.generic):
        value = np.asarray(value)
    if isinstance(value, np.ndarray):
        return _describe_array(value)
    raise TypeError(
        f"describe() takes a torch.Tensor or a numpy.ndarray, not {type(value).__name__}"
    )


_SPARSE_COMPRESSED = (torch.sparse_csr, torch.sparse_csc, torch.sparse_bsr, torch.sparse_bsc)


def grad_norm(t: torch.Tensor | None) -> float | None:
    """The L2 norm of a gradient (or any tensor), computed in float64, or in complex128 for a
    complex tensor (``sqrt(sum |z|^2)``: imaginary parts count); ``None`` for ``None`` or for a
    tensor without values (``meta``). Sparse gradients are measured on their stored values.
    The one norm the history table, the plot and the graph pane's edge labels share."""
    if t is None or t.device.type == "meta":
        return None
    g = t.detach()
    if g.layout == torch.sparse_coo:
        g = g.coalesce().values()
    elif g.layout in _SPARSE_COMPRESSED:
        g = g.values()
    wide = torch.complex128 if g.is_complex() else torch.float64
    return float(torch.linalg.vector_norm(g.to(wide)))


def _grad_facts(grad: torch.Tensor | None) -> GradFacts | None:
    if grad is None:
        return None
    with torch.no_grad():
        norm = grad_norm(grad) if grad.numel() else 0.0
    return GradFacts(shape=list(grad.shape), norm=math.nan if norm is None else norm)


def _describe_tensor(t: torch.Tensor) -> TensorFacts:
    notes: list[str] = []
    is_inference = bool(t.is_inference())
    strided = t.layout == torch.strided
    # `.grad` of a non-leaf warns unless retain_grad() was called: only read it when allowed.
    grad = t.grad if (t.is_leaf or t.retains_grad) else None
    try:
        version = int(t._version)
    except RuntimeError:  # inference tensors have no version counter
        version = 0
        notes.append(Message("facts.note-inference"))
    if strided:
        stride = list(t.stride())
        storage_offset = int(t.storage_offset())
        storage_nbytes = int(t.untyped_storage().nbytes())
        is_contiguous = bool(t.is_contiguous())
    else:
        stride, storage_offset, storage_nbytes, is_contiguous = [], 0, 0, False
        notes.append(Message("facts.note-not-strided", layout=str(t.layout)))
    element_size = int(t.element_size())
    numel = int(t.numel())
    mapped = loading.map_info_of(t) if strided and t.device.type == "cpu" else None
    return TensorFacts(
        kind="tensor",
        shape=list(t.shape),
        dtype=str(t.dtype),
        device=str(t.device),
        requires_grad=bool(t.requires_grad),
        is_leaf=bool(t.is_leaf),
        grad_fn=type(t.grad_fn).__name__ if t.grad_fn is not None else None,
        grad=_grad_facts(grad),
        stride=stride,
        storage_offset=storage_offset,
        is_contiguous=is_contiguous,
        numel=numel,
        element_size=element_size,
        nbytes=numel * element_size,
        storage_nbytes=storage_nbytes,
        version=version,
        is_inference=is_inference,
        internal_overlap=bool(strided and memory.internal_overlap(t)),
        layout=str(t.layout).removeprefix("torch."),
        is_view=bool(t._is_view()),
        is_parameter=isinstance(t, torch.nn.Parameter),
        retains_grad=bool(t.retains_grad),
        mapped_file=mapped.path if mapped else None,
        mapped_offset=mapped.offset if mapped else None,
        mapped_mode=mapped.mode if mapped else None,
        byte_stride=[n * element_size for n in stride],
        byte_offset=storage_offset * element_size,
        notes=notes,
    )


def _byte_order(dtype: np.dtype) -> str:
    if dtype.byteorder in ("=", "|"):
        return "native"
    if dtype.byteorder == "<":
        return "native" if np.little_endian else "little-endian"
    return "big-endian" if np.little_endian else "native"


def _describe_array(a: np.ndarray) -> TensorFacts:
    itemsize = int(a.itemsize)
    notes: list[str] = []
    # in elements, floored where a record's field steps over the others (a note says so)
    stride = [s // itemsize if itemsize else 0 for s in a.strides]
    if itemsize and any(s % itemsize for s in a.strides):
        notes.append(Message("facts.note-byte-strides", strides=str(tuple(a.strides)),
                             itemsize=itemsize))
    alloc = memory.allocation(a)
    storage_offset = alloc.offset_bytes // itemsize if itemsize else 0
    mapped = loading.map_info_of(a)
    ptr = int(a.__array_interface__["data"][0])
    # the array a file holds, memory-mapped, is that file's value, not a view of another
    is_view = a.base is not None and not (
        mapped is not None and mapped.whole(ptr, tuple(a.shape), tuple(a.strides))
    )
    notes.extend(loading.load_notes(a))
    return TensorFacts(
        kind="ndarray",
        shape=[int(n) for n in a.shape],
        dtype=str(a.dtype),
        device="cpu",
        requires_grad=False,
        is_leaf=True,
        grad_fn=None,
        grad=None,
        stride=stride,
        storage_offset=int(storage_offset),
        is_contiguous=bool(a.flags.c_contiguous),
        numel=int(a.size),
        element_size=itemsize,
        nbytes=int(a.nbytes),
        storage_nbytes=int(alloc.nbytes),
        version=0,
        is_inference=False,
        internal_overlap=bool(memory.internal_overlap(a)),
        layout="strided",
        is_view=is_view,
        byte_order=_byte_order(a.dtype),
        writeable=bool(a.flags.writeable),
        mapped_file=mapped.path if mapped else None,
        mapped_offset=mapped.offset if mapped else None,
        mapped_mode=mapped.mode if mapped else None,
        byte_stride=[int(b) for b in a.strides],
        byte_offset=int(alloc.offset_bytes),
        notes=notes,
    )


# ---------------------------------------------------------------------------- summaries


@dataclass(frozen=True)
class Badge:
    """A short tag shown next to a value's name: ``kind`` is one of "shape", "dtype",
    "device", "grad" (requires grad), "grad_fn" (computed by autograd), "has_grad" (.grad is
    set), "no_grad" (cut off from autograd), "inference", "type" (a non-tensor value)."""

    kind: str
    text: str


def short_dtype(dtype: torch.dtype | np.dtype) -> str:
    """``torch.float32`` -> ``float32``; NumPy dtypes as NumPy spells them; a record (a
    structured dtype) by its fields, in braces: ``{x, pos, when}`` (no words to translate)."""
    names = getattr(dtype, "names", None)
    if names:
        inner = ", ".join(names)
        return "{" + (inner if len(inner) <= 38 else inner[:37] + "…") + "}"
    return str(dtype).removeprefix("torch.")


def shape_text(shape: Any) -> str:
    """``(2, 3)`` -> ``2×3``; a 0-d shape -> ``scalar``."""
    dims = [int(n) for n in shape]
    return "×".join(str(n) for n in dims) if dims else "scalar"


def badges(value: Any) -> list[Badge]:
    """The badges of any workspace value (tensor, array, module, plain Python result)."""
    if isinstance(value, torch.Tensor):
        out = [
            Badge("shape", shape_text(value.shape)),
            Badge("dtype", short_dtype(value.dtype)),
            Badge("device", str(value.device)),
        ]
        if value.is_inference():
            out.append(Badge("inference", "inference"))
        if value.grad_fn is not None:
            out.append(Badge("grad_fn", type(value.grad_fn).__name__))
        elif value.requires_grad:
            out.append(Badge("grad", "requires_grad"))
        if (value.is_leaf or value.retains_grad) and value.grad is not None:
            out.append(Badge("has_grad", ".grad"))
        return out
    if isinstance(value, np.ndarray):
        return [
            Badge("shape", shape_text(value.shape)),
            Badge("dtype", short_dtype(value.dtype)),
            Badge("type", "ndarray"),
        ]
    if isinstance(value, torch.nn.Module):
        n = sum(p.numel() for p in value.parameters())
        return [Badge("type", type(value).__name__), Badge("shape", f"{n:,} params")]
    return [Badge("type", type(value).__name__)]
