"""``python -m pyacl_hardgrad check [options] PROGRAM [ARGS...]``: run a program in checking mode.

PROGRAM is an executable (a C/C++ program linked against the embedded runtime) or a ``.py``
script, run with the same interpreter and pyACL's ``import acl`` available, as ``run`` does.
The embedded runtime checks every call from ``aclInit`` on (PYACL_HARDGRAD_CHECK=1, see
docs/checking.md) and prints its findings on stderr (or ``--log-file``).  Exit status: the
program's own when it is not 0, else ``--error-exitcode`` (default 1) when the checker found
errors, else 0.  ``--json F`` writes the findings as one JSON object for tools.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ._cli import Parser, prog_name
from ._paths import get_library_dir, not_built_reason
from ._pyacl_run import script_env

__all__ = ["main", "check_env", "read_findings"]


def check_env(leak_check: str = "full", log_file: str | None = None, json_lines: str | None = None,
              env: dict[str, str] | None = None) -> dict[str, str]:
    """``env`` (default os.environ) with checking mode on: the pyACL shim on PYTHONPATH,
    PYACL_HARDGRAD_CHECK=1, where the findings go, and the embedded runtime's libraries last on
    LD_LIBRARY_PATH (checking mode is theirs: a program built against the tree without an rpath
    finds them, one that already finds its libraries keeps them)."""
    out = script_env(None, env)
    if not_built_reason() is None:       # (a source tree has no libraries to offer)
        libdir = get_library_dir()
        paths = [p for p in out.get("LD_LIBRARY_PATH", "").split(os.pathsep) if p]
        if libdir not in paths:
            out["LD_LIBRARY_PATH"] = os.pathsep.join([*paths, libdir])
    out["PYACL_HARDGRAD_CHECK"] = "1"
    out["PYACL_HARDGRAD_CHECK_LEAKS"] = leak_check
    if log_file is not None:
        out["PYACL_HARDGRAD_CHECK_LOG"] = str(Path(log_file).resolve())
    else:
        out.pop("PYACL_HARDGRAD_CHECK_LOG", None)
    if json_lines is not None:
        out["PYACL_HARDGRAD_CHECK_JSON"] = json_lines
    return out


def read_findings(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The findings the runtime appended to a JSON-lines file (one object per line)."""
    p = Path(path)
    if not p.is_file():
        return []
    out: list[dict[str, Any]] = []
    for line in p.read_text(errors="replace").splitlines():
        line = line.strip()
        if line:
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:     # a line cut short by a crash: keep what it says
                out.append({"kind": "unreadable", "message": line})
    return out


def _command(program: str, args: list[str]) -> list[str] | None:
    if program.endswith(".py"):
        return [sys.executable, program, *args] if Path(program).is_file() else None
    if os.sep in program:
        return [program, *args] if Path(program).is_file() and os.access(program, os.X_OK) else None
    found = shutil.which(program)
    return [found, *args] if found else None


def _parser() -> Parser:
    ap = Parser(prog=f"{prog_name()} check",
                description="Run PROGRAM (an executable, or a .py script with pyACL's `import acl` available) with "
                            "the embedded runtime's checking mode on; findings go to stderr.")
    ap.add_argument("--error-exitcode", type=int, default=1, metavar="N",
                    help="exit status when the program exits 0 but errors were found (default 1)")
    ap.add_argument("--leak-check", choices=("full", "none"), default="full",
                    help="report live allocations, streams and events at device release, aclFinalize or exit "
                         "(full, the default) or not (none)")
    ap.add_argument("--log-file", metavar="F", help="write the findings to F (appended) instead of stderr")
    ap.add_argument("--json", metavar="F", help="write the findings to F as one JSON object")
    ap.add_argument("program", help="the executable or .py script")
    ap.add_argument("args", nargs="...", help="its arguments")
    return ap


def main(argv: list[str]) -> int:
    ns = _parser().parse_args(argv)
    if not 0 <= ns.error_exitcode <= 255:
        print(f"{prog_name()} check: --error-exitcode ({ns.error_exitcode}) must be 0..255", file=sys.stderr)
        return 2
    cmd = _command(ns.program, list(ns.args))
    if cmd is None:
        print(f"{prog_name()} check: {ns.program}: no such executable or .py script", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="hg-check-") as tmp:
        lines = os.path.join(tmp, "findings.jsonl")
        env = check_env(ns.leak_check, ns.log_file, lines)
        proc = subprocess.Popen(cmd, env=env)
        waited: int | None = None
        while waited is None:
            try:
                waited = proc.wait()
            except KeyboardInterrupt:           # the program got the SIGINT too; wait for it
                continue
        rc = waited
        findings = read_findings(lines)
    if rc < 0:                                  # killed by a signal: report it as a shell would
        rc = 128 - rc if -rc in signal.valid_signals() else 1
    status = rc if rc != 0 else (ns.error_exitcode if findings else 0)
    if ns.json:
        report = {"program": cmd, "program_exit_status": rc, "exit_status": status, "errors": len(findings),
                  "findings": findings}
        Path(ns.json).write_text(json.dumps(report, indent=2) + "\n")
    return status
