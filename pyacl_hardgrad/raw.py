"""The C API as-is, for line-by-line ports of CANN's C++ code.

``ffi`` and ``lib`` are the compiled binding (every function and ``#define`` of include/);
``check(status, "aclrtMalloc")`` raises the package's exception for a failing status.
Nothing here manages lifetimes: what you create you destroy, exactly as in C++.
"""
from ._binding import BACKEND, ffi, lib  # noqa: F401
from .errors import check  # noqa: F401

__all__ = ["ffi", "lib", "check", "BACKEND"]
