"""Starting the app, `explore`, and the headless `screenshot` command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from PySide6 import QtGui

from tensor_explorer.core.workspace import Workspace
from tensor_explorer.qt import theme
from tensor_explorer.qt.app import explore, screenshot_main
from tensor_explorer.qt.main_window import PANELS
from tests.qt.pixels import assert_drawn

PROGRAM = """\
array = np.array([[1.0, 2.0], [3.0, float('nan')]], dtype=np.float32)
shared = torch.from_numpy(array)
torch.manual_seed(0)
w = torch.randn(2, 2, requires_grad=True)
loss = (shared.nan_to_num() @ w).sum()
"""


@pytest.fixture
def program(tmp_path: Path) -> Path:
    p = tmp_path / "lesson_like.py"
    p.write_text(PROGRAM)
    return p


def _image(path: Path) -> QtGui.QImage:
    img = QtGui.QImage(str(path))
    assert not img.isNull()
    return img


@pytest.mark.parametrize("panel", [*PANELS, "window"])
def test_screenshot_of_every_panel_is_not_blank(
    qtbot, program: Path, tmp_path: Path, panel: str
) -> None:
    out = tmp_path / f"{panel}.png"
    assert screenshot_main(str(program), str(out), panel=panel, size="640x420") == 0
    img = _image(out)
    assert (img.width(), img.height()) == (640, 420)
    assert_drawn(img, theme.LIGHT, panel)  # background, words in the text colour, detail


def test_screenshot_is_reproducible_and_options_change_it(qtbot, program, tmp_path) -> None:
    def shot(name: str, **kw) -> bytes:
        out = tmp_path / f"{name}.png"
        screenshot_main(str(program), str(out), panel="inspector", size="500x400", **kw)
        return out.read_bytes()

    a, b = shot("a"), shot("b")
    assert a == b  # same input -> same pixels
    assert shot("dark", theme_name="dark") != a
    assert shot("sel", select="array") != a
    big = tmp_path / "big.png"
    screenshot_main(str(program), str(big), panel="inspector", size="500x400", scale=2.0)
    assert (_image(big).width(), _image(big).height()) == (1000, 800)


def test_screenshot_svg_has_text(qtbot, program: Path, tmp_path: Path) -> None:
    out = tmp_path / "ws.svg"
    screenshot_main(str(program), str(out), panel="workspace", size="500x300")
    svg = out.read_text()
    assert svg.startswith("<?xml") and "<svg" in svg and "shared" in svg


def test_screenshot_bad_input_is_one_line_non_zero(tmp_path: Path) -> None:
    bad = tmp_path / "bad.npy"
    bad.write_bytes(b"nope")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    for args in (
        [str(bad), "--out", str(tmp_path / "x.png")],
        [str(tmp_path / "missing.npy"), "--out", str(tmp_path / "x.png")],
        [str(bad), "--out", str(tmp_path / "x.gif")],
    ):
        r = subprocess.run(
            [sys.executable, "-m", "tensor_explorer", "screenshot", *args],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        assert r.returncode != 0
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_screenshot_cli_writes_png(tmp_path: Path) -> None:
    np.save(tmp_path / "m.npy", np.arange(20.0).reshape(4, 5))
    out = tmp_path / "m.png"
    env = {**os.environ}
    env.pop("QT_QPA_PLATFORM", None)  # the command must go headless on its own
    env.pop("DISPLAY", None)
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "tensor_explorer",
            "screenshot",
            str(tmp_path / "m.npy"),
            "--out",
            str(out),
            "--panel",
            "values",
            "--size",
            "400x300",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    assert _image(out).width() == 400


def test_explore_returns_when_not_blocking(qtbot) -> None:
    from tensor_explorer.qt import app as app_mod

    win = app_mod.explore(False, a=torch.ones(2), b=np.zeros(3))
    qtbot.addWidget(win)
    assert win.workspace.names() == ["a", "b"] and win.workspace.selected == "b"
    assert win.isVisible()
    assert explore is app_mod.explore


def test_app_starts_on_files_and_programs(tmp_path: Path) -> None:
    np.save(tmp_path / "some.npy", np.ones((2, 2)))
    (tmp_path / "program.py").write_text("q = torch.ones(3)\n")
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "TENSOR_EXPLORER_QUIT_AFTER_MS": "300",
        "TENSOR_EXPLORER_SETTINGS": str(tmp_path / "s.ini"),
        "TENSOR_EXPLORER_NO_DIALOGS": "1",
    }
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "tensor_explorer",
            str(tmp_path / "some.npy"),
            str(tmp_path / "program.py"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    assert "window shown" in r.stdout


def test_killed_app_restores_its_workspace_on_the_next_start(tmp_path: Path) -> None:
    """The real app, killed mid-session (SIGKILL), offers its autosave at the next start."""
    import signal
    import time

    (tmp_path / "work.py").write_text(
        "array = np.arange(6.0).reshape(2, 3)\nshared = torch.from_numpy(array)\n"
        "w = torch.ones(3, requires_grad=True)\n")
    recovery = tmp_path / "recovery.txs"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen",
           "TENSOR_EXPLORER_SETTINGS": str(tmp_path / "s.ini"),
           "TENSOR_EXPLORER_RECOVERY": str(recovery), "TENSOR_EXPLORER_NO_DIALOGS": "1"}
    first = subprocess.Popen([sys.executable, "-m", "tensor_explorer", str(tmp_path / "work.py")],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        while not recovery.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert recovery.exists(), "the app never autosaved"
        time.sleep(0.5)
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(30)
    assert recovery.exists()  # a kill leaves the recovery file behind
    env2 = {**env, "TENSOR_EXPLORER_RESTORE": "1", "TENSOR_EXPLORER_QUIT_AFTER_MS": "300"}
    r = subprocess.run([sys.executable, "-m", "tensor_explorer"], env=env2, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "restored 3 values: array, shared, w" in r.stdout
    assert not recovery.exists()  # a clean exit removes it


def test_statistics_on_the_ui_thread_never_load_numba() -> None:
    # The Inspector reduces values up to SYNC_STATS_LIMIT elements on the UI thread; those must
    # stay on the torch path, since the first use of the fused kernel imports Numba (~0.3 s).
    from tensor_explorer.core import stats as stats_module
    from tensor_explorer.qt import inspector_panel

    assert inspector_panel.SYNC_STATS_LIMIT < stats_module.FUSED_MIN


def test_a_damaged_recovery_file_is_reported_in_the_saved_language(tmp_path: Path) -> None:
    """The start-up asks about (and reports) the recovery file before the window exists: in the
    language the settings keep, not in English."""
    (tmp_path / "s.ini").write_text("[General]\nlanguage=zh\n", encoding="utf-8")
    recovery = tmp_path / "recovery.txs"
    ws = Workspace()
    ws.run("x = torch.arange(4000.0)")
    ws.save(recovery)  # a real session (so it is offered), then one byte of its data flipped
    data = bytearray(recovery.read_bytes())
    data[data.index(b"data/0.bin") + 200] ^= 0xFF
    recovery.write_bytes(bytes(data))
    probe = (
        "import sys\n"
        "from PySide6 import QtWidgets\n"
        "def warning(parent, title, text, *rest):\n"
        "    print('WARNING:', text, flush=True)\n"
        "    return QtWidgets.QMessageBox.StandardButton.Ok\n"
        "QtWidgets.QMessageBox.warning = staticmethod(warning)\n"
        "from tensor_explorer.qt.app import run_app\n"
        "sys.exit(run_app([]))\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen",
           "TENSOR_EXPLORER_SETTINGS": str(tmp_path / "s.ini"),
           "TENSOR_EXPLORER_RECOVERY": str(recovery), "TENSOR_EXPLORER_NO_DIALOGS": "1",
           "TENSOR_EXPLORER_RESTORE": "1", "TENSOR_EXPLORER_QUIT_AFTER_MS": "300"}
    r = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    warned = [line for line in r.stdout.splitlines() if line.startswith("WARNING:")]
    assert len(warned) == 1 and "recovery.txs" in warned[0], r.stdout
    assert "不是有效的会话文件" in warned[0] and "not a valid" not in warned[0], warned
    assert not recovery.exists()  # not restored: discarded, so the next start is clean


def test_screenshot_presentation_draws_the_f5_layout(qtbot, tmp_path: Path,
                                                     monkeypatch) -> None:
    """#27 point 3: `screenshot --presentation --panel window` scaled the normal docks by 1.6
    ("重来" cut off, a horizontal scrollbar in the lesson) instead of drawing what F5 shows:
    the lesson and the step's panel on the stage."""
    from tensor_explorer.qt import screenshot as shot
    from tensor_explorer.qt import theme

    seen: dict[str, object] = {}

    def capture(widget, out, wh, scale) -> None:  # what would be drawn, as the window has it
        stage = widget.stage
        seen["active"] = stage.active
        seen["in_view"] = {n for n, d in widget.docks.items() if d.isVisible()}
        seen["scale"] = theme.state().scale

    monkeypatch.setattr(shot, "render_to_file", capture)
    try:
        assert screenshot_main("welcome", str(tmp_path / "f5.png"), panel="window",
                               step=2, presentation=True, lang="zh") == 0
    finally:
        theme.state().apply("light", scale=1.0)
    assert seen["active"] is True and seen["scale"] == theme.PRESENTATION_SCALE
    assert seen["in_view"] == {"lesson", "values"}  # step 2 is about the values
