"""Requests that would exhaust memory are refused before anything is allocated."""

from __future__ import annotations

import pytest
import torch

from tensor_explorer.core import sandbox
from tensor_explorer.core.runner import ProgramError
from tensor_explorer.core.workspace import Workspace

GIB = 1 << 30


@pytest.fixture
def one_gib(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pretend 1 GiB is available, so nothing big is ever allocated by these tests."""
    monkeypatch.setattr(sandbox, "available_memory", lambda device=None: GIB)


REFUSED = [
    "x = torch.zeros(10**12)",
    "x = torch.ones(2**15, 2**15)",
    "x = torch.empty((2**16, 2**15), dtype=torch.uint8)",
    "x = torch.full((2**15, 2**15), 1.0)",
    "x = torch.rand(size=(2**15, 2**15))",
    "x = torch.randn(2**30)",
    "x = torch.randint(0, 9, (2**28,))",
    "x = torch.randperm(2**28)",
    "x = torch.arange(2**28)",
    "x = torch.arange(0, 1, 2**-28)",
    "x = torch.linspace(0, 1, 2**29)",
    "x = torch.eye(2**15)",
    "x = torch.empty_strided((2**15, 2**15), (2**15, 1))",
    "x = np.zeros((2**15, 2**15))",
    "x = np.empty(2**28, dtype=np.float32)",
    "x = np.full((2**15, 2**15), 3)",
    "x = np.arange(2**28)",
    "x = np.linspace(0, 1, num=2**28)",
    "x = np.eye(2**15)",
    "x = np.random.rand(2**15, 2**15)",
    "x = np.random.normal(0, 1, size=(2**15, 2**15))",
    "x = np.random.randint(0, 5, (2**15, 2**15))",
    "import torch as T\nx = T.zeros(10**12)",
    "from torch import zeros\nx = zeros(10**12)",
]


@pytest.mark.parametrize("source", REFUSED)
def test_huge_factory_requests_are_refused_up_front(one_gib: None, source: str) -> None:
    ws = Workspace(restricted=True)
    ws["keep"] = torch.ones(3)
    with pytest.raises(ProgramError) as info:
        ws.run(source)
    err = info.value
    assert err.error_type == "MemoryError"
    assert "refused before allocating" in err.message and "GiB" in err.message
    assert err.kind == "out-of-memory"
    assert "x" not in ws and torch.equal(ws["keep"], torch.ones(3))


ALLOWED = [
    "x = torch.empty(2**25)",  # 128 MiB of 1 GiB: fine (empty: nothing is touched)
    "x = torch.zeros(10**12, device='meta')",  # no memory at all
    "x = torch.ones(3).expand(10**9, 3)",  # a view: no new memory
    "x = torch.empty_strided((2**20, 2**20), (0, 0))",  # one element, 2**40 readers
    "x = torch.zeros(0, 10**12)",
    "x = np.zeros(3)",
    "x = torch.zeros(2, 3, dtype=torch.float64)",
    "x = torch.arange(5, 0, -1)",
    "x = torch.full(size=(2, 2), fill_value=7)",
]


@pytest.mark.parametrize("source", ALLOWED)
def test_reasonable_requests_still_run(one_gib: None, source: str) -> None:
    ws = Workspace(restricted=True)
    assert ws.run(source) == ["x"]


def test_device_context_is_respected(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[object] = []

    def free(device: object = None) -> int:
        asked.append(device)
        return GIB

    monkeypatch.setattr(sandbox, "available_memory", free)
    ws = Workspace(restricted=True)
    with pytest.raises(ProgramError):
        ws.run("x = torch.zeros(2**30)", device="cpu")
    ws.run("x = torch.zeros(2**30)", device="meta")
    assert str(asked[0]) == "cpu"


def test_available_memory_is_measured() -> None:
    free = sandbox.available_memory("cpu")
    assert free is None or free > 0
    assert sandbox.available_memory("meta") is None
    sandbox.check_request("small", 1024)  # below the threshold: never even measured


@pytest.mark.parametrize("source", [
    "big = 10 ** (4 * 10 ** 6)",
    "big = 10 ** 10 ** 10",
    "big = pow(7, 10 ** 8)",
    "big = 1 << 10 ** 9",
    "s = 'x' * 10 ** 9",
    "s = [0] * 10 ** 9",
    "n = 3\nn **= 10 ** 8",
])
def test_runaway_integers_and_repeats_are_refused_at_once(source: str) -> None:
    from tensor_explorer.core.runner import ProgramError
    from tensor_explorer.core.workspace import Workspace

    ws = Workspace(restricted=True)
    ws.run("keep = 1")
    with pytest.raises(ProgramError, match="too large to compute here"):
        ws.run(source)  # (refused before computing: computing it would not end)
    assert ws.names() == ["keep"] or ws.names() == ["keep", "n"]


def test_sized_operators_keep_their_meaning() -> None:
    import torch

    from tensor_explorer.core.workspace import Workspace

    ws = Workspace(restricted=True)
    ws.run("x = torch.ones(3)\ny = x\nx *= 2\nz = 2 ** 100\ns = 'ab' * 3\nq = pow(3, 4, 5)\n"
           "m = x * x\nk = 1 << 70\nl = [1] * 3")
    assert torch.equal(ws["y"], torch.full((3,), 2.0))  # *= stayed in place: the alias changed
    assert ws["z"] == 2 ** 100 and ws["s"] == "ababab" and ws["q"] == pow(3, 4, 5)
    assert torch.equal(ws["m"], torch.full((3,), 4.0)) and ws["k"] == 1 << 70
    assert ws["l"] == [1, 1, 1]
