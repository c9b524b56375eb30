"""CANN's aclnnHardsigmoidBackward sample (test_aclnn_hard_sigmoid_grad.cpp) as a pyACL script.

The runtime part is pyACL, as pyACL scripts write it: ``import acl``, the ACL_* values
defined here, handles and device pointers as plain ints, ``ret`` checked after every call.
pyACL has no aclnn, so tensors, scalars and the operator come from ``pyacl_hardgrad.raw``,
called with pyACL's ints (``ffi.cast("void *", ptr)``).  Same data, same steps, same output
as the C++ sample.

Run without an NPU (in pyacl_hardgrad/_embedded/opapi/ops/hard_sigmoid_grad/examples/):
    python -m pyacl_hardgrad run hardsigmoid_backward_pyacl.py
"""
import sys

import numpy as np

import acl
from pyacl_hardgrad.raw import ffi, lib

ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_FLOAT = 0
ACL_FORMAT_ND = 2


def check_ret(ret, what):
    if ret != ACL_SUCCESS:
        print("%s failed. ERROR: %d" % (what, ret))
        sys.exit(1)


def init(device_id):
    check_ret(acl.init(), "acl.init")
    check_ret(acl.rt.set_device(device_id), "acl.rt.set_device")
    stream, ret = acl.rt.create_stream()
    check_ret(ret, "acl.rt.create_stream")
    return stream


def create_acl_tensor(host_data, shape):
    """Device memory holding host_data (acl.rt.malloc + acl.rt.memcpy) and its aclTensor."""
    data = np.array(host_data, dtype=np.float32).tobytes()
    size = len(data)
    device_addr, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
    check_ret(ret, "acl.rt.malloc")
    ret = acl.rt.memcpy(device_addr, size, acl.util.bytes_to_ptr(data), size, ACL_MEMCPY_HOST_TO_DEVICE)
    check_ret(ret, "acl.rt.memcpy")
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = shape[i + 1] * strides[i + 1]
    tensor = lib.aclCreateTensor(shape, len(shape), ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, len(shape),
                                 ffi.cast("void *", device_addr))
    return device_addr, tensor


def main():
    device_id = 0
    stream = init(device_id)

    shape = [4, 2]
    grad_output_addr, grad_output = create_acl_tensor([0, 1, 2, 3, 4, 5, 6, 7], shape)
    self_addr, self_tensor = create_acl_tensor([0, 1, 2, 3, 4, 5, 6, 7], shape)
    out_addr, out = create_acl_tensor([0] * 8, shape)

    # Phase 1, then the workspace from acl.rt.malloc, then phase 2 on pyACL's stream.
    workspace_size = ffi.new("uint64_t *", 0)
    executor = ffi.new("aclOpExecutor **")
    ret = lib.aclnnHardsigmoidBackwardGetWorkspaceSize(grad_output, self_tensor, out, workspace_size, executor)
    check_ret(ret, "aclnnHardsigmoidBackwardGetWorkspaceSize")
    workspace_addr = 0
    if workspace_size[0] > 0:
        workspace_addr, ret = acl.rt.malloc(workspace_size[0], ACL_MEM_MALLOC_HUGE_FIRST)
        check_ret(ret, "allocate workspace")
    ret = lib.aclnnHardsigmoidBackward(ffi.cast("void *", workspace_addr), workspace_size[0], executor[0],
                                       ffi.cast("aclrtStream", stream))
    check_ret(ret, "aclnnHardsigmoidBackward")
    check_ret(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")

    # The result, through page-locked host memory as pyACL scripts copy it back.
    size = 8 * 4
    host_addr, ret = acl.rt.malloc_host(size)
    check_ret(ret, "acl.rt.malloc_host")
    check_ret(acl.rt.memcpy(host_addr, size, out_addr, size, ACL_MEMCPY_DEVICE_TO_HOST), "acl.rt.memcpy")
    result = np.frombuffer(acl.util.ptr_to_bytes(host_addr, size), dtype=np.float32)
    for i, value in enumerate(result):
        print("result[%d] is: %f" % (i, value))

    lib.aclDestroyTensor(grad_output)
    lib.aclDestroyTensor(self_tensor)
    lib.aclDestroyTensor(out)
    acl.rt.free_host(host_addr)
    for addr in (grad_output_addr, self_addr, out_addr):
        acl.rt.free(addr)
    if workspace_addr:
        acl.rt.free(workspace_addr)
    acl.rt.destroy_stream(stream)
    acl.rt.reset_device(device_id)
    acl.finalize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
