"""The guarantees of docs/errors.md that other test files do not pin: a failed creation leaves
nothing behind, a failing release is a CleanupWarning and never an exception of close(), a closed
object refuses use but keeps what was recorded at its creation, and a process that exits with
objects still open ends cleanly."""
from __future__ import annotations

import gc
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, TypeVar

import numpy as np
import pytest

import py_op_cases
from hg_checkmode import without_clean_summary


@pytest.fixture(autouse=True)
def _embedded(hg: ModuleType) -> None:
    if not hg.BACKEND.is_embedded:
        pytest.skip("the live counts and the failures made here need the embedded runtime")


def _state(hg: ModuleType) -> tuple[dict[str, int], int]:
    gc.collect()
    return hg.live_counts(), hg.runtime_reference_count()


E = TypeVar("E", bound=BaseException)


def _fails(exc: type[E], fn: Callable[[], Any]) -> E:
    with pytest.raises(exc) as info:
        fn()
    return info.value


def test_failed_creations_leave_the_live_counts_and_the_runtime_holders_unchanged(hg: ModuleType) -> None:
    hg.release_defaults()
    before = _state(hg)
    bad_id = hg.device_count()
    assert _fails(hg.RuntimeApiError, lambda: hg.Device(bad_id)).function == "aclrtSetDevice"
    _fails(hg.RuntimeApiError, lambda: hg.Context(bad_id))
    _fails(ValueError, lambda: hg.Device(-1))
    assert _state(hg) == before

    case: Any = py_op_cases.cases()[0]
    with hg.Device(0) as dev:
        inside = _state(hg)
        failures = hg.memory_stats(dev)["alloc_failures"]
        too_big = 2 * dev.mem_info()[1]
        err = _fails(hg.RuntimeApiError, lambda: dev.allocate(too_big))
        assert (err.code, err.function) == (207001, "aclrtMalloc")
        _fails(hg.RuntimeApiError, lambda: dev.allocate(too_big, 0))
        _fails(hg.RuntimeApiError, lambda: hg.empty((too_big // 4,), "float32", dev))
        assert hg.memory_stats(dev)["alloc_failures"] > failures
        _fails(TypeError, lambda: hg.Tensor(np.array(["a"]), dev))
        _fails(ValueError, lambda: hg.Scalar(1.5, "int32"))
        with dev.create_stream() as s:
            s.close()
            _fails(hg.ClosedError, lambda: s.record())
        assert _state(hg) == inside

        # an operator refusing its arguments in phase 1: the output a one-call allocated and
        # everything the call and the plan held are released (Scalars made here: no cache)
        scalars = [hg.Scalar(v) for v in case.scalar_values]
        ts = [hg.zeros((2, 2), "uint16", dev) for _ in case.tensor_params]
        dev.default_stream                             # made on first use: not the call's
        inside = _state(hg)
        for sync in (False, True):
            refused = _fails(hg.AclnnParamError, lambda: case.call(ts, scalars=scalars, sync=sync))
            assert refused.function == f"{case.spec.name}GetWorkspaceSize"
            assert isinstance(refused, ValueError)
        _fails(hg.AclnnParamError, lambda: case.plan_cls(*ts, *scalars))
        assert _state(hg) == inside
        for obj in ts + scalars:
            obj.close()
    hg.release_defaults()
    assert _state(hg) == before


def test_closed_objects_refuse_use_and_keep_what_was_recorded_at_creation(hg: ModuleType) -> None:
    with hg.Device(0) as dev:
        t = hg.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3), dev)
        m = dev.allocate(16)
        sc = hg.Scalar(2.5)
        for obj in (t, m, sc):
            obj.close()
            obj.close()
        assert (t.shape, t.dtype, t.strides, m.nbytes, sc.value) == ((2, 3), np.float32, (3, 1), 16, 2.5)
        assert [repr(o) for o in (t, m)] == ["<Tensor closed>", "<DeviceMemory closed>"]
        for use in (lambda: t.numpy(), lambda: t.data_ptr, lambda: t[0], lambda: t.__enter__(),
                    lambda: int(m), lambda: m.ptr, lambda: m.copy_to_host(), lambda: sc.handle):
            _fails(hg.ClosedError, use)
        assert "Tensor self of" in str(_fails(hg.ClosedError, lambda: hg.hardsigmoid(t)))
    assert dev.closed
    for use in (dev.create_stream, lambda: dev.allocate(1), lambda: dev.default_stream, dev.synchronize,
                dev.mem_info, lambda: dev.soc_name, dev.make_current):
        _fails(hg.ClosedError, use)
    assert dev.memory_stats()["device"] == 0          # statistics stay readable


def _close_warnings(close: Callable[[], None]) -> list[str]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        close()
    assert all(issubclass(w.category, RuntimeWarning) for w in seen)
    return [str(w.message) for w in seen if w.category.__name__ == "CleanupWarning"]


@pytest.mark.check_findings("double-free")
def test_a_failing_release_is_a_cleanup_warning_naming_only_its_own_call(hg: ModuleType) -> None:
    from pyacl_hardgrad import acl

    before = _state(hg)
    with hg.Device(0) as dev:
        handle, ret = acl.rt.create_context(0)            # also current on this thread
        assert ret == 0
        ctx = hg.Context.from_handle(handle, dev, own=True)
        assert acl.rt.destroy_context(handle) == 0         # behind the object's back
        (text,) = _close_warnings(ctx.close)
        assert text.startswith("aclrtDestroyContext failed: ACL_ERROR_RT_INVALID_HANDLE (107017)")
        assert "\n" not in text, text                      # no earlier call's message in it
        assert ctx.closed
        dev.make_current()

        ptr, ret = acl.rt.malloc(64, 0)
        mem = hg.DeviceMemory.from_handle(ptr, 64, dev, own=True)
        assert acl.rt.free(ptr) == 0
        (text,) = _close_warnings(mem.close)
        assert text.startswith("aclrtFree failed: ACL_ERROR_RT_PARAM_INVALID (107000)"), text

        ptr, ret = acl.rt.malloc_host(64)
        host = hg.HostMemory.from_handle(ptr, 64, own=True)
        assert acl.rt.free_host(ptr) == 0
        (text,) = _close_warnings(host.close)
        assert text.startswith("aclrtFreeHost failed: ACL_ERROR_RT_PARAM_INVALID (107000)"), text

        # with CleanupWarning made an error, close() still does not raise
        ptr, ret = acl.rt.malloc(64, 0)
        mem = hg.DeviceMemory.from_handle(ptr, 64, dev, own=True)
        acl.rt.free(ptr)
        with warnings.catch_warnings():
            warnings.simplefilter("error", hg.CleanupWarning)
            mem.close()
        assert mem.closed
    hg.release_defaults()
    assert _state(hg) == before


_EXIT_SCRIPT = """
import atexit, sys
import numpy as np

def report():
    import pyacl_hardgrad as hg
    print("end", hg.runtime_reference_count(), hg.live_counts()["hostAllocations"],
          sum(hg.live_counts().values()), flush=True)

atexit.register(report)          # registered first, so it runs after the package's exit handlers
import pyacl_hardgrad as hg

dev = hg.Device(0)
s = dev.create_stream()
t = hg.Tensor(np.ones(1000, np.float32), dev)
plan = hg.ops.operators()[sys.argv[2]].plan(*[t] * int(sys.argv[3]), repeatable=True)
plan.run(stream=s)
mem = dev.allocate(1 << 20)
host = hg.HostMemory(64)
if sys.argv[1] == "close":
    for obj in (mem, host, plan.out, plan, t, s, dev):
        obj.close()
    hg.release_defaults()
print("exiting", flush=True)
"""


@pytest.mark.parametrize("how", ["open", "close"])
def test_a_process_exiting_with_objects_open_ends_cleanly(hg: ModuleType, tmp_path: Path, how: str) -> None:
    case: Any = next(c for c in py_op_cases.cases() if not c.scalar_params or all(
        p.has_default for p in c.scalar_params))
    script = tmp_path / "exit.py"
    script.write_text(textwrap.dedent(_EXIT_SCRIPT))
    proc = subprocess.run([sys.executable, str(script), how, case.spec.name, str(len(case.tensor_params))],
                          capture_output=True, text=True, cwd=str(tmp_path), timeout=120)
    assert proc.returncode == 0 and without_clean_summary(proc.stderr) == "", proc.stderr
    lines = proc.stdout.split()
    assert lines[0] == "exiting" and lines[1] == "end", proc.stdout
    holders, host_allocations, alive = (int(x) for x in lines[2:5])
    assert host_allocations == 0                       # HostMemory: released by the exit handlers
    if how == "close":
        assert (holders, alive) == (0, 0)              # aclFinalize has run, nothing is alive
    else:
        assert holders > 0 and alive > 0               # objects still referenced stay as they are
