/* Fused calls (declarations and contract: fused_calls.h).  Appended to the cffi module's
 * source after the function table: the ACL names here are the bound pointers. */
#include <stdbool.h>

int hgb_ref_retain(int64_t *ref)
{
    int64_t n = __atomic_load_n(ref, __ATOMIC_RELAXED);
    while (n > 0) {
        if (__atomic_compare_exchange_n(ref, &n, n + 1, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
            return 1;
    }
    return 0;
}

int64_t hgb_ref_release(int64_t *ref)
{
    int64_t n = __atomic_load_n(ref, __ATOMIC_RELAXED);
    while (n > 0) {
        if (__atomic_compare_exchange_n(ref, &n, n - 1, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return n - 1;
    }
    return -1;
}

static unsigned hgb_release_refs(int64_t *const *refs, int n)
{
    unsigned dropped = 0;
    for (int i = 0; i < n; i++) {
        if (refs[i] != NULL && hgb_ref_release(refs[i]) == 0)
            dropped |= 1u << i;
    }
    return dropped;
}

unsigned hgb_ref_release5(int64_t *a, int64_t *b, int64_t *c, int64_t *d, int64_t *e)
{
    int64_t *refs[5] = {a, b, c, d, e};
    return hgb_release_refs(refs, 5);
}

/* Retain every non-NULL count, or none: -1, or the index of one already released (the
 * undone retains may release a count to 0 if its other holders let go meanwhile: *dropped). */
static int hgb_retain_refs(int64_t *const *refs, int n, unsigned *dropped)
{
    for (int i = 0; i < n; i++) {
        if (refs[i] != NULL && !hgb_ref_retain(refs[i])) {
            *dropped = hgb_release_refs(refs, i);
            return i;
        }
    }
    return -1;
}

/* The start of a one-call: hold the references; false (info filled in) when one is gone. */
static bool hgb_begin(int64_t *const *refs, int n, aclOpExecutor **executor, int *info)
{
    unsigned dropped = 0;
    info[0] = HGB_STEP_RETAIN;
    int dead = hgb_retain_refs(refs, n, &dropped);
    if (dead >= 0) {
        info[1] = (int)dropped;
        info[2] = dead;
        return false;
    }
    info[0] = HGB_STEP_PHASE1;
    *executor = NULL;
    return true;
}

int hgb_run(int op, void *workspace, uint64_t workspace_size, aclOpExecutor *executor,
            aclrtStream stream, int flags, int *info)
{
    int st;
    info[0] = HGB_STEP_PHASE2;
    if (op == HGB_OP_HARDTANH_BACKWARD)
        st = aclnnHardtanhBackward(workspace, workspace_size, executor, stream);
    else if (op == HGB_OP_HARDSIGMOID_BACKWARD)
        st = aclnnHardsigmoidBackward(workspace, workspace_size, executor, stream);
    else
        return ACL_ERROR_INVALID_PARAM;
    if (st != 0 || !(flags & HGB_WAIT))
        return st;
    info[0] = HGB_STEP_SYNC;
    return aclrtSynchronizeStream(stream);
}

/* After phase 1 returned `st`: launch (and wait) when no workspace is needed; settle the
 * references held in refs[0..n) as fused_calls.h describes. */
static int hgb_finish(int op, int st, int64_t *const *refs, int n, uint64_t *workspace_size,
                      aclOpExecutor **executor, aclrtStream stream, int flags, int *info)
{
    info[1] = 0;
    if (st != 0) {
        info[1] = (int)hgb_release_refs(refs, n);
        return st;
    }
    if (*workspace_size != 0)
        return 0; /* info[0] stays HGB_STEP_PHASE1: the caller supplies the workspace */
    aclOpExecutor *ex = *executor;
    *executor = NULL;
    st = hgb_run(op, NULL, 0, ex, stream, flags, info);
    if (st != 0 && info[0] == HGB_STEP_PHASE2) {
        (void)aclDestroyAclOpExecutor(ex); /* a launch that failed did not consume it */
        info[1] = (int)hgb_release_refs(refs, n);
    } else if (st == 0 && ((flags & HGB_WAIT) || !(flags & HGB_KEEP))) { /* waited: nothing runs */
        info[1] = (int)hgb_release_refs(refs, n);
    }
    return st;
}

int hgb_hardtanh_backward(const aclTensor *grad_output, const aclTensor *self, const aclScalar *min_val,
                          const aclScalar *max_val, aclTensor *out, aclrtStream stream, int flags,
                          int64_t *r0, int64_t *r1, int64_t *r2, int64_t *r3, int64_t *r4,
                          uint64_t *workspace_size, aclOpExecutor **executor, int *info)
{
    int64_t *refs[5] = {r0, r1, r2, r3, r4};
    if (!hgb_begin(refs, 5, executor, info))
        return -1;
    int st = aclnnHardtanhBackwardGetWorkspaceSize(grad_output, self, min_val, max_val, out, workspace_size,
                                                   executor);
    return hgb_finish(HGB_OP_HARDTANH_BACKWARD, st, refs, 5, workspace_size, executor, stream, flags, info);
}

int hgb_hardsigmoid_backward(const aclTensor *grad_output, const aclTensor *self, aclTensor *out,
                             aclrtStream stream, int flags, int64_t *r0, int64_t *r1, int64_t *r2,
                             uint64_t *workspace_size, aclOpExecutor **executor, int *info)
{
    int64_t *refs[3] = {r0, r1, r2};
    if (!hgb_begin(refs, 3, executor, info))
        return -1;
    int st = aclnnHardsigmoidBackwardGetWorkspaceSize(grad_output, self, out, workspace_size, executor);
    return hgb_finish(HGB_OP_HARDSIGMOID_BACKWARD, st, refs, 3, workspace_size, executor, stream, flags, info);
}
