"""Every registered operator's numeric cases (its folder's tests/<folder>_model.py) through the
generic driver tests/c/aclnn_driver.c, bit for bit against the operator's numpy model: every
fp16/bf16 bit pattern, fp32 special values and random data, on every kernel path of libopapi
(portable scalar, AVX2+F16C, AVX-512, NEON; forced with PYACL_HARDGRAD_KERNEL_ISA), on
contiguous and strided (staged) layouts; the worker pool's split (PYACL_HARDGRAD_THREADS=1/2/3)
changes no bit; the streaming-store twins give the model's bits; an out that overlaps an input
gives the in-place or element-order result.  Paths the machine lacks are skipped with the
reason."""
from __future__ import annotations

import os
import platform
from pathlib import Path

import numpy as np
import pytest

import hg_registry
from hg_cases import assert_same, run_case

PATHS = ["scalar", "avx2", "avx512", "neon"]
CASES = hg_registry.cases()


def _cpu_flags() -> set[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("flags", "Features")):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def unavailable(path: str) -> str | None:
    # PYACL_HARDGRAD_TEST_MACHINE: the target of a cross build run under an emulator
    machine = os.environ.get("PYACL_HARDGRAD_TEST_MACHINE", platform.machine()).lower()
    flags = _cpu_flags()
    if path == "scalar":
        return None
    if path in ("avx2", "avx512") and machine not in ("x86_64", "amd64"):
        return f"{path} needs x86_64 (machine is {machine})"
    if path == "avx2" and not {"avx2", "f16c"} <= flags:
        return "CPU lacks avx2/f16c"
    if path == "avx512" and not {"avx512f", "avx512bw", "avx512vl", "avx512dq", "f16c"} <= flags:
        return "CPU lacks avx512f/bw/vl/dq"
    if path == "neon" and machine not in ("aarch64", "arm64"):
        return f"neon needs aarch64 (machine is {machine})"
    return None


def _env(path: str, threads: int = 2) -> dict:
    # PYACL_HARDGRAD_SPLIT_NS=0: every call of two chunks or more is split across the threads,
    # whatever the measured kernel and hand-off times would decide
    return {"PYACL_HARDGRAD_KERNEL_ISA": path, "PYACL_HARDGRAD_KERNEL_ISA_TRACE": "1",
            "PYACL_HARDGRAD_THREADS": str(threads), "PYACL_HARDGRAD_SPLIT_NS": "0"}


@pytest.fixture(scope="module")
def driver(cprog):
    return cprog.build("aclnn_driver.c")


def test_every_registered_operator_has_cases():
    for name in hg_registry.operators():
        assert getattr(hg_registry.model(name), "NUMERIC_CASES", ()), f"{name}_model.py lists no NUMERIC_CASES"


@pytest.mark.parametrize("path", PATHS)
def test_path_is_selected_as_requested(cprog, driver, tmp_path, path):
    """The trace line names the path that ran: the requested one, or scalar if the CPU lacks it."""
    case = CASES[0]
    _, err = run_case(cprog, driver, tmp_path, case, case.make_inputs(np.random.default_rng(0), 100), env=_env(path))
    want = "scalar" if unavailable(path) else path
    assert f"pyacl_hardgrad: kernel isa {want} (requested {path})" in err, err


@pytest.mark.parametrize("layout", ["contig", "strided"])
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_case_matches_model(cprog, driver, tmp_path, case, path, layout):
    reason = unavailable(path)
    if reason:
        pytest.skip(reason)
    inputs = case.make_inputs(np.random.default_rng(1234))
    got, err = run_case(cprog, driver, tmp_path, case, inputs, layout, _env(path))
    assert f"kernel isa {path} " in err, err
    assert "streamed calls 0\n" in err, err      # far below the default threshold: ordinary stores
    assert_same(got, case.model(*inputs), f"{case.id} {path} {layout}", case.nan_payload, inputs)


@pytest.mark.parametrize("layout", ["contig", "strided"])
@pytest.mark.parametrize("case", [c for c in CASES if c.threads], ids=lambda c: c.id)
def test_thread_count_does_not_change_bits(cprog, driver, tmp_path, case, layout):
    """Large tensors are split across the pool; 1, 2 and 3 threads give identical bytes."""
    inputs = case.make_inputs(np.random.default_rng(5), 300_007)    # above the split threshold, odd tail
    want = case.model(*inputs)
    outs = []
    for threads in (1, 2, 3):
        got, _ = run_case(cprog, driver, tmp_path, case, inputs, layout, _env("auto", threads))
        assert_same(got, want, f"{case.id}: {threads} threads", case.nan_payload)
        outs.append(got.tobytes())
    assert outs[0] == outs[1] == outs[2]


def _one_case_per_kernel_row(cases):
    """The first case of each operator and dtype combination (a kernel row: its scalar
    parameters do not pick another kernel)."""
    rows = {}
    for c in cases:
        rows.setdefault((c.func, tuple(a[1] for a in c.args if a[0] != "scalar")), c)
    return list(rows.values())


def _check_streaming(cprog, driver, tmp_path, case, path, layout):
    reason = unavailable(path)
    if reason:
        pytest.skip(reason)
    inputs = case.make_inputs(np.random.default_rng(9), 300_007)
    env = {**_env(path, 2), "PYACL_HARDGRAD_STREAM_MIN_BYTES": "0"}
    got, err = run_case(cprog, driver, tmp_path, case, inputs, layout, env)
    assert f"kernel isa {path} " in err, err
    rows = [line for line in err.splitlines() if line.startswith("pyacl_hardgrad: kernel aclnn")]
    assert rows, err
    for line in rows:   # a row the path has a kernel for has its twin; the others run the portable one
        assert line.endswith("; streaming-store twin)") or f": {path} (" not in line, line
    # the twin ran, unless the row has none or the call is in place (out's lines were just read)
    twin = all(line.endswith("; streaming-store twin)") for line in rows)
    in_place = any(a[0] == "inout" for a in case.args)
    assert f"streamed calls {int(twin and not in_place)}\n" in err, err
    assert_same(got, case.model(*inputs), f"{case.id} {path} {layout}", case.nan_payload, inputs)


@pytest.mark.parametrize("path", ["avx2", "avx512"])
@pytest.mark.parametrize("case", _one_case_per_kernel_row(CASES), ids=lambda c: c.id)
def test_streaming_store_twins_match_model(cprog, driver, tmp_path, case, path):
    """Calls whose tensors together exceed PYACL_HARDGRAD_STREAM_MIN_BYTES (0 here; by default
    half the last-level cache) write out with the path's streaming-store twin of their kernel
    row; every row's twin gives the model's bytes, split over two threads (a row the path has
    no kernel for runs the portable one, which has no twin)."""
    _check_streaming(cprog, driver, tmp_path, case, path, "contig")


@pytest.mark.parametrize("path", ["avx2", "avx512"])
@pytest.mark.parametrize("case", [c for c in CASES if c.streaming], ids=lambda c: c.id)
def test_streaming_store_twins_start_after_a_misaligned_head(cprog, driver, tmp_path, case, path):
    """Every tensor 1 + k elements into its buffer: each range runs the plain kernel up to the
    first 64-byte aligned element of out and the twin after it (a fence last); the bytes are
    the model's and the fill around out is untouched."""
    _check_streaming(cprog, driver, tmp_path, case, path, "shifted")


def test_streaming_stores_start_above_half_the_last_level_cache(tmp_path):
    """By default the threshold is half the largest cache Linux describes for CPU 0 (sizes with
    a K, M or G suffix or none, as the runtime reads them), so a call of a few MiB keeps ordinary
    stores and its result stays cached for the next reader; hgGetKernelSettings reports it.  A
    fresh process without PYACL_HARDGRAD_STREAM_MIN_BYTES."""
    import subprocess
    import sys
    want = 0
    for k in range(8):
        f = Path(f"/sys/devices/system/cpu/cpu0/cache/index{k}/size")
        text = f.read_text().strip() if f.exists() else ""
        digits = text.rstrip("KMG")
        if digits.isdigit():
            want = max(want, int(digits) << {"K": 10, "M": 20, "G": 30}.get(text[len(digits):], 0))
    env = {k: v for k, v in os.environ.items() if k != "PYACL_HARDGRAD_STREAM_MIN_BYTES"}
    proc = subprocess.run([sys.executable, "-c", "from pyacl_hardgrad import _kernel_info as k; "
                           "print(k.settings()['stream_min_bytes'])"], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    got = int(proc.stdout)
    if want:
        assert got == want // 2
    else:
        assert got > 0      # glibc's sysconf, else 16 MiB


@pytest.mark.parametrize("path", ["scalar", "auto"])
@pytest.mark.parametrize("case", [c for c in CASES if c.overlap], ids=lambda c: c.id)
def test_out_overlapping_an_input(cprog, driver, tmp_path, case, path):
    """In place (out is exactly input 0) equals a separate out, on the SIMD path and split
    across threads; a partial overlap (out starts 3 elements into input 0's buffer) runs the
    whole tensor in element order on one thread, so the result equals a sequential loop."""
    n, shift = 200_003, 3
    inputs = case.make_inputs(np.random.default_rng(12), n)
    separate, _ = run_case(cprog, driver, tmp_path, case, inputs, "contig", _env(path))
    inplace, _ = run_case(cprog, driver, tmp_path, case, inputs, "contig", _env(path), alias_shift=0)
    assert separate.tobytes() == inplace.tobytes()
    n = 20_003                                        # one thread in element order at any size
    inputs = [x[:n] for x in inputs]
    shifted, _ = run_case(cprog, driver, tmp_path, case, inputs, "contig", _env(path), alias_shift=shift)
    # element order: element i reads input 0's element i after out[i - shift] overwrote it
    ref = inputs[0].copy()
    ext = np.concatenate([ref, np.zeros(shift, ref.dtype)])
    for start in range(0, n, shift):
        stop = min(start + shift, n)
        block = [ext[start:stop]] + [x[start:stop] for x in inputs[1:]]
        ext[start + shift:stop + shift] = case.model(*block)
    assert_same(shifted, ext[shift:shift + n], f"{case.id} shifted overlap", case.nan_payload)
