"""The smaller file-loading defects of issue #24, each pinned against NumPy's own reading
(``np.load``, ``np.lib.format``): reserved member names, a zip named ``.npy``, nested sub-array
record fields, zero-length string dtypes, and archives with very many members."""

from __future__ import annotations

import io
import os
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

import tensor_explorer as tx
from tensor_explorer.core import loading
from tensor_explorer.core.catalog import Message
from tensor_explorer.core.loading import LoadError, load_array, load_arrays, load_path
from tensor_explorer.core.sources import open_into, value_name
from tensor_explorer.core.workspace import Workspace, check_name
from tests.core.text_checks import CJK


def _raw_npy(path: Path, descr: object, shape: tuple[int, ...], data: bytes = b"") -> Path:
    """A .npy file with exactly this header (as NumPy writes it) and these data bytes."""
    with open(path, "wb") as f:
        np.lib.format.write_array_header_1_0(
            f, {"descr": descr, "fortran_order": False, "shape": shape})
        f.write(data)
    return path


def _code(err: LoadError) -> str:
    """The catalog code of why ``err`` was raised (``load.failed``'s ``why``)."""
    message = err.args[0]
    assert isinstance(message, Message) and message.code == "load.failed"
    why = message.params["why"]
    assert isinstance(why, Message)
    return why.code


# ---------------------------------------------------------------- 1. reserved member names


@pytest.mark.parametrize("key", ["np", "F", "nn", "torch"])
def test_a_member_named_after_a_prebound_module_opens(tmp_path: Path, key: str) -> None:
    forces = np.arange(6.0).reshape(2, 3)
    np.savez(tmp_path / "d.npz", **{key: forces, "x": np.ones(2)})
    ws = Workspace()
    names = open_into(ws, tmp_path / "d.npz")
    assert names == [f"{key}_data", "x"]
    np.testing.assert_array_equal(np.asarray(ws[f"{key}_data"]), forces)
    origin = ws.origin(f"{key}_data")
    assert origin is not None and origin.file == f"{tmp_path / 'd.npz'} [{key}]"  # real key


def test_a_npy_file_named_after_a_prebound_module_opens(tmp_path: Path) -> None:
    np.save(tmp_path / "torch.npy", np.arange(3))
    ws = Workspace()
    assert open_into(ws, tmp_path / "torch.npy") == ["torch_data"]
    origin = ws.origin("torch_data")
    assert origin is not None and origin.file == str(tmp_path / "torch.npy")


@pytest.mark.parametrize(
    "stem", ["np", "F", "nn", "torch", "class", "3d", "", "__", "a-b", "x²", "²", "ﬁle", "é",
             "F_data", "_np", "np.x"])
def test_value_names_are_always_names_the_workspace_takes(stem: str) -> None:
    taken = {"F_data", "np_data"}
    name = value_name(stem, taken)
    check_name(name)  # raises for a name the workspace refuses
    assert name not in taken
    assert name == value_name(name)  # (a name that is fine stays as it is)


def test_a_reserved_name_and_its_own_data_name_both_open(tmp_path: Path) -> None:
    np.savez(tmp_path / "d.npz", F=np.zeros(1), F_data=np.ones(1))
    ws = Workspace()
    names = open_into(ws, tmp_path / "d.npz")
    assert sorted(names) == ["F_data", "F_data_2"] and len(set(names)) == 2


# ---------------------------------------------------------------- 2. a zip archive named .npy


def _zip_named_npy(tmp_path: Path) -> Path:
    np.savez(tmp_path / "arch.npz", a=np.ones(3))
    p = tmp_path / "arch.npy"
    os.replace(tmp_path / "arch.npz", p)
    assert isinstance(np.load(p), np.lib.npyio.NpzFile)  # NumPy: an archive, whatever its name
    return p


def test_a_zip_archive_named_npy_says_so(tmp_path: Path) -> None:
    p = _zip_named_npy(tmp_path)
    for fn in (lambda: load_array(p), lambda: load_path(p), lambda: open_into(Workspace(), p)):
        with pytest.raises(tx.LoadError) as info:
            fn()
        assert _code(info.value) == "load.npy-is-zip"
        assert str(info.value) == "arch.npy: is a zip archive (a .npz), not a .npy file"
        assert CJK.search(info.value.text("zh"))


def test_an_empty_zip_archive_named_npy_says_so(tmp_path: Path) -> None:
    p = tmp_path / "empty.npy"
    with zipfile.ZipFile(p, "w"):
        pass
    with pytest.raises(LoadError) as info:
        load_array(p)
    assert _code(info.value) == "load.npy-is-zip"


def test_a_npy_file_named_npz_says_so(tmp_path: Path) -> None:
    p = tmp_path / "one.npz"
    with open(p, "wb") as f:
        np.save(f, np.arange(3))
    with pytest.raises(LoadError) as info:
        load_arrays(p)
    assert _code(info.value) == "load.npz-is-npy"
    assert str(info.value) == "one.npz: is a .npy file, not a .npz (zip) archive"
    with pytest.raises(LoadError):
        open_into(Workspace(), p)


def test_other_junk_is_still_not_a_npy(tmp_path: Path) -> None:
    p = tmp_path / "junk.npy"
    p.write_bytes(b"PK? not a zip at all")
    with pytest.raises(LoadError) as info:
        load_array(p)
    assert _code(info.value) == "load.not-npy"


# ---------------------------------------------------------------- 3. nested sub-array fields

# from NumPy's own format tests (numpy/lib/tests/test_format.py), nested and not
_RECORDS = [
    np.dtype([("c", ("<f8", (5,)), (2,))]),
    np.dtype([("x", "<i4", (2,)), ("y", [("z", ("<f4", (3,)), (2, 2))], (2,))]),
    np.dtype([("a", ">i2", (2, 3)), ("b", "S3"), ("c", [("d", "<u1")], (4,))]),
]


@pytest.mark.parametrize("dtype", _RECORDS, ids=str)
@pytest.mark.parametrize("where", ["npy", "npz-stored", "npz-deflated"])
def test_records_with_nested_sub_array_fields_load(tmp_path: Path, dtype: np.dtype,
                                                   where: str) -> None:
    rng = np.random.default_rng(0)
    a = np.frombuffer(rng.bytes(3 * dtype.itemsize), dtype=dtype).copy()
    if where == "npy":
        np.save(tmp_path / "r.npy", a)
        got = load_array(tmp_path / "r.npy")
        want = np.load(tmp_path / "r.npy")
    else:
        (np.savez if where == "npz-stored" else np.savez_compressed)(tmp_path / "r.npz", r=a)
        with load_arrays(tmp_path / "r.npz") as arrays:
            got = arrays["r"]
        with np.load(tmp_path / "r.npz") as z:
            want = z["r"]
    assert got.dtype == want.dtype == dtype
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("descr", [
    [("c", ("O", (5,)), (2,))],
    [("c", ([("o", "O")], (5,)), (2,))],
    [("c", ("V8", (5,)), (2,))],
])
def test_objects_and_void_deep_in_sub_arrays_are_still_refused(tmp_path: Path,
                                                               descr: list[object]) -> None:
    dtype = np.lib.format.descr_to_dtype(descr)
    p = _raw_npy(tmp_path / "r.npy", descr, (1,), bytes(dtype.itemsize))
    with pytest.raises(LoadError) as info:
        load_array(p)
    assert _code(info.value) in {"load.dtype-objects", "load.dtype-is-objects", "load.dtype-void"}


def test_a_top_level_sub_array_dtype_is_still_refused(tmp_path: Path) -> None:
    p = _raw_npy(tmp_path / "s.npy", "(2,)<f8", (3,), bytes(48))
    with pytest.raises(ValueError):  # NumPy cannot read it either
        np.load(p)
    with pytest.raises(LoadError) as info:
        load_array(p)
    assert _code(info.value) == "load.dtype-subarray"


# ---------------------------------------------------------------- 4. zero-length string dtypes


@pytest.mark.parametrize("descr", ["|S0", "<U0", ">U0"])
@pytest.mark.parametrize("shape", [(3,), (0,), (2, 2), ()])
def test_zero_length_strings_load_with_their_real_dtype(tmp_path: Path, descr: str,
                                                        shape: tuple[int, ...]) -> None:
    p = _raw_npy(tmp_path / "z.npy", descr, shape)
    want = np.load(p)
    got = load_array(p)
    assert got.dtype == want.dtype and got.dtype.itemsize == 0
    assert got.shape == want.shape
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("compress", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_zero_length_strings_load_from_an_archive(tmp_path: Path, compress: int) -> None:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": "|S0", "fortran_order": False,
                                               "shape": (4,)})
    with zipfile.ZipFile(tmp_path / "z.npz", "w", compression=compress) as zf:
        zf.writestr("z.npy", buf.getvalue())
    with np.load(tmp_path / "z.npz") as z:
        want = z["z"]
    with load_arrays(tmp_path / "z.npz") as arrays:
        got = arrays["z"]
        assert arrays.verified("z") is True
    assert got.dtype == want.dtype == np.dtype("S0")
    assert got.tolist() == want.tolist() == [b""] * 4


def test_zero_length_void_is_still_refused(tmp_path: Path) -> None:
    with pytest.raises(LoadError) as info:
        load_array(_raw_npy(tmp_path / "v.npy", "|V0", (3,)))
    assert _code(info.value) == "load.dtype-void"


# ---------------------------------------------------------------- 5. very many members


def _many(path: Path, n: int) -> Path:
    rng = np.random.default_rng(1)
    shapes = [(3,), (2, 2), (), (5,)]
    np.savez(path, **{f"a{i}": rng.random(shapes[i % 4]).astype(np.float32)
                      for i in range(n)})
    return path


def test_many_members_equal_numpys_own_reading(tmp_path: Path) -> None:
    p = _many(tmp_path / "many.npz", 500)
    with np.load(p) as z:
        want = {k: z[k] for k in z.files}
    with load_arrays(p) as arrays:
        got = dict(arrays)
    assert list(got) == list(want)
    for k in want:
        assert got[k].dtype == want[k].dtype and got[k].shape == want[k].shape
        np.testing.assert_array_equal(got[k], want[k])


def _seconds(fn: object, repeat: int = 3) -> float:
    assert callable(fn)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def test_opening_scales_linearly_with_the_member_count(tmp_path: Path) -> None:
    small = _many(tmp_path / "small.npz", 500)
    big = _many(tmp_path / "big.npz", 4000)

    def read(p: Path) -> None:
        with load_arrays(p) as arrays:
            arrays.load_all()

    # 8 times the members: about 8 times the time (quadratic would be 64); generous for CI
    assert _seconds(lambda: read(big)) < 20 * _seconds(lambda: read(small)) + 0.5


def test_the_header_fast_path_reads_exactly_what_literal_eval_reads() -> None:
    for a in [np.zeros(3, "<f4"), np.zeros((2, 3), ">i8", order="F"), np.zeros((), "?"),
              np.zeros((0, 4), "<c16"), np.zeros((1,) * 10, "|u1"), np.zeros(2, "<M8[ns]"),
              np.zeros(2, "|S5"), np.zeros(3, [("a", "<f4")])]:
        buf = io.BytesIO()
        np.save(buf, a)
        buf.seek(0)
        h = loading.parse_header(buf, len(buf.getvalue()), "a.npy")
        fortran = a.flags.f_contiguous and not a.flags.c_contiguous
        assert (h.dtype, h.shape, h.fortran_order) == (a.dtype, a.shape, fortran)
        np.testing.assert_array_equal(np.load(io.BytesIO(buf.getvalue())), a)


_HEADER_TEXTS = [
    "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
    "{'descr': '>i8', 'fortran_order': True, 'shape': (2, 3), }",
    "{'descr': '|b1', 'fortran_order': False, 'shape': (), }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3,), }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 0), }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (3,),}",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (3), }",  # an int, not a tuple
    "{'descr': '<f4', 'fortran_order': False, 'shape': (03,), }",  # not Python
    "{'descr': '<f4', 'fortran_order': False, 'shape': (3L,), }",  # Python 2
    "{'descr': '<f4', 'fortran_order': False, 'shape': (,), }",
    "{'descr': '<f4', 'fortran_order': false, 'shape': (3,), }",
    "{'descr': 'a\\'b', 'fortran_order': False, 'shape': (3,), }",
    "{'descr': '\\x3cf4', 'fortran_order': False, 'shape': (3,), }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'x': 1, }",
    "{'fortran_order': False, 'descr': '<f4', 'shape': (3,), }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (٣,), }",  # an Arabic-Indic three
    "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,), }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (1_0,), }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (" + "9" * 5000 + ",), }",
]


@pytest.mark.parametrize("text", _HEADER_TEXTS)
def test_the_header_fast_path_reads_what_literal_eval_reads(text: str) -> None:
    def outcome(fn: object) -> object:
        assert callable(fn)
        try:
            return fn(text)
        except (ValueError, SyntaxError):  # parse_header: "not a valid .npy header"
            return "refused"

    assert outcome(loading._header_dict) == outcome(loading._literal)


def test_available_memory_is_measured_every_so_many_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    np.savez(tmp_path / "m.npz", **{f"a{i}": np.zeros(100, np.float32) for i in range(100)})
    measured: list[int] = []

    def limit() -> int:
        measured.append(1)
        return 10_000  # 25 members of 400 bytes

    monkeypatch.setattr(loading, "memory_limit", limit)
    with load_arrays(tmp_path / "m.npz") as arrays:
        arrays.load_all()
    # not once per member, and never more than 10,000 bytes between two measures
    assert 4 <= len(measured) <= 6
    monkeypatch.setattr(loading, "memory_limit", lambda: 399)
    with load_arrays(tmp_path / "m.npz") as arrays, pytest.raises(LoadError) as info:
        arrays["a0"]
    assert "400 bytes do not fit in memory (399 bytes available)" in str(info.value)
