"""DLPack and NumPy 2 interop of Tensor: torch.from_dlpack / np.from_dlpack share the tensor's
memory and keep it alive past close(); hg.from_dlpack takes any producer; np.asarray(t,
copy=False) shares memory or raises, never copies silently.  The NPU branch (kDLExtDev) is
checked by making the module believe device memory is not host memory."""
from __future__ import annotations

import ctypes
import gc
import threading
import time

import numpy as np
import pytest

import pyacl_hardgrad as hg
from pyacl_hardgrad import _dlpack, _fastcall

torch = pytest.importorskip("torch")

KDLCPU, KDLEXTDEV = 1, 12

NUMPY_DTYPES = ["float32", "float16", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
                "uint32", "uint64", "bool", "complex64", "complex128"]
TORCH_DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
                "float64": torch.float64, "int8": torch.int8, "int16": torch.int16, "int32": torch.int32,
                "int64": torch.int64, "uint8": torch.uint8, "bool": torch.bool, "complex64": torch.complex64}


def _values(dtype: str, shape=(4, 6)) -> np.ndarray:
    n = int(np.prod(shape))
    if dtype == "bool":
        return (np.arange(n) % 3 == 0).reshape(shape)
    a = (np.arange(n) % 50 + 1).reshape(shape)
    return a.astype(hg.dtypes.to_numpy_dtype(dtype))


def _other(a: np.ndarray) -> np.ndarray:
    """Values of a's dtype that differ from a's everywhere."""
    return ~a if a.dtype == np.bool_ else (a + 1).astype(a.dtype)


def _ptr(a) -> int:
    if isinstance(a, np.ndarray):
        return a.__array_interface__["data"][0]
    return a.data_ptr()


def _capsule_name(cap) -> str:
    get = ctypes.pythonapi.PyCapsule_GetName
    get.restype, get.argtypes = ctypes.c_char_p, [ctypes.py_object]
    return get(cap).decode()


def _in_use() -> int:
    return hg.live_counts()["deviceAllocations"]


@pytest.fixture
def npu_branch(monkeypatch):
    """The module's view of a CANN backend: device memory is not host memory."""
    monkeypatch.setattr(_dlpack, "_device_is_host", lambda: False)


# -- export: torch and numpy share the tensor's memory -----------------------------------------------
def test_dlpack_device_is_cpu_on_the_embedded_runtime():
    with hg.Tensor(np.ones(3, np.float32)) as t:
        kind, ident = t.__dlpack_device__()
        assert (kind, ident) == (KDLCPU, 0) and kind is hg.DLDeviceType.kDLCPU


@pytest.mark.parametrize("dtype", list(TORCH_DTYPES))
def test_torch_from_dlpack_shares_memory_both_ways(dtype):
    ref = _values(dtype)
    with hg.Tensor(ref, dtype=dtype) as t:
        tt = torch.from_dlpack(t)
        assert tt.dtype == TORCH_DTYPES[dtype] and tuple(tt.shape) == t.shape
        assert tt.data_ptr() == t.data_ptr
        np.testing.assert_array_equal(tt.float().numpy() if dtype == "bfloat16" else tt.numpy(),
                                      ref.astype(np.float32) if dtype == "bfloat16" else ref)
        tt[1, 2] = tt[0, 0]                           # a write through torch ...
        assert t.numpy()[1, 2] == t.numpy()[0, 0]     # ... is the tensor's
        new = _other(ref)
        t.copy_from(new)                              # a write through the tensor ...
        got = tt.float().numpy() if dtype == "bfloat16" else tt.numpy()
        np.testing.assert_array_equal(got, new.astype(got.dtype))  # ... is torch's


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_numpy_from_dlpack_shares_memory_both_ways(dtype):
    ref = _values(dtype)
    with hg.Tensor(ref) as t:
        a = np.from_dlpack(t)
        assert a.dtype == ref.dtype and _ptr(a) == t.data_ptr and a.flags.writeable
        np.testing.assert_array_equal(a, ref)
        a[...] = _other(ref)
        np.testing.assert_array_equal(t.numpy(), _other(ref))
        t.copy_from(ref)
        np.testing.assert_array_equal(a, ref)


def _views(t):
    return {"columns": t[:, 1::2], "transposed": t.T, "rows offset": t[1:], "row tail": t[2, 3:],
            "element": t[1, 4], "empty": t[4:], "strided offset": t[1:, 2::3]}


@pytest.mark.parametrize("which", ["columns", "transposed", "rows offset", "row tail", "element", "empty",
                                   "strided offset"])
def test_views_export_their_strides_and_offset(which):
    ref = _values("float32")
    with hg.Tensor(ref) as t:
        v = _views(t)[which]
        want = v.numpy()
        a, tt = np.from_dlpack(v), torch.from_dlpack(v)
        np.testing.assert_array_equal(a, want)
        np.testing.assert_array_equal(tt.numpy(), want)
        if v.size:
            assert _ptr(a) == _ptr(tt) == v.data_ptr
            assert a.strides == tuple(s * 4 for s in v.strides) and tt.stride() == v.strides
            first = (0,) * v.ndim
            a[first] = -7                               # writes land in the base tensor's storage
            assert tt[first] == -7
            full = t.numpy().reshape(-1)
            assert full[v.offset] == -7


def test_consumer_keeps_memory_alive_after_close():
    ref = np.arange(1024, dtype=np.float32)
    base = _in_use()
    t = hg.Tensor(ref)
    a, tt = np.from_dlpack(t), torch.from_dlpack(t)
    addr = t.data_ptr
    t.close()
    assert t.closed and _in_use() == base + 1        # the consumers hold the allocation
    others = [hg.Tensor(np.full(1024, -1, np.float32)) for _ in range(4)]   # same size: the cache's blocks
    assert all(o.data_ptr != addr for o in others)    # the exported block is not handed out again
    np.testing.assert_array_equal(a, ref)
    np.testing.assert_array_equal(tt.numpy(), ref)
    for o in others:
        o.close()
    del a
    gc.collect()
    assert _in_use() == base + 1                      # torch still holds it
    del tt
    gc.collect()
    assert _in_use() == base                          # the last consumer let go: back to the allocator


def test_consumer_keeps_memory_alive_after_del_and_gc():
    ref = np.arange(512, dtype=np.float16)
    t = hg.Tensor(ref)
    tt = torch.from_dlpack(t)
    addr = t.data_ptr
    del t
    gc.collect()
    other = hg.Tensor(np.zeros(512, np.float16))
    assert other.data_ptr != addr
    np.testing.assert_array_equal(tt.numpy(), ref)
    other.close()


def test_unconsumed_capsule_lets_go_of_the_memory():
    base = _in_use()
    t = hg.Tensor(np.ones(256, np.float32))
    caps = [t.__dlpack__(), t.__dlpack__(max_version=(1, 0))]
    t.close()
    assert _in_use() == base + 1
    del caps
    gc.collect()
    assert _in_use() == base


def test_capsule_is_consumed_once():
    with hg.Tensor(np.ones(3, np.float32)) as t:
        cap = t.__dlpack__()
        torch.from_dlpack(cap)
        assert _capsule_name(cap) == "used_dltensor"
        with pytest.raises(RuntimeError, match="consumed only once"):
            torch.from_dlpack(cap)
        with pytest.raises(BufferError, match="consumed already"):
            hg.from_dlpack(cap)
        cap = t.__dlpack__(max_version=(1, 0))
        hg.from_dlpack(cap).close()
        assert _capsule_name(cap) == "used_dltensor_versioned"
        with pytest.raises(BufferError, match="consumed already"):
            hg.from_dlpack(cap)


def _gated_write(stream):
    """An operator on ``stream`` writing a large output, queued behind a host function that
    holds the stream for 0.3 s: the write is still pending when the call returns."""
    gate = threading.Event()
    stream.launch_host_func(lambda: gate.wait(30))
    x = hg.Tensor(np.full(1 << 20, 5.0, np.float32))
    out = hg.zeros(1 << 20, "float32")
    hg.hardtanh(x, -1.0, 2.0, out=out, stream=stream)
    threading.Timer(0.3, gate.set).start()
    return x, out


@pytest.mark.parametrize("consumer", ["numpy", "torch", "asarray"])
def test_pending_write_is_synchronized_before_export(consumer):
    with hg.Device(0) as dev, dev.create_stream() as s:
        x, out = _gated_write(s)
        assert not s.query()                                  # the write has not run yet
        take = {"numpy": np.from_dlpack, "torch": lambda t: torch.from_dlpack(t).numpy(),
                "asarray": lambda t: np.asarray(t, copy=False)}[consumer]
        a = take(out)
        assert (a == 2.0).all()                               # the export waited for the write
        x.close()
        out.close()


def test_max_version_negotiation():
    with hg.Tensor(np.arange(4, dtype=np.float32)) as t:
        for max_version, name, version in [(None, "dltensor", None), ((0, 8), "dltensor", None),
                                           ((1, 0), "dltensor_versioned", (1, 0)),
                                           ((1, 3), "dltensor_versioned", (1, 0)),
                                           ((2, 0), "dltensor_versioned", (1, 0))]:
            cap = t.__dlpack__(max_version=max_version)
            assert _capsule_name(cap) == name
            info, owner = _fastcall.dlpack_import(cap)
            assert info[0] == version and info[2] == t.data_ptr and info[3] == (KDLCPU, 0)
            assert info[4] == (2, 32, 1) and info[5] == (4,) and info[6] == (1,) and info[7] == 0
            del owner
        for bad in [1, (1,), (1, 0, 0), ("1", "0"), (True, 0)]:
            with pytest.raises(TypeError, match="max_version"):
                t.__dlpack__(max_version=bad)


def test_consumer_falls_back_for_a_producer_without_max_version():
    class OldProducer:
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, stream=None):
            return self.a.__dlpack__(stream=stream)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    ref = np.arange(6, dtype=np.int32)
    with hg.from_dlpack(OldProducer(ref)) as t:
        np.testing.assert_array_equal(t.numpy(), ref)


class _DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _Versioned(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_Versioned))
_Versioned._fields_ = [("version", _DLPackVersion), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER),
                       ("flags", ctypes.c_uint64), ("dl_tensor", _DLTensor)]


def _foreign_capsule(major: int, deleted: list, values: np.ndarray, code=2, lanes=1):
    """A "dltensor_versioned" capsule made by hand: version ``major``.0 over ``values``; its
    deleter records the call."""
    m = _Versioned()
    m.version = _DLPackVersion(major, 0)
    shape = (ctypes.c_int64 * 1)(values.size)
    m.dl_tensor = _DLTensor(values.ctypes.data, KDLCPU, 0, 1, code, values.dtype.itemsize * 8, lanes, shape, None, 0)
    m.deleter = _DELETER(lambda p: deleted.append(True))
    new = ctypes.pythonapi.PyCapsule_New
    new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    keep = (m, shape, m.deleter, values)
    cap = new(ctypes.addressof(m), b"dltensor_versioned", None)

    def destroy():        # what a producer's capsule destructor does: delete an unconsumed tensor
        get = ctypes.pythonapi.PyCapsule_IsValid
        get.restype, get.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]
        if get(cap, b"dltensor_versioned"):
            m.deleter(ctypes.pointer(m))
    return cap, keep, destroy


def test_import_refuses_another_major_version_and_leaves_the_capsule_to_its_producer():
    deleted: list = []
    cap, keep, destroy = _foreign_capsule(2, deleted, np.ones(4, np.float32))
    with pytest.raises(BufferError, match="version 2.0"):
        hg.from_dlpack(cap)
    assert _capsule_name(cap) == "dltensor_versioned" and not deleted   # not consumed
    destroy()
    assert deleted == [True]


def test_import_calls_the_producers_deleter_once_done():
    deleted: list = []
    values = np.arange(4, dtype=np.float32)
    cap, keep, _ = _foreign_capsule(1, deleted, values)
    with hg.from_dlpack(cap) as t:                # host memory the runtime did not allocate: a copy ...
        assert deleted == [True]                  # ... after which the producer's memory is let go of
        np.testing.assert_array_equal(t.numpy(), values)
    for code, lanes, match in [(3, 1, "no aclDataType"), (2, 4, "lanes")]:
        cap, keep, _ = _foreign_capsule(1, deleted, values, code=code, lanes=lanes)
        with pytest.raises(BufferError, match=match):
            hg.from_dlpack(cap)


def test_dl_device_other_than_the_tensors_own_is_refused():
    with hg.Tensor(np.ones(3, np.float32)) as t:
        for dev in [(2, 0), (KDLEXTDEV, 0), (KDLCPU, 1)]:
            with pytest.raises(BufferError, match="dl_device"):
                t.__dlpack__(dl_device=dev)
        cap = t.__dlpack__(dl_device=(hg.DLDeviceType.kDLCPU, 0))
        assert _fastcall.dlpack_import(cap)[0][2] == t.data_ptr
        for bad in ["cpu", (1,), (1.0, 0)]:
            with pytest.raises(TypeError, match="dl_device"):
                t.__dlpack__(dl_device=bad)


def test_stream_of_a_host_export_must_be_none():
    with hg.Tensor(np.ones(3, np.float32)) as t, hg.Device(0) as dev:
        for stream in [-1, 1, dev.default_stream]:
            with pytest.raises(ValueError, match="stream must be None"):
                t.__dlpack__(stream=stream)


@pytest.mark.parametrize("consumer", ["numpy", "torch", "capsule"])
def test_copy_true_exports_independent_memory(consumer):
    ref = np.arange(12, dtype=np.float32).reshape(3, 4)
    with hg.Tensor(ref) as t:
        v = t[:, 1:]
        if consumer == "capsule":
            info, owner = _fastcall.dlpack_import(v.__dlpack__(copy=True, max_version=(1, 0)))
            assert info[1] & _dlpack.FLAG_IS_COPIED and info[2] != v.data_ptr
            assert info[6] == (3, 1)                      # a row-major copy
            return
        c = np.from_dlpack(v, copy=True) if consumer == "numpy" else torch.from_dlpack(v, copy=True)
        assert _ptr(c) != v.data_ptr
        c[...] = 0
        np.testing.assert_array_equal(t.numpy(), ref)


def test_copy_false_export_shares():
    with hg.Tensor(np.ones(3, np.float32)) as t:
        info, _ = _fastcall.dlpack_import(t.__dlpack__(copy=False, max_version=(1, 0)))
        assert info[1] == 0 and info[2] == t.data_ptr
        with pytest.raises(TypeError, match="copy must be"):
            t.__dlpack__(copy="yes")


def test_closed_tensor_does_not_export():
    t = hg.Tensor(np.ones(3, np.float32))
    t.close()
    for f in [t.__dlpack__, lambda: np.asarray(t), lambda: hg.from_dlpack(t)]:
        with pytest.raises(hg.ClosedError):
            f()


# -- hg.from_dlpack --------------------------------------------------------------------------------------
@pytest.mark.parametrize("source", ["numpy", "torch", "numpy strided", "numpy reversed", "torch transposed"])
def test_from_dlpack_copies_host_memory_the_runtime_did_not_allocate(source):
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    obj = {"numpy": base, "torch": torch.from_numpy(base), "numpy strided": base[1:, ::2],
           "numpy reversed": base[::-1], "torch transposed": torch.from_numpy(base).T}[source]
    want = np.asarray(obj)
    with hg.from_dlpack(obj) as t:
        assert t.shape == want.shape and t.dtype == want.dtype
        np.testing.assert_array_equal(t.numpy(), want)
        assert t.data_ptr != _ptr(obj)
    with pytest.raises(BufferError, match="negative stride" if source == "numpy reversed" else "did not allocate"):
        hg.from_dlpack(obj, copy=False)


def test_from_dlpack_bfloat16_from_torch():
    src = torch.arange(6, dtype=torch.bfloat16) / 4
    with hg.from_dlpack(src) as t:
        assert t.dtype == hg.bfloat16
        np.testing.assert_array_equal(t.numpy().astype(np.float32), src.float().numpy())


def test_from_dlpack_of_a_tensor_is_a_view():
    ref = np.arange(6, dtype=np.int32)
    with hg.Tensor(ref) as t:
        v = hg.from_dlpack(t[1:])
        assert v.data_ptr == t[1:].data_ptr and v is not t
        v.copy_from(np.zeros(5, np.int32))
        assert t.numpy()[1:].sum() == 0
        c = hg.from_dlpack(t, copy=True)
        assert c.data_ptr != t.data_ptr
        np.testing.assert_array_equal(c.numpy(), t.numpy())
        c.close()
        v.close()


def test_from_dlpack_round_trip_through_torch_is_zero_copy_and_keeps_memory():
    ref = np.arange(8, dtype=np.float32)
    base = _in_use()
    t = hg.Tensor(ref)
    tt = torch.from_dlpack(t)
    back = hg.from_dlpack(tt, copy=False)              # device memory of a live allocation: shared
    assert back.data_ptr == t.data_ptr
    hg.hardtanh(back, 0.0, 3.0, out=back, sync=True)   # an operator writes through it
    np.testing.assert_array_equal(tt.numpy(), np.clip(ref, 0, 3))
    t.close()
    del tt
    gc.collect()
    assert _in_use() == base + 1                        # `back` holds torch's tensor, which holds it
    np.testing.assert_array_equal(back.numpy(), np.clip(ref, 0, 3))
    back.close()
    gc.collect()
    assert _in_use() == base


def test_from_dlpack_device_argument():
    with hg.Device(0) as dev, hg.from_dlpack(np.ones(3, np.float32), device=dev) as t:
        assert t.device_id == 0
    with pytest.raises(TypeError, match="device must be a Device"):
        hg.from_dlpack(np.ones(3), device="npu:0")


def test_from_dlpack_refuses_what_is_no_producer_and_foreign_devices():
    with pytest.raises(TypeError, match="DLPack producer"):
        hg.from_dlpack([1, 2, 3])

    class Gpu:
        def __dlpack__(self, **kw):
            raise AssertionError("not asked for a capsule")

        def __dlpack_device__(self):
            return (2, 0)

    with pytest.raises(BufferError, match="kDLCUDA"):
        hg.from_dlpack(Gpu())


def test_from_dlpack_negative_strides_are_copied_not_shared():
    ref = np.arange(6, dtype=np.float32)
    with hg.Tensor(ref) as t:
        rev = np.asarray(t, copy=False)[::-1]          # device memory, but aclCreateTensor takes no negative stride
        with pytest.raises(BufferError, match="negative stride"):
            hg.from_dlpack(rev, copy=False)
        with hg.from_dlpack(rev) as c:
            assert c.data_ptr != t.data_ptr
            np.testing.assert_array_equal(c.numpy(), ref[::-1])


def test_from_dlpack_read_only_memory_is_copied_not_shared():
    with hg.Tensor(np.arange(3, dtype=np.float32)) as t:
        ro = _dlpack._export_tensor(t, (KDLCPU, 0), True, _dlpack.FLAG_READ_ONLY)
        with pytest.raises(BufferError, match="read-only"):
            hg.from_dlpack(ro, copy=False)
        ro = _dlpack._export_tensor(t, (KDLCPU, 0), True, _dlpack.FLAG_READ_ONLY)
        with hg.from_dlpack(ro) as c:
            assert c.data_ptr != t.data_ptr
            np.testing.assert_array_equal(c.numpy(), [0, 1, 2])


# -- NumPy: __array__ ------------------------------------------------------------------------------------
@pytest.mark.parametrize("which", ["whole", "columns", "transposed", "rows offset", "row tail", "element", "empty",
                                   "strided offset"])
def test_asarray_copy_false_shares_memory(which):
    ref = _values("float32")
    with hg.Tensor(ref) as t:
        v = t if which == "whole" else _views(t)[which]
        a = np.asarray(v, copy=False)
        np.testing.assert_array_equal(a, v.numpy())
        if v.size:
            assert _ptr(a) == v.data_ptr and a.flags.writeable
            assert np.shares_memory(a, np.asarray(t, copy=False))


def test_asarray_copy_none_shares_and_copy_true_copies():
    ref = np.arange(5, dtype=np.float32)
    with hg.Tensor(ref) as t:
        assert _ptr(np.asarray(t)) == t.data_ptr
        for c in [np.array(t), np.asarray(t, copy=True), t.__array__(copy=True)]:
            assert _ptr(c) != t.data_ptr
            np.testing.assert_array_equal(c, ref)


def test_asarray_dtype_conversions():
    ref = np.arange(5, dtype=np.float32)
    with hg.Tensor(ref) as t:
        for dtype in [np.float64, np.int32, np.float16, "float64"]:
            a = np.asarray(t, dtype=dtype)
            assert a.dtype == np.dtype(dtype) and _ptr(a) != t.data_ptr
            np.testing.assert_array_equal(a, ref.astype(dtype))
            with pytest.raises(ValueError, match="needs a copy"):
                np.asarray(t, dtype=dtype, copy=False)
        same = np.asarray(t, dtype=np.float32, copy=False)
        assert _ptr(same) == t.data_ptr
        old = t.__array__(np.float64)                     # NumPy 1.x's call: dtype only
        assert old.dtype == np.float64
        np.testing.assert_array_equal(old, ref)
        with pytest.raises(TypeError, match="copy must be"):
            t.__array__(copy="no")


def test_asarray_bfloat16_shares_memory():
    with hg.Tensor(np.arange(4, dtype=np.float32), dtype="bfloat16") as t:
        a = np.asarray(t, copy=False)
        assert a.dtype == hg.bfloat16 and _ptr(a) == t.data_ptr
        a[0] = 9
        assert float(t.numpy()[0]) == 9.0
        np.testing.assert_array_equal(np.asarray(t, dtype=np.float32), [9, 1, 2, 3])


def test_asarray_view_keeps_memory_alive_after_close():
    ref = np.arange(64, dtype=np.int64)
    t = hg.Tensor(ref)
    a = np.asarray(t, copy=False)
    addr = t.data_ptr
    t.close()
    other = hg.Tensor(np.zeros(64, np.int64))
    assert other.data_ptr != addr
    np.testing.assert_array_equal(a, ref)
    other.close()


# -- the NPU branch (kDLExtDev), with the module believing device memory is not host memory -----------
def test_npu_dlpack_device_is_ext_dev(npu_branch):
    with hg.Tensor(np.ones(3, np.float32)) as t:
        assert t.__dlpack_device__() == (KDLEXTDEV, 0)
        info, _ = _fastcall.dlpack_import(t.__dlpack__(max_version=(1, 0)))
        assert info[3] == (KDLEXTDEV, 0) and info[2] == t.data_ptr and info[1] == 0


def test_npu_export_to_host_is_a_copy(npu_branch):
    ref = np.arange(6, dtype=np.float32)
    with hg.Tensor(ref) as t:
        info, owner = _fastcall.dlpack_import(t.__dlpack__(max_version=(1, 0), dl_device=(KDLCPU, 0)))
        assert info[3] == (KDLCPU, 0) and info[1] & _dlpack.FLAG_IS_COPIED and info[2] != t.data_ptr
        np.testing.assert_array_equal(np.ctypeslib.as_array(ctypes.cast(info[2], ctypes.POINTER(ctypes.c_float)),
                                                             (6,)), ref)
        with pytest.raises(BufferError, match="copy=False"):
            t.__dlpack__(dl_device=(KDLCPU, 0), copy=False)
        with pytest.raises(ValueError, match="stream must be None"):
            t.__dlpack__(dl_device=(KDLCPU, 0), stream=-1)


def test_npu_copy_true_is_a_device_copy(npu_branch):
    ref = np.arange(6, dtype=np.float32).reshape(2, 3)
    with hg.Tensor(ref) as t:
        for v in [t, t.T]:
            cap = v.__dlpack__(max_version=(1, 0), copy=True)
            with hg.from_dlpack(cap, copy=False) as c:      # kDLExtDev memory of a live allocation: shared
                assert c.data_ptr != v.data_ptr
                np.testing.assert_array_equal(c.numpy(), v.numpy())


def test_npu_round_trip_is_zero_copy(npu_branch):
    with hg.Tensor(np.arange(4, dtype=np.float32)) as t, hg.from_dlpack(_Producer(t), copy=False) as back:
        assert back.data_ptr == t.data_ptr


class _Producer:
    """Another library's wrapper of a tensor: only the protocol, no Tensor type to recognise."""

    def __init__(self, t):
        self.t = t

    def __dlpack__(self, **kw):
        return self.t.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


def test_npu_stream_argument(npu_branch):
    with hg.Device(0) as dev, dev.create_stream() as s:
        x, out = _gated_write(s)
        t0 = time.monotonic()
        cap = out.__dlpack__(stream=-1)                 # the consumer asks for no synchronization
        assert time.monotonic() - t0 < 0.25 and not s.query()
        del cap
        out.__dlpack__(stream=s)                        # the consumer's stream: ordered after the write
        assert s.query() and (out.numpy() == 2.0).all()
        for bad, err in [(0, ValueError), (-2, ValueError), ("s", TypeError), (True, TypeError)]:
            with pytest.raises(err, match="stream must be"):
                out.__dlpack__(stream=bad)
        x.close()
        out.close()


def test_npu_asarray_copy_false_raises_and_copy_none_copies(npu_branch):
    with hg.Tensor(np.arange(3, dtype=np.float32)) as t:
        with pytest.raises(ValueError, match="cannot address"):
            np.asarray(t, copy=False)
        a = np.asarray(t)
        assert _ptr(a) != t.data_ptr
        np.testing.assert_array_equal(a, [0, 1, 2])


def test_npu_from_dlpack_of_host_memory_is_a_copy(npu_branch):
    with pytest.raises(BufferError, match="host memory"):
        hg.from_dlpack(np.ones(3, np.float32), copy=False)
    with hg.from_dlpack(np.ones(3, np.float32)) as t:
        np.testing.assert_array_equal(t.numpy(), [1, 1, 1])


# -- the capsule's C code under memcheck -----------------------------------------------------------------
def test_capsules_are_clean_under_memcheck(tmp_path):
    """Exports (legacy, versioned, copies, unconsumed), numpy's consumption and hg.from_dlpack's
    imports under valgrind memcheck: no invalid access and no leak in the package's C."""
    import hg_memcheck
    found, out = hg_memcheck.run("""
        import gc
        import numpy as np
        import pyacl_hardgrad as hg
        t = hg.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
        a = np.from_dlpack(t[:, 1:])
        b = np.asarray(t, copy=False)
        c = np.from_dlpack(t, copy=True)
        unused = [t.__dlpack__(), t.__dlpack__(max_version=(1, 0))]
        back = hg.from_dlpack(a, copy=False)
        copied = hg.from_dlpack(np.ones(5, np.float16))
        t.close()
        del unused
        gc.collect()
        print(a.sum(), b.sum(), c.sum(), back.numpy().sum(), copied.numpy().sum())
        back.close(); copied.close()
        del a, b, c
        gc.collect()
        hg.release_defaults()
    """, tmp_path)
    assert not found, "\n\n".join(found)
    assert out.split() == ["54.0", "66.0", "66.0", "54.0", "5.0"]
