"""The built wheel is the whole application: lessons, translations and fonts included.

Builds the wheel from this checkout, installs it into a fresh virtual environment (its
dependencies come from the project's .venv, nothing is downloaded) and runs the installed
command from a folder outside the checkout, so nothing can be read from ``resources/`` here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NO_FONTS = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>/nonexistent-font-dir</dir><cachedir>{cache}</cachedir></fontconfig>
"""
#: what a wheel is built from: the project without its build products and environments
IGNORE = shutil.ignore_patterns(".venv", "build", "dist", "*.egg-info", "__pycache__", ".git",
                                "*.pyc", ".pytest_cache", ".mypy_cache", ".ruff_cache")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh environment with the wheel installed; returns its python."""
    tmp = tmp_path_factory.mktemp("wheel")
    # built from a copy: setuptools reuses (and never prunes) a build/ folder in the tree, so a
    # wheel built in the checkout could carry files deleted since
    source = tmp / "source"
    for part in ("src", "resources"):
        shutil.copytree(ROOT / part, source / part, ignore=IGNORE)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-index",
                    "--no-build-isolation", "-w", str(tmp / "dist"), str(source)],
                   check=True, capture_output=True, text=True)
    (wheel,) = (tmp / "dist").glob("tensor_explorer-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("tensor_explorer/resources/lessons/") for n in names)
    env = tmp / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    python = env / "bin" / "python"
    site = Path(subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True).stdout.strip())
    # the dependencies: the project's .venv, appended after the fresh site-packages (a plain
    # path line does not run .venv's own .pth files, so its editable install stays out)
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                    "--target", str(site), str(wheel)], check=True, capture_output=True,
                   text=True)
    return python


def _run(python: Path, cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("TENSOR_EXPLORER")}
    environ.update(QT_QPA_PLATFORM="offscreen", **env)
    return subprocess.run([str(python), "-m", "tensor_explorer", *args], cwd=cwd, env=environ,
                          capture_output=True, text=True, timeout=240)


def test_installed_wheel_has_lessons_translations_and_fonts(installed: Path,
                                                            tmp_path: Path) -> None:
    where = subprocess.run([str(installed), "-c", "import tensor_explorer, sys; "
                            "print(tensor_explorer.__file__)"], cwd=tmp_path,
                           capture_output=True, text=True, check=True).stdout
    assert str(installed.parents[1]) in where  # the wheel's copy, not this checkout
    r = _run(installed, tmp_path, "lessons", "--json")
    assert r.returncode == 0, r.stderr
    shipped = sorted(p.name.split(".")[0] for p in (ROOT / "resources/lessons").glob("*.en.md"))
    lessons = json.loads(r.stdout)["lessons"]
    assert len(lessons) == len(shipped) >= 17
    assert all(set(item["languages"]) == {"en", "zh"} for item in lessons)


def test_installed_wheel_draws_chinese_with_its_own_fonts(installed: Path,
                                                          tmp_path: Path) -> None:
    """A zh screenshot from the wheel, on a machine with no fonts at all, is the same image as
    the one this checkout makes with the system's fonts; info reports no missing character."""
    conf = tmp_path / "no-fonts.conf"
    conf.write_text(NO_FONTS.format(cache=tmp_path / "fc-cache"))
    r = _run(installed, tmp_path, "info", "--json", FONTCONFIG_FILE=str(conf))
    assert r.returncode == 0, r.stderr
    fonts = json.loads(r.stdout)["fonts"]
    assert fonts["zh"]["missing"] == fonts["en"]["missing"] == 0
    assert fonts["zh"]["family"] == "Tensor Explorer Sans SC"
    assert json.loads(r.stdout)["folders"]["lessons"].startswith(str(installed.parents[1]))
    args = ("screenshot", "welcome", "--step", "2", "--lang", "zh", "--panel", "window")
    r = _run(installed, tmp_path, *args, "--out", str(tmp_path / "wheel.png"),
             FONTCONFIG_FILE=str(conf))
    assert r.returncode == 0, r.stderr
    here = subprocess.run([sys.executable, "-m", "tensor_explorer", *args, "--out",
                           str(tmp_path / "checkout.png")], cwd=ROOT, capture_output=True,
                          text=True, timeout=240, env={**os.environ,
                                                       "QT_QPA_PLATFORM": "offscreen"})
    assert here.returncode == 0, here.stderr
    assert (tmp_path / "wheel.png").read_bytes() == (tmp_path / "checkout.png").read_bytes()
