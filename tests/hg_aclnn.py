"""Call any two-phase aclnn operator by name through the raw binding (``lib.aclnnXxx``), for the
operator folders' tests: numpy arrays become device tensors (optionally as strided views), Python
numbers become aclScalars, and ``call`` returns the phase-1 status, its message and the outputs.

It names no operator: the phase-1 arguments are given in prototype order, and the function is
looked up as ``lib.<name>GetWorkspaceSize`` / ``lib.<name>``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import ml_dtypes
import numpy as np

ACL_DTYPES = {np.dtype(np.float32): 0, np.dtype(np.float16): 1, np.dtype(np.int8): 2, np.dtype(np.int32): 3,
              np.dtype(np.uint8): 4, np.dtype(np.int16): 6, np.dtype(np.int64): 9, np.dtype(np.float64): 11,
              np.dtype(np.bool_): 12, np.dtype(ml_dtypes.bfloat16): 27}
BY_CODE = {v: k for k, v in ACL_DTYPES.items()}


def _lib():
    from pyacl_hardgrad.raw import ffi, lib
    return ffi, lib


@dataclass
class T:
    """A tensor argument: data (numpy, its dtype is the tensor's), an optional view layout over a
    larger allocation (strides/offset in elements, storage elements), the format, or a dtype
    override (acl dtype code, e.g. for dtypes numpy lacks)."""
    data: np.ndarray
    strides: Optional[Sequence[int]] = None
    offset: int = 0
    storage: Optional[int] = None
    fmt: int = 2                    # ACL_FORMAT_ND
    acl_dtype: Optional[int] = None
    null_data: bool = False


@dataclass
class S:
    """A scalar argument: value stored as numpy dtype dtype (or acl dtype code acl_dtype)."""
    value: object
    dtype: object = np.float32
    acl_dtype: Optional[int] = None


NULL = object()                     # a NULL argument


class Session:
    """Device 0 and one stream; ``close()`` frees everything it made."""

    def __init__(self):
        import pyacl_hardgrad as hg

        self.ffi, self.lib = _lib()
        self.device = hg.Device(0)    # aclInit (shared with the Python layer) + aclrtSetDevice
        box = self.ffi.new("aclrtStream *")
        assert self.lib.aclrtCreateStream(box) == 0
        self.stream = box[0]
        self._owned = []             # (kind, handle)

    def tensor(self, arg: T):
        ffi, lib = self.ffi, self.lib
        a = np.asarray(arg.data)
        shape = list(a.shape)
        if arg.strides is None:
            strides = [1] * len(shape)
            for i in range(len(shape) - 2, -1, -1):
                strides[i] = strides[i + 1] * shape[i + 1]
        else:
            strides = list(arg.strides)
        numel = int(np.prod(shape)) if shape else 1
        if arg.storage is not None:
            storage = arg.storage
        elif numel == 0:
            storage = 0
        else:
            storage = arg.offset + 1 + sum((d - 1) * s for d, s in zip(shape, strides))
        itemsize = a.dtype.itemsize
        nbytes = max(storage * itemsize, 1)
        dev = ffi.new("void **")
        assert lib.aclrtMalloc(dev, nbytes, 0) == 0
        self._owned.append(("mem", dev[0]))
        # fill the allocation, then the view's elements (row-major order of the view)
        host = np.full(max(storage, 1), 0x5A, np.uint8).repeat(itemsize)[:nbytes].copy()
        if numel and storage:
            flat = np.frombuffer(host, dtype=a.dtype, count=storage)
            idx = np.full(shape, arg.offset, np.int64)
            for d, s in enumerate(strides):
                sh = [1] * len(shape)
                sh[d] = shape[d]
                idx = idx + np.arange(shape[d]).reshape(sh) * s
            flat = flat.copy()
            flat[idx.ravel()] = a.ravel()
            host = flat.view(np.uint8)
        buf = ffi.from_buffer(host)
        assert lib.aclrtMemcpy(dev[0], nbytes, buf, nbytes, 1) == 0
        code = arg.acl_dtype if arg.acl_dtype is not None else ACL_DTYPES[a.dtype]
        t = lib.aclCreateTensor(shape, len(shape), code, strides, arg.offset, arg.fmt, [storage], 1,
                                ffi.NULL if arg.null_data else dev[0])
        assert t != ffi.NULL, ffi.string(lib.aclGetRecentErrMsg())
        self._owned.append(("tensor", t))
        return t, (dev[0], shape, strides, arg.offset, a.dtype, storage)

    def read(self, info) -> np.ndarray:
        ffi, lib = self.ffi, self.lib
        dev, shape, strides, offset, dtype, storage = info
        numel = int(np.prod(shape)) if shape else 1
        if numel == 0:
            return np.zeros(shape, dtype)
        host = np.empty(storage, dtype)
        assert lib.aclrtMemcpy(ffi.from_buffer(host), host.nbytes, dev, host.nbytes, 2) == 0
        idx = np.full(shape, offset, np.int64)
        for d, s in enumerate(strides):
            sh = [1] * len(shape)
            sh[d] = shape[d]
            idx = idx + np.arange(shape[d]).reshape(sh) * s
        return host[idx]

    def scalar(self, arg: S):
        ffi, lib = self.ffi, self.lib
        if arg.acl_dtype is not None and arg.dtype is None:
            raw = np.asarray(arg.value)
        else:
            raw = np.asarray([arg.value]).astype(arg.dtype)
        code = arg.acl_dtype if arg.acl_dtype is not None else ACL_DTYPES[raw.dtype]
        buf = np.zeros(16, np.uint8)
        buf[:raw.nbytes] = raw.view(np.uint8)
        s = lib.aclCreateScalar(ffi.from_buffer(buf), code)
        assert s != ffi.NULL
        self._owned.append(("scalar", s))
        return s

    def phase1(self, name: str, args: Sequence, *, ws=True, executor=True):
        """(status, message, workspace size, executor, tensor infos by position)."""
        ffi, lib = self.ffi, self.lib
        cargs, infos = [], {}
        for i, a in enumerate(args):
            if a is NULL:
                cargs.append(ffi.NULL)
            elif isinstance(a, T):
                t, info = self.tensor(a)
                cargs.append(t)
                infos[i] = info
            elif isinstance(a, S):
                cargs.append(self.scalar(a))
            else:
                cargs.append(a)       # a handle made earlier (e.g. the same tensor twice)
        wsp = ffi.new("uint64_t *") if ws else ffi.NULL
        exe = ffi.new("aclOpExecutor **") if executor else ffi.NULL
        rc = getattr(lib, name + "GetWorkspaceSize")(*cargs, wsp, exe)
        if rc == 0 and executor:
            self._owned.append(("exe", exe[0]))
        msg = lib.aclGetRecentErrMsg()
        msg = ffi.string(msg).decode() if msg != ffi.NULL else ""
        return rc, msg, (wsp[0] if ws else None), (exe[0] if executor else None), infos, cargs

    def call(self, name: str, args: Sequence, outputs: Sequence[int]):
        """Both phases; returns the arrays of the argument positions in outputs."""
        ffi, lib = self.ffi, self.lib
        rc, msg, ws, exe, infos, _ = self.phase1(name, args)
        assert rc == 0, f"{name}: {rc} {msg}"
        wsp = ffi.NULL
        if ws:
            box = ffi.new("void **")
            assert lib.aclrtMalloc(box, ws, 0) == 0
            self._owned.append(("mem", box[0]))
            wsp = box[0]
        rc = getattr(lib, name)(wsp, ws, exe, self.stream)
        assert rc == 0, f"{name} phase 2: {rc}"
        self._owned.remove(("exe", exe))          # a one-shot executor is consumed by its run
        assert lib.aclrtSynchronizeStream(self.stream) == 0
        return [self.read(infos[i]) for i in outputs]

    def close(self):
        lib = self.lib
        lib.aclrtSynchronizeStream(self.stream)
        for kind, h in reversed(self._owned):
            if kind == "tensor":
                lib.aclDestroyTensor(h)
            elif kind == "scalar":
                lib.aclDestroyScalar(h)
            elif kind == "exe":
                lib.aclDestroyAclOpExecutor(h)
            else:
                lib.aclrtFree(h)
        self._owned.clear()
        lib.aclrtDestroyStream(self.stream)
        self.device.close()
