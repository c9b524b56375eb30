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
                     repeat=2, target_ms=2, rounds=3, rss_calls=300, quiet=True, sweep=[8, 16], sweep_ms=2,
                     first_calls=50, first_procs=1)


def test_bench_result_structure(bench, tiny):
    r = tiny
    ops = bench.runner.DEFAULT_OPS[:2]
    assert r["schema"] == "pyacl_hardgrad-bench/2"
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


def test_bench_sections_structure(bench, tiny):
    """The sections measured in worker processes: every cell, side and form is there, times are
    positive, ratios are the medians of the per-round ratios of their two sides."""
    from pyacl_hardgrad.bench import sections as S
    ops, dtypes = list(bench.runner.DEFAULT_OPS[:2]), ["float32", "bfloat16"]
    sw = tiny["sweep"]
    assert sw["sizes"] == [8, 16]
    assert sw["forced"] == [p for p in S.KERNEL_PATHS if S.kernel_paths()[p] is None]
    assert sw["auto_path"] in S.KERNEL_PATHS
    # PyTorch ran in a worker of its own; the worker that timed ours never imported it
    assert sw["torch_worker"] == "sweep-torch" and sw["settle_ms"] == S.DEFAULT_SETTLE_MS
    assert sw["torch_imported"] == {"auto": False, "torch": True, **{p: False for p in sw["forced"]}}
    assert sw["threads"] == {"ours": tiny["threads"]["ours"], "torch": tiny["threads"]["ours"]}
    assert "torch" not in sw["trace"] and set(sw["trace"]) == {"auto", *sw["forced"]}
    assert [(r["op"], r["dtype"], r["size"]) for r in sw["results"]] == [
        (op, d, n) for d in dtypes for n in (8, 16) for op in ops]
    for r in sw["results"]:
        for key in ("ours", "ours_call", "torch"):
            _check_stats(r[key])
        assert set(r["copy"]) == {"copy", "torch_copy"} and set(r["paths"]) == set(sw["forced"])
        assert set(r["rounds"]) == {"ours", "ours_call", "torch", *sw["forced"]}
        assert all(len(v) == 3 for v in r["rounds"].values())
        ra = r["ratios"]
        assert ra["ours_over_torch"] == pytest.approx(sorted(a / b for a, b in zip(r["rounds"]["ours"],
                                                                                   r["rounds"]["torch"]))[1])
        assert ra["fraction_of_copy"] > 0 and set(ra["path_over_auto"]) == set(sw["forced"])
        assert all(r["matches_numpy"].values()) and set(r["matches_numpy"]) == {"auto", *sw["forced"]}
        assert set(r["settle_ms"]) == {"ours", "ours_call", "torch", "copy", "torch_copy", *sw["forced"]}
        assert all(v > 0 for v in r["settle_ms"].values())
    pl = tiny["placement"]
    if "na" not in pl:
        assert len(pl["one_cpu"]) == 1 and len(pl["two_cpus"]) == 2
        assert {(r["op"], r["side"], r["form"]) for r in pl["results"]} == {
            *((op, "python", f) for op in ops for f in ("out_s", "plan_s")),
            *((op, "C++", m) for op in ops for m in ("fresh", "plan"))}
        assert all(r["ratio"] > 0 and len(r["rounds"]["one_cpu"]) == 3 for r in pl["results"])
    fm = tiny["forms"]["results"]
    assert {(r["op"], r["dtype"], r["form"]) for r in fm} == {
        *((op, d, f) for op in ops for d in dtypes for f in ("numpy", "noout", "out_s", "plan_s")),
        *((None, d, "alloc") for d in dtypes)}
    for r in fm:
        _check_stats(r["sides"][r["form"]])
        want = {"numpy": None, "noout": "torch_eager", "out_s": "cpp_fresh", "plan_s": "cpp_plan",
                "alloc": "cpp_alloc"}[r["form"]]
        assert r["against"] == want
        if want:
            assert r["ratio"] == pytest.approx(sorted(a / b for a, b in zip(r["rounds"][r["form"]],
                                                                            r["rounds"][want]))[1])
    assert all(all(v.values()) for v in tiny["forms"]["matches_numpy"].values())
    fc = tiny["first_calls"]
    assert [r["form"] for r in fc["results"]] == list(S.FIRST_FORMS)
    assert all(r["mean_ns"] > 0 and len(r["runs"]) == 1 for r in fc["results"])
    rs = tiny["rss_flat"]
    assert [r["form"] for r in rs["results"]] == list(S.RSS_FORMS)
    assert all(r["calls"] == 300 and r["rss_after_kib"] > 0 for r in rs["results"])
    mem = tiny["memory"]
    assert mem["main"]["vmhwm_kib"] > 0
    assert {"forms", "rss", "sweep-auto", "sweep-torch"} <= set(mem["workers"])
    assert all(v["vmhwm_kib"] >= v["vmrss_kib"] > 0 for v in mem["workers"].values())
    names = [t["target"] for t in tiny["targets"]]
    assert len(names) == len(set(names)) == 12
    text = bench.format_report(tiny)
    for heading in ("sweep: ours", "forms at 8 elements", "first 50 calls", "RSS (VmRSS) over 300 calls",
                    "peak RSS (VmHWM"):
        assert heading in text


def test_bench_report_renders(bench, tiny):
    text = bench.format_report(tiny)
    assert text.splitlines()[0].split()[:4] == ["op", "dtype", "n", "py"]
    assert "targets (worst cell" in text and "aclrtGetDevice per call" in text
    md = bench.format_report(tiny, markdown=True).splitlines()
    assert md[0].startswith("| op | dtype | n |") and md[1].startswith("|---|---|---|")
    main = md[:md.index("")]                   # the main table ends at the first blank line
    assert len([ln for ln in main if ln.startswith("| hard")]) == 8


def test_bench_thread_count_follows_env(bench, monkeypatch):
    monkeypatch.setenv("PYACL_HARDGRAD_THREADS", "3")
    assert bench.runner.our_kernel_threads() == 3
    monkeypatch.setenv("PYACL_HARDGRAD_THREADS", "0")
    assert bench.runner.our_kernel_threads() == os.sysconf("SC_NPROCESSORS_ONLN")


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
        # allocate + free of one tensor from C (the operator token is not called)
        al = server.ask("cell", first, "float16", 8, "alloc", 7, 0)
        assert al["iters"] == 7 and al["ns"] > 0
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
                           "--sweep", "8..32", "--sweep-ms", "1", "--paths", "scalar", "--first-calls", "20",
                           "--first-procs", "1", "--no-torch", "-q", "--json", str(out)],
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
    assert [r["calls"] for r in data["rss_flat"]["results"]] == [100] * len(data["rss_flat"]["results"])
    # the sweep: 8 and 16 from 8..32, the scalar path forced against the automatic one; no torch
    sw = data["sweep"]
    assert [(r["op"], r["dtype"], r["size"]) for r in sw["results"]] == [(op, "float16", 8), (op, "float16", 16)]
    assert sw["forced"] == ["scalar"] and data["settings"]["paths"] == ["scalar"]
    assert sw["torch_worker"] is None and set(sw["torch_imported"]) == {"auto", "scalar"}
    for r in sw["results"]:
        assert r["torch"] is None and r["ratios"]["ours_over_torch"] is None
        assert set(r["paths"]) == {"scalar"} and len(r["rounds"]["scalar"]) == 2
        assert r["matches_numpy"] == {"auto": True, "scalar": True}
    assert {t["target"]: t["met"] for t in data["targets"]}["ours / PyTorch, bfloat16 at 1M"] is None


def test_compare_times_two_installs_in_alternating_rounds(hg):
    """bench.compare with this interpreter on both sides: one line per call form, with ratios
    and the call counts."""
    proc = subprocess.run([sys.executable, "-m", "pyacl_hardgrad.bench.compare", sys.executable, sys.executable,
                           "--rounds", "1", "--modes", "a_fresh_s,plan_async,b_numpy,alloc"],
                          capture_output=True, text=True, timeout=300, cwd="/")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:4] == ["mode", "old", "us", "new"]
    rows = {ln.split()[0]: ln.split() for ln in lines[1:]}
    assert set(rows) == {"a_fresh_s", "plan_async", "b_numpy", "alloc"}
    assert rows["a_fresh_s"][-3:] == ["1/1", "->", "1/1"]     # one Python call, one crossing
    assert rows["b_numpy"][-1].endswith("/1")                 # numpy in, numpy out: one crossing
    assert all(float(r[3]) > 0 for r in rows.values())
