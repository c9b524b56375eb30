"""DLPack and NumPy interop of :class:`~pyacl_hardgrad.Tensor`.

* ``Tensor.__dlpack__`` / ``__dlpack_device__``: the tensor's memory handed to another library
  (``torch.from_dlpack(t)``, ``np.from_dlpack(t)``) without a copy.  On the embedded runtime
  device memory is host memory, so it is exported as CPU memory (``kDLCPU``, device 0); with a
  CANN backend as ``kDLExtDev`` with the NPU's id, as torch_npu does (DLPack 1.1, the release this
  follows, has no Ascend device type).  The stream that last wrote the tensor is synchronized
  before the export.
* :func:`from_dlpack`: a Tensor from any DLPack producer; zero-copy when the memory is device
  memory the runtime can use, else copied into new device memory (``copy=False`` then raises
  ``BufferError`` saying why).
* ``Tensor.__array__``: NumPy 2's ``copy`` rules; on the embedded runtime ``np.asarray(t)`` is a
  view of the tensor's memory, with a CANN backend a copy.

Lifetime: an export holds one reference of the handle layer to the tensor's storage (its device
memory, or the owner of a foreign pointer), let go of by the consumer's deleter.  Closing the
Tensor (or deleting it) drops only the Tensor's own reference: the memory stays valid until every
consumer (a torch tensor, a numpy array) has let go of it, then goes back to the allocator.
"""
from __future__ import annotations

import copy as _copy
import enum
from typing import TYPE_CHECKING, Any, Optional, Union

import numpy as np

from . import _fastcall, dtypes
from ._binding import BACKEND, ffi, lib
from .device import _DeviceState, _state_of
from .memory import _Hold
from .stream import Stream
from .tensor import Tensor, _check_copy, _extent, _numel, _row_major, empty

if TYPE_CHECKING:
    from .device import Device

__all__ = ["DLDeviceType", "from_dlpack"]


class DLDeviceType(enum.IntEnum):
    """DLPack's device types (``DLDeviceType`` of dlpack.h, release 1.1)."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


# An NPU's memory: kDLExtDev as torch_npu exports it, until a DLPack release names Ascend devices.
NPU_DEVICE_TYPE = DLDeviceType.kDLExtDev
# Memory the CPU can address (what numpy's from_dlpack reads too).
_HOST_TYPES = frozenset({DLDeviceType.kDLCPU, DLDeviceType.kDLCUDAHost, DLDeviceType.kDLROCMHost,
                         DLDeviceType.kDLCUDAManaged})

FLAG_READ_ONLY = 1 << 0       # DLPACK_FLAG_BITMASK_READ_ONLY
FLAG_IS_COPIED = 1 << 1       # DLPACK_FLAG_BITMASK_IS_COPIED
VERSION = (_fastcall.DLPACK_MAJOR, _fastcall.DLPACK_MINOR)   # what versioned capsules carry

# DLDataTypeCode by numpy kind (bfloat16, kind "V" in ml_dtypes, is kDLBfloat = 4)
_CODE_OF_KIND = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}
_KIND_OF_CODE = {0: "i", 1: "u", 2: "f", 5: "c", 6: "b"}
_BFLOAT = 4
_UINT = 1

_fastcall.set_dlpack_release(int(ffi.cast("uintptr_t", ffi.addressof(lib, "hgb_obj_release"))))


def _device_is_host() -> bool:
    """True where device memory is host memory: the embedded runtime (its devices are the CPU)."""
    return bool(BACKEND.is_embedded)


def _is_bfloat16(dt: np.dtype[Any]) -> bool:
    return dt.kind == "V" and dt.itemsize == 2 and dt == dtypes.to_numpy_dtype("bfloat16")


def dl_dtype(dt: np.dtype[Any]) -> tuple[int, int]:
    """(DLDataTypeCode, bits) of a tensor dtype."""
    if _is_bfloat16(dt):
        return _BFLOAT, 16
    code = _CODE_OF_KIND.get(dt.kind)
    if code is None:
        raise BufferError(f"dtype {dt} has no DLPack data type")
    return code, dt.itemsize * 8


def numpy_dtype(code: int, bits: int, lanes: int) -> np.dtype[Any]:
    """The tensor dtype of a DLPack data type, or BufferError naming it."""
    what = f"DLPack data type (code {code}, bits {bits}, lanes {lanes})"
    if lanes != 1:
        raise BufferError(f"{what}: vector types (lanes != 1) have no aclDataType")
    if code == _BFLOAT and bits == 16:
        return dtypes.to_numpy_dtype("bfloat16")
    kind = _KIND_OF_CODE.get(code)
    if kind is None or bits % 8:
        raise BufferError(f"{what} has no aclDataType")
    try:
        return dtypes.to_numpy_dtype(np.dtype(f"{kind}{bits // 8}"))
    except TypeError:
        raise BufferError(f"{what} has no aclDataType") from None


def _copy_arg(copy: object) -> Optional[bool]:
    if copy is None:
        return None
    if isinstance(copy, (bool, np.bool_)):
        return bool(copy)
    raise TypeError(f"copy must be True, False or None, got {type(copy).__name__} {copy!r:.40}")


def _versioned(max_version: object) -> bool:
    """Whether the consumer takes a versioned capsule ("dltensor_versioned", DLPack >= 1.0)."""
    if max_version is None:
        return False
    if not (isinstance(max_version, tuple) and len(max_version) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in max_version)):
        raise TypeError(f"max_version must be None or a (major, minor) tuple of ints, got {max_version!r:.60}")
    return bool(max_version[0] >= VERSION[0])


def _device_arg(dl_device: object) -> tuple[int, int]:
    pair: Any = dl_device
    if isinstance(pair, tuple) and len(pair) == 2 and all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in pair):
        return int(pair[0]), int(pair[1])
    raise TypeError("dl_device must be None or a (device type, device id) pair of ints as "
                    f"__dlpack_device__ returns, got {dl_device!r:.60}")


def dlpack_device(t: Tensor) -> tuple[DLDeviceType, int]:
    """``Tensor.__dlpack_device__``: (kDLCPU, 0) on the embedded runtime, else (kDLExtDev, device id)."""
    if _device_is_host():
        return DLDeviceType.kDLCPU, 0
    return NPU_DEVICE_TYPE, t.device_id


def _synchronize(t: Tensor, stream: object, to_host: bool) -> None:
    """Wait for the stream that last used the tensor's storage, as the ``stream`` argument says.

    An export of host memory (kDLCPU) takes ``stream=None`` only (DLPack: the CPU has no
    streams), and the producer synchronizes.  An NPU export takes None (synchronize), -1 (the
    consumer asks for no synchronization), or the consumer's stream (a Stream, or an aclrtStream
    address as an int): its work is ordered after the tensor's pending work by waiting for that
    work on the host, stronger than an event between the streams and as safe."""
    if to_host:
        if stream is not None:
            raise ValueError(f"stream must be None for an export of host memory (kDLCPU has no streams), "
                             f"got {stream!r:.40}")
    elif stream is not None and not isinstance(stream, Stream):
        if isinstance(stream, bool) or not isinstance(stream, int):
            raise TypeError(f"stream must be None, -1, a Stream or an aclrtStream address (int), "
                            f"got {type(stream).__name__}")
        if stream == -1:
            return
        if stream <= 0:
            raise ValueError(f"stream must be None, -1 or a stream (a positive address), got {stream}")
    with _Hold(t):
        t._wait()


def _export_tensor(t: Tensor, device: tuple[int, int], versioned: bool, flags: int,
                   dtype: Optional[tuple[int, int]] = None) -> Any:
    """A capsule over the tensor's memory holding a reference to its storage."""
    code, bits = dl_dtype(t.dtype) if dtype is None else dtype
    item = t.dtype.itemsize
    shape, strides = tuple(t.shape), tuple(t.strides)
    o = t._hold()                                  # ClosedError for a closed tensor
    data = int(ffi.cast("uintptr_t", t._data)) + t.offset * item if _numel(shape) else 0
    storage = lib.hgb_obj_storage(o)               # the memory (or foreign owner): what must outlive
    if storage != ffi.NULL:
        lib.hgb_obj_release(o)
        o = storage
    return _fastcall.dlpack_export(int(ffi.cast("uintptr_t", o)),
                                   (data, int(device[0]), int(device[1]), code, bits, shape, strides, None,
                                    versioned, flags))


def _export_array(arr: np.ndarray[Any, Any], versioned: bool, flags: int) -> Any:
    """A capsule over a host array (kept alive by the capsule until the consumer lets go)."""
    code, bits = dl_dtype(arr.dtype)
    item = arr.dtype.itemsize
    data = int(arr.__array_interface__["data"][0]) if arr.size else 0
    strides = tuple(s // item for s in arr.strides)
    return _fastcall.dlpack_export(0, (data, int(DLDeviceType.kDLCPU), 0, code, bits, tuple(arr.shape), strides,
                                       arr, versioned, flags))


def device_copy(t: Tensor, state: Optional[_DeviceState] = None) -> Tensor:
    """A new row-major tensor holding the view's values, on ``state``'s device (default: t's)."""
    out = empty(t.shape, t.dtype, t._device_state if state is None else state)
    try:
        if t.size and (state is None or state is t._device_state) and t.is_contiguous():
            with _Hold(t):
                t._wait()
                src = ffi.cast("char *", t._data) + t.offset * t.dtype.itemsize
                _check_copy(lib.aclrtMemcpy(out._data, t.nbytes, src, t.nbytes, lib.ACL_MEMCPY_DEVICE_TO_DEVICE))
        elif t.size:
            out.copy_from(t.numpy())
    except BaseException:
        out.close()
        raise
    return out


def export(t: Tensor, stream: object = None, max_version: object = None, dl_device: object = None,
           copy: object = None) -> Any:
    """``Tensor.__dlpack__``: a "dltensor" capsule, or "dltensor_versioned" when ``max_version``
    is (1, x) or later.  ``dl_device`` other than the tensor's own: (kDLCPU, 0) from an NPU is a
    host copy (BufferError with ``copy=False``), anything else BufferError.  ``copy=True``: an
    exported copy (flag IS_COPIED on a versioned capsule)."""
    want_copy = _copy_arg(copy)
    versioned = _versioned(max_version)
    own = dlpack_device(t)
    target = (int(own[0]), own[1]) if dl_device is None else _device_arg(dl_device)
    host_copy = False
    if target != (int(own[0]), own[1]):
        if target[0] == DLDeviceType.kDLCPU and own[0] != DLDeviceType.kDLCPU:
            if want_copy is False:
                raise BufferError(f"dl_device={target}: the tensor is in NPU memory {tuple(map(int, own))}; "
                                  "exporting it to the host needs a copy, and copy=False forbids one")
            host_copy = True
        else:
            raise BufferError(f"dl_device={target}: the tensor can be exported to its own device "
                              f"{tuple(map(int, own))} or to the host (1, 0), not there")
    t._check_open()
    _synchronize(t, stream, target[0] == DLDeviceType.kDLCPU)
    if host_copy or (want_copy and target[0] == DLDeviceType.kDLCPU):
        return _export_array(t.numpy(), versioned, FLAG_IS_COPIED)
    if want_copy:
        c = device_copy(t)
        try:
            return _export_tensor(c, target, versioned, FLAG_IS_COPIED)
        finally:
            c.close()                   # the capsule holds its memory
    return _export_tensor(t, target, versioned, 0)


class _Capsule:
    """A prepared export handed to ``numpy.from_dlpack`` (which asks an object, not a capsule)."""

    __slots__ = ("_t", "_dtype")

    def __init__(self, t: Tensor, dtype: Optional[tuple[int, int]]) -> None:
        self._t, self._dtype = t, dtype

    def __dlpack__(self, *, stream: object = None, max_version: object = None, dl_device: object = None,
                   copy: object = None) -> Any:
        return _export_tensor(self._t, (int(DLDeviceType.kDLCPU), 0), _versioned(max_version), 0, self._dtype)

    def __dlpack_device__(self) -> tuple[DLDeviceType, int]:
        return DLDeviceType.kDLCPU, 0


def host_view(t: Tensor) -> np.ndarray[Any, Any]:
    """A writable numpy view of the tensor's memory (the embedded runtime's device memory is
    host memory) after its pending work finished; the view keeps the memory alive."""
    with _Hold(t):
        t._wait()
        bf16 = _is_bfloat16(t.dtype)                 # numpy reads no kDLBfloat: 16-bit words, then a view
        arr: np.ndarray[Any, Any] = np.from_dlpack(_Capsule(t, (_UINT, 16) if bf16 else None))
    return arr.view(t.dtype) if bf16 else arr


def to_array(t: Tensor, dtype: object = None, copy: object = None) -> np.ndarray[Any, Any]:
    """``Tensor.__array__`` with NumPy 2's rules: ``copy=True`` a new array; ``copy=None`` a view
    where one can be had (the embedded runtime, the tensor's own dtype), else a copy;
    ``copy=False`` a view or ValueError (a dtype conversion, or NPU memory the host cannot address)."""
    want_copy = _copy_arg(copy)
    t._check_open()
    want = None if dtype is None else _host_dtype(dtype)
    convert = want is not None and want != t.dtype
    if want_copy is False:
        if not _device_is_host():
            raise ValueError("copy=False: the tensor is in NPU device memory, which the host cannot address; "
                             "a copy cannot be avoided (use copy=None, or Tensor.numpy())")
        if convert:
            raise ValueError(f"copy=False: converting the tensor's {t.dtype} to {want} needs a copy")
    if want_copy or not _device_is_host():
        a = t.numpy()
    else:
        a = host_view(t)
    return a.astype(want) if convert else a


def _host_dtype(dtype: Any) -> np.dtype[Any]:
    try:
        return np.dtype(dtype)  # type: ignore[no-any-return]
    except TypeError:
        return dtypes.to_numpy_dtype(dtype)


# -- import ---------------------------------------------------------------------------------------
def _producer_capsule(obj: Any) -> Any:
    """The capsule of a DLPack producer, asked for a versioned one first (older producers take
    no max_version)."""
    try:
        return obj.__dlpack__(max_version=VERSION)
    except TypeError:
        return obj.__dlpack__()


def _live_device_block(ptr: int, first: int, end: int) -> Optional[int]:
    """The device id of the embedded runtime's live device allocation holding bytes
    [ptr + first, ptr + end), else None."""
    info: Any = ffi.new("hgAllocation *")      # (a struct: its fields are the C ones)
    if lib.hgQueryAllocation(ffi.cast("void *", ptr + first), info):
        return None
    if info.kind != lib.HG_MEMORY_DEVICE or ptr + end > info.base + info.size:
        return None
    return int(info.deviceId)


def _state_for(device_id: int) -> tuple[_DeviceState, object]:
    """A device's state and what keeps it set while a tensor uses it (None when its own memory does)."""
    from . import device as _device
    with _device._states_lock:
        st = _device._states.get(device_id)
    if st is not None:
        return st, None
    d = _device.Device(device_id)
    return d._state, d


def from_dlpack(obj: Any, device: Union[Device, None] = None, copy: object = None) -> Tensor:
    """A Tensor from any DLPack producer (an object with ``__dlpack__`` and ``__dlpack_device__``:
    a numpy array, a torch tensor, a Tensor) or a DLPack capsule.

    Zero-copy (the Tensor views the producer's memory, which it keeps alive) where the runtime can
    use that memory: a Tensor (a new view of it), memory of a live device allocation (on the
    embedded runtime also when it comes back through another library, e.g. a torch tensor made
    by ``torch.from_dlpack(t)``), or NPU memory (kDLExtDev) with a CANN backend.  Other memory,
    e.g. a numpy array's or a torch CPU tensor's, is host memory the runtime did not allocate,
    which its operators refuse (on an NPU too): it is copied into new device memory, or with
    ``copy=False`` BufferError says why not.  ``copy=True`` always copies.  ``device`` (a Device;
    None: the memory's own device for a view, device 0 for a copy) is where the tensor lives;
    memory of another device is copied (BufferError with ``copy=False``).
    """
    want_copy = _copy_arg(copy)
    state = None if device is None else _state_of(device)
    if isinstance(obj, Tensor):
        obj._check_open()
        if state is None or state is obj._device_state:
            return device_copy(obj) if want_copy else _copy.copy(obj)
        if want_copy is False:
            raise BufferError(f"the tensor is on device {obj.device_id}, device {state.id} was asked: "
                              "moving it needs a copy, and copy=False forbids one")
        return device_copy(obj, state)
    if type(obj).__name__ == "PyCapsule":
        cap = obj
    elif hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        _check_device_type(int(obj.__dlpack_device__()[0]), "the producer's")
        cap = _producer_capsule(obj)
    else:
        raise TypeError("obj must be a DLPack producer (with __dlpack__ and __dlpack_device__) or a DLPack "
                        f"capsule, got {type(obj).__name__}")
    info, owner = _fastcall.dlpack_import(cap)
    return _imported(info, owner, state, want_copy)


def _check_device_type(kind: int, whose: str) -> None:
    """BufferError unless memory of DLPack device type ``kind`` is host memory, or NPU memory
    with a CANN backend."""
    if kind in _HOST_TYPES or (kind == NPU_DEVICE_TYPE and not _device_is_host()):
        return
    try:
        name = f"{DLDeviceType(kind).name} ({kind})"
    except ValueError:
        name = str(kind)
    takes = "host memory" if _device_is_host() else "host memory or NPU memory (kDLExtDev)"
    raise BufferError(f"{whose} memory is on DLPack device type {name}: from_dlpack takes {takes}")


def _imported(info: tuple[Any, ...], owner: object, state: Optional[_DeviceState],
              want_copy: Optional[bool]) -> Tensor:
    """The Tensor of an opened capsule (``owner`` lets go of the producer's memory when dropped)."""
    _version, flags, data, (kind, dev_id), (code, bits, lanes), shape, strides, byte_offset = info
    npdt = numpy_dtype(code, bits, lanes)
    item = npdt.itemsize
    _check_device_type(kind, "the capsule's")
    shape = tuple(shape)
    strides = _row_major(shape) if strides is None else tuple(strides)
    ptr = data + byte_offset
    if not _numel(shape):                        # no bytes to share or copy
        return empty(shape, npdt, state)
    lo, hi = _extent(shape, strides, 0)
    base, offset = ptr + lo * item, -lo           # the lowest byte the view touches, and the view's start in it
    host = kind in _HOST_TYPES
    why: Optional[str] = None                     # why the memory cannot be used in place
    where = None if host else dev_id
    if flags & FLAG_READ_ONLY:
        why = "the producer marked the memory read-only, and operators write their outputs in place"
    elif any(s < 0 for s in strides):
        why = "the view has a negative stride, which aclCreateTensor refuses"
    elif base % item:
        why = f"the data at 0x{ptr:x} is not aligned to the {item}-byte elements of {npdt}"
    elif host:
        if _device_is_host():
            where = _live_device_block(base, 0, (hi - lo + 1) * item)
            if where is None:
                why = (f"the memory at 0x{ptr:x} is host memory the runtime did not allocate, and its operators "
                       "take device memory only (memory of a live aclrtMalloc allocation)")
        else:
            why = "the memory is host memory, and an NPU's operators take device memory"
    if why is None and state is not None and where != state.id:
        why = f"the memory is on device {where}, device {state.id} was asked"
    if why is None and want_copy is not True:
        assert where is not None
        st, keep = (state, None) if state is not None else _state_for(where)
        return Tensor.from_device_pointer(base, shape, npdt, strides, offset, owner=(owner, keep), device=st)
    if want_copy is False:
        raise BufferError(f"from_dlpack(copy=False): {why}; copy=None copies it into new device memory")
    if host:
        window = np.frombuffer(ffi.buffer(ffi.cast("char *", base), (hi - lo + 1) * item),  # type: ignore[call-overload]
                               np.uint8).view(npdt)
        arr = np.lib.stride_tricks.as_strided(window[offset:], shape, tuple(s * item for s in strides))
        return Tensor(arr, state)
    st, keep = _state_for(dev_id) if state is None else (state, None)
    src = Tensor.from_device_pointer(base, shape, npdt, strides, offset, owner=(owner, keep), device=st)
    try:
        return device_copy(src, state)
    finally:
        src.close()
