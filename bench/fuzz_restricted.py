"""The long run of the restricted runner's crash fuzzer: no allowed method crashes the process.

Run: ``.venv/bin/python bench/fuzz_restricted.py --programs 20000 [--seed N] [--batch 500]``

Random restricted programs call what ``src/tensor_explorer/core/sandbox_allowlist.py`` allows
on tensors, sparse tensors, arrays, NumPy scalars and storages with random arguments
(``tests/core/test_crash_fuzz.py`` makes them and runs a bounded number in CI), in child
processes, batch by batch. Prints the seed, the programs run, the crashes (each with the
program that crashed, confirmed alone or bisected), the programs skipped because one C call
ran too long, and the seconds. Exits 1 when anything crashed. A crash is fixed by refusing the
method in sandbox_allowlist.py (``refused.memory-unchecked``).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests package (the fuzzer lives with its CI test)
try:
    import tensor_explorer  # noqa: F401
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(ROOT / "src"))

from tests.core.test_crash_fuzz import programs, run  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--programs", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--calls", type=int, default=16, help="random calls per program")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    print(f"seed {seed}: {args.programs} programs of {args.calls} calls, "
          f"{args.batch} per child process", flush=True)
    sources = programs(seed, args.programs, args.calls)
    t0 = time.monotonic()

    def progress(done: int) -> None:
        print(f"  {done} programs, {time.monotonic() - t0:.0f} s", flush=True)

    result = run(sources, batch=args.batch, progress=progress)
    for crash in result.crashes:
        print(crash.report(seed), flush=True)
    for index in result.hung:
        print(f"skipped as hung: program {index} (one call ran past the time limit):\n"
              f"{sources[index]}", flush=True)
    for line in result.errors[:20]:
        print(f"  (not a crash) {line}")
    print(f"seed {seed}: programs run {result.ran}, crashes {len(result.crashes)}, "
          f"skipped as hung {len(result.hung)}, runner errors {len(result.errors)}, "
          f"{result.seconds:.0f} s")
    return 1 if result.crashes else 0


if __name__ == "__main__":
    raise SystemExit(main())
