"""Reference-counted release of C resources, shared by every handle class.

Each C resource has one ``_Res``: a count of holders and the function that releases it.
The Python object that created it holds one reference through a ``weakref.finalize``
(so ``close()``, the ``with`` exit and garbage collection all funnel into one call that
weakref runs at most once); every dependent (a stream of a device, a tensor of its
memory, a plan of its tensors) holds one more.  The C release happens when the last
holder lets go, then the resource lets go of what it depends on.  Release failures are
warnings, never exceptions.

The count lives in C (an ``int64_t`` changed only by the binding's atomic ``hgb_ref_*``
functions), so the operators' fused calls can hold and drop the resources they use in the same
crossing of the binding as the call itself, with no Python lock (see _build/fused_calls.h).
"""
from __future__ import annotations

import warnings
import weakref

from ._cffi_acl import ffi, lib
from .errors import CleanupWarning, ClosedError

_new_count = ffi.new
_ref_retain = lib.hgb_ref_retain
_ref_release = lib.hgb_ref_release
_ref_release5 = lib.hgb_ref_release5
_NULL = ffi.NULL


class _Res:
    __slots__ = ("name", "_cnt", "_release", "_deps")

    def __init__(self, name, release=None, deps=()):
        """``deps``: resources this one already holds a reference to (ownership moves here)."""
        self.name = name
        self._cnt = _new_count("int64_t *", 1)
        self._release = release
        self._deps = tuple(deps)

    @property
    def _refs(self) -> int:
        return self._cnt[0]

    @property
    def alive(self) -> bool:
        return self._cnt[0] > 0

    def retain(self) -> "_Res":
        if not _ref_retain(self._cnt):
            raise ClosedError(f"{self.name} has been released")
        return self

    def release(self) -> None:
        if _ref_release(self._cnt) == 0:     # -1 (already released) cannot happen through finalize
            self._finish()

    def _finish(self) -> None:
        """The last holder let go: run the C release, then let go of the dependencies
        (subclasses drop what else they keep, then call this)."""
        fn, self._release = self._release, None
        try:
            if fn is not None:
                fn()
        except Exception as exc:       # never mask what the caller is doing
            warnings.warn(f"releasing {self.name} failed: {exc!r}", CleanupWarning, stacklevel=3)
        finally:
            deps, self._deps = self._deps, ()
            if deps:
                release_all(deps[::-1])


def retain_all(items) -> None:
    """retain() every resource; all or none (ClosedError)."""
    done = []
    for r in items:
        if not _ref_retain(r._cnt):
            release_all(done)            # cannot reach 0 unless another holder let go meanwhile
            raise ClosedError(f"{r.name} has been released")
        done.append(r)


def release_all(items) -> None:
    """release() every resource in order, up to five counts per crossing of the binding."""
    n = len(items)
    if n == 5:                           # a one-call hardtanh_backward's entry: the hot case
        a, b, c, d, e = items
        dropped = _ref_release5(a._cnt, b._cnt, c._cnt, d._cnt, e._cnt)
        if dropped:
            finish_dropped(items, dropped)
        return
    if n == 3:                           # hardsigmoid_backward's
        a, b, c = items
        dropped = _ref_release5(a._cnt, b._cnt, c._cnt, _NULL, _NULL)
        if dropped:
            finish_dropped(items, dropped)
        return
    for i in range(0, n, 5):
        chunk = items[i:i + 5]
        cnts = [r._cnt for r in chunk]
        if len(cnts) < 5:
            cnts += [_NULL] * (5 - len(cnts))
        dropped = _ref_release5(*cnts)
        if dropped:
            finish_dropped(chunk, dropped)


def finish_dropped(items, mask: int) -> None:
    """Free the resources whose counts a fused call released to 0 (bit i: items[i])."""
    for i, r in enumerate(items):
        if mask >> i & 1:
            r._finish()


def _drop(live: list, res: _Res) -> None:
    """A handle's finalizer: mark it closed, then let go of its reference."""
    live[0] = False
    res.release()


class Handle:
    """Base of the public handle classes: ``close()``, context manager, ``closed``.

    ``_live`` is a one-item list the finalizer clears, so hot paths test ``self._live[0]``
    (two loads) instead of ``weakref.finalize.alive`` (a property doing a registry lookup);
    it turns False however the finalizer runs (close(), garbage collection, exit).
    """

    _res: _Res
    _finalizer: weakref.finalize
    _live = [False]          # before _adopt (a failed constructor): closed

    def _adopt(self, res: _Res, callback=_drop, *extra) -> None:
        self._res = res
        self._cnt = res._cnt         # the C count, for the fused calls' hot paths
        live = self._live = [True]
        self._finalizer = weakref.finalize(self, callback, live, res, *extra)

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

    def __enter__(self):
        self._check_open()
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()
        return False


class CHandle(Handle):
    """A handle that wraps one C object, ``_handle`` (a stream, an event, a tensor, a scalar)."""

    @property
    def handle(self):
        """The C object as a cdata, for calls through ``pyacl_hardgrad.raw``; raises when closed."""
        if not self._live[0]:
            self._check_open()
        return self._handle
