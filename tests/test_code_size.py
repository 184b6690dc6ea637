"""A widget class fits on a few screens (STYLE.md, habit 9): no class in ``tensor_explorer.qt``
over :data:`MAX_CLASS` lines, no function or method there over :data:`MAX_FUNCTION` lines,
measured with ``ast`` (first to last line, docstring and comments included).

The exceptions below are what was too big when this test was written (issue #19, point 3),
each with its size then as a ceiling: an exception may not grow (lower the ceiling when it
shrinks), and once it fits it must leave the list. Nothing is added to it: move state and
rules into a core model, or split the widget, instead.
"""

from __future__ import annotations

import ast
from pathlib import Path

import tensor_explorer.qt as qt_package

MAX_CLASS = 500  # issue #19: "no widget class over ~500 lines, no method over ~60"
MAX_FUNCTION = 60

#: "module.py:Qualified.name" -> its size (lines) when it was listed; the list only shrinks
EXCEPTIONS: dict[str, int] = {
}


def _sizes() -> dict[str, tuple[str, int]]:
    """Every class and function in the Qt package: name -> (kind, lines)."""
    out: dict[str, tuple[str, int]] = {}
    folder = Path(qt_package.__file__).parent
    for path in sorted(folder.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))

        def visit(node: ast.AST, prefix: str, module: str) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                    name = prefix + child.name
                    kind = "class" if isinstance(child, ast.ClassDef) else "function"
                    assert child.end_lineno is not None
                    out[f"{module}:{name}"] = (kind, child.end_lineno - child.lineno + 1)
                    visit(child, name + ".", module)
                else:
                    visit(child, prefix, module)

        visit(tree, "", path.name)
    return out


def test_no_qt_class_or_method_is_too_long() -> None:
    sizes = _sizes()
    assert len(sizes) > 100  # (the package was found and read)
    too_big = []
    grew = []
    for name, (kind, lines) in sizes.items():
        limit = MAX_CLASS if kind == "class" else MAX_FUNCTION
        if lines <= limit:
            continue
        if name not in EXCEPTIONS:
            too_big.append(f"{name}: {lines} lines (at most {limit} for a {kind})")
        elif lines > EXCEPTIONS[name]:
            grew.append(f"{name}: {lines} lines, listed at {EXCEPTIONS[name]}")
    assert not too_big, "split these (STYLE.md, habit 9): " + "; ".join(too_big)
    assert not grew, "listed as too big already, and grew: " + "; ".join(grew)


def test_the_exception_list_only_shrinks() -> None:
    sizes = _sizes()
    stale = []
    for name, listed in EXCEPTIONS.items():
        kind, lines = sizes.get(name, ("gone", 0))
        limit = MAX_CLASS if kind == "class" else MAX_FUNCTION
        if lines <= limit:
            stale.append(f"{name} ({kind}, {lines} lines; listed at {listed})")
    assert not stale, "these fit now: take them off EXCEPTIONS: " + "; ".join(stale)
