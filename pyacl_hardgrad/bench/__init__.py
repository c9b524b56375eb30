"""``python -m pyacl_hardgrad bench``: how fast the operators run, and against what.

Measures, for every (op, dtype, size): this package end to end from Python (one-call API
with a fresh plan per call, and a repeatable plan), the same loops in C++ against the same
libraries, PyTorch CPU, numpy and a same-size memory copy; plus the per-call cost of one
trivial runtime call (our binding, ctypes, C).  In worker processes: a size sweep against
PyTorch and a copy with every kernel path the CPU has, one CPU against two, the call forms
users type at 8 elements, the first calls of a fresh process, and resident memory over many
calls of each form.
Prints a table and, with ``--json PATH``, writes every number for machines.
See docs/performance.md for the meaning of each column.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Sequence
from typing import Optional, TypedDict

from .runner import (DEFAULT_DTYPES, DEFAULT_OPS, DEFAULT_ROUNDS, DEFAULT_SIZES, evaluate_targets, format_report,
                     parse_size, run, size_label)
from .sections import DEFAULT_SETTLE_MS, DEFAULT_SWEEP, KERNEL_PATHS, parse_sweep

__all__ = ["main", "run", "format_report", "evaluate_targets", "parse_size", "parse_sweep", "build_parser", "options"]


class RunOptions(TypedDict):
    """The keyword arguments of run() that the command line sets (all but ``command``)."""
    sizes: list[int]
    dtypes: list[str]
    ops: list[str]
    repeat: int
    target_ms: float
    rounds: int
    rss_calls: int
    rss_budget_s: float
    cpp: bool
    torch_: bool
    quiet: bool
    sweep: list[int]
    paths: Optional[list[str]]
    sweep_ms: float
    sweep_settle_ms: Optional[float]
    placement: bool
    forms: bool
    first_calls: int
    first_procs: int


def _csv(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def build_parser(prog: str = "python -m pyacl_hardgrad bench") -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=prog, description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--sizes", default=",".join(size_label(n) for n in DEFAULT_SIZES),
                    help="element counts of the main table (Python against C++), e.g. 8,4096,1M,16M (K/M "
                         "suffixes, or 1<<20); none: no main table")
    ap.add_argument("--sweep", default=DEFAULT_SWEEP,
                    help="sizes of the sweep against PyTorch and a copy, from the series 8, 16, 64, ... 64M: "
                         "A..B (e.g. 1K..16M), full (8..64M), a list (8,1K,1M), or none; default %(default)s")
    ap.add_argument("--sweep-ms", type=float, default=100.0,
                    help="time per side and sweep cell after calibration, split over the rounds")
    ap.add_argument("--sweep-settle-ms", type=float, default=None,
                    help="longest pause after each sweep batch until the worker's threads sleep (PyTorch's "
                         "OpenMP threads spin after a call), so none competes with the next batch; 0: no pause; "
                         "default %g" % DEFAULT_SETTLE_MS)
    ap.add_argument("--paths", default="all",
                    help="kernel paths each forced in a worker of its own and timed against the automatic choice "
                         f"in the sweep: all (every one this CPU has), none, or a list of {','.join(KERNEL_PATHS)}")
    ap.add_argument("--no-placement", action="store_true", help="skip one CPU against two")
    ap.add_argument("--no-forms", action="store_true", help="skip the call forms at 8 elements")
    ap.add_argument("--first-calls", type=int, default=5000,
                    help="calls timed from the start of a fresh process (0: skip)")
    ap.add_argument("--first-procs", type=int, default=3, help="fresh processes per form for --first-calls")
    ap.add_argument("--dtypes", default=",".join(DEFAULT_DTYPES), help="float32,float16,bfloat16")
    ap.add_argument("--ops", default=",".join(DEFAULT_OPS),
                    help="bench names of the operators (their folders' bench.py); default: every one, "
                         + ",".join(DEFAULT_OPS))
    ap.add_argument("--repeat", type=int, default=5, help="timed repeats per measurement (median, min)")
    ap.add_argument("--target-ms", type=float, default=200.0,
                    help="time spent per measurement after warm-up, split over the repeats (paired "
                         "measurements: per side, split over the rounds)")
    ap.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS,
                    help="rounds of the paired Python/C++ measurements (C++ and Python timed back to back "
                         "each round; medians over rounds)")
    ap.add_argument("--rss-calls", type=int, default=100000,
                    help="calls of each form for the RSS check (0: skip); fewer if they would take "
                         "longer than their share of --rss-budget-s")
    ap.add_argument("--rss-budget-s", type=float, default=30.0, help="time for the RSS check, all forms together")
    ap.add_argument("--json", metavar="PATH", help="write every measurement as JSON to PATH ('-': stdout)")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument("--from-json", metavar="PATH", help="print the report of a saved --json file (no measuring)")
    ap.add_argument("--no-cpp", action="store_true", help="skip the C++ loop")
    ap.add_argument("--no-torch", action="store_true", help="skip PyTorch")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    return ap


def parse_paths(text: str) -> list[str] | None:
    """--paths: None for every path the CPU has, [] for none, else the list (checked)."""
    t = text.strip().lower()
    if t == "all":
        return None
    if t in ("none", "off", ""):
        return []
    paths = _csv(t)
    bad = [p for p in paths if p not in KERNEL_PATHS]
    if bad:
        raise ValueError(f"bad --paths: {', '.join(bad)} (all, none, or of {', '.join(KERNEL_PATHS)})")
    return paths


def options(args: argparse.Namespace) -> RunOptions:
    """The keyword arguments of run() from the parsed command line (ValueError naming the
    option on bad input)."""
    try:
        sizes = [] if args.sizes.strip().lower() in ("none", "off") else [parse_size(s) for s in _csv(args.sizes)]
    except ValueError as exc:
        raise ValueError(f"bad --sizes: {exc}") from None
    try:
        sweep = parse_sweep(args.sweep)
    except ValueError as exc:
        raise ValueError(f"bad --sweep: {exc}") from None
    for name in ("rounds", "repeat"):
        if getattr(args, name) < 1:
            raise ValueError(f"bad --{name}: {getattr(args, name)} (at least 1)")
    if args.sweep_settle_ms is not None and not 0 <= args.sweep_settle_ms <= 10000:
        raise ValueError(f"bad --sweep-settle-ms: {args.sweep_settle_ms} (0 to 10000)")
    return RunOptions(sizes=sizes, dtypes=_csv(args.dtypes), ops=_csv(args.ops), repeat=args.repeat,
                      target_ms=args.target_ms, rounds=args.rounds, rss_calls=args.rss_calls,
                      rss_budget_s=args.rss_budget_s, cpp=not args.no_cpp, torch_=not args.no_torch, quiet=args.quiet,
                      sweep=sweep, paths=parse_paths(args.paths), sweep_ms=args.sweep_ms,
                      sweep_settle_ms=args.sweep_settle_ms, placement=not args.no_placement,
                      forms=not args.no_forms, first_calls=args.first_calls, first_procs=args.first_procs)


def main(argv: Sequence[str] | None = None, prog: str = "python -m pyacl_hardgrad bench") -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(prog).parse_args(argv)
    if args.from_json:
        with open(args.from_json) as f:
            print(format_report(json.load(f), markdown=args.markdown))
        return 0
    try:
        kw = options(args)
    except ValueError as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 2
    result = run(**kw, command=" ".join([prog] + [shlex.quote(a) for a in argv]))
    if args.json == "-":
        json.dump(result, sys.stdout, indent=1)
        print()
    else:
        print(format_report(result, markdown=args.markdown))
        if args.json:
            tmp = f"{args.json}.tmp{os.getpid()}"
            with open(tmp, "w") as f:
                json.dump(result, f, indent=1)
                f.write("\n")
            os.replace(tmp, args.json)
    return 0
