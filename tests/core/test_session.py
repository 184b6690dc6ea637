"""Session files: bit-exact round trips, shared memory kept, hostile files refused."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import pickle
import struct
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

import tensor_explorer as tx
from tensor_explorer.core import session, signing
from tensor_explorer.core.loading import LoadError, _member_data_start
from tensor_explorer.core.memory import allocation
from tensor_explorer.core.workspace import Workspace

CUDA = torch.cuda.is_available()

TORCH_DTYPES = sorted(session._TORCH_DTYPES.values(), key=str)
NUMPY_DTYPES = ["?", "u1", "i1", "<u2", ">u2", "<i4", ">i4", "<i8", ">u8", "<f2", ">f2", "<f4",
                ">f4", "<f8", ">f8", "<c8", ">c8", "<c16", ">c16"]  # fmt: skip


def round_trip(ws: Workspace, tmp_path: Path) -> Workspace:
    path = tmp_path / "s.txs"
    ws.save(path)
    return Workspace.open(path)


def raw(value: torch.Tensor | np.ndarray) -> bytes:
    """The bytes of every element, in logical order (bit-exact comparisons, NaN payloads too)."""
    if isinstance(value, np.ndarray):
        return np.ascontiguousarray(value).tobytes()
    t = value.detach().contiguous()
    return bytes(t.untyped_storage())[t.storage_offset() * t.element_size():][: t.nbytes]


def layout(value: torch.Tensor | np.ndarray) -> tuple[Any, ...]:
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.strides, allocation(value).offset_bytes)
    return (value.dtype, tuple(value.shape), value.stride(), value.storage_offset())


def relations(ws: Workspace) -> list[tuple[Any, ...]]:
    return [(r.a, r.b, r.kind, r.shared_bytes) for r in ws.relations()]


def rewrite(path: Path, change: Callable[[dict[str, Any]], None] | None = None,
            extra: dict[str, bytes] | None = None, drop: tuple[str, ...] = (),
            sign: bool = False) -> None:
    """Rewrite a session's manifest (and members) in place, as an attacker would (its
    signature, if any, kept as it was: it no longer fits); ``sign``: signed again with this
    user's key, as if this app had written it."""
    with zipfile.ZipFile(path) as zf:
        members = {i.filename: zf.read(i) for i in zf.infolist()}
    manifest = json.loads(members[session.MANIFEST])
    if change is not None:
        change(manifest)
    members[session.MANIFEST] = json.dumps(manifest).encode()
    members.update(extra or {})
    if sign:
        members[session.SIGNATURE] = signature_of(members)
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            if name not in drop:
                zf.writestr(name, data)


def signature_of(members: dict[str, bytes], key: bytes | None = None) -> bytes:
    """The signature member this app would write for these members (with ``key``, else the
    user's key)."""
    key = key if key is not None else signing.load_key(create=True)
    assert key is not None
    manifest = json.loads(members[session.MANIFEST])
    data = [members[f"data/{i}.bin"] for i in range(len(manifest["allocations"]))]
    mac = signing.mac(key, members[session.MANIFEST],
                      [(len(d), hashlib.sha256(d).hexdigest()) for d in data])  # fmt: skip
    return json.dumps({"alg": "HMAC-SHA256", "mac": mac}).encode()


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    ws = Workspace()
    ws.run("x = torch.arange(12.0).reshape(3, 4)\nv = x[:, 1]\nn = 3")
    path = tmp_path / "s.txs"
    ws.save(path)
    return path


# ----- round trips ----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_every_torch_dtype_round_trips_bit_exactly(tmp_path: Path, dtype: torch.dtype) -> None:
    nbytes = 4 * 8 * dtype.itemsize
    bits = torch.randint(0, 256, (nbytes,), dtype=torch.uint8)
    ws = Workspace()
    ws["t"] = bits.view(dtype).reshape(4, -1)
    ws["col"] = ws["t"][:, 1:3]
    out = round_trip(ws, tmp_path)
    for name in ("t", "col"):
        assert out[name].dtype == dtype
        assert layout(out[name]) == layout(ws[name])
        assert raw(out[name]) == raw(ws[name])
    assert out["col"].untyped_storage().data_ptr() == out["t"].untyped_storage().data_ptr()


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_every_numpy_dtype_and_byte_order_round_trips(tmp_path: Path, dtype: str) -> None:
    dt = np.dtype(dtype)
    a = np.frombuffer(np.random.default_rng(1).bytes(6 * dt.itemsize), dtype=dt).reshape(2, 3)
    ws = Workspace()
    ws["a"] = a.copy()
    ws["b"] = ws["a"][::-1, ::2]  # negative strides
    out = round_trip(ws, tmp_path)
    for name in ("a", "b"):
        assert out[name].dtype.str == ws[name].dtype.str
        assert layout(out[name]) == layout(ws[name])
        assert raw(out[name]) == raw(ws[name])
    assert relations(out) == relations(ws)


def test_nan_payloads_and_special_floats_survive(tmp_path: Path) -> None:
    payloads = np.array([0x7FC00001, 0xFFC12345, 0x7F800000, 0xFF800000, 0x80000000, 1],
                        dtype=np.uint32)  # fmt: skip
    ws = Workspace()
    ws["a"] = payloads.view(np.float32)
    ws["t"] = torch.from_numpy(payloads.view(np.float32).copy())
    ws["plain"] = struct.unpack("<d", struct.pack("<Q", 0x7FF8_0000_0000_00AB))[0]
    out = round_trip(ws, tmp_path)
    assert out["a"].view(np.uint32).tolist() == payloads.tolist()
    assert out["t"].numpy().view(np.uint32).tolist() == payloads.tolist()
    assert struct.pack("<d", out["plain"]) == struct.pack("<d", ws["plain"])


def test_views_expand_and_layouts_keep_their_strides_and_sharing(tmp_path: Path) -> None:
    ws = Workspace()
    ws.run(
        "x = torch.arange(24.0).reshape(2, 3, 4)\n"
        "tt = x.transpose(0, 2)\n"
        "step = x[:, ::2, 1::2]\n"
        "e = torch.ones(3).expand(5, 3)\n"
        "d = x.flatten().diagonal() if False else x[0].diagonal()\n"
        "other = torch.zeros(4)\n"
        "f = np.asfortranarray(np.arange(6.0).reshape(2, 3))\n"
        "ft = f.T\n"
    )
    before = relations(ws)
    out = round_trip(ws, tmp_path)
    assert out.names() == ws.names()
    for name in ("x", "tt", "step", "e", "d", "f", "ft"):
        assert layout(out[name]) == layout(ws[name]), name
        assert raw(out[name]) == raw(ws[name]), name
    assert out["e"].stride() == (0, 1)
    assert relations(out) == before
    out["x"][0, 0, 1] = -7.0
    assert out["tt"][1, 0, 0] == -7.0


def test_zero_size_values_round_trip(tmp_path: Path) -> None:
    ws = Workspace()
    ws["t"] = torch.zeros(0, 3)
    ws["a"] = np.zeros((2, 0), dtype=">i4")
    ws["s"] = torch.arange(5.0)[5:]
    out = round_trip(ws, tmp_path)
    assert out["t"].shape == (0, 3) and out["a"].shape == (2, 0) and out["s"].shape == (0,)
    assert out["a"].dtype.str == ">i4"


def test_numpy_and_from_numpy_share_one_buffer_after_opening(tmp_path: Path) -> None:
    ws = Workspace()
    ws.run("a = np.arange(8.0)\nt = torch.from_numpy(a)\ntail = torch.from_numpy(a[3:])\n"
           "back = t.numpy()\nv = t.view(2, 4)")  # fmt: skip
    before = relations(ws)
    out = round_trip(ws, tmp_path)
    assert allocation(out["a"]).key == allocation(out["t"]).key == allocation(out["back"]).key
    assert relations(out) == before
    out["a"][5] = 42.0
    assert out["t"][5] == 42.0 and out["tail"][2] == 42.0 and out["back"][5] == 42.0
    assert out["v"][1, 1] == 42.0
    out["t"].add_(1)
    assert out["a"][0] == 1.0
    assert tx.relation(out["a"], out["t"]).kind == "alias"  # type: ignore[union-attr]


def test_requires_grad_and_grads_round_trip_and_backward_accumulates(tmp_path: Path) -> None:
    ws = Workspace()
    ws.run("w = torch.randn(3, requires_grad=True)\nb = torch.zeros(1, requires_grad=True)\n"
           "loss = (w * 2 + b).sum()\nloss.backward()\nplain = torch.ones(2)")  # fmt: skip
    out = round_trip(ws, tmp_path)
    assert out["w"].requires_grad and out["w"].is_leaf and out["b"].requires_grad
    assert torch.equal(out["w"].grad, ws["w"].grad)
    assert torch.equal(out["b"].grad, ws["b"].grad)
    assert not out["plain"].requires_grad and out["plain"].grad is None
    assert not out["loss"].requires_grad  # a graph output opens without its graph, with a note
    assert any("loss" in note and "graph" in note for note in out.session_notes)
    out.run("(out := (w * 2 + b).sum()).backward()")
    assert torch.equal(out["w"].grad, 2 * ws["w"].grad)


def test_history_origins_selection_and_script_survive(tmp_path: Path) -> None:
    ws = Workspace()
    ws.run("x = torch.ones(2, 3)\nwith torch.no_grad():\n    y = x.detach()\nprint('hi')")
    ws["handed"] = np.arange(3)
    ws.rename("handed", "h")
    ws.selected = "y"
    out = round_trip(ws, tmp_path)
    # the same history; what it says is text from a file now: replayed restricted, if ever
    assert [dataclasses.replace(r, restricted=False) for r in out.history] == ws.history
    assert all(r.restricted for r in out.history)
    assert out.selected == "y"
    for name in ws.names():
        assert out.origin(name) == ws.origin(name)
    assert out.origin("y").cut_off == "no_grad"  # type: ignore[union-attr]
    script = out.to_script()
    assert script == ws.to_script()
    again = Workspace()
    again.run(script)
    assert again.names() == ws.names()


def test_plain_values_round_trip_exactly(tmp_path: Path) -> None:
    values = {
        "i": 10**40, "neg": -3, "f": 0.1, "inf": float("-inf"), "c": complex(1.5, -0.0),
        "s": "中文 text", "b": True, "none": None, "lst": [1, [2.5, "x"], (3, None)],
        "d": {"k": 1, 2: [3], (1, 2): "t"}, "dt": torch.float16, "dev": torch.device("cpu"),
        "size": torch.Size([2, 3]), "np_scalar": np.float32(1.25), "tup": (),
    }  # fmt: skip
    ws = Workspace()
    for name, value in values.items():
        ws[name] = value
    out = round_trip(ws, tmp_path)
    for name, value in values.items():
        assert type(out[name]) is type(value), name
        assert out[name] == value, name


def test_modules_and_functions_are_rebuilt_through_the_runner(tmp_path: Path) -> None:
    ws = Workspace()
    ws.run(
        "model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))\n"
        "model.eval()\n"
        "w = model[0].weight\n"
        "wd = model[0].weight.detach()\n"
        "def double(z):\n    return z * 2\n"
        "sq = lambda z: z * z\n"
        "loss = model(torch.ones(2, 3)).sum()\nloss.backward()\n"
    )
    out = round_trip(ws, tmp_path)
    m0, m1 = ws["model"], out["model"]
    assert isinstance(m1, torch.nn.Sequential) and not m1.training
    for (k0, p0), (k1, p1) in zip(m0.named_parameters(), m1.named_parameters(), strict=True):
        assert k0 == k1 and torch.equal(p0, p1) and torch.equal(p0.grad, p1.grad)
        assert isinstance(p1, torch.nn.Parameter) and p1.requires_grad
    assert out["w"] is m1[0].weight
    assert tx.relation(out["wd"], m1[0].weight).kind == "alias"  # type: ignore[union-attr]
    assert out["double"](3) == 6 and out["sq"](3) == 9
    x = torch.randn(2, 3)
    assert torch.equal(m1(x), m0(x))


def test_values_that_cannot_be_saved_are_named_in_notes(tmp_path: Path) -> None:
    ws = Workspace()
    ws["thing"] = object()
    ws["pair"] = [torch.ones(1), 2]
    ws["ok"] = torch.ones(2)
    out = round_trip(ws, tmp_path)
    assert out.names() == ["ok"]
    notes = " ".join(out.session_notes)
    assert "thing" in notes and "pair" in notes and "not saved" in notes


def test_meta_tensors_keep_shape_without_data(tmp_path: Path) -> None:
    ws = Workspace()
    ws["m"] = torch.empty(3, 4, device="meta").t()
    out = round_trip(ws, tmp_path)
    assert out["m"].device.type == "meta" and out["m"].stride() == (1, 4)


def test_cuda_values_open_on_cpu_with_a_note_when_cuda_is_absent(
    saved: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def to_cuda(m: dict[str, Any]) -> None:
        m["allocations"][0]["device"] = "cuda:0"
        m["values"][0]["device"] = "cuda:0"
        m["values"][1]["device"] = "cuda:0"

    rewrite(saved, to_cuda)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)
    out = Workspace.open(saved)
    assert out["x"].device.type == "cpu" and torch.equal(out["v"], out["x"][:, 1])
    assert any("cuda:0" in note and "CPU" in note for note in out.session_notes)


@pytest.mark.cuda
def test_cuda_values_round_trip_on_cuda(tmp_path: Path) -> None:
    ws = Workspace()
    ws.run("x = torch.arange(6.0, device='cuda').reshape(2, 3)\nc = x[:, 1]\nh = torch.ones(2)")
    out = round_trip(ws, tmp_path)
    assert out["x"].is_cuda and out["c"].is_cuda and not out["h"].is_cuda
    assert torch.equal(out["x"].cpu(), ws["x"].cpu())
    assert out["c"].untyped_storage().data_ptr() == out["x"].untyped_storage().data_ptr()


def test_save_is_atomic_and_leaves_no_temporary_files(tmp_path: Path, saved: Path) -> None:
    before = saved.read_bytes()
    ws = Workspace()
    ws["x"] = torch.ones(3)

    def broken(*_: Any) -> Any:
        raise OSError("disk full")

    orig = session._capture
    try:
        session._capture = lambda w, c: orig(w, c).__class__(  # type: ignore[assignment]
            orig(w, c).manifest, [broken], 0, True)
        with pytest.raises(OSError):
            ws.save(saved)
    finally:
        session._capture = orig  # type: ignore[assignment]
    assert saved.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.txs"]
    ws.save(saved)
    assert torch.equal(Workspace.open(saved)["x"], torch.ones(3))


def test_clear_forgets_everything_and_emits_removed(saved: Path) -> None:
    ws = Workspace.open(saved)
    ws.selected = "x"
    removed: list[str] = []
    selected: list[object] = []
    ws.events.removed.connect(removed.append)
    ws.events.selected.connect(selected.append)
    ws.clear()
    assert removed == ["x", "v", "n"] and selected == [None]
    assert ws.names() == [] and ws.history == [] and ws.selected is None
    assert ws.run("y = torch.ones(1)") == ["y"]


def test_is_session(saved: Path, tmp_path: Path) -> None:
    assert session.is_session(saved)
    np.savez(tmp_path / "a.npz", a=np.ones(2))
    assert not session.is_session(tmp_path / "a.npz")
    assert not session.is_session(tmp_path / "missing")


# ----- hostile and broken files ---------------------------------------------------------------


def test_truncated_files_raise_load_error(saved: Path, tmp_path: Path) -> None:
    data = saved.read_bytes()
    bad = tmp_path / "cut.txs"
    for n in (0, 10, len(data) // 3, len(data) // 2, len(data) - 30, len(data) - 1):
        bad.write_bytes(data[:n])
        with pytest.raises(LoadError, match=r"cut\.txs"):
            Workspace.open(bad)


def test_flipped_data_bytes_fail_the_zip_checksum(saved: Path) -> None:
    data = bytearray(saved.read_bytes())
    with zipfile.ZipFile(saved) as zf, open(saved, "rb") as f:
        start = _member_data_start(f, zf.getinfo("data/0.bin"), "s")
    data[start + 3] ^= 0xFF
    saved.write_bytes(bytes(data))
    with pytest.raises(LoadError):
        Workspace.open(saved)


def _set(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(m: dict[str, Any]) -> None:
        target: Any = m
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


LIES: dict[str, tuple[Any, str]] = {
    "offset beyond storage": (_set(["values", 0, "offset"], 1000), "outside"),
    "negative stride": (_set(["values", 0, "stride"], [-4, 1]), "stride"),
    "huge shape": (_set(["values", 0, "shape"], [2**40, 2**40]), "elements"),
    "shape beyond storage": (_set(["values", 0, "shape"], [1000, 4]), "outside"),
    "storage beyond allocation": (_set(["values", 0, "storage"], [8, 48]), "outside"),
    "allocation bigger than data": (_set(["allocations", 0, "nbytes"], 4096), "bytes"),
    "unknown dtype": (_set(["values", 0, "dtype"], "object"), "dtype"),
    "qint dtype": (_set(["values", 0, "dtype"], "qint8"), "dtype"),
    "bool as int": (_set(["values", 0, "offset"], True), "offset"),
    "float shape": (_set(["values", 0, "shape"], [3.0, 4]), "shape"),
    "dunder name": (_set(["values", 0, "name"], "__class__"), "reserved"),
    "module name": (_set(["values", 0, "name"], "torch"), "reserved"),
    "duplicate name": (_set(["values", 1, "name"], "x"), "twice"),
    "unknown kind": (_set(["values", 2, "kind"], "pickle"), "kind"),
    "alloc index": (_set(["values", 0, "alloc"], 7), "alloc"),
    "extra field": (_set(["values", 0, "code"], "print(1)"), "unknown fields"),
    "newer version": (_set(["version"], 99), "newer"),
    "other format": (_set(["format"], "something"), "not a Tensor Explorer session"),
    "big-endian writer": (_set(["byteorder"], "big"), "endian"),
    "bad plain": (_set(["values", 2, "value"], ["int", "1e5"]), "malformed"),
    "history kind": (_set(["history", 0, "kind"], "exec"), "kind"),
    "array strides outside": (None, "outside"),
}


@pytest.mark.parametrize("case", sorted(LIES))
def test_manifest_lies_are_refused_before_anything_is_made(saved: Path, case: str) -> None:
    change, match = LIES[case]
    if case == "array strides outside":
        ws = Workspace()
        ws["a"] = np.arange(6.0)
        ws.save(saved)
        change = _set(["values", 0, "strides"], [-8])
    assert change is not None
    rewrite(saved, change)
    with pytest.raises(LoadError, match=match):
        Workspace.open(saved)


def test_path_traversal_and_unexpected_members_are_refused(saved: Path, tmp_path: Path) -> None:
    rewrite(saved, extra={"../../evil.txt": b"x"})
    with pytest.raises(LoadError, match="unexpected member"):
        Workspace.open(saved)
    assert not (tmp_path.parent.parent / "evil.txt").exists()


def test_missing_data_member_is_refused(saved: Path) -> None:
    rewrite(saved, drop=("data/0.bin",))
    with pytest.raises(LoadError, match="missing"):
        Workspace.open(saved)


def test_zip_bomb_is_refused_from_declared_sizes(
    saved: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """64 MiB of zeros deflate to ~64 KiB; with 1 MiB of memory "available" the declared size
    must refuse the file before a byte of the member is inflated."""
    with zipfile.ZipFile(saved) as zf:
        manifest = json.loads(zf.read(session.MANIFEST))
    manifest["allocations"][0]["nbytes"] = 64 << 20
    bomb = tmp_path / "bomb.txs"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(session.MANIFEST, json.dumps(manifest))
        zf.writestr("data/0.bin", bytes(64 << 20))
    assert bomb.stat().st_size < 1 << 20
    monkeypatch.setattr(session, "_available_memory", lambda: 1 << 20)

    def never(*_: Any) -> Any:
        raise AssertionError("read a member of a zip bomb")

    monkeypatch.setattr(session, "_read_alloc", never)
    with pytest.raises(LoadError, match="memory"):
        Workspace.open(bomb)


def test_manifest_bomb_is_refused(saved: Path, tmp_path: Path) -> None:
    bomb = tmp_path / "mbomb.txs"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(session.MANIFEST, b" " * (session.MAX_MANIFEST_BYTES + 10))
    with pytest.raises(LoadError, match="too large"):
        Workspace.open(bomb)


class _Canary:
    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return (open, (self.path, "w"))


def test_pickled_payloads_never_run(saved: Path, tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    payload = pickle.dumps(_Canary(str(canary)))
    # 1. a pickle as a data member: read as raw bytes, nothing is unpickled
    with zipfile.ZipFile(saved) as zf:
        size = zf.getinfo("data/0.bin").file_size
    rewrite(saved, _set(["allocations", 0, "nbytes"], len(payload)),
            extra={"data/0.bin": payload})  # fmt: skip
    assert size < len(payload)
    out = Workspace.open(saved)  # the pickle's bytes become the tensor's bytes, nothing more
    assert raw(out["x"]) == payload[:48]
    assert not canary.exists()
    # 2. a torch.save file (a zip holding a pickle) opened as a session
    evil = tmp_path / "evil.txs"
    torch.save({"x": _Canary(str(canary))}, evil)
    with pytest.raises(LoadError):
        Workspace.open(evil)
    # 3. a pickle as the manifest
    rewrite(saved, extra={session.MANIFEST: payload})
    with pytest.raises(LoadError, match="JSON"):
        Workspace.open(saved)
    # 4. a hostile recipe never runs: the file is not the user's own any more (its signature
    # does not fit), and a torch.nn module is rebuilt from its data alone
    ws = Workspace()
    ws.run("model = nn.Linear(2, 2)")
    ws.save(saved)
    rewrite(saved, _set(["values", 0, "recipe"], f"model = open({str(canary)!r}, 'w')"))
    out = Workspace.open(saved)
    assert type(out["model"]) is torch.nn.Linear and torch.equal(out["model"].weight,
                                                                  ws["model"].weight)
    assert not canary.exists()


def test_not_a_session(tmp_path: Path) -> None:
    for name, data in {"empty.txs": b"", "text.txs": b"hello", "npz.txs": None}.items():
        p = tmp_path / name
        if data is None:
            np.savez(p, a=np.ones(2))
            p = p.with_suffix(".txs.npz")
        else:
            p.write_bytes(data)
        with pytest.raises(LoadError):
            Workspace.open(p)
    with pytest.raises(LoadError, match="no such file"):
        Workspace.open(tmp_path / "missing.txs")
    with pytest.raises(LoadError, match="folder"):
        Workspace.open(tmp_path)


def test_load_session_replaces_contents_atomically(saved: Path, tmp_path: Path) -> None:
    from tensor_explorer.core.sources import open_into

    ws = Workspace()
    ws.run("old = torch.zeros(2)\ndef f(u):\n    return u + 1")
    events: list[tuple[str, object]] = []
    ws.events.removed.connect(lambda n: events.append(("removed", n)))
    ws.events.added.connect(lambda n: events.append(("added", n)))
    bad = tmp_path / "bad.txs"
    bad.write_bytes(saved.read_bytes()[:-20])
    with pytest.raises(LoadError):
        ws.load_session(bad)
    assert ws.names() == ["old", "f"] and not events  # nothing changed
    names = open_into(ws, saved)
    assert names == ["x", "v", "n"] == ws.names()
    assert ("removed", "old") in events and ("added", "v") in events
    assert torch.equal(ws["v"], ws["x"][:, 1])
    ws.run("y = x.sum()\ndef g(u):\n    return u * y")  # the workspace goes on working
    ws.save(saved)
    other = Workspace()
    other.load_session(saved)
    other.run("y = torch.tensor(2.0)")
    assert other["g"](3).item() == 6.0  # g's globals are this workspace's values


# ----- session depends on workspace, never the other way round ----------------------------------


ALL_EVENTS = ("added", "changed", "removed", "renamed", "selected", "output", "ran", "undoable",
              "not_undoable")


def record_events(ws: Workspace) -> list[tuple[Any, ...]]:
    """Every event ``ws`` emits from now on, as (event, args...) (a Change as its type)."""
    events: list[tuple[Any, ...]] = []
    for name in ALL_EVENTS:
        getattr(ws.events, name).connect(
            lambda *args, name=name: events.append(
                (name, *(a if a is None or isinstance(a, str) else type(a).__name__
                         for a in args))))  # fmt: skip
    return events


@pytest.fixture
def rich(tmp_path: Path) -> Path:
    """A session with data (a leaf with its grad, a view, a plain value, an array), a function
    and a module rebuilt from their statements, a name for a module's parameter, a selection."""
    ws = Workspace()
    ws.run("x = torch.arange(6.0).reshape(2, 3).requires_grad_()\n(x * x).sum().backward()\n"
           "v = x.detach()[:, 1]\nn = 3\na = np.ones(2)\ndef f(u):\n    return u + n\n"
           "net = nn.Linear(2, 3)\nw = net.weight")  # fmt: skip
    ws.selected = "v"
    path = tmp_path / "rich.txs"
    ws.save(path)
    return path


@pytest.mark.parametrize("track", [False, True], ids=["untracked", "tracked"])
def test_opening_into_a_workspace_emits_one_replacement(rich: Path, track: bool) -> None:
    # What panels saw before (session.py emitting them): removed for each old name, selected
    # None, added for each new name, the selection, and (tracked) not_undoable. Replaying a
    # function's or a module's statement no longer leaks in between: no `added` twice, no `ran`
    # for a statement that is not the history, no `undoable` at once made void.
    ws = Workspace()
    ws.run("old = torch.zeros(2)\nk = 1")
    ws.selected = "k"
    ws.track_changes = track
    events = record_events(ws)
    assert ws.load_session(rich) == ["x", "v", "n", "a", "f", "net", "w"]
    expected: list[tuple[Any, ...]] = [
        ("removed", "old"), ("removed", "k"), ("selected", None),
        *[("added", name) for name in ws.names()], ("selected", "v"),
    ]  # fmt: skip
    if track:
        expected.append(("not_undoable", "a session was opened"))
    assert events == expected
    assert ws.track_changes == track
    # and what was restored: values, sharing, grads, history, origins, selection
    fresh = Workspace.open(rich)
    assert ws.names() == fresh.names() and ws.selected == fresh.selected == "v"
    assert [r.source for r in ws.history] == [r.source for r in fresh.history]
    assert all(ws.origin(n) == fresh.origin(n) for n in ws.names())
    assert torch.equal(ws["x"].grad, 2 * ws["x"].detach())
    assert ws["v"].untyped_storage().data_ptr() == ws["x"].untyped_storage().data_ptr()
    assert ws["w"] is ws["net"].weight and ws["f"](1) == 4


def test_opening_an_empty_workspace_emits_only_added(rich: Path) -> None:
    ws = Workspace()
    events = record_events(ws)
    ws.load_session(rich)
    assert events == [*[("added", name) for name in ws.names()], ("selected", "v")]


def test_a_value_that_cannot_be_rebuilt_is_left_out_with_a_note(rich: Path) -> None:
    def break_f(m: dict[str, Any]) -> None:
        (entry,) = [e for e in m["values"] if e["name"] == "f"]
        entry["source"] = "f = 3"  # binds f, but not to a function

    rewrite(rich, break_f, sign=True)
    ws = Workspace()
    events = record_events(ws)
    ws.load_session(rich)
    assert ws.names() == ["x", "v", "n", "a", "net", "w"]
    assert any("f (a function) could not be rebuilt" in note for note in ws.session_notes)
    assert ("added", "f") not in events and "removed" not in [e[0] for e in events]


def test_undo_goes_on_working_across_an_open(rich: Path) -> None:
    from tensor_explorer.core.undo import UndoHistory

    ws = Workspace()
    ws.track_changes = True
    undo = UndoHistory()
    ws.events.undoable.connect(undo.push)
    ws.events.not_undoable.connect(undo.clear)
    ws.run("mine = torch.ones(2)")
    assert undo.undo_label is not None
    ws.load_session(rich)
    assert not undo.done and undo.cleared_because == "a session was opened"
    opened = ([r.source for r in ws.history], ws.names(), ws.selected)
    ws.run("x.data.add_(10)")
    ws.run("z = v * 2")
    assert ws["v"].tolist() == [11.0, 14.0]
    assert undo.undo(ws) is not None and undo.undo(ws) is not None
    assert ([r.source for r in ws.history], ws.names(), ws.selected) == opened
    assert ws["x"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and ws["v"].tolist() == [1, 4]
    assert ws["v"].untyped_storage().data_ptr() == ws["x"].untyped_storage().data_ptr()
    assert undo.undo(ws) is None  # nothing before the open: it cannot be undone
    assert undo.redo(ws) is not None and ws["v"].tolist() == [11.0, 14.0]


def test_session_touches_no_private_field_of_a_workspace(
    rich: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # behaviour, not text: every attribute of a workspace that code in session.py reads or
    # writes while saving, opening and loading into one
    here = Path(session.__file__).resolve()
    touched: list[str] = []

    class Watched(Workspace):
        def __getattribute__(self, name: str) -> Any:
            _note(name)
            return super().__getattribute__(name)

        def __setattr__(self, name: str, value: Any) -> None:
            _note(name)
            super().__setattr__(name, value)

    def _note(name: str) -> None:
        if name.startswith("_") and not name.startswith("__"):
            caller = sys._getframe(2).f_code.co_filename
            if Path(caller).resolve() == here:
                touched.append(name)

    into = Watched()
    into.run("old = 1")
    into.load_session(rich)
    assert into.names() == ["x", "v", "n", "a", "f", "net", "w"]
    into.save(tmp_path / "again.txs")
    session.write(session.capture(into), tmp_path / "captured.txs")
    assert Workspace.open(tmp_path / "captured.txs").names() == into.names()
    assert touched == []
    monkeypatch.setattr(session, "Workspace", Watched)  # what Workspace.open makes
    opened = Watched.open(rich)
    assert isinstance(opened, Watched) and opened.names() == into.names()
    assert touched == []
    # the watch works: it sees what session.py would touch
    exec(compile("ws._ns", str(here), "eval"), {"ws": into})
    assert touched == ["_ns"]


def test_the_workspace_module_never_imports_the_session_module() -> None:
    import ast
    import tomllib

    from tensor_explorer.core import workspace

    tree = ast.parse(Path(workspace.__file__).read_text(encoding="utf-8"))
    imported: list[str] = []
    for node in ast.walk(tree):  # inside functions too
        if isinstance(node, ast.Import):
            imported += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            imported += [node.module or ""] + [f"{node.module or ''}.{a.name}" for a in node.names]
    assert [m for m in imported if m.split(".")[-1] == "session"] == []
    # and lint-imports (scripts/test) holds it to that, indirect imports included
    pyproject = Path(__file__).parents[2] / "pyproject.toml"
    contracts = tomllib.loads(pyproject.read_text())["tool"]["importlinter"]["contracts"]
    assert any(c["type"] == "forbidden" and c["source_modules"] == [workspace.__name__]
               and session.__name__ in c["forbidden_modules"] for c in contracts)


def test_save_open_and_load_session_work_whatever_is_imported_first(tmp_path: Path) -> None:
    # a fresh interpreter that imports only the workspace module: the contract's calls work
    code = ("import sys\nfrom tensor_explorer.core.workspace import Workspace\n"
            "ws = Workspace()\nws.run('x = torch.ones(2)\\ny = x[1:]')\nws.save(sys.argv[1])\n"
            "print(Workspace.open(sys.argv[1]).names(), Workspace().load_session(sys.argv[1]))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "s.txs")],
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[0] == "['x', 'y'] ['x', 'y']"
