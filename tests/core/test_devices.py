"""tx.devices(): cpu, every cuda:N, mps; and the device check the runner uses."""

from __future__ import annotations

import pytest
import torch

import tensor_explorer as tx
from tensor_explorer.core import devices as devices_module
from tensor_explorer.core.devices import check_device


def test_cpu_first_and_one_entry_per_cuda_device() -> None:
    found = tx.devices()
    assert found[0] == "cpu"
    cuda = [d for d in found if d.startswith("cuda:")]
    expected = torch.cuda.device_count() if torch.cuda.is_available() else 0
    assert cuda == [f"cuda:{i}" for i in range(expected)]
    assert ("mps" in found) == torch.backends.mps.is_available()
    for name in found:
        torch.device(name)  # each is a name torch accepts


def test_lists_every_cuda_device_when_torch_reports_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(devices_module.torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(devices_module.torch.cuda, "device_count", lambda: 3)
    monkeypatch.setattr(devices_module.torch.backends.mps, "is_available", lambda: True)
    assert tx.devices() == ["cpu", "cuda:0", "cuda:1", "cuda:2", "mps"]


def test_check_device() -> None:
    assert check_device(None) is None
    assert check_device("cpu") == "cpu"
    assert check_device(torch.device("cpu")) == "cpu"
    assert check_device("meta") == "meta"
    with pytest.raises(ValueError, match="not a device name"):
        check_device("gpu-please")
    with pytest.raises(ValueError, match="available: cpu"):
        check_device(f"cuda:{torch.cuda.device_count() + 1}")


@pytest.mark.cuda
def test_cuda_without_index_means_the_first() -> None:
    assert check_device("cuda") == "cuda:0"
    assert check_device("cuda:0") == "cuda:0"
