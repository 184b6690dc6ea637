"""The explanations' words live in the catalog (issue #19, point 1): every explanation is a
catalog Message (codes ``explain.*``) that renders in both languages with no field left over,
its English is what explain.py wrote before the move, and explain.py holds no Chinese."""

from __future__ import annotations

import pickle
import re
import string
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.nn.functional as F

import tensor_explorer as tx
from tensor_explorer.core import explain as explain_module
from tensor_explorer.core import lessons as L
from tensor_explorer.core.catalog import CATALOG, LANGUAGES, Message
from tensor_explorer.core.explain import KINDS, Explanation, explain, explain_warning
from tensor_explorer.core.runner import ProgramError
from tests.core.error_cases import COMMON_ERRORS, MORE_ERRORS
from tests.core.text_checks import CJK as _CJK

_FIELD = re.compile(r"\{\w*(![rsa])?\}")
_EXPLAIN_CODES = {code for code in CATALOG if code.startswith("explain.")}


def _check_rendered(message: Message) -> None:
    en, zh = message.render("en"), message.render("zh")
    assert en == message and en != zh
    for text in (en, zh):
        assert not _FIELD.search(text) and "{" not in text and "}" not in text, text
    assert not _CJK.search(en) and _CJK.search(zh)


def _cross_entropy_error(logits: torch.Tensor, target: torch.Tensor) -> BaseException:
    try:
        F.cross_entropy(logits, target)
    except (RuntimeError, ValueError) as exc:
        return exc
    raise AssertionError("cross_entropy did not fail")


BATCH = [[1.0, -0.5, 0.2], [0.1, 0.4, -1.3], [2.2, 0.0, -0.7], [-0.3, 1.1, 0.6]]
TWO = [[0.5, -0.2], [1.5, 0.3], [-0.4, 0.9], [0.0, 2.0]]
#: (logits, target) of each piece of cross-entropy advice: every explain.ce-* code is met
CROSS_ENTROPY: dict[str, tuple[list[Any], Any]] = {
    "one sample": ([2.0, 0.5, -1.0], 2.0),
    "yes/no scores": ([0.3, -1.2, 2.0, 0.5], [0, 1, 1, 0]),
    "more labels than scores": ([0.3, -1.2, 2.0], [1, 0]),
    "float class indices": (BATCH, [1.0, 2.0, 0.0, 1.0]),
    "probabilities of class 1": (TWO, [0.2, 0.9, 0.5, 0.0]),
    "labels counted from 1": (BATCH, [2.0, 3.0, 1.0, 2.0]),
    "one-hot rows": (BATCH, [[0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]]),
    "counts": (BATCH, [[0, 2, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]]),
    "a column": (BATCH, [[1.0], [2.0], [0.0], [1.0]]),
}


def _advice(case: str) -> Explanation:
    logits, target = CROSS_ENTROPY[case]
    lg, tg = torch.tensor(logits), torch.tensor(target)
    why = explain(_cross_entropy_error(lg, tg), {"lg": lg, "tg": tg})
    assert why is not None and why.kind.startswith("cross-entropy-target-")
    return why


@pytest.mark.parametrize("case", sorted(CROSS_ENTROPY))
def test_cross_entropy_advice_renders_in_both_languages(case: str) -> None:
    why = _advice(case)
    _check_rendered(why.message)
    assert why.text == why.message and why.text_zh == why.message.render("zh")
    assert why.texts == {"en": why.text, "zh": why.text_zh}
    assert "tg" in why.text_zh  # the learner's names, in both languages
    assert ("lg" in why.text) == ("lg" in why.text_zh)


def test_every_explain_code_is_met() -> None:
    met: set[str] = set()
    for case in CROSS_ENTROPY:
        met |= _advice(case).message.codes()
    messages = [
        "Expected all tensors to be on the same device",
        "expected target dtype to be Long or Byte, but got Float",
        "0D or 1D target tensor expected, multi-target not supported",
        "Expected floating point type for target with class probabilities, got Long",
        "mean(): Input dtype must be either a floating point or complex dtype. Got: Long",
        "mat1 and mat2 must have the same dtype",
        "Trying to backward through the graph a second time",
        "Can't call numpy() on Tensor that requires grad.",
        "can't convert cuda:0 device type tensor to numpy.",
        "view size is not compatible with input tensor's size and stride",
        "a leaf Variable that requires grad is being used in an in-place operation.",
        "modified by an inplace operation: ... is at version 2; expected version 0 instead.",
        "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)",
        "The size of tensor a (3) must match the size of tensor b (4)",
        "grad can be implicitly created only for scalar outputs",
        "element 0 of tensors does not require grad and does not have a grad_fn",
        "Inplace update to inference tensor outside InferenceMode is not allowed",
        "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.",
        "Inference tensors cannot be saved for backward.",
        "a Tensor with 2 elements cannot be converted to Scalar",
        "Boolean value of Tensor with more than one value is ambiguous",
        "more than one element of the written-to tensor refers to a single memory location.",
        "Torch not compiled with CUDA enabled",
        "CUDA out of memory.",
    ]
    errors: list[BaseException] = [RuntimeError(m) for m in messages]
    errors += [NameError("name 'x' is not defined"), NameError("name 'open' is not defined"),
               NameError("odd"), RecursionError(), MemoryError()]
    kinds = set()
    for exc in errors:
        why = explain(exc)
        assert why is not None, exc
        _check_rendered(why.message)
        met |= why.message.codes()
        kinds.add(why.kind)
    assert kinds == set(KINDS)
    for warned in ("The .grad attribute of a Tensor that is not a leaf Tensor is being "
                   "accessed.", "TypedStorage is deprecated. It will be removed in the future",
                   "The given NumPy array is not writable, and PyTorch does not support "
                   "non-writable tensors."):  # (torch's own words)
        words = explain_warning(warned)
        assert isinstance(words, Message), warned
        met |= words.codes()
    assert met == _EXPLAIN_CODES


@pytest.mark.parametrize("code", sorted(_EXPLAIN_CODES))
def test_every_explain_code_renders_with_its_fields(code: str) -> None:
    fields = {name for _t, name, _s, _c in string.Formatter().parse(CATALOG[code]["en"])
              if name is not None}
    message = Message(code, **{name: "NAME" if name != "more" else "" for name in fields})
    for lang in LANGUAGES:
        text = message.render(lang)
        assert "{" not in text and "}" not in text and text.strip()


@pytest.mark.parametrize(("setup", "failing", "kind", "words"), COMMON_ERRORS + MORE_ERRORS)
def test_a_program_error_keeps_the_explanation_message(setup: str, failing: str, kind: str,
                                                       words: str) -> None:
    ws = tx.Workspace(restricted=True)
    if setup:
        ws.run(setup)
    with pytest.raises(ProgramError) as info:
        ws.run(failing)
    err = info.value
    assert isinstance(err.explanation, Message) and err.explanation.code.startswith("explain.")
    _check_rendered(err.explanation)
    assert err.explanation_in("zh") == err.explanation.render("zh")
    assert not hasattr(err, "explanations")  # no text given outright: the Message renders it
    again = pickle.loads(pickle.dumps(err))
    assert isinstance(again.explanation, Message) and again.text("zh") == err.text("zh")


# --- the English is what it was before the words moved into the catalog -------------------------
# (whole texts written by the old f-strings of explain.py, where sentences are put together)


def test_composed_advice_is_word_for_word_the_old_english() -> None:
    assert _advice("yes/no scores").text == (
        "lg is 1-D, shape (4,), so cross-entropy reads it as the scores of a single sample over "
        "4 classes, but tg holds 4 labels, one per sample. Logits must be (batch, classes): one "
        "row of class scores per sample, here (4, classes), with tg of shape (4,) holding class "
        "indices (torch.long). Make the model give one row per sample (for a single sample, "
        "lg.unsqueeze(0) gives (1, 4) and the target is one class index). Do not convert tg "
        "with .float(): a float target of the logits' shape is read as class probabilities, so "
        "that runs but gives a wrong loss. If lg holds one score per sample for a yes/no label, "
        "use F.binary_cross_entropy_with_logits(lg, tg.float()) instead, or give two scores per "
        "sample, shape (4, 2).")
    assert _advice("yes/no scores").text_zh == (
        "lg 是一维的，形状为 (4,)，所以交叉熵把它当作单个样本在 4 个类别上的分数；而 tg 有 4 个"
        "标签，每个样本一个。logits 的形状必须是 (batch, classes)：每个样本一行类别分数，这里应为 "
        "(4, classes)，tg 的形状为 (4,)，存放类别索引（torch.long）。请让模型为每个样本给出一行"
        "（只有一个样本时，lg.unsqueeze(0) 得到 (1, 4)，target 是一个类别索引）。不要用 .float() "
        "转换 tg：与 logits 形状相同的浮点 target 会被当作类别概率，这样虽然能运行，算出的 loss "
        "却是错的。如果 lg 是每个样本在“是/否”问题上的一个分数，请改用 "
        "F.binary_cross_entropy_with_logits(lg, tg.float())，或者为每个样本给出两个分数，"
        "形状为 (4, 2)。")
    assert _advice("labels counted from 1").text == (
        "Cross-entropy wants class labels as integer class indices (torch.long), one per sample, "
        "from 0 to 2 for these 3 classes, but tg is float32 and holds 3. Check the labels and "
        "the number of classes (the logits' size in dimension 1, 3) first; then make the labels "
        "torch.long. Labels counted from 1 become class indices with (tg - 1).long().")
    assert _advice("one-hot rows").text == (
        "tg has the same shape as the logits, (4, 3), so cross-entropy reads it as class "
        "probabilities, which must be floating point; but tg is int64. Its rows are one-hot, so "
        "the class indices are tg.argmax(dim=1) (shape (4,), torch.long), what cross-entropy "
        "usually takes; tg.float() gives the same loss.")
    assert _advice("probabilities of class 1").text == (
        "tg has one value per sample, shape (4,), but its values are fractions (such as 0.2), "
        "not class indices, so tg.long() would cut them to wrong classes (0.2 becomes 0) and the "
        "loss would be wrong. Cross-entropy takes either class indices (shape (batch,), whole "
        "numbers from 0 to 1, torch.long) or class probabilities (float, the same shape as the "
        "logits (4, 2), each row summing to 1). If tg is the probability of class 1, the class "
        "probabilities are torch.stack([1 - tg, tg], dim=1).")
    why = explain(RuntimeError("modified by an inplace operation: [torch.FloatTensor [2]] is at "
                               "version 2; expected version 0 instead."))  # fmt: skip
    assert why is not None and why.text == (
        "A tensor that autograd saved during the forward pass was changed in place afterwards "
        "(it is now at version 2, but backward needs the version 0 it saw). Every in-place "
        "operation (a method ending in '_', x[...] = ..., +=) bumps a tensor's version counter. "
        "Make the change out of place (y = y + 1), or clone() the tensor before changing it, or "
        "change it only after backward.")
    name = explain(NameError("odd"))
    assert name is not None and name.text.startswith("this name has no value yet.")
    assert name.text_zh.startswith("这个名字 还没有值。")


def test_warnings_are_catalog_messages() -> None:
    message = "TypedStorage is deprecated. It will be removed in the future."
    plain = explain_warning(message)
    assert isinstance(plain, Message) and plain.code == "explain.warning-typed-storage"
    assert plain == ("tensor.storage() is the old API; tensor.untyped_storage() shows the same "
                     "bytes.")
    assert explain_warning(message, "zh") == plain.render("zh")
    assert explain_warning(message, "fr") == plain
    # the runner's note carries the Message itself, rendered in the language it is shown in
    ws = tx.Workspace(restricted=True)
    ws.run("w = torch.ones(2, requires_grad=True)\nh = w * 2")
    with pytest.raises(ProgramError) as info:
        ws.run("pair = (h.grad, undefined_name)")
    [note] = info.value.notes
    assert isinstance(note, Message) and isinstance(note.params["plain"], Message)
    assert note.params["plain"].code == "explain.warning-non-leaf-grad"


def test_explain_holds_no_chinese_and_no_translation_table() -> None:
    source = Path(explain_module.__file__).read_text(encoding="utf-8")
    assert not _CJK.search(source)
    assert "_ZH" not in source and "_zh" not in source.replace("text_zh", "")


# --- the lesson checker's own words ------------------------------------------------------------

HEAD = "---\nname: a\ntitle: b\nlanguage: zh\n---\n"


def _details(body: str) -> dict[str, tuple[str, str]]:
    [result] = L.run_lesson(L.parse_lesson(HEAD + body))
    return {c.text: (c.detail, c.detail_in("zh")) for c in result.checks}


def test_the_checkers_meta_message_is_a_catalog_message() -> None:
    with pytest.raises(ValueError) as info:
        L._truth(torch.ones(1, device="meta"))
    [said] = info.value.args
    assert isinstance(said, Message) and said.code == "checker.meta-no-values"
    assert L._message(info.value, "zh") == "meta 张量没有可以检验的值"
    assert L._message(info.value, "en") == "a meta tensor has no values to test"
    assert not hasattr(L, "_CHECKER_MESSAGES_ZH")
    details = _details("## S\n```python\ny = 1\n```\nexpect: torch.ones(1, device='meta') == 1\n")
    assert details["expect: torch.ones(1, device='meta') == 1"] == (
        "could not be evaluated: a meta tensor has no values to test",
        "无法求值：meta 张量没有可以检验的值")


def test_a_programs_own_words_are_not_translated_by_their_english() -> None:
    # a program that raises the checker's English is quoted as it wrote it, in every language
    details = _details(
        "## S\n```python\nclass Odd:\n    def __len__(self):\n"
        "        raise ValueError('a meta tensor has no values to test')\n\nodd = Odd()\n```\n"
        "expect: odd\n")  # fmt: skip
    assert details["expect: odd"] == (
        "could not be evaluated: a meta tensor has no values to test",
        "无法求值：a meta tensor has no values to test")
