"""Benchmark: trace + layout of large autograd graphs, and the cost of recording a backward.

Run: ``.venv/bin/python bench/bench_graph.py [--sizes 1000 5000 20000] [--repeat 5]``

For each size it builds a graph of about that many nodes in a loop (a chain of small elementwise
ops on 16-element vectors, with eight leaves reused throughout and a branch every few steps so
the graph is a DAG, not only a chain), then reports:

- trace: ``tx.trace`` (with saved-tensor info) and ``trace(saved=False)``;
- layout: ``graph_layout.layout`` of the traced graph, ``collapse_chains``, and ``collapse``
  (repeated blocks and chains: what the pane shows for big graphs);
- backward overhead: ``tx.backward`` on a pre-traced graph (the pane's case: the graph is
  already on screen) and with tracing included, each as a ratio to a plain ``root.backward()``
  of an identical graph built the same way in the same run. Each timing is the median of
  ``--repeat`` fresh graphs (building is not timed); edge gradients are materialised in the
  timed region (``len(record.edge_grads)``), so the ratio includes all recording work.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

try:
    import tensor_explorer  # noqa: F401
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import torch

from tensor_explorer.core.autograd import backward, trace
from tensor_explorer.core.graph_layout import collapse, collapse_chains, layout

LEAVES = 8
WIDTH = 16


def build(n_nodes: int, seed: int = 0) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """A graph of about ``n_nodes`` autograd nodes: small ops in a loop, leaves reused."""
    g = torch.Generator().manual_seed(seed)
    leaves = [torch.randn(WIDTH, generator=g).requires_grad_(True) for _ in range(LEAVES)]
    h = leaves[0] * 0.5
    made = LEAVES + 2  # leaves, the first mul, the final sum
    i = 0
    while made < n_nodes:
        w = leaves[i % LEAVES]
        kind = i % 5
        if kind == 0:
            h = h * w
        elif kind == 1:
            h = h + w
        elif kind == 2:
            h = torch.tanh(h)
        elif kind == 3:
            h = h + torch.sin(h)  # a branch: two paths from h
            made += 1
        else:
            h = h * 0.9
        made += 1
        i += 1
    return h.sum(), leaves


def _median_time(
    fn: Callable[[torch.Tensor, list[torch.Tensor]], object], n: int, repeat: int
) -> float:
    times = []
    for r in range(repeat):
        root, leaves = build(n, seed=r)
        gc.collect()
        t0 = time.perf_counter()
        fn(root, leaves)
        times.append(time.perf_counter() - t0)
        del root, leaves
    return statistics.median(times)


def _plain(root: torch.Tensor, leaves: list[torch.Tensor]) -> None:
    root.backward()


def _recorded_pretraced(n: int, repeat: int) -> tuple[float, float]:
    """Median time of tx.backward on a pre-traced graph (edge gradients materialised), and
    the median part of it spent materialising the edge gradients."""
    times, edge_times = [], []
    for r in range(repeat):
        root, leaves = build(n, seed=r)
        names = {f"w{i}": t for i, t in enumerate(leaves)}
        graph = trace(root, names, saved=False)
        gc.collect()
        t0 = time.perf_counter()
        rec = backward(root, names=names, graph=graph)
        t1 = time.perf_counter()
        len(rec.edge_grads)
        t2 = time.perf_counter()
        times.append(t2 - t0)
        edge_times.append(t2 - t1)
        del root, leaves, graph, rec
    return statistics.median(times), statistics.median(edge_times)


def _recorded_with_trace(root: torch.Tensor, leaves: list[torch.Tensor]) -> None:
    names = {f"w{i}": t for i, t in enumerate(leaves)}
    rec = backward(root, names=names)
    len(rec.edge_grads)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 20000])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} thread, median of {args.repeat}")
    for n in args.sizes:
        root, leaves = build(n)
        names = {f"w{i}": t for i, t in enumerate(leaves)}
        trace(root, names)  # warm caches
        gc.collect()
        t0 = time.perf_counter()
        graph = trace(root, names)
        t_trace = time.perf_counter() - t0
        t0 = time.perf_counter()
        trace(root, names, saved=False)
        t_trace_fast = time.perf_counter() - t0
        t0 = time.perf_counter()
        positions = layout(graph)
        t_layout = time.perf_counter() - t0
        t0 = time.perf_counter()
        collapse_chains(graph)
        t_chains = time.perf_counter() - t0
        t0 = time.perf_counter()
        collapsed = collapse(graph)
        t_collapse = time.perf_counter() - t0
        assert len(positions) == len(graph.nodes)
        del root, leaves, names

        t_plain = _median_time(_plain, n, args.repeat)
        t_rec, t_edges = _recorded_pretraced(n, args.repeat)
        t_rec_trace = _median_time(_recorded_with_trace, n, args.repeat)
        print(
            f"\n{len(graph.nodes)} nodes, {len(graph.edges)} edges "
            f"(collapsed view: {len(collapsed.nodes)} nodes)"
        )
        print(f"  trace (with saved tensors)   {t_trace * 1e3:8.1f} ms")
        print(f"  trace (saved=False)          {t_trace_fast * 1e3:8.1f} ms")
        print(f"  layout                       {t_layout * 1e3:8.1f} ms")
        print(f"  collapse_chains              {t_chains * 1e3:8.1f} ms")
        print(f"  collapse (blocks + chains)   {t_collapse * 1e3:8.1f} ms")
        print(f"  trace + layout               {(t_trace + t_layout) * 1e3:8.1f} ms")
        print(f"  plain root.backward()        {t_plain * 1e3:8.1f} ms")
        print(
            f"  tx.backward, graph given     {t_rec * 1e3:8.1f} ms   ratio {t_rec / t_plain:5.2f}x"
        )
        print(f"    of which edge_grads built  {t_edges * 1e3:8.1f} ms")
        print(
            f"  tx.backward, incl. trace     {t_rec_trace * 1e3:8.1f} ms   "
            f"ratio {t_rec_trace / t_plain:5.2f}x"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
