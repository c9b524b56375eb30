"""hg.hccl's errors and lifetimes: a closed communicator refuses every call, argument errors name
the argument and the rule before any C call, HcclError carries HCCL's code, name and message (and
pickles), closing with work queued destroys once after the stream, the device stays in use."""
from __future__ import annotations

import json

import pytest

import hg_hccl


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    path = tmp_path_factory.mktemp("hccl") / "report.json"
    proc = hg_hccl.run_python(f"import hg_hccl; hg_hccl.error_worker({str(path)!r})", devices=2)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(path.read_text())


@pytest.mark.parametrize("name", sorted(hg_hccl.ERROR_CHECKS))
def test_hccl_errors_and_lifetimes(report, name):
    assert report[name] == "ok", report[name]
