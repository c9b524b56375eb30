"""Ownership of C resources: every one is an object of the binding's handle layer.

The handle layer (``_binding_c/fused_calls.h``, compiled into the binding) keeps, for each resource,
its C object, the function that destroys it (by kind: tensor, scalar, memory, executor, stream,
event), the objects it depends on and an atomic count of its holders.  The last holder letting go
destroys it and then lets go of its dependencies; a stream's queued work holds what it uses until
the stream is synchronised.  The operators' calls hold their arguments, run both phases and hand
the references to the stream in one crossing of the binding, so nothing here is on a hot path.

Python sees two kinds of holders:
  * :class:`CHandle` (Stream, Event, DeviceMemory, Tensor, Scalar, plans): one Python object per C
    object.  It holds one reference, closed once by ``close()`` (or when garbage-collected);
    closing only drops that reference, so whatever still uses the resource keeps it.
  * :class:`_Res`: a resource released by Python code (the runtime's aclInit, a device's
    aclrtSetDevice, a foreign owner object, the host buffer of an async copy), still an object of
    the handle layer, so C objects can depend on it; the layer calls back into Python to release it.
Release failures are warnings (:class:`CleanupWarning`), never exceptions.
"""
from __future__ import annotations

import itertools
import logging
import warnings
import weakref
from types import TracebackType
from typing import TYPE_CHECKING, Any, Callable, Literal

from ._cffi_acl import ffi, lib
from .errors import CleanupWarning, ClosedError, warn_status

if TYPE_CHECKING:
    from typing_extensions import Self

    from ._types import CData

_NULL = ffi.NULL
_forget = lib.hgb_obj_forget
_KIND_PY = lib.HGB_KIND_PY
# resources made and closed: DEBUG records (the check is the logger's own cached one)
_log = logging.getLogger("pyacl_hardgrad")
_DEBUG = logging.DEBUG


_waiting: dict[int, _Res] = {}           # key -> _Res whose release the handle layer will call back for
_keys = itertools.count(1)
# While objects are tracked (hg.track_objects, _tracking.py): called with each new handle to
# record where it was made; None otherwise (one test per handle made).
_track: Callable[[object], None] | None = None


@ffi.def_extern()
def hgb_py_release(key: int) -> None:
    res = _waiting.pop(key, None)
    if res is not None:
        res._run_release()


@ffi.def_extern()
def hgb_py_cleanup_failed(function: CData, status: int) -> None:
    try:
        warn_status(status, ffi.string(function).decode(), stacklevel=2)
    except Exception as exc:    # a warning turned into an error must not escape into C: logged instead
        _log.warning("cleanup failed and could not be reported as a CleanupWarning: %s", exc)


class _Res:
    """A resource released by Python code: ``release`` runs when its last holder lets go, then
    its ``deps`` (resources this one already holds a reference to) are let go of."""

    __slots__ = ("name", "_o", "_release")

    def __init__(self, name: str, release: Callable[[], object] | None = None, deps: tuple[_Res, ...] = ()) -> None:
        self.name = name
        self._release = release
        key = next(_keys)
        objs = [d._o for d in deps]
        o = lib.hgb_obj_new(_KIND_PY, _NULL, key, objs, len(objs), 2)
        if o == _NULL:
            raise MemoryError(f"cannot track {name}")
        self._o = ffi.gc(o, _forget)
        _waiting[key] = self

    _o: CData

    @property
    def _refs(self) -> int:
        return int(lib.hgb_obj_refs(self._o))

    @property
    def alive(self) -> bool:
        return self._refs > 0

    def retain(self) -> "_Res":
        if not lib.hgb_obj_retain(self._o):
            raise ClosedError(f"{self.name} has been released")
        return self

    def release(self) -> None:
        lib.hgb_obj_release(self._o)

    def _run_release(self) -> None:
        fn, self._release = self._release, None
        try:
            if fn is not None:
                fn()
        except Exception as exc:       # never mask what the caller is doing
            warnings.warn(f"releasing {self.name} failed: {exc!r}", CleanupWarning, stacklevel=3)


def keep_objects(*objs: object) -> _Res:
    """A resource that keeps Python objects alive (host buffers of an async copy) until released."""
    box = [objs]
    return _Res("host buffer", box.clear)


def _drop(live: list[bool], res: _Res) -> None:
    """A Python-released handle's finalizer: mark it closed, then let go of its reference."""
    live[0] = False
    if _log.isEnabledFor(_DEBUG):
        _log.debug("%s closed", res.name)
    res.release()


class Handle:
    """Base of the public handle classes: ``close()``, context manager, ``closed``.

    ``_live`` is a one-item list that turns False when the handle is closed, so checks are two
    loads.  Handles over a :class:`_Res` (Runtime, Device) release it through a
    ``weakref.finalize`` (close(), garbage collection and exit run it once).
    """

    _finalizer: weakref.finalize[..., Any]
    _res: _Res
    _live = [False]          # before the constructor succeeded: closed

    def _adopt(self, res: _Res, callback: Callable[..., object] = _drop, *extra: object) -> None:
        self._res = res
        live = self._live = [True]
        self._finalizer = weakref.finalize(self, callback, live, res, *extra)
        if _track is not None:
            _track(self)
        if _log.isEnabledFor(_DEBUG):
            _log.debug("%s opened (%s)", type(self).__name__, res.name)

    def close(self) -> None:
        """Release this handle's reference; safe to call any number of times."""
        f = getattr(self, "_finalizer", None)
        if f is not None:
            f()

    @property
    def closed(self) -> bool:
        return not self._live[0]

    def _check_open(self) -> None:
        if not self._live[0]:
            raise ClosedError(f"{type(self).__name__} is closed")

    def __enter__(self) -> Self:
        self._check_open()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> Literal[False]:
        self.close()
        return False


class CHandle(Handle):
    """A handle over one object of the handle layer (``_o``), usually wrapping one C object
    (``_handle``: a stream, an event, a tensor, a scalar).  Garbage collection of the handle
    closes it (the handle layer's open flag makes close happen once)."""

    _bare = False      # True: the class lets go of ``_o`` itself (in __del__), no ffi.gc wrapper
    _addressed = False # True: ``_a`` is the object's address as an int (what _fastcall reads)
    _o: CData
    _a: int
    _handle: CData

    def _own(self, o: CData) -> None:
        """Take the object just made for this handle (made with wrapped=1)."""
        if o == _NULL:
            raise MemoryError(f"cannot track a {type(self).__name__}")
        self._o = o if self._bare else ffi.gc(o, _forget)
        self._live = [True]
        if self._addressed:
            self._a = int(ffi.cast("uintptr_t", o))
        if _track is not None:
            _track(self)
        if _log.isEnabledFor(_DEBUG):
            _log.debug("%s created (handle-layer object 0x%x)", type(self).__name__, int(ffi.cast("uintptr_t", o)))

    def close(self) -> None:
        o = self.__dict__.get("_o")
        if o is not None:
            if self._live[0] and _log.isEnabledFor(_DEBUG):
                _log.debug("%s closed (handle-layer object 0x%x)", type(self).__name__, int(ffi.cast("uintptr_t", o)))
            self._live[0] = False
            lib.hgb_obj_close(o)
        else:                        # a handle over a Python-released _Res (e.g. a Context)
            super().close()

    def _hold(self) -> CData:
        """A new reference to the open object (the caller releases it or hands it on)."""
        o: CData | None = self.__dict__.get("_o")
        if o is None and "_res" in self.__dict__ and self._live[0]:
            return self._res.retain()._o
        if o is None or not lib.hgb_obj_hold(o):
            raise ClosedError(f"{type(self).__name__} is closed")
        return o

    @property
    def _refs(self) -> int:
        """Holders of the resource right now (the handle, views, plans, queued work)."""
        o = self.__dict__.get("_o")
        return 0 if o is None else int(lib.hgb_obj_refs(o))

    @property
    def handle(self) -> CData:
        """The C object as a cdata, for calls through ``pyacl_hardgrad.raw``; raises when closed."""
        if not self._live[0]:
            self._check_open()
        return self._handle


def hold(obj: Handle | _Res) -> CData:
    """A new reference to any handle's (or _Res's) object, for a dependent to own."""
    if isinstance(obj, CHandle):
        return obj._hold()
    if isinstance(obj, Handle):
        obj._check_open()
        return obj._res.retain()._o
    return obj.retain()._o
