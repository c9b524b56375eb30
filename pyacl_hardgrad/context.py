"""Contexts (aclrtCreateContext / aclrtDestroyContext / aclrtSetCurrentContext).

ACL gives each host thread a current context; ``Device`` uses the device's default context.
``Context`` is for code that manages contexts itself, as pyACL scripts do
(``acl.rt.create_context(0)``): create one, make it current on a thread, or wrap one made
elsewhere with ``Context.from_handle(h)``; ``int(ctx)`` is the handle pyACL takes.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ._binding import ffi, lib
from ._lifetime import CHandle, _Res
from .errors import check, warn_status

if TYPE_CHECKING:
    from ._types import CData
    from .device import Device, _DeviceState

__all__ = ["Context"]


class Context(CHandle):
    """An ACL context on a device.  ``Context(device)`` creates one (aclrtCreateContext, which
    also makes it the calling thread's current context); closing destroys it."""

    owns_handle = True

    def __init__(self, device: Device | int | None = 0) -> None:
        from .device import _held_state
        state = _held_state(device)
        try:
            p = ffi.new("aclrtContext *")
            check(lib.aclrtCreateContext(p, state.id), "aclrtCreateContext")
        except BaseException:
            state.res.release()
            raise
        self._setup(p[0], state, True)

    @classmethod
    def from_handle(cls, handle: int | CData, device: Device | int | None = None, *, own: bool = False) -> "Context":
        """Wrap an aclrtContext made elsewhere (an int as pyACL returns it, or a cdata).
        ``own=True``: closing destroys it; otherwise its creator does.  ``device``: the device
        it belongs to (a Device or an id; default: the calling thread's current device)."""
        from .device import _as_handle, _held_state
        h = _as_handle(handle, "context")
        self = cls.__new__(cls)
        self._setup(h, _held_state(device), own)
        return self

    @classmethod
    def current(cls) -> "Context | None":
        """The calling thread's current context, borrowed (None when there is none)."""
        from .runtime import _runtime_res
        rt = _runtime_res()
        try:
            p = ffi.new("aclrtContext *")
            if lib.aclrtGetCurrentContext(p) != 0 or p[0] == ffi.NULL:
                return None
            return cls.from_handle(p[0])
        finally:
            rt.release()

    def _setup(self, handle: CData, state: _DeviceState, own: bool) -> None:
        self._handle = handle
        self._device_state = state
        self.owns_handle = bool(own)
        release = ((lambda: warn_status(lib.aclrtDestroyContext(handle), "aclrtDestroyContext", stacklevel=4))
                   if own else None)
        self._adopt(_Res("Context", release, (state.res,)))

    @property
    def device_id(self) -> int:
        return self._device_state.id

    def close(self) -> None:
        """Release the context (destroy it when owned).  When it is the calling thread's
        current context, the thread goes back to its device's default context first, so the
        package's later calls on this thread do not meet a destroyed context."""
        if not self.closed and self.owns_handle:
            p = ffi.new("aclrtContext *")
            default = self._device_state.context
            if lib.aclrtGetCurrentContext(p) != 0:
                lib.aclGetRecentErrMsg()     # no current context: its text is not the destroy's
            elif p[0] == self._handle and default is not None:
                warn_status(lib.aclrtSetCurrentContext(default), "aclrtSetCurrentContext", stacklevel=2)
        super().close()

    def make_current(self) -> "Context":
        """Make this the calling thread's current context (aclrtSetCurrentContext)."""
        check(lib.aclrtSetCurrentContext(self.handle), "aclrtSetCurrentContext")
        return self

    def __int__(self) -> int:
        return int(ffi.cast("uintptr_t", self.handle))

    def __repr__(self) -> str:
        if self.closed:
            return "<Context closed>"
        return f"<Context 0x{int(self):x} on device {self.device_id}{'' if self.owns_handle else ' borrowed'}>"
