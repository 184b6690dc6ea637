"""NumPy's own ``.npy`` format cases, read by the app and by ``np.load(allow_pickle=False)``.

The cases follow ``numpy/lib/tests/test_format.py`` (scalars and arrays of every dtype and byte
order, C and Fortran order, empty and 0-d arrays, record arrays, nested and padded and aligned
records, sub-array fields, dates, durations, strings, format versions 1.0, 2.0 and 3.0) plus
files NumPy reads that other writers make: Python 2 ``3L`` headers and bytes after the data.
Every file NumPy loads must either load bit-identically here (same dtype, shape and bytes) or be
refused with a :class:`LoadError` that says why; nothing else may happen, and every array that
loads can be inspected (facts, statistics or a plain reason why there are none).
"""

from __future__ import annotations

import io
import itertools
import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tensor_explorer as tx
from tensor_explorer.cli import inspect_entry, json_safe
from tensor_explorer.core.loading import load_notes

SCALARS = [
    np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64, np.int64,
    np.float16, np.float32, np.float64, np.longdouble, np.complex64, np.complex128,
    np.clongdouble, np.bool_,
]  # fmt: skip


def _basic_arrays() -> list[np.ndarray]:
    out: list[np.ndarray] = []
    for scalar in SCALARS:
        for endian in "<>":
            dt = np.dtype(scalar).newbyteorder(endian)
            base = (np.arange(1 * 3 * 4 * 5).reshape(3, 4, 5) % 7 - 3).astype(dt)
            if dt.kind in "fc":
                base.flat[1] = np.nan
                base.flat[2] = np.inf
            out += [
                np.array(base.flat[0], dtype=dt).reshape(()),  # 0-d
                np.zeros((0,), dtype=dt),
                np.zeros((2, 0, 3), dtype=dt),
                base.reshape(-1),
                base[0],
                base,
                np.asfortranarray(base),
                base[:, ::2, 1:],  # a strided view: saved as a copy
            ]
    return out


PADDED = np.dtype({"names": ["a", "b"], "formats": ["<i1", "<f8"], "offsets": [0, 8]})
NESTED = np.dtype([("x", "<i4", (2,)), ("y", [("u", ">f8"), ("v", "<c16", (2, 2))]), ("z", "u1")])
ALIGNED = np.dtype([("a", "i1"), ("b", "<f4"), ("c", "<i8")], align=True)


def _record_arrays() -> list[np.ndarray]:
    out = []
    for dt in (
        np.dtype([("x", "<i4"), ("y", "<f8"), ("z", "?")]),
        np.dtype([("x", ">i4"), ("y", ">f8"), ("name", "<U5")]),
        PADDED,
        NESTED,
        ALIGNED,
        np.dtype([("t", "<M8[us]"), ("d", "<m8[s]"), ("s", "S3")]),
        np.dtype([("ünï", "<f4"), ("b", "<i2")]),  # needs format 3.0
    ):
        a = np.zeros((3, 2), dtype=dt)
        for name in dt.names:
            sub = a[name]
            if sub.dtype.names is None:
                if sub.dtype.kind in "iuf":
                    sub[...] = np.arange(sub.size).reshape(sub.shape) % 5
                elif sub.dtype.kind == "U":
                    sub[...] = "héllo"
        out += [a, a[0], np.asfortranarray(a)]
    return out


def _other_arrays() -> list[np.ndarray]:
    t = np.array(["2024-01-31T12:00", "NaT", "1969-07-20T20:17"], dtype="M8[m]")
    return [
        t, t.astype("M8[ns]"), t.astype("M8[D]"),
        np.array([1, -2, 0], dtype="m8[ms]"), np.array(["NaT", 5], dtype="m8[Y]"),
        np.array(["ab", "", "漢字"], dtype="<U2"), np.array(["ab", "cd"], dtype=">U3"),
        np.array([b"ab", b"\x00\xff"], dtype="S2"),
        np.array([[1e308, -1e308, 0.0]]),
    ]  # fmt: skip


def _save(a: np.ndarray, version: tuple[int, int] | None) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, a, version=version, allow_pickle=False)
    return buf.getvalue()


def _cases() -> list[tuple[str, bytes]]:
    cases = []
    arrays = _basic_arrays() + _record_arrays() + _other_arrays()
    for i, (a, version) in enumerate(itertools.product(arrays, [None, (1, 0), (2, 0), (3, 0)])):
        try:
            data = _save(a, version)
        except (ValueError, UnicodeEncodeError):  # a version that cannot hold this header
            continue
        cases.append((f"{i}-{a.dtype.str}-{a.shape}-v{version}", data))
    # Python 2 headers ("3L"), written by NumPy under Python 2 and read by NumPy today
    py2 = b"{'descr': '<i8', 'fortran_order': False, 'shape': (2L, 3L), }"
    py2 = py2 + b" " * (118 - len(py2)) + b"\n"
    cases.append(("python2-long", b"\x93NUMPY\x01\x00" + len(py2).to_bytes(2, "little") + py2
                  + np.arange(6, dtype="<i8").tobytes()))  # fmt: skip
    # bytes after the data (NumPy ignores them)
    cases.append(("trailing", _save(np.arange(5.0), None) + b"tail bytes"))
    return cases


CASES = _cases()


def _np_load(p: Path) -> Any:
    with warnings.catch_warnings():
        # NumPy warns that a Python 2 header needed extra parsing; it reads it all the same
        warnings.filterwarnings("ignore", "Reading `.npy` or `.npz` file required", UserWarning)
        return np.load(p, allow_pickle=False)


def _same(ours: np.ndarray, want: np.ndarray) -> None:
    """Same dtype, shape and bytes; records field by field (padding between fields holds
    whatever a copy leaves there, in NumPy's arrays as in ours)."""
    assert ours.dtype == want.dtype and ours.shape == want.shape
    if want.dtype.names:
        for name in want.dtype.names:
            _same(ours[name], want[name])
        return
    assert np.ascontiguousarray(ours).tobytes() == np.ascontiguousarray(want).tobytes()


@pytest.mark.parametrize("threshold", [1 << 40, 0], ids=["read", "memory-mapped"])
def test_every_case_loads_as_numpy_reads_it_or_is_refused(tmp_path: Path, threshold: int) -> None:
    loaded = refused = 0
    for name, data in CASES:
        p = tmp_path / "case.npy"
        p.write_bytes(data)
        want = _np_load(p)
        try:
            ours = tx.load_array(p, mmap_threshold=threshold)
        except tx.LoadError as exc:
            assert str(exc).startswith("case.npy: "), (name, exc)
            refused += 1
            continue
        _same(ours, want)
        loaded += 1
        del ours
    assert len(CASES) > 600
    assert refused == 0  # every case of the corpus is one the app reads
    assert loaded == len(CASES)


def test_every_loaded_case_can_be_inspected(tmp_path: Path) -> None:
    # facts, statistics (or the reason there are none) and diagnoses, as JSON, never a crash
    for name, data in CASES[::7] + CASES[-2:]:
        p = tmp_path / "case.npy"
        p.write_bytes(data)
        entry = inspect_entry("case", tx.load_array(p))
        text = json.dumps(json_safe(entry), allow_nan=False, default=str)
        assert entry["facts"]["shape"] == list(_np_load(p).shape), name
        assert (entry["stats"] is None) == bool(entry["notes"]), (name, text[:200])


def test_python2_headers_and_trailing_bytes_are_read_with_a_note(tmp_path: Path) -> None:
    cases = dict(CASES)
    p = tmp_path / "py2.npy"
    p.write_bytes(cases["python2-long"])
    a = tx.load_array(p)
    assert a.tolist() == [[0, 1, 2], [3, 4, 5]] and load_notes(a) == []
    p = tmp_path / "tail.npy"
    p.write_bytes(cases["trailing"])
    for threshold in (1 << 40, 0):
        a = tx.load_array(p, mmap_threshold=threshold)
        assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
        assert load_notes(a) == ["10 bytes after the data were ignored, as NumPy does"]
        assert "10 bytes after the data were ignored, as NumPy does" in tx.describe(a).notes


def test_archives_with_trailing_bytes_and_records(tmp_path: Path) -> None:
    import zipfile

    rec = np.zeros(4, dtype=NESTED)
    rec["x"] = [[1, 2]] * 4
    for compression in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2):
        p = tmp_path / f"a{compression}.npz"
        with zipfile.ZipFile(p, "w", compression) as zf:
            zf.writestr("tail.npy", _save(np.arange(3.0), None) + b"xyz")
            zf.writestr("rec.npy", _save(rec, None))
        want = np.load(p, allow_pickle=False)
        with tx.load_arrays(p) as got:
            _same(got["tail"], want["tail"])
            _same(got["rec"], want["rec"])
            assert load_notes(got["tail"]) == ["3 bytes after the data were ignored, as NumPy does"]


def test_nothing_is_ever_unpickled(tmp_path: Path) -> None:
    p = tmp_path / "obj.npy"
    np.save(p, np.array([(1, {"a": 1})], dtype=[("n", "i4"), ("o", "O")]), allow_pickle=True)
    with pytest.raises(tx.LoadError, match="unpickled"):
        tx.load_array(p)


def test_records_dates_and_strings_survive_a_session(tmp_path: Path) -> None:
    from tensor_explorer.core.workspace import Workspace

    ws = Workspace()
    picked = {}
    for _name, data in CASES:
        p = tmp_path / "case.npy"
        p.write_bytes(data)
        a = tx.load_array(p)
        key = a.dtype.kind + ("r" if a.dtype.names else "")
        if key not in picked and a.size:
            picked[key] = a
    assert {"Vr", "M", "m", "U", "S"} <= set(picked)
    for i, a in enumerate(picked.values()):
        ws[f"v{i}"] = a
    ws.save(tmp_path / "s.txs")
    again = Workspace()
    again.load_session(tmp_path / "s.txs")
    for i, a in enumerate(picked.values()):
        _same(again[f"v{i}"], a)


def test_a_record_opens_with_its_fields_as_values(tmp_path: Path) -> None:
    # structured arrays open as a record whose fields are values of their own, nested by path
    from tensor_explorer.core.sources import open_into
    from tensor_explorer.core.workspace import Workspace, record_fields

    data = np.zeros(4, dtype=NESTED)
    data["x"] = np.arange(8).reshape(4, 2)
    data["y"]["u"] = [0.5, 1.5, np.nan, 3.0]
    np.save(tmp_path / "data.npy", data)
    ws = Workspace()
    assert open_into(ws, tmp_path / "data.npy") == ["data"]
    assert record_fields(ws["data"]) == ["x", "y", "y.u", "y.v", "z"]
    x, u = ws.get("data.x"), ws.get("data.y.u")
    assert x.tolist() == data["x"].tolist() and x.shape == (4, 2)
    assert np.array_equal(u, data["y"]["u"], equal_nan=True) and u.dtype == np.dtype(">f8")
    assert np.shares_memory(u, ws["data"])  # a field is a view of the record's memory
    assert ws.get("data.nope") is None and ws.get("data.x.deeper") is None
    st = tx.stats(u)
    assert (st.nan, st.max) == (1, 3.0)
    assert ws.origin("data").file == str(tmp_path / "data.npy")
