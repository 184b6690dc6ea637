"""Time the Memory panel's redraw for a workspace of 50 values (views and copies mixed).

Measured, each as the median of several runs:
* ``relations``: ``ws.relations()`` alone — the baseline, measured in the same run;
* ``model``: :func:`compute_model` (what the panel's background Task computes: allocations,
  footprints, nesting, relations, per-cell values and multiplicities);
* ``redraw``: :meth:`MemoryPanel.redraw` (scene items for the model, on the UI thread);
* ``paint``: rendering the panel's view into an image (what the screen costs);
* ``hover``: one hover (readers of one element, lit cells).

Ratios are to ``relations``.

Then a thousand views of one tensor (half a million related pairs), each case a ``screenshot``
of the Memory panel in a fresh process (what ``tensor-explorer screenshot --panel memory`` does:
start, run the program, draw, write the PNG), against the same screenshot of a one-value
program (the start-up, measured in the same run): seconds and peak resident memory, as ratios
and as what the case adds (aim: at most 1 s and 100 MiB over start-up). Cases: strided views
(``base[i::1000]``), ``x.split(1)`` and ``x.unbind(0)``. Last, in this process, the longest
the UI thread was held (a 5 ms timer's largest gap) while the panel computed, drew, and the
relation list and the drawing were scrolled to their ends: the median of :data:`STALL_RUNS`
fresh panels (a busy machine makes single runs vary), each run's figure listed too.

Run: ``python bench/bench_memory_panel.py`` (offscreen; add ``--big`` to add a
100-million-element tensor with views, drawn as ranges; ``--no-views`` skips the 1000 views).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np
import torch
from PySide6 import QtCore, QtGui, QtWidgets

from tensor_explorer.core.memory_drawing import compute_model
from tensor_explorer.core.workspace import Workspace
from tensor_explorer.qt.bridge import WorkspaceBridge
from tensor_explorer.qt.gc_guard import install as install_gc_guard
from tensor_explorer.qt.memory_panel import MemoryPanel
from tensor_explorer.qt.screenshot import settle


def workspace(big: bool) -> Workspace:
    """50 values: 5 bases (tensor, array, from_numpy...), each with views, slices, expands,
    transposes and copies."""
    ws = Workspace()
    torch.manual_seed(0)
    for b in range(5):
        base = torch.randn(8, 12)
        arr = np.arange(48, dtype=np.float32).reshape(6, 8)
        vals = {
            f"t{b}": base,
            f"t{b}_row": base[2],
            f"t{b}_col": base[:, 3],
            f"t{b}_T": base.t(),
            f"t{b}_step": base[::2, 1::3],
            f"t{b}_exp": base[0, :4].expand(6, 4),
            f"t{b}_copy": base.clone(),
            f"a{b}": arr,
            f"a{b}_t": torch.from_numpy(arr),
            f"a{b}_neg": arr[::-1, ::2],
        }
        for k, v in vals.items():
            ws[k] = v
    if big:
        x = torch.empty(100_000_000, dtype=torch.uint8)
        ws["big"] = x
        ws["big_half"] = x.view(10_000, 10_000)[:5000]
        ws["big_cols"] = x.view(10_000, 10_000)[:, ::2]
    return ws


def timed(fn: Callable[[], object], repeat: int = 7) -> float:
    fn()  # warm up
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return statistics.median(out)


def main() -> None:
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    install_gc_guard()  # garbage collected on the UI thread, on a timer, as the app does
    big = "--big" in sys.argv
    ws = workspace(big)
    bridge = WorkspaceBridge(ws)
    panel = MemoryPanel(bridge)
    panel.resize(1000, 700)
    panel.show()
    settle()
    items = ws.items()
    n = len(items)

    t_rel = timed(ws.relations)
    t_model = timed(lambda: compute_model(items))
    t_redraw = timed(panel.redraw)
    image = QtGui.QImage(panel.view.viewport().size(), QtGui.QImage.Format.Format_ARGB32)

    def paint() -> None:
        painter = QtGui.QPainter(image)
        panel.view.render(painter)
        painter.end()

    t_paint = timed(paint)
    t_hover = timed(lambda: panel.hover_element("t0", (2, 3)))
    print(f"Memory panel, {n} values ({len(ws.relations())} related pairs, "
          f"{len(panel.allocations())} allocations){' + 100M-element tensor' if big else ''}")
    print(f"  baseline ws.relations()   {t_rel * 1e3:8.2f} ms   1.0x")
    for label, t in (("model (background Task)", t_model), ("redraw (UI thread)", t_redraw),
                     ("paint 1000x700 view", t_paint), ("hover one element", t_hover)):
        print(f"  {label:26s}{t * 1e3:8.2f} ms  {t / t_rel:5.1f}x")
    panel.close()
    app.processEvents()
    if "--no-views" not in sys.argv:
        thousand_views(app)


#: programs binding a thousand views of one tensor (v0 ... v999), and the start-up baseline
VIEWS = {
    "strided views base[i::1000]": (
        "base = torch.arange(100000.)\n"
        "for i in range(1000):\n"
        "    globals()[f'v{i}'] = base[i::1000]\n"),
    "x.split(1)": (
        "x = torch.arange(100000.).reshape(1000, 100)\n"
        "for i, part in enumerate(x.split(1)):\n"
        "    globals()[f'v{i}'] = part\n"),
    "x.unbind(0)": (
        "x = torch.arange(100000.).reshape(1000, 100)\n"
        "for i, row in enumerate(x.unbind(0)):\n"
        "    globals()[f'v{i}'] = row\n"),
}
BASELINE = "x = torch.arange(4.0)\n"
SHOT = (
    "import resource, sys, time\n"
    "t0 = time.perf_counter()\n"
    "from tensor_explorer.qt.app import screenshot_main\n"
    "assert screenshot_main(sys.argv[1], sys.argv[2], panel='memory', size='1000x700') == 0\n"
    "print('SHOT', time.perf_counter() - t0, "
    "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)\n"
)


def screenshot_cost(source: str, folder: Path, repeat: int = 3) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of a memory-panel screenshot of ``source`` in a fresh
    process, from the import of the app to the written PNG: medians of ``repeat`` runs."""
    prog = folder / "prog.py"
    prog.write_text(source)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    times, rss = [], []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", SHOT, str(prog), str(folder / "out.png")],
                             capture_output=True, text=True, env=env, check=True).stdout
        line = next(x for x in out.splitlines() if x.startswith("SHOT"))
        _, t, m = line.split()
        times.append(float(t))
        rss.append(float(m))
    return statistics.median(times), statistics.median(rss)


def ui_stall(app: QtCore.QCoreApplication) -> tuple[float, int, int]:
    """The longest gap of a 5 ms timer (ms) while a panel over the strided views is made,
    drawn, its relation list scrolled to the end twenty times and its drawing scrolled
    through; and the relation rows then read, of how many pairs."""
    ws = Workspace()
    ws.run(VIEWS["strided views base[i::1000]"])
    gaps: list[float] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    timer = QtCore.QTimer()
    timer.setInterval(5)
    timer.timeout.connect(tick)
    timer.start()
    panel = MemoryPanel(WorkspaceBridge(ws))
    panel.resize(1000, 700)
    panel.show()
    deadline = time.perf_counter() + 60
    while not panel.is_ready() and time.perf_counter() < deadline:
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
    for _ in range(20):
        panel.table.scrollToBottom()
        end = time.perf_counter() + 0.05
        while time.perf_counter() < end:
            app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
    bar = panel.view.verticalScrollBar()
    for step in range(0, bar.maximum() + 1, max(1, bar.maximum() // 20)):
        bar.setValue(step)
        end = time.perf_counter() + 0.02
        while time.perf_counter() < end:
            app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
    timer.stop()
    rows, pairs = panel.table.rowCount(), panel.model.pairs
    panel.close()
    panel.deleteLater()  # (its deferred work stops with it: the next run starts clean)
    app.processEvents()
    QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    return max(gaps[1:] or [0.0]) * 1e3, rows, pairs


#: runs of :func:`ui_stall` (the median is reported)
STALL_RUNS = 5


def thousand_views(app: QtCore.QCoreApplication) -> None:
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        t0, m0 = screenshot_cost(BASELINE, folder)
        print("1000 views of one tensor (500,500 pairs): memory-panel screenshot, fresh process")
        print(f"  baseline: one-value program (start-up)  {t0:6.2f} s  {m0:6.0f} MiB RSS")
        for label, source in VIEWS.items():
            t, m = screenshot_cost(source, folder)
            print(f"  {label:28s} time {t:6.2f} s  (+{t - t0:4.2f} s)  {t / t0:5.2f}x")
            print(f"  {label:28s} RSS  {m:6.0f} MiB (+{m - m0:4.0f} MiB)  {m / m0:5.2f}x")
    runs = [ui_stall(app) for _ in range(STALL_RUNS)]
    stall = statistics.median(r[0] for r in runs)
    rows = int(statistics.median(r[1] for r in runs))
    pairs = runs[0][2]
    each = ", ".join(f"{r[0]:.0f}" for r in runs)
    print(f"UI thread, 1000 views: longest hold {stall:.0f} ms (aim <= 50 ms) while drawing and "
          f"scrolling (median of {STALL_RUNS} runs: {each} ms); relation list read {rows:,} of "
          f"{pairs:,} pairs")


if __name__ == "__main__":
    main()
