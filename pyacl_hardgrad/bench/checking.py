"""``python -m pyacl_hardgrad.bench.checking``: what checking mode (PYACL_HARDGRAD_CHECK=1) costs.

The same operator calls in two worker processes (``bench/worker.py``), one with checking mode on and
one with it off (the mode is read at ``aclInit``, so the two sides need two processes), timed in
interleaved rounds (``runner.timed_rounds``: both sides calibrated to the same batch time, then one
batch of each back to back per round, the order alternating; a ratio is the median of the per-round
ratios on/off).  The forms are the package's own (``worker.FORMS``): by default ``noout`` (the
one-call ``fn(g, x, stream=s, sync=True)``, its output allocated per call) and ``plan_s`` (a
repeatable plan's run).  The memory overhead is each worker's peak RSS after the run.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from typing import Sequence, TypedDict

from . import runner as R
from .sections import WorkerProc, WorkerSide

__all__ = ["main", "run", "format_report", "DEFAULT_SIZES", "DEFAULT_FORMS"]

DEFAULT_SIZES = [8, 1 << 20]
DEFAULT_FORMS = ["noout", "plan_s"]
# the checking side: findings to a file nobody reads (there should be none), no leak report at exit
CHECK_ON = {"PYACL_HARDGRAD_CHECK": "1", "PYACL_HARDGRAD_CHECK_LOG": os.devnull, "PYACL_HARDGRAD_CHECK_LEAKS": "none"}
CHECK_OFF = {"PYACL_HARDGRAD_CHECK": "0"}


class Row(TypedDict):
    op: str
    n: int
    form: str
    off_ns: float
    on_ns: float
    ratio: float
    ratio_min: float
    ratio_max: float


class Report(TypedDict):
    machine: str
    rounds: int
    rows: list[Row]
    peak_rss_kib: dict[str, int | None]


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def run(ops: Sequence[str], sizes: Sequence[int], forms: Sequence[str], rounds: int = 9,
        batch_ms: float = 20.0, dtype: str = "float32") -> Report:
    """Time every (op, size, form) with checking off and on; the per-round ratios on/off."""
    unknown = [f for f in forms if f not in ("noout", "out_s", "out_sy", "plan_s", "plan_sy")]
    if unknown:
        raise ValueError(f"forms: {', '.join(unknown)} not among noout, out_s, out_sy, plan_s, plan_sy")
    unknown = [o for o in ops if o not in R.BENCH_OPS]
    if unknown or not ops:
        raise ValueError(f"ops: {', '.join(unknown) or '(none)'} not among the bench's operators "
                         f"{', '.join(R.BENCH_OPS)}")
    off, on = WorkerProc("check_off", env=CHECK_OFF), WorkerProc("check_on", env=CHECK_ON)
    rows: list[Row] = []
    try:
        for n in sizes:
            for w in (off, on):
                w.ask({"cmd": "group", "dtype": dtype, "n": int(n), "ops": list(ops), "forms": list(forms),
                       "torch": False, "copy": False})
            items: list[tuple[tuple[str, str], list[R.Side]]] = [
                ((op, form), [WorkerSide("off", off, f"{op}:{form}"), WorkerSide("on", on, f"{op}:{form}")])
                for op in ops for form in forms]
            res = R.timed_rounds(items, rounds, batch_ms * 1e6 * rounds)
            for (op, form), sides in res.items():
                ratios = R.per_round(sides["on"]["ns"], sides["off"]["ns"])
                rows.append({"op": op, "n": int(n), "form": form, "off_ns": R._median(sides["off"]["ns"]),
                             "on_ns": R._median(sides["on"]["ns"]), "ratio": R._median(ratios),
                             "ratio_min": min(ratios), "ratio_max": max(ratios)})
            for w in (off, on):
                w.ask({"cmd": "drop"})
    finally:
        st_off, st_on = off.close(), on.close()
    return {"machine": f"{_cpu_model()}, {os.cpu_count()} CPUs", "rounds": rounds, "rows": rows,
            "peak_rss_kib": {"off": (st_off or {}).get("vmhwm_kib"), "on": (st_on or {}).get("vmhwm_kib")}}


def format_report(rep: Report) -> str:
    lines = [f"checking mode on/off ({rep['machine']}; {rep['rounds']} interleaved rounds; ratio = median "
             "of per-round on/off)",
             f"{'op':<12} {'n':>8} {'form':<7} {'off':>10} {'on':>10} {'on/off':>7}  (round range)"]
    for r in rep["rows"]:
        lines.append(f"{r['op']:<12} {r['n']:>8} {r['form']:<7} {r['off_ns'] / 1e3:>8.2f}us {r['on_ns'] / 1e3:>8.2f}us "
                     f"{r['ratio']:>7.2f}  ({r['ratio_min']:.2f}-{r['ratio_max']:.2f})")
    off, on = rep["peak_rss_kib"].get("off"), rep["peak_rss_kib"].get("on")
    if off and on:
        lines.append(f"peak RSS: off {off / 1024:.1f} MiB, on {on / 1024:.1f} MiB")
    return "\n".join(lines)


def _sizes(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        t = part.strip().upper()
        mult = {"K": 1 << 10, "M": 1 << 20}.get(t[-1:], 1)
        out.append(int(t[:-1] if mult > 1 else t) * mult)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m pyacl_hardgrad.bench.checking", description=__doc__.splitlines()[0])
    ap.add_argument("--ops", default="hardsigmoid", help="bench operators, comma-separated (default hardsigmoid)")
    ap.add_argument("--sizes", default="8,1M", help="elements per call, comma-separated (K/M suffixes)")
    ap.add_argument("--forms", default=",".join(DEFAULT_FORMS), help="call forms (worker.FORMS)")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--batch-ms", type=float, default=20.0)
    ap.add_argument("--json", default=None, help="write the report as JSON to this path")
    args = ap.parse_args(argv)
    try:
        rep = run([o for o in args.ops.split(",") if o], _sizes(args.sizes), [f for f in args.forms.split(",") if f],
                  args.rounds, args.batch_ms)
    except (ValueError, KeyError) as exc:
        print(f"bench.checking: {exc}", file=sys.stderr)
        return 2
    print(format_report(rep))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rep, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
