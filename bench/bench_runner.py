"""Benchmark: what running a statement in a workspace costs over plain ``exec``.

Run: ``.venv/bin/python bench/bench_runner.py [--statements 200] [--repeat 5]``

A workspace runs each top-level statement under its controller (Stop, time limit, the
factories' memory check, origins, history, events). This measures, in one run, a program of
``--statements`` copies of ``y = x * w + b`` (small tensors: the overhead dominates) in
``tx.Workspace().run`` (full Python) and ``Workspace(restricted=True)``, against the same
statements run by plain ``exec`` in a dict, and prints the time per statement and the ratio.
(It was a test with a wall-clock limit; speed is measured here instead.)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
try:
    import tensor_explorer  # noqa: F401
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(HERE.parent / "src"))

import torch  # noqa: E402

from tensor_explorer.core.workspace import Workspace  # noqa: E402


def _time(fn: object, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--statements", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    n = args.statements
    statement = "y = x * w + b"
    program = "\n".join([statement] * n)
    ns = {"x": torch.ones(4), "w": torch.ones(4), "b": 1.0}
    code = compile(program, "<plain>", "exec")
    plain = _time(lambda: exec(code, ns), args.repeat) / n
    print(f"torch {torch.__version__}, {n} statements, median of {args.repeat}")
    print(f"plain exec: {plain * 1e6:.1f} us per statement")
    for label, restricted in (("full Python", False), ("restricted", True)):
        ws = Workspace(restricted=restricted)
        ws.run("x = torch.ones(4)\nw = torch.ones(4)\nb = 1.0")
        ws.run(program)  # warm up
        per = _time(lambda ws=ws: ws.run(program), args.repeat) / n
        print(f"  workspace, {label}: {per * 1e6:.1f} us per statement "
              f"(+{(per - plain) * 1e6:.1f} us) = {per / plain:.2f}x plain exec")


if __name__ == "__main__":
    main()
