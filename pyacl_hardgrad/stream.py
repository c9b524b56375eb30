"""Streams and events (aclrtCreateStream / aclrtCreateEvent and friends)."""
from __future__ import annotations

import threading

from ._binding import ffi, lib
from ._lifetime import CHandle, hold
from .errors import ClosedError, check, warn_status

__all__ = ["Stream", "Event"]

_tls = threading.local()
_sync_obj = lib.hgb_stream_sync
_CLOSED = lib.HGB_CLOSED


def _out_buffers():
    """Per-thread reusable out-parameters (no ffi.new on hot paths)."""
    b = getattr(_tls, "bufs", None)
    if b is None:
        b = _tls.bufs = (ffi.new("aclrtStream *"), ffi.new("float *"), ffi.new("aclrtEventRecordedStatus *"))
    return b


def sync_failed(stream, status: int):
    """Raise for a failed hgb_stream_sync of ``stream``."""
    if status == _CLOSED:
        raise ClosedError("Stream is closed")
    check(status, "aclrtSynchronizeStream")


class Stream(CHandle):
    """An ACL stream of one device; create it with ``device.create_stream()``.

    Work enqueued on it (copies, operators) runs in order, asynchronously.  The stream holds
    what its queued work uses (the handle layer's list, _build/fused_calls.h) until the next
    ``synchronize()`` (or close), so closing a tensor or a plan right after launching work on it
    cannot free memory still in use.  A launch that repeats the previous one's resources (the
    same plan, the same one-call arguments) adds nothing to the list.
    """

    def __init__(self, device, *, _default: bool = False):
        state = device._state if hasattr(device, "_state") else device
        state.ensure_current()
        p = _out_buffers()[0]
        check(lib.aclrtCreateStream(p), "aclrtCreateStream")
        handle = p[0]
        self._handle = handle
        self._device_state = state
        # The device's own default stream is owned by the device state and must not hold it.
        try:
            dev = state.res._o if _default else hold(state.res)
        except BaseException:
            warn_status(lib.aclrtDestroyStream(handle), "aclrtDestroyStream")
            raise
        ctx = state.context if state.context is not None else ffi.NULL
        o = lib.hgb_stream_new(handle, dev, 0 if _default else 1, ctx)
        if o == ffi.NULL:
            warn_status(lib.aclrtDestroyStream(handle), "aclrtDestroyStream")
            if not _default:
                lib.hgb_obj_release(dev)
            raise MemoryError("cannot track a Stream")
        self._own(o)

    def __int__(self):
        return int(ffi.cast("uintptr_t", self.handle))

    @property
    def device_id(self) -> int:
        return self._device_state.id

    def _keep(self, *holders) -> None:
        """Hold the resources of ``holders`` (handles, or _Res) until the work enqueued so far
        has finished (the next synchronize())."""
        objs = [h._o for h in holders]
        if not lib.hgb_stream_hold(self._hold_open(), objs, len(objs)):
            raise ClosedError("a resource to keep for the stream has been released")

    def _hold_open(self):
        if not self._live[0]:
            self._check_open()
        return self._o

    def _held(self) -> int:
        """How many resources the stream holds for queued work right now."""
        return lib.hgb_stream_held(self._o)

    def synchronize(self) -> None:
        """Block until everything enqueued on this stream has finished (then let go of what
        that work held)."""
        if not self._live[0]:
            self._check_open()
        st = _sync_obj(self._o)
        if st:
            sync_failed(self, st)

    def record(self, event: "Event | None" = None) -> "Event":
        """Record ``event`` (a new one when None) on this stream and return it."""
        if event is None:
            event = Event(self._device_state)
        check(lib.aclrtRecordEvent(event.handle, self.handle), "aclrtRecordEvent")
        return event

    def wait(self, event: "Event") -> None:
        """Make later work on this stream wait until ``event`` has completed."""
        check(lib.aclrtStreamWaitEvent(self.handle, event.handle), "aclrtStreamWaitEvent")

    def __repr__(self):
        if self.closed:
            return "<Stream closed>"
        return f"<Stream 0x{int(self):x} on device {self.device_id}>"


class Event(CHandle):
    """An ACL event; create it with ``device.create_event()`` or ``stream.record()``."""

    def __init__(self, device):
        state = device._state if hasattr(device, "_state") else device
        state.ensure_current()
        p = ffi.new("aclrtEvent *")
        check(lib.aclrtCreateEvent(p), "aclrtCreateEvent")
        handle = p[0]
        self._handle = handle
        self._device_state = state
        try:
            dev = hold(state.res)
        except BaseException:
            warn_status(lib.aclrtDestroyEvent(handle), "aclrtDestroyEvent")
            raise
        self._own(lib.hgb_obj_new(lib.HGB_KIND_EVENT, handle, 0, [dev], 1, 1))

    def __int__(self):
        return int(ffi.cast("uintptr_t", self.handle))

    def record(self, stream: Stream) -> "Event":
        check(lib.aclrtRecordEvent(self.handle, stream.handle), "aclrtRecordEvent")
        return self

    def synchronize(self) -> None:
        """Block until the work recorded before this event has finished."""
        check(lib.aclrtSynchronizeEvent(self.handle), "aclrtSynchronizeEvent")

    def query(self) -> bool:
        """True when the recorded work has completed (does not block)."""
        status = _out_buffers()[2]
        check(lib.aclrtQueryEventStatus(self.handle, status), "aclrtQueryEventStatus")
        return status[0] == lib.ACL_EVENT_RECORDED_STATUS_COMPLETE

    def elapsed_time(self, end: "Event") -> float:
        """Milliseconds between this event and ``end`` (both recorded and completed)."""
        ms = _out_buffers()[1]
        check(lib.aclrtEventElapsedTime(ms, self.handle, end.handle), "aclrtEventElapsedTime")
        return float(ms[0])

    def __repr__(self):
        return "<Event closed>" if self.closed else f"<Event 0x{int(self):x}>"
