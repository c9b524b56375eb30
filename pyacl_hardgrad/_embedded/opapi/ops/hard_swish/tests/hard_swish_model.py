"""Exact numpy model of aclnnHardswish / aclnnInplaceHardswish and their numeric cases.

All in fp32: t = x + 3; t = min(t, 6); t = max(t, 0); m = max(x, -3); y = m * t; y = y * (1/6f);
narrowed to self's dtype with CAST_ROUND (ties away), then cast to out's dtype.  min/max keep a NaN.
"""
from __future__ import annotations

import itertools

import numpy as np

import hg_model as m
from hg_cases import DTYPES, Case

FUNC = "aclnnHardswish"
INPLACE = "aclnnInplaceHardswish"
SIXTH = np.float32(1.0) / np.float32(6.0)


def hardswish(x, out_dtype=None) -> np.ndarray:
    x = m.check_float(x, "self")
    out_dtype = x.dtype if out_dtype is None else np.dtype(out_dtype)
    f = np.float32
    with np.errstate(all="ignore"):
        xf = x.astype(f)
        t = (xf + f(3)).astype(f)
        t = np.where(f(6) < t, f(6), t).astype(f)          # min(t, 6), NaN kept
        t = np.where(f(0) > t, f(0), t).astype(f)          # max(t, 0)
        mm = np.where(f(-3) > xf, f(-3), xf).astype(f)     # max(x, -3)
        y = (mm * t).astype(f)
        y = (y * SIXTH).astype(f)
    r = m.narrow(y, x.dtype, "rna")
    return r if out_dtype == x.dtype else m.cast(r, out_dtype)


def sample():
    """CANN's sample: self {-4, -3, -2, 0, 1, 2, 4, 5}, {4, 2}, FLOAT; then in place on self."""
    return hardswish(np.array([-4, -3, -2, 0, 1, 2, 4, 5], np.float32).reshape(4, 2))


NUMERIC_CASES = (
    [Case(FUNC, [("in", d), ("out", d)], hardswish, threads=d == "bf16", overlap=d == "f32", streaming=d == "f16")
     for d in ("f32", "f16", "bf16")] +
    [Case(FUNC, [("in", s), ("out", o)], lambda x, o=o: hardswish(x, DTYPES[o]), nan_payload=False)
     for s, o in itertools.product(("f32", "f16", "bf16"), repeat=2) if s != o] +
    [Case(INPLACE, [("inout", d)], hardswish, name=f"{INPLACE}-{d}") for d in ("f32", "f16", "bf16")])

SOC_CALL = (FUNC, ("in", "out"))
SOC_DTYPES = {"bf16": ("Ascend910B", "Ascend910B4", "Ascend910_9391", "Ascend950PR", "Ascend910E"),
              "no_bf16": ("Ascend910", "Ascend910ProA", "Ascend310P3", "Ascend310B1")}
