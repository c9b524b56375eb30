"""Stream keep-alive: what a stream holds for queued work, when it lets go, and that it stays bounded.

A repeatable plan pins itself to a stream on its first run there; the pin survives
synchronize() (so steady-state runs cost no retain/release) and is dropped at the first
synchronize() (or stream close) after the plan is closed or collected.
"""
import gc
import threading

import numpy as np
import pytest

G = np.arange(8, dtype=np.float32)
X = np.array([1, 1, 1, 2, 1, 2, 3, 3], np.float32)
EXPECTED = np.array([0, 0, 0, 3, 0, 5, 0, 0], np.float32)


def _counts(hg):
    gc.collect()
    return hg.live_counts()


def _inputs(hg, dev):
    return hg.Tensor(G, dev), hg.Tensor(X, dev), hg.empty((8,), "float32", dev)


def test_closing_repeatable_plan_right_after_unsynced_run_waits_for_sync(hg):
    before = _counts(hg)
    with hg.Device(0) as dev, dev.create_stream() as s:
        g, x, o = _inputs(hg, dev)
        plan = hg.HardtanhBackwardPlan(g, x, 1.2, 2.4, o, repeatable=True)
        plan.run(None, s)
        plan.close()
        g.close()
        x.close()
        # The queued run still needs the executor and the inputs.
        assert _counts(hg)["executors"] == before["executors"] + 1
        assert _counts(hg)["tensors"] == before["tensors"] + 3
        s.synchronize()
        assert _counts(hg)["executors"] == before["executors"]
        assert _counts(hg)["tensors"] == before["tensors"] + 1
        np.testing.assert_array_equal(o.numpy(), EXPECTED)
        o.close()
    assert _counts(hg) == before


def test_repeatable_plan_pin_survives_sync_and_plan_keeps_working(hg):
    before = _counts(hg)
    with hg.Device(0) as dev, dev.create_stream() as s:
        g, x, o = _inputs(hg, dev)
        with hg.HardtanhBackwardPlan(g, x, 1.2, 2.4, o, repeatable=True) as plan:
            for _ in range(5):
                plan.run(None, s)
                s.synchronize()
                np.testing.assert_array_equal(o.numpy(), EXPECTED)
            assert plan.runs == 5
            assert plan._res._refs == 2          # the plan's own reference + one pin
        assert plan.closed
        assert _counts(hg)["executors"] == before["executors"] + 1   # pinned until the sync
        s.synchronize()
        assert _counts(hg)["executors"] == before["executors"]
        with pytest.raises(hg.ClosedError):
            plan.run(None, s)
        for t in (g, x, o):
            t.close()
    assert _counts(hg) == before


def test_many_runs_without_sync_hold_nothing_more(hg):
    with hg.Device(0) as dev, dev.create_stream() as s:
        g, x, o = _inputs(hg, dev)
        with hg.HardtanhBackwardPlan(g, x, 1.2, 2.4, o, repeatable=True) as plan:
            refs = None
            for i in range(20000):
                plan.run(None, s)
                if i == 0:
                    refs = plan._res._refs
            assert plan._res._refs == refs == 2
            assert len(s._pending) == 0 and len(s._pins) == 1
        s.synchronize()                           # drops the closed plan's pin
        assert not s._pins and g._res._refs == 1
        # One-call operators on the same arguments share one pending entry.
        for _ in range(20000):
            hg.hardtanh_backward(g, x, 1.2, 2.4, out=o, stream=s)
        assert len(s._pending) == 1
        assert g._res._refs == 2                  # the handle + the one pending entry
        s.synchronize()
        assert len(s._pending) == 0 and g._res._refs == 1
        np.testing.assert_array_equal(o.numpy(), EXPECTED)
        for t in (g, x, o):
            t.close()


def test_collected_plan_is_unpinned_at_next_sync(hg):
    before = _counts(hg)
    with hg.Device(0) as dev, dev.create_stream() as s:
        g, x, o = _inputs(hg, dev)
        plan = hg.HardtanhBackwardPlan(g, x, 1.2, 2.4, o, repeatable=True)
        plan.run(None, s)
        del plan
        gc.collect()
        assert _counts(hg)["executors"] == before["executors"] + 1
        s.synchronize()
        assert _counts(hg)["executors"] == before["executors"]
        assert not s._pins and not s._unpin
        np.testing.assert_array_equal(o.numpy(), EXPECTED)
        for t in (g, x, o):
            t.close()
    assert _counts(hg) == before


def test_plan_on_two_streams_lives_until_both_synced(hg):
    before = _counts(hg)
    with hg.Device(0) as dev, dev.create_stream() as a, dev.create_stream() as b:
        g, x, o = _inputs(hg, dev)
        plan = hg.HardtanhBackwardPlan(g, x, 1.2, 2.4, o, repeatable=True)
        plan.run(None, a)
        plan.run(None, b)
        plan.run(None, a)
        assert plan._res._refs == 3
        plan.close()
        a.synchronize()
        assert _counts(hg)["executors"] == before["executors"] + 1   # b still pins it
        b.synchronize()
        assert _counts(hg)["executors"] == before["executors"]
        for t in (g, x, o):
            t.close()
    assert _counts(hg) == before


def test_closing_the_stream_drops_its_pins(hg):
    before = _counts(hg)
    with hg.Device(0) as dev:
        g, x, o = _inputs(hg, dev)
        plan = hg.HardtanhBackwardPlan(g, x, 1.2, 2.4, o, repeatable=True)
        s = dev.create_stream()
        plan.run(None, s)
        s.close()                                # waits, then lets go of the pin
        assert plan._res._refs == 1
        with pytest.raises(hg.ClosedError):
            plan.run(None, s)                    # the stream it is pinned on is closed
        with dev.create_stream() as s2:
            plan.run(None, s2)
            s2.synchronize()
            np.testing.assert_array_equal(o.numpy(), EXPECTED)
            plan.close()
        assert _counts(hg)["executors"] == before["executors"]   # s2's close dropped the pin
        for t in (g, x, o):
            t.close()
    assert _counts(hg) == before


def test_pins_of_closed_plans_stay_bounded_without_sync(hg):
    from pyacl_hardgrad.stream import _PENDING_LIMIT
    before = _counts(hg)
    with hg.Device(0) as dev, dev.create_stream() as s:
        g, x, o = _inputs(hg, dev)
        for _ in range(_PENDING_LIMIT + 50):
            with hg.HardsigmoidBackwardPlan(g, x, o, repeatable=True) as plan:
                plan.run(None, s)
            assert len(s._pins) <= _PENDING_LIMIT
        s.synchronize()
        assert not s._pins and _counts(hg)["executors"] == before["executors"]
        for t in (g, x, o):
            t.close()
    assert _counts(hg) == before


def test_run_rejects_something_that_is_not_a_stream(hg):
    with hg.Device(0) as dev:
        g, x, o = _inputs(hg, dev)
        with hg.HardtanhBackwardPlan(g, x, 1.2, 2.4, o, repeatable=True) as plan:
            with pytest.raises(TypeError):
                plan.run(None, object())
        for t in (g, x, o):
            t.close()


def test_threads_sharing_one_stream_launch_and_sync(hg):
    from pyacl_hardgrad.scalar import cached_float32
    cached_float32(1.0), cached_float32(3.0)     # the bound cache outlives the test
    before = _counts(hg)
    errors = []
    with hg.Device(0) as dev, dev.create_stream() as s:
        def worker(k):
            try:
                with hg.Tensor(np.full(8, float(k + 1), np.float32), dev) as g, \
                        hg.Tensor(np.full(8, 2.0, np.float32), dev) as x, hg.empty((8,), "float32", dev) as o:
                    for i in range(300):
                        hg.hardtanh_backward(g, x, 1.0, 3.0, out=o, stream=s)
                        if i % 3 == 0:
                            s.synchronize()
                    s.synchronize()
                    np.testing.assert_array_equal(o.numpy(), np.full(8, float(k + 1), np.float32))
            except Exception as exc:   # reported to the main thread
                errors.append(exc)
        threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        s.synchronize()
        assert not s._pending
    assert not errors, errors
    assert _counts(hg) == before


def test_threads_running_one_plan_on_one_stream_pin_it_once(hg):
    before = _counts(hg)
    errors = []
    with hg.Device(0) as dev, dev.create_stream() as s:
        g, x, o = _inputs(hg, dev)
        for _ in range(20):
            plan = hg.HardtanhBackwardPlan(g, x, 1.2, 2.4, o, repeatable=True)
            barrier = threading.Barrier(3)

            def worker():
                try:
                    barrier.wait()
                    for _ in range(50):
                        plan.run(None, s)
                except Exception as exc:   # reported to the main thread
                    errors.append(exc)
            threads = [threading.Thread(target=worker) for _ in range(3)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert plan._res._refs == 2 and len(s._pins) == 1
            plan.close()
            s.synchronize()
            assert not s._pins
        assert _counts(hg)["executors"] == before["executors"]
        np.testing.assert_array_equal(o.numpy(), EXPECTED)
        for t in (g, x, o):
            t.close()
    assert not errors, errors
    assert _counts(hg) == before


def test_one_call_inputs_closed_before_sync_are_freed_by_the_sync(hg):
    from pyacl_hardgrad.scalar import cached_float32
    cached_float32(1.2), cached_float32(2.4)     # the bound cache outlives the test
    before = _counts(hg)
    with hg.Device(0) as dev, dev.create_stream() as s:
        g, x, o = _inputs(hg, dev)
        hg.hardtanh_backward(g, x, 1.2, 2.4, out=o, stream=s)
        g.close()
        x.close()
        assert _counts(hg)["tensors"] == before["tensors"] + 3
        s.synchronize()
        assert _counts(hg)["tensors"] == before["tensors"] + 1
        with pytest.raises(hg.ClosedError):
            hg.hardtanh_backward(g, x, 1.2, 2.4, out=o, stream=s)
        np.testing.assert_array_equal(o.numpy(), EXPECTED)
        o.close()
    assert _counts(hg) == before
