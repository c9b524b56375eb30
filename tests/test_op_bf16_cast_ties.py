"""The Cast step into a BFLOAT16 out of another dtype rounds to nearest, ties to even.

Four operators end their op_api with CANN's Cast to out's dtype (ops-nn's aclnn_hardshrink.cpp,
aclnn_hardshrink_backward.cpp, aclnn_hardsigmoid_backward.cpp, aclnn_hardswish.cpp: Cast then
ViewCopy), and CANN's Cast from FLOAT and FLOAT16 to BF16 rounds with CAST_ROUND_MODE_RINT
(ops-math math/cast/op_kernel/arch35/cast_struct.h, the float->bf16 and half->bf16 policies) --
as torch's casts do.  The kernels' own bf16 narrowing (CAST_ROUND, ties away) is not this step.

For each operator and each dtype combination whose value before the Cast can lie exactly halfway
between two bf16 values, the inputs are every such tie the operator can produce: for fp16 inputs
all 65536 patterns are searched, for fp32 every one of the 65280 fp32 ties (low 16 bits 0x8000
under each finite bf16, both signs) is fed or aimed at.  They cover both signs, even and odd lower
neighbours (only an even one tells ties-to-even from ties-away) and, where the operator reaches
them, subnormal ties.  The operator runs through tests/c/aclnn_driver.c on every kernel path of
the machine (portable, AVX2, AVX-512, NEON), contiguous and strided, and each output word must
equal torch's bf16 cast of the value before the Cast (that value from the operator's numpy model,
which tests/test_op_numerics.py pins bit for bit), and the ties-to-even rule of hg_model."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the torch oracle needs torch (installed by the test extra)")

import hg_model as m  # noqa: E402
import hg_registry  # noqa: E402
from hg_cases import Case, run_case  # noqa: E402
from hg_torch import from_torch, to_torch  # noqa: E402
from test_op_numerics import PATHS, _env, unavailable  # noqa: E402

SIXTH = np.float32(1.0) / np.float32(6.0)
ALL16 = np.arange(65536, dtype=np.uint32).astype(np.uint16)


def _is_tie(a: np.ndarray) -> np.ndarray:
    """Finite values exactly halfway between two bf16 values."""
    f = np.asarray(a).astype(np.float32)
    tie: np.ndarray = np.isfinite(f) & ((f.view(np.uint32) & 0xFFFF) == 0x8000)
    return tie


@functools.lru_cache(maxsize=None)
def _f32_ties() -> np.ndarray:
    """Every fp32 tie: (hi << 16) | 0x8000 for hi = 0x0000 .. 0x7f7f (0x7f7f8000 rounds to inf),
    and the negatives."""
    pos = (np.arange(0x7F80, dtype=np.uint32) << 16) | np.uint32(0x8000)
    return np.concatenate([pos, pos | np.uint32(0x80000000)]).view(np.float32)


def _f16_ties() -> np.ndarray:
    """Every fp16 value that is a bf16 tie (low 3 mantissa bits 100, subnormals included)."""
    x: np.ndarray = ALL16.view(m.F16)
    ties: np.ndarray = x[_is_tie(x)]
    return ties


def _neighbours(x: np.ndarray, k: int) -> np.ndarray:
    """x and its k fp32 neighbours on either side (finite ones)."""
    x = np.asarray(x, np.float32)
    out = [x]
    up, down = x, x
    for _ in range(k):
        up = np.nextafter(up, np.float32(np.inf))
        down = np.nextafter(down, np.float32(-np.inf))
        out += [up, down]
    a = np.concatenate(out)
    finite: np.ndarray = np.unique(a[np.isfinite(a)])
    return finite


# ---------------------------------------------------------------- the four operators

@dataclass(frozen=True)
class TieCase:
    """One dtype combination: the aclnn call, its inputs, and the value before the Cast."""
    op: str
    func: str
    ins: tuple[str, ...]           # input dtype names, then out is bf16
    scalar: float | None = None    # lambd, when the operator takes one

    @property
    def id(self) -> str:
        return f"{self.op}-{'-'.join(self.ins)}-bf16"

    def case(self) -> Case:
        args: list[tuple[object, ...]] = [("in", d) for d in self.ins]
        if self.scalar is not None:
            args.append(("scalar", "f32", self.scalar))
        args.append(("out", "bf16"))
        return Case(self.func, args, lambda *a: None, name=self.id)


def _hardshrink(tc: TieCase) -> tuple[list[np.ndarray], np.ndarray]:
    x = _f32_ties() if tc.ins[0] == "f32" else _f16_ties()
    before = hg_registry.model("hard_shrink").hardshrink(x, tc.scalar)   # lambd 0: every tie kept
    return [x], before


def _hardshrink_backward(tc: TieCase) -> tuple[list[np.ndarray], np.ndarray]:
    g_dt, s_dt = (hg_model_dtype(d) for d in tc.ins)
    grad = (_f32_ties() if g_dt == m.F32 else _f16_ties()).astype(g_dt)
    self = np.resize(np.array([2.0, -3.0], np.float32), grad.size).astype(s_dt)   # |self| > lambd: kept
    mod = hg_registry.model("hard_shrink_grad")
    before = mod.hardshrink_backward(grad, self, tc.scalar, mod.promote(g_dt, s_dt))
    return [grad, self], before


def _hardsigmoid_backward(tc: TieCase) -> tuple[list[np.ndarray], np.ndarray]:
    g_dt, s_dt = (hg_model_dtype(d) for d in tc.ins)
    mod = hg_registry.model("hard_sigmoid_grad")
    promoted = mod.promote(g_dt, s_dt)
    if g_dt == m.F32:
        # grad near 6 * tie, kept where grad * (1/6) in fp32 is itself a tie
        with np.errstate(over="ignore"):
            cand = _neighbours((_f32_ties().astype(np.float64) * 6.0).astype(np.float32), 4)
    else:
        cand = ALL16.view(g_dt)
    with np.errstate(all="ignore"):
        before = mod.hardsigmoid_backward(cand, np.zeros(cand.size, s_dt), promoted)
    grad = cand[_is_tie(before)]
    self = np.zeros(grad.size, s_dt)                  # inside (-3, 3): r kept
    return [grad, self], mod.hardsigmoid_backward(grad, self, promoted)


def _hardswish(tc: TieCase) -> tuple[list[np.ndarray], np.ndarray]:
    mod = hg_registry.model("hard_swish")
    if tc.ins[0] == "f32":
        t = _f32_ties().astype(np.float64)
        with np.errstate(invalid="ignore"):
            # the x whose x * (x + 3) / 6 is t (x >= 3: y is about x; below, the root of
            # x^2 + 3x - 6t written without cancellation for tiny t), then fp32 neighbours
            root = np.where(t >= 3.0, t, 12.0 * t / (np.sqrt(9.0 + 24.0 * t) + 3.0))
        cand = _neighbours(root[np.isfinite(root)].astype(np.float32), 4)
    else:
        cand = ALL16.view(m.F16)
    with np.errstate(all="ignore"):
        x = cand[_is_tie(mod.hardswish(cand))]
    return [x], mod.hardswish(x)


def hg_model_dtype(name: str) -> np.dtype[Any]:
    dtypes: dict[str, np.dtype[Any]] = {"f32": m.F32, "f16": m.F16, "bf16": m.BF16}
    return dtypes[name]


# Every combination whose value before the Cast can be a bf16 tie: the promoted (or self) dtype
# is FLOAT or FLOAT16; a BF16 one already is bf16 (its Cast to bf16 changes nothing).
CASES: dict[TieCase, Callable[[TieCase], tuple[list[np.ndarray], np.ndarray]]] = {}
for _s in ("f32", "f16"):
    CASES[TieCase("hardshrink", "aclnnHardshrink", (_s,), 0.0)] = _hardshrink
    CASES[TieCase("hardswish", "aclnnHardswish", (_s,))] = _hardswish
for _g in ("f32", "f16"):
    for _s in ("f32", "f16", "bf16"):
        CASES[TieCase("hardshrink_backward", "aclnnHardshrinkBackward", (_g, _s), 0.5)] = _hardshrink_backward
for _g in ("f32", "f16", "bf16"):
    for _s in ("f32", "f16", "bf16"):
        if not _g == _s == "bf16":
            CASES[TieCase("hardsigmoid_backward", "aclnnHardsigmoidBackward", (_g, _s))] = _hardsigmoid_backward


@functools.lru_cache(maxsize=None)
def _inputs(tc: TieCase) -> tuple[list[np.ndarray], np.ndarray]:
    ins, before = CASES[tc](tc)
    assert before.dtype != m.BF16 and _is_tie(before).all(), tc.id
    return ins, before


def _expected(before: np.ndarray) -> np.ndarray:
    """torch's cast of the value before the Cast into bf16 (round to nearest, ties to even)."""
    want: np.ndarray = from_torch(to_torch(before).to(torch.bfloat16))
    assert (want.view(np.uint16) == m.f32_to_bf16_rne(before.astype(np.float32)).view(np.uint16)).all()
    return want


def _reaches_f32_subnormal_ties(tc: TieCase) -> bool:
    """fp32 subnormal ties (|value| < 2^-126) before the Cast: where an fp32 input passes through
    (Hardshrink, HardshrinkBackward) or is scaled (Hardswish: about x/2, HardsigmoidBackward:
    g/6), and where g/6 of a bf16 gradient is rounded in fp32's subnormal range -- the only
    place a bf16 gradient gives a tie at all.  An fp16 input never gets there (2^-24 at least)."""
    return tc.ins[0] == "f32" or (tc.op == "hardsigmoid_backward" and tc.ins[0] == "bf16")


@pytest.mark.parametrize("tc", list(CASES), ids=lambda tc: tc.id)
def test_tie_inputs_cover_every_pattern(tc: TieCase) -> None:
    """The inputs reach ties of both signs, with even and odd lower neighbours, and subnormal
    ones where the operator can produce them; on an even lower neighbour ties-to-even and
    ties-away differ, so the run below tells the two apart."""
    ins, before = _inputs(tc)
    f = before.astype(np.float32)
    hi = f.view(np.uint32) >> 16
    assert (f > 0).any() and (f < 0).any(), tc.id
    assert ((hi & 1) == 0).sum() > 0 and ((hi & 1) == 1).sum() > 0, tc.id
    rne, rna = m.f32_to_bf16_rne(f).view(np.uint16), m.f32_to_bf16(f).view(np.uint16)
    assert (rne != rna).any()
    tiny = np.abs(f) < np.float32(2.0 ** -126)
    assert tiny.any() == _reaches_f32_subnormal_ties(tc), tc.id
    assert ((np.abs(f) < np.float32(2.0 ** -14)) & ~tiny).any() or tc.ins[0] == "bf16", tc.id   # fp16's subnormal range
    assert ins[0].dtype == hg_model_dtype(tc.ins[0])


@pytest.mark.parametrize("layout", ["contig", "strided"])
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("tc", list(CASES), ids=lambda tc: tc.id)
def test_cast_to_bf16_out_rounds_ties_to_even(cprog: Any, tmp_path: Path, tc: TieCase, path: str,
                                              layout: str) -> None:
    """Every tie the operator produces before its final Cast becomes torch's (ties-to-even) bf16
    on this kernel path; e.g. Hardshrink of FLOAT16 0x4414 (4.078125) gives 0x4082."""
    reason = unavailable(path)
    if reason:
        pytest.skip(reason)
    ins, before = _inputs(tc)
    want = _expected(before)
    got, err = run_case(cprog, cprog.build("aclnn_driver.c"), tmp_path, tc.case(), ins, layout, _env(path))
    assert f"kernel isa {path} " in err, err
    assert got.dtype == m.BF16 and got.size == want.size
    bad = np.nonzero(got.view(np.uint16) != want.view(np.uint16))[0]
    assert bad.size == 0, (f"{tc.id} {path} {layout}: {bad.size} of {want.size} differ, first: before "
                           f"{int(before.astype(np.float32).view(np.uint32)[bad[0]]):#010x} got "
                           f"{int(got.view(np.uint16)[bad[0]]):#06x} want {int(want.view(np.uint16)[bad[0]]):#06x}")


def test_the_example_hardshrink_fp16_0x4414_gives_0x4082(cprog: Any, tmp_path: Path) -> None:
    """Hardshrink of FLOAT16 0x4414 (4.078125, an exact bf16 tie between 0x4082 and 0x4083) into
    a BF16 out: 0x4082, as torch (CANN's Cast, CAST_ROUND_MODE_RINT)."""
    x = np.array([0x4414, 0xC414, 0x441C, 0x3C00], np.uint16).view(m.F16)
    tc = TieCase("hardshrink", "aclnnHardshrink", ("f16",), 0.5)
    got, _ = run_case(cprog, cprog.build("aclnn_driver.c"), tmp_path, tc.case(), [x], "contig", _env("auto"))
    assert [hex(v) for v in got.view(np.uint16)] == ["0x4082", "0xc082", "0x4084", "0x3f80"]
    want = torch.nn.functional.hardshrink(to_torch(x), 0.5).to(torch.bfloat16)
    assert [hex(v) for v in from_torch(want).view(np.uint16)] == ["0x4082", "0xc082", "0x4084", "0x3f80"]
