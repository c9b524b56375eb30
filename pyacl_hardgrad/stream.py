"""Streams and events (aclrtCreateStream / aclrtCreateEvent and friends)."""
from __future__ import annotations

import threading

from ._binding import ffi, lib
from ._lifetime import Handle, _Res, release_all
from .errors import check, warn_status

__all__ = ["Stream", "Event"]

_tls = threading.local()
_sync_stream = lib.aclrtSynchronizeStream
# Entries held for unsynchronised work; past this many the stream is synchronised so the
# list cannot grow without bound when a caller never waits.
_PENDING_LIMIT = 4096


def _out_buffers():
    """Per-thread reusable out-parameters (no ffi.new on hot paths)."""
    b = getattr(_tls, "bufs", None)
    if b is None:
        b = _tls.bufs = (ffi.new("aclrtStream *"), ffi.new("float *"), ffi.new("aclrtEventRecordedStatus *"))
    return b


def _destroy_stream(handle, pending: list) -> None:
    try:
        warn_status(lib.aclrtSynchronizeStream(handle), "aclrtSynchronizeStream", stacklevel=4)
        warn_status(lib.aclrtDestroyStream(handle), "aclrtDestroyStream", stacklevel=4)
    finally:
        _drop_pending(pending)


def _drop_pending(pending: list) -> None:
    items = pending[:]
    del pending[:len(items)]
    _release_entries(items)


def _release_entries(items: list) -> None:
    """Release pending entries: a resource, or a tuple of resources one launch holds."""
    flat = []
    for e in items:
        if type(e) is tuple:
            flat.extend(e)
        else:
            flat.append(e)
    release_all(flat)


class Stream(Handle):
    """An ACL stream of one device; create it with ``device.create_stream()``.

    Work enqueued on it (copies, operators) runs in order, asynchronously.  Resources an
    enqueued operator uses are kept alive until the next ``synchronize()`` (or close), so
    closing a tensor right after launching work on it cannot free memory still in use.
    """

    def __init__(self, device, *, _default: bool = False):
        state = device._state if hasattr(device, "_state") else device
        state.ensure_current()
        p = _out_buffers()[0]
        check(lib.aclrtCreateStream(p), "aclrtCreateStream")
        handle = p[0]
        self._handle = handle
        pending: list[_Res] = []
        self._pending = pending
        self._device_state = state
        # The device's own default stream is owned by the device state and must not hold it.
        try:
            deps = () if _default else (state.res.retain(),)
        except BaseException:
            warn_status(lib.aclrtDestroyStream(handle), "aclrtDestroyStream")
            raise
        self._adopt(_Res("Stream", lambda: _destroy_stream(handle, pending), deps))

    @property
    def handle(self):
        """The aclrtStream cdata (never NULL: NULL would mean ACL's default stream)."""
        if not self._finalizer.alive:
            self._check_open()
        return self._handle

    def __int__(self):
        return int(ffi.cast("uintptr_t", self.handle))

    @property
    def device_id(self) -> int:
        return self._device_state.id

    def _keep(self, res: _Res) -> None:
        """Hold res until the work enqueued so far has finished."""
        pending = self._pending
        if pending and pending[-1] is res:      # already held until the next sync
            return
        res.retain()
        pending.append(res)
        if len(pending) > _PENDING_LIMIT:
            self.synchronize()

    def _keep_group(self, group: tuple) -> None:
        """Like _keep for resources the caller has already retained (ownership moves here)."""
        pending = self._pending
        if pending and pending[-1] == group:    # the same resources are held already
            release_all(group)
            return
        pending.append(group)
        if len(pending) > _PENDING_LIMIT:
            self.synchronize()

    def synchronize(self) -> None:
        """Block until everything enqueued on this stream has finished."""
        if not self._finalizer.alive:
            self._check_open()
        pending = self._pending
        if not pending:
            st = _sync_stream(self._handle)
            if st:
                check(st, "aclrtSynchronizeStream")
            return
        # Take the entries before waiting: whatever is added meanwhile was launched after
        # this wait began and must stay held.
        items = pending[:]
        del pending[:len(items)]
        st = _sync_stream(self._handle)
        if st:
            pending[:0] = items
            check(st, "aclrtSynchronizeStream")
        _release_entries(items)

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


class Event(Handle):
    """An ACL event; create it with ``device.create_event()`` or ``stream.record()``."""

    def __init__(self, device):
        state = device._state if hasattr(device, "_state") else device
        state.ensure_current()
        p = ffi.new("aclrtEvent *")
        check(lib.aclrtCreateEvent(p), "aclrtCreateEvent")
        handle = p[0]
        self._handle = handle
        self._device_state = state
        self._adopt(_Res("Event", lambda: warn_status(lib.aclrtDestroyEvent(handle), "aclrtDestroyEvent",
                                                      stacklevel=4), (state.res.retain(),)))

    @property
    def handle(self):
        if not self._finalizer.alive:
            self._check_open()
        return self._handle

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
