"""Checking mode's Python sites: the user's ``file:line`` handed down to the embedded runtime.

With PYACL_HARDGRAD_CHECK=1 in the environment when the binding loads, ``install`` sets a
profile function, written in C (this thread and every thread started later) that, whenever code outside
this package enters it -- a Python function of the package (the Pythonic layer, pyACL's
``acl``) or a C function of its binding -- tells the runtime the caller's ``file:line``
(``hgCheckSetSite``), so the findings of the calls that follow name the user's line.  Without
the variable nothing is installed and no call pays anything.
"""
from __future__ import annotations

import os
import sysconfig
import threading
from typing import Any

__all__ = ["install", "enabled_by_environment"]

_PKG = os.path.dirname(os.path.abspath(__file__)) + os.sep
_STDLIB = tuple({os.path.abspath(sysconfig.get_paths()[k]) + os.sep for k in ("stdlib", "platstdlib")})


def enabled_by_environment() -> bool:
    return os.environ.get("PYACL_HARDGRAD_CHECK") == "1"


def install(lib: Any) -> bool:
    """Start handing sites down; False when the runtime has no ``hgCheckSetSite`` (CANN)."""
    set_site = getattr(lib, "hgCheckSetSite", None)
    if set_site is None:
        return False
    inside: dict[str, bool] = {}

    def in_package(filename: str) -> bool:
        v = inside.get(filename)
        if v is None:
            # the package, and what runs between the user's line and it: the import machinery
            # (<frozen ...>, importlib) and the standard library (functools' wrappers, ...)
            path = os.path.abspath(filename)
            v = inside[filename] = filename.startswith("<") or path.startswith(_PKG) or \
                any(path.startswith(d) for d in _STDLIB)
        return v

    def is_binding(fn: Any) -> bool:
        # a function of the binding, or a method of one of its C types (a plan's run)
        mod = getattr(fn, "__module__", None) or type(getattr(fn, "__self__", None)).__module__ or ""
        return bool(mod.startswith("pyacl_hardgrad"))

    # The profile function itself is C (_binding_c/check_sites.c): it asks the two predicates once per
    # file and once per C function, and costs a lookup on every other call of the program.
    from . import _fastcall
    from ._cffi_acl import ffi
    _fastcall.sites_configure(int(ffi.cast("uintptr_t", ffi.addressof(lib, "hgCheckSetSite"))), in_package,
                              is_binding)
    _fastcall.sites_profile_here()
    threading.setprofile(_fastcall.sites_thread_hook)
    return True
