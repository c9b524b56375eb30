"""aclnn operator signatures read from their headers: what the generic call path is built from.

An aclnn operator is the pair ``aclnnXxxGetWorkspaceSize(<params>, uint64_t *workspaceSize,
aclOpExecutor **executor)`` (phase 1) and ``aclnnXxx(void *workspace, uint64_t workspaceSize,
aclOpExecutor *executor, aclrtStream stream)`` (phase 2).  :func:`operators` finds every such
pair in a header's text and describes each parameter of phase 1 by its kind:

  tensor   ``const aclTensor *``          scalar  ``const aclScalar *`` / ``aclScalar *``
  out      ``aclTensor *`` (non-const)    int / float / bool  a value passed as is

Standard library only: used by the build (ffi_build.py, on include/) and at run time (on the
headers of an installed CANN, for operators the binding was not compiled with).
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Iterable, Union

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_PHASE1 = re.compile(r"\b(aclnn\w+)GetWorkspaceSize\s*\(")
_INT_TYPES = {"int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
              "int", "unsigned", "unsigned int", "long", "long long", "size_t", "char", "signed char",
              "unsigned char", "short", "unsigned short", "aclDataType", "aclFormat"}
_FLOAT_TYPES = {"float", "double"}
_BOOL_TYPES = {"bool", "_Bool"}
VALUE_KINDS = ("int", "float", "bool")
HANDLE_KINDS = ("tensor", "out", "scalar")


def _strip(text: str) -> str:
    text = _COMMENT.sub(" ", text)
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


def _args_at(text: str, start: int) -> tuple[str, int]:
    """The text between the parenthesis opened at ``start - 1`` and its match."""
    depth, i = 1, start
    while i < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    return text[start:i - 1], i


def _normalise(ctype: str) -> str:
    ctype = " ".join(ctype.replace("*", " * ").split())
    return ctype.replace("* *", "**").replace(" *", " *")


def _param(text: str) -> tuple[str, str]:
    text = " ".join(text.split())
    m = re.match(r"^(.*?)([A-Za-z_]\w*)\s*(\[\s*\])?$", text)
    if not m or not m.group(1).strip():
        raise ValueError(f"cannot read parameter {text!r}")
    ctype = _normalise(m.group(1) + ("*" if m.group(3) else ""))
    return ctype, m.group(2)


def kind_of(ctype: str) -> str | None:
    """The parameter kind of a C type (see the module doc), None when not supported."""
    t = ctype.replace(" ", "")
    if t == "constaclTensor*":
        return "tensor"
    if t == "aclTensor*":
        return "out"
    if t in ("constaclScalar*", "aclScalar*"):
        return "scalar"
    plain = " ".join(ctype.replace("const ", "").split())
    if plain in _INT_TYPES:
        return "int"
    if plain in _FLOAT_TYPES:
        return "float"
    if plain in _BOOL_TYPES:
        return "bool"
    return None


def snake_case(name: str) -> str:
    """gradOutput -> grad_output, XxxBackwardV2 -> xxx_backward_v2."""
    s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    s = re.sub(r"(?<=[A-Z])(?=[A-Z][a-z])", "_", s)
    return s.lower()


def operators(text: str, header: str = "") -> tuple[list[dict[str, Any]], dict[str, str]]:
    """(operators, {name: why it is not offered}) declared in a header's text."""
    text = _strip(text)
    found, skipped = [], {}
    for m in _PHASE1.finditer(text):
        name = m.group(1)
        body, _ = _args_at(text, m.end())
        parts = [p.strip() for p in body.split(",") if p.strip()]
        try:
            params = [_param(p) for p in parts]
        except ValueError as exc:
            skipped[name] = str(exc)
            continue
        if len(params) < 2 or params[-2][0].replace(" ", "") != "uint64_t*" or \
                params[-1][0].replace(" ", "") != "aclOpExecutor**":
            skipped[name] = "phase 1 does not end in (uint64_t *workspaceSize, aclOpExecutor **executor)"
            continue
        if not re.search(rf"\b{name}\s*\(\s*void\s*\*\s*\w*\s*,\s*uint64_t\s+\w*\s*,\s*aclOpExecutor\s*\*\s*\w*\s*,"
                         rf"\s*(?:const\s+)?aclrtStream\s+\w*\s*\)", text):     # some CANN headers mark the stream const
            skipped[name] = f"no phase 2 {name}(void *, uint64_t, aclOpExecutor *, [const] aclrtStream) declared"
            continue
        described = []
        for ctype, pname in params[:-2]:
            kind = kind_of(ctype)
            if kind is None:
                skipped[name] = f"parameter {pname} of type {ctype} is not supported by the generic call"
                break
            described.append({"name": pname, "type": ctype, "kind": kind})
        else:
            found.append({"name": name, "header": header, "params": described})
    return found, skipped


def read_headers(paths: Iterable[Union[str, os.PathLike[str]]]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Every operator of the headers (first declaration wins), and those not offered."""
    ops, skipped, seen = [], {}, set()
    for path in paths:
        path = Path(path)
        found, why = operators(path.read_text(errors="replace"), path.name)
        for op in found:
            if op["name"] not in seen:
                seen.add(op["name"])
                ops.append(op)
        skipped.update({k: v for k, v in why.items() if k not in seen})
    return ops, skipped


def read_entries(folders: Iterable[Union[str, os.PathLike[str]]]) -> dict[str, dict[str, Any]]:
    """The ``functions`` entries of every ``op.json`` in the operator folders (name, doc,
    defaults, outputs overrides, result_dtype_alias), merged; folders without one contribute nothing."""
    out: dict[str, dict[str, Any]] = {}
    for folder in folders:
        f = Path(folder) / "op.json"
        if not f.is_file():
            continue
        data = json.loads(f.read_text())
        functions = data.get("functions", {}) if isinstance(data, dict) else {}
        if not isinstance(functions, dict):
            raise ValueError(f"{f}: 'functions' must be an object")
        for name, entry in functions.items():
            if not isinstance(entry, dict):
                raise ValueError(f"{f}: the entry of {name} must be an object")
            out.setdefault(name, {}).update(entry)
    return out
