"""Shared test set-up: Qt offscreen, deterministic torch, small helpers."""

from __future__ import annotations

import os
from collections.abc import Iterator

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
import torch

CUDA = torch.cuda.is_available()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``@pytest.mark.cuda`` (declared in pyproject.toml): the one way a test says it needs a
    CUDA device; without one it is skipped, and says so."""
    if CUDA:
        return
    skip = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if item.get_closest_marker("cuda") is not None:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _seed() -> None:
    torch.manual_seed(0)


@pytest.fixture(scope="session", autouse=True)
def _no_user_files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Module- and session-scoped fixtures (made before any test's own fixtures) do not reach
    the real user's trust store or session-signing key either."""
    home = tmp_path_factory.mktemp("user-session")
    keys = ("TENSOR_EXPLORER_TRUST_FILE", "TENSOR_EXPLORER_KEY_FILE")
    before = {k: os.environ.get(k) for k in keys}
    os.environ["TENSOR_EXPLORER_TRUST_FILE"] = str(home / "trusted.json")
    os.environ["TENSOR_EXPLORER_KEY_FILE"] = str(home / "session-key")
    yield
    for k, v in before.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(autouse=True)
def _user_files(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the real user's trust store or session-signing key: both point
    into a folder of the test's own (not its ``tmp_path``, which tests list). A test may point
    them elsewhere with its own ``monkeypatch.setenv``."""
    home = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("TENSOR_EXPLORER_TRUST_FILE", str(home / "trusted.json"))
    monkeypatch.setenv("TENSOR_EXPLORER_KEY_FILE", str(home / "session-key"))
