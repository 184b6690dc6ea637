"""Safe loading of ``.npy`` and ``.npz`` files: nothing is ever unpickled.

We parse the ``.npy`` header ourselves (magic, version, header length, dtype, shape, order) and
check that the data length the header promises is exactly what the file holds *before* anything
is allocated. Object, string, structured, void and datetime dtypes are refused with a message
that names the dtype. Large arrays are memory-mapped copy-on-write (``mode="c"``): opening a
1 GiB file reads nothing until it is looked at, edits stay in memory and never reach the file.

NumPy's own ``np.load(allow_pickle=False)`` is close, but it accepts headers up to its own size
limit with no data-length check (a truncated file fails late, a short one maps garbage) and it
cannot memory-map ``.npz`` members; hence this small hand-written reader.
"""

from __future__ import annotations

import ast
import bisect
import os
import struct
import threading
import weakref
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np
import torch

from .sysmem import memory_limit

MAGIC = b"\x93NUMPY"
MAX_HEADER_BYTES = 65536
#: Arrays at least this large are memory-mapped instead of read.
MMAP_THRESHOLD = 16 * 1024 * 1024
MAX_NDIM = 64
_ALLOWED_KINDS = {
    "b": "bool",
    "i": "integer",
    "u": "unsigned integer",
    "f": "float",
    "c": "complex",
}
_REFUSED_KINDS = {
    "O": "object (its elements would have to be unpickled, which can run code)",
    "U": "a Unicode string",
    "S": "a byte string",
    "V": "void / raw bytes",
    "M": "datetime",
    "m": "timedelta",
}


class LoadError(ValueError):
    """A file could not be loaded; the message says what is wrong with it, in plain words."""


@dataclass(frozen=True)
class NpyHeader:
    """What a ``.npy`` header promises, already validated."""

    version: tuple[int, int]
    dtype: np.dtype
    shape: tuple[int, ...]
    fortran_order: bool
    header_nbytes: int  # magic + version + length field + header text
    data_nbytes: int


# ---------------------------------------------------------------------------- header parsing


def _fail(name: str, why: str) -> LoadError:
    return LoadError(f"{name}: {why}")


def _read_exact(f: IO[bytes], n: int, name: str, what: str) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise _fail(name, f"file is truncated: it ends inside the {what}")
    return data


def check_dtype(dtype: np.dtype, name: str) -> None:
    """Raise LoadError unless ``dtype`` is a plain numeric or bool dtype."""
    if dtype.fields is not None or dtype.subdtype is not None:
        raise _fail(name, f"structured dtype {dtype} is not supported (only numeric arrays)")
    if dtype.kind in _REFUSED_KINDS:
        raise _fail(
            name, f"dtype {dtype} is {_REFUSED_KINDS[dtype.kind]}; only numeric arrays load"
        )
    if dtype.kind not in _ALLOWED_KINDS:
        raise _fail(name, f"dtype {dtype} is not supported (only numeric arrays load)")


def parse_header(f: IO[bytes], available: int, name: str) -> NpyHeader:
    """Read and validate a ``.npy`` header from ``f``.

    ``available`` is the number of bytes from the header's start to the end of the array's data
    region (the file size for a ``.npy``; the member size inside a ``.npz``). The data length
    promised by the header must equal what is available.
    """
    prefix = f.read(8)
    if len(prefix) < 8 or not prefix.startswith(MAGIC):
        raise _fail(name, "not a .npy array (the file does not start with the .npy magic bytes)")
    major, minor = prefix[6], prefix[7]
    if major not in (1, 2, 3) or minor != 0:
        raise _fail(name, f"unknown .npy format version {major}.{minor}")
    if major == 1:
        (hlen,) = struct.unpack("<H", _read_exact(f, 2, name, "header length"))
        start = 10
    else:
        (hlen,) = struct.unpack("<I", _read_exact(f, 4, name, "header length"))
        start = 12
    if hlen > MAX_HEADER_BYTES:
        raise _fail(name, f"header of {hlen} bytes is too large (at most {MAX_HEADER_BYTES})")
    if start + hlen > available:
        raise _fail(name, "file is truncated: it ends inside the header")
    raw = _read_exact(f, hlen, name, "header")
    try:
        text = raw.decode("utf-8" if major == 3 else "latin1")
        header = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError, UnicodeError):
        raise _fail(name, "the header is not a valid .npy header dictionary") from None
    if not isinstance(header, dict) or set(header) != {"descr", "fortran_order", "shape"}:
        raise _fail(name, "the header must have exactly the keys descr, fortran_order, shape")
    descr, fortran, shape = header["descr"], header["fortran_order"], header["shape"]
    if not isinstance(descr, str):
        raise _fail(name, f"structured dtype {descr!r} is not supported (only numeric arrays)")
    try:
        dtype = np.dtype(descr)
    except (TypeError, ValueError):
        raise _fail(name, f"unknown dtype {descr!r} in the header") from None
    check_dtype(dtype, name)
    if not isinstance(fortran, bool):
        raise _fail(name, "fortran_order in the header must be True or False")
    if (
        not isinstance(shape, tuple)
        or len(shape) > MAX_NDIM
        or not all(type(n) is int and n >= 0 for n in shape)
    ):
        raise _fail(name, f"shape {shape!r} in the header is not a tuple of non-negative integers")
    numel = 1
    for n in shape:
        numel *= n
    data_nbytes = numel * dtype.itemsize
    header_nbytes = start + hlen
    have = available - header_nbytes
    if data_nbytes > have:
        raise _fail(
            name,
            f"file is truncated: the header promises {data_nbytes:,} bytes of data "
            f"(shape {shape}, {dtype}) but only {have:,} follow",
        )
    if data_nbytes < have:
        raise _fail(
            name,
            f"{have - data_nbytes:,} unexpected bytes after the data "
            f"(shape {shape}, {dtype} needs {data_nbytes:,})",
        )
    return NpyHeader((major, minor), dtype, shape, fortran, header_nbytes, data_nbytes)


# ---------------------------------------------------------------------------- memory maps


class _MapRegistry:
    """Address ranges of live memory maps, so facts can say 'shares the file's memory'."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._starts: list[int] = []
        self._entries: list[tuple[int, int, str]] = []

    def add(self, owner: Any, start: int, end: int, path: str) -> None:
        with self._lock:
            i = bisect.bisect(self._starts, start)
            self._starts.insert(i, start)
            self._entries.insert(i, (start, end, path))
        weakref.finalize(owner, self._remove, start)

    def _remove(self, start: int) -> None:
        with self._lock:
            i = bisect.bisect_left(self._starts, start)
            if i < len(self._starts) and self._starts[i] == start:
                del self._starts[i]
                del self._entries[i]

    def find(self, address: int) -> str | None:
        with self._lock:
            i = bisect.bisect(self._starts, address) - 1
            if i >= 0:
                start, end, path = self._entries[i]
                if start <= address < end:
                    return path
        return None


_MAPS = _MapRegistry()


def mapped_file_of(value: torch.Tensor | np.ndarray) -> str | None:
    """The file whose memory map holds ``value``'s bytes, or None."""
    if isinstance(value, torch.Tensor):
        if value.device.type != "cpu" or value.layout != torch.strided or not value.numel():
            return None
        address = int(value.data_ptr())
    else:
        if not value.size:
            return None
        address = int(value.__array_interface__["data"][0])
    return _MAPS.find(address)


def _map(path: str, header: NpyHeader, offset: int, label: str) -> np.ndarray:
    mm = np.memmap(
        path,
        dtype=header.dtype,
        mode="c",
        offset=offset,
        shape=header.shape,
        order="F" if header.fortran_order else "C",
    )
    arr = mm.view(np.ndarray)
    start = int(arr.__array_interface__["data"][0])
    _MAPS.add(mm, start, start + header.data_nbytes, label)
    return arr


def _read_into(f: IO[bytes], header: NpyHeader, name: str) -> np.ndarray:
    buf = bytearray(header.data_nbytes)
    view = memoryview(buf)
    got = 0
    while got < header.data_nbytes:
        n = f.readinto(view[got:])  # type: ignore[attr-defined]
        if not n:
            raise _fail(name, "file is truncated: the data ends early")
        got += n
    flat = np.frombuffer(buf, dtype=header.dtype)
    return flat.reshape(header.shape, order="F" if header.fortran_order else "C")


# ---------------------------------------------------------------------------- public API


def load_array(path: str | os.PathLike[str], *, mmap_threshold: int = MMAP_THRESHOLD) -> np.ndarray:
    """Load a ``.npy`` file as a NumPy array; never unpickles.

    Arrays of at least ``mmap_threshold`` bytes are memory-mapped copy-on-write: nothing is read
    until it is used and edits never reach the file. Raises :class:`LoadError` for anything that
    is not a well-formed numeric ``.npy`` file.
    """
    p = Path(path)
    name = p.name
    try:
        size = p.stat().st_size
        with open(p, "rb") as f:
            header = parse_header(f, size, name)
            if header.data_nbytes >= mmap_threshold and header.data_nbytes > 0:
                return _map(str(p), header, header.header_nbytes, str(p))
            if header.data_nbytes > memory_limit():
                raise _fail(name, f"{header.data_nbytes:,} bytes do not fit in memory")
            return _read_into(f, header, name)
    except LoadError:
        raise
    except IsADirectoryError:
        raise _fail(name, "is a folder, not a .npy file") from None
    except FileNotFoundError:
        raise _fail(name, "no such file") from None
    except PermissionError:
        raise _fail(name, "permission denied") from None
    except (OSError, ValueError, MemoryError) as exc:
        raise _fail(name, f"could not be read ({exc})") from None


def _member_data_start(f: IO[bytes], info: zipfile.ZipInfo, name: str) -> int:
    """Byte offset, in the .npz file, of a stored member's first byte."""
    f.seek(info.header_offset)
    local = f.read(30)
    if len(local) != 30 or local[:4] != b"PK\x03\x04":
        raise _fail(name, f"member {info.filename!r} has a damaged zip header")
    n_name, n_extra = struct.unpack("<HH", local[26:30])
    return info.header_offset + 30 + n_name + n_extra


def load_arrays(
    path: str | os.PathLike[str], *, mmap_threshold: int = MMAP_THRESHOLD
) -> dict[str, np.ndarray]:
    """Load every array of a ``.npz`` file, by name (the member name without ``.npy``).

    Uncompressed large members are memory-mapped like :func:`load_array`; compressed ones are
    inflated with their size checked against the header first. Never unpickles.
    """
    p = Path(path)
    name = p.name
    out: dict[str, np.ndarray] = {}
    try:
        file_size = p.stat().st_size
        with zipfile.ZipFile(p) as zf, open(p, "rb") as raw:
            infos = zf.infolist()
            if not infos:
                raise _fail(name, "the archive holds no arrays")
            for info in infos:
                if info.is_dir():
                    continue
                if not info.filename.endswith(".npy"):
                    raise _fail(name, f"member {info.filename!r} is not a .npy array")
                key = info.filename[:-4]
                label = f"{name}[{key}]"
                if key in out:
                    raise _fail(name, f"the archive holds {key!r} twice")
                if info.flag_bits & 0x1:
                    raise _fail(name, f"member {info.filename!r} is encrypted")
                if info.compress_type == zipfile.ZIP_STORED:
                    start = _member_data_start(raw, info, name)
                    if start + info.file_size > file_size:
                        raise _fail(name, f"member {info.filename!r} is truncated")
                    raw.seek(start)
                    header = parse_header(raw, info.file_size, label)
                    if header.data_nbytes >= mmap_threshold:
                        out[key] = _map(str(p), header, start + header.header_nbytes, label)
                        continue
                if info.file_size > memory_limit():
                    raise _fail(label, f"{info.file_size:,} bytes do not fit in memory")
                with zf.open(info) as member:
                    header = parse_header(member, info.file_size, label)
                    out[key] = _read_into(member, header, label)
    except LoadError:
        raise
    except zipfile.BadZipFile as exc:
        raise _fail(name, f"not a valid .npz (zip) archive ({exc})") from None
    except FileNotFoundError:
        raise _fail(name, "no such file") from None
    except IsADirectoryError:
        raise _fail(name, "is a folder, not a .npz file") from None
    except NotImplementedError as exc:  # unsupported compression method
        raise _fail(name, f"uses an unsupported zip feature ({exc})") from None
    except (OSError, ValueError, EOFError, MemoryError, struct.error) as exc:
        raise _fail(name, f"could not be read ({exc})") from None
    return out


def load_path(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """Load a ``.npy`` (as ``{stem: array}``) or ``.npz`` file, chosen by its content."""
    p = Path(path)
    try:
        with open(p, "rb") as f:
            head = f.read(6)
    except FileNotFoundError:
        raise _fail(p.name, "no such file") from None
    except OSError as exc:
        raise _fail(p.name, f"could not be read ({exc.strerror or exc})") from None
    if head.startswith(b"PK"):
        return load_arrays(p)
    if head == MAGIC:
        return {p.stem: load_array(p)}
    raise _fail(p.name, "is neither a .npy nor a .npz file")


def to_tensor(array: np.ndarray) -> tuple[torch.Tensor, str | None]:
    """Make a tensor from a loaded array, sharing its memory when torch allows it.

    Returns ``(tensor, note)``. ``note`` is None when the tensor shares the array's memory (and so
    the file's, for a memory-mapped array); otherwise it says, in plain words, why a copy was made:
    non-native byte order, negative or unaligned strides, or read-only memory.
    """
    a = array
    reasons: list[str] = []
    if (a.dtype.kind == "f" and a.itemsize > 8) or (a.dtype.kind == "c" and a.itemsize > 16):
        raise LoadError(f"torch has no {a.dtype} type; convert the array to float64 first")
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
        reasons.append("its bytes are big-endian and were converted to this machine's order")
    if any(s < 0 for s in a.strides) or any(s % a.itemsize for s in a.strides if a.itemsize):
        a = np.ascontiguousarray(a)
        reasons.append("it has negative or unaligned strides, which torch cannot view")
    if not a.flags.writeable:
        a = a.copy()
        reasons.append("its memory is read-only, and a tensor must be able to write")
    tensor = torch.from_numpy(a)
    if reasons:
        return tensor, "copied: " + "; ".join(reasons) + ". The tensor does not share memory."
    return tensor, None
