"""The numpy model of the kernels (tests/hg_model.py) against hand-computed values."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import hg_model as m

BF16 = ml_dtypes.bfloat16


def f32(*bits):
    return np.array(bits, dtype=np.uint32).view(np.float32)


def f16(*bits):
    return np.array(bits, dtype=np.uint16).view(np.float16)


def bf16(*bits):
    return np.array(bits, dtype=np.uint16).view(BF16)


def u32(a):
    return [int(x) for x in np.asarray(a).view(np.uint32)]


def u16(a):
    return [int(x) for x in np.asarray(a).view(np.uint16)]


# ---------------------------------------------------------------- bf16 rounding rule

def test_ml_dtypes_rounds_ties_to_even_so_the_model_does_not_use_it():
    tie = f32(0x3F808000)            # exactly between bf16 0x3f80 and 0x3f81
    assert u16(tie.astype(BF16)) == [0x3F80]   # ml_dtypes: ties to even
    assert u16(m.f32_to_bf16(tie)) == [0x3F81]  # kernel: ties away from zero


@pytest.mark.parametrize("bits, want", [
    (0x3F808000, 0x3F81),   # positive tie -> away
    (0xBF808000, 0xBF81),   # negative tie -> away (more negative)
    (0x3F818000, 0x3F82),   # tie with odd low bit: same as ties-even
    (0x3F807FFF, 0x3F80),   # just below the tie
    (0x3F808001, 0x3F81),
    (0x7F7FFFFF, 0x7F80),   # float32 max rounds to inf
    (0x7F7F7FFF, 0x7F7F),   # stays the largest finite bf16
    (0x7F800000, 0x7F80),   # +inf
    (0xFF800000, 0xFF80),   # -inf
    (0x00008000, 0x0001),   # subnormal tie -> smallest bf16 subnormal
    (0x00007FFF, 0x0000),
    (0x80000000, 0x8000),   # -0 kept
    (0x7FC00000, 0x7FC0),   # quiet NaN
    (0x7F800001, 0x7FC0),   # signalling NaN whose payload would vanish: stays NaN
    (0xFFC12345, 0xFFC1),
])
def test_f32_to_bf16_bits(bits, want):
    assert u16(m.f32_to_bf16(f32(bits))) == [want]


@pytest.mark.parametrize("bits, want", [
    (0x3E2AAAAB, 0x3155),   # 1/6: round to nearest
    (0x3F801000, 0x3C00),   # fp16 tie, even below
    (0x3F803000, 0x3C02),   # fp16 tie, odd below -> up
    (0x477FF000, 0x7C00),   # 65520 -> inf
    (0x477FEFFF, 0x7BFF),   # just below -> 65504
    (0x33800000, 0x0001),   # 2^-24: smallest subnormal
    (0x33000000, 0x0000),   # 2^-25: tie -> even (0)
    (0x33000001, 0x0001),
    (0x80000000, 0x8000),
])
def test_f32_to_f16_by_numpy(bits, want):
    assert u16(m.cast(f32(bits), np.float16)) == [want]


# ---------------------------------------------------------------- HardtanhBackward

def test_hardtanh_reference_sample():
    grad = np.arange(8, dtype=np.float32)
    self = np.array([1, 1, 1, 2, 1, 2, 3, 3], dtype=np.float32)
    assert m.hardtanh_backward(grad, self, 1.2, 2.4).tolist() == [0, 0, 0, 3, 0, 5, 0, 0]


def test_hardtanh_bounds_exclusive_nan_inf_f32():
    grad = np.array([1, 2, 3, 4, 5, 6, 7, 8], dtype=np.float32)
    self = np.array([-1, 2, np.nextafter(np.float32(-1), np.float32(0)),
                     np.nextafter(np.float32(2), np.float32(0)), np.nan, -np.inf, np.inf, 0], dtype=np.float32)
    assert m.hardtanh_backward(grad, self, -1.0, 2.0).tolist() == [0, 0, 3, 4, 5, 0, 0, 8]
    # infinite bounds are exclusive too
    assert m.hardtanh_backward(grad[5:7], self[5:7], -np.inf, np.inf).tolist() == [0, 0]


def test_hardtanh_is_a_bit_copy_and_zero_is_positive():
    grad = f32(0x7FC01234, 0x80000000, 0x80000000, 0x00000001)
    self = np.array([0, 0, 5, 0], dtype=np.float32)
    out = m.hardtanh_backward(grad, self, -1, 1)
    assert u32(out) == [0x7FC01234, 0x80000000, 0x00000000, 0x00000001]


def test_hardtanh_f16_compares_widened_self():
    # self: 2^-24 (smallest subnormal), 0, -0, 0x3c00 (1.0), NaN
    grad = f16(0x3C00, 0x4000, 0x4200, 0x4400, 0xFE01)
    self = f16(0x0001, 0x0000, 0x8000, 0x3C00, 0x7E00)
    out = m.hardtanh_backward(grad, self, 0.0, 1.0)
    assert u16(out) == [0x3C00, 0x0000, 0x0000, 0x0000, 0xFE01]


def test_hardtanh_bf16_and_fp32_bounds():
    # min 1.2 as float32 is 0x3f99999a; bf16 self 0x3f9a (1.203125) is above, 0x3f99 (1.1953) below
    grad = bf16(0x3F80, 0x4000)
    self = bf16(0x3F9A, 0x3F99)
    assert u16(m.hardtanh_backward(grad, self, 1.2, 2.4)) == [0x3F80, 0x0000]


# ---------------------------------------------------------------- HardsigmoidBackward

def test_hardsigmoid_reference_sample():
    x = np.arange(8, dtype=np.float32)
    out = m.hardsigmoid_backward(x, x)
    assert u32(out) == [0, 0x3E2AAAAB, 0x3EAAAAAB, 0, 0, 0, 0, 0]
    assert [f"{v:f}" for v in out.tolist()] == ["0.000000", "0.166667", "0.333333"] + ["0.000000"] * 5


def test_hardsigmoid_interval_is_open_and_nan_gives_zero():
    self = np.array([-3, 3, -2.999, 2.999, np.nan, np.inf, -np.inf], dtype=np.float32)
    grad = np.full(self.shape, 6, dtype=np.float32)
    six_sixths = np.float32(6) * (np.float32(1) / np.float32(6))
    assert m.hardsigmoid_backward(grad, self).tolist() == [0, 0, six_sixths, six_sixths, 0, 0, 0]
    # NaN gradient inside the interval stays NaN; NaN self gives +0
    out = m.hardsigmoid_backward(np.array([np.nan, np.nan], np.float32), np.array([0, np.nan], np.float32))
    assert np.isnan(out[0]) and u32(out[1:]) == [0]


def test_hardsigmoid_two_roundings_not_fused():
    # self = 2.9999998: self/6 rounds to 0.49999997, + 0.5 rounds to 1.0 -> outside -> 0,
    # although the exact value self*(1/6)+0.5 = 0.99999997516 is inside the interval.
    s = np.array([np.nextafter(np.float32(3), np.float32(0))], dtype=np.float32)
    assert u32(m.hardsigmoid_backward(np.ones(1, np.float32), s)) == [0]
    # self = -2.9999998: t = 2.98e-8 > 0 -> kept
    assert u32(m.hardsigmoid_backward(np.ones(1, np.float32), -s)) == [0x3E2AAAAB]


def test_hardsigmoid_signed_zero():
    grad = f32(0x80000000, 0x80000000)
    self = np.array([0, 10], dtype=np.float32)
    assert u32(m.hardsigmoid_backward(grad, self)) == [0x80000000, 0x00000000]


def test_hardsigmoid_f16_rounding_and_subnormals():
    grad = f16(0x3C00, 0x7BFF, 0x0001, 0x0006, 0x0003)   # 1, 65504, 2^-24, 6*2^-24, 3*2^-24
    self = np.zeros(5, dtype=np.float16)
    # 1/6 -> 0x3155; 65504/6 = 10917.33 -> 10920 (0x7155); 2^-24/6 -> 0; 6*2^-24/6 -> 2^-24;
    # 3*2^-24 * 0x3e2aaaab rounds in fp32 to exactly 2^-25: an fp16 tie -> even -> 0
    out = m.hardsigmoid_backward(grad, self)
    assert out.dtype == np.float16
    assert u16(out) == [0x3155, 0x7155, 0x0000, 0x0001, 0x0000]


def test_hardsigmoid_bf16_ties_away():
    # fp32 gradients whose product with 1/6 lands exactly on a bf16 tie (low 16 bits 0x8000),
    # e.g. 0x3f80a000 * 0x3e2aaaab = 0x3e2b8000; promoted fp32, out bf16 -> rounded away
    g = f32(0x3F80A000, 0x3F816000, 0xBF822000)
    r = g * (np.float32(1) / np.float32(6))
    assert [b & 0xFFFF for b in u32(r)] == [0x8000] * 3
    out = m.hardsigmoid_backward(g, np.zeros(3, BF16), BF16)
    assert u16(out) == [(b >> 16) + 1 for b in u32(r)]
    assert u16(out)[0] == 0x3E2C and u16(out)[2] >> 15 == 1


@pytest.mark.parametrize("g, s, want", [
    (np.float32, np.float32, np.float32), (np.float16, np.float16, np.float16), (BF16, BF16, BF16),
    (np.float16, np.float32, np.float32), (np.float32, BF16, np.float32), (np.float16, BF16, np.float32),
    (BF16, np.float16, np.float32),
])
def test_promotion(g, s, want):
    assert m.promote(g, s) == np.dtype(want)
    assert m.hardsigmoid_backward(np.ones(1, g), np.zeros(1, s)).dtype == np.dtype(want)


def test_hardsigmoid_rounds_to_promoted_then_to_out():
    one16, zero16 = f16(0x3C00), f16(0x0000)
    # promoted fp16: 1/6 -> 0x3155 (0.16662598); to f32 exactly
    assert u32(m.hardsigmoid_backward(one16, zero16, np.float32)) == [0x3E2AA000]
    # promoted f32 (fp16 x bf16): 1/6 stays 0x3e2aaaab in f32
    assert u32(m.hardsigmoid_backward(one16, bf16(0x0000), np.float32)) == [0x3E2AAAAB]
    # promoted bf16: 1/6 -> 0x3e2b (0.16699219); to fp16 = 0x3158 (0.16699219 exactly representable)
    assert u16(m.hardsigmoid_backward(bf16(0x3F80), bf16(0x0000), np.float16)) == [0x3158]
    # promoted fp16 then bf16 out: 0x3e2aa000 -> ties-away rounding on 0xa000 -> 0x3e2b
    assert u16(m.hardsigmoid_backward(one16, zero16, BF16)) == [0x3E2B]


def test_model_rejects_other_dtypes():
    with pytest.raises(TypeError):
        m.hardsigmoid_backward(np.ones(2, np.int32), np.ones(2, np.float32))
    with pytest.raises(ValueError):
        m.hardtanh_backward(np.ones(2, np.float32), np.ones(2, np.float16), 0, 1)
