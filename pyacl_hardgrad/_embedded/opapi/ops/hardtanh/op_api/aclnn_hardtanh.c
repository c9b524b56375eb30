/*
 * aclnnHardtanh / aclnnInplaceHardtanh: phase 1 checks in CANN's order (ops-math
 * conversion/clip_by_value_v2 op_api/aclnn_hardtanh.cpp) with CANN's codes, the bounds
 * converted to self's dtype, then the shared element-wise plan; the in-place form is the
 * out-of-place one with out = selfRef.  CANN checks neither workspaceSize nor executor for
 * NULL; they are checked last here (161001) so that a NULL is never written through.
 */
#include <math.h>
#include <string.h>

#include "aclnnop/aclnn_hardtanh.h"
#include "convert.h"
#include "opapi_common.h"

extern const hg_kernel_entry hg_hardtanh_scalar[];
HG_DECLARE_SIMD_KERNELS(hg_hardtanh);
static const hg_kernel_set kernels = {.scalar = hg_hardtanh_scalar, HG_SIMD_KERNELS(hg_hardtanh)};

static const hg_exec_ops ops = {"aclnnHardtanh", hg_ew_run, hg_ew_destroy};
static const hg_exec_ops inplace_ops = {"aclnnInplaceHardtanh", hg_ew_run, hg_ew_destroy};

/* FLOAT16, FLOAT, INT32, INT64, INT16, INT8, UINT8, DOUBLE, and BF16 on A2/A3/950; the list
 * applies to the two scalars too. */
static int hardtanh_dtypes(aclDataType *list)
{
    static const aclDataType base[] = {ACL_FLOAT16, ACL_FLOAT, ACL_INT32, ACL_INT64, ACL_INT16,
                                       ACL_INT8,    ACL_UINT8, ACL_DOUBLE};
    int n = 0;
    for (size_t k = 0; k < sizeof base / sizeof base[0]; k++) {
        list[n++] = base[k];
    }
    if (hg_soc_supports_bf16()) {
        list[n++] = ACL_BF16;
    }
    return n;
}

/* A bound as a value of an integer dtype (C's conversion, modulo 2^bits for the narrow ones). */
static int64_t to_int_dtype(aclDataType dt, int64_t v)
{
    switch (dt) {
    case ACL_INT8: return (int8_t)(uint8_t)(uint64_t)v;
    case ACL_UINT8: return (uint8_t)(uint64_t)v;
    case ACL_INT16: return (int16_t)(uint16_t)(uint64_t)v;
    case ACL_INT32: return (int32_t)(uint32_t)(uint64_t)v;
    default: return v;
    }
}

/* A bound as a value of a float dtype, kept as fp32 (fp16 / bf16 rounded to nearest even). */
static float to_float_dtype(aclDataType dt, double v)
{
    float f = (float)v;
    if (dt == ACL_FLOAT16) {
        return hg_f16_to_f32(hg_f32_to_f16(f));
    }
    if (dt == ACL_BF16) {
        return hg_bf16_to_f32(hg_f32_to_bf16_rne(f));
    }
    return f;
}

static aclnnStatus hardtanh_phase1(const char *func, const hg_exec_ops *o, const aclTensor *self,
                                   const aclScalar *lo, const aclScalar *hi, const aclTensor *out,
                                   uint64_t *workspaceSize, aclOpExecutor **executor)
{
    HG_CHECK(hg_check_tensor(func, "self", self));
    HG_CHECK(hg_check_scalar(func, "clipValueMin", lo));
    HG_CHECK(hg_check_scalar(func, "clipValueMax", hi));
    HG_CHECK(hg_check_tensor(func, "out", out));

    aclDataType list[9];
    int n = hardtanh_dtypes(list);
    HG_CHECK(hg_check_dtype_in(func, "self", self, list, n));
    HG_CHECK(hg_check_scalar_dtype_in(func, "clipValueMin", lo, list, n));
    HG_CHECK(hg_check_scalar_dtype_in(func, "clipValueMax", hi, list, n));
    HG_CHECK(hg_check_same_dtype(func, "self", self, "out", out));
    HG_CHECK(hg_check_ndim(func, "self", self));
    HG_CHECK(hg_check_same_shape(func, "self", self, "out", out));

    hg_scalar_value vlo, vhi;
    HG_CHECK(hg_scalar_read(func, "clipValueMin", lo, &vlo));
    HG_CHECK(hg_scalar_read(func, "clipValueMax", hi, &vhi));
    /* min > max: compared as int64 when min's dtype is integral, as double otherwise */
    if (vlo.is_int ? vlo.i > vhi.i : vlo.d > vhi.d) {
        hg_set_error(func, "clipValueMin %g must not be greater than clipValueMax %g", vlo.d, vhi.d);
        return ACLNN_ERR_PARAM_INVALID;
    }
    HG_CHECK(hg_check_format(func, "self", self));
    HG_CHECK(hg_check_format(func, "out", out));
    HG_CHECK(hg_check_out_params(func, workspaceSize, executor));

    hg_params p;
    memset(&p, 0, sizeof p);
    aclDataType dt = self->dtype;
    if (dt == ACL_DOUBLE) {
        p.d[0] = vlo.d;
        p.d[1] = vhi.d;
        if (isnan(vlo.d) || isnan(vhi.d)) {
            p.u[0] = 1;
            p.d[0] = isnan(vlo.d) ? vlo.d : vhi.d;
        }
    } else if (dt == ACL_FLOAT || dt == ACL_FLOAT16 || dt == ACL_BF16) {
        p.f[0] = to_float_dtype(dt, vlo.d);
        p.f[1] = to_float_dtype(dt, vhi.d);
        if (isnan(p.f[0]) || isnan(p.f[1])) {
            p.u[0] = 1;
            p.f[2] = isnan(p.f[0]) ? p.f[0] : p.f[1];
        }
    } else {
        p.i[0] = to_int_dtype(dt, vlo.i);
        p.i[1] = to_int_dtype(dt, vhi.i);
    }
    const aclTensor *in[1] = {self};
    static const char *const names[1] = {"self"};
    return hg_ew_phase1_end(func, o, &kernels, in, names, 1, out, "out", &p, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnHardtanhGetWorkspaceSize(const aclTensor *self, const aclScalar *clipValueMin,
                                                              const aclScalar *clipValueMax, aclTensor *out,
                                                              uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return hardtanh_phase1("aclnnHardtanhGetWorkspaceSize", &ops, self, clipValueMin, clipValueMax, out,
                           workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnHardtanh(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                              aclrtStream stream)
{
    return hg_executor_launch(executor, ops.op_name, workspace, workspaceSize, stream);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceHardtanhGetWorkspaceSize(aclTensor *selfRef,
                                                                     const aclScalar *clipValueMin,
                                                                     const aclScalar *clipValueMax,
                                                                     uint64_t *workspaceSize,
                                                                     aclOpExecutor **executor)
{
    return hardtanh_phase1("aclnnInplaceHardtanhGetWorkspaceSize", &inplace_ops, selfRef, clipValueMin,
                           clipValueMax, selfRef, workspaceSize, executor);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceHardtanh(void *workspace, uint64_t workspaceSize,
                                                     aclOpExecutor *executor, aclrtStream stream)
{
    return hg_executor_launch(executor, inplace_ops.op_name, workspace, workspaceSize, stream);
}
