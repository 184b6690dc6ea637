"""Lazy ``.npz`` archives: members read on first access, inflated in bounded chunks straight
into their array, sizes checked against memory first, CRC-32 of stored members checked (in the
background for big ones), non-array members skipped and listed."""

from __future__ import annotations

import io
import struct
import threading
import tracemalloc
import zipfile
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tensor_explorer as tx
from tensor_explorer.core import loading
from tensor_explorer.core.loading import NpzArrays, _member_data_start


def _npy(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=False)
    return buf.getvalue()


def _zip(path: Path, entries: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression) as zf:
        for k, v in entries.items():
            zf.writestr(k, v)
    return path


def _data_start(path: Path, member: str) -> tuple[int, zipfile.ZipInfo]:
    with zipfile.ZipFile(path) as zf, open(path, "rb") as f:
        info = zf.getinfo(member)
        return _member_data_start(f, info, path.name), info


def _flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))


def _set_central_size(path: Path, member: str, size: int) -> None:
    """Make the zip directory declare ``size`` inflated bytes for ``member`` (a lie)."""
    data = bytearray(path.read_bytes())
    i = data.index(b"PK\x01\x02")
    while True:
        n_name = struct.unpack("<H", data[i + 28 : i + 30])[0]
        if data[i + 46 : i + 46 + n_name] == member.encode():
            break
        i = data.index(b"PK\x01\x02", i + 4)
    data[i + 24 : i + 28] = struct.pack("<I", size)
    path.write_bytes(bytes(data))


@pytest.fixture
def two(tmp_path: Path) -> tuple[Path, np.ndarray, np.ndarray]:
    """A compressed archive: a 2 MB member (compressible but not trivially) and a small one."""
    rng = np.random.default_rng(0)
    big = rng.integers(0, 50, size=(500, 1000)).astype(np.float32)
    small = np.arange(10, dtype=np.int16)
    p = tmp_path / "two.npz"
    np.savez_compressed(p, big=big, small=small)
    return p, big, small


# ---------------------------------------------------------------------------- laziness


def test_the_mapping_behaves_like_a_dict(two: tuple[Path, np.ndarray, np.ndarray]) -> None:
    p, big, small = two
    out = tx.load_arrays(p)
    assert isinstance(out, NpzArrays)
    assert list(out) == ["big", "small"] and len(out) == 2
    assert "big" in out and "nope" not in out and 3 not in out
    assert not out.is_read("big") and not out.is_read("small")  # `in`, len, iteration read nothing
    assert out.header("big").shape == (500, 1000) and out.header("big").dtype == np.float32
    assert np.array_equal(out["small"], small) and not out.is_read("big")
    assert out.get("nope") is None
    with pytest.raises(KeyError):
        out["nope"]
    with pytest.raises(KeyError):
        out.verified("nope")
    items = dict(out.items())
    assert set(items) == {"big", "small"} and np.array_equal(items["big"], big)
    plain = dict(out)
    assert plain.keys() == out.keys() and all(plain[k] is out[k] for k in out)
    assert [v is plain[k] for k, v in zip(out, out.values(), strict=True)] == [True, True]
    assert out["big"] is out["big"]  # read once, then kept
    assert out.skipped == {}
    assert "two.npz" in repr(out)


def test_opening_reads_headers_only(two: tuple[Path, np.ndarray, np.ndarray]) -> None:
    p, _, _ = two
    read: list[int] = []
    real = loading._pread

    def counting(fd: int, n: int, offset: int) -> bytes:
        data = real(fd, n, offset)
        read.append(len(data))
        return data

    with mock.patch.object(loading, "_pread", counting):
        out = tx.load_arrays(p)
        opened = sum(read)
        assert opened <= 2 * 16 * 1024  # one small compressed read per member's header
        out["small"]
    assert out.is_read("small") and not out.is_read("big")


def test_a_damaged_member_fails_only_when_it_is_read(
    two: tuple[Path, np.ndarray, np.ndarray],
) -> None:
    p, _, small = two
    start, info = _data_start(p, "big.npy")
    _flip(p, start + info.compress_size * 3 // 4)  # deep in the data, far from the header
    out = tx.load_arrays(p)  # opening is fine: the header is intact
    assert list(out) == ["big", "small"]
    assert np.array_equal(out["small"], small)
    with pytest.raises(tx.LoadError, match=r"two\.npz\[big\].*(damaged|CRC-32|inflates)"):
        out["big"]
    with pytest.raises(tx.LoadError):  # still refused on a second try, never half an array
        out["big"]
    with pytest.raises(tx.LoadError):
        dict(out)
    with pytest.raises(tx.LoadError, match=r"two\.npz"):
        loading.load_path(p)  # the all-at-once reader refuses the whole file


def test_a_damaged_stored_member_fails_only_when_it_is_read(tmp_path: Path) -> None:
    p = tmp_path / "s.npz"
    np.savez(p, a=np.arange(1000.0), b=np.ones(3))
    start, info = _data_start(p, "a.npy")
    _flip(p, start + info.file_size - 9)
    for threshold in (1 << 30, 0):  # read into memory; memory-mapped (checked before returning)
        out = tx.load_arrays(p, mmap_threshold=threshold)
        assert np.array_equal(out["b"], np.ones(3)) and out.verified("b") is True
        assert out.verified("a") is None
        with pytest.raises(tx.LoadError, match=r"s\.npz\[a\].*CRC-32"):
            out["a"]


# ---------------------------------------------------------------------------- exactness

DTYPES = ["?", "u1", "i1", "<i2", ">i2", "<u4", "<i8", ">u8", "<f2", "<f4", ">f4", "<f8", ">f8",
          "<c8", "<c16", ">c16"]  # fmt: skip


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    data=st.data(),
    dtype=st.sampled_from(DTYPES),
    shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=7),
    order=st.sampled_from("CF"),
    compressed=st.booleans(),
    out_chunk=st.sampled_from([1, 3, 64, 1 << 20]),
    in_chunk=st.sampled_from([1, 2, 17, 1 << 18]),
    threshold=st.sampled_from([0, 1 << 30]),
)
def test_members_equal_numpys_own_reading(
    tmp_path: Path,
    data: st.DataObject,
    dtype: str,
    shape: tuple[int, ...],
    order: str,
    compressed: bool,
    out_chunk: int,
    in_chunk: int,
    threshold: int,
) -> None:
    n = int(np.prod(shape)) * np.dtype(dtype).itemsize
    if n < 4096:
        raw = data.draw(st.binary(min_size=n, max_size=n))  # NaNs, infinities and all
    else:
        raw = bytes(range(256)) * (n // 256) + bytes(n % 256)
    a = np.frombuffer(raw, dtype=dtype).reshape(shape, order="F" if order == "F" else "C")
    p = tmp_path / "h.npz"
    (np.savez_compressed if compressed else np.savez)(p, x=a, y=np.arange(3))
    expected = np.load(p)["x"]
    with mock.patch.object(loading, "_OUT_CHUNK", out_chunk), \
            mock.patch.object(loading, "_IN_CHUNK", in_chunk):  # fmt: skip
        out = tx.load_arrays(p, mmap_threshold=threshold)
        got = out["x"]
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert got.flags.f_contiguous == expected.flags.f_contiguous
    assert got.flags.c_contiguous == expected.flags.c_contiguous
    assert got.tobytes(order="A") == expected.tobytes(order="A")
    assert got.flags.writeable
    assert out.verified("x") is True


def test_bzip2_and_lzma_members(tmp_path: Path) -> None:
    a = np.arange(5000, dtype=np.float64).reshape(50, 100)
    for method in (zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA):
        p = _zip(tmp_path / f"m{method}.npz", {"a.npy": _npy(a)}, method)
        out = tx.load_arrays(p)
        assert np.array_equal(out["a"], a) and out.verified("a") is True


# ---------------------------------------------------------------------------- memory


def test_declared_size_is_checked_against_available_memory(
    two: tuple[Path, np.ndarray, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    p, _, small = two
    monkeypatch.setattr(loading, "memory_limit", lambda: 1_000_000)  # the big one needs 2 MB

    def never(*_: object) -> None:
        raise AssertionError("inflated although it does not fit")

    monkeypatch.setattr(loading._Inflater, "readinto", never)
    out = tx.load_arrays(p)  # opening does not need the memory
    with pytest.raises(tx.LoadError, match=r"two\.npz\[big\]: 2,000,000 bytes do not fit"):
        out["big"]
    monkeypatch.undo()
    assert np.array_equal(out["small"], small)


def test_inflating_takes_about_the_members_size(tmp_path: Path) -> None:
    a = (np.arange(8 * 1024 * 1024, dtype=np.int32) % 1000).astype(np.int32)  # 32 MiB
    p = tmp_path / "m.npz"
    np.savez_compressed(p, a=a)
    out = tx.load_arrays(p)
    tracemalloc.start()
    try:
        got = out["a"]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert np.array_equal(got, a)
    assert peak <= a.nbytes + 4 * 1024 * 1024, f"peak {peak:,} for {a.nbytes:,}"


def test_a_member_that_inflates_to_more_or_less_than_declared(tmp_path: Path) -> None:
    good = _npy(np.arange(100, dtype=np.float64))
    header = good[: len(good) - 800]
    # the header and the zip directory both say 800 data bytes; the stream holds 8 MB of zeros
    bomb = _zip(tmp_path / "bomb.npz", {"x.npy": header + bytes(8_000_000)})
    _set_central_size(bomb, "x.npy", len(good))
    out = tx.load_arrays(bomb)
    inflated: list[int] = []
    step = loading._Inflater._step

    def counting(self: loading._Inflater, max_out: int) -> bytes:
        got = step(self, max_out)
        inflated.append(len(got))
        return got

    tracemalloc.start()
    try:
        with mock.patch.object(loading._Inflater, "_step", counting), \
                pytest.raises(tx.LoadError, match="more bytes than it declares"):  # fmt: skip
            out["x"]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sum(inflated) == len(good) + 1  # it stops one byte past what was declared
    assert peak < 4 * 1024 * 1024
    short = _zip(tmp_path / "short.npz", {"x.npy": good[:-80]})
    _set_central_size(short, "x.npy", len(good))
    out = tx.load_arrays(short)
    with pytest.raises(tx.LoadError, match=r"fewer bytes than it declares|ends early"):
        out["x"]


# ---------------------------------------------------------------------------- stored members


def test_big_stored_members_are_mapped_and_checked_in_the_background(tmp_path: Path) -> None:
    a = np.arange(100_000, dtype=np.float64)
    p = tmp_path / "s.npz"
    np.savez(p, a=a, b=np.ones(4))
    gate = threading.BoundedSemaphore(1)
    gate.acquire()  # hold the only slot: the check waits until it is let go
    with mock.patch.object(loading, "_CHECK_SLOTS", gate):
        out = tx.load_arrays(p, mmap_threshold=1024, background_check_bytes=1024)
        got = out["a"]
        assert tx.describe(got).mapped_file == "s.npz[a]"
        assert np.array_equal(got, a)  # usable while the check runs
        assert out.verified("a") is None  # flagged until done
        gate.release()
        out.check("a")
    assert out.verified("a") is True
    out.check()  # every member: "b" is small, read and checked now
    assert out.verified("b") is True
    got[0] = 42.0  # copy-on-write: never reaches the file
    assert np.load(p)["a"][0] == 0.0


def test_crc_mismatch_of_a_big_stored_member_is_found_in_the_background(tmp_path: Path) -> None:
    a = np.arange(100_000, dtype=np.float64)
    p = tmp_path / "s.npz"
    np.savez(p, a=a)
    start, info = _data_start(p, "a.npy")
    _flip(p, start + info.file_size - 100)
    out = tx.load_arrays(p, mmap_threshold=1024, background_check_bytes=1024)
    got = out["a"]  # returned at once; the check finds the damage afterwards
    assert got.shape == a.shape
    with pytest.raises(tx.LoadError, match=r"s\.npz\[a\].*CRC-32"):
        out.check("a")
    assert out.verified("a") is False
    out.close()
    with pytest.raises(tx.LoadError, match="CRC-32"):
        out.check("a")  # the answer stays after closing


# ---------------------------------------------------------------------------- other members


def test_non_array_members_are_skipped_and_listed(tmp_path: Path) -> None:
    p = tmp_path / "r.npz"
    np.savez(p, x=np.arange(3))
    with zipfile.ZipFile(p, "a") as zf:
        zf.writestr("README.txt", "what these arrays are")
        zf.writestr("notes/", "")  # a folder entry: ignored
        zf.writestr("model.pkl", b"\x80\x04K\x01.")
    out = tx.load_arrays(p)
    assert list(out) == ["x"]
    assert out.skipped == {"README.txt": "not a .npy array", "model.pkl": "not a .npy array"}
    assert np.array_equal(out["x"], np.arange(3))
    only = _zip(tmp_path / "only.npz", {"README.txt": b"hello"})
    with pytest.raises(tx.LoadError, match=r"no arrays; skipped 'README.txt': not a \.npy"):
        tx.load_arrays(only)


def test_member_names_are_only_names(tmp_path: Path) -> None:
    a = np.arange(4.0)
    p = _zip(tmp_path / "names.npz", {"../../evil.npy": _npy(a), "/abs.npy": _npy(a),
                                      "d/e.npy": _npy(a)})  # fmt: skip
    out = tx.load_arrays(p)
    assert list(out) == ["../../evil", "/abs", "d/e"]
    assert all(np.array_equal(v, a) for v in out.values())
    assert sorted(x.name for x in tmp_path.iterdir()) == ["names.npz"]


def test_local_and_central_names_must_agree(tmp_path: Path) -> None:
    p = _zip(tmp_path / "n.npz", {"aaa.npy": _npy(np.arange(3))})
    data = p.read_bytes()
    p.write_bytes(data.replace(b"aaa.npy", b"bbb.npy", 1))  # the local header only
    with pytest.raises(tx.LoadError, match="damaged zip header"):
        tx.load_arrays(p)


def test_hostile_members_still_refuse_the_archive(tmp_path: Path) -> None:
    obj = io.BytesIO()
    np.save(obj, np.array([object()], dtype=object), allow_pickle=True)
    for compression in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        p = _zip(tmp_path / "o.npz", {"ok.npy": _npy(np.ones(2)), "x.npy": obj.getvalue()},
                 compression)  # fmt: skip
        with pytest.raises(tx.LoadError, match="object"):
            tx.load_arrays(p)  # a bad header is found when opening, not later
        big_endian_fortran = np.asfortranarray(np.arange(6, dtype=">f8").reshape(2, 3))
        p = _zip(tmp_path / "be.npz", {"x.npy": _npy(big_endian_fortran)}, compression)
        got = tx.load_arrays(p)["x"]
        assert got.dtype == np.dtype(">f8") and got.flags.f_contiguous
        assert np.array_equal(got, big_endian_fortran)
        enormous = b"\x93NUMPY\x02\x00" + struct.pack("<I", 2**31) + b"{" * 100
        p = _zip(tmp_path / "h.npz", {"x.npy": enormous}, compression)
        with pytest.raises(tx.LoadError, match="too large"):
            tx.load_arrays(p)
        zero = _zip(tmp_path / "z.npz", {"x.npy": _npy(np.zeros((0, 3), np.float32)),
                                         "s.npy": _npy(np.array(2.5))}, compression)  # fmt: skip
        out = tx.load_arrays(zero, mmap_threshold=0)
        assert out["x"].shape == (0, 3) and out["s"].shape == () and out["s"] == 2.5


# ---------------------------------------------------------------------------- the file


def test_close_keeps_what_was_read(two: tuple[Path, np.ndarray, np.ndarray]) -> None:
    p, _, small = two
    with tx.load_arrays(p) as out:
        s = out["small"]
    assert out.closed
    assert out["small"] is s and np.array_equal(s, small)
    with pytest.raises(tx.LoadError, match="closed"):
        out["big"]


def test_the_file_read_is_the_file_opened(tmp_path: Path) -> None:
    p = tmp_path / "c.npz"
    np.savez(p, a=np.arange(10.0))
    out = tx.load_arrays(p)
    p.unlink()  # replaced after opening: the open archive still reads the original
    np.savez(p, a=np.zeros(3))
    assert np.array_equal(out["a"], np.arange(10.0))
    q = tmp_path / "d.npz"
    np.savez(q, a=np.arange(10.0))
    out = tx.load_arrays(q)
    start, _ = _data_start(q, "a.npy")
    with open(q, "r+b") as f:  # changed in place: the header no longer matches
        f.seek(start)
        head = f.read(128)
        f.seek(start)
        f.write(head.replace(b"(10,)", b"(5,2)"))
    with pytest.raises(tx.LoadError, match="changed since the archive was opened"):
        out["a"]


def test_load_path_reads_everything_and_lets_go(two: tuple[Path, np.ndarray, np.ndarray]) -> None:
    p, big, small = two
    got = loading.load_path(p)
    assert type(got) is dict and list(got) == ["big", "small"]
    assert np.array_equal(got["big"], big) and np.array_equal(got["small"], small)
