"""The runtime calls beyond the basics that the embedded runtime implements, one pytest case per
check of tests/c/runtime_surface.c (init / finalize callbacks, aclFinalizeReference, saturation
mode and overflow status, stream attributes, timeouts, process parameters and device ids,
external allocators, aclrtReduceAsync's arguments and ordering, pointer attributes, device
uuids, event waits with a timeout or flag, stream-ordered memory pools,
stream resource limits), and aclrtReduceAsync's
numerics: every reduce kind CANN supports (SUM, MAX, MIN) on every data type it documents,
computed on the device and compared with numpy."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from hg_cchecks import named_checks, run_named

CHECKS: dict[str, dict[str, str]] = {
    "init_finalize_callbacks": {},
    "finalize_reference": {},
    "sat_mode_and_overflow": {},
    "stream_attributes": {},
    "timeouts_params_ids": {"PYACL_HARDGRAD_DEVICE_COUNT": "2"},
    "allocator_registry": {},
    "reduce_arguments_and_order": {},
    "pointers_uuid_waits": {"PYACL_HARDGRAD_DEVICE_COUNT": "2"},
    "memory_pools": {},
    "stream_res_limits": {},
}

SUM, MAX, MIN = 10, 11, 12
# aclDataType value -> numpy dtype (ACL_INT4 is handled as packed nibbles)
TYPES: dict[str, tuple[int, Any]] = {
    "float32": (0, np.float32),
    "float16": (1, np.float16),
    "int8": (2, np.int8),
    "int32": (3, np.int32),
    "uint8": (4, np.uint8),
    "int16": (6, np.int16),
    "uint16": (7, np.uint16),
    "uint32": (8, np.uint32),
    "bfloat16": (27, ml_dtypes.bfloat16),
    "int4": (29, None),
}


@pytest.fixture(scope="module")
def surface_exe(cprog: Any) -> Path:
    exe: Path = cprog.build("runtime_surface.c")
    return exe


def test_surface_table_matches_program(cprog: Any, surface_exe: Path) -> None:
    assert named_checks(cprog, surface_exe) == list(CHECKS)


@pytest.mark.parametrize("name", list(CHECKS))
def test_runtime_surface(cprog: Any, surface_exe: Path, name: str) -> None:
    run_named(cprog, surface_exe, name, CHECKS[name])  # type: ignore[no-untyped-call]  # (untyped helper)


def _operands(name: str, rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    code, dt = TYPES[name]
    if dt is None:  # int4: values -8..7
        return rng.integers(-8, 8, n).astype(np.int8), rng.integers(-8, 8, n).astype(np.int8)
    if np.issubdtype(dt, np.integer):
        info = np.iinfo(dt)
        return (rng.integers(info.min, info.max, n, endpoint=True).astype(dt),
                rng.integers(info.min, info.max, n, endpoint=True).astype(dt))
    a = (rng.standard_normal(n) * 100).astype(np.float32).astype(dt)
    b = (rng.standard_normal(n) * 100).astype(np.float32).astype(dt)
    a[:4] = np.array([np.inf, -np.inf, 0.0, -0.0], dtype=np.float32).astype(dt)
    b[:4] = np.array([1.0, np.inf, -0.0, 0.0], dtype=np.float32).astype(dt)
    return a, b


def _pack_int4(v: np.ndarray) -> np.ndarray:
    u = (v.astype(np.int16) & 0xF).astype(np.uint8)
    return u[0::2] | (u[1::2] << 4)


def _unpack_int4(p: np.ndarray) -> np.ndarray:
    lo, hi = (p & 0xF).astype(np.int16), (p >> 4).astype(np.int16)
    out = np.empty(2 * len(p), dtype=np.int16)
    out[0::2], out[1::2] = lo, hi
    return np.where(out >= 8, out - 16, out).astype(np.int8)


def _expected(kind: int, name: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if name == "int4":
        r: np.ndarray = (a.astype(np.int16) + b) if kind == SUM else (np.maximum(a, b) if kind == MAX
                                                                     else np.minimum(a, b))
        return ((r.astype(np.int16) + 8) % 16 - 8).astype(np.int8)  # sums wrap in 4 bits
    if kind == SUM:
        with np.errstate(over="ignore"):
            if np.issubdtype(a.dtype, np.integer):
                wrapped: np.ndarray = a + b  # numpy integer addition wraps
                return wrapped
            return (a.astype(np.float32) + b.astype(np.float32)).astype(a.dtype)
    if np.issubdtype(a.dtype, np.integer):
        extreme: np.ndarray = np.maximum(a, b) if kind == MAX else np.minimum(a, b)
        return extreme
    # a NaN operand gives NaN (dst's first); equal operands (0 and -0) give dst's
    fa, fb = a.astype(np.float32), b.astype(np.float32)
    pick_a = (fa >= fb) if kind == MAX else (fa <= fb)
    pick_a = np.isnan(fa) | (~np.isnan(fb) & pick_a)
    return np.where(pick_a, a, b)


@pytest.mark.parametrize("kind", [SUM, MAX, MIN], ids=["sum", "max", "min"])
@pytest.mark.parametrize("name", list(TYPES))
def test_reduce_async_matches_numpy(cprog: Any, surface_exe: Path, tmp_path: Path, kind: int, name: str) -> None:
    rng = np.random.default_rng(kind * 100 + TYPES[name][0])
    n = 1000
    a, b = _operands(name, rng, n)
    if name == "int4":
        raw_a, raw_b = _pack_int4(a), _pack_int4(b)
    else:
        raw_a, raw_b = a, b
    nbytes = raw_a.nbytes
    (tmp_path / "in").write_bytes(raw_a.tobytes() + raw_b.tobytes())
    proc = cprog.run(surface_exe, "reduce", str(kind), str(TYPES[name][0]), str(nbytes), str(tmp_path / "in"),
                     str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = (tmp_path / "out").read_bytes()
    got = _unpack_int4(np.frombuffer(out, np.uint8)) if name == "int4" else np.frombuffer(out, a.dtype)
    want = _expected(kind, name, a, b)
    if np.issubdtype(want.dtype, np.integer):
        np.testing.assert_array_equal(got, want)
    else:
        # bit-exact but for NaN payloads: the same rounding, signed zeros and infinities
        nan_got, nan_want = np.isnan(got.astype(np.float32)), np.isnan(want.astype(np.float32))
        np.testing.assert_array_equal(nan_got, nan_want)
        assert nan_want.sum() > 0 or kind != SUM
        assert got[~nan_want].tobytes() == want[~nan_want].tobytes(), \
            np.nonzero(got[~nan_want].view(np.uint8) != want[~nan_want].view(np.uint8))


def test_checking_mode_sees_reduce_async_accesses(cprog: Any, surface_exe: Path) -> None:
    """The reduce is a stream task with dst and src accesses like a copy's: reading dst before the
    stream is synchronized, and a range past the allocation's end, are findings."""
    proc = cprog.run(surface_exe, "reduce_arguments_and_order", env={"PYACL_HARDGRAD_CHECK": "1"})
    out = proc.stdout + proc.stderr
    assert "PASS reduce_arguments_and_order" in out
    assert "out-of-bounds: aclrtReduceAsync: dst reaches bytes [32, 96)" in out
    assert re.search(r"use-before-sync: aclrtMemcpy reads source .* that aclrtReduceAsync \(call \d+\) queued", out)
    assert "ERROR SUMMARY: 2 error(s)" in out
