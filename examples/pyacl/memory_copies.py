"""pyACL-style program: memory copies through host and device memory in every direction.

Device memory from acl.rt.malloc, page-locked host memory from acl.rt.malloc_host, Python
bytes through acl.util.bytes_to_ptr / ptr_to_bytes; synchronous and asynchronous copies and
memsets; acl.rt.get_mem_info around the allocations.  Prints one line per step.

Run without an NPU:  python -m pyacl_hardgrad run examples/pyacl/memory_copies.py
"""
import sys

import numpy as np

import acl

ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_HOST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_MEMCPY_DEVICE_TO_DEVICE = 3
ACL_HBM_MEM = 1
SIZE = 256


def check(ret, what):
    if ret != 0:
        raise RuntimeError("%s failed, ret=%d: %s" % (what, ret, acl.get_recent_err_msg()))


def main():
    check(acl.init(), "acl.init")
    check(acl.rt.set_device(0), "acl.rt.set_device")
    context, ret = acl.rt.create_context(0)
    check(ret, "acl.rt.create_context")
    stream, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream")
    free_before, total, ret = acl.rt.get_mem_info(ACL_HBM_MEM)
    check(ret, "acl.rt.get_mem_info")

    source = bytes(range(SIZE))
    dev_a, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc")
    dev_b, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc")
    host_a, ret = acl.rt.malloc_host(SIZE)
    check(ret, "acl.rt.malloc_host")
    host_b, ret = acl.rt.malloc_host(SIZE)
    check(ret, "acl.rt.malloc_host")
    free_after, _, ret = acl.rt.get_mem_info(ACL_HBM_MEM)
    check(ret, "acl.rt.get_mem_info")
    print("device memory in use grew:", free_after < free_before, "total unchanged:",
          acl.rt.get_mem_info(ACL_HBM_MEM)[1] == total)

    # bytes -> pinned host (H2H), pinned host -> device (H2D), device -> device (D2D),
    # device -> pinned host (D2H), then pinned host -> Python bytes.
    check(acl.rt.memcpy(host_a, SIZE, acl.util.bytes_to_ptr(source), SIZE, ACL_MEMCPY_HOST_TO_HOST), "H2H")
    check(acl.rt.memcpy(dev_a, SIZE, host_a, SIZE, ACL_MEMCPY_HOST_TO_DEVICE), "H2D")
    check(acl.rt.memcpy(dev_b, SIZE, dev_a, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE), "D2D")
    check(acl.rt.memcpy(host_b, SIZE, dev_b, SIZE, ACL_MEMCPY_DEVICE_TO_HOST), "D2H")
    print("sync round trip:", acl.util.ptr_to_bytes(host_b, SIZE) == source)

    # The same on the stream, from a numpy array, with a memset in between.
    array = np.arange(SIZE // 4, dtype=np.float32)
    data = array.tobytes()
    check(acl.rt.memset(dev_b, SIZE, 0, SIZE), "acl.rt.memset")
    check(acl.rt.memcpy_async(dev_a, SIZE, acl.util.bytes_to_ptr(data), SIZE, ACL_MEMCPY_HOST_TO_DEVICE, stream),
          "async H2D")
    check(acl.rt.memset_async(dev_b, SIZE, 0x7F, SIZE // 2, stream), "acl.rt.memset_async")
    check(acl.rt.memcpy_async(dev_b, SIZE, dev_a, SIZE // 2, ACL_MEMCPY_DEVICE_TO_DEVICE, stream), "async D2D")
    check(acl.rt.memcpy_async(host_b, SIZE, dev_b, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream), "async D2H")
    check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
    back = np.frombuffer(acl.util.ptr_to_bytes(host_b, SIZE), dtype=np.float32)
    print("async first half copied:", bool((back[:SIZE // 8] == array[:SIZE // 8]).all()),
          "second half zero:", bool((back[SIZE // 8:] == 0).all()))

    for host in (host_a, host_b):
        check(acl.rt.free_host(host), "acl.rt.free_host")
    for dev in (dev_a, dev_b):
        check(acl.rt.free(dev), "acl.rt.free")
    print("freed, device memory back:", acl.rt.get_mem_info(ACL_HBM_MEM)[0] == free_before)
    check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")
    check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
    check(acl.rt.reset_device(0), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
