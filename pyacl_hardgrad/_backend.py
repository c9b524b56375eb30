"""Backend discovery: real CANN when an install is found, else the embedded runtime.

``PYACL_HARDGRAD_BACKEND`` = ``auto`` (default), ``cann`` or ``sim`` (the embedded runtime).
Both backends are loaded the same way: the three libraries are opened with
``dlopen(RTLD_LOCAL)`` and the compiled module's function table is filled from them.
Asking for CANN when it cannot be loaded raises :class:`BackendError` listing every place
searched and why each failed; nothing falls back silently.
"""
from __future__ import annotations

import logging
import os
import platform
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._paths import get_library_dir

if TYPE_CHECKING:
    from ._cffi_acl import _BindingFFI

ENV_VAR = "PYACL_HARDGRAD_BACKEND"
_log = logging.getLogger("pyacl_hardgrad")
DEFAULT_CANN_ROOT = "/usr/local/Ascend/ascend-toolkit/latest"

# Each role may be served by one of several file names (newest CANN releases split them).
LIBRARY_ROLES = (
    ("runtime", ("libascendcl.so", "libacl_rt.so")),
    ("nnopbase", ("libnnopbase.so",)),
    ("opapi", ("libopapi.so", "libopapi_nn.so")),
)


class BackendError(RuntimeError):
    """The requested backend cannot be loaded; the message lists what was tried."""


@dataclass(frozen=True)
class BackendInfo:
    """Which backend is in use and which library files serve it."""

    name: str                      # "cann" or "sim"
    library_files: tuple[str, ...]
    root: str | None = None        # the CANN install root, None for the embedded runtime
    missing_functions: tuple[str, ...] = field(default=())

    @property
    def is_embedded(self) -> bool:
        return self.name == "sim"


def _arch_dir() -> str:
    m = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(m, m) + "-linux"


def cann_roots() -> list[tuple[str, str]]:
    """(where the root came from, root) in search order, without duplicates."""
    out: list[tuple[str, str]] = []
    for source in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"):
        value = os.environ.get(source)
        if value:
            out.append((f"${source}", value))
    out.append(("default location", DEFAULT_CANN_ROOT))
    seen: set[str] = set()
    unique = []
    for source, root in out:
        if root not in seen:
            seen.add(root)
            unique.append((source, root))
    return unique


def _find_in(libdir: Path) -> tuple[list[Path] | None, str]:
    """The three libraries in libdir, or None and why not (prefixed "partial install: " when
    some of them are there: a broken install rather than no install)."""
    found, missing = [], []
    for role, names in LIBRARY_ROLES:
        hit = next((libdir / n for n in names if (libdir / n).is_file()), None)
        if hit is None:
            missing.append(f"no {' or '.join(names)} ({role})")
        else:
            found.append(hit)
    if missing:
        why = ", ".join(missing)
        return None, f"partial install: {why}" if found else why
    return found, ""


def find_cann() -> tuple[tuple[str, list[Path]] | None, list[str]]:
    """Locate a CANN install: ((root, [runtime, nnopbase, opapi]) or None, report lines)."""
    report = []
    for source, root in cann_roots():
        rootp = Path(root)
        if not rootp.is_dir():
            report.append(f"{root} ({source}): not a directory")
            continue
        for libdir in (rootp / "lib64", rootp / _arch_dir() / "lib64"):
            if not libdir.is_dir():
                report.append(f"{libdir} ({source}): not a directory")
                continue
            libs, why = _find_in(libdir)
            if libs is None:
                report.append(f"{libdir} ({source}): {why}")
                continue
            return (root, libs), report
    return None, report


def embedded_libraries() -> list[Path]:
    libdir = Path(get_library_dir())
    return [libdir / "libascendcl.so", libdir / "libnnopbase.so", libdir / "libopapi.so"]


def _open_all(ffi: _BindingFFI, lib: Any, paths: list[Path]) -> tuple[list[_BindingFFI.CData] | None, str]:
    handles = []
    for p in paths:
        h = lib.hgb_open(str(p).encode())
        if h == ffi.NULL:
            return None, f"dlopen({p}) failed: {ffi.string(lib.hgb_dlerror()).decode(errors='replace')}"
        handles.append(h)
    return handles, ""


def _bind(ffi: _BindingFFI, lib: Any, name: str, paths: list[Path], root: str | None) -> BackendInfo:
    handles, why = _open_all(ffi, lib, paths)
    if handles is None:
        raise BackendError(why)
    arr = ffi.new("void *[]", handles)
    lib.hgb_bind(arr, len(handles))
    missing = tuple(ffi.string(lib.hgb_function_name(i)).decode()
                    for i in range(lib.hgb_function_count()) if not lib.hgb_function_bound(i))
    return BackendInfo(name, tuple(str(p) for p in paths), root, missing)


def load(ffi: _BindingFFI, lib: Any) -> BackendInfo:
    """Pick the backend per PYACL_HARDGRAD_BACKEND and bind the compiled module to it (the choice and
    why: INFO records of the ``pyacl_hardgrad`` logger; every place searched: DEBUG)."""
    info = _load(ffi, lib)
    _log.info("backend %s: %s (%s=%s), libraries %s%s", info.name,
              f"CANN at {info.root}" if info.name == "cann" else "the embedded runtime",
              ENV_VAR, os.environ.get(ENV_VAR, "auto") or "auto", ", ".join(info.library_files),
              f"; {len(info.missing_functions)} function(s) missing from them" if info.missing_functions else "")
    return info


def _log_search(report: list[str], found: tuple[str, list[Path]] | None) -> None:
    for line in report:
        _log.debug("CANN search: %s", line)
    if found is not None:
        _log.debug("CANN search: found at %s: %s", found[0], ", ".join(str(p) for p in found[1]))
    elif report:
        _log.info("no CANN install found (%d place(s) searched; DEBUG records list them)", len(report))


def _load(ffi: _BindingFFI, lib: Any) -> BackendInfo:
    choice = os.environ.get(ENV_VAR, "auto").strip().lower() or "auto"
    if choice not in ("auto", "cann", "sim"):
        raise BackendError(f"{ENV_VAR}={choice!r} is not one of 'auto', 'cann', 'sim'")
    if choice in ("auto", "cann"):
        found, report = find_cann()
        _log_search(report, found)
        if found is not None:
            root, paths = found
            try:
                return _bind(ffi, lib, "cann", paths, root)
            except BackendError as exc:
                if choice == "cann":
                    raise BackendError(f"CANN found at {root} but could not be loaded: {exc}") from None
                warnings.warn(f"pyacl_hardgrad: CANN found at {root} but could not be loaded ({exc}); "
                              "using the embedded runtime", RuntimeWarning, stacklevel=3)
        elif choice == "auto":
            broken = [line for line in report if "partial install: " in line]
            if broken:
                warnings.warn("pyacl_hardgrad: a CANN install was found but cannot be loaded, using the "
                              "embedded runtime (set PYACL_HARDGRAD_BACKEND=sim to silence this):\n  "
                              + "\n  ".join(broken), RuntimeWarning, stacklevel=3)
        if found is None and choice == "cann":
            lines = "\n  ".join(report) or "(nowhere to look)"
            raise BackendError(f"{ENV_VAR}=cann but no CANN install could be loaded. Searched:\n  {lines}\n"
                               "Set ASCEND_HOME_PATH (source CANN's set_env.sh) or use "
                               f"{ENV_VAR}=sim for the embedded runtime.")
    paths = embedded_libraries()
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise BackendError(f"the embedded runtime is not built: missing {', '.join(missing)} "
                           "(install the package with pip install .)")
    return _bind(ffi, lib, "sim", paths, None)
