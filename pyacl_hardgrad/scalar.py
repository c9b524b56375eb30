"""aclScalar: a host value of a given dtype (aclCreateScalar / aclDestroyScalar)."""
from __future__ import annotations

import numpy as np

from ._binding import ffi, lib
from ._lifetime import Handle, _Res
from .dtypes import to_acl, to_numpy_dtype
from .errors import AclnnParamError, recent_error_message, warn_status

__all__ = ["Scalar"]


class Scalar(Handle):
    """``Scalar(1.2)`` or ``Scalar(3, "int64")``: an aclScalar holding a copy of the value."""

    def __init__(self, value, dtype="float32"):
        npdt = to_numpy_dtype(dtype)
        box = np.array(value, dtype=npdt)
        self.dtype = npdt
        self.value = box[()]
        handle = lib.aclCreateScalar(ffi.from_buffer(box), to_acl(npdt))
        if handle == ffi.NULL:
            raise AclnnParamError(lib.ACLNN_ERR_PARAM_INVALID, "aclCreateScalar",
                                  recent_error_message() or f"cannot create a {npdt} scalar")
        self._handle = handle
        self._adopt(_Res("Scalar", lambda: warn_status(lib.aclDestroyScalar(handle), "aclDestroyScalar",
                                                       stacklevel=4)))

    @property
    def handle(self):
        if not self._finalizer.alive:
            self._check_open()
        return self._handle

    def __float__(self):
        return float(self.value)

    def __repr__(self):
        return f"<Scalar {self.value!r} {self.dtype}{' closed' if self.closed else ''}>"

