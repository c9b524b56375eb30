"""Shared fixtures: build and run C/C++ programs against the embedded runtime.

The programs link exactly as CANN's samples do
(``-I<include> -L<lib> -lascendcl -lnnopbase -lopapi -Wl,-rpath,<lib>``), against the
installed package's ``get_include()`` / ``get_library_dir()``.  For quick work on the C side
without reinstalling, ``PYACL_HARDGRAD_TEST_LIBDIR`` (and optionally
``PYACL_HARDGRAD_TEST_INCLUDE``) point the suite at a folder built by
``python pyacl_hardgrad/_build/embedded_libs.py --out DIR``.
"""
from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).resolve().parent


def pytest_configure(config):
    """The runtime's log files (CANN's plog, written for every failing call: the suite makes many on
    purpose) go to a folder of the session, not under the user's $HOME/ascend/log."""
    config.addinivalue_line("markers", "check_findings(*kinds): the test makes checking-mode findings (of "
                                       "these kinds) in this process on purpose, the misuse it pins; the "
                                       "others must make none")
    if not os.environ.get("ASCEND_PROCESS_LOG_PATH"):
        import tempfile
        os.environ["ASCEND_PROCESS_LOG_PATH"] = config._hg_plog_dir = tempfile.mkdtemp(prefix="pyacl-hardgrad-plog-")


def pytest_unconfigure(config):
    folder = getattr(config, "_hg_plog_dir", None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
        os.environ.pop("ASCEND_PROCESS_LOG_PATH", None)
C_DIR = TESTS_DIR / "c"
REPO_ROOT = TESTS_DIR.parent


@dataclass(frozen=True)
class Toolchain:
    include_dir: Path
    library_dir: Path

    def link_args(self) -> list[str]:
        return [f"-I{self.include_dir}", f"-L{self.library_dir}", "-lascendcl", "-lnnopbase",
                "-lopapi", f"-Wl,-rpath,{self.library_dir}"]


def _toolchain() -> Toolchain:
    libdir = os.environ.get("PYACL_HARDGRAD_TEST_LIBDIR")
    if libdir:
        inc = os.environ.get("PYACL_HARDGRAD_TEST_INCLUDE", str(REPO_ROOT / "include"))
        return Toolchain(Path(inc), Path(libdir))
    pyacl_hardgrad = _import_installed()
    return Toolchain(Path(pyacl_hardgrad.get_include()), Path(pyacl_hardgrad.get_library_dir()))


@pytest.fixture(scope="session")
def toolchain() -> Toolchain:
    return _toolchain()


class CProgramBuilder:
    """Compiles test programs once per session (cached by source and flags).  ``cc``/``cxx``
    (default $CC/$CXX) and ``runner`` (default $PYACL_HARDGRAD_TEST_RUNNER) are for a builder of
    another target's programs (a cross compiler and the emulator they run under)."""

    def __init__(self, toolchain: Toolchain, workdir: Path, *, cc: str | None = None, cxx: str | None = None,
                 runner: str | None = None):
        self.toolchain = toolchain
        self.workdir = workdir
        self.cc, self.cxx, self.runner = cc, cxx, runner

    def build(self, source: str | os.PathLike, *, cxx: bool | None = None,
              extra: list[str] | None = None) -> Path:
        src = Path(source)
        if not src.is_absolute():
            src = C_DIR / src
        if cxx is None:
            cxx = src.suffix in (".cc", ".cpp", ".cxx")
        if cxx:
            compiler = self.cxx or os.environ.get("CXX", "g++")
        else:
            compiler = self.cc or os.environ.get("CC", "cc")
        std = "-std=c++17" if cxx else "-std=c11"
        flags = [std, "-O1", "-g", "-Wall", "-Wextra", "-Werror", "-pthread"] + list(extra or [])
        key = hashlib.sha256((src.read_text() + "\0".join(flags) + compiler).encode()).hexdigest()[:16]
        exe = self.workdir / f"{src.stem}-{key}"
        if not exe.exists():
            cmd = shlex.split(compiler) + flags + [str(src), "-o", str(exe)] + self.toolchain.link_args() + ["-lm"]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                raise AssertionError(f"compiling {src.name} failed:\n{' '.join(cmd)}\n{proc.stderr}")
        return exe

    def run(self, exe: Path, *args: str, env: dict | None = None, timeout: float = 120,
            valgrind: bool = False) -> subprocess.CompletedProcess:
        full_env = dict(os.environ)
        full_env.update(env or {})
        # PYACL_HARDGRAD_TEST_RUNNER: a command the programs run under (e.g. "qemu-aarch64 -L
        # /usr/aarch64-linux-gnu" for a cross build where no binfmt handler is registered).
        runner = self.runner if self.runner is not None else os.environ.get("PYACL_HARDGRAD_TEST_RUNNER", "")
        cmd = shlex.split(runner) + [str(exe), *args]
        if valgrind and not _valgrind_usable():
            pytest.skip("valgrind is switched off (PYACL_HARDGRAD_TEST_NO_VALGRIND=1) or not installed")
        if valgrind:
            cmd = ["valgrind", "--tool=memcheck", "--error-exitcode=99", "--leak-check=full",
                   "--errors-for-leak-kinds=definite", "--show-leak-kinds=definite", "-q"] + cmd
        return subprocess.run(cmd, capture_output=True, text=True, env=full_env, timeout=timeout)


@pytest.fixture(scope="session")
def cprog(toolchain, tmp_path_factory) -> CProgramBuilder:
    """``cprog.build("runtime_basics.c")`` -> executable; ``cprog.run(exe, ...)``."""
    return CProgramBuilder(toolchain, tmp_path_factory.mktemp("cprog"))


def _valgrind_usable() -> bool:
    """valgrind is installed, and not switched off: PYACL_HARDGRAD_TEST_NO_VALGRIND=1 for runs
    against sanitizer builds (valgrind and ASan/TSan cannot share a process)."""
    return shutil.which("valgrind") is not None and os.environ.get("PYACL_HARDGRAD_TEST_NO_VALGRIND") != "1"


@pytest.fixture(scope="session")
def valgrind_available() -> bool:
    return _valgrind_usable()


# ---- Python-layer fixtures (tests/test_py_*.py) ------------------------------------------------

def _import_installed():
    """The installed pyacl_hardgrad package (never the source folder: it has no compiled parts)."""
    import sys

    if "pyacl_hardgrad" not in sys.modules:
        # `python -m pytest` from the checkout puts the checkout first on sys.path.
        repo = str(REPO_ROOT)
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != repo]
    import pyacl_hardgrad

    where = Path(pyacl_hardgrad.__file__).resolve()
    if REPO_ROOT / "pyacl_hardgrad" in where.parents:
        pytest.fail(f"pyacl_hardgrad was imported from the source tree ({where}); install it "
                    "(pip install .) and run pytest with the installed package")
    return pyacl_hardgrad


@pytest.fixture(scope="session")
def hg():
    return _import_installed()


@pytest.fixture(scope="session", autouse=True)
def _nothing_alive_at_session_end():
    """After the whole suite no stream, tensor, scalar, executor, allocation or event is alive."""
    yield
    import gc
    import sys

    if "pyacl_hardgrad._binding" not in sys.modules:
        return
    hg_mod = sys.modules["pyacl_hardgrad"]
    if not hg_mod.BACKEND.is_embedded:
        return
    hg_mod.release_defaults()
    gc.collect()
    counts = hg_mod.live_counts()
    alive = {k: v for k, v in counts.items() if v}
    assert not alive, f"objects still alive after the test session: {alive}"


def _loaded_embedded():
    """The package when this process has its binding loaded on the embedded runtime, else None."""
    import sys

    binding = sys.modules.get("pyacl_hardgrad._binding")
    if binding is None or not binding.BACKEND.is_embedded:
        return None
    return sys.modules["pyacl_hardgrad"]


def _memory_in_use(hg_mod) -> tuple:
    """(blocks, bytes) of device memory in use, as the live counts see it."""
    live = hg_mod.live_counts()
    return live["deviceAllocations"], live["deviceBytes"]


@pytest.fixture(autouse=True)
def _device_memory_books_balance():
    """After each test: the caching allocator's books agree with the runtime's.  On every device
    reserved = in use + cached, and once the cache is emptied the runtime's own count (idle
    blocks included) equals the count of memory in use."""
    yield
    hg_mod = _loaded_embedded()
    if hg_mod is None:
        return
    for dev in range(64):                  # the embedded runtime's most devices
        st = hg_mod.memory_stats(dev)
        if st["allocations"] or st["reserved_bytes"]:
            assert st["reserved_bytes"] == st["in_use_bytes"] + st["cached_bytes"], st
            assert st["reserved_blocks"] == st["in_use_blocks"] + st["cached_blocks"], st
    in_use = _memory_in_use(hg_mod)
    hg_mod.empty_cache()
    raw = hg_mod.live_counts(reserved=True)
    assert (raw["deviceAllocations"], raw["deviceBytes"]) == in_use == _memory_in_use(hg_mod), \
        f"the runtime holds device memory that is neither in use nor cached: {raw} against in use {in_use}"


@pytest.fixture(autouse=True)
def _no_checking_findings(request):
    """The suite runs in checking mode (the package's pytest plugin sets PYACL_HARDGRAD_CHECK=1): a
    test whose code made a finding in this process fails, and a test marked check_findings (it
    seeds misuse on purpose) fails when it made none.  The findings are in the captured stderr."""
    hg_mod = _loaded_embedded()
    before = hg_mod.lib.hgCheckErrorCount() if hg_mod is not None else 0
    yield
    hg_mod = _loaded_embedded()
    if hg_mod is None or not hg_mod.lib.hgCheckEnabled():
        return
    made = hg_mod.lib.hgCheckErrorCount() - before
    seeded = request.node.get_closest_marker("check_findings")
    if seeded is None:
        assert made == 0, f"checking mode reported {made} finding(s) during this test (see its captured stderr)"
    else:
        assert made > 0, f"checking mode reported none of the {', '.join(seeded.args)} this test seeds"


@pytest.fixture(scope="module", autouse=True)
def _device_memory_in_use_returns_to_baseline():
    """After each test module (its module-scoped fixtures closed): the device memory in use is
    back where it was before the module."""
    import gc

    hg_mod = _loaded_embedded()
    before = _memory_in_use(hg_mod) if hg_mod is not None else None
    yield
    if before is None:
        return
    after = _memory_in_use(hg_mod)
    if after != before:
        gc.collect()
        after = _memory_in_use(hg_mod)
    assert after == before, f"device memory in use (blocks, bytes) changed over the module: {before} -> {after}"


@pytest.fixture(scope="module")
def aclnn(hg):
    """A tests/hg_aclnn.Session (device 0, one stream) for calling operators by name."""
    import hg_aclnn

    s = hg_aclnn.Session()
    yield s
    s.close()
