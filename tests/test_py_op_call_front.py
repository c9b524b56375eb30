"""The one-call's common case done in C (OpCall.front): every form of scalar, stream and out gives
the Python path's result; a cached Scalar released in the middle of the call is recovered from;
closed arguments are named; the array-argument call range-checks value arguments before calling."""
from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import py_op_cases

SCALAR_CASES = py_op_cases.with_scalars()
CASES = py_op_cases.cases()


@pytest.mark.parametrize("case", SCALAR_CASES, ids=repr)
def test_every_scalar_and_stream_form_gives_the_same_result(hg, case):
    """Floats (cached after the first call), ints, numpy floats and Scalars; a stream or the
    default stream; with and without sync: the front takes some, the Python path the rest."""
    with hg.Device(0) as dev, dev.create_stream() as s:
        ts = case.tensors(hg, dev)
        floats = [float(v) for v in case.scalar_values]
        want = case.expected(scalars=floats)
        o = hg.empty(want.shape, want.dtype, dev)
        forms = [floats, floats, [np.float32(v) for v in floats],
                 [hg.Scalar(v) for v in floats]]
        if all(float(v).is_integer() for v in floats):
            forms.append([int(v) for v in floats])
        for scalars in forms:
            for stream, sync in ((s, True), (s, False), (None, True)):
                o.copy_from(np.full(want.shape, 7, want.dtype))
                r = case.call(ts, out=o, stream=stream, sync=sync, scalars=scalars)
                assert r is o
                if not sync:
                    s.synchronize()
                np.testing.assert_array_equal(o.numpy(), want)
        for v in forms[3]:
            v.close()
        dev.default_stream.synchronize()
        for t in ts + [o]:
            t.close()


@pytest.mark.parametrize("case", SCALAR_CASES, ids=repr)
def test_a_cached_scalar_released_during_the_call_is_replaced_and_the_call_succeeds(hg, case, monkeypatch):
    """The front holds the cached Scalar it looked up; release_cached_scalars() closes it before
    the launch (here: while the front asks for the default stream), the launch reports it closed,
    and the Python path makes a new one: right result, nothing leaked, nothing freed early."""
    from pyacl_hardgrad import scalar
    with hg.Device(0) as dev:
        ts = case.tensors(hg, dev)
        floats = [float(v) for v in case.scalar_values]
        want = case.expected(scalars=floats)
        case.call(ts, scalars=floats).close()                 # fills the cache
        cached = [weakref.ref(scalar.lookup_float32(v)) for v in floats if v]
        assert cached and all(c() is not None for c in cached)
        state = ts[0]._device_state
        real = type(state).get_default_stream
        calls = []

        def releasing(self):
            calls.append(1)
            scalar.release_cached_scalars()
            return real(self)
        monkeypatch.setattr(type(state), "get_default_stream", releasing)
        o = hg.empty(want.shape, want.dtype, dev)
        r = case.call(ts, out=o, sync=True, scalars=floats)
        monkeypatch.undo()
        assert calls and r is o
        np.testing.assert_array_equal(o.numpy(), want)
        gc.collect()
        assert all(c() is None for c in cached)                # the old ones were let go of
        dev.default_stream.synchronize()
        for t in ts + [o]:
            t.close()


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_a_closed_tensor_is_named_and_nothing_is_held(hg, case):
    with hg.Device(0) as dev, dev.create_stream() as s:
        ts = case.tensors(hg, dev)
        want = case.expected()
        o = hg.empty(want.shape, want.dtype, dev)
        for k, p in enumerate(case.tensor_params):
            ts2 = case.tensors(hg, dev)
            ts2[k].close()
            with pytest.raises(hg.ClosedError, match=f"^Tensor {p.name} of {case.name} is closed$"):
                case.call(ts2, out=o, stream=s, sync=True)
            assert s._held() == 0
            for t in ts2:
                t.close()
        o.close()
        with pytest.raises(hg.ClosedError, match=f"^Tensor {case.out_param.name} of {case.name} is closed$"):
            case.call(ts, out=o, stream=s, sync=True)
        assert s._held() == 0
        for t in ts:
            t.close()


def test_the_array_argument_call_range_checks_values_before_calling(hg):
    """A value argument outside its C type fails with OverflowError naming it, before the call
    (the operator below takes two handles; a call with these codes would not be made)."""
    from pyacl_hardgrad import _fastcall, ffi, lib
    spec = next(s for s in hg.ops.operators().values() if len(s.params) == 2 and s.source == "binding")
    address = int(ffi.cast("uintptr_t", ffi.addressof(lib, f"hgb_callv_{spec.name}")))
    for codes, value, rule in (("bP", 128, r"\[-128, 127\]"), ("BP", -1, r"\[0, 255\]"),
                               ("iP", 1 << 31, r"\[-2147483648, 2147483647\]"),
                               ("QP", -1, r"\[0, 18446744073709551615\]"), ("qP", 1 << 63, "out of range")):
        op = _fastcall.OpCall(address, codes, ("x", "y"), "probe")
        with pytest.raises(OverflowError, match=f"probe: x={value} .*{rule}" if rule != "out of range" else rule):
            op(None, 0, value, None)
    with pytest.raises(ValueError, match="unknown argument code 'z'"):
        _fastcall.OpCall(address, "zP", ("x", "y"), "probe")
    with pytest.raises(ValueError, match="2 codes and 1 names"):
        _fastcall.OpCall(address, "PP", ("x",), "probe")
    op = _fastcall.OpCall(address, "PP", ("x", "y"), "probe")
    with pytest.raises(TypeError, match=r"takes \(stream, flags, 2 arguments\)"):
        op(None, 0, None)
    with pytest.raises(ValueError, match="role 'v' of parameter 0 does not fit its code 'P'"):
        op.set_front("vo", 0, (1,), hg.Tensor, hg.Scalar, {}, print, None)
    with pytest.raises(TypeError, match="before set_front"):
        op.front(None, None, None, False)
    with pytest.raises(TypeError, match="OpCall is initialised once"):
        op.__init__(address, "PP", ("x", "y"), "probe")
    with pytest.raises(TypeError, match="OpCall was not initialised"):
        _fastcall.OpCall.__new__(_fastcall.OpCall)(None, 0)
    with pytest.raises(TypeError, match="PlanRunner was not initialised"):
        _fastcall.PlanRunner.__new__(_fastcall.PlanRunner).run()


_MEMCHECK_SCRIPT = """
import gc, numpy as np, pyacl_hardgrad as hg
from pyacl_hardgrad import scalar
dev = hg.Device(0); s = dev.create_stream()
G = np.linspace(-3, 3, 64).astype(np.float32)
g, x, o = hg.Tensor(G, dev), hg.Tensor(G[::-1].copy(), dev), hg.empty((64,), "float32", dev)
spec = next(sp for sp in hg.ops.operators().values()
            if [p.kind for p in sp.params] == ["tensor", "tensor", "scalar", "scalar", "out"])
fn, Plan = spec.function, spec.plan
for i in range(20):
    fn(g, x, -1.0, 1.0, out=o, stream=s, sync=True)            # the front
    fn(g, x, -1.0, 1.0, out=o, sync=bool(i & 1))               # the front, default stream
    fn(g, x, hg.Scalar(-1.0), 1.0, out=o, stream=s, sync=True) # a Scalar
    fn(g, x, -1.0, 1.0, stream=s, sync=True).close()           # out=None: the Python path
    if i % 5 == 0:
        scalar.release_cached_scalars()                        # the next front misses the cache
p = Plan(g, x, -1.0, 1.0, o, repeatable=True)
for i in range(20):
    p.run(None, s, sync=True)
    p.run()
run = p.run
del p; gc.collect()
run(None, s, sync=True)                                        # a bound run outliving its plan
del run
bad = hg.Tensor(G, dev); bad.close()
for k in range(3):
    try:
        fn(g, bad, -1.0, 1.0, out=o, stream=s, sync=True)      # a failure reported from the front
    except hg.ClosedError:
        pass
    q = Plan(g, x, -1.0, 1.0, o); q.run(None, s)
    try:
        q.run(None, s)                                         # a failure reported from the runner
    except hg.PlanConsumedError:
        q.close()
dev.default_stream.synchronize(); s.synchronize()
for t in (g, x, o): t.close()
s.close(); dev.close()
scalar.release_cached_scalars()
print("done")
"""


def test_the_front_and_the_plan_runner_are_clean_under_memcheck(tmp_path):
    """Every case of both entry points (fast, fallback, failure, a bound run kept past its plan)
    under valgrind memcheck: no invalid access and no definite or indirect leak in the package's C
    (the extension module included)."""
    import hg_memcheck
    found, out = hg_memcheck.run(_MEMCHECK_SCRIPT, tmp_path)
    assert out.strip() == "done"
    assert not found, "\n\n".join(found)


def test_value_parameters_get_the_code_of_their_c_type(hg):
    """The argument code of a value parameter follows its C type's size and signedness (64-bit
    unsigned types included), so OpCall range-checks as the C parameter takes it."""
    from pyacl_hardgrad import ops

    class P:
        def __init__(self, ctype, kind="int"):
            self.ctype, self.kind = ctype, kind
    want = {"int8_t": "b", "uint8_t": "B", "int16_t": "h", "uint16_t": "H", "int32_t": "i",
            "uint32_t": "I", "int64_t": "q", "uint64_t": "Q", "size_t": "Q", "unsigned": "I"}
    assert {t: ops._arg_code(P(t)) for t in want} == want
    assert ops._arg_code(P("double", "float")) == ops._arg_code(P("float", "float")) == "d"
    assert ops._arg_code(P("bool", "bool")) == "?"
    assert ops._arg_code(P("const aclTensor *", "tensor")) == "P"
