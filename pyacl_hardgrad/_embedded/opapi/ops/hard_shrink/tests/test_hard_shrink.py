"""aclnnHardshrink: phase-1 checks in CANN's order with CANN's codes, its own SoC table, lambd
handling, and PyTorch's aten.hardshrink as a bit-exact oracle."""
from __future__ import annotations

import numpy as np
import pytest

import hard_shrink_model as model
from hg_aclnn import NULL, S, T
from hg_model import u32

FUNC = model.FUNC
NULLPTR, INVALID = 161001, 161002
X = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8], np.float32).reshape(4, 2)


def _expect(aclnn, args, code, *words, **kw):
    rc, msg, *_ = aclnn.phase1(FUNC, args, **kw)
    assert rc == code, (rc, msg)
    for w in words:
        assert w in msg, (w, msg)


@pytest.mark.parametrize("which", [0, 1, 2])
def test_null_argument_is_161001(aclnn, which):
    args = [T(X), S(0.5), T(np.zeros_like(X))]
    args[which] = NULL
    _expect(aclnn, args, NULLPTR, ["self", "lambd", "out"][which])


def test_checks_in_cann_order(aclnn):
    nine = np.zeros((1,) * 9, np.int32)
    _expect(aclnn, [T(nine), S(0.5), T(np.zeros(2, np.int32))], INVALID, "self dtype DT_INT32")
    _expect(aclnn, [T(X), S(0.5), T(np.zeros(2, np.int32))], INVALID, "out dtype DT_INT32")
    nine = nine.astype(np.float32)
    _expect(aclnn, [T(nine), S(0.5), T(np.zeros(2, np.float32))], INVALID, "shape")   # shape before rank
    _expect(aclnn, [T(nine), S(0.5), T(nine)], INVALID, "self has 9 dimensions")
    _expect(aclnn, [T(X), S(0.5), T(X)], NULLPTR, "workspaceSize", ws=False)


def test_lambd_of_any_dtype_and_negative(aclnn):
    x = np.array([-1, -0.25, 0, 0.25, 1, 2], np.float32)
    for lam, want in ((S(1, np.int32), [0, 0, 0, 0, 0, 2]), (S(-1.0), [-1, -0.25, 0, 0.25, 1, 2]),
                      (S(0.25, np.float16), [-1, 0, 0, 0, 1, 2])):
        got = aclnn.call(FUNC, [T(x), lam, T(np.zeros_like(x))], [2])[0]
        assert got.tolist() == want


def test_cann_sample_values(aclnn):
    got = aclnn.call(FUNC, [T(X), S(0.5), T(np.zeros_like(X))], [2])[0]
    assert u32(got.ravel()) == u32(model.sample().ravel())


@pytest.mark.parametrize("dt", ["f32", "f16", "bf16"])
def test_against_torch_hardshrink_bit_for_bit(aclnn, dt):
    torch = pytest.importorskip("torch")
    from hg_cases import samples
    x = samples(dt, np.random.default_rng(2), 40000)
    tdt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[dt]
    word, tword = (np.int32, torch.int32) if dt == "f32" else (np.int16, torch.int16)
    for lam in (0.5, 2.0, 0.0):
        got = aclnn.call(FUNC, [T(x), S(lam), T(np.zeros_like(x))], [2])[0]
        want = torch.ops.aten.hardshrink(torch.from_numpy(x.view(word).copy()).view(tdt), lam)
        assert np.array_equal(got.view(word), want.contiguous().view(tword).numpy())
