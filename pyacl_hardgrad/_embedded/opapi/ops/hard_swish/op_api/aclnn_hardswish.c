/*
 * aclnnHardswish / aclnnInplaceHardswish: phase 1 checks in CANN's order
 * (op_host/op_api/aclnn_hardswish.cpp of ops-nn) with CANN's codes; no dimension limit (CANN
 * accepts 9 dims): the tensors' dims are merged to at most 8 first.  The in-place form is the
 * out-of-place one with out = self.
 */
#include <string.h>

#include "aclnnop/aclnn_hardswish.h"
#include "opapi_common.h"

extern const hg_kernel_entry hg_hard_swish_scalar[];
HG_DECLARE_SIMD_KERNELS(hg_hard_swish);
static const hg_kernel_set kernels = {.scalar = hg_hard_swish_scalar, HG_SIMD_KERNELS(hg_hard_swish)};

static const hg_exec_ops ops = {"aclnnHardswish", hg_ew_run, hg_ew_destroy};
static const hg_exec_ops inplace_ops = {"aclnnInplaceHardswish", hg_ew_run, hg_ew_destroy};

/* The SoC's list: ASCEND910B .. ASCEND910E (910B, 910_93, 950) add BF16. */
static int hardswish_dtypes(aclDataType *list)
{
    int n = hg_float_list(list);
    if (n == 2 && strncmp(hg_soc_name(), "Ascend910E", 10) == 0) {
        list[n++] = ACL_BF16;
    }
    return n;
}

static aclnnStatus hardswish_phase1(const char *func, const hg_exec_ops *o, const aclTensor *self,
                                    const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    HG_CHECK(hg_check_out_params(func, workspaceSize, executor));
    HG_CHECK(hg_check_tensor(func, "self", self));
    HG_CHECK(hg_check_tensor(func, "out", out));

    aclDataType list[3];
    int n = hardswish_dtypes(list);
    HG_CHECK(hg_check_dtype_in(func, "self", self, list, n));
    HG_CHECK(hg_check_dtype_in(func, "out", out, list, n));
    if (!hg_can_cast(self->dtype, out->dtype)) {
        hg_set_error(func, "self dtype %s cannot be cast to out dtype %s", hg_dtype_name(self->dtype),
                     hg_dtype_name(out->dtype));
        return ACLNN_ERR_PARAM_INVALID;
    }
    HG_CHECK(hg_check_same_shape(func, "self", self, "out", out));
    HG_CHECK(hg_check_format(func, "self", self));
    HG_CHECK(hg_check_format(func, "out", out));

    const aclTensor *ts[2] = {self, out};
    hg_collapsed c;
    if (!hg_collapse_same_shape(ts, 2, &c)) {
        hg_set_error(func, "self and out have %llu dimensions whose layout does not merge into %d; "
                     "more than %d are supported only where neighbouring dimensions are contiguous",
                     (unsigned long long)self->ndim, HG_MAX_DIMS, HG_MAX_DIMS);
        return ACLNN_ERR_PARAM_INVALID;
    }
    const aclTensor *in[1] = {&c.t[0]};
    static const char *const names[1] = {"self"};
    return hg_ew_phase1_end(func, o, &kernels, in, names, 1, &c.t[1], "out", NULL, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnHardswishGetWorkspaceSize(const aclTensor *self, const aclTensor *out,
                                                               uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return hardswish_phase1("aclnnHardswishGetWorkspaceSize", &ops, self, out, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnHardswish(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               aclrtStream stream)
{
    return hg_executor_launch(executor, ops.op_name, workspace, workspaceSize, stream);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceHardswishGetWorkspaceSize(const aclTensor *self,
                                                                      uint64_t *workspaceSize,
                                                                      aclOpExecutor **executor)
{
    return hardswish_phase1("aclnnInplaceHardswishGetWorkspaceSize", &inplace_ops, self, self, workspaceSize,
                            executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceHardswish(void *workspace, uint64_t workspaceSize,
                                                      aclOpExecutor *executor, aclrtStream stream)
{
    return hg_executor_launch(executor, inplace_ops.op_name, workspace, workspaceSize, stream);
}
