"""The call trace: every C call the binding makes, with its arguments, result and duration.

Switched on by ``PYACL_HARDGRAD_TRACE_CALLS=1`` (read when the binding loads) or at run time by
``hg.trace_calls(True)`` (also a context manager restoring the previous state on exit).  Each
call is one record of the ``pyacl_hardgrad.calls`` logger at DEBUG::

    aclrtSetDevice(999) -> 107001 ACL_ERROR_RT_INVALID_DEVICEID (3.1 us)

with the fields ``function``, ``call_args`` (the arguments as text: handles and pointers as hex
addresses, NULL, integers, floats, strings), ``result`` (the value returned, None for void),
``status`` and ``status_name`` (for the functions returning an aclError/aclnnStatus or a status of
the handle layer, else None) and ``duration_us``.

How every call is reached, with nothing changed on the hot paths while the trace is off:
  * calls through cffi (``lib.X(...)`` and the functions the package keeps in variables): while
    the trace is on, the package's modules see a tracing stand-in for ``lib`` and traced versions
    of the functions they keep (module variables, closures, the operators' generated functions and
    specs); switching off puts the originals back.  Modules imported while it is on are switched
    as they load.
  * calls the ``_fastcall`` extension makes itself (plan runs, the one-call fronts, tensors made
    and closed in C): the extension reports them when given a tracer (one pointer test per call
    while off).
  * calls made inside C by the handle layer (a fused call runs phase 1, phase 2 and the stream
    hand-over in one crossing): the crossing is the record (``hgb_call_aclnnX``,
    ``hgb_callv_aclnnX``, ``hgb_plan_run``...); the runtime calls inside it appear in the embedded
    runtime's own log at DEBUG (``ASCEND_GLOBAL_LOG_LEVEL=0``).

Where the records go: like any logger's.  When the trace is switched on and no handler would
receive them (none configured, or only NullHandlers, up to the root), a handler printing them to
stderr is added to ``pyacl_hardgrad.calls`` for as long as the trace is on; a logger without a
level of its own is set to DEBUG meanwhile, so the records are made.  Calls your own code makes
through ``pyacl_hardgrad.lib`` / ``hg.raw.lib`` are not traced (that object stays cffi's own, so
``ffi.addressof(lib, ...)`` keeps working); pyACL's calls (``import acl``) are.
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import logging
import os
import sys
import threading
import time
import types
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from . import _binding  # noqa: F401  (the binding loaded and bound to its backend first)
from ._cffi_acl import ffi as _ffi, lib as _raw  # cffi's own objects

__all__ = ["trace_calls", "calls_traced", "TraceCalls", "ENV_VAR"]

ENV_VAR = "PYACL_HARDGRAD_TRACE_CALLS"
_ON_VALUES = ("1", "true", "yes", "on")
_OFF_VALUES = ("", "0", "false", "no", "off")

log = logging.getLogger("pyacl_hardgrad.calls")

_NULL = _ffi.NULL
_lock = threading.RLock()
_state = {"on": False}
_PACKAGE = __name__.rpartition(".")[0]
# namespaces left alone: the binding itself and what users are handed as ``lib``
_SKIP_MODULES = {f"{_PACKAGE}._binding", _PACKAGE, f"{_PACKAGE}.raw", __name__, f"{_PACKAGE}._cffi_acl",
                 f"{_PACKAGE}._fastcall"}
_THIS_FILE = os.path.abspath(__file__)
_HERE = os.path.dirname(_THIS_FILE)

# handle-layer functions returning an int that is a status (the others return counts, flags...)
_HGB_STATUS = frozenset((
    "hgb_stream_sync", "hgb_stream_unpin", "hgb_tensor_wait", "hgb_begin", "hgb_finish", "hgb_tensor_empty",
    "hgb_memory_new", "hgb_cache_alloc", "hgb_cache_empty", "hgb_cache_stats_of", "hgb_plan_run",
    "hgb_plan_run_in", "hgb_plan_finish", "hgb_host_stage", "hgb_host_finish",
))
_HGB_STATUS_PREFIXES = ("hgb_call_", "hgb_callv_", "hgb_plan_aclnn", "hgb_host_aclnn")


def _is_status_function(name: str, fn: Any) -> bool:
    try:
        result = _ffi.typeof(fn).result
    except TypeError:
        return False
    if result.kind != "primitive" or result.cname not in ("int", "int32_t"):
        return False
    if name.startswith("acl") or name.startswith("hg") and not name.startswith("hgb_"):
        return True
    return name in _HGB_STATUS or name.startswith(_HGB_STATUS_PREFIXES)


_names: dict[int, str] = {}


def _status_name(code: int) -> str:
    if not _names:
        from .errors import CODE_NAMES
        # the handle layer's own statuses (a closed handle, a consumed plan, a device gone)
        _names.update({getattr(_raw, n): n for n in ("HGB_CLOSED", "HGB_CONSUMED", "HGB_GONE") if hasattr(_raw, n)})
        _names.update(CODE_NAMES)
    return _names.get(code, f"UNKNOWN({code})")


# --- formatting --------------------------------------------------------------------------------

def _address(p: Any) -> str:
    value = int(_ffi.cast("uintptr_t", p))
    return "NULL" if value == 0 else f"0x{value:x}"


def _arg(a: Any) -> str:
    """One argument as the trace shows it."""
    if a is None:
        return "NULL"
    t = type(a)
    if t is bool or t is int:
        return str(a)
    if t is float:
        return repr(a)
    if t is bytes:
        return '"' + bytes(a).decode(errors="replace") + '"'
    if t is str:
        return '"' + str(a) + '"'
    if isinstance(a, _ffi.CData):
        kind = _ffi.typeof(a).kind
        if kind in ("pointer", "array", "function"):
            return _address(a)
        if kind in ("primitive", "enum"):
            return str(_ffi.cast("long long", a)) if kind == "enum" else repr(a)
        return f"<{_ffi.typeof(a).cname}>"
    if isinstance(a, (list, tuple)):
        return "[" + ", ".join(_arg(x) for x in a) + "]"
    return repr(a)


def _emit(name: str, call_args: list[str], result: Any, status: int | None, ns: int, shown: str) -> None:
    """One record; ``shown`` is the result as the message gives it."""
    us = ns / 1000.0
    if status is not None:
        shown = f"{status} {_status_name(status)}"
    log.debug("%s(%s) -> %s (%.1f us)", name, ", ".join(call_args), shown, us,
              extra={"function": name, "call_args": tuple(call_args), "result": result, "status": status,
                     "status_name": _status_name(status) if status is not None else None, "duration_us": us})


def _result(r: Any) -> tuple[Any, str]:
    """A cffi result as (a plain value, its text): pointers as their address (0: NULL), C strings
    decoded, nothing as None ("void")."""
    if r is None:
        return None, "void"
    if isinstance(r, _ffi.CData):
        if _ffi.typeof(r).cname in ("char *", "const char *"):
            if r == _NULL:
                return None, "NULL"
            text = _ffi.string(r).decode(errors="replace")
            return text, '"' + (text if len(text) <= 200 else text[:200] + "...") + '"'
        if _ffi.typeof(r).kind == "pointer":
            return int(_ffi.cast("uintptr_t", r)), _address(r)
        return r, _arg(r)
    return r, _arg(r)


def _traced(name: str, fn: Any) -> Callable[..., Any]:
    """fn (a binding function) reporting each call while the trace is on."""
    status_fn = _is_status_function(name, fn)
    clock = time.perf_counter_ns

    def traced(*args: Any) -> Any:
        if not _state["on"]:
            return fn(*args)
        t0 = clock()
        try:
            r = fn(*args)
        except BaseException as exc:
            if log.isEnabledFor(logging.DEBUG):
                _emit(name, [_arg(a) for a in args], None, None, clock() - t0,
                      f"raised {type(exc).__name__}: {exc}")
            raise
        ns = clock() - t0
        if log.isEnabledFor(logging.DEBUG):
            value, shown = _result(r)
            _emit(name, [_arg(a) for a in args], value, r if status_fn and type(r) is int else None, ns, shown)
        return r

    traced.__name__ = traced.__qualname__ = name
    traced.__wrapped__ = fn                    # type: ignore[attr-defined]
    traced.__doc__ = f"{name}, reported to the call trace (pyacl_hardgrad.calls) while it is on."
    return traced


def _report_from_c(name: str, codes: str, args: tuple[Any, ...], result: Any, ns: int) -> None:
    """The _fastcall extension's record of a call it made itself."""
    if not log.isEnabledFor(logging.DEBUG):
        return
    shown = []
    for code, a in zip(codes, args):
        if code == "p":
            shown.append("NULL" if not a else f"0x{a:x}")
        elif code == "O":
            shown.append(_arg(a))
        else:
            shown.append(str(a) if code != "d" else repr(a))
    if result is None:
        _emit(name, shown, None, None, ns, "void")
    elif name == "hgb_thread_call":                 # the one call returning a pointer
        _emit(name, shown, result, None, ns, "NULL" if not result else f"0x{result:x}")
    else:
        _emit(name, shown, result, result, ns, str(result))


# --- the stand-ins -------------------------------------------------------------------------------

class _Swaps:
    """The traced counterpart of every binding function and of ``lib``, built once."""

    def __init__(self) -> None:
        self.by_id: dict[int, tuple[Any, Any]] = {}       # id(raw function) -> (raw, traced)
        self.back: dict[int, Any] = {}                    # id(traced) -> raw
        proxy = types.ModuleType(f"{_PACKAGE}.lib (traced)")
        for n in dir(_raw):
            v = getattr(_raw, n)
            if callable(v):
                t = _traced(n, v)
                self.by_id[id(v)] = (v, t)
                self.back[id(t)] = v
                proxy.__dict__[n] = t
            else:
                proxy.__dict__[n] = v
        proxy.__dict__["__wrapped__"] = _raw
        self.proxy = proxy

    def value(self, v: Any, on: bool) -> Any:
        if on:
            if v is _raw:
                return self.proxy
            hit = self.by_id.get(id(v))
            return hit[1] if hit is not None and hit[0] is v else v
        if v is self.proxy:
            return _raw
        return self.back.get(id(v), v)


_swaps: _Swaps | None = None


def _swap_function(f: types.FunctionType, on: bool, swaps: _Swaps) -> None:
    for cell in f.__closure__ or ():
        try:
            v = cell.cell_contents
        except ValueError:              # an empty cell
            continue
        new = swaps.value(v, on)
        if new is not v:
            cell.cell_contents = new


def _closure_to_switch(f: types.FunctionType) -> bool:
    """A closure of the package whose cells may hold binding functions (not the stand-ins'
    own: their cell is the original they call)."""
    path = os.path.abspath(f.__code__.co_filename)
    return path.startswith(_HERE + os.sep) and path != _THIS_FILE


def _swap_namespace(ns: dict[str, Any], on: bool, swaps: _Swaps) -> None:
    for k, v in list(ns.items()):
        new = swaps.value(v, on)
        if new is not v:
            ns[k] = new
        elif isinstance(v, types.FunctionType) and v.__closure__ and _closure_to_switch(v):
            _swap_function(v, on, swaps)


def _swap_module(mod: types.ModuleType, on: bool, swaps: _Swaps) -> None:
    if mod.__name__ in _SKIP_MODULES:
        return
    _swap_namespace(mod.__dict__, on, swaps)
    specs = mod.__dict__.get("_specs")
    if isinstance(specs, dict):          # ops: each operator's entry points and generated function
        for spec in specs.values():
            _swap_namespace(spec.__dict__, on, swaps)
            fn = getattr(spec, "function", None)
            if isinstance(fn, types.FunctionType):
                _swap_namespace(fn.__globals__, on, swaps)


def _ours(name: str) -> bool:
    return name == _PACKAGE or name.startswith(_PACKAGE + ".") or name == "acl" or name.startswith("acl.")


def _package_modules() -> Iterable[types.ModuleType]:
    for name, mod in list(sys.modules.items()):
        if isinstance(mod, types.ModuleType) and _ours(name) and _in_package(mod):
            yield mod


def _in_package(mod: types.ModuleType) -> bool:
    """A module of this package (the ``import acl`` shim included), not one merely named alike."""
    f = getattr(mod, "__file__", None)
    return bool(f) and os.path.abspath(str(f)).startswith(_HERE + os.sep)


def _sweep() -> None:
    """Switch every module of the package loaded so far (again: switching is idempotent), those
    still being imported included: a module whose import loaded the binding (and so switched the
    trace on from the environment) bound the original ``lib`` first."""
    with _lock:
        if _state["on"] and _swaps is not None:
            for mod in _package_modules():
                _swap_module(mod, True, _swaps)


class _AfterImport(importlib.abc.MetaPathFinder):
    """While the trace is on: modules of the package loaded meanwhile are switched as they load
    (and at each such import, the modules still being imported, see _sweep)."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if not _ours(fullname):
            return None
        _sweep()
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        exec_module = getattr(loader, "exec_module", None)
        if loader is None or exec_module is None:
            return spec

        def exec_then_switch(module: types.ModuleType) -> None:
            exec_module(module)
            _sweep()

        try:
            loader.exec_module = exec_then_switch      # type: ignore[method-assign]
        except AttributeError:
            pass
        return spec


_finder = _AfterImport()
_added_handler: logging.Handler | None = None
_set_level = False


def _records_reach_a_handler() -> bool:
    c: logging.Logger | None = log
    while c is not None:
        if any(not isinstance(h, logging.NullHandler) for h in c.handlers):
            return True
        if not c.propagate:
            return False
        c = c.parent
    return False


def _set(on: bool) -> None:
    global _swaps, _added_handler, _set_level
    from . import _fastcall
    with _lock:
        if on == _state["on"]:
            return
        if _swaps is None:
            _swaps = _Swaps()
        if on:
            if log.level == logging.NOTSET:
                log.setLevel(logging.DEBUG)
                _set_level = True
            if not _records_reach_a_handler():
                _added_handler = logging.StreamHandler(sys.stderr)
                _added_handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
                log.addHandler(_added_handler)
            _state["on"] = True
            if _finder not in sys.meta_path:
                sys.meta_path.insert(0, _finder)
            _fastcall.set_tracer(_report_from_c)
        else:
            _state["on"] = False
            _fastcall.set_tracer(None)
            if _finder in sys.meta_path:
                sys.meta_path.remove(_finder)
            if _added_handler is not None:
                log.removeHandler(_added_handler)
                _added_handler = None
            if _set_level:
                log.setLevel(logging.NOTSET)
                _set_level = False
        for mod in _package_modules():
            _swap_module(mod, on, _swaps)


def calls_traced() -> bool:
    """True while the call trace is on."""
    return bool(_state["on"])


class TraceCalls:
    """What :func:`trace_calls` returns: the switch already applied; as a context manager it puts
    the previous state back on exit."""

    def __init__(self, on: bool):
        self.previous = calls_traced()
        self.on = on
        _set(on)

    def __enter__(self) -> "TraceCalls":
        return self

    def __exit__(self, *exc: object) -> None:
        _set(self.previous)

    def __repr__(self) -> str:
        return f"<TraceCalls {'on' if self.on else 'off'} (was {'on' if self.previous else 'off'})>"


def trace_calls(on: bool = True) -> TraceCalls:
    """Switch the call trace on (or off with ``False``): every C call the binding makes becomes a
    DEBUG record of the ``pyacl_hardgrad.calls`` logger (see the module's documentation).

    ``hg.trace_calls(True)`` switches it for good; ``with hg.trace_calls(): ...`` for the block."""
    if not isinstance(on, bool):
        raise TypeError(f"on must be a bool, not {type(on).__name__} {on!r:.40}")
    return TraceCalls(on)


def from_environment() -> None:
    """PYACL_HARDGRAD_TRACE_CALLS, read when the binding loads: 1/true/yes/on switches the trace on;
    another value than those and 0/false/no/off/empty warns and leaves it off."""
    value = os.environ.get(ENV_VAR)
    if value is None:
        return
    v = value.strip().lower()
    if v in _ON_VALUES:
        _set(True)
    elif v not in _OFF_VALUES:
        warnings.warn(f"{ENV_VAR}={value!r} is not one of 1, true, yes, on (trace) or 0, false, no, off: "
                      "the call trace stays off", RuntimeWarning, stacklevel=2)


if globals().pop("_from_environment_when_loaded", False):
    from_environment()
