"""The operators through the Python layer: values, dtypes, views, plans, hot path."""

import ml_dtypes
import numpy as np
import pytest

G = np.arange(8, dtype=np.float32).reshape(4, 2)
X = np.array([1, 1, 1, 2, 1, 2, 3, 3], np.float32).reshape(4, 2)


def test_numpy_in_numpy_out(hg):
    r = hg.hardtanh_backward(G, X, 1.2, 2.4)
    assert isinstance(r, np.ndarray)
    np.testing.assert_array_equal(r.ravel(), [0, 0, 0, 3, 0, 5, 0, 0])
    r = hg.hardsigmoid_backward(G, G)
    np.testing.assert_array_equal(r.ravel(), np.float32([0, np.float32(1) * np.float32(1 / 6),
                                                          np.float32(2) * np.float32(1 / 6), 0, 0, 0, 0, 0]))


def test_scalar_objects_and_defaults(hg):
    with hg.Device(0) as dev, hg.Tensor(G, dev) as g, hg.Tensor(X - 2, dev) as x, \
            hg.Scalar(-1.5) as lo, hg.Scalar(1.0, "float16") as hi:
        # self = [-1, -1, -1, 0, -1, 0, 1, 1]
        with hg.hardtanh_backward(g, x, lo, hi) as out:
            np.testing.assert_array_equal(out.numpy().ravel(), [0, 1, 2, 3, 4, 5, 0, 0])
        with hg.hardtanh_backward(g, x) as out:      # min -1, max 1, both exclusive
            np.testing.assert_array_equal(out.numpy().ravel(), [0, 0, 0, 3, 0, 5, 0, 0])


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_hardtanh_dtypes(hg, dtype):
    npdt = hg.dtypes.to_numpy_dtype(dtype)
    with hg.Device(0) as dev, hg.Tensor(G.astype(npdt), dev) as g, hg.Tensor(X.astype(npdt), dev) as x:
        with hg.hardtanh_backward(g, x, 1.2, 2.4) as out:
            assert out.dtype == npdt
            np.testing.assert_array_equal(out.numpy().astype(np.float32).ravel(), [0, 0, 0, 3, 0, 5, 0, 0])


@pytest.mark.parametrize("gd, xd, want", [
    ("float32", "float32", np.float32), ("float16", "float32", np.float32),
    ("bfloat16", "float32", np.float32), ("float16", "bfloat16", np.float32),
    ("float16", "float16", np.float16), ("bfloat16", "bfloat16", ml_dtypes.bfloat16),
])
def test_hardsigmoid_promotion(hg, gd, xd, want):
    with hg.Device(0) as dev, hg.Tensor(G, dev, gd) as g, hg.Tensor(G, dev, xd) as x:
        with hg.hardsigmoid_backward(g, x) as out:
            assert out.dtype == np.dtype(want)
            np.testing.assert_allclose(out.numpy().astype(np.float32).ravel()[:3], [0, 1 / 6, 2 / 6], rtol=4e-3)


def test_views_are_honoured(hg):
    with hg.Device(0) as dev, hg.Tensor(G, dev) as g, hg.Tensor(X, dev) as x:
        gt, xt = g.T, x.T
        with hg.hardtanh_backward(gt, xt, 1.2, 2.4) as out:
            np.testing.assert_array_equal(out.numpy(), np.where((X > 1.2) & (X < 2.4), G, 0).T)
        # Output into a transposed view of a zero buffer.
        with hg.zeros((2, 4), "float32", dev) as buf:
            outv = buf.T
            hg.hardtanh_backward(g, x, 1.2, 2.4, out=outv)
            np.testing.assert_array_equal(buf.numpy(), np.where((X > 1.2) & (X < 2.4), G, 0).T)
            outv.close()
        with g[1:, 1] as a, x[1:, 1] as b, hg.hardtanh_backward(a, b, 1.2, 2.4) as out:
            np.testing.assert_array_equal(out.numpy(), [3, 5, 0])
        with g.view((2, 2), (1, 2), 1) as v:
            np.testing.assert_array_equal(v.numpy(), [[1, 3], [2, 4]])
        with pytest.raises(ValueError):
            g.view((3, 3))
        gt.close()
        xt.close()


def test_nine_dims_reach_the_operator(hg):
    shape = (1,) * 9
    with hg.Device(0) as dev, hg.zeros(shape, "float32", dev) as a, hg.zeros(shape, "float32", dev) as b:
        with pytest.raises(hg.AclnnParamError) as ei:
            hg.hardsigmoid_backward(a, b)
        assert ei.value.code == 161002


def test_zero_d_and_empty(hg):
    with hg.Device(0) as dev, hg.Tensor(np.float32(5), dev) as g, hg.Tensor(np.float32(0.5), dev) as x:
        with hg.hardtanh_backward(g, x) as out:
            assert out.shape == () and out.numpy() == np.float32(5)
    with hg.Device(0) as dev, hg.empty((0, 3), "float32", dev) as a:
        with hg.HardsigmoidBackwardPlan(a, a) as plan:
            assert plan.workspace_size == 0
            with plan.run() as out:
                assert out.numpy().shape == (0, 3)


def test_explicit_workspace_and_shape_mismatch(hg):
    with hg.Device(0) as dev, hg.Tensor(G, dev) as g, hg.Tensor(X, dev) as x, hg.zeros((2, 4), "float32", dev) as o:
        with pytest.raises(hg.AclnnParamError):
            hg.HardtanhBackwardPlan(g, x, 1.2, 2.4, o)
        with hg.HardtanhBackwardPlan(g, x, 1.2, 2.4) as plan, dev.allocate(64) as ws, plan.out as out:
            plan.run(ws, dev.default_stream)
            np.testing.assert_array_equal(out.numpy().ravel(), [0, 0, 0, 3, 0, 5, 0, 0])


def test_repeated_small_ops_on_one_stream_stay_correct(hg):
    """Many back-to-back launches on one stream: each result is right, nothing piles up."""
    with hg.Device(0) as dev, dev.create_stream() as s, hg.Tensor(G, dev) as g, hg.Tensor(X, dev) as x, \
            hg.empty((4, 2), "float32", dev) as out:
        for _ in range(300):
            hg.hardtanh_backward(g, x, 1.2, 2.4, out=out, stream=s)
            s.synchronize()
        np.testing.assert_array_equal(out.numpy().ravel(), [0, 0, 0, 3, 0, 5, 0, 0])
