"""``import acl`` for pyACL scripts: CANN's pyACL or pyacl_hardgrad.acl.

This folder (``python -m pyacl_hardgrad --pyacl-path``) goes on PYTHONPATH.  Importing ``acl``
then loads, according to PYACL_HARDGRAD_PYACL:

* ``auto`` (default): CANN's own pyACL when another ``acl`` module is importable from the rest
  of sys.path and the package's backend would be real CANN; otherwise pyacl_hardgrad.acl;
* ``ours``: pyacl_hardgrad.acl, always;
* ``cann``: CANN's own pyACL, or ImportError when none is importable.

Either way the module found replaces this one in sys.modules under the name ``acl`` (and its
submodules under ``acl.rt``, ``acl.util``, ...).
"""
import importlib.machinery
import importlib.util
import os
import sys
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Optional

_HERE = os.path.dirname(os.path.abspath(__file__))
_CHOICES = ("auto", "ours", "cann")


def _other_acl_spec() -> Optional[ModuleSpec]:
    """The spec of an ``acl`` module elsewhere on sys.path (CANN's pyACL), or None."""
    here = os.path.normcase(_HERE)
    path = [p for p in sys.path if os.path.normcase(os.path.abspath(p or os.curdir)) != here]
    spec = importlib.machinery.PathFinder.find_spec("acl", path)
    if spec is None or spec.origin in (None, "namespace"):     # a folder named acl is not pyACL
        return None
    return spec


def _backend_is_cann() -> bool:
    from pyacl_hardgrad import _backend
    choice = os.environ.get(_backend.ENV_VAR, "auto").strip().lower() or "auto"
    if choice == "sim":
        return False
    if choice == "cann":
        return True
    return _backend.find_cann()[0] is not None


def _load_cann(spec: ModuleSpec) -> ModuleType:
    module = importlib.util.module_from_spec(spec)
    sys.modules["acl"] = module
    try:
        spec.loader.exec_module(module)  # type: ignore[union-attr]  # (a file's spec has a loader)
    except BaseException:
        sys.modules.pop("acl", None)
        raise
    return module


def _load() -> ModuleType:
    choice = os.environ.get("PYACL_HARDGRAD_PYACL", "auto").strip().lower() or "auto"
    if choice not in _CHOICES:
        raise ImportError(f"PYACL_HARDGRAD_PYACL={choice!r} is not one of {', '.join(_CHOICES)}")
    if choice != "ours":
        spec = _other_acl_spec()
        if spec is None and choice == "cann":
            raise ImportError("PYACL_HARDGRAD_PYACL=cann but no other 'acl' module (CANN's pyACL) is importable "
                              "from sys.path; source CANN's set_env.sh")
        if spec is not None and (choice == "cann" or _backend_is_cann()):
            return _load_cann(spec)
    from pyacl_hardgrad import acl as ours
    sys.modules["acl"] = ours
    for name in ("rt", "util", "mdl", "media"):
        sys.modules[f"acl.{name}"] = getattr(ours, name)
    return ours


_load()
