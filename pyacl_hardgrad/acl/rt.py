"""``acl.rt``: pyACL's runtime functions (devices, contexts, streams, events, memory, callbacks).

Each function parses its arguments as pyACL does, calls the runtime function of the binding
and returns pyACL's tuple; see ``pyacl_hardgrad.acl`` and docs/pyacl.md.  The names, argument
orders and return tuples follow pyACL's ``acl.rt``.
"""
import itertools as _itertools
import sys as _sys
import threading as _threading
import traceback as _traceback
from typing import TYPE_CHECKING as _TYPE_CHECKING, Any as _Any, Callable as _Callable, Optional as _Optional

from .._binding import ffi as _ffi
from ._args import parse as _parse
from ._core import (ACL_ERROR_API_NOT_SUPPORT as _ACL_ERROR_API_NOT_SUPPORT, action as _action,
                    c_function as _c_function, int_argument as _int_argument, query as _query)

if _TYPE_CHECKING:
    from .._types import CData as _CData

_M = "acl.rt"

# -- devices ------------------------------------------------------------------------------------
set_device = _action(_M, "set_device", "aclrtSetDevice", "i")
reset_device = _action(_M, "reset_device", "aclrtResetDevice", "i")
reset_device_force = _action(_M, "reset_device_force", "aclrtResetDeviceForce", "i")
get_device = _query(_M, "get_device", "aclrtGetDevice", parse_args=False)
get_run_mode = _query(_M, "get_run_mode", "aclrtGetRunMode", parse_args=False)
get_device_count = _query(_M, "get_device_count", "aclrtGetDeviceCount", parse_args=False)
synchronize_device = _action(_M, "synchronize_device", "aclrtSynchronizeDevice", parse_args=False)
synchronize_device_with_timeout = _action(_M, "synchronize_device_with_timeout",
                                          "aclrtSynchronizeDeviceWithTimeout", "i")
query_device_status = _query(_M, "query_device_status", "aclrtQueryDeviceStatus", "i", outs=(1,))
device_can_access_peer = _query(_M, "device_can_access_peer", "aclrtDeviceCanAccessPeer", "ii", outs=(0,))
device_enable_peer_access = _action(_M, "device_enable_peer_access", "aclrtDeviceEnablePeerAccess", "iI")
device_disable_peer_access = _action(_M, "device_disable_peer_access", "aclrtDeviceDisablePeerAccess", "i")
get_device_info = _query(_M, "get_device_info", "aclrtGetDeviceInfo", "II", outs=(2,))
device_get_stream_priority_range = _query(_M, "device_get_stream_priority_range",
                                          "aclrtDeviceGetStreamPriorityRange", outs=(0, 1), parse_args=False)
get_device_capability = _query(_M, "get_device_capability", "aclrtGetDeviceCapability", "iI", outs=(2,))
device_peer_access_status = _query(_M, "device_peer_access_status", "aclrtDevicePeerAccessStatus", "ii", outs=(2,))
get_device_res_limit = _query(_M, "get_device_res_limit", "aclrtGetDeviceResLimit", "iI", outs=(2,))
set_device_res_limit = _action(_M, "set_device_res_limit", "aclrtSetDeviceResLimit", "iII")
reset_device_res_limit = _action(_M, "reset_device_res_limit", "aclrtResetDeviceResLimit", "i")
get_res_in_current_thread = _query(_M, "get_res_in_current_thread", "aclrtGetResInCurrentThread", "e", outs=(1,),
                                   message=f"{_M}.get_res_in_current_thread parse failed")
_get_utilization = _c_function("aclrtGetDeviceUtilizationRate")


def get_device_utilization_rate(*args: _Any) -> tuple[dict[str, int], int]:
    """acl.rt.get_device_utilization_rate(device_id) -> (dict, ret)  (aclrtGetDeviceUtilizationRate)

    The dict has pyACL's keys: cube_utilization, vector_utilization, aicpu_utilization,
    memory_utilization (percent, -1 where the device has none) and utilization_extend (an int).
    """
    (device_id,) = _parse(f"{_M}.get_device_utilization_rate", args, "i")
    if _get_utilization is None:
        return {}, _ACL_ERROR_API_NOT_SUPPORT
    info: _Any = _ffi.new("aclrtUtilizationInfo *")       # (a struct: its fields are the C ones)
    ret: int = _get_utilization(device_id, info)
    return {"cube_utilization": info.cubeUtilization, "vector_utilization": info.vectorUtilization,
            "aicpu_utilization": info.aicpuUtilization, "memory_utilization": info.memoryUtilization,
            "utilization_extend": int(_ffi.cast("uintptr_t", info.utilizationExtend))}, ret

# -- contexts -----------------------------------------------------------------------------------
create_context = _query(_M, "create_context", "aclrtCreateContext", "i", outs=(0,))
destroy_context = _action(_M, "destroy_context", "aclrtDestroyContext", "p")
set_context = _action(_M, "set_context", "aclrtSetCurrentContext", "p")
get_context = _query(_M, "get_context", "aclrtGetCurrentContext", parse_args=False)
ctx_get_current_default_stream = _query(_M, "ctx_get_current_default_stream", "aclrtCtxGetCurrentDefaultStream",
                                        parse_args=False)

# -- streams ------------------------------------------------------------------------------------
create_stream = _query(_M, "create_stream", "aclrtCreateStream", parse_args=False)
destroy_stream = _action(_M, "destroy_stream", "aclrtDestroyStream", "p")
destroy_stream_force = _action(_M, "destroy_stream_force", "aclrtDestroyStreamForce", "p")
synchronize_stream = _action(_M, "synchronize_stream", "aclrtSynchronizeStream", "p")
synchronize_stream_with_timeout = _action(_M, "synchronize_stream_with_timeout",
                                          "aclrtSynchronizeStreamWithTimeout", "pi")
stream_wait_event = _action(_M, "stream_wait_event", "aclrtStreamWaitEvent", "pp")
stream_query = _query(_M, "stream_query", "aclrtStreamQuery", "p", outs=(1,),
                      message=f"{_M}.stream_query args parse failed!")
stream_get_id = _query(_M, "stream_get_id", "aclrtStreamGetId", "p", outs=(1,))
set_stream_failure_mode = _action(_M, "set_stream_failure_mode", "aclrtSetStreamFailureMode", "pI",
                                  message=f"{_M}.set_stream_failure_mode args parse failed!")
get_stream_available_num = _query(_M, "get_stream_available_num", "aclrtGetStreamAvailableNum", parse_args=False)

_create_stream_with_config = _c_function("aclrtCreateStreamWithConfig")


def create_stream_with_config(*args: _Any) -> tuple[int, int]:
    """acl.rt.create_stream_with_config(priority, flag) -> (stream, ret)  (aclrtCreateStreamWithConfig)"""
    priority, flag = _parse(f"{_M}.create_stream_with_config", args, "ii")
    if _create_stream_with_config is None:
        return 0, _ACL_ERROR_API_NOT_SUPPORT
    p = _ffi.new("aclrtStream *")
    ret: int = _create_stream_with_config(p, _int_argument(_create_stream_with_config, 1)(priority),
                                     _int_argument(_create_stream_with_config, 2)(flag))
    return int(_ffi.cast("uintptr_t", p[0])), ret


# -- events -------------------------------------------------------------------------------------
create_event = _query(_M, "create_event", "aclrtCreateEvent", parse_args=False)
create_event_with_flag = _query(_M, "create_event_with_flag", "aclrtCreateEventWithFlag", "I", outs=(0,))
create_event_ex_with_flag = _query(_M, "create_event_ex_with_flag", "aclrtCreateEventExWithFlag", "I", outs=(0,))
destroy_event = _action(_M, "destroy_event", "aclrtDestroyEvent", "p")
record_event = _action(_M, "record_event", "aclrtRecordEvent", "pp")
reset_event = _action(_M, "reset_event", "aclrtResetEvent", "pp")
query_event = _query(_M, "query_event", "aclrtQueryEvent", "p", outs=(1,))
query_event_status = _query(_M, "query_event_status", "aclrtQueryEventStatus", "p", outs=(1,))
query_event_wait_status = _query(_M, "query_event_wait_status", "aclrtQueryEventWaitStatus", "p", outs=(1,))
synchronize_event = _action(_M, "synchronize_event", "aclrtSynchronizeEvent", "p")
synchronize_event_with_timeout = _action(_M, "synchronize_event_with_timeout", "aclrtSynchronizeEventWithTimeout",
                                         "pi", message=f"{_M}.synchronize_event_with_timeout args parse failed!")
event_elapsed_time = _query(_M, "event_elapsed_time", "aclrtEventElapsedTime", "pp", outs=(0,), zero=(0.0,))
event_get_timestamp = _query(_M, "event_get_timestamp", "aclrtEventGetTimestamp", "p", outs=(1,))
get_thread_last_task_id = _query(_M, "get_thread_last_task_id", "aclrtGetThreadLastTaskId", parse_args=False)

# -- memory -------------------------------------------------------------------------------------
malloc = _query(_M, "malloc", "aclrtMalloc", "ke", outs=(0,))
malloc_cached = _query(_M, "malloc_cached", "aclrtMallocCached", "ke", outs=(0,))
malloc_align32 = _query(_M, "malloc_align32", "aclrtMallocAlign32", "ke", outs=(0,))
malloc_host = _query(_M, "malloc_host", "aclrtMallocHost", "k", outs=(0,))
free = _action(_M, "free", "aclrtFree", "p")
free_host = _action(_M, "free_host", "aclrtFreeHost", "p")
memcpy = _action(_M, "memcpy", "aclrtMemcpy", "pkpke")
memcpy_async = _action(_M, "memcpy_async", "aclrtMemcpyAsync", "pkpkep")
memset = _action(_M, "memset", "aclrtMemset", "pkik")
memset_async = _action(_M, "memset_async", "aclrtMemsetAsync", "pkikp")
value_write = _action(_M, "value_write", "aclrtValueWrite", "pkIp")
value_wait = _action(_M, "value_wait", "aclrtValueWait", "pkIp")
memcpy2d = _action(_M, "memcpy2d", "aclrtMemcpy2d", "pkpkkke")
memcpy2d_async = _action(_M, "memcpy2d_async", "aclrtMemcpy2dAsync", "pkpkkkep")
get_mem_info = _query(_M, "get_mem_info", "aclrtGetMemInfo", "e", outs=(1, 2))
mem_flush = _action(_M, "mem_flush", "aclrtMemFlush", "pk")
mem_invalidate = _action(_M, "mem_invalidate", "aclrtMemInvalidate", "pk")

# -- errors and timeouts ------------------------------------------------------------------------
peek_at_last_error = _action(_M, "peek_at_last_error", "aclrtPeekAtLastError", "e",
                             message=f"{_M}.peek_at_last_error args parse failed!")
get_last_error = _action(_M, "get_last_error", "aclrtGetLastError", "e",
                         message=f"{_M}.get_last_error args parse failed!")
set_op_wait_timeout = _action(_M, "set_op_wait_timeout", "aclrtSetOpWaitTimeout", "I",
                              message=f"{_M}.set_op_wait_timeout args parse failed!")
set_op_execute_time_out = _action(_M, "set_op_execute_time_out", "aclrtSetOpExecuteTimeOut", "I",
                                  message=f"{_M}.set_op_execute_timeout args parse failed!")

# -- callbacks ----------------------------------------------------------------------------------
# aclrtLaunchCallback's user data is a key into _pending_callbacks: the function and its
# argument stay referenced until the callback has run (or its launch failed).
subscribe_report = _action(_M, "subscribe_report", "aclrtSubscribeReport", "Kp")
unsubscribe_report = _action(_M, "unsubscribe_report", "aclrtUnSubscribeReport", "Kp")
process_report = _action(_M, "process_report", "aclrtProcessReport", "i")

_launch_callback = _c_function("aclrtLaunchCallback")
_pending_callbacks: dict[int, tuple[_Callable[[_Any], object], object]] = {}
_callback_keys = _itertools.count(1)
_callback_lock = _threading.Lock()


def _report(where: str) -> None:
    print(f"Exception in {where}:", file=_sys.stderr)
    _traceback.print_exc()


def _run_callback(user_data: "_CData") -> None:
    key = int(_ffi.cast("uintptr_t", user_data))
    with _callback_lock:
        entry = _pending_callbacks.pop(key, None)
    if entry is None:
        return
    fn, arg = entry
    try:
        fn(arg)
    except BaseException:       # a callback runs on the runtime's thread: report, never raise into C
        _report(f"the callback {fn!r} launched by acl.rt.launch_callback")


_callback_trampoline = (_ffi.callback(_ffi.typeof(_launch_callback).args[0], _run_callback)
                        if _launch_callback is not None else None)


def launch_callback(*args: _Any) -> int:
    """acl.rt.launch_callback(fn, args, block_type, stream) -> ret  (aclrtLaunchCallback)

    ``fn(args)`` runs, holding the GIL, in the thread that ``process_report`` is called on
    (the thread subscribed to ``stream`` with ``subscribe_report``).
    """
    fn, arg, block, stream = _parse(f"{_M}.launch_callback", args, "OOik")
    if not callable(fn):
        raise TypeError("parameter must be callable")
    if _launch_callback is None:
        return _ACL_ERROR_API_NOT_SUPPORT
    with _callback_lock:
        key = next(_callback_keys)
        _pending_callbacks[key] = (fn, arg)
    ret: int = _launch_callback(_callback_trampoline, _ffi.cast("void *", key),
                           _int_argument(_launch_callback, 2)(block), _ffi.cast("void *", stream))
    if ret != 0:
        with _callback_lock:
            _pending_callbacks.pop(key, None)
    return ret


def _pending_callback_count() -> int:
    """Callbacks launched and not run yet (not part of pyACL; for tests and diagnostics)."""
    return len(_pending_callbacks)


# -- exception information ----------------------------------------------------------------------
_set_exception_info_callback = _c_function("aclrtSetExceptionInfoCallback")
_exception_fn: list[_Optional[_Callable[[int], object]]] = [None]


def _run_exception_callback(info: "_CData") -> None:
    fn = _exception_fn[0]
    if fn is None:
        return
    try:
        fn(int(_ffi.cast("uintptr_t", info)))
    except BaseException:
        _exception_fn[0] = None        # as pyACL: a failing callback is dropped
        _report(f"the exception callback {fn!r} set by acl.rt.set_exception_info_callback")


_exception_trampoline = (_ffi.callback(_ffi.typeof(_set_exception_info_callback).args[0], _run_exception_callback)
                         if _set_exception_info_callback is not None else None)


def set_exception_info_callback(*args: _Any) -> int:
    """acl.rt.set_exception_info_callback(fn | None) -> ret  (aclrtSetExceptionInfoCallback)

    ``fn(info)`` gets the exception information as an int for the get_*_from_exception_info
    functions; None (or no argument) clears it.
    """
    (fn,) = _parse(f"{_M}.set_exception_info_callback", args, "|O") or (None,)
    if fn is not None and not callable(fn):
        raise TypeError(f"{_M}.set_exception_info_callback args parse failed")
    if _set_exception_info_callback is None:
        return _ACL_ERROR_API_NOT_SUPPORT
    _exception_fn[0] = fn
    return int(_set_exception_info_callback(_exception_trampoline if fn is not None else _ffi.NULL))


def _info_getter(pyname: str, cname: str) -> _Callable[..., int]:
    fn = _c_function(cname)
    full = f"{_M}.{pyname}"

    def f(*args: _Any) -> int:
        (info,) = _parse(full, args, "k")
        if fn is None:
            return 0xFFFFFFFF           # CANN's value for "no information"
        return int(fn(_ffi.cast("void *", info)))
    f.__name__ = f.__qualname__ = pyname
    f.__doc__ = f"{full}(info) -> int  ({cname}); 0xFFFFFFFF when unavailable"
    return f


get_error_code_from_exception_info = _info_getter("get_error_code_from_exception_info",
                                                  "aclrtGetErrorCodeFromExceptionInfo")
get_task_id_from_exception_info = _info_getter("get_task_id_from_exception_info", "aclrtGetTaskIdFromExceptionInfo")
get_stream_id_from_exception_info = _info_getter("get_stream_id_from_exception_info",
                                                 "aclrtGetStreamIdFromExceptionInfo")
get_thread_id_from_exception_info = _info_getter("get_thread_id_from_exception_info",
                                                 "aclrtGetThreadIdFromExceptionInfo")
get_device_id_from_exception_info = _info_getter("get_device_id_from_exception_info",
                                                 "aclrtGetDeviceIdFromExceptionInfo")
