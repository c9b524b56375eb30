/*
 * aclnnHardsigmoid / aclnnInplaceHardsigmoid: phase 1 checks in CANN's order
 * (op_api/aclnn_hardsigmoid.cpp of ops-nn) with CANN's codes, then the shared element-wise plan;
 * the in-place form is the out-of-place one with out = self.
 */
#include "aclnnop/aclnn_hardsigmoid.h"
#include "opapi_common.h"

extern const hg_kernel_entry hg_hard_sigmoid_scalar[];
HG_DECLARE_SIMD_KERNELS(hg_hard_sigmoid);
static const hg_kernel_set kernels = {.scalar = hg_hard_sigmoid_scalar, HG_SIMD_KERNELS(hg_hard_sigmoid)};

static const hg_exec_ops ops = {"aclnnHardsigmoid", hg_ew_run, hg_ew_destroy};
static const hg_exec_ops inplace_ops = {"aclnnInplaceHardsigmoid", hg_ew_run, hg_ew_destroy};

static aclnnStatus hardsigmoid_phase1(const char *func, const hg_exec_ops *o, const aclTensor *self,
                                      const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    HG_CHECK(hg_check_out_params(func, workspaceSize, executor));
    HG_CHECK(hg_check_tensor(func, "self", self));
    HG_CHECK(hg_check_tensor(func, "out", out));

    aclDataType list[4] = {ACL_FLOAT, ACL_FLOAT16, ACL_INT32, ACL_BF16};
    int n = hg_soc_supports_bf16() ? 4 : 3;
    HG_CHECK(hg_check_dtype_in(func, "self", self, list, n));
    HG_CHECK(hg_check_ndim(func, "self", self));
    HG_CHECK(hg_check_same_shape(func, "self", self, "out", out));
    HG_CHECK(hg_check_same_dtype(func, "self", self, "out", out));
    if (self->format != out->format) {
        hg_set_error(func, "self format %s and out format %s must be equal", hg_format_name(self->format),
                     hg_format_name(out->format));
        return ACLNN_ERR_PARAM_INVALID;
    }
    HG_CHECK(hg_check_format(func, "self", self));

    const aclTensor *in[1] = {self};
    static const char *const names[1] = {"self"};
    return hg_ew_phase1_end(func, o, &kernels, in, names, 1, out, "out", NULL, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnHardsigmoidGetWorkspaceSize(const aclTensor *self, aclTensor *out,
                                                                 uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return hardsigmoid_phase1("aclnnHardsigmoidGetWorkspaceSize", &ops, self, out, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnHardsigmoid(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                 aclrtStream stream)
{
    return hg_executor_launch(executor, ops.op_name, workspace, workspaceSize, stream);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceHardsigmoidGetWorkspaceSize(const aclTensor *self,
                                                                        uint64_t *workspaceSize,
                                                                        aclOpExecutor **executor)
{
    return hardsigmoid_phase1("aclnnInplaceHardsigmoidGetWorkspaceSize", &inplace_ops, self, self, workspaceSize,
                              executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceHardsigmoid(void *workspace, uint64_t workspaceSize,
                                                        aclOpExecutor *executor, aclrtStream stream)
{
    return hg_executor_launch(executor, inplace_ops.op_name, workspace, workspaceSize, stream);
}
