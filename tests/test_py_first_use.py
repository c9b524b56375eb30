"""A newcomer's first hour: the mistakes that used to fail obscurely now say cause and fix."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SOURCE_PKG = REPO_ROOT / "pyacl_hardgrad"


def _source_tree_is_built() -> bool:
    return (SOURCE_PKG / "_cann" / "include").is_dir() and (SOURCE_PKG / "_cann" / "lib64").is_dir()


def _clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME")}
    env.update(extra)
    return env


@pytest.mark.skipif(_source_tree_is_built(), reason="the checkout was built in place, so it does run")
def test_import_from_the_checkout_names_cause_and_fix():
    proc = subprocess.run([sys.executable, "-c", "import pyacl_hardgrad as hg; hg.Device"], cwd=REPO_ROOT,
                          capture_output=True, text=True, env=_clean_env())
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("pyacl_hardgrad._paths.NotBuiltError: pyacl_hardgrad was imported from its "
                           "uncompiled source tree"), proc.stderr
    assert "pip install ." in last and "build_ext --inplace" in last
    assert "_cffi_acl" not in proc.stderr


@pytest.mark.skipif(_source_tree_is_built(), reason="the checkout was built in place, so it does run")
def test_includes_from_the_checkout_fails_instead_of_printing_a_missing_folder():
    proc = subprocess.run([sys.executable, "-m", "pyacl_hardgrad", "--includes"], cwd=REPO_ROOT,
                          capture_output=True, text=True, env=_clean_env())
    assert proc.returncode == 2 and proc.stdout == ""
    assert "uncompiled source tree" in proc.stderr


def test_includes_of_the_installed_package_exist(hg):
    assert (Path(hg.get_include()) / "acl" / "acl.h").is_file()
    assert Path(hg.get_library_dir()).is_dir()


def test_auto_warns_about_a_partial_cann_install(hg, tmp_path):
    libdir = tmp_path / "lib64"
    libdir.mkdir()
    shutil.copy2(Path(hg.get_library_dir()) / "libascendcl.so", libdir / "libascendcl.so")   # no nnopbase, opapi
    probe = "import pyacl_hardgrad._binding as b; print(b.BACKEND.name)"
    proc = subprocess.run([sys.executable, "-W", "always", "-c", probe], cwd=tmp_path, capture_output=True,
                          text=True, env=_clean_env(ASCEND_HOME_PATH=str(tmp_path), PYACL_HARDGRAD_BACKEND="auto"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "sim"
    assert "RuntimeWarning" in proc.stderr and "a CANN install was found but cannot be loaded" in proc.stderr
    assert f"{libdir} ($ASCEND_HOME_PATH): partial install: no libnnopbase.so (nnopbase)" in proc.stderr


def test_auto_is_silent_without_any_cann_install(hg, tmp_path):
    probe = "import pyacl_hardgrad._binding as b; print(b.BACKEND.name)"
    proc = subprocess.run([sys.executable, "-W", "error", "-c", probe], cwd=tmp_path, capture_output=True,
                          text=True, env=_clean_env(ASCEND_HOME_PATH=str(tmp_path / "nowhere"),
                                                    PYACL_HARDGRAD_BACKEND="auto"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "sim"


def _probe_output(probe: str, cwd) -> str:
    """What a fresh interpreter running ``probe`` prints (it must succeed)."""
    proc = subprocess.run([sys.executable, "-c", probe], cwd=cwd, capture_output=True, text=True, env=_clean_env())
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_float32_work_does_not_import_ml_dtypes(hg, tmp_path):
    """Importing ml_dtypes costs over a second with numpy 2.4; a program that never touches
    bfloat16 (numpy calls, tensors of other dtypes, dtype names, scalars) does not pay it."""
    probe = ("import sys, numpy as np, pyacl_hardgrad as hg\n"
             "g, x = np.linspace(-2, 2, 16, dtype=np.float32), np.ones(16, np.float32)\n"
             "hg.hardtanh_backward(g, x, -1.0, 1.0)\n"
             "with hg.Device(0) as d, hg.Tensor(g, d) as tg, hg.Tensor(x.astype(np.float16), d) as tx:\n"
             "    out = hg.hardsigmoid_backward(tg, tx, sync=True)\n"
             "    assert out.dtype == np.float32 and hg.empty((2,), 'fp16', d).dtype == np.float16\n"
             "    hg.Scalar(1.5, 'float32').close(); out.close()\n"
             "print('ml_dtypes' in sys.modules)\n")
    assert _probe_output(probe, tmp_path) == "False"


@pytest.mark.parametrize("first", ["name", "attribute", "acl code", "array", "scalar"])
def test_bfloat16_works_whichever_way_it_is_first_asked_for(hg, tmp_path, first):
    """bfloat16 joins the dtype tables on first use, by name, as hg.bfloat16, by its aclDataType,
    from a user's ml_dtypes array, or as a Scalar's dtype; every way gives ml_dtypes' dtype."""
    ask = {"name": "hg.empty((3,), 'bf16', d).dtype",
           "attribute": "hg.bfloat16",
           "acl code": "hg.Tensor.from_device_pointer(int(m), (3,), hg._binding.lib.ACL_BF16, owner=m).dtype",
           "array": "hg.Tensor(np.ones(3, ml_dtypes.bfloat16), d).dtype",
           "scalar": "np.dtype(hg.Scalar(0.5, 'bfloat16').dtype)"}[first]
    probe = ("import numpy as np, pyacl_hardgrad as hg, pyacl_hardgrad._binding\n"
             + ("import ml_dtypes\n" if first == "array" else "")
             + "with hg.Device(0) as d, d.allocate(64) as m:\n"
             f"    got = {ask}\n"
             "    import ml_dtypes\n"
             "    assert got == np.dtype(ml_dtypes.bfloat16), got\n"
             "    r = hg.hardtanh_backward(np.ones(4, ml_dtypes.bfloat16), np.zeros(4, ml_dtypes.bfloat16),\n"
             "                             -1.0, 1.0)\n"
             "    assert r.dtype == got and r.astype(np.float32).tolist() == [1.0] * 4, r\n"
             "print('ok')\n")
    assert _probe_output(probe, tmp_path) == "ok"
