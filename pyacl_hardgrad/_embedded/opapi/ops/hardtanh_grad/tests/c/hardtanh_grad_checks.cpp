// Validation, view and executor rules of aclnnHardtanhBackward, in CANN's check order with CANN's codes.
// Usage: hardtanh_grad_checks <check-name>   (no argument: list the names).  Exit 0 = pass.
// PYACL_HARDGRAD_SOC (read by aclInit) selects the simulated SoC for the bf16 checks.
// The harness (Dev, Tensor, Scalar, REQUIRE_CODE, CheckMain) is tests/c/ops_check_harness.h.
#include "aclnnop/aclnn_hardtanh_backward.h"
#include "ops_check_harness.h"

namespace {

const char *HT1 = "aclnnHardtanhBackwardGetWorkspaceSize";

// Phase 2 + sync; returns the first non-zero code.
int Run(aclOpExecutor *exe, void *ws, uint64_t wsSize)
{
    return SyncAfter(aclnnHardtanhBackward(ws, wsSize, exe, g_stream));
}

// Phase 1 that must succeed, then run with a workspace of the reported size.
int Phase1And2(aclTensor *g, aclTensor *s, aclScalar *lo, aclScalar *hi, aclTensor *o, uint64_t *wsOut = nullptr)
{
    uint64_t ws = 123;
    aclOpExecutor *exe = nullptr;
    int rc = aclnnHardtanhBackwardGetWorkspaceSize(g, s, lo, hi, o, &ws, &exe);
    if (rc != 0) {
        return rc;
    }
    if (wsOut) *wsOut = ws;
    Dev w(ws ? ws : 1);
    return Run(exe, ws ? w.ptr : nullptr, ws);
}

void null(int which)
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

// A null check comes before every other check: null self with a bad gradOutput is still 161001.
void null_first()
{
    void *p = Scratch().ptr;
    Tensor bad(ACL_INT8, {2, 2, 1, 1, 1, 1, 1, 1, 1}, p), o(ACL_FLOAT, {2, 2}, p);
    Scalar lo(-1.0f), hi(1.0f);
    uint64_t ws = 0;
    aclOpExecutor *exe = nullptr;
    REQUIRE_CODE(aclnnHardtanhBackwardGetWorkspaceSize(bad, nullptr, lo, hi, o, &ws, &exe), NULLPTR, HT1, "self");
}

void dtype_unsupported()
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

// HardtanhBackward does not promote: every mixed pair and every out mismatch is 161002.
void dtype_mismatch()
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
                    REQUIRE_CODE(Run(exe, nullptr, 0), 0, "", "");
                } else if (a != b) {
                    REQUIRE_CODE(rc, INVALID, HT1, "gradOutput dtype");
                } else {
                    REQUIRE_CODE(rc, INVALID, HT1, "out dtype");
                }
            }
        }
    }
}

void dims9()
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
    REQUIRE_CODE(Phase1And2(g, s, lo, hi, o), 0, "", "");
    REQUIRE(dout.get<float>()[0] == 3.0f);
}

void shape_mismatch()
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
            REQUIRE_CODE(Phase1And2(g, s, lo, hi, o), 0, "", "");
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

void empty_tensors()
{
    Scalar lo(-1.0f), hi(1.0f);
    Dev dout(16);
    dout.put(std::vector<uint32_t>(4, 0xdeadbeefu));
    for (auto shape : {std::vector<int64_t>{0}, std::vector<int64_t>{3, 0, 2}}) {
        Tensor g(ACL_FLOAT, shape, Scratch().ptr), s(ACL_FLOAT, shape, Scratch().ptr), o(ACL_FLOAT, shape, dout.ptr);
        uint64_t ws = 99;
        REQUIRE_CODE(Phase1And2(g, s, lo, hi, o, &ws), 0, "", "");
        REQUIRE(ws == 0);
        // non-contiguous strides on an empty view still need no workspace
        Tensor gt(ACL_FLOAT16, shape, Scratch().ptr, std::vector<int64_t>(shape.size(), 7));
        Tensor st(ACL_FLOAT16, shape, Scratch().ptr), ot(ACL_FLOAT16, shape, dout.ptr, std::vector<int64_t>(shape.size(), 3));
        ws = 99;
        REQUIRE_CODE(Phase1And2(gt, st, lo, hi, ot, &ws), 0, "", "");
        REQUIRE(ws == 0);
    }
    for (uint32_t v : dout.get<uint32_t>()) {
        REQUIRE(v == 0xdeadbeefu);
    }
}

// Empty views whose other dims and strides are huge: nothing is read or written, and no
// product of dims or of a stride and a dim may overflow int64 on the way (UB; the
// UBSan run in test_<folder>_checks.py turns it into a failure).
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
            REQUIRE_CODE(Phase1And2(g, s, lo, hi, o, &ws), 0, "", "");
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
    REQUIRE_CODE(Phase1And2(g, s, lo, hi, o, &ws), 0, "", "");
    REQUIRE(ws == 0);
    REQUIRE(dout.get<float>()[0] == 6.0f);
}

void bf16_expect(bool accepted)
{
    Scalar lo(-1.0f), hi(1.0f);
    Dev dg(8), ds(8), dout(8);
    dg.put(std::vector<uint16_t>{0x3f80, 0x4000, 0x4040, 0xbf80});     // 1, 2, 3, -1
    ds.put(std::vector<uint16_t>{0x0000, 0x3f00, 0x4040, 0xbf00});     // 0, .5, 3, -.5
    Tensor g(ACL_BF16, {4}, dg.ptr), s(ACL_BF16, {4}, ds.ptr), o(ACL_BF16, {4}, dout.ptr);
    if (accepted) {
        REQUIRE_CODE(Phase1And2(g, s, lo, hi, o), 0, "", "");
        std::vector<uint16_t> r = dout.get<uint16_t>();
        REQUIRE(r[0] == 0x3f80 && r[1] == 0x4000 && r[2] == 0 && r[3] == 0xbf80);
    } else {
        uint64_t ws = 0;
        aclOpExecutor *exe = nullptr;
        REQUIRE_CODE(aclnnHardtanhBackwardGetWorkspaceSize(g, s, lo, hi, o, &ws, &exe), INVALID, HT1,
                     "gradOutput dtype DT_BF16");
        // FLOAT and FLOAT16 still work on these SoCs
        Tensor g2(ACL_FLOAT16, {4}, dg.ptr), s2(ACL_FLOAT16, {4}, ds.ptr), o2(ACL_FLOAT16, {4}, dout.ptr);
        REQUIRE_CODE(Phase1And2(g2, s2, lo, hi, o2), 0, "", "");
    }
}

// Both bounds exclusive; NaN self passes the gradient through; the output is a bit copy.
void values()
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
    REQUIRE_CODE(Phase1And2(g, s, lo, hi, o), 0, "", "");
    std::vector<uint32_t> r = dout.get<uint32_t>();
    const uint32_t want[] = {0, 0, F2Bits(3), F2Bits(4), F2Bits(5), 0, F2Bits(-7), 0x7fc01234u, 0x80000000u};
    for (size_t i = 0; i < gv.size(); i++) {
        if (r[i] != want[i]) {
            std::printf("element %zu: %08x != %08x\n", i, r[i], want[i]);
        }
        REQUIRE(r[i] == want[i]);
    }
}

// gradOutput, self and out all transposed (2x3 views over 3x2 storage): right values, workspace > 0.
void transposed_views()
{
    Scalar lo(0.5f), hi(4.5f);
    // logical [i][j] at storage j*2 + i
    std::vector<float> gs = {10, 11, 12, 13, 14, 15};   // logical g[i][j] = gs[j*2+i]
    std::vector<float> ss = {0, 1, 2, 3, 4, 5};
    Dev dg(24), ds(24), dout(24);
    dg.put(gs);
    ds.put(ss);
    dout.put(std::vector<float>(6, -1.0f));
    Tensor g(ACL_FLOAT, {2, 3}, dg.ptr, {1, 2}), s(ACL_FLOAT, {2, 3}, ds.ptr, {1, 2});
    Tensor o(ACL_FLOAT, {2, 3}, dout.ptr, {1, 2});
    uint64_t ws = 0;
    REQUIRE_CODE(Phase1And2(g, s, lo, hi, o, &ws), 0, "", "");
    REQUIRE(ws > 0 && ws % 512 == 0);
    // element-wise: storage positions line up, so out storage k = g k if 0.5 < s k < 4.5
    std::vector<float> r = dout.get<float>();
    const float want[] = {0, 11, 12, 13, 14, 0};
    for (int k = 0; k < 6; k++) {
        REQUIRE(r[k] == want[k]);
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
    REQUIRE_CODE(Phase1And2(g, s, lo, hi, o, &ws), 0, "", "");
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
    REQUIRE_CODE(Phase1And2(g, s, lo, hi, o, &ws), 0, "", "");
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

void workspace_too_small()
{
    Dev dg(16), ds(16), dout(16);
    dg.put(std::vector<float>{1, 2, 3, 4});
    ds.put(std::vector<float>{0, 0, 0, 0});
    dout.put(std::vector<float>{9, 9, 9, 9});
    Tensor g(ACL_FLOAT, {2, 2}, dg.ptr, {1, 2}), s(ACL_FLOAT, {2, 2}, ds.ptr), o(ACL_FLOAT, {2, 2}, dout.ptr);
    Scalar lo(-1.0f), hi(1.0f);
    uint64_t ws = 0;
    aclOpExecutor *exe = nullptr;
    REQUIRE_CODE(aclnnHardtanhBackwardGetWorkspaceSize(g, s, lo, hi, o, &ws, &exe), 0, "", "");
    REQUIRE(ws == 512);
    REQUIRE(aclSetAclOpExecutorRepeatable(exe) == 0);
    Dev w(ws);
    const char *op = "aclnnHardtanhBackward";
    REQUIRE_CODE(aclnnHardtanhBackward(w.ptr, ws - 1, exe, g_stream), INVALID, op, "");
    REQUIRE_CODE(aclnnHardtanhBackward(nullptr, ws, exe, g_stream), INVALID, op, "");
    REQUIRE_CODE(aclrtSynchronizeStream(g_stream), 0, "", "");
    REQUIRE(dout.get<float>()[0] == 9.0f);   // nothing ran
    REQUIRE_CODE(Run(exe, w.ptr, ws), 0, "", "");
    REQUIRE(aclDestroyAclOpExecutor(exe) == 0);
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
        REQUIRE_CODE(Run(exe, w.ptr, ws), 0, "", "");
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
    Scalar lo(-1.0f), hi(1.0f);
    REQUIRE_CODE(aclnnHardtanhBackwardGetWorkspaceSize(g, s, lo, hi, o, &ws, &exe), 0, "", "");
    REQUIRE_CODE(Run(exe, nullptr, 0), 0, "", "");
    int rc = aclnnHardtanhBackward(nullptr, 0, exe, g_stream);
    REQUIRE(rc != 0);
    const char *m = LastMsg();
    REQUIRE(m != nullptr && std::strstr(m, "aclnnHardtanhBackward") != nullptr);
    REQUIRE_CODE(aclrtSynchronizeStream(g_stream), 0, "", "");
    // a null executor is refused too (an executor of another operator: tests/test_op_executor_rules.py)
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
    REQUIRE_CODE(Run(exe, nullptr, 0), 0, "", "");
    REQUIRE(dout.get<float>()[0] == 5.0f);
}

const std::vector<Check> &Checks()
{
    static const std::vector<Check> checks = {
        {"null_gradOutput", [] { null(0); }},
        {"null_self", [] { null(1); }},
        {"null_min", [] { null(2); }},
        {"null_max", [] { null(3); }},
        {"null_out", [] { null(4); }},
        {"null_workspaceSize", [] { null(5); }},
        {"null_executor", [] { null(6); }},
        {"null_first", null_first},
        {"dtype_unsupported", dtype_unsupported},
        {"dtype_mismatch", dtype_mismatch},
        {"dims9", dims9},
        {"shape_mismatch", shape_mismatch},
        {"formats", formats},
        {"check_order", check_order},
        {"empty_tensors", empty_tensors},
        {"empty_huge_dims", empty_huge_dims},
        {"zero_dim", zero_dim},
        {"values", values},
        {"transposed_views", transposed_views},
        {"strided_views", strided_views},
        {"size1_dims_contiguous", size1_dims_contiguous},
        {"descriptors_destroyed_early", descriptors_destroyed_early},
        {"workspace_too_small", workspace_too_small},
        {"repeatable_runs", repeatable_runs},
        {"oneshot_second_run", oneshot_second_run},
        {"phase2_is_async_order", phase2_is_async_order},
        {"bf16_accepted", [] { bf16_expect(true); }},
        {"bf16_rejected", [] { bf16_expect(false); }},
    };
    return checks;
}

}  // namespace

int main(int argc, char **argv)
{
    return CheckMain(argc, argv, Checks());
}
