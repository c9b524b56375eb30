"""Exact numpy model of aclnnHardswishBackward and its numeric cases (tests/test_op_numerics.py).

All in fp32: d = x * 0.33333334f; d = d + 0.5f; closed middle interval: d = 0 where not (x >= -3), 1 where not (x <= 3);
out = gradOutput * d, narrowed with CAST_RINT (round to nearest even).
"""
from __future__ import annotations

import numpy as np

import hg_model as m
from hg_cases import Case

FUNC = "aclnnHardswishBackward"
THIRD = np.float32(0.33333334)


def hardswish_backward(grad, self) -> np.ndarray:
    grad, self = m.check_float(grad, "gradOutput"), m.check_float(self, "self")
    if grad.dtype != self.dtype or grad.shape != self.shape:
        raise ValueError("gradOutput and self must have one dtype and one shape")
    with np.errstate(all="ignore"):
        x = self.astype(np.float32)
        d = (x * THIRD).astype(np.float32)
        d = (d + np.float32(0.5)).astype(np.float32)
        d = np.where(x >= np.float32(-3), d, np.float32(0)).astype(np.float32)
        d = np.where(x <= np.float32(3), d, np.float32(1)).astype(np.float32)
        r = (grad.astype(np.float32) * d).astype(np.float32)
    return m.narrow(r, self.dtype, "rne")


def sample():
    """CANN's sample: gradOut = self = 0..7, shape {4, 2}, FLOAT."""
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    return hardswish_backward(x, x)


# nan_payload=False: gradOutput = +-inf times d = 0 makes a NaN whose sign is the host's default
# NaN (x86_64: negative, aarch64: positive); every other bit is compared exactly.
NUMERIC_CASES = [
    Case(FUNC, [("in", dt), ("in", dt), ("out", dt)], hardswish_backward, threads=dt == "bf16", overlap=dt == "f32",
         streaming=dt == "f16", nan_payload=False)
    for dt in ("f32", "f16", "bf16")
]

# The SoC matrix: phase 1 with every tensor of one dtype (tests/test_op_soc_matrix.py).
SOC_CALL = (FUNC, ("in", "in", "out"))
SOC_DTYPES = {"bf16": ("Ascend910B", "Ascend910B4", "Ascend910_9391", "Ascend950PR"),
              "no_bf16": ("Ascend910", "Ascend910ProA", "Ascend310P3", "Ascend310B1")}
