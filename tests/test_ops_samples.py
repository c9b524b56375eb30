"""Our rewrites of CANN's two operator samples (examples/cpp) build with CANN's link line and
print exactly what the samples print on an NPU."""
from __future__ import annotations

from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "cpp"

EXPECTED = {
    "hardtanh_backward_sample.cpp": ["0.000000", "0.000000", "0.000000", "3.000000",
                                     "0.000000", "5.000000", "0.000000", "0.000000"],
    "hardsigmoid_backward_sample.cpp": ["0.000000", "0.166667", "0.333333", "0.000000",
                                        "0.000000", "0.000000", "0.000000", "0.000000"],
}


@pytest.mark.parametrize("sample", sorted(EXPECTED))
def test_sample_output(cprog, sample):
    exe = cprog.build(EXAMPLES / sample)
    proc = cprog.run(exe)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    want = "".join(f"result[{i}] is: {v}\n" for i, v in enumerate(EXPECTED[sample]))
    assert proc.stdout == want


@pytest.mark.parametrize("sample", sorted(EXPECTED))
def test_sample_under_valgrind(cprog, valgrind_available, sample):
    if not valgrind_available:
        pytest.skip("valgrind not installed")
    exe = cprog.build(EXAMPLES / sample)
    proc = cprog.run(exe, valgrind=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("result[") == 8
