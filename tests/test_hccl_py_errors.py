"""hg.hccl's errors and lifetimes: a closed communicator refuses every call, argument errors name
the argument and the rule before any C call, HcclError carries HCCL's code, name and message (and
pickles), closing with work queued destroys once after the stream, the device stays in use."""
from __future__ import annotations

import json

import pytest

import hg_hcclpy


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    path = tmp_path_factory.mktemp("hccl") / "report.json"
    proc = hg_hcclpy.run_python(f"import hg_hcclpy; hg_hcclpy.error_worker({str(path)!r})", devices=2)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(path.read_text())


@pytest.mark.parametrize("name", sorted(hg_hcclpy.ERROR_CHECKS))
def test_hccl_errors_and_lifetimes(report, name):
    assert report[name] == "ok", report[name]


_MISSING = """
import pyacl_hardgrad as hg
assert hg.BACKEND.name == "cann", hg.BACKEND
h = hg.hccl                           # importing the module opens no HCCL library
assert h.ReduceOp.SUM == 0
try:
    h.get_root_info()
except h.HcclLibraryError as exc:
    print("refused:", exc)
"""


def test_missing_libhccl_is_a_clear_error_at_first_use_not_at_import(tmp_path):
    """A CANN-shaped tree holding the runtime's three libraries and no libhccl.so: the package
    imports, hg.hccl imports, the first call that needs HCCL says what is missing and where."""
    import pyacl_hardgrad as hg
    lib64 = tmp_path / "cann" / "lib64"
    lib64.mkdir(parents=True)
    for name in ("libascendcl.so", "libnnopbase.so", "libopapi.so"):
        (lib64 / name).symlink_to(f"{hg.get_library_dir()}/{name}")
    proc = hg_hcclpy.run_python(_MISSING, devices=1, extra_env={
        "PYACL_HARDGRAD_BACKEND": "cann", "ASCEND_HOME_PATH": str(tmp_path / "cann")})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"refused: libhccl.so not found in {lib64}" in proc.stdout, proc.stdout


def test_every_hccl_function_binds_and_the_operations_resolve_in_libhccl():
    proc = hg_hcclpy.run_python(
        "import json, pyacl_hardgrad as hg; b = hg.hccl.libraries(); "
        "print(json.dumps([b.files, b.missing_functions, hg.hccl._hccl_binding.bound_files()]))", devices=1)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    files, missing, bound = json.loads(proc.stdout.strip().splitlines()[-1])
    assert [f.rsplit("/", 1)[-1] for f in files] == ["libhccl.so", "libhcomm.so"]
    assert missing == []
    assert bound["HcclAllReduce"].endswith("/libhccl.so") and bound["HcclCommInitRootInfo"].endswith(".so")
