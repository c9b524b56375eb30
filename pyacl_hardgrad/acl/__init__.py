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
import os as _os
import sys as _sys
import time as _time

import numpy as _np

from .._binding import ffi as _ffi, lib as _lib
from . import mdl, media, rt, util  # noqa: F401  (pyACL's submodules)
from ._args import parse as _parse
from ._core import (ACL_ERROR_API_NOT_SUPPORT as _NOT_SUPPORT, action as _action, c_function as _c_function,
                    not_supported as _not_supported, query as _query, string_or_none as _string_or_none)

_M = "acl"

finalize = _action(_M, "finalize", "aclFinalize", parse_args=False)
get_version = _query(_M, "get_version", "aclrtGetVersion", outs=(0, 1, 2), parse_args=False)


def init(*args):
    """acl.init([config_path]) -> ret  (aclInit; no path: NULL)"""
    vals = _parse(f"{_M}.init", args, "|s")
    return _lib.aclInit(vals[0] if vals else _ffi.NULL)


def get_soc_name(*args):
    """acl.get_soc_name() -> str, or None when the runtime cannot tell  (aclrtGetSocName)"""
    return _string_or_none(_lib.aclrtGetSocName())


def get_recent_err_msg(*args):
    """acl.get_recent_err_msg() -> str, or None when there is none  (aclGetRecentErrMsg)

    As aclGetRecentErrMsg: the calling thread's messages, newest first; reading clears them.
    """
    return _string_or_none(_lib.aclGetRecentErrMsg())


# -- logging ------------------------------------------------------------------------------------
_LEVELS = {0: "DEBUG", 1: "INFO", 2: "WARNING", 3: "ERROR"}
_app_log = _c_function("aclAppLog")


def app_log(*args):
    """acl.app_log(level, message) -> None  (aclAppLog: ACL_DEBUG 0, INFO 1, WARNING 2, ERROR 3)

    Without aclAppLog in the loaded libraries (the embedded runtime), the message follows
    CANN's log settings: printed to stdout when ASCEND_SLOG_PRINT_TO_STDOUT=1 and ``level`` is
    at least ASCEND_GLOBAL_LOG_LEVEL (default 3, errors only), dropped otherwise.
    """
    level, message = _parse(f"{_M}.app_log", args, "is")
    frame = _sys._getframe(1)
    func, file, line = frame.f_code.co_name, frame.f_code.co_filename, frame.f_lineno
    if _app_log is not None:
        _app_log(level & 0xFFFFFFFF, func.encode(), file.encode(), line, b"%s", _ffi.new("char[]", message))
        return None
    if _os.environ.get("ASCEND_SLOG_PRINT_TO_STDOUT") != "1":
        return None
    try:
        threshold = int(_os.environ.get("ASCEND_GLOBAL_LOG_LEVEL", "3"))
    except ValueError:
        threshold = 3
    if level < threshold or level not in _LEVELS:
        return None
    stamp = _time.strftime("%Y-%m-%d-%H:%M:%S")
    print(f"[{_LEVELS[level]}] APP({_os.getpid()},python):{stamp} [{_os.path.basename(file)}:{line}]{func}: "
          f"{message.decode('utf-8', errors='replace')}", flush=True)
    return None


# -- fp16 and data types ------------------------------------------------------------------------
_f2h = _c_function("aclFloatToFloat16")
_h2f = _c_function("aclFloat16ToFloat")
_dt_size = _c_function("aclDataTypeSize")


def float_to_float16(*args):
    """acl.float_to_float16(x) -> int, the binary16 bits  (aclFloatToFloat16)

    Without the C function: numpy's nearest-even conversion, with CANN's saturation (values of
    magnitude 2**16 or more, infinities and NaN give the largest finite half, 0x7BFF / 0xFBFF).
    """
    (x,) = _parse(f"{_M}.float_to_float16", args, "f")
    if _f2h is not None:
        return int(_f2h(x))
    x32 = _np.float32(x)
    if not abs(x32) < 65536.0:          # also NaN
        return 0xFBFF if _np.signbit(x32) and not _np.isnan(x32) else 0x7BFF
    with _np.errstate(over="ignore"):
        return int(_np.array(x32, _np.float16).view(_np.uint16))


def float16_to_float(*args):
    """acl.float16_to_float(bits) -> float  (aclFloat16ToFloat)

    Without the C function: numpy's reading, except that exponent 31 counts as a normal
    exponent as in CANN (0x7C00 -> 65536.0, 0x7E00 -> 98304.0).
    """
    (h,) = _parse(f"{_M}.float16_to_float", args, "H")
    if _h2f is not None:
        return float(_h2f(h))
    if h & 0x7C00 == 0x7C00:            # one exponent step below, doubled
        return float(_np.array(h - 0x0400, _np.uint16).view(_np.float16)) * 2.0
    return float(_np.array(h, _np.uint16).view(_np.float16))


def _size_table():
    one = ("ACL_INT4", "ACL_UINT1", "ACL_BOOL", "ACL_INT8", "ACL_UINT8", "ACL_HIFLOAT8", "ACL_FLOAT8_E5M2",
           "ACL_FLOAT8_E4M3FN", "ACL_FLOAT8_E8M0", "ACL_FLOAT6_E3M2", "ACL_FLOAT6_E2M3", "ACL_FLOAT4_E2M1",
           "ACL_FLOAT4_E1M2")
    sizes = {"ACL_STRING": 0, "ACL_DT_UNDEFINED": 0, "ACL_FLOAT16": 2, "ACL_BF16": 2, "ACL_INT16": 2,
             "ACL_UINT16": 2, "ACL_FLOAT": 4, "ACL_INT32": 4, "ACL_UINT32": 4, "ACL_COMPLEX32": 4,
             "ACL_COMPLEX128": 16, **{n: 1 for n in one}}
    return {getattr(_lib, n): s for n, s in sizes.items() if hasattr(_lib, n)}


_SIZES = _size_table()


def data_type_size(*args):
    """acl.data_type_size(dtype) -> int bytes per element  (aclDataTypeSize; 0 for STRING/UNDEFINED)"""
    (dt,) = _parse(f"{_M}.data_type_size", args, "i")
    if _dt_size is not None:
        return int(_dt_size(dt & 0xFFFFFFFF))
    return _SIZES.get(dt, 8)


# -- data buffers, CANN attributes, version strings: not in this package's runtime -------------
def _bare_or(pyname, cname, fmt, bare):
    fn = _c_function(cname)
    if fn is None:
        return _not_supported(_M, pyname, fmt, bare=bare)

    def f(*args):
        vals = _parse(f"{_M}.{pyname}", args, fmt)
        r = fn(*[_ffi.cast("void *", v) if i == 0 else v for i, v in enumerate(vals)])
        return int(_ffi.cast("uintptr_t", r)) if _ffi.typeof(r).kind == "pointer" else int(r)
    f.__name__ = f.__qualname__ = pyname
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


def get_version_str(*args):
    """acl.get_version_str(package) -> (str, ret)  (aclsysGetVersionStr)"""
    (pkg,) = _parse(f"{_M}.get_version_str", args, "s")
    if _get_version_str is None:
        return "", _NOT_SUPPORT
    buf = _ffi.new("char[]", 128)
    ret = _get_version_str(pkg, buf)
    return _ffi.string(buf).decode("utf-8", errors="replace"), ret
