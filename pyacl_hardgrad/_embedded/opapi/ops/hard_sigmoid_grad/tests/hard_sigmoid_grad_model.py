"""Exact numpy model of aclnnHardsigmoidBackward and its numeric cases (tests/test_op_numerics.py).

In fp32: t = self*(1/6); t = t + 0.5; r = grad*(1/6); res = r if 0 < t < 1 else +0; res
rounded to the promoted dtype (the kernel's: fp16 RNE, bf16 ties away), then cast to out's dtype
(CANN's Cast: ties to even).
"""
from __future__ import annotations

import itertools

import numpy as np

import hg_model as m
from hg_cases import DTYPES, Case, samples

FUNC = "aclnnHardsigmoidBackward"
SIXTH = np.float32(1.0) / np.float32(6.0)   # 1.0f / 6.0f
HALF = np.float32(0.5)


def promote(grad_dtype, self_dtype) -> np.dtype:
    """gradOutput x self: same -> same, any mix -> float32."""
    grad_dtype, self_dtype = np.dtype(grad_dtype), np.dtype(self_dtype)
    return grad_dtype if grad_dtype == self_dtype else m.F32


def hardsigmoid_backward(grad, self, out_dtype=None) -> np.ndarray:
    grad, self = m.check_float(grad, "grad"), m.check_float(self, "self")
    if grad.shape != self.shape:
        raise ValueError("grad and self must have one shape")
    promoted = promote(grad.dtype, self.dtype)
    out_dtype = promoted if out_dtype is None else np.dtype(out_dtype)
    with np.errstate(all="ignore"):
        t = self.astype(np.float32) * SIXTH
        t = (t + HALF).astype(np.float32)
        r = grad.astype(np.float32) * SIXTH
        res = np.where((t > np.float32(0)) & (t < np.float32(1)), r, np.float32(0)).astype(np.float32)
        mode = "rna" if promoted == m.BF16 else "rne"
        return m.cast(m.narrow(res, promoted, mode), out_dtype)


def ties_f32(rng) -> np.ndarray:
    """grad values whose product with 1/6 (the kernel's r) lands exactly on an fp16 or bf16
    rounding tie, both parities, normal and fp16-subnormal, plus fp16's overflow tie 65520."""
    targets = []
    for e in range(-24, 16):                          # fp16 ties: low 13 bits 0x1000
        for mant in (0x000000, 0x002000, 0x3FE000, 0x7FC000):
            targets.append(((e + 127) << 23) | mant | 0x1000)
    for e in range(-30, 30):                          # bf16 ties: low 16 bits 0x8000
        for mant in (0x000000, 0x010000, 0x7E0000):
            targets.append(((e + 127) << 23) | mant | 0x8000)
    for k in range(1, 64):                            # fp16 subnormal ties: (2k+1) * 2^-25
        targets.append(int(np.float32((2 * k + 1) * 2.0 ** -25).view(np.uint32)))
    targets += [0x477FF000, 0x477FE000, 0x33000000, 0x33400000, 0x387FF000]
    t = np.array(targets, dtype=np.uint32).view(np.float32)
    t = np.concatenate([t, -t])
    base = (t.astype(np.float64) * 6.0).astype(np.float32)
    found = []
    for k in range(-4, 5):                            # neighbours of 6*t whose product hits t
        g = np.nextafter(base, np.float32(np.inf) if k > 0 else np.float32(-np.inf)) if k else base
        for _ in range(abs(k) - 1):
            g = np.nextafter(g, np.float32(np.inf) if k > 0 else np.float32(-np.inf))
        hit = (g * SIXTH).astype(np.float32).view(np.uint32) == t.view(np.uint32)
        found.append(g[hit])
    ties = np.concatenate(found)
    assert ties.size > 200, ties.size
    return rng.permutation(ties)


def _inputs(g, s):
    def make(rng):
        self = samples(s, rng)
        grad = samples(g, rng, len(self))
        if g == "f32":                                # rounding ties of r = grad / 6, self = 0 keeps r
            ties = ties_f32(rng)
            grad = np.concatenate([ties, grad])
            self = np.concatenate([np.zeros(len(ties), DTYPES[s]), self])
        return grad, self
    return make


def _case(g, s, o):
    key = f"{g}-{s}-{o}"
    return Case(FUNC, [("in", g), ("in", s), ("out", o)],
                lambda gr, se, o=o: hardsigmoid_backward(gr, se, DTYPES[o]), nan_payload=False,
                inputs=_inputs(g, s), threads=key in ("bf16-f32-f16", "f32-f32-bf16"),
                streaming=key in ("bf16-bf16-bf16", "f16-f16-f16"), overlap=key == "f32-f32-f32")


NUMERIC_CASES = [_case(g, s, o) for g, s, o in itertools.product(("f32", "f16", "bf16"), repeat=3)]
SOC_CHECKED_ELSEWHERE = "tests/c/hard_sigmoid_grad_checks.cpp bf16_accepted / bf16_rejected"
