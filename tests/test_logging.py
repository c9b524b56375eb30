"""Logs: the embedded runtime's CANN-layout log (ASCEND_GLOBAL_LOG_LEVEL, ASCEND_MODULE_LOG_LEVEL,
ASCEND_SLOG_PRINT_TO_STDOUT, plog files), the package's ``pyacl_hardgrad`` logger, and the call
trace (``PYACL_HARDGRAD_TRACE_CALLS``, ``hg.trace_calls``) on the ``pyacl_hardgrad.calls`` logger."""
from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

pytestmark = pytest.mark.usefixtures("embedded_only")

LOG_VARS = ("ASCEND_GLOBAL_LOG_LEVEL", "ASCEND_MODULE_LOG_LEVEL", "ASCEND_SLOG_PRINT_TO_STDOUT",
            "ASCEND_PROCESS_LOG_PATH", "ASCEND_WORK_PATH", "PYACL_HARDGRAD_TRACE_CALLS")

# CANN's layout: [Level] Module(pid,pname):yyyy-mm-dd-hh:mm:ss.mmm.uuu [file:line]tid func: message
LINE = re.compile(r"^\[(DEBUG|INFO|WARNING|ERROR)\] (ASCENDCL|OP|APP)\((\d+),([^)]+)\):"
                  r"(\d{4})-(\d\d)-(\d\d)-(\d\d):(\d\d):(\d\d)\.(\d{3})\.(\d{3}) \[([^\]:]+):(\d+)\](\d+) (.*)$")

# One error (aclrtSetDevice(999)), debug (memory), info (aclInit, the device) and the four
# aclAppLog levels; prints "pid comm" first.
SCRIPT = textwrap.dedent("""
    import os
    from pyacl_hardgrad import acl, ffi, lib
    print(os.getpid(), open("/proc/self/comm").read().strip(), flush=True)
    assert lib.aclInit(ffi.NULL) == 0
    assert lib.aclrtSetDevice(0) == 0
    p = ffi.new("void **")
    assert lib.aclrtMalloc(p, 64, 0) == 0 and lib.aclrtFree(p[0]) == 0
    assert lib.aclrtSetDevice(999) == 107001
    for level in range(4):
        acl.app_log(level, f"app line {level}")
    assert lib.aclrtResetDevice(0) == 0
    assert lib.aclFinalize() == 0
""")


@pytest.fixture(scope="module")
def embedded_only(hg: ModuleType) -> None:
    if not hg.BACKEND.is_embedded:
        pytest.skip("the embedded runtime's log (a CANN install logs through its own)")


def run_python(code: str, env: dict[str, str] | None = None,
               cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k not in LOG_VARS}
    full.update(env or {})
    # from outside the checkout, so the installed package is the one imported
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, timeout=120,
                          cwd=str(cwd) if cwd else tempfile.gettempdir())


def log_lines(text: str) -> list[re.Match[str]]:
    return [m for m in (LINE.match(ln) for ln in text.splitlines()) if m]


def plog_files(root: Path) -> list[Path]:
    return sorted((root / "debug" / "plog").glob("plog-*.log"))


# --- the embedded runtime's log ------------------------------------------------------------------

def test_error_line_on_stdout_has_canns_layout(tmp_path: Path) -> None:
    proc = run_python(SCRIPT, {"ASCEND_SLOG_PRINT_TO_STDOUT": "1", "ASCEND_PROCESS_LOG_PATH": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    pid, comm = proc.stdout.splitlines()[0].split(" ", 1)
    errors = [m for m in log_lines(proc.stdout) if m[1] == "ERROR" and m[2] == "ASCENDCL"]
    assert len(errors) == 1, proc.stdout
    m = errors[0]
    assert (m[2], m[3], m[4]) == ("ASCENDCL", pid, comm)
    assert m[13] == "device.c" and int(m[14]) > 0 and int(m[15]) > 0
    assert m[16] == "aclrtSetDevice: deviceId (999) is out of range [0, 1)"   # aclGetRecentErrMsg's text
    assert not plog_files(tmp_path)                   # printed instead of written


@pytest.mark.parametrize("level", [0, 1, 2, 3, 4])
def test_global_level_keeps_lines_at_or_above_it(level: int) -> None:
    proc = run_python(SCRIPT, {"ASCEND_SLOG_PRINT_TO_STDOUT": "1", "ASCEND_GLOBAL_LOG_LEVEL": str(level)})
    assert proc.returncode == 0, proc.stderr
    names = ["DEBUG", "INFO", "WARNING", "ERROR"]
    seen = {m[1] for m in log_lines(proc.stdout)}
    assert seen == set(names[level:]), proc.stdout
    app = [m[16] for m in log_lines(proc.stdout) if m[2] == "APP"]
    assert app == [f"<module>: app line {n}" for n in range(level, 4)]
    if level <= 1:   # aclInit reports the settings it read, the log's own included
        init = [m[16] for m in log_lines(proc.stdout) if m[16].startswith("aclInit: embedded runtime initialised")]
        assert len(init) == 1 and f"ASCENDCL={names[level]}" in init[0] and "to stdout" in init[0]
    if level == 0:
        assert any(m[16].startswith("aclrtMalloc: 64 bytes at 0x") for m in log_lines(proc.stdout))


@pytest.mark.parametrize("value", ["5", "-1", "debug", "", " 1", "01"])
def test_invalid_global_level_means_the_default_error(value: str) -> None:
    """CANN: a value other than 0..4 (or none) means the default level, ERROR."""
    proc = run_python(SCRIPT, {"ASCEND_SLOG_PRINT_TO_STDOUT": "1", "ASCEND_GLOBAL_LOG_LEVEL": value})
    assert proc.returncode == 0, proc.stderr
    assert {m[1] for m in log_lines(proc.stdout)} == {"ERROR"}


def test_module_level_takes_precedence_over_the_global_one() -> None:
    proc = run_python(SCRIPT, {"ASCEND_SLOG_PRINT_TO_STDOUT": "1", "ASCEND_GLOBAL_LOG_LEVEL": "3",
                               "ASCEND_MODULE_LOG_LEVEL": "GE=0:ASCENDCL=1"})
    lines = log_lines(proc.stdout)
    assert {(m[2], m[1]) for m in lines} == {("ASCENDCL", "INFO"), ("ASCENDCL", "ERROR"), ("APP", "ERROR")}


@pytest.mark.parametrize("value", ["ASCENDCL=1:NOSUCH=0", "ASCENDCL=9", "ASCENDCL 1", "ASCENDCL=1:", "=1"])
def test_a_malformed_module_level_is_ignored_as_a_whole(value: str) -> None:
    proc = run_python(SCRIPT, {"ASCEND_SLOG_PRINT_TO_STDOUT": "1", "ASCEND_MODULE_LOG_LEVEL": value})
    assert {m[1] for m in log_lines(proc.stdout)} == {"ERROR"}


def test_lines_go_to_a_plog_file_under_ascend_process_log_path(tmp_path: Path) -> None:
    proc = run_python(SCRIPT, {"ASCEND_PROCESS_LOG_PATH": str(tmp_path / "made" / "here"),
                               "ASCEND_GLOBAL_LOG_LEVEL": "1"})
    assert proc.returncode == 0, proc.stderr
    pid = proc.stdout.split()[0]
    assert not log_lines(proc.stdout) and not log_lines(proc.stderr)
    files = plog_files(tmp_path / "made" / "here")
    assert len(files) == 1 and re.fullmatch(rf"plog-{pid}_\d{{17}}\.log", files[0].name), files
    text = files[0].read_text()
    lines = text.splitlines()
    assert lines and all(LINE.match(ln) for ln in lines), text
    assert {m[1] for m in log_lines(text)} == {"INFO", "WARNING", "ERROR"}
    assert f"to {tmp_path / 'made' / 'here'}/debug/plog" in text


def test_log_root_falls_back_to_ascend_work_path_then_home(tmp_path: Path) -> None:
    proc = run_python(SCRIPT, {"ASCEND_WORK_PATH": str(tmp_path / "work")})
    assert proc.returncode == 0, proc.stderr
    assert len(plog_files(tmp_path / "work" / "log")) == 1
    proc = run_python(SCRIPT, {"HOME": str(tmp_path / "home")})
    assert proc.returncode == 0, proc.stderr
    assert len(plog_files(tmp_path / "home" / "ascend" / "log")) == 1


@pytest.mark.parametrize("value", ["0", "2", "yes"])
def test_print_to_stdout_other_than_1_means_the_files(tmp_path: Path, value: str) -> None:
    proc = run_python(SCRIPT, {"ASCEND_SLOG_PRINT_TO_STDOUT": value, "ASCEND_PROCESS_LOG_PATH": str(tmp_path)})
    assert not log_lines(proc.stdout)
    assert len(plog_files(tmp_path)) == 1


def test_level_4_writes_nothing(tmp_path: Path) -> None:
    for to_stdout in ("1", "0"):
        proc = run_python(SCRIPT, {"ASCEND_GLOBAL_LOG_LEVEL": "4", "ASCEND_SLOG_PRINT_TO_STDOUT": to_stdout,
                                   "ASCEND_PROCESS_LOG_PATH": str(tmp_path)})
        assert proc.returncode == 0, proc.stderr
        assert not log_lines(proc.stdout) and not log_lines(proc.stderr)
    assert not (tmp_path / "debug").exists()


def test_ordinary_use_writes_no_log_file(tmp_path: Path) -> None:
    """Devices, streams with host callbacks (a report thread polling aclrtProcessReport), an
    operator: nothing fails, so nothing is logged at the default level."""
    code = textwrap.dedent("""
        import time, numpy as np, pyacl_hardgrad as hg
        with hg.Device(0) as dev, dev.create_stream() as s:
            seen = []
            s.launch_callback(lambda: seen.append(1))
            s.synchronize()
            time.sleep(0.35)                      # the report thread polls (100 ms) meanwhile
            print(hg.hardtanh_backward(np.ones(4, np.float32), np.zeros(4, np.float32)), seen)
    """)
    proc = run_python(code, {"ASCEND_PROCESS_LOG_PATH": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "[1. 1. 1. 1.] [1]\n"
    assert not (tmp_path / "debug").exists()
    debug = run_python(code, {"ASCEND_SLOG_PRINT_TO_STDOUT": "1", "ASCEND_GLOBAL_LOG_LEVEL": "0"})
    polls = [m for m in log_lines(debug.stdout) if "aclrtProcessReport: no callback arrived" in m[16]]
    assert polls and all(m[1] == "DEBUG" for m in polls)


def test_current_context_question_answers_null_without_an_error() -> None:
    code = textwrap.dedent("""
        from pyacl_hardgrad import ffi, lib
        p, q = ffi.new("aclrtContext *"), ffi.new("aclrtContext *")
        print(lib.hgGetCurrentContext(p), p[0] == ffi.NULL, lib.aclGetRecentErrMsg() == ffi.NULL)
        lib.aclInit(ffi.NULL)
        print(lib.hgGetCurrentContext(p), p[0] == ffi.NULL, lib.aclGetRecentErrMsg() == ffi.NULL)
        lib.aclrtSetDevice(0)
        print(lib.hgGetCurrentContext(p), lib.aclrtGetCurrentContext(q), p[0] == q[0] != ffi.NULL)
        print(lib.hgGetCurrentContext(ffi.NULL))
        lib.aclrtResetDevice(0)
        lib.aclFinalize()
    """)
    proc = run_python(code, {"ASCEND_SLOG_PRINT_TO_STDOUT": "1"})
    assert proc.returncode == 0, proc.stderr
    lines = [ln for ln in proc.stdout.splitlines() if not LINE.match(ln)]
    assert lines == ["0 True True", "0 True True", "0 0 True", "100000"]
    errors = [m[16] for m in log_lines(proc.stdout)]
    assert errors == ["hgGetCurrentContext: context is NULL"]


def test_lines_of_concurrent_threads_stay_whole(tmp_path: Path) -> None:
    code = textwrap.dedent("""
        import threading
        from pyacl_hardgrad import ffi, lib
        assert lib.aclInit(ffi.NULL) == 0
        def work():
            for _ in range(100):
                lib.aclrtSetDevice(999)
        ts = [threading.Thread(target=work) for _ in range(8)]
        [t.start() for t in ts]; [t.join() for t in ts]
        lib.aclFinalize()
    """)
    proc = run_python(code, {"ASCEND_PROCESS_LOG_PATH": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    text = plog_files(tmp_path)[0].read_text()
    lines = text.splitlines()
    assert len(lines) == 800 and all(LINE.match(ln) for ln in lines)
    assert len({m[15] for m in log_lines(text)}) > 1        # from several threads


# --- the package's logger ---------------------------------------------------------------------------

def test_the_package_logger_has_only_a_null_handler(hg: ModuleType) -> None:
    handlers = logging.getLogger("pyacl_hardgrad").handlers
    assert any(isinstance(h, logging.NullHandler) for h in handlers)


DISCOVERY = textwrap.dedent("""
    import logging, sys
    logging.basicConfig(level=logging.DEBUG, stream=sys.stdout, format="%(levelname)s %(name)s %(message)s")
    import pyacl_hardgrad as hg
    hg.BACKEND
""")


def test_backend_discovery_is_logged(tmp_path: Path) -> None:
    proc = run_python(DISCOVERY, {"PYACL_HARDGRAD_BACKEND": "auto", "ASCEND_HOME_PATH": str(tmp_path / "none"),
                                  "ASCEND_TOOLKIT_HOME": ""}, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert f"DEBUG pyacl_hardgrad CANN search: {tmp_path / 'none'} ($ASCEND_HOME_PATH): not a directory" in out
    assert "INFO pyacl_hardgrad no CANN install found" in out
    assert re.search(r"INFO pyacl_hardgrad backend sim: the embedded runtime \(PYACL_HARDGRAD_BACKEND=auto\), "
                     r"libraries \S+libascendcl\.so", out), out
    proc = run_python(DISCOVERY, {"PYACL_HARDGRAD_BACKEND": "sim"}, cwd=tmp_path)
    assert "backend sim: the embedded runtime (PYACL_HARDGRAD_BACKEND=sim)" in proc.stdout
    assert "CANN search" not in proc.stdout              # sim: nothing searched


def test_resources_made_and_closed_are_debug_records(hg: ModuleType, caplog: pytest.LogCaptureFixture) -> None:
    dev = hg.default_device()
    with caplog.at_level(logging.DEBUG, logger="pyacl_hardgrad"):
        s = dev.create_stream()
        s.close()
    texts = [r.getMessage() for r in caplog.records if r.name == "pyacl_hardgrad"]
    assert any(re.fullmatch(r"Stream created \(handle-layer object 0x[0-9a-f]+\)", t) for t in texts), texts
    assert any(re.fullmatch(r"Stream closed \(handle-layer object 0x[0-9a-f]+\)", t) for t in texts), texts
    caplog.clear()
    s = dev.create_stream()          # the logger at its default level: no record is made
    s.close()
    assert not [r for r in caplog.records if r.name == "pyacl_hardgrad"]


# --- the call trace ------------------------------------------------------------------------------------

@dataclass
class Call:
    """One record of the call trace, its fields typed."""
    function: str
    call_args: tuple[str, ...]
    result: Any
    status: int | None
    status_name: str | None
    duration_us: float
    levelno: int
    message: str


def calls(caplog: pytest.LogCaptureFixture) -> list[Call]:
    return [Call(r.__dict__["function"], r.__dict__["call_args"], r.__dict__["result"], r.__dict__["status"],
                 r.__dict__["status_name"], r.__dict__["duration_us"], r.levelno, r.getMessage())
            for r in caplog.records if r.name == "pyacl_hardgrad.calls"]


def by_function(caplog: pytest.LogCaptureFixture, name: str) -> list[Call]:
    return [r for r in calls(caplog) if r.function == name]


HEX = re.compile(r"0x[0-9a-f]+")


Tensors = tuple[Any, Any, Any]


@pytest.fixture
def tensors(hg: ModuleType) -> Iterator[Tensors]:
    dev = hg.default_device()
    g = hg.Tensor(np.arange(8, dtype=np.float32), dev)
    x = hg.Tensor(np.linspace(-2, 2, 8, dtype=np.float32), dev)
    yield dev, g, x
    g.close()
    x.close()


def test_trace_records_a_one_call_crossing(hg: ModuleType, caplog: pytest.LogCaptureFixture, tensors: Tensors) -> None:
    dev, g, x = tensors
    with caplog.at_level(logging.DEBUG, logger="pyacl_hardgrad.calls"), hg.trace_calls():
        out = hg.hardtanh_backward(g, x, -1.0, 1.0, sync=True)
    (rec,) = by_function(caplog, "hgb_callv_aclnnHardtanhBackward")
    assert rec.levelno == logging.DEBUG and rec.status == 0 and rec.status_name == "ACL_SUCCESS"
    assert rec.duration_us > 0
    stream, flags, *args = rec.call_args
    assert HEX.fullmatch(stream) and int(stream, 16) == dev.default_stream._a
    assert flags != "0"                           # sync: the wait flag
    # gradOutput, self, min and max (the cached float32 Scalars' objects), out
    assert args[0] == f"0x{g._a:x}" and args[1] == f"0x{x._a:x}" and all(HEX.fullmatch(a) for a in args[2:4])
    assert args[4] == f"0x{out._a:x}"
    assert re.fullmatch(r"hgb_callv_aclnnHardtanhBackward\(.*\) -> 0 ACL_SUCCESS \(\d+\.\d us\)", rec.message)
    (made,) = by_function(caplog, "hgb_tensor_empty")      # the output, made in the same crossing
    # made in C (the dims as the shape) or, the first time, through cffi (an int64_t[])
    assert made.status == 0 and made.call_args[3] == "1" and made.call_args[5:] == ("0", "4")
    assert made.call_args[4] == "[8]" or HEX.fullmatch(made.call_args[4])
    np.testing.assert_array_equal(out.numpy(), np.where((x.numpy() > -1) & (x.numpy() < 1), g.numpy(), 0))
    out.close()


def test_trace_records_a_plan_run(hg: ModuleType, caplog: pytest.LogCaptureFixture, tensors: Tensors) -> None:
    dev, g, x = tensors
    with hg.HardtanhBackwardPlan(g, x, -1.0, 1.0, repeatable=True) as plan, \
            caplog.at_level(logging.DEBUG, logger="pyacl_hardgrad.calls"), hg.trace_calls():
        plan.run()
        plan.run(sync=True)
    runs = by_function(caplog, "hgb_plan_run")
    assert len(runs) == 2 and all(r.status == 0 for r in runs)
    assert runs[0].call_args == (f"0x{plan._a:x}", f"0x{dev.default_stream._a:x}", "0")
    assert runs[1].call_args[2] != "0" and runs[1].duration_us > 0


def test_trace_records_tensor_creation_in_c_and_through_cffi(hg: ModuleType, caplog: pytest.LogCaptureFixture) -> None:
    dev = hg.default_device()
    with caplog.at_level(logging.DEBUG, logger="pyacl_hardgrad.calls"), hg.trace_calls():
        e = hg.empty((2, 3), device=dev)
        t = hg.Tensor(np.ones(4, np.float32), dev)
        e.close()
        t.close()
    made = by_function(caplog, "hgb_tensor_empty")
    assert len(made) == 2 and all(m.status == 0 and m.duration_us >= 0 for m in made)
    assert made[0].call_args[3:] == ("2", "[2, 3]", "0", "4")          # in C: the dims as the shape
    assert made[1].call_args[3] == "1" and HEX.fullmatch(made[1].call_args[4])  # through cffi: int64_t[]
    assert made[1].call_args[5:] == ("0", "4")
    (copy,) = by_function(caplog, "aclrtMemcpy")
    assert copy.call_args[1] == "16" and copy.call_args[3] == "16" and copy.status == 0
    assert HEX.fullmatch(copy.call_args[0]) and HEX.fullmatch(copy.call_args[2])
    closes = by_function(caplog, "hgb_obj_close")
    assert len(closes) >= 2 and all(c.result is None and c.status is None for c in closes)


def test_trace_records_an_error_status_with_its_name(hg: ModuleType, caplog: pytest.LogCaptureFixture) -> None:
    hg.lib.aclGetRecentErrMsg()       # failures stack per thread until fetched: start from an empty stack
    with caplog.at_level(logging.DEBUG, logger="pyacl_hardgrad.calls"), hg.trace_calls():
        with pytest.raises(hg.RuntimeApiError):
            hg.Device(999)
    (rec,) = by_function(caplog, "aclrtSetDevice")
    assert rec.call_args == ("999",) and rec.status == 107001
    assert rec.status_name == "ACL_ERROR_RT_INVALID_DEVICEID"
    assert "aclrtSetDevice(999) -> 107001 ACL_ERROR_RT_INVALID_DEVICEID" in rec.message
    (msg,) = by_function(caplog, "aclGetRecentErrMsg")
    assert msg.result == "aclrtSetDevice: deviceId (999) is out of range [0, 1)" and msg.status is None


def test_trace_records_pyacl_calls(hg: ModuleType, caplog: pytest.LogCaptureFixture) -> None:
    from pyacl_hardgrad import acl as pyacl
    with caplog.at_level(logging.DEBUG, logger="pyacl_hardgrad.calls"), hg.trace_calls():
        count, ret = pyacl.rt.get_device_count()
    assert ret == 0
    (rec,) = by_function(caplog, "aclrtGetDeviceCount")
    assert rec.status == 0 and HEX.fullmatch(rec.call_args[0])


def test_trace_off_leaves_no_records_and_the_originals_in_place(hg: ModuleType, caplog: pytest.LogCaptureFixture,
                                                                tensors: Tensors) -> None:
    from pyacl_hardgrad import _binding, ops, tensor
    lib, ops_ns = _binding.__dict__["lib"], ops.__dict__       # cffi's own lib; what ops holds
    dev, g, x = tensors
    with hg.trace_calls():
        assert hg.calls_traced() and ops_ns["lib"] is not lib
    assert not hg.calls_traced()
    assert ops_ns["lib"] is lib and tensor.__dict__["lib"] is lib
    assert ops_ns["_plan_run"] is lib.hgb_plan_run and ops_ns["_empty"] is lib.hgb_tensor_empty
    spec = ops.operators()["aclnnHardtanhBackward"]
    assert spec.fused is lib.hgb_call_aclnnHardtanhBackward
    with caplog.at_level(logging.DEBUG, logger="pyacl_hardgrad.calls"):
        out = hg.hardtanh_backward(g, x, -1.0, 1.0, sync=True)
        with hg.HardtanhBackwardPlan(g, x, -1.0, 1.0) as plan:
            plan.run(sync=True)
        hg.empty((3,), device=dev).close()
        with pytest.raises(hg.RuntimeApiError):
            hg.Device(999)
        out.close()
    assert calls(caplog) == []


def test_trace_calls_restores_the_previous_state_and_checks_its_argument(hg: ModuleType) -> None:
    assert not hg.calls_traced()
    switch = hg.trace_calls(True)
    try:
        assert hg.calls_traced()
        with hg.trace_calls(False):
            assert not hg.calls_traced()
        assert hg.calls_traced()
    finally:
        switch.__exit__(None, None, None)
    assert not hg.calls_traced()
    with pytest.raises(TypeError, match="on must be a bool, not str"):
        hg.trace_calls("yes")


def test_trace_from_the_environment_prints_to_stderr_without_a_handler(tmp_path: Path) -> None:
    code = "import pyacl_hardgrad as hg\nhg.Device(0).close()\n"
    proc = run_python(code, {"PYACL_HARDGRAD_TRACE_CALLS": "1"}, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "pyacl_hardgrad.calls: aclInit(NULL) -> 0 ACL_SUCCESS (" in proc.stderr
    assert re.search(r"pyacl_hardgrad\.calls: aclrtSetDevice\(0\) -> 0 ACL_SUCCESS \(\d+\.\d us\)", proc.stderr)
    quiet = run_python(code, {"PYACL_HARDGRAD_TRACE_CALLS": "0"}, cwd=tmp_path)
    assert quiet.returncode == 0 and "pyacl_hardgrad.calls" not in quiet.stderr
    bad = run_python(code, {"PYACL_HARDGRAD_TRACE_CALLS": "verbose"}, cwd=tmp_path)
    assert bad.returncode == 0 and "pyacl_hardgrad.calls:" not in bad.stderr
    assert "PYACL_HARDGRAD_TRACE_CALLS='verbose' is not one of 1, true, yes, on" in bad.stderr


def test_trace_with_a_configured_handler_adds_none(tmp_path: Path) -> None:
    code = textwrap.dedent("""
        import logging, sys
        logging.basicConfig(level=logging.WARNING, stream=sys.stdout, format="%(name)s|%(function)s")
        import pyacl_hardgrad as hg
        with hg.trace_calls():
            hg.Device(0).close()
        print(logging.getLogger("pyacl_hardgrad.calls").handlers, logging.getLogger("pyacl_hardgrad.calls").level)
    """)
    proc = run_python(code, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "pyacl_hardgrad.calls|aclrtSetDevice" in proc.stdout.splitlines()
    assert proc.stdout.splitlines()[-1] == "[] 0" and "pyacl_hardgrad.calls" not in proc.stderr


def test_trace_is_safe_from_several_threads(hg: ModuleType, caplog: pytest.LogCaptureFixture, tensors: Tensors) -> None:
    dev, g, x = tensors
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(20):
                hg.hardtanh_backward(g, x, -1.0, 1.0).close()
        except BaseException as exc:      # pragma: no cover - reported below
            errors.append(exc)

    with caplog.at_level(logging.DEBUG, logger="pyacl_hardgrad.calls"), hg.trace_calls():
        ts = [threading.Thread(target=work) for _ in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        dev.default_stream.synchronize()
    assert not errors
    assert len(by_function(caplog, "hgb_callv_aclnnHardtanhBackward")) == 80
