"""Error paths of the fused one-calls and plan runs, with failures injected between the binding
and the embedded runtime (tests/c/fault_shim.c bound first by lib.hgb_bind): a failed launch
releases everything and names the operator; a failed wait names aclrtSynchronizeStream and keeps
the resources held until a later successful synchronize()."""
import ctypes
import gc
import os
import subprocess

import numpy as np
import pytest

G = np.arange(8, dtype=np.float32)
X = np.array([1, 1, 1, 2, 1, 2, 3, 3], np.float32)
HT_EXPECTED = np.array([0, 0, 0, 3, 0, 5, 0, 0], np.float32)
SHIM_SOURCE = os.path.join(os.path.dirname(__file__), "c", "fault_shim.c")


@pytest.fixture(scope="module")
def shim_library(tmp_path_factory, toolchain):
    out = tmp_path_factory.mktemp("fault_shim") / "libfault_shim.so"
    cmd = [os.environ.get("CC", "cc"), "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC",
           f"-I{toolchain.include_dir}", SHIM_SOURCE, "-o", str(out), "-ldl"]
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


def _refs(*objs):
    return [o._res._refs for o in objs]


def _counts(hg):
    gc.collect()
    counts = hg.live_counts()
    counts.pop("scalars")       # the one-call cache's bound Scalars
    return counts


@pytest.mark.parametrize("sync", [False, True])
@pytest.mark.parametrize("view", [False, True], ids=["contiguous", "workspace"])
def test_failed_launch_releases_everything_and_names_the_operator(hg, faults, sync, view):
    before = _counts(hg)
    with hg.Device(0) as dev, dev.create_stream() as s:
        g, o = hg.Tensor(G, dev), hg.empty((8,), "float32", dev)
        xb = hg.Tensor(np.repeat(X, 2), dev) if view else None
        x = xb[::2] if view else hg.Tensor(X, dev)
        _set(faults, "fault_fail_launch", 1)
        with pytest.raises(hg.AclError) as info:
            hg.hardtanh_backward(g, x, 1.2, 2.4, out=o, stream=s, sync=sync)
        _set(faults, "fault_fail_launch", 0)
        assert info.value.code == 561103
        assert "aclnnHardtanhBackward" in str(info.value) and "GetWorkspaceSize" not in str(info.value)
        assert s._pending == [] and _refs(g, x, o) == [1, 1, 1]
        for t in (g, x, o) + ((xb,) if view else ()):
            t.close()
    assert _counts(hg) == before


def test_failed_wait_keeps_the_resources_until_a_later_synchronize(hg, faults):
    before = _counts(hg)
    with hg.Device(0) as dev, dev.create_stream() as s:
        g, x, o = hg.Tensor(G, dev), hg.Tensor(X, dev), hg.empty((8,), "float32", dev)
        _set(faults, "fault_fail_sync", 1)
        with pytest.raises(hg.AclError, match="aclrtSynchronizeStream"):
            hg.hardtanh_backward(g, x, 1.2, 2.4, out=o, stream=s, sync=True)
        assert len(s._pending) == 1 and _refs(g, x, o) == [2, 2, 2]
        s.synchronize()
        assert s._pending == [] and _refs(g, x, o) == [1, 1, 1]
        np.testing.assert_array_equal(o.numpy(), HT_EXPECTED)
        _set(faults, "fault_fail_sync", 1)
        with pytest.raises(hg.AclError, match="aclrtSynchronizeStream"):
            hg.hardsigmoid_backward(g, x, out=o, stream=s, sync=True)
        assert _refs(g, x, o) == [2, 2, 2]
        s.synchronize()
        xb = hg.Tensor(np.repeat(X, 2), dev)
        xv = xb[::2]
        _set(faults, "fault_fail_sync", 1)
        with pytest.raises(hg.AclError, match="aclrtSynchronizeStream"):
            hg.hardtanh_backward(g, xv, 1.2, 2.4, out=o, stream=s, sync=True)
        assert _refs(g, xv, o) == [2, 2, 2]
        s.synchronize()
        assert s._pending == [] and _refs(g, xv, o) == [1, 1, 1]
        np.testing.assert_array_equal(o.numpy(), HT_EXPECTED)
        for t in (g, x, o, xv, xb):
            t.close()
    assert _counts(hg) == before


def test_pinned_plan_reports_a_failed_wait_and_a_failed_launch_and_goes_on(hg, faults):
    before = _counts(hg)
    with hg.Device(0) as dev, dev.create_stream() as s:
        g, x, o = hg.Tensor(G, dev), hg.Tensor(X, dev), hg.empty((8,), "float32", dev)
        with hg.HardtanhBackwardPlan(g, x, 1.2, 2.4, o, repeatable=True) as plan:
            plan.run(None, s, sync=True)
            _set(faults, "fault_fail_sync", 1)
            with pytest.raises(hg.AclError, match="aclrtSynchronizeStream"):
                plan.run(None, s, sync=True)
            _set(faults, "fault_fail_launch", 1)
            with pytest.raises(hg.AclError, match="aclnnHardtanhBackward"):
                plan.run(None, s, sync=True)
            _set(faults, "fault_fail_launch", 0)
            assert plan.runs == 2
            plan.run(None, s, sync=True)
        s.synchronize()
        np.testing.assert_array_equal(o.numpy(), HT_EXPECTED)
        for t in (g, x, o):
            t.close()
    assert _counts(hg) == before


def test_fast_and_general_paths_report_a_failed_launch_alike(hg, faults):
    """A Scalar bound keeps the fast path; a numpy float32 bound takes the plan path."""
    before = _counts(hg)
    with hg.Device(0) as dev, dev.create_stream() as s:
        g, x, o = hg.Tensor(G, dev), hg.Tensor(X, dev), hg.empty((8,), "float32", dev)
        lo = hg.Scalar(1.2)
        _set(faults, "fault_fail_launch", 1)
        with pytest.raises(hg.AclError) as fast:
            hg.hardtanh_backward(g, x, lo, 2.4, out=o, stream=s, sync=True)
        with pytest.raises(hg.AclError) as general:
            hg.hardtanh_backward(g, x, np.float32(1.2), 2.4, out=o, stream=s, sync=True)
        _set(faults, "fault_fail_launch", 0)
        assert type(fast.value) is type(general.value) and fast.value.code == general.value.code
        assert str(fast.value) == str(general.value)
        s.synchronize()
        assert _refs(g, x, o, lo) == [1, 1, 1, 1]
        for t in (g, x, o, lo):
            t.close()
    assert _counts(hg) == before
