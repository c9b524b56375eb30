"""``python -m pyacl_hardgrad run [--pyacl auto|ours|cann] SCRIPT [ARGS...]`` and ``--pyacl-path``.

``run`` starts SCRIPT with the same interpreter, its arguments and its exit status, with the
shim folder (``pyacl_path()``) first on PYTHONPATH, so ``import acl`` in the script, in the
modules it imports and in the Python processes it starts loads pyACL's API as the shim
decides (PYACL_HARDGRAD_PYACL, see acl/_path/acl.py).  Neither loads the C libraries here.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Mapping

_ENV = "PYACL_HARDGRAD_PYACL"


def pyacl_path() -> str:
    """The folder holding the ``acl`` shim; put it on PYTHONPATH (or sys.path)."""
    return str(Path(__file__).resolve().parent / "acl" / "_path")


def script_env(choice: str | None = None, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (default os.environ) with the shim folder first on PYTHONPATH."""
    out = dict(os.environ if env is None else env)
    parts = [pyacl_path()] + [p for p in out.get("PYTHONPATH", "").split(os.pathsep) if p and p != pyacl_path()]
    out["PYTHONPATH"] = os.pathsep.join(parts)
    if choice is not None:
        out[_ENV] = choice
    return out


def main(argv: list[str] | None) -> int:
    ap = argparse.ArgumentParser(prog="python -m pyacl_hardgrad run",
                                 description="Run an unmodified pyACL script; `import acl` loads pyACL's API "
                                             "over this package (or CANN's pyACL, see --pyacl).")
    ap.add_argument("--pyacl", choices=("auto", "ours", "cann"), default=None,
                    help="which `acl` the script imports: auto (default: CANN's pyACL when it is importable "
                         "and the backend is CANN, else this package's), ours, cann; also "
                         f"${_ENV}")
    ap.add_argument("script", help="the pyACL script")
    ap.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    ns = ap.parse_args(argv)
    if not Path(ns.script).is_file():
        print(f"python -m pyacl_hardgrad run: {ns.script}: no such file", file=sys.stderr)
        return 2
    proc = subprocess.Popen([sys.executable, ns.script, *ns.args], env=script_env(ns.pyacl))
    while True:
        try:
            rc = proc.wait()
            break
        except KeyboardInterrupt:           # the script got the SIGINT too; wait for it to end
            continue
    if rc < 0:                               # killed by a signal: report it as a shell would
        return 128 - rc if -rc in signal.valid_signals() else 1
    return rc
