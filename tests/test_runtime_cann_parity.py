"""Runtime behaviours where the embedded runtime follows CANN's code rather than a narrower
reading of its docs, each exercised the way real programs hit it: pyACL scripts run with
``python -m pyacl_hardgrad run`` in a fresh process (so nothing of this session's runtime is
initialised), and the Pythonic layer.  The C checks pinning the exact codes are in
tests/c/runtime_checks.c (device_count_*), tests/c/runtime_families.c (event_flags) and
tests/c/nnopbase_null_strides.cpp."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest


def _run_pyacl(tmp_path: Path, code: str, **env: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "script.py"
    script.write_text(code)
    full = {k: v for k, v in os.environ.items() if not k.startswith("PYACL_HARDGRAD_") or k == "PYACL_HARDGRAD_BACKEND"}
    full.pop("PYACL_HARDGRAD_PYACL", None)
    full.update(env)
    return subprocess.run([sys.executable, "-m", "pyacl_hardgrad", "run", str(script)], capture_output=True,
                          text=True, env=full, cwd=tmp_path, timeout=180)


@pytest.fixture
def embedded(hg: ModuleType) -> ModuleType:
    if not hg.BACKEND.is_embedded:
        pytest.skip("the embedded runtime's behaviour")
    return hg


_COUNT_FIRST = """\
import acl
print(acl.rt.get_device_count())
print(acl.init())
print(acl.rt.get_device_count())
print(acl.finalize())
print(acl.rt.get_device_count())
"""


def test_device_count_needs_no_acl_init(embedded: ModuleType, tmp_path: Path) -> None:
    """aclrtGetDeviceCount before aclInit (and after aclFinalize) answers the driver's count:
    PYACL_HARDGRAD_DEVICE_COUNT, read as aclInit reads it.  CANN: runtime
    src/acl/aclrt_impl/device.cpp, aclrtGetDeviceCountImpl (no init check, rtGetDeviceCount);
    src/runtime/api/impl/api_impl.cc, ApiImpl::GetDeviceCount (the driver's drvGetDevNum)."""
    proc = _run_pyacl(tmp_path, _COUNT_FIRST, PYACL_HARDGRAD_DEVICE_COUNT="3")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["(3, 0)", "0", "(3, 0)", "0", "(3, 0)"]
    proc = _run_pyacl(tmp_path, _COUNT_FIRST)
    assert proc.stdout.splitlines() == ["(1, 0)", "0", "(1, 0)", "0", "(1, 0)"], proc.stderr


def test_device_count_with_a_bad_setting_fails_like_acl_init(embedded: ModuleType, tmp_path: Path) -> None:
    """A PYACL_HARDGRAD_DEVICE_COUNT that aclInit refuses makes aclrtGetDeviceCount fail the
    same way: 100000 (ACL_ERROR_INVALID_PARAM), the variable named in aclGetRecentErrMsg.
    CANN: runtime src/runtime/api/impl/api_impl.cc, ApiImpl::GetDeviceCount (a bad device
    setting of the driver layer is an error of the count call itself)."""
    code = "import acl\nprint(acl.rt.get_device_count())\nprint(acl.get_recent_err_msg())\nprint(acl.init())\n"
    proc = _run_pyacl(tmp_path, code, PYACL_HARDGRAD_DEVICE_COUNT="65")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "(0, 100000)"
    assert 'aclrtGetDeviceCount: environment variable PYACL_HARDGRAD_DEVICE_COUNT="65" is invalid' in lines[1]
    assert lines[2] == "100000"


_ELAPSED = """\
import acl
assert acl.init() == 0 and acl.rt.set_device(0) == 0
stream, ret = acl.rt.create_stream()
events = [acl.rt.create_event()[0], acl.rt.create_event_with_flag(0)[0],
          acl.rt.create_event_with_flag(1)[0]]                    # default, no flag, ACL_EVENT_SYNC
for ev in events:
    assert acl.rt.record_event(ev, stream) == 0
assert acl.rt.synchronize_stream(stream) == 0
for start in events:
    for end in events[events.index(start):]:
        ms, ret = acl.rt.event_elapsed_time(start, end)
        print(ret, ms >= 0.0)
for ev in events:
    acl.rt.destroy_event(ev)
acl.rt.destroy_stream(stream)
acl.rt.reset_device(0)
acl.finalize()
"""


def test_elapsed_time_of_events_without_time_line(embedded: ModuleType, tmp_path: Path) -> None:
    """aclrtEventElapsedTime times events made without ACL_EVENT_TIME_LINE (flag 0, or
    ACL_EVENT_SYNC alone) as well as aclrtCreateEvent's.  CANN: runtime
    src/runtime/api/impl/api_error.cc, ApiErrorDecorator::EventElapsedTime (refuses only IPC
    and external events); src/runtime/core/src/event/event.cc, Event::ElapsedTime (no flag
    test); src/runtime/api/api_c_event.cc, rtEventCreate (RT_EVENT_DEFAULT includes TIME_LINE)."""
    proc = _run_pyacl(tmp_path, _ELAPSED)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["0 True"] * 6


def test_event_objects_without_time_line_give_elapsed_times(embedded: ModuleType) -> None:
    """The Pythonic Event: ``elapsed_time`` works on events of any flags (CANN: runtime
    src/runtime/api/impl/api_error.cc, ApiErrorDecorator::EventElapsedTime), while
    ``timestamp`` still needs ACL_EVENT_TIME_LINE."""
    hg = embedded
    with hg.Device(0) as dev, dev.create_stream() as s:
        plain, sync_only, timed = dev.create_event(0), dev.create_event(hg.lib.ACL_EVENT_SYNC), dev.create_event()
        try:
            for ev in (plain, sync_only, timed):
                s.record(ev)
            s.synchronize()
            assert plain.elapsed_time(sync_only) >= 0.0
            assert sync_only.elapsed_time(timed) >= 0.0
            assert plain.elapsed_time(timed) == pytest.approx(plain.elapsed_time(sync_only)
                                                              + sync_only.elapsed_time(timed), abs=1e-3)
            assert plain.elapsed_time(plain) == 0.0
            with pytest.raises(hg.RuntimeApiError) as info:
                plain.timestamp()
            assert info.value.code == hg.lib.ACL_ERROR_RT_PARAM_INVALID
        finally:
            for ev in (plain, sync_only, timed):
                ev.close()
