"""Handles: close(), with, idempotent close, use-after-close, finalizers, dependencies; a device's
close waits for its default stream; a call outlives the cached Scalars it uses being released."""
import contextlib
import copy
import gc

import numpy as np
import pytest

import py_op_cases
from hg_threads import run_threads

CASES = py_op_cases.cases()
SCALAR_CASES = py_op_cases.with_scalars()


def _counts(hg):
    gc.collect()
    return hg.live_counts()


def test_runtime_nesting_is_reference_counted(hg):
    base = hg.runtime_reference_count()
    with hg.Runtime() as a:
        with hg.Runtime():
            assert hg.runtime_reference_count() == base + 2
        assert hg.runtime_reference_count() == base + 1
        assert not a.closed
    assert a.closed and hg.runtime_reference_count() == base
    a.close()                       # idempotent
    assert hg.runtime_reference_count() == base


def test_device_stream_event_memory_lifecycle(hg):
    before = _counts(hg)
    with hg.Device(0) as dev:
        assert dev.soc_name
        free, total = dev.mem_info()
        assert 0 < free <= total
        with dev.create_stream() as s, dev.create_event() as ev, dev.allocate(64) as mem:
            assert _counts(hg)["streams"] == before["streams"] + 1
            assert _counts(hg)["events"] == before["events"] + 1
            assert _counts(hg)["deviceAllocations"] == before["deviceAllocations"] + 1
            assert int(mem) != 0 and mem.nbytes == 64
            mem.copy_from_host(bytes(range(64)))
            assert bytes(mem.copy_to_host()) == bytes(range(64))
            mem.memset(7, 8, offset=8)
            assert bytes(mem.copy_to_host(nbytes=16)) == bytes(range(8)) + b"\x07" * 8
            out = bytearray(64)
            mem.copy_to_host(out, stream=s)
            s.synchronize()
            assert out[8:16] == b"\x07" * 8
            ev.record(s)
            ev.synchronize()
            assert ev.query() is True
            e2 = s.record()
            e2.synchronize()
            assert ev.elapsed_time(e2) >= 0.0
            e2.close()
            s.wait(ev)
            dev.synchronize()
        assert s.closed and ev.closed and mem.closed
    assert _counts(hg) == before


def test_close_is_idempotent_and_use_after_close_raises(hg):
    with hg.Device(0) as dev:
        s = dev.create_stream()
        t = hg.Tensor(np.ones(4, np.float32), dev)
        sc = hg.Scalar(1.5)
        for obj in (s, t, sc):
            obj.close()
            obj.close()
            assert obj.closed
        with pytest.raises(hg.ClosedError):
            s.synchronize()
        with pytest.raises(hg.ClosedError):
            s.handle          # never NULL for a closed stream (NULL is ACL's default stream)
        with pytest.raises(hg.ClosedError):
            t.numpy()
        for case in CASES:
            with pytest.raises(hg.ClosedError):
                case.call([t] * len(case.tensor_params))
        with pytest.raises(hg.ClosedError):
            sc.handle
    with pytest.raises(hg.ClosedError):
        dev.create_stream()
    with pytest.raises(hg.ClosedError):
        dev.allocate(1)


def test_exception_inside_with_releases_and_propagates(hg):
    before = _counts(hg)
    with pytest.raises(KeyError):
        with hg.Device(0) as dev, dev.create_stream(), hg.Tensor(np.zeros(3, np.float32), dev), hg.Scalar(2.0):
            raise KeyError("boom")
    assert _counts(hg) == before


def test_finalizer_frees_exactly_once(hg):
    before = _counts(hg)
    dev = hg.Device(0)
    t = hg.Tensor(np.arange(6, dtype=np.float32), dev)
    s = dev.create_stream()
    sc = hg.Scalar(3, "int64")
    mid = _counts(hg)
    assert mid["tensors"] == before["tensors"] + 1 and mid["scalars"] == before["scalars"] + 1
    t.close()                        # explicit close, then the finalizer must not free again
    del t, s, sc, dev
    after = _counts(hg)
    assert after == before           # nothing freed twice (a double free would go negative / raise)
    assert all(v >= 0 for v in after.values())


def test_stream_keeps_device_alive(hg):
    dev = hg.Device(0)
    s = dev.create_stream()
    dev.close()
    assert dev.closed
    s.synchronize()                  # device still set: the stream holds it
    t = hg.Tensor(np.full(2, 1.0, np.float32), dev._state)
    assert t.numpy().tolist() == [1.0, 1.0]
    t.close()
    s.close()


def test_tensor_keeps_memory_and_views_keep_tensor(hg):
    before = _counts(hg)
    with hg.Device(0) as dev:
        base = hg.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4), dev)
        v = base.T
        row = base[1]
        base.close()
        np.testing.assert_array_equal(v.numpy(), np.arange(12, dtype=np.float32).reshape(3, 4).T)
        np.testing.assert_array_equal(row.numpy(), [4, 5, 6, 7])
        assert _counts(hg)["deviceAllocations"] == before["deviceAllocations"] + 1
        v.close()
        row.close()
    assert _counts(hg) == before


def test_from_device_pointer_does_not_own(hg):
    before = _counts(hg)
    with hg.Device(0) as dev:
        mem = dev.allocate(16)
        mem.copy_from_host(np.arange(4, dtype=np.float32))
        t = hg.Tensor.from_device_pointer(int(mem), (2, 2), "float32", owner=mem)
        mem.close()                  # t keeps the allocation alive through owner
        np.testing.assert_array_equal(t.numpy(), [[0, 1], [2, 3]])
        t.close()
        foreign = dev.allocate(8)
        t2 = hg.Tensor.from_device_pointer(int(foreign), (2,), "float32", strides=(1,))
        t2.close()
        assert not foreign.closed    # a wrapped pointer is never freed by the tensor
        foreign.close()
    assert _counts(hg) == before


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_plan_lifecycle(hg, case):
    want = case.expected()
    before = _counts(hg)
    with hg.Device(0) as dev, dev.create_stream() as s:
        ts = case.tensors(hg, dev)
        with case.plan(ts, repeatable=True) as plan:
            assert plan.workspace_size == 0
            assert _counts(hg)["executors"] == before["executors"] + 1
            for _ in range(3):
                plan.run(stream=s)
            np.testing.assert_array_equal(plan.out.numpy(), want)
            out = plan.out
        assert plan.closed
        s.synchronize()
        assert _counts(hg)["executors"] == before["executors"]
        with pytest.raises(hg.ClosedError):
            plan.run(stream=s)
        one = case.plan(ts, out=out)
        one.run(stream=s)
        with pytest.raises(hg.PlanConsumedError):
            one.run(stream=s)
        one.close()
        never = case.plan(ts, out=out)   # one-shot that never runs: destroyed on close
        never.close()
        for t in ts + [out]:
            t.close()
    assert _counts(hg) == before


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_closing_inputs_right_after_async_launch_is_safe(hg, case):
    want = case.expected()
    with hg.Device(0) as dev, dev.create_stream() as s:
        ts = case.tensors(hg, dev)
        out = case.call(ts, stream=s)
        for t in ts:
            t.close()                    # memory stays until the stream has finished with it
        np.testing.assert_array_equal(out.numpy(), want)
        out.close()


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_threads_each_with_their_own_stream(hg, case):
    errors = []
    with hg.Device(0) as dev:
        def worker(k):
            try:
                with dev.create_stream() as s:
                    for i in range(20):
                        host = [a * (k + 1) + i for a in case.host]
                        want = case.expected(host)
                        ts = case.tensors(hg, dev, host)
                        with case.call(ts, stream=s) as out:
                            np.testing.assert_array_equal(out.numpy(), want)
                        for t in ts:
                            t.close()
            except Exception as exc:   # reported to the main thread
                errors.append(exc)
        run_threads(worker, 4)
    assert not errors, errors


@contextlib.contextmanager
def _all_released_after(hg):
    """The body leaves nothing alive once the defaults are released (counts as before it)."""
    hg.release_defaults()
    before = _counts(hg)
    yield
    hg.release_defaults()
    after = _counts(hg)
    assert after == before, after


@pytest.mark.parametrize("first", ["original", "copy"])
def test_a_copied_tensor_is_a_handle_of_its_own_over_the_same_memory(hg, first):
    with _all_released_after(hg), hg.Device(0) as dev:
        for made in ("from_numpy", "empty", "operator output"):
            if made == "from_numpy":
                t = hg.Tensor(np.arange(4, dtype=np.float32), dev)
            elif made == "empty":
                t = hg.empty((4,), "float32", dev).copy_from(np.arange(4, dtype=np.float32))
            else:                        # made by the handle layer inside a call without out=
                g = hg.Tensor(np.arange(4, dtype=np.float32), dev)
                t = hg.hardtanh_backward(g, g, -10.0, 10.0, sync=True)
                g.close()
            c = copy.copy(t)
            assert c is not t and c._o != t._o and c.data_ptr == t.data_ptr
            a, b = (t, c) if first == "original" else (c, t)
            a.close()
            assert a.closed and not b.closed
            np.testing.assert_array_equal(b.numpy(), np.arange(4, dtype=np.float32))
            del a, t, c
            gc.collect()
            np.testing.assert_array_equal(b.numpy(), np.arange(4, dtype=np.float32))
            del b
        with pytest.raises(TypeError):
            copy.deepcopy(hg.empty((2,), "float32", dev))


def test_garbage_collected_handles_release_their_resources(hg):
    with _all_released_after(hg):
        dev = hg.Device(0)
        for case in CASES:
            ts = case.tensors(hg, dev)
            case.call(ts, sync=True)         # the returned out is dropped at once
            case.plan(ts, repeatable=True)   # so are the plan and its out
            del ts
        del dev


class _RacingLookup:
    """The scalar lookup hands out the cached Scalar, then release_defaults() closes it: the
    interleaving of a one-call in one thread and release_defaults() in another."""

    def __init__(self, real, release):
        self.real, self.release = real, release

    def __call__(self, key):
        s = self.real(key)
        self.release()
        return s


@pytest.mark.parametrize("case", SCALAR_CASES, ids=repr)
def test_one_call_survives_cached_scalars_released_concurrently(hg, monkeypatch, case):
    from pyacl_hardgrad import scalar
    with hg.Device(0) as dev:
        ts = case.tensors(hg, dev)
        scalars = [float(v) for v in case.scalar_values]
        want = case.expected(scalars=scalars)
        case.call(ts, scalars=scalars).numpy()                 # fills the cache
        assert all(scalar.lookup_float32(v) is not None for v in scalars if v)
        fn = case.fn
        monkeypatch.setitem(fn.__globals__, "_f32", _RacingLookup(scalar.lookup_float32, scalar.release_cached_scalars))
        o = hg.empty(want.shape, want.dtype, dev)
        o.copy_from(np.full(want.shape, 9.0, want.dtype))
        r = case.call(ts, out=o, scalars=scalars)
        np.testing.assert_array_equal(r.numpy(), want)
        for t in ts + [o]:
            t.close()


def test_closing_a_device_waits_for_its_default_stream_so_nothing_stays_alive(hg):
    with _all_released_after(hg):
        dev = hg.Device(0)
        for case in CASES:
            ts = case.tensors(hg, dev)
            o = case.call(ts)                        # queued on the default stream, not synchronized
            for t in ts + [o]:
                t.close()
        dev.close()


def test_a_tensor_owns_its_handle_layer_object_once(hg):
    """The C base (TensorBase) owns the object whose address is ``_a``: the address is set once,
    cannot be deleted or replaced (a second owner would let go of it twice), and an
    uninitialised Tensor is closed, can be closed and dropped, and is refused by operators."""
    from pyacl_hardgrad import _fastcall
    before = _counts(hg)
    with hg.Device(0) as dev:
        t = hg.empty((4,), hg.float32, dev)
        assert isinstance(t, _fastcall.TensorBase) and t._a and t._d == t.data_ptr
        assert int(hg.ffi.cast("uintptr_t", t._o)) == t._a
        for bad in (lambda o: setattr(o, "_a", o._a + 64), lambda o: delattr(o, "_a")):
            with pytest.raises(AttributeError, match="_a"):
                bad(t)
        t.close()
        assert t.closed and t._a                      # the object outlives close, until t does
        u = hg.Tensor.__new__(hg.Tensor)
        assert u.closed and u._a == 0 and u._refs == 0
        with pytest.raises(hg.ClosedError, match="Tensor is closed"):
            u._hold()
        u.close()
        x = hg.Tensor(np.ones(4, np.float32), dev)
        with pytest.raises((hg.ClosedError, hg.AclnnError, AttributeError)):
            hg.hardsigmoid(u, out=x, sync=True)
        with pytest.raises((hg.ClosedError, hg.AclnnError, AttributeError)):
            hg.hardsigmoid(x, out=u, sync=True)
        del t, u
        x.close()
        dev.default_stream.synchronize()
    assert _counts(hg) == before


def test_tensors_made_and_dropped_on_many_threads_are_each_let_go_of_once(hg):
    """Eight threads make tensors (empty, operators' outputs) and drop them without close, while
    others close theirs: every object is released once, nothing is left."""
    from pyacl_hardgrad import scalar
    scalar.release_cached_scalars()
    before = _counts(hg)
    with hg.Device(0) as dev:
        g = hg.Tensor(np.linspace(-3, 3, 64, dtype=np.float32), dev)

        def work(k):
            dev.make_current()
            with dev.create_stream() as s:
                for i in range(300):
                    t = hg.empty((64,), hg.float32, dev)
                    r = hg.hardtanh_backward(g, g, -1.0, 1.0, stream=s, sync=bool(i & 1))
                    if (i + k) & 1:
                        t.close()
                        r.close()
                    del t, r
                s.synchronize()
        run_threads(work, 8)
        g.close()
        dev.default_stream.synchronize()
    scalar.release_cached_scalars()             # the two float scalars the calls cached
    assert _counts(hg) == before


def test_initialising_a_tensor_twice_is_refused_and_leaks_nothing(hg):
    before = _counts(hg)
    with hg.Device(0) as dev:
        t = hg.Tensor(np.arange(4, dtype=np.float32), dev)
        with pytest.raises(TypeError, match="initialised once"):
            t.__init__(np.zeros(4, np.float32), dev)
        np.testing.assert_array_equal(t.numpy(), np.arange(4, dtype=np.float32))
        t.close()
        del t
    assert _counts(hg) == before
