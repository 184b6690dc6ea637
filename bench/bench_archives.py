"""Archive benchmark: a ``.npz`` with a big deflated member and a small one, opened lazily.

    .venv/bin/python bench/bench_archives.py [--gib 1.0] [--repeat 3] [--quick] [--no-stored]

Writes (in a temporary folder; ``BENCH_DIR`` picks where) ``big.npy`` (``--gib`` GiB of small
integers as float32, ~2.3x compressible, deflated at ``--level``, written in chunks) and
``small.npy`` (64 KiB) into one archive, and the same two arrays stored (uncompressed) into
another. Every figure comes from a fresh interpreter (no measurement warms another's caches or
memory), as the median of ``--repeat`` runs: the time of the operation and its peak resident
memory above what the process held before it (``/proc/self/clear_refs`` resets the high-water
mark, VmHWM is read after). Baselines, measured in the same run on the same files:
``np.load(path)[name]`` (NumPy's own lazy NpzFile, which streams a member into an array) and
``zipfile`` ``read`` + ``np.frombuffer``. Memory ratios use a 1 MiB floor (a few hundred KiB
is noise).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

MiB = 2**20
FLOOR = 1 * MiB


# ---------------------------------------------------------------------------- child side


def _status(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def child(mode: str, path: str, member: str) -> None:
    from tensor_explorer.core.loading import load_arrays  # imports torch too, in every child

    def ours() -> object:
        return load_arrays(path)[member]

    def ours_checked() -> object:
        arrays = load_arrays(path)
        value = arrays[member]
        arrays.check(member)  # wait for the background CRC-32 pass
        return value

    def numpy_load() -> object:
        return np.load(path)[member]

    def zip_read() -> object:
        with zipfile.ZipFile(path) as zf:
            data = zf.read(member + ".npy")
        return np.frombuffer(data, dtype=np.uint8)

    fn = {"ours": ours, "ours_checked": ours_checked, "numpy": numpy_load, "zipfile": zip_read}[
        mode
    ]
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # reset VmHWM to the current RSS
        reset = True
    except OSError:
        reset = False
    rss0 = _status("VmRSS")
    t0 = time.perf_counter()
    value = fn()
    seconds = time.perf_counter() - t0
    peak = _status("VmHWM")
    del value
    print(json.dumps({"seconds": seconds, "peak": max(0, peak - rss0), "reset": reset}))


# ---------------------------------------------------------------------------- parent side


def measure(mode: str, path: Path, member: str, repeat: int) -> tuple[float, int]:
    """(median seconds, median peak bytes) over ``repeat`` fresh processes."""
    times, peaks = [], []
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, __file__, "--child", mode, str(path), member],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        got = json.loads(out.strip().splitlines()[-1])
        times.append(got["seconds"])
        peaks.append(got["peak"])
    return statistics.median(times), int(statistics.median(peaks))


def make_archives(folder: Path, gib: float, level: int, stored: bool) -> tuple[Path, Path | None]:
    n = int(gib * 2**30) // 4
    rng = np.random.default_rng(0)
    small = rng.standard_normal(16 * 1024).astype(np.float32)  # 64 KiB
    header = {"descr": "<f4", "fortran_order": False, "shape": (n,)}
    block = 1 << 22
    paths: list[Path] = []
    kinds = [("deflated.npz", zipfile.ZIP_DEFLATED)]
    if stored:
        kinds.append(("stored.npz", zipfile.ZIP_STORED))
    for name, method in kinds:
        p = folder / name
        with zipfile.ZipFile(p, "w", method, compresslevel=level) as zf:
            with zf.open("big.npy", "w", force_zip64=True) as f:
                np.lib.format.write_array_header_1_0(f, header)
                gen = np.random.default_rng(1)
                for i in range(0, n, block):  # small integers as float32: ~3x compressible
                    chunk = gen.integers(0, 256, size=min(block, n - i)).astype(np.float32)
                    f.write(chunk.tobytes())
            with zf.open("small.npy", "w") as f:
                np.lib.format.write_array(f, small)
        paths.append(p)
    return paths[0], (paths[1] if stored else None)


def ratio(a: float, b: float) -> float:
    return a / b if b else float("inf")


def mem_ratio(a: int, b: int) -> float:
    return max(a, FLOOR) / max(b, FLOOR)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gib", type=float, default=1.0, help="size of the big member")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--level", type=int, default=1,
                    help="deflate level of the big member (np.savez_compressed writes 6, which "
                    "writes ~10x slower here and inflates at about the same speed)")  # fmt: skip
    ap.add_argument("--quick", action="store_true", help="1/8 GiB, one run each (CI)")
    ap.add_argument("--no-stored", action="store_true", help="skip the stored archive")
    ap.add_argument("--no-zipfile", action="store_true", help="skip the zipfile baseline")
    ap.add_argument("--child", nargs=3, metavar=("MODE", "PATH", "MEMBER"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return
    if args.quick:
        args.gib, args.repeat = min(args.gib, 0.125), 1
    big_bytes = int(args.gib * 2**30) // 4 * 4
    r = args.repeat
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as d:
        t0 = time.perf_counter()
        deflated, stored = make_archives(Path(d), args.gib, args.level, not args.no_stored)
        made = time.perf_counter() - t0
        with zipfile.ZipFile(deflated) as zf:
            on_disk = zf.getinfo("big.npy").compress_size
        print(f"archive: big.npy {big_bytes / 2**30:.2f} GiB float32 deflated at level "
              f"{args.level} ({on_disk / 2**30:.2f} GiB in the file) + small.npy 64 KiB "
              f"(written in {made:.0f} s); median of {r} fresh process(es) per figure")  # fmt: skip

        def section(title: str, path: Path, member: str, ours_mode: str = "ours",
                    zip_baseline: bool = False, of_member: bool = False) -> None:  # fmt: skip
            t_ours, m_ours = measure(ours_mode, path, member, r)
            t_base, m_base = measure("numpy", path, member, r)
            mine = f" ({m_ours / big_bytes:.2f}x the member)" if of_member else ""
            base = f" ({m_base / big_bytes:.2f}x the member)" if of_member else ""
            print(f"{title}:")
            print(f"  time: tx.load_arrays {t_ours:.3f} s vs np.load(path)[{member!r}] "
                  f"{t_base:.3f} s = {ratio(t_ours, t_base):.2f}x baseline")  # fmt: skip
            print(f"  peak RSS: +{m_ours / MiB:.1f} MiB{mine} vs +{m_base / MiB:.1f} MiB{base} "
                  f"= {mem_ratio(m_ours, m_base):.2f}x baseline")  # fmt: skip
            if zip_baseline:
                t_zip, m_zip = measure("zipfile", path, member, r)
                print(f"  time vs zipfile read + np.frombuffer {t_zip:.3f} s "
                      f"= {ratio(t_ours, t_zip):.2f}x")  # fmt: skip
                print(f"  peak RSS vs zipfile read + np.frombuffer +{m_zip / MiB:.1f} MiB "
                      f"({m_zip / big_bytes:.2f}x the member) "
                      f"= {mem_ratio(m_ours, m_zip):.2f}x")  # fmt: skip

        section("deflated: open + read the small member (goal: at most 0.5 s and 64 MiB)",
                deflated, "small")  # fmt: skip
        section("deflated: open + read the big member (goal: peak at most 1.25 times the member)",
                deflated, "big", zip_baseline=not args.no_zipfile, of_member=True)  # fmt: skip
        if stored is not None:
            section("stored: open + map the big member (CRC-32 checked in the background)",
                    stored, "big", of_member=True)  # fmt: skip
            section("stored: open + map the big member + wait for its CRC-32 check",
                    stored, "big", ours_mode="ours_checked", of_member=True)  # fmt: skip


if __name__ == "__main__":
    main()
