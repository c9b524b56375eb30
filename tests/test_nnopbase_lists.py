"""Tensor-base containers (int/float/bool arrays, tensor and scalar lists), the view and
storage getters, the tensor address setters, and the device rules of an operator launch
(libnnopbase), through a C++ program written like CANN's ops-nn samples."""
from __future__ import annotations

import pytest

SRC = "nnopbase_lists.cpp"
ENV = {"PYACL_HARDGRAD_DEVICE_COUNT": "2"}


def _args(hg, what):
    """launch_devices plans and launches the first offered operator taking two input tensors and
    one output (picked by signature shape)."""
    if what != "launch_devices":
        return [what]
    for spec in hg.ops.operators().values():
        if [p.kind for p in spec.params] == ["tensor", "tensor", "out"]:
            return [what, spec.name]
    pytest.skip("no operator takes two input tensors and one output")


@pytest.mark.parametrize("what", ["containers", "launch_devices"])
def test_nnopbase_lists(hg, cprog, what):
    proc = cprog.run(cprog.build(SRC), *_args(hg, what), env=ENV)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip() == "OK"


@pytest.mark.parametrize("what", ["containers", "launch_devices"])
def test_nnopbase_lists_under_memcheck(hg, cprog, valgrind_available, what):
    """Also proves the getters' arrays come from new[] (memcheck flags a mismatched delete[])."""
    if not valgrind_available:
        pytest.skip("valgrind is not installed or PYACL_HARDGRAD_TEST_NO_VALGRIND=1 switched it off")
    proc = cprog.run(cprog.build(SRC), *_args(hg, what), env=ENV, valgrind=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK" in proc.stdout
