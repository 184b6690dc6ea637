"""The catalog of the core's messages: every code in both languages with the same fields, every
message site names a code, and the modules that write messages hold no Chinese of their own
(so nothing is translated back from its English)."""

from __future__ import annotations

import ast
import copy
import pickle
import re
import string
from pathlib import Path

import pytest

import tensor_explorer
from tensor_explorer.core import catalog
from tensor_explorer.core.catalog import CATALOG, LANGUAGES, Message, render, text_in
from tests.core.text_checks import CJK as _CJK

_SRC = Path(tensor_explorer.__file__).resolve().parent

#: Chinese punctuation: a template may be Chinese by its punctuation alone ("{a}：{b}")
_ZH_MARKS = re.compile(r"[\u4e00-\u9fff\u3000-\u303f\uff00-\uffef]")
#: the functions whose first argument (``_refuse``: second) is a catalog code
_CODE_CALLS = {"Message": 0, "render": 0, "refuse": 0, "_refuse": 1}


def _fields(template: str) -> set[tuple[str, str | None]]:
    return {(name, conv) for _t, name, _spec, conv in string.Formatter().parse(template)
            if name is not None}


@pytest.mark.parametrize("code", sorted(CATALOG))
def test_every_code_has_every_language_with_the_same_fields(code: str) -> None:
    templates = CATALOG[code]
    assert set(templates) == set(LANGUAGES), code
    assert all(templates[lang].strip() for lang in LANGUAGES), code
    assert _fields(templates["zh"]) == _fields(templates["en"]), code
    assert templates["zh"] != templates["en"] and _ZH_MARKS.search(templates["zh"]), code
    assert not _CJK.search(templates["en"]), code


def _code_sites() -> list[tuple[str, int, ast.expr]]:
    """(file, line, argument) of every call that names a catalog code, in the package."""
    sites = []
    for path in sorted(_SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # the catalog's names this module imports (graph_session.py has a Message of its own)
        names = {alias.asname or alias.name for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("catalog")
                 for alias in node.names}
        if path.name == "sandbox.py":
            names |= {"refuse", "_refuse"}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            name = node.func.id
            where = _CODE_CALLS.get(name)
            if where is None or name not in names or len(node.args) <= where:
                continue
            sites.append((str(path.relative_to(_SRC)), node.lineno, node.args[where]))
    return sites


def test_every_message_site_names_a_code_of_the_catalog() -> None:
    sites = _code_sites()
    assert len(sites) >= 60
    bad = []
    for path, line, arg in sites:
        if isinstance(arg, ast.Constant):
            if arg.value not in CATALOG:
                bad.append(f"{path}:{line}: {arg.value!r} is not a code")
        elif isinstance(arg, ast.JoinedStr | ast.BinOp):
            bad.append(f"{path}:{line}: a message written as text: {ast.unparse(arg)}")
    assert not bad, "\n".join(bad)


def test_every_code_is_used() -> None:
    used: set[str] = set()
    for path in sorted(_SRC.rglob("*.py")):
        if path.name == "catalog.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        used |= {n.value for n in ast.walk(tree)
                 if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    assert sorted(set(CATALOG) - used) == []


@pytest.mark.parametrize("module", ["core/runner.py", "core/sandbox.py", "core/devices.py"])
def test_the_message_writers_hold_no_chinese_and_no_translation_tables(module: str) -> None:
    # the Chinese of what they write is in the catalog, keyed by code: no module reads its own
    # English back to translate it
    source = (_SRC / module).read_text(encoding="utf-8")
    assert not _CJK.search(source)
    assert "_ZH" not in source and "re.sub(" not in source


def test_no_core_module_but_the_catalog_holds_chinese() -> None:
    # one catalog: explanations, diagnoses, the graph pane's labels, the lesson checker's and the
    # loaders' words, the memory panel's phrases... all live in catalog.py; a module that kept
    # its own English/Chinese pairs (or a table from English to Chinese) would show up here
    core = sorted((_SRC / "core").glob("*.py"))
    assert len(core) > 30
    holding = [p.name for p in core
               if p.name != "catalog.py" and _CJK.search(p.read_text(encoding="utf-8"))]
    assert holding == []


def test_message_is_its_english_and_renders_in_chinese() -> None:
    m = Message("refused.import", name="os")
    assert m == "import of 'os' is not available" and isinstance(m, str)
    assert m.render("zh") == "不能导入 'os'" and m.render("en") == m
    assert m.render("fr") == m  # no such language: the English
    assert text_in(m, "zh") == "不能导入 'os'" and text_in("torch's words", "zh") == "torch's words"
    with pytest.raises(KeyError):
        Message("no.such.code")
    # a list takes the language's separator; a nested message its language; a mapping its own
    note = Message("note.too-large", names=("a", "b"))
    assert note.startswith("a, b may have been") and note.render("zh").startswith("a、b 可能")
    outer = Message("error.refused", reason=Message("refused.advised",
                                                    reason=Message("refused.frames")))
    assert outer.render("zh") == ("已拒绝：解释器的栈帧和代码对象不可用；"
                                  "信任这个课程或程序即可把它作为完整的 Python 运行")
    assert render("note.warning", "zh", category="W", message="m",
                  plain={"en": "e", "zh": "中"}) == "W: m（中）"


def test_message_pickles_and_copies_with_its_code() -> None:
    m = Message("note.inside", function="f()")
    for other in (pickle.loads(pickle.dumps(m)), copy.copy(m), copy.deepcopy(m)):
        assert isinstance(other, Message) and other == m
        assert other.code == m.code and other.render("zh") == m.render("zh")


def test_the_catalog_is_qt_free() -> None:
    source = Path(catalog.__file__).read_text(encoding="utf-8")
    assert "PySide6" not in source and "from ..qt" not in source


def test_a_message_lists_its_codes_nested_ones_too() -> None:
    inner = Message("load.no-file")
    outer = Message("load.failed", name="x.npy", why=inner)
    assert outer.codes() == {"load.failed", "load.no-file"}
    assert inner.codes() == {"load.no-file"}
