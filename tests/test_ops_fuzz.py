"""Property tests of both operators through the Python layer against the exact numpy model
(tests/hg_model.py): random shapes of 0-8 dims (zero-size and size-1 dims included), every
supported dtype combination, and per-tensor layouts (contiguous, permuted, stepped with an
offset into a larger allocation, zero-stride broadcast inputs).  Outputs may be views too:
their allocation is pre-filled with a sentinel pattern that must survive outside the view.

Hypothesis profile: derandomized (a fixed example sequence, no example database) so CI runs
are reproducible and never flaky.  ``HG_FUZZ_EXAMPLES=<n>`` raises the example count and
``HG_FUZZ_RANDOM=1`` switches to fresh random examples for longer local runs.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis", reason="the fuzz tests need hypothesis (test extra)")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import hg_model as m  # noqa: E402

_SCALE = max(1, int(os.environ.get("HG_FUZZ_EXAMPLES", "1")))
_RANDOM = os.environ.get("HG_FUZZ_RANDOM") == "1"


def fuzz_settings(n: int):
    return settings(max_examples=n * _SCALE, deadline=None, derandomize=not _RANDOM, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


DTYPES = (m.F32, m.F16, m.BF16)
MAX_ELEMENTS = 600


def _uint(dt):
    return np.uint32 if np.dtype(dt).itemsize == 4 else np.uint16


def _bits(a):
    return np.asarray(a).view(_uint(a.dtype))


# ---------------------------------------------------------------------------- values

# Bit patterns that are interesting in any float format (per width).
_SPECIAL_BITS = {
    m.F32: [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7FC01234,
            0x7F800001, 0xFFA00005, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000,
            0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000],
    m.F16: [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7E5A, 0x7C01, 0xFD11, 0x0001, 0x8001,
            0x03FF, 0x83FF, 0x0400, 0x7BFF, 0xFBFF, 0x3C00, 0xBC00],
    m.BF16: [0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7FC5, 0x7F81, 0xFFA1, 0x0001, 0x8001,
             0x007F, 0x807F, 0x0080, 0x7F7F, 0xFF7F, 0x3F80, 0xBF80],
}


def _near(value, dt, ulps=2) -> list[int]:
    """Bit patterns of ``value`` rounded into dtype ``dt`` and its neighbours up to ``ulps`` away."""
    dt = np.dtype(dt)
    v = float(value)
    if math.isnan(v):
        return []
    base = int(_bits(m.cast(np.float32(v), dt)))
    width = 8 * dt.itemsize
    return [(base + k) % (1 << width) for k in range(-ulps, ulps + 1)]


def _pool(dt, extra_values=(), ulps=2) -> np.ndarray:
    pool = list(_SPECIAL_BITS[dt])
    for v in extra_values:
        pool += _near(v, dt, ulps)
        pool += _near(-v, dt, ulps)
    return np.array(sorted(set(pool)), dtype=_uint(dt))


@dataclass(frozen=True)
class ValueRecipe:
    seed: int
    scale: float
    special_fraction: float


value_recipes = st.builds(
    ValueRecipe,
    seed=st.integers(0, 2**32 - 1),
    scale=st.sampled_from([1e-6, 0.5, 1.0, 3.0, 10.0, 1e4, 1e30]),
    special_fraction=st.sampled_from([0.0, 0.1, 0.5, 1.0]),
)


def make_values(recipe: ValueRecipe, salt: int, n: int, dt, pool: np.ndarray) -> np.ndarray:
    """``n`` values of dtype ``dt``: scaled normals with a fraction replaced by pool bit patterns."""
    rng = np.random.default_rng([recipe.seed, salt])
    with np.errstate(over="ignore"):
        normal = (rng.standard_normal(n) * recipe.scale).astype(np.float32)
    bits = _bits(m.cast(normal, dt)).copy()
    pick = rng.random(n) < recipe.special_fraction
    bits[pick] = rng.choice(pool, int(pick.sum()))
    return bits.view(dt)


# ---------------------------------------------------------------------------- shapes and layouts

@st.composite
def shapes(draw):
    ndim = draw(st.integers(0, 8))
    dims = draw(st.lists(st.sampled_from([0, 1, 1, 2, 2, 3, 4, 5, 7, 16]), min_size=ndim, max_size=ndim))
    while math.prod(dims) > MAX_ELEMENTS:      # keep the element count small, shape rank intact
        i = dims.index(max(dims))
        dims[i] = max(1, dims[i] // 2)
    return tuple(dims)


@dataclass(frozen=True)
class Layout:
    kind: str
    perm: tuple
    steps: tuple
    starts: tuple
    pad: int
    tail: int
    bcast: tuple

    def geometry(self, shape):
        """(strides, offset, storage elements) of this layout for ``shape``."""
        d = len(shape)
        # a size-1 (or empty) dim keeps its odd stride but takes no room in the allocation
        extent = [1 if self.bcast[i] or shape[i] <= 1 else shape[i] * self.steps[i] for i in range(d)]
        row, acc = [0] * d, 1
        for j in reversed(range(d)):               # storage dims in ``perm`` order, row-major
            i = self.perm[j]
            row[i] = acc
            acc *= extent[i]
        strides = tuple(0 if self.bcast[i] else row[i] * self.steps[i] for i in range(d))
        offset = self.pad + sum(self.starts[i] * row[i] for i in range(d) if not self.bcast[i] and shape[i] > 1)
        return strides, offset, self.pad + acc + self.tail


INPUT_KINDS = ["contiguous", "transposed", "stepped", "broadcast", "mixed"]
OUTPUT_KINDS = ["contiguous", "transposed", "stepped", "mixed"]


@st.composite
def layouts(draw, ndim: int, kinds):
    kind = draw(st.sampled_from(kinds))
    perm, steps, starts, pad, tail, bcast = tuple(range(ndim)), (1,) * ndim, (0,) * ndim, 0, 0, (False,) * ndim
    if kind in ("transposed", "mixed"):
        perm = tuple(draw(st.permutations(range(ndim))))
    if kind in ("stepped", "mixed"):
        steps = tuple(draw(st.lists(st.integers(1, 3), min_size=ndim, max_size=ndim)))
        starts = tuple(draw(st.integers(0, k - 1)) for k in steps)
        pad = draw(st.integers(1, 9))
        tail = draw(st.integers(0, 5))
    if kind in ("broadcast", "mixed") and "broadcast" in kinds:
        bcast = tuple(draw(st.lists(st.booleans(), min_size=ndim, max_size=ndim)))
    return Layout(kind, perm, steps, starts, pad, tail, bcast)


def positions(shape, strides, offset) -> np.ndarray:
    """Storage index of every element of the view (an int64 array of the view's shape)."""
    pos = np.full(shape, offset, dtype=np.int64)
    for i, (n, s) in enumerate(zip(shape, strides)):
        pos += (np.arange(n, dtype=np.int64) * s).reshape([n if j == i else 1 for j in range(len(shape))])
    return pos


class Placed:
    """A device view over a 1-d allocation plus the host copy of that allocation."""

    def __init__(self, hg, dev, storage: np.ndarray, shape, layout: Layout):
        self.strides, self.offset, total = layout.geometry(shape)
        assert storage.size == total
        self.shape = shape
        self.pos = positions(shape, self.strides, self.offset)
        self.storage = storage
        self.base = hg.Tensor(storage, dev)
        try:
            self.view = self.base.view(shape, self.strides, self.offset)
        except BaseException:
            self.base.close()
            raise
        assert self.view.shape == tuple(shape) and self.view.strides == self.strides

    def logical(self) -> np.ndarray:
        """The element values the view shows (what the model receives)."""
        return self.storage[self.pos]

    def close(self):
        self.view.close()
        self.base.close()


def place_input(hg, dev, recipe, salt, dt, pool, shape, layout) -> Placed:
    total = layout.geometry(shape)[2]
    return Placed(hg, dev, make_values(recipe, salt, total, dt, pool), shape, layout)


def sentinel(dt, total) -> np.ndarray:
    """A recognisable pattern no kernel writes by accident (distinct per index)."""
    if np.dtype(dt).itemsize == 4:
        return (np.uint32(0x5A5A0000) + np.arange(total, dtype=np.uint32)).view(dt)
    return (np.uint16(0x5A00) + (np.arange(total, dtype=np.uint32) % 251).astype(np.uint16)).view(dt)


def place_output(hg, dev, dt, shape, layout) -> Placed:
    return Placed(hg, dev, sentinel(dt, layout.geometry(shape)[2]), shape, layout)


def assert_out(placed: Placed, want: np.ndarray, nan_equal: bool):
    """The out allocation holds ``want`` at the view's elements and the sentinel elsewhere."""
    got = placed.base.numpy()
    expect = placed.storage.copy()
    expect[placed.pos] = want
    gb, eb = _bits(got), _bits(expect)
    bad = gb != eb
    if nan_equal:
        bad &= ~(np.isnan(got.astype(np.float32)) & np.isnan(expect.astype(np.float32)))
    if bad.any():
        idx = np.flatnonzero(bad)[:8]
        inside = np.isin(idx, placed.pos.ravel())
        raise AssertionError(
            f"{int(bad.sum())} of {got.size} storage elements differ (view strides={placed.strides}, "
            f"offset={placed.offset}); first indices {idx.tolist()} inside view: {inside.tolist()}; "
            f"got bits {[hex(int(b)) for b in gb[idx]]}, want {[hex(int(b)) for b in eb[idx]]}")


# ---------------------------------------------------------------------------- fixtures

@pytest.fixture(scope="module")
def dev(hg):
    with hg.Device(0) as d:
        yield d


def _close_all(objs):
    for o in reversed(objs):
        if o is not None:
            o.close()


# ---------------------------------------------------------------------------- hardtanh

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
        want = m.hardtanh_backward(g.logical(), x.logical(), lo32, hi32)
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


# ---------------------------------------------------------------------------- hardsigmoid

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
        want = m.hardsigmoid_backward(g.logical(), x.logical(), od)
        if od is None:
            res = hg.hardsigmoid_backward(g.view, x.view)
            objs.append(res)
            assert res.dtype == m.promote(gd, xd) and res.shape == tuple(shape)
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
            assert_out(o, m.hardsigmoid_backward(g.logical(), x.logical(), od), nan_equal=True)
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
            want = m.hardtanh_backward(grad, probe, lo32, hi32)
            got = out.numpy()
            bad = _bits(got) != _bits(want)
            assert not bad.any(), (f"min {dlo} {vlo!r} -> {lo32!r}, max {dhi} {vhi!r} -> {hi32!r}: self "
                                   f"{probe[bad][:6]} got {got[bad][:6]} want {want[bad][:6]}")
    finally:
        _close_all(objs)


# ---------------------------------------------------------------------------- large tensors, in-place

@st.composite
def large_shapes(draw):
    """Element counts around the runtime's block (8192) and thread-pool (65536) sizes."""
    n = draw(st.sampled_from([8191, 8193, 16384 + 7, 65535, 65536, 65537, 65536 + 1023, 3 * 65536 + 5, 200003]))
    ndim = draw(st.integers(1, 4))
    dims = [1] * ndim
    dims[-1] = n
    if ndim > 1:                                       # split n over two dims when it factors
        for f in (3, 5, 7, 16, 64, 256):
            if n % f == 0:
                dims[-1], dims[draw(st.integers(0, ndim - 2))] = n // f, f
                break
    return tuple(dims)


@fuzz_settings(24)
@given(data=st.data(), shape=large_shapes(), gd=st.sampled_from(DTYPES), xd=st.sampled_from(DTYPES),
       od=st.sampled_from(DTYPES), op=st.sampled_from(["hardtanh", "hardsigmoid"]), recipe=value_recipes)
def test_large_tensors_match_model(hg, dev, data, shape, gd, xd, od, op, recipe):
    """Blocked staging and the worker pool (from 65536 elements) give the model's bits."""
    if op == "hardtanh":
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
        if op == "hardtanh":
            hg.hardtanh_backward(g.view, x.view, -1.0, 1.0, out=o.view)
            assert_out(o, m.hardtanh_backward(g.logical(), x.logical(), -1.0, 1.0), nan_equal=False)
        else:
            hg.hardsigmoid_backward(g.view, x.view, out=o.view)
            assert_out(o, m.hardsigmoid_backward(g.logical(), x.logical(), od), nan_equal=True)
    finally:
        _close_all(objs)


@fuzz_settings(80)
@given(data=st.data(), shape=st.one_of(shapes(), large_shapes()), dt=st.sampled_from(DTYPES),
       op=st.sampled_from(["hardtanh", "hardsigmoid"]), into=st.sampled_from(["gradOutput", "self"]),
       recipe=value_recipes)
def test_in_place_matches_model(hg, dev, data, shape, dt, op, into, recipe):
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
        if op == "hardtanh":
            want = m.hardtanh_backward(g.logical(), x.logical(), -1.0, 1.0)
            assert hg.hardtanh_backward(g.view, x.view, -1.0, 1.0, out=target.view) is target.view
        else:
            want = m.hardsigmoid_backward(g.logical(), x.logical(), dt)
            assert hg.hardsigmoid_backward(g.view, x.view, out=target.view) is target.view
        assert_out(target, want, nan_equal=(op == "hardsigmoid"))
    finally:
        _close_all(objs)
