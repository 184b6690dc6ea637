"""The lesson checker's own words in Chinese (``Check.text_in``/``detail_in``); the English
report (``detail``, the CLI's) is unchanged."""

from __future__ import annotations

from tensor_explorer.core import lessons as L
from tensor_explorer.core.workspace import Workspace
from tests.core.text_checks import CJK as _CJK

HEAD = "---\nname: a\ntitle: b\nlanguage: zh\n---\n"


def _checks(body: str) -> list[L.Check]:
    [result] = L.run_lesson(L.parse_lesson(HEAD + body))
    return list(result.checks)


def test_every_kind_of_failure_has_chinese_words() -> None:
    checks = _checks(
        "## S\n```python\ny = torch.zeros(3)\n```\nselect: nowhere\nexpect: y.sum() == 1\n"
        "expect: y.numel()\nexpect: torch.save\nexpect: torch.ones(1, device='meta') == 1\n"
        "expect: no_such_name\nexpect-error: RuntimeError\n")
    zh = {c.text: c.detail_in("zh") for c in checks}
    en = {c.text: c.detail for c in checks}
    assert en["expect: y.sum() == 1"] == "y.sum() is tensor(0.)"
    assert zh["expect: y.sum() == 1"] == "y.sum() 实际是 tensor(0.)"
    assert zh["expect: y.numel()"] == ""  # it held
    assert en["expect: torch.save"].startswith("could not be evaluated: Refused: 'save'")
    assert zh["expect: torch.save"].startswith("无法求值：已拒绝：'save' 在受限运行器里不可用")
    assert zh["expect: torch.ones(1, device='meta') == 1"] == "无法求值：meta 张量没有可以检验的值"
    # Python's own message stays as Python wrote it
    assert zh["expect: no_such_name"].startswith("无法求值：NameError: name 'no_such_name'")
    assert en["expect-error: RuntimeError"] == "the code ran without an error"
    assert zh["expect-error: RuntimeError"] == "代码运行时没有出错"
    assert zh["select: nowhere"] == "没有名为 'nowhere' 的值"
    for check in checks:
        assert check.detail_in("en") == check.detail
        assert check.text_in("zh") == check.text  # directives stay as written
        if check.detail:
            assert _CJK.search(check.detail_in("zh")), check


def test_errors_of_the_step_in_chinese() -> None:
    [failed] = _checks("## S\n```python\nimport os\n```\n")
    assert failed.text == L.CODE_RUNS and failed.text_in("zh") == "这一步的代码能正常运行"
    assert failed.detail.startswith("line 8: import os → Refused: import of 'os'")
    assert failed.detail_in("zh").startswith("第 8 行：import os → 已拒绝：不能导入 'os'：")

    [other] = _checks("## S\n```python\nx = torch.ones(2) @ torch.ones(3)\n```\n"
                      "expect-error: device-mismatch\n")
    assert other.detail.startswith("it failed differently: matmul-shape (RuntimeError): ")
    assert other.detail_in("zh").startswith("出了另一种错误：matmul-shape（RuntimeError）：")

    [expected] = _checks("## S\n```python\nimport os\n```\nexpect-error: refused\n")
    assert expected.ok and expected.detail_in("zh").startswith("已拒绝：不能导入 'os'")


def test_a_check_made_elsewhere_falls_back_to_english() -> None:
    check = L.Check("expect: x", False, "something")
    assert check.detail_in("zh") == "something" and check.text_in("zh") == "expect: x"
    ws = Workspace()
    assert L.evaluate(ws, "1 + 1") == 2


def test_an_expectation_refused_or_malformed_says_so_in_chinese_from_the_catalog() -> None:
    # no English-only headline in core: the catalog words it in both languages
    import pytest

    from tensor_explorer.core.lessons import evaluate
    from tensor_explorer.core.runner import ProgramError
    from tensor_explorer.core.workspace import Workspace

    ws = Workspace(restricted=True)
    ws.run("x = torch.ones(2)")
    with pytest.raises(ProgramError) as info:
        evaluate(ws, "x.sum(); x.mean()")
    assert info.value.kind == "syntax"
    assert info.value.text("en").startswith("SyntaxError: invalid syntax")
    assert "不是有效的 Python 代码" in info.value.text("zh")
    with pytest.raises(ProgramError) as info:
        evaluate(ws, "x.__class__")
    assert info.value.kind == "refused"
    assert info.value.text("en").splitlines()[1].startswith("Refused:")
    assert "已拒绝" in info.value.text("zh")
