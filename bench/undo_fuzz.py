"""The long run of undo's property test: undo all restores the start, redo all the end.

Run: ``.venv/bin/python bench/undo_fuzz.py --sequences 850 [--seed N]``

Random sequences (5 to 20 actions each) of statements from the grammar in
``tests/core/test_undo_everything.py`` (tensors, views, expand, NumPy sharing, in-place writes
and metadata, ``requires_grad_``, ``backward``, ``del``, renames through the workspace) run in a
fresh workspace; then every change is undone (the state must be the start state: values,
names, sharing, ``.grad``, shapes, strides, storage sizes, flags) and redone (the end state).
Facts a change says it cannot put back (its notes) are left out of the comparison. Prints the
seed, sequences, steps, sequences whose history was cleared (a change that could not be
undone), the mismatched sequences and facts, the first few of them with their steps, and the
seconds. Exits 1 on a mismatch.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests package (the grammar lives with its CI test)
try:
    import tensor_explorer  # noqa: F401
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(ROOT / "src"))

from tests.core.test_undo_everything import run_sequence, seeded  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sequences", type=int, default=850)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", type=int, default=3, help="mismatched sequences to print")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    rng = random.Random(args.seed)
    began = time.perf_counter()
    steps = refused = bad = facts = 0
    shown = 0
    for i in range(args.sequences):
        n = rng.randint(5, 20)
        outcome = run_sequence(seeded(rng.randrange(2**32)), n)
        steps += n
        refused += outcome.refused
        if outcome.mismatches:
            bad += 1
            facts += len(outcome.mismatches)
            if shown < args.show:
                shown += 1
                print(f"--- sequence {i}:\n  " + "\n  ".join(outcome.steps))
                print("  mismatches:\n    " + "\n    ".join(outcome.mismatches[:6]))
    print(f"seed {args.seed}: {args.sequences} sequences, {steps} steps, {refused} refused "
          f"(history cleared), {bad} mismatched sequences, {facts} mismatched facts, "
          f"{time.perf_counter() - began:.1f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
