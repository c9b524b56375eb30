"""aclnnHardswishBackward: phase-1 checks in CANN's order with CANN's codes, the model against hand-computed
values, and PyTorch's CPU aten.hardswish_backward as an oracle."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import hard_swish_grad_model as model
from hg_aclnn import NULL, T
from hg_model import f32, u32

FUNC = model.FUNC
NULLPTR, INVALID = 161001, 161002
BF16 = ml_dtypes.bfloat16
X = np.arange(8, dtype=np.float32).reshape(4, 2)


def _args(g=None, s=None, o=None):
    return [T(X) if g is None else g, T(X) if s is None else s, T(np.zeros_like(X)) if o is None else o]


def _expect(aclnn, args, code, *words, **kw):
    rc, msg, *_ = aclnn.phase1(FUNC, args, **kw)
    assert rc == code, (rc, msg)
    for w in words:
        assert w in msg, (w, msg)
    assert FUNC + "GetWorkspaceSize" in msg


@pytest.mark.parametrize("which", [0, 1, 2])
def test_null_tensor_is_161001(aclnn, which):
    args = _args()
    args[which] = NULL
    _expect(aclnn, args, NULLPTR, ["gradOutput", "self", "out"][which])


def test_null_workspace_size_or_executor_is_161001_before_anything_else(aclnn):
    _expect(aclnn, [NULL, NULL, NULL], NULLPTR, "workspaceSize", ws=False)
    _expect(aclnn, [NULL, NULL, NULL], NULLPTR, "executor", executor=False)


def test_dtype_checks_in_cann_order(aclnn):
    i32 = T(np.zeros((4, 2), np.int32))
    _expect(aclnn, _args(g=i32, s=i32), INVALID, "self dtype DT_INT32")
    _expect(aclnn, _args(g=i32), INVALID, "gradOutput dtype DT_INT32")
    _expect(aclnn, _args(g=T(X.astype(np.float16))), INVALID, "gradOutput dtype DT_FLOAT16 and self dtype DT_FLOAT")
    _expect(aclnn, _args(o=T(np.zeros((4, 2), np.float16))), INVALID, "out dtype DT_FLOAT16 and self dtype DT_FLOAT")


def test_shape_and_rank_checks(aclnn):
    nine = np.zeros((1,) * 9, np.float32)
    _expect(aclnn, _args(g=T(nine), s=T(nine), o=T(nine)), INVALID, "gradOutput has 9 dimensions")
    _expect(aclnn, _args(g=T(np.zeros((2, 4), np.float32))), INVALID, "gradOutput shape [2,4] and self shape [4,2]")
    _expect(aclnn, _args(o=T(np.zeros((8,), np.float32))), INVALID, "out shape [8] and self shape [4,2]")
    # one mismatch of each kind: the dtype rule comes first
    _expect(aclnn, _args(g=T(np.zeros((2, 4), np.float16))), INVALID, "dtype")


def test_empty_self_succeeds_after_the_checks(aclnn):
    e = np.zeros((0, 3), np.float32)
    rc, msg, ws, *_ = aclnn.phase1(FUNC, _args(g=T(e), s=T(e), o=T(e)))
    assert (rc, ws) == (0, 0), msg
    _expect(aclnn, _args(g=T(e), s=T(e), o=T(e.astype(np.float16))), INVALID, "out dtype")


def test_cann_sample_values(aclnn):
    got = aclnn.call(FUNC, _args(), [2])[0]
    assert u32(got.ravel()) == u32(model.sample().ravel())
    assert ["%f" % v for v in got.ravel()] == open(
        __file__.rsplit("/tests/", 1)[0] + "/examples/test_aclnn_hardswish_backward.expected").read().split()[2::3]


def test_model_boundaries_and_specials():
    g = np.full(6, 6, np.float32)
    x = np.array([-3, 3, -np.inf, np.inf, np.nan, -0.0], np.float32)
    got = model.hardswish_backward(g, x)
    assert np.isnan(got[4]) is np.False_ and got[4] == 6          # NaN self: d = 1
    assert got[2] == 0 and got[3] == 6
    assert u32(got[5:]) == u32(f32(0x40400000))                   # 6 * 0.5
    assert got[0] == -3 and got[1] == 9                            # closed interval: -0.5 g and 1.5 g


TORCH_DTYPES = {"f32": 1e-6, "f16": 1e-3, "bf16": 8e-3}


@pytest.mark.parametrize("dt", sorted(TORCH_DTYPES))
def test_against_torch_hardswish_backward(aclnn, dt):
    """aten.hardswish_backward (torch 2.13 CPU): 0 for x <= -3, g * (x / 3 + 0.5) for -3 < x < 3,
    g for x >= 3 (the open interval), in the input dtype's opmath (fp32 for fp16/bf16), with x / 3
    a division rather than x * 0.33333334f: compared within the dtype's tolerance, and at x = +-3, where this
    operator's closed interval gives -0.5 g and 1.5 g, element by element."""
    torch = pytest.importorskip("torch")
    from hg_cases import DTYPES
    rng = np.random.default_rng(42)
    dtype = DTYPES[dt]
    x = (rng.standard_normal(4000) * 4).astype(np.float32)
    x[:8] = [-3, 3, -2.9999, 2.9999, np.inf, -np.inf, 0, -0.0]
    g = rng.standard_normal(4000).astype(np.float32)
    xs, gs = x.astype(dtype), g.astype(dtype)
    got = aclnn.call(FUNC, [T(gs), T(xs), T(np.zeros_like(xs))], [2])[0]
    tdt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[dt]
    want = torch.ops.aten.hardswish_backward(torch.from_numpy(g).to(tdt), torch.from_numpy(x).to(tdt))
    want = want.float().numpy()
    gotf = got.astype(np.float32)
    xf = xs.astype(np.float32)
    differ = np.abs(xf) == 3
    tol = TORCH_DTYPES[dt]
    ok = np.isclose(gotf, want, rtol=tol, atol=tol) | differ
    assert ok.all(), (xf[~ok][:5], gotf[~ok][:5], want[~ok][:5])
    assert np.count_nonzero(differ) >= 2
    at3 = np.abs(xf) == 3                             # where they differ, ours is the closed rule
    assert np.array_equal(gotf[at3], model.hardswish_backward(gs[at3], xs[at3]).astype(np.float32))
