"""Regressions found by reviewing the Python layer: leaks on bad input, views past their memory,
a race between the float32 Scalar cache and the one-call fast path, unclear errors for plans."""
import gc

import numpy as np
import pytest

import py_op_cases

CASES = py_op_cases.cases()
SCALAR_CASES = py_op_cases.with_scalars()


def _live(hg):
    gc.collect()
    return {k: v for k, v in hg.live_counts().items() if v}


def test_from_device_pointer_bad_pointer_or_offset_does_not_leak_the_owner(hg):
    with hg.Device(0) as dev:
        before = _live(hg)
        mem = dev.allocate(64)
        with pytest.raises((TypeError, ValueError)):
            hg.Tensor.from_device_pointer("not an address", (4,), owner=mem)
        with pytest.raises((TypeError, ValueError)):
            hg.Tensor.from_device_pointer(int(mem), (4,), offset="x", owner=mem)
        mem.close()
        assert _live(hg) == before          # the owner's memory was freed by its close


def test_from_device_pointer_view_must_fit_in_its_device_memory_owner(hg):
    with hg.Device(0) as dev, dev.allocate(64) as mem:
        with pytest.raises(ValueError, match="64-byte"):
            hg.Tensor.from_device_pointer(int(mem), (1000,), owner=mem)
        with pytest.raises(ValueError, match="64-byte"):
            hg.Tensor.from_device_pointer(int(mem) + 32, (8, 4), "float16", owner=mem)   # 32 bytes past the end
        with pytest.raises(ValueError, match="64-byte"):
            hg.Tensor.from_device_pointer(int(mem), (2,), strides=(1,), offset=15, owner=mem)
        base = hg.zeros((4,), "float32", dev)
        with pytest.raises(ValueError, match="16-byte"):
            hg.Tensor.from_device_pointer(base.data_ptr, (5,), owner=base)
        base.close()
        # exactly filling the allocation is fine, also from an inner address
        with hg.Tensor.from_device_pointer(int(mem), (16,), owner=mem) as t:
            assert t.numpy().shape == (16,)
        with hg.Tensor.from_device_pointer(int(mem) + 32, (8,), owner=mem) as t:
            assert t.shape == (8,)


class _RacingLookup:
    """The scalar lookup hands out the cached Scalar, then release_defaults() closes it: the
    interleaving of a one-call in one thread and release_defaults() in another."""

    def __init__(self, real, release):
        self.real, self.release = real, release

    def __call__(self, key):
        s = self.real(key)
        self.release()
        return s


@pytest.mark.parametrize("case", SCALAR_CASES, ids=repr)
def test_one_call_survives_cached_scalars_released_concurrently(hg, monkeypatch, case):
    from pyacl_hardgrad import scalar
    with hg.Device(0) as dev:
        ts = case.tensors(hg, dev)
        scalars = [float(v) for v in case.scalar_values]
        want = case.expected(scalars=scalars)
        case.call(ts, scalars=scalars).numpy()                 # fills the cache
        assert all(scalar.lookup_float32(v) is not None for v in scalars if v)
        fn = case.fn
        monkeypatch.setitem(fn.__globals__, "_f32", _RacingLookup(scalar.lookup_float32, scalar.release_cached_scalars))
        o = hg.empty(want.shape, want.dtype, dev)
        o.copy_from(np.full(want.shape, 9.0, want.dtype))
        r = case.call(ts, out=o, scalars=scalars)
        np.testing.assert_array_equal(r.numpy(), want)
        for t in ts + [o]:
            t.close()


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_plans_reject_non_tensors_naming_the_argument(hg, case):
    with hg.Device(0) as dev, hg.zeros((8,), "float32", dev) as t:
        arr = np.ones(8, np.float32)
        for i, p in enumerate(case.tensor_params):
            args = [t] * len(case.tensor_params)
            args[i] = arr
            with pytest.raises(TypeError, match=f"{p.name} must be a Tensor"):
                case.plan(args)
        with pytest.raises(TypeError, match=case.out_param.name):
            case.plan([t] * len(case.tensor_params), out=arr)


def test_closing_a_device_waits_for_its_default_stream_so_nothing_stays_alive(hg):
    hg.release_defaults()
    before = _live(hg)
    dev = hg.Device(0)
    for case in CASES:
        ts = case.tensors(hg, dev)
        o = case.call(ts)                        # queued on the default stream, not synchronized
        for t in ts + [o]:
            t.close()
    dev.close()
    hg.release_defaults()
    after = _live(hg)
    assert after == before, after


@pytest.mark.parametrize("case", SCALAR_CASES, ids=repr)
def test_bad_scalars_and_workspace_are_named_in_the_error(hg, case):
    with hg.Device(0) as dev, hg.Tensor(np.ones((4, 2), np.float32), dev) as t:
        ts = [t] * len(case.tensor_params)
        first = case.scalar_params[0].name
        bad = ["abc"] + list(case.scalar_values[1:])
        with pytest.raises(TypeError, match=f"{first} must be a real number or a Scalar, not str 'abc'"):
            case.call(ts, scalars=bad)
        with pytest.raises(TypeError, match=f"{first} must be a real number or a Scalar, not NoneType"):
            case.call(ts, scalars=[None] + list(case.scalar_values[1:]))
        # a transposed view needs a workspace, so run() looks at the one it is given
        with case.plan([t.T] * len(ts)) as plan:
            assert plan.workspace_size > 0
            with pytest.raises(TypeError, match="workspace must be a DeviceMemory"):
                plan.run(workspace=bytearray(plan.workspace_size))
            with dev.allocate(1) as small, pytest.raises(ValueError, match="workspace of 1 bytes"):
                plan.run(workspace=small)
            plan.out.close()


@pytest.mark.parametrize("shape, strides", [((70000,), (0,)), ((350, 200), (0, 1)), ((300, 300), (1, 1))])
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_out_whose_elements_share_addresses_gets_the_reference_order(hg, case, shape, strides):
    """An out view that is not one-to-one (broadcast or interleaved strides) is written in
    element order on one thread, so the result is defined: the last element wins."""
    n = int(np.prod(shape))
    rng = np.random.default_rng(3)
    host = [rng.uniform(-4, 4, n).astype(np.float32).reshape(shape) for _ in case.tensor_params]
    r = case.expected(host)
    span = sum((d - 1) * s for d, s in zip(shape, strides)) + 1
    with hg.Device(0) as dev, dev.create_stream() as s, hg.zeros((span,), r.dtype, dev) as base:
        ts = case.tensors(hg, dev, host)
        want = np.zeros(span, r.dtype)
        for idx in np.ndindex(*shape):                  # the reference order: row-major
            want[sum(i * st for i, st in zip(idx, strides))] = r[idx]
        with base.view(shape, strides, 0) as out:
            for _ in range(10):                         # a race would show in some of the runs
                base.copy_from(np.zeros(span, r.dtype))
                case.call(ts, out=out, stream=s)
                s.synchronize()
                np.testing.assert_array_equal(base.numpy(), want)
        for t in ts:
            t.close()
