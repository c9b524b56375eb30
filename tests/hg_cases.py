"""Numeric cases of the operators and how to run one through tests/c/aclnn_driver.c.

Each operator folder's ``tests/<folder>_model.py`` lists ``NUMERIC_CASES``: which aclnn
function, its phase-1 arguments (tensors by dtype, scalars by value) and the numpy model of
the result.  The shared tests (tests/test_op_numerics.py) run every case over every fp16/bf16
bit pattern and fp32 special values, on every kernel path, layout and thread count.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

import numpy as np

import hg_model as m

DTYPES = {"f32": m.F32, "f16": m.F16, "bf16": m.BF16, "f64": np.dtype(np.float64), "i8": np.dtype(np.int8),
          "u8": np.dtype(np.uint8), "i16": np.dtype(np.int16), "i32": np.dtype(np.int32),
          "i64": np.dtype(np.int64)}
NAMES = {v: k for k, v in DTYPES.items()}

F32_SPECIAL_BITS = [
    0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x40400000, 0xC0400000,   # 0, -0, 1, -1, 3, -3
    0x403FFFFF, 0x40400001, 0xC03FFFFF, 0xC0400001,                           # around +-3
    0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7FC01234, 0x7F800001,   # inf, NaN
    0x00000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF,               # subnormals, extremes
    0x3E2AAAAB, 0x3F000000, 0x3F99999A, 0x4019999A,                           # 1/6, .5, 1.2, 2.4
    0x477FE000, 0x477FF000, 0x33000000, 0x33800000, 0x38800000, 0x387FC000,   # fp16 edges
    0x3F808000, 0xBF808000, 0x3F80A000, 0x3F816000, 0x00008000,               # bf16 ties
    0x40C00000, 0xC0C00000, 0x3EAAAAAB,                                       # 6, -6, 1/3
]


def f32_samples(rng) -> np.ndarray:
    special = np.array(F32_SPECIAL_BITS, dtype=np.uint32).view(np.float32)
    rand_bits = rng.integers(0, 2**32, 20000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    uniform = rng.uniform(-4, 4, 20000).astype(np.float32)
    # every float within 300 ulps of +-3 (interval ends of the hard* family)
    near3 = (np.float32(3) + np.arange(-300, 301).astype(np.float32) * np.float32(2.0**-22))
    small = (rng.standard_normal(5000) * 1e-6).astype(np.float32)
    return np.concatenate([special, rand_bits, uniform, near3, -near3, small])


def samples(name: str, rng, n: Optional[int] = None) -> np.ndarray:
    """f32: specials + random bits + values near the family's edges; f16/bf16: every bit
    pattern + rounded f32 samples; integers: extremes and random values.  n: permuted and
    resized to n elements."""
    dt = DTYPES[name]
    if dt == m.F32:
        data = f32_samples(rng)
    elif dt in (m.F16, m.BF16):
        data = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(dt)   # every bit pattern
        data = np.concatenate([data, m.cast(f32_samples(rng)[:5000], dt)])
    elif dt.kind == "f":
        data = np.concatenate([f32_samples(rng).astype(dt), rng.standard_normal(5000) * 1e300])
    else:
        info = np.iinfo(dt)
        data = np.concatenate([np.array([info.min, info.max, 0, 1, -1 if info.min < 0 else 2, 3], dt),
                               rng.integers(info.min, info.max, 20000, dtype=dt, endpoint=True),
                               rng.integers(-8, 9, 5000).astype(dt)])
    if n is not None:
        data = np.resize(rng.permutation(data), n)
    return data


def bits(a) -> np.ndarray:
    a = np.asarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def scalar_bits(dtype: str, value) -> str:
    """The raw bits (hex) of value as dtype, for the driver's scalar arguments."""
    return "%x" % int(bits(np.asarray([value]).astype(DTYPES[dtype]))[0])


@dataclass(frozen=True)
class Case:
    """One dtype combination of one aclnn function.

    args: phase-1 arguments in prototype order: ("in", dt), ("out", dt), ("inout", dt) or
    ("scalar", dt, value).  model(*inputs) -> the expected output (the in-place result for
    "inout").  nan_payload: compare NaN bits exactly (else any NaN matches any NaN)."""
    func: str
    args: Sequence[tuple]
    model: Callable
    name: str = ""
    nan_payload: bool = True
    inputs: Optional[Callable] = None          # inputs(rng) -> list of arrays, else samples()
    streaming: bool = False                    # also run the misaligned-head streaming test
    threads: bool = False                      # also run the thread-count test
    overlap: bool = False                      # also run the overlapping-out test (input 0 aliased)

    @property
    def id(self) -> str:
        return self.name or f"{self.func}-" + "-".join(a[1] for a in self.args if a[0] != "scalar")

    @property
    def tensor_inputs(self) -> list[str]:
        return [a[1] for a in self.args if a[0] in ("in", "inout")]

    @property
    def out_dtype(self):
        return DTYPES[[a[1] for a in self.args if a[0] in ("out", "inout")][0]]

    def make_inputs(self, rng, n: Optional[int] = None) -> list[np.ndarray]:
        if self.inputs is not None and n is None:
            return list(self.inputs(rng))
        dts = self.tensor_inputs
        first = samples(dts[0], rng, n)
        return [first] + [samples(d, rng, len(first)) for d in dts[1:]]


def run_case(cprog, exe, tmp_path: Path, case: Case, inputs, layout="contig", env=None, alias_shift=None):
    """Run case through the driver; returns (result array, stderr).  alias_shift: out is a
    view of input 0's buffer starting that many elements later (0 = in place)."""
    n = len(inputs[0])
    argv, k = [], 0
    result_file = tmp_path / "out.bin"
    for i, a in enumerate(case.args):
        if a[0] == "scalar":
            argv.append(f"scalar:{a[1]}:{scalar_bits(a[1], a[2])}")
        elif a[0] == "in":
            p = tmp_path / f"in{k}.bin"
            np.ascontiguousarray(inputs[k]).tofile(p)
            argv.append(f"in:{a[1]}:{p}")
            k += 1
        elif a[0] == "inout":
            p = tmp_path / f"in{k}.bin"
            np.ascontiguousarray(inputs[k]).tofile(p)
            argv.append(f"inout:{a[1]}:{p}:{result_file}")
            k += 1
        else:
            if alias_shift is not None:
                argv.append(f"alias:0:{alias_shift}")
                result_file = tmp_path / "in0.bin.out"
            else:
                argv.append(f"out:{a[1]}:{result_file}")
    proc = cprog.run(exe, case.func, str(n), layout, *argv, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return np.fromfile(result_file, dtype=case.out_dtype), proc.stderr


def assert_same(got, want, what: str, nan_payload=True, inputs=()):
    gb, wb = bits(got), bits(np.asarray(want, dtype=got.dtype))
    bad = gb != wb
    if not nan_payload and (got.dtype.kind == "f" or got.dtype == m.BF16):
        bad &= ~(np.isnan(got.astype(np.float64)) & np.isnan(np.asarray(want).astype(np.float64)))
    diff = np.nonzero(bad)[0]
    if diff.size:
        i = diff[0]
        ins = " ".join(f"in{k} {int(bits(x)[i]):#x}" for k, x in enumerate(inputs))
        raise AssertionError(f"{what}: {diff.size} mismatches, first at {i}: {ins} "
                             f"got {int(gb[i]):#x} want {int(wb[i]):#x}")
