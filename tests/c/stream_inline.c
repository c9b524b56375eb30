/* Small kernel tasks on an idle stream run on the launching thread (hg_stream_launch), with
 * the order, events, synchronisation, destroy and multi-thread behaviour the stream's worker
 * gives.  Every check runs with inline execution on (PYACL_HARDGRAD_INLINE=1) and off
 * (0; 1 is the default): where the two differ (which thread ran a task) the check reads
 * the setting; everything a program can observe through the API must be the same.
 *
 *   stream_inline --list | <check>
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>

#include "runtime_harness.h"
#include "aclnnop/aclnn_hardtanh_backward.h"

#define COST_UNKNOWN UINT64_MAX
#define SMALL 8u

static bool inline_on(void)
{
    const char *v = getenv("PYACL_HARDGRAD_INLINE");
    return !v || !*v || strcmp(v, "0") != 0; /* on unless set to 0 */
}

/* ---------------------------------------------------------------- task helpers */

/* A task that notes which thread ran it, in which position, and whether another task of
 * the stream was running at the same time. */
typedef struct {
    pthread_t thread;
    atomic_int order;    /* position in g_log, 0 = not run */
    int sleep_ms;
    atomic_int *gate;    /* when set: wait until *gate != 0 before returning */
} probe;

static atomic_int g_position;
static atomic_int g_running;
static atomic_int g_overlaps;

static void probe_task(void *p)
{
    probe *pr = p;
    if (atomic_fetch_add(&g_running, 1) != 0)
        atomic_fetch_add(&g_overlaps, 1);
    pr->thread = pthread_self();
    if (pr->sleep_ms)
        sleep_ms(pr->sleep_ms);
    if (pr->gate)
        while (!atomic_load(pr->gate))
            sched_yield();
    atomic_store(&pr->order, atomic_fetch_add(&g_position, 1) + 1);
    atomic_fetch_sub(&g_running, 1);
}

static void reset_log(void)
{
    atomic_store(&g_position, 0);
    atomic_store(&g_running, 0);
    atomic_store(&g_overlaps, 0);
}

static bool ran_here(const probe *p)
{
    return pthread_equal(p->thread, pthread_self());
}

/* ---------------------------------------------------------------- checks */

/* Idle stream + small task: runs inside the launch (inline on) or on the worker (off);
 * large and unknown-size tasks always go to the worker; the synchronize that follows
 * finds it done either way. */
static void check_idle_small_runs_in_launch(void)
{
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    for (int round = 0; round < 3; ++round) {
        reset_log();
        probe small = {0}, large = {0}, unknown = {0};
        EXPECT(hg_stream_launch(s, "test", probe_task, &small, SMALL), ACL_SUCCESS);
        if (inline_on()) {
            EXPECT(atomic_load(&small.order), 1); /* done before the launch returned */
            EXPECT_TRUE(ran_here(&small));
        }
        EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
        EXPECT(atomic_load(&small.order), 1);
        EXPECT(ran_here(&small), inline_on());

        EXPECT(hg_stream_launch(s, "test", probe_task, &large, 1u << 20), ACL_SUCCESS);
        EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
        EXPECT_TRUE(!ran_here(&large));
        EXPECT(hg_stream_launch(s, "test", probe_task, &unknown, COST_UNKNOWN), ACL_SUCCESS);
        EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
        EXPECT_TRUE(!ran_here(&unknown));
        EXPECT(atomic_load(&large.order), 2);
        EXPECT(atomic_load(&unknown.order), 3);
        sleep_ms(round); /* idle gaps: the worker polls, then parks */
    }
    /* the default stream too */
    probe d = {0};
    EXPECT(hg_stream_launch(NULL, "test", probe_task, &d, SMALL), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
    EXPECT(ran_here(&d), inline_on());
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown_all_freed();
}

/* A stream with queued or running work is not idle: a small task queues behind it and runs
 * on the worker after it, never before and never beside it. */
static void check_busy_stream_queues_small_task(void)
{
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    reset_log();
    atomic_int gate = 0;
    probe blocker = {.gate = &gate}, queued = {0}, small = {0};
    EXPECT(hg_stream_launch(s, "test", probe_task, &blocker, COST_UNKNOWN), ACL_SUCCESS);
    EXPECT(hg_stream_launch(s, "test", probe_task, &queued, COST_UNKNOWN), ACL_SUCCESS);
    EXPECT(hg_stream_launch(s, "test", probe_task, &small, SMALL), ACL_SUCCESS);
    sleep_ms(5);
    EXPECT(atomic_load(&small.order), 0); /* held behind the blocker */
    aclrtStreamStatus st;
    EXPECT(aclrtStreamQuery(s, &st), ACL_SUCCESS);
    EXPECT(st, ACL_STREAM_STATUS_NOT_READY);
    atomic_store(&gate, 1);
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT(atomic_load(&blocker.order), 1);
    EXPECT(atomic_load(&queued.order), 2);
    EXPECT(atomic_load(&small.order), 3);
    EXPECT_TRUE(!ran_here(&small));
    EXPECT(atomic_load(&g_overlaps), 0);
    EXPECT(aclrtStreamQuery(s, &st), ACL_SUCCESS);
    EXPECT(st, ACL_STREAM_STATUS_COMPLETE);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown_all_freed();
}

typedef struct {
    aclrtStream s;
    probe *task;
    atomic_int started;
    aclError rc;
} launcher;

static void *launch_thread(void *p)
{
    launcher *l = p;
    atomic_store(&l->started, 1);
    l->rc = hg_stream_launch(l->s, "test", probe_task, l->task, SMALL);
    return NULL;
}

static void wait_running(int n)
{
    while (atomic_load(&g_running) < n)
        sched_yield();
}

/* While a small task runs inside one thread's launch, the stream is busy: another
 * thread's launch queues behind it, a record after it completes after it, a query says
 * not ready, a synchronize (also with a time-out) waits for it. */
static void check_inline_run_holds_stream_order(void)
{
    setup();
    aclrtStream s;
    aclrtEvent ev;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    EXPECT(aclrtCreateEvent(&ev), ACL_SUCCESS);
    for (int round = 0; round < 4; ++round) {
        reset_log();
        atomic_int gate = 0;
        probe first = {.gate = &gate}, second = {0};
        launcher l1 = {s, &first, 0, -1}, l2 = {s, &second, 0, -1};
        pthread_t t1, t2;
        EXPECT(pthread_create(&t1, NULL, launch_thread, &l1), 0);
        wait_running(1); /* first runs (inline in t1, or on the worker) and holds the gate */
        EXPECT(pthread_create(&t2, NULL, launch_thread, &l2), 0);
        while (!atomic_load(&l2.started))
            sched_yield();
        if (round % 2 == 0)
            sleep_ms(2); /* let the second launch come in while the first runs */
        EXPECT(aclrtRecordEvent(ev, s), ACL_SUCCESS);
        aclrtStreamStatus st;
        EXPECT(aclrtStreamQuery(s, &st), ACL_SUCCESS);
        EXPECT(st, ACL_STREAM_STATUS_NOT_READY);
        aclrtEventRecordedStatus es;
        EXPECT(aclrtQueryEventStatus(ev, &es), ACL_SUCCESS);
        EXPECT(es, ACL_EVENT_RECORDED_STATUS_NOT_READY);
        EXPECT(aclrtSynchronizeStreamWithTimeout(s, 1), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
        EXPECT_MSG("did not finish within 1 ms");
        EXPECT(atomic_load(&second.order), 0);
        atomic_store(&gate, 1);
        EXPECT(aclrtSynchronizeStreamWithTimeout(s, -1), ACL_SUCCESS);
        EXPECT(atomic_load(&first.order), 1);
        /* the second task queued behind the first: it ran after it, on the worker (its
         * launcher's thread found the stream busy), or inline when it came after both
         * the first and the record were done -- never beside the first */
        EXPECT(pthread_join(t2, NULL), 0);
        EXPECT(pthread_join(t1, NULL), 0);
        EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
        EXPECT(l1.rc, ACL_SUCCESS);
        EXPECT(l2.rc, ACL_SUCCESS);
        EXPECT(atomic_load(&second.order), 2);
        EXPECT(atomic_load(&g_overlaps), 0);
        EXPECT(aclrtQueryEventStatus(ev, &es), ACL_SUCCESS);
        EXPECT(es, ACL_EVENT_RECORDED_STATUS_COMPLETE);
        EXPECT(pthread_equal(first.thread, t1), inline_on());
    }
    EXPECT(aclrtDestroyEvent(ev), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown_all_freed();
}

/* Events around an inline task: a record before it and one after it bracket its run
 * (elapsed time covers the task's sleep), and an event wait on another stream's record
 * makes the stream busy, so the small task waits for the other stream. */
static void check_events_bracket_inline_task(void)
{
    setup();
    aclrtStream s, other;
    aclrtEvent before, after, cross;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    EXPECT(aclrtCreateStream(&other), ACL_SUCCESS);
    EXPECT(aclrtCreateEvent(&before), ACL_SUCCESS);
    EXPECT(aclrtCreateEvent(&after), ACL_SUCCESS);
    EXPECT(aclrtCreateEvent(&cross), ACL_SUCCESS);
    reset_log();

    EXPECT(aclrtRecordEvent(before, s), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeEvent(before), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    /* a synchronize returns once the record's slot is done; the worker marks the stream idle
     * just after, and until then a launch queues behind (right, but not what this checks) */
    wait_stream_idle(s);
    probe timed = {.sleep_ms = 20};
    EXPECT(hg_stream_launch(s, "test", probe_task, &timed, SMALL), ACL_SUCCESS);
    EXPECT(aclrtRecordEvent(after, s), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeEvent(after), ACL_SUCCESS);
    EXPECT(atomic_load(&timed.order), 1);
    float ms = 0;
    EXPECT(aclrtEventElapsedTime(&ms, before, after), ACL_SUCCESS);
    EXPECT_TRUE(ms >= 19.0f);
    EXPECT(ran_here(&timed), inline_on());

    /* s waits for `cross`, recorded on `other` behind a gated task */
    atomic_int gate = 0;
    probe blocker = {.gate = &gate}, waiting = {0};
    EXPECT(hg_stream_launch(other, "test", probe_task, &blocker, COST_UNKNOWN), ACL_SUCCESS);
    EXPECT(aclrtRecordEvent(cross, other), ACL_SUCCESS);
    EXPECT(aclrtStreamWaitEvent(s, cross), ACL_SUCCESS);
    EXPECT(hg_stream_launch(s, "test", probe_task, &waiting, SMALL), ACL_SUCCESS);
    sleep_ms(5);
    EXPECT(atomic_load(&waiting.order), 0);
    atomic_store(&gate, 1);
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT(atomic_load(&blocker.order), 2);
    EXPECT(atomic_load(&waiting.order), 3);
    EXPECT_TRUE(!ran_here(&waiting));

    EXPECT(aclrtDestroyEvent(before), ACL_SUCCESS);
    EXPECT(aclrtDestroyEvent(after), ACL_SUCCESS);
    EXPECT(aclrtDestroyEvent(cross), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(other), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown_all_freed();
}

typedef struct {
    aclrtStream s;
    atomic_int rc; /* read while the destroy runs */
} destroyer;

static void *destroy_thread(void *p)
{
    destroyer *d = p;
    atomic_store(&d->rc, aclrtDestroyStream(d->s));
    return NULL;
}

/* Destroying the stream while a small task runs inside a launch waits for it (and for a
 * task queued behind it); launches on the destroyed handle fail the same way both modes. */
static void check_destroy_waits_for_inline_task(void)
{
    setup();
    for (int round = 0; round < 3; ++round) {
        reset_log();
        aclrtStream s;
        EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
        atomic_int gate = 0;
        probe first = {.gate = &gate}, behind = {0};
        launcher l1 = {s, &first, 0, -1};
        pthread_t t1, td;
        EXPECT(pthread_create(&t1, NULL, launch_thread, &l1), 0);
        wait_running(1);
        EXPECT(hg_stream_launch(s, "test", probe_task, &behind, SMALL), ACL_SUCCESS);
        destroyer d = {s, -1};
        EXPECT(pthread_create(&td, NULL, destroy_thread, &d), 0);
        sleep_ms(3);
        EXPECT(atomic_load(&d.rc), -1); /* still draining */
        atomic_store(&gate, 1);
        EXPECT(pthread_join(td, NULL), 0);
        EXPECT(atomic_load(&d.rc), ACL_SUCCESS);
        EXPECT(atomic_load(&first.order), 1);
        EXPECT(atomic_load(&behind.order), 2);
        EXPECT(pthread_join(t1, NULL), 0);
        EXPECT(l1.rc, ACL_SUCCESS);
        probe late = {0};
        EXPECT(hg_stream_launch(s, "test", probe_task, &late, SMALL), ACL_ERROR_RT_INVALID_HANDLE);
        EXPECT_MSG("test", "not a live stream");
        EXPECT(atomic_load(&late.order), 0);
    }
    /* a NULL task function is refused before anything runs */
    EXPECT(hg_stream_launch(NULL, "test", NULL, NULL, SMALL), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("test", "task function is NULL");
    teardown_all_freed();
}

/* Several threads launch small tasks on one stream at once, with synchronizes and the odd
 * large task in between: no two tasks ever run at the same time, each thread's tasks run
 * in its launch order, and every task runs exactly once. */
#define STRESS_THREADS 4
#define STRESS_TASKS 3000

typedef struct {
    int owner;
    int index;
} stress_arg;

static atomic_int g_stress_last[STRESS_THREADS];
static atomic_int g_stress_bad;
static atomic_int g_stress_done;

static void stress_task(void *p)
{
    const stress_arg *a = p;
    if (atomic_fetch_add(&g_running, 1) != 0)
        atomic_fetch_add(&g_overlaps, 1);
    if (atomic_load_explicit(&g_stress_last[a->owner], memory_order_relaxed) != a->index - 1)
        atomic_fetch_add(&g_stress_bad, 1);
    atomic_store_explicit(&g_stress_last[a->owner], a->index, memory_order_relaxed);
    atomic_fetch_add(&g_stress_done, 1);
    atomic_fetch_sub(&g_running, 1);
}

typedef struct {
    aclrtStream s;
    int owner;
    stress_arg *args;
    int failures;
} stress_thread_arg;

static void *stress_thread(void *p)
{
    stress_thread_arg *t = p;
    for (int i = 0; i < STRESS_TASKS; ++i) {
        t->args[i].owner = t->owner;
        t->args[i].index = i;
        uint64_t cost = i % 97 == 0 ? COST_UNKNOWN : SMALL;
        if (hg_stream_launch(t->s, "test", stress_task, &t->args[i], cost) != ACL_SUCCESS)
            ++t->failures;
        if (i % 13 == t->owner && aclrtSynchronizeStream(t->s) != ACL_SUCCESS)
            ++t->failures;
    }
    return NULL;
}

static void check_concurrent_launchers_keep_order(void)
{
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    reset_log();
    atomic_store(&g_stress_bad, 0);
    atomic_store(&g_stress_done, 0);
    static stress_arg args[STRESS_THREADS][STRESS_TASKS];
    stress_thread_arg ta[STRESS_THREADS];
    pthread_t th[STRESS_THREADS];
    for (int k = 0; k < STRESS_THREADS; ++k) {
        atomic_store(&g_stress_last[k], -1);
        ta[k] = (stress_thread_arg){s, k, args[k], 0};
        EXPECT(pthread_create(&th[k], NULL, stress_thread, &ta[k]), 0);
    }
    for (int k = 0; k < STRESS_THREADS; ++k) {
        EXPECT(pthread_join(th[k], NULL), 0);
        EXPECT(ta[k].failures, 0);
    }
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT(atomic_load(&g_stress_done), STRESS_THREADS * STRESS_TASKS);
    EXPECT(atomic_load(&g_stress_bad), 0);
    EXPECT(atomic_load(&g_overlaps), 0);
    for (int k = 0; k < STRESS_THREADS; ++k)
        EXPECT(atomic_load(&g_stress_last[k]), STRESS_TASKS - 1);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown_all_freed();
}

/* The operator path: a one-shot 8-element hardtanh backward launched on an idle stream
 * has run (and released its executor) when the launch returns with inline execution on;
 * the result is the same either way, also with the failure mode set, and a 64K-element
 * run (above the size limit) is still queued. */
static aclTensor *tensor_on(void *dev, int64_t n)
{
    int64_t shape[1] = {n}, strides[1] = {1};
    return aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, dev);
}

static void check_operator_launch_inline(void)
{
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    EXPECT(aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE), ACL_SUCCESS);
    const int64_t sizes[2] = {8, 65536};
    for (int k = 0; k < 2; ++k) {
        int64_t n = sizes[k];
        size_t bytes = (size_t)n * sizeof(float);
        void *dg, *dx, *dout;
        EXPECT(aclrtMalloc(&dg, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
        EXPECT(aclrtMalloc(&dx, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
        EXPECT(aclrtMalloc(&dout, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
        float *hg = malloc(bytes), *hx = malloc(bytes), *ho = malloc(bytes);
        EXPECT_TRUE(hg && hx && ho);
        for (int64_t i = 0; i < n; ++i) {
            hg[i] = (float)(i % 7) - 3.0f;
            hx[i] = (float)(i % 9) * 0.5f - 2.0f;
        }
        EXPECT(aclrtMemcpy(dg, bytes, hg, bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
        EXPECT(aclrtMemcpy(dx, bytes, hx, bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
        aclTensor *g = tensor_on(dg, n), *x = tensor_on(dx, n), *o = tensor_on(dout, n);
        EXPECT_TRUE(g && x && o);
        aclScalar *lo, *hi;
        float vlo = -1.0f, vhi = 1.0f;
        lo = aclCreateScalar(&vlo, ACL_FLOAT);
        hi = aclCreateScalar(&vhi, ACL_FLOAT);
        for (int rep = 0; rep < 3; ++rep) {
            EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
            uint64_t ws = 0;
            aclOpExecutor *ex = NULL;
            EXPECT(aclnnHardtanhBackwardGetWorkspaceSize(g, x, lo, hi, o, &ws, &ex), ACL_SUCCESS);
            EXPECT(ws, 0);
            EXPECT(aclnnHardtanhBackward(NULL, 0, ex, s), ACL_SUCCESS);
            hgLiveCounts c;
            EXPECT(hgGetLiveCounts(&c), ACL_SUCCESS);
            if (n == 8 && inline_on())
                EXPECT(c.executors, 0); /* ran and released inside the launch */
            EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
            EXPECT(hgGetLiveCounts(&c), ACL_SUCCESS);
            EXPECT(c.executors, 0);
            /* a consumed executor is refused the same way */
            EXPECT(aclnnHardtanhBackward(NULL, 0, ex, s), ACLNN_ERR_PARAM_INVALID);
            EXPECT_MSG("already run");
            EXPECT(aclrtMemcpy(ho, bytes, dout, bytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
            for (int64_t i = 0; i < n; ++i) {
                float want = (hx[i] <= -1.0f || hx[i] >= 1.0f) ? 0.0f : hg[i];
                if (ho[i] != want) {
                    printf("FAIL %s: n=%lld out[%lld] = %g, expected %g\n", g_check, (long long)n, (long long)i,
                           (double)ho[i], (double)want);
                    exit(1);
                }
            }
            EXPECT(aclrtMemset(dout, bytes, 0x7f, bytes), ACL_SUCCESS);
        }
        aclDestroyScalar(lo);
        aclDestroyScalar(hi);
        aclDestroyTensor(g);
        aclDestroyTensor(x);
        aclDestroyTensor(o);
        free(hg);
        free(hx);
        free(ho);
        EXPECT(aclrtFree(dg), ACL_SUCCESS);
        EXPECT(aclrtFree(dx), ACL_SUCCESS);
        EXPECT(aclrtFree(dout), ACL_SUCCESS);
    }
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown_all_freed();
}

/* One usable CPU for the whole process (the worker inherits it): hand-offs to the worker
 * (tasks of unknown size, events, synchronizes) and inline runs interleave without a
 * hang, in order. */
static void check_single_cpu_hand_offs(void)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &one);
    EXPECT(sched_setaffinity(0, sizeof one, &one), 0);
    setup();
    aclrtStream s;
    aclrtEvent ev;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    EXPECT(aclrtCreateEvent(&ev), ACL_SUCCESS);
    reset_log();
    static probe tasks[400];
    memset(tasks, 0, sizeof tasks);
    for (int i = 0; i < 400; ++i) {
        EXPECT(hg_stream_launch(s, "test", probe_task, &tasks[i], i % 3 == 0 ? COST_UNKNOWN : SMALL), ACL_SUCCESS);
        if (i % 5 == 0) {
            EXPECT(aclrtRecordEvent(ev, s), ACL_SUCCESS);
            EXPECT(aclrtSynchronizeEvent(ev), ACL_SUCCESS);
        }
        if (i % 2 == 0)
            EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    }
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    for (int i = 0; i < 400; ++i)
        EXPECT(atomic_load(&tasks[i].order), i + 1);
    EXPECT(atomic_load(&g_overlaps), 0);
    EXPECT(aclrtDestroyEvent(ev), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown_all_freed();
}

/* A task above the always-inline size (1024 elements) but within the limit (4096) runs in
 * the launch when the worker sleeps (here: no polling, PYACL_HARDGRAD_SPIN_US=0, and a pause
 * long enough for it to park); one above the limit never does. */
static void check_mid_size_inline_when_worker_sleeps(void)
{
    setenv("PYACL_HARDGRAD_SPIN_US", "0", 1);
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    for (int round = 0; round < 3; ++round) {
        reset_log();
        probe mid = {0}, over = {0};
        sleep_ms(20);
        EXPECT(hg_stream_launch(s, "test", probe_task, &mid, 2048), ACL_SUCCESS);
        EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
        EXPECT(ran_here(&mid), inline_on());
        sleep_ms(20);
        EXPECT(hg_stream_launch(s, "test", probe_task, &over, 4097), ACL_SUCCESS);
        EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
        EXPECT_TRUE(!ran_here(&over));
        EXPECT(atomic_load(&mid.order), 1);
        EXPECT(atomic_load(&over.order), 2);
    }
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown_all_freed();
}

/* A thread that says it waits for its launches (hgSetSynchronousLaunch) gets a kernel task of
 * any size run in the launch when the stream is idle; a task of unknown size still goes to the
 * worker, on a busy stream the task queues behind what runs, and the setting belongs to the
 * thread that made it (another thread's large task, and this thread's after switching back,
 * go to the worker). */
typedef struct {
    aclrtStream s;
    probe p;
} other_launch;

static void *launch_large_task(void *arg)
{
    other_launch *o = arg;
    EXPECT(hg_stream_launch(o->s, "test", probe_task, &o->p, 1u << 24), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(o->s), ACL_SUCCESS);
    EXPECT_TRUE(!ran_here(&o->p));
    return NULL;
}

static void check_synchronous_launch_runs_any_size_in_launch(void)
{
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    EXPECT(hgSetSynchronousLaunch(1), ACL_SUCCESS);
    for (int round = 0; round < 3; ++round) {
        reset_log();
        probe large = {0}, unknown = {0}, blocker = {0}, behind = {0};
        EXPECT(hg_stream_launch(s, "test", probe_task, &large, 1u << 24), ACL_SUCCESS);
        if (inline_on())
            EXPECT(atomic_load(&large.order), 1); /* done when the launch returns */
        EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
        EXPECT(ran_here(&large), inline_on());
        EXPECT(hg_stream_launch(s, "test", probe_task, &unknown, COST_UNKNOWN), ACL_SUCCESS);
        EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
        EXPECT_TRUE(!ran_here(&unknown));
        atomic_int gate = 0;
        blocker.gate = &gate;
        EXPECT(hg_stream_launch(s, "test", probe_task, &blocker, COST_UNKNOWN), ACL_SUCCESS);
        EXPECT(hg_stream_launch(s, "test", probe_task, &behind, 1u << 24), ACL_SUCCESS);
        EXPECT(atomic_load(&behind.order), 0);
        atomic_store(&gate, 1);
        EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
        EXPECT_TRUE(!ran_here(&behind));
        EXPECT(atomic_load(&blocker.order), 3);
        EXPECT(atomic_load(&behind.order), 4);
        EXPECT(atomic_load(&g_overlaps), 0);
    }
    other_launch other = {s, {0}};
    pthread_t t;
    EXPECT(pthread_create(&t, NULL, launch_large_task, &other), 0);
    EXPECT(pthread_join(t, NULL), 0);
    EXPECT(hgSetSynchronousLaunch(0), ACL_SUCCESS);
    probe after = {0};
    EXPECT(hg_stream_launch(s, "test", probe_task, &after, 1u << 24), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT_TRUE(!ran_here(&after));
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown_all_freed();
}

static const named_check CHECKS[] = {
    {"idle_small_runs_in_launch", check_idle_small_runs_in_launch},
    {"busy_stream_queues_small_task", check_busy_stream_queues_small_task},
    {"inline_run_holds_stream_order", check_inline_run_holds_stream_order},
    {"events_bracket_inline_task", check_events_bracket_inline_task},
    {"destroy_waits_for_inline_task", check_destroy_waits_for_inline_task},
    {"concurrent_launchers_keep_order", check_concurrent_launchers_keep_order},
    {"operator_launch_inline", check_operator_launch_inline},
    {"single_cpu_hand_offs", check_single_cpu_hand_offs},
    {"mid_size_inline_when_worker_sleeps", check_mid_size_inline_when_worker_sleeps},
    {"synchronous_launch_runs_any_size_in_launch", check_synchronous_launch_runs_any_size_in_launch},
};

NAMED_CHECKS_MAIN(CHECKS)
