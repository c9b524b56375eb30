"""Bit-exact comparison of the C kernels (through tests/c/ops_driver.c) with the numpy model
(tests/hg_model.py) over every fp16/bf16 bit pattern, special values and random fp32 data,
for every dtype combination, on contiguous and strided (staged) layouts."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import hg_model as m

DTYPES = {"f32": m.F32, "f16": m.F16, "bf16": m.BF16}
LAYOUTS = ["contig", "strided"]

F32_SPECIAL_BITS = [
    0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x40400000, 0xC0400000,   # 0, -0, 1, -1, 3, -3
    0x403FFFFF, 0x40400001, 0xC03FFFFF, 0xC0400001,                           # around +-3
    0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7FC01234, 0x7F800001,   # inf, NaN
    0x00000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF,               # subnormals, extremes
    0x3E2AAAAB, 0x3F000000, 0x3F99999A, 0x4019999A,                           # 1/6, .5, 1.2, 2.4
    0x477FE000, 0x477FF000, 0x33000000, 0x33800000, 0x38800000, 0x387FC000,   # fp16 edges
    0x3F808000, 0xBF808000, 0x3F80A000, 0x3F816000, 0x00008000,               # bf16 ties
]


def _f32_samples(rng):
    special = np.array(F32_SPECIAL_BITS, dtype=np.uint32).view(np.float32)
    rand_bits = rng.integers(0, 2**32, 20000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    uniform = rng.uniform(-4, 4, 20000).astype(np.float32)
    # every float within 300 ulps of 3 (the hardsigmoid keep range ends there)
    near3 = (np.float32(3) + np.arange(-300, 301).astype(np.float32) * np.float32(2.0**-22))
    small = (rng.standard_normal(5000) * 1e-6).astype(np.float32)
    return np.concatenate([special, rand_bits, uniform, near3, -near3, small])


def _samples(name, rng, n=None):
    dt = DTYPES[name]
    if dt == m.F32:
        data = _f32_samples(rng)
    else:
        data = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(dt)   # every bit pattern
        extra = m.cast(_f32_samples(rng)[:5000], dt)
        data = np.concatenate([data, extra])
    if n is not None:
        data = np.resize(rng.permutation(data), n)
    return data


def _run_driver(cprog, exe, tmp_path, args_before, grad, self, out_dtype, args_after, layout):
    gpath, spath, opath = tmp_path / "grad.bin", tmp_path / "self.bin", tmp_path / "out.bin"
    grad.tofile(gpath)
    self.tofile(spath)
    args = [*args_before, str(len(grad)), str(gpath), str(spath), str(opath), *args_after, layout]
    proc = cprog.run(exe, *args)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return np.fromfile(opath, dtype=out_dtype)


def _bits(a):
    return a.view(np.uint32 if a.dtype.itemsize == 4 else np.uint16)


@pytest.fixture(scope="module")
def driver(cprog):
    return cprog.build("ops_driver.c")


BOUNDS = [(0xBF800000, 0x3F800000), (0x3F99999A, 0x4019999A), (0xFF800000, 0x7F800000),
          (0x80000000, 0x00000000), (0x7FC00000, 0x7FC00000)]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_hardtanh_matches_model(cprog, driver, tmp_path, dtype, layout):
    rng = np.random.default_rng(1234)
    self = _samples(dtype, rng)
    grad = _samples(dtype, rng, len(self))
    for lo_bits, hi_bits in BOUNDS:
        got = _run_driver(cprog, driver, tmp_path, ["ht", dtype], grad, self, DTYPES[dtype],
                          [hex(lo_bits), hex(hi_bits)], layout)
        lo, hi = np.array([lo_bits, hi_bits], np.uint32).view(np.float32)
        want = m.hardtanh_backward(grad, self, lo, hi)
        diff = np.nonzero(_bits(got) != _bits(want))[0]
        assert diff.size == 0, (
            f"bounds {lo}, {hi}: {diff.size} mismatches, first at {diff[0]}: "
            f"grad {_bits(grad)[diff[0]]:#x} self {_bits(self)[diff[0]]:#x} "
            f"got {_bits(got)[diff[0]]:#x} want {_bits(want)[diff[0]]:#x}")


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("g, s, o", list(itertools.product(sorted(DTYPES), repeat=3)))
def test_hardsigmoid_matches_model(cprog, driver, tmp_path, g, s, o, layout):
    rng = np.random.default_rng(99)
    self = _samples(s, rng)
    grad = _samples(g, rng, len(self))
    got = _run_driver(cprog, driver, tmp_path, ["hs", g, s, o], grad, self, DTYPES[o], [], layout)
    want = m.hardsigmoid_backward(grad, self, DTYPES[o])
    both_nan = np.isnan(got.astype(np.float32)) & np.isnan(want.astype(np.float32))
    diff = np.nonzero((_bits(got) != _bits(want)) & ~both_nan)[0]
    assert diff.size == 0, (
        f"{diff.size} mismatches, first at {diff[0]}: grad {_bits(grad)[diff[0]]:#x} "
        f"self {_bits(self)[diff[0]]:#x} got {_bits(got)[diff[0]]:#x} want {_bits(want)[diff[0]]:#x}")


def test_driver_detects_a_wrong_model(cprog, driver, tmp_path):
    """The comparison can fail: ties-to-even bf16 rounding (ml_dtypes) differs from the kernel."""
    grad = np.array([0x3F816000], np.uint32).view(np.float32)   # * 1/6 = 0x3e2c8000, a tie
    self = np.zeros(1, m.BF16)
    got = _run_driver(cprog, driver, tmp_path, ["hs", "f32", "bf16", "bf16"], grad, self, m.BF16, [], "contig")
    r = (grad * m.SIXTH).astype(np.float32)
    assert _bits(r)[0] == 0x3E2C8000
    assert _bits(got)[0] == _bits(m.f32_to_bf16(r))[0] == 0x3E2D
    assert _bits(r.astype(m.BF16))[0] == 0x3E2C
