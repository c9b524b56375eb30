/*
 * aclnnHardsigmoidBackward: out = gradOutput / 6 where 0 < self / 6 + 1/2 < 1, else 0,
 * computed in fp32, rounded to the promoted dtype, then cast to out's dtype.
 */
#include <stdlib.h>

#include "aclnnop/aclnn_hardsigmoid_backward.h"
#include "opapi_common.h"

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
    aclDataType promoted = hg_hardsigmoid_promote(gradOutput->dtype, self->dtype);
    if (!hg_float_dtype_supported(out->dtype)) {
        hg_set_error(HS_FUNC, "promoted dtype %s of gradOutput and self cannot be cast to out dtype %s (%d); "
                     "out must be one of DT_FLOAT, DT_FLOAT16%s", hg_dtype_name(promoted),
                     hg_dtype_name(out->dtype), (int)out->dtype, hg_soc_supports_bf16() ? ", DT_BF16" : "");
        return ACLNN_ERR_PARAM_INVALID;
    }

    /* shapes: at most 8 dims, all identical */
    HG_CHECK(hg_check_ndim(HS_FUNC, "gradOutput", gradOutput));
    HG_CHECK(hg_check_ndim(HS_FUNC, "self", self));
    HG_CHECK(hg_check_ndim(HS_FUNC, "out", out));
    HG_CHECK(hg_check_same_shape(HS_FUNC, "gradOutput", gradOutput, "self", self));
    HG_CHECK(hg_check_same_shape(HS_FUNC, "gradOutput", gradOutput, "out", out));

    HG_CHECK(hg_check_format(HS_FUNC, "gradOutput", gradOutput));
    HG_CHECK(hg_check_format(HS_FUNC, "self", self));
    HG_CHECK(hg_check_format(HS_FUNC, "out", out));

    HG_CHECK(hg_check_data(HS_FUNC, "gradOutput", gradOutput));
    HG_CHECK(hg_check_data(HS_FUNC, "self", self));
    HG_CHECK(hg_check_data(HS_FUNC, "out", out));

    hg_ew_plan *plan = calloc(1, sizeof *plan);
    if (plan == NULL) {
        hg_set_error(HS_FUNC, "out of host memory for the plan");
        return ACLNN_ERR_INNER_NULLPTR;
    }
    plan->numel = gradOutput->numel;
    plan->nin = 2;
    hg_view_capture(gradOutput, &plan->in[0]);
    hg_view_capture(self, &plan->in[1]);
    hg_view_capture(out, &plan->out);
    plan->hardsigmoid = hg_hardsigmoid_kernel(gradOutput->dtype, self->dtype, out->dtype);

    uint64_t ws = 0;
    hg_view *views[3] = {&plan->in[0], &plan->in[1], &plan->out};
    aclnnStatus rc = hg_plan_workspace(HS_FUNC, views, 3, &ws);
    if (rc != ACLNN_SUCCESS) {
        free(plan);
        return rc;
    }
    aclOpExecutor *exe = hg_executor_create(&hardsigmoid_ops, plan, ws);
    if (exe == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    *workspaceSize = ws;
    *executor = exe;
    return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnHardsigmoidBackward(void *workspace, uint64_t workspaceSize,
                                                         aclOpExecutor *executor, aclrtStream stream)
{
    return hg_executor_launch(executor, HS_OP, workspace, workspaceSize, stream);
}
