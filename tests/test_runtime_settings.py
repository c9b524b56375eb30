"""Settings are parsed strictly: a value in no accepted form fails aclInit naming the variable
(runtime settings) or warns once naming it (kernel settings, read by the operator library)."""
import os
import subprocess
import sys

import pytest

_INIT = ("import pyacl_hardgrad as hg\n"
         "try:\n"
         "    hg.Runtime().close()\n"
         "    print('ok')\n"
         "except hg.AclError as e:\n"
         "    print(e.code, e.name)\n"
         "    print(e.message)\n")


def _run(tmp_path, code, **env):
    full = {k: v for k, v in os.environ.items() if not k.startswith("PYACL_HARDGRAD_") or k == "PYACL_HARDGRAD_BACKEND"}
    full.update(env)
    return subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env=full,
                          timeout=120)


@pytest.mark.parametrize("name, value, forms", [
    ("PYACL_HARDGRAD_DEVICE_MEMORY", "1.5G", "K, M, G or T suffix"),
    ("PYACL_HARDGRAD_DEVICE_MEMORY", "0", "K, M, G or T suffix"),
    ("PYACL_HARDGRAD_DEVICE_COUNT", "abc", "a whole number from 1 to 64"),
    ("PYACL_HARDGRAD_DEVICE_COUNT", "65", "a whole number from 1 to 64"),
    ("PYACL_HARDGRAD_SPIN_US", "-3", "microseconds from 0 to 100000"),
    ("PYACL_HARDGRAD_INLINE", "2", "0 (every task runs on the stream's worker) or 1"),
    ("PYACL_HARDGRAD_INLINE", "yes", "0 (every task runs on the stream's worker) or 1"),
    ("PYACL_HARDGRAD_INLINE", " 1", "0 (every task runs on the stream's worker) or 1"),
    ("PYACL_HARDGRAD_INLINE_MAX", "-1", "a whole number of elements from 0 to 2^40"),
    ("PYACL_HARDGRAD_INLINE_MAX", "2T", "a whole number of elements from 0 to 2^40"),
    ("PYACL_HARDGRAD_INLINE_MAX", "4k5", "a whole number of elements from 0 to 2^40"),
    ("PYACL_HARDGRAD_SOC", "A" * 80, "shorter than 64 characters"),
])
def test_a_bad_runtime_setting_fails_acl_init_naming_it(hg, tmp_path, name, value, forms):
    if not hg.BACKEND.is_embedded:
        pytest.skip("embedded runtime settings")
    proc = _run(tmp_path, _INIT, **{name: value})
    assert proc.returncode == 0, proc.stderr
    code, msg = proc.stdout.splitlines()[0], proc.stdout.splitlines()[1]
    assert code == "100000 ACL_ERROR_INVALID_PARAM"
    assert f'{name}="{value}" is invalid' in msg and forms in msg


@pytest.mark.parametrize("name, value", [("PYACL_HARDGRAD_DEVICE_MEMORY", "512M"),
                                         ("PYACL_HARDGRAD_DEVICE_COUNT", "4"), ("PYACL_HARDGRAD_SPIN_US", "0"),
                                         ("PYACL_HARDGRAD_INLINE", "0"), ("PYACL_HARDGRAD_INLINE", "1"),
                                         ("PYACL_HARDGRAD_INLINE_MAX", "64K"), ("PYACL_HARDGRAD_INLINE_MAX", "0"),
                                         ("PYACL_HARDGRAD_DEVICE_MEMORY", "")])
def test_accepted_runtime_settings_initialise(hg, tmp_path, name, value):
    proc = _run(tmp_path, _INIT, **{name: value})
    assert proc.stdout.strip() == "ok", proc.stdout + proc.stderr


@pytest.mark.parametrize("name, value, says", [
    ("PYACL_HARDGRAD_KERNEL_ISA", "xyz",
     'PYACL_HARDGRAD_KERNEL_ISA="xyz" is not one of auto, scalar, avx2, avx512, neon'),
    ("PYACL_HARDGRAD_THREADS", "two", 'PYACL_HARDGRAD_THREADS="two" is not a whole number >= 1'),
    ("PYACL_HARDGRAD_SPLIT_NS", "-1", 'PYACL_HARDGRAD_SPLIT_NS="-1" is not a number of ns in [0, 1e12]'),
    ("PYACL_HARDGRAD_STREAM_MIN_BYTES", " -1", 'PYACL_HARDGRAD_STREAM_MIN_BYTES=" -1" is not a whole number of bytes'),
    ("PYACL_HARDGRAD_STREAM_MIN_BYTES", "99999999999999999999",
     'PYACL_HARDGRAD_STREAM_MIN_BYTES="99999999999999999999" is not a whole number of bytes'),
    ("PYACL_HARDGRAD_KERNEL_FAKE_NS", "avx2=1", 'PYACL_HARDGRAD_KERNEL_FAKE_NS entry "avx2=1" is not path:ns'),
])
def test_a_bad_kernel_setting_warns_once_naming_it(hg, tmp_path, name, value, says):
    if not hg.BACKEND.is_embedded:
        pytest.skip("embedded runtime settings")
    # Any discovered operator taking two input tensors and one output (nothing else), three calls;
    # the result must be the same as without the bad setting (it falls back to the default).
    code = ("import numpy as np, pyacl_hardgrad as hg\n"
            "op = next(s for s in hg.ops.operators().values()\n"
            "          if [p.kind for p in s.params] == ['tensor', 'tensor', 'out'])\n"
            "g = np.linspace(-4, 4, 1 << 18, dtype=np.float32)\n"
            "for _ in range(3):\n"
            "    out = op.function(g, g[::-1].copy())\n"
            "print(op.name, out.tobytes().hex()[:64], float(out.sum()))\n")
    plain = _run(tmp_path, code)
    assert plain.returncode == 0 and plain.stderr == "", plain.stderr
    proc = _run(tmp_path, code, **{name: value})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == plain.stdout
    assert proc.stderr.count(says) == 1, proc.stderr
