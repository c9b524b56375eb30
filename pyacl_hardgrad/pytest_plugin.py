"""pytest plugin for test suites that use pyacl_hardgrad (registered as the ``pytest11`` entry
point ``pyacl_hardgrad``; ``-p no:pyacl_hardgrad`` turns it off).  docs/pytest-plugin.md.

* fixtures ``npu_device`` (``hg.Device(0)``, current for the test) and ``npu_stream`` (a Stream
  on it): synchronized and closed after the test, which fails (an error at teardown) when an
  object it made is still alive and open then -- each named with the ``file:line`` that made it
  and closed, so the next test starts clean;
* marks ``npu`` (skip unless a real NPU backend is in use), ``multi_npu(n)`` (skip unless n
  devices), ``npu_nocheck`` (no leak check for this test);
* checking mode: ``PYACL_HARDGRAD_CHECK=1`` for the run, and the leak check of the fixtures; off
  with ``--npu-no-check`` or the ini option ``npu_check = false``.

pytest loads this module in every run of an environment where the package is installed, so it
imports nothing but the standard library and pytest: the package's C libraries and numpy are
loaded by the fixtures and marks that need them, when they run.

PYTEST_DONT_REWRITE: the package is library code, not tests (see _keep_package_unrewritten).
"""
from __future__ import annotations

import contextlib
import gc
import os
import sys
import warnings
import weakref
from collections.abc import Generator, Iterator
from typing import TYPE_CHECKING, Any

import pytest


def _keep_package_unrewritten() -> None:
    """pytest marks every module of a distribution with a ``pytest11`` entry point for assertion
    rewriting.  The package's modules are library code: rewriting them would only add pytest's
    helper names (``@py_builtins``, ``@pytest_ar``) to their namespaces, so that ``dir(acl)`` in a
    user's test differs from pyACL's.  The package's ``__init__`` (imported before this module)
    opts out with its docstring; the modules imported later are unmarked here."""
    for finder in sys.meta_path:
        marked = getattr(finder, "_must_rewrite", None)
        if isinstance(marked, set):
            marked.discard("pyacl_hardgrad")


_keep_package_unrewritten()

if TYPE_CHECKING:
    from ._tracking import ObjectRecord, ObjectTracker
    from .device import Device
    from .stream import Stream

CHECK_ENV = "PYACL_HARDGRAD_CHECK"

_MARKERS = (
    "npu: run only with a real NPU (the CANN backend); skipped on the embedded runtime",
    "multi_npu(n): run only when at least n NPUs (devices) are available; skipped otherwise",
    "npu_nocheck: no leak check by the npu_device / npu_stream fixtures for this test",
)


class _RunState:
    """What the plugin decided for one pytest run (one Config)."""

    def __init__(self, check: bool, set_env: bool) -> None:
        self.check = check          # the fixtures' leak check (and PYACL_HARDGRAD_CHECK) on
        self.set_env = set_env      # the plugin set PYACL_HARDGRAD_CHECK (and unsets it at the end)


class _TestState:
    """The npu_device fixture's state for one test."""

    def __init__(self, device: Device, tracker: ObjectTracker | None) -> None:
        self.device = device
        self.tracker = tracker


_runs: weakref.WeakKeyDictionary[Any, _RunState] = weakref.WeakKeyDictionary()
_tests: dict[str, _TestState] = {}                       # nodeid -> npu_device's state
_call_raised: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()   # item -> the test raised
_mark_skipped: weakref.WeakSet[Any] = weakref.WeakSet()   # items skipped by npu / multi_npu(n)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pyacl_hardgrad", "pyacl_hardgrad (NPU tests)")
    group.addoption("--npu-no-check", action="store_true", default=False, dest="npu_no_check",
                    help="checking mode off: no leak check in the npu_device / npu_stream fixtures, "
                         f"{CHECK_ENV} not set (the ini option npu_check = false does the same)")
    parser.addini("npu_check", type="bool", default=True,
                  help="checking mode for tests using npu_device / npu_stream: leak check and "
                       f"{CHECK_ENV}=1 (default true; --npu-no-check turns it off)")


def pytest_configure(config: pytest.Config) -> None:
    for m in _MARKERS:
        config.addinivalue_line("markers", m)
    check = not config.getoption("npu_no_check", False) and bool(config.getini("npu_check"))
    set_env = check and CHECK_ENV not in os.environ      # a value the user set is kept as it is
    if set_env:
        rt = sys.modules.get(f"{__package__}.runtime")
        if rt is not None and getattr(rt, "_count", 0) > 0:
            warnings.warn(pytest.PytestConfigWarning(
                f"pyacl_hardgrad: the runtime was initialised before pytest configured its plugins; "
                f"{CHECK_ENV}=1 takes effect at its next aclInit"), stacklevel=1)
        os.environ[CHECK_ENV] = "1"
    _runs[config] = _RunState(check, set_env)


def pytest_unconfigure(config: pytest.Config) -> None:
    run = _runs.pop(config, None)
    if run is not None and run.set_env and os.environ.get(CHECK_ENV) == "1":
        del os.environ[CHECK_ENV]


def _multi_npu_count(item: pytest.Item) -> int | None:
    """The n of the item's multi_npu(n) mark (None without one); UsageError for a bad n."""
    mark = item.get_closest_marker("multi_npu")
    if mark is None:
        return None
    args = list(mark.args)
    if "n" in mark.kwargs:
        args.append(mark.kwargs["n"])
    extra = set(mark.kwargs) - {"n"}
    n = args[0] if len(args) == 1 else None
    if extra or not isinstance(n, int) or isinstance(n, bool) or n < 1:
        given = ", ".join([repr(a) for a in mark.args] + [f"{k}={v!r}" for k, v in mark.kwargs.items()])
        raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.multi_npu(n) takes one argument, the number of "
                                f"NPUs the test needs (an int >= 1); got multi_npu({given})")
    return n


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        _multi_npu_count(item)            # a bad n is a usage error before anything runs


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip what the npu / multi_npu(n) marks ask for (before any fixture is set up)."""
    if item.get_closest_marker("npu") is not None:
        binding = _binding_or_skip(item)
        if binding.BACKEND.is_embedded:
            _skip(item, "needs a real NPU: the embedded runtime (CPU) is in use "
                        f"(PYACL_HARDGRAD_BACKEND={os.environ.get('PYACL_HARDGRAD_BACKEND', 'auto')})")
    n = _multi_npu_count(item)
    if n is not None:
        binding = _binding_or_skip(item)
        from .device import device_count
        have = device_count()
        if have < n:
            hint = " (the embedded runtime's PYACL_HARDGRAD_DEVICE_COUNT sets how many)" \
                if binding.BACKEND.is_embedded else ""
            _skip(item, f"needs {n} NPUs, {have} available{hint}")


def _skip(item: pytest.Item, reason: str) -> None:
    _mark_skipped.add(item)
    pytest.skip(reason)


def _binding_or_skip(item: pytest.Item) -> Any:
    """The loaded binding (pyacl_hardgrad._binding), or a skip saying why no backend loads."""
    try:
        from . import _binding
    except Exception as exc:            # no backend: the test cannot run here
        _skip(item, f"pyacl_hardgrad has no backend: {exc}")
    return _binding


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    if call.when == "call":
        # a test that raised keeps its frames (and what they reference) in the report until the
        # run ends: its leak check would name every local
        _call_raised[item] = call.excinfo is not None
    outcome = yield
    if call.when == "setup" and item in _mark_skipped:
        rep = outcome.get_result()
        if rep.skipped and isinstance(rep.longrepr, tuple):
            # a mark's skip: reported at the test, as pytest's own skip marks are, not in this file
            filename, line = item.reportinfo()[:2]
            rep.longrepr = (str(filename), (line or 0) + 1, rep.longrepr[2])


def _checking(request: pytest.FixtureRequest) -> bool:
    run = _runs.get(request.config)
    if run is not None and not run.check:
        return False
    return request.node.get_closest_marker("npu_nocheck") is None


@pytest.fixture
def npu_device(request: pytest.FixtureRequest) -> Iterator[Device]:
    """``hg.Device(0)``, current for the test.  Afterwards the device is synchronized; the
    objects the test made (from the moment this fixture was set up) that are still alive and
    open -- after a garbage collection -- fail the test with each named (kind, shape and dtype or
    size, device, where it was made) and are closed; then the device is closed."""
    from . import _tracking
    from .device import Device

    with contextlib.ExitStack() as stack:
        # current here; closed, and the context current before made current again, at the end
        dev: Device = stack.enter_context(Device(0))
        tracker = _tracking.track_objects().start() if _checking(request) else None
        state = _TestState(dev, tracker)
        _tests[request.node.nodeid] = state
        try:
            yield dev
        finally:
            _tests.pop(request.node.nodeid, None)
            leaks, errors = _finish_device(state)
    if leaks and not _call_raised.get(request.node, True):     # (no call: a set-up that failed)
        pytest.fail(_leak_message(request, leaks, errors), pytrace=False)


def _finish_device(state: _TestState) -> tuple[list[ObjectRecord], list[str]]:
    """Synchronize the device; (the leaks, closed now; the errors closing them)."""
    from . import _tracking

    dev, tracker = state.device, state.tracker
    errors: list[str] = []
    leaks: list[ObjectRecord] = []
    try:
        if not dev.closed:
            dev.synchronize()
    finally:
        if tracker is not None:
            leaks = tracker.live()
            if leaks:                     # only cycles may still hold some: collect, then look again
                gc.collect()
                leaks = tracker.live()
            tracker.stop()
            errors = _tracking.close_objects(leaks)
    return leaks, errors


def _leak_message(request: pytest.FixtureRequest, leaks: list[ObjectRecord], errors: list[str]) -> str:
    root = str(request.config.rootpath) + os.sep
    n = len(leaks)
    lines = [f"{n} object{'s' if n > 1 else ''} made in this test {'were' if n > 1 else 'was'} still alive "
             "and open at teardown (closed now):"]
    for r in leaks:
        f = r.filename[len(root):] if r.filename.startswith(root) else r.filename
        lines.append(f"  {r.description}, created at {f}:{r.lineno} (in {r.function})")
    lines += [f"  {e}" for e in errors]
    lines.append("Close each one (close() or `with`) or drop every reference to it before the test ends; "
                 "@pytest.mark.npu_nocheck turns the check off for one test.")
    return "\n".join(lines)


@pytest.fixture
def npu_stream(request: pytest.FixtureRequest, npu_device: Device) -> Iterator[Stream]:
    """A new Stream on ``npu_device``, synchronized and closed after the test (whose objects
    npu_device checks for leaks)."""
    s = npu_device.create_stream()
    state = _tests.get(request.node.nodeid)
    if state is not None and state.tracker is not None:
        state.tracker.ignore(s)
    try:
        yield s
    finally:
        try:
            if not s.closed:
                s.synchronize()
        finally:
            s.close()
