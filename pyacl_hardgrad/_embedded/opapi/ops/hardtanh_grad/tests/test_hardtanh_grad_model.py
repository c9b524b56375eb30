"""The numpy model of aclnnHardtanhBackward (hardtanh_grad_model.py) against hand-computed values."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import hardtanh_grad_model as ht
from hg_model import bf16, f16, f32, u16, u32

BF16 = ml_dtypes.bfloat16


# ---------------------------------------------------------------- HardtanhBackward

def test_hardtanh_reference_sample():
    grad = np.arange(8, dtype=np.float32)
    self = np.array([1, 1, 1, 2, 1, 2, 3, 3], dtype=np.float32)
    assert ht.hardtanh_backward(grad, self, 1.2, 2.4).tolist() == [0, 0, 0, 3, 0, 5, 0, 0]


def test_hardtanh_bounds_exclusive_nan_inf_f32():
    grad = np.array([1, 2, 3, 4, 5, 6, 7, 8], dtype=np.float32)
    self = np.array([-1, 2, np.nextafter(np.float32(-1), np.float32(0)),
                     np.nextafter(np.float32(2), np.float32(0)), np.nan, -np.inf, np.inf, 0], dtype=np.float32)
    assert ht.hardtanh_backward(grad, self, -1.0, 2.0).tolist() == [0, 0, 3, 4, 5, 0, 0, 8]
    # infinite bounds are exclusive too
    assert ht.hardtanh_backward(grad[5:7], self[5:7], -np.inf, np.inf).tolist() == [0, 0]


def test_hardtanh_is_a_bit_copy_and_zero_is_positive():
    grad = f32(0x7FC01234, 0x80000000, 0x80000000, 0x00000001)
    self = np.array([0, 0, 5, 0], dtype=np.float32)
    out = ht.hardtanh_backward(grad, self, -1, 1)
    assert u32(out) == [0x7FC01234, 0x80000000, 0x00000000, 0x00000001]


def test_hardtanh_f16_compares_widened_self():
    # self: 2^-24 (smallest subnormal), 0, -0, 0x3c00 (1.0), NaN
    grad = f16(0x3C00, 0x4000, 0x4200, 0x4400, 0xFE01)
    self = f16(0x0001, 0x0000, 0x8000, 0x3C00, 0x7E00)
    out = ht.hardtanh_backward(grad, self, 0.0, 1.0)
    assert u16(out) == [0x3C00, 0x0000, 0x0000, 0x0000, 0xFE01]


def test_hardtanh_bf16_and_fp32_bounds():
    # min 1.2 as float32 is 0x3f99999a; bf16 self 0x3f9a (1.203125) is above, 0x3f99 (1.1953) below
    grad = bf16(0x3F80, 0x4000)
    self = bf16(0x3F9A, 0x3F99)
    assert u16(ht.hardtanh_backward(grad, self, 1.2, 2.4)) == [0x3F80, 0x0000]


def test_model_rejects_other_dtypes():
    with pytest.raises(ValueError):
        ht.hardtanh_backward(np.ones(2, np.float32), np.ones(2, np.float16), 0, 1)
    with pytest.raises(TypeError):
        ht.hardtanh_backward(np.ones(2, np.int32), np.ones(2, np.int32), 0, 1)
