/*
 * aclnnHardtanhBackward: out = gradOutput where min < self < max (or self is NaN), else 0.
 * Phase 1 checks in CANN's order and copies everything into a plan; phase 2 launches it.
 */
#include <stdlib.h>

#include "aclnnop/aclnn_hardtanh_backward.h"
#include "opapi_common.h"

#define HT_FUNC "aclnnHardtanhBackwardGetWorkspaceSize"
#define HT_OP "aclnnHardtanhBackward"

static const hg_exec_ops hardtanh_ops = {HT_OP, hg_ew_run, hg_ew_destroy};

#define CHECK(expr)                       \
    do {                                  \
        aclnnStatus rc_ = (expr);         \
        if (rc_ != ACLNN_SUCCESS) {       \
            return rc_;                   \
        }                                 \
    } while (0)

static aclnnStatus check_null(const void *p, const char *name)
{
    if (p == NULL) {
        hg_set_error(HT_FUNC, "%s must not be null", name);
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_scalar(const aclScalar *s, const char *name)
{
    if (s->magic != HG_SCALAR_MAGIC) {
        hg_set_error(HT_FUNC, "%s is not a live aclScalar (destroyed or not created by aclCreateScalar)", name);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnHardtanhBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                                      const aclTensor *self,
                                                                      const aclScalar *min,
                                                                      const aclScalar *max, aclTensor *out,
                                                                      uint64_t *workspaceSize,
                                                                      aclOpExecutor **executor)
{
    CHECK(check_null(gradOutput, "gradOutput"));
    CHECK(check_null(self, "self"));
    CHECK(check_null(min, "min"));
    CHECK(check_null(max, "max"));
    CHECK(check_null(out, "out"));
    CHECK(check_null(workspaceSize, "workspaceSize"));
    CHECK(check_null(executor, "executor"));
    CHECK(hg_check_tensor_live(HT_FUNC, "gradOutput", gradOutput));
    CHECK(hg_check_tensor_live(HT_FUNC, "self", self));
    CHECK(check_scalar(min, "min"));
    CHECK(check_scalar(max, "max"));
    CHECK(hg_check_tensor_live(HT_FUNC, "out", out));

    /* dtypes: supported, gradOutput == self (no promotion), out == gradOutput */
    CHECK(hg_check_dtype(HT_FUNC, "gradOutput", gradOutput));
    CHECK(hg_check_dtype(HT_FUNC, "self", self));
    CHECK(hg_check_dtype(HT_FUNC, "out", out));
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

    /* shapes: at most 8 dims, all identical */
    CHECK(hg_check_ndim(HT_FUNC, "gradOutput", gradOutput));
    CHECK(hg_check_ndim(HT_FUNC, "self", self));
    CHECK(hg_check_ndim(HT_FUNC, "out", out));
    CHECK(hg_check_same_shape(HT_FUNC, "gradOutput", gradOutput, "self", self));
    CHECK(hg_check_same_shape(HT_FUNC, "gradOutput", gradOutput, "out", out));

    CHECK(hg_check_format(HT_FUNC, "gradOutput", gradOutput));
    CHECK(hg_check_format(HT_FUNC, "self", self));
    CHECK(hg_check_format(HT_FUNC, "out", out));

    float lo = 0.0f, hi = 0.0f;
    CHECK(hg_scalar_to_float(min, &lo));
    CHECK(hg_scalar_to_float(max, &hi));

    CHECK(hg_check_data(HT_FUNC, "gradOutput", gradOutput));
    CHECK(hg_check_data(HT_FUNC, "self", self));
    CHECK(hg_check_data(HT_FUNC, "out", out));

    hg_ew_plan *plan = calloc(1, sizeof *plan);
    if (plan == NULL) {
        hg_set_error(HT_FUNC, "out of host memory for the plan");
        return ACLNN_ERR_INNER_NULLPTR;
    }
    plan->numel = gradOutput->numel;
    plan->nin = 2;
    hg_view_capture(gradOutput, &plan->in[0]);
    hg_view_capture(self, &plan->in[1]);
    hg_view_capture(out, &plan->out);
    plan->lo = lo;
    plan->hi = hi;
    plan->hardtanh = hg_hardtanh_kernel(gradOutput->dtype);

    uint64_t ws = 0;
    hg_view *views[3] = {&plan->in[0], &plan->in[1], &plan->out};
    aclnnStatus rc = hg_plan_workspace(HT_FUNC, views, 3, &ws);
    if (rc != ACLNN_SUCCESS) {
        free(plan);
        return rc;
    }
    aclOpExecutor *exe = hg_executor_create(&hardtanh_ops, plan, ws);
    if (exe == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    *workspaceSize = ws;
    *executor = exe;
    return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnHardtanhBackward(void *workspace, uint64_t workspaceSize,
                                                      aclOpExecutor *executor, aclrtStream stream)
{
    return hg_executor_launch(executor, HT_OP, workspace, workspaceSize, stream);
}
