"""The benchmark harness (python -m pyacl_hardgrad bench) runs end to end at tiny sizes and
writes the JSON structure docs/performance.md describes.  No timing is asserted, ever: only
that every measurement exists, is a positive number, and the derived ratios/targets follow."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest

STAT_KEYS = {"median_ns", "min_ns", "iters", "repeats"}
ROW_MEASUREMENTS = ("python_fresh", "python_plan", "python_fresh_sync", "python_plan_sync", "python_plan_async",
                    "cpp_fresh", "cpp_plan", "cpp_plan_async", "torch_matched", "torch_default", "numpy")
TARGET_NAMES = 9
PAIRED_MODES = {"fresh": "python_fresh_over_cpp_fresh_paired", "plan": "python_plan_over_cpp_plan_paired",
                "fresh_sync": "python_fresh_sync_over_cpp_fresh_paired",
                "plan_sync": "python_plan_sync_over_cpp_plan_paired",
                "plan_async": "python_async_over_cpp_async_paired"}


def _check_stats(s):
    assert STAT_KEYS <= set(s), s
    assert s["median_ns"] > 0 and s["min_ns"] > 0 and s["min_ns"] <= s["median_ns"]
    assert isinstance(s["iters"], int) and s["iters"] >= 1


@pytest.fixture(scope="module")
def bench(hg):
    import pyacl_hardgrad.bench as bench
    return bench


@pytest.fixture(scope="module")
def tiny(bench):
    pytest.importorskip("torch")
    return bench.run(sizes=[8, 100], dtypes=["float32", "bfloat16"], ops=list(bench.runner.DEFAULT_OPS[:2]),
                     repeat=2, target_ms=2, rounds=3, rss_calls=300, quiet=True)


def test_bench_result_structure(bench, tiny):
    r = tiny
    ops = bench.runner.DEFAULT_OPS[:2]
    assert r["schema"] == "pyacl_hardgrad-bench/1"
    assert r["backend"] in ("sim", "cann")
    assert r["threads"]["ours"] >= 1 and r["threads"]["torch_matched"] == r["threads"]["ours"]
    assert r["threads"]["torch_default"] >= 1
    assert "error" not in r["cpp"], r["cpp"]
    assert r["cpp"]["mode"] == "paired" and r["cpp"]["rounds"] == 3 and r["settings"]["rounds"] == 3
    assert len(r["results"]) == len(ops) * 2 * 2
    assert {(x["op"], x["dtype"], x["size"]) for x in r["results"]} == {
        (op, d, n) for op in ops for d in ("float32", "bfloat16") for n in (8, 100)}
    for row in r["results"]:
        itemsize = 4 if row["dtype"] == "float32" else 2
        assert row["bytes_moved"] == 3 * itemsize * row["size"]
        for key in ROW_MEASUREMENTS:
            _check_stats(row[key])
            assert row[key]["gbps"] == pytest.approx(row["bytes_moved"] / row[key]["median_ns"])
        assert row["matches_numpy"] is True
        ra = row["ratios"]
        assert ra["python_fresh_over_cpp_fresh"] == pytest.approx(
            row["python_fresh"]["median_ns"] / row["cpp_fresh"]["median_ns"])
        assert ra["speedup_vs_torch_matched"] == pytest.approx(
            row["torch_matched"]["median_ns"] / row["python_plan"]["median_ns"])
        assert all(v is not None and v > 0 and math.isfinite(v) for v in ra.values()), ra
        # C++ and Python were timed round by round; the stats are over those rounds and the
        # paired ratio is the median of the per-round ratios
        paired = row["paired"]
        assert paired["rounds"] == 3 and paired["order"] == "alternating, cells round-robin"
        for mode, key in PAIRED_MODES.items():
            p = paired[mode]
            assert len(p["ratios"]) == len(p["python_ns"]) == len(p["cpp_ns"]) == 3
            assert p["ratios"] == pytest.approx([a / b for a, b in zip(p["python_ns"], p["cpp_ns"])])
            assert ra[key] == pytest.approx(sorted(p["ratios"])[1])
            # the sync=True forms are paired with the same C++ loops as the two-call forms; the
            # row's C++ stats come from the first pairing
            sides = (("python", p["python_ns"]),) + ((("cpp", p["cpp_ns"]),) if "sync" not in mode else ())
            for side, times in sides:
                st = row[f"{side}_{mode}"]
                assert st["repeats"] == 3
                assert st["median_ns"] == pytest.approx(sorted(times)[1])
                assert st["min_ns"] == pytest.approx(min(times))
    assert len(r["copy"]) == 2 * 2
    for c in r["copy"]:
        _check_stats(c)
    for key in ("binding", "ctypes", "python_loop", "c"):
        _check_stats(r["trivial_call"][key])


def test_bench_floor_pairs_bare_binding_loops_with_cpp(bench, tiny):
    """The floor study: bare binding loops (checked to compute the operator) timed in rounds
    with the C++ loops they do the same work as."""
    fl = tiny["floor"]
    assert [n for n, _, _ in bench.runner.FLOOR_ITEMS] == list(fl)
    for name, f in fl.items():
        _check_stats(f["python"])
        _check_stats(f["cpp"])
        assert f["cpp_mode"] in ("plan", "fresh") and f["calls"]
        assert f["ratio_paired"] > 0 and math.isfinite(f["ratio_paired"])
    assert "floor at 8 elements" in bench.format_report(tiny)


def test_bench_rss_and_targets(tiny):
    rss = tiny["rss"]
    assert rss["requested_calls"] == 300 and rss["calls"] == 300 and rss["reduced"] is False
    assert rss["rss_before_kib"] > 0 and rss["rss_after_kib"] > 0
    names = [t["target"] for t in tiny["targets"]]
    assert len(names) == TARGET_NAMES
    by = {t["target"]: t for t in tiny["targets"]}
    # no size >= 1M was run: the throughput targets are reported as not measured
    big = [t for n, t in by.items() if "n >= 1M" in n]
    assert len(big) == 3 and all(t["met"] is None and t["measured"] is None for t in big)
    small = [t for t in tiny["targets"] if t["met"] is not None]
    assert len(small) == 6
    for t in small:
        assert isinstance(t["met"], bool) and t["measured"] >= 0
    # the Python/C++ targets use the per-round ratio medians
    for name, key in (("fresh plan per call, + synchronize()", "python_fresh_over_cpp_fresh_paired"),
                      ("fresh plan per call, sync=True", "python_fresh_sync_over_cpp_fresh_paired"),
                      ("repeatable plan, run(sync=True)", "python_plan_sync_over_cpp_plan_paired")):
        t = by[f"Python / C++ at 8 elements, {name}"]
        assert t["measured"] == max(x["ratios"][key] for x in tiny["results"] if x["size"] == 8)


def test_bench_report_renders(bench, tiny):
    text = bench.format_report(tiny)
    assert text.splitlines()[0].split()[:4] == ["op", "dtype", "n", "py"]
    assert "targets:" in text and "aclrtGetDevice per call" in text
    md = bench.format_report(tiny, markdown=True).splitlines()
    assert md[0].startswith("| op | dtype | n |") and md[1].startswith("|---|---|---|")
    assert len([ln for ln in md if ln.startswith("| hard")]) == 8


def test_bench_thread_count_follows_env(bench, monkeypatch):
    monkeypatch.setenv("PYACL_HARDGRAD_THREADS", "3")
    assert bench.runner.our_kernel_threads() == 3
    monkeypatch.setenv("PYACL_HARDGRAD_THREADS", "0")
    assert bench.runner.our_kernel_threads() == os.sysconf("SC_NPROCESSORS_ONLN")


def test_bench_targets_logic(bench):
    """evaluate_targets picks the worst cell and compares it with the issue's thresholds."""
    def row(op, dtype, size, torch_ns, plan_ns, frac, fresh_ratio, plan_ratio):
        return {"op": op, "dtype": dtype, "size": size,
                "ratios": {"speedup_vs_torch_matched": torch_ns / plan_ns, "fraction_of_copy_bandwidth": frac,
                           "python_fresh_over_cpp_fresh": fresh_ratio, "python_plan_over_cpp_plan": plan_ratio}}
    result = {
        "results": [row("some_op", "float32", 1 << 20, 100, 50, 0.9, None, None),
                    row("some_op", "float32", 1 << 24, 100, 125, 0.7, None, None),
                    row("some_op", "bfloat16", 1 << 20, 300, 100, 0.85, None, None),
                    row("some_op", "float32", 8, 1, 1, 0.01, 1.4, 1.3)],
        "trivial_call": {"binding": {"median_ns": 50.0}, "ctypes": {"median_ns": 100.0}},
        "rss": {"calls": 1000, "change_pct": -6.0},
    }
    got = [(x["met"], x["measured"] if x["measured"] is None else round(x["measured"], 6))
           for x in bench.evaluate_targets(result)]
    # the sync=True forms were not measured in these rows: reported, not guessed
    assert got == [(False, 0.8), (True, 3.0), (False, 0.7), (None, None), (True, 1.4), (None, None), (False, 1.3),
                   (False, 2.0), (False, 6.0)]
    # with per-round ratio medians present, those decide the Python/C++ targets
    result["results"][3]["ratios"].update(python_fresh_over_cpp_fresh_paired=1.6,
                                          python_plan_over_cpp_plan_paired=1.1,
                                          python_fresh_sync_over_cpp_fresh_paired=1.45,
                                          python_plan_sync_over_cpp_plan_paired=1.25)
    got = [(x["met"], round(x["measured"], 6)) for x in bench.evaluate_targets(result)]
    assert got[3:7] == [(True, 1.45), (False, 1.6), (False, 1.25), (True, 1.1)]


def test_bench_cpp_server_protocol(bench):
    """The persistent C++ child: calibrate, time one batch, report bad commands and go on."""
    first, last = bench.runner.DEFAULT_OPS[0], bench.runner.DEFAULT_OPS[-1]
    server, info = bench.runner.start_cpp_server()
    assert server is not None, info
    try:
        cal = server.ask("cell", last, "bfloat16", 8, "plan", 0, "0.5")
        assert isinstance(cal["iters"], int) and cal["iters"] >= 1 and cal["calib_ns"] > 0
        one = server.ask("cell", last, "bfloat16", 8, "plan", 5, 0)
        assert one["iters"] == 5 and one["ns"] > 0
        for bad, msg in ((("cell", "relu", "float32", 8, "plan", 1, 0), "unknown op"),
                         (("cell", first, "float64", 8, "plan", 1, 0), "unknown dtype"),
                         (("cell", first, "float32", 0, "plan", 1, 0), "bad size"),
                         (("cell", first, "float32", 8, "later", 1, 0), "unknown mode"),
                         (("bogus",), "unknown command")):
            with pytest.raises(bench.runner.CppError, match=msg):
                server.ask(*bad)
        assert server.ask("cell", first, "float32", 16, "fresh", 2, 0)["iters"] == 2
        tc = server.ask("trivial", 1, "0.5")
        assert STAT_KEYS <= set(tc) and tc["median_ns"] > 0
    finally:
        server.close()
    assert server.proc.returncode == 0


@pytest.mark.parametrize("text,n", [("8", 8), ("4096", 4096), ("4K", 4096), ("1M", 1 << 20),
                                    ("16M", 1 << 24), ("1<<20", 1 << 20)])
def test_bench_parse_size(bench, text, n):
    assert bench.parse_size(text) == n


def test_bench_cli_writes_json(hg, tmp_path):
    from pyacl_hardgrad.bench.runner import DEFAULT_OPS
    op = DEFAULT_OPS[0]
    out = tmp_path / "bench.json"
    proc = subprocess.run([sys.executable, "-m", "pyacl_hardgrad", "bench", "--sizes", "8", "--dtypes", "float16",
                           "--ops", op, "--repeat", "1", "--target-ms", "1", "--rounds", "2", "--rss-calls", "100",
                           "--no-torch", "-q", "--json", str(out)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[0].split()[:3] == ["op", "dtype", "n"]
    data = json.loads(out.read_text())
    assert data["command"].startswith("python -m pyacl_hardgrad bench --sizes 8")
    [row] = data["results"]
    assert (row["op"], row["dtype"], row["size"]) == (op, "float16", 8)
    assert "torch_matched" not in row and row["matches_numpy"] is True
    _check_stats(row["python_plan"])
    _check_stats(row["cpp_plan"])
    assert row["cpp_plan"]["repeats"] == 2 and len(row["paired"]["plan"]["ratios"]) == 2
    assert data["rss"]["calls"] == 100


def test_compare_times_two_installs_in_alternating_rounds(hg):
    """bench.compare with this interpreter on both sides: one line per call form, with ratios
    and the call counts."""
    proc = subprocess.run([sys.executable, "-m", "pyacl_hardgrad.bench.compare", sys.executable, sys.executable,
                           "--rounds", "1", "--modes", "a_fresh_s,plan_async,b_numpy"],
                          capture_output=True, text=True, timeout=300, cwd="/")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:4] == ["mode", "old", "us", "new"]
    rows = {ln.split()[0]: ln.split() for ln in lines[1:]}
    assert set(rows) == {"a_fresh_s", "plan_async", "b_numpy"}
    assert rows["a_fresh_s"][-3:] == ["1/1", "->", "1/1"]     # one Python call, one crossing
    assert rows["b_numpy"][-1].endswith("/1")                 # numpy in, numpy out: one crossing
    assert all(float(r[3]) > 0 for r in rows.values())
