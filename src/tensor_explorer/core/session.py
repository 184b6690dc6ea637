"""Session files: a whole workspace in one file, opened without unpickling anything, and
without running any code unless the file is the user's own.

A session file is a zip archive with three kinds of members:

- ``manifest.json`` (deflated, always first): everything but the bytes of tensors and arrays:
  the format name and version, the byte order of the machine that wrote it, the
  *allocations* (one per distinct memory block: device and size), the *values* in workspace
  order, the history (:class:`~tensor_explorer.core.workspace.Record`), the origins, the
  selection and notes;
- ``data/<i>.bin`` (stored, not compressed): the raw bytes of allocation ``i``, exactly
  ``nbytes`` of them;
- ``signature.json`` (last; absent when there was no key to sign with): the HMAC-SHA256 that
  says this app wrote the file for this user (:mod:`.signing`).

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

**Data never needs code** (format version 2). Plain data (``int``/``float``/``complex``/``str``/
``bool``/``None``, lists, tuples and dicts of those, NumPy scalars, ``torch.dtype``/
``torch.device``/``torch.Size``) is tagged JSON, bit-exactly (floats as their IEEE bytes). An
``nn.Module`` is data too: its parameters and buffers by qualified name (and their ``.grad``,
and which of them are the same tensor as another value), and its tree of submodules: each
one's class (name and module), ``training``, and, for torch.nn's own classes, their plain
attributes (``in_features``, ``kernel_size``...). An optimizer of ``torch.optim`` is its
parameters (references to those tensors), its ``param_groups``' hyperparameters and its state
(momentum buffers, Adam's moments and steps). *Code* is kept as text: the source of the user's
classes and functions (their statement from the history), and for a module the statement that
made it (``net = Net()``), its *recipe*.

**Opening** (:func:`open_session`) validates the whole manifest (types, ranges, dtype names from
an allowlist, shapes, strides and offsets within their storage, storages within their
allocation, member sizes against the allocations, total size against the memory there is)
before it creates anything, and builds a *new* workspace from the data alone: a torch.nn
module is rebuilt structurally (``cls.__new__``, ``nn.Module.__init__``, its saved plain
attributes, its saved tensors), an optimizer of torch.optim by its constructor over the saved
tensors; no code of the file runs, and time and memory are bounded by the data. A module of a
class of the user's opens as a :class:`SavedModule` placeholder holding its parameters,
buffers and submodules by their names and its class's source as text; its ``forward`` says
its code has not run. Then:

- a file this app wrote for this user (signed with the user's key, manifest and every data
  byte unchanged) is the user's own code: its imports, classes and functions run again as full
  Python, then each placeholder's recipe, and the new module takes the saved tensors in place
  of its own (the same tensor objects: values and optimizers that shared them still do), each
  statement under a time limit. What fails stays a placeholder, with a note;
- any other file (unsigned, signed with another key, changed since, or a version 1 file, whose
  recipes were never signed) runs no code at all: the workspace's ``session_code`` keeps what
  was not rebuilt, a note says so, and :func:`rebuild_code` runs it as full Python once the
  user trusts the session (the window's trust bar).

A corrupt or hostile file raises :class:`~tensor_explorer.core.loading.LoadError` and changes
nothing. Version 1 files (recipes replayed on open) still open, as files from elsewhere.

Saving can be split for background autosave: :func:`capture` (quick, on the thread that owns
the workspace; copies small data) and :func:`write` (anywhere; atomic: temp file, fsync, rename,
fsync of the folder; temp files a killed save left behind are removed by the next save).

This module depends on :mod:`~tensor_explorer.core.workspace`, never the other way round: it
reads a workspace through its public API, puts what it opened in through
:meth:`~tensor_explorer.core.workspace.Workspace.replace_contents` (which emits the events), and
registers itself (:func:`~tensor_explorer.core.workspace.use_session_files`) for ``ws.save``,
``Workspace.open`` and ``ws.load_session``.
"""

from __future__ import annotations

import ast
import contextlib
import ctypes
import hashlib
import inspect
import json
import math
import os
import re
import struct
import sys
import tempfile
import time
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

from . import signing, trust
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
    "SavedModule",
    "SessionCode",
    "Snapshot",
    "capture",
    "is_session",
    "open_session",
    "pending_code",
    "rebuild_code",
    "save_session",
    "write",
]

FORMAT = "tensor-explorer-session"
VERSION = 2
MANIFEST = "manifest.json"
SIGNATURE = "signature.json"
MAX_SIGNATURE_BYTES = 4096
#: a temporary file of a killed save is removed by a later save into its folder after this long
STALE_TEMP_SECONDS = 60.0
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
_SOURCE_MAX_CHARS = 1_000_000
_MAX_IMPORTS = 1000

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
_BINDINGS = frozenset({"assign", "def", "class", "import", "for", "with", "set"})


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
    entries: dict[str, dict[str, Any]] = {}
    # optimizers last: their parameters are references to the tensors of the other values
    for name, value in items:
        if not isinstance(value, torch.optim.Optimizer):
            entries[name] = _value_entry(cap, ws, name, value, seen)
    for name, value in items:
        if isinstance(value, torch.optim.Optimizer):
            entries[name] = _optimizer_entry(cap, value, seen)
    values: list[dict[str, Any]] = []
    for name, _ in items:
        entry = entries[name]
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
        if isinstance(value, torch.nn.Parameter):
            entry["role"] = "param"
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
    if isinstance(value, torch.nn.Module):
        return _module_entry(cap, name, value, _recipe(name, origin), seen)
    if isinstance(value, type):
        source = _class_source(name, origin)
        if source is None:
            return _not_saved(value, "it is a class whose statement is not in the history")
        return {"kind": "class", "source": source}
    recipe = _recipe(name, origin)
    if isinstance(value, types.FunctionType) and recipe is not None:
        return {"kind": "function", "source": recipe}
    return _not_saved(value, "it is neither data nor made by a statement that can be run again")


def _module_entry(cap: _Capture, name: str, value: torch.nn.Module, recipe: str | None,
                  seen: dict[int, list[str]]) -> dict[str, Any]:
    """A module as data: its tensors by qualified name, its tree of submodules (class, flags,
    plain attributes of torch.nn's classes), and the statement that made it (None: none)."""
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
    tree = []
    for path, sub in value.named_modules(remove_duplicate=False):
        tree.append({
            "path": path,
            "type": type(sub).__name__,
            "module": type(sub).__module__,
            "training": bool(sub.training),
            "params": [[k, p is not None] for k, p in sub._parameters.items()],
            "buffers": [[k, b is not None] for k, b in sub._buffers.items()],
            "non_persistent": sorted(str(k) for k in sub._non_persistent_buffers_set),
            "attrs": _module_attrs(sub),
        })  # fmt: skip
    return {
        "kind": "module",
        "type": type(value).__name__,
        "recipe": recipe if recipe is not None and _check_code(recipe, name, "module") is None
        else None,
        "state": params,
        "training": bool(value.training),
        "tree": tree,
    }


#: what every nn.Module has of its own (``nn.Module.__init__``): not attributes of its class
_MODULE_BASE: dict[str, Any] = dict(vars(torch.nn.Module()))
_MODULE_TABLES = frozenset({"_parameters", "_buffers", "_modules", "_non_persistent_buffers_set",
                            "training"})  # fmt: skip
_ATTR_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,100}$")


def _library_class(module: Any, name: Any, base: type) -> type | None:
    """torch's own class ``module.name`` (a torch.nn module or a torch.optim optimizer, by
    ``base``), looked up among the modules torch has already imported, or None. Nothing is
    imported and nothing runs: this is the allowlist of classes a file may name."""
    prefix = "torch.nn.modules." if base is torch.nn.Module else "torch.optim."
    if type(module) is not str or type(name) is not str or not module.startswith(prefix):
        return None
    mod = sys.modules.get(module)
    cls = getattr(mod, name, None) if mod is not None else None
    if (isinstance(cls, type) and issubclass(cls, base) and cls.__module__ == module
            and cls.__name__ == name):  # fmt: skip
        return cls
    return None


def _attr_ok(cls: type, key: str) -> bool:
    """Whether the plain attribute ``key`` may be set on an instance of the torch.nn class
    ``cls``: a name, no dunder, not a table of nn.Module, nothing of the class's that is code
    (a method, a property)."""
    if not _ATTR_NAME.match(key) or key.startswith("__") or key in _MODULE_BASE:
        return False
    found = inspect.getattr_static(cls, key, None)
    return found is None or type(found) in (int, float, bool, str, tuple)


def _module_attrs(sub: torch.nn.Module) -> dict[str, Any] | None:
    """The plain attributes of a module of torch.nn's own classes (tagged JSON), or None: not
    such a class, or it holds something that is not plain data (hooks, tensors in lists...)."""
    cls = type(sub)
    if _library_class(cls.__module__, cls.__name__, torch.nn.Module) is not cls:
        return None
    attrs: dict[str, Any] = {}
    for key, v in vars(sub).items():
        if key in _MODULE_TABLES:
            continue
        if key in _MODULE_BASE:
            fresh = _MODULE_BASE[key]
            if type(v) is not type(fresh) or v != fresh:
                return None
            continue
        if not _attr_ok(cls, key):
            return None
        try:
            attrs[key] = _encode(v, 0, [0])
        except _Unsupported:
            return None
    return attrs


def _optimizer_entry(cap: _Capture, opt: torch.optim.Optimizer,
                     seen: dict[int, list[str]]) -> dict[str, Any]:
    """An optimizer of torch.optim as data: its parameters (references to other values'
    tensors, or tensors of its own), each group's hyperparameters and its state."""
    cls = type(opt)
    if _library_class(cls.__module__, cls.__name__, torch.optim.Optimizer) is not cls:
        return _not_saved(opt, "it is an optimizer that is not one of torch.optim's")
    index: dict[int, int] = {}
    params: list[dict[str, Any]] = []
    groups: list[dict[str, Any]] = []
    try:
        for g in opt.param_groups:
            ids = []
            for p in g["params"]:
                if id(p) not in index:
                    index[id(p)] = len(params)
                    ref = seen.get(id(p))
                    entry = {"kind": "same", "ref": ref} if ref is not None else cap.tensor(p)
                    if entry is None:
                        return _not_saved(opt, "one of its parameters has no byte form")
                    params.append(entry)
                ids.append(index[id(p)])
            options = {k: v for k, v in g.items() if k != "params"}
            groups.append({"params": ids, "options": _encode(options, 0, [0])})
        state = []
        for p, st in opt.state.items():
            i = index.get(id(p))
            if i is None or type(st) is not dict:
                continue
            items: dict[str, Any] = {}
            for k, v in st.items():
                if type(k) is not str:
                    raise _Unsupported
                if isinstance(v, torch.Tensor):
                    t = cap.tensor(v, grad=False)
                    if t is None:
                        raise _Unsupported
                    items[k] = t
                else:
                    items[k] = {"kind": "plain", "value": _encode(v, 0, [0])}
            state.append({"param": i, "state": items})
        defaults = _encode(dict(opt.defaults), 0, [0])
    except _Unsupported:
        return _not_saved(opt, "its hyperparameters or state are not plain data and tensors")
    return {"kind": "optimizer", "type": cls.__name__, "module": cls.__module__,
            "params": params, "groups": groups, "state": state, "defaults": defaults}


def _class_source(name: str, origin: Any) -> str | None:
    """The class statement that made ``name``, from the history, when there is one."""
    if origin is None or origin.kind != "run" or origin.binding != "class":
        return None
    source = origin.statement
    if not source or _check_code(source, name, "class") is not None:
        return None
    return str(source)


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
    """Write ``snapshot`` to ``path`` atomically (a temporary file in the same folder, fsync'd,
    renamed over ``path``, then the folder fsync'd): a crash while writing leaves the previous
    file as it was. The file is signed with this user's key (:mod:`.signing`: made on first
    use) when there is one; without one it is written unsigned. Temporary files that a killed
    save of the same target left in that folder more than :data:`STALE_TEMP_SECONDS` ago are
    removed first."""
    target = Path(path)
    _remove_stale_temps(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as raw, zipfile.ZipFile(raw, "w", allowZip64=True) as zf:
            text = json.dumps(snapshot.manifest, ensure_ascii=False, allow_nan=False)
            manifest = text.encode("utf-8")
            zf.writestr(MANIFEST, manifest, compress_type=zipfile.ZIP_DEFLATED)
            digests: list[tuple[int, str]] = []
            for i, block in enumerate(snapshot.blocks):
                info = zipfile.ZipInfo(f"data/{i}.bin", date_time=(2020, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_STORED
                nbytes = snapshot.manifest["allocations"][i]["nbytes"]
                info.file_size = nbytes
                h = hashlib.sha256()
                with zf.open(info, "w", force_zip64=True) as out:
                    for chunk in block():
                        out.write(chunk)
                        h.update(chunk)
                digests.append((nbytes, h.hexdigest()))
            key = signing.load_key(create=True)
            if key is not None:
                signature = {"alg": "HMAC-SHA256", "mac": signing.mac(key, manifest, digests)}
                zf.writestr(SIGNATURE, json.dumps(signature).encode("ascii"),
                            compress_type=zipfile.ZIP_STORED)  # fmt: skip
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_folder(target.parent)


def _remove_stale_temps(target: Path) -> None:
    """Remove the temporary files of earlier saves of ``target`` that never finished (a killed
    process): only names :func:`write` makes for this very target (``.NAME.XXXXXXXX.tmp``),
    plain files, older than :data:`STALE_TEMP_SECONDS` (a save still under way elsewhere
    writes its file continuously). Never fails."""
    pattern = re.compile(rf"\.{re.escape(target.name)}\.[a-z0-9_]{{8}}\.tmp")
    now = time.time()
    try:
        with os.scandir(target.parent) as found:
            stale = [e.path for e in found
                     if pattern.fullmatch(e.name) and e.is_file(follow_symlinks=False)
                     and now - e.stat(follow_symlinks=False).st_mtime > STALE_TEMP_SECONDS]
    except OSError:
        return
    for name in stale:
        with contextlib.suppress(OSError):
            os.unlink(name)


def _fsync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (POSIX; elsewhere, or where it fails, nothing)."""
    if os.name != "posix":
        return
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


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
class _Node:
    """One submodule of a saved module (``path`` "" is the module itself)."""

    path: str
    typ: str
    module: str
    training: bool
    params: list[tuple[str, bool]]  # (name, not None), in order
    buffers: list[tuple[str, bool]]
    non_persistent: frozenset[str]
    attrs: dict[str, Any] | None  # tagged JSON; None: not a class torch.nn rebuilds from data


@dataclass
class _ModuleSpec:
    typ: str
    recipe: str | None
    state: dict[str, Any]  # qualified name -> _TensorSpec or reference
    training: bool
    tree: list[_Node] | None  # None: a version 1 file (placeholders from the state's names)


@dataclass
class _CodeSpec:
    kind: str  # "class" | "function"
    source: str


@dataclass
class _OptSpec:
    typ: str
    module: str
    params: list[Any]  # _TensorSpec or reference
    groups: list[tuple[list[int], Any]]  # (parameter indices, options as tagged JSON)
    state: list[tuple[int, dict[str, Any]]]  # (parameter index, {key: _TensorSpec | tagged})
    defaults: Any


@dataclass
class _Checked:
    allocs: list[int]
    devices: list[str]
    values: list[tuple[str, str, Any]]  # (name, kind, spec)
    history: list[Any]
    origins: dict[str, Any]
    selected: str | None
    notes: list[str]
    version: int = VERSION


def _validate(m: Any) -> _Checked:
    _keys(m, {"format", "version", "byteorder", "torch", "allocations", "values", "history",
              "origins", "selected", "notes"},
          {"format", "version", "allocations", "values"},
          Message("session.at-manifest"))  # fmt: skip
    _need(m["format"] == FORMAT, Message("session.not-ours"))
    _need(type(m["version"]) is int, Message("session.version-type"))
    _need(m["version"] <= VERSION,
          Message("session.newer", version=m["version"], supported=VERSION))  # fmt: skip
    version = int(m["version"])
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
            _need(spec.role in (None, "param"), Message("session.unexpected-role", what=what))
        elif kind == "ndarray":
            spec = _array_spec(e, allocs, what)
        elif kind == "plain":
            _keys(e, {"kind", "name", "value"}, {"value"}, what)
            _check_plain(e["value"], 0, [0])
            spec = e["value"]
        elif kind == "same":
            _keys(e, {"kind", "name", "ref"}, {"ref"}, what)
            spec = _ref(e["ref"], what)
        elif kind == "rebuilt" and version == 1:
            _keys(e, {"kind", "name", "type", "recipe", "state", "training"},
                  {"type", "recipe"}, what)  # fmt: skip
            typ = _str(e["type"], _at(what, "type"), limit=200) or ""
            recipe = _str(e["recipe"], _at(what, "recipe"), limit=_RECIPE_MAX_CHARS) or ""
            state = _state(e.get("state", {}), allocs, what)
            training = e.get("training", True)
            _need(type(training) is bool, Message("session.flag", what=what, key="training"))
            if typ == "function":
                kind, spec = "code", _CodeSpec("function", recipe)
            else:
                kind, spec = "module", _ModuleSpec(typ, recipe, state, training, None)
        elif kind == "module" and version >= 2:
            _keys(e, {"kind", "name", "type", "recipe", "state", "training", "tree"},
                  {"type", "state", "tree"}, what)  # fmt: skip
            typ = _str(e["type"], _at(what, "type"), limit=200) or ""
            made_by = _str(e.get("recipe"), _at(what, "recipe"), optional=True,
                           limit=_RECIPE_MAX_CHARS)  # fmt: skip
            state = _state(e["state"], allocs, what)
            training = e.get("training", True)
            _need(type(training) is bool, Message("session.flag", what=what, key="training"))
            spec = _ModuleSpec(typ, made_by, state, training, _tree(e["tree"], state, what))
        elif kind in ("class", "function") and version >= 2:
            _keys(e, {"kind", "name", "source"}, {"source"}, what)
            source = _str(e["source"], _at(what, "source"), limit=_SOURCE_MAX_CHARS) or ""
            spec = _CodeSpec(kind, source)
            kind = "code"
        elif kind == "optimizer" and version >= 2:
            spec = _optimizer_spec(e, allocs, what)
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
                    selected if selected in seen else None, list(notes), version)  # fmt: skip


def _state(raw_state: Any, allocs: list[int], what: str) -> dict[str, Any]:
    """A module's tensors by qualified name: tensor specs with a role, or references."""
    state: dict[str, Any] = {}
    _need(type(raw_state) is dict and len(raw_state) <= MAX_VALUES,
          Message("session.bad-state", what=what))  # fmt: skip
    for key, s in raw_state.items():
        _need(0 < len(key) <= 1000, Message("session.bad-state-key", what=what))
        item = Message("session.at-state", what=what, key=key)
        if type(s) is dict and s.get("kind") == "same":
            _keys(s, {"kind", "ref"}, {"ref"}, item)
            state[key] = _ref(s["ref"], item)
        else:
            state[key] = _tensor_spec(s, allocs, item)
            _need(state[key].role is not None, Message("session.missing-role", what=item))
    return state


def _tree(raw: Any, state: dict[str, Any], what: str) -> list[_Node]:
    """A module's submodules, parents first, checked against its state: every tensor the
    tree names is in the state with that role, and nothing else is."""
    _need(type(raw) is list and 0 < len(raw) <= MAX_VALUES, Message("session.bad-tree", what=what))
    nodes: list[_Node] = []
    paths: set[str] = set()
    named: dict[str, str] = {}
    for i, n in enumerate(raw):
        where = Message("session.at-node", what=what, index=i)
        _keys(n, {"path", "type", "module", "training", "params", "buffers", "non_persistent",
                  "attrs"}, {"path", "type", "module", "training", "params", "buffers"},
              where)  # fmt: skip
        path = _str(n["path"], _at(where, "path"), limit=10_000) or ""
        parent, _, leaf = path.rpartition(".")
        _need((i == 0) == (path == "") and (i == 0 or (parent in paths and leaf != ""))
              and path not in paths, Message("session.bad-tree", what=what))  # fmt: skip
        paths.add(path)
        typ = _str(n["type"], _at(where, "type"), limit=200) or ""
        module = _str(n["module"], _at(where, "module"), limit=200) or ""
        _need(type(n["training"]) is bool, Message("session.flag", what=where, key="training"))
        tables = []
        for table, role in (("params", "param"), ("buffers", "buffer")):
            entries = n[table]
            _need(type(entries) is list and all(
                type(x) is list and len(x) == 2 and type(x[0]) is str and 0 < len(x[0]) <= 1000
                and "." not in x[0] and type(x[1]) is bool for x in entries),
                Message("session.bad-field", what=where, key=table))  # fmt: skip
            for leaf_name, present in entries:
                if present:
                    key = f"{path}.{leaf_name}" if path else leaf_name
                    _need(key not in named, Message("session.bad-tree", what=what))
                    named[key] = role
            tables.append([(str(x[0]), bool(x[1])) for x in entries])
        non_persistent = _names(n.get("non_persistent", []), where)
        attrs = n.get("attrs")
        if attrs is not None:
            _need(type(attrs) is dict and len(attrs) <= 1000,
                  Message("session.bad-field", what=where, key="attrs"))  # fmt: skip
            for value in attrs.values():
                _check_plain(value, 0, [0])
        nodes.append(_Node(path, typ, module, n["training"], tables[0], tables[1],
                           frozenset(non_persistent), attrs))  # fmt: skip
    _need(set(named) == set(state), Message("session.module-state-keys"))
    for key, spec in state.items():
        if isinstance(spec, _TensorSpec):
            _need(spec.role == named[key],
                  Message("session.module-not-role", key=key, role=spec.role))  # fmt: skip
    return nodes


def _optimizer_spec(e: Any, allocs: list[int], what: str) -> _OptSpec:
    _keys(e, {"kind", "name", "type", "module", "params", "groups", "state", "defaults"},
          {"type", "module", "params", "groups"}, what)  # fmt: skip
    typ = _str(e["type"], _at(what, "type"), limit=200) or ""
    module = _str(e["module"], _at(what, "module"), limit=200) or ""
    raw_params = e["params"]
    _need(type(raw_params) is list and len(raw_params) <= MAX_VALUES,
          Message("session.bad-field", what=what, key="params"))  # fmt: skip
    params: list[Any] = []
    for i, p in enumerate(raw_params):
        item = Message("session.at-state", what=what, key=str(i))
        if type(p) is dict and p.get("kind") == "same":
            _keys(p, {"kind", "ref"}, {"ref"}, item)
            params.append(_ref(p["ref"], item))
        else:
            params.append(_tensor_spec(p, allocs, item))
    groups: list[tuple[list[int], Any]] = []
    raw_groups = e["groups"]
    _need(type(raw_groups) is list and len(raw_groups) <= 10_000,
          Message("session.bad-field", what=what, key="groups"))  # fmt: skip
    for g in raw_groups:
        _keys(g, {"params", "options"}, {"params", "options"}, what)
        ids = _ints_any(g["params"], _at(what, "groups"), len(params))
        _check_plain(g["options"], 0, [0])
        _need(g["options"][0] == "dict", Message("session.bad-field", what=what, key="groups"))
        groups.append((ids, g["options"]))
    state: list[tuple[int, dict[str, Any]]] = []
    raw_state = e.get("state", [])
    _need(type(raw_state) is list and len(raw_state) <= len(params),
          Message("session.bad-state", what=what))  # fmt: skip
    for st in raw_state:
        _keys(st, {"param", "state"}, {"param", "state"}, what)
        i = _int(st["param"], _at(what, "state"), 0, max(len(params) - 1, 0))
        items = st["state"]
        _need(type(items) is dict and len(items) <= 100, Message("session.bad-state", what=what))
        decoded: dict[str, Any] = {}
        for k, v in items.items():
            _need(len(k) <= 200, Message("session.bad-state-key", what=what))
            item = Message("session.at-state", what=what, key=k)
            if type(v) is dict and v.get("kind") == "plain":
                _keys(v, {"kind", "value"}, {"value"}, item)
                _check_plain(v["value"], 0, [0])
                decoded[k] = v["value"]
            else:
                decoded[k] = _tensor_spec(v, allocs, item)
        state.append((i, decoded))
    defaults = e.get("defaults", ["dict", []])
    _check_plain(defaults, 0, [0])
    _need(defaults[0] == "dict", Message("session.bad-field", what=what, key="defaults"))
    return _OptSpec(typ, module, params, groups, state, defaults)


def _ints_any(v: Any, what: str, count: int) -> list[int]:
    _need(type(v) is list and len(v) <= MAX_VALUES,
          Message("session.int-list", what=what, most=MAX_VALUES))  # fmt: skip
    return [_int(x, what, 0, max(count - 1, 0)) for x in v]


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
            if info.filename not in (MANIFEST, SIGNATURE) and not re.fullmatch(
                    r"data/\d{1,9}\.bin", info.filename):  # fmt: skip
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
        signed = SIGNATURE in by_name
        _need(len(infos) == len(checked.allocs) + 1 + signed,
              Message("session.members-unexpected"))  # fmt: skip
        total = sum(checked.allocs)
        avail = _available_memory()
        if total > avail:
            raise LoadError(Message("session.needs-memory", nbytes=total, available=avail))
        # whose file it is: only a signed version 2 file can be the user's own; the data's
        # digests are taken while it is read, only when there is a signature to check
        signature = _signature(zf, by_name[SIGNATURE]) if signed else None
        key = signing.load_key() if signature is not None and checked.version >= 2 else None
        digests: list[tuple[int, str]] = []
        buffers = []
        for i, n in enumerate(checked.allocs):
            h = hashlib.sha256() if key is not None else None
            buffers.append(_read_alloc(zf, by_name[f"data/{i}.bin"], n, h))
            if h is not None:
                digests.append((n, h.hexdigest()))
    if checked.version < 2:
        whose = Message("session.foreign-v1")
    elif signature is None:
        whose = Message("session.foreign-unsigned")
    elif key is not None and signing.verify(key, raw, digests, signature):
        whose = None  # the user's own
    else:
        whose = Message("session.foreign-other")
    return _build(checked, buffers, into, whose)


def _signature(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> str | None:
    """The MAC a signature member holds, or None when it is not one (then the file is not the
    user's own: never an error)."""
    if info.file_size > MAX_SIGNATURE_BYTES:
        return None
    with zf.open(info) as f:
        data = f.read(MAX_SIGNATURE_BYTES + 1)
    try:
        sig = json.loads(data.decode("ascii"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None
    if (type(sig) is not dict or sig.get("alg") != "HMAC-SHA256" or type(sig.get("mac")) is not str
            or not re.fullmatch(r"[0-9a-f]{64}", sig["mac"])):  # fmt: skip
        return None
    return str(sig["mac"])


def _no_constant(name: str) -> Any:
    raise _Bad(Message("session.manifest-constant", constant=name))


def _read_alloc(zf: zipfile.ZipFile, info: zipfile.ZipInfo, nbytes: int,
                digest: Any = None) -> torch.Tensor:
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
            if digest is not None:
                digest.update(view[got : got + n])
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


class SavedModule(torch.nn.Module):
    """A module of a session whose class's code has not run: its parameters, buffers and
    submodules by their saved names (so ``tx.names`` and the panels show them), its class's
    name and, when the session holds it, the class statement's source as text. Calling it
    raises a RuntimeError that says so; :func:`rebuild_code` replaces it by the real module
    once the user trusts the session."""

    def __init__(self, type_name: str, source: str | None = None) -> None:
        super().__init__()
        self._tx_type = type_name
        self._tx_source = source

    @property
    def saved_type(self) -> str:
        """The name of the class it stands for."""
        return self._tx_type

    @property
    def saved_source(self) -> str | None:
        """The source of that class's statement, when the session holds it."""
        return self._tx_source

    def _get_name(self) -> str:
        return str(Message("session.saved-module-name", typ=self._tx_type))

    def __repr__(self) -> str:
        return self._get_name() if not self._modules else super().__repr__()

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(Message("session.saved-module-forward", typ=self._tx_type))


def _placeholders(module: Any) -> bool:
    """Whether ``module`` is, or holds, a :class:`SavedModule`."""
    return isinstance(module, torch.nn.Module) and any(
        isinstance(m, SavedModule) for m in module.modules())


@dataclass(frozen=True)
class SessionCode:
    """What a session held as code and did not run (it was not the user's own): the import
    statements of its history, its classes' and functions' source (``defs``: name, "class" or
    "function", source) and, for each module shown as a placeholder, the statement that made
    it (``modules``: name, class name, statement). ``why``: a catalog Message saying why it
    did not run. A workspace keeps it in ``session_code`` until :func:`rebuild_code`."""

    imports: tuple[str, ...]
    defs: tuple[tuple[str, str, str], ...]
    modules: tuple[tuple[str, str, str], ...]
    order: tuple[str, ...]
    origins: MappingProxyType[str, Origin]
    why: str

    @property
    def names(self) -> list[str]:
        """The names it would rebuild, in workspace order."""
        mine = {n for n, _, _ in self.defs} | {n for n, _, _ in self.modules}
        return [n for n in self.order if n in mine]


def pending_code(ws: Workspace) -> SessionCode | None:
    """What the session opened in ``ws`` holds as code and did not run, or None."""
    code = ws.session_code
    return code if isinstance(code, SessionCode) else None


def _imports(history: list[Record]) -> tuple[str, ...]:
    """The history's statements that only import (``import torch``, ``from torch import nn``):
    what the user's classes and functions may need besides the values."""
    found: list[str] = []
    for r in history:
        if r.kind != "run" or r.source in found or len(found) >= _MAX_IMPORTS:
            continue
        try:
            body = ast.parse(r.source).body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        if body and all(isinstance(n, ast.Import | ast.ImportFrom) for n in body):
            found.append(r.source)
    return tuple(found)


def _build(c: _Checked, buffers: list[torch.Tensor], into: Workspace | None,
           whose: str | None) -> Workspace:
    """The workspace of a validated session, from its data alone; then, when ``whose`` is
    None (the user's own file), its code is run again as full Python; otherwise it waits in
    ``session_code`` with a note saying why (``whose``)."""
    b = _Builder(c, buffers)
    built: dict[str, Any] = {}
    modules: dict[str, torch.nn.Module] = {}
    sources = {name: spec.source for name, kind, spec in c.values
               if kind == "code" and spec.kind == "class"}  # fmt: skip
    defs: list[tuple[str, str, str]] = []
    module_code: list[tuple[str, str, str]] = []
    for name, kind, spec in c.values:
        if kind == "tensor":
            t = b.tensor(spec, name)
            built[name] = _param(t) if spec.role == "param" else t
        elif kind == "ndarray":
            built[name] = b.array(spec)
        elif kind == "plain":
            built[name] = _decode(spec)
        elif kind == "same":
            target = _follow(spec, built, modules)
            if target is None:
                b.notes.append(Message("session.note-dangling", name=name))
            else:
                built[name] = target
        elif kind == "module":
            module = _data_module(b, name, spec, built, modules, sources.get(spec.typ))
            modules[name] = built[name] = module
            if _placeholders(module):
                problem = (None if spec.recipe is None
                           else _check_code(spec.recipe, name, "module"))  # fmt: skip
                if spec.recipe is None:
                    b.notes.append(Message("session.note-no-recipe", name=name, typ=spec.typ))
                elif problem is not None:
                    b.notes.append(Message("session.note-not-rebuilt", name=name, typ=spec.typ,
                                           problem=problem))  # fmt: skip
                else:
                    module_code.append((name, spec.typ, spec.recipe))
        elif kind == "code":
            problem = _check_code(spec.source, name, spec.kind)
            if problem is None:
                defs.append((name, spec.kind, spec.source))
            else:
                b.notes.append(Message("session.note-not-rebuilt", name=name, typ=spec.kind,
                                       problem=problem))  # fmt: skip
        elif kind == "not_saved":
            typ, note = spec
            b.notes.append(Message("session.note-not-saved", name=name, typ=typ, note=note))
    for name, kind, spec in c.values:
        if kind == "optimizer":
            opt, problem = _data_optimizer(b, name, spec, built, modules)
            if opt is not None:
                built[name] = opt
            else:
                b.notes.append(Message("session.note-not-rebuilt", name=name, typ=spec.typ,
                                       problem=problem))  # fmt: skip
    order = tuple(name for name, _, _ in c.values)
    code = None
    if defs or module_code:
        mine = {n for n, _, _ in defs} | {n for n, _, _ in module_code}
        code = SessionCode(
            _imports(c.history), tuple(defs), tuple(module_code), order,
            MappingProxyType({n: o for n, o in c.origins.items() if n in mine}),
            whose or "",
        )  # fmt: skip
    ws = Workspace() if into is None else into
    rebuild = None
    # the one decision (trust.decide): a session's code runs at open only when the file is
    # the user's own (signed with their key); anything else waits for their Trust
    decision = trust.decide(None, own=whose is None)
    if code is not None and decision.full:
        own = code

        def rebuild(notes: list[str]) -> dict[str, Any]:
            return _run_code(ws, own, built, notes, decision)

        code = None
    elif code is not None:
        b.notes.append(Message("session.note-code-not-run", why=whose, names=code.names))
    ws.replace_contents(
        built,
        history=c.history,
        origins=c.origins,
        selected=c.selected,
        notes=b.notes,
        rebuild=rebuild,
        order=order,
        reason=Message("undo.session-opened"),
        code=code,
    )
    return ws


def rebuild_code(ws: Workspace) -> list[str]:
    """Run, as the user's own full Python, the code the session opened in ``ws`` held and did
    not run (:func:`pending_code`): once the user trusts the session (the window's trust bar
    calls this). Its imports, classes and functions are made again, then each placeholder
    module's statement, and the new module takes the saved tensors in place of its own (the
    same tensor objects: values and optimizers that used them still do). Each statement runs
    under a time limit; what fails stays as it was, with a note in ``session_notes``. A name
    the user has bound to something else since is left alone. One replacement of the
    workspace's contents (its events; undo cannot go back across it). Returns the names
    rebuilt; [] when there was nothing to rebuild."""
    code = pending_code(ws)
    if code is None:
        return []
    names = ws.names()
    values = {n: ws[n] for n in names}
    origins = {n: o for n in names if (o := ws.origin(n)) is not None}
    origins.update((n, o) for n, o in code.origins.items() if n not in values)
    kept = [n for n in ws.session_notes
            if not (isinstance(n, Message) and n.code == "session.note-code-not-run")]
    rebuilt: list[str] = []

    decision = trust.decide(None, asked=True)  # the user trusted it (the trust bar)

    def rebuild(notes: list[str]) -> dict[str, Any]:
        made = _run_code(ws, code, values, notes, decision)
        rebuilt.extend(n for n in code.names if n in made and made[n] is not values.get(n))
        return made

    ws.replace_contents(
        values, history=ws.history, origins=origins, selected=ws.selected, notes=kept,
        rebuild=rebuild, order=[*code.order, *[n for n in names if n not in code.order]],
        reason=Message("session.undo-rebuilt"),
    )  # fmt: skip
    return rebuilt


def _run_code(ws: Workspace, code: SessionCode, values: dict[str, Any],
              notes: list[str], decision: trust.Decision) -> dict[str, Any]:
    """Run ``code`` in ``ws`` as ``decision`` says (full Python: the user's own file, or
    trusted; called by ``replace_contents``, ``values`` already in ``ws``); return what it
    made, by name."""
    made: dict[str, Any] = {}

    def run(source: str) -> Message | None:
        try:
            with torch.random.fork_rng(devices=[]):
                ws.run(source, restricted=decision.restricted, time_limit=_RECIPE_TIME_LIMIT)
        except ProgramError as exc:
            headline = {lang: exc.headline_in(lang) for lang in LANGUAGES}
            return Message("session.rebuild-failed", headline=headline)
        except RuntimeError as exc:
            return Message("session.rebuild-not-run", why=str(exc))
        return None

    for source in code.imports:
        run(source)  # an import that fails shows in what needs it
    for name, kind, source in code.defs:
        if name in values:  # bound to something else since
            continue
        problem = run(source)
        value = ws.get(name)
        if problem is None and kind == "class" and not isinstance(value, type):
            problem = Message("session.rebuild-not-class")
        if problem is None and kind == "function" and not isinstance(value, types.FunctionType):
            problem = Message("session.rebuild-not-function")
        if problem is None:
            made[name] = value
        else:
            notes.append(Message("session.note-not-rebuilt", name=name, typ=kind,
                                 problem=problem))  # fmt: skip
            if name in ws:
                del ws[name]
    for name, typ, recipe in code.modules:
        old = values.get(name)
        if not isinstance(old, torch.nn.Module) or not _placeholders(old):
            continue
        problem = run(recipe)
        if problem is None:
            try:
                problem = _adopt(ws.get(name), old, typ)
            except (RuntimeError, ValueError, TypeError, KeyError, AttributeError) as exc:
                problem = Message("session.rebuild-state", why=str(exc))
        if problem is None:
            made[name] = ws.get(name)
        else:
            notes.append(Message("session.note-not-rebuilt", name=name, typ=typ,
                                 problem=problem))  # fmt: skip
            made[name] = old  # the placeholder stays
    return made


def _adopt(new: Any, old: torch.nn.Module, typ: str) -> Message | None:
    """Give ``new`` (just made by its statement) the saved tensors of ``old`` (its
    placeholder) in place of its own, and its submodules' ``training``; return why not (a
    catalog Message), or None."""
    if not isinstance(new, torch.nn.Module) or type(new).__name__ != typ:
        return Message("session.module-type", made=type(new).__name__, typ=typ)
    tables = []
    for role, named in (("param", torch.nn.Module.named_parameters),
                        ("buffer", torch.nn.Module.named_buffers)):  # fmt: skip
        mine = dict(named(new, remove_duplicate=False))
        saved = dict(named(old, remove_duplicate=False))
        if set(mine) != set(saved):
            return Message("session.module-state-keys")
        for key, t in mine.items():
            if tuple(t.shape) != tuple(saved[key].shape) or t.dtype != saved[key].dtype:
                return Message("session.module-shape", key=key)
        tables.append((role, saved))
    for role, saved in tables:
        for key, t in saved.items():
            path, _, leaf = key.rpartition(".")
            owner = new.get_submodule(path)
            if role == "param":
                owner._parameters[leaf] = _param(t)
            else:
                owner._buffers[leaf] = t
    flags = {path: m.training for path, m in old.named_modules(remove_duplicate=False)}
    for path, m in new.named_modules(remove_duplicate=False):
        if path in flags:
            m.training = flags[path]
    return None


def _param(t: torch.Tensor) -> torch.nn.Parameter:
    """``t`` as a Parameter (itself when it is one; else one over the same memory, with its
    ``.grad``)."""
    if isinstance(t, torch.nn.Parameter):
        return t
    p = torch.nn.Parameter(t, requires_grad=t.requires_grad)
    if t.grad is not None:
        p.grad = t.grad
    return p


def _data_module(b: _Builder, name: str, spec: _ModuleSpec, built: dict[str, Any],
                 modules: dict[str, torch.nn.Module], source: str | None) -> torch.nn.Module:
    """A saved module from its data alone: torch.nn's classes rebuilt structurally, others
    as :class:`SavedModule` placeholders; no code of the file runs."""
    tensors: dict[str, torch.Tensor] = {}
    for key, s in spec.state.items():
        if isinstance(s, tuple):
            if s[0] == "state" and s[1] == name:
                found = tensors.get(s[2])
            else:
                found = _follow(s, built, modules)
            if found is None:
                raise _Bad(Message("session.note-dangling", name=f"{name}.{key}"))
            tensors[key] = found
        else:
            t = b.tensor(s, f"{name}.{key}")
            tensors[key] = _param(t) if s.role == "param" else t
    nodes = spec.tree if spec.tree is not None else _tree_of(spec)
    made: dict[str, torch.nn.Module] = {}
    try:
        for node in nodes:
            m = _structural(node)
            if m is None:
                m = SavedModule(node.typ, source if node.path == "" else None)
            m.training = node.training
            if node.path:
                parent, _, leaf = node.path.rpartition(".")
                made[parent].add_module(leaf, m)
            made[node.path] = m
            for leaf, present in node.params:
                key = f"{node.path}.{leaf}" if node.path else leaf
                m.register_parameter(leaf, _param(tensors[key]) if present else None)
            for leaf, present in node.buffers:
                key = f"{node.path}.{leaf}" if node.path else leaf
                m.register_buffer(leaf, tensors[key] if present else None,
                                  persistent=leaf not in node.non_persistent)  # fmt: skip
    except (KeyError, TypeError, ValueError, AttributeError, RuntimeError) as exc:
        raise _Bad(Message("session.bad-module", name=name, why=str(exc))) from None
    root = made[""]
    if spec.tree is None:
        root.training = spec.training
    return root


def _tree_of(spec: _ModuleSpec) -> list[_Node]:
    """The submodules a version 1 file implies by its tensors' qualified names (placeholders)."""
    nodes: dict[str, _Node] = {"": _Node("", spec.typ, "", spec.training, [], [], frozenset(),
                                         None)}  # fmt: skip
    for key, s in spec.state.items():
        path, _, leaf = key.rpartition(".")
        parts = path.split(".") if path else []
        for i in range(1, len(parts) + 1):
            sub = ".".join(parts[:i])
            nodes.setdefault(sub, _Node(sub, "Module", "", spec.training, [], [], frozenset(),
                                        None))  # fmt: skip
        role = s.role if isinstance(s, _TensorSpec) else "param"
        (nodes[path].params if role == "param" else nodes[path].buffers).append((leaf, True))
    return list(nodes.values())


def _structural(node: _Node) -> torch.nn.Module | None:
    """A module of torch.nn's own class ``node`` names, made without running its
    ``__init__``: ``nn.Module.__init__`` and its saved plain attributes; None when it is not
    such a class or an attribute is not one that class may have."""
    if node.attrs is None:
        return None
    cls = _library_class(node.module, node.typ, torch.nn.Module)
    if cls is None or not all(_attr_ok(cls, k) for k in node.attrs):
        return None
    m = cast(Any, cls).__new__(cls)
    torch.nn.Module.__init__(m)
    for k, v in node.attrs.items():
        object.__setattr__(m, k, _decode(v))
    return cast(torch.nn.Module, m)


def _data_optimizer(b: _Builder, name: str, spec: _OptSpec, built: dict[str, Any],
                    modules: dict[str, torch.nn.Module]) -> tuple[Any, Message | None]:
    """An optimizer of torch.optim over the saved tensors, by its constructor, with its
    saved hyperparameters and state; or (None, why not)."""
    cls = _library_class(spec.module, spec.typ, torch.optim.Optimizer)
    if cls is None:
        return None, Message("session.optimizer-class", typ=spec.typ)
    params: list[torch.Tensor] = []
    for i, p in enumerate(spec.params):
        t = _follow(p, built, modules) if isinstance(p, tuple) else b.tensor(p, f"{name}[{i}]")
        if t is None:
            return None, Message("session.note-dangling", name=f"{name}[{i}]")
        params.append(t)
    try:
        groups = []
        for ids, options in spec.groups:
            group = _decode(options)
            group.pop("params", None)
            groups.append({**group, "params": [params[i] for i in ids]})
        opt = cls(groups)
        opt.defaults.update(_decode(spec.defaults))
        for i, items in spec.state:
            opt.state[params[i]] = {
                k: b.tensor(v, f"{name}.state") if isinstance(v, _TensorSpec) else _decode(v)
                for k, v in items.items()
            }
    except (TypeError, ValueError, KeyError, RuntimeError, IndexError) as exc:
        return None, Message("session.rebuild-state", why=str(exc))
    return opt, None


class _SessionFiles:
    """This module's reader and writer, as :class:`Workspace` calls them (``save``, ``open``,
    ``load_session``)."""

    def save(self, ws: Workspace, path: str | os.PathLike[str]) -> None:
        save_session(ws, path)

    def open(self, path: str | os.PathLike[str], into: Workspace | None = None) -> Workspace:
        return open_session(path, into)


use_session_files(_SessionFiles())


def _check_code(source: str, name: str, kind: str) -> Message | None:
    """Why ``source`` cannot rebuild ``name`` (a catalog Message), or None: it must be one
    statement that binds that name: a class statement (``kind`` "class"), a ``def`` or an
    assignment (``"function"``), an assignment (``"module"``, ``"optimizer"``)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Message("session.recipe-invalid")
    if len(tree.body) != 1:
        return Message("session.recipe-not-one")
    stmt = tree.body[0]
    if isinstance(stmt, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
        if (kind == "class") != isinstance(stmt, ast.ClassDef) or kind not in ("class",
                                                                                "function"):
            return Message("session.recipe-not-binding")
        return None if stmt.name == name else Message("session.recipe-other-name")
    if (kind != "class" and isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name):  # fmt: skip
        return None
    return Message("session.recipe-not-binding")


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
