"""A widget class fits on a few screens (STYLE.md, habit 9): no class in ``tensor_explorer.qt``
over :data:`MAX_CLASS` lines, no function or method there over :data:`MAX_FUNCTION` lines,
measured with ``ast`` (first to last line, docstring and comments included).

There are no exceptions (issue #19, point 3, split the last ones): a class or function that
grows past the limit moves its state and rules into a core model, or is split.
"""

from __future__ import annotations

import ast
from pathlib import Path

import tensor_explorer.qt as qt_package

MAX_CLASS = 500  # issue #19: "no widget class over ~500 lines, no method over ~60"
MAX_FUNCTION = 60

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
    too_big = [f"{name}: {lines} lines (at most {limit} for a {kind})"
               for name, (kind, lines) in sizes.items()
               if lines > (limit := MAX_CLASS if kind == "class" else MAX_FUNCTION)]
    assert not too_big, "split these (STYLE.md, habit 9): " + "; ".join(too_big)
