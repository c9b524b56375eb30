"""Races between threads in plain C (no Python holds).  aclrtFree racing a synchronous
aclrtMemcpy/aclrtMemset of the same block, issued once the copy holds the block: the free
waits for the copy, never a use after free (natively, under valgrind memcheck and ThreadSanitizer).
aclrtDestroyStream racing aclrtSynchronizeStream: the synchronize waits for the work or finds
the handle gone, never returns early."""
import os
import subprocess
from pathlib import Path

import pytest

from hg_cchecks import build_tsan

REPO = Path(__file__).resolve().parents[1]


def test_free_during_copy_never_frees_under_the_copy(cprog):
    exe = cprog.build("memory_free_race.c")
    proc = cprog.run(exe, "60")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.rstrip().endswith("ALL OK")
    overlaps = int(proc.stdout.split(",")[1].split()[0])
    assert overlaps >= 1, proc.stdout     # the race was exercised: some frees were issued mid-copy


def test_free_during_copy_under_memcheck(cprog, valgrind_available):
    if not valgrind_available:
        pytest.skip("valgrind is not installed or PYACL_HARDGRAD_TEST_NO_VALGRIND=1 switched it off")
    exe = cprog.build("memory_free_race.c")
    proc = cprog.run(exe, "6", valgrind=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ALL OK" in proc.stdout


def test_free_during_copy_under_thread_sanitizer(tmp_path):
    exe = build_tsan(REPO / "tests" / "c" / "memory_free_race.c", tmp_path)
    proc = subprocess.run([str(exe), "8"], capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, TSAN_OPTIONS="halt_on_error=1:exitcode=66"))
    assert proc.returncode == 0, proc.stdout + proc.stderr[-4000:]
    assert "ALL OK" in proc.stdout and "WARNING: ThreadSanitizer" not in proc.stderr


def test_synchronize_racing_destroy_waits_for_the_work(cprog):
    exe = cprog.build("stream_destroy_race.c")
    proc = cprog.run(exe, "20")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.rstrip().endswith("ALL OK")
    waited = int(proc.stdout.split(":")[1].split()[0])
    assert waited >= 1, proc.stdout       # the race was exercised: some synchronize waited
