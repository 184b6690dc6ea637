"""Large-array benchmark: open a 1 GiB .npy by memory map, then full statistics.

Prints: time to open + facts, resident memory added by opening, and our one-pass statistics as a
ratio to a plain one-pass `torch.sum` over the same memory-mapped data, measured in this run.

    .venv/bin/python bench/bench_stats.py [--gib 1.0] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

import tensor_explorer as tx


def rss_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def make_file(path: Path, gib: float) -> None:
    n = int(gib * 2**30) // 4
    arr = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(n // 1024, 1024))
    rng = np.random.default_rng(0)
    block = 1 << 22
    flat = arr.reshape(-1)
    for i in range(0, n, block):
        flat[i : i + block] = rng.standard_normal(min(block, n - i), dtype=np.float32)
    arr.flush()
    del arr, flat


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gib", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "big.npy"
        make_file(path, args.gib)
        size = path.stat().st_size
        rss0 = rss_bytes()
        t0 = time.perf_counter()
        arr = tx.load_array(path)
        facts = tx.describe(arr)
        t_open = time.perf_counter() - t0
        rss_open = rss_bytes() - rss0
        tensor, note = tx.to_tensor(arr)
        assert note is None and facts.mapped_file == str(path)
        print(f"file: {size / 2**30:.2f} GiB float32 {tuple(arr.shape)}, memory-mapped")
        print(f"open + facts: {t_open * 1000:.1f} ms; resident memory added: "
              f"{rss_open / 2**20:.1f} MiB ({rss_open / size:.2%} of the file)")
        torch.sum(tensor)  # warm the page cache for both contenders
        t0 = time.perf_counter()
        tx.stats(tensor)  # the first call imports Numba and loads (or compiles) the kernel
        cold = time.perf_counter() - t0
        base = best(lambda: torch.sum(tensor), args.repeat)
        ours = best(lambda: tx.stats(tensor), args.repeat)
        ours_np = best(lambda: tx.stats(arr), args.repeat)
        print(f"baseline torch.sum (one pass): {base:.3f} s")
        print(f"tx.stats (min, max, mean, std, NaN/Inf/zero counts): {ours:.3f} s "
              f"= {ours / base:.2f}x baseline")
        print(f"tx.stats on the NumPy memmap directly: {ours_np:.3f} s = {ours_np / base:.2f}x")
        print(f"first tx.stats call in the process (imports Numba, loads the kernel): {cold:.3f} s")
        print(f"torch threads: {torch.get_num_threads()}, cpus: {os.cpu_count()}")


if __name__ == "__main__":
    main()
