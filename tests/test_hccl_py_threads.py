"""hg.hccl in one process: four virtual devices, their communicators made by init_all, one thread
per rank; every collective x dtype (x reduce operation) against the numpy model of hg_hcclpy.py,
bit for bit (float16/bfloat16 reduced in float32 in rank order and rounded once)."""
from __future__ import annotations

import numpy as np
import pytest

import hg_hcclpy

NDEV = 4


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    path = tmp_path_factory.mktemp("hccl") / "results.npz"
    proc = hg_hcclpy.run_python(f"import hg_hcclpy; hg_hcclpy.thread_worker({str(path)!r}, {NDEV})", devices=NDEV)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


@pytest.mark.parametrize("kind,dtype,op,rank", hg_hcclpy.all_cases(NDEV),
                         ids=lambda v: str(v) if v != "" else "-")
def test_collective_matches_the_rank_order_model(results, kind, dtype, op, rank):
    key = hg_hcclpy.case_key(kind, dtype, op, rank)
    want = hg_hcclpy.expected(kind, dtype, op, rank, NDEV)
    got = results[key]
    assert got.shape == want.shape, key
    np.testing.assert_array_equal(got, hg_hcclpy.bits(want), err_msg=key)
