"""aclScalar: a host value of a given dtype (aclCreateScalar / aclDestroyScalar)."""
from __future__ import annotations

import math
import threading
from typing import TYPE_CHECKING, Any, Union

import numpy as np

from . import _args
from ._binding import ffi, lib
from ._lifetime import CHandle
from .dtypes import to_acl, to_numpy_dtype
from .errors import AclnnParamError, recent_error_message, warn_status

if TYPE_CHECKING:
    from ._types import DTypeLike, Number

__all__ = ["Scalar"]


class Scalar(CHandle):
    """``Scalar(1.2)`` or ``Scalar(3, "int64")``: an aclScalar holding a copy of the value."""

    _addressed = True             # operator calls read ``_a`` (_binding_c/fastcall.c)
    __slots__ = ("_a",)         # a slot: C reads it at a fixed offset

    def __init__(self, value: Number, dtype: DTypeLike = "float32") -> None:
        npdt = to_numpy_dtype(dtype)
        box = _scalar_box(value, npdt)
        self.dtype = npdt
        self.value: np.generic = box[()]    # type: ignore[assignment]  # (a 0-d array's item)
        handle = lib.aclCreateScalar(ffi.from_buffer(box), to_acl(npdt))
        if handle == ffi.NULL:
            raise AclnnParamError(lib.ACLNN_ERR_PARAM_INVALID, "aclCreateScalar",
                                  recent_error_message() or f"cannot create a {npdt} scalar")
        self._handle = handle
        try:
            self._own(lib.hgb_obj_new(lib.HGB_KIND_SCALAR, handle, 0, [], 0, 1))
        except BaseException:
            warn_status(lib.aclDestroyScalar(handle), "aclDestroyScalar")
            raise

    def __float__(self) -> float:
        return float(self.value)

    def __repr__(self) -> str:
        return f"<Scalar {self.value!r} {self.dtype}{' closed' if self.closed else ''}>"


def _scalar_box(value: Any, npdt: np.dtype[Any]) -> np.ndarray[Any, Any]:
    """A 0-d array of ``npdt`` holding ``value`` exactly as the rules allow: a real number
    (a bool for bool dtypes); integers must fit the integer dtype, floats must be integral."""
    if value is None or isinstance(value, (str, bytes, bytearray)):
        raise TypeError(f"value must be a number, got {type(value).__name__} ({value!r:.40})")
    if np.ndim(value) != 0:
        raise TypeError(f"value must be a single number, got an array-like of shape {np.shape(value)}")
    if isinstance(value, np.ndarray):
        value = value[()]
    kind = npdt.kind
    if kind in "iu":
        if isinstance(value, (float, np.floating)):
            if value != value or value in (float("inf"), float("-inf")) or value != int(value):
                raise ValueError(f"value {value!r} is not an integer; a {npdt} scalar needs one")
        try:
            iv = int(value)
        except (TypeError, ValueError):
            raise TypeError(f"value must be an integer for a {npdt} scalar, got {type(value).__name__}") from None
        info = np.iinfo(npdt)
        if not info.min <= iv <= info.max:
            raise ValueError(f"value {iv} is out of range for {npdt} [{info.min}, {info.max}]")
        return np.array(iv, dtype=npdt)
    if kind == "c":
        return np.array(complex(value), dtype=npdt)
    if kind == "b":
        return np.array(bool(value), dtype=npdt)
    fv = _args.real(value, "value")
    with np.errstate(over="ignore"):
        return np.array(fv, dtype=npdt)     # overflow to +-inf as a C cast would, like CANN's


# float32 Scalars for the float bounds of one-call operators, so a call with the same bounds
# does not create and destroy two aclScalars each time.  The cache owns them until
# release_defaults() (or interpreter exit); every launch retains what it uses, so clearing
# the cache never frees a Scalar a queued operator still needs.
_CACHE_MAX = 64
_CacheKey = Union[float, "tuple[str, float]"]
_float32_cache: dict[_CacheKey, Scalar] = {}
_cache_lock = threading.Lock()


def _cache_key(value: float) -> _CacheKey | None:
    """Floats key themselves, except zeros (0.0 == -0.0 but their bits differ) and NaN."""
    if value != value:
        return None
    if value == 0.0:
        return ("zero", math.copysign(1.0, value))
    return value


# The cached Scalar of a float (None when not cached yet, or for zeros and NaN): a dict lookup,
# for the operators' argument conversion.
lookup_float32 = _float32_cache.get


def cached_float32(value: Any) -> "Scalar | None":
    """The cache's float32 Scalar for ``value`` (created on first use); None when the value
    cannot be cached (NaN, or the cache is full): the caller then makes its own Scalar."""
    try:
        value = float(value)
    except (OverflowError, TypeError, ValueError):
        value = _args.real(value, "a float scalar argument")      # raises the clear error
    key = _cache_key(value)
    if key is None:
        return None
    s = _float32_cache.get(key)
    if s is not None:
        return s
    with _cache_lock:
        s = _float32_cache.get(key)
        if s is None:
            if len(_float32_cache) >= _CACHE_MAX:
                return None
            s = _float32_cache[key] = Scalar(value, "float32")
    return s


def release_cached_scalars() -> None:
    """Close the cached Scalars (queued work that uses one keeps its own reference)."""
    with _cache_lock:
        items = list(_float32_cache.values())
        _float32_cache.clear()
    for s in items:
        s.close()
