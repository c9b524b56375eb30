"""Helpers of the PyTorch-oracle tests: numpy <-> torch (bfloat16 through its bit pattern), special
values, per-case seeds, and running a Python-layer call on contiguous or transposed device views.
Import it after ``pytest.importorskip("torch")``."""

from __future__ import annotations

import math
import zlib

import ml_dtypes
import numpy as np

import hg_model as m
import torch

DTYPES = {"f32": m.F32, "f16": m.F16, "bf16": m.BF16}
TORCH_DTYPES = {m.F32: torch.float32, m.F16: torch.float16, m.BF16: torch.bfloat16}
TOL = {m.F32: 1e-4, m.F16: 1e-3, m.BF16: 4e-3}
SHAPE = (37, 29)          # odd sizes: torch's vector loops and their scalar tails both run


def _seed(*key) -> int:
    """A per-case seed that is stable across processes (str hashes are salted)."""
    return zlib.crc32(repr(key).encode())


def to_torch(a: np.ndarray):
    a = np.ascontiguousarray(a)
    if a.dtype == m.BF16:       # numpy has no bfloat16: go through the 16-bit pattern
        return torch.from_numpy(a.view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(a.copy())


def from_torch(t) -> np.ndarray:
    t = t.contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def _bits(a):
    return np.asarray(a).view(np.uint32 if a.dtype.itemsize == 4 else np.uint16)


def _specials(dt, around=()) -> np.ndarray:
    """Zeros, infinities, NaNs, subnormals, extremes, and each value of ``around`` with its
    neighbours (2 ulps either side, in dtype ``dt``)."""
    f32 = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 1e-40, 1.1754944e-38,
                    3.4028235e38, -3.4028235e38, 1.0, -1.0, 65504.0, 1e-7, 6e-8], np.float32)
    with np.errstate(over="ignore"):
        base = m.cast(f32, dt)
    word = np.uint32 if dt == m.F32 else np.uint16
    near = []
    for v in around:
        for sign in (1, -1):
            b = int(_bits(m.cast(np.float32(sign * v), dt)))
            near += [(b + k) % (1 << (8 * np.dtype(dt).itemsize)) for k in range(-2, 3)]
    return np.concatenate([base, np.array(near, word).view(dt)])


def _data(rng, dt, around=(), scale=3.0) -> np.ndarray:
    n = math.prod(SHAPE)
    with np.errstate(over="ignore"):
        vals = m.cast((rng.standard_normal(n) * scale).astype(np.float32), dt)
    sp = _specials(dt, around)
    pick = rng.random(n) < 0.2
    vals[pick] = rng.choice(sp, int(pick.sum()))
    vals[:sp.size] = sp                                   # every special at least once
    return vals.reshape(SHAPE)


def _run(hg, dev, fn, arrays, layout, **kw):
    """Run ``fn`` on device tensors of ``arrays`` (as they are, or transposed views of a
    transposed copy: same logical values, permuted strides); return the numpy result."""
    tensors = []
    try:
        for a in arrays:
            if layout == "transposed":
                base = hg.Tensor(np.ascontiguousarray(a.T), dev)
                tensors += [base, base.T]
            else:
                tensors.append(hg.Tensor(a, dev))
        inputs = tensors[1::2] if layout == "transposed" else tensors
        with fn(*inputs, **kw) as out:
            return out.numpy()
    finally:
        for t in reversed(tensors):
            t.close()


