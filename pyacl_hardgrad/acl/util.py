"""``acl.util``: pyACL's buffer, numpy and thread helpers.

* ``bytes_to_ptr(b)``: the address of the bytes object's own buffer (no copy: keep ``b``
  alive while the address is used); only ``bytes`` (ValueError otherwise).
* ``ptr_to_bytes(ptr, size)``: a new bytes object holding a copy of ``size`` bytes at ``ptr``.
* ``numpy_to_ptr(a)``: the address of ``a``'s data (no copy); deprecated (a ``Warning``, and a
  second one when ``a`` is not contiguous).
* ``numpy_contiguous_to_ptr(a)``: ``(address, array)`` of ``a`` itself when it is a C-contiguous,
  aligned, writeable array, else of a C-contiguous copy (keep the returned array); deprecated.
* ``ptr_to_numpy(ptr, shape, npy_type)``: a writeable numpy array over the memory at ``ptr``
  (no copy; the memory is not owned, not kept alive); ``npy_type`` is numpy's type number
  (NPY_FLOAT32 = 11, ...); deprecated.
* ``start_thread(fn, args)``: ``(thread_id, 0)``; runs ``fn(args)`` (``fn()`` for None) on a new
  thread whose id is its pthread id, the one ``acl.rt.subscribe_report`` takes;
  ``stop_thread(thread_id)`` joins it and returns 0, or raises RuntimeError when ``fn`` raised.
"""
import errno as _errno
import signal as _signal
import threading as _threading
import traceback as _traceback
import warnings as _warnings
from typing import Any as _Any, Callable as _Callable

import numpy as _np

from .._binding import ffi as _ffi
from ._args import parse as _parse

_M = "acl.util"
_NPY_TYPES = {_np.dtype(t).num: _np.dtype(t) for t in set(_np.sctypeDict.values())}


def _warn(message: str) -> None:
    _warnings.warn(message, Warning, stacklevel=3)


def bytes_to_ptr(*args: _Any) -> int:
    """acl.util.bytes_to_ptr(b: bytes) -> int (the address of b's own buffer)"""
    (b,) = _parse(f"{_M}.bytes_to_ptr", args, "O")
    if not isinstance(b, bytes):
        raise ValueError("needs an byte as argument")
    return int(_ffi.cast("uintptr_t", _ffi.from_buffer(b)))


def ptr_to_bytes(*args: _Any) -> bytes:
    """acl.util.ptr_to_bytes(ptr, size) -> bytes (a copy of size bytes at ptr)"""
    ptr, size = _parse(f"{_M}.ptr_to_bytes", args, "kk")
    if size > (1 << 63) - 1:
        raise ValueError("convert c pointer to bytes failed")
    if ptr == 0:
        return bytes(size)        # no source: CPython makes a new (unset) buffer of that size
    data: bytes = _ffi.buffer(_ffi.cast("char *", ptr), size)[:]
    return data


def numpy_to_ptr(*args: _Any) -> int:
    """acl.util.numpy_to_ptr(array) -> int (deprecated: use bytes_to_ptr)"""
    _warn("acl.util.numpy_to_ptr will be deprecated. Please use acl.util.bytes_to_ptr instead.")
    (a,) = _parse(f"{_M}.numpy_to_ptr", args, "O")
    if not isinstance(a, _np.ndarray):
        raise ValueError("needs an ndarray as argument")
    if not a.flags.c_contiguous:
        _warn("The input ndarray is discontiguous. Please use acl.util.bytes_to_ptr instead.")
    data: tuple[int, bool] = a.__array_interface__["data"]
    return data[0]


def numpy_contiguous_to_ptr(*args: _Any) -> tuple[int, _np.ndarray[_Any, _Any]]:
    """acl.util.numpy_contiguous_to_ptr(array) -> (int, array) (deprecated: use bytes_to_ptr)"""
    _warn("acl.util.numpy_contiguous_to_ptr will be deprecated. Please use acl.util.bytes_to_ptr instead.")
    (a,) = _parse(f"{_M}.numpy_contiguous_to_ptr", args, "O")
    if not isinstance(a, _np.ndarray):
        raise ValueError("needs an ndarray as argument")
    f = a.flags
    if not (f.c_contiguous and f.aligned and f.writeable):
        a = a.copy(order="C")
    data: tuple[int, bool] = a.__array_interface__["data"]
    return data[0], a


def ptr_to_numpy(*args: _Any) -> _np.ndarray[_Any, _Any]:
    """acl.util.ptr_to_numpy(ptr, shape: tuple, npy_type) -> ndarray over ptr (deprecated)"""
    _warn("acl.util.ptr_to_numpy will be deprecated. Please use acl.util.ptr_to_bytes instead.")
    ptr, shape, npy_type = _parse(f"{_M}.ptr_to_numpy", args, "kOi")
    if not isinstance(shape, tuple):
        raise ValueError("shape is empty")
    if not all(isinstance(d, int) for d in shape):
        raise TypeError("the second argument is not list of int")
    dtype = _NPY_TYPES.get(npy_type)
    if dtype is None:
        raise TypeError(f"Invalid data-type for array (numpy type number {npy_type})")
    shape = tuple(int(d) for d in shape)
    if any(d < 0 for d in shape):
        raise ValueError("negative dimensions are not allowed")
    if ptr == 0:
        return _np.empty(shape, dtype)     # numpy allocates when handed no data
    n = 1
    for d in shape:
        n *= d
    buf = _ffi.buffer(_ffi.cast("char *", ptr), n * dtype.itemsize)
    return _np.frombuffer(buf, dtype).reshape(shape)  # type: ignore[call-overload,no-any-return]  # (a cffi buffer)


# -- threads ------------------------------------------------------------------------------------
_threads_lock = _threading.Lock()
# thread id -> (thread, the event stop_thread sets)
_threads: dict[int, tuple[_threading.Thread, _threading.Event]] = {}
_thread_errors: dict[int, list[str]] = {}


def _thread_main(fn: _Callable[..., object], arg: object, started: _threading.Event, ident: list[int],
                 stopped: _threading.Event) -> None:
    ident.append(_threading.get_ident())
    started.set()
    try:
        if arg is None:
            fn()
        else:
            fn(arg)
    except BaseException as exc:
        _traceback.print_exc()
        with _threads_lock:
            _thread_errors.setdefault(ident[0], []).append(
                f"exception={type(exc).__name__},msg=thread call failed")
    # Python's threads are detached, so an ended thread's id could go to the next one started;
    # as a joinable pthread's does, the id stays this thread's until stop_thread.
    stopped.wait()


def start_thread(*args: _Any) -> tuple[int, int]:
    """acl.util.start_thread(fn, args) -> (thread_id, ret)

    ``fn(args)`` (``fn()`` when args is None) runs on a new thread; thread_id is its pthread
    id (what acl.rt.subscribe_report takes).  As pyACL does, SIGINT's handler is reset to the
    default (Ctrl-C ends the process).
    """
    if len(args) != 2:
        raise TypeError(f"start_thread expected 2 arguments, got {len(args)}")
    fn, arg = args
    if not callable(fn):
        raise TypeError("parameter must be callable")
    ident: list[int] = []
    started, stopped = _threading.Event(), _threading.Event()
    t = _threading.Thread(target=_thread_main, args=(fn, arg, started, ident, stopped), daemon=True,
                         name="acl.util.start_thread")
    try:
        t.start()
    except RuntimeError:
        return 0, _errno.EAGAIN
    started.wait()
    with _threads_lock:
        _threads[ident[0]] = (t, stopped)
    if _threading.current_thread() is _threading.main_thread():
        _signal.signal(_signal.SIGINT, _signal.SIG_DFL)
    return ident[0], 0


def stop_thread(*args: _Any) -> int:
    """acl.util.stop_thread(thread_id) -> ret (0, or ESRCH for an unknown id)

    Waits for the thread; RuntimeError when its function raised.
    """
    (tid,) = _parse(f"{_M}.stop_thread", args, "K")
    with _threads_lock:
        entry = _threads.pop(tid, None)
    if entry is None:
        return _errno.ESRCH
    t, stopped = entry
    stopped.set()
    t.join()
    with _threads_lock:
        errors = _thread_errors.pop(tid, None)
    if errors:
        raise RuntimeError("".join(e + ";" for e in errors))
    return 0
