"""Line-by-line port of CANN's C++ sample for aclnnHardtanhBackward (test_aclnn_hardtanh_grad.cpp).

Same steps, same order, same data, same output as the C++ original; every C call is the
binding's function of the same name (``lib.aclrtMalloc`` ...), out-parameters are
``ffi.new`` boxes.  docs/porting.md maps each C++ line to its Python line.
Run: python examples/test_aclnn_hardtanh_grad.py
"""
import sys

from pyacl_hardgrad.raw import ffi, lib

ACL_SUCCESS = lib.ACL_SUCCESS


def CHECK_RET(cond, message):
    # The C++ macro: CHECK_RET(cond, LOG_PRINT(...); return ret);
    if not cond:
        print(message)
        sys.exit(1)


def GetShapeSize(shape):
    shapeSize = 1
    for i in shape:
        shapeSize *= i
    return shapeSize


def Init(deviceId, stream):
    # (Multi-device init is left out, as in the sample.)
    ret = lib.aclInit(ffi.NULL)
    CHECK_RET(ret == ACL_SUCCESS, "aclInit failed. ERROR: %d" % ret)
    ret = lib.aclrtSetDevice(deviceId)
    CHECK_RET(ret == ACL_SUCCESS, "aclrtSetDevice failed. ERROR: %d" % ret)
    ret = lib.aclrtCreateStream(stream)
    CHECK_RET(ret == ACL_SUCCESS, "aclrtCreateStream failed. ERROR: %d" % ret)
    return 0


def CreateAclTensor(hostData, shape, deviceAddr, dataType, tensor):
    size = GetShapeSize(shape) * 4                      # sizeof(float)
    host = ffi.new("float[]", hostData)
    # Device memory for the tensor.
    ret = lib.aclrtMalloc(deviceAddr, size, lib.ACL_MEM_MALLOC_HUGE_FIRST)
    CHECK_RET(ret == ACL_SUCCESS, "aclrtMalloc failed. ERROR: %d" % ret)
    # Host data to the device.
    ret = lib.aclrtMemcpy(deviceAddr[0], size, host, size, lib.ACL_MEMCPY_HOST_TO_DEVICE)
    CHECK_RET(ret == ACL_SUCCESS, "aclrtMemcpy failed. ERROR: %d" % ret)
    # Row-major strides.
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = shape[i + 1] * strides[i + 1]
    # The aclTensor.
    tensor[0] = lib.aclCreateTensor(shape, len(shape), dataType, strides, 0, lib.ACL_FORMAT_ND,
                                    shape, len(shape), deviceAddr[0])
    return 0


def main():
    # 1. (Fixed) device and stream initialisation.
    deviceId = 0
    stream = ffi.new("aclrtStream *")
    ret = Init(deviceId, stream)
    CHECK_RET(ret == ACL_SUCCESS, "Init acl failed. ERROR: %d" % ret)

    # 2. Inputs and outputs.
    gradOutputShape = [4, 2]
    selfShape = [4, 2]
    outShape = [4, 2]
    gradOutputDeviceAddr = ffi.new("void **")
    selfDeviceAddr = ffi.new("void **")
    outDeviceAddr = ffi.new("void **")
    gradOutput = ffi.new("aclTensor **")
    self = ffi.new("aclTensor **")
    min = ffi.NULL
    max = ffi.NULL
    out = ffi.new("aclTensor **")
    gradOutputHostData = [0, 1, 2, 3, 4, 5, 6, 7]
    selfHostData = [1, 1, 1, 2, 1, 2, 3, 3]
    outHostData = [0, 0, 0, 0, 0, 0, 0, 0]
    minValue = ffi.new("float *", 1.2)
    maxValue = ffi.new("float *", 2.4)
    # gradOutput
    ret = CreateAclTensor(gradOutputHostData, gradOutputShape, gradOutputDeviceAddr, lib.ACL_FLOAT, gradOutput)
    CHECK_RET(ret == ACL_SUCCESS, "")
    # self
    ret = CreateAclTensor(selfHostData, selfShape, selfDeviceAddr, lib.ACL_FLOAT, self)
    CHECK_RET(ret == ACL_SUCCESS, "")
    # min, max
    min = lib.aclCreateScalar(minValue, lib.ACL_FLOAT)
    CHECK_RET(min != ffi.NULL, "")
    max = lib.aclCreateScalar(maxValue, lib.ACL_FLOAT)
    CHECK_RET(max != ffi.NULL, "")
    # out
    ret = CreateAclTensor(outHostData, outShape, outDeviceAddr, lib.ACL_FLOAT, out)
    CHECK_RET(ret == ACL_SUCCESS, "")

    # 3. The CANN operator API.
    workspaceSize = ffi.new("uint64_t *", 0)
    executor = ffi.new("aclOpExecutor **")
    # Phase 1.
    ret = lib.aclnnHardtanhBackwardGetWorkspaceSize(gradOutput[0], self[0], min, max, out[0], workspaceSize,
                                                    executor)
    CHECK_RET(ret == ACL_SUCCESS, "aclnnHardtanhBackwardGetWorkspaceSize failed. ERROR: %d" % ret)
    # Device memory for the workspace, only when one is needed.
    workspaceAddr = ffi.new("void **")
    if workspaceSize[0] > 0:
        ret = lib.aclrtMalloc(workspaceAddr, workspaceSize[0], lib.ACL_MEM_MALLOC_HUGE_FIRST)
        CHECK_RET(ret == ACL_SUCCESS, "allocate workspace failed. ERROR: %d" % ret)
    # Phase 2.
    ret = lib.aclnnHardtanhBackward(workspaceAddr[0], workspaceSize[0], executor[0], stream[0])
    CHECK_RET(ret == ACL_SUCCESS, "aclnnHardtanhBackward failed. ERROR: %d" % ret)

    # 4. (Fixed) wait for the task.
    ret = lib.aclrtSynchronizeStream(stream[0])
    CHECK_RET(ret == ACL_SUCCESS, "aclrtSynchronizeStream failed. ERROR: %d" % ret)

    # 5. Copy the result back and print it.
    size = GetShapeSize(outShape)
    resultData = ffi.new("float[]", size)
    ret = lib.aclrtMemcpy(resultData, size * 4, outDeviceAddr[0], size * 4, lib.ACL_MEMCPY_DEVICE_TO_HOST)
    CHECK_RET(ret == ACL_SUCCESS, "copy result from device to host failed. ERROR: %d" % ret)
    for i in range(size):
        print("result[%d] is: %f" % (i, resultData[i]))

    # 6. Release aclTensor and aclScalar.
    lib.aclDestroyTensor(gradOutput[0])
    lib.aclDestroyTensor(self[0])
    lib.aclDestroyScalar(min)
    lib.aclDestroyScalar(max)
    lib.aclDestroyTensor(out[0])

    # 7. Release device memory, the stream, the device and ACL.
    lib.aclrtFree(gradOutputDeviceAddr[0])
    lib.aclrtFree(selfDeviceAddr[0])
    lib.aclrtFree(outDeviceAddr[0])
    if workspaceSize[0] > 0:
        lib.aclrtFree(workspaceAddr[0])
    lib.aclrtDestroyStream(stream[0])
    lib.aclrtResetDevice(deviceId)
    lib.aclFinalize()
    return 0


if __name__ == "__main__":
    sys.exit(main())

