"""aclnnHardtanhBackward and aclnnHardsigmoidBackward: one-call functions and two-phase plans.

Functions (``hardtanh_backward``, ``hardsigmoid_backward``):
  * given Tensors, they enqueue the operator on ``stream`` (default: the device's default
    stream) and return the ``out`` Tensor at once; ``out.numpy()`` waits for the result.
  * given only numpy arrays (no Tensor anywhere), they run on the default device, wait, and
    return a numpy array.  Mixed calls copy the arrays to the Tensors' device and return a
    Tensor.
Plans (``HardtanhBackwardPlan``, ``HardsigmoidBackwardPlan``) mirror the C++ two-phase form:
construction is phase 1 (``workspace_size`` and an executor), ``run()`` is phase 2.
"""
from __future__ import annotations

import threading

import numpy as np

from . import _args
from ._binding import ffi, lib
from ._lifetime import Handle, _Res, finish_dropped, release_all
from .dtypes import bfloat16, float16, float32
from .errors import PlanConsumedError, check, warn_status
from .memory import DeviceMemory, Workspace
from .scalar import Scalar, _float32_cache, cached_float32
from .stream import _PENDING_LIMIT, Stream, _sync_stream
from .tensor import Tensor

__all__ = ["hardtanh_backward", "hardsigmoid_backward", "HardtanhBackwardPlan", "HardsigmoidBackwardPlan",
           "hardsigmoid_result_dtype"]

_tls = threading.local()


_NULL = ffi.NULL
_NO_STREAM = object()     # never passed by a caller: run()'s fast path is off
_ht_phase1 = lib.aclnnHardtanhBackwardGetWorkspaceSize
_ht_phase2 = lib.aclnnHardtanhBackward
_hs_phase1 = lib.aclnnHardsigmoidBackwardGetWorkspaceSize
_hs_phase2 = lib.aclnnHardsigmoidBackward
_ht_fused = lib.hgb_hardtanh_backward     # hold + phase 1 + phase 2 (+ wait): _build/fused_calls.h
_hs_fused = lib.hgb_hardsigmoid_backward
_WAIT, _KEEP = lib.HGB_WAIT, lib.HGB_KEEP
_STEP_RETAIN, _STEP_PHASE1, _STEP_SYNC = lib.HGB_STEP_RETAIN, lib.HGB_STEP_PHASE1, lib.HGB_STEP_SYNC


def _phase1_buffers():
    try:
        return _tls.p1
    except AttributeError:
        b = _tls.p1 = (ffi.new("uint64_t *"), ffi.new("aclOpExecutor **"))
        return b


def _destroy_executor(box: list) -> None:
    ex = box[0]
    box[0] = None
    if ex is not None:
        warn_status(lib.aclDestroyAclOpExecutor(ex), "aclDestroyAclOpExecutor", stacklevel=5)


def _close_plan(live: list, res: _Res, unpin_lists: list) -> None:
    """A plan's finalizer: streams the plan is pinned on drop their pin at their next sync."""
    live[0] = False
    for lst in unpin_lists:
        lst.append(res)
    res.release()


class _Plan(Handle):
    _OP = ""
    _PHASE2 = None
    _fast = _NO_STREAM

    def _plan(self, status_fn, tensors, scalars, out: Tensor, repeatable: bool):
        deps = []
        try:
            for obj in (*tensors, *scalars):
                deps.append(obj._res.retain())
            size, exe = _phase1_buffers()
            check(status_fn(size, exe), self._OP + "GetWorkspaceSize")
            executor, workspace_size = exe[0], int(size[0])
            box = [executor]
            if repeatable:
                st = lib.aclSetAclOpExecutorRepeatable(executor)
                if st:
                    _destroy_executor(box)
                    check(st, "aclSetAclOpExecutorRepeatable")
        except BaseException:
            for d in reversed(deps):
                d.release()
            raise
        self._box = box
        self.workspace_size = workspace_size
        self.repeatable = bool(repeatable)
        self.out = out
        self._tensors = tensors
        # The `_pending` cells of the tensors (shared with their views): each run records
        # its stream there so numpy()/copy_from() wait for it.  Both operators take 3.
        self._cells = tuple(t._pending for t in tensors)
        self._workspace: DeviceMemory | None = None
        self._runs = 0
        self._pinned = None               # the stream this (repeatable) plan last pinned itself to
        self._fast = _NO_STREAM           # the stream whose runs take run()'s fast path
        self._ws_ptr = _NULL              # the plan's own workspace (NULL until allocated)
        self._phase2 = self._PHASE2
        self._unpin_lists: list = []      # the `_unpin` lists of every stream it is pinned on
        self._adopt(_Res(type(self).__name__, lambda: _destroy_executor(box), deps),
                    _close_plan, self._unpin_lists)

    def close(self) -> None:
        """Destroy the executor (once no queued run needs it) and drop the plan's references."""
        super().close()
        self._tensors = ()
        self._cells = ()
        self._workspace = None
        self._pinned = None
        self._fast = _NO_STREAM

    @property
    def runs(self) -> int:
        return self._runs

    @property
    def consumed(self) -> bool:
        """True for a one-shot plan that has run (it cannot run again)."""
        return not self.repeatable and self._runs > 0

    def run(self, workspace: DeviceMemory | None = None, stream=None, *, sync: bool = False) -> Tensor:
        """Phase 2 on ``stream`` (default: the out tensor's device's default stream).

        ``workspace`` must hold ``workspace_size`` bytes; when None and the size is not 0 the
        plan allocates one (kept for later runs).  Returns ``out``, without waiting unless
        ``sync`` (then as ``stream.synchronize()``).
        """
        if stream is self._fast and workspace is None and self._live[0] and stream._live[0]:
            # Steady state of a repeatable plan: pinned on this stream, its own workspace (or
            # none), so nothing to check or hold beyond the two open flags.
            st = self._phase2(self._ws_ptr, self.workspace_size, self._box[0], stream._handle)
            if st:
                check(st, self._OP)
            self._runs += 1
            if sync and not stream._pending and not stream._unpin:
                # Nothing for a synchronize() to release: wait directly.  Two calls into C
                # (launch, wait) measure faster than one that does both: the worker starts
                # while this thread returns from the first.
                st = _sync_stream(stream._handle)
                if not st:
                    return self.out
            a, b, c = self._cells
            a[0] = b[0] = c[0] = stream
            if st:
                check(st, "aclrtSynchronizeStream")
            if sync:
                stream.synchronize()
            return self.out
        out = self._run(workspace, stream)
        if sync:
            (stream if stream is not None else out._device_state.get_default_stream()).synchronize()
        return out

    def _run(self, workspace, stream) -> Tensor:
        if not self._live[0]:
            self._check_open()
        executor = self._box[0]
        if executor is None:
            raise PlanConsumedError(f"{type(self).__name__} is one-shot and has already run; "
                                    "create it with repeatable=True to run it again")
        if stream is None:
            stream = self.out._device_state.get_default_stream()
        if type(stream) is not Stream:
            raise TypeError(f"stream must be a Stream, not {type(stream).__name__}")
        if not stream._live[0]:
            stream._check_open()
        if self.repeatable and stream is not self._pinned:
            # Held until the plan is closed and the stream has synced since: steady-state
            # runs on the same stream then cost no retain/release at all.
            stream._pin(self._res, self._unpin_lists)
            self._pinned = stream
        size = self.workspace_size
        if size == 0:
            ws_ptr = _NULL
        else:
            if workspace is None:
                if self._workspace is None:
                    self._workspace = Workspace(self.out._device_state, size)
                    self._res._deps += (self._workspace._res.retain(),)
                    self._workspace.close()     # the plan's reference keeps it
                    self._ws_ptr = self._workspace._ptr
                ws_ptr = self._ws_ptr
            else:
                if not isinstance(workspace, DeviceMemory):
                    raise TypeError(f"workspace must be a DeviceMemory (device.allocate(n)), not "
                                    f"{type(workspace).__name__}")
                if workspace.nbytes < size:
                    raise ValueError(f"workspace of {workspace.nbytes} bytes, {size} needed")
                ws_ptr = workspace.ptr
                stream._keep(workspace._res)
        st = self._phase2(ws_ptr, size, executor, stream._handle)
        if st:
            check(st, self._OP)
        self._runs += 1
        if self.repeatable:
            if workspace is None:
                self._fast = stream             # later runs here take the fast path
        else:
            self._box[0] = None              # the run owns the executor now
            stream._keep(self._res)          # tensors, scalars live until the stream syncs
        a, b, c = self._cells
        a[0] = b[0] = c[0] = stream
        return self.out

    def __repr__(self):
        state = "closed" if self.closed else ("consumed" if self.consumed else "ready")
        return f"<{type(self).__name__} workspace_size={self.workspace_size} {state}>"


def _as_scalar(value, owned: list, name: str) -> Scalar:
    if isinstance(value, Scalar):
        return value
    if isinstance(value, (str, bytes, bytearray)) or value is None:
        raise TypeError(f"{name} must be a real number or a Scalar, not {type(value).__name__} {value!r:.40}")
    number = _args.real(value, name)
    s = Scalar(number, "float32")
    owned.append(s)
    return s


class HardtanhBackwardPlan(_Plan):
    """Phase 1 of aclnnHardtanhBackward(gradOutput, self, min, max, out).

    ``min_val`` / ``max_val``: a float (made into a float32 Scalar) or a Scalar.
    ``repeatable=True`` calls aclSetAclOpExecutorRepeatable so ``run()`` may be repeated.
    """

    _OP = "aclnnHardtanhBackward"
    _PHASE2 = staticmethod(_ht_phase2)

    def __init__(plan, grad_output: Tensor, self: Tensor, min_val=-1.0, max_val=1.0, out: Tensor | None = None,
                 repeatable: bool = False):
        _check_tensors(grad_output, self, out)
        owned: list[Scalar] = []
        created = None
        try:
            lo, hi = _as_scalar(min_val, owned, "min_val"), _as_scalar(max_val, owned, "max_val")
            if out is None:
                out = created = Tensor.empty(grad_output.shape, grad_output.dtype, _device_of(grad_output))
            g, x, o, a, b = grad_output.handle, self.handle, out.handle, lo.handle, hi.handle
            plan._plan(lambda size, exe: lib.aclnnHardtanhBackwardGetWorkspaceSize(g, x, a, b, o, size, exe),
                       (grad_output, self, out), (lo, hi), out, repeatable)
        except BaseException:
            if created is not None:
                created.close()
            raise
        finally:
            for s in owned:
                s.close()   # the plan holds its own reference


_PROMOTE = {
    (float16, float32): float32, (float32, float16): float32,
    (bfloat16, float32): float32, (float32, bfloat16): float32,
    (float16, bfloat16): float32, (bfloat16, float16): float32,
}


def hardsigmoid_result_dtype(grad_dtype, self_dtype) -> np.dtype:
    """The dtype CANN promotes gradOutput x self to (the default out dtype)."""
    g, s = np.dtype(grad_dtype), np.dtype(self_dtype)
    if g == s:
        return g
    return _PROMOTE.get((g, s), g)


class HardsigmoidBackwardPlan(_Plan):
    """Phase 1 of aclnnHardsigmoidBackward(gradOutput, self, out).  When ``out`` is None it is
    allocated with the promoted dtype of gradOutput and self."""

    _OP = "aclnnHardsigmoidBackward"
    _PHASE2 = staticmethod(_hs_phase2)

    def __init__(plan, grad_output: Tensor, self: Tensor, out: Tensor | None = None, repeatable: bool = False):
        _check_tensors(grad_output, self, out)
        created = None
        if out is None:
            out = created = Tensor.empty(grad_output.shape, hardsigmoid_result_dtype(grad_output.dtype, self.dtype),
                                         _device_of(grad_output))
        try:
            g, x, o = grad_output.handle, self.handle, out.handle
            plan._plan(lambda size, exe: lib.aclnnHardsigmoidBackwardGetWorkspaceSize(g, x, o, size, exe),
                       (grad_output, self, out), (), out, repeatable)
        except BaseException:
            if created is not None:
                created.close()
            raise


def _device_of(t: Tensor):
    return t._device_state


def _check_tensors(grad_output, self, out) -> None:
    for name, t in (("grad_output", grad_output), ("self", self), ("out", out)):
        if not isinstance(t, Tensor) and (t is not None or name != "out"):
            raise TypeError(f"{name} must be a Tensor, not {type(t).__name__}")


def _prepare(arrays: list, out):
    """Tensors for every argument; (tensors, temporaries, numpy_mode)."""
    from .device import default_device
    objs = [a for a in (*arrays, out) if isinstance(a, Tensor)]
    numpy_mode = not objs
    state = objs[0]._device_state if objs else default_device()._state
    temps, tensors = [], []
    try:
        for a in arrays:
            if isinstance(a, Tensor):
                tensors.append(a)
            else:
                t = Tensor(a, state)
                temps.append(t)
                tensors.append(t)
        if out is not None and not isinstance(out, Tensor):
            raise TypeError("out must be a Tensor")
    except BaseException:
        for t in temps:
            t.close()
        raise
    return tensors, temps, numpy_mode


def _finish(plan, temps, numpy_mode, stream, sync=False):
    try:
        out = plan.run(None, stream, sync=sync)
        if numpy_mode:
            return out.numpy()
        return out
    finally:
        plan.close()
        for t in temps:
            t.close()
        if numpy_mode:
            plan.out.close()


def _bound(value):
    """A Scalar for a one-call bound without creating one per call: the cached float32 Scalar
    for a float/int, the Scalar itself when open; None sends the call down the general path."""
    t = type(value)
    if t is float or t is int:
        return cached_float32(value)
    if t is Scalar and value._live[0]:
        return value
    return None


def _launch(status, size, exe, phase2, op, deps, stream, g, x, o):
    """Phase 2 of a one-call operator whose phase 1 returned ``status``.  ``deps`` are
    retained; on success the stream takes them over (held until it syncs), else they are
    released here."""
    try:
        if status:
            check(status, op + "GetWorkspaceSize")
        executor, ws_size = exe[0], size[0]
        ws_ptr = _NULL
        if ws_size:
            try:
                ws = Workspace(o._device_state, ws_size)
            except BaseException:
                _destroy_executor([executor])
                raise
            ws_ptr = ws._ptr
            deps += (ws._res,)               # the launch takes over the workspace's reference
            ws._finalizer.detach()
        status = phase2(ws_ptr, ws_size, executor, stream._handle)
        if status:
            _destroy_executor([executor])    # not consumed by a failed launch
            check(status, op)
    except BaseException:
        release_all(deps)
        raise
    _hand_over(stream, deps, g, x, o)
    return o


def _hand_over(stream, deps, g, x, o) -> None:
    """After a launch: the stream owns ``deps`` (retained) until it syncs; one entry for
    repeated identical calls.  The tensors record the stream so numpy() waits for it."""
    pending = stream._pending
    if pending and pending[-1] == deps:      # the same resources are held already
        release_all(deps)
    else:
        pending.append(deps)
        if len(pending) > _PENDING_LIMIT:
            stream.synchronize()
    g._pending[0] = x._pending[0] = o._pending[0] = stream


def _fused_buffers():
    b = _tls.fused = (ffi.new("uint64_t *"), ffi.new("aclOpExecutor **"), ffi.new("int[3]"))
    return b


def _after_fused(st, info, size, exe, phase2, op, deps, stream, sync, g, x, o):
    """Every outcome of a fused call (see _build/fused_calls.h) but a finished wait in C: a
    launch the stream now holds, a workspace to supply, errors.  Returns ``o``, or None when a
    resource was already released (the caller's general path then names it)."""
    step = info[0]
    if info[1]:
        finish_dropped(deps, info[1])
    if step == _STEP_RETAIN:
        return None
    if st == 0 and step == _STEP_PHASE1:     # phase 1 wants a workspace; deps are held
        _launch(0, size, exe, phase2, op, deps, stream, g, x, o)
    elif step == _STEP_SYNC:
        if st:                               # launched, the wait failed: deps are still held
            _hand_over(stream, deps, g, x, o)
            check(st, "aclrtSynchronizeStream")
        return o                             # waited in C, deps already let go
    elif st:
        check(st, op + "GetWorkspaceSize" if step == _STEP_PHASE1 else op)
    else:                                    # launched without waiting: deps are held
        _hand_over(stream, deps, g, x, o)
    if sync:
        stream.synchronize()
    return o


def hardtanh_backward(grad_output, self, min_val=-1.0, max_val=1.0, *, out: Tensor | None = None, stream=None,
                      sync: bool = False):
    """Gradient of hardtanh: ``out = grad_output`` where ``min_val < self < max_val`` (or self is
    NaN), else 0.  Returns the out Tensor, enqueued on ``stream`` (default: the device's
    default stream) and not waited for unless ``sync`` (which waits for the stream as
    ``stream.synchronize()`` does); called with numpy arrays only, it waits and returns a numpy
    array."""
    if type(out) is Tensor and type(grad_output) is Tensor and type(self) is Tensor:
        # Fast path: Tensors and a stream, bounds from the float32 Scalar cache, no plan object;
        # holding the five resources, phase 1, phase 2 and the wait are one crossing into C.
        lo = _float32_cache.get(min_val) if type(min_val) is float else None
        if lo is None:
            lo = _bound(min_val)
        hi = _float32_cache.get(max_val) if type(max_val) is float else None
        if hi is None:
            hi = _bound(max_val)
        if (lo is not None and hi is not None and grad_output._live[0] and self._live[0]
                and out._live[0]):
            if stream is None:
                stream = out._device_state.get_default_stream()
            if type(stream) is Stream and stream._live[0]:
                try:
                    size, exe, info = _tls.fused
                except AttributeError:
                    size, exe, info = _fused_buffers()
                # Waiting in C is only right when the stream holds nothing to release after.
                wait = sync and not stream._pending and not stream._unpin
                st = _ht_fused(grad_output._handle, self._handle, lo._handle, hi._handle, out._handle,
                               stream._handle, _WAIT if wait else _KEEP, grad_output._cnt, self._cnt, out._cnt,
                               lo._cnt, hi._cnt, size, exe, info)
                if wait and not st and not info[1] and info[0] == _STEP_SYNC:
                    return out                   # done: the work has finished, nothing is held
                deps = (grad_output._res, self._res, out._res, lo._res, hi._res)   # in the order of the counts
                r = _after_fused(st, info, size, exe, _ht_phase2, "aclnnHardtanhBackward", deps, stream,
                                 sync, grad_output, self, out)
                if r is not None:
                    return r
    (g, x), temps, numpy_mode = _prepare([grad_output, self], out)
    try:
        plan = HardtanhBackwardPlan(g, x, min_val, max_val, out)
    except BaseException:
        for t in temps:
            t.close()
        raise
    return _finish(plan, temps, numpy_mode, stream, sync)


def hardsigmoid_backward(grad_output, self, *, out: Tensor | None = None, stream=None, sync: bool = False):
    """Gradient of hardsigmoid: ``out = grad_output / 6`` where ``0 < self / 6 + 1/2 < 1``, else 0,
    in the promoted dtype (float16 x float32 -> float32, ...) unless ``out`` says otherwise.
    ``stream`` and ``sync`` as for :func:`hardtanh_backward`."""
    if type(out) is Tensor and type(grad_output) is Tensor and type(self) is Tensor:
        if grad_output._live[0] and self._live[0] and out._live[0]:
            if stream is None:
                stream = out._device_state.get_default_stream()
            if type(stream) is Stream and stream._live[0]:
                try:
                    size, exe, info = _tls.fused
                except AttributeError:
                    size, exe, info = _fused_buffers()
                wait = sync and not stream._pending and not stream._unpin
                st = _hs_fused(grad_output._handle, self._handle, out._handle, stream._handle,
                               _WAIT if wait else _KEEP, grad_output._cnt, self._cnt, out._cnt, size, exe, info)
                if wait and not st and not info[1] and info[0] == _STEP_SYNC:
                    return out
                deps = (grad_output._res, self._res, out._res)
                r = _after_fused(st, info, size, exe, _hs_phase2, "aclnnHardsigmoidBackward", deps, stream,
                                 sync, grad_output, self, out)
                if r is not None:
                    return r
    (g, x), temps, numpy_mode = _prepare([grad_output, self], out)
    try:
        plan = HardsigmoidBackwardPlan(g, x, out)
    except BaseException:
        for t in temps:
            t.close()
        raise
    return _finish(plan, temps, numpy_mode, stream, sync)
