/*
 * aclnnHardtanhBackward: out = gradOutput where min < self < max (or self is NaN), else 0.
 * Phase 1 checks in CANN's order and copies everything into a plan; phase 2 launches it.
 */

#include "aclnnop/aclnn_hardtanh_backward.h"
#include "opapi_common.h"

extern const hg_kernel_entry hg_hardtanh_grad_scalar[];
HG_DECLARE_SIMD_KERNELS(hg_hardtanh_grad);
static const hg_kernel_set kernels = {.scalar = hg_hardtanh_grad_scalar, HG_SIMD_KERNELS(hg_hardtanh_grad)};

#define HT_FUNC "aclnnHardtanhBackwardGetWorkspaceSize"
#define HT_OP "aclnnHardtanhBackward"

static const hg_exec_ops hardtanh_ops = {HT_OP, hg_ew_run, hg_ew_destroy};

ACL_FUNC_VISIBILITY aclnnStatus aclnnHardtanhBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                                      const aclTensor *self,
                                                                      const aclScalar *min,
                                                                      const aclScalar *max, aclTensor *out,
                                                                      uint64_t *workspaceSize,
                                                                      aclOpExecutor **executor)
{
    HG_CHECK(hg_check_not_null(HT_FUNC, gradOutput, "gradOutput"));
    HG_CHECK(hg_check_not_null(HT_FUNC, self, "self"));
    HG_CHECK(hg_check_not_null(HT_FUNC, min, "min"));
    HG_CHECK(hg_check_not_null(HT_FUNC, max, "max"));
    HG_CHECK(hg_check_not_null(HT_FUNC, out, "out"));
    HG_CHECK(hg_check_not_null(HT_FUNC, workspaceSize, "workspaceSize"));
    HG_CHECK(hg_check_not_null(HT_FUNC, executor, "executor"));
    HG_CHECK(hg_check_tensor_live(HT_FUNC, "gradOutput", gradOutput));
    HG_CHECK(hg_check_tensor_live(HT_FUNC, "self", self));
    HG_CHECK(hg_check_scalar(HT_FUNC, "min", min));
    HG_CHECK(hg_check_scalar(HT_FUNC, "max", max));
    HG_CHECK(hg_check_tensor_live(HT_FUNC, "out", out));

    /* dtypes: supported, gradOutput == self (no promotion), out == gradOutput */
    HG_CHECK(hg_check_dtype(HT_FUNC, "gradOutput", gradOutput));
    HG_CHECK(hg_check_dtype(HT_FUNC, "self", self));
    HG_CHECK(hg_check_dtype(HT_FUNC, "out", out));
    if (gradOutput->dtype != self->dtype) {
        hg_set_error(HT_FUNC, "gradOutput dtype %s and self dtype %s must be equal",
                     hg_dtype_name(gradOutput->dtype), hg_dtype_name(self->dtype));
        return ACLNN_ERR_PARAM_INVALID;
    }
    if (out->dtype != gradOutput->dtype) {
        hg_set_error(HT_FUNC, "out dtype %s must equal gradOutput dtype %s", hg_dtype_name(out->dtype),
                     hg_dtype_name(gradOutput->dtype));
        return ACLNN_ERR_PARAM_INVALID;
    }

    HG_CHECK(hg_check_shapes_and_formats(HT_FUNC, gradOutput, self, out));

    float lo = 0.0f, hi = 0.0f;
    HG_CHECK(hg_scalar_to_float(min, &lo));
    HG_CHECK(hg_scalar_to_float(max, &hi));

    HG_CHECK(hg_check_data(HT_FUNC, "gradOutput", gradOutput));
    HG_CHECK(hg_check_data(HT_FUNC, "self", self));
    HG_CHECK(hg_check_data(HT_FUNC, "out", out));

    const aclTensor *in[2] = {gradOutput, self};
    hg_ew_plan *plan = hg_ew_plan_new(HT_FUNC, &kernels, in, 2, out);
    if (plan == NULL) {
        return ACLNN_ERR_INNER_NULLPTR;
    }
    plan->params.f[0] = lo;
    plan->params.f[1] = hi;
    return hg_ew_plan_finish(HT_FUNC, &hardtanh_ops, plan, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnHardtanhBackward(void *workspace, uint64_t workspaceSize,
                                                      aclOpExecutor *executor, aclrtStream stream)
{
    return hg_executor_launch(executor, HT_OP, workspace, workspaceSize, stream);
}
