"""pyACL scripts run unchanged: `python -m pyacl_hardgrad run`, `--pyacl-path`, the pyACL-style
example programs (examples/pyacl/) and the operators' pyACL sample ports (<folder>/examples/
*_pyacl.py, found through the registry), each checked line by line."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import hg_registry
from hg_checkmode import without_clean_summary

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "pyacl"


def run(*args, env=None, cwd=None, timeout=180):
    """python -m pyacl_hardgrad ARGS, from outside the checkout (the installed package runs)."""
    cwd = cwd or str(EXAMPLES)
    full = dict(os.environ)
    full.pop("PYACL_HARDGRAD_PYACL", None)
    full.update(env or {})
    return subprocess.run([sys.executable, "-m", "pyacl_hardgrad", *args], capture_output=True, text=True,
                          env=full, cwd=cwd, timeout=timeout)


def test_pyacl_path_needs_no_backend(hg, tmp_path):
    proc = run("--pyacl-path", env={"PYACL_HARDGRAD_BACKEND": "cann", "ASCEND_HOME_PATH": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    folder = Path(proc.stdout.strip())
    assert (folder / "acl.py").is_file()
    assert folder.parent == Path(hg.__file__).parent / "acl"       # installed as package data


def test_pyacl_path_makes_import_acl_work_in_a_plain_interpreter(hg, tmp_path):
    folder = run("--pyacl-path").stdout.strip()
    code = "import acl, acl.rt; from acl import util; print(acl.__name__, acl.rt is util.__class__ or acl.rt.__name__)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH=folder), cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["pyacl_hardgrad.acl", "pyacl_hardgrad.acl.rt"]


def test_run_passes_arguments_and_exit_status(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import sys, acl\nprint(sys.argv[1:], acl.init())\nsys.exit(7)\n")
    proc = run("run", str(script), "a", "--flag", "-x")
    assert proc.returncode == 7, proc.stderr
    assert proc.stdout == "['a', '--flag', '-x'] 0\n"


def test_run_reports_a_missing_script_and_a_failing_one(tmp_path):
    proc = run("run", str(tmp_path / "nope.py"))
    assert proc.returncode == 2 and "no such file" in proc.stderr
    script = tmp_path / "boom.py"
    script.write_text("import acl\nraise SystemError('boom')\n")
    proc = run("run", str(script))
    assert proc.returncode == 1 and "SystemError: boom" in proc.stderr


def test_run_with_cann_pyacl_required_but_absent(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import acl\n")
    proc = run("run", "--pyacl", "cann", str(script))
    assert proc.returncode == 1 and "no other 'acl' module" in proc.stderr
    proc = run("run", str(script), env={"PYACL_HARDGRAD_PYACL": "bogus"})
    assert proc.returncode == 1 and "PYACL_HARDGRAD_PYACL='bogus'" in proc.stderr


def test_a_folder_named_acl_is_not_taken_for_cann_pyacl(tmp_path):
    (tmp_path / "acl").mkdir()                           # e.g. include/acl next to the script
    script = tmp_path / "s.py"
    script.write_text("import acl\nprint(acl.__name__)\n")
    proc = run("run", "--pyacl", "auto", str(script), cwd=str(tmp_path))
    assert proc.returncode == 0 and proc.stdout == "pyacl_hardgrad.acl\n", proc.stderr


def _pyacl_samples():
    """The registered operators' pyACL sample scripts (<folder>/examples/*_pyacl.py with a
    .expected file), from the source tree's registry; the installed copy of each is run."""
    out = []
    for name in hg_registry.operators():
        ex = hg_registry.folder(name) / "examples"
        out += [p.name for p in sorted(ex.glob("*_pyacl.py")) if p.with_suffix(".expected").is_file()]
    return out


def test_every_operator_sample_in_pyacl_form_is_found():
    assert _pyacl_samples(), "no registered operator has a pyACL sample (<folder>/examples/*_pyacl.py)"


@pytest.mark.parametrize("script", _pyacl_samples())
def test_operator_samples_as_pyacl_scripts_print_canns_values(hg, script):
    from pyacl_hardgrad.__main__ import expected_output, sample_path
    proc = run("run", str(sample_path(script)))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected_output(script)
    assert without_clean_summary(proc.stderr) == ""


@pytest.mark.parametrize("script", _pyacl_samples())
def test_operator_sample_with_pyacl_path_on_pythonpath(hg, script):
    from pyacl_hardgrad.__main__ import expected_output, sample_path
    folder = run("--pyacl-path").stdout.strip()
    proc = subprocess.run([sys.executable, str(sample_path(script))], capture_output=True,
                          text=True, timeout=120, env=dict(os.environ, PYTHONPATH=folder), cwd=str(EXAMPLES))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected_output(script)


def program_output(name, env=None):
    """What examples/pyacl/<name> prints through `run`, after checking it succeeded."""
    proc = run("run", str(EXAMPLES / name), env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_memory_copies_program():
    assert program_output("memory_copies.py") == ("device memory in use grew: True total unchanged: True\n"
                           "sync round trip: True\n"
                           "async first half copied: True second half zero: True\n"
                           "freed, device memory back: True\n")


@pytest.mark.parametrize("devices", [1, 2])
def test_contexts_and_threads_program(devices):
    out = program_output("contexts_threads.py", env={"PYACL_HARDGRAD_DEVICE_COUNT": str(devices)})
    ok = "context current: True, device: True, data: True"
    lines = [f"devices: {devices} distinct contexts: True"]
    lines += [f"start_thread {d} 0 {ok}" for d in range(devices)]
    lines += [f"threading {d} {i} {ok}" for d in range(devices) for i in range(2)]
    assert out == "".join(line + "\n" for line in lines)


def test_teardown_in_del_program():
    proc = run("run", str(EXAMPLES / "teardown_del.py"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ("run mode: 1 (1: the host drives the device)\n"
                           "read back: b'dropped early'\n"
                           "free 13 bytes: 0\n"
                           "still readable: b'kept until exit'\n"
                           "free 15 bytes: 0\n"
                           "destroy_stream: 0\n"
                           "destroy_context: 0\n"
                           "reset_device: 0\n"
                           "finalize: 0\n")
    assert without_clean_summary(proc.stderr) == ""


def test_streams_and_events_program():
    assert program_output("streams_events.py") == ("copied event complete: True\n"
                           "elapsed time is a duration: True\n"
                           "stream B saw stream A's copy: True\n")


def test_callbacks_program():
    assert program_output("callbacks.py") == "callbacks ran: 3\neach saw its copy: True\n"


def test_app_log_follows_canns_log_settings(tmp_path):
    script = tmp_path / "log.py"
    script.write_text("import acl\nacl.app_log(3, 'an error')\nacl.app_log(1, 'some info')\n")
    # by default, as CANN: errors only, into the plog file under ASCEND_PROCESS_LOG_PATH
    quiet = run("run", str(script), env={"ASCEND_PROCESS_LOG_PATH": str(tmp_path / "logs")})
    assert quiet.returncode == 0 and quiet.stdout == ""
    assert "an error" not in quiet.stderr
    logged = "".join(p.read_text() for p in (tmp_path / "logs" / "debug" / "plog").glob("plog-*.log"))
    assert re.search(r"\[log\.py:2\]\d+ <module>: an error\n", logged) and "some info" not in logged
    loud = run("run", str(script), env={"ASCEND_SLOG_PRINT_TO_STDOUT": "1", "ASCEND_GLOBAL_LOG_LEVEL": "1"})
    lines = [ln for ln in loud.stdout.splitlines() if " APP(" in ln]
    assert len(lines) == 2 and lines[0].startswith("[ERROR] APP(")
    assert re.search(r"\[log\.py:2\]\d+ <module>: an error$", lines[0])
    assert lines[1].startswith("[INFO] APP(") and lines[1].endswith("some info")


def test_init_and_finalize_conventions(tmp_path):
    script = tmp_path / "init.py"
    script.write_text("import acl\n"
                      "print(acl.init('/no/such/config.json') != 0)\n"      # a config that cannot be read
                      "print(acl.init(), acl.init())\n"                      # second: 100002
                      "print(acl.finalize(), acl.finalize() != 0)\n"
                      "print(acl.init(), acl.rt.set_device(0), acl.rt.set_device(0))\n"
                      "print(acl.rt.reset_device_force(0))\n"           # both sets at once
                      "print(acl.finalize('ignored'))\n")
    proc = run("run", str(script))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "True\n0 100002\n0 True\n0 0 0\n0\n0\n"
