"""aclCreateScalar / hg_scalar_to_float / dtype table (libnnopbase, white box)."""
from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

SRC = "nnopbase_scalar.c"
INTERNAL = [f"-I{REPO_ROOT / 'pyacl_hardgrad' / '_embedded' / 'common'}"]


def _run(cprog, *args, valgrind=False):
    exe = cprog.build(SRC, extra=INTERNAL)
    return cprog.run(exe, *args, valgrind=valgrind)


@pytest.mark.parametrize("case", ["roundtrip", "fp16_all", "misc"])
def test_scalar_values_convert_exactly(cprog, valgrind_available, case):
    # fp16_all is 65536 create/convert/destroy rounds: too slow under valgrind.
    proc = _run(cprog, case, valgrind=valgrind_available and case != "fp16_all")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip() == "OK"


REJECTED = {
    "complex64": "dataType 16 (DT_COMPLEX64)",
    "complex128": "dataType 17 (DT_COMPLEX128)",
    "complex32": "dataType 33 (DT_COMPLEX32)",
    "string": "dataType 13 (DT_STRING)",
    "undefined": "dataType -1 (DT_UNDEFINED)",
    "int4": "dataType 29 (DT_INT4)",
    "uint1": "dataType 30 (DT_UINT1)",
    "fp8_e5m2": "dataType 35 (DT_FLOAT8_E5M2)",
    "fp8_e4m3fn": "dataType 36 (DT_FLOAT8_E4M3FN)",
    "fp8_e8m0": "dataType 37 (DT_FLOAT8_E8M0)",
    "unknown": "dataType 999 (UNKNOWN)",
    "gap": "dataType 5 (UNKNOWN)",
}


@pytest.mark.parametrize("dtype", sorted(REJECTED))
def test_scalar_of_unsupported_dtype_is_refused(cprog, dtype):
    proc = _run(cprog, "reject", dtype)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    line = proc.stdout.strip().splitlines()[-1]
    assert line == f"MSG:aclCreateScalar: {REJECTED[dtype]} is not supported for a scalar", line
