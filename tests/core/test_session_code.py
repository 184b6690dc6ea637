"""Sessions never run code on open unless the file is the user's own (signed); the user's own
sessions reopen whole: their classes, functions, modules and optimizers (issues #24, #25)."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from tensor_explorer.core import session, signing
from tensor_explorer.core.catalog import Message
from tensor_explorer.core.workspace import Workspace
from tests.core.session_files import members_of, write_members

USER_CODE = (
    "import torch\nfrom torch import nn\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc1 = nn.Linear(2, 3)\n"
    "    def forward(self, x):\n"
    "        return self.fc1(x)\n"
    "net = Net()\n"
    "def f(x):\n    return x * 2\n"
    "x = torch.ones(2)\n"
    "opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)\n"
    "net(x).sum().backward(); opt.step()"
)


def signature_for(members: dict[str, bytes], key: bytes) -> bytes:
    manifest = json.loads(members[session.MANIFEST])
    data = [members[f"data/{i}.bin"] for i in range(len(manifest["allocations"]))]
    mac = signing.mac(key, members[session.MANIFEST],
                      [(len(d), hashlib.sha256(d).hexdigest()) for d in data])  # fmt: skip
    return json.dumps({"alg": "HMAC-SHA256", "mac": mac}).encode()


def optimizer_state(opt: torch.optim.Optimizer) -> list[tuple[str, Any]]:
    sd = opt.state_dict()
    out: list[tuple[str, Any]] = [("groups", sd["param_groups"])]
    for i, st in sorted(sd["state"].items()):
        for k, v in sorted(st.items()):
            out.append((f"{i}.{k}", v.tolist() if isinstance(v, torch.Tensor) else v))
    return out


def is_foreign(ws: Workspace) -> bool:
    return any(isinstance(n, Message) and n.code == "session.note-code-not-run"
               for n in ws.session_notes)


@pytest.fixture
def mine(tmp_path: Path) -> tuple[Workspace, Path]:
    ws = Workspace()
    ws.run(USER_CODE)
    path = tmp_path / "s.txs"
    ws.save(path)
    return ws, path


def assert_whole(before: Workspace, out: Workspace) -> None:
    """The ground truth of the issue's reproducer: everything as before, code included."""
    assert out.names() == before.names() == ["Net", "net", "f", "x", "opt"]
    net0: Any = before["net"]
    net1: Any = out["net"]
    made_by = type(net1)
    assert isinstance(out["Net"], type) and made_by is out["Net"]
    assert type(net1).__name__ == "Net" and not isinstance(net1, session.SavedModule)
    assert torch.equal(net1(out["x"]), net0(before["x"]))
    for (k0, p0), (k1, p1) in zip(net0.named_parameters(), net1.named_parameters(), strict=True):
        assert k0 == k1 and torch.equal(p0, p1) and torch.equal(p0.grad, p1.grad)
        assert isinstance(p1, torch.nn.Parameter) and p1.requires_grad
    assert out["f"](3) == 6
    opt = out["opt"]
    assert type(opt) is torch.optim.SGD
    assert opt.param_groups[0]["params"][0] is net1.fc1.weight  # shared as before
    assert opt.param_groups[0]["params"][1] is net1.fc1.bias
    assert optimizer_state(opt) == optimizer_state(before["opt"])
    # and it goes on training, as the original would
    for ws in (before, out):
        ws.run("opt.zero_grad()\nnet(x).sum().backward()\nopt.step()")
    assert torch.equal(out["net"].fc1.weight, before["net"].fc1.weight)


def test_the_users_own_session_reopens_whole(mine: tuple[Workspace, Path]) -> None:
    before, path = mine
    assert session.SIGNATURE in members_of(path)
    out = Workspace.open(path)
    assert out.session_notes == () and session.pending_code(out) is None
    assert out.origin("Net") is not None and out.origin("Net").binding == "class"  # type: ignore[union-attr]
    assert_whole(before, out)


def test_load_session_and_recovery_paths_reopen_whole(mine: tuple[Workspace, Path],
                                                      tmp_path: Path) -> None:
    before, path = mine
    into = Workspace()
    into.run("old = 1")
    into.load_session(path)
    assert_whole(before, into)
    # capture + write (autosave, recovery, last session) signs as save does
    again = tmp_path / "autosave.txs"
    session.write(session.capture(before), again)
    assert_whole(before, Workspace.open(again))


def test_a_foreign_copy_brings_back_the_data_and_runs_no_code(tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    calls = tmp_path / "calls"
    ws = Workspace()
    ws.run(f"CANARY = {str(canary)!r}\nCALLS = {str(calls)!r}\n"
           "class Net(nn.Module):\n"
           "    open(CANARY, 'a').close()  # the class body runs when the class is made\n"
           "    def __init__(self):\n"
           "        super().__init__()\n"
           "        open(CALLS, 'a').write('init\\n')\n"
           "        self.fc1 = nn.Linear(2, 3)\n"
           "        self.register_buffer('count', torch.zeros(1))\n"
           "    def forward(self, x):\n"
           "        return self.fc1(x)\n"
           "net = Net()\nw = net.fc1.weight\nx = torch.ones(2)\nloss = net(x).sum()\n"
           "loss.backward()\n")
    path = tmp_path / "s.txs"
    ws.save(path)
    canary.unlink()
    calls.unlink()
    members = members_of(path)
    del members[session.SIGNATURE]  # re-zipped without its signature: not the user's own
    foreign = tmp_path / "foreign.txs"
    write_members(foreign, members)
    t0 = time.perf_counter()
    out = Workspace.open(foreign)
    assert time.perf_counter() - t0 < 5
    assert not canary.exists() and not calls.exists()  # no code ran
    assert is_foreign(out)
    net = out["net"]
    assert isinstance(net, session.SavedModule) and repr(net).startswith("Net (saved, not rebuilt)")
    assert net.saved_type == "Net" and "class Net" in (net.saved_source or "")
    # the data, by qualified name: parameters, buffers, grads, sharing
    assert type(net.fc1) is torch.nn.Linear  # torch.nn's own class: rebuilt from data
    assert out.member("net.fc1.weight") is net.fc1.weight and out["w"] is net.fc1.weight
    assert torch.equal(net.fc1.weight, ws["net"].fc1.weight)
    assert torch.equal(net.fc1.weight.grad, ws["net"].fc1.weight.grad)
    assert torch.equal(out.member("net.count"), torch.zeros(1))
    assert torch.equal(net.fc1(out["x"]), ws["net"].fc1(ws["x"]))  # a library module works
    with pytest.raises(RuntimeError, match="Net's code has not run: trust the session"):
        net(out["x"])
    code = session.pending_code(out)
    assert code is not None and code.names == ["Net", "net"]
    assert "Net" not in out  # a class is code: it waits for trust
    # trusting it rebuilds the code as full Python: the real class, the saved parameters
    assert session.rebuild_code(out) == ["Net", "net"]
    assert canary.exists() and calls.read_text() == "init\n"
    real = out["net"]
    assert type(real).__name__ == "Net" and type(real) is out["Net"]
    assert real.fc1.weight is out["w"]  # the saved tensor objects themselves
    assert torch.equal(real(out["x"]), ws["net"](ws["x"]))
    assert not is_foreign(out) and session.pending_code(out) is None
    assert session.rebuild_code(out) == []


def test_signed_with_another_key_or_tampered_opens_as_foreign(
        mine: tuple[Workspace, Path], tmp_path: Path) -> None:
    before, path = mine
    members = members_of(path)
    other = tmp_path / "other.txs"
    write_members(other, {**members, session.SIGNATURE: signature_for(members, b"k" * 32)})
    assert is_foreign(Workspace.open(other))
    # one byte of the manifest changed (still valid JSON), the signature kept
    raw = members[session.MANIFEST]
    pos = raw.index(b'"torch": "') + len(b'"torch": "')
    changed = raw[:pos] + (b"9" if raw[pos:pos + 1] != b"9" else b"8") + raw[pos + 1:]
    tampered = tmp_path / "tampered.txs"
    write_members(tampered, {**members, session.MANIFEST: changed})
    out = Workspace.open(tampered)
    assert is_foreign(out) and isinstance(out["net"], session.SavedModule)
    # one byte of the data changed: the signature covers every byte
    data = bytearray(members["data/0.bin"])
    data[0] ^= 1
    write_members(tampered, {**members, "data/0.bin": bytes(data)})
    assert is_foreign(Workspace.open(tampered))
    # the untouched file is still the user's own
    assert_whole(before, Workspace.open(path))


HOSTILE_CLASS = ("class Evil:\n"
                 "    a = np.zeros(2000000); t = torch.from_numpy(a)\n"
                 "    a.resize(2, refcheck=False); t.fill_(1.0)\n")


def test_hostile_code_in_a_foreign_session_never_runs_and_opens_fast(
        mine: tuple[Workspace, Path], tmp_path: Path) -> None:
    _, path = mine
    members = members_of(path)
    m = json.loads(members[session.MANIFEST])
    for e in m["values"]:
        if e["name"] == "net":
            e["recipe"] = "net = [0 for _ in iter(int, 1)]"  # loops forever
        if e["name"] == "f":
            e["source"] = "def f(x):\n    while True:\n        pass"
        if e["name"] == "Net":
            e["source"] = ("class Net(nn.Module):\n    while True:\n        pass")
    m["values"].append({"kind": "class", "name": "Evil", "source": HOSTILE_CLASS})
    members[session.MANIFEST] = json.dumps(m).encode()
    members[session.SIGNATURE] = signature_for(members, b"x" * 32)  # somebody else's
    hostile = tmp_path / "hostile.txs"
    write_members(hostile, members)
    t0 = time.perf_counter()
    out = Workspace.open(hostile)
    assert time.perf_counter() - t0 < 3
    assert is_foreign(out) and out.names() == ["net", "x", "opt"]
    assert torch.equal(out.member("net.fc1.weight"), mine[0]["net"].fc1.weight)
    code = session.pending_code(out)
    assert code is not None and ("Evil", "class", HOSTILE_CLASS) in code.defs


def test_a_version_1_file_opens_as_foreign_and_its_recipes_never_run(tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    manifest = {
        "format": session.FORMAT, "version": 1, "allocations": [{"device": "cpu", "nbytes": 8}],
        "values": [
            {"kind": "tensor", "name": "t", "dtype": "float32", "shape": [2], "stride": [1],
             "offset": 0, "device": "cpu", "alloc": 0, "storage": [0, 8]},
            {"kind": "rebuilt", "name": "loop", "type": "function",
             "recipe": "def loop():\n    return 1\nwhile True: pass"},
            {"kind": "rebuilt", "name": "g", "type": "function",
             "recipe": f"def g(x):\n    return open({str(canary)!r}, 'w')"},
            {"kind": "rebuilt", "name": "model", "type": "Linear",
             "recipe": "model = (nn.Linear(2, 1, bias=False))",
             "state": {"weight": {"kind": "tensor", "dtype": "float32", "shape": [1, 2],
                                  "stride": [2, 1], "offset": 0, "device": "cpu", "alloc": 0,
                                  "storage": [0, 8], "role": "param"}}},
        ],
    }  # fmt: skip
    path = tmp_path / "v1.txs"
    write_members(path, {session.MANIFEST: json.dumps(manifest).encode(),
                         "data/0.bin": np.array([1.0, 2.0], np.float32).tobytes()})
    t0 = time.perf_counter()
    out = Workspace.open(path)
    assert time.perf_counter() - t0 < 3 and not canary.exists()
    assert out["t"].tolist() == [1.0, 2.0]
    assert isinstance(out["model"], session.SavedModule)
    assert out.member("model.weight").tolist() == [[1.0, 2.0]]
    assert out["model"].weight.untyped_storage().data_ptr() == out["t"].untyped_storage().data_ptr()
    assert any("older version" in n for n in out.session_notes)
    code = session.pending_code(out)
    assert code is not None and code.names == ["g", "model"]  # "loop": not one statement
    assert any("loop (a function) could not be rebuilt" in n for n in out.session_notes)
    # trusted: "g" is rebuilt (and not called), "model" is the real class over the saved data
    assert session.rebuild_code(out) == ["g", "model"]
    assert callable(out["g"]) and not canary.exists()
    assert type(out["model"]) is torch.nn.Linear and out["model"].weight.tolist() == [[1, 2]]
    assert out["model"].weight.untyped_storage().data_ptr() == out["t"].untyped_storage().data_ptr()


def test_library_modules_and_adam_open_from_data_alone(tmp_path: Path) -> None:
    ws = Workspace()
    ws.run("model = nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.BatchNorm2d(2), nn.ReLU(),"
           " nn.Flatten(), nn.Linear(2 * 4 * 4, 3, bias=False), nn.Dropout(0.25))\n"
           "x = torch.randn(5, 1, 4, 4)\n"
           "opt = torch.optim.Adam(model.parameters(), lr=0.01, betas=(0.8, 0.9))\n"
           "model(x).sum().backward(); opt.step()\nmodel.eval()")
    path = tmp_path / "s.txs"
    ws.save(path)
    members = members_of(path)
    del members[session.SIGNATURE]
    write_members(path, members)
    out = Workspace.open(path)  # foreign: nothing runs, and nothing needs to
    assert session.pending_code(out) is None and out.session_notes == ()
    m0, m1 = ws["model"], out["model"]
    assert [type(m) for m in m1.modules()] == [type(m) for m in m0.modules()]
    assert not m1.training and not m1[1].training and m1[4].bias is None
    assert torch.equal(m1[1].running_mean, m0[1].running_mean)
    assert torch.equal(m1(out["x"]), m0(ws["x"]))
    assert repr(m1) == repr(m0)
    assert optimizer_state(out["opt"]) == optimizer_state(ws["opt"])
    assert out["opt"].param_groups[0]["betas"] == (0.8, 0.9)
    assert all(p is q for p, q in zip(out["opt"].param_groups[0]["params"], m1.parameters(),
                                      strict=True))


def test_the_key_is_made_once_private_and_a_missing_place_writes_unsigned(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key_file = tmp_path / "keys" / "session-key"
    monkeypatch.setenv("TENSOR_EXPLORER_KEY_FILE", str(key_file))
    ws = Workspace()
    ws.run("x = torch.ones(2)\ndef f(u):\n    return u")
    ws.save(tmp_path / "a.txs")
    key = key_file.read_bytes()
    if sys.platform != "win32":
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    ws.save(tmp_path / "b.txs")
    assert key_file.read_bytes() == key
    assert session.pending_code(Workspace.open(tmp_path / "a.txs")) is None
    # no writable place for a key: the save still works, unsigned, and opens as foreign
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("TENSOR_EXPLORER_KEY_FILE", str(blocker / "session-key"))
    ws.save(tmp_path / "c.txs")
    assert session.SIGNATURE not in members_of(tmp_path / "c.txs")
    out = Workspace.open(tmp_path / "c.txs")
    assert out["x"].tolist() == [1.0, 1.0] and "f" not in out and is_foreign(out)
    # a damaged key file is left alone, and files are written unsigned
    key_file.write_text("not a key")
    monkeypatch.setenv("TENSOR_EXPLORER_KEY_FILE", str(key_file))
    ws.save(tmp_path / "d.txs")
    assert key_file.read_text() == "not a key"
    assert session.SIGNATURE not in members_of(tmp_path / "d.txs")


def test_a_save_removes_stale_temporary_files_of_its_target_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = time.time() - 3600
    stale = tmp_path / ".s.txs.ab_c1234.tmp"
    fresh = tmp_path / ".s.txs.zz991234.tmp"
    others = [tmp_path / ".t.txs.ab_c1234.tmp", tmp_path / ".s.txs.ab_c1234.tmp.keep",
              tmp_path / "s.txs.ab_c1234.tmp", tmp_path / ".s.txs.toolongname.tmp"]
    for p in [stale, fresh, *others]:
        p.write_bytes(b"x")
    for p in [stale, *others]:
        os.utime(p, (old, old))
    synced: list[Path] = []
    monkeypatch.setattr(session, "_fsync_folder", synced.append)
    ws = Workspace()
    ws["x"] = torch.ones(2)
    ws.save(tmp_path / "s.txs")
    assert not stale.exists() and fresh.exists() and all(p.exists() for p in others)
    assert synced == [tmp_path]  # the folder is fsync'd after the rename
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".s.txs.")) == [
        ".s.txs.ab_c1234.tmp.keep", ".s.txs.toolongname.tmp", ".s.txs.zz991234.tmp"]
