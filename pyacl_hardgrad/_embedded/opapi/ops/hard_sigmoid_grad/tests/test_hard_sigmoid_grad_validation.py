"""aclnnHardsigmoidBackward's parameter checks of CANN's operator unit tests, driven from Python:
exact status codes (through ``AclnnParamError.code``), a message that names the offending
argument, and the accepted cases (every float combination, empty tensors, plain formats, views,
repeatable plans, the SoC's dtypes).  The shared cases and helpers: tests/hg_pycheck.py."""
from __future__ import annotations

import numpy as np
import pytest

import hard_sigmoid_grad_model as model
from hg_model import cast
from hg_pycheck import (BAD_DTYPES, EMPTY_SHAPES, FORMATS, INVALID, NULLPTR, SHAPE_CASES, TRANSPOSE_AXES,
                        TRANSPOSE_DTYPES, G, X, bits, raises_param, raw_tensor, run_soc)

FN = "aclnnHardsigmoidBackwardGetWorkspaceSize"
ARGS = ["gradOutput", "self", "out", "workspaceSize", "executor"]


@pytest.mark.parametrize("null", ARGS)
def test_null_argument(hg, dev, null):
    from pyacl_hardgrad.raw import ffi, lib
    with hg.Tensor(G, dev) as g, hg.Tensor(X, dev) as x, hg.empty((4, 2), "float32", dev) as o:
        args = {"gradOutput": g.handle, "self": x.handle, "out": o.handle,
                "workspaceSize": ffi.new("uint64_t *"), "executor": ffi.new("aclOpExecutor **")}
        args[null] = ffi.NULL
        status = lib.aclnnHardsigmoidBackwardGetWorkspaceSize(*(args[a] for a in ARGS))
        assert status == NULLPTR
        with raises_param(hg, NULLPTR, null, function=FN):
            hg.check(status, FN)


def test_null_checks_come_before_dtype_checks(hg, dev):
    """A NULL self next to an int32 gradOutput is still 161001 (CANN checks nulls first)."""
    from pyacl_hardgrad.raw import ffi, lib
    with hg.zeros((2,), "int32", dev) as g, hg.empty((2,), "float32", dev) as o:
        status = lib.aclnnHardsigmoidBackwardGetWorkspaceSize(g.handle, ffi.NULL, o.handle, ffi.new("uint64_t *"),
                                                              ffi.new("aclOpExecutor **"))
        assert status == NULLPTR


@pytest.mark.parametrize("where", ["gradOutput", "self", "out"])
@pytest.mark.parametrize("dtype", sorted(BAD_DTYPES))
def test_unsupported_dtype(hg, dev, dtype, where):
    dts = {a: (dtype if a == where else "float32") for a in ("gradOutput", "self", "out")}
    with hg.zeros((2, 3), dts["gradOutput"], dev) as g, hg.zeros((2, 3), dts["self"], dev) as x, \
            hg.zeros((2, 3), dts["out"], dev) as o:
        with raises_param(hg, INVALID, where, BAD_DTYPES[dtype], function=FN):
            hg.hardsigmoid_backward(g, x, out=o)


def test_accepts_every_float_combination(hg, dev):
    names = ("float32", "float16", "bfloat16")
    for gd in names:
        for xd in names:
            for od in names:
                with hg.zeros((3,), gd, dev) as g, hg.zeros((3,), xd, dev) as x, hg.zeros((3,), od, dev) as o, \
                        hg.HardsigmoidBackwardPlan(g, x, o) as plan:
                    assert plan.workspace_size == 0


@pytest.mark.parametrize("where", ["gradOutput", "self", "out"])
def test_nine_dims_rejected(hg, dev, where):
    """Nine dims on any one tensor -> 161002 naming it (the rank check precedes the shape check)."""
    nine, eight = (1,) * 8 + (2,), (1,) * 7 + (2,)
    shapes = {a: (nine if a == where else eight) for a in ("gradOutput", "self", "out")}
    with hg.zeros(shapes["gradOutput"], "float32", dev) as g, hg.zeros(shapes["self"], "float32", dev) as x, \
            hg.zeros(shapes["out"], "float32", dev) as o:
        with raises_param(hg, INVALID, where, "9 dimensions"):
            hg.hardsigmoid_backward(g, x, out=o)


def test_eight_dims_accepted(hg, dev):
    shape = (1, 2, 1, 2, 1, 2, 1, 3)
    g = np.arange(24, dtype=np.float32).reshape(shape) - 12
    x = np.linspace(-4, 4, 24, dtype=np.float32).reshape(shape)
    got = hg.hardsigmoid_backward(g, x)
    assert got.shape == shape
    np.testing.assert_array_equal(bits(got), bits(model.hardsigmoid_backward(g, x)))


@pytest.mark.parametrize("other, gs, xs, os_", SHAPE_CASES)
def test_shape_mismatch(hg, dev, other, gs, xs, os_):
    with hg.zeros(gs, "float32", dev) as g, hg.zeros(xs, "float32", dev) as x, hg.zeros(os_, "float32", dev) as o:
        with raises_param(hg, INVALID, "gradOutput", other, function=FN):
            hg.HardsigmoidBackwardPlan(g, x, o)


@pytest.mark.parametrize("shape", EMPTY_SHAPES)
def test_empty_tensors_succeed_with_no_workspace(hg, dev, shape):
    """Empty tensors: success, workspace 0, nothing written (out is a view into a sentinel buffer)."""
    with hg.Tensor(np.full(8, 0xDEADBEEF, np.uint32).view(np.float32), dev) as buf, \
            hg.empty(shape, "float32", dev) as g, hg.empty(shape, "float32", dev) as x:
        out = buf.view(shape, tuple(3 for _ in shape), 2)      # odd strides: still nothing to stage
        try:
            with hg.HardsigmoidBackwardPlan(g, x, out) as plan:
                assert plan.workspace_size == 0
                assert plan.run() is out
            assert out.numpy().shape == shape
            assert (buf.numpy().view(np.uint32) == 0xDEADBEEF).all()
        finally:
            out.close()


@pytest.mark.parametrize("fmt, shape", FORMATS)
def test_plain_formats_accepted(hg, dev, fmt, shape):
    from pyacl_hardgrad.raw import ffi, lib
    rng = np.random.default_rng(7)
    g = (rng.standard_normal(shape) * 3).astype(np.float32)
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    f = getattr(lib, fmt)
    handles = []
    with hg.Tensor(g, dev) as tg, hg.Tensor(x, dev) as tx, hg.zeros(shape, "float32", dev) as to:
        try:
            hg_, hx, ho = (raw_tensor(lib, ffi, t, shape, f) for t in (tg, tx, to))
            handles = [hg_, hx, ho]
            ws, exe = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
            hg.check(lib.aclnnHardsigmoidBackwardGetWorkspaceSize(hg_, hx, ho, ws, exe), FN)
            assert ws[0] == 0
            hg.check(lib.aclnnHardsigmoidBackward(ffi.NULL, 0, exe[0], dev.default_stream.handle),
                     "aclnnHardsigmoidBackward")
            hg.check(lib.aclrtSynchronizeStream(dev.default_stream.handle), "aclrtSynchronizeStream")
            np.testing.assert_array_equal(bits(to.numpy()), bits(model.hardsigmoid_backward(g, x)))
        finally:
            for h in handles:
                hg.check(lib.aclDestroyTensor(h), "aclDestroyTensor")


def test_private_format_rejected(hg, dev):
    """The counterpart of the plain-format case: a 5HD (NC1HWC0) gradOutput is refused, by name."""
    from pyacl_hardgrad.raw import ffi, lib
    shape = (1, 1, 2, 2, 16)
    with hg.zeros(shape, "float32", dev) as t:
        h = raw_tensor(lib, ffi, t, shape, lib.ACL_FORMAT_NC1HWC0)
        try:
            status = lib.aclnnHardsigmoidBackwardGetWorkspaceSize(h, t.handle, t.handle, ffi.new("uint64_t *"),
                                                                  ffi.new("aclOpExecutor **"))
            assert status == INVALID
            with raises_param(hg, INVALID, "gradOutput", "NC1HWC0", function=FN):
                hg.check(status, FN)
        finally:
            hg.check(lib.aclDestroyTensor(h), "aclDestroyTensor")


@pytest.mark.parametrize("dtype", TRANSPOSE_DTYPES)
@pytest.mark.parametrize("axes", TRANSPOSE_AXES)
def test_transposed_views_give_the_right_values(hg, dev, axes, dtype):
    npdt = hg.dtypes.to_numpy_dtype(dtype)
    shape = (3, 5, 4)[:len(axes)]
    rng = np.random.default_rng(len(axes) * 10 + axes[0])
    g = cast((rng.standard_normal(shape) * 4).astype(np.float32), npdt)
    x = cast((rng.standard_normal(shape) * 4).astype(np.float32), npdt)
    gT, xT = g.transpose(axes), x.transpose(axes)
    with hg.Tensor(g, dev) as tg, hg.Tensor(x, dev) as tx, \
            hg.zeros(tuple(reversed(gT.shape)), dtype, dev) as obuf:
        vg, vx, vo = tg.transpose(axes), tx.transpose(axes), obuf.T   # out: a transposed view too
        try:
            assert not vg.is_contiguous() and not vo.is_contiguous()
            hg.hardsigmoid_backward(vg, vx, out=vo)
            want = model.hardsigmoid_backward(gT, xT)
            np.testing.assert_array_equal(bits(vo.numpy()), bits(want))
            # the buffer behind the view holds the transpose of the result
            np.testing.assert_array_equal(bits(obuf.numpy()), bits(want.T))
        finally:
            for v in (vo, vx, vg):
                v.close()


def test_repeatable_plan_runs_three_times(hg, dev):
    rng = np.random.default_rng(4)
    with hg.Tensor(G, dev) as tg, hg.Tensor(X, dev, "float16") as tx, \
            hg.HardsigmoidBackwardPlan(tg, tx, repeatable=True) as plan, plan.out as out, \
            dev.allocate(max(plan.workspace_size, 1)) as ws:
        assert out.dtype == np.float32
        for run in range(3):
            g = (rng.standard_normal(G.shape) * 6).astype(np.float32)
            tg.copy_from(g)
            plan.run(ws)
            np.testing.assert_array_equal(bits(out.numpy()),
                                          bits(model.hardsigmoid_backward(g, X.astype(np.float16))))


SOC_BODY = r"""
with make("bfloat16") as b, make("float32") as f, make("float32") as f2, make("float16") as h:
    attempt("bf16_grad", lambda: hg.HardsigmoidBackwardPlan(b, f, make("float32")))
    attempt("bf16_self", lambda: hg.HardsigmoidBackwardPlan(f, b, make("float32")))
    attempt("bf16_out", lambda: hg.HardsigmoidBackwardPlan(f, f2, make("bfloat16")))
    attempt("f16_f32", lambda: hg.HardsigmoidBackwardPlan(h, f, make("float16")))
"""


def test_bf16_rejected_on_ascend910(hg):
    """The SoC is read at aclInit, hence a fresh process."""
    res = run_soc(SOC_BODY, "Ascend910")
    assert res["soc"] == "Ascend910"
    for key, arg in [("bf16_grad", "gradOutput"), ("bf16_self", "self"), ("bf16_out", "out")]:
        code, msg = res[key]
        assert code == INVALID, (key, res[key])
        assert arg in msg and "DT_BF16" in msg, (key, msg)
    assert res["f16_f32"] == [0, ""]


def test_bf16_accepted_on_ascend910b(hg):
    """The control case: the same script on an A2 SoC accepts every bf16 call."""
    res = run_soc(SOC_BODY, "Ascend910B4")
    assert res["soc"] == "Ascend910B4"
    assert all(res[k] == [0, ""] for k in res if k != "soc"), res
