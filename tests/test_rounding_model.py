"""The kernels' rounding rules in numpy (tests/hg_model.py) against hand-computed values."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import hg_model as m
from hg_model import f16, f32, u16

BF16 = ml_dtypes.bfloat16


# ---------------------------------------------------------------- bf16 rounding rule

def test_ml_dtypes_rounds_ties_to_even_so_the_model_does_not_use_it():
    tie = f32(0x3F808000)            # exactly between bf16 0x3f80 and 0x3f81
    assert u16(tie.astype(BF16)) == [0x3F80]   # ml_dtypes: ties to even
    assert u16(m.f32_to_bf16(tie)) == [0x3F81]  # kernel: ties away from zero


@pytest.mark.parametrize("bits, want", [
    (0x3F808000, 0x3F81),   # positive tie -> away
    (0xBF808000, 0xBF81),   # negative tie -> away (more negative)
    (0x3F818000, 0x3F82),   # tie with odd low bit: same as ties-even
    (0x3F807FFF, 0x3F80),   # just below the tie
    (0x3F808001, 0x3F81),
    (0x7F7FFFFF, 0x7F80),   # float32 max rounds to inf
    (0x7F7F7FFF, 0x7F7F),   # stays the largest finite bf16
    (0x7F800000, 0x7F80),   # +inf
    (0xFF800000, 0xFF80),   # -inf
    (0x00008000, 0x0001),   # subnormal tie -> smallest bf16 subnormal
    (0x00007FFF, 0x0000),
    (0x80000000, 0x8000),   # -0 kept
    (0x7FC00000, 0x7FC0),   # quiet NaN
    (0x7F800001, 0x7FC0),   # signalling NaN whose payload would vanish: stays NaN
    (0xFFC12345, 0xFFC1),
])
def test_f32_to_bf16_bits(bits, want):
    assert u16(m.f32_to_bf16(f32(bits))) == [want]


@pytest.mark.parametrize("bits, want", [
    (0x3E2AAAAB, 0x3155),   # 1/6: round to nearest
    (0x3F801000, 0x3C00),   # fp16 tie, even below
    (0x3F803000, 0x3C02),   # fp16 tie, odd below -> up
    (0x477FF000, 0x7C00),   # 65520 -> inf
    (0x477FEFFF, 0x7BFF),   # just below -> 65504
    (0x33800000, 0x0001),   # 2^-24: smallest subnormal
    (0x33000000, 0x0000),   # 2^-25: tie -> even (0)
    (0x33000001, 0x0001),
    (0x80000000, 0x8000),
])
def test_f32_to_f16_by_numpy(bits, want):
    assert u16(m.cast(f32(bits), np.float16)) == [want]


@pytest.mark.parametrize("bits, want", [
    (0x33000000, 0x0001),   # 2^-25: a tie -> away (RNE gives 0)
    (0xB3000000, 0x8001),
    (0x3F801000, 0x3C01),   # 1 + 2^-11: tie -> away (RNE: 0x3c00)
    (0x3F803000, 0x3C02),   # odd below: same as RNE
    (0x477FF000, 0x7C00),   # 65520 -> inf
    (0x477FEFFF, 0x7BFF),
    (0x7FC00000, 0x7E00),
])
def test_f32_to_f16_ties_away(bits, want):
    assert u16(m.f32_to_f16_rna(f32(bits))) == [want]


def test_f32_to_f16_ties_away_equals_rne_off_ties():
    x = np.random.default_rng(3).standard_normal(20000).astype(np.float32)
    x = x[(x.view(np.uint32) & 0x1FFF) != 0x1000]     # normal-range fp16 ties removed
    assert u16(m.f32_to_f16_rna(x)) == u16(x.astype(np.float16))


def test_f32_to_bf16_ties_even():
    assert u16(m.f32_to_bf16_rne(f32(0x3F808000, 0x3F818000))) == [0x3F80, 0x3F82]


@pytest.mark.parametrize("bits, want", [
    (0x3F808000, 0x3F80),   # tie, even lower neighbour: stays (ties away would give 0x3f81)
    (0xBF808000, 0xBF80),
    (0x3F818000, 0x3F82),   # tie, odd lower neighbour: up, as ties away
    (0xBF818000, 0xBF82),
    (0x40828000, 0x4082),   # 4.078125 (FLOAT16 0x4414): 0x4082, as torch
    (0x00008000, 0x0000),   # subnormal tie between 0 and the smallest bf16 subnormal: 0
    (0x00018000, 0x0002),
    (0x7F7F8000, 0x7F80),   # the tie above the largest finite bf16 (odd): inf
    (0x3F808001, 0x3F81),
    (0x7FC12345, 0x7FC1),   # NaN stays NaN
])
def test_cast_step_to_bf16_rounds_ties_to_even(bits: int, want: int) -> None:
    """The Cast step after a kernel (CANN's Cast operator, CAST_RINT) is not the kernels' own
    ties-away narrowing (f32_to_bf16)."""
    assert u16(m.cast(f32(bits), BF16)) == [want]
    if not np.isnan(f32(bits)[0]):
        assert u16(m.cast(f32(bits), BF16)) == u16(f32(bits).astype(BF16))      # ml_dtypes agrees


def test_cast_step_to_bf16_from_fp16_is_one_rounding() -> None:
    x = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    x = x[np.isfinite(x)]
    assert u16(m.cast(x, BF16)) == u16(x.astype(np.float32).astype(BF16))
    assert u16(m.cast(f16(0x4414), BF16)) == [0x4082]
