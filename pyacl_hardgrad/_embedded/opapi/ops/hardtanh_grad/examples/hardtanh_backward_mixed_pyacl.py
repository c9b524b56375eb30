"""A pyACL script that hands its memory and stream to the Pythonic layer's operator.

pyACL owns everything here: ``acl.rt.malloc`` memory, an ``acl.rt.create_stream`` stream and
the workspace.  The package borrows them (``from_handle``, ``Tensor.from_device_pointer``) to
plan aclnnHardtanhBackward and run it; pyACL waits, copies back and frees.  Prints CANN's
sample values (test_aclnn_hardtanh_grad.cpp's data).

Run without an NPU (in pyacl_hardgrad/_embedded/opapi/ops/hardtanh_grad/examples/):
    python -m pyacl_hardgrad run hardtanh_backward_mixed_pyacl.py
"""
import sys

import numpy as np

import acl
import pyacl_hardgrad as hg

ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2


def check(ret, what):
    if ret != 0:
        raise RuntimeError("%s failed, ret=%d: %s" % (what, ret, acl.get_recent_err_msg()))


def to_device(array):
    data = array.tobytes()
    ptr, ret = acl.rt.malloc(len(data), ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc")
    check(acl.rt.memcpy(ptr, len(data), acl.util.bytes_to_ptr(data), len(data), ACL_MEMCPY_HOST_TO_DEVICE),
          "acl.rt.memcpy")
    return ptr


def main():
    check(acl.init(), "acl.init")
    check(acl.rt.set_device(0), "acl.rt.set_device")
    stream, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream")
    shape, nbytes = (4, 2), 8 * 4
    grad = to_device(np.arange(8, dtype=np.float32))
    x = to_device(np.array([1, 1, 1, 2, 1, 2, 3, 3], np.float32))
    out = to_device(np.zeros(8, np.float32))

    memories = [hg.DeviceMemory.from_handle(p, nbytes) for p in (grad, x, out)]       # borrowed
    views = [hg.Tensor.from_device_pointer(int(m), shape, "float32", owner=m) for m in memories]
    with hg.Stream.from_handle(stream) as s, \
            hg.HardtanhBackwardPlan(views[0], views[1], 1.2, 2.4, out=views[2]) as plan:
        workspace = 0
        if plan.workspace_size:
            workspace, ret = acl.rt.malloc(plan.workspace_size, ACL_MEM_MALLOC_HUGE_FIRST)
            check(ret, "acl.rt.malloc")
        plan.run(hg.Workspace.from_handle(workspace, plan.workspace_size) if workspace else None, s)
        check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
    for handle in views + memories:          # before acl.finalize: the package lets go of the device
        handle.close()

    host, ret = acl.rt.malloc_host(nbytes)
    check(ret, "acl.rt.malloc_host")
    check(acl.rt.memcpy(host, nbytes, out, nbytes, ACL_MEMCPY_DEVICE_TO_HOST), "acl.rt.memcpy")
    for i, value in enumerate(np.frombuffer(acl.util.ptr_to_bytes(host, nbytes), np.float32)):
        print("result[%d] is: %f" % (i, value))

    check(acl.rt.free_host(host), "acl.rt.free_host")
    for ptr in (grad, x, out) + ((workspace,) if workspace else ()):
        check(acl.rt.free(ptr), "acl.rt.free")
    check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")
    check(acl.rt.reset_device(0), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
