"""Per-call cost of two installs of the package, timed in alternating rounds.

    python -m pyacl_hardgrad.bench.compare OLD_PYTHON NEW_PYTHON [--rounds 15] [--modes a,b,...]

Each interpreter runs this module as a worker (``--worker``) in its own process; every round
times one batch of each call form in both workers back to back (order alternating), and the
report gives the medians and the median of the per-round ratios, plus the Python calls and the
crossings into C one call makes (``sys.setprofile``: the binding's functions and the entry points
of ``_fastcall``).  Only the public API is
used, so an older install can be compared with a newer one.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from types import FrameType
from typing import Any, TypedDict


class OpEntry(TypedDict):
    """An operator as the workers call it: its one-call and plan names in the public API and
    the values of its scalar parameters."""
    fn: str
    plan: str
    scalars: list[float]


def _operators() -> list[OpEntry]:
    """The bench's first two operators (its folders' bench.py, registry order) as the workers
    call them: the function and plan names of the public API and the scalar values.  Mode
    names say which: a_* the first, b_* the second (plan_* and a_numpy use the first)."""
    from . import runner
    from .. import ops
    out: list[OpEntry] = []
    for name in runner.DEFAULT_OPS[:2]:
        fn, scalars = runner.BENCH_OPS[name]
        spec = ops.operators()[fn]
        out.append({"fn": spec.function_name, "plan": spec.plan_name, "scalars": list(scalars)})
    return out


def _worker(specs: list[OpEntry]) -> None:
    import numpy as np
    import pyacl_hardgrad as hg
    from pyacl_hardgrad import lib

    dev = hg.Device(0)
    s = dev.create_stream()
    rng = np.random.default_rng(0)
    G, X = (rng.uniform(-4, 4, 8).astype(np.float32) for _ in range(2))
    g, x, o = hg.Tensor(G, dev), hg.Tensor(X, dev), hg.empty((8,), "float32", dev)
    a, b = specs[0], specs[-1]
    fa, fb = getattr(hg, a["fn"]), getattr(hg, b["fn"])
    sa, sb = tuple(a["scalars"]), tuple(b["scalars"])
    plan = getattr(hg, a["plan"])(g, x, *sa, o, repeatable=True)
    sync, run = s.synchronize, plan.run
    def a_fresh(k: int) -> None:
        for _ in range(k):
            fa(g, x, *sa, out=o, stream=s)
            sync()

    def a_fresh_s(k: int) -> None:
        for _ in range(k):
            fa(g, x, *sa, out=o, stream=s, sync=True)

    def b_fresh(k: int) -> None:
        for _ in range(k):
            fb(g, x, *sb, out=o, stream=s)
            sync()

    def b_fresh_s(k: int) -> None:
        for _ in range(k):
            fb(g, x, *sb, out=o, stream=s, sync=True)

    def a_noout_s(k: int) -> None:
        for _ in range(k):
            fa(g, x, *sa, stream=s, sync=True)

    def plan_sy(k: int) -> None:
        for _ in range(k):
            run(None, s)
            sync()

    def plan_s(k: int) -> None:
        for _ in range(k):
            run(None, s, sync=True)

    def plan_async(k: int) -> None:
        for _ in range(k):
            run(None, s)
        sync()

    def a_numpy(k: int) -> None:
        for _ in range(k):
            fa(G, X, *sa)

    def b_numpy(k: int) -> None:
        for _ in range(k):
            fb(G, X, *sb)

    def alloc(k: int) -> None:
        for _ in range(k):
            hg.empty((8,), "float32", dev).close()
    modes = {f.__name__: f for f in (a_fresh, a_fresh_s, b_fresh, b_fresh_s, a_noout_s, plan_sy, plan_s,
                                     plan_async, a_numpy, b_numpy, alloc)}
    libfuncs = {id(getattr(lib, a)) for a in dir(lib) if callable(getattr(lib, a, None))}
    try:                               # the vectorcall entry points (absent from older installs)
        from pyacl_hardgrad import _fastcall
        fast = tuple(getattr(_fastcall, n) for n in ("OpCall", "PlanRunner", "TensorBase") if hasattr(_fastcall, n))
    except ImportError:
        _fastcall, fast = None, ()  # type: ignore[assignment]  # (an older install: no _fastcall)
    for line in sys.stdin:
        w = line.split()
        if not w or w[0] == "quit":
            break
        f = modes[w[1]] if w[0] == "count" else modes[w[0]]
        if w[0] == "count":
            f(3)
            n = {"py": 0, "c": 0}

            def prof(frame: FrameType, event: str, arg: object) -> None:
                if event == "call":
                    n["py"] += 1
                elif event == "c_call" and (id(arg) in libfuncs or isinstance(getattr(arg, "__self__", None), fast)
                                            or (_fastcall is not None and getattr(arg, "__self__", None) is _fastcall)):
                    n["c"] += 1
            sys.setprofile(prof)
            f(1)
            sys.setprofile(None)
            n["py"] -= 1                 # the mode's own loop function
            print(json.dumps(n), flush=True)
            continue
        k = int(w[1])
        f(10)
        t0 = time.perf_counter_ns()
        f(k)
        print(json.dumps({"ns": (time.perf_counter_ns() - t0) / k}), flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    from .runner import end_child, exchange
    ap = argparse.ArgumentParser(prog="python -m pyacl_hardgrad.bench.compare",
                                 description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--modes", default="a_fresh,a_fresh_s,b_fresh,b_fresh_s,a_noout_s,plan_sy,plan_s,"
                                       "plan_async,a_numpy,b_numpy,alloc",
                    help="a_*: the bench's first operator, b_*: its second (registry order); alloc: "
                         "hg.empty((8,), 'float32').close()")
    a = ap.parse_args(argv)
    # the worker runs as this file (an older install need not have it)
    specs = json.dumps(_operators())
    pythons = {"old": a.old, "new": a.new}
    procs = {k: subprocess.Popen([py, __file__, "--worker", specs], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True, cwd="/")
             for k, py in pythons.items()}

    def ask(k: str, *w: object) -> dict[str, Any]:
        """One request to a worker, its JSON answer (RuntimeError naming the worker if it is gone)."""
        line = exchange(procs[k], " ".join(map(str, w)) + "\n", RuntimeError, f"the {k} worker ({pythons[k]})")
        if not line:
            raise RuntimeError(f"the {k} worker ({pythons[k]}) exited (status {procs[k].poll()})")
        ans: dict[str, Any] = json.loads(line)
        return ans
    modes = a.modes.split(",")
    try:
        counts = {m: {k: ask(k, "count", m) for k in procs} for m in modes}
        res: dict[str, dict[str, list[float]]] = {m: {"old": [], "new": []} for m in modes}
        for r in range(a.rounds):
            for m in modes:
                iters = 500 if m in ("a_numpy", "b_numpy", "a_noout_s") else 2000
                for k in (("old", "new") if r % 2 == 0 else ("new", "old")):
                    res[m][k].append(ask(k, m, iters)["ns"])
    finally:
        for p in procs.values():
            end_child(p, "quit\n", 30)
    print(f"{'mode':12} {'old us':>8} {'new us':>8} {'new/old':>8}  Python calls/C calls old -> new")
    for m in modes:
        o, n = res[m]["old"], res[m]["new"]
        c = counts[m]
        print(f"{m:12} {statistics.median(o) / 1000:8.3f} {statistics.median(n) / 1000:8.3f} "
              f"{statistics.median(b / x for x, b in zip(o, n)):8.3f}  "
              f"{c['old']['py']}/{c['old']['c']} -> {c['new']['py']}/{c['new']['c']}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        _worker(json.loads(sys.argv[2]))
    else:
        sys.exit(main())
