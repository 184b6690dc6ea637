"""Which program and lesson files the user trusts to run as full Python (as editors do it).

Code the user types is theirs and always runs as full Python. Code that arrives in a file
(a lesson, a ``.py`` program) runs in the restricted runner until the user trusts it. Trust is
remembered by the file's *content* (SHA-256), so an edited file asks again; the lessons shipped
with the application are always trusted. The remembered hashes live in one small JSON file
(``TENSOR_EXPLORER_TRUST_FILE``, else the user's data folder). Qt-free.

**One decision, every route.** :func:`decide` is the only place that says how a file's code
runs, and every route that runs code from a file calls it: the window (File ▸ Open, drop, the
command line, recent files, the lesson panel), ``open_into`` (and so ``screenshot``),
``check``, lesson steps and their ``expect:`` lines (through the lesson's decision), and
session files (which are data; their code is rebuilt only when :func:`decide` says the file is
the user's own). ``tests/core/test_trust_routes.py`` finds those routes in the code and runs
the same hostile files through each.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from ..paths import resources_dir

MAX_REMEMBERED = 10_000  # hashes kept (oldest forgotten first)
_lock = threading.Lock()


def store_path() -> Path:
    """Where the trusted hashes are kept."""
    env = os.environ.get("TENSOR_EXPLORER_TRUST_FILE")
    if env:
        return Path(env)
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "tensor-explorer" / "trusted.json"


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read_store() -> list[str]:
    try:
        data = json.loads(store_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    hashes = data.get("sha256") if isinstance(data, dict) else None
    return [h for h in hashes if isinstance(h, str)] if isinstance(hashes, list) else []


def is_shipped(path: str | os.PathLike[str]) -> bool:
    """A lesson that ships with the application (always trusted)."""
    try:
        return Path(path).resolve().is_relative_to((resources_dir() / "lessons").resolve())
    except OSError:
        return False


def is_trusted(path: str | os.PathLike[str], data: bytes | None = None) -> bool:
    """Whether the file at ``path`` (whose bytes are ``data`` when already read) runs as full
    Python: a shipped lesson, or content the user trusted before."""
    if is_shipped(path):
        return True
    if data is None:
        try:
            data = Path(path).read_bytes()
        except OSError:
            return False
    return content_hash(data) in set(_read_store())


@dataclass(frozen=True)
class Decision:
    """How a file's code runs: as full Python (``full``) or in the restricted runner, and why:
    ``"shipped"`` (a lesson of the app), ``"own"`` (a session this app wrote for this user,
    signed), ``"asked"`` (``--trust``, or the trust bar's button for this run),
    ``"remembered"`` (content the user trusted before), or ``"untrusted"``."""

    full: bool
    reason: str

    @property
    def restricted(self) -> bool:
        return not self.full


def decide(path: str | os.PathLike[str] | None, data: bytes | None = None, *,
           asked: bool = False, own: bool = False) -> Decision:
    """How the code of the file at ``path`` (whose bytes are ``data`` when already read) runs.

    The one decision every route calls (see the module docstring). ``asked``: the user asked
    for it to run as full Python now (``--trust``, the Trust button); ``own``: the file is a
    session this app wrote for this user (its signature checked by the caller). Anything else
    runs restricted, never as full Python, whatever the workspace it runs in."""
    if path is not None and is_shipped(path):
        return Decision(True, "shipped")
    if own:
        return Decision(True, "own")
    if asked:
        return Decision(True, "asked")
    if path is not None and is_trusted(path, data):
        return Decision(True, "remembered")
    return Decision(False, "untrusted")


def trust(data: bytes) -> None:
    """Remember ``data`` (a file's content) as trusted. Raises ``OSError`` when the store
    cannot be written."""
    digest = content_hash(data)
    with _lock:
        hashes = [h for h in _read_store() if h != digest]
        hashes.append(digest)
        path = store_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"sha256": hashes[-MAX_REMEMBERED:]}, indent=0),
                       encoding="utf-8")
        tmp.replace(path)


def trust_file(path: str | os.PathLike[str]) -> None:
    """Remember the file at ``path``, as it is now, as trusted."""
    trust(Path(path).read_bytes())
