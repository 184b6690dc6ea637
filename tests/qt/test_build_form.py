"""The Build form offers only the dtypes its factory makes (asked of torch), and neither Build
nor the code bar prints the repr of an internal object (the Generator manual_seed returns)."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from PySide6 import QtWidgets
from pytestqt.qtbot import QtBot

from tensor_explorer.core.build import DTYPES, FACTORIES, BuildSpec, accepted_dtypes
from tensor_explorer.qt.build_panel import BuildPanel
from tensor_explorer.qt.console_panel import internal_repr

TIMEOUT = 20_000
FLOATING = {"float32", "float64", "float16", "bfloat16", "complex64", "complex128"}


def test_accepted_dtypes_come_from_torch() -> None:
    assert set(accepted_dtypes("randn")) == FLOATING
    assert set(accepted_dtypes("rand")) == FLOATING
    assert set(accepted_dtypes("ones")) == set(DTYPES)
    assert set(accepted_dtypes("zeros")) == set(DTYPES)
    assert "int64" in accepted_dtypes("arange") and "bool" not in accepted_dtypes("arange")
    for factory in FACTORIES:
        assert "float32" in accepted_dtypes(factory)
        for dtype in accepted_dtypes(factory):  # what is offered builds
            spec = BuildSpec("t", factory=factory, dtype=dtype, seed=None)
            assert f"dtype=torch.{dtype}" in spec.code()
    with pytest.raises(ValueError, match="int64"):
        BuildSpec("t", factory="randn", dtype="int64").code()


def test_asking_torch_leaves_the_random_state_alone() -> None:
    torch.manual_seed(5)
    expected = torch.rand(3)
    torch.manual_seed(5)
    accepted_dtypes.cache_clear()
    accepted_dtypes("rand")
    accepted_dtypes("randn")
    assert torch.equal(torch.rand(3), expected)


def test_internal_reprs_are_recognised() -> None:
    assert internal_repr("<torch._C.Generator object at 0x7f3a2c1b9e50>")
    assert not internal_repr("<__main__.Point object at 0x7f3a2c1b9e50>")  # the user's own
    assert not internal_repr("tensor([1., 2.])")
    assert not internal_repr("<built-in method sum of Tensor object at 0x7f3a2c1b9e50>")


def build_panel(win: Any) -> BuildPanel:
    panel = win.panels["build"]
    assert isinstance(panel, BuildPanel)
    return panel


def test_form_offers_only_the_dtypes_its_factory_makes(make_window: Any) -> None:
    build = build_panel(make_window())
    build.factory.setCurrentText("randn")
    offered = build.dtypes_offered()
    assert "float32" in offered and "int64" not in offered and "bool" not in offered
    build.factory.setCurrentText("ones")
    assert {"int64", "bool", "float32"} <= set(build.dtypes_offered())
    build.dtype.setCurrentIndex(build.dtype.findData("int64"))
    assert "dtype=torch.int64" in build.preview.text()
    build.factory.setCurrentText("randn")  # int64 is not offered: back to "default"
    assert build.dtype.currentData() is None and build.dtype.currentIndex() == 0
    assert "dtype" not in build.preview.text() and build.create_button.isEnabled()
    build.dtype.setCurrentIndex(build.dtype.findData("float64"))
    build.factory.setCurrentText("arange")  # float64 still offered: kept
    assert build.dtype.currentData() == "float64"
    assert "bool" not in build.dtypes_offered()


def test_build_with_a_seed_prints_no_internal_object(qtbot: QtBot, make_window: Any) -> None:
    win = make_window()
    build, console = build_panel(win), win.panels["console"]
    build.factory.setCurrentText("randn")
    build.name.setText("t")
    build.seed_on.setChecked(True)
    build.seed.setValue(3)
    with qtbot.waitSignal(win.runner.finished, timeout=TIMEOUT):
        build.create_button.click()
    qtbot.waitUntil(lambda: "t" in win.workspace.names(), timeout=TIMEOUT)
    QtWidgets.QApplication.processEvents()
    text = console.output_text()
    assert ">>> torch.manual_seed(3)" in text
    assert "<torch._C.Generator" not in text and "object at 0x" not in text
    # typed in the code bar too; a value's own repr still shows
    console.editor.setPlainText("torch.manual_seed(0)\ntorch.ones(2)")
    with qtbot.waitSignal(win.runner.finished, timeout=TIMEOUT):
        console.run_editor()
    QtWidgets.QApplication.processEvents()
    console.editor.setPlainText("torch.manual_seed(0)")
    with qtbot.waitSignal(win.runner.finished, timeout=TIMEOUT):
        console.run_editor()
    QtWidgets.QApplication.processEvents()
    text = console.output_text()
    assert "tensor([1., 1.])" in text
    assert "<torch._C.Generator" not in text and "object at 0x" not in text


def test_a_bad_field_is_explained_in_the_windows_language(make_window: Any) -> None:
    win = make_window()
    build = build_panel(win)
    build.factory.setCurrentText("zeros")
    build.shape.setText("2, -3")
    assert build.preview.text() == "⚠ shape '2, -3': sizes cannot be negative"
    assert not build.create_button.isEnabled()
    win.set_language("zh")  # said again in Chinese, the field kept
    assert build.preview.text() == "⚠ 形状 '2, -3'：大小不能是负数"
    win.set_language("en")
    assert build.preview.text() == "⚠ shape '2, -3': sizes cannot be negative"
