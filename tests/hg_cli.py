"""Running the command line the way a user does: the ``pyacl-hardgrad`` console script installed
next to this interpreter, or ``python -m pyacl_hardgrad``, in a fresh process, from outside the
checkout, with no CANN environment unless a test sets one."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(sys.executable).with_name("pyacl-hardgrad")
# what CANN's set_env.sh sets, and the package's own settings: a test starts without them
_CLEARED = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_OPP_PATH", "ASCEND_AICPU_PATH",
            "ASCEND_INSTALL_PATH", "PYTHONPATH", "PYACL_HARDGRAD_BACKEND", "PYACL_HARDGRAD_DEVICE_COUNT",
            "PYACL_HARDGRAD_DEVICE_MEMORY", "PYACL_HARDGRAD_SOC", "PYACL_HARDGRAD_ALLOCATOR",
            "PYACL_HARDGRAD_ALLOCATOR_LIMIT")
VIAS = ("script", "module")


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _CLEARED}
    env.update(extra)
    return env


def command(via: str) -> list[str]:
    """``pyacl-hardgrad`` (via="script") or ``python -m pyacl_hardgrad`` (via="module")."""
    if via == "script":
        assert SCRIPT.is_file(), f"the console script {SCRIPT} is not installed (pip install .)"
        return [str(SCRIPT)]
    return [sys.executable, "-m", "pyacl_hardgrad"]


def run(args: list[str], cwd: Path, via: str = "script", env: dict[str, str] | None = None,
        **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*command(via), *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env=clean_env(**extra) if env is None else env)


def assert_one_line_error(proc: subprocess.CompletedProcess[str], status: int = 2) -> str:
    """A failed command: the given exit status, nothing on stdout, one line on stderr, no traceback."""
    assert proc.returncode == status, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]
