"""Lay out the CANN-shaped install tree the package carries (``pyacl_hardgrad/_cann``):

    _cann/include/                 the headers (acl/, aclnn/, aclnnop/, ...)
    _cann/lib64/                   libascendcl.so, libacl_rt.so, libnnopbase.so, libopapi.so
    _cann/set_env.sh               sets ASCEND_HOME_PATH, ASCEND_INSTALL_PATH, LD_LIBRARY_PATH
    _cann/bin/setenv.bash          the same, where older CANN layouts keep it
    _cann/share/info/<pkg>/version.info
    _cann/tikcpp/ascendc_kernel_cmake/ascendc.cmake
                                   lets CMake files that include it configure; building an
                                   Ascend C kernel with it stops with a clear error

so that CANN's CMake samples build unmodified with
``-DASCEND_CANN_PACKAGE_PATH=$(python -m pyacl_hardgrad --cann-path)`` and tools looking for
``ASCEND_HOME_PATH`` find it.  libacl_rt.so is the same library as libascendcl.so (its
SONAME is libascendcl.so), so a program linking both gets one runtime.
Standard library only: setup.py imports it before anything is installed.
"""
from __future__ import annotations

import shutil
from pathlib import Path

# The release of CANN's runtime whose ABI the embedded runtime implements.
CANN_VERSION = "9.1.0"
PACKAGES = ("runtime", "cann")

SET_ENV = """\
# pyacl_hardgrad: environment of the embedded runtime's CANN-shaped tree, the way a CANN
# install's set_env.sh sets it.  Source it: `source <tree>/set_env.sh`.
_hg_cann_root="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/@UP@" && pwd)"
export ASCEND_HOME_PATH="${_hg_cann_root}"
export ASCEND_INSTALL_PATH="${_hg_cann_root}"
export ASCEND_TOOLKIT_HOME="${_hg_cann_root}"
case ":${LD_LIBRARY_PATH:-}:" in
    *":${_hg_cann_root}/lib64:"*) ;;
    *) export LD_LIBRARY_PATH="${_hg_cann_root}/lib64${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}" ;;
esac
unset _hg_cann_root
"""


ASCENDC_CMAKE = """\
# pyacl_hardgrad: stand-in for CANN's ascendc.cmake.  The embedded runtime runs on the CPU
# and cannot compile Ascend C kernels; CMake projects that include this file for their host
# code configure and build, and asking for a kernel library stops with this message.
function(ascendc_library target)
    message(FATAL_ERROR "ascendc_library(${target}): Ascend C kernels need CANN's compiler (bisheng) "
                        "and an NPU; the embedded runtime of pyacl_hardgrad builds host code only")
endfunction()
function(ascendc_compile_definitions)
endfunction()
function(ascendc_include_directories)
endfunction()
"""


def lib_dir(root: Path) -> Path:
    return Path(root) / "lib64"


def finish(root: Path, include_src: Path) -> Path:
    """Complete the tree at root whose lib64/ already holds the three built libraries."""
    root = Path(root)
    lib = lib_dir(root)
    if not (lib / "libascendcl.so").is_file():
        raise FileNotFoundError(f"{lib / 'libascendcl.so'} is missing: build the libraries into {lib} first")
    shutil.copy2(lib / "libascendcl.so", lib / "libacl_rt.so")
    inc = root / "include"
    if inc.exists():
        shutil.rmtree(inc)
    shutil.copytree(include_src, inc)
    (root / "set_env.sh").write_text(SET_ENV.replace("@UP@", "."))
    (root / "bin").mkdir(exist_ok=True)
    (root / "bin" / "setenv.bash").write_text(SET_ENV.replace("@UP@", ".."))
    cmake_dir = root / "tikcpp" / "ascendc_kernel_cmake"
    cmake_dir.mkdir(parents=True, exist_ok=True)
    (cmake_dir / "ascendc.cmake").write_text(ASCENDC_CMAKE)
    for pkg in PACKAGES:
        info = root / "share" / "info" / pkg
        info.mkdir(parents=True, exist_ok=True)
        (info / "version.info").write_text(f"Version={CANN_VERSION}\nversion_dir={CANN_VERSION}\n")
    return root
