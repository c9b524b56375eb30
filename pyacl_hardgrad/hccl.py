"""Collective communication (HCCL) on the package's Tensors: ``hg.hccl``.

One :class:`Communicator` owns one ``HcclComm``.  Make it from a root info every rank shares
(:func:`get_root_info` on one rank, the bytes sent to the others by any means: a pipe, a queue,
a key-value store), from a rank table file, or for several devices of this process at once
(:meth:`Communicator.init_all`).  Its operations take Tensors on the communicator's device,
enqueue the collective on ``stream`` (default: the device's default stream, as the operators do)
and return at once; outputs left out are allocated.  Reading a result (``out.numpy()``) waits
for the stream, as after any operator; the stream holds the communicator and the tensors until
the work is done, so closing them early is safe.

Argument errors are ``TypeError`` / ``ValueError`` naming the argument, raised before any C call;
a failing HCCL call raises :class:`HcclError`.  The HCCL libraries are opened by the first call
that needs them (``import pyacl_hardgrad`` never does).
"""
from __future__ import annotations

import enum
import os
import threading
import warnings
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence, Union

import numpy as np

from . import _args, _hccl_binding
from ._binding import ffi as _acl_ffi, lib as _acl_lib
from ._hccl_binding import HcclLibraries, HcclLibraryError, ffi
from ._lifetime import Handle, _Res
from .device import Device, _current_context, _held_state
from .errors import CleanupWarning, ClosedError, PyaclError, recent_error_message
from .stream import Stream
from .tensor import Tensor, empty

if TYPE_CHECKING:
    from ._types import CData
    from .device import _DeviceState

__all__ = ["HcclError", "HcclLibraryError", "HcclLibraries", "ReduceOp", "Communicator", "get_root_info",
           "libraries", "ROOT_INFO_BYTES"]

_k = _hccl_binding.unbound_lib()           # constants only: opens no library
ROOT_INFO_BYTES: int = int(_k.HCCL_ROOT_INFO_BYTES)
_SUCCESS = int(_k.HCCL_SUCCESS)
_NOT_SUPPORT = int(_k.HCCL_E_NOT_SUPPORT)
_RESULT_NAMES: dict[int, str] = dict(ffi.typeof("HcclResult").elements)
libraries = _hccl_binding.libraries


class ReduceOp(enum.IntEnum):
    """HCCL's reduce operations (``HcclReduceOp``); the operations also take their names
    ('sum', 'prod', 'max', 'min')."""

    SUM = int(_k.HCCL_REDUCE_SUM)
    PROD = int(_k.HCCL_REDUCE_PROD)
    MAX = int(_k.HCCL_REDUCE_MAX)
    MIN = int(_k.HCCL_REDUCE_MIN)


# numpy dtype name -> HcclDataType member name; values come from the header
_DTYPE_MEMBERS = {"int8": "INT8", "int16": "INT16", "int32": "INT32", "float16": "FP16", "float32": "FP32",
                  "int64": "INT64", "uint64": "UINT64", "uint8": "UINT8", "uint16": "UINT16", "uint32": "UINT32",
                  "float64": "FP64", "bfloat16": "BFP16"}
_DTYPES: dict[str, int] = {n: int(getattr(_k, f"HCCL_DATA_TYPE_{m}")) for n, m in _DTYPE_MEMBERS.items()
                           if hasattr(_k, f"HCCL_DATA_TYPE_{m}")}


def _result_name(code: int) -> str:
    return _RESULT_NAMES.get(code, f"UNKNOWN({code})")


class HcclError(PyaclError, RuntimeError):
    """An HCCL call returned a non-zero ``HcclResult``.

    ``code`` (int), ``name`` (its name in the header, ``"HCCL_E_PARA"``), ``function`` (the C
    function that failed), ``message`` (HcclGetErrorString's text, or why the function is
    missing) and ``detail`` (the library's own account of this failure, aclGetRecentErrMsg's
    text: which argument, which rank) describe it.  Pickles (it crosses process boundaries with
    its fields).
    """

    def __init__(self, code: int, function: str | None = None, message: str | None = None,
                 detail: str = "") -> None:
        self.code = int(code)
        self.name = _result_name(self.code)
        self.function = function
        if message is None:
            message = _error_string(self.code)
        self.message = message
        self.detail = detail
        text = f"{function + ' failed' if function else 'HCCL call failed'}: {self.name} ({self.code})"
        text += f": {message}" if message else ""
        super().__init__(text + (f" ({detail})" if detail else ""))

    def __reduce__(self) -> tuple[Callable[..., HcclError], tuple[object, ...]]:
        return (type(self), (self.code, self.function, self.message, self.detail))


def _error_string(code: int) -> str:
    """HcclGetErrorString(code) ('' when the libraries cannot be loaded or give nothing)."""
    try:
        p = _hccl_binding.lib().HcclGetErrorString(code)
    except HcclLibraryError:
        return ""
    return "" if p == ffi.NULL else ffi.string(p).decode("utf-8", errors="replace")


def _check(status: int, function: str) -> None:
    if status == _SUCCESS:
        return
    lib = _hccl_binding.unbound_lib()
    detail = recent_error_message()
    if status == _NOT_SUPPORT:
        p = lib.hgh_missing_function()
        if p != ffi.NULL and ffi.string(p).decode() == function:
            lib.hgh_clear_missing()
            files = ", ".join(_hccl_binding.libraries().files)
            raise HcclError(status, function, f"{function} is not exported by the loaded HCCL libraries ({files})",
                            detail)
    raise HcclError(status, function, None, detail)


def _op_code(op: str | ReduceOp | int) -> int:
    if isinstance(op, str):
        try:
            return int(ReduceOp[op.upper()])
        except KeyError:
            raise ValueError(f"op must be one of 'sum', 'prod', 'max', 'min' (or a ReduceOp), got {op!r}") from None
    if isinstance(op, bool) or not isinstance(op, int):
        raise TypeError(f"op must be a str or a ReduceOp, got {type(op).__name__}")
    try:
        return int(ReduceOp(op))
    except ValueError:
        raise ValueError(f"op {op} is not a ReduceOp value ({', '.join(f'{m.name}={m.value}' for m in ReduceOp)})") \
            from None


def _on_device(state: _DeviceState) -> CData | None:
    """Make the device current for a blocking call; the context that was current before (to
    restore with :func:`_restore`)."""
    prev = _current_context()
    state.ensure_current()
    return prev


def _restore(prev: CData | None) -> None:
    if prev is not None:
        _acl_lib.aclrtSetCurrentContext(prev)
        _acl_lib.aclGetRecentErrMsg()


def get_root_info(device: Device | int | None = None) -> bytes:
    """A fresh rendezvous for one communicator (``HcclGetRootInfo``): ROOT_INFO_BYTES (4108)
    opaque bytes, made on one rank and handed to every rank's :class:`Communicator`.  They hold
    no pointers, so they pickle and pass through pipes and queues.  ``device``: the device
    made current for the call (default: the calling thread's current device, else device 0)."""
    if device is not None and not isinstance(device, Device):
        device = _args.integer(device, "device", 0, _args.INT32_MAX)
    lib = _hccl_binding.lib()
    state = _held_state(device)
    try:
        info = ffi.new("HcclRootInfo *")
        prev = _on_device(state)
        try:
            _check(lib.HcclGetRootInfo(info), "HcclGetRootInfo")
        finally:
            _restore(prev)
        return bytes(ffi.buffer(info))
    finally:
        state.res.release()


def _root_info(root_info: object) -> CData:
    if not isinstance(root_info, (bytes, bytearray, memoryview)):
        raise TypeError(f"root_info must be the bytes get_root_info() returned, got {type(root_info).__name__}")
    data = bytes(root_info)
    if len(data) != ROOT_INFO_BYTES:
        raise ValueError(f"root_info must be {ROOT_INFO_BYTES} bytes (what get_root_info() returns), "
                         f"got {len(data)}")
    info = ffi.new("HcclRootInfo *")
    ffi.memmove(info, data, ROOT_INFO_BYTES)
    return info


ConfigValue = Union[int, str, bytes]


def _config(config: Mapping[str, ConfigValue]) -> CData:
    """An HcclCommConfig: HcclCommConfigInit's defaults, then the fields given by name."""
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping of HcclCommConfig field names to values, "
                        f"got {type(config).__name__}")
    lib = _hccl_binding.unbound_lib()
    c = ffi.new("HcclCommConfig *")
    lib.hgh_comm_config_init(c)
    fields = dict(ffi.typeof("HcclCommConfig").fields)
    for key, value in config.items():
        if key not in fields or key == "reserved":
            names = ", ".join(n for n in fields if n != "reserved")
            raise ValueError(f"config has no field {key!r} (HcclCommConfig's fields: {names})")
        ctype = fields[key].type
        try:
            if ctype.kind == "array":
                raw = value.encode() if isinstance(value, str) else value
                if not isinstance(raw, bytes):
                    raise TypeError(f"config[{key!r}] must be a str, got {type(value).__name__}")
                if len(raw) >= ctype.length:
                    raise ValueError(f"config[{key!r}] is {len(raw)} bytes; at most {ctype.length - 1} fit")
                setattr(c, key, raw)
            else:
                if isinstance(value, (str, bytes)) or isinstance(value, bool):
                    raise TypeError(f"config[{key!r}] must be an integer, got {type(value).__name__}")
                setattr(c, key, _args.integer(value, f"config[{key!r}]"))
        except OverflowError:
            raise ValueError(f"config[{key!r}] = {value!r} does not fit its C type {ctype.cname}") from None
    return c


def _destroy(comm: CData, state: _DeviceState, name: str) -> None:
    """The communicator's release: HcclCommDestroy once, on its device (failures warn)."""
    try:
        prev = _on_device(state)
    except Exception:       # the device cannot be made current: destroy from here anyway
        prev = None
    try:
        status = _hccl_binding.lib().HcclCommDestroy(comm)
    finally:
        _restore(prev)
    if status != _SUCCESS:
        warnings.warn(f"destroying {name}: {HcclError(status, 'HcclCommDestroy')}", CleanupWarning, stacklevel=2)


def _dtype_code(t: Tensor, name: str) -> int:
    code = _DTYPES.get(t.dtype.name)
    if code is None:
        raise TypeError(f"{name} has dtype {t.dtype.name}, which HCCL does not carry "
                        f"(supported: {', '.join(sorted(_DTYPES))})")
    return code


class Communicator(Handle):
    """One rank of a communicator (an ``HcclComm``) bound to one device.

    ``Communicator(root_info, rank, nranks, device=...)`` joins the rendezvous of ``root_info``
    and returns once all ``nranks`` ranks have joined (``HcclCommInitRootInfo``; with ``config``,
    a mapping of ``HcclCommConfig`` field names to values, ``HcclCommInitRootInfoConfig``).
    ``close()`` (or the end of a ``with`` block) lets go of it; ``HcclCommDestroy`` runs exactly
    once, after the work queued with it has finished.  A closed communicator refuses every call
    (:class:`~pyacl_hardgrad.ClosedError`).  Calls from several threads are serialised.  The
    communicator keeps its device in use (set) while it lives.
    """

    _comm: CData
    _state: _DeviceState
    _rank: int
    _size: int
    _device: Device | None

    def __init__(self, root_info: bytes, rank: int, nranks: int, device: Device | int | None = None, *,
                 config: Mapping[str, ConfigValue] | None = None) -> None:
        info = _root_info(root_info)
        nranks = _args.integer(nranks, "nranks", 1, 2**32 - 1)
        rank = _args.integer(rank, "rank", 0, None)
        if rank >= nranks:
            raise ValueError(f"rank must be in [0, nranks - 1] = [0, {nranks - 1}], got {rank}")
        cfg = _config(config) if config is not None else None
        device = _device_arg(device, "device")
        lib = _hccl_binding.lib()
        comm = ffi.new("HcclComm *")

        def init() -> None:
            if cfg is None:
                _check(lib.HcclCommInitRootInfo(nranks, info, rank, comm), "HcclCommInitRootInfo")
            else:
                _check(lib.HcclCommInitRootInfoConfig(nranks, info, rank, cfg, comm), "HcclCommInitRootInfoConfig")
        self._start(device, init, comm)

    @classmethod
    def from_rank_table(cls, path: str | os.PathLike[str], rank: int, device: Device | int | None = None, *,
                        config: Mapping[str, ConfigValue] | None = None) -> Communicator:
        """Rank ``rank`` of the communicator a rank table (JSON) file describes
        (``HcclCommInitClusterInfo``; with ``config``, ``HcclCommInitClusterInfoConfig``)."""
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a str or a path, got {type(path).__name__}")
        fspath = os.fspath(path)
        if not os.path.isfile(fspath):
            raise FileNotFoundError(f"rank table file {fspath!r} does not exist (path must name a rank table JSON "
                                    "file)")
        rank = _args.integer(rank, "rank", 0, 2**32 - 1)
        cfg = _config(config) if config is not None else None
        device = _device_arg(device, "device")
        lib = _hccl_binding.lib()
        comm = ffi.new("HcclComm *")
        encoded = fspath.encode()
        self = cls.__new__(cls)

        def init() -> None:
            if cfg is None:
                _check(lib.HcclCommInitClusterInfo(encoded, rank, comm), "HcclCommInitClusterInfo")
            else:
                _check(lib.HcclCommInitClusterInfoConfig(encoded, rank, cfg, comm), "HcclCommInitClusterInfoConfig")
        self._start(device, init, comm)
        return self

    @classmethod
    def init_all(cls, devices: Sequence[Device | int]) -> list[Communicator]:
        """One communicator per device of this process, rank i on ``devices[i]``, made from the
        calling thread (``HcclCommInitAll``).  Use each from its own thread (or enqueue every
        rank's part of an operation before waiting for any)."""
        if isinstance(devices, (str, bytes)) or not isinstance(devices, Sequence):
            raise TypeError(f"devices must be a sequence of Devices or device ids, got {type(devices).__name__}")
        if not devices:
            raise ValueError("devices must name at least one device")
        ids = [d.id if isinstance(d, Device) else _args.integer(d, f"devices[{i}]", 0, _args.INT32_MAX)
               for i, d in enumerate(devices)]
        for d in devices:
            if isinstance(d, Device):
                d._check_open()
        if len(set(ids)) != len(ids):
            raise ValueError(f"devices must be distinct, got {ids}")
        lib = _hccl_binding.lib()
        states: list[_DeviceState] = []
        try:
            for d, i in zip(devices, ids):
                states.append(_held_state(d if isinstance(d, Device) else i))
            comms = ffi.new("HcclComm[]", len(ids))
            prev = _on_device(states[0])
            try:
                _check(lib.HcclCommInitAll(len(ids), ffi.new("int32_t[]", ids), comms), "HcclCommInitAll")
            finally:
                _restore(prev)
        except BaseException:
            for st in states:
                st.res.release()
            raise
        out: list[Communicator] = []
        for k, st in enumerate(states):
            c = cls.__new__(cls)
            try:
                c._adopt_comm(comms[k], st)
            except BaseException:
                for later in range(k + 1, len(states)):
                    _destroy(comms[later], states[later], "a communicator of HcclCommInitAll")
                    states[later].res.release()
                for made in out:
                    made.close()
                raise
            out.append(c)
        return out

    # -- construction ---------------------------------------------------------------------------
    def _start(self, device: Device | int | None, init: Callable[[], None], comm: CData) -> None:
        state = _held_state(device)
        try:
            prev = _on_device(state)
            _acl_lib.aclGetRecentErrMsg()
            try:
                init()                 # blocks until every rank joined (the GIL is let go meanwhile)
            finally:
                _restore(prev)
        except BaseException:
            state.res.release()
            raise
        self._adopt_comm(comm[0], state)

    def _adopt_comm(self, comm: CData, state: _DeviceState) -> None:
        """Own ``comm`` (its destroy) and the reference to ``state`` the caller holds."""
        self._lock = threading.Lock()
        self._device = None
        lib = _hccl_binding.lib()
        try:
            n = ffi.new("uint32_t *")
            _check(lib.HcclGetRankId(comm, n), "HcclGetRankId")
            rank = int(n[0])
            _check(lib.HcclGetRankSize(comm, n), "HcclGetRankSize")
            size = int(n[0])
            name = f"Communicator(rank {rank} of {size}, device {state.id})"
            res = _Res(name, lambda: _destroy(comm, state, name), (state.res,))
        except BaseException:
            _destroy(comm, state, "a communicator being made")
            state.res.release()
            raise
        self._comm, self._state, self._rank, self._size = comm, state, rank, size
        self._adopt(res)

    # -- properties ------------------------------------------------------------------------------
    @property
    def rank(self) -> int:
        """This rank's number, in [0, size)."""
        return self._rank

    @property
    def size(self) -> int:
        """How many ranks the communicator has."""
        return self._size

    @property
    def device_id(self) -> int:
        return self._state.id

    @property
    def name(self) -> str:
        """The communicator's name (``HcclGetCommName``): the ``hcclCommName`` of its config, or
        the one the library gave it."""
        self._check_open()
        buf = ffi.new("char[]", int(_k.COMM_NAME_MAX_LENGTH))
        with self._lock:
            _check(_hccl_binding.lib().HcclGetCommName(self._comm, buf), "HcclGetCommName")
        return ffi.string(buf).decode("utf-8", errors="replace")

    @property
    def device(self) -> Device:
        """The device this rank runs on (a Device handle, made on first access)."""
        self._check_open()
        d = self._device
        if d is None or d.closed:
            d = self._device = Device(self._state.id)
        return d

    def __repr__(self) -> str:
        state = " closed" if self.closed else ""
        return f"<Communicator rank {self._rank} of {self._size} on device {self._state.id}{state}>"

    # -- argument checks ---------------------------------------------------------------------------
    def _tensor(self, t: object, name: str) -> Tensor:
        if not isinstance(t, Tensor):
            raise TypeError(f"{name} must be a Tensor (hg.Tensor), got {type(t).__name__}")
        if t.closed:
            raise ClosedError(f"{name} is closed")
        if t.device_id != self._state.id:
            raise ValueError(f"{name} is on device {t.device_id}, but the communicator (rank {self._rank}) is on "
                             f"device {self._state.id}: tensors must be on the communicator's device")
        if not t.is_contiguous():
            raise ValueError(f"{name} must be contiguous (HCCL moves flat buffers); copy the view first")
        return t

    def _same_dtype(self, a: Tensor, b: Tensor, aname: str, bname: str) -> int:
        code = _dtype_code(a, aname)
        if b.dtype != a.dtype:
            raise TypeError(f"{bname} has dtype {b.dtype.name} but {aname} has {a.dtype.name}: they must match")
        return code

    def _peer(self, value: int, name: str) -> int:
        return _args.integer(value, name, 0, self._size - 1)

    def _stream(self, stream: Stream | None) -> Stream:
        if stream is None:
            return self._state.get_default_stream()
        if not isinstance(stream, Stream):
            raise TypeError(f"stream must be a Stream, got {type(stream).__name__}")
        if stream.closed:
            raise ClosedError("stream is closed")
        if stream.device_id != self._state.id:
            raise ValueError(f"stream is a stream of device {stream.device_id}, but the communicator is on device "
                             f"{self._state.id}")
        return stream

    def _new(self, shape: tuple[int, ...], like: Tensor) -> Tensor:
        return empty(shape, like.dtype, self._state)

    def _split_shape(self, t: Tensor, name: str) -> tuple[int, ...]:
        """The shape of one rank's block of ``t`` (size blocks of equal length)."""
        if t.size % self._size:
            raise ValueError(f"{name} has {t.size} elements, not a multiple of the communicator size {self._size}")
        if t.ndim and t.shape[0] == self._size:
            return t.shape[1:]
        if t.ndim and t.shape[0] % self._size == 0:
            return (t.shape[0] // self._size, *t.shape[1:])
        return (t.size // self._size,)

    # -- the launch --------------------------------------------------------------------------------
    def _launch(self, function: str, stream: Stream | None, tensors: Sequence[Tensor],
                call: Callable[[Any, CData, CData], int], made: Tensor | None = None) -> None:
        """Enqueue one operation: hold the communicator and the tensors, call ``call(lib, comm,
        stream)``, then hand them to the stream (kept until it is synchronised; the tensors' next
        reads wait for it).  A failure closes ``made`` (an output allocated for the call)."""
        try:
            s = self._stream(stream)
            self._check_open()
            lib = _hccl_binding.lib()
            objs = []
            try:
                with self._lock:
                    objs.append(self._res.retain()._o)     # ClosedError once destroyed
                    if self.closed:
                        raise ClosedError("Communicator is closed")
                    for t in tensors:
                        objs.append(t._hold())             # ClosedError for a closed tensor
                    self._state.ensure_current()
                    handle = ffi.cast("void *", int(_acl_ffi.cast("uintptr_t", s.handle)))
                    _acl_lib.aclGetRecentErrMsg()          # a failure's detail is then this call's own
                    _check(call(lib, self._comm, handle), function)
                    if not _acl_lib.hgb_stream_use(s._hold_open(), objs, len(objs)):
                        raise ClosedError("a resource of the operation was released while it was enqueued")
            finally:
                for o in objs:
                    _acl_lib.hgb_obj_release(o)
        except BaseException:
            if made is not None:
                made.close()
            raise

    # -- operations ----------------------------------------------------------------------------------
    def all_reduce(self, send: Tensor, out: Tensor | None = None, op: str | ReduceOp = "sum", *,
                   stream: Stream | None = None) -> Tensor:
        """``out`` = the element-wise reduction (``op``) of every rank's ``send`` (HcclAllReduce);
        ``out`` may be ``send`` itself (in place) and is allocated like ``send`` when left out."""
        self._check_open()
        send = self._tensor(send, "send")
        code_op = _op_code(op)
        dt = _dtype_code(send, "send")
        if out is not None:
            out = self._tensor(out, "out")
            self._same_dtype(send, out, "send", "out")
            if out.size != send.size:
                raise ValueError(f"out has {out.size} elements but send has {send.size}: they must match")
        made = None if out is not None else self._new(send.shape, send)
        res = out if out is not None else made
        assert res is not None
        sp, rp, n = ffi.cast("void *", send.data_ptr), ffi.cast("void *", res.data_ptr), send.size
        self._launch("HcclAllReduce", stream, (send, res),
                     lambda lib, c, s: lib.HcclAllReduce(sp, rp, n, dt, code_op, c, s), made)
        return res

    def broadcast(self, tensor: Tensor, root: int = 0, *, stream: Stream | None = None) -> Tensor:
        """``tensor`` of rank ``root`` lands in ``tensor`` on every rank (HcclBroadcast, in
        place); returns ``tensor``."""
        self._check_open()
        tensor = self._tensor(tensor, "tensor")
        root = self._peer(root, "root")
        dt = _dtype_code(tensor, "tensor")
        p, n = ffi.cast("void *", tensor.data_ptr), tensor.size
        self._launch("HcclBroadcast", stream, (tensor,), lambda lib, c, s: lib.HcclBroadcast(p, n, dt, root, c, s))
        return tensor

    def all_gather(self, send: Tensor, out: Tensor | None = None, *, stream: Stream | None = None) -> Tensor:
        """Rank r's ``send`` lands in block r of ``out`` on every rank (HcclAllGather).  ``out``
        holds size x send.size elements; allocated with shape ``(size, *send.shape)``."""
        self._check_open()
        send = self._tensor(send, "send")
        dt = _dtype_code(send, "send")
        if out is not None:
            out = self._tensor(out, "out")
            self._same_dtype(send, out, "send", "out")
            if out.size != send.size * self._size:
                raise ValueError(f"out has {out.size} elements; all_gather needs size x send.size = "
                                 f"{self._size} x {send.size} = {self._size * send.size}")
        made = None if out is not None else self._new((self._size, *send.shape), send)
        res = out if out is not None else made
        assert res is not None
        sp, rp, n = ffi.cast("void *", send.data_ptr), ffi.cast("void *", res.data_ptr), send.size
        self._launch("HcclAllGather", stream, (send, res),
                     lambda lib, c, s: lib.HcclAllGather(sp, rp, n, dt, c, s), made)
        return res

    def reduce_scatter(self, send: Tensor, out: Tensor | None = None, op: str | ReduceOp = "sum", *,
                       stream: Stream | None = None) -> Tensor:
        """Block r of the reduction (``op``) of every rank's ``send`` lands in ``out`` on rank r
        (HcclReduceScatter).  ``send`` holds size blocks; ``out`` one (allocated with
        ``send.shape[1:]`` when send's first dimension is the size, else a 1/size slice of it)."""
        self._check_open()
        send = self._tensor(send, "send")
        code_op = _op_code(op)
        dt = _dtype_code(send, "send")
        block = self._split_shape(send, "send")
        if out is not None:
            out = self._tensor(out, "out")
            self._same_dtype(send, out, "send", "out")
            if out.size * self._size != send.size:
                raise ValueError(f"out has {out.size} elements; reduce_scatter needs send.size / size = "
                                 f"{send.size} / {self._size} = {send.size // self._size}")
        made = None if out is not None else self._new(block, send)
        res = out if out is not None else made
        assert res is not None
        sp, rp, n = ffi.cast("void *", send.data_ptr), ffi.cast("void *", res.data_ptr), res.size
        self._launch("HcclReduceScatter", stream, (send, res),
                     lambda lib, c, s: lib.HcclReduceScatter(sp, rp, n, dt, code_op, c, s), made)
        return res

    def reduce(self, send: Tensor, out: Tensor | None = None, op: str | ReduceOp = "sum", root: int = 0, *,
               stream: Stream | None = None) -> Tensor:
        """The reduction (``op``) of every rank's ``send`` lands in ``out`` on rank ``root``
        (HcclReduce); ``out`` (allocated like ``send``) is left as it was on the other ranks."""
        self._check_open()
        send = self._tensor(send, "send")
        code_op = _op_code(op)
        root = self._peer(root, "root")
        dt = _dtype_code(send, "send")
        if out is not None:
            out = self._tensor(out, "out")
            self._same_dtype(send, out, "send", "out")
            if out.size != send.size:
                raise ValueError(f"out has {out.size} elements but send has {send.size}: they must match")
        made = None if out is not None else self._new(send.shape, send)
        res = out if out is not None else made
        assert res is not None
        sp, rp, n = ffi.cast("void *", send.data_ptr), ffi.cast("void *", res.data_ptr), send.size
        self._launch("HcclReduce", stream, (send, res),
                     lambda lib, c, s: lib.HcclReduce(sp, rp, n, dt, code_op, root, c, s), made)
        return res

    def scatter(self, send: Tensor | None, out: Tensor | None = None, root: int = 0, *,
                stream: Stream | None = None) -> Tensor:
        """Block r of ``send`` on rank ``root`` lands in ``out`` on rank r (HcclScatter).  ``send``
        is read on the root only (other ranks may pass None, then ``out`` is required); ``out``
        is allocated like one block of ``send`` when left out."""
        self._check_open()
        root = self._peer(root, "root")
        if send is None:
            if self._rank == root:
                raise ValueError(f"send is required on the root (rank {root})")
            if out is None:
                raise ValueError("out is required where send is None (its size says how much to receive)")
        else:
            send = self._tensor(send, "send")
        if out is not None:
            out = self._tensor(out, "out")
        ref = send if send is not None else out
        assert ref is not None
        dt = _dtype_code(ref, "send" if send is not None else "out")
        if send is not None and out is not None:
            self._same_dtype(send, out, "send", "out")
            if out.size * self._size != send.size:
                raise ValueError(f"out has {out.size} elements; scatter needs send.size / size = "
                                 f"{send.size} / {self._size} = {send.size // self._size}")
        made = None
        if out is None:
            assert send is not None
            made = out = self._new(self._split_shape(send, "send"), send)
        tensors = (out,) if send is None else (send, out)
        src = send if send is not None else out     # a valid address where the root's send is not read
        sp, rp, n = ffi.cast("void *", src.data_ptr), ffi.cast("void *", out.data_ptr), out.size
        self._launch("HcclScatter", stream, tensors,
                     lambda lib, c, s: lib.HcclScatter(sp, rp, n, dt, root, c, s), made)
        return out

    def all_to_all(self, send: Tensor, out: Tensor | None = None, *, stream: Stream | None = None) -> Tensor:
        """Block j of rank i's ``send`` lands in block i of ``out`` on rank j (HcclAlltoAll): both
        hold size equal blocks; ``out`` is allocated like ``send``."""
        self._check_open()
        send = self._tensor(send, "send")
        dt = _dtype_code(send, "send")
        self._split_shape(send, "send")
        if out is not None:
            out = self._tensor(out, "out")
            self._same_dtype(send, out, "send", "out")
            if out.size != send.size:
                raise ValueError(f"out has {out.size} elements but send has {send.size}: they must match")
        made = None if out is not None else self._new(send.shape, send)
        res = out if out is not None else made
        assert res is not None
        sp, rp, n = ffi.cast("void *", send.data_ptr), ffi.cast("void *", res.data_ptr), send.size // self._size
        self._launch("HcclAlltoAll", stream, (send, res),
                     lambda lib, c, s: lib.HcclAlltoAll(sp, n, dt, rp, n, dt, c, s), made)
        return res

    def send(self, tensor: Tensor, peer: int, *, stream: Stream | None = None) -> None:
        """Send ``tensor`` to rank ``peer``, which receives it with :meth:`recv` (HcclSend)."""
        self._check_open()
        tensor = self._tensor(tensor, "tensor")
        peer = self._peer(peer, "peer")
        if peer == self._rank:
            raise ValueError(f"peer must be another rank than this one ({self._rank})")
        dt = _dtype_code(tensor, "tensor")
        p, n = ffi.cast("void *", tensor.data_ptr), tensor.size
        self._launch("HcclSend", stream, (tensor,), lambda lib, c, s: lib.HcclSend(p, n, dt, peer, c, s))

    def recv(self, out: Tensor, peer: int, *, stream: Stream | None = None) -> Tensor:
        """Receive into ``out`` what rank ``peer`` sends with :meth:`send` (HcclRecv; its size and
        dtype must match the sender's); returns ``out``."""
        self._check_open()
        out = self._tensor(out, "out")
        peer = self._peer(peer, "peer")
        if peer == self._rank:
            raise ValueError(f"peer must be another rank than this one ({self._rank})")
        dt = _dtype_code(out, "out")
        p, n = ffi.cast("void *", out.data_ptr), out.size
        self._launch("HcclRecv", stream, (out,), lambda lib, c, s: lib.HcclRecv(p, n, dt, peer, c, s))
        return out

    def barrier(self, *, stream: Stream | None = None) -> None:
        """Work enqueued after this on ``stream`` starts once every rank reached it (HcclBarrier)."""
        self._check_open()
        self._launch("HcclBarrier", stream, (), lambda lib, c, s: lib.HcclBarrier(c, s))


def _device_arg(device: object, name: str) -> Device | int | None:
    if device is None or isinstance(device, Device):
        if isinstance(device, Device):
            device._check_open()
        return device
    if isinstance(device, np.integer) or isinstance(device, int):
        return _args.integer(device, name, 0, _args.INT32_MAX)
    raise TypeError(f"{name} must be a Device, a device id or None, got {type(device).__name__}")
