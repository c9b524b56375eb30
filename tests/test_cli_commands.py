"""The command line as installed: ``pyacl-hardgrad`` and ``python -m pyacl_hardgrad`` give the same
--version (without loading a C library), ``info --json`` holds the facts ``info`` prints, and every
error is one line on stderr saying what to do, with a non-zero exit and no traceback."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from hg_cli import VIAS, assert_one_line_error, clean_env, run


@pytest.mark.parametrize("via", VIAS)
def test_version_names_the_command_and_the_package_version(hg, tmp_path, via):
    proc = run(["--version"], tmp_path, via)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"pyacl-hardgrad {hg.__version__}\n"


def test_version_loads_no_c_library_even_with_an_unloadable_backend(hg, tmp_path):
    probe = ("import sys\nfrom pyacl_hardgrad.__main__ import main\n"
             "try:\n    main(['--version'])\nexcept SystemExit as e:\n    code = e.code\n"
             "print(code, sorted(m for m in sys.modules if m.startswith('pyacl_hardgrad._cffi') "
             "or m == 'pyacl_hardgrad._binding'))\n")
    proc = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env=clean_env(PYACL_HARDGRAD_BACKEND="cann", ASCEND_HOME_PATH=str(tmp_path / "none")))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "0 []"


@pytest.mark.parametrize("via", VIAS)
def test_unknown_command_is_one_line_pointing_at_help(tmp_path, via):
    line = assert_one_line_error(run(["smo"], tmp_path, via))
    assert "invalid choice: 'smo'" in line and "--help" in line


@pytest.mark.parametrize("args", [["smi", "--jsn"], ["doctor", "extra"], ["info", "--bogus"]])
def test_bad_arguments_of_a_command_are_one_line(tmp_path, args):
    line = assert_one_line_error(run(args, tmp_path))
    assert line.startswith("pyacl-hardgrad: error: unrecognized arguments") and "--help" in line


@pytest.mark.parametrize("args", [["smi"], ["smi", "--json"], ["info", "--json"], ["info"]])
def test_a_backend_that_cannot_load_is_one_line_saying_what_to_do(tmp_path, args):
    line = assert_one_line_error(run(args, tmp_path, PYACL_HARDGRAD_BACKEND="cann",
                                     ASCEND_HOME_PATH=str(tmp_path / "nowhere")))
    assert "no CANN install could be loaded" in line
    assert "PYACL_HARDGRAD_BACKEND=sim" in line          # what to do


def test_an_invalid_backend_name_is_one_line(tmp_path):
    line = assert_one_line_error(run(["smi"], tmp_path, PYACL_HARDGRAD_BACKEND="gpu"))
    assert "PYACL_HARDGRAD_BACKEND='gpu' is not one of 'auto', 'cann', 'sim'" in line


def test_a_malformed_runtime_setting_is_one_line_naming_it(tmp_path):
    line = assert_one_line_error(run(["smi"], tmp_path, PYACL_HARDGRAD_DEVICE_COUNT="many"))
    assert "PYACL_HARDGRAD_DEVICE_COUNT" in line and "aclInit failed" in line
    line = assert_one_line_error(run(["smi", "--json"], tmp_path, PYACL_HARDGRAD_ALLOCATOR="lots"))
    assert "PYACL_HARDGRAD_ALLOCATOR='lots' is not one of caching, direct" in line


def _text_facts(out: str) -> dict:
    """The facts `info` prints, by label."""
    facts: dict = {"libraries": [], "kernel_rows": set()}
    lines = out.splitlines()
    facts["version"] = lines[0].split()[-1]
    for line in lines[1:]:
        if line.startswith("  /"):
            facts["libraries"].append(line.strip())
            continue
        m = re.match(r"  (aclnn\w+) ([\w,]+)->(\w+): ", line)
        if m:
            facts["kernel_rows"].add((m.group(1), tuple(m.group(2).split(",")), m.group(3)))
            continue
        if ":" in line and not line.startswith(" ") and not line.startswith("libraries:"):
            label, value = line.split(":", 1)
            facts[label.strip()] = value.strip()
    return facts


def test_info_json_holds_the_facts_info_prints(hg, tmp_path):
    env = dict(PYACL_HARDGRAD_DEVICE_COUNT="2", PYACL_HARDGRAD_SOC="Ascend910B3")
    text = run(["info"], tmp_path, **env)
    data = run(["info", "--json"], tmp_path, "module", **env)
    assert text.returncode == 0 and data.returncode == 0, (text.stderr, data.stderr)
    facts, js = _text_facts(text.stdout), json.loads(data.stdout)
    assert js["version"] == facts["version"] == hg.__version__
    assert facts["backend"] == "sim (embedded runtime)" and js["backend"] == "sim" and js["embedded"] is True
    assert js["libraries"] == facts["libraries"] and len(js["libraries"]) == 3
    assert js["embedded_version"] == facts["embedded"]
    assert js["acl_version"] == facts["ACL version"]
    assert js["device_count"] == int(facts["devices"]) == 2 == len(js["devices"])
    assert js["soc"] == facts["SoC"] == "Ascend910B3"
    assert [d["name"] for d in js["devices"]] == ["Ascend910B3"] * 2
    alloc = js["allocator"]
    assert facts["allocator"].startswith(f"{alloc['mode']}, idle cache limit {alloc['limit']} bytes")
    assert js["include_dir"] == facts["include dir"] and js["library_dir"] == facts["library dir"]
    rows = {(c["op"], tuple(c["inputs"]), c["out"]) for c in js["kernels"]["choices"]}
    assert rows == facts["kernel_rows"] and len(rows) >= 9       # the same (operator, dtypes) rows, chosen each run
    assert set(js["kernels"]["settings"]["available"]) <= {"scalar", "avx2", "avx512", "neon"}
    assert facts["kernels"].startswith("paths " + ", ".join(js["kernels"]["settings"]["available"]))
    assert js["runtime_error"] is None and js["missing_functions"] == []


def test_plain_info_still_prints_text(hg, tmp_path):
    proc = run(["info"], tmp_path, "module")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"pyacl_hardgrad {hg.__version__}\nbackend:      sim (embedded runtime)\n")
