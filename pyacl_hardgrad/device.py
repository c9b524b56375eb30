"""Devices: aclrtSetDevice / aclrtResetDevice, per-thread current device, factories."""
from __future__ import annotations

import threading
import warnings
from types import TracebackType
from typing import TYPE_CHECKING, Literal

from . import _allocator, _args
from ._binding import ffi, lib
from ._lifetime import Handle, _Res
from .errors import CleanupWarning, ClosedError, check, warn_status
from .runtime import _runtime_res

if TYPE_CHECKING:
    from typing_extensions import Self

    from ._allocator import MemoryStats
    from ._types import CData
    from .memory import DeviceMemory
    from .stream import Event, Stream

__all__ = ["Device", "device_count", "default_device", "release_defaults"]

_states_lock = threading.Lock()
_states: dict[int, "_DeviceState"] = {}
_tls = threading.local()


def _int32_buf() -> CData:
    b = getattr(_tls, "i32", None)
    if b is None:
        b = _tls.i32 = ffi.new("int32_t *")
    return b


class _DeviceState:
    """What all Device objects of one id share: one aclrtSetDevice, its default context and
    its default stream.  Alive while any Device object, stream, event or allocation of the
    device is."""

    def __init__(self, device_id: int):
        self.id = device_id
        rt = _runtime_res()
        try:
            check(lib.aclrtSetDevice(device_id), "aclrtSetDevice")
        except BaseException:
            rt.release()
            raise
        self.extra_sets = 0          # aclrtSetDevice calls made by make_current fallbacks
        self.context: CData | None = None
        p = ffi.new("aclrtContext *")
        if lib.aclrtGetCurrentContext(p) == 0 and p[0] != ffi.NULL:
            self.context = p[0]
        self.default_stream: Stream | None = None
        self._stream_lock = threading.Lock()
        self.res = _Res(f"Device({device_id})", self._release, (rt,))
        lib.hgb_obj_set_device(self.res._o, device_id)     # the allocator's key for its memory
        # what _fastcall.make allocates with: (device object, context) as integers; None until
        # the device has a context (the Python path makes it current first)
        self._alloc: tuple[int, int] | None
        self._alloc = None if self.context is None else (int(ffi.cast("uintptr_t", self.res._o)),
                                                         int(ffi.cast("uintptr_t", self.context)))

    def _release(self) -> None:
        with _states_lock:
            if _states.get(self.id) is self:
                del _states[self.id]
        s, self.default_stream = self.default_stream, None
        if s is not None:
            s.close()
        _allocator._release_device(self.id, self.context)   # idle cached blocks, before the reset
        for _ in range(self.extra_sets + 1):
            warn_status(lib.aclrtResetDevice(self.id), "aclrtResetDevice", stacklevel=5)

    def make_current(self) -> None:
        if self.context is not None:
            if lib.aclrtSetCurrentContext(self.context) == 0:
                return
        check(lib.aclrtSetDevice(self.id), "aclrtSetDevice")
        self.extra_sets += 1

    def ensure_current(self) -> None:
        """Make this device current on the calling thread unless it already is."""
        buf = _int32_buf()
        if lib.aclrtGetDevice(buf) == 0 and buf[0] == self.id:
            return
        self.make_current()

    def get_default_stream(self) -> Stream:
        s = self.default_stream
        if s is None or s.closed:
            from .stream import Stream
            with self._stream_lock:
                s = self.default_stream
                if s is None or s.closed:
                    s = self.default_stream = Stream(self, _default=True)
        return s


def _current_context() -> CData | None:
    """The calling thread's current context, None when no device is set (or no runtime)."""
    p = ffi.new("aclrtContext *")
    if lib.hgGetCurrentContext(p) == 0:             # the embedded runtime: asked without an error (or log line)
        return p[0] if p[0] != ffi.NULL else None
    if lib.aclrtGetCurrentContext(p) == 0 and p[0] != ffi.NULL:
        ctx: CData = p[0]
        return ctx
    lib.aclGetRecentErrMsg()                        # the failure is expected: drop its text
    return None


def _acquire_state(device_id: int) -> _DeviceState:
    with _states_lock:
        st = _states.get(device_id)
        if st is not None:
            try:
                st.res.retain()
                return st
            except ClosedError:     # being released right now: start afresh
                pass
        st = _DeviceState(device_id)
        _states[device_id] = st
        return st


class Device(Handle):
    """One NPU (device_id); ``aclrtSetDevice`` on creation, ``aclrtResetDevice`` once the
    device is no longer used by any Device object, stream, event, allocation or tensor.

    Creating it makes it current on the calling thread; other threads call
    ``make_current()`` (the factories do that for you).
    """

    def __init__(self, device_id: int = 0):
        device_id = _args.integer(device_id, "device_id", 0, _args.INT32_MAX)
        self._prev_context = _current_context()     # restored by __exit__
        self._state = _acquire_state(device_id)
        self._adopt(self._state.res)
        self._id = device_id

    @property
    def id(self) -> int:
        return self._id

    def close(self) -> None:
        """Release this handle.  Work still queued on the device's default stream is waited
        for first: it keeps its tensors and memory alive, and they keep the device set, so
        without the wait a closed device would stay set until the process exits."""
        if not self.closed:
            s = self._state.default_stream
            if s is not None and not s.closed:
                try:
                    s.synchronize()
                except Exception as exc:        # never mask what the caller is doing
                    warnings.warn(f"synchronizing the default stream of device {self._id} on close "
                                  f"failed: {exc}", CleanupWarning, stacklevel=2)
        super().close()

    def __index__(self) -> int:
        return self._id

    def __enter__(self) -> Self:
        self.make_current()
        return super().__enter__()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> Literal[False]:
        """Close, and make the device that was current on this thread before current again."""
        try:
            return super().__exit__(exc_type, exc, tb)
        finally:
            prev, self._prev_context = self._prev_context, None
            if prev is not None:
                lib.aclrtSetCurrentContext(prev)     # fails harmlessly if that device is gone
                lib.aclGetRecentErrMsg()

    def can_access_peer(self, peer: "Device | int") -> bool:
        """aclrtDeviceCanAccessPeer(this device, peer)."""
        out = ffi.new("int32_t *")
        check(lib.aclrtDeviceCanAccessPeer(out, self._id, int(peer)), "aclrtDeviceCanAccessPeer")
        return bool(out[0])

    def enable_peer_access(self, peer: "Device | int") -> None:
        """aclrtDeviceEnablePeerAccess from this device: copies it issues may then touch the
        peer's memory (one direction)."""
        self._check_open()
        self._state.ensure_current()
        check(lib.aclrtDeviceEnablePeerAccess(int(peer), 0), "aclrtDeviceEnablePeerAccess")

    def disable_peer_access(self, peer: "Device | int") -> None:
        self._check_open()
        self._state.ensure_current()
        check(lib.aclrtDeviceDisablePeerAccess(int(peer)), "aclrtDeviceDisablePeerAccess")

    def make_current(self) -> "Device":
        """Make this device the calling thread's current device."""
        self._check_open()
        self._state.make_current()
        return self

    def synchronize(self) -> None:
        """Block until all work on every stream of the device has finished."""
        self._check_open()
        self._state.ensure_current()
        check(lib.aclrtSynchronizeDevice(), "aclrtSynchronizeDevice")

    @property
    def soc_name(self) -> str:
        """aclrtGetSocName(), e.g. "Ascend910B1" ('' when unknown)."""
        self._check_open()
        p = lib.aclrtGetSocName()
        return "" if p == ffi.NULL else ffi.string(p).decode()

    def mem_info(self, attr: int | None = None) -> tuple[int, int]:
        """(free, total) bytes of device memory via aclrtGetMemInfo (HBM by default)."""
        if attr is not None:                # an aclrtMemAttr value (lib.ACL_HBM_MEM, ...)
            attr = _args.integer(attr, "attr", 0, 2**32 - 1)
        self._check_open()
        self._state.ensure_current()
        free, total = ffi.new("size_t *"), ffi.new("size_t *")
        check(lib.aclrtGetMemInfo(lib.ACL_HBM_MEM if attr is None else attr, free, total), "aclrtGetMemInfo")
        return int(free[0]), int(total[0])

    @property
    def default_stream(self) -> Stream:
        """The device's stream used by operators called without ``stream=``.  It lives as
        long as the device is in use."""
        self._check_open()
        return self._state.get_default_stream()

    def create_stream(self) -> Stream:
        from .stream import Stream
        self._check_open()
        return Stream(self._state)

    def create_event(self, flags: int | None = None) -> Event:
        """An Event; ``flags`` (ACL_EVENT_SYNC, ACL_EVENT_TIME_LINE, ...) uses
        aclrtCreateEventWithFlag."""
        from .stream import Event
        self._check_open()
        return Event(self._state, flags)

    def allocate(self, nbytes: int, policy: int | None = None) -> DeviceMemory:
        """``DeviceMemory`` of nbytes: from the caching allocator by default, one aclrtMalloc
        with ``policy`` when one is given."""
        from .memory import DeviceMemory
        self._check_open()
        return DeviceMemory(self._state, nbytes, policy)

    def memory_stats(self) -> MemoryStats:
        """The caching allocator's statistics for this device (``hg.memory_stats``)."""
        return _allocator.memory_stats(self._id)

    def empty_cache(self) -> None:
        """Free this device's idle cached blocks (``hg.empty_cache``)."""
        self._check_open()
        _allocator.empty_cache(self._id)

    def __repr__(self) -> str:
        return f"<Device {self._id}{' closed' if self.closed else ''}>"


def device_count() -> int:
    """aclrtGetDeviceCount()."""
    rt = _runtime_res()
    try:
        n = ffi.new("uint32_t *")
        check(lib.aclrtGetDeviceCount(n), "aclrtGetDeviceCount")
        return int(n[0])
    finally:
        rt.release()


_default_lock = threading.Lock()
_default: Device | None = None


def default_device() -> Device:
    """Device 0, opened on first use, for calls that are handed numpy arrays."""
    global _default
    with _default_lock:
        if _default is None or _default.closed:
            _default = Device(0)
        return _default


def default_stream() -> Stream:
    """The default stream of the default device (where calls with host arrays only run)."""
    d = _default
    if d is None or not d._live[0]:
        d = default_device()
    return d._state.get_default_stream()


def _default_state() -> _DeviceState:
    """default_device()'s state without the lock while it is open (an allocation on a state
    that is being released at that moment fails with HGB_GONE and retries the locked way)."""
    d = _default
    if d is not None and d._live[0]:
        return d._state
    return default_device()._state


def release_defaults() -> None:
    """Close the default device and its default stream, and the cached float32 bound Scalars
    of the one-call operators (all are made again on demand).  The default streams of every
    device in use are synchronised first, so work queued on them lets go of what it held (the
    last reference to a device may be such work's, after its Device objects were closed)."""
    global _default
    with _states_lock:
        streams = [st.default_stream for st in _states.values() if st.default_stream is not None]
    for s in streams:
        if not s.closed:
            try:
                s.synchronize()
            except Exception as exc:        # never mask what the caller is doing
                warnings.warn(f"synchronizing a default stream failed: {exc}", CleanupWarning, stacklevel=2)
    with _default_lock:
        d, _default = _default, None
    if d is not None:
        d.close()
    from .scalar import release_cached_scalars
    release_cached_scalars()


def _held_state(device: Device | int | None) -> _DeviceState:
    """The device state a foreign handle belongs to, with one reference the caller owns:
    ``device`` (a Device or an id), else the calling thread's current device, else device 0."""
    if isinstance(device, Device):
        device._check_open()
        device._state.res.retain()
        return device._state
    if device is None:
        rt = _runtime_res()
        try:
            buf = _int32_buf()
            device = buf[0] if lib.aclrtGetDevice(buf) == 0 else 0
        finally:
            rt.release()
    return _acquire_state(int(device))


def _as_handle(handle: int | CData, what: str, *, null_ok: bool = False) -> CData:
    """A handle given as pyACL gives it (an int address) or as a cdata, as ``void *``."""
    if isinstance(handle, int) and not isinstance(handle, bool):
        if not 0 <= handle < 1 << 64:
            raise ValueError(f"{what} handle {handle} is not an address")
        p = ffi.cast("void *", handle)
    elif isinstance(handle, ffi.CData) and ffi.typeof(handle).kind == "pointer":
        p = ffi.cast("void *", handle)
    else:
        raise TypeError(f"{what} handle must be an int (as pyACL returns it) or a cdata pointer, "
                        f"not {type(handle).__name__}")
    if p == ffi.NULL and not null_ok:
        raise ValueError(f"{what} handle is NULL (0)")
    return p


def _state_of(obj: Device | _DeviceState | None) -> _DeviceState:
    if isinstance(obj, Device):
        obj._check_open()
        return obj._state
    if isinstance(obj, _DeviceState):
        return obj
    if obj is None:
        return default_device()._state
    raise TypeError(f"device must be a Device (or None for device 0), got {type(obj).__name__}")
