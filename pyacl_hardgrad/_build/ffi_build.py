"""cffi build of ``pyacl_hardgrad._cffi_acl``: the one compiled module every call goes through.

The declarations are derived from include/ at build time (the headers are the single source
of truth): the headers are run through the C preprocessor with PYACL_HARDGRAD_CDEF defined,
integer ``#define``s are collected from them, and pycparser lists the functions.

For each function the module holds a pointer, a wrapper named like the function, and a stub
of the same signature.  ``hgb_bind`` fills the pointers by ``dlopen(RTLD_LOCAL)`` + ``dlsym``
from whichever library set the backend discovery chose (embedded or real CANN), so one
compiled module serves both and a function missing from an older CANN becomes a clear
ACL_ERROR_API_NOT_SUPPORT instead of an import failure or a crash.  The preamble includes the
real headers and checks every stub against the real prototype, so the C compiler verifies the
generated code against include/.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

from cffi import FFI
import pycparser
from pycparser import c_ast, c_generator

ROOT = Path(__file__).resolve().parents[2]
INCLUDE_DIR = ROOT / "include"
# Folders of the embedded operators; an op.json there adds names, docs, defaults, outputs.
OPERATOR_FOLDERS = ROOT / "pyacl_hardgrad" / "_embedded" / "opapi" / "ops"


def _signatures() -> ModuleType:
    """_build/signatures.py, loaded by path (the build runs this file outside the package)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("_hgb_signatures", Path(__file__).with_name("signatures.py"))
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]  # (a file's spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def _operator_headers(include_dir: Path = INCLUDE_DIR) -> tuple[str, ...]:
    """Every operator header under include/aclnnop (adding one adds it to the binding)."""
    return tuple(f"aclnnop/{p.name}" for p in sorted((include_dir / "aclnnop").glob("*.h")))


# The headers the binding covers, in include order.
HEADERS = ("acl/acl.h", "acl/acl_rt_memory_soma.h", "acl/acl_tdt.h", "acl/acl_tdt_queue.h", "acl/acl_dump.h",
           "aclnn/aclnn_base.h", *_operator_headers(), "pyacl_hardgrad/embedded.h")

MODULE_NAME = "pyacl_hardgrad._cffi_acl"
# The binding's C part (handle layer, fused calls, device allocator, vectorcall entries).
BINDING_C = ROOT / "pyacl_hardgrad" / "_binding_c"
# The handle layer and the generic call: declarations (also the cdef) and implementation.
FUSED_HEADER = BINDING_C / "fused_calls.h"
FUSED_SOURCE = BINDING_C / "fused_calls.c"
# The caching device allocator under the handle layer: declarations (also cdef) and implementation.
CACHE_HEADER = BINDING_C / "device_cache.h"
CACHE_SOURCE = BINDING_C / "device_cache.c"
API_NOT_SUPPORT = 200001  # ACL_ERROR_API_NOT_SUPPORT, what a missing function returns

_DEFINE_RE = re.compile(r"^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)\s+(-?(?:0[xX][0-9a-fA-F]+|\d+))[uUlL]*\s*$",
                        re.M)

# pycparser knows no system headers: give it the few typedefs the headers use.
_PYCPARSER_PRELUDE = "".join(
    f"typedef int {t};\n" for t in ("int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
                                     "uint32_t", "uint64_t", "size_t", "intptr_t", "uintptr_t"))


def preprocessed_declarations(include_dir: Path = INCLUDE_DIR) -> str:
    """The headers as plain C declarations (no includes, guards, linkage or attributes)."""
    umbrella = "".join(f'#include "{h}"\n' for h in HEADERS)
    cc = shlex.split(os.environ.get("CC", "cc"))
    proc = subprocess.run(cc + ["-E", "-P", "-DPYACL_HARDGRAD_CDEF", f"-I{include_dir}", "-x", "c", "-"],
                          input=umbrella, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"preprocessing include/ failed:\n{proc.stderr}")
    return proc.stdout


def _covered_header_files(include_dir: Path) -> list[Path]:
    """The files of include_dir that HEADERS include, directly or not (headers of libraries the
    binding does not load, such as acl/acl_prof.h, stay out)."""
    umbrella = "".join(f'#include "{h}"\n' for h in HEADERS)
    cc = shlex.split(os.environ.get("CC", "cc"))
    proc = subprocess.run(cc + ["-M", "-DPYACL_HARDGRAD_CDEF", f"-I{include_dir}", "-x", "c", "-"],
                          input=umbrella, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"listing the headers of include/ failed:\n{proc.stderr}")
    root = include_dir.resolve()
    found = {Path(w).resolve() for w in proc.stdout.replace("\\\n", " ").split() if w.endswith(".h")}
    return sorted(p for p in found if root in p.parents)


def integer_defines(include_dir: Path = INCLUDE_DIR) -> dict[str, int]:
    """Every ``#define NAME <integer>`` in the covered headers and the headers they include."""
    out: dict[str, int] = {}
    for path in _covered_header_files(include_dir):
        for name, value in _DEFINE_RE.findall(path.read_text()):
            out[name] = int(value, 0)
    return out


class _Function:
    def __init__(self, name: str, decl: c_ast.Decl, pointer_typedefs: frozenset[str] = frozenset()):
        self.name = name
        self.decl = decl
        self.pointer_typedefs = pointer_typedefs  # typedef names of pointer types (aclrtBinary, ...)

    def _returns(self) -> str:
        t = self.decl.type.type
        if isinstance(t, c_ast.PtrDecl):
            return "pointer"
        if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) \
                and t.type.names[-1] in self.pointer_typedefs:
            return "pointer"
        if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) \
                and t.type.names == ["void"]:
            return "void"
        return "integer"

    def _params(self) -> list[c_ast.Node]:
        args = self.decl.type.args
        if args is None:
            return []
        params = list(args.params)
        if len(params) == 1 and isinstance(params[0], c_ast.Typename) and \
                c_generator.CGenerator().visit(params[0]).strip() == "void":
            return []
        return params

    def stub(self) -> str:
        """A function of the same signature that reports the symbol as missing."""
        import copy

        decl = copy.deepcopy(self.decl)
        stub_name = f"hgb_missing_{self.name}"
        _rename(decl.type, stub_name)
        decl.name = stub_name
        params = self._params()
        new_params = []
        for i, p in enumerate(params):
            p = copy.deepcopy(p)
            _rename(p.type, f"a{i}")
            if isinstance(p, c_ast.Decl):
                p.name = f"a{i}"
            new_params.append(p)
        if params:
            decl.type.args.params = new_params
        head = c_generator.CGenerator().visit(decl)
        body = "".join(f"(void)a{i}; " for i in range(len(params)))
        body += f'hgb_note_missing("{self.name}"); '
        body += {"void": "", "pointer": "return NULL;", "integer": f"return {API_NOT_SUPPORT};"}[self._returns()]
        return f"static {head} {{ {body} }}\n"


def _rename(node: c_ast.Node, name: str) -> None:
    """Set the declarator name at the bottom of a (pointer/function) declarator chain."""
    while not isinstance(node, c_ast.TypeDecl):
        node = node.type
    node.declname = name


def functions(declarations: str) -> list[_Function]:
    ast = pycparser.CParser().parse(_PYCPARSER_PRELUDE + declarations, "<include>")
    out = []
    pointer_typedefs = frozenset(ext.name for ext in ast.ext
                                 if isinstance(ext, c_ast.Typedef) and isinstance(ext.type, c_ast.PtrDecl))
    for ext in ast.ext:
        if isinstance(ext, c_ast.Decl) and isinstance(ext.type, c_ast.FuncDecl):
            out.append(_Function(ext.name, ext, pointer_typedefs))
    if not out:
        raise RuntimeError("no function declarations found in include/")
    return out


_BINDER_CDEF = """
/* Binding control, implemented in the module itself (see ffi_build.py). */
void *hgb_open(const char *path);           /* dlopen(RTLD_NOW | RTLD_LOCAL), NULL on failure */
const char *hgb_dlerror(void);              /* text of the last hgb_open/hgb_bind failure */
int hgb_bind(void *const *handles, int count); /* fill the table; returns how many stay missing */
int hgb_function_count(void);
const char *hgb_function_name(int index);
int hgb_function_bound(int index);
void *hgb_function_address(int index);      /* the resolved address, NULL if missing */
const char *hgb_function_file(int index);   /* the file it resolved in (dladdr), NULL if missing */
const char *hgb_missing_function(void);     /* the last unbound function this thread called */
"""

_BINDER_SOURCE = """
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static __thread const char *hgb_last_missing;
static char hgb_error_text[1024];

static void hgb_note_missing(const char *name) { hgb_last_missing = name; }
static const char *hgb_missing_function(void) { return hgb_last_missing; }
static const char *hgb_dlerror(void) { return hgb_error_text; }

static void *hgb_open(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *e = dlerror();
        snprintf(hgb_error_text, sizeof hgb_error_text, "%s", e ? e : "dlopen failed");
    }
    return h;
}
"""


def binder_source(funcs: list[_Function], operator_source: str = "", table_json: str = "{}") -> str:
    parts = ["/* generated by pyacl_hardgrad/_build/ffi_build.py from include/ */\n"]
    parts += [f'#include "{h}"\n' for h in HEADERS]
    parts.append(_BINDER_SOURCE)
    for f in funcs:
        parts.append(f.stub())
        # The pointer's type is taken from the real prototype: the stub must match it.
        parts.append(f"static __typeof__({f.name}) *hgb_fp_{f.name} = hgb_missing_{f.name};\n")
    parts.append("\nstruct hgb_entry { const char *name; void **slot; void *stub; };\n")
    parts.append("static struct hgb_entry hgb_table[] = {\n")
    for f in funcs:
        parts.append(f'    {{"{f.name}", (void **)&hgb_fp_{f.name}, (void *)hgb_missing_{f.name}}},\n')
    parts.append("};\n#define HGB_COUNT ((int)(sizeof hgb_table / sizeof hgb_table[0]))\n")
    parts.append("""
static int hgb_function_count(void) { return HGB_COUNT; }
static const char *hgb_function_name(int i) { return (i >= 0 && i < HGB_COUNT) ? hgb_table[i].name : NULL; }
static int hgb_function_bound(int i)
{
    return (i >= 0 && i < HGB_COUNT) ? *hgb_table[i].slot != hgb_table[i].stub : 0;
}
static void *hgb_function_address(int i) { return hgb_function_bound(i) ? *hgb_table[i].slot : NULL; }
static const char *hgb_function_file(int i)
{
    Dl_info info;
    if (!hgb_function_bound(i) || dladdr(*hgb_table[i].slot, &info) == 0) return NULL;
    return info.dli_fname;
}
static int hgb_bind(void *const *handles, int count)
{
    int missing = 0;
    for (int i = 0; i < HGB_COUNT; i++) {
        void *addr = NULL;
        for (int h = 0; h < count && addr == NULL; h++) {
            if (handles[h] != NULL) addr = dlsym(handles[h], hgb_table[i].name);
        }
        *hgb_table[i].slot = addr ? addr : hgb_table[i].stub;
        if (addr == NULL) missing++;
    }
    return missing;
}
""")
    # From here on, cffi's generated code calls every API function through its pointer.
    for f in funcs:
        parts.append(f"#define {f.name} (*hgb_fp_{f.name})\n")
    # System headers before the hidden region (their functions must stay default-visibility).
    parts.append("#include <sched.h>\n#include <stdbool.h>\n#include <stdlib.h>\n#include <string.h>\n")
    parts.append("\n#pragma GCC visibility push(hidden)\n")
    parts.append(_fused_header_source())
    parts.append(CACHE_HEADER.read_text())
    parts.append(CACHE_SOURCE.read_text())
    parts.append(FUSED_SOURCE.read_text())
    parts.append("\n/* generated from the prototypes of include/aclnnop */\n#define HGB_HANDLE(o) ((o) ? (o)->handle : NULL)\n")
    parts.append(operator_source)
    parts.append(f"static const char *hgb_operator_table(void) {{ return {_c_string(table_json)}; }}\n")
    parts.append("#pragma GCC visibility pop\n")
    return "".join(parts)




def _c_param(p: dict[str, Any], i: int) -> str:
    if p["kind"] in ("tensor", "out", "scalar"):
        return f"hgb_obj *a{i}"
    return f"{p['type']} a{i}"


def _host_param(p: dict[str, Any], i: int) -> str:
    if p["kind"] in ("tensor", "out"):
        return f"void *a{i}"
    return _c_param(p, i)


def _from_arg(p: dict[str, Any], i: int) -> str:
    """Parameter i of an array-argument call, from its hgb_arg (see hgb_callv_<name>)."""
    if p["kind"] in ("tensor", "out", "scalar"):
        return f"v[{i}].o"
    if p["kind"] == "float":
        return f"({p['type']})v[{i}].d"
    if p["kind"] == "bool":
        return f"v[{i}].i != 0"
    return f"({p['type']})v[{i}].i"     # an unsigned 64-bit value's bits, read back by the cast


def operator_calls(ops: list[dict[str, Any]]) -> tuple[str, str]:
    """(declarations, definitions) of the fused call, the host-array call and the plan constructor
    of each operator: hold the handle arguments, phase 1, then the generic hgb_finish /
    hgb_plan_finish; the host-array call stages its tensors (hgb_host_stage), makes the fused call
    with a wait and copies the outputs back (hgb_host_finish)."""
    decls, defs = [], []
    for op in ops:
        name, params = op["name"], op["params"]
        sig = "".join(", " + _c_param(p, i) for i, p in enumerate(params))
        handles = [i for i, p in enumerate(params) if p["kind"] in ("tensor", "out", "scalar")]
        objs = ", ".join(f"a{i}" for i in handles) or "NULL"
        args = ", ".join(f"({p['type']})HGB_HANDLE(a{i})" if i in handles else f"a{i}"
                         for i, p in enumerate(params))
        call = f"{name}GetWorkspaceSize({args}{', ' if args else ''}&call->workspace_size, &call->executor)"
        head = f"int hgb_call_{name}(hgb_call *call, hgb_obj *stream, int flags{sig})"
        plan = f"int hgb_plan_{name}(hgb_call *call, int repeatable{sig})"
        tensors = [i for i, p in enumerate(params) if p["kind"] in ("tensor", "out")]
        host_sig = "".join(", " + _host_param(p, i) for i, p in enumerate(params))
        host = f"int hgb_host_{name}(hgb_call *call, hgb_obj *stream, const hgb_host_tensor *lay{host_sig})"
        # the same call with its arguments in an array, on the thread's own record (hgb_thread_call)
        callv = f"int hgb_callv_{name}(hgb_obj *stream, int flags, const hgb_arg *v)"
        decls += [head + ";\n", plan + ";\n", host + ";\n", callv + ";\n"]
        from_args = "".join(", " + _from_arg(p, i) for i, p in enumerate(params))
        defs.append(f"""
{callv}
{{
    (void)v;
    return hgb_call_{name}(hgb_thread_call(), stream, flags{from_args});
}}
""")
        n = len(handles)
        nt = len(tensors)
        slot = {i: k for k, i in enumerate(tensors)}
        fused_args = "".join(", " + (f"t[{slot[i]}]" if i in slot else f"a{i}") for i in range(len(params)))
        defs.append(f"""
{host}
{{
    void *data[{nt + 1}] = {{{', '.join(f'a{i}' for i in tensors) or 'NULL'}}};
    hgb_obj *t[{nt + 1}];
    int st = hgb_host_stage(call, stream, lay, data, t, {nt}, {n});
    if (st != 0) return st;
    st = hgb_call_{name}(call, stream, HGB_WAIT{fused_args});
    return hgb_host_finish(call, st, stream, lay, data, t, {nt});
}}
""")
        names = f'(hgb_phase2_fn)hgb_fp_{name}, "{name}GetWorkspaceSize", "{name}"'
        defs.append(f"""
{head}
{{
    hgb_obj *objs[{n + 1}] = {{{objs}}};
    int st = hgb_begin(call, stream, objs, {n});
    if (st != 0) return st;
    st = {call};
    return hgb_finish(call, st, objs, {n}, stream, flags, {names});
}}
{plan}
{{
    hgb_obj *objs[{n + 1}] = {{{objs}}};
    int st = hgb_begin(call, NULL, objs, {n});
    if (st != 0) return st;
    st = {call};
    return hgb_plan_finish(call, st, objs, {n}, repeatable, {names});
}}
""")
    return "".join(decls), "".join(defs)


def operator_table(include_dir: Path = INCLUDE_DIR, folders: Path = OPERATOR_FOLDERS) -> dict[str, Any]:
    """The operators of include/aclnnop as the Python layer reads them (hgb_operator_table)."""
    sigs = _signatures()
    ops, skipped = sigs.read_headers(sorted((include_dir / "aclnnop").glob("*.h")))
    entries = sigs.read_entries(sorted(p for p in folders.glob("*") if p.is_dir())) if folders.is_dir() else {}
    return {"operators": ops, "skipped": skipped, "entries": entries}


def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _fused_header_source() -> str:
    """fused_calls.h as C: its extern "Python" declarations become the static prototypes cffi defines."""
    return re.sub(r'extern "Python" ', "static ", FUSED_HEADER.read_text())


def make_ffi() -> FFI:
    decls = preprocessed_declarations()
    funcs = functions(decls)
    defines = integer_defines()
    table = operator_table()
    call_decls, call_defs = operator_calls(table["operators"])
    cdef = decls + "\n" + "".join(f"#define {k} {v}\n" for k, v in sorted(defines.items())) + _BINDER_CDEF
    cdef += FUSED_HEADER.read_text()
    cdef += CACHE_HEADER.read_text()
    cdef += call_decls + "const char *hgb_operator_table(void);\n"
    ffi = FFI()
    ffi.cdef(cdef)
    source = binder_source(funcs, call_decls + call_defs, json.dumps(table))
    ffi.set_source(MODULE_NAME, source, include_dirs=[str(INCLUDE_DIR)],
                   libraries=["dl"], extra_compile_args=["-std=gnu11", "-Wall", "-Wno-unused-function"])
    return ffi


ffibuilder = make_ffi()

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
