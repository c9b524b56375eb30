"""Device memory (aclrtMalloc / aclrtFree) and copies between host and device."""
from __future__ import annotations

import numpy as np

from ._binding import ffi, lib
from ._lifetime import CHandle, hold, keep_objects
from .errors import check, warn_status

__all__ = ["DeviceMemory", "Workspace"]

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


class DeviceMemory(CHandle):
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
            dep = hold(state.res)
        except BaseException:
            lib.aclrtFree(ptr)
            raise
        self._own(lib.hgb_obj_new(lib.HGB_KIND_MEMORY, ptr, 0, [dep], 1, 1))

    @classmethod
    def _wrap(cls, o, nbytes: int, state) -> "DeviceMemory":
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
            _keep_for(stream, self, src, buf)

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
                _keep_for(stream, self, dst, buf)
        return dst

    def copy_from_device(self, src: "DeviceMemory", nbytes: int | None = None, *, stream=None) -> None:
        """Device-to-device copy of ``nbytes`` (default: all of src) to the start of this memory."""
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
            stream._keep(self, src)

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


def _keep_for(stream, mem: DeviceMemory, *host) -> None:
    """An async copy: the stream holds the memory and the host buffers until it syncs."""
    keep = keep_objects(*host)
    try:
        stream._keep(mem, keep)
    finally:
        keep.release()
