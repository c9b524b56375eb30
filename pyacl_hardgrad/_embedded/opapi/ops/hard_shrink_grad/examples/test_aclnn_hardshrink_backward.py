"""Line-by-line port of our C++ rewrite of CANN's sample for aclnnHardshrinkBackward
(test_aclnn_hardshrink_backward.cpp).

Same steps, same order, same data, same output as the C++ program; every C call is the
binding's function of the same name (``lib.aclrtMalloc`` ...), out-parameters are
``ffi.new`` boxes.  docs/porting.md maps C++ lines to Python lines.
Run: python test_aclnn_hardshrink_backward.py
"""
import sys

from pyacl_hardgrad.raw import ffi, lib

ACL_SUCCESS = lib.ACL_SUCCESS


def EXPECT_OK(what, rc):
    # The C++ macro: print and leave main() with 1 on a non-zero status.
    if rc != 0:
        print("%s failed, error %d" % (what, rc))
        sys.exit(1)


def ElementCount(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def MakeDeviceTensor(host, shape, device, tensor):
    # Copies host data to a new device buffer and wraps it in a row-major ND tensor.
    nbytes = ElementCount(shape) * 4                     # sizeof(float)
    data = ffi.new("float[]", host)
    EXPECT_OK("aclrtMalloc", lib.aclrtMalloc(device, nbytes, lib.ACL_MEM_MALLOC_HUGE_FIRST))
    EXPECT_OK("aclrtMemcpy", lib.aclrtMemcpy(device[0], nbytes, data, nbytes, lib.ACL_MEMCPY_HOST_TO_DEVICE))
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    tensor[0] = lib.aclCreateTensor(shape, len(shape), lib.ACL_FLOAT, strides, 0, lib.ACL_FORMAT_ND,
                                    shape, len(shape), device[0])
    return 1 if tensor[0] == ffi.NULL else 0


def RunOnStream(name, workspaceSize, executor, stream, launch, workspace):
    # Phase 1 done by the caller; the workspace if one is needed, phase 2, and the wait.
    if workspaceSize > 0:
        EXPECT_OK("aclrtMalloc workspace", lib.aclrtMalloc(workspace, workspaceSize, lib.ACL_MEM_MALLOC_HUGE_FIRST))
    EXPECT_OK(name, launch(workspace[0], workspaceSize, executor, stream))
    EXPECT_OK("aclrtSynchronizeStream", lib.aclrtSynchronizeStream(stream))
    return 0


def PrintResult(device, count):
    # Copies a device tensor of `count` floats back and prints it the way CANN's samples do.
    host = ffi.new("float[]", count)
    EXPECT_OK("aclrtMemcpy", lib.aclrtMemcpy(host, count * 4, device, count * 4, lib.ACL_MEMCPY_DEVICE_TO_HOST))
    for i in range(count):
        print("result[%d] is: %f" % (i, host[i]))
    return 0



def main():
    device = 0
    stream = ffi.new("aclrtStream *")
    EXPECT_OK("aclInit", lib.aclInit(ffi.NULL))
    EXPECT_OK("aclrtSetDevice", lib.aclrtSetDevice(device))
    EXPECT_OK("aclrtCreateStream", lib.aclrtCreateStream(stream))

    shape = [2, 2]
    gradOutputHost = [0, 0, 1, 1]
    selfHost = [1, 2, 3, 4]
    gradInputHost = [0, 0, 0, 0]
    gradOutputDev = ffi.new("void **")
    selfDev = ffi.new("void **")
    gradInputDev = ffi.new("void **")
    gradOutput = ffi.new("aclTensor **")
    self = ffi.new("aclTensor **")
    gradInput = ffi.new("aclTensor **")
    if MakeDeviceTensor(gradOutputHost, shape, gradOutputDev, gradOutput) or \
            MakeDeviceTensor(selfHost, shape, selfDev, self) or \
            MakeDeviceTensor(gradInputHost, shape, gradInputDev, gradInput):
        print("creating the tensors failed")
        return 1
    lambdValue = ffi.new("float *", 2.0)
    lambd = lib.aclCreateScalar(lambdValue, lib.ACL_FLOAT)
    if lambd == ffi.NULL:
        print("creating the scalars failed")
        return 1

    workspaceSize0 = ffi.new("uint64_t *", 0)
    executor0 = ffi.new("aclOpExecutor **")
    workspace0 = ffi.new("void **")
    EXPECT_OK("aclnnHardshrinkBackwardGetWorkspaceSize",
              lib.aclnnHardshrinkBackwardGetWorkspaceSize(gradOutput[0], self[0], lambd, gradInput[0], workspaceSize0,
                                                          executor0))
    if RunOnStream("aclnnHardshrinkBackward", workspaceSize0[0], executor0[0], stream[0],
                   lib.aclnnHardshrinkBackward, workspace0) != 0:
        return 1
    if PrintResult(gradInputDev[0], ElementCount(shape)) != 0:
        return 1

    lib.aclDestroyTensor(gradOutput[0])
    lib.aclDestroyTensor(self[0])
    lib.aclDestroyTensor(gradInput[0])
    lib.aclDestroyScalar(lambd)
    lib.aclrtFree(gradOutputDev[0])
    lib.aclrtFree(selfDev[0])
    lib.aclrtFree(gradInputDev[0])
    if workspace0[0] != ffi.NULL:
        lib.aclrtFree(workspace0[0])
    lib.aclrtDestroyStream(stream[0])
    lib.aclrtResetDevice(device)
    lib.aclFinalize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
