"""pyACL-style program: two streams ordered by events, event queries and timing.

Stream A copies host data to the device and records an event; stream B waits for that event
before copying on, so B's result is right without synchronizing A first.  Events made with
acl.rt.create_event and with acl.rt.create_event_with_flag (ACL_EVENT_SYNC |
ACL_EVENT_TIME_LINE) are recorded, queried, synchronized, timed and reset.

Run without an NPU:  python -m pyacl_hardgrad run examples/pyacl/streams_events.py
"""
import sys

import acl

ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_MEMCPY_DEVICE_TO_DEVICE = 3
ACL_EVENT_SYNC = 0x1
ACL_EVENT_TIME_LINE = 0x8
ACL_EVENT_RECORDED_STATUS_COMPLETE = 1
SIZE = 1 << 20


def check(ret, what):
    if ret != 0:
        raise RuntimeError("%s failed, ret=%d: %s" % (what, ret, acl.get_recent_err_msg()))


def main():
    check(acl.init(), "acl.init")
    check(acl.rt.set_device(0), "acl.rt.set_device")
    stream_a, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream")
    stream_b, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream")
    copied, ret = acl.rt.create_event()
    check(ret, "acl.rt.create_event")
    start, ret = acl.rt.create_event_with_flag(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE)
    check(ret, "acl.rt.create_event_with_flag")
    end, ret = acl.rt.create_event_with_flag(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE)
    check(ret, "acl.rt.create_event_with_flag")

    payload = bytes(i % 251 for i in range(SIZE))
    dev_a, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc")
    dev_b, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc")
    host, ret = acl.rt.malloc_host(SIZE)
    check(ret, "acl.rt.malloc_host")

    check(acl.rt.record_event(start, stream_a), "acl.rt.record_event")
    check(acl.rt.memcpy_async(dev_a, SIZE, acl.util.bytes_to_ptr(payload), SIZE, ACL_MEMCPY_HOST_TO_DEVICE,
                              stream_a), "acl.rt.memcpy_async")
    check(acl.rt.record_event(copied, stream_a), "acl.rt.record_event")
    check(acl.rt.stream_wait_event(stream_b, copied), "acl.rt.stream_wait_event")
    check(acl.rt.memcpy_async(dev_b, SIZE, dev_a, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE, stream_b), "acl.rt.memcpy_async")
    check(acl.rt.memcpy_async(host, SIZE, dev_b, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream_b), "acl.rt.memcpy_async")
    check(acl.rt.record_event(end, stream_b), "acl.rt.record_event")

    check(acl.rt.synchronize_event(end), "acl.rt.synchronize_event")
    status, ret = acl.rt.query_event_status(copied)
    check(ret, "acl.rt.query_event_status")
    print("copied event complete:", status == ACL_EVENT_RECORDED_STATUS_COMPLETE)
    ms, ret = acl.rt.event_elapsed_time(start, end)
    check(ret, "acl.rt.event_elapsed_time")
    print("elapsed time is a duration:", isinstance(ms, float) and ms >= 0.0)
    print("stream B saw stream A's copy:", acl.util.ptr_to_bytes(host, SIZE) == payload)
    check(acl.rt.reset_event(end, stream_b), "acl.rt.reset_event")
    check(acl.rt.synchronize_stream(stream_a), "acl.rt.synchronize_stream")
    check(acl.rt.synchronize_stream(stream_b), "acl.rt.synchronize_stream")

    check(acl.rt.free_host(host), "acl.rt.free_host")
    for dev in (dev_a, dev_b):
        check(acl.rt.free(dev), "acl.rt.free")
    for event in (copied, start, end):
        check(acl.rt.destroy_event(event), "acl.rt.destroy_event")
    for stream in (stream_a, stream_b):
        check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")
    check(acl.rt.reset_device(0), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
