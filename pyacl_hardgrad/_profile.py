"""Profiling from Python: ``with hg.profile("out_dir") as prof: ...`` records what the runtime does
in the block (through CANN's profiling API, libmsprofiler) and writes a timeline that opens in
Perfetto and chrome://tracing; docs/profiling.md.

The block is a session of aclprofInit / aclprofCreateConfig / aclprofStart ... aclprofStop /
aclprofFinalize over the chosen devices, recording tasks (operators, copies, events, with flows
from each launch to its run and from each event record to the waits it releases), the device
memory in use and the marks of :meth:`Profile.mark` and :meth:`Profile.range`.  On the embedded
runtime the timeline is ``<out_dir>/PROF_.../mindstudio_profiler_output/msprof_<time>.json``
(:attr:`Profile.trace_path`); a CANN install writes its raw data there for msprof to parse.
"""
from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

from . import _msprof

__all__ = ["profile", "Profile"]


def _status(code: int, function: str) -> None:
    if code:
        from .errors import check
        check(code, function)


class Profile:
    """A profiling session: a context manager (``with hg.profile(dir) as prof``) whose block is
    recorded.  Made by :func:`profile`; entered once."""

    def __init__(self, out_dir: Path, devices: tuple[int, ...], memory: bool, marks: bool) -> None:
        self.out_dir = out_dir
        self.devices = devices
        self.memory = memory
        self.marks = marks
        self.trace_path: Path | None = None
        """The timeline written when the block ended (None before, or when the backend wrote none)."""
        self._config: Any = None
        self._started = False
        self._ended = False
        self._began_at = 0.0

    @property
    def running(self) -> bool:
        """Whether the block is being recorded now."""
        return self._started and not self._ended

    def __enter__(self) -> Profile:
        if self._started:
            raise RuntimeError("a Profile records one block: make a new one with hg.profile(...)")
        ffi, lib = _msprof.load()
        path = os.fsencode(self.out_dir)
        _status(lib.aclprofInit(path, len(path)), "aclprofInit")
        types = _msprof.ACL_PROF_ACL_API | _msprof.ACL_PROF_TASK_TIME
        if self.memory:
            types |= _msprof.ACL_PROF_TASK_MEMORY
        if self.marks:
            types |= _msprof.ACL_PROF_MSPROFTX
        ids = ffi.new("uint32_t[]", list(self.devices))
        config = lib.aclprofCreateConfig(ids, len(self.devices), _msprof.ACL_AICORE_NONE, ffi.NULL, types)
        if config == ffi.NULL:
            from .errors import AclError, recent_error_message
            message = recent_error_message()
            lib.aclprofFinalize()
            raise AclError(100000, "aclprofCreateConfig", message)
        code = lib.aclprofStart(config)
        if code:
            lib.aclprofDestroyConfig(config)
            lib.aclprofFinalize()
            _status(code, "aclprofStart")
        self._config = config
        self._started = True
        self._began_at = _now()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def stop(self) -> Path | None:
        """End the recording (the end of the ``with`` block does it) and return :attr:`trace_path`.
        Work still queued on a stream is not in the timeline: synchronize before the end."""
        if not self.running:
            return self.trace_path
        self._ended = True
        _, lib = _msprof.load()
        try:
            _status(lib.aclprofStop(self._config), "aclprofStop")
        finally:
            lib.aclprofDestroyConfig(self._config)
            self._config = None
            code = lib.aclprofFinalize()
        _status(code, "aclprofFinalize")
        self.trace_path = _newest_trace(self.out_dir, self._began_at)
        return self.trace_path

    def mark(self, message: str, stream: Any = None) -> None:
        """An instant mark now (aclprofMark); with ``stream`` (a :class:`~pyacl_hardgrad.Stream`) also
        one on that stream in its order (aclprofMarkEx)."""
        text = _message(message)
        ffi, lib = _msprof.load()
        if stream is not None:
            _status(lib.aclprofMarkEx(text, len(text), ffi.cast("void *", int(stream))), "aclprofMarkEx")
            return
        with _stamp(text) as stamp:
            _status(lib.aclprofMark(stamp), "aclprofMark")

    @contextmanager
    def range(self, message: str) -> Iterator[None]:
        """``with prof.range("step 1"):`` the block as a range on the calling thread
        (aclprofPush ... aclprofPop)."""
        text = _message(message)
        _, lib = _msprof.load()
        with _stamp(text) as stamp:
            _status(lib.aclprofPush(stamp), "aclprofPush")
            try:
                yield
            finally:
                _status(lib.aclprofPop(), "aclprofPop")

    def events(self) -> list[dict[str, Any]]:
        """The timeline's events (the JSON array of :attr:`trace_path`), once the block ended."""
        if self.trace_path is None:
            raise RuntimeError("no timeline: the profile has not ended, or the backend wrote none")
        events: list[dict[str, Any]] = json.loads(self.trace_path.read_text())
        return events

    def __repr__(self) -> str:
        state = "running" if self.running else f"trace {self.trace_path}" if self._ended else "not started"
        return f"<Profile {str(self.out_dir)!r} devices={list(self.devices)} {state}>"


def _now() -> float:
    import time
    return time.time()


def _message(message: str) -> bytes:
    if not isinstance(message, str):
        raise TypeError(f"message must be a str, not {type(message).__name__}")
    text = message.encode()
    if not 1 <= len(text) <= 128:
        raise ValueError(f"message must be 1 to 128 bytes in UTF-8, got {len(text)}")
    if b"\0" in text:
        raise ValueError("message must not contain NUL characters")
    return text


@contextmanager
def _stamp(text: bytes) -> Iterator[Any]:
    ffi, lib = _msprof.load()
    stamp = lib.aclprofCreateStamp()
    if stamp == ffi.NULL:
        raise MemoryError("aclprofCreateStamp failed")
    try:
        _status(lib.aclprofSetStampTraceMessage(stamp, text, len(text)), "aclprofSetStampTraceMessage")
        yield stamp
    finally:
        lib.aclprofDestroyStamp(stamp)


def _newest_trace(out_dir: Path, since: float) -> Path | None:
    found = [p for p in out_dir.glob("PROF_*/mindstudio_profiler_output/msprof_*.json")
             if p.stat().st_mtime >= since - 1.0]
    return max(found, key=lambda p: p.stat().st_mtime) if found else None


def profile(out_dir: str | os.PathLike[str], *, devices: Iterable[int] | None = None, memory: bool = True,
            marks: bool = True) -> Profile:
    """Profile a block: ``with hg.profile("out") as prof: ...``, then ``prof.trace_path``.

    ``out_dir``: the folder the results go to (created when missing).  ``devices``: the device
    ids recorded (default: every device).  ``memory``: counters of the device memory in use.
    ``marks``: the marks of :meth:`Profile.mark` / :meth:`Profile.range`.  One session runs at
    a time in a process (a second one raises :class:`~pyacl_hardgrad.AclError`).
    """
    if not isinstance(out_dir, (str, os.PathLike)):
        raise TypeError(f"out_dir must be a str or os.PathLike, not {type(out_dir).__name__}")
    path = Path(out_dir)
    if str(path) == "":
        raise ValueError("out_dir must not be empty")
    for name, flag in (("memory", memory), ("marks", marks)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} must be a bool, not {type(flag).__name__}")
    if devices is None:
        from .device import device_count
        ids = tuple(range(device_count()))
    else:
        if isinstance(devices, (str, bytes)) or not isinstance(devices, Iterable):
            raise TypeError(f"devices must be an iterable of device ids, not {type(devices).__name__}")
        ids = tuple(devices)
        for d in ids:
            if isinstance(d, bool) or not isinstance(d, int):
                raise TypeError(f"devices must hold ints, got {type(d).__name__}")
        if not ids:
            raise ValueError("devices must name at least one device")
        if len(set(ids)) != len(ids):
            raise ValueError(f"devices lists a device twice: {list(ids)}")
        from .device import device_count
        n = device_count()
        bad = [d for d in ids if not 0 <= d < n]
        if bad:
            raise ValueError(f"devices {bad} are not device ids in [0, {n})")
    return Profile(path, ids, memory, marks)
