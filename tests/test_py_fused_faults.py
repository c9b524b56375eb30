"""Error paths of the generic one-calls and plan runs, with failures injected between the binding
and the embedded runtime (tests/c/fault_shim.c bound first by lib.hgb_bind): a failed launch
releases everything and names the operator; a failed wait names aclrtSynchronizeStream and keeps
the resources held until a later successful synchronize()."""
import ctypes
import gc
import os
import subprocess

import numpy as np
import pytest

import py_op_cases
from py_op_cases import refs

CASES = py_op_cases.cases()
SCALAR_CASES = py_op_cases.with_scalars()
SHIM_SOURCE = os.path.join(os.path.dirname(__file__), "c", "fault_shim.c")


@pytest.fixture(scope="module")
def shim_library(tmp_path_factory, toolchain):
    work = tmp_path_factory.mktemp("fault_shim")
    out = work / "libfault_shim.so"
    # the shim plus one wrapper per discovered operator, each checked against its header
    headers = sorted((toolchain.include_dir / "aclnnop").glob("*.h"))
    names = sorted({c.spec.name for c in CASES})
    src = work / "fault_shim_ops.c"
    src.write_text("".join(f'#include "aclnnop/{h.name}"\n' for h in headers) + f'#include "{SHIM_SOURCE}"\n'
                   + "".join(f"FAULT_PHASE2({n})\n" for n in names))
    cmd = [os.environ.get("CC", "cc"), "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC",
           f"-I{toolchain.include_dir}", str(src), "-o", str(out), "-ldl"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture
def faults(hg, shim_library):
    """The shim bound in front of the embedded libraries for one test, then unbound."""
    from pyacl_hardgrad._backend import embedded_libraries
    from pyacl_hardgrad._binding import BACKEND
    from pyacl_hardgrad._cffi_acl import ffi, lib
    if BACKEND.name != "sim":
        pytest.skip("fault injection wraps the embedded runtime")
    dev = hg.Device(0)          # the binding is bound on first use: rebind after that
    handles = [lib.hgb_open(str(p).encode()) for p in embedded_libraries()]
    shim = lib.hgb_open(str(shim_library).encode())
    assert shim != ffi.NULL and all(h != ffi.NULL for h in handles)
    c = ctypes.CDLL(str(shim_library))
    c.fault_init(ctypes.c_void_p(int(ffi.cast("uintptr_t", handles[0]))),
                 ctypes.c_void_p(int(ffi.cast("uintptr_t", handles[2]))))
    assert lib.hgb_bind(ffi.new("void *[]", [shim] + handles), 4) == 0
    try:
        yield c
    finally:
        _set(c, "fault_fail_sync", 0)
        _set(c, "fault_fail_launch", 0)
        assert lib.hgb_bind(ffi.new("void *[]", handles), 3) == 0
        dev.close()


def _set(c, name, value):
    ctypes.c_int.in_dll(c, name).value = value


def _counts(hg):
    gc.collect()
    counts = hg.live_counts()
    counts.pop("scalars")       # the one-call cache's bound Scalars
    return counts


@pytest.mark.parametrize("sync", [False, True])
@pytest.mark.parametrize("view", [False, True], ids=["contiguous", "workspace"])
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_failed_launch_releases_everything_and_names_the_operator(hg, faults, case, sync, view):
    want = case.expected()
    before = _counts(hg)
    with hg.Device(0) as dev, dev.create_stream() as s:
        o = hg.empty(want.shape, want.dtype, dev)
        bases = [hg.Tensor(np.repeat(a, 2), dev) for a in case.host] if view else []
        ts = [b[::2] for b in bases] if view else case.tensors(hg, dev)
        _set(faults, "fault_fail_launch", 1)
        with pytest.raises(hg.AclError) as info:
            case.call(ts, out=o, stream=s, sync=sync)
        with pytest.raises(hg.AclError) as made:          # with the output allocated by the call
            case.call(ts, stream=s, sync=sync)
        _set(faults, "fault_fail_launch", 0)
        for e in (info.value, made.value):
            assert e.code == 561103
            assert case.spec.name in str(e) and "GetWorkspaceSize" not in str(e)
        assert s._held() == 0 and refs(*ts, o) == [1] * (len(ts) + 1)
        for t in ts + [o] + bases:
            t.close()
    assert _counts(hg) == before


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_failed_wait_keeps_the_resources_until_a_later_synchronize(hg, faults, case):
    want = case.expected()
    before = _counts(hg)
    with hg.Device(0) as dev, dev.create_stream() as s:
        ts = case.tensors(hg, dev)
        o = hg.empty(want.shape, want.dtype, dev)
        _set(faults, "fault_fail_sync", 1)
        with pytest.raises(hg.AclError, match="aclrtSynchronizeStream"):
            case.call(ts, out=o, stream=s, sync=True)
        assert s._held() == case.n_handles and refs(*ts, o) == [2] * (len(ts) + 1)
        s.synchronize()
        assert s._held() == 0 and refs(*ts, o) == [1] * (len(ts) + 1)
        np.testing.assert_array_equal(o.numpy(), want)
        bases = [hg.Tensor(np.repeat(a, 2), dev) for a in case.host]
        views = [b[::2] for b in bases]
        _set(faults, "fault_fail_sync", 1)
        with pytest.raises(hg.AclError, match="aclrtSynchronizeStream"):
            case.call(views, out=o, stream=s, sync=True)
        assert refs(*views, o) == [2] * (len(views) + 1)
        s.synchronize()
        assert s._held() == 0 and refs(*views, o) == [1] * (len(views) + 1)
        np.testing.assert_array_equal(o.numpy(), want)
        for t in ts + [o] + views + bases:
            t.close()
    assert _counts(hg) == before


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_plan_reports_a_failed_wait_and_a_failed_launch_and_goes_on(hg, faults, case):
    want = case.expected()
    before = _counts(hg)
    with hg.Device(0) as dev, dev.create_stream() as s:
        ts = case.tensors(hg, dev)
        o = hg.empty(want.shape, want.dtype, dev)
        with case.plan(ts, out=o, repeatable=True) as plan:
            plan.run(None, s, sync=True)
            _set(faults, "fault_fail_sync", 1)
            with pytest.raises(hg.AclError, match="aclrtSynchronizeStream"):
                plan.run(None, s, sync=True)
            _set(faults, "fault_fail_launch", 1)
            with pytest.raises(hg.AclError, match=case.spec.name):
                plan.run(None, s, sync=True)
            _set(faults, "fault_fail_launch", 0)
            assert plan.runs == 2
            plan.run(None, s, sync=True)
        with case.plan(ts, out=o) as plan:                 # one-shot: a failed launch did not consume it
            _set(faults, "fault_fail_launch", 1)
            with pytest.raises(hg.AclError, match=case.spec.name):
                plan.run(None, s)
            _set(faults, "fault_fail_launch", 0)
            plan.run(None, s, sync=True)
            with pytest.raises(hg.PlanConsumedError):
                plan.run(None, s)
        s.synchronize()
        np.testing.assert_array_equal(o.numpy(), want)
        for t in ts + [o]:
            t.close()
    assert _counts(hg) == before


@pytest.mark.parametrize("case", SCALAR_CASES, ids=repr)
def test_fast_and_general_paths_report_a_failed_launch_alike(hg, faults, case):
    """Scalar objects keep the fast path; numpy float32 scalars take the general path."""
    want = case.expected()
    before = _counts(hg)
    with hg.Device(0) as dev, dev.create_stream() as s:
        ts = case.tensors(hg, dev)
        o = hg.empty(want.shape, want.dtype, dev)
        scalars = [hg.Scalar(v) for v in case.scalar_values]
        _set(faults, "fault_fail_launch", 1)
        with pytest.raises(hg.AclError) as fast:
            case.call(ts, out=o, stream=s, sync=True, scalars=scalars)
        with pytest.raises(hg.AclError) as general:
            case.call(ts, out=o, stream=s, sync=True, scalars=[np.float32(v) for v in case.scalar_values])
        _set(faults, "fault_fail_launch", 0)
        assert type(fast.value) is type(general.value) and fast.value.code == general.value.code
        assert str(fast.value) == str(general.value)
        s.synchronize()
        assert refs(*ts, o, *scalars) == [1] * (len(ts) + 1 + len(scalars))
        for t in ts + [o] + scalars:
            t.close()
    assert _counts(hg) == before


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_host_array_call_reports_a_failed_launch_and_a_failed_wait_and_leaks_nothing(hg, faults, case):
    """The host-array call stages its tensors in C: a failed launch releases them at once; a
    failed wait leaves them with the stream until a later successful synchronize()."""
    want = case.expected()
    before = _counts(hg)
    with hg.Device(0) as dev, dev.create_stream() as s:
        for _ in range(2):                 # the general host path, then the generated branch
            _set(faults, "fault_fail_launch", 1)
            with pytest.raises(hg.AclError) as info:
                case.call(case.host, stream=s)
            _set(faults, "fault_fail_launch", 0)
            assert info.value.code == 561103 and case.spec.name in str(info.value)
            assert s._held() == 0 and _counts(hg) == before | {"streams": before["streams"] + 1}
        for _ in range(2):
            _set(faults, "fault_fail_sync", 1)
            with pytest.raises(hg.AclError, match="aclrtSynchronizeStream"):
                case.call(case.host, stream=s)
            assert s._held() == case.n_handles     # the staged tensors and the Scalars, queued
            s.synchronize()
            assert s._held() == 0
        np.testing.assert_array_equal(case.call(case.host, stream=s), want)
    assert _counts(hg) == before
