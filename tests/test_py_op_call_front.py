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
    fn(g, x, -1.0, 1.0, stream=s, sync=True).close()           # out=None: made by the front
    r = fn(g[1:9], x[1:9], -1.0, 1.0, stream=s)                # another layout; dropped, not closed
    del r
    t = hg.empty((i + 1, 3), "float16", dev); del t            # made in C, let go of at dealloc
    hg.Tensor.__new__(hg.Tensor).close()                       # never opened
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
    """Every case of both entry points (fast, outputs made in C, fallback, failure, a bound run
    kept past its plan) and of tensors made and let go of in C, under valgrind memcheck: no
    invalid access and no definite or indirect leak in the package's C (the extension module
    included)."""
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


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_an_output_left_out_is_made_by_the_front_with_the_python_paths_layout(hg, case):
    """out=None: the front makes the output (shape and dtype as the Python path's rule gives them,
    on the first input's device) and returns it; the same as with out=, for each input dtype and
    for inputs whose shapes alternate between calls (the front's layout memo follows them)."""
    from pyacl_hardgrad import ops
    with hg.Device(0) as dev, dev.create_stream() as s:
        for dtype in ("float32", "float16", "bfloat16"):
            ts = case.tensors(hg, dev, dtype=dtype)
            want = case.expected(host=[t.numpy() for t in ts])
            small = [t[2:6] for t in ts]              # views: another shape object each
            small_want = case.expected(host=[t.numpy() for t in small])
            for sync, stream in ((True, s), (False, None), (True, None)):
                for args, expect in ((ts, want), (small, small_want), (ts, want)):
                    r = case.call(args, stream=stream, sync=sync)
                    assert type(r) is hg.Tensor and r.shape == expect.shape
                    assert r.dtype == ops._layout(case.spec, args)[2] and r._device_state is ts[0]._device_state
                    assert r.strides == hg.tensor._row_major(expect.shape) and r.offset == 0
                    np.testing.assert_array_equal(r.numpy(), expect)
                    r.close()
            for t in small + ts:
                t.close()
        s.synchronize()
        dev.default_stream.synchronize()


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_mixed_input_dtypes_get_the_promoted_output_dtype(hg, case):
    """Inputs of two dtypes: the output the front makes has result_dtype's promotion (or the
    operator's own error for a pair it refuses, as on the Python path)."""
    if len(case.tensor_params) < 2:
        pytest.skip("one tensor input")
    with hg.Device(0) as dev:
        ts = case.tensors(hg, dev)
        ts[1].close()
        ts[1] = hg.Tensor(case.host[1], dev, "float16")
        try:
            want_dt = hg.result_dtype(*(t.dtype for t in ts))
        except Exception:
            pytest.skip("no promotion for the pair")
        try:
            r = case.call(ts, sync=True)
        except hg.AclnnError as exc:             # a pair the operator refuses: the same as with out=
            o = hg.empty(ts[0].shape, want_dt, dev)
            with pytest.raises(type(exc)):
                case.call(ts, out=o, sync=True)
            o.close()
        else:
            assert r.dtype == want_dt
            o = hg.empty(r.shape, want_dt, dev)
            case.call(ts, out=o, sync=True)
            np.testing.assert_array_equal(r.numpy(), o.numpy())
            r.close()
            o.close()
        for t in ts:
            t.close()


@pytest.mark.parametrize("case", CASES[:1], ids=repr)
def test_a_failed_call_closes_the_output_the_front_made(hg, case):
    """A closed input makes the launch fail after the output was made: the error names the input,
    the made output is let go of (no tensor or allocation more than before), the stream holds
    nothing."""
    with hg.Device(0) as dev, dev.create_stream() as s:
        ts = case.tensors(hg, dev)
        case.call(ts, stream=s, sync=True).close()      # warms the layout memo and the cache
        before = hg.live_counts()
        ts[-1].close()
        for _ in range(3):
            with pytest.raises(hg.ClosedError, match=f"{case.tensor_params[-1].name} of {case.name} is closed"):
                case.call(ts, stream=s, sync=True)
        gc.collect()
        after = hg.live_counts()
        assert after["tensors"] == before["tensors"] - 1
        assert after["deviceAllocations"] <= before["deviceAllocations"]
        assert s._held() == 0
        for t in ts:
            t.close()


_OOM_SCRIPT = """
import json
import numpy as np
import pyacl_hardgrad as hg
dev = hg.Device(0)
spec = next(sp for sp in hg.ops.operators().values()
            if [p.kind for p in sp.params] == ["tensor", "tensor", "scalar", "scalar", "out"])
g = hg.Tensor(np.ones(100 * 1024, np.float32), dev)          # 400 KiB each, out of 950 KiB
x = hg.Tensor(np.ones(100 * 1024, np.float32), dev)
spec.function(g[:8], x[:8], -1.0, 1.0, sync=True).close()    # warms the memo, the cache
before = hg.memory_stats(dev)
failed = []
for _ in range(2):
    try:
        spec.function(g, x, -1.0, 1.0, sync=True)
    except hg.AclError as exc:
        failed.append([exc.code, exc.function])
stats = hg.memory_stats(dev)
print(json.dumps({"failed": failed, "alloc_failures": stats["alloc_failures"] - before["alloc_failures"],
                  "tensors": hg.live_counts()["tensors"],
                  "in_use": [before["in_use_bytes"], stats["in_use_bytes"]]}))
"""


def test_an_output_the_device_has_no_room_for_fails_once_per_call_with_the_allocators_error(hg, tmp_path):
    """An allocation failure in the front is reported as the Python path reports it (aclrtMalloc's
    code), counted once per call (not retried on another path), and leaves nothing behind."""
    import json
    import os
    import subprocess
    import sys
    if not hg.BACKEND.is_embedded:
        pytest.skip("the embedded runtime's memory limit")
    env = dict(os.environ, PYACL_HARDGRAD_DEVICE_MEMORY="950K")
    env.pop("PYACL_HARDGRAD_ALLOCATOR", None)
    proc = subprocess.run([sys.executable, "-c", _OOM_SCRIPT], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["failed"] == [[207001, "aclrtMalloc"]] * 2
    assert out["alloc_failures"] == 2
    assert out["tensors"] == 2 and out["in_use"][0] == out["in_use"][1] >= 2 * 400 * 1024


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_a_repeated_call_without_out_runs_no_python_function_besides_its_own(hg, case):
    """Once the layout memo holds the inputs' layout, a call with out=None is the generated
    function and the front alone: no Python-level allocation, layout or tensor set-up."""
    import sys
    with hg.Device(0) as dev, dev.create_stream() as s:
        ts = case.tensors(hg, dev)
        for _ in range(2):                    # the first caches the float scalars (Python path)
            case.call(ts, stream=s, sync=True).close()
        calls = []

        def profile(frame, event, arg):
            if event == "call":
                calls.append(frame.f_code.co_name)
        before = sys.getprofile()          # checking mode's site profile function, when it is on
        sys.setprofile(profile)
        try:
            r = case.call(ts, stream=s, sync=True)
        finally:
            sys.setprofile(before)
        assert [c for c in calls if c not in ("call", "_args")] == [case.name], calls
        np.testing.assert_array_equal(r.numpy(), case.expected())
        r.close()
        for t in ts:
            t.close()
