"""The two-phase rules every registered operator shares (one case per aclnn function, through the
raw binding): a strided view needs a workspace and phase 2 refuses a NULL or short one (161002);
a one-shot executor runs once and refuses a second launch (161002); a repeatable one runs again
and re-reads its inputs; the tensor descriptors may be destroyed right after phase 1."""
from __future__ import annotations

import math

import numpy as np
import pytest

import hg_registry
from hg_aclnn import S, T
from hg_cases import DTYPES, assert_same, samples

INVALID = 161002
CASES = hg_registry.one_case_per_function()

SHAPE = (5, 7)


def _args(case, rng, stepped):
    """Phase-1 arguments (tensors stepped by 2 when stepped), the inputs, the output positions."""
    n = math.prod(SHAPE)
    args, inputs, outs = [], [], []
    for i, a in enumerate(case.args):
        if a[0] == "scalar":
            args.append(S(a[2], DTYPES[a[1]]))
            continue
        data = samples(a[1], rng, n).reshape(SHAPE) if a[0] != "out" else np.zeros(SHAPE, DTYPES[a[1]])
        if a[0] != "out":
            inputs.append(data)
        if a[0] != "in":
            outs.append(i)
        args.append(T(data, strides=[2 * SHAPE[1], 2], offset=1) if stepped else T(data))
    return args, inputs, outs


def _launch(aclnn, case, exe, ws_ptr, ws_size):
    return getattr(aclnn.lib, case.func)(ws_ptr, ws_size, exe, aclnn.stream)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.func)
def test_strided_views_need_the_workspace(aclnn, case):
    ffi, lib = aclnn.ffi, aclnn.lib
    args, inputs, outs = _args(case, np.random.default_rng(1), stepped=True)
    rc, msg, ws, exe, infos, _ = aclnn.phase1(case.func, args)
    assert rc == 0 and ws > 0, (rc, msg, ws)
    assert _launch(aclnn, case, exe, ffi.NULL, ws) == INVALID
    box = ffi.new("void **")
    assert lib.aclrtMalloc(box, ws, 0) == 0
    try:
        assert _launch(aclnn, case, exe, box[0], ws - 1) == INVALID     # short: refused, not consumed
        assert _launch(aclnn, case, exe, box[0], ws) == 0
        aclnn._owned.remove(("exe", exe))
        assert lib.aclrtSynchronizeStream(aclnn.stream) == 0
        assert_same(aclnn.read(infos[outs[0]]).ravel(), np.asarray(case.model(*inputs)).ravel(), case.func,
                    case.nan_payload)
    finally:
        lib.aclrtFree(box[0])


@pytest.mark.check_findings("executor-reuse")
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.func)
def test_one_shot_executor_refuses_a_second_launch(aclnn, case):
    args, _, _ = _args(case, np.random.default_rng(2), stepped=False)
    rc, msg, ws, exe, *_ = aclnn.phase1(case.func, args)
    assert rc == 0 and ws == 0, msg
    assert _launch(aclnn, case, exe, aclnn.ffi.NULL, 0) == 0
    aclnn._owned.remove(("exe", exe))
    assert aclnn.lib.aclrtSynchronizeStream(aclnn.stream) == 0
    assert _launch(aclnn, case, exe, aclnn.ffi.NULL, 0) == INVALID


@pytest.mark.parametrize("case", [c for c in CASES if not any(a[0] == "inout" for a in c.args)],
                         ids=lambda c: c.func)
def test_repeatable_executor_rereads_its_inputs(aclnn, case):
    ffi, lib = aclnn.ffi, aclnn.lib
    rng = np.random.default_rng(3)
    args, inputs, outs = _args(case, rng, stepped=False)
    rc, msg, ws, exe, infos, _ = aclnn.phase1(case.func, args)
    assert rc == 0, msg
    assert lib.aclSetAclOpExecutorRepeatable(exe) == 0
    for run in range(3):
        if run:                                   # new input data between runs, same device memory
            k = 0
            for i, a in enumerate(case.args):
                if a[0] == "in":
                    fresh = samples(a[1], rng, math.prod(SHAPE)).reshape(SHAPE)
                    inputs[k] = fresh
                    dev = infos[i][0]
                    assert lib.aclrtMemcpy(dev, fresh.nbytes, ffi.from_buffer(fresh), fresh.nbytes, 1) == 0
                    k += 1
        assert _launch(aclnn, case, exe, ffi.NULL, 0) == 0
        assert lib.aclrtSynchronizeStream(aclnn.stream) == 0
        assert_same(aclnn.read(infos[outs[0]]).ravel(), np.asarray(case.model(*inputs)).ravel(),
                    f"{case.func} run {run}", case.nan_payload)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.func)
def test_descriptors_may_be_destroyed_after_phase_1(aclnn, case):
    ffi, lib = aclnn.ffi, aclnn.lib
    args, inputs, outs = _args(case, np.random.default_rng(4), stepped=False)
    rc, msg, ws, exe, infos, cargs = aclnn.phase1(case.func, args)
    assert rc == 0, msg
    for kind, h in list(aclnn._owned):            # destroy every tensor and scalar descriptor now
        if kind in ("tensor", "scalar") and h in cargs:
            assert (lib.aclDestroyTensor(h) if kind == "tensor" else lib.aclDestroyScalar(h)) == 0
            aclnn._owned.remove((kind, h))
    assert _launch(aclnn, case, exe, ffi.NULL, 0) == 0
    aclnn._owned.remove(("exe", exe))
    assert lib.aclrtSynchronizeStream(aclnn.stream) == 0
    assert_same(aclnn.read(infos[outs[0]]).ravel(), np.asarray(case.model(*inputs)).ravel(), case.func,
                case.nan_payload)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.func)
def test_phase_2_refuses_another_operators_executor(aclnn, case):
    """Every other registered function's phase 2 refuses this one's executor without consuming
    it; its own phase 2 then runs it; a NULL executor is refused everywhere."""
    others = [c for c in CASES if c.func != case.func]
    args, _, _ = _args(case, np.random.default_rng(5), stepped=False)
    rc, msg, ws, exe, *_ = aclnn.phase1(case.func, args)
    assert rc == 0 and ws == 0, msg
    for other in others:
        assert _launch(aclnn, other, exe, aclnn.ffi.NULL, 0) != 0, other.func
    assert _launch(aclnn, case, exe, aclnn.ffi.NULL, 0) == 0
    aclnn._owned.remove(("exe", exe))
    assert aclnn.lib.aclrtSynchronizeStream(aclnn.stream) == 0
    assert _launch(aclnn, case, aclnn.ffi.NULL, aclnn.ffi.NULL, 0) != 0
