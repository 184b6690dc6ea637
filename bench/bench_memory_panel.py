"""Time the Memory panel's redraw for a workspace of 50 values (views and copies mixed).

Measured, each as the median of several runs:
* ``relations``: ``ws.relations()`` alone — the baseline, measured in the same run;
* ``model``: :func:`compute_model` (what the panel's background Task computes: allocations,
  footprints, nesting, relations, per-cell values and multiplicities);
* ``redraw``: :meth:`MemoryPanel.redraw` (scene items for the model, on the UI thread);
* ``paint``: rendering the panel's view into an image (what the screen costs);
* ``hover``: one hover (readers of one element, lit cells).

Ratios are to ``relations``. Run: ``python bench/bench_memory_panel.py`` (offscreen; add
``--big`` to add a 100-million-element tensor with views, drawn as ranges).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np
import torch
from PySide6 import QtGui, QtWidgets

from tensor_explorer.core.workspace import Workspace
from tensor_explorer.qt.bridge import WorkspaceBridge
from tensor_explorer.qt.memory_panel import MemoryPanel
from tensor_explorer.qt.memory_view import compute_model
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


if __name__ == "__main__":
    main()
