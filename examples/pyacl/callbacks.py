"""pyACL-style program: host callbacks on a stream, processed by a subscribed thread.

As CANN's pyACL samples and acllite do it: a thread started with acl.util.start_thread makes
the context current and loops on acl.rt.process_report(100); the main thread subscribes that
thread to the stream (acl.rt.subscribe_report), launches callbacks between copies
(acl.rt.launch_callback, blocking and not), synchronizes, then unsubscribes and stops the
thread.  Each callback reads what the copy before it produced.

Run without an NPU:  python -m pyacl_hardgrad run examples/pyacl/callbacks.py
"""
import sys

import acl

ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_CALLBACK_NO_BLOCK = 0
ACL_CALLBACK_BLOCK = 1
SIZE = 64


def check(ret, what):
    if ret != 0:
        raise RuntimeError("%s failed, ret=%d: %s" % (what, ret, acl.get_recent_err_msg()))


def process_callbacks(state):
    check(acl.rt.set_context(state["context"]), "acl.rt.set_context")
    while not state["exit"]:
        acl.rt.process_report(100)          # 507012 (timeout) while nothing is pending


def on_copied(data):
    host, seen = data
    seen.append(acl.util.ptr_to_bytes(host, SIZE)[:4])


def main():
    check(acl.init(), "acl.init")
    check(acl.rt.set_device(0), "acl.rt.set_device")
    context, ret = acl.rt.create_context(0)
    check(ret, "acl.rt.create_context")
    stream, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream")
    state = {"context": context, "exit": False}
    tid, ret = acl.util.start_thread(process_callbacks, state)
    check(ret, "acl.util.start_thread")
    check(acl.rt.subscribe_report(tid, stream), "acl.rt.subscribe_report")

    dev, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc")
    seen = []
    payloads = [bytes([i]) * SIZE for i in (1, 2, 3)]
    hosts = []
    for i, payload in enumerate(payloads):
        # One host buffer per step: a non-blocking callback may run after later copies were
        # queued, so it must not read a buffer they overwrite.
        host, ret = acl.rt.malloc_host(SIZE)
        check(ret, "acl.rt.malloc_host")
        hosts.append(host)
        check(acl.rt.memcpy_async(dev, SIZE, acl.util.bytes_to_ptr(payload), SIZE, ACL_MEMCPY_HOST_TO_DEVICE,
                                  stream), "acl.rt.memcpy_async")
        check(acl.rt.memcpy_async(host, SIZE, dev, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream), "acl.rt.memcpy_async")
        block = ACL_CALLBACK_NO_BLOCK if i == 1 else ACL_CALLBACK_BLOCK
        check(acl.rt.launch_callback(on_copied, (host, seen), block, stream), "acl.rt.launch_callback")
    # The last callback blocks the stream and the subscribed thread runs callbacks in order,
    # so once the stream is done every callback has run.
    check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
    print("callbacks ran:", len(seen))
    print("each saw its copy:", seen == [p[:4] for p in payloads])

    check(acl.rt.unsubscribe_report(tid, stream), "acl.rt.unsubscribe_report")
    state["exit"] = True
    check(acl.util.stop_thread(tid), "acl.util.stop_thread")
    for host in hosts:
        check(acl.rt.free_host(host), "acl.rt.free_host")
    check(acl.rt.free(dev), "acl.rt.free")
    check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")
    check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
    check(acl.rt.reset_device(0), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
