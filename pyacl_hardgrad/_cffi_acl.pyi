"""Types of the compiled cffi module (built by _build/ffi_build.py from include/).

``lib`` holds every function, constant and ``#define`` of include/ plus the handle layer's
(``hgb_*``): its members are generated from the headers at build time, so to a type checker it
is dynamic.  ``ffi`` is the module's FFI; the binding declares no ``wchar_t``, so its strings
are ``char *`` and ``ffi.string`` gives bytes.
"""
from typing import Any, Callable, TypeVar, overload

import numpy as np
from cffi import FFI
from typing_extensions import Buffer

_F = TypeVar("_F", bound=Callable[..., Any])

class _BindingFFI(FFI):
    def string(self, cdata: FFI.CData, maxlen: int = -1) -> bytes: ...
    def sizeof(self, cdecl: str | FFI.CData | FFI.CType) -> int: ...
    # numpy arrays export buffers (their stubs say so from Python 3.12 on only)
    @overload
    def from_buffer(self, cdecl: Buffer | np.ndarray[Any, Any], require_writable: bool = False) -> FFI.CData: ...
    @overload
    def from_buffer(self, cdecl: str | FFI.CType, python_buffer: Buffer | np.ndarray[Any, Any],
                    require_writable: bool = False) -> FFI.CData: ...
    # a decorator (types-cffi declares None)
    def def_extern(  # type: ignore[override]
        self, name: str = ..., error: Any = ..., onerror: Callable[..., Any] | None = ...
    ) -> Callable[[_F], _F]: ...

ffi: _BindingFFI
lib: Any
