"""Safe .npy/.npz loading: round trips, memory maps, and a corpus of hostile files."""

from __future__ import annotations

import io
import pickle
import struct
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tensor_explorer as tx
from tensor_explorer.core import loading

CANARY: list[str] = []


class Boom:
    """Unpickling this would record a side effect; it must never happen."""

    def __reduce__(self):
        return (CANARY.append, ("unpickled!",))


def _npy_bytes(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=False)
    return buf.getvalue()


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


@pytest.mark.parametrize(
    "dtype",
    [
        "?",
        "u1",
        "i1",
        "<i2",
        "<i4",
        "<i8",
        "<u2",
        "<u4",
        "<u8",
        "<f2",
        "<f4",
        "<f8",
        "<c8",
        "<c16",
        ">f4",
        ">i8",
    ],
)
@pytest.mark.parametrize("order", ["C", "F"])
def test_round_trip_matches_numpy(tmp_path: Path, dtype: str, order: str) -> None:
    a = np.asarray(np.arange(24).reshape(2, 3, 4) % 7, dtype=dtype, order=order)
    p = tmp_path / "a.npy"
    np.save(p, a)
    for threshold in (1 << 30, 0):  # read into memory, then memory-mapped
        b = tx.load_array(p, mmap_threshold=threshold)
        assert b.dtype == a.dtype and b.shape == a.shape
        assert np.array_equal(b, a)
        assert b.flags.f_contiguous == (order == "F" and a.ndim > 1) or order == "C"


def test_zero_size_and_zero_dim(tmp_path: Path) -> None:
    for a in (np.zeros((0, 3), np.float32), np.array(3.5), np.zeros((2, 0, 5), np.int8)):
        p = tmp_path / "z.npy"
        np.save(p, a)
        b = tx.load_array(p, mmap_threshold=0)
        assert b.shape == a.shape and np.array_equal(a, b)


def test_large_arrays_are_memory_mapped_copy_on_write(tmp_path: Path) -> None:
    a = np.arange(1000, dtype=np.float64)
    p = tmp_path / "big.npy"
    np.save(p, a)
    b = tx.load_array(p, mmap_threshold=1024)
    assert type(b) is np.ndarray  # a plain array, not np.memmap
    assert tx.describe(b).mapped_file == str(p)
    t, note = tx.to_tensor(b)
    assert note is None  # shares the mapped pages
    assert tx.describe(t).mapped_file == str(p)
    b[0] = 42.0  # copy-on-write: visible through the tensor, never reaches the file
    assert t[0] == 42.0
    assert np.load(p)[0] == 0.0
    small = tx.load_array(p)  # under the default threshold: read into memory
    assert tx.describe(small).mapped_file is None


def test_to_tensor_reports_every_copy() -> None:
    t, note = tx.to_tensor(np.arange(4, dtype=">f4"))
    assert note and "big-endian" in note and t.tolist() == [0, 1, 2, 3]
    t, note = tx.to_tensor(np.arange(6.0)[::-2])
    assert note and "negative" in note and t.tolist() == [5, 3, 1]
    ro = np.arange(3.0)
    ro.flags.writeable = False
    t, note = tx.to_tensor(ro)
    assert note and "read-only" in note
    a = np.arange(3.0)
    t, note = tx.to_tensor(a)
    assert note is None and t.data_ptr() == a.__array_interface__["data"][0]


def test_npz_round_trip_and_mmapped_members(tmp_path: Path) -> None:
    x = np.random.default_rng(0).normal(size=(100, 3)).astype(np.float32)
    y = np.arange(100)
    p = tmp_path / "d.npz"
    np.savez(p, x=x, y=y)
    out = tx.load_arrays(p, mmap_threshold=512)
    assert list(out) == ["x", "y"]
    assert np.array_equal(out["x"], x) and np.array_equal(out["y"], y)
    assert tx.describe(out["x"]).mapped_file is not None
    pc = tmp_path / "c.npz"
    np.savez_compressed(pc, x=x, y=y)
    out = tx.load_arrays(pc)
    assert np.array_equal(out["x"], x) and np.array_equal(out["y"], y)


# ---------------------------------------------------------------------------- hostile corpus

GOOD = _npy_bytes(np.arange(12, dtype=np.float32).reshape(3, 4))


def _header(d: str, version: bytes = b"\x01\x00") -> bytes:
    text = d.encode("latin1")
    pad = 64 - (10 + len(text) + 1) % 64
    text = text + b" " * pad + b"\n"
    return b"\x93NUMPY" + version + struct.pack("<H", len(text)) + text


def _pickled_object_npy() -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.array([Boom(), 1], dtype=object), allow_pickle=True)
    return buf.getvalue()


HOSTILE: dict[str, tuple[bytes, str]] = {
    "empty": (b"", "magic"),
    "wrong-magic": (b"\x89PNG\r\n\x1a\n" + GOOD[8:], "magic"),
    "truncated-magic": (GOOD[:5], "magic"),
    "bad-version": (b"\x93NUMPY\x07\x00" + GOOD[8:], "version"),
    "truncated-header-len": (GOOD[:9], "truncated"),
    "truncated-header": (GOOD[:40], "truncated"),
    "truncated-data": (GOOD[:-5], "truncated"),
    "header-not-dict": (_header("[1, 2, 3]"), "exactly the keys"),
    "header-garbage": (_header("{'descr': <f4, 'shape'"), "not a valid"),
    "header-code": (
        _header(
            "{'descr': __import__('os').system('touch /tmp/pwn'), "
            "'fortran_order': False, 'shape': (1,)}"
        ),
        "not a valid",
    ),
    "missing-key": (_header("{'descr': '<f4', 'shape': (3,)}"), "exactly the keys"),
    "extra-key": (
        _header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}"),
        "exactly the keys",
    ),
    "bad-dtype": (
        _header("{'descr': 'zz9', 'fortran_order': False, 'shape': (1,)}"),
        "unknown dtype",
    ),
    "object-dtype": (_pickled_object_npy(), "unpickled"),
    "object-field": (
        _header("{'descr': [('a', '<f4'), ('b', '|O')], 'fortran_order': False, 'shape': (1,)}")
        + b"\0" * 12,
        "unpickled",
    ),
    "void-field": (
        _header("{'descr': [('a', '<f4'), ('b', '|V4')], 'fortran_order': False, 'shape': (1,)}")
        + b"\0" * 8,
        "void",
    ),
    "void": (
        _header("{'descr': '|V8', 'fortran_order': False, 'shape': (1,)}") + b"\0" * 8,
        "void",
    ),
    "negative-shape": (
        _header("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}"),
        "non-negative",
    ),
    "float-shape": (
        _header("{'descr': '<f4', 'fortran_order': False, 'shape': (2.0,)}"),
        "non-negative",
    ),
    "bool-shape": (
        _header("{'descr': '<f4', 'fortran_order': False, 'shape': (True,)}"),
        "non-negative",
    ),
    "absurd-shape": (
        _header(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000, 1000000000000)}"
        ),
        "truncated",
    ),
    "too-many-dims": (
        _header("{'descr': '<f4', 'fortran_order': False, 'shape': (" + "1, " * 65 + ")}"),
        "non-negative",
    ),
    "fortran-not-bool": (
        _header("{'descr': '<f4', 'fortran_order': 1, 'shape': (0,)}"),
        "fortran_order",
    ),
    "enormous-header": (b"\x93NUMPY\x02\x00" + struct.pack("<I", 2**31) + b"{" * 100, "too large"),
    "deep-nesting": (_header("{'descr': " + "[" * 5000 + "]" * 5000 + "}"), "not a valid"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_npy_files_raise_load_error_quickly(tmp_path: Path, case: str) -> None:
    data, expected = HOSTILE[case]
    p = _write(tmp_path, f"{case}.npy", data)
    with pytest.raises(tx.LoadError, match=expected) as info:
        tx.load_array(p)
    assert isinstance(info.value, ValueError)
    assert p.name in str(info.value)
    assert CANARY == []
    assert not Path("/tmp/pwn").exists()


def _zip(entries: dict[str, bytes], compression: int = zipfile.ZIP_STORED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as zf:
        for k, v in entries.items():
            zf.writestr(k, v)
    return buf.getvalue()


HOSTILE_NPZ: dict[str, tuple[bytes, str]] = {
    "not-zip": (b"PK\x03\x04garbage", "not a valid"),
    "empty-zip": (_zip({}), "no arrays"),
    "non-npy-member": (_zip({"evil.pkl": pickle.dumps(Boom())}), "not a .npy"),
    "pickled-member": (_zip({"x.npy": _pickled_object_npy()}), "object"),
    "truncated-member": (_zip({"x.npy": GOOD[:-4]}), "truncated"),
    "bad-header-member": (
        _zip({"x.npy": b"\x93NUMPY\x01\x00" + b"\xff\xff" + b"x" * 10}, zipfile.ZIP_DEFLATED),
        "truncated",
    ),
    "truncated-archive": (_zip({"x.npy": GOOD, "y.npy": GOOD})[:-30], "not a valid"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_NPZ))
def test_hostile_npz_files_raise_load_error(tmp_path: Path, case: str) -> None:
    data, expected = HOSTILE_NPZ[case]
    p = _write(tmp_path, f"{case}.npz", data)
    with pytest.raises(tx.LoadError, match=expected):
        tx.load_arrays(p)
    assert CANARY == []


def test_missing_and_folder_paths(tmp_path: Path) -> None:
    with pytest.raises(tx.LoadError, match="no such file"):
        tx.load_array(tmp_path / "nope.npy")
    with pytest.raises(tx.LoadError, match="folder"):
        tx.load_array(tmp_path)
    with pytest.raises(tx.LoadError, match="neither"):
        loading.load_path(_write(tmp_path, "x.txt", b"hello"))


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_fuzzed_npy_files_give_an_array_or_load_error(tmp_path: Path, data: st.DataObject) -> None:
    src = bytearray(
        data.draw(
            st.sampled_from(
                [
                    GOOD,
                    _npy_bytes(np.arange(5, dtype=">i2")),
                    _npy_bytes(np.zeros((2, 2), np.complex64)),
                ]
            )
        )
    )
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        i = data.draw(st.integers(0, max(0, len(src) - 1)))
        if op == "flip" and src:
            src[i] = data.draw(st.integers(0, 255))
        elif op == "cut":
            del src[i : i + data.draw(st.integers(1, 16))]
        else:
            src[i:i] = data.draw(st.binary(min_size=1, max_size=8))
    p = _write(tmp_path, "fuzz.npy", bytes(src))
    try:
        a = tx.load_array(p, mmap_threshold=data.draw(st.sampled_from([0, 1 << 20])))
    except tx.LoadError:
        return
    assert isinstance(a, np.ndarray) and a.dtype.kind in "biufc"
    tx.stats(a)  # whatever loaded is a real, readable array


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(cut=st.integers(0, 400), flip=st.integers(0, 400), byte=st.integers(0, 255))
def test_fuzzed_npz_files_give_arrays_or_load_error(
    tmp_path: Path, cut: int, flip: int, byte: int
) -> None:
    src = bytearray(_zip({"a.npy": GOOD, "b.npy": GOOD}))
    if flip < len(src):
        src[flip] = byte
    src = src[: len(src) - cut % 50]
    p = _write(tmp_path, "fuzz.npz", bytes(src))
    try:
        out = tx.load_arrays(p)
    except tx.LoadError:
        return
    for key in out:  # members are read on access: each gives an array or a LoadError
        try:
            value = out[key]
        except tx.LoadError:
            continue
        assert isinstance(value, np.ndarray) and out.verified(key) is True


def test_tensor_made_from_loaded_bigendian_file_is_a_reported_copy(tmp_path: Path) -> None:
    p = tmp_path / "be.npy"
    np.save(p, np.arange(6, dtype=">f8").reshape(2, 3))
    a = tx.load_array(p, mmap_threshold=0)
    t, note = tx.to_tensor(a)
    assert note and "does not share memory" in note
    assert t.dtype == torch.float64 and tx.describe(t).mapped_file is None
