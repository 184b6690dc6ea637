"""core/autograd's words live in the one catalog: every BackwardError path (and every reason a
tensor has no graph) carries an ``autograd.*`` Message, rendered in both languages with no field
left; the English is word for word what it was; autograd.py holds no Chinese of its own."""

from __future__ import annotations

import copy
import pickle
import re
import string
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from tensor_explorer.core import autograd as ag
from tensor_explorer.core.autograd import BackwardError
from tensor_explorer.core.catalog import CATALOG, Message
from tensor_explorer.core.graph_session import GraphSession
from tensor_explorer.core.workspace import Workspace
from tests.core.text_checks import CJK_OR_PUNCTUATION as _CJK

_FIELD = re.compile(r"\{[A-Za-z_]\w*(![rsa])?\}")

#: a torch message for each branch of autograd's _explain that a test cannot easily provoke
_STALE = ("one of the variables needed for gradient computation has been modified by an inplace "
          "operation: [torch.FloatTensor [2]], which is output 0 of ExpBackward0, is at version 3;"
          " expected version 1 instead.")


def _fail(f: Callable[[], object]) -> BackwardError:
    with pytest.raises(BackwardError) as info:
        f()
    return info.value


def _explained(message: str) -> BackwardError:
    return ag._explain(RuntimeError(message), None)


def _twice() -> None:
    x = torch.ones(2, requires_grad=True)
    loss = (x * x).sum()
    ag.backward(loss)
    ag.backward(loss)


def _stale() -> None:
    x = torch.ones(2, requires_grad=True)
    y = x.exp()  # ExpBackward0 saves its result, y
    out = (y * 2).sum()
    y.add_(1)
    ag.backward(out)


def _inference() -> torch.Tensor:
    with torch.inference_mode():
        return torch.ones(2)


def _x() -> torch.Tensor:
    return torch.ones(2, requires_grad=True)


#: (name, how it fails) for every place autograd.py writes a BackwardError
PATHS: list[tuple[str, Callable[[], BackwardError]]] = [
    ("not-a-tensor", lambda: _fail(lambda: ag.backward(3))),  # type: ignore[arg-type]
    ("inference", lambda: _fail(lambda: ag.backward(_inference()))),
    ("leaf", lambda: _fail(lambda: ag.backward(_x()))),
    ("constant", lambda: _fail(lambda: ag.trace(torch.ones(2)))),
    ("twice", lambda: _fail(_twice)),
    ("stale", lambda: _fail(_stale)),
    ("stale-no-graph", lambda: _explained(_STALE)),
    ("stale-no-version", lambda: _explained("modified by an inplace operation")),
    ("non-scalar-torch", lambda: _explained("grad can be implicitly created only for scalar "
                                            "outputs")),
    ("mismatch", lambda: _explained("Mismatch in shape: grad_output[0] has a shape of ...")),
    ("no-grad-fn", lambda: _explained("element 0 of tensors does not require grad and does "
                                      "not have a grad_fn")),
    ("other", lambda: _explained("something torch never said before")),
    ("root-shape", lambda: _fail(lambda: ag.backward(_x() * 2))),
    ("gradient-shape", lambda: _fail(lambda: ag.backward(_x() * 2, gradient=[1.0, 1.0, 1.0]))),
    ("retain-not-tensor", lambda: _fail(lambda: ag.backward((_x() * 2).sum(), names={"n": 3},
                                                            retain=["n"]))),
    ("retain-leaf", lambda: _fail(lambda: ag.backward((_x() * 2).sum(), names={"x": _x()},
                                                      retain=["x"]))),
    ("check-complex", lambda: _fail(lambda: ag.numerical_check(
        lambda a: a.abs().sum(), {"a": torch.ones(2, dtype=torch.complex64)}))),
    ("check-inputs", lambda: _fail(lambda: ag.numerical_check(
        lambda a: a.sum(), {"a": torch.ones(ag.MAX_CHECK_ELEMENTS + 1)}))),
    ("check-no-input", lambda: _fail(lambda: ag.numerical_check(
        lambda a: a.sum(), {"a": torch.ones(2, dtype=torch.int64)}))),
    ("check-not-tensor", lambda: _fail(lambda: ag.numerical_check(
        lambda a: 3, {"a": torch.ones(2)}))),  # type: ignore[arg-type,return-value]
    ("check-outputs", lambda: _fail(lambda: ag.numerical_check(
        lambda a: a.repeat(ag.MAX_CHECK_OUTPUTS + 1), {"a": torch.ones(1)}))),
    ("check-no-graph", lambda: _fail(lambda: ag.numerical_check(
        lambda a: torch.ones(2), {"a": torch.ones(2)}))),
]


@pytest.mark.parametrize(("name", "make"), PATHS, ids=[name for name, _ in PATHS])
def test_every_backward_error_renders_in_both_languages(
    name: str, make: Callable[[], BackwardError]
) -> None:
    err = make()
    assert isinstance(err.explanation, Message) and err.explanation.code.startswith("autograd.")
    en, zh = err.explanation_in("en"), err.explanation_in("zh")
    assert en == err.explanation and str(err).startswith(en)
    assert not _CJK.search(en) and _CJK.search(zh), (en, zh)
    assert not _FIELD.search(en) and not _FIELD.search(zh), (en, zh)
    assert err.explanations == {"zh": zh}
    assert err.explanation_in("fr") == en  # no such language: the English


def test_every_autograd_code_is_met() -> None:
    met: set[str] = {"autograd.rerun-not-tensor"}  # graph_session's: see the test below
    for _name, make in PATHS:
        explanation = make().explanation
        assert isinstance(explanation, Message)
        met |= explanation.codes()
    assert met == {code for code in CATALOG if code.startswith("autograd.")}


def test_the_english_is_word_for_word_what_it_was() -> None:
    stale = _fail(_stale)
    assert stale.code == "stale_saved" and stale.node_ids
    assert stale.explanation == (
        "A tensor that autograd saved for the backward pass was changed in place after it was "
        "saved (ExpBackward0 saved 'result'). It is at version 1, but autograd saved version 0. "
        "Backward needs the saved value, so it cannot go on. Use an out-of-place operation "
        "(y = y + 1 instead of y += 1 or y.add_(1)), or clone() the tensor before changing it.")
    assert stale.explanation_in("zh").startswith(
        "autograd 为反向传播保存的一个张量（ExpBackward0 保存的 'result'）在保存之后被原地修改了。"
        "它现在是版本 1，而 autograd 保存的是版本 0。反向传播需要保存时的值")
    bare = _explained("modified by an inplace operation")
    assert bare.explanation.startswith("A tensor that autograd saved for the backward pass was "
                                       "changed in place after it was saved. Backward needs")
    assert bare.explanation_in("zh").startswith("autograd 为反向传播保存的一个张量在保存之后被"
                                                "原地修改了。反向传播需要")
    shape = _fail(lambda: ag.backward(torch.ones(2, 3, requires_grad=True) * 2))
    assert str(shape) == ("The root has shape (2, 3), not a single number, so backward needs "
                          "gradient=: a tensor of that same shape (for example "
                          "torch.ones_like(root)) that weights each element.")
    other = _explained("odd")
    assert str(other) == "backward failed.\n\ntorch says: odd" and other.torch_message == "odd"
    assert other.explanation_in("zh") == "backward 失败了。"
    retain = _fail(lambda: ag.backward((_x() * 2).sum(), names={"n": 3}, retain=["n"]))
    assert str(retain) == "retain: 'n' is not a tensor in names."
    assert ag.no_graph_reason(_x()) == (
        "This tensor is a leaf (created directly, requires_grad=True): there is no graph "
        "behind it. Its gradient accumulates in .grad when something computed from it "
        "calls backward; trace or backpropagate from that result instead.")


def test_no_graph_message_is_the_reason_in_each_language() -> None:
    for t in (_inference(), _x(), torch.ones(2)):
        message = ag.no_graph_message(t)
        assert isinstance(message, Message)
        assert ag.no_graph_reason(t) == message and ag.no_graph_reason(t, "zh") == \
            message.render("zh")
    assert ag.no_graph_message(_x() * 2) is None and ag.no_graph_reason(_x() * 2, "zh") is None


def test_a_backward_error_pickles_and_copies_with_its_message() -> None:
    err = _fail(_stale)
    for other in (pickle.loads(pickle.dumps(err)), copy.copy(err), copy.deepcopy(err)):
        assert isinstance(other, BackwardError) and isinstance(other.explanation, Message)
        assert (other.code, other.node_ids, other.torch_message, str(other)) == \
            (err.code, err.node_ids, err.torch_message, str(err))
        assert other.explanation_in("zh") == err.explanation_in("zh")


def test_an_explanation_given_as_plain_text_is_that_text_in_every_language() -> None:
    err = BackwardError("other", "plain words", "torch's words", [3])
    assert err.explanation_in("zh") == "plain words" and err.explanations == {}
    assert str(err) == "plain words\n\ntorch says: torch's words"
    assert err.node_ids == (3,)


def test_the_numerical_check_says_a_root_that_is_not_a_tensor_in_both_languages() -> None:
    # what graph_session's re-run raises when the root is no longer a tensor, as the pane says it
    ws = Workspace()
    ws.run("a = torch.tensor([0.5, -1.0], requires_grad=True)\ny = (a * a).sum()\n")
    s = GraphSession(ws)
    s.run(s.follow())
    s.check_done(BackwardError("other", Message("autograd.rerun-not-tensor")))
    assert s.message is not None and s.message.kind == "error"
    assert "The root is not a tensor after re-running." in s.message.render()
    assert "重新运行后，根不是张量。" in s.message.render(lang="zh")


def test_autograd_py_holds_no_chinese_and_no_second_language() -> None:
    source = Path(ag.__file__).read_text(encoding="utf-8")
    assert not _CJK.search(source)
    assert "zh=" not in source and "_NO_GRAPH_REASONS" not in source
    # every code it names is in the catalog with the same fields in both languages
    for code in set(re.findall(r'"(autograd\.[a-z-]+)"', source)):
        fields = [{f for _t, f, _s, _c in string.Formatter().parse(CATALOG[code][lang]) if f}
                  for lang in ("en", "zh")]
        assert fields[0] == fields[1], code
