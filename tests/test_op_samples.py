"""Every registered operator's sample programs (its folder's examples/): our C++ rewrites of
CANN's samples build with CANN's link line and print exactly what the samples print on an NPU
(<name>.expected, computed from the documented math), also under valgrind; the Python ports
print the same."""
from __future__ import annotations

import subprocess

import pytest

import hg_registry


def _with_expected(suffix: str):
    out = []
    for name in hg_registry.operators():
        for p in sorted((hg_registry.folder(name) / "examples").glob(f"*{suffix}")):
            if p.with_suffix(".expected").is_file():
                out.append(p)
    return out


CPP = _with_expected(".cpp")
PY = _with_expected(".py")


def test_every_registered_operator_has_a_cpp_sample_and_its_port():
    for name in hg_registry.operators():
        ex = hg_registry.folder(name) / "examples"
        cpp = [p for p in CPP if p.parent == ex]
        assert cpp, f"{name}: no examples/*.cpp with a .expected"
        for p in cpp:
            assert p.with_suffix(".py").is_file(), f"{p.name} has no one-to-one Python port"


@pytest.mark.parametrize("sample", CPP, ids=lambda p: p.name)
def test_cpp_sample_output(cprog, sample):
    exe = cprog.build(sample)
    proc = cprog.run(exe)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == sample.with_suffix(".expected").read_text()


@pytest.mark.parametrize("sample", CPP, ids=lambda p: p.name)
def test_cpp_sample_under_valgrind(cprog, valgrind_available, sample):
    if not valgrind_available:
        pytest.skip("valgrind not installed")
    exe = cprog.build(sample)
    proc = cprog.run(exe, valgrind=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == sample.with_suffix(".expected").read_text()


@pytest.mark.parametrize("sample", PY, ids=lambda p: p.name)
def test_python_sample_output(hg, sample):
    from pyacl_hardgrad.__main__ import sample_command     # a *_pyacl.py sample runs under `run`
    proc = subprocess.run(sample_command(sample), capture_output=True, text=True, timeout=120, cwd="/")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == sample.with_suffix(".expected").read_text()
