"""The four sample ports print exactly what CANN's C++ samples print; the CLI works."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _run(args, **kw):
    env = dict(os.environ)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120, env=env,
                          cwd=kw.get("cwd", "/"))


@pytest.mark.parametrize("name", ["test_aclnn_hardtanh_grad.py", "hardtanh_grad_idiomatic.py",
                                  "test_aclnn_hard_sigmoid_grad.py", "hard_sigmoid_grad_idiomatic.py"])
def test_port_output(hg, name):
    from pyacl_hardgrad.__main__ import expected_output, sample_path
    proc = _run([str(sample_path(name))])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected_output(name)


def test_expected_lines_match_the_reference():
    from pyacl_hardgrad.__main__ import expected_output
    assert expected_output("test_aclnn_hardtanh_grad.py").splitlines()[3] == "result[3] is: 3.000000"
    assert expected_output("test_aclnn_hard_sigmoid_grad.py").splitlines()[1] == "result[1] is: 0.166667"


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
