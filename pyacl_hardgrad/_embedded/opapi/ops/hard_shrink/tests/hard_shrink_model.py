"""Exact numpy model of aclnnHardshrink and its numeric cases (tests/test_op_numerics.py).

out = +0 where |x| <= lambd (x widened to fp32, lambd fp32, lambd < 0 acts as 0), else x (a bit
copy with one dtype; otherwise the Cast step to out's dtype).
"""
from __future__ import annotations

import itertools

import numpy as np

import hg_model as m
from hg_cases import DTYPES, Case

FUNC = "aclnnHardshrink"


def hardshrink(x, lambd=0.5, out_dtype=None) -> np.ndarray:
    x = m.check_float(x, "self")
    out_dtype = x.dtype if out_dtype is None else np.dtype(out_dtype)
    lam = np.float32(lambd)
    lam = np.float32(0) if lam < 0 else lam
    keep = ~(np.abs(x.astype(np.float32)) <= lam)
    if out_dtype == x.dtype:
        word = np.uint32 if x.dtype.itemsize == 4 else np.uint16
        return np.where(keep, np.ascontiguousarray(x).view(word), word(0)).astype(word).view(x.dtype)
    return m.cast(np.where(keep, x.astype(np.float32), np.float32(0)).astype(np.float32), out_dtype)


def sample():
    """CANN's sample: self {0.1, ..., 0.8}, {4, 2}, lambd 0.5, FLOAT."""
    x = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8], np.float32).reshape(4, 2)
    return hardshrink(x, 0.5)


LAMBDS = (0.5, 0.0, -2.0, 1e-5, 3.0)

NUMERIC_CASES = (
    [Case(FUNC, [("in", d), ("scalar", "f32", lam), ("out", d)], lambda x, lam=lam: hardshrink(x, lam),
          name=f"{FUNC}-{d}-{lam}", threads=(d == "bf16" and lam == 0.5), overlap=(d == "f32" and lam == 0.5),
          streaming=(d == "f16" and lam == 0.5))
     for d in ("f32", "f16", "bf16") for lam in LAMBDS] +
    [Case(FUNC, [("in", s), ("scalar", "f32", 0.5), ("out", o)], lambda x, o=o: hardshrink(x, 0.5, DTYPES[o]),
          nan_payload=False)
     for s, o in itertools.product(("f32", "f16", "bf16"), repeat=2) if s != o])

SOC_CALL = (FUNC, ("in", ["scalar", 0.5], "out"))
SOC_DTYPES = {"bf16": ("Ascend910B", "Ascend910_9391", "Ascend950PR", "Ascend310B1", "Ascend910E"),
              "no_bf16": ("Ascend910", "Ascend910ProA", "Ascend310P3")}
