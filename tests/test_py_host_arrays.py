"""Calls with host arrays only (numpy in, numpy out): one crossing into C stages the arrays as
device tensors, runs the operator, waits and copies the outputs into new arrays.  Every layout a
caller can pass gives what the Tensor call of the same operator gives (another path), the first
call of a layout (which takes the general host path) and the later ones (the generated
function's own branch) alike; in-place operators write into (and return) a writable host array;
nothing stays alive.  Operators are the registered ones, picked by signature, never by name."""
from __future__ import annotations

import gc

import ml_dtypes
import numpy as np
import pytest

import py_op_cases

CASES = py_op_cases.cases()


def _counts(hg):
    gc.collect()
    counts = hg.live_counts()
    counts.pop("scalars")       # the one-call cache's bound Scalars
    return counts


@pytest.fixture(autouse=True)
def _defaults_first(hg):
    CASES[0].expected()            # the default device and its stream, where host calls run


def _inplace_specs():
    hg = py_op_cases._installed()
    out = []
    for spec in hg.ops.operators().values():
        roles = [p.role for p in spec.params]
        if roles.count("inout") == 1 and "out" not in roles and \
                all(p.kind in ("tensor", "scalar", "float", "int", "bool") for p in spec.params):
            out.append(spec)
    return out


INPLACE = _inplace_specs()


def _read_only(a):
    a = a.copy()
    a.flags.writeable = False
    return a


# name -> host array from the case's contiguous 1-D data (8 elements)
LAYOUTS = {
    "contiguous": lambda a: a,
    "2d": lambda a: a.reshape(2, 4),
    "transposed": lambda a: a.reshape(4, 2).T,
    "strided": lambda a: np.repeat(a, 2)[::2],
    "fortran": lambda a: np.asfortranarray(a.reshape(2, 4)),
    "read_only": _read_only,
    "zero_d": lambda a: a[3].reshape(()),
    "empty": lambda a: np.zeros((0, 3), a.dtype),
}


def _tensor_result(hg, case, host):
    with hg.Device(0) as dev:
        ts = [hg.Tensor(np.ascontiguousarray(a) if a.ndim else a, dev) for a in host]
        with case.call(ts, sync=True) as out:
            want = out.numpy()
        for t in ts:
            t.close()
    return want


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_host_call_gives_the_tensor_calls_result_for_every_layout(hg, case, layout, dtype):
    npdt = hg.dtypes.to_numpy_dtype(dtype)
    host = [LAYOUTS[layout](a.astype(npdt)) for a in case.host]
    copies = [a.copy() for a in host]
    want = _tensor_result(hg, case, host)
    before = _counts(hg)
    for _ in range(3):                     # the first call of a layout and the later ones
        got = case.call(host)
        assert type(got) is np.ndarray and got.dtype == want.dtype and got.shape == want.shape
        assert got.flags.c_contiguous and got.flags.writeable
        assert got.tobytes() == want.tobytes()
        for a, c in zip(host, copies):     # the inputs are left as they were
            assert a.tobytes() == c.tobytes()
    assert _counts(hg) == before


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_host_call_matches_the_model_and_lists(hg, case):
    want = _tensor_result(hg, case, list(case.host))
    for _ in range(2):
        np.testing.assert_array_equal(case.call(case.host), want)
        np.testing.assert_array_equal(case.call([a.tolist() for a in case.host]), want)


@pytest.mark.parametrize("case", [c for c in CASES if len(c.tensor_params) >= 2], ids=repr)
def test_host_inputs_of_mixed_dtypes_give_the_promoted_dtype_or_the_operators_refusal(hg, case):
    host = [case.host[0].astype(np.float16)] + [a.astype(ml_dtypes.bfloat16) for a in case.host[1:]]
    for _ in range(2):
        try:
            got = case.call(host)
        except hg.AclnnParamError as e:
            assert e.code == 161002
        else:
            assert got.dtype == hg.result_dtype(np.float16, ml_dtypes.bfloat16)
            np.testing.assert_array_equal(got, _tensor_result(hg, case, host))


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_host_call_on_a_given_stream_runs_there_and_holds_nothing_after(hg, case):
    want = case.expected()
    before = _counts(hg)
    with hg.Device(0) as dev, dev.create_stream() as s:
        for _ in range(3):
            np.testing.assert_array_equal(case.call(case.host, stream=s), want)
            assert s._held() == 0
    assert _counts(hg) == before


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_float64_refusal_names_the_argument_on_every_call(hg, case):
    for k, p in enumerate(case.tensor_params):
        host = list(case.host)
        host[k] = host[k].astype(np.float64)
        for _ in range(3):             # the memoised layout takes the generated branch
            try:
                case.call(host)
            except hg.AclnnParamError as e:
                assert f"{p.name} is a float64 array" in str(e) and "np.asarray(x, np.float32)" in str(e)
            else:
                break                  # an operator that takes double


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_host_call_survives_the_cached_scalars_being_released(hg, case):
    from pyacl_hardgrad.scalar import release_cached_scalars
    want = case.expected()
    for _ in range(3):
        release_cached_scalars()
        np.testing.assert_array_equal(case.call(case.host), want)


@pytest.mark.skipif(not INPLACE, reason="no in-place operator registered")
@pytest.mark.parametrize("spec", INPLACE, ids=lambda s: s.function_name)
def test_inplace_host_array_is_written_and_returned(hg, spec):
    x = py_op_cases.X.copy()
    want = spec.function(x.tolist())           # a list: a new array, nothing written
    assert type(want) is np.ndarray and want.dtype == np.float32
    with hg.Device(0) as dev, hg.Tensor(py_op_cases.X, dev) as t:
        spec.function(t, sync=True)
        np.testing.assert_array_equal(t.numpy(), want)
    before = _counts(hg)
    for _ in range(3):                          # writable, contiguous: written in place
        a = py_op_cases.X.copy()
        assert spec.function(a) is a
        np.testing.assert_array_equal(a, want)
    for _ in range(2):                          # writable, not contiguous: written back
        base = np.repeat(py_op_cases.X, 2)
        a = base[::2]
        assert spec.function(a) is a
        np.testing.assert_array_equal(a, want)
        np.testing.assert_array_equal(base[1::2], py_op_cases.X)
    for _ in range(2):                          # read-only: left alone, the result returned
        ro = _read_only(py_op_cases.X)
        got = spec.function(ro)
        assert got is not ro and type(got) is np.ndarray
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(ro, py_op_cases.X)
    assert _counts(hg) == before
