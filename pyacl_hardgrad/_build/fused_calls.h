/* Fused calls: the hot paths of pyacl_hardgrad's Python layer done in one crossing of the
 * binding.  This file is both cffi's declarations and part of the module's C source;
 * fused_calls.c (appended after the function table) implements it, so every ACL call below
 * goes through the same bound pointers (embedded runtime or CANN) as a direct lib.acl... call.
 *
 * Reference counts: every Python resource (pyacl_hardgrad._lifetime._Res) keeps its count in
 * an int64_t that only these functions change, atomically.  A count of 0 means released for
 * good: retaining it fails instead of bringing it back. */
#define HGB_STEP_RETAIN 1
#define HGB_STEP_PHASE1 2
#define HGB_STEP_PHASE2 3
#define HGB_STEP_SYNC 4

#define HGB_WAIT 1   /* synchronise the stream after the launch */
#define HGB_KEEP 2   /* keep the references after a launch not waited for (the caller hands them on) */

#define HGB_OP_HARDTANH_BACKWARD 0
#define HGB_OP_HARDSIGMOID_BACKWARD 1

int hgb_ref_retain(int64_t *ref);              /* 1: retained; 0: already released */
int64_t hgb_ref_release(int64_t *ref);         /* the count after; -1: was already 0 */
/* Release up to five counts (NULLs skipped); bit i set when the i-th reached 0. */
unsigned hgb_ref_release5(int64_t *a, int64_t *b, int64_t *c, int64_t *d, int64_t *e);

/* Phase 2 of `op` on `stream`, then the wait when flags has HGB_WAIT.  info[0] gets the step
 * of the returned status. */
int hgb_run(int op, void *workspace, uint64_t workspace_size, aclOpExecutor *executor,
            aclrtStream stream, int flags, int *info);

/* One call of an operator: retain r0..r4 (NULLs skipped; all or none), phase 1, and when it
 * needs no workspace phase 2 and, with HGB_WAIT, the wait.  Returns the first failing status
 * (or, for a count that was already 0, -1) with info[0] = its step (HGB_STEP_*).
 *   - retain failed: info[2] = index of the released count; nothing held, nothing called;
 *   - phase 1 asked for a workspace: returns 0 with info[0] == HGB_STEP_PHASE1, the executor
 *     in *executor and the references held: the caller finishes the launch;
 *   - launched: with HGB_KEEP and no HGB_WAIT the references stay held; after a successful
 *     wait they are released; a failed wait keeps them (the work may still run);
 *   - any other failure releases them (a failed launch also destroys its executor).
 * info[1] = bit mask of the counts this call released to 0 (the caller frees those).
 * `info` holds 3 ints. */
int hgb_hardtanh_backward(const aclTensor *grad_output, const aclTensor *self, const aclScalar *min_val,
                          const aclScalar *max_val, aclTensor *out, aclrtStream stream, int flags,
                          int64_t *r0, int64_t *r1, int64_t *r2, int64_t *r3, int64_t *r4,
                          uint64_t *workspace_size, aclOpExecutor **executor, int *info);
int hgb_hardsigmoid_backward(const aclTensor *grad_output, const aclTensor *self, aclTensor *out,
                             aclrtStream stream, int flags, int64_t *r0, int64_t *r1, int64_t *r2,
                             uint64_t *workspace_size, aclOpExecutor **executor, int *info);
