"""Device consistency inside operators: phase 1 of every registered operator refuses a call whose
tensors are memory of two virtual devices, with CANN's ACLNN_ERR_PARAM_INVALID (161002) and a
message naming both devices.  Runs with two virtual devices in a subprocess (the device count is
read by aclInit)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from py_op_cases import cases

TESTS = Path(__file__).resolve().parent

_PROGRAM = r"""
import sys
sys.path.insert(0, {tests!r})
import numpy as np
from py_op_cases import cases
import pyacl_hardgrad as hg

d0, d1 = hg.Device(0), hg.Device(1)
base = hg.live_counts()
for case in [c for c in cases() if c.name == {name!r}]:
    n = len(case.tensor_params) + 1                  # the inputs and out
    for odd in range(n):                             # this one on device 1, the others on device 0
        devs = [d1 if k == odd else d0 for k in range(n)]
        ins = [hg.Tensor(a, dv) for a, dv in zip(case.host, devs)]
        out = hg.Tensor.empty(case.host[0].shape, np.float32, devs[-1])
        for stream_dev in (d0, d1):
            try:
                case.call(ins, out=out, stream=stream_dev.default_stream, sync=True)
            except hg.AclError as e:
                msg = str(e)
                assert e.code == 161002, (odd, e.code, msg)
                assert "device 0" in msg and "device 1" in msg, msg
                print("refused", odd, msg.splitlines()[0][:200])
            else:
                raise AssertionError(f"{{case.name}}: tensor {{odd}} on device 1 accepted")
        for t in ins + [out]:
            t.close()
    # same-device calls still run on each device
    for dv in (d0, d1):
        ins = [hg.Tensor(a, dv) for a in case.host]
        got = case.call(ins, sync=True)
        np.testing.assert_array_equal(got.numpy(), case.expected())
        for t in ins + [got]:
            t.close()
d0.close(); d1.close()
hg.release_defaults()
left = {{k: v for k, v in hg.live_counts().items() if v != base.get(k, 0)}}
assert not left, left
print("OK")
"""


@pytest.mark.parametrize("case", cases(), ids=repr)
def test_phase1_refuses_tensors_of_two_devices(case, tmp_path):
    env = dict(os.environ, PYACL_HARDGRAD_DEVICE_COUNT="2")
    src = _PROGRAM.format(tests=str(TESTS), name=case.name)
    proc = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, env=env,
                          cwd=str(tmp_path), timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("OK"), proc.stdout
    assert proc.stdout.count("refused") == 2 * (len(case.tensor_params) + 1), proc.stdout
