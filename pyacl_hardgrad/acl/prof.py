"""``acl.prof``: pyACL's profiling functions over libmsprofiler (``acl/acl_prof.h``).

As pyACL's: handles (configs, stamps, subscription configs) are ints (0 for NULL), actions
return ``ret``, ``range_start`` returns ``(range_id, ret)``, failures are returned, not raised,
and only unparsable arguments raise pyACL's TypeError.  The library is loaded beside the
runtime library in use (``pyacl_hardgrad._msprof``); docs/profiling.md describes what a session
records and writes.
"""
from typing import Any as _Any

from .. import _msprof
from ._args import parse as _parse

_M = "acl.prof"


def _lib() -> _Any:
    return _msprof.load()


def _ptr(value: int) -> _Any:
    ffi, _ = _lib()
    return ffi.cast("void *", value)


def _addr(p: _Any) -> int:
    ffi, _ = _lib()
    return int(ffi.cast("uintptr_t", p))


def init(*args: _Any) -> int:
    """acl.prof.init(profiler_result_path: str) -> ret  (aclprofInit)"""
    (path,) = _parse(f"{_M}.init", args, "s")
    _, lib = _lib()
    return int(lib.aclprofInit(path, len(path)))


def finalize(*args: _Any) -> int:
    """acl.prof.finalize() -> ret  (aclprofFinalize)"""
    _, lib = _lib()
    return int(lib.aclprofFinalize())


def create_config(*args: _Any) -> int:
    """acl.prof.create_config(device_id_list: list, aicore_metrics, aicore_events, data_type_config)
    -> config (0 on failure)  (aclprofCreateConfig; aicore_events must be 0)"""
    devices, metrics, events, types = _parse(f"{_M}.create_config", args, "OiKK")
    if not isinstance(devices, (list, tuple)) or not all(isinstance(d, int) for d in devices):
        raise TypeError(f"{_M}.create_config args parse failed")
    ffi, lib = _lib()
    ids = ffi.new("uint32_t[]", [d & 0xFFFFFFFF for d in devices] or [0])
    return _addr(lib.aclprofCreateConfig(ids, len(devices), metrics, _ptr(events), types))


def destroy_config(*args: _Any) -> int:
    """acl.prof.destroy_config(config) -> ret  (aclprofDestroyConfig)"""
    (config,) = _parse(f"{_M}.destroy_config", args, "K")
    _, lib = _lib()
    return int(lib.aclprofDestroyConfig(_ptr(config)))


def start(*args: _Any) -> int:
    """acl.prof.start(config) -> ret  (aclprofStart)"""
    (config,) = _parse(f"{_M}.start", args, "K")
    _, lib = _lib()
    return int(lib.aclprofStart(_ptr(config)))


def stop(*args: _Any) -> int:
    """acl.prof.stop(config) -> ret  (aclprofStop; writes the timeline)"""
    (config,) = _parse(f"{_M}.stop", args, "K")
    _, lib = _lib()
    return int(lib.aclprofStop(_ptr(config)))


def set_config(*args: _Any) -> int:
    """acl.prof.set_config(config_type, config: str) -> ret  (aclprofSetConfig)"""
    kind, value = _parse(f"{_M}.set_config", args, "is")
    _, lib = _lib()
    return int(lib.aclprofSetConfig(kind, value, len(value)))


def create_stamp(*args: _Any) -> int:
    """acl.prof.create_stamp() -> stamp (0 on failure)  (aclprofCreateStamp)"""
    _, lib = _lib()
    return _addr(lib.aclprofCreateStamp())


def destroy_stamp(*args: _Any) -> None:
    """acl.prof.destroy_stamp(stamp)  (aclprofDestroyStamp)"""
    (stamp,) = _parse(f"{_M}.destroy_stamp", args, "K")
    _, lib = _lib()
    lib.aclprofDestroyStamp(_ptr(stamp))


def set_stamp_trace_message(*args: _Any) -> int:
    """acl.prof.set_stamp_trace_message(stamp, msg: str, msg_len) -> ret  (aclprofSetStampTraceMessage)"""
    stamp, msg, length = _parse(f"{_M}.set_stamp_trace_message", args, "KsI")
    _, lib = _lib()
    return int(lib.aclprofSetStampTraceMessage(_ptr(stamp), msg, length))


def mark(*args: _Any) -> int:
    """acl.prof.mark(stamp) -> ret  (aclprofMark)"""
    (stamp,) = _parse(f"{_M}.mark", args, "K")
    _, lib = _lib()
    return int(lib.aclprofMark(_ptr(stamp)))


def mark_ex(*args: _Any) -> int:
    """acl.prof.mark_ex(msg: str, msg_len, stream) -> ret  (aclprofMarkEx)"""
    msg, length, stream = _parse(f"{_M}.mark_ex", args, "sKK")
    _, lib = _lib()
    return int(lib.aclprofMarkEx(msg, length, _ptr(stream)))


def push(*args: _Any) -> int:
    """acl.prof.push(stamp) -> ret  (aclprofPush)"""
    (stamp,) = _parse(f"{_M}.push", args, "K")
    _, lib = _lib()
    return int(lib.aclprofPush(_ptr(stamp)))


def pop(*args: _Any) -> int:
    """acl.prof.pop() -> ret  (aclprofPop)"""
    _, lib = _lib()
    return int(lib.aclprofPop())


def range_start(*args: _Any) -> tuple[int, int]:
    """acl.prof.range_start(stamp) -> (range_id, ret)  (aclprofRangeStart)"""
    (stamp,) = _parse(f"{_M}.range_start", args, "K")
    ffi, lib = _lib()
    rid = ffi.new("uint32_t *")
    ret = int(lib.aclprofRangeStart(_ptr(stamp), rid))
    return int(rid[0]), ret


def range_stop(*args: _Any) -> int:
    """acl.prof.range_stop(range_id) -> ret  (aclprofRangeStop)"""
    (rid,) = _parse(f"{_M}.range_stop", args, "I")
    _, lib = _lib()
    return int(lib.aclprofRangeStop(rid))


def model_subscribe(*args: _Any) -> int:
    """acl.prof.model_subscribe(model_id, subscribe_config) -> ret  (aclprofModelSubscribe; the
    embedded runtime loads no models: ACL_ERROR_FEATURE_UNSUPPORTED)"""
    model, config = _parse(f"{_M}.model_subscribe", args, "IK")
    _, lib = _lib()
    return int(lib.aclprofModelSubscribe(model, _ptr(config)))


def model_un_subscribe(*args: _Any) -> int:
    """acl.prof.model_un_subscribe(model_id) -> ret  (aclprofModelUnSubscribe)"""
    (model,) = _parse(f"{_M}.model_un_subscribe", args, "I")
    _, lib = _lib()
    return int(lib.aclprofModelUnSubscribe(model))


def create_subscribe_config(*args: _Any) -> int:
    """acl.prof.create_subscribe_config(time_info_switch, aicore_metrics, fd) -> config (0 on failure)
    (aclprofCreateSubscribeConfig)"""
    switch, metrics, fd = _parse(f"{_M}.create_subscribe_config", args, "iiK")
    _, lib = _lib()
    return _addr(lib.aclprofCreateSubscribeConfig(switch, metrics, _ptr(fd)))


def destroy_subscribe_config(*args: _Any) -> int:
    """acl.prof.destroy_subscribe_config(config) -> ret  (aclprofDestroySubscribeConfig)"""
    (config,) = _parse(f"{_M}.destroy_subscribe_config", args, "K")
    _, lib = _lib()
    return int(lib.aclprofDestroySubscribeConfig(_ptr(config)))


def get_op_desc_size(*args: _Any) -> tuple[int, int]:
    """acl.prof.get_op_desc_size() -> (size, ret)  (aclprofGetOpDescSize)"""
    ffi, lib = _lib()
    size = ffi.new("size_t *")
    ret = int(lib.aclprofGetOpDescSize(size))
    return int(size[0]), ret


def get_op_num(*args: _Any) -> tuple[int, int]:
    """acl.prof.get_op_num(op_info, op_info_len) -> (number, ret)  (aclprofGetOpNum)"""
    info, length = _parse(f"{_M}.get_op_num", args, "KK")
    ffi, lib = _lib()
    num = ffi.new("uint32_t *")
    ret = int(lib.aclprofGetOpNum(_ptr(info), length, num))
    return int(num[0]), ret
