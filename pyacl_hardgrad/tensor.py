"""Tensor: an aclTensor (shape, strides, offset in elements) over device memory.

A Tensor owns its aclTensor (created once, reused by every operator call) and keeps its
memory alive: either memory it allocated, the memory of the tensor it is a view of, or
an ``owner`` object handed to ``from_device_pointer`` (a foreign pointer is not freed).
"""
from __future__ import annotations

import functools
import operator
from typing import TYPE_CHECKING, Any, Iterable, Sequence, SupportsIndex, TypeVar, Union, overload

import numpy as np

from . import _args, _fastcall, _lifetime
from ._binding import c_address, ffi, lib
from ._lifetime import CHandle, Handle, _Res, hold
from .device import Device, _default_state, _state_of, default_device
from .dtypes import to_acl, to_numpy_dtype
from .errors import AclnnParamError, ClosedError, check, recent_error_message
from .memory import DeviceMemory, _calls, _Hold, allocation_failed, call_buffer

if TYPE_CHECKING:
    from types import EllipsisType

    import numpy.typing as npt
    from typing_extensions import Self

    from ._types import CData, DTypeLike, ShapeLike
    from .device import _DeviceState

    # (shape, strides, dtype, aclDataType, itemsize, ndim, dims as int64_t[]): an output's layout
    # (ops._layout); a new tensor's (_new_layout) adds its nbytes
    _Layout = tuple[tuple[int, ...], tuple[int, ...], np.dtype[Any], int, int, int, CData]
    _NewLayout = tuple[tuple[int, ...], tuple[int, ...], np.dtype[Any], int, int, int, CData, int]
    _Index = Union[SupportsIndex, slice, EllipsisType]

_TT = TypeVar("_TT", bound="Tensor")
__all__ = ["Tensor", "empty", "zeros", "from_numpy"]


def _address(name: str) -> int:
    return c_address(name)


_fastcall.set_tensor_calls(_address("hgb_tensor_empty"), _address("hgb_thread_call"),
                           _address("hgb_obj_forget"), _address("hgb_obj_close"),
                           ffi.offsetof("hgb_call", "made"), ffi.offsetof("hgb_call", "data"))
_make = _fastcall.make
_thread_call = lib.hgb_thread_call          # where _make's failed allocation names its function

_AxisError: type[Exception] = getattr(getattr(np, "exceptions", np), "AxisError", None) or np.AxisError  # type: ignore[attr-defined]
_FORMAT_ND = lib.ACL_FORMAT_ND
_KIND_TENSOR = lib.HGB_KIND_TENSOR
_wait_for = lib.hgb_tensor_wait
_D2H = lib.ACL_MEMCPY_DEVICE_TO_HOST
_H2D = lib.ACL_MEMCPY_HOST_TO_DEVICE
_tensor_empty = lib.hgb_tensor_empty


def _row_major(shape: Sequence[int]) -> tuple[int, ...]:
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(int(n), 1)
    return tuple(reversed(strides))


def _numel(shape: Iterable[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _extent(shape: Sequence[int], strides: Sequence[int], offset: int) -> tuple[int, int]:
    """(lowest, highest) element index a non-empty view touches."""
    lo = hi = offset
    for n, s in zip(shape, strides):
        if s >= 0:
            hi += (n - 1) * s
        else:
            lo += (n - 1) * s
    return lo, hi


def _check_shape(shape: ShapeLike, name: str = "shape") -> tuple[int, ...]:
    """A shape as a tuple of dims, each in [0, 2**63 - 1] (aclCreateTensor takes int64)."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    return _args.integers(shape, name, 0, _args.INT64_MAX)


def _check_strides(strides: Sequence[SupportsIndex], ndim: int) -> tuple[int, ...]:
    strides = _args.integers(strides, "strides", -_args.INT64_MAX, _args.INT64_MAX)
    if len(strides) != ndim:
        raise ValueError(f"strides has {len(strides)} entries for {ndim} dimensions")
    return strides


def _check_nbytes(shape: tuple[int, ...], npdt: np.dtype[Any]) -> int:
    n = _numel(shape) * npdt.itemsize
    if n > _args.INT64_MAX:
        raise ValueError(f"shape {shape} of {npdt} needs {n} bytes, more than any device can hold (2**63 - 1)")
    return n


def _check_extent(shape: tuple[int, ...], strides: tuple[int, ...], offset: int, npdt: np.dtype[Any]) -> None:
    """The view's byte span must be addressable (no int64 overflow of index * itemsize)."""
    if _numel(shape):
        lo, hi = _extent(shape, strides, offset)
        if max(abs(lo), abs(hi)) * npdt.itemsize > _args.INT64_MAX:
            raise ValueError(f"view (shape={shape}, strides={strides}, offset={offset}) spans more than "
                             "2**63 - 1 bytes")


def _check_registered(ptr: int, first: int, end: int, device_id: int) -> None:
    """Where the runtime has an allocation registry (the embedded one, also under CANN's file
    names), a foreign view's bytes [ptr + first, ptr + end) must lie in one live device
    allocation of ``device_id``; a real CANN install cannot be asked."""
    info: Any = ffi.new("hgAllocation *")      # (a struct: its fields are the C ones)
    if lib.hgQueryAllocation(ffi.cast("void *", ptr + first), info):
        return                       # no registry to ask (a real CANN install lacks the call)
    where = f"the view's first element at 0x{ptr + first:x}"
    if info.kind == lib.HG_MEMORY_UNKNOWN:
        raise ValueError(f"{where} is in no live device allocation (aclrtMalloc) of the embedded runtime")
    if info.kind == lib.HG_MEMORY_HOST:
        raise ValueError(f"{where} is in host memory (aclrtMallocHost at 0x{info.base:x}), not device memory")
    if ptr + end > info.base + info.size:
        raise ValueError(f"the view [0x{ptr + first:x}, 0x{ptr + end:x}) reaches {ptr + end - info.base - info.size} "
                         f"bytes past the end of its {info.size}-byte allocation at 0x{info.base:x}")
    if info.deviceId != device_id:
        raise ValueError(f"{where} is memory of device {info.deviceId}, but the tensor is for device {device_id}")


def _foreign_owner(obj: object) -> _Res:
    """Keeps the owner object of a foreign pointer alive as long as tensors use it."""
    box = [obj]
    return _Res("foreign memory", box.clear)


class Tensor(_fastcall.TensorBase, CHandle):
    """Device tensor.  Build one with :func:`from_numpy` / ``Tensor(array)``, :func:`empty`,
    :func:`zeros`, a view of another tensor, or :meth:`from_device_pointer`."""

    __array_priority__ = 100

    def __init__(self, array: npt.ArrayLike, device: Device | _DeviceState | None = None,
                 dtype: DTypeLike | None = None) -> None:
        """Copy a host array (anything numpy accepts) to a new tensor on ``device``."""
        arr = np.asarray(array)
        if dtype is not None:
            arr = arr.astype(to_numpy_dtype(dtype), copy=False)
        if not arr.flags.c_contiguous:
            arr = arr.copy(order="C")     # (np.ascontiguousarray would turn 0-d into 1-d)
        _allocated(self, _new_layout(arr.shape, arr.dtype), device)
        if arr.nbytes:
            try:
                buf = ffi.from_buffer(_bytes_of(arr))
                _check_copy(lib.aclrtMemcpy(self._data, arr.nbytes, buf, arr.nbytes, _H2D))
            except BaseException:
                self.close()
                raise

    # -- construction helpers -------------------------------------------------------------
    def _init(self, dep: CData, data: CData, state: _DeviceState, shape: tuple[int, ...],
              strides: tuple[int, ...], offset: int, npdtype: np.dtype[Any],
              storage: tuple[int, ...], memory: DeviceMemory | None) -> None:
        """Create the aclTensor; takes ownership of ``dep`` (a reference to the memory, the base
        tensor or the owner it views; released on failure)."""
        try:
            shape = tuple(operator.index(d) for d in shape)
            strides = tuple(operator.index(s) for s in strides)
            storage = tuple(operator.index(d) for d in storage)
            ndim = len(shape)
            if len(strides) != ndim:
                raise ValueError(f"{len(strides)} strides for {ndim} dimensions")
            self.shape, self.strides, self.offset = shape, strides, int(offset)
            self.dtype = npdtype
            acl_dtype = to_acl(npdtype)
            self._storage = storage
            self._data = data
            self._memory = memory
            self._device_state = state
            dims = ffi.new("int64_t[]", shape) if ndim else ffi.NULL
            st = ffi.new("int64_t[]", strides) if ndim else ffi.NULL
            sto = ffi.new("int64_t[]", storage) if storage else ffi.NULL
            handle = lib.aclCreateTensor(dims, ndim, acl_dtype, st, self.offset, _FORMAT_ND,
                                         sto, len(storage), data)
            if handle == ffi.NULL:
                raise AclnnParamError(lib.ACLNN_ERR_PARAM_INVALID, "aclCreateTensor",
                                      recent_error_message() or "aclCreateTensor returned NULL")
        except BaseException:
            lib.hgb_obj_release(dep)
            raise
        self._handle = handle
        self._own(lib.hgb_obj_new(_KIND_TENSOR, handle, 0, [dep], 1, 1))

    # The handle-layer object is owned by the C base (_fastcall.TensorBase, field ``_a``): its
    # deallocation lets go of it, so no finalizer runs in Python and no ffi.gc wrapper is made.
    # ``_o`` is that object as a cdata, for the calls through cffi.
    _bare = True
    _addressed = True             # ``_own`` sets ``_a`` (the C base takes the reference)

    @functools.cached_property
    def _o(self) -> CData | None:  # type: ignore[override]  # (computed once, then an attribute)
        return ffi.cast("hgb_obj *", self._a) if self._a else None

    @functools.cached_property
    def _data(self) -> CData:
        """The device address of a tensor _fastcall.make made (the others set theirs)."""
        return ffi.cast("void *", self._d)

    def __copy__(self) -> "Tensor":
        """``copy.copy``: a new tensor handle (a view) over the same memory, closed on its own."""
        return self.view(self.shape, self.strides, self.offset)

    @classmethod
    def _new(cls, *args: Any) -> Self:
        t = cls.__new__(cls)
        t._init(*args)
        return t

    @classmethod
    def empty(cls, shape: ShapeLike, dtype: DTypeLike = "float32", device: Device | _DeviceState | None = None) -> Self:
        """Uninitialised row-major tensor (its memory from the caching allocator)."""
        return _made_empty(cls, _new_layout(shape, dtype), device)

    @classmethod
    def zeros(cls, shape: ShapeLike, dtype: DTypeLike = "float32", device: Device | _DeviceState | None = None) -> Self:
        lay = _new_layout(shape, dtype)
        t = _made_empty(cls, lay, device)
        nbytes = lay[7]
        if nbytes:
            try:
                st = lib.aclrtMemset(t._data, nbytes, 0, nbytes)
                if st:
                    check(st, "aclrtMemset")
            except BaseException:
                t.close()
                raise
        return t

    @classmethod
    def from_device_pointer(cls, ptr: int, shape: ShapeLike, dtype: DTypeLike = "float32",
                            strides: Sequence[SupportsIndex] | None = None, offset: int = 0,
                            owner: object = None, device: Device | _DeviceState | None = None) -> Self:
        """Wrap device memory this package does not own (an int address, as pyACL hands out).

        The memory is never freed by the tensor; ``owner`` (any object, e.g. the allocation)
        is kept alive as long as the tensor or its views are.  ``device`` (a Device) gives the
        default stream for operators; by default the owner's device, else device 0.
        """
        from .device import _state_of
        shape = _check_shape(shape)
        strides = _row_major(shape) if strides is None else _check_strides(strides, len(shape))
        npdt = to_numpy_dtype(dtype)
        ptr = _args.integer(ptr, "ptr", 0, _args.UINT64_MAX)
        offset = _args.integer(offset, "offset", 0, _args.INT64_MAX)
        _check_extent(shape, strides, offset, npdt)
        if ptr % npdt.itemsize:
            raise ValueError(f"ptr 0x{ptr:x} is not aligned to the {npdt.itemsize}-byte elements of {npdt}")
        if device is None and isinstance(owner, (DeviceMemory, Tensor)):
            state = owner._device_state
        else:
            state = _state_of(device)
        if _numel(shape) == 0:
            storage = (0,)
        else:
            lo, hi = _extent(shape, strides, offset)
            if lo < 0:
                raise ValueError("the view reaches below the pointer (negative element index)")
            if ptr + (hi + 1) * npdt.itemsize > _args.UINT64_MAX + 1:
                raise ValueError(f"view (shape={shape}, strides={strides}, offset={offset}) at ptr 0x{ptr:x} "
                                 "reaches past the end of the address space")
            storage = (hi + 1,)
            # An owner whose allocation the pointer lies in bounds the view: past its end the
            # operators would write into someone else's memory.
            mem = owner if isinstance(owner, DeviceMemory) else owner.memory if isinstance(owner, Tensor) else None
            if isinstance(mem, DeviceMemory):
                base = mem._addr
                if base <= ptr <= base + mem.nbytes and ptr + (hi + 1) * npdt.itemsize > base + mem.nbytes:
                    raise ValueError(f"view (shape={shape}, strides={strides}, offset={offset}) at byte "
                                     f"{ptr - base} of the owner's {mem.nbytes}-byte allocation reaches past its end")
            _check_registered(ptr, lo * npdt.itemsize, (hi + 1) * npdt.itemsize, state.id)
        dep = hold(owner) if isinstance(owner, Handle) else _foreign_owner(owner)._o
        return cls._new(dep, ffi.cast("void *", ptr), state, shape, strides, offset, npdt, storage,
                        owner if isinstance(owner, DeviceMemory) else None)

    _memory: DeviceMemory | None = None
    _owns_memory = False          # _memory is a handle this tensor made (closed with it)

    @functools.cached_property
    def _handle(self) -> CData:  # type: ignore[override]  # (computed once, then an attribute)
        """The aclTensor of a tensor the handle layer made, read when first asked for (most
        never are); other tensors set theirs in ``_init``."""
        handle: CData = lib.hgb_obj_handle(self._o)
        return handle

    @property
    def _acl_dtype(self) -> int:
        return to_acl(self.dtype)

    # close(): _fastcall.TensorBase's (the open flag, the reference, an owned memory handle)
    close = _fastcall.TensorBase.close

    def _hold(self) -> CData:
        """A new reference to the open tensor (the caller releases it or hands it on)."""
        if not self._a or not lib.hgb_obj_hold(self._o):
            raise ClosedError(f"{type(self).__name__} is closed")
        return self._o      # type: ignore[return-value]  # (open: ``_a`` is set)

    @property
    def _refs(self) -> int:
        return lib.hgb_obj_refs(self._o) if self._a else 0

    # -- properties --------------------------------------------------------------------------
    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return _numel(self.shape)

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def data_ptr(self) -> int:
        """Address of the element at the view's offset."""
        self._check_open()
        return int(ffi.cast("uintptr_t", self._data)) + self.offset * self.dtype.itemsize

    @property
    def memory(self) -> DeviceMemory | None:
        """The DeviceMemory backing this tensor (None for a foreign pointer)."""
        if self._memory is None and self._a:
            o = lib.hgb_obj_storage(self._o)        # e.g. memory an operator allocated for its output
            if o != ffi.NULL and lib.hgb_obj_kind(o) == lib.HGB_KIND_MEMORY:
                self._memory = DeviceMemory._wrap(o, _numel(self._storage) * self.dtype.itemsize, self._device_state)
                self._owns_memory = self._memory is not None
            elif o != ffi.NULL:
                lib.hgb_obj_release(o)
        return self._memory

    @property
    def device_id(self) -> int:
        return self._device_state.id

    def is_contiguous(self) -> bool:
        return self.size <= 1 or all(s == r for n, s, r in zip(self.shape, self.strides, _row_major(self.shape))
                                     if n != 1)

    # -- views --------------------------------------------------------------------------------
    def view(self, shape: ShapeLike, strides: Sequence[SupportsIndex] | None = None,
             offset: int | None = None) -> "Tensor":
        """A view over the same memory; strides and offset in elements (offset counts from the
        start of the storage, like aclCreateTensor's)."""
        self._check_open()
        shape = _check_shape(shape)
        strides = _row_major(shape) if strides is None else _check_strides(strides, len(shape))
        offset = self.offset if offset is None else _args.integer(offset, "offset", 0, _args.INT64_MAX)
        _check_extent(shape, strides, offset, self.dtype)
        if _numel(shape):
            lo, hi = _extent(shape, strides, offset)
            if lo < 0 or hi >= _numel(self._storage):
                raise ValueError(f"view (shape={shape}, strides={strides}, offset={offset}) does not fit in the "
                                 f"storage of {_numel(self._storage)} elements")
        return Tensor._new(self._hold(), self._data, self._device_state, shape, strides, offset,
                           self.dtype, self._storage, self.memory)

    @overload
    def reshape(self, shape: Sequence[SupportsIndex], /) -> "Tensor": ...
    @overload
    def reshape(self, *shape: SupportsIndex) -> "Tensor": ...
    def reshape(self, *shape: Any) -> "Tensor":
        """A contiguous tensor's view with another shape (-1 allowed once)."""
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = tuple(shape[0])
        dims = list(shape)
        if dims.count(-1) == 1:
            known = _numel([d for d in dims if d != -1])
            dims[dims.index(-1)] = self.size // known if known else 0
        if _numel(dims) != self.size:
            raise ValueError(f"cannot reshape {self.shape} to {tuple(dims)}")
        if not self.is_contiguous():
            raise ValueError("reshape needs a contiguous tensor")
        return self.view(tuple(dims), None, self.offset)

    @overload
    def transpose(self, axes: Sequence[SupportsIndex], /) -> "Tensor": ...
    @overload
    def transpose(self, *axes: SupportsIndex) -> "Tensor": ...
    def transpose(self, *axes: Any) -> "Tensor":
        """Permuted view (reversed axes by default), like numpy.transpose."""
        if len(axes) == 1 and not isinstance(axes[0], int):
            axes = tuple(axes[0])
        if not axes:
            axes = tuple(reversed(range(self.ndim)))
        axes = _args.integers(axes, "axes")
        for a in axes:
            if not -self.ndim <= a < self.ndim:
                raise _AxisError(f"axis {a} is out of bounds for a tensor of dimension {self.ndim}")
        axes = tuple(a % self.ndim for a in axes)
        if sorted(axes) != list(range(self.ndim)):
            raise ValueError(f"axes {axes} are not a permutation of {self.ndim} dimensions")
        return self.view(tuple(self.shape[a] for a in axes), tuple(self.strides[a] for a in axes), self.offset)

    @property
    def T(self) -> "Tensor":
        return self.transpose()

    def __getitem__(self, key: _Index | tuple[_Index, ...]) -> "Tensor":
        """Basic indexing: integers, slices (positive steps) and one Ellipsis give a view."""
        if not isinstance(key, tuple):
            key = (key,)
        if key.count(Ellipsis) > 1:
            raise IndexError("only one Ellipsis allowed")
        if Ellipsis in key:
            i = key.index(Ellipsis)
            fill = self.ndim - (len(key) - 1)
            key = key[:i] + (slice(None),) * fill + key[i + 1:]
        if len(key) > self.ndim:
            raise IndexError(f"too many indices for a {self.ndim}-d tensor")
        shape, strides, offset = [], [], self.offset
        for dim, k in enumerate(key + (slice(None),) * (self.ndim - len(key))):
            n, s = self.shape[dim], self.strides[dim]
            if isinstance(k, slice):
                start, stop, step = k.indices(n)
                if step <= 0:
                    raise IndexError("only positive slice steps are supported")
                count = max(0, (stop - start + step - 1) // step)
                if count:
                    offset += start * s
                shape.append(count)
                strides.append(s * step)
            else:
                i = operator.index(k)   # type: ignore[arg-type]  # (the Ellipsis was expanded above)
                if not -n <= i < n:
                    raise IndexError(f"index {i} out of range for dimension {dim} of size {n}")
                offset += (i % n) * s
        return self.view(tuple(shape), tuple(strides), offset)

    # -- host copies --------------------------------------------------------------------------
    def _wait(self) -> None:
        """Wait for the stream that last used this tensor's storage (any view of it)."""
        st = _wait_for(self._o)
        if st:
            check(st, "aclrtSynchronizeStream")

    def _host_window(self) -> tuple[int, int]:
        """(first element index, element count) of the storage span the view touches."""
        if self.size == 0:
            return 0, 0
        lo, hi = _extent(self.shape, self.strides, self.offset)
        return lo, hi - lo + 1

    def numpy(self) -> np.ndarray[Any, Any]:
        """Copy the view to a new host array (after the tensor's pending work finished)."""
        with _Hold(self):
            self._wait()
            return self._numpy()

    def _numpy(self) -> np.ndarray[Any, Any]:
        out = np.empty(self.shape, self.dtype)
        if self.size == 0:
            return out
        item = self.dtype.itemsize
        src = ffi.cast("char *", self._data)
        if self.is_contiguous():
            buf = ffi.from_buffer(_bytes_of(out), require_writable=True)
            _check_copy(lib.aclrtMemcpy(buf, out.nbytes, src + self.offset * item, out.nbytes, _D2H))
            return out
        lo, count = self._host_window()
        window = np.empty(count, self.dtype)
        buf = ffi.from_buffer(_bytes_of(window), require_writable=True)
        _check_copy(lib.aclrtMemcpy(buf, window.nbytes, src + lo * item, window.nbytes, _D2H))
        view = np.lib.stride_tricks.as_strided(window[self.offset - lo:], self.shape,
                                               tuple(s * item for s in self.strides))
        out[...] = view
        return out

    def copy_from(self, array: npt.ArrayLike) -> "Tensor":
        """Write a host array (broadcast to the view's shape) into the view."""
        self._check_open()
        arr = _host_array(array, self.dtype, self.shape)
        with _Hold(self):
            self._wait()
            return self._copy_from(arr)

    def _copy_from(self, arr: np.ndarray[Any, Any]) -> "Tensor":
        if self.size == 0:
            return self
        item = self.dtype.itemsize
        dst = ffi.cast("char *", self._data)
        if self.is_contiguous():
            arr = arr.copy(order="C")
            _check_copy(lib.aclrtMemcpy(dst + self.offset * item, arr.nbytes, ffi.from_buffer(_bytes_of(arr)),
                                        arr.nbytes, _H2D))
            return self
        lo, count = self._host_window()
        window = np.empty(count, self.dtype)
        wbuf = ffi.from_buffer(_bytes_of(window), require_writable=True)
        _check_copy(lib.aclrtMemcpy(wbuf, window.nbytes, dst + lo * item, window.nbytes, _D2H))
        np.lib.stride_tricks.as_strided(window[self.offset - lo:], self.shape,
                                        tuple(s * item for s in self.strides))[...] = arr
        _check_copy(lib.aclrtMemcpy(dst + lo * item, window.nbytes, wbuf, window.nbytes, _H2D))
        return self

    def __array__(self, dtype: object = None,
                  copy: bool | None = None) -> np.ndarray[tuple[int, ...], np.dtype[np.generic]]:
        """``np.asarray(t)``: NumPy 2's copy rules.  On the embedded runtime a view of the tensor's
        memory (after its pending work), kept alive by the array; ``copy=True`` (``np.array(t)``)
        or a dtype conversion copies; ``copy=False`` raises ValueError when a copy is needed (a
        conversion; NPU memory with a CANN backend).  See ``_dlpack.to_array``."""
        from ._dlpack import to_array
        return to_array(self, dtype, copy)

    def __dlpack__(self, *, stream: object = None, max_version: tuple[int, int] | None = None,
                   dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> object:
        """A DLPack capsule over the tensor's memory (``torch.from_dlpack(t)``,
        ``np.from_dlpack(t)``), holding it until the consumer lets go; see ``_dlpack.export``."""
        from ._dlpack import export
        return export(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self) -> tuple[int, int]:
        """(kDLCPU, 0) on the embedded runtime (device memory is host memory); (kDLExtDev, id)
        on an NPU."""
        from ._dlpack import dlpack_device
        return dlpack_device(self)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __repr__(self) -> str:
        if self.closed:
            return "<Tensor closed>"
        return (f"<Tensor shape={self.shape} dtype={self.dtype} strides={self.strides} offset={self.offset} "
                f"device={self.device_id}>")


def _host_array(array: npt.ArrayLike, dtype: np.dtype[Any], shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    """``array`` converted to ``dtype`` and broadcast to ``shape``, or TypeError/ValueError
    naming the rule (numpy's OverflowError for out-of-range values included)."""
    if array is None or isinstance(array, (str, bytes)):
        raise TypeError(f"array must be a number or an array of numbers, got {type(array).__name__}")
    try:
        arr = np.asarray(array, dtype=dtype)
    except OverflowError as exc:
        raise ValueError(f"array holds a value that {dtype} cannot represent ({exc})") from None
    except (TypeError, ValueError) as exc:
        raise TypeError(f"array cannot be converted to {dtype}: {exc}") from None
    try:
        return np.broadcast_to(arr, shape)
    except ValueError:
        raise ValueError(f"array of shape {arr.shape} cannot be broadcast to the view's shape {shape}") from None


@overload
def made_tensor(call: Any, layout: _Layout | _NewLayout, state: _DeviceState, t: None = None) -> Tensor: ...
@overload
def made_tensor(call: Any, layout: _Layout | _NewLayout, state: _DeviceState, t: _TT) -> _TT: ...
def made_tensor(call: Any, layout: _Layout | _NewLayout, state: _DeviceState, t: Tensor | None = None) -> Tensor:
    """The handle of a row-major tensor the handle layer just made (hgb_tensor_empty into
    ``call``); ``layout`` = (shape, strides, dtype, ...); ``t``: an instance to fill (default: a
    new Tensor)."""
    if t is None:
        t = _new_tensor(Tensor)
    try:
        t._a = call.address         # the C base owns the reference from here
    except AttributeError:          # __init__ called again on a made tensor: it keeps its object
        lib.hgb_obj_forget(call.made)
        raise TypeError("a Tensor is initialised once") from None
    t.shape = t._storage = layout[0]
    t.strides = layout[1]
    t.offset = 0
    t.dtype = layout[2]
    t._data = call.data
    t._device_state = state
    t._live = [True]
    if _lifetime._track is not None:        # objects are tracked (hg.track_objects)
        _lifetime._track(t)
    return t


_new_tensor = _fastcall.TensorBase.__new__
_layouts: dict[tuple[ShapeLike, DTypeLike], _NewLayout] = {}
_GONE = lib.HGB_GONE


def _new_layout(shape: ShapeLike, dtype: DTypeLike) -> _NewLayout:
    """(shape, strides, dtype, aclDataType, itemsize, ndim, dims as int64_t[], nbytes) of a new
    row-major tensor, checked; memoised for shapes given as tuples of ints."""
    if type(shape) is tuple:
        for d in shape:
            if type(d) is not int:
                break
        else:
            lay = _layouts.get((shape, dtype))
            if lay is not None:
                return lay
    key = (shape, dtype) if type(shape) is tuple else None
    shape = _check_shape(shape)
    npdt = to_numpy_dtype(dtype)
    nbytes = _check_nbytes(shape, npdt)
    lay = (shape, _row_major(shape), npdt, to_acl(npdt), npdt.itemsize, len(shape),
           ffi.new("int64_t[]", shape) if shape else ffi.NULL, nbytes)
    if key is not None and len(_layouts) < 4096:
        try:
            _layouts[key] = lay
        except TypeError:                 # an unhashable dtype argument
            pass
    return lay


def _allocated(t: _TT, lay: _NewLayout, device: Device | _DeviceState | None) -> _TT:
    """Fill ``t`` as a new row-major tensor of layout ``lay`` on ``device`` (None: the default
    device): memory from the caching allocator and the aclTensor, made in one call."""
    if type(device) is Device and device._live[0]:
        state = device._state
    else:
        state = _default_state() if device is None else _state_of(device)
    if state.context is None:
        state.ensure_current()
    try:
        c = _calls.c
    except AttributeError:
        c = call_buffer()
    st = _tensor_empty(c, state.res._o, state.context, lay[5], lay[6], lay[3], lay[4])
    if st:
        if st == _GONE and device is None:        # the default device closed meanwhile: reopen
            state = default_device()._state
            st = _tensor_empty(c, state.res._o, state.context, lay[5], lay[6], lay[3], lay[4])
        if st:
            allocation_failed(st, c, state)
    return made_tensor(c, lay, state, t)


def _made_empty(cls: type[_TT], lay: _NewLayout, device: Device | _DeviceState | None) -> _TT:
    """A new row-major ``cls`` of layout ``lay`` on ``device`` (None: the default device), made in
    one call into _fastcall; a device without a context yet takes _allocated's path."""
    if device is None:
        state = _default_state()
    elif type(device) is Device and device._live[0]:
        state = device._state
    else:
        state = _state_of(device)
    t = _make(cls, lay, state)
    if type(t) is cls:
        return t
    if t is None or (t == _GONE and device is None):   # the default device closed meanwhile: reopen
        return _allocated(_new_tensor(cls), lay, device)
    allocation_failed(t, _thread_call(), state)     # type: ignore[arg-type]  # (t is a status here)


def _check_copy(status: int) -> None:
    if status:
        check(status, "aclrtMemcpy")


def _bytes_of(arr: np.ndarray) -> np.ndarray:
    """A contiguous array as flat uint8 (the buffer protocol cannot export every dtype)."""
    return arr.reshape(-1).view(np.uint8)


def from_numpy(array: npt.ArrayLike, device: Device | _DeviceState | None = None,
               dtype: DTypeLike | None = None) -> Tensor:
    """Copy a host array to a new device tensor."""
    return Tensor(array, device, dtype)


def empty(shape: ShapeLike, dtype: DTypeLike = "float32", device: Device | _DeviceState | None = None) -> Tensor:
    """Uninitialised row-major tensor (its memory from the caching allocator)."""
    return _made_empty(Tensor, _new_layout(shape, dtype), device)


def zeros(shape: ShapeLike, dtype: DTypeLike = "float32", device: Device | _DeviceState | None = None) -> Tensor:
    return Tensor.zeros(shape, dtype, device)
