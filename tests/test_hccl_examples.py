"""HCCL's own examples (CANN's hccl repository: ``examples/01_point_to_point`` and
``examples/02_collectives``), built unmodified with their own Makefiles against the package's
CANN-shaped tree (``ASCEND_HOME_PATH`` = ``--cann-path``) and run on 2 and 4 virtual devices
(one thread per device, as they are written): each must exit 0 and every rank must print the
values its algorithm gives.  The examples are not part of this repository: point
PYACL_HARDGRAD_HCCL_EXAMPLES at that ``examples/`` folder; without it these tests skip.

The expected values are computed here from what each example feeds in (rank r's input):
count = n (the device count) floats, and
  send_recv         even ranks send [r]*n to r+1; the odd ranks print what they received
  batch_send_recv   a ring: rank r prints [(r-1) mod n]*n
  allreduce         input [0..n-1] on every rank, sum: [i*n]
  broadcast         root 0's [0..n-1]
  allgather         one float r from each rank: [0..n-1]
  reduce_scatter    input [0..n-1], sum, one float each: rank r gets [r*n]
  reduce            input [0..n-1], sum to root 0: [i*n] (the other ranks print a buffer
                    nothing wrote; not compared)
  alltoall(v)(c)    input [r]*n, one float to each peer: [0..n-1]
  scatter           root 0's [0..n-1], one float each: rank r gets [r]
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

EXAMPLES_ENV = "PYACL_HARDGRAD_HCCL_EXAMPLES"
OUTPUT = re.compile(r"^rankId: (\d+), output: \[([^\]]*)\]$", re.M)

# example folder -> rank, n -> the values it prints (None: not printed / not compared)
Expect = Callable[[int, int], "list[float] | None"]
EXAMPLES: dict[str, Expect] = {
    "01_point_to_point/01_send_recv": lambda r, n: [float(r - 1)] * n if r % 2 else None,
    "01_point_to_point/02_batch_send_recv_ring": lambda r, n: [float((r - 1) % n)] * n,
    "02_collectives/01_allreduce": lambda r, n: [float(i * n) for i in range(n)],
    "02_collectives/02_broadcast": lambda r, n: [float(i) for i in range(n)],
    "02_collectives/03_allgather": lambda r, n: [float(i) for i in range(n)],
    "02_collectives/04_reduce_scatter": lambda r, n: [float(r * n)],
    "02_collectives/05_reduce": lambda r, n: [float(i * n) for i in range(n)] if r == 0 else None,
    "02_collectives/06_alltoall": lambda r, n: [float(i) for i in range(n)],
    "02_collectives/07_alltoallv": lambda r, n: [float(i) for i in range(n)],
    "02_collectives/08_alltoallvc": lambda r, n: [float(i) for i in range(n)],
    "02_collectives/09_scatter": lambda r, n: [float(r)],
}


@pytest.fixture(scope="module")
def built(hg, tmp_path_factory) -> dict[str, Path]:
    """example -> its executable, each built by its own Makefile (`make`) in a copy."""
    src = os.environ.get(EXAMPLES_ENV)
    if not src:
        pytest.skip(f"{EXAMPLES_ENV} is not set (the examples/ folder of CANN's hccl repository)")
    for tool in ("make", "g++"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    cann = Path(hg.get_cann_path())
    if not (cann / "lib64" / "libhccl.so").is_file():
        pytest.skip(f"{cann / 'lib64'} has no libhccl.so (the collectives are not built into this package)")
    root = tmp_path_factory.mktemp("hccl_examples")
    exes = {}
    for name in EXAMPLES:
        folder = Path(src) / name
        if not (folder / "Makefile").is_file():
            pytest.fail(f"{EXAMPLES_ENV}={src} has no {name}/Makefile")
        work = root / name
        shutil.copytree(folder, work)
        proc = subprocess.run(["make"], cwd=work, capture_output=True, text=True, timeout=600,
                              env=dict(os.environ, ASCEND_HOME_PATH=str(cann)))
        assert proc.returncode == 0, f"{name}: make failed\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        target = re.search(r"^TARGET\s*=\s*(\S+)", (work / "Makefile").read_text(), re.M)
        assert target, f"{name}: no TARGET in its Makefile"
        exes[name] = work / target.group(1)
    return exes


def test_every_example_of_both_folders_is_listed(built):
    src = Path(os.environ[EXAMPLES_ENV])
    found = {str(p.parent.relative_to(src)) for p in src.glob("0[12]_*/*/Makefile")}
    assert found == set(EXAMPLES)


@pytest.mark.parametrize("devices", [2, 4])
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_prints_the_values_of_its_algorithm(hg, built, name, devices):
    env = dict(os.environ, LD_LIBRARY_PATH=str(hg.get_library_dir()), PYACL_HARDGRAD_DEVICE_COUNT=str(devices))
    proc = subprocess.run([str(built[name])], cwd=built[name].parent, capture_output=True, text=True,
                          timeout=120, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"Found {devices} NPU device(s)" in proc.stdout, proc.stdout
    printed = {int(r): [float(v) for v in vals.split()] for r, vals in OUTPUT.findall(proc.stdout)}
    want = {r: EXAMPLES[name](r, devices) for r in range(devices)}
    assert set(printed) == {r for r, w in want.items() if w is not None or name.endswith("05_reduce")}, proc.stdout
    for r, w in want.items():
        if w is not None:
            assert printed[r] == w, f"rank {r}: {printed[r]} != {w}\n{proc.stdout}"


# What checking mode finds in them, by example: a real misuse each.  05_reduce copies recvBuf to
# the host on every rank (main.cc line 92), but HcclReduce writes it on the root only: on the
# other ranks the copy reads device memory nothing wrote (allocated at line 73).
FINDINGS = {"02_collectives/05_reduce": {"uninitialized-read": 1}}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_under_check_reports_only_its_known_misuse(hg, built, name, tmp_path):
    out = tmp_path / "findings.json"
    proc = subprocess.run([sys.executable, "-m", "pyacl_hardgrad", "check", "--json", str(out), str(built[name])],
                          cwd=built[name].parent, capture_output=True, text=True, timeout=120,
                          env={**{k: v for k, v in os.environ.items() if not k.startswith("PYACL_HARDGRAD_CHECK")},
                               "PYACL_HARDGRAD_DEVICE_COUNT": "2"})
    want = FINDINGS.get(name, {})
    assert proc.returncode == (1 if want else 0), proc.stdout + proc.stderr
    found = json.loads(out.read_text())["findings"]
    assert Counter(f["kind"] for f in found) == Counter(want), proc.stderr
    for f in found:        # the non-root rank's copy of its receive buffer
        assert f["site"]["call"] == "aclrtMemcpy" and "device 1" in f["message"], proc.stderr
