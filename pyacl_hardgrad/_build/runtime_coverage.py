"""Write docs/runtime-coverage.md: every function of the public runtime headers and what the
embedded runtime does with it.

    python pyacl_hardgrad/_build/runtime_coverage.py [--lib DIR] [--cann ROOT] [--check]

The page is generated, never edited by hand.  Its facts come from three places:

  * the headers (include/acl/, the runtime's public headers, see HEADERS): every function each
    one declares, in declaration order;
  * the embedded runtime's C sources: a function defined through ``HG_UNSUPPORTED(name, why, ...)``
    or ``HG_UNSUPPORTED_VALUE(type, name, why, ...)`` (runtime/unsupported.h) answers
    ACL_ERROR_RT_FEATURE_NOT_SUPPORT (207000) with the reason text ``why`` names; every other
    declared function is implemented ("works");
  * with ``--lib DIR``: the libraries' exported symbols (``nm -D``), so a declared function no
    library exports is reported (exit status 1) instead of being listed as working.

``--cann ROOT`` (an include root of CANN's headers, e.g. include/external of CANN's runtime
repository) adds the functions CANN declares and ours do not.  ``--check`` compares the page with
the committed one and exits 1 when it is stale.
"""
from __future__ import annotations

import argparse
import importlib.util
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from pycparser import c_ast, c_parser

ROOT = Path(__file__).resolve().parents[2]
INCLUDE_DIR = ROOT / "include"
SOURCES_DIR = ROOT / "pyacl_hardgrad" / "_embedded"
PAGE = ROOT / "docs" / "runtime-coverage.md"

# The public runtime headers, in the order the page lists them; a header missing from the
# include root is left out.
HEADERS = (
    "acl/acl_base_rt.h",
    "acl/acl_rt.h",
    "acl/acl_rt_allocator.h",
    "acl/acl_rt_memory_soma.h",
    "acl/acl_tdt.h",
    "acl/acl_tdt_queue.h",
    "acl/acl_dump.h",
    "acl/acl_prof.h",
)

_MARKER_RE = re.compile(r"\bHG_UNSUPPORTED\s*\(\s*(\w+)\s*,\s*(\w+)\s*,"
                        r"|\bHG_UNSUPPORTED_VALUE\s*\(\s*[^,]+,\s*(\w+)\s*,\s*(\w+)\s*,")
_REASON_RE = re.compile(r"static\s+const\s+char\s*\*\s*const\s+(\w+)\s*=\s*((?:\"(?:[^\"\\]|\\.)*\"\s*)+);")
_STRING_RE = re.compile(r"\"((?:[^\"\\]|\\.)*)\"")


@dataclass
class Coverage:
    """What the page says: per header its functions, and the reason of each unsupported one."""

    functions: dict[str, list[str]] = field(default_factory=dict)  # header -> names in order
    unsupported: dict[str, str] = field(default_factory=dict)      # name -> reason text
    missing_exports: list[str] = field(default_factory=list)       # declared, exported by no library
    cann_only: dict[str, list[str]] = field(default_factory=dict)  # header -> names CANN declares, ours not

    def total(self) -> int:
        return sum(len(v) for v in self.functions.values())


def _check_headers() -> ModuleType:
    """_build/check_headers.py (its preprocessing), loaded by path: the build runs this file
    outside the package."""
    spec = importlib.util.spec_from_file_location("_hg_check_headers", Path(__file__).with_name("check_headers.py"))
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def declared_functions(include_root: Path, header: str) -> list[str]:
    """The functions `header` itself declares (not those of the headers it includes), in order."""
    ch = _check_headers()
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in ch._FAKE_SYSTEM.items():
            (Path(tmp) / name).write_text(text)
        cmd = ch._cc() + ["-E", "-x", "c", "-nostdinc", "-U__GNUC__", "-U__clang__", f"-I{tmp}",
                          f"-I{include_root}", f"-I{include_root / 'acl'}", "-"]
        proc = subprocess.run(cmd, input=f'#include "{header}"\n', capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"preprocessing {header} under {include_root} failed:\n{proc.stderr}")
    text = ch._drop_attributes(proc.stdout)
    text = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("constexpr"))
    ast = c_parser.CParser().parse(ch.cxx_enum_tags_as_types(text), header)
    target = (include_root / header).resolve()
    out: list[str] = []
    for ext in ast.ext:
        if isinstance(ext, c_ast.Decl) and isinstance(ext.type, c_ast.FuncDecl) and ext.coord is not None \
                and Path(ext.coord.file).resolve() == target and ext.name not in out:
            out.append(ext.name)
    return out


def _c_string(literals: str) -> str:
    return "".join(m.group(1) for m in _STRING_RE.finditer(literals)).replace('\\"', '"')


def unsupported_functions(sources_dir: Path = SOURCES_DIR) -> dict[str, str]:
    """Every function defined by HG_UNSUPPORTED / HG_UNSUPPORTED_VALUE under sources_dir, with the
    text of the reason constant it names (a constant of the same file)."""
    out: dict[str, str] = {}
    for path in sorted(sources_dir.rglob("*.c")):
        text = path.read_text()
        reasons = {m.group(1): _c_string(m.group(2)) for m in _REASON_RE.finditer(text)}
        for m in _MARKER_RE.finditer(text):
            name, why = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            if why not in reasons:
                raise RuntimeError(f"{path}: {name} names the reason {why}, which is no "
                                   f"`static const char *const` string of that file")
            out[name] = reasons[why]
    return out


def exported_symbols(lib_dir: Path) -> set[str]:
    """Functions the shared libraries in lib_dir export (defined, dynamic symbol table)."""
    out: set[str] = set()
    libs = sorted(lib_dir.glob("*.so"))
    if not libs:
        raise FileNotFoundError(f"no shared libraries in {lib_dir}")
    for lib in libs:
        proc = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True, text=True, check=True)
        for line in proc.stdout.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in ("T", "W", "i"):
                out.add(parts[2])
    return out


def collect(include_dir: Path = INCLUDE_DIR, sources_dir: Path = SOURCES_DIR, lib_dir: Path | None = None,
            cann_root: Path | None = None) -> Coverage:
    cov = Coverage()
    for header in HEADERS:
        if (include_dir / header).is_file():
            cov.functions[header] = declared_functions(include_dir, header)
    cov.unsupported = unsupported_functions(sources_dir)
    if lib_dir is not None:
        exports = exported_symbols(lib_dir)
        cov.missing_exports = [f for names in cov.functions.values() for f in names if f not in exports]
    if cann_root is not None:
        ours = {f for names in cov.functions.values() for f in names}
        for header in HEADERS:
            if (cann_root / header).is_file():
                only = [f for f in declared_functions(cann_root, header) if f not in ours]
                if only:
                    cov.cann_only[header] = only
    return cov


def render(cov: Coverage) -> str:
    n_unsup = sum(1 for names in cov.functions.values() for f in names if f in cov.unsupported)
    total = cov.total()
    lines = [
        "# Runtime API coverage",
        "",
        "<!-- Generated by pyacl_hardgrad/_build/runtime_coverage.py from include/acl/ and the embedded",
        "     runtime's sources; do not edit (tests/test_runtime_coverage.py checks it is current). -->",
        "",
        "Every function of the public runtime headers under `include/acl/` (declared with CANN's names,",
        "values and prototypes) and what the embedded runtime does with it: **works** (implemented on",
        "the CPU as on an NPU), or **207000**: it returns `ACL_ERROR_RT_FEATURE_NOT_SUPPORT`, sets the",
        "thread's last error, and `aclGetRecentErrMsg` names the function and gives the reason below.",
        "Every function listed is exported by the embedded libraries.",
        "",
        f"**{total} functions** in {len(cov.functions)} headers: {total - n_unsup} work, {n_unsup} answer 207000.",
        "The header checker (`pyacl_hardgrad/_build/check_headers.py`) reports the same count on its",
        "`acl functions` line.",
        "",
        "| Header | Functions | Works | 207000 |",
        "|---|---:|---:|---:|",
    ]
    for header, names in cov.functions.items():
        u = sum(1 for f in names if f in cov.unsupported)
        lines.append(f"| `{header}` | {len(names)} | {len(names) - u} | {u} |")
    lines.append("")
    for header, names in cov.functions.items():
        lines += [f"## {header}", "", "| Function | Status |", "|---|---|"]
        for f in names:
            why = cov.unsupported.get(f)
            lines.append(f"| `{f}` | {'works' if why is None else '207000: ' + why.replace('|', '/')} |")
        lines.append("")
    if cov.cann_only:
        lines += ["## Declared by CANN only", ""]
        for header, names in cov.cann_only.items():
            lines.append(f"- `{header}`: {', '.join(f'`{f}`' for f in names)}")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--lib", type=Path, help="folder of the built libraries (checks every function is exported)")
    ap.add_argument("--cann", type=Path, help="an include root of CANN's headers (lists what only CANN declares)")
    ap.add_argument("--out", type=Path, default=PAGE, help="the page to write (default: docs/runtime-coverage.md)")
    ap.add_argument("--check", action="store_true", help="compare with --out instead of writing it")
    args = ap.parse_args(argv)
    cov = collect(lib_dir=args.lib, cann_root=args.cann)
    status = 0
    for f in cov.missing_exports:
        print(f"declared but exported by no library: {f}", file=sys.stderr)
        status = 1
    page = render(cov)
    if args.check:
        if not args.out.is_file() or args.out.read_text() != page:
            print(f"{args.out} is stale: rerun {Path(__file__).name}", file=sys.stderr)
            return 1
    else:
        args.out.write_text(page)
    print(f"{cov.total()} functions, {sum(1 for f in cov.unsupported if any(f in v for v in cov.functions.values()))}"
          f" answer 207000")
    return status


if __name__ == "__main__":
    sys.exit(main())
