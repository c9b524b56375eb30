"""Every registered operator's kernels and pipeline under UndefinedBehaviorSanitizer: the three
libraries are rebuilt with -fsanitize=undefined (no recovery) and one numeric case per aclnn
function runs through tests/c/aclnn_driver.c on the portable and the selected SIMD path, contiguous
and strided, bit for bit against its model, with no runtime error reported."""
from __future__ import annotations

import importlib.util
import os
import shutil

import numpy as np
import pytest

import hg_registry
from conftest import C_DIR, REPO_ROOT, CProgramBuilder, Toolchain
from hg_cases import assert_same, run_case

CASES = hg_registry.one_case_per_function()


@pytest.fixture(scope="module")
def ubsan(tmp_path_factory):
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc.split()[0]) is None:
        pytest.skip("no C compiler")
    spec = importlib.util.spec_from_file_location(
        "hg_embedded_libs", REPO_ROOT / "pyacl_hardgrad" / "_build" / "embedded_libs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    libdir = tmp_path_factory.mktemp("ubsan_ops_lib")
    try:
        mod.build(libdir, cc=f"{cc} -fsanitize=undefined -fno-sanitize-recover=undefined", verbose=False)
    except RuntimeError as exc:
        pytest.skip(f"the compiler cannot build with -fsanitize=undefined: {exc}")
    builder = CProgramBuilder(Toolchain(REPO_ROOT / "include", libdir), tmp_path_factory.mktemp("ubsan_ops_prog"))
    return builder, builder.build(C_DIR / "aclnn_driver.c")


@pytest.mark.parametrize("layout", ["contig", "strided"])
@pytest.mark.parametrize("path", ["scalar", "auto"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.func)
def test_case_under_ubsan(ubsan, tmp_path, case, path, layout):
    builder, exe = ubsan
    inputs = case.make_inputs(np.random.default_rng(21), 70_001)
    env = {"PYACL_HARDGRAD_KERNEL_ISA": path, "PYACL_HARDGRAD_THREADS": "2",
           "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"}
    got, err = run_case(builder, exe, tmp_path, case, inputs, layout, env)
    assert "runtime error" not in err, err
    assert_same(got, case.model(*inputs), f"{case.func} ubsan {path} {layout}", case.nan_payload)
