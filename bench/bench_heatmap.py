"""Heatmap of a huge memory-mapped plane in the Values panel: preview, block summary, zoom, pan.

A ``--size`` x ``--size`` float32 .npy (default 16384: 1 GiB) with a NaN in every 997th row,
opened by memory map and shown in a :class:`ValuesPanel` (offscreen). Timed, each against a
plain baseline measured in the same run:

* (a) open until the preview is shown (the strided sample), against ``np.load(mmap_mode='r')``
  plus reading the same strided sample with NumPy; then until the block summary (every
  element read: extremes, NaN/Inf per cell) is drawn, against one ``np.nanmax`` pass over the
  same memory map;
* (b) a zoom to a 64 x 64 region until its exact elements are drawn (includes the panel's
  debounce of ``DETAIL_DELAY_MS``), against reading the same region with NumPy;
* (c) per-frame time of pan steps (move the view, let the panel react, render the widget),
  against the same pan of a plain pyqtgraph plot holding one image of the preview's size;
  and the longest single frame.

    .venv/bin/python bench/bench_heatmap.py [--size 16384] [--steps 40] [--quick]

``--quick``: a 4096 x 4096 file (the figures are then not the ones to quote).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from tensor_explorer.qt.values_heatmap import DETAIL_DELAY_MS
from tensor_explorer.qt.values_panel import ValuesPanel
from tensor_explorer.qt.workers import wait_for_tasks


def make_file(path: Path, n: int) -> None:
    arr = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(n, n))
    rng = np.random.default_rng(0)
    rows = max(1, (1 << 22) // n)
    for r in range(0, n, rows):
        arr[r : r + rows] = rng.standard_normal((min(rows, n - r), n), dtype=np.float32)
    arr[::997, 5::1009] = np.nan  # between the samples of any small step
    arr.flush()
    del arr


def wait(app: QtWidgets.QApplication, done: Callable[[], bool], timeout: float = 600) -> float:
    """Seconds until ``done()`` while processing events."""
    t0 = time.perf_counter()
    while not done():
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
        if time.perf_counter() - t0 > timeout:
            raise TimeoutError("the panel did not finish in time")
    return time.perf_counter() - t0


def line(what: str, ours: float, base: float) -> None:
    """One figure; its last ``N.NNx`` is what bench/run_all.py collects."""
    print(f"  {what:<52} {ours * 1000:9.1f} ms / {base * 1000:8.1f} ms = {ours / base:.2f}x")


def pan_frames(app: QtWidgets.QApplication, widget: QtWidgets.QWidget, box: pg.ViewBox,
               start: tuple[float, float], steps: int, react: Callable[[], bool]) -> list[float]:
    """Seconds per frame of ``steps`` pans of 8 elements right and down: move, let the panel
    react (``react()`` True once it settled), render the widget."""
    (x0, y0), times = start, []
    for k in range(1, steps + 1):
        t0 = time.perf_counter()
        box.setRange(xRange=(x0 + 8 * k, x0 + 8 * k + 64), yRange=(y0 + 4 * k, y0 + 4 * k + 64),
                     padding=0)
        app.processEvents()
        while not react():
            app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 2)
        widget.grab()
        times.append(time.perf_counter() - t0)
    return times


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=16384)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--quick", action="store_true", help="a 4096 x 4096 file")
    args = ap.parse_args()
    n = 4096 if args.quick else args.size
    app = pg.mkQApp()
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "big.npy"
        make_file(path, n)
        print(f"file: {n}×{n} float32 ({path.stat().st_size / 2**30:.2f} GiB), "
              f"memory-mapped, a NaN in every 997th row; {os.cpu_count()} CPUs")

        # baselines: NumPy alone (the page cache is warm for both: read once first)
        np.nanmax(np.load(path, mmap_mode="r"))
        panel = ValuesPanel()
        panel.resize(900, 640)
        panel.show()
        app.processEvents()
        t0 = time.perf_counter()
        mm = np.load(path, mmap_mode="r")
        shown = []
        panel.plane_shown.connect(lambda: shown.append(time.perf_counter()))
        panel.set_value("big", mm)
        wait(app, lambda: bool(shown))
        t_preview = shown[0] - t0
        plane = panel.plane()
        assert plane is not None
        wait(app, lambda: panel.heatmap.summary is not None)
        t_summary = time.perf_counter() - t0
        sr, sc = plane.steps
        t0 = time.perf_counter()
        np.array(np.load(path, mmap_mode="r")[::sr, ::sc])
        b_preview = time.perf_counter() - t0
        t0 = time.perf_counter()
        np.nanmax(np.load(path, mmap_mode="r"))
        b_pass = time.perf_counter() - t0
        s = panel.heatmap.summary
        assert s is not None and s.nan_count == int(np.isnan(mm[::997]).sum())
        print(f"(a) open until shown (preview: 1 in {sr}×{sc}):")
        line("preview shown / np.load + strided read", t_preview, b_preview)
        line("block summary drawn (every element) / np.nanmax", t_summary, b_pass)

        # (b) zoom to 64 x 64 elements until exact
        box = panel.heat_item.getViewBox()
        c = n // 2 + 3
        t0 = time.perf_counter()
        box.setRange(xRange=(c - 0.5, c + 63.5), yRange=(c - 0.5, c + 63.5), padding=0)
        wait(app, lambda: panel.heatmap.detail is not None)
        t_zoom = time.perf_counter() - t0
        t0 = time.perf_counter()
        np.array(np.load(path, mmap_mode="r")[c : c + 64, c : c + 64])
        b_zoom = time.perf_counter() - t0
        print(f"(b) zoom to 64×64 until exact (debounce {DETAIL_DELAY_MS} ms included):")
        line("exact region drawn / NumPy read of the region", t_zoom, b_zoom)
        line("  the same, less the debounce", max(1e-6, t_zoom - DETAIL_DELAY_MS / 1000),
             b_zoom)

        # (c) pan: each step moves 8 columns, 4 rows; the panel reads a new region when the
        # view leaves the one it holds (in the background; the frame does not wait for it)
        ours = pan_frames(app, panel.heat_widget, box, (c - 0.5, c - 0.5), args.steps,
                          lambda: True)
        wait(app, lambda: not panel.heatmap.busy())
        plain = pg.GraphicsLayoutWidget()
        plain.resize(panel.heat_widget.size())
        item = plain.addPlot()
        item.invertY(True)
        img = pg.ImageItem(np.asarray(plane.data, dtype=np.float32), axisOrder="row-major")
        img.setRect(QtCore.QRectF(-0.5, -0.5, n, n))
        item.addItem(img)
        plain.show()
        app.processEvents()
        base = pan_frames(app, plain, item.getViewBox(), (c - 0.5, c - 0.5), args.steps,
                          lambda: True)
        print(f"(c) pan, {args.steps} steps, median frame (move + react + render):")
        line("Values panel / plain pyqtgraph image", statistics.median(ours),
             statistics.median(base))
        line("longest frame / plain pyqtgraph longest", max(ours), max(base))
        panel.set_value(None, None)
        wait_for_tasks(10_000)
        panel.close()
        plain.close()
        del mm


if __name__ == "__main__":
    main()
