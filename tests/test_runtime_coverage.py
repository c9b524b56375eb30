"""docs/runtime-coverage.md and what it states: the committed page is the generator's current
output; every function of the public runtime headers is exported by the embedded libraries; the
header checker counts the same functions; and every function the page lists as 207000 answers
ACL_ERROR_RT_FEATURE_NOT_SUPPORT with its name and reason when called with zero / NULL
arguments (a C program generated from the headers' prototypes calls each one)."""
from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from pycparser import c_ast, c_generator, c_parser

REPO = Path(__file__).resolve().parents[1]
BUILD = REPO / "pyacl_hardgrad" / "_build"
FEATURE_NOT_SUPPORT = 207000


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_hg_test_{name}", BUILD / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def coverage_mod() -> ModuleType:
    return _load("runtime_coverage")


@pytest.fixture(scope="module")
def coverage(coverage_mod: ModuleType) -> Any:
    return coverage_mod.collect()


def test_the_committed_coverage_page_is_the_generators_output(coverage_mod: ModuleType, coverage: Any) -> None:
    page = coverage_mod.PAGE.read_text()
    assert page == coverage_mod.render(coverage), \
        "docs/runtime-coverage.md is stale: run python pyacl_hardgrad/_build/runtime_coverage.py"


def test_every_declared_runtime_function_is_exported(coverage_mod: ModuleType, toolchain: Any) -> None:
    cov = coverage_mod.collect(lib_dir=Path(toolchain.library_dir))
    assert cov.missing_exports == []
    assert cov.total() > 400


def test_the_header_checker_counts_the_pages_functions(coverage: Any) -> None:
    checker = _load("check_headers")
    listed = {f for names in coverage.functions.values() for f in names}
    assert checker.acl_functions([REPO / "include"]) == listed


def test_the_page_is_in_the_documentation_toctree() -> None:
    assert re.search(r"^runtime-coverage$", (REPO / "docs" / "index.md").read_text(), re.M)


def test_every_unsupported_marker_names_a_declared_function(coverage: Any) -> None:
    listed = {f for names in coverage.functions.values() for f in names}
    # the markers of other libraries' headers (none today) would show here first
    assert set(coverage.unsupported) <= listed


def _prototypes(include_dir: Path, headers: list[str]) -> dict[str, c_ast.Decl]:
    pre = "".join(f"typedef int {t};\n" for t in ("int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
                                                  "uint32_t", "uint64_t", "size_t", "intptr_t", "uintptr_t"))
    text = subprocess.run(["cc", "-E", "-P", "-DPYACL_HARDGRAD_CDEF", f"-I{include_dir}", "-x", "c", "-"],
                          input="".join(f'#include "{h}"\n' for h in headers), capture_output=True, text=True,
                          check=True).stdout
    ast = c_parser.CParser().parse(pre + text)
    return {e.name: e for e in ast.ext if isinstance(e, c_ast.Decl) and isinstance(e.type, c_ast.FuncDecl)}


def _call_program(protos: dict[str, c_ast.Decl], calls: dict[str, str], headers: list[str]) -> str:
    """A C program calling each function with zero arguments and printing `name<TAB>return`."""
    gen = c_generator.CGenerator()
    body = []
    for name, why in calls.items():
        decl = protos[name]
        params = list(decl.type.args.params) if decl.type.args is not None else []
        if len(params) == 1 and gen.visit(params[0]).strip() == "void":
            params = []
        lines, args = [], []
        for i, p in enumerate(params):
            q = c_ast.Decl(f"a{i}", p.quals, None, p.storage, p.funcspec, p.type, None, None)
            node: Any = q.type
            while not isinstance(node, c_ast.TypeDecl):
                node = node.type
            node.declname = f"a{i}"
            lines.append(f"        {gen.visit(q)} = {{0}};")
            args.append(f"a{i}")
        ret = gen.visit(decl.type.type).replace(name, "").strip()
        call = f"{name}({', '.join(args)})"
        if ret == "void":
            lines.append(f"        {call}; long long r = -1;")
        elif "*" in ret:
            lines.append(f"        long long r = {call} == NULL ? -1 : 1;")
        else:
            lines.append(f"        long long r = (long long){call};")
        lines.append(f'        report("{name}", r, {json.dumps(why)});')
        body.append("    {\n" + "\n".join(lines) + "\n    }")
    return ("#include <stdio.h>\n#include <string.h>\n"
            + "".join(f'#include "{h}"\n' for h in headers)
            + "static int bad;\n"
            "static void report(const char *name, long long r, const char *why)\n{\n"
            "    const char *m = aclGetRecentErrMsg();\n"
            "    aclError last = aclrtGetLastError(ACL_RT_THREAD_LEVEL);\n"
            "    int ok = m != NULL && strstr(m, name) != NULL && strstr(m, why) != NULL;\n"
            f"    if (!ok || last != {FEATURE_NOT_SUPPORT}) {{ bad++; "
            "printf(\"BAD %s returned %lld, last error %d, text %s\\n\", name, r, (int)last, m ? m : \"(null)\"); }\n"
            "    printf(\"%s\\t%lld\\n\", name, r);\n}\n"
            "#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"\n"
            "int main(void)\n{\n" + "\n".join(body) + "\n    printf(\"done %d\\n\", bad);\n    return bad != 0;\n}\n")


def test_every_207000_function_answers_with_its_name_and_reason(coverage: Any, cprog: Any, tmp_path: Path) -> None:
    headers = list(coverage.functions)
    protos = _prototypes(REPO / "include", headers)
    calls = {f: why for names in coverage.functions.values() for f in names
             if (why := coverage.unsupported.get(f)) is not None}
    assert len(calls) > 100
    src = tmp_path / "unsupported_calls.c"
    src.write_text(_call_program(protos, calls, headers))
    exe = cprog.build(src)
    proc = cprog.run(exe)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    results = dict(line.split("\t") for line in proc.stdout.splitlines() if "\t" in line)
    assert set(results) == set(calls)
    for name, r in results.items():
        ret = protos[name].type.type
        if isinstance(ret, c_ast.TypeDecl) and getattr(ret.type, "names", None) == ["aclError"]:
            assert int(r) == FEATURE_NOT_SUPPORT, name
        elif "*" in c_generator.CGenerator().visit(ret):
            assert int(r) == -1, f"{name} returned a non-NULL pointer"
