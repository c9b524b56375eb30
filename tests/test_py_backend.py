"""Backend discovery against fake CANN toolkits built from the embedded libraries."""
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = ("import json, pyacl_hardgrad._binding as b; f = b.bound_files(); "
         "print(json.dumps({'name': b.BACKEND.name, 'root': b.BACKEND.root, "
         "'files': {k: f[k] for k in ('aclInit', 'aclCreateTensor', 'aclnnHardtanhBackward')}}))")


def _arch():
    m = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(m, m)


@pytest.mark.parametrize("layout", ["lib64", "arch"])
def test_fake_toolkit_is_bound(hg, tmp_path, layout):
    src = Path(hg.get_library_dir())
    if layout == "lib64":
        libdir = tmp_path / "lib64"
        names = {"libascendcl.so": "libascendcl.so", "libnnopbase.so": "libnnopbase.so", "libopapi.so": "libopapi.so"}
    else:
        libdir = tmp_path / f"{_arch()}-linux" / "lib64"
        names = {"libascendcl.so": "libacl_rt.so", "libnnopbase.so": "libnnopbase.so", "libopapi.so": "libopapi_nn.so"}
    libdir.mkdir(parents=True)
    for a, b in names.items():
        shutil.copy2(src / a, libdir / b)
    env = dict(os.environ, ASCEND_HOME_PATH=str(tmp_path), PYACL_HARDGRAD_BACKEND="cann",
               LD_LIBRARY_PATH=str(libdir))
    env.pop("ASCEND_TOOLKIT_HOME", None)
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    assert info["name"] == "cann" and info["root"] == str(tmp_path)
    want = {"aclInit": names["libascendcl.so"], "aclCreateTensor": "libnnopbase.so",
            "aclnnHardtanhBackward": names["libopapi.so"]}
    for fn, lib in want.items():
        assert Path(info["files"][fn]).resolve() == (libdir / lib).resolve(), (fn, info["files"][fn])
