"""``tensor-explorer info``: what a user pastes into a bug report (like ``napari --info``).

Versions, CUDA devices, the Qt platform, the font each language draws with and how many
characters of the shipped texts it lacks, and the folders the application reads and writes.
Opens no window: fonts are measured on the offscreen platform; the window's own platform is
tried in a child process, so a platform that cannot start is reported, not fatal.
"""

from __future__ import annotations

import os
import platform
import re
import sys
from importlib import metadata
from typing import Any

from .. import __version__


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _cuda() -> dict[str, Any]:
    import torch

    devices = []
    available = bool(torch.cuda.is_available())
    if available:
        for i in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(i)
            devices.append({"index": i, "name": props.name,
                            "memory_bytes": int(props.total_memory),
                            "capability": f"{props.major}.{props.minor}"})
    return {"available": available, "torch_cuda": torch.version.cuda, "devices": devices}


_PROBE = ("import sys\nfrom PySide6.QtWidgets import QApplication\n"
          "app = QApplication(sys.argv[:1])\nprint(app.platformName())\n")


def window_platform() -> tuple[str, str | None]:
    """The Qt platform the window would start on, and why it cannot start (None: it can).

    Tried in a child process: a platform plugin that cannot load (a missing libxcb-cursor0,
    a stale ssh DISPLAY) aborts the process that tries it, and that is exactly what a bug
    report needs to say."""
    import subprocess

    try:
        run = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                             timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return os.environ.get("QT_QPA_PLATFORM", "unknown"), str(exc)
    if run.returncode == 0 and run.stdout.strip():
        return run.stdout.strip().splitlines()[-1], None
    lines = [ln for ln in run.stderr.splitlines() if ln.strip()]
    # the first of Qt's lines says what went wrong ("could not connect to display"), the
    # ones after it what Qt then tried; keep the first two
    why = "; ".join(ln.removeprefix("qt.qpa.xcb: ").removeprefix("qt.qpa.plugin: ").strip()
                    for ln in lines[:2])
    named = re.search(r'platform plugin "([\w-]+)"', run.stderr)
    default = {"linux": "xcb", "darwin": "cocoa", "win32": "windows"}.get(sys.platform, "")
    name = named.group(1) if named else os.environ.get("QT_QPA_PLATFORM", default) or "unknown"
    return name, why or f"the window's platform did not start (exit status {run.returncode})"


def collect() -> dict[str, Any]:
    """Everything ``info`` reports, JSON-safe."""
    import numpy
    import torch

    platform_name, platform_error = window_platform()
    os.environ["QT_QPA_PLATFORM"] = "offscreen"  # fonts are measured offscreen: no window
    from PySide6 import QtCore, QtGui

    from ..paths import resources_dir
    from . import fonts
    from .app import default_settings, get_app
    from .autosave import default_path
    from .errors import log_path

    app = get_app()
    versions = {
        "tensor_explorer": __version__,
        "python": platform.python_version(),
        "torch": torch.__version__,
        "numpy": numpy.__version__,
        "qt": QtCore.qVersion(),
        "pyside6": _version("PySide6-Essentials") or _version("PySide6"),
        "pyqtgraph": _version("pyqtgraph"),
        "numba": _version("numba"),
        "psygnal": _version("psygnal"),
    }
    size = app.font().pointSizeF()
    font_report: dict[str, Any] = {}
    for lang in ("en", "zh"):
        chain = fonts.families(lang)
        drawn = QtGui.QFontInfo(fonts.ui_font(size, lang)).family()
        font_report[lang] = {"family": drawn, "families": chain,
                             "missing": len(fonts.missing(lang))}
    mono = QtGui.QFontInfo(fonts.mono_font(size))
    resources = resources_dir()
    folders = {
        "resources": str(resources),
        "lessons": str(resources / "lessons"),
        "translations": str(resources / "translations"),
        "fonts": str(resources / "fonts"),
        "settings": default_settings().fileName(),
        "error_log": str(log_path()),
        "autosave": str(default_path()),
    }
    return {
        "versions": versions,
        "platform": f"{platform.system()} {platform.release()} ({platform.machine()})",
        "cuda": _cuda(),
        "qt_platform": platform_name,
        "qt_platform_error": platform_error,
        "fonts": font_report,
        "code_font": {"family": mono.family(), "families": fonts.mono_families()},
        "bundled_fonts": fonts.available(),
        "folders": folders,
    }


def format_text(info: dict[str, Any]) -> str:
    """The report as a person reads it."""
    lines = ["Tensor Explorer " + info["versions"]["tensor_explorer"], ""]
    lines += [f"  {name:16} {value or 'not installed'}"
              for name, value in info["versions"].items() if name != "tensor_explorer"]
    lines += ["", f"  {'system':16} {info['platform']}",
              f"  {'Qt platform':16} {info['qt_platform']}"
              + (f" (cannot start: {info['qt_platform_error']})"
                 if info["qt_platform_error"] else "")]
    cuda = info["cuda"]
    if cuda["available"]:
        for d in cuda["devices"]:
            lines.append(f"  {'cuda:' + str(d['index']):16} {d['name']}, "
                         f"{d['memory_bytes'] / 2**30:.1f} GiB, capability {d['capability']}")
    else:
        built = f"torch built with CUDA {cuda['torch_cuda']}" if cuda["torch_cuda"] else (
            "torch is a CPU build")
        lines.append(f"  {'CUDA':16} no device ({built})")
    lines.append("")
    for lang, label in (("en", "English"), ("zh", "Chinese")):
        f = info["fonts"][lang]
        lines.append(f"  {'font, ' + label:16} {f['family']} (then {', '.join(f['families'][1:])}"
                     f"); lacks {f['missing']} characters of the shipped texts")
    lines.append(f"  {'font, code':16} {info['code_font']['family']}")
    lines.append("")
    lines += [f"  {name:16} {path}" for name, path in info["folders"].items()]
    return "\n".join(lines)
