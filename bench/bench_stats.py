"""Large-array benchmark: open a 1 GiB .npy by memory map, then full statistics.

Prints: time to open + facts, resident memory added by opening, and our one-pass statistics as a
ratio to a plain one-pass `torch.sum` over the same memory-mapped data, measured in this run, for
several contents of the same file: no NaN, one NaN, a NaN in every row (``d[:, ::997] = nan``),
an +Inf in every row; and, for information, the same values as float16 and bfloat16 (in memory,
against torch.sum of the same float16/bfloat16 tensor).

    .venv/bin/python bench/bench_stats.py [--gib 1.0] [--repeat 3]

Each ratio is the median of ``--repeat`` paired measurements (torch.sum, then tx.stats, on the
same data in turn), so a noisy machine moves both sides alike.
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
import torch

import tensor_explorer as tx

GOAL_CLEAN = 1.5  # no NaN: tx.stats within 1.5x a one-pass torch.sum
GOAL_NONFINITE = 2.5  # some NaN/Inf: within 2.5x (aim 1.5x)


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


def timed(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def ratio(tensor: torch.Tensor, repeat: int) -> tuple[float, float, float]:
    """(median of tx.stats / torch.sum over paired runs, best torch.sum s, best tx.stats s)."""
    torch.sum(tensor)  # warm: page cache, the kernel for this dtype
    tx.stats(tensor)
    base, ours = [], []
    for _ in range(repeat):
        base.append(timed(lambda: torch.sum(tensor)))
        ours.append(timed(lambda: tx.stats(tensor)))
    return statistics.median(o / b for o, b in zip(ours, base, strict=True)), min(base), min(ours)


def row(what: str, r: tuple[float, float, float], goal: float | None) -> None:
    """One figure. The ratio is the line's last ``N.NNx`` (what bench/run_all.py collects)."""
    med, base, ours = r
    named = f"{what} (goal {goal:.1f}x)" if goal else f"{what} (for information)"
    missed = "  MISSED the goal" if goal and med > goal else ""
    print(f"  {named:<38} {ours:.3f} s / {base:.3f} s: ours / torch.sum = {med:.2f}x{missed}")


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
              f"{rss_open / 2**20:.1f} MiB ({rss_open / size:.2%} of the file)")  # fmt: skip
        torch.sum(tensor)  # warm the page cache for both contenders
        t0 = time.perf_counter()
        tx.stats(tensor)  # the first call imports Numba and loads (or compiles) the kernel
        cold = time.perf_counter() - t0
        print(f"first tx.stats call in the process (imports Numba, loads the kernel): {cold:.3f} s")
        print(f"torch threads: {torch.get_num_threads()}, cpus: {os.cpu_count()}")
        # tx.stats: min, max, mean, std, NaN/Inf/zero counts, first non-finite index
        print(f"float32 memory map, tx.stats vs torch.sum, median of {args.repeat} paired runs:")
        clean = ratio(tensor, args.repeat)
        row("no NaN", clean, GOAL_CLEAN)
        r_np = ratio_np(arr, tensor, args.repeat)
        row("no NaN, the NumPy memmap", r_np, GOAL_CLEAN)
        # the same file, written in place through a second (writable) map
        data = np.load(path, mmap_mode="r+")
        flat = data.reshape(-1)
        mid = flat.size // 2 + 12345
        keep = float(flat[mid])
        flat[mid] = np.nan
        row("one NaN", ratio(tensor, args.repeat), GOAL_NONFINITE)
        flat[mid] = keep
        cols = data[:, ::997].copy()
        data[:, ::997] = np.nan
        row("NaN in every row", ratio(tensor, args.repeat), GOAL_NONFINITE)
        data[:, ::997] = np.inf
        row("+Inf in every row", ratio(tensor, args.repeat), GOAL_NONFINITE)
        data[:, ::997] = cols
        del data, flat, cols
        print("float16/bfloat16 copies in memory, vs torch.sum of the same tensor:")
        for dtype in (torch.float16, torch.bfloat16):
            t = tensor.to(dtype)
            row(str(dtype).replace("torch.", ""), ratio(t, args.repeat), None)
            del t


def ratio_np(arr: np.ndarray, tensor: torch.Tensor, repeat: int) -> tuple[float, float, float]:
    """As :func:`ratio`, with tx.stats given the NumPy memmap itself."""
    tx.stats(arr)
    base, ours = [], []
    for _ in range(repeat):
        base.append(timed(lambda: torch.sum(tensor)))
        ours.append(timed(lambda: tx.stats(arr)))
    return statistics.median(o / b for o, b in zip(ours, base, strict=True)), min(base), min(ours)


if __name__ == "__main__":
    main()
