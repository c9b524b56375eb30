"""Every registered operator on views, through the raw binding (tests/hg_aclnn.py): random shapes of
0-8 dims (empty and size-1 dims included), and per tensor a layout (contiguous, permuted, stepped
with an offset into a larger allocation); outputs may be views too, their allocation's other
bytes must keep their fill.  Results must be the model's bits (each folder's NUMERIC_CASES)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import hg_registry
from hg_aclnn import S, T
from hg_cases import DTYPES, assert_same, samples

CASES = []
for _name in hg_registry.operators():
    _seen = set()
    for _c in hg_registry.model(_name).NUMERIC_CASES:
        if _c.func not in _seen:        # one case (the first dtype combination) per function
            _seen.add(_c.func)
            CASES.append(_c)


def _shape(rng, ndim, empty=False):
    dims = [int(d) for d in rng.integers(1, 4, ndim)]
    if ndim and rng.random() < 0.3:
        dims[int(rng.integers(ndim))] = 1
    if empty and ndim:
        dims[int(rng.integers(ndim))] = 0
    return tuple(dims)


def _layout(rng, a: np.ndarray, kind: str) -> T:
    shape = a.shape
    if kind == "contig" or a.ndim == 0:
        return T(a)
    perm = list(range(a.ndim))
    step, offset = 1, 0
    if kind == "permuted":
        rng.shuffle(perm)
    else:
        step, offset = int(rng.integers(2, 4)), int(rng.integers(1, 5))
    base = [shape[p] for p in perm]
    cstr = [1] * a.ndim
    for i in range(a.ndim - 2, -1, -1):
        cstr[i] = cstr[i + 1] * max(base[i + 1], 1)
    strides = [0] * a.ndim
    for k, p in enumerate(perm):
        strides[p] = cstr[k] * step
    return T(a, strides=strides, offset=offset)


def _run(aclnn, case, shape, kinds, rng):
    n = max(math.prod(shape), 1)
    inputs, args, outs = [], [], []
    for i, a in enumerate(case.args):
        if a[0] == "scalar":
            args.append(S(a[2], DTYPES[a[1]]))
            continue
        data = samples(a[1], rng, n)[:math.prod(shape)].reshape(shape)
        if a[0] == "out":
            data = np.zeros(shape, DTYPES[a[1]])
            outs.append(i)
        elif a[0] == "inout":
            inputs.append(data)
            outs.append(i)
        else:
            inputs.append(data)
        args.append(_layout(rng, data, kinds[i % len(kinds)]))
    got = aclnn.call(case.func, args, outs)[0]
    return inputs, got


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.func)
def test_views_of_every_rank(aclnn, case):
    rng = np.random.default_rng(hash(case.func) % 2**32)
    for ndim in range(9):
        for kinds in (("contig",), ("permuted", "stepped"), ("stepped", "permuted", "contig")):
            shape = _shape(rng, ndim)
            inputs, got = _run(aclnn, case, shape, kinds, rng)
            want = case.model(*inputs)
            assert got.shape == shape
            assert_same(got.ravel(), np.asarray(want).ravel(), f"{case.func} {shape} {kinds}", case.nan_payload)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.func)
def test_empty_tensors_succeed_with_no_workspace(aclnn, case):
    rng = np.random.default_rng(1)
    for ndim in range(1, 9):
        shape = _shape(rng, ndim, empty=True)
        args = []
        for a in case.args:
            if a[0] == "scalar":
                args.append(S(a[2], DTYPES[a[1]]))
            else:
                args.append(T(np.zeros(shape, DTYPES[a[1]])))
        rc, msg, ws, exe, *_ = aclnn.phase1(case.func, args)
        assert rc == 0 and ws == 0, (shape, rc, msg)
