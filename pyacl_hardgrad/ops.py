"""Every aclnn operator as a one-call function and a two-phase plan, built from its prototype.

The binding is compiled with the operators of include/aclnnop; for each, ffi_build.py generated
from the prototype a fused call (hold the arguments, phase 1, phase 2 with a workspace when
needed, hand the references to the stream, optionally wait: one crossing into C) and a plan
constructor.  With a CANN backend, the operators of the installed CANN's include/aclnnop that the
binding was not compiled with are declared at run time (cffi ABI mode, from the library that
exports them) and go through the same generic steps.  This module builds, from each operator's
signature description, one Python function and one plan class:

  * aclnnXxxBackwardV2 -> ``xxx_backward_v2(...)``, ``XxxBackwardV2Plan(...)``
  * aclnnInplaceXxx -> ``inplace_xxx(...)``, ``InplaceXxxPlan(...)``

Parameters come in prototype order without workspaceSize/executor, named in snake_case.
Tensors are Tensors or (for inputs of a function) anything numpy accepts; scalars
(``const aclScalar *``) are Scalars or Python numbers (a float32 Scalar); outputs (non-const
``aclTensor *``, or what an op.json entry lists) are optional: allocated with the broadcast
shape of the tensor inputs and CANN's promotion of their dtypes.  In-place operators
(aclnnInplaceXxx, or a ``...Ref`` parameter) return their input.

Functions:
  * given Tensors, they enqueue the operator on ``stream`` (default: the device's default
    stream) and return the output Tensor at once; ``out.numpy()`` waits for the result;
    ``sync=True`` returns after the stream has finished;
  * given only host arrays (no Tensor anywhere), they run on the default device, wait, and
    return numpy; mixed calls copy the arrays to the Tensors' device and return Tensors.

Plans mirror the C++ two-phase form: construction is phase 1 (``workspace_size`` and an
executor), ``run()`` is phase 2.
"""
from __future__ import annotations

import keyword
import operator
import platform
import threading
from typing import TYPE_CHECKING, Any, Callable, NoReturn, Sequence, Union

import numpy as np

from . import _args, _fastcall
from ._fastcall import PlanRunner as _PlanRunner
from ._build import signatures as _signatures
from ._binding import BACKEND, c_address, ffi, lib
from ._lifetime import CHandle
from .device import default_device, default_stream
from .dtypes import from_acl, to_acl
from .errors import _PARAM_CODES, ClosedError, PlanConsumedError, error_for
from .memory import DeviceMemory
from .scalar import Scalar, _float32_cache, cached_float32, lookup_float32
from .stream import Stream, sync_failed
from .tensor import Tensor, _row_major, made_tensor as _made

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Protocol

    import numpy.typing as npt

    from ._types import CData, DTypeLike
    from .device import _DeviceState
    from .errors import AclError
    from .tensor import _Layout

    # an hgb_call * (a struct: its fields are the C ones)
    _Call = Any
    # the binding's generated C entry points (lib.hgb_call_<op>, ...; ABI-mode closures): a status
    _Entry = Callable[..., int]
    # what a one-call returns: its output(s) (in-place: its input), Tensors or, called with host
    # arrays only, numpy arrays
    _Out = Union[Tensor, "npt.NDArray[Any]"]
    _Result = Union[_Out, tuple[Union[_Out, None], ...], None]
    # the staging table of a host call and its outputs' shapes and dtypes (see _host_layout)
    _HostLayout = tuple[Any, ...]

    class _Shaped(Protocol):
        """What an output's layout is derived from: a Tensor's or a numpy array's shape and dtype."""
        @property
        def shape(self) -> tuple[int, ...]: ...
        @property
        def dtype(self) -> np.dtype[Any]: ...
__all__ = ["result_dtype", "operators", "unsupported", "Plan", "OpSpec"]

if TYPE_CHECKING:
    # every operator's function and plan, made by _register below; to type checkers they are
    # the generated stub's (written by _build/gen_stubs.py from what this module makes)
    from ._ops_typing import *  # noqa: F403

_NULL = ffi.NULL
_CLOSED = lib.HGB_CLOSED
_CONSUMED = lib.HGB_CONSUMED
_WAIT = lib.HGB_WAIT
_HOST_ROLES = {"in": lib.HGB_HOST_IN, "inout": lib.HGB_HOST_INOUT, "out": lib.HGB_HOST_OUT}
_TENSOR_KINDS = ("tensor", "out")
_HANDLE_KINDS = ("tensor", "out", "scalar")
_tls = threading.local()
_empty = lib.hgb_tensor_empty

def _call_buffer() -> _Call:
    c = _tls.c = ffi.new("hgb_call *")
    return c


def result_dtype(*dtypes: DTypeLike) -> np.dtype[Any]:
    """CANN's promotion of the dtypes (the default output dtype of an operator)."""
    codes = [to_acl(d) for d in dtypes]
    if not codes:
        raise TypeError("result_dtype needs at least one dtype")
    out = codes[0]
    for c in codes[1:]:
        out = lib.hgb_promote_types(out, c)
        if out < 0:
            raise TypeError(f"no promoted dtype for {', '.join(str(np.dtype(d)) for d in dtypes)}")  # type: ignore[arg-type]
    return from_acl(out)


_promoted: dict[tuple[np.dtype[Any], ...], np.dtype[Any]] = {}


def _promote(dtypes: tuple[np.dtype[Any], ...]) -> np.dtype[Any]:
    """result_dtype, memoised per dtype tuple (the rule itself is hgb_promote_types)."""
    r = _promoted.get(dtypes)
    if r is None:
        r = _promoted[dtypes] = result_dtype(*dtypes)
    return r


class Param:
    __slots__ = ("cname", "name", "kind", "role", "default", "has_default", "ctype")

    def __init__(self, cname: str, name: str, kind: str, role: str, ctype: str) -> None:
        self.cname, self.name, self.kind, self.role, self.ctype = cname, name, kind, role, ctype
        self.default: Any = None            # an op.json default (a JSON value)
        self.has_default = False


class OpSpec:
    """One operator: its parameters and the two generic C entry points (fused call, plan)."""

    function: Callable[..., _Result]        # set by _register
    plan: type[Plan]

    def __init__(self, desc: dict[str, Any], entry: dict[str, Any], fused: _Entry, planner: _Entry, source: str,
                 host: _Entry | None = None) -> None:
        self.name = desc["name"]
        self.source = source                       # "binding" or the library file (ABI mode)
        base = self.name[len("aclnn"):] if self.name.startswith("aclnn") else self.name
        self.function_name = entry.get("name") or _signatures.snake_case(base)
        self.plan_name = base + "Plan"
        self.doc = entry.get("doc", "")
        renames = entry.get("params", {})
        outputs = entry.get("outputs")
        inplace = base.startswith("Inplace")
        params, first_tensor = [], True
        for p in desc["params"]:
            kind = p["kind"]
            role = "in"
            if kind in _TENSOR_KINDS:
                if outputs is not None:
                    role = "out" if p["name"] in outputs else "in"
                elif kind == "out":
                    role = "out"
                if p["name"].endswith("Ref") or (inplace and first_tensor):
                    role = "inout"
                first_tensor = False
            name = renames.get(p["name"]) or _signatures.snake_case(p["name"])
            if keyword.iskeyword(name) or name in ("stream", "sync", "repeatable", "workspace"):
                name += "_"
            params.append(Param(p["name"], name, kind, role, p["type"]))
        for cname, value in entry.get("defaults", {}).items():
            for p in params:
                if p.cname == cname:
                    p.default, p.has_default = value, True
        self.params = params
        self.handles = [p for p in params if p.kind in _HANDLE_KINDS]
        self.inputs = [p for p in params if p.role != "out"]
        self.outputs = [p for p in params if p.role == "out"]
        self.results = [p for p in params if p.role in ("out", "inout")]
        self.tensor_inputs = [p for p in params if p.kind in _TENSOR_KINDS and p.role == "in"]
        self.tensor_params = [p for p in params if p.kind in _TENSOR_KINDS]
        self.fused = fused
        self.fast: _fastcall.OpCall | None = None   # the same call through _fastcall.OpCall (binding operators)
        self.front: Callable[..., Any] | None = None    # OpCall.front: the one-call's common case in C
        self.planner = planner
        self.host = host                # the host-array call (stage, fused call with a wait, copy back)
        self.host_layouts: dict[tuple[Any, ...], _HostLayout] = {}    # see _host_layout

    def __repr__(self) -> str:
        return f"<OpSpec {self.name}({', '.join(p.name for p in self.params)})>"


# --- argument conversion (the general path) ---------------------------------------------------

def _bound(value: object) -> Scalar | None:
    """The Scalar a one-call passes for a scalar argument without making one per call: the cached
    float32 Scalar of a float/int, a Scalar itself; None sends the call down the general path."""
    t = type(value)
    if t is float or t is int:
        return cached_float32(value)
    if t is Scalar:
        return value    # type: ignore[return-value]  # (t is its type)
    return None


def _as_scalar(value: object, name: str, temps: list[CHandle]) -> Scalar:
    if isinstance(value, Scalar):
        return value
    if isinstance(value, (str, bytes, bytearray)) or value is None:
        raise TypeError(f"{name} must be a real number or a Scalar, not {type(value).__name__} {value!r:.40}")
    number = _args.real(value, name)
    s = Scalar(number, "float32")
    temps.append(s)
    return s


def _non_tensor(p: Param, value: Any, cached: bool, temps: list[CHandle]) -> Scalar | int | float | bool:
    """A scalar or value argument as the generic call passes it (see _bound, _as_scalar, _as_value)."""
    if p.kind == "scalar":
        return (cached and _bound(value)) or _as_scalar(value, p.name, temps)
    return _as_value(p, value)


def _as_value(p: Param, value: Any) -> int | float | bool:
    try:
        if p.kind == "int":
            return operator.index(value)
        if p.kind == "float":
            return float(value)
        return bool(operator.index(value)) if not isinstance(value, bool) else value
    except (TypeError, ValueError):
        want = {"int": "an integer", "float": "a real number", "bool": "a bool"}[p.kind]
        raise TypeError(f"{p.name} must be {want} ({p.ctype}), not {type(value).__name__} {value!r}") from None


_layouts: dict[tuple[Any, ...], _Layout] = {}


def _layout(spec: OpSpec, tensors: Sequence[_Shaped]) -> _Layout:
    """(shape, strides, dtype, aclDataType, itemsize, ndim, dims as int64_t[]) of the output a call
    allocates: the broadcast shape and the promoted dtype of the tensor inputs; memoised per input
    layout."""
    if not tensors:
        raise TypeError(f"{spec.function_name}: give the output tensor (there is no tensor input to "
                        "derive its shape and dtype from)")
    key = tuple(a for t in tensors for a in (t.shape, t.dtype))
    lay = _layouts.get(key)
    if lay is None:
        shape = tensors[0].shape
        if any(t.shape != shape for t in tensors):
            shape = tuple(np.broadcast_shapes(*(t.shape for t in tensors)))
        dt = _promote(tuple(t.dtype for t in tensors)) if len(tensors) > 1 else tensors[0].dtype
        lay = (shape, _row_major(shape), dt, to_acl(dt), dt.itemsize, len(shape),
               ffi.new("int64_t[]", shape) if shape else _NULL)
        if len(_layouts) < 4096:
            _layouts[key] = lay
    return lay


def _alloc_failed(st: int, c: _Call) -> NoReturn:
    raise error_for(st, ffi.string(c.function).decode())


def _new_out(c: _Call, spec: OpSpec, tensors: tuple[Tensor, ...] | list[Tensor],
             state: _DeviceState | None = None) -> Tensor:
    """The output a call allocates (see _layout) on the first tensor's device (or ``state``)."""
    lay = _layout(spec, tensors)
    if state is None:
        state = tensors[0]._device_state
    st = _empty(c, state.res._o, state.context, lay[5], lay[6], lay[3], lay[4])
    if st:
        _alloc_failed(st, c)
    return _made(c, lay, state)


def _failed(st: int, c: _Call, spec: OpSpec, handles: list[Any] | tuple[Any, ...],
            made: tuple[Tensor, ...] | list[Tensor] = (), args: tuple[Any, ...] | None = None) -> None:
    """Raise for a failed generic call (closing outputs it allocated).  Returns instead when the
    closed argument was a cached Scalar standing in for a number (released meanwhile by
    release_cached_scalars()): the caller then takes the general path, which makes its own."""
    for t in made:
        t.close()
    if st == _CLOSED:
        i = c.index
        if i >= len(handles):
            raise ClosedError(f"Stream stream of {spec.function_name} is closed")
        obj = handles[i]
        if args is not None and spec.handles[i].kind == "scalar":
            given = args[spec.params.index(spec.handles[i])]
            if given is not obj:
                return
        raise ClosedError(f"{type(obj).__name__} {spec.handles[i].name} of {spec.function_name} is closed")
    raise error_for(st, ffi.string(c.function).decode() if c.function != _NULL else None)


def _c_arguments(spec: OpSpec, values: list[Any], inputs: list[Tensor], made: list[Tensor],
                 state: _DeviceState | None = None) -> tuple[_Call, list[Any], list[Any]]:
    """Allocate the outputs left out (each appended to ``made``); (the call buffer, the handle
    arguments, the arguments of the generic C call)."""
    c = getattr(_tls, "c", None) or _call_buffer()
    for i, p in enumerate(spec.params):
        if p.role == "out" and values[i] is None:
            values[i] = _new_out(c, spec, inputs, state)
            made.append(values[i])
    handles = [v for v, p in zip(values, spec.params) if p.kind in _HANDLE_KINDS]
    cargs = [(v._o if v is not None else _NULL) if p.kind in _HANDLE_KINDS else v
             for v, p in zip(values, spec.params)]
    return c, handles, cargs


def _not_host_value(name: str, a: object, e: Exception) -> TypeError:
    return TypeError(f"{name} must be a Tensor or an array of numbers (numpy array, list), not "
                     f"{type(a).__name__} {a!r:.40}: {e}")


def _host_value(name: str, a: Any, widened: list[tuple[str, str]]) -> np.ndarray[Any, Any]:
    """A host value given for tensor input ``name`` as a numpy array of a dtype with an
    aclDataType.  Records in ``widened`` the inputs whose dtype numpy chose (float64 for a float
    array, int64 for Python ints), for the hint when the operator refuses that dtype."""
    try:
        arr = np.asarray(a)
        if arr.dtype == np.float64 and not isinstance(a, np.ndarray):
            arr = arr.astype(np.float32)     # a Python list of floats: float32, as torch does
        if arr.dtype.kind in "OUS":          # (ml_dtypes.bfloat16 is kind "V": its table entry decides)
            raise TypeError(f"numpy makes it an array of dtype {arr.dtype}")
        to_acl(arr.dtype)
    except (TypeError, ValueError) as e:
        raise _not_host_value(name, a, e) from None
    if arr.dtype in (np.float64, np.int64):
        widened.append((name, _widened_how(a, arr)))
    return arr


def _widened_how(a: object, arr: np.ndarray[Any, Any]) -> str:
    return f"is a {arr.dtype} array" if isinstance(a, np.ndarray) else \
        f"was converted by numpy to {arr.dtype} (from {type(a).__name__})"


def _host_tensor(name: str, a: Any, state: _DeviceState, widened: list[tuple[str, str]]) -> Tensor:
    """A host value given for tensor input ``name`` as a temporary Tensor (see _host_value)."""
    arr = _host_value(name, a, widened)
    try:
        return Tensor(arr, state)
    except (TypeError, ValueError) as e:
        raise _not_host_value(name, a, e) from None


# --- host arrays in, host arrays out --------------------------------------------------------------

_fb = ffi.from_buffer
_np_empty = np.empty
_NOT_BUFFER = (ValueError, TypeError, BufferError)


def _fbw(a: np.ndarray[Any, Any]) -> CData:
    return _fb(a, require_writable=True)


def _host_layout(spec: OpSpec, arrays: list[np.ndarray[Any, Any] | None]) -> _HostLayout:
    """The staging table of a host call (hgb_host_tensor per tensor parameter) and the shape and
    dtype of each output: ``(table, out0 shape, out0 dtype, ..., kept objects)``; memoised per
    layout of the inputs (``arrays``: per tensor parameter, the array or None), under the key the
    generated functions build: (shape, dtype) of every tensor input, (None, None) when absent."""
    key = tuple(x for a, p in zip(arrays, spec.tensor_params) if p.role != "out"
                for x in ((a.shape, a.dtype) if a is not None else (None, None)))
    lay = spec.host_layouts.get(key)
    if lay is not None:
        return lay
    params = spec.tensor_params
    table = ffi.new("hgb_host_tensor[]", max(len(params), 1))
    keep, outs = [table], []
    inputs = [a for a, p in zip(arrays, params) if p.role == "in" and a is not None]
    for k, (a, p) in enumerate(zip(arrays, params)):
        e = table[k]
        if p.role == "out":
            out = _layout(spec, inputs)
            shape, dt = out[0], out[2]
            outs += [shape, dt]
        elif a is None:
            e.role = lib.HGB_HOST_ABSENT
            continue
        else:
            shape, dt = a.shape, a.dtype
        dims = ffi.new("int64_t[]", shape) if shape else _NULL
        keep.append(dims)
        e.dims, e.ndim, e.dtype, e.itemsize, e.role = dims, len(shape), to_acl(dt), dt.itemsize, _HOST_ROLES[p.role]
    lay = (table, *outs, keep)
    if len(spec.host_layouts) < 4096:
        spec.host_layouts[key] = lay
    return lay


def _host(spec: OpSpec, args: tuple[Any, ...], stream: Stream | None) -> _Result:
    """A call with host arrays only (no Tensor among the tensor arguments): see _host_call."""
    try:
        return _host_call(spec, args, stream, True)
    except _CachedScalarGone:
        return _host_call(spec, args, stream, False)


def _host_call(spec: OpSpec, args: tuple[Any, ...], stream: Stream | None, cached: bool) -> _Result:
    """Every host-array call the generated function's own branch does not take (lists, scalars to
    convert, non-contiguous, read-only or in-place arrays, absent inputs): the arrays are made
    contiguous here, then one call into C stages them as device tensors, runs the operator, waits
    and copies the outputs into new arrays (or back into an in-place array)."""
    if stream is not None and type(stream) is not Stream:
        raise TypeError(f"stream must be a Stream, not {type(stream).__name__}")
    if stream is not None and stream.closed:
        raise ClosedError(f"Stream stream of {spec.function_name} is closed")
    temps: list[CHandle] = []
    widened: list[tuple[str, str]] = []
    arrays: list[np.ndarray[Any, Any] | None] = []
    back: list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]] = []
    values: list[Any] = []
    arr: np.ndarray[Any, Any] | None
    try:
        for a, p in zip(args, spec.params):
            if p.kind in _TENSOR_KINDS:
                if p.role == "out":
                    if a is not None:
                        raise TypeError(f"{p.name} must be a Tensor or None, not {type(a).__name__}")
                    arrays.append(None)
                elif a is None:
                    arrays.append(None)
                else:
                    arr = _host_value(p.name, a, widened)
                    if p.role == "inout":
                        # the operator writes the array itself when it can, else a copy that is
                        # copied back (a writable array) or returned (read-only, or not an array)
                        mine = arr is a and arr.flags.c_contiguous and arr.flags.writeable
                        if not mine:
                            arr = arr.copy(order="C")
                            if isinstance(a, np.ndarray) and a.flags.writeable:
                                back.append((a, arr))
                    elif not arr.flags.c_contiguous:
                        arr = arr.copy(order="C")     # (np.ascontiguousarray would turn 0-d into 1-d)
                    arrays.append(arr)
                values.append(None)
            else:
                values.append(_non_tensor(p, a, cached, temps))
        lay = _host_layout(spec, arrays)
        outs = iter(lay[1:-1])
        results, it = [], iter(arrays)
        cargs = []
        for v, p in zip(values, spec.params):
            if p.kind in _TENSOR_KINDS:
                arr = next(it)
                if p.role == "out":
                    arr = _np_empty(next(outs), next(outs))
                cargs.append(_fb(arr) if arr is not None else _NULL)
                if p.role != "in":
                    results.append(arr)
            elif p.kind == "scalar":
                cargs.append(v._o)
            else:
                cargs.append(v)
        if stream is None:
            stream = default_stream()
        c = getattr(_tls, "c", None) or _call_buffer()
        st = spec.host(c, stream._o, lay[0], *cargs)    # type: ignore[misc]  # (set: the host path)
        if st:
            if widened and st in _PARAM_CODES:
                _failed_widened(st, c, spec, [], widened)
            handles = [a if p.kind in _TENSOR_KINDS else v
                       for a, v, p in zip(args, values, spec.params) if p.kind in _HANDLE_KINDS]
            _failed(st, c, spec, handles, (), args)    # returns for a cached Scalar released meanwhile
            raise _CachedScalarGone
        for a, arr in back:                 # in-place on a host array: write the result back
            np.copyto(a, arr, casting="unsafe")
        copied = {id(arr): a for a, arr in back}
        out = [copied.get(id(r), r) for r in results]
        return out[0] if len(out) == 1 else tuple(out)
    finally:
        for t in temps:
            t.close()


def _host_failed(st: int, c: _Call, spec: OpSpec, handles: tuple[Any, ...], args: tuple[Any, ...],
                 stream: Stream) -> _Result:
    """A failed call of a generated function's host-array branch (every argument an array or a
    value it takes as is): the general path's errors; a cached Scalar released meanwhile makes
    the call again with Scalars of its own."""
    if st in _PARAM_CODES:
        widened = [(p.name, _widened_how(a, a)) for a, p in zip(args, spec.params)
                   if p.kind in _TENSOR_KINDS and isinstance(a, np.ndarray) and a.dtype in (np.float64, np.int64)]
        if widened:
            _failed_widened(st, c, spec, [], widened)
    _failed(st, c, spec, handles, (), args)
    return _host_call(spec, args, stream, False)


def _abi_host(fused: _Entry, params: list[dict[str, Any]]) -> _Entry:
    """The host-array call of an operator declared at run time: the same staging and copy-back
    (hgb_host_stage / hgb_host_finish) around its fused call."""
    slots = [i for i, p in enumerate(params) if p["kind"] in _TENSOR_KINDS]
    nhandles = sum(p["kind"] in _HANDLE_KINDS for p in params)
    n = len(slots)

    def host(c: _Call, stream: CData, lay: CData, *args: Any) -> int:
        data = ffi.new("void *[]", max(n, 1))
        t = ffi.new("hgb_obj *[]", max(n, 1))
        for k, i in enumerate(slots):
            data[k] = ffi.cast("void *", args[i])
        st: int = lib.hgb_host_stage(c, stream, lay, data, t, n, nhandles)
        if st:
            return st
        fargs = list(args)
        for k, i in enumerate(slots):
            fargs[i] = t[k]
        st = fused(c, stream, _WAIT, *fargs)
        return int(lib.hgb_host_finish(c, st, stream, lay, data, t, n))

    return host


def _failed_widened(st: int, c: _Call, spec: OpSpec, made: list[Tensor], widened: list[tuple[str, str]]) -> NoReturn:
    """A refused call with host inputs numpy made float64/int64: the operator's error with the
    conversion named and float32 suggested."""
    for t in made:
        t.close()
    made.clear()
    hint = "; ".join(f"{name} {how}" for name, how in widened)
    # raised straight from the call: a local naming it would form a cycle with its traceback
    raise _with_hint(error_for(st, ffi.string(c.function).decode() if c.function != _NULL else None),
                     f"{hint}: pass float32 data, e.g. np.asarray(x, np.float32)")


def _with_hint(err: AclError, hint: str) -> AclError:
    return type(err)(err.code, err.function, f"{err.message} [{hint}]")


def _general(spec: OpSpec, args: tuple[Any, ...], stream: Stream | None, sync: bool) -> _Result:
    """Every call the generated fast path does not take: host arrays, Scalars to make, values to
    convert, checks with clear errors.  Then the same fused call.  Numbers take the cached
    float32 Scalars; when one is released meanwhile (release_cached_scalars() in another
    thread), the call is made again with Scalars of its own."""
    try:
        return _general_call(spec, args, stream, sync, True)
    except _CachedScalarGone:
        return _general_call(spec, args, stream, sync, False)


class _CachedScalarGone(Exception):
    pass


def _default_state() -> _DeviceState:
    return default_device()._state


def _general_call(spec: OpSpec, args: tuple[Any, ...], stream: Stream | None, sync: bool, cached: bool) -> _Result:
    if stream is not None and type(stream) is not Stream:
        raise TypeError(f"stream must be a Stream, not {type(stream).__name__}")
    if stream is not None and stream.closed:
        raise ClosedError(f"Stream stream of {spec.function_name} is closed")
    given = [a for a, p in zip(args, spec.params) if p.kind in _TENSOR_KINDS and isinstance(a, Tensor)]
    numpy_mode = not given
    if numpy_mode and spec.host is not None:
        return _host_call(spec, args, stream, cached)
    if stream is not None:
        state = stream._device_state
    elif given:
        state = given[0]._device_state
    else:
        state = _default_state()
    temps: list[CHandle] = []
    made: list[Tensor] = []
    host: list[tuple[Tensor, np.ndarray[Any, Any]]] = []
    widened: list[tuple[str, str]] = []
    try:
        values: list[Any] = []
        inputs: list[Tensor] = []
        for a, p in zip(args, spec.params):
            if p.kind in _TENSOR_KINDS:
                if a is None and p.role == "out":
                    values.append(None)
                    continue
                if a is None:
                    t = None
                elif isinstance(a, Tensor):
                    t = a
                elif p.role == "out":
                    raise TypeError(f"{p.name} must be a Tensor or None, not {type(a).__name__}")
                else:
                    t = _host_tensor(p.name, a, state, widened)
                    temps.append(t)
                    if p.role == "inout" and isinstance(a, np.ndarray):
                        host.append((t, a))
                if p.role == "in" and t is not None:
                    inputs.append(t)
                values.append(t)
            else:
                values.append(_non_tensor(p, a, cached, temps))
        c, handles, cargs = _c_arguments(spec, values, inputs, made, state)
        if stream is None:
            anchor = next((v for v, p in zip(values, spec.params) if p.kind in _TENSOR_KINDS and v is not None), None)
            stream = (anchor._device_state if anchor is not None else state).get_default_stream()
        st = spec.fused(c, stream._hold_open(), _WAIT if (sync or numpy_mode) else 0, *cargs)
        if st:
            if widened and st in _PARAM_CODES:
                _failed_widened(st, c, spec, made, widened)
            _failed(st, c, spec, handles, made, args)    # returns for a cached Scalar released meanwhile
            made = []
            raise _CachedScalarGone

        results = [values[i] for i, p in enumerate(spec.params) if p.role in ("out", "inout")]
        hosted = {}
        for t, arr in host:                 # in-place on a host array: write the result back
            if arr.flags.writeable:
                np.copyto(arr, t.numpy(), casting="unsafe")
                hosted[id(t)] = arr
        out = [hosted[id(r)] if id(r) in hosted else (r.numpy() if numpy_mode else r) for r in results]
        if not numpy_mode:
            made = []                       # the caller's now
        return out[0] if len(out) == 1 else tuple(out)
    finally:
        for t in made:
            t.close()
        for h in temps:
            h.close()


# --- the generated functions -------------------------------------------------------------------

def _signature_text(spec: OpSpec, for_plan: bool) -> str:
    parts, star = [], False
    seen_default = False
    for p in spec.params:
        if p.role == "out" and not for_plan:
            continue
        if p.role == "out" or p.has_default:
            parts.append(f"{p.name}={p.name}__default" if p.has_default else f"{p.name}=None")
            seen_default = True
        elif seen_default:
            if not star:
                parts.append("*")
                star = True
            parts.append(p.name)
        else:
            parts.append(p.name)
    if not for_plan:
        if not star:
            parts.append("*")
        parts += [f"{p.name}=None" for p in spec.outputs] + ["stream=None", "sync=False"]
    else:
        parts.append("repeatable=False")
    return ", ".join(parts)


def _make_function(spec: OpSpec) -> Callable[..., _Result]:
    """The one-call function of an operator, written out for its parameters so the common call
    (Tensors, float or Scalar scalars, a stream or none) costs a few type checks and one call."""
    names = [p.name for p in spec.params]
    tensors = [p for p in spec.params if p.kind in _TENSOR_KINDS]
    checks = []
    for p in tensors:
        checks.append(f"(type({p.name}) is _T or {p.name} is None)" if p.role == "out"
                      else f"type({p.name}) is _T")
    body = []
    scalar_vars = {}
    values_ok = []
    for p in spec.params:
        if p.kind == "scalar":
            v = f"_s_{p.name}"
            scalar_vars[p.name] = v
            body.append(f"        {v} = _f32({p.name}) if type({p.name}) is float else None")
            body.append(f"        if {v} is None: {v} = _bound({p.name})")
            values_ok.append(f"{v} is not None")
        elif p.kind == "int":
            values_ok.append(f"type({p.name}) is int")
        elif p.kind == "float":
            values_ok.append(f"(type({p.name}) is float or type({p.name}) is int)")
        elif p.kind == "bool":
            values_ok.append(f"type({p.name}) is bool")
    anchor = next((p.name for p in tensors if p.role != "out"), None) or (tensors[0].name if tensors else None)
    fast = spec.fast is not None     # the array-argument call (_fastcall.OpCall): addresses, no cdata
    ref = "_a" if fast else "_o"
    cargs = []
    for p in spec.params:
        if p.kind in _TENSOR_KINDS:
            cargs.append(f"{p.name}.{ref}" if p.role != "out" else f"_o_{p.name}.{ref}")
        elif p.kind == "scalar":
            cargs.append(f"{scalar_vars[p.name]}.{ref}")
        else:
            cargs.append(p.name)
    handle_objs = []
    for p in spec.params:
        if p.kind in _TENSOR_KINDS:
            handle_objs.append(p.name if p.role != "out" else f"_o_{p.name}")
        elif p.kind == "scalar":
            handle_objs.append(scalar_vars[p.name])
    inputs = ", ".join(p.name for p in spec.tensor_inputs)
    lines = [f"def {spec.function_name}({_signature_text(spec, False)}):"]
    if spec.front is not None:          # Tensors, floats or Scalars, a Stream or None: done in C
        first = spec.params[next(i for i, p in enumerate(spec.params) if p.kind in _TENSOR_KINDS and p.role != "out")]
        # outputs left out are made by the front when there is a tensor input to lay them out by
        outs_given = "" if spec.tensor_inputs else "".join(f" and {p.name} is not None" for p in spec.outputs)
        lines.append(f"    if type({first.name}) is _T{outs_given}:")
        lines.append(f"        _r = _front({', '.join(names)}{', ' if names else ''}stream, sync)")
        lines.append("        if _r is not _NO:")
        lines.append("            return _r")
    if anchor is not None:              # the fast path needs a tensor to find the default stream
        cond = " and ".join(checks) or "True"
        lines.append(f"    if {cond}:")
        lines += body
        ok = " and ".join(values_ok + ["(stream is None or type(stream) is _S)"])
        lines.append(f"        if {ok}:")
        lines.append("            if stream is None:")
        lines.append(f"                stream = {anchor}._device_state.get_default_stream()")
        get_c = ["try:", "    c = _tls.c", "except AttributeError:", "    c = _call_buffer()"]
        if not fast:
            lines += ["            " + x for x in get_c]
        made = []
        key = ", ".join(f"{p.name}.shape, {p.name}.dtype" for p in spec.tensor_inputs)
        for p in spec.outputs:
            lines.append(f"            _o_{p.name} = {p.name}")
            lines.append(f"            if _o_{p.name} is None:")
            if fast:
                lines += ["                " + x for x in get_c]
            if spec.tensor_inputs:       # the output's layout from the memo, allocated in C
                lines.append(f"                _lay = _layouts.get(({key},))")
                lines.append("                if _lay is None:")
                lines.append(f"                    _lay = _layout(_SPEC, ({inputs},))")
                lines.append(f"                _ds = {spec.tensor_inputs[0].name}._device_state")
                lines.append("                st = _empty(c, _ds.res._o, _ds.context, _lay[5], _lay[6], _lay[3], "
                             "_lay[4])")
                lines.append("                if st:")
                lines.append("                    _alloc_failed(st, c)")
                lines.append(f"                _o_{p.name} = _made(c, _lay, _ds)")
            else:
                lines.append(f"                _o_{p.name} = _new_out(c, _SPEC, ())")
            made.append(f"_o_{p.name}")
        if fast:
            lines.append(f"            st = _fast(stream._a, _WAIT if sync else 0, {', '.join(cargs)})")
        else:
            lines.append(f"            st = _fused(c, stream._o, _WAIT if sync else 0, {', '.join(cargs)})")
        lines.append("            if st:")
        made_expr = "(" + "".join(f"*(({m},) if {p.name} is None else ()), " for m, p in zip(made, spec.outputs)) + ")"
        lines.append(f"                _failed(st, {'_thread_call()' if fast else 'c'}, _SPEC, "
                     f"({', '.join(handle_objs)},), {made_expr}, ({', '.join(names)},))")
        results = [(p.name if p.role == "inout" else f"_o_{p.name}") for p in spec.results]
        lines.append("            else:")
        lines.append(f"                return {', '.join(results) if results else 'None'}")
    if spec.host is not None and spec.tensor_inputs:
        lines += _host_branch(spec, body, values_ok, scalar_vars)
    lines.append(f"    return _general(_SPEC, ({', '.join(names)}{',' if names else ''}), stream, sync)")
    src = "\n".join(lines) + "\n"
    env = {"_T": Tensor, "_S": Stream, "_f32": lookup_float32, "_bound": _bound, "_tls": _tls,
           "_call_buffer": _call_buffer, "_new_out": _new_out, "_fused": spec.fused, "_WAIT": _WAIT,
           "_fast": spec.fast.call if spec.fast is not None else None, "_thread_call": _thread_call,
           "_front": spec.front, "_NO": _NO,
           "_layouts": _layouts, "_layout": _layout, "_empty": _empty, "_alloc_failed": _alloc_failed,
           "_made": _made,
           "_failed": _failed, "_general": _general, "_SPEC": spec,
           "_nd": np.ndarray, "_hls": spec.host_layouts, "_fb": _fb, "_fbw": _fbw, "_NB": _NOT_BUFFER,
           "_host": spec.host, "_host_stream": default_stream, "_np_empty": _np_empty,
           "_host_failed": _host_failed}
    for p in spec.params:
        if p.has_default:
            env[f"{p.name}__default"] = p.default
    exec(compile(src, f"<pyacl_hardgrad.ops {spec.name}>", "exec"), env)
    fn: Any = env[spec.function_name]
    fn.__module__ = __name__
    fn.__doc__ = _function_doc(spec)
    fn._source = src
    return fn   # type: ignore[no-any-return]  # (the function exec made)


def _host_branch(spec: OpSpec, scalar_body: list[str], values_ok: list[str], scalar_vars: dict[str, str]) -> list[str]:
    """The generated function's branch for host arrays only, when every tensor input is a
    C-contiguous numpy array (writable for in-place ones) of a layout seen before: the buffers go
    straight to the operator's host-array call (one crossing); everything else takes _host_call."""
    ins = [p for p in spec.tensor_params if p.role != "out"]
    names = [p.name for p in spec.params]
    cond = " and ".join([f"type({p.name}) is _nd" for p in ins] + [f"{p.name} is None" for p in spec.outputs])
    key = ", ".join(f"{p.name}.shape, {p.name}.dtype" for p in ins)
    lines = [f"    if {cond}:"] + scalar_body
    ok = " and ".join(values_ok + ["(stream is None or type(stream) is _S)"])
    lines.append(f"        if {ok}:")
    lines.append(f"            _hl = _hls.get(({key},))")
    lines.append("            if _hl is not None:")
    lines.append("                try:")
    for p in ins:
        lines.append(f"                    _d_{p.name} = {'_fbw' if p.role == 'inout' else '_fb'}({p.name})")
    lines.append("                except _NB:")
    lines.append("                    _hl = None")
    lines.append("            if _hl is not None:")
    lines.append("                if stream is None:")
    lines.append("                    stream = _host_stream()")
    for k, p in enumerate(spec.outputs):
        lines.append(f"                _r_{p.name} = _np_empty(_hl[{2 * k + 1}], _hl[{2 * k + 2}])")
    lines.append("                try:")
    lines.append("                    c = _tls.c")
    lines.append("                except AttributeError:")
    lines.append("                    c = _call_buffer()")
    cargs, handles = [], []
    for p in spec.params:
        if p.kind in _TENSOR_KINDS:
            cargs.append(f"_fb(_r_{p.name})" if p.role == "out" else f"_d_{p.name}")
            handles.append(p.name)
        elif p.kind == "scalar":
            cargs.append(f"{scalar_vars[p.name]}._o")
            handles.append(scalar_vars[p.name])
        else:
            cargs.append(p.name)
    lines.append(f"                st = _host(c, stream._o, _hl[0], {', '.join(cargs)})")
    lines.append("                if st:")
    lines.append(f"                    return _host_failed(st, c, _SPEC, ({', '.join(handles)},), "
                 f"({', '.join(names)},), stream)")
    results = [(p.name if p.role == "inout" else f"_r_{p.name}") for p in spec.results]
    lines.append(f"                return {', '.join(results) if results else 'None'}")
    return lines


def _function_doc(spec: OpSpec) -> str:
    head = spec.doc or f"{spec.name} (generic two-phase call)."
    params = ", ".join(f"{p.name} (``{p.ctype}``{', output' if p.role == 'out' else ''}"
                       f"{', in-place' if p.role == 'inout' else ''})" for p in spec.params)
    return (f"{head}\n\n{spec.name}({params}).  Returns the output Tensor(s), enqueued on ``stream`` "
            "(default: the device's default stream) and not waited for unless ``sync``; called with host "
            "arrays only, it waits and returns numpy.  Outputs left out are allocated (broadcast shape, "
            "promoted dtype).")


# --- plans --------------------------------------------------------------------------------------

class Plan(CHandle):
    """Base of the generated plan classes: phase 1 at construction, ``run()`` is phase 2."""

    _spec: OpSpec
    out: Tensor | tuple[Tensor, ...]

    if TYPE_CHECKING:
        # each generated class's constructor (_make_plan_class): the operator's parameters, then
        # ``repeatable``; the stub (_ops_typing.pyi) gives each its own
        def __init__(self, *args: Any, repeatable: bool = False) -> None: ...
    _addressed = True

    def _make(self, args: tuple[Any, ...], repeatable: bool) -> None:
        spec = self._spec
        temps: list[CHandle] = []
        made: list[Tensor] = []
        values: list[Any] = []
        try:
            inputs: list[Any] = []
            for a, p in zip(args, spec.params):
                if p.kind in _TENSOR_KINDS:
                    if not isinstance(a, Tensor) and not (a is None and p.role == "out"):
                        raise TypeError(f"{p.name} must be a Tensor, not {type(a).__name__}")
                    if p.role == "in":
                        inputs.append(a)
                    values.append(a)
                elif p.kind == "scalar":
                    values.append(_as_scalar(a, p.name, temps))
                else:
                    values.append(_as_value(p, a))
            c, handles, cargs = _c_arguments(spec, values, inputs, made)
            st = spec.planner(c, 1 if repeatable else 0, *cargs)
            if st:
                _failed(st, c, spec, handles, made)
            made = []
            self._own(c.made)
            c.made = _NULL
        finally:
            for t in made:
                t.close()
            for s in temps:
                s.close()     # the plan holds its own reference
        self.workspace_size = int(lib.hgb_plan_workspace_size(self._o))
        self.repeatable = bool(repeatable)
        results = [values[i] for i, p in enumerate(spec.params) if p.role in ("out", "inout")]
        self.out = results[0] if len(results) == 1 else tuple(results)
        anchor = next(v for v, p in zip(values, spec.params) if p.kind in _TENSOR_KINDS and v is not None)
        self._state = anchor._device_state
        r = self._runner = _PlanRunner(self._o, self._a, self._live, self._state,
                                       self.out, type(self).__name__, self.workspace_size, _run_general,
                                       _run_failed)
        self.run = r.run            # type: ignore[method-assign]  # phase 2 straight from the call site (_binding_c/fastcall.c)

    @property
    def runs(self) -> int:
        r = self.__dict__.get("_runner")          # absent while phase 1 has not succeeded
        return 0 if r is None else r.runs

    @property
    def consumed(self) -> bool:
        """True for a one-shot plan that has run (it cannot run again)."""
        return not self.repeatable and self.runs > 0

    def run(self, workspace: DeviceMemory | None = None, stream: Stream | None = None, *,
            sync: bool = False) -> Tensor | tuple[Tensor, ...]:
        """Phase 2 on ``stream`` (default: the device's default stream).

        ``workspace`` must hold ``workspace_size`` bytes; when None and the size is not 0 the plan
        uses its own (allocated on the first run that needs it).  The stream holds the plan (and
        the workspace) until its next synchronize(); a repeatable plan run with its own workspace
        is pinned on the stream instead (held until the plan is closed and the stream has
        synchronised since, or the stream is closed), so its later runs there hold nothing.
        Returns ``out``, without waiting unless ``sync`` (then as ``stream.synchronize()``).

        On a made plan, ``plan.run`` is this call implemented in C (the bound ``run`` of its
        PlanRunner, _binding_c/fastcall.c), so a run costs no Python frame; this method forwards to it.
        """
        return self._runner.run(workspace, stream, sync=sync)

    def __repr__(self) -> str:
        state = "closed" if self.closed else ("consumed" if self.consumed else "ready")
        return f"<{type(self).__name__} workspace_size={getattr(self, 'workspace_size', '?')} {state}>"


_plan_run = lib.hgb_plan_run
_plan_run_in = lib.hgb_plan_run_in
_thread_call = lib.hgb_thread_call


def _bad_workspace(workspace: object) -> NoReturn:
    raise TypeError(f"workspace must be a DeviceMemory (device.allocate(n)), not {type(workspace).__name__}")


def _run_general(r: _PlanRunner, workspace: object, stream: object, sync: bool) -> Tensor | tuple[Tensor, ...]:
    """A plan run the C runner does not take itself: a closed plan, a workspace, a stream that
    is not a Stream (or None) -- the checks and errors of Plan.run."""
    if not r.live[0]:
        raise ClosedError(f"{r.name} is closed")
    if stream is None:
        stream = r.state.get_default_stream()
    elif type(stream) is not Stream:
        raise TypeError(f"stream must be a Stream, not {type(stream).__name__}")
    if workspace is None or not r.workspace_size:
        if workspace is not None and not isinstance(workspace, DeviceMemory):
            _bad_workspace(workspace)
        # the wait is part of the call: a small task on an idle stream has run in the launch
        st = _plan_run(r.o, stream._o, _WAIT if sync else 0)
    else:
        if not isinstance(workspace, DeviceMemory):
            _bad_workspace(workspace)
        if workspace.nbytes < r.workspace_size:
            raise ValueError(f"workspace of {workspace.nbytes} bytes, {r.workspace_size} needed")
        st = _plan_run_in(r.o, stream._o, workspace._o, _WAIT if sync else 0)
    if st:
        _run_failed(r, st, stream, workspace)
    r.runs += 1
    return r.out


def _run_failed(r: _PlanRunner, st: int, stream: Stream, workspace: DeviceMemory | None) -> NoReturn:
    """Raise the error of a failed run (status ``st``); a run whose launch went through counts."""
    c = _thread_call()
    if c.wait_failed:
        r.runs += 1     # launched: only the wait failed (the stream keeps what the work uses)
        sync_failed(stream, st)
    if st == _CONSUMED:
        raise PlanConsumedError(f"{r.name} is one-shot and has already run; "
                                "create it with repeatable=True to run it again")
    if st == _CLOSED:
        what = (r.name, "Stream stream", "DeviceMemory workspace")[c.index]
        raise ClosedError(f"{what} of {r.name}.run() is closed")
    raise error_for(st, ffi.string(c.function).decode())


_fastcall.setup(Stream, c_address("hgb_plan_run"), _WAIT)


def _make_plan_class(spec: OpSpec) -> type[Plan]:
    names = [p.name for p in spec.params]
    src = (f"def __init__(_plan, {_signature_text(spec, True)}):\n"
           f"    _plan._make(({', '.join(names)}{',' if names else ''}), repeatable)\n")
    env = {f"{p.name}__default": p.default for p in spec.params if p.has_default}
    exec(compile(src, f"<pyacl_hardgrad.ops {spec.plan_name}>", "exec"), env)
    doc = (f"Phase 1 of {spec.name}({', '.join(p.name for p in spec.params)}): ``workspace_size``, an "
           "executor and ``out`` (allocated when None).  ``repeatable=True`` calls "
           "aclSetAclOpExecutorRepeatable so ``run()`` may be repeated.")
    cls = type(spec.plan_name, (Plan,), {"__init__": env["__init__"], "_spec": spec, "__doc__": doc,
                                         "__module__": __name__})
    return cls


# --- the operator table -------------------------------------------------------------------------

_specs: dict[str, OpSpec] = {}
_unsupported: dict[str, str] = {}
_keep_names: list[CData] = []          # C strings the handle layer keeps pointers to (ABI-mode operators)


def _entries(table: dict[str, Any]) -> dict[str, dict[str, Any]]:
    entries: dict[str, dict[str, Any]] = {}            # the optional op.json entries of the operator folders
    for name, e in table.get("entries", {}).items():
        entries.setdefault(name, {}).update(e)
    return entries


def _abi_entry_points(desc: dict[str, Any], ffi2: Any, lib2: Any) -> tuple[_Entry, _Entry]:
    """The fused call and plan constructor of an operator declared at run time (ABI mode): the
    same generic steps as the generated ones, through hgb_begin / hgb_finish."""
    name, params = desc["name"], desc["params"]
    phase1 = getattr(lib2, name + "GetWorkspaceSize")
    phase2 = ffi.cast("hgb_phase2_fn", int(ffi2.cast("uintptr_t", ffi2.addressof(lib2, name))))
    n1 = ffi.new("char[]", (name + "GetWorkspaceSize").encode())
    n2 = ffi.new("char[]", name.encode())
    _keep_names.extend((n1, n2, phase2))
    kinds = [p["kind"] for p in params]

    def prepare(c: _Call, args: tuple[Any, ...]) -> tuple[CData, int, list[Any]]:
        objs = [a for a, k in zip(args, kinds) if k in _HANDLE_KINDS]
        arr = ffi.new("hgb_obj *[]", max(len(objs), 1))
        for i, o in enumerate(objs):
            arr[i] = o
        cargs: list[Any] = []
        for a, k in zip(args, kinds):
            if k in _HANDLE_KINDS:
                cargs.append(0 if a == _NULL else int(ffi.cast("uintptr_t", lib.hgb_obj_handle(a))))
            else:
                cargs.append(a)
        ws = int(ffi.cast("uintptr_t", ffi.addressof(c, "workspace_size")))
        ex = int(ffi.cast("uintptr_t", ffi.addressof(c, "executor")))
        return arr, len(objs), cargs + [ws, ex]

    def fused(c: _Call, stream: CData, flags: int, *args: Any) -> int:
        arr, n, cargs = prepare(c, args)
        st: int = lib.hgb_begin(c, stream, arr, n)
        if st:
            return st
        st = phase1(*cargs)
        return int(lib.hgb_finish(c, st, arr, n, stream, flags, phase2, n1, n2))

    def planner(c: _Call, repeatable: int, *args: Any) -> int:
        arr, n, cargs = prepare(c, args)
        st: int = lib.hgb_begin(c, _NULL, arr, n)
        if st:
            return st
        st = phase1(*cargs)
        return int(lib.hgb_plan_finish(c, st, arr, n, repeatable, phase2, n1, n2))

    return fused, planner


def _abi_value_type(ctype: str) -> str:
    t = " ".join(ctype.replace("const ", "").split())
    return "_Bool" if t == "bool" else t


def _abi_declarations(ops: list[dict[str, Any]]) -> str:
    out = ["typedef int aclDataType; typedef int aclFormat;\n"]
    for op in ops:
        ps = ", ".join("uintptr_t" if p["kind"] in _HANDLE_KINDS else _abi_value_type(p["type"])
                       for p in op["params"])
        out.append(f"int32_t {op['name']}GetWorkspaceSize({ps}{', ' if ps else ''}uintptr_t, uintptr_t);\n")
        out.append(f"int32_t {op['name']}(uintptr_t, uint64_t, uintptr_t, uintptr_t);\n")
    return "".join(out)


def _cann_include_dirs() -> list[Path]:
    from pathlib import Path
    import platform
    root = BACKEND.root
    if not root:
        return []
    m = platform.machine().lower()
    arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(m, m) + "-linux"
    dirs = [Path(root) / "include" / "aclnnop", Path(root) / arch / "include" / "aclnnop"]
    return [d for d in dirs if d.is_dir()]


def _discover_cann(known: set[str], entries: dict[str, dict[str, Any]]) -> None:
    """Operators of the installed CANN's headers that the binding was not compiled with."""
    from pathlib import Path
    import cffi
    headers = [h for d in _cann_include_dirs() for h in sorted(d.rglob("*.h"))]
    if not headers:
        return
    found, skipped = _signatures.read_headers(headers)
    _unsupported.update({k: v for k, v in skipped.items() if k not in known})
    new = [op for op in found if op["name"] not in known]
    if not new:
        return
    libdir = Path(BACKEND.library_files[-1]).parent
    candidates = [Path(BACKEND.library_files[-1])] + sorted(p for p in libdir.glob("libopapi*.so")
                                                            if str(p) != BACKEND.library_files[-1])
    ffi2 = cffi.FFI()          # one set of declarations, opened from each library in turn
    try:
        ffi2.cdef(_abi_declarations(new))
    except cffi.CDefError as exc:
        for op in new:
            _unsupported.setdefault(op["name"], f"cannot declare it at run time: {exc}")
        return
    opened = []
    for path in candidates:
        try:
            opened.append((ffi2.dlopen(str(path)), str(path)))
        except OSError as exc:
            _unsupported[f"({path.name})"] = f"cannot be opened: {exc}"
    for op in new:
        for lib2, file in opened:
            try:
                getattr(lib2, op["name"] + "GetWorkspaceSize")
                getattr(lib2, op["name"])
            except AttributeError:
                continue
            fused, planner = _abi_entry_points(op, ffi2, lib2)
            _register(op, entries.get(op["name"], {}), fused, planner, file, _abi_host(fused, op["params"]))
            break
        else:
            _unsupported[op["name"]] = "declared in the CANN headers but exported by no libopapi*.so of the toolkit"


def _arg_code(p: Param) -> str:
    """p's code for _fastcall.OpCall: a handle, a float, a bool, or an integer of its C type's
    size and signedness (struct's letters)."""
    if p.kind in _HANDLE_KINDS:
        return "P"
    if p.kind == "float":
        return "d"
    if p.kind == "bool":
        return "?"
    size = ffi.sizeof(p.ctype)
    code = {1: "b", 2: "h", 4: "i", 8: "q"}[size]
    if p.ctype.replace(" ", "") == "char":    # cffi reads char as a byte; C's signedness is the ABI's
        return "B" if platform.machine().startswith(("aarch64", "arm")) else "b"
    signed = int(ffi.cast("long long", ffi.cast(p.ctype, -1)) if size < 8 else ffi.cast(p.ctype, -1)) < 0
    return code if signed else code.upper()


_NO = object()      # what OpCall.front returns for a call it leaves to the Python path
_ROLES = {"in": "t", "inout": "x", "out": "o"}


def _op_call(spec: OpSpec) -> _fastcall.OpCall:
    """The array-argument fused call of a binding operator (hgb_callv_<name>) and, for an operator
    with a tensor input, its front: the one-call's common case done in C (see _make_function)."""
    address = c_address(f"hgb_callv_{spec.name}")
    op = _fastcall.OpCall(address, "".join(_arg_code(p) for p in spec.params),
                          tuple(p.name for p in spec.params), spec.function_name, cname=f"hgb_callv_{spec.name}")
    anchor = next((i for i, p in enumerate(spec.params) if p.kind in _TENSOR_KINDS and p.role != "out"), None)
    if anchor is not None:
        roles = "".join(_ROLES[p.role] if p.kind in _TENSOR_KINDS else "s" if p.kind == "scalar" else "v"
                        for p in spec.params)
        results = tuple(spec.params.index(p) for p in spec.results)

        def failed(st: int, handles: tuple[Any, ...], args: tuple[Any, ...], made: tuple[Tensor, ...]) -> object:
            _failed(st, _thread_call(), spec, handles, made, args)
            return _NO                  # a cached Scalar was released meanwhile: the Python path

        inputs = tuple(spec.params.index(p) for p in spec.tensor_inputs)
        if inputs:                      # outputs left out are made in C, laid out by _layout
            def layout(*tensors: Tensor) -> _Layout:
                return _layout(spec, tensors)
            op.set_front(roles, anchor, results, Tensor, Scalar, _float32_cache, failed, _NO, layout, inputs)
        else:
            op.set_front(roles, anchor, results, Tensor, Scalar, _float32_cache, failed, _NO)
        spec.front = op.front
    return op


def _register(desc: dict[str, Any], entry: dict[str, Any], fused: _Entry, planner: _Entry, source: str,
              host: _Entry | None = None) -> None:
    spec = OpSpec(desc, entry, fused, planner, source, host)
    if source == "binding":
        spec.fast = _op_call(spec)
    _specs[spec.name] = spec
    fn = _make_function(spec)
    plan = _make_plan_class(spec)
    spec.function, spec.plan = fn, plan
    globals()[spec.function_name] = fn
    globals()[spec.plan_name] = plan
    __all__.extend((spec.function_name, spec.plan_name))
    alias = entry.get("result_dtype_alias")
    if alias:                       # an older name of result_dtype kept by an op.json entry
        globals()[alias] = _result_dtype_alias(alias, spec.name)
        __all__.append(alias)


def _result_dtype_alias(alias: str, op: str) -> Callable[..., np.dtype[Any]]:
    def fn(*dtypes: DTypeLike) -> np.dtype[Any]:
        return result_dtype(*dtypes)
    fn.__name__ = fn.__qualname__ = alias
    fn.__doc__ = f"The default out dtype of {op} (an older name of :func:`result_dtype`, kept by its op.json)."
    return fn


def _build() -> None:
    import json
    table = json.loads(ffi.string(lib.hgb_operator_table()).decode())
    entries = _entries(table)
    _unsupported.update(table.get("skipped", {}))
    for desc in table["operators"]:
        name = desc["name"]
        _register(desc, entries.get(name, {}), getattr(lib, f"hgb_call_{name}"), getattr(lib, f"hgb_plan_{name}"),
                  "binding", getattr(lib, f"hgb_host_{name}"))
    if BACKEND.name == "cann":
        _discover_cann(set(_specs), entries)


def operators() -> dict[str, OpSpec]:
    """Every operator offered, by aclnn name (``spec.function``, ``spec.plan``, ``spec.params``)."""
    return dict(_specs)


def unsupported() -> dict[str, str]:
    """Operators found in headers but not offered, with the reason."""
    return dict(_unsupported)


_build()
