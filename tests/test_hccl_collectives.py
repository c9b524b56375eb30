"""HCCL's collectives against numpy, bit for bit: every collective x every data type (x every
reduce op for the reductions) on 2 and 4 ranks, as ranks of one process made by
HcclCommInitAll, as threads meeting at a root info, and as processes of one host (shared
memory; and the net engine forced, when its plugin is built).  The driver is hg_hccl.py
(ctypes through libhccl.so), each run in a subprocess with a timeout."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hg_hccl import case_list

DRIVER = Path(__file__).resolve().parent / "hg_hccl.py"
KINDS = ["allreduce", "reduce", "reducescatter", "reducescatterv", "allgather", "allgatherv", "broadcast",
         "scatter", "alltoall", "alltoallv", "alltoallvc", "sendrecv", "batch", "group"]


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYACL_HARDGRAD_DEVICE_COUNT"] = "4"
    env.update(extra)
    return env


def _run(args: list[str], env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(DRIVER), *args], capture_output=True, text=True, env=env,
                          timeout=timeout, cwd="/")


@pytest.mark.parametrize("nranks", [2, 4])
@pytest.mark.parametrize("kind", KINDS)
def test_collective_matches_numpy_on_ranks_of_one_process(kind: str, nranks: int) -> None:
    proc = _run(["threads", str(nranks), json.dumps(case_list(kind, nranks))], _env())
    assert proc.returncode == 0 and proc.stdout.startswith("OK"), proc.stdout + proc.stderr


@pytest.mark.parametrize("kind", ["allreduce", "reducescatter", "allgatherv", "alltoallv", "batch"])
def test_collective_matches_numpy_on_threads_meeting_at_a_root_info(kind: str) -> None:
    proc = _run(["rootinfo-threads", "3", json.dumps(case_list(kind, 3))], _env())
    assert proc.returncode == 0 and proc.stdout.startswith("OK"), proc.stdout + proc.stderr


def run_processes(nranks: int, cases: list[dict[str, object]], env: dict[str, str]) -> list[str]:
    """nranks processes; rank 0 makes the root info and prints it first; returns their outputs."""
    spec = json.dumps(cases)
    first = subprocess.Popen([sys.executable, str(DRIVER), "rank", "0", str(nranks), "make", spec],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd="/")
    assert first.stdout is not None
    hexri = first.stdout.readline().strip()
    others = [subprocess.Popen([sys.executable, str(DRIVER), "rank", str(r), str(nranks), hexri, spec],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd="/")
              for r in range(1, nranks)]
    outs = []
    for p in [first, *others]:
        try:
            out, err = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
            out += "\n(timed out)"
        outs.append(f"rc={p.returncode}\n{out}\n{err}")
    return outs


@pytest.mark.parametrize("nranks", [2, 4])
@pytest.mark.parametrize("kind", ["allreduce", "reduce", "reducescatter", "reducescatterv", "allgather",
                                  "allgatherv", "broadcast", "scatter", "alltoall", "alltoallv", "alltoallvc",
                                  "sendrecv", "batch", "group"])
def test_collective_matches_numpy_on_processes_over_shared_memory(kind: str, nranks: int) -> None:
    outs = run_processes(nranks, case_list(kind, nranks), _env())
    for out in outs:
        assert out.startswith("rc=0\nOK"), "\n".join(outs)


def _net_plugin() -> Path:
    from hg_hccl import libdir
    return libdir() / "libhg_net_gloo.so"


@pytest.mark.parametrize("kind", ["allreduce", "reduce", "reducescatterv", "allgatherv", "broadcast", "scatter",
                                  "alltoallvc", "sendrecv", "batch"])
def test_collective_matches_numpy_on_processes_over_the_net_engine(kind: str) -> None:
    """PYACL_HARDGRAD_HCCL_TRANSPORT=net: the Gloo plugin over loopback, as between hosts."""
    if not _net_plugin().exists():
        pytest.skip(f"{_net_plugin()} is not built (Gloo not installed when the package was built)")
    outs = run_processes(3, case_list(kind, 3), _env(PYACL_HARDGRAD_HCCL_TRANSPORT="net"))
    for out in outs:
        assert out.startswith("rc=0\nOK"), "\n".join(outs)


def test_processes_meet_the_same_results_over_every_engine() -> None:
    """One all-reduce in bf16 and fp16 gives the same bits in-process, over shm and over net."""
    cases = [c for c in case_list("allreduce", 2) if c["dtype"] in ("bf16", "fp16") and c["op"] == "sum"]
    assert _run(["threads", "2", json.dumps(cases)], _env()).stdout.startswith("OK")
    engines = ["shm"] + (["net"] if _net_plugin().exists() else [])
    for engine in engines:
        for out in run_processes(2, cases, _env(PYACL_HARDGRAD_HCCL_TRANSPORT=engine)):
            assert out.startswith("rc=0\nOK"), (engine, out)
