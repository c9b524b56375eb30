"""``sync=True`` one-call operators and plan runs, and the C reference counts behind them.

A synchronous one-call holds its five (three) resources, runs phase 1, phase 2 and the wait in
one crossing of the binding (_build/fused_calls.c), and lets go of them before returning.
"""
import gc
import threading
import time

import numpy as np
import pytest

import hg_model

G = np.arange(8, dtype=np.float32)
X = np.array([1, 1, 1, 2, 1, 2, 3, 3], np.float32)
HT_EXPECTED = np.array([0, 0, 0, 3, 0, 5, 0, 0], np.float32)     # hardtanh_backward(G, X, 1.2, 2.4)
HS_EXPECTED = hg_model.hardsigmoid_backward(G, X)


def _counts(hg):
    """Live C objects, leaving out the bound Scalars the one-call cache keeps."""
    gc.collect()
    counts = hg.live_counts()
    counts.pop("scalars")
    return counts


def _refs(obj):
    return obj._res._refs


def test_sync_one_call_has_finished_and_holds_nothing_when_it_returns(hg):
    before = _counts(hg)
    with hg.Device(0) as dev, dev.create_stream() as s:
        g, x, o = hg.Tensor(G, dev), hg.Tensor(X, dev), hg.empty((8,), "float32", dev)
        assert hg.hardtanh_backward(g, x, 1.2, 2.4, out=o, stream=s, sync=True) is o
        assert s._pending == [] and [_refs(t) for t in (g, x, o)] == [1, 1, 1]
        # The device buffer is already final: read it without the stream wait numpy() adds.
        host = np.empty(8, np.float32)
        hg.raw.check(hg.raw.lib.aclrtMemcpy(hg.raw.ffi.from_buffer(host), 32, hg.raw.ffi.cast("void *", o.data_ptr),
                                            32, hg.raw.lib.ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy")
        np.testing.assert_array_equal(host, HT_EXPECTED)
        assert hg.hardsigmoid_backward(g, x, out=o, stream=s, sync=True) is o
        assert s._pending == [] and [_refs(t) for t in (g, x, o)] == [1, 1, 1]
        np.testing.assert_array_equal(o.numpy(), HS_EXPECTED)
        for t in (g, x, o):
            t.close()
    assert _counts(hg) == before


def test_sync_one_call_also_releases_what_earlier_async_launches_held(hg):
    with hg.Device(0) as dev, dev.create_stream() as s:
        g, x, o = hg.Tensor(G, dev), hg.Tensor(X, dev), hg.empty((8,), "float32", dev)
        o2 = hg.empty((8,), "float32", dev)
        hg.hardtanh_backward(g, x, 1.2, 2.4, out=o2, stream=s)          # async: held by s
        assert len(s._pending) == 1 and _refs(o2) == 2
        hg.hardsigmoid_backward(g, x, out=o, stream=s, sync=True)
        assert s._pending == [] and _refs(o2) == 1 and _refs(g) == 1
        np.testing.assert_array_equal(o2.numpy(), HT_EXPECTED)
        np.testing.assert_array_equal(o.numpy(), HS_EXPECTED)
        for t in (g, x, o, o2):
            t.close()


def test_sync_one_call_with_a_view_takes_the_workspace_path_and_waits(hg):
    with hg.Device(0) as dev, dev.create_stream() as s:
        big = np.repeat(X, 2)
        g, xb, o = hg.Tensor(G, dev), hg.Tensor(big, dev), hg.empty((8,), "float32", dev)
        x = xb[::2]                                       # non-contiguous: phase 1 wants a workspace
        hg.hardtanh_backward(g, x, 1.2, 2.4, out=o, stream=s, sync=True)
        assert s._pending == [] and [_refs(t) for t in (g, o)] == [1, 1]
        np.testing.assert_array_equal(o.numpy(), HT_EXPECTED)
        for t in (g, x, xb, o):
            t.close()


def test_sync_one_call_error_names_phase_one_and_leaves_counts_unchanged(hg):
    with hg.Device(0) as dev, dev.create_stream() as s:
        g, x = hg.Tensor(G, dev), hg.Tensor(X, dev)
        o = hg.empty((4,), "float32", dev)                # wrong shape
        with pytest.raises(hg.AclError) as info:
            hg.hardtanh_backward(g, x, 1.2, 2.4, out=o, stream=s, sync=True)
        assert "aclnnHardtanhBackwardGetWorkspaceSize" in str(info.value)
        assert info.value.code == 161002
        assert s._pending == [] and [_refs(t) for t in (g, x, o)] == [1, 1, 1]
        for t in (g, x, o):
            t.close()


def test_sync_one_call_on_a_closed_tensor_names_it(hg):
    with hg.Device(0) as dev, dev.create_stream() as s:
        g, x, o = hg.Tensor(G, dev), hg.Tensor(X, dev), hg.empty((8,), "float32", dev)
        x.close()
        with pytest.raises(hg.ClosedError, match="Tensor"):
            hg.hardsigmoid_backward(g, x, out=o, stream=s, sync=True)
        assert [_refs(t) for t in (g, o)] == [1, 1]
        g.close()
        o.close()


def test_sync_plan_run_waits_and_keeps_the_plan_reusable(hg):
    with hg.Device(0) as dev, dev.create_stream() as s:
        g, x, o = hg.Tensor(G, dev), hg.Tensor(X, dev), hg.empty((8,), "float32", dev)
        with hg.HardtanhBackwardPlan(g, x, 1.2, 2.4, o, repeatable=True) as plan:
            for _ in range(3):
                assert plan.run(None, s, sync=True) is o
                np.testing.assert_array_equal(o.numpy(), HT_EXPECTED)
        with hg.HardsigmoidBackwardPlan(g, x, o) as plan:       # one-shot, default stream
            plan.run(sync=True)
            assert dev.default_stream._pending == []
            np.testing.assert_array_equal(o.numpy(), HS_EXPECTED)
        for t in (g, x, o):
            t.close()


def test_closing_inputs_from_another_thread_during_a_sync_call_defers_their_release(hg):
    """The call holds the tensors in C, so a close racing with it cannot free them under the
    kernel: the memory is released when the call lets go (no leak either)."""
    before = _counts(hg)
    n = 1 << 22
    rng = np.random.default_rng(5)
    gv, xv = rng.uniform(-4, 4, n).astype(np.float32), rng.uniform(-4, 4, n).astype(np.float32)
    want = hg_model.hardtanh_backward(gv, xv, -1.0, 1.0)
    deferred = 0                  # iterations where the close landed while the call held g
    with hg.Device(0) as dev, dev.create_stream() as s:
        for _ in range(8):
            g, x, o = hg.Tensor(gv, dev), hg.Tensor(xv, dev), hg.empty((n,), "float32", dev)
            keep = o[:]                                        # a view keeps o's memory readable
            started = threading.Event()
            held_after_close = []

            def closer():
                started.wait()
                time.sleep(0.0005)                     # most often lands inside the ~ms call
                g.close()
                x.close()
                held_after_close.append(g._res._refs)  # > 0: someone (the call) still holds it

            t = threading.Thread(target=closer)
            t.start()
            started.set()
            try:
                hg.hardtanh_backward(g, x, -1.0, 1.0, out=o, stream=s, sync=True)
                t.join()
                np.testing.assert_array_equal(keep.numpy(), want)
                assert g._res._refs == 0 and x._res._refs == 0     # released once the call let go
                deferred += held_after_close[0] > 0
            except hg.ClosedError:
                pass                                   # the close came first: refused, nothing held
            finally:
                t.join()
                o.close()
                keep.close()
    assert deferred > 0                                # the race under test really happened
    assert _counts(hg) == before


def test_c_reference_counts_never_revive_or_go_below_zero(hg):
    from pyacl_hardgrad._cffi_acl import ffi, lib
    a, b = ffi.new("int64_t *", 1), ffi.new("int64_t *", 2)
    assert lib.hgb_ref_retain(a) == 1 and a[0] == 2
    assert lib.hgb_ref_release(a) == 1
    assert lib.hgb_ref_release(a) == 0
    assert lib.hgb_ref_release(a) == -1 and a[0] == 0     # no further
    assert lib.hgb_ref_retain(a) == 0 and a[0] == 0       # a released count stays released
    a[0] = 1
    assert lib.hgb_ref_release5(ffi.NULL, b, a, ffi.NULL, ffi.NULL) == 0b100
    assert (a[0], b[0]) == (0, 1)


def test_c_reference_counts_are_atomic_across_threads(hg):
    from pyacl_hardgrad._cffi_acl import ffi, lib
    c = ffi.new("int64_t *", 1)
    per_thread = 20000

    def work():
        for _ in range(per_thread):
            lib.hgb_ref_retain(c)
            lib.hgb_ref_release(c)
        for _ in range(per_thread):
            lib.hgb_ref_retain(c)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert c[0] == 1 + 4 * per_thread


def test_sync_plan_run_also_releases_what_earlier_async_launches_held(hg):
    with hg.Device(0) as dev, dev.create_stream() as s:
        g, x, o = hg.Tensor(G, dev), hg.Tensor(X, dev), hg.empty((8,), "float32", dev)
        o2 = hg.empty((8,), "float32", dev)
        with hg.HardtanhBackwardPlan(g, x, 1.2, 2.4, o, repeatable=True) as plan:
            plan.run(None, s, sync=True)                       # pinned: later runs take the fast path
            hg.hardsigmoid_backward(g, x, out=o2, stream=s)   # async: held by s
            assert len(s._pending) == 1 and _refs(o2) == 2
            plan.run(None, s, sync=True)
            assert s._pending == [] and _refs(o2) == 1
            assert plan.runs == 2
        np.testing.assert_array_equal(o.numpy(), HT_EXPECTED)
        np.testing.assert_array_equal(o2.numpy(), HS_EXPECTED)
        for t in (g, x, o, o2):
            t.close()


def _after_plan_launch(monkeypatch, action):
    """Run ``action`` right after a plan's general-path launch returns: where another thread
    using the same tensors may run (a deterministic stand-in for that thread)."""
    import pyacl_hardgrad.ops as ops_mod
    original = ops_mod._Plan._run

    def wrapped(self, workspace, stream):
        out = original(self, workspace, stream)
        action()
        return out
    monkeypatch.setattr(ops_mod._Plan, "_run", wrapped)


@pytest.mark.parametrize("how", ["one-shot plan", "one-call general path"])
def test_sync_waits_for_its_own_stream_when_another_launch_shares_the_input(hg, monkeypatch, how):
    with hg.Device(0) as dev, dev.create_stream() as s1, dev.create_stream() as s2:
        g, x, o = hg.Tensor(G, dev), hg.Tensor(X, dev), hg.empty((8,), "float32", dev)
        o2 = hg.empty((8,), "float32", dev)
        _after_plan_launch(monkeypatch, lambda: hg.hardsigmoid_backward(g, x, out=o2, stream=s2))
        if how == "one-shot plan":
            with hg.HardtanhBackwardPlan(g, x, 1.2, 2.4, o) as plan:
                plan.run(None, s1, sync=True)
        else:                                      # a numpy-scalar bound takes the plan path
            hg.hardtanh_backward(g, x, np.float32(1.2), 2.4, out=o, stream=s1, sync=True)
        monkeypatch.undo()
        assert s1._pending == []                   # s1 itself was waited for
        np.testing.assert_array_equal(o.numpy(), HT_EXPECTED)
        s2.synchronize()
        for t in (g, x, o, o2):
            t.close()


def test_sync_plan_run_is_not_confused_by_a_concurrent_read_of_the_input(hg, monkeypatch):
    with hg.Device(0) as dev, dev.create_stream() as s:
        g, x, o = hg.Tensor(G, dev), hg.Tensor(X, dev), hg.empty((8,), "float32", dev)
        _after_plan_launch(monkeypatch, g.numpy)         # clears g's record of its last stream
        with hg.HardtanhBackwardPlan(g, x, 1.2, 2.4, o, repeatable=True) as plan:
            plan.run(None, s, sync=True)
        monkeypatch.undo()
        np.testing.assert_array_equal(o.numpy(), HT_EXPECTED)
        s.synchronize()
        for t in (g, x, o):
            t.close()


def test_one_calls_survive_the_bound_scalar_cache_being_released_concurrently(hg):
    """release_cached_scalars() in a loop in another thread while one-calls take their bounds
    from the cache, with and without sync: no error, no leak, right results."""
    import sys
    from pyacl_hardgrad.scalar import release_cached_scalars
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    errors, stop = [], threading.Event()
    try:
        with hg.Device(0) as dev, dev.create_stream() as s:
            g, x, o = hg.Tensor(G, dev), hg.Tensor(X, dev), hg.empty((8,), "float32", dev)

            def closer():
                while not stop.is_set():
                    release_cached_scalars()
            t = threading.Thread(target=closer)
            t.start()
            try:
                for i in range(5000):
                    try:
                        hg.hardtanh_backward(g, x, 1.2, 2.4, out=o, stream=s, sync=bool(i & 1))
                    except Exception as exc:      # collected, reported below
                        errors.append(repr(exc))
                        if len(errors) > 5:
                            break
            finally:
                stop.set()
                t.join()
            s.synchronize()
            np.testing.assert_array_equal(o.numpy(), HT_EXPECTED)
            assert [_refs(t) for t in (g, x, o)] == [1, 1, 1]
            for tt in (g, x, o):
                tt.close()
    finally:
        sys.setswitchinterval(old)
    assert not errors, errors
    release_cached_scalars()
    gc.collect()
    assert hg.live_counts()["scalars"] == 0
