/*
 * aclnnHardshrinkBackward: phase 1 checks in CANN's order (op_api/aclnn_hardshrink_backward.cpp
 * of ops-nn) with CANN's codes; gradOutput and self broadcast to gradInput's shape, are computed
 * in their promoted dtype and cast to gradInput's; phase 2 launches the plan.
 */
#include <string.h>

#include "aclnnop/aclnn_hardshrink_backward.h"
#include "convert.h"
#include "opapi_common.h"

extern const hg_kernel_entry hg_hard_shrink_grad_scalar[];
HG_DECLARE_SIMD_KERNELS(hg_hard_shrink_grad);
static const hg_kernel_set kernels = {.scalar = hg_hard_shrink_grad_scalar, HG_SIMD_KERNELS(hg_hard_shrink_grad)};

#define FUNC "aclnnHardshrinkBackwardGetWorkspaceSize"
#define OP "aclnnHardshrinkBackward"

static const hg_exec_ops ops = {OP, hg_ew_run, hg_ew_destroy};

ACL_FUNC_VISIBILITY aclnnStatus aclnnHardshrinkBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                                        const aclTensor *self,
                                                                        const aclScalar *lambd, aclTensor *gradInput,
                                                                        uint64_t *workspaceSize,
                                                                        aclOpExecutor **executor)
{
    HG_CHECK(hg_check_out_params(FUNC, workspaceSize, executor));
    HG_CHECK(hg_check_tensor(FUNC, "gradOutput", gradOutput));
    HG_CHECK(hg_check_tensor(FUNC, "self", self));
    HG_CHECK(hg_check_scalar(FUNC, "lambd", lambd));
    HG_CHECK(hg_check_tensor(FUNC, "gradInput", gradInput));

    aclDataType list[3];
    int n = hg_float_list(list);
    HG_CHECK(hg_check_dtype_in(FUNC, "gradOutput", gradOutput, list, n));
    HG_CHECK(hg_check_dtype_in(FUNC, "self", self, list, n));
    HG_CHECK(hg_check_dtype_in(FUNC, "gradInput", gradInput, list, n));
    HG_CHECK(hg_check_ndim(FUNC, "gradOutput", gradOutput));
    HG_CHECK(hg_check_ndim(FUNC, "self", self));
    HG_CHECK(hg_check_ndim(FUNC, "gradInput", gradInput));

    aclDataType promoted = hg_promote_type(gradOutput->dtype, self->dtype);
    if (promoted == ACL_DT_UNDEFINED || !hg_dtype_in(promoted, list, n) || !hg_can_cast(promoted, gradInput->dtype)) {
        hg_set_error(FUNC, "the promoted dtype %s of gradOutput (%s) and self (%s) is not supported or cannot be "
                     "cast to gradInput dtype %s", hg_dtype_name(promoted), hg_dtype_name(gradOutput->dtype),
                     hg_dtype_name(self->dtype), hg_dtype_name(gradInput->dtype));
        return ACLNN_ERR_PARAM_INVALID;
    }
    if (gradOutput->numel == 0 || self->numel == 0) {
        return hg_empty_executor(FUNC, &ops, workspaceSize, executor);
    }

    int64_t shape[HG_MAX_DIMS];
    int nd = 0;
    if (!hg_broadcast_shape(gradOutput, self, shape, &nd)) {
        hg_set_error(FUNC, "gradOutput and self shapes cannot broadcast to one shape");
        return ACLNN_ERR_PARAM_INVALID;
    }
    int same = (uint64_t)nd == gradInput->ndim;
    for (int d = 0; same && d < nd; d++) {
        same = shape[d] == gradInput->shape[d];
    }
    if (!same) {
        hg_set_error(FUNC, "gradInput's shape must equal the broadcast shape of gradOutput and self");
        return ACLNN_ERR_PARAM_INVALID;
    }
    HG_CHECK(hg_check_format(FUNC, "gradOutput", gradOutput));
    HG_CHECK(hg_check_format(FUNC, "self", self));
    HG_CHECK(hg_check_format(FUNC, "gradInput", gradInput));

    float l = 0.0f;
    HG_CHECK(hg_scalar_to_float(lambd, &l));   /* any scalar dtype (CANN reads it with ToFloat) */
    if (l < 0.0f) {
        l = 0.0f;                              /* a negative lambd acts as 0 */
    }
    hg_params params;
    memset(&params, 0, sizeof params);
    params.f[0] = l;
    params.f[1] = hg_f16_to_f32(hg_f32_to_f16(l));   /* fp16 compares against lambd as half */
    const aclTensor *in[2] = {gradOutput, self};
    static const char *const names[2] = {"gradOutput", "self"};
    return hg_ew_phase1_end(FUNC, &ops, &kernels, in, names, 2, gradInput, "gradInput", &params, workspaceSize,
                            executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnHardshrinkBackward(void *workspace, uint64_t workspaceSize,
                                                        aclOpExecutor *executor, aclrtStream stream)
{
    return hg_executor_launch(executor, OP, workspace, workspaceSize, stream);
}
