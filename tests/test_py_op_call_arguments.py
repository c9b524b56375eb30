"""The generic operator call names the argument in every refusal of what a caller passed: host
data numpy widened to a dtype the operator refuses (float64 arrays, Python ints -> int64) gets
the conversion named and float32 suggested; a non-numeric host value, a non-Stream ``stream``,
a non-Tensor ``out``, a non-DeviceMemory ``workspace`` are TypeErrors; a closed Stream is a
ClosedError naming the ``stream`` argument (one-call and plan forms); a plan refuses non-Tensors,
bad scalars and a workspace of the wrong type or size by name.  Operators are the
registered ones (py_op_cases), never picked by name."""
from __future__ import annotations

import numpy as np
import pytest

import py_op_cases

CASES = py_op_cases.cases()
SCALAR_CASES = py_op_cases.with_scalars()


def _host_with(case, k, value):
    host = list(case.host)
    host[k] = value
    return host


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_float64_array_input_error_names_the_argument_and_suggests_float32(hg, case):
    for k, p in enumerate(case.tensor_params):
        arg = np.asarray(case.host[k], np.float64)
        try:
            got = case.call(_host_with(case, k, arg))
        except hg.AclnnParamError as e:
            msg = str(e)
            assert "DT_DOUBLE" in msg, msg                      # the operator's own rule, kept
            assert f"{p.name} is a float64 array" in msg, msg
            assert "np.asarray(x, np.float32)" in msg, msg
        else:                                                  # an operator that takes double
            assert np.asarray(got).dtype == np.float64


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_int_list_input_error_says_numpy_made_it_int64(hg, case):
    for k, p in enumerate(case.tensor_params):
        arg = [int(v) for v in case.host[k]]
        try:
            case.call(_host_with(case, k, arg))
        except hg.AclnnParamError as e:
            msg = str(e)
            assert f"{p.name} was converted by numpy to int64 (from list)" in msg, msg
            assert "np.asarray(x, np.float32)" in msg, msg


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_float_list_input_runs_as_float32(hg, case):
    host = [[float(v) for v in a] for a in case.host]
    got = case.call(host)
    assert isinstance(got, np.ndarray) and got.dtype == np.float32
    np.testing.assert_array_equal(got, case.expected())


@pytest.mark.parametrize("bad", ["abc", object(), {"a": 1}, b"xy"], ids=["str", "object", "dict", "bytes"])
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_non_numeric_input_is_a_type_error_naming_the_argument(hg, case, bad):
    for k, p in enumerate(case.tensor_params):
        with pytest.raises(TypeError, match=rf"^{p.name} must be a Tensor or an array of numbers"):
            case.call(_host_with(case, k, bad))
    with hg.Device(0) as dev:                  # mixed with Tensors: the same rule
        ts = case.tensors(hg, dev)
        for k, p in enumerate(case.tensor_params):
            args = list(ts)
            args[k] = bad
            with pytest.raises(TypeError, match=rf"^{p.name} must be a Tensor"):
                case.call(args)
        for t in ts:
            t.close()


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_stream_out_and_workspace_of_wrong_type_are_type_errors_naming_them(hg, case):
    with pytest.raises(TypeError, match=r"^stream must be a Stream, not int"):
        case.call(case.host, stream=5)
    with pytest.raises(TypeError, match=rf"^{case.out_param.name} must be a Tensor or None, not int"):
        case.call(case.host, out=5)
    with hg.Device(0) as dev:
        ts = case.tensors(hg, dev)
        with pytest.raises(TypeError, match=r"^stream must be a Stream, not int"):
            case.call(ts, stream=5)
        with pytest.raises(TypeError, match=rf"^{case.out_param.name} must be a Tensor or None, not int"):
            case.call(ts, out=5)
        with case.plan(ts, repeatable=True) as plan:
            with pytest.raises(TypeError, match=r"^workspace must be a DeviceMemory"):
                plan.run(workspace=5)
            with pytest.raises(TypeError, match=r"^stream must be a Stream, not int"):
                plan.run(stream=5)
            plan.run(sync=True)                                # still usable after the refusals
            np.testing.assert_array_equal(plan.out.numpy(), case.expected())
            plan.out.close()
        for t in ts:
            t.close()


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_closed_stream_is_a_closed_error_naming_the_stream_argument(hg, case):
    with hg.Device(0) as dev:
        ts = case.tensors(hg, dev)
        s = dev.create_stream()
        s.close()
        with pytest.raises(hg.ClosedError, match=rf"^Stream stream of {case.name} is closed"):
            case.call(ts, stream=s)
        with pytest.raises(hg.ClosedError, match=rf"^Stream stream of {case.name} is closed"):
            case.call(case.host, stream=s)
        with case.plan(ts) as plan:
            with pytest.raises(hg.ClosedError, match=r"^Stream stream of \w+Plan\.run\(\) is closed"):
                plan.run(stream=s)
            plan.out.close()
        for t in ts:
            t.close()


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_plans_reject_non_tensors_naming_the_argument(hg, case):
    with hg.Device(0) as dev, hg.zeros((8,), "float32", dev) as t:
        arr = np.ones(8, np.float32)
        for i, p in enumerate(case.tensor_params):
            args = [t] * len(case.tensor_params)
            args[i] = arr
            with pytest.raises(TypeError, match=f"{p.name} must be a Tensor"):
                case.plan(args)
        with pytest.raises(TypeError, match=case.out_param.name):
            case.plan([t] * len(case.tensor_params), out=arr)


@pytest.mark.parametrize("case", SCALAR_CASES, ids=repr)
def test_bad_scalars_and_workspace_are_named_in_the_error(hg, case):
    with hg.Device(0) as dev, hg.Tensor(np.ones((4, 2), np.float32), dev) as t:
        ts = [t] * len(case.tensor_params)
        first = case.scalar_params[0].name
        bad = ["abc"] + list(case.scalar_values[1:])
        with pytest.raises(TypeError, match=f"{first} must be a real number or a Scalar, not str 'abc'"):
            case.call(ts, scalars=bad)
        with pytest.raises(TypeError, match=f"{first} must be a real number or a Scalar, not NoneType"):
            case.call(ts, scalars=[None] + list(case.scalar_values[1:]))
        # a transposed view needs a workspace, so run() looks at the one it is given
        with case.plan([t.T] * len(ts)) as plan:
            assert plan.workspace_size > 0
            with pytest.raises(TypeError, match="workspace must be a DeviceMemory"):
                plan.run(workspace=bytearray(plan.workspace_size))
            with dev.allocate(1) as small, pytest.raises(ValueError, match="workspace of 1 bytes"):
                plan.run(workspace=small)
            plan.out.close()
