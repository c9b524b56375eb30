"""CANN's own host-only runtime samples, built and run unmodified against the embedded
runtime, when a checkout of their folder is given:
PYACL_HARDGRAD_CANN_EXAMPLES=<CANN runtime repository>/example (the samples are CANN's
code: this project only runs them, it does not carry them).

Each sample is built twice -- with plain g++ against include/ and lib64/ of the CANN-shaped
tree, and with its own run.sh (CMake, -DASCEND_CANN_PACKAGE_PATH) after sourcing the tree's
set_env.sh and the examples' set_sample_env.sh -- and must exit 0 printing its success line."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hg_checkmode import without_clean_summary

# sample -> a line its output ends with on success
SAMPLES = {
    "0_quickstart/1_error_handling": "[INFO]  ACL finalize successfully",
    "0_quickstart/2_system_info": "[INFO]  ACL finalize successfully",
    "0_quickstart/3_cross_version/0_runtime_compatibility": "[SUCCESS] Runtime compatibility sample completed",
    "1_basic_features/context/0_context_query": "[SUCCESS] Context query sample completed successfully",
    "1_basic_features/device/2_device_P2P": "[INFO]  Run the device_P2P sample successfully.",
    "1_basic_features/memory/0_h2h_memory_copy": "[INFO]  Destination data: 123",
    "1_basic_features/memory/9_multistream_sync_memory": "[INFO]  Flag value read by the waiting thread: 123",
    "1_basic_features/stream/3_stream_config_query": "[SUCCESS] Stream config query sample completed successfully",
}


@pytest.fixture(scope="module")
def examples() -> Path:
    root = os.environ.get("PYACL_HARDGRAD_CANN_EXAMPLES")
    if not root:
        pytest.skip("set PYACL_HARDGRAD_CANN_EXAMPLES to the example/ folder of CANN's runtime repository")
    return Path(root)


def _cann_path() -> str:
    return subprocess.run([sys.executable, "-m", "pyacl_hardgrad", "--cann-path"], capture_output=True,
                          text=True, cwd="/", check=True).stdout.strip()


def _env() -> dict:
    return {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp"),
            "PYACL_HARDGRAD_DEVICE_COUNT": "2"}     # the P2P sample needs two devices


def _build_plain(examples: Path, sample: str, tmp_path: Path) -> Path:
    """The sample built with plain g++ against the tree; tmp_path prepared as run.sh does."""
    root = _cann_path()
    d = examples / sample
    exe = tmp_path / "main"
    build = ["g++", "-std=c++17", "-O2", "-D_GLIBCXX_USE_CXX11_ABI=0", "-Wall", "-Werror", f"-I{root}/include",
             f"-I{examples}", f"-I{d.parent}", *map(str, sorted(d.glob("*.cpp"))), "-o", str(exe),
             f"-L{root}/lib64", "-lacl_rt", "-lnnopbase", "-lopapi", "-ldl", "-lpthread", f"-Wl,-rpath,{root}/lib64"]
    proc = subprocess.run(build, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    (tmp_path / "file").mkdir()                     # what run.sh prepares for memory/9
    return exe


@pytest.mark.parametrize("sample", list(SAMPLES))
def test_sample_builds_with_plain_gxx_and_runs(examples, sample, tmp_path):
    exe = _build_plain(examples, sample, tmp_path)
    script = f'source "{_cann_path()}/set_env.sh" && cd "{tmp_path}" && "{exe}"'
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=_env(), timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert SAMPLES[sample] in proc.stdout, proc.stdout


@pytest.mark.parametrize("sample", list(SAMPLES))
def test_sample_runs_clean_under_check(examples, sample, tmp_path):
    exe = _build_plain(examples, sample, tmp_path)
    script = (f'source "{_cann_path()}/set_env.sh" && cd "{tmp_path}" && '
              f'"{sys.executable}" -m pyacl_hardgrad check "{exe}"')
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=_env(), timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert SAMPLES[sample] in proc.stdout, proc.stdout
    assert "========= " not in without_clean_summary(proc.stderr), proc.stderr


@pytest.mark.parametrize("sample", list(SAMPLES))
def test_sample_builds_with_its_own_run_sh(examples, sample):
    root = _cann_path()
    script = f"""
        set -e
        source "{root}/set_env.sh"
        source "{examples}/set_sample_env.sh" > /dev/null
        cd "{examples / sample}"
        bash run.sh
    """
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=_env(), timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert SAMPLES[sample] in proc.stdout, proc.stdout
