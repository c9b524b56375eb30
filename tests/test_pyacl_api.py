"""pyacl_hardgrad.acl: pyACL's return conventions and argument rules, call by call.

Every function pyACL scripts call is listed with pyACL's parse format and return shape
(hicann/runtime python/pyACL): a valid call returns that shape (ints, 0 for NULL; the status
last), and arguments pyACL cannot parse raise its TypeError with its message.  Runtime
behaviour (codes on bad handles, values) is pinned per family below.
"""
import contextlib
import signal
import threading

import numpy as np
import pytest

NOT_SUPPORT = 200001

# name: (pyACL parse format, number of values before the status; "ret" for the status alone)
RT = {
    "set_device": ("i", "ret"), "reset_device": ("i", "ret"), "reset_device_force": ("i", "ret"),
    "get_device": ("", 1), "get_run_mode": ("", 1), "get_device_count": ("", 1),
    "synchronize_device": ("", "ret"), "synchronize_device_with_timeout": ("i", "ret"),
    "query_device_status": ("i", 1), "device_can_access_peer": ("ii", 1),
    "device_enable_peer_access": ("iI", "ret"), "device_disable_peer_access": ("i", "ret"),
    "get_device_info": ("II", 1), "device_get_stream_priority_range": ("", 2),
    "get_device_capability": ("iI", 1), "device_peer_access_status": ("ii", 1),
    "get_device_res_limit": ("iI", 1), "set_device_res_limit": ("iII", "ret"), "reset_device_res_limit": ("i", "ret"),
    "get_res_in_current_thread": ("i", 1),
    "create_context": ("i", 1), "destroy_context": ("k", "ret"), "set_context": ("k", "ret"),
    "get_context": ("", 1), "ctx_get_current_default_stream": ("", 1),
    "create_stream": ("", 1), "create_stream_with_config": ("ii", 1), "destroy_stream": ("k", "ret"),
    "destroy_stream_force": ("k", "ret"), "synchronize_stream": ("k", "ret"),
    "synchronize_stream_with_timeout": ("ki", "ret"), "stream_wait_event": ("kk", "ret"),
    "stream_query": ("k", 1), "stream_get_id": ("k", 1), "set_stream_failure_mode": ("kI", "ret"),
    "get_stream_available_num": ("", 1),
    "create_event": ("", 1), "create_event_with_flag": ("I", 1), "create_event_ex_with_flag": ("I", 1),
    "destroy_event": ("k", "ret"), "record_event": ("kk", "ret"), "reset_event": ("kk", "ret"),
    "query_event": ("k", 1), "query_event_status": ("k", 1), "query_event_wait_status": ("k", 1),
    "synchronize_event": ("k", "ret"), "synchronize_event_with_timeout": ("ki", "ret"),
    "event_elapsed_time": ("kk", 1), "event_get_timestamp": ("k", 1), "get_thread_last_task_id": ("", 1),
    "malloc": ("ki", 1), "malloc_cached": ("ki", 1), "malloc_align32": ("ki", 1), "malloc_host": ("k", 1),
    "free": ("k", "ret"), "free_host": ("k", "ret"), "memcpy": ("kkkki", "ret"), "memcpy_async": ("kkkkik", "ret"),
    "memset": ("kkik", "ret"), "memset_async": ("kkikk", "ret"), "get_mem_info": ("i", 2),
    "memcpy2d": ("kkkkkki", "ret"), "memcpy2d_async": ("kkkkkkik", "ret"),
    "value_write": ("kkIk", "ret"), "value_wait": ("kkIk", "ret"),
    "mem_flush": ("kk", "ret"), "mem_invalidate": ("kk", "ret"),
    "peek_at_last_error": ("i", "ret"), "get_last_error": ("i", "ret"),
    "set_op_wait_timeout": ("I", "ret"), "set_op_execute_time_out": ("I", "ret"),
    "subscribe_report": ("Kk", "ret"), "unsubscribe_report": ("Kk", "ret"), "process_report": ("i", "ret"),
}
# pyACL's functions that parse nothing and ignore what they are given
IGNORES_ARGS = {"get_device", "get_run_mode", "get_device_count", "synchronize_device", "get_context",
                "ctx_get_current_default_stream", "create_stream", "create_event", "get_thread_last_task_id",
                "device_get_stream_priority_range", "get_stream_available_num"}
# pyACL's message when it is not "acl.rt.<name> args parse failed"
MESSAGES = {n: f"acl.rt.{n} args parse failed!" for n in (
    "set_stream_failure_mode", "stream_query", "synchronize_event_with_timeout", "peek_at_last_error",
    "get_last_error", "set_op_wait_timeout")}
MESSAGES["set_op_execute_time_out"] = "acl.rt.set_op_execute_timeout args parse failed!"
MESSAGES["get_res_in_current_thread"] = "acl.rt.get_res_in_current_thread parse failed"

# Harmless valid arguments per format letter (handles 0 = NULL, sizes 0, ids 0)
VALID = {"i": 0, "I": 0, "k": 0, "K": 0, "s": "x"}
BAD = {"i": ["1", 1.5, None, 1 << 31], "I": ["1", 1.5, None], "k": ["1", 1.5, None, np.int64(1)],
       "K": ["1", 1.5, None]}


@pytest.fixture(scope="module")
def acl(hg):
    """pyacl_hardgrad.acl with ACL initialised and device 0 set for the module's tests (and
    the SIGINT handler that acl.util.start_thread resets put back afterwards)."""
    handler = signal.getsignal(signal.SIGINT)
    try:
        with hg.Runtime(), hg.Device(0):
            yield hg.acl
    finally:
        signal.signal(signal.SIGINT, handler)


def _check_shape(name, result, shape):
    if shape == "ret":
        assert type(result) is int, (name, result)
    else:
        assert type(result) is tuple and len(result) == shape + 1, (name, result)
        assert type(result[-1]) is int
        for v in result[:-1]:
            assert type(v) in (int, float), (name, result)


# Calls whose NULL/0 call would block, destroy the current context or set state for the
# rest of the suite: their shape is pinned by the family tests (test_*_calls) instead.
UNSAFE_WITH_ZERO = {"reset_device", "reset_device_force", "synchronize_device_with_timeout", "destroy_context",
                    "set_context", "subscribe_report", "unsubscribe_report", "process_report",
                    "set_op_wait_timeout", "set_op_execute_time_out", "device_enable_peer_access",
                    "device_disable_peer_access", "set_stream_failure_mode", "stream_wait_event",
                    "synchronize_stream_with_timeout", "malloc", "malloc_cached", "malloc_align32", "malloc_host",
                    "create_context", "create_stream_with_config", "set_device_res_limit", "reset_device_res_limit"}


@pytest.mark.parametrize("name", sorted(set(RT) - UNSAFE_WITH_ZERO))
def test_rt_return_shape(acl, name):
    fmt, shape = RT[name]
    fn = getattr(acl.rt, name)
    result = fn(*[VALID[c] for c in fmt])
    _check_shape(name, result, shape)


@pytest.mark.parametrize("name", sorted(RT))
def test_rt_unparsable_arguments_raise_pyacl_type_error(acl, name):
    fmt, _ = RT[name]
    fn = getattr(acl.rt, name)
    message = MESSAGES.get(name, f"acl.rt.{name} args parse failed")
    if name in IGNORES_ARGS:
        assert fmt == ""
        _check_shape(name, fn(1, "x", None), RT[name][1])     # ignored, as pyACL ignores them
        return
    for i, code in enumerate(fmt):
        for bad in BAD.get(code, []):
            args = [VALID[c] for c in fmt]
            args[i] = bad
            with pytest.raises(TypeError) as info:
                fn(*args)
            assert str(info.value) == message, (name, i, bad)
    with pytest.raises(TypeError) as info:
        fn(*[VALID[c] for c in fmt], 0)                 # one too many
    assert str(info.value) == message
    if fmt:
        with pytest.raises(TypeError) as info:
            fn(*[VALID[c] for c in fmt[:-1]])            # one too few
        assert str(info.value) == message
    with pytest.raises(TypeError):
        fn(*[VALID[c] for c in fmt], keyword=1)


@pytest.mark.check_findings("invalid-free")
def test_handles_are_plain_ints_and_masked_like_unsigned_long(acl):
    """'k' takes any int modulo 2**64 (pyACL's unsigned long): -1 is the all-ones address, which
    the runtime rejects with a code, not a crash."""
    assert acl.rt.free(-1) != 0
    assert acl.rt.free((1 << 64) + 0) != 0        # wraps to NULL
    assert acl.rt.destroy_stream(True) != 0        # bool is an int subclass, as for PyArg "k"
    with pytest.raises(TypeError, match="acl.rt.free args parse failed"):
        acl.rt.free(np.uint64(5))                   # numpy integers are not Python ints


# -- devices --------------------------------------------------------------------------------------
def test_device_calls(acl, hg):
    assert acl.rt.set_device(0) == 0
    assert acl.rt.get_device() == (0, 0)
    assert acl.rt.get_device(0) == (0, 0)                    # real code passes an id: ignored
    count, ret = acl.rt.get_device_count()
    assert ret == 0 and count == hg.device_count() >= 1
    mode, ret = acl.rt.get_run_mode()
    assert ret == 0 and mode == hg.lib.ACL_HOST              # the host drives the device
    assert acl.rt.synchronize_device() == 0 and acl.rt.synchronize_device(0) == 0
    assert acl.rt.set_device(count + 5) != 0                 # a code, not an exception
    assert acl.rt.reset_device(0) == 0 and acl.rt.set_device(0) == 0    # balanced
    assert acl.rt.reset_device(-7) != 0
    assert acl.rt.reset_device_force(-7) != 0
    assert type(acl.rt.synchronize_device_with_timeout(1000)) is int
    assert acl.rt.device_enable_peer_access(0, 0) != 0       # a device is not its own peer
    assert type(acl.rt.device_disable_peer_access(0)) is int and acl.rt.device_disable_peer_access(0) != 0
    for name in ("set_op_wait_timeout", "set_op_execute_time_out"):    # accepted, reported back
        assert getattr(acl.rt, name)(0) == 0


# -- contexts -------------------------------------------------------------------------------------
def test_context_calls(acl):
    before, ret = acl.rt.get_context()
    assert ret == 0 and before != 0
    ctx, ret = acl.rt.create_context(0)
    assert ret == 0 and type(ctx) is int and ctx != 0
    assert acl.rt.get_context() == (ctx, 0)                  # creating makes it current
    assert acl.rt.set_context(before) == 0
    assert acl.rt.get_context() == (before, 0)
    assert acl.rt.destroy_context(ctx) == 0
    assert acl.rt.destroy_context(ctx) != 0                  # already destroyed: a code
    assert acl.rt.destroy_context(0) != 0
    assert acl.rt.set_context(0) != 0
    bad, ret = acl.rt.create_context(-3)
    assert bad == 0 and ret != 0


def test_contexts_are_per_thread(acl):
    before, _ = acl.rt.get_context()
    ctx, ret = acl.rt.create_context(0)
    assert ret == 0
    seen = []

    def worker():
        seen.append(acl.rt.set_context(ctx))
        seen.append(acl.rt.get_context())
    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen == [0, (ctx, 0)]
    assert acl.rt.get_context()[0] == ctx
    assert acl.rt.set_context(before) == 0
    assert acl.rt.destroy_context(ctx) == 0


# -- streams and events ---------------------------------------------------------------------------
def test_stream_calls(acl, hg):
    s, ret = acl.rt.create_stream()
    assert ret == 0 and s != 0
    assert acl.rt.synchronize_stream(s) == 0
    assert acl.rt.synchronize_stream(0) == 0                 # NULL: the default stream
    assert acl.rt.destroy_stream(s) == 0
    assert acl.rt.destroy_stream(s) != 0
    assert acl.rt.destroy_stream(0) != 0
    stream, ret = acl.rt.create_stream_with_config(0, 0)
    assert ret == 0 and acl.rt.destroy_stream(stream) == 0
    s, _ = acl.rt.create_stream()
    assert acl.rt.synchronize_stream_with_timeout(s, 1000) == 0
    assert acl.rt.set_stream_failure_mode(s, 0) == 0
    assert acl.rt.destroy_stream(s) == 0


def test_event_calls(acl, hg):
    s, _ = acl.rt.create_stream()
    a, ret = acl.rt.create_event()
    assert ret == 0 and a != 0
    b, _ = acl.rt.create_event()
    assert acl.rt.record_event(a, s) == 0
    assert acl.rt.record_event(b, s) == 0
    assert acl.rt.synchronize_event(b) == 0
    assert acl.rt.query_event_status(b) == (hg.lib.ACL_EVENT_RECORDED_STATUS_COMPLETE, 0)
    ms, ret = acl.rt.event_elapsed_time(a, b)
    assert ret == 0 and type(ms) is float and ms >= 0.0
    s2, _ = acl.rt.create_stream()
    assert acl.rt.stream_wait_event(s2, b) == 0
    assert acl.rt.synchronize_stream(s2) == 0
    assert acl.rt.query_event_status(0)[1] != 0
    assert acl.rt.event_elapsed_time(a, 0)[1] != 0
    assert acl.rt.record_event(0, s) != 0
    for e in (a, b):
        assert acl.rt.destroy_event(e) == 0
    assert acl.rt.destroy_event(a) != 0
    for st in (s, s2):
        assert acl.rt.destroy_stream(st) == 0


@pytest.mark.parametrize("name,args", [("create_event_with_flag", (1,)), ("create_event_ex_with_flag", (1,))])
def test_event_with_flag(acl, hg, name, args):
    cname = {"create_event_with_flag": "aclrtCreateEventWithFlag",
             "create_event_ex_with_flag": "aclrtCreateEventExWithFlag"}[name]
    assert hasattr(hg.lib, cname)
    event, ret = getattr(acl.rt, name)(*args)
    assert ret == 0 and event != 0
    s, _ = acl.rt.create_stream()
    assert acl.rt.record_event(event, s) == 0
    assert acl.rt.synchronize_event(event) == 0
    assert acl.rt.destroy_event(event) == 0
    assert acl.rt.destroy_stream(s) == 0


# -- memory ---------------------------------------------------------------------------------------
@pytest.mark.check_findings("double-free", "invalid-free")
def test_memory_calls(acl, hg):
    p, ret = acl.rt.malloc(100, 0)
    assert ret == 0 and type(p) is int and p != 0
    h, ret = acl.rt.malloc_host(100)
    assert ret == 0 and h != 0
    data = bytes(range(100))
    assert acl.rt.memcpy(p, 100, acl.util.bytes_to_ptr(data), 100, 1) == 0
    assert acl.rt.memcpy(h, 100, p, 100, 2) == 0
    assert acl.util.ptr_to_bytes(h, 100) == data
    assert acl.rt.memset(p, 100, 0xAB, 10) == 0
    s, _ = acl.rt.create_stream()
    assert acl.rt.memset_async(p, 100, 0xCD, 5, s) == 0
    assert acl.rt.memcpy_async(h, 100, p, 100, 2, s) == 0
    assert acl.rt.synchronize_stream(s) == 0
    assert acl.util.ptr_to_bytes(h, 12) == b"\xcd" * 5 + b"\xab" * 5 + bytes([10, 11])
    free, total, ret = acl.rt.get_mem_info(hg.lib.ACL_HBM_MEM)
    assert ret == 0 and 0 < free <= total
    # failures come back as codes
    assert acl.rt.memcpy(p, 10, h, 100, 1) != 0               # count > dst_max
    assert acl.rt.memcpy(0, 100, h, 100, 1) != 0
    assert acl.rt.malloc(0, 0)[1] != 0                        # size 0 is invalid in ACL
    assert acl.rt.malloc(16, -1)[1] != 0                      # policy -1 reaches C as CANN's cast would
    assert acl.rt.get_mem_info(99)[2] != 0
    assert acl.rt.free(p) == 0
    assert acl.rt.free(p) != 0                                # double free: a code
    assert acl.rt.free_host(h) == 0
    assert acl.rt.free_host(h) != 0
    assert acl.rt.free(0) != 0 and acl.rt.free_host(0) != 0
    assert acl.rt.destroy_stream(s) == 0
    for name in ("malloc_cached", "malloc_align32"):
        p, ret = getattr(acl.rt, name)(64, 0)
        assert ret == 0 and p != 0 and acl.rt.free(p) == 0
        assert getattr(acl.rt, name)(0, 0)[1] != 0


def test_recent_error_message_follows_a_failure(acl):
    acl.get_recent_err_msg()                                  # drop anything pending
    assert acl.get_recent_err_msg() is None                   # NULL -> None, as Py_BuildValue("s")
    assert acl.rt.free(0) != 0
    msg = acl.get_recent_err_msg()
    assert isinstance(msg, str) and "aclrtFree" in msg
    assert acl.get_recent_err_msg() is None                   # reading cleared it


# -- callbacks ------------------------------------------------------------------------------------
def test_launch_callback_checks_callable_before_anything(acl):
    with pytest.raises(TypeError, match="parameter must be callable"):
        acl.rt.launch_callback(42, None, 0, 0)
    with pytest.raises(TypeError, match="acl.rt.launch_callback args parse failed"):
        acl.rt.launch_callback(print, None, "block", 0)
    with pytest.raises(TypeError, match="acl.rt.launch_callback args parse failed"):
        acl.rt.launch_callback(print, None, 0)


@contextlib.contextmanager
def report_thread(acl, stream):
    """A thread started with acl.util.start_thread looping on process_report, subscribed to
    ``stream``: yields its id; unsubscribes and joins it afterwards."""
    ctx, _ = acl.rt.get_context()
    stop = [False]

    def loop(_):
        acl.rt.set_context(ctx)
        while not stop[0]:
            acl.rt.process_report(50)
    tid, ret = acl.util.start_thread(loop, 0)
    assert ret == 0
    try:
        yield tid
    finally:
        acl.rt.unsubscribe_report(tid, stream)
        stop[0] = True
        assert acl.util.stop_thread(tid) == 0


def test_callbacks_run_on_the_subscribed_thread(acl):
    s, _ = acl.rt.create_stream()
    ran = []
    with report_thread(acl, s) as tid:
        assert acl.rt.launch_callback(ran.append, "x", 1, s) != 0               # not subscribed yet
        assert acl.rt.subscribe_report(tid, s) == 0
        for i in range(3):
            assert acl.rt.launch_callback(lambda a: ran.append((a, threading.get_ident())), i, 1, s) == 0
        assert acl.rt.launch_callback(ran.append, None, 7, s) != 0              # block type 7: a code
        assert acl.rt.synchronize_stream(s) == 0
        assert ran == [(i, tid) for i in range(3)]
        assert acl.rt._pending_callback_count() == 0                           # failed launches kept nothing
    assert acl.rt.process_report(0) != 0 and acl.rt.process_report(-2) != 0    # invalid timeouts
    assert acl.rt.process_report(10) != 0                                      # this thread is not subscribed
    assert acl.rt.destroy_stream(s) == 0


def test_exception_info_getters_without_information(acl, hg):
    for name in ("get_error_code_from_exception_info", "get_task_id_from_exception_info",
                 "get_stream_id_from_exception_info", "get_thread_id_from_exception_info",
                 "get_device_id_from_exception_info"):
        assert getattr(acl.rt, name)(0) == 0xFFFFFFFF        # NULL info: CANN's "no value"
        with pytest.raises(TypeError, match=f"acl.rt.{name} args parse failed"):
            getattr(acl.rt, name)("info")
    with pytest.raises(TypeError, match="set_exception_info_callback args parse failed"):
        acl.rt.set_exception_info_callback(5)
    assert acl.rt.set_exception_info_callback(None) == 0


# -- top level ------------------------------------------------------------------------------------
def test_top_level(acl, hg):
    major, minor, patch, ret = acl.get_version()
    assert ret == 0 and (major, minor) >= (1, 0)
    assert acl.get_version("ignored") == (major, minor, patch, ret)
    soc = acl.get_soc_name()
    assert isinstance(soc, str) and soc == hg.Device(0).soc_name
    assert acl.app_log(3, "a message") is None
    for bad in [(3,), ("3", "m"), (3, b"bytes"), (3, "nul\0inside")]:
        with pytest.raises(TypeError, match="acl.app_log args parse failed"):
            acl.app_log(*bad)
    with pytest.raises(TypeError, match="acl.init args parse failed"):
        acl.init(None)
    with pytest.raises(TypeError, match="acl.init args parse failed"):
        acl.init("a.json", "b.json")
    assert acl.init() == hg.lib.ACL_ERROR_REPEAT_INITIALIZE    # initialised by the fixture


@pytest.mark.parametrize("value", [0.0, -0.0, 1.0, -2.5, 0.1, 65504.0, 6e-8, 1e-3, 3.14159])
def test_float_to_float16_matches_numpy_in_range(acl, value):
    bits = acl.float_to_float16(value)
    assert bits == int(np.array(value, np.float16).view(np.uint16))
    assert acl.float16_to_float(bits) == float(np.array(bits, np.uint16).view(np.float16))


def test_float16_cann_edges(acl):
    assert acl.float_to_float16(1e9) == 0x7BFF and acl.float_to_float16(-1e9) == 0xFBFF
    assert acl.float_to_float16(float("inf")) == 0x7BFF and acl.float_to_float16(float("nan")) == 0x7BFF
    assert acl.float16_to_float(0x7C00) == 65536.0 and acl.float16_to_float(0x7E00) == 98304.0
    assert acl.float16_to_float(0x1_3C00) == 1.0              # 'H' masks to 16 bits
    with pytest.raises(TypeError, match="acl.float_to_float16 args parse failed"):
        acl.float_to_float16("1.0")


def test_data_type_size(acl, hg):
    lib = hg.lib
    for dt, size in [(lib.ACL_FLOAT, 4), (lib.ACL_FLOAT16, 2), (lib.ACL_BF16, 2), (lib.ACL_INT8, 1),
                     (lib.ACL_INT64, 8), (lib.ACL_DOUBLE, 8), (lib.ACL_BOOL, 1), (lib.ACL_COMPLEX128, 16),
                     (lib.ACL_STRING, 0), (lib.ACL_DT_UNDEFINED, 0), (12345, 8)]:
        assert acl.data_type_size(dt) == size, dt


def test_no_constants_exported(acl):
    """pyACL exports no ACL_* constants; scripts define their own."""
    for module in (acl, acl.rt, acl.util, acl.mdl, acl.media, acl.prof):
        assert not [n for n in dir(module) if n.startswith("ACL")], module


def test_not_yet_bound_calls_return_not_supported(acl, hg):
    """A runtime call the headers do not declare answers as on a CANN lacking it."""
    for name, (fmt, shape) in RT.items():
        if name in UNSAFE_WITH_ZERO or name in IGNORES_ARGS:
            continue
        fn = getattr(acl.rt, name)
        cname = fn.__doc__.rsplit("(", 1)[1].rstrip(")")
        if hasattr(hg.lib, cname):
            continue
        result = fn(*[VALID[c] for c in fmt])
        if shape == "ret":
            assert result == NOT_SUPPORT, name
        else:
            assert result[-1] == NOT_SUPPORT and all(v == 0 for v in result[:-1]), name


# -- the runtime families pyACL code uses beyond the basics -------------------------------------------
def test_value_write_then_wait_orders_two_streams(acl):
    word, _ = acl.rt.malloc(8, 0)
    h, _ = acl.rt.malloc_host(8)
    a, _ = acl.rt.create_stream()
    b, _ = acl.rt.create_stream()
    assert acl.rt.memset(word, 8, 0, 8) == 0
    assert acl.rt.value_wait(word, 5, 1, b) == 0                  # ACL_STREAM_WAIT_VALUE_EQ
    assert acl.rt.memcpy_async(h, 8, word, 8, 2, b) == 0
    assert acl.rt.value_write(word, 5, 0, a) == 0
    assert acl.rt.synchronize_stream(a) == 0 and acl.rt.synchronize_stream(b) == 0
    assert int.from_bytes(acl.util.ptr_to_bytes(h, 8), "little") == 5
    assert acl.rt.value_write(word + 1, 5, 0, a) != 0              # 8-byte alignment
    for p in (word,):
        assert acl.rt.free(p) == 0
    assert acl.rt.free_host(h) == 0 and acl.rt.destroy_stream(a) == 0 and acl.rt.destroy_stream(b) == 0


def test_memcpy2d(acl):
    d, _ = acl.rt.malloc(64, 0)
    h, _ = acl.rt.malloc_host(64)
    src = bytes(range(64))
    assert acl.rt.memcpy2d(d, 16, acl.util.bytes_to_ptr(src), 16, 8, 4, 1) == 0      # 4 rows of 8 of 16
    s, _ = acl.rt.create_stream()
    assert acl.rt.memcpy2d_async(h, 8, d, 16, 8, 4, 2, s) == 0 and acl.rt.synchronize_stream(s) == 0
    assert acl.util.ptr_to_bytes(h, 32) == b"".join(src[16 * r:16 * r + 8] for r in range(4))
    assert acl.rt.memcpy2d(h, 4, d, 16, 8, 4, 2) != 0                                 # width > dst pitch
    assert acl.rt.free(d) == 0 and acl.rt.free_host(h) == 0 and acl.rt.destroy_stream(s) == 0


def test_memset_on_pinned_host_memory(acl):
    h, ret = acl.rt.malloc_host(32)
    assert ret == 0
    assert acl.rt.memset(h, 32, 0x5A, 32) == 0
    assert acl.util.ptr_to_bytes(h, 32) == b"\x5a" * 32
    s, _ = acl.rt.create_stream()
    assert acl.rt.memset_async(h, 32, 0x11, 8, s) == 0 and acl.rt.synchronize_stream(s) == 0
    assert acl.util.ptr_to_bytes(h, 9) == b"\x11" * 8 + b"\x5a"
    assert acl.rt.memset(h, 8, 0, 32) != 0                    # count > max
    assert acl.rt.free_host(h) == 0 and acl.rt.destroy_stream(s) == 0


def test_event_and_stream_queries(acl):
    s, _ = acl.rt.create_stream()
    e, _ = acl.rt.create_event()
    assert acl.rt.record_event(e, s) == 0 and acl.rt.synchronize_stream(s) == 0
    assert acl.rt.query_event(e) == (0, 0)                     # aclrtQueryEvent: COMPLETE is 0
    assert acl.rt.query_event_wait_status(e) == (0, 0)         # COMPLETE 0
    stamp, ret = acl.rt.event_get_timestamp(e)
    assert ret == 0 and type(stamp) is int
    assert acl.rt.stream_query(s) == (0, 0)                    # ACL_STREAM_STATUS_COMPLETE
    sid, ret = acl.rt.stream_get_id(s)
    assert ret == 0 and type(sid) is int
    assert acl.rt.synchronize_stream_with_timeout(s, -1) == 0
    assert acl.rt.synchronize_event_with_timeout(e, 100) == 0
    assert acl.rt.synchronize_device_with_timeout(-1) == 0
    assert acl.rt.query_event(0)[1] != 0 and acl.rt.stream_query(-1)[1] != 0
    assert acl.rt.destroy_event(e) == 0 and acl.rt.destroy_stream(s) == 0


def test_device_queries(acl, hg):
    assert acl.rt.device_get_stream_priority_range() == (7, 0, 0)
    status, ret = acl.rt.query_device_status(0)
    assert (status, ret) == (0, 0)                             # ACL_RT_DEVICE_STATUS_NORMAL
    stream, ret = acl.rt.ctx_get_current_default_stream()
    assert ret == 0 and type(stream) is int
    value, ret = acl.rt.get_device_info(0, 1)                  # ACL_DEV_ATTR_AICPU_CORE_NUM
    assert ret == 0 and value >= 0
    assert acl.rt.device_can_access_peer(0, 0)[1] != 0        # a device is not its own peer
    assert acl.rt.get_device_info(99, 1)[1] != 0
    rate, ret = acl.rt.get_device_utilization_rate(0)
    assert ret == 0 and set(rate) == {"cube_utilization", "vector_utilization", "aicpu_utilization",
                                      "memory_utilization", "utilization_extend"}
    assert acl.rt.get_device_utilization_rate(99)[1] != 0
    with pytest.raises(TypeError, match="acl.rt.get_device_utilization_rate args parse failed"):
        acl.rt.get_device_utilization_rate("0")
    default, ret = acl.rt.get_device_res_limit(0, 0)            # ACL_RT_DEV_RES_CUBE_CORE
    assert ret == 0 and default > 0
    assert acl.rt.set_device_res_limit(0, 0, 1) == 0 and acl.rt.get_device_res_limit(0, 0) == (1, 0)
    assert acl.rt.reset_device_res_limit(0) == 0 and acl.rt.get_device_res_limit(0, 0) == (default, 0)
    assert acl.rt.get_res_in_current_thread(0) == (default, 0)
    attrs, n, ret = acl.get_cann_attribute_list()
    assert ret == 0 and n == len(attrs) and all(type(a) is int for a in attrs)


def test_last_error_keeps_runtime_codes(acl):
    acl.rt.get_last_error(0)                                   # clear
    s, _ = acl.rt.create_stream()
    assert acl.rt.destroy_stream(s) == 0
    code = acl.rt.destroy_stream(s)                            # a runtime-layer failure
    assert code != 0
    assert acl.rt.peek_at_last_error(0) == code                # read, kept
    assert acl.rt.get_last_error(0) == code                    # read, cleared
    assert acl.rt.get_last_error(0) == 0
    assert acl.rt.get_last_error(1) != 0                       # only ACL_RT_THREAD_LEVEL 0
    acl.get_recent_err_msg()


def test_stream_with_config_and_force_destroy(acl):
    s, ret = acl.rt.create_stream_with_config(3, 0)
    assert ret == 0 and s != 0
    assert acl.rt.set_stream_failure_mode(s, 1) == 0           # ACL_STOP_ON_FAILURE
    assert acl.rt.destroy_stream_force(s) == 0
    assert acl.rt.destroy_stream_force(s) != 0


def test_exception_info_callback_set_and_cleared(acl):
    seen = []
    assert acl.rt.set_exception_info_callback(seen.append) == 0
    assert acl.rt.set_exception_info_callback(None) == 0
    assert acl.rt.set_exception_info_callback() == 0           # no argument also clears, as pyACL


def test_docs_list_exactly_the_calls_without_a_c_function(acl, hg):
    """docs/pyacl.md's last section names every acl / acl.rt call whose C function the binding
    lacks (so it answers 200001), and nothing else."""
    import re
    from pathlib import Path
    text = (Path(__file__).resolve().parent.parent / "docs" / "pyacl.md").read_text()
    section = text.split("## Runtime calls without a C function", 1)[1]
    documented = set(re.findall(r"^- `(acl(?:\.rt)?\.\w+)` \((\w+)\)", section, flags=re.M))
    missing = set()
    for prefix, module in (("acl", acl), ("acl.rt", acl.rt)):
        for name in dir(module):
            fn = getattr(module, name)
            m = re.search(r"\((acl\w+)\)", getattr(fn, "__doc__", "") or "") if callable(fn) else None
            if not name.startswith("_") and m and not hasattr(hg.lib, m.group(1)):
                missing.add((f"{prefix}.{name}", m.group(1)))
    assert documented == missing
    for full, _ in missing:
        module = acl.rt if full.startswith("acl.rt.") else acl
        fn = getattr(module, full.rsplit(".", 1)[1])
        fmt = RT.get(full.rsplit(".", 1)[1], ("", "ret"))[0]
        result = fn(*[VALID[c] for c in fmt])
        assert (result if type(result) is int else result[-1]) == NOT_SUPPORT, full


# Public functions pinned by dedicated tests above instead of the RT table
SEPARATELY_PINNED_RT = {"launch_callback", "set_exception_info_callback", "get_device_utilization_rate",
                        "get_error_code_from_exception_info",
                        "get_task_id_from_exception_info", "get_stream_id_from_exception_info",
                        "get_thread_id_from_exception_info", "get_device_id_from_exception_info"}
TOP_LEVEL = {"init", "finalize", "get_version", "get_soc_name", "get_recent_err_msg", "app_log", "float_to_float16",
             "float16_to_float", "data_type_size", "create_data_buffer", "destroy_data_buffer", "get_data_buffer_addr",
             "get_data_buffer_size", "get_data_buffer_size_v2", "update_data_buffer", "get_cann_attribute",
             "get_device_capability", "get_version_str", "finalize_reference", "get_cann_attribute_list"}


def test_every_public_function_is_pinned(acl):
    rt = {n for n in dir(acl.rt) if not n.startswith("_") and callable(getattr(acl.rt, n))}
    assert rt == set(RT) | SEPARATELY_PINNED_RT
    top = {n for n in dir(acl) if not n.startswith("_") and callable(getattr(acl, n))}
    assert top == TOP_LEVEL
    assert {n for n in dir(acl) if not n.startswith("_")} - top == {"rt", "util", "mdl", "media", "prof"}


def test_a_raising_callback_is_reported_and_later_ones_run(acl, capsys):
    s, _ = acl.rt.create_stream()
    ran = []

    def bad(arg):
        raise KeyError(arg)
    with report_thread(acl, s) as tid:
        assert acl.rt.subscribe_report(tid, s) == 0
        assert acl.rt.launch_callback(bad, "the-argument", 1, s) == 0
        assert acl.rt.launch_callback(ran.append, "after", 1, s) == 0
        assert acl.rt.synchronize_stream(s) == 0
    assert ran == ["after"]
    err = capsys.readouterr().err
    assert "KeyError: 'the-argument'" in err and "acl.rt.launch_callback" in err
    assert acl.rt._pending_callback_count() == 0                  # nothing kept after running
    assert acl.rt.destroy_stream(s) == 0
