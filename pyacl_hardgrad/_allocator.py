"""The caching device allocator of the handle layer: settings, statistics, releasing its cache.

Every device allocation the package makes (Tensors, the outputs a one-call allocates, the
workspaces of fused calls and plans, ``DeviceMemory(nbytes)``) goes through the allocator in
``_binding_c/device_cache.c``: requests are rounded to a size class and served from the device's idle
blocks when one is there; a block goes back to them when its last holder lets go (queued stream
work holds what it uses until the stream's next wait, so no block is reused under a running
kernel).  Settings, read once when the package first needs a device:

  PYACL_HARDGRAD_ALLOCATOR        ``caching`` (default) or ``direct`` (one aclrtMalloc per
                                  request, one aclrtFree per release; statistics still kept)
  PYACL_HARDGRAD_ALLOCATOR_LIMIT  idle bytes kept per device, digits with an optional K/M/G/T
                                  suffix (powers of 1024); default 1G; 0 keeps none
"""
from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, TypedDict

from ._binding import ffi, lib
from .errors import warn_status

if TYPE_CHECKING:
    from ._types import CData
    from .device import Device

__all__ = ["memory_stats", "empty_cache", "reset_peak_memory_stats", "allocator_settings"]

MODES = ("caching", "direct")
DEFAULT_LIMIT = 1 << 30
_SIZE = re.compile(r"([0-9]+)([KMGT]?)")
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}

_FIELDS = ("in_use_bytes", "in_use_blocks", "requested_bytes", "cached_bytes", "cached_blocks",
           "reserved_bytes", "reserved_blocks", "peak_in_use_bytes", "peak_reserved_bytes",
           "allocations", "hits", "misses", "frees", "releases", "oom_retries", "alloc_failures")


def _parse_mode(value: str | None) -> str:
    if value is None or value == "":
        return "caching"
    if value not in MODES:
        raise ValueError(f"PYACL_HARDGRAD_ALLOCATOR={value!r} is not one of {', '.join(MODES)} "
                         "(unset or empty: caching)")
    return value


def _parse_limit(value: str | None) -> int:
    if value is None or value == "":
        return DEFAULT_LIMIT
    m = _SIZE.fullmatch(value)
    n = int(m.group(1)) * _UNITS[m.group(2)] if m else -1
    if not 0 <= n < 1 << 64:
        raise ValueError(f"PYACL_HARDGRAD_ALLOCATOR_LIMIT={value!r} is not a byte count: digits with an "
                         "optional K, M, G or T suffix (e.g. 512M, 0; unset or empty: 1G)")
    return n


def _configure() -> tuple[str, int]:
    mode = _parse_mode(os.environ.get("PYACL_HARDGRAD_ALLOCATOR"))
    limit = _parse_limit(os.environ.get("PYACL_HARDGRAD_ALLOCATOR_LIMIT"))
    lib.hgb_cache_configure(1 if mode == "caching" else 0, limit)
    return mode, limit


_mode, _limit = _configure()          # before any allocation: device.py imports this module


class AllocatorSettings(TypedDict):
    mode: str
    limit: int


class MemoryStats(TypedDict):
    device: int
    mode: str
    limit: int
    in_use_bytes: int
    in_use_blocks: int
    requested_bytes: int
    cached_bytes: int
    cached_blocks: int
    reserved_bytes: int
    reserved_blocks: int
    peak_in_use_bytes: int
    peak_reserved_bytes: int
    allocations: int
    hits: int
    misses: int
    frees: int
    releases: int
    oom_retries: int
    alloc_failures: int


def allocator_settings() -> AllocatorSettings:
    """``{"mode": "caching" | "direct", "limit": idle bytes kept per device}``."""
    return {"mode": _mode, "limit": _limit}


def _device_id(device: Device | int | None) -> int:
    from . import _args
    from .device import Device, _int32_buf
    if isinstance(device, Device):
        return device.id
    if device is None:
        buf = _int32_buf()
        if lib.aclrtGetDevice(buf) == 0:
            return int(buf[0])
        lib.aclGetRecentErrMsg()                  # no current device (or no runtime): device 0
        lib.aclrtGetLastError(lib.ACL_RT_THREAD_LEVEL)
        return 0
    return _args.integer(device, "device", 0, _args.INT32_MAX)


def memory_stats(device: Device | int | None = None) -> MemoryStats:
    """The allocator's statistics of one device (a Device or an id; default: the calling
    thread's current device, else 0): ``in_use_bytes``/``in_use_blocks`` (handed out, class
    sizes; ``requested_bytes`` the sizes asked for), ``cached_bytes``/``cached_blocks`` (idle,
    kept for reuse), ``reserved_bytes``/``reserved_blocks`` (in use + cached: what the allocator
    holds from aclrtMalloc, what aclrtGetMemInfo counts as used), ``peak_in_use_bytes``,
    ``peak_reserved_bytes``, ``allocations`` (= ``hits`` from the cache + ``misses`` from
    aclrtMalloc), ``frees`` (blocks given back), ``releases`` (blocks given to aclrtFree),
    ``oom_retries`` (failed aclrtMalloc calls answered by freeing the cache), ``alloc_failures``;
    plus ``device``, ``mode`` and ``limit``."""
    dev = _device_id(device)
    s = ffi.new("hgb_cache_stats *")
    lib.hgb_cache_stats_of(dev, s)
    out = {"device": dev, "mode": _mode, "limit": _limit}
    for f in _FIELDS:
        out[f] = int(getattr(s, f))
    return out      # type: ignore[return-value]  # (_FIELDS are MemoryStats' int fields)


def empty_cache(device: Device | int | None = None) -> None:
    """Free the idle cached blocks (aclrtFree) of ``device`` (a Device or an id), or of every
    device when None.  Memory in use is not touched."""
    from .device import _states, _states_lock
    with _states_lock:
        states = {st.id: st for st in _states.values()}
    ids = sorted(states) if device is None else [_device_id(device)]
    for dev in ids:
        st = states.get(dev)
        ctx = st.context if st is not None and st.context is not None else ffi.NULL
        warn_status(lib.hgb_cache_empty(dev, ctx), "aclrtFree", stacklevel=2)
    if device is None:                   # devices without a state hold no idle block; make sure
        warn_status(lib.hgb_cache_empty(-1, ffi.NULL), "aclrtFree", stacklevel=2)


def reset_peak_memory_stats(device: Device | int | None = None) -> None:
    """Zero the counters (allocations, hits, misses, frees, releases, retries, failures) and set
    the peaks to the current values, for ``device`` or (None) every device."""
    lib.hgb_cache_reset_stats(-1 if device is None else _device_id(device))


def _release_device(device_id: int, context: CData | None) -> None:
    """Before a device is reset: give its idle blocks back to the runtime."""
    warn_status(lib.hgb_cache_empty(device_id, ffi.NULL if context is None else context), "aclrtFree",
                stacklevel=6)
