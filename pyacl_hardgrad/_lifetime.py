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
        fn, self._release = self._release, None
        try:
            if fn is not None:
                fn()
        except Exception as exc:       # never mask what the caller is doing
            warnings.warn(f"releasing {self.name} failed: {exc!r}", CleanupWarning, stacklevel=2)
        finally:
            deps, self._deps = self._deps, ()
            for d in reversed(deps):
                d.release()


class Handle:
    """Base of the public handle classes: ``close()``, context manager, ``closed``."""

    _res: _Res
    _finalizer: weakref.finalize

    def _adopt(self, res: _Res) -> None:
        self._res = res
        self._finalizer = weakref.finalize(self, res.release)

    def close(self) -> None:
        """Release this handle's reference; safe to call any number of times."""
        f = getattr(self, "_finalizer", None)
        if f is not None:
            f()

    @property
    def closed(self) -> bool:
        f = getattr(self, "_finalizer", None)
        return f is None or not f.alive

    def _check_open(self) -> None:
        f = getattr(self, "_finalizer", None)
        if f is None or not f.alive:
            raise ClosedError(f"{type(self).__name__} is closed")

    def __enter__(self):
        self._check_open()
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()
        return False
