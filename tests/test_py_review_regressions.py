"""Regressions found by reviewing the Python layer: leaks on bad input, views past their memory,
a race between the float32 Scalar cache and the one-call fast path, unclear errors for plans."""
import gc

import numpy as np
import pytest


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


class _RacingCache(dict):
    """get() hands out the cached Scalar, then release_defaults() closes it: the interleaving of
    a one-call operator in one thread and release_defaults() in another."""

    def __init__(self, real, release):
        super().__init__()
        self.real, self.release = real, release

    def get(self, key, default=None):
        s = self.real.get(key, default)
        self.release()
        return s


def test_one_call_survives_cached_scalars_released_concurrently(hg, monkeypatch):
    from pyacl_hardgrad import ops, scalar
    with hg.Device(0) as dev:
        g = hg.Tensor(np.array([-2.0, 0.1, 0.3, 2.0], np.float32), dev)
        o = hg.empty((4,), "float32", dev)
        hg.hardtanh_backward(g, g, -0.25, 0.75, out=o).numpy()     # fills the cache
        assert scalar._float32_cache
        monkeypatch.setattr(ops, "_float32_cache", _RacingCache(scalar._float32_cache,
                                                                scalar.release_cached_scalars))
        o.copy_from(np.full(4, 9.0, np.float32))
        r = hg.hardtanh_backward(g, g, -0.25, 0.75, out=o)
        np.testing.assert_array_equal(r.numpy(), np.array([0.0, 0.1, 0.3, 0.0], np.float32))
        g.close()
        o.close()


def test_plans_reject_non_tensors_naming_the_argument(hg):
    with hg.Device(0) as dev, hg.zeros((3,), "float32", dev) as t:
        arr = np.ones(3, np.float32)
        with pytest.raises(TypeError, match="grad_output"):
            hg.HardsigmoidBackwardPlan(arr, t)
        with pytest.raises(TypeError, match="self"):
            hg.HardtanhBackwardPlan(t, arr)
        with pytest.raises(TypeError, match="out"):
            hg.HardtanhBackwardPlan(t, t, out=arr)
        with pytest.raises(TypeError, match="grad_output"):
            hg.HardtanhBackwardPlan(arr, t)


def test_closing_a_device_waits_for_its_default_stream_so_nothing_stays_alive(hg):
    hg.release_defaults()
    before = _live(hg)
    dev = hg.Device(0)
    g = hg.Tensor(np.arange(8, dtype=np.float32), dev)
    o = hg.empty((8,), "float32", dev)
    hg.hardsigmoid_backward(g, g, out=o)        # queued on the default stream, not synchronized
    g.close()
    o.close()
    dev.close()
    hg.release_defaults()
    after = _live(hg)
    assert after == before, after


def test_bad_bounds_and_workspace_are_named_in_the_error(hg):
    with hg.Device(0) as dev, hg.Tensor(np.ones((4, 2), np.float32), dev) as t:
        with pytest.raises(TypeError, match="min_val must be a real number"):
            hg.hardtanh_backward(t, t, "abc", 1.0)
        with pytest.raises(TypeError, match="max_val must be a real number"):
            hg.hardtanh_backward(t, t, 0.0, None)
        # a transposed view needs a workspace, so run() looks at the one it is given
        with hg.HardtanhBackwardPlan(t.T, t.T, 0.0, 2.0) as plan:
            assert plan.workspace_size > 0
            with pytest.raises(TypeError, match="workspace must be a DeviceMemory"):
                plan.run(workspace=bytearray(plan.workspace_size))


@pytest.mark.parametrize("shape, strides", [((70000,), (0,)), ((350, 200), (0, 1)), ((300, 300), (1, 1))])
def test_out_whose_elements_share_addresses_gets_the_reference_order(hg, shape, strides):
    """An out view that is not one-to-one (broadcast or interleaved strides) is written in
    element order on one thread, so the result is defined: the last element wins."""
    n = int(np.prod(shape))
    g = (np.arange(n, dtype=np.float32) + 1).reshape(shape)
    x = np.zeros(shape, np.float32)                     # every element inside the bounds
    span = sum((d - 1) * s for d, s in zip(shape, strides)) + 1
    with hg.Device(0) as dev, dev.create_stream() as s, hg.Tensor(g, dev) as tg, \
            hg.Tensor(x, dev) as tx, hg.zeros((span,), "float32", dev) as base:
        want = np.zeros(span, np.float32)
        for idx in np.ndindex(*shape):                  # the reference order: row-major
            want[sum(i * st for i, st in zip(idx, strides))] = g[idx]
        with base.view(shape, strides, 0) as out:
            for _ in range(10):                         # a race would show in some of the runs
                base.copy_from(np.zeros(span, np.float32))
                hg.hardtanh_backward(tg, tx, -1.0, 1.0, out=out, stream=s)
                s.synchronize()
                np.testing.assert_array_equal(base.numpy(), want)
