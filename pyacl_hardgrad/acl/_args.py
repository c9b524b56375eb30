"""pyACL's argument rules: CPython's PyArg_ParseTuple for the format codes pyACL uses.

pyACL's functions are METH_VARARGS functions parsed with PyArg_ParseTuple, and any parse
failure is reported as ``TypeError("acl.<module>.<name> args parse failed")``.  ``parse``
applies the same rules to a call's positional arguments:

* ``k`` / ``K`` (handles, pointers, sizes, thread ids): an ``int`` (a subclass such as bool
  too, nothing with only ``__index__``), taken modulo 2**64 as C's unsigned long does;
* ``i`` (ids, kinds, policies, timeouts): anything with ``__index__``, within int32;
* ``I`` (flags): anything with ``__index__``, taken modulo 2**32;
* ``L`` / ``l``: anything with ``__index__``, within int64;
* ``H``: anything with ``__index__``, taken modulo 2**16;
* ``f``: a float, or anything with ``__float__`` / ``__index__`` (not str);
* ``s``: a str without NUL characters (encoded as UTF-8);
* ``O``: any object; ``|`` starts the optional ones.

Wrong count, wrong type or out of range: the TypeError above, as pyACL raises it.
"""
from __future__ import annotations

import operator
from typing import Any, Callable

_MASK64 = (1 << 64) - 1
_MASK32 = (1 << 32) - 1
_MASK16 = (1 << 16) - 1
_INT32 = (-(1 << 31), (1 << 31) - 1)
_INT64 = (-(1 << 63), (1 << 63) - 1)


class _Bad(Exception):
    pass


def _index(a: Any) -> int:
    if isinstance(a, float):
        raise _Bad
    try:
        return operator.index(a)
    except TypeError:
        raise _Bad from None


def _in(v: int, bounds: tuple[int, int]) -> int:
    if not bounds[0] <= v <= bounds[1]:
        raise _Bad
    return v


def _k(a: object) -> int:
    if not isinstance(a, int):
        raise _Bad
    return int(a) & _MASK64


def _f(a: Any) -> float:
    if isinstance(a, (str, bytes, bytearray)):
        raise _Bad
    if isinstance(a, float):
        return a
    try:
        return float(a) if hasattr(type(a), "__float__") else float(_index(a))
    except (TypeError, ValueError, OverflowError):
        raise _Bad from None


def _s(a: object) -> bytes:
    if not isinstance(a, str) or "\0" in a:
        raise _Bad
    try:
        return a.encode("utf-8")
    except UnicodeEncodeError:
        raise _Bad from None


_CONVERT: dict[str, Callable[[Any], Any]] = {
    "k": _k, "K": _k,
    "i": lambda a: _in(_index(a), _INT32),
    "I": lambda a: _index(a) & _MASK32,
    "H": lambda a: _index(a) & _MASK16,
    "L": lambda a: _in(_index(a), _INT64), "l": lambda a: _in(_index(a), _INT64),
    "f": _f, "s": _s, "O": lambda a: a,
}


def parse(name: str, args: tuple[Any, ...], fmt: str, message: str | None = None) -> list[Any]:
    """The converted positional arguments of pyACL function ``name`` (e.g. "acl.rt.malloc").

    ``message``: pyACL's text for this function when it is not "<name> args parse failed".
    """
    required = fmt.find("|")
    codes = fmt.replace("|", "")
    if required < 0:
        required = len(codes)
    if not required <= len(args) <= len(codes):
        raise TypeError(message or f"{name} args parse failed")
    try:
        return [_CONVERT[c](a) for c, a in zip(codes, args)]
    except _Bad:
        raise TypeError(message or f"{name} args parse failed") from None
