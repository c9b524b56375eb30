"""``python -m pyacl_hardgrad`` (the ``pyacl-hardgrad`` console script): info | doctor | smi | --includes |
--libdir | --libs | --cann-path | --pyacl-path | --version | samples | run SCRIPT | bench."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Sequence

from . import _cli
from ._paths import get_cann_path, get_include, get_library_dir

def ops_dir() -> Path:
    """The operator folders (pyacl_hardgrad/_embedded/opapi/ops/, installed or in the source tree)."""
    return Path(__file__).resolve().parent / "_embedded" / "opapi" / "ops"


def samples(directory: str | os.PathLike[str] | None = None) -> list[Path]:
    """Every Python sample of the registered operators (their examples/*.py with a
    <name>.expected file next to it), in registry order; or those of one folder.  A sample
    named *_pyacl.py is a pyACL script (``import acl``): it runs under ``run`` (sample_command)."""
    if directory:
        folders = [Path(directory)]
    else:
        root = ops_dir()
        names = [ln.split("#", 1)[0].strip() for ln in (root / "operators.txt").read_text().splitlines()]
        folders = [root / n / "examples" for n in names if n]
    return [p for d in folders for p in sorted(d.glob("*.py")) if p.with_suffix(".expected").is_file()]


def sample_path(name: str) -> Path:
    """The sample script called name (a file name of some operator folder's examples/)."""
    for p in samples():
        if p.name == name:
            return p
    raise FileNotFoundError(f"no sample {name} in {ops_dir()}")


def expected_output(name: str) -> str:
    return sample_path(name).with_suffix(".expected").read_text()


def is_pyacl_script(path: Path) -> bool:
    return path.name.endswith("_pyacl.py")


def sample_command(path: Path) -> list[str]:
    """The command that runs one sample: a pyACL script through ``python -m pyacl_hardgrad run``
    (which makes ``import acl`` work), any other sample directly."""
    if is_pyacl_script(path):
        return [sys.executable, "-m", "pyacl_hardgrad", "run", str(path)]
    return [sys.executable, str(path)]


def run_samples(verbose: bool = False, directory: str | os.PathLike[str] | None = None) -> int:
    scripts = samples(directory)
    failures = 0
    for path in scripts:
        want = path.with_suffix(".expected").read_text()
        proc = subprocess.run(sample_command(path), capture_output=True, text=True, timeout=120)
        ok = proc.returncode == 0 and proc.stdout == want
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {path.parent.parent.name}/{path.name}")
        if verbose or not ok:
            sys.stdout.write(proc.stdout)
            if not ok:
                sys.stdout.write(f"--- expected ---\n{want}--- stderr ---\n{proc.stderr}")
    print(f"{len(scripts) - failures}/{len(scripts)} samples match")
    return 1 if failures or not scripts else 0


def info() -> int:
    from . import __version__
    from ._binding import BACKEND, ffi, lib
    print(f"pyacl_hardgrad {__version__}")
    print(f"backend:      {BACKEND.name}{' (embedded runtime)' if BACKEND.is_embedded else ''}")
    if BACKEND.root:
        print(f"CANN root:    {BACKEND.root}")
    print("libraries:")
    for f in BACKEND.library_files:
        print(f"  {f}")
    if BACKEND.missing_functions:
        print(f"missing:      {', '.join(BACKEND.missing_functions)}")
    v = lib.hgEmbeddedVersion()
    if v != ffi.NULL:
        print(f"embedded:     {ffi.string(v).decode()}")
    _allocator_info()
    from .errors import AclError
    from .runtime import Runtime
    try:
        with Runtime():
            major, minor, patch = ffi.new("int32_t *"), ffi.new("int32_t *"), ffi.new("int32_t *")
            if lib.aclrtGetVersion(major, minor, patch) == 0:
                print(f"ACL version:  {major[0]}.{minor[0]}.{patch[0]}")
            from .device import device_count
            n = device_count()
            print(f"devices:      {n}")
            if n:
                lib.aclrtSetDevice(0)
                soc = lib.aclrtGetSocName()
                print(f"SoC:          {ffi.string(soc).decode() if soc != ffi.NULL else '(unknown)'}")
                lib.aclrtResetDevice(0)
    except AclError as exc:
        print(f"runtime:      {exc}")
    if BACKEND.is_embedded:                  # kernel paths and splitting (issue 13)
        from . import _kernel_info
        _kernel_info.exercise()
        print("\n".join(_kernel_info.info_lines()))
    print(f"include dir:  {get_include()}")
    print(f"library dir:  {get_library_dir()}")
    return 0


def _allocator_info() -> None:
    """The caching allocator's setting and, per device this process allocated on, its statistics."""
    try:
        from . import _allocator
    except ValueError as exc:                # a malformed PYACL_HARDGRAD_ALLOCATOR* setting
        print(f"allocator:    {exc}")
        return
    s = _allocator.allocator_settings()
    print(f"allocator:    {s['mode']}, idle cache limit {s['limit']} bytes per device "
          "(PYACL_HARDGRAD_ALLOCATOR, PYACL_HARDGRAD_ALLOCATOR_LIMIT)")
    from ._binding import lib
    for dev in range(lib.HGB_CACHE_DEVICES):
        st = _allocator.memory_stats(dev)
        if st["allocations"] or st["reserved_bytes"]:
            print(f"  device {dev}: in use {st['in_use_bytes']} B in {st['in_use_blocks']} blocks, reserved "
                  f"{st['reserved_bytes']} B in {st['reserved_blocks']}, peak {st['peak_in_use_bytes']} B, "
                  f"hits {st['hits']}, misses {st['misses']}, frees {st['frees']}, releases {st['releases']}")


def main(argv: Sequence[str] | None = None) -> int:
    # -- bench (issue 5): its own options and parser live in pyacl_hardgrad/bench/
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["bench"]:
        from .bench import main as bench_main
        return bench_main(argv[1:])
    # -- end bench
    if argv[:1] == ["run"]:                      # pyACL scripts (issue 12): options end at SCRIPT
        from ._pyacl_run import main as run_main
        return run_main(argv[1:])
    if argv[:1] == ["check"]:                    # checking mode: options end at PROGRAM
        from ._cli_check import main as check_main
        return check_main(argv[1:])
    ap = _cli.Parser(prog=_cli.prog_name(),
                                 description="CANN's C API from Python: build flags, backend info, samples.")
    ap.add_argument("--includes", action="store_true", help="print -I flags for CANN-style C/C++ builds")
    ap.add_argument("--libdir", action="store_true", help="print the folder of libascendcl/libnnopbase/libopapi")
    ap.add_argument("--libs", action="store_true", help="print the -L/-l/-rpath link flags")
    ap.add_argument("--pyacl-path", action="store_true",
                    help="print the folder to put on PYTHONPATH so that `import acl` loads pyACL's API")
    ap.add_argument("--cann-path", action="store_true",
                    help="print the root of the CANN-shaped tree (ASCEND_CANN_PACKAGE_PATH / ASCEND_HOME_PATH)")
    sub = ap.add_subparsers(dest="command")
    _cli.add_json(sub.add_parser("info", help="backend, library files, SoC, device count, version"))
    sp = sub.add_parser("samples", help="run every operator's sample ports and check their output")
    sp.add_argument("-v", "--verbose", action="store_true")
    sp.add_argument("--dir", help="one folder of sample scripts (default: every registered operator's examples/)")
    sub.add_parser("bench", help="benchmark against C++, PyTorch, numpy and memcpy (bench --help)")  # issue 5
    sub.add_parser("run", help="run a pyACL script with `import acl` bound to this package (run --help)")
    sub.add_parser("check", help="run a program or script in checking mode (check --help)")
    _cli.add_commands(ap, sub)                  # --version, doctor, smi
    args = ap.parse_args(argv)
    if args.pyacl_path:
        from ._pyacl_run import pyacl_path
        print(pyacl_path())
        return 0
    if args.cann_path:
        print(get_cann_path())
        return 0
    if args.includes or args.libdir or args.libs:
        from ._paths import not_built_reason
        why = not_built_reason()
        if why is not None:
            print(f"pyacl_hardgrad: {why}", file=sys.stderr)
            return 2
        if args.includes:
            print(f"-I{get_include()}")
        if args.libdir:
            print(get_library_dir())
        if args.libs:
            d = get_library_dir()
            print(f"-L{d} -lascendcl -lnnopbase -lopapi -Wl,-rpath,{d}")
        return 0
    rc = _cli.dispatch(args)                    # doctor, smi, info --json
    if rc is not None:
        return rc
    if args.command == "samples":
        return run_samples(args.verbose, args.dir)
    if args.command == "info" or args.command is None:
        return _cli.one_line_errors(info)       # no traceback for a configuration problem
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
