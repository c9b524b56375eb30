"""Validation, view and executor rules of the two operators, checked from C++ (tests/c/ops_checks.cpp).

Each check is one function of the program, chosen by name; it exits 0 only when every
return code, message and value it asserts is exact.
"""
from __future__ import annotations

import pytest

PROGRAM = "ops_checks.cpp"

# Checks independent of the simulated SoC.
CHECKS = [
    "ht_null_gradOutput", "ht_null_self", "ht_null_min", "ht_null_max", "ht_null_out",
    "ht_null_workspaceSize", "ht_null_executor",
    "hs_null_gradOutput", "hs_null_self", "hs_null_out", "hs_null_workspaceSize", "hs_null_executor",
    "null_first",
    "ht_dtype_unsupported", "hs_dtype_unsupported", "dtype_message", "ht_dtype_mismatch",
    "hs_dtype_promotion",
    "ht_dims9", "hs_dims9", "ht_shape_mismatch", "hs_shape_mismatch", "formats", "check_order",
    "empty_tensors", "zero_dim",
    "ht_values", "hs_values",
    "transposed_views", "strided_views", "size1_dims_contiguous", "descriptors_destroyed_early",
    "workspace_too_small", "repeatable_runs", "oneshot_second_run", "phase2_is_async_order",
]

BF16_SOCS = ["Ascend910B", "Ascend910B4", "Ascend910_9391", "Ascend950PR"]
NO_BF16_SOCS = ["Ascend910", "Ascend910A", "Ascend910ProA", "Ascend310P3"]


@pytest.fixture(scope="module")
def checks_exe(cprog):
    return cprog.build(PROGRAM)


def _run(cprog, exe, name, soc="Ascend910B4", valgrind=False):
    proc = cprog.run(exe, name, env={"PYACL_HARDGRAD_SOC": soc}, valgrind=valgrind)
    assert proc.returncode == 0, f"{name} on {soc}: rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert f"PASS {name}" in proc.stdout


def test_check_list_matches_program(cprog, checks_exe):
    listed = cprog.run(checks_exe).stdout.split()
    assert sorted(listed) == sorted(CHECKS + ["bf16_accepted", "bf16_rejected"])


@pytest.mark.parametrize("name", CHECKS)
def test_ops_check(cprog, checks_exe, name):
    _run(cprog, checks_exe, name)


@pytest.mark.parametrize("soc", BF16_SOCS)
def test_bf16_accepted_on(cprog, checks_exe, soc):
    _run(cprog, checks_exe, "bf16_accepted", soc)


@pytest.mark.parametrize("soc", NO_BF16_SOCS)
def test_bf16_rejected_on(cprog, checks_exe, soc):
    _run(cprog, checks_exe, "bf16_rejected", soc)


def test_bf16_check_can_fail(cprog, checks_exe):
    """The SoC really matters: the rejection check fails where bf16 is supported."""
    proc = cprog.run(checks_exe, "bf16_rejected", env={"PYACL_HARDGRAD_SOC": "Ascend910B4"})
    assert proc.returncode == 1
    assert "FAIL" in proc.stdout


def test_unknown_check_name(cprog, checks_exe):
    assert cprog.run(checks_exe, "no_such_check").returncode == 2


@pytest.mark.parametrize("name", ["transposed_views", "strided_views", "repeatable_runs", "oneshot_second_run",
                                  "descriptors_destroyed_early", "empty_tensors", "ht_dtype_unsupported"])
def test_ops_check_under_valgrind(cprog, checks_exe, valgrind_available, name):
    if not valgrind_available:
        pytest.skip("valgrind not installed")
    _run(cprog, checks_exe, name, valgrind=True)
