"""Where the installed package keeps its headers and the embedded runtime's libraries."""
from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def get_include() -> str:
    """Folder holding ``acl/acl.h``, ``aclnn/...`` and ``aclnnop/...`` (pass it to ``-I``)."""
    return str(_PKG / "include")


def get_library_dir() -> str:
    """Folder holding the embedded runtime's libascendcl.so, libnnopbase.so and libopapi.so."""
    return str(_PKG / "_embedded" / "lib")
