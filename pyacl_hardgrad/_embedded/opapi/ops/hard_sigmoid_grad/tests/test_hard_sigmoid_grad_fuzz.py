"""Property tests of aclnnHardsigmoidBackward through the Python layer against the exact numpy
model (hard_sigmoid_grad_model.py), with the machinery of tests/hg_fuzz.py: random shapes, dtype
combinations, layouts, repeatable plans, large tensors and in-place outs."""
from __future__ import annotations

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis", reason="the fuzz tests need hypothesis (test extra)")
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from hg_fuzz import (DTYPES, INPUT_KINDS, OUTPUT_KINDS, Layout, _bits, _close_all, _pool, assert_out,  # noqa: E402
                     fuzz_settings, large_shapes, layouts, make_values, place_input, place_output, shapes,
                     value_recipes)
import hard_sigmoid_grad_model as hs  # noqa: E402


@fuzz_settings(500)
@given(data=st.data(), shape=shapes(), gd=st.sampled_from(DTYPES), xd=st.sampled_from(DTYPES),
       od=st.sampled_from((None,) + DTYPES), recipe=value_recipes)
def test_hardsigmoid_backward_matches_model(hg, dev, data, shape, gd, xd, od, recipe):
    pool_x = _pool(xd, [3.0, 0.0, 1.0, 6.0], ulps=4)
    pool_g = _pool(gd, [6.0, 1.0])
    lg = data.draw(layouts(len(shape), INPUT_KINDS), "grad layout")
    lx = data.draw(layouts(len(shape), INPUT_KINDS), "self layout")
    lo_out = None if od is None else data.draw(layouts(len(shape), OUTPUT_KINDS), "out layout")
    objs = []
    try:
        g = place_input(hg, dev, recipe, 3, gd, pool_g, shape, lg)
        objs.append(g)
        x = place_input(hg, dev, recipe, 4, xd, pool_x, shape, lx)
        objs.append(x)
        want = hs.hardsigmoid_backward(g.logical(), x.logical(), od)
        if od is None:
            res = hg.hardsigmoid_backward(g.view, x.view)
            objs.append(res)
            assert res.dtype == hs.promote(gd, xd) and res.shape == tuple(shape)
            got = res.numpy()
            same = _bits(got) == _bits(want)
            both_nan = np.isnan(got.astype(np.float32)) & np.isnan(want.astype(np.float32))
            assert (same | both_nan).all(), (got[~(same | both_nan)], want[~(same | both_nan)])
        else:
            o = place_output(hg, dev, od, shape, lo_out)
            objs.append(o)
            res = hg.hardsigmoid_backward(g.view, x.view, out=o.view)
            assert res is o.view
            assert_out(o, want, nan_equal=True)
    finally:
        _close_all(objs)


@fuzz_settings(60)
@given(shape=shapes(), gd=st.sampled_from(DTYPES), xd=st.sampled_from(DTYPES), od=st.sampled_from(DTYPES),
       recipe=value_recipes, repeat=st.integers(2, 3))
def test_repeatable_plans_match_model_on_every_run(hg, dev, shape, gd, xd, od, recipe, repeat):
    """A repeatable plan re-reads its inputs on every run (new data between runs)."""
    lay = Layout("contiguous", tuple(range(len(shape))), (1,) * len(shape), (0,) * len(shape), 0, 0,
                 (False,) * len(shape))
    objs = []
    try:
        g = place_input(hg, dev, recipe, 5, gd, _pool(gd), shape, lay)
        objs.append(g)
        x = place_input(hg, dev, recipe, 6, xd, _pool(xd, [3.0]), shape, lay)
        objs.append(x)
        o = place_output(hg, dev, od, shape, lay)
        objs.append(o)
        plan = hg.HardsigmoidBackwardPlan(g.view, x.view, o.view, repeatable=True)
        objs.append(plan)
        for run in range(repeat):
            if run:
                fresh = make_values(recipe, 100 + run, x.storage.size, xd, _pool(xd, [3.0]))
                x.storage = fresh
                x.base.copy_from(fresh)
            plan.run()
            assert_out(o, hs.hardsigmoid_backward(g.logical(), x.logical(), od), nan_equal=True)
    finally:
        _close_all(objs)


# ---------------------------------------------------------------------------- large tensors, in-place

@fuzz_settings(24)
@given(data=st.data(), shape=large_shapes(), gd=st.sampled_from(DTYPES), xd=st.sampled_from(DTYPES),
       od=st.sampled_from(DTYPES), recipe=value_recipes)
def test_large_tensors_match_model(hg, dev, data, shape, gd, xd, od, recipe):
    """Blocked staging and the worker pool (from 65536 elements) give the model's bits."""
    lg = data.draw(layouts(len(shape), INPUT_KINDS), "grad layout")
    lx = data.draw(layouts(len(shape), INPUT_KINDS), "self layout")
    lo_out = data.draw(layouts(len(shape), OUTPUT_KINDS), "out layout")
    objs = []
    try:
        g = place_input(hg, dev, recipe, 9, gd, _pool(gd), shape, lg)
        objs.append(g)
        x = place_input(hg, dev, recipe, 10, xd, _pool(xd, [3.0, 1.0], ulps=4), shape, lx)
        objs.append(x)
        o = place_output(hg, dev, od, shape, lo_out)
        objs.append(o)
        hg.hardsigmoid_backward(g.view, x.view, out=o.view)
        assert_out(o, hs.hardsigmoid_backward(g.logical(), x.logical(), od), nan_equal=True)
    finally:
        _close_all(objs)


@fuzz_settings(80)
@given(data=st.data(), shape=st.one_of(shapes(), large_shapes()), dt=st.sampled_from(DTYPES),
       into=st.sampled_from(["gradOutput", "self"]),
       recipe=value_recipes)
def test_in_place_matches_model(hg, dev, data, shape, dt, into, recipe):
    """out is the very view of an input (same dtype): the result is computed from the old values."""
    lg = data.draw(layouts(len(shape), OUTPUT_KINDS), "grad layout")
    lx = data.draw(layouts(len(shape), OUTPUT_KINDS), "self layout")
    objs = []
    try:
        g = place_input(hg, dev, recipe, 11, dt, _pool(dt), shape, lg)
        objs.append(g)
        x = place_input(hg, dev, recipe, 12, dt, _pool(dt, [3.0, 1.0]), shape, lx)
        objs.append(x)
        target = g if into == "gradOutput" else x
        want = hs.hardsigmoid_backward(g.logical(), x.logical(), dt)
        assert hg.hardsigmoid_backward(g.view, x.view, out=target.view) is target.view
        assert_out(target, want, nan_equal=True)
    finally:
        _close_all(objs)
