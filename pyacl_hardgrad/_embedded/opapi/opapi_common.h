/*
 * The shared part of libopapi's element-wise operators (every operator lives in its own
 * folder under ops/): argument checks with CANN's codes and messages, SoC and dtype rules,
 * the captured view of a tensor, workspace planning, strided staging copies, the worker
 * pool, the generic kernel signature and the element-wise plan that runs it.
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
 * the descriptor right after), in the collapsed form only: the copy loops walk it, and it
 * covers the same elements and bytes as the tensor's own dims. */
typedef struct hg_view {
    aclDataType dtype;
    size_t elsize;
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
/* The SoC family of aclrtGetSocName() (Ascend910B when not initialised). */
typedef enum hg_soc_family {
    HG_SOC_ASCEND910 = 0,            /* Ascend910, Ascend910A, Ascend910ProA, ... (no BF16) */
    HG_SOC_ASCEND310P = 1,
    HG_SOC_ASCEND910B = 2,           /* Ascend910B*: NpuArch DAV_2201 */
    HG_SOC_ASCEND910_93 = 3,         /* Ascend910_93*: DAV_2201 */
    HG_SOC_ASCEND950 = 4,            /* Ascend950*: DAV_3510 */
    HG_SOC_OTHER = 5,                /* Ascend310B, Ascend910E, ... */
} hg_soc_family;
hg_soc_family hg_soc(void);
/* FLOAT, FLOAT16, and BF16 where hg_soc_supports_bf16 (GetDtypeSupportListV2's rule); the
 * count.  list needs room for 3. */
int hg_float_list(aclDataType *list);
const char *hg_soc_name(void);
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
/* The backward operators' shape and format rules, in CANN's order: each of gradOutput, self
 * and out has at most 8 dims, all three shapes are identical, each format is an ND-family one. */
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
 * the caller and the pool's workers that join in time; returns when all are done.  est_ns is
 * the job's one-thread time with its data in cache, `bytes` what it reads and writes: a job
 * whose estimate (hg_pool_job_ns) is below hg_pool_split_ns() (or a pool of 1, or fewer than
 * two chunks) runs fn(ctx, 0, n) on the caller only. */
void hg_parallel_for(size_t n, double est_ns, uint64_t bytes, size_t align, hg_range_fn fn, void *ctx);
/* A job's one-thread estimate: est_ns, plus, when its bytes exceed the level-1 data cache (where
 * the per-element costs are measured), the bytes times the memory cost per byte learnt from such
 * jobs of its size class run on one thread (what they took beyond est_ns; 0 until one was timed). */
double hg_pool_job_ns(double est_ns, uint64_t bytes);
uint64_t hg_pool_l1_bytes(void);              /* CPU 0's level-1 data cache */
/* The memory cost learnt for size class c (calls of more than l1 bytes with floor(bytes / l1)
 * in [2^c, 2^(c + 1)), the last class unbounded; 0: none yet, or c out of range). */
#define HG_POOL_MEM_CLASSES 16
double hg_pool_memory_ns_per_byte(int size_class);
/* The size of CPU 0's largest data (or unified) cache of `level` that Linux describes (sysfs),
 * of any level for 0; 0 when unknown. */
uint64_t hg_cpu0_cache_bytes(int level);
/* The one-thread time from which a job is split (HUGE_VAL with a pool of 1). */
double hg_pool_split_ns(void);
/* The measured hand-off (moving average of the delay until the first worker joins a job). */
double hg_pool_handoff_ns(void);
/* The elements from which a kernel of this cost per element is split (INT64_MAX: never). */
int64_t hg_split_min_elements(double ns_per_elem, double bytes_per_elem);

/* ---- the generic kernel: inputs, output, parameters, range ---- */
#define HG_MAX_IN 3

/* An operator's parameters, filled at phase 1 (what each slot means is the operator's). */
typedef struct hg_params {
    float f[4];
    double d[2];
    int64_t i[2];
    uint64_t u[2];
} hg_params;

/* Elements [begin, end) of the contiguous buffers in[k] -> out (so a range can go to any
 * thread); in[k] and out point at element 0 of the whole tensor. */
typedef void (*hg_kernel_fn)(const void *const *in, void *out, const hg_params *p, size_t begin, size_t end);

/* One row of an operator's kernel table; a table ends with a row whose fn is NULL. */
typedef struct hg_kernel_entry {
    aclDataType in[HG_MAX_IN];       /* ACL_DT_UNDEFINED past the operator's inputs */
    aclDataType out;
    hg_kernel_fn fn;
} hg_kernel_entry;

/* An operator's kernels per path; NULL where the operator has none (the scalar table must
 * cover every dtype combination phase 1 accepts).  avx2_nt / avx512_nt: the same source
 * compiled with streaming stores (hg_simd.h), row for row the twins of avx2 / avx512. */
typedef struct hg_kernel_set {
    const hg_kernel_entry *scalar;
    const hg_kernel_entry *avx2;
    const hg_kernel_entry *avx512;
    const hg_kernel_entry *neon;
    const hg_kernel_entry *avx2_nt;
    const hg_kernel_entry *avx512_nt;
} hg_kernel_set;

/* The tables an operator's op_kernel/<name>_simd.c defines (compiled per SIMD path of the
 * machine as <pfx>_avx2 / _avx512 / _neon, and on x86_64 with streaming stores as
 * <pfx>_avx2_nt / _avx512_nt): a kernel set's SIMD members. */
#if defined(__x86_64__)
#define HG_DECLARE_SIMD_KERNELS(pfx) \
    extern const hg_kernel_entry pfx##_avx2[], pfx##_avx512[], pfx##_avx2_nt[], pfx##_avx512_nt[]
#define HG_SIMD_KERNELS(pfx) \
    .avx2 = pfx##_avx2, .avx512 = pfx##_avx512, .avx2_nt = pfx##_avx2_nt, .avx512_nt = pfx##_avx512_nt
#elif defined(__aarch64__)
#define HG_DECLARE_SIMD_KERNELS(pfx) extern const hg_kernel_entry pfx##_neon[]
#define HG_SIMD_KERNELS(pfx) .neon = pfx##_neon
#else
#define HG_DECLARE_SIMD_KERNELS(pfx) extern const hg_kernel_entry pfx##_unused_simd[]
#define HG_SIMD_KERNELS(pfx) .scalar = NULL
#endif

/* ---- dtype rules ---- */
/* CANN's PromoteType table over the dtypes the operators know (ACL_DT_UNDEFINED when the
 * pair has no promotion). */
aclDataType hg_promote_type(aclDataType a, aclDataType b);
/* CANN's CanCast(from, to): every numeric dtype casts to any other except a float or
 * complex one to an integral or bool dtype (and complex to a real one). */
int hg_can_cast(aclDataType from, aclDataType to);
/* Whether dtype is in the list (n entries). */
int hg_dtype_in(aclDataType dtype, const aclDataType *list, int n);
/* 161002 "<name> dtype X (d) is not supported; expected one of ..." unless dtype is in the list. */
aclnnStatus hg_check_dtype_in(const char *func, const char *name, const aclTensor *t, const aclDataType *list,
                              int n);
/* Shapes of a and b broadcast (numpy rules) into shape/ndim; 0 when they do not. */
int hg_broadcast_shape(const aclTensor *a, const aclTensor *b, int64_t *shape, int *ndim);

/* ---- the element-wise plan shared by every operator ---- */
typedef struct hg_ew_plan {
    int64_t numel;
    int nin;
    hg_view in[HG_MAX_IN];
    hg_view out;
    hg_params params;
    hg_kernel_fn kernel;              /* the selected path's kernel */
    hg_kernel_fn kernel_nt;           /* its streaming-store variant, or NULL */
    hg_kernel_fn kernel_ref;          /* the portable kernel (overlapping out and inputs), or NULL */
    const hg_kernel_set *set;         /* where kernel_ref is found when still NULL */
    aclDataType dtypes[HG_MAX_IN];
    double ns_per_elem;               /* the kernel's measured cost (hg_kernel_select), 0 unknown */
    const char *names[HG_MAX_IN + 1]; /* the operator's names of in[0..nin) and out (checking mode's
                                       * findings): static strings, NULL where not given */
    char *prof_args;                  /* profiling: the tensors described (hg_prof_describe_tensors), handed to
                                       * the executor by hg_ew_plan_finish; NULL when profiling was off */
} hg_ew_plan;

/* Contiguous(inputs) -> kernel -> ViewCopy(out), staging in workspace.
 * Phase 1's common end: hg_ew_plan_new captures the views (inputs broadcast to out's shape)
 * into a new plan and selects the kernel of set for the dtypes (NULL with the text set when
 * out of memory or no kernel exists); the caller fills in the parameters, then
 * hg_ew_plan_finish sizes the workspace and hands the plan to a new executor (it owns or
 * frees the plan in every case). */
hg_ew_plan *hg_ew_plan_new(const char *func, const hg_kernel_set *set, const aclTensor *const *in, int nin,
                           const aclTensor *out);
aclnnStatus hg_ew_plan_finish(const char *func, const hg_exec_ops *ops, hg_ew_plan *plan,
                              uint64_t *workspaceSize, aclOpExecutor **executor);
/* The whole end of an element-wise phase 1: data addresses checked, plan made with params,
 * workspace sized, executor handed out. */
aclnnStatus hg_ew_phase1_end(const char *func, const hg_exec_ops *ops, const hg_kernel_set *set,
                             const aclTensor *const *in, const char *const *in_names, int nin, const aclTensor *out,
                             const char *out_name, const hg_params *params, uint64_t *workspaceSize,
                             aclOpExecutor **executor);
/* hg_exec_ops' run and destroy for an hg_ew_plan. */
void hg_ew_run(void *plan, void *workspace);
void hg_ew_destroy(void *plan);
/* Tensors of one element-wise call (all together) larger than this many bytes have their
 * output written with streaming stores where the kernel path has them: half the last-level
 * cache, or PYACL_HARDGRAD_STREAM_MIN_BYTES (read once). */
uint64_t hg_stream_min_bytes(void);
/* How many calls so far wrote their output with streaming stores. */
uint64_t hg_streamed_calls(void);

/* Tensors of one shape with any number of dims, as tensors of at most HG_MAX_DIMS dims over
 * the same elements in the same logical order (size-1 dims dropped, neighbouring dims merged
 * where every tensor steps through them as one run); c->t[k] stands for ts[k] (descriptor
 * copies, valid while c lives).  0 when more than HG_MAX_DIMS dims remain. */
typedef struct hg_collapsed {
    aclTensor t[HG_MAX_IN + 1];
    int64_t shape[HG_MAX_DIMS];
    int64_t strides[HG_MAX_IN + 1][HG_MAX_DIMS];
} hg_collapsed;
int hg_collapse_same_shape(const aclTensor *const *ts, int n, hg_collapsed *c);

/* The common start of phase 1: workspaceSize and executor not NULL (161001). */
aclnnStatus hg_check_out_params(const char *func, const uint64_t *workspaceSize, aclOpExecutor *const *executor);
/* Tensor present and live: 161001 when NULL, 161002 when not a live aclTensor. */
aclnnStatus hg_check_tensor(const char *func, const char *name, const aclTensor *t);
aclnnStatus hg_check_scalar(const char *func, const char *name, const aclScalar *s);
/* A scalar's value read as CANN's ToDouble / ToInt64 do: is_int for integral and BOOL dtypes
 * (i exact, d = (double)i), else d exact and i = d toward zero (saturating, NaN -> 0). */
typedef struct hg_scalar_value {
    int is_int;
    double d;
    int64_t i;
} hg_scalar_value;
aclnnStatus hg_scalar_read(const char *func, const char *name, const aclScalar *s, hg_scalar_value *v);
/* 161002 "<name> dtype X (d) is not supported ..." unless the scalar's dtype is in the list. */
aclnnStatus hg_check_scalar_dtype_in(const char *func, const char *name, const aclScalar *s,
                                     const aclDataType *list, int n);
/* 161002 unless a and b have one dtype. */
aclnnStatus hg_check_same_dtype(const char *func, const char *name_a, const aclTensor *a, const char *name_b,
                                const aclTensor *b);
/* Empty tensor: success with workspace 0 and an executor that does nothing. */
aclnnStatus hg_empty_executor(const char *func, const hg_exec_ops *ops, uint64_t *workspaceSize,
                              aclOpExecutor **executor);

#endif /* PYACL_HARDGRAD_OPAPI_COMMON_H_ */
