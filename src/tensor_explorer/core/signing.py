"""Signatures of the session files this app writes for this user. Qt-free.

A session file holds code (the source of the user's classes and functions, the statements
that made their modules). Opening one runs that code only when the file is the user's *own*:
written by this app, on this account, and not changed since. That is what the signature says:
an HMAC-SHA256, under a random key of this user's, over the manifest's bytes and the SHA-256
of every data member (see :func:`mac`).

The key (32 random bytes from :mod:`secrets`, written as hex) is made the first time a session
is saved, beside the trust store (:func:`~tensor_explorer.core.trust.store_path`'s folder),
readable by its owner only (0600); ``TENSOR_EXPLORER_KEY_FILE`` names another file (tests).
Reading or making the key never fails a save: without a key (no writable place, a damaged key
file) the file is written unsigned, and opens as a file from elsewhere would.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from collections.abc import Sequence
from pathlib import Path

from .trust import store_path

__all__ = ["KEY_BYTES", "key_path", "load_key", "mac", "verify"]

KEY_BYTES = 32
_DOMAIN = b"tensor-explorer-session-signature\x00v2\x00"


def key_path() -> Path:
    """Where this user's signing key is kept."""
    env = os.environ.get("TENSOR_EXPLORER_KEY_FILE")
    if env:
        return Path(env)
    return store_path().parent / "session-key"


def _read(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as f:
            text = f.read(4 * KEY_BYTES)
    except OSError:
        return None
    try:
        key = bytes.fromhex(text.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        return None
    return key if len(key) == KEY_BYTES else None


def load_key(*, create: bool = False) -> bytes | None:
    """This user's key; with ``create``, made (0600) when there is none yet. None when there is
    no key and none can be made, or the key file is damaged (it is then left as it is)."""
    path = key_path()
    key = _read(path)
    if key is not None or not create or path.exists():
        return key
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it meanwhile: use theirs
        return _read(path)
    except OSError:
        return None
    key = secrets.token_bytes(KEY_BYTES)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(key.hex() + "\n")
            f.flush()
            os.fsync(f.fileno())
    except OSError:
        path.unlink(missing_ok=True)
        return None
    return key


def mac(key: bytes, manifest: bytes, digests: Sequence[tuple[int, str]]) -> str:
    """The signature (hex) of a session whose manifest is ``manifest`` (its bytes as stored,
    before compression) and whose data members, in order, have these (size, SHA-256 hex)."""
    h = hmac.new(key, _DOMAIN, hashlib.sha256)
    h.update(len(manifest).to_bytes(8, "little"))
    h.update(manifest)
    h.update(len(digests).to_bytes(8, "little"))
    for size, digest in digests:
        h.update(size.to_bytes(8, "little"))
        h.update(bytes.fromhex(digest))
    return h.hexdigest()


def verify(key: bytes | None, manifest: bytes, digests: Sequence[tuple[int, str]],
           signature: str) -> bool:
    """Whether ``signature`` is this user's for that manifest and data (constant time)."""
    if key is None:
        return False
    try:
        expected = mac(key, manifest, digests)
    except ValueError:  # a digest that is not hex
        return False
    return hmac.compare_digest(expected, signature)
