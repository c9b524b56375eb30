"""The embedded libraries build warning-free under -Wall -Wextra with clang on this machine and
for aarch64 with gcc and clang (cross compilers, the build helper's --machine), and the aarch64
libraries give the operators' model bits on the portable and the NEON kernel paths, run under
qemu-user.  Skips only where a compiler or qemu-aarch64 is absent."""
from __future__ import annotations

import platform
import shutil
import subprocess
import sys

import numpy as np
import pytest

import hg_registry
from conftest import C_DIR, REPO_ROOT, CProgramBuilder, Toolchain
from hg_cases import assert_same, run_case

CROSS_GCC = "aarch64-linux-gnu-gcc"
SYSROOT = "/usr/aarch64-linux-gnu"           # the cross gcc's C library, for clang and qemu
# name -> (compiler command, target machine or None for this one's)
BUILDS = {"clang": ("clang", None), "gcc-aarch64": (CROSS_GCC, "aarch64"),
          "clang-aarch64": ("clang --target=aarch64-linux-gnu", "aarch64")}
CROSS = [n for n, (_, m) in BUILDS.items() if m == "aarch64"]

CASES = hg_registry.one_case_per_function()


def _build(name: str, out) -> tuple[object, str]:
    cc, machine = BUILDS[name]
    if shutil.which(cc.split()[0]) is None:
        pytest.skip(f"{cc.split()[0]} is not installed")
    if machine == "aarch64" and shutil.which(CROSS_GCC) is None:
        pytest.skip(f"{CROSS_GCC} is not installed (clang's aarch64 target also needs its C library)")
    if machine is None and platform.machine().lower() not in ("x86_64", "amd64", "aarch64", "arm64"):
        pytest.skip(f"the build helper knows no {platform.machine()} machine")
    cmd = [sys.executable, str(REPO_ROOT / "pyacl_hardgrad" / "_build" / "embedded_libs.py"), "--out", str(out),
           "--cc", cc, "--quiet"] + (["--machine", machine] if machine else [])
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    return out, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    done = {}

    def get(name):
        if name not in done:
            done[name] = _build(name, tmp_path_factory.mktemp(f"lib-{name}"))
        return done[name]
    return get


@pytest.mark.parametrize("name", list(BUILDS))
def test_build_is_warning_free(built, name):
    libdir, output = built(name)
    warnings = [ln for ln in output.splitlines() if "warning:" in ln]
    assert not warnings, "\n".join(warnings[:20])
    machine = BUILDS[name][1]
    if machine:
        head = subprocess.run(["file", "-L", str(libdir / "libopapi.so")], capture_output=True, text=True).stdout
        assert "aarch64" in head, head


@pytest.fixture(scope="module")
def emulated(built, tmp_path_factory):
    """name -> (builder of aarch64 programs run under qemu-aarch64, the driver program)."""
    if shutil.which("qemu-aarch64") is None:
        pytest.skip("qemu-aarch64 is not installed")
    done = {}

    def get(name):
        if name not in done:
            libdir, _ = built(name)
            builder = CProgramBuilder(Toolchain(REPO_ROOT / "include", libdir), tmp_path_factory.mktemp(f"prog-{name}"),
                                      cc=BUILDS[name][0], runner=f"qemu-aarch64 -L {SYSROOT}")
            done[name] = builder, builder.build(C_DIR / "aclnn_driver.c")
        return done[name]
    return get


@pytest.mark.parametrize("path", ["scalar", "neon"])
@pytest.mark.parametrize("name", CROSS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.func)
def test_aarch64_build_gives_the_model_bits_under_qemu(emulated, tmp_path, case, name, path):
    builder, exe = emulated(name)
    inputs = case.make_inputs(np.random.default_rng(5), 20_000)
    env = {"PYACL_HARDGRAD_KERNEL_ISA": path, "PYACL_HARDGRAD_KERNEL_ISA_TRACE": "1",
           "PYACL_HARDGRAD_THREADS": "2", "PYACL_HARDGRAD_SPLIT_NS": "0"}
    got, err = run_case(builder, exe, tmp_path, case, inputs, "contig", env)
    assert f"kernel isa {path} " in err, err
    assert_same(got, case.model(*inputs), f"{case.func} {name} {path}", case.nan_payload, inputs)
