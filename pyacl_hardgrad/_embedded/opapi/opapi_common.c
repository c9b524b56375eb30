/*
 * Argument checks, view capture, workspace planning and the shared element-wise
 * pipeline of libopapi's operators.
 */
#include "opapi_common.h"
#include "pyacl_hardgrad/embedded.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl_rt.h"
#include "hg_isa.h"

/* ------------------------------------------------------------------ SoC rules */

static int has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

const char *hg_soc_name(void)
{
    const char *soc = aclrtGetSocName();
    return soc != NULL ? soc : "Ascend910B";   /* before aclInit: the default SoC */
}

hg_soc_family hg_soc(void)
{
    const char *soc = hg_soc_name();
    if (has_prefix(soc, "Ascend910B")) {
        return HG_SOC_ASCEND910B;
    }
    if (has_prefix(soc, "Ascend910_93")) {
        return HG_SOC_ASCEND910_93;
    }
    if (has_prefix(soc, "Ascend950")) {
        return HG_SOC_ASCEND950;
    }
    if (has_prefix(soc, "Ascend310P")) {
        return HG_SOC_ASCEND310P;
    }
    if (strcmp(soc, "Ascend910") == 0 || has_prefix(soc, "Ascend910A") || has_prefix(soc, "Ascend910Pro") ||
        has_prefix(soc, "Ascend910Premium")) {
        return HG_SOC_ASCEND910;
    }
    return HG_SOC_OTHER;
}

int hg_soc_supports_bf16(void)
{
    hg_soc_family f = hg_soc();
    return f == HG_SOC_ASCEND910B || f == HG_SOC_ASCEND910_93 || f == HG_SOC_ASCEND950;
}

int hg_float_list(aclDataType *list)
{
    int n = 0;
    list[n++] = ACL_FLOAT;
    list[n++] = ACL_FLOAT16;
    if (hg_soc_supports_bf16()) {
        list[n++] = ACL_BF16;
    }
    return n;
}

int hg_float_dtype_supported(aclDataType dtype)
{
    if (dtype == ACL_FLOAT || dtype == ACL_FLOAT16) {
        return 1;
    }
    return dtype == ACL_BF16 && hg_soc_supports_bf16();
}

/* ------------------------------------------------------------------ checks */

aclnnStatus hg_check_not_null(const char *func, const void *p, const char *name)
{
    if (p == NULL) {
        hg_set_error(func, "%s must not be null", name);
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    return ACLNN_SUCCESS;
}

aclnnStatus hg_check_tensor_live(const char *func, const char *name, const aclTensor *t)
{
    if (t->magic != HG_TENSOR_MAGIC) {
        hg_set_error(func, "%s is not a live aclTensor (destroyed or not created by aclCreateTensor)", name);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

aclnnStatus hg_check_dtype(const char *func, const char *name, const aclTensor *t)
{
    if (hg_float_dtype_supported(t->dtype)) {
        return ACLNN_SUCCESS;
    }
    if (hg_soc_supports_bf16()) {
        hg_set_error(func, "%s dtype %s (%d) is not supported; expected one of DT_FLOAT, DT_FLOAT16, DT_BF16",
                     name, hg_dtype_name(t->dtype), (int)t->dtype);
    } else {
        const char *soc = aclrtGetSocName();
        hg_set_error(func, "%s dtype %s (%d) is not supported; expected one of DT_FLOAT, DT_FLOAT16 "
                     "(DT_BF16 is not supported on %s)", name, hg_dtype_name(t->dtype), (int)t->dtype,
                     soc ? soc : "this SoC");
    }
    return ACLNN_ERR_PARAM_INVALID;
}

aclnnStatus hg_check_ndim(const char *func, const char *name, const aclTensor *t)
{
    if (t->ndim > HG_MAX_DIMS) {
        hg_set_error(func, "%s has %llu dimensions; at most %d are supported", name,
                     (unsigned long long)t->ndim, HG_MAX_DIMS);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

/* "[4,2]" into buf; the tensor has at most HG_MAX_DIMS dims here. */
static const char *shape_text(const aclTensor *t, char *buf, size_t size)
{
    size_t used = 0;
    int n = snprintf(buf, size, "[");
    used = n > 0 ? (size_t)n : 0;
    for (uint64_t i = 0; i < t->ndim && used < size; i++) {
        n = snprintf(buf + used, size - used, i ? ",%lld" : "%lld", (long long)t->shape[i]);
        used += n > 0 ? (size_t)n : 0;
    }
    if (used < size) {
        snprintf(buf + used, size - used, "]");
    }
    return buf;
}

aclnnStatus hg_check_same_shape(const char *func, const char *name_a, const aclTensor *a,
                                const char *name_b, const aclTensor *b)
{
    int same = a->ndim == b->ndim;
    for (uint64_t i = 0; same && i < a->ndim; i++) {
        same = a->shape[i] == b->shape[i];
    }
    if (!same) {
        char sa[256], sb[256];
        hg_set_error(func, "%s shape %s and %s shape %s must be equal", name_a, shape_text(a, sa, sizeof sa),
                     name_b, shape_text(b, sb, sizeof sb));
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

const char *hg_format_name(aclFormat format)
{
    switch (format) {
    case ACL_FORMAT_UNDEFINED: return "UNDEFINED";
    case ACL_FORMAT_NCHW: return "NCHW";
    case ACL_FORMAT_NHWC: return "NHWC";
    case ACL_FORMAT_ND: return "ND";
    case ACL_FORMAT_NC1HWC0: return "NC1HWC0";
    case ACL_FORMAT_FRACTAL_Z: return "FRACTAL_Z";
    case ACL_FORMAT_NC1HWC0_C04: return "NC1HWC0_C04";
    case ACL_FORMAT_HWCN: return "HWCN";
    case ACL_FORMAT_NDHWC: return "NDHWC";
    case ACL_FORMAT_FRACTAL_NZ: return "FRACTAL_NZ";
    case ACL_FORMAT_NCDHW: return "NCDHW";
    case ACL_FORMAT_NDC1HWC0: return "NDC1HWC0";
    case ACL_FRACTAL_Z_3D: return "FRACTAL_Z_3D";
    case ACL_FORMAT_NC: return "NC";
    case ACL_FORMAT_NCL: return "NCL";
    case ACL_FORMAT_FRACTAL_NZ_C0_16: return "FRACTAL_NZ_C0_16";
    case ACL_FORMAT_FRACTAL_NZ_C0_32: return "FRACTAL_NZ_C0_32";
    case ACL_FORMAT_FRACTAL_NZ_C0_2: return "FRACTAL_NZ_C0_2";
    case ACL_FORMAT_FRACTAL_NZ_C0_4: return "FRACTAL_NZ_C0_4";
    case ACL_FORMAT_FRACTAL_NZ_C0_8: return "FRACTAL_NZ_C0_8";
    default: break;
    }
    return "UNKNOWN";
}

aclnnStatus hg_check_format(const char *func, const char *name, const aclTensor *t)
{
    switch (t->format) {
    case ACL_FORMAT_ND:
    case ACL_FORMAT_NCHW:
    case ACL_FORMAT_NHWC:
    case ACL_FORMAT_HWCN:
    case ACL_FORMAT_NCDHW:
    case ACL_FORMAT_NDHWC:
        return ACLNN_SUCCESS;
    default:
        break;
    }
    hg_set_error(func, "%s format %s (%d) is not supported; expected one of ND, NCHW, NHWC, HWCN, NCDHW, NDHWC",
                 name, hg_format_name(t->format), (int)t->format);
    return ACLNN_ERR_PARAM_INVALID;
}

/* The byte span [*first, *end) of t's elements; 0 when it does not fit the address space. */
static int view_span(const aclTensor *t, size_t elsize, uintptr_t *first, uintptr_t *end)
{
    int64_t lo = t->offset, hi = t->offset;
    for (uint64_t i = 0; i < (uint64_t)t->ndim; i++) {
        int64_t n = t->shape[i] - 1, s = t->strides[i], step;
        if (n <= 0 || s == 0)
            continue;
        if (__builtin_mul_overflow(n, s, &step))
            return 0;
        if (s > 0 ? __builtin_add_overflow(hi, step, &hi) : __builtin_add_overflow(lo, step, &lo))
            return 0;
    }
    int64_t blo, bend;
    if (__builtin_mul_overflow(lo, (int64_t)elsize, &blo) ||
        __builtin_mul_overflow(hi + 1, (int64_t)elsize, &bend))
        return 0;
    uintptr_t base = (uintptr_t)t->data;
    if (blo < 0 ? (uintptr_t)(-blo) > base : (uintptr_t)blo > UINTPTR_MAX - base)
        return 0;
    if ((uintptr_t)bend > UINTPTR_MAX - base)
        return 0;
    *first = base + (uintptr_t)blo;
    *end = base + (uintptr_t)bend;
    return 1;
}

aclnnStatus hg_check_data(const char *func, const char *name, const aclTensor *t)
{
    if (t->numel <= 0)
        return ACLNN_SUCCESS;
    /* every operator's phase 1 checks each of its tensors here: all of them must be memory of
     * the device the executor is planned on, so two devices in one call are refused */
    HG_CHECK(hg_check_devices(func, &t, &name, 1, NULL));
    if (t->data == NULL) {
        hg_set_error(func, "%s has %lld elements but its data address is null", name, (long long)t->numel);
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    size_t es = hg_dtype_size(t->dtype);
    if (es > 1 && (uintptr_t)t->data % es != 0) {
        hg_set_error(func, "%s's data address %p is not aligned to its %zu-byte %s elements", name, t->data, es,
                     hg_dtype_name(t->dtype));
        return ACLNN_ERR_PARAM_INVALID;
    }
    uintptr_t first, end, base;
    if (!view_span(t, es, &first, &end)) {
        hg_set_error(func, "%s's view (offset %lld, %lld elements) does not fit the address space", name,
                     (long long)t->offset, (long long)t->numel);
        return ACLNN_ERR_PARAM_INVALID;
    }
    size_t size;
    int device;
    int kind = hg_mem_find((const void *)first, &base, &size, &device);
    if (kind == HG_MEMORY_UNKNOWN) {
        hg_set_error(func, "%s's elements start at %p, which is in no live device allocation (aclrtMalloc)", name,
                     (void *)first);
        return ACLNN_ERR_PARAM_INVALID;
    }
    if (kind == HG_MEMORY_HOST) {
        hg_set_error(func, "%s's elements are in host memory (aclrtMallocHost at %p); operators need device "
                     "memory (aclrtMalloc)", name, (void *)base);
        return ACLNN_ERR_PARAM_INVALID;
    }
    if (end - base > size) {
        hg_set_error(func, "%s's elements [%p, %p) reach %llu bytes past the end of their %zu-byte device "
                     "allocation at %p", name, (void *)first, (void *)end,
                     (unsigned long long)(end - base - size), size, (void *)base);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

/* ------------------------------------------------------------------ planning */

void hg_view_capture(const aclTensor *t, hg_view *v)
{
    memset(v, 0, sizeof *v);
    v->dtype = t->dtype;
    v->elsize = hg_dtype_size(t->dtype);
    v->offset = t->offset;
    v->data = (char *)t->data;
    v->numel = t->numel;
    v->ws_offset = HG_NOT_STAGED;
    v->contiguous = 1;
    if (v->numel == 0) {
        /* Nothing is read or written: aclCreateTensor bounds neither the other dims nor
         * the strides of an empty view, so their products below could overflow int64. */
        return;
    }

    int64_t expected = 1;
    for (int i = (int)t->ndim - 1; i >= 0; i--) {
        if (t->shape[i] != 1) {
            if (t->strides[i] != expected) {
                v->contiguous = 0;
            }
            expected *= t->shape[i];
        }
    }

    /* Collapsed dims, outermost first: size-1 dims dropped, a dim merged into the
     * next inner one when they step through memory as one run. */
    int c = 0;
    for (int i = 0; i < (int)t->ndim; i++) {
        if (t->shape[i] == 1) {
            continue;
        }
        if (c > 0 && v->cstrides[c - 1] == t->strides[i] * t->shape[i]) {
            v->cshape[c - 1] *= t->shape[i];
            v->cstrides[c - 1] = t->strides[i];
        } else {
            v->cshape[c] = t->shape[i];
            v->cstrides[c] = t->strides[i];
            c++;
        }
    }
    v->cndim = c;
}

aclnnStatus hg_plan_workspace(const char *func, hg_view *const *views, int count, uint64_t *ws)
{
    uint64_t total = 0;
    const uint64_t limit = UINT64_MAX / 4;
    for (int i = 0; i < count; i++) {
        hg_view *v = views[i];
        if (v->contiguous || v->numel == 0) {
            continue;
        }
        uint64_t bytes = (uint64_t)v->numel;
        if (v->numel < 0 || v->elsize == 0 || bytes > limit / v->elsize) {
            hg_set_error(func, "workspace for a tensor of %lld elements is too large", (long long)v->numel);
            return ACLNN_ERR_PARAM_INVALID;
        }
        bytes = (bytes * v->elsize + HG_WS_ALIGN - 1) / HG_WS_ALIGN * HG_WS_ALIGN;
        if (bytes > limit - total) {
            hg_set_error(func, "workspace of the staged tensors is too large");
            return ACLNN_ERR_PARAM_INVALID;
        }
        v->ws_offset = total;
        total += bytes;
    }
    *ws = total;
    return ACLNN_SUCCESS;
}

aclnnStatus hg_check_shapes_and_formats(const char *func, const aclTensor *gradOutput, const aclTensor *self,
                                        const aclTensor *out)
{
    HG_CHECK(hg_check_ndim(func, "gradOutput", gradOutput));
    HG_CHECK(hg_check_ndim(func, "self", self));
    HG_CHECK(hg_check_ndim(func, "out", out));
    HG_CHECK(hg_check_same_shape(func, "gradOutput", gradOutput, "self", self));
    HG_CHECK(hg_check_same_shape(func, "gradOutput", gradOutput, "out", out));
    HG_CHECK(hg_check_format(func, "gradOutput", gradOutput));
    HG_CHECK(hg_check_format(func, "self", self));
    HG_CHECK(hg_check_format(func, "out", out));
    return ACLNN_SUCCESS;
}
