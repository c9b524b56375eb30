"""Typing: the package is typed (PEP 561) for its users, ``mypy --strict`` and ruff pass on it.

* user code (tests/typing_user/) checks clean with ``mypy --strict`` against the installed
  package, and mypy infers what the package promises (a one-call given Tensors is a Tensor,
  given numpy arrays only an ndarray; a plan's ``run`` a Tensor; misuse is an error);
* the stub of the operators' generated functions (pyacl_hardgrad/_ops_typing.pyi) is what
  _build/gen_stubs.py writes for the installed build, and is installed;
* type checkers see every name the package loads lazily;
* ``mypy`` (strict, the package) and ``ruff check pyacl_hardgrad tests examples`` report nothing.

The checks skip, saying so, only where mypy or ruff is not installed (both are in the test extra).
"""
from __future__ import annotations

import ast
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
USER_DIR = Path(__file__).resolve().parent / "typing_user"
STUB = "_ops_typing.pyi"

needs_mypy = pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                                reason="mypy is not installed (pip install '.[test]')")
needs_ruff = pytest.mark.skipif(importlib.util.find_spec("ruff") is None,
                                reason="ruff is not installed (pip install '.[test]')")


def _mypy(args: list[str], cwd: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(cache), "--no-error-summary",
                           "--show-error-codes", "--no-pretty", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def user_check(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[int, str, str]]]:
    """mypy --strict on copies of the user files in a folder of their own, so the package they
    import is the installed one (its py.typed and stubs): {file: [(line, "note"/"error", text)]}."""
    work = tmp_path_factory.mktemp("typing_user")
    for f in ("user_code.py", "reveal_types.py"):
        shutil.copy(USER_DIR / f, work / f)
    proc = _mypy(["--strict", "user_code.py", "reveal_types.py"], work, work / ".mypy_cache")
    if proc.returncode not in (0, 1) or proc.stderr.strip():
        pytest.fail(f"mypy failed to run (status {proc.returncode}):\n{proc.stderr}{proc.stdout}")
    found: dict[str, list[tuple[int, str, str]]] = {"user_code.py": [], "reveal_types.py": []}
    for line in proc.stdout.splitlines():
        m = re.match(r"(\w+\.py):(\d+): (note|error): (.*)$", line)
        if m:
            found.setdefault(m.group(1), []).append((int(m.group(2)), m.group(3), m.group(4)))
    return found


@needs_mypy
def test_user_script_passes_mypy_strict_against_the_installed_package(user_check):
    # (its assert_type calls fail the check when a one-call or a plan is typed Any, or wrongly)
    assert user_check["user_code.py"] == []


def _normal(type_text: str) -> str:
    """A revealed type as mypy and numpy versions spell it alike (``builtins.`` prefixes, an
    ndarray's unknown shape, a generic numpy scalar's parameter)."""
    text = type_text.replace("builtins.", "").replace("ndarray[tuple[Any, ...], ", "ndarray[Any, ")
    return text.replace("numpy.generic[Any]", "numpy.generic")


@needs_mypy
def test_mypy_infers_what_the_package_promises_and_reports_misuse(user_check):
    source = (USER_DIR / "reveal_types.py").read_text().splitlines()
    want_types = {i: m.group(1) for i, ln in enumerate(source, 1) if (m := re.search(r"  # R: (.+)$", ln))}
    want_errors = {i: m.group(1) for i, ln in enumerate(source, 1) if (m := re.search(r"  # E: ([\w-]+)$", ln))}
    assert want_types and want_errors
    got = user_check["reveal_types.py"]
    revealed = {line: _normal(re.sub(r'^Revealed type is "(.*)"$', r"\1", text)) for line, kind, text in got
                if kind == "note" and text.startswith("Revealed type is")}
    errors: dict[int, set[str]] = {}
    for line, kind, text in got:
        if kind == "error":
            errors.setdefault(line, set()).update(re.findall(r"\[([\w-]+)\]$", text))
    assert revealed == {line: _normal(t) for line, t in want_types.items()}
    assert {line: codes for line, codes in errors.items()} == {line: {code} for line, code in want_errors.items()}


def test_user_script_runs():
    proc = subprocess.run([sys.executable, str(USER_DIR / "user_code.py")], capture_output=True, text=True,
                          timeout=300, cwd=USER_DIR)
    assert proc.returncode == 0, proc.stderr


def test_committed_stub_is_what_the_generator_writes_for_this_build():
    from pyacl_hardgrad._build import gen_stubs
    committed = (ROOT / "pyacl_hardgrad" / STUB).read_text()
    assert gen_stubs.render() == committed, \
        f"pyacl_hardgrad/{STUB} is out of date: run python pyacl_hardgrad/_build/gen_stubs.py"


def test_the_package_is_installed_typed():
    import pyacl_hardgrad
    pkg = Path(pyacl_hardgrad.__file__).parent
    assert (pkg / "py.typed").is_file()
    for stub in (STUB, "_cffi_acl.pyi", "_fastcall.pyi"):
        assert (pkg / stub).read_text() == (ROOT / "pyacl_hardgrad" / stub).read_text(), stub


def test_stub_declares_every_generated_function_and_plan():
    from pyacl_hardgrad import ops
    tree = ast.parse((ROOT / "pyacl_hardgrad" / STUB).read_text())
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    made = {n for s in ops.operators().values() if s.source == "binding" for n in (s.function_name, s.plan_name)}
    assert made and made <= defined
    plans = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    for s in ops.operators().values():
        if s.source == "binding":
            assert [b.id for b in plans[s.plan_name].bases if isinstance(b, ast.Name)] == ["Plan"]
            assert issubclass(s.plan, ops.Plan)


def _type_checking_names(path: Path) -> set[str]:
    """The names bound (imported or annotated) under ``if TYPE_CHECKING:`` (or its alias
    ``_TYPE_CHECKING``, in the pyACL modules whose namespace is pyACL's) at a module's top level."""
    names: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and \
                node.test.id in ("TYPE_CHECKING", "_TYPE_CHECKING"):
            for stmt in node.body:
                if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                    names |= {a.asname or a.name for a in stmt.names if a.name != "*"}
                elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    names.add(stmt.target.id)
    return names


def test_type_checkers_see_every_name_the_package_loads_lazily():
    import pyacl_hardgrad
    visible = _type_checking_names(ROOT / "pyacl_hardgrad" / "__init__.py")
    assert set(pyacl_hardgrad._LAZY) == visible


@pytest.mark.parametrize("module", ["mdl", "media"])
def test_type_checkers_see_every_pyacl_function_made_from_a_table(module):
    mod = importlib.import_module(f"pyacl_hardgrad.acl.{module}")
    public = {n for n, v in vars(mod).items() if not n.startswith("_") and callable(v)}
    declared = _type_checking_names(ROOT / "pyacl_hardgrad" / "acl" / f"{module}.py")
    body = ast.parse((ROOT / "pyacl_hardgrad" / "acl" / f"{module}.py").read_text()).body
    defined = {n.name for n in body if isinstance(n, ast.FunctionDef)}
    defined |= {t.id for n in body if isinstance(n, ast.Assign) for t in n.targets
                if isinstance(t, ast.Name) and not t.id.startswith("_")}
    assert public == declared | defined


@needs_mypy
def test_package_passes_mypy_strict(tmp_path):
    proc = _mypy([], ROOT, tmp_path / ".mypy_cache")        # pyproject.toml: strict, the package
    assert proc.returncode == 0, proc.stdout + proc.stderr


@needs_ruff
def test_ruff_reports_nothing():
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "pyacl_hardgrad", "tests", "examples"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
