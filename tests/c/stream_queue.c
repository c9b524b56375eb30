/* Stream queue under pressure: ring growth while the worker is blocked or busy, several
 * producers at once, every task kind carried through a growth, and a destroy that must
 * drain a grown queue.
 *     stream_queue <check> | --list
 * Every check asserts exact values; the first mismatch prints and exits 1. */
#define _GNU_SOURCE
#include <pthread.h>

#include "runtime_harness.h"

/* The worker appends (producer, index) pairs; only the worker writes the log. */
enum { PRODUCERS = 4, PER_PRODUCER = 3000 };

typedef struct {
    int producer, index;
} entry;

static entry g_log[PRODUCERS * PER_PRODUCER];
static int g_len;
static entry g_items[PRODUCERS][PER_PRODUCER];

static void log_task(void *p)
{
    g_log[g_len++] = *(entry *)p;
}

typedef struct {
    aclrtStream stream;
    int producer;
} producer_arg;

static void *producer_main(void *p)
{
    producer_arg *a = p;
    for (int i = 0; i < PER_PRODUCER; ++i) {
        g_items[a->producer][i] = (entry){a->producer, i};
        EXPECT(hg_stream_submit(a->stream, "test", log_task, &g_items[a->producer][i]), ACL_SUCCESS);
        if ((i & 255) == 0)
            sched_yield(); /* let the producers interleave */
    }
    return NULL;
}

/* Each producer's tasks ran exactly once and in its submission order. */
static void expect_log_complete(void)
{
    EXPECT(g_len, PRODUCERS * PER_PRODUCER);
    int next[PRODUCERS] = {0};
    for (int i = 0; i < g_len; ++i) {
        int p = g_log[i].producer;
        EXPECT(p >= 0 && p < PRODUCERS, 1);
        EXPECT(g_log[i].index, next[p]);
        next[p]++;
    }
}

static void run_producers(aclrtStream s)
{
    pthread_t t[PRODUCERS];
    producer_arg a[PRODUCERS];
    for (int i = 0; i < PRODUCERS; ++i) {
        a[i] = (producer_arg){s, i};
        EXPECT(pthread_create(&t[i], NULL, producer_main, &a[i]), 0);
    }
    for (int i = 0; i < PRODUCERS; ++i)
        pthread_join(t[i], NULL);
}

/* The worker is held, so all 12000 tasks sit in the queue: the ring grows several times. */
static void check_growth_while_blocked(void)
{
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    close_gate();
    g_len = 0;
    EXPECT(hg_stream_submit(s, "test", gate_task, NULL), ACL_SUCCESS);
    run_producers(s);
    EXPECT(g_len, 0);
    open_gate();
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    expect_log_complete();
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown_all_freed();
}

/* The worker consumes while producers race ahead: growth happens while it reads the ring. */
static void check_growth_while_running(void)
{
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    for (int round = 0; round < 5; ++round) {
        g_len = 0;
        run_producers(s);
        EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
        expect_log_complete();
    }
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown_all_freed();
}

/* Copies and fills queued behind the gate keep their fields through ring growth. */
static void check_growth_keeps_task_fields(void)
{
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    enum { N = 700 };
    uint8_t *scratch, *out;
    EXPECT(aclrtMalloc((void **)&scratch, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtMalloc((void **)&out, N, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    close_gate();
    EXPECT(hg_stream_submit(s, "test", gate_task, NULL), ACL_SUCCESS);
    for (int i = 0; i < N; ++i) {
        EXPECT(aclrtMemsetAsync(scratch, 256, (i * 7) & 0xff, 256, s), ACL_SUCCESS);
        EXPECT(aclrtMemcpyAsync(out + i, 1, scratch + (i % 256), 1, ACL_MEMCPY_DEVICE_TO_DEVICE, s), ACL_SUCCESS);
    }
    open_gate();
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    uint8_t host[N];
    EXPECT(aclrtMemcpy(host, N, out, N, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    for (int i = 0; i < N; ++i)
        EXPECT(host[i], (i * 7) & 0xff);
    EXPECT(aclrtFree(scratch), ACL_SUCCESS);
    EXPECT(aclrtFree(out), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown_all_freed();
}

static atomic_int g_after_wait;

static void mark_task(void *p)
{
    (void)p;
    atomic_fetch_add(&g_after_wait, 1);
}

/* Event record and wait tasks queued behind a grown queue still order two streams. */
static void check_events_through_growth(void)
{
    setup();
    aclrtStream a, b;
    aclrtEvent ev;
    EXPECT(aclrtCreateStream(&a), ACL_SUCCESS);
    EXPECT(aclrtCreateStream(&b), ACL_SUCCESS);
    EXPECT(aclrtCreateEvent(&ev), ACL_SUCCESS);
    close_gate();
    atomic_store(&g_after_wait, 0);
    g_len = 0;
    EXPECT(hg_stream_submit(a, "test", gate_task, NULL), ACL_SUCCESS);
    for (int i = 0; i < 500; ++i) {
        g_items[0][i] = (entry){0, i};
        EXPECT(hg_stream_submit(a, "test", log_task, &g_items[0][i]), ACL_SUCCESS);
    }
    EXPECT(aclrtRecordEvent(ev, a), ACL_SUCCESS);
    EXPECT(aclrtStreamWaitEvent(b, ev), ACL_SUCCESS);
    for (int i = 0; i < 300; ++i)
        EXPECT(hg_stream_submit(b, "test", mark_task, NULL), ACL_SUCCESS);
    sleep_ms(20);
    EXPECT(atomic_load(&g_after_wait), 0); /* b waits for a's record, a for the gate */
    open_gate();
    EXPECT(aclrtSynchronizeStream(b), ACL_SUCCESS);
    EXPECT(atomic_load(&g_after_wait), 300);
    EXPECT(g_len, 500); /* a's tasks before the record all ran */
    for (int i = 0; i < 500; ++i)
        EXPECT(g_log[i].index, i);
    EXPECT(aclrtDestroyEvent(ev), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(a), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(b), ACL_SUCCESS);
    teardown_all_freed();
}

static void *open_gate_later(void *p)
{
    (void)p;
    sleep_ms(30);
    open_gate();
    return NULL;
}

/* Destroying a stream with a grown, full queue runs every task before returning. */
static void check_destroy_drains(void)
{
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    close_gate();
    g_len = 0;
    EXPECT(hg_stream_submit(s, "test", gate_task, NULL), ACL_SUCCESS);
    for (int i = 0; i < 1000; ++i) {
        g_items[0][i] = (entry){0, i};
        EXPECT(hg_stream_submit(s, "test", log_task, &g_items[0][i]), ACL_SUCCESS);
    }
    pthread_t t;
    EXPECT(pthread_create(&t, NULL, open_gate_later, NULL), 0);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    EXPECT(g_len, 1000);
    for (int i = 0; i < 1000; ++i)
        EXPECT(g_log[i].index, i);
    pthread_join(t, NULL);
    teardown_all_freed();
}

static atomic_int g_pings;

static void ping_task(void *p)
{
    (void)p;
    atomic_fetch_add(&g_pings, 1);
}

/* Submit+synchronize round trips with idle gaps: the worker parks and is woken, and the
 * synchronising caller parks and is woken, many times over. */
static void check_park_and_wake(void)
{
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    atomic_store(&g_pings, 0);
    for (int i = 0; i < 40; ++i) {
        if (i % 4 == 0)
            sleep_ms(3); /* longer than the default spin: the worker parks */
        EXPECT(hg_stream_submit(s, "test", i % 2 ? ping_task : gate_task, NULL), ACL_SUCCESS);
        open_gate();
        EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
        EXPECT(atomic_load(&g_pings), (i + 1) / 2);
    }
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown_all_freed();
}

static const named_check CHECKS[] = {
    {"growth_while_blocked", check_growth_while_blocked},
    {"growth_while_running", check_growth_while_running},
    {"growth_keeps_task_fields", check_growth_keeps_task_fields},
    {"events_through_growth", check_events_through_growth},
    {"destroy_drains", check_destroy_drains},
    {"park_and_wake", check_park_and_wake},
};

NAMED_CHECKS_MAIN(CHECKS)
