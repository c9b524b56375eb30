"""HCCL across processes as if they were hosts: PYACL_HARDGRAD_HCCL_TRANSPORT=net forces every
communicator onto the engine plugin (libhg_net_gloo.so) over loopback, and an HCCL program
(tests/c/hccl_net_procs.c) run as 2 and 4 processes checks all-reduce (int32 sum and max, fp32
sum), all-gather, broadcast from every root, all-to-all, a send/recv ring and barrier element
for element, from 1 to 2^20 elements.  Skips only when the plugin was not built."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from conftest import C_DIR, Toolchain


@pytest.fixture(scope="module")
def program(toolchain: Toolchain, tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not (toolchain.library_dir / "libhg_net_gloo.so").exists():
        pytest.skip("libhg_net_gloo.so was not built (Gloo not found at install time, or PYACL_HARDGRAD_GLOO=0)")
    exe = tmp_path_factory.mktemp("hccl_net") / "hccl_net_procs"
    cmd = shlex.split(os.environ.get("CC", "cc")) + [
        "-std=c11", "-O1", "-g", "-Wall", "-Wextra", "-Werror", "-pthread", str(C_DIR / "hccl_net_procs.c"),
        f"-I{toolchain.include_dir}", f"-L{toolchain.library_dir}", "-lhccl", "-lascendcl",
        f"-Wl,-rpath,{toolchain.library_dir}", "-o", str(exe)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, " ".join(cmd) + "\n" + proc.stderr
    return exe


def run_job(program: Path, tmp_path: Path, nranks: int) -> list[tuple[int, str]]:
    env = dict(os.environ, PYACL_HARDGRAD_HCCL_TRANSPORT="net", ASCEND_GLOBAL_LOG_LEVEL="1",
               ASCEND_SLOG_PRINT_TO_STDOUT="1")
    root_info = tmp_path / "root_info.bin"
    procs = [subprocess.Popen([str(program), str(root_info), str(r), str(nranks)], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, env=env) for r in range(nranks)]
    results = []
    try:
        for p in procs:
            out, _ = p.communicate(timeout=600)
            results.append((p.returncode, out))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return results


@pytest.mark.parametrize("nranks", [2, 4])
def test_hccl_collectives_and_send_recv_across_processes_on_the_net_engine(program: Path, tmp_path: Path,
                                                                           nranks: int) -> None:
    for rank, (code, out) in enumerate(run_job(program, tmp_path, nranks)):
        assert code == 0, f"rank {rank}:\n" + "\n".join(ln for ln in out.splitlines() if "[INFO]" not in ln)[-4000:]
        # The communicator ran on the engine plugin, not on shared memory.
        assert re.search(r"joined comm \S+ \(engine net", out), out[-4000:]
        for count in (1, 1000, 65537, 1 << 20):
            assert f"ok count {count}:" in out
        assert "ok done" in out
