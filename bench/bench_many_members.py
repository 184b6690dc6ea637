"""Archive benchmark: a ``.npz`` with very many tiny members (issue #24: 20,000 took ~50 s).

    .venv/bin/python bench/bench_many_members.py [--members 20000] [--repeat 3] [--quick]

Writes (in a temporary folder; ``BENCH_DIR`` picks where) an archive of ``--members`` float32
arrays of 3 to 5 elements (as ``np.savez`` writes it, stored; ``--compressed``: deflated),
then times, as the median of ``--repeat`` runs alternated in this one process:

* the baseline: ``np.load(path)`` and every member read (``{k: z[k] for k in z.files}``);
* ``tx.load_arrays(path).load_all()``: every header checked, every member read and its CRC-32
  checked;
* ``open_into(Workspace(), path)``: what opening the file in the app does (the above, then a
  workspace value named for each member).

Each is also run at a quarter of the members, so the output says how it scales (4 times the
members should take about 4 times as long).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np


def make_archive(path: Path, members: int, compressed: bool) -> Path:
    rng = np.random.default_rng(0)
    arrays = {f"a{i}": rng.random(3 + i % 3).astype(np.float32) for i in range(members)}
    (np.savez_compressed if compressed else np.savez)(path, **arrays)
    return path


def timed(fns: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """The median seconds of each, the runs alternated (no one gets the warm caches)."""
    runs: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeat):
        for key, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            runs[key].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in runs.items()}


def cases(path: Path) -> dict[str, Callable[[], object]]:
    from tensor_explorer.core.loading import load_arrays
    from tensor_explorer.core.sources import open_into
    from tensor_explorer.core.workspace import Workspace

    def numpy_all() -> object:
        with np.load(path) as z:
            return {k: z[k] for k in z.files}

    def ours_all() -> object:
        with load_arrays(path) as arrays:
            return arrays.load_all()

    def open_in_app() -> object:
        return open_into(Workspace(), path)

    return {"numpy": numpy_all, "load_arrays": ours_all, "open_into": open_in_app}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--members", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--compressed", action="store_true", help="deflated members")
    ap.add_argument("--quick", action="store_true", help="2,000 members, one run (CI)")
    args = ap.parse_args()
    if args.quick:
        args.members, args.repeat = min(args.members, 2000), 1
    n, r = args.members, args.repeat
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as d:
        full = make_archive(Path(d) / "many.npz", n, args.compressed)
        quarter = make_archive(Path(d) / "quarter.npz", n // 4, args.compressed)
        kind = "deflated" if args.compressed else "stored"
        print(f"archive: {n:,} members of 3-5 float32 ({kind}, {full.stat().st_size:,} bytes); "
              f"median of {r} run(s), alternated, in one process")  # fmt: skip
        cases(full)["open_into"]()  # (imports and first-use costs out of the figures)
        t = timed(cases(full), r)
        tq = timed(cases(quarter), r)
        base = t["numpy"]
        print(f"baseline np.load + every member read: {base:.3f} s "
              f"({tq['numpy']:.3f} s for {n // 4:,} members)")  # fmt: skip
        for key, title in (("load_arrays", "tx.load_arrays + load_all"),
                           ("open_into", "open_into (the app opening the file)")):  # fmt: skip
            print(f"{title}:")
            print(f"  time: {t[key]:.3f} s vs np.load {base:.3f} s = {t[key] / base:.2f}x baseline")
            print(f"  scaling: 4 times the members ({n // 4:,} -> {n:,}) take "
                  f"{t[key] / tq[key]:.1f} times as long ({tq[key]:.3f} s -> {t[key]:.3f} s); "
                  f"{t[key] / n * 1e6:.0f} us per member")  # fmt: skip


if __name__ == "__main__":
    main()
