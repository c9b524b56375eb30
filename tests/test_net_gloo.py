"""The cross-host engine plugin on Gloo (libhg_net_gloo.so, hcomm/hg_net.h), driven by N processes
on loopback that meet through a folder-backed store (tests/c/net_gloo_driver.c): every call moves
exactly the bytes it should, from 0 bytes to 64 MiB, a rank that never comes or goes away makes
the others fail within the timeout, and the build helper builds, skips or requires the plugin
as PYACL_HARDGRAD_GLOO says.  The process tests skip only when the plugin was not built."""
from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import time
from pathlib import Path
from types import ModuleType

import pytest

from conftest import REPO_ROOT, CProgramBuilder, Toolchain

HCOMM_DIR = REPO_ROOT / "pyacl_hardgrad" / "_embedded" / "hcomm"


@pytest.fixture(scope="module")
def plugin(toolchain: Toolchain) -> Path:
    path = toolchain.library_dir / "libhg_net_gloo.so"
    if not path.exists():
        pytest.skip(f"{path.name} was not built (Gloo not found at install time, or PYACL_HARDGRAD_GLOO=0)")
    return path


@pytest.fixture(scope="module")
def driver(cprog: CProgramBuilder) -> Path:
    return cprog.build("net_gloo_driver.c", extra=[f"-I{HCOMM_DIR}", "-ldl"])


def run_ranks(driver: Path, plugin: Path, store: Path, nranks: int, mode: str, *, ranks: list[int] | None = None,
              timeout_ms: int = 30000, wall: float = 300) -> list[tuple[int, str]]:
    """Start one process per rank (all of them unless `ranks`), wait for all; (exit code, output) each."""
    store.mkdir(exist_ok=True)
    procs = [subprocess.Popen([str(driver), str(plugin), str(store), str(r), str(nranks), mode, str(timeout_ms)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for r in (range(nranks) if ranks is None else ranks)]
    results = []
    try:
        for p in procs:
            out, _ = p.communicate(timeout=wall)
            results.append((p.returncode, out))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return results


def test_plugin_exports_only_its_entry_point(plugin: Path) -> None:
    if shutil.which("nm") is None:
        pytest.skip("nm is not installed")
    out = subprocess.run(["nm", "-D", "--defined-only", str(plugin)], capture_output=True, text=True,
                         check=True).stdout
    names = sorted(line.split()[-1] for line in out.splitlines() if line.strip())
    assert names == ["hg_net_gloo_ops"]


@pytest.mark.parametrize("nranks", [2, 4])
def test_every_call_moves_exact_bytes_from_0_bytes_to_64_mib(driver: Path, plugin: Path, tmp_path: Path,
                                                             nranks: int) -> None:
    results = run_ranks(driver, plugin, tmp_path / "store", nranks, "suite")
    for rank, (code, out) in enumerate(results):
        assert code == 0, f"rank {rank}:\n{out[-3000:]}"
        # Bad arguments (and a recv of another size than the message) are refused by name and
        # leave the context usable.
        assert len(re.findall(r"^ok refused ", out, re.M)) == 11, out
        for size in (0, 1, 7, 4096, 65539, 1 << 20, 64 << 20):
            assert f"ok size {size}:" in out, f"rank {rank}:\n{out}"
        assert "ok closed" in out


@pytest.mark.parametrize(("nranks", "present", "missing"), [(2, [0], 1), (2, [1], 0), (4, [0, 1, 2], 3)])
def test_a_rank_that_never_comes_fails_open_within_the_timeout(driver: Path, plugin: Path, tmp_path: Path,
                                                               nranks: int, present: list[int],
                                                               missing: int) -> None:
    t0 = time.monotonic()
    results = run_ranks(driver, plugin, tmp_path / "store", nranks, "open", ranks=present, timeout_ms=1500,
                        wall=60)
    assert time.monotonic() - t0 < 15
    for code, out in results:
        assert code == 0, out
        m = re.search(r"open failed after ([0-9.]+) s: (.*)", out)
        assert m, out
        assert 1.4 <= float(m.group(1)) < 4.0, out
        assert f"rank {missing} did not join within 1500 ms" in m.group(2)


def test_a_rank_that_comes_late_but_within_the_timeout_joins(driver: Path, plugin: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    cmd = [str(driver), str(plugin), str(store), "RANK", "2", "open", "10000"]
    first = subprocess.Popen([a.replace("RANK", "0") for a in cmd], stdout=subprocess.PIPE, text=True)
    try:
        time.sleep(1.0)
        late = subprocess.run([a.replace("RANK", "1") for a in cmd], capture_output=True, text=True, timeout=60)
        out0, _ = first.communicate(timeout=60)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert "ok open succeeded" in late.stdout, late.stdout
    m = re.search(r"ok open succeeded in ([0-9.]+) s", out0)
    assert m and 0.9 <= float(m.group(1)) < 9, out0


def test_a_peer_that_exits_fails_the_next_call_instead_of_hanging(driver: Path, plugin: Path,
                                                                  tmp_path: Path) -> None:
    (code0, out0), (code1, _) = run_ranks(driver, plugin, tmp_path / "store", 2, "dies", timeout_ms=20000,
                                          wall=60)
    assert code0 == 0 and code1 == 0, out0
    m = re.search(r"recv failed after ([0-9.]+) s: recv: (.*)", out0)
    assert m and float(m.group(1)) < 10, out0
    # Later calls fail at once, with the first failure's reason.
    assert "barrier then: rc -1: barrier: the engine failed earlier and cannot be used" in out0
    assert "ok closed" in out0


@pytest.mark.parametrize("exit_after_ms", [60, 150])
def test_a_peer_that_exits_mid_transfer_neither_kills_the_sender_nor_holds_up_its_close(
        driver: Path, plugin: Path, tmp_path: Path, exit_after_ms: int) -> None:
    store = tmp_path / "store"
    store.mkdir()
    procs = [subprocess.Popen([str(driver), str(plugin), str(store), str(r), "2", "dies_sending", "20000",
                               str(exit_after_ms)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for r in range(2)]
    try:
        out0, _ = procs[0].communicate(timeout=60)
        procs[1].communicate(timeout=60)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert procs[0].returncode == 0, f"rank 0 ended with {procs[0].returncode}:\n{out0}"   # -13: SIGPIPE
    assert re.search(r"^recv rc -1: recv: ", out0, re.M), out0
    m = re.search(r"ok closed in ([0-9.]+) s", out0)
    assert m and float(m.group(1)) < 5, out0        # not the 20 s timeout of the lost send


def test_unmatched_recv_times_out_and_close_does_not_hang_on_an_unreceived_send(driver: Path, plugin: Path,
                                                                               tmp_path: Path) -> None:
    t0 = time.monotonic()
    (code0, out0), (code1, out1) = run_ranks(driver, plugin, tmp_path / "store", 2, "unmatched", timeout_ms=1500,
                                             wall=60)
    assert time.monotonic() - t0 < 20
    assert code0 == 0 and code1 == 0, out0 + out1
    # Rank 1 exits right after its send: Gloo ends rank 0's wait either at its timeout or, when it
    # sees the peer's socket close first, with that; both are a failure, and neither a hang.
    m = re.search(r"recv rc -1 after ([0-9.]+) s: recv: .*(Timed out|Connection closed by peer)", out0)
    assert m and float(m.group(1)) < 5, out0
    assert m.group(2) != "Timed out" or float(m.group(1)) >= 1.4, out0
    assert re.search(r"ok send returned after 0\.0", out1), out1     # a send does not wait for the recv
    assert "ok closed" in out1


# ---- the build helper ---------------------------------------------------------------------------

def _embedded_libs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("hg_embedded_libs_gloo",
                                                  REPO_ROOT / "pyacl_hardgrad" / "_build" / "embedded_libs.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_build_skips_the_plugin_when_told_or_when_gloo_is_missing_and_fails_when_it_is_required(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    lib = _embedded_libs()
    monkeypatch.setenv("PYACL_HARDGRAD_GLOO", "0")
    assert lib.build_gloo_plugin(tmp_path) is None
    assert capsys.readouterr().out == "libhg_net_gloo.so: skipped (PYACL_HARDGRAD_GLOO=0)\n"

    monkeypatch.setattr(lib, "_GLOO_ROOTS", (str(tmp_path / "nowhere"),))
    monkeypatch.delenv("PYACL_HARDGRAD_GLOO")
    assert lib.build_gloo_plugin(tmp_path) is None
    assert capsys.readouterr().out.startswith("libhg_net_gloo.so: skipped, Gloo not found")

    monkeypatch.setenv("PYACL_HARDGRAD_GLOO", "1")
    with pytest.raises(RuntimeError, match="PYACL_HARDGRAD_GLOO=1 but Gloo not found"):
        lib.build_gloo_plugin(tmp_path)
    monkeypatch.setenv("PYACL_HARDGRAD_GLOO", "yes")
    with pytest.raises(ValueError, match="PYACL_HARDGRAD_GLOO='yes'"):
        lib.build_gloo_plugin(tmp_path)
    assert not (tmp_path / "libhg_net_gloo.so").exists()
