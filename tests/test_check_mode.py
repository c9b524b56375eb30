"""Checking mode (PYACL_HARDGRAD_CHECK=1, docs/checking.md): every seeded misuse of
tests/c/check_misuse.c is reported with its kind, once, and its clean twin reports nothing;
the report's lines, the ERROR SUMMARY, the `check` command's exit codes and JSON, pyACL scripts
and the Pythonic layer with the user's file:line, and the operator samples run clean."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pytest

FINDING = re.compile(r"^========= ([a-z-]+): ", re.M)
SUMMARY = re.compile(r"^========= ERROR SUMMARY: (\d+) error\(s\)$", re.M)

# case -> the findings its misuse gives (kind -> count)
EXPECTED = {
    "use_before_sync": {"use-before-sync": 1},
    "use_before_sync_write": {"use-before-sync": 1},
    "stream_race": {"stream-race": 1},
    "free_while_in_use": {"free-while-in-use": 1},
    "use_after_free": {"use-after-free": 1},
    "operator_use_after_free": {"use-after-free": 1},
    "double_free": {"double-free": 1},
    "invalid_free": {"invalid-free": 2},
    "out_of_bounds": {"out-of-bounds": 1},
    "leak": {"leak": 3},
    "leak_objects": {"leak": 5},
    "uninitialized_read": {"uninitialized-read": 2},
    "destroy_pending": {"destroy-pending": 1},
    "query_orders_nothing": {"use-before-sync": 1, "destroy-pending": 1},
    "host_func_between": {"stream-race": 1},
    "no_current_device": {"no-current-device": 1},
    "use_after_reset": {"leak": 1, "use-after-reset": 2},
    "event_after_reset": {"leak": 1, "use-after-reset": 3},
    "memory_after_reset": {"leak": 1, "use-after-reset": 2},
    "executor_reuse": {"executor-reuse": 1},
    "wrong_device": {"wrong-device": 2},
}

CHECK_ENV = {"PYACL_HARDGRAD_DEVICE_COUNT": "2",
             "PYACL_HARDGRAD_CHECK": "1", "PYACL_HARDGRAD_CHECK_LEAKS": "full", "PYACL_HARDGRAD_CHECK_LOG": "",
             "PYACL_HARDGRAD_CHECK_JSON": "", "ASCEND_LAUNCH_BLOCKING": "0"}


@pytest.fixture(scope="module")
def misuse_exe(cprog):
    return cprog.build("check_misuse.c")


def kinds(stderr: str) -> Counter[str]:
    return Counter(k for k in FINDING.findall(stderr) if k != "ERROR")


def summary(stderr: str) -> int:
    found = SUMMARY.findall(stderr)
    assert found, stderr
    return int(found[-1])


def test_every_case_has_an_expectation(cprog, misuse_exe):
    listed = cprog.run(misuse_exe, "--list").stdout.split()
    assert sorted(listed) == sorted([c for c in EXPECTED] + [c + "_clean" for c in EXPECTED])


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_seeded_misuse_is_reported_once_per_misuse(cprog, misuse_exe, case):
    proc = cprog.run(misuse_exe, case, env=CHECK_ENV)
    assert proc.returncode == 0 and f"PASS {case}" in proc.stdout, proc.stdout + proc.stderr
    assert kinds(proc.stderr) == Counter(EXPECTED[case]), proc.stderr
    assert summary(proc.stderr) == sum(EXPECTED[case].values())


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_clean_twin_reports_nothing(cprog, misuse_exe, case):
    proc = cprog.run(misuse_exe, case + "_clean", env=CHECK_ENV)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert kinds(proc.stderr) == Counter(), proc.stderr
    assert summary(proc.stderr) == 0


def test_checking_is_off_by_default(cprog, misuse_exe):
    env = dict(CHECK_ENV, PYACL_HARDGRAD_CHECK="")
    proc = cprog.run(misuse_exe, "use_before_sync", env=env)
    assert proc.returncode == 0
    assert "=========" not in proc.stderr


def test_malformed_setting_fails_aclinit_naming_it(cprog, misuse_exe):
    proc = cprog.run(misuse_exe, "use_before_sync", env=dict(CHECK_ENV, PYACL_HARDGRAD_CHECK="yes"))
    assert proc.returncode == 1
    assert "aclInit(NULL) = 100000" in proc.stdout and "PYACL_HARDGRAD_CHECK" in proc.stdout


def test_report_names_call_site_previous_access_and_creation(cprog, misuse_exe):
    proc = cprog.run(misuse_exe, "stream_race", env=CHECK_ENV)
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("=========")]
    assert re.match(r"========= stream-race: aclnnHardswish on stream \d+ reads self \(16384 bytes at offset 0 of "
                    r"device allocation 0x[0-9a-f]+ of 16384 bytes, device 0\) that aclrtMemsetAsync \(call (\d+)\) "
                    r"on stream \d+ writes, with no event or synchronize ordering them$", lines[0]), lines
    assert re.match(r"=========     at aclnnHardswish \(call \d+\)$", lines[1]), lines
    assert re.match(r"=========     previous access: aclrtMemsetAsync \(call \d+\), writes bytes \[0, 16384\) of "
                    r"0x[0-9a-f]+ on stream \d+$", lines[2]), lines
    assert re.match(r"=========     allocation created by aclrtMalloc \(call \d+\)$", lines[3]), lines
    assert lines[4] == "========= ERROR SUMMARY: 1 error(s)"


def test_leak_check_none_reports_no_leaks(cprog, misuse_exe):
    proc = cprog.run(misuse_exe, "leak", env=dict(CHECK_ENV, PYACL_HARDGRAD_CHECK_LEAKS="none"))
    assert proc.returncode == 0 and summary(proc.stderr) == 0, proc.stderr


def test_leaks_of_tensor_base_objects_name_each_one_and_where_it_was_created(cprog, misuse_exe):
    err = cprog.run(misuse_exe, "leak_objects", env=CHECK_ENV).stderr
    assert re.search(r"leak: aclTensor 0x[0-9a-f]+ \(shape 4096, DT_FLOAT over 0x[0-9a-f]+\) was never destroyed "
                     r"\(aclDestroyTensor\) at aclFinalize\n=========     aclTensor created by aclCreateTensor "
                     r"\(call \d+\)", err), err
    assert re.search(r"leak: aclScalar 0x[0-9a-f]+ was never destroyed \(aclDestroyScalar\) at aclFinalize\n"
                     r"=========     aclScalar created by aclCreateScalar", err), err
    assert re.search(r"leak: aclIntArray 0x[0-9a-f]+ was never destroyed \(aclDestroyIntArray\)", err), err
    assert re.search(r"leak: aclTensorList 0x[0-9a-f]+ was never destroyed \(aclDestroyTensorList\)", err), err
    assert re.search(r"leak: aclOpExecutor 0x[0-9a-f]+ of aclnnHardswish \(its phase 2 never ran\) was never "
                     r"destroyed \(aclDestroyAclOpExecutor\) at aclFinalize\n=========     aclOpExecutor created by "
                     r"aclnnHardswishGetWorkspaceSize", err), err
    assert "shape 8" not in err, "a list's tensors belong to the list: only the list is reported"


def test_leaks_name_each_object_and_where_it_was_created(cprog, misuse_exe):
    err = cprog.run(misuse_exe, "leak", env=CHECK_ENV).stderr
    assert re.search(r"leak: device allocation 0x[0-9a-f]+ of 256 bytes on device 0 was never freed \(aclrtFree\) "
                     r"when device 0 was released\n=========     allocation created by aclrtMalloc", err), err
    assert re.search(r"leak: stream \d+ of device 0 was never destroyed .*\n=========     stream created by "
                     r"aclrtCreateStream", err), err
    assert re.search(r"leak: event of device 0 was never destroyed .*\n=========     event created by "
                     r"aclrtCreateEvent", err), err


def test_launch_blocking_makes_launches_wait(cprog, misuse_exe):
    """ASCEND_LAUNCH_BLOCKING=1: the operator has finished when aclnnHardswish returns, so the read
    after it is ordered (the misuse of the non-blocking run is gone)."""
    proc = cprog.run(misuse_exe, "use_before_sync", env=dict(CHECK_ENV, ASCEND_LAUNCH_BLOCKING="1"))
    assert proc.returncode == 0 and summary(proc.stderr) == 0, proc.stderr


# ------------------------------------------------------------------ the check command

def check_cmd(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
              ) -> subprocess.CompletedProcess[str]:
    """`python -m pyacl_hardgrad check ARGS` of the installed package (run outside the checkout)."""
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("PYACL_HARDGRAD_CHECK")}, **(env or {})}
    return subprocess.run([sys.executable, "-m", "pyacl_hardgrad", "check", *args], capture_output=True,
                          text=True, env=env, timeout=300, cwd=cwd or tempfile.gettempdir())


def check_script(tmp_path: Path, text: str) -> tuple[Path, subprocess.CompletedProcess[str], list[dict]]:
    """(the script, the run, its findings): `text` written to a script and run under `check --json`."""
    script, out = tmp_path / "script.py", tmp_path / "findings.json"
    script.write_text(text)
    proc = check_cmd("--json", str(out), str(script))
    return script, proc, json.loads(out.read_text())["findings"]


def test_check_command_exit_codes(misuse_exe):
    assert check_cmd(str(misuse_exe), "double_free").returncode == 1
    assert check_cmd("--error-exitcode", "9", str(misuse_exe), "double_free").returncode == 9
    assert check_cmd(str(misuse_exe), "double_free_clean").returncode == 0
    assert check_cmd(str(misuse_exe), "no_such_case").returncode == 2      # the program's own status wins
    assert check_cmd("--leak-check", "none", str(misuse_exe), "leak").returncode == 0
    bad = check_cmd("/no/such/program")
    assert bad.returncode == 2 and "no such executable" in bad.stderr


def test_check_command_json_and_log_file(misuse_exe, tmp_path):
    out, log = tmp_path / "f.json", tmp_path / "log.txt"
    proc = check_cmd("--json", str(out), "--log-file", str(log), str(misuse_exe), "invalid_free")
    assert proc.returncode == 1
    assert "=========" not in proc.stderr
    assert "ERROR SUMMARY: 2 error(s)" in log.read_text()
    rep = json.loads(out.read_text())
    assert rep["errors"] == 2 and rep["exit_status"] == 1 and rep["program_exit_status"] == 0
    assert [f["kind"] for f in rep["findings"]] == ["invalid-free", "invalid-free"]
    first = rep["findings"][0]
    assert first["site"]["call"] == "aclrtFree" and first["created"]["call"] == "aclrtMalloc"
    assert first["message"].startswith("aclrtFree of 0x")


PYACL_MISUSE = """\
import acl
import numpy as np

acl.init()
acl.rt.set_device(0)
dev, ret = acl.rt.malloc(4096, 0)
host = np.zeros(1024, dtype=np.float32)
ptr = host.ctypes.data
ret = acl.rt.memcpy(ptr, 4096, dev, 4096, 2)
print("poisoned", bool(np.isnan(host).all()), host.view(np.uint32)[0] == 0xFFFFFFFF)
acl.rt.free(dev)
print("second free", acl.rt.free(dev))
acl.rt.reset_device(0)
acl.finalize()
"""


def test_pyacl_script_findings_name_the_script_lines(tmp_path):
    script, proc, findings = check_script(tmp_path, PYACL_MISUSE)
    assert proc.returncode == 1, proc.stderr
    assert "poisoned True True" in proc.stdout          # fresh allocations are filled with NaN bytes
    assert "second free 107000" in proc.stdout          # CANN's code stays CANN's
    got = [(f["kind"], f["site"]["where"]) for f in findings]
    assert got == [("uninitialized-read", f"{script}:9"), ("double-free", f"{script}:12")]
    assert findings[1]["previous"]["where"] == f"{script}:11"
    assert findings[0]["created"]["where"] == f"{script}:6"


PY_LAYER = """\
import sys
import numpy as np
import pyacl_hardgrad as hg

with hg.Device(0) as device:
    s = hg.Stream(device)
    mem = device.allocate(1 << 20)
    mem.copy_from_host(np.ones(1 << 18, np.float32), stream=s)
    if sys.argv[1:] == ["clean"]:
        s.synchronize()
    host = np.empty(1 << 18, np.float32)
    mem.copy_to_host(host)
    s.synchronize()
    mem.close()
"""


@pytest.mark.parametrize("clean", [False, True])
def test_python_layer_host_read_before_sync(tmp_path, clean):
    script = tmp_path / "layer.py"
    script.write_text(PY_LAYER)
    proc = check_cmd(str(script), *(["clean"] if clean else []))
    if clean:
        assert proc.returncode == 0 and summary(proc.stderr) == 0, proc.stderr
    else:
        assert proc.returncode == 1
        assert kinds(proc.stderr) == Counter({"use-before-sync": 1}), proc.stderr
        assert f"at aclrtMemcpy (call 4) from {script}:12" in proc.stderr
        assert f"previous access: aclrtMemcpyAsync (call 3) from {script}:8" in proc.stderr


def test_operator_samples_are_clean_under_check():
    from pyacl_hardgrad.__main__ import samples
    scripts = samples()
    assert scripts
    for path in scripts:
        proc = check_cmd(str(path))
        assert proc.returncode == 0, f"{path}:\n{proc.stderr}"
        assert proc.stdout == path.with_suffix(".expected").read_text(), path
        assert summary(proc.stderr) == 0, f"{path}:\n{proc.stderr}"


PLAN_TWO_STREAMS = """\
import sys
import numpy as np
import pyacl_hardgrad as hg

with hg.Device(0) as device:
    s = hg.Stream(device)
    g = hg.Tensor(np.ones(64, np.float32), device)
    x = hg.Tensor(np.linspace(-2, 2, 64, dtype=np.float32), device)
    plan = hg.HardtanhBackwardPlan(g, x, -1.0, 1.0, repeatable=True)
    plan.run(stream=s)
    if sys.argv[1:] == ["clean"]:
        s.synchronize()
    plan.run()
    device.synchronize()
    plan.close()
    print("ran")
"""


@pytest.mark.parametrize("clean", [False, True])
def test_repeatable_plan_on_two_streams_races_on_its_output(tmp_path, clean):
    """A backward operator's plan (made without tensor names) run on a created stream and then
    on the default stream writes its output from both with nothing between them."""
    script = tmp_path / "plan.py"
    script.write_text(PLAN_TWO_STREAMS)
    proc = check_cmd(str(script), *(["clean"] if clean else []))
    assert "ran" in proc.stdout, proc.stderr
    if clean:
        assert proc.returncode == 0 and summary(proc.stderr) == 0, proc.stderr
    else:
        assert proc.returncode == 1
        assert kinds(proc.stderr) == Counter({"stream-race": 1}), proc.stderr
        assert re.search(r"stream-race: aclnnHardtanhBackward on stream \d+ writes out \(256 bytes ", proc.stderr)
        assert re.search(rf"at aclnnHardtanhBackward \(call \d+\) from {re.escape(str(script))}:13\n", proc.stderr)
        assert re.search(rf"previous access: aclnnHardtanhBackward \(call \d+\) from {re.escape(str(script))}:10, "
                         r"writes bytes \[0, 256\)", proc.stderr)


def _cpp_samples() -> list[Path]:
    from pyacl_hardgrad.__main__ import ops_dir
    return [p for p in sorted(ops_dir().glob("*/examples/*.cpp")) if p.with_suffix(".expected").is_file()]


@pytest.mark.parametrize("sample", _cpp_samples(), ids=lambda p: p.stem)
def test_cpp_operator_samples_are_clean_under_check(cprog, sample):
    exe = cprog.build(sample)
    proc = cprog.run(exe, env=CHECK_ENV)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == sample.with_suffix(".expected").read_text()
    assert kinds(proc.stderr) == Counter() and summary(proc.stderr) == 0, proc.stderr


def test_memory_used_after_its_device_reset_names_the_allocation_and_the_reset(cprog, misuse_exe):
    err = cprog.run(misuse_exe, "memory_after_reset", env=CHECK_ENV).stderr
    assert re.search(r"leak: device allocation (0x[0-9a-f]+) of 256 bytes on device 0 was never freed \(aclrtFree\) "
                     r"when device 0 was released", err), err
    for call, done in (("aclrtMemset", "touches"), ("aclrtFree", "frees")):
        m = re.search(rf"========= use-after-reset: {call} {done} device allocation 0x[0-9a-f]+ of 256 bytes, which "
                      rf"went with device 0 when it was reset \(aclrtResetDevice\)[^\n]*\n"
                      rf"=========     at {call} \(call \d+\)\n"
                      rf"=========     previous access: aclrtResetDevice \(call \d+\), released it\n"
                      rf"=========     allocation created by aclrtMalloc \(call \d+\)\n", err)
        assert m, err


def test_event_used_after_its_device_reset_names_the_event_and_the_device(cprog, misuse_exe):
    err = cprog.run(misuse_exe, "event_after_reset", env=CHECK_ENV).stderr
    assert re.search(r"use-after-reset: aclrtRecordEvent on event 0x[0-9a-f]+, which belonged to device 0 and went "
                     r"with it when the device was reset \(aclrtResetDevice\)", err), err
    assert re.search(r"use-after-reset: aclrtDestroyEvent on event 0x[0-9a-f]+", err), err


# ---- every kind pyACL can reach, from a pyACL script ------------------------------------------

PYACL_CASES = {
    "use_before_sync": {"use-before-sync": 1},
    "stream_race": {"stream-race": 1},
    "free_while_in_use": {"free-while-in-use": 1},
    "use_after_free": {"use-after-free": 1},
    "double_free": {"double-free": 1},
    "invalid_free": {"invalid-free": 1},
    "out_of_bounds": {"out-of-bounds": 1},
    "wrong_device": {"wrong-device": 1},
    "no_current_device": {"no-current-device": 1},
    "use_after_reset": {"leak": 1, "use-after-reset": 1},
    "leak": {"leak": 1},
    "uninitialized_read": {"uninitialized-read": 1},
    "destroy_pending": {"destroy-pending": 1},
}
PYACL_SCRIPT = Path(__file__).resolve().parent / "pyacl_misuse.py"


def _misuse_lines() -> dict[str, int]:
    """case -> the line of its "# misuse" comment in the script."""
    lines, case = {}, None
    for no, text in enumerate(PYACL_SCRIPT.read_text().splitlines(), 1):
        m = re.match(r"def (\w+)\(clean", text)
        if m:
            case = m.group(1)
        elif text.rstrip().endswith("# misuse"):
            lines[case] = no
    return lines


def test_pyacl_cases_cover_every_kind_but_the_executors():
    kinds = {k for want in PYACL_CASES.values() for k in want} | {"executor-reuse"}
    assert kinds == {k for want in EXPECTED.values() for k in want}
    assert sorted(_misuse_lines()) == sorted(PYACL_CASES)


@pytest.mark.parametrize("case", sorted(PYACL_CASES))
def test_pyacl_script_misuse_is_reported_at_the_script_line(tmp_path, case):
    proc = check_cmd("--json", str(tmp_path / "f.json"), str(PYACL_SCRIPT), case,
                     env={"PYACL_HARDGRAD_DEVICE_COUNT": "2"})
    assert proc.returncode == 1 and f"PASS {case}" in proc.stdout, proc.stdout + proc.stderr
    rep = json.loads((tmp_path / "f.json").read_text())
    assert Counter(f["kind"] for f in rep["findings"]) == PYACL_CASES[case], proc.stderr
    line = f"{PYACL_SCRIPT}:{_misuse_lines()[case]}"
    first = next(f for f in rep["findings"] if f["kind"] != "leak" or case == "leak")
    where = first["created"]["where"] if case == "leak" else first["site"]["where"]
    assert where == line, proc.stderr


@pytest.mark.parametrize("case", sorted(PYACL_CASES))
def test_pyacl_script_clean_twin_reports_nothing(tmp_path, case):
    proc = check_cmd(str(PYACL_SCRIPT), f"{case}_clean", env={"PYACL_HARDGRAD_DEVICE_COUNT": "2"})
    assert proc.returncode == 0 and f"PASS {case}_clean" in proc.stdout, proc.stdout + proc.stderr
    assert kinds(proc.stderr) == Counter() and summary(proc.stderr) == 0, proc.stderr


def test_check_command_finds_the_libraries_for_a_program_built_without_an_rpath(toolchain, tmp_path):
    exe = tmp_path / "misuse_no_rpath"
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-std=c11", f"-I{toolchain.include_dir}", str(Path(__file__).parent / "c" / "check_misuse.c"),
                    f"-L{toolchain.library_dir}", "-lascendcl", "-lnnopbase", "-lopapi", "-o", str(exe)],
                   check=True, capture_output=True, timeout=300)
    proc = check_cmd(str(exe), "double_free")
    assert proc.returncode == 1 and "PASS double_free" in proc.stdout, proc.stdout + proc.stderr
    assert "========= double-free: aclrtFree of device allocation" in proc.stderr


SAVED_PROFILE = """\
import sys
import acl

acl.init()
acl.rt.set_device(0)
saved = sys.getprofile()
sys.setprofile(lambda frame, event, arg: None)    # a profiler of the user's, for a while
sys.setprofile(saved)
ptr, ret = acl.rt.malloc(64, 0)
acl.rt.free(ptr)
acl.rt.free(ptr)
acl.rt.reset_device(0)
acl.finalize()
"""


def test_a_saved_and_restored_profile_function_keeps_the_script_sites(tmp_path):
    script, proc, (finding,) = check_script(tmp_path, SAVED_PROFILE)
    assert proc.returncode == 1, proc.stderr
    assert finding["kind"] == "double-free" and finding["site"]["where"] == f"{script}:11", proc.stderr
    assert finding["previous"]["where"] == f"{script}:10" and finding["created"]["where"] == f"{script}:9"


HOST_REUSE = """\
import acl
import numpy as np

acl.init()
acl.rt.set_device(0)
dev, _ = acl.rt.malloc(4096, 0)
for _ in range(50):
    host, _ = acl.rt.malloc_host(64)
    acl.rt.free_host(host)
    for n in (8, 64, 500):                    # the C library may hand out the bytes just freed
        a = np.zeros(n, dtype=np.int64)
        assert acl.rt.memcpy(dev, 4096, a.ctypes.data, a.nbytes, 1) == 0
acl.rt.free(dev)
acl.rt.reset_device(0)
acl.finalize()
print("done")
"""


def test_memory_reused_by_the_c_library_after_free_host_is_no_use_after_free(tmp_path):
    _, proc, findings = check_script(tmp_path, HOST_REUSE)
    assert proc.returncode == 0 and proc.stdout == "done\n", proc.stderr
    assert findings == [] and summary(proc.stderr) == 0, proc.stderr
