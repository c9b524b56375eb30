"""CANN's HCCL benchmark tool, hccl_test (Apache-2.0, CANN's oam-tools repository, src/hccl_test),
built with its own Makefile against the package's CANN-shaped tree (``--cann-path``: libhccl,
libacl_rt, libmsprofiler and the headers) and MPICH, runs its all_reduce, broadcast, all_gather,
reduce_scatter and alltoall tests over 2 and 4 processes (``mpirun -n N ./bin/<op>_test -b 8K -e 64M
-f 2 -p N``), and every row of each table must report ``success`` (the tool checks the results
itself).  hccl_test is not part of this repository: point PYACL_HARDGRAD_HCCL_TEST_SRC at its
source folder (the one holding its Makefile); without it these tests skip."""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

SRC_ENV = "PYACL_HARDGRAD_HCCL_TEST_SRC"
OPERATIONS = ["all_reduce", "broadcast", "all_gather", "reduce_scatter", "alltoall"]
# 8K .. 64M, doubling: 14 sizes
SIZES = [8192 << i for i in range(14)]
ROW = re.compile(r"^\s*(\d+)\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|\s*(\S+)\s*$")


def _mpi_dirs() -> tuple[str, str]:
    """(include folder, library folder) of the MPI that mpicc wraps."""
    show = subprocess.run(["mpicc", "-show"], capture_output=True, text=True, check=True).stdout
    inc = [w[2:] for w in shlex.split(show) if w.startswith("-I")]
    lib = [w[2:] for w in shlex.split(show) if w.startswith("-L")]
    return (inc[0] if inc else "/usr/include"), (lib[0] if lib else "/usr/lib")


@pytest.fixture(scope="module")
def hccl_test_bin(hg, tmp_path_factory):
    src = os.environ.get(SRC_ENV)
    if not src:
        pytest.skip(f"{SRC_ENV} is not set (the folder of hccl_test's sources, src/hccl_test of CANN's oam-tools)")
    if not (Path(src) / "Makefile").is_file():
        pytest.fail(f"{SRC_ENV}={src} holds no Makefile")
    for tool in ("mpicc", "mpirun", "make", "g++"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (MPICH: apt-get install mpich libmpich-dev)")
    cann = Path(hg.get_cann_path())
    if not (cann / "lib64" / "libhccl.so").is_file():
        pytest.skip(f"{cann / 'lib64'} has no libhccl.so (the collectives are not built into this package)")
    build = tmp_path_factory.mktemp("hccl_test") / "hccl_test"
    shutil.copytree(src, build)
    inc, lib = _mpi_dirs()
    proc = subprocess.run(["make", "-j2", f"ASCEND_DIR={cann}", "MPI_HOME=/usr", f"MPI_INC_DIR={inc}",
                           f"MPI_LIB_DIR={lib}", *[f"{op}_test" for op in OPERATIONS]],
                          cwd=build, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, f"building hccl_test failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return build / "bin"


@pytest.mark.parametrize("ranks", [2, 4])
@pytest.mark.parametrize("operation", OPERATIONS)
def test_hccl_test_reports_every_row_success(hg, hccl_test_bin, operation, ranks):
    env = dict(os.environ, LD_LIBRARY_PATH=str(Path(hg.get_library_dir())),
               PYACL_HARDGRAD_DEVICE_COUNT=str(max(8, ranks)))
    cmd = ["mpirun", "-n", str(ranks), str(hccl_test_bin / f"{operation}_test"), "-b", "8K", "-e", "64M",
           "-f", "2", "-p", str(ranks)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env)
    print(proc.stdout)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    rows = [m.groups() for m in map(ROW.match, proc.stdout.splitlines()) if m]
    assert [int(r[0]) for r in rows] == SIZES, proc.stdout
    assert all(r[3] == "success" for r in rows), proc.stdout
    assert all(float(r[2]) > 0 for r in rows), proc.stdout
