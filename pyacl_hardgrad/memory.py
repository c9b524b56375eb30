"""Device memory (aclrtMalloc / aclrtFree) and copies between host and device."""
from __future__ import annotations

import numpy as np

from ._binding import ffi, lib
from ._lifetime import Handle, _Res
from .errors import check, warn_status

__all__ = ["DeviceMemory", "Workspace", "HostMemory"]

_H2D = lib.ACL_MEMCPY_HOST_TO_DEVICE
_D2H = lib.ACL_MEMCPY_DEVICE_TO_HOST
_D2D = lib.ACL_MEMCPY_DEVICE_TO_DEVICE
_HUGE_FIRST = lib.ACL_MEM_MALLOC_HUGE_FIRST


def _host_view(obj, writable: bool):
    """(cdata pointer, nbytes) of a host buffer (bytes, bytearray, memoryview, numpy array)."""
    if isinstance(obj, np.ndarray):
        if not obj.flags.c_contiguous:
            raise ValueError("host arrays must be C-contiguous")
        obj = obj.reshape(-1).view(np.uint8)   # any dtype, also ml_dtypes' bfloat16
    buf = ffi.from_buffer(obj, require_writable=writable)
    return buf, len(buf)


class _Addressed:
    """``ptr`` (a ``void *`` cdata) and ``int(mem)`` of an allocation at ``_ptr`` / ``_addr``."""

    @property
    def ptr(self):
        """The address as a ``void *`` cdata."""
        if not self._live[0]:
            self._check_open()
        return self._ptr

    def __int__(self):
        self._check_open()
        return self._addr

    __index__ = __int__


class DeviceMemory(_Addressed, Handle):
    """``nbytes`` of device memory; ``int(mem)`` is its address (as pyACL hands them out).

    Create it with ``device.allocate(nbytes)``.  Copies are synchronous unless a stream is
    given; an async copy keeps its host buffer alive until that stream is synchronized.
    """

    def __init__(self, device, nbytes: int, policy: int | None = None):
        from .device import _state_of
        state = _state_of(device)
        nbytes = int(nbytes)
        if nbytes < 0:
            raise ValueError(f"nbytes must be >= 0, got {nbytes}")
        state.ensure_current()
        p = ffi.new("void **")
        # ACL rejects size 0; an empty allocation still gets a distinct, valid address.
        check(lib.aclrtMalloc(p, max(nbytes, 1), _HUGE_FIRST if policy is None else int(policy)), "aclrtMalloc")
        ptr = p[0]
        self._ptr = ptr
        self._addr = int(ffi.cast("uintptr_t", ptr))
        self.nbytes = nbytes
        self._device_state = state
        try:
            dep = state.res.retain()
        except BaseException:
            lib.aclrtFree(ptr)
            raise
        self._adopt(_Res(type(self).__name__,
                         lambda: warn_status(lib.aclrtFree(ptr), "aclrtFree", stacklevel=4), (dep,)))

    @property
    def device_id(self) -> int:
        return self._device_state.id

    def _range(self, nbytes, offset):
        offset = int(offset)
        if nbytes is None:
            nbytes = self.nbytes - offset
        nbytes = int(nbytes)
        if offset < 0 or nbytes < 0 or offset + nbytes > self.nbytes:
            raise ValueError(f"range [{offset}, {offset + nbytes}) outside the {self.nbytes}-byte allocation")
        return nbytes, offset

    def copy_from_host(self, src, nbytes: int | None = None, offset: int = 0, *, stream=None) -> None:
        """Copy a host buffer into this memory at byte ``offset`` (aclrtMemcpy[Async])."""
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
            check(lib.aclrtMemcpy(dst, self.nbytes - offset, buf, nbytes, _H2D), "aclrtMemcpy")
        else:
            check(lib.aclrtMemcpyAsync(dst, self.nbytes - offset, buf, nbytes, _H2D, stream.handle),
                  "aclrtMemcpyAsync")
            stream._pending.append(_KeepObject(src, buf))
            stream._keep(self._res)

    def copy_to_host(self, dst=None, nbytes: int | None = None, offset: int = 0, *, stream=None):
        """Copy this memory (from byte ``offset``) to a host buffer; a new bytearray when
        ``dst`` is None.  With a stream the copy is async: sync the stream before reading."""
        if dst is None:
            nbytes, offset = self._range(nbytes, offset)
            dst = bytearray(nbytes)
        buf, n = _host_view(dst, True)
        if nbytes is None:
            nbytes = min(n, self.nbytes - offset)
        nbytes, offset = self._range(nbytes, offset)
        if nbytes > n:
            raise ValueError(f"destination holds {n} bytes, {nbytes} requested")
        if nbytes:
            src = ffi.cast("char *", self.ptr) + offset
            if stream is None:
                check(lib.aclrtMemcpy(buf, n, src, nbytes, _D2H), "aclrtMemcpy")
            else:
                check(lib.aclrtMemcpyAsync(buf, n, src, nbytes, _D2H, stream.handle), "aclrtMemcpyAsync")
                stream._pending.append(_KeepObject(dst, buf))
                stream._keep(self._res)
        return dst

    def copy_from_device(self, src: "DeviceMemory", nbytes: int | None = None, *, stream=None) -> None:
        """Device-to-device copy of ``nbytes`` (default: all of src) to the start of this memory.
        src may live on another device once the current device has peer access to it
        (``Device.enable_peer_access``)."""
        nbytes = src.nbytes if nbytes is None else int(nbytes)
        self._range(nbytes, 0)
        src._range(nbytes, 0)
        if not nbytes:
            return
        if stream is None:
            check(lib.aclrtMemcpy(self.ptr, self.nbytes, src.ptr, nbytes, _D2D), "aclrtMemcpy")
        else:
            check(lib.aclrtMemcpyAsync(self.ptr, self.nbytes, src.ptr, nbytes, _D2D, stream.handle),
                  "aclrtMemcpyAsync")
            stream._keep(self._res)
            stream._keep(src._res)

    def memset(self, value: int = 0, nbytes: int | None = None, offset: int = 0) -> None:
        """Set bytes to ``value`` (aclrtMemset)."""
        nbytes, offset = self._range(nbytes, offset)
        if nbytes:
            dst = ffi.cast("char *", self.ptr) + offset
            check(lib.aclrtMemset(dst, self.nbytes - offset, int(value), nbytes), "aclrtMemset")

    def __repr__(self):
        if self.closed:
            return f"<{type(self).__name__} closed>"
        return f"<{type(self).__name__} 0x{self._addr:x} nbytes={self.nbytes} device={self.device_id}>"


class Workspace(DeviceMemory):
    """Device memory handed to phase 2 of an operator (same as DeviceMemory otherwise)."""


class _KeepObject(_Res):
    """Keeps Python objects (host buffers of async copies) alive until the stream syncs."""

    __slots__ = ("_objs",)

    def __init__(self, *objs):
        super().__init__("host buffer")
        self._objs = objs

    def _finish(self):
        self._objs = ()
        super()._finish()


class HostMemory(_Addressed, Handle):
    """``nbytes`` of page-locked host memory (aclrtMallocHost / aclrtFreeHost).  The runtime's
    copies and sets accept it beside device memory: ``memset`` works on it, asynchronous
    copies from or to it run on the stream.  ``mem.view()`` (a memoryview, also for
    ``np.frombuffer``) reads and writes it in place."""

    def __init__(self, nbytes: int):
        from .runtime import _runtime_res
        nbytes = int(nbytes)
        if nbytes < 1:
            raise ValueError(f"nbytes must be >= 1, got {nbytes}")
        rt = _runtime_res()
        p = ffi.new("void **")
        try:
            check(lib.aclrtMallocHost(p, nbytes), "aclrtMallocHost")
        except BaseException:
            rt.release()
            raise
        ptr = p[0]
        self._ptr = ptr
        self._addr = int(ffi.cast("uintptr_t", ptr))
        self.nbytes = nbytes
        self._buffer = ffi.buffer(ptr, nbytes)
        self._adopt(_Res("HostMemory", lambda: warn_status(lib.aclrtFreeHost(ptr), "aclrtFreeHost", stacklevel=4),
                         (rt,)))

    def view(self) -> memoryview:
        """The bytes in place (valid while the memory is open)."""
        self._check_open()
        return memoryview(self._buffer)

    def memset(self, value: int = 0, nbytes: int | None = None, offset: int = 0, *, stream=None) -> None:
        """Set bytes to ``value`` (aclrtMemset, or aclrtMemsetAsync on ``stream``)."""
        self._check_open()
        offset = int(offset)
        nbytes = self.nbytes - offset if nbytes is None else int(nbytes)
        if offset < 0 or nbytes < 0 or offset + nbytes > self.nbytes:
            raise ValueError(f"range [{offset}, {offset + nbytes}) outside the {self.nbytes}-byte allocation")
        if not nbytes:
            return
        dst = ffi.cast("char *", self._ptr) + offset
        if stream is None:
            check(lib.aclrtMemset(dst, self.nbytes - offset, int(value), nbytes), "aclrtMemset")
        else:
            check(lib.aclrtMemsetAsync(dst, self.nbytes - offset, int(value), nbytes, stream.handle),
                  "aclrtMemsetAsync")
            stream._keep(self._res)

    def __repr__(self):
        if self.closed:
            return "<HostMemory closed>"
        return f"<HostMemory 0x{self._addr:x} nbytes={self.nbytes}>"
