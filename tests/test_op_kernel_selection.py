"""The operator library's kernel path per (operator, dtypes) row: chosen at the row's first use
by timing every candidate path (the narrowest SIMD path first, a later one only when measured
clearly faster), forced by PYACL_HARDGRAD_KERNEL_ISA, with timings replaceable through
PYACL_HARDGRAD_KERNEL_FAKE_NS to pin which choice a timing leads to; the choice, its reason and
the split threshold are visible through hgGetKernelChoices / hgGetKernelSettings and in
``python -m pyacl_hardgrad info``.  Every path gives the same bytes, so the choice never changes
a result (tests/test_op_numerics.py checks each path bit for bit)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

PATHS = ["scalar", "avx2", "avx512", "neon"]
INT64_MAX = (1 << 63) - 1

# Runs the two backward operators (every registered operator with `exercise`) per float dtype in a
# fresh process and prints what the query says, as JSON.
_PROBE = """
import json, sys
import numpy as np
import pyacl_hardgrad as hg
from pyacl_hardgrad import _kernel_info as ki
from pyacl_hardgrad.dtypes import to_numpy_dtype
n = int(sys.argv[1])
results = {}
for name in ("float32", "float16", "bfloat16"):
    g = np.linspace(-4, 4, n, dtype=np.float32).astype(to_numpy_dtype(name))
    x = g[::-1].copy()
    results[name] = [hg.hardtanh_backward(g, x, -1.0, 1.0).tobytes().hex(),
                     hg.hardsigmoid_backward(g, x).tobytes().hex()]
print(json.dumps({"settings": ki.settings(), "choices": ki.choices(), "results": results}))
"""


def _run(tmp_path, code, *args, **env):
    full = {k: v for k, v in os.environ.items() if not k.startswith("PYACL_HARDGRAD_") or k == "PYACL_HARDGRAD_BACKEND"}
    full.update(env)
    return subprocess.run([sys.executable, "-c", code, *args], cwd=tmp_path, capture_output=True, text=True,
                          env=full, timeout=300)


def _probe(tmp_path, n=1000, **env):
    proc = _run(tmp_path, _PROBE, str(n), **env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc.stderr


@pytest.fixture
def embedded(hg):
    if not hg.BACKEND.is_embedded:
        pytest.skip("kernel selection is the embedded operator library's")
    return hg


def _simd_path(settings) -> str:
    simd = [p for p in ("avx2", "neon") if p in settings["available"]]
    if not simd:
        pytest.skip("no SIMD path on this machine")
    return simd[0]


def _fake(settings, simd_ns, **others) -> str:
    """PYACL_HARDGRAD_KERNEL_FAKE_NS giving every SIMD path of this CPU the same time (the first
    of them, the preferred one, then keeps the row: a later one is not 10% faster), plus
    ``others`` (path: ns)."""
    simd = [p for p in ("avx2", "avx512", "neon") if p in settings["available"]]
    return ",".join([f"{p}:{simd_ns}" for p in simd] + [f"{p}:{ns}" for p, ns in others.items()])


def _rows(out):
    return [c for c in out["choices"] if c["op"] in ("aclnnHardtanhBackward", "aclnnHardsigmoidBackward")]


def test_auto_times_every_available_path_and_keeps_the_rule(embedded, tmp_path):
    """Auto: one row per operator and dtype, each available path that has a kernel timed (> 0),
    the unavailable ones not candidates; the chosen path is the one the margin rule gives for the
    reported times."""
    out, _ = _probe(tmp_path)
    s = out["settings"]
    assert s["forced"] is None and "scalar" in s["available"]
    rows = _rows(out)
    assert len(rows) == 6
    assert {(r["op"], r["out"]) for r in rows} == {(op, dt)
                                                   for op in ("aclnnHardtanhBackward", "aclnnHardsigmoidBackward")
                                                   for dt in ("ACL_FLOAT", "ACL_FLOAT16", "ACL_BF16")}
    order = [p for p in ("avx2", "avx512", "scalar", "neon") if p in s["available"]]
    order = [p for p in order if p != "scalar"] + ["scalar"]
    for r in rows:
        ns = r["ns_per_element"]
        assert set(ns) == set(s["available"]), r          # every op here has a kernel on every path
        assert all(v > 0 for v in ns.values()), r
        best = order[0]
        for p in order[1:]:
            if ns[p] * 100 <= ns[best] * (100 - s["margin_percent"]):
                best = p
        assert r["path"] == best, r
        assert r["reason"] == ("measured" if len(ns) > 1 else "only candidate"), r


def test_a_slower_wider_path_is_not_chosen(embedded, tmp_path):
    """Timings faked so the SIMD path is slower than the portable one: the portable one runs,
    with the faked times reported; the results are the same bytes as the SIMD path's."""
    base, _ = _probe(tmp_path)
    simd = _simd_path(base["settings"])
    out, err = _probe(tmp_path, PYACL_HARDGRAD_KERNEL_FAKE_NS=_fake(base["settings"], 2.0, scalar=1.0),
                      PYACL_HARDGRAD_KERNEL_ISA_TRACE="1")
    for r in _rows(out):
        assert r["path"] == "scalar" and r["reason"].startswith("faked"), r
        assert r["ns_per_element"][simd] == 2.0 and r["ns_per_element"]["scalar"] == 1.0
    assert "pyacl_hardgrad: kernel isa auto (requested auto)" in err
    assert "aclnnHardtanhBackward ACL_FLOAT,ACL_FLOAT->ACL_FLOAT: scalar (faked" in err.replace("DT_", "ACL_"), err
    assert out["results"] == base["results"]


@pytest.mark.parametrize("scalar_ns, want", [(0.95, "simd"), (0.9, "scalar"), (1.2, "simd")])
def test_a_later_candidate_needs_the_margin(embedded, tmp_path, scalar_ns, want):
    """The preferred (first) path keeps the row unless a later one is at least 10% faster."""
    base, _ = _probe(tmp_path, n=10)
    simd = _simd_path(base["settings"])
    out, _ = _probe(tmp_path, n=10, PYACL_HARDGRAD_KERNEL_FAKE_NS=_fake(base["settings"], 1.0, scalar=scalar_ns))
    assert out["settings"]["margin_percent"] == 10
    for r in _rows(out):
        assert r["path"] == (simd if want == "simd" else "scalar"), r


def test_fake_times_of_some_paths_leave_the_others_measured(embedded, tmp_path):
    """Only the scalar path faked (slow): every SIMD path is measured, and the row goes to the one
    the margin rule picks among them."""
    base, _ = _probe(tmp_path, n=10)
    _simd_path(base["settings"])
    out, _ = _probe(tmp_path, n=10, PYACL_HARDGRAD_KERNEL_FAKE_NS="scalar:1000")
    simd = [p for p in ("avx2", "avx512", "neon") if p in base["settings"]["available"]]
    for r in _rows(out):
        ns = r["ns_per_element"]
        assert ns["scalar"] == 1000.0 and all(0 < ns[p] < 1000.0 for p in simd), r
        best = simd[0]
        for p in simd[1:]:
            if ns[p] * 100 <= ns[best] * (100 - out["settings"]["margin_percent"]):
                best = p
        assert r["path"] == best and r["reason"].startswith("faked"), r


@pytest.mark.parametrize("path", PATHS)
def test_a_forced_path_runs_for_every_row(embedded, tmp_path, path):
    """PYACL_HARDGRAD_KERNEL_ISA: that path (scalar if the CPU lacks it) for every row, reason
    forced, only the forced path timed, the other paths not candidates; same bytes as auto."""
    base, _ = _probe(tmp_path)
    out, _ = _probe(tmp_path, PYACL_HARDGRAD_KERNEL_ISA=path, PYACL_HARDGRAD_KERNEL_FAKE_NS="avx512:0.001,neon:0.001")
    want = path if path in base["settings"]["available"] else "scalar"
    assert out["settings"]["forced"] == want
    for r in _rows(out):
        assert r["path"] == want and r["reason"] == "forced by PYACL_HARDGRAD_KERNEL_ISA", r
        assert list(r["ns_per_element"]) == [want] and r["ns_per_element"][want] > 0, r
    assert out["results"] == base["results"]


def test_rows_made_by_racing_threads_are_made_once(embedded, tmp_path):
    """Eight threads make their first calls of the same rows at once: one row each, and every
    thread's result is the same."""
    code = """
import json, threading
import numpy as np
import pyacl_hardgrad as hg
from pyacl_hardgrad import _kernel_info as ki
from pyacl_hardgrad.dtypes import to_numpy_dtype
go = threading.Barrier(8)
res = []
def work(i):
    go.wait()
    for name in ("float32", "float16", "bfloat16"):
        g = np.linspace(-4, 4, 4000, dtype=np.float32).astype(to_numpy_dtype(name))
        res.append((name, hg.hardsigmoid_backward(g, g[::-1].copy()).tobytes()))
ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
[t.start() for t in ts]; [t.join() for t in ts]
rows = [(c["op"], c["out"]) for c in ki.choices()]
print(json.dumps({"rows": rows, "distinct": len({(n, b) for n, b in res}), "calls": len(res)}))
"""
    proc = _run(tmp_path, code)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert sorted(map(tuple, out["rows"])) == sorted({("aclnnHardsigmoidBackward", d)
                                                      for d in ("ACL_FLOAT", "ACL_FLOAT16", "ACL_BF16")})
    assert out["calls"] == 24 and out["distinct"] == 3


@pytest.mark.parametrize("threads, split_ns, fake, want", [
    ("1", "1000", "0.5", None),        # one thread: never split
    ("2", "1000", "0.5", 2001),        # 1000 ns / 0.5 ns per element, first size above
    ("3", "0", "0.5", 1),              # 0: every call of two chunks or more
])
def test_split_threshold_follows_the_row_cost(embedded, tmp_path, threads, split_ns, fake, want):
    base, _ = _probe(tmp_path, n=10)
    _simd_path(base["settings"])
    out, _ = _probe(tmp_path, n=10, PYACL_HARDGRAD_THREADS=threads, PYACL_HARDGRAD_SPLIT_NS=split_ns,
                    PYACL_HARDGRAD_KERNEL_FAKE_NS=_fake(base["settings"], fake, scalar=5))
    s = out["settings"]
    assert s["threads"] == int(threads)
    if threads != "1":
        assert s["split_min_ns"] == float(split_ns)
    for r in _rows(out):
        assert r["parallel_min_elements"] == want, r


def test_the_default_split_rule_is_reported(embedded, tmp_path):
    """Without PYACL_HARDGRAD_SPLIT_NS: split from 4 measured hand-offs, at least 8 us and at
    most 25 us; a row's threshold is that time over its cost per element."""
    base, _ = _probe(tmp_path, n=10)
    _simd_path(base["settings"])
    out, _ = _probe(tmp_path, n=10, PYACL_HARDGRAD_THREADS="2",
                    PYACL_HARDGRAD_KERNEL_FAKE_NS=_fake(base["settings"], 0.25))
    s = out["settings"]
    assert s["handoff_ns"] > 0 and s["split_min_ns"] == min(25000.0, max(8000.0, 4 * s["handoff_ns"]))
    for r in _rows(out):
        assert r["parallel_min_elements"] == int(s["split_min_ns"] / 0.25) + 1, r


def test_query_arguments_are_checked(embedded):
    from pyacl_hardgrad._binding import ffi, lib
    count = ffi.new("int32_t *")
    assert lib.hgGetKernelChoices(ffi.NULL, 0, ffi.NULL) == 100000
    assert lib.hgGetKernelChoices(ffi.NULL, 1, count) == 100000
    assert lib.hgGetKernelChoices(ffi.NULL, -1, count) == 100000
    assert lib.hgGetKernelSettings(ffi.NULL) == 100000
    assert lib.hgGetKernelChoices(ffi.NULL, 0, count) == 0 and count[0] >= 0
    total = count[0]
    if total:
        one = ffi.new("hgKernelChoice[1]")
        assert lib.hgGetKernelChoices(one, 1, count) == 0 and count[0] == total   # the count, not the copies
        assert ffi.string(one[0].op).startswith(b"aclnn")


def test_info_shows_every_operator_row(embedded, tmp_path):
    """`python -m pyacl_hardgrad info` runs every registered operator once per float dtype and
    prints each row's path, reason, times and split size."""
    proc = _run(tmp_path, "import sys; from pyacl_hardgrad.__main__ import main; sys.exit(main(['info']))",
                PYACL_HARDGRAD_KERNEL_FAKE_NS="scalar:7", PYACL_HARDGRAD_THREADS="2")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert any(ln.startswith("kernels:      paths scalar") for ln in lines), proc.stdout
    assert any(ln.startswith("kernel split: 2 threads") for ln in lines), proc.stdout
    from pyacl_hardgrad import ops
    names = [n for n, s in ops.operators().items() if not any(p.role == "inout" for p in s.params)]
    for name in names:
        for dt in ("ACL_FLOAT", "ACL_FLOAT16", "ACL_BF16"):
            row = [ln for ln in lines if ln.startswith(f"  {name} ") and ln.split(":")[0].endswith(f"->{dt}")]
            assert len(row) == 1, (name, dt, proc.stdout)
            assert "scalar 7.000" in row[0] and "split >= " in row[0], row


_MEMORY_PROBE = """
import json
import numpy as np
import pyacl_hardgrad as hg
from pyacl_hardgrad import _kernel_info as ki
n = 64 * 1024
g = hg.Tensor(np.linspace(-4, 4, n, dtype=np.float32)); x = hg.Tensor(np.linspace(4, -4, n, dtype=np.float32))
o = hg.empty((n,))
with hg.default_device().create_stream() as s:
    for _ in range(50):
        hg.hardtanh_backward(g, x, -1.0, 1.0, out=o, stream=s, sync=True)
print(json.dumps({"settings": ki.settings(), "choices": ki.choices(),
                  "ok": bool((o.numpy() == np.where((x.numpy() > -1) & (x.numpy() < 1), g.numpy(), 0)).all())}))
"""


def _sysfs_l1_data_bytes():
    import glob
    for d in sorted(glob.glob("/sys/devices/system/cpu/cpu0/cache/index*")):
        try:
            level = open(f"{d}/level").read().strip()
            kind = open(f"{d}/type").read().strip()
            size = open(f"{d}/size").read().strip()
        except OSError:
            continue
        if level == "1" and kind in ("Data", "Unified"):
            return int(size[:-1]) * {"K": 1 << 10, "M": 1 << 20}[size[-1]] if size[-1] in "KM" else int(size)
    return None


def test_calls_beyond_the_level1_cache_learn_their_memory_cost_per_size_class(embedded, tmp_path):
    """A call moving more than the level-1 data cache (where the per-element costs are measured)
    and kept on one thread is timed: its size class (bytes over L1, in powers of 2) gets a memory
    cost, which the settings report and the row's split size takes into account (never later
    than the cache-resident cost alone would split it)."""
    proc = _run(tmp_path, _MEMORY_PROBE, PYACL_HARDGRAD_THREADS="2")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["ok"]
    s = out["settings"]
    l1 = _sysfs_l1_data_bytes()
    assert s["l1_cache_bytes"] == (l1 or 32 * 1024)
    learnt = [c for c, v in enumerate(s["memory_ns_per_byte"]) if v > 0]
    size_class = max(0, (3 * 4 * 64 * 1024 // s["l1_cache_bytes"]).bit_length() - 1)
    assert len(s["memory_ns_per_byte"]) == 16 and all(v >= 0 for v in s["memory_ns_per_byte"])
    row = next(r for r in out["choices"] if r["op"] == "aclnnHardtanhBackward")
    compute_only = int(s["split_min_ns"] / row["ns_per_element"][row["path"]]) + 1
    if learnt:                                 # a call kept on one thread was timed
        assert learnt == [min(size_class, 15)], s["memory_ns_per_byte"]
    else:                                      # every call was split (a busy machine's hand-off)
        assert compute_only <= 64 * 1024
    assert row["parallel_min_elements"] <= compute_only
