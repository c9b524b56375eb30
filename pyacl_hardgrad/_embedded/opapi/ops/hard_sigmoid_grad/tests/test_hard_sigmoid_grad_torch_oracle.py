"""aclnnHardsigmoidBackward against PyTorch's CPU reference (torch.ops.aten.hardsigmoid_backward),
every dtype combination, contiguous and transposed, within CANN's own test precision (fp32 1e-4,
fp16 1e-3, bf16 4e-3, relative and absolute), after excluding -- explicitly, element by element --
the few places where CANN's kernel is specified to differ from PyTorch (``_range_differs``,
``_bf16_ties``).  The final Cast into out's dtype rounds ties to even, as torch's casts: it needs
no exclusion."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the torch oracle tests need torch (installed by the test extra)")

import hard_sigmoid_grad_model as hs  # noqa: E402
import hg_model as m  # noqa: E402
from hg_torch import DTYPES, SHAPE, TOL, TORCH_DTYPES, _bits, _data, _run, _seed, from_torch, to_torch  # noqa: E402


@pytest.fixture(scope="module")
def dev(hg):
    with hg.Device(0) as d:
        yield d


def _range_differs(self) -> np.ndarray:
    """Where CANN's range test differs from torch's by design: CANN computes t = self*(1/6)
    then t + 0.5 in fp32 (two roundings) and tests 0 < t < 1; torch tests -3 < self < 3
    exactly.  A few fp32 values next to +-3 land on the other side (3 - 1 ulp gives t == 1)."""
    s = self.astype(np.float32)
    with np.errstate(all="ignore"):
        t = (s * hs.SIXTH).astype(np.float32)
        t = (t + hs.HALF).astype(np.float32)
    return ((t > 0) & (t < 1)) != ((s > -3) & (s < 3))


def _bf16_ties(grad, self, promoted, out_dtype) -> np.ndarray:
    """Elements whose rounding into bfloat16 by the kernel (promoted dtype bf16) starts from an
    exact midpoint.  The kernel rounds fp32 -> bf16 ties away from zero, torch ties to even:
    there the two differ by design.  (The Cast of another promoted dtype into a bf16 out rounds
    ties to even, as torch does: not excluded.)"""
    with np.errstate(all="ignore"):
        r = (grad.astype(np.float32) * hs.SIXTH).astype(np.float32)
        if promoted == m.BF16:
            into = r                                   # the kernel's result rounded into bf16
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
    promoted = hs.promote(gd, xd)

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
    assert got[0] == 0 and want[0] == np.float32(1) * hs.SIXTH
    assert got[1] == want[1] == np.float32(1) * hs.SIXTH
    assert _range_differs(x).tolist() == [True, False]
