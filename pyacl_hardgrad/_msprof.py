"""libmsprofiler (CANN's profiling API, ``acl/acl_prof.h``) loaded beside the backend's libraries.

The compiled binding covers the runtime and operator libraries; the profiler is a library of its
own (as in CANN, where programs link ``-lmsprofiler``), so its calls are bound here, in cffi's ABI
mode, from ``libmsprofiler.so`` in the folder of the runtime library in use (the embedded
runtime's ``lib64/`` or a CANN install's).  Loaded on first use, once per process.
"""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from cffi import FFI

CDEF = """
typedef int aclError;
typedef struct aclprofConfig aclprofConfig;
aclError aclprofInit(const char *profilerResultPath, size_t length);
aclError aclprofFinalize(void);
aclError aclprofStart(const aclprofConfig *profilerConfig);
aclError aclprofStop(const aclprofConfig *profilerConfig);
aclprofConfig *aclprofCreateConfig(uint32_t *deviceIdList, uint32_t deviceNums, int aicoreMetrics,
                                   const void *aicoreEvents, uint64_t dataTypeConfig);
aclError aclprofDestroyConfig(const aclprofConfig *profilerConfig);
aclError aclprofSetConfig(int configType, const char *config, size_t configLength);
void *aclprofCreateStamp(void);
void aclprofDestroyStamp(void *stamp);
aclError aclprofSetStampTraceMessage(void *stamp, const char *msg, uint32_t msgLen);
aclError aclprofMark(void *stamp);
aclError aclprofMarkEx(const char *msg, size_t msgLen, void *stream);
aclError aclprofPush(void *stamp);
aclError aclprofPop(void);
aclError aclprofRangeStart(void *stamp, uint32_t *rangeId);
aclError aclprofRangeStop(uint32_t rangeId);
aclError aclprofModelSubscribe(uint32_t modelId, const void *profSubscribeConfig);
aclError aclprofModelUnSubscribe(uint32_t modelId);
void *aclprofCreateSubscribeConfig(int8_t timeInfoSwitch, int aicoreMetrics, void *fd);
aclError aclprofDestroySubscribeConfig(const void *profSubscribeConfig);
aclError aclprofGetOpDescSize(size_t *opDescSize);
aclError aclprofGetOpNum(const void *opInfo, size_t opInfoLen, uint32_t *opNumber);
"""

# acl_prof.h's values
ACL_PROF_ACL_API = 0x0001
ACL_PROF_TASK_TIME = 0x0002
ACL_PROF_MSPROFTX = 0x0080
ACL_PROF_TASK_MEMORY = 0x1000
ACL_AICORE_NONE = 0xFF

_lock = threading.Lock()
_loaded: tuple[FFI, Any] | None = None


def library_path() -> Path:
    """``libmsprofiler.so`` beside the runtime library the binding loaded."""
    from ._binding import BACKEND
    return Path(BACKEND.library_files[0]).parent / "libmsprofiler.so"


def load() -> tuple[FFI, Any]:
    """(ffi, lib) of libmsprofiler; OSError naming the file when it cannot be loaded."""
    global _loaded
    with _lock:
        if _loaded is None:
            path = library_path()
            ffi = FFI()
            ffi.cdef(CDEF)
            try:
                lib = ffi.dlopen(str(path))
            except OSError as exc:
                raise OSError(f"cannot load the profiler library {path}: {exc}") from None
            _loaded = (ffi, lib)
        return _loaded
