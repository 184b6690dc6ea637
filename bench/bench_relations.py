"""Time tx.relation between views of a 100-million-element tensor (aim: < 10 ms per pair).

Baselines measured in the same run, on the same pairs:
* ``data_ptr``: the naive check ``a.untyped_storage().data_ptr() == b.untyped_storage()...``
  (tells "same storage", nothing about which bytes): the floor of any answer;
* ``np.shares_memory`` (exact, but exponential in the worst case; run on a 1-million-element
  copy of the same views with ``max_work`` bounded, because at 10^8 it does not come back).

The tensor is made with ``torch.empty``: its pages are never touched, so the run needs little
real memory. Run: ``python bench/bench_relations.py`` (add ``--quick`` for 10^6 elements).
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable

import numpy as np
import torch

import tensor_explorer as tx
from tensor_explorer.core import memory


def views(n_side: int) -> dict[str, torch.Tensor | np.ndarray]:
    x = torch.empty(n_side * n_side, dtype=torch.float32)
    grid = x.view(n_side, n_side)
    cplx = x.view(torch.complex64)
    return {
        "x": x,
        "grid.t()": grid.t(),
        "rows[1::2]": grid[1::2],
        "cols[:, ::2]": grid[:, ::2],
        "every-other[::2, ::2]": grid[::2, ::2],
        "block": grid[100:900, 50:700],
        "diagonal": grid.diagonal(),
        "column": grid[:, 7],
        "expand": grid[3].expand(500, n_side),
        "unfold": x.unfold(0, 100, 50),
        "int32[:, 1::3]": grid.view(torch.int32)[:, 1::3],
        "uint8[1::3]": x.view(torch.uint8)[1::3],
        "float64[::3, ::7]": grid.view(torch.float64)[::3, ::7],
        "real": cplx.real,
        "imag": cplx.imag,
        "numpy[::-3, 5:]": grid.numpy()[::-3, 5:],
        "as_strided rows": x.as_strided((n_side - 10, n_side - 1000), (n_side + 7, 1)),
    }


def best_of(fn: Callable[[], object], repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def ptr_check(a: torch.Tensor | np.ndarray, b: torch.Tensor | np.ndarray) -> bool:
    def ptr(v: torch.Tensor | np.ndarray) -> int:
        if isinstance(v, torch.Tensor):
            return v.untyped_storage().data_ptr()
        return int(v.__array_interface__["data"][0])

    return ptr(a) == ptr(b)


def as_numpy(v: torch.Tensor | np.ndarray) -> np.ndarray:
    return v.numpy() if isinstance(v, torch.Tensor) else v


def main() -> None:
    quick = "--quick" in sys.argv
    n_side = 1000 if quick else 10_000
    big = views(n_side)
    names = list(big)
    print(f"relation between {len(names)} views of a {n_side * n_side:,}-element float32 tensor")
    rel_times, ptr_times, worst = [], [], ("", "", 0.0)
    for na in names:
        for nb in names:
            a, b = big[na], big[nb]
            t = best_of(lambda a=a, b=b: tx.relation(a, b))
            rel_times.append(t)
            ptr_times.append(best_of(lambda a=a, b=b: ptr_check(a, b)))
            if t > worst[2]:
                worst = (na, nb, t)
    med, ptr_med = statistics.median(rel_times), statistics.median(ptr_times)
    print(f"  pairs: {len(rel_times)}")
    print(
        f"  relation   median {med * 1e3:8.3f} ms   max {max(rel_times) * 1e3:8.3f} ms "
        f"({worst[0]} vs {worst[1]})"
    )
    print(
        f"  data_ptr== median {ptr_med * 1e3:8.3f} ms   (ratio relation/data_ptr: "
        f"{med / ptr_med:.0f}x; data_ptr only says 'same storage')"
    )
    print(f"  aim < 10 ms per pair: {'met' if max(rel_times) < 0.010 else 'NOT met'}")

    small = views(1000)
    arrays = {k: as_numpy(v) for k, v in small.items()}
    sm_times, rel_small = [], []
    for na in names:
        for nb in names:
            a, b = arrays[na], arrays[nb]
            sm_times.append(
                best_of(lambda a=a, b=b: np.shares_memory(a, b, max_work=10**6), 1)
                if _bounded(a, b)
                else float("nan")
            )
            rel_small.append(best_of(lambda na=na, nb=nb: tx.relation(small[na], small[nb]), 1))
    done = [t for t in sm_times if t == t]
    print(
        f"on 1,000,000 elements: relation median {statistics.median(rel_small) * 1e3:.3f} ms; "
        f"np.shares_memory(max_work=1e6) median {statistics.median(done) * 1e3:.3f} ms on the "
        f"{len(done)} pairs it could decide (it only says yes/no, no byte count)"
    )

    t0 = time.perf_counter()
    rels = memory.relations_among(big)
    print(
        f"relations_among({len(big)} views): {len(rels)} relations in "
        f"{(time.perf_counter() - t0) * 1e3:.1f} ms"
    )
    t0 = time.perf_counter()
    flags = [memory.internal_overlap(v) for v in big.values()]
    print(
        f"internal_overlap of {len(big)} views: {sum(flags)} overlapping, "
        f"{(time.perf_counter() - t0) * 1e3:.2f} ms in all"
    )
    adversarial()
    many_views()


def _peak_rss() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def adversarial() -> None:
    """Issue #15's pair: an interleaving as_strided view against a strided slice of 10^8
    elements (was 4.9-6.3 s and up to +1.7 GB). Baseline: the data_ptr check of the same pair."""
    x = torch.empty(100_000_000, dtype=torch.float32)
    a, b = x.as_strided((1_000_000, 50), (97, 13)), x[1::7]
    before = _peak_rss()
    t0 = time.perf_counter()
    rel = tx.relation(a, b)
    took = time.perf_counter() - t0
    extra = max(0, _peak_rss() - before) / 2**20
    t1 = time.perf_counter()
    for _ in range(1000):
        _ = a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    base = (time.perf_counter() - t1) / 1000
    kind = rel.kind if rel is not None else None
    print(f"adversarial pair as_strided((1e6, 50), (97, 13)) vs x[1::7] of 10^8: {kind}, "
          f"{rel.shared_bytes if rel else 0:,} shared bytes")
    print(f"  time {took:.3f} s (goal 1 s: {'met' if took <= 1 else 'NOT met'}); peak memory "
          f"+{extra:.1f} MiB (goal 64 MiB: {'met' if extra <= 64 else 'NOT met'}); "
          f"vs data_ptr == = {took / base:.0f}x")


def many_views() -> None:
    """1000 views of one tensor (v{i} = base[i::1000]): ws.relations() is read lazily (was 23 s
    for the 500,500 pairs). Baseline: making the workspace's 1000 views."""
    t0 = time.perf_counter()
    ws = tx.Workspace()
    base = torch.arange(1_000_000.0)
    for i in range(1000):
        ws[f"v{i}"] = base[i::1000]
    made = time.perf_counter() - t0
    t0 = time.perf_counter()
    rels = ws.relations()
    first = [r for _, r in zip(range(100), rels, strict=False)]
    took = time.perf_counter() - t0
    met = "met" if took <= 1 else "NOT met"
    print(f"1000 views of one tensor: ws.relations() with {len(rels):,} pairs, the first "
          f"{len(first)} read in {took * 1e3:.1f} ms (goal 1 s: {met}); making the 1000 views "
          f"took {made * 1e3:.1f} ms: = {took / made:.2f}x")


def _bounded(a: np.ndarray, b: np.ndarray) -> bool:
    try:
        np.shares_memory(a, b, max_work=10**6)
    except np.exceptions.TooHardError:
        return False
    return True


if __name__ == "__main__":
    main()
