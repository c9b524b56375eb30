"""The caching device allocator: reuse by size class, statistics, empty_cache, the direct setting,
threads, no reuse while queued work may still touch a block, the OOM retry, device teardown."""
import gc
import json
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
from hg_threads import run_threads


@pytest.fixture
def dev(hg):
    if not hg.allocator_settings()["mode"] == "caching":
        pytest.skip("the suite runs with PYACL_HARDGRAD_ALLOCATOR=direct")
    with hg.Device(0) as d:
        d.empty_cache()
        yield d


def _stats(hg, dev):
    return hg.memory_stats(dev)


def _run(code: str, env: dict | None = None) -> dict:
    """Run ``code`` in a fresh interpreter (settings are read once per process); its last line of
    output is JSON."""
    full = dict(os.environ)
    full.pop("PYACL_HARDGRAD_ALLOCATOR", None)
    full.pop("PYACL_HARDGRAD_ALLOCATOR_LIMIT", None)
    full.update(env or {})
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=full, cwd="/", timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_closed_tensor_block_is_handed_out_again_for_the_same_size_class(hg, dev):
    a = hg.empty((8,), hg.float32, dev)
    addr = a.data_ptr
    a.close()
    before = _stats(hg, dev)
    b = hg.empty((100,), hg.float32, dev)        # 400 bytes: the same 512-byte class
    assert b.data_ptr == addr
    after = _stats(hg, dev)
    assert after["hits"] == before["hits"] + 1 and after["misses"] == before["misses"]
    c = hg.empty((8,), hg.float32, dev)          # the only idle block is taken: a new one
    assert c.data_ptr != addr
    assert _stats(hg, dev)["misses"] == before["misses"] + 1
    b.close()
    c.close()


def test_sizes_are_rounded_to_classes_of_four_per_power_of_two(hg, dev):
    cls = hg.lib.hgb_cache_class_size
    assert [cls(n) for n in (0, 1, 512)] == [512, 512, 512]
    assert [cls(n) for n in (513, 640, 641, 768, 1000, 1024, 1025)] == [640, 640, 768, 768, 1024, 1024, 1280]
    assert cls(3 << 20) == 3 << 20 and cls((3 << 20) + 1) == 7 << 19
    for n in (777, 12345, 10**6, 10**9, 3 * 10**12):
        c = cls(n)
        assert n <= c < n * 1.25 + 1 and c % 128 == 0


def test_stats_count_in_use_cached_and_reserved_bytes(hg, dev):
    base = _stats(hg, dev)
    t = hg.empty((1000,), hg.float32, dev)       # 4000 bytes -> the 4096 class
    s = _stats(hg, dev)
    assert s["in_use_blocks"] == base["in_use_blocks"] + 1
    assert s["in_use_bytes"] == base["in_use_bytes"] + 4096
    assert s["requested_bytes"] == base["requested_bytes"] + 4000
    assert s["reserved_bytes"] == s["in_use_bytes"] + s["cached_bytes"]
    assert s["reserved_blocks"] == s["in_use_blocks"] + s["cached_blocks"]
    assert s["peak_in_use_bytes"] >= s["in_use_bytes"]
    assert s["allocations"] == base["allocations"] + 1
    t.close()
    s2 = _stats(hg, dev)
    assert s2["in_use_bytes"] == base["in_use_bytes"] and s2["requested_bytes"] == base["requested_bytes"]
    assert s2["cached_bytes"] == base["cached_bytes"] + 4096 and s2["cached_blocks"] == base["cached_blocks"] + 1
    assert s2["frees"] == base["frees"] + 1 and s2["releases"] == base["releases"]
    assert s2["reserved_bytes"] == s["reserved_bytes"]
    assert s2["device"] == 0 and s2["mode"] == "caching" and s2["limit"] == hg.allocator_settings()["limit"]


def test_empty_cache_frees_idle_blocks_and_meminfo_agrees_with_reserved(hg, dev):
    keep = hg.empty((64,), hg.float32, dev)
    for n in (8, 1000, 5000, 70000):
        hg.empty((n,), hg.float32, dev).close()
    s = _stats(hg, dev)
    assert s["cached_blocks"] >= 4
    free_cached, total = dev.mem_info()
    live = hg.live_counts()
    reserved = hg.live_counts(reserved=True)
    assert reserved["deviceAllocations"] - live["deviceAllocations"] == s["cached_blocks"]
    assert reserved["deviceBytes"] - live["deviceBytes"] == s["cached_bytes"]
    dev.empty_cache()
    s2 = _stats(hg, dev)
    assert s2["cached_blocks"] == 0 and s2["cached_bytes"] == 0
    assert s2["reserved_bytes"] == s2["in_use_bytes"] == s["in_use_bytes"]
    assert s2["releases"] == s["releases"] + s["cached_blocks"]
    free_after, total2 = dev.mem_info()
    assert total2 == total and free_after - free_cached == s["cached_bytes"]   # the runtime counts reserved as used
    assert hg.live_counts() == live == hg.live_counts(reserved=True)
    keep.close()
    hg.empty_cache()                             # every device
    assert _stats(hg, dev)["cached_blocks"] == 0


def test_live_counts_count_memory_in_use_and_cached_blocks_separately(hg, dev):
    before = hg.live_counts()
    t = hg.zeros((256,), hg.float32, dev)
    assert hg.live_counts()["deviceAllocations"] == before["deviceAllocations"] + 1
    t.close()
    assert hg.live_counts() == before
    assert hg.live_counts(reserved=True)["deviceAllocations"] == before["deviceAllocations"] + 1


def test_outputs_workspaces_and_device_memory_come_from_the_allocator(hg, dev):
    s = dev.create_stream()
    g = hg.from_numpy(np.linspace(-4, 4, 64, dtype=np.float32), dev)
    x = hg.from_numpy(np.linspace(4, -4, 64, dtype=np.float32), dev)
    base = _stats(hg, dev)
    out = hg.hardsigmoid_backward(g, x, stream=s, sync=True)
    assert _stats(hg, dev)["allocations"] == base["allocations"] + 1
    addr = out.data_ptr
    out.close()
    out2 = hg.hardsigmoid_backward(g, x, stream=s, sync=True)
    assert out2.data_ptr == addr                 # the dropped output's block again
    # a plan's workspace (a strided view makes the operator stage it)
    view = hg.empty((128,), hg.float32, dev)[::2]
    plan = hg.HardsigmoidBackwardPlan(g, x, view)
    mid = _stats(hg, dev)
    plan.run(None, s, sync=True)
    grew = _stats(hg, dev)["allocations"] - mid["allocations"]
    assert grew == (1 if plan.workspace_size else 0)
    plan.close()
    mem = dev.allocate(100)
    assert _stats(hg, dev)["in_use_bytes"] >= mid["in_use_bytes"] + 512
    info = hg.ffi.new("hgAllocation *")
    assert hg.lib.hgQueryAllocation(hg.ffi.cast("void *", int(mem)), info) == 0
    assert info.size == 512 and mem.nbytes == 100
    mem.copy_from_host(bytes(range(100)))
    assert bytes(mem.copy_to_host()) == bytes(range(100))
    before_direct = _stats(hg, dev)
    exact = dev.allocate(100, policy=hg.lib.ACL_MEM_MALLOC_HUGE_FIRST)   # a policy: one aclrtMalloc
    assert hg.lib.hgQueryAllocation(hg.ffi.cast("void *", int(exact)), info) == 0 and info.size == 100
    assert _stats(hg, dev)["allocations"] == before_direct["allocations"]
    for obj in (mem, exact, view, out2, g, x, s):
        obj.close()


def test_a_block_used_by_queued_work_is_not_reused_before_the_work_completed(hg, dev):
    s = dev.create_stream()
    gate = threading.Event()
    n = 64
    g = hg.from_numpy(np.full(n, 2.0, np.float32), dev)
    x = hg.from_numpy(np.zeros(n, np.float32), dev)
    o = hg.empty((n,), hg.float32, dev)
    s.launch_host_func(lambda: gate.wait(30))    # the stream stops here until the gate opens
    hg.hardsigmoid_backward(g, x, out=o, stream=s)
    busy = {g.data_ptr, x.data_ptr, o.data_ptr}
    for t in (g, x, o):
        t.close()
    fresh = [hg.empty((n,), hg.float32, dev) for _ in range(3)]
    assert not busy & {t.data_ptr for t in fresh}
    for t in fresh:
        t.copy_from(np.full(n, 7.0, np.float32))
    gate.set()
    s.synchronize()                              # the queued call ran, then let go of its tensors
    for t in fresh:
        np.testing.assert_array_equal(t.numpy(), np.full(n, 7.0, np.float32))
    again = [hg.empty((n,), hg.float32, dev) for _ in range(3)]
    assert {t.data_ptr for t in again} == busy
    for t in fresh + again:
        t.close()
    s.close()


def test_threads_never_share_a_live_block_and_the_books_balance(hg, dev):
    live_base = hg.live_counts()
    base = _stats(hg, dev)
    g = hg.from_numpy(np.linspace(-4, 4, 16, dtype=np.float32), dev)
    lock = threading.Lock()
    live: set = set()
    errors = []

    def work(seed):
        rng = np.random.default_rng(seed)
        s = dev.create_stream()
        held = []
        try:
            for i in range(400):
                n = int(rng.choice([8, 16, 300, 5000]))
                t = hg.empty((n,), hg.float32, dev) if n != 16 else hg.hardsigmoid_backward(g, g, stream=s)
                with lock:
                    if t.data_ptr in live:
                        errors.append(t.data_ptr)
                    live.add(t.data_ptr)
                held.append(t)
                if len(held) > 4 or i % 7 == 0:
                    s.synchronize()
                    for t in held:
                        with lock:
                            live.discard(t.data_ptr)
                        t.close()
                    held = []
        finally:
            s.synchronize()
            for t in held:
                with lock:
                    live.discard(t.data_ptr)
                t.close()
            s.close()

    run_threads(work, 4)
    g.close()
    assert not errors
    s = _stats(hg, dev)
    assert s["in_use_bytes"] == base["in_use_bytes"] and s["in_use_blocks"] == base["in_use_blocks"]
    assert s["reserved_bytes"] == s["in_use_bytes"] + s["cached_bytes"]
    assert s["allocations"] - base["allocations"] == 4 * 400 + 1     # and g
    gc.collect()
    assert hg.live_counts() == live_base


def test_a_device_teardown_frees_its_cached_blocks_before_the_reset():
    out = _run("""
        import json, pyacl_hardgrad as hg
        d = hg.Device(0)
        d1 = hg.Device(1)
        for n in (8, 1000, 100000):
            hg.empty((n,), hg.float32, d).close()
            hg.empty((n,), hg.float32, d1).close()
        cached = [hg.memory_stats(0)["cached_blocks"], d1.memory_stats()["cached_blocks"]]
        raw = hg.live_counts(reserved=True)["deviceAllocations"]
        d1.close()
        after_d1 = [hg.memory_stats(1)["cached_blocks"], hg.live_counts(reserved=True)["deviceAllocations"]]
        d.close()
        hg.release_defaults()
        print(json.dumps({"cached": cached, "raw": raw, "after_d1": after_d1,
                          "end": hg.live_counts(reserved=True), "stats0": hg.memory_stats(0)}))
    """, {"PYACL_HARDGRAD_DEVICE_COUNT": "2"})
    assert out["cached"] == [3, 3] and out["raw"] == 6
    assert out["after_d1"] == [0, 3]
    assert not {k: v for k, v in out["end"].items() if v}
    assert out["stats0"]["reserved_bytes"] == 0 and out["stats0"]["releases"] == 3


def test_direct_setting_caches_nothing_and_keeps_the_statistics():
    out = _run("""
        import json, pyacl_hardgrad as hg
        d = hg.Device(0)
        a = hg.empty((8,), hg.float32, d)
        info = hg.ffi.new("hgAllocation *")
        hg.lib.hgQueryAllocation(hg.ffi.cast("void *", a.data_ptr), info)
        size = int(info.size)
        mid = hg.memory_stats(d)
        a.close()
        for _ in range(10):
            hg.empty((8,), hg.float32, d).close()
        print(json.dumps({"settings": hg.allocator_settings(), "size": size, "mid": mid, "end": hg.memory_stats(d),
                          "raw": hg.live_counts(reserved=True)["deviceAllocations"]}))
    """, {"PYACL_HARDGRAD_ALLOCATOR": "direct"})
    assert out["settings"]["mode"] == "direct" and out["size"] == 32
    assert out["mid"]["in_use_bytes"] == 32 and out["mid"]["in_use_blocks"] == 1
    end = out["end"]
    assert end["hits"] == 0 and end["misses"] == 11 and end["frees"] == 11 and end["releases"] == 11
    assert end["cached_bytes"] == 0 and end["reserved_bytes"] == 0 and out["raw"] == 0


@pytest.mark.parametrize("var, value", [("PYACL_HARDGRAD_ALLOCATOR", "Direct"),
                                        ("PYACL_HARDGRAD_ALLOCATOR", "none"),
                                        ("PYACL_HARDGRAD_ALLOCATOR_LIMIT", "1.5G"),
                                        ("PYACL_HARDGRAD_ALLOCATOR_LIMIT", "-1"),
                                        ("PYACL_HARDGRAD_ALLOCATOR_LIMIT", "12KB")])
def test_a_malformed_setting_is_refused_naming_the_variable(var, value):
    env = dict(os.environ, **{var: value})
    proc = subprocess.run([sys.executable, "-c", "import pyacl_hardgrad as hg; hg.Device(0)"], capture_output=True,
                          text=True, env=env, cwd="/", timeout=60)
    assert proc.returncode != 0
    assert f"ValueError: {var}={value!r}" in proc.stderr


def test_the_idle_limit_frees_blocks_beyond_it():
    out = _run("""
        import json, pyacl_hardgrad as hg
        d = hg.Device(0)
        ts = [hg.empty((256,), hg.float32, d) for _ in range(4)]      # 1024 bytes each
        for t in ts:
            t.close()
        print(json.dumps(hg.memory_stats(d)))
    """, {"PYACL_HARDGRAD_ALLOCATOR_LIMIT": "2K"})
    assert out["limit"] == 2048
    assert out["cached_blocks"] == 2 and out["cached_bytes"] == 2048 and out["releases"] == 2


def test_an_allocation_failure_frees_the_cache_and_retries_once():
    out = _run("""
        import json, pyacl_hardgrad as hg
        from pyacl_hardgrad import errors
        d = hg.Device(0)
        hg.empty((600 * 1024,), "uint8", d).close()              # 600K -> the 640K class, kept
        before = hg.memory_stats(d)
        t = hg.empty((700 * 1024,), "uint8", d)                  # 768K: fits only without the cached 640K
        retried = hg.memory_stats(d)
        leftover = [errors.last_error(), hg.lib.aclGetRecentErrMsg() == hg.ffi.NULL or
                    hg.ffi.string(hg.lib.aclGetRecentErrMsg()) == b""]
        t.close()
        hg.empty_cache()
        t = hg.empty((900 * 1024,), "uint8", d)                  # the 1M class does not fit: the exact size
        info = hg.ffi.new("hgAllocation *")
        hg.lib.hgQueryAllocation(hg.ffi.cast("void *", t.data_ptr), info)
        exact = int(info.size)
        t.close()
        exact_cached = hg.memory_stats(d)["cached_blocks"]
        try:
            hg.empty((2 * 1024 * 1024,), "uint8", d)
            failed = None
        except hg.AclError as exc:
            failed = [exc.code, exc.function]
        print(json.dumps({"before": before, "retried": retried, "leftover": leftover, "exact": exact,
                          "exact_cached": exact_cached, "failed": failed, "end": hg.memory_stats(d),
                          "live": hg.live_counts()["deviceAllocations"]}))
    """, {"PYACL_HARDGRAD_DEVICE_MEMORY": "950K"})
    assert out["before"]["cached_blocks"] == 1 and out["before"]["oom_retries"] == 0
    r = out["retried"]
    assert r["oom_retries"] == 1 and r["cached_blocks"] == 0 and r["in_use_bytes"] == 768 * 1024
    assert r["releases"] == 1 and r["alloc_failures"] == 0
    assert out["leftover"] == [0, True]          # the handled failure leaves no error behind
    assert out["exact"] == 900 * 1024 and out["exact_cached"] == 0   # exact-size blocks are not kept
    assert out["failed"] == [207001, "aclrtMalloc"]
    assert out["end"]["alloc_failures"] == 1 and out["end"]["in_use_bytes"] == 0 and out["live"] == 0


def test_memory_stats_default_to_the_current_device_and_reset_peaks(hg, dev):
    assert hg.memory_stats()["device"] == 0
    assert hg.memory_stats(dev) == dev.memory_stats() == hg.memory_stats(0)
    t = hg.empty((10000,), hg.float32, dev)
    t.close()
    hg.reset_peak_memory_stats(dev)
    s = dev.memory_stats()
    assert s["allocations"] == s["hits"] == s["misses"] == s["frees"] == 0
    assert s["peak_in_use_bytes"] == s["in_use_bytes"] and s["peak_reserved_bytes"] == s["reserved_bytes"]
    with pytest.raises(ValueError, match="device"):
        hg.memory_stats(-1)


def test_info_reports_the_allocator():
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYACL_HARDGRAD_ALLOCATOR")}
    proc = subprocess.run([sys.executable, "-m", "pyacl_hardgrad", "info"], capture_output=True, text=True,
                          cwd="/", timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("allocator:"))
    assert "caching" in line and "PYACL_HARDGRAD_ALLOCATOR" in line



def test_the_allocator_runs_clean_under_memcheck(tmp_path):
    """Many sizes given back and handed out again, the idle limit, empty_cache, the OOM retry and
    a failed allocation, direct-policy blocks, and a device reset with cached blocks, under
    valgrind memcheck: no invalid access and no definite or indirect leak in the package's C."""
    import hg_memcheck

    found, out = hg_memcheck.run("""
        import json, pyacl_hardgrad as hg
        d, d1 = hg.Device(0), hg.Device(1)
        for rnd in range(3):
            ts = [hg.empty((n,), "uint8", d) for n in (1, 511, 513, 4000, 70000)]
            for t in ts[::2] + ts[1::2]:
                t.close()
        first = hg.memory_stats(d)
        x, y = hg.empty((150 * 1024,), "uint8", d), hg.empty((150 * 1024,), "uint8", d)
        x.close()                                                # both beyond the idle limit: freed
        y.close()
        limited = hg.memory_stats(d)
        hg.empty_cache()
        hg.empty((150 * 1024,), "uint8", d).close()              # the 160K class, kept
        big = hg.empty((850 * 1024,), "uint8", d)                # 896K: fits once the cache is freed
        retried = hg.memory_stats(d)
        try:
            hg.empty((2 << 20,), "uint8", d)
            failed = None
        except hg.AclError as exc:
            failed = exc.code
        big.close()
        m = d.allocate(100, policy=hg.lib.ACL_MEM_MALLOC_HUGE_FIRST)
        m.close()
        for n in (8, 1000, 10000):
            hg.empty((n,), hg.float32, d1).close()
        cached1 = d1.memory_stats()["cached_blocks"]
        d1.close()                                               # resets device 1 with cached blocks
        hg.empty((16,), hg.float32, d).close()                   # left cached at exit
        print(json.dumps({"first": first, "limited": limited, "retried": retried, "failed": failed,
                          "cached1": cached1, "end": hg.memory_stats(d)}))
    """, tmp_path, {"PYACL_HARDGRAD_DEVICE_COUNT": "2", "PYACL_HARDGRAD_DEVICE_MEMORY": "950K",
                    "PYACL_HARDGRAD_ALLOCATOR_LIMIT": "200K"})
    got = json.loads(out.strip().splitlines()[-1])
    # the books show every path was taken
    assert got["first"]["cached_blocks"] == 5 and got["first"]["hits"] == 10 and got["first"]["misses"] == 5
    assert got["limited"]["releases"] == 2 and got["limited"]["cached_blocks"] == 5
    assert got["retried"]["oom_retries"] == 1 and got["failed"] == 207001 and got["cached1"] == 3
    assert got["end"]["in_use_bytes"] == 0 and got["end"]["alloc_failures"] == 1
    assert not found, "\n\n".join(found)
