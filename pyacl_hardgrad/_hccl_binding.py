"""The collectives' binding: ``pyacl_hardgrad._cffi_hccl`` bound to the HCCL libraries on first use.

The compiled module (declarations from include/hccl, built by ``_build/ffi_build_hccl.py``) imports
with the package; its function table is filled only when :func:`lib` is first called, from the
libraries beside the runtime the backend chose: the embedded tree's lib64/, or the CANN install's.
CANN 8.x keeps everything in libhccl.so; CANN 9 moves communicator management to libhcomm.so.
Each function is looked up in libhccl.so first, then libhcomm.so, so both layouts bind the same
way.  A missing libhccl.so is an :class:`HcclLibraryError` naming where it was looked for, raised
by the first call that needs it (``import pyacl_hardgrad`` never opens it).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._backend import BackendError
from ._binding import BACKEND
from ._cffi_hccl import ffi as ffi, lib as _lib
from ._paths import get_library_dir

__all__ = ["ffi", "lib", "HcclLibraryError", "HcclLibraries", "libraries", "library_dir"]

# the library holding the collectives, then the one CANN 9 moved communicator management into
HCCL_FILE = "libhccl.so"
HCOMM_FILE = "libhcomm.so"


class HcclLibraryError(BackendError):
    """The HCCL libraries of the backend in use cannot be loaded; the message says where they
    were looked for and why they failed."""


@dataclass(frozen=True)
class HcclLibraries:
    """The library files HCCL's functions were bound from, and the functions none of them export."""

    files: tuple[str, ...]
    missing_functions: tuple[str, ...]


_lock = threading.Lock()
_bound: HcclLibraries | None = None
_handles: list[Any] = []            # the dlopen handles, kept for the process's lifetime


def library_dir() -> Path:
    """The folder the backend's runtime library is in (where HCCL's libraries are too)."""
    if BACKEND.is_embedded:
        return Path(get_library_dir())
    return Path(BACKEND.library_files[0]).parent


def _bind() -> HcclLibraries:
    where = library_dir()
    source = "the embedded runtime" if BACKEND.is_embedded else f"the CANN install at {BACKEND.root}"
    hccl = where / HCCL_FILE
    if not hccl.is_file():
        raise HcclLibraryError(f"{HCCL_FILE} not found in {where} ({source}): the collectives (hg.hccl) "
                               "need it" + ("; reinstall the package with pip install ." if BACKEND.is_embedded
                                            else "; install CANN's HCCL package"))
    paths = [hccl] + [p for p in (where / HCOMM_FILE,) if p.is_file()]
    handles = []
    for p in paths:
        h = _lib.hgh_open(str(p).encode())
        if h == ffi.NULL:
            raise HcclLibraryError(f"dlopen({p}) failed ({source}): "
                                   f"{ffi.string(_lib.hgh_dlerror()).decode(errors='replace')}")
        handles.append(h)
    _lib.hgh_bind(ffi.new("void *[]", handles), len(handles))
    _handles.extend(handles)
    missing = tuple(ffi.string(_lib.hgh_function_name(i)).decode()
                    for i in range(_lib.hgh_function_count()) if not _lib.hgh_function_bound(i))
    return HcclLibraries(tuple(str(p) for p in paths), missing)


def libraries() -> HcclLibraries:
    """Bind the module to the backend's HCCL libraries (once; thread-safe) and say which."""
    global _bound
    b = _bound
    if b is None:
        with _lock:
            b = _bound
            if b is None:
                b = _bound = _bind()
    return b


def lib() -> Any:
    """The compiled module's ``lib``, bound (see :func:`libraries`)."""
    if _bound is None:
        libraries()
    return _lib


def unbound_lib() -> Any:
    """``lib`` for its constants only (enum values, ``#define``s): opens no library."""
    return _lib


def bound_files() -> dict[str, str | None]:
    """Function name -> the library file it resolved in (None if missing); binds first."""
    libraries()
    out: dict[str, str | None] = {}
    for i in range(_lib.hgh_function_count()):
        f = _lib.hgh_function_file(i)
        out[ffi.string(_lib.hgh_function_name(i)).decode()] = ffi.string(f).decode() if f != ffi.NULL else None
    return out
