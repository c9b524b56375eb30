"""``sync=True`` one-call operators and plan runs, and the handle layer's reference counts behind
them.  A synchronous one-call holds its arguments, runs phase 1, phase 2 and the wait in one
crossing of the binding (_binding_c/fused_calls.c), and lets go of them before returning."""
import gc
import threading
import time

import numpy as np
import pytest

import py_op_cases
from py_op_cases import refs
from hg_threads import run_threads

CASES = py_op_cases.cases()
SCALAR_CASES = py_op_cases.with_scalars()


def _counts(hg):
    """Live C objects, leaving out the bound Scalars the one-call cache keeps."""
    gc.collect()
    counts = hg.live_counts()
    counts.pop("scalars")
    return counts


def _read_raw(hg, t):
    """The device buffer as it is now (no stream wait, unlike numpy())."""
    host = np.empty(t.shape, t.dtype)
    hg.raw.check(hg.raw.lib.aclrtMemcpy(hg.raw.ffi.from_buffer(host.view(np.uint8)), host.nbytes,
                                        hg.raw.ffi.cast("void *", t.data_ptr), host.nbytes,
                                        hg.raw.lib.ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy")
    return host


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_sync_one_call_has_finished_and_holds_nothing_when_it_returns(hg, case):
    want = case.expected()
    before = _counts(hg)
    with hg.Device(0) as dev, dev.create_stream() as s:
        ts = case.tensors(hg, dev)
        o = hg.empty(want.shape, want.dtype, dev)
        assert case.call(ts, out=o, stream=s, sync=True) is o
        assert s._held() == 0 and refs(*ts, o) == [1] * (len(ts) + 1)
        np.testing.assert_array_equal(_read_raw(hg, o), want)     # final without a further wait
        made = case.call(ts, stream=s, sync=True)                 # the out allocated by the call
        assert s._held() == 0 and made._refs == 1
        np.testing.assert_array_equal(_read_raw(hg, made), want)
        for t in ts + [o, made]:
            t.close()
    assert _counts(hg) == before


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_sync_one_call_also_releases_what_earlier_async_launches_held(hg, case):
    with hg.Device(0) as dev, dev.create_stream() as s:
        ts = case.tensors(hg, dev)
        want = case.expected()
        o, o2 = hg.empty(want.shape, want.dtype, dev), hg.empty(want.shape, want.dtype, dev)
        case.call(ts, out=o2, stream=s)                  # async: held by s
        assert s._held() == case.n_handles and o2._refs == 2
        case.call(ts, out=o, stream=s, sync=True)
        assert s._held() == 0 and o2._refs == 1 and ts[0]._refs == 1
        np.testing.assert_array_equal(o2.numpy(), want)
        np.testing.assert_array_equal(o.numpy(), want)
        for t in ts + [o, o2]:
            t.close()


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_sync_one_call_with_a_view_takes_the_workspace_path_and_waits(hg, case):
    with hg.Device(0) as dev, dev.create_stream() as s:
        bases = [hg.Tensor(np.repeat(a, 2), dev) for a in case.host]
        views = [b[::2] for b in bases]                  # non-contiguous: phase 1 wants a workspace
        with case.plan(views) as p:
            assert p.workspace_size > 0
            p.out.close()
        want = case.expected()
        o = hg.empty(want.shape, want.dtype, dev)
        case.call(views, out=o, stream=s, sync=True)
        assert s._held() == 0 and refs(*views, o) == [1] * (len(views) + 1)
        np.testing.assert_array_equal(o.numpy(), want)
        for t in views + bases + [o]:
            t.close()


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_sync_one_call_error_names_phase_one_and_leaves_counts_unchanged(hg, case):
    case.expected()
    before = _counts(hg)
    with hg.Device(0) as dev, dev.create_stream() as s:
        ts = case.tensors(hg, dev)
        o = hg.empty((4,), "float32", dev)                # wrong shape
        with pytest.raises(hg.AclError) as info:
            case.call(ts, out=o, stream=s, sync=True)
        assert f"{case.spec.name}GetWorkspaceSize" in str(info.value)
        assert info.value.code == 161002
        assert s._held() == 0 and refs(*ts, o) == [1] * (len(ts) + 1)
        for t in ts + [o]:
            t.close()
    assert _counts(hg) == before


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_sync_one_call_on_a_closed_tensor_names_it(hg, case):
    with hg.Device(0) as dev, dev.create_stream() as s:
        ts = case.tensors(hg, dev)
        o = hg.empty((8,), "float32", dev)
        ts[-1].close()
        with pytest.raises(hg.ClosedError, match=f"Tensor {case.tensor_params[-1].name} of {case.name}"):
            case.call(ts, out=o, stream=s, sync=True)
        assert refs(*ts[:-1], o) == [1] * len(ts)
        for t in ts + [o]:
            t.close()
        s2 = dev.create_stream()
        s2.close()
        ts2 = case.tensors(hg, dev)
        with pytest.raises(hg.ClosedError, match="Stream"):
            case.call(ts2, stream=s2)
        assert refs(*ts2) == [1] * len(ts2)
        for t in ts2:
            t.close()


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_sync_plan_run_waits_and_keeps_the_plan_reusable(hg, case):
    with hg.Device(0) as dev, dev.create_stream() as s:
        ts = case.tensors(hg, dev)
        want = case.expected()
        o = hg.empty(want.shape, want.dtype, dev)
        with case.plan(ts, out=o, repeatable=True) as plan:
            for _ in range(3):
                assert plan.run(None, s, sync=True) is o
                assert s._held() == 0
                np.testing.assert_array_equal(_read_raw(hg, o), want)
        with case.plan(ts, out=o) as plan:                # one-shot, default stream
            plan.run(sync=True)
            assert dev.default_stream._held() == 0
            np.testing.assert_array_equal(o.numpy(), want)
        for t in ts + [o]:
            t.close()


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_closing_inputs_from_another_thread_during_a_sync_call_defers_their_release(hg, case):
    """The call holds the tensors in C, so a close racing with it cannot free them under the
    kernel: the memory is released when the call lets go (no leak either)."""
    n = 1 << 22
    rng = np.random.default_rng(5)
    host = [rng.uniform(-4, 4, n).astype(np.float32) for _ in case.tensor_params]
    want = case.expected(host)
    before = _counts(hg)
    deferred = 0                  # iterations where the close landed while the call held the inputs
    with hg.Device(0) as dev, dev.create_stream() as s:
        ts = case.tensors(hg, dev, host)
        o = hg.empty((n,), want.dtype, dev)
        call_s = float("inf")
        for _ in range(3):                             # how long one call takes on this machine now
            t0 = time.perf_counter()                   # (the fastest of 3: the first pays page faults)
            case.call(ts, out=o, stream=s, sync=True)
            call_s = min(call_s, time.perf_counter() - t0)
        for t in ts + [o]:
            t.close()
        tries = 0
        while tries < 60 and (deferred == 0 or tries < 12):   # until the race has happened
            i, tries = tries % 12, tries + 1
            ts = case.tensors(hg, dev, host)
            o = hg.empty((n,), want.dtype, dev)
            keep = o[:]                                        # a view keeps o's memory readable
            started = threading.Event()
            held_after_close = []

            def closer(delay=call_s * (0.05 + 0.06 * i)):  # 5%..71% into the call
                started.wait()
                time.sleep(delay)
                for t in ts:
                    t.close()
                held_after_close.append(ts[0]._refs)   # > 0: someone (the call) still holds it

            t = threading.Thread(target=closer)
            t.start()
            started.set()
            try:
                case.call(ts, out=o, stream=s, sync=True)
                t.join()
                np.testing.assert_array_equal(keep.numpy(), want)
                assert all(x._refs == 0 for x in ts)     # released once the call let go
                deferred += held_after_close[0] > 0
            except hg.ClosedError:
                pass                                   # the close came first: refused, nothing held
            finally:
                t.join()
                o.close()
                keep.close()
    assert deferred > 0                                # the race under test really happened
    assert _counts(hg) == before


def test_handle_layer_counts_never_revive_or_go_below_zero(hg):
    from pyacl_hardgrad._cffi_acl import ffi, lib
    a = lib.hgb_obj_new(lib.HGB_KIND_FOREIGN, ffi.NULL, 0, [], 0, 1)
    b = lib.hgb_obj_new(lib.HGB_KIND_FOREIGN, ffi.NULL, 0, [], 0, 1)
    assert lib.hgb_obj_retain(b) == 1
    c = lib.hgb_obj_new(lib.HGB_KIND_FOREIGN, ffi.NULL, 0, [b], 1, 1)   # c depends on b
    assert lib.hgb_obj_retain(a) == 1 and lib.hgb_obj_refs(a) == 2
    assert lib.hgb_obj_release(a) == 1
    lib.hgb_obj_close(a)
    lib.hgb_obj_close(a)                                      # closing twice drops one reference
    assert lib.hgb_obj_refs(a) == 0 and lib.hgb_obj_open(a) == 0
    assert lib.hgb_obj_release(a) == -1                       # no further
    assert lib.hgb_obj_retain(a) == 0 and lib.hgb_obj_hold(a) == 0   # a released count stays released
    lib.hgb_obj_close(b)
    assert lib.hgb_obj_refs(b) == 1 and lib.hgb_obj_hold(b) == 0     # closed, alive for c
    lib.hgb_obj_close(c)
    assert lib.hgb_obj_refs(b) == 0                           # c's release let go of b
    for o in (a, b, c):
        lib.hgb_obj_forget(o)


def test_handle_layer_counts_are_atomic_across_threads(hg):
    from pyacl_hardgrad._cffi_acl import ffi, lib
    c = lib.hgb_obj_new(lib.HGB_KIND_FOREIGN, ffi.NULL, 0, [], 0, 1)
    per_thread = 20000

    def work():
        for _ in range(per_thread):
            lib.hgb_obj_retain(c)
            lib.hgb_obj_release(c)
        for _ in range(per_thread):
            lib.hgb_obj_retain(c)

    run_threads(lambda _k: work(), 4)
    assert lib.hgb_obj_refs(c) == 1 + 4 * per_thread
    for _ in range(4 * per_thread):
        lib.hgb_obj_release(c)
    lib.hgb_obj_forget(c)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_sync_plan_run_also_releases_what_earlier_async_launches_held(hg, case):
    with hg.Device(0) as dev, dev.create_stream() as s:
        ts = case.tensors(hg, dev)
        want = case.expected()
        o, o2 = hg.empty(want.shape, want.dtype, dev), hg.empty(want.shape, want.dtype, dev)
        with case.plan(ts, out=o, repeatable=True) as plan:
            plan.run(None, s, sync=True)
            case.call(ts, out=o2, stream=s)             # async: held by s
            assert s._held() == case.n_handles and o2._refs == 2
            plan.run(None, s, sync=True)
            assert s._held() == 0 and o2._refs == 1
            assert plan.runs == 2
        np.testing.assert_array_equal(o.numpy(), want)
        np.testing.assert_array_equal(o2.numpy(), want)
        for t in ts + [o, o2]:
            t.close()


@pytest.mark.parametrize("how", ["one-shot plan", "one-call general path", "one-call"])
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_sync_waits_for_its_own_stream_when_another_launch_shares_the_input(hg, case, how):
    with hg.Device(0) as dev, dev.create_stream() as s1, dev.create_stream() as s2:
        ts = case.tensors(hg, dev)
        want = case.expected()
        o, o2 = hg.empty(want.shape, want.dtype, dev), hg.empty(want.shape, want.dtype, dev)
        case.call(ts, out=o2, stream=s2)                 # the inputs' last stream is s2 now
        if how == "one-shot plan":
            with case.plan(ts, out=o) as plan:
                plan.run(None, s1, sync=True)
        elif how == "one-call general path":          # numpy-scalar scalars take the general path
            case.call(ts, out=o, stream=s1, sync=True, scalars=[np.float32(v) for v in case.scalar_values])
        else:
            case.call(ts, out=o, stream=s1, sync=True)
        assert s1._held() == 0                        # s1 itself was waited for
        np.testing.assert_array_equal(_read_raw(hg, o), want)
        s2.synchronize()
        np.testing.assert_array_equal(o2.numpy(), want)
        for t in ts + [o, o2]:
            t.close()


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_reading_an_input_does_not_lose_the_stream_the_output_waits_for(hg, case):
    with hg.Device(0) as dev, dev.create_stream() as s:
        ts = case.tensors(hg, dev)
        want = case.expected()
        o = hg.empty(want.shape, want.dtype, dev)
        with case.plan(ts, out=o, repeatable=True) as plan:
            plan.run(None, s)
            ts[0].numpy()                             # waits for s through the input's storage
            plan.run(None, s, sync=True)
        np.testing.assert_array_equal(o.numpy(), want)
        s.synchronize()
        for t in ts + [o]:
            t.close()


@pytest.mark.parametrize("case", SCALAR_CASES, ids=repr)
def test_one_calls_survive_the_bound_scalar_cache_being_released_concurrently(hg, case):
    """release_cached_scalars() in a loop in another thread while one-calls take their scalars
    from the cache, with and without sync: no error, no leak, right results."""
    import sys
    from pyacl_hardgrad.scalar import release_cached_scalars
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    errors, stop = [], threading.Event()
    scalars = [float(v) for v in case.scalar_values]
    try:
        with hg.Device(0) as dev, dev.create_stream() as s:
            ts = case.tensors(hg, dev)
            want = case.expected(scalars=scalars)
            o = hg.empty(want.shape, want.dtype, dev)

            def closer():
                while not stop.is_set():
                    release_cached_scalars()
            t = threading.Thread(target=closer)
            t.start()
            try:
                for i in range(5000):
                    try:
                        case.call(ts, out=o, stream=s, sync=bool(i & 1), scalars=scalars)
                    except Exception as exc:      # collected, reported below
                        errors.append(repr(exc))
                        if len(errors) > 5:
                            break
            finally:
                stop.set()
                t.join()
            s.synchronize()
            np.testing.assert_array_equal(o.numpy(), want)
            assert refs(*ts, o) == [1] * (len(ts) + 1)
            for tt in ts + [o]:
                tt.close()
    finally:
        sys.setswitchinterval(old)
    assert not errors, errors
    release_cached_scalars()
    gc.collect()
    assert hg.live_counts()["scalars"] == 0
