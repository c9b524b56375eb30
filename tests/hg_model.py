"""Exact numpy model of the two operator kernels of the embedded runtime.

fp16 rounding is numpy's (round to nearest, ties to even, subnormals, overflow to inf).
bfloat16 comes from ml_dtypes, but ml_dtypes rounds float32 -> bfloat16 ties to EVEN while
the NPU kernels round ties AWAY from zero, so that one cast is modelled on the float32 bit
pattern: (bits + 0x8000) >> 16, NaN kept as a quiet NaN.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

F32 = np.dtype(np.float32)
F16 = np.dtype(np.float16)
BF16 = np.dtype(ml_dtypes.bfloat16)
FLOAT_DTYPES = (F32, F16, BF16)

SIXTH = np.float32(1.0) / np.float32(6.0)   # 1.0f / 6.0f
HALF = np.float32(0.5)


def f32_to_bf16(x) -> np.ndarray:
    """float32 -> bfloat16, round to nearest with ties away from zero; NaN stays NaN."""
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x8000) >> 16).astype(np.uint16)
    nan_bits = ((bits >> 16) | 0x0040).astype(np.uint16)
    out = np.where(np.isnan(x), nan_bits, rounded).astype(np.uint16)
    return out.view(BF16)


def cast(x, dtype) -> np.ndarray:
    """The kernels' float casts: widening exact, to fp16 ties-even, to bf16 ties-away (via fp32)."""
    dtype = np.dtype(dtype)
    x = np.asarray(x)
    if x.dtype == dtype:
        return x.copy()
    wide = x.astype(np.float32)
    if dtype == F32:
        return wide
    if dtype == F16:
        with np.errstate(over="ignore"):
            return wide.astype(np.float16)
    if dtype == BF16:
        return f32_to_bf16(wide)
    raise TypeError(f"unsupported dtype {dtype}")


def _check(a, name) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype not in FLOAT_DTYPES:
        raise TypeError(f"{name} dtype {a.dtype} is not float32/float16/bfloat16")
    return a


def hardtanh_backward(grad, self, min_value, max_value) -> np.ndarray:
    """out = grad (bit copy) where min < self < max or self is NaN, else +0; one dtype throughout."""
    grad, self = _check(grad, "grad"), _check(self, "self")
    if grad.dtype != self.dtype or grad.shape != self.shape:
        raise ValueError("grad and self must have one dtype and one shape")
    lo, hi = np.float32(min_value), np.float32(max_value)
    s = self.astype(np.float32)
    keep = ((s > lo) & (s < hi)) | np.isnan(s)
    word = np.uint32 if grad.dtype == F32 else np.uint16
    bits = np.where(keep, grad.view(word), word(0)).astype(word)
    return bits.view(grad.dtype)


def promote(grad_dtype, self_dtype) -> np.dtype:
    """gradOutput x self: same -> same, any mix -> float32."""
    grad_dtype, self_dtype = np.dtype(grad_dtype), np.dtype(self_dtype)
    return grad_dtype if grad_dtype == self_dtype else F32


def hardsigmoid_backward(grad, self, out_dtype=None) -> np.ndarray:
    """In fp32: t = self*(1/6); t = t + 0.5; r = grad*(1/6); res = r if 0 < t < 1 else 0;
    res rounded to the promoted dtype, then cast to out_dtype (default: promoted)."""
    grad, self = _check(grad, "grad"), _check(self, "self")
    if grad.shape != self.shape:
        raise ValueError("grad and self must have one shape")
    promoted = promote(grad.dtype, self.dtype)
    out_dtype = promoted if out_dtype is None else np.dtype(out_dtype)
    with np.errstate(all="ignore"):
        t = self.astype(np.float32) * SIXTH
        t = (t + HALF).astype(np.float32)
        r = grad.astype(np.float32) * SIXTH
        res = np.where((t > np.float32(0)) & (t < np.float32(1)), r, np.float32(0)).astype(np.float32)
        return cast(cast(res, promoted), out_dtype)
