"""Small operator calls on an idle stream run inside the launch (the embedded runtime's inline
path), seen from Python: with inline execution on and off, on two CPUs and pinned to one CPU
(the affinity set before the runtime starts its threads), results match numpy for one-calls,
plan runs and asynchronous runs; a call queued behind a blocking host function waits for it;
host functions run on the runtime's thread, never on the caller's; events recorded after a
call complete after it; nothing stays alive."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

_SCRIPT = r'''
import os, sys, threading
if sys.argv[1] == "pinned":
    os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
import numpy as np
import pyacl_hardgrad as hg

def want(g, x):
    return np.where((x <= -1.0) | (x >= 1.0), np.float32(0), g).astype(np.float32)

rng = np.random.default_rng(7)
with hg.Device(0) as dev, dev.create_stream() as s:
    # 8 elements: inline by size; 70001: inline only as a call that waits (sync=True)
    for n, reps in ((70001, 20), (8, 300)):
        G, X = (rng.uniform(-4, 4, n).astype(np.float32) for _ in range(2))
        g, x, o = hg.Tensor(G, dev), hg.Tensor(X, dev), hg.empty((n,), "float32", dev)
        expect = want(G, X)
        for i in range(reps):
            o.copy_from(np.zeros(n, np.float32))
            hg.hardtanh_backward(g, x, -1.0, 1.0, out=o, stream=s, sync=True)
            assert np.array_equal(o.numpy(), expect), (n, i)
        plan = hg.HardtanhBackwardPlan(g, x, -1.0, 1.0, o, repeatable=True)
        for i in range(reps):
            plan.run(None, s, sync=(i % 2 == 0))
            if i % 3 == 0:
                s.synchronize()
        s.synchronize()
        assert np.array_equal(o.numpy(), expect)
        # numpy in, numpy out
        for i in range(min(reps, 50)):
            assert np.array_equal(hg.hardtanh_backward(G, X, -1.0, 1.0), expect)
        if n != 8:
            plan.close()
            for t in (g, x, o):
                t.close()

    # a call behind a blocking host function waits for it (the stream is not idle)
    gate, seen = threading.Event(), []
    o.copy_from(np.zeros(8, np.float32))
    def host():
        seen.append(threading.get_ident())
        gate.wait(10)
    s.launch_host_func(host)
    hg.hardtanh_backward(g, x, -1.0, 1.0, out=o, stream=s)
    big_g, big_x = hg.Tensor(np.resize(G, 70001), dev), hg.Tensor(np.resize(X, 70001), dev)
    big = hg.empty((70001,), "float32", dev)
    waiter = threading.Thread(target=hg.hardtanh_backward, args=(big_g, big_x, -1.0, 1.0),
                              kwargs={"out": big, "stream": s, "sync": True})
    waiter.start()               # a call that waits, queued behind the host function too
    ev = s.record()
    assert not ev.query() and not s.query()
    raw = np.empty(8, np.float32)
    hg.raw.check(hg.raw.lib.aclrtMemcpy(hg.raw.ffi.from_buffer(raw.view(np.uint8)), raw.nbytes,
                                        hg.raw.ffi.cast("void *", o.data_ptr), raw.nbytes,
                                        hg.raw.lib.ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy")
    assert not raw.any(), raw          # not run yet: queued behind the host function
    gate.set()
    waiter.join(30)
    assert not waiter.is_alive()
    ev.synchronize()
    assert ev.query() and s.query()
    assert np.array_equal(o.numpy(), expect)
    assert np.array_equal(big.numpy(), want(np.resize(G, 70001), np.resize(X, 70001)))
    for t in (big_g, big_x, big):
        t.close()
    assert seen and seen[0] != threading.get_ident()
    ev.close()
    plan.close()
    for t in (g, x, o):
        t.close()
counts = hg.live_counts()
counts.pop("scalars")
assert counts.pop("streams") <= 1, counts   # the numpy form keeps one stream of its own
assert not any(counts.values()), counts
print("OK")
'''


@pytest.mark.parametrize("placement", ["two_cpus", "pinned"])
@pytest.mark.parametrize("inline", ["1", "0", ""])
def test_small_calls_match_numpy_and_keep_stream_order(hg, tmp_path, placement, inline):
    if not hg.BACKEND.is_embedded:
        pytest.skip("the embedded runtime's inline path")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYACL_HARDGRAD_") or k == "PYACL_HARDGRAD_BACKEND"}
    env["PYACL_HARDGRAD_INLINE"] = inline
    proc = subprocess.run([sys.executable, "-c", _SCRIPT, placement], cwd=tmp_path, capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("OK")
