"""Start-up benchmark: time until the main window is shown, as a ratio to the bare import of
torch + PySide6 + pyqtgraph measured in the same run (the unavoidable part).

    .venv/bin/python bench/bench_startup.py [--repeat 5]

Each run is a fresh process with QT_QPA_PLATFORM=offscreen. The app prints "window shown" from
the first event-loop turn after ``show()`` (TENSOR_EXPLORER_QUIT_AFTER_MS makes it quit).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

BASELINE = "import torch, pyqtgraph\nfrom PySide6 import QtWidgets\nprint('imported', flush=True)\n"


def timed(args: list[str], env: dict[str, str], marker: str) -> float:
    """Seconds from process start until it prints ``marker`` (exit time is not counted)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                            text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        if marker in line:
            elapsed = time.perf_counter() - t0
            proc.wait()
            return elapsed
    proc.wait()
    raise RuntimeError(f"{args} never printed {marker!r}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    # measure an install as pip leaves a wheel: our modules byte-compiled (scripts/bootstrap.sh
    # does the same for the editable install; without it, PYTHONDONTWRITEBYTECODE=1 would make
    # every start compile our ~40 modules, ~0.1 s that the baseline's site-packages never pay)
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    subprocess.run([sys.executable, "-m", "compileall", "-q", src], check=True,
                   stdout=subprocess.DEVNULL)
    with tempfile.TemporaryDirectory() as d:
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "TENSOR_EXPLORER_QUIT_AFTER_MS": "50",
               "TENSOR_EXPLORER_SETTINGS": os.path.join(d, "s.ini"),
               "TENSOR_EXPLORER_NO_DIALOGS": "1",
               "TENSOR_EXPLORER_RECOVERY": os.path.join(d, "recovery.txs")}
        base, app = [], []
        for _ in range(args.repeat):  # interleaved, so both see the same machine load
            base.append(timed([sys.executable, "-c", BASELINE], env, "imported"))
            app.append(timed([sys.executable, "-m", "tensor_explorer"], env, "window shown"))
    b, a = statistics.median(base), statistics.median(app)
    print(f"bare import of torch + PySide6 + pyqtgraph: {b:.2f} s (median of {args.repeat})")
    print(f"tensor-explorer to a shown window (default lesson): {a:.2f} s")
    print(f"ratio: {a / b:.2f}x baseline")


if __name__ == "__main__":
    main()
