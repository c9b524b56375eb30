"""The header checker (pyacl_hardgrad/_build/check_headers.py): it finds each kind of
difference between two header trees, and, given CANN's real headers
(PYACL_HARDGRAD_CANN_HEADERS=root[:root...], e.g. CANN's runtime repository's
include/external and opbase's include/nnopbase), finds none in ours."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CHECKER = REPO / "pyacl_hardgrad" / "_build" / "check_headers.py"

CANN_SIDE = """\
#include <stddef.h>
#include <stdint.h>
#include "acl/acl_base.h"
#define ACL_SOME_FLAG 0x10U
typedef enum { KIND_A, KIND_B = 5, KIND_C } kindType;
typedef struct cfg { void *p; size_t n; } cfg;
int doThing(int32_t a, const char *name);
int noArgs();
"""
CANN_BASE = "static const int ACL_CODE = 100;\nint baseCall(void);\n"


def _tree(root: Path, acl_h: str, base_h: str) -> Path:
    (root / "acl").mkdir(parents=True)
    (root / "acl" / "acl.h").write_text(acl_h)
    (root / "acl" / "acl_base.h").write_text(base_h)
    return root


def _check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(CHECKER), *args], capture_output=True, text=True, timeout=120)


def test_identical_declarations_written_differently_give_no_difference(tmp_path):
    cann = _tree(tmp_path / "cann", CANN_SIDE, CANN_BASE)
    ours = _tree(tmp_path / "ours", """\
#include <stddef.h>
#include <stdint.h>
#include "acl/acl_base.h"
#define ACL_SOME_FLAG 16
typedef enum { KIND_A = 0, KIND_B = 5, KIND_C = 6 } kindType;
typedef struct cfg { void *p; size_t n; } cfg;
int doThing(int32_t count, const char *label);
int noArgs(void);
""", "#define ACL_CODE 100\nint baseCall();\n")
    proc = _check("--cann", str(cann), "--ours", str(ours))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("0 difference(s)")


def test_each_kind_of_difference_is_reported(tmp_path):
    cann = _tree(tmp_path / "cann", CANN_SIDE, CANN_BASE)
    ours = _tree(tmp_path / "ours", """\
#include <stddef.h>
#include <stdint.h>
#include "acl/acl_base.h"
#define ACL_SOME_FLAG 0x11U
typedef enum { KIND_A, KIND_B = 6 } kindType;
typedef struct cfg { void *p; uint32_t n; } cfg;
int doThing(int64_t a, const char *name);
int noArgs(void);
int baseCall(void);
""", "#define ACL_CODE 101\n")
    proc = _check("--cann", str(cann), "--ours", str(ours))
    assert proc.returncode == 1
    out = proc.stdout
    assert "DIFF constant ACL_SOME_FLAG: CANN 16 / ours 17" in out
    assert "DIFF constant ACL_CODE: CANN 100 / ours 101" in out
    assert "DIFF enum kindType: KIND_B is 5 in CANN, 6 in ours" in out
    assert "DIFF enum kindType: KIND_C = 6 is missing in ours" in out
    assert "DIFF typedef cfg:" in out and "n:uint32_t" in out
    assert "DIFF function doThing: CANN 'int(int32_t,const char*)' / ours 'int(int64_t,const char*)'" in out
    # baseCall sits in acl.h instead of acl_base.h: a program including acl_base.h misses it
    assert "DIFF header acl/acl_base.h: reaches baseCall in CANN, not in ours" in out


def test_our_headers_match_cann_headers():
    roots = os.environ.get("PYACL_HARDGRAD_CANN_HEADERS")
    if not roots:
        pytest.skip("set PYACL_HARDGRAD_CANN_HEADERS to CANN's include roots to compare against them")
    args = []
    for r in roots.split(os.pathsep):
        args += ["--cann", r]
    proc = _check(*args)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 difference(s)" in proc.stdout
