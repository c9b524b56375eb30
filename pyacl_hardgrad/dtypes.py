"""numpy dtype <-> aclDataType, built once at import (lookups are dict hits).

bfloat16 is ml_dtypes' dtype, which joins the tables when first needed: importing ml_dtypes takes
over a second with numpy 2.4 (it registers its casts and ufunc loops), so a program that never
uses bfloat16 does not pay for it.  A bfloat16 array can only exist once ml_dtypes is imported,
so a lookup that misses checks for it then."""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import numpy as np

from ._binding import lib

if TYPE_CHECKING:
    from ._types import DTypeLike

__all__ = ["float32", "float16", "bfloat16", "to_numpy_dtype", "to_acl", "from_acl", "acl_name"]

float32 = np.dtype(np.float32)
float16 = np.dtype(np.float16)
_BF16_NAMES = ("bf16", "bfloat16")

_PAIRS = (
    (float32, lib.ACL_FLOAT), (float16, lib.ACL_FLOAT16),
    (np.dtype(np.float64), lib.ACL_DOUBLE), (np.dtype(np.int8), lib.ACL_INT8),
    (np.dtype(np.int16), lib.ACL_INT16), (np.dtype(np.int32), lib.ACL_INT32),
    (np.dtype(np.int64), lib.ACL_INT64), (np.dtype(np.uint8), lib.ACL_UINT8),
    (np.dtype(np.uint16), lib.ACL_UINT16), (np.dtype(np.uint32), lib.ACL_UINT32),
    (np.dtype(np.uint64), lib.ACL_UINT64), (np.dtype(np.bool_), lib.ACL_BOOL),
    (np.dtype(np.complex64), lib.ACL_COMPLEX64), (np.dtype(np.complex128), lib.ACL_COMPLEX128),
)
_TO_ACL: dict[np.dtype[Any], int] = {dt: code for dt, code in _PAIRS}
_FROM_ACL: dict[int, np.dtype[Any]] = {code: dt for dt, code in _PAIRS}
_ALIASES: dict[str, np.dtype[Any]] = {"fp16": float16, "half": float16, "fp32": float32, "float": float32}
_ACL_NAMES: dict[int, str] = {getattr(lib, n): n for n in dir(lib)
              if n.startswith("ACL_") and n[4:] in {"FLOAT", "FLOAT16", "BF16", "DOUBLE", "INT8", "INT16", "INT32",
                                                    "INT64", "UINT8", "UINT16", "UINT32", "UINT64", "BOOL",
                                                    "COMPLEX64", "COMPLEX128", "DT_UNDEFINED"}}
_cache: dict[object, np.dtype[Any]] = {}
_bfloat16: np.dtype[Any] | None = None


def _load_bfloat16() -> np.dtype[Any]:
    """ml_dtypes' bfloat16, entered into the tables on first use."""
    global _bfloat16
    if _bfloat16 is None:
        import ml_dtypes
        dt = np.dtype(ml_dtypes.bfloat16)
        _TO_ACL[dt] = lib.ACL_BF16
        _FROM_ACL[lib.ACL_BF16] = dt
        _bfloat16 = dt
    return _bfloat16


if TYPE_CHECKING:
    bfloat16: np.dtype[Any]     # ml_dtypes' bfloat16, loaded on first access (__getattr__)
else:
    def __getattr__(name: str) -> np.dtype[Any]:
        if name == "bfloat16":
            return _load_bfloat16()
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def to_numpy_dtype(dtype: DTypeLike) -> np.dtype[Any]:
    """A numpy dtype from a numpy dtype/type, a name ("float32", "bf16") or an aclDataType."""
    try:
        return _cache[dtype]
    except (KeyError, TypeError):
        pass
    if isinstance(dtype, int) and not isinstance(dtype, bool) and (dtype in _FROM_ACL or dtype == lib.ACL_BF16):
        out = from_acl(dtype)
    elif isinstance(dtype, str) and dtype.lower() in _BF16_NAMES:
        out = _load_bfloat16()
    elif isinstance(dtype, str) and dtype.lower() in _ALIASES:
        out = _ALIASES[dtype.lower()]
    else:
        out = np.dtype(dtype)     # type: ignore[arg-type]  # (an int that is no aclDataType: TypeError)
    if out not in _TO_ACL and _bfloat16 is None and "ml_dtypes" in sys.modules:
        _load_bfloat16()      # out may be its bfloat16, which exists only once ml_dtypes is imported
    if out not in _TO_ACL:
        raise TypeError(f"dtype {out} has no aclDataType")
    try:
        _cache[dtype] = out
    except TypeError:
        pass
    return out


def to_acl(dtype: DTypeLike) -> int:
    """aclDataType of a dtype-like."""
    return _TO_ACL[to_numpy_dtype(dtype)]


def from_acl(code: int) -> np.dtype[Any]:

    try:
        return _FROM_ACL[code]
    except KeyError:
        if code == lib.ACL_BF16:
            return _load_bfloat16()
        raise


def acl_name(code: int) -> str:
    return _ACL_NAMES.get(code, f"aclDataType({code})")
