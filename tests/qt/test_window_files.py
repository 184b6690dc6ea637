"""Why a file cannot be opened, in the window's language (qt/window_files.py): opening a
truncated .npy, a damaged .npz, a bad session or an unreadable program in the Chinese window
says why in Chinese (the core's catalog message), and in English exactly as before."""

from __future__ import annotations

import json
import re
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtWidgets
from pytestqt.qtbot import QtBot

from tensor_explorer.core.session import MANIFEST
from tensor_explorer.qt.main_window import MainWindow

TIMEOUT = 20_000


def _files(d: Path) -> dict[str, Path]:
    np.save(d / "good.npy", np.arange(8.0))
    data = (d / "good.npy").read_bytes()
    (d / "cut.npy").write_bytes(data[:-20])
    np.savez(d / "damaged.npz", x=np.arange(64.0))  # stored: a flipped byte fails the CRC-32
    raw = bytearray((d / "damaged.npz").read_bytes())
    raw[raw.index(b"\x93NUMPY") + 200] ^= 0xFF
    (d / "damaged.npz").write_bytes(bytes(raw))
    with zipfile.ZipFile(d / "other.txs", "w") as zf:
        zf.writestr(MANIFEST, json.dumps(
            {"format": "other", "version": 1, "allocations": [], "values": []}))
    (d / "binary.py").write_bytes(b"\xff\xfe\x00" * 10)
    return {k: d / k for k in ("cut.npy", "damaged.npz", "other.txs", "binary.py")}


#: file -> (why in English, as it always was; why in Chinese)
WHY = {
    "cut.npy": ("cut.npy: file is truncated: the header promises 64 bytes of data (shape (8,), "
                "float64) but only 44 follow",
                "cut.npy：文件被截断了：头部声明有 64 字节的数据（形状 (8,)，float64），"
                "但后面只有 44 字节"),
    "damaged.npz": ("damaged.npz[x]: the data does not match the archive's checksum (CRC-32)",
                    "damaged.npz[x]：数据与压缩包记录的校验和（CRC-32）不一致"),
    "other.txs": ("other.txs: not a valid session file: this is not a Tensor Explorer session",
                  "other.txs：不是有效的会话文件：这不是 Tensor Explorer 的会话"),
    "binary.py": ("binary.py: not a UTF-8 text file", "binary.py：不是 UTF-8 编码的文本文件"),
}


def _open(qtbot: QtBot, win: MainWindow, path: Path) -> str:
    win.last_error = None
    win.open_paths([str(path)])
    qtbot.waitUntil(lambda: win.last_error is not None, timeout=TIMEOUT)
    return str(win.last_error)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_why_a_file_cannot_be_opened_is_said_in_the_windows_language(
        qtbot: QtBot, make_window: Callable[..., MainWindow], tmp_path: Path, lang: str) -> None:
    win = make_window()
    win.set_language(lang)
    title = "无法打开" if lang == "zh" else "Could not open"
    for name, path in _files(tmp_path).items():
        english, chinese = WHY[name]
        why = chinese if lang == "zh" else english
        assert _open(qtbot, win, path) == why
        assert f"{title} {name}: {why}" in win.panels["console"].output_text()
        assert win.statusBar().currentMessage() == why
    assert win.workspace.names() == []


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_what_opening_noted_is_said_under_the_output(
        qtbot: QtBot, make_window: Callable[..., MainWindow], tmp_path: Path, lang: str) -> None:
    # A session that dropped a graph and an array with bytes after its data: the core notes
    # them (Workspace.session_notes, loading.load_notes); the window says them, in its language.
    from tensor_explorer.core.workspace import Workspace

    np.save(tmp_path / "extra.npy", np.arange(4.0))
    with open(tmp_path / "extra.npy", "ab") as f:
        f.write(b"junk")
    ws = Workspace()
    ws.run("w = torch.ones(3, requires_grad=True)\nloss = (w * 2).sum()")
    ws.save(tmp_path / "graph.txs")
    win = make_window()
    win.set_language(lang)
    console = win.panels["console"]
    expected = {"zh": ("注意：", "数据后面的 4 字节被忽略了"),
                "en": ("Note: ", "4 bytes after the data were ignored")}[lang]
    win.open_paths([str(tmp_path / "extra.npy")])
    qtbot.waitUntil(lambda: expected[1] in console.output_text(), timeout=TIMEOUT)
    line = next(x for x in console.output_text().splitlines() if expected[1] in x)
    assert line.startswith(expected[0])
    win.open_paths([str(tmp_path / "graph.txs")])
    qtbot.waitUntil(lambda: "loss" in win.workspace, timeout=TIMEOUT)
    notes = win.files.notes_after_open(str(tmp_path / "graph.txs"), ["w", "loss"])
    assert notes and any("loss" in note for note in notes)
    said = [note.render(lang) for note in notes]  # (each a catalog Message)
    qtbot.waitUntil(lambda: all(s in console.output_text() for s in said), timeout=TIMEOUT)
    if lang == "zh":
        assert all(re.search(r"[\u4e00-\u9fff]", s) for s in said), said


def _slow_program(tmp_path: Path) -> Path:
    """A program that runs long enough to be running when the next file is asked for."""
    prog = tmp_path / "slow.py"
    prog.write_text("total = 0\nfor i in range(300_000):\n    total += i\n", encoding="utf-8")
    return prog


def test_an_array_opened_while_a_program_runs_opens_after_it(
        qtbot: QtBot, make_window: Callable[..., MainWindow], tmp_path: Path) -> None:
    # `tensor-explorer work.py data.npy` (or a drop of both): the array used to fail with
    # "a program is running in this workspace" when the program was still running.
    prog = _slow_program(tmp_path)
    np.save(tmp_path / "data.npy", np.arange(3.0))
    win = make_window()
    win.last_error = None
    win.open_paths([str(prog), str(tmp_path / "data.npy")])
    assert win.runner.busy and win.files.waiting == [str(tmp_path / "data.npy")]
    assert "opens when the running program has finished" in win.statusBar().currentMessage()
    qtbot.waitUntil(lambda: "data" in win.workspace and not win.runner.busy, timeout=TIMEOUT)
    assert win.workspace["total"] == sum(range(300_000))
    np.testing.assert_array_equal(win.workspace["data"], np.arange(3.0))
    assert win.last_error is None and win.files.waiting == []


def test_a_file_waiting_for_a_program_is_not_opened_once_the_window_closes(
        qtbot: QtBot, make_window: Callable[..., MainWindow], tmp_path: Path) -> None:
    np.save(tmp_path / "data.npy", np.arange(3.0))
    win = make_window()
    win.open_paths([str(_slow_program(tmp_path)), str(tmp_path / "data.npy")])
    assert win.files.waiting
    win.close()  # stops the program: its end must not open the file into a closed window
    qtbot.waitUntil(lambda: not win.runner.busy, timeout=TIMEOUT)
    QtWidgets.QApplication.processEvents()
    assert win.files.waiting == [] and win.files.tasks == []
    assert "data" not in win.workspace


def test_a_workspace_held_by_something_else_is_waited_for_without_reading_the_file(
        qtbot: QtBot, make_window: Callable[..., MainWindow], tmp_path: Path) -> None:
    np.save(tmp_path / "data.npy", np.arange(3.0))
    win = make_window()
    with win.workspace.held():  # (a lesson's expectation being checked, say)
        win.open_paths([str(tmp_path / "data.npy")])
        assert win.files.waiting == [str(tmp_path / "data.npy")] and win.files.tasks == []
        qtbot.wait(600)  # two retries' worth: still nothing read, nothing piled up
        assert win.files.tasks == [] and win.files.waiting
    # opened once released; the load, delivered, leaves the list of loads
    qtbot.waitUntil(lambda: "data" in win.workspace and not win.files.tasks, timeout=TIMEOUT)
    assert win.files.waiting == []


def test_a_session_waiting_for_a_program_asks_when_it_would_replace_the_values(
        qtbot: QtBot, make_window: Callable[..., MainWindow], tmp_path: Path) -> None:
    from tensor_explorer.core.workspace import Workspace

    saved = Workspace()
    saved.run("kept = torch.ones(2)")
    saved.save(tmp_path / "s.txs")
    win = make_window()
    asked: list[tuple[str, bool]] = []

    def confirm(what: str, hint: str | None = None) -> bool:
        asked.append((what, "total" in win.workspace))
        return True

    win.confirm_replace = confirm  # type: ignore[method-assign]
    win.open_paths([str(_slow_program(tmp_path)), str(tmp_path / "s.txs")])
    assert asked == [] and win.files.waiting == [str(tmp_path / "s.txs")]
    qtbot.waitUntil(lambda: "kept" in win.workspace, timeout=TIMEOUT)
    # asked once, after the program had made its values: those are what it replaces
    assert len(asked) == 1 and asked[0][1] and "s.txs" in asked[0][0]


def test_a_second_program_waits_for_the_first(
        qtbot: QtBot, make_window: Callable[..., MainWindow], tmp_path: Path) -> None:
    # `tensor-explorer a.py b.py`: the second used to be refused ("A program is still running")
    second = tmp_path / "second.py"
    second.write_text("after = total + 1\n", encoding="utf-8")
    win = make_window()
    win.last_error = None
    win.open_paths([str(_slow_program(tmp_path)), str(second)])
    assert win.files.waiting == [str(second)]
    qtbot.waitUntil(lambda: "after" in win.workspace and not win.runner.busy, timeout=TIMEOUT)
    assert win.workspace["after"] == sum(range(300_000)) + 1
    assert win.files.waiting == [] and win.last_error is None
