"""numpy dtype <-> aclDataType, built once at import (lookups are dict hits)."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from ._binding import lib

__all__ = ["float32", "float16", "bfloat16", "to_numpy_dtype", "to_acl", "from_acl", "acl_name"]

float32 = np.dtype(np.float32)
float16 = np.dtype(np.float16)
bfloat16 = np.dtype(ml_dtypes.bfloat16)

_PAIRS = (
    (float32, lib.ACL_FLOAT), (float16, lib.ACL_FLOAT16), (bfloat16, lib.ACL_BF16),
    (np.dtype(np.float64), lib.ACL_DOUBLE), (np.dtype(np.int8), lib.ACL_INT8),
    (np.dtype(np.int16), lib.ACL_INT16), (np.dtype(np.int32), lib.ACL_INT32),
    (np.dtype(np.int64), lib.ACL_INT64), (np.dtype(np.uint8), lib.ACL_UINT8),
    (np.dtype(np.uint16), lib.ACL_UINT16), (np.dtype(np.uint32), lib.ACL_UINT32),
    (np.dtype(np.uint64), lib.ACL_UINT64), (np.dtype(np.bool_), lib.ACL_BOOL),
    (np.dtype(np.complex64), lib.ACL_COMPLEX64), (np.dtype(np.complex128), lib.ACL_COMPLEX128),
)
_TO_ACL = {dt: code for dt, code in _PAIRS}
_FROM_ACL = {code: dt for dt, code in _PAIRS}
_ALIASES = {"bf16": bfloat16, "fp16": float16, "half": float16, "fp32": float32, "float": float32,
            "bfloat16": bfloat16}
_ACL_NAMES = {getattr(lib, n): n for n in dir(lib)
              if n.startswith("ACL_") and n[4:] in {"FLOAT", "FLOAT16", "BF16", "DOUBLE", "INT8", "INT16", "INT32",
                                                    "INT64", "UINT8", "UINT16", "UINT32", "UINT64", "BOOL",
                                                    "COMPLEX64", "COMPLEX128", "DT_UNDEFINED"}}
_cache: dict = {}


def to_numpy_dtype(dtype) -> np.dtype:
    """A numpy dtype from a numpy dtype/type, a name ("float32", "bf16") or an aclDataType."""
    try:
        return _cache[dtype]
    except (KeyError, TypeError):
        pass
    if isinstance(dtype, int) and not isinstance(dtype, bool) and dtype in _FROM_ACL:
        out = _FROM_ACL[dtype]
    elif isinstance(dtype, str) and dtype.lower() in _ALIASES:
        out = _ALIASES[dtype.lower()]
    else:
        out = np.dtype(dtype)
    if out not in _TO_ACL:
        raise TypeError(f"dtype {out} has no aclDataType")
    try:
        _cache[dtype] = out
    except TypeError:
        pass
    return out


def to_acl(dtype) -> int:
    """aclDataType of a dtype-like."""
    return _TO_ACL[to_numpy_dtype(dtype)]


def from_acl(code: int) -> np.dtype:
    return _FROM_ACL[code]


def acl_name(code: int) -> str:
    return _ACL_NAMES.get(code, f"aclDataType({code})")
