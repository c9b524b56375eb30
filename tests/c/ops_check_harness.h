// The assertion harness of the operators' C++ check programs (each operator folder's
// tests/c/<folder>_checks.cpp): device buffers, self-destroying descriptors, REQUIRE and
// REQUIRE_CODE (code plus the words the message must contain), and the main() that lists the
// checks (no argument) or runs the one named (exit 0 = pass, 1 = fail, 2 = unknown name).
// PYACL_HARDGRAD_SOC (read by aclInit) selects the simulated SoC.  One program includes it once.
#ifndef HG_OPS_CHECK_HARNESS_H
#define HG_OPS_CHECK_HARNESS_H
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "pyacl_hardgrad/embedded.h"

// aclGetRecentErrMsg() hands the text over once and clears it (CANN's rule): LastMsg() keeps
// what it returned, so a check can read the text of the last failure more than once.
static std::string g_last_msg;
inline const char *LastMsg()
{
    const char *m = aclGetRecentErrMsg();
    if (m != nullptr) {
        g_last_msg = m;
    }
    return g_last_msg.empty() ? nullptr : g_last_msg.c_str();
}

namespace {

constexpr int NULLPTR = ACLNN_ERR_PARAM_NULLPTR;   // 161001
constexpr int INVALID = ACLNN_ERR_PARAM_INVALID;   // 161002

aclrtStream g_stream = nullptr;
int g_failures = 0;

#define REQUIRE(cond)                                                             \
    do {                                                                          \
        if (!(cond)) {                                                            \
            std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);           \
            g_failures++;                                                         \
            return;                                                               \
        }                                                                         \
    } while (0)

// rc must be `want`; a failure must leave a message that names `func` and contains `needle`.
#define REQUIRE_CODE(rc, want, func, needle)                                                          \
    do {                                                                                              \
        int rc_ = (rc);                                                                               \
        if (rc_ != (want)) {                                                                          \
            const char *m_ = LastMsg();                                                    \
            std::printf("FAIL %s:%d: %s returned %d, expected %d (msg: %s)\n", __FILE__, __LINE__, #rc, \
                        rc_, (want), m_ ? m_ : "(null)");                                             \
            g_failures++;                                                                             \
            return;                                                                                   \
        }                                                                                             \
        if ((want) != 0) {                                                                            \
            const char *m_ = LastMsg();                                                    \
            if (m_ == nullptr || std::strstr(m_, (func)) == nullptr ||                                \
                std::strstr(m_, (needle)) == nullptr) {                                               \
                std::printf("FAIL %s:%d: message \"%s\" lacks \"%s\" / \"%s\"\n", __FILE__, __LINE__,  \
                            m_ ? m_ : "(null)", (func), (needle));                                    \
                g_failures++;                                                                         \
                return;                                                                               \
            }                                                                                         \
        }                                                                                             \
    } while (0)

// ---------------------------------------------------------------- device buffers and tensors

struct Dev {
    void *ptr = nullptr;
    size_t bytes = 0;
    explicit Dev(size_t n) : bytes(n)
    {
        if (aclrtMalloc(&ptr, n, ACL_MEM_MALLOC_HUGE_FIRST) != 0) {
            std::printf("aclrtMalloc(%zu) failed\n", n);
            std::exit(2);
        }
    }
    ~Dev() { aclrtFree(ptr); }
    Dev(const Dev &) = delete;
    Dev &operator=(const Dev &) = delete;
    template <typename T> void put(const std::vector<T> &host)
    {
        if (aclrtMemcpy(ptr, bytes, host.data(), host.size() * sizeof(T), ACL_MEMCPY_HOST_TO_DEVICE) != 0) {
            std::exit(3);
        }
    }
    template <typename T> std::vector<T> get() const
    {
        std::vector<T> host(bytes / sizeof(T));
        if (aclrtMemcpy(host.data(), host.size() * sizeof(T), ptr, host.size() * sizeof(T),
                        ACL_MEMCPY_DEVICE_TO_HOST) != 0) {
            std::exit(3);
        }
        return host;
    }
};

inline std::vector<int64_t> RowMajor(const std::vector<int64_t> &shape)
{
    std::vector<int64_t> s(shape.size(), 1);
    for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; i--) {
        s[i] = s[i + 1] * shape[i + 1];
    }
    return s;
}

// A tensor descriptor that destroys itself; storage is given as one flat dim of `storage` elements
// (default: the view's own shape).
struct Tensor {
    aclTensor *t = nullptr;
    Tensor(aclDataType dt, std::vector<int64_t> shape, void *data, std::vector<int64_t> strides = {},
           int64_t offset = 0, aclFormat fmt = ACL_FORMAT_ND, int64_t storage = -1)
    {
        if (strides.empty()) {
            strides = RowMajor(shape);
        }
        std::vector<int64_t> st = shape;
        if (storage >= 0) {
            st = {storage};
        }
        t = aclCreateTensor(shape.data(), shape.size(), dt, strides.data(), offset, fmt, st.data(), st.size(),
                            data);
        if (t == nullptr) {
            const char *m = LastMsg();
            std::printf("aclCreateTensor failed: %s\n", m ? m : "(null)");
            std::exit(4);
        }
    }
    ~Tensor() { destroy(); }
    void destroy()
    {
        if (t) {
            aclDestroyTensor(t);
        }
        t = nullptr;
    }
    Tensor(const Tensor &) = delete;
    Tensor &operator=(const Tensor &) = delete;
    operator aclTensor *() const { return t; }
};

struct Scalar {
    aclScalar *s = nullptr;
    explicit Scalar(float v) { s = aclCreateScalar(&v, ACL_FLOAT); }
    ~Scalar() { if (s) aclDestroyScalar(s); }
    Scalar(const Scalar &) = delete;
    Scalar &operator=(const Scalar &) = delete;
    operator aclScalar *() const { return s; }
};

inline float Bits2F(uint32_t b) { float f; std::memcpy(&f, &b, 4); return f; }
inline uint32_t F2Bits(float f) { uint32_t b; std::memcpy(&b, &f, 4); return b; }

inline Dev &Scratch()
{
    static Dev d(1 << 16);
    static bool filled = false;
    if (!filled) {
        d.put(std::vector<uint8_t>(d.bytes, 0));
        filled = true;
    }
    return d;
}

const aclDataType kUnsupported[] = {ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64, ACL_UINT8,
                                    ACL_BOOL, ACL_DOUBLE, ACL_COMPLEX64, ACL_COMPLEX128};

// Synchronize the check stream after a phase 2 that returned `rc`; the first non-zero code.
inline int SyncAfter(int rc)
{
    return rc != 0 ? rc : aclrtSynchronizeStream(g_stream);
}

struct Check {
    const char *name;
    std::function<void()> fn;
};

inline int CheckMain(int argc, char **argv, const std::vector<Check> &checks)
{
    if (argc < 2) {
        for (const Check &c : checks) {
            std::printf("%s\n", c.name);
        }
        return 0;
    }
    const Check *chosen = nullptr;
    for (const Check &c : checks) {
        if (std::strcmp(c.name, argv[1]) == 0) {
            chosen = &c;
        }
    }
    if (chosen == nullptr) {
        std::printf("unknown check %s\n", argv[1]);
        return 2;
    }
    if (aclInit(nullptr) != 0 || aclrtSetDevice(0) != 0 || aclrtCreateStream(&g_stream) != 0) {
        std::printf("runtime set-up failed\n");
        return 2;
    }
    chosen->fn();
    aclrtSynchronizeStream(g_stream);
    aclrtDestroyStream(g_stream);
    aclrtResetDevice(0);
    aclFinalize();
    if (g_failures == 0) {
        std::printf("PASS %s\n", argv[1]);
    }
    return g_failures == 0 ? 0 : 1;
}

}  // namespace

#endif
