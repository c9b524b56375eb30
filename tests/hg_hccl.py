"""Shared by the hg.hccl tests: each rank's input and a numpy model of every collective.

The model states what the collectives compute: reductions in rank order (rank 0 op rank 1 op ...),
float16 and bfloat16 accumulated in float32 and rounded once at the end, integers wrapping in
their own width.  The same inputs are made in the worker processes and in the test, so a test
compares against values it computed itself.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

TESTS_DIR = Path(__file__).resolve().parent

DTYPES = ("float32", "float16", "bfloat16", "int32", "int8")
OPS = ("sum", "prod", "max", "min")
_NUMPY_OPS = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}


def np_dtype(name: str) -> np.dtype[Any]:
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def rank_input(rank: int, n: int, dtype: str, op: str = "sum", salt: int = 0) -> np.ndarray:
    """Rank ``rank``'s input of ``n`` elements: values whose reductions stay finite (products of
    up to 4 ranks in [0.5, 2) for floats; integers wrap by design) and that differ by rank."""
    rng = np.random.default_rng([rank, n, salt, DTYPES.index(dtype) if dtype in DTYPES else 99])
    dt = np_dtype(dtype)
    if dt.kind == "f" or dtype == "bfloat16":
        if op == "prod":
            v = rng.uniform(0.5, 2.0, n)
        else:
            v = rng.uniform(-100.0, 100.0, n)
        return v.astype(np.float32).astype(dt)
    info = np.iinfo(dt)
    lo, hi = (-7, 8) if op == "prod" else (info.min, info.max)
    return rng.integers(lo, hi, n, endpoint=True).astype(dt)


def reduce(arrays: list[np.ndarray], op: str) -> np.ndarray:
    """The reduction in rank order, as the collectives define it."""
    dt = arrays[0].dtype
    f = _NUMPY_OPS[op]
    if dt.kind == "f" and dt.itemsize < 4 or dt == np.dtype(ml_dtypes.bfloat16):
        acc = arrays[0].astype(np.float32)
        for a in arrays[1:]:
            acc = f(acc, a.astype(np.float32))
        return acc.astype(dt)              # rounded once
    acc = arrays[0].copy()
    with np.errstate(over="ignore"):
        for a in arrays[1:]:
            acc = f(acc, a).astype(dt)     # wraps in its own width
    return acc


def bits(a: np.ndarray) -> np.ndarray:
    """The array's bit patterns (bit-exact comparison, NaN-safe)."""
    return np.ascontiguousarray(a).view(np.dtype(f"u{a.dtype.itemsize}"))


def run_python(code: str, devices: int = 4, timeout: float = 240, extra_env: dict[str, str] | None = None
               ) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter with ``devices`` virtual devices (tests/ on sys.path)."""
    env = dict(os.environ, PYACL_HARDGRAD_DEVICE_COUNT=str(devices), PYTHONPATH=os.pathsep.join(
        [str(TESTS_DIR)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    env.update(extra_env or {})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=timeout, cwd=tempfile.gettempdir())   # not the checkout: the installed package


# -- the collectives of one process: one thread per device ----------------------------------------
N_BLOCK = 13            # elements of one rank's block: sizes are multiples of the rank count
REDUCING = ("all_reduce", "reduce_scatter", "reduce")
MOVING = ("broadcast", "all_gather", "scatter", "all_to_all", "send_recv")
ROOT = {"broadcast": 1, "scatter": 2, "reduce": 3}


def case_key(kind: str, dtype: str, op: str, rank: int) -> str:
    return f"{kind}|{dtype}|{op}|{rank}"


def run_rank(comm: Any, out: dict[str, np.ndarray]) -> None:
    """Every collective x dtype (x op for the reductions) on this rank; results into ``out``."""
    import pyacl_hardgrad as hg

    r, n = comm.rank, comm.size
    dev = comm.device
    count = n * N_BLOCK
    for dtype in DTYPES:
        for op in OPS:
            x = hg.Tensor(rank_input(r, count, dtype, op), dev)
            out[case_key("all_reduce", dtype, op, r)] = comm.all_reduce(x, op=op).numpy()
            out[case_key("reduce_scatter", dtype, op, r)] = comm.reduce_scatter(x, op=op).numpy()
            red = hg.Tensor(np.zeros(count, np_dtype(dtype)), dev)
            comm.reduce(x, red, op=op, root=ROOT["reduce"])
            out[case_key("reduce", dtype, op, r)] = red.numpy()
        x = hg.Tensor(rank_input(r, count, dtype), dev)
        b = hg.Tensor(rank_input(r, count, dtype), dev)
        out[case_key("broadcast", dtype, "", r)] = comm.broadcast(b, root=ROOT["broadcast"]).numpy()
        out[case_key("all_gather", dtype, "", r)] = comm.all_gather(x).numpy()
        send = x if r == ROOT["scatter"] else None
        got = hg.Tensor(np.zeros(N_BLOCK, np_dtype(dtype)), dev)
        out[case_key("scatter", dtype, "", r)] = comm.scatter(send, got, root=ROOT["scatter"]).numpy()
        out[case_key("all_to_all", dtype, "", r)] = comm.all_to_all(x).numpy()
        into = hg.Tensor(np.zeros(count, np_dtype(dtype)), dev)
        if r % 2 == 0:          # even ranks send first, odd ranks receive first: no cycle of waits
            comm.send(x, (r + 1) % n)
            comm.recv(into, (r - 1) % n)
        else:
            comm.recv(into, (r - 1) % n)
            comm.send(x, (r + 1) % n)
        out[case_key("send_recv", dtype, "", r)] = into.numpy()


def expected(kind: str, dtype: str, op: str, rank: int, n: int) -> np.ndarray:
    """What ``run_rank`` must find on ``rank`` of ``n`` for one case, from the model."""
    count = n * N_BLOCK
    if kind in REDUCING:
        inputs = [rank_input(q, count, dtype, op) for q in range(n)]
        full = reduce(inputs, op)
        if kind == "all_reduce":
            return full
        if kind == "reduce_scatter":
            return full[rank * N_BLOCK:(rank + 1) * N_BLOCK]
        return full if rank == ROOT["reduce"] else np.zeros(count, np_dtype(dtype))
    inputs = [rank_input(q, count, dtype) for q in range(n)]
    if kind == "broadcast":
        return inputs[ROOT["broadcast"]]
    if kind == "all_gather":
        return np.stack(inputs)
    if kind == "scatter":
        return inputs[ROOT["scatter"]][rank * N_BLOCK:(rank + 1) * N_BLOCK]
    if kind == "all_to_all":
        return np.concatenate([inputs[q][rank * N_BLOCK:(rank + 1) * N_BLOCK] for q in range(n)])
    if kind == "send_recv":
        return inputs[(rank - 1) % n]
    raise ValueError(kind)


def all_cases(n: int) -> list[tuple[str, str, str, int]]:
    out = [(k, d, o, r) for k in REDUCING for d in DTYPES for o in OPS for r in range(n)]
    out += [(k, d, "", r) for k in MOVING for d in DTYPES for r in range(n)]
    return out


def thread_worker(path: str, ndev: int = 4) -> None:
    """init_all over ``ndev`` virtual devices, one thread per rank running ``run_rank``; the
    results saved to ``path`` (npz, keys from case_key; bfloat16 saved as its bits)."""
    import threading

    import pyacl_hardgrad as hg

    comms = hg.hccl.Communicator.init_all(list(range(ndev)))
    results: dict[str, np.ndarray] = {}
    errors: list[BaseException] = []

    def main(comm: Any) -> None:
        try:
            run_rank(comm, results)
        except BaseException as exc:        # reported by the parent
            errors.append(exc)

    threads = [threading.Thread(target=main, args=(c,)) for c in comms]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for c in comms:
        c.close()
    if errors:
        raise errors[0]
    np.savez(path, **{k: bits(v) for k, v in results.items()})

