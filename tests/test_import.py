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


def test_every_core_module_imports_without_qt() -> None:
    # every module of core, not only those the public API reaches (lint-imports checks the
    # imports inside functions too; this checks what importing them really loads)
    from pathlib import Path

    import tensor_explorer.core as core

    names = sorted(p.stem for p in Path(core.__file__).parent.glob("*.py") if p.stem != "__init__")
    assert len(names) > 25
    mods = _modules_after("".join(f"import tensor_explorer.core.{n}\n" for n in names))
    assert [f"tensor_explorer.core.{n}" in mods for n in names] == [True] * len(names)
    assert not [m for m in mods if m.startswith(QT_PREFIXES)]


def test_the_import_contract_is_enforced() -> None:
    # scripts/test runs lint-imports; the contract must name core and every Qt package
    import tomllib
    from pathlib import Path

    conf = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    (contract,) = [c for c in conf["tool"]["importlinter"]["contracts"]
                   if c["source_modules"] == ["tensor_explorer.core"]]
    assert contract["type"] == "forbidden"
    assert contract["source_modules"] == ["tensor_explorer.core"]
    assert set(contract["forbidden_modules"]) >= {"tensor_explorer.qt", "PySide6", "pyqtgraph"}
    script = (Path(__file__).parents[1] / "scripts" / "test").read_text()
    assert ".venv/bin/lint-imports" in script


def test_no_module_imports_another_modules_private_names() -> None:
    # A module's "_name" is its own: another module that needs it gets a public name (issue
    # #19: session.py used the workspace's private _check_name; lessons.py, graph_texts.py and
    # others imported runner's, autograd's and stats' private helpers). Caught both ways:
    # `from .x import _y` (relative or absolute) and `x._y` on a module imported by name.
    import ast
    from pathlib import Path

    import tensor_explorer

    package = Path(tensor_explorer.__file__).parent
    found = []
    for path in sorted(package.rglob("*.py")):
        where = str(path.relative_to(package))
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules: set[str] = set()  # names bound to our own modules in this file
        for node in ast.walk(tree):
            ours = isinstance(node, ast.ImportFrom) and (
                node.level > 0 or (node.module or "").startswith("tensor_explorer"))
            if ours:
                assert isinstance(node, ast.ImportFrom)
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        found.append(f"{where}: from {node.module} import {alias.name}")
                    modules.add(alias.asname or alias.name)  # (a module, or a name: see below)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in modules and node.attr.startswith("_")
                    and not node.attr.startswith("__")):
                found.append(f"{where}: {node.value.id}.{node.attr}")
    assert not found, found
