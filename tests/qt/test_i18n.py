"""English and Chinese through Qt's translation system."""

from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6 import QtCore

from tensor_explorer.paths import resources_dir
from tensor_explorer.qt import i18n

TS = resources_dir() / "translations" / "tensor_explorer_zh.ts"
QM = resources_dir() / "translations" / "tensor_explorer_zh.qm"


def qt_tool(name: str) -> str:
    """A Qt tool that PySide6-Essentials installs (it is a dev dependency, so a missing tool
    means an incomplete environment: the test fails, it does not skip): beside the Python that
    runs the tests (a virtual environment need not be activated), else on the PATH; from any
    working directory."""
    found = (shutil.which(name, path=str(Path(sys.executable).parent))
             or shutil.which(name))
    assert found, (f"{name} is neither beside {sys.executable} nor on the PATH: install the "
                   "dev dependencies (PySide6-Essentials ships it)")
    return found


def test_every_message_is_translated() -> None:
    root = ET.parse(TS).getroot()
    unfinished = [
        (ctx.findtext("name"), msg.findtext("source"))
        for ctx in root.iter("context")
        for msg in ctx.iter("message")
        if (
            msg.find("translation") is None
            or msg.find("translation").get("type") in ("unfinished", "vanished", "obsolete")
            or not (msg.findtext("translation") or "").strip()
        )
    ]
    assert not unfinished, f"run scripts/update-translations and translate: {unfinished[:10]}"


def test_every_ui_string_is_in_the_ts_file(tmp_path: Path) -> None:
    lupdate = qt_tool("pyside6-lupdate")
    fresh = tmp_path / "fresh.ts"
    sources = sorted(
        str(p) for p in (resources_dir().parent / "src/tensor_explorer/qt").glob("*.py")
    )
    subprocess.run([lupdate, *sources, "-ts", str(fresh)], check=True, capture_output=True)
    have = {
        (c.findtext("name"), m.findtext("source"))
        for c in ET.parse(TS).getroot().iter("context")
        for m in c.iter("message")
    }
    want = {
        (c.findtext("name"), m.findtext("source"))
        for c in ET.parse(fresh).getroot().iter("context")
        for m in c.iter("message")
    }
    assert not (want - have), (
        f"new UI strings; run scripts/update-translations: {sorted(want - have)[:10]}"
    )


def test_compiled_qm_is_up_to_date(tmp_path: Path) -> None:
    lrelease = qt_tool("pyside6-lrelease")
    out = tmp_path / "zh.qm"
    subprocess.run([lrelease, str(TS), "-qm", str(out)], check=True, capture_output=True)
    assert out.read_bytes() == QM.read_bytes(), "run scripts/update-translations"


def test_install_switches_language(qapp) -> None:
    assert i18n.install("zh")
    assert QtCore.QCoreApplication.translate("MainWindow", "Workspace") == "工作区"
    assert i18n.install("en")
    assert QtCore.QCoreApplication.translate("MainWindow", "Workspace") == "Workspace"
    with pytest.raises(ValueError):
        i18n.install("fr")


def test_window_switches_language_live(qtbot, make_window) -> None:
    win = make_window()
    win.set_language("zh")
    assert win.docks["workspace"].windowTitle() == "工作区"
    assert any(a.text() == "文件(&F)" for a in win.menuBar().actions())
    win.set_language("en")
    assert win.docks["workspace"].windowTitle() == "Workspace"


def test_chinese_screenshot_differs(qtbot, tmp_path: Path) -> None:
    from tensor_explorer.qt.app import screenshot_main

    prog = tmp_path / "p.py"
    prog.write_text("x = torch.ones(2, 3)\n")
    en, zh = tmp_path / "en.png", tmp_path / "zh.png"
    screenshot_main(str(prog), str(en), panel="inspector", size="500x400")
    screenshot_main(str(prog), str(zh), panel="inspector", size="500x400", lang="zh")
    assert en.read_bytes() != zh.read_bytes()


def test_every_self_tr_literal_is_in_the_ts_file() -> None:
    """`self.tr("...")` inside an f-string is invisible to lupdate, and no module keeps a
    hand-made list of such texts for it: this finds every literal passed to `tr` by parsing
    the code, and each must be in the catalog (call tr() outside the f-string)."""
    import ast

    have = {
        (c.findtext("name"), m.findtext("source"))
        for c in ET.parse(TS).getroot().iter("context")
        for m in c.iter("message")
    }
    missing = []
    for path in sorted((resources_dir().parent / "src/tensor_explorer/qt").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            for node in ast.walk(cls):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "tr"
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)
                    and (cls.name, node.args[0].value) not in have
                ):
                    missing.append((path.name, cls.name, node.args[0].value))
    assert not missing, f"call tr() outside the f-string, update and translate: {missing[:10]}"
