"""hg.hccl across processes of one host: multiprocessing (spawn), the root info bytes made by
rank 0 and passed through a queue; and a ctypes client that opens only libhccl.so (in the
style of vllm-ascend's pyhccl), the root info through pipes."""
from __future__ import annotations

import multiprocessing

import numpy as np
import pytest

import hg_hcclpy


@pytest.mark.parametrize("n", [2, 4])
def test_processes_share_one_communicator_through_root_info_bytes(n):
    ctx = multiprocessing.get_context("spawn")
    infos, results = ctx.Queue(), ctx.Queue()
    procs = [ctx.Process(target=hg_hcclpy.proc_rank, args=(r, n, infos, results)) for r in range(n)]
    for p in procs:
        p.start()
    got = hg_hcclpy.gather_results(procs, results, n)
    for rank in range(n):
        assert isinstance(got[rank], dict), f"rank {rank}: {got[rank]}"
        want = hg_hcclpy.proc_expected(rank, n)
        for name, value in want.items():
            np.testing.assert_array_equal(got[rank][name], hg_hcclpy.bits(value), err_msg=f"rank {rank} {name}")
    assert all(p.exitcode == 0 for p in procs)


def test_ctypes_client_of_libhccl_alone_all_reduces_and_gathers_across_two_processes():
    n = 2
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    ends = [ctx.Pipe() for _ in range(n - 1)]
    conns = [[a for a, _ in ends]] + [b for _, b in ends]
    procs = [ctx.Process(target=hg_hcclpy.ctypes_rank, args=(r, n, conns[r], results)) for r in range(n)]
    for p in procs:
        p.start()
    got = hg_hcclpy.gather_results(procs, results, n)
    inputs = [hg_hcclpy.rank_input(q, hg_hcclpy.PROC_COUNT, "float32") for q in range(n)]
    for rank in range(n):
        assert isinstance(got[rank], dict), f"rank {rank}: {got[rank]}"
        np.testing.assert_array_equal(got[rank]["all_reduce"], hg_hcclpy.bits(hg_hcclpy.reduce(inputs, "sum")))
        np.testing.assert_array_equal(got[rank]["all_gather"], hg_hcclpy.bits(np.stack(inputs)))
