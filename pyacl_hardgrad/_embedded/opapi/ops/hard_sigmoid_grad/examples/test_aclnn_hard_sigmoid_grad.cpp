// pyacl_hardgrad example: aclnnHardsigmoidBackward end to end, the way CANN's operator
// samples drive it (device 0, one stream, FLOAT tensors of shape {4, 2}).
// Build: g++ hardsigmoid_backward_sample.cpp -I<include> -L<lib> -lascendcl -lnnopbase -lopapi -Wl,-rpath,<lib>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_hardsigmoid_backward.h"

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

}  // namespace

int main()
{
    const int32_t device = 0;
    aclrtStream stream = nullptr;
    EXPECT_OK("aclInit", aclInit(nullptr));
    EXPECT_OK("aclrtSetDevice", aclrtSetDevice(device));
    EXPECT_OK("aclrtCreateStream", aclrtCreateStream(&stream));

    const std::vector<int64_t> shape = {4, 2};
    const std::vector<float> gradHost = {0, 1, 2, 3, 4, 5, 6, 7};
    const std::vector<float> selfHost = {0, 1, 2, 3, 4, 5, 6, 7};
    std::vector<float> outHost(gradHost.size(), 0.0f);
    void *gradDev = nullptr, *selfDev = nullptr, *outDev = nullptr;
    aclTensor *grad = nullptr, *self = nullptr, *out = nullptr;
    if (MakeDeviceTensor(gradHost, shape, &gradDev, &grad) || MakeDeviceTensor(selfHost, shape, &selfDev, &self) ||
        MakeDeviceTensor(outHost, shape, &outDev, &out)) {
        std::printf("creating the tensors failed\n");
        return 1;
    }
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    EXPECT_OK("aclnnHardsigmoidBackwardGetWorkspaceSize",
              aclnnHardsigmoidBackwardGetWorkspaceSize(grad, self, out, &workspaceSize, &executor));
    void *workspace = nullptr;
    if (workspaceSize > 0) {
        EXPECT_OK("aclrtMalloc workspace", aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST));
    }
    EXPECT_OK("aclnnHardsigmoidBackward", aclnnHardsigmoidBackward(workspace, workspaceSize, executor, stream));
    EXPECT_OK("aclrtSynchronizeStream", aclrtSynchronizeStream(stream));

    size_t bytes = outHost.size() * sizeof(float);
    EXPECT_OK("aclrtMemcpy", aclrtMemcpy(outHost.data(), bytes, outDev, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int64_t i = 0; i < ElementCount(shape); i++) {
        std::printf("result[%ld] is: %f\n", static_cast<long>(i), outHost[i]);
    }

    aclDestroyTensor(grad);
    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclrtFree(gradDev);
    aclrtFree(selfDev);
    aclrtFree(outDev);
    if (workspace != nullptr) {
        aclrtFree(workspace);
    }
    aclrtDestroyStream(stream);
    aclrtResetDevice(device);
    aclFinalize();
    return 0;
}
