"""Plan.run as users call it: the signature's rules, the fast and the general case giving the same
results and counts, and the lifetime of a plan whose bound ``run`` is kept or dropped."""
import gc

import numpy as np
import pytest

import py_op_cases

CASE = py_op_cases.cases()[0]


@pytest.fixture
def parts(hg):
    """(device, stream, input tensors, out, expected) -- all closed afterwards, live counts back."""
    with hg.Device(0) as dev:
        want = CASE.expected()            # makes what lives on: the default stream, cached scalars
        gc.collect()
        before = hg.live_counts()
        with dev.create_stream() as s:
            ts = CASE.tensors(hg, dev)
            o = hg.empty((8,), "float32", dev)
            yield dev, s, ts, o, want
            for t in ts + [o]:
                t.close()
        dev.default_stream.synchronize()  # lets go of a plan pinned there
        gc.collect()
        assert hg.live_counts() == before


def test_run_takes_workspace_and_stream_by_position_or_keyword_and_sync_by_keyword(hg, parts):
    dev, s, ts, o, want = parts
    with CASE.plan(ts, out=o, repeatable=True) as plan:
        assert plan.run(None, s, sync=True) is o
        assert plan.run(stream=s, sync=1) is o             # any truth value, as in Python
        assert plan.run(workspace=None, stream=s) is o
        s.synchronize()                                     # before the default stream writes o too
        assert plan.run() is o                              # the device's default stream
        dev.default_stream.synchronize()
        assert type(plan).run(plan, None, s, sync=True) is o    # the class's method
        assert plan.runs == 5
        np.testing.assert_array_equal(o.numpy(), want)


@pytest.mark.parametrize("call, message", [
    (lambda p, s: p.run(None, s, True), r"at most 2 positional arguments \(3 given\)"),
    (lambda p, s: p.run(stream=s, wait=True), "unexpected keyword argument 'wait'"),
    (lambda p, s: p.run(None, s, stream=s), "multiple values for argument 'stream'"),
])
def test_run_rejects_what_its_signature_does_not_take(hg, parts, call, message):
    _, s, ts, o, _ = parts
    with CASE.plan(ts, out=o, repeatable=True) as plan:
        with pytest.raises(TypeError, match=message):
            call(plan, s)
        assert plan.runs == 0


def test_a_sync_value_without_a_truth_value_raises_its_error_and_runs_nothing(hg, parts):
    _, s, ts, o, _ = parts

    class NoTruth:
        def __bool__(self):
            raise ValueError("no truth value")
    with CASE.plan(ts, out=o, repeatable=True) as plan:
        with pytest.raises(ValueError, match="no truth value"):
            plan.run(None, s, sync=NoTruth())
        assert plan.runs == 0 and s._held() == 0 and s._pinned() == 0


def test_runs_count_on_the_fast_and_the_general_case_and_errors_name_the_rule(hg, parts):
    dev, s, ts, o, want = parts
    plan = CASE.plan(ts, out=o, repeatable=True)
    with dev.allocate(64) as ws:
        plan.run(None, s, sync=True)               # fast case
        plan.run(ws, s, sync=True)                 # a workspace: the general case (size 0: unused)
        with pytest.raises(TypeError, match="stream must be a Stream, not int"):
            plan.run(None, 5)
        with pytest.raises(TypeError, match="workspace must be a DeviceMemory"):
            plan.run(b"", s)
        assert plan.runs == 2
        name = type(plan).__name__
        plan.close()
        with pytest.raises(hg.ClosedError, match=f"^{name} is closed$"):
            plan.run(None, s)
        assert plan.runs == 2
    np.testing.assert_array_equal(o.numpy(), want)


def test_a_closed_stream_is_reported_by_the_run_and_the_run_not_counted(hg, parts):
    dev, _, ts, o, _ = parts
    with CASE.plan(ts, out=o, repeatable=True) as plan:
        s2 = dev.create_stream()
        s2.close()
        with pytest.raises(hg.ClosedError, match="Stream stream of .*run\\(\\) is closed"):
            plan.run(None, s2)
        assert plan.runs == 0


def test_a_plan_runner_cannot_be_initialised_again(hg, parts):
    _, s, ts, o, _ = parts
    with CASE.plan(ts, out=o, repeatable=True) as plan:
        r = plan._runner
        with pytest.raises(TypeError, match="initialised once"):
            r.__init__(r.o, 1, r.live, r.state, r.out, r.name, 0, print, print)
        assert plan.run(None, s, sync=True) is o


def test_a_one_shot_plan_runs_once_on_the_fast_case(hg, parts):
    _, s, ts, o, want = parts
    with CASE.plan(ts, out=o) as plan:
        plan.run(None, s, sync=True)
        with pytest.raises(hg.PlanConsumedError, match="one-shot"):
            plan.run(None, s, sync=True)
        assert plan.runs == 1 and plan.consumed
    np.testing.assert_array_equal(o.numpy(), want)


def test_a_plan_nothing_refers_to_is_released_at_once_without_the_garbage_collector(hg, parts):
    _, s, ts, o, _ = parts
    before = hg.live_counts()["executors"]
    gc.disable()
    try:
        plan = CASE.plan(ts, out=o, repeatable=True)
        plan.run(None, s, sync=True)
        assert hg.live_counts()["executors"] == before + 1
        del plan                          # no reference cycle: released by its reference count
        s.synchronize()                   # the stream's pin lets go at its next sync
        assert hg.live_counts()["executors"] == before
    finally:
        gc.enable()


def test_a_kept_bound_run_keeps_its_plan_working_after_the_plan_object_is_gone(hg, parts):
    _, s, ts, o, want = parts
    before = hg.live_counts()["executors"]
    run = CASE.plan(ts, out=o, repeatable=True).run
    gc.collect()
    o.copy_from(np.zeros(8, np.float32))
    assert run(None, s, sync=True) is o
    np.testing.assert_array_equal(o.numpy(), want)
    assert hg.live_counts()["executors"] == before + 1
    del run
    s.synchronize()
    assert hg.live_counts()["executors"] == before
