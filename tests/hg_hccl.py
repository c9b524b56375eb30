"""Driver of the HCCL tests: HCCL's C API through ctypes (libhccl.so alone: the communicator
calls resolve through it too), run in subprocesses so that a hang ends at a timeout and each
run has a fresh runtime.

    python hg_hccl.py threads NRANKS CASES_JSON       ranks of one process (HcclCommInitAll)
    python hg_hccl.py rootinfo-threads NRANKS CASES   ranks as threads meeting at a root info
    python hg_hccl.py rank RANK NRANKS HEX CASES      one rank of a multi-process run (HEX: the
                                                      root info; "make" on rank 0 prints it first)
    python hg_hccl.py scenario NAME                   one of SCENARIOS (prints OK)

Every case runs one collective on every rank with inputs drawn from a seed known to all ranks,
so each rank checks its own output against numpy bit for bit: reductions in rank order, fp16
and bf16 accumulated in fp32 and rounded once (to nearest even), integers wrapping.
"""
from __future__ import annotations

import ctypes as C
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any, Callable

import numpy as np

HCCL_SUCCESS = 0
E_PARA, E_PTR, E_NOT_SUPPORT, E_TIMEOUT = 1, 2, 5, 9

# name -> (HcclDataType, numpy storage dtype); bf16 is stored as its uint16 bits
DTYPES: dict[str, tuple[int, Any]] = {
    "int8": (0, np.int8), "int16": (1, np.int16), "int32": (2, np.int32), "fp16": (3, np.float16),
    "fp32": (4, np.float32), "int64": (5, np.int64), "uint64": (6, np.uint64), "uint8": (7, np.uint8),
    "uint16": (8, np.uint16), "uint32": (9, np.uint32), "fp64": (10, np.float64), "bf16": (11, np.uint16),
}
REDUCIBLE = ["int8", "int16", "int32", "int64", "uint64", "fp16", "fp32", "fp64", "bf16"]
OPS = {"sum": 0, "prod": 1, "max": 2, "min": 3}
# (dtype, op) pairs HCCL refuses: prod takes neither int16 nor bf16
PROD_REFUSED = {"int16", "bf16"}


def libdir() -> Path:
    env = os.environ.get("PYACL_HARDGRAD_TEST_LIBDIR")
    if env:
        return Path(env)
    import pyacl_hardgrad
    return Path(pyacl_hardgrad.get_library_dir())


class Api:
    """libascendcl and libhccl through ctypes (every Hccl* symbol looked up in libhccl.so)."""

    def __init__(self) -> None:
        d = libdir()
        self.acl = C.CDLL(str(d / "libascendcl.so"))
        self.h = C.CDLL(str(d / "libhccl.so"))
        self.acl.aclGetRecentErrMsg.restype = C.c_char_p
        self.h.HcclGetErrorString.restype = C.c_char_p
        for name in ("aclrtMalloc", "aclrtMemcpy", "aclrtFree", "aclrtSetDevice", "aclrtCreateStream",
                     "aclrtSynchronizeStream", "aclrtDestroyStream", "aclInit", "aclFinalize"):
            getattr(self.acl, name).restype = C.c_int
        self.acl.aclrtMemcpy.argtypes = [C.c_void_p, C.c_size_t, C.c_void_p, C.c_size_t, C.c_int]
        self.acl.aclrtMalloc.argtypes = [C.POINTER(C.c_void_p), C.c_size_t, C.c_int]
        self.acl.aclrtFree.argtypes = [C.c_void_p]
        self.acl.aclrtSynchronizeStream.argtypes = [C.c_void_p]
        self.acl.aclrtDestroyStream.argtypes = [C.c_void_p]
        u64, u32, vp, i = C.c_uint64, C.c_uint32, C.c_void_p, C.c_int
        sig = {
            "HcclAllReduce": [vp, vp, u64, i, i, vp, vp],
            "HcclReduce": [vp, vp, u64, i, i, u32, vp, vp],
            "HcclBroadcast": [vp, u64, i, u32, vp, vp],
            "HcclAllGather": [vp, vp, u64, i, vp, vp],
            "HcclAllGatherV": [vp, u64, vp, vp, vp, i, vp, vp],
            "HcclReduceScatter": [vp, vp, u64, i, i, vp, vp],
            "HcclReduceScatterV": [vp, vp, vp, vp, u64, i, i, vp, vp],
            "HcclScatter": [vp, vp, u64, i, u32, vp, vp],
            "HcclAlltoAll": [vp, u64, i, vp, u64, i, vp, vp],
            "HcclAlltoAllV": [vp, vp, vp, i, vp, vp, vp, i, vp, vp],
            "HcclAlltoAllVC": [vp, vp, i, vp, i, vp, vp],
            "HcclSend": [vp, u64, i, u32, vp, vp],
            "HcclRecv": [vp, u64, i, u32, vp, vp],
            "HcclBatchSendRecv": [vp, u32, vp, vp],
            "HcclBarrier": [vp, vp],
            "HcclCommInitAll": [u32, vp, vp],
            "HcclCommInitRootInfo": [u32, vp, u32, vp],
            "HcclGetRootInfo": [vp],
            "HcclCommDestroy": [vp],
            "HcclGetRankSize": [vp, vp],
            "HcclGetRankId": [vp, vp],
            "HcclGetCommAsyncError": [vp, vp],
        }
        for name, args in sig.items():
            f = getattr(self.h, name)
            f.argtypes = args
            f.restype = C.c_int

    def check(self, rc: int, what: str) -> None:
        if rc != 0:
            msg = self.acl.aclGetRecentErrMsg()
            raise RuntimeError(f"{what} returned {rc}: {msg.decode() if msg else ''}")

    def errmsg(self) -> str:
        msg = self.acl.aclGetRecentErrMsg()
        return msg.decode() if msg else ""


class Rank:
    """One rank: its device, stream and communicator."""

    def __init__(self, api: Api, rank: int, device: int, comm: C.c_void_p) -> None:
        self.api, self.rank, self.device, self.comm = api, rank, device, comm
        api.check(api.acl.aclrtSetDevice(device), "aclrtSetDevice")
        s = C.c_void_p()
        api.check(api.acl.aclrtCreateStream(C.byref(s)), "aclrtCreateStream")
        self.stream = s
        self.bufs: list[C.c_void_p] = []

    def dev(self, host: np.ndarray | None, nbytes: int | None = None) -> C.c_void_p:
        """Device copy of host (or nbytes filled with 0xA5: a sentinel untouched outputs keep)."""
        self.api.check(self.api.acl.aclrtSetDevice(self.device), "aclrtSetDevice")
        n = host.nbytes if host is not None else int(nbytes or 0)
        p = C.c_void_p()
        self.api.check(self.api.acl.aclrtMalloc(C.byref(p), max(n, 1), 0), "aclrtMalloc")
        src = host if host is not None else np.full(n, 0xA5, np.uint8)
        if n:
            self.api.check(self.api.acl.aclrtMemcpy(p, n, src.ctypes.data, n, 1), "aclrtMemcpy")
        self.bufs.append(p)
        return p

    def host(self, p: C.c_void_p, nbytes: int) -> np.ndarray:
        out = np.empty(nbytes, np.uint8)
        self.api.check(self.api.acl.aclrtSetDevice(self.device), "aclrtSetDevice")
        if nbytes:
            self.api.check(self.api.acl.aclrtMemcpy(out.ctypes.data, nbytes, p, nbytes, 2), "aclrtMemcpy")
        return out

    def sync(self) -> None:
        self.api.check(self.api.acl.aclrtSynchronizeStream(self.stream), "aclrtSynchronizeStream")

    def free_all(self) -> None:
        for p in self.bufs:
            self.api.acl.aclrtFree(p)
        self.bufs.clear()

    def close(self) -> None:
        """Free the buffers, destroy the stream and the communicator."""
        self.free_all()
        self.api.acl.aclrtDestroyStream(self.stream)
        self.api.h.HcclCommDestroy(self.comm)


# ------------------------------------------------------------------ numbers


def bf16_bits(x: np.ndarray) -> np.ndarray:
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_float(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def make_input(dtype: str, count: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    st = DTYPES[dtype][1]
    if dtype in ("fp16", "fp32", "fp64"):
        return (rng.standard_normal(count) * 3).astype(st)
    if dtype == "bf16":
        return bf16_bits(rng.standard_normal(count) * 3)
    info = np.iinfo(st)
    return rng.integers(info.min, int(info.max) + 1, count, dtype=st)


def reduce_ref(xs: list[np.ndarray], dtype: str, op: str) -> np.ndarray:
    """The reduction in rank order, through an fp32 accumulator for fp16/bf16, rounded once."""
    def conv(x: np.ndarray) -> np.ndarray:
        if dtype == "fp16":
            return x.astype(np.float32)
        if dtype == "bf16":
            return bf16_float(x)
        return x
    acc = conv(xs[0]).copy()
    with np.errstate(over="ignore"):
        for x in xs[1:]:
            v = conv(x)
            if op == "sum":
                acc = acc + v
            elif op == "prod":
                acc = acc * v
            elif op == "max":
                acc = np.maximum(acc, v)
            else:
                acc = np.minimum(acc, v)
    acc = acc.astype(acc.dtype)
    if dtype == "fp16":
        return acc.astype(np.float16)
    if dtype == "bf16":
        return bf16_bits(acc)
    return acc.astype(DTYPES[dtype][1])


# ------------------------------------------------------------------ cases


def case_list(kind: str, nranks: int) -> list[dict[str, Any]]:
    """Every dtype (x every op for reductions) of one collective, with awkward counts."""
    cases: list[dict[str, Any]] = []
    if kind in ("allreduce", "reduce", "reducescatter", "reducescatterv"):
        for dt in REDUCIBLE:
            for op in OPS:
                if op == "prod" and dt in PROD_REFUSED:
                    continue
                cases.append({"kind": kind, "dtype": dt, "op": op, "count": 37 + len(cases) % 5,
                              "root": len(cases) % nranks})
        if kind == "allreduce":     # one large enough to span several blocks of every algorithm
            cases.append({"kind": kind, "dtype": "fp32", "op": "sum", "count": 300_001, "root": 0})
            cases.append({"kind": kind, "dtype": "bf16", "op": "sum", "count": 70_001, "root": 0})
    elif kind == "group":          # large messages: more than a shared-memory ring holds
        cases = [{"kind": kind, "dtype": "fp32", "op": "sum", "count": 1_000_003, "root": 0},
                 {"kind": kind, "dtype": "int8", "op": "sum", "count": 5, "root": 0}]
    else:
        for dt in DTYPES:
            cases.append({"kind": kind, "dtype": dt, "op": "sum", "count": 13 + len(cases) % 4,
                          "root": len(cases) % nranks})
    for i, c in enumerate(cases):
        c["seed"] = 1000 * i + 17
    return cases


def _counts_matrix(case: dict[str, Any], n: int) -> np.ndarray:
    rng = np.random.default_rng(case["seed"] + 99)
    return rng.integers(0, case["count"] + 1, (n, n)).astype(np.uint64)


def run_case(ranks: list[Rank], case: dict[str, Any], nranks: int) -> list[str]:
    """Enqueue the case on every rank given (all ranks of the comm, or this process's one),
    synchronise, and return the mismatches found (empty: all outputs right)."""
    kind, dt, op, count, root = case["kind"], case["dtype"], case["op"], case["count"], case["root"]
    code, st = DTYPES[dt]
    es = np.dtype(st).itemsize
    n = nranks
    inputs = [make_input(dt, count * (n if kind in ("reducescatter", "scatter", "alltoall") else 1),
                         case["seed"] + q) for q in range(n)]
    expect: dict[int, tuple[np.ndarray, int]] = {}   # rank -> (expected bytes, recv buffer size)
    pending: list[tuple[Rank, C.c_void_p, int]] = []
    keep: list[Any] = []                             # ctypes arrays the calls point at
    for rk in ranks:
        r, h = rk.rank, rk.api.h
        if kind == "allreduce":
            ref = reduce_ref(inputs, dt, op)
            s, o = rk.dev(inputs[r]), rk.dev(None, count * es)
            rc = h.HcclAllReduce(s, o, count, code, OPS[op], rk.comm, rk.stream)
            expect[r] = (ref.view(np.uint8), count * es)
        elif kind == "reduce":
            ref = reduce_ref(inputs, dt, op)
            s, o = rk.dev(inputs[r]), rk.dev(None, count * es)
            rc = h.HcclReduce(s, o, count, code, OPS[op], root, rk.comm, rk.stream)
            expect[r] = (ref.view(np.uint8) if r == root else np.full(count * es, 0xA5, np.uint8), count * es)
        elif kind == "reducescatter":
            ref = reduce_ref([x[r * count:(r + 1) * count] for x in inputs], dt, op)
            s, o = rk.dev(inputs[r]), rk.dev(None, count * es)
            rc = h.HcclReduceScatter(s, o, count, code, OPS[op], rk.comm, rk.stream)
            expect[r] = (ref.view(np.uint8), count * es)
        elif kind == "reducescatterv":
            cnt = _counts_matrix(case, n)[0]             # block q: cnt[q] elements, after a gap of 1
            displ = np.zeros(n, np.uint64)
            ofs = 0
            for q in range(n):
                displ[q] = ofs
                ofs += int(cnt[q]) + 1
            full = [make_input(dt, ofs, case["seed"] + q) for q in range(n)]
            lo, hi = int(displ[r]), int(displ[r] + cnt[r])
            ref = reduce_ref([x[lo:hi] for x in full], dt, op)
            c_arr, d_arr = np.ascontiguousarray(cnt), np.ascontiguousarray(displ)
            keep += [c_arr, d_arr]
            s, o = rk.dev(full[r]), rk.dev(None, int(cnt[r]) * es)
            rc = h.HcclReduceScatterV(s, c_arr.ctypes.data, d_arr.ctypes.data, o, int(cnt[r]), code, OPS[op],
                                      rk.comm, rk.stream)
            expect[r] = (ref.view(np.uint8), int(cnt[r]) * es)
        elif kind == "allgather":
            s, o = rk.dev(inputs[r]), rk.dev(None, n * count * es)
            rc = h.HcclAllGather(s, o, count, code, rk.comm, rk.stream)
            expect[r] = (np.concatenate(inputs).view(np.uint8), n * count * es)
        elif kind == "allgatherv":
            cnt = _counts_matrix(case, n)[1 % n]
            displ = np.zeros(n, np.uint64)
            ofs = 0
            for q in range(n - 1, -1, -1):                # blocks in reverse rank order, gaps of 2
                displ[q] = ofs
                ofs += int(cnt[q]) + 2
            out = np.full(ofs * es, 0xA5, np.uint8)
            for q in range(n):
                out[int(displ[q]) * es:(int(displ[q]) + int(cnt[q])) * es] = inputs[q][:int(cnt[q])].view(np.uint8)
            c_arr, d_arr = np.ascontiguousarray(cnt), np.ascontiguousarray(displ)
            keep += [c_arr, d_arr]
            s, o = rk.dev(inputs[r][:int(cnt[r])].copy()), rk.dev(None, ofs * es)
            rc = h.HcclAllGatherV(s, int(cnt[r]), o, c_arr.ctypes.data, d_arr.ctypes.data, code, rk.comm, rk.stream)
            expect[r] = (out, ofs * es)
        elif kind == "broadcast":
            o = rk.dev(inputs[r])
            rc = h.HcclBroadcast(o, count, code, root, rk.comm, rk.stream)
            expect[r] = (inputs[root].view(np.uint8), count * es)
        elif kind == "scatter":
            src = rk.dev(inputs[r]) if r == root else None
            o = rk.dev(None, count * es)
            rc = h.HcclScatter(src, o, count, code, root, rk.comm, rk.stream)
            expect[r] = (inputs[root][r * count:(r + 1) * count].view(np.uint8), count * es)
        elif kind == "alltoall":
            s, o = rk.dev(inputs[r]), rk.dev(None, n * count * es)
            rc = h.HcclAlltoAll(s, count, code, o, count, code, rk.comm, rk.stream)
            expect[r] = (np.concatenate([x[r * count:(r + 1) * count] for x in inputs]).view(np.uint8),
                         n * count * es)
        elif kind in ("alltoallv", "alltoallvc"):
            m = _counts_matrix(case, n)                   # m[p][q]: elements from p to q
            tot = int(m[r].sum())
            full = [make_input(dt, int(m[p].sum()), case["seed"] + p) for p in range(n)]
            sofs = [np.concatenate([[0], np.cumsum(m[p])]).astype(np.uint64) for p in range(n)]
            rcnt = np.ascontiguousarray(m[:, r])
            rtot = int(rcnt.sum())
            exp = np.concatenate([full[p][int(sofs[p][r]):int(sofs[p][r]) + int(m[p][r])] for p in range(n)]
                                 ).view(np.uint8)
            s, o = rk.dev(full[r] if tot else np.zeros(1, st)), rk.dev(None, rtot * es)
            if kind == "alltoallv":
                sc, sd = np.ascontiguousarray(m[r]), np.ascontiguousarray(sofs[r][:n])
                rd = np.ascontiguousarray(np.concatenate([[0], np.cumsum(rcnt)])[:n].astype(np.uint64))
                keep += [sc, sd, rcnt, rd]
                rc = h.HcclAlltoAllV(s, sc.ctypes.data, sd.ctypes.data, code, o, rcnt.ctypes.data, rd.ctypes.data,
                                     code, rk.comm, rk.stream)
            else:
                mm = np.ascontiguousarray(m)
                keep.append(mm)
                rc = h.HcclAlltoAllVC(s, mm.ctypes.data, code, o, code, rk.comm, rk.stream)
            expect[r] = (exp, rtot * es)
        elif kind in ("sendrecv", "batch", "group"):
            nxt, prv = (r + 1) % n, (r - 1) % n
            s, o = rk.dev(inputs[r]), rk.dev(None, count * es)
            if kind == "group":          # receive first, inside a group: it must not deadlock
                rc = h.HcclGroupStart()
                rc = rc or h.HcclRecv(o, count, code, prv, rk.comm, rk.stream)
                rc = rc or h.HcclSend(s, count, code, nxt, rk.comm, rk.stream)
                rc = rc or h.HcclGroupEnd()
            elif kind == "sendrecv":
                rc = h.HcclSend(s, count, code, nxt, rk.comm, rk.stream)
                if rc == 0:
                    rc = h.HcclRecv(o, count, code, prv, rk.comm, rk.stream)
            else:
                items = (Item * 2)(Item(1, o, count, code, prv), Item(0, s, count, code, nxt))
                keep.append(items)
                rc = h.HcclBatchSendRecv(items, 2, rk.comm, rk.stream)
            expect[r] = (inputs[prv].view(np.uint8), count * es)
        else:
            raise ValueError(kind)
        if rc != 0:
            return [f"rank {r}: {kind} {dt} {op} count {count}: call returned {rc}: {rk.api.errmsg()}"]
        pending.append((rk, o, expect[r][1]))
    bad = []
    for rk, o, nbytes in pending:
        rk.sync()
        got = rk.host(o, nbytes)
        want = expect[rk.rank][0]
        if got.shape != want.shape or not np.array_equal(got, want):
            diff: list[int] = list(np.flatnonzero(got != want)) if got.shape == want.shape else []
            bad.append(f"rank {rk.rank}: {kind} {dt} {op} count {count} root {root}: {len(diff)} bytes differ "
                       f"(first at byte {diff[0] if len(diff) else '?'})")
        rk.free_all()
    return bad


class Item(C.Structure):
    _fields_ = [("type", C.c_int), ("buf", C.c_void_p), ("count", C.c_uint64), ("dtype", C.c_int),
                ("remote", C.c_uint32)]


# ------------------------------------------------------------------ modes


def init_all(api: Api, n: int) -> list[Rank]:
    api.check(api.acl.aclInit(None), "aclInit")
    devs = (C.c_int32 * n)(*range(n))
    comms = (C.c_void_p * n)()
    api.check(api.h.HcclCommInitAll(n, devs, comms), "HcclCommInitAll")
    return [Rank(api, r, r, C.c_void_p(comms[r])) for r in range(n)]


def run_threads(n: int, cases: list[dict[str, Any]]) -> int:
    api = Api()
    ranks = init_all(api, n)
    bad = []
    for case in cases:
        bad += run_case(ranks, case, n)
    for rk in ranks:
        api.check(api.h.HcclCommDestroy(rk.comm), "HcclCommDestroy")
    print("\n".join(bad) if bad else f"OK {len(cases)} cases on {n} ranks")
    return 1 if bad else 0


def root_info(api: Api) -> bytes:
    buf = C.create_string_buffer(4108)
    api.check(api.h.HcclGetRootInfo(buf), "HcclGetRootInfo")
    return buf.raw


def join(api: Api, n: int, rank: int, ri: bytes, device: int) -> Rank:
    api.check(api.acl.aclrtSetDevice(device), "aclrtSetDevice")
    comm = C.c_void_p()
    api.check(api.h.HcclCommInitRootInfo(n, C.create_string_buffer(ri, 4108), rank, C.byref(comm)),
              "HcclCommInitRootInfo")
    return Rank(api, rank, device, comm)


def run_rootinfo_threads(n: int, cases: list[dict[str, Any]]) -> int:
    """Ranks as threads meeting at a root info, each thread enqueuing its own rank's ops."""
    api = Api()
    api.check(api.acl.aclInit(None), "aclInit")
    ri = root_info(api)
    bad: list[str] = []
    lock = threading.Lock()

    def body(r: int) -> None:
        try:
            rk = join(api, n, r, ri, r)
            for case in cases:
                out = run_case([rk], case, n)
                with lock:
                    bad.extend(out)
            api.check(api.h.HcclCommDestroy(rk.comm), "HcclCommDestroy")
        except Exception as e:  # reported below
            with lock:
                bad.append(f"rank {r}: {e}")
    threads = [threading.Thread(target=body, args=(r,)) for r in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("\n".join(bad) if bad else f"OK {len(cases)} cases on {n} thread ranks")
    return 1 if bad else 0


def run_rank(rank: int, n: int, hexri: str, cases: list[dict[str, Any]]) -> int:
    api = Api()
    api.check(api.acl.aclInit(None), "aclInit")
    if hexri == "make":
        ri = root_info(api)
        print(ri.hex(), flush=True)
    else:
        ri = bytes.fromhex(hexri)
    ndev = int(os.environ.get("PYACL_HARDGRAD_DEVICE_COUNT", "1"))
    rk = join(api, n, rank, ri, rank % ndev)
    bad = []
    for case in cases:
        bad += run_case([rk], case, n)
    api.check(api.h.HcclCommDestroy(rk.comm), "HcclCommDestroy")
    print("\n".join(bad) if bad else f"OK rank {rank}: {len(cases)} cases")
    return 1 if bad else 0


# ------------------------------------------------------------------ scenarios


def expect_code(got: int, want: int, what: str, api: Api, words: tuple[str, ...] = ()) -> None:
    msg = api.errmsg()
    if got != want:
        raise AssertionError(f"{what}: returned {got}, expected {want} ({msg})")
    for w in words:
        if w not in msg:
            raise AssertionError(f"{what}: message {msg!r} lacks {w!r}")


def scenario_argument_errors() -> None:
    api = Api()
    ranks = init_all(api, 2)
    h, rk = api.h, ranks[0]
    s, o = rk.dev(np.zeros(8, np.float32)), rk.dev(None, 32)
    expect_code(h.HcclAllReduce(s, o, 8, 4, 0, None, rk.stream), E_PTR, "NULL comm", api, ("comm",))
    expect_code(h.HcclAllReduce(None, o, 8, 4, 0, rk.comm, rk.stream), E_PTR, "NULL sendBuf", api, ("sendBuf",))
    expect_code(h.HcclAllReduce(s, None, 8, 4, 0, rk.comm, rk.stream), E_PTR, "NULL recvBuf", api, ("recvBuf",))
    expect_code(h.HcclAllReduce(s, o, 8, 4, 0, rk.comm, None), E_PTR, "NULL stream", api, ("stream",))
    expect_code(h.HcclAllReduce(s, o, 8, 4, 7, rk.comm, rk.stream), E_PARA, "bad op", api, ("op 7",))
    expect_code(h.HcclAllReduce(s, o, 8, 13, 0, rk.comm, rk.stream), E_NOT_SUPPORT, "dtype 13", api)
    expect_code(h.HcclAllReduce(s, o, 8, 7, 0, rk.comm, rk.stream), E_NOT_SUPPORT, "uint8 reduce", api, ("uint8",))
    expect_code(h.HcclAllReduce(s, o, 8, 11, 1, rk.comm, rk.stream), E_NOT_SUPPORT, "bf16 prod", api, ("prod",))
    expect_code(h.HcclAllReduce(s, o, 0x800000000, 4, 0, rk.comm, rk.stream), E_PARA, "huge count", api,
                ("count",))
    expect_code(h.HcclAllGather(s, o, 2, 12, rk.comm, rk.stream), E_NOT_SUPPORT, "int128 allgather", api)
    expect_code(h.HcclBroadcast(s, 8, 4, 2, rk.comm, rk.stream), E_PARA, "root out of range", api, ("root 2",))
    expect_code(h.HcclSend(s, 8, 4, 0, rk.comm, rk.stream), E_PARA, "send to self", api, ("destRank",))
    expect_code(h.HcclAllReduce(s, o, 0, 4, 0, None, None), HCCL_SUCCESS, "count 0 (HCCL returns at once)", api)
    expect_code(h.HcclAllReduce(s, o, 16, 4, 0, rk.comm, rk.stream), E_PARA, "past the allocation", api,
                ("past the end",))
    size = C.c_uint32()
    expect_code(h.HcclGetRankSize(rk.comm, None), E_PTR, "NULL rankSize", api)
    expect_code(h.HcclGetRankSize(rk.comm, C.byref(size)), HCCL_SUCCESS, "rank size", api)
    assert size.value == 2
    rid = C.c_uint32()
    expect_code(h.HcclGetRankId(ranks[1].comm, C.byref(rid)), HCCL_SUCCESS, "rank id", api)
    assert rid.value == 1
    assert h.HcclGetErrorString(9) == b"timeout"
    expect_code(h.HcclCommInitAll(2, None, None), E_PTR, "InitAll NULL devices", api)
    devs = (C.c_int32 * 2)(0, 0)
    comms = (C.c_void_p * 2)()
    expect_code(h.HcclCommInitAll(2, devs, comms), E_PARA, "InitAll duplicate device", api, ("device 0",))
    rk.free_all()
    for r in ranks:
        h.HcclCommDestroy(r.comm)


def scenario_destroyed_comm() -> None:
    api = Api()
    ranks = init_all(api, 2)
    h, rk = api.h, ranks[0]
    s, o = rk.dev(np.zeros(8, np.float32)), rk.dev(None, 32)
    expect_code(h.HcclCommDestroy(rk.comm), HCCL_SUCCESS, "destroy", api)
    expect_code(h.HcclAllReduce(s, o, 8, 4, 0, rk.comm, rk.stream), E_PARA, "op on a destroyed comm", api,
                ("not a live communicator",))
    size = C.c_uint32()
    expect_code(h.HcclGetRankSize(rk.comm, C.byref(size)), E_PARA, "query on a destroyed comm", api)
    expect_code(h.HcclCommDestroy(rk.comm), E_PARA, "second destroy", api)
    h.HcclCommDestroy(ranks[1].comm)
    rk.free_all()


def scenario_wrong_device_buffer() -> None:
    api = Api()
    ranks = init_all(api, 2)
    h = api.h
    other = ranks[1].dev(np.zeros(8, np.float32))          # device 1's memory
    o = ranks[0].dev(None, 32)
    expect_code(h.HcclAllReduce(other, o, 8, 4, 0, ranks[0].comm, ranks[0].stream), E_PARA,
                "sendBuf on another device", api, ("device 1", "device 0"))
    expect_code(h.HcclAllReduce(o, o, 8, 4, 0, ranks[0].comm, ranks[1].stream), E_PARA, "stream of another device",
                api, ("stream",))
    for r in ranks:
        r.free_all()
        h.HcclCommDestroy(r.comm)


def scenario_mismatch_fails_every_rank() -> None:
    api = Api()
    ranks = init_all(api, 2)
    h = api.h
    outs = []
    for rk, count in zip(ranks, (8, 16)):
        s, o = rk.dev(np.ones(count, np.float32)), rk.dev(None, count * 4)
        expect_code(h.HcclAllReduce(s, o, count, 4, 0, rk.comm, rk.stream), HCCL_SUCCESS, "enqueue", api)
        outs.append((rk, o, count))
    for rk, o, count in outs:
        rk.sync()
        err = C.c_int()
        expect_code(h.HcclGetCommAsyncError(rk.comm, C.byref(err)), HCCL_SUCCESS, "async error", api)
        assert err.value == E_PARA, f"rank {rk.rank}: async error {err.value}"
        assert np.all(rk.host(o, count * 4) == 0xA5), "a failed all-reduce wrote its output"
    # the comm still works afterwards: ranks agree again
    for rk in ranks:
        s, o = rk.dev(np.full(4, rk.rank + 1, np.float32)), rk.dev(None, 16)
        h.HcclAllReduce(s, o, 4, 4, 0, rk.comm, rk.stream)
        outs.append((rk, o, 4))
    for rk, o, _ in outs[2:]:
        rk.sync()
        assert np.all(rk.host(o, 16).view(np.float32) == 3.0)
    for rk in ranks:
        rk.free_all()
        h.HcclCommDestroy(rk.comm)


def scenario_missing_rank_times_out() -> None:
    """HCCL_CONNECT_TIMEOUT=2: rank 1 of 3 joins, 0 and 2 never do; the error names them."""
    api = Api()
    api.check(api.acl.aclInit(None), "aclInit")
    ri = root_info(api)
    api.check(api.acl.aclrtSetDevice(0), "aclrtSetDevice")
    comm = C.c_void_p()
    import time
    t0 = time.monotonic()
    rc = api.h.HcclCommInitRootInfo(3, C.create_string_buffer(ri, 4108), 1, C.byref(comm))
    took = time.monotonic() - t0
    expect_code(rc, E_TIMEOUT, "missing ranks", api, ("0, 2", "HCCL_CONNECT_TIMEOUT"))
    assert took < 8, f"took {took:.1f} s"


def scenario_rendezvous_rejects() -> None:
    """A wrong nRanks, a duplicate rank and a corrupted root info are refused with clear errors."""
    api = Api()
    api.check(api.acl.aclInit(None), "aclInit")
    ri = root_info(api)
    api.check(api.acl.aclrtSetDevice(0), "aclrtSetDevice")
    results: dict[str, tuple[int, str]] = {}

    def call(name: str, n: int, rank: int, data: bytes) -> None:
        api.check(api.acl.aclrtSetDevice(rank % 2), "aclrtSetDevice")
        comm = C.c_void_p()
        rc = api.h.HcclCommInitRootInfo(n, C.create_string_buffer(data, 4108), rank, C.byref(comm))
        results[name] = (rc, api.errmsg())
    t = threading.Thread(target=call, args=("first", 2, 0, ri))
    t.start()
    import time
    time.sleep(0.3)
    call("wrong_nranks", 3, 1, ri)
    call("duplicate", 2, 0, ri)
    bad = bytearray(ri)
    bad[36] ^= 0xFF                                       # inside the nonce (bytes 32..47)
    call("nonce", 2, 1, bytes(bad))
    call("magic", 2, 1, b"\0" * 4108)
    call("second", 2, 1, ri)
    t.join()
    assert results["wrong_nranks"][0] == E_PARA and "nRanks 3" in results["wrong_nranks"][1], results
    assert results["duplicate"][0] == E_PARA and "joined already" in results["duplicate"][1], results
    assert results["nonce"][0] == E_PARA and "nonce" in results["nonce"][1], results
    assert results["magic"][0] == E_PARA and "HcclGetRootInfo" in results["magic"][1], results
    assert results["first"][0] == 0 and results["second"][0] == 0, results


def scenario_checking_mode_sees_collectives() -> None:
    """PYACL_HARDGRAD_CHECK=1: reading the receive buffer before the stream is synchronised is
    use-before-sync (the report goes to stderr, which the test reads)."""
    api = Api()
    ranks = init_all(api, 2)
    h = api.h
    outs = []
    for rk in ranks:
        s, o = rk.dev(np.ones(1024, np.float32)), rk.dev(None, 4096)
        h.HcclAllReduce(s, o, 1024, 4, 0, rk.comm, rk.stream)
        outs.append((rk, o))
    rk, o = outs[0]
    rk.host(o, 4096)                       # no synchronize first
    for rk, _ in outs:
        rk.sync()
        rk.close()


def scenario_group_sends_before_receives() -> None:
    """Inside a group, every rank receives from its left before sending to its right: the group
    runs the (buffered) sends first, so it completes."""
    api = Api()
    n = 3
    ranks = init_all(api, n)
    h = api.h
    outs = []
    assert h.HcclGroupStart() == 0
    for rk in ranks:
        s, o = rk.dev(np.full(5, rk.rank, np.int32)), rk.dev(None, 20)
        assert h.HcclRecv(o, 5, 2, (rk.rank - 1) % n, rk.comm, rk.stream) == 0
        assert h.HcclSend(s, 5, 2, (rk.rank + 1) % n, rk.comm, rk.stream) == 0
        outs.append((rk, o))
    assert h.HcclGroupEnd() == 0
    assert h.HcclGroupEnd() == E_PARA
    for rk, o in outs:
        rk.sync()
        assert np.all(rk.host(o, 20).view(np.int32) == (rk.rank - 1) % n)
    for rk in ranks:
        assert h.HcclBarrier(rk.comm, rk.stream) == 0
    for rk in ranks:
        rk.sync()
        rk.free_all()
        h.HcclCommDestroy(rk.comm)


def scenario_no_host_meaning_calls() -> None:
    api = Api()
    ranks = init_all(api, 2)
    h = api.h
    win = C.c_void_p()
    expect_code(h.HcclCommSymWinRegister(ranks[0].comm, None, C.c_uint64(0), C.byref(win), 1), E_NOT_SUPPORT,
                "HcclCommSymWinRegister", api, ("HcclCommSymWinRegister",))
    expect_code(h.HcclCommSetMemoryRange(ranks[0].comm, None, C.c_size_t(0), C.c_size_t(0), C.c_uint64(0)),
                E_NOT_SUPPORT, "HcclCommSetMemoryRange", api, ("HcclCommSetMemoryRange",))
    for rk in ranks:
        h.HcclCommDestroy(rk.comm)


RANK_TABLE = """{
    "status": "completed", "version": "1.0", "server_count": "1",
    "server_list": [{"server_id": "node_0", "device": [
        {"device_id": "1", "device_ip": "192.168.1.9", "rank_id": "0"},
        {"device_id": "0", "device_ip": "192.168.1.8", "rank_id": "1"},
        {"device_id": "2", "rank_id": 2}]}]
}"""


def scenario_rank_table() -> None:
    """HcclCommInitClusterInfo: three thread ranks of a rank table meet and all-reduce; broken
    tables are refused with HCCL's codes."""
    import tempfile
    api = Api()
    api.check(api.acl.aclInit(None), "aclInit")
    h = api.h
    h.HcclCommInitClusterInfo.argtypes = [C.c_char_p, C.c_uint32, C.c_void_p]
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "rank_table.json"
        path.write_text(RANK_TABLE)
        bad: list[str] = []
        case = {"kind": "allreduce", "dtype": "fp32", "op": "sum", "count": 1000, "root": 0, "seed": 5}

        def body(r: int) -> None:
            try:
                device = {0: 1, 1: 0, 2: 2}[r]
                api.check(api.acl.aclrtSetDevice(device), "aclrtSetDevice")
                comm = C.c_void_p()
                api.check(h.HcclCommInitClusterInfo(str(path).encode(), r, C.byref(comm)), "HcclCommInitClusterInfo")
                rk = Rank(api, r, device, comm)
                bad.extend(run_case([rk], case, 3))
                rk.close()
            except Exception as e:  # reported below
                bad.append(f"rank {r}: {e}")
        threads = [threading.Thread(target=body, args=(r,)) for r in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not bad, bad
        comm = C.c_void_p()
        expect_code(h.HcclCommInitClusterInfo(str(Path(d) / "missing.json").encode(), 0, C.byref(comm)), 10,
                    "missing file", api, ("missing.json",))
        path.write_text(RANK_TABLE.replace("completed", "initializing"))
        expect_code(h.HcclCommInitClusterInfo(str(path).encode(), 0, C.byref(comm)), E_PARA, "status", api,
                    ("initializing",))
        path.write_text(RANK_TABLE.replace('"rank_id": 2', '"rank_id": 1'))
        expect_code(h.HcclCommInitClusterInfo(str(path).encode(), 0, C.byref(comm)), E_PARA, "duplicate rank", api,
                    ("twice",))
        path.write_text(RANK_TABLE.replace('"server_list": [{', '"server_list": [{"server_id": "x", "device": []}, {'))
        expect_code(h.HcclCommInitClusterInfo(str(path).encode(), 0, C.byref(comm)), E_NOT_SUPPORT, "two servers",
                    api, ("2 servers",))
        path.write_text("{\"status\": ")
        expect_code(h.HcclCommInitClusterInfo(str(path).encode(), 0, C.byref(comm)), E_PARA, "truncated", api,
                    ("not valid JSON",))


SCENARIOS: dict[str, Callable[[], None]] = {
    name[len("scenario_"):]: f for name, f in globals().items() if name.startswith("scenario_") and callable(f)
}


def main(argv: list[str]) -> int:
    mode = argv[0]
    if mode == "threads":
        return run_threads(int(argv[1]), json.loads(argv[2]))
    if mode == "rootinfo-threads":
        return run_rootinfo_threads(int(argv[1]), json.loads(argv[2]))
    if mode == "rank":
        return run_rank(int(argv[1]), int(argv[2]), argv[3], json.loads(argv[4]))
    if mode == "scenario":
        SCENARIOS[argv[1]]()
        print("OK")
        return 0
    raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
