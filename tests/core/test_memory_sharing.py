"""Why a value shares memory (memory.sharing_reason), in words from the one catalog: every
phrase is a ``sharing.*`` code with English and Chinese, the English is what it always was, and
memory.py holds no Chinese of its own (nothing is translated by reading its English back)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tensor_explorer.core import memory as m
from tensor_explorer.core.catalog import CATALOG, render
from tests.core.text_checks import CJK_OR_PUNCTUATION as _CJK

_PHRASES = sorted(code for code in CATALOG
                  if code.startswith("sharing.") and code != "sharing.made-by")

#: (source, phrase) for every entry of memory._MAKERS and every other branch, as the English
#: was before the phrases moved into the catalog
_ENGLISH = [
    ("torch.from_numpy(x)", "which shares memory with the NumPy array"),
    ("torch.as_tensor(x)", "which shares memory when dtype and device already match, else copies"),
    ("torch.asarray(x)", "which shares memory when it can, else copies"),
    ("torch.frombuffer(x)", "which shares memory with the buffer"),
    ("np.asarray(x)", "which shares memory when it can, else copies"),
    ("numpy.asarray(x)", "which shares memory when it can, else copies"),
    ("torch.tensor(x)", "which copies"),
    ("np.array(x)", "which copies (copy=True by default)"),
    ("numpy.array(x)", "which copies (copy=True by default)"),
    ("np.copy(x)", "which copies"),
    ("x.numpy()", "which shares memory with the tensor"),
    ("x.detach()", "which shares memory (a new tensor on the same storage, cut from autograd)"),
    ("x.view(2, 3)", "which shares memory (a view)"),
    ("x.view_as(y)", "which shares memory (a view)"),
    ("torch.view_as_real(x)", "which shares memory (a view)"),
    ("torch.view_as_complex(x)", "which shares memory (a view)"),
    ("x.expand(3, 4)",
     "which shares memory: expanded axes have stride 0, so many elements read the same bytes"),
    ("x.expand_as(y)", "which shares memory: expanded axes have stride 0"),
    ("torch.broadcast_to(x, (3, 4))", "which shares memory: broadcast axes have stride 0"),
    ("x.t()", "which shares memory (a transposed view)"),
    ("x.T", "which shares memory (a transposed view)"),
    ("x.mT", "which shares memory (a transposed view)"),
    ("x.transpose(0, 1)", "which shares memory (a transposed view)"),
    ("x.permute(1, 0)", "which shares memory (a permuted view)"),
    ("x.squeeze()", "which shares memory (a view)"),
    ("x.unsqueeze(0)", "which shares memory (a view)"),
    ("x.flatten()", "which shares memory when the layout allows, else copies"),
    ("x.reshape(-1)", "which shares memory when the layout allows, else copies"),
    ("x.ravel()", "which shares memory when the layout allows, else copies"),
    ("x.contiguous()", "which shares memory if already contiguous, else copies"),
    ("x.diagonal()", "which shares memory (a view of the diagonal)"),
    ("x.unfold(0, 3, 1)", "which shares memory (overlapping windows when step < size)"),
    ("x.as_strided((2,), (1,))", "which shares memory (a view with the given strides)"),
    ("x.narrow(0, 1, 2)", "which shares memory (a view)"),
    ("x.select(0, 1)", "which shares memory (a view)"),
    ("x.split(2)", "which shares memory (views)"),
    ("x.chunk(2)", "which shares memory (views)"),
    ("x.unbind()", "which shares memory (views)"),
    ("x.real", "which shares memory (a view of the real parts)"),
    ("x.imag", "which shares memory (a view of the imaginary parts)"),
    ("x.clone()", "which copies"),
    ("a.copy()", "which copies"),
    ("x.to(torch.float64)",
     "which copies when dtype or device change, else returns the same tensor"),
    ("x.cpu()", "which copies unless the tensor is already on the CPU"),
    ("x.cuda()", "which copies unless the tensor is already on that device"),
    ("x.float()", "which copies unless the dtype is already float32"),
    ("x.double()", "which copies unless the dtype is already float64"),
    ("x.long()", "which copies unless the dtype is already int64"),
    ("x.int()", "which copies unless the dtype is already int32"),
    ("a.astype(np.float32)", "which copies (unless copy=False and the dtype already matches)"),
    ("torch.t(x)", "which shares memory (a transposed view)"),
    ("torch.float(x)", "which makes a new value in new memory"),  # a method only, so new
    ("x[0, :2]", "which shares memory (slicing and integer indexing make views)"),
    ("x[::-1]", "which shares memory (slicing and integer indexing make views)"),
    ("x[[0, 1]]", "which may copy (indexing with a list, tensor or mask copies)"),
    ("x[mask]", "which may copy (indexing with a list, tensor or mask copies)"),
    ("x @ w + b", "which computes a new value in new memory"),
    ("-x", "which computes a new value in new memory"),
    ("x > 0", "which computes a new value in new memory"),
    ("torch.zeros(3)", "which makes a new value in new memory"),
]


def _callee(source: str) -> str:
    """The _MAKERS key a source of _ENGLISH exercises (or '' for the other branches)."""
    expr = ast.parse(source, mode="eval").body
    if isinstance(expr, ast.Call):
        dotted = ast.unparse(expr.func)
        return dotted if dotted in m._MAKERS else dotted.rsplit(".", 1)[-1]
    return expr.attr if isinstance(expr, ast.Attribute) else ""


@pytest.mark.parametrize(("source", "phrase"), _ENGLISH)
def test_the_english_sentence_is_unchanged(source: str, phrase: str) -> None:
    sentence = f"`v` was made by `{source}`, {phrase}"
    assert m.sharing_reason("v", source) == sentence
    assert m.sharing_reason("v", f"v = {source}", lang="en") == sentence
    zh = m.sharing_reason("v", source, lang="zh")
    assert zh is not None and zh.startswith(f"`v` 由 `{source}` 得到，") and "which" not in zh


def test_the_sources_cover_every_table_entry_and_every_phrase() -> None:
    assert {_callee(source) for source, _ in _ENGLISH} >= set(m._MAKERS)
    said = {phrase for _, phrase in _ENGLISH}
    assert said == {CATALOG[code]["en"] for code in _PHRASES}


@pytest.mark.parametrize(
    ("name", "source", "en", "zh"),
    [
        ("shared", "shared = torch.from_numpy(array)",
         "`shared` was made by `torch.from_numpy(array)`, which shares memory with the NumPy array",
         "`shared` 由 `torch.from_numpy(array)` 得到，它与 NumPy 数组共享内存"),
        ("v", "x[[0, 1]]",
         "`v` was made by `x[[0, 1]]`, which may copy (indexing with a list, tensor or mask "
         "copies)",
         "`v` 由 `x[[0, 1]]` 得到，它可能会复制（用列表、张量或掩码做索引会复制）"),
        ("t2", "x.t()", "`t2` was made by `x.t()`, which shares memory (a transposed view)",
         "`t2` 由 `x.t()` 得到，它共享内存（转置的视图）"),
        ("y", "x.to(torch.float64)",
         "`y` was made by `x.to(torch.float64)`, which copies when dtype or device change, else "
         "returns the same tensor",
         "`y` 由 `x.to(torch.float64)` 得到，dtype 或设备改变时它会复制，否则返回同一个张量"),
        ("out", "x @ w + b",
         "`out` was made by `x @ w + b`, which computes a new value in new memory",
         "`out` 由 `x @ w + b` 得到，它在新的内存里算出一个新值"),
        ("e", "x.expand(3, 4)",
         "`e` was made by `x.expand(3, 4)`, which shares memory: expanded axes have stride 0, so "
         "many elements read the same bytes",
         "`e` 由 `x.expand(3, 4)` 得到，它共享内存：expand 出的轴步长为 0，"
         "所以许多元素读取同一组字节"),
        ("z", "y = np.ones((2, 3))",
         "`z` was made by `np.ones((2, 3))`, which makes a new value in new memory",
         "`z` 由 `np.ones((2, 3))` 得到，它在新的内存里创建一个新值"),
        # names and code go in as they are, braces included (they are parameters, not templates)
        ("{k}", "d['{a}'].view(-1)",
         "`{k}` was made by `d['{a}'].view(-1)`, which shares memory (a view)",
         "`{k}` 由 `d['{a}'].view(-1)` 得到，它共享内存（一个视图）"),
    ],
)
def test_pinned_sentences_in_both_languages(name: str, source: str, en: str, zh: str) -> None:
    assert m.sharing_reason(name, source) == en
    assert m.sharing_reason(name, source, lang="en") == en
    assert m.sharing_reason(name, source, lang="zh") == zh
    assert m.sharing_reason(name, source, lang="fr") == en  # no such language: English


@pytest.mark.parametrize("code", _PHRASES)
def test_every_phrase_code_renders_in_both_languages(code: str) -> None:
    en, zh = render(code, "en"), render(code, "zh")
    assert en.startswith("which ") and not _CJK.search(en)
    assert _CJK.search(zh) and "which" not in zh and zh != en
    sentence = render("sharing.made-by", "zh", name="v", text="x", phrase=zh)
    assert sentence == f"`v` 由 `x` 得到，{zh}"


def test_memory_names_only_catalog_codes_and_every_phrase_code() -> None:
    source = Path(m.__file__).read_text(encoding="utf-8")
    named = set(re.findall(r'"(sharing\.[a-z0-9-]+)"', source))
    assert named == set(_PHRASES) | {"sharing.made-by"}
    assert {code for _, code in m._MAKERS.values()} <= set(_PHRASES)


def test_memory_holds_no_chinese_and_no_translation_table() -> None:
    # the Chinese of what it says is in the catalog, keyed by code: memory.py never reads its own
    # English back to translate it
    source = Path(m.__file__).read_text(encoding="utf-8")
    assert not _CJK.search(source)
    assert "_ZH" not in source and not hasattr(m, "_ZH_PHRASES")
