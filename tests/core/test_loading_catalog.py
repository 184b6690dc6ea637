"""Why a file cannot be opened, in every language: the LoadErrors of loading.py, session.py and
sources.py carry a catalog Message whose English is exactly the text they always had, and
which renders in Chinese where it is shown."""

from __future__ import annotations

import copy
import json
import pickle
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from tensor_explorer.core.catalog import Message
from tensor_explorer.core.loading import LoadError, load_arrays, load_path, to_tensor
from tensor_explorer.core.session import FORMAT, MANIFEST, VERSION, open_session
from tensor_explorer.core.sources import MAX_PROGRAM_BYTES, read_program
from tests.core.text_checks import CJK as _CJK


def _raises(fn: Callable[[], object]) -> LoadError:
    with pytest.raises(LoadError) as info:
        fn()
    return info.value


def _session(path: Path, manifest: dict[str, object]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(MANIFEST, json.dumps(manifest))
    return path


def _stored_npz_with_a_flipped_byte(path: Path) -> Path:
    np.savez(path, x=np.arange(64.0))
    raw = bytearray(path.read_bytes())
    raw[raw.index(b"\x93NUMPY") + 200] ^= 0xFF
    path.write_bytes(bytes(raw))
    return path


def _broken(tmp_path: Path) -> dict[str, tuple[Callable[[], object], str, str]]:
    """name -> (what fails, its English as it always was, words its Chinese holds)"""
    np.save(tmp_path / "good.npy", np.arange(8.0))
    data = (tmp_path / "good.npy").read_bytes()
    (tmp_path / "cut.npy").write_bytes(data[:20])
    (tmp_path / "short.npy").write_bytes(data[:-20])
    np.save(tmp_path / "objects.npy", np.array([None, 1], dtype=object), allow_pickle=True)
    (tmp_path / "junk.npz").write_bytes(b"PK\x03\x04" + bytes(range(256)) * 4)
    with zipfile.ZipFile(tmp_path / "readme.npz", "w") as zf:
        zf.writestr("README.txt", "hello")
    crc = _stored_npz_with_a_flipped_byte(tmp_path / "crc.npz")
    (tmp_path / "binary.py").write_bytes(b"\xff\xfe\x00" * 10)
    (tmp_path / "huge.py").write_bytes(b"#" * (MAX_PROGRAM_BYTES + 1))
    other = _session(tmp_path / "other.txs",
                     {"format": "other", "version": 1, "allocations": [], "values": []})
    newer = _session(tmp_path / "newer.txs",
                     {"format": FORMAT, "version": 10**6, "allocations": [], "values": []})
    (tmp_path / "junk.txs").write_bytes(b"PK\x03\x04 not a session at all")
    return {
        "cut header": (lambda: load_path(tmp_path / "cut.npy"),
                       "cut.npy: file is truncated: it ends inside the header",
                       "cut.npy：文件被截断了：它在头部的中间就结束了"),
        "short data": (lambda: load_path(tmp_path / "short.npy"),
                       "short.npy: file is truncated: the header promises 64 bytes of data "
                       "(shape (8,), float64) but only 44 follow",
                       "头部声明有 64 字节的数据（形状 (8,)，float64），但后面只有 44 字节"),
        "object dtype": (lambda: load_path(tmp_path / "objects.npy"),
                         "objects.npy: dtype object holds Python objects (they would have to be "
                         "unpickled, which can run code); it is not loaded",
                         "dtype object 含有 Python 对象"),
        "not a zip": (lambda: load_path(tmp_path / "junk.npz"),
                      "junk.npz: not a valid .npz (zip) archive (File is not a zip file)",
                      "junk.npz：不是有效的 .npz（zip）压缩包（File is not a zip file）"),
        "no arrays": (lambda: load_arrays(tmp_path / "readme.npz"),
                      "readme.npz: the archive holds no arrays; skipped 'README.txt': "
                      "not a .npy array",
                      "readme.npz：压缩包里没有数组；已跳过 'README.txt'：不是 .npy 数组"),
        "checksum": (lambda: load_arrays(crc)["x"],
                     "crc.npz[x]: the data does not match the archive's checksum (CRC-32)",
                     "crc.npz[x]：数据与压缩包记录的校验和（CRC-32）不一致"),
        "missing": (lambda: load_path(tmp_path / "missing.npy"), "missing.npy: no such file",
                    "missing.npy：没有这个文件"),
        "folder": (lambda: load_arrays(tmp_path), f"{tmp_path.name}: is a folder, not a .npz file",
                   "这是一个文件夹，不是 .npz 文件"),
        "not utf-8": (lambda: read_program(tmp_path / "binary.py"),
                      "binary.py: not a UTF-8 text file", "binary.py：不是 UTF-8 编码的文本文件"),
        "huge program": (lambda: read_program(tmp_path / "huge.py"),
                         f"huge.py: a program of {MAX_PROGRAM_BYTES + 1:,} bytes is too large",
                         f"程序有 {MAX_PROGRAM_BYTES + 1:,} 字节，太大了"),
        "not our session": (lambda: open_session(other),
                            "other.txs: not a valid session file: this is not a Tensor Explorer "
                            "session",
                            "other.txs：不是有效的会话文件：这不是 Tensor Explorer 的会话"),
        "newer session": (lambda: open_session(newer),
                          "newer.txs: not a valid session file: the session was written by a "
                          f"newer version (format 1000000; this one reads up to {VERSION})",
                          f"这个会话是由更新的版本写的（格式 1000000；"
                          f"这个版本最多只能读 {VERSION}）"),
        "damaged session": (lambda: open_session(tmp_path / "junk.txs"),
                            "junk.txs: not a valid session file (a damaged zip archive: File is "
                            "not a zip file)", "junk.txs：不是有效的会话文件（zip 归档已损坏："),
    }


CASES = ["cut header", "short data", "object dtype", "not a zip", "no arrays", "checksum",
         "missing", "folder", "not utf-8", "huge program", "not our session", "newer session",
         "damaged session"]  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_the_english_is_unchanged_and_the_chinese_is_chinese(tmp_path: Path, case: str) -> None:
    fail, english, chinese = _broken(tmp_path)[case]
    err = _raises(fail)
    assert str(err) == english and err.text("en") == english and err.text() == english
    assert isinstance(err.message, Message) and err.message.code == "load.failed"
    zh = err.text("zh")
    assert chinese in zh and _CJK.search(zh)
    assert zh.split("：", 1)[0] == english.split(": ", 1)[0]  # the file's name as it is


def test_a_record_field_is_named_in_both_languages(tmp_path: Path) -> None:
    dtype = np.dtype([("a", "f4"), ("b", [("c", "V4")])])
    np.save(tmp_path / "rec.npy", np.zeros(2, dtype=dtype))
    err = _raises(lambda: load_path(tmp_path / "rec.npy"))
    assert str(err) == ("rec.npy: field 'b': field 'c': dtype |V4 is raw bytes with no type "
                        "(void); it is not loaded")
    assert err.text("zh") == ("rec.npy：字段 'b'：字段 'c'：dtype |V4 是没有类型的原始字节"
                              "（void）；不会加载它")


def test_an_error_pickles_and_copies_with_its_message(tmp_path: Path) -> None:
    err = _raises(lambda: load_path(tmp_path / "missing.npy"))
    for other in (pickle.loads(pickle.dumps(err)), copy.copy(err), copy.deepcopy(err)):
        assert isinstance(other, LoadError) and str(other) == str(err)
        assert other.text("zh") == "missing.npy：没有这个文件"


def test_plain_text_errors_stay_as_they_are() -> None:
    err = LoadError("lesson.md, line 3: something")
    assert err.message == "lesson.md, line 3: something" == err.text("zh")
    assert LoadError().text("zh") == ""


@pytest.mark.skipif(np.dtype(np.longdouble).itemsize <= 8, reason="long double is float64 here")
def test_a_dtype_torch_lacks() -> None:
    err = _raises(lambda: to_tensor(np.zeros(2, dtype=np.longdouble)))
    assert str(err) == (f"torch has no {np.dtype(np.longdouble)} type; convert the array to "
                        "float64 first")
    assert err.text("zh").startswith(f"torch 没有 {np.dtype(np.longdouble)} 类型")
