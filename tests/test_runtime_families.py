"""Runtime families beyond the basics, one pytest case per check of
tests/c/runtime_families.c: host callbacks (subscribe / launch / process / unsubscribe) and
host functions, events with flags and their status, timestamp and timeout calls, stream
configuration, queries and forced destruction, the last-error API, memset on acl host
memory, 2-D copies, stream value wait/write, memory attributes, device queries and force
reset, peer access and mixed-device use, exception callbacks, fp16 helpers, element sizes,
data buffers, the application log, the SoC name before aclInit, CANN attributes and
package versions, and the features a CPU lacks (IPC, virtual memory, NPU kernels:
207000 with a reason).  Each expectation is CANN's documented code and behaviour."""
from __future__ import annotations

import re

import pytest

from hg_cchecks import RUNTIME_DEFAULTS, named_checks, run_named

# name -> extra environment for that run
CHECKS = {
    "callbacks_report": {},
    "callbacks_same_thread": {},
    "host_func": {},
    "event_flags": {},
    "stream_timeouts": {},
    "stream_config": {},
    "destroy_stream_force": {},
    "memory_extras": {},
    "last_error": {},
    "exception_callbacks": {},
    "device_extras": {"PYACL_HARDGRAD_DEVICE_COUNT": "2"},
    "peer_and_mixed_devices": {"PYACL_HARDGRAD_DEVICE_COUNT": "2"},
    "fp16_and_sizes": {},
    "soc_log_attrs": {},
    "package_versions": {},
    "unsupported_features": {},
}

# every check of this program runs under memcheck: they are short
MEMCHECKED = list(CHECKS)


@pytest.fixture(scope="module")
def families_exe(cprog):
    return cprog.build("runtime_families.c")


def test_family_table_matches_program(cprog, families_exe):
    assert named_checks(cprog, families_exe) == list(CHECKS)


@pytest.mark.parametrize("name", list(CHECKS))
def test_runtime_family(cprog, families_exe, name):
    run_named(cprog, families_exe, name, CHECKS[name])


def test_app_log_prints_at_or_above_the_threshold(cprog, families_exe):
    proc = cprog.run(families_exe, "soc_log_attrs", env=dict(RUNTIME_DEFAULTS))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = [ln for ln in proc.stdout.splitlines() if "APP(" in ln]
    assert len(lines) == 2, proc.stdout
    assert lines[0].startswith("[WARNING] APP(") and re.search(r"\[file\.c:8\]\d+ f: shown 2$", lines[0])
    assert lines[1].startswith("[ERROR] APP(") and "macro line" in lines[1]
    assert "hidden" not in proc.stdout


def test_soc_name_before_init_follows_the_environment(cprog, families_exe):
    env = dict(RUNTIME_DEFAULTS, PYACL_HARDGRAD_SOC="Ascend310P3")
    proc = cprog.run(families_exe, "soc_log_attrs", env=env)
    assert proc.returncode == 1  # the check pins the default name
    assert "soc != NULL" in proc.stdout


@pytest.mark.parametrize("name", MEMCHECKED)
def test_runtime_family_under_memcheck(cprog, families_exe, name):
    run_named(cprog, families_exe, name, CHECKS[name], valgrind=True)
