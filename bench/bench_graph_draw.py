"""Benchmark: trace + layout + first draw of big autograd graphs in the graph pane's view.

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_graph_draw.py
[--sizes 1000 5000 20000] [--repeat 3]``

Graphs are built like ``bench_graph.py`` does (small elementwise ops in a loop, eight leaves
reused, a branch every few steps). For each size it reports the median of ``--repeat`` runs of:

- ``trace``: ``tx.trace`` alone (with saved-tensor info) — the baseline every ratio refers to,
  measured in the same run;
- ``pane``: what the pane does for a graph of that size before the first frame: trace, collapse
  chains (graphs above ``COLLAPSE_ABOVE`` nodes), node and edge texts, node sizes and layout
  (``compute_drawing``), scene items (``GraphView.show_drawing``, fitted to a 1000x700 view) and
  the first paint of the view into an image;
- ``full``: the same without collapsing (every node an item: the worst case, e.g. after
  expanding every group);

with the split of the pane's time into trace, texts + layout, items and paint. The aim (issue 6):
20k nodes under 2 s.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
try:
    import tensor_explorer  # noqa: F401
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(HERE.parent / "src"))

import torch  # noqa: E402
from PySide6 import QtGui, QtWidgets  # noqa: E402

from bench_graph import build  # noqa: E402
from tensor_explorer.core.autograd import trace  # noqa: E402
from tensor_explorer.core.graph_layout import collapse_chains  # noqa: E402
from tensor_explorer.qt.graph_panel import COLLAPSE_ABOVE, _drawing  # noqa: E402
from tensor_explorer.qt.graph_view import GraphView  # noqa: E402


def _paint(view: GraphView) -> None:
    img = QtGui.QImage(view.size(), QtGui.QImage.Format.Format_ARGB32)
    painter = QtGui.QPainter(img)
    view.render(painter)
    painter.end()


def draw_once(view: GraphView, root: torch.Tensor, names: dict[str, torch.Tensor],
              collapse: bool) -> dict[str, float]:
    """Time each phase of the pane's path to a first frame."""
    t0 = time.perf_counter()
    graph = trace(root, names)
    t1 = time.perf_counter()
    shown = collapse_chains(graph) if collapse and len(graph) > COLLAPSE_ABOVE else graph
    drawing = _drawing(shown, graph, {}, None, [], view.style_.metrics, None)
    t2 = time.perf_counter()
    view.show_drawing(drawing)
    t3 = time.perf_counter()
    _paint(view)
    t4 = time.perf_counter()
    return {"trace": t1 - t0, "layout": t2 - t1, "items": t3 - t2, "paint": t4 - t3,
            "total": t4 - t0, "shown": float(len(shown.nodes))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 20000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    from tensor_explorer.qt import theme

    theme.state().apply("light", 1.0)
    view = GraphView()
    view.resize(1000, 700)
    print(f"torch {torch.__version__}, median of {args.repeat}; times in ms; ratio = time / "
          "trace-only time of the same graph")
    print(f"{'nodes':>7} {'trace':>7} | {'pane':>7} {'ratio':>6} {'shown':>6} "
          f"({'layout':>6} {'items':>6} {'paint':>6}) | {'full':>7} {'ratio':>6} "
          f"({'layout':>6} {'items':>6} {'paint':>6})")
    for n in args.sizes:
        root, leaves = build(n)
        names = {f"w{i}": t for i, t in enumerate(leaves)}
        names["out"] = root
        trace(root, names)  # warm caches
        draw_once(view, root, names, True)
        base, pane, full = [], [], []
        for _ in range(args.repeat):
            gc.collect()
            t0 = time.perf_counter()
            trace(root, names)
            base.append(time.perf_counter() - t0)
            gc.collect()
            pane.append(draw_once(view, root, names, True))
            app.processEvents()
            gc.collect()
            full.append(draw_once(view, root, names, False))
            app.processEvents()
        tb = statistics.median(base)

        def med(rows: list[dict[str, float]], key: str) -> float:
            return statistics.median(r[key] for r in rows)

        graph_n = len(trace(root, names, saved=False))
        print(f"{graph_n:>7} {tb * 1e3:>7.1f} | {med(pane, 'total') * 1e3:>7.1f} "
              f"{med(pane, 'total') / tb:>6.1f} {int(med(pane, 'shown')):>6} "
              f"({med(pane, 'layout') * 1e3:>6.1f} {med(pane, 'items') * 1e3:>6.1f} "
              f"{med(pane, 'paint') * 1e3:>6.1f}) | {med(full, 'total') * 1e3:>7.1f} "
              f"{med(full, 'total') / tb:>6.1f} ({med(full, 'layout') * 1e3:>6.1f} "
              f"{med(full, 'items') * 1e3:>6.1f} {med(full, 'paint') * 1e3:>6.1f})")
        view.clear()
        del root, leaves, names
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
