"""Run every benchmark in ``bench/`` and print one Markdown table of their ratios.

    .venv/bin/python bench/run_all.py [--quick] [--timeout 900] [--only stats graph ...]

Each benchmark runs as a subprocess (its own interpreter: no benchmark warms another's caches)
with a timeout; its output is kept (``--verbose`` prints it) and the figures it reports as a
ratio to the baseline it measured in the same run are collected into the table. A benchmark
that is missing, fails or times out gets a row that says so. ``--quick`` runs smaller sizes
(for CI; the figures are then not the ones to quote).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Bench:
    key: str
    script: str
    title: str
    baseline: str
    args: tuple[str, ...] = ()
    quick: tuple[str, ...] = ()


BENCHES = [
    Bench("stats", "bench_stats.py", "Large arrays: 1 GiB .npy, full statistics",
          "one-pass torch.sum over the same memory map", (), ("--gib", "0.25", "--repeat", "1")),
    Bench("relations", "bench_relations.py", "Relations between views (100M elements)",
          "data_ptr equality", (), ("--quick",)),
    Bench("graph", "bench_graph.py", "Graph trace + layout; recording backward",
          "plain root.backward()", (), ("--sizes", "1000", "5000", "--repeat", "2")),
    Bench("graph_draw", "bench_graph_draw.py", "Graph drawing (trace + layout + first paint)",
          "tx.trace alone", (), ("--sizes", "1000", "5000", "--repeat", "2")),
    Bench("memory_panel", "bench_memory_panel.py", "Memory panel", "ws.relations()"),
    Bench("startup", "bench_startup.py", "Start-up to a shown window",
          "bare import of torch + PySide6 + pyqtgraph", (), ("--repeat", "2")),
    Bench("session", "bench_session.py", "Sessions: save/open 1 GiB of tensors",
          "torch.save / torch.load(weights_only=True)", (), ("--gib", "0.25", "--repeat", "1")),
    Bench("runner", "bench_runner.py", "Running a statement in a workspace",
          "plain exec of the same statements", (), ("--repeat", "3")),
    Bench("archives", "bench_archives.py", "Archives: .npz with a 1 GiB deflated member, lazily",
          "np.load(path)[name] (NumPy's lazy NpzFile)", (), ("--quick",)),
    Bench("many_members", "bench_many_members.py", "Archives: .npz with 20,000 tiny members",
          "np.load(path) + every member read", (), ("--quick",)),
    Bench("heatmap", "bench_heatmap.py", "Heatmap of a 16384² float32 memmap: preview, zoom, pan",
          "np.load(mmap_mode='r') + the same reads with NumPy; a plain pyqtgraph image",
          (), ("--quick",)),
]  # fmt: skip

_RATIO = re.compile(r"(\d+(?:\.\d+)?)\s*x\b")
_DRAW_ROW = re.compile(
    r"^\s*(\d+)\s+([\d.]+)\s+\|\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+\(.*?\)\s+\|\s+([\d.]+)\s+([\d.]+)"
)
_SPACES = re.compile(r"\s{2,}")


def figures(key: str, output: str) -> list[tuple[str, str]]:
    """(what, ratio) pairs found in a benchmark's output."""
    rows: list[tuple[str, str]] = []
    context = ""
    for line in output.splitlines():
        if key == "graph_draw":
            if line.startswith("graph:"):  # which graph the rows below are of
                context = line.split(":", 1)[1].strip() + ", "
            m = _DRAW_ROW.match(line)
            if m:
                n, trace, pane, pane_r, _shown, full, full_r = m.groups()
                rows.append((f"{context}{n} nodes: graph pane, first draw ({pane} ms; trace "
                             f"{trace} ms)", f"{float(pane_r):.1f}x"))  # fmt: skip
                rows.append((f"{context}{n} nodes: full drawing ({full} ms)",
                             f"{float(full_r):.1f}x"))
            continue
        found = _RATIO.findall(line)
        text = line.strip()
        if not found or "baseline ws.relations()" in text:
            if text and not line.startswith(" "):
                context = text.rstrip(":")
            continue
        what = _SPACES.sub(" ", text)
        if line.startswith(" ") and context:
            what = f"{context} — {what}"
        rows.append((what, f"{float(found[-1]):.2f}x"))
    return rows


def run(bench: Bench, quick: bool, timeout: float) -> tuple[str, str, float]:
    """(status, output, seconds)."""
    path = HERE / bench.script
    if not path.exists():
        return "missing", "", 0.0
    cmd = [sys.executable, str(path), *(bench.quick if quick else bench.args)]
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                              cwd=HERE.parent)  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout if isinstance(exc.stdout, str) else (exc.stdout or b"").decode()
        return f"timed out after {timeout:.0f} s", out, time.perf_counter() - t0
    status = "ok" if proc.returncode == 0 else f"failed (exit {proc.returncode})"
    out = proc.stdout + ("" if proc.returncode == 0 else "\n" + proc.stderr[-2000:])
    return status, out, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes (CI)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per benchmark")
    ap.add_argument("--only", nargs="+", choices=[b.key for b in BENCHES])
    ap.add_argument("--verbose", action="store_true", help="print each benchmark's output")
    args = ap.parse_args()
    chosen = [b for b in BENCHES if not args.only or b.key in args.only]
    lines = [
        "| benchmark | figure | ratio to baseline | baseline (same run) |",
        "|---|---|---|---|",
    ]
    failures = 0
    for bench in chosen:
        print(f"running {bench.script} ...", file=sys.stderr, flush=True)
        status, out, secs = run(bench, args.quick, args.timeout)
        if args.verbose:
            print(f"\n## {bench.script} ({status}, {secs:.0f} s)\n{out}", file=sys.stderr)
        rows = figures(bench.key, out) if out else []
        if status != "ok":
            failures += status != "missing"
            rows.append((f"**{status}**", "—"))
        elif not rows:
            rows.append(("(no ratio lines printed)", "—"))
        for i, (what, ratio) in enumerate(rows):
            name = f"{bench.title} (`{bench.script}`)" if i == 0 else ""
            base = bench.baseline if i == 0 else ""
            lines.append(f"| {name} | {what.replace('|', '/')} | {ratio} | {base} |")
    command = "python bench/run_all.py" + (" --quick" if args.quick else "")
    print(f"\nMeasured with `{command}` on {os.cpu_count()} CPUs "
          f"({time.strftime('%Y-%m-%d')}):\n")  # fmt: skip
    print("\n".join(lines))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
