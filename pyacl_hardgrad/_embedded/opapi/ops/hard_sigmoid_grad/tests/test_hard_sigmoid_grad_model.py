"""The numpy model of aclnnHardsigmoidBackward (hard_sigmoid_grad_model.py) against hand-computed values."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import hard_sigmoid_grad_model as hs
from hg_model import bf16, f16, f32, u16, u32

BF16 = ml_dtypes.bfloat16


# ---------------------------------------------------------------- HardsigmoidBackward

def test_hardsigmoid_reference_sample():
    x = np.arange(8, dtype=np.float32)
    out = hs.hardsigmoid_backward(x, x)
    assert u32(out) == [0, 0x3E2AAAAB, 0x3EAAAAAB, 0, 0, 0, 0, 0]
    assert [f"{v:f}" for v in out.tolist()] == ["0.000000", "0.166667", "0.333333"] + ["0.000000"] * 5


def test_hardsigmoid_interval_is_open_and_nan_gives_zero():
    self = np.array([-3, 3, -2.999, 2.999, np.nan, np.inf, -np.inf], dtype=np.float32)
    grad = np.full(self.shape, 6, dtype=np.float32)
    six_sixths = np.float32(6) * (np.float32(1) / np.float32(6))
    assert hs.hardsigmoid_backward(grad, self).tolist() == [0, 0, six_sixths, six_sixths, 0, 0, 0]
    # NaN gradient inside the interval stays NaN; NaN self gives +0
    out = hs.hardsigmoid_backward(np.array([np.nan, np.nan], np.float32), np.array([0, np.nan], np.float32))
    assert np.isnan(out[0]) and u32(out[1:]) == [0]


def test_hardsigmoid_two_roundings_not_fused():
    # self = 2.9999998: self/6 rounds to 0.49999997, + 0.5 rounds to 1.0 -> outside -> 0,
    # although the exact value self*(1/6)+0.5 = 0.99999997516 is inside the interval.
    s = np.array([np.nextafter(np.float32(3), np.float32(0))], dtype=np.float32)
    assert u32(hs.hardsigmoid_backward(np.ones(1, np.float32), s)) == [0]
    # self = -2.9999998: t = 2.98e-8 > 0 -> kept
    assert u32(hs.hardsigmoid_backward(np.ones(1, np.float32), -s)) == [0x3E2AAAAB]


def test_hardsigmoid_signed_zero():
    grad = f32(0x80000000, 0x80000000)
    self = np.array([0, 10], dtype=np.float32)
    assert u32(hs.hardsigmoid_backward(grad, self)) == [0x80000000, 0x00000000]


def test_hardsigmoid_f16_rounding_and_subnormals():
    grad = f16(0x3C00, 0x7BFF, 0x0001, 0x0006, 0x0003)   # 1, 65504, 2^-24, 6*2^-24, 3*2^-24
    self = np.zeros(5, dtype=np.float16)
    # 1/6 -> 0x3155; 65504/6 = 10917.33 -> 10920 (0x7155); 2^-24/6 -> 0; 6*2^-24/6 -> 2^-24;
    # 3*2^-24 * 0x3e2aaaab rounds in fp32 to exactly 2^-25: an fp16 tie -> even -> 0
    out = hs.hardsigmoid_backward(grad, self)
    assert out.dtype == np.float16
    assert u16(out) == [0x3155, 0x7155, 0x0000, 0x0001, 0x0000]


def test_hardsigmoid_cast_to_bf16_ties_to_even() -> None:
    # fp32 gradients whose product with 1/6 lands exactly on a bf16 tie (low 16 bits 0x8000):
    # 0x3e2b8000, 0x3e2c8000, 0xbe2d8000; promoted fp32, out bf16 -> CANN's Cast rounds ties to
    # even: an odd lower neighbour goes up (0x3e2c, 0xbe2e), an even one stays (0x3e2c, where
    # ties away would give 0x3e2d)
    g = f32(0x3F80A000, 0x3F816000, 0xBF822000)
    r = g * (np.float32(1) / np.float32(6))
    assert u32(r) == [0x3E2B8000, 0x3E2C8000, 0xBE2D8000]
    out = hs.hardsigmoid_backward(g, np.zeros(3, BF16), BF16)
    assert u16(out) == [0x3E2C, 0x3E2C, 0xBE2E]
    assert u16(out) == u16(r.astype(BF16))            # ml_dtypes: ties to even as well


@pytest.mark.parametrize("g, s, want", [
    (np.float32, np.float32, np.float32), (np.float16, np.float16, np.float16), (BF16, BF16, BF16),
    (np.float16, np.float32, np.float32), (np.float32, BF16, np.float32), (np.float16, BF16, np.float32),
    (BF16, np.float16, np.float32),
])
def test_promotion(g, s, want):
    assert hs.promote(g, s) == np.dtype(want)
    assert hs.hardsigmoid_backward(np.ones(1, g), np.zeros(1, s)).dtype == np.dtype(want)


def test_hardsigmoid_rounds_to_promoted_then_to_out():
    one16, zero16 = f16(0x3C00), f16(0x0000)
    # promoted fp16: 1/6 -> 0x3155 (0.16662598); to f32 exactly
    assert u32(hs.hardsigmoid_backward(one16, zero16, np.float32)) == [0x3E2AA000]
    # promoted f32 (fp16 x bf16): 1/6 stays 0x3e2aaaab in f32
    assert u32(hs.hardsigmoid_backward(one16, bf16(0x0000), np.float32)) == [0x3E2AAAAB]
    # promoted bf16: 1/6 -> 0x3e2b (0.16699219); to fp16 = 0x3158 (0.16699219 exactly representable)
    assert u16(hs.hardsigmoid_backward(bf16(0x3F80), bf16(0x0000), np.float16)) == [0x3158]
    # promoted fp16 then bf16 out: 0x3e2aa000 -> 0xa000 is above the half -> 0x3e2b
    assert u16(hs.hardsigmoid_backward(one16, zero16, BF16)) == [0x3E2B]


def test_model_rejects_other_dtypes():
    with pytest.raises(TypeError):
        hs.hardsigmoid_backward(np.ones(2, np.int32), np.ones(2, np.float32))
