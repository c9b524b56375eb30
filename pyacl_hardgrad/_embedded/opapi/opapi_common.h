/*
 * Shared pieces of libopapi's element-wise operators: argument checks with CANN's
 * codes and messages, the captured view of a tensor, workspace planning, strided
 * staging copies and the per-dtype kernels.
 */
#ifndef PYACL_HARDGRAD_OPAPI_COMMON_H_
#define PYACL_HARDGRAD_OPAPI_COMMON_H_

#include <stddef.h>
#include <stdint.h>

#include "hg_internal.h"

#define HG_MAX_DIMS 8
#define HG_WS_ALIGN 512u
#define HG_NOT_STAGED UINT64_MAX

/* Everything phase 2 needs from a tensor, copied at phase 1 (the caller may destroy
 * the descriptor right after).  The copy loops use the collapsed form. */
typedef struct hg_view {
    aclDataType dtype;
    size_t elsize;
    int ndim;
    int64_t shape[HG_MAX_DIMS];
    int64_t strides[HG_MAX_DIMS];
    int64_t offset;
    char *data;
    int64_t numel;
    int contiguous;
    int cndim;                        /* dims left after dropping 1s and merging */
    int64_t cshape[HG_MAX_DIMS];
    int64_t cstrides[HG_MAX_DIMS];
    uint64_t ws_offset;               /* staging region, HG_NOT_STAGED if none */
} hg_view;

/* ---- checks: each returns 0 or the code, with hg_set_error(func, ...) done ---- */
int hg_soc_supports_bf16(void);
/* 1 for FLOAT, FLOAT16 and (on SoCs that have it) BF16. */
int hg_float_dtype_supported(aclDataType dtype);
/* Return from the calling function with the status when it is not ACLNN_SUCCESS. */
#define HG_CHECK(expr)                    \
    do {                                  \
        aclnnStatus rc_ = (expr);         \
        if (rc_ != ACLNN_SUCCESS) {       \
            return rc_;                   \
        }                                 \
    } while (0)

/* 161001 with "<name> must not be null" when p is NULL. */
aclnnStatus hg_check_not_null(const char *func, const void *p, const char *name);
aclnnStatus hg_check_tensor_live(const char *func, const char *name, const aclTensor *t);
aclnnStatus hg_check_dtype(const char *func, const char *name, const aclTensor *t);
aclnnStatus hg_check_ndim(const char *func, const char *name, const aclTensor *t);
aclnnStatus hg_check_same_shape(const char *func, const char *name_a, const aclTensor *a,
                                const char *name_b, const aclTensor *b);
aclnnStatus hg_check_format(const char *func, const char *name, const aclTensor *t);
/* Both operators' shape and format rules, in CANN's order: each of gradOutput, self and out
 * has at most 8 dims, all three shapes are identical, and each format is an ND-family one. */
aclnnStatus hg_check_shapes_and_formats(const char *func, const aclTensor *gradOutput, const aclTensor *self,
                                        const aclTensor *out);
aclnnStatus hg_check_data(const char *func, const char *name, const aclTensor *t);
const char *hg_format_name(aclFormat format);

/* ---- planning ---- */
/* Copy t into v (after the checks above passed). */
void hg_view_capture(const aclTensor *t, hg_view *v);
/* Give every non-contiguous view a 512-byte aligned staging region; total in *ws.
 * Returns 0 or ACLNN_ERR_PARAM_INVALID (size overflow) with the text set. */
aclnnStatus hg_plan_workspace(const char *func, hg_view *const *views, int count, uint64_t *ws);

/* ---- phase 2 helpers ---- */
/* Address of the view's first element. */
static inline char *hg_view_base(const hg_view *v)
{
    return v->data + v->offset * (int64_t)v->elsize;
}
/* Element i of the logical (row-major) order of v goes to dst[i]. */
void hg_strided_gather(const hg_view *v, void *dst);
/* src[i] goes to element i of the logical order of v. */
void hg_strided_scatter(const hg_view *v, const void *src);
/* The same for logical elements [begin, end) only: dst/src are the packed buffers of the
 * whole view (element i at index i), so disjoint ranges can run on different threads. */
void hg_strided_gather_range(const hg_view *v, void *dst, size_t begin, size_t end);
void hg_strided_scatter_range(const hg_view *v, const void *src, size_t begin, size_t end);

/* ---- worker pool (pool.c) ---- */
typedef void (*hg_range_fn)(void *ctx, size_t begin, size_t end);
/* Threads per job, caller included: PYACL_HARDGRAD_THREADS (read once), default the
 * number of online CPUs; 1 disables the pool. */
int hg_pool_size(void);
/* fn over [0, n) split into chunks whose bounds are multiples of `align` elements, run by
 * the caller and the pool's workers; returns when all are done.  n < min_parallel (or a
 * pool of 1) runs fn(ctx, 0, n) on the caller only. */
void hg_parallel_for(size_t n, size_t min_parallel, size_t align, hg_range_fn fn, void *ctx);

/* ---- kernels over a contiguous index range [begin, end) ---- */
typedef void (*hg_hardtanh_fn)(const void *grad, const void *self, void *out, float lo, float hi,
                               size_t begin, size_t end);
typedef void (*hg_hardsigmoid_fn)(const void *grad, const void *self, void *out, size_t begin, size_t end);

/* Kernel for gradOutput/self/out all of `dtype`; NULL if none. */
hg_hardtanh_fn hg_hardtanh_kernel(aclDataType dtype);
/* Kernel for the given gradOutput, self and out dtypes; NULL if none. */
hg_hardsigmoid_fn hg_hardsigmoid_kernel(aclDataType grad, aclDataType self, aclDataType out);
/* Variants of the two above whose stores bypass the caches (for tensors far larger than
 * them), or NULL where the selected path has none. */
hg_hardtanh_fn hg_hardtanh_kernel_nt(aclDataType dtype);
hg_hardsigmoid_fn hg_hardsigmoid_kernel_nt(aclDataType grad, aclDataType self, aclDataType out);
/* Promotion of gradOutput x self for HardsigmoidBackward (ACL_DT_UNDEFINED if none). */
aclDataType hg_hardsigmoid_promote(aclDataType grad, aclDataType self);

/* ---- the element-wise plan shared by both operators ---- */
typedef struct hg_ew_plan {
    int64_t numel;
    int nin;
    hg_view in[2];
    hg_view out;
    float lo, hi;                     /* HardtanhBackward's bounds */
    hg_hardtanh_fn hardtanh;          /* exactly one of the two kernels is set */
    hg_hardsigmoid_fn hardsigmoid;
} hg_ew_plan;

/* Contiguous(inputs) -> kernel -> ViewCopy(out), staging in workspace. */
/* Phase 1's common end for a two-input elementwise operator.  hg_ew_plan_new captures the
 * three views into a new plan (NULL with the text set when out of memory); the caller fills
 * in its kernel and parameters, then hg_ew_plan_finish sizes the workspace and hands the plan
 * to a new executor (it owns or frees the plan in every case). */
hg_ew_plan *hg_ew_plan_new(const char *func, const aclTensor *grad, const aclTensor *self, const aclTensor *out);
aclnnStatus hg_ew_plan_finish(const char *func, const hg_exec_ops *ops, hg_ew_plan *plan,
                              uint64_t *workspaceSize, aclOpExecutor **executor);
void hg_ew_run(void *plan, void *workspace);
void hg_ew_destroy(void *plan);

#endif /* PYACL_HARDGRAD_OPAPI_COMMON_H_ */
