"""``python -m pyacl_hardgrad.bench.collectives``: all-reduce of ``hg.hccl`` against its peers.

Two measurements, both timed in interleaved rounds (``runner.timed_rounds``: every side of a size
calibrated to the same batch time, then one batch of each side back to back per round, the order
alternating; a ratio is the median of the per-round ratios):

* **Across 2 processes of one host**: float32 all-reduce (sum) of 1 KiB .. 64 MiB, ours
  (``Communicator.all_reduce`` + the stream's synchronize, out of place) against PyTorch's
  ``torch.distributed`` with the gloo backend (``dist.all_reduce``, in place, synchronous).  Each
  side is a pair of persistent rank processes (spawned once) that run a batch on command; a
  batch's time is the slower rank's.
* **Across 2 virtual devices of one process**: a 64 MiB all-reduce (one thread per rank) against
  this machine's memory copy (``np.copyto`` of 64 MiB), as bandwidth (bytes of the buffer per
  second: HCCL's algorithm bandwidth).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, Optional, Sequence, TypedDict

from .runner import _median, per_round, timed_rounds

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

__all__ = ["main", "run", "format_report", "DEFAULT_SIZES"]

DEFAULT_SIZES = [1024 * 4**i for i in range(9)]        # 1 KiB .. 64 MiB, in bytes
INPROC_BYTES = 64 << 20


def _label(nbytes: int) -> str:
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if nbytes >= 1 << shift and nbytes % (1 << shift) == 0:
            return f"{nbytes >> shift} {unit}"
    return f"{nbytes} B"


def _parse_size(text: str) -> int:
    t = text.strip().upper().removesuffix("IB").removesuffix("B")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(t[-1:], 1)
    return int(t[:-1] if mult > 1 else t) * mult


# -- rank processes (spawned) --------------------------------------------------------------------
def _serve(conn: Connection, setup: Any, run_batch: Any) -> None:
    """A rank's command loop: ("setup", nbytes) -> ok, ("run", nbytes, k) -> ns, ("stop",)."""
    while True:
        cmd = conn.recv()
        if cmd[0] == "stop":
            conn.send("stopped")
            return
        try:
            if cmd[0] == "setup":
                conn.send(setup(cmd[1]))
            else:
                conn.send(run_batch(cmd[1], cmd[2]))
        except BaseException as exc:      # the parent reports it and stops the run
            conn.send(f"error: {exc!r}")


def _ours_rank(rank: int, n: int, conn: Connection, infos: Any) -> None:
    import numpy as np

    import pyacl_hardgrad as hg

    if rank == 0:
        info = hg.hccl.get_root_info()
        for _ in range(n - 1):
            infos.put(info)
    else:
        info = infos.get(timeout=120)
    dev = hg.Device(0)
    comm = hg.hccl.Communicator(info, rank, n, device=dev)
    stream = dev.create_stream()
    bufs: dict[int, tuple[Any, Any]] = {}

    def setup(nbytes: int) -> bool:
        x = hg.Tensor(np.full(nbytes // 4, rank + 1, np.float32), dev)
        y = hg.empty(nbytes // 4, "float32", dev)
        comm.all_reduce(x, y, stream=stream)
        stream.synchronize()
        bufs[nbytes] = (x, y)
        return bool(np.all(y.numpy() == n * (n + 1) / 2))

    def run_batch(nbytes: int, k: int) -> int:
        x, y = bufs[nbytes]
        t0 = time.perf_counter_ns()
        for _ in range(k):
            comm.all_reduce(x, y, stream=stream)
            stream.synchronize()
        return time.perf_counter_ns() - t0

    _serve(conn, setup, run_batch)
    for x, y in bufs.values():
        x.close()
        y.close()
    comm.close()
    stream.close()
    dev.close()


def _gloo_rank(rank: int, n: int, conn: Connection, port: int) -> None:
    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=n)
    bufs: dict[int, Any] = {}

    def setup(nbytes: int) -> bool:
        t = torch.full((nbytes // 4,), float(rank + 1))
        dist.all_reduce(t)
        ok = bool(torch.all(t == n * (n + 1) / 2))
        bufs[nbytes] = torch.zeros(nbytes // 4)        # zeros stay zeros over in-place sums
        return ok

    def run_batch(nbytes: int, k: int) -> int:
        t = bufs[nbytes]
        t0 = time.perf_counter_ns()
        for _ in range(k):
            dist.all_reduce(t)
        return time.perf_counter_ns() - t0

    _serve(conn, setup, run_batch)
    dist.destroy_process_group()


class _RankPair:
    """One side: its rank processes and the parent's ends of their pipes."""

    def __init__(self, label: str, target: Any, extra: Any, n: int = 2) -> None:
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        self.label = label
        self.conns: list[Connection] = []
        self.procs = []
        if extra == "queue":
            extra = ctx.Queue()
        self.extra = extra          # kept: the children unpickle the queue's semaphore after this returns
        for r in range(n):
            a, b = ctx.Pipe()
            p = ctx.Process(target=target, args=(r, n, b, extra), daemon=True)
            p.start()
            self.conns.append(a)
            self.procs.append(p)

    def ask(self, cmd: tuple[Any, ...], timeout: float = 300) -> list[Any]:
        for c in self.conns:
            c.send(cmd)
        out = []
        for c in self.conns:
            if not c.poll(timeout):
                raise TimeoutError(f"{self.label}: no answer to {cmd[0]} in {timeout} s")
            v = c.recv()
            if isinstance(v, str) and v.startswith("error"):
                raise RuntimeError(f"{self.label}: {v}")
            out.append(v)
        return out

    def stop(self) -> None:
        for c in self.conns:
            try:
                c.send(("stop",))
            except OSError:
                pass
        for p in self.procs:
            p.join(timeout=30)
            if p.is_alive():
                p.kill()


class _PairSide:
    """A side of timed_rounds: ``k`` all-reduces of ``nbytes`` on both ranks of a pair."""

    def __init__(self, pair: _RankPair, nbytes: int) -> None:
        self.label = pair.label
        self.pair = pair
        self.nbytes = nbytes

    def _run(self, k: int) -> float:
        return float(max(self.pair.ask(("run", self.nbytes, k)))) / k

    def calibrate(self, ns: float) -> int:
        self._run(1)
        return max(1, int(ns / max(self._run(1), 1.0)))

    def batch(self, k: int, warm: bool) -> float:
        if warm:
            self._run(1)
        return self._run(k)


class SizeResult(TypedDict):
    nbytes: int
    ours_us: float
    gloo_us: float
    ours_gbps: float
    gloo_gbps: float
    x_gloo: float                # median per-round gloo time / ours (> 1: ours faster)
    iters: dict[str, int]
    rounds_us: dict[str, list[float]]


class InprocResult(TypedDict):
    nbytes: int
    all_reduce_us: float
    memcpy_us: float
    all_reduce_gbps: float
    memcpy_gbps: float
    of_memcpy: float             # median per-round all-reduce bandwidth / memcpy bandwidth


class Report(TypedDict):
    machine: dict[str, Any]
    settings: dict[str, Any]
    processes: list[SizeResult]
    inproc: Optional[InprocResult]
    inproc_error: Optional[str]
    seconds: float


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _cpu_model() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _processes(sizes: Sequence[int], rounds: int, batch_ms: float) -> list[SizeResult]:
    ours = _RankPair("ours", _ours_rank, "queue")
    gloo = _RankPair("gloo", _gloo_rank, _free_port())
    try:
        for nbytes in sizes:
            for pair in (ours, gloo):
                if not all(pair.ask(("setup", nbytes))):
                    raise RuntimeError(f"{pair.label}: the {_label(nbytes)} all-reduce gave a wrong sum")
        items = [(nbytes, [_PairSide(ours, nbytes), _PairSide(gloo, nbytes)]) for nbytes in sizes]
        times = timed_rounds(items, rounds, batch_ms * 1e6 * rounds)
    finally:
        ours.stop()
        gloo.stop()
    out: list[SizeResult] = []
    for nbytes in sizes:
        o, g = times[nbytes]["ours"], times[nbytes]["gloo"]
        om, gm = _median(o["ns"]), _median(g["ns"])
        out.append({"nbytes": nbytes, "ours_us": om / 1e3, "gloo_us": gm / 1e3,
                    "ours_gbps": nbytes / om, "gloo_gbps": nbytes / gm,
                    "x_gloo": _median(per_round(g["ns"], o["ns"])),
                    "iters": {"ours": o["iters"], "gloo": g["iters"]},
                    "rounds_us": {"ours": [v / 1e3 for v in o["ns"]], "gloo": [v / 1e3 for v in g["ns"]]}})
    return out


# -- one process, two virtual devices (run in a worker with PYACL_HARDGRAD_DEVICE_COUNT=2) -------
def _inproc_worker(nbytes: int, rounds: int, batch_ms: float) -> InprocResult:
    import numpy as np

    import pyacl_hardgrad as hg

    comms = hg.hccl.Communicator.init_all([0, 1])
    streams = [c.device.create_stream() for c in comms]
    xs = [hg.Tensor(np.full(nbytes // 4, c.rank + 1, np.float32), c.device) for c in comms]
    ys = [hg.empty(nbytes // 4, "float32", c.device) for c in comms]
    src = np.ones(nbytes // 4, np.float32)
    dst = np.empty_like(src)
    go = [threading.Semaphore(0) for _ in comms]
    done = threading.Semaphore(0)
    job: list[int] = [0]
    spent = [0, 0]

    def rank_main(i: int) -> None:
        while True:
            go[i].acquire()
            k = job[0]
            if k < 0:
                return
            t0 = time.perf_counter_ns()
            for _ in range(k):
                comms[i].all_reduce(xs[i], ys[i], stream=streams[i])
                streams[i].synchronize()
            spent[i] = time.perf_counter_ns() - t0
            done.release()

    threads = [threading.Thread(target=rank_main, args=(i,), daemon=True) for i in range(2)]
    for t in threads:
        t.start()

    class AllReduce:
        label = "all_reduce"

        def _run(self, k: int) -> float:
            job[0] = k
            for g in go:
                g.release()
            for _ in go:
                done.acquire()
            return max(spent) / k

        def calibrate(self, ns: float) -> int:
            self._run(1)
            return max(1, int(ns / max(self._run(1), 1.0)))

        def batch(self, k: int, warm: bool) -> float:
            if warm:
                self._run(1)
            return self._run(k)

    class Memcpy:
        label = "memcpy"

        def _run(self, k: int) -> float:
            t0 = time.perf_counter_ns()
            for _ in range(k):
                np.copyto(dst, src)
            return (time.perf_counter_ns() - t0) / k

        def calibrate(self, ns: float) -> int:
            self._run(1)
            return max(1, int(ns / max(self._run(1), 1.0)))

        def batch(self, k: int, warm: bool) -> float:
            if warm:
                self._run(1)
            return self._run(k)

    try:
        AllReduce()._run(1)
        if not all(c.device.make_current() and np.all(y.numpy() == 3) for c, y in zip(comms, ys)):
            raise RuntimeError("the in-process all-reduce gave a wrong sum")
        times = timed_rounds([("64M", [AllReduce(), Memcpy()])], rounds, batch_ms * 1e6 * rounds)["64M"]
    finally:
        job[0] = -1
        for g in go:
            g.release()
        for t in threads:
            t.join()
    a, m = times["all_reduce"]["ns"], times["memcpy"]["ns"]
    for obj in (*xs, *ys, *streams, *comms):
        obj.close()
    return {"nbytes": nbytes, "all_reduce_us": _median(a) / 1e3, "memcpy_us": _median(m) / 1e3,
            "all_reduce_gbps": nbytes / _median(a), "memcpy_gbps": nbytes / _median(m),
            "of_memcpy": _median(per_round(m, a))}


def _inproc(rounds: int, batch_ms: float) -> InprocResult:
    env = dict(os.environ, PYACL_HARDGRAD_DEVICE_COUNT="2")
    pkg_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.pathsep.join([pkg_parent, *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]])
    proc = subprocess.run([sys.executable, "-m", "pyacl_hardgrad.bench.collectives", "--inproc-worker",
                           "--rounds", str(rounds), "--batch-ms", str(batch_ms)],
                          capture_output=True, text=True, env=env, cwd="/", timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"the in-process worker failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    result: InprocResult = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def run(sizes: Sequence[int] = DEFAULT_SIZES, rounds: int = 7, batch_ms: float = 20.0,
        processes: bool = True, inproc: bool = True) -> Report:
    """Both measurements; see the module's docstring."""
    t0 = time.monotonic()
    report: Report = {
        "machine": {"cpu": _cpu_model(), "cpus": os.cpu_count(), "python": platform.python_version(),
                    "loadavg_start": list(os.getloadavg())},
        "settings": {"sizes": list(sizes), "rounds": rounds, "batch_ms": batch_ms},
        "processes": [], "inproc": None, "inproc_error": None, "seconds": 0.0}
    if processes and sizes:
        report["processes"] = _processes(sizes, rounds, batch_ms)
    if inproc:
        try:
            report["inproc"] = _inproc(rounds, batch_ms)
        except Exception as exc:
            report["inproc_error"] = str(exc)
    report["machine"]["loadavg_end"] = list(os.getloadavg())
    report["seconds"] = time.monotonic() - t0
    return report


def format_report(report: Report) -> str:
    m = report["machine"]
    lines = [f"machine: {m['cpu']}, {m['cpus']} CPUs, Python {m['python']}, load {m['loadavg_start'][0]:.2f} -> "
             f"{m['loadavg_end'][0]:.2f}; {report['settings']['rounds']} rounds, "
             f"{report['settings']['batch_ms']:g} ms batches; {report['seconds']:.0f} s", ""]
    if report["processes"]:
        lines += ["float32 all-reduce (sum), 2 processes of one host: hg.hccl vs torch.distributed gloo", "",
                  "| size | ours us | gloo us | ours GB/s | gloo GB/s | x gloo |",
                  "|---|---:|---:|---:|---:|---:|"]
        for r in report["processes"]:
            lines.append(f"| {_label(r['nbytes'])} | {r['ours_us']:.1f} | {r['gloo_us']:.1f} | {r['ours_gbps']:.3g} | "
                         f"{r['gloo_gbps']:.3g} | {r['x_gloo']:.2f} |")
        lines.append("")
    ip = report["inproc"]
    if ip is not None:
        lines += ["2 virtual devices of one process, 64 MiB float32 all-reduce vs memcpy (np.copyto) of 64 MiB", "",
                  "| | us | GB/s |", "|---|---:|---:|",
                  f"| all-reduce | {ip['all_reduce_us']:.0f} | {ip['all_reduce_gbps']:.2f} |",
                  f"| memcpy | {ip['memcpy_us']:.0f} | {ip['memcpy_gbps']:.2f} |",
                  "", f"all-reduce bandwidth / memcpy bandwidth (median per round): {ip['of_memcpy']:.2f}"]
    elif report["inproc_error"]:
        lines.append(f"in-process: n/a: {report['inproc_error']}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m pyacl_hardgrad.bench.collectives",
                                 description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--sizes", default="1K..64M",
                    help="bytes per rank: A..B (powers of 4 from A), a comma list (1K,1M), or none")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--batch-ms", type=float, default=20.0, help="time of one batch of each side")
    ap.add_argument("--no-inproc", action="store_true", help="skip the two virtual devices of one process")
    ap.add_argument("--json", metavar="PATH")
    ap.add_argument("--inproc-worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.inproc_worker:
        print(json.dumps(_inproc_worker(INPROC_BYTES, args.rounds, args.batch_ms)))
        return 0
    if args.sizes == "none":
        sizes: list[int] = []
    elif ".." in args.sizes:
        lo, hi = (_parse_size(t) for t in args.sizes.split(".."))
        sizes = [s for s in DEFAULT_SIZES if lo <= s <= hi] or [lo]
    else:
        sizes = [_parse_size(t) for t in args.sizes.split(",") if t.strip()]
    report = run(sizes, args.rounds, args.batch_ms, processes=bool(sizes), inproc=not args.no_inproc)
    print(format_report(report))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
