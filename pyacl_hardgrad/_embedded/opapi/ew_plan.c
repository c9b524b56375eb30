/*
 * The element-wise pipeline every operator's phase 2 runs (Contiguous(inputs) -> kernel ->
 * ViewCopy(out), staged in the workspace, split across the worker pool), the plan that
 * carries it from phase 1, kernel selection, and the dtype rules (promotion, casts).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "hg_isa.h"
#include "opapi_common.h"

/* ------------------------------------------------------------------ dtype rules */

static int is_float(aclDataType d)
{
    return d == ACL_FLOAT || d == ACL_FLOAT16 || d == ACL_BF16 || d == ACL_DOUBLE;
}

static int is_complex(aclDataType d)
{
    return d == ACL_COMPLEX64 || d == ACL_COMPLEX128;
}

static int is_signed_int(aclDataType d)
{
    return d == ACL_INT8 || d == ACL_INT16 || d == ACL_INT32 || d == ACL_INT64;
}

static int is_known(aclDataType d)
{
    return is_float(d) || is_complex(d) || is_signed_int(d) || d == ACL_UINT8 || d == ACL_BOOL;
}

/* Rank in the float ladder FLOAT16/BF16 < FLOAT < DOUBLE. */
static int float_rank(aclDataType d)
{
    switch (d) {
    case ACL_FLOAT16: case ACL_BF16: return 1;
    case ACL_FLOAT: return 2;
    case ACL_DOUBLE: return 3;
    default: return 0;
    }
}

aclDataType hg_promote_type(aclDataType a, aclDataType b)
{
    if (!is_known(a) || !is_known(b)) {
        return ACL_DT_UNDEFINED;
    }
    if (a == b) {
        return a;
    }
    if (a == ACL_BOOL) {
        return b;
    }
    if (b == ACL_BOOL) {
        return a;
    }
    if (is_complex(a) || is_complex(b)) {
        if (a == ACL_COMPLEX128 || b == ACL_COMPLEX128 || a == ACL_DOUBLE || b == ACL_DOUBLE) {
            return ACL_COMPLEX128;
        }
        return ACL_COMPLEX64;
    }
    if (is_float(a) && is_float(b)) {
        int ra = float_rank(a), rb = float_rank(b);
        if (ra == 1 && rb == 1) {
            return ACL_FLOAT;                 /* FLOAT16 with BF16 */
        }
        return ra > rb ? a : b;
    }
    if (is_float(a)) {
        return a;                             /* a float with an integer keeps the float */
    }
    if (is_float(b)) {
        return b;
    }
    /* integers: UINT8 with a signed one goes to the wider of INT16 and that one */
    size_t sa = hg_dtype_size(a), sb = hg_dtype_size(b);
    if (a == ACL_UINT8 || b == ACL_UINT8) {
        aclDataType other = a == ACL_UINT8 ? b : a;
        return hg_dtype_size(other) > 2 ? other : ACL_INT16;
    }
    return sa >= sb ? a : b;
}

int hg_can_cast(aclDataType from, aclDataType to)
{
    if (!is_known(from) || !is_known(to)) {
        return 0;
    }
    if (is_complex(from) && !is_complex(to)) {
        return 0;
    }
    if (is_float(from) && !is_float(to) && !is_complex(to)) {
        return 0;
    }
    if (from != ACL_BOOL && to == ACL_BOOL) {
        return 0;
    }
    return 1;
}

int hg_dtype_in(aclDataType dtype, const aclDataType *list, int n)
{
    for (int i = 0; i < n; i++) {
        if (list[i] == dtype) {
            return 1;
        }
    }
    return 0;
}

static aclnnStatus dtype_not_in(const char *func, const char *name, aclDataType dtype, const aclDataType *list,
                                int n)
{
    char names[512];
    size_t used = 0;
    names[0] = '\0';
    for (int i = 0; i < n && used < sizeof names; i++) {
        int w = snprintf(names + used, sizeof names - used, i ? ", %s" : "%s", hg_dtype_name(list[i]));
        used += w > 0 ? (size_t)w : 0;
    }
    hg_set_error(func, "%s dtype %s (%d) is not supported on %s; expected one of %s", name,
                 hg_dtype_name(dtype), (int)dtype, hg_soc_name(), names);
    return ACLNN_ERR_PARAM_INVALID;
}

aclnnStatus hg_check_dtype_in(const char *func, const char *name, const aclTensor *t, const aclDataType *list,
                              int n)
{
    return hg_dtype_in(t->dtype, list, n) ? ACLNN_SUCCESS : dtype_not_in(func, name, t->dtype, list, n);
}

aclnnStatus hg_check_scalar_dtype_in(const char *func, const char *name, const aclScalar *s,
                                     const aclDataType *list, int n)
{
    return hg_dtype_in(s->dtype, list, n) ? ACLNN_SUCCESS : dtype_not_in(func, name, s->dtype, list, n);
}

aclnnStatus hg_scalar_read(const char *func, const char *name, const aclScalar *s, hg_scalar_value *v)
{
    memset(v, 0, sizeof *v);
    v->is_int = 1;
    switch (s->dtype) {
    case ACL_INT8: { int8_t x; memcpy(&x, s->value.bytes, 1); v->i = x; break; }
    case ACL_UINT8: { uint8_t x; memcpy(&x, s->value.bytes, 1); v->i = x; break; }
    case ACL_BOOL: { uint8_t x; memcpy(&x, s->value.bytes, 1); v->i = x != 0; break; }
    case ACL_INT16: { int16_t x; memcpy(&x, s->value.bytes, 2); v->i = x; break; }
    case ACL_UINT16: { uint16_t x; memcpy(&x, s->value.bytes, 2); v->i = x; break; }
    case ACL_INT32: { int32_t x; memcpy(&x, s->value.bytes, 4); v->i = x; break; }
    case ACL_UINT32: { uint32_t x; memcpy(&x, s->value.bytes, 4); v->i = x; break; }
    case ACL_INT64: v->i = s->value.i64; break;
    case ACL_UINT64: v->i = (int64_t)s->value.u64; break;
    case ACL_DOUBLE: v->is_int = 0; v->d = s->value.f64; break;
    case ACL_FLOAT: case ACL_FLOAT16: case ACL_BF16: {
        float f = 0.0f;
        HG_CHECK(hg_scalar_to_float(s, &f));
        v->is_int = 0;
        v->d = f;
        break;
    }
    default:
        hg_set_error(func, "%s dtype %s (%d) has no numeric value", name, hg_dtype_name(s->dtype), (int)s->dtype);
        return ACLNN_ERR_PARAM_INVALID;
    }
    if (v->is_int) {
        v->d = (double)v->i;
    } else if (v->d != v->d) {
        v->i = 0;
    } else if (v->d >= 9223372036854775808.0) {
        v->i = INT64_MAX;
    } else if (v->d <= -9223372036854775808.0) {
        v->i = INT64_MIN;
    } else {
        v->i = (int64_t)v->d;
    }
    return ACLNN_SUCCESS;
}

int hg_broadcast_shape(const aclTensor *a, const aclTensor *b, int64_t *shape, int *ndim)
{
    int na = (int)a->ndim, nb = (int)b->ndim;
    int n = na > nb ? na : nb;
    if (n > HG_MAX_DIMS) {
        return 0;
    }
    for (int i = 0; i < n; i++) {
        int ia = i - (n - na), ib = i - (n - nb);
        int64_t da = ia >= 0 ? a->shape[ia] : 1, db = ib >= 0 ? b->shape[ib] : 1;
        if (da != db && da != 1 && db != 1) {
            return 0;
        }
        shape[i] = da == 1 ? db : da;
    }
    *ndim = n;
    return 1;
}

/* ------------------------------------------------------------------ common checks */

aclnnStatus hg_check_out_params(const char *func, const uint64_t *workspaceSize, aclOpExecutor *const *executor)
{
    HG_CHECK(hg_check_not_null(func, workspaceSize, "workspaceSize"));
    return hg_check_not_null(func, executor, "executor");
}

aclnnStatus hg_check_tensor(const char *func, const char *name, const aclTensor *t)
{
    HG_CHECK(hg_check_not_null(func, t, name));
    return hg_check_tensor_live(func, name, t);
}

aclnnStatus hg_check_scalar(const char *func, const char *name, const aclScalar *s)
{
    HG_CHECK(hg_check_not_null(func, s, name));
    if (s->magic != HG_SCALAR_MAGIC) {
        hg_set_error(func, "%s is not a live aclScalar (destroyed or not created by aclCreateScalar)", name);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

aclnnStatus hg_check_same_dtype(const char *func, const char *name_a, const aclTensor *a, const char *name_b,
                                const aclTensor *b)
{
    if (a->dtype != b->dtype) {
        hg_set_error(func, "%s dtype %s and %s dtype %s must be equal", name_a, hg_dtype_name(a->dtype), name_b,
                     hg_dtype_name(b->dtype));
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

aclnnStatus hg_empty_executor(const char *func, const hg_exec_ops *ops, uint64_t *workspaceSize,
                              aclOpExecutor **executor)
{
    (void)func;
    aclOpExecutor *exe = hg_executor_create(ops, NULL, 0);
    if (exe == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    hg_executor_set_cost(exe, 0);
    *workspaceSize = 0;
    *executor = exe;
    return ACLNN_SUCCESS;
}

/* ------------------------------------------------------------------ pipeline */

/* Per-element cost assumed for a kernel that was not timed, and the extra cost of each staged
 * (gathered or scattered) view, relative to the kernel's. */
#define HG_NS_PER_ELEM_UNKNOWN 0.25
#define HG_STAGE_COST 1.0
/* Chunk bounds are multiples of this many elements (whole cache lines and vectors). */
#define HG_CHUNK_ALIGN ((size_t)1024)
/* Staged tensors go gather -> kernel -> scatter per block of this many elements, so the
 * staged data is still in cache when the next step reads it. */
#define HG_STAGE_BLOCK ((size_t)8192)
/* The last-level cache size assumed where the system does not tell (sysfs, then glibc's
 * sysconf, which on some VMs reports the whole host's L3). */
#define HG_LLC_FALLBACK_BYTES ((uint64_t)32 << 20)
/* The streaming kernel starts where out is aligned to this (covers every vector width). */
#define HG_STREAM_ALIGN ((uintptr_t)64)

static pthread_once_t stream_once = PTHREAD_ONCE_INIT;
static uint64_t stream_min;
static atomic_ullong streamed_calls;  /* calls whose out was written with streaming stores */

static void stream_init(void)
{
    uint64_t llc = hg_cpu0_cache_bytes(0);
#if defined(_SC_LEVEL3_CACHE_SIZE)
    if (llc == 0) {
        long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
        llc = l3 > 0 ? (uint64_t)l3 : 0;
    }
#endif
    stream_min = (llc > 0 ? llc : HG_LLC_FALLBACK_BYTES) / 2;
    const char *env = getenv("PYACL_HARDGRAD_STREAM_MIN_BYTES");
    if (env != NULL && *env != '\0') {
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(env, &end, 10);
        if (env[0] >= '0' && env[0] <= '9' && *end == '\0' && errno == 0) {
            stream_min = (uint64_t)v;
        } else {
            fprintf(stderr, "pyacl_hardgrad: PYACL_HARDGRAD_STREAM_MIN_BYTES=\"%s\" is not a whole number of "
                    "bytes; using %llu\n", env, (unsigned long long)stream_min);
        }
    }
}

uint64_t hg_stream_min_bytes(void)
{
    pthread_once(&stream_once, stream_init);
    return stream_min;
}

uint64_t hg_streamed_calls(void)
{
    return atomic_load_explicit(&streamed_calls, memory_order_relaxed);
}

typedef struct ew_job {
    const hg_ew_plan *p;
    const void *in[HG_MAX_IN];
    void *out;
    hg_kernel_fn kernel;
    hg_kernel_fn kernel_nt;           /* set when out is written with streaming stores */
} ew_job;

/* [begin, end) with the streaming kernel from the first element whose address in out is
 * HG_STREAM_ALIGN-aligned (the plain kernel writes the elements before it; an out that is
 * not even element-aligned gets the plain kernel throughout), then a fence, so the stores
 * are visible before the range is reported done. */
static void ew_range_streaming(const ew_job *j, size_t begin, size_t end)
{
    const hg_ew_plan *p = j->p;
    size_t es = p->out.elsize;
    uintptr_t at = (uintptr_t)j->out + (uintptr_t)(begin * es);
    uintptr_t gap = (HG_STREAM_ALIGN - (at & (HG_STREAM_ALIGN - 1))) & (HG_STREAM_ALIGN - 1);
    size_t head = gap % es == 0 ? begin + gap / es : end;
    if (head > end) {
        head = end;
    }
    if (head > begin) {
        j->kernel(j->in, j->out, &p->params, begin, head);
    }
    if (head < end) {
        j->kernel_nt(j->in, j->out, &p->params, head, end);
#if defined(__x86_64__)
        _mm_sfence();
#endif
    }
}

/* Elements [begin, end) through the whole pipeline; the staging buffers are indexed by
 * the logical element, so ranges are independent of each other. */
static void ew_range(void *arg, size_t begin, size_t end)
{
    const ew_job *j = arg;
    const hg_ew_plan *p = j->p;
    if (j->kernel_nt != NULL) {
        ew_range_streaming(j, begin, end);
        return;
    }
    int staged = p->out.ws_offset != HG_NOT_STAGED;
    for (int k = 0; k < p->nin; k++) {
        staged |= p->in[k].ws_offset != HG_NOT_STAGED;
    }
    if (!staged) {
        j->kernel(j->in, j->out, &p->params, begin, end);
        return;
    }
    for (size_t b = begin; b < end; b += HG_STAGE_BLOCK) {
        size_t e = end - b > HG_STAGE_BLOCK ? b + HG_STAGE_BLOCK : end;
        for (int k = 0; k < p->nin; k++) {
            if (p->in[k].ws_offset != HG_NOT_STAGED) {
                hg_strided_gather_range(&p->in[k], (void *)j->in[k], b, e);
            }
        }
        j->kernel(j->in, j->out, &p->params, b, e);
        if (p->out.ws_offset != HG_NOT_STAGED) {
            hg_strided_scatter_range(&p->out, j->out, b, e);
        }
    }
}

/* Bytes [*lo, *hi) the view can touch. */
static void view_extent(const hg_view *v, uintptr_t *lo, uintptr_t *hi)
{
    int64_t first = v->offset, last = v->offset;
    for (int d = 0; d < v->cndim; d++) {
        int64_t span = (v->cshape[d] - 1) * v->cstrides[d];
        if (span < 0) {
            first += span;
        } else {
            last += span;
        }
    }
    *lo = (uintptr_t)v->data + (uintptr_t)(first * (int64_t)v->elsize);
    *hi = (uintptr_t)v->data + (uintptr_t)((last + 1) * (int64_t)v->elsize);
}

/* Whether two elements of the view may share an address (a broadcast out, or strides
 * that interleave): walking the dims from the smallest stride up, each stride must step
 * past everything the smaller dims reach, or the view is not one-to-one. */
static int view_may_self_overlap(const hg_view *v)
{
    int order[HG_MAX_DIMS];
    for (int d = 0; d < v->cndim; d++) {
        int k = d;
        while (k > 0 && v->cstrides[order[k - 1]] > v->cstrides[d]) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = d;
    }
    int64_t reach = 0;   /* largest element offset the dims walked so far reach */
    for (int i = 0; i < v->cndim; i++) {
        int d = order[i];
        if (v->cstrides[d] <= reach) {
            return 1;
        }
        reach += (v->cshape[d] - 1) * v->cstrides[d];
    }
    return 0;
}

/* Whether out can be written in independent ranges (threads, blocks, SIMD) while the
 * inputs are read: no two of its elements share an address, and it shares no byte with any
 * input, or it is exactly an input (in-place on the same contiguous buffer and dtype size,
 * element i reads and writes element i only).  Any other overlap keeps the whole-tensor
 * order of one thread. */
static int ew_ranges_independent(const hg_ew_plan *p)
{
    if (view_may_self_overlap(&p->out)) {
        return 0;   /* several elements write one address: only the reference order is defined */
    }
    uintptr_t olo, ohi;
    view_extent(&p->out, &olo, &ohi);
    for (int k = 0; k < p->nin; k++) {
        const hg_view *v = &p->in[k];
        uintptr_t lo, hi;
        view_extent(v, &lo, &hi);
        if (hi <= olo || ohi <= lo) {
            continue;
        }
        if (v->contiguous && p->out.contiguous && v->elsize == p->out.elsize && lo == olo && hi == ohi) {
            continue;
        }
        return 0;
    }
    return 1;
}

/* Whether out should be written with cache-bypassing stores: nothing staged (the kernel
 * writes the user's buffer directly), out overlapping no input (in place, out's lines have
 * just been read), and the tensors together larger than half the last-level cache
 * (hg_stream_min_bytes): little of the output would still be cached for its next reader
 * anyway, and the stores neither read the lines first nor push the inputs out.  (Half, not all:
 * float16 calls of 4M elements, 24 MiB against a 32 MiB L3, ran 0.83-1.00x PyTorch's time with
 * streaming stores, 1.05-1.79x without.) */
static int ew_streaming(const hg_ew_plan *p, uint64_t min_bytes)
{
    uint64_t bytes = (uint64_t)p->numel * p->out.elsize;
    for (int k = 0; k < p->nin; k++) {
        bytes += (uint64_t)p->numel * p->in[k].elsize;
    }
    if (bytes <= min_bytes || p->out.ws_offset != HG_NOT_STAGED) {
        return 0;          /* the common case, decided before any extent is computed */
    }
    uintptr_t olo, ohi;
    view_extent(&p->out, &olo, &ohi);
    for (int k = 0; k < p->nin; k++) {
        uintptr_t lo, hi;
        view_extent(&p->in[k], &lo, &hi);
        if (p->in[k].ws_offset != HG_NOT_STAGED || (lo < ohi && olo < hi)) {
            return 0;      /* staged, or in place: out's lines were just read, keep them cached */
        }
    }
    return 1;
}

void hg_ew_run(void *plan_arg, void *workspace)
{
    const hg_ew_plan *p = plan_arg;
    if (p == NULL || p->numel <= 0) {
        return;
    }
    char *ws = workspace;
    ew_job j;
    memset(&j, 0, sizeof j);
    j.p = p;
    j.kernel = p->kernel;
    for (int k = 0; k < p->nin; k++) {
        const hg_view *v = &p->in[k];
        j.in[k] = v->ws_offset == HG_NOT_STAGED ? (const void *)hg_view_base(v) : (const void *)(ws + v->ws_offset);
    }
    j.out = p->out.ws_offset == HG_NOT_STAGED ? (void *)hg_view_base(&p->out) : (void *)(ws + p->out.ws_offset);
    size_t n = (size_t)p->numel;

    if (!ew_ranges_independent(p)) {
        /* Overlapping out and inputs: the whole-tensor steps in order, portable kernel,
         * one thread, so the result is the one of the reference order. */
        for (int k = 0; k < p->nin; k++) {
            if (p->in[k].ws_offset != HG_NOT_STAGED) {
                hg_strided_gather(&p->in[k], (void *)j.in[k]);
            }
        }
        hg_kernel_fn ref = p->kernel_ref;
        if (ref == NULL) {   /* the portable kernel exists: phase 1 checked it */
            ref = hg_kernel_find(p->set->scalar, p->dtypes, p->nin, p->out.dtype)->fn;
        }
        ref(j.in, j.out, &p->params, 0, n);
        if (p->out.ws_offset != HG_NOT_STAGED) {
            hg_strided_scatter(&p->out, j.out);
        }
        return;
    }
    uint64_t stream_min_bytes = hg_stream_min_bytes();   /* read on every path: a bad setting warns anywhere */
    if (p->kernel_nt != NULL && ew_streaming(p, stream_min_bytes)) {
        j.kernel_nt = p->kernel_nt;
        atomic_fetch_add_explicit(&streamed_calls, 1, memory_order_relaxed);
    }
    /* The one-thread estimate: the kernel's measured cost, plus a kernel's worth per staged view
     * (the pool adds what moving `bytes` through memory costs beyond that). */
    double per = p->ns_per_elem > 0.0 ? p->ns_per_elem : HG_NS_PER_ELEM_UNKNOWN;
    int staged = p->out.ws_offset != HG_NOT_STAGED;
    uint64_t bytes = (uint64_t)n * p->out.elsize;
    for (int k = 0; k < p->nin; k++) {
        staged += p->in[k].ws_offset != HG_NOT_STAGED;
        bytes += (uint64_t)n * p->in[k].elsize;
    }
    hg_parallel_for(n, (double)n * per * (1.0 + HG_STAGE_COST * staged), bytes, HG_CHUNK_ALIGN, ew_range, &j);
}

/* v: the view of t read as a tensor of out's shape (t's shape broadcasts to it): missing
 * leading dims and size-1 dims of t that out extends get stride 0. */
static void view_capture_as(const aclTensor *t, const aclTensor *out, hg_view *v)
{
    if (t->ndim == out->ndim) {
        int same = 1;
        for (uint64_t d = 0; same && d < t->ndim; d++) {
            same = t->shape[d] == out->shape[d];
        }
        if (same) {
            hg_view_capture(t, v);
            return;
        }
    }
    /* A tensor descriptor of out's shape over t's data, then the usual capture. */
    int64_t shape[HG_MAX_DIMS], strides[HG_MAX_DIMS];
    int n = (int)out->ndim, lead = n - (int)t->ndim;
    for (int d = 0; d < n; d++) {
        shape[d] = out->shape[d];
        int k = d - lead;
        strides[d] = (k >= 0 && t->shape[k] == out->shape[d]) ? t->strides[k] : 0;
    }
    aclTensor tmp = *t;
    tmp.ndim = (uint64_t)n;
    tmp.shape = shape;
    tmp.strides = strides;
    tmp.numel = out->numel;
    hg_view_capture(&tmp, v);
    if (v->numel > 0 && v->contiguous && t->numel != out->numel) {
        v->contiguous = 0;   /* a broadcast view is read through the staging copy */
    }
}

hg_ew_plan *hg_ew_plan_new(const char *func, const hg_kernel_set *set, const aclTensor *const *in, int nin,
                           const aclTensor *out)
{
    aclDataType dts[HG_MAX_IN] = {ACL_DT_UNDEFINED, ACL_DT_UNDEFINED, ACL_DT_UNDEFINED};
    for (int k = 0; k < nin; k++) {
        dts[k] = in[k]->dtype;
    }
    /* The row's chosen path (timed at its first use); the portable kernel for the overlap
     * path is looked up at run time when needed (the scalar table covers every combination
     * the SIMD tables do). */
    hg_kernel_pick pick;
    if (!hg_kernel_select(func, set, dts, nin, out->dtype, &pick)) {
        hg_set_error(func, "no kernel for these dtypes (out %s)", hg_dtype_name(out->dtype));
        return NULL;
    }
    int portable = pick.isa == HG_ISA_SCALAR;
    hg_ew_plan *plan = malloc(sizeof *plan);
    if (plan == NULL) {
        hg_set_error(func, "out of host memory for the plan");
        return NULL;
    }
    plan->numel = out->numel;
    plan->nin = nin;
    for (int k = 0; k < nin; k++) {
        view_capture_as(in[k], out, &plan->in[k]);
        plan->dtypes[k] = dts[k];
    }
    hg_view_capture(out, &plan->out);
    memset(&plan->params, 0, sizeof plan->params);
    for (int k = 0; k <= HG_MAX_IN; k++) {
        plan->names[k] = NULL;            /* a plan made here has no names unless phase1_end gives them */
    }
    plan->set = set;
    plan->kernel_ref = portable ? pick.entry->fn : NULL;
    plan->kernel = pick.entry->fn;
    plan->kernel_nt = pick.fn_nt;
    plan->ns_per_elem = pick.ns_per_elem;
    plan->prof_args = HG_PROFILING() ? hg_prof_describe_tensors(in, nin, &out, 1) : NULL;
    return plan;
}

/* Checking mode: the bytes one run reads (each input's extent) and writes (out's extent and the
 * workspace it stages in). */
static int ew_access(const void *plan_arg, void *workspace, uint64_t workspace_size, hg_access *out, int cap)
{
    static const char *const in_default[HG_MAX_IN] = {"input 0", "input 1", "input 2"};
    const hg_ew_plan *p = plan_arg;
    int n = 0;
    if (p == NULL || p->numel <= 0) {
        return 0;
    }
    for (int k = 0; k <= p->nin && n < cap; k++) {
        const hg_view *v = k < p->nin ? &p->in[k] : &p->out;
        uintptr_t lo, hi;
        view_extent(v, &lo, &hi);
        const char *name = k < p->nin ? p->names[k] : p->names[HG_MAX_IN];
        out[n].anchor = v->data;
        out[n].lo = lo;
        out[n].hi = hi;
        out[n].write = k == p->nin;
        out[n].dense = (unsigned char)(v->contiguous != 0);
        out[n].what = name != NULL ? name : (k < p->nin ? in_default[k] : "out");
        n++;
    }
    if (workspace != NULL && workspace_size > 0 && n < cap) {
        out[n].anchor = workspace;
        out[n].lo = (uintptr_t)workspace;
        out[n].hi = (uintptr_t)workspace + (uintptr_t)workspace_size;
        out[n].write = 1;
        out[n].dense = 0;
        out[n].what = "workspace";
        n++;
    }
    return n;
}

aclnnStatus hg_ew_plan_finish(const char *func, const hg_exec_ops *ops, hg_ew_plan *plan,
                              uint64_t *workspaceSize, aclOpExecutor **executor)
{
    uint64_t ws = 0;
    hg_view *views[HG_MAX_IN + 1];
    int n = 0;
    for (int k = 0; k < plan->nin; k++) {
        views[n++] = &plan->in[k];
    }
    views[n++] = &plan->out;
    aclnnStatus rc = hg_plan_workspace(func, views, n, &ws);
    if (rc != ACLNN_SUCCESS) {
        hg_ew_destroy(plan);
        return rc;
    }
    uint64_t elements = (uint64_t)plan->numel;
    aclOpExecutor *exe = hg_executor_create(ops, plan, ws);   /* owns plan, also on failure */
    if (exe == NULL) {
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    }
    hg_executor_set_cost(exe, elements);
    hg_executor_set_access(exe, ew_access);
    if (plan->prof_args != NULL) {
        hg_executor_set_prof(exe, plan->prof_args);   /* the executor owns it now */
        plan->prof_args = NULL;
    }
    *workspaceSize = ws;
    *executor = exe;
    return ACLNN_SUCCESS;
}

void hg_ew_destroy(void *plan)
{
    if (plan != NULL) {
        free(((hg_ew_plan *)plan)->prof_args);
    }
    free(plan);
}

aclnnStatus hg_ew_phase1_end(const char *func, const hg_exec_ops *ops, const hg_kernel_set *set,
                             const aclTensor *const *in, const char *const *in_names, int nin, const aclTensor *out,
                             const char *out_name, const hg_params *params, uint64_t *workspaceSize,
                             aclOpExecutor **executor)
{
    for (int k = 0; k < nin; k++) {
        HG_CHECK(hg_check_data(func, in_names[k], in[k]));
    }
    HG_CHECK(hg_check_data(func, out_name, out));
    hg_ew_plan *plan = hg_ew_plan_new(func, set, in, nin, out);
    if (plan == NULL) {
        return ACLNN_ERR_INNER_NULLPTR;
    }
    if (params != NULL) {
        plan->params = *params;
    }
    for (int k = 0; k < nin && k < HG_MAX_IN; k++) {
        plan->names[k] = in_names[k];     /* the operators' names are string literals */
    }
    plan->names[HG_MAX_IN] = out_name;
    return hg_ew_plan_finish(func, ops, plan, workspaceSize, executor);
}

int hg_collapse_same_shape(const aclTensor *const *ts, int n, hg_collapsed *c)
{
    const aclTensor *t0 = ts[0];
    int nd = 0;
    if (t0->numel == 0) {
        c->shape[nd++] = 0;                  /* nothing is read or written: any strides */
        for (int k = 0; k < n; k++) {
            c->strides[k][0] = 1;
        }
    } else {
        for (uint64_t d = 0; d < t0->ndim; d++) {
            int64_t size = t0->shape[d];
            if (size == 1) {
                continue;
            }
            int merge = nd > 0;
            for (int k = 0; merge && k < n; k++) {
                merge = c->strides[k][nd - 1] == ts[k]->strides[d] * size;
            }
            if (merge) {
                c->shape[nd - 1] *= size;
                for (int k = 0; k < n; k++) {
                    c->strides[k][nd - 1] = ts[k]->strides[d];
                }
                continue;
            }
            if (nd == HG_MAX_DIMS) {
                return 0;
            }
            c->shape[nd] = size;
            for (int k = 0; k < n; k++) {
                c->strides[k][nd] = ts[k]->strides[d];
            }
            nd++;
        }
    }
    for (int k = 0; k < n; k++) {
        c->t[k] = *ts[k];
        c->t[k].ndim = (uint64_t)nd;
        c->t[k].shape = c->shape;
        c->t[k].strides = c->strides[k];
    }
    return 1;
}
