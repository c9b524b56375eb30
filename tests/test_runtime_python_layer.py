"""The runtime families in the Python layer: events with flags and their status and
timestamps, stream status / failure mode / timed synchronisation, Python callables on a
stream (host functions and report callbacks), memset on acl host memory, large device
blocks on huge-page boundaries, the last-error
API, and -- in a two-device child process -- peer copies, mixed-device errors and
``with Device(1):`` restoring the thread's previous device."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest


def test_event_flags_status_and_timestamp(hg):
    lib = hg.lib
    with hg.Device(0) as dev:
        s = dev.create_stream()
        ev = dev.create_event(lib.ACL_EVENT_SYNC | lib.ACL_EVENT_TIME_LINE)
        plain = dev.create_event(0)
        gate = threading.Event()
        s.launch_host_func(gate.wait)
        s.record(ev)
        assert not ev.query() and not ev.waiters_done()
        with pytest.raises(hg.RuntimeApiError) as info:
            ev.synchronize(timeout_ms=10)
        assert info.value.name == "ACL_ERROR_RT_EVENT_SYNC_TIMEOUT"
        assert not s.query()
        with pytest.raises(hg.RuntimeApiError) as info:
            s.synchronize_timeout(10)
        assert info.value.name == "ACL_ERROR_RT_STREAM_SYNC_TIMEOUT"
        gate.set()
        ev.synchronize(timeout_ms=-1)
        assert ev.query() and ev.waiters_done() and s.query()
        assert ev.timestamp() > 0
        s.record(plain)
        plain.synchronize()
        with pytest.raises(hg.RuntimeApiError) as info:
            plain.timestamp()            # no ACL_EVENT_TIME_LINE
        assert "ACL_EVENT_TIME_LINE" in info.value.message
        assert ev.elapsed_time(plain) >= 0.0 and plain.elapsed_time(plain) == 0.0   # timed without it
        with pytest.raises(hg.RuntimeApiError):
            s.wait(plain)                # no ACL_EVENT_SYNC
        with pytest.raises(hg.RuntimeApiError) as info:
            dev.create_event(lib.ACL_EVENT_IPC)
        assert info.value.name == "ACL_ERROR_RT_FEATURE_NOT_SUPPORT"
        s.set_failure_mode(True)
        with pytest.raises(hg.RuntimeApiError):
            s.set_failure_mode(False)    # once per stream
        for h in (plain, ev, s):
            h.close()


def test_python_callables_run_in_stream_order(hg):
    with hg.Device(0) as dev:
        s = dev.create_stream()
        seen = []
        mem = dev.allocate(8)
        mem.copy_from_host(np.zeros(8, np.uint8))
        s.launch_host_func(lambda: seen.append(("host", threading.current_thread().name)))
        s.launch_callback(lambda: seen.append(("block", threading.current_thread().name)), block=True)
        mem.copy_from_host(np.full(8, 7, np.uint8), stream=s)
        s.launch_callback(lambda: seen.append(("noblock", bytes(mem.copy_to_host()))), block=False)
        s.synchronize()
        for _ in range(200):             # the non-blocking one may finish after the stream
            if len(seen) == 3:
                break
            threading.Event().wait(0.01)
        assert [k for k, _ in seen] == ["host", "block", "noblock"]
        assert seen[1][1] == "pyacl_hardgrad-report"
        assert seen[2][1] == b"\x07" * 8     # ran after the copy before it
        with pytest.raises(TypeError):
            s.launch_callback(42)
        mem.close()
        s.close()


def test_report_thread_serves_streams_made_after_it_went_idle(hg):
    """The report thread ends when no stream is subscribed any more; a later callback on a
    new stream starts it again (a BLOCK callback would otherwise wait for ever)."""
    with hg.Device(0) as dev:
        for round_ in range(3):
            s = dev.create_stream()
            hits = []
            s.launch_callback(lambda: hits.append(round_), block=True)
            s.synchronize()
            assert hits == [round_]
            s.close()
            threading.Event().wait(0.15)     # let the thread notice the stream is gone


def test_memset_on_acl_host_memory(hg):
    with hg.Device(0) as dev:
        s = dev.create_stream()
        host = hg.memory.HostMemory(64)
        host.memset(0x5A)
        assert bytes(host.view()) == b"\x5a" * 64
        host.memset(1, nbytes=16, offset=8, stream=s)
        s.synchronize()
        arr = np.frombuffer(host.view(), np.uint8)
        assert arr[7] == 0x5A and arr[8] == 1 and arr[23] == 1 and arr[24] == 0x5A
        with pytest.raises(ValueError):
            host.memset(0, nbytes=65)
        # device memory can be filled from it asynchronously
        mem = dev.allocate(64)
        mem.copy_from_host(host.view(), stream=s)
        s.synchronize()
        assert bytes(mem.copy_to_host())[:9] == b"\x5a" * 8 + b"\x01"
        mem.close()
        host.close()
        s.close()


def test_large_device_blocks_start_on_huge_page_boundaries(hg):
    """aclrtMalloc blocks of 4 MiB and more start on a 2 MiB boundary (so the kernel may back
    them with huge pages); smaller ones keep the 512-byte alignment.  Both hold what is written."""
    if not hg.BACKEND.is_embedded:
        pytest.skip("an alignment rule of the embedded runtime")
    ffi, lib = hg.raw.ffi, hg.raw.lib
    with hg.Device(0):
        for size, align in ((4 << 20, 2 << 20), ((4 << 20) + 3, 2 << 20), ((4 << 20) - 512, 512), (100, 512)):
            p = ffi.new("void **")
            hg.raw.check(lib.aclrtMalloc(p, size, lib.ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc")
            try:
                assert int(ffi.cast("uintptr_t", p[0])) % align == 0, (size, hex(int(ffi.cast("uintptr_t", p[0]))))
                data = np.arange(size, dtype=np.uint64).astype(np.uint8)
                back = np.empty_like(data)
                hg.raw.check(lib.aclrtMemcpy(p[0], size, ffi.from_buffer(data), size, lib.ACL_MEMCPY_HOST_TO_DEVICE),
                             "aclrtMemcpy")
                hg.raw.check(lib.aclrtMemcpy(ffi.from_buffer(back, require_writable=True), size, p[0], size,
                                             lib.ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy")
                assert np.array_equal(back, data)
            finally:
                hg.raw.check(lib.aclrtFree(p[0]), "aclrtFree")


@pytest.mark.check_findings("invalid-free")
def test_last_error_holds_runtime_layer_codes_only(hg):
    errors, lib, ffi = hg.errors, hg.lib, hg.ffi
    with hg.Device(0):
        errors.last_error()                               # start clean
        assert lib.aclrtGetRunMode(ffi.NULL) == lib.ACL_ERROR_INVALID_PARAM
        assert errors.peek_last_error() == 0              # ACL-layer check: not recorded
        assert lib.aclrtFree(ffi.cast("void *", 0x10)) == lib.ACL_ERROR_RT_PARAM_INVALID
        assert errors.peek_last_error() == lib.ACL_ERROR_RT_PARAM_INVALID
        assert errors.last_error() == lib.ACL_ERROR_RT_PARAM_INVALID
        assert errors.last_error() == 0
        errors.recent_error_message()


_TWO_DEVICES = textwrap.dedent("""
    import numpy as np
    import pyacl_hardgrad as hg
    lib = hg.lib
    dev = hg.Device(0)
    a = dev.allocate(16)
    a.copy_from_host(np.arange(16, dtype=np.uint8))
    with hg.Device(1) as d1:
        b = d1.allocate(16)
        ctx = hg.ffi.new("int32_t *")
        assert lib.aclrtGetDevice(ctx) == 0 and ctx[0] == 1
        # device 1 does the copy: without peer access it may not read device 0's memory
        try:
            b.copy_from_device(a)
            raise SystemExit("copy across devices without peer access succeeded")
        except hg.RuntimeApiError as exc:
            assert "device 0" in exc.message and "device 1" in exc.message, exc.message
        assert d1.can_access_peer(0)
        d1.enable_peer_access(0)
        b.copy_from_device(a)
        assert bytes(b.copy_to_host()) == bytes(range(16))
        s1 = d1.create_stream()
        e0 = dev.create_event()
        try:
            s1.record(e0)
            raise SystemExit("recording a device-0 event on a device-1 stream succeeded")
        except hg.RuntimeApiError as exc:
            assert exc.name == "ACL_ERROR_RT_STREAM_CONTEXT", exc.name
        d1.disable_peer_access(0)
        s1.close(); e0.close(); b.close()
    # leaving the block made device 0 current again
    assert lib.aclrtGetDevice(ctx) == 0 and ctx[0] == 0, ctx[0]
    a.close(); dev.close()
    print("OK")
""")


def test_peer_copies_mixed_devices_and_device_scope(hg, tmp_path):
    env = dict(os.environ, PYACL_HARDGRAD_DEVICE_COUNT="2")
    proc = subprocess.run([sys.executable, "-c", _TWO_DEVICES], capture_output=True, text=True, env=env,
                          cwd=str(tmp_path), timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip() == "OK"
