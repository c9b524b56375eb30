/*
 * aclnnHardsigmoidBackward: out = gradOutput / 6 where 0 < self / 6 + 1/2 < 1, else 0,
 * computed in fp32, rounded to the promoted dtype, then cast to out's dtype.
 */

#include "aclnnop/aclnn_hardsigmoid_backward.h"
#include "opapi_common.h"

extern const hg_kernel_entry hg_hard_sigmoid_grad_scalar[];
HG_DECLARE_SIMD_KERNELS(hg_hard_sigmoid_grad);
static const hg_kernel_set kernels = {.scalar = hg_hard_sigmoid_grad_scalar, HG_SIMD_KERNELS(hg_hard_sigmoid_grad)};

#define HS_FUNC "aclnnHardsigmoidBackwardGetWorkspaceSize"
#define HS_OP "aclnnHardsigmoidBackward"

static const hg_exec_ops hardsigmoid_ops = {HS_OP, hg_ew_run, hg_ew_destroy};

ACL_FUNC_VISIBILITY aclnnStatus aclnnHardsigmoidBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                                         const aclTensor *self, aclTensor *out,
                                                                         uint64_t *workspaceSize,
                                                                         aclOpExecutor **executor)
{
    HG_CHECK(hg_check_not_null(HS_FUNC, gradOutput, "gradOutput"));
    HG_CHECK(hg_check_not_null(HS_FUNC, self, "self"));
    HG_CHECK(hg_check_not_null(HS_FUNC, out, "out"));
    HG_CHECK(hg_check_not_null(HS_FUNC, workspaceSize, "workspaceSize"));
    HG_CHECK(hg_check_not_null(HS_FUNC, executor, "executor"));
    HG_CHECK(hg_check_tensor_live(HS_FUNC, "gradOutput", gradOutput));
    HG_CHECK(hg_check_tensor_live(HS_FUNC, "self", self));
    HG_CHECK(hg_check_tensor_live(HS_FUNC, "out", out));

    /* dtypes: inputs supported, their promotion castable to out (a supported float) */
    HG_CHECK(hg_check_dtype(HS_FUNC, "gradOutput", gradOutput));
    HG_CHECK(hg_check_dtype(HS_FUNC, "self", self));
    aclDataType promoted = hg_promote_type(gradOutput->dtype, self->dtype);
    if (!hg_float_dtype_supported(out->dtype)) {
        hg_set_error(HS_FUNC, "promoted dtype %s of gradOutput and self cannot be cast to out dtype %s (%d); "
                     "out must be one of DT_FLOAT, DT_FLOAT16%s", hg_dtype_name(promoted),
                     hg_dtype_name(out->dtype), (int)out->dtype, hg_soc_supports_bf16() ? ", DT_BF16" : "");
        return ACLNN_ERR_PARAM_INVALID;
    }

    HG_CHECK(hg_check_shapes_and_formats(HS_FUNC, gradOutput, self, out));

    HG_CHECK(hg_check_data(HS_FUNC, "gradOutput", gradOutput));
    HG_CHECK(hg_check_data(HS_FUNC, "self", self));
    HG_CHECK(hg_check_data(HS_FUNC, "out", out));

    const aclTensor *in[2] = {gradOutput, self};
    hg_ew_plan *plan = hg_ew_plan_new(HS_FUNC, &kernels, in, 2, out);
    if (plan == NULL) {
        return ACLNN_ERR_INNER_NULLPTR;
    }
    return hg_ew_plan_finish(HS_FUNC, &hardsigmoid_ops, plan, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnHardsigmoidBackward(void *workspace, uint64_t workspaceSize,
                                                         aclOpExecutor *executor, aclrtStream stream)
{
    return hg_executor_launch(executor, HS_OP, workspace, workspaceSize, stream);
}
