"""Types of the compiled HCCL binding (built by _build/ffi_build_hccl.py from include/hccl).

``lib`` holds HCCL's functions, enum values and ``#define``s plus the binding control
(``hgh_*``): generated from the headers at build time, so to a type checker it is dynamic.
"""
from typing import Any

from ._cffi_acl import _BindingFFI

ffi: _BindingFFI
lib: Any
