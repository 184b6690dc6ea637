"""`import tensor_explorer` must not import Qt (checked in a fresh interpreter)."""

from __future__ import annotations

import json
import subprocess
import sys

QT_PREFIXES = ("PySide6", "shiboken6", "pyqtgraph", "tensor_explorer.qt", "PyQt5", "PyQt6")


def _modules_after(code: str) -> list[str]:
    probe = code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_import_package_loads_no_qt() -> None:
    mods = _modules_after("import tensor_explorer")
    assert not [m for m in mods if m.startswith(QT_PREFIXES)]


def test_public_api_names_resolve_without_qt() -> None:
    code = (
        "import tensor_explorer as tx\n"
        "for n in tx.__all__:\n"
        "    if n != 'explore':\n"
        "        getattr(tx, n)\n"
    )
    mods = _modules_after(code)
    assert not [m for m in mods if m.startswith(QT_PREFIXES)]


def test_all_lists_every_lazy_export() -> None:
    import tensor_explorer as tx

    assert set(tx.__all__) == set(tx._EXPORTS) | {"__version__"}
