"""The command line's shared parts: the parser whose errors are one line, ``--version``, and the
``doctor``, ``smi`` and ``info --json`` commands (wired into ``__main__.main``).

Every failure of a command is one line on stderr saying what to do, with a non-zero exit
status and no traceback: 2 when the command could not run (bad arguments, a backend that
cannot be loaded, a malformed setting), 1 when ``doctor`` found something broken.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable, NoReturn

__all__ = ["Parser", "prog_name", "version_text", "add_commands", "add_json", "dispatch", "one_line",
           "one_line_errors"]

SCRIPT = "pyacl-hardgrad"


def prog_name() -> str:
    """``pyacl-hardgrad`` when run as the console script, else ``python -m pyacl_hardgrad``."""
    return SCRIPT if Path(sys.argv[0]).name.startswith(SCRIPT) else "python -m pyacl_hardgrad"


def version_text() -> str:
    from . import __version__                 # the package's __init__ loads no C library
    return f"{SCRIPT} {__version__}"


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr (exit status 2), not usage + error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def add_json(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--json", action="store_true", help="print the facts as one JSON object")
    return parser


def add_commands(ap: argparse.ArgumentParser, sub: Any) -> None:
    """--version on the main parser, and the doctor and smi commands."""
    ap.add_argument("--version", action="version", version=version_text(),
                    help="print the version (loads no C library) and exit")
    add_json(sub.add_parser("doctor", help="check the CANN install (or the embedded runtime) step by step and "
                                           "say what to fix; exit status 1 when something is broken"))
    add_json(sub.add_parser("smi", help="the devices and this process's use of them, laid out like "
                                        "`npu-smi info`"))


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, default=str))


def _doctor(as_json: bool) -> int:
    from . import _cli_doctor
    checks = _cli_doctor.run_checks()
    if as_json:
        _print_json(_cli_doctor.as_json(checks))
    else:
        print(_cli_doctor.format_checks(checks))
    return _cli_doctor.exit_status(checks)


def _smi(as_json: bool) -> int:
    from . import _cli_smi
    data = _cli_smi.smi()
    if as_json:
        _print_json(data)
    else:
        print(_cli_smi.format_smi(data))
    return 0


def _info_json() -> int:
    from . import _cli_info
    _print_json(_cli_info.info_facts())
    return 0


def one_line(text: str) -> str:
    """A multi-line message (a BackendError's list of places searched) as one line."""
    out = ""
    for line in filter(None, (ln.strip() for ln in text.splitlines())):
        out += line if not out else (" " if out.endswith(":") else "; ") + line
    return out


def one_line_errors(fn: Callable[[], int]) -> int:
    """Run a command; a configuration or runtime failure becomes one line on stderr (status 2),
    prefixed with the package's name as every message of the package is."""
    from ._backend import BackendError
    from ._paths import NotBuiltError
    name = "pyacl_hardgrad"
    try:
        return fn()
    except BrokenPipeError:                 # the reader went away (`| head`): stop quietly
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except BackendError as exc:
        print(f"{name}: {one_line(str(exc))} (run `{SCRIPT} doctor` for what to fix)", file=sys.stderr)
    except NotBuiltError as exc:
        print(f"{name}: {exc}", file=sys.stderr)
    except ValueError as exc:               # a malformed PYACL_HARDGRAD_* setting
        print(f"{name}: {exc}", file=sys.stderr)
    except RuntimeError as exc:             # an AclError: aclInit or a device failed
        errors = sys.modules.get(f"{__package__}.errors")
        if errors is None or not isinstance(exc, errors.AclError):
            raise
        print(f"{name}: {exc} (run `{SCRIPT} doctor` for what to fix)", file=sys.stderr)
    return 2


def dispatch(args: argparse.Namespace) -> int | None:
    """Run doctor, smi or info --json; None for the commands __main__ runs itself."""
    as_json = bool(getattr(args, "json", False))
    if args.command == "doctor":
        return one_line_errors(lambda: _doctor(as_json))
    if args.command == "smi":
        return one_line_errors(lambda: _smi(as_json))
    if args.command == "info" and as_json:
        return one_line_errors(_info_json)
    return None
