"""The SoC dtype matrix of every registered operator: PYACL_HARDGRAD_SOC (read at aclInit) decides
whether BF16 is accepted.  Each folder's model module gives SOC_CALL (the function and its
argument kinds) and SOC_DTYPES (SoCs that accept BF16, SoCs that do not); FLOAT and FLOAT16 are
accepted everywhere.  Each SoC runs in its own process."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import hg_registry

TESTS = Path(__file__).resolve().parent

_PROBE = r"""
import json, sys
import numpy as np, ml_dtypes
sys.path[:0] = json.loads(sys.argv[2])
import hg_aclnn as A
func, kinds = json.loads(sys.argv[1])
s = A.Session()
out = {}
for name, dt in (("f32", np.float32), ("f16", np.float16), ("bf16", ml_dtypes.bfloat16)):
    args = []
    for k in kinds:
        if isinstance(k, list):
            args.append(A.S(k[1], np.float32))
        else:
            args.append(A.T(np.ones((2, 3), dt)))
    rc, msg, *_ = s.phase1(func, args)
    out[name] = [rc, msg]
s.close()
print(json.dumps(out))
"""

MATRIX = []
for _name in hg_registry.operators():
    _mod = hg_registry.model(_name)
    if hasattr(_mod, "SOC_CALL"):
        for _kind, _socs in _mod.SOC_DTYPES.items():
            for _soc in _socs:
                MATRIX.append((_name, _soc, _kind == "bf16"))


def test_every_registered_operator_declares_its_soc_matrix():
    for name in hg_registry.operators():
        mod = hg_registry.model(name)
        assert hasattr(mod, "SOC_CALL") or getattr(mod, "SOC_CHECKED_ELSEWHERE", ""), name


@pytest.mark.parametrize("name, soc, bf16", MATRIX, ids=lambda v: str(v))
def test_bf16_follows_the_soc(hg, name, soc, bf16):
    func, kinds = hg_registry.model(name).SOC_CALL
    paths = [str(TESTS)] + [str(hg_registry.folder(n) / "tests") for n in hg_registry.operators()]
    env = dict(os.environ, PYACL_HARDGRAD_SOC=soc)
    proc = subprocess.run([sys.executable, "-c", _PROBE, json.dumps([func, kinds]), json.dumps(paths)],
                          capture_output=True, text=True, env=env, timeout=120, cwd="/")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["f32"][0] == 0 and got["f16"][0] == 0, got
    if bf16:
        assert got["bf16"][0] == 0, got
    else:
        rc, msg = got["bf16"]
        assert rc == 161002 and "DT_BF16" in msg and soc in msg, got
