"""Fuzzing: session files and programs. Bad input gives LoadError / ProgramError, nothing else.

(The ``.npy``/``.npz`` loader has its own fuzz tests in ``test_loading.py``.)
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tensor_explorer.core import session
from tensor_explorer.core.loading import LoadError
from tensor_explorer.core.runner import ProgramError
from tensor_explorer.core.workspace import Workspace

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def _session_bytes() -> bytes:
    ws = Workspace(restricted=True)
    ws.run(
        "a = np.arange(6.0).reshape(2, 3)\n"
        "t = torch.from_numpy(a)\n"
        "v = t[:, 1]\n"
        "w = torch.ones(3, requires_grad=True)\n"
        "(w * 2).sum().backward()\n"
        "e = torch.zeros(2).expand(3, 2)\n"
        "model = nn.Linear(2, 1)\n"
        "n = [1, 2.5, 'x']\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.body = nn.Sequential(nn.Linear(2, 2), nn.ReLU())\n"
        "net = Net()\n"
        "opt = torch.optim.Adam(net.parameters())\n"
        "net.body(torch.ones(2)).sum().backward()\n"
        "opt.step()\n"
    )
    buf = io.BytesIO()
    snap = session.capture(ws)
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(session.MANIFEST, json.dumps(snap.manifest))
        for i, block in enumerate(snap.blocks):
            zf.writestr(f"data/{i}.bin", b"".join(bytes(c) for c in block()))
    return buf.getvalue()


SESSION = _session_bytes()
with zipfile.ZipFile(io.BytesIO(SESSION)) as _zf:
    MANIFEST = json.loads(_zf.read(session.MANIFEST))
    DATA = {i.filename: _zf.read(i) for i in _zf.infolist() if i.filename != session.MANIFEST}


def _open_bytes(tmp_path: Path, data: bytes) -> Workspace | None:
    path = tmp_path / "fuzz.txs"
    path.write_bytes(data)
    try:
        return Workspace.open(path)
    except LoadError as exc:
        assert str(exc).startswith("fuzz.txs: ")
        return None


def test_the_seed_session_opens(tmp_path: Path) -> None:
    ws = _open_bytes(tmp_path, SESSION)
    # version 2: a module of a class of the program's own (a placeholder until trusted), an
    # optimizer with state; the class itself is code and waits for trust
    assert ws is not None and ws.names() == ["a", "t", "v", "w", "e", "model", "n", "net", "opt"]
    assert ws.member("net.body.0.weight") is not None and ws["opt"].state


@FUZZ
@given(data=st.data())
def test_mutated_session_bytes_open_or_raise_load_error(
    tmp_path: Path, data: st.DataObject
) -> None:
    raw = bytearray(SESSION)
    for _ in range(data.draw(st.integers(1, 8))):
        op = data.draw(st.sampled_from(["flip", "cut", "insert", "zero"]))
        pos = data.draw(st.integers(0, max(0, len(raw) - 1)))
        if op == "flip" and raw:
            raw[pos] ^= 1 << data.draw(st.integers(0, 7))
        elif op == "cut":
            del raw[pos : pos + data.draw(st.integers(1, 64))]
        elif op == "insert":
            raw[pos:pos] = data.draw(st.binary(min_size=1, max_size=16))
        elif op == "zero":
            raw[pos : pos + 4] = b"\0\0\0\0"
    _open_bytes(tmp_path, bytes(raw))


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                  max_size=4),
    max_leaves=12,
)  # fmt: skip


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


PATHS = _paths(MANIFEST)[1:]


@FUZZ
@given(data=st.data())
def test_manifests_with_replaced_fields_open_or_raise_load_error(
    tmp_path: Path, data: st.DataObject
) -> None:
    manifest = json.loads(json.dumps(MANIFEST))
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(PATHS))
        target: Any = manifest
        try:
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = data.draw(JSON_VALUES)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier replacement removed this path
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(session.MANIFEST, json.dumps(manifest))
        for name, blob in DATA.items():
            zf.writestr(name, blob)
    ws = _open_bytes(tmp_path, buf.getvalue())
    if ws is not None:  # whatever opened is consistent with itself
        for name in ws.names():
            value = ws[name]
            if isinstance(value, torch.Tensor) and value.device.type == "cpu":
                value.detach().clone()  # every element readable
            elif isinstance(value, np.ndarray):
                value.copy()


# ----- the runner ---------------------------------------------------------------------------

TOKENS = [
    "x", "y", "z", "a", "torch", "np", "nn", "F", ".", ",", "(", ")", "[", "]", ":", "=", "+",
    "-", "*", "/", "@", "%", "<", ">", "==", "0", "1", "2", "3", "1.5", "'s'", "True", "None",
    "\n", "    ", "if", "for", "in", "while", "def", "return", "lambda", "not", "and", "with",
    "try", "except", "del", "import", "from", "ones", "zeros", "tensor", "randn", "arange",
    "sum", "backward", "grad", "shape", "view", "t", "numpy", "from_numpy", "requires_grad",
    "detach", "item", "reshape", "expand", "mean", "float", "int", "len", "range", "print",
    "_", "__class__", "open", "eval", "lambda:", "yield", "class", "global", "+=", "[:]",
]  # fmt: skip

SEEDS = [
    "x = torch.ones(2, 3, requires_grad=True)\ny = (x * 2).sum()\ny.backward()\nz = x.grad",
    "a = np.arange(6.0)\nt = torch.from_numpy(a)\na[0] = 5\nv = t.view(2, 3)\nw = v.t()",
    "x = torch.randn(3, 4)\ny = x.t().contiguous().view(-1)\nz = x.expand(2, 3, 4)",
    "m = nn.Linear(3, 1)\nout = m(torch.ones(2, 3)).mean()\nout.backward()\ng = m.weight.grad",
    "def f(u):\n    return u * u + 1\nr = [f(i) for i in range(3)]\ns = sum(r)",
    "with torch.no_grad():\n    q = torch.ones(2) * 3\nk = q.detach().numpy()",
    "try:\n    bad = torch.ones(2) @ torch.ones(3)\nexcept RuntimeError:\n    bad = None",
]


def _run(ws: Workspace, source: str) -> None:
    before = {n: ws[n] for n in ws.names()}
    keep = ws["keep"].clone()
    try:
        ws.run(source, time_limit=2.0, max_steps=20_000)
    except ProgramError as err:
        assert err.message
    assert not ws.running
    assert "keep" in ws and ws["keep"] is before["keep"] and torch.equal(ws["keep"], keep)


@pytest.fixture
def fresh() -> Workspace:
    ws = Workspace(restricted=True)
    ws["keep"] = torch.arange(4.0)
    return ws


@FUZZ
@given(tokens=st.lists(st.sampled_from(TOKENS), min_size=1, max_size=25))
def test_token_soup_gives_success_or_program_error(fresh: Workspace, tokens: list[str]) -> None:
    _run(fresh, " ".join(tokens))


@FUZZ
@given(data=st.data())
def test_mutated_seed_programs_give_success_or_program_error(
    fresh: Workspace, data: st.DataObject
) -> None:
    source = data.draw(st.sampled_from(SEEDS))
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(["delete", "duplicate", "insert", "swap-lines"]))
        pos = data.draw(st.integers(0, len(source)))
        if op == "delete":
            source = source[:pos] + source[pos + data.draw(st.integers(1, 6)) :]
        elif op == "duplicate":
            source = source[:pos] + source[pos : pos + 8] + source[pos:]
        elif op == "insert":
            source = source[:pos] + data.draw(st.sampled_from(TOKENS)) + source[pos:]
        else:
            lines = source.split("\n")
            i, j = data.draw(st.integers(0, len(lines) - 1)), data.draw(
                st.integers(0, len(lines) - 1)
            )
            lines[i], lines[j] = lines[j], lines[i]
            source = "\n".join(lines)
    _run(fresh, source)
    _run(fresh, "x = 1")  # and the workspace still runs programs
