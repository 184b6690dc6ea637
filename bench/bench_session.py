"""Session benchmark: ``ws.save`` / ``Workspace.open`` of a workspace holding 1 GiB of tensors,
as a ratio to plain ``torch.save`` / ``torch.load(weights_only=True)`` of the same tensors,
measured in the same run (both written to the same folder, both fsync'ed).

    .venv/bin/python bench/bench_session.py [--gib 1.0] [--repeat 3]

The workspace holds four float32 tensors of gib/4 each, a NumPy alias of one (``t.numpy()``)
and a strided view of another: the session writes each allocation once, as torch.save does.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import torch

from tensor_explorer.core.workspace import Workspace


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gib", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    n = int(args.gib * 2**30) // 4 // 4
    ws = Workspace()
    tensors = {f"t{i}": torch.rand(n) for i in range(4)}
    for name, t in tensors.items():
        ws[name] = t
    ws["alias"] = tensors["t0"].numpy()
    ws["view"] = tensors["t1"][::2]
    total = sum(t.nbytes for t in tensors.values())
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as d:
        ours_path, base_path = Path(d) / "s.txs", Path(d) / "s.pt"

        def base_save() -> None:
            with open(base_path, "wb") as f:
                torch.save({**tensors, "view": ws["view"]}, f)
                f.flush()
                os.fsync(f.fileno())

        save_ours = median_time(lambda: ws.save(ours_path), args.repeat)
        save_base = median_time(base_save, args.repeat)
        open_ours = median_time(lambda: Workspace.open(ours_path), args.repeat)
        open_base = median_time(lambda: torch.load(base_path, weights_only=True), args.repeat)
        out = Workspace.open(ours_path)
        assert all(torch.equal(out[k], v) for k, v in tensors.items())
        assert out["alias"].__array_interface__["data"][0] == out["t0"].data_ptr()
        size_ours, size_base = ours_path.stat().st_size, base_path.stat().st_size
    print(f"workspace: {total / 2**30:.2f} GiB in 4 tensors + a NumPy alias + a view "
          f"(median of {args.repeat}; torch {torch.__version__})")
    print(f"save: ws.save {save_ours:.3f} s vs torch.save {save_base:.3f} s "
          f"= {save_ours / save_base:.2f}x baseline")
    print(f"open: Workspace.open {open_ours:.3f} s vs torch.load(weights_only=True) "
          f"{open_base:.3f} s = {open_ours / open_base:.2f}x baseline")
    print(f"file size: {size_ours / 2**30:.3f} GiB vs {size_base / 2**30:.3f} GiB "
          f"= {size_ours / size_base:.3f}x baseline")


if __name__ == "__main__":
    main()
