"""Benchmark: what debugging costs a script that does not stop.

Run: ``.venv/bin/python bench/bench_breakpoint.py [--iterations 10000] [--repeat 5]``

1. ``tx.breakpoint(when=...)`` with a condition that stays false, in a loop of
   ``--iterations`` small steps (``x = x * 1.0001 + 0.001`` on a 16-element tensor), against
   the same loop without it: the ratio, and the cost of one false breakpoint in microseconds.
   A false condition imports nothing and reads no frame.
2. ``--stop-on-nan`` (:class:`~tensor_explorer.core.debugging.NanWatch`): a small training
   loop (MLP, cross-entropy, backward, SGD) with the watch and without it: the ratio.

Prints the best of ``--repeat`` runs of each.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
try:
    import tensor_explorer  # noqa: F401
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(HERE.parent / "src"))

import torch  # noqa: E402

import tensor_explorer as tx  # noqa: E402
from tensor_explorer.core.debugging import NanWatch  # noqa: E402


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def bare_loop(n: int) -> torch.Tensor:
    x = torch.ones(16)
    for _ in range(n):
        x = x * 1.0001 + 0.001
    return x


def loop_with_breakpoint(n: int) -> torch.Tensor:
    x = torch.ones(16)
    for i in range(n):
        x = x * 1.0001 + 0.001
        tx.breakpoint(when=lambda i=i: i < 0)  # never true
    return x


def training(steps: int) -> float:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    features, labels = torch.randn(64, 32), torch.randint(0, 10, (64,))
    loss = torch.zeros(())
    for _ in range(steps):
        loss = torch.nn.functional.cross_entropy(model(features), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item()


def watched_training(steps: int) -> float:
    with NanWatch():
        return training(steps)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=10_000)
    ap.add_argument("--steps", type=int, default=200, help="training steps for --stop-on-nan")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    torch.set_num_threads(1)
    n = a.iterations
    loop_with_breakpoint(100)  # warm up (the lazy import of tx.breakpoint)
    bare = best(lambda: bare_loop(n), a.repeat)
    with_bp = best(lambda: loop_with_breakpoint(n), a.repeat)
    per_call = (with_bp - bare) / n * 1e6
    print(f"breakpoint(when=false): {n:,} iterations: bare {bare * 1e3:.1f} ms, with "
          f"{with_bp * 1e3:.1f} ms, ratio {with_bp / bare:.3f} "
          f"({per_call:.2f} us per false breakpoint)")
    print("  Qt imported:", "PySide6" in sys.modules)
    training(5)
    watched_training(5)
    plain = best(lambda: training(a.steps), a.repeat)
    watched = best(lambda: watched_training(a.steps), a.repeat)
    print(f"--stop-on-nan: {a.steps} training steps (MLP 32-64-10, batch 64): bare "
          f"{plain * 1e3:.1f} ms, watched {watched * 1e3:.1f} ms, ratio {watched / plain:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
