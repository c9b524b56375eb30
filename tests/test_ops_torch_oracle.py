"""Both operators against PyTorch's CPU reference (torch.ops.aten.hardtanh_backward /
hardsigmoid_backward) on random data and special values, every dtype combination.

hardtanh_backward is a select in both libraries, so it must match bit for bit.
hardsigmoid_backward is compared within CANN's own test precision (fp32 1e-4, fp16 1e-3,
bf16 4e-3, relative and absolute), after excluding -- explicitly, element by element -- the
few places where CANN's kernel is specified to differ from PyTorch (see ``_hs_excluded``).
"""
from __future__ import annotations

import math
import zlib

import ml_dtypes
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the torch oracle tests need torch (installed by the test extra)")

import hg_model as m  # noqa: E402

DTYPES = {"f32": m.F32, "f16": m.F16, "bf16": m.BF16}
TORCH_DTYPES = {m.F32: torch.float32, m.F16: torch.float16, m.BF16: torch.bfloat16}
TOL = {m.F32: 1e-4, m.F16: 1e-3, m.BF16: 4e-3}
SHAPE = (37, 29)          # odd sizes: torch's vector loops and their scalar tails both run


def _seed(*key) -> int:
    """A per-case seed that is stable across processes (str hashes are salted)."""
    return zlib.crc32(repr(key).encode())


def to_torch(a: np.ndarray):
    a = np.ascontiguousarray(a)
    if a.dtype == m.BF16:       # numpy has no bfloat16: go through the 16-bit pattern
        return torch.from_numpy(a.view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(a.copy())


def from_torch(t) -> np.ndarray:
    t = t.contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def _bits(a):
    return np.asarray(a).view(np.uint32 if a.dtype.itemsize == 4 else np.uint16)


def _specials(dt, around=()) -> np.ndarray:
    """Zeros, infinities, NaNs, subnormals, extremes, and each value of ``around`` with its
    neighbours (2 ulps either side, in dtype ``dt``)."""
    f32 = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 1e-40, 1.1754944e-38,
                    3.4028235e38, -3.4028235e38, 1.0, -1.0, 65504.0, 1e-7, 6e-8], np.float32)
    with np.errstate(over="ignore"):
        base = m.cast(f32, dt)
    word = np.uint32 if dt == m.F32 else np.uint16
    near = []
    for v in around:
        for sign in (1, -1):
            b = int(_bits(m.cast(np.float32(sign * v), dt)))
            near += [(b + k) % (1 << (8 * np.dtype(dt).itemsize)) for k in range(-2, 3)]
    return np.concatenate([base, np.array(near, word).view(dt)])


def _data(rng, dt, around=(), scale=3.0) -> np.ndarray:
    n = math.prod(SHAPE)
    with np.errstate(over="ignore"):
        vals = m.cast((rng.standard_normal(n) * scale).astype(np.float32), dt)
    sp = _specials(dt, around)
    pick = rng.random(n) < 0.2
    vals[pick] = rng.choice(sp, int(pick.sum()))
    vals[:sp.size] = sp                                   # every special at least once
    return vals.reshape(SHAPE)


@pytest.fixture(scope="module")
def dev(hg):
    with hg.Device(0) as d:
        yield d


def _run(hg, dev, fn, arrays, layout, **kw):
    """Run ``fn`` on device tensors of ``arrays`` (as they are, or transposed views of a
    transposed copy: same logical values, permuted strides); return the numpy result."""
    tensors = []
    try:
        for a in arrays:
            if layout == "transposed":
                base = hg.Tensor(np.ascontiguousarray(a.T), dev)
                tensors += [base, base.T]
            else:
                tensors.append(hg.Tensor(a, dev))
        inputs = tensors[1::2] if layout == "transposed" else tensors
        with fn(*inputs, **kw) as out:
            return out.numpy()
    finally:
        for t in reversed(tensors):
            t.close()


# ---------------------------------------------------------------------------- hardtanh

BOUNDS = [(-1.0, 1.0), (1.2, 2.4), (-2.4, -1.2), (0.0, 0.0), (-0.0, 0.0), (2.0, -2.0), (-np.inf, np.inf),
          (1e-40, 1.0), (-0.5, 65504.0)]


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("bound", BOUNDS, ids=str)
@pytest.mark.parametrize("name", sorted(DTYPES))
def test_hardtanh_backward_equals_torch(hg, dev, name, bound, layout):
    dt = DTYPES[name]
    rng = np.random.default_rng(_seed(name, bound))
    # CANN converts the bounds to fp32 first; torch is handed those fp32 values (as doubles)
    # so both compare against the same numbers.  NaN bounds are not compared here: torch's
    # (self <= min || self >= max) keeps grad for a NaN bound, CANN's (min < self < max)
    # drops it -- the model tests pin CANN's behaviour.
    lo, hi = (float(np.float32(b)) for b in bound)
    grad = _data(rng, dt)
    self = _data(rng, dt, around=(lo, hi, 1.0))
    got = _run(hg, dev, lambda g, x: hg.hardtanh_backward(g, x, lo, hi), [grad, self], layout)
    want = from_torch(torch.ops.aten.hardtanh_backward(to_torch(grad), to_torch(self), lo, hi))
    assert got.dtype == dt
    # NaN self: CANN keeps grad (a NaN fails neither bound test).  torch 2.x is not
    # consistent here -- its vectorised loop drops grad, its scalar tail keeps it -- so those
    # elements are left out; the model tests pin CANN's behaviour for them.
    bad = (_bits(got) != _bits(want)) & ~np.isnan(self.astype(np.float32))
    if dt == m.BF16:
        # torch's bfloat16 loop goes through float and back, which turns every NaN into
        # 0xFFFF; CANN's kernel is a select that copies grad's bits.  NaN stays NaN in both.
        bad &= ~(np.isnan(got.astype(np.float32)) & np.isnan(want.astype(np.float32)))
    assert not bad.any(), f"{int(bad.sum())} differ: self {self[bad][:6]} grad {grad[bad][:6]} " \
                          f"got {got[bad][:6]} torch {want[bad][:6]}"


# ---------------------------------------------------------------------------- hardsigmoid

def _range_differs(self) -> np.ndarray:
    """Where CANN's range test differs from torch's by design: CANN computes t = self*(1/6)
    then t + 0.5 in fp32 (two roundings) and tests 0 < t < 1; torch tests -3 < self < 3
    exactly.  A few fp32 values next to +-3 land on the other side (3 - 1 ulp gives t == 1)."""
    s = self.astype(np.float32)
    with np.errstate(all="ignore"):
        t = (s * m.SIXTH).astype(np.float32)
        t = (t + m.HALF).astype(np.float32)
    return ((t > 0) & (t < 1)) != ((s > -3) & (s < 3))


def _bf16_ties(grad, self, promoted, out_dtype) -> np.ndarray:
    """Elements whose rounding into bfloat16 starts from an exact midpoint.  CANN rounds
    fp32 -> bf16 ties away from zero, torch ties to even: there the two differ by design."""
    with np.errstate(all="ignore"):
        r = (grad.astype(np.float32) * m.SIXTH).astype(np.float32)
        if promoted == m.BF16:
            into = r                                   # the kernel's result rounded into bf16
        elif out_dtype == m.BF16:
            into = m.cast(r, promoted).astype(np.float32)   # the promoted result cast into bf16
        else:
            return np.zeros(grad.shape, bool)
    s = self.astype(np.float32)
    inside = (s > -3) & (s < 3)
    return inside & ~np.isnan(into) & ((into.view(np.uint32) & 0xFFFF) == 0x8000)


def _assert_ties_rounded_away(got, want):
    """At a tie CANN's bf16 is the neighbour away from zero, torch's the even one: the
    magnitudes (as bf16 bit patterns) are equal or CANN's is one ulp larger, same sign."""
    gb = _bits(m.cast(got.astype(np.float32), m.BF16)).astype(np.int32)
    wb = _bits(m.cast(want.astype(np.float32), m.BF16)).astype(np.int32)
    assert ((gb & 0x8000) == (wb & 0x8000)).all()
    step = (gb & 0x7FFF) - (wb & 0x7FFF)
    assert np.isin(step, (0, 1)).all(), (got, want)
    assert (step[(wb & 1) == 1] == 0).all()            # an odd torch result was not a tie-to-even pick
    return int((step == 1).sum())


COMBOS = [(g, x, o) for g in sorted(DTYPES) for x in sorted(DTYPES) for o in sorted(DTYPES)]


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("gname, xname, oname", COMBOS)
def test_hardsigmoid_backward_close_to_torch(hg, dev, gname, xname, oname, layout):
    gd, xd, od = DTYPES[gname], DTYPES[xname], DTYPES[oname]
    rng = np.random.default_rng(_seed(gname, xname, oname, layout))
    grad = _data(rng, gd, around=(6.0,), scale=10.0)
    self = _data(rng, xd, around=(3.0, 0.0), scale=2.5)
    promoted = m.promote(gd, xd)

    def op(g, x):
        out = hg.empty(SHAPE, od, dev)
        try:
            return hg.hardsigmoid_backward(g, x, out=out)
        except BaseException:
            out.close()
            raise
    got = _run(hg, dev, op, [grad, self], layout)
    assert got.dtype == od

    # torch in the promoted dtype, then cast to out's dtype (CANN's Cast(promoted) -> kernel -> Cast(out))
    tp = TORCH_DTYPES[promoted]
    ref = torch.ops.aten.hardsigmoid_backward(to_torch(grad).to(tp), to_torch(self).to(tp))
    want = from_torch(ref.to(TORCH_DTYPES[od]))

    boundary = _range_differs(self)                    # left out: CANN's fp32 range test by design
    assert boundary.mean() < 0.03                      # a sanity bound: the exclusion stays narrow
    ties = _bf16_ties(grad, self, promoted, od) & ~boundary
    keep = ~boundary & ~ties
    if ties.any() and (od == m.BF16 or od == m.F32):
        # the bf16 rounding is the last one: check the ties-away relation exactly
        _assert_ties_rounded_away(got[ties], want[ties])
    # (bf16 promoted, fp16 out: a tie's one-ulp bf16 difference is rounded again into fp16;
    # those few elements are left out -- the model tests pin them bit for bit.)
    assert keep.mean() > 0.8
    tol = max(TOL[promoted], TOL[od])
    np.testing.assert_allclose(got[keep].astype(np.float64), want[keep].astype(np.float64), rtol=tol, atol=tol,
                               equal_nan=True, err_msg=f"self={self[keep]}")


def test_torch_oracle_sees_the_boundary_difference(hg, dev):
    """The exclusion above is real, not a blanket: 3 - 1 ulp is inside for torch, outside for CANN."""
    x = np.array([np.nextafter(np.float32(3), np.float32(0)), np.float32(2.5)], np.float32)
    g = np.ones(2, np.float32)
    got = hg.hardsigmoid_backward(g, x)
    want = from_torch(torch.ops.aten.hardsigmoid_backward(to_torch(g), to_torch(x)))
    assert got[0] == 0 and want[0] == np.float32(1) * m.SIXTH
    assert got[1] == want[1] == np.float32(1) * m.SIXTH
    assert _range_differs(x).tolist() == [True, False]
