"""The benchmark's logic that times nothing: options, the sweep's sizes, the kernel paths a CPU
has, the trace and /proc readers, the targets evaluated on synthetic results, and the worker
process's protocol (bodies, the placement and the forced kernel path it runs under)."""
from __future__ import annotations

import collections
import itertools

import os

import pytest


@pytest.fixture(scope="module")
def bench(hg):
    import pyacl_hardgrad.bench as bench
    return bench


@pytest.fixture(scope="module")
def S(bench):
    from pyacl_hardgrad.bench import sections
    return sections


K, M = 1 << 10, 1 << 20


def test_sweep_series_is_8_then_powers_of_4_to_64M(S):
    assert S.SWEEP_SERIES[0] == 8
    assert list(S.SWEEP_SERIES[1:]) == [4 ** k for k in range(2, 14)]
    assert S.SWEEP_SERIES[-1] == 64 * M
    # every size a target names is in the series
    assert {K, M, 16 * M, 64 * M} <= set(S.SWEEP_SERIES)


@pytest.mark.parametrize("text,sizes", [
    ("8..32", [8, 16]),
    ("1K..16M", [K, 4 * K, 16 * K, 64 * K, 256 * K, M, 4 * M, 16 * M]),
    ("full", [8] + [4 ** k for k in range(2, 14)]),
    ("..64", [8, 16, 64]),
    ("16M..", [16 * M, 64 * M]),
    ("none", []), ("off", []),
    ("8,1K,1M", [8, K, M]),
    ("1M,8", [8, M]),
])
def test_parse_sweep(S, text, sizes):
    assert S.parse_sweep(text) == sizes


@pytest.mark.parametrize("text", ["16M..1K", "9..15", "1K..x"])
def test_parse_sweep_refuses(S, text):
    with pytest.raises(ValueError):
        S.parse_sweep(text)


def test_default_sweep_stops_at_16M(S):
    sizes = S.parse_sweep(S.DEFAULT_SWEEP)
    assert sizes[0] == 8 and sizes[-1] == 16 * M


def test_options_from_the_command_line(bench):
    ap = bench.build_parser()
    kw = bench.options(ap.parse_args(["--sweep", "1K..1M", "--paths", "scalar,avx2", "--sizes", "none",
                                      "--no-placement", "--first-calls", "0", "--rss-budget-s", "5"]))
    assert kw["sweep"] == [K, 4 * K, 16 * K, 64 * K, 256 * K, M]
    assert kw["paths"] == ["scalar", "avx2"] and kw["sizes"] == []
    assert kw["placement"] is False and kw["forms"] is True and kw["first_calls"] == 0 and kw["rss_budget_s"] == 5
    d = bench.options(ap.parse_args([]))
    assert d["paths"] is None and d["sweep"][-1] == 16 * M and d["sizes"] == [8, 4 * K, M, 16 * M]
    assert bench.options(ap.parse_args(["--paths", "none"]))["paths"] == []
    for bad, msg in ((["--paths", "sse9"], "--paths"), (["--sweep", "2M..1M"], "--sweep"),
                     (["--sizes", "0"], "--sizes"), (["--rounds", "0"], "--rounds")):
        with pytest.raises(ValueError, match=msg):
            bench.options(ap.parse_args(bad))


def test_cli_reports_bad_options(bench, capsys):
    assert bench.main(["--sweep", "64..8"]) == 2
    assert "bad --sweep" in capsys.readouterr().err


def test_kernel_paths_from_cpu_flags(S):
    avx2_only = "processor : 0\nflags : fpu sse avx f16c avx2 fma\n"
    got = S.kernel_paths(avx2_only, "x86_64")
    assert got["scalar"] is None and got["avx2"] is None
    assert got["avx512"].startswith("n/a: the CPU lacks avx512f")
    assert got["neon"].startswith("n/a: not an aarch64")
    both = avx2_only.replace("fma", "fma avx512f avx512dq avx512bw avx512vl")
    assert S.kernel_paths(both, "x86_64")["avx512"] is None
    # AVX2 kernels need F16C too (kernel_isa.c checks it)
    assert "f16c" in S.kernel_paths("flags : avx avx2\n", "x86_64")["avx2"]
    arm = S.kernel_paths("Features : fp asimd evtstrm\n", "aarch64")
    assert arm["neon"] is None and arm["avx2"].startswith("n/a: not an x86_64")


def test_isa_trace_lines_are_parsed(S):
    text = ("some warning\npyacl_hardgrad: kernel isa avx2 (requested auto)\n"
            "pyacl_hardgrad: kernel isa scalar (requested avx512)\n")
    got = S.parse_isa_trace(text)
    assert [(t["path"], t["requested"]) for t in got] == [("avx2", "auto"), ("scalar", "avx512")]
    assert S.parse_isa_trace("nothing here") == []


def test_auto_choice_reads_the_rows_when_the_choice_is_per_row(S):
    rows = ("pyacl_hardgrad: kernel isa auto (requested auto)\n"
            "pyacl_hardgrad: kernel aclnnA DT_FLOAT,DT_FLOAT->DT_FLOAT: avx2 "
            "(measured; scalar 1.2 avx2 0.1 ns/element)\n"
            "pyacl_hardgrad: kernel aclnnB DT_BF16->DT_BF16: scalar (measured; scalar 0.3 avx2 0.4 ns/element)\n"
            "pyacl_hardgrad: kernel aclnnA DT_FLOAT16->DT_FLOAT16: avx2 (only candidate)\n")
    got = S.parse_row_choices(rows)
    assert [(r["function"], r["dtypes"], r["path"]) for r in got] == [
        ("aclnnA", "DT_FLOAT,DT_FLOAT->DT_FLOAT", "avx2"), ("aclnnB", "DT_BF16->DT_BF16", "scalar"),
        ("aclnnA", "DT_FLOAT16->DT_FLOAT16", "avx2")]
    assert got[1]["reason"].startswith("measured")
    assert S.auto_choice(rows) == "avx2"
    assert S.auto_choice("pyacl_hardgrad: kernel isa neon (requested auto)\n") == "neon"
    assert S.auto_choice("nothing") is None


def test_proc_status_reader(bench, tmp_path):
    R = bench.runner
    f = tmp_path / "status"
    f.write_text("Name:\tpython\nVmPeak:\t  500000 kB\nVmHWM:\t  123456 kB\nVmRSS:\t   10240 kB\nThreads:\t3\n")
    got = R.proc_status_kib(str(f))
    assert got == {"VmPeak": 500000, "VmHWM": 123456, "VmRSS": 10240}
    assert R.proc_status_kib(str(tmp_path / "missing")) == {}
    if os.path.exists("/proc/self/status"):
        own = R.proc_status_kib()
        assert own["VmHWM"] >= own["VmRSS"] > 0
        assert R.mem_available_bytes() > 0


def test_sweep_memory_estimate(S):
    # 64M float32 with two operators and two forced-path workers: several GiB
    need = S.sweep_memory_need(64 * M, 4, 2, 2)
    assert 4 * 2 ** 30 < need < 16 * 2 ** 30
    assert S.sweep_memory_need(64 * M, 4, 2, 0) < need
    assert S.sweep_memory_need(64 * M, 2, 2, 2) < need
    # the PyTorch worker holds the host inputs, its output and its copy's arrays: 6 arrays + temporary
    assert need - S.sweep_memory_need(64 * M, 4, 2, 2, torch=False) == 6 * 256 * M + 12 * 64 * M


def test_settle_waits_until_the_process_is_quiet(bench):
    """worker.settle sleeps in slots until one in which the process used less than a quarter of
    the slot's CPU time, at most max_ms (a fake clock: nothing is timed)."""
    from pyacl_hardgrad.bench import worker as W

    class Clock:
        def __init__(self, busy_slots):
            self.wall, self.cpu, self.busy, self.slots = 0, 0.0, busy_slots, 0

        def sleep(self, s):
            self.wall += int(s * 1e9)
            # a spinning thread uses the whole slot; then only the sleeping thread's crumbs
            self.cpu += s if self.slots < self.busy else s * 0.05
            self.slots += 1
    c = Clock(4)
    waited, quiet = W.settle(50, cpu=lambda: c.cpu, wall=lambda: c.wall, sleep=c.sleep)
    assert quiet is True and c.slots == 5 and waited == 5_000_000
    c = Clock(1000)                          # never quiet: gives up after max_ms
    waited, quiet = W.settle(10, cpu=lambda: c.cpu, wall=lambda: c.wall, sleep=c.sleep)
    assert quiet is False and c.slots == 10 and waited == 10_000_000


class _FakeSide:
    def __init__(self, label, log, times):
        self.label, self.log, self.times, self.n = label, log, times, 0

    def calibrate(self, ns):
        self.log.append(("cal", self.label, ns))
        return 1 if self.label == "big" else 5

    def batch(self, k, warm):
        self.log.append(("time", self.label, k, warm))
        self.n += 1
        return self.times[self.n - 1]


def test_timed_rounds_puts_each_side_after_each_other_equally_often(bench):
    """With three sides, two cycles of rounds run all six orders, so each side comes right after
    each other side in as many rounds (plain rotation would put one side after the same
    neighbour in two rounds of three)."""
    R = bench.runner
    log = []
    items = [("x", [_FakeSide(s, log, [1.0] * 6) for s in ("a", "b", "c")])]
    R.timed_rounds(items, 6, 6e6)
    timed = [e[1] for e in log if e[0] == "time"]
    orders = [tuple(timed[i:i + 3]) for i in range(0, 18, 3)]
    assert sorted(orders) == sorted(itertools.permutations("abc"))
    after = collections.Counter((o[i], o[i + 1]) for o in orders for i in range(2))
    assert set(after.values()) == {2} and len(after) == 6, after


def test_timed_rounds_rotates_the_sides_every_round(bench):
    """Each side is calibrated to target/rounds per batch; every round times each side of every
    item once, the order of an item's sides rotating by one per round; a batch of one call has
    no warm-up call."""
    R = bench.runner
    log = []
    items = [("x", [_FakeSide(s, log, [1.0] * 3) for s in ("a", "b", "c")]),
             ("y", [_FakeSide(s, log, [2.0] * 3) for s in ("d", "big")])]
    res = R.timed_rounds(items, 3, 3e6)
    assert [e for e in log if e[0] == "cal"] == [("cal", s, 1e6) for s in ("a", "b", "c", "d", "big")]
    timed = [e[1] for e in log if e[0] == "time"]
    assert timed == ["a", "b", "c", "d", "big",
                     "b", "c", "a", "big", "d",
                     "c", "a", "b", "d", "big"]
    assert {e[1]: (e[2], e[3]) for e in log if e[0] == "time"} == {
        "a": (5, True), "b": (5, True), "c": (5, True), "d": (5, True), "big": (1, False)}
    assert res["x"]["a"] == {"ns": [1.0, 1.0, 1.0], "iters": 5} and res["y"]["big"]["iters"] == 1


class _FakeWorker:
    """Answers a worker's requests without a process; logs every request; batch times come
    from ``times[(worker label, body)]`` in round order."""

    def __init__(self, label, log, times, ops):
        self.label, self.log, self.times, self.ops = label, log, times, ops
        self.hello, self.count = {"threads": 2}, {}

    def ask(self, req):
        self.log.append((self.label, req))
        cmd = req["cmd"]
        if cmd == "group":
            bodies = [f"{op}:{f}" for op in req["ops"] for f in req["forms"]]
            if req.get("copy"):
                bodies += ["copy"] + (["torch_copy"] if req.get("torch") else [])
            return {"bodies": bodies, "na": {}, "torch_threads": 2 if req.get("torch") else None}
        if cmd == "cal":
            return {"iters": 4}
        if cmd == "time":
            key = (self.label, req["body"])
            i = self.count[key] = self.count.get(key, -1) + 1
            return {"ns": self.times[key][i], "settle_ns": 4e6 if self.label == "torch" else 1e6, "settled": True}
        if cmd == "check":
            return {"matches": {op: True for op in self.ops}}
        return {}


def _fake_sweep(bench, S, torch=True):
    op = bench.runner.DEFAULT_OPS[0]
    log, times = [], {("auto", f"{op}:plan_s"): [50.0, 300.0, 90.0], ("auto", f"{op}:out_s"): [60.0, 60.0, 60.0],
                      ("torch", f"{op}:torch"): [100.0, 100.0, 300.0], ("scalar", f"{op}:plan_s"): [500.0] * 3,
                      ("auto", "copy"): [40.0, 20.0, 40.0], ("torch", "torch_copy"): [30.0, 30.0, 30.0]}
    workers = {w: _FakeWorker(w, log, times, [op]) for w in ("auto", "scalar") + (("torch",) if torch else ())}
    threads = {}
    rows = S._sweep_group(workers, ["scalar"], [op], "float32", 1024, 3, 3e6, 50.0, threads)
    return op, log, rows, threads


def test_sweep_times_ours_and_torch_in_separate_workers(bench, S):
    """Ours and numpy's copy run in the auto worker, which is never asked for PyTorch; PyTorch's
    call and copy in the torch worker; the forced path in its own.  Every calibration and batch
    asks its worker to settle; the rounds alternate the sides; the ratios are medians of the
    per-round ratios (not ratios of medians)."""
    op, log, rows, threads = _fake_sweep(bench, S)
    groups = {w: req for w, req in log if req["cmd"] == "group"}
    assert groups["auto"]["torch"] is False and set(groups["auto"]["forms"]) == {"plan_s", "out_s"}
    assert groups["torch"]["torch"] is True and groups["torch"]["forms"] == ["torch"]
    assert groups["scalar"]["forms"] == ["plan_s"] and not groups["scalar"].get("torch")
    timed = [(w, req["body"]) for w, req in log if req["cmd"] == "time"]
    assert {b for w, b in timed if w == "auto"} == {f"{op}:plan_s", f"{op}:out_s", "copy"}
    assert {b for w, b in timed if w == "torch"} == {f"{op}:torch", "torch_copy"}
    assert {b for w, b in timed if w == "scalar"} == {f"{op}:plan_s"}
    assert all(req.get("settle_ms") == 50.0 for w, req in log if req["cmd"] in ("cal", "time"))
    sides = [("auto", f"{op}:plan_s"), ("auto", f"{op}:out_s"), ("torch", f"{op}:torch"), ("scalar", f"{op}:plan_s")]
    copies = [("auto", "copy"), ("torch", "torch_copy")]
    want = []
    for r in range(3):
        want += sides[r % 4:] + sides[:r % 4] + copies[r % 2:] + copies[:r % 2]
    assert timed == want
    [row] = rows
    ra = row["ratios"]
    assert ra["ours_over_torch"] == pytest.approx(0.5)          # per round 0.5, 3.0, 0.3
    assert row["ours"]["median_ns"] / row["torch"]["median_ns"] == pytest.approx(0.9)
    assert ra["call_over_torch"] == pytest.approx(0.6)          # 0.6, 0.6, 0.2
    assert ra["path_over_auto"]["scalar"] == pytest.approx(500 / 90)
    assert row["copy_rounds"] == [30.0, 20.0, 30.0]             # the faster copy of each round
    # ours moves 3 arrays of 1024 floats, the copy 2: per round (3/ours) / (2/copy)
    assert ra["fraction_of_copy"] == pytest.approx(1.5 * 30 / 90)
    assert row["settle_ms"]["torch"] == 4.0 and row["settle_ms"]["ours"] == 1.0
    assert row["matches_numpy"] == {"auto": True, "scalar": True}
    assert threads == {"ours": 2, "torch": 2}


def test_sweep_without_torch_has_no_torch_side(bench, S):
    op, log, rows, threads = _fake_sweep(bench, S, torch=False)
    assert {w for w, _ in log} == {"auto", "scalar"}
    [row] = rows
    assert row["torch"] is None and row["ratios"]["ours_over_torch"] is None
    assert set(row["copy"]) == {"copy"} and "torch" not in threads


def _stats(ns):
    return {"median_ns": ns, "min_ns": ns, "iters": 1, "repeats": 1}


def _sweep_row(op, dtype, size, ours_over_torch, frac, paths=None):
    return {"op": op, "dtype": dtype, "size": size, "paths": {p: _stats(v) for p, v in (paths or {}).items()},
            "ratios": {"ours_over_torch": ours_over_torch, "fraction_of_copy": frac,
                       "path_over_auto": {p: v / 100.0 for p, v in (paths or {}).items()}}}


def test_each_sweep_row_is_checked_against_its_own_kernel_rows_choice(S):
    """Kernel rows choose their paths one by one: a sweep cell is excused as noise only when its
    fastest forced path is the one its own row chose, not the one most rows chose."""
    from pyacl_hardgrad.bench import runner as R
    op = next(iter(R.BENCH_OPS))
    fn = R.BENCH_OPS[op][0]
    rows = [{"function": fn, "dtypes": "DT_FLOAT,DT_FLOAT->DT_FLOAT", "path": "avx512"},
            {"function": fn, "dtypes": "DT_FLOAT16,DT_FLOAT16->DT_FLOAT16", "path": "avx2"},
            {"function": "aclnnOther", "dtypes": "DT_BF16->DT_BF16", "path": "scalar"}]
    assert S.row_auto_path({"op": op, "dtype": "float32"}, rows, "x") == "avx512"
    assert S.row_auto_path({"op": op, "dtype": "float16"}, rows, "x") == "avx2"
    assert S.row_auto_path({"op": op, "dtype": "bfloat16"}, rows, "x") == "x"     # not traced: the fallback


def test_fastest_path(S):
    row = _sweep_row("a", "float32", M, 1.0, 1.0, {"scalar": 300.0, "avx2": 90.0, "avx512": 120.0})
    S.fastest_path(row, "avx512")           # auto = avx512 = 100; avx2 at 90 is faster
    assert row["ratios"]["fastest_path"] == "avx2"
    assert row["ratios"]["auto_over_fastest"] == pytest.approx(1 / 0.9)
    S.fastest_path(row, "avx2")             # the fastest is the path auto picked: noise, not a miss
    assert row["ratios"]["fastest_path"] == "auto" and row["ratios"]["auto_over_fastest"] == 1.0
    slow = _sweep_row("a", "float32", M, 1.0, 1.0, {"scalar": 300.0})
    S.fastest_path(slow, "avx2")
    assert slow["ratios"]["fastest_path"] == "auto" and slow["ratios"]["auto_over_fastest"] == 1.0
    none = _sweep_row("a", "float32", M, 1.0, 1.0)
    S.fastest_path(none, "avx2")
    assert none["ratios"]["auto_over_fastest"] is None


def _synthetic_result(S):
    sweep = [_sweep_row("a", "float32", 8, 3.0, 0.01),            # below 1K: not a target cell
             _sweep_row("a", "float32", K, 0.8, 0.5),
             _sweep_row("a", "float32", 64 * K, 1.25, 0.7),
             _sweep_row("a", "bfloat16", M, 0.7, 1.2),
             _sweep_row("b", "bfloat16", M, 0.8, 1.1),
             _sweep_row("a", "float32", 16 * M, 0.95, 0.9),
             _sweep_row("b", "float16", 16 * M, 0.9, 0.8)]
    for r in sweep:
        r["ratios"]["auto_over_fastest"], r["ratios"]["fastest_path"] = 1.0, "auto"
    sweep[2]["ratios"].update(auto_over_fastest=1.3, fastest_path="avx2")
    sweep[0]["ratios"].update(auto_over_fastest=5.0, fastest_path="scalar")    # 8 elements: noise, not checked

    def form(op, form, ns=None, ratio=None, na=None):
        r = {"op": op, "dtype": "float32", "size": 8, "form": form, "sides": {}, "ratio": ratio}
        if ns is not None:
            r["sides"][form] = _stats(ns)
        if na:
            r["na"] = na
        return r
    forms = [form("a", "numpy", 12000.0), form("b", "numpy", 16000.0),
             form("a", "noout", 3000.0, 1.4), form("b", "noout", na="n/a: b's bench.py has no torch_body_noout"),
             form("a", "out_s", 2000.0, 2.0), form("b", "out_s", 2000.0, 2.6),
             form("a", "plan_s", 700.0, 1.9), form(None, "alloc", 1500.0, 5.0)]
    placement = [{"op": "a", "side": "python", "form": "out_s", "ratio": 2.0},
                 {"op": "a", "side": "C++", "form": "plan", "ratio": 3.5}]
    rss = [{"form": "numpy", "calls": 40000, "reduced": True, "change_pct": -0.5},
           {"form": "out_s", "calls": 100000, "reduced": False, "change_pct": 0.2},
           {"form": "alloc", "calls": 0, "change_pct": None, "na": "n/a: x"}]
    return {"sweep": {"results": sweep, "skipped": [{"dtype": "float32", "size": 64 * M, "what": "all",
                                                     "why": "needs ~9 GiB"}]},
            "forms": {"results": forms}, "placement": {"results": placement},
            "rss_flat": {"op": "a", "requested_calls": 100000, "budget_s": 30.0, "results": rss},
            "trivial_call": {"binding": {"median_ns": 50.0}, "ctypes": {"median_ns": 200.0},
                             "python_loop": {"median_ns": 15.0}}}


def test_targets_on_synthetic_results(bench, S):
    by = {t["target"]: t for t in bench.evaluate_targets(_synthetic_result(S))}

    def got(prefix):
        [t] = [t for name, t in by.items() if name.startswith(prefix)]
        return t
    t = got("ours / PyTorch (matched threads)")
    assert (t["met"], t["measured"], t["where"]) == (False, 1.25, "a float32 64K")
    assert t["headroom"] == pytest.approx(-0.25) and t["margin"] == pytest.approx(1.25)
    assert "64M" in t["note"] and "skipped for memory: float32 64M" in t["note"]
    t = got("ours / PyTorch, bfloat16 at 1M")
    assert (t["met"], t["measured"], t["where"]) == (False, 0.8, "b bfloat16 1M")
    t = got("ours GB/s / copy GB/s")
    assert (t["met"], t["measured"], t["where"]) == (False, 0.8, "b float16 16M")
    t = got("numpy in, numpy out")
    assert (t["met"], t["measured"], t["where"]) == (False, 16.0, "b float32")
    t = got("Tensor one-call without out=")             # the op without torch_body_noout is left out
    assert (t["met"], t["measured"], t["where"]) == (True, 1.4, "a float32")
    assert t["headroom"] == pytest.approx(0.1 / 1.5)
    t = got("one-call with out= and sync=True")
    assert (t["met"], t["measured"]) == (False, 2.6)
    t = got("repeatable plan run(sync=True)")
    assert (t["met"], t["measured"]) == (True, 1.9)
    t = got("caller and stream worker on one CPU")
    assert (t["met"], t["measured"], t["where"]) == (False, 3.5, "a C++ plan")
    t = got("allocate + free")
    assert (t["met"], t["measured"]) == (True, 1.5)
    t = got("RSS change over 100000 calls")
    assert (t["met"], t["measured"], t["where"]) == (True, 0.5, "numpy")
    assert t["note"] == "fewer calls to fit --rss-budget-s: numpy 40000"
    t = got("automatic kernel path")
    assert (t["met"], t["measured"]) == (False, 1.3) and t["where"] == "a float32 64K (fastest avx2)"
    t = got("aclrtGetDevice")
    assert (t["met"], t["measured"]) == (True, 4.0)


def test_targets_say_why_when_not_measured(bench):
    targets = bench.evaluate_targets({"sweep": {"na": "n/a: not requested"}, "forms": {"na": "n/a: worker died"}})
    assert len(targets) == 11
    assert all(t["met"] is None and t["measured"] is None and t["why"].startswith("n/a") for t in targets)
    assert {t["why"] for t in targets if t["target"].startswith("ours")} == {"n/a: not requested"}
    assert {t["why"] for t in targets if "8 elements" in t["target"] and "CPU" not in t["target"]} == {
        "n/a: worker died"}


def test_report_renders_synthetic_sections(bench, S):
    r = _synthetic_result(S)
    r.update(results=[], targets=bench.evaluate_targets(r), placement={"na": "n/a: one CPU"},
             sweep={"na": "n/a: not requested"}, forms={"na": "n/a: not requested"})
    text = bench.format_report(r)
    assert "no main table" in text and "placement: n/a: one CPU" in text
    assert "targets (worst cell" in text and "MISS" in text and "n/a" in text
    md = bench.format_report(r, markdown=True)
    assert "| target | result | required | worst | headroom | where |" in md


def test_worker_protocol_placement_and_forced_path(bench, S):
    """A worker pinned to one CPU and forced to the scalar kernels says so; its bodies run the
    operators (checked against numpy); a body that fails is reported, not timed; VmHWM is its own."""
    op = bench.runner.DEFAULT_OPS[0]
    cpu = min(os.sched_getaffinity(0))
    w = S.WorkerProc("test", env={"PYACL_HARDGRAD_KERNEL_ISA": "scalar"}, cpus={cpu})
    try:
        assert w.hello["affinity"] == [cpu] and w.hello["isa_env"] == "scalar"
        assert w.hello["torch_loaded"] is False
        g = w.ask({"cmd": "group", "dtype": "float32", "n": 100, "ops": [op], "forms": ["plan_s", "out_s", "bogus"],
                   "copy": True})
        assert set(g["bodies"]) == {f"{op}:plan_s", f"{op}:out_s", "copy"}
        assert g["na"] == {f"{op}:bogus": "n/a: no form 'bogus'"}
        assert w.ask({"cmd": "time", "body": f"{op}:plan_s", "k": 3, "warm": False})["ns"] > 0
        assert w.ask({"cmd": "check"})["matches"] == {op: True}
        assert [t["path"] for t in w.isa_trace()] == ["scalar"]
        settled = w.ask({"cmd": "time", "body": f"{op}:plan_s", "k": 2, "warm": True, "settle_ms": 20})
        assert settled["ns"] > 0 and 0 < settled["settle_ns"] and isinstance(settled["settled"], bool)
        assert w.status()["torch_loaded"] is False           # a group without PyTorch never imports it
        with pytest.raises(S.WorkerError, match="no body"):
            w.ask({"cmd": "time", "body": "nothing", "k": 1})
        first = w.ask({"cmd": "first", "body": f"{op}:out_s", "calls": 30, "block": 10})
        assert first["calls"] == 30 and len(first["block_means_ns"]) == 3 and first["mean_ns"] > 0
        rss = w.ask({"cmd": "rss", "body": f"{op}:out_s", "calls": 50, "budget_s": 60})
        assert rss["calls"] == 50 and rss["reduced"] is False and rss["rss_before_kib"] > 0
        w.ask({"cmd": "drop"})
        with pytest.raises(S.WorkerError, match="no body"):
            w.ask({"cmd": "cal", "body": f"{op}:plan_s", "ns": 1e5})
    finally:
        st = w.close()
    assert st["vmhwm_kib"] >= st["vmrss_kib"] > 0
    assert w.proc.returncode == 0


def test_worker_checks_large_results_on_a_sample(bench, S):
    """Above 1M elements the result is checked on a strided sample (the operators are
    elementwise); an odd size makes the sample's last element differ from the array's."""
    op = bench.runner.DEFAULT_OPS[-1]
    w = S.WorkerProc("test-large")
    try:
        n = 2 * (1 << 20) + 3
        g = w.ask({"cmd": "group", "dtype": "bfloat16", "n": n, "ops": [op], "forms": ["plan_s"]})
        assert g["bodies"] == [f"{op}:plan_s"]
        assert w.ask({"cmd": "check"})["matches"] == {op: True}
    finally:
        w.close()


def test_worker_torch_only_group_makes_none_of_our_objects(bench, S):
    """The sweep's PyTorch worker: a group of PyTorch forms holds PyTorch's bodies and the copies,
    allocates no device memory of ours and runs no kernel of ours."""
    pytest.importorskip("torch")
    ops = list(bench.runner.DEFAULT_OPS[:2])
    w = S.WorkerProc("test-torch")
    try:
        g = w.ask({"cmd": "group", "dtype": "bfloat16", "n": 1000, "ops": ops, "forms": ["torch"], "torch": True,
                   "copy": True})
        assert set(g["bodies"]) == {*(f"{op}:torch" for op in ops), "copy", "torch_copy"}
        assert g["torch_threads"] == bench.runner.our_kernel_threads()
        st = w.status()
        assert st["torch_loaded"] is True
        assert st["memory_stats"]["allocations"] == 0
        assert w.ask({"cmd": "time", "body": f"{ops[0]}:torch", "k": 3, "warm": True, "settle_ms": 20})["ns"] > 0
        assert w.ask({"cmd": "check"})["matches"] == {}
        assert w.isa_trace() == []
    finally:
        w.close()


def test_sweep_settle_option(bench):
    ap = bench.build_parser()
    assert bench.options(ap.parse_args([]))["sweep_settle_ms"] is None
    assert bench.options(ap.parse_args(["--sweep-settle-ms", "0"]))["sweep_settle_ms"] == 0
    with pytest.raises(ValueError, match="--sweep-settle-ms"):
        bench.options(ap.parse_args(["--sweep-settle-ms", "-1"]))


def test_sweep_report_says_where_torch_ran(S):
    """The sweep's header names PyTorch's process: its own worker, or (results saved before it
    had one) the worker that timed ours."""
    row = {"op": "a", "dtype": "float32", "size": K, "ours": _stats(90.0), "ours_call": _stats(95.0),
           "torch": _stats(100.0), "gbps": 1.0, "copy": {"copy": _stats(50.0)}, "matches_numpy": {"auto": True},
           "ratios": {"ours_over_torch": 0.9, "call_over_torch": 0.95, "fraction_of_copy": 0.8, "path_over_auto": {},
                      "fastest_path": None}}
    new = {"results": [row], "forced": [], "paths": {}, "torch_worker": "sweep-torch", "settle_ms": 50.0,
           "threads": {"ours": 2, "torch": 2}}
    text = "\n".join(S.section_lines({"sweep": new}))
    assert "in a worker process of its own (threads: ours 2, torch 2)" in text and "at most 50 ms" in text
    old = {k: v for k, v in new.items() if k not in ("torch_worker", "settle_ms", "threads")}
    text = "\n".join(S.section_lines({"sweep": old}))
    assert "in the same worker as ours" in text and "at most" not in text
    assert "0.90" in text
