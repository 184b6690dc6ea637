"""Benchmark: trace + layout + first draw of big autograd graphs in the graph pane's view.

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_graph_draw.py
[--sizes 1000 5000 20000] [--repeat 3] [--graphs loop rnn]``

Two kinds of graphs: ``loop``, built like ``bench_graph.py`` does (small elementwise ops in a
loop, eight leaves reused all the way down, a branch every few steps), and ``rnn``, a recurrent
loop ``h = tanh(h @ W + x[t])`` (four nodes a step; the weight ``W`` and the input ``x`` are read
by every step: long edges, drawn along one bus each). For each size it reports the median of
``--repeat`` runs of:

- ``trace``: ``tx.trace`` alone (with saved-tensor info) — the baseline every ratio refers to,
  measured in the same run;
- ``pane``: what the pane does for a graph of that size before the first frame: trace, collapse
  repeated blocks and chains (``graph_layout.collapse``, graphs above ``COLLAPSE_ABOVE``
  nodes: these graphs are one loop, so they fold into a run of a few thousand blocks), node and
  edge texts, node sizes and layout
  (``compute_drawing``), scene items (``GraphView.show_drawing``, fitted to a 1000x700 view) and
  the first paint of the view into an image;
- ``blocks``: the same after a click on the run (``collapse`` with the run expanded: every
  block a group of its own, thousands of nodes);
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
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
try:
    import tensor_explorer  # noqa: F401
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(HERE.parent / "src"))

import torch  # noqa: E402
from PySide6 import QtGui, QtWidgets  # noqa: E402

from bench_graph import build as build_loop  # noqa: E402
from tensor_explorer.core.autograd import trace  # noqa: E402
from tensor_explorer.core.graph_layout import collapse  # noqa: E402
from tensor_explorer.qt.graph_panel import COLLAPSE_ABOVE, _drawing  # noqa: E402
from tensor_explorer.qt.graph_view import GraphView  # noqa: E402


def _paint(view: GraphView) -> None:
    img = QtGui.QImage(view.size(), QtGui.QImage.Format.Format_ARGB32)
    painter = QtGui.QPainter(img)
    view.render(painter)
    painter.end()


def draw_once(view: GraphView, root: torch.Tensor, names: dict[str, torch.Tensor],
              mode: str) -> dict[str, float]:
    """Time each phase of the pane's path to a first frame; ``mode``: "pane" (collapsed as the
    pane does), "blocks" (its first run expanded) or "full" (nothing collapsed)."""
    t0 = time.perf_counter()
    graph = trace(root, names)
    t1 = time.perf_counter()
    shown: Any = graph
    if mode != "full" and len(graph) > COLLAPSE_ABOVE:
        shown = collapse(graph)
        if mode == "blocks":
            runs = [g for g, i in shown.info.items() if i.kind == "repeat"]
            shown = collapse(graph, set(runs[:1]))
    drawing = _drawing(shown, graph, {}, None, [], view.style_.metrics, None)
    t2 = time.perf_counter()
    view.show_drawing(drawing)
    t3 = time.perf_counter()
    _paint(view)
    t4 = time.perf_counter()
    return {"trace": t1 - t0, "layout": t2 - t1, "items": t3 - t2, "paint": t4 - t3,
            "total": t4 - t0, "shown": float(len(shown.nodes))}


def build_rnn(n_nodes: int) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """``h = tanh(h @ W + x[t])`` for about ``n_nodes / 4`` steps: MmBackward0, SelectBackward0,
    AddBackward0, TanhBackward0 a step; every step reads the leaves ``W`` and ``x``."""
    steps = max(2, (n_nodes - 3) // 4)
    g = torch.Generator().manual_seed(0)
    w = (torch.randn(16, 16, generator=g) / 4).requires_grad_(True)
    x = torch.randn(steps, 16, generator=g).requires_grad_(True)
    h = torch.zeros(1, 16)
    for t in range(steps):
        h = torch.tanh(h @ w + x[t])
    return h.sum(), {"W": w, "x": x}


def build(kind: str, n_nodes: int) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    if kind == "rnn":
        return build_rnn(n_nodes)
    root, leaves = build_loop(n_nodes)
    return root, {f"w{i}": t for i, t in enumerate(leaves)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 20000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--graphs", nargs="+", choices=("loop", "rnn"), default=["loop", "rnn"])
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    from tensor_explorer.qt import theme

    theme.state().apply("light", 1.0)
    view = GraphView()
    view.resize(1000, 700)
    print(f"torch {torch.__version__}, median of {args.repeat}; times in ms; ratio = time / "
          "trace-only time of the same graph")
    cols = ("pane", "blocks", "full")
    head = " | ".join(f"{c:>7} {'ratio':>5} {'shown':>6} ({'layout':>6} {'items':>6} "
                      f"{'paint':>6})" for c in cols)
    for kind in args.graphs:
        print(f"graph: {kind}")
        print(f"{'nodes':>7} {'trace':>7} | {head}")
        for n in args.sizes:
            run_size(app, view, kind, n, args.repeat, cols)
    return 0


def run_size(app: QtWidgets.QApplication, view: GraphView, kind: str, n: int, repeat: int,
             cols: tuple[str, ...]) -> None:
    root, names = build(kind, n)
    names["out"] = root
    trace(root, names)  # warm caches
    draw_once(view, root, names, "pane")
    base: list[float] = []
    rows: dict[str, list[dict[str, float]]] = {c: [] for c in cols}
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        trace(root, names)
        base.append(time.perf_counter() - t0)
        for mode in cols:
            gc.collect()
            rows[mode].append(draw_once(view, root, names, mode))
            app.processEvents()
    tb = statistics.median(base)

    def med(mode: str, key: str) -> float:
        return statistics.median(r[key] for r in rows[mode])

    parts = [
        f"{med(c, 'total') * 1e3:>7.1f} {med(c, 'total') / tb:>5.1f} "
        f"{int(med(c, 'shown')):>6} ({med(c, 'layout') * 1e3:>6.1f} "
        f"{med(c, 'items') * 1e3:>6.1f} {med(c, 'paint') * 1e3:>6.1f})"
        for c in cols
    ]
    graph_n = len(trace(root, names, saved=False))
    print(f"{graph_n:>7} {tb * 1e3:>7.1f} | " + " | ".join(parts))
    view.clear()


if __name__ == "__main__":
    raise SystemExit(main())
