// Runtime smoke test written the way CANN's C++ samples are: acl/acl.h, aclrt* calls,
// one tensor create/destroy, CANN's link line.  Prints "ALL OK" and exits 0 on success.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "pyacl_hardgrad/embedded.h"

static int g_failures = 0;

#define CHECK_EQ(expr, expected)                                                                   \
    do {                                                                                           \
        long long got_ = (long long)(expr);                                                        \
        long long want_ = (long long)(expected);                                                   \
        if (got_ != want_) {                                                                       \
            std::printf("FAIL %s:%d: %s = %lld, expected %lld (%s)\n", __FILE__, __LINE__, #expr,  \
                        got_, want_, aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");            \
            ++g_failures;                                                                          \
        } else {                                                                                   \
            std::printf("ok   %s == %lld\n", #expr, want_);                                        \
        }                                                                                          \
    } while (0)

#define CHECK_TRUE(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                            \
            ++g_failures;                                                                          \
        } else {                                                                                   \
            std::printf("ok   %s\n", #cond);                                                       \
        }                                                                                          \
    } while (0)

int main()
{
    CHECK_EQ(aclInit(nullptr), ACL_SUCCESS);
    CHECK_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
    CHECK_EQ(aclrtSetDevice(99), ACL_ERROR_RT_INVALID_DEVICEID);
    CHECK_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    int32_t dev = -1;
    CHECK_EQ(aclrtGetDevice(&dev), ACL_SUCCESS);
    CHECK_EQ(dev, 0);

    aclrtStream s1 = nullptr, s2 = nullptr;
    CHECK_EQ(aclrtCreateStream(&s1), ACL_SUCCESS);
    CHECK_EQ(aclrtCreateStream(&s2), ACL_SUCCESS);

    // synchronous round trip
    const size_t n = 4096;
    std::vector<uint8_t> host(n), back(n, 0);
    for (size_t i = 0; i < n; ++i)
        host[i] = (uint8_t)(i * 7 + 3);
    void *a = nullptr, *b = nullptr;
    CHECK_EQ(aclrtMalloc(&a, n, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    CHECK_EQ(aclrtMalloc(&b, n, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    CHECK_EQ((uintptr_t)a % 512, 0);
    CHECK_EQ(aclrtMemcpy(a, n, host.data(), n, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    CHECK_EQ(aclrtMemcpy(back.data(), n, a, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    CHECK_TRUE(std::memcmp(host.data(), back.data(), n) == 0);
    CHECK_EQ(aclrtMemcpy(back.data(), 32, a, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);

    // memset
    CHECK_EQ(aclrtMemset(b, n, 0x5a, n), ACL_SUCCESS);
    CHECK_EQ(aclrtMemcpy(back.data(), n, b, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    bool all5a = true;
    for (size_t i = 0; i < n; ++i)
        all5a = all5a && back[i] == 0x5a;
    CHECK_TRUE(all5a);

    // async copy a -> b on s2, ordered after a memset of a on s1 through an event
    aclrtEvent start = nullptr, done1 = nullptr, end = nullptr;
    CHECK_EQ(aclrtCreateEvent(&start), ACL_SUCCESS);
    CHECK_EQ(aclrtCreateEvent(&done1), ACL_SUCCESS);
    CHECK_EQ(aclrtCreateEvent(&end), ACL_SUCCESS);
    CHECK_EQ(aclrtRecordEvent(start, s1), ACL_SUCCESS);
    CHECK_EQ(aclrtMemsetAsync(a, n, 0x11, n, s1), ACL_SUCCESS);
    CHECK_EQ(aclrtRecordEvent(done1, s1), ACL_SUCCESS);
    CHECK_EQ(aclrtStreamWaitEvent(s2, done1), ACL_SUCCESS);
    CHECK_EQ(aclrtMemcpyAsync(b, n, a, n, ACL_MEMCPY_DEVICE_TO_DEVICE, s2), ACL_SUCCESS);
    CHECK_EQ(aclrtRecordEvent(end, s2), ACL_SUCCESS);
    CHECK_EQ(aclrtSynchronizeStream(s2), ACL_SUCCESS);
    CHECK_EQ(aclrtMemcpy(back.data(), n, b, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    bool all11 = true;
    for (size_t i = 0; i < n; ++i)
        all11 = all11 && back[i] == 0x11;
    CHECK_TRUE(all11);
    CHECK_EQ(aclrtSynchronizeEvent(end), ACL_SUCCESS);
    float ms = -1.0f;
    CHECK_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_SUCCESS);
    CHECK_TRUE(ms >= 0.0f);
    aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    CHECK_EQ(aclrtQueryEventStatus(end, &st), ACL_SUCCESS);
    CHECK_EQ(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);

    // memory info
    size_t freeMem = 0, totalMem = 0;
    CHECK_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &freeMem, &totalMem), ACL_SUCCESS);
    CHECK_TRUE(totalMem > 0);
    CHECK_EQ(totalMem - freeMem, 2 * n);

    // SoC name
    const char *soc = aclrtGetSocName();
    CHECK_TRUE(soc != nullptr && std::strlen(soc) > 0);
    std::printf("soc: %s\n", soc ? soc : "(null)");

    // one tensor over device memory
    int64_t shape[2] = {4, 2};
    int64_t strides[2] = {2, 1};
    aclTensor *t = aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 2, a);
    CHECK_TRUE(t != nullptr);
    CHECK_EQ(aclDestroyTensor(t), ACL_SUCCESS);

    // release everything
    CHECK_EQ(aclrtDestroyEvent(start), ACL_SUCCESS);
    CHECK_EQ(aclrtDestroyEvent(done1), ACL_SUCCESS);
    CHECK_EQ(aclrtDestroyEvent(end), ACL_SUCCESS);
    CHECK_EQ(aclrtFree(a), ACL_SUCCESS);
    CHECK_EQ(aclrtFree(b), ACL_SUCCESS);
    CHECK_EQ(aclrtDestroyStream(s1), ACL_SUCCESS);
    CHECK_EQ(aclrtDestroyStream(s2), ACL_SUCCESS);
    hgLiveCounts c;
    CHECK_EQ(hgGetLiveCounts(&c), ACL_SUCCESS);
    CHECK_EQ(c.deviceAllocations + c.deviceBytes + c.hostAllocations + c.tensors + c.streams + c.events, 0);
    CHECK_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    CHECK_EQ(aclFinalize(), ACL_SUCCESS);

    if (g_failures) {
        std::printf("%d FAILED\n", g_failures);
        return 1;
    }
    std::printf("ALL OK\n");
    return 0;
}
