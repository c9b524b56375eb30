"""``pyacl-hardgrad doctor``: without CANN it says the embedded runtime is in use and that nothing
needs fixing (exit 0); against the embedded runtime's CANN-shaped tree (its set_env.sh sourced)
every file and symbol check passes; against broken CANN trees made here (a library missing,
without symbols, or not a library at all) it exits 1 and names the failing check with what to do."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from hg_cli import VIAS, SCRIPT, clean_env, run
from hg_checkmode import without_clean_summary

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc builds the fake CANN libraries")
no_default_cann = pytest.mark.skipif(Path("/usr/local/Ascend/ascend-toolkit/latest").exists(),
                                     reason="a CANN install at the default location is found without any setting")
STATUSES = ("ok", "warn", "FAIL", "skip")


def parse(out: str) -> tuple[str, list[tuple[str, str, str]], str]:
    """(title, [(status, check name, rest)], summary) of a doctor report; every check is one line."""
    lines = out.splitlines()
    checks = []
    for line in lines[1:-1]:
        status, rest = line[:5].strip(), line[6:]
        assert status in STATUSES, line
        name, _, detail = rest.partition(": ")
        checks.append((status, name, detail))
    return lines[0], checks, lines[-1]


def named(checks: list[tuple[str, str, str]], name: str) -> list[tuple[str, str, str]]:
    return [c for c in checks if c[1] == name]


def fake_cann(root: Path, *, runtime: str | None = "empty", others: str = "empty") -> Path:
    """A CANN-looking tree at root: lib64/ with libascendcl.so, libnnopbase.so and libopapi.so,
    each built by gcc from a C file exporting nothing of CANN ("empty"), or not a library at all
    ("garbage"); runtime=None leaves libascendcl.so out."""
    lib64 = root / "lib64"
    lib64.mkdir(parents=True)
    src = root / "unrelated.c"
    src.write_text("int hg_test_unrelated(void) { return 42; }\n")
    for name, kind in (("libascendcl.so", runtime), ("libnnopbase.so", others), ("libopapi.so", others)):
        if kind == "empty":
            subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(lib64 / name), str(src)], check=True)
        elif kind == "garbage":
            (lib64 / name).write_text("this is not a shared library\n")
    return root


@no_default_cann
@pytest.mark.parametrize("via", VIAS)
def test_without_cann_the_embedded_runtime_is_in_use_and_nothing_needs_fixing(hg, tmp_path, via):
    proc = run(["doctor"], tmp_path, via, PYACL_HARDGRAD_DEVICE_COUNT="2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert without_clean_summary(proc.stderr) == ""
    title, checks, summary = parse(proc.stdout)
    assert title == f"pyacl-hardgrad {hg.__version__} doctor"
    assert summary == "nothing to fix"
    assert all(status == "ok" for status, _, _ in checks), proc.stdout
    (install,) = named(checks, "CANN install")
    assert install[2].startswith("none found") and "the embedded runtime is in use, nothing to fix" in install[2]
    assert "not needed by the embedded runtime" in named(checks, "driver")[0][2]
    assert named(checks, "backend")[0][2].startswith("the embedded runtime (")
    assert named(checks, "aclInit")[0][2].startswith("ACL ")
    assert named(checks, "aclrtGetDeviceCount")[0][2] == "2 devices (PYACL_HARDGRAD_DEVICE_COUNT)"
    for i in (0, 1):                            # aclrtSetDevice still runs on each embedded device
        assert named(checks, f"aclrtSetDevice({i})")[0][2].startswith("Ascend910B, ")
    assert named(checks, "aclnnHardtanhBackward")[0][0] == "ok"


@no_default_cann
def test_doctor_json_has_every_check_and_the_verdict(tmp_path):
    proc = run(["doctor", "--json"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    d = json.loads(proc.stdout)
    assert d["ok"] is True
    names = [c["name"] for c in d["checks"]]
    assert {"PYACL_HARDGRAD_BACKEND", "CANN install", "driver", "backend", "aclInit", "aclrtSetDevice(0)"} <= set(names)
    assert all(set(c) == {"name", "status", "detail", "fix"} for c in d["checks"])


@no_default_cann
def test_a_stale_ascend_home_path_is_a_warning_with_its_fix_not_a_failure(tmp_path):
    proc = run(["doctor"], tmp_path, ASCEND_HOME_PATH=str(tmp_path / "gone"))
    assert proc.returncode == 0, proc.stdout
    _, checks, summary = parse(proc.stdout)
    (warn,) = named(checks, "ASCEND_HOME_PATH")
    assert warn[0] == "warn"
    assert f"{tmp_path / 'gone'} is not a directory (ignored); fix: unset ASCEND_HOME_PATH" in warn[2]
    assert summary == "nothing broken; 1 warning"


def test_the_embedded_runtimes_cann_tree_passes_the_file_and_symbol_checks(hg, tmp_path):
    tree = Path(hg.get_cann_path())
    proc = subprocess.run(["bash", "-c", f'source "{tree}/set_env.sh" && exec "{SCRIPT}" doctor'], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, env=clean_env(PYACL_HARDGRAD_BACKEND="cann"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    _, checks, summary = parse(proc.stdout)
    assert summary == "nothing to fix", proc.stdout
    assert any(c[1] == "CANN install" and c[2].startswith(f"{tree} ($ASCEND_HOME_PATH)") for c in checks)
    for lib, role in (("libascendcl.so", "runtime"), ("libnnopbase.so", "nnopbase"), ("libopapi.so", "opapi")):
        (line,) = named(checks, lib)
        assert line[0] == "ok" and "loads, exports all " in line[2] and f" {role} functions" in line[2], line
    assert any("is the embedded runtime's CANN-shaped tree" in c[2] for c in checks)
    for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"):
        assert named(checks, var)[0] == ("ok", var, str(tree))
    assert named(checks, "LD_LIBRARY_PATH")[0][0] == "ok"
    assert named(checks, "backend")[0][2].startswith(f"CANN at {tree} ")
    assert named(checks, "aclrtSetDevice(0)")[0][0] == "ok"


@needs_gcc
def test_a_libascendcl_without_symbols_fails_naming_the_file_and_what_to_do(tmp_path):
    root = fake_cann(tmp_path / "cann")
    proc = run(["doctor"], tmp_path, PYACL_HARDGRAD_BACKEND="cann", ASCEND_HOME_PATH=str(root))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert without_clean_summary(proc.stderr) == ""
    _, checks, summary = parse(proc.stdout)
    (line,) = named(checks, "libascendcl.so")
    assert line[0] == "FAIL"
    assert line[2].startswith("exports none of the ")
    assert "runtime functions the binding calls (aclFloat16ToFloat" in line[2]
    assert line[2].endswith(f"; fix: {root}/lib64/libascendcl.so is not CANN's runtime library or is damaged: "
                            "reinstall the CANN toolkit")
    backend = named(checks, "backend")[0]
    assert backend[0] == "FAIL" and "lacks aclInit" in backend[2]
    assert "aclInit" not in [c[1] for c in checks]       # not called through a library without it
    assert summary.endswith("to fix (FAIL lines above)")


@needs_gcc
@pytest.mark.parametrize("backend", ["cann", "auto"])
def test_a_missing_libascendcl_fails_naming_the_file(tmp_path, backend):
    root = fake_cann(tmp_path / "cann", runtime=None)
    proc = run(["doctor"], tmp_path, PYACL_HARDGRAD_BACKEND=backend, ASCEND_HOME_PATH=str(root))
    assert proc.returncode == 1, proc.stdout
    _, checks, _ = parse(proc.stdout)
    (line,) = named(checks, "libascendcl.so or libacl_rt.so")
    assert line[0] == "FAIL" and line[2].startswith(f"missing from {root}/lib64 (runtime library); fix: reinstall")
    if backend == "auto":                      # the package falls back to the embedded runtime, and says so
        fallback = [c for c in named(checks, "backend") if c[0] == "FAIL"]
        assert fallback and "partial install: no libascendcl.so or libacl_rt.so (runtime)" in fallback[0][2]
        assert any(c[0] == "ok" and c[1] == "aclrtSetDevice(0)" for c in checks)
    else:
        assert "cannot be loaded" in named(checks, "backend")[0][2]


@needs_gcc
def test_a_file_that_is_not_a_library_fails_saying_so(tmp_path):
    root = fake_cann(tmp_path / "cann", runtime="garbage")
    proc = run(["doctor"], tmp_path, PYACL_HARDGRAD_BACKEND="cann", ASCEND_HOME_PATH=str(root))
    assert proc.returncode == 1
    _, checks, _ = parse(proc.stdout)
    (line,) = named(checks, "libascendcl.so")
    assert line[0] == "FAIL" and line[2].startswith("cannot be loaded: ")
    assert "it is not a shared library for this machine" in line[2]


def test_cann_requested_but_none_installed_fails_with_the_way_out(tmp_path):
    proc = run(["doctor"], tmp_path, PYACL_HARDGRAD_BACKEND="cann", ASCEND_HOME_PATH=str(tmp_path / "none"))
    assert proc.returncode == 1
    _, checks, _ = parse(proc.stdout)
    install = named(checks, "CANN install")[0]
    assert install[0] == "FAIL" and install[2].startswith("none found (searched ")
    assert "set_env.sh" in install[2] and "PYACL_HARDGRAD_BACKEND=auto" in install[2]
    assert named(checks, "ASCEND_HOME_PATH")[0][0] == "FAIL"


def test_a_malformed_embedded_setting_fails_at_aclinit_naming_it(tmp_path):
    proc = run(["doctor"], tmp_path, PYACL_HARDGRAD_DEVICE_COUNT="lots")
    assert proc.returncode == 1
    _, checks, _ = parse(proc.stdout)
    (line,) = named(checks, "aclInit")
    assert line[0] == "FAIL" and "PYACL_HARDGRAD_DEVICE_COUNT" in line[2]
    assert "fix: correct the setting the message names" in line[2]


def test_an_invalid_backend_name_fails_with_the_accepted_names(tmp_path):
    proc = run(["doctor"], tmp_path, PYACL_HARDGRAD_BACKEND="npu")
    assert proc.returncode == 1
    _, checks, _ = parse(proc.stdout)
    assert checks[0] == ("FAIL", "PYACL_HARDGRAD_BACKEND",
                         "'npu' is not one of auto, cann, sim; fix: set PYACL_HARDGRAD_BACKEND to auto, cann or sim "
                         "(or unset it: auto)")


def test_every_binding_function_is_checked_in_the_library_that_declares_it(hg):
    from pyacl_hardgrad import _cli_doctor
    roles = _cli_doctor.functions_by_role()
    assert "aclInit" in roles["runtime"] and "aclrtSetDevice" in roles["runtime"]
    assert "aclCreateTensor" in roles["nnopbase"] and "aclnnInit" in roles["nnopbase"]
    assert "aclnnHardtanhBackward" in roles["opapi"] and "aclnnHardtanhBackwardGetWorkspaceSize" in roles["opapi"]
    everything = [n for names in roles.values() for n in names]
    assert sorted(everything) == sorted(_cli_doctor.binding_functions())       # each once
    assert not any(n.startswith("hg") for n in everything)                       # embedded-only calls are not CANN's
    for role, core in _cli_doctor.CORE_FUNCTIONS.items():
        assert set(core) <= set(roles[role]), role
    pairs = _cli_doctor.operator_pairs(roles["opapi"])
    assert ("aclnnHardtanhBackwardGetWorkspaceSize", "aclnnHardtanhBackward") in pairs and len(pairs) == 12
