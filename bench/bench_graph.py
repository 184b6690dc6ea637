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
  ``--repeat`` fresh graphs (building is not timed; the plain and the recorded calls take
  turns, so that other load on the machine weighs on both alike); edge gradients are
  materialised in the timed region (``len(record.edge_grads)``), so the ratio includes all
  recording work. The same ratios in CPU time of the process follow (steadier on a shared
  machine).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


class _Clock:
    """Wall-clock and CPU time of the process (``time.process_time``) of calls."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def time(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn(*args, **kwargs)
        self.wall.append(time.perf_counter() - w0)
        self.cpu.append(time.process_time() - c0)
        return out

    def add_last(self, other: _Clock) -> None:
        """Add ``other``'s last call to this clock's last one."""
        self.wall[-1] += other.wall[-1]
        self.cpu[-1] += other.cpu[-1]

    def median(self) -> float:
        return statistics.median(self.wall)

    def median_cpu(self) -> float:
        return statistics.median(self.cpu)


def _plain(root: torch.Tensor, leaves: list[torch.Tensor]) -> None:
    root.backward()


def _recorded_with_trace(root: torch.Tensor, leaves: list[torch.Tensor]) -> None:
    names = {f"w{i}": t for i, t in enumerate(leaves)}
    rec = backward(root, names=names)
    len(rec.edge_grads)


def _interleaved(n: int, repeat: int) -> tuple[_Clock, _Clock, _Clock, _Clock]:
    """Times of a plain backward, of tx.backward on a pre-traced graph (edge gradients
    materialised; and the part of it spent materialising them), and of tx.backward with
    tracing included, each on a fresh graph. The three run in turn in every repeat, so that
    a load that comes and goes on the machine weighs on all of them alike."""
    plain, given, edges, with_trace = _Clock(), _Clock(), _Clock(), _Clock()
    for r in range(repeat):
        root, leaves = build(n, seed=r)
        gc.collect()
        plain.time(_plain, root, leaves)
        del root, leaves

        root, leaves = build(n, seed=r)
        names = {f"w{i}": t for i, t in enumerate(leaves)}
        graph = trace(root, names, saved=False)
        gc.collect()
        rec = given.time(backward, root, names=names, graph=graph)
        edges.time(len, rec.edge_grads)
        given.add_last(edges)
        del root, leaves, names, graph, rec

        root, leaves = build(n, seed=r)
        gc.collect()
        with_trace.time(_recorded_with_trace, root, leaves)
        del root, leaves
    return plain, given, edges, with_trace


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

        plain, given, edges, with_trace = _interleaved(n, args.repeat)
        t_plain, t_rec, t_edges = plain.median(), given.median(), edges.median()
        t_rec_trace = with_trace.median()
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
        c_plain = plain.median_cpu()
        print(
            f"  (CPU time: plain {c_plain * 1e3:.1f} ms; graph given "
            f"{given.median_cpu() / c_plain:.2f}, incl. trace "
            f"{with_trace.median_cpu() / c_plain:.2f} times plain)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
