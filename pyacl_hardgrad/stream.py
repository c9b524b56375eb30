"""Streams and events (aclrtCreateStream / aclrtCreateEvent and friends)."""
from __future__ import annotations

import atexit
import threading
import weakref
from typing import TYPE_CHECKING, Callable

from . import _args
from ._binding import ffi, lib
from ._lifetime import CHandle, _Res, hold
from .errors import ClosedError, check, warn_status

if TYPE_CHECKING:
    from ._types import CData
    from .device import Device, _DeviceState

__all__ = ["Stream", "Event"]

_streams: "weakref.WeakSet[Stream]" = weakref.WeakSet()    # for the unpinning at exit


@atexit.register
def _unpin_at_exit() -> None:
    """Let go of the plans pinned on open streams before the interpreter tears down: a stream
    finalised in the last collection must not reach a release that runs Python code."""
    for s in list(_streams):
        try:
            if not s.closed:
                lib.hgb_stream_unpin(s._o)
        except Exception:       # exit goes on
            pass


class _HostCalls:
    """Python callables run by the runtime: one C trampoline, handles kept until they ran,
    and one report thread (aclrtProcessReport loop) for the streams it is subscribed to."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: dict[int, Callable[[], object]] = {}
        self._subscribed: set[int] = set()
        self._thread: threading.Thread | None = None
        self._thread_id = 0
        self._generation = 0                  # bumped by every subscription
        self._trampoline: Callable[..., None] | None = None

    def _run(self, arg: CData) -> None:
        key = int(ffi.cast("uintptr_t", arg))
        fn = self._live.pop(key, None)
        if fn is not None:
            fn()

    def _report_loop(self) -> None:
        while True:
            gen = self._generation
            st = lib.aclrtProcessReport(100)
            if st in (0, lib.ACL_ERROR_RT_REPORT_TIMEOUT):
                continue
            # nothing subscribed any more (streams gone), or the runtime was finalized --
            # unless a stream was subscribed meanwhile: then go on processing for it
            with self._lock:
                if gen != self._generation:
                    continue
                self._thread = None
                self._subscribed.clear()
                return

    def launch(self, stream: "Stream", fn: Callable[[], object], block: bool | None) -> None:
        if not callable(fn):
            raise TypeError(f"fn must be callable, got {type(fn).__name__}")
        stream._device_state.ensure_current()
        with self._lock:
            if self._trampoline is None:
                self._trampoline = ffi.callback("void(void *)", self._run)
            key = id(fn) ^ (len(self._live) << 48)
            while key in self._live:
                key += 1
            key &= (1 << 63) - 1
            self._live[key] = fn
            arg = ffi.cast("void *", key)
            try:
                if block is None:
                    check(lib.aclrtLaunchHostFunc(stream.handle, self._trampoline, arg), "aclrtLaunchHostFunc")
                    return
                self._subscribe(stream)
                kind = lib.ACL_CALLBACK_BLOCK if block else lib.ACL_CALLBACK_NO_BLOCK
                check(lib.aclrtLaunchCallback(self._trampoline, arg, kind, stream.handle), "aclrtLaunchCallback")
            except BaseException:
                self._live.pop(key, None)
                raise

    def _subscribe(self, stream: "Stream") -> None:
        """Caller holds the lock."""
        go = None
        if self._thread is None:
            started, go = threading.Event(), threading.Event()

            def main() -> None:
                self._thread_id = threading.get_ident()   # pthread_self() on POSIX
                started.set()
                go.wait()                                 # processes once subscribed
                self._report_loop()
            self._thread = threading.Thread(target=main, name="pyacl_hardgrad-report", daemon=True)
            self._thread.start()
            started.wait()
            self._subscribed.clear()
        try:
            handle = int(ffi.cast("uintptr_t", stream.handle))
            if handle not in self._subscribed:
                check(lib.aclrtSubscribeReport(self._thread_id, stream.handle), "aclrtSubscribeReport")
                self._subscribed.add(handle)
                self._generation += 1
        finally:
            if go is not None:
                go.set()


_host_calls = _HostCalls()

_tls = threading.local()
_sync_obj = lib.hgb_stream_sync
_CLOSED = lib.HGB_CLOSED


def _out_buffers() -> tuple[CData, CData, CData]:
    """Per-thread reusable out-parameters (no ffi.new on hot paths)."""
    b = getattr(_tls, "bufs", None)
    if b is None:
        b = _tls.bufs = (ffi.new("aclrtStream *"), ffi.new("float *"), ffi.new("aclrtEventRecordedStatus *"))
    return b


def sync_failed(stream: Stream, status: int) -> None:
    """Raise for a failed hgb_stream_sync of ``stream``."""
    if status == _CLOSED:
        raise ClosedError("Stream is closed")
    check(status, "aclrtSynchronizeStream")


class Stream(CHandle):
    """An ACL stream of one device; create it with ``device.create_stream()``.

    Work enqueued on it (copies, operators) runs in order, asynchronously.  The stream holds
    what its queued work uses (the handle layer's list, _binding_c/fused_calls.h) until the next
    ``synchronize()`` (or close), so closing a tensor or a plan right after launching work on it
    cannot free memory still in use.  A launch that repeats the previous one's resources (the
    same plan, the same one-call arguments) adds nothing to the list.
    """

    _addressed = True           # plan runs read ``_a`` (_binding_c/fastcall.c)
    __slots__ = ("_a",)         # a slot: C reads it at a fixed offset

    def __init__(self, device: Device | _DeviceState, *, _default: bool = False) -> None:
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
        _streams.add(self)

    def __int__(self) -> int:
        return int(ffi.cast("uintptr_t", self.handle))

    owns_handle = True

    @classmethod
    def from_handle(cls, handle: int | CData, device: Device | int | None = None, *,
                    own: bool = False) -> "Stream":
        """Wrap an aclrtStream made elsewhere: an int as pyACL's ``acl.rt.create_stream`` returns
        it (0: the default stream of the current context), or a cdata.

        ``own=False`` borrows it: ``close()`` waits for the work this object enqueued and lets go
        of what that work held, and the stream stays its creator's to destroy.  ``own=True``
        takes it over: ``close()`` also destroys it.  ``device`` (a Device or an id; default:
        the calling thread's current device) is the device it belongs to.
        """
        from .device import _as_handle, _held_state
        h = _as_handle(handle, "stream", null_ok=not own)
        state = _held_state(device)
        self = cls.__new__(cls)
        self._handle = h
        self._device_state = state
        self.owns_handle = bool(own)
        ctx = state.context if state.context is not None else ffi.NULL
        o = lib.hgb_stream_new(h, state.res._o, 1, ctx)
        if o == ffi.NULL:
            state.res.release()
            raise MemoryError("cannot track a Stream")
        if not own:
            lib.hgb_stream_borrowed(o)
        self._own(o)
        _streams.add(self)
        return self

    @property
    def device_id(self) -> int:
        return self._device_state.id

    def _keep(self, *holders: CHandle | _Res) -> None:
        """Hold the resources of ``holders`` (handles, or _Res) until the work enqueued so far
        has finished (the next synchronize())."""
        objs = [h._o for h in holders]
        if not lib.hgb_stream_hold(self._hold_open(), objs, len(objs)):
            raise ClosedError("a resource to keep for the stream has been released")

    def _hold_open(self) -> CData:
        if not self._live[0]:
            self._check_open()
        return self._o

    def _held(self) -> int:
        """How many resources the stream holds for queued work right now."""
        return int(lib.hgb_stream_held(self._o))

    def _pinned(self) -> int:
        """How many repeatable plans are pinned on this stream (each held until it is closed and
        the stream has synchronised since, or the stream is closed)."""
        return int(lib.hgb_stream_pinned(self._o))

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
        self._check_open()
        if event is not None:
            _args.instance(event, Event, "event")
            check(lib.aclrtRecordEvent(event.handle, self.handle), "aclrtRecordEvent")
            return event
        event = Event(self._device_state)
        try:
            check(lib.aclrtRecordEvent(event.handle, self.handle), "aclrtRecordEvent")
        except BaseException:
            event.close()
            raise
        return event

    def wait(self, event: "Event") -> None:
        """Make later work on this stream wait until ``event`` has completed."""
        _args.instance(event, Event, "event")
        check(lib.aclrtStreamWaitEvent(self.handle, event.handle), "aclrtStreamWaitEvent")

    def query(self) -> bool:
        """aclrtStreamQuery: True when everything enqueued so far has finished (no wait)."""
        status = ffi.new("aclrtStreamStatus *")
        check(lib.aclrtStreamQuery(self.handle, status), "aclrtStreamQuery")
        return bool(status[0] == lib.ACL_STREAM_STATUS_COMPLETE)

    def synchronize_timeout(self, timeout_ms: int) -> None:
        """aclrtSynchronizeStreamWithTimeout: like synchronize(), giving up after timeout_ms
        (RuntimeApiError ACL_ERROR_RT_STREAM_SYNC_TIMEOUT; -1 waits for ever).  Resources of
        enqueued work stay held until a synchronize() succeeds."""
        check(lib.aclrtSynchronizeStreamWithTimeout(self.handle, int(timeout_ms)),
              "aclrtSynchronizeStreamWithTimeout")

    def set_failure_mode(self, stop_on_failure: bool) -> None:
        """aclrtSetStreamFailureMode: ACL_STOP_ON_FAILURE or ACL_CONTINUE_ON_FAILURE (once)."""
        mode = lib.ACL_STOP_ON_FAILURE if stop_on_failure else lib.ACL_CONTINUE_ON_FAILURE
        check(lib.aclrtSetStreamFailureMode(self.handle, mode), "aclrtSetStreamFailureMode")

    def launch_host_func(self, fn: Callable[[], object]) -> None:
        """aclrtLaunchHostFunc: call ``fn()`` when the stream reaches this point; later work
        waits for it.  It runs on a runtime thread, holding the GIL; an exception it raises
        is printed, not raised here."""
        _host_calls.launch(self, fn, None)

    def launch_callback(self, fn: Callable[[], object], *, block: bool = True) -> None:
        """aclrtLaunchCallback: call ``fn()`` on this package's report thread (subscribed to
        the stream with aclrtSubscribeReport) when the stream reaches this point; with
        ``block`` later work waits for it (ACL_CALLBACK_BLOCK)."""
        _host_calls.launch(self, fn, bool(block))


    def __repr__(self) -> str:
        if self.closed:
            return "<Stream closed>"
        return f"<Stream 0x{int(self):x} on device {self.device_id}>"


class Event(CHandle):
    """An ACL event; create it with ``device.create_event()`` or ``stream.record()``.

    ``flags`` (``ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE ...``) creates it with
    aclrtCreateEventWithFlag: only SYNC events can be waited for and reset, only TIME_LINE
    ones give a timestamp; every event gives elapsed times.  Without flags it is a plain
    aclrtCreateEvent event, which can do all of it.
    """

    def __init__(self, device: Device | _DeviceState, flags: int | None = None) -> None:
        state = device._state if hasattr(device, "_state") else device
        state.ensure_current()
        p = ffi.new("aclrtEvent *")
        if flags is None:
            check(lib.aclrtCreateEvent(p), "aclrtCreateEvent")
        else:
            check(lib.aclrtCreateEventWithFlag(p, int(flags)), "aclrtCreateEventWithFlag")
        handle = p[0]
        self._handle = handle
        self._device_state = state
        try:
            dev = hold(state.res)
        except BaseException:
            warn_status(lib.aclrtDestroyEvent(handle), "aclrtDestroyEvent")
            raise
        self._own(lib.hgb_obj_new(lib.HGB_KIND_EVENT, handle, 0, [dev], 1, 1))

    def __int__(self) -> int:
        return int(ffi.cast("uintptr_t", self.handle))

    owns_handle = True

    @classmethod
    def from_handle(cls, handle: int | CData, device: Device | int | None = None, *,
                    own: bool = False) -> "Event":
        """Wrap an aclrtEvent made elsewhere (an int as pyACL returns it, or a cdata).

        ``own=False`` borrows it (``close()`` leaves it to its creator); ``own=True`` makes
        ``close()`` destroy it.  ``device``: as for ``Stream.from_handle``.
        """
        from .device import _as_handle, _held_state
        h = _as_handle(handle, "event")
        state = _held_state(device)
        self = cls.__new__(cls)
        self._handle = h
        self._device_state = state
        self.owns_handle = bool(own)
        kind = lib.HGB_KIND_EVENT if own else lib.HGB_KIND_FOREIGN      # borrowed: nothing to destroy
        self._own(lib.hgb_obj_new(kind, h, 0, [state.res._o], 1, 1))
        return self

    def record(self, stream: Stream) -> "Event":
        _args.instance(stream, Stream, "stream")
        check(lib.aclrtRecordEvent(self.handle, stream.handle), "aclrtRecordEvent")
        return self

    def synchronize(self, timeout_ms: int | None = None) -> None:
        """Block until the work recorded before this event has finished; with ``timeout_ms``
        give up after that long (aclrtSynchronizeEventWithTimeout: RuntimeApiError
        ACL_ERROR_RT_EVENT_SYNC_TIMEOUT)."""
        if timeout_ms is None:
            check(lib.aclrtSynchronizeEvent(self.handle), "aclrtSynchronizeEvent")
        else:
            check(lib.aclrtSynchronizeEventWithTimeout(self.handle, int(timeout_ms)),
                  "aclrtSynchronizeEventWithTimeout")

    def query(self) -> bool:
        """True when the recorded work has completed (does not block)."""
        status = _out_buffers()[2]
        check(lib.aclrtQueryEventStatus(self.handle, status), "aclrtQueryEventStatus")
        return bool(status[0] == lib.ACL_EVENT_RECORDED_STATUS_COMPLETE)

    def waiters_done(self) -> bool:
        """aclrtQueryEventWaitStatus: True when the latest record ran, so streams waiting for
        it may go on."""
        status = ffi.new("aclrtEventWaitStatus *")
        check(lib.aclrtQueryEventWaitStatus(self.handle, status), "aclrtQueryEventWaitStatus")
        return bool(status[0] == lib.ACL_EVENT_WAIT_STATUS_COMPLETE)

    def timestamp(self) -> int:
        """aclrtEventGetTimestamp: microseconds (runtime clock) when the latest record ran."""
        ts = ffi.new("uint64_t *")
        check(lib.aclrtEventGetTimestamp(self.handle, ts), "aclrtEventGetTimestamp")
        return int(ts[0])

    def elapsed_time(self, end: "Event") -> float:
        """Milliseconds between this event and ``end`` (both recorded and completed)."""
        _args.instance(end, Event, "end")
        ms = _out_buffers()[1]
        check(lib.aclrtEventElapsedTime(ms, self.handle, end.handle), "aclrtEventElapsedTime")
        return float(ms[0])

    def __repr__(self) -> str:
        return "<Event closed>" if self.closed else f"<Event 0x{int(self):x}>"
