"""Checking mode in the suite's subprocesses: the package's pytest plugin runs the suite with
PYACL_HARDGRAD_CHECK=1, so every process the tests start prints checking mode's
`========= ERROR SUMMARY: N error(s)` at aclFinalize or exit (docs/checking.md).  A clean run's
summary (0 errors) is not output of the program under test; any finding still is."""
from __future__ import annotations

CLEAN_SUMMARY = "========= ERROR SUMMARY: 0 error(s)"


def without_clean_summary(stderr: str) -> str:
    """stderr without the lines of a checking-mode summary that found nothing."""
    return "".join(ln for ln in stderr.splitlines(keepends=True) if ln.rstrip("\n") != CLEAN_SUMMARY)
