"""pyACL-style program: one context per device, worker threads that adopt a context.

Each device (up to two) gets a context made on the main thread; each worker thread makes its
context current with acl.rt.set_context, checks acl.rt.get_context / get_device, and runs a
copy round trip on its own stream.  Workers started both with Python's threading and with
acl.util.start_thread / stop_thread.  Prints the results in a fixed order.

Run without an NPU:  PYACL_HARDGRAD_DEVICE_COUNT=2 python -m pyacl_hardgrad run examples/pyacl/contexts_threads.py
"""
import sys
import threading

import acl

ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2


def check(ret, what):
    if ret != 0:
        raise RuntimeError("%s failed, ret=%d: %s" % (what, ret, acl.get_recent_err_msg()))


def work(job):
    context, device_id, payload, results, key = job
    check(acl.rt.set_context(context), "acl.rt.set_context")
    current, ret = acl.rt.get_context()
    check(ret, "acl.rt.get_context")
    device, ret = acl.rt.get_device()
    check(ret, "acl.rt.get_device")
    stream, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream")
    size = len(payload)
    dev, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc")
    host, ret = acl.rt.malloc_host(size)
    check(ret, "acl.rt.malloc_host")
    check(acl.rt.memcpy_async(dev, size, acl.util.bytes_to_ptr(payload), size, ACL_MEMCPY_HOST_TO_DEVICE, stream),
          "acl.rt.memcpy_async")
    check(acl.rt.memcpy_async(host, size, dev, size, ACL_MEMCPY_DEVICE_TO_HOST, stream), "acl.rt.memcpy_async")
    check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
    results[key] = (current == context, device == device_id, acl.util.ptr_to_bytes(host, size) == payload)
    check(acl.rt.free_host(host), "acl.rt.free_host")
    check(acl.rt.free(dev), "acl.rt.free")
    check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")


def main():
    check(acl.init(), "acl.init")
    count, ret = acl.rt.get_device_count()
    check(ret, "acl.rt.get_device_count")
    devices = list(range(min(count, 2)))
    contexts = {}
    for device_id in devices:
        check(acl.rt.set_device(device_id), "acl.rt.set_device")
        contexts[device_id], ret = acl.rt.create_context(device_id)
        check(ret, "acl.rt.create_context")
    print("devices:", len(devices), "distinct contexts:", len(set(contexts.values())) == len(devices))

    results = {}
    jobs = [(contexts[d], d, bytes([d + 1]) * (64 + 32 * i), results, ("threading", d, i))
            for d in devices for i in range(2)]
    threads = [threading.Thread(target=work, args=(job,)) for job in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    tids = []
    for d in devices:
        tid, ret = acl.util.start_thread(work, (contexts[d], d, b"\x55" * 48, results, ("start_thread", d, 0)))
        check(ret, "acl.util.start_thread")
        tids.append(tid)
    for tid in tids:
        check(acl.util.stop_thread(tid), "acl.util.stop_thread")
    for key in sorted(results):
        print(*key, "context current: %s, device: %s, data: %s" % results[key])

    for device_id in devices:
        check(acl.rt.destroy_context(contexts[device_id]), "acl.rt.destroy_context")
        check(acl.rt.reset_device(device_id), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
