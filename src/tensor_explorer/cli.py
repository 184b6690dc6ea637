"""The ``tensor-explorer`` command (also ``python -m tensor_explorer``).

    tensor-explorer [PATH ...] [--trust]   the application (no PATH: the default lesson);
                                           program and lesson files run restricted unless
                                           trusted (--trust, or the window's Trust button)
    tensor-explorer inspect PATH... [--json]
    tensor-explorer lessons [--json]
    tensor-explorer check LESSON... [--trust]
    tensor-explorer screenshot SOURCE --out FILE.png|FILE.svg [--trust] [--backward [N]]
        [--fit] [--expand all|KEY] [--select-edge SRC,DST] [options]
    tensor-explorer info [--json]          versions, CUDA, Qt platform, fonts, folders
    tensor-explorer run [--stop-on-nan] SCRIPT [ARGS...] [--stop-on-nan]
                                           your own script as full Python; at an uncaught
                                           exception (or, with --stop-on-nan, the first
                                           torch operation that makes NaN/Inf) the window
                                           opens at that frame with its values

Errors are reported as one line on stderr with a non-zero exit status, never as a traceback
(an unknown option or a path that does not exist included: no window opens then).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

SUBCOMMANDS = ("inspect", "lessons", "check", "screenshot", "info", "run")
PROG = "tensor-explorer"


def _error(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr)


# ---------------------------------------------------------------------------- inspect


def _fmt_num(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.6g}"
    return f"{v:,}" if isinstance(v, int) else str(v)


def json_safe(obj: Any) -> Any:
    """``obj`` with every non-finite float written as a string JSON accepts: ``"nan"``,
    ``"inf"``, ``"-inf"`` (JSON has no NaN or Infinity). Other values are unchanged."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else str(obj)  # str gives "nan", "inf", "-inf"
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [json_safe(v) for v in obj]
    return obj


def inspect_entry(name: str, array: Any) -> dict[str, Any]:
    """Facts, statistics, diagnoses and tensor sharing of one loaded array, as a JSON-safe dict.

    What cannot be computed for this array (statistics of strings, a tensor of a long double)
    is ``None`` with the reason in ``"notes"``; nothing here raises for a loaded array."""
    from .core.diagnose import diagnose
    from .core.facts import describe
    from .core.loading import LoadError, to_tensor
    from .core.stats import stats

    facts = describe(array)
    notes: list[str] = []
    try:
        st: Any = stats(array)
    except (TypeError, ValueError) as exc:
        st = None
        notes.append(f"no statistics: {exc}")
    try:
        diags = diagnose(array, name=name, value_stats=st) if st is not None else []
    except (TypeError, ValueError) as exc:  # pragma: no cover - diagnose handles what loads
        diags = []
        notes.append(f"no diagnoses: {exc}")
    try:
        tensor, note = to_tensor(array)
        shares = note is None
        tensor_info: dict[str, Any] = {
            "dtype": str(tensor.dtype),
            "shares_memory": shares,
            "note": note or "torch.from_numpy shares this array's memory (no copy)",
        }
    except (LoadError, TypeError) as exc:
        tensor_info = {"dtype": None, "shares_memory": False, "note": str(exc)}
    return {
        "name": name,
        "facts": facts.to_dict(),
        "stats": st.to_dict() if st is not None else None,
        "diagnoses": [d.to_dict() for d in diags],
        "tensor": tensor_info,
        "notes": notes,
    }


def _print_entry(e: dict[str, Any]) -> None:
    f, s = e["facts"], e["stats"]
    layout = "C-contiguous" if f["is_contiguous"] else "not C-contiguous"
    mapped = "memory-mapped" if f["mapped_file"] else "in memory"
    print(f"  {e['name']}: shape {tuple(f['shape'])}  {f['dtype']}  {layout}  {mapped}")
    print(
        f"    {f['numel']:,} elements x {f['element_size']} bytes = {f['nbytes']:,} bytes;"
        f" stride {tuple(f['stride'])} (elements); byte order {f['byte_order']}"
    )
    if f["mapped_file"]:
        print(f"    maps {f['mapped_file']} from byte {f['mapped_offset']:,} ({f['mapped_mode']})")
    if s is not None:
        what = "of |z|" if s["of"] == "magnitude" else ""
        print(
            f"    stats {what}: min {_fmt_num(s['min'])}  max {_fmt_num(s['max'])}  "
            f"mean {_fmt_num(s['mean'])}  std {_fmt_num(s['std'])}"
        )
        print(
            f"    NaN {s['nan']:,}  +Inf {s['posinf']:,}  -Inf {s['neginf']:,}  "
            f"zeros {s['zeros']:,}"
            + (f"  first non-finite at {tuple(s['first_nonfinite'])}"
               if s["first_nonfinite"] else "")
        )
    for note in [*f["notes"], *e["notes"]]:
        print(f"    note: {note}")
    t = e["tensor"]
    print(f"    as a tensor: {t['note']}")
    for d in e["diagnoses"]:
        print(f"    [{d['severity']}] {d['code']}: {d['message']}")


def cmd_inspect(paths: Sequence[str], as_json: bool) -> int:
    """Inspect each path; a path (or one array of it) that fails is reported on its own line
    and in its ``"error"`` entry, and the others are still inspected. Exit status 1 when any
    failed."""
    from .core.loading import LoadError, load_path

    results: list[dict[str, Any]] = []
    failed = False
    for path in paths:
        try:
            arrays = load_path(path)
        except LoadError as exc:
            failed = True
            _error(str(exc))
            results.append({"path": path, "error": str(exc)})
            continue
        entries: list[dict[str, Any]] = []
        for key, array in arrays.items():
            try:
                entries.append(inspect_entry(key, array))
            except Exception as exc:  # one array that cannot be described stops nothing else
                failed = True
                why = f"{path}: {key}: could not be inspected ({type(exc).__name__}: {exc})"
                _error(why)
                entries.append({"name": key, "error": why})
        results.append({"path": path, "arrays": entries})
        if not as_json:
            print(f"{path}")
            for e in entries:
                if "error" not in e:
                    _print_entry(e)
    if as_json:
        print(json.dumps({"files": json_safe(results)}, indent=2, allow_nan=False, default=str))
    return 1 if failed else 0


# ---------------------------------------------------------------------------- screenshot


def cmd_screenshot(ns: argparse.Namespace) -> int:
    from .core.loading import LoadError
    from .core.runner import ProgramError
    from .qt.app import screenshot_main

    try:
        return screenshot_main(ns.source, ns.out, panel=ns.panel, step=ns.step,
                               select=ns.select, size=ns.size, scale=ns.scale,
                               theme_name=ns.theme, lang=ns.lang, all_steps=ns.all_steps,
                               presentation=ns.presentation, trust=ns.trust,
                               backward=ns.backward, fit=ns.fit, expand=ns.expand,
                               select_edge=ns.select_edge)
    except (LoadError, ValueError, OSError) as exc:
        _error(str(exc))
        return 1
    except ProgramError as exc:
        _error(f"{ns.source}: " + " ".join(str(exc).splitlines()[:2]))
        return 1


# ---------------------------------------------------------------------------- run


def split_run_args(args: Sequence[str]) -> tuple[bool, list[str]]:
    """``run``'s own options and the script's command line: ``--stop-on-nan`` before SCRIPT,
    or as the very last argument (``--`` ends ours: everything after it is the script's)."""
    rest = list(args)
    stop = False
    while rest and rest[0].startswith("-"):
        if rest[0] == "--":
            rest.pop(0)
            break
        if rest[0] != "--stop-on-nan":
            break
        stop = True
        rest.pop(0)
    if len(rest) > 1 and rest[-1] == "--stop-on-nan" and "--" not in args:
        stop = True
        rest.pop()
    return stop, rest


def cmd_run(script: str, args: Sequence[str], stop_on_nan: bool) -> int:
    """``tensor-explorer run``: the script runs as ``python SCRIPT ARGS...`` would; at an
    uncaught exception the window opens at the failing frame (with TENSOR_EXPLORER_NO_WINDOW
    set, the explanation is printed instead). The status is the script's (its SystemExit
    code), 1 after an uncaught exception."""
    import os
    import types

    from .core.catalog import Message
    from .core.debugging import describe_stop, run_script

    def on_error(exc: BaseException, tb: types.TracebackType | None) -> None:
        if os.environ.get("TENSOR_EXPLORER_NO_WINDOW"):
            print(describe_stop(exc, tb), file=sys.stderr)
            print(Message("debug.window-off"), file=sys.stderr)
            return
        from .qt.debug_window import post_mortem

        post_mortem(exc, tb, block=True)

    from pathlib import Path

    if not Path(script).is_file():
        _error(str(Message("debug.no-script", path=script)))
        return 2
    return run_script(script, args, stop_on_nan=stop_on_nan, on_error=on_error)


# ---------------------------------------------------------------------------- main


class UsageError(Exception):
    """A command line that cannot be run (unknown option, missing argument, bad value)."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (with where to look), not the usage text."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


def cmd_info(as_json: bool) -> int:
    from .qt.info import collect, format_text

    info = collect()
    print(json.dumps(info, indent=2) if as_json else format_text(info))
    return 0


def _parser(sub: str) -> argparse.ArgumentParser:
    p = _Parser(prog=f"{PROG} {sub}")
    if sub == "info":
        p.description = ("Versions, CUDA devices, Qt platform, the font each language draws "
                         "with, data folders: what to paste into a bug report.")
        p.add_argument("--json", action="store_true", help="machine-readable output")
    elif sub == "inspect":
        p.description = "Facts, statistics and diagnoses of every array in .npy/.npz files."
        p.add_argument("paths", nargs="+", metavar="PATH")
        p.add_argument("--json", action="store_true", help="machine-readable output")
    elif sub == "lessons":
        p.description = "The lessons shipped: name, title, languages, number of steps."
        p.add_argument("--json", action="store_true", help="machine-readable output")
    elif sub == "check":
        p.description = "Run lessons headlessly and verify every expectation."
        p.add_argument("lessons", nargs="+", metavar="LESSON")
        p.add_argument("--device", help="device the lessons' tensors are made on (cpu, cuda:0)")
        p.add_argument("--trust", action="store_true",
                       help="run lesson files as full Python (shipped lessons always are; "
                            "other files run restricted unless trusted)")
    elif sub == "run":
        p.description = ("Run your own script as full Python (its arguments, __name__ == "
                         "'__main__'); at an uncaught exception the window opens at the "
                         "failing frame with its values, the error explained.")
        p.add_argument("--stop-on-nan", action="store_true",
                       help="stop at the first torch operation whose output (or gradient) "
                            "has NaN or Inf")
        p.add_argument("script", metavar="SCRIPT")
        p.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS")
    elif sub == "screenshot":
        p.description = "Render a panel (or the window) to PNG or SVG, headless."
        p.add_argument("source")
        p.add_argument("--out")
        p.add_argument("--all-steps", metavar="DIR",
                       help="a lesson: write every step as DIR/<lesson>-<lang>-NN.png")
        p.add_argument("--panel", default="window",
                       choices=("workspace", "inspector", "values", "memory", "graph", "code",
                                "build", "console", "lesson", "window"))
        p.add_argument("--step", type=int)
        p.add_argument("--select")
        p.add_argument("--size")
        p.add_argument("--scale", type=float, default=1.0)
        p.add_argument("--theme", choices=("light", "dark"), default="light")
        p.add_argument("--lang", choices=("en", "zh"), default="en")
        p.add_argument("--presentation", action="store_true",
                       help="presentation mode: larger text and drawings, as on a projector")
        p.add_argument("--trust", action="store_true",
                       help="run a program or lesson file as full Python (as the window's "
                            "Trust button); without it, it runs restricted unless trusted")
        p.add_argument("--backward", type=int, nargs="?", const=1, default=None, metavar="N",
                       help="press the graph pane's Backward N times (default 1) before the "
                            "picture, so every edge shows its gradient")
        p.add_argument("--fit", action="store_true",
                       help="press the graph pane's Fit before the picture")
        p.add_argument("--expand", metavar="all|KEY",
                       help="open the graph's folded groups: all of them, or one by its key "
                            "or title")
        p.add_argument("--select-edge", metavar="SRC,DST",
                       help="click the graph's edge SRC,DST (node ids): its details")
    return p


def _check_app_args(args: Sequence[str]) -> None:
    """The window opens only on paths that exist (or shipped lesson names)."""
    from pathlib import Path

    for arg in args:
        if arg.startswith("-") and not Path(arg).exists():
            raise UsageError(f"{PROG}: unknown option {arg!r} (commands: "
                             f"{', '.join(SUBCOMMANDS)}; see {PROG} --help)")
    from .core.lessons import is_lesson

    for arg in args:
        if not Path(arg).exists() and not is_lesson(arg):
            hint = (f"; did you mean {PROG} {_closest(arg)}?" if _closest(arg) else
                    "; give a .npy, .npz, .py, .txs or lesson file, or a lesson's name "
                    f"({PROG} lessons lists them)")
            raise UsageError(f"{PROG}: {arg}: no such file or lesson{hint}")


def _closest(word: str) -> str | None:
    import difflib

    match = difflib.get_close_matches(word, SUBCOMMANDS, n=1, cutoff=0.75)
    return match[0] if match else None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tensor-explorer`` command; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if args and args[0] in SUBCOMMANDS:
            sub = args[0]
            if sub == "run":
                stop, rest = split_run_args(args[1:])
                if not rest or rest[0] in ("-h", "--help"):
                    ns = _parser(sub).parse_args(rest)  # usage error or help
                return cmd_run(rest[0], rest[1:], stop)
            ns = _parser(sub).parse_args(args[1:])
            if sub == "inspect":
                return cmd_inspect(ns.paths, ns.json)
            if sub == "screenshot":
                return cmd_screenshot(ns)
            if sub == "info":
                return cmd_info(ns.json)
            if sub == "lessons":
                from .core.lessons import cmd_lessons

                return cmd_lessons(ns.json)
            from .core.devices import check_device
            from .core.lessons import cmd_check

            try:
                device = check_device(ns.device)
            except ValueError as exc:
                _error(str(exc))
                return 2
            return cmd_check(ns.lessons, device=device, trusted=ns.trust)
        if args and args[0] in ("-h", "--help"):
            print(__doc__)
            return 0
        trust = "--trust" in args
        args = [a for a in args if a != "--trust"]
        _check_app_args(args)
        from .qt.app import run_app

        return run_app(args, trust=trust)
    except UsageError as exc:
        print(exc, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except SystemExit as exc:  # argparse's own usage errors
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    except Exception as exc:  # the command line never shows a traceback
        _error(f"unexpected error: {type(exc).__name__}: {exc}")
        return 2
