"""The parameter checks of CANN's operator unit tests, driven from Python: exact status codes
(through ``AclnnParamError.code``), a message that names the offending argument, and the
accepted cases (empty tensors, plain formats, views, repeatable plans, the SoC's dtypes).

NULL pointers cannot be passed through the Pythonic API, so those cases use the raw layer
(``pyacl_hardgrad.raw``: ``lib.aclnn...GetWorkspaceSize`` with ``ffi.NULL``) on tensors made
by the Pythonic API.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import hg_model as m

HT = "aclnnHardtanhBackwardGetWorkspaceSize"
HS = "aclnnHardsigmoidBackwardGetWorkspaceSize"
NULLPTR, INVALID = 161001, 161002

G = np.arange(8, dtype=np.float32).reshape(4, 2)
X = np.array([1, 1, 1, 2, 1, 2, 3, 3], np.float32).reshape(4, 2)


@pytest.fixture(scope="module")
def dev(hg):
    with hg.Device(0) as d:
        yield d


def _bits(a):
    return np.asarray(a).view(np.uint32 if a.dtype.itemsize == 4 else np.uint16)


def _raises_param(hg, code, *names, function=None):
    """Context manager: an AclnnParamError with ``code`` whose message names each of ``names``."""
    class _Ctx:
        def __enter__(self):
            self._cm = pytest.raises(hg.AclnnParamError)
            self.info = self._cm.__enter__()
            return self.info

        def __exit__(self, *exc):
            handled = self._cm.__exit__(*exc)
            e = self.info.value
            assert e.code == code, str(e)
            for n in names:
                assert n in e.message, f"{n!r} not named in {e.message!r}"
            if function is not None:
                assert e.function == function
            return handled
    return _Ctx()


# ---------------------------------------------------------------------------- NULL pointers (raw layer)

HT_ARGS = ["gradOutput", "self", "min", "max", "out", "workspaceSize", "executor"]
HS_ARGS = ["gradOutput", "self", "out", "workspaceSize", "executor"]


@pytest.mark.parametrize("null", HT_ARGS)
def test_hardtanh_null_argument(hg, dev, null):
    from pyacl_hardgrad.raw import ffi, lib
    with hg.Tensor(G, dev) as g, hg.Tensor(X, dev) as x, hg.empty((4, 2), "float32", dev) as o, \
            hg.Scalar(1.2) as lo, hg.Scalar(2.4) as hi:
        args = {"gradOutput": g.handle, "self": x.handle, "min": lo.handle, "max": hi.handle, "out": o.handle,
                "workspaceSize": ffi.new("uint64_t *"), "executor": ffi.new("aclOpExecutor **")}
        args[null] = ffi.NULL
        status = lib.aclnnHardtanhBackwardGetWorkspaceSize(*(args[a] for a in HT_ARGS))
        assert status == NULLPTR
        with _raises_param(hg, NULLPTR, null, function=HT):
            hg.check(status, HT)


@pytest.mark.parametrize("null", HS_ARGS)
def test_hardsigmoid_null_argument(hg, dev, null):
    from pyacl_hardgrad.raw import ffi, lib
    with hg.Tensor(G, dev) as g, hg.Tensor(X, dev) as x, hg.empty((4, 2), "float32", dev) as o:
        args = {"gradOutput": g.handle, "self": x.handle, "out": o.handle,
                "workspaceSize": ffi.new("uint64_t *"), "executor": ffi.new("aclOpExecutor **")}
        args[null] = ffi.NULL
        status = lib.aclnnHardsigmoidBackwardGetWorkspaceSize(*(args[a] for a in HS_ARGS))
        assert status == NULLPTR
        with _raises_param(hg, NULLPTR, null, function=HS):
            hg.check(status, HS)


def test_null_checks_come_before_dtype_checks(hg, dev):
    """A NULL self next to an int32 gradOutput is still 161001 (CANN checks nulls first)."""
    from pyacl_hardgrad.raw import ffi, lib
    with hg.zeros((2,), "int32", dev) as g, hg.empty((2,), "float32", dev) as o:
        status = lib.aclnnHardsigmoidBackwardGetWorkspaceSize(g.handle, ffi.NULL, o.handle, ffi.new("uint64_t *"),
                                                              ffi.new("aclOpExecutor **"))
        assert status == NULLPTR


# ---------------------------------------------------------------------------- dtypes

BAD_DTYPES = {"int8": "DT_INT8", "int16": "DT_INT16", "int32": "DT_INT32", "int64": "DT_INT64",
              "uint8": "DT_UINT8", "bool": "DT_BOOL", "float64": "DT_DOUBLE", "complex64": "DT_COMPLEX64",
              "complex128": "DT_COMPLEX128"}


@pytest.mark.parametrize("where", ["gradOutput", "self", "out"])
@pytest.mark.parametrize("dtype", sorted(BAD_DTYPES))
def test_hardtanh_unsupported_dtype(hg, dev, dtype, where):
    dts = {a: (dtype if a == where else "float32") for a in ("gradOutput", "self", "out")}
    with hg.zeros((2, 3), dts["gradOutput"], dev) as g, hg.zeros((2, 3), dts["self"], dev) as x, \
            hg.zeros((2, 3), dts["out"], dev) as o:
        with _raises_param(hg, INVALID, where, BAD_DTYPES[dtype], function=HT):
            hg.hardtanh_backward(g, x, -1.0, 1.0, out=o)


@pytest.mark.parametrize("where", ["gradOutput", "self", "out"])
@pytest.mark.parametrize("dtype", sorted(BAD_DTYPES))
def test_hardsigmoid_unsupported_dtype(hg, dev, dtype, where):
    dts = {a: (dtype if a == where else "float32") for a in ("gradOutput", "self", "out")}
    with hg.zeros((2, 3), dts["gradOutput"], dev) as g, hg.zeros((2, 3), dts["self"], dev) as x, \
            hg.zeros((2, 3), dts["out"], dev) as o:
        with _raises_param(hg, INVALID, where, BAD_DTYPES[dtype], function=HS):
            hg.hardsigmoid_backward(g, x, out=o)


@pytest.mark.parametrize("gd, xd", [("float32", "float16"), ("float16", "float32"), ("float16", "bfloat16"),
                                    ("bfloat16", "float32")])
def test_hardtanh_mismatched_input_dtypes(hg, dev, gd, xd):
    """No promotion in hardtanh: gradOutput and self must share one dtype."""
    with hg.zeros((2, 3), gd, dev) as g, hg.zeros((2, 3), xd, dev) as x, hg.zeros((2, 3), gd, dev) as o:
        with _raises_param(hg, INVALID, "gradOutput", "self", function=HT):
            hg.hardtanh_backward(g, x, out=o)


@pytest.mark.parametrize("od", ["float16", "bfloat16"])
def test_hardtanh_out_dtype_must_match(hg, dev, od):
    with hg.zeros((2, 3), "float32", dev) as g, hg.zeros((2, 3), "float32", dev) as x, \
            hg.zeros((2, 3), od, dev) as o:
        with _raises_param(hg, INVALID, "out", function=HT):
            hg.hardtanh_backward(g, x, out=o)


def test_hardsigmoid_accepts_every_float_combination(hg, dev):
    names = ("float32", "float16", "bfloat16")
    for gd in names:
        for xd in names:
            for od in names:
                with hg.zeros((3,), gd, dev) as g, hg.zeros((3,), xd, dev) as x, hg.zeros((3,), od, dev) as o, \
                        hg.HardsigmoidBackwardPlan(g, x, o) as plan:
                    assert plan.workspace_size == 0


# ---------------------------------------------------------------------------- dims and shapes

@pytest.mark.parametrize("where", ["gradOutput", "self", "out"])
@pytest.mark.parametrize("op", ["hardtanh", "hardsigmoid"])
def test_nine_dims_rejected(hg, dev, op, where):
    """Nine dims on any one tensor -> 161002 naming it (the rank check precedes the shape check)."""
    nine, eight = (1,) * 8 + (2,), (1,) * 7 + (2,)
    shapes = {a: (nine if a == where else eight) for a in ("gradOutput", "self", "out")}
    with hg.zeros(shapes["gradOutput"], "float32", dev) as g, hg.zeros(shapes["self"], "float32", dev) as x, \
            hg.zeros(shapes["out"], "float32", dev) as o:
        with _raises_param(hg, INVALID, where, "9 dimensions"):
            if op == "hardtanh":
                hg.hardtanh_backward(g, x, out=o)
            else:
                hg.hardsigmoid_backward(g, x, out=o)


@pytest.mark.parametrize("op", ["hardtanh", "hardsigmoid"])
def test_eight_dims_accepted(hg, dev, op):
    shape = (1, 2, 1, 2, 1, 2, 1, 3)
    g = np.arange(24, dtype=np.float32).reshape(shape) - 12
    x = np.linspace(-4, 4, 24, dtype=np.float32).reshape(shape)
    fn = (lambda a, b: hg.hardtanh_backward(a, b)) if op == "hardtanh" else hg.hardsigmoid_backward
    got = fn(g, x)
    want = m.hardtanh_backward(g, x, -1, 1) if op == "hardtanh" else m.hardsigmoid_backward(g, x)
    assert got.shape == shape
    np.testing.assert_array_equal(_bits(got), _bits(want))


SHAPE_CASES = [
    ("self", (2, 3), (3, 2), (2, 3)),          # same element count, other shape
    ("self", (6,), (6, 1), (6,)),              # other rank
    ("self", (4, 2), (4, 3), (4, 2)),
    ("out", (4, 2), (4, 2), (2, 4)),
    ("out", (4, 2), (4, 2), (8,)),
    ("self", (0, 3), (0, 4), (0, 3)),          # empty, but the shapes still differ
]


@pytest.mark.parametrize("op", ["hardtanh", "hardsigmoid"])
@pytest.mark.parametrize("other, gs, xs, os_", SHAPE_CASES)
def test_shape_mismatch(hg, dev, op, other, gs, xs, os_):
    with hg.zeros(gs, "float32", dev) as g, hg.zeros(xs, "float32", dev) as x, hg.zeros(os_, "float32", dev) as o:
        with _raises_param(hg, INVALID, "gradOutput", other, function=HT if op == "hardtanh" else HS):
            if op == "hardtanh":
                hg.HardtanhBackwardPlan(g, x, -1.0, 1.0, o)
            else:
                hg.HardsigmoidBackwardPlan(g, x, o)


# ---------------------------------------------------------------------------- empty tensors

@pytest.mark.parametrize("shape", [(0,), (3, 0, 2), (0, 0), (2, 1, 0, 1, 1, 1, 1, 4)])
@pytest.mark.parametrize("op", ["hardtanh", "hardsigmoid"])
def test_empty_tensors_succeed_with_no_workspace(hg, dev, op, shape):
    """Empty tensors: success, workspace 0, nothing written (out is a view into a sentinel buffer)."""
    with hg.Tensor(np.full(8, 0xDEADBEEF, np.uint32).view(np.float32), dev) as buf, \
            hg.empty(shape, "float32", dev) as g, hg.empty(shape, "float32", dev) as x:
        out = buf.view(shape, tuple(3 for _ in shape), 2)      # odd strides: still nothing to stage
        try:
            plan = (hg.HardtanhBackwardPlan(g, x, -1.0, 1.0, out) if op == "hardtanh"
                    else hg.HardsigmoidBackwardPlan(g, x, out))
            with plan:
                assert plan.workspace_size == 0
                assert plan.run() is out
            assert out.numpy().shape == shape
            assert (buf.numpy().view(np.uint32) == 0xDEADBEEF).all()
        finally:
            out.close()


# ---------------------------------------------------------------------------- formats (raw aclCreateTensor)

FORMATS = [("ACL_FORMAT_NCHW", (2, 3, 2, 2)), ("ACL_FORMAT_NHWC", (2, 2, 2, 3)), ("ACL_FORMAT_HWCN", (2, 2, 3, 2)),
           ("ACL_FORMAT_NCDHW", (1, 2, 3, 2, 2)), ("ACL_FORMAT_NDHWC", (1, 3, 2, 2, 2)), ("ACL_FORMAT_ND", (24,)),
           ("ACL_FORMAT_ND", (2, 3, 4))]


def _raw_tensor(lib, ffi, t, shape, fmt):
    """A second aclTensor over ``t``'s memory, row-major, with format ``fmt``."""
    strides, acc = [], 1
    for n in reversed(shape):
        strides.insert(0, acc)
        acc *= n
    h = lib.aclCreateTensor(list(shape), len(shape), lib.ACL_FLOAT, strides, 0, fmt, list(shape), len(shape),
                            ffi.cast("void *", t.data_ptr))
    assert h != ffi.NULL
    return h


@pytest.mark.parametrize("op", ["hardtanh", "hardsigmoid"])
@pytest.mark.parametrize("fmt, shape", FORMATS)
def test_plain_formats_accepted(hg, dev, op, fmt, shape):
    from pyacl_hardgrad.raw import ffi, lib
    rng = np.random.default_rng(7)
    g = (rng.standard_normal(shape) * 3).astype(np.float32)
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    f = getattr(lib, fmt)
    handles = []
    with hg.Tensor(g, dev) as tg, hg.Tensor(x, dev) as tx, hg.zeros(shape, "float32", dev) as to, \
            hg.Scalar(-1.0) as lo, hg.Scalar(1.0) as hi:
        try:
            hg_, hx, ho = (_raw_tensor(lib, ffi, t, shape, f) for t in (tg, tx, to))
            handles = [hg_, hx, ho]
            ws, exe = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
            if op == "hardtanh":
                hg.check(lib.aclnnHardtanhBackwardGetWorkspaceSize(hg_, hx, lo.handle, hi.handle, ho, ws, exe), HT)
                assert ws[0] == 0
                hg.check(lib.aclnnHardtanhBackward(ffi.NULL, 0, exe[0], dev.default_stream.handle),
                         "aclnnHardtanhBackward")
                want = m.hardtanh_backward(g, x, -1.0, 1.0)
            else:
                hg.check(lib.aclnnHardsigmoidBackwardGetWorkspaceSize(hg_, hx, ho, ws, exe), HS)
                assert ws[0] == 0
                hg.check(lib.aclnnHardsigmoidBackward(ffi.NULL, 0, exe[0], dev.default_stream.handle),
                         "aclnnHardsigmoidBackward")
                want = m.hardsigmoid_backward(g, x)
            hg.check(lib.aclrtSynchronizeStream(dev.default_stream.handle), "aclrtSynchronizeStream")
            np.testing.assert_array_equal(_bits(to.numpy()), _bits(want))
        finally:
            for h in handles:
                hg.check(lib.aclDestroyTensor(h), "aclDestroyTensor")


def test_private_format_rejected(hg, dev):
    """The counterpart of the plain-format case: a 5HD (NC1HWC0) gradOutput is refused, by name."""
    from pyacl_hardgrad.raw import ffi, lib
    shape = (1, 1, 2, 2, 16)
    with hg.zeros(shape, "float32", dev) as t:
        h = _raw_tensor(lib, ffi, t, shape, lib.ACL_FORMAT_NC1HWC0)
        try:
            status = lib.aclnnHardsigmoidBackwardGetWorkspaceSize(h, t.handle, t.handle, ffi.new("uint64_t *"),
                                                                  ffi.new("aclOpExecutor **"))
            assert status == INVALID
            with _raises_param(hg, INVALID, "gradOutput", "NC1HWC0", function=HS):
                hg.check(status, HS)
        finally:
            hg.check(lib.aclDestroyTensor(h), "aclDestroyTensor")


# ---------------------------------------------------------------------------- views

@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("axes", [(1, 0), (2, 0, 1), (1, 2, 0), (0, 2, 1)])
def test_transposed_views_give_the_right_values(hg, dev, axes, dtype):
    npdt = hg.dtypes.to_numpy_dtype(dtype)
    shape = (3, 5, 4)[:len(axes)]
    rng = np.random.default_rng(len(axes) * 10 + axes[0])
    g = m.cast((rng.standard_normal(shape) * 4).astype(np.float32), npdt)
    x = m.cast((rng.standard_normal(shape) * 4).astype(np.float32), npdt)
    gT, xT = g.transpose(axes), x.transpose(axes)
    with hg.Tensor(g, dev) as tg, hg.Tensor(x, dev) as tx, \
            hg.zeros(tuple(reversed(gT.shape)), dtype, dev) as obuf:
        vg, vx, vo = tg.transpose(axes), tx.transpose(axes), obuf.T   # out: a transposed view too
        try:
            assert not vg.is_contiguous() and not vo.is_contiguous()
            hg.hardtanh_backward(vg, vx, -1.5, 2.0, out=vo)
            np.testing.assert_array_equal(_bits(vo.numpy()), _bits(m.hardtanh_backward(gT, xT, -1.5, 2.0)))
            hg.hardsigmoid_backward(vg, vx, out=vo)
            np.testing.assert_array_equal(_bits(vo.numpy()), _bits(m.hardsigmoid_backward(gT, xT)))
            # the buffer behind the view holds the transpose of the result
            np.testing.assert_array_equal(_bits(obuf.numpy()), _bits(m.hardsigmoid_backward(gT, xT).T))
        finally:
            for v in (vo, vx, vg):
                v.close()


# ---------------------------------------------------------------------------- repeatable plans

def test_repeatable_hardtanh_plan_runs_three_times(hg, dev):
    """Three runs of one executor (transposed inputs: a staged workspace is reused), new data each time."""
    rng = np.random.default_rng(3)
    with hg.Tensor(G.T.copy(), dev) as tg, hg.Tensor(X.T.copy(), dev) as tx, dev.create_stream() as s:
        vg, vx = tg.T, tx.T
        try:
            with hg.HardtanhBackwardPlan(vg, vx, 1.2, 2.4, repeatable=True) as plan, plan.out as out:
                assert plan.workspace_size > 0
                x = X
                for run in range(3):
                    if run:
                        x = (rng.standard_normal(X.shape) * 2 + 1.8).astype(np.float32)
                        vx.copy_from(x)
                    plan.run(stream=s)
                    np.testing.assert_array_equal(_bits(out.numpy()), _bits(m.hardtanh_backward(G, x, 1.2, 2.4)))
        finally:
            vg.close()
            vx.close()


def test_repeatable_hardsigmoid_plan_runs_three_times(hg, dev):
    rng = np.random.default_rng(4)
    with hg.Tensor(G, dev) as tg, hg.Tensor(X, dev, "float16") as tx, \
            hg.HardsigmoidBackwardPlan(tg, tx, repeatable=True) as plan, plan.out as out, \
            dev.allocate(max(plan.workspace_size, 1)) as ws:
        assert out.dtype == np.float32
        for run in range(3):
            g = (rng.standard_normal(G.shape) * 6).astype(np.float32)
            tg.copy_from(g)
            plan.run(ws)
            np.testing.assert_array_equal(_bits(out.numpy()), _bits(m.hardsigmoid_backward(g, X.astype(np.float16))))


def test_one_shot_plan_refuses_a_second_run(hg, dev):
    with hg.Tensor(G, dev) as tg, hg.Tensor(X, dev) as tx, hg.HardtanhBackwardPlan(tg, tx) as plan, plan.out as out:
        plan.run()
        with pytest.raises(hg.PlanConsumedError):
            plan.run()
        np.testing.assert_array_equal(out.numpy().ravel(), [0, 0, 0, 0, 0, 0, 0, 0])   # bounds -1, 1


# ---------------------------------------------------------------------------- bf16 and the SoC

_SOC_SCRIPT = r"""
import json
import pyacl_hardgrad as hg
res = {}
def attempt(key, fn):
    try:
        with fn():
            pass
        res[key] = [0, ""]
    except hg.AclnnParamError as e:
        res[key] = [e.code, e.message]
with hg.Device(0) as dev:
    res["soc"] = dev.soc_name
    def make(dt):
        return hg.zeros((2, 3), dt, dev)
    with make("bfloat16") as b, make("bfloat16") as b2, make("float32") as f, make("float32") as f2, \
            make("float16") as h, make("float16") as h2:
        attempt("ht_bf16", lambda: hg.HardtanhBackwardPlan(b, b2, -1.0, 1.0, make("bfloat16")))
        attempt("hs_bf16_grad", lambda: hg.HardsigmoidBackwardPlan(b, f, make("float32")))
        attempt("hs_bf16_self", lambda: hg.HardsigmoidBackwardPlan(f, b, make("float32")))
        attempt("hs_bf16_out", lambda: hg.HardsigmoidBackwardPlan(f, f2, make("bfloat16")))
        attempt("ht_f16", lambda: hg.HardtanhBackwardPlan(h, h2, -1.0, 1.0, make("float16")))
        attempt("hs_f16_f32", lambda: hg.HardsigmoidBackwardPlan(h, f, make("float16")))
hg.release_defaults()
print(json.dumps(res))
"""


def _run_soc(soc):
    env = dict(os.environ, PYACL_HARDGRAD_SOC=soc)
    proc = subprocess.run([sys.executable, "-c", _SOC_SCRIPT], capture_output=True, text=True, env=env, cwd="/",
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_bf16_rejected_on_ascend910(hg):
    """The SoC is read at aclInit, hence a fresh process."""
    res = _run_soc("Ascend910")
    assert res["soc"] == "Ascend910"
    for key, arg in [("ht_bf16", "gradOutput"), ("hs_bf16_grad", "gradOutput"), ("hs_bf16_self", "self"),
                     ("hs_bf16_out", "out")]:
        code, msg = res[key]
        assert code == INVALID, (key, res[key])
        assert arg in msg and "DT_BF16" in msg, (key, msg)
    assert res["ht_f16"] == [0, ""] and res["hs_f16_f32"] == [0, ""]


def test_bf16_accepted_on_ascend910b(hg):
    """The control case: the same script on an A2 SoC accepts every bf16 call."""
    res = _run_soc("Ascend910B4")
    assert res["soc"] == "Ascend910B4"
    assert all(res[k] == [0, ""] for k in res if k != "soc"), res
