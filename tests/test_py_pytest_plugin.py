"""The pytest plugin (pyacl_hardgrad.pytest_plugin, entry point pytest11) run on users' test suites,
and the object tracking behind its leak check (hg.track_objects / hg.live_objects).

The suites run in a fresh pytest process each (pytester's runpytest_subprocess): the runtime,
the tracking and the checking mode's environment variable are process-wide."""
from __future__ import annotations

import gc
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

pytest_plugins = ["pytester"]

CHECK_ENV = "PYACL_HARDGRAD_CHECK"


@pytest.fixture
def suite(pytester, monkeypatch):
    """pytester with a clean environment: the plugin of this run set PYACL_HARDGRAD_CHECK, and
    a device count or backend of the caller's must not reach the suites."""
    for var in (CHECK_ENV, "PYACL_HARDGRAD_DEVICE_COUNT", "PYTEST_ADDOPTS"):
        monkeypatch.delenv(var, raising=False)
    return pytester


def _run(pytester, *args):
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rs", *args, timeout=240)


def _line_of(path, marker: str) -> int:
    """The line of the file ``path`` that holds ``marker`` (a comment on that line)."""
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if marker in line)


USER_SUITE = """
    import numpy as np
    import pytest

    import pyacl_hardgrad as hg

    GRAD = np.arange(8, dtype=np.float32).reshape(4, 2)
    X = np.array([1, 1, 1, 2, 1, 2, 3, 3], np.float32).reshape(4, 2)


    def hardtanh_backward_model(grad, x, lo, hi):
        return np.where((x > lo) & (x < hi), grad, 0).astype(np.float32)


    def test_one_call_on_the_fixture_stream(npu_device, npu_stream):
        with hg.Tensor(GRAD, npu_device) as g, hg.Tensor(X, npu_device) as x:
            with hg.hardtanh_backward(g, x, 1.2, 2.4, stream=npu_stream) as out:
                np.testing.assert_array_equal(out.numpy(), hardtanh_backward_model(GRAD, X, 1.2, 2.4))


    def test_outputs_given_and_views(npu_device, npu_stream):
        with hg.Tensor(GRAD, npu_device) as g, hg.Tensor(X, npu_device) as x, \\
                hg.empty((2, 4), "float32", npu_device) as out:
            hg.hardsigmoid_backward(g.T, x.T, out=out, stream=npu_stream, sync=True)
            assert out.numpy().shape == (2, 4)


    def test_plan_runs_three_times(npu_device, npu_stream):
        with hg.Tensor(GRAD, npu_device) as g, hg.Tensor(X, npu_device) as x, \\
                hg.HardtanhBackwardPlan(g, x, 1.2, 2.4, repeatable=True) as plan:
            for _ in range(3):
                plan.run(stream=npu_stream)
            npu_stream.synchronize()
            np.testing.assert_array_equal(plan.out.numpy(), hardtanh_backward_model(GRAD, X, 1.2, 2.4))


    @pytest.mark.parametrize("dtype", ["float32", "float16"])
    def test_numpy_round_trip(npu_device, dtype):
        a = np.linspace(-3, 3, 24, dtype=dtype).reshape(2, 3, 4)
        with hg.Tensor(a, npu_device) as t:
            np.testing.assert_array_equal(t.numpy(), a)
            np.testing.assert_array_equal(t[1, :, ::2].numpy(), a[1, :, ::2])


    def test_memory_and_events(npu_device, npu_stream):
        with npu_device.allocate(64) as mem:
            mem.copy_from_host(bytes(range(64)), stream=npu_stream)
            ev = npu_stream.record()
            ev.synchronize()
            ev.close()
            assert bytes(mem.copy_to_host()) == bytes(range(64))


    def test_objects_dropped_without_close_are_not_leaks(npu_device):
        hg.empty((16,), "float32", npu_device)           # freed (and closed) when dropped
        t = hg.zeros((4,), "float32", npu_device)
        del t


    def test_numpy_one_call_without_fixtures():
        out = hg.hardtanh_backward(GRAD, X, 1.2, 2.4)
        np.testing.assert_array_equal(out, hardtanh_backward_model(GRAD, X, 1.2, 2.4))


    @pytest.mark.npu
    def test_only_on_a_real_npu(npu_device):
        assert not hg.BACKEND.is_embedded
"""


def test_a_sample_user_suite_passes_on_the_embedded_runtime(suite):
    suite.makepyfile(test_user=USER_SUITE)
    r = _run(suite)
    r.assert_outcomes(passed=8, skipped=1)
    r.stdout.fnmatch_lines(["SKIPPED [[]1[]] test_user.py:*: needs a real NPU: the embedded runtime (CPU) is in use*"])


LEAKY_SUITE = """
    import numpy as np
    import pytest

    import pyacl_hardgrad as hg

    kept = []


    def test_leaks_a_tensor(npu_device):
        kept.append(hg.Tensor(np.ones((4, 2), np.float32), npu_device))   # LEAK-TENSOR


    def test_leaks_device_memory_and_a_stream(npu_device):
        kept.append(npu_device.allocate(1000))                            # LEAK-MEMORY
        kept.append(npu_device.create_stream())                           # LEAK-STREAM


    def test_leaks_tensors_made_in_c(npu_device, npu_stream):
        kept.append(hg.empty((3, 5), "float16", npu_device))              # LEAK-EMPTY
        with hg.Tensor(np.ones(6, np.float32), npu_device) as t:
            kept.append(hg.hardtanh_backward(t, t, stream=npu_stream))    # LEAK-OUT


    def test_closes_what_it_keeps(npu_device):
        t = hg.Tensor(np.ones(3, np.float32), npu_device)
        kept.append(t)
        t.close()


"""

CHECKED_END = """
    def test_the_leaks_were_closed_after_their_tests():
        assert len(kept) == 6 and all(o.closed for o in kept)
"""

UNCHECKED_END = f"""
    def test_nothing_was_closed_nor_checked():
        import os
        assert "{CHECK_ENV}" not in os.environ
        assert len(kept) == 6 and sum(o.closed for o in kept) == 1
        for o in kept:
            o.close()
"""


def test_a_seeded_leak_fails_its_test_naming_each_object_and_where_it_was_made(suite):
    path = suite.makepyfile(test_leaky=LEAKY_SUITE + CHECKED_END)
    r = _run(suite)
    r.assert_outcomes(passed=5, errors=3)
    at = {m: _line_of(path, m) for m in ("LEAK-TENSOR", "LEAK-MEMORY", "LEAK-STREAM", "LEAK-EMPTY", "LEAK-OUT")}
    r.stdout.fnmatch_lines([
        "*ERROR at teardown of test_leaks_a_tensor*",
        "1 object made in this test was still alive and open at teardown (closed now):",
        f"  Tensor shape=(4, 2) dtype=float32 device=0, created at test_leaky.py:{at['LEAK-TENSOR']} "
        "(in test_leaks_a_tensor)",
        "*ERROR at teardown of test_leaks_device_memory_and_a_stream*",
        "2 objects made in this test were still alive and open at teardown (closed now):",
        f"  DeviceMemory 1000 bytes device=0, created at test_leaky.py:{at['LEAK-MEMORY']} "
        "(in test_leaks_device_memory_and_a_stream)",
        f"  Stream device=0, created at test_leaky.py:{at['LEAK-STREAM']} (in test_leaks_device_memory_and_a_stream)",
        "*ERROR at teardown of test_leaks_tensors_made_in_c*",
        f"  Tensor shape=(3, 5) dtype=float16 device=0, created at test_leaky.py:{at['LEAK-EMPTY']} "
        "(in test_leaks_tensors_made_in_c)",
        f"  Tensor shape=(6,) dtype=float32 device=0, created at test_leaky.py:{at['LEAK-OUT']} "
        "(in test_leaks_tensors_made_in_c)",
    ])
    assert "test_closes_what_it_keeps" not in r.stdout.str().split("short test summary")[0]
    # the fixtures' own device and stream are not leaks, nor are the objects closed in time
    assert len(re.findall(r"created at", r.stdout.str())) == 5


def test_a_failing_test_or_set_up_reports_its_failure_and_not_its_locals(suite):
    suite.makepyfile(test_fails="""
        import numpy as np
        import pytest
        import pyacl_hardgrad as hg

        kept = []

        def test_fails_holding_a_tensor(npu_device):
            t = hg.Tensor(np.ones(4, np.float32), npu_device)
            kept.append(t)
            assert t.numpy().sum() == 5

        @pytest.fixture
        def broken(npu_device):
            kept.append(hg.zeros((2,), "float32", npu_device))
            raise RuntimeError("set-up failed")

        def test_whose_set_up_fails(broken):
            pass

        def test_its_objects_were_closed_all_the_same():
            assert len(kept) == 2 and all(t.closed for t in kept)
    """)
    r = _run(suite)
    r.assert_outcomes(passed=1, failed=1, errors=1)
    r.stdout.fnmatch_lines(["*ERROR at setup of test_whose_set_up_fails*"])
    assert "still alive and open" not in r.stdout.str()


def test_checking_mode_sets_the_variable_for_the_run_unless_the_user_set_one(suite, monkeypatch):
    suite.makepyfile(test_env=f"""
        import os

        def test_variable():
            assert os.environ.get("{CHECK_ENV}") == os.environ["EXPECTED"]
    """)
    monkeypatch.setenv("EXPECTED", "1")
    _run(suite).assert_outcomes(passed=1)
    monkeypatch.setenv(CHECK_ENV, "0")
    monkeypatch.setenv("EXPECTED", "0")
    _run(suite).assert_outcomes(passed=1)


@pytest.mark.parametrize("how", ["--npu-no-check", "ini npu_check = false"])
def test_checking_mode_opt_outs_turn_off_the_leak_check_and_the_variable(suite, how):
    suite.makepyfile(test_leaky=LEAKY_SUITE + UNCHECKED_END)
    if how.startswith("ini"):
        suite.makeini("[pytest]\nnpu_check = false\n")
        r = _run(suite)
    else:
        r = _run(suite, how)
    r.assert_outcomes(passed=5)


def test_the_npu_nocheck_mark_turns_off_the_leak_check_of_one_test(suite):
    suite.makepyfile(test_marked="""
        import numpy as np
        import pytest
        import pyacl_hardgrad as hg

        kept = []

        @pytest.mark.npu_nocheck
        def test_unchecked(npu_device):
            kept.append(hg.Tensor(np.ones(2, np.float32), npu_device))

        def test_checked(npu_device):
            kept.append(hg.Tensor(np.ones(3, np.float32), npu_device))

        def test_after():
            assert not kept[0].closed and kept[1].closed
            kept[0].close()
    """)
    r = _run(suite, "--strict-markers")
    r.assert_outcomes(passed=3, errors=1)
    r.stdout.fnmatch_lines(["*ERROR at teardown of test_checked*", "  Tensor shape=(3,) dtype=float32 *"])


MULTI_SUITE = """
    import numpy as np
    import pytest
    import pyacl_hardgrad as hg

    @pytest.mark.multi_npu(2)
    def test_two_devices():
        assert hg.device_count() >= 2
        with hg.Device(1) as d1, hg.Tensor(np.arange(4, dtype=np.float32), d1) as t:
            assert t.device_id == 1
            np.testing.assert_array_equal(hg.hardshrink(t, 0.5, sync=True).numpy(), [0, 1, 2, 3])
"""


def test_multi_npu_skips_with_one_device_and_runs_with_two(suite, monkeypatch):
    suite.makepyfile(test_multi=MULTI_SUITE)
    r = _run(suite, "--strict-markers")
    r.assert_outcomes(skipped=1)
    r.stdout.fnmatch_lines(["SKIPPED [[]1[]] test_multi.py:*: needs 2 NPUs, 1 available (the embedded runtime's "
                            "PYACL_HARDGRAD_DEVICE_COUNT sets how many)"])
    monkeypatch.setenv("PYACL_HARDGRAD_DEVICE_COUNT", "2")
    _run(suite, "--strict-markers").assert_outcomes(passed=1)


@pytest.mark.parametrize("mark", ["multi_npu()", "multi_npu(0)", "multi_npu('2')", "multi_npu(2, 3)",
                                  "multi_npu(True)", "multi_npu(m=2)"])
def test_multi_npu_with_a_bad_count_is_a_usage_error(suite, mark):
    suite.makepyfile(test_bad=f"""
        import pytest

        @pytest.mark.{mark}
        def test_x():
            pass
    """)
    r = _run(suite)
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    r.stderr.fnmatch_lines(["*test_bad.py::test_x: @pytest.mark.multi_npu(n) takes one argument, the number of "
                            f"NPUs the test needs (an int >= 1); got {mark}"])


def test_loading_the_plugin_loads_neither_the_c_libraries_nor_numpy(tmp_path):
    (tmp_path / "test_unrelated.py").write_text("def test_nothing():\n    pass\n")
    code = textwrap.dedent("""
        import sys
        import pytest

        ret = pytest.main(["--co", "-q", "-p", "no:cacheprovider", sys.argv[1]])
        loaded = sorted(m for m in sys.modules if m.startswith("pyacl_hardgrad") or m == "numpy")
        print("RET", int(ret), "LOADED", " ".join(loaded))
    """)
    p = subprocess.run([sys.executable, "-c", code, str(tmp_path / "test_unrelated.py")], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    line = next(x for x in p.stdout.splitlines() if x.startswith("RET"))
    assert line == "RET 0 LOADED pyacl_hardgrad pyacl_hardgrad._paths pyacl_hardgrad.pytest_plugin", p.stdout + p.stderr


def test_the_markers_are_registered_for_strict_markers(suite):
    r = _run(suite, "--markers")
    r.stdout.fnmatch_lines(["@pytest.mark.npu: *", "@pytest.mark.multi_npu(n): *", "@pytest.mark.npu_nocheck: *"])


# ---- the object tracking itself (in this process) -----------------------------------------------

def _marked(marker: str) -> int:
    """The line of this file that ends with the comment ``# <marker>``."""
    with open(__file__) as f:
        return next(i for i, line in enumerate(f, 1) if line.rstrip().endswith(f"# {marker}"))


def test_tracked_objects_name_their_kind_shape_and_the_line_that_made_them(hg):
    with hg.track_objects() as tr, hg.Device(0) as dev:        # MADE-DEVICE
        t = hg.Tensor(np.ones((2, 3), np.float32), dev)        # MADE-TENSOR
        e = hg.empty((5,), "float16", dev)                     # MADE-EMPTY
        o = hg.hardsigmoid(t)                                  # MADE-OUT
        v = t[1]                                               # MADE-VIEW
        m = dev.allocate(48)                                   # MADE-MEMORY
        s = hg.Scalar(2.5)                                     # MADE-SCALAR
        recs = tr.live()
        name = "test_tracked_objects_name_their_kind_shape_and_the_line_that_made_them"
        assert [(r.description, r.lineno, r.function) for r in recs] == [
            ("Device 0", _marked("MADE-DEVICE"), name),
            ("Tensor shape=(2, 3) dtype=float32 device=0", _marked("MADE-TENSOR"), name),
            ("Tensor shape=(5,) dtype=float16 device=0", _marked("MADE-EMPTY"), name),
            ("Tensor shape=(2, 3) dtype=float32 device=0", _marked("MADE-OUT"), name),
            ("Tensor shape=(3,) dtype=float32 device=0", _marked("MADE-VIEW"), name),
            ("DeviceMemory 48 bytes device=0", _marked("MADE-MEMORY"), name),
            ("Scalar 2.5 float32", _marked("MADE-SCALAR"), name)]
        assert all(r.filename == __file__ and r.site == f"{__file__}:{r.lineno}" for r in recs)
        assert str(recs[1]) == (f"Tensor shape=(2, 3) dtype=float32 device=0, created at {__file__}:"
                                f"{_marked('MADE-TENSOR')} (in {name})")
        for x in (v, t, e, o, m, s):
            x.close()
        assert [r.kind for r in tr.live()] == ["Device"]
        assert len(tr.live(include_closed=True)) == 7


def test_tracking_holds_weak_references_and_is_off_outside_the_block(hg):
    from pyacl_hardgrad import _lifetime

    with hg.track_objects() as tr:
        t = hg.zeros((4,), "float32")
        ref = tr.live()[0].ref
        assert ref() is t
        del t
        gc.collect()
        assert ref() is None and tr.live() == []
    assert _lifetime._track is None and not tr.active
    t = hg.zeros((4,), "float32")          # made with tracking off: not recorded
    assert all(r.object is not t for r in hg.live_objects())
    t.close()


def test_nested_trackers_each_see_their_own_objects(hg):
    with hg.track_objects() as outer:
        a = hg.zeros((1,), "float32")
        with hg.track_objects() as inner:
            b = hg.zeros((2,), "float32")
        c = hg.zeros((3,), "float32")       # still tracked: the outer tracker is on
        assert [r.object for r in inner.live()] == [b]
        assert [r.object for r in outer.live()] == [a, b, c]
        for x in (a, b, c):
            x.close()


def test_what_the_package_keeps_for_itself_is_not_listed(hg):
    hg.release_defaults()
    with hg.track_objects() as tr:
        # the default device, its default stream and the cached bound Scalars are made here
        hg.hardtanh_backward(np.ones(3, np.float32), np.ones(3, np.float32), 0.25, 3.5)
        assert tr.live() == []


def test_a_tracker_that_raises_in_c_leaves_no_tensor_behind(hg):
    from pyacl_hardgrad import _fastcall

    def refuse(t):
        raise RuntimeError("tracker refused")

    with hg.Device(0) as dev:
        hg.empty((4,), "float32", dev).close()          # the device's context is made: the C path
        dev.default_stream                              # (the one-call's stream, made before counting)
        gc.collect()
        before = hg.live_counts()
        _fastcall.set_tracker(refuse)
        try:
            with pytest.raises(RuntimeError, match="tracker refused"):
                hg.empty((4,), "float32", dev)
            with hg.Tensor(np.ones(4, np.float32), dev) as t, pytest.raises(RuntimeError, match="tracker refused"):
                hg.hardsigmoid(t)                       # an output made by the one-call's C front
        finally:
            _fastcall.set_tracker(None)
        gc.collect()
        assert hg.live_counts() == before
    with pytest.raises(TypeError, match="set_tracker"):
        _fastcall.set_tracker(42)


def test_the_plugin_leaves_the_package_modules_unrewritten() -> None:
    """pytest rewrites the asserts of every module of a pytest11 plugin's distribution; the
    package's modules opt out, so their namespaces hold no pytest helper names under pytest."""
    import pyacl_hardgrad as hg
    import pyacl_hardgrad.acl as acl
    import pyacl_hardgrad.tensor as tensor
    for mod in (hg, acl, tensor):
        assert [n for n in dir(mod) if n.startswith("@")] == [], mod.__name__
