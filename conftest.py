"""Loaded by pytest before any other conftest: imports the *installed* pyacl_hardgrad first.

The operator folders' tests live inside the source tree's package folder
(pyacl_hardgrad/_embedded/opapi/ops/<folder>/tests), and pytest's importlib mode imports a test
module's parent packages by path; with the installed package already imported it reuses that
one instead of loading the uncompiled source tree (tests/conftest.py checks which one it is).
"""
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
_saved = list(sys.path)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]
try:
    import pyacl_hardgrad  # noqa: F401
except ImportError:         # not installed: the tests that need it say so
    pass
finally:
    sys.path[:] = _saved
