"""Build the embedded runtime's shared libraries (libascendcl, libnnopbase, libopapi, libhcomm, libhccl).

Used by setup.py during ``pip install`` and, for quick iterations on the C side, as a
script: ``python pyacl_hardgrad/_build/embedded_libs.py --out /tmp/hglibs``.
It drives the C compiler directly (``$CC``, default ``cc``) so that the output is a set of
plain ``libNAME.so`` files with CANN's names, not Python extension modules.
Importable without the package being installed: it needs nothing but the standard library.
"""
from __future__ import annotations

import argparse
import os
import platform
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]          # the source tree
INCLUDE_DIR = ROOT / "include"
EMBEDDED_DIR = ROOT / "pyacl_hardgrad" / "_embedded"

# (library name, source folder, libraries it links against), in build order.
LIBRARIES = (
    ("ascendcl", "runtime", ()),
    ("nnopbase", "nnopbase", ("ascendcl", "stdc++")),  # stdc++: arrays handed out for delete[]
    ("opapi", "opapi", ("nnopbase", "ascendcl")),
    # collectives: communicators and transports, then the operations (which see hcomm's internals)
    ("hcomm", "hcomm", ("ascendcl", "rt", "dl")),
    ("hccl", "hccl", ("hcomm", "ascendcl", "dl")),
    ("msprofiler", "msprofiler", ("ascendcl",)),  # acl_prof.h; the recorder is libascendcl's (runtime/prof.c)
)

COMMON_CFLAGS = [
    "-std=c11", "-O2", "-fPIC", "-fvisibility=hidden", "-pthread",
    "-Wall", "-Wextra", "-D_GNU_SOURCE", "-DFUNC_VISIBILITY",
    # The kernels' numerics are specified without fused multiply-add.
    "-ffp-contract=off", "-fno-fast-math",
]

# Sources named *_<suffix>.c are built only on the matching machine, with extra flags,
# so SIMD code stays behind runtime dispatch and the rest of the build stays portable.
_AVX2_FLAGS = ["-mavx2", "-mf16c"]
_AVX512_FLAGS = ["-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq", "-mf16c"]
_ARCH_SOURCES = {
    "_x86_avx2.c": ("x86_64", _AVX2_FLAGS),
    "_x86_avx512.c": ("x86_64", _AVX512_FLAGS),
    "_arm_neon.c": ("aarch64", []),
}
# An operator's *_simd.c is compiled once per SIMD path of the target (object <stem>_<path>.o),
# with the path's macro for hg_simd.h and its flags; on x86_64 once more per path with
# streaming stores (HG_SIMD_STREAM: the tables <pfx>_avx2_nt / <pfx>_avx512_nt).
_SIMD_PATHS = {
    "x86_64": (("avx2", ["-DHG_SIMD_AVX2"] + _AVX2_FLAGS), ("avx512", ["-DHG_SIMD_AVX512"] + _AVX512_FLAGS),
               ("avx2_nt", ["-DHG_SIMD_AVX2", "-DHG_SIMD_STREAM"] + _AVX2_FLAGS),
               ("avx512_nt", ["-DHG_SIMD_AVX512", "-DHG_SIMD_STREAM"] + _AVX512_FLAGS)),
    "aarch64": (("neon", ["-DHG_SIMD_NEON"]),),
}

OPS_DIR = EMBEDDED_DIR / "opapi" / "ops"
REGISTRY = OPS_DIR / "operators.txt"


def registered_operators(registry: os.PathLike[str] | str = REGISTRY) -> list[str]:
    """The operator folders the registry lists (one per line, '#' starts a comment)."""
    names = []
    for line in Path(registry).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            names.append(line)
    return names


def operator_dirs() -> list[Path]:
    """ops/<folder> of every registered operator; a listed folder that is missing is an error."""
    dirs = [OPS_DIR / n for n in registered_operators()]
    for d in dirs:
        if not (d / "op_api").is_dir():
            raise RuntimeError(f"{REGISTRY} lists {d.name}, but {d}/op_api does not exist")
    return dirs


def _machine() -> str:
    m = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(m, m)


def _sources(folder: Path, machine: str) -> list[tuple[Path, str, list[str]]]:
    """(source, object stem, extra flags) of the folder's C files for this machine."""
    out = []
    for src in sorted(folder.glob("*.c")):
        if src.name.endswith("_simd.c"):
            for path, flags in _SIMD_PATHS.get(machine, ()):
                out.append((src, f"{src.stem}_{path}", flags))
            continue
        extra: list[str] = []
        skip = False
        for suffix, (arch, flags) in _ARCH_SOURCES.items():
            if src.name.endswith(suffix):
                skip = machine != arch
                extra = flags
        if not skip:
            out.append((src, src.stem, extra))
    return out


def _library_folders(folder: str) -> list[tuple[Path, list[Path]]]:
    """(source folder, its include folders) making up one library: opapi is the shared part
    plus op_api/ and op_kernel/ of every registered operator."""
    base = EMBEDDED_DIR / folder
    groups = [(base, [base])]
    if folder == "hccl":                                  # the operations use hcomm's internals
        groups = [(base, [base, EMBEDDED_DIR / "hcomm"])]
    if folder == "opapi":
        for d in operator_dirs():
            incs = [base, d / "op_kernel", d / "op_api"]
            groups += [(d / sub, incs) for sub in ("op_api", "op_kernel") if (d / sub).is_dir()]
    return groups


def _run(cmd: list[str], verbose: bool) -> None:
    if verbose:
        print(" ".join(shlex.quote(c) for c in cmd), flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.stdout:
        sys.stdout.write(proc.stdout)
    if proc.returncode != 0:
        raise RuntimeError(f"command failed ({proc.returncode}): {' '.join(cmd)}")


SANITIZERS = {"address", "undefined", "thread", "leak"}


def sanitizer_flags(spec: str | None) -> list[str]:
    """Compile and link flags for ``spec`` ("address,undefined", "thread", ...; "" for none).
    ThreadSanitizer cannot be combined with AddressSanitizer or LeakSanitizer."""
    names = [n.strip() for n in (spec or "").split(",") if n.strip()]
    if not names:
        return []
    unknown = sorted(set(names) - SANITIZERS)
    if unknown:
        raise ValueError(f"PYACL_HARDGRAD_SANITIZE: unknown sanitizer(s) {', '.join(unknown)}; "
                         f"choose from {', '.join(sorted(SANITIZERS))}")
    if "thread" in names and {"address", "leak"} & set(names):
        raise ValueError("PYACL_HARDGRAD_SANITIZE: thread cannot be combined with address or leak")
    flags = [f"-fsanitize={','.join(names)}", "-fno-omit-frame-pointer", "-g"]
    if "undefined" in names:
        flags.append("-fno-sanitize-recover=undefined")     # a UB report fails the run
    return flags


def build(out_dir: os.PathLike[str] | str, *, cc: str | None = None, debug: bool = False,
          extra_cflags: list[str] | None = None, verbose: bool = True,
          machine: str | None = None, sanitize: str | None = None) -> list[Path]:
    """Compile and link the three libraries into out_dir; return their paths.

    ``machine`` ("x86_64", "aarch64") picks the architecture-specific sources; it defaults to
    this machine's and must match what ``cc`` targets (set it when cross-compiling).
    ``sanitize`` (default: $PYACL_HARDGRAD_SANITIZE) instruments the libraries, compile and
    link step both, e.g. "address,undefined" or "thread"."""
    machine = machine or _machine()
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    obj_root = out / ".obj"
    compiler = shlex.split(cc or os.environ.get("CC", "cc"))
    cflags = list(COMMON_CFLAGS)
    if debug:
        cflags = [f for f in cflags if f != "-O2"] + ["-O0", "-g"]
    san = sanitizer_flags(os.environ.get("PYACL_HARDGRAD_SANITIZE") if sanitize is None else sanitize)
    cflags += san + shlex.split(os.environ.get("PYACL_HARDGRAD_CFLAGS", "")) + list(extra_cflags or [])
    includes = [f"-I{INCLUDE_DIR}", f"-I{EMBEDDED_DIR / 'common'}"]
    built = []
    for name, folder, deps in LIBRARIES:
        objs = []
        for src_dir, incs in _library_folders(folder):
            obj_dir = obj_root / src_dir.relative_to(EMBEDDED_DIR)
            obj_dir.mkdir(parents=True, exist_ok=True)
            for src, stem, extra in _sources(src_dir, machine):
                obj = obj_dir / (stem + ".o")
                _run(compiler + cflags + extra + includes + [f"-I{i}" for i in incs] +
                     ["-c", str(src), "-o", str(obj)], verbose)
                objs.append(str(obj))
        if not objs:
            raise RuntimeError(f"no C sources in {EMBEDDED_DIR / folder}")
        target = out / f"lib{name}.so"
        link = compiler + ["-shared", "-pthread", f"-Wl,-soname,lib{name}.so", "-Wl,-z,defs",
                           "-Wl,-rpath,$ORIGIN", "-o", str(target)] + san + objs
        link += [f"-L{out}"] + [f"-l{d}" for d in deps] + ["-lm"]
        if debug:
            link.append("-g")
        _run(link, verbose)
        built.append(target)
    plugin = build_gloo_plugin(out, machine=machine, debug=debug, sanitize=san, verbose=verbose)
    if plugin is not None:
        built.append(plugin)
    return built


# The cross-host collective engine's Gloo plugin (hcomm/hg_net.h, hcomm/net_gloo/), built into the
# same folder when Gloo's headers and library are found.  PYACL_HARDGRAD_GLOO: "0" skips it, "1"
# makes a missing Gloo an error, unset or "auto" builds it when possible.
GLOO_PLUGIN_DIR = EMBEDDED_DIR / "hcomm" / "net_gloo"
_GLOO_ROOTS = ("/usr/local", "/usr")


def find_gloo(machine: str | None = None) -> tuple[Path, Path] | None:
    """(include folder, library folder) of an installed Gloo with its TCP transport, or None."""
    machine = machine or _machine()
    for root in map(Path, _GLOO_ROOTS):
        inc = root / "include"
        if not (inc / "gloo" / "rendezvous" / "context.h").is_file() or \
                not (inc / "gloo" / "transport" / "tcp" / "device.h").is_file():
            continue
        for lib in (root / "lib", root / "lib64", root / "lib" / f"{machine}-linux-gnu"):
            if (lib / "libgloo.so").exists():
                return inc, lib
    return None


def build_gloo_plugin(out_dir: os.PathLike[str] | str, *, machine: str | None = None, debug: bool = False,
                      sanitize: list[str] | None = None, verbose: bool = True) -> Path | None:
    """Build libhg_net_gloo.so into out_dir with $CXX (default c++); None when skipped (one line says why)."""
    mode = os.environ.get("PYACL_HARDGRAD_GLOO", "auto").strip().lower() or "auto"
    if mode not in ("0", "1", "auto"):
        raise ValueError(f"PYACL_HARDGRAD_GLOO={mode!r}: use 0 (skip), 1 (required) or auto")
    if mode == "0":
        print("libhg_net_gloo.so: skipped (PYACL_HARDGRAD_GLOO=0)", flush=True)
        return None
    machine = machine or _machine()
    found = find_gloo(machine) if machine == _machine() else None
    if found is None:
        why = (f"cross-building for {machine}" if machine != _machine() else
               f"Gloo not found (gloo/rendezvous/context.h and libgloo.so under {' or '.join(_GLOO_ROOTS)})")
        if mode == "1":
            raise RuntimeError(f"PYACL_HARDGRAD_GLOO=1 but {why}")
        print(f"libhg_net_gloo.so: skipped, {why}", flush=True)
        return None
    inc, lib = found
    out = Path(out_dir).resolve()
    obj_dir = out / ".obj" / "hcomm" / "net_gloo"
    obj_dir.mkdir(parents=True, exist_ok=True)
    exports = obj_dir / "exports.map"
    exports.write_text("{ global: hg_net_gloo_ops; local: *; };\n")
    cxx = shlex.split(os.environ.get("CXX", "c++"))
    flags = ["-std=c++17", "-O0" if debug else "-O2", "-fPIC", "-fvisibility=hidden",
             "-fvisibility-inlines-hidden", "-pthread", "-Wall", "-Wextra"] + (["-g"] if debug else [])
    flags += list(sanitize or [])
    system = str(inc) == "/usr/include"
    objs = []
    for src in sorted(GLOO_PLUGIN_DIR.glob("*.cpp")):
        obj = obj_dir / (src.stem + ".o")
        _run(cxx + flags + [f"-I{EMBEDDED_DIR / 'hcomm'}"] + ([] if system else [f"-I{inc}"]) +
             ["-c", str(src), "-o", str(obj)], verbose)
        objs.append(str(obj))
    target = out / "libhg_net_gloo.so"
    _run(cxx + ["-shared", "-pthread", "-Wl,-soname,libhg_net_gloo.so", "-Wl,-z,defs",
                f"-Wl,--version-script={exports}", "-o", str(target)] + list(sanitize or []) + objs +
         [f"-L{lib}", "-lgloo"] + ([] if str(lib).startswith("/usr/lib") else [f"-Wl,-rpath,{lib}"]), verbose)
    return target


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="folder for the .so files")
    ap.add_argument("--cc", default=None, help="C compiler (default: $CC or cc)")
    ap.add_argument("--debug", action="store_true", help="-O0 -g")
    ap.add_argument("--machine", default=None, help="target architecture when cross-compiling "
                    "(x86_64 or aarch64; default: this machine's)")
    ap.add_argument("--sanitize", default=None, help="sanitizers for compile and link, e.g. address,undefined "
                    "or thread (default: $PYACL_HARDGRAD_SANITIZE)")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    for path in build(args.out, cc=args.cc, debug=args.debug, verbose=not args.quiet, machine=args.machine,
                      sanitize=args.sanitize):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
