"""Which program and lesson files the user trusts to run as full Python (as editors do it).

Code the user types is theirs and always runs as full Python. Code that arrives in a file
(a lesson, a ``.py`` program) runs in the restricted runner until the user trusts it. Trust is
remembered by the file's *content* (SHA-256), so an edited file asks again; the lessons shipped
with the application are always trusted. The remembered hashes live in one small JSON file
(``TENSOR_EXPLORER_TRUST_FILE``, else the user's data folder). Qt-free.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
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
