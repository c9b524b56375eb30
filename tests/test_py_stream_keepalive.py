"""Stream keep-alive: what a stream holds for queued work, when it lets go, and that it stays bounded.

Every launch (one-call or plan run) hands the references of what it uses to its stream, which
lets go of them at its next synchronize() (or close); a launch that repeats the previous one's
resources adds nothing, so repeated runs without a wait hold a bounded set.  A repeatable plan run
with its own workspace is pinned on its stream instead: one reference, kept across syncs until
the plan is closed and the stream has synchronised since (or the stream is closed).
"""
import contextlib
import gc
import threading

import numpy as np
import pytest

import py_op_cases
from py_op_cases import refs
from hg_checkmode import without_clean_summary
from hg_threads import run_threads

CASES = py_op_cases.cases()


def _counts(hg):
    gc.collect()
    return hg.live_counts()


@pytest.fixture(autouse=True)
def _defaults_first(hg):
    for case in CASES:             # the default device and cached Scalars the expectations use
        case.expected()


def _inputs(hg, dev, case):
    want = case.expected()
    return case.tensors(hg, dev), hg.empty(want.shape, want.dtype, dev), want


@contextlib.contextmanager
def _repeatable_plan(hg, case, streams=1, plan=True):
    """(live counts before, device 0, `streams` created streams, the case's input tensors, an out,
    the expected result, a repeatable plan over them -- None when not `plan`).  Afterwards the
    tensors are closed, then the streams and the device, and the live counts must be back."""
    before = _counts(hg)
    with hg.Device(0) as dev, contextlib.ExitStack() as opened:
        ss = [opened.enter_context(dev.create_stream()) for _ in range(streams)]
        ts, o, want = _inputs(hg, dev, case)
        p = case.plan(ts, out=o, repeatable=True) if plan else None
        yield before, dev, ss, ts, o, want, p
        for t in ts + [o]:
            t.close()
    assert _counts(hg) == before


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_closing_repeatable_plan_right_after_unsynced_run_waits_for_sync(hg, case):
    with _repeatable_plan(hg, case) as (before, dev, [s], ts, o, want, plan):
        plan.run(None, s)
        plan.close()
        for t in ts:
            t.close()
        # The queued run still needs the executor and the inputs.
        assert _counts(hg)["executors"] == before["executors"] + 1
        assert _counts(hg)["tensors"] == before["tensors"] + len(ts) + 1
        s.synchronize()
        assert _counts(hg)["executors"] == before["executors"]
        assert _counts(hg)["tensors"] == before["tensors"] + 1
        np.testing.assert_array_equal(o.numpy(), want)
        o.close()


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_repeatable_plan_is_held_until_sync_and_keeps_working(hg, case):
    with _repeatable_plan(hg, case, plan=False) as (before, dev, [s], ts, o, want, plan):
        with case.plan(ts, out=o, repeatable=True) as plan:
            for _ in range(5):
                plan.run(None, s)
                assert plan._refs == 2           # the plan's own reference + the stream's pin
                s.synchronize()
                assert plan._refs == 2 and s._pinned() == 1 and s._held() == 0   # pinned while open
                np.testing.assert_array_equal(o.numpy(), want)
            assert plan.runs == 5
            plan.run(None, s)
        assert plan.closed
        assert _counts(hg)["executors"] == before["executors"] + 1   # held until the sync
        s.synchronize()
        assert _counts(hg)["executors"] == before["executors"]
        with pytest.raises(hg.ClosedError):
            plan.run(None, s)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_many_runs_without_sync_hold_nothing_more(hg, case):
    with _repeatable_plan(hg, case, plan=False) as (before, dev, [s], ts, o, want, plan):
        with case.plan(ts, out=o, repeatable=True) as plan:
            for i in range(20000):
                plan.run(None, s)
            assert plan._refs == 2 and s._held() == 0 and s._pinned() == 1
        s.synchronize()                           # lets go of the closed plan
        assert s._held() == 0 and s._pinned() == 0 and ts[0]._refs == 1
        # One-call operators on the same arguments share one entry.
        for _ in range(20000):
            case.call(ts, out=o, stream=s)
        assert s._held() == case.n_handles
        assert ts[0]._refs == 2                   # the handle + the one entry
        s.synchronize()
        assert s._held() == 0 and ts[0]._refs == 1
        np.testing.assert_array_equal(o.numpy(), want)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_collected_plan_is_released_at_next_sync(hg, case):
    with _repeatable_plan(hg, case, plan=False) as (before, dev, [s], ts, o, want, _):
        plan = case.plan(ts, out=o, repeatable=True)     # only this test's name holds it
        plan.run(None, s)
        del plan
        gc.collect()
        assert _counts(hg)["executors"] == before["executors"] + 1
        s.synchronize()
        assert _counts(hg)["executors"] == before["executors"]
        assert s._held() == 0
        np.testing.assert_array_equal(o.numpy(), want)


@pytest.mark.check_findings("stream-race")
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_plan_on_two_streams_lives_until_both_synced(hg, case):
    with _repeatable_plan(hg, case, streams=2) as (before, dev, [a, b], ts, o, want, plan):
        plan.run(None, a)
        plan.run(None, b)
        plan.run(None, a)
        assert plan._refs == 3
        plan.close()
        a.synchronize()
        assert _counts(hg)["executors"] == before["executors"] + 1   # b still holds it
        b.synchronize()
        assert _counts(hg)["executors"] == before["executors"]


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_closing_the_stream_lets_go_of_its_work(hg, case):
    with _repeatable_plan(hg, case, streams=0) as (before, dev, [], ts, o, want, plan):
        s = dev.create_stream()
        plan.run(None, s)
        s.close()                                # waits, then lets go of the run
        assert plan._refs == 1
        with pytest.raises(hg.ClosedError, match="Stream"):
            plan.run(None, s)
        with dev.create_stream() as s2:
            plan.run(None, s2)
            s2.synchronize()
            np.testing.assert_array_equal(o.numpy(), want)
            plan.run(None, s2)
            plan.close()
        assert _counts(hg)["executors"] == before["executors"]   # s2's close let go of it


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_closed_plans_stay_bounded_without_sync(hg, case):
    from pyacl_hardgrad._binding import lib
    limit = lib.HGB_PENDING_LIMIT
    with _repeatable_plan(hg, case, plan=False) as (before, dev, [s], ts, o, want, plan):
        for _ in range(limit + 50):
            with case.plan(ts, out=o, repeatable=True) as plan:
                plan.run(None, s)
            assert s._held() + s._pinned() <= limit
        assert _counts(hg)["executors"] <= before["executors"] + limit
        s.synchronize()
        assert s._held() == 0 and s._pinned() == 0 and _counts(hg)["executors"] == before["executors"]


@pytest.mark.parametrize("case", CASES[:1], ids=repr)
def test_run_rejects_something_that_is_not_a_stream(hg, case):
    with _repeatable_plan(hg, case, streams=0, plan=False) as (before, dev, [], ts, o, want, plan):
        with case.plan(ts, out=o, repeatable=True) as plan:
            with pytest.raises(TypeError, match="stream must be a Stream"):
                plan.run(None, object())
        with pytest.raises(TypeError, match="stream must be a Stream"):
            case.call(ts, out=o, stream=5)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_threads_sharing_one_stream_launch_and_sync(hg, case):
    before = _counts(hg)
    errors = []
    with hg.Device(0) as dev, dev.create_stream() as s:
        def worker(k):
            try:
                host = [a + k for a in case.host]
                want = case.expected(host)
                ts = case.tensors(hg, dev, host)
                o = hg.empty(want.shape, want.dtype, dev)
                for i in range(300):
                    case.call(ts, out=o, stream=s)
                    if i % 3 == 0:
                        s.synchronize()
                s.synchronize()
                np.testing.assert_array_equal(o.numpy(), want)
                for t in ts + [o]:
                    t.close()
            except Exception as exc:   # reported to the main thread
                errors.append(exc)
        run_threads(worker, 4)
        s.synchronize()
        assert s._held() == 0
    assert not errors, errors
    assert _counts(hg) == before


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_threads_running_one_plan_on_one_stream_hold_it_once(hg, case):
    errors = []
    with _repeatable_plan(hg, case, plan=False) as (before, dev, [s], ts, o, want, plan):
        for _ in range(20):
            plan = case.plan(ts, out=o, repeatable=True)
            barrier = threading.Barrier(3)

            def worker():
                try:
                    barrier.wait()
                    for _ in range(50):
                        plan.run(None, s)
                except Exception as exc:   # reported to the main thread
                    errors.append(exc)
            run_threads(lambda _k: worker(), 3)
            assert plan._refs == 2 and s._held() == 0 and s._pinned() == 1
            plan.close()
            s.synchronize()
            assert s._held() == 0 and s._pinned() == 0
        assert _counts(hg)["executors"] == before["executors"]
        np.testing.assert_array_equal(o.numpy(), want)
        for t in ts + [o]:
            t.close()
    assert not errors, errors


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_one_call_inputs_closed_before_sync_are_freed_by_the_sync(hg, case):
    with _repeatable_plan(hg, case, plan=False) as (before, dev, [s], ts, o, want, plan):
        case.call(ts, out=o, stream=s)
        for t in ts:
            t.close()
        assert _counts(hg)["tensors"] == before["tensors"] + len(ts) + 1
        s.synchronize()
        assert _counts(hg)["tensors"] == before["tensors"] + 1
        with pytest.raises(hg.ClosedError):
            case.call(ts, out=o, stream=s)
        np.testing.assert_array_equal(o.numpy(), want)
        o.close()


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_plan_run_racing_close_gives_success_or_a_clean_error(hg, case):
    """plan.run() in one thread while another closes the plan: each run either launched or
    raised ClosedError; nothing else, nothing leaked."""
    import sys
    before = _counts(hg)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    other = []
    try:
        with hg.Device(0) as dev, dev.create_stream() as s:
            ts, o, want = _inputs(hg, dev, case)
            for _ in range(200):
                plan = case.plan(ts, out=o, repeatable=True)
                go = threading.Event()

                def runner():
                    go.wait()
                    for _ in range(20):
                        try:
                            plan.run(None, s)
                        except hg.ClosedError:
                            pass
                        except Exception as exc:      # reported below
                            other.append(repr(exc))
                t = threading.Thread(target=runner)
                t.start()
                go.set()
                plan.close()
                t.join()
            s.synchronize()
            for x in ts + [o]:
                x.close()
    finally:
        sys.setswitchinterval(old)
    assert not other, other[:3]
    assert _counts(hg) == before


@pytest.mark.parametrize("case", CASES, ids=repr)
@pytest.mark.parametrize("drop", ["closed", "dropped"])
def test_repeatable_plan_on_the_default_stream_after_the_device_is_gone_keeps_nothing(hg, case, drop):
    """The default stream belongs to the device; the work queued on it holds the plan, which holds
    the tensors, which hold the device: no cycle survives the plan, the tensors and the sync."""
    hg.release_defaults()
    before = _counts(hg)
    dev = hg.Device(0)
    ts, o, want = _inputs(hg, dev, case)
    hg.release_defaults()                  # _inputs used the default device
    plan = case.plan(ts, out=o, repeatable=True)
    if drop == "closed":
        dev.close()
    else:
        del dev
        gc.collect()
    plan.run()
    plan.run(sync=True)
    np.testing.assert_array_equal(o.numpy(), want)
    plan.run()
    plan.close()
    for t in ts + [o]:
        t.close()
    hg.release_defaults()
    assert _counts(hg) == before


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_closing_a_stream_while_another_thread_launches_on_it_is_clean(hg, case):
    """Each launch either runs (the call holds the stream until it has handed its work over) or
    raises ClosedError; the closed stream's work is waited for and let go of; nothing leaks."""
    import sys
    before = _counts(hg)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    other, outcomes = [], set()
    try:
        with hg.Device(0) as dev:
            ts, o, want = _inputs(hg, dev, case)
            case.call(ts, out=o, sync=True)          # the result the racing launches rewrite
            for _ in range(100):
                s = dev.create_stream()
                started = threading.Event()

                def launcher():
                    for i in range(100000):          # until the close is seen (a loaded machine
                        try:                          # may run any fixed number before it)
                            case.call(ts, out=o, stream=s, sync=bool(i & 1))
                            outcomes.add("ran")
                        except hg.ClosedError:
                            outcomes.add("closed")
                            break
                        except Exception as exc:      # reported below
                            other.append(repr(exc))
                            break
                        finally:
                            started.set()
                t = threading.Thread(target=launcher)
                t.start()
                started.wait()
                s.close()
                t.join()
                assert refs(*ts, o) == [1] * (len(ts) + 1)
            np.testing.assert_array_equal(o.numpy(), want)
            for x in ts + [o]:
                x.close()
    finally:
        sys.setswitchinterval(old)
    assert not other, other[:3]
    assert outcomes == {"ran", "closed"}          # both sides of the race happened
    assert _counts(hg) == before


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_pinned_plan_closed_after_a_sync_is_let_go_of_at_the_next_sync(hg, case):
    with _repeatable_plan(hg, case) as (before, dev, [s], ts, o, want, plan):
        plan.run(None, s, sync=True)
        plan.run(None, s)
        s.synchronize()
        np.testing.assert_array_equal(o.numpy(), want)
        plan.close()                            # pinned: nothing is destroyed yet
        assert _counts(hg)["executors"] == before["executors"] + 1 and s._pinned() == 1
        with pytest.raises(hg.ClosedError, match=r"Plan is closed"):
            plan.run(None, s)
        s.synchronize()
        assert _counts(hg)["executors"] == before["executors"] and s._pinned() == 0


@pytest.mark.check_findings("stream-race")
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_plan_run_on_two_streams_in_turn_is_pinned_on_both_until_each_synced(hg, case):
    with _repeatable_plan(hg, case, streams=2) as (before, dev, [a, b], ts, o, want, plan):
        for _ in range(3):
            for s in (a, b, a, b, b, a):
                plan.run(None, s, sync=True)
                np.testing.assert_array_equal(o.numpy(), want)
            for s in (a, b, a):
                plan.run(None, s)
        assert a._pinned() == 1 and b._pinned() == 1 and a._held() == 0 and b._held() == 0
        assert plan._refs == 3                  # the handle and one pin per stream
        plan.close()
        a.synchronize()
        assert a._pinned() == 0 and _counts(hg)["executors"] == before["executors"] + 1
        b.synchronize()
        assert b._pinned() == 0 and _counts(hg)["executors"] == before["executors"]


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_closing_the_stream_of_a_pinned_plan_lets_go_of_the_pin(hg, case):
    with _repeatable_plan(hg, case, streams=0) as (before, dev, [], ts, o, want, plan):
        s = dev.create_stream()
        plan.run(None, s, sync=True)
        plan.run(None, s)                       # queued, pinned
        assert plan._refs == 2
        s.close()                               # waits for the run, then lets go of the pin
        assert plan._refs == 1 and _counts(hg)["streams"] == before["streams"]
        with pytest.raises(hg.ClosedError, match=r"Stream stream of \w+Plan\.run\(\) is closed"):
            plan.run(None, s)
        with dev.create_stream() as s2:       # pinned afresh on another stream
            plan.run(None, s2, sync=True)
            assert s2._pinned() == 1 and plan._refs == 2
            np.testing.assert_array_equal(o.numpy(), want)
        assert plan._refs == 1
        plan.close()
        assert _counts(hg)["executors"] == before["executors"]


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_explicit_workspace_runs_of_a_pinned_plan_are_held_until_the_sync(hg, case):
    """A run with a workspace of the caller's takes the general path: the stream holds the plan and
    the workspace for that run (beside the pin) until its next sync."""
    before = _counts(hg)
    host2 = [a.reshape(4, 2) for a in case.host]
    want = case.expected([np.ascontiguousarray(a.T) for a in host2])
    with hg.Device(0) as dev, dev.create_stream() as s:
        ts = case.tensors(hg, dev, host2)
        views = [t.T for t in ts]                # transposed views: phase 1 asks for a workspace
        o = hg.empty(want.shape, want.dtype, dev)
        with case.plan(views, out=o, repeatable=True) as plan:
            assert plan.workspace_size > 0
            ws = dev.allocate(plan.workspace_size)
            plan.run(None, s, sync=True)
            plan.run(ws, s)
            assert s._held() == 2 and s._pinned() == 1 and ws._refs == 2
            ws.close()                           # the queued run keeps it
            s.synchronize()
            assert s._held() == 0 and s._pinned() == 1 and ws._refs == 0
            np.testing.assert_array_equal(o.numpy(), want)
        s.synchronize()
        assert s._pinned() == 0
        for t in views + ts + [o]:
            t.close()
    assert _counts(hg) == before


@pytest.mark.parametrize("case", CASES, ids=repr)
@pytest.mark.parametrize("closer", ["plan", "stream"])
def test_closing_a_pinned_plan_or_its_stream_while_another_thread_runs_it_is_clean(hg, case, closer):
    """Pinned runs hold no reference: a plan (or stream) closed from another thread while a run is
    in its launch is kept until that launch is enqueued and waited for.  Each run either ran or
    raised ClosedError; the result stays right; nothing leaks."""
    import sys
    before = _counts(hg)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    other, outcomes = [], set()
    try:
        with hg.Device(0) as dev:
            ts, o, want = _inputs(hg, dev, case)
            for k in range(60):
                s = dev.create_stream()
                plan = case.plan(ts, out=o, repeatable=True)
                plan.run(None, s, sync=True)    # pinned before the race
                started = threading.Event()

                def runner():
                    for i in range(40):
                        try:
                            plan.run(None, s, sync=bool(i & 1))
                            outcomes.add("ran")
                        except hg.ClosedError:
                            outcomes.add("closed")
                        except Exception as exc:      # reported below
                            other.append(repr(exc))
                        started.set()
                t = threading.Thread(target=runner)
                t.start()
                started.wait()
                if closer == "plan":
                    plan.close()
                    for _ in range(3):
                        s.synchronize()      # lets go of the pin while the runner may still launch
                else:
                    s.close()
                t.join()
                plan.close()
                s.close()
                np.testing.assert_array_equal(o.numpy(), want)
                assert refs(*ts, o) == [1] * (len(ts) + 1)
            for x in ts + [o]:
                x.close()
    finally:
        sys.setswitchinterval(old)
    assert not other, other[:3]
    assert "ran" in outcomes and outcomes <= {"ran", "closed"}    # "closed" when the close won a race
    assert _counts(hg) == before


def _pinned_at_exit_script(where: str) -> str:
    """A script ending with a repeatable plan pinned on a stream (the device's default one or its
    own), run again without a sync, nothing closed."""
    return f"""
import numpy as np, pyacl_hardgrad as hg
from pyacl_hardgrad import ops
spec = next(s for s in ops.operators().values() if [p.kind for p in s.params] == ["tensor", "tensor", "out"])
G = hg.from_numpy(np.ones(8, np.float32)); O = hg.empty((8,), hg.float32)
S = hg.default_device().default_stream if "{where}" == "default" else hg.Stream(hg.default_device())
p = getattr(hg, spec.plan_name)(G, G, O, repeatable=True)
p.run(None, S, sync=True)
p.run(None, S)
"""


@pytest.mark.parametrize("where", ["default", "own"])
def test_plan_left_pinned_at_exit_is_released_quietly(where):
    """A script that ends with a repeatable plan still pinned on a stream (nothing closed, no
    sync) exits 0 with nothing on stderr: the pins are let go of before the interpreter's last
    collection, which can no longer run the Python layer's releases."""
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-c", _pinned_at_exit_script(where)], capture_output=True, text=True,
                          timeout=120, cwd="/")
    assert proc.returncode == 0, proc.stderr
    assert without_clean_summary(proc.stderr) == ""


def test_plan_left_pinned_at_exit_is_released_clean_under_memcheck(tmp_path):
    """The same exit under valgrind memcheck: no invalid access and no definite or indirect leak in
    the package's C (the pin, the stream's books, the plan and its executor)."""
    import hg_memcheck
    found, _ = hg_memcheck.run(_pinned_at_exit_script("own"), tmp_path)
    assert not found, "\n\n".join(found)
