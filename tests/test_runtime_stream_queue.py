"""The stream queue (tests/c/stream_queue.c): ring growth with several producers, while the
worker is blocked or busy; task fields, events and destroy-time draining through growth; and
repeated park/wake hand-offs.  Natively and under valgrind memcheck."""
from __future__ import annotations

import pytest

from hg_cchecks import named_checks, run_named

CHECKS = ["growth_while_blocked", "growth_while_running", "growth_keeps_task_fields",
          "events_through_growth", "destroy_drains", "park_and_wake"]


@pytest.fixture(scope="module")
def queue_exe(cprog):
    return cprog.build("stream_queue.c")


def test_check_list_is_complete(cprog, queue_exe):
    assert named_checks(cprog, queue_exe) == CHECKS


@pytest.mark.parametrize("name", CHECKS)
def test_stream_queue(cprog, queue_exe, name):
    run_named(cprog, queue_exe, name)


@pytest.mark.parametrize("name", ["growth_while_running", "events_through_growth", "destroy_drains"])
def test_stream_queue_under_memcheck(cprog, queue_exe, name):
    run_named(cprog, queue_exe, name, valgrind=True)
