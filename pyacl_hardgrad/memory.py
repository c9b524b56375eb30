"""Device memory (aclrtMalloc / aclrtFree) and copies between host and device."""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Literal, NoReturn, Sequence, TypeVar, overload

import numpy as np

from . import _args
from ._binding import ffi, lib
from ._lifetime import CHandle, Handle, _Res, hold, keep_objects
from .device import _state_of
from .errors import ClosedError, check, error_for, warn_status
from .stream import Stream

if TYPE_CHECKING:
    import numpy.typing as npt
    from typing_extensions import Self

    from ._types import CData, HostBuffer, ShapeLike
    from .device import Device, _DeviceState

_B = TypeVar("_B", bound="HostBuffer")
__all__ = ["DeviceMemory", "Workspace", "HostMemory"]

_H2D = lib.ACL_MEMCPY_HOST_TO_DEVICE
_D2H = lib.ACL_MEMCPY_DEVICE_TO_HOST
_D2D = lib.ACL_MEMCPY_DEVICE_TO_DEVICE


_calls = threading.local()
_GONE = lib.HGB_GONE


def call_buffer() -> Any:
    """This thread's hgb_call (the outcome of an allocation in the handle layer)."""
    try:
        return _calls.c
    except AttributeError:
        c = _calls.c = ffi.new("hgb_call *")
        return c


def allocation_failed(st: int, c: Any, state: _DeviceState) -> NoReturn:
    """Raise for a failed allocation of the handle layer (``c.function`` names the call)."""
    if st == _GONE:
        raise ClosedError(f"Device({state.id}) has been released")
    raise error_for(st, ffi.string(c.function).decode())


def _host_view(obj: Any, writable: bool, name: str = "src") -> tuple[CData, int]:
    """(cdata pointer, nbytes) of a host buffer (bytes, bytearray, memoryview, numpy array)."""
    kind = "a writable buffer (bytearray, numpy array, writable memoryview)" if writable else \
        "a buffer (bytes, bytearray, memoryview, numpy array)"
    if isinstance(obj, np.ndarray):
        if not obj.flags.c_contiguous:
            raise ValueError(f"{name}: host arrays must be C-contiguous (use numpy.ascontiguousarray)")
        if writable and not obj.flags.writeable:
            raise TypeError(f"{name} must be {kind}, got a read-only numpy array")
        obj = obj.reshape(-1).view(np.uint8)   # any dtype, also ml_dtypes' bfloat16
    try:
        buf = ffi.from_buffer(obj, require_writable=writable)
    except (TypeError, BufferError):
        raise TypeError(f"{name} must be {kind}, got {type(obj).__name__}"
                        f"{' (read-only)' if isinstance(obj, (bytes, memoryview)) else ''}") from None
    return buf, len(buf)


class _Hold:
    """Keeps open handles' resources alive for the duration of a call: a close() from another
    thread meanwhile only drops the object's reference, the free waits for this one."""

    __slots__ = ("_held",)

    def __init__(self, *handles: Handle) -> None:
        held: list[CData] = []
        try:
            for h in handles:
                held.append(hold(h))          # ClosedError for a closed handle
        except BaseException:
            for o in reversed(held):
                lib.hgb_obj_release(o)
            raise
        self._held: Sequence[CData] = held

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        held, self._held = self._held, ()
        for o in reversed(held):
            lib.hgb_obj_release(o)
        return False


def _check_stream(stream: Stream | None) -> Stream | None:
    if stream is not None and not isinstance(stream, Stream):
        raise TypeError(f"stream must be a Stream or None, got {type(stream).__name__}")
    return stream


class _Addressed:
    """``ptr`` (a ``void *`` cdata) and ``int(mem)`` of an allocation at ``_ptr`` / ``_addr``."""

    _ptr: CData
    _addr: int
    _live: list[bool]
    nbytes: int
    if TYPE_CHECKING:
        def _check_open(self) -> None: ...

    @property
    def ptr(self) -> CData:
        """The address as a ``void *`` cdata."""
        if not self._live[0]:
            self._check_open()
        return self._ptr

    def __int__(self) -> int:
        self._check_open()
        return self._addr

    __index__ = __int__


class DeviceMemory(_Addressed, CHandle):
    """``nbytes`` of device memory; ``int(mem)`` is its address (as pyACL hands them out).

    Create it with ``device.allocate(nbytes)``: a block of the caching allocator (at least
    ``nbytes``; it goes back to the device's cache when the last user lets go), or, with a
    ``policy``, one aclrtMalloc of exactly ``nbytes`` (aclrtFree on the last release).  Copies
    are synchronous unless a stream is given; an async copy keeps its host buffer alive until
    that stream is synchronized.
    """

    def __init__(self, device: Device | _DeviceState | None, nbytes: int, policy: int | None = None) -> None:
        state = _state_of(device)
        nbytes = _args.integer(nbytes, "nbytes", 0, _args.INT64_MAX)
        if policy is not None:
            policy = _args.integer(policy, "policy", 0, 2**32 - 1)
        state.ensure_current()
        self.nbytes = nbytes
        self._device_state = state
        if policy is None:
            c = call_buffer()
            st = lib.hgb_memory_new(c, state.res._o, ffi.NULL if state.context is None else state.context, nbytes)
            if st:
                allocation_failed(st, c, state)
            self._ptr = c.data
            self._addr = int(ffi.cast("uintptr_t", self._ptr))
            self._own(c.made)
            return
        p = ffi.new("void **")
        # ACL rejects size 0; an empty allocation still gets a distinct, valid address.
        check(lib.aclrtMalloc(p, max(nbytes, 1), int(policy)), "aclrtMalloc")
        ptr = p[0]
        self._ptr = ptr
        self._addr = int(ffi.cast("uintptr_t", ptr))
        try:
            dep = hold(state.res)
        except BaseException:
            lib.aclrtFree(ptr)
            raise
        self._own(lib.hgb_obj_new(lib.HGB_KIND_MEMORY, ptr, 0, [dep], 1, 1))

    @classmethod
    def _wrap(cls, o: CData, nbytes: int, state: _DeviceState) -> "DeviceMemory | None":
        """A handle over memory the handle layer allocated (``o``: a reference the handle takes);
        None when another handle already wraps it (the reference is given back)."""
        if not lib.hgb_obj_adopt(o):
            lib.hgb_obj_release(o)
            return None
        m = cls.__new__(cls)
        m._ptr = lib.hgb_obj_handle(o)
        m._addr = int(ffi.cast("uintptr_t", m._ptr))
        m.nbytes = nbytes
        m._device_state = state
        m._o = ffi.gc(o, lib.hgb_obj_forget)
        m._live = [True]
        return m

    owns_handle = True

    @classmethod
    def from_handle(cls, ptr: int | CData, nbytes: int, device: Device | int | None = None, *,
                    own: bool = False) -> Self:
        """Wrap ``nbytes`` of device memory allocated elsewhere (an int address as pyACL's
        ``acl.rt.malloc`` returns it, or a cdata), e.g. as a plan's workspace.

        ``own=False`` borrows it (``close()`` does not free it; its allocator does, once nothing
        uses it); ``own=True`` makes the last release call aclrtFree.  ``device`` (a Device or
        an id; default: the calling thread's current device) is the device it lies on.
        """
        from .device import _as_handle, _held_state
        p = _as_handle(ptr, "device memory")
        nbytes = _args.integer(nbytes, "nbytes", 0, _args.INT64_MAX)
        state = _held_state(device)
        self = cls.__new__(cls)
        self._ptr, self._addr, self.nbytes = p, int(ffi.cast("uintptr_t", p)), nbytes
        self._device_state = state
        self.owns_handle = bool(own)
        kind = lib.HGB_KIND_MEMORY if own else lib.HGB_KIND_FOREIGN    # borrowed: nothing to free
        self._own(lib.hgb_obj_new(kind, p, 0, [state.res._o], 1, 1))
        return self

    @property
    def device_id(self) -> int:
        return self._device_state.id

    def _range(self, nbytes: int | None, offset: int) -> tuple[int, int]:
        offset = _args.integer(offset, "offset", 0)
        if nbytes is None:
            nbytes = self.nbytes - offset
        nbytes = _args.integer(nbytes, "nbytes", 0)
        if offset + nbytes > self.nbytes:
            raise ValueError(f"range [{offset}, {offset + nbytes}) outside the {self.nbytes}-byte allocation")
        return nbytes, offset

    def copy_from_host(self, src: HostBuffer, nbytes: int | None = None, offset: int = 0, *,
                       stream: Stream | None = None) -> None:
        """Copy a host buffer into this memory at byte ``offset`` (aclrtMemcpy[Async])."""
        self._check_open()
        _check_stream(stream)
        buf, n = _host_view(src, False)
        if nbytes is None:
            nbytes = n
        nbytes, offset = self._range(nbytes, offset)
        if nbytes > n:
            raise ValueError(f"source holds {n} bytes, {nbytes} requested")
        if nbytes == 0:
            return
        dst = ffi.cast("char *", self.ptr) + offset
        if stream is None:
            with _Hold(self):
                check(lib.aclrtMemcpy(dst, self.nbytes - offset, buf, nbytes, _H2D), "aclrtMemcpy")
        else:
            check(lib.aclrtMemcpyAsync(dst, self.nbytes - offset, buf, nbytes, _H2D, stream.handle),
                  "aclrtMemcpyAsync")
            _keep_for(stream, self, src, buf)

    @overload
    def copy_to_host(self, dst: None = None, nbytes: int | None = None, offset: int = 0, *,
                     stream: Stream | None = None) -> bytearray: ...
    @overload
    def copy_to_host(self, dst: _B, nbytes: int | None = None, offset: int = 0, *,
                     stream: Stream | None = None) -> _B: ...
    def copy_to_host(self, dst: HostBuffer | None = None, nbytes: int | None = None, offset: int = 0, *,
                     stream: Stream | None = None) -> HostBuffer:
        """Copy this memory (from byte ``offset``) to a host buffer; a new bytearray when
        ``dst`` is None.  With a stream the copy is async: sync the stream before reading."""
        self._check_open()
        _check_stream(stream)
        if dst is None:
            nbytes, offset = self._range(nbytes, offset)
            dst = bytearray(nbytes)
        buf, n = _host_view(dst, True, "dst")
        if nbytes is None:
            nbytes = min(n, self.nbytes - offset)
        nbytes, offset = self._range(nbytes, offset)
        if nbytes > n:
            raise ValueError(f"destination holds {n} bytes, {nbytes} requested")
        if nbytes:
            src = ffi.cast("char *", self.ptr) + offset
            if stream is None:
                with _Hold(self):
                    check(lib.aclrtMemcpy(buf, n, src, nbytes, _D2H), "aclrtMemcpy")
            else:
                check(lib.aclrtMemcpyAsync(buf, n, src, nbytes, _D2H, stream.handle), "aclrtMemcpyAsync")
                _keep_for(stream, self, dst, buf)
        return dst

    def copy_from_device(self, src: "DeviceMemory", nbytes: int | None = None, *,
                         stream: Stream | None = None) -> None:
        """Device-to-device copy of ``nbytes`` (default: all of src) to the start of this memory.
        src may live on another device once the current device has peer access to it
        (``Device.enable_peer_access``)."""
        _args.instance(src, DeviceMemory, "src")
        self._check_open()
        src._check_open()
        _check_stream(stream)
        nbytes = src.nbytes if nbytes is None else _args.integer(nbytes, "nbytes", 0)
        self._range(nbytes, 0)
        src._range(nbytes, 0)
        if not nbytes:
            return
        if stream is None:
            with _Hold(self, src):
                check(lib.aclrtMemcpy(self.ptr, self.nbytes, src.ptr, nbytes, _D2D), "aclrtMemcpy")
        else:
            check(lib.aclrtMemcpyAsync(self.ptr, self.nbytes, src.ptr, nbytes, _D2D, stream.handle),
                  "aclrtMemcpyAsync")
            stream._keep(self, src)

    def memset(self, value: int = 0, nbytes: int | None = None, offset: int = 0) -> None:
        """Set bytes to ``value`` (aclrtMemset)."""
        self._check_open()
        value = _args.integer(value, "value", 0, 255)
        nbytes, offset = self._range(nbytes, offset)
        if nbytes:
            dst = ffi.cast("char *", self.ptr) + offset
            with _Hold(self):
                check(lib.aclrtMemset(dst, self.nbytes - offset, value, nbytes), "aclrtMemset")

    def __repr__(self) -> str:
        if self.closed:
            return f"<{type(self).__name__} closed>"
        return f"<{type(self).__name__} 0x{self._addr:x} nbytes={self.nbytes} device={self.device_id}>"


class Workspace(DeviceMemory):
    """Device memory handed to phase 2 of an operator (same as DeviceMemory otherwise)."""


class HostMemory(_Addressed, Handle):
    """``nbytes`` of page-locked host memory (aclrtMallocHost / aclrtFreeHost), as pyACL's
    ``acl.rt.malloc_host`` gives it; ``int(mem)`` is its address, ``mem.buffer`` (or
    ``mem.view()``) a writable memoryview over it, ``mem.numpy(dtype, shape)`` a numpy view
    (valid while it is open).  The runtime's copies and sets accept it beside device memory:
    ``memset`` works on it, asynchronous copies from or to it run on the stream.
    """

    owns_handle = True

    def __init__(self, nbytes: int) -> None:
        from .runtime import _runtime_res
        nbytes = _args.integer(nbytes, "nbytes", 0, _args.INT64_MAX)
        rt = _runtime_res()
        try:
            p = ffi.new("void **")
            check(lib.aclrtMallocHost(p, max(nbytes, 1)), "aclrtMallocHost")
        except BaseException:
            rt.release()
            raise
        self._setup(p[0], nbytes, True, rt)

    @classmethod
    def from_handle(cls, ptr: int | CData, nbytes: int, *, own: bool = False) -> "HostMemory":
        """Wrap host memory allocated elsewhere (an int address, or a cdata).  ``own=True``:
        the last release calls aclrtFreeHost (for memory from aclrtMallocHost); otherwise
        its allocator frees it."""
        from .device import _as_handle
        from .runtime import _runtime_res
        p = _as_handle(ptr, "host memory")
        nbytes = _args.integer(nbytes, "nbytes", 0, _args.INT64_MAX)
        self = cls.__new__(cls)
        self._setup(p, nbytes, own, _runtime_res())
        return self

    def _setup(self, p: CData, nbytes: int, own: bool, rt: _Res) -> None:
        self._ptr, self._addr, self.nbytes = p, int(ffi.cast("uintptr_t", p)), nbytes
        self.owns_handle = bool(own)
        release = (lambda: warn_status(lib.aclrtFreeHost(p), "aclrtFreeHost", stacklevel=4)) if own else None
        self._adopt(_Res("HostMemory", release, (rt,)))

    @property
    def buffer(self) -> memoryview:
        """A writable memoryview of the ``nbytes`` bytes (do not use it after close)."""
        self._check_open()
        return memoryview(ffi.buffer(self._ptr, self.nbytes))

    def numpy(self, dtype: npt.DTypeLike = "uint8", shape: ShapeLike | None = None) -> np.ndarray[Any, Any]:
        """A numpy view of the memory (no copy; do not use it after close)."""
        dt = np.dtype(dtype)
        a = np.frombuffer(self.buffer, dt, self.nbytes // dt.itemsize)
        return a if shape is None else a.reshape(shape)

    def view(self) -> memoryview:
        """The bytes in place (valid while the memory is open); the same as ``buffer``."""
        return self.buffer

    def memset(self, value: int = 0, nbytes: int | None = None, offset: int = 0, *,
               stream: Stream | None = None) -> None:
        """Set bytes to ``value`` (aclrtMemset, or aclrtMemsetAsync on ``stream``)."""
        self._check_open()
        _check_stream(stream)
        value = _args.integer(value, "value", 0, 255)
        offset = _args.integer(offset, "offset", 0)
        nbytes = self.nbytes - offset if nbytes is None else _args.integer(nbytes, "nbytes", 0)
        if offset + nbytes > self.nbytes:
            raise ValueError(f"range [{offset}, {offset + nbytes}) outside the {self.nbytes}-byte allocation")
        if not nbytes:
            return
        dst = ffi.cast("char *", self._ptr) + offset
        if stream is None:
            with _Hold(self):
                check(lib.aclrtMemset(dst, self.nbytes - offset, value, nbytes), "aclrtMemset")
        else:
            check(lib.aclrtMemsetAsync(dst, self.nbytes - offset, value, nbytes, stream.handle),
                  "aclrtMemsetAsync")
            stream._keep(self._res)

    def __repr__(self) -> str:
        if self.closed:
            return "<HostMemory closed>"
        return f"<HostMemory 0x{self._addr:x} nbytes={self.nbytes}{'' if self.owns_handle else ' borrowed'}>"


def _keep_for(stream: Stream, mem: CHandle, *host: object) -> None:
    """An async copy: the stream holds the memory and the host buffers until it syncs."""
    keep = keep_objects(*host)
    try:
        stream._keep(mem, keep)
    finally:
        keep.release()
