"""The operator registry (pyacl_hardgrad/_embedded/opapi/ops/operators.txt) for the tests.

Importing this module puts every registered folder's tests/ on sys.path, so its numeric
model module ``<folder>_model`` can be imported by the shared tests, which are parametrized
over ``operators()`` and never name an operator themselves.
"""
from __future__ import annotations

import importlib
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
OPS_DIR = REPO_ROOT / "pyacl_hardgrad" / "_embedded" / "opapi" / "ops"
REGISTRY = OPS_DIR / "operators.txt"


def operators() -> list[str]:
    """The registered operator folders, in registry order."""
    out = []
    for line in REGISTRY.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            out.append(line)
    return out


def folder(name: str) -> Path:
    return OPS_DIR / name


def model(name: str):
    """The folder's numeric model module (tests/<folder>_model.py)."""
    return importlib.import_module(f"{name}_model")


def cases():
    """Every registered operator's numeric cases (hg_cases.Case), in registry order."""
    out = []
    for name in operators():
        out += list(getattr(model(name), "NUMERIC_CASES", ()))
    return out


def one_case_per_function():
    """The first numeric case of every aclnn function, in registry order."""
    seen, out = set(), []
    for c in cases():
        if c.func not in seen:
            seen.add(c.func)
            out.append(c)
    return out


for _name in operators():
    _p = str(OPS_DIR / _name / "tests")
    if _p not in sys.path:
        sys.path.insert(0, _p)
