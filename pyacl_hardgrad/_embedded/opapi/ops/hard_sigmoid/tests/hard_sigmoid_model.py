"""Exact numpy model of aclnnHardsigmoid / aclnnInplaceHardsigmoid and their numeric cases.

t = x * (1/6f); t = t + 0.5f in fp32; FLOAT: min(t, 1) then max(t, 0); FLOAT16: t narrowed with
CAST_RINT, then clamped; BF16: narrowed with CAST_ROUND, then clamped; INT32: x -> fp32 (RNE),
the FLOAT steps, back toward zero.  min/max keep a NaN.
"""
from __future__ import annotations

import numpy as np

import hg_model as m
from hg_cases import Case

FUNC = "aclnnHardsigmoid"
INPLACE = "aclnnInplaceHardsigmoid"
ALPHA = np.float32(1.0) / np.float32(6.0)


def _clamp(t):
    t = np.where(np.float32(1) < t, np.float32(1), t).astype(np.float32)
    return np.where(np.float32(0) > t, np.float32(0), t).astype(np.float32)


def hardsigmoid(x) -> np.ndarray:
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        t = (x.astype(np.float32) * ALPHA).astype(np.float32)
        t = (t + np.float32(0.5)).astype(np.float32)
        if x.dtype == np.int32:
            return np.trunc(_clamp(t)).astype(np.int32)
        if x.dtype == m.F32:
            return _clamp(t)
        mode = "rne" if x.dtype == m.F16 else "rna"
        if x.dtype not in (m.F16, m.BF16):
            raise TypeError(f"unsupported dtype {x.dtype}")
        return m.narrow(_clamp(m.narrow(t, x.dtype, mode).astype(np.float32)), x.dtype, mode)


def sample():
    """CANN's samples: self {-4, -3, -2, 0, 1, 2, 4, 5}, {4, 2}, FLOAT (both print the same)."""
    return hardsigmoid(np.array([-4, -3, -2, 0, 1, 2, 4, 5], np.float32).reshape(4, 2))


NUMERIC_CASES = (
    [Case(FUNC, [("in", d), ("out", d)], hardsigmoid, threads=d == "f16", overlap=d == "f32", streaming=d == "bf16")
     for d in ("f32", "f16", "bf16", "i32")] +
    [Case(INPLACE, [("inout", d)], hardsigmoid, name=f"{INPLACE}-{d}") for d in ("f32", "f16", "bf16")])

SOC_CALL = (FUNC, ("in", "out"))
SOC_DTYPES = {"bf16": ("Ascend910B", "Ascend910B4", "Ascend910_9391", "Ascend950PR"),
              "no_bf16": ("Ascend910", "Ascend910ProA", "Ascend310P3", "Ascend310B1")}
