"""The one place that imports the compiled module and binds it to a backend.

Every other module takes ``ffi`` and ``lib`` from here, so all calls share one path
whichever backend serves them.
"""
from __future__ import annotations

from . import _backend, _check_sites, _paths

try:
    from ._cffi_acl import ffi as ffi, lib as lib  # noqa: F401  (re-exported)
except ModuleNotFoundError as exc:
    if exc.name != f"{__package__}._cffi_acl" or _paths.not_built_reason() is None:
        raise
    raise _paths.NotBuiltError(_paths.not_built_reason()) from None

BACKEND: _backend.BackendInfo = _backend.load(ffi, lib)

if _check_sites.enabled_by_environment():     # checking mode: the user's file:line for the findings
    _check_sites.install(lib)


def c_address(name: str) -> int:
    """The address of the binding's function ``name`` (cffi's own ``lib``, whatever stand-in the
    call trace gives the package's modules meanwhile)."""
    return int(ffi.cast("uintptr_t", ffi.addressof(lib, name)))


def bound_files() -> dict[str, str | None]:
    """Function name -> the library file its address lies in (dladdr), None if missing."""
    out: dict[str, str | None] = {}
    for i in range(lib.hgb_function_count()):
        name = ffi.string(lib.hgb_function_name(i)).decode()
        f = lib.hgb_function_file(i)
        out[name] = ffi.string(f).decode() if f != ffi.NULL else None
    return out


# PYACL_HARDGRAD_TRACE_CALLS: the call trace from the start (see _trace.py)
from . import _trace  # noqa: E402

if hasattr(_trace, "from_environment"):
    _trace.from_environment()
else:                       # _trace is what is loading the binding: it reads the variable when done
    setattr(_trace, "_from_environment_when_loaded", True)
