// aclCreateTensor with stride = nullptr: the tensor gets the contiguous strides of its view
// dims (stride[n-1] = 1, stride[i] = viewDims[i+1] * stride[i+1], a zero dim included), and an
// operator runs on such tensors as on explicitly strided ones -- the way CANN's operator tests
// describe every contiguous tensor.  The other descriptor rules still apply.
// Prints "OK" when every check holds, "FAIL line N: ..." otherwise.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_hardshrink.h"

static int failures = 0;
#define CHECK(cond)                                                                                  \
    do {                                                                                             \
        if (!(cond)) {                                                                               \
            const char *m_ = aclGetRecentErrMsg();                                                   \
            std::printf("FAIL line %d: %s (last error: %s)\n", __LINE__, #cond, m_ ? m_ : "(none)"); \
            ++failures;                                                                              \
        }                                                                                            \
    } while (0)

// The view strides and view shape the getters report for t.
static std::vector<int64_t> strides_of(const aclTensor *t)
{
    int64_t *v = nullptr;
    uint64_t n = 0;
    std::vector<int64_t> out;
    if (aclGetViewStrides(t, &v, &n) != ACLNN_SUCCESS) {
        out.push_back(-999);
        return out;
    }
    out.assign(v, v + n);
    delete[] v;
    return out;
}

static std::vector<int64_t> shape_of(const aclTensor *t)
{
    int64_t *v = nullptr;
    uint64_t n = 0;
    std::vector<int64_t> out;
    if (aclGetViewShape(t, &v, &n) == ACLNN_SUCCESS) {
        out.assign(v, v + n);
        delete[] v;
    }
    return out;
}

static void derived_strides()
{
    struct {
        std::vector<int64_t> dims, want;
    } cases[] = {
        {{2, 3, 4}, {12, 4, 1}},
        {{7}, {1}},
        {{3, 1, 2}, {2, 2, 1}},
        {{1, 1}, {1, 1}},
        {{2, 0, 3}, {0, 3, 1}},   // a zero dim: zero strides before it (numel 0)
        {{0, 4}, {4, 1}},
        {{4, 0}, {0, 1}},
        {{2, 2, 2, 2, 2, 2, 2, 2, 2}, {256, 128, 64, 32, 16, 8, 4, 2, 1}},
    };
    for (auto &c : cases) {
        aclTensor *t = aclCreateTensor(c.dims.data(), c.dims.size(), ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND,
                                       c.dims.data(), c.dims.size(), nullptr);
        CHECK(t != nullptr);
        if (t == nullptr)
            continue;
        CHECK(strides_of(t) == c.want);
        CHECK(shape_of(t) == c.dims);
        CHECK(aclDestroyTensor(t) == ACLNN_SUCCESS);
    }
    // 0-d: no strides, one element; the storage may be given or not
    aclTensor *t = aclCreateTensor(nullptr, 0, ACL_FLOAT16, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, nullptr);
    CHECK(t != nullptr && strides_of(t).empty());
    CHECK(aclDestroyTensor(t) == ACLNN_SUCCESS);
    // a contiguous view with an offset into a larger storage
    float buf[30];
    int64_t dims[2] = {4, 5}, storage[1] = {30};
    t = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 10, ACL_FORMAT_NCHW, storage, 1, buf);
    CHECK(t != nullptr);
    CHECK(strides_of(t) == (std::vector<int64_t>{5, 1}));
    int64_t off = -1;
    CHECK(aclGetViewOffset(t, &off) == ACLNN_SUCCESS && off == 10);
    CHECK(aclDestroyTensor(t) == ACLNN_SUCCESS);
    // the caller's arrays are read, not kept
    std::vector<int64_t> d = {3, 2};
    t = aclCreateTensor(d.data(), 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, d.data(), 2, nullptr);
    d[1] = 100;
    CHECK(t != nullptr && strides_of(t) == (std::vector<int64_t>{2, 1}));
    CHECK(aclDestroyTensor(t) == ACLNN_SUCCESS);
}

static bool msg_has(const char *word)
{
    const char *m = aclGetRecentErrMsg();
    return m != nullptr && std::strstr(m, word) != nullptr;
}

// The rules other than the stride's still hold with derived strides.
static void other_rules_kept()
{
    int64_t d2[2] = {4, 2}, st7[1] = {7};
    CHECK(aclCreateTensor(d2, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, st7, 1, nullptr) == nullptr);
    CHECK(msg_has("= 7 must be less than the storage element count 7"));
    CHECK(aclCreateTensor(d2, 2, ACL_FLOAT, nullptr, 1, ACL_FORMAT_ND, d2, 2, nullptr) == nullptr);
    CHECK(msg_has("= 8 must be less than the storage element count 8"));
    int64_t neg[2] = {4, -2};
    CHECK(aclCreateTensor(neg, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, d2, 2, nullptr) == nullptr);
    CHECK(msg_has("viewDims[1] = -2 must not be negative"));
    CHECK(aclCreateTensor(nullptr, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, d2, 2, nullptr) == nullptr);
    CHECK(msg_has("viewDims is NULL while viewDimsNum is 2"));
    CHECK(aclCreateTensor(d2, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 2, nullptr) == nullptr);
    CHECK(msg_has("storageDims is NULL while storageDimsNum is 2"));
    CHECK(aclCreateTensor(d2, 2, ACL_STRING, nullptr, 0, ACL_FORMAT_ND, d2, 2, nullptr) == nullptr);
    CHECK(msg_has("dataType 13"));
    // numel 0, but the strides before the zero dim would not fit in int64
    int64_t huge[3] = {0, INT64_C(1) << 40, INT64_C(1) << 40}, none[1] = {0};
    CHECK(aclCreateTensor(huge, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, none, 1, nullptr) == nullptr);
    CHECK(msg_has("stride is NULL and the contiguous strides of viewDims overflow int64"));
    // the same dims with explicit strides are a legal empty tensor, as before
    int64_t s[3] = {0, 0, 0};
    aclTensor *t = aclCreateTensor(huge, 3, ACL_FLOAT, s, 0, ACL_FORMAT_ND, none, 1, nullptr);
    CHECK(t != nullptr);
    CHECK(aclDestroyTensor(t) == ACLNN_SUCCESS);
}

// aclnnHardshrink on 2x3 tensors described with nullptr strides, as CANN's samples and operator
// tests write them, gives the same result as on explicitly strided ones.
static void operator_runs()
{
    CHECK(aclInit(nullptr) == ACL_SUCCESS);
    CHECK(aclrtSetDevice(0) == ACL_SUCCESS);
    aclrtStream stream = nullptr;
    CHECK(aclrtCreateStream(&stream) == ACL_SUCCESS);
    const float host[6] = {0.1f, -0.7f, 0.5f, -0.5f, 2.0f, -3.0f};
    const float want[6] = {0.0f, -0.7f, 0.0f, 0.0f, 2.0f, -3.0f};
    void *self_mem = nullptr, *out_mem = nullptr;
    CHECK(aclrtMalloc(&self_mem, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(aclrtMalloc(&out_mem, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(aclrtMemcpy(self_mem, sizeof host, host, sizeof host, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
    int64_t shape[2] = {2, 3};
    aclTensor *self = aclCreateTensor(shape, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 2, self_mem);
    aclTensor *out = aclCreateTensor(shape, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 2, out_mem);
    float lambd_value = 0.5f;
    aclScalar *lambd = aclCreateScalar(&lambd_value, ACL_FLOAT);
    CHECK(self != nullptr && out != nullptr && lambd != nullptr);
    uint64_t ws = 1;
    aclOpExecutor *exe = nullptr;
    CHECK(aclnnHardshrinkGetWorkspaceSize(self, lambd, out, &ws, &exe) == ACLNN_SUCCESS);
    CHECK(ws == 0);   // contiguous: nothing staged
    CHECK(aclnnHardshrink(nullptr, 0, exe, stream) == ACLNN_SUCCESS);
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
    float got[6] = {-1, -1, -1, -1, -1, -1};
    CHECK(aclrtMemcpy(got, sizeof got, out_mem, sizeof got, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    CHECK(std::memcmp(got, want, sizeof got) == 0);
    CHECK(aclDestroyTensor(self) == ACLNN_SUCCESS);
    CHECK(aclDestroyTensor(out) == ACLNN_SUCCESS);
    CHECK(aclDestroyScalar(lambd) == ACLNN_SUCCESS);
    CHECK(aclrtFree(self_mem) == ACL_SUCCESS);
    CHECK(aclrtFree(out_mem) == ACL_SUCCESS);
    CHECK(aclrtDestroyStream(stream) == ACL_SUCCESS);
    CHECK(aclrtResetDevice(0) == ACL_SUCCESS);
    CHECK(aclFinalize() == ACL_SUCCESS);
}

int main()
{
    derived_strides();
    other_rules_kept();
    operator_runs();
    if (failures)
        return 1;
    std::printf("OK\n");
    return 0;
}
