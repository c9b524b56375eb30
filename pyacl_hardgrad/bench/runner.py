"""The measurements behind ``python -m pyacl_hardgrad bench``.

Every number is a per-call time from ``time.perf_counter_ns`` around a tight loop: one
warm-up call, a calibration that picks the loop count so one repeat lasts about
``target_ms / repeat``, then ``repeat`` timed repeats; we keep the median and the min.
All operator timings include the stream synchronisation (results are ready when counted).
Python and C++ operator loops are instead timed in alternating rounds against a persistent
C++ child (``measure_paired``), so both sides of a ratio see the same moments of the machine.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Protocol, TypedDict, TypeVar, cast

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from types import ModuleType

    from ..device import Device
    from ..ops import OpSpec, Plan
    from ..stream import Stream

# A host array of any dtype (the inputs, outputs and references of the operators).
Array = npt.NDArray[Any]
# A timed loop: ``body(k)`` runs k iterations (what it returns is not used).
Body = Callable[[int], object]
# A cell of the C++ loop (``cpp_loop --serve``): (bench op name, dtype, size, mode).
Cell = tuple[str, str, int, str]
K = TypeVar("K", bound=Hashable)


class BenchModule(Protocol):
    """What the bench reads of an operator folder's bench.py (a module loaded from its file)."""

    NAME: str
    FUNCTION: str
    SCALARS: Sequence[float]
    EXACT: bool

    def numpy_op(self, g: Array, x: Array) -> Array: ...

    # torch: the torch module; tg, tx, to: its tensors over the inputs and the output
    def torch_body(self, torch: Any, tg: Any, tx: Any, to: Any) -> Body: ...


class _StatsCore(TypedDict):
    median_ns: float
    min_ns: float
    iters: int
    repeats: int


class Stats(_StatsCore, total=False):
    """Per-call times of one measurement (ns): median and min over its repeats or rounds, the
    loop count of a repeat, the repeats; a main-table cell adds its GB/s, a PyTorch cell its threads."""
    gbps: Optional[float]
    threads: int


class SideTimes(TypedDict):
    """One side of a timed item (timed_rounds): per-round per-call times and the batch's loop count."""
    ns: list[float]
    iters: int


class PairedCell(TypedDict):
    """A Python body and its C++ cell timed in rounds (measure_paired)."""
    python: Stats
    cpp: Optional[Stats]
    ratios: Optional[list[float]]
    python_ns: list[float]
    cpp_ns: Optional[list[float]]


class CppInfo(TypedDict, total=False):
    """The result's ``cpp`` object: the C++ loop's binary and mode, or why it is missing."""
    binary: str
    mode: str
    error: str
    rounds: int
    trivial_call: dict[str, Any]        # the child's JSON answer


class _TrivialCore(TypedDict):
    binding: Stats
    ctypes: Stats
    python_loop: Stats


class TrivialCalls(_TrivialCore, total=False):
    """Per-call cost of aclrtGetDevice through the binding, ctypes and (``c``, the C++ child's
    JSON answer) C, and of an empty Python loop."""
    c: dict[str, Any]


class FloorCell(TypedDict):
    """One loop of the floor study: what it calls, its C++ pair, both sides' stats, the median
    of the per-round ratios."""
    calls: str
    cpp_mode: str
    python: Stats
    cpp: Optional[Stats]
    ratio_paired: Optional[float]


class Target(TypedDict):
    """One of the issue's targets evaluated on a result (see evaluate_targets)."""
    target: str
    required: str
    measured: Optional[float]
    met: Optional[bool]
    where: Optional[str]
    margin: Optional[float]
    headroom: Optional[float]
    why: Optional[str]
    note: Optional[str]


DEFAULT_SIZES = (8, 4096, 1 << 20, 1 << 24)
DEFAULT_DTYPES = ("float32", "float16", "bfloat16")


def _load_bench_modules() -> dict[str, BenchModule]:
    """Every registered operator folder's bench.py, by its bench name, in registry order: NAME,
    FUNCTION (the aclnn operator), SCALARS (the values of its scalar parameters), EXACT,
    numpy_op(g, x) and torch_body(torch, tg, tx, to).  Everything else is generic."""
    import importlib.util
    root = Path(__file__).resolve().parent.parent / "_embedded" / "opapi" / "ops"
    out: dict[str, BenchModule] = {}
    for line in (root / "operators.txt").read_text().splitlines():
        folder = line.split("#", 1)[0].strip()
        path = root / folder / "bench.py"
        if folder and path.is_file():
            spec = importlib.util.spec_from_file_location(f"pyacl_hardgrad_bench_{folder}", path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {path} as a module")
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            out[mod.NAME] = cast(BenchModule, mod)
    return out


BENCH = _load_bench_modules()
# What the bench measures: its short name -> (the aclnn operator, the values of its scalar
# parameters).
BENCH_OPS = {name: (m.FUNCTION, tuple(m.SCALARS)) for name, m in BENCH.items()}
DEFAULT_OPS = tuple(BENCH)
# The operator of the warm-up, the RSS check and the floor study: the first one registered.
FLOOR_OP = DEFAULT_OPS[0] if DEFAULT_OPS else None


def _floor_op() -> str:
    """FLOOR_OP, or a RuntimeError when no registered operator folder has a bench.py."""
    if FLOOR_OP is None:
        raise RuntimeError("no registered operator folder has a bench.py: nothing to benchmark")
    return FLOOR_OP


def op_spec(op: str) -> OpSpec:
    """The package's description of a bench operator (pyacl_hardgrad.ops.OpSpec)."""
    from .. import ops
    return ops.operators()[BENCH_OPS[op][0]]


def cpp_token(op: str) -> str:
    """The operator as cpp_loop takes it: <aclnn name>/<kinds>/<scalar values>."""
    spec = op_spec(op)
    kinds = "".join("o" if p.role == "out" else "s" if p.kind == "scalar" else "t" for p in spec.params)
    return f"{spec.name}/{kinds}/{':'.join(repr(float(v)) for v in BENCH_OPS[op][1])}"
SCHEMA = "pyacl_hardgrad-bench/2"
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


def numpy_dtype(name: str) -> np.dtype[Any]:
    if name == "bfloat16":
        import ml_dtypes
        bf16: np.dtype[Any] = np.dtype(ml_dtypes.bfloat16)
        return bf16
    if name in ("float32", "float16"):
        return np.dtype(name)
    raise ValueError(f"unsupported dtype {name!r} (float32, float16, bfloat16)")


def measure(body: Body, repeat: int, target_ns: float) -> Stats:
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
    times: list[float] = []
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


def proc_status_kib(path: str = "/proc/self/status") -> dict[str, int]:
    """The ``kB`` lines of a /proc/<pid>/status file (VmHWM: peak resident set, VmRSS: now, ...)
    as {name: KiB}; {} where the file does not exist (not Linux)."""
    out: dict[str, int] = {}
    try:
        with open(path) as f:
            for line in f:
                name, _, rest = line.partition(":")
                parts = rest.split()
                if len(parts) == 2 and parts[1] == "kB" and parts[0].isdigit():
                    out[name] = int(parts[0])
    except OSError:
        pass
    return out


def mem_available_bytes(path: str = "/proc/meminfo") -> int | None:
    """MemAvailable of /proc/meminfo in bytes (None where there is none)."""
    v = proc_status_kib(path).get("MemAvailable")
    return None if v is None else v * 1024


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


def build_cpp_loop(cache_dir: str | os.PathLike[str] | None = None) -> Path:
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

    def __init__(self, exe: Path, timeout: float = 120.0, cpus: Collection[int] | None = None) -> None:
        self.exe, self.timeout = exe, timeout
        self.proc = subprocess.Popen([str(exe), "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1,
                                     preexec_fn=pin_to(cpus))

    def ask(self, *words: object) -> dict[str, Any]:
        """Send one command; the answer as a dict (CppError on an error answer or a dead child).
        ``cell`` commands name the operator by its bench name; the child gets its token."""
        if words and words[0] == "cell" and len(words) > 1 and isinstance(words[1], str) and words[1] in BENCH_OPS:
            words = (words[0], cpp_token(words[1]), *words[2:])
        line = exchange(self.proc, " ".join(map(str, words)) + "\n", CppError, f"{self.exe} --serve")
        if not line:
            raise CppError(f"{self.exe} --serve exited (status {self.proc.poll()})")
        try:
            data: dict[str, Any] = json.loads(line)
        except ValueError as exc:
            raise CppError(f"{self.exe} --serve: bad answer {line!r}") from exc
        if "error" in data:
            raise CppError(f"{self.exe} --serve: {' '.join(map(str, words))}: {data['error']}")
        return data

    def close(self) -> None:
        end_child(self.proc, "quit\n", 10)


def exchange(proc: subprocess.Popen[str], text: str | None, error: Callable[[str], Exception], who: str) -> str:
    """Send one line (unless None) to a line-protocol child and read its answer line ('' when
    it has exited); a broken pipe raises ``error`` naming ``who``."""
    if proc.stdin is None or proc.stdout is None:
        raise error(f"{who}: the child was started without pipes to it")
    try:
        if text is not None:
            proc.stdin.write(text)
            proc.stdin.flush()
        return proc.stdout.readline()
    except (OSError, ValueError) as exc:
        raise error(f"{who}: {exc}") from exc


def end_child(proc: subprocess.Popen[str], quit_line: str, timeout: float) -> None:
    """Ask a line-protocol child to quit, wait for it (kill it after ``timeout`` s), close its pipes."""
    try:
        if proc.stdin is not None:
            proc.stdin.write(quit_line)
            proc.stdin.close()
    except (OSError, ValueError):
        pass
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


def pin_to(cpus: Collection[int] | None) -> Callable[[], None] | None:
    """A ``preexec_fn`` that restricts the child (before it starts its runtime and threads) to
    the CPUs ``cpus``; None for no restriction."""
    if not cpus:
        return None
    mask = set(cpus)
    return lambda: os.sched_setaffinity(0, mask)


def start_cpp_server(cpus: Collection[int] | None = None) -> tuple[CppServer | None, CppInfo]:
    """(server, the JSON's ``cpp`` object); server is None and ``cpp`` has ``error`` on failure.
    ``cpus``: the CPUs the child may run on (default: those of this process)."""
    try:
        exe = build_cpp_loop()
        return CppServer(exe, cpus=cpus), {"binary": str(exe), "mode": "paired"}
    except (RuntimeError, OSError) as exc:
        return None, {"error": str(exc)}


def _median(v: Iterable[float]) -> float:
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


class Side(Protocol):
    """One side of a timed item (timed_rounds): LocalSide, CppSide, sections.WorkerSide."""

    label: str

    def calibrate(self, ns: float) -> int: ...

    def batch(self, k: int, warm: bool) -> float: ...


def _calibrate(body: Body, target_ns: float) -> int:
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


class LocalSide:
    """One side of a timed item: a loop ``body(k)`` in this process."""

    def __init__(self, label: str, body: Body) -> None:
        self.label, self.body = label, body

    def calibrate(self, ns: float) -> int:
        return _calibrate(self.body, ns)

    def batch(self, k: int, warm: bool) -> float:
        if warm:
            self.body(1)
        t0 = time.perf_counter_ns()
        self.body(k)
        return (time.perf_counter_ns() - t0) / k


class CppSide:
    """One side of a timed item: a cell of the C++ child (it warms up and times by itself)."""

    def __init__(self, label: str, server: "CppServer", cell: Cell) -> None:
        self.label, self.server, self.cell = label, server, cell

    def calibrate(self, ns: float) -> int:
        iters: int = self.server.ask("cell", *self.cell, 0, f"{ns / 1e6:.4f}")["iters"]
        return iters

    def batch(self, k: int, warm: bool) -> float:
        ns: float = self.server.ask("cell", *self.cell, k, 0)["ns"]
        return ns


def timed_rounds(items: Sequence[tuple[K, Sequence[Side]]], rounds: int,
                 target_ns: float) -> dict[K, dict[str, SideTimes]]:
    """Time every side of every item in rounds: the method of every comparison of the bench.

    ``items``: [(name, [side, ...])], a side being anything with ``label``, ``calibrate(ns)``
    (the loop count of a batch of about ns) and ``batch(k, warm)`` (ns per call of one batch,
    after one untimed call if warm) -- a loop in this process, a cell of the C++ child, a body
    of a worker process.  Every side is calibrated to ``target_ns / rounds`` per batch; then each
    round goes through all items and times one batch of each side back to back, the order of the
    sides rotating by one per round (two sides: alternating), so slow moments of the machine land
    on all sides of an item and each item's rounds spread over the time of all items.  With three
    or more sides every second cycle of rotations runs reversed, so over two cycles each side
    runs right after each other side equally often (what ran just before a batch, e.g. another
    process's threads and data, changes its time: plain rotation puts a side after the same
    neighbour in most rounds).  A batch of
    more than one call starts with one untimed call.  Returns {name: {label: {'ns': per-round
    per-call times, 'iters': k}}}."""
    rounds = max(int(rounds), 1)
    per_batch = target_ns / rounds
    cal = {(name, side.label): side.calibrate(per_batch) for name, sides in items for side in sides}
    out: dict[K, dict[str, SideTimes]] = {
        name: {side.label: {"ns": [], "iters": cal[name, side.label]} for side in sides} for name, sides in items}
    for r in range(rounds):
        for name, sides in items:
            m = len(sides)
            order = [*sides[r % m:], *sides[:r % m]]
            if m > 2 and (r // m) % 2:
                order.reverse()     # then each side comes right after each other one as often
            for side in order:
                k = cal[name, side.label]
                out[name][side.label]["ns"].append(side.batch(k, k > 1))
    return out


def round_stats(v: list[float], k: int) -> Stats:
    return {"median_ns": _median(v), "min_ns": min(v), "iters": k, "repeats": len(v)}


def per_round(a: Sequence[float], b: Sequence[float]) -> list[float]:
    """Per-round ratios a/b of two sides' times."""
    return [x / max(y, 1e-3) for x, y in zip(a, b)]


def measure_paired(items: Sequence[tuple[K, Body, Cell]], server: CppServer | None, rounds: int,
                   target_ns: float) -> dict[K, PairedCell]:
    """Python bodies and their C++ cells timed in rounds (``timed_rounds``, C++ first in even
    rounds, Python first in odd ones).

    ``items``: [(name, py_body, cell)], cell = (op, dtype, size, mode) for ``cpp_loop --serve``.
    Returns {name: {'python': stats, 'cpp': stats or None, 'ratios': per-round Python/C++,
    'python_ns', 'cpp_ns': per-round per-call times}}; stats are median/min over the rounds."""
    res = timed_rounds([(name, ([CppSide("cpp", server, cell)] if server is not None else [])
                         + [LocalSide("python", body)]) for name, body, cell in items], rounds, target_ns)
    out: dict[K, PairedCell] = {}
    for name, _, _ in items:
        p, c = res[name]["python"], res[name].get("cpp")
        out[name] = {"python": round_stats(p["ns"], p["iters"]), "cpp": round_stats(c["ns"], c["iters"]) if c else None,
                     "ratios": per_round(p["ns"], c["ns"]) if c else None,
                     "python_ns": p["ns"], "cpp_ns": c["ns"] if c else None}
    return out


def _plan_bodies(plan: Plan, stream: Stream) -> tuple[Body, Body, Body]:
    """(run + synchronize(), run(sync=True), async) loops over a repeatable plan."""
    run_plan, sync = plan.run, stream.synchronize

    def plan_body(k: int) -> None:
        for _ in range(k):
            run_plan(None, stream)
            sync()

    def plan_sync_body(k: int) -> None:
        for _ in range(k):
            run_plan(None, stream, sync=True)

    def async_body(k: int) -> None:
        for _ in range(k):
            run_plan(None, stream)
        sync()
    return plan_body, plan_sync_body, async_body


# ---------------------------------------------------------------------------- the Python side

def _make_inputs(n: int, dt: np.dtype[Any], seed: int = 0) -> tuple[Array, Array]:
    """gradOutput and self: uniform in [-4, 4], so both operators take both branches."""
    rng = np.random.default_rng(seed)
    g = rng.uniform(-4.0, 4.0, n).astype(np.float32).astype(dt)
    x = rng.uniform(-4.0, 4.0, n).astype(np.float32).astype(dt)
    return g, x


def numpy_op(op: str, g: Array, x: Array) -> Array:
    """The operator's math in numpy (its folder's bench.py)."""
    return BENCH[op].numpy_op(g, x)


def trivial_calls(repeat: int, target_ns: float) -> TrivialCalls:
    """Per-call cost of aclrtGetDevice through our binding, through ctypes, and of an empty loop."""
    import ctypes

    from .._binding import BACKEND, ffi, lib
    buf = ffi.new("int32_t *")
    f = lib.aclrtGetDevice
    if f(buf) != 0:
        raise RuntimeError("aclrtGetDevice failed: no device is current on this thread")

    def cffi_body(k: int) -> None:
        for _ in range(k):
            f(buf)

    cl = ctypes.CDLL(BACKEND.library_files[0])
    cf = cl.aclrtGetDevice
    cf.argtypes = [ctypes.POINTER(ctypes.c_int32)]
    cf.restype = ctypes.c_int
    cval = ctypes.c_int32(-1)
    cptr = ctypes.pointer(cval)

    def ctypes_body(k: int) -> None:
        for _ in range(k):
            cf(cptr)

    def empty_body(k: int) -> None:
        for _ in range(k):
            pass

    out: TrivialCalls = {"binding": measure(cffi_body, repeat, target_ns),
                         "ctypes": measure(ctypes_body, repeat, target_ns),
                         "python_loop": measure(empty_body, repeat, target_ns)}
    if cval.value != buf[0]:
        raise RuntimeError("ctypes and the binding disagree on the current device")
    return out


def call_args(op: str, tensors: Iterable[object]) -> tuple[object, ...]:
    """The operator's positional inputs: ``tensors`` (gradOutput, self, ...) in parameter
    order, its bench.py SCALARS for the scalar parameters."""
    spec = op_spec(op)
    scalars, tens = iter(BENCH_OPS[op][1]), iter(tensors)
    return tuple(next(tens) if p.kind in ("tensor", "out") else next(scalars)
                 for p in spec.params if p.role != "out")


def tensor_count(op: str) -> int:
    """Tensors one call reads or writes (the bytes a call moves: this times n times itemsize)."""
    return sum(p.kind in ("tensor", "out") for p in op_spec(op).params)


def _python_op_bodies(hg: ModuleType, op: str, g: object, x: object, o: object,
                      stream: Stream) -> tuple[Body, Body, Plan]:
    """(one-call + synchronize() body, one-call with sync=True body, repeatable plan);
    g, x, o: the Tensors of gradOutput, self and the output."""
    sync = stream.synchronize
    spec = op_spec(op)
    fn = spec.function
    args = call_args(op, (g, x))
    out_name = spec.outputs[0].name

    def fresh(k: int) -> None:
        kw = {out_name: o, "stream": stream}
        for _ in range(k):
            fn(*args, **kw)
            sync()

    def fresh_sync(k: int) -> None:
        kw: dict[str, object] = {out_name: o, "stream": stream, "sync": True}
        for _ in range(k):
            fn(*args, **kw)
    plan = spec.plan(*args, o, repeatable=True)
    return fresh, fresh_sync, plan


def _warm_up(hg: ModuleType, device: Device, stream: Stream, server: CppServer | None, ns: float) -> None:
    """Run the 8-element one-call FLOOR_OP untimed for about ``ns`` on each side, so the
    first measured cell does not pay for the processes settling (first-touch, scheduler)."""
    floor_op = _floor_op()
    g, x = _make_inputs(8, np.dtype(np.float32))
    tg, tx = hg.from_numpy(g, device), hg.from_numpy(x, device)
    to = hg.empty((8,), "float32", device)
    try:
        fresh, _, plan = _python_op_bodies(hg, floor_op, tg, tx, to, stream)
        plan.close()
        fresh(max(1, _calibrate(fresh, ns / 8)) * 8)
        if server:
            cell = (floor_op, "float32", 8, "fresh")
            k = server.ask("cell", *cell, 0, f"{ns / 8e6:.4f}")["iters"]
            server.ask("cell", *cell, k * 8, 0)
    finally:
        for t in (tg, tx, to):
            t.close()
        stream.synchronize()


def _torch_bench(op: str, g: Array, x: Array, threads_list: Iterable[tuple[str, int]], repeat: int,
                 target_ns: float) -> dict[str, Stats]:
    import torch
    from_np = torch.from_numpy

    def tt(a: Array) -> torch.Tensor:
        if a.dtype == numpy_dtype("bfloat16"):
            return from_np(a.view(np.int16)).view(torch.bfloat16)
        return from_np(a)
    tg, tx = tt(g), tt(x)
    to = torch.empty_like(tg)
    body = BENCH[op].torch_body(torch, tg, tx, to)
    saved = torch.get_num_threads()
    out: dict[str, Stats] = {}
    try:
        for label, n in threads_list:
            torch.set_num_threads(n)
            out[label] = measure(body, repeat, target_ns)
            out[label]["threads"] = n
    finally:
        torch.set_num_threads(saved)
    return out


def _copy_body(dst: Array, src: Array) -> Body:
    """The loop of a same-size memory copy (numpy's)."""
    def copy_body(k: int) -> None:
        for _ in range(k):
            np.copyto(dst, src)
    return copy_body


def _numpy_body(op: str, g: Array, x: Array, ref: list[Array | None]) -> Body:
    """The loop of the operator's math in numpy; the last result goes to ``ref[0]``."""
    def np_body(k: int) -> None:
        for _ in range(k):
            ref[0] = numpy_op(op, g, x)
    return np_body


def _check_result(op: str, ours: Array, ref: Array) -> bool:
    if BENCH[op].EXACT:
        return bool(np.array_equal(ours.view(np.uint8), ref.view(np.uint8)))
    a, b = ours.astype(np.float32), ref.astype(np.float32)
    return bool(np.allclose(a, b, rtol=1e-2, atol=1e-6))


# ---------------------------------------------------------------------------- the floor

FLOOR_ITEMS = (
    # (name, what it calls per iteration, the C++ loop it is paired with)
    ("plan_two_calls", "lib.aclnnXxx(...) + lib.aclrtSynchronizeStream(h)", "plan"),
    ("plan_one_call", "lib.hgb_plan_run(plan, stream, HGB_WAIT): phase 2 + wait in one call", "plan"),
    ("fresh_three_calls", "lib.aclnnXxxGetWorkspaceSize + aclnnXxx + aclrtSynchronizeStream", "fresh"),
    ("fresh_one_call", "lib.hgb_call_aclnnXxx(..., HGB_WAIT): hold, phase 1, phase 2, hand-over "
                       "+ wait in one call", "fresh"),
)


def floor_study(hg: ModuleType, device: Device, stream: Stream, server: CppServer | None, rounds: int,
                target_ns: float) -> dict[str, FloorCell]:
    """The 8-element float32 loops of FLOOR_OP (aclnnXxx) written with bare binding calls, no
    package code, timed in rounds with the C++ loops: what CPython + cffi alone add to C++."""
    from .._binding import ffi, lib
    g, x = _make_inputs(8, np.dtype(np.float32))
    tg, tx = hg.from_numpy(g, device), hg.from_numpy(x, device)
    to = hg.empty((8,), "float32", device)
    floor_op = _floor_op()
    spec = op_spec(floor_op)
    scalars = [hg.Scalar(v) for v in BENCH_OPS[floor_op][1]]
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

        def plan_two_calls(k: int) -> None:
            for _ in range(k):
                p2(null, 0, ex, sh)
                sync(sh)

        def plan_one_call(k: int) -> None:
            for _ in range(k):
                run1(po, so, wait)

        def fresh_three_calls(k: int) -> None:
            for _ in range(k):
                p1(*handles, size, exe)
                p2(null, 0, exe[0], sh)
                sync(sh)

        def fresh_one_call(k: int) -> None:
            for _ in range(k):
                fused(call, so, wait, *objs)

        bodies: dict[str, Body] = {"plan_two_calls": plan_two_calls, "plan_one_call": plan_one_call,
                                   "fresh_three_calls": fresh_three_calls, "fresh_one_call": fresh_one_call}
        # every body must really run the operator before it is timed
        for name, body in bodies.items():
            to.copy_from(np.zeros(8, np.float32))
            body(1)
            if not _check_result(floor_op, to.numpy(), numpy_op(floor_op, g, x)):
                raise RuntimeError(f"floor loop {name} did not compute the operator")
        items = [(name, bodies[name], (floor_op, "float32", 8, cpp_mode)) for name, _, cpp_mode in FLOOR_ITEMS]
        paired = measure_paired(items, server, rounds, target_ns)
    finally:
        plan.close()
        for t in (tg, tx, to, *scalars):
            t.close()
        stream.synchronize()
    out: dict[str, FloorCell] = {}
    for name, what, cpp_mode in FLOOR_ITEMS:
        m = paired[name]
        out[name] = {"calls": what, "cpp_mode": cpp_mode, "python": m["python"], "cpp": m["cpp"],
                     "ratio_paired": _median(m["ratios"]) if m["ratios"] else None}
    return out


# ---------------------------------------------------------------------------- the run

def run(sizes: Iterable[int] = DEFAULT_SIZES, dtypes: Iterable[str] = DEFAULT_DTYPES,
        ops: Iterable[str] = DEFAULT_OPS, repeat: int = 5, target_ms: float = 200.0,
        rounds: int = DEFAULT_ROUNDS, rss_calls: int = 100000, rss_budget_s: float = 30.0, cpp: bool = True,
        torch_: bool = True, quiet: bool = False, command: str | None = None, sweep: Iterable[int] | None = None,
        paths: Iterable[str] | None = None, sweep_ms: float = 100.0,
        placement: bool = True, forms: bool = True, first_calls: int = 5000, first_procs: int = 3,
        sweep_settle_ms: float | None = None) -> dict[str, Any]:
    """Run every measurement; returns the JSON-able result (see docs/performance.md).

    ``sweep``: the sweep's sizes (default sections.DEFAULT_SWEEP; [] for none), timed against
    PyTorch and a copy for every op and dtype, with the kernel ``paths`` (default: every one
    this CPU has; [] for none) each forced in a worker of its own against the automatic choice,
    ``sweep_ms`` per side and cell, every sweep batch answered once its worker's threads slept
    (``sweep_settle_ms`` at most, default sections.DEFAULT_SETTLE_MS; 0: no pause);
    ``placement``: one CPU against two at 8 elements; ``forms``: the call forms at 8 elements;
    ``first_calls`` calls of a fresh process, ``first_procs``
    processes per form (0: none); ``rss_calls`` calls of each form for the RSS check (0: none),
    all forms together within ``rss_budget_s``."""
    import pyacl_hardgrad as hg
    from .._binding import BACKEND

    from . import sections as S
    sweep = S.parse_sweep(S.DEFAULT_SWEEP) if sweep is None else list(sweep)
    sweep_settle_ms = S.DEFAULT_SETTLE_MS if sweep_settle_ms is None else float(sweep_settle_ms)
    paths = list(S.KERNEL_PATHS) if paths is None else list(paths)
    for p in paths:
        if p not in S.KERNEL_PATHS:
            raise ValueError(f"unknown kernel path {p!r} ({', '.join(S.KERNEL_PATHS)})")

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
    result: dict[str, Any] = {
        "schema": SCHEMA,
        "command": command,
        "machine": {"cpus": os.cpu_count(), "machine": platform.machine(), "platform": platform.platform(),
                    "python": platform.python_version(), "numpy": np.__version__,
                    "torch": torch.__version__ if have_torch else None,
                    "loadavg_start": list(os.getloadavg())},
        "backend": BACKEND.name, "library_files": list(BACKEND.library_files),
        "settings": {"sizes": sizes, "dtypes": dtypes, "ops": ops, "repeat": repeat, "target_ms": target_ms,
                     "rounds": rounds, "rss_calls": rss_calls, "rss_budget_s": rss_budget_s, "sweep": sweep,
                     "paths": paths, "sweep_ms": sweep_ms, "sweep_settle_ms": sweep_settle_ms, "placement": placement,
                     "forms": forms, "first_calls": first_calls, "first_procs": first_procs, "torch": have_torch},
        "threads": {"ours": ours_threads, "torch_matched": ours_threads, "torch_default": torch_default},
    }

    device = hg.Device(0)
    stream = device.create_stream()
    server: CppServer | None = None
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
            if server is not None:
                server.close()
            server = None

        rows: list[dict[str, Any]] = []
        copies: list[dict[str, Any]] = []
        for dname in dtypes:
            dt = numpy_dtype(dname)
            for n in sizes:
                _progress(quiet, f"{dname} n={size_label(n)} ...")
                g, x = _make_inputs(n, dt)
                nbytes = n * dt.itemsize
                dst = np.empty_like(g)
                cp = measure(_copy_body(dst, g), repeat, target_ns)
                cp["gbps"] = gbps(2 * nbytes, cp["median_ns"])
                copies.append({"dtype": dname, "size": n, **cp})
                del dst
                tg, tx = hg.from_numpy(g, device), hg.from_numpy(x, device)
                outs = {op: hg.empty((n,), dname, device) for op in ops}   # one per op: results checked after
                plans: list[Plan] = []
                try:
                    # every (op, mode) cell of this dtype and size, timed round-robin so each
                    # cell's rounds spread over the whole group's time
                    items: list[tuple[tuple[str, str], Body, Cell]] = []
                    for op in ops:
                        fresh, fresh_sync, plan = _python_op_bodies(hg, op, tg, tx, outs[op], stream)
                        plans.append(plan)
                        plan_body, plan_sync_body, async_body = _plan_bodies(plan, stream)
                        # (mode, Python body, the C++ loop it is paired with)
                        modes: list[tuple[str, Body, str]] = [("fresh", fresh, "fresh"), ("plan", plan_body, "plan")]
                        if n <= ASYNC_MAX_SIZE:
                            modes += [("fresh_sync", fresh_sync, "fresh"), ("plan_sync", plan_sync_body, "plan"),
                                      ("plan_async", async_body, "plan_async")]
                        items += [((op, mode), body, (op, dname, n, cpp_mode)) for mode, body, cpp_mode in modes]
                    try:
                        paired = measure_paired(items, server, rounds, target_ns)
                    except CppError as exc:
                        # the C++ side failed: report it, go on with Python alone
                        result["cpp"]["error"] = str(exc)
                        if server is not None:
                            server.close()
                        server = None
                        paired = measure_paired(items, None, rounds, target_ns)
                    for plan in plans:
                        plan.close()
                    plans = []
                    for op in ops:
                        row: dict[str, Any] = {"op": op, "dtype": dname, "size": n, "bytes_moved": 3 * nbytes,
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
                        if have_torch and torch_default is not None:
                            row.update(_torch_bench(op, g, x, (("torch_matched", ours_threads),
                                                                ("torch_default", torch_default)),
                                                    repeat, target_ns))
                        ref: list[Array | None] = [None]
                        row["numpy"] = measure(_numpy_body(op, g, x, ref), repeat, target_ns)
                        ref0 = ref[0]
                        if ref0 is None:            # measure() runs the body at least once
                            raise RuntimeError("the numpy loop never ran")
                        row["matches_numpy"] = _check_result(op, ours, ref0)
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
        # the sections measured in worker processes (bench/sections.py); one that fails is
        # reported as such and the others still run
        procs: dict[str, S.WorkerMemory] = {}
        result["kernel"] = {"paths": S.kernel_paths(), "info": S.info_lines()}
        for key, enabled, fn in (
                ("forms", forms and bool(ops),
                 lambda: S.forms(ops, dtypes, rounds, target_ns, server, quiet, procs, have_torch)),
                ("placement", placement and bool(ops),
                 lambda: S.placement(ops, rounds, target_ns, cpp and server is not None, quiet, procs)),
                ("sweep", bool(sweep) and bool(ops),
                 lambda: S.sweep(ops, dtypes, sweep, paths, rounds, sweep_ms * 1e6, quiet, procs, have_torch,
                                 sweep_settle_ms)),
                ("first_calls", first_calls > 0 and first_procs > 0 and bool(ops),
                 lambda: S.first_calls(_floor_op(), first_calls, first_procs, quiet, procs)),
                ("rss_flat", rss_calls > 0 and bool(ops),
                 lambda: S.rss_flat(_floor_op(), rss_calls, rss_budget_s, quiet, procs))):
            if not enabled:
                result[key] = {"na": "n/a: not requested"}
                continue
            t0 = time.perf_counter()
            try:
                result[key] = fn()
            except (S.WorkerError, CppError, OSError) as exc:
                result[key] = {"na": f"n/a: {exc}"}
            result[key]["elapsed_s"] = time.perf_counter() - t0
        status = proc_status_kib()
        result["memory"] = {"main": {"vmhwm_kib": status.get("VmHWM"), "vmrss_kib": status.get("VmRSS")},
                            "workers": procs}
    finally:
        if server:
            server.close()
        stream.close()
        device.close()
    result["machine"]["loadavg_end"] = list(os.getloadavg())
    result["targets"] = evaluate_targets(result)
    result["elapsed_s"] = time.perf_counter() - t_start
    return result


def _med(row: Mapping[str, Any], key: str) -> float | None:
    v = row.get(key)
    ns: float | None = v["median_ns"] if v else None
    return ns


def _min(row: Mapping[str, Any], key: str) -> float | None:
    v = row.get(key)
    ns: float | None = v["min_ns"] if v else None
    return ns


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a and b else None


def _derive(row: dict[str, Any]) -> None:
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


def paired_ratio(row: Mapping[str, Any], key: str) -> float | None:
    """The median of per-round ratios (``<key>_paired``); the ratio of medians for results
    saved before the paired method existed."""
    ra = row.get("ratios") or {}
    v: float | None = ra.get(f"{key}_paired")
    if v is None:
        v = ra.get(key)
    return v


def _na(section: object) -> str | None:
    """Why a section of the result was not measured ("n/a: ..."), or None if it was."""
    if section is None:
        return "n/a: not in this result"
    why: str | None = section.get("na") if isinstance(section, dict) else None
    return why


def evaluate_targets(result: Mapping[str, Any]) -> list[Target]:
    """The issue's targets, each with the worst measured case, met or not, and the margin:
    ``measured`` (the worst cell), ``where`` (that cell), ``met`` (None: not measured, then
    ``why``), ``margin`` (measured / required) and ``headroom`` (the fraction by which the worst
    cell beats the requirement; negative: by which it misses), ``note`` (coverage: sizes not
    measured, calls fewer than asked)."""
    out: list[Target] = []

    def add(name: str, want: float, cmp: str, cells: Iterable[tuple[float | None, str]], why: str | None = None,
            note: str | None = None) -> None:
        known = [(v, where) for v, where in cells if v is not None]
        if not known:
            out.append({"target": name, "required": f"{cmp} {want}", "measured": None, "met": None, "where": None,
                        "margin": None, "headroom": None, "why": why or "n/a: no cell measured", "note": note})
            return
        v, where = (min(known) if cmp == ">=" else max(known))
        met = v >= want if cmp == ">=" else v <= want
        head = (v - want) / want if cmp == ">=" else (want - v) / want
        out.append({"target": name, "required": f"{cmp} {want}", "measured": v, "met": met, "where": where,
                    "margin": v / want, "headroom": head, "why": None, "note": note})

    def cell(r: Mapping[str, Any]) -> str:
        return f"{r['op']} {r['dtype']} {size_label(r['size'])}"

    sw = result.get("sweep")
    rows = (sw or {}).get("results", [])
    why = _na(sw)
    done = sorted({r["size"] for r in rows})
    span = [r for r in rows if 1 << 10 <= r["size"] <= 1 << 26]
    missing = [size_label(n) for n in (1 << 10, 1 << 20, 1 << 24, 1 << 26) if n not in done]
    note = f"not measured at {', '.join(missing)} (--sweep full runs 8..64M)" if missing and rows else None
    for what, label in (("all", "skipped for memory"), ("error", "failed")):
        skipped = [f"{x['dtype']} {size_label(x['size'])}" for x in (sw or {}).get("skipped", []) if x["what"] == what]
        if skipped:
            note = (note + "; " if note else "") + f"{label}: " + ", ".join(skipped)
    add("ours / PyTorch (matched threads), 1K <= n <= 64M, every op and dtype", 1.0, "<=",
        [(r["ratios"]["ours_over_torch"], cell(r)) for r in span], why, note)
    add("ours / PyTorch, bfloat16 at 1M", 0.75, "<=",
        [(r["ratios"]["ours_over_torch"], cell(r)) for r in rows if r["dtype"] == "bfloat16" and r["size"] == 1 << 20],
        why or "n/a: 1M bfloat16 not in the sweep")
    add("ours GB/s / copy GB/s, n >= 16M", 0.85, ">=",
        [(r["ratios"]["fraction_of_copy"], cell(r)) for r in rows if r["size"] >= 1 << 24],
        why or "n/a: no size >= 16M in the sweep (--sweep full)")
    fm = result.get("forms")
    frows = (fm or {}).get("results", [])
    fwhy = _na(fm)

    def form_cells(form: str, value: Callable[[Any], float | None]) -> list[tuple[float | None, str]]:
        return [(value(r), f"{r['op'] or ''} {r['dtype']}".strip()) for r in frows if r["form"] == form]

    def form_why(form: str) -> str | None:
        nas = [r.get("na") for r in frows if r["form"] == form and r.get("na")]
        why: str | None = fwhy or (nas[0] if nas else None)
        return why
    add("numpy in, numpy out at 8 elements, us per call", 15.0, "<=",
        form_cells("numpy", lambda r: r["sides"]["numpy"]["median_ns"] / 1e3 if r["sides"] else None),
        form_why("numpy"))
    add("Tensor one-call without out= / PyTorch eager without out=, 8 elements", 1.5, "<=",
        form_cells("noout", lambda r: r["ratio"]), form_why("noout"))
    add("one-call with out= and sync=True / C++ fresh-plan loop, 8 elements", 2.5, "<=",
        form_cells("out_s", lambda r: r["ratio"]), form_why("out_s"))
    add("repeatable plan run(sync=True) / C++ repeatable loop, 8 elements", 2.0, "<=",
        form_cells("plan_s", lambda r: r["ratio"]), form_why("plan_s"))
    pl = result.get("placement")
    add("caller and stream worker on one CPU / on two CPUs, 8 elements", 3.0, "<=",
        [(r["ratio"], f"{r['op']} {r['side']} {r['form']}") for r in (pl or {}).get("results", [])], _na(pl))
    add("allocate + free of an 8-element tensor from Python, us", 2.0, "<=",
        form_cells("alloc", lambda r: r["sides"]["alloc"]["median_ns"] / 1e3 if r["sides"] else None),
        form_why("alloc"))
    rs = result.get("rss_flat")
    rrows = [r for r in (rs or {}).get("results", []) if r.get("change_pct") is not None]
    fewer = [f"{r['form']} {r['calls']}" for r in rrows if r.get("reduced")]
    add(f"RSS change over {(rs or {}).get('requested_calls', 0)} calls of each form, % (|change| <= 1)", 1.0, "<=",
        [(abs(r["change_pct"]), f"{r['form']}") for r in rrows], _na(rs),
        f"fewer calls to fit --rss-budget-s: {', '.join(fewer)}" if fewer else None)
    # not a number of the list: its first point (the dispatch picks the fastest path)
    # from 64K up, where the kernel is most of a call (below, two processes differ by their noise)
    fast = [r for r in rows if r["ratios"].get("auto_over_fastest") is not None and r["size"] >= 1 << 16]
    add("automatic kernel path / fastest forced path, sweep cells n >= 64K (dispatch check)", 1.10, "<=",
        [(r["ratios"]["auto_over_fastest"], f"{cell(r)} (fastest {r['ratios']['fastest_path']})") for r in fast],
        why or "n/a: no forced kernel path was timed")
    tc = result.get("trivial_call") or {}
    if tc.get("binding") and tc.get("ctypes"):
        add("aclrtGetDevice: ctypes cost / binding cost (earlier target)", 3.0, ">=",
            [(tc["ctypes"]["median_ns"] / tc["binding"]["median_ns"], "aclrtGetDevice")])
    return out


# ---------------------------------------------------------------------------- output

def _us(ns: float | None) -> str:
    if ns is None:
        return "-"
    us = ns / 1000.0
    return f"{us:.3g}" if us < 1000 else f"{us:,.0f}"


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.0f}%"


def _x(v: float | None, digits: int = 2) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


COLUMNS = ("op", "dtype", "n", "py fresh", "py plan", "C++ fresh", "C++ plan", "py/C++ fresh",
           "py/C++ plan", "py fresh s", "py plan s", "py/C++ fresh s", "py/C++ plan s", "py async", "C++ async",
           "torch mt", "torch dt", "numpy", "copy", "GB/s ours", "GB/s copy", "of copy", "x torch mt", "x torch dt",
           "x numpy")


def table_rows(result: Mapping[str, Any]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for r in result["results"]:
        ra = r["ratios"]
        out.append((r["op"], r["dtype"], size_label(r["size"]), _us(_med(r, "python_fresh")),
                    _us(_med(r, "python_plan")), _us(_med(r, "cpp_fresh")), _us(_med(r, "cpp_plan")),
                    _x(paired_ratio(r, "python_fresh_over_cpp_fresh")),
                    _x(paired_ratio(r, "python_plan_over_cpp_plan")),
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


def format_table(columns: Sequence[str], rows: Iterable[Iterable[object]], markdown: bool = False,
                 left: int = 3) -> list[str]:
    """Lines of a table: the first ``left`` columns left-aligned, the others right-aligned."""
    text = [tuple(str(c) for c in r) for r in rows]
    if markdown:
        return (["| " + " | ".join(columns) + " |",
                 "|" + "|".join("---" if i < left else "---:" for i in range(len(columns))) + "|"]
                + ["| " + " | ".join(r) + " |" for r in text])
    widths = [max(len(c), *(len(r[i]) for r in text)) if text else len(c) for i, c in enumerate(columns)]

    def fmt(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    return [fmt(columns)] + [fmt(r) for r in text]


def format_report(result: Mapping[str, Any], markdown: bool = False) -> str:
    """The table (times are medians in microseconds per call) plus the summary lines."""
    lines = (format_table(COLUMNS, table_rows(result), markdown) if result.get("results")
             else ["(no main table: --sizes none)"])
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
    from .sections import section_lines
    lines += section_lines(result, markdown)
    rss = result.get("rss")          # results of schema 1: one form, in the bench's own process
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
    lines.append("targets (worst cell of each; headroom: by how much the worst cell beats the requirement, "
                 "negative: misses it):")
    trows: list[tuple[str, ...]] = []
    for t in result.get("targets", []):
        met = "n/a" if t["met"] is None else "met" if t["met"] else "MISS"
        head = t.get("headroom")
        trows.append((t["target"], met, t["required"], "-" if t["measured"] is None else f"{t['measured']:.3g}",
                       "-" if head is None else f"{100 * head:+.0f}%", t["where"] or (t.get("why") or "-")))
    lines += format_table(("target", "result", "required", "worst", "headroom", "where"), trows, markdown, left=2)
    notes = [f"  {t['target']}: {t['note']}" for t in result.get("targets", []) if t.get("note")]
    if notes:
        lines.append("notes:")
        lines += notes
    m = result.get("machine", {})
    lines.append(f"machine: {m.get('cpus')} CPUs {m.get('machine')}, load average "
                 f"{_load(m.get('loadavg_start'))} -> {_load(m.get('loadavg_end'))}; "
                 f"{result.get('elapsed_s', 0):.0f} s")
    return "\n".join(lines)


def _ns(stats: Mapping[str, Any]) -> str:
    return f"{stats['median_ns']:.1f} ns"


def _load(v: Sequence[float] | None) -> str:
    return "-" if not v else "/".join(f"{x:.2f}" for x in v)
