/*
 * aclnnHardshrink: phase 1 checks in CANN's order (op_api/aclnn_hardshrink.cpp of ops-nn) with
 * CANN's codes, then the shared element-wise plan (Contiguous -> HardShrink -> Cast -> ViewCopy).
 */
#include <string.h>

#include "aclnnop/aclnn_hardshrink.h"
#include "opapi_common.h"

extern const hg_kernel_entry hg_hard_shrink_scalar[];
HG_DECLARE_SIMD_KERNELS(hg_hard_shrink);
static const hg_kernel_set kernels = {.scalar = hg_hard_shrink_scalar, HG_SIMD_KERNELS(hg_hard_shrink)};

#define FUNC "aclnnHardshrinkGetWorkspaceSize"
#define OP "aclnnHardshrink"

static const hg_exec_ops ops = {OP, hg_ew_run, hg_ew_destroy};

ACL_FUNC_VISIBILITY aclnnStatus aclnnHardshrinkGetWorkspaceSize(const aclTensor *self, const aclScalar *lambd,
                                                                aclTensor *out, uint64_t *workspaceSize,
                                                                aclOpExecutor **executor)
{
    HG_CHECK(hg_check_out_params(FUNC, workspaceSize, executor));
    HG_CHECK(hg_check_tensor(FUNC, "self", self));
    HG_CHECK(hg_check_scalar(FUNC, "lambd", lambd));
    HG_CHECK(hg_check_tensor(FUNC, "out", out));

    /* ASCEND910 and ASCEND310P: FLOAT, FLOAT16; every other SoC adds BF16 */
    aclDataType list[3] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
    hg_soc_family soc = hg_soc();
    int n = (soc == HG_SOC_ASCEND910 || soc == HG_SOC_ASCEND310P) ? 2 : 3;
    HG_CHECK(hg_check_dtype_in(FUNC, "self", self, list, n));
    HG_CHECK(hg_check_dtype_in(FUNC, "out", out, list, n));
    HG_CHECK(hg_check_same_shape(FUNC, "self", self, "out", out));
    HG_CHECK(hg_check_ndim(FUNC, "self", self));
    HG_CHECK(hg_check_format(FUNC, "self", self));
    HG_CHECK(hg_check_format(FUNC, "out", out));

    float l = 0.0f;
    HG_CHECK(hg_scalar_to_float(lambd, &l));   /* any scalar dtype (CANN reads it with ToFloat) */
    hg_params params;
    memset(&params, 0, sizeof params);
    params.f[0] = l < 0.0f ? 0.0f : l;         /* a negative lambd acts as 0 */
    const aclTensor *in[1] = {self};
    static const char *const names[1] = {"self"};
    return hg_ew_phase1_end(FUNC, &ops, &kernels, in, names, 1, out, "out", &params, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnHardshrink(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                aclrtStream stream)
{
    return hg_executor_launch(executor, OP, workspace, workspaceSize, stream);
}
