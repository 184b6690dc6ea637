"""Where shipped resources live (lessons, translations, icons, sample arrays)."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def resources_dir() -> Path:
    """The ``resources/`` folder: inside the package when installed from a wheel, else beside
    ``src/`` in a checkout (the editable install the README's commands make)."""
    for candidate in (_PACKAGE / "resources", _PACKAGE.parents[1] / "resources"):
        if candidate.is_dir():
            return candidate
    return _PACKAGE.parents[1] / "resources"
