"""The command line: `inspect` output, JSON, and one-line errors with non-zero exit status."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tensor_explorer.cli import main


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tensor_explorer", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    a[1, 2] = np.nan
    np.save(tmp_path / "a.npy", a)
    np.savez(tmp_path / "d.npz", features=np.ones((2, 3), np.int64), labels=np.array([0.0, 1.0]))
    (tmp_path / "bad.npy").write_bytes(b"\x93NUMPY\x01\x00garbage")
    return {"a": tmp_path / "a.npy", "d": tmp_path / "d.npz", "bad": tmp_path / "bad.npy"}


def test_inspect_text(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(files["a"]), str(files["d"])]) == 0
    out = capsys.readouterr().out
    assert "shape (3, 4)" in out and "float32" in out
    assert "NaN 1" in out and "first non-finite at (1, 2)" in out
    assert "integer-features" in out and "float-labels" in out


def test_inspect_json_is_complete(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["inspect", "--json", str(files["a"])]) == 0
    doc = json.loads(capsys.readouterr().out)
    (entry,) = doc["files"][0]["arrays"]
    assert entry["name"] == "a"
    assert entry["facts"]["shape"] == [3, 4] and entry["facts"]["stride"] == [4, 1]
    assert entry["stats"]["nan"] == 1 and entry["stats"]["first_nonfinite"] == [1, 2]
    assert entry["stats"]["max"] == 11.0
    assert entry["tensor"]["shares_memory"] is True
    assert next(d["code"] for d in entry["diagnoses"]) == "nonfinite"


def test_bad_file_is_one_line_and_non_zero(files: dict[str, Path]) -> None:
    r = _run("inspect", str(files["bad"]))
    assert r.returncode != 0
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "bad.npy" in lines[0] and "Traceback" not in r.stderr


def test_mixed_good_and_bad_reports_both(files: dict[str, Path], capsys) -> None:
    assert main(["inspect", "--json", str(files["a"]), str(files["bad"])]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert "arrays" in doc["files"][0] and "error" in doc["files"][1]


def test_usage_errors_do_not_trace(tmp_path: Path) -> None:
    r = _run("inspect")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    r = _run("inspect", str(tmp_path / "missing.npy"))
    assert r.returncode == 1 and "no such file" in r.stderr


@pytest.mark.parametrize("args", [
    ("--bogus",), ("lesons",), ("inspect", "--no-such-flag", "x.npy"), ("info", "--x"),
    ("screenshot",), ("lessons", "extra"), ("check",), ("welcome", "--trsut"),
])
def test_unknown_arguments_are_one_line_and_never_open_a_window(args: tuple[str, ...]) -> None:
    """No display here: a command that tried to open the window would fail differently (or
    hang until the timeout); each must say what is wrong in one line and exit 2."""
    r = subprocess.run([sys.executable, "-m", "tensor_explorer", *args], capture_output=True,
                       text=True, timeout=60,
                       env={k: v for k, v in os.environ.items()
                            if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")})
    assert r.returncode == 2, (args, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tensor-explorer"), r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""
    if args == ("lesons",):
        assert "did you mean tensor-explorer lessons?" in lines[0]


def test_info_reports_versions_cuda_fonts_and_folders() -> None:
    import torch

    r = _run("info", "--json")
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    assert info["versions"]["torch"] == torch.__version__
    assert info["versions"]["numpy"] == np.__version__
    assert {"python", "qt", "pyside6", "pyqtgraph"} <= set(info["versions"])
    assert info["cuda"]["available"] == torch.cuda.is_available()
    assert len(info["cuda"]["devices"]) == (torch.cuda.device_count()
                                            if torch.cuda.is_available() else 0)
    assert isinstance(info["qt_platform"], str) and info["qt_platform"]
    assert set(info["fonts"]) == {"en", "zh"}  # the documented shape
    for lang in ("en", "zh"):
        assert info["fonts"][lang]["missing"] == 0
        assert info["fonts"][lang]["family"].startswith("Tensor Explorer Sans")
    assert Path(info["folders"]["lessons"]).is_dir()
    text = _run("info")
    assert text.returncode == 0 and "lacks 0 characters" in text.stdout
    assert f"torch            {torch.__version__}" in text.stdout


def test_info_reports_a_window_platform_that_cannot_start() -> None:
    """The case a bug report is for: the window's platform cannot start (here: a display that
    does not exist). info still answers, and says why."""
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env["DISPLAY"] = ":9731"
    env.pop("WAYLAND_DISPLAY", None)
    r = subprocess.run([sys.executable, "-m", "tensor_explorer", "info", "--json"],
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    assert info["qt_platform_error"]
    assert info["fonts"]["zh"]["missing"] == 0


def test_inspect_json_writes_non_finite_numbers_as_strings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # JSON has no NaN/Infinity: such figures are written "nan", "inf", "-inf" (documented)
    np.save(tmp_path / "huge.npy", np.array([1e308, -1e308, 0.0]))
    np.save(tmp_path / "long.npy", np.array([1.5, np.nan, 2.5], dtype=np.longdouble))
    np.save(tmp_path / "clong.npy", np.array([3 + 4j, 1j], dtype=np.clongdouble))
    paths = [str(tmp_path / n) for n in ("huge.npy", "long.npy", "clong.npy")]
    assert main(["inspect", "--json", *paths]) == 0
    out = capsys.readouterr().out
    doc = json.loads(out)  # strict JSON: no bare NaN or Infinity
    assert ": NaN" not in out and "Infinity" not in out
    huge, long_, clong = (f["arrays"][0] for f in doc["files"])
    exact = float(np.std(np.array([1e308, -1e308, 0.0], dtype=np.longdouble)))  # float64 overflows
    assert huge["stats"]["max"] == 1e308 and huge["stats"]["std"] == pytest.approx(exact, rel=1e-15)
    want = np.array([1.5, 2.5], dtype=np.longdouble)
    assert long_["stats"]["nan"] == 1 and long_["stats"]["mean"] == float(want.mean())
    assert long_["tensor"]["dtype"] is None and "float64" in long_["tensor"]["note"]
    assert clong["stats"]["of"] == "magnitude" and clong["stats"]["max"] == 5.0
    from tensor_explorer.cli import json_safe

    assert json_safe({"a": [float("nan"), float("inf"), -float("inf"), 1.0]}) == {
        "a": ["nan", "inf", "-inf", 1.0]
    }


def test_one_bad_array_does_not_stop_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tensor_explorer import cli

    np.savez(tmp_path / "two.npz", good=np.arange(3.0), boom=np.arange(2.0))
    np.save(tmp_path / "after.npy", np.arange(4))
    real = cli.inspect_entry

    def entry(name: str, array: object) -> dict[str, object]:
        if name == "boom":
            raise RuntimeError("a bug in a fact")
        return real(name, array)

    monkeypatch.setattr(cli, "inspect_entry", entry)
    assert main(["inspect", "--json", str(tmp_path / "two.npz"), str(tmp_path / "after.npy")]) == 1
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    two, after = doc["files"]
    by_name = {e["name"]: e for e in two["arrays"]}
    assert "error" in by_name["boom"] and "a bug in a fact" in by_name["boom"]["error"]
    assert by_name["good"]["stats"]["max"] == 2.0
    assert after["arrays"][0]["facts"]["shape"] == [4]
    assert captured.err.count("\n") == 1 and "boom" in captured.err
