"""A session file's fields and the notes of opening files, in every language: each check of a
manifest field is a catalog Message whose field path (``value 'x'``, ``history record 1``, ...)
is a Message too, so the whole reason renders in Chinese; the session notes, the trailing-bytes
note and ``to_tensor``'s copy note are Messages. English exactly as before."""

from __future__ import annotations

import copy
import hashlib
import json
import re
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tensor_explorer.core import session, signing
from tensor_explorer.core.catalog import CATALOG, Message, text_in
from tensor_explorer.core.loading import LoadError, load_array, load_notes, to_tensor
from tensor_explorer.core.workspace import Workspace

BIG = 4611686018427387904  # the largest size a field may hold (session.MAX_DIM)
#: three English words in a row (outside quotes and code) is an untranslated sentence
_ENGLISH = re.compile(r"(?<![\w.'-])[A-Za-z]{2,}(?: [A-Za-z]{2,}){2,}")


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, bytes], dict[str, Any]]:
    """The members of a session holding a leaf and a computed tensor, a view, a number, an
    array, a module and a function, and its manifest."""
    ws = Workspace()
    ws.run("x = torch.arange(12.0).reshape(3, 4).requires_grad_()\ny = x * 2\nv = x[:, 1]\n"
           "n = 3\na = np.arange(6.0)\nm = torch.nn.Linear(2, 2)\ndef f(q):\n    return q\n"
           "class K(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
           "        self.w = torch.nn.Parameter(torch.ones(2))\nk = K()\n")
    ws.run("y.retain_grad()\ny.sum().backward()")
    path = tmp_path_factory.mktemp("session") / "s.txs"
    ws.save(path)
    with zipfile.ZipFile(path) as zf:
        members = {i.filename: zf.read(i) for i in zf.infolist()}
    return members, json.loads(members[session.MANIFEST])


def _open(tmp_path: Path, saved: tuple[dict[str, bytes], dict[str, Any]],
          change: Callable[[dict[str, Any]], Any]) -> Workspace:
    members, manifest = saved
    m = copy.deepcopy(manifest)
    change(m)
    path = tmp_path / "s.txs"
    text = json.dumps(m).encode()
    data = [members[f"data/{i}.bin"] for i in range(len(m["allocations"]))]
    key = signing.load_key(create=True)  # signed again: the user's own file, its code runs
    assert key is not None
    mac = signing.mac(key, text, [(len(d), hashlib.sha256(d).hexdigest()) for d in data])
    signature = json.dumps({"alg": "HMAC-SHA256", "mac": mac}).encode()
    with zipfile.ZipFile(path, "w") as zf:
        for name, blob in {**members, session.MANIFEST: text, session.SIGNATURE: signature}.items():
            zf.writestr(name, blob)
    return Workspace.open(path)


def _value(m: dict[str, Any], name: str) -> dict[str, Any]:
    return next(e for e in m["values"] if e["name"] == name)


#: what is changed -> (why in English as it always was, why in Chinese)
FIELDS: dict[str, tuple[Callable[[dict[str, Any]], Any], str, str]] = {
    "offset": (lambda m: _value(m, "x").update(offset=-1),
               f"value 'x': offset must be an integer from 0 to {BIG}",
               f"值 'x'：offset 必须是 0 到 {BIG} 之间的整数"),
    "stride list": (lambda m: _value(m, "x").update(stride="x"),
                    "value 'x': stride must be a list of at most 64 integers",
                    "值 'x'：stride 必须是最多含 64 个整数的列表"),
    "layout": (lambda m: _value(m, "x").update(stride=[1]),
               "value 'x': shape and stride differ in length",
               "值 'x'：shape 和 stride 的长度不同"),
    "storage start": (lambda m: _value(m, "x").update(storage=["a", 1]),
                      f"value 'x': storage start must be an integer from 0 to {BIG}",
                      f"值 'x'：存储的起点 必须是 0 到 {BIG} 之间的整数"),
    "outside": (lambda m: _value(m, "x").update(offset=1000),
                "value 'x': elements lie outside their storage (offset, strides and shape reach "
                "byte 4048, storage has 48)",
                "值 'x'：元素超出了它们的存储（偏移、步长和形状到达第 4048 字节，"
                "而存储只有 48 字节）"),
    "flag": (lambda m: _value(m, "x").update(requires_grad=1),
             "value 'x': requires_grad must be true or false",
             "值 'x'：requires_grad 必须是 true 或 false"),
    "grad field": (lambda m: _value(m, "x")["grad"].update(offset="z"),
                   f"value 'x'.grad: offset must be an integer from 0 to {BIG}",
                   f"值 'x' 的 .grad：offset 必须是 0 到 {BIG} 之间的整数"),
    "grad lacks": (lambda m: _value(m, "x").update(grad={"kind": "tensor"}),
                   "value 'x'.grad lacks ['alloc', 'device', 'dtype', 'offset', 'shape', "
                   "'stride']",
                   "值 'x' 的 .grad 缺少字段 ['alloc', 'device', 'dtype', 'offset', 'shape', "
                   "'stride']"),
    "unknown fields": (lambda m: _value(m, "x").update(code=1),
                       "value 'x' has unknown fields ['code']", "值 'x' 含有未知的字段 ['code']"),
    "meta": (lambda m: _value(m, "x").update(device="meta"), "value 'x': a meta tensor has no data",
             "值 'x'：meta 张量没有数据"),
    "array outside": (lambda m: _value(m, "a").update(strides=[-8]),
                      "value 'a': elements lie outside their allocation",
                      "值 'a'：元素超出了它们的内存块"),
    "state role": (lambda m: _value(m, "m")["state"]["weight"].pop("role"),
                   "value 'm'[weight]: missing role", "值 'm' 的状态项 [weight]：缺少角色（role）"),
    "state object": (lambda m: _value(m, "m")["state"].update(weight=3),
                     "value 'm'[weight] must be an object",
                     "值 'm' 的状态项 [weight] 必须是一个 JSON 对象"),
    "allocation": (lambda m: m["allocations"][0].update(nbytes=0),
                   f"allocation 0: size must be an integer from 1 to {BIG}",
                   f"内存块 0：大小 必须是 1 到 {BIG} 之间的整数"),
    "no name": (lambda m: m["values"][0].update(name=3), "value 0 has no name", "值 0 没有名字"),
    "history": (lambda m: m.update(history={}), "bad history", "历史记录（history）的格式不对"),
    "history kind": (lambda m: m["history"][0].update(kind="exec"),
                     "history record 1: unknown kind", "第 1 条历史记录：未知的种类"),
    "history line": (lambda m: m["history"][0].update(line=-1), "history record 1: line",
                     "第 1 条历史记录：line 的格式不对"),
    "origin": (lambda m: m["origins"].update(zz={"kind": "run"}),
               "origin of 'zz': no such value", "'zz' 的来源：没有这个值"),
    "manifest": (lambda m: m.pop("values"), "the manifest lacks ['values']",
                 "清单（manifest） 缺少字段 ['values']"),
    "selection": (lambda m: m.update(selected=4), "bad selection",
                  "选中的值（selected）的格式不对"),
    "reference": (lambda m: m["values"].append({"kind": "same", "name": "w", "ref": ["value"]}),
                  "value 'w': bad reference", "值 'w'：引用的格式不对"),
}


@pytest.mark.parametrize("case", sorted(FIELDS))
def test_a_bad_field_is_said_in_english_as_before_and_in_chinese(
        tmp_path: Path, saved: tuple[dict[str, bytes], dict[str, Any]], case: str) -> None:
    change, english, chinese = FIELDS[case]
    with pytest.raises(LoadError) as info:
        _open(tmp_path, saved, change)
    err = info.value
    assert str(err) == f"s.txs: not a valid session file: {english}"
    assert err.text("zh") == f"s.txs：不是有效的会话文件：{chinese}"
    assert not _ENGLISH.search(err.text("zh"))


def _notes(tmp_path: Path, saved: tuple[dict[str, bytes], dict[str, Any]],
           change: Callable[[dict[str, Any]], Any]) -> list[str]:
    notes = list(_open(tmp_path, saved, change).session_notes)
    assert all(isinstance(note, Message) for note in notes)
    return notes


GRAPH = ("y was computed with autograd (MulBackward0); it opens as a plain tensor without its "
         "graph (run the saved code again to rebuild the graph)")
GRAPH_ZH = ("y 是用 autograd 算出来的（MulBackward0）；打开后它是一个没有计算图的普通张量"
            "（再运行一次保存的代码即可重建计算图）")


def test_the_notes_of_opening_a_session_are_messages(
        tmp_path: Path, saved: tuple[dict[str, bytes], dict[str, Any]]) -> None:
    def no_graph_fn(m: dict[str, Any]) -> None:
        _value(m, "y")["grad_fn"] = None

    first = _notes(tmp_path, saved, lambda m: None)[0]
    assert (first, first.render("zh")) == (GRAPH, GRAPH_ZH)
    first = _notes(tmp_path, saved, no_graph_fn)[0]
    assert first.startswith("y was computed with autograd (a graph); it opens")
    assert first.render("zh").startswith("y 是用 autograd 算出来的（一个计算图）")
    cases: dict[str, tuple[Callable[[dict[str, Any]], Any], str, str]] = {
        "not saved": (lambda m: m["values"].append(
            {"kind": "not_saved", "name": "w", "type": "gen", "note": "because"}),
            "w (a gen) was not saved: because", "w（gen）没有保存：because"),
        "module type": (lambda m: _value(m, "k").update(recipe="k = torch.nn.ReLU()"),
                        "k (a K) could not be rebuilt: its statement made a ReLU, not a K",
                        "k（K）无法重建：它的语句生成的是 ReLU，而不是 K"),
        "recipe": (lambda m: _value(m, "k").update(recipe="x y"),
                   "k (a K) could not be rebuilt: its statement is not valid Python",
                   "k（K）无法重建：它的语句不是有效的 Python"),
        "state": (lambda m: _value(m, "K").update(source=_value(m, "K")["source"].replace(
                      "ones(2)", "ones(3)")),
                  "k (a K) could not be rebuilt: w has another shape or dtype than "
                  "the one saved", "k（K）无法重建：w 的形状或 dtype 与保存的不同"),
        "function": (lambda m: _value(m, "f").update(source="f = 3"),
                     "f (a function) could not be rebuilt: its statement did not make a "
                     "function", "f（function）无法重建：它的语句没有生成函数"),
        "class": (lambda m: _value(m, "K").update(source="class K:\n    x = undefined_thing"),
                  "K (a class) could not be rebuilt: running its statement again failed "
                  "(NameError: name 'undefined_thing' is not defined)",
                  "K（class）无法重建：再次运行它的语句失败了（NameError: name "
                  "'undefined_thing' is not defined）"),
        "failed": (lambda m: _value(m, "k").update(recipe="k = undefined_thing"),
                   "k (a K) could not be rebuilt: running its statement again failed "
                   "(NameError: name 'undefined_thing' is not defined)",
                   "k（K）无法重建：再次运行它的语句失败了（NameError: name "
                   "'undefined_thing' is not defined）"),
        "no recipe": (lambda m: _value(m, "k").update(recipe=None),
                      "k (a K) shows its saved parameters and buffers: no statement in the "
                      "session can rebuild it",
                      "k（K）只显示保存的参数和缓冲区：会话里没有能重建它的语句"),
        "dangling": (lambda m: m["values"].append(
            {"kind": "same", "name": "w", "ref": ["state", "nope", "k"]}),
            "w refers to a value that could not be opened", "w 引用的值无法打开"),
    }
    for change, english, chinese in cases.values():
        notes = _notes(tmp_path, saved, change)
        assert (english, chinese) in [(note, text_in(note, "zh")) for note in notes]


def test_cuda_values_on_a_machine_without_cuda_are_noted_in_chinese(
        tmp_path: Path, saved: tuple[dict[str, bytes], dict[str, Any]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tensor_explorer.core import devices

    def refuse(device: str) -> str:
        raise ValueError(device)

    monkeypatch.setattr(devices, "check_device", refuse)

    def on(device: str) -> Callable[[dict[str, Any]], None]:
        def change(m: dict[str, Any]) -> None:
            for e in m["values"]:
                if e.get("kind") == "tensor":
                    e["device"] = device
        return change

    notes = _notes(tmp_path, saved, on("cuda:1"))
    assert notes[0] == ("values saved on cuda:1 were opened on the CPU: this machine has no "
                        "such CUDA device")
    assert notes[0].render("zh") == ("保存在 cuda:1 上的值在 CPU 上打开了："
                                     "这台机器没有这个 CUDA 设备")
    notes = _notes(tmp_path, saved, on("mps"))
    assert notes[0] == "values saved on mps were opened on the CPU"
    assert notes[0].render("zh") == "保存在 mps 上的值在 CPU 上打开了"


def test_the_notes_of_reading_an_array_are_messages(tmp_path: Path) -> None:
    np.save(tmp_path / "t.npy", np.arange(3.0))
    (tmp_path / "t.npy").write_bytes((tmp_path / "t.npy").read_bytes() + b"x" * 1234)
    [note] = load_notes(load_array(tmp_path / "t.npy"))
    assert note == "1,234 bytes after the data were ignored, as NumPy does"
    assert text_in(note, "zh") == "数据后面的 1,234 字节被忽略了（NumPy 也是这样做的）"
    read_only = np.arange(3.0)
    read_only.flags.writeable = False
    cases = {
        ">f4": (np.arange(4, dtype=">f4"), "its bytes are big-endian and were converted to "
                "this machine's order", "它的字节是大端序的，已转换为本机的字节序"),
        "strides": (np.arange(6.0)[::-2], "it has negative or unaligned strides, which torch "
                    "cannot view", "它的步长为负或没有对齐，torch 无法直接查看"),
        "read-only": (read_only, "its memory is read-only, and a tensor must be able to write",
                      "它的内存是只读的，而张量必须能够写入"),
    }
    for array, english, chinese in cases.values():
        _t, copied = to_tensor(array)
        assert copied == f"copied: {english}. The tensor does not share memory."
        assert text_in(copied or "", "zh") == f"已复制：{chinese}。这个张量不与数组共享内存。"
    joined = Message("load.copied", reasons=Message(
        "load.copied-and", first=Message("load.copied-byte-order"),
        rest=Message("load.copied-read-only")))
    assert joined == ("copied: its bytes are big-endian and were converted to this machine's "
                      "order; its memory is read-only, and a tensor must be able to write. The "
                      "tensor does not share memory.")
    assert "字节序；它的内存是只读的" in joined.render("zh")


def test_every_session_field_code_has_chinese_without_english_sentences() -> None:
    for code, templates in CATALOG.items():
        if code.startswith(("session.", "lesson.")):
            assert not _ENGLISH.search(templates["zh"]), code
