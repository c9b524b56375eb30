"""The parts of ``python -m pyacl_hardgrad bench`` measured in worker processes
(bench/worker.py): the size sweep against PyTorch and a copy, with the kernel paths per cell;
the same-CPU placement; the call forms users type at 8 elements; the first calls of a fresh
process; resident memory.  Every comparison is timed in rounds (runner.timed_rounds) and every
ratio is the median of the per-round ratios.  Nothing here names an operator: they come from
the registered folders' bench.py (runner.BENCH)."""
from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
import tempfile
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Optional, TypedDict

from . import runner as R
from .runner import Stats

# The size series of the sweep: 8 (the small-call size everywhere else in the bench), then
# every power of 4 from 16 to 64M.
SWEEP_MAX = 1 << 26
SWEEP_SERIES = (8,) + tuple(4 ** k for k in range(2, 14))
DEFAULT_SWEEP = "8..16M"
# Every kernel path the embedded runtime has (PYACL_HARDGRAD_KERNEL_ISA values).
KERNEL_PATHS = ("scalar", "avx2", "avx512", "neon")
# The forms at 8 elements: (form, what it is compared with, the side label of that).
FORM_ITEMS: tuple[tuple[str, str | None], ...] = (
    ("numpy", None),
    ("noout", "torch_eager"),
    ("out_s", "cpp_fresh"),
    ("plan_s", "cpp_plan"),
)
# The forms whose resident memory over many calls is checked (of the first operator, float32).
RSS_FORMS = ("numpy", "noout", "out_s", "out_sy", "plan_s", "plan_sy", "alloc")
# The forms whose first calls in a fresh process are timed.
FIRST_FORMS = ("out_s", "noout")


class WorkerError(RuntimeError):
    """A worker process failed or answered with an error."""


class WorkerMemory(TypedDict):
    """A process's peak and current resident set (KiB; None where /proc does not say)."""
    vmhwm_kib: Optional[int]
    vmrss_kib: Optional[int]


class NotMeasured(TypedDict):
    """A section that was not measured, and why ("n/a: ...")."""
    na: str


class IsaTrace(TypedDict):
    """A ``kernel isa`` line of a worker's stderr: the process-wide path and the value asked for."""
    path: str
    requested: Optional[str]
    line: str


class RowChoice(TypedDict):
    """A per-row line of the trace: the path one kernel row chose, and why."""
    function: str
    dtypes: str
    path: str
    reason: Optional[str]
    line: str


class _SweepRatiosCore(TypedDict):
    ours_over_torch: Optional[float]
    call_over_torch: Optional[float]
    fraction_of_copy: Optional[float]
    path_over_auto: dict[str, float]


class SweepRatios(_SweepRatiosCore, total=False):
    """A sweep row's ratios (medians of per-round ratios); fastest_path adds the last two."""
    fastest_path: Optional[str]
    auto_over_fastest: Optional[float]


class _SweepRowCore(TypedDict):
    op: str
    dtype: str
    size: int
    bytes_moved: int
    ours: Stats
    ours_call: Stats
    torch: Optional[Stats]
    copy: dict[str, Stats]
    paths: dict[str, Stats]
    rounds: dict[str, list[float]]
    copy_rounds: list[float]
    matches_numpy: dict[str, Optional[bool]]


class SweepRow(_SweepRowCore, total=False):
    """One op x dtype x size of the sweep: each side's stats and rounds, the ratios, GB/s (set
    after the row is made, in this order: settle_ms, ratios, gbps; auto_path by fastest_path)."""
    settle_ms: dict[str, float]
    ratios: SweepRatios
    gbps: Optional[float]
    auto_path: Optional[str]


class Skipped(TypedDict):
    """A sweep cell (or its forced paths) left out: for memory, or after an error."""
    dtype: str
    size: int
    what: str
    why: str


class _SweepCore(TypedDict):
    sizes: list[int]
    paths: dict[str, Optional[str]]
    forced: list[str]
    results: list[SweepRow]
    skipped: list[Skipped]
    auto_path: Optional[str]
    trace: dict[str, list[str]]
    torch_worker: Optional[str]
    settle_ms: float


class SweepSection(_SweepCore, total=False):
    """The result's ``sweep`` object (see sweep())."""
    threads: dict[str, Optional[int]]
    error: str
    torch_imported: dict[str, Optional[bool]]
    auto_rows: list[RowChoice]


class PlacementRow(TypedDict):
    op: str
    side: str
    form: str
    one_cpu: Stats
    two_cpus: Stats
    ratio: float
    rounds: dict[str, list[float]]


class _PlacementCore(TypedDict):
    one_cpu: list[int]
    two_cpus: list[int]
    results: list[PlacementRow]


class PlacementSection(_PlacementCore, total=False):
    """The result's ``placement`` object; ``cpp``: why the C++ side is missing."""
    cpp: Optional[str]


class _FormRowCore(TypedDict):
    op: Optional[str]
    dtype: str
    size: int
    form: str
    sides: dict[str, Stats]
    against: Optional[str]
    ratio: Optional[float]


class FormRow(_FormRowCore, total=False):
    """One form at 8 elements: its sides' stats and rounds, the ratio to what it is compared
    with, or why not (``na``)."""
    rounds: dict[str, list[float]]
    na: str


class _FormsCore(TypedDict):
    results: list[FormRow]


class FormsSection(_FormsCore, total=False):
    """The result's ``forms`` object; ``matches_numpy``: {dtype: {op: result checked}}."""
    matches_numpy: dict[str, dict[str, bool]]


class FirstCallsRow(TypedDict):
    op: str
    form: str
    runs: list[dict[str, Any]]          # the workers' answers (worker.FirstCalls)
    mean_ns: float
    steady_ns: float
    first_call_ns: float


class FirstCallsSection(TypedDict):
    """The result's ``first_calls`` object."""
    calls: int
    processes: int
    results: list[FirstCallsRow]


class _RssCore(TypedDict):
    op: str
    requested_calls: int
    budget_s: float
    results: list[dict[str, Any]]       # {form, ...the worker's answer (worker.RssOver)} or why not


class RssSection(_RssCore, total=False):
    """The result's ``rss_flat`` object; ``memory_stats``: the worker's hg.memory_stats() or why not."""
    start: WorkerMemory
    memory_stats: object


def parse_sweep(text: str) -> list[int]:
    """``A..B`` (the series' sizes from A to B), ``full`` (8..64M), ``none``/``off``, or a
    comma-separated list of sizes (each K/M suffixed, like --sizes)."""
    t = text.strip().lower()
    if t in ("none", "off", "0", ""):
        return []
    if t == "full":
        return list(SWEEP_SERIES)
    if ".." in t:
        a, b = (R.parse_size(v) if v else None for v in t.split("..", 1))
        lo, hi = a or SWEEP_SERIES[0], b or SWEEP_SERIES[-1]
        if lo > hi:
            raise ValueError(f"sweep {text!r}: {lo} > {hi}")
        sizes = [n for n in SWEEP_SERIES if lo <= n <= hi]
        if not sizes:
            raise ValueError(f"sweep {text!r} holds no size of the series 8, 16, 64, ... 64M")
        return sizes
    return sorted({R.parse_size(v) for v in t.split(",") if v.strip()})


def kernel_paths(cpuinfo: str | None = None, machine: str | None = None) -> dict[str, str | None]:
    """{path: None if this CPU has it, else why not}: the CPU features each path needs (as
    kernel_isa.c tests them: AVX2 with AVX and F16C; AVX-512 F/DQ/BW/VL; NEON on aarch64)."""
    machine = machine or platform.machine()
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            cpuinfo = ""
    flags: set[str] = set()
    for line in cpuinfo.splitlines():
        if line.split(":")[0].strip() in ("flags", "Features"):
            flags |= set(line.split(":", 1)[1].split())
    need = {"avx2": ("avx", "avx2", "f16c"), "avx512": ("avx512f", "avx512dq", "avx512bw", "avx512vl")}
    out: dict[str, str | None] = {"scalar": None}
    for path in ("avx2", "avx512"):
        if machine not in ("x86_64", "AMD64"):
            out[path] = f"n/a: not an x86_64 CPU ({machine})"
        else:
            missing = [f for f in need[path] if f not in flags]
            out[path] = f"n/a: the CPU lacks {', '.join(missing)}" if missing else None
    out["neon"] = None if machine in ("aarch64", "arm64") else f"n/a: not an aarch64 CPU ({machine})"
    return out


def parse_isa_trace(text: str) -> list[IsaTrace]:
    """The PYACL_HARDGRAD_KERNEL_ISA_TRACE lines of a worker's stderr:
    ``kernel isa <path> (requested <value>)``, and any further words on the line (kept raw)."""
    out: list[IsaTrace] = []
    for line in text.splitlines():
        m = re.search(r"kernel isa (\w+)(?: \(requested ([^)]*)\))?(.*)", line)
        if m:
            out.append({"path": m.group(1), "requested": m.group(2), "line": line.strip()})
    return out


def parse_row_choices(text: str) -> list[RowChoice]:
    """The per-row lines of the trace, ``kernel <aclnn function> <dtypes>: <path> (<reason>)``:
    the path each kernel row chose when the process-wide setting is ``auto``."""
    out: list[RowChoice] = []
    for line in text.splitlines():
        m = re.search(r"kernel (aclnn\w+) (\S+): (\w+)(?: \((.*)\))?", line)
        if m:
            out.append({"function": m.group(1), "dtypes": m.group(2), "path": m.group(3),
                        "reason": m.group(4), "line": line.strip()})
    return out


def auto_choice(text: str) -> str | None:
    """The path the automatic choice ran: the process-wide path, or with per-row choice
    (``kernel isa auto``) the path most rows chose."""
    isa = parse_isa_trace(text)
    if isa and isa[0]["path"] != "auto":
        return isa[0]["path"]
    rows = [r["path"] for r in parse_row_choices(text)]
    return max(sorted(set(rows)), key=rows.count) if rows else None


def _package_path() -> str:
    import pyacl_hardgrad
    return str(Path(pyacl_hardgrad.__file__).resolve().parent.parent)


def child_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a worker: this one, the imported package first on the path (so the
    child runs the same install), the kernel path trace on, plus ``extra``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_package_path(), env.get("PYTHONPATH")) if p)
    env["PYACL_HARDGRAD_KERNEL_ISA_TRACE"] = "1"
    env.update(extra or {})
    return env


class WorkerProc:
    """A worker process (bench/worker.py): one JSON request per line, one JSON answer back."""

    def __init__(self, label: str, env: Mapping[str, str] | None = None, cpus: Collection[int] | None = None) -> None:
        self.label = label
        self.err = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([sys.executable, "-m", "pyacl_hardgrad.bench.worker"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.err, text=True, bufsize=1, cwd="/",
                                     env=child_env(env), preexec_fn=R.pin_to(cpus))
        self.ask(None)                       # the "ready" line
        self.hello = self.ask({"cmd": "hello"})

    def ask(self, req: Mapping[str, object] | None) -> dict[str, Any]:
        line = R.exchange(self.proc, None if req is None else json.dumps(req) + "\n", WorkerError,
                          f"worker {self.label}")
        if not line:
            raise WorkerError(f"worker {self.label} exited (status {self.proc.poll()}): {self.stderr()[-2000:]}")
        data: dict[str, Any] = json.loads(line)
        if "error" in data:
            raise WorkerError(f"worker {self.label}: {(req or {}).get('cmd', 'start')}: {data['error']}")
        return data

    def stderr(self) -> str:
        self.err.flush()
        self.err.seek(0)
        text = self.err.read()
        self.err.seek(0, 2)
        return text

    def isa_trace(self) -> list[IsaTrace]:
        return parse_isa_trace(self.stderr())

    def status(self) -> dict[str, Any]:
        return self.ask({"cmd": "status"})

    def close(self) -> dict[str, Any] | None:
        """Quit; the last status (peak RSS) first, if the worker still answers."""
        st = None
        try:
            st = self.status()
        except WorkerError:
            pass
        R.end_child(self.proc, json.dumps({"cmd": "quit"}) + "\n", 30)
        self.err.close()
        return st


class WorkerSide:
    """One side of a timed item (runner.timed_rounds): a body of a worker process.  With
    ``settle_ms`` the worker answers a calibration or a batch only once none of its threads runs
    any more (worker.settle, at most that long), so nothing of it competes with the side timed
    next; ``settles`` keeps the ns each batch's pause took."""

    def __init__(self, label: str, worker: WorkerProc, body: str, settle_ms: float = 0.0) -> None:
        self.label, self.worker, self.body, self.settle_ms = label, worker, body, settle_ms
        self.settles: list[float] = []

    def _req(self, **kw: object) -> dict[str, object]:
        req = {"body": self.body, **kw}
        if self.settle_ms:
            req["settle_ms"] = self.settle_ms
        return req

    def calibrate(self, ns: float) -> int:
        iters: int = self.worker.ask(self._req(cmd="cal", ns=ns))["iters"]
        return iters

    def batch(self, k: int, warm: bool) -> float:
        ans = self.worker.ask(self._req(cmd="time", k=k, warm=warm))
        if "settle_ns" in ans:
            self.settles.append(ans["settle_ns"])
        ns: float = ans["ns"]
        return ns


def _stats(side: R.SideTimes) -> Stats:
    return R.round_stats(side["ns"], side["iters"])


def _record(workers: dict[str, WorkerMemory], label: str, st: Mapping[str, Any] | None) -> None:
    if st is not None:
        workers[label] = {"vmhwm_kib": st.get("vmhwm_kib"), "vmrss_kib": st.get("vmrss_kib")}


# ---------------------------------------------------------------------------- the sweep

def sweep_memory_need(n: int, itemsize: int, ops: int, forced: int, torch: bool = True) -> int:
    """Bytes the workers of one sweep group hold at once (estimate): the ``auto`` worker the
    device inputs, one output per operator and a copy's two arrays (and the host inputs while it
    makes the device ones); the PyTorch worker the host inputs (PyTorch shares them), PyTorch's
    output and its copy's two arrays; each forced-path worker the device inputs and outputs; and
    each builds its inputs through a float64 temporary."""
    b = n * itemsize
    auto = (2 + 2 + ops + 2 + 1) * b + 12 * n
    torch_w = (2 + 1 + 2 + 1) * b + 12 * n if torch else 0
    one_forced = (2 + 2 + ops) * b + 12 * n
    return auto + torch_w + forced * one_forced


# Longest pause after a sweep batch waiting for the worker's threads to sleep (worker.settle);
# PyTorch's OpenMP threads spin about 4 ms after a call here, ours 50 us.
DEFAULT_SETTLE_MS = 50.0


def sweep(ops: Sequence[str], dtypes: Iterable[str], sizes: Sequence[int], paths: Iterable[str], rounds: int,
          target_ns: float, quiet: bool, procs: dict[str, WorkerMemory], torch: bool = True,
          settle_ms: float = DEFAULT_SETTLE_MS) -> SweepSection:
    """ours (the repeatable plan's run(sync=True), and the one-call with out= and sync=True)
    against PyTorch (out=, matched threads) and a copy of the same size (numpy's and PyTorch's;
    the faster per round), and each forced kernel path against the automatic choice, per
    op x dtype x size, in rounds across the worker processes: ours and numpy's copy in the
    ``auto`` worker (which never imports PyTorch), PyTorch's call and copy in a worker of their
    own, each forced path in its own; every batch is answered only after its worker's threads
    have gone quiet (``settle_ms`` at most; 0: no pause)."""
    avail = kernel_paths()
    forced = [p for p in paths if avail.get(p) is None]
    out: SweepSection = {"sizes": list(sizes), "paths": {p: avail.get(p, "n/a: unknown path") for p in paths},
                         "forced": forced, "results": [], "skipped": [], "auto_path": None, "trace": {},
                         "torch_worker": None, "settle_ms": settle_ms}
    if not sizes:
        return out
    workers = {"auto": WorkerProc("sweep-auto")}
    try:
        if torch:
            workers["torch"] = WorkerProc("sweep-torch")
            out["torch_worker"] = workers["torch"].label
        for p in forced:
            workers[p] = WorkerProc(f"sweep-{p}", env={"PYACL_HARDGRAD_KERNEL_ISA": p})
        for dname in dtypes:
            itemsize = R.numpy_dtype(dname).itemsize
            for n in sizes:
                avail_b = R.mem_available_bytes()
                use = list(forced)
                need = sweep_memory_need(n, itemsize, len(ops), len(use), torch)
                if avail_b is not None and need > 0.7 * avail_b and use:
                    out["skipped"].append({"dtype": dname, "size": n, "what": "forced kernel paths",
                                           "why": f"needs ~{need / 2**30:.1f} GiB with them, MemAvailable "
                                                  f"{avail_b / 2**30:.1f} GiB"})
                    use = []
                    need = sweep_memory_need(n, itemsize, len(ops), 0, torch)
                if avail_b is not None and need > 0.7 * avail_b:
                    out["skipped"].append({"dtype": dname, "size": n, "what": "all",
                                           "why": f"needs ~{need / 2**30:.1f} GiB, MemAvailable "
                                                  f"{avail_b / 2**30:.1f} GiB"})
                    continue
                R._progress(quiet, f"sweep {dname} n={R.size_label(n)} ...")
                try:
                    out["results"] += _sweep_group(workers, use, ops, dname, n, rounds, target_ns, settle_ms,
                                                   out.setdefault("threads", {}))
                except (WorkerError, R.CppError) as exc:
                    out["skipped"].append({"dtype": dname, "size": n, "what": "error", "why": f"error: {exc}"})
                    if any(w.proc.poll() is not None for w in workers.values()):
                        out["error"] = str(exc)     # a worker is gone: the sweep ends here, with what it has
                        break
                    for w in workers.values():
                        w.ask({"cmd": "drop"})
            if out.get("error"):
                break
        out["torch_imported"] = {label: _torch_loaded(w) for label, w in workers.items()}
        for label, w in workers.items():
            if label != "torch":
                out["trace"][label] = [t["line"] for t in w.isa_trace()]
        auto_err = workers["auto"].stderr()
        out["auto_path"] = auto_choice(auto_err)
        out["auto_rows"] = parse_row_choices(auto_err)
        for row in out["results"]:
            fastest_path(row, row_auto_path(row, out["auto_rows"], out["auto_path"]))
        for p in forced:
            ran = [t["path"] for t in workers[p].isa_trace()]
            if ran and ran[0] != p:
                out["paths"][p] = f"n/a: forcing {p} ran {ran[0]}"
    finally:
        for label, w in workers.items():
            _record(procs, w.label, w.close())
    return out


def _torch_loaded(w: WorkerProc) -> bool | None:
    """Whether a worker has imported PyTorch (None if it no longer answers)."""
    try:
        return w.status().get("torch_loaded")
    except WorkerError:
        return None


def sweep_items(workers: Mapping[str, WorkerProc], forced: Iterable[str], ops: Iterable[str],
                have: Mapping[str, Iterable[str]], settle_ms: float) -> list[tuple[str, list[WorkerSide]]]:
    """The timed items of one sweep group (runner.timed_rounds): per operator ours
    (``<op>:plan_s``) and the one-call (``<op>:out_s``) in the ``auto`` worker, PyTorch's call
    (``<op>:torch``) in the ``torch`` worker and the repeatable plan in each forced-path worker;
    then the copies, numpy's in the ``auto`` worker and PyTorch's in the ``torch`` worker.
    ``have``: {worker label: the bodies its group holds}."""
    torch_w = workers.get("torch")
    has = {label: set(have.get(label, ())) for label in workers}

    def side(label: str, worker: str, body: str) -> WorkerSide:
        return WorkerSide(label, workers[worker], body, settle_ms)
    items: list[tuple[str, list[WorkerSide]]] = []
    for op in ops:
        sides = [side("ours", "auto", f"{op}:plan_s"), side("ours_call", "auto", f"{op}:out_s")]
        if torch_w is not None and f"{op}:torch" in has["torch"]:
            sides.append(side("torch", "torch", f"{op}:torch"))
        sides += [side(p, p, f"{op}:plan_s") for p in forced]
        items.append((op, sides))
    copies = [side("copy", "auto", "copy")] if "copy" in has["auto"] else []
    if torch_w is not None and "torch_copy" in has["torch"]:
        copies.append(side("torch_copy", "torch", "torch_copy"))
    items.append(("copy", copies))
    return items


def _sweep_group(workers: Mapping[str, WorkerProc], forced: Sequence[str], ops: Sequence[str], dname: str, n: int,
                 rounds: int, target_ns: float, settle_ms: float, threads: dict[str, int | None]) -> list[SweepRow]:
    auto, torch_w = workers["auto"], workers.get("torch")
    have: dict[str, list[str]] = {
        "auto": auto.ask({"cmd": "group", "dtype": dname, "n": n, "ops": ops, "forms": ["plan_s", "out_s"],
                          "torch": False, "copy": True})["bodies"]}
    threads.setdefault("ours", auto.hello.get("threads"))
    if torch_w is not None:
        g = torch_w.ask({"cmd": "group", "dtype": dname, "n": n, "ops": ops, "forms": ["torch"], "torch": True,
                         "copy": True})
        have["torch"] = g["bodies"]
        threads.setdefault("torch", g.get("torch_threads"))
    for p in forced:
        workers[p].ask({"cmd": "group", "dtype": dname, "n": n, "ops": ops, "forms": ["plan_s"]})
    items = sweep_items(workers, forced, ops, have, settle_ms)
    res = R.timed_rounds(items, rounds, target_ns)
    settles = {(name, s.label): s.settles for name, sides in items for s in sides}
    matches: dict[str, dict[str, bool]] = {"auto": auto.ask({"cmd": "check"})["matches"]}
    for p in forced:
        matches[p] = workers[p].ask({"cmd": "check"})["matches"]
        workers[p].ask({"cmd": "drop"})
    if torch_w is not None:
        torch_w.ask({"cmd": "drop"})
    auto.ask({"cmd": "drop"})
    return sweep_rows(res, ops, dname, n, forced, matches, settles)


def sweep_rows(res: Mapping[str, Mapping[str, R.SideTimes]], ops: Iterable[str], dname: str, n: int,
               forced: Iterable[str], matches: Mapping[str, Mapping[str, bool]],
               settles: Mapping[tuple[str, str], list[float]] | None = None) -> list[SweepRow]:
    """The sweep's result rows of one dtype and size from timed_rounds' answer: the stats per
    side and the ratios, each the median of the per-round ratios of its two sides."""
    copy = res["copy"]
    copy_ns = [min(v) for v in zip(*(copy[c]["ns"] for c in copy))]
    itemsize = R.numpy_dtype(dname).itemsize
    rows: list[SweepRow] = []
    for op in ops:
        r = res[op]
        nbytes = R.tensor_count(op) * n * itemsize
        ours = r["ours"]["ns"]
        row: SweepRow = {"op": op, "dtype": dname, "size": n, "bytes_moved": nbytes,
                         "ours": _stats(r["ours"]), "ours_call": _stats(r["ours_call"]),
                         "torch": _stats(r["torch"]) if "torch" in r else None,
                         "copy": {c: _stats(copy[c]) for c in copy},
                         "paths": {p: _stats(r[p]) for p in forced},
                         "rounds": {label: side["ns"] for label, side in r.items()},
                         "copy_rounds": copy_ns,
                         "matches_numpy": {k: v.get(op) for k, v in matches.items()}}
        if settles is not None:
            # the median pause (ms) after each side's batches before its worker's threads slept
            row["settle_ms"] = {label: R._median(v) / 1e6 for (name, label), v in settles.items()
                                if v and name in (op, "copy")}
        ra: SweepRatios = {
            "ours_over_torch": R._median(R.per_round(ours, r["torch"]["ns"])) if "torch" in r else None,
            "call_over_torch": R._median(R.per_round(r["ours_call"]["ns"], r["torch"]["ns"])) if "torch" in r
            else None,
            # GB/s of ours over GB/s of the copy (2 arrays of n), per round
            "fraction_of_copy": R._median([(nbytes / a) / (2 * n * itemsize / c)
                                           for a, c in zip(ours, copy_ns)]) if copy_ns else None,
            "path_over_auto": {p: R._median(R.per_round(r[p]["ns"], ours)) for p in forced}}
        row["ratios"] = ra
        row["gbps"] = R.gbps(nbytes, row["ours"]["median_ns"])
        rows.append(row)
    return rows


def row_auto_path(row: SweepRow, auto_rows: Iterable[RowChoice], fallback: str | None) -> str | None:
    """The path the automatic worker's kernel row of this sweep row ran (each row chooses its
    own; ``fallback``, the path most rows chose, when the trace does not name this one)."""
    from ..dtypes import acl_name, to_acl
    function = R.BENCH_OPS[row["op"]][0] if row.get("op") in R.BENCH_OPS else None
    out_dtype = acl_name(to_acl(R.numpy_dtype(row["dtype"]))).split("_", 1)[-1]
    for r in auto_rows:
        if r["function"] == function and r["dtypes"].split("->")[-1].split("_", 1)[-1] == out_dtype:
            return r["path"]
    return fallback


def fastest_path(row: SweepRow, auto_path: str | None) -> None:
    """Adds to a sweep row's ratios ``fastest_path`` (the forced path with the lowest median, or
    ``auto`` when none beats the automatic choice) and ``auto_over_fastest`` (how much slower
    the automatic choice is than that path; 1.0 when it is the fastest or when the fastest is
    the path it picked itself: two processes running the same path differ only by noise)."""
    ra = row["ratios"]
    row["auto_path"] = auto_path
    if not row["paths"]:
        ra["fastest_path"] = ra["auto_over_fastest"] = None
        return
    best = min(row["paths"], key=lambda p: row["paths"][p]["median_ns"])
    if best == auto_path or ra["path_over_auto"][best] >= 1.0:
        ra["fastest_path"], ra["auto_over_fastest"] = "auto", 1.0
    else:
        ra["fastest_path"], ra["auto_over_fastest"] = best, 1.0 / ra["path_over_auto"][best]


# ---------------------------------------------------------------------------- placement

def placement(ops: Sequence[str], rounds: int, target_ns: float, cpp: bool, quiet: bool,
              procs: dict[str, WorkerMemory]) -> PlacementSection | NotMeasured:
    """8-element float32 calls with the caller and the stream worker on one CPU (the worker
    process pinned with sched_setaffinity before its runtime starts) against two CPUs."""
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if len(cpus) < 2:
        return {"na": f"n/a: this process may run on {len(cpus) or 'an unknown number of'} CPU(s); two are needed"}
    one, two = {cpus[0]}, {cpus[0], cpus[1]}
    R._progress(quiet, f"placement: one CPU ({cpus[0]}) against two ({cpus[0]},{cpus[1]}) ...")
    out: PlacementSection = {"one_cpu": sorted(one), "two_cpus": sorted(two), "results": []}
    w1, w2 = WorkerProc("placement-one-cpu", cpus=one), WorkerProc("placement-two-cpus", cpus=two)
    servers: list[R.CppServer] = []
    try:
        items: list[tuple[tuple[str, str, str], list[R.Side]]] = []
        for w in (w1, w2):
            w.ask({"cmd": "group", "dtype": "float32", "n": 8, "ops": ops, "forms": ["out_s", "plan_s"]})
        for op in ops:
            for form in ("out_s", "plan_s"):
                items.append(((op, "python", form), [WorkerSide("two_cpus", w2, f"{op}:{form}"),
                                                    WorkerSide("one_cpu", w1, f"{op}:{form}")]))
        if cpp:
            s1, info1 = R.start_cpp_server(cpus=one)
            s2, info2 = R.start_cpp_server(cpus=two)
            servers = [s for s in (s1, s2) if s]
            if s1 and s2:
                for op in ops:
                    for mode in ("fresh", "plan"):
                        cell = (op, "float32", 8, mode)
                        items.append(((op, "C++", mode), [R.CppSide("two_cpus", s2, cell),
                                                          R.CppSide("one_cpu", s1, cell)]))
            else:
                out["cpp"] = (info1 if not s1 else info2).get("error")
        res = R.timed_rounds(items, rounds, target_ns)
        for (op, side, form), _ in items:
            r = res[op, side, form]
            out["results"].append({"op": op, "side": side, "form": form, "one_cpu": _stats(r["one_cpu"]),
                                   "two_cpus": _stats(r["two_cpus"]),
                                   "ratio": R._median(R.per_round(r["one_cpu"]["ns"], r["two_cpus"]["ns"])),
                                   "rounds": {k: v["ns"] for k, v in r.items()}})
    finally:
        for s in servers:
            s.close()
        _record(procs, w1.label, w1.close())
        _record(procs, w2.label, w2.close())
    return out


# ---------------------------------------------------------------------------- the forms

def forms(ops: Sequence[str], dtypes: Iterable[str], rounds: int, target_ns: float, server: R.CppServer | None,
          quiet: bool, procs: dict[str, WorkerMemory], torch: bool = True) -> FormsSection:
    """The forms users type, at 8 elements, in a worker of their own: numpy in/out; the
    one-call without out= against PyTorch eager without out=; the one-call with out= and
    sync=True against the C++ fresh-plan loop; a repeatable plan's run(sync=True) against the
    C++ repeatable loop; allocate + free of a tensor against the same four calls from C."""
    out: FormsSection = {"results": []}
    w = WorkerProc("forms")
    try:
        for dname in dtypes:
            R._progress(quiet, f"forms {dname} n=8 ...")
            g = w.ask({"cmd": "group", "dtype": dname, "n": 8, "ops": ops, "torch": torch,
                       "forms": ["numpy", "noout", "out_s", "plan_s", "torch_eager", "torch", "alloc"]})
            have, na = set(g["bodies"]), g["na"]
            items: list[tuple[tuple[str | None, str, str | None], list[R.Side]]] = []
            for op in ops:
                for form, against in FORM_ITEMS:
                    if f"{op}:{form}" not in have:
                        out["results"].append({"op": op, "dtype": dname, "size": 8, "form": form, "sides": {},
                                               "against": None, "ratio": None,
                                               "na": na.get(f"{op}:{form}", "n/a: not measured")})
                        continue
                    sides: list[R.Side] = [WorkerSide(form, w, f"{op}:{form}")]
                    ref: R.Side | None = None
                    if against == "torch_eager":
                        if f"{op}:torch_eager" in have:
                            ref = WorkerSide("torch_eager", w, f"{op}:torch_eager")
                    elif against and server is not None:
                        ref = R.CppSide(against, server, (op, dname, 8, against.split("_", 1)[1]))
                    if ref is not None:
                        sides = [ref] + sides
                    if form == "out_s" and f"{op}:torch" in have:
                        sides.append(WorkerSide("torch_out", w, f"{op}:torch"))
                    items.append(((op, form, against), sides))
            if "alloc" in have:
                alloc: list[R.Side] = [WorkerSide("alloc", w, "alloc")]
                if server is not None:
                    alloc.insert(0, R.CppSide("cpp_alloc", server, (ops[0], dname, 8, "alloc")))
                items.append(((None, "alloc", "cpp_alloc"), alloc))
            else:
                out["results"].append({"op": None, "dtype": dname, "size": 8, "form": "alloc", "sides": {},
                                       "against": None, "ratio": None, "na": na.get("alloc", "n/a: not measured")})
            res = R.timed_rounds(items, rounds, target_ns)
            for (item_op, form, against), _ in items:
                r = res[item_op, form, against]
                row: FormRow = {"op": item_op, "dtype": dname, "size": 8, "form": form,
                                "sides": {k: _stats(v) for k, v in r.items()},
                                "rounds": {k: v["ns"] for k, v in r.items()},
                                "against": against if against in r else None, "ratio": None}
                if against is not None and against in r:
                    row["ratio"] = R._median(R.per_round(r[form]["ns"], r[against]["ns"]))
                elif against == "torch_eager":
                    row["na"] = na.get(f"{item_op}:torch_eager", "n/a: no PyTorch")
                elif against:
                    row["na"] = "n/a: no C++ loop"
                out["results"].append(row)
            out.setdefault("matches_numpy", {})[dname] = w.ask({"cmd": "check"})["matches"]
            w.ask({"cmd": "drop"})
    finally:
        _record(procs, w.label, w.close())
    return out


def first_calls(op: str, calls: int, nprocs: int, quiet: bool, procs: dict[str, WorkerMemory]) -> FirstCallsSection:
    """The first ``calls`` calls of FIRST_FORMS in fresh processes (the worker imports the
    package, opens device 0 and a stream, makes the 8-element float32 tensors; then its first
    call is timed), ``nprocs`` processes per form; the median over processes of their means."""
    out: FirstCallsSection = {"calls": calls, "processes": nprocs, "results": []}
    if calls <= 0 or nprocs <= 0:
        return out
    R._progress(quiet, f"first {calls} calls of a fresh process ...")
    for form in FIRST_FORMS:
        runs: list[dict[str, Any]] = []
        for i in range(nprocs):
            w = WorkerProc(f"first-{form}-{i}")
            try:
                w.ask({"cmd": "group", "dtype": "float32", "n": 8, "ops": [op], "forms": [form], "probe": False})
                runs.append(w.ask({"cmd": "first", "body": f"{op}:{form}", "calls": calls}))
            finally:
                _record(procs, w.label, w.close())
        out["results"].append({"op": op, "form": form, "runs": runs,
                               "mean_ns": R._median([r["mean_ns"] for r in runs]),
                               "steady_ns": R._median([r["steady_ns"] for r in runs]),
                               "first_call_ns": R._median([r["first_call_ns"] for r in runs])})
    return out


def rss_flat(op: str, calls: int, budget_s: float, quiet: bool, procs: dict[str, WorkerMemory]) -> RssSection:
    """VmRSS before and after ``calls`` calls of each of RSS_FORMS (8-element float32) in a
    worker that runs nothing else (no PyTorch: its resident size is the package's), the time
    budget shared by the forms (a form gets what the earlier ones left, split evenly)."""
    out: RssSection = {"op": op, "requested_calls": calls, "budget_s": budget_s, "results": []}
    if calls <= 0:
        return out
    R._progress(quiet, f"RSS over {calls} calls of each form ...")
    w = WorkerProc("rss")
    try:
        st0 = w.status()
        out["start"] = {"vmhwm_kib": st0["vmhwm_kib"], "vmrss_kib": st0["vmrss_kib"]}
        g = w.ask({"cmd": "group", "dtype": "float32", "n": 8, "ops": [op], "forms": list(RSS_FORMS)})
        left = budget_s
        for i, form in enumerate(RSS_FORMS):
            body = form if form == "alloc" else f"{op}:{form}"
            if body not in g["bodies"]:
                out["results"].append({"form": form, "calls": 0, "change_pct": None,
                                       "na": g["na"].get(body, "n/a: not measured")})
                continue
            r = w.ask({"cmd": "rss", "body": body, "calls": calls, "budget_s": left / (len(RSS_FORMS) - i)})
            left = max(0.0, left - r["seconds"])
            out["results"].append({"form": form, **r})
        out["memory_stats"] = w.status()["memory_stats"]
    finally:
        _record(procs, w.label, w.close())
    return out


def info_lines() -> list[str]:
    """The lines of ``python -m pyacl_hardgrad info`` about kernels and memory (what the
    installed build says of its kernel paths and allocator, where it says anything)."""
    try:
        p = subprocess.run([sys.executable, "-m", "pyacl_hardgrad", "info"], capture_output=True, text=True,
                           timeout=120, cwd="/", env=child_env())
    except (OSError, subprocess.TimeoutExpired):
        return []
    words = ("kernel", "isa", "avx", "neon", "scalar", "alloc", "cache", "memory", "thread")
    return [ln.rstrip() for ln in p.stdout.splitlines() if any(w in ln.lower() for w in words)]


# ---------------------------------------------------------------------------- the report

def _r(v: float | None, digits: int = 2) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def _measured(lines: list[str], section: Mapping[str, Any] | None, name: str) -> bool:
    """Whether a section is to be printed: absent (an older result) or n/a (said on one line) not."""
    if section is None:
        return False
    lines.append("")
    if section.get("na"):
        lines.append(f"{name}: {section['na']}")
        return False
    return True


def section_lines(result: Mapping[str, Any], markdown: bool = False) -> list[str]:
    """The report's lines for the sections measured in worker processes (empty for results
    that have none, e.g. saved by schema 1).  ``result``: a result as JSON gives it back, of
    any schema (a section or key may be missing)."""
    lines: list[str] = []
    sw: Any = result.get("sweep")
    if _measured(lines, sw, "sweep"):
        th = sw.get("threads") or {}
        where = ("in the same worker as ours" if "torch_worker" not in sw        # results saved before
                 else "in a worker process of its own" if sw["torch_worker"] else "not measured")
        settle = (f"; each batch answered once its worker's threads slept (at most {sw['settle_ms']:g} ms)"
                  if sw.get("settle_ms") else "")
        lines.append("sweep: ours = repeatable plan run(sync=True), call = one-call with out= and sync=True, "
                     f"torch = PyTorch with out= {where} (threads: ours {th.get('ours', '?')}, torch "
                     f"{th.get('torch', '?')}){settle}; ratios: medians of per-round ratios; "
                     "of copy = GB/s ours / GB/s of the faster copy; <path>/auto = forced path time / automatic")
        forced = sw.get("forced", [])
        cols = (["op", "dtype", "n", "ours", "call", "torch", "ours/torch", "call/torch", "GB/s", "copy GB/s",
                 "of copy"] + [f"{p}/auto" for p in forced] + ["fastest", "matches"])
        rows: list[list[object]] = []
        for r in sw["results"]:
            ra = r["ratios"]
            best_copy = min((c["median_ns"] for c in r["copy"].values()), default=None)
            ok = all(v for v in r["matches_numpy"].values() if v is not None)
            rows.append([r["op"], r["dtype"], R.size_label(r["size"]), R._us(r["ours"]["median_ns"]),
                         R._us(r["ours_call"]["median_ns"]), R._us((r["torch"] or {}).get("median_ns")),
                         _r(ra["ours_over_torch"]), _r(ra["call_over_torch"]), _r(r["gbps"]),
                         _r(R.gbps(2 * r["size"] * R.numpy_dtype(r["dtype"]).itemsize, best_copy)),
                         R._pct(ra["fraction_of_copy"])]
                        + [_r(ra["path_over_auto"].get(p)) for p in forced]
                        + [ra.get("fastest_path", "-"), "yes" if ok else "NO"])
        lines += R.format_table(cols, rows, markdown)
        paths = ", ".join(f"{p}: {'timed' if why is None else why}" for p, why in sw.get("paths", {}).items())
        lines.append(f"kernel paths: {paths}; automatic choice: {sw.get('auto_path') or 'not traced'}")
        for x in sw.get("skipped", []):
            lines.append(f"  skipped {x['what']} at {x['dtype']} {R.size_label(x['size'])}: {x['why']}")
    info = (result.get("kernel") or {}).get("info")
    if info:
        lines.append("info: " + " | ".join(ln.strip() for ln in info))
    pl: Any = result.get("placement")
    if _measured(lines, pl, "placement"):
        lines.append(f"placement at 8 elements, float32: the worker process on CPU {pl['one_cpu']} "
                     f"against CPUs {pl['two_cpus']} (one/two: median of per-round ratios)")
        rows = [[r["op"], r["side"], r["form"], R._us(r["two_cpus"]["median_ns"]), R._us(r["one_cpu"]["median_ns"]),
                 _r(r["ratio"])] for r in pl["results"]]
        lines += R.format_table(["op", "side", "form", "two CPUs", "one CPU", "one/two"], rows, markdown)
        if pl.get("cpp"):
            lines.append(f"  C++: {pl['cpp']}")
    fm: Any = result.get("forms")
    if _measured(lines, fm, "forms"):
        lines.append("forms at 8 elements (us per call; ratio = form / against, median of per-round ratios): "
                     "numpy = numpy in/out; noout = one-call without out= (sync=True); out_s = with out= and "
                     "sync=True; plan_s = repeatable plan run(sync=True); alloc = hg.empty((8,), dtype).close()")
        rows = []
        for r in fm["results"]:
            sd = r["sides"]
            form_ns = (sd.get(r["form"]) or {}).get("median_ns")
            ag = r.get("against")
            rows.append([r["op"] or "-", r["dtype"], r["form"], R._us(form_ns), ag or "-",
                         R._us((sd.get(ag) or {}).get("median_ns")) if ag else "-", _r(r["ratio"]),
                         R._us((sd.get("torch_out") or {}).get("median_ns")), r.get("na") or ""])
        lines += R.format_table(["op", "dtype", "form", "us", "against", "against us", "ratio", "torch out=",
                                 "n/a"], rows, markdown)
    fc = result.get("first_calls")
    if fc is not None:
        if fc.get("na"):
            lines.append(f"first calls: {fc['na']}")
        for r in fc.get("results", []):
            lines.append(f"first {fc['calls']} calls of a fresh process, {r['op']} {r['form']} 8 x float32: mean "
                         f"{R._us(r['mean_ns'])} us (first call {R._us(r['first_call_ns'])} us; then steady "
                         f"{R._us(r['steady_ns'])} us; median of {fc['processes']} processes)")
    rs = result.get("rss_flat")
    mem = result.get("memory")
    if rs is not None or mem is not None:
        lines.append("")
    if rs is not None:
        if rs.get("na"):
            lines.append(f"RSS: {rs['na']}")
        elif rs.get("results"):
            lines.append(f"RSS (VmRSS) over {rs['requested_calls']} calls of each form, {rs['op']} 8 x float32, in a "
                         f"worker that runs only these calls (budget {rs['budget_s']:.0f} s for all):")
            rows = [[r["form"], r.get("calls", 0), r.get("rss_before_kib", "-"), r.get("rss_after_kib", "-"),
                     "-" if r.get("change_pct") is None else f"{r['change_pct']:+.2f}%",
                     f"{r['seconds']:.1f}" if "seconds" in r else "-",
                     "fewer (budget)" if r.get("reduced") else (r.get("na") or "")] for r in rs["results"]]
            lines += R.format_table(["form", "calls", "KiB before", "KiB after", "change", "s", ""], rows,
                                    markdown, left=1)
            ms = rs.get("memory_stats")
            if ms is not None:
                lines.append(f"  memory_stats: {ms if isinstance(ms, str) else json.dumps(ms)}")
    if mem is not None:
        parts = [f"bench {mem['main'].get('vmhwm_kib')}"] + [f"{k} {v.get('vmhwm_kib')}"
                                                              for k, v in mem.get("workers", {}).items()]
        lines.append("peak RSS (VmHWM, KiB) per process: " + ", ".join(parts))
    return lines
