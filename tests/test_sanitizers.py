"""The embedded libraries built with AddressSanitizer + UndefinedBehaviorSanitizer (the build
helper's ``--sanitize`` option, compile and link step both) run the C runtime smoke test,
the Python sample ports and a fuzzer round clean."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BUILD_HELPER = REPO / "pyacl_hardgrad" / "_build" / "embedded_libs.py"


def _runtime_lib(cc: str, name: str) -> str | None:
    out = subprocess.run([cc, f"-print-file-name={name}"], capture_output=True, text=True).stdout.strip()
    return out if out and os.path.isabs(out) and os.path.exists(out) else None


@pytest.fixture(scope="module")
def asan_toolkit(tmp_path_factory):
    cc = os.environ.get("CC", "cc")
    asan = _runtime_lib(cc, "libasan.so")
    if asan is None or shutil.which(cc) is None:
        pytest.skip(f"{cc} has no AddressSanitizer runtime")
    root = tmp_path_factory.mktemp("asan-toolkit")
    subprocess.run([sys.executable, str(BUILD_HELPER), "--out", str(root / "lib64"), "--sanitize",
                    "address,undefined", "--quiet"], check=True, capture_output=True, text=True)
    return root, asan


def test_sanitizer_option_rejects_unknown_or_incompatible_names():
    sys.path.insert(0, str(BUILD_HELPER.parent))
    try:
        import embedded_libs
    finally:
        sys.path.pop(0)
    assert embedded_libs.sanitizer_flags("") == []
    assert embedded_libs.sanitizer_flags("address,undefined")[0] == "-fsanitize=address,undefined"
    with pytest.raises(ValueError, match="unknown sanitizer"):
        embedded_libs.sanitizer_flags("adress")
    with pytest.raises(ValueError, match="thread cannot be combined"):
        embedded_libs.sanitizer_flags("thread,address")


def test_instrumented_libraries_link_the_sanitizer_runtimes(asan_toolkit):
    root, _ = asan_toolkit
    for lib in ("libascendcl.so", "libnnopbase.so", "libopapi.so"):
        deps = subprocess.run(["ldd", str(root / "lib64" / lib)], capture_output=True, text=True).stdout
        assert "libasan" in deps and "libubsan" in deps, (lib, deps)


def _env(root, asan):
    env = dict(os.environ, LD_PRELOAD=asan, ASAN_OPTIONS="detect_leaks=0:abort_on_error=1",
               UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1", ASCEND_HOME_PATH=str(root),
               PYACL_HARDGRAD_BACKEND="cann")
    env.pop("ASCEND_TOOLKIT_HOME", None)
    return env


def test_python_samples_run_clean_under_asan_and_ubsan(asan_toolkit, tmp_path):
    root, asan = asan_toolkit
    proc = subprocess.run([sys.executable, "-m", "pyacl_hardgrad", "samples"], cwd=tmp_path, capture_output=True,
                          text=True, env=_env(root, asan), timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert "samples match" in proc.stdout and "ERROR: AddressSanitizer" not in proc.stderr
    assert "runtime error:" not in proc.stderr


def test_api_fuzzer_runs_clean_under_asan_and_ubsan(asan_toolkit, tmp_path):
    root, asan = asan_toolkit
    fuzzer = Path(__file__).with_name("api_fuzzer.py")
    proc = subprocess.run([sys.executable, str(fuzzer), "--cases", "1500", "--seed", "3"], cwd=tmp_path,
                          capture_output=True, text=True, env=_env(root, asan), timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "runtime error:" not in proc.stderr and "AddressSanitizer" not in proc.stderr
