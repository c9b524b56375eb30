"""Build the embedded runtime's three shared libraries (libascendcl, libnnopbase, libopapi).

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
)

COMMON_CFLAGS = [
    "-std=c11", "-O2", "-fPIC", "-fvisibility=hidden", "-pthread",
    "-Wall", "-Wextra", "-D_GNU_SOURCE", "-DFUNC_VISIBILITY",
    # The kernels' numerics are specified without fused multiply-add.
    "-ffp-contract=off", "-fno-fast-math",
]

# Sources named *_<suffix>.c are built only on the matching machine, with extra flags,
# so SIMD code stays behind runtime dispatch and the rest of the build stays portable.
_ARCH_SOURCES = {
    "_x86_avx2.c": ("x86_64", ["-mavx2", "-mf16c"]),
    "_x86_avx512.c": ("x86_64", ["-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq", "-mf16c"]),
    "_arm_neon.c": ("aarch64", []),
}


def _machine() -> str:
    m = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(m, m)


def _sources(folder: Path, machine: str) -> list[tuple[Path, list[str]]]:
    out = []
    for src in sorted(folder.glob("*.c")):
        extra: list[str] = []
        skip = False
        for suffix, (arch, flags) in _ARCH_SOURCES.items():
            if src.name.endswith(suffix):
                skip = machine != arch
                extra = flags
        if not skip:
            out.append((src, extra))
    return out


def _run(cmd: list[str], verbose: bool) -> None:
    if verbose:
        print(" ".join(shlex.quote(c) for c in cmd), flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.stdout:
        sys.stdout.write(proc.stdout)
    if proc.returncode != 0:
        raise RuntimeError(f"command failed ({proc.returncode}): {' '.join(cmd)}")


def build(out_dir: os.PathLike | str, *, cc: str | None = None, debug: bool = False,
          extra_cflags: list[str] | None = None, verbose: bool = True,
          machine: str | None = None) -> list[Path]:
    """Compile and link the three libraries into out_dir; return their paths.

    ``machine`` ("x86_64", "aarch64") picks the architecture-specific sources; it defaults to
    this machine's and must match what ``cc`` targets (set it when cross-compiling)."""
    machine = machine or _machine()
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    obj_root = out / ".obj"
    compiler = shlex.split(cc or os.environ.get("CC", "cc"))
    cflags = list(COMMON_CFLAGS)
    if debug:
        cflags = [f for f in cflags if f != "-O2"] + ["-O0", "-g"]
    cflags += shlex.split(os.environ.get("PYACL_HARDGRAD_CFLAGS", "")) + list(extra_cflags or [])
    includes = [f"-I{INCLUDE_DIR}", f"-I{EMBEDDED_DIR / 'common'}"]
    built = []
    for name, folder, deps in LIBRARIES:
        src_dir = EMBEDDED_DIR / folder
        objs = []
        (obj_root / folder).mkdir(parents=True, exist_ok=True)
        for src, extra in _sources(src_dir, machine):
            obj = obj_root / folder / (src.stem + ".o")
            _run(compiler + cflags + extra + includes + [f"-I{src_dir}", "-c", str(src), "-o", str(obj)],
                 verbose)
            objs.append(str(obj))
        if not objs:
            raise RuntimeError(f"no C sources in {src_dir}")
        target = out / f"lib{name}.so"
        link = compiler + ["-shared", "-pthread", f"-Wl,-soname,lib{name}.so", "-Wl,-z,defs",
                           "-Wl,-rpath,$ORIGIN", "-o", str(target)] + objs
        link += [f"-L{out}"] + [f"-l{d}" for d in deps] + ["-lm"]
        if debug:
            link.append("-g")
        _run(link, verbose)
        built.append(target)
    return built


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="folder for the .so files")
    ap.add_argument("--cc", default=None, help="C compiler (default: $CC or cc)")
    ap.add_argument("--debug", action="store_true", help="-O0 -g")
    ap.add_argument("--machine", default=None, help="target architecture when cross-compiling "
                    "(x86_64 or aarch64; default: this machine's)")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    for path in build(args.out, cc=args.cc, debug=args.debug, verbose=not args.quiet, machine=args.machine):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
