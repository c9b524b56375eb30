"""Every registered operator's sample ports print exactly what CANN's C++ samples print; the CLI works."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import hg_registry

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _run(args, **kw):
    env = dict(os.environ)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120, env=env,
                          cwd=kw.get("cwd", "/"))


def _samples():
    """Every registered operator's Python samples (examples/*.py with a .expected file), from the
    source tree's registry; the installed copy of each is run."""
    out = []
    for name in hg_registry.operators():
        ex = hg_registry.folder(name) / "examples"
        out += [p.name for p in sorted(ex.glob("*.py")) if p.with_suffix(".expected").is_file()]
    return out


def test_every_operator_has_a_python_sample():
    for name in hg_registry.operators():
        ex = hg_registry.folder(name) / "examples"
        assert any(p.with_suffix(".expected").is_file() for p in ex.glob("*.py")), name


@pytest.mark.parametrize("name", _samples())
def test_port_output(hg, name):
    from pyacl_hardgrad.__main__ import expected_output, sample_command, sample_path
    proc = _run(sample_command(sample_path(name))[1:])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected_output(name)


def test_each_cpp_sample_has_a_python_port_sharing_its_expected_output():
    """A folder's C++ sample test_aclnn_<x>.cpp has its one-to-one Python port test_aclnn_<x>.py
    next to it, and both are checked against the one test_aclnn_<x>.expected."""
    for name in hg_registry.operators():
        ex = hg_registry.folder(name) / "examples"
        for cpp in ex.glob("test_aclnn_*.cpp"):
            assert cpp.with_suffix(".py").is_file() and cpp.with_suffix(".expected").is_file(), cpp


def test_cli_samples_and_info(hg):
    proc = _run(["-m", "pyacl_hardgrad", "samples"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "samples match" in proc.stdout and "FAIL" not in proc.stdout
    proc = _run(["-m", "pyacl_hardgrad", "info"])
    assert proc.returncode == 0, proc.stderr
    assert "backend:      sim" in proc.stdout and "libascendcl.so" in proc.stdout and "devices:" in proc.stdout


def test_cli_includes_and_libdir(hg):
    proc = _run(["-m", "pyacl_hardgrad", "--includes"])
    assert proc.stdout.strip() == f"-I{hg.get_include()}"
    assert (Path(hg.get_include()) / "acl" / "acl.h").is_file()
    proc = _run(["-m", "pyacl_hardgrad", "--libdir"])
    assert proc.stdout.strip() == hg.get_library_dir()
    # --includes must work where no backend loads.
    env = dict(os.environ, PYACL_HARDGRAD_BACKEND="cann", ASCEND_HOME_PATH="/nonexistent")
    proc = subprocess.run([sys.executable, "-m", "pyacl_hardgrad", "--includes"], capture_output=True, text=True,
                          env=env, cwd="/")
    assert proc.returncode == 0 and proc.stdout.startswith("-I")
