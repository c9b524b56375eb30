"""What the operator folders' Python parameter-check tests (test_<folder>_validation.py) share:
CANN's status codes, the input data, a device fixture, the AclnnParamError matcher, the
unsupported dtypes, shape and format cases, a raw aclTensor with a chosen format, and a script
runner for checks that need a fresh process (the SoC is read at aclInit).  Names no operator.

NULL pointers cannot be passed through the Pythonic API, so those cases use the raw layer
(``pyacl_hardgrad.raw``: ``lib.aclnn...GetWorkspaceSize`` with ``ffi.NULL``) on tensors made
by the Pythonic API.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

NULLPTR, INVALID = 161001, 161002

G = np.arange(8, dtype=np.float32).reshape(4, 2)
X = np.array([1, 1, 1, 2, 1, 2, 3, 3], np.float32).reshape(4, 2)


@pytest.fixture(scope="module")
def dev(hg):
    with hg.Device(0) as d:
        yield d


def bits(a):
    return np.asarray(a).view(np.uint32 if a.dtype.itemsize == 4 else np.uint16)


def raises_param(hg, code, *names, function=None):
    """Context manager: an AclnnParamError with ``code`` whose message names each of ``names``."""
    class _Ctx:
        def __enter__(self):
            self._cm = pytest.raises(hg.AclnnParamError)
            self.info = self._cm.__enter__()
            return self.info

        def __exit__(self, *exc):
            handled = self._cm.__exit__(*exc)
            e = self.info.value
            assert e.code == code, str(e)
            for n in names:
                assert n in e.message, f"{n!r} not named in {e.message!r}"
            if function is not None:
                assert e.function == function
            return handled
    return _Ctx()


BAD_DTYPES = {"int8": "DT_INT8", "int16": "DT_INT16", "int32": "DT_INT32", "int64": "DT_INT64",
              "uint8": "DT_UINT8", "bool": "DT_BOOL", "float64": "DT_DOUBLE", "complex64": "DT_COMPLEX64",
              "complex128": "DT_COMPLEX128"}

# Shapes of gradOutput, self and out where the named one differs from gradOutput.
SHAPE_CASES = [
    ("self", (2, 3), (3, 2), (2, 3)),          # same element count, other shape
    ("self", (6,), (6, 1), (6,)),              # other rank
    ("self", (4, 2), (4, 3), (4, 2)),
    ("out", (4, 2), (4, 2), (2, 4)),
    ("out", (4, 2), (4, 2), (8,)),
    ("self", (0, 3), (0, 4), (0, 3)),          # empty, but the shapes still differ
]

EMPTY_SHAPES = [(0,), (3, 0, 2), (0, 0), (2, 1, 0, 1, 1, 1, 1, 4)]

FORMATS = [("ACL_FORMAT_NCHW", (2, 3, 2, 2)), ("ACL_FORMAT_NHWC", (2, 2, 2, 3)), ("ACL_FORMAT_HWCN", (2, 2, 3, 2)),
           ("ACL_FORMAT_NCDHW", (1, 2, 3, 2, 2)), ("ACL_FORMAT_NDHWC", (1, 3, 2, 2, 2)), ("ACL_FORMAT_ND", (24,)),
           ("ACL_FORMAT_ND", (2, 3, 4))]

TRANSPOSE_DTYPES = ["float32", "float16", "bfloat16"]
TRANSPOSE_AXES = [(1, 0), (2, 0, 1), (1, 2, 0), (0, 2, 1)]


def raw_tensor(lib, ffi, t, shape, fmt):
    """A second aclTensor over ``t``'s memory, row-major, with format ``fmt``."""
    strides, acc = [], 1
    for n in reversed(shape):
        strides.insert(0, acc)
        acc *= n
    h = lib.aclCreateTensor(list(shape), len(shape), lib.ACL_FLOAT, strides, 0, fmt, list(shape), len(shape),
                            ffi.cast("void *", t.data_ptr))
    assert h != ffi.NULL
    return h

# The head of a fresh-process script: ``attempt(key, fn)`` records [code, message] of the plan
# ``fn()`` makes ([0, ""] on success); ``make(dt)`` is a (2, 3) tensor; the script ends with
# SOC_SCRIPT_TAIL, which prints the record as JSON.
SOC_SCRIPT_HEAD = r"""
import json
import pyacl_hardgrad as hg
res = {}
def attempt(key, fn):
    try:
        with fn():
            pass
        res[key] = [0, ""]
    except hg.AclnnParamError as e:
        res[key] = [e.code, e.message]
dev = hg.Device(0)
res["soc"] = dev.soc_name
def make(dt):
    return hg.zeros((2, 3), dt, dev)
"""
SOC_SCRIPT_TAIL = r"""
dev.close()
hg.release_defaults()
print(json.dumps(res))
"""


def run_soc(body: str, soc: str) -> dict:
    """SOC_SCRIPT_HEAD + body + SOC_SCRIPT_TAIL in a fresh process on the simulated `soc`."""
    env = dict(os.environ, PYACL_HARDGRAD_SOC=soc)
    proc = subprocess.run([sys.executable, "-c", SOC_SCRIPT_HEAD + body + SOC_SCRIPT_TAIL], capture_output=True,
                          text=True, env=env, cwd="/", timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])
