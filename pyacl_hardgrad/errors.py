"""One error hierarchy for every status code the C API returns.

``check(status, "aclrtMalloc")`` is the single choke point that turns a non-zero status into
an exception.  The code -> symbolic name table is read from the compiled module's integer
constants (which come from include/), so it can never drift from the headers.
"""
from __future__ import annotations

import warnings
from typing import Callable

from ._binding import BACKEND, ffi, lib

__all__ = [
    "PyaclError", "AclError", "RuntimeApiError", "AclnnError", "AclnnParamError",
    "ApiNotSupportedError", "ClosedError", "PlanConsumedError", "CleanupWarning",
    "check", "code_name", "recent_error_message", "last_error", "peek_last_error",
]

ACL_SUCCESS = lib.ACL_SUCCESS
ACL_ERROR_REPEAT_INITIALIZE = lib.ACL_ERROR_REPEAT_INITIALIZE
ACL_ERROR_API_NOT_SUPPORT = lib.ACL_ERROR_API_NOT_SUPPORT
_PARAM_CODES = frozenset((lib.ACLNN_ERR_PARAM_NULLPTR, lib.ACLNN_ERR_PARAM_INVALID))


def _build_code_names() -> tuple[dict[int, str], frozenset[int]]:
    """code -> name from lib's constants; runtime (ACL_ERROR_RT_*) names win over generic ones."""
    names: dict[int, str] = {0: "ACL_SUCCESS"}
    aclnn: set[int] = set()
    rank: dict[int, int] = {}
    for attr in dir(lib):
        if attr.startswith("ACLNN_ERR_"):
            r = 2
        elif attr.startswith("ACL_ERROR_RT_"):
            r = 1
        elif attr.startswith("ACL_ERROR_") and attr != "ACL_ERROR_NONE":
            r = 0
        else:
            continue
        value = getattr(lib, attr)
        if not isinstance(value, int) or value == 0:
            continue
        if r == 2:
            aclnn.add(value)
        if value not in names or r > rank.get(value, -1):
            names[value] = attr
            rank[value] = r
    return names, frozenset(aclnn)


CODE_NAMES, _ACLNN_CODES = _build_code_names()


def code_name(code: int) -> str:
    """Symbolic name of a status code (``"ACL_ERROR_RT_CONTEXT_NULL"``), or ``"UNKNOWN(<code>)"``."""
    return CODE_NAMES.get(code, f"UNKNOWN({code})")


def recent_error_message() -> str:
    """The calling thread's aclGetRecentErrMsg() text ('' when there is none)."""
    p = lib.aclGetRecentErrMsg()
    if p == ffi.NULL:
        return ""
    return ffi.string(p).decode("utf-8", errors="replace")


class PyaclError(Exception):
    """Root of every exception this package raises on purpose."""


class AclError(PyaclError, RuntimeError):
    """A C call returned a non-zero status.

    ``code`` (int), ``name`` (symbolic name from the headers), ``function`` (the C function
    that failed) and ``message`` (its aclGetRecentErrMsg text) describe it.
    """

    def __init__(self, code: int, function: str | None = None, message: str = "") -> None:
        self.code = int(code)
        self.name = code_name(self.code)
        self.function = function
        self.message = message
        where = f"{function} failed" if function else "ACL call failed"
        text = f"{where}: {self.name} ({self.code})"
        if message:
            text += f": {message}"
        super().__init__(text)

    def __reduce__(self) -> tuple[Callable[..., AclError], tuple[object, ...]]:
        return (_rebuild, (type(self), self.code, self.function, self.message))


def _rebuild(cls: type[AclError], code: int, function: str | None, message: str) -> AclError:
    return cls(code, function, message)


class RuntimeApiError(AclError):
    """Runtime/ACL status codes (1xxxxx, 2xxxxx, 3xxxxx, 5xxxxx outside the aclnn range)."""


class AclnnError(AclError):
    """Status codes of the aclnn operator API (361001, 561xxx, and the parameter codes)."""


class AclnnParamError(AclnnError, ValueError):
    """ACLNN_ERR_PARAM_NULLPTR (161001) or ACLNN_ERR_PARAM_INVALID (161002): bad arguments."""


class ApiNotSupportedError(RuntimeApiError, NotImplementedError):
    """ACL_ERROR_API_NOT_SUPPORT (200001); ``missing_function`` names a function the loaded
    library set does not export (None when a present function returned the code itself)."""

    def __init__(self, code: int, function: str | None = None, message: str = "",
                 missing_function: str | None = None) -> None:

        self.missing_function = missing_function
        if missing_function and not message:
            message = (f"{missing_function} is not exported by the loaded {BACKEND.name} libraries "
                       f"({', '.join(BACKEND.library_files)})")
        super().__init__(code, function, message)

    def __reduce__(self) -> tuple[Callable[..., AclError], tuple[object, ...]]:
        return (type(self), (self.code, self.function, self.message, self.missing_function))


class ClosedError(PyaclError, ValueError):
    """An operation on an object that was already closed (or whose owner was)."""


class PlanConsumedError(PyaclError, RuntimeError):
    """A one-shot plan was asked to run a second time (its executor is gone)."""


class CleanupWarning(RuntimeWarning):
    """A C call made while releasing a resource failed; reported, never raised."""


def _missing_function(function: str | None) -> str | None:
    p = lib.hgb_missing_function()
    name = ffi.string(p).decode() if p != ffi.NULL else None
    if function and function in BACKEND.missing_functions:
        return function
    if name and (function is None or name == function):
        return name
    return None


def error_for(status: int, function: str | None = None) -> AclError:
    """The exception object a status maps to (not raised)."""
    if status == ACL_ERROR_API_NOT_SUPPORT:
        missing = _missing_function(function)
        return ApiNotSupportedError(status, function, "" if missing else recent_error_message(), missing)
    message = recent_error_message()
    if status in _PARAM_CODES:
        return AclnnParamError(status, function, message)
    if status in _ACLNN_CODES:
        return AclnnError(status, function, message)
    return RuntimeApiError(status, function, message)


def check(status: int, function: str | None = None) -> None:
    """Raise the matching :class:`AclError` when ``status`` is not 0."""
    if status:
        raise error_for(status, function)


def warn_status(status: int, function: str, stacklevel: int = 2) -> None:
    """For release paths: a failing status becomes a :class:`CleanupWarning`."""
    if status:
        warnings.warn(str(error_for(status, function)), CleanupWarning, stacklevel=stacklevel + 1)


def last_error() -> int:
    """aclrtGetLastError(ACL_RT_THREAD_LEVEL): the calling thread's last runtime-layer status
    code (107xxx, 207xxx, 507xxx; 0 when none), which this call clears."""
    return int(lib.aclrtGetLastError(lib.ACL_RT_THREAD_LEVEL))


def peek_last_error() -> int:
    """aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL): like :func:`last_error` without clearing it."""
    return int(lib.aclrtPeekAtLastError(lib.ACL_RT_THREAD_LEVEL))
