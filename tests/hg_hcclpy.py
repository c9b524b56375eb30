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
# HCCL's rule: prod takes int8, int32, int64, uint64, float16, float32, float64 (no bfloat16); the
# call fails with HCCL_E_NOT_SUPPORT
UNSUPPORTED = {("prod", "bfloat16")}
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
            if (op, dtype) in UNSUPPORTED:
                for kind in REDUCING:
                    try:
                        getattr(comm, kind)(x, op=op)
                    except hg.hccl.HcclError as exc:
                        out[case_key(kind, dtype, op, r)] = np.array([exc.code, "bfloat16" in exc.detail])
                    else:
                        out[case_key(kind, dtype, op, r)] = np.array([0, 0])
                continue
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
    """What ``run_rank`` must find on ``rank`` of ``n`` for one case, from the model (for a
    combination HCCL refuses: [HCCL_E_NOT_SUPPORT, the detail names the dtype])."""
    count = n * N_BLOCK
    if (op, dtype) in UNSUPPORTED:
        return np.array([5, 1])
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



# -- processes of one host: multiprocessing (spawn), the root info through a queue ---------------
PROC_COUNT = 2 * 3 * 4      # elements per rank (a multiple of 2, 3 and 4)


def proc_rank(rank: int, n: int, infos: Any, results: Any) -> None:
    """Rank ``rank`` of ``n`` processes: rank 0 makes the root info and puts it on ``infos`` once
    per other rank; each rank runs all-reduce, all-gather, broadcast, all-to-all and a send/recv
    ring on device 0 of its process and puts (rank, {name: bits}) or (rank, error text) on
    ``results``."""
    try:
        import pyacl_hardgrad as hg

        if rank == 0:
            info = hg.hccl.get_root_info()
            for _ in range(n - 1):
                infos.put(info)
        else:
            info = infos.get(timeout=60)
        out: dict[str, np.ndarray] = {}
        with hg.Device(0) as dev, hg.hccl.Communicator(info, rank, n, device=dev) as comm:
            assert (comm.rank, comm.size, comm.device_id) == (rank, n, 0)
            x = hg.Tensor(rank_input(rank, PROC_COUNT, "float32"), dev)
            out["all_reduce"] = comm.all_reduce(x).numpy()
            out["all_gather"] = comm.all_gather(x).numpy()
            b = hg.Tensor(rank_input(rank, PROC_COUNT, "float32"), dev)
            out["broadcast"] = comm.broadcast(b, root=n - 1).numpy()
            out["all_to_all"] = comm.all_to_all(x).numpy()
            into = hg.Tensor(np.zeros(PROC_COUNT, np.float32), dev)
            if rank % 2 == 0:
                comm.send(x, (rank + 1) % n)
                comm.recv(into, (rank - 1) % n)
            else:
                comm.recv(into, (rank - 1) % n)
                comm.send(x, (rank + 1) % n)
            out["send_recv"] = into.numpy()
            for t in (x, b, into):
                t.close()
        results.put((rank, {k: bits(v) for k, v in out.items()}))
    except BaseException as exc:        # the parent reports it
        import traceback
        results.put((rank, f"{exc!r}\n{traceback.format_exc()}"))


def proc_expected(rank: int, n: int) -> dict[str, np.ndarray]:
    inputs = [rank_input(q, PROC_COUNT, "float32") for q in range(n)]
    block = PROC_COUNT // n
    return {
        "all_reduce": reduce(inputs, "sum"),
        "all_gather": np.stack(inputs),
        "broadcast": inputs[n - 1],
        "all_to_all": np.concatenate([inputs[q][rank * block:(rank + 1) * block] for q in range(n)]),
        "send_recv": inputs[(rank - 1) % n],
    }


def ctypes_rank(rank: int, n: int, conn: Any, results: Any) -> None:
    """A client in the style of ctypes users of HCCL (vllm-ascend's pyhccl): it opens only
    libhccl.so with ctypes and declares the few functions it calls; device buffers and the
    stream come from the package, as such clients take them from their tensor library.  The
    root info (a 4108-byte struct) goes from rank 0 through a pipe; init, all-reduce, all-gather,
    destroy.  Puts (rank, {name: bits}) or (rank, error text) on ``results``."""
    try:
        import ctypes

        import pyacl_hardgrad as hg

        lib = ctypes.CDLL(os.path.join(hg.get_library_dir(), "libhccl.so"))

        class RootInfo(ctypes.Structure):
            _fields_ = [("internal", ctypes.c_byte * 4108)]

        result_t, comm_t, ptr_t = ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p
        for name, restype, argtypes in (
                ("HcclGetErrorString", ctypes.c_char_p, [result_t]),
                ("HcclGetRootInfo", result_t, [ctypes.POINTER(RootInfo)]),
                ("HcclCommInitRootInfo", result_t, [ctypes.c_uint32, ctypes.POINTER(RootInfo), ctypes.c_uint32,
                                                    ctypes.POINTER(comm_t)]),
                ("HcclAllReduce", result_t, [ptr_t, ptr_t, ctypes.c_uint64, ctypes.c_int, ctypes.c_int, comm_t,
                                             ptr_t]),
                ("HcclAllGather", result_t, [ptr_t, ptr_t, ctypes.c_uint64, ctypes.c_int, comm_t, ptr_t]),
                ("HcclCommDestroy", result_t, [comm_t])):
            f = getattr(lib, name)
            f.restype, f.argtypes = restype, argtypes

        def check(status: int, what: str) -> None:
            if status != 0:
                raise RuntimeError(f"{what}: {status} {lib.HcclGetErrorString(status).decode()}")

        dev = hg.Device(0)
        info = RootInfo()
        if rank == 0:
            check(lib.HcclGetRootInfo(ctypes.byref(info)), "HcclGetRootInfo")
            for c in conn:
                c.send_bytes(bytes(info))
        else:
            info = RootInfo.from_buffer_copy(conn.recv_bytes())
        comm = comm_t()
        check(lib.HcclCommInitRootInfo(n, ctypes.byref(info), rank, ctypes.byref(comm)), "HcclCommInitRootInfo")
        stream = dev.create_stream()
        s = int(hg.ffi.cast("uintptr_t", stream.handle))
        x = hg.Tensor(rank_input(rank, PROC_COUNT, "float32"), dev)
        red = hg.empty(PROC_COUNT, "float32", dev)
        gat = hg.empty((n, PROC_COUNT), "float32", dev)
        fp32, hsum = 4, 0                       # HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM as HCCL numbers them
        check(lib.HcclAllReduce(x.data_ptr, red.data_ptr, PROC_COUNT, fp32, hsum, comm, s), "HcclAllReduce")
        check(lib.HcclAllGather(x.data_ptr, gat.data_ptr, PROC_COUNT, fp32, comm, s), "HcclAllGather")
        stream.synchronize()
        out = {"all_reduce": red.numpy(), "all_gather": gat.numpy()}
        check(lib.HcclCommDestroy(comm), "HcclCommDestroy")
        for t in (x, red, gat, stream, dev):
            t.close()
        results.put((rank, {k: bits(v) for k, v in out.items()}))
    except BaseException as exc:
        import traceback
        results.put((rank, f"{exc!r}\n{traceback.format_exc()}"))


def gather_results(procs: list[Any], results: Any, n: int, timeout: float = 120) -> dict[int, Any]:
    """Each rank's result from ``results``; the processes joined (killed after ``timeout``)."""
    import queue
    import time

    got: dict[int, Any] = {}
    deadline = time.monotonic() + timeout
    try:
        while len(got) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"ranks {sorted(set(range(n)) - set(got))} did not report in {timeout} s")
            try:
                rank, value = results.get(timeout=min(left, 1.0))
            except queue.Empty:
                dead = [p for p in procs if p.exitcode not in (None, 0)]
                if dead and len(got) < n and results.empty():
                    time.sleep(0.5)
                    if results.empty():
                        raise RuntimeError(f"a rank process exited with {dead[0].exitcode} before reporting")
                continue
            got[rank] = value
    finally:
        for p in procs:
            p.join(timeout=max(1.0, deadline - time.monotonic()))
            if p.is_alive():
                p.kill()
                p.join()
    return got


# -- argument errors, closing, lifetimes: checks run in one process with two devices ---------------
def _raises(exc: type[BaseException], fn: Any, *words: str) -> str:
    """Call fn; the exception's text must name every word (the argument and the rule)."""
    try:
        fn()
    except exc as e:
        text = str(e)
        missing = [w for w in words if w not in text]
        if missing:
            raise AssertionError(f"{type(e).__name__}({text!r}) does not say {missing}") from None
        return text
    raise AssertionError(f"no {exc.__name__} raised")


def check_closed_communicator_refuses_every_call(hg: Any, comms: list[Any]) -> None:
    with hg.Device(0) as dev:
        c = hg.hccl.Communicator.init_all([dev])[0]
        x = hg.Tensor(np.ones(4, np.float32), dev)
        c.close()
        c.close()                                 # a second close is harmless
        assert c.closed
        for call in (lambda: c.all_reduce(x), lambda: c.broadcast(x), lambda: c.all_gather(x),
                     lambda: c.reduce_scatter(x), lambda: c.reduce(x), lambda: c.scatter(x),
                     lambda: c.all_to_all(x), lambda: c.send(x, 0), lambda: c.recv(x, 0),
                     lambda: c.barrier(), lambda: c.device):
            _raises(hg.ClosedError, call, "Communicator is closed")
        _raises(hg.ClosedError, lambda: c.__enter__(), "closed")
        x.close()


def check_argument_errors_name_the_argument_and_the_rule(hg: Any, comms: list[Any]) -> None:
    c0 = comms[0]
    d0, d1 = hg.Device(0), hg.Device(1)
    x = hg.Tensor(np.ones(8, np.float32), d0)
    _raises(ValueError, lambda: c0.all_reduce(x, hg.empty(7, "float32", d0)), "out has 7 elements", "send has 8")
    _raises(TypeError, lambda: c0.all_reduce(x, hg.empty(8, "int32", d0)), "out has dtype int32", "float32")
    _raises(ValueError, lambda: c0.all_reduce(hg.Tensor(np.ones(8, np.float32), d1)), "send is on device 1",
            "device 0")
    _raises(ValueError, lambda: c0.all_reduce(x, hg.empty(8, "float32", d1)), "out is on device 1")
    _raises(TypeError, lambda: c0.all_reduce(np.ones(8, np.float32)), "send must be a Tensor")
    _raises(TypeError, lambda: c0.all_reduce(hg.Tensor(np.ones(8, np.complex64), d0)), "send has dtype complex64")
    _raises(ValueError, lambda: c0.all_reduce(x, op="avg"), "op must be one of")
    _raises(ValueError, lambda: c0.all_reduce(x, op=7), "op 7")
    _raises(ValueError, lambda: c0.all_gather(x, hg.empty(8, "float32", d0)), "out has 8 elements", "2 x 8")
    _raises(ValueError, lambda: c0.reduce_scatter(hg.Tensor(np.ones(7, np.float32), d0)), "send has 7 elements",
            "multiple of the communicator size 2")
    _raises(ValueError, lambda: c0.broadcast(x, root=2), "root must be", "[0, 1]")
    _raises(ValueError, lambda: c0.send(x, 0), "peer must be another rank")
    _raises(ValueError, lambda: c0.scatter(None), "send is required on the root")
    _raises(ValueError, lambda: c0.all_reduce(hg.Tensor(np.ones((4, 2), np.float32), d0).T), "send must be contiguous")
    with d1.create_stream() as s1:
        _raises(ValueError, lambda: c0.all_reduce(x, stream=s1), "stream is a stream of device 1")
    closed = hg.Tensor(np.ones(8, np.float32), d0)
    closed.close()
    _raises(hg.ClosedError, lambda: c0.all_reduce(closed), "send is closed")
    _raises(ValueError, lambda: hg.hccl.Communicator(b"x" * 10, 0, 2), "root_info must be 4108 bytes")
    _raises(TypeError, lambda: hg.hccl.Communicator("x", 0, 2), "root_info must be the bytes")
    _raises(ValueError, lambda: hg.hccl.Communicator(bytes(4108), 2, 2), "rank must be in [0, nranks - 1]")
    _raises(ValueError, lambda: hg.hccl.Communicator(bytes(4108), 0, 2, config={"nope": 1}),
            "config has no field 'nope'")
    _raises(ValueError, lambda: hg.hccl.Communicator.init_all([0, 0]), "devices must be distinct")
    _raises(FileNotFoundError, lambda: hg.hccl.Communicator.from_rank_table("/nonexistent/rt.json", 0), "rank table")


def check_hccl_error_carries_code_name_and_message(hg: Any, comms: list[Any]) -> None:
    import pickle
    e = hg.hccl.HcclError(1, "HcclAllReduce")
    assert (e.code, e.name, e.function) == (1, "HCCL_E_PARA", "HcclAllReduce"), vars(e)
    assert e.message and e.message in str(e) and "HCCL_E_PARA (1)" in str(e), str(e)
    assert isinstance(e, hg.PyaclError) and isinstance(e, RuntimeError)
    e2 = pickle.loads(pickle.dumps(e))
    assert (type(e2), e2.code, e2.name, e2.message, str(e2)) == (type(e), e.code, e.name, e.message, str(e))
    # a real failure: a root info of no rendezvous
    try:
        hg.hccl.Communicator(bytes(4108), 0, 1, device=0)
    except hg.hccl.HcclError as err:
        assert err.code != 0 and err.function == "HcclCommInitRootInfo" and err.message, vars(err)
        lib = hg.hccl._hccl_binding.lib()
        assert err.message == hg.hccl.ffi.string(lib.HcclGetErrorString(err.code)).decode()
    else:
        raise AssertionError("a root info of zero bytes made a communicator")


def check_close_with_queued_work_destroys_once_after_the_stream(hg: Any, comms: list[Any]) -> None:
    import threading
    destroyed: list[str] = []
    real = hg.hccl._destroy

    def counting(comm: Any, state: Any, name: str) -> None:
        destroyed.append(name)
        real(comm, state, name)
    hg.hccl._destroy = counting
    try:
        pair = hg.hccl.Communicator.init_all([0, 1])
        outs: list[Any] = [None, None]
        before_sync: list[list[str]] = [[], []]
        streams = [hg.Device(i).create_stream() for i in range(2)]
        names = [f"Communicator(rank {i} of 2, device {i})" for i in range(2)]

        def rank(i: int) -> None:
            c = pair[i]
            x = hg.Tensor(np.full(16, i + 1, np.float32), c.device)
            y = c.all_reduce(x, stream=streams[i])
            x.close()
            # several threads closing at once: one destroy, and only once the stream is done
            closers = [threading.Thread(target=c.close) for _ in range(4)]
            for t in closers:
                t.start()
            for t in closers:
                t.join()
            before_sync[i] = [d for d in destroyed if d == names[i]]
            outs[i] = y.numpy()                    # waits for the stream: it lets go of the communicator
            streams[i].synchronize()
        ts = [threading.Thread(target=rank, args=(i,)) for i in range(2)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        for i in range(2):
            assert pair[i].closed
            assert before_sync[i] == [], before_sync
            np.testing.assert_array_equal(outs[i], np.full(16, 3, np.float32))
        assert sorted(destroyed) == names, destroyed
    finally:
        hg.hccl._destroy = real


def check_communicator_keeps_its_device_in_use(hg: Any, comms: list[Any]) -> None:
    dev = hg.Device(0)
    c = hg.hccl.Communicator.init_all([dev])[0]
    dev.close()
    assert c.device_id == 0 and not c.closed
    x = hg.Tensor(np.arange(6, dtype=np.float32), c.device)
    np.testing.assert_array_equal(c.all_reduce(x, op="max").numpy(), np.arange(6, dtype=np.float32))
    c.close()


def check_config_sets_fields_by_name(hg: Any, comms: list[Any]) -> None:
    info = hg.hccl.get_root_info(0)
    with hg.hccl.Communicator(info, 0, 1, device=0, config={"hcclBufferSize": 64, "hcclCommName": "solo"}) as c:
        assert (c.rank, c.size, c.name) == (0, 1, "solo"), (c.rank, c.size, c.name)
        x = hg.Tensor(np.arange(4, dtype=np.float32), c.device)
        np.testing.assert_array_equal(c.all_gather(x).numpy(), np.arange(4, dtype=np.float32)[None])
    _raises(ValueError, lambda: hg.hccl.Communicator(info, 0, 1, config={"hcclBufferSize": -1}),
            "config['hcclBufferSize'] = -1 does not fit", "uint32_t")
    _raises(ValueError, lambda: hg.hccl.Communicator(info, 0, 1, config={"hcclCommName": "x" * 200}),
            "config['hcclCommName'] is 200 bytes", "127")
    _raises(TypeError, lambda: hg.hccl.Communicator(info, 0, 1, config={"hcclCommName": 5}),
            "config['hcclCommName'] must be a str")


def check_one_thread_enqueues_every_ranks_part(hg: Any, comms: list[Any]) -> None:
    """Operations return once enqueued: one thread may issue every rank's part, then read."""
    xs = [hg.Tensor(np.full(5, c.rank + 1, np.float32), c.device) for c in comms]
    ys = [c.all_reduce(x, op="max") for c, x in zip(comms, xs)]
    zs = [c.all_gather(x) for c, x in zip(comms, xs)]
    for c, y, z in zip(comms, ys, zs):
        c.device.make_current()                 # (a tensor is read with its device current)
        np.testing.assert_array_equal(y.numpy(), np.full(5, 2, np.float32))
        np.testing.assert_array_equal(z.numpy()[:, 0], [1, 2])


ERROR_CHECKS = {f.__name__[len("check_"):]: f for f in (
    check_config_sets_fields_by_name, check_one_thread_enqueues_every_ranks_part,
    check_closed_communicator_refuses_every_call, check_argument_errors_name_the_argument_and_the_rule,
    check_hccl_error_carries_code_name_and_message, check_close_with_queued_work_destroys_once_after_the_stream,
    check_communicator_keeps_its_device_in_use)}


def error_worker(path: str) -> None:
    """Run every check of ERROR_CHECKS (two devices, communicators of both); write name -> 'ok' or
    the failure to ``path`` (JSON)."""
    import json
    import traceback

    import pyacl_hardgrad as hg

    comms = hg.hccl.Communicator.init_all([0, 1])
    report: dict[str, str] = {}
    for name, check in ERROR_CHECKS.items():
        try:
            check(hg, comms)
            report[name] = "ok"
        except BaseException as exc:
            report[name] = f"{exc!r}\n{traceback.format_exc()}"
    for c in comms:
        c.close()
    Path(path).write_text(json.dumps(report))
