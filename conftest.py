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
_loaded = getattr(sys.modules.get("pyacl_hardgrad"), "__file__", None)
if _loaded and os.path.dirname(os.path.abspath(_loaded)) == os.path.join(_here, "pyacl_hardgrad"):
    # `python -m pytest` from the checkout: loading the package's pytest plugin (entry point
    # pytest11) imported the source tree's package, its pure-Python part only; the installed one
    # replaces it (the plugin, already registered, imports what it needs from there)
    for _name in [n for n in sys.modules if n == "pyacl_hardgrad" or n.startswith("pyacl_hardgrad.")]:
        del sys.modules[_name]
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]
try:
    import pyacl_hardgrad  # noqa: F401
except ImportError:         # not installed: the tests that need it say so
    pass
finally:
    sys.path[:] = _saved
