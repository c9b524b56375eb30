"""Compare our headers (include/) with CANN's public headers, declaration by declaration.

    python pyacl_hardgrad/_build/check_headers.py --cann ROOT [--cann ROOT ...] [--ours DIR]

Each ROOT is an include root of CANN's headers (the folder holding acl/, or aclnn/ and
opdev/: for CANN's runtime repository that is include/external, for opbase
include/nnopbase, for an install <cann>/include).  Both sides are preprocessed as C the
same way (system headers replaced by a few typedefs, compiler attributes off) and parsed;
then, for every name both sides declare, it compares

  * functions: return and parameter types (parameter names do not count; ``()`` and
    ``(void)`` are the same),
  * constants: integer macros and ``static const`` integers, by value (a macro on one side
    and a ``static const`` on the other is the same constant),
  * enums: every enumerator and its value, in both directions,
  * typedefs: the type named, and for structs and unions every member (name and type).

  * the include chain: every name CANN's header H makes reachable (H alone included) and
    ours declares must be reachable from our H too.

It prints one line per difference and a summary, and exits 1 when there is any difference.
Names only one side declares are counted, not compared (ours is a subset of CANN's API).
Needs pycparser (installed with cffi).
"""
from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from pycparser import c_ast, c_generator, c_parser

OURS = Path(__file__).resolve().parents[2] / "include"

# The headers a CANN program includes; those missing under a root are left out.
UMBRELLA = (
    "acl/acl.h",
    "acl/acl_base.h",
    "acl/acl_rt.h",
    "acl/acl_rt_allocator.h",
    "acl/acl_rt_memory_soma.h",
    "acl/acl_tdt.h",
    "acl/acl_tdt_queue.h",
    "acl/acl_dump.h",
    "acl/acl_prof.h",
    "acl/error_codes/rt_error_codes.h",
    "acl/error_codes/ge_error_codes.h",
    "opdev/op_errno.h",
    "aclnn/acl_meta.h",
    "aclnn/aclnn_base.h",
)

# Stand-ins for the system headers (both sides see the same ones).
_FAKE_SYSTEM = {
    "stdint.h": "typedef signed char int8_t; typedef short int16_t; typedef int int32_t;"
                " typedef long int64_t; typedef unsigned char uint8_t; typedef unsigned short uint16_t;"
                " typedef unsigned int uint32_t; typedef unsigned long uint64_t;"
                " typedef long intptr_t; typedef unsigned long uintptr_t;\n",
    "stddef.h": "typedef unsigned long size_t; typedef long ptrdiff_t;\n#define NULL ((void *)0)\n",
    "stdbool.h": "#define bool _Bool\n#define true 1\n#define false 0\n",
    "stdlib.h": "#include <stddef.h>\n",
}
_FAKE_SYSTEM["cstdint"] = '#include <stdint.h>\n#include <stdbool.h>\n'
_FAKE_SYSTEM["cstdlib"] = '#include <stdlib.h>\n'
_FAKE_SYSTEM["cstddef"] = '#include <stddef.h>\n'

_INT_RE = re.compile(r"^\(?\s*(-?\s*(?:0[xX][0-9a-fA-F]+|\d+))\s*[uUlL]*\s*\)?$")


class Side:
    """What one set of headers declares."""

    def __init__(self, label: str):
        self.label = label
        self.functions: dict[str, str] = {}
        self.constants: dict[str, int] = {}
        self.enums: dict[str, dict[str, int]] = {}
        self.typedefs: dict[str, str] = {}
        self.headers: list[str] = []


def _cc() -> list[str]:
    return shlex.split(os.environ.get("CC", "cc"))


def _preprocess(roots: list[Path], headers: list[str], fake: Path, macros_only: bool) -> str:
    umbrella = "".join(f'#include "{h}"\n' for h in headers)
    cmd = _cc() + ["-E", "-P", "-x", "c", "-nostdinc", "-U__GNUC__", "-U__clang__", f"-I{fake}"]
    cmd += [f"-I{r}" for r in roots]
    if macros_only:
        cmd.append("-dM")
    cmd.append("-")
    proc = subprocess.run(cmd, input=umbrella, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"preprocessing {headers} under {roots} failed:\n{proc.stderr}")
    return proc.stdout


def _drop_attributes(text: str) -> str:
    """Remove __attribute__((...)) / __declspec(...) (balanced parentheses), which the
    parser does not take and which do not change a declaration's type."""
    out, i = [], 0
    for m in re.finditer(r"__attribute__|__declspec", text):
        if m.start() < i:
            continue
        j = m.end()
        while j < len(text) and text[j].isspace():
            j += 1
        if j >= len(text) or text[j] != "(":
            continue
        depth, k = 0, j
        while k < len(text):
            depth += text[k] == "("
            depth -= text[k] == ")"
            k += 1
            if depth == 0:
                break
        out.append(text[i:m.start()])
        i = k
    out.append(text[i:])
    return "".join(out)


_CXX_ENUM_RE = re.compile(r"^enum\s+([A-Za-z_]\w*)\s*\{(.*?)\}\s*;", re.M | re.S)


def cxx_enum_tags_as_types(text: str) -> str:
    """C++ lets an enum's tag name its type (``enum X {...};`` then ``X x``); a few of CANN's
    headers rely on it.  Rewrite each such top-level enum as ``typedef enum X {...} X;``, the C
    spelling of the same declaration, so the parser takes both sides alike."""
    return _CXX_ENUM_RE.sub(lambda m: f"typedef enum {m.group(1)} {{{m.group(2)}}} {m.group(1)};", text)


def _eval_int(node: c_ast.Node, known: dict[str, int]) -> int | None:
    if isinstance(node, c_ast.Constant) and node.type in ("int", "unsigned int", "long int", "unsigned long int",
                                                           "long long int", "unsigned long long int"):
        return int(node.value.rstrip("uUlL"), 0)
    if isinstance(node, c_ast.Constant):
        m = _INT_RE.match(node.value)
        return int(m.group(1).replace(" ", ""), 0) if m else None
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+", "~"):
        v = _eval_int(node.expr, known)
        if v is None:
            return None
        return -v if node.op == "-" else (~v if node.op == "~" else v)
    if isinstance(node, c_ast.BinaryOp):
        a, b = _eval_int(node.left, known), _eval_int(node.right, known)
        if a is None or b is None:
            return None
        ops = {"|": a | b, "&": a & b, "+": a + b, "-": a - b, "<<": a << b if b >= 0 else None,
               "*": a * b}
        return ops.get(node.op)
    if isinstance(node, c_ast.ID):
        return known.get(node.name)
    if isinstance(node, c_ast.Cast):
        return _eval_int(node.expr, known)
    return None


def _strip_names(node: c_ast.Node) -> c_ast.Node:
    """A copy of a type with declarator and parameter names removed."""
    import copy

    node = copy.deepcopy(node)

    def visit(n: c_ast.Node) -> None:
        if isinstance(n, c_ast.TypeDecl):
            n.declname = None
        if isinstance(n, c_ast.Decl):
            n.name = None
        for _, child in n.children():
            visit(child)
    visit(node)
    return node


_GEN = c_generator.CGenerator()


def _norm(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s*([(),*\[\]])\s*", r"\1", text)
    return text.replace("(void)", "()")


def _type_text(node: c_ast.Node) -> str:
    return _norm(_GEN.visit(_strip_names(node)))


def _record_enum(side: Side, name: str | None, enum: c_ast.Enum, known: dict[str, int]) -> None:
    members: dict[str, int] = {}
    nxt = 0
    for e in (enum.values.enumerators if enum.values else []):
        v = _eval_int(e.value, {**known, **members}) if e.value is not None else nxt
        if v is None:
            v = nxt
        members[e.name] = v
        nxt = v + 1
    known.update(members)
    key = name or enum.name
    if key:
        side.enums[key] = members


def _struct_text(node: c_ast.Node) -> str:
    """struct/union tag plus each member's name and type."""
    kind = "struct" if isinstance(node, c_ast.Struct) else "union"
    if node.decls is None:
        return f"{kind} {node.name} (incomplete)"
    fields = []
    for d in node.decls:
        fields.append(f"{d.name}:{_type_text(d.type)}")
    return f"{kind} {node.name or ''} {{{'; '.join(fields)}}}"


def _typedef_text(td: c_ast.Typedef) -> str | None:
    """None for enum typedefs (compared as enums)."""
    t = td.type
    if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.Enum):
        return None
    if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, (c_ast.Struct, c_ast.Union)):
        return _struct_text(t.type)
    return _type_text(t)


_FAKE_NAMES = {"true", "false", "bool", "NULL"}


def _names(side: Side) -> set[str]:
    return (set(side.functions) | set(side.constants) | set(side.typedefs) | set(side.enums)) - _FAKE_NAMES


def collect(roots: list[Path], label: str, only: str | None = None) -> Side:
    side = Side(label)
    headers = [h for h in UMBRELLA if any((r / h).is_file() for r in roots)]
    if only is not None:
        headers = [only] if only in headers else []
        if not headers:
            return side
    side.headers = headers
    if not headers:
        raise FileNotFoundError(f"none of {', '.join(UMBRELLA)} under {', '.join(map(str, roots))}")
    with tempfile.TemporaryDirectory() as tmp:
        fake = Path(tmp)
        for name, text in _FAKE_SYSTEM.items():
            (fake / name).write_text(text)
        text = _preprocess(roots, headers, fake, macros_only=False)
        macros = _preprocess(roots, headers, fake, macros_only=True)
    for line in macros.splitlines():
        m = re.match(r"#define\s+([A-Za-z_]\w*)\s+(.+)$", line)
        if m and not m.group(1).startswith("__"):
            mv = _INT_RE.match(m.group(2).strip())
            if mv:
                side.constants[m.group(1)] = int(mv.group(1).replace(" ", ""), 0)
    text = _drop_attributes(text)
    # C++-only lines CANN's C-compatible parts are mixed with
    text = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("constexpr"))
    text = cxx_enum_tags_as_types(text)
    ast = c_parser.CParser().parse(text, "<headers>")
    known: dict[str, int] = dict(side.constants)
    for ext in ast.ext:
        if isinstance(ext, c_ast.Typedef):
            inner = ext.type.type if isinstance(ext.type, c_ast.TypeDecl) else None
            if isinstance(inner, c_ast.Enum):
                _record_enum(side, ext.name, inner, known)
            tt = _typedef_text(ext)
            if tt is not None:
                side.typedefs[ext.name] = tt
        elif isinstance(ext, c_ast.Decl):
            if isinstance(ext.type, c_ast.FuncDecl):
                side.functions[ext.name] = _type_text(ext.type)
            elif isinstance(ext.type, c_ast.Enum):
                _record_enum(side, None, ext.type, known)
            elif ext.name and ext.init is not None and "static" in (ext.storage or []):
                v = _eval_int(ext.init, known)
                if v is not None:
                    side.constants[ext.name] = v
                    known[ext.name] = v
            elif isinstance(ext.type, (c_ast.Struct, c_ast.Union)) and ext.type.name:
                side.typedefs[f"{'struct' if isinstance(ext.type, c_ast.Struct) else 'union'} {ext.type.name}"] = \
                    _struct_text(ext.type)
    return side


def acl_functions(roots: list[Path]) -> set[str]:
    """Every function a header under acl/ makes reachable (the runtime's API, not aclnn's)."""
    out: set[str] = set()
    for header in UMBRELLA:
        if header.startswith("acl/") and any((r / header).is_file() for r in roots):
            out |= set(collect(roots, "acl", header).functions)
    return out


def compare(cann: Side, ours: Side) -> tuple[list[str], dict[str, tuple[int, int]]]:
    diffs: list[str] = []
    stats: dict[str, tuple[int, int]] = {}
    for kind in ("functions", "constants", "typedefs"):
        a, b = getattr(cann, kind), getattr(ours, kind)
        shared = sorted(set(a) & set(b))
        for name in shared:
            if a[name] != b[name]:
                diffs.append(f"{kind[:-1]} {name}: CANN {a[name]!r} / ours {b[name]!r}")
        stats[kind] = (len(shared), len(set(a) - set(b)))
    shared = sorted(set(cann.enums) & set(ours.enums))
    for name in shared:
        a, b = cann.enums[name], ours.enums[name]
        for member in sorted(set(a) | set(b)):
            if member not in b:
                diffs.append(f"enum {name}: {member} = {a[member]} is missing in ours")
            elif member not in a:
                diffs.append(f"enum {name}: {member} = {b[member]} is not in CANN's")
            elif a[member] != b[member]:
                diffs.append(f"enum {name}: {member} is {a[member]} in CANN, {b[member]} in ours")
    stats["enums"] = (len(shared), len(set(cann.enums) - set(ours.enums)))
    return diffs, stats


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cann", action="append", required=True, type=Path,
                    help="an include root of CANN's headers (repeat for several)")
    ap.add_argument("--ours", type=Path, default=OURS, help="our include root (default: include/)")
    args = ap.parse_args(argv)
    cann = collect(args.cann, "CANN")
    ours = collect([args.ours], "ours")
    diffs, stats = compare(cann, ours)
    # the include chain: what a program reaches from each single header
    ours_all = _names(ours)
    for header in cann.headers:
        if header not in ours.headers:
            diffs.append(f"header {header}: CANN has it, ours does not")
            continue
        reach_cann = _names(collect(args.cann, "CANN", header))
        reach_ours = _names(collect([args.ours], "ours", header))
        lost = sorted((reach_cann & ours_all) - reach_ours)
        if lost:
            diffs.append(f"header {header}: reaches {', '.join(lost[:8])}{' ...' if len(lost) > 8 else ''} in CANN, "
                         f"not in ours ({len(lost)} names)")
    stats["headers"] = (len(cann.headers), 0)
    # the runtime's functions: what the acl/ headers declare (docs/runtime-coverage.md counts the same)
    acl_ours = acl_functions([args.ours])
    acl_cann = acl_functions(args.cann)
    for d in diffs:
        print(f"DIFF {d}")
    print(f"CANN headers: {', '.join(cann.headers)}")
    for kind, (n, only) in stats.items():
        print(f"{kind:10s} compared {n:4d}  (CANN only: {only})")
    print(f"acl functions: {len(acl_ours)} declared by ours, {len(acl_cann)} by CANN "
          f"({len(acl_cann - acl_ours)} CANN only)")
    print(f"{len(diffs)} difference(s)")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
