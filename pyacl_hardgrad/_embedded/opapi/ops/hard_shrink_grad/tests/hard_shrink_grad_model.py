"""Exact numpy model of aclnnHardshrinkBackward and its numeric cases (tests/test_op_numerics.py).

In the promoted dtype P of (gradOutput, self): gradInput = 0 where |self| <= lambd, else
gradOutput; fp16 compares against lambd rounded to half, fp32 and bf16 against the fp32 lambd
(lambd < 0 acts as 0); then the Cast to gradInput's dtype.  One dtype throughout: a bit copy.
"""
from __future__ import annotations

import itertools

import numpy as np

import hg_model as m
from hg_cases import DTYPES, Case

FUNC = "aclnnHardshrinkBackward"


def promote(a, b) -> np.dtype:
    a, b = np.dtype(a), np.dtype(b)
    return a if a == b else m.F32


def hardshrink_backward(grad, self, lambd, out_dtype=None) -> np.ndarray:
    grad, self = m.check_float(grad, "gradOutput"), m.check_float(self, "self")
    grad, self = np.broadcast_arrays(grad, self)
    p = promote(grad.dtype, self.dtype)
    out_dtype = p if out_dtype is None else np.dtype(out_dtype)
    lam = max(np.float32(lambd), np.float32(0)) if not np.isnan(np.float32(lambd)) else np.float32(lambd)
    if p == m.F16:
        lam = np.float32(np.float16(lam))
    x = np.abs(self.astype(np.float32))
    keep = ~(x <= lam)
    if grad.dtype == self.dtype == out_dtype:
        word = np.uint32 if grad.dtype.itemsize == 4 else np.uint16
        return np.where(keep, np.ascontiguousarray(grad).view(word), word(0)).astype(word).view(grad.dtype)
    r = np.where(keep, grad.astype(np.float32), np.float32(0)).astype(np.float32)
    return m.cast(r, out_dtype)


LAMBDS = (0.5, 2.0, -1.0, 0.1, 65504.0)


def _case(g, s, o, lambd, **kw):
    return Case(FUNC, [("in", g), ("in", s), ("scalar", "f32", lambd), ("out", o)],
                lambda gr, se, o=o, lambd=lambd: hardshrink_backward(gr, se, lambd, DTYPES[o]),
                name=f"{FUNC}-{g}-{s}-{o}-{lambd}", nan_payload=(g == s == o), **kw)


NUMERIC_CASES = ([_case(d, d, d, lam, threads=(d == "f16" and lam == 0.5), overlap=(d == "f32" and lam == 0.5),
                        streaming=(d == "bf16" and lam == 0.5))
                  for d in ("f32", "f16", "bf16") for lam in LAMBDS] +
                 [_case(g, s, o, 0.5) for g, s, o in itertools.product(("f32", "f16", "bf16"), repeat=3)
                  if not g == s == o])

SOC_CALL = (FUNC, ("in", "in", ["scalar", 0.5], "out"))
SOC_DTYPES = {"bf16": ("Ascend910B", "Ascend910B4", "Ascend910_9391", "Ascend950PR"),
              "no_bf16": ("Ascend910", "Ascend910ProA", "Ascend310P3", "Ascend310B1")}


def sample():
    """CANN's sample: gradOutput {0, 0, 1, 1}, self {1, 2, 3, 4}, {2, 2}, lambd 2.0."""
    g = np.array([0, 0, 1, 1], np.float32).reshape(2, 2)
    x = np.array([1, 2, 3, 4], np.float32).reshape(2, 2)
    return hardshrink_backward(g, x, 2.0)
