"""Phase 1 checks every tensor's whole extent against the embedded runtime's allocation
registry and its element alignment, so no kernel reads or writes outside device memory
(on an NPU such a view fails at run time; here it is refused with 161002 up front)."""
import numpy as np
import pytest

ffi = lib = None


@pytest.fixture(autouse=True)
def _binding(hg):
    global ffi, lib
    ffi, lib = hg.ffi, hg.lib


def _status_and_message(fn, *args):
    st = fn(*args)
    msg = ffi.string(lib.aclGetRecentErrMsg()).decode() if st else ""
    return st, msg


@pytest.fixture
def device(hg):
    with hg.Device(0) as d:
        if not hg.BACKEND.is_embedded:
            pytest.skip("the allocation registry is the embedded runtime's")
        yield d


def _tensor(addr, n, dtype=None):
    dtype = lib.ACL_FLOAT if dtype is None else dtype
    dims = ffi.new("int64_t[]", [n])
    strides = ffi.new("int64_t[]", [1])
    t = lib.aclCreateTensor(dims, 1, dtype, strides, 0, lib.ACL_FORMAT_ND, dims, 1, ffi.cast("void *", addr))
    assert t != ffi.NULL
    return t


def _three_tensor_operator():
    """The first offered operator whose phase 1 takes two input tensors and one output tensor
    (nothing else but workspaceSize and executor), picked by signature shape."""
    from conftest import _import_installed
    for spec in _import_installed().ops.operators().values():
        kinds = [(p.kind, p.role) for p in spec.params]
        if [k for k, _ in kinds] == ["tensor", "tensor", "out"] and kinds[2][1] == "out":
            return spec
    pytest.skip("no operator takes two input tensors and one output")


@pytest.fixture(scope="module")
def three():
    spec = _three_tensor_operator()
    return spec.name, [p.cname for p in spec.params]


def _phase1(three, good, bad, position):
    """The phase 1 of the two-input, one-output operator with `bad` in `position` (0, 1: the
    inputs, 2: out)."""
    name, _ = three
    ts = [good, good, good]
    ts[position] = bad
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    st, msg = _status_and_message(getattr(lib, name + "GetWorkspaceSize"), ts[0], ts[1], ts[2], ws, ex)
    if st == 0:
        lib.aclDestroyAclOpExecutor(ex[0])
    return st, msg


# An allocation policy makes device.allocate one aclrtMalloc of exactly the size asked for: the
# runtime's own blocks, which these tests are about (the caching allocator rounds sizes up).
_EXACT = 0   # ACL_MEM_MALLOC_HUGE_FIRST


@pytest.mark.parametrize("position", [0, 1, 2])
def test_a_view_past_its_allocation_is_refused(device, three, position):
    name = three[1][position]
    with device.allocate(64, _EXACT) as m:
        good = _tensor(int(m), 16)
        bad = _tensor(int(m) + 32, 16)           # 16 floats from byte 32 of a 64-byte block
        try:
            assert _phase1(three, good, good, position) == (0, "")
            st, msg = _phase1(three, good, bad, position)
            assert st == lib.ACLNN_ERR_PARAM_INVALID
            assert f"{name}'s elements" in msg
            assert "reach 32 bytes past the end of their 64-byte device allocation" in msg
        finally:
            lib.aclDestroyTensor(good)
            lib.aclDestroyTensor(bad)


def test_memory_unknown_to_the_runtime_or_host_memory_is_refused(device, three):
    host = np.zeros(16, np.float32)
    p = ffi.new("void **")
    assert lib.aclrtMallocHost(p, 64) == 0
    with device.allocate(64) as m:
        good = _tensor(int(m), 16)
        unknown = _tensor(host.ctypes.data, 16)
        pinned = _tensor(int(ffi.cast("uintptr_t", p[0])), 16)
        try:
            st, msg = _phase1(three, good, unknown, 1)
            assert st == lib.ACLNN_ERR_PARAM_INVALID and "in no live device allocation (aclrtMalloc)" in msg
            st, msg = _phase1(three, good, pinned, 2)
            assert st == lib.ACLNN_ERR_PARAM_INVALID and "are in host memory (aclrtMallocHost" in msg
        finally:
            for t in (good, unknown, pinned):
                lib.aclDestroyTensor(t)
    lib.aclrtFreeHost(p[0])


def test_a_misaligned_view_is_refused_before_any_kernel_loads_it(device, three):
    with device.allocate(128) as m:
        good = _tensor(int(m), 16)
        odd = _tensor(int(m) + 2, 16)
        try:
            st, msg = _phase1(three, good, odd, 0)
            assert st == lib.ACLNN_ERR_PARAM_INVALID
            assert "data address" in msg and "is not aligned to its 4-byte DT_FLOAT elements" in msg
        finally:
            lib.aclDestroyTensor(good)
            lib.aclDestroyTensor(odd)


def test_query_allocation_reports_kind_device_and_block(device):
    info = ffi.new("hgAllocation *")
    with device.allocate(100, _EXACT) as m:
        assert lib.hgQueryAllocation(ffi.cast("void *", int(m) + 99), info) == 0
        assert (info.kind, info.deviceId, info.base, info.size) == (lib.HG_MEMORY_DEVICE, 0, int(m), 100)
        assert lib.hgQueryAllocation(ffi.cast("void *", int(m) + 100), info) == 0
        assert info.kind == lib.HG_MEMORY_UNKNOWN or info.base != int(m)
    assert lib.hgQueryAllocation(ffi.NULL, ffi.NULL) == lib.ACL_ERROR_INVALID_PARAM
