"""pytest fixtures for the operator folders' tests: the suite's own (tests/conftest.py), and
every registered folder's tests/ on sys.path (tests/hg_registry.py)."""
import hg_registry  # noqa: F401  (puts the folders' tests/ on sys.path)
from conftest import *  # noqa: F401,F403  (tests/conftest.py: cprog, toolchain, hg, the live-count check)
from hg_pycheck import dev  # noqa: F401  (the module's Device(0), taken by the folders' tests)
