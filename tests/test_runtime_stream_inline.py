"""Small kernel tasks on an idle stream run inside the launch call (tests/c/stream_inline.c):
stream order against queued work, later launches from other threads, records, event waits,
synchronize with and without a time-out, stream query and destroy; the operator path; one
usable CPU; a thread that waits for its launches (hgSetSynchronousLaunch) has tasks of any size
run in the launch.  Every check runs with inline execution on (PYACL_HARDGRAD_INLINE=1, the default)
and off (0), natively, some under valgrind memcheck and all under ThreadSanitizer."""
from __future__ import annotations

import os
import subprocess

import pytest

from conftest import C_DIR
from hg_cchecks import RUNTIME_DEFAULTS, build_tsan, named_checks, run_named

CHECKS = ["idle_small_runs_in_launch", "busy_stream_queues_small_task", "inline_run_holds_stream_order",
          "events_bracket_inline_task", "destroy_waits_for_inline_task", "concurrent_launchers_keep_order",
          "operator_launch_inline", "single_cpu_hand_offs", "mid_size_inline_when_worker_sleeps",
          "synchronous_launch_runs_any_size_in_launch"]

# inline execution on or off (the runtime's other settings at their defaults)
MODES = {"inline": {"PYACL_HARDGRAD_INLINE": "1"}, "worker_only": {"PYACL_HARDGRAD_INLINE": "0"}}


@pytest.fixture(scope="module")
def inline_exe(cprog):
    return cprog.build("stream_inline.c")


def test_check_list_is_complete(cprog, inline_exe):
    assert named_checks(cprog, inline_exe) == CHECKS


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("name", CHECKS)
def test_stream_inline(cprog, inline_exe, name, mode):
    run_named(cprog, inline_exe, name, MODES[mode], timeout=180)


def test_a_zero_size_limit_sends_every_task_to_the_worker(cprog, inline_exe):
    # the checks that read the setting expect the worker's thread when inline is off; a
    # limit of 0 elements makes every 8-element task too large, so they must fail there
    env = dict(RUNTIME_DEFAULTS, PYACL_HARDGRAD_INLINE="1", PYACL_HARDGRAD_INLINE_MAX="0")
    proc = cprog.run(inline_exe, "idle_small_runs_in_launch", env=env, timeout=120)
    assert proc.returncode == 1 and "FAIL idle_small_runs_in_launch" in proc.stdout, proc.stdout


@pytest.mark.parametrize("name", ["inline_run_holds_stream_order", "destroy_waits_for_inline_task",
                                  "operator_launch_inline"])
def test_stream_inline_under_memcheck(cprog, inline_exe, name):
    run_named(cprog, inline_exe, name, MODES["inline"], valgrind=True)


@pytest.fixture(scope="module")
def tsan_exe(tmp_path_factory):
    return build_tsan(C_DIR / "stream_inline.c", tmp_path_factory.mktemp("inline_tsan"),
                      libs=("ascendcl", "nnopbase", "opapi"))


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("name", CHECKS)
def test_stream_inline_under_thread_sanitizer(tsan_exe, name, mode):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYACL_HARDGRAD_")}
    env.update(MODES[mode])
    env["TSAN_OPTIONS"] = "halt_on_error=1:exitcode=66"
    proc = subprocess.run([str(tsan_exe), name], capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-4000:]
    assert f"PASS {name}" in proc.stdout and "WARNING: ThreadSanitizer" not in proc.stderr
