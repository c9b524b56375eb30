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
         "'files': {k: f[k] for k in ('aclInit', 'aclCreateTensor', 'OPERATOR')}}))")


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
    op = next(iter(hg.ops.operators()))             # any operator the binding offers
    proc = subprocess.run([sys.executable, "-c", PROBE.replace("OPERATOR", op)], capture_output=True, text=True,
                          env=env, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    assert info["name"] == "cann" and info["root"] == str(tmp_path)
    want = {"aclInit": names["libascendcl.so"], "aclCreateTensor": "libnnopbase.so",
            op: names["libopapi.so"]}
    for fn, lib in want.items():
        assert Path(info["files"][fn]).resolve() == (libdir / lib).resolve(), (fn, info["files"][fn])


EXTRA_HEADER = """
#ifndef TEST_EXTRA_H_
#define TEST_EXTRA_H_
#include "../aclnn/aclnn_base.h"
/* Operators the package was not compiled with: one out-of-place with a value parameter, one
   in-place (its first tensor is const, as CANN declares some of its aclnnInplaceXxx). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnTestExtraGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                               int64_t times, aclTensor *out,
                                                               uint64_t *workspaceSize, aclOpExecutor **executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnTestExtra(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               aclrtStream stream);
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceTestExtraGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *other,
                                                                      uint64_t *workspaceSize,
                                                                      aclOpExecutor **executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceTestExtra(void *workspace, uint64_t workspaceSize,
                                                      aclOpExecutor *executor, aclrtStream stream);
#endif
"""

# The implementation forwards to an operator of the package with the same tensor shape
# (TARGET: two tensor inputs and an output), so it makes real executors of the runtime.
EXTRA_SOURCE = """
#include "aclnnop/aclnn_test_extra.h"
#include "aclnnop/TARGET_HEADER"
aclnnStatus aclnnTestExtraGetWorkspaceSize(const aclTensor *g, const aclTensor *x, int64_t times, aclTensor *out,
                                           uint64_t *ws, aclOpExecutor **ex)
{
    if (times <= 0) return ACLNN_ERR_PARAM_INVALID;
    return TARGETGetWorkspaceSize(g, x, out, ws, ex);
}
aclnnStatus aclnnTestExtra(void *w, uint64_t n, aclOpExecutor *ex, aclrtStream s) { return TARGET(w, n, ex, s); }
aclnnStatus aclnnInplaceTestExtraGetWorkspaceSize(const aclTensor *self, const aclTensor *other, uint64_t *ws,
                                                  aclOpExecutor **ex)
{
    return TARGETGetWorkspaceSize(other, self, (aclTensor *)self, ws, ex);
}
aclnnStatus aclnnInplaceTestExtra(void *w, uint64_t n, aclOpExecutor *ex, aclrtStream s) { return TARGET(w, n, ex, s); }
"""

EXTRA_PROBE = r"""
import gc, json, numpy as np, pyacl_hardgrad as hg
from pyacl_hardgrad import ops
G = np.arange(8, dtype=np.float32) - 2
X = np.array([-3.5, -1, -0.25, 0.5, 1, 2, 3, 3.5], np.float32)
target = ops.operators()[TARGET_NAME].function
spec = ops.operators()["aclnnTestExtra"]
inpl = ops.operators()["aclnnInplaceTestExtra"]
out = {"source": spec.source, "function": spec.function_name, "plan_class": spec.plan_name,
       "params": [(p.name, p.kind, p.role) for p in spec.params],
       "inplace_params": [(p.name, p.kind, p.role) for p in inpl.params]}
want = target(G, X)
out["numpy"] = bool(np.array_equal(hg.test_extra(G, X, 2), want))
with hg.Device(0) as dev, dev.create_stream() as s:
    g, x = hg.Tensor(G, dev), hg.Tensor(X, dev)
    r = hg.test_extra(g, x, times=3, stream=s, sync=True)
    out["tensor"] = bool(np.array_equal(r.numpy(), want))
    with hg.TestExtraPlan(g, x, 1, r, repeatable=True) as plan:
        for _ in range(3):
            plan.run(None, s)
        s.synchronize()
        out["plan"] = bool(np.array_equal(r.numpy(), want)) and plan.runs == 3
    try:
        hg.test_extra(g, x, 0, out=r)
    except hg.AclnnParamError as exc:
        out["error"] = [exc.code, exc.function]
    x2 = hg.Tensor(X, dev)
    res = hg.inplace_test_extra(x2, g, stream=s)
    out["inplace_returns_input"] = res is x2
    out["inplace"] = bool(np.array_equal(x2.numpy(), target(G, X)))
    host = X.copy()
    back = hg.inplace_test_extra(host, G)
    out["inplace_host"] = back is host and bool(np.array_equal(host, target(G, X)))
    x.close()
    try:
        hg.test_extra(g, x, 1)
    except hg.ClosedError as exc:
        out["closed"] = str(exc)
    for t in (g, r, x2):
        t.close()
hg.release_defaults()
gc.collect()
out["live"] = {k: v for k, v in hg.live_counts().items() if v}
print(json.dumps(out))
"""


def test_cann_backend_calls_an_operator_the_package_was_not_compiled_with(hg, tmp_path, toolchain):
    """A fake toolkit: our libraries under CANN's names, the installed headers plus one more
    header, and an extra operator library implementing it; the generic path finds the operator
    in the toolkit's include/aclnnop, declares it at run time and calls it."""
    from pyacl_hardgrad import ops
    target = next(s for s in ops.operators().values()
                  if [(p.kind, p.role) for p in s.params] == [("tensor", "in"), ("tensor", "in"), ("out", "out")])
    src = Path(hg.get_library_dir())
    libdir = tmp_path / "lib64"
    libdir.mkdir()
    for name in ("libascendcl.so", "libnnopbase.so", "libopapi.so"):
        shutil.copy2(src / name, libdir / name)
    inc = tmp_path / "include"
    shutil.copytree(hg.get_include(), inc)
    (inc / "aclnnop" / "aclnn_test_extra.h").write_text(EXTRA_HEADER)
    header = next(h.name for h in (inc / "aclnnop").glob("*.h") if f"{target.name}GetWorkspaceSize" in h.read_text())
    c = tmp_path / "extra.c"
    c.write_text(EXTRA_SOURCE.replace("TARGET_HEADER", header).replace("TARGET", target.name))
    cc = os.environ.get("CC", "cc")
    proc = subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", f"-I{inc}", str(c),
                           "-o", str(libdir / "libopapi_extra.so"), f"-L{libdir}", "-lopapi", "-lnnopbase"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    env = dict(os.environ, ASCEND_HOME_PATH=str(tmp_path), PYACL_HARDGRAD_BACKEND="cann",
               LD_LIBRARY_PATH=str(libdir))
    env.pop("ASCEND_TOOLKIT_HOME", None)
    probe = EXTRA_PROBE.replace("TARGET_NAME", repr(target.name))
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout.splitlines()[-1])
    assert Path(info["source"]).name == "libopapi_extra.so"
    assert (info["function"], info["plan_class"]) == ("test_extra", "TestExtraPlan")
    assert info["params"] == [["grad_output", "tensor", "in"], ["self", "tensor", "in"], ["times", "int", "in"],
                              ["out", "out", "out"]]
    assert info["inplace_params"] == [["self_ref", "tensor", "inout"], ["other", "tensor", "in"]]
    assert info["numpy"] and info["tensor"] and info["plan"]
    assert info["error"] == [161002, "aclnnTestExtraGetWorkspaceSize"]
    assert info["inplace_returns_input"] and info["inplace"] and info["inplace_host"]
    assert "Tensor self of test_extra is closed" in info["closed"]
    assert info["live"] == {}
