"""Running the C check programs: an operator folder's C++ check program
(<folder>/tests/c/<folder>_checks.cpp) and the runtime's check programs (tests/c/*.c over
tests/c/runtime_harness.h).

An operator check program is built over the shared harness tests/c/ops_check_harness.h: without
an argument it lists its checks, with one it runs that check and exits 0 only when every return
code, message and value it asserts is exact (1 on a failed assertion, 2 on an unknown name).
The folders' tests (test_<folder>_checks.py) parametrize over their own lists; this module holds
what they share and names no operator.  A runtime check program lists its checks with --list and
runs one by name, printing "PASS <name>" last (named_checks, run_named).
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import C_DIR, REPO_ROOT

BF16_SOCS = ["Ascend910B", "Ascend910B4", "Ascend910_9391", "Ascend950PR"]
NO_BF16_SOCS = ["Ascend910", "Ascend910A", "Ascend910ProA", "Ascend310P3"]
DEFAULT_SOC = "Ascend910B4"


def program(test_file: str) -> Path:
    """The check program of the folder whose tests/ holds `test_file`."""
    tests = Path(test_file).resolve().parent
    return tests / "c" / f"{tests.parent.name}_checks.cpp"


def build(cprog, source: Path) -> Path:
    return cprog.build(source, extra=[f"-I{C_DIR}"])


def listed(cprog, exe) -> list[str]:
    return cprog.run(exe).stdout.split()


def run(cprog, exe, name, soc=DEFAULT_SOC, valgrind=False):
    proc = cprog.run(exe, name, env={"PYACL_HARDGRAD_SOC": soc}, valgrind=valgrind)
    assert proc.returncode == 0, f"{name} on {soc}: rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert f"PASS {name}" in proc.stdout


def assert_bf16_check_can_fail(cprog, exe):
    """The SoC really matters: the rejection check fails where bf16 is supported."""
    proc = cprog.run(exe, "bf16_rejected", env={"PYACL_HARDGRAD_SOC": DEFAULT_SOC})
    assert proc.returncode == 1
    assert "FAIL" in proc.stdout


def assert_unknown_name_refused(cprog, exe):
    assert cprog.run(exe, "no_such_check").returncode == 2


def build_ubsan(source: Path, workdir: Path) -> Path:
    """`source` against the libraries built from this tree with UBSan aborting on the first
    report (signed int64 overflow and other undefined behaviour the plain build does not show)."""
    cc = os.environ.get("CC", "cc")
    cxx = os.environ.get("CXX", "g++")
    if shutil.which(cc.split()[0]) is None or shutil.which(cxx) is None:
        pytest.skip("no C/C++ compiler")
    spec = importlib.util.spec_from_file_location(
        "hg_embedded_libs", REPO_ROOT / "pyacl_hardgrad" / "_build" / "embedded_libs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    try:
        mod.build(workdir, cc=f"{cc} -fsanitize=undefined -fno-sanitize-recover=undefined", verbose=False)
    except RuntimeError as exc:
        pytest.skip(f"the compiler cannot build with -fsanitize=undefined: {exc}")
    exe = workdir / f"{source.stem}_ubsan"
    cmd = [cxx, "-std=c++17", "-O1", "-g", "-pthread", str(source), "-o", str(exe),
           f"-I{REPO_ROOT / 'include'}", f"-I{C_DIR}", f"-L{workdir}", "-lascendcl", "-lnnopbase", "-lopapi",
           f"-Wl,-rpath,{workdir}", "-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return exe


def build_tsan(source: Path, workdir: Path, libs=("ascendcl",)) -> Path:
    """The C program `source` and the libraries built from this tree, both with ThreadSanitizer
    (skips where a TSan program cannot run: no TSan runtime, or under an emulator)."""
    if os.environ.get("PYACL_HARDGRAD_TEST_RUNNER"):
        # a cross build run under qemu-user: a TSan program re-executes itself at start-up,
        # which an emulator without a registered binfmt handler refuses (execve errno 8)
        pytest.skip("ThreadSanitizer programs do not run under PYACL_HARDGRAD_TEST_RUNNER (an emulator)")
    cc = os.environ.get("CC", "cc")
    tsan = subprocess.run([cc, "-print-file-name=libtsan.so"], capture_output=True, text=True).stdout.strip()
    if not os.path.isabs(tsan) or not os.path.exists(tsan):
        pytest.skip(f"{cc} has no ThreadSanitizer runtime")
    libdir = workdir / "lib"
    subprocess.run([sys.executable, str(REPO_ROOT / "pyacl_hardgrad" / "_build" / "embedded_libs.py"), "--out",
                    str(libdir), "--sanitize", "thread", "--quiet"], check=True, capture_output=True, text=True)
    exe = workdir / source.stem
    subprocess.run([cc, "-std=c11", "-O1", "-g", "-fsanitize=thread", "-pthread", str(source), "-o", str(exe),
                    f"-I{REPO_ROOT / 'include'}", f"-I{C_DIR}", f"-L{libdir}"] + [f"-l{lib}" for lib in libs]
                   + [f"-Wl,-rpath,{libdir}"], check=True, capture_output=True, text=True)
    return exe


def run_ubsan(cprog, exe, name):
    proc = cprog.run(exe, name, env={"PYACL_HARDGRAD_SOC": DEFAULT_SOC, "UBSAN_OPTIONS": "print_stacktrace=1"})
    assert proc.returncode == 0, f"{name}: rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert f"PASS {name}" in proc.stdout
    assert "runtime error" not in proc.stderr


def define_tests(namespace: dict, source: Path, checks, valgrind_checks, ubsan_checks) -> None:
    """The test functions of one folder's check program, into its test module's `namespace`:
    the program lists exactly `checks` plus the two bf16 ones; each check passes (the bf16 ones on
    every SoC of their side, the rejection failing where bf16 is supported); an unknown name is
    refused; `valgrind_checks` pass under memcheck and `ubsan_checks` under UBSan."""

    @pytest.fixture(scope="module")
    def checks_exe(cprog):
        return build(cprog, source)

    @pytest.fixture(scope="module")
    def ubsan_checks_exe(tmp_path_factory):
        return build_ubsan(source, tmp_path_factory.mktemp("ubsan_lib"))

    def test_check_list_matches_program(cprog, checks_exe):
        assert sorted(listed(cprog, checks_exe)) == sorted(list(checks) + ["bf16_accepted", "bf16_rejected"])

    @pytest.mark.parametrize("name", checks)
    def test_check(cprog, checks_exe, name):
        run(cprog, checks_exe, name)

    @pytest.mark.parametrize("soc", BF16_SOCS)
    def test_bf16_accepted_on(cprog, checks_exe, soc):
        run(cprog, checks_exe, "bf16_accepted", soc)

    @pytest.mark.parametrize("soc", NO_BF16_SOCS)
    def test_bf16_rejected_on(cprog, checks_exe, soc):
        run(cprog, checks_exe, "bf16_rejected", soc)

    def test_bf16_check_can_fail(cprog, checks_exe):
        assert_bf16_check_can_fail(cprog, checks_exe)

    def test_unknown_check_name(cprog, checks_exe):
        assert_unknown_name_refused(cprog, checks_exe)

    @pytest.mark.parametrize("name", valgrind_checks)
    def test_check_under_valgrind(cprog, checks_exe, valgrind_available, name):
        if not valgrind_available:
            pytest.skip("valgrind not installed")
        run(cprog, checks_exe, name, valgrind=True)

    @pytest.mark.parametrize("name", ubsan_checks)
    def test_check_under_ubsan(cprog, ubsan_checks_exe, name):
        run_ubsan(cprog, ubsan_checks_exe, name)

    namespace.update({k: v for k, v in locals().items() if k.startswith("test_") or k.endswith("_exe")})


# ---- the runtime's check programs (tests/c/runtime_harness.h) ----------------------------------

# The settings the runtime reads at aclInit, cleared so the caller's shell cannot leak in.
RUNTIME_DEFAULTS = {"PYACL_HARDGRAD_DEVICE_COUNT": "", "PYACL_HARDGRAD_DEVICE_MEMORY": "",
                    "PYACL_HARDGRAD_SOC": "", "PYACL_HARDGRAD_SPIN_US": "", "PYACL_HARDGRAD_INLINE": "",
                    "PYACL_HARDGRAD_INLINE_MAX": ""}


def named_checks(cprog, exe) -> list[str]:
    """The names `exe --list` prints, in its order."""
    proc = cprog.run(exe, "--list")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.split()


def run_named(cprog, exe, name, env=None, valgrind=False, timeout=None):
    """Run check `name` of a runtime check program with the runtime's defaults plus `env` (under
    memcheck when `valgrind`: skips where valgrind is off); it must exit 0 with "PASS <name>" last."""
    proc = cprog.run(exe, name, env=dict(RUNTIME_DEFAULTS, **(env or {})), valgrind=valgrind,
                     timeout=timeout or (600 if valgrind else 120))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == f"PASS {name}", proc.stdout
    return proc
