"""Where shipped resources live (lessons, translations, icons, sample arrays)."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def resources_dir() -> Path:
    """The ``resources/`` folder: beside ``src/`` in a checkout (the editable install the
    README's commands make), else inside the package."""
    for candidate in (_PACKAGE.parents[1] / "resources", _PACKAGE / "resources"):
        if candidate.is_dir():
            return candidate
    return _PACKAGE.parents[1] / "resources"
