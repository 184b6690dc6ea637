"""Session files as their zip members, for tests that take one apart (a foreign copy without
its signature, a tampered byte) and put it back together."""

from __future__ import annotations

import zipfile
from pathlib import Path


def members_of(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {i.filename: zf.read(i) for i in zf.infolist()}


def write_members(path: Path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)


def unsigned_copy(own: Path, foreign: Path) -> None:
    """``own`` written again to ``foreign`` without its signature: a file from elsewhere."""
    from tensor_explorer.core import session

    members = members_of(own)
    del members[session.SIGNATURE]
    write_members(foreign, members)
