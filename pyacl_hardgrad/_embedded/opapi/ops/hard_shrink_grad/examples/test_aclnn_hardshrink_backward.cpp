// pyacl_hardgrad example: aclnnHardshrinkBackward end to end, the way CANN's operator
// sample drives it (device 0, one stream, FLOAT tensors of shape {2, 2}).
// Build: g++ test_aclnn_hardshrink_backward.cpp $(python -m pyacl_hardgrad --includes) $(python -m pyacl_hardgrad --libs)
#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_hardshrink_backward.h"

#define EXPECT_OK(what, call)                                                  \
    do {                                                                       \
        auto rc_ = (call);                                                     \
        if (rc_ != 0) {                                                        \
            std::printf("%s failed, error %d\n", what, static_cast<int>(rc_)); \
            return 1;                                                          \
        }                                                                      \
    } while (0)

namespace {

int64_t ElementCount(const std::vector<int64_t> &shape)
{
    int64_t n = 1;
    for (int64_t d : shape) {
        n *= d;
    }
    return n;
}

// Copies host data to a new device buffer and wraps it in a row-major ND tensor.
int MakeDeviceTensor(const std::vector<float> &host, const std::vector<int64_t> &shape, void **device,
                     aclTensor **tensor)
{
    size_t bytes = static_cast<size_t>(ElementCount(shape)) * sizeof(float);
    EXPECT_OK("aclrtMalloc", aclrtMalloc(device, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_OK("aclrtMemcpy", aclrtMemcpy(*device, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    std::vector<int64_t> strides(shape.size(), 1);
    for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; i--) {
        strides[i] = strides[i + 1] * shape[i + 1];
    }
    *tensor = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND,
                              shape.data(), shape.size(), *device);
    return *tensor == nullptr ? 1 : 0;
}

// Phase 1, the workspace if one is needed, phase 2, and the wait.
template <typename Launch>
int RunOnStream(const char *name, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream,
                Launch launch, void **workspace)
{
    if (workspaceSize > 0) {
        EXPECT_OK("aclrtMalloc workspace", aclrtMalloc(workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST));
    }
    EXPECT_OK(name, launch(*workspace, workspaceSize, executor, stream));
    EXPECT_OK("aclrtSynchronizeStream", aclrtSynchronizeStream(stream));
    return 0;
}

// Copies a device tensor of `count` floats back and prints it the way CANN's samples do.
int PrintResult(void *device, int64_t count)
{
    std::vector<float> host(static_cast<size_t>(count), 0.0f);
    size_t bytes = host.size() * sizeof(float);
    EXPECT_OK("aclrtMemcpy", aclrtMemcpy(host.data(), bytes, device, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int64_t i = 0; i < count; i++) {
        std::printf("result[%ld] is: %f\n", static_cast<long>(i), host[i]);
    }
    return 0;
}

}  // namespace

int main()
{
    const int32_t device = 0;
    aclrtStream stream = nullptr;
    EXPECT_OK("aclInit", aclInit(nullptr));
    EXPECT_OK("aclrtSetDevice", aclrtSetDevice(device));
    EXPECT_OK("aclrtCreateStream", aclrtCreateStream(&stream));

    const std::vector<int64_t> shape = {2, 2};
    const std::vector<float> gradOutputHost = {0, 0, 1, 1};
    const std::vector<float> selfHost = {1, 2, 3, 4};
    const std::vector<float> gradInputHost = {0, 0, 0, 0};
    void *gradOutputDev = nullptr, *selfDev = nullptr, *gradInputDev = nullptr;
    aclTensor *gradOutput = nullptr, *self = nullptr, *gradInput = nullptr;
    if (MakeDeviceTensor(gradOutputHost, shape, &gradOutputDev, &gradOutput) ||
        MakeDeviceTensor(selfHost, shape, &selfDev, &self) ||
        MakeDeviceTensor(gradInputHost, shape, &gradInputDev, &gradInput)) {
        std::printf("creating the tensors failed\n");
        return 1;
    }
    float lambdValue = 2.0f;
    aclScalar *lambd = aclCreateScalar(&lambdValue, ACL_FLOAT);
    if (lambd == nullptr) {
        std::printf("creating the scalars failed\n");
        return 1;
    }

    uint64_t workspaceSize0 = 0;
    aclOpExecutor *executor0 = nullptr;
    void *workspace0 = nullptr;
    EXPECT_OK("aclnnHardshrinkBackwardGetWorkspaceSize",
              aclnnHardshrinkBackwardGetWorkspaceSize(gradOutput, self, lambd, gradInput, &workspaceSize0, &executor0));
    if (RunOnStream("aclnnHardshrinkBackward", workspaceSize0, executor0, stream, aclnnHardshrinkBackward, &workspace0) != 0) {
        return 1;
    }
    if (PrintResult(gradInputDev, ElementCount(shape)) != 0) {
        return 1;
    }

    aclDestroyTensor(gradOutput);
    aclDestroyTensor(self);
    aclDestroyTensor(gradInput);
    aclDestroyScalar(lambd);
    aclrtFree(gradOutputDev);
    aclrtFree(selfDev);
    aclrtFree(gradInputDev);
    if (workspace0 != nullptr) {
        aclrtFree(workspace0);
    }
    aclrtDestroyStream(stream);
    aclrtResetDevice(device);
    aclFinalize();
    return 0;
}
