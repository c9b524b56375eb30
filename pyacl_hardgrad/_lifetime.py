"""Reference-counted release of C resources, shared by every handle class.

Each C resource has one ``_Res``: a count of holders and the function that releases it.
The Python object that created it holds one reference through a ``weakref.finalize``
(so ``close()``, the ``with`` exit and garbage collection all funnel into one call that
weakref runs at most once); every dependent (a stream of a device, a tensor of its
memory, a plan of its tensors) holds one more.  The C release happens when the last
holder lets go, then the resource lets go of what it depends on.  Release failures are
warnings, never exceptions.
"""
from __future__ import annotations

import threading
import warnings
import weakref

from .errors import CleanupWarning, ClosedError

_lock = threading.Lock()


class _Res:
    __slots__ = ("name", "_refs", "_release", "_deps")

    def __init__(self, name, release=None, deps=()):
        """``deps``: resources this one already holds a reference to (ownership moves here)."""
        self.name = name
        self._refs = 1
        self._release = release
        self._deps = tuple(deps)

    @property
    def alive(self) -> bool:
        return self._refs > 0

    def retain(self) -> "_Res":
        with _lock:
            if self._refs <= 0:
                raise ClosedError(f"{self.name} has been released")
            self._refs += 1
        return self

    def release(self) -> None:
        with _lock:
            if self._refs <= 0:        # cannot happen through finalize; guard anyway
                return
            self._refs -= 1
            if self._refs:
                return
        self._finish()

    def _finish(self) -> None:
        """The last holder let go: run the C release, then let go of the dependencies."""
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
    """retain() every resource under one lock acquisition; all or none (ClosedError)."""
    with _lock:
        for r in items:
            if r._refs <= 0:
                for u in items:          # undo the ones counted so far
                    if u is r:
                        break
                    u._refs -= 1
                raise ClosedError(f"{r.name} has been released")
            r._refs += 1


def release_all(items) -> None:
    """release() every resource, in order, taking the lock once for plain ``_Res`` objects
    (subclasses that override release() go through it)."""
    dead = []
    with _lock:
        for r in items:
            if type(r) is not _Res:
                dead.append(r)
            else:
                n = r._refs
                if n > 1:
                    r._refs = n - 1
                elif n == 1:
                    r._refs = 0
                    dead.append(r)
    if dead:
        for r in dead:
            if type(r) is _Res:
                r._finish()
            else:
                r.release()


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
