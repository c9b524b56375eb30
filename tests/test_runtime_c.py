"""The runtime smoke program (tests/c/runtime_smoke.cpp), written like CANN's C++ samples
and linked with CANN's link line, runs to "ALL OK" — natively and under valgrind memcheck."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def smoke_exe(cprog):
    return cprog.build("runtime_smoke.cpp")


def test_runtime_smoke_all_ok(cprog, smoke_exe):
    proc = cprog.run(smoke_exe)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "FAIL" not in proc.stdout
    assert proc.stdout.rstrip().endswith("ALL OK")


def test_runtime_smoke_under_memcheck(cprog, smoke_exe, valgrind_available):
    if not valgrind_available:
        pytest.skip("valgrind is not installed or PYACL_HARDGRAD_TEST_NO_VALGRIND=1 switched it off")
    proc = cprog.run(smoke_exe, valgrind=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ALL OK" in proc.stdout
