"""Running Python code of the package under valgrind memcheck and reading what it found in the
package's own C (the binding module and the three embedded libraries).

The interpreter and numpy have reports of their own under memcheck (blocks kept to the end on
purpose, reads of words the interpreter never initialised), and the dynamic loader reads the
libraries' rpath strings a word at a time; they are left aside by looking at the stacks: a
report counts when a frame of its stack is in the package's compiled code and the report is not
inside the loader.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import TESTS_DIR, _valgrind_usable

_LEAKS = ("Leak_DefinitelyLost", "Leak_IndirectlyLost")
# cffi's own module set-up (one allocation it never frees), not code of the package
_NOT_OURS = ("_cffi_init", "PyInit__cffi_acl")


def _is_ours(frame) -> bool:
    obj = frame.findtext("obj") or ""
    fn = frame.findtext("fn") or ""
    if fn in _NOT_OURS:
        return False
    return "/pyacl_hardgrad/" in obj


def _describe(err) -> str:
    what = err.findtext("kind") or "?"
    text = err.findtext("xwhat/text") or err.findtext("what") or ""
    frames = []
    for f in err.findall("stack/frame"):
        where = f.findtext("file")
        line = f.findtext("line")
        frames.append(f"    {f.findtext('fn') or '?'} ({where}:{line})" if where else
                      f"    {f.findtext('fn') or '?'} ({f.findtext('obj')})")
    return "\n".join([f"{what}: {text}"] + frames[:16])


def run(code: str, tmp_path: Path, env: dict | None = None, timeout: float = 900) -> tuple[list[str], str]:
    """Run `code` in a fresh interpreter under memcheck; (reports in the package's C, stdout).
    Counted: every error but leaks, and definite and indirect leaks.  The run must exit 0."""
    if not _valgrind_usable():
        pytest.skip("valgrind is switched off (PYACL_HARDGRAD_TEST_NO_VALGRIND=1) or not installed")
    xml = tmp_path / "memcheck.xml"
    full = {k: v for k, v in os.environ.items() if not k.startswith("PYACL_HARDGRAD_")}
    full.update(env or {})
    full["PYTHONMALLOC"] = "malloc"         # every Python block a heap block memcheck sees
    full["PYTHONPATH"] = str(TESTS_DIR)
    cmd = ["valgrind", "--tool=memcheck", "--leak-check=full", "--show-leak-kinds=definite,indirect",
           "--num-callers=40", "--xml=yes", f"--xml-file={xml}", sys.executable, "-c", textwrap.dedent(code)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=full, cwd=tmp_path, timeout=timeout)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-4000:]
    found = []
    for err in ET.parse(xml).getroot().findall("error"):
        kind = err.findtext("kind") or ""
        if kind.startswith("Leak_") and kind not in _LEAKS:
            continue
        frames = err.findall("stack/frame")
        if frames and "/ld-linux" in (frames[0].findtext("obj") or ""):
            continue            # the loader's word-wise strncmp over the libraries' rpath strings
        if any(_is_ours(f) for f in frames):
            found.append(_describe(err))
    return found, proc.stdout
