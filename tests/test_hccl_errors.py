"""HCCL's argument checks and codes, and failures that must end in a clear error instead of a
hang or a crash: mismatched operations between ranks, a rank that never joins, a destroyed
communicator, buffers and streams of another device; checking mode sees the collectives.
Each scenario of hg_hccl.py runs in its own process."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

DRIVER = Path(__file__).resolve().parent / "hg_hccl.py"


def scenario(name: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = dict(os.environ)
    full["PYACL_HARDGRAD_DEVICE_COUNT"] = "4"
    full.update(env)
    return subprocess.run([sys.executable, str(DRIVER), "scenario", name], capture_output=True, text=True,
                          env=full, timeout=60, cwd="/")


@pytest.mark.parametrize("name", ["argument_errors", "destroyed_comm", "wrong_device_buffer",
                                  "mismatch_fails_every_rank", "rendezvous_rejects",
                                  "group_sends_before_receives", "no_host_meaning_calls", "rank_table"])
def test_scenario(name: str) -> None:
    proc = scenario(name, HCCL_CONNECT_TIMEOUT="3")
    assert proc.returncode == 0 and proc.stdout.strip().endswith("OK"), proc.stdout + proc.stderr


def test_missing_rank_fails_within_the_connect_timeout_naming_it() -> None:
    proc = scenario("missing_rank_times_out", HCCL_CONNECT_TIMEOUT="2")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mismatch_is_logged_naming_the_field_and_the_ranks() -> None:
    proc = scenario("mismatch_fails_every_rank", ASCEND_SLOG_PRINT_TO_STDOUT="1", ASCEND_GLOBAL_LOG_LEVEL="3")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "count differs" in proc.stdout and "rank 1 runs HcclAllReduce" in proc.stdout, proc.stdout


def test_checking_mode_reports_a_host_read_of_the_receive_buffer_before_sync() -> None:
    proc = scenario("checking_mode_sees_collectives", PYACL_HARDGRAD_CHECK="1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "use-before-sync" in proc.stderr and "HcclAllReduce" in proc.stderr, proc.stderr
