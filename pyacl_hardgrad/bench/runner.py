"""The measurements behind ``python -m pyacl_hardgrad bench``.

Every number is a per-call time from ``time.perf_counter_ns`` around a tight loop: one
warm-up call, a calibration that picks the loop count so one repeat lasts about
``target_ms / repeat``, then ``repeat`` timed repeats; we keep the median and the min.
All operator timings include the stream synchronisation (results are ready when counted).
Python and C++ operator loops are instead timed in alternating rounds against a persistent
C++ child (``measure_paired``), so both sides of a ratio see the same moments of the machine.
"""
from __future__ import annotations

import gc
import hashlib
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

DEFAULT_SIZES = (8, 4096, 1 << 20, 1 << 24)
DEFAULT_DTYPES = ("float32", "float16", "bfloat16")


def _load_bench_modules() -> dict:
    """Every registered operator folder's bench.py, by its bench name, in registry order: NAME,
    FUNCTION (the aclnn operator), SCALARS (the values of its scalar parameters), EXACT,
    numpy_op(g, x) and torch_body(torch, tg, tx, to).  Everything else is generic."""
    import importlib.util
    root = Path(__file__).resolve().parent.parent / "_embedded" / "opapi" / "ops"
    out = {}
    for line in (root / "operators.txt").read_text().splitlines():
        folder = line.split("#", 1)[0].strip()
        path = root / folder / "bench.py"
        if folder and path.is_file():
            spec = importlib.util.spec_from_file_location(f"pyacl_hardgrad_bench_{folder}", path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            out[mod.NAME] = mod
    return out


BENCH = _load_bench_modules()
# What the bench measures: its short name -> (the aclnn operator, the values of its scalar
# parameters).
BENCH_OPS = {name: (m.FUNCTION, tuple(m.SCALARS)) for name, m in BENCH.items()}
DEFAULT_OPS = tuple(BENCH)
# The operator of the warm-up, the RSS check and the floor study: the first one registered.
FLOOR_OP = DEFAULT_OPS[0] if DEFAULT_OPS else None


def op_spec(op: str):
    """The package's description of a bench operator (pyacl_hardgrad.ops.OpSpec)."""
    from .. import ops
    return ops.operators()[BENCH_OPS[op][0]]


def cpp_token(op: str) -> str:
    """The operator as cpp_loop takes it: <aclnn name>/<kinds>/<scalar values>."""
    spec = op_spec(op)
    kinds = "".join("o" if p.role == "out" else "s" if p.kind == "scalar" else "t" for p in spec.params)
    return f"{spec.name}/{kinds}/{':'.join(repr(float(v)) for v in BENCH_OPS[op][1])}"
SCHEMA = "pyacl_hardgrad-bench/1"
# Largest size also timed without a wait per call (enqueue cost; must match cpp_loop.cpp).
ASYNC_MAX_SIZE = 65536
# Rounds of the paired Python/C++ measurements (odd: the median is one round's value).
DEFAULT_ROUNDS = 11


def our_kernel_threads() -> int:
    """Threads the embedded runtime's kernels use for large tensors: PYACL_HARDGRAD_THREADS,
    else the online CPUs (libopapi's pool reads the same two, capped at 64)."""
    env = os.environ.get("PYACL_HARDGRAD_THREADS", "").strip()
    try:
        n = int(env) if env else 0
    except ValueError:
        n = 0
    if n < 1:
        n = os.sysconf("SC_NPROCESSORS_ONLN") if hasattr(os, "sysconf") else (os.cpu_count() or 1)
    return max(1, min(int(n), 64))


# ---------------------------------------------------------------------------- helpers

def parse_size(text: str) -> int:
    """'8', '4K', '1M', '16M', '1<<20' -> element count."""
    t = text.strip().upper()
    if "<<" in t:
        a, b = t.split("<<")
        return int(a) << int(b)
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(t[-1:], 1)
    n = int(t[:-1] if mult > 1 else t) * mult
    if n <= 0:
        raise ValueError(f"size must be positive: {text!r}")
    return n


def size_label(n: int) -> str:
    for unit, v in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= v and n % v == 0:
            return f"{n // v}{unit}"
    return str(n)


def numpy_dtype(name: str) -> np.dtype:
    if name == "bfloat16":
        import ml_dtypes
        return np.dtype(ml_dtypes.bfloat16)
    if name in ("float32", "float16"):
        return np.dtype(name)
    raise ValueError(f"unsupported dtype {name!r} (float32, float16, bfloat16)")


def measure(body, repeat: int, target_ns: float) -> dict:
    """Time ``body(k)`` (k iterations); per-call median/min over ``repeat`` repeats."""
    body(1)
    per_rep = target_ns / max(repeat, 1)
    k, per_call = 1, 0.0
    while True:
        t0 = time.perf_counter_ns()
        body(k)
        el = time.perf_counter_ns() - t0
        per_call = el / k
        if el >= per_rep / 8 or k >= 1 << 30:
            break
        k *= 8
    k = max(1, int(per_rep / max(per_call, 1.0)))
    times = []
    for _ in range(max(repeat, 1)):
        t0 = time.perf_counter_ns()
        body(k)
        times.append((time.perf_counter_ns() - t0) / k)
    times.sort()
    n = len(times)
    med = times[n // 2] if n % 2 else (times[n // 2 - 1] + times[n // 2]) / 2
    return {"median_ns": med, "min_ns": times[0], "iters": k, "repeats": n}


def gbps(nbytes: float, ns: float | None) -> float | None:
    return None if not ns else nbytes / ns     # bytes per ns == GB/s


def rss_kib() -> int:
    """Current resident set size (from /proc/self/statm), in KiB; ru_maxrss elsewhere."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") // 1024
    except (OSError, ValueError, IndexError):
        return maxrss_kib()


def maxrss_kib() -> int:
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return r // 1024 if sys.platform == "darwin" else r


def _progress(quiet: bool, msg: str) -> None:
    if not quiet:
        print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------- the C++ loop

def _library_dir() -> str:
    from .._binding import BACKEND
    return os.path.dirname(BACKEND.library_files[0])


def find_compiler() -> str | None:
    cxx = os.environ.get("CXX")
    if cxx:
        return cxx
    for name in ("c++", "g++", "clang++"):
        p = shutil.which(name)
        if p:
            return p
    return None


def build_cpp_loop(cache_dir: str | os.PathLike | None = None) -> Path:
    """Compile cpp_loop.cpp with CANN's link line (cached by source, headers, paths, compiler)."""
    from .._paths import get_include
    src = Path(__file__).with_name("cpp_loop.cpp")
    inc, libdir = get_include(), _library_dir()
    cxx = find_compiler()
    if cxx is None:
        raise RuntimeError("no C++ compiler found (set CXX)")
    flags = ["-O2", "-std=c++11"]
    h = hashlib.sha256()
    h.update(src.read_bytes())
    for p in sorted(Path(inc).rglob("*.h")):
        h.update(str(p).encode() + p.read_bytes())
    h.update("\0".join([inc, libdir, cxx, *flags]).encode())
    cache = Path(cache_dir) if cache_dir else Path(tempfile.gettempdir()) / f"pyacl_hardgrad-bench-{os.getuid()}"
    cache.mkdir(parents=True, exist_ok=True)
    exe = cache / f"cpp_loop-{h.hexdigest()[:16]}"
    if exe.exists():
        return exe
    tmp = cache / f".{exe.name}.{os.getpid()}"
    cmd = [cxx, *flags, str(src), f"-I{inc}", f"-L{libdir}", "-lascendcl", "-lnnopbase", "-lopapi",
           f"-Wl,-rpath,{libdir}", "-ldl", "-o", str(tmp)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"compiling the C++ loop failed:\n{' '.join(cmd)}\n{proc.stderr}")
    os.replace(tmp, exe)
    return exe


class CppError(RuntimeError):
    """The C++ child failed or answered with an error."""


class CppServer:
    """The C++ loop as a persistent child (``cpp_loop --serve``): one command line per
    measurement, one JSON line back, so C++ and Python can be timed alternately cell by cell."""

    def __init__(self, exe: Path, timeout: float = 120.0):
        self.exe, self.timeout = exe, timeout
        self.proc = subprocess.Popen([str(exe), "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def ask(self, *words) -> dict:
        """Send one command; the answer as a dict (CppError on an error answer or a dead child).
        ``cell`` commands name the operator by its bench name; the child gets its token."""
        if words and words[0] == "cell" and len(words) > 1 and words[1] in BENCH_OPS:
            words = (words[0], cpp_token(words[1]), *words[2:])
        try:
            self.proc.stdin.write(" ".join(map(str, words)) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except (OSError, ValueError) as exc:
            raise CppError(f"{self.exe} --serve: {exc}") from exc
        if not line:
            raise CppError(f"{self.exe} --serve exited (status {self.proc.poll()})")
        try:
            data = json.loads(line)
        except ValueError as exc:
            raise CppError(f"{self.exe} --serve: bad answer {line!r}") from exc
        if "error" in data:
            raise CppError(f"{self.exe} --serve: {' '.join(map(str, words))}: {data['error']}")
        return data

    def close(self) -> None:
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.close()
        except (OSError, ValueError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()


def start_cpp_server() -> tuple[CppServer | None, dict]:
    """(server, the JSON's ``cpp`` object); server is None and ``cpp`` has ``error`` on failure."""
    try:
        exe = build_cpp_loop()
        return CppServer(exe), {"binary": str(exe), "mode": "paired"}
    except (RuntimeError, OSError) as exc:
        return None, {"error": str(exc)}


def _median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def _calibrate(body, target_ns: float) -> int:
    """Loop count k so that ``body(k)`` lasts about ``target_ns`` (after one warm-up call)."""
    body(1)
    k = 1
    while True:
        t0 = time.perf_counter_ns()
        body(k)
        el = time.perf_counter_ns() - t0
        if el >= target_ns / 8 or k >= 1 << 30:
            break
        k *= 8
    return max(1, int(target_ns / max(el / k, 1.0)))


def measure_paired(items, server: CppServer | None, rounds: int, target_ns: float) -> dict:
    """Python bodies and their C++ cells timed alternately, round by round.

    ``items``: [(name, py_body, cell)], cell = (op, dtype, size, mode) for ``cpp_loop --serve``.
    Both sides of every item are calibrated to ``target_ns / rounds`` per batch; then each of
    ``rounds`` rounds goes through all items and times one batch of the C++ cell and one of the
    Python body back to back (one warm-up call before each batch), C++ first in even rounds and
    Python first in odd ones.  So slow moments of the machine land on both sides of a pair, and
    each item's rounds spread over the time of all items (a slow phase rarely covers most of
    them).  Returns {name: {'python': stats, 'cpp': stats or None, 'ratios': per-round
    Python/C++, 'python_ns', 'cpp_ns': per-round per-call times}}; stats are median/min over
    the rounds."""
    rounds = max(rounds, 1)
    per_batch = target_ns / rounds
    cal = {}
    for name, body, cell in items:
        kc = server.ask("cell", *cell, 0, f"{per_batch / 1e6:.4f}")["iters"] if server else None
        cal[name] = (_calibrate(body, per_batch), kc)
    py = {name: [] for name, _, _ in items}
    cc = {name: [] for name, _, _ in items}
    for r in range(rounds):
        for name, body, cell in items:
            kp, kc = cal[name]
            if server is not None and r % 2 == 0:
                cc[name].append(server.ask("cell", *cell, kc, 0)["ns"])
            body(1)
            t0 = time.perf_counter_ns()
            body(kp)
            py[name].append((time.perf_counter_ns() - t0) / kp)
            if server is not None and r % 2 == 1:
                cc[name].append(server.ask("cell", *cell, kc, 0)["ns"])

    def stats(v, k):
        return {"median_ns": _median(v), "min_ns": min(v), "iters": k, "repeats": len(v)}
    out = {}
    for name, _, _ in items:
        p, c = py[name], cc[name]
        out[name] = {"python": stats(p, cal[name][0]), "cpp": stats(c, cal[name][1]) if c else None,
                     "ratios": [a / max(b, 1e-3) for a, b in zip(p, c)] if c else None,
                     "python_ns": p, "cpp_ns": c or None}
    return out


def _plan_bodies(plan, stream):
    """(run + synchronize(), run(sync=True), async) loops over a repeatable plan."""
    run_plan, sync = plan.run, stream.synchronize

    def plan_body(k):
        for _ in range(k):
            run_plan(None, stream)
            sync()

    def plan_sync_body(k):
        for _ in range(k):
            run_plan(None, stream, sync=True)

    def async_body(k):
        for _ in range(k):
            run_plan(None, stream)
        sync()
    return plan_body, plan_sync_body, async_body


# ---------------------------------------------------------------------------- the Python side

def _make_inputs(n: int, dt: np.dtype, seed: int = 0):
    """gradOutput and self: uniform in [-4, 4], so both operators take both branches."""
    rng = np.random.default_rng(seed)
    g = rng.uniform(-4.0, 4.0, n).astype(np.float32).astype(dt)
    x = rng.uniform(-4.0, 4.0, n).astype(np.float32).astype(dt)
    return g, x


def numpy_op(op: str, g: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The operator's math in numpy (its folder's bench.py)."""
    return BENCH[op].numpy_op(g, x)


def trivial_calls(repeat: int, target_ns: float) -> dict:
    """Per-call cost of aclrtGetDevice through our binding, through ctypes, and of an empty loop."""
    import ctypes

    from .._binding import BACKEND, ffi, lib
    buf = ffi.new("int32_t *")
    f = lib.aclrtGetDevice
    if f(buf) != 0:
        raise RuntimeError("aclrtGetDevice failed: no device is current on this thread")

    def cffi_body(k):
        for _ in range(k):
            f(buf)

    cl = ctypes.CDLL(BACKEND.library_files[0])
    cf = cl.aclrtGetDevice
    cf.argtypes = [ctypes.POINTER(ctypes.c_int32)]
    cf.restype = ctypes.c_int
    cval = ctypes.c_int32(-1)
    cptr = ctypes.pointer(cval)

    def ctypes_body(k):
        for _ in range(k):
            cf(cptr)

    def empty_body(k):
        for _ in range(k):
            pass

    out = {"binding": measure(cffi_body, repeat, target_ns), "ctypes": measure(ctypes_body, repeat, target_ns),
           "python_loop": measure(empty_body, repeat, target_ns)}
    if cval.value != buf[0]:
        raise RuntimeError("ctypes and the binding disagree on the current device")
    return out


def _python_op_bodies(hg, op, g, x, o, stream):
    """(one-call + synchronize() body, one-call with sync=True body, repeatable plan)."""
    sync = stream.synchronize
    spec = op_spec(op)
    fn = spec.function
    scalars = iter(BENCH_OPS[op][1])
    tensors = iter((g, x))
    args = tuple(next(tensors) if p.kind in ("tensor", "out") else next(scalars)
                 for p in spec.params if p.role != "out")
    out_name = spec.outputs[0].name

    def fresh(k):
        kw = {out_name: o, "stream": stream}
        for _ in range(k):
            fn(*args, **kw)
            sync()

    def fresh_sync(k):
        kw = {out_name: o, "stream": stream, "sync": True}
        for _ in range(k):
            fn(*args, **kw)
    plan = spec.plan(*args, o, repeatable=True)
    return fresh, fresh_sync, plan


def _warm_up(hg, device, stream, server, ns: float) -> None:
    """Run the 8-element one-call FLOOR_OP untimed for about ``ns`` on each side, so the
    first measured cell does not pay for the processes settling (first-touch, scheduler)."""
    g, x = _make_inputs(8, np.dtype(np.float32))
    tg, tx = hg.from_numpy(g, device), hg.from_numpy(x, device)
    to = hg.empty((8,), "float32", device)
    try:
        fresh, _, plan = _python_op_bodies(hg, FLOOR_OP, tg, tx, to, stream)
        plan.close()
        fresh(max(1, _calibrate(fresh, ns / 8)) * 8)
        if server:
            cell = (FLOOR_OP, "float32", 8, "fresh")
            k = server.ask("cell", *cell, 0, f"{ns / 8e6:.4f}")["iters"]
            server.ask("cell", *cell, k * 8, 0)
    finally:
        for t in (tg, tx, to):
            t.close()
        stream.synchronize()


def _torch_bench(op, g, x, threads_list, repeat, target_ns) -> dict:
    import torch
    from_np = torch.from_numpy

    def tt(a):
        if a.dtype == numpy_dtype("bfloat16"):
            return from_np(a.view(np.int16)).view(torch.bfloat16)
        return from_np(a)
    tg, tx = tt(g), tt(x)
    to = torch.empty_like(tg)
    body = BENCH[op].torch_body(torch, tg, tx, to)
    saved = torch.get_num_threads()
    out = {}
    try:
        for label, n in threads_list:
            torch.set_num_threads(n)
            out[label] = measure(body, repeat, target_ns)
            out[label]["threads"] = n
    finally:
        torch.set_num_threads(saved)
    return out


def _check_result(op, ours: np.ndarray, ref: np.ndarray) -> bool:
    if BENCH[op].EXACT:
        return bool(np.array_equal(ours.view(np.uint8), ref.view(np.uint8)))
    a, b = ours.astype(np.float32), ref.astype(np.float32)
    return bool(np.allclose(a, b, rtol=1e-2, atol=1e-6))


def rss_over_calls(hg, device, stream, calls: int, budget_s: float) -> dict:
    """RSS before/after ``calls`` one-call FLOOR_OP runs on 8-element float32 tensors."""
    g = hg.from_numpy(np.linspace(-2, 2, 8, dtype=np.float32), device)
    x = hg.from_numpy(np.linspace(-2, 2, 8, dtype=np.float32), device)
    o = hg.empty((8,), "float32", device)
    fresh, _, plan = _python_op_bodies(hg, FLOOR_OP, g, x, o, stream)
    plan.close()
    try:
        warm = min(2000, max(calls // 10, 1))
        t0 = time.perf_counter()
        fresh(warm)
        per_call = (time.perf_counter() - t0) / warm
        n = calls
        if per_call * calls > budget_s:
            n = max(1000, int(budget_s / per_call))
        gc.collect()
        before, max_before = rss_kib(), maxrss_kib()
        t0 = time.perf_counter()
        fresh(n)
        elapsed = time.perf_counter() - t0
        gc.collect()
        after, max_after = rss_kib(), maxrss_kib()
    finally:
        for t in (g, x, o):
            t.close()
    return {"op": FLOOR_OP, "requested_calls": calls, "calls": n, "reduced": n != calls, "warmup_calls": warm,
            "seconds": elapsed, "rss_before_kib": before, "rss_after_kib": after,
            "change_pct": 100.0 * (after - before) / before if before else None,
            "maxrss_before_kib": max_before, "maxrss_after_kib": max_after}


# ---------------------------------------------------------------------------- the floor

FLOOR_ITEMS = (
    # (name, what it calls per iteration, the C++ loop it is paired with)
    ("plan_two_calls", "lib.aclnnXxx(...) + lib.aclrtSynchronizeStream(h)", "plan"),
    ("plan_one_call", "lib.hgb_plan_run(..., HGB_WAIT): hold, phase 2, hand-over + wait in one call", "plan"),
    ("fresh_three_calls", "lib.aclnnXxxGetWorkspaceSize + aclnnXxx + aclrtSynchronizeStream", "fresh"),
    ("fresh_one_call", "lib.hgb_call_aclnnXxx(..., HGB_WAIT): hold, phase 1, phase 2, hand-over "
                       "+ wait in one call", "fresh"),
)


def floor_study(hg, device, stream, server, rounds: int, target_ns: float) -> dict:
    """The 8-element float32 loops of FLOOR_OP (aclnnXxx) written with bare binding calls, no
    package code, timed in rounds with the C++ loops: what CPython + cffi alone add to C++."""
    from .._binding import ffi, lib
    g, x = _make_inputs(8, np.dtype(np.float32))
    tg, tx = hg.from_numpy(g, device), hg.from_numpy(x, device)
    to = hg.empty((8,), "float32", device)
    spec = op_spec(FLOOR_OP)
    scalars = [hg.Scalar(v) for v in BENCH_OPS[FLOOR_OP][1]]
    si, ti = iter(scalars), iter((tg, tx))
    args = [to if p.role == "out" else next(si) if p.kind == "scalar" else next(ti) for p in spec.params]
    plan = spec.plan(*args, repeatable=True)
    try:
        ex, sh = ffi.cast("aclOpExecutor *", lib.hgb_obj_handle(plan._o)), stream.handle
        handles = tuple(a.handle for a in args)
        objs = tuple(a._o for a in args)
        po, so = plan._o, stream._o
        null = ffi.NULL
        size, exe, call = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **"), ffi.new("hgb_call *")
        p1, p2 = getattr(lib, spec.name + "GetWorkspaceSize"), getattr(lib, spec.name)
        sync = lib.aclrtSynchronizeStream
        run1, fused, wait = lib.hgb_plan_run, getattr(lib, "hgb_call_" + spec.name), lib.HGB_WAIT

        def plan_two_calls(k):
            for _ in range(k):
                p2(null, 0, ex, sh)
                sync(sh)

        def plan_one_call(k):
            for _ in range(k):
                run1(call, po, so, null, wait)

        def fresh_three_calls(k):
            for _ in range(k):
                p1(*handles, size, exe)
                p2(null, 0, exe[0], sh)
                sync(sh)

        def fresh_one_call(k):
            for _ in range(k):
                fused(call, so, wait, *objs)

        bodies = {"plan_two_calls": plan_two_calls, "plan_one_call": plan_one_call,
                  "fresh_three_calls": fresh_three_calls, "fresh_one_call": fresh_one_call}
        # every body must really run the operator before it is timed
        for name, body in bodies.items():
            to.copy_from(np.zeros(8, np.float32))
            body(1)
            if not _check_result(FLOOR_OP, to.numpy(), numpy_op(FLOOR_OP, g, x)):
                raise RuntimeError(f"floor loop {name} did not compute the operator")
        items = [(name, bodies[name], (FLOOR_OP, "float32", 8, cpp_mode)) for name, _, cpp_mode in FLOOR_ITEMS]
        paired = measure_paired(items, server, rounds, target_ns)
    finally:
        plan.close()
        for t in (tg, tx, to, *scalars):
            t.close()
        stream.synchronize()
    out = {}
    for name, what, cpp_mode in FLOOR_ITEMS:
        m = paired[name]
        out[name] = {"calls": what, "cpp_mode": cpp_mode, "python": m["python"], "cpp": m["cpp"],
                     "ratio_paired": _median(m["ratios"]) if m["ratios"] else None}
    return out


# ---------------------------------------------------------------------------- the run

def run(sizes=DEFAULT_SIZES, dtypes=DEFAULT_DTYPES, ops=DEFAULT_OPS, repeat: int = 5, target_ms: float = 200.0,
        rounds: int = DEFAULT_ROUNDS, rss_calls: int = 100000, rss_budget_s: float = 30.0, cpp: bool = True, torch_: bool = True,
        quiet: bool = False, command: str | None = None) -> dict:
    """Run every measurement; returns the JSON-able result (see docs/performance.md)."""
    import pyacl_hardgrad as hg
    from .._binding import BACKEND

    t_start = time.perf_counter()
    rounds = max(int(rounds), 1)
    target_ns = target_ms * 1e6
    sizes, dtypes, ops = list(sizes), list(dtypes), list(ops)
    for d in dtypes:
        numpy_dtype(d)
    for op in ops:
        if op not in DEFAULT_OPS:
            raise ValueError(f"unknown op {op!r} ({', '.join(DEFAULT_OPS)})")
    have_torch = False
    if torch_:
        try:
            import torch
            have_torch = True
        except ImportError:
            pass
    torch_default = torch.get_num_threads() if have_torch else None
    ours_threads = our_kernel_threads()
    result = {
        "schema": SCHEMA,
        "command": command,
        "machine": {"cpus": os.cpu_count(), "machine": platform.machine(), "platform": platform.platform(),
                    "python": platform.python_version(), "numpy": np.__version__,
                    "torch": torch.__version__ if have_torch else None,
                    "loadavg_start": list(os.getloadavg())},
        "backend": BACKEND.name, "library_files": list(BACKEND.library_files),
        "settings": {"sizes": sizes, "dtypes": dtypes, "ops": ops, "repeat": repeat, "target_ms": target_ms,
                     "rounds": rounds, "rss_calls": rss_calls},
        "threads": {"ours": ours_threads, "torch_matched": ours_threads, "torch_default": torch_default},
    }

    device = hg.Device(0)
    stream = device.create_stream()
    server = None
    try:
        _progress(quiet, "trivial calls ...")
        result["trivial_call"] = trivial_calls(repeat, target_ns)

        if cpp:
            _progress(quiet, "C++ loop (compile + start) ...")
            server, result["cpp"] = start_cpp_server()
        else:
            server, result["cpp"] = None, {"error": "skipped (--no-cpp)"}
        result["cpp"]["rounds"] = rounds
        if server:
            try:
                tc = server.ask("trivial", repeat, f"{target_ms / max(repeat, 1):.3f}")
                result["cpp"]["trivial_call"] = result["trivial_call"]["c"] = tc
            except CppError as exc:
                result["cpp"]["error"] = str(exc)
                server.close()
                server = None

        _progress(quiet, "warm-up ...")
        try:
            _warm_up(hg, device, stream, server, min(target_ns, 250e6))
        except CppError as exc:
            result["cpp"]["error"] = str(exc)
            server.close()
            server = None

        rows, copies = [], []
        for dname in dtypes:
            dt = numpy_dtype(dname)
            for n in sizes:
                _progress(quiet, f"{dname} n={size_label(n)} ...")
                g, x = _make_inputs(n, dt)
                nbytes = n * dt.itemsize
                dst = np.empty_like(g)
                cp = measure(lambda k: [np.copyto(dst, g) for _ in range(k)], repeat, target_ns)
                cp["gbps"] = gbps(2 * nbytes, cp["median_ns"])
                copies.append({"dtype": dname, "size": n, **cp})
                del dst
                tg, tx = hg.from_numpy(g, device), hg.from_numpy(x, device)
                outs = {op: hg.empty((n,), dname, device) for op in ops}   # one per op: results checked after
                plans = []
                try:
                    # every (op, mode) cell of this dtype and size, timed round-robin so each
                    # cell's rounds spread over the whole group's time
                    items = []
                    for op in ops:
                        fresh, fresh_sync, plan = _python_op_bodies(hg, op, tg, tx, outs[op], stream)
                        plans.append(plan)
                        plan_body, plan_sync_body, async_body = _plan_bodies(plan, stream)
                        # (mode, Python body, the C++ loop it is paired with)
                        modes = [("fresh", fresh, "fresh"), ("plan", plan_body, "plan")]
                        if n <= ASYNC_MAX_SIZE:
                            modes += [("fresh_sync", fresh_sync, "fresh"), ("plan_sync", plan_sync_body, "plan"),
                                      ("plan_async", async_body, "plan_async")]
                        items += [((op, mode), body, (op, dname, n, cpp_mode)) for mode, body, cpp_mode in modes]
                    try:
                        paired = measure_paired(items, server, rounds, target_ns)
                    except CppError as exc:
                        # the C++ side failed: report it, go on with Python alone
                        result["cpp"]["error"] = str(exc)
                        server.close()
                        server = None
                        paired = measure_paired(items, None, rounds, target_ns)
                    for plan in plans:
                        plan.close()
                    plans = []
                    for op in ops:
                        row = {"op": op, "dtype": dname, "size": n, "bytes_moved": 3 * nbytes,
                               "paired": {"rounds": rounds, "order": "alternating, cells round-robin"}}
                        for (op_, mode), m in paired.items():
                            if op_ != op:
                                continue
                            row[f"python_{mode}"] = m["python"]
                            if m["cpp"]:
                                row.setdefault(f"cpp_{mode.replace('_sync', '')}", m["cpp"])
                                row["paired"][mode] = {"ratios": m["ratios"], "python_ns": m["python_ns"],
                                                       "cpp_ns": m["cpp_ns"]}
                        ours = outs[op].numpy()
                        if have_torch:
                            row.update(_torch_bench(op, g, x, (("torch_matched", ours_threads),
                                                                ("torch_default", torch_default)),
                                                    repeat, target_ns))
                        ref = [None]

                        def np_body(k):
                            for _ in range(k):
                                ref[0] = numpy_op(op, g, x)
                        row["numpy"] = measure(np_body, repeat, target_ns)
                        row["matches_numpy"] = _check_result(op, ours, ref[0])
                        row["copy"] = cp
                        _derive(row)
                        rows.append(row)
                finally:
                    for plan in plans:
                        plan.close()
                    for t in (tg, tx, *outs.values()):
                        t.close()
                    stream.synchronize()
                del g, x
        result["results"], result["copy"] = rows, copies

        _progress(quiet, "floor: bare binding calls at 8 elements ...")
        try:
            result["floor"] = floor_study(hg, device, stream, server, rounds, target_ns)
        except CppError as exc:
            result["cpp"]["error"] = str(exc)
            result["floor"] = None
        if rss_calls > 0:
            _progress(quiet, f"RSS over {rss_calls} calls ...")
            result["rss"] = rss_over_calls(hg, device, stream, rss_calls, rss_budget_s)
        else:
            result["rss"] = None
    finally:
        if server:
            server.close()
        stream.close()
        device.close()
    result["machine"]["loadavg_end"] = list(os.getloadavg())
    result["targets"] = evaluate_targets(result)
    result["elapsed_s"] = time.perf_counter() - t_start
    return result


def _med(row, key):
    v = row.get(key)
    return v["median_ns"] if v else None


def _min(row, key):
    v = row.get(key)
    return v["min_ns"] if v else None


def _ratio(a, b):
    return a / b if a and b else None


def _derive(row: dict) -> None:
    """Add GB/s and the ratios the targets use to one result row."""
    for key in ("python_fresh", "python_plan", "python_fresh_sync", "python_plan_sync", "python_plan_async",
                "cpp_fresh", "cpp_plan", "cpp_plan_async",
                "torch_matched", "torch_default", "numpy"):
        if row.get(key):
            row[key]["gbps"] = gbps(row["bytes_moved"], row[key]["median_ns"])
    plan = _med(row, "python_plan")
    row["ratios"] = {
        "python_fresh_over_cpp_fresh": _ratio(_med(row, "python_fresh"), _med(row, "cpp_fresh")),
        "python_plan_over_cpp_plan": _ratio(plan, _med(row, "cpp_plan")),
        "speedup_vs_torch_matched": _ratio(_med(row, "torch_matched"), plan),
        "speedup_vs_torch_default": _ratio(_med(row, "torch_default"), plan),
        "speedup_vs_numpy": _ratio(_med(row, "numpy"), plan),
        "fraction_of_copy_bandwidth": _ratio(row["python_plan"].get("gbps"), row["copy"].get("gbps")),
        # best repeat against best repeat: less sensitive to other load on the machine
        "python_fresh_over_cpp_fresh_min": _ratio(_min(row, "python_fresh"), _min(row, "cpp_fresh")),
        "python_plan_over_cpp_plan_min": _ratio(_min(row, "python_plan"), _min(row, "cpp_plan")),
        "python_async_over_cpp_async": _ratio(_med(row, "python_plan_async"), _med(row, "cpp_plan_async")),
    }
    # median of the per-round ratios (C++ and Python timed back to back): what the targets use
    paired = row.get("paired") or {}
    for key, mode in (("python_fresh_over_cpp_fresh_paired", "fresh"), ("python_plan_over_cpp_plan_paired", "plan"),
                      ("python_fresh_sync_over_cpp_fresh_paired", "fresh_sync"),
                      ("python_plan_sync_over_cpp_plan_paired", "plan_sync"),
                      ("python_async_over_cpp_async_paired", "plan_async")):
        if paired.get(mode):
            row["ratios"][key] = _median(paired[mode]["ratios"])


def paired_ratio(row: dict, key: str):
    """The median of per-round ratios (``<key>_paired``); the ratio of medians for results
    saved before the paired method existed."""
    ra = row.get("ratios") or {}
    v = ra.get(f"{key}_paired")
    return v if v is not None else ra.get(key)


def evaluate_targets(result: dict) -> list[dict]:
    """The issue's targets, each with the worst measured case, met or not, and the margin."""
    rows = result.get("results", [])
    out = []

    def add(name, want, cmp, cells):
        cells = [(v, where) for v, where in cells if v is not None]
        if not cells:
            out.append({"target": name, "required": want, "measured": None, "met": None, "where": None,
                        "margin": None})
            return
        worst = min(cells) if cmp == ">=" else max(cells)
        v, where = worst
        met = v >= want if cmp == ">=" else v <= want
        out.append({"target": name, "required": f"{cmp} {want}", "measured": v, "met": met, "where": where,
                    "margin": v / want})

    big = [r for r in rows if r["size"] >= 1 << 20]
    add("kernel throughput vs PyTorch CPU (matched threads), fp32/fp16, n >= 1M", 1.0, ">=",
        [(r["ratios"]["speedup_vs_torch_matched"], f"{r['op']} {r['dtype']} {size_label(r['size'])}")
         for r in big if r["dtype"] != "bfloat16"])
    add("kernel throughput vs PyTorch CPU (matched threads), bf16, n >= 1M", 1.5, ">=",
        [(r["ratios"]["speedup_vs_torch_matched"], f"{r['op']} {r['dtype']} {size_label(r['size'])}")
         for r in big if r["dtype"] == "bfloat16"])
    add("bandwidth (3 arrays) vs copy bandwidth, n >= 1M", 0.8, ">=",
        [(r["ratios"]["fraction_of_copy_bandwidth"], f"{r['op']} {r['dtype']} {size_label(r['size'])}")
         for r in big])
    small = [r for r in rows if r["size"] == 8]
    # each synchronised form a user writes: the call with sync=True, and the call + synchronize()
    add("Python / C++ at 8 elements, fresh plan per call, sync=True", 1.5, "<=",
        [(paired_ratio(r, "python_fresh_sync_over_cpp_fresh"), f"{r['op']} {r['dtype']}") for r in small])
    add("Python / C++ at 8 elements, fresh plan per call, + synchronize()", 1.5, "<=",
        [(paired_ratio(r, "python_fresh_over_cpp_fresh"), f"{r['op']} {r['dtype']}") for r in small])
    add("Python / C++ at 8 elements, repeatable plan, run(sync=True)", 1.2, "<=",
        [(paired_ratio(r, "python_plan_sync_over_cpp_plan"), f"{r['op']} {r['dtype']}") for r in small])
    add("Python / C++ at 8 elements, repeatable plan, run() + synchronize()", 1.2, "<=",
        [(paired_ratio(r, "python_plan_over_cpp_plan"), f"{r['op']} {r['dtype']}") for r in small])
    tc = result.get("trivial_call") or {}
    if tc.get("binding") and tc.get("ctypes"):
        add("aclrtGetDevice: ctypes cost / binding cost", 3.0, ">=",
            [(tc["ctypes"]["median_ns"] / tc["binding"]["median_ns"], "aclrtGetDevice")])
    rss = result.get("rss")
    if rss and rss.get("change_pct") is not None:
        add(f"RSS change over {rss['calls']} calls, % (|change| <= 5)", 5.0, "<=",
            [(abs(rss["change_pct"]), f"{rss.get('op', FLOOR_OP)} 8 x float32")])
    return out


# ---------------------------------------------------------------------------- output

def _us(ns):
    if ns is None:
        return "-"
    us = ns / 1000.0
    return f"{us:.3g}" if us < 1000 else f"{us:,.0f}"


def _pct(v):
    return "-" if v is None else f"{100 * v:.0f}%"


def _x(v, digits=2):
    return "-" if v is None else f"{v:.{digits}f}"


COLUMNS = ("op", "dtype", "n", "py fresh", "py plan", "C++ fresh", "C++ plan", "py/C++ fresh",
           "py/C++ plan", "py fresh s", "py plan s", "py/C++ fresh s", "py/C++ plan s", "py async", "C++ async", "torch mt", "torch dt", "numpy", "copy", "GB/s ours",
           "GB/s copy", "of copy", "x torch mt", "x torch dt", "x numpy")


def table_rows(result: dict) -> list[tuple[str, ...]]:
    out = []
    for r in result["results"]:
        ra = r["ratios"]
        out.append((r["op"], r["dtype"], size_label(r["size"]), _us(_med(r, "python_fresh")),
                    _us(_med(r, "python_plan")), _us(_med(r, "cpp_fresh")), _us(_med(r, "cpp_plan")),
                    _x(paired_ratio(r, "python_fresh_over_cpp_fresh")), _x(paired_ratio(r, "python_plan_over_cpp_plan")),
                    _us(_med(r, "python_fresh_sync")), _us(_med(r, "python_plan_sync")),
                    _x(ra.get("python_fresh_sync_over_cpp_fresh_paired")),
                    _x(ra.get("python_plan_sync_over_cpp_plan_paired")),
                    _us(_med(r, "python_plan_async")), _us(_med(r, "cpp_plan_async")),
                    _us(_med(r, "torch_matched")), _us(_med(r, "torch_default")), _us(_med(r, "numpy")),
                    _us(r["copy"]["median_ns"]), _x(r["python_plan"].get("gbps")), _x(r["copy"].get("gbps")),
                    _pct(ra["fraction_of_copy_bandwidth"]),
                    _x(ra["speedup_vs_torch_matched"]), _x(ra["speedup_vs_torch_default"]),
                    _x(ra["speedup_vs_numpy"])))
    return out


def format_report(result: dict, markdown: bool = False) -> str:
    """The table (times are medians in microseconds per call) plus the summary lines."""
    rows = table_rows(result)
    lines = []
    if markdown:
        lines.append("| " + " | ".join(COLUMNS) + " |")
        lines.append("|" + "|".join("---" if i < 3 else "---:" for i in range(len(COLUMNS))) + "|")
        lines += ["| " + " | ".join(r) + " |" for r in rows]
    else:
        widths = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c) for i, c in enumerate(COLUMNS)]
        fmt = lambda cells: "  ".join(c.ljust(w) if i < 3 else c.rjust(w)  # noqa: E731
                                      for i, (c, w) in enumerate(zip(cells, widths)))
        lines.append(fmt(COLUMNS))
        lines += [fmt(r) for r in rows]
    th = result.get("threads", {})
    lines.append("")
    lines.append(f"times: median us per call (synchronised); torch mt = {th.get('torch_matched')} threads "
                 f"(matched: our kernels use {th.get('ours')} for n >= 64K), torch dt = torch's default "
                 f"{th.get('torch_default')}; "
                 "GB/s counts 3 arrays for the ops, 2 for the copy; x = speed-up of our repeatable plan; "
                 "py fresh/plan = the call then stream.synchronize(); py ... s = the same call with sync=True "
                 "(n <= 64K); async = repeatable plan without a wait per call (n <= 64K)")
    rounds = result.get("settings", {}).get("rounds")
    if rounds:
        lines.append(f"py and C++ columns: medians over {rounds} rounds, each timing the C++ cell and the Python cell "
                     "back to back (order alternating); py/C++ = median of the per-round ratios")
    tc = result.get("trivial_call", {})
    if tc:
        c = tc.get("c")
        lines.append(f"aclrtGetDevice per call: binding {_ns(tc['binding'])}, ctypes {_ns(tc['ctypes'])}, "
                     f"C {_ns(c) if c else '-'}, empty Python loop {_ns(tc['python_loop'])} "
                     f"(ctypes/binding = {tc['ctypes']['median_ns'] / tc['binding']['median_ns']:.2f}x)")
    fl = result.get("floor")
    if fl:
        lines.append(f"floor at 8 elements, float32 {FLOOR_OP}, bare binding calls without the package's code "
                     "(py/C++ paired):")
        for name, _, _ in FLOOR_ITEMS:
            f = fl[name]
            lines.append(f"  {name}: {_us(f['python']['median_ns'])} us against C++ {f['cpp_mode']} "
                         f"{_us(f['cpp']['median_ns']) if f['cpp'] else '-'} us = {_x(f['ratio_paired'])}x  "
                         f"[{f['calls']}]")
    rss = result.get("rss")
    if rss:
        reduced = f" (reduced from {rss['requested_calls']} to fit --rss-budget-s)" if rss["reduced"] else ""
        lines.append(f"RSS over {rss['calls']} calls{reduced}: "
                     f"{rss['rss_before_kib']} KiB -> {rss['rss_after_kib']} KiB ({rss['change_pct']:+.2f}%), "
                     f"ru_maxrss {rss['maxrss_before_kib']} -> {rss['maxrss_after_kib']} KiB, {rss['seconds']:.1f} s")
    if result.get("cpp", {}).get("error"):
        lines.append(f"C++ loop: {result['cpp']['error']}")
    bad = [f"{r['op']} {r['dtype']} {size_label(r['size'])}" for r in result["results"] if not r.get("matches_numpy")]
    if bad:
        lines.append(f"WARNING: results differ from numpy for {', '.join(bad)}")
    lines.append("")
    lines.append("targets:")
    for t in result.get("targets", []):
        if t["met"] is None:
            lines.append(f"  [n/a ] {t['target']}: not measured")
            continue
        lines.append(f"  [{'met ' if t['met'] else 'MISS'}] {t['target']}: worst {t['measured']:.3g} "
                     f"({t['where']}), required {t['required']}")
    m = result.get("machine", {})
    lines.append(f"machine: {m.get('cpus')} CPUs {m.get('machine')}, load average "
                 f"{_load(m.get('loadavg_start'))} -> {_load(m.get('loadavg_end'))}; "
                 f"{result.get('elapsed_s', 0):.0f} s")
    return "\n".join(lines)


def _ns(stats):
    return f"{stats['median_ns']:.1f} ns"


def _load(v):
    return "-" if not v else "/".join(f"{x:.2f}" for x in v)
