"""aclInit / aclFinalize, reference-counted so nested users share one initialisation.

``with Runtime():`` blocks may nest, and library code (every Device holds a reference)
shares the same count; aclFinalize runs when the count returns to zero.  When aclInit
reports ACL_ERROR_REPEAT_INITIALIZE somebody else in the process initialised ACL: that is
"already initialised", and then this module never calls aclFinalize on their behalf.
"""
from __future__ import annotations

import threading

from ._binding import ffi, lib
from ._lifetime import Handle, _Res
from .errors import ACL_ERROR_REPEAT_INITIALIZE, check, warn_status
from .scalar import release_cached_scalars

__all__ = ["Runtime", "runtime_reference_count"]

_lock = threading.Lock()
_count = 0
_owns_init = False


def _acquire(config_path: str | None) -> None:
    global _count, _owns_init
    with _lock:
        if _count == 0:
            arg = ffi.NULL if config_path is None else str(config_path).encode()
            st = lib.aclInit(arg)
            if st == ACL_ERROR_REPEAT_INITIALIZE:
                _owns_init = False
            else:
                check(st, "aclInit")
                _owns_init = True
        _count += 1


def _release() -> None:
    global _count, _owns_init
    with _lock:
        _count -= 1
        if _count or not _owns_init:
            return
        _owns_init = False
        lib.hgb_cache_empty(-1, ffi.NULL)    # no device is set any more: nothing cached may outlive aclFinalize
        # The one-call operators' cached bound Scalars go too (made again on demand), so checking
        # mode's leak report at aclFinalize names only what the program itself kept.
        release_cached_scalars()
        st = lib.aclFinalize()
    warn_status(st, "aclFinalize", stacklevel=3)


def _runtime_res(config_path: str | None = None) -> _Res:
    """A new reference on the process-wide initialisation (for handles that need ACL up)."""
    _acquire(config_path)
    return _Res("Runtime", _release)


def runtime_reference_count() -> int:
    """How many holders keep aclInit alive right now (Runtime objects, devices, ...)."""
    return _count


class Runtime(Handle):
    """aclInit on entry (first holder), aclFinalize when the last holder closes.

    ``config_path`` only matters for the holder that actually initialises ACL.
    """

    def __init__(self, config_path: str | None = None) -> None:
        self._adopt(_runtime_res(config_path))

    @property
    def initialised_here(self) -> bool:
        """False when ACL had already been initialised outside this package."""
        return _owns_init

    def __repr__(self) -> str:
        return f"<Runtime {'closed' if self.closed else 'open'}, holders={_count}>"
