// Validation, view and executor rules of aclnnHardtanhBackward / aclnnHardsigmoidBackward.
// Usage: ops_checks <check-name>   (no argument: list the names).  Exit 0 = pass.
// PYACL_HARDGRAD_SOC (read by aclInit) selects the simulated SoC for the bf16 checks.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_hardsigmoid_backward.h"
#include "aclnnop/aclnn_hardtanh_backward.h"
#include "pyacl_hardgrad/embedded.h"

// aclGetRecentErrMsg() hands the text over once and clears it (CANN's rule): LastMsg() keeps
// what it returned, so a check can read the text of the last failure more than once.
static std::string g_last_msg;
static const char *LastMsg()
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

const char *HT1 = "aclnnHardtanhBackwardGetWorkspaceSize";
const char *HS1 = "aclnnHardsigmoidBackwardGetWorkspaceSize";

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

std::vector<int64_t> RowMajor(const std::vector<int64_t> &shape)
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

float Bits2F(uint32_t b) { float f; std::memcpy(&f, &b, 4); return f; }
uint32_t F2Bits(float f) { uint32_t b; std::memcpy(&b, &f, 4); return b; }

// Phase 2 + sync; returns the first non-zero code.
int Run(bool hardtanh, aclOpExecutor *exe, void *ws, uint64_t wsSize)
{
    int rc = hardtanh ? aclnnHardtanhBackward(ws, wsSize, exe, g_stream)
                      : aclnnHardsigmoidBackward(ws, wsSize, exe, g_stream);
    if (rc != 0) {
        return rc;
    }
    return aclrtSynchronizeStream(g_stream);
}

// Phase 1 that must succeed, then run with a workspace of the reported size.
int Phase1And2Ht(aclTensor *g, aclTensor *s, aclScalar *lo, aclScalar *hi, aclTensor *o, uint64_t *wsOut = nullptr)
{
    uint64_t ws = 123;
    aclOpExecutor *exe = nullptr;
    int rc = aclnnHardtanhBackwardGetWorkspaceSize(g, s, lo, hi, o, &ws, &exe);
    if (rc != 0) {
        return rc;
    }
    if (wsOut) *wsOut = ws;
    Dev w(ws ? ws : 1);
    return Run(true, exe, ws ? w.ptr : nullptr, ws);
}

int Phase1And2Hs(aclTensor *g, aclTensor *s, aclTensor *o, uint64_t *wsOut = nullptr)
{
    uint64_t ws = 123;
    aclOpExecutor *exe = nullptr;
    int rc = aclnnHardsigmoidBackwardGetWorkspaceSize(g, s, o, &ws, &exe);
    if (rc != 0) {
        return rc;
    }
    if (wsOut) *wsOut = ws;
    Dev w(ws ? ws : 1);
    return Run(false, exe, ws ? w.ptr : nullptr, ws);
}

Dev &Scratch()
{
    static Dev d(1 << 16);
    static bool filled = false;
    if (!filled) {
        d.put(std::vector<uint8_t>(d.bytes, 0));
        filled = true;
    }
    return d;
}

// ---------------------------------------------------------------- null arguments

void ht_null(int which)
{
    void *p = Scratch().ptr;
    Tensor g(ACL_FLOAT, {2, 2}, p), s(ACL_FLOAT, {2, 2}, p), o(ACL_FLOAT, {2, 2}, p);
    Scalar lo(-1.0f), hi(1.0f);
    uint64_t ws = 0;
    aclOpExecutor *exe = nullptr;
    const char *names[] = {"gradOutput", "self", "min", "max", "out", "workspaceSize", "executor"};
    int rc = aclnnHardtanhBackwardGetWorkspaceSize(which == 0 ? nullptr : g.t, which == 1 ? nullptr : s.t,
                                                   which == 2 ? nullptr : lo.s, which == 3 ? nullptr : hi.s,
                                                   which == 4 ? nullptr : o.t, which == 5 ? nullptr : &ws,
                                                   which == 6 ? nullptr : &exe);
    REQUIRE_CODE(rc, NULLPTR, HT1, names[which]);
}

void hs_null(int which)
{
    void *p = Scratch().ptr;
    Tensor g(ACL_FLOAT, {2, 2}, p), s(ACL_FLOAT, {2, 2}, p), o(ACL_FLOAT, {2, 2}, p);
    uint64_t ws = 0;
    aclOpExecutor *exe = nullptr;
    const char *names[] = {"gradOutput", "self", "out", "workspaceSize", "executor"};
    int rc = aclnnHardsigmoidBackwardGetWorkspaceSize(which == 0 ? nullptr : g.t, which == 1 ? nullptr : s.t,
                                                      which == 2 ? nullptr : o.t, which == 3 ? nullptr : &ws,
                                                      which == 4 ? nullptr : &exe);
    REQUIRE_CODE(rc, NULLPTR, HS1, names[which]);
}

// A null check comes before every other check: null self with a bad gradOutput is still 161001.
void null_first()
{
    void *p = Scratch().ptr;
    Tensor bad(ACL_INT8, {2, 2, 1, 1, 1, 1, 1, 1, 1}, p), o(ACL_FLOAT, {2, 2}, p);
    Scalar lo(-1.0f), hi(1.0f);
    uint64_t ws = 0;
    aclOpExecutor *exe = nullptr;
    REQUIRE_CODE(aclnnHardtanhBackwardGetWorkspaceSize(bad, nullptr, lo, hi, o, &ws, &exe), NULLPTR, HT1, "self");
    REQUIRE_CODE(aclnnHardsigmoidBackwardGetWorkspaceSize(bad, nullptr, o, &ws, &exe), NULLPTR, HS1, "self");
}

// ---------------------------------------------------------------- dtypes

const aclDataType kUnsupported[] = {ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64, ACL_UINT8,
                                    ACL_BOOL, ACL_DOUBLE, ACL_COMPLEX64, ACL_COMPLEX128};

void ht_dtype_unsupported()
{
    void *p = Scratch().ptr;
    Scalar lo(-1.0f), hi(1.0f);
    const char *names[] = {"gradOutput", "self", "out"};
    for (aclDataType bad : kUnsupported) {
        for (int pos = 0; pos < 3; pos++) {
            Tensor g(pos == 0 ? bad : ACL_FLOAT, {2, 2}, p), s(pos == 1 ? bad : ACL_FLOAT, {2, 2}, p);
            Tensor o(pos == 2 ? bad : ACL_FLOAT, {2, 2}, p);
            uint64_t ws = 0;
            aclOpExecutor *exe = nullptr;
            REQUIRE_CODE(aclnnHardtanhBackwardGetWorkspaceSize(g, s, lo, hi, o, &ws, &exe), INVALID, HT1,
                         names[pos]);
            const char *m = LastMsg();
            REQUIRE(std::strstr(m, "not supported") != nullptr);
        }
    }
}

void hs_dtype_unsupported()
{
    void *p = Scratch().ptr;
    const char *names[] = {"gradOutput", "self", "out"};
    for (aclDataType bad : kUnsupported) {
        for (int pos = 0; pos < 3; pos++) {
            Tensor g(pos == 0 ? bad : ACL_FLOAT, {2, 2}, p), s(pos == 1 ? bad : ACL_FLOAT, {2, 2}, p);
            Tensor o(pos == 2 ? bad : ACL_FLOAT, {2, 2}, p);
            uint64_t ws = 0;
            aclOpExecutor *exe = nullptr;
            REQUIRE_CODE(aclnnHardsigmoidBackwardGetWorkspaceSize(g, s, o, &ws, &exe), INVALID, HS1, names[pos]);
        }
    }
}

// The exact message of the brief's example.
void dtype_message()
{
    void *p = Scratch().ptr;
    Tensor g(ACL_FLOAT, {2, 2}, p), s(ACL_INT8, {2, 2}, p), o(ACL_FLOAT, {2, 2}, p);
    uint64_t ws = 0;
    aclOpExecutor *exe = nullptr;
    REQUIRE_CODE(aclnnHardsigmoidBackwardGetWorkspaceSize(g, s, o, &ws, &exe), INVALID, HS1,
                 "self dtype DT_INT8");
    REQUIRE(std::strstr(LastMsg(), "expected one of DT_FLOAT, DT_FLOAT16, DT_BF16") != nullptr);
}

// HardtanhBackward does not promote: every mixed pair and every out mismatch is 161002.
void ht_dtype_mismatch()
{
    void *p = Scratch().ptr;
    Scalar lo(-1.0f), hi(1.0f);
    const aclDataType fl[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
    for (aclDataType a : fl) {
        for (aclDataType b : fl) {
            for (aclDataType c : fl) {
                Tensor g(a, {2, 2}, p), s(b, {2, 2}, p), o(c, {2, 2}, p);
                uint64_t ws = 0;
                aclOpExecutor *exe = nullptr;
                int rc = aclnnHardtanhBackwardGetWorkspaceSize(g, s, lo, hi, o, &ws, &exe);
                if (a == b && b == c) {
                    REQUIRE_CODE(rc, 0, "", "");
                    REQUIRE(ws == 0);
                    REQUIRE_CODE(Run(true, exe, nullptr, 0), 0, "", "");
                } else if (a != b) {
                    REQUIRE_CODE(rc, INVALID, HT1, "gradOutput dtype");
                } else {
                    REQUIRE_CODE(rc, INVALID, HT1, "out dtype");
                }
            }
        }
    }
}

// HardsigmoidBackward promotes the inputs; any float out is accepted.
void hs_dtype_promotion()
{
    const aclDataType fl[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
    for (aclDataType a : fl) {
        for (aclDataType b : fl) {
            for (aclDataType c : fl) {
                Dev dg(16), ds(16), dout(16);
                dg.put(std::vector<uint8_t>(16, 0));
                ds.put(std::vector<uint8_t>(16, 0));
                Tensor g(a, {2, 2}, dg.ptr), s(b, {2, 2}, ds.ptr), o(c, {2, 2}, dout.ptr);
                REQUIRE_CODE(Phase1And2Hs(g, s, o), 0, "", "");
            }
        }
    }
}

// ---------------------------------------------------------------- dims, shapes, formats

void ht_dims9()
{
    void *p = Scratch().ptr;
    Scalar lo(-1.0f), hi(1.0f);
    std::vector<int64_t> d9(9, 1), d8(8, 1);
    const char *names[] = {"gradOutput", "self", "out"};
    for (int pos = 0; pos < 3; pos++) {
        Tensor g(ACL_FLOAT, pos == 0 ? d9 : d8, p), s(ACL_FLOAT, pos == 1 ? d9 : d8, p);
        Tensor o(ACL_FLOAT, pos == 2 ? d9 : d8, p);
        uint64_t ws = 0;
        aclOpExecutor *exe = nullptr;
        REQUIRE_CODE(aclnnHardtanhBackwardGetWorkspaceSize(g, s, lo, hi, o, &ws, &exe), INVALID, HT1, names[pos]);
        REQUIRE(std::strstr(LastMsg(), "9") != nullptr);
    }
    Dev dg(4), ds(4), dout(4);
    dg.put(std::vector<float>{3.0f});
    ds.put(std::vector<float>{0.5f});
    Tensor g(ACL_FLOAT, d8, dg.ptr), s(ACL_FLOAT, d8, ds.ptr), o(ACL_FLOAT, d8, dout.ptr);
    REQUIRE_CODE(Phase1And2Ht(g, s, lo, hi, o), 0, "", "");
    REQUIRE(dout.get<float>()[0] == 3.0f);
}

void hs_dims9()
{
    void *p = Scratch().ptr;
    std::vector<int64_t> d9(9, 1), d8(8, 1);
    const char *names[] = {"gradOutput", "self", "out"};
    for (int pos = 0; pos < 3; pos++) {
        Tensor g(ACL_FLOAT, pos == 0 ? d9 : d8, p), s(ACL_FLOAT, pos == 1 ? d9 : d8, p);
        Tensor o(ACL_FLOAT, pos == 2 ? d9 : d8, p);
        uint64_t ws = 0;
        aclOpExecutor *exe = nullptr;
        REQUIRE_CODE(aclnnHardsigmoidBackwardGetWorkspaceSize(g, s, o, &ws, &exe), INVALID, HS1, names[pos]);
    }
}

void ht_shape_mismatch()
{
    void *p = Scratch().ptr;
    Scalar lo(-1.0f), hi(1.0f);
    uint64_t ws = 0;
    aclOpExecutor *exe = nullptr;
    {
        Tensor g(ACL_FLOAT, {4, 2}, p), s(ACL_FLOAT, {2, 4}, p), o(ACL_FLOAT, {4, 2}, p);
        REQUIRE_CODE(aclnnHardtanhBackwardGetWorkspaceSize(g, s, lo, hi, o, &ws, &exe), INVALID, HT1,
                     "gradOutput shape [4,2] and self shape [2,4] must be equal");
    }
    {
        Tensor g(ACL_FLOAT, {4, 2}, p), s(ACL_FLOAT, {4, 2}, p), o(ACL_FLOAT, {4, 2, 1}, p);
        REQUIRE_CODE(aclnnHardtanhBackwardGetWorkspaceSize(g, s, lo, hi, o, &ws, &exe), INVALID, HT1,
                     "out shape [4,2,1]");
    }
    {   // no broadcasting either
        Tensor g(ACL_FLOAT, {4, 2}, p), s(ACL_FLOAT, {1, 2}, p), o(ACL_FLOAT, {4, 2}, p);
        REQUIRE_CODE(aclnnHardtanhBackwardGetWorkspaceSize(g, s, lo, hi, o, &ws, &exe), INVALID, HT1, "self shape");
    }
}

void hs_shape_mismatch()
{
    void *p = Scratch().ptr;
    uint64_t ws = 0;
    aclOpExecutor *exe = nullptr;
    {
        Tensor g(ACL_FLOAT, {4, 2}, p), s(ACL_FLOAT, {2, 4}, p), o(ACL_FLOAT, {4, 2}, p);
        REQUIRE_CODE(aclnnHardsigmoidBackwardGetWorkspaceSize(g, s, o, &ws, &exe), INVALID, HS1,
                     "gradOutput shape [4,2] and self shape [2,4] must be equal");
    }
    {
        Tensor g(ACL_FLOAT, {4, 2}, p), s(ACL_FLOAT, {4, 2}, p), o(ACL_FLOAT, {8}, p);
        REQUIRE_CODE(aclnnHardsigmoidBackwardGetWorkspaceSize(g, s, o, &ws, &exe), INVALID, HS1, "out shape [8]");
    }
    {
        Tensor g(ACL_FLOAT, {}, p), s(ACL_FLOAT, {1}, p), o(ACL_FLOAT, {}, p);
        REQUIRE_CODE(aclnnHardsigmoidBackwardGetWorkspaceSize(g, s, o, &ws, &exe), INVALID, HS1, "self shape [1]");
    }
}

void formats()
{
    const aclFormat ok[] = {ACL_FORMAT_ND, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_HWCN, ACL_FORMAT_NCDHW,
                            ACL_FORMAT_NDHWC};
    Scalar lo(-1.0f), hi(1.0f);
    Dev dg(64), ds(64), dout(64);
    dg.put(std::vector<uint8_t>(64, 0));
    ds.put(std::vector<uint8_t>(64, 0));
    std::vector<int64_t> shape = {1, 2, 2, 2};
    for (aclFormat f : ok) {
        for (int pos = 0; pos < 3; pos++) {
            Tensor g(ACL_FLOAT, shape, dg.ptr, {}, 0, pos == 0 ? f : ACL_FORMAT_ND);
            Tensor s(ACL_FLOAT, shape, ds.ptr, {}, 0, pos == 1 ? f : ACL_FORMAT_ND);
            Tensor o(ACL_FLOAT, shape, dout.ptr, {}, 0, pos == 2 ? f : ACL_FORMAT_ND);
            REQUIRE_CODE(Phase1And2Ht(g, s, lo, hi, o), 0, "", "");
            REQUIRE_CODE(Phase1And2Hs(g, s, o), 0, "", "");
        }
    }
    const char *names[] = {"gradOutput", "self", "out"};
    for (int pos = 0; pos < 3; pos++) {
        Tensor g(ACL_FLOAT, shape, dg.ptr, {}, 0, pos == 0 ? ACL_FORMAT_NC1HWC0 : ACL_FORMAT_ND);
        Tensor s(ACL_FLOAT, shape, ds.ptr, {}, 0, pos == 1 ? ACL_FORMAT_NC1HWC0 : ACL_FORMAT_ND);
        Tensor o(ACL_FLOAT, shape, dout.ptr, {}, 0, pos == 2 ? ACL_FORMAT_NC1HWC0 : ACL_FORMAT_ND);
        uint64_t ws = 0;
        aclOpExecutor *exe = nullptr;
        REQUIRE_CODE(aclnnHardtanhBackwardGetWorkspaceSize(g, s, lo, hi, o, &ws, &exe), INVALID, HT1, names[pos]);
        REQUIRE(std::strstr(LastMsg(), "NC1HWC0") != nullptr);
        REQUIRE_CODE(aclnnHardsigmoidBackwardGetWorkspaceSize(g, s, o, &ws, &exe), INVALID, HS1, names[pos]);
    }
}

// Check order: dtype before dims before shape before format.
void check_order()
{
    void *p = Scratch().ptr;
    Scalar lo(-1.0f), hi(1.0f);
    uint64_t ws = 0;
    aclOpExecutor *exe = nullptr;
    std::vector<int64_t> d9(9, 1);
    {
        Tensor g(ACL_FLOAT, d9, p, {}, 0, ACL_FORMAT_NC1HWC0), s(ACL_INT32, {3}, p), o(ACL_FLOAT, {2}, p);
        REQUIRE_CODE(aclnnHardtanhBackwardGetWorkspaceSize(g, s, lo, hi, o, &ws, &exe), INVALID, HT1, "self dtype");
        REQUIRE_CODE(aclnnHardsigmoidBackwardGetWorkspaceSize(g, s, o, &ws, &exe), INVALID, HS1, "self dtype");
    }
    {
        Tensor g(ACL_FLOAT, d9, p, {}, 0, ACL_FORMAT_NC1HWC0), s(ACL_FLOAT, {3}, p), o(ACL_FLOAT, {2}, p);
        REQUIRE_CODE(aclnnHardtanhBackwardGetWorkspaceSize(g, s, lo, hi, o, &ws, &exe), INVALID, HT1,
                     "gradOutput has 9 dimensions");
    }
    {
        Tensor g(ACL_FLOAT, {2}, p, {}, 0, ACL_FORMAT_NC1HWC0), s(ACL_FLOAT, {3}, p), o(ACL_FLOAT, {2}, p);
        REQUIRE_CODE(aclnnHardtanhBackwardGetWorkspaceSize(g, s, lo, hi, o, &ws, &exe), INVALID, HT1, "shape");
    }
}

// ---------------------------------------------------------------- empty and 0-d tensors

void empty_tensors()
{
    Scalar lo(-1.0f), hi(1.0f);
    Dev dout(16);
    dout.put(std::vector<uint32_t>(4, 0xdeadbeefu));
    for (auto shape : {std::vector<int64_t>{0}, std::vector<int64_t>{3, 0, 2}}) {
        Tensor g(ACL_FLOAT, shape, Scratch().ptr), s(ACL_FLOAT, shape, Scratch().ptr), o(ACL_FLOAT, shape, dout.ptr);
        uint64_t ws = 99;
        REQUIRE_CODE(Phase1And2Ht(g, s, lo, hi, o, &ws), 0, "", "");
        REQUIRE(ws == 0);
        ws = 99;
        REQUIRE_CODE(Phase1And2Hs(g, s, o, &ws), 0, "", "");
        REQUIRE(ws == 0);
        // non-contiguous strides on an empty view still need no workspace
        Tensor gt(ACL_FLOAT16, shape, Scratch().ptr, std::vector<int64_t>(shape.size(), 7));
        Tensor st(ACL_FLOAT16, shape, Scratch().ptr), ot(ACL_FLOAT16, shape, dout.ptr, std::vector<int64_t>(shape.size(), 3));
        ws = 99;
        REQUIRE_CODE(Phase1And2Ht(gt, st, lo, hi, ot, &ws), 0, "", "");
        REQUIRE(ws == 0);
    }
    for (uint32_t v : dout.get<uint32_t>()) {
        REQUIRE(v == 0xdeadbeefu);
    }
}

// Empty views whose other dims and strides are huge: nothing is read or written, and no
// product of dims or of a stride and a dim may overflow int64 on the way (UB; the
// UBSan run in test_ops_checks.py turns it into a failure).
void empty_huge_dims()
{
    Scalar lo(-1.0f), hi(1.0f);
    Dev dout(16);
    dout.put(std::vector<uint32_t>(4, 0xdeadbeefu));
    const int64_t big = int64_t{1} << 40;
    const std::vector<std::vector<int64_t>> shapes = {{0, big, big}, {big, big, 0}};
    const std::vector<std::vector<int64_t>> strides = {{0, big, 1}, {big, 1, 1}, {0, 0, 0}};
    for (const auto &shape : shapes) {
        for (const auto &st : strides) {
            Tensor g(ACL_FLOAT, shape, Scratch().ptr, st), s(ACL_FLOAT, shape, Scratch().ptr, st),
                o(ACL_FLOAT, shape, dout.ptr, st);
            uint64_t ws = 99;
            REQUIRE_CODE(Phase1And2Ht(g, s, lo, hi, o, &ws), 0, "", "");
            REQUIRE(ws == 0);
            ws = 99;
            REQUIRE_CODE(Phase1And2Hs(g, s, o, &ws), 0, "", "");
            REQUIRE(ws == 0);
        }
    }
    for (uint32_t v : dout.get<uint32_t>()) {
        REQUIRE(v == 0xdeadbeefu);
    }
}

void zero_dim()
{
    Scalar lo(-1.0f), hi(1.0f);
    Dev dg(4), ds(4), dout(4);
    dg.put(std::vector<float>{6.0f});
    ds.put(std::vector<float>{0.25f});
    Tensor g(ACL_FLOAT, {}, dg.ptr), s(ACL_FLOAT, {}, ds.ptr), o(ACL_FLOAT, {}, dout.ptr);
    uint64_t ws = 99;
    REQUIRE_CODE(Phase1And2Ht(g, s, lo, hi, o, &ws), 0, "", "");
    REQUIRE(ws == 0);
    REQUIRE(dout.get<float>()[0] == 6.0f);
    REQUIRE_CODE(Phase1And2Hs(g, s, o, &ws), 0, "", "");
    REQUIRE(dout.get<float>()[0] == 6.0f * (1.0f / 6.0f));
}

// ---------------------------------------------------------------- SoC rules for bf16

void bf16_expect(bool accepted)
{
    Scalar lo(-1.0f), hi(1.0f);
    Dev dg(8), ds(8), dout(8);
    dg.put(std::vector<uint16_t>{0x3f80, 0x4000, 0x4040, 0xbf80});     // 1, 2, 3, -1
    ds.put(std::vector<uint16_t>{0x0000, 0x3f00, 0x4040, 0xbf00});     // 0, .5, 3, -.5
    Tensor g(ACL_BF16, {4}, dg.ptr), s(ACL_BF16, {4}, ds.ptr), o(ACL_BF16, {4}, dout.ptr);
    Tensor gf(ACL_FLOAT16, {2}, dg.ptr), sf(ACL_FLOAT16, {2}, ds.ptr), of(ACL_BF16, {2}, dout.ptr);
    if (accepted) {
        REQUIRE_CODE(Phase1And2Ht(g, s, lo, hi, o), 0, "", "");
        std::vector<uint16_t> r = dout.get<uint16_t>();
        REQUIRE(r[0] == 0x3f80 && r[1] == 0x4000 && r[2] == 0 && r[3] == 0xbf80);
        REQUIRE_CODE(Phase1And2Hs(g, s, o), 0, "", "");
        REQUIRE_CODE(Phase1And2Hs(gf, sf, of), 0, "", "");
    } else {
        uint64_t ws = 0;
        aclOpExecutor *exe = nullptr;
        REQUIRE_CODE(aclnnHardtanhBackwardGetWorkspaceSize(g, s, lo, hi, o, &ws, &exe), INVALID, HT1,
                     "gradOutput dtype DT_BF16");
        REQUIRE_CODE(aclnnHardsigmoidBackwardGetWorkspaceSize(g, s, o, &ws, &exe), INVALID, HS1,
                     "gradOutput dtype DT_BF16");
        // fp16 inputs with a bf16 out: the promoted fp16 cannot be cast to an unsupported out
        REQUIRE_CODE(aclnnHardsigmoidBackwardGetWorkspaceSize(gf, sf, of, &ws, &exe), INVALID, HS1, "out");
        // FLOAT and FLOAT16 still work on these SoCs
        Tensor g2(ACL_FLOAT16, {4}, dg.ptr), s2(ACL_FLOAT16, {4}, ds.ptr), o2(ACL_FLOAT16, {4}, dout.ptr);
        REQUIRE_CODE(Phase1And2Ht(g2, s2, lo, hi, o2), 0, "", "");
        REQUIRE_CODE(Phase1And2Hs(g2, s2, o2), 0, "", "");
    }
}

void bf16_accepted() { bf16_expect(true); }
void bf16_rejected() { bf16_expect(false); }

// ---------------------------------------------------------------- values

// Both bounds exclusive; NaN self passes the gradient through; the output is a bit copy.
void ht_values()
{
    Scalar lo(-1.0f), hi(2.0f);
    const float nan = std::nanf("");
    std::vector<float> gv = {1, 2, 3, 4, 5, 6, -7, Bits2F(0x7fc01234u), -0.0f};
    std::vector<float> sv = {-1.0f, 2.0f, -0.999f, 1.999f, nan, -1.001f, 0.0f, 0.5f, 0.5f};
    Dev dg(gv.size() * 4), ds(sv.size() * 4), dout(sv.size() * 4);
    dg.put(gv);
    ds.put(sv);
    int64_t n = static_cast<int64_t>(gv.size());
    Tensor g(ACL_FLOAT, {n}, dg.ptr), s(ACL_FLOAT, {n}, ds.ptr), o(ACL_FLOAT, {n}, dout.ptr);
    REQUIRE_CODE(Phase1And2Ht(g, s, lo, hi, o), 0, "", "");
    std::vector<uint32_t> r = dout.get<uint32_t>();
    const uint32_t want[] = {0, 0, F2Bits(3), F2Bits(4), F2Bits(5), 0, F2Bits(-7), 0x7fc01234u, 0x80000000u};
    for (size_t i = 0; i < gv.size(); i++) {
        if (r[i] != want[i]) {
            std::printf("element %zu: %08x != %08x\n", i, r[i], want[i]);
        }
        REQUIRE(r[i] == want[i]);
    }
}

void hs_values()
{
    // self: t = self/6 + .5 must lie strictly inside (0, 1): self in (-3, 3)
    std::vector<float> gv = {6, 6, 6, 6, 6, 12, 3};
    std::vector<float> sv = {-3.0f, 3.0f, -2.999f, 2.999f, std::nanf(""), 0.0f, 1.0f};
    Dev dg(gv.size() * 4), ds(sv.size() * 4), dout(sv.size() * 4);
    dg.put(gv);
    ds.put(sv);
    int64_t n = static_cast<int64_t>(gv.size());
    Tensor g(ACL_FLOAT, {n}, dg.ptr), s(ACL_FLOAT, {n}, ds.ptr), o(ACL_FLOAT, {n}, dout.ptr);
    REQUIRE_CODE(Phase1And2Hs(g, s, o), 0, "", "");
    std::vector<float> r = dout.get<float>();
    const float sixth = 1.0f / 6.0f;
    const float want[] = {0, 0, 6 * sixth, 6 * sixth, 0, 12 * sixth, 3 * sixth};
    for (size_t i = 0; i < gv.size(); i++) {
        REQUIRE(F2Bits(r[i]) == F2Bits(want[i]));
    }
    // fp16 in, fp16 out: 1/6 rounds to 0x3155 (RNE)
    Dev hg(4), hs(4), ho(4);
    hg.put(std::vector<uint16_t>{0x3c00, 0x3c00});   // 1, 1
    hs.put(std::vector<uint16_t>{0x0000, 0x4200});   // 0, 3 (t == 1 -> 0)
    Tensor g16(ACL_FLOAT16, {2}, hg.ptr), s16(ACL_FLOAT16, {2}, hs.ptr), o16(ACL_FLOAT16, {2}, ho.ptr);
    REQUIRE_CODE(Phase1And2Hs(g16, s16, o16), 0, "", "");
    std::vector<uint16_t> r16 = ho.get<uint16_t>();
    REQUIRE(r16[0] == 0x3155 && r16[1] == 0);
    // bf16: 1/6 = 0x3e2aaaab -> ties-away/nearest 0x3e2b
    hg.put(std::vector<uint16_t>{0x3f80, 0x3f80});
    hs.put(std::vector<uint16_t>{0x0000, 0x4040});
    Tensor gb(ACL_BF16, {2}, hg.ptr), sb(ACL_BF16, {2}, hs.ptr), ob(ACL_BF16, {2}, ho.ptr);
    REQUIRE_CODE(Phase1And2Hs(gb, sb, ob), 0, "", "");
    r16 = ho.get<uint16_t>();
    REQUIRE(r16[0] == 0x3e2b && r16[1] == 0);
}

// ---------------------------------------------------------------- views

// gradOutput, self and out all transposed (2x3 views over 3x2 storage): right values, workspace > 0.
void transposed_views()
{
    Scalar lo(0.5f), hi(4.5f);
    // logical [i][j] at storage j*2 + i
    std::vector<float> gs = {10, 11, 12, 13, 14, 15};   // logical g[i][j] = gs[j*2+i]
    std::vector<float> ss = {0, 1, 2, 3, 4, 5};
    Dev dg(24), ds(24), dout(24), dref(24);
    dg.put(gs);
    ds.put(ss);
    dout.put(std::vector<float>(6, -1.0f));
    Tensor g(ACL_FLOAT, {2, 3}, dg.ptr, {1, 2}), s(ACL_FLOAT, {2, 3}, ds.ptr, {1, 2});
    Tensor o(ACL_FLOAT, {2, 3}, dout.ptr, {1, 2});
    uint64_t ws = 0;
    REQUIRE_CODE(Phase1And2Ht(g, s, lo, hi, o, &ws), 0, "", "");
    REQUIRE(ws > 0 && ws % 512 == 0);
    // element-wise: storage positions line up, so out storage k = g k if 0.5 < s k < 4.5
    std::vector<float> r = dout.get<float>();
    const float want[] = {0, 11, 12, 13, 14, 0};
    for (int k = 0; k < 6; k++) {
        REQUIRE(r[k] == want[k]);
    }
    // transposed self only, contiguous out: out[i][j] uses s storage j*2+i
    Tensor s2(ACL_FLOAT, {3, 2}, ds.ptr, {1, 3}), g2(ACL_FLOAT, {3, 2}, dg.ptr), o2(ACL_FLOAT, {3, 2}, dref.ptr);
    REQUIRE_CODE(Phase1And2Hs(g2, s2, o2, &ws), 0, "", "");
    REQUIRE(ws == 512);
    r = dref.get<float>();
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 2; j++) {
            float sv = ss[j * 3 + i], gv = gs[i * 2 + j];
            float t = sv * (1.0f / 6.0f);
            t = t + 0.5f;
            float want2 = (t > 0 && t < 1) ? gv * (1.0f / 6.0f) : 0.0f;
            REQUIRE(F2Bits(r[i * 2 + j]) == F2Bits(want2));
        }
    }
}

// Sliced, stepped, offset and zero-stride (broadcast) views; out written only at its elements.
void strided_views()
{
    Scalar lo(-100.0f), hi(100.0f);   // keep everything: out = gradOutput
    const int64_t N = 4 * 5 * 6;
    std::vector<uint16_t> gs(N), ss(N, 0);
    for (int64_t k = 0; k < N; k++) {
        gs[k] = static_cast<uint16_t>(0x3c00 + k);   // distinct fp16 values near 1
    }
    Dev dg(N * 2), ds(N * 2), dout(N * 2);
    dg.put(gs);
    ds.put(ss);
    dout.put(std::vector<uint16_t>(N, 0x7777));
    // gradOutput: [2, 3, 2] view of a 4x5x6 storage, offset 1*30+1*6+1, steps (2*30, 6, 3)
    const std::vector<int64_t> shape = {2, 3, 2};
    Tensor g(ACL_FLOAT16, shape, dg.ptr, {60, 6, 3}, 37, ACL_FORMAT_ND, N);
    // self: broadcast zero-stride over the first two dims
    Tensor s(ACL_FLOAT16, shape, ds.ptr, {0, 0, 1}, 5, ACL_FORMAT_ND, N);
    // out: reversed-order-ish strides with an offset: (1, 24, 7), offset 2
    Tensor o(ACL_FLOAT16, shape, dout.ptr, {1, 24, 7}, 2, ACL_FORMAT_ND, N);
    uint64_t ws = 0;
    REQUIRE_CODE(Phase1And2Ht(g, s, lo, hi, o, &ws), 0, "", "");
    REQUIRE(ws == 3 * 512);
    std::vector<uint16_t> r = dout.get<uint16_t>();
    std::vector<bool> written(N, false);
    for (int64_t a = 0; a < 2; a++) {
        for (int64_t b = 0; b < 3; b++) {
            for (int64_t c = 0; c < 2; c++) {
                int64_t go = 37 + a * 60 + b * 6 + c * 3, oo = 2 + a * 1 + b * 24 + c * 7;
                REQUIRE(r[oo] == gs[go]);
                written[oo] = true;
            }
        }
    }
    for (int64_t k = 0; k < N; k++) {
        REQUIRE(written[k] || r[k] == 0x7777);
    }
}

// Dims of size 1 with odd strides do not make a tensor non-contiguous.
void size1_dims_contiguous()
{
    Scalar lo(-1.0f), hi(1.0f);
    Dev dg(24), ds(24), dout(24);
    dg.put(std::vector<float>(6, 1.0f));
    ds.put(std::vector<float>(6, 0.0f));
    Tensor g(ACL_FLOAT, {1, 2, 1, 3}, dg.ptr, {99, 3, 42, 1}), s(ACL_FLOAT, {1, 2, 1, 3}, ds.ptr);
    Tensor o(ACL_FLOAT, {1, 2, 1, 3}, dout.ptr, {0, 3, 0, 1});
    uint64_t ws = 99;
    REQUIRE_CODE(Phase1And2Ht(g, s, lo, hi, o, &ws), 0, "", "");
    REQUIRE(ws == 0);
    for (float v : dout.get<float>()) {
        REQUIRE(v == 1.0f);
    }
}

// The caller may destroy every descriptor right after phase 1.
void descriptors_destroyed_early()
{
    Dev dg(16), ds(16), dout(16);
    dg.put(std::vector<float>{6, 6, 6, 6});
    ds.put(std::vector<float>{0, 1, 5, -1});
    auto *g = new Tensor(ACL_FLOAT, {2, 2}, dg.ptr, {1, 2});
    auto *s = new Tensor(ACL_FLOAT, {2, 2}, ds.ptr, {1, 2});
    auto *o = new Tensor(ACL_FLOAT, {2, 2}, dout.ptr, {1, 2});
    auto *lo = new Scalar(-0.5f), *hi = new Scalar(4.0f);
    uint64_t ws = 0;
    aclOpExecutor *exe = nullptr;
    REQUIRE_CODE(aclnnHardtanhBackwardGetWorkspaceSize(*g, *s, *lo, *hi, *o, &ws, &exe), 0, "", "");
    delete g;
    delete s;
    delete o;
    delete lo;
    delete hi;
    Dev w(ws);
    REQUIRE_CODE(aclnnHardtanhBackward(w.ptr, ws, exe, g_stream), 0, "", "");
    REQUIRE_CODE(aclrtSynchronizeStream(g_stream), 0, "", "");
    std::vector<float> r = dout.get<float>();
    REQUIRE(r[0] == 6 && r[1] == 6 && r[2] == 0 && r[3] == 0);
}

// ---------------------------------------------------------------- workspace and executors

void workspace_too_small()
{
    Dev dg(16), ds(16), dout(16);
    dg.put(std::vector<float>{1, 2, 3, 4});
    ds.put(std::vector<float>{0, 0, 0, 0});
    dout.put(std::vector<float>{9, 9, 9, 9});
    Tensor g(ACL_FLOAT, {2, 2}, dg.ptr, {1, 2}), s(ACL_FLOAT, {2, 2}, ds.ptr), o(ACL_FLOAT, {2, 2}, dout.ptr);
    Scalar lo(-1.0f), hi(1.0f);
    for (int hardtanh = 0; hardtanh < 2; hardtanh++) {
        dout.put(std::vector<float>{9, 9, 9, 9});
        uint64_t ws = 0;
        aclOpExecutor *exe = nullptr;
        int rc = hardtanh ? aclnnHardtanhBackwardGetWorkspaceSize(g, s, lo, hi, o, &ws, &exe)
                          : aclnnHardsigmoidBackwardGetWorkspaceSize(g, s, o, &ws, &exe);
        REQUIRE_CODE(rc, 0, "", "");
        REQUIRE(ws == 512);
        REQUIRE(aclSetAclOpExecutorRepeatable(exe) == 0);
        Dev w(ws);
        const char *op = hardtanh ? "aclnnHardtanhBackward" : "aclnnHardsigmoidBackward";
        REQUIRE_CODE(hardtanh ? aclnnHardtanhBackward(w.ptr, ws - 1, exe, g_stream)
                              : aclnnHardsigmoidBackward(w.ptr, ws - 1, exe, g_stream), INVALID, op, "");
        REQUIRE_CODE(hardtanh ? aclnnHardtanhBackward(nullptr, ws, exe, g_stream)
                              : aclnnHardsigmoidBackward(nullptr, ws, exe, g_stream), INVALID, op, "");
        REQUIRE_CODE(aclrtSynchronizeStream(g_stream), 0, "", "");
        REQUIRE(dout.get<float>()[0] == 9.0f);   // nothing ran
        REQUIRE_CODE(Run(hardtanh != 0, exe, w.ptr, ws), 0, "", "");
        REQUIRE(aclDestroyAclOpExecutor(exe) == 0);
    }
}

// A repeatable executor runs again and again over the same device memory.
void repeatable_runs()
{
    Dev dg(16), ds(16), dout(16);
    ds.put(std::vector<float>{0, 0, 0, 9});
    Tensor g(ACL_FLOAT, {2, 2}, dg.ptr, {1, 2}), s(ACL_FLOAT, {2, 2}, ds.ptr), o(ACL_FLOAT, {2, 2}, dout.ptr, {1, 2});
    Scalar lo(-1.0f), hi(1.0f);
    uint64_t ws = 0;
    aclOpExecutor *exe = nullptr;
    REQUIRE_CODE(aclnnHardtanhBackwardGetWorkspaceSize(g, s, lo, hi, o, &ws, &exe), 0, "", "");
    REQUIRE(aclSetAclOpExecutorRepeatable(exe) == 0);
    Dev w(ws);
    for (int run = 0; run < 3; run++) {
        float b = static_cast<float>(run * 10);
        dg.put(std::vector<float>{b + 1, b + 2, b + 3, b + 4});   // logical [[1,3],[2,4]] + b
        REQUIRE_CODE(Run(true, exe, w.ptr, ws), 0, "", "");
        std::vector<float> r = dout.get<float>();
        // self logical (row-major storage) [[0,0],[0,9]]; g and out transposed the same way
        REQUIRE(r[0] == b + 1 && r[1] == b + 2 && r[2] == b + 3 && r[3] == 0);
    }
    REQUIRE(aclDestroyAclOpExecutor(exe) == 0);
    hgLiveCounts c;
    if (hgGetLiveCounts(&c) == 0) {
        REQUIRE(c.executors == 0);
    }
}

// A one-shot executor is consumed by its run: a second run fails cleanly.
void oneshot_second_run()
{
    Dev dg(16), ds(16), dout(16);
    dg.put(std::vector<float>{1, 2, 3, 4});
    ds.put(std::vector<float>{0, 0, 0, 0});
    Tensor g(ACL_FLOAT, {4}, dg.ptr), s(ACL_FLOAT, {4}, ds.ptr), o(ACL_FLOAT, {4}, dout.ptr);
    uint64_t ws = 0;
    aclOpExecutor *exe = nullptr;
    REQUIRE_CODE(aclnnHardsigmoidBackwardGetWorkspaceSize(g, s, o, &ws, &exe), 0, "", "");
    REQUIRE_CODE(Run(false, exe, nullptr, 0), 0, "", "");
    int rc = aclnnHardsigmoidBackward(nullptr, 0, exe, g_stream);
    REQUIRE(rc != 0);
    const char *m = LastMsg();
    REQUIRE(m != nullptr && std::strstr(m, "aclnnHardsigmoidBackward") != nullptr);
    REQUIRE_CODE(aclrtSynchronizeStream(g_stream), 0, "", "");
    // an executor of the other operator is refused too
    Scalar lo(-1.0f), hi(1.0f);
    REQUIRE_CODE(aclnnHardtanhBackwardGetWorkspaceSize(g, s, lo, hi, o, &ws, &exe), 0, "", "");
    REQUIRE(aclnnHardsigmoidBackward(nullptr, 0, exe, g_stream) != 0);
    REQUIRE_CODE(Run(true, exe, nullptr, 0), 0, "", "");
    REQUIRE(aclnnHardtanhBackward(nullptr, 0, nullptr, g_stream) != 0);
}

// Phase 2 runs later, on the stream: phase 1 alone writes nothing.
void phase2_is_async_order()
{
    Dev dg(8), ds(8), dout(8);
    dg.put(std::vector<float>{5, 5});
    ds.put(std::vector<float>{0, 0});
    dout.put(std::vector<float>{7, 7});
    Tensor g(ACL_FLOAT, {2}, dg.ptr), s(ACL_FLOAT, {2}, ds.ptr), o(ACL_FLOAT, {2}, dout.ptr);
    Scalar lo(-1.0f), hi(1.0f);
    uint64_t ws = 0;
    aclOpExecutor *exe = nullptr;
    REQUIRE_CODE(aclnnHardtanhBackwardGetWorkspaceSize(g, s, lo, hi, o, &ws, &exe), 0, "", "");
    REQUIRE(dout.get<float>()[0] == 7.0f);
    REQUIRE_CODE(Run(true, exe, nullptr, 0), 0, "", "");
    REQUIRE(dout.get<float>()[0] == 5.0f);
}

struct Check {
    const char *name;
    std::function<void()> fn;
};

const std::vector<Check> &Checks()
{
    static const std::vector<Check> checks = {
        {"ht_null_gradOutput", [] { ht_null(0); }},
        {"ht_null_self", [] { ht_null(1); }},
        {"ht_null_min", [] { ht_null(2); }},
        {"ht_null_max", [] { ht_null(3); }},
        {"ht_null_out", [] { ht_null(4); }},
        {"ht_null_workspaceSize", [] { ht_null(5); }},
        {"ht_null_executor", [] { ht_null(6); }},
        {"hs_null_gradOutput", [] { hs_null(0); }},
        {"hs_null_self", [] { hs_null(1); }},
        {"hs_null_out", [] { hs_null(2); }},
        {"hs_null_workspaceSize", [] { hs_null(3); }},
        {"hs_null_executor", [] { hs_null(4); }},
        {"null_first", null_first},
        {"ht_dtype_unsupported", ht_dtype_unsupported},
        {"hs_dtype_unsupported", hs_dtype_unsupported},
        {"dtype_message", dtype_message},
        {"ht_dtype_mismatch", ht_dtype_mismatch},
        {"hs_dtype_promotion", hs_dtype_promotion},
        {"ht_dims9", ht_dims9},
        {"hs_dims9", hs_dims9},
        {"ht_shape_mismatch", ht_shape_mismatch},
        {"hs_shape_mismatch", hs_shape_mismatch},
        {"formats", formats},
        {"check_order", check_order},
        {"empty_tensors", empty_tensors},
        {"empty_huge_dims", empty_huge_dims},
        {"zero_dim", zero_dim},
        {"bf16_accepted", bf16_accepted},
        {"bf16_rejected", bf16_rejected},
        {"ht_values", ht_values},
        {"hs_values", hs_values},
        {"transposed_views", transposed_views},
        {"strided_views", strided_views},
        {"size1_dims_contiguous", size1_dims_contiguous},
        {"descriptors_destroyed_early", descriptors_destroyed_early},
        {"workspace_too_small", workspace_too_small},
        {"repeatable_runs", repeatable_runs},
        {"oneshot_second_run", oneshot_second_run},
        {"phase2_is_async_order", phase2_is_async_order},
    };
    return checks;
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        for (const Check &c : Checks()) {
            std::printf("%s\n", c.name);
        }
        return 0;
    }
    const Check *chosen = nullptr;
    for (const Check &c : Checks()) {
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
