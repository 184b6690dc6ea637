"""The sandbox's refusal reasons in Chinese: every message ``refuse``/``_refuse`` can produce has
a Chinese form (names and code kept as written), and the English stays exactly as it was."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest
import torch

import tensor_explorer as tx
from tensor_explorer.core import sandbox
from tensor_explorer.core.runner import ProgramError, refusal_in
from tests.core.test_sandbox import ESCAPES

#: three English words in a row (outside quotes) is an untranslated sentence
_ENGLISH = re.compile(r"(?<![\w.'])[A-Za-z]{2,}(?: [A-Za-z]{2,}){2,}")
_QUOTED = re.compile(r"'[^']*'")
_CJK = re.compile(r"[\u4e00-\u9fff]")
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


def _sample(node: ast.expr) -> str | None:
    """The text of a message literal with sample values in its fields (None: not a literal)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            else:
                assert isinstance(value, ast.FormattedValue)
                parts.append("'sample'" if value.conversion == ord("r") else "sample")
        return "".join(parts)
    return None


def _sandbox_messages() -> list[str]:
    tree = ast.parse(Path(sandbox.__file__).read_text(encoding="utf-8"))
    found: list[str] = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("refuse", "_refuse")):
            text = _sample(node.args[-1])
            if text is not None:
                found.append(text)
        elif isinstance(node, ast.FunctionDef) and node.name in ("attr_refusal",
                                                                  "_import_refusal"):
            for ret in ast.walk(node):
                if isinstance(ret, ast.Return) and ret.value is not None:
                    text = _sample(ret.value)
                    if text is not None:
                        found.append(text)
    # "{kind} are not available in the restricted runner", kind from the refused nodes
    kinds = [*sandbox._REFUSED_NODES.values(), "type aliases"]
    template = "sample are not available in the restricted runner"
    assert template in found
    found.remove(template)
    found += [template.replace("sample", kind) for kind in kinds]
    return found


MESSAGES = _sandbox_messages()


def test_the_messages_were_found() -> None:
    assert len(MESSAGES) >= 30
    assert "import of 'sample' is not available" in MESSAGES
    assert any(m.startswith("import of 'sample' is not available: programs may") for m in
               MESSAGES)
    assert "sample.sample is not available in the restricted runner" in MESSAGES


@pytest.mark.parametrize("message", MESSAGES)
def test_every_sandbox_message_has_a_chinese_form(message: str) -> None:
    zh = refusal_in(message, "zh")
    _assert_chinese(zh, message)
    # names and code stay as written
    for name in re.findall(r"'[^']*'|\w+=|\w+\(\)|\bsample\b", message):
        assert name in zh, (name, zh)
    assert refusal_in(message, "en") == message


def test_unknown_reasons_are_kept() -> None:
    assert refusal_in("something new", "zh") == "something new"
    assert refusal_in("widgets are not available in the restricted runner", "zh") == (
        "widgets are not available in the restricted runner")


def test_import_refusal_lists_the_modules_in_chinese_punctuation() -> None:
    zh = refusal_in(sandbox._import_refusal("os"), "zh")
    assert zh.startswith("不能导入 'os'：程序只能导入 torch、numpy、math 以及 torch.nn / ")
    assert zh.endswith("numpy.random / numpy.linalg")
