"""``pyacl-hardgrad info --json``: the facts ``info`` prints, as one JSON object.

Keys: ``version``, ``backend`` (``"sim"`` or ``"cann"``), ``embedded`` (bool), ``cann_root``,
``libraries`` (the files in use), ``missing_functions``, ``embedded_version``, ``allocator``
(``mode``, ``limit`` and per device this process allocated on its statistics; ``error`` for a
malformed setting), ``acl_version``, ``device_count``, ``soc`` (device 0's), ``devices`` (as
``smi()["devices"]``), ``runtime_error`` (why aclInit or a device failed, else None),
``kernels`` (the embedded runtime's kernel settings and choices after one call of each
operator, None on CANN), ``include_dir`` and ``library_dir``.
"""
from __future__ import annotations

from typing import Any

__all__ = ["info_facts"]


def _allocator_facts() -> dict[str, Any]:
    try:
        from . import _allocator
    except ValueError as exc:                # a malformed PYACL_HARDGRAD_ALLOCATOR* setting
        return {"mode": None, "limit": None, "devices": [], "error": str(exc)}
    from ._binding import lib
    s = _allocator.allocator_settings()
    devices = []
    for dev in range(lib.HGB_CACHE_DEVICES):
        st = _allocator.memory_stats(dev)
        if st["allocations"] or st["reserved_bytes"]:
            devices.append(st)
    return {"mode": s["mode"], "limit": s["limit"], "devices": devices, "error": None}


def info_facts() -> dict[str, Any]:
    """What ``pyacl-hardgrad info`` prints, as a dict (loads the backend)."""
    from . import __version__
    from ._binding import BACKEND, ffi, lib
    from ._cli_smi import _acl_version, device_rows
    from ._paths import get_include, get_library_dir
    from .errors import AclError
    from .runtime import _runtime_res
    v = lib.hgEmbeddedVersion()
    facts: dict[str, Any] = {
        "version": __version__, "backend": BACKEND.name, "embedded": BACKEND.is_embedded,
        "cann_root": BACKEND.root, "libraries": list(BACKEND.library_files),
        "missing_functions": list(BACKEND.missing_functions),
        "embedded_version": ffi.string(v).decode() if v != ffi.NULL else None,
        "allocator": _allocator_facts(),
        "acl_version": None, "device_count": None, "soc": None, "devices": [], "runtime_error": None,
    }
    try:
        rt = _runtime_res()
        try:
            facts["acl_version"] = _acl_version()
            devices = device_rows()
        finally:
            rt.release()
        facts["device_count"] = len(devices)
        facts["devices"] = devices
        if devices:
            facts["soc"] = devices[0]["name"]
        failed = [d["error"] for d in devices if d["error"]]
        if failed:
            facts["runtime_error"] = failed[0]
    except AclError as exc:
        facts["runtime_error"] = str(exc)
    facts["kernels"] = None
    if BACKEND.is_embedded:
        from . import _kernel_info
        _kernel_info.exercise()
        facts["kernels"] = {"settings": _kernel_info.settings(), "choices": _kernel_info.choices()}
    facts["include_dir"] = get_include()
    facts["library_dir"] = get_library_dir()
    return facts
