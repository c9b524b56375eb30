"""Executor life cycle in libnnopbase: one-shot, repeatable, destroy, workspace checks.

Driven by a fake operator compiled into tests/c/nnopbase_executor.c (white box through
hg_internal.h); under valgrind when available, so stale handles must never be read.
"""
from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

SRC = "nnopbase_executor.c"
INTERNAL = [f"-I{REPO_ROOT / 'pyacl_hardgrad' / '_embedded' / 'common'}"]

CASES = ["one_shot", "destroy_unused", "nulls", "wrong_op", "workspace", "repeatable",
         "repeatable_late", "destroy_queued", "submit_fails", "threads", "many"]


@pytest.mark.parametrize("case", CASES)
def test_executor_mechanics(cprog, valgrind_available, case):
    exe = cprog.build(SRC, extra=INTERNAL)
    proc = cprog.run(exe, case, valgrind=valgrind_available, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip() == "OK"
