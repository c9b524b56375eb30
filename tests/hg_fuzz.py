"""The property-test machinery of the operators' fuzz tests (each operator folder's
tests/test_<folder>_fuzz.py): values with special bit patterns, shapes of 0-8 dims (zero-size and
size-1 dims included), large shapes around the runtime's block and pool sizes, per-tensor layouts
(contiguous, permuted, stepped with an offset into a larger allocation, zero-stride broadcast
inputs), outputs placed in sentinel-filled allocations, and the hypothesis profile.

Hypothesis profile: derandomized (a fixed example sequence, no example database) so CI runs are
reproducible and never flaky.  ``HG_FUZZ_EXAMPLES=<n>`` raises the example count and
``HG_FUZZ_RANDOM=1`` switches to fresh random examples for longer local runs.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import hg_model as m

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


def _close_all(objs):
    for o in reversed(objs):
        if o is not None:
            o.close()





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
