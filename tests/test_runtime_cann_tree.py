"""The CANN-shaped tree inside the package (python -m pyacl_hardgrad --cann-path): its
layout, its set_env.sh, and a CMake project written like CANN's runtime samples that
builds against it with -DASCEND_CANN_PACKAGE_PATH and runs."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _cann_path() -> Path:
    out = subprocess.run([sys.executable, "-m", "pyacl_hardgrad", "--cann-path"], capture_output=True, text=True,
                         cwd="/", check=True)
    return Path(out.stdout.strip())


def test_cann_path_is_a_toolkit_layout(hg):
    root = _cann_path()
    assert Path(hg.get_cann_path()) == root
    for rel in ("include/acl/acl.h", "include/acl/acl_base_rt.h", "include/acl/error_codes/rt_error_codes.h",
                "include/aclnn/acl_meta.h", "include/opdev/op_errno.h", "lib64/libascendcl.so",
                "lib64/libacl_rt.so", "lib64/libnnopbase.so", "lib64/libopapi.so", "set_env.sh",
                "bin/setenv.bash", "share/info/runtime/version.info", "tikcpp/ascendc_kernel_cmake/ascendc.cmake"):
        assert (root / rel).is_file(), rel
    assert Path(hg.get_include()) == root / "include"
    assert Path(hg.get_library_dir()) == root / "lib64"
    assert (root / "share/info/runtime/version.info").read_text().startswith("Version=9.1.0\n")


def test_libacl_rt_is_the_runtime_library_itself():
    """Its SONAME is libascendcl.so: a program linking both loads one runtime."""
    if not shutil.which("readelf"):
        pytest.skip("readelf is not installed")
    out = subprocess.run(["readelf", "-d", str(_cann_path() / "lib64/libacl_rt.so")], capture_output=True, text=True)
    assert "Library soname: [libascendcl.so]" in out.stdout


@pytest.mark.parametrize("script", ["set_env.sh", "bin/setenv.bash"])
def test_set_env_exports_the_toolkit_variables(script):
    root = _cann_path()
    cmd = (f'source "{root / script}" && echo "$ASCEND_HOME_PATH|$ASCEND_INSTALL_PATH|$LD_LIBRARY_PATH" && '
           f'source "{root / script}" && echo "$LD_LIBRARY_PATH"')
    out = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, env={"PATH": os.environ["PATH"]})
    first, second = out.stdout.splitlines()
    home, install, ld = first.split("|")
    assert Path(home) == root and Path(install) == root
    assert ld == str(root / "lib64")
    assert second == ld  # sourcing twice does not repeat the entry


def test_cmake_project_builds_against_the_tree_and_runs(tmp_path):
    if not shutil.which("cmake"):
        pytest.skip("cmake is not installed")
    root = _cann_path()
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    script = f"""
        set -e
        source "{root}/set_env.sh"
        export ASCENDC_CMAKE_DIR="$ASCEND_HOME_PATH/tikcpp/ascendc_kernel_cmake"
        cmake -S "{HERE / 'c' / 'runtime_cmake_sample'}" -B "{tmp_path / 'build'}" \
              -DASCEND_CANN_PACKAGE_PATH="$ASCEND_HOME_PATH" > /dev/null
        cmake --build "{tmp_path / 'build'}" > /dev/null
        "{tmp_path / 'build' / 'main'}"
    """
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines() == ["soc=Ascend910B", "runtime version=9.1.0", "callback value=42",
                                        "int array size=3", "[SUCCESS]"]


def test_ascendc_stand_in_refuses_kernels_clearly(tmp_path):
    if not shutil.which("cmake"):
        pytest.skip("cmake is not installed")
    root = _cann_path()
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16)\nproject(k CXX)\n"
        f"include({root}/tikcpp/ascendc_kernel_cmake/ascendc.cmake)\n"
        "ascendc_library(kernels STATIC add.cpp)\n")
    proc = subprocess.run(["cmake", "-S", str(tmp_path), "-B", str(tmp_path / "b")], capture_output=True, text=True)
    assert proc.returncode != 0
    assert "Ascend C kernels need CANN's compiler" in proc.stderr
