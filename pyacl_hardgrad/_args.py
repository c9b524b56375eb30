"""Argument checks shared by the public API: each names the argument, the value's type and
the rule, so bad input fails up front with TypeError/ValueError instead of deep in cffi."""
from __future__ import annotations

import operator
from typing import Any, TypeVar, Union

_T = TypeVar("_T")

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1


def _type_name(value: object) -> str:
    return type(value).__name__


def integer(value: Any, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as an int (anything with ``__index__``; bools and floats are refused) within
    [lo, hi]."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an integer, got bool ({value!r})")
    try:
        out = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {_type_name(value)} ({value!r:.60})") from None
    if lo is not None and out < lo or hi is not None and out > hi:
        if lo is not None and hi is not None:
            rule = f"in [{lo}, {hi}]"
        elif lo is not None:
            rule = f">= {lo}"
        else:
            rule = f"<= {hi}"
        raise ValueError(f"{name} must be {rule}, got {out}")
    return out


def integers(values: Any, name: str, lo: int | None = None, hi: int | None = None) -> tuple[int, ...]:
    """A sequence of ints (an int alone is a 1-tuple), each checked like :func:`integer`."""
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of integers, got {_type_name(values)}")
    try:
        items = tuple(values)
    except TypeError:
        items = (values,)
    return tuple(integer(v, f"{name}[{i}]", lo, hi) for i, v in enumerate(items))


def real(value: Any, name: str) -> float:
    """A real number (int, float, numpy scalar); strings, bytes, None and arrays are refused."""
    if isinstance(value, (str, bytes, bytearray)) or value is None or isinstance(value, complex):
        raise TypeError(f"{name} must be a real number, got {_type_name(value)} ({value!r:.60})")
    try:
        out = float(value)
    except OverflowError:
        raise ValueError(f"{name} = {value!r:.60} does not fit in a float") from None
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number, got {_type_name(value)} ({value!r:.60})") from None
    if hasattr(value, "ndim") and getattr(value, "ndim", 0) != 0:
        raise TypeError(f"{name} must be a real number, got an array of shape {value.shape}")
    return out


def instance(value: object, cls: Union[type[_T], tuple[type[_T], ...]], name: str) -> _T:
    """``value`` when it is a ``cls`` (a class or a tuple of classes), else TypeError."""
    if not isinstance(value, cls):
        if isinstance(cls, tuple):
            want = " or ".join(c.__name__ for c in cls)
        else:
            want = cls.__name__
        article = "an" if want[:1] in "AEIOU" else "a"
        raise TypeError(f"{name} must be {article} {want}, got {_type_name(value)}")
    return value
