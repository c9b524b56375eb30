/*
 * aclOpExecutor: what phase 1 of an operator hands to phase 2.
 *
 * Life cycle
 *  - hg_executor_create registers the executor (registry = set of live handles, so
 *    phase 2 and the destroy call can reject a stale pointer without reading it) and
 *    holds one "owner" reference.
 *  - Every launch takes one more reference for its queued run; the run drops it after
 *    ops->run returns.  Whoever drops the last reference calls ops->destroy(plan)
 *    (exactly once, also for a NULL plan) and frees the executor.
 *  - One-shot (default): the launch removes the executor from the registry at once,
 *    so a second launch or a destroy fails with ACLNN_ERR_PARAM_INVALID, and hands the
 *    owner reference to the run: the executor is freed when its run has finished.
 *    If hg_stream_submit fails the executor is put back unconsumed and the caller may
 *    retry (or destroy it).
 *  - Repeatable (aclSetAclOpExecutorRepeatable before the first launch): stays
 *    registered; runs any number of times; aclDestroyAclOpExecutor unregisters it and
 *    drops the owner reference, so runs still queued finish on valid memory.
 *  - aclDestroyAclOpExecutor on a one-shot executor that never ran frees it.
 *  - NULL passed to aclDestroyAclOpExecutor returns 0 (CANN's lenient destroy).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "hg_internal.h"
#include "nb_private.h"

/* One queued run: which executor, with which workspace. */
typedef struct nb_run_record {
    aclOpExecutor *executor;
    void *workspace;
    bool on_heap;
} nb_run_record;

struct aclOpExecutor {
    uint32_t magic;
    hg_exec_ops ops;            /* copied: the operator's table may be a temporary */
    void *plan;
    uint64_t workspace_size;
    bool repeatable;            /* guarded by nb_executors.mu */
    bool launched;              /* guarded by nb_executors.mu */
    int device;                 /* current device when phase 1 planned it, -1 if none */
    hg_rebind_fn rebind;        /* NULL: the plan cannot take new tensor addresses */
    uint64_t cost;              /* elements one run touches (HG_COST_UNKNOWN: not told) */
    hg_access_fn access;        /* checking mode: the ranges one run touches, NULL: not told */
    char *prof_args;            /* profiling: the tensors' description (hg_executor_set_prof), or NULL */
    atomic_long refs;
    /* Record reused by launches so the hot path needs no malloc; a launch that finds it
     * busy (a repeatable executor queued several times) allocates one instead. */
    atomic_flag record_busy;
    nb_run_record record;
};

static const char *const kNotLive = "executor has already run (not repeatable) or was destroyed";

/* Checking mode: one-shot executors that were launched (their addresses, guarded by
 * nb_executors.mu), so launching one again is told apart from an unknown pointer.  Direct-mapped by
 * address: each operation is O(1); a later executor whose address maps to the same slot pushes an
 * older one out (its reuse then reads as an unknown executor, as without checking). */
#define NB_RAN_KEEP 1024
static const void *nb_ran[NB_RAN_KEEP];

static size_t nb_ran_slot(const void *ex)
{
    uint64_t h = (uint64_t)(uintptr_t)ex * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 54);   /* the top 10 bits: 0 .. NB_RAN_KEEP - 1 */
}

static bool nb_ran_before(const void *ex)
{
    return nb_ran[nb_ran_slot(ex)] == ex;
}

static void nb_executor_unref(aclOpExecutor *ex)
{
    if (atomic_fetch_sub_explicit(&ex->refs, 1, memory_order_acq_rel) != 1)
        return;
    if (ex->ops.destroy)
        ex->ops.destroy(ex->plan);
    ex->magic = 0;
    free(ex->prof_args);
    free(ex);
    hg_count_add(HG_COUNT_EXECUTOR, -1);
}

aclOpExecutor *hg_executor_create(const hg_exec_ops *ops, void *plan, uint64_t workspace_size)
{
    const char *func = (ops && ops->op_name) ? ops->op_name : "hg_executor_create";
    if (ops == NULL || ops->op_name == NULL || ops->run == NULL) {
        if (ops && ops->destroy)
            ops->destroy(plan);
        hg_set_error(func, "internal error: executor created without %s",
                     ops == NULL ? "an operation table" : (ops->op_name == NULL ? "an operator name" : "a run function"));
        return NULL;
    }
    aclOpExecutor *ex = calloc(1, sizeof *ex);
    if (ex == NULL) {
        if (ops->destroy)
            ops->destroy(plan);
        hg_set_error(func, "out of memory creating the executor");
        return NULL;
    }
    ex->magic = HG_EXECUTOR_MAGIC;
    ex->ops = *ops;
    ex->plan = plan;
    ex->workspace_size = workspace_size;
    ex->device = hg_current_device();
    ex->cost = HG_COST_UNKNOWN;
    atomic_init(&ex->refs, 1);
    atomic_flag_clear(&ex->record_busy);

    nb_lock(&nb_executors);
    int rc = nb_ptrset_insert(&nb_executors.set, ex);
    if (HG_CHECKING() && nb_ran_before(ex))
        nb_ran[nb_ran_slot(ex)] = NULL; /* a new executor at the address of one that ran */
    nb_unlock(&nb_executors);
    if (rc != 0) {
        if (ops->destroy)
            ops->destroy(plan);
        free(ex);
        hg_set_error(func, "out of memory registering the executor");
        return NULL;
    }
    hg_count_add(HG_COUNT_EXECUTOR, +1);
    if (HG_CHECKING())
        hg_check_object(HG_OBJ_EXECUTOR, ex, 1, func, ops->op_name);
    HG_LOG(HG_LOG_OP, HG_LOG_DEBUG, func, "phase 1 done: executor %p, workspace %" PRIu64 " bytes", (void *)ex,
           workspace_size);
    return ex;
}

void hg_executor_set_access(aclOpExecutor *executor, hg_access_fn fn)
{
    if (executor != NULL)
        executor->access = fn;
}

/* Runs on the stream's worker thread, or on the launching thread (hg_stream_launch). */
static void nb_executor_task(void *arg)
{
    nb_run_record *rec = arg;
    aclOpExecutor *ex = rec->executor;
    void *workspace = rec->workspace;
    if (rec->on_heap)
        free(rec);
    else
        atomic_flag_clear_explicit(&ex->record_busy, memory_order_release);
    ex->ops.run(ex->plan, workspace);
    nb_executor_unref(ex);
}

/* The stream, the workspace and the device phase 1 planned on must agree. */
static aclnnStatus check_launch_devices(const char *func, int plan_dev, void *workspace, uint64_t workspace_size,
                                        aclrtStream stream)
{
    aclError err = ACL_SUCCESS;
    int sdev = hg_stream_device(stream, func, &err);
    if (err)
        return err;
    if (plan_dev >= 0 && sdev != plan_dev) {
        if (HG_CHECKING())
            hg_check_finding("wrong-device", func, "%s: the executor was planned on device %d but the stream belongs "
                             "to device %d", func, plan_dev, sdev);
        hg_set_error(func, "the executor was planned on device %d but the stream belongs to device %d", plan_dev,
                     sdev);
        return ACLNN_ERR_PARAM_INVALID;
    }
    int wdev = workspace && workspace_size ? hg_memory_device(workspace, 1) : -1;
    if (wdev >= 0 && wdev != sdev) {
        if (HG_CHECKING())
            hg_check_finding("wrong-device", func, "%s: the workspace is memory of device %d but the stream belongs "
                             "to device %d", func, wdev, sdev);
        hg_set_error(func, "workspace is memory of device %d but the stream belongs to device %d", wdev, sdev);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

aclnnStatus hg_check_devices(const char *func, const aclTensor *const *tensors, const char *const *names, size_t n,
                             aclrtStream stream)
{
    aclError err = ACL_SUCCESS;
    int sdev;
    if (stream == NULL) {
        /* phase 1 plans on the current device; a thread with none (phase 1 may run there)
         * has nothing to compare with: phase 2 compares the executor with its stream */
        sdev = hg_current_device();
        if (sdev < 0)
            return ACLNN_SUCCESS;
    } else {
        sdev = hg_stream_device(stream, func, &err);
        if (err)
            return err;
    }
    for (size_t i = 0; i < n; ++i) {
        const aclTensor *t = tensors[i];
        if (t && t->device >= 0 && t->device != sdev) {
            if (HG_CHECKING())
                hg_check_finding("wrong-device", func, "%s: %s is memory of device %d but the %s device %d", func,
                                 names && names[i] ? names[i] : "a tensor", t->device,
                                 stream ? "stream belongs to" : "operator is planned on the current", sdev);
            hg_set_error(func, "%s is memory of device %d but %s %d%s", names && names[i] ? names[i] : "a tensor",
                         t->device, stream ? "the stream belongs to device" : "the operator is planned on device",
                         sdev, stream ? "" : " (the current device; tensors of one call must share a device)");
            return ACLNN_ERR_PARAM_INVALID;
        }
    }
    return ACLNN_SUCCESS;
}

void hg_executor_set_cost(aclOpExecutor *executor, uint64_t elements)
{
    nb_lock(&nb_executors);
    if (nb_ptrset_contains(&nb_executors.set, executor) && !executor->launched)
        executor->cost = elements;
    nb_unlock(&nb_executors);
}

void hg_executor_set_rebind(aclOpExecutor *executor, hg_rebind_fn fn)
{
    nb_lock(&nb_executors);
    if (nb_ptrset_contains(&nb_executors.set, executor))
        executor->rebind = fn;
    nb_unlock(&nb_executors);
}

/* aclSet...TensorAddr: let the operator's plan follow the new address. */
aclnnStatus hg_executor_rebind(const char *func, aclOpExecutor *executor, int which, size_t index, void *addr)
{
    nb_lock(&nb_executors);
    if (!nb_ptrset_contains(&nb_executors.set, executor)) {
        nb_unlock(&nb_executors);
        hg_set_error(func, "%s", kNotLive);
        return ACLNN_ERR_PARAM_INVALID;
    }
    aclnnStatus rc;
    if (!executor->rebind) {
        hg_set_error(func, "the executor of %s cannot take new tensor addresses: the operator captured them in "
                     "phase 1 (run phase 1 again with the new tensors)", executor->ops.op_name);
        rc = ACLNN_ERR_PARAM_INVALID;
    } else {
        rc = executor->rebind(executor->plan, which, index, addr);
        if (rc)
            hg_set_error(func, "the executor of %s has no %s tensor %zu", executor->ops.op_name,
                         which == 1 ? "input" : which == 2 ? "output" : "", index);
    }
    nb_unlock(&nb_executors);
    return rc;
}

/* Profiling, for an executor planned while no profile was running (its shapes were not kept):
 * the tensors it touches, by name, and their bytes, from its access ranges; NULL without. */
static char *describe_accesses(aclOpExecutor *ex, void *workspace, uint64_t workspace_size)
{
    if (ex->access == NULL)
        return NULL;
    hg_access acc[HG_MAX_ACCESSES];
    int n = ex->access(ex->plan, workspace, workspace_size, acc, HG_MAX_ACCESSES);
    char names[256] = "";
    size_t used = 0;
    uint64_t bytes = 0;
    for (int i = 0; i < n; ++i) {
        if (acc[i].what != NULL && strcmp(acc[i].what, "workspace") == 0)
            continue;
        bytes += (uint64_t)(acc[i].hi - acc[i].lo);
        int k = snprintf(names + used, sizeof names - used, "%s%s", used ? ";" : "", acc[i].what ? acc[i].what : "?");
        if (k > 0 && (size_t)k < sizeof names - used)
            used += (size_t)k;
    }
    size_t cap = used + 64u;
    char *out = malloc(cap);
    if (out != NULL)
        snprintf(out, cap, "\"Tensors\":\"%s\",\"bytes\":%" PRIu64, names, bytes);
    return out;
}

aclnnStatus hg_executor_launch(aclOpExecutor *executor, const char *op_name, void *workspace,
                              uint64_t workspace_size, aclrtStream stream)
{
    const char *func = op_name ? op_name : "hg_executor_launch";
    if (executor == NULL) {
        hg_set_error(func, "executor is NULL");
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    nb_lock(&nb_executors);
    if (!nb_ptrset_contains(&nb_executors.set, executor)) {
        bool reused = HG_CHECKING() && nb_ran_before(executor);
        nb_unlock(&nb_executors);
        if (reused)
            hg_check_finding("executor-reuse", func, "%s: executor %p was launched before and is not repeatable "
                             "(aclSetAclOpExecutorRepeatable); run phase 1 again for a new one", func,
                             (void *)executor);
        hg_set_error(func, "%s", kNotLive);
        return ACLNN_ERR_PARAM_INVALID;
    }
    aclOpExecutor *ex = executor;
    if (op_name != NULL && strcmp(ex->ops.op_name, op_name) != 0) {
        const char *owner = ex->ops.op_name;
        nb_unlock(&nb_executors);
        hg_set_error(func, "executor was created by %sGetWorkspaceSize, not by %sGetWorkspaceSize", owner, op_name);
        return ACLNN_ERR_PARAM_INVALID;
    }
    uint64_t needed = ex->workspace_size;
    if (needed > 0 && (workspace == NULL || workspace_size < needed)) {
        nb_unlock(&nb_executors);
        if (workspace == NULL)
            hg_set_error(func, "workspace is NULL but the executor needs %" PRIu64 " bytes", needed);
        else
            hg_set_error(func, "workspaceSize %" PRIu64 " is smaller than the %" PRIu64
                         " bytes phase 1 asked for", workspace_size, needed);
        return ACLNN_ERR_PARAM_INVALID;
    }
    /* the device checks ask the runtime (its lock): hold a reference, not our lock */
    int plan_dev = ex->device;
    uint64_t cost = ex->cost;
    atomic_fetch_add_explicit(&ex->refs, 1, memory_order_relaxed);
    nb_unlock(&nb_executors);
    aclnnStatus drc = check_launch_devices(func, plan_dev, workspace, workspace_size, stream);
    nb_lock(&nb_executors);
    if (drc == ACLNN_SUCCESS && !nb_ptrset_contains(&nb_executors.set, executor)) { /* destroyed meanwhile */
        hg_set_error(func, "%s", kNotLive);
        drc = ACLNN_ERR_PARAM_INVALID;
    }
    if (drc != ACLNN_SUCCESS) {
        nb_unlock(&nb_executors);
        nb_executor_unref(ex);
        return drc;
    }
    atomic_fetch_sub_explicit(&ex->refs, 1, memory_order_relaxed); /* still registered: not the last */
    bool one_shot = !ex->repeatable;
    bool was_launched = ex->launched;
    ex->launched = true;
    if (one_shot) {
        nb_ptrset_remove(&nb_executors.set, ex);
        if (HG_CHECKING()) {
            nb_ran[nb_ran_slot(ex)] = ex;
            hg_check_object(HG_OBJ_EXECUTOR, ex, 0, func, NULL);
        }
    }
    atomic_fetch_add_explicit(&ex->refs, 1, memory_order_relaxed);
    nb_unlock(&nb_executors);

    nb_run_record *rec;
    if (!atomic_flag_test_and_set_explicit(&ex->record_busy, memory_order_acquire)) {
        rec = &ex->record;
        rec->on_heap = false;
    } else {
        rec = malloc(sizeof *rec);
        if (rec != NULL)
            rec->on_heap = true;
    }
    aclnnStatus rc;
    if (rec == NULL) {
        hg_set_error(func, "out of memory queueing the executor");
        rc = ACLNN_ERR_INNER;
    } else {
        rec->executor = ex;
        rec->workspace = workspace;
        HG_LOG(HG_LOG_OP, HG_LOG_DEBUG, func, "phase 2: executor %p to stream %p (workspace %p)", (void *)executor,
               stream, workspace);
        bool checking = HG_CHECKING() && ex->access != NULL;
        if (checking) {
            hg_access acc[HG_MAX_ACCESSES];
            int nacc = ex->access(ex->plan, workspace, needed, acc, HG_MAX_ACCESSES);
            hg_check_pending(acc, nacc);
        }
        bool profiling = HG_PROFILING();
        if (profiling) {
            char *planned_before = ex->prof_args ? NULL : describe_accesses(ex, workspace, needed);
            hg_prof_pending(NULL, ex->prof_args ? ex->prof_args : planned_before);
            free(planned_before);
        }
        /* a small run on an idle stream may execute here, before this returns */
        rc = hg_stream_launch(stream, func, nb_executor_task, rec, cost);
        if (checking)
            hg_check_pending(NULL, 0);
        if (profiling)
            hg_prof_pending(NULL, NULL);
        if (rc == ACLNN_SUCCESS) {
            if (one_shot)
                nb_executor_unref(ex);   /* the run now holds the last reference */
            return ACLNN_SUCCESS;
        }
        /* Not queued: the task never runs, the record is still ours. */
        if (rec->on_heap)
            free(rec);
        else
            atomic_flag_clear_explicit(&ex->record_busy, memory_order_release);
    }
    /* Undo: the executor goes back to the state it had before this call.  Re-inserting
     * a pointer just removed cannot fail (the set never shrinks). */
    nb_lock(&nb_executors);
    ex->launched = was_launched;
    if (one_shot)
        (void)nb_ptrset_insert(&nb_executors.set, ex);
    nb_unlock(&nb_executors);
    nb_executor_unref(ex);
    return rc;
}

void hg_executor_set_prof(aclOpExecutor *executor, char *args)
{
    if (executor == NULL) {
        free(args);
        return;
    }
    free(executor->prof_args);
    executor->prof_args = args;
}

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor)
{
    static const char *const func = "aclSetAclOpExecutorRepeatable";
    if (executor == NULL) {
        hg_set_error(func, "executor is NULL");
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    nb_lock(&nb_executors);
    if (!nb_ptrset_contains(&nb_executors.set, executor)) {
        nb_unlock(&nb_executors);
        hg_set_error(func, "%s", kNotLive);
        return ACLNN_ERR_PARAM_INVALID;
    }
    if (executor->launched) {
        /* Only a repeatable executor can be registered and launched; CANN's rule is
         * "right after phase 1", so a late call is refused even then. */
        nb_unlock(&nb_executors);
        hg_set_error(func, "must be called right after phase 1, before the executor first runs");
        return ACLNN_ERR_PARAM_INVALID;
    }
    executor->repeatable = true;
    nb_unlock(&nb_executors);
    return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor)
{
    if (executor == NULL)
        return ACLNN_SUCCESS;
    nb_lock(&nb_executors);
    bool live = nb_ptrset_remove(&nb_executors.set, executor);
    nb_unlock(&nb_executors);
    if (!live) {
        hg_set_error("aclDestroyAclOpExecutor", "%s", kNotLive);
        return ACLNN_ERR_PARAM_INVALID;
    }
    if (HG_CHECKING())
        hg_check_object(HG_OBJ_EXECUTOR, executor, 0, "aclDestroyAclOpExecutor", NULL);
    nb_executor_unref(executor);   /* queued runs keep it alive until they finish */
    return ACLNN_SUCCESS;
}
