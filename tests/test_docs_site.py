"""The documentation site: it builds in strict mode (every warning an error), every page under
docs/ is part of it, and its API reference documents every public name of the package."""
from __future__ import annotations

import inspect
import re
import subprocess
import sys
import zlib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
DOCS = REPO_ROOT / "docs"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built once for this module, as .ci/run builds it: sphinx-build -W --keep-going."""
    pytest.importorskip("sphinx", reason="Sphinx is not installed (it is in the test extra)")
    pytest.importorskip("myst_parser", reason="myst-parser is not installed (it is in the test extra)")
    work = tmp_path_factory.mktemp("docs")
    out = work / "html"
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
           "-d", str(work / "doctrees"), str(DOCS), str(out)]
    # run outside the checkout, so the installed package is what autodoc imports
    proc = subprocess.run(cmd, cwd=str(work), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"the strict docs build failed:\n{proc.stderr}{proc.stdout}"
    return out


def test_the_site_builds_in_strict_mode_with_every_page(site: Path) -> None:
    assert (site / "index.html").is_file() and (site / "objects.inv").is_file()
    pages = sorted(p.relative_to(DOCS).with_suffix(".html") for p in DOCS.rglob("*")
                   if p.suffix in (".md", ".rst"))
    assert pages, "no pages under docs/"
    missing = [str(p) for p in pages if not (site / p).is_file()]
    assert not missing, f"pages under docs/ missing from the site: {missing}"


def _inventory(site: Path) -> dict[str, str]:
    """Python-domain entries of the built objects.inv (format 2): name -> role."""
    data = (site / "objects.inv").read_bytes()
    header = data.split(b"\n", 4)
    assert header[0] == b"# Sphinx inventory version 2", header[0]
    entries: dict[str, str] = {}
    for line in zlib.decompress(header[4]).decode().splitlines():
        m = re.fullmatch(r"(.+?)\s+(\S+):(\S+)\s+(-?\d+)\s+(\S*)\s+(.*)", line)
        assert m is not None, f"unreadable inventory line {line!r}"
        if m.group(2) == "py":
            entries[m.group(1)] = m.group(3)
    return entries


def _public_names(hg: ModuleType) -> dict[str, Any]:
    """Fully qualified name -> object of every public name: pyacl_hardgrad.__all__, the __all__ of
    each submodule listed there (ops: every operator function and plan class), and the public
    functions of pyacl_hardgrad.acl and its submodules (pyACL's layout has no __all__)."""
    names: dict[str, Any] = {}
    for name in hg.__all__:
        value = getattr(hg, name)
        names[f"pyacl_hardgrad.{name}"] = value
        module = sys.modules.get(f"pyacl_hardgrad.{name}")
        if module is not None and value is module and hasattr(module, "__all__"):
            names.update({f"{module.__name__}.{n}": getattr(module, n) for n in module.__all__})
    for module in (hg.acl, hg.acl.rt, hg.acl.util, hg.acl.mdl, hg.acl.media, hg.acl.prof):
        names[module.__name__] = module
        names.update({f"{module.__name__}.{n}": v for n, v in vars(module).items()
                      if not n.startswith("_") and callable(v) and not inspect.ismodule(v)})
    return names


def test_the_api_reference_documents_every_public_name(hg: ModuleType, site: Path) -> None:
    documented = _inventory(site)
    names = _public_names(hg)
    ops = hg.ops
    # the generated operator functions and plan classes are among them
    generated = [spec.function_name for spec in ops.operators().values()] + \
                [spec.plan_name for spec in ops.operators().values()]
    assert generated and all(f"pyacl_hardgrad.ops.{n}" in names for n in generated)
    assert len([n for n in names if n.startswith("pyacl_hardgrad.acl.rt.")]) > 50

    def covered(name: str, value: Any) -> bool:
        # a submodule's name of an object documented under its package-level name
        short = name.rsplit(".", 1)[-1]
        return name in documented or (f"pyacl_hardgrad.{short}" in documented and short in hg.__all__
                                       and getattr(hg, short) is value)

    missing = sorted(n for n, v in names.items() if not covered(n, v))
    assert not missing, f"public names the API reference does not document: {missing}"
    # modules are documented as modules, functions as functions, plans and handles as classes
    assert documented["pyacl_hardgrad.ops"] == "module" and documented["pyacl_hardgrad.acl.rt"] == "module"
    for name in generated:
        want = "class" if name.endswith("Plan") else "function"
        assert documented[f"pyacl_hardgrad.ops.{name}"] == want, name
    assert documented["pyacl_hardgrad.Tensor"] == "class"
    assert documented["pyacl_hardgrad.Tensor.from_device_pointer"] == "method"
    assert documented["pyacl_hardgrad.ClosedError"] == "exception"
