/*
 * aclnnHardswishBackward: phase 1 checks in CANN's order (op_api/aclnn_hardswish_backward.cpp of ops-nn) with CANN's
 * codes, then the shared element-wise plan; phase 2 launches it.  self's dtype is checked before gradOutput's.
 */
#include "aclnnop/aclnn_hardswish_backward.h"
#include "opapi_common.h"

extern const hg_kernel_entry hg_hard_swish_grad_scalar[];
HG_DECLARE_SIMD_KERNELS(hg_hard_swish_grad);
static const hg_kernel_set kernels = {.scalar = hg_hard_swish_grad_scalar, HG_SIMD_KERNELS(hg_hard_swish_grad)};

#define FUNC "aclnnHardswishBackwardGetWorkspaceSize"
#define OP "aclnnHardswishBackward"

static const hg_exec_ops ops = {OP, hg_ew_run, hg_ew_destroy};

ACL_FUNC_VISIBILITY aclnnStatus aclnnHardswishBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                        aclTensor *out, uint64_t *workspaceSize,
                                                        aclOpExecutor **executor)
{
    HG_CHECK(hg_check_out_params(FUNC, workspaceSize, executor));
    HG_CHECK(hg_check_tensor(FUNC, "gradOutput", gradOutput));
    HG_CHECK(hg_check_tensor(FUNC, "self", self));
    HG_CHECK(hg_check_tensor(FUNC, "out", out));

    /* dtypes: each supported on this SoC, all three equal (no promotion) */
    aclDataType list[3];
    int n = hg_float_list(list);
    HG_CHECK(hg_check_dtype_in(FUNC, "self", self, list, n));
    HG_CHECK(hg_check_dtype_in(FUNC, "gradOutput", gradOutput, list, n));
    HG_CHECK(hg_check_same_dtype(FUNC, "gradOutput", gradOutput, "self", self));
    HG_CHECK(hg_check_same_dtype(FUNC, "out", out, "self", self));

    /* at most 8 dims, one shape */
    HG_CHECK(hg_check_ndim(FUNC, "gradOutput", gradOutput));
    HG_CHECK(hg_check_ndim(FUNC, "self", self));
    HG_CHECK(hg_check_same_shape(FUNC, "gradOutput", gradOutput, "self", self));
    HG_CHECK(hg_check_same_shape(FUNC, "out", out, "self", self));
    HG_CHECK(hg_check_format(FUNC, "gradOutput", gradOutput));
    HG_CHECK(hg_check_format(FUNC, "self", self));
    HG_CHECK(hg_check_format(FUNC, "out", out));

    const aclTensor *in[2] = {gradOutput, self};
    static const char *const names[2] = {"gradOutput", "self"};
    return hg_ew_phase1_end(FUNC, &ops, &kernels, in, names, 2, out, "out", NULL, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnHardswishBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        const aclrtStream stream)
{
    return hg_executor_launch(executor, OP, workspace, workspaceSize, stream);
}
