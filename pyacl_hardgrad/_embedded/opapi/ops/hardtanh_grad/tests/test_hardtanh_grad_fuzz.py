"""Property tests of aclnnHardtanhBackward through the Python layer against the exact numpy model
(hardtanh_grad_model.py), with the machinery of tests/hg_fuzz.py: random shapes, dtypes, bounds
(from scalars of any dtype too), layouts, large tensors and in-place outs."""
from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis", reason="the fuzz tests need hypothesis (test extra)")
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from hg_fuzz import (DTYPES, INPUT_KINDS, OUTPUT_KINDS, _bits, _close_all, _uint, _pool, assert_out,  # noqa: E402
                     fuzz_settings, large_shapes, layouts, make_values, place_input, place_output, shapes,
                     value_recipes)
import hardtanh_grad_model as ht  # noqa: E402


BOUND_PAIRS = [(-1.0, 1.0), (1.2, 2.4), (-1.2, -0.5), (0.0, 0.0), (-0.0, 0.0), (2.0, -2.0),
               (-math.inf, math.inf), (-3.4028234663852886e38, 3.4028234663852886e38),
               (1e-45, 1.0), (-1e-40, 1e-40), (math.nan, 1.0), (-1.0, math.nan), (65504.0, 65520.0)]

bounds = st.one_of(
    st.sampled_from(BOUND_PAIRS),
    st.tuples(st.floats(-1e3, 1e3, width=32), st.floats(-1e3, 1e3, width=32)).map(lambda p: (min(p), max(p))),
    st.tuples(st.floats(width=32, allow_nan=False), st.floats(width=32, allow_nan=False)),
)


@fuzz_settings(400)
@given(data=st.data(), shape=shapes(), dt=st.sampled_from(DTYPES), bound=bounds, recipe=value_recipes,
       alloc_out=st.booleans())
def test_hardtanh_backward_matches_model(hg, dev, data, shape, dt, bound, recipe, alloc_out):
    lo, hi = bound
    lo32, hi32 = np.float32(lo), np.float32(hi)
    pool_x = _pool(dt, [lo32, hi32, 1.0, 1.2, 2.4])
    pool_g = _pool(dt)
    lg = data.draw(layouts(len(shape), INPUT_KINDS), "grad layout")
    lx = data.draw(layouts(len(shape), INPUT_KINDS), "self layout")
    lo_out = None if alloc_out else data.draw(layouts(len(shape), OUTPUT_KINDS), "out layout")
    objs = []
    try:
        g = place_input(hg, dev, recipe, 1, dt, pool_g, shape, lg)
        objs.append(g)
        x = place_input(hg, dev, recipe, 2, dt, pool_x, shape, lx)
        objs.append(x)
        want = ht.hardtanh_backward(g.logical(), x.logical(), lo32, hi32)
        if lo_out is None:
            res = hg.hardtanh_backward(g.view, x.view, float(lo), float(hi))
            objs.append(res)
            assert res.dtype == dt and res.shape == tuple(shape)
            np.testing.assert_array_equal(_bits(res.numpy()), _bits(want))
        else:
            o = place_output(hg, dev, dt, shape, lo_out)
            objs.append(o)
            res = hg.hardtanh_backward(g.view, x.view, float(lo), float(hi), out=o.view)
            assert res is o.view
            assert_out(o, want, nan_equal=False)      # a select: bits exact, NaN payloads included
    finally:
        _close_all(objs)


# ---------------------------------------------------------------------------- scalar bounds

def round_to_f32(value) -> np.float32:
    """Exact round-to-nearest-even of a real number to float32 (the C cast under the default
    rounding mode), computed with fractions so it does not rely on any machine cast."""
    if isinstance(value, float) and math.isnan(value):
        return np.float32(np.nan)
    if isinstance(value, float) and math.isinf(value):
        return np.float32(value)
    q = Fraction(value)
    if q == 0:
        return np.float32(math.copysign(0.0, float(value)))
    sign, a = (-1 if q < 0 else 1), abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, -126)                                   # subnormal range shares the smallest ulp
    ulp = Fraction(2) ** (e - 23)
    n, rem = divmod(a, ulp)
    if rem > ulp / 2 or (rem == ulp / 2 and n % 2 == 1):
        n += 1
    r = n * ulp
    if r >= Fraction(2) ** 128:
        return np.float32(sign * math.inf)
    return np.float32(sign * float(r))


def test_round_to_f32_oracle():
    assert round_to_f32(2**24 + 1) == np.float32(2**24)          # tie -> even
    assert round_to_f32(2**24 + 3) == np.float32(2**24 + 4)      # tie -> even (upwards)
    assert round_to_f32(-(2**63)) == np.float32(-(2.0**63))
    assert round_to_f32(1.2) == np.float32(1.2)
    assert round_to_f32(3.4028235677973366e38) == np.float32(np.inf)       # at the FLT_MAX / 2^128 midpoint
    assert round_to_f32(3.4028235677973362e38) == np.float32(3.4028234663852886e38)
    assert round_to_f32(1e-46) == np.float32(0.0) and round_to_f32(1.1e-45) == np.float32(1e-45)
    assert math.copysign(1, round_to_f32(-0.0)) == -1


_INT_EDGES = [0, 1, -1, 2**24 + 1, 2**24 + 3, -(2**24 + 1), 2**25 + 2, 2**31 - 1, -(2**31), 2**53 + 1,
              2**62 + 2**38 + 1, 2**63 - 1, -(2**63), 2**40 + 2**16]


def _scalar_values(dtype: str):
    if dtype in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"):
        info = np.iinfo(dtype)
        edges = [v for v in _INT_EDGES if info.min <= v <= info.max] + [int(info.min), int(info.max)]
        return st.one_of(st.sampled_from(edges), st.integers(int(info.min), int(info.max)))
    if dtype == "float64":
        edges = [1.2, 2.4, -1.2, 1e-40, 1e-46, 3.4028235677973366e38, 3.4028235677973362e38, 1e300, -1e300,
                 16777217.0, 0.1, -0.0, math.inf, -math.inf, math.nan, 2.0**-149 * 1.5, 2.0**-149 * 0.5]
        return st.one_of(st.sampled_from(edges), st.floats(allow_nan=True, allow_infinity=True))
    if dtype == "bool":
        return st.booleans()
    bits = st.integers(0, 0xFFFF)                      # float16 / bfloat16 / float32: any pattern
    if dtype == "float32":
        bits = st.integers(0, 0xFFFFFFFF)
    return bits


SCALAR_DTYPES = ["float64", "float32", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8",
                 "uint16", "uint32", "uint64", "bool"]


def _scalar_and_oracle(hg, dtype, raw):
    """(hg.Scalar, its fp32 value by the C rule)."""
    if dtype in ("float16", "bfloat16", "float32"):
        npdt = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
        value = np.array([raw], dtype=_uint(npdt)).view(npdt)[0]
        return hg.Scalar(value, npdt), np.float32(value)    # widening is exact
    if dtype == "bool":
        return hg.Scalar(raw, "bool"), np.float32(1.0 if raw else 0.0)
    return hg.Scalar(raw, dtype), round_to_f32(raw)


@st.composite
def scalar_pairs(draw):
    dlo, dhi = draw(st.sampled_from(SCALAR_DTYPES)), draw(st.sampled_from(SCALAR_DTYPES))
    return dlo, draw(_scalar_values(dlo)), dhi, draw(_scalar_values(dhi))


@fuzz_settings(300)
@given(pair=scalar_pairs(), dt=st.sampled_from(DTYPES), recipe=value_recipes)
def test_hardtanh_bounds_from_scalars_of_any_dtype(hg, dev, pair, dt, recipe):
    dlo, vlo, dhi, vhi = pair
    objs = []
    try:
        s_lo, lo32 = _scalar_and_oracle(hg, dlo, vlo)
        objs.append(s_lo)
        s_hi, hi32 = _scalar_and_oracle(hg, dhi, vhi)
        objs.append(s_hi)
        # self probes the converted bounds and their neighbours (a 1-ulp conversion error shows)
        probe = np.concatenate([_pool(dt, [lo32, hi32], ulps=3).view(dt), make_values(recipe, 7, 64, dt, _pool(dt))])
        grad = make_values(recipe, 8, probe.size, dt, _pool(dt))
        with hg.Tensor(grad, dev) as g, hg.Tensor(probe, dev) as x, \
                hg.hardtanh_backward(g, x, s_lo, s_hi) as out:
            want = ht.hardtanh_backward(grad, probe, lo32, hi32)
            got = out.numpy()
            bad = _bits(got) != _bits(want)
            assert not bad.any(), (f"min {dlo} {vlo!r} -> {lo32!r}, max {dhi} {vhi!r} -> {hi32!r}: self "
                                   f"{probe[bad][:6]} got {got[bad][:6]} want {want[bad][:6]}")
    finally:
        _close_all(objs)


# ---------------------------------------------------------------------------- large tensors, in-place

@fuzz_settings(24)
@given(data=st.data(), shape=large_shapes(), gd=st.sampled_from(DTYPES), xd=st.sampled_from(DTYPES),
       od=st.sampled_from(DTYPES), recipe=value_recipes)
def test_large_tensors_match_model(hg, dev, data, shape, gd, xd, od, recipe):
    """Blocked staging and the worker pool (from 65536 elements) give the model's bits."""
    xd = od = gd
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
        hg.hardtanh_backward(g.view, x.view, -1.0, 1.0, out=o.view)
        assert_out(o, ht.hardtanh_backward(g.logical(), x.logical(), -1.0, 1.0), nan_equal=False)
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
        want = ht.hardtanh_backward(g.logical(), x.logical(), -1.0, 1.0)
        assert hg.hardtanh_backward(g.view, x.view, -1.0, 1.0, out=target.view) is target.view
        assert_out(target, want, nan_equal=False)
    finally:
        _close_all(objs)
