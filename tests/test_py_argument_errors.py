"""Bad arguments fail up front with TypeError/ValueError naming the argument and the rule,
never OverflowError/AttributeError/BufferError from deep inside cffi, and leak nothing."""
import gc

import numpy as np
import pytest


def _raises(exc, match, fn, *args, **kw):
    with pytest.raises(exc, match=match):
        fn(*args, **kw)


def _live(hg):
    gc.collect()
    return hg.live_counts()


@pytest.fixture
def dev(hg):
    with hg.Device(0) as d:
        yield d


def test_device_id_out_of_int32_range_names_the_argument(hg):
    _raises(ValueError, r"device_id must be in \[0, 2147483647\], got 2147483648", hg.Device, 2**31)
    _raises(ValueError, r"device_id must be in .* got -1", hg.Device, -1)
    _raises(TypeError, r"device_id must be an integer, got str", hg.Device, "0")
    _raises(TypeError, r"device_id must be an integer, got float", hg.Device, 0.0)


def test_mem_info_attribute_outside_the_enum_range_names_the_argument(hg, dev):
    _raises(ValueError, r"attr must be in \[0, 4294967295\], got -1", dev.mem_info, -1)
    _raises(ValueError, r"attr must be in \[0, 4294967295\], got 1099511627776", dev.mem_info, 2**40)
    _raises(TypeError, r"attr must be an integer, got float", dev.mem_info, 1.0)
    _raises(TypeError, r"attr must be an integer, got bool", dev.mem_info, True)
    free, total = dev.mem_info(hg.lib.ACL_HBM_MEM)          # a valid value still answers
    assert 0 <= free <= total and total > 0
    with pytest.raises(hg.AclError):                         # in range, not an aclrtMemAttr: the runtime says so
        dev.mem_info(99)


def test_allocation_size_beyond_int64_is_a_value_error(dev):
    _raises(ValueError, r"nbytes must be in \[0, 9223372036854775807\], got 18446744073709551616",
            dev.allocate, 2**64)
    _raises(ValueError, r"nbytes must be in .* got -1", dev.allocate, -1)
    _raises(TypeError, r"nbytes must be an integer, got NoneType", dev.allocate, None)


def test_empty_with_more_bytes_than_addressable_names_shape_and_bytes(hg, dev):
    _raises(ValueError, r"shape \(4611686018427387904, 8\) of float32 needs 147573952589676412928 bytes",
            hg.empty, (2**62, 8), "float32", dev)
    _raises(ValueError, r"shape\[1\] must be in \[0, 9223372036854775807\], got -2", hg.empty, (2, -2), "float32", dev)
    _raises(TypeError, r"shape\[0\] must be an integer, got float", hg.empty, (2.5,), "float32", dev)


def test_view_with_strides_beyond_int64_is_a_value_error(hg, dev):
    with hg.zeros((4,), "float32", dev) as t:
        _raises(ValueError, r"strides\[0\] must be in", t.view, (2,), (2**63,), 0)
        _raises(ValueError, r"spans more than 2\*\*63 - 1 bytes", t.view, (3,), (2**62,), 0)
        _raises(ValueError, r"strides has 2 entries for 1 dimensions", t.view, (2,), (1, 1), 0)


def test_transpose_out_of_range_axis_raises_like_numpy(hg, dev):
    with hg.zeros((2, 3), "float32", dev) as t:
        with pytest.raises(np.exceptions.AxisError if hasattr(np, "exceptions") else np.AxisError,
                           match="axis 2 is out of bounds"):
            t.transpose(0, 2)
        with pytest.raises(IndexError):          # AxisError is an IndexError too, as in numpy
            t.transpose(5, 0)
        with pytest.raises(ValueError, match="not a permutation"):
            t.transpose(0, 0)
        v = t.transpose(-1, -2)                  # negative axes are fine, as in numpy
        assert v.shape == (3, 2)
        v.close()


def test_copy_to_host_into_read_only_buffer_is_a_type_error(dev):
    with dev.allocate(8) as m:
        _raises(TypeError, r"dst must be a writable buffer .* got bytes \(read-only\)", m.copy_to_host, bytes(8))
        ro = np.zeros(2, np.float32)
        ro.flags.writeable = False
        _raises(TypeError, r"dst must be a writable buffer .* read-only numpy array", m.copy_to_host, ro)
        _raises(TypeError, r"src must be a buffer .* got int", m.copy_from_host, 5)


def test_copy_from_device_checks_type_and_closed_source(dev):
    with dev.allocate(8) as m:
        _raises(TypeError, r"src must be a DeviceMemory, got NoneType", m.copy_from_device, None)
        other = dev.allocate(8)
        other.close()
        with pytest.raises(Exception, match="closed") as ei:
            m.copy_from_device(other, nbytes=0)      # used to return silently
        assert type(ei.value).__name__ == "ClosedError"


def test_copies_and_memset_name_bad_offsets_and_values(dev):
    with dev.allocate(8) as m:
        _raises(ValueError, r"offset must be >= 0, got -1", m.memset, 0, 4, -1)
        _raises(ValueError, r"value must be in \[0, 255\], got 256", m.memset, 256)
        _raises(ValueError, r"range \[4, 12\) outside the 8-byte allocation", m.memset, 0, 8, 4)
        _raises(TypeError, r"stream must be a Stream or None, got int", m.copy_from_host, bytes(8), stream=5)


def test_stream_and_event_arguments_are_type_checked(dev):
    with dev.create_stream() as s, dev.create_event() as e:
        _raises(TypeError, r"event must be an Event, got NoneType", s.wait, None)
        _raises(TypeError, r"stream must be a Stream, got int", e.record, 5)
        _raises(TypeError, r"end must be an Event, got NoneType", e.elapsed_time, None)
        _raises(TypeError, r"event must be an Event, got str", s.record, "x")


def test_record_on_closed_stream_creates_no_event(hg, dev):
    from pyacl_hardgrad import live_counts
    s = dev.create_stream()
    s.close()
    before = live_counts()
    for _ in range(3):
        with pytest.raises(hg.ClosedError):
            s.record()
    assert live_counts() == before


@pytest.mark.parametrize("value, dtype, exc, match", [
    (None, "float32", TypeError, r"value must be a number, got NoneType"),
    ([1, 2], "float32", TypeError, r"value must be a single number, got an array-like of shape \(2,\)"),
    ("0.5", "float32", TypeError, r"value must be a number, got str"),
    (b"0.5", "float32", TypeError, r"value must be a number, got bytes"),
    (2**70, "int64", ValueError, r"value 1180591620717411303424 is out of range for int64"),
    (-1, "uint8", ValueError, r"value -1 is out of range for uint8 \[0, 255\]"),
    (1.5, "int32", ValueError, r"value 1.5 is not an integer"),
    (10**400, "float32", ValueError, r"does not fit in a float"),
])
def test_scalar_rejects_values_its_dtype_cannot_hold(hg, value, dtype, exc, match):
    from pyacl_hardgrad import live_counts
    before = live_counts()
    _raises(exc, match, hg.Scalar, value, dtype)
    assert live_counts() == before


def test_scalar_keeps_exact_integers_and_floats(hg):
    with hg.Scalar(2**63 - 1, "int64") as s, hg.Scalar(255, "uint8") as u, hg.Scalar(np.float16(0.5), "float16") as h:
        assert int(s.value) == 2**63 - 1 and int(u.value) == 255 and float(h) == 0.5


def test_from_device_pointer_rejects_addresses_outside_64_bits(hg, dev):
    _raises(ValueError, r"ptr must be in \[0, 18446744073709551615\], got -1",
            hg.Tensor.from_device_pointer, -1, (2,), "float32", device=dev)
    _raises(ValueError, r"ptr must be in .* got 18446744073709551680",
            hg.Tensor.from_device_pointer, 2**64 + 64, (2,), "float32", device=dev)
    _raises(ValueError, r"reaches past the end of the address space",
            hg.Tensor.from_device_pointer, 2**64 - 4, (2,), "float32", device=dev)
    _raises(TypeError, r"ptr must be an integer, got str", hg.Tensor.from_device_pointer, "0x10", (2,), device=dev)


def test_from_device_pointer_rejects_misaligned_addresses(hg, dev):
    with dev.allocate(64) as m:
        _raises(ValueError, r"is not aligned to the 4-byte elements of float32",
                hg.Tensor.from_device_pointer, int(m) + 1, (4,), "float32", owner=m)
        _raises(ValueError, r"is not aligned to the 2-byte elements of float16",
                hg.Tensor.from_device_pointer, int(m) + 3, (4,), "float16", owner=m)
        t = hg.Tensor.from_device_pointer(int(m) + 2, (4,), "float16", owner=m)   # aligned: fine
        t.close()


_CLOSE_DURING_COPY = r"""
import threading, time, numpy as np, pyacl_hardgrad as hg
outcomes = {"ok": 0, "closed": 0}
with hg.Device(0) as dev:
    for i in range(60):
        t = hg.Tensor(np.ones(1 << 20, np.float32), dev)
        m = dev.allocate(4 << 20)
        go = threading.Event()
        def closer():
            go.wait()
            time.sleep((i % 6) * 20e-6)
            t.close()
            m.close()
        th = threading.Thread(target=closer)
        th.start()
        go.set()
        for fn in (t.numpy, lambda: m.copy_to_host(), lambda: m.memset(1), lambda: m.copy_from_host(bytes(4 << 20))):
            try:
                fn()
                outcomes["ok"] += 1
            except hg.ClosedError:
                outcomes["closed"] += 1
        th.join()
print(outcomes["ok"], outcomes["closed"], hg.live_counts())
"""


def test_closing_memory_while_another_thread_copies_it_never_crashes(hg, tmp_path):
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-c", _CLOSE_DURING_COPY], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    ok, closed, *_ = proc.stdout.split()
    assert int(ok) + int(closed) == 240


def test_reading_a_result_while_another_thread_closes_its_stream_waits_for_the_work(hg):
    from py_op_cases import cases
    case = cases()[0]                    # any discovered operator of the tensors-scalars-out shape
    n = 1 << 22
    grad = np.ones(n, np.float32)
    x = np.full(n, 0.5, np.float32)
    want = case.expected(host=[(grad, x)[i % 2] for i in range(len(case.tensor_params))])
    import threading
    with hg.Device(0) as dev, hg.Tensor(grad, dev) as g, hg.Tensor(x, dev) as t:
        for _ in range(5):
            s = dev.create_stream()
            out = case.call([(g, t)[i % 2] for i in range(len(case.tensor_params))], stream=s)
            closer = threading.Thread(target=s.close)
            closer.start()
            while not s.closed:          # the close has begun (its drain may still be running)
                pass
            got = out.numpy()
            closer.join()
            out.close()
            assert np.array_equal(got, want)


def test_from_device_pointer_checks_the_allocation_registry(hg, dev):
    if not hg.BACKEND.is_embedded:
        pytest.skip("the registry is the embedded runtime's")
    host = np.zeros(16, np.float32)
    _raises(ValueError, r"is in no live device allocation \(aclrtMalloc\)",
            hg.Tensor.from_device_pointer, host.ctypes.data, (4,), "float32", device=dev)
    # an exact aclrtMalloc (a policy bypasses the caching allocator, whose blocks are rounded up
    # and stay registered while cached)
    with dev.allocate(64, policy=hg.lib.ACL_MEM_MALLOC_HUGE_FIRST) as m:
        _raises(ValueError, r"reaches 16 bytes past the end of its 64-byte allocation",
                hg.Tensor.from_device_pointer, int(m) + 16, (16,), "float32", device=dev)
        freed = int(m)
    _raises(ValueError, r"in no live device allocation", hg.Tensor.from_device_pointer, freed, (4,), device=dev)
    from pyacl_hardgrad import ffi, lib
    p = ffi.new("void **")
    assert lib.aclrtMallocHost(p, 64) == 0
    try:
        _raises(ValueError, r"is in host memory \(aclrtMallocHost",
                hg.Tensor.from_device_pointer, int(ffi.cast("uintptr_t", p[0])), (4,), device=dev)
    finally:
        lib.aclrtFreeHost(p[0])


def test_from_device_pointer_bad_pointer_or_offset_does_not_leak_the_owner(hg):
    with hg.Device(0) as dev:
        before = _live(hg)
        mem = dev.allocate(64)
        with pytest.raises((TypeError, ValueError)):
            hg.Tensor.from_device_pointer("not an address", (4,), owner=mem)
        with pytest.raises((TypeError, ValueError)):
            hg.Tensor.from_device_pointer(int(mem), (4,), offset="x", owner=mem)
        mem.close()
        assert _live(hg) == before          # the owner's memory was freed by its close


def test_from_device_pointer_view_must_fit_in_its_device_memory_owner(hg):
    with hg.Device(0) as dev, dev.allocate(64) as mem:
        mem.copy_from_host(np.zeros(16, np.float32))       # read back below
        with pytest.raises(ValueError, match="64-byte"):
            hg.Tensor.from_device_pointer(int(mem), (1000,), owner=mem)
        with pytest.raises(ValueError, match="64-byte"):
            hg.Tensor.from_device_pointer(int(mem) + 32, (8, 4), "float16", owner=mem)   # 32 bytes past the end
        with pytest.raises(ValueError, match="64-byte"):
            hg.Tensor.from_device_pointer(int(mem), (2,), strides=(1,), offset=15, owner=mem)
        base = hg.zeros((4,), "float32", dev)
        with pytest.raises(ValueError, match="16-byte"):
            hg.Tensor.from_device_pointer(base.data_ptr, (5,), owner=base)
        base.close()
        # exactly filling the allocation is fine, also from an inner address
        with hg.Tensor.from_device_pointer(int(mem), (16,), owner=mem) as t:
            assert t.numpy().shape == (16,)
        with hg.Tensor.from_device_pointer(int(mem) + 32, (8,), owner=mem) as t:
            assert t.shape == (8,)
