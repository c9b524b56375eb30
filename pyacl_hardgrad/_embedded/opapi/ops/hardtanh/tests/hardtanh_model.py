"""Exact numpy model of aclnnHardtanh / aclnnInplaceHardtanh and their numeric cases.

The bounds are converted to self's dtype (floats: to fp32, then fp16 / bf16 with RNE; integers:
toward zero, then C's conversion to the width), then out = min(max(x, lo), hi) in that dtype
(r = x < lo ? lo : x; r = r > hi ? hi : r): a NaN x stays NaN, a NaN bound gives NaN everywhere.
"""
from __future__ import annotations

import math

import numpy as np

import hg_model as m
from hg_cases import DTYPES, Case

FUNC = "aclnnHardtanh"
INPLACE = "aclnnInplaceHardtanh"


def _bound(dtype, v):
    dtype = np.dtype(dtype)
    if dtype.kind == "f" or dtype == m.BF16:
        if dtype == np.float64:
            return np.float64(v)
        f = np.float32(v)
        if dtype == m.F16:
            return np.float32(np.float16(f))
        if dtype == m.BF16:
            return np.float32(m.f32_to_bf16_rne(f))
        return f
    iv = 0 if math.isnan(v) else int(v) if abs(v) < 2**63 else (2**63 - 1 if v > 0 else -2**63)
    return np.array([iv], np.int64).astype(dtype)[0]


def hardtanh(x, lo, hi) -> np.ndarray:
    x = np.asarray(x)
    lo_c, hi_c = _bound(x.dtype, lo), _bound(x.dtype, hi)
    if x.dtype.kind in "iu":
        r = np.where(x < lo_c, lo_c, x).astype(x.dtype)
        return np.where(r > hi_c, hi_c, r).astype(x.dtype)
    wide = np.float64 if x.dtype == np.float64 else np.float32
    if np.isnan(lo_c) or np.isnan(hi_c):
        nan = lo_c if np.isnan(lo_c) else hi_c
        return m.narrow(np.full(x.shape, nan, np.float32), x.dtype, "rne") if wide == np.float32 \
            else np.full(x.shape, nan, np.float64)
    xf = x.astype(wide)
    r = np.where(xf < wide(lo_c), wide(lo_c), xf).astype(wide)
    r = np.where(r > wide(hi_c), wide(hi_c), r).astype(wide)
    if x.dtype in (m.F32, np.float64):
        # a select: the bits of x where kept (NaN payloads included)
        word = np.uint32 if x.dtype == m.F32 else np.uint64
        keep = ~(xf < wide(lo_c)) & ~(xf > wide(hi_c))
        return np.where(keep, x.view(word), r.view(word)).astype(word).view(x.dtype)
    return m.narrow(r, x.dtype, "rne")


def sample():
    """Our rewrite of CANN's sample: self {0, ..., 7}, {4, 2}, bounds FLOAT 1.2 and 2.4 (CANN's
    own sample passes 4 host values for its 8 elements; see docs)."""
    return hardtanh(np.arange(8, dtype=np.float32).reshape(4, 2), 1.2, 2.4)


BOUNDS = [(1.2, 2.4), (-1.0, 1.0), (-100.5, 3.0)]
FLOAT_BOUNDS = [(-np.inf, np.inf), (0.0, 0.0), (float("nan"), 1.0)]

NUMERIC_CASES = (
    [Case(FUNC, [("in", d), ("scalar", "f32", lo), ("scalar", "f32", hi), ("out", d)],
          # the driver passes FLOAT scalars: the model sees their fp32 values
          lambda x, lo=float(np.float32(lo)), hi=float(np.float32(hi)): hardtanh(x, lo, hi),
          name=f"{FUNC}-{d}-{lo}-{hi}",
          nan_payload=d in ("f32", "f64") or DTYPES[d].kind in "iu",
          threads=(d == "f16" and k == 0), overlap=(d == "f32" and k == 0), streaming=(d == "bf16" and k == 0))
     for d in ("f32", "f16", "bf16", "f64", "i8", "u8", "i16", "i32", "i64")
     for k, (lo, hi) in enumerate(BOUNDS + (FLOAT_BOUNDS if d in ("f32", "f16", "bf16", "f64") else []))] +
    [Case(INPLACE, [("inout", d), ("scalar", "f32", 1.2), ("scalar", "f32", 2.4)],
          lambda x: hardtanh(x, float(np.float32(1.2)), float(np.float32(2.4))), name=f"{INPLACE}-{d}",
          nan_payload=d == "f32")
     for d in ("f32", "f16", "bf16", "i32")])

SOC_CALL = (FUNC, ("in", ["scalar", 0.5], ["scalar", 1.5], "out"))
SOC_DTYPES = {"bf16": ("Ascend910B", "Ascend910B4", "Ascend910_9391", "Ascend950PR"),
              "no_bf16": ("Ascend910", "Ascend910ProA", "Ascend310P3", "Ascend310B1")}
