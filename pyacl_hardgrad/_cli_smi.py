"""``hg.smi()`` / ``pyacl-hardgrad smi``: the devices and this process's use of them, laid out
the way ``npu-smi info`` shows an NPU host.

``smi()`` gathers the facts as a dict (what ``smi --json`` prints); ``format_smi()`` lays them
out as ``npu-smi info`` does: a version line, then one row per device (id, SoC name, health,
memory used / total in MB from aclrtGetMemInfo) between ``+===+`` separators, then a process
table with this process's use of each device (the device memory the package's allocator
holds, open streams) and the objects alive in the runtime.  A Python program calls them to
see its own use; the command shows the command process's (which holds nothing).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

__all__ = ["smi", "format_smi", "device_rows"]

MB = 1 << 20
# npu-smi's health words; what aclrtQueryDeviceStatus answers maps to the first two
HEALTH_OK, HEALTH_ALARM, HEALTH_UNKNOWN = "OK", "Alarm", "UNKNOWN"
# the live objects the process table lists, in order (hgGetLiveCounts' fields)
LIVE_FIELDS = (("tensors", "tensors"), ("scalars", "scalars"), ("executors", "executors"),
               ("streams", "streams"), ("events", "events"), ("contexts", "contexts"),
               ("device allocations", "deviceAllocations"), ("host allocations", "hostAllocations"))


def _mb_up(nbytes: int) -> int:
    """Bytes in whole MB, rounded up (any use shows as at least 1)."""
    return -(-nbytes // MB)


def _process_name() -> str:
    """What ps shows for this process (/proc/self/comm), else the script's file name."""
    try:
        return Path("/proc/self/comm").read_text().strip() or Path(sys.argv[0]).name
    except OSError:
        return Path(sys.argv[0]).name or "python"


def _acl_version() -> str | None:
    from ._binding import ffi, lib
    major, minor, patch = ffi.new("int32_t *"), ffi.new("int32_t *"), ffi.new("int32_t *")
    if lib.aclrtGetVersion(major, minor, patch) != 0:
        lib.aclGetRecentErrMsg()
        return None
    return f"{major[0]}.{minor[0]}.{patch[0]}"


def _device_row(device_id: int) -> dict[str, Any]:
    """One device's facts, read with the device set (through the package's device state, so a
    device this process already uses is shared, not set twice); the calling thread's current
    context is restored afterwards."""
    from ._binding import ffi, lib
    from .device import _acquire_state, _current_context
    from .errors import AclError, check, recent_error_message
    row: dict[str, Any] = {"id": device_id, "name": None, "health": HEALTH_UNKNOWN,
                           "memory_used_mb": None, "memory_total_mb": None,
                           "memory_used_bytes": None, "memory_total_bytes": None, "error": None}
    previous = _current_context()
    try:
        state = _acquire_state(device_id)
    except AclError as exc:
        row["error"] = str(exc)
        return row
    try:
        state.ensure_current()
        soc = lib.aclrtGetSocName()
        row["name"] = ffi.string(soc).decode() if soc != ffi.NULL else None
        status = ffi.new("aclrtDeviceStatus *")
        rc = lib.aclrtQueryDeviceStatus(device_id, status)
        if rc == 0:
            row["health"] = HEALTH_OK if status[0] == lib.ACL_RT_DEVICE_STATUS_NORMAL else HEALTH_ALARM
        else:                               # an older CANN without the call: health unknown
            recent_error_message()
        free, total = ffi.new("size_t *"), ffi.new("size_t *")
        check(lib.aclrtGetMemInfo(lib.ACL_HBM_MEM, free, total), "aclrtGetMemInfo")
        used = int(total[0]) - int(free[0])
        row.update(memory_used_bytes=used, memory_total_bytes=int(total[0]),
                   memory_used_mb=_mb_up(used), memory_total_mb=int(total[0]) // MB)
    except AclError as exc:
        row["error"] = str(exc)
    finally:
        state.res.release()
        if previous is not None:
            lib.aclrtSetCurrentContext(previous)
            lib.aclGetRecentErrMsg()
    return row


def device_rows() -> list[dict[str, Any]]:
    """Every device's row (id, name, health, memory used/total), as ``smi()["devices"]``."""
    from .device import device_count
    from .runtime import _runtime_res
    rt = _runtime_res()
    try:
        return [_device_row(i) for i in range(device_count())]
    finally:
        rt.release()


def _open_streams() -> dict[int, int]:
    """device id -> open Stream objects of this process on it (default streams included)."""
    from .stream import _streams
    out: dict[int, int] = {}
    for s in list(_streams):
        if not s.closed:
            dev = int(s._device_state.id)
            out[dev] = out.get(dev, 0) + 1
    return out


def _live_objects() -> dict[str, int] | None:
    """hgGetLiveCounts' counts (the embedded runtime's), None on a real CANN install."""
    from ._diagnostics import live_counts
    from .errors import ApiNotSupportedError
    try:
        return live_counts()
    except ApiNotSupportedError:
        return None


def smi() -> dict[str, Any]:
    """The devices and this process's use of them, as a dict:

    ``version`` (the package's), ``acl_version`` (aclrtGetVersion), ``backend`` (``"sim"``
    for the embedded runtime or ``"cann"``), ``cann_root``, ``devices`` (per device: ``id``,
    ``name`` = aclrtGetSocName, ``health`` = ``"OK"``/``"Alarm"`` from aclrtQueryDeviceStatus
    or ``"UNKNOWN"``, ``memory_used_mb``/``memory_total_mb`` and the same in bytes from
    aclrtGetMemInfo, ``error`` when the device could not be read), ``processes`` (this
    process's row per device: ``device``, ``pid``, ``name``, ``memory_mb``/``memory_bytes``
    (what the package's allocator holds there), ``memory_in_use_bytes``, ``blocks``,
    ``streams`` (open Stream objects), ``device_set`` (whether the package has the device set))
    and ``live_objects`` (the runtime's live object counts, None on a real CANN install).

    Each device is set (aclrtSetDevice) while it is read, unless this process already uses it."""
    from . import __version__, _allocator
    from ._binding import BACKEND
    from .device import _states, _states_lock
    from .runtime import _runtime_res
    rt = _runtime_res()
    try:
        acl_version = _acl_version()
        devices = device_rows()
        streams = _open_streams()
        with _states_lock:
            set_ids = set(_states)
        pid, name = os.getpid(), _process_name()
        processes = []
        for d in devices:
            st = _allocator.memory_stats(d["id"])
            processes.append({"device": d["id"], "pid": pid, "name": name,
                              "memory_mb": _mb_up(st["reserved_bytes"]), "memory_bytes": st["reserved_bytes"],
                              "memory_in_use_bytes": st["in_use_bytes"], "blocks": st["reserved_blocks"],
                              "streams": streams.get(d["id"], 0), "device_set": d["id"] in set_ids})
        live = _live_objects()
    finally:
        rt.release()
    return {"version": __version__, "acl_version": acl_version, "backend": BACKEND.name,
            "cann_root": BACKEND.root, "devices": devices, "processes": processes, "live_objects": live}


# -- the table ------------------------------------------------------------------------------

_COLS = (26, 17, 44)          # inner widths of the three columns (npu-smi's proportions)
_WIDTH = sum(_COLS) + len(_COLS) - 1


def _rule(fill: str, joints: bool = True) -> str:
    if not joints:
        return "+" + fill * _WIDTH + "+"
    return "+" + "+".join(fill * w for w in _COLS) + "+"


def _row(*cells: str) -> str:
    return "|" + "|".join(f" {c:<{w - 1}}"[:w] for c, w in zip(cells, _COLS)) + "|"


def _wide(text: str) -> list[str]:
    """A full-width row (wrapped at commas when too long)."""
    lines, line = [], ""
    for part in text.split(", "):
        cand = part if not line else f"{line}, {part}"
        if len(cand) > _WIDTH - 2 and line:
            lines.append(line + ",")
            line = "  " + part
        else:
            line = cand
    lines.append(line)
    return [f"| {ln:<{_WIDTH - 2}} |" for ln in lines]


def _mb_pair(used: int | None, total: int | None) -> str:
    if used is None or total is None:
        return "NA"
    return f"{used:<5} / {total}"


def format_smi(data: dict[str, Any] | None = None) -> str:
    """``smi()``'s dict (taken now when not given) as ``npu-smi info`` lays out its table."""
    d = smi() if data is None else data
    backend = "embedded runtime" if d["backend"] == "sim" else f"CANN {d['cann_root'] or ''}".rstrip()
    head = f"pyacl-hardgrad {d['version']}"
    head = f"{head:<28}Version: {d['acl_version'] or 'NA':<16}Backend: {backend}"
    out = [_rule("-", joints=False), *_wide(head), _rule("-"),
           _row("NPU     Name", "Health", "HBM-Usage(MB)"), _rule("=")]
    for dev in d["devices"]:
        out.append(_row(f"{dev['id']:<7} {dev['name'] or 'NA'}", dev["health"],
                        _mb_pair(dev["memory_used_mb"], dev["memory_total_mb"])))
        if dev.get("error"):
            out += _wide(f"error: {dev['error']}")
        out.append(_rule("="))
    if not d["devices"]:
        out += _wide("No NPU found (aclrtGetDeviceCount is 0)")
        out.append(_rule("="))
    out += [_rule("-"), _row("NPU     Process id", "Process name", "Process memory(MB)  Streams  Blocks"),
            _rule("=")]
    for p in d["processes"]:
        out.append(_row(f"{p['device']:<7} {p['pid']}", p["name"],
                        f"{p['memory_mb']:<19} {p['streams']:<8} {p['blocks']}"))
        out.append(_rule("="))
    live = d["live_objects"]
    if live is None:
        out += _wide("Live objects: NA (counted by the embedded runtime only)")
    else:
        out += _wide("Live objects: " + ", ".join(f"{label} {live[key]}" for label, key in LIVE_FIELDS))
    out.append(_rule("-", joints=False))
    return "\n".join(out)
