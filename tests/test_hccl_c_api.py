"""HCCL's C API as programs see it: the headers compile warning-free as C11 and C++11 with the
ABI's sizes and values, libhccl.so exports every declared call (the communicator calls too,
forwarded to libhcomm.so, so `-lhccl` alone links and ctypes finds everything through it), and
a C++ program written in the style of HCCL's examples builds with their flags and gets the
values HCCL's algorithms give on 2 and 4 devices."""
from __future__ import annotations

import ctypes
import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import Toolchain

HEADER_CHECK = r"""
#include <stddef.h>
#include "hccl/hccl.h"
#ifdef __cplusplus
#define SA static_assert
#else
#define SA _Static_assert
#endif
SA(sizeof(HcclRootInfo) == 4108, "root info");
SA(offsetof(HcclCommConfig, hcclBufferSize) == 24, "config header");
SA(offsetof(HcclCommConfig, hcclCommName) == 32, "comm name");
SA(HCCL_DATA_TYPE_BFP16 == 11 && HCCL_DATA_TYPE_HIF8 == 14 && HCCL_DATA_TYPE_FP8E8M0 == 17, "dtypes");
SA(HCCL_REDUCE_MIN == 3 && HCCL_E_OOM == 24 && HCCL_E_IN_STATUS == 1041, "codes");
SA(sizeof(HcclSendRecvItem) == 32, "batch item");
int main(void)
{
    HcclCommConfig config;
    HcclCommConfigInit(&config);
    return config.hcclBufferSize == HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET ? 0 : 1;
}
"""


@pytest.mark.parametrize("lang", ["c11", "c++11", "c++14"])
def test_headers_compile_warning_free_with_the_abi_values(toolchain: Toolchain, tmp_path: Path, lang: str) -> None:
    cxx = lang.startswith("c++")
    src = tmp_path / ("h.cpp" if cxx else "h.c")
    src.write_text(HEADER_CHECK)
    cmd = [os.environ.get("CXX", "g++") if cxx else os.environ.get("CC", "gcc"), f"-std={lang}", "-Wall",
           "-Wextra", "-Werror", "-pedantic", f"-I{toolchain.include_dir}", str(src), "-o", str(tmp_path / "h"),
           f"-L{toolchain.library_dir}", "-lhccl", "-lascendcl", f"-Wl,-rpath,{toolchain.library_dir}"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert subprocess.run([str(tmp_path / "h")]).returncode == 0


def _declared(header: Path) -> set[str]:
    return set(re.findall(r"ACL_FUNC_VISIBILITY\s+[\w\s\*]+?\b(Hccl\w+)\s*\(", header.read_text()))


def _exported(lib: Path) -> set[str]:
    out = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if " T " in line}


def test_libhccl_exports_every_declared_call_and_libhcomm_the_communicator_ones(toolchain: Toolchain) -> None:
    ops = _declared(Path(toolchain.include_dir) / "hccl" / "hccl.h")
    mgmt = _declared(Path(toolchain.include_dir) / "hccl" / "hccl_comm.h")
    assert "HcclAllReduce" in ops and "HcclCommInitRootInfo" in mgmt and len(ops) == 14 and len(mgmt) >= 25
    hccl = _exported(Path(toolchain.library_dir) / "libhccl.so")
    hcomm = _exported(Path(toolchain.library_dir) / "libhcomm.so")
    assert ops | mgmt <= hccl, sorted((ops | mgmt) - hccl)
    assert mgmt <= hcomm, sorted(mgmt - hcomm)
    assert not {s for s in hccl | hcomm if s.startswith("Hccl")} - (ops | mgmt)


def test_ctypes_finds_every_call_through_libhccl_alone(toolchain: Toolchain) -> None:
    lib = ctypes.CDLL(str(Path(toolchain.library_dir) / "libhccl.so"))
    lib.HcclGetErrorString.restype = ctypes.c_char_p
    assert lib.HcclGetErrorString(1) == b"parameter error"
    assert lib.HcclGetRankSize(None, None) == 2            # HCCL_E_PTR through the forwarder
    acl = ctypes.CDLL(str(Path(toolchain.library_dir) / "libascendcl.so"))
    acl.aclGetRecentErrMsg.restype = ctypes.c_char_p
    assert b"HcclGetRankSize" in acl.aclGetRecentErrMsg()  # its detail, fetched: this thread's stack is clear
    for name in ("HcclCommInitRootInfo", "HcclCommInitAll", "HcclGetRootInfo", "HcclBarrier", "HcclGroupStart"):
        assert getattr(lib, name) is not None


@pytest.mark.parametrize("devices", [2, 4])
def test_cpp_program_in_hccl_example_style_builds_with_their_flags_and_matches(toolchain: Toolchain, tmp_path: Path,
                                                                              devices: int) -> None:
    src = Path(__file__).resolve().parent / "c" / "hccl_collectives.cpp"
    exe = tmp_path / "hccl_collectives"
    cmd = [os.environ.get("CXX", "g++"), "-std=c++14", "-Werror", "-fstack-protector-strong", "-fPIE", "-pie",
           "-O2", "-Wl,-z,relro", "-Wl,-z,now", "-Wl,-z,noexecstack", str(src), f"-I{toolchain.include_dir}",
           f"-L{toolchain.library_dir}", "-lhccl", "-lascendcl", f"-Wl,-rpath,{toolchain.library_dir}", "-o",
           str(exe)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    env = dict(os.environ, PYACL_HARDGRAD_DEVICE_COUNT=str(devices))
    run = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "all outputs match" in run.stdout
    assert f"rankId: {devices - 1}, allreduce sum:" in run.stdout
