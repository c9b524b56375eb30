"""Where the installed package keeps its headers and the embedded runtime's libraries."""
from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def get_cann_path() -> str:
    """Root of the CANN-shaped tree (include/, lib64/, set_env.sh, share/info/): what CANN's
    samples take as ASCEND_CANN_PACKAGE_PATH / ASCEND_HOME_PATH."""
    return str(_PKG / "_cann")


def get_include() -> str:
    """Folder holding ``acl/acl.h``, ``aclnn/...`` and ``aclnnop/...`` (pass it to ``-I``)."""
    return str(_PKG / "_cann" / "include")


def get_library_dir() -> str:
    """Folder holding the embedded runtime's libascendcl.so (also as libacl_rt.so),
    libnnopbase.so and libopapi.so."""
    return str(_PKG / "_cann" / "lib64")
