"""Error explanations and the runner's error messages in Chinese, with the English unchanged."""

from __future__ import annotations

import copy
import pickle
import re

import pytest
import torch

import tensor_explorer as tx
from tensor_explorer.core import autograd as ag
from tensor_explorer.core.catalog import CATALOG, Message, text_in
from tensor_explorer.core.explain import KINDS, explain, explain_warning
from tensor_explorer.core.runner import ProgramError, note_in, operand_in
from tests.core.error_cases import COMMON_ERRORS, MORE_ERRORS
from tests.core.text_checks import CJK as _CJK

CASES = COMMON_ERRORS + MORE_ERRORS

#: (kind, failing statement) -> words the Chinese explanation must contain
ZH_WORDS = {
    ("not-floating", "m = x.mean()"): "dtype=torch.float32",
    ("not-floating", "w = torch.tensor([1, 2], requires_grad=True)"): ".float()",
    ("dtype-mismatch", "y = model(x)"): "dtype 不同",
    ("cross-entropy-target-dtype", "loss = F.cross_entropy(logits, target)"): "torch.long",
    ("cross-entropy-target-shape", "loss = F.cross_entropy(logits, target)"): "(batch,)",
    ("backward-twice", "loss.backward()"): "retain_graph=True",
    ("numpy-requires-grad", "a = x.numpy()"): "detach()",
    ("view-non-contiguous", "v = x.view(12)"): "reshape()",
    ("inplace-leaf", "w.add_(1)"): "torch.no_grad()",
    ("matmul-shape", "y = x @ w"): "内侧",
    ("broadcast-shape", "c = a + b"): "其中一个为 1",
    ("backward-non-scalar", "y.backward()"): "ones_like",
    ("backward-no-grad", "z.backward()"): "detach()",
    ("item-non-scalar", "v = x.item()"): "恰好只有一个元素",
    ("ambiguous-bool", "if x:\n    pass"): ".any()",
    ("inplace-overlap", "e.add_(1)"): "clone()",
    ("inference-tensor", "(w * x).sum().backward()"): "no_grad",
    ("device-mismatch", "logits = model(features)"): ".to(device)",
    ("numpy-device", "a = x.numpy()"): "cpu().numpy()",
    ("inplace-saved", "loss.backward()"): "版本 1",
    ("device-unavailable", "a = torch.zeros(2, device='cuda:99')"): "torch.cuda.is_available()",
    ("out-of-memory", "a = torch.empty(10**13)"): "torch.no_grad()",
    ("not-defined", "c = undefined_name"): "undefined_name 还没有值",
    ("not-available", "f = open('data.txt')"): "open() 在受限运行器里不可用",
    ("recursion", "r = f(0)"): "递归",
}


_ENGLISH_RUN = re.compile(r"\b[A-Za-z]+(?: [A-Za-z]+){3,}\b")  # four English words in a row


def _error(ws: tx.Workspace, source: str, **kw: object) -> ProgramError:
    with pytest.raises(ProgramError) as info:
        ws.run(source, **kw)  # type: ignore[arg-type]
    return info.value


def _chinese(text: str | None) -> bool:
    """Reads as Chinese: has CJK characters and no untranslated English sentence."""
    return bool(text) and bool(_CJK.search(text)) and not _ENGLISH_RUN.search(text)


def test_the_cases_produce_every_kind() -> None:
    produced = {kind for _s, _f, kind, _w in CASES}
    assert produced == set(KINDS)
    assert set(ZH_WORDS) == {(kind, failing) for _s, failing, kind, _w in CASES}


@pytest.mark.parametrize(("setup", "failing", "kind", "words"), CASES)
def test_every_kind_is_explained_in_chinese(setup: str, failing: str, kind: str,
                                            words: str) -> None:
    ws = tx.Workspace(restricted=True)
    if setup:
        ws.run(setup)
    err = _error(ws, failing)
    assert err.kind == kind, str(err)
    # the English stays what it was
    assert words in err.explanation
    assert err.explanation_in("en") == err.explanation
    assert str(err) == err.message == err.text("en") == err.text()
    assert f"What usually causes this: {err.explanation}" in str(err)
    assert not _CJK.search(str(err))
    # the Chinese
    zh = err.explanation_in("zh")
    assert _chinese(zh), zh
    assert ZH_WORDS[(kind, failing)] in zh
    text = err.text("zh")
    assert text.splitlines()[0] == f"第 1 行：{failing.splitlines()[0]}"
    assert err.headline in text.splitlines()  # torch's own message, as torch wrote it
    assert f"通常的原因：{zh}" in text
    assert "What usually causes this" not in text


def test_explain_gives_both_languages() -> None:
    why = explain(RuntimeError("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"))
    assert why is not None and why.kind == "matmul-shape"
    assert why.text.startswith("Matrix multiplication needs the inner sizes to agree")
    assert why.text_in("en") == why.text and why.text_in("fr") == why.text
    assert why.text_in("zh") == why.text_zh == why.texts["zh"]
    assert why.texts["en"] == why.text
    assert why.text_zh.startswith("矩阵乘法要求内侧的两个维度大小一致")
    oom = explain(MemoryError())
    assert oom is not None and oom.kind == "out-of-memory" and _chinese(oom.text_zh)


def test_dynamic_values_are_in_the_chinese_text() -> None:
    ws = tx.Workspace(restricted=True)
    ws.run("x = torch.ones(2, requires_grad=True)\ny = x * 2\nz = y * y\ny.add_(1)\ny.mul_(3)\n"
           "loss = z.sum()")
    err = _error(ws, "loss.backward()")
    assert err.kind == "inplace-saved"
    assert "is at version 2; expected version 0" in err.torch_message
    zh = err.explanation_in("zh")
    assert "版本 2" in zh and "版本 0" in zh
    assert "version 2" in err.explanation and "version 0" in err.explanation

    err = _error(ws, "r = learning_rate * 2")
    assert err.explanation_in("zh").startswith("learning_rate 还没有值")
    assert err.explanation.startswith("learning_rate has no value yet")
    err = _error(ws, "code = compile('1', 'f', 'eval')")
    assert err.kind == "not-available"
    assert err.explanation_in("zh").startswith("compile() 在受限运行器里不可用")


def test_chinese_frame_has_line_operands_and_notes() -> None:
    ws = tx.Workspace(restricted=True)
    ws.run("a = torch.randn(2, 3)\nb = torch.randn(4, 5)\nmodel = nn.Linear(3, 2)\n"
           "flat = nn.Flatten()\nsizes = [1, 2, 3]")
    err = _error(ws, "x = 1\nc = a @ b")
    lines = err.text("zh").splitlines()
    assert lines[0] == "第 2 行：c = a @ b"
    assert lines[1] == "RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"
    assert lines[2].startswith("通常的原因：矩阵乘法")
    assert lines[3:] == ["这一行上的值：", "  a: tensor (2, 3) float32 cpu",
                         "  b: tensor (4, 5) float32 cpu"]
    assert str(err).splitlines()[0] == "Line 2: c = a @ b"
    assert "Values on this line:" in str(err) and "  a: tensor (2, 3) float32 cpu" in str(err)

    err = _error(ws, "y = model(b) if sizes else flat(b)")
    text = err.text("zh")
    assert "  model: Linear 模块，参数 float32 cpu" in text
    assert "  flat: Flatten 模块，没有参数" in text
    assert "  sizes: list，3 项" in text
    assert "  model: Linear module, parameters float32 cpu" in str(err)
    assert "  sizes: list of 3" in str(err)

    # a note from a warning raised on the failing line, and an error inside a function
    ws.run("w = torch.ones(2, requires_grad=True)\nh = w * 2\n"
           "def f(t):\n    return t @ torch.ones(3)")
    err = _error(ws, "pair = (h.grad, undefined_name)")
    [note] = err.notes
    assert note.startswith("UserWarning: ") and "(This tensor is computed from others" in note
    zh_note = next(line for line in err.text("zh").splitlines() if line.startswith("注意："))
    assert zh_note.startswith("注意：UserWarning: ")  # the warning itself stays as torch wrote it
    assert "（这个张量是由其他张量算出来的（不是叶子张量）" in zh_note
    assert "Note: " + note in str(err)
    err = _error(ws, "r = f(torch.ones(2))")
    assert any("inside f()" in n for n in err.notes)
    assert "注意：错误发生在 f() 内部，它是在之前的程序里定义的" in err.text("zh")


def test_notes_added_later_and_recomposed_messages() -> None:
    ws = tx.Workspace(restricted=True)
    ws.run("big = torch.zeros(5_000_000)")  # 20 MB: too large to save for rollback
    source = "for i in range(1):\n    big.add_(1)\n    y = undefined_name"
    err = _error(ws, source)
    assert err.notes[-1] == ("big may have been changed in place before the error and were "
                             "too large to restore.")
    assert str(err).endswith("Note: " + err.notes[-1])
    assert err.text("zh").endswith("注意：big 可能在出错之前已被原地修改，而且太大，无法恢复原值。")
    # code that adds a note and rebuilds the message the old way keeps working
    err.notes += ("something else",)
    err.message = err._compose()
    err.args = (err.message,)
    assert str(err).endswith("Note: something else")
    assert err.text("zh").endswith("注意：something else")


def test_runner_headlines_in_chinese() -> None:
    ws = tx.Workspace(restricted=True)
    err = _error(ws, "a = 1\nb = (2,\n")
    assert err.kind == "syntax"
    assert str(err).splitlines()[1].startswith("SyntaxError: ")
    assert "This is not valid Python here" in str(err)
    zh = err.text("zh").splitlines()
    assert zh[0].startswith("第 2 行：")
    assert zh[1].startswith("SyntaxError: ") and "这里不是有效的 Python 代码" in zh[1]

    err = _error(ws, "import os")
    assert err.kind == "refused" and str(err).splitlines()[1].startswith("Refused: import of")
    assert err.headline_in("zh").startswith("已拒绝：不能导入 'os'：程序只能导入 torch、numpy")
    assert _chinese(err.explanation_in("zh"))
    assert "通常的原因：课程和程序可能来自别人" in err.text("zh")

    err = _error(ws, "while True:\n    pass", max_steps=1000)
    assert err.kind == "stopped" and "more than 1000 steps" in str(err)
    assert err.headline_in("zh").startswith("已停止：程序运行超过了 1000 步。")
    err = _error(ws, "while True:\n    pass", time_limit=0.2)
    assert "time limit (0.2 s)" in str(err)
    assert "程序运行超过了时间限制（0.2 秒）" in err.text("zh")

    err = _error(ws, "x = torch.zeros(2)", device="cuda:7")
    assert err.kind == "device" and err.line is None
    assert str(err).startswith("Device: device 'cuda:7' is not available on this machine")
    assert err.text("zh").startswith("设备 'cuda:7' 在这台机器上不可用；可用的设备：cpu")
    err = _error(ws, "x = 1", device="not-a-device")
    assert err.headline_in("zh").startswith("'not-a-device' 不是设备名（")


def test_busy_error_in_chinese() -> None:
    from tensor_explorer.core.runner import busy_error

    err = busy_error()
    assert err.kind == "busy" and str(err) == "Another program is still running in this workspace."
    assert err.text("zh") == "这个工作区里还有另一个程序在运行。"


def test_untranslated_errors_fall_back_to_english_words() -> None:
    err = ProgramError("Internal error while running: boom", kind="internal", line=3,
                       source_line="x = f()", explanation="Something odd.")
    assert err.text("zh").splitlines() == [
        "第 3 行：x = f()", "Internal error while running: boom", "通常的原因：Something odd."
    ]
    assert err.text("fr") == str(err) == err.text("en")
    assert err.headline_in("zh") == err.headline and err.explanation_in("zh") == "Something odd."
    assert ProgramError("x").explanation_in("zh") is None


def test_program_error_pickles_and_copies_with_its_languages() -> None:
    ws = tx.Workspace(restricted=True)
    ws.run("a = torch.ones(2, 3)")
    err = _error(ws, "b = a @ a")
    for other in (pickle.loads(pickle.dumps(err)), copy.copy(err), copy.deepcopy(err)):
        assert isinstance(other, ProgramError)
        assert str(other) == str(err) and other.kind == err.kind
        assert other.text("zh") == err.text("zh")
        assert other.explanation_in("zh") == err.explanation_in("zh")


def test_warnings_have_chinese_plain_words() -> None:
    message = ("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
               "Its .grad attribute won't be populated during autograd.backward().")
    en, zh = explain_warning(message), explain_warning(message, "zh")
    assert en is not None and en.startswith("This tensor is computed from others")
    assert _chinese(zh) and ".retain_grad()" in zh
    assert explain_warning("something else", "zh") is None
    plain_words = [code for code in CATALOG if code.startswith("explain.warning-")]
    assert len(plain_words) >= 3
    for code in plain_words:  # every warning's plain words, inside the runner's note
        en, zh = CATALOG[code]["en"], CATALOG[code]["zh"]
        assert _chinese(zh), zh
        note = Message("note.warning", category="UserWarning", message="words",
                       plain=Message(code))
        assert note == f"UserWarning: words ({en})"
        assert note_in(note, "zh") == f"UserWarning: words（{zh}）"
    assert operand_in("tensor (2, 3) float32 cpu", "zh") == "tensor (2, 3) float32 cpu"


# --- the graph pane's backward errors -------------------------------------------------------


def test_no_graph_reasons_in_both_languages() -> None:
    with torch.inference_mode():
        inference = torch.ones(2)
    leaf = torch.ones(2, requires_grad=True)
    constant = torch.ones(2)
    for t in (inference, leaf, constant):
        en, zh = ag.no_graph_reason(t), ag.no_graph_reason(t, "zh")
        assert en is not None and not _CJK.search(en)
        assert _chinese(zh), zh
        with pytest.raises(ag.BackwardError) as info:
            ag.backward(t)
        assert info.value.explanation == en and info.value.explanation_in("zh") == zh
    assert "inference_mode" in ag.no_graph_reason(inference, "zh")
    assert "叶子张量" in ag.no_graph_reason(leaf, "zh")
    assert ag.no_graph_reason(leaf * 2, "zh") is None


def test_backward_errors_in_both_languages() -> None:
    x = torch.ones(2, requires_grad=True)
    loss = (x * x).sum()
    ag.backward(loss)
    with pytest.raises(ag.BackwardError) as info:
        ag.backward(loss)
    e = info.value
    assert e.code == "backward_twice" and "retain_graph=True" in e.explanation
    assert _chinese(e.explanation_in("zh")) and "retain_graph=True" in e.explanation_in("zh")
    assert e.explanation_in("en") == e.explanation

    y = x.exp()  # ExpBackward0 saves its result, y
    out = (y * 2).sum()
    y.add_(1)
    with pytest.raises(ag.BackwardError) as info:
        ag.backward(out)
    e = info.value
    assert e.code == "stale_saved"
    assert "version 1" in e.explanation and "version 0" in e.explanation
    zh = e.explanation_in("zh")
    assert _chinese(zh) and "版本 1" in zh and "版本 0" in zh and "ExpBackward0" in zh

    with pytest.raises(ag.BackwardError) as info:
        ag.backward(x * 2)
    assert info.value.code == "non_scalar"
    assert "(2,)" in info.value.explanation_in("zh") and _chinese(info.value.explanation_in("zh"))
    with pytest.raises(ag.BackwardError) as info:
        ag.backward(x * 2, gradient=[1.0, 1.0, 1.0])
    assert info.value.code == "bad_gradient"
    assert "(3,)" in info.value.explanation_in("zh") and "(2,)" in info.value.explanation_in("zh")


def test_output_carries_warning_notes_as_messages() -> None:
    # The console shows the output event's texts with text_in: a program's own printed words
    # (a plain str, even one that looks like a note) stay as written; the runner's warning
    # notes are catalog Messages, shown in the console's language.
    ws = tx.Workspace(restricted=True)
    printed: list[str] = []
    ws.events.output.connect(printed.append)
    ws.run('print("warning: UserWarning: the learning rate is high")')
    assert printed == ["warning: UserWarning: the learning rate is high\n"]
    assert text_in(printed[0], "zh") == printed[0]
    printed.clear()
    ws.run("x = torch.ones(2, requires_grad=True)\ny = x * 2\nprint('before')\ng = y.grad")
    assert len(ws.last_notes) == 1
    # the English is what the output has always said: printed text, then "warning: <note>"
    assert "".join(printed) == f"before\nwarning: {ws.last_notes[0]}\n"
    note = printed[-1]
    zh = text_in(note, "zh")
    assert zh.startswith("警告：UserWarning: ") and zh.endswith("\n")
    assert "（这个张量是由其他张量算出来的" in zh  # (torch's own words stay English)
    assert text_in(note, "en") == note
