"""The long run of the "nothing lost" state machine (#25 point 4) on the real window.

Run: ``.venv/bin/python bench/nothing_lost_machine.py --examples 2000 [--steps 30] [--seed N]``

The machine of ``tests/qt/nothing_lost.py`` (the one ``tests/qt/test_nothing_lost_machine.py``
runs in CI) runs ``--examples`` examples of up to ``--steps`` rules each, in batches of
``--batch`` with their own seeds, offscreen, with isolated settings, logs and recovery files.
Prints the seed, examples, rules that acted (by kind), failures (the first few with their steps,
shrunk by Hypothesis) and the seconds. Exits 1 on a failure.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
import traceback
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests package (the machine lives with its CI test)
try:
    import tensor_explorer  # noqa: F401
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(ROOT / "src"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--steps", type=int, default=30, help="rules per example, at most")
    parser.add_argument("--batch", type=int, default=50, help="examples per seed")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", type=int, default=3, help="failures to print")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="nothing-lost-bench-"))
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["TENSOR_EXPLORER_SETTINGS"] = str(home / "settings.ini")
    os.environ["TENSOR_EXPLORER_LOG_DIR"] = str(home / "logs")
    os.environ["TENSOR_EXPLORER_NO_DIALOGS"] = "1"
    os.environ["TENSOR_EXPLORER_RECOVERY"] = str(home / "recovery.txs")
    warnings.simplefilter("ignore")

    from hypothesis import HealthCheck, settings
    from hypothesis.stateful import run_state_machine_as_test
    from PySide6 import QtWidgets
    from tests.qt.nothing_lost import NothingLost

    from tensor_explorer.qt.gc_guard import install

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    install()
    rng = random.Random(args.seed)
    began = time.perf_counter()
    failures = 0
    done = 0
    while done < args.examples:
        n = min(args.batch, args.examples - done)
        seed = rng.randrange(2**32)
        machine = type("Machine", (NothingLost,), {"_hypothesis_internal_use_seed": seed})
        before = NothingLost.STATS["examples"]
        try:
            run_state_machine_as_test(machine, settings=settings(
                max_examples=n, stateful_step_count=args.steps, deadline=None, database=None,
                suppress_health_check=list(HealthCheck)))
        except Exception:  # a failure (shrunk): report it, go on with the next seed
            failures += 1
            if failures <= args.show:
                print(f"--- failure {failures} (batch seed {seed}):")
                traceback.print_exc(limit=1, file=sys.stdout)
        done += n
        made = NothingLost.STATS["examples"] - before
        print(f"  {done}/{args.examples} examples ({made} machines made in this batch), "
              f"{failures} failures, {time.perf_counter() - began:.0f} s", flush=True)
    stats = NothingLost.STATS
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(stats.items())
                      if k not in ("examples", "steps"))
    seconds = ", ".join(f"{k} {v / max(stats[k], 1):.2f}"
                        for k, v in sorted(NothingLost.SECONDS.items()))
    print(f"mean seconds per rule: {seconds}")
    print(f"seed {args.seed}: {done} examples ({stats['examples']} machines with shrinking), "
          f"{stats['steps']} rules acted ({kinds}), {failures} failures, "
          f"{time.perf_counter() - began:.1f} s")
    del app
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
