"""The rounding rules of the embedded runtime's kernels in numpy, shared by the operators'
models (each operator folder's tests/<folder>_model.py).

fp16 RNE is numpy's (round to nearest, ties to even, subnormals, overflow to inf).  bfloat16
comes from ml_dtypes, which rounds float32 -> bfloat16 ties to EVEN (CAST_RINT, also the Cast step
after a kernel, CANN's Cast operator); the kernels' own CAST_ROUND rounds ties AWAY from zero,
which is modelled on the float32 bit pattern: (bits + 0x8000) >> 16, NaN kept as a quiet NaN
(f32_to_bf16); f32_to_bf16_rne is the ties-to-even rule on the same bits.  fp16 ties-away
(CAST_ROUND) is modelled from numpy's fp16 by correcting the exact ties.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

F32 = np.dtype(np.float32)
F16 = np.dtype(np.float16)
BF16 = np.dtype(ml_dtypes.bfloat16)
FLOAT_DTYPES = (F32, F16, BF16)



# Arrays from bit patterns and back, for tests written in bits.
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


def f32_to_bf16(x) -> np.ndarray:
    """float32 -> bfloat16, round to nearest with ties away from zero; NaN stays NaN."""
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x8000) >> 16).astype(np.uint16)
    nan_bits = ((bits >> 16) | 0x0040).astype(np.uint16)
    out = np.where(np.isnan(x), nan_bits, rounded).astype(np.uint16)
    return out.view(BF16)


def f32_to_bf16_rne(x) -> np.ndarray:
    """float32 -> bfloat16, ties to even (CAST_RINT), on the float32 bit pattern; NaN stays a
    quiet NaN with the top payload bits."""
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    nan_bits = ((bits >> 16) | 0x0040).astype(np.uint16)
    return np.where(np.isnan(x), nan_bits, rounded).astype(np.uint16).view(BF16)


def narrow(x, dtype, mode: str) -> np.ndarray:
    """fp32 x -> dtype with an AscendC rounding mode: "rne" (CAST_RINT) or "rna" (CAST_ROUND)."""
    dtype = np.dtype(dtype)
    x = np.asarray(x, dtype=np.float32)
    if dtype == F32:
        return x.copy()
    if dtype == F16:
        if mode == "rna":
            return f32_to_f16_rna(x)
        with np.errstate(over="ignore"):
            return x.astype(np.float16)
    if dtype == BF16:
        return f32_to_bf16_rne(x) if mode == "rne" else f32_to_bf16(x)
    raise TypeError(f"unsupported dtype {dtype}")


def f32_to_f16_rna(x) -> np.ndarray:
    """float32 -> float16, ties away from zero (CAST_ROUND): numpy's ties-to-even result,
    moved one ulp away from zero where x was an exact tie that numpy rounded toward zero."""
    x = np.asarray(x, dtype=np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        h = x.astype(np.float16)
        up = (h.view(np.uint16) + np.uint16(1)).astype(np.uint16).view(np.float16)   # one ulp larger magnitude
        ax, ah, au = (np.abs(v.astype(np.float64)) for v in (x, h, up))
        tie_toward_zero = np.isfinite(h) & (ah < ax) & (ax * 2 == ah + au)
        return np.where(tie_toward_zero, up, h).astype(np.float16)


def cast(x, dtype) -> np.ndarray:
    """The Cast step after a kernel (CANN's Cast operator, CAST_RINT): widening exact, to fp16 and
    to bf16 round to nearest, ties to even (via fp32, which holds every fp16/bf16 value)."""
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
        return f32_to_bf16_rne(wide)
    raise TypeError(f"unsupported dtype {dtype}")


def check_float(a, name) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype not in FLOAT_DTYPES:
        raise TypeError(f"{name} dtype {a.dtype} is not float32/float16/bfloat16")
    return a


def __getattr__(name):
    """The operators' model functions looked up in every registered
    operator folder's tests/<folder>_model.py, for tests written against one model module."""
    import hg_registry

    for op in hg_registry.operators():
        mod = hg_registry.model(op)
        if hasattr(mod, name):
            return getattr(mod, name)
    raise AttributeError(f"module 'hg_model' has no attribute {name!r}")
