"""Validation, view and executor rules of the two operators, checked from C++ (tests/c/ops_checks.cpp).

Each check is one function of the program, chosen by name; it exits 0 only when every
return code, message and value it asserts is exact.
"""
from __future__ import annotations

import os

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
    "empty_tensors", "empty_huge_dims", "zero_dim",
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


# Checks whose defect is undefined behaviour the plain build does not show (signed int64
# overflow): run again against the libraries built from this tree with UBSan aborting.
UBSAN_CHECKS = ["empty_huge_dims", "empty_tensors", "zero_dim", "transposed_views", "strided_views"]


@pytest.fixture(scope="module")
def ubsan_checks_exe(tmp_path_factory):
    import importlib.util
    import shutil
    import subprocess

    from conftest import C_DIR, REPO_ROOT

    cc = os.environ.get("CC", "cc")
    cxx = os.environ.get("CXX", "g++")
    if shutil.which(cc.split()[0]) is None or shutil.which(cxx) is None:
        pytest.skip("no C/C++ compiler")
    spec = importlib.util.spec_from_file_location(
        "hg_embedded_libs", REPO_ROOT / "pyacl_hardgrad" / "_build" / "embedded_libs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    libdir = tmp_path_factory.mktemp("ubsan_lib")
    try:
        mod.build(libdir, cc=f"{cc} -fsanitize=undefined -fno-sanitize-recover=undefined", verbose=False)
    except RuntimeError as exc:
        pytest.skip(f"the compiler cannot build with -fsanitize=undefined: {exc}")
    exe = libdir / "ops_checks_ubsan"
    cmd = [cxx, "-std=c++17", "-O1", "-g", "-pthread", str(C_DIR / PROGRAM), "-o", str(exe),
           f"-I{REPO_ROOT / 'include'}", f"-L{libdir}", "-lascendcl", "-lnnopbase", "-lopapi",
           f"-Wl,-rpath,{libdir}", "-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return exe


@pytest.mark.parametrize("name", UBSAN_CHECKS)
def test_ops_check_under_ubsan(cprog, ubsan_checks_exe, name):
    proc = cprog.run(ubsan_checks_exe, name, env={"PYACL_HARDGRAD_SOC": "Ascend910B4",
                                                  "UBSAN_OPTIONS": "print_stacktrace=1"})
    assert proc.returncode == 0, f"{name}: rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert f"PASS {name}" in proc.stdout
    assert "runtime error" not in proc.stderr
