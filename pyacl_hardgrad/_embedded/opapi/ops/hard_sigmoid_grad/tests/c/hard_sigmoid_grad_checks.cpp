// Validation, view and executor rules of aclnnHardsigmoidBackward, in CANN's check order with CANN's codes.
// Usage: hard_sigmoid_grad_checks <check-name>   (no argument: list the names).  Exit 0 = pass.
// PYACL_HARDGRAD_SOC (read by aclInit) selects the simulated SoC for the bf16 checks.
// The harness (Dev, Tensor, Scalar, REQUIRE_CODE, CheckMain) is tests/c/ops_check_harness.h.
#include "aclnnop/aclnn_hardsigmoid_backward.h"
#include "ops_check_harness.h"

namespace {

const char *HS1 = "aclnnHardsigmoidBackwardGetWorkspaceSize";

// Phase 2 + sync; returns the first non-zero code.
int Run(aclOpExecutor *exe, void *ws, uint64_t wsSize)
{
    return SyncAfter(aclnnHardsigmoidBackward(ws, wsSize, exe, g_stream));
}

int Phase1And2(aclTensor *g, aclTensor *s, aclTensor *o, uint64_t *wsOut = nullptr)
{
    uint64_t ws = 123;
    aclOpExecutor *exe = nullptr;
    int rc = aclnnHardsigmoidBackwardGetWorkspaceSize(g, s, o, &ws, &exe);
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
    uint64_t ws = 0;
    aclOpExecutor *exe = nullptr;
    REQUIRE_CODE(aclnnHardsigmoidBackwardGetWorkspaceSize(bad, nullptr, o, &ws, &exe), NULLPTR, HS1, "self");
}

void dtype_unsupported()
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

// HardsigmoidBackward promotes the inputs; any float out is accepted.
void dtype_promotion()
{
    const aclDataType fl[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
    for (aclDataType a : fl) {
        for (aclDataType b : fl) {
            for (aclDataType c : fl) {
                Dev dg(16), ds(16), dout(16);
                dg.put(std::vector<uint8_t>(16, 0));
                ds.put(std::vector<uint8_t>(16, 0));
                Tensor g(a, {2, 2}, dg.ptr), s(b, {2, 2}, ds.ptr), o(c, {2, 2}, dout.ptr);
                REQUIRE_CODE(Phase1And2(g, s, o), 0, "", "");
            }
        }
    }
}

void dims9()
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

void shape_mismatch()
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
    Dev dg(64), ds(64), dout(64);
    dg.put(std::vector<uint8_t>(64, 0));
    ds.put(std::vector<uint8_t>(64, 0));
    std::vector<int64_t> shape = {1, 2, 2, 2};
    for (aclFormat f : ok) {
        for (int pos = 0; pos < 3; pos++) {
            Tensor g(ACL_FLOAT, shape, dg.ptr, {}, 0, pos == 0 ? f : ACL_FORMAT_ND);
            Tensor s(ACL_FLOAT, shape, ds.ptr, {}, 0, pos == 1 ? f : ACL_FORMAT_ND);
            Tensor o(ACL_FLOAT, shape, dout.ptr, {}, 0, pos == 2 ? f : ACL_FORMAT_ND);
            REQUIRE_CODE(Phase1And2(g, s, o), 0, "", "");
        }
    }
    const char *names[] = {"gradOutput", "self", "out"};
    for (int pos = 0; pos < 3; pos++) {
        Tensor g(ACL_FLOAT, shape, dg.ptr, {}, 0, pos == 0 ? ACL_FORMAT_NC1HWC0 : ACL_FORMAT_ND);
        Tensor s(ACL_FLOAT, shape, ds.ptr, {}, 0, pos == 1 ? ACL_FORMAT_NC1HWC0 : ACL_FORMAT_ND);
        Tensor o(ACL_FLOAT, shape, dout.ptr, {}, 0, pos == 2 ? ACL_FORMAT_NC1HWC0 : ACL_FORMAT_ND);
        uint64_t ws = 0;
        aclOpExecutor *exe = nullptr;
        REQUIRE_CODE(aclnnHardsigmoidBackwardGetWorkspaceSize(g, s, o, &ws, &exe), INVALID, HS1, names[pos]);
    }
}

// Check order: dtype before dims before shape before format.
void check_order()
{
    void *p = Scratch().ptr;
    uint64_t ws = 0;
    aclOpExecutor *exe = nullptr;
    std::vector<int64_t> d9(9, 1);
    {
        Tensor g(ACL_FLOAT, d9, p, {}, 0, ACL_FORMAT_NC1HWC0), s(ACL_INT32, {3}, p), o(ACL_FLOAT, {2}, p);
        REQUIRE_CODE(aclnnHardsigmoidBackwardGetWorkspaceSize(g, s, o, &ws, &exe), INVALID, HS1, "self dtype");
    }
}

void empty_tensors()
{
    Dev dout(16);
    dout.put(std::vector<uint32_t>(4, 0xdeadbeefu));
    for (auto shape : {std::vector<int64_t>{0}, std::vector<int64_t>{3, 0, 2}}) {
        Tensor g(ACL_FLOAT, shape, Scratch().ptr), s(ACL_FLOAT, shape, Scratch().ptr), o(ACL_FLOAT, shape, dout.ptr);
        uint64_t ws = 99;
        REQUIRE_CODE(Phase1And2(g, s, o, &ws), 0, "", "");
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
            REQUIRE_CODE(Phase1And2(g, s, o, &ws), 0, "", "");
            REQUIRE(ws == 0);
        }
    }
    for (uint32_t v : dout.get<uint32_t>()) {
        REQUIRE(v == 0xdeadbeefu);
    }
}

void zero_dim()
{
    Dev dg(4), ds(4), dout(4);
    dg.put(std::vector<float>{6.0f});
    ds.put(std::vector<float>{0.25f});
    Tensor g(ACL_FLOAT, {}, dg.ptr), s(ACL_FLOAT, {}, ds.ptr), o(ACL_FLOAT, {}, dout.ptr);
    uint64_t ws = 99;
    REQUIRE_CODE(Phase1And2(g, s, o, &ws), 0, "", "");
    REQUIRE(ws == 0);
    REQUIRE(dout.get<float>()[0] == 6.0f * (1.0f / 6.0f));
}

void bf16_expect(bool accepted)
{
    Dev dg(8), ds(8), dout(8);
    dg.put(std::vector<uint16_t>{0x3f80, 0x4000, 0x4040, 0xbf80});     // 1, 2, 3, -1
    ds.put(std::vector<uint16_t>{0x0000, 0x3f00, 0x4040, 0xbf00});     // 0, .5, 3, -.5
    Tensor g(ACL_BF16, {4}, dg.ptr), s(ACL_BF16, {4}, ds.ptr), o(ACL_BF16, {4}, dout.ptr);
    Tensor gf(ACL_FLOAT16, {2}, dg.ptr), sf(ACL_FLOAT16, {2}, ds.ptr), of(ACL_BF16, {2}, dout.ptr);
    if (accepted) {
        REQUIRE_CODE(Phase1And2(g, s, o), 0, "", "");
        REQUIRE_CODE(Phase1And2(gf, sf, of), 0, "", "");
    } else {
        uint64_t ws = 0;
        aclOpExecutor *exe = nullptr;
        REQUIRE_CODE(aclnnHardsigmoidBackwardGetWorkspaceSize(g, s, o, &ws, &exe), INVALID, HS1,
                     "gradOutput dtype DT_BF16");
        // fp16 inputs with a bf16 out: the promoted fp16 cannot be cast to an unsupported out
        REQUIRE_CODE(aclnnHardsigmoidBackwardGetWorkspaceSize(gf, sf, of, &ws, &exe), INVALID, HS1, "out");
        // FLOAT and FLOAT16 still work on these SoCs
        Tensor g2(ACL_FLOAT16, {4}, dg.ptr), s2(ACL_FLOAT16, {4}, ds.ptr), o2(ACL_FLOAT16, {4}, dout.ptr);
        REQUIRE_CODE(Phase1And2(g2, s2, o2), 0, "", "");
    }
}

void values()
{
    // self: t = self/6 + .5 must lie strictly inside (0, 1): self in (-3, 3)
    std::vector<float> gv = {6, 6, 6, 6, 6, 12, 3};
    std::vector<float> sv = {-3.0f, 3.0f, -2.999f, 2.999f, std::nanf(""), 0.0f, 1.0f};
    Dev dg(gv.size() * 4), ds(sv.size() * 4), dout(sv.size() * 4);
    dg.put(gv);
    ds.put(sv);
    int64_t n = static_cast<int64_t>(gv.size());
    Tensor g(ACL_FLOAT, {n}, dg.ptr), s(ACL_FLOAT, {n}, ds.ptr), o(ACL_FLOAT, {n}, dout.ptr);
    REQUIRE_CODE(Phase1And2(g, s, o), 0, "", "");
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
    REQUIRE_CODE(Phase1And2(g16, s16, o16), 0, "", "");
    std::vector<uint16_t> r16 = ho.get<uint16_t>();
    REQUIRE(r16[0] == 0x3155 && r16[1] == 0);
    // bf16: 1/6 = 0x3e2aaaab -> ties-away/nearest 0x3e2b
    hg.put(std::vector<uint16_t>{0x3f80, 0x3f80});
    hs.put(std::vector<uint16_t>{0x0000, 0x4040});
    Tensor gb(ACL_BF16, {2}, hg.ptr), sb(ACL_BF16, {2}, hs.ptr), ob(ACL_BF16, {2}, ho.ptr);
    REQUIRE_CODE(Phase1And2(gb, sb, ob), 0, "", "");
    r16 = ho.get<uint16_t>();
    REQUIRE(r16[0] == 0x3e2b && r16[1] == 0);
}

// A transposed self with contiguous gradOutput and out: right values, one 512-byte workspace block.
void transposed_views()
{
    std::vector<float> gs = {10, 11, 12, 13, 14, 15};
    std::vector<float> ss = {0, 1, 2, 3, 4, 5};
    Dev dg(24), ds(24), dref(24);
    dg.put(gs);
    ds.put(ss);
    uint64_t ws = 0;
    // transposed self only, contiguous out: out[i][j] uses s storage j*2+i
    Tensor s2(ACL_FLOAT, {3, 2}, ds.ptr, {1, 3}), g2(ACL_FLOAT, {3, 2}, dg.ptr), o2(ACL_FLOAT, {3, 2}, dref.ptr);
    REQUIRE_CODE(Phase1And2(g2, s2, o2, &ws), 0, "", "");
    REQUIRE(ws == 512);
    std::vector<float> r = dref.get<float>();
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

void workspace_too_small()
{
    Dev dg(16), ds(16), dout(16);
    dg.put(std::vector<float>{1, 2, 3, 4});
    ds.put(std::vector<float>{0, 0, 0, 0});
    dout.put(std::vector<float>{9, 9, 9, 9});
    Tensor g(ACL_FLOAT, {2, 2}, dg.ptr, {1, 2}), s(ACL_FLOAT, {2, 2}, ds.ptr), o(ACL_FLOAT, {2, 2}, dout.ptr);
    uint64_t ws = 0;
    aclOpExecutor *exe = nullptr;
    REQUIRE_CODE(aclnnHardsigmoidBackwardGetWorkspaceSize(g, s, o, &ws, &exe), 0, "", "");
    REQUIRE(ws == 512);
    REQUIRE(aclSetAclOpExecutorRepeatable(exe) == 0);
    Dev w(ws);
    const char *op = "aclnnHardsigmoidBackward";
    REQUIRE_CODE(aclnnHardsigmoidBackward(w.ptr, ws - 1, exe, g_stream), INVALID, op, "");
    REQUIRE_CODE(aclnnHardsigmoidBackward(nullptr, ws, exe, g_stream), INVALID, op, "");
    REQUIRE_CODE(aclrtSynchronizeStream(g_stream), 0, "", "");
    REQUIRE(dout.get<float>()[0] == 9.0f);   // nothing ran
    REQUIRE_CODE(Run(exe, w.ptr, ws), 0, "", "");
    REQUIRE(aclDestroyAclOpExecutor(exe) == 0);
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
    REQUIRE_CODE(Run(exe, nullptr, 0), 0, "", "");
    int rc = aclnnHardsigmoidBackward(nullptr, 0, exe, g_stream);
    REQUIRE(rc != 0);
    const char *m = LastMsg();
    REQUIRE(m != nullptr && std::strstr(m, "aclnnHardsigmoidBackward") != nullptr);
    REQUIRE_CODE(aclrtSynchronizeStream(g_stream), 0, "", "");
    // a null executor is refused too (an executor of another operator: tests/test_op_executor_rules.py)
    REQUIRE(aclnnHardsigmoidBackward(nullptr, 0, nullptr, g_stream) != 0);
}

const std::vector<Check> &Checks()
{
    static const std::vector<Check> checks = {
        {"null_gradOutput", [] { null(0); }},
        {"null_self", [] { null(1); }},
        {"null_out", [] { null(2); }},
        {"null_workspaceSize", [] { null(3); }},
        {"null_executor", [] { null(4); }},
        {"null_first", null_first},
        {"dtype_unsupported", dtype_unsupported},
        {"dtype_message", dtype_message},
        {"dtype_promotion", dtype_promotion},
        {"dims9", dims9},
        {"shape_mismatch", shape_mismatch},
        {"formats", formats},
        {"check_order", check_order},
        {"empty_tensors", empty_tensors},
        {"empty_huge_dims", empty_huge_dims},
        {"zero_dim", zero_dim},
        {"values", values},
        {"transposed_views", transposed_views},
        {"workspace_too_small", workspace_too_small},
        {"oneshot_second_run", oneshot_second_run},
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
