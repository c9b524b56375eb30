"""Run every registered operator's sample ports in fresh interpreters and check what they print.

Same as ``python -m pyacl_hardgrad samples``.  Exit status 0 when all match.
"""
import sys

from pyacl_hardgrad.__main__ import run_samples

if __name__ == "__main__":
    raise SystemExit(run_samples(verbose="-v" in sys.argv[1:]))
