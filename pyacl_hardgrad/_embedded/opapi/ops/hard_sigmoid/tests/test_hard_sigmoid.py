"""aclnnHardsigmoid / aclnnInplaceHardsigmoid: phase-1 checks in CANN's order with CANN's codes,
the INT32 path, the model at hand-computed points, and PyTorch's aten.hardsigmoid as an oracle."""
from __future__ import annotations

import numpy as np
import pytest

import hard_sigmoid_model as model
from hg_aclnn import NULL, T
from hg_model import f16, u16, u32

NULLPTR, INVALID = 161001, 161002
X = np.array([-4, -3, -2, 0, 1, 2, 4, 5], np.float32).reshape(4, 2)


def _expect(aclnn, func, args, code, *words, **kw):
    rc, msg, *_ = aclnn.phase1(func, args, **kw)
    assert rc == code, (rc, msg)
    for w in words:
        assert w in msg, (w, msg)
    assert func + "GetWorkspaceSize" in msg


def test_null_arguments_are_161001(aclnn):
    _expect(aclnn, model.FUNC, [NULL, T(X)], NULLPTR, "self")
    _expect(aclnn, model.FUNC, [T(X), NULL], NULLPTR, "out")
    _expect(aclnn, model.INPLACE, [NULL], NULLPTR, "self")
    _expect(aclnn, model.FUNC, [NULL, NULL], NULLPTR, "workspaceSize", ws=False)
    _expect(aclnn, model.INPLACE, [NULL], NULLPTR, "executor", executor=False)


def test_checks_in_cann_order(aclnn):
    i64 = np.zeros((4, 2), np.int64)
    _expect(aclnn, model.FUNC, [T(i64), T(np.zeros((3,), np.float16))], INVALID, "self dtype DT_INT64")
    nine = np.zeros((1,) * 9, np.float32)
    _expect(aclnn, model.FUNC, [T(nine), T(np.zeros((2,), np.float16))], INVALID, "self has 9 dimensions")
    _expect(aclnn, model.FUNC, [T(X), T(np.zeros((8,), np.float16))], INVALID, "self shape [4,2] and out shape [8]")
    _expect(aclnn, model.FUNC, [T(X), T(np.zeros((4, 2), np.float16))], INVALID,
            "self dtype DT_FLOAT and out dtype DT_FLOAT16")
    _expect(aclnn, model.FUNC, [T(X), T(np.zeros((4, 2), np.float32), fmt=0)], INVALID,
            "self format ND and out format NCHW")
    _expect(aclnn, model.INPLACE, [T(i64)], INVALID, "self dtype DT_INT64")


def test_int32_results_are_0_or_1(aclnn):
    x = np.array([-2**31, -4, -3, -2, 0, 2, 3, 4, 2**31 - 1], np.int32)
    got = aclnn.call(model.FUNC, [T(x), T(np.zeros_like(x))], [1])[0]
    assert got.tolist() == [0, 0, 0, 0, 0, 0, 1, 1, 1] == model.hardsigmoid(x).tolist()


def test_inplace_writes_self(aclnn):
    got = aclnn.call(model.INPLACE, [T(X)], [0])[0]
    assert u32(got.ravel()) == u32(model.sample().ravel())


def test_model_points():
    assert model.hardsigmoid(np.array([-3, 3, np.nan, -np.inf, np.inf], np.float32)).tolist()[:2] == [0, 1]
    assert np.isnan(model.hardsigmoid(np.array([np.nan], np.float32))[0])
    # fp16: t = -2^-25 narrows (ties to even) to -0 and the clamp keeps it
    x = np.array([np.float32(-3.0000002)], np.float32)
    t = (x * model.ALPHA).astype(np.float32) + np.float32(0.5)
    assert t[0] < 0
    assert u16(model.hardsigmoid(f16(0xC200))) == [0x0000]       # -3.0 in fp16 -> +0


@pytest.mark.parametrize("dt, tol", [("f32", 2.5e-7), ("f16", 1e-3), ("bf16", 8e-3)])
def test_against_torch_hardsigmoid(aclnn, dt, tol):
    torch = pytest.importorskip("torch")
    from hg_cases import DTYPES
    rng = np.random.default_rng(4)
    x32 = np.concatenate([(rng.standard_normal(5000) * 4).astype(np.float32),
                          np.array([-3, 3, 0, -0.0, np.inf, -np.inf, 1e-30], np.float32)])
    x = x32.astype(DTYPES[dt])
    got = aclnn.call(model.FUNC, [T(x), T(np.zeros_like(x))], [1])[0].astype(np.float32)
    tdt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[dt]
    want = torch.ops.aten.hardsigmoid(torch.from_numpy(x.astype(np.float32)).to(tdt)).float().numpy()
    assert np.allclose(got, want, rtol=tol, atol=tol), np.max(np.abs(got - want))
    nan = aclnn.call(model.FUNC, [T(np.array([np.nan], np.float32)), T(np.zeros(1, np.float32))], [1])[0]
    assert np.isnan(nan[0]) and np.isnan(torch.ops.aten.hardsigmoid(torch.tensor([float("nan")]))[0])
