"""The operators through the generic Python path: every call form gives the same values, dtypes,
views (an out whose elements share addresses is written in element order), plans; parametrized
over the operators the package discovered."""

import numpy as np
import pytest

import hg_model
import py_op_cases
from py_op_cases import G

CASES = py_op_cases.cases()
SCALAR_CASES = py_op_cases.with_scalars()


def test_the_discovered_operators_include_every_compiled_header(hg):
    specs = hg.ops.operators()
    assert specs and all(s.source == "binding" for s in specs.values()) or hg.BACKEND.name == "cann"
    for spec in specs.values():
        assert getattr(hg, spec.function_name) is spec.function
        assert getattr(hg, spec.plan_name) is spec.plan
    assert CASES


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_numpy_in_numpy_out_matches_the_tensor_call_and_the_model(hg, case, npu_device):
    r = case.expected()
    assert isinstance(r, np.ndarray) and r.shape == G.shape
    ts = case.tensors(hg, npu_device)
    with case.call(ts) as out:
        np.testing.assert_array_equal(out.numpy(), r)
    for t in ts:
        t.close()
    model = getattr(hg_model, case.name, None)
    if model is not None:                      # an independent model of the math, where one exists
        np.testing.assert_array_equal(r, model(*case.host, *case.scalar_values))


@pytest.mark.parametrize("case", SCALAR_CASES, ids=repr)
def test_scalar_objects_numbers_and_defaults_agree(hg, case, npu_device):
    want = case.expected()
    ts = case.tensors(hg, npu_device)
    scalars = [hg.Scalar(v) for v in case.scalar_values]
    with case.call(ts, scalars=scalars) as out:
        np.testing.assert_array_equal(out.numpy(), want)
    with case.call(ts, scalars=[np.float32(v) for v in case.scalar_values]) as out:   # general path
        np.testing.assert_array_equal(out.numpy(), want)
    if all(p.has_default for p in case.scalar_params):
        kw = {p.name: t for p, t in zip(case.tensor_params, ts)}
        with case.fn(**kw) as a, case.call(ts, scalars=[p.default for p in case.scalar_params]) as b:
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    for s in scalars + ts:
        s.close()


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_same_dtype_inputs_give_that_dtype_and_the_host_result(hg, case, dtype, npu_device):
    npdt = hg.dtypes.to_numpy_dtype(dtype)
    host = [a.astype(npdt) for a in case.host]
    want = case.expected(host)
    ts = case.tensors(hg, npu_device, host)
    with case.call(ts) as out:
        assert out.dtype == npdt == want.dtype
        np.testing.assert_array_equal(out.numpy(), want)
    for t in ts:
        t.close()


@pytest.mark.parametrize("a, b, want", [
    ("float32", "float32", "float32"), ("float16", "float32", "float32"), ("bfloat16", "float32", "float32"),
    ("float16", "bfloat16", "float32"), ("float16", "float16", "float16"), ("bfloat16", "bfloat16", "bfloat16"),
    ("int8", "uint8", "int16"), ("int32", "float16", "float16"), ("bool", "int8", "int8"),
    ("float32", "complex64", "complex64"), ("float64", "complex64", "complex128"), ("uint8", "int64", "int64"),
])
def test_result_dtype_is_canns_promotion(hg, a, b, want):
    assert hg.result_dtype(a, b) == hg.dtypes.to_numpy_dtype(want)
    assert hg.result_dtype(b, a) == hg.dtypes.to_numpy_dtype(want)


@pytest.mark.parametrize("gd, xd", [("float16", "float32"), ("bfloat16", "float32"), ("float16", "bfloat16")])
@pytest.mark.parametrize("case", [c for c in CASES if len(c.tensor_params) >= 2], ids=repr)
def test_mixed_dtypes_allocate_the_promoted_out_or_are_refused_cleanly(hg, case, gd, xd):
    with hg.Device(0) as dev:
        before = hg.live_counts()["tensors"]
        n = len(case.tensor_params)
        dts = ([gd, xd] + [xd] * max(0, n - 2))[:n]
        ts = [hg.Tensor(a, dev, d) for a, d in zip(case.host, dts)]
        try:
            out = case.call(ts)
        except hg.AclnnParamError as exc:          # the operator takes one dtype only
            assert exc.code == 161002
        else:
            assert out.dtype == hg.result_dtype(*dts)
            want = case.expected([a.astype(d) for a, d in zip(case.host, [hg.dtypes.to_numpy_dtype(d) for d in dts])])
            np.testing.assert_array_equal(out.numpy(), want)
            out.close()
        for t in ts:
            t.close()
        assert hg.live_counts()["tensors"] == before


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_views_are_honoured_in_and_out(hg, case, npu_device):
    host2 = [a.reshape(4, 2) for a in case.host]
    want = case.expected([np.ascontiguousarray(a.T) for a in host2])
    ts = case.tensors(hg, npu_device, host2)
    views = [t.T for t in ts]
    with case.call(views) as out:
        np.testing.assert_array_equal(out.numpy(), want)
    with hg.zeros((4, 2), want.dtype, npu_device) as buf:          # output into a transposed view
        outv = buf.T
        case.call(views, out=outv)
        np.testing.assert_array_equal(buf.numpy(), want.T)
        outv.close()
    rows = [t[1:, 1] for t in ts]
    with case.call(rows) as out:
        np.testing.assert_array_equal(out.numpy(), case.expected([a[1:, 1].copy() for a in host2]))
    for t in views + rows + ts:
        t.close()


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_nine_dims_reach_the_operator(hg, case):
    shape = (1,) * 9
    with hg.Device(0) as dev:
        ts = [hg.zeros(shape, "float32", dev) for _ in case.tensor_params]
        try:                   # the Python layer passes them on; the operator applies its own rule
            case.call(ts, sync=True).close()        # (some operators have no dim limit in CANN)
        except hg.AclnnParamError as e:
            assert e.code == 161002 and e.function == f"{case.spec.name}GetWorkspaceSize"
            assert "dim" in e.message.lower()
        for t in ts:
            t.close()


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_zero_d_and_empty(hg, case, npu_device):
    host0 = [np.float32(a[3]) for a in case.host]
    ts = [hg.Tensor(a, npu_device) for a in host0]
    with case.call(ts) as out:
        assert out.shape == () and out.numpy() == case.expected([np.asarray(a) for a in host0])
    for t in ts:
        t.close()
    with hg.empty((0, 3), "float32", npu_device) as a:
        with case.plan([a] * len(case.tensor_params)) as plan:
            assert plan.workspace_size == 0
            with plan.run() as out:
                assert out.numpy().shape == (0, 3)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_explicit_workspace_and_shape_mismatch(hg, case):
    host2 = [a.reshape(4, 2) for a in case.host]
    with hg.Device(0) as dev, hg.zeros((2, 4), "float32", dev) as o:
        ts = case.tensors(hg, dev, host2)
        with pytest.raises(hg.AclnnParamError):
            case.plan(ts, out=o)
        with case.plan(ts) as plan, dev.allocate(64) as ws, plan.out as out:
            plan.run(ws, dev.default_stream)
            np.testing.assert_array_equal(out.numpy(), case.expected(host2))
        for t in ts:
            t.close()


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_repeated_small_ops_on_one_stream_stay_correct(hg, case, npu_device, npu_stream):
    """Many back-to-back launches on one stream: each result is right, nothing piles up."""
    ts = case.tensors(hg, npu_device)
    with case.call(ts) as first:
        out = hg.empty(first.shape, first.dtype, npu_device)
    for _ in range(300):
        case.call(ts, out=out, stream=npu_stream)
        npu_stream.synchronize()
    np.testing.assert_array_equal(out.numpy(), case.expected())
    for t in ts + [out]:
        t.close()


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_a_python_list_input_is_taken_as_float32(hg, case):
    lists = [a.tolist() for a in case.host]
    np.testing.assert_array_equal(case.expected(lists), case.expected())


@pytest.mark.parametrize("shape, strides", [((70000,), (0,)), ((350, 200), (0, 1)), ((300, 300), (1, 1))])
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_out_whose_elements_share_addresses_gets_the_reference_order(hg, case, shape, strides):
    """An out view that is not one-to-one (broadcast or interleaved strides) is written in
    element order on one thread, so the result is defined: the last element wins."""
    n = int(np.prod(shape))
    rng = np.random.default_rng(3)
    host = [rng.uniform(-4, 4, n).astype(np.float32).reshape(shape) for _ in case.tensor_params]
    r = case.expected(host)
    span = sum((d - 1) * s for d, s in zip(shape, strides)) + 1
    with hg.Device(0) as dev, dev.create_stream() as s, hg.zeros((span,), r.dtype, dev) as base:
        ts = case.tensors(hg, dev, host)
        want = np.zeros(span, r.dtype)
        for idx in np.ndindex(*shape):                  # the reference order: row-major
            want[sum(i * st for i, st in zip(idx, strides))] = r[idx]
        with base.view(shape, strides, 0) as out:
            for _ in range(10):                         # a race would show in some of the runs
                base.copy_from(np.zeros(span, r.dtype))
                case.call(ts, out=out, stream=s)
                s.synchronize()
                np.testing.assert_array_equal(base.numpy(), want)
        for t in ts:
            t.close()
