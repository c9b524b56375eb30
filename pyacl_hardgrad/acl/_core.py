"""How pyACL's functions are made from the binding's C functions.

Every function calls ``pyacl_hardgrad._binding.lib`` (real CANN or the embedded runtime, the
call path of the whole package).  pyACL's conventions:

* handles and pointers are plain ints both ways, 0 for NULL;
* an action returns its ``ret`` alone; a creator or getter returns ``(value, ret)`` (or
  ``(value1, value2, ..., ret)``);
* runtime failures are returned, never raised; only arguments that cannot be parsed raise
  (``TypeError("acl.<module>.<name> args parse failed")``, see ``_args``).

A C function that the headers of this package do not declare yet is reported as CANN reports
an API the loaded libraries lack: ACL_ERROR_API_NOT_SUPPORT (200001), with 0 for every value
of a getter.  A declared function missing from the loaded libraries returns the same code from
the binding's stub.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, TypeVar

from .._binding import ffi, lib
from ._args import parse

if TYPE_CHECKING:
    from cffi import FFI

    from .._types import CData

    CType = FFI.CType

_F = TypeVar("_F", bound=Callable[..., Any])

ACL_SUCCESS = 0
ACL_ERROR_API_NOT_SUPPORT = 200001

_NULL = ffi.NULL

# Argument specs: the pyACL parse code of each letter.  Values reach C as pyACL's C code
# passes them: pointers as ``void *``, integers converted to the parameter's C type the way
# a C cast converts them (wrapping to its width and signedness).
#   p pointer/handle (k)   k size (k)   K uint64 (K)   i int32 (i)   e enum (i)   I uint32 (I)   s string (s)
_PARSE = {"p": "k", "k": "k", "K": "K", "i": "i", "e": "i", "I": "I", "s": "s"}


def _int_converter(ctype: str | CType) -> Callable[[int], int]:
    """Python int -> the value a C cast to ``ctype`` (an integer or enum type) gives."""
    bits = 8 * ffi.sizeof(ctype)
    mask = (1 << bits) - 1
    signed = int(ffi.cast(ctype, -1)) < 0
    half = 1 << (bits - 1)

    def convert(v: int) -> int:
        v &= mask
        return v - (1 << bits) if signed and v >= half else v
    return convert


def c_type(fn: CData) -> CType:
    """``ffi.typeof`` of a binding function, also of its stand-in while the call trace is on."""
    return ffi.typeof(getattr(fn, "__wrapped__", fn))


def int_argument(fn: CData, index: int) -> Callable[[int], int]:
    """The converter of ``fn``'s integer (or enum) parameter ``index``, as a C cast does it."""
    return _int_converter(c_type(fn).args[index])


def _converters(fn: CData | None, spec: str, outs: tuple[int, ...] = ()) -> list[Callable[[Any], Any]]:
    """One function per letter of ``spec`` turning a parsed value into the C argument."""
    if fn is None:
        return []
    params = [t for i, t in enumerate(c_type(fn).args) if i not in outs]
    out: list[Callable[[Any], Any]] = []
    for code, ctype in zip(spec, params):
        if code == "p":
            out.append(lambda v: ffi.cast("void *", v))
        elif code == "s" or ctype.kind not in ("primitive", "enum"):
            out.append(lambda v: v)
        else:
            out.append(_int_converter(ctype))
    return out


def c_function(cname: str) -> Any:
    """The binding's function ``cname``, or None when the headers do not declare it."""
    return getattr(lib, cname, None)


def address(p: CData) -> int:
    """A C pointer as pyACL returns it: its address as an int, 0 for NULL."""
    return int(ffi.cast("uintptr_t", p))


def _py_value(box: CData) -> int | float:
    v = box[0]
    if isinstance(v, (int, float)):
        return v
    if ffi.typeof(v).kind == "pointer":
        return address(v)
    return int(v)


def _name(module: str, pyname: str, doc: str, fn: _F) -> _F:
    fn.__name__ = fn.__qualname__ = pyname
    fn.__module__ = module
    fn.__doc__ = doc
    return fn


def action(module: str, pyname: str, cname: str, spec: str = "", *, parse_args: bool = True,
           message: str | None = None) -> Callable[..., int]:
    """``ret = acl.<module>.<pyname>(args)`` calling ``cname(args)``.

    ``parse_args=False``: pyACL parses nothing and ignores whatever it is given.
    ``message``: pyACL's parse-failure text when it is not "<module>.<pyname> args parse failed".
    """
    fn = c_function(cname)
    full = f"{module}.{pyname}"
    fmt = "".join(_PARSE[c] for c in spec)
    conv = _converters(fn, spec)

    if not parse_args:
        def f(*args: Any) -> Any:
            return ACL_ERROR_API_NOT_SUPPORT if fn is None else fn()
    elif not spec:
        def f(*args: Any) -> Any:
            parse(full, args, "", message)
            return ACL_ERROR_API_NOT_SUPPORT if fn is None else fn()
    else:
        def f(*args: Any) -> Any:
            vals = parse(full, args, fmt, message)
            if fn is None:
                return ACL_ERROR_API_NOT_SUPPORT
            return fn(*[c(v) for c, v in zip(conv, vals)])
    return _name(module, pyname, f"{full}({', '.join(spec)}) -> ret  ({cname})", f)


def query(module: str, pyname: str, cname: str, spec: str = "", outs: tuple[int, ...] = (0,), *,
          parse_args: bool = True, zero: tuple[Any, ...] | None = None,
          message: str | None = None) -> Callable[..., tuple[Any, ...]]:
    """``(value..., ret) = acl.<module>.<pyname>(args)``: ``cname`` with out-parameters at the
    positions ``outs`` of its C argument list and the parsed arguments in the other places.

    ``zero``: the values returned with ACL_ERROR_API_NOT_SUPPORT (default: 0 each).
    """
    fn = c_function(cname)
    full = f"{module}.{pyname}"
    fmt = "".join(_PARSE[c] for c in spec)
    nargs = len(spec) + len(outs)
    zero = tuple(zero) if zero is not None else (0,) * len(outs)
    out_types = [c_type(fn).args[i] for i in outs] if fn is not None else []
    conv = _converters(fn, spec, outs)

    def f(*args: Any) -> tuple[Any, ...]:
        vals = parse(full, args, fmt, message) if parse_args else []
        if fn is None:
            return (*zero, ACL_ERROR_API_NOT_SUPPORT)
        boxes = [ffi.new(t) for t in out_types]
        it_in, it_out = iter(zip(conv, vals)), iter(boxes)
        cargs: list[Any] = []
        for i in range(nargs):
            if i in outs:
                cargs.append(next(it_out))
            else:
                c, v = next(it_in)
                cargs.append(c(v))
        ret = fn(*cargs)
        return (*[_py_value(b) for b in boxes], ret)
    return _name(module, pyname, f"{full}({', '.join(spec)}) -> ({', '.join('v' * len(outs))}, ret)  ({cname})", f)


_NO_VALUE = object()


def not_supported(module: str, pyname: str, fmt: str | None = None, values: tuple[Any, ...] = (), *,
                  bare: object = _NO_VALUE, message: str | None = None) -> Callable[..., Any]:
    """A pyACL function of a part this package leaves out (model inference, media).

    Returns ``(*values, ACL_ERROR_API_NOT_SUPPORT)`` (just the code when ``values`` is empty),
    or the single value ``bare`` for functions that return one value and no status (a NULL
    handle 0, a count 0, None for a name).  ``fmt``: pyACL's parse format, checked as pyACL
    checks it (bad arguments raise its TypeError); None accepts anything.
    """
    full = f"{module}.{pyname}"
    values = tuple(values)
    result: Any = bare if bare is not _NO_VALUE else ((*values, ACL_ERROR_API_NOT_SUPPORT) if values
                                                 else ACL_ERROR_API_NOT_SUPPORT)
    fresh = type(result) is tuple and any(isinstance(v, dict) for v in result)

    def f(*args: Any) -> Any:
        if fmt is not None:
            parse(full, args, fmt, message)
        if fresh:                        # a new dict each call, as pyACL builds one
            return tuple(dict(v) if isinstance(v, dict) else v for v in result)
        return result
    return _name(module, pyname, f"{full}(...) -> {result!r}: not supported by this package "
                                 "(no model-inference or media runtime)", f)


def string_or_none(p: CData) -> str | None:
    """A ``const char *`` result as pyACL builds it ("s"): None for NULL, else the text."""
    if p == _NULL:
        return None
    return ffi.string(p).decode("utf-8", errors="replace")
