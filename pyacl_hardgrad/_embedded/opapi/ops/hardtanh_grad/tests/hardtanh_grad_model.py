"""Exact numpy model of aclnnHardtanhBackward and its numeric cases (tests/test_op_numerics.py).

out = gradOutput (bit copy) where min < self < max or self is NaN, else +0; one dtype
throughout; self compared widened to fp32 with the fp32 bounds.
"""
from __future__ import annotations

import numpy as np

import hg_model as m
from hg_cases import Case

FUNC = "aclnnHardtanhBackward"


def hardtanh_backward(grad, self, min_value, max_value) -> np.ndarray:
    grad, self = m.check_float(grad, "grad"), m.check_float(self, "self")
    if grad.dtype != self.dtype or grad.shape != self.shape:
        raise ValueError("grad and self must have one dtype and one shape")
    lo, hi = np.float32(min_value), np.float32(max_value)
    s = self.astype(np.float32)
    keep = ((s > lo) & (s < hi)) | np.isnan(s)
    word = np.uint32 if grad.dtype == m.F32 else np.uint16
    bits = np.where(keep, grad.view(word), word(0)).astype(word)
    return bits.view(grad.dtype)


BOUNDS = [(0xBF800000, 0x3F800000), (0x3F99999A, 0x4019999A), (0xFF800000, 0x7F800000),
          (0x80000000, 0x00000000), (0x7FC00000, 0x7FC00000)]


def _case(dt, lo_bits, hi_bits, **kw):
    lo, hi = np.array([lo_bits, hi_bits], np.uint32).view(np.float32)
    return Case(FUNC, [("in", dt), ("in", dt), ("scalar", "f32", lo), ("scalar", "f32", hi), ("out", dt)],
                lambda g, s, lo=lo, hi=hi: hardtanh_backward(g, s, lo, hi),
                name=f"{FUNC}-{dt}-{lo_bits:x}-{hi_bits:x}", **kw)


NUMERIC_CASES = [_case(dt, lo, hi, threads=(dt == "f16" and k == 0), streaming=(dt != "f32" and k == 0),
                       overlap=(dt == "f32" and k == 0))
                 for dt in ("f32", "f16", "bf16") for k, (lo, hi) in enumerate(BOUNDS)]
SOC_CHECKED_ELSEWHERE = "tests/c/hardtanh_grad_checks.cpp bf16_accepted / bf16_rejected"
