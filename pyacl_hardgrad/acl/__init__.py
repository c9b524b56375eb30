"""pyACL's Python API (``import acl``) over this package's binding.

``pyacl_hardgrad.acl`` is laid out as CANN's pyACL extension module is: top-level functions
(``init``, ``finalize``, ``get_version``, ``get_soc_name``, ``get_recent_err_msg``,
``app_log``, fp16 converters, ``data_type_size``, data buffers) and the submodules ``rt``,
``util``, ``mdl`` and ``media``.  It follows pyACL's conventions exactly: handles and pointers
are plain ints (0 for NULL), actions return ``ret``, creators and getters ``(value, ret)``,
runtime failures are returned and never raised, only unparsable arguments raise (pyACL's
TypeError / ValueError), and no ACL_* constants are exported (scripts define their own).

Every call goes through ``pyacl_hardgrad._binding.lib``: real CANN or the embedded runtime,
the libraries every other part of the package uses, so handles are interchangeable with the
Pythonic objects (``Stream.from_handle(h)``, ``int(stream)``, ...) and with other users of the
same libascendcl.  ``python -m pyacl_hardgrad --pyacl-path`` prints a folder that makes
``import acl`` load this module; docs/pyacl.md.
"""
import sys as _sys
from typing import Any as _Any, Callable as _Callable, Optional as _Optional

from .._binding import ffi as _ffi, lib as _lib
from . import mdl, media, prof, rt, util  # noqa: F401  (pyACL's submodules)
from ._args import parse as _parse
from ._core import (ACL_ERROR_API_NOT_SUPPORT as _NOT_SUPPORT, action as _action, c_function as _c_function,
                    c_type as _c_type, int_argument as _int_argument, not_supported as _not_supported, query as _query,
                    string_or_none as _string_or_none)

_M = "acl"

finalize = _action(_M, "finalize", "aclFinalize", parse_args=False)
get_version = _query(_M, "get_version", "aclrtGetVersion", outs=(0, 1, 2), parse_args=False)


def init(*args: _Any) -> int:
    """acl.init([config_path]) -> ret  (aclInit; no path: NULL)"""
    vals = _parse(f"{_M}.init", args, "|s")
    return int(_lib.aclInit(vals[0] if vals else _ffi.NULL))


def get_soc_name(*args: _Any) -> _Optional[str]:
    """acl.get_soc_name() -> str, or None when the runtime cannot tell  (aclrtGetSocName)"""
    return _string_or_none(_lib.aclrtGetSocName())


def get_recent_err_msg(*args: _Any) -> _Optional[str]:
    """acl.get_recent_err_msg() -> str, or None when there is none  (aclGetRecentErrMsg)

    As aclGetRecentErrMsg: the calling thread's messages, newest first; reading clears them.
    """
    return _string_or_none(_lib.aclGetRecentErrMsg())


# -- logging, fp16 and data types: CANN's base helpers ----------------------------------------
def _runtime_app_log() -> _Optional[_Callable[..., _Any]]:
    """aclAppLog of the runtime library every call goes through.  It is variadic, which the
    binding does not declare, so it is looked up in that same library file (dlopen of an
    already loaded file gives the loaded instance); None when the library lacks it."""
    import ctypes
    from .._binding import BACKEND
    try:
        fn: _Callable[..., _Any] = ctypes.CDLL(BACKEND.library_files[0]).aclAppLog
        return fn
    except (OSError, AttributeError, IndexError):
        return None


_app_log = _runtime_app_log()
_to_data_type = _int_argument(_lib.aclDataTypeSize, 0)


def app_log(*args: _Any) -> None:
    """acl.app_log(level, message) -> None  (aclAppLog: ACL_DEBUG 0, INFO 1, WARNING 2, ERROR 3)

    The line names the calling Python function, file and line.  Where it goes is the runtime's
    log configuration (ASCEND_GLOBAL_LOG_LEVEL, ASCEND_SLOG_PRINT_TO_STDOUT on the embedded
    runtime).  Nothing happens when the runtime library has no aclAppLog.
    """
    import ctypes
    level, message = _parse(f"{_M}.app_log", args, "is")
    if _app_log is not None:
        frame = _sys._getframe(1)
        _app_log(ctypes.c_int(level), frame.f_code.co_name.encode(), frame.f_code.co_filename.encode(),
                 ctypes.c_uint32(frame.f_lineno), b"%s", message)
    return None


def float_to_float16(*args: _Any) -> int:
    """acl.float_to_float16(x) -> int, the binary16 bits  (aclFloatToFloat16)"""
    (x,) = _parse(f"{_M}.float_to_float16", args, "f")
    return int(_lib.aclFloatToFloat16(x))


def float16_to_float(*args: _Any) -> float:
    """acl.float16_to_float(bits) -> float  (aclFloat16ToFloat)"""
    (h,) = _parse(f"{_M}.float16_to_float", args, "H")
    return float(_lib.aclFloat16ToFloat(h))


def data_type_size(*args: _Any) -> int:
    """acl.data_type_size(dtype) -> int bytes per element  (aclDataTypeSize; 0 for STRING/UNDEFINED)"""
    (dt,) = _parse(f"{_M}.data_type_size", args, "i")
    return int(_lib.aclDataTypeSize(_to_data_type(dt)))


# -- data buffers, CANN attributes, version strings: not in this package's runtime -------------
def _bare_or(pyname: str, cname: str, fmt: str, bare: int) -> _Callable[..., int]:
    fn = _c_function(cname)
    if fn is None:
        return _not_supported(_M, pyname, fmt, bare=bare)

    def f(*args: _Any) -> int:
        vals = _parse(f"{_M}.{pyname}", args, fmt)
        r = fn(*[_ffi.cast("void *", v) if i == 0 else v for i, v in enumerate(vals)])
        return int(r) if isinstance(r, int) else int(_ffi.cast("uintptr_t", r))
    f.__name__ = f.__qualname__ = pyname
    f.__doc__ = f"{_M}.{pyname}({', '.join(fmt)}) -> int  ({cname})"
    return f


create_data_buffer = _bare_or("create_data_buffer", "aclCreateDataBuffer", "kk", 0)
get_data_buffer_addr = _bare_or("get_data_buffer_addr", "aclGetDataBufferAddr", "k", 0)
get_data_buffer_size = _bare_or("get_data_buffer_size", "aclGetDataBufferSize", "k", 0)
get_data_buffer_size_v2 = _bare_or("get_data_buffer_size_v2", "aclGetDataBufferSizeV2", "k", 0)
destroy_data_buffer = _action(_M, "destroy_data_buffer", "aclDestroyDataBuffer", "p")
update_data_buffer = _action(_M, "update_data_buffer", "aclUpdateDataBuffer", "ppk")
get_cann_attribute = _query(_M, "get_cann_attribute", "aclGetCannAttribute", "e", outs=(1,))
get_device_capability = _query(_M, "get_device_capability", "aclGetDeviceCapability", "Ie", outs=(2,))
finalize_reference = _query(_M, "finalize_reference", "aclFinalizeReference", outs=(0,), parse_args=False)
_get_version_str = _c_function("aclsysGetVersionStr")
_get_cann_attribute_list = _c_function("aclGetCannAttributeList")


def get_cann_attribute_list(*args: _Any) -> tuple[list[int], int, int]:
    """acl.get_cann_attribute_list() -> (list of attribute ids, count, ret)  (aclGetCannAttributeList)"""
    if _get_cann_attribute_list is None:
        return [], 0, _NOT_SUPPORT
    items = _ffi.new(_c_type(_get_cann_attribute_list).args[0])
    count = _ffi.new("size_t *")
    ret: int = _get_cann_attribute_list(items, count)
    n = int(count[0]) if ret == 0 and items[0] != _ffi.NULL else 0
    return [int(items[0][i]) for i in range(n)], n, ret


def get_version_str(*args: _Any) -> tuple[str, int]:
    """acl.get_version_str(package) -> (str, ret)  (aclsysGetVersionStr)"""
    (pkg,) = _parse(f"{_M}.get_version_str", args, "s")
    if _get_version_str is None:
        return "", _NOT_SUPPORT
    buf = _ffi.new("char[]", 128)
    ret: int = _get_version_str(pkg, buf)
    return _ffi.string(buf).decode("utf-8", errors="replace"), ret
