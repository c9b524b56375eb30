"""Object tracking: which Python-layer handles are alive and open, and where each was made.

While tracking is on (``with hg.track_objects() as tracker:``, nestable, process-wide), every
handle the package makes -- Tensor (views and the tensors made in C by ``hg.empty`` and the
one-call operators included), Stream, Event, DeviceMemory/Workspace, HostMemory, Scalar, every
operator plan, Context, Device, Runtime -- is recorded with the first frame of the call stack that
lies outside the package: the user's ``file:line``.

The records hold weak references only (tracking never keeps an object alive) and nothing runs
when a tracked object dies: dead records are swept out as new ones are added.  The hooks:
``_lifetime._track`` (called by ``Handle._adopt``, ``CHandle._own`` and ``tensor.made_tensor``)
and ``_fastcall.set_tracker`` (called by the C code that makes tensors); with tracking off each is
one test of a pointer.
"""
from __future__ import annotations

import itertools
import os
import sys
import threading
import weakref
from dataclasses import dataclass
from types import FrameType, TracebackType
from typing import Any

__all__ = ["ObjectRecord", "ObjectTracker", "track_objects", "live_objects", "close_objects"]

_PKG = os.path.dirname(os.path.abspath(__file__)) + os.sep
_PKG_OWN_CODE = (_PKG + "_embedded" + os.sep,)   # files in the package that are not its library code
_GENERATED = "<pyacl_hardgrad."                   # the generated operator functions' file names

_lock = threading.RLock()
_seq = itertools.count(1)
# (weak reference, sequence number, file, line, function) per recorded object, oldest first
_entries: list[tuple[weakref.ref[Any], int, str, int, str]] = []
_sweep_at = 1024            # sweep dead entries when the list reaches this length
_depth = 0                  # open ObjectTrackers
_internal_files: dict[str, bool] = {}


def _internal(filename: str) -> bool:
    """Whether a frame of this file is the package's own code (skipped when finding the site)."""
    r = _internal_files.get(filename)
    if r is None:
        r = filename.startswith(_GENERATED) or (
            os.path.abspath(filename).startswith(_PKG) and not os.path.abspath(filename).startswith(_PKG_OWN_CODE))
        if len(_internal_files) < 4096:
            _internal_files[filename] = r
    return r


def _record(obj: object) -> None:
    """The hook: note ``obj`` (just made) with the first caller outside the package."""
    try:
        f: FrameType | None = sys._getframe(1)
    except ValueError:          # called from C with no Python caller (a thread made in C)
        f = None
    while f is not None and _internal(f.f_code.co_filename):
        f = f.f_back
    if f is None:
        where = ("<unknown>", 0, "?")
    else:
        where = (f.f_code.co_filename, f.f_lineno or 0, f.f_code.co_name)
    del f
    try:
        ref = weakref.ref(obj)
    except TypeError:           # a type without weak references: not trackable
        return
    global _sweep_at
    with _lock:
        _entries.append((ref, next(_seq), *where))
        if len(_entries) >= _sweep_at:
            _entries[:] = [e for e in _entries if e[0]() is not None]
            _sweep_at = max(1024, 2 * len(_entries))


def _install(on: bool) -> None:
    from . import _fastcall, _lifetime
    _lifetime._track = _record if on else None
    _fastcall.set_tracker(_record if on else None)


def _describe(obj: Any) -> str:
    """``kind`` and what identifies the object: shape and dtype, size, value, device."""
    kind = type(obj).__name__
    parts = [kind]
    try:
        shape = getattr(obj, "shape", None)
        if shape is not None:
            parts.append(f"shape={tuple(shape)} dtype={obj.dtype}")
        elif kind == "Scalar":
            parts.append(f"{obj.value} {obj.dtype}")
        elif isinstance(getattr(obj, "nbytes", None), int):
            parts.append(f"{obj.nbytes} bytes")
        if kind == "Device":
            parts.append(str(obj.id))
        else:
            state = getattr(obj, "_device_state", None) or getattr(obj, "_state", None)
            dev = getattr(state, "id", None)
            if isinstance(dev, int):
                parts.append(f"device={dev}")
    except Exception:           # a half-made object: its type is all there is to say
        pass
    return " ".join(parts)


@dataclass(frozen=True)
class ObjectRecord:
    """A tracked object that is alive: what it is and where it was made."""

    kind: str            #: its class name: "Tensor", "DeviceMemory", "Stream", "HardtanhBackwardPlan", ...
    #: kind with shape and dtype, size or value, and device: "Tensor shape=(4, 2) dtype=float32 device=0"
    description: str
    filename: str        #: where it was made: the first frame outside the package
    lineno: int
    function: str
    closed: bool         #: whether it was closed when the record was taken
    seq: int             #: creation order among tracked objects
    ref: weakref.ref[Any]  #: the object (a weak reference)

    @property
    def site(self) -> str:
        """``file:line`` where it was made."""
        return f"{self.filename}:{self.lineno}"

    @property
    def object(self) -> Any:
        """The object, or None once it has been freed."""
        return self.ref()

    def __str__(self) -> str:
        return f"{self.description}, created at {self.site} (in {self.function})"


def _package_owned() -> set[int]:
    """ids of the objects the package keeps for itself: the default device, each device's
    default stream, the one-call operators' cached float32 Scalars."""
    ids: set[int] = set()
    dev = sys.modules.get(f"{__package__}.device")
    if dev is not None:
        if dev._default is not None:
            ids.add(id(dev._default))
        with dev._states_lock:
            states = list(dev._states.values())
        ids.update(id(st.default_stream) for st in states if st.default_stream is not None)
    sc = sys.modules.get(f"{__package__}.scalar")
    if sc is not None:
        with sc._cache_lock:
            ids.update(id(s) for s in sc._float32_cache.values())
    return ids


def _records(since: int, until: int | None, include_closed: bool, exclude: set[int]) -> list[ObjectRecord]:
    with _lock:
        entries = list(_entries)
    skip = _package_owned() | exclude
    out = []
    for ref, seq, filename, lineno, function in entries:
        if seq <= since or (until is not None and seq > until):
            continue
        obj = ref()
        if obj is None or id(obj) in skip:
            continue
        closed = bool(getattr(obj, "closed", False))
        if closed and not include_closed:
            continue
        out.append(ObjectRecord(type(obj).__name__, _describe(obj), filename, lineno, function, closed, seq, ref))
        del obj
    return out


def live_objects(*, include_closed: bool = False) -> list[ObjectRecord]:
    """The tracked objects that are alive and open (``include_closed``: closed ones too),
    oldest first.  Only objects made while tracking was on are known; the package's own
    (the default device and its default stream, the cached Scalars of the one-call
    operators) are left out.  Call ``gc.collect()`` first to drop objects only cycles keep."""
    return _records(0, None, include_closed, set())


def close_objects(records: list[ObjectRecord]) -> list[str]:
    """Close the records' objects, newest first (views before their bases, plans before their
    tensors); returns the messages of the closes that raised."""
    errors = []
    for r in sorted(records, key=lambda r: r.seq, reverse=True):
        obj = r.ref()
        if obj is None:
            continue
        try:
            obj.close()
        except Exception as exc:      # report and go on: the rest must still be closed
            errors.append(f"closing {r}: {exc!r}")
        del obj
    return errors


class ObjectTracker:
    """The objects made since it was started (``hg.track_objects()``)."""

    def __init__(self) -> None:
        self._start = 0
        self._end: int | None = None
        self._on = False
        self._exclude: set[int] = set()

    def start(self) -> "ObjectTracker":
        global _depth
        if self._on:
            raise RuntimeError("this ObjectTracker is already started")
        with _lock:
            self._start = next(_seq)
            self._end = None
            if _depth == 0:
                _install(True)
            _depth += 1
            self._on = True
        return self

    def stop(self) -> None:
        """Stop (tracking goes off with the last tracker); its records stay readable."""
        global _depth
        with _lock:
            if not self._on:
                return
            self._on = False
            self._end = next(_seq)
            _depth -= 1
            if _depth == 0:
                _install(False)
                _entries[:] = [e for e in _entries if e[0]() is not None]

    @property
    def active(self) -> bool:
        return self._on

    def ignore(self, *objs: object) -> None:
        """Leave these objects out of ``live()`` (e.g. what a fixture hands out and closes itself)."""
        self._exclude.update(id(o) for o in objs)

    def live(self, *, include_closed: bool = False) -> list[ObjectRecord]:
        """Objects made while this tracker was on that are alive and open (``include_closed``:
        closed ones too), oldest first; the package's own and the ignored ones left out."""
        return _records(self._start, self._end, include_closed, self._exclude)

    def __enter__(self) -> "ObjectTracker":
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


def track_objects() -> ObjectTracker:
    """``with hg.track_objects() as tracker: ...``: record every handle made inside the block
    (and, while any tracker is on, in every thread), with the ``file:line`` that made it;
    ``tracker.live()`` lists those still alive and open."""
    return ObjectTracker()
