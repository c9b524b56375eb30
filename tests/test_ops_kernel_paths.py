"""Every kernel path of libopapi (portable scalar, AVX2+F16C, AVX-512, NEON), forced with
PYACL_HARDGRAD_KERNEL_ISA, gives the model's bits (tests/hg_model.py) for every dtype
combination: all fp16/bf16 bit patterns, special values, fp16/bf16 rounding ties, fp16
subnormal and overflow edges; and the worker pool's split does not change any bit
(PYACL_HARDGRAD_THREADS=1/2/3).  Paths the machine lacks are skipped with the reason."""
from __future__ import annotations

import itertools
import platform
from pathlib import Path

import numpy as np
import pytest

import hg_model as m
from test_ops_numerics import BOUNDS, DTYPES, _bits, _samples

PATHS = ["scalar", "avx2", "avx512", "neon"]


def _cpu_flags() -> set[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("flags", "Features")):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def _unavailable(path: str) -> str | None:
    machine = platform.machine().lower()
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


@pytest.fixture(scope="module")
def driver(cprog):
    return cprog.build("ops_driver.c")


def _ties_f32(rng) -> np.ndarray:
    """grad values whose product with 1/6 (the kernel's r) lands exactly on an fp16 or bf16
    rounding tie, both parities, normal and fp16-subnormal, plus fp16's overflow tie 65520."""
    targets = []
    for e in range(-24, 16):                          # fp16 ties: low 13 bits 0x1000
        for mant in (0x000000, 0x002000, 0x3FE000, 0x7FC000):
            targets.append(((e + 127) << 23) | mant | 0x1000)
    for e in range(-30, 30):                          # bf16 ties: low 16 bits 0x8000
        for mant in (0x000000, 0x010000, 0x7E0000):
            targets.append(((e + 127) << 23) | mant | 0x8000)
    for k in range(1, 64):                            # fp16 subnormal ties: (2k+1) * 2^-25
        targets.append(int(np.float32((2 * k + 1) * 2.0 ** -25).view(np.uint32)))
    targets += [0x477FF000, 0x477FE000, 0x33000000, 0x33400000, 0x387FF000]
    t = np.array(targets, dtype=np.uint32).view(np.float32)
    t = np.concatenate([t, -t])
    base = (t.astype(np.float64) * 6.0).astype(np.float32)
    found = []
    for k in range(-4, 5):                            # neighbours of 6*t whose product hits t
        g = np.nextafter(base, np.float32(np.inf) if k > 0 else np.float32(-np.inf)) if k else base
        for _ in range(abs(k) - 1):
            g = np.nextafter(g, np.float32(np.inf) if k > 0 else np.float32(-np.inf))
        hit = (g * m.SIXTH).astype(np.float32).view(np.uint32) == t.view(np.uint32)
        found.append(g[hit])
    ties = np.concatenate(found)
    assert ties.size > 200, ties.size
    return rng.permutation(ties)


def _run(cprog, exe, tmp_path, env, args_before, grad, self, out_dtype, args_after, layout):
    gpath, spath, opath = tmp_path / "grad.bin", tmp_path / "self.bin", tmp_path / "out.bin"
    grad.tofile(gpath)
    self.tofile(spath)
    args = [*args_before, str(len(grad)), str(gpath), str(spath), str(opath), *args_after, layout]
    proc = cprog.run(exe, *args, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return np.fromfile(opath, dtype=out_dtype), proc.stderr


def _env(path: str, threads: int = 2) -> dict:
    return {"PYACL_HARDGRAD_KERNEL_ISA": path, "PYACL_HARDGRAD_KERNEL_ISA_TRACE": "1",
            "PYACL_HARDGRAD_THREADS": str(threads)}


def _assert_same(got, want, what):
    gb, wb = _bits(got), _bits(want)
    nan = np.isnan(got.astype(np.float32)) & np.isnan(want.astype(np.float32))
    diff = np.nonzero((gb != wb) & ~nan)[0]
    assert diff.size == 0, f"{what}: {diff.size} mismatches, first at {diff[0]}: got {gb[diff[0]]:#x} want {wb[diff[0]]:#x}"


def _hs_inputs(g, s, rng):
    self = _samples(s, rng)
    grad = _samples(g, rng, len(self))
    if g == "f32":                                    # rounding ties of r = grad / 6, self = 0 keeps r
        ties = _ties_f32(rng)
        grad = np.concatenate([ties, grad])
        self = np.concatenate([np.zeros(len(ties), DTYPES[s]), self])
    return grad, self


@pytest.mark.parametrize("path", PATHS)
def test_path_is_selected_as_requested(cprog, driver, tmp_path, path):
    """The trace line names the path that ran: the requested one, or scalar if the CPU lacks it."""
    grad = np.ones(100, np.float32)
    self = np.zeros(100, np.float32)
    _, err = _run(cprog, driver, tmp_path, _env(path), ["hs", "f32", "f32", "f32"], grad, self, m.F32, [], "contig")
    want = "scalar" if _unavailable(path) else path
    assert f"pyacl_hardgrad: kernel isa {want} (requested {path})" in err, err


@pytest.mark.parametrize("layout", ["contig", "strided"])
@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("path", PATHS)
def test_hardtanh_path_matches_model(cprog, driver, tmp_path, path, dtype, layout):
    reason = _unavailable(path)
    if reason:
        pytest.skip(reason)
    rng = np.random.default_rng(7)
    self = _samples(dtype, rng)
    grad = _samples(dtype, rng, len(self))
    for lo_bits, hi_bits in BOUNDS:
        got, err = _run(cprog, driver, tmp_path, _env(path), ["ht", dtype], grad, self, DTYPES[dtype],
                        [hex(lo_bits), hex(hi_bits)], layout)
        assert f"kernel isa {path} " in err, err
        lo, hi = np.array([lo_bits, hi_bits], np.uint32).view(np.float32)
        _assert_same(got, m.hardtanh_backward(grad, self, lo, hi), f"{path} bounds {lo} {hi}")


@pytest.mark.parametrize("layout", ["contig", "strided"])
@pytest.mark.parametrize("g, s, o", list(itertools.product(sorted(DTYPES), repeat=3)))
@pytest.mark.parametrize("path", PATHS)
def test_hardsigmoid_path_matches_model(cprog, driver, tmp_path, path, g, s, o, layout):
    reason = _unavailable(path)
    if reason:
        pytest.skip(reason)
    rng = np.random.default_rng(11)
    grad, self = _hs_inputs(g, s, rng)
    got, err = _run(cprog, driver, tmp_path, _env(path), ["hs", g, s, o], grad, self, DTYPES[o], [], layout)
    assert f"kernel isa {path} " in err, err
    _assert_same(got, m.hardsigmoid_backward(grad, self, DTYPES[o]), f"{path} {g}/{s}->{o}")


def test_tie_inputs_really_are_ties():
    """The tie set is what it claims: bf16 ties-away and ties-even disagree on it, and fp16
    rounding of it hits both parities."""
    ties = _ties_f32(np.random.default_rng(0))
    r = (ties * m.SIXTH).astype(np.float32)
    low16 = r.view(np.uint32) & 0xFFFF
    assert np.count_nonzero(low16 == 0x8000) > 50
    assert np.count_nonzero(_bits(m.f32_to_bf16(r)) != _bits(r.astype(m.BF16))) > 50
    assert np.count_nonzero((r.view(np.uint32) & 0x1FFF) == 0x1000) > 50


@pytest.mark.parametrize("layout", ["contig", "strided"])
@pytest.mark.parametrize("op", ["ht-f16", "hs-bf16-f32-f16", "hs-f32-f32-bf16"])
def test_thread_count_does_not_change_bits(cprog, driver, tmp_path, op, layout):
    """Large tensors are split across the pool; 1, 2 and 3 threads give identical bytes."""
    rng = np.random.default_rng(5)
    kind, *dts = op.split("-")
    g, s = (dts[0], dts[0]) if kind == "ht" else (dts[0], dts[1])
    o = dts[0] if kind == "ht" else dts[2]
    n = 300_007                                       # above the split threshold, odd tail
    self = _samples(s, rng, n)
    grad = _samples(g, rng, n)
    if kind == "ht":
        before, after = ["ht", g], [hex(0xBF800000), hex(0x3F800000)]
        want = m.hardtanh_backward(grad, self, np.float32(-1), np.float32(1))
    else:
        before, after = ["hs", g, s, o], []
        want = m.hardsigmoid_backward(grad, self, DTYPES[o])
    outs = []
    for threads in (1, 2, 3):
        got, _ = _run(cprog, driver, tmp_path, _env("auto", threads), before, grad, self, DTYPES[o], after, layout)
        outs.append(_bits(got))
        _assert_same(got, want, f"{threads} threads")
    assert np.array_equal(outs[0], outs[1]) and np.array_equal(outs[0], outs[2])


@pytest.mark.parametrize("path", ["scalar", "auto"])
def test_out_overlapping_an_input(cprog, path):
    """In place equals a separate out; a shifted overlap gives the element-order result."""
    exe = cprog.build("ops_overlap.c")
    proc = cprog.run(exe, env=_env(path, 2))
    assert proc.returncode == 0 and proc.stdout == "ok\n", proc.stdout + proc.stderr


@pytest.mark.parametrize("op", ["ht-bf16", "ht-f16", "hs-bf16-bf16-bf16", "hs-f16-f16-f16"])
def test_streaming_store_kernels_match_model(cprog, driver, tmp_path, op):
    """Contiguous tensors of 64 MiB of traffic and more are written with cache-bypassing
    stores (their own kernels, an element-wise head up to alignment, a fence); their bytes
    are the model's too.  11.2M elements of 2 bytes: 3 arrays = 67 MB; odd length."""
    rng = np.random.default_rng(9)
    kind, *dts = op.split("-")
    g, s = (dts[0], dts[0]) if kind == "ht" else (dts[0], dts[1])
    o = dts[0] if kind == "ht" else dts[2]
    n = 11_200_001
    self = _samples(s, rng, n)
    grad = _samples(g, rng, n)
    if kind == "ht":
        before, after = ["ht", g], [hex(0xBF800000), hex(0x40000000)]
        want = m.hardtanh_backward(grad, self, np.float32(-1), np.float32(2))
    else:
        before, after = ["hs", g, s, o], []
        want = m.hardsigmoid_backward(grad, self, DTYPES[o])
    got, _ = _run(cprog, driver, tmp_path, _env("auto", 2), before, grad, self, DTYPES[o], after, "contig")
    _assert_same(got, want, op)
