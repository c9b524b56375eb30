"""cffi build of ``pyacl_hardgrad._cffi_hccl``: the binding of HCCL's C API (``include/hccl/``).

A module of its own, apart from ``_cffi_acl``, so that the collectives' libraries (libhccl.so and,
from CANN 9 on, libhcomm.so) are opened only when ``hg.hccl`` is first used: a CANN install without
HCCL, or a build without it, still imports the package.

As for ``_cffi_acl``, the declarations come from the headers, never retyped: include/hccl/*.h are
run through the C preprocessor (with ``PYACL_HARDGRAD_CDEF``, keeping line markers), pycparser
reads the result, and the cdef gets every type declaration (HCCL's and the few of acl/ its
prototypes use, such as ``aclrtStream``) and the functions declared in include/hccl only.  Each
function is called through a pointer that ``hgh_bind`` fills by ``dlsym`` from the handles given in
order (libhccl.so first, then libhcomm.so); one missing stays a stub of the same signature that
returns HCCL_E_NOT_SUPPORT and records its name, and the preamble checks each stub against the real
prototype.  The headers' static inline ``HcclCommConfigInit`` (left out under
``PYACL_HARDGRAD_CDEF``) is reached through a wrapper compiled here.
"""
from __future__ import annotations

import copy
import os
import re
import shlex
import subprocess
from pathlib import Path

from cffi import FFI
import pycparser
from pycparser import c_ast, c_generator

ROOT = Path(__file__).resolve().parents[2]
INCLUDE_DIR = ROOT / "include"
HCCL_DIR = INCLUDE_DIR / "hccl"
MODULE_NAME = "pyacl_hardgrad._cffi_hccl"

_DEFINE_RE = re.compile(
    r"^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)\s+\(?\s*(-?(?:0[xX][0-9a-fA-F]+|\d+))[uUlL]*\s*\)?\s*$", re.M)
# GCC's line markers carry flags after the file name that pycparser does not read
_LINE_MARKER_RE = re.compile(r'^(#\s*\d+\s+"[^"]*")(?:\s+\d+)*\s*$', re.M)
_PYCPARSER_PRELUDE = "".join(
    f"typedef int {t};\n" for t in ("int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
                                     "uint32_t", "uint64_t", "size_t", "intptr_t", "uintptr_t", "bool"))
# HcclCommConfigInit is a static inline of the headers (left out of what cffi reads): a wrapper
# compiled here calls it when the headers define it
_CONFIG_INIT_RE = re.compile(r"\bstatic\s+inline\s+void\s+HcclCommConfigInit\s*\(")


def headers(include_dir: Path = INCLUDE_DIR) -> tuple[str, ...]:
    """include/hccl/*.h relative to include/, hccl.h first (it includes the others)."""
    names = sorted(p.name for p in (include_dir / "hccl").glob("*.h"))
    if not names:
        raise RuntimeError(f"no HCCL headers in {include_dir / 'hccl'}")
    names.sort(key=lambda n: n != "hccl.h")
    return tuple(f"hccl/{n}" for n in names)


def preprocessed(include_dir: Path = INCLUDE_DIR) -> str:
    """The HCCL headers preprocessed as C, with line markers naming each declaration's file."""
    umbrella = "".join(f'#include "{h}"\n' for h in headers(include_dir))
    cc = shlex.split(os.environ.get("CC", "cc"))
    proc = subprocess.run(cc + ["-E", "-DPYACL_HARDGRAD_CDEF", f"-I{include_dir}", "-x", "c", "-"],
                          input=umbrella, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"preprocessing include/hccl failed:\n{proc.stderr}")
    return _LINE_MARKER_RE.sub(r"\1", proc.stdout)


def _in_hccl(node: c_ast.Node, include_dir: Path) -> bool:
    where = Path(str(node.coord.file)) if node.coord is not None else None
    if where is None:
        return False
    try:
        where.resolve().relative_to((include_dir / "hccl").resolve())
        return True
    except ValueError:
        return False


def _strip_inits(node: c_ast.Node) -> c_ast.Node:
    """A declaration without initializers or storage (cffi's cdef takes only the declaration)."""
    node = copy.deepcopy(node)
    if isinstance(node, c_ast.Decl):
        node.init = None
        node.storage = [s for s in node.storage if s != "static"]
    return node


def has_config_init(include_dir: Path = INCLUDE_DIR) -> bool:
    """Whether the headers define HcclCommConfigInit (CANN's do, as a static inline)."""
    return any(_CONFIG_INIT_RE.search(p.read_text()) for p in (include_dir / "hccl").glob("*.h"))


def read(include_dir: Path = INCLUDE_DIR) -> tuple[str, list[c_ast.Decl]]:
    """(cdef type declarations, HCCL function declarations)."""
    text = preprocessed(include_dir)
    ast = pycparser.CParser().parse(_PYCPARSER_PRELUDE + text, "<hccl>")
    gen = c_generator.CGenerator()
    types: list[str] = []
    funcs: list[c_ast.Decl] = []
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef):
            continue
        if not isinstance(ext, c_ast.Decl) and not isinstance(ext, c_ast.Typedef):
            continue
        if isinstance(ext, c_ast.Decl) and isinstance(ext.type, c_ast.FuncDecl):
            if _in_hccl(ext, include_dir):
                funcs.append(ext)
            continue
        if ext.coord is not None and str(ext.coord.file) == "<hccl>":
            continue                            # the prelude's stand-ins for <stdint.h>
        if isinstance(ext, c_ast.Decl) and ext.name is not None:
            continue                            # variables: none expected, none bound
        types.append(gen.visit(_strip_inits(ext)) + ";\n")
    if not funcs:
        raise RuntimeError("no function declarations found in include/hccl")
    return "".join(types), funcs


def integer_defines(include_dir: Path = INCLUDE_DIR) -> dict[str, int]:
    """Every ``#define NAME <integer>`` of include/hccl (HCCL_ROOT_INFO_BYTES, ...)."""
    out: dict[str, int] = {}
    for path in sorted((include_dir / "hccl").glob("*.h")):
        for name, value in _DEFINE_RE.findall(path.read_text()):
            out[name] = int(value, 0)
    return out


def _rename(node: c_ast.Node, name: str) -> None:
    while not isinstance(node, c_ast.TypeDecl):
        node = node.type
    node.declname = name


def _params(decl: c_ast.Decl) -> list[c_ast.Node]:
    args = decl.type.args
    if args is None:
        return []
    params = list(args.params)
    if len(params) == 1 and isinstance(params[0], c_ast.Typename) and \
            c_generator.CGenerator().visit(params[0]).strip() == "void":
        return []
    return params


def _returns_pointer(decl: c_ast.Decl) -> bool:
    return isinstance(decl.type.type, c_ast.PtrDecl)


def _stub(decl: c_ast.Decl) -> str:
    """A function of the same signature that records its name as missing and fails."""
    stub = copy.deepcopy(decl)
    name = f"hgh_missing_{decl.name}"
    _rename(stub.type, name)
    stub.name = name
    stub.storage = []
    params = _params(decl)
    renamed = []
    for i, p in enumerate(params):
        p = copy.deepcopy(p)
        _rename(p.type, f"a{i}")
        if isinstance(p, c_ast.Decl):
            p.name = f"a{i}"
        renamed.append(p)
    if params:
        stub.type.args.params = renamed
    head = c_generator.CGenerator().visit(stub)
    body = "".join(f"(void)a{i}; " for i in range(len(params)))
    body += f'hgh_last_missing = "{decl.name}"; '
    if _returns_pointer(decl):
        body += "return NULL;"
    else:       # HcclResult functions fail with HCCL_E_NOT_SUPPORT; others (a capability mask) give 0
        result = c_generator.CGenerator().visit(decl.type.type).strip()
        body += "return HCCL_E_NOT_SUPPORT;" if result == "HcclResult" else "return 0;"
    return f"static {head} {{ {body} }}\n"


_BINDER_CDEF = """
/* Binding control, implemented in the module itself (see ffi_build_hccl.py). */
void *hgh_open(const char *path);           /* dlopen(RTLD_NOW | RTLD_LOCAL), NULL on failure */
const char *hgh_dlerror(void);              /* text of the last hgh_open failure */
int hgh_bind(void *const *handles, int count); /* fill the table in handle order; how many stay missing */
int hgh_function_count(void);
const char *hgh_function_name(int index);
int hgh_function_bound(int index);
const char *hgh_function_file(int index);   /* the file it resolved in (dladdr), NULL if missing */
const char *hgh_missing_function(void);     /* the last unbound function this thread called */
void hgh_clear_missing(void);               /* forget it (once reported) */
int hgh_has_config_init(void);              /* 1 when the headers define HcclCommConfigInit */
void hgh_comm_config_init(HcclCommConfig *config); /* the headers' HcclCommConfigInit */
"""


def binder_source(funcs: list[c_ast.Decl], config_init: bool) -> str:
    parts = ["/* generated by pyacl_hardgrad/_build/ffi_build_hccl.py from include/hccl */\n"]
    parts += [f'#include "{h}"\n' for h in headers()]
    parts.append("""
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static __thread const char *hgh_last_missing;
static char hgh_error_text[1024];
static const char *hgh_missing_function(void) { return hgh_last_missing; }
static void hgh_clear_missing(void) { hgh_last_missing = NULL; }
static const char *hgh_dlerror(void) { return hgh_error_text; }
static void *hgh_open(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *e = dlerror();
        snprintf(hgh_error_text, sizeof hgh_error_text, "%s", e ? e : "dlopen failed");
    }
    return h;
}
""")
    for f in funcs:
        parts.append(_stub(f))
        parts.append(f"static __typeof__({f.name}) *hgh_fp_{f.name} = hgh_missing_{f.name};\n")
    parts.append("struct hgh_entry { const char *name; void **slot; void *stub; };\n")
    parts.append("static struct hgh_entry hgh_table[] = {\n")
    for f in funcs:
        parts.append(f'    {{"{f.name}", (void **)&hgh_fp_{f.name}, (void *)hgh_missing_{f.name}}},\n')
    parts.append("};\n#define HGH_COUNT ((int)(sizeof hgh_table / sizeof hgh_table[0]))\n")
    parts.append("""
static int hgh_function_count(void) { return HGH_COUNT; }
static const char *hgh_function_name(int i) { return (i >= 0 && i < HGH_COUNT) ? hgh_table[i].name : NULL; }
static int hgh_function_bound(int i)
{
    return (i >= 0 && i < HGH_COUNT) ? *hgh_table[i].slot != hgh_table[i].stub : 0;
}
static const char *hgh_function_file(int i)
{
    Dl_info info;
    if (!hgh_function_bound(i) || dladdr(*hgh_table[i].slot, &info) == 0) return NULL;
    return info.dli_fname;
}
static int hgh_bind(void *const *handles, int count)
{
    int missing = 0;
    for (int i = 0; i < HGH_COUNT; i++) {
        void *addr = NULL;
        for (int h = 0; h < count && addr == NULL; h++) {
            if (handles[h] != NULL) addr = dlsym(handles[h], hgh_table[i].name);
        }
        *hgh_table[i].slot = addr ? addr : hgh_table[i].stub;
        if (addr == NULL) missing++;
    }
    return missing;
}
""")
    if config_init:
        parts.append("static int hgh_has_config_init(void) { return 1; }\n"
                     "static void hgh_comm_config_init(HcclCommConfig *c) { HcclCommConfigInit(c); }\n")
    else:
        parts.append("static int hgh_has_config_init(void) { return 0; }\n"
                     "static void hgh_comm_config_init(HcclCommConfig *c) { (void)c; }\n")
    # From here on, cffi's generated code calls every HCCL function through its pointer.
    for f in funcs:
        parts.append(f"#define {f.name} (*hgh_fp_{f.name})\n")
    return "".join(parts)


def make_ffi() -> FFI:
    types, funcs = read()
    gen = c_generator.CGenerator()
    cdef = types + "".join(gen.visit(_strip_inits(f)) + ";\n" for f in funcs)
    cdef += "".join(f"#define {k} {v}\n" for k, v in sorted(integer_defines().items()))
    cdef += _BINDER_CDEF
    ffi = FFI()
    ffi.cdef(cdef)
    ffi.set_source(MODULE_NAME, binder_source(funcs, has_config_init()), include_dirs=[str(INCLUDE_DIR)],
                   libraries=["dl"], extra_compile_args=["-std=gnu11", "-Wall", "-Wno-unused-function"])
    return ffi


ffibuilder = make_ffi()

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
