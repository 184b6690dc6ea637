"""Session files: a whole workspace in one file, opened without running or unpickling anything.

A session file is a zip archive with two kinds of members:

- ``manifest.json`` (deflated): everything but the bytes of tensors and arrays: the format name
  and version, the byte order of the machine that wrote it, the *allocations* (one per distinct
  memory block: device and size), the *values* in workspace order, the history
  (:class:`~tensor_explorer.core.workspace.Record`), the origins, the selection and notes;
- ``data/<i>.bin`` (stored, not compressed): the raw bytes of allocation ``i``, exactly
  ``nbytes`` of them.

Each distinct allocation is written **once**. A tensor is written as (allocation, storage range
inside it, dtype, shape, stride, storage offset); an array as (allocation, dtype with byte
order, shape, byte strides, byte offset of element 0). Blocks whose address ranges intersect
(a NumPy array and ``torch.from_numpy`` of it or of a slice of it, views, ``expand``...) are
merged into one allocation, so values that shared memory before saving share one buffer after
opening, a NumPy array and a tensor included.

Why raw bytes rather than ``torch.save``: opening a session must never unpickle anything.
``torch.load(weights_only=True)`` is a *restricted* unpickler; raw bytes read with ``readinto``
into a fresh buffer involve no unpickler at all, take one copy instead of two, and let us check
every size before reading. Data never leaves the byte buffer except through ``Tensor.set_``
and ``np.ndarray(buffer=...)`` after the manifest was validated against those very sizes.

Other values: plain data (``int``/``float``/``complex``/``str``/``bool``/``None``, lists, tuples
and dicts of those, NumPy scalars, ``torch.dtype``/``torch.device``/``torch.Size``) is written
as tagged JSON, bit-exactly (floats as their IEEE bytes). Functions (``def``, ``lambda``) and
``nn.Module`` values are written as a *recipe*: the statement that made them, taken from the
history, replayed on opening through the restricted runner (the same policy as a lesson), then
a module's parameters and buffers (and their ``.grad``) are pointed at the saved bytes. What
cannot be saved either way is listed as *not saved* with a note, and opening says so.

Opening (:func:`open_session`) validates the whole manifest (types, ranges, dtype names from an
allowlist, shapes, strides and offsets within their storage, storages within their allocation,
member sizes against the allocations, total size against the memory there is) before it creates
anything, and builds a *new* workspace: a corrupt or hostile file raises
:class:`~tensor_explorer.core.loading.LoadError` and changes nothing.

Saving can be split for background autosave: :func:`capture` (quick, on the thread that owns
the workspace; copies small data) and :func:`write` (anywhere; atomic: temp file + rename).

This module depends on :mod:`~tensor_explorer.core.workspace`, never the other way round: it
reads a workspace through its public API, puts what it opened in through
:meth:`~tensor_explorer.core.workspace.Workspace.replace_contents` (which emits the events), and
registers itself (:func:`~tensor_explorer.core.workspace.use_session_files`) for ``ws.save``,
``Workspace.open`` and ``ws.load_session``.
"""

from __future__ import annotations

import ast
import ctypes
import json
import math
import os
import re
import struct
import sys
import tempfile
import types
import warnings
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, cast

import numpy as np
import torch

from .catalog import LANGUAGES, Message
from .loading import LoadError, check_dtype
from .memory import intersecting_groups
from .runner import ProgramError
from .sysmem import memory_limit as _available_memory  # replaced by tests
from .workspace import (
    Origin,
    Record,
    Workspace,
    WorkspaceBusy,
    check_name,
    use_session_files,
)

__all__ = [
    "FORMAT",
    "VERSION",
    "Snapshot",
    "capture",
    "is_session",
    "open_session",
    "save_session",
    "write",
]

FORMAT = "tensor-explorer-session"
VERSION = 1
MANIFEST = "manifest.json"
MAX_MANIFEST_BYTES = 64 << 20
MAX_NDIM = 64
MAX_DIM = 1 << 62
MAX_VALUES = 100_000
MAX_RECORDS = 1_000_000
MAX_PLAIN_DEPTH = 32
MAX_PLAIN_ITEMS = 1_000_000
#: captures copy the bytes of CPU allocations up to this many bytes in all (see :func:`capture`)
COPY_LIMIT = 256 << 20
_CHUNK = 16 << 20
_RECIPE_TIME_LIMIT = 10.0
_RECIPE_MAX_CHARS = 100_000

_TORCH_DTYPES: dict[str, torch.dtype] = {
    name: getattr(torch, name)
    for name in (
        "bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64",
        "float16", "bfloat16", "float32", "float64", "complex32", "complex64", "complex128",
        "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu",
    )
    if isinstance(getattr(torch, name, None), torch.dtype)
}  # fmt: skip
_NP_DTYPE = re.compile(
    r"^[<>|=]?(?:[biufc][0-9]{1,2}|[Mm]8(?:\[[0-9]{0,4}[A-Za-z]{1,3}\])?|[US][0-9]{1,9})$"
)


def _record_descr(d: Any, depth: int) -> bool:
    """Whether ``d`` (read from JSON) is a record's field list as NumPy writes it: [name,
    dtype] or [name, dtype, shape] entries, dtypes plain or nested records, at most 8 deep."""
    if type(d) is not list or not d or depth > 8 or len(d) > 4096:
        return False
    for f in d:
        if type(f) is not list or len(f) not in (2, 3) or type(f[0]) is not str:
            return False
        sub = f[1]
        if type(sub) is str:  # a plain dtype, or padding between fields ("|V4", no name)
            ok = bool(_NP_DTYPE.match(sub) or re.fullmatch(r"\|V[0-9]{1,9}", sub))
        else:
            ok = _record_descr(sub, depth + 1)
        if not ok:
            return False
        if len(f) == 3 and not (type(f[2]) is list and len(f[2]) <= 32
                                and all(type(n) is int and 0 <= n < 1 << 31 for n in f[2])):
            return False
    return True


def _tuples(d: Any) -> Any:
    """A record's field list from JSON (lists) as NumPy's descr_to_dtype reads it (tuples)."""
    if type(d) is not list:
        return d
    return [tuple([f[0], _tuples(f[1]), *([tuple(f[2])] if len(f) == 3 else [])]) for f in d]
_RECORD_KINDS = frozenset({"run", "set", "delete", "rename", "autograd"})
_BINDINGS = frozenset({"assign", "def", "import", "for", "with", "set"})


# ---------------------------------------------------------------------------------------------
# capture


@dataclass
class _Region:
    """A block of memory some values live in: ``[start, start + nbytes)`` on ``device``."""

    device: str
    start: int
    nbytes: int
    keep: Any  # holds the memory alive (storage, array owner)


@dataclass
class _Alloc:
    device: str
    start: int
    nbytes: int
    regions: list[_Region] = field(default_factory=list)


@dataclass
class Snapshot:
    """A workspace captured for writing: the manifest and where each allocation's bytes are.

    ``blocks[i]`` yields the bytes of allocation ``i`` in chunks. A snapshot made with copies
    (the default for small workspaces) is independent of the workspace; otherwise it reads the
    live memory when written (see :func:`capture`).
    """

    manifest: dict[str, Any]
    blocks: list[Callable[[], Iterator[memoryview]]]
    nbytes: int
    copied: bool


class _Capture:
    def __init__(self) -> None:
        self.regions: list[_Region] = []
        self.notes: list[str] = []

    # Each tensor/array entry refers to its region by index for now; ``finish`` turns region
    # indices into allocation ids and byte positions.
    def tensor(self, t: torch.Tensor, *, grad: bool = True) -> dict[str, Any] | None:
        if t.layout != torch.strided or t.is_quantized:
            return None
        name = str(t.dtype).removeprefix("torch.")
        if name not in _TORCH_DTYPES:
            return None
        entry: dict[str, Any] = {
            "kind": "tensor",
            "dtype": name,
            "shape": list(t.shape),
            "stride": list(t.stride()),
            "offset": int(t.storage_offset()),
            "device": str(t.device),
            "requires_grad": bool(t.requires_grad),
            "is_leaf": bool(t.is_leaf),
            "grad_fn": type(t.grad_fn).__name__ if t.grad_fn is not None else None,
            "region": None,
        }
        if t.device.type != "meta" and t.numel() > 0:
            storage = t.untyped_storage()
            if storage.data_ptr() and storage.nbytes():
                entry["region"] = self._region(
                    str(t.device), storage.data_ptr(), storage.nbytes(), storage
                )
        if grad and (t.is_leaf or t.retains_grad) and t.grad is not None:
            entry["grad"] = self.tensor(t.grad, grad=False)
        return entry

    def array(self, a: np.ndarray) -> dict[str, Any] | None:
        from .memory import allocation

        try:
            check_dtype(a.dtype, "value")
        except LoadError:
            return None
        entry: dict[str, Any] = {
            "kind": "ndarray",
            # NumPy's own spelling (".npy" headers): "<f4", "<M8[ms]", "<U3", or a record's
            # field list
            "dtype": np.lib.format.dtype_to_descr(a.dtype),
            "shape": list(a.shape),
            "strides": list(a.strides),
            "offset": 0,
            "writeable": bool(a.flags.writeable),
            "region": None,
        }
        if a.size:
            alloc = allocation(a)
            if alloc.start:
                owner: Any = a
                while isinstance(owner, np.ndarray) and owner.base is not None:
                    owner = owner.base
                entry["region"] = self._region("cpu", alloc.start, alloc.nbytes, owner)
                entry["offset"] = int(alloc.offset_bytes)
        return entry

    def _region(self, device: str, start: int, nbytes: int, keep: Any) -> int:
        self.regions.append(_Region(device, int(start), int(nbytes), keep))
        return len(self.regions) - 1

    def allocations(self) -> tuple[list[_Alloc], dict[int, tuple[int, int]]]:
        """Merge intersecting regions per device: allocations, and for each region index its
        (allocation id, byte start within it)."""
        by_device: dict[str, list[int]] = {}
        for i, r in enumerate(self.regions):
            by_device.setdefault(r.device, []).append(i)
        allocs: list[_Alloc] = []
        where: dict[int, tuple[int, int]] = {}
        for device in sorted(by_device):
            indices = by_device[device]
            regions = [self.regions[i] for i in indices]
            for group in intersecting_groups([(r.start, r.start + r.nbytes) for r in regions]):
                first = regions[group[0]]  # the lowest start: groups are in address order
                end = max(regions[k].start + regions[k].nbytes for k in group)
                alloc = _Alloc(device, first.start, end - first.start)
                for k in group:
                    alloc.regions.append(regions[k])
                    where[indices[k]] = (len(allocs), regions[k].start - first.start)
                allocs.append(alloc)
        return allocs, where


def _resolve(entry: Any, where: dict[int, tuple[int, int]], regions: list[_Region]) -> None:
    """Replace region indices in ``entry`` (recursively) by allocation positions."""
    if isinstance(entry, dict):
        if entry.get("kind") in ("tensor", "ndarray"):
            region = entry.pop("region")
            if region is None:
                entry["alloc"] = None
            else:
                alloc_id, start = where[region]
                entry["alloc"] = alloc_id
                if entry["kind"] == "tensor":
                    entry["storage"] = [start, regions[region].nbytes]
                else:
                    entry["offset"] += start
        for value in entry.values():
            _resolve(value, where, regions)
    elif isinstance(entry, list):
        for value in entry:
            _resolve(value, where, regions)


def _cpu_chunks(start: int, nbytes: int) -> Iterator[memoryview]:
    """The bytes at ``[start, start + nbytes)`` of this process, in chunks, without copying."""
    pos = 0
    while pos < nbytes:
        n = min(_CHUNK, nbytes - pos)
        yield memoryview((ctypes.c_char * n).from_address(start + pos)).cast("B")
        pos += n


def _host_bytes(alloc: _Alloc, copy: bool) -> Callable[[], Iterator[memoryview]]:
    if alloc.device == "cpu" and not copy:
        keep = [r.keep for r in alloc.regions]  # memory stays alive while the snapshot lives

        def live() -> Iterator[memoryview]:
            assert keep
            yield from _cpu_chunks(alloc.start, alloc.nbytes)

        return live
    buf = np.empty(alloc.nbytes, dtype=np.uint8)
    if alloc.device == "cpu":
        pos = 0
        for chunk in _cpu_chunks(alloc.start, alloc.nbytes):
            buf[pos : pos + len(chunk)] = np.frombuffer(chunk, dtype=np.uint8)
            pos += len(chunk)
    else:
        for r in alloc.regions:
            dev = torch.empty(0, dtype=torch.uint8, device=r.device).set_(r.keep)
            lo = r.start - alloc.start
            buf[lo : lo + r.nbytes] = dev.cpu().numpy()

    def copied() -> Iterator[memoryview]:
        for pos in range(0, len(buf), _CHUNK):
            # numpy's stubs declare ndarray.__buffer__ only for Python >= 3.12
            yield memoryview(buf[pos : pos + _CHUNK])  # type: ignore[arg-type]

    return copied


def capture(ws: Workspace, *, copy_limit: int = COPY_LIMIT) -> Snapshot:
    """Capture ``ws`` for :func:`write`. Call it on the thread that changes the workspace.

    When the CPU allocations add up to at most ``copy_limit`` bytes their bytes are copied now,
    so the snapshot can be written on another thread while the workspace goes on changing.
    Above that (and always with ``copy_limit=0``) the snapshot keeps the memory alive and reads
    it when written: the caller must not change those values meanwhile (an in-place write shows
    up torn in the file; storage resizing must not happen). CUDA memory is always copied to the
    host here.
    """
    if ws.running:
        raise WorkspaceBusy(Message("workspace.busy-capture"))
    return _capture(ws, copy_limit)


def _capture(ws: Workspace, copy_limit: int) -> Snapshot:
    cap = _Capture()
    items = ws.items()
    seen: dict[int, list[str]] = {}  # id of a tensor object -> reference to its first entry
    values: list[dict[str, Any]] = []
    for name, value in items:
        entry = _value_entry(cap, ws, name, value, seen)
        entry["name"] = name
        values.append(entry)
    allocs, where = cap.allocations()
    for entry in values:
        _resolve(entry, where, cap.regions)
    cpu_bytes = sum(a.nbytes for a in allocs if a.device == "cpu")
    copy = cpu_bytes <= copy_limit
    blocks = [_host_bytes(a, copy) for a in allocs]
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "byteorder": sys.byteorder,
        "torch": torch.__version__,
        "allocations": [{"device": a.device, "nbytes": a.nbytes} for a in allocs],
        "values": values,
        "history": [_record_entry(r) for r in ws.history],
        "origins": {n: _origin_entry(o) for n in ws.names() if (o := ws.origin(n)) is not None},
        "selected": ws.selected,
        "notes": cap.notes,
    }
    return Snapshot(manifest, blocks, sum(a.nbytes for a in allocs), copy)


def _value_entry(
    cap: _Capture, ws: Workspace, name: str, value: Any, seen: dict[int, list[str]]
) -> dict[str, Any]:
    if isinstance(value, torch.Tensor):
        ref = seen.get(id(value))
        if ref is not None:
            return {"kind": "same", "ref": ref}
        entry = cap.tensor(value)
        if entry is None:
            return _not_saved(value, f"a {value.layout} / {value.dtype} tensor has no byte form")
        seen[id(value)] = ["value", name]
        return entry
    if isinstance(value, np.ndarray):
        entry = cap.array(value)
        if entry is None:
            return _not_saved(value, f"an array of dtype {value.dtype} is not numeric")
        return entry
    try:
        return {"kind": "plain", "value": _encode(value, 0, [0])}
    except _Unsupported:
        pass
    origin = ws.origin(name)
    recipe = _recipe(name, origin)
    if isinstance(value, torch.nn.Module):
        if recipe is None:
            return _not_saved(value, "it was not made by a statement that can be run again")
        params: dict[str, Any] = {}
        for kind, named in (
            ("param", value.named_parameters(remove_duplicate=False)),
            ("buffer", value.named_buffers(remove_duplicate=False)),
        ):
            for key, t in named:
                ref = seen.get(id(t))
                if ref is not None:
                    params[key] = {"kind": "same", "ref": ref}
                    continue
                entry = cap.tensor(t)
                if entry is None:
                    return _not_saved(value, f"its {kind} {key} has no byte form")
                entry["role"] = kind
                params[key] = entry
                seen[id(t)] = ["state", name, key]
        return {
            "kind": "rebuilt",
            "type": type(value).__name__,
            "recipe": recipe,
            "state": params,
            "training": bool(value.training),
        }
    if isinstance(value, types.FunctionType) and recipe is not None:
        return {"kind": "rebuilt", "type": "function", "recipe": recipe}
    return _not_saved(value, "it is neither data nor made by a statement that can be run again")


def _not_saved(value: Any, why: str) -> dict[str, Any]:
    return {"kind": "not_saved", "type": type(value).__name__, "note": why}


def _recipe(name: str, origin: Any) -> str | None:
    """The statement that rebuilds ``name`` from the history, when there is one."""
    if origin is None or origin.kind != "run":
        return None
    if origin.binding == "def" and origin.statement:
        return str(origin.statement)
    if origin.binding == "assign" and origin.call:
        return f"{name} = ({origin.call})"
    return None


class _Unsupported(Exception):
    pass


def _encode(value: Any, depth: int, count: list[int]) -> list[Any]:
    count[0] += 1
    if depth > MAX_PLAIN_DEPTH or count[0] > MAX_PLAIN_ITEMS:
        raise _Unsupported
    if value is None:
        return ["none"]
    if isinstance(value, bool):
        return ["bool", value]
    if type(value) is int:
        try:
            return ["int", str(value)]
        except ValueError:  # more digits than str() allows
            raise _Unsupported from None
    if type(value) is float:
        return ["float", struct.pack("<d", value).hex()]
    if type(value) is complex:
        return ["complex", struct.pack("<dd", value.real, value.imag).hex()]
    if type(value) is str:
        return ["str", value]
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        return ["npscalar", value.dtype.str, value.tobytes().hex()]
    if isinstance(value, torch.dtype):
        name = str(value).removeprefix("torch.")
        if name in _TORCH_DTYPES:
            return ["dtype", name]
        raise _Unsupported
    if isinstance(value, torch.device):
        return ["device", str(value)]
    if isinstance(value, torch.Size):
        return ["size", [int(n) for n in value]]
    if type(value) in (list, tuple):
        tag = "list" if type(value) is list else "tuple"
        return [tag, [_encode(v, depth + 1, count) for v in value]]
    if type(value) is dict:
        return ["dict", [[_encode(k, depth + 1, count), _encode(v, depth + 1, count)]
                         for k, v in value.items()]]  # fmt: skip
    raise _Unsupported


def _record_entry(r: Any) -> dict[str, Any]:
    return {
        "kind": r.kind,
        "source": r.source,
        "line": r.line,
        "device": r.device,
        "bound": list(r.bound),
        "changed": list(r.changed),
        "deleted": list(r.deleted),
        "made": dict(r.made),
        "output": r.output,
        "notes": list(r.notes),
        "result": r.result,
    }


def _origin_entry(o: Any) -> dict[str, Any]:
    return {
        "name": o.name,
        "kind": o.kind,
        "statement": o.statement,
        "call": o.call,
        "function": o.function,
        "contexts": list(o.contexts),
        "grad_mode": o.grad_mode,
        "device": o.device,
        "line": o.line,
        "binding": o.binding,
        "file": o.file,
    }


# ---------------------------------------------------------------------------------------------
# writing


def write(snapshot: Snapshot, path: str | os.PathLike[str]) -> None:
    """Write ``snapshot`` to ``path`` atomically (a temporary file in the same folder, then a
    rename): a crash while writing leaves the previous file as it was."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as raw, zipfile.ZipFile(raw, "w", allowZip64=True) as zf:
            text = json.dumps(snapshot.manifest, ensure_ascii=False, allow_nan=False)
            zf.writestr(MANIFEST, text.encode("utf-8"), compress_type=zipfile.ZIP_DEFLATED)
            for i, block in enumerate(snapshot.blocks):
                info = zipfile.ZipInfo(f"data/{i}.bin", date_time=(2020, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_STORED
                info.file_size = snapshot.manifest["allocations"][i]["nbytes"]
                with zf.open(info, "w", force_zip64=True) as out:
                    for chunk in block():
                        out.write(chunk)
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_session(ws: Workspace, path: str | os.PathLike[str]) -> None:
    """Write the whole workspace ``ws`` to the session file ``path`` (atomically), reading the
    values' memory directly (no copy): nothing may change ``ws`` meanwhile."""
    write(_capture(ws, 0), path)


# ---------------------------------------------------------------------------------------------
# validation


class _Bad(Exception):
    """A manifest problem; becomes a LoadError naming the file. Its argument is the reason, a
    catalog Message; the checks of one manifest field name where it is (``what``, such as
    ``value 'x'`` or ``history record 3``) with a Message of its own (``session.at-*``), so the
    whole reason renders in one language."""


def _need(cond: bool, why: Message) -> None:
    if not cond:
        raise _Bad(why)


def _at(what: str, key: str) -> Message:
    """The field ``key`` (as the manifest writes it) of ``what``: "value 'x': offset"."""
    return Message("session.at-key", what=what, key=key)


def _int(v: Any, what: str, lo: int = 0, hi: int = MAX_DIM) -> int:
    _need(type(v) is int and lo <= v <= hi, Message("session.int-range", what=what, lo=lo, hi=hi))
    return int(v)


def _str(v: Any, what: str, *, optional: bool = False, limit: int = 10_000_000) -> str | None:
    if optional and v is None:
        return None
    _need(type(v) is str and len(v) <= limit, Message("session.text", what=what))
    return str(v)


def _ints(v: Any, what: str, lo: int, hi: int = MAX_DIM) -> list[int]:
    _need(type(v) is list and len(v) <= MAX_NDIM,
          Message("session.int-list", what=what, most=MAX_NDIM))  # fmt: skip
    return [_int(x, what, lo, hi) for x in v]


def _names(v: Any, what: str) -> tuple[str, ...]:
    _need(type(v) is list and all(type(x) is str for x in v), Message("session.names", what=what))
    return tuple(v)


def _keys(d: Any, allowed: set[str], required: set[str], what: str) -> None:
    _need(type(d) is dict, Message("session.object", what=what))
    extra = set(d) - allowed
    _need(not extra, Message("session.unknown-fields", what=what, fields=str(sorted(extra))))
    missing = required - set(d)
    _need(not missing, Message("session.lacks", what=what, fields=str(sorted(missing))))


def _layout(e: Any, key: str, lo: int, what: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """An entry's shape and its strides (``e[key]``, each at least ``lo``), checked to agree."""
    shape = tuple(_ints(e["shape"], _at(what, "shape"), 0))
    strides = tuple(_ints(e[key], _at(what, key), lo))
    _need(len(shape) == len(strides), Message("session.layout-length", what=what, key=key))
    _need(math.prod(shape) < 1 << 63,
          Message("session.too-many-elements", what=what, shape=str(shape)))  # fmt: skip
    return shape, strides


@dataclass
class _TensorSpec:
    dtype: torch.dtype
    shape: tuple[int, ...]
    stride: tuple[int, ...]
    offset: int
    device: str
    requires_grad: bool
    is_leaf: bool
    grad_fn: str | None
    alloc: int | None
    storage: tuple[int, int] | None
    grad: _TensorSpec | None
    role: str | None


@dataclass
class _ArraySpec:
    dtype: np.dtype
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int
    writeable: bool
    alloc: int | None


_TENSOR_KEYS = {"kind", "dtype", "shape", "stride", "offset", "device", "requires_grad",
                "is_leaf", "grad_fn", "alloc", "storage", "grad", "role", "name"}  # fmt: skip
_DEVICE = re.compile(r"^(cpu|meta|cuda|cuda:\d{1,3}|mps|mps:0|xpu|xpu:\d{1,3})$")


def _tensor_spec(e: Any, allocs: list[int], what: str) -> _TensorSpec:
    _keys(e, _TENSOR_KEYS, {"kind", "dtype", "shape", "stride", "offset", "device", "alloc"}, what)
    name = e["dtype"]
    _need(type(name) is str and name in _TORCH_DTYPES,
          Message("session.tensor-dtype", what=what, dtype=repr(name)))  # fmt: skip
    dtype = _TORCH_DTYPES[name]
    shape, stride = _layout(e, "stride", 0, what)
    offset = _int(e["offset"], _at(what, "offset"), 0)
    device = e["device"]
    _need(type(device) is str and bool(_DEVICE.match(device)),
          Message("session.unknown-device", what=what))  # fmt: skip
    flags = {k: e.get(k, False) for k in ("requires_grad", "is_leaf")}
    for k, v in flags.items():
        _need(type(v) is bool, Message("session.flag", what=what, key=k))
    grad_fn = _str(e.get("grad_fn"), _at(what, "grad_fn"), optional=True, limit=200)
    role = _str(e.get("role"), _at(what, "role"), optional=True, limit=20)
    _need(role in (None, "param", "buffer"), Message("session.unknown-role", what=what))
    itemsize = dtype.itemsize
    alloc = e["alloc"]
    storage = None
    numel = math.prod(shape)
    if alloc is None:
        _need(numel == 0 or device == "meta", Message("session.tensor-needs-data", what=what))
        _need(e.get("storage") is None, Message("session.storage-no-alloc", what=what))
    else:
        alloc = _int(alloc, _at(what, "alloc"), 0, len(allocs) - 1)
        st = e.get("storage")
        _need(type(st) is list and len(st) == 2, Message("session.storage-pair", what=what))
        start = _int(st[0], Message("session.at-storage-start", what=what), 0)
        size = _int(st[1], Message("session.at-storage-size", what=what), 1)
        _need(start + size <= allocs[alloc], Message("session.storage-outside", what=what))
        _need(numel > 0, Message("session.tensor-no-elements", what=what))
        last = offset + sum((n - 1) * s for n, s in zip(shape, stride, strict=True))
        _need((last + 1) * itemsize <= size, Message(
            "session.elements-outside-storage", what=what, reach=(last + 1) * itemsize,
            size=size))  # fmt: skip
        storage = (start, size)
        _need(device != "meta", Message("session.meta-data", what=what))
    grad = None
    if e.get("grad") is not None:
        grad = _tensor_spec(e["grad"], allocs, Message("session.at-grad", what=what))
        _need(grad.shape == shape, Message("session.grad-shape", what=what))
        _need(grad.grad is None, Message("session.grad-grad", what=what))
    return _TensorSpec(dtype, shape, stride, offset, device, flags["requires_grad"],
                       flags["is_leaf"], grad_fn, alloc, storage, grad, role)  # fmt: skip


def _array_spec(e: Any, allocs: list[int], what: str) -> _ArraySpec:
    _keys(e, {"kind", "dtype", "shape", "strides", "offset", "writeable", "alloc", "name"},
          {"kind", "dtype", "shape", "strides", "offset", "alloc"}, what)  # fmt: skip
    d = e["dtype"]
    _need((type(d) is str and bool(_NP_DTYPE.match(d))) or _record_descr(d, 0),
          Message("session.value-dtype", what=what, dtype=repr(d)))  # fmt: skip
    try:
        dtype = np.dtype(d) if type(d) is str else np.lib.format.descr_to_dtype(_tuples(d))
        check_dtype(dtype, what)
    except (TypeError, ValueError, KeyError, IndexError, LoadError):
        raise _Bad(Message("session.value-dtype", what=what, dtype=repr(d))) from None
    shape, strides = _layout(e, "strides", -MAX_DIM, what)
    offset = _int(e["offset"], _at(what, "offset"), 0)
    writeable = e.get("writeable", True)
    _need(type(writeable) is bool, Message("session.flag", what=what, key="writeable"))
    alloc = e["alloc"]
    if alloc is None:
        _need(math.prod(shape) == 0, Message("session.array-needs-data", what=what))
    else:
        alloc = _int(alloc, _at(what, "alloc"), 0, len(allocs) - 1)
        _need(math.prod(shape) > 0, Message("session.array-no-elements", what=what))
        lo = offset + sum((n - 1) * s for n, s in zip(shape, strides, strict=True) if s < 0)
        hi = offset + sum((n - 1) * s for n, s in zip(shape, strides, strict=True) if s > 0)
        _need(lo >= 0 and hi + dtype.itemsize <= allocs[alloc],
              Message("session.array-outside", what=what))  # fmt: skip
    return _ArraySpec(dtype, shape, strides, offset, writeable, alloc)


def _check_plain(v: Any, depth: int, count: list[int]) -> None:
    count[0] += 1
    if depth > MAX_PLAIN_DEPTH or count[0] > MAX_PLAIN_ITEMS:
        raise _Bad(Message("session.plain-too-deep"))
    if type(v) is not list or not v or type(v[0]) is not str:
        raise _Bad(Message("session.plain-malformed"))
    tag, args = v[0], v[1:]
    ok = {
        "none": lambda: not args,
        "bool": lambda: len(args) == 1 and type(args[0]) is bool,
        "int": lambda: len(args) == 1 and type(args[0]) is str
        and re.fullmatch(r"-?\d{1,4300}", args[0]) is not None,
        "float": lambda: len(args) == 1 and type(args[0]) is str
        and re.fullmatch(r"[0-9a-f]{16}", args[0]) is not None,
        "complex": lambda: len(args) == 1 and type(args[0]) is str
        and re.fullmatch(r"[0-9a-f]{32}", args[0]) is not None,
        "str": lambda: len(args) == 1 and type(args[0]) is str,
        "npscalar": lambda: len(args) == 2 and type(args[0]) is str
        and bool(_NP_DTYPE.match(args[0])) and type(args[1]) is str
        and re.fullmatch(r"([0-9a-f]{2}){1,32}", args[1]) is not None
        and np.dtype(args[0]).itemsize * 2 == len(args[1]),
        "dtype": lambda: len(args) == 1 and args[0] in _TORCH_DTYPES,
        "device": lambda: len(args) == 1 and type(args[0]) is str
        and bool(_DEVICE.match(args[0])),
        "size": lambda: len(args) == 1 and type(args[0]) is list and len(args[0]) <= MAX_NDIM
        and all(type(n) is int and 0 <= n < MAX_DIM for n in args[0]),
        "list": lambda: len(args) == 1 and type(args[0]) is list,
        "tuple": lambda: len(args) == 1 and type(args[0]) is list,
        "dict": lambda: len(args) == 1 and type(args[0]) is list
        and all(type(p) is list and len(p) == 2 for p in args[0]),
    }.get(tag)
    if ok is None or not ok():
        raise _Bad(Message("session.plain-tag", tag=tag))
    if tag in ("list", "tuple"):
        for item in args[0]:
            _check_plain(item, depth + 1, count)
    elif tag == "dict":
        for k, item in args[0]:
            _check_plain(k, depth + 1, count)
            _check_plain(item, depth + 1, count)
            if k[0] not in ("none", "bool", "int", "float", "complex", "str", "tuple"):
                raise _Bad(Message("session.key-unhashable"))


def _decode(v: list[Any]) -> Any:
    tag = v[0]
    if tag == "none":
        return None
    if tag == "bool":
        return v[1]
    if tag == "int":
        return int(v[1])
    if tag == "float":
        return struct.unpack("<d", bytes.fromhex(v[1]))[0]
    if tag == "complex":
        re_, im = struct.unpack("<dd", bytes.fromhex(v[1]))
        return complex(re_, im)
    if tag == "str":
        return v[1]
    if tag == "npscalar":
        return np.frombuffer(bytes.fromhex(v[2]), dtype=np.dtype(v[1]))[0]
    if tag == "dtype":
        return _TORCH_DTYPES[v[1]]
    if tag == "device":
        return torch.device(v[1])
    if tag == "size":
        return torch.Size(v[1])
    if tag == "list":
        return [_decode(x) for x in v[1]]
    if tag == "tuple":
        return tuple(_decode(x) for x in v[1])
    out = {}
    for k, item in v[1]:
        key = _decode(k)
        try:
            out[key] = _decode(item)
        except TypeError:  # a tuple key holding a list
            raise _Bad(Message("session.key-unhashable")) from None
    return out


@dataclass
class _Checked:
    allocs: list[int]
    devices: list[str]
    values: list[tuple[str, str, Any]]  # (name, kind, spec)
    history: list[Any]
    origins: dict[str, Any]
    selected: str | None
    notes: list[str]


def _validate(m: Any) -> _Checked:
    _keys(m, {"format", "version", "byteorder", "torch", "allocations", "values", "history",
              "origins", "selected", "notes"},
          {"format", "version", "allocations", "values"},
          Message("session.at-manifest"))  # fmt: skip
    _need(m["format"] == FORMAT, Message("session.not-ours"))
    _need(type(m["version"]) is int, Message("session.version-type"))
    _need(m["version"] <= VERSION,
          Message("session.newer", version=m["version"], supported=VERSION))  # fmt: skip
    _need(m.get("byteorder", sys.byteorder) == sys.byteorder,
          Message("session.byteorder", byteorder=str(m.get("byteorder"))))  # fmt: skip
    raw_allocs = m["allocations"]
    _need(type(raw_allocs) is list and len(raw_allocs) <= MAX_VALUES * 4,
          Message("session.bad-allocations"))  # fmt: skip
    allocs: list[int] = []
    devices: list[str] = []
    for i, a in enumerate(raw_allocs):
        where = Message("session.at-allocation", index=i)
        _keys(a, {"device", "nbytes"}, {"device", "nbytes"}, where)
        _need(type(a["device"]) is str and bool(_DEVICE.match(a["device"])),
              Message("session.unknown-device", what=where))  # fmt: skip
        allocs.append(_int(a["nbytes"], Message("session.at-size", what=where), 1))
        devices.append(a["device"])
    raw_values = m["values"]
    _need(type(raw_values) is list and len(raw_values) <= MAX_VALUES,
          Message("session.bad-values"))  # fmt: skip
    values: list[tuple[str, str, Any]] = []
    seen: set[str] = set()
    for i, e in enumerate(raw_values):
        _need(type(e) is dict and type(e.get("name")) is str,
              Message("session.value-no-name", index=i))  # fmt: skip
        name = e["name"]
        try:
            check_name(name)
        except ValueError as exc:
            raise _Bad(Message("session.value-name", index=i, why=str(exc))) from None
        if name in seen:
            raise _Bad(Message("session.name-twice", name=name))
        seen.add(name)
        kind = e.get("kind")
        what = Message("session.at-value", name=name)
        spec: Any
        if kind == "tensor":
            spec = _tensor_spec(e, allocs, what)
            _need(spec.role is None, Message("session.unexpected-role", what=what))
        elif kind == "ndarray":
            spec = _array_spec(e, allocs, what)
        elif kind == "plain":
            _keys(e, {"kind", "name", "value"}, {"value"}, what)
            _check_plain(e["value"], 0, [0])
            spec = e["value"]
        elif kind == "same":
            _keys(e, {"kind", "name", "ref"}, {"ref"}, what)
            spec = _ref(e["ref"], what)
        elif kind == "rebuilt":
            _keys(e, {"kind", "name", "type", "recipe", "state", "training"},
                  {"type", "recipe"}, what)  # fmt: skip
            typ = _str(e["type"], _at(what, "type"), limit=200)
            recipe = _str(e["recipe"], _at(what, "recipe"), limit=_RECIPE_MAX_CHARS)
            state: dict[str, Any] = {}
            raw_state = e.get("state", {})
            _need(type(raw_state) is dict and len(raw_state) <= MAX_VALUES,
                  Message("session.bad-state", what=what))  # fmt: skip
            for key, s in raw_state.items():
                _need(len(key) <= 1000, Message("session.bad-state-key", what=what))
                item = Message("session.at-state", what=what, key=key)
                if type(s) is dict and s.get("kind") == "same":
                    _keys(s, {"kind", "ref"}, {"ref"}, item)
                    state[key] = _ref(s["ref"], item)
                else:
                    state[key] = _tensor_spec(s, allocs, item)
                    _need(state[key].role is not None, Message("session.missing-role", what=item))
            training = e.get("training", True)
            _need(type(training) is bool, Message("session.flag", what=what, key="training"))
            spec = (typ, recipe, state, training)
        elif kind == "not_saved":
            _keys(e, {"kind", "name", "type", "note"}, {"type", "note"}, what)
            spec = (_str(e["type"], what, limit=200), _str(e["note"], what, limit=1000))
        else:
            raise _Bad(Message("session.value-kind", what=what, kind=repr(kind)))
        values.append((name, kind, spec))
    raw_history = m.get("history", [])
    _need(type(raw_history) is list and len(raw_history) <= MAX_RECORDS,
          Message("session.bad-history"))  # fmt: skip
    history = []
    for i, r in enumerate(raw_history):
        what = Message("session.at-record", number=i + 1)
        _keys(r, {"kind", "source", "line", "device", "bound", "changed", "deleted", "made",
                  "output", "notes", "result"}, {"kind", "source"}, what)  # fmt: skip
        _need(r["kind"] in _RECORD_KINDS, Message("session.unknown-kind", what=what))
        made = r.get("made", {})
        _need(type(made) is dict and all(type(v) is str for v in made.values()),
              Message("session.bad-field", what=what, key="made"))  # fmt: skip
        line = r.get("line")
        _need(line is None or (type(line) is int and 0 <= line < 1 << 31),
              Message("session.bad-field", what=what, key="line"))  # fmt: skip
        device = _str(r.get("device"), what, optional=True, limit=100)
        history.append(Record(
            r["kind"], _str(r["source"], what) or "", line, device,
            _names(r.get("bound", []), what), _names(r.get("changed", []), what),
            _names(r.get("deleted", []), what), MappingProxyType(dict(made)),
            _str(r.get("output", ""), what) or "", _names(r.get("notes", []), what),
            _str(r.get("result"), what, optional=True),
            True,  # text from a file: if it is ever run again, restricted
        ))  # fmt: skip
    raw_origins = m.get("origins", {})
    _need(type(raw_origins) is dict, Message("session.bad-origins"))
    origins = {}
    for name, o in raw_origins.items():
        what = Message("session.at-origin", name=name)
        _need(name in seen, Message("session.no-such-value", what=what))
        _keys(o, {"name", "kind", "statement", "call", "function", "contexts", "grad_mode",
                  "device", "line", "binding", "file"}, {"kind"}, what)  # fmt: skip
        _need(o["kind"] in ("run", "set"), Message("session.unknown-kind", what=what))
        binding = o.get("binding", "assign")
        _need(binding in _BINDINGS, Message("session.unknown-binding", what=what))
        line = o.get("line")
        _need(line is None or (type(line) is int and 0 <= line < 1 << 31),
              Message("session.bad-field", what=what, key="line"))  # fmt: skip
        origins[name] = Origin(
            _str(o.get("name", name), what, limit=1000) or name, o["kind"],
            _str(o.get("statement"), what, optional=True),
            _str(o.get("call"), what, optional=True), _str(o.get("function"), what, optional=True),
            _names(o.get("contexts", []), what), _str(o.get("grad_mode"), what, optional=True),
            _str(o.get("device"), what, optional=True, limit=100), line, binding,
            _str(o.get("file"), what, optional=True, limit=4096),
        )  # fmt: skip
    selected = m.get("selected")
    _need(selected is None or type(selected) is str, Message("session.bad-selection"))
    notes = m.get("notes", [])
    _need(type(notes) is list and all(type(n) is str for n in notes),
          Message("session.bad-notes"))  # fmt: skip
    return _Checked(allocs, devices, values, history, origins,
                    selected if selected in seen else None, list(notes))  # fmt: skip


def _ref(ref: Any, what: str) -> tuple[str, ...]:
    _need(type(ref) is list and all(type(x) is str for x in ref)
          and ((len(ref) == 2 and ref[0] == "value") or (len(ref) == 3 and ref[0] == "state")),
          Message("session.bad-reference", what=what))  # fmt: skip
    return tuple(ref)


# ---------------------------------------------------------------------------------------------
# opening


def is_session(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` looks like a session file (a zip whose first member is the manifest;
    whether it is a *valid* session is for :func:`open_session` to say)."""
    try:
        with open(path, "rb") as f:
            head = f.read(30 + len(MANIFEST))
    except OSError:
        return False
    return head[:4] == b"PK\x03\x04" and head[30:].startswith(MANIFEST.encode())


def open_session(path: str | os.PathLike[str], into: Workspace | None = None) -> Workspace:
    """Open the session file ``path`` as a new workspace; raise LoadError for a bad file.

    With ``into``, the session replaces the contents of that workspace instead (its events
    fire: ``removed`` for what it had, ``added`` for what the session holds); everything that
    can fail with LoadError happens before ``into`` is touched.

    Notes for the user (values not saved, CUDA values opened on the CPU, recipes that failed)
    are in the new workspace's ``session_notes``.
    """
    p = Path(path)
    label = p.name
    why: str  # (a catalog Message: the error is "label: why" in any language)
    try:
        return _open(p, into)
    except _Bad as exc:
        why = Message("session.invalid", why=exc.args[0] if exc.args else str(exc))
    except LoadError as exc:
        why = exc.message
    except zipfile.BadZipFile as exc:
        why = Message("session.bad-zip", why=str(exc))
    except FileNotFoundError:
        why = Message("load.no-file")
    except IsADirectoryError:
        why = Message("session.folder")
    except PermissionError:
        why = Message("load.permission")
    except MemoryError:
        why = Message("session.no-memory")
    except (OSError, EOFError, NotImplementedError, ValueError, RuntimeError, TypeError,
            OverflowError, struct.error, UnicodeError, RecursionError) as exc:  # fmt: skip
        why = Message("load.unreadable", why=f"{type(exc).__name__}: {exc}")
    raise LoadError(Message("load.failed", name=label, why=why))


def _open(p: Path, into: Workspace | None = None) -> Workspace:
    with zipfile.ZipFile(p) as zf:
        infos = zf.infolist()
        names = [i.filename for i in infos]
        _need(len(set(names)) == len(names), Message("session.member-twice"))
        by_name = {i.filename: i for i in infos}
        _need(MANIFEST in by_name, Message("session.no-manifest"))
        for info in infos:
            if info.flag_bits & 0x1:
                raise _Bad(Message("load.member-encrypted", member=info.filename))
            if info.filename != MANIFEST and not re.fullmatch(r"data/\d{1,9}\.bin",
                                                               info.filename):
                raise _Bad(Message("session.member-unexpected", member=info.filename[:100]))
        info = by_name[MANIFEST]
        _need(info.file_size <= MAX_MANIFEST_BYTES, Message("session.manifest-too-large"))
        with zf.open(info) as f:
            raw = f.read(MAX_MANIFEST_BYTES + 1)
        _need(len(raw) <= MAX_MANIFEST_BYTES, Message("session.manifest-too-large"))
        try:
            manifest = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            raise _Bad(Message("session.manifest-json", why=str(exc))) from None
        checked = _validate(manifest)
        # every allocation's member must exist with exactly its size, and all must fit
        for i, nbytes in enumerate(checked.allocs):
            member = by_name.get(f"data/{i}.bin")
            if member is None:
                raise _Bad(Message("session.data-missing", index=i))
            if member.file_size != nbytes:
                raise _Bad(Message("session.data-size", index=i, size=member.file_size,
                                   nbytes=nbytes))  # fmt: skip
            if member.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise _Bad(Message("session.data-compression", index=i))
        _need(len(infos) == len(checked.allocs) + 1, Message("session.members-unexpected"))
        total = sum(checked.allocs)
        avail = _available_memory()
        if total > avail:
            raise LoadError(Message("session.needs-memory", nbytes=total, available=avail))
        buffers = [_read_alloc(zf, by_name[f"data/{i}.bin"], n)
                   for i, n in enumerate(checked.allocs)]  # fmt: skip
    return _build(checked, buffers, into)


def _no_constant(name: str) -> Any:
    raise _Bad(Message("session.manifest-constant", constant=name))


def _read_alloc(zf: zipfile.ZipFile, info: zipfile.ZipInfo, nbytes: int) -> torch.Tensor:
    buf = torch.empty(nbytes, dtype=torch.uint8)
    # numpy's stubs declare ndarray.__buffer__ only for Python >= 3.12
    view = memoryview(buf.numpy())  # type: ignore[arg-type]
    got = 0
    # typeshed types ZipFile.open as IO[bytes]; reading, it returns a ZipExtFile
    with cast(zipfile.ZipExtFile, zf.open(info)) as f:
        while got < nbytes:
            n = f.readinto(view[got : got + _CHUNK])
            if not n:
                raise _Bad(Message("session.data-early", member=info.filename))
            got += n
        _need(not f.read(1), Message("session.data-more", member=info.filename))
    return buf


class _Builder:
    def __init__(self, checked: _Checked, buffers: list[torch.Tensor]) -> None:
        self.c = checked
        self.buffers = buffers
        self.np_buffers = [b.numpy() for b in buffers]
        self.storages: dict[tuple[int, int, int, str], Any] = {}
        self.device_buffers: dict[tuple[int, str], torch.Tensor] = {}
        self.notes: list[str] = list(checked.notes)
        self.cuda_noted = False

    def device_for(self, device: str) -> str:
        if device.startswith("cuda"):
            from .devices import check_device

            try:
                return check_device(device) or "cpu"
            except ValueError:
                if not self.cuda_noted:
                    self.cuda_noted = True
                    self.notes.append(Message("session.note-no-cuda", device=device))
                return "cpu"
        if device in ("cpu", "meta"):
            return device
        self.notes.append(Message("session.note-on-cpu", device=device))
        return "cpu"

    def storage(self, alloc: int, start: int, size: int, device: str) -> Any:
        key = (alloc, start, size, device)
        found = self.storages.get(key)
        if found is None:
            if device == "cpu":
                whole = start == 0 and size == len(self.np_buffers[alloc])
                src = self.buffers[alloc] if whole else torch.from_numpy(
                    self.np_buffers[alloc][start : start + size])  # fmt: skip
                found = src.untyped_storage()
            else:
                full = self.device_buffers.get((alloc, device))
                if full is None:
                    full = self.device_buffers[(alloc, device)] = self.buffers[alloc].to(device)
                found = (full[start : start + size].clone() if (start, size) !=
                         (0, full.numel()) else full).untyped_storage()  # fmt: skip
            self.storages[key] = found
        return found

    def tensor(self, spec: _TensorSpec, name: str) -> torch.Tensor:
        device = self.device_for(spec.device)
        with warnings.catch_warnings():
            # torch warns that complex32 is experimental each time one is made; we only copy it
            warnings.filterwarnings("ignore", "ComplexHalf support is experimental")
            if spec.alloc is None or spec.storage is None:
                t = torch.empty_strided(spec.shape, spec.stride, dtype=spec.dtype, device=device)
            else:
                storage = self.storage(spec.alloc, *spec.storage, device)
                t = torch.empty(0, dtype=spec.dtype, device=device)
                t.set_(storage, spec.offset, spec.shape, spec.stride)
        if spec.requires_grad:
            if spec.is_leaf:
                if spec.dtype.is_floating_point or spec.dtype.is_complex:
                    t.requires_grad_(True)
            else:
                self.notes.append(Message(
                    "session.note-no-graph", name=name,
                    grad_fn=spec.grad_fn or Message("session.a-graph")))  # fmt: skip
        if spec.grad is not None:
            g = self.tensor(spec.grad, f"{name}.grad")
            _need(g.dtype == t.dtype and g.device == t.device,
                  Message("session.grad-mismatch", name=name))  # fmt: skip
            t.grad = g
        return t

    def array(self, spec: _ArraySpec) -> np.ndarray:
        if spec.alloc is None:
            return np.zeros(spec.shape, dtype=spec.dtype)
        a = np.ndarray(spec.shape, dtype=spec.dtype, buffer=self.np_buffers[spec.alloc],
                       offset=spec.offset, strides=spec.strides)  # fmt: skip
        if not spec.writeable:
            a.flags.writeable = False
        return a


def _build(c: _Checked, buffers: list[torch.Tensor], into: Workspace | None = None) -> Workspace:
    b = _Builder(c, buffers)
    built: dict[str, Any] = {}
    for name, kind, spec in c.values:
        if kind == "tensor":
            built[name] = b.tensor(spec, name)
        elif kind == "ndarray":
            built[name] = b.array(spec)
        elif kind == "plain":
            built[name] = _decode(spec)
        elif kind == "not_saved":
            typ, note = spec
            b.notes.append(Message("session.note-not-saved", name=name, typ=typ, note=note))
    ws = Workspace() if into is None else into

    def rebuild(notes: list[str]) -> dict[str, Any]:
        """Functions and modules: replay the statement that made them through the restricted
        runner, in ``ws`` (their code belongs to it); then the same tensor objects under
        several names. Notes go on in the order they come (``b`` adds some as it reads)."""
        notes.extend(b.notes)
        b.notes = notes
        made: dict[str, Any] = {}
        modules: dict[str, torch.nn.Module] = {}
        for name, kind, spec in c.values:
            if kind != "rebuilt":
                continue
            typ, recipe, state, training = spec
            problem = _check_recipe(recipe, name)
            value = None
            if problem is None:
                try:
                    with torch.random.fork_rng(devices=[]):
                        # code from a file: restricted, whatever the workspace's own mode
                        ws.run(recipe, restricted=True, time_limit=_RECIPE_TIME_LIMIT)
                    value = ws.get(name)
                except ProgramError as exc:
                    headline = {lang: exc.headline_in(lang) for lang in LANGUAGES}
                    problem = Message("session.rebuild-failed", headline=headline)
                except RuntimeError as exc:
                    problem = Message("session.rebuild-not-run", why=str(exc))
            if problem is None and typ == "function":
                if not isinstance(value, types.FunctionType):
                    problem = Message("session.rebuild-not-function")
            elif problem is None:
                try:
                    problem = _restore_module(
                        b, name, value, typ, state, training, {**built, **modules}
                    )
                except (RuntimeError, ValueError, TypeError, _Bad) as exc:
                    why = exc.args[0] if isinstance(exc, _Bad) and exc.args else str(exc)
                    problem = Message("session.rebuild-state", why=why)
                if problem is None:
                    assert isinstance(value, torch.nn.Module)  # _restore_module checked it
                    modules[name] = value
            if problem is not None:
                notes.append(Message("session.note-not-rebuilt", name=name, typ=typ,
                                     problem=problem))  # fmt: skip
                if name in ws:  # what its statement did make is not it: later ones must not see it
                    del ws[name]
            else:
                made[name] = value
        for name, kind, spec in c.values:
            if kind == "same":
                target = _follow(spec, built, modules)
                if target is None:
                    notes.append(Message("session.note-dangling", name=name))
                else:
                    made[name] = target
        return made

    ws.replace_contents(
        built,
        history=c.history,
        origins=c.origins,
        selected=c.selected,
        rebuild=rebuild,
        order=[name for name, _, _ in c.values],
        reason=Message("undo.session-opened"),
    )
    return ws


class _SessionFiles:
    """This module's reader and writer, as :class:`Workspace` calls them (``save``, ``open``,
    ``load_session``)."""

    def save(self, ws: Workspace, path: str | os.PathLike[str]) -> None:
        save_session(ws, path)

    def open(self, path: str | os.PathLike[str], into: Workspace | None = None) -> Workspace:
        return open_session(path, into)


use_session_files(_SessionFiles())


def _check_recipe(recipe: str, name: str) -> Message | None:
    """Why ``recipe`` cannot rebuild ``name`` (a catalog Message), or None."""
    try:
        tree = ast.parse(recipe)
    except SyntaxError:
        return Message("session.recipe-invalid")
    if len(tree.body) != 1:
        return Message("session.recipe-not-one")
    stmt = tree.body[0]
    if isinstance(stmt, ast.FunctionDef):
        return None if stmt.name == name else Message("session.recipe-other-name")
    if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name):  # fmt: skip
        return None
    return Message("session.recipe-not-binding")


def _restore_module(
    b: _Builder,
    name: str,
    module: Any,
    typ: str,
    state: dict[str, Any],
    training: bool,
    built: dict[str, Any],
) -> Message | None:
    """Point the parameters and buffers of ``module`` (just rebuilt by its recipe) at the
    saved bytes; return why not (a catalog Message), or None."""
    if not isinstance(module, torch.nn.Module) or type(module).__name__ != typ:
        return Message("session.module-type", made=type(module).__name__, typ=typ)
    tensors = dict(module.named_parameters(remove_duplicate=False))
    buffers = dict(module.named_buffers(remove_duplicate=False))
    if set(state) != set(tensors) | set(buffers):
        return Message("session.module-state-keys")
    for key, spec in state.items():
        current = tensors.get(key, buffers.get(key))
        if isinstance(spec, tuple):  # the same tensor object as another value
            saved = _follow(spec, built, {**built, name: module})
            if saved is None:
                return Message("session.note-dangling", name=key)
            if saved is current:
                continue
        else:
            if current is None or (spec.role == "param") != (key in tensors):
                return Message("session.module-not-role", key=key, role=spec.role)
            saved = b.tensor(spec, f"{name}.{key}")
        assert current is not None
        if tuple(current.shape) != tuple(saved.shape) or current.dtype != saved.dtype:
            return Message("session.module-shape", key=key)
        with torch.no_grad():
            current.set_(saved.untyped_storage(), saved.storage_offset(), saved.shape,
                         saved.stride())  # fmt: skip
        if saved.device != current.device:
            return Message("session.module-device", key=key)
        current.grad = saved.grad
    module.train(training)
    return None


def _follow(ref: tuple[str, ...], built: dict[str, Any], modules: dict[str, Any]) -> Any:
    if ref[0] == "value":
        value = built.get(ref[1])
        return value if isinstance(value, torch.Tensor) else None
    module = modules.get(ref[1])
    if module is None:
        return None
    found = dict(module.named_parameters(remove_duplicate=False))
    found.update(module.named_buffers(remove_duplicate=False))
    return found.get(ref[2])
