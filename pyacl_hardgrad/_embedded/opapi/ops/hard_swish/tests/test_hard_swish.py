"""aclnnHardswish / aclnnInplaceHardswish: phase-1 checks in CANN's order with CANN's codes, no
dimension limit (9 and more dims), self -> out casts, the model at hand-computed points, and
PyTorch's aten.hardswish as an oracle."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import hard_swish_model as model
from hg_aclnn import NULL, T
from hg_model import u32

NULLPTR, INVALID = 161001, 161002
X = np.array([-4, -3, -2, 0, 1, 2, 4, 5], np.float32).reshape(4, 2)


def _expect(aclnn, func, args, code, *words, **kw):
    rc, msg, *_ = aclnn.phase1(func, args, **kw)
    assert rc == code, (rc, msg)
    for w in words:
        assert w in msg, (w, msg)


def test_null_arguments_are_161001(aclnn):
    _expect(aclnn, model.FUNC, [NULL, T(X)], NULLPTR, "self")
    _expect(aclnn, model.FUNC, [T(X), NULL], NULLPTR, "out")
    _expect(aclnn, model.INPLACE, [NULL], NULLPTR, "self")
    _expect(aclnn, model.FUNC, [T(X), T(X)], NULLPTR, "workspaceSize", ws=False)


def test_checks_in_cann_order(aclnn):
    _expect(aclnn, model.FUNC, [T(X.astype(np.int32)), T(np.zeros(3, np.int32))], INVALID, "self dtype DT_INT32")
    _expect(aclnn, model.FUNC, [T(X), T(np.zeros(3, np.int32))], INVALID, "out dtype DT_INT32")
    _expect(aclnn, model.FUNC, [T(X), T(np.zeros(3, np.float32))], INVALID, "self shape [4,2] and out shape [3]")


def test_nine_and_more_dims_are_accepted(aclnn):
    x = np.arange(2 ** 10, dtype=np.float32).reshape((2,) * 10) / 100 - 5
    got = aclnn.call(model.FUNC, [T(x), T(np.zeros_like(x))], [1])[0]
    assert got.tobytes() == model.hardswish(x).tobytes()
    # a 9-dim transposed view merges too where neighbours are contiguous
    v = x[:, :, 0]                                            # 9 dims, strided
    got = aclnn.call(model.FUNC, [T(np.ascontiguousarray(v), strides=[s // 4 for s in x.strides[:2]] +
                                    [s // 4 for s in x.strides[3:]]), T(np.zeros_like(v))], [1])[0]
    assert got.tobytes() == model.hardswish(v).tobytes()


def test_a_layout_of_more_than_8_unmergeable_dims_is_rejected(aclnn):
    x = np.zeros((2,) * 9, np.float32)
    strides = [2 ** (2 * (8 - d)) for d in range(9)]             # every dim stepped: nothing merges
    _expect(aclnn, model.FUNC, [T(x, strides=strides), T(np.zeros_like(x))], INVALID, "does not merge into 8")


def test_out_dtype_differs(aclnn):
    got = aclnn.call(model.FUNC, [T(X), T(np.zeros((4, 2), ml_dtypes.bfloat16))], [1])[0]
    assert got.view(np.uint16).tolist() == model.hardswish(X, ml_dtypes.bfloat16).view(np.uint16).tolist()


def test_model_points():
    y = model.hardswish(np.array([-4, -3, -np.inf, np.nan, 3, 1e30], np.float32))
    assert u32(y[:3]) == [0x80000000] * 3                          # -0.0
    assert np.isnan(y[3]) and y[4] == 3
    assert y[5] == np.float32(np.float32(1e30) * np.float32(6)) * model.SIXTH


def test_sample_and_inplace(aclnn):
    out = aclnn.call(model.FUNC, [T(X), T(np.zeros_like(X))], [1])[0]
    inplace = aclnn.call(model.INPLACE, [T(X)], [0])[0]
    assert out.tobytes() == inplace.tobytes() == model.sample().tobytes()


@pytest.mark.parametrize("dt, tol", [("f32", 2.5e-7), ("f16", 1e-3), ("bf16", 8e-3)])
def test_against_torch_hardswish(aclnn, dt, tol):
    torch = pytest.importorskip("torch")
    from hg_cases import DTYPES
    rng = np.random.default_rng(6)
    x32 = np.concatenate([(rng.standard_normal(5000) * 4).astype(np.float32),
                          np.array([-3, 3, -4, 0, -0.0, 1e-30, -np.inf], np.float32)])
    x = x32.astype(DTYPES[dt])
    got = aclnn.call(model.FUNC, [T(x), T(np.zeros_like(x))], [1])[0].astype(np.float32)
    tdt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[dt]
    want = torch.ops.aten.hardswish(torch.from_numpy(x.astype(np.float32)).to(tdt)).float().numpy()
    fin = np.isfinite(want)
    assert np.allclose(got[fin], want[fin], rtol=tol, atol=tol), np.max(np.abs(got[fin] - want[fin]))
    neg = x.astype(np.float32) <= -3
    assert np.signbit(got[neg]).all() and (got[neg] == 0).all()   # -0.0 (the kernel's (-3) * (+0))
    if dt == "f32":                                                # torch's fp32 loop gives -0.0 too
        assert np.signbit(want[neg]).all()
