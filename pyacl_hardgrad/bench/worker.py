"""The benchmark's worker process: ``python -m pyacl_hardgrad.bench.worker``.

``python -m pyacl_hardgrad bench`` starts one worker per setting that must differ between
processes: a forced kernel path (``PYACL_HARDGRAD_KERNEL_ISA`` is read once per process), a CPU
placement (``os.sched_setaffinity`` before the runtime starts), a fresh process (the first
calls), a process that runs only small calls (its peak RSS), PyTorch apart from the process that
times our operators (the sweep: PyTorch's OpenMP threads keep spinning after a call).  The parent
writes one JSON object per line on stdin; the worker answers each with one JSON line on stdout:

  {"cmd": "hello"}                                  -> pid, CPUs it may run on, kernel threads,
                                                       whether torch is imported
  {"cmd": "group", "dtype", "n", "ops", "torch", "copy", "forms", "probe"}
                                                    -> {"bodies": [...], "na": {body: why}}
                                                       (probe, default true: each body is
                                                       called once; one that fails is in na),
                                                       "torch_threads"; a group of PyTorch forms
                                                       only makes none of our objects
  {"cmd": "cal", "body", "ns", "settle_ms"}         -> {"iters": k}: one batch of k lasts ~ns
  {"cmd": "time", "body", "k", "warm", "settle_ms"} -> {"ns": per call} of one batch of k
                                                       (after one untimed call if warm); with
                                                       settle_ms, the answer waits until no thread
                                                       of the worker runs (at most that long):
                                                       + "settle_ns", "settled"
  {"cmd": "first", "body", "calls", "block"}        -> the first calls of a body, timed
  {"cmd": "rss", "body", "calls", "budget_s"}       -> VmRSS before and after many calls
  {"cmd": "check"}                                  -> {"matches": {op: bool}} of the group
  {"cmd": "status"}                                 -> VmHWM, VmRSS, hg.memory_stats(), torch_loaded
  {"cmd": "drop"}  {"cmd": "quit"}

A group holds the inputs of one dtype and size and the loops ``body(k)`` over them (names
``<op>:<form>``, plus ``copy``, ``torch_copy`` and ``alloc``); forms are the ways a user calls an
operator (see FORMS).  Errors answer ``{"error": "..."}`` and the worker goes on.
"""
from __future__ import annotations

import gc
import json
import os
import sys
import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, Optional, TypedDict, Union

import numpy as np

from . import runner as R
from .runner import Array, Body

if TYPE_CHECKING:
    from ..device import Device
    from ..ops import Plan
    from ..stream import Stream
    from ..tensor import Tensor

# hg.memory_stats(): the allocator's counters, or why there are none ("n/a: ...").
MemoryStats = Union[dict[str, Any], str]


class FirstCalls(TypedDict):
    """The answer to ``first``: the first calls of a body, timed (see first_calls)."""
    calls: int
    mean_ns: float
    first_call_ns: float
    block: int
    block_means_ns: list[float]
    steady_ns: float


class RssOver(TypedDict):
    """The answer to ``rss``: VmRSS before and after many calls of a body (see rss_over)."""
    requested_calls: int
    calls: int
    reduced: bool
    warmup_calls: int
    seconds: float
    rss_before_kib: Optional[int]
    rss_after_kib: Optional[int]
    change_pct: Optional[float]
    memory_stats_before: MemoryStats
    memory_stats_after: MemoryStats

# The call forms a group can hold per operator: what each body runs per iteration.
FORMS = {
    "plan_s": "plan.run(None, s, sync=True) of a repeatable plan",
    "plan_sy": "plan.run(None, s) + s.synchronize()",
    "out_s": "fn(*inputs, out=o, stream=s, sync=True)",
    "out_sy": "fn(*inputs, out=o, stream=s) + s.synchronize()",
    "noout": "fn(*inputs, stream=s, sync=True): the output allocated per call and dropped",
    "numpy": "fn(*numpy arrays): numpy in, numpy out",
    "torch": "torch_body(torch, tg, tx, to): the PyTorch call with out= (matched threads)",
    "torch_eager": "torch_body_noout(torch, tg, tx): the PyTorch call without out=",
}
# The forms that run PyTorch alone (a group of only these makes none of our objects).
TORCH_FORMS = ("torch", "torch_eager")
# Bodies a group may hold that are not per operator.
SHARED = {
    "copy": "np.copyto(dst, g): a copy of one array of the size and dtype",
    "torch_copy": "to.copy_(tg): PyTorch's copy (matched threads)",
    "alloc": "hg.empty((n,), dtype, device).close(): allocate and free a tensor",
}


class Group:
    """The inputs of one dtype and size in this process and the bodies over them."""

    def __init__(self, w: "Worker", dtype: str, n: int, ops: Iterable[str], forms: Collection[str], want_torch: bool,
                 want_copy: bool, probe: bool = True) -> None:
        hg = w.hg
        self.ops, self.dtype, self.n = list(ops), dtype, n
        self.bodies: dict[str, Body] = {}
        self.na: dict[str, str] = {}
        self.closers: list[Tensor | Plan] = []      # closed in reverse order by close()
        self.outs: dict[str, Tensor] = {}
        dt = R.numpy_dtype(dtype)
        g, x = R._make_inputs(n, dt)
        # a sample of the inputs is kept for the result check: the operators are elementwise
        self.stride = max(1, n // (1 << 20))
        self.gs, self.xs = g[::self.stride].copy(), x[::self.stride].copy()
        dev, s = w.device, w.stream
        # a group of PyTorch forms only (the sweep's PyTorch worker) makes none of our objects
        ours = any(f not in TORCH_FORMS and f not in SHARED for f in forms)
        if ours:
            tg, tx = hg.from_numpy(g, dev), hg.from_numpy(x, dev)
            self.closers += [tx, tg]
        torch = w.torch() if want_torch else None
        if want_torch and torch is None:
            why = f"n/a: PyTorch is not importable ({w.torch_error})"
            self.na.update({f"{op}:torch": why for op in self.ops})
            self.na.update({f"{op}:torch_eager": why for op in self.ops})
            self.na["torch_copy"] = why
        if torch is not None:
            th, thx = _torch_view(torch, g), _torch_view(torch, x)
            tout = torch.empty_like(th)
        # the host inputs stay only where a body uses them (torch shares their memory)
        self.host: tuple[Array, Array] | None = (g, x) if torch is not None or "numpy" in forms else None
        del g, x
        for op in self.ops:
            made: dict[str, Body] = {}
            if ours:
                o = hg.empty((n,), dtype, dev)
                self.closers.append(o)
                self.outs[op] = o
                fresh, fresh_sync, plan = R._python_op_bodies(hg, op, tg, tx, o, s)
                self.closers.append(plan)
                plan_sy, plan_s, _ = R._plan_bodies(plan, s)
                spec = R.op_spec(op)
                fn = spec.function
                targs = R.call_args(op, (tg, tx))
                made = {"plan_s": plan_s, "plan_sy": plan_sy, "out_s": fresh_sync, "out_sy": fresh,
                        "noout": _noout_body(fn, targs, s)}
                if "numpy" in forms and self.host is not None:
                    made["numpy"] = _numpy_body(fn, R.call_args(op, self.host))
            if torch is not None:
                made["torch"] = R.BENCH[op].torch_body(torch, th, thx, tout)
                eager = getattr(R.BENCH[op], "torch_body_noout", None)
                if eager is None:
                    self.na[f"{op}:torch_eager"] = f"n/a: {op}'s bench.py has no torch_body_noout"
                else:
                    made["torch_eager"] = eager(torch, th, thx)
            for form in forms:
                if form in SHARED:
                    continue
                if form in made:
                    self.bodies[f"{op}:{form}"] = made[form]
                elif f"{op}:{form}" not in self.na:
                    self.na[f"{op}:{form}"] = ("n/a: PyTorch not requested" if form.startswith("torch")
                                               and not want_torch else f"n/a: no form {form!r}")
        if want_copy:
            src = R._make_inputs(n, dt)[0]
            dst = np.empty_like(src)
            self.bodies["copy"] = R._copy_body(dst, src)
            if torch is not None:
                tsrc, tdst = _torch_view(torch, src), _torch_view(torch, dst)
                self.bodies["torch_copy"] = _torch_copy_body(tdst, tsrc)
        if "alloc" in forms:
            empty = hg.empty

            def alloc(k: int) -> None:
                for _ in range(k):
                    empty((n,), dtype, dev).close()
            self.bodies["alloc"] = alloc
        if probe:
            # every body runs once before anyone times it; one that fails is reported, not timed
            for name in list(self.bodies):
                try:
                    self.bodies[name](1)
                except Exception as exc:
                    del self.bodies[name]
                    self.na[name] = f"n/a: {type(exc).__name__}: {exc}"
            w.stream.synchronize()

    def check(self) -> dict[str, bool]:
        out: dict[str, bool] = {}
        for op, o in self.outs.items():
            ours = np.ascontiguousarray(o.numpy()[::self.stride])
            out[op] = R._check_result(op, ours, R.numpy_op(op, self.gs, self.xs))
        return out

    def close(self, stream: Stream) -> None:
        stream.synchronize()
        for c in reversed(self.closers):
            c.close()
        self.bodies.clear()


# torch: the torch module, imported only where a group asks for PyTorch (its objects are Any here)
def _torch_view(torch: ModuleType, a: Array) -> Any:
    """A torch tensor sharing the memory of a host array (bfloat16 through its bits)."""
    if a.dtype == R.numpy_dtype("bfloat16"):
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)


def _torch_copy_body(dst: Any, src: Any) -> Body:
    """The loop of PyTorch's copy of one tensor into another (``dst.copy_(src)``)."""
    def torch_copy(k: int) -> None:
        for _ in range(k):
            dst.copy_(src)
    return torch_copy


def _noout_body(fn: Callable[..., object], targs: Sequence[object], s: Stream) -> Body:
    def noout(k: int) -> None:
        for _ in range(k):
            fn(*targs, stream=s, sync=True)
    return noout


def _numpy_body(fn: Callable[..., object], nargs: Sequence[object]) -> Body:
    def numpy_io(k: int) -> None:
        for _ in range(k):
            fn(*nargs)
    return numpy_io


def memory_stats(hg: ModuleType) -> MemoryStats:
    """hg.memory_stats() where it exists (a caching allocator's counters), else why not."""
    f = getattr(hg, "memory_stats", None)
    if f is None:
        return "n/a: pyacl_hardgrad has no memory_stats()"
    try:
        v: dict[str, Any] = f()
        json.dumps(v)
        return v
    except Exception as exc:             # a newer or older API: say what it answered
        return f"n/a: memory_stats() raised {type(exc).__name__}: {exc}"


class Worker:
    """The worker's state: device 0, a stream, the current group, PyTorch once asked for."""

    def __init__(self) -> None:
        import pyacl_hardgrad as hg
        self.hg: ModuleType = hg
        self.device: Device = hg.Device(0)
        self.stream: Stream = self.device.create_stream()
        self.group: Group | None = None
        self._torch: ModuleType | None = None
        self.torch_error: str | None = None

    def torch(self) -> ModuleType | None:
        if self._torch is None and self.torch_error is None:
            try:
                import torch
                torch.set_num_threads(R.our_kernel_threads())
                self._torch = torch
            except ImportError as exc:
                self.torch_error = str(exc)
        return self._torch

    def body(self, name: str) -> Body:
        if self.group is None or name not in self.group.bodies:
            raise KeyError(f"no body {name!r} in this worker")
        return self.group.bodies[name]

    def handle(self, req: Mapping[str, Any]) -> Mapping[str, object]:
        cmd = req["cmd"]
        if cmd == "hello":
            aff = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
            return {"pid": os.getpid(), "affinity": aff, "isa_env": os.environ.get("PYACL_HARDGRAD_KERNEL_ISA"),
                    "threads": R.our_kernel_threads(), "torch_loaded": "torch" in sys.modules}
        if cmd == "group":
            self.drop()
            self.group = Group(self, req["dtype"], int(req["n"]), req["ops"], req.get("forms", ["plan_s"]),
                               bool(req.get("torch")), bool(req.get("copy")), bool(req.get("probe", True)))
            return {"bodies": sorted(self.group.bodies), "na": self.group.na,
                    "torch_threads": self._torch.get_num_threads() if self._torch is not None else None}
        if cmd == "cal":
            ans: dict[str, object] = {"iters": R._calibrate(self.body(req["body"]), float(req["ns"]))}
            if req.get("settle_ms"):
                ans["settle_ns"], ans["settled"] = settle(float(req["settle_ms"]))
            return ans
        if cmd == "time":
            body, k = self.body(req["body"]), int(req["k"])
            if req.get("warm", True):
                body(1)
            t0 = time.perf_counter_ns()
            body(k)
            ans = {"ns": (time.perf_counter_ns() - t0) / k}
            if req.get("settle_ms"):
                ans["settle_ns"], ans["settled"] = settle(float(req["settle_ms"]))
            return ans
        if cmd == "first":
            return first_calls(self.body(req["body"]), int(req["calls"]), int(req.get("block", 500)))
        if cmd == "rss":
            return rss_over(self.body(req["body"]), int(req["calls"]), float(req["budget_s"]), self.hg)
        if cmd == "check":
            return {"matches": self.group.check() if self.group else {}}
        if cmd == "status":
            st = R.proc_status_kib()
            return {"vmhwm_kib": st.get("VmHWM"), "vmrss_kib": st.get("VmRSS"), "memory_stats": memory_stats(self.hg),
                    "torch_loaded": "torch" in sys.modules}
        if cmd == "drop":
            self.drop()
            return {}
        raise ValueError(f"unknown command {cmd!r}")

    def drop(self) -> None:
        if self.group is not None:
            g, self.group = self.group, None
            g.close(self.stream)
            del g
            gc.collect()

    def close(self) -> None:
        self.drop()
        self.stream.close()
        self.device.close()


def settle(max_ms: float, slot_ms: float = 1.0, busy: float = 0.25, cpu: Callable[[], float] = time.process_time,
           wall: Callable[[], int] = time.perf_counter_ns,
           sleep: Callable[[float], None] = time.sleep) -> tuple[float, bool]:
    """Wait until no thread of this process uses the CPU any more, at most ``max_ms``: sleep in
    slots of ``slot_ms`` and stop after the first slot in which the process's CPU time (every
    thread's) grew by less than ``busy`` of the slot.  PyTorch's OpenMP threads spin for a few
    milliseconds after a parallel region before they sleep; a worker that answers only after
    this pause has none of its threads running while the next worker times its batch.
    Returns (ns waited, whether the process went quiet)."""
    t0 = wall()
    while (wall() - t0) < max_ms * 1e6:
        c0, w0 = cpu(), wall()
        sleep(slot_ms / 1e3)
        if (cpu() - c0) * 1e9 < busy * max(wall() - w0, 1):
            return wall() - t0, True
    return wall() - t0, False


def first_calls(body: Body, calls: int, block: int) -> FirstCalls:
    """The first ``calls`` calls of a body nobody has called yet: their mean, the very first
    call, the mean of each block of ``block`` calls, then a steady batch of as many calls."""
    t0 = time.perf_counter_ns()
    body(1)
    first = time.perf_counter_ns() - t0
    blocks: list[float] = []
    done, total = 1, first
    while done < calls:
        k = min(block, calls - done)
        t0 = time.perf_counter_ns()
        body(k)
        el = time.perf_counter_ns() - t0
        blocks.append(el / k)
        total += el
        done += k
    t0 = time.perf_counter_ns()
    body(calls)
    steady = (time.perf_counter_ns() - t0) / calls
    return {"calls": calls, "mean_ns": total / calls, "first_call_ns": first, "block": block,
            "block_means_ns": blocks, "steady_ns": steady}


def rss_over(body: Body, calls: int, budget_s: float, hg: ModuleType) -> RssOver:
    """VmRSS before and after ``calls`` calls of a body (after a warm-up of up to 2000 calls);
    fewer calls if they would take longer than ``budget_s``."""
    warm = min(2000, max(calls // 10, 1))
    t0 = time.perf_counter()
    body(warm)
    per_call = (time.perf_counter() - t0) / warm
    n = calls
    if per_call * calls > budget_s:
        n = max(min(calls, 1000), int(budget_s / max(per_call, 1e-9)))
    gc.collect()
    before, stats_before = R.proc_status_kib().get("VmRSS"), memory_stats(hg)
    t0 = time.perf_counter()
    body(n)
    elapsed = time.perf_counter() - t0
    gc.collect()
    after, stats_after = R.proc_status_kib().get("VmRSS"), memory_stats(hg)
    return {"requested_calls": calls, "calls": n, "reduced": n != calls, "warmup_calls": warm, "seconds": elapsed,
            "rss_before_kib": before, "rss_after_kib": after,
            "change_pct": 100.0 * (after - before) / before if before and after is not None else None,
            "memory_stats_before": stats_before, "memory_stats_after": stats_after}


def main() -> int:
    # answers go to the real stdout only; anything else printed goes to stderr
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    try:
        w = Worker()
        out.write(json.dumps({"ready": True}) + "\n")
    except Exception as exc:
        out.write(json.dumps({"error": f"worker start: {type(exc).__name__}: {exc}"}) + "\n")
        return 1
    for line in sys.stdin:
        if not line.strip():
            continue
        ans: Mapping[str, object]
        try:
            req = json.loads(line)
            if req.get("cmd") == "quit":
                break
            ans = w.handle(req)
        except Exception as exc:
            ans = {"error": f"{type(exc).__name__}: {exc}"}
        out.write(json.dumps(ans) + "\n")
    w.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
