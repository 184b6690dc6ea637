"""Safe loading of ``.npy`` and ``.npz`` files: nothing is ever unpickled.

We parse the ``.npy`` header ourselves (magic, version, header length, dtype, shape, order) and
check that the data length the header promises is exactly what the file holds *before* anything
is allocated. Object and void dtypes (in a record's fields too) are refused with a message
that names the dtype. Large arrays are memory-mapped copy-on-write (``mode="c"``): opening a
1 GiB file reads nothing until it is looked at, edits stay in memory and never reach the file.

NumPy's own ``np.load(allow_pickle=False)`` is close, but it accepts headers up to its own size
limit with no data-length check (a truncated file fails late, a short one maps garbage) and it
cannot memory-map ``.npz`` members; hence this small hand-written reader.

``.npz`` archives are opened lazily (:func:`load_arrays` returns an :class:`NpzArrays`): opening
reads the zip directory and each member's ``.npy`` header, nothing else. A member is read on
first access: a compressed one is inflated in bounded chunks straight into an array allocated
once at the size its header declares (after checking that size against available memory), so
reading it takes about its own size in memory; a stored one is memory-mapped like a ``.npy``
file and its CRC-32 is checked (in a background thread for big ones). Members that are not
``.npy`` files (a README.txt) are skipped and listed, not a reason to refuse the archive.
"""

from __future__ import annotations

import ast
import bisect
import logging
import os
import re
import stat
import struct
import threading
import weakref
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, Protocol

import numpy as np
import torch

from .catalog import LANGUAGES, Message, error_in, message_of
from .sysmem import memory_limit

MAGIC = b"\x93NUMPY"
#: how a zip archive starts: a local file header, or the end record of an empty archive
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
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
    "M": "date and time",
    "m": "duration",
    "U": "Unicode string",
    "S": "byte string",
}
#: the refused kinds, and the catalog code that says why
_REFUSED_KINDS = {"O": "load.dtype-is-objects", "V": "load.dtype-void"}


class LoadError(ValueError):
    """A file could not be loaded; the message says what is wrong with it, in plain words.

    ``str(err)`` is the English text, as it always was (the CLI and tests read it). The error's
    one argument is usually a catalog :class:`~tensor_explorer.core.catalog.Message`
    (``load.failed``: the file's name and why), so where it is shown it can be rendered in the
    reader's language: :attr:`message` is that argument and :meth:`text` renders it. Pickling
    and copying keep the Message (it is the exception's argument)."""

    @property
    def message(self) -> str:
        """The error's text: a catalog Message when it was raised with one (its English as a
        ``str``), else the plain text."""
        return message_of(self)

    def text(self, lang: str = "en") -> str:
        """The message in ``lang`` ("en" or "zh"); plain text as it is."""
        return error_in(self, lang)


@dataclass(frozen=True)
class NpyHeader:
    """What a ``.npy`` header promises, already validated."""

    version: tuple[int, int]
    dtype: np.dtype
    shape: tuple[int, ...]
    fortran_order: bool
    header_nbytes: int  # magic + version + length field + header text
    data_nbytes: int
    trailing: int = 0  # bytes after the data, ignored (as NumPy ignores them)


# ---------------------------------------------------------------------------- header parsing


def _fail(name: str, why: Message) -> LoadError:
    """``name: why`` as a LoadError; ``why`` is a catalog Message (so is ``name`` when it names
    a record field)."""
    return LoadError(Message("load.failed", name=name, why=why))


class _Readable(Protocol):
    def read(self, n: int, /) -> bytes: ...


def _read_exact(f: _Readable, n: int, name: str, code: str) -> bytes:
    """``n`` bytes of ``f``; a file that ends sooner fails with the catalog message ``code``."""
    data = f.read(n)
    if len(data) != n:
        raise _fail(name, Message(code))
    return data


def check_dtype(dtype: np.dtype, name: str) -> None:
    """Raise LoadError unless ``dtype`` is one this app reads without unpickling anything:
    bool, numbers, dates and durations, fixed-width strings, and records (structured dtypes)
    whose fields are all of these (nested records and sub-array fields included, a sub-array
    of sub-arrays too: NumPy keeps ``(('<f8', (5,)), (2,))`` nested)."""
    if dtype.hasobject:
        raise _fail(name, Message("load.dtype-objects", dtype=dtype))
    if dtype.fields is not None:
        for field_name, (sub, *_rest) in dtype.fields.items():
            while sub.subdtype is not None:  # (``.base`` unwraps one level only)
                sub = sub.subdtype[0]
            check_dtype(sub, Message("load.field", name=name, field=field_name))
        return
    if dtype.subdtype is not None:
        raise _fail(name, Message("load.dtype-subarray", dtype=dtype))
    if dtype.kind in _REFUSED_KINDS:
        raise _fail(name, Message(_REFUSED_KINDS[dtype.kind], dtype=dtype))
    if dtype.kind not in _ALLOWED_KINDS:
        raise _fail(name, Message("load.dtype-unsupported", dtype=dtype))


def _literal(text: str) -> Any:
    """The header dictionary. Headers written by Python 2 spell integers ``3L``: NumPy reads
    them, and so do we (the suffix is dropped, nothing else is changed)."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        fixed = _PY2_LONG.sub(r"\1", text)
        if fixed == text:
            raise
        return ast.literal_eval(fixed)


_PY2_LONG = re.compile(r"(?<![\w.'\"])(\d+)[lL]\b")

_N = r"(?:0|[1-9][0-9]*)"
#: the header as NumPy writes it (keys in this order, a plain string descr, a tuple shape):
#: read without ``ast``, which is most of the time of opening an archive of many small members
_NUMPY_HEADER = re.compile(
    r"\{'descr': '([^'\\\n]*)', 'fortran_order': (True|False), "
    rf"'shape': \(((?:{_N}, )+{_N},?|{_N},|)\), ?\}}"
)


def _header_dict(text: str) -> Any:
    """The header dictionary of a header's (stripped) text: what ``ast.literal_eval`` gives
    (:func:`_literal`), read by a regular expression when it is written as NumPy writes it."""
    m = _NUMPY_HEADER.fullmatch(text)
    if m is None:
        return _literal(text)
    descr, fortran, shape = m.groups()
    return {"descr": descr, "fortran_order": fortran == "True",
            "shape": tuple(int(n) for n in shape.split(",") if n)}  # fmt: skip


def parse_header(f: _Readable, available: int, name: str) -> NpyHeader:
    """Read and validate a ``.npy`` header from ``f``.

    ``available`` is the number of bytes from the header's start to the end of the array's data
    region (the file size for a ``.npy``; the member size inside a ``.npz``). The data length
    promised by the header must equal what is available.
    """
    prefix = f.read(8)
    if len(prefix) < 8 or not prefix.startswith(MAGIC):
        if prefix.startswith(_ZIP_MAGICS):  # a .npz saved (or renamed) as .npy
            raise _fail(name, Message("load.npy-is-zip"))
        raise _fail(name, Message("load.not-npy"))
    major, minor = prefix[6], prefix[7]
    if major not in (1, 2, 3) or minor != 0:
        raise _fail(name, Message("load.version", major=major, minor=minor))
    if major == 1:
        (hlen,) = struct.unpack("<H", _read_exact(f, 2, name, "load.truncated-header-length"))
        start = 10
    else:
        (hlen,) = struct.unpack("<I", _read_exact(f, 4, name, "load.truncated-header-length"))
        start = 12
    if hlen > MAX_HEADER_BYTES:
        raise _fail(name, Message("load.header-too-large", nbytes=hlen, limit=MAX_HEADER_BYTES))
    if start + hlen > available:
        raise _fail(name, Message("load.truncated-header"))
    raw = _read_exact(f, hlen, name, "load.truncated-header")
    try:
        text = raw.decode("utf-8" if major == 3 else "latin1")
        header = _header_dict(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError, UnicodeError):
        raise _fail(name, Message("load.header-invalid")) from None
    if not isinstance(header, dict) or set(header) != {"descr", "fortran_order", "shape"}:
        raise _fail(name, Message("load.header-keys"))
    descr, fortran, shape = header["descr"], header["fortran_order"], header["shape"]
    try:
        if isinstance(descr, str):
            dtype = np.dtype(descr)
        elif isinstance(descr, list):  # a record: NumPy's own reading of the field list
            dtype = np.lib.format.descr_to_dtype(descr)
        else:
            raise TypeError(descr)
    except (TypeError, ValueError, KeyError, IndexError, RecursionError):
        raise _fail(name, Message("load.header-dtype", descr=repr(descr))) from None
    check_dtype(dtype, name)
    if not isinstance(fortran, bool):
        raise _fail(name, Message("load.header-order"))
    if (
        not isinstance(shape, tuple)
        or len(shape) > MAX_NDIM
        or not all(type(n) is int and n >= 0 for n in shape)
    ):
        raise _fail(name, Message("load.header-shape", shape=repr(shape)))
    numel = 1
    for n in shape:
        numel *= n
    data_nbytes = numel * dtype.itemsize
    header_nbytes = start + hlen
    have = available - header_nbytes
    if data_nbytes > have:
        raise _fail(name, Message("load.truncated-data-promised", nbytes=data_nbytes,
                                  shape=str(shape), dtype=dtype, have=have))  # fmt: skip
    return NpyHeader((major, minor), dtype, shape, fortran, header_nbytes, data_nbytes,
                     have - data_nbytes)  # fmt: skip


# ---------------------------------------------------------------------------- memory maps


_MODES = {"c": "copy-on-write", "r": "read-only", "r+": "read-write", "w+": "read-write"}


@dataclass(frozen=True)
class MapInfo:
    """How a value's bytes come from a memory-mapped file.

    ``path`` is the file (``archive.npz/member.npy`` for an archive member), ``offset`` the byte
    in the file where the value's first element lies, ``mode`` ``"copy-on-write"`` (edits stay
    in memory: what :func:`load_array` makes), ``"read-only"`` or ``"read-write"`` (edits reach
    the file); ``start``/``nbytes`` the address and size of the mapped array's data, and
    ``shape``/``strides`` those of the array as the file declares it (``whole`` tells whether
    a value *is* that array rather than a view of part of it)."""

    path: str
    offset: int
    mode: str
    start: int
    nbytes: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]

    def whole(self, address: int, shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
        return address == self.start and shape == self.shape and strides == self.strides


class _MapRegistry:
    """Address ranges of live memory maps, so facts can say 'shares the file's memory'."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._starts: list[int] = []
        self._entries: list[tuple[int, int, MapInfo]] = []

    def add(self, owner: Any, info: MapInfo) -> None:
        start = info.start
        with self._lock:
            i = bisect.bisect(self._starts, start)
            self._starts.insert(i, start)
            self._entries.insert(i, (start, start + info.nbytes, info))
        weakref.finalize(owner, self._remove, start)

    def _remove(self, start: int) -> None:
        with self._lock:
            i = bisect.bisect_left(self._starts, start)
            if i < len(self._starts) and self._starts[i] == start:
                del self._starts[i]
                del self._entries[i]

    def find(self, address: int) -> MapInfo | None:
        with self._lock:
            i = bisect.bisect(self._starts, address) - 1
            if i >= 0:
                start, end, info = self._entries[i]
                if start <= address < end:
                    return info
        return None


_MAPS = _MapRegistry()


def _address(value: torch.Tensor | np.ndarray) -> int | None:
    if isinstance(value, torch.Tensor):
        if value.device.type != "cpu" or value.layout != torch.strided or not value.numel():
            return None
        return int(value.data_ptr())
    if not value.size:
        return None
    return int(value.__array_interface__["data"][0])


def _numpy_map(a: np.ndarray) -> MapInfo | None:
    """The map of an array made by ``np.load(mmap_mode=...)`` or ``np.memmap`` (found on its
    ``.base`` chain), for arrays the app did not map itself."""
    owner: Any = a
    while isinstance(owner, np.ndarray):
        # the memmap that owns the map (its base is the mmap itself); a slice of a memmap is a
        # memmap too, with the same filename and offset but its own data pointer
        if (isinstance(owner, np.memmap) and getattr(owner, "filename", None)
                and not isinstance(owner.base, np.ndarray)):
            start = int(owner.__array_interface__["data"][0])
            mode = _MODES.get(str(owner.mode), str(owner.mode))
            return MapInfo(str(owner.filename), int(owner.offset), mode, start,
                           int(owner.nbytes), tuple(owner.shape), tuple(owner.strides))  # fmt: skip
        owner = owner.base
    return None


def map_info_of(value: torch.Tensor | np.ndarray) -> MapInfo | None:
    """How ``value``'s bytes come from a memory-mapped file (see :class:`MapInfo`; ``offset``
    is that of the value's own first element), or None when they do not."""
    address = _address(value)
    if address is None:
        return None
    info = _MAPS.find(address)
    if info is None and isinstance(value, np.ndarray):
        info = _numpy_map(value)
        if info is not None and not info.start <= address < info.start + info.nbytes:
            info = None
    if info is None:
        return None
    return replace(info, offset=info.offset + address - info.start)




_NOTES: dict[int, list[str]] = {}
_NOTES_LOCK = threading.Lock()


def _note(array: np.ndarray, header: NpyHeader) -> np.ndarray:
    """Remember what a person should know about how ``array`` was read (see
    :func:`load_notes`); returns ``array``."""
    notes: list[str] = []  # catalog Messages: said in the reader's language where shown
    if header.trailing:
        notes.append(Message("load.note-trailing", nbytes=header.trailing))
    if notes:
        key = id(array)
        with _NOTES_LOCK:
            _NOTES[key] = notes
        weakref.finalize(array, _NOTES.pop, key, None)
    return array


def load_notes(array: np.ndarray) -> list[str]:
    """What was noted while reading ``array`` from its file (trailing bytes ignored...), or []
    (also for anything that was not read by this module); each note is a catalog Message."""
    with _NOTES_LOCK:
        return list(_NOTES.get(id(array), ()))


def _map(source: str | IO[bytes], header: NpyHeader, offset: int, label: str) -> np.ndarray:
    mm = np.memmap(
        source,
        dtype=header.dtype,
        mode="c",
        offset=offset,
        shape=header.shape,
        order="F" if header.fortran_order else "C",
    )
    arr = mm.view(np.ndarray)
    start = int(arr.__array_interface__["data"][0])
    _MAPS.add(mm, MapInfo(label, offset, _MODES["c"], start, header.data_nbytes,
                          tuple(arr.shape), tuple(arr.strides)))  # fmt: skip
    return arr


def _new_array(header: NpyHeader) -> np.ndarray:
    """An uninitialized array of the header's shape, dtype and order, which owns its memory.
    ``np.ndarray`` rather than ``np.empty``: ``np.empty`` turns a zero-length string dtype
    (``|S0``, ``<U0``) into a one-character one, so the array would have bytes the file does
    not hold (NumPy's own reader does the same, for the same reason)."""
    return np.ndarray(header.shape, dtype=header.dtype,
                      order="F" if header.fortran_order else "C")  # fmt: skip


def _read_into(f: IO[bytes], header: NpyHeader, name: str) -> np.ndarray:
    arr = _new_array(header)
    view = _bytes(arr).data
    got = 0
    while got < header.data_nbytes:
        n = f.readinto(view[got:])  # type: ignore[attr-defined]
        if not n:
            raise _fail(name, Message("load.truncated-data"))
        got += n
    return arr


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
                return _note(_map(str(p), header, header.header_nbytes, str(p)), header)
            if header.data_nbytes > memory_limit():
                raise _fail(name, Message("load.no-memory", nbytes=header.data_nbytes))
            return _note(_read_into(f, header, name), header)
    except LoadError:
        raise
    except IsADirectoryError:
        raise _fail(name, Message("load.folder-npy")) from None
    except FileNotFoundError:
        raise _fail(name, Message("load.no-file")) from None
    except PermissionError:
        raise _fail(name, Message("load.permission")) from None
    except (OSError, ValueError, MemoryError) as exc:
        raise _fail(name, Message("load.unreadable", why=str(exc))) from None


def _member_data_start(f: IO[bytes], info: zipfile.ZipInfo, name: str) -> int:
    """Byte offset, in the .npz file, of a stored member's first byte."""
    f.seek(info.header_offset)
    local = f.read(30)
    if len(local) != 30 or local[:4] != b"PK\x03\x04":
        raise _fail(name, Message("load.member-zip-header", member=info.filename))
    n_name, n_extra = struct.unpack("<HH", local[26:30])
    return info.header_offset + 30 + n_name + n_extra


# ---------------------------------------------------------------------------- .npz archives

#: Memory-mapped (stored) members at least this large have their CRC-32 checked in a background
#: thread; smaller ones are checked before their first access returns.
CRC_BACKGROUND_BYTES = 64 * 1024 * 1024
_IN_CHUNK = 256 * 1024  # compressed bytes read per step
_OUT_CHUNK = 1024 * 1024  # inflated bytes per step
_CRC_CHUNK = 4 * 1024 * 1024  # bytes read per step of a checksum pass
#: members read into memory may take this many bytes before available memory is measured again
_UNMEASURED_BYTES = 64 * 1024 * 1024
_COMPRESSION = {  # the methods a member may use
    zipfile.ZIP_STORED: "stored",
    zipfile.ZIP_DEFLATED: "deflate",
    zipfile.ZIP_BZIP2: "bzip2",
    zipfile.ZIP_LZMA: "lzma",
}
#: at most this many background checksum passes read at once (all archives together)
_CHECK_SLOTS = threading.BoundedSemaphore(2)
_log = logging.getLogger(__name__)

if hasattr(os, "pread"):

    def _pread(fd: int, n: int, offset: int) -> bytes:
        return os.pread(fd, n, offset)

else:  # pragma: no cover - Windows: no pread; dup'ed descriptors share one file position
    _PREAD_LOCK = threading.Lock()

    def _pread(fd: int, n: int, offset: int) -> bytes:
        with _PREAD_LOCK:
            os.lseek(fd, offset, os.SEEK_SET)
            return os.read(fd, n)


def _pread_into(fd: int, view: memoryview, offset: int) -> int:
    """Fill ``view`` from ``fd`` at ``offset``; the count read (less only at the file's end)."""
    got = 0
    while got < len(view):
        if hasattr(os, "preadv"):
            n = os.preadv(fd, [view[got:]], offset + got)
        else:  # pragma: no cover - no preadv (macOS < 11, Windows)
            data = _pread(fd, min(len(view) - got, _CRC_CHUNK), offset + got)
            n = len(data)
            view[got : got + n] = data
        if not n:
            break
        got += n
    return got


def _crc_of(fd: int, offset: int, length: int, crc: int = 0) -> int:
    """CRC-32 of ``length`` bytes of ``fd`` from ``offset``, read in bounded chunks."""
    view = memoryview(bytearray(max(1, min(_CRC_CHUNK, length))))
    done = 0
    while done < length:
        n = _pread_into(fd, view[: min(len(view), length - done)], offset + done)
        if not n:
            raise OSError("the file ends early")
        crc = zlib.crc32(view[:n], crc)
        done += n
    return crc


class _FdReader:
    """``read(n)`` over the bytes ``[start, end)`` of a file descriptor (for parse_header)."""

    def __init__(self, fd: int, start: int, end: int) -> None:
        self._fd, self._pos, self._end = fd, start, end

    def read(self, n: int) -> bytes:
        data = _pread(self._fd, max(0, min(n, self._end - self._pos)), self._pos)
        self._pos += len(data)
        return data


class _Inflater:
    """A deflate stream read in bounded steps: at most ``in_chunk`` compressed bytes are held,
    and each step inflates at most ``_OUT_CHUNK`` bytes. Keeps the CRC-32 of what it produced."""

    def __init__(self, fd: int, start: int, size: int, label: str, in_chunk: int = _IN_CHUNK):
        self._fd, self._pos, self._end = fd, start, start + size
        self._label, self._in_chunk = label, in_chunk
        self._z = zlib.decompressobj(-zlib.MAX_WBITS)
        self.crc = 0

    def _step(self, max_out: int) -> bytes:
        """Up to ``max_out`` (> 0) inflated bytes; b"" only at the end of the stream."""
        z = self._z
        while not z.eof:
            data = z.unconsumed_tail
            if not data:
                n = min(self._in_chunk, self._end - self._pos)
                data = _pread(self._fd, n, self._pos) if n > 0 else b""
                self._pos += len(data)
            try:
                out = z.decompress(data, max_out)
            except zlib.error as exc:
                raise _fail(self._label, Message("load.deflate-damaged", why=str(exc))) from None
            if out:
                return out
            if not data or (z.unconsumed_tail and len(z.unconsumed_tail) == len(data)):
                raise _fail(self._label, Message("load.truncated-compressed"))
        return b""

    def read(self, n: int) -> bytes:
        parts: list[bytes] = []
        got = 0
        while got < n:
            out = self._step(min(n - got, _OUT_CHUNK))
            if not out:
                break
            parts.append(out)
            got += len(out)
        data = b"".join(parts)
        self.crc = zlib.crc32(data, self.crc)
        return data

    def readinto(self, view: memoryview, skip: int = 0) -> None:
        """Fill ``view`` exactly, then read ``skip`` more bytes (into the CRC only); the stream
        must then end (no more, no fewer bytes)."""
        pos = 0
        while pos < len(view):
            out = self._step(min(len(view) - pos, _OUT_CHUNK))
            if not out:
                raise _fail(self._label, Message("load.inflates-fewer"))
            self.crc = zlib.crc32(out, self.crc)
            view[pos : pos + len(out)] = out
            pos += len(out)
        while skip:
            out = self._step(min(skip, _OUT_CHUNK))
            if not out:
                raise _fail(self._label, Message("load.inflates-fewer"))
            self.crc = zlib.crc32(out, self.crc)
            skip -= len(out)
        if self._step(1):
            raise _fail(self._label, Message("load.inflates-more"))


@dataclass
class _Member:
    key: str
    info: zipfile.ZipInfo
    start: int  # offset of the member's first byte (its .npy header) in the file
    header: NpyHeader
    label: str
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


_DONE = threading.Event()  # (never cleared)
_DONE.set()


class _Check:
    """Where one member's CRC-32 check stands: ``result`` is None until it is known."""

    def __init__(self, result: bool | None = None, error: Message | None = None) -> None:
        self.result, self.error = result, error
        known = result is not None or error is not None
        self.done = _DONE if known else threading.Event()  # (one per member costs 0.1 s in 20k)


def _background_check(check: _Check, fd: int, member: _Member) -> None:
    """Thread body: checksum a memory-mapped member from its own descriptor, then close it."""
    try:
        with _CHECK_SLOTS:
            crc = _crc_of(fd, member.start, member.info.file_size)
        check.result = crc == member.info.CRC
        if not check.result:
            _log.warning("%s: the data does not match the archive's CRC-32", member.label)
    except Exception as exc:  # reported through the check, never raised in the thread
        check.error = Message("load.crc-unreadable", why=str(exc))
    finally:
        os.close(fd)
        check.done.set()


class _Archive:
    """The open file descriptor of an archive (kept so later reads see the same file)."""

    def __init__(self, fd: int, name: str) -> None:
        self.name = name
        self._fd: int | None = fd
        self._lock = threading.Lock()

    def dup(self) -> int:
        """A descriptor of its own for one read (so closing the archive never pulls it away)."""
        with self._lock:
            if self._fd is None:
                raise _fail(self.name, Message("load.archive-closed"))
            return os.dup(self._fd)

    def close(self) -> None:
        with self._lock:
            fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    @property
    def closed(self) -> bool:
        return self._fd is None


class NpzArrays(Mapping[str, np.ndarray]):
    """The arrays of a ``.npz`` archive, by name, read on first access (see :func:`load_arrays`).

    A read-only mapping of name -> ``numpy.ndarray``: iteration, ``len`` and ``in`` use the
    archive's directory only; ``arrays[name]`` (and ``get``, ``values()``, ``items()``) read a
    member the first time it is asked for and keep it, so a member is read once however often
    it is looked at. A member that cannot be read raises :class:`LoadError` at that access.
    ``dict(arrays)`` or :meth:`load_all` reads everything at once (all or nothing).

    ``skipped`` maps each member that is not an array (a ``README.txt``) to why it was skipped.
    ``verified(name)`` says whether a member's bytes matched the archive's CRC-32: None until
    known (not read yet, or a big memory-mapped member still being checked in the background),
    then True or False; :meth:`check` waits for the answer and raises on a mismatch.
    """

    def __init__(
        self,
        path: Path,
        archive: _Archive,
        members: dict[str, _Member],
        skipped: dict[str, str],
        mmap_threshold: int,
        background_check_bytes: int,
    ) -> None:
        self.path = path
        #: member file name -> why it is not in the mapping (e.g. "not a .npy array")
        self.skipped = skipped
        self._archive = archive
        self._members = members
        self._mmap_threshold = mmap_threshold
        self._background_bytes = background_check_bytes
        self._arrays: dict[str, np.ndarray] = {}
        self._checks: dict[str, _Check] = {}
        self._budget = _MemoryBudget()
        self._finalizer = weakref.finalize(self, archive.close)

    # -- mapping
    def __getitem__(self, key: str) -> np.ndarray:
        got = self._arrays.get(key)
        if got is not None:
            return got
        member = self._members[key]  # KeyError for a name the archive does not hold
        with member.lock:
            got = self._arrays.get(key)
            if got is None:
                got = self._read(member)
                self._arrays[key] = got
        return got

    def __iter__(self) -> Iterator[str]:
        return iter(self._members)

    def __len__(self) -> int:
        return len(self._members)

    def __contains__(self, key: object) -> bool:
        return key in self._members

    def __repr__(self) -> str:
        return (
            f"<NpzArrays {self.path.name!r}: {list(self._members)}, "
            f"{len(self._arrays)} read, {len(self.skipped)} skipped>"
        )

    # -- more than a dict
    def _member(self, key: str) -> _Member:
        return self._members[key]  # KeyError for a name the archive does not hold

    def header(self, key: str) -> NpyHeader:
        """What the member's ``.npy`` header declares (dtype, shape, order, size); reads nothing."""
        return self._members[key].header

    def is_read(self, key: str) -> bool:
        """Whether the member has been read (or memory-mapped) already."""
        self._member(key)
        return key in self._arrays

    def verified(self, key: str) -> bool | None:
        """Whether the member's bytes match the archive's CRC-32: True or False once known; None
        before it is read, or while a big memory-mapped member is being checked in the
        background (its array can be used meanwhile)."""
        self._member(key)
        check = self._checks.get(key)
        return None if check is None else check.result

    def check(self, key: str | None = None) -> None:
        """Read the member (every member when ``key`` is None) if not read yet and wait until its
        CRC-32 is known; raise :class:`LoadError` if the bytes do not match the archive's."""
        for k in [key] if key is not None else list(self._members):
            self[k]
            check = self._checks[k]
            check.done.wait()
            label = self._members[k].label
            if check.error is not None:
                raise _fail(label, check.error)
            if not check.result:
                raise _fail(label, Message("load.crc-mismatch"))

    def load_all(self) -> dict[str, np.ndarray]:
        """Every array, read now, as a plain dict (raises before returning anything)."""
        return {k: self[k] for k in self._members}

    def close(self) -> None:
        """Let go of the file. Arrays already read stay usable; reading another raises
        :class:`LoadError`. Background checks that have started still finish."""
        self._finalizer()

    @property
    def closed(self) -> bool:
        return self._archive.closed

    def __enter__(self) -> NpzArrays:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading one member
    def _read(self, member: _Member) -> np.ndarray:
        label = member.label
        fd = self._archive.dup()
        try:
            return self._read_from(fd, member)
        except LoadError:
            raise
        except MemoryError:
            nbytes = member.header.data_nbytes
            raise _fail(label, Message("load.no-memory", nbytes=nbytes)) from None
        except (zipfile.BadZipFile, EOFError) as exc:
            raise _fail(label, Message("load.member-damaged", why=str(exc))) from None
        except (OSError, ValueError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise _fail(label, Message("load.unreadable", why=str(why))) from None
        finally:
            os.close(fd)

    def _read_from(self, fd: int, member: _Member) -> np.ndarray:
        h, info, label = member.header, member.info, member.label
        if info.compress_type == zipfile.ZIP_STORED:
            again = parse_header(_FdReader(fd, member.start, member.start + info.file_size),
                                 info.file_size, label)  # fmt: skip
            _same_header(again, h, label)
            data_at = member.start + h.header_nbytes
            if h.data_nbytes >= self._mmap_threshold and h.data_nbytes > 0:
                with open(fd, "rb", closefd=False) as f:
                    arr = _map(f, h, data_at, label)
                self._check_mapped(fd, member)
                return _note(arr, h)
            arr = _empty_for(h, label, self._budget)
            view = _bytes(arr).data
            if _pread_into(fd, view, data_at) != h.data_nbytes:
                raise _fail(label, Message("load.truncated-data"))
            crc = zlib.crc32(view, _crc_of(fd, member.start, h.header_nbytes))
            if h.trailing:
                crc = _crc_of(fd, data_at + h.data_nbytes, h.trailing, crc)
            self._set_checked(member, crc)
            return _note(arr, h)
        if info.compress_type == zipfile.ZIP_DEFLATED:
            inflater = _Inflater(fd, member.start, info.compress_size, label)
            _same_header(parse_header(inflater, info.file_size, label), h, label)
            arr = _empty_for(h, label, self._budget)
            inflater.readinto(_bytes(arr).data, skip=h.trailing)
            self._set_checked(member, inflater.crc)
            return _note(arr, h)
        # bzip2 / lzma (NumPy never writes them): zipfile streams and checks the CRC itself
        with open(fd, "rb", closefd=False) as f, zipfile.ZipFile(f) as zf, zf.open(info) as src:
            _same_header(parse_header(src, info.file_size, label), h, label)
            arr = _empty_for(h, label, self._budget)
            view = _bytes(arr).data
            pos = 0
            while pos < len(view):
                chunk = src.read(min(_OUT_CHUNK, len(view) - pos))
                if not chunk:
                    raise _fail(label, Message("load.truncated-data"))
                view[pos : pos + len(chunk)] = chunk
                pos += len(chunk)
            left = h.trailing
            while left:  # bytes after the data: read (zipfile checks the CRC), ignored
                got = len(src.read(min(_OUT_CHUNK, left)))
                if not got:
                    break
                left -= got
            if src.read(1):
                raise _fail(label, Message("load.member-more"))
        self._checks[member.key] = _Check(True)
        return _note(arr, h)

    def _set_checked(self, member: _Member, crc: int) -> None:
        if crc != member.info.CRC:
            raise _fail(member.label, Message("load.crc-mismatch"))
        self._checks[member.key] = _Check(True)

    def _check_mapped(self, fd: int, member: _Member) -> None:
        if member.info.file_size < self._background_bytes:
            self._set_checked(member, _crc_of(fd, member.start, member.info.file_size))
            return
        check = _Check()
        self._checks[member.key] = check
        own = os.dup(fd)
        try:
            threading.Thread(target=_background_check, args=(check, own, member),
                             name=f"crc {member.label}", daemon=True).start()  # fmt: skip
        except BaseException:
            os.close(own)
            raise


def _same_header(again: NpyHeader, first: NpyHeader, label: str) -> None:
    if again != first:
        raise _fail(label, Message("load.member-changed"))


class _MemoryBudget:
    """Available memory for one archive's members, measured (:func:`memory_limit`) again once
    ``_UNMEASURED_BYTES`` have been allocated since it was last measured: a member is never
    given more than was available at the last measure less what was allocated since, and
    20,000 small members do not each read ``/proc/meminfo``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._left = 0  # bytes that may still be allocated without measuring again

    def refused(self, nbytes: int) -> int | None:
        """None when ``nbytes`` may be allocated now (and counts them); else the bytes
        available, just measured."""
        with self._lock:
            if nbytes <= self._left:
                self._left -= nbytes
                return None
        limit = memory_limit()
        if nbytes > limit:
            return limit
        with self._lock:
            self._left = min(limit - nbytes, _UNMEASURED_BYTES)
        return None


def _empty_for(header: NpyHeader, label: str, budget: _MemoryBudget) -> np.ndarray:
    """Room for a member's data, after checking its declared size against available memory."""
    limit = budget.refused(header.data_nbytes)
    if limit is not None:
        raise _fail(label, Message("load.no-memory-limit", nbytes=header.data_nbytes,
                                   limit=limit))  # fmt: skip
    return _new_array(header)


def _bytes(arr: np.ndarray) -> np.ndarray:
    """The memory of a freshly made (C or Fortran contiguous) array as writable bytes, in the
    order a ``.npy`` file holds them: the array is filled in place and owns its memory (it is
    nobody's view, as a value made by ``np.load`` is not)."""
    if not arr.nbytes:  # (a zero-length dtype cannot be viewed as bytes; there are none)
        return np.empty(0, dtype=np.uint8)
    c_order = arr.T if arr.flags.f_contiguous and not arr.flags.c_contiguous else arr
    return c_order.reshape(-1).view(np.uint8)


def _local_data_start(f: IO[bytes], info: zipfile.ZipInfo, name: str) -> int:
    """Like :func:`_member_data_start`, also checking the local header names the same member."""
    start = _member_data_start(f, info, name)
    f.seek(info.header_offset + 26)
    (n_name,) = struct.unpack("<H", f.read(2))
    f.seek(info.header_offset + 30)
    raw = f.read(n_name)
    encoding = "utf-8" if info.flag_bits & 0x800 else "cp437"
    try:
        local = raw.decode(encoding)
    except UnicodeDecodeError:
        local = None
    if local != info.orig_filename:
        raise _fail(name, Message("load.member-names-differ", member=info.filename))
    return start


def _read_directory(fd: int, name: str) -> tuple[dict[str, _Member], dict[str, str]]:
    """Every array member of the archive (headers parsed and checked) and the skipped ones."""
    file_size = os.fstat(fd).st_size
    members: dict[str, _Member] = {}
    skipped: dict[str, str] = {}  # (each reason a catalog Message)
    with open(fd, "rb", closefd=False) as f, zipfile.ZipFile(f) as zf:
        for info in zf.infolist():
            if info.is_dir():
                continue
            if not info.filename.endswith(".npy"):
                skipped[info.filename] = Message("load.skipped-not-npy")
                continue
            key = info.filename[:-4]
            label = f"{name}[{key}]"
            if key in members:
                raise _fail(name, Message("load.member-twice", key=key))
            if info.flag_bits & 0x1:
                raise _fail(name, Message("load.member-encrypted", member=info.filename))
            if info.compress_type not in _COMPRESSION:
                raise _fail(name, Message("load.member-compression", member=info.filename,
                                          method=info.compress_type))  # fmt: skip
            start = _local_data_start(f, info, name)
            if start + info.compress_size > file_size:
                raise _fail(name, Message("load.member-truncated", member=info.filename))
            if info.compress_type == zipfile.ZIP_STORED:
                if info.compress_size != info.file_size:
                    raise _fail(name, Message("load.member-zip-header", member=info.filename))
                reader = _FdReader(fd, start, start + info.file_size)
                header = parse_header(reader, info.file_size, label)
            elif info.compress_type == zipfile.ZIP_DEFLATED:
                inflater = _Inflater(fd, start, info.compress_size, label, in_chunk=16 * 1024)
                header = parse_header(inflater, info.file_size, label)
            else:
                with zf.open(info) as src:
                    header = parse_header(src, info.file_size, label)
            members[key] = _Member(key, info, start, header, label)
    if not members:
        raise _fail(name, Message("load.no-arrays", skipped=_skipped_list(skipped)))
    return members, skipped


def _skipped_list(skipped: dict[str, str]) -> dict[str, str]:
    """``"; skipped 'a.txt': not a .npy array"`` for the first five, in each language."""
    first = [Message("load.skipped", member=k, why=v) for k, v in list(skipped.items())[:5]]
    return {lang: "".join(m.render(lang) for m in first) for lang in LANGUAGES}


# ---------------------------------------------------------------------------- public API (npz)


def load_arrays(
    path: str | os.PathLike[str],
    *,
    mmap_threshold: int = MMAP_THRESHOLD,
    background_check_bytes: int = CRC_BACKGROUND_BYTES,
) -> NpzArrays:
    """Open a ``.npz`` file: its arrays by name (the member name without ``.npy``), read lazily.

    Opening reads only the zip directory and each member's ``.npy`` header, which are checked
    as for :func:`load_array` (a bad header, an object dtype, a duplicate name or an encrypted
    member refuses the whole archive with :class:`LoadError`). Members that are not ``.npy``
    files are skipped and listed in ``.skipped``. Each array is read when first accessed:

    * a compressed member: its declared size is checked against available memory, then it is
      inflated in bounded chunks straight into an array of that size (about its own size in
      memory); more or fewer bytes than declared, or a CRC-32 mismatch, is a LoadError;
    * a stored member of at least ``mmap_threshold`` bytes is memory-mapped copy-on-write, like
      :func:`load_array`; its CRC-32 is checked before the access returns, or, from
      ``background_check_bytes`` up, in a background thread: ``verified(name)`` is None until
      that check is done, and :meth:`NpzArrays.check` waits for it (and raises on a mismatch);
    * a smaller stored member is read into memory and its CRC-32 checked.

    The result behaves as a read-only dict of name -> ``numpy.ndarray``; a member that cannot
    be read raises LoadError when it is accessed. Never unpickles. It keeps the file open
    until it is closed (``close()``, a ``with`` block) or garbage-collected.
    """
    p = Path(path)
    name = p.name
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise _fail(name, Message("load.no-file")) from None
    except IsADirectoryError:
        raise _fail(name, Message("load.folder-npz")) from None
    except PermissionError:
        raise _fail(name, Message("load.permission")) from None
    except OSError as exc:
        raise _fail(name, Message("load.unreadable", why=str(exc.strerror or exc))) from None
    try:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise _fail(name, Message("load.folder-npz"))
        members, skipped = _read_directory(fd, name)
    except BaseException as exc:
        os.close(fd)
        if isinstance(exc, LoadError):
            raise
        if isinstance(exc, zipfile.BadZipFile):
            if _is_npy(p):  # a .npy saved (or renamed) as .npz
                raise _fail(name, Message("load.npz-is-npy")) from None
            raise _fail(name, Message("load.bad-zip", why=str(exc))) from None
        if isinstance(exc, NotImplementedError):  # a zip feature zipfile does not support
            raise _fail(name, Message("load.zip-feature", why=str(exc))) from None
        if isinstance(exc, (OSError, ValueError, EOFError, MemoryError, struct.error)):
            raise _fail(name, Message("load.unreadable", why=str(exc))) from None
        raise
    return NpzArrays(p, _Archive(fd, name), members, skipped, mmap_threshold,
                     background_check_bytes)  # fmt: skip


def _is_npy(p: Path) -> bool:
    """Whether the file starts as a ``.npy`` file does."""
    try:
        with open(p, "rb") as f:
            return f.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def load_path(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """Load a ``.npy`` (as ``{stem: array}``) or ``.npz`` file, chosen by its content; a file
    named ``.npy`` must be one (a zip archive so named is a :class:`LoadError` that says so,
    not an archive whose arrays the caller does not expect).

    Everything is read before this returns (a ``.npz`` through :meth:`NpzArrays.load_all`)."""
    p = Path(path)
    if p.suffix.lower() == ".npy":
        return {p.stem: load_array(p)}
    try:
        with open(p, "rb") as f:
            head = f.read(6)
    except FileNotFoundError:
        raise _fail(p.name, Message("load.no-file")) from None
    except OSError as exc:
        raise _fail(p.name, Message("load.unreadable", why=str(exc.strerror or exc))) from None
    if head.startswith(b"PK"):
        with load_arrays(p) as arrays:
            return arrays.load_all()
    if head == MAGIC:
        return {p.stem: load_array(p)}
    raise _fail(p.name, Message("load.not-array-file"))


def to_tensor(array: np.ndarray) -> tuple[torch.Tensor, str | None]:
    """Make a tensor from a loaded array, sharing its memory when torch allows it.

    Returns ``(tensor, note)``. ``note`` is None when the tensor shares the array's memory (and so
    the file's, for a memory-mapped array); otherwise it says, in plain words, why a copy was made:
    non-native byte order, negative or unaligned strides, or read-only memory (a catalog
    :class:`~tensor_explorer.core.catalog.Message`: its English as a ``str``).
    """
    a = array
    reasons: list[Message] = []
    if (a.dtype.kind == "f" and a.itemsize > 8) or (a.dtype.kind == "c" and a.itemsize > 16):
        raise LoadError(Message("load.no-torch-dtype", dtype=a.dtype))
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
        reasons.append(Message("load.copied-byte-order"))
    if any(s < 0 for s in a.strides) or any(s % a.itemsize for s in a.strides if a.itemsize):
        a = np.ascontiguousarray(a)
        reasons.append(Message("load.copied-strides"))
    if not a.flags.writeable:
        a = a.copy()
        reasons.append(Message("load.copied-read-only"))
    tensor = torch.from_numpy(a)
    if not reasons:
        return tensor, None
    joined = reasons[-1]
    for reason in reversed(reasons[:-1]):  # "a; b; c" in English, "a；b；c" in Chinese
        joined = Message("load.copied-and", first=reason, rest=joined)
    return tensor, Message("load.copied", reasons=joined)
