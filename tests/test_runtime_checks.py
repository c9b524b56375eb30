"""Runtime layer behaviour, one pytest case per check of tests/c/runtime_checks.c.

Each check pins exact CANN return codes (not initialised, repeat init/finalize, device
ids, per-thread devices, stream order and synchronisation, stale handles, memory
registry, capacity, copy kinds, error text, live counts)."""
from __future__ import annotations

import re

import pytest

from hg_cchecks import RUNTIME_DEFAULTS, named_checks, run_named

# name -> extra environment for that run
CHECKS = {
    "before_init": {},
    "after_finalize": {},
    "no_init_needed": {},
    "repeat_init": {},
    "repeat_finalize": {},
    "reinit": {},
    "config_path": {},
    "finalize_releases": {},
    "device_count_env": {"PYACL_HARDGRAD_DEVICE_COUNT": "3"},
    "device_count_without_init": {"PYACL_HARDGRAD_DEVICE_COUNT": "3"},
    "device_count_bad_setting": {"PYACL_HARDGRAD_DEVICE_COUNT": "abc"},
    "device_count_default": {},
    "invalid_device_ids": {},
    "no_device_set": {},
    "null_out_pointers": {},
    "run_mode_soc_version": {},
    "per_thread_device": {},
    "device_refcount": {},
    "contexts": {},
    "stream_order": {},
    "submit_order": {},
    "synchronize_waits": {},
    "synchronize_device": {},
    "stale_stream": {},
    "event_basics": {},
    "stale_event": {},
    "stream_wait_event": {},
    "malloc_args": {},
    "free_unknown": {},
    "double_free": {},
    "capacity_exceeded": {"PYACL_HARDGRAD_DEVICE_MEMORY": "1M"},
    "memory_env_default": {},
    "memcpy_checks": {},
    "memset_checks": {},
    "errmsg_names_function": {},
    "live_counts": {},
    "concurrent_threads": {},
}

MEMCHECKED = ["finalize_releases", "stream_wait_event", "concurrent_threads", "double_free",
              "free_unknown", "memcpy_checks", "contexts", "device_refcount", "stale_stream"]


@pytest.fixture(scope="module")
def checks_exe(cprog):
    return cprog.build("runtime_checks.c")


def test_check_table_matches_program(cprog, checks_exe):
    assert named_checks(cprog, checks_exe) == list(CHECKS)


@pytest.mark.parametrize("name", list(CHECKS))
def test_runtime_check(cprog, checks_exe, name):
    run_named(cprog, checks_exe, name, CHECKS[name])


def test_unknown_check_is_rejected(cprog, checks_exe):
    proc = cprog.run(checks_exe, "no_such_check")
    assert proc.returncode == 2


def test_soc_name_from_environment(cprog, checks_exe):
    env = dict(RUNTIME_DEFAULTS, PYACL_HARDGRAD_SOC="Ascend310P3")
    proc = cprog.run(checks_exe, "run_mode_soc_version", env=env)
    assert proc.returncode == 0, proc.stdout


@pytest.mark.parametrize("name", MEMCHECKED)
def test_runtime_check_under_memcheck(cprog, checks_exe, name):
    run_named(cprog, checks_exe, name, CHECKS[name], valgrind=True)


def test_bench_mode_reports_a_round_trip(cprog, checks_exe):
    """The round-trip benchmark (used for docs/performance.md) runs and reports a median;
    its speed is measured by the benchmark, never asserted here."""
    proc = cprog.run(checks_exe, "bench", "2000", env=dict(RUNTIME_DEFAULTS), timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"median (\d+) ns", proc.stdout), proc.stdout
