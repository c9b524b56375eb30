"""The stream queue (tests/c/stream_queue.c): ring growth with several producers, while the
worker is blocked or busy; task fields, events and destroy-time draining through growth; and
repeated park/wake hand-offs.  Natively and under valgrind memcheck."""
from __future__ import annotations

import pytest

CHECKS = ["growth_while_blocked", "growth_while_running", "growth_keeps_task_fields",
          "events_through_growth", "destroy_drains", "park_and_wake"]

# unset the runtime's tuning variables so every run uses the defaults
_ENV = {"PYACL_HARDGRAD_SPIN_US": "", "PYACL_HARDGRAD_DEVICE_COUNT": "",
        "PYACL_HARDGRAD_DEVICE_MEMORY": ""}


@pytest.fixture(scope="module")
def queue_exe(cprog):
    return cprog.build("stream_queue.c")


def test_check_list_is_complete(cprog, queue_exe):
    proc = cprog.run(queue_exe, "--list")
    assert proc.returncode == 0
    assert proc.stdout.split() == CHECKS


@pytest.mark.parametrize("name", CHECKS)
def test_stream_queue(cprog, queue_exe, name):
    proc = cprog.run(queue_exe, name, env=_ENV, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == f"PASS {name}"


@pytest.mark.parametrize("name", ["growth_while_running", "events_through_growth", "destroy_drains"])
def test_stream_queue_under_memcheck(cprog, queue_exe, valgrind_available, name):
    if not valgrind_available:
        pytest.skip("valgrind is not installed")
    proc = cprog.run(queue_exe, name, env=_ENV, valgrind=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"PASS {name}" in proc.stdout
