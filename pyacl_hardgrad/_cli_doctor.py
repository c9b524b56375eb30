"""``pyacl-hardgrad doctor``: check a CANN install step by step and say what to fix.

The checks run in the order a CANN install is used: the backend setting, the package's own
build, the CANN install the backend discovery finds (``_backend.find_cann``), the environment
CANN's ``set_env.sh`` sets, each library file (present, loadable, exporting the functions the
binding calls), the driver (``/usr/local/Ascend/driver``, ``libascend_hal.so``, ``/dev/davinci*``),
then the backend itself: loading it, ``aclInit``, ``aclrtSetDevice`` on each device and one
operator call.  Each check is one line: ``ok``, ``warn`` (works, but worth a look), ``FAIL``
(broken; the line ends with what to do) or ``skip``.  Without a CANN install (and
``PYACL_HARDGRAD_BACKEND=auto``) the embedded runtime is in use and there is nothing to fix.

The library checks use ctypes, not the binding, so that a broken install is described file by
file before the binding tries (and fails) to load it.
"""
from __future__ import annotations

import ctypes
import os
import platform
import re
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from . import _backend, _paths

__all__ = ["Check", "run_checks", "format_checks", "exit_status"]

OK, WARN, FAIL, SKIP = "ok", "warn", "FAIL", "skip"

DRIVER_ROOT = "/usr/local/Ascend/driver"
INSTALL_INFO = "/etc/ascend_install.info"      # the driver's installer records its path here
HAL = "libascend_hal.so"

# The calls the package makes whatever the program does: without them nothing works.
CORE_FUNCTIONS = {
    "runtime": ("aclInit", "aclFinalize", "aclrtSetDevice", "aclrtResetDevice", "aclrtGetDeviceCount",
                "aclrtGetCurrentContext", "aclrtSetCurrentContext", "aclrtCreateStream", "aclrtDestroyStream",
                "aclrtSynchronizeStream", "aclrtMalloc", "aclrtFree", "aclrtMemcpy", "aclrtMemcpyAsync",
                "aclrtGetMemInfo", "aclGetRecentErrMsg"),
    "nnopbase": ("aclCreateTensor", "aclDestroyTensor", "aclCreateScalar", "aclDestroyScalar"),
    "opapi": (),                        # at least one operator (both phases), checked separately
}
# The header folder (under include/) whose declarations each library serves.
ROLE_HEADERS = {"runtime": "acl", "nnopbase": "aclnn", "opapi": "aclnnop"}
_DECL = re.compile(r"ACL_FUNC_VISIBILITY\s[^;{}()]*?\b(\w+)\s*\(", re.S)


@dataclass
class Check:
    """One line of the report: ``name``, ``status`` (ok/warn/FAIL/skip), ``detail`` and, for a
    warning or a failure, ``fix`` (what to do)."""

    name: str
    status: str
    detail: str
    fix: str = ""

    def line(self) -> str:
        text = f"{self.status:<5} {self.name}: {self.detail}"
        return f"{text}; fix: {self.fix}" if self.fix else text


# -- what the binding calls, by library ------------------------------------------------------

def binding_functions() -> list[str]:
    """The C functions the binding calls (its function table), without the embedded runtime's
    own extensions (hg*), or [] when the compiled module is missing."""
    try:
        from ._cffi_acl import ffi, lib
    except ImportError:
        return []
    names = [ffi.string(lib.hgb_function_name(i)).decode() for i in range(lib.hgb_function_count())]
    return [n for n in names if not n.startswith("hg")]


def _declared(folder: Path) -> set[str]:
    out: set[str] = set()
    for h in sorted(folder.rglob("*.h")):
        out.update(_DECL.findall(h.read_text(errors="replace")))
    return out


def functions_by_role() -> dict[str, list[str]]:
    """role (runtime, nnopbase, opapi) -> the binding's functions declared in that library's
    headers (acl/, aclnn/, aclnnop/ of the package's include folder)."""
    names = binding_functions()
    try:
        include = Path(_paths.get_include())
    except _paths.NotBuiltError:
        include = Path(__file__).resolve().parents[1] / "include"
    declared = {role: _declared(include / sub) for role, sub in ROLE_HEADERS.items()}
    out: dict[str, list[str]] = {role: [] for role in ROLE_HEADERS}
    for n in names:
        role = next((r for r in ("opapi", "nnopbase", "runtime") if n in declared[r]), None)
        if role is None:                    # not found in a header: go by the name
            role = "opapi" if n.startswith("aclnn") and n not in ("aclnnInit", "aclnnFinalize") else "runtime"
        out[role].append(n)
    return out


def operator_pairs(opapi_functions: list[str]) -> list[tuple[str, str]]:
    """(aclnnXGetWorkspaceSize, aclnnX) for every operator among the functions."""
    names = set(opapi_functions)
    return [(n, n[: -len("GetWorkspaceSize")]) for n in sorted(names)
            if n.endswith("GetWorkspaceSize") and n[: -len("GetWorkspaceSize")] in names]


# -- helpers ---------------------------------------------------------------------------------

def _short(names: list[str], limit: int = 6) -> str:
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _path_list(var: str) -> list[str]:
    return [p for p in os.environ.get(var, "").split(":") if p]


def _same(a: str | Path, b: str | Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.normpath(a) == os.path.normpath(b)


def _on_path(var: str, folder: Path) -> bool:
    return any(_same(p, folder) for p in _path_list(var))


def _version_of(root: Path) -> str | None:
    """The installed version from CANN's share/info/<package>/version.info (runtime first)."""
    infos = sorted((root / "share" / "info").glob("*/version.info"), key=lambda p: p.parent.name != "runtime")
    for info in [*infos, root / "version.info", root / "version.cfg"]:
        try:
            text = info.read_text(errors="replace")
        except OSError:
            continue
        m = re.search(r"^\s*version\s*=\s*(\S+)", text, re.I | re.M)
        if m:
            return m.group(1)
    return None


def _set_env(root: Path) -> str:
    for cand in (root / "set_env.sh", root.parent / "set_env.sh", root / "bin" / "setenv.bash"):
        if cand.is_file():
            return f"source {cand}"
    return f"source the set_env.sh of the CANN toolkit at {root}"


def _load(path: Path) -> tuple[ctypes.CDLL | None, str]:
    try:
        return ctypes.CDLL(str(path), mode=getattr(os, "RTLD_LOCAL", 0)), ""
    except OSError as exc:
        return None, str(exc)


# -- the checks ------------------------------------------------------------------------------

def _backend_choice(checks: list[Check]) -> str:
    raw = os.environ.get(_backend.ENV_VAR, "auto")
    choice = raw.strip().lower() or "auto"
    meaning = {"auto": "real CANN when an install is found, else the embedded runtime",
               "cann": "a CANN install, or an error", "sim": "the embedded runtime"}
    if choice not in meaning:
        checks.append(Check(_backend.ENV_VAR, FAIL, f"{raw!r} is not one of auto, cann, sim",
                            f"set {_backend.ENV_VAR} to auto, cann or sim (or unset it: auto)"))
        return "invalid"
    checks.append(Check(_backend.ENV_VAR, OK, f"{choice}: {meaning[choice]}"))
    return choice


def _package(checks: list[Check]) -> None:
    why = _paths.not_built_reason()
    if why is not None:                     # "<cause>; <fix>" or "<cause> (...): <fix>"
        cause, _, fix = why.partition("; ")
        if not fix:
            cause, _, fix = why.partition("): ")
            cause += ")"
        checks.append(Check("package", FAIL, cause, fix or "reinstall it with pip install ."))
        return
    missing = [str(p) for p in _backend.embedded_libraries() if not p.is_file()]
    if missing:
        checks.append(Check("embedded runtime", FAIL, f"missing {', '.join(missing)}",
                            "reinstall the package: pip install --force-reinstall pyacl_hardgrad"))
    else:
        checks.append(Check("embedded runtime", OK, f"built, in {_paths.get_library_dir()}"))


def _libdir_of(root: Path) -> Path | None:
    for cand in (root / "lib64", root / _backend._arch_dir() / "lib64"):
        if cand.is_dir():
            return cand
    return None


def _is_embedded_tree(runtime: ctypes.CDLL | None) -> bool:
    return runtime is not None and hasattr(runtime, "hgEmbeddedVersion")


def _environment(checks: list[Check], root: Path, libdir: Path, embedded: bool, severe: str) -> None:
    """The variables CANN's set_env.sh exports."""
    fix_env = _set_env(root)
    for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"):
        value = os.environ.get(var)
        if not value:
            checks.append(Check(var, WARN, f"not set (the install at {root} was found without it)", fix_env))
        elif not _same(value, root):
            checks.append(Check(var, WARN, f"{value} is not the install in use ({root})",
                                f"{fix_env}, or point {var} at {root}"))
        else:
            checks.append(Check(var, OK, value))
    for var, want, why, level in (
            ("ASCEND_OPP_PATH", root / "opp", "aclnn operators find their kernels through it", severe),
            ("ASCEND_AICPU_PATH", root, "AI CPU kernels are found through it", WARN)):
        value = os.environ.get(var)
        if embedded:
            checks.append(Check(var, OK, f"{'unset' if not value else value}: not needed, the embedded "
                                         "runtime's operators are built into its libraries"))
        elif not value:
            checks.append(Check(var, level, f"not set ({why})", f"{fix_env} (it sets {var}={want})"))
        elif not Path(value).is_dir():
            checks.append(Check(var, level, f"{value} is not a directory ({why})", f"{fix_env} (it sets {var}={want})"))
        else:
            checks.append(Check(var, OK, value))
    if _on_path("LD_LIBRARY_PATH", libdir):
        checks.append(Check("LD_LIBRARY_PATH", OK, f"holds {libdir}"))
    else:
        checks.append(Check("LD_LIBRARY_PATH", WARN, f"lacks {libdir} (programs linked with -lascendcl and "
                                                     "CANN's own libraries look there)", fix_env))
    pyacl = root / "python" / "site-packages"
    if not pyacl.is_dir():
        checks.append(Check("PYTHONPATH", OK, f"no pyACL in {root}: `import acl` is this package's "
                                              "(pyacl-hardgrad run, or --pyacl-path on PYTHONPATH)"))
    elif _on_path("PYTHONPATH", pyacl):
        checks.append(Check("PYTHONPATH", OK, f"holds {pyacl} (CANN's pyACL)"))
    else:
        checks.append(Check("PYTHONPATH", WARN, f"lacks {pyacl}: CANN's pyACL (`import acl`) is not importable",
                            f"{fix_env}, or run pyACL scripts with `pyacl-hardgrad run`"))


def _libraries(checks: list[Check], root: Path, libdir: Path,
               severe: str) -> tuple[dict[str, ctypes.CDLL], bool]:
    """Each library file: present, loadable, exporting the binding's functions of its role.
    Returns the loaded libraries by role and whether all of them are there and usable."""
    fix_env = _set_env(root)
    roles = functions_by_role()
    loaded: dict[str, ctypes.CDLL] = {}
    usable = True
    for role, names in _backend.LIBRARY_ROLES:
        path = next((libdir / n for n in names if (libdir / n).is_file()), None)
        label = " or ".join(names)
        if path is None:
            checks.append(Check(label, severe, f"missing from {libdir} ({role} library)",
                                "reinstall the CANN toolkit (this install is incomplete), or point ASCEND_HOME_PATH "
                                "at a complete one"))
            usable = False
            continue
        lib, why = _load(path)
        if lib is None:
            if "cannot open shared object file" in why and not _on_path("LD_LIBRARY_PATH", libdir):
                fix = f"a library it needs is not found: {fix_env} (LD_LIBRARY_PATH lacks {libdir})"
            elif "cannot open shared object file" in why:
                fix = "a library it needs is missing: reinstall the CANN toolkit (and the driver, for libascend_hal.so)"
            elif "ELF" in why or "file too short" in why:
                fix = f"it is not a shared library for this machine ({platform.machine()}): install the CANN build " \
                      "for this architecture"
            else:
                fix = "reinstall the CANN toolkit"
            checks.append(Check(path.name, severe, f"cannot be loaded: {why}", fix))
            usable = False
            continue
        loaded[role] = lib
        wanted = roles[role]
        missing = [n for n in wanted if not hasattr(lib, n)]
        core_missing = [n for n in CORE_FUNCTIONS[role] if n in missing]
        pairs = operator_pairs(wanted) if role == "opapi" else []
        no_operator = bool(pairs) and not any(hasattr(lib, a) and hasattr(lib, b) for a, b in pairs)
        if wanted and len(missing) == len(wanted):
            checks.append(Check(path.name, severe, f"exports none of the {len(wanted)} {role} functions the "
                                                   f"binding calls ({_short(wanted, 3)})",
                                f"{path} is not CANN's {role} library or is damaged: reinstall the CANN toolkit"))
            usable = False
        elif core_missing or no_operator:
            what = _short(core_missing) if core_missing else "every aclnn operator of the binding"
            checks.append(Check(path.name, severe, f"lacks {what} ({len(missing)} of {len(wanted)} functions missing)",
                                "this CANN release is incomplete or too old for the binding: install a complete, "
                                "newer CANN toolkit"))
            usable = False
        elif missing:
            checks.append(Check(path.name, WARN, f"loads; exports {len(wanted) - len(missing)} of {len(wanted)} "
                                                 f"{role} functions, not {_short(missing)} (calls to them raise "
                                                 "ApiNotSupportedError)",
                                "a newer CANN release has them; nothing else is affected"))
        else:
            checks.append(Check(path.name, OK, f"{path}: loads, exports all {len(wanted)} {role} functions "
                                               "the binding calls"))
    return loaded, usable


def _driver_root() -> Path:
    try:
        text = Path(INSTALL_INFO).read_text(errors="replace")
    except OSError:
        return Path(DRIVER_ROOT)
    m = re.search(r"^\s*Driver_Install_Path_Param\s*=\s*(\S+)", text, re.M)
    return Path(m.group(1)) / "driver" if m else Path(DRIVER_ROOT)


def _driver(checks: list[Check], needed: bool, severe: str) -> None:
    """What is found of the NPU driver: its folder and version, libascend_hal.so, /dev/davinci*."""
    root = _driver_root()
    hal = next((d / HAL for d in (root / "lib64" / "driver", root / "lib64", root / "lib64" / "common")
                if (d / HAL).is_file()), None)
    nodes = sorted(str(p) for p in Path("/dev").glob("davinci[0-9]*"))
    manager = Path("/dev/davinci_manager").exists()
    found = []
    if root.is_dir():
        version = _version_of(root)
        found.append(f"{root}" + (f" (version {version})" if version else ""))
    if hal is not None:
        found.append(str(hal))
    if nodes:
        found.append(", ".join(nodes) + (" and /dev/davinci_manager" if manager else ""))
    if not needed:
        what = "; ".join(found) if found else f"none ({root} absent, no /dev/davinci* device)"
        checks.append(Check("driver", OK, f"{what}: not needed by the embedded runtime"))
        return
    if not root.is_dir():
        checks.append(Check("driver", severe, f"{root} does not exist: no NPU driver installed",
                            "install the Ascend NPU driver and firmware packages (Ascend-hdk-*-npu-driver, "
                            "-npu-firmware), then reboot"))
        return
    if hal is None:
        checks.append(Check("driver", severe, f"no {HAL} under {root}/lib64: the driver install is incomplete",
                            "reinstall the Ascend NPU driver package"))
        return
    if not nodes or not manager:
        checks.append(Check("driver", severe, f"{found[0]} and {hal} found, but no /dev/davinci[0-9]* "
                                              f"{'and no /dev/davinci_manager ' if not manager else ''}device node",
                            "load the driver (reboot after installing it; check `lsmod | grep drv_`), or in a "
                            "container pass --device /dev/davinci0 --device /dev/davinci_manager "
                            "--device /dev/devmm_svm --device /dev/hisi_hdc"))
        return
    if not _on_path("LD_LIBRARY_PATH", hal.parent):
        checks.append(Check("driver", WARN, f"{'; '.join(found)}; {hal.parent} is not on LD_LIBRARY_PATH",
                            f"export LD_LIBRARY_PATH={hal.parent}:$LD_LIBRARY_PATH if aclInit cannot find the driver"))
        return
    checks.append(Check("driver", OK, "; ".join(found)))


def _install(checks: list[Check], choice: str) -> None:
    """The CANN install, its libraries, environment and driver (or why none is examined)."""
    if choice == "sim":
        checks.append(Check("CANN install", SKIP, f"{_backend.ENV_VAR}=sim uses the embedded runtime whatever is "
                                                  "installed"))
        _driver(checks, needed=False, severe=FAIL)
        return
    found, report = _backend.find_cann()
    candidates = [(src, Path(r)) for src, r in _backend.cann_roots() if Path(r).is_dir()]
    partial = [line for line in report if "partial install: " in line]
    lenient = choice != "cann"              # auto (or an invalid choice): no CANN is no problem
    if found is None and not partial and (lenient or not candidates):
        for src, r in _backend.cann_roots():
            if src.startswith("$") and not Path(r).is_dir():
                checks.append(Check(src[1:], WARN if lenient else FAIL, f"{r} is not a directory (ignored)",
                                    f"unset {src[1:]}, or source the set_env.sh of an installed CANN toolkit"))
            elif src.startswith("$"):
                why = next((line.split(": ", 1)[-1] for line in report if line.startswith(f"{r}/")), "no lib64/")
                checks.append(Check(src[1:], WARN if lenient else FAIL,
                                    f"{r} holds no CANN libraries ({why}; ignored)",
                                    f"unset {src[1:]}, or point it at a CANN toolkit's latest/ folder"))
        where = ", ".join(r for _, r in _backend.cann_roots())
        if choice == "auto":
            checks.append(Check("CANN install", OK, f"none found (searched {where}): the embedded runtime is in use, "
                                                    "nothing to fix"))
        elif lenient:
            checks.append(Check("CANN install", OK, f"none found (searched {where})"))
        else:
            checks.append(Check("CANN install", FAIL, f"none found (searched {where})",
                                "install the CANN toolkit and `source <toolkit>/set_env.sh` (sets ASCEND_HOME_PATH), "
                                f"or set {_backend.ENV_VAR}=auto to use the embedded runtime"))
        _driver(checks, needed=False, severe=FAIL)
        return
    severe = FAIL
    if found is not None:
        root = Path(found[0])
        libdir = found[1][0].parent
        source = next((s for s, r in _backend.cann_roots() if _same(r, root)), "")
        for line in report:                 # earlier places that were passed over
            checks.append(Check("CANN search", WARN, f"{line} (passed over)",
                                "fix or unset the variable that points there"))
    else:
        source, root = next(((s, p) for s, p in candidates
                             if any(line.startswith(f"{p}/") and "partial install: " in line for line in report)),
                            candidates[0])
        found_libdir = _libdir_of(root)
        if found_libdir is None:
            checks.append(Check("CANN install", FAIL, f"{root} ({source}) has no lib64/ or "
                                                      f"{_backend._arch_dir()}/lib64/",
                                f"point ASCEND_HOME_PATH at a CANN toolkit's latest/ folder (`source "
                                f"<toolkit>/set_env.sh`), or set {_backend.ENV_VAR}=sim"))
            _driver(checks, needed=True, severe=FAIL)
            return
        libdir = found_libdir
    version = _version_of(root)
    version_text = f", version {version}" if version else ""
    checks.append(Check("CANN install", OK if found is not None else FAIL,
                        f"{root} ({source or 'found'}){version_text}, libraries in {libdir}"
                        + ("" if found is not None else ": incomplete, see below"),
                        "" if found is not None else "fix the library lines below (or set "
                                                     f"{_backend.ENV_VAR}=sim to use the embedded runtime)"))
    loaded, _ = _libraries(checks, root, libdir, severe)
    embedded = _is_embedded_tree(loaded.get("runtime"))
    if embedded:
        checks.append(Check("CANN install", OK, f"{root} is the embedded runtime's CANN-shaped tree"))
    _environment(checks, root, libdir, embedded, severe)
    _driver(checks, needed=not embedded, severe=severe)


def _runtime(checks: list[Check], choice: str) -> None:
    """Load the backend, then aclInit, aclrtSetDevice on each device and one operator call."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            from ._binding import BACKEND, ffi, lib
    except (_backend.BackendError, _paths.NotBuiltError) as exc:
        from ._cli import one_line
        text = one_line(str(exc))
        checks.append(Check("backend", FAIL, f"cannot be loaded: {text}",
                            f"fix the lines above, or set {_backend.ENV_VAR}=sim to use the embedded runtime"))
        return
    fell_back = False
    for w in caught:
        if issubclass(w.category, RuntimeWarning) and "pyacl_hardgrad:" in str(w.message):
            from ._cli import one_line
            fell_back = True
            checks.append(Check("backend", FAIL, one_line(str(w.message)).replace("pyacl_hardgrad: ", ""),
                                f"fix the CANN lines above, or set {_backend.ENV_VAR}=sim to use the embedded "
                                "runtime on purpose"))
    if BACKEND.is_embedded:
        detail = f"the embedded runtime ({Path(BACKEND.library_files[0]).parent})"
        if choice == "auto" and not fell_back:
            detail += ": no CANN install is loaded, nothing to fix"
    else:
        detail = f"CANN at {BACKEND.root} ({', '.join(Path(f).name for f in BACKEND.library_files)})"
        core = [n for names in CORE_FUNCTIONS.values() for n in names if n in BACKEND.missing_functions]
        if core:
            checks.append(Check("backend", FAIL, f"{detail} lacks {_short(core)}",
                                "see the library lines above: reinstall the CANN toolkit"))
            return
    checks.append(Check("backend", OK, detail))
    from .errors import AclError
    from .runtime import _runtime_res
    try:
        rt = _runtime_res()
    except AclError as exc:
        checks.append(Check("aclInit", FAIL, str(exc),
                            "correct the setting the message names" if BACKEND.is_embedded else
                            "check the driver (npu-smi info) and the ASCEND_* variables above (source set_env.sh)"))
        return
    try:
        from ._cli_smi import _acl_version
        checks.append(Check("aclInit", OK, f"ACL {_acl_version() or '(version unknown)'}"))
        _devices(checks, ffi, lib, BACKEND.is_embedded)
    finally:
        rt.release()


def _devices(checks: list[Check], ffi: Any, lib: Any, embedded: bool) -> None:
    from .errors import error_for
    n = ffi.new("uint32_t *")
    rc = lib.aclrtGetDeviceCount(n)
    if rc != 0:
        checks.append(Check("aclrtGetDeviceCount", FAIL, str(error_for(rc, "aclrtGetDeviceCount")),
                            "check the driver (npu-smi info) and ASCEND_RT_VISIBLE_DEVICES"))
        return
    count = int(n[0])
    if count == 0:
        checks.append(Check("aclrtGetDeviceCount", FAIL, "0 devices",
                            "set PYACL_HARDGRAD_DEVICE_COUNT to 1 or more" if embedded else
                            "no NPU is visible: check ASCEND_RT_VISIBLE_DEVICES and `npu-smi info`"))
        return
    source = " (PYACL_HARDGRAD_DEVICE_COUNT)" if embedded else ""
    checks.append(Check("aclrtGetDeviceCount", OK, f"{count} device{'s' if count > 1 else ''}{source}"))
    ok_devices = []
    for i in range(count):
        rc = lib.aclrtSetDevice(i)
        if rc != 0:
            checks.append(Check(f"aclrtSetDevice({i})", FAIL, str(error_for(rc, "aclrtSetDevice")),
                                "the device is unhealthy or held by another process: `npu-smi info`, then reset it "
                                f"(npu-smi set -t reset -i {i} -c 0) or free it"))
            continue
        soc = lib.aclrtGetSocName()
        name = ffi.string(soc).decode() if soc != ffi.NULL else "SoC unknown"
        free, total = ffi.new("size_t *"), ffi.new("size_t *")
        mem = ""
        if lib.aclrtGetMemInfo(lib.ACL_HBM_MEM, free, total) == 0:
            mem = f", {int(free[0]) >> 20} MB free of {int(total[0]) >> 20} MB"
        else:
            lib.aclGetRecentErrMsg()
        rc = lib.aclrtResetDevice(i)
        if rc != 0:
            checks.append(Check(f"aclrtSetDevice({i})", FAIL, f"set, but {error_for(rc, 'aclrtResetDevice')}",
                                "the device is unhealthy: `npu-smi info`"))
            continue
        checks.append(Check(f"aclrtSetDevice({i})", OK, f"{name}{mem}"))
        ok_devices.append(i)
    if ok_devices:
        _operator(checks, ok_devices[0], embedded)


def _operator(checks: list[Check], device_id: int, embedded: bool) -> None:
    """One aclnn operator call (both phases) on a small tensor, checked against numpy."""
    import numpy as np

    from . import ops
    from .device import Device
    from .errors import AclError
    name = "aclnnHardtanhBackward"
    fn = getattr(ops, "hardtanh_backward", None)
    if fn is None:
        checks.append(Check(name, SKIP, "the binding has no hardtanh_backward"))
        return
    grad = np.linspace(-2.0, 2.0, 16, dtype=np.float32)
    x = np.linspace(-3.0, 3.0, 16, dtype=np.float32)           # none on the bounds +-1.5
    want = np.where((x > -1.5) & (x < 1.5), grad, 0.0).astype(np.float32)
    try:
        with Device(device_id) as dev:
            from .tensor import Tensor
            with Tensor(grad, dev) as g, Tensor(x, dev) as t:
                out = fn(g, t, -1.5, 1.5)
                got = out.numpy()
                out.close()
    except Exception as exc:                # whatever it is, the report names it
        if not isinstance(exc, AclError):
            exc = RuntimeError(f"{type(exc).__name__}: {exc}")
        checks.append(Check(name, FAIL, f"on device {device_id}: {exc}",
                            "the operator library cannot run: correct the setting the message names" if embedded else
                            "source set_env.sh (ASCEND_OPP_PATH must point at the operator package, opp/)"))
        return
    if not np.array_equal(got, want):
        checks.append(Check(name, FAIL, f"on device {device_id}: wrong values {got.tolist()[:4]}...",
                            "the operator library is damaged: reinstall it"))
        return
    checks.append(Check(name, OK, f"on device {device_id}: both phases ran, values as expected"))


def run_checks() -> list[Check]:
    """Every check, in order (loads the backend at the end, like any use of the package)."""
    checks: list[Check] = []
    choice = _backend_choice(checks)
    _package(checks)
    if any(c.status == FAIL and c.name == "package" for c in checks):
        return checks
    _install(checks, choice)
    _runtime(checks, choice)
    return checks


def exit_status(checks: list[Check]) -> int:
    """1 when a check failed, else 0 (warnings do not count)."""
    return 1 if any(c.status == FAIL for c in checks) else 0


def format_checks(checks: list[Check]) -> str:
    from . import __version__
    lines = [f"pyacl-hardgrad {__version__} doctor"]
    lines += [c.line() for c in checks]
    failed = sum(c.status == FAIL for c in checks)
    warned = sum(c.status == WARN for c in checks)
    if failed:
        lines.append(f"{failed} problem{'s' if failed > 1 else ''} to fix (FAIL lines above)")
    elif warned:
        lines.append(f"nothing broken; {warned} warning{'s' if warned > 1 else ''}")
    else:
        lines.append("nothing to fix")
    return "\n".join(lines)


def as_json(checks: list[Check]) -> dict[str, Any]:
    return {"ok": exit_status(checks) == 0, "checks": [asdict(c) for c in checks]}
