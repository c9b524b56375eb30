"""Where the installed package keeps its headers and the embedded runtime's libraries."""
from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


class NotBuiltError(ImportError):
    """The package was imported from a source tree that holds no compiled parts."""


def not_built_reason() -> str | None:
    """Why this copy of the package cannot run (one line with the cause and the fix), or None."""
    if (_PKG / "_cann" / "include").is_dir() and (_PKG / "_cann" / "lib64").is_dir():
        return None
    where = _PKG.parent
    if (where / "setup.py").is_file():
        return (f"pyacl_hardgrad was imported from its uncompiled source tree {_PKG} (the current directory "
                f"or sys.path points into the checkout {where}); run from another directory after "
                "`pip install .`, or build in place with `python setup.py build_ext --inplace`")
    return (f"pyacl_hardgrad at {_PKG} is incomplete (no _cann/include/ or _cann/lib64/): reinstall it with "
            "`pip install --force-reinstall pyacl_hardgrad`")


def _require_built() -> None:
    why = not_built_reason()
    if why is not None:
        raise NotBuiltError(why)


def get_cann_path() -> str:
    """Root of the CANN-shaped tree (include/, lib64/, set_env.sh, share/info/): what CANN's
    samples take as ASCEND_CANN_PACKAGE_PATH / ASCEND_HOME_PATH."""
    _require_built()
    return str(_PKG / "_cann")


def get_include() -> str:
    """Folder holding ``acl/acl.h``, ``aclnn/...`` and ``aclnnop/...`` (pass it to ``-I``)."""
    _require_built()
    return str(_PKG / "_cann" / "include")


def get_library_dir() -> str:
    """Folder holding the embedded runtime's libascendcl.so (also as libacl_rt.so),
    libnnopbase.so and libopapi.so."""
    _require_built()
    return str(_PKG / "_cann" / "lib64")
