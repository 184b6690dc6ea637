"""The sandbox's refusal reasons in Chinese: every ``refuse``/``_refuse`` names a catalog code,
every code it uses has a Chinese form (names and code kept as written), and the English stays
exactly as it was."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest
import torch

import tensor_explorer as tx
from tensor_explorer.core import sandbox
from tensor_explorer.core.catalog import CATALOG, Message, fields
from tensor_explorer.core.runner import ProgramError, refusal_in
from tests.core.test_sandbox import ESCAPES
from tests.core.text_checks import CJK as _CJK

#: three English words in a row (outside quotes) is an untranslated sentence
_ENGLISH = re.compile(r"(?<![\w.'])[A-Za-z]{2,}(?: [A-Za-z]{2,}){2,}")
_QUOTED = re.compile(r"'[^']*'")

#: the import refusal lists the importable modules: code, not a sentence
_MODULE_LIST = re.compile(r"[\w.]+(?: / [\w.]+)+")

#: more programs for the refusals test_sandbox.py's escapes do not reach
MORE = {
    "dataloader-worker-init": (
        "dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x), "
        "worker_init_fn=print)"
    ),
    "attribute-annotation": "model.y: int",
    "attribute-tuple-target": "model.a, model.b = 1, 2",
    "unknown-torch-name": "y = torch.no_such_thing",
    "storage-attr": "s = x.untyped_storage().nbytes()\nt = x.untyped_storage().filename",
    "module-value": "m = [torch]\nt = type(m[0])",
    "from-relative": "from .. import y",
}


def _untranslated(text: str) -> list[str]:
    return _ENGLISH.findall(_MODULE_LIST.sub("", _QUOTED.sub("", text)))


def _assert_chinese(zh: str, en: str) -> None:
    assert zh != en, en
    assert _CJK.search(zh), zh
    assert not _untranslated(zh), (zh, _untranslated(zh))


@pytest.fixture(scope="module")
def ws() -> tx.Workspace:
    ws = tx.Workspace(restricted=True)
    ws["path"] = "/nonexistent/folder/canary.txt"
    ws["newpath"] = "/nonexistent/folder/new.bin"
    ws["x"] = torch.arange(4.0)
    ws["a"] = np.arange(4.0)
    ws["model"] = torch.nn.Linear(2, 2)
    ws.run("gen = (i for i in range(3))")
    return ws


@pytest.mark.parametrize("source", [*ESCAPES.values(), *MORE.values()],
                         ids=[*ESCAPES, *MORE])
def test_every_refusal_headline_is_chinese(ws: tx.Workspace, source: str) -> None:
    with pytest.raises(ProgramError) as info:
        ws.run(source)
    err = info.value
    if err.kind != "refused":
        return  # a removed builtin: a NameError, explained by explain.py
    assert err.headline == f"Refused: {err.torch_message}."
    zh = err.headline_in("zh")
    assert zh.startswith("已拒绝：")
    _assert_chinese(zh, err.headline)
    text = err.text("zh")
    assert zh in text and "Refused" not in text
    # the English is untouched
    assert err.text("en") == str(err) and "已拒绝" not in str(err)


def _code_arg(call: ast.Call) -> ast.expr | None:
    """The argument of a ``refuse(...)``/``_refuse(node, ...)`` call that names the message."""
    assert isinstance(call.func, ast.Name)
    args = call.args[1:] if call.func.id == "_refuse" else call.args
    return args[0] if args else None


def _sandbox_codes() -> list[str]:
    """The catalog codes sandbox.py refuses with; fails on a refusal written as text."""
    tree = ast.parse(Path(sandbox.__file__).read_text(encoding="utf-8"))
    found: list[str] = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("refuse", "_refuse", "Message")):
            arg = node.args[0] if node.func.id == "Message" else _code_arg(node)
            if isinstance(arg, ast.Constant):
                assert isinstance(arg.value, str) and arg.value in CATALOG, (
                    f"line {node.lineno}: {arg.value!r} is not a catalog code")
                found.append(arg.value)
            else:
                # a Message made elsewhere: attr_refusal(...)'s ``why``, _import_refusal(...)
                assert isinstance(arg, ast.Name | ast.Call), (
                    f"line {node.lineno}: a refusal must be a catalog code, not "
                    f"{ast.unparse(arg) if arg else 'nothing'}")
    found += sandbox._REFUSED_NODES.values()
    return sorted(set(found))


CODES = _sandbox_codes()


def _sample(code: str) -> Message:
    """``code`` with sample values in its fields (a list where the field takes one)."""
    lists = {"allowed", "modules", "names", "available"}
    params: dict[str, object] = {}
    for name in fields(CATALOG[code]["en"]):
        if name == "construct":
            params[name] = Message("construct.async-functions")
        elif name == "reason":
            params[name] = Message("refused.frames")
        else:
            params[name] = ("sample", "other") if name in lists else "sample"
    return Message(code, **params)


def test_the_codes_were_found() -> None:
    assert len(CODES) >= 40
    assert {"refused.import", "refused.import-only", "refused.member", "refused.construct",
            "refused.advised", "construct.class-keywords"} <= set(CODES)


@pytest.mark.parametrize("code", CODES)
def test_every_sandbox_message_has_a_chinese_form(code: str) -> None:
    message = _sample(code)
    zh = refusal_in(message, "zh")
    if code.startswith("construct."):  # a part of refused.construct, not a sentence
        assert zh != message and _CJK.search(zh), zh
        return
    _assert_chinese(zh, message)
    # names and code stay as written
    for name in re.findall(r"'[^']*'|\w+=|\w+\(\)|\bsample\b", message):
        assert name in zh, (name, zh)
    assert refusal_in(message, "en") == message == message.render("en")


def test_text_that_is_not_a_catalog_message_is_kept() -> None:
    assert refusal_in("something new", "zh") == "something new"
    with pytest.raises(KeyError):
        sandbox.refuse(str(Message("refused.frames")))  # an English sentence is not a code
    with pytest.raises(TypeError):
        sandbox.Refused("modules cannot be changed from a program")  # nor a refusal's text


def test_import_refusal_lists_the_modules_in_chinese_punctuation() -> None:
    zh = refusal_in(sandbox._import_refusal("os"), "zh")
    assert zh.startswith("不能导入 'os'：程序只能导入 torch、numpy、math 以及 torch.nn / ")
    assert zh.endswith("numpy.random / numpy.linalg")
