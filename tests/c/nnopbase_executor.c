/*
 * Executor mechanics of libnnopbase, driven through a fake operator defined here
 * (white box: hg_executor_create / hg_executor_launch from hg_internal.h).
 *   nnopbase_executor <case>     one_shot | destroy_unused | nulls | wrong_op | workspace |
 *                                repeatable | repeatable_late | destroy_queued |
 *                                submit_fails | threads | many
 * Every case ends with no live executor, tensor or scalar and prints "OK".
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hg_internal.h"

#include "check_count.h"

static const char *const kOp = "aclnnFakeOp";

/* ---- the fake operator ---------------------------------------------------- */
typedef struct fake_plan {
    atomic_int runs;
    atomic_int destroys;         /* stays readable after destroy: plans are static */
    _Atomic(void *) last_workspace;   /* written by runs on several streams */
} fake_plan;

static void fake_run(void *plan, void *workspace)
{
    fake_plan *p = plan;
    atomic_store(&p->last_workspace, workspace);
    atomic_fetch_add(&p->runs, 1);
}

static void fake_destroy(void *plan)
{
    atomic_fetch_add(&((fake_plan *)plan)->destroys, 1);
}

static const hg_exec_ops kFakeOps = {"aclnnFakeOp", fake_run, fake_destroy};

/* A plan whose run blocks until the test opens the gate, to keep work queued. */
static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static int gate_open;

static void gate_run(void *plan, void *workspace)
{
    (void)plan;
    (void)workspace;
    pthread_mutex_lock(&gate_mu);
    while (!gate_open)
        pthread_cond_wait(&gate_cv, &gate_mu);
    pthread_mutex_unlock(&gate_mu);
}

static void open_gate(void)
{
    pthread_mutex_lock(&gate_mu);
    gate_open = 1;
    pthread_cond_broadcast(&gate_cv);
    pthread_mutex_unlock(&gate_mu);
}

static const hg_exec_ops kGateOps = {"aclnnGateOp", gate_run, NULL};

/* ---- helpers -------------------------------------------------------------- */
static aclrtStream stream;

static hgLiveCounts counts(void)
{
    hgLiveCounts c;
    memset(&c, 0xff, sizeof c);
    hgGetLiveCounts(&c);
    return c;
}

static aclOpExecutor *make(fake_plan *p, uint64_t ws)
{
    aclOpExecutor *ex = hg_executor_create(&kFakeOps, p, ws);
    CHECK(ex != NULL);
    return ex;
}

static const char *kGone = "aclnnFakeOp: executor has already run (not repeatable) or was destroyed";

/* ---- cases ---------------------------------------------------------------- */
static void case_one_shot(void)
{
    static fake_plan p;
    aclOpExecutor *ex = make(&p, 0);
    CHECK(counts().executors == 1);
    CHECK(hg_executor_launch(ex, kOp, NULL, 0, stream) == ACLNN_SUCCESS);
    /* Consumed at launch: a second launch fails at once, even before the run. */
    CHECK(hg_executor_launch(ex, kOp, NULL, 0, stream) == ACLNN_ERR_PARAM_INVALID);
    CHECK(strcmp(last_msg(), kGone) == 0);
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
    CHECK(atomic_load(&p.runs) == 1);
    CHECK(atomic_load(&p.destroys) == 1);
    CHECK(counts().executors == 0);
    CHECK(hg_executor_launch(ex, kOp, NULL, 0, stream) == ACLNN_ERR_PARAM_INVALID);
    CHECK(strcmp(last_msg(), kGone) == 0); /* read: the next failure's text stands alone */
    CHECK(aclDestroyAclOpExecutor(ex) == ACLNN_ERR_PARAM_INVALID);
    CHECK(strcmp(last_msg(), "aclDestroyAclOpExecutor: executor has already run (not repeatable) or was destroyed") == 0);
    CHECK(aclSetAclOpExecutorRepeatable(ex) == ACLNN_ERR_PARAM_INVALID);
    CHECK(atomic_load(&p.runs) == 1);
}

static void case_destroy_unused(void)
{
    static fake_plan p;
    aclOpExecutor *ex = make(&p, 128);
    CHECK(aclDestroyAclOpExecutor(ex) == ACLNN_SUCCESS);
    CHECK(atomic_load(&p.destroys) == 1);
    CHECK(atomic_load(&p.runs) == 0);
    CHECK(counts().executors == 0);
    CHECK(aclDestroyAclOpExecutor(ex) == ACLNN_ERR_PARAM_INVALID);
    CHECK(hg_executor_launch(ex, kOp, NULL, 0, stream) == ACLNN_ERR_PARAM_INVALID);
    CHECK(atomic_load(&p.destroys) == 1);
}

static void case_nulls(void)
{
    CHECK(hg_executor_launch(NULL, kOp, NULL, 0, stream) == ACLNN_ERR_PARAM_NULLPTR);
    CHECK(strcmp(last_msg(), "aclnnFakeOp: executor is NULL") == 0);
    CHECK(aclSetAclOpExecutorRepeatable(NULL) == ACLNN_ERR_PARAM_NULLPTR);
    CHECK(strncmp(last_msg(), "aclSetAclOpExecutorRepeatable: ", 31) == 0);
    CHECK(aclDestroyAclOpExecutor(NULL) == ACLNN_SUCCESS);
    int not_an_executor = 0;
    CHECK(hg_executor_launch((aclOpExecutor *)(void *)&not_an_executor, kOp, NULL, 0, stream) ==
          ACLNN_ERR_PARAM_INVALID);
    CHECK(aclDestroyAclOpExecutor((aclOpExecutor *)(void *)&not_an_executor) == ACLNN_ERR_PARAM_INVALID);
    /* A broken operation table: the plan is still destroyed, NULL comes back. */
    static fake_plan p;
    hg_exec_ops no_run = {"aclnnFakeOp", NULL, fake_destroy};
    CHECK(hg_executor_create(&no_run, &p, 0) == NULL);
    CHECK(atomic_load(&p.destroys) == 1);
    CHECK(hg_executor_create(NULL, NULL, 0) == NULL);
}

static void case_wrong_op(void)
{
    static fake_plan p;
    aclOpExecutor *ex = make(&p, 0);
    CHECK(hg_executor_launch(ex, "aclnnOtherOp", NULL, 0, stream) == ACLNN_ERR_PARAM_INVALID);
    CHECK(strncmp(last_msg(), "aclnnOtherOp: ", 14) == 0 && strstr(last_msg(), "aclnnFakeOp") != NULL);
    /* Refused launches do not consume the executor. */
    CHECK(hg_executor_launch(ex, kOp, NULL, 0, stream) == ACLNN_SUCCESS);
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
    CHECK(atomic_load(&p.runs) == 1 && atomic_load(&p.destroys) == 1);
}

static void case_workspace(void)
{
    static fake_plan p;
    static unsigned char ws[64];
    aclOpExecutor *ex = make(&p, 64);
    CHECK(hg_executor_launch(ex, kOp, NULL, 64, stream) == ACLNN_ERR_PARAM_INVALID);
    CHECK(strcmp(last_msg(), "aclnnFakeOp: workspace is NULL but the executor needs 64 bytes") == 0);
    CHECK(hg_executor_launch(ex, kOp, ws, 63, stream) == ACLNN_ERR_PARAM_INVALID);
    CHECK(strstr(last_msg(), "workspaceSize 63") != NULL);
    CHECK(hg_executor_launch(ex, kOp, ws, 0, stream) == ACLNN_ERR_PARAM_INVALID);
    CHECK(hg_executor_launch(ex, kOp, ws, 64, stream) == ACLNN_SUCCESS);
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
    CHECK(atomic_load(&p.runs) == 1 && atomic_load(&p.last_workspace) == (void *)ws);
    /* Workspace 0: NULL is fine, and a larger buffer than asked for too. */
    static fake_plan q;
    ex = make(&q, 0);
    CHECK(hg_executor_launch(ex, kOp, NULL, 0, stream) == ACLNN_SUCCESS);
    ex = make(&q, 0);
    CHECK(hg_executor_launch(ex, kOp, ws, 64, stream) == ACLNN_SUCCESS);
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
    CHECK(atomic_load(&q.runs) == 2 && atomic_load(&q.destroys) == 2);
}

static void case_repeatable(void)
{
    static fake_plan p;
    static unsigned char ws[16];
    aclOpExecutor *ex = make(&p, 16);
    CHECK(aclSetAclOpExecutorRepeatable(ex) == ACLNN_SUCCESS);
    CHECK(aclSetAclOpExecutorRepeatable(ex) == ACLNN_SUCCESS);   /* still before any run */
    enum { N = 200 };
    for (int i = 0; i < N; i++)
        CHECK(hg_executor_launch(ex, kOp, ws, 16, stream) == ACLNN_SUCCESS);
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
    CHECK(atomic_load(&p.runs) == N);
    CHECK(atomic_load(&p.destroys) == 0);
    CHECK(counts().executors == 1);
    CHECK(hg_executor_launch(ex, kOp, ws, 16, stream) == ACLNN_SUCCESS);
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
    CHECK(atomic_load(&p.runs) == N + 1);
    CHECK(aclDestroyAclOpExecutor(ex) == ACLNN_SUCCESS);
    CHECK(atomic_load(&p.destroys) == 1);
    CHECK(counts().executors == 0);
    CHECK(hg_executor_launch(ex, kOp, ws, 16, stream) == ACLNN_ERR_PARAM_INVALID);
    CHECK(strcmp(last_msg(), kGone) == 0);
    CHECK(aclDestroyAclOpExecutor(ex) == ACLNN_ERR_PARAM_INVALID);
}

static void case_repeatable_late(void)
{
    static fake_plan p;
    aclOpExecutor *ex = make(&p, 0);
    CHECK(aclSetAclOpExecutorRepeatable(ex) == ACLNN_SUCCESS);
    CHECK(hg_executor_launch(ex, kOp, NULL, 0, stream) == ACLNN_SUCCESS);
    CHECK(aclSetAclOpExecutorRepeatable(ex) == ACLNN_ERR_PARAM_INVALID);
    CHECK(strncmp(last_msg(), "aclSetAclOpExecutorRepeatable: ", 31) == 0);
    CHECK(hg_executor_launch(ex, kOp, NULL, 0, stream) == ACLNN_SUCCESS);   /* still repeatable */
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
    CHECK(aclDestroyAclOpExecutor(ex) == ACLNN_SUCCESS);
    CHECK(atomic_load(&p.runs) == 2 && atomic_load(&p.destroys) == 1);
    /* One-shot that already ran: too late as well (it is gone). */
    static fake_plan q;
    ex = make(&q, 0);
    CHECK(hg_executor_launch(ex, kOp, NULL, 0, stream) == ACLNN_SUCCESS);
    CHECK(aclSetAclOpExecutorRepeatable(ex) == ACLNN_ERR_PARAM_INVALID);
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
    CHECK(atomic_load(&q.runs) == 1 && atomic_load(&q.destroys) == 1);
}

static void case_destroy_queued(void)
{
    static fake_plan p, q;
    aclOpExecutor *gate = hg_executor_create(&kGateOps, NULL, 0);
    CHECK(gate != NULL);
    CHECK(hg_executor_launch(gate, "aclnnGateOp", NULL, 0, stream) == ACLNN_SUCCESS);
    aclOpExecutor *rep = make(&p, 0);
    CHECK(aclSetAclOpExecutorRepeatable(rep) == ACLNN_SUCCESS);
    for (int i = 0; i < 10; i++)
        CHECK(hg_executor_launch(rep, kOp, NULL, 0, stream) == ACLNN_SUCCESS);
    aclOpExecutor *once = make(&q, 0);
    CHECK(hg_executor_launch(once, kOp, NULL, 0, stream) == ACLNN_SUCCESS);
    /* Everything is still queued behind the gate. */
    CHECK(aclDestroyAclOpExecutor(rep) == ACLNN_SUCCESS);
    CHECK(aclDestroyAclOpExecutor(once) == ACLNN_ERR_PARAM_INVALID);   /* consumed by its launch */
    CHECK(hg_executor_launch(rep, kOp, NULL, 0, stream) == ACLNN_ERR_PARAM_INVALID);
    CHECK(atomic_load(&p.runs) == 0 && atomic_load(&p.destroys) == 0);
    CHECK(counts().executors == 3);
    open_gate();
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
    CHECK(atomic_load(&p.runs) == 10 && atomic_load(&p.destroys) == 1);
    CHECK(atomic_load(&q.runs) == 1 && atomic_load(&q.destroys) == 1);
}

static void *launch_without_device(void *arg)
{
    aclOpExecutor *ex = arg;
    /* A new thread has no current device, so the default stream does not exist. */
    intptr_t rc = hg_executor_launch(ex, kOp, NULL, 0, NULL);
    return (void *)rc;
}

static void case_submit_fails(void)
{
    static fake_plan p;
    aclOpExecutor *ex = make(&p, 0);
    pthread_t th;
    void *ret = NULL;
    CHECK(pthread_create(&th, NULL, launch_without_device, ex) == 0);
    CHECK(pthread_join(th, &ret) == 0);
    CHECK((intptr_t)ret == ACL_ERROR_RT_CONTEXT_NULL);
    /* Not consumed: the caller may retry. */
    CHECK(counts().executors == 1);
    CHECK(hg_executor_launch(ex, kOp, NULL, 0, stream) == ACLNN_SUCCESS);
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
    CHECK(atomic_load(&p.runs) == 1 && atomic_load(&p.destroys) == 1);
    /* Same for a repeatable one, and it can still be made repeatable after a failed launch. */
    static fake_plan q;
    ex = make(&q, 0);
    CHECK(pthread_create(&th, NULL, launch_without_device, ex) == 0);
    CHECK(pthread_join(th, &ret) == 0);
    CHECK((intptr_t)ret == ACL_ERROR_RT_CONTEXT_NULL);
    CHECK(aclSetAclOpExecutorRepeatable(ex) == ACLNN_SUCCESS);
    CHECK(aclDestroyAclOpExecutor(ex) == ACLNN_SUCCESS);
    CHECK(atomic_load(&q.runs) == 0 && atomic_load(&q.destroys) == 1);
}

typedef struct worker_arg {
    fake_plan plan;
    int ok;
} worker_arg;

static void *worker(void *arg)
{
    worker_arg *w = arg;
    aclrtStream s = NULL;
    int ok = aclrtSetDevice(0) == 0 && aclrtCreateStream(&s) == 0;
    for (int i = 0; ok && i < 500; i++) {
        aclOpExecutor *ex = hg_executor_create(&kFakeOps, &w->plan, 0);
        ok = ex != NULL && hg_executor_launch(ex, kOp, NULL, 0, s) == 0;
        /* Every few rounds a repeatable one, destroyed while its runs may be queued. */
        if (ok && i % 5 == 0) {
            aclOpExecutor *rep = hg_executor_create(&kFakeOps, &w->plan, 0);
            ok = rep && aclSetAclOpExecutorRepeatable(rep) == 0 && hg_executor_launch(rep, kOp, NULL, 0, s) == 0 &&
                 hg_executor_launch(rep, kOp, NULL, 0, stream) == 0 && aclDestroyAclOpExecutor(rep) == 0;
        }
    }
    if (s) {
        ok = ok && aclrtSynchronizeStream(s) == 0;
        aclrtDestroyStream(s);
    }
    w->ok = ok;
    return NULL;
}

static void case_threads(void)
{
    enum { T = 4 };
    static worker_arg args[T];
    pthread_t th[T];
    for (int i = 0; i < T; i++)
        CHECK(pthread_create(&th[i], NULL, worker, &args[i]) == 0);
    for (int i = 0; i < T; i++)
        CHECK(pthread_join(th[i], NULL) == 0);
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
    for (int i = 0; i < T; i++) {
        CHECK(args[i].ok == 1);
        CHECK(atomic_load(&args[i].plan.runs) == 500 + 2 * 100);
        CHECK(atomic_load(&args[i].plan.destroys) == 500 + 100);
    }
}

static void case_many(void)
{
    /* Thousands of live executors: the registry grows and deletes out of order. */
    enum { N = 5000 };
    static fake_plan p;
    static aclOpExecutor *ex[N];
    for (int i = 0; i < N; i++)
        ex[i] = make(&p, 0);
    CHECK(counts().executors == N);
    for (int i = 0; i < N; i += 3)
        CHECK(hg_executor_launch(ex[i], kOp, NULL, 0, stream) == ACLNN_SUCCESS);
    for (int i = 1; i < N; i += 3)
        CHECK(aclDestroyAclOpExecutor(ex[i]) == ACLNN_SUCCESS);
    for (int i = 2; i < N; i += 3) {
        CHECK(aclSetAclOpExecutorRepeatable(ex[i]) == ACLNN_SUCCESS);
        CHECK(hg_executor_launch(ex[i], kOp, NULL, 0, stream) == ACLNN_SUCCESS);
    }
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
    for (int i = 0; i < N; i += 3)
        CHECK(aclDestroyAclOpExecutor(ex[i]) == ACLNN_ERR_PARAM_INVALID);
    for (int i = 2; i < N; i += 3)
        CHECK(aclDestroyAclOpExecutor(ex[i]) == ACLNN_SUCCESS);
    CHECK(atomic_load(&p.destroys) == N);
    CHECK(atomic_load(&p.runs) == (N + 2) / 3 + (N - 2 + 2) / 3);
}

int main(int argc, char **argv)
{
    static const struct { const char *name; void (*fn)(void); } cases[] = {
        {"one_shot", case_one_shot}, {"destroy_unused", case_destroy_unused}, {"nulls", case_nulls},
        {"wrong_op", case_wrong_op}, {"workspace", case_workspace}, {"repeatable", case_repeatable},
        {"repeatable_late", case_repeatable_late}, {"destroy_queued", case_destroy_queued},
        {"submit_fails", case_submit_fails}, {"threads", case_threads}, {"many", case_many}};
    if (argc < 2) {
        fprintf(stderr, "usage: %s CASE\n", argv[0]);
        return 2;
    }
    void (*fn)(void) = NULL;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (!strcmp(cases[i].name, argv[1]))
            fn = cases[i].fn;
    if (!fn) {
        fprintf(stderr, "unknown case %s\n", argv[1]);
        return 2;
    }
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&stream) != ACL_SUCCESS) {
        printf("FAIL: runtime set-up: %s\n", last_msg());
        return 1;
    }
    fn();
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
    CHECK(aclrtDestroyStream(stream) == ACL_SUCCESS);
    hgLiveCounts c = counts();
    CHECK(c.executors == 0 && c.tensors == 0 && c.scalars == 0);
    CHECK(aclrtResetDevice(0) == ACL_SUCCESS);
    CHECK(aclFinalize() == ACL_SUCCESS);
    if (failures == 0)
        printf("OK\n");
    return failures ? 1 : 0;
}
