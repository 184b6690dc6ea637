"""Opening things into a workspace: ``.npy``/``.npz`` files and ``.py`` programs.

`open_into(ws, path)` is what the command line, the File menu, drag-and-drop, ``screenshot``
and ``explore`` share. Lessons and session files plug in here as they arrive.
"""

from __future__ import annotations

import keyword
import os
import unicodedata
from pathlib import Path

from .catalog import Message
from .loading import LoadError, load_arrays, load_path
from .runner import ProgramError
from .session import is_session
from .trust import decide
from .workspace import Workspace, check_name

MAX_PROGRAM_BYTES = 1 << 20
#: the suffix the app gives session files
SESSION_SUFFIX = ".txs"
KINDS = (".npy", ".npz", ".py", ".md", SESSION_SUFFIX)


def value_name(stem: str, taken: set[str] | None = None) -> str:
    """A valid, unused Python name for a value from a file called ``stem``: one the workspace
    takes (:func:`~.workspace.check_name`), so a member named after a pre-bound module
    (``np.savez(..., F=forces)``) becomes ``F_data``. The name is NFKC-normalized, as Python
    normalizes the names in code (else code could not reach the value)."""
    stem = unicodedata.normalize("NFKC", stem)
    name = "".join(c if ("a" + c).isidentifier() else "_" for c in stem)  # (not re's \w: "x²")
    name = name.lstrip("_") or "value"
    if not name.isidentifier() or keyword.iskeyword(name):  # (it starts with a digit)
        name = f"a_{name}"
    try:
        check_name(name)
    except ValueError:  # np, F, nn, torch: the workspace's own modules
        name = f"{name}_data"
    taken = taken or set()
    base, n = name, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    return name


def replaces_workspace(path: str | Path) -> bool:
    """Whether opening ``path`` replaces the workspace's contents (a session file) rather
    than adding to them."""
    p = Path(path)
    suffix = p.suffix.lower()
    return suffix == SESSION_SUFFIX or (suffix not in (".py", ".npy", ".npz") and is_session(p))


def read_program(p: Path) -> str:
    """The text of the program file ``p`` (see :func:`read_program_bytes`)."""
    return read_program_bytes(p)[1]


def read_program_bytes(p: Path) -> tuple[bytes, str]:
    """The bytes (what trust is given to) and text of the program file ``p``;
    :class:`LoadError` (a catalog message) when it is a folder, too large, missing, not UTF-8
    or unreadable."""
    why: Message
    try:
        if p.is_dir():
            why = Message("load.folder-program")
        elif (size := p.stat().st_size) > MAX_PROGRAM_BYTES:  # (not read to find out)
            why = Message("load.program-too-large", nbytes=size)
        else:
            data = p.read_bytes()
            return data, data.decode("utf-8")
    except FileNotFoundError:
        why = Message("load.no-file")
    except UnicodeDecodeError:
        why = Message("load.not-utf8")
    except OSError as exc:
        why = Message("load.unreadable", why=str(exc.strerror or exc))
    raise LoadError(Message("load.failed", name=p.name, why=why))


def open_into(
    ws: Workspace, path: str | os.PathLike[str], device: str | None = None, *,
    trust: bool = False,
) -> list[str]:
    """Load ``path`` into ``ws``; return the names added or changed.

    A ``.py`` program or a lesson file runs as :func:`.trust.decide` says, whatever the
    workspace's own mode: restricted unless shipped, remembered as trusted, or ``trust``
    (``--trust``). A session file (``.txs``, or any file that is one) *replaces* the
    workspace's contents.
    Raises :class:`LoadError` for a file that cannot be read (nothing in ``ws`` changes) and
    :class:`ProgramError` for a ``.py`` program that fails (statements before the failing one
    keep their effect, as in :meth:`Workspace.run`).
    """
    from .lessons import LessonError, is_lesson, load_lesson, run_lesson

    if is_lesson(path):  # a lesson file or a shipped lesson's name: run its first step
        try:
            lesson = load_lesson(path, asked=trust)
        except LessonError as exc:
            raise LoadError(exc.message) from None  # a Message: said in the reader's language
        results = run_lesson(lesson, ws, device=device, upto=1)
        return [n for n in results[0].names if n in ws] if results else []
    p = Path(path)
    suffix = p.suffix.lower()
    if replaces_workspace(p):
        return ws.load_session(p)  # replaces the workspace (LoadError: nothing changes)
    if suffix == ".py":
        data, text = read_program_bytes(p)
        decision = decide(p, data, asked=trust)
        return ws.run(text, device=device, restricted=decision.restricted)
    if suffix == ".npz":
        arrays = dict(load_arrays(p))  # all members read before anything is bound
    elif suffix == ".npy":
        arrays = {p.stem: load_path(p)[p.stem]}
    else:
        arrays = load_path(p)  # decided by content; raises LoadError for anything else
    # Everything is loaded before anything is bound; opening a file again replaces its values.
    names: list[str] = []
    taken: set[str] = set()
    for key in arrays:  # (one running set: 20,000 members stay linear)
        name = value_name(key, taken)
        taken.add(name)
        names.append(name)
    whole = suffix != ".npz" and len(arrays) == 1  # a .npy: the file is the value
    for name, (key, array) in zip(names, arrays.items(), strict=True):
        ws.set(name, array, file=str(p) if whole else f"{p} [{key}]")
    return names


__all__ = ["KINDS", "SESSION_SUFFIX", "LoadError", "ProgramError", "open_into", "value_name"]
