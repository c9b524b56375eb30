"""aclnnHardtanh / aclnnInplaceHardtanh: phase-1 checks in CANN's order with CANN's codes (no
workspaceSize/executor check first), the min > max rule, scalar conversions to self's dtype, and
PyTorch's aten.hardtanh as a bit-exact oracle."""
from __future__ import annotations

import numpy as np
import pytest

import hardtanh_model as model
from hg_aclnn import NULL, S, T

NULLPTR, INVALID = 161001, 161002
X = np.arange(8, dtype=np.float32).reshape(4, 2)


def _args(x=None, lo=None, hi=None, o=None):
    return [T(X) if x is None else x, S(1.2) if lo is None else lo, S(2.4) if hi is None else hi,
            T(np.zeros_like(X)) if o is None else o]


def _expect(aclnn, func, args, code, *words, **kw):
    rc, msg, *_ = aclnn.phase1(func, args, **kw)
    assert rc == code, (rc, msg)
    for w in words:
        assert w in msg, (w, msg)


@pytest.mark.parametrize("which", [0, 1, 2, 3])
def test_null_argument_is_161001(aclnn, which):
    args = _args()
    args[which] = NULL
    _expect(aclnn, model.FUNC, args, NULLPTR, ["self", "clipValueMin", "clipValueMax", "out"][which])


def test_workspace_size_is_checked_last(aclnn):
    # CANN does not check it; a NULL is still refused, after every other rule
    _expect(aclnn, model.FUNC, _args(lo=S(3.0)), INVALID, "clipValueMin", ws=False)
    _expect(aclnn, model.FUNC, _args(), NULLPTR, "workspaceSize", ws=False)


def test_checks_in_cann_order(aclnn):
    _expect(aclnn, model.FUNC, _args(x=T(np.zeros(2, np.bool_)),
                                     lo=S(True, np.bool_)), INVALID, "self dtype DT_BOOL")
    _expect(aclnn, model.FUNC, _args(lo=S(True, np.bool_), hi=S(True, np.bool_)), INVALID, "clipValueMin dtype DT_BOOL")
    _expect(aclnn, model.FUNC, _args(hi=S(True, np.bool_)), INVALID, "clipValueMax dtype DT_BOOL")
    _expect(aclnn, model.FUNC, _args(o=T(np.zeros((4, 2), np.float16))), INVALID, "self dtype DT_FLOAT and out dtype")
    nine = np.zeros((1,) * 9, np.float32)
    _expect(aclnn, model.FUNC, _args(x=T(nine), o=T(np.zeros(3, np.float32))), INVALID, "9 dimensions")
    _expect(aclnn, model.FUNC, _args(o=T(np.zeros(8, np.float32))), INVALID, "shape")
    _expect(aclnn, model.FUNC, _args(lo=S(2.5), hi=S(2.4)), INVALID, "clipValueMin 2.5 must not be greater")
    _expect(aclnn, model.INPLACE, [T(X), S(3.0), S(2.0)], INVALID, "must not be greater")


def test_min_greater_than_max_compared_as_int64_for_an_integral_min(aclnn):
    # min 2 (INT32) vs max 2.5 -> 2: not greater; min 2.5 vs max 2 (INT32): double 2.5 > 2
    rc, *_ = aclnn.phase1(model.FUNC, _args(lo=S(2, np.int32), hi=S(2.9)))
    assert rc == 0
    _expect(aclnn, model.FUNC, _args(lo=S(2.5), hi=S(2, np.int32)), INVALID, "must not be greater")
    rc, *_ = aclnn.phase1(model.FUNC, _args(lo=S(3, np.int64), hi=S(3.7)))
    assert rc == 0                                    # int64 3 > int64(3.7) = 3 is false


def test_empty_self_succeeds_after_min_max_check(aclnn):
    e = np.zeros((2, 0), np.float32)
    rc, msg, ws, *_ = aclnn.phase1(model.FUNC, [T(e), S(0.0), S(1.0), T(e)])
    assert (rc, ws) == (0, 0), msg
    _expect(aclnn, model.FUNC, [T(e), S(2.0), S(1.0), T(e)], INVALID, "must not be greater")


@pytest.mark.parametrize("dt, lo, hi", [(np.int8, S(-2.7), S(100, np.int64)), (np.uint8, S(3, np.int16), S(250.9)),
                                        (np.int64, S(-2**40, np.int64), S(2**40, np.int64)),
                                        (np.float16, S(0.1, np.float64), S(0.2, np.float64)),
                                        (np.float64, S(0.1, np.float64), S(0.2, np.float64))])
def test_bounds_are_converted_to_self_dtype(aclnn, dt, lo, hi):
    from hg_cases import samples, NAMES
    x = samples(NAMES[np.dtype(dt)], np.random.default_rng(1), 5000)
    got = aclnn.call(model.FUNC, [T(x), lo, hi, T(np.zeros_like(x))], [3])[0]
    want = model.hardtanh(x, float(np.asarray(lo.value).astype(lo.dtype)), float(np.asarray(hi.value).astype(hi.dtype)))
    assert got.tobytes() == want.tobytes() or (np.dtype(dt).kind == "f" and np.array_equal(got, want, equal_nan=True))


def test_inplace_and_sample(aclnn):
    got = aclnn.call(model.INPLACE, [T(X), S(1.2), S(2.4)], [0])[0]
    assert got.ravel().tolist() == model.sample().ravel().tolist()
    assert ["%f" % v for v in got.ravel()[:4]] == ["1.200000", "1.200000", "2.000000", "2.400000"]


@pytest.mark.parametrize("dt", ["f32", "f16", "bf16", "f64", "i8", "u8", "i16", "i32", "i64"])
def test_against_torch_hardtanh_bit_for_bit(aclnn, dt):
    torch = pytest.importorskip("torch")
    from hg_cases import DTYPES, samples
    x = samples(dt, np.random.default_rng(3), 20000)
    lo, hi = (-1.0, 1.0) if DTYPES[dt].kind == "f" or dt == "bf16" else (3.0, 100.0)   # in every int range
    got = aclnn.call(model.FUNC, [T(x), S(lo), S(hi), T(np.zeros_like(x))], [3])[0]
    if dt == "bf16":
        tx = torch.from_numpy(x.view(np.int16).copy()).view(torch.bfloat16)
        want = torch.ops.aten.hardtanh(tx, lo, hi).view(torch.int16).numpy().view(DTYPES[dt])
    else:
        want = torch.ops.aten.hardtanh(torch.from_numpy(x.copy()), lo, hi).numpy()
    if DTYPES[dt].kind == "f" or dt == "bf16":
        assert np.array_equal(got.astype(np.float64), want.astype(np.float64), equal_nan=True)
    else:
        assert got.tobytes() == want.tobytes()
