/* Checks of the runtime families CANN programs and pyACL scripts use beyond the basics:
 * host callbacks on streams, host functions, events with flags and their queries,
 * synchronisation with timeouts, stream configuration and queries, the last-error API,
 * memory (set on acl host memory, cached allocations, 2-D copies, stream value wait and
 * write, memory attributes), devices (force reset, queries, resource limits), peer access
 * and mixed-device use, exception callbacks, and the runtime base helpers (fp16, element
 * sizes, data buffers, log, SoC name, CANN attributes and versions).
 *     runtime_families <name> | --list
 * Every expectation is CANN's documented behaviour; the first mismatch prints and exits 1. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime_harness.h"

/* ------------------------------------------------------------------ helpers */

/* gate_task (the harness's) as a host function holds its stream until released: lets a
 * check observe a stream with work pending, without timing assumptions. */

/* ------------------------------------------------------------------ host callbacks */

typedef struct {
    atomic_int stop;
    aclrtContext ctx;
    int processed_ok;
} processor;

static void *process_loop(void *p)
{
    processor *pr = p;
    EXPECT(aclrtSetCurrentContext(pr->ctx), ACL_SUCCESS);
    while (!atomic_load(&pr->stop)) {
        aclError rc = aclrtProcessReport(20);
        if (rc == ACL_SUCCESS)
            pr->processed_ok++;
        else if (rc == ACL_ERROR_RT_THREAD_SUBSCRIBE)
            sleep_ms(1); /* not subscribed yet (or any more), as in CANN's samples' loops */
        else
            EXPECT(rc, ACL_ERROR_RT_REPORT_TIMEOUT);
    }
    return NULL;
}

static int g_order[16];
static atomic_int g_claimed; /* slots taken */
static atomic_int g_norder;  /* slots written (published after the write) */
static pthread_t g_cb_thread[16];

static void record_cb(void *ud)
{
    int i = atomic_fetch_add(&g_claimed, 1);
    g_order[i] = (int)(intptr_t)ud;
    g_cb_thread[i] = pthread_self();
    atomic_fetch_add(&g_norder, 1);
}

static void reset_order(void)
{
    atomic_store(&g_claimed, 0);
    atomic_store(&g_norder, 0);
}

static void check_callbacks_report(void)
{
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    /* argument checks, before any subscription */
    EXPECT(aclrtProcessReport(0), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtProcessReport", "timeout");
    EXPECT(aclrtProcessReport(-2), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtProcessReport(10), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    EXPECT_MSG("aclrtProcessReport", "aclrtSubscribeReport");
    EXPECT(aclrtLaunchCallback(record_cb, NULL, ACL_CALLBACK_BLOCK, s), ACL_ERROR_RT_STREAM_NO_CB_REG);
    EXPECT_MSG("aclrtLaunchCallback", "aclrtSubscribeReport");
    EXPECT(aclrtLaunchCallback(record_cb, NULL, (aclrtCallbackBlockType)2, s), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtLaunchCallback", "blockType");
    EXPECT(aclrtLaunchCallback(NULL, NULL, ACL_CALLBACK_BLOCK, s), ACL_ERROR_RT_PARAM_INVALID);

    processor pr = {0};
    EXPECT(aclrtGetCurrentContext(&pr.ctx), ACL_SUCCESS);
    pthread_t th;
    EXPECT(pthread_create(&th, NULL, process_loop, &pr), 0);
    EXPECT(aclrtSubscribeReport((uint64_t)th, s), ACL_SUCCESS);
    EXPECT(aclrtSubscribeReport((uint64_t)th, s), ACL_ERROR_RT_STREAM_SUBSCRIBE); /* one thread per stream */
    EXPECT_MSG("aclrtSubscribeReport", "already subscribed");

    reset_order();
    for (int i = 0; i < 6; ++i)
        EXPECT(aclrtLaunchCallback(record_cb, (void *)(intptr_t)i, i % 2 ? ACL_CALLBACK_NO_BLOCK : ACL_CALLBACK_BLOCK,
                                   s),
               ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    /* the last callback was non-blocking: the stream may finish before it ran */
    for (int spins = 0; atomic_load(&g_norder) < 6 && spins < 5000; ++spins)
        sleep_ms(1);
    EXPECT(atomic_load(&g_norder), 6);
    for (int i = 0; i < 6; ++i) {
        EXPECT(g_order[i], i); /* in the stream's order */
        EXPECT_TRUE(pthread_equal(g_cb_thread[i], th));
    }
    EXPECT(aclrtUnSubscribeReport((uint64_t)th + 1, s), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    EXPECT_MSG("aclrtUnSubscribeReport", "threadId");
    EXPECT(aclrtUnSubscribeReport((uint64_t)th, s), ACL_SUCCESS);
    EXPECT(aclrtUnSubscribeReport((uint64_t)th, s), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    atomic_store(&pr.stop, 1);
    EXPECT(pthread_join(th, NULL), 0);
    EXPECT_TRUE(pr.processed_ok >= 1);

    /* callbacks handed to a thread that never processes them run when the binding goes */
    reset_order();
    EXPECT(aclrtSubscribeReport(12345u, s), ACL_SUCCESS);
    EXPECT(aclrtLaunchCallback(record_cb, (void *)(intptr_t)7, ACL_CALLBACK_BLOCK, s), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    EXPECT(atomic_load(&g_norder), 1);
    EXPECT(g_order[0], 7);
    teardown_all_freed();
}

/* Processing on the calling thread: a callback waits in the queue until ProcessReport. */
static void check_callbacks_same_thread(void)
{
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    EXPECT(aclrtSubscribeReport((uint64_t)pthread_self(), s), ACL_SUCCESS);
    reset_order();
    EXPECT(aclrtLaunchCallback(record_cb, (void *)(intptr_t)3, ACL_CALLBACK_NO_BLOCK, s), ACL_SUCCESS);
    EXPECT(aclrtLaunchCallback(record_cb, (void *)(intptr_t)4, ACL_CALLBACK_BLOCK, s), ACL_SUCCESS);
    int got = 0;
    for (int i = 0; i < 200 && got < 2; ++i) {
        aclError rc = aclrtProcessReport(100);
        EXPECT_TRUE(rc == ACL_SUCCESS || rc == ACL_ERROR_RT_REPORT_TIMEOUT);
        got = atomic_load(&g_norder);
    }
    EXPECT(got, 2);
    EXPECT(g_order[0], 3);
    EXPECT(g_order[1], 4);
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT(aclrtProcessReport(30), ACL_ERROR_RT_REPORT_TIMEOUT);
    EXPECT_MSG("aclrtProcessReport", "30 ms");
    EXPECT(aclrtUnSubscribeReport((uint64_t)pthread_self(), s), ACL_SUCCESS);
    EXPECT(aclrtProcessReport(30), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown();
}

/* ------------------------------------------------------------------ host functions */

static atomic_int g_hf_count;
static void count_fn(void *arg)
{
    atomic_fetch_add(&g_hf_count, (int)(intptr_t)arg);
}

static void check_host_func(void)
{
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    atomic_store(&g_hf_count, 0);
    close_gate();
    EXPECT(aclrtLaunchHostFunc(s, gate_task, NULL), ACL_SUCCESS);
    EXPECT(aclrtLaunchHostFunc(s, count_fn, (void *)(intptr_t)5), ACL_SUCCESS);
    /* later tasks wait for the host function */
    aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;
    EXPECT(aclrtStreamQuery(s, &st), ACL_SUCCESS);
    EXPECT(st, ACL_STREAM_STATUS_NOT_READY);
    EXPECT(atomic_load(&g_hf_count), 0);
    open_gate();
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT(atomic_load(&g_hf_count), 5);
    EXPECT(aclrtStreamQuery(s, &st), ACL_SUCCESS);
    EXPECT(st, ACL_STREAM_STATUS_COMPLETE);
    EXPECT(aclrtLaunchHostFunc(s, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
    /* the subscribed host-function path is IPV350-only */
    EXPECT(aclrtSubscribeHostFunc(1, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_MSG("aclrtSubscribeHostFunc", "not supported");
    EXPECT(aclrtProcessHostFunc(10), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT(aclrtUnSubscribeHostFunc(1, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown();
}

/* ------------------------------------------------------------------ events */

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* aclrtQueryEvent is deprecated, still works */
static void check_event_flags(void)
{
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    aclrtEvent sync_ev, plain, tl, ex;
    EXPECT(aclrtCreateEventWithFlag(&sync_ev, ACL_EVENT_SYNC), ACL_SUCCESS);
    EXPECT(aclrtCreateEventWithFlag(&plain, 0), ACL_SUCCESS);
    EXPECT(aclrtCreateEventWithFlag(&tl, ACL_EVENT_TIME_LINE | ACL_EVENT_SYNC), ACL_SUCCESS);
    EXPECT(aclrtCreateEventExWithFlag(&ex, ACL_EVENT_TIME_LINE), ACL_SUCCESS);
    aclrtEvent bad;
    EXPECT(aclrtCreateEventWithFlag(&bad, ACL_EVENT_IPC), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_MSG("aclrtCreateEventWithFlag", "ACL_EVENT_IPC");
    EXPECT(aclrtCreateEventWithFlag(&bad, 0x100), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtCreateEventWithFlag(NULL, ACL_EVENT_SYNC), ACL_ERROR_INVALID_PARAM);

    /* status before any record: not ready, except an Ex event */
    aclrtEventRecordedStatus rs;
    aclrtEventWaitStatus ws;
    aclrtEventStatus qs;
    EXPECT(aclrtQueryEventStatus(sync_ev, &rs), ACL_SUCCESS);
    EXPECT(rs, ACL_EVENT_RECORDED_STATUS_NOT_READY);
    EXPECT(aclrtQueryEventStatus(ex, &rs), ACL_SUCCESS);
    EXPECT(rs, ACL_EVENT_RECORDED_STATUS_COMPLETE);
    EXPECT(aclrtQueryEvent(sync_ev, &qs), ACL_SUCCESS);
    EXPECT(qs, ACL_EVENT_STATUS_NOT_READY);
    EXPECT(aclrtQueryEventWaitStatus(sync_ev, &ws), ACL_SUCCESS);
    EXPECT(ws, ACL_EVENT_WAIT_STATUS_NOT_READY);

    /* a record behind a closed gate: pending, sync with a timeout gives up */
    close_gate();
    EXPECT(aclrtLaunchHostFunc(s, gate_task, NULL), ACL_SUCCESS);
    EXPECT(aclrtRecordEvent(sync_ev, s), ACL_SUCCESS);
    EXPECT(aclrtRecordEvent(tl, s), ACL_SUCCESS);
    EXPECT(aclrtRecordEvent(ex, s), ACL_SUCCESS);
    EXPECT(aclrtQueryEventStatus(ex, &rs), ACL_SUCCESS);
    EXPECT(rs, ACL_EVENT_RECORDED_STATUS_NOT_READY); /* the record re-captured the stream */
    EXPECT(aclrtSynchronizeEventWithTimeout(sync_ev, 20), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
    EXPECT_MSG("aclrtSynchronizeEventWithTimeout", "20 ms");
    EXPECT(aclrtSynchronizeEventWithTimeout(sync_ev, 0), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
    EXPECT(aclrtSynchronizeEventWithTimeout(sync_ev, -2), ACL_ERROR_RT_PARAM_INVALID);
    uint64_t ts = 0;
    EXPECT(aclrtEventGetTimestamp(tl, &ts), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    open_gate();
    EXPECT(aclrtSynchronizeEventWithTimeout(sync_ev, -1), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeEvent(tl), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeEvent(ex), ACL_SUCCESS);
    EXPECT(aclrtQueryEventStatus(sync_ev, &rs), ACL_SUCCESS);
    EXPECT(rs, ACL_EVENT_RECORDED_STATUS_COMPLETE);
    EXPECT(aclrtQueryEvent(sync_ev, &qs), ACL_SUCCESS);
    EXPECT(qs, ACL_EVENT_STATUS_COMPLETE);
    EXPECT(aclrtQueryEventWaitStatus(sync_ev, &ws), ACL_SUCCESS);
    EXPECT(ws, ACL_EVENT_WAIT_STATUS_COMPLETE);

    /* timestamps: microseconds, only with ACL_EVENT_TIME_LINE */
    EXPECT(aclrtEventGetTimestamp(tl, &ts), ACL_SUCCESS);
    EXPECT_TRUE(ts > 0);
    uint64_t ts_ex = 0;
    EXPECT(aclrtEventGetTimestamp(ex, &ts_ex), ACL_SUCCESS);
    EXPECT_TRUE(ts_ex >= ts);
    EXPECT(aclrtEventGetTimestamp(sync_ev, &ts), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtEventGetTimestamp", "ACL_EVENT_TIME_LINE");
    EXPECT(aclrtEventGetTimestamp(tl, NULL), ACL_ERROR_INVALID_PARAM);
    float ms = -1;
    EXPECT(aclrtEventElapsedTime(&ms, tl, ex), ACL_SUCCESS);
    EXPECT_TRUE(ms >= 0);
    /* elapsed time needs no ACL_EVENT_TIME_LINE: CANN refuses only IPC and external events */
    ms = -1;
    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
    EXPECT(aclrtEventElapsedTime(&ms, sync_ev, tl), ACL_SUCCESS);
    EXPECT_TRUE(ms >= 0);
    EXPECT(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);

    /* what each kind refuses */
    EXPECT(aclrtResetEvent(plain, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtResetEvent", "ACL_EVENT_SYNC");
    EXPECT(aclrtStreamWaitEvent(s, plain), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtStreamWaitEvent", "ACL_EVENT_SYNC");
    EXPECT(aclrtResetEvent(ex, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT(aclrtQueryEvent(ex, &qs), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT(aclrtQueryEventWaitStatus(ex, &ws), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT(aclrtStreamWaitEvent(s, ex), ACL_SUCCESS);
    EXPECT(aclrtResetEvent(sync_ev, s), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT(aclrtQueryEventStatus(sync_ev, &rs), ACL_SUCCESS);
    EXPECT(rs, ACL_EVENT_RECORDED_STATUS_NOT_READY);
    EXPECT(aclrtRecordEventWithFlag(plain, s, ACL_EVENT_RECORD_DEFAULT), ACL_SUCCESS); /* fine without SYNC */
    EXPECT(aclrtRecordEventWithFlag(plain, s, ACL_EVENT_RECORD_EXTERNAL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT(aclrtRecordEventWithFlag(plain, s, 7), ACL_ERROR_INVALID_PARAM);
    uint32_t id1 = 0, id2 = 0, avail = 0;
    EXPECT(aclrtGetEventId(plain, &id1), ACL_SUCCESS);
    EXPECT(aclrtGetEventId(tl, &id2), ACL_SUCCESS);
    EXPECT_TRUE(id1 != id2);
    EXPECT(aclrtGetEventId((aclrtEvent)(uintptr_t)0x1234, &id1), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtGetEventAvailNum(&avail), ACL_SUCCESS);
    EXPECT(avail, 65536 - 4);
    EXPECT(aclrtSynchronizeEvent(plain), ACL_SUCCESS);
    /* flag 0 (neither SYNC nor TIME_LINE): timed too, both ways round */
    ms = -1;
    EXPECT(aclrtEventElapsedTime(&ms, tl, plain), ACL_SUCCESS);
    EXPECT_TRUE(ms >= 0);
    EXPECT(aclrtEventElapsedTime(&ms, plain, plain), ACL_SUCCESS);
    EXPECT_TRUE(ms == 0);
    EXPECT(aclrtEventElapsedTime(&ms, plain, tl), ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL);
    EXPECT(aclrtEventElapsedTime(&ms, plain, sync_ev), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID); /* reset */
    EXPECT_MSG("aclrtEventElapsedTime", "endEvent");

    EXPECT(aclrtDestroyEvent(sync_ev), ACL_SUCCESS);
    EXPECT(aclrtDestroyEvent(plain), ACL_SUCCESS);
    EXPECT(aclrtDestroyEvent(tl), ACL_SUCCESS);
    EXPECT(aclrtDestroyEvent(ex), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown_all_freed();
}
#pragma GCC diagnostic pop

/* ------------------------------------------------------------------ streams */

static void check_stream_timeouts(void)
{
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    close_gate();
    EXPECT(aclrtLaunchHostFunc(s, gate_task, NULL), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStreamWithTimeout(s, 20), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    EXPECT_MSG("aclrtSynchronizeStreamWithTimeout", "20 ms");
    EXPECT(aclrtSynchronizeDeviceWithTimeout(10), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    EXPECT_MSG("aclrtSynchronizeDeviceWithTimeout", "device 0");
    EXPECT(aclrtSynchronizeStreamWithTimeout(s, -5), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtSynchronizeDeviceWithTimeout(-5), ACL_ERROR_RT_PARAM_INVALID);
    aclrtStreamStatus st;
    EXPECT(aclrtStreamQuery(s, &st), ACL_SUCCESS);
    EXPECT(st, ACL_STREAM_STATUS_NOT_READY);
    EXPECT(aclrtStreamQuery(s, NULL), ACL_ERROR_INVALID_PARAM);
    open_gate();
    EXPECT(aclrtSynchronizeStreamWithTimeout(s, -1), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeDeviceWithTimeout(1000), ACL_SUCCESS);
    EXPECT(aclrtStreamQuery(s, &st), ACL_SUCCESS);
    EXPECT(st, ACL_STREAM_STATUS_COMPLETE);
    EXPECT(aclrtStreamQuery(NULL, &st), ACL_SUCCESS); /* the default stream, never used */
    EXPECT(st, ACL_STREAM_STATUS_COMPLETE);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    teardown();
}

static void check_stream_config(void)
{
    setup();
    aclrtStream a, b, c;
    EXPECT(aclrtCreateStreamWithConfig(&a, 3, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC), ACL_SUCCESS);
    EXPECT(aclrtCreateStreamWithConfig(&b, 99, 0), ACL_SUCCESS); /* clamped to the lowest priority */
    EXPECT(aclrtCreateStreamWithConfig(&c, 0, 0x1000), ACL_ERROR_INVALID_PARAM);
    uint32_t v = 0;
    EXPECT(aclrtStreamGetPriority(a, &v), ACL_SUCCESS);
    EXPECT(v, 3);
    EXPECT(aclrtStreamGetFlags(a, &v), ACL_SUCCESS);
    EXPECT(v, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC);
    EXPECT(aclrtStreamGetPriority(b, &v), ACL_SUCCESS);
    EXPECT(v, 7);
    int32_t least = -1, greatest = -1;
    EXPECT(aclrtDeviceGetStreamPriorityRange(&least, &greatest), ACL_SUCCESS);
    EXPECT(least, 7);
    EXPECT(greatest, 0);
    int32_t ida = -1, idb = -1;
    EXPECT(aclrtStreamGetId(a, &ida), ACL_SUCCESS);
    EXPECT(aclrtStreamGetId(b, &idb), ACL_SUCCESS);
    EXPECT_TRUE(ida != idb);

    aclrtStreamConfigHandle *h = aclrtCreateStreamConfigHandle();
    EXPECT_TRUE(h != NULL);
    uint32_t prio = 5;
    EXPECT(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &prio, sizeof prio), ACL_SUCCESS);
    prio = 8;
    EXPECT(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &prio, sizeof prio), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &prio, 2), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtSetStreamConfigOpt", "valueSize");
    size_t flag = 1;
    EXPECT(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flag, sizeof flag), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtSetStreamConfigOpt", "reserved");
    uint32_t flag32 = 0;
    EXPECT(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flag32, sizeof flag32), ACL_SUCCESS);
    flag = 0;
    EXPECT(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flag, sizeof flag), ACL_SUCCESS);
    EXPECT(aclrtSetStreamConfigOpt(h, (aclrtStreamConfigAttr)9, &flag, sizeof flag), ACL_ERROR_INVALID_PARAM);
    EXPECT(h->priority, 5);
    EXPECT(aclrtCreateStreamV2(&c, h), ACL_SUCCESS);
    EXPECT(aclrtStreamGetPriority(c, &v), ACL_SUCCESS);
    EXPECT(v, 5);
    EXPECT(aclrtCreateStreamV2(&c, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtDestroyStreamConfigHandle(h), ACL_SUCCESS);
    EXPECT(aclrtDestroyStreamConfigHandle(NULL), ACL_ERROR_INVALID_PARAM);

    /* failure mode: once per stream */
    EXPECT(aclrtSetStreamFailureMode(a, ACL_STOP_ON_FAILURE), ACL_SUCCESS);
    EXPECT(aclrtSetStreamFailureMode(a, ACL_STOP_ON_FAILURE), ACL_SUCCESS);
    EXPECT(aclrtSetStreamFailureMode(a, ACL_CONTINUE_ON_FAILURE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtSetStreamFailureMode(b, 2), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtSetStreamFailureMode(NULL, ACL_CONTINUE_ON_FAILURE), ACL_SUCCESS);

    /* last task id: tasks on created streams, per thread */
    uint32_t t1 = 0, t2 = 0;
    EXPECT(aclrtLaunchHostFunc(a, gate_task, NULL), ACL_SUCCESS);
    EXPECT(aclrtGetThreadLastTaskId(&t1), ACL_SUCCESS);
    open_gate();
    EXPECT(aclrtLaunchHostFunc(a, gate_task, NULL), ACL_SUCCESS);
    EXPECT(aclrtGetThreadLastTaskId(&t2), ACL_SUCCESS);
    EXPECT(t2, t1 + 1);
    uint32_t avail = 0;
    EXPECT(aclrtGetStreamAvailableNum(&avail), ACL_SUCCESS);
    EXPECT_TRUE(avail > 0);

    EXPECT(aclrtDestroyStream(a), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(b), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(c), ACL_SUCCESS);
    teardown_all_freed();
}

static void check_destroy_stream_force(void)
{
    setup();
    aclrtStream s;
    uint64_t *word;
    EXPECT(aclrtMalloc((void **)&word, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtMemset(word, 64, 0, 64), ACL_SUCCESS);
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    /* a wait nothing will satisfy: a normal destroy would wait for ever, force does not */
    EXPECT(aclrtValueWait(word, 1, ACL_STREAM_WAIT_VALUE_EQ, s), ACL_SUCCESS);
    EXPECT(aclrtMemsetAsync(word + 1, 8, 0x55, 8, s), ACL_SUCCESS);
    EXPECT(aclrtDestroyStreamForce(s), ACL_SUCCESS);
    EXPECT(((uint8_t *)(word + 1))[0], 0); /* queued work after the wait was dropped */
    EXPECT(aclrtDestroyStreamForce(s), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT(aclrtDestroyStreamForce(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtFree(word), ACL_SUCCESS);
    teardown_all_freed();
}

/* ------------------------------------------------------------------ memory */

static void check_memory_extras(void)
{
    setup();
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    uint8_t *host, *dev, *cached, *al32;
    EXPECT(aclrtMallocHost((void **)&host, 256), ACL_SUCCESS);
    EXPECT(aclrtMalloc((void **)&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtMallocCached((void **)&cached, 100, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    EXPECT(aclrtMallocAlign32((void **)&al32, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT((uintptr_t)al32 % 32, 0);
    EXPECT(aclrtMallocCached(NULL, 100, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_ERROR_INVALID_PARAM);

    /* memset on acl host memory, synchronous and on a stream */
    EXPECT(aclrtMemset(host, 256, 0x11, 256), ACL_SUCCESS);
    EXPECT(host[255], 0x11);
    EXPECT(aclrtMemsetAsync(host + 128, 128, 0x22, 64, s), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT(host[127], 0x11);
    EXPECT(host[128], 0x22);
    EXPECT(host[192], 0x11);
    EXPECT(aclrtMemset(host + 200, 100, 0, 100), ACL_ERROR_RT_PARAM_INVALID); /* past the block */
    EXPECT(aclrtMemset(cached, 100, 3, 100), ACL_SUCCESS);
    /* 32-bit sets */
    EXPECT(aclrtMemsetD32(al32, 100, 0xdeadbeefu, 25), ACL_SUCCESS);
    EXPECT(((uint32_t *)(void *)al32)[24], 0xdeadbeefu);
    EXPECT(aclrtMemsetD32(al32, 96, 1, 25), ACL_ERROR_RT_PARAM_INVALID); /* 100 bytes > memSize */
    EXPECT(aclrtMemsetD32(al32 + 2, 96, 1, 4), ACL_ERROR_RT_PARAM_INVALID); /* unaligned */
    EXPECT(aclrtMemsetD32Async(host, 256, 0x01020304u, 2, s), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT(host[0], 0x04);
    EXPECT(host[7], 0x01);
    EXPECT(host[8], 0x11);

    /* 2-D copies: 4 rows of 8 bytes out of pitch-16 host rows into pitch-32 device rows */
    for (int i = 0; i < 256; ++i)
        host[i] = (uint8_t)i;
    EXPECT(aclrtMemset(dev, 256, 0xee, 256), ACL_SUCCESS);
    EXPECT(aclrtMemcpy2d(dev, 32, host, 16, 8, 4, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    uint8_t back[256];
    EXPECT(aclrtMemcpy(back, 256, dev, 256, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT(back[0], 0);
    EXPECT(back[7], 7);
    EXPECT(back[8], 0xee);
    EXPECT(back[32], 16);
    EXPECT(back[96 + 7], 48 + 7);
    EXPECT(back[128], 0xee);
    memset(host, 0, 256);
    EXPECT(aclrtMemcpy2dAsync(host, 8, dev, 32, 8, 4, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT(host[8], 16);
    EXPECT(host[31], 48 + 7);
    EXPECT(aclrtMemcpy2d(dev, 32, host, 16, 8, 4, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtMemcpy2d", "kind");
    EXPECT(aclrtMemcpy2d(dev, 4, host, 16, 8, 4, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtMemcpy2d", "dpitch");
    EXPECT(aclrtMemcpy2d(dev, 64, host, 16, 8, 5, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpy2d(dev, 32, host, 16, 0, 4, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);

    /* memory attributes */
    size_t fr = 0, tot = 0;
    for (int a = ACL_DDR_MEM; a <= ACL_MEM_P2P_HUGE1G; ++a)
        EXPECT(aclrtGetMemInfo((aclrtMemAttr)a, &fr, &tot), ACL_SUCCESS);
    EXPECT(aclrtGetMemInfo((aclrtMemAttr)18, &fr, &tot), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetMemInfo(ACL_HBM_MEM_P2P_HUGE1G, &fr, &tot), ACL_SUCCESS);
    EXPECT(tot, (size_t)32 << 30);

    /* value write and wait across two streams */
    aclrtStream w;
    EXPECT(aclrtCreateStream(&w), ACL_SUCCESS);
    uint64_t *word = (uint64_t *)dev;
    EXPECT(aclrtMemset(dev, 256, 0, 256), ACL_SUCCESS);
    EXPECT(aclrtValueWait(word, 3, ACL_STREAM_WAIT_VALUE_GEQ, w), ACL_SUCCESS);
    EXPECT(aclrtMemsetAsync(dev + 8, 8, 9, 8, w), ACL_SUCCESS);
    aclrtStreamStatus st;
    EXPECT(aclrtStreamQuery(w, &st), ACL_SUCCESS);
    EXPECT(st, ACL_STREAM_STATUS_NOT_READY);
    EXPECT(aclrtValueWrite(word, 2, 0, s), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStreamWithTimeout(w, 20), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT); /* 2 < 3 */
    EXPECT(aclrtValueWrite(word, 5, 0, s), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(w), ACL_SUCCESS);
    EXPECT(dev[8], 9);
    EXPECT(aclrtValueWait(word, 5, ACL_STREAM_WAIT_VALUE_EQ, w), ACL_SUCCESS);
    EXPECT(aclrtValueWait(word, 4, ACL_STREAM_WAIT_VALUE_AND, w), ACL_SUCCESS);
    EXPECT(aclrtValueWait(word, 2, ACL_STREAM_WAIT_VALUE_NOR, w), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(w), ACL_SUCCESS);
    EXPECT(aclrtValueWait(word, 1, 4, w), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtValueWrite(word, 1, 1, w), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtValueWrite(dev + 4, 1, 0, w), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtValueWrite", "aligned");
    EXPECT(aclrtValueWrite(back, 1, 0, w), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtValueWrite", "device allocation");

    EXPECT(aclrtDestroyStream(w), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    EXPECT(aclrtFreeHost(host), ACL_SUCCESS);
    EXPECT(aclrtFree(dev), ACL_SUCCESS);
    EXPECT(aclrtFreeWithDevSync(cached), ACL_SUCCESS);
    EXPECT(aclrtFree(al32), ACL_SUCCESS);
    EXPECT(aclrtFreeWithDevSync(al32), ACL_ERROR_RT_PARAM_INVALID); /* already freed */
    teardown_all_freed();
}

/* ------------------------------------------------------------------ last error */

static void check_last_error(void)
{
    setup();
    EXPECT(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
    /* argument checks of the ACL layer leave it alone */
    EXPECT(aclrtGetRunMode(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
    /* runtime-layer failures set it; peek keeps it, get clears it */
    EXPECT(aclrtFree((void *)(uintptr_t)0x1000), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
    EXPECT(aclrtSetDevice(99), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT(aclrtGetLastError((aclrtLastErrLevel)1), ACL_ERROR_INVALID_PARAM);
    EXPECT_MSG("aclrtGetLastError", "ACL_RT_THREAD_LEVEL");
    /* the message is consumed once */
    EXPECT(aclrtFree(NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_TRUE(aclGetRecentErrMsg() != NULL);
    EXPECT_TRUE(aclGetRecentErrMsg() == NULL);
    aclrtErrorInfo info;
    memset(&info, 0xff, sizeof info);
    EXPECT(aclrtGetErrorVerbose(0, &info), ACL_SUCCESS);
    EXPECT(info.errorType, ACL_RT_NO_ERROR);
    EXPECT(info.hasDetail, 0);
    EXPECT(aclrtGetErrorVerbose(5, &info), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT(aclrtGetErrorVerbose(0, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_TRUE(sizeof(aclrtErrorInfo) == 2576 || sizeof(void *) != 8);
    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
    teardown();
}

/* ------------------------------------------------------------------ exceptions */

static void on_exception(aclrtExceptionInfo *info)
{
    (void)info;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* aclrtSetExceptionInfoCallback */
static void check_exception_callbacks(void)
{
    EXPECT(aclrtSetExceptionInfoCallback(on_exception), ACL_SUCCESS);
    EXPECT(aclrtSetExceptionInfoCallback(NULL), ACL_SUCCESS);
    EXPECT(aclrtExceptionInfoCallbackRegister(NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtExceptionInfoCallbackRegister(on_exception), ACL_SUCCESS);
    EXPECT(aclrtExceptionInfoCallbackRegister(on_exception), ACL_SUCCESS);
    EXPECT(aclrtExceptionInfoCallbackUnregister(on_exception), ACL_SUCCESS);
    EXPECT(aclrtExceptionInfoCallbackUnregister(on_exception), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtGetTaskIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    EXPECT(aclrtGetStreamIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    EXPECT(aclrtGetThreadIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    EXPECT(aclrtGetDeviceIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    EXPECT(aclrtGetErrorCodeFromExceptionInfo(NULL), 0xFFFFFFFFu);
    void *args = NULL;
    uint32_t len = 0;
    EXPECT((uint32_t)aclrtGetArgsFromExceptionInfo(NULL, &args, &len), 0xFFFFFFFFu);
    aclrtFuncHandle fh;
    EXPECT((uint32_t)aclrtGetFuncHandleFromExceptionInfo(NULL, &fh), 0xFFFFFFFFu);
}
#pragma GCC diagnostic pop

/* ------------------------------------------------------------------ devices */

static void check_device_extras(void)
{
    /* run with PYACL_HARDGRAD_DEVICE_COUNT=2 */
    EXPECT(aclInit(NULL), ACL_SUCCESS);
    EXPECT(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT(aclrtSetDevice(0), ACL_SUCCESS);
    aclrtStream s, dflt = (aclrtStream)(uintptr_t)1;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    EXPECT(aclrtCtxGetCurrentDefaultStream(&dflt), ACL_SUCCESS);
    EXPECT_TRUE(dflt == NULL);
    EXPECT(aclrtCtxGetCurrentDefaultStream(NULL), ACL_ERROR_INVALID_PARAM);
    aclrtDeviceStatus ds = ACL_RT_DEVICE_STATUS_END;
    EXPECT(aclrtQueryDeviceStatus(1, &ds), ACL_SUCCESS);
    EXPECT(ds, ACL_RT_DEVICE_STATUS_NORMAL);
    EXPECT(aclrtQueryDeviceStatus(2, &ds), ACL_ERROR_RT_INVALID_DEVICEID);
    aclrtUtilizationInfo ui = {0};
    EXPECT(aclrtGetDeviceUtilizationRate(0, &ui), ACL_SUCCESS);
    EXPECT(ui.memoryUtilization, 0);
    int64_t v = 0;
    EXPECT(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_VECTOR_CORE_NUM, &v), ACL_SUCCESS);
    EXPECT_TRUE(v > 0);
    EXPECT(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &v), ACL_SUCCESS);
    EXPECT(v, (int64_t)32 << 30);
    EXPECT(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_WARP_SIZE, &v), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_MSG("aclrtGetDeviceInfo", "not reported");
    uint32_t lim = 0, cur = 0;
    EXPECT(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &lim), ACL_SUCCESS);
    EXPECT(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, 1), ACL_SUCCESS);
    EXPECT(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &cur), ACL_SUCCESS);
    EXPECT(cur, 1);
    EXPECT(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, lim + 1), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtResetDeviceResLimit(0), ACL_SUCCESS);
    EXPECT(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &cur), ACL_SUCCESS);
    EXPECT(cur, lim);
    int32_t ok = -1;
    EXPECT(aclrtGetDeviceCapability(0, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &ok), ACL_SUCCESS);
    EXPECT(ok, ACL_DEV_FEATURE_NOT_SUPPORT);
    EXPECT(aclrtCheckArchCompatibility(aclrtGetSocName(), &ok), ACL_SUCCESS);
    EXPECT(ok, 1);
    EXPECT(aclrtCheckArchCompatibility("Ascend310P3", &ok), ACL_SUCCESS);
    EXPECT(ok, 0);
    uint32_t cflags = 9;
    int32_t active = -1;
    EXPECT(aclrtGetPrimaryCtxState(0, &cflags, &active), ACL_SUCCESS);
    EXPECT(cflags, 0);
    EXPECT(active, 1);
    EXPECT(aclrtGetPrimaryCtxState(1, &cflags, &active), ACL_SUCCESS);
    EXPECT(active, 0);
    int64_t opt = -1;
    EXPECT(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &opt), ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
    EXPECT(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
    EXPECT(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &opt), ACL_SUCCESS);
    EXPECT(opt, 1);
    EXPECT(aclrtCtxSetSysParamOpt((aclSysParamOpt)7, 1), ACL_ERROR_INVALID_PARAM);
    /* force reset: whatever the count, the streams go */
    EXPECT(aclrtResetDeviceForce(0), ACL_SUCCESS);
    EXPECT(aclrtGetPrimaryCtxState(0, &cflags, &active), ACL_SUCCESS);
    EXPECT(active, 0);
    EXPECT(aclrtSynchronizeStream(s), ACL_ERROR_RT_INVALID_HANDLE);
    int32_t dev = -1;
    EXPECT(aclrtGetDevice(&dev), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT(aclrtResetDeviceForce(0), ACL_SUCCESS);
    EXPECT(aclrtResetDeviceForce(7), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT(aclFinalize(), ACL_SUCCESS);
    expect_all_zero();
}

/* ------------------------------------------------------------------ peer access, mixed devices */

static void check_peer_and_mixed_devices(void)
{
    /* run with PYACL_HARDGRAD_DEVICE_COUNT=2 */
    EXPECT(aclInit(NULL), ACL_SUCCESS);
    int32_t can = -1;
    EXPECT(aclrtDeviceCanAccessPeer(&can, 0, 1), ACL_SUCCESS);
    EXPECT(can, 1);
    EXPECT(aclrtDeviceCanAccessPeer(&can, 0, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtDeviceCanAccessPeer(&can, 0, 2), ACL_ERROR_RT_INVALID_DEVICEID);
    uint8_t *d0, *d1;
    aclrtStream s0, s1;
    aclrtEvent e0, e1;
    EXPECT(aclrtSetDevice(1), ACL_SUCCESS);
    EXPECT(aclrtMalloc((void **)&d1, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtCreateStream(&s1), ACL_SUCCESS);
    EXPECT(aclrtCreateEvent(&e1), ACL_SUCCESS);
    EXPECT(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT(aclrtMalloc((void **)&d0, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT(aclrtCreateStream(&s0), ACL_SUCCESS);
    EXPECT(aclrtCreateEvent(&e0), ACL_SUCCESS);
    EXPECT(aclrtMemset(d0, 64, 0xab, 64), ACL_SUCCESS);
    uint8_t host_src[32] = {0};

    /* without peer access, device 0 touches no device-1 memory */
    EXPECT(aclrtMemcpy(d1, 64, d0, 64, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtMemcpy", "device 1", "device 0", "aclrtDeviceEnablePeerAccess");
    EXPECT(aclrtMemset(d1, 64, 0, 64), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtMemset", "device 1", "device 0");
    EXPECT(aclrtMemcpyAsync(d1, 64, d0, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, s0), ACL_ERROR_RT_PARAM_INVALID);
    /* a device-1 stream given device-0 memory */
    EXPECT(aclrtMemsetAsync(d0, 64, 0, 64, s1), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtMemsetAsync", "device 0", "device 1");
    /* events and streams of different devices */
    EXPECT(aclrtRecordEvent(e1, s0), ACL_ERROR_RT_STREAM_CONTEXT);
    EXPECT_MSG("aclrtRecordEvent", "device 1", "device 0");
    EXPECT(aclrtStreamWaitEvent(s0, e1), ACL_ERROR_RT_STREAM_CONTEXT);
    EXPECT_MSG("aclrtStreamWaitEvent", "device 1", "device 0");
    EXPECT(aclrtLaunchCallback(record_cb, NULL, ACL_CALLBACK_BLOCK, s1), ACL_ERROR_RT_STREAM_CONTEXT);
    EXPECT_MSG("aclrtLaunchCallback", "device 1", "device 0");
    EXPECT(aclrtDestroyStreamForce(s1), ACL_ERROR_RT_STREAM_CONTEXT);
    EXPECT(aclrtRecordEvent(e0, s0), ACL_SUCCESS);
    EXPECT(aclrtSetDevice(1), ACL_SUCCESS);
    EXPECT(aclrtRecordEvent(e1, s1), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeDevice(), ACL_SUCCESS);
    EXPECT(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeDevice(), ACL_SUCCESS);
    float ms = 0;
    EXPECT(aclrtEventElapsedTime(&ms, e0, e1), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtEventElapsedTime", "device 0", "device 1");
    EXPECT(aclrtMemcpy2dAsync(d1, 16, host_src, 16, 16, 2, ACL_MEMCPY_HOST_TO_DEVICE, s0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtMemcpy2dAsync", "device 1", "device 0");
    EXPECT(aclrtValueWrite(d1, 1, 0, s0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_MSG("aclrtValueWrite", "device 1", "device 0");

    /* with peer access from device 0 to 1: copies across them work from device 0 */
    int32_t status = -1;
    EXPECT(aclrtDevicePeerAccessStatus(0, 1, &status), ACL_SUCCESS);
    EXPECT(status, 0);
    EXPECT(aclrtDeviceEnablePeerAccess(1, 0), ACL_SUCCESS);
    EXPECT(aclrtDeviceEnablePeerAccess(1, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtDeviceEnablePeerAccess(0, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtDeviceEnablePeerAccess(1, 1), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtDevicePeerAccessStatus(0, 1, &status), ACL_SUCCESS);
    EXPECT(status, 1);
    EXPECT(aclrtDevicePeerAccessStatus(1, 0, &status), ACL_SUCCESS);
    EXPECT(status, 0); /* one direction only */
    EXPECT(aclrtMemcpy(d1, 64, d0, 64, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
    EXPECT(aclrtMemcpyAsync(d0, 64, d1, 32, ACL_MEMCPY_DEVICE_TO_DEVICE, s0), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(s0), ACL_SUCCESS);
    uint8_t host[64];
    EXPECT(aclrtMemcpy(host, 64, d1, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT(host[63], 0xab);
    /* the other direction still needs its own enable */
    EXPECT(aclrtSetDevice(1), ACL_SUCCESS);
    EXPECT(aclrtMemcpy(d0, 64, d1, 64, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT(aclrtDeviceDisablePeerAccess(1), ACL_SUCCESS);
    EXPECT(aclrtDeviceDisablePeerAccess(1), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemcpy(d1, 64, d0, 64, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);

    EXPECT(aclrtDestroyStream(s0), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s1), ACL_SUCCESS);
    EXPECT(aclrtDestroyEvent(e0), ACL_SUCCESS);
    EXPECT(aclrtDestroyEvent(e1), ACL_SUCCESS);
    EXPECT(aclrtFree(d0), ACL_SUCCESS);
    EXPECT(aclrtFree(d1), ACL_SUCCESS);
    EXPECT(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT(aclrtResetDevice(1), ACL_SUCCESS);
    EXPECT(aclFinalize(), ACL_SUCCESS);
    expect_all_zero();
}

/* ------------------------------------------------------------------ base helpers */

static void check_fp16_and_sizes(void)
{
    /* before aclInit: these need no runtime */
    EXPECT(aclFloatToFloat16(1.0f), 0x3c00);
    EXPECT(aclFloatToFloat16(-2.0f), 0xc000);
    EXPECT(aclFloatToFloat16(0.5f), 0x3800);
    EXPECT(aclFloatToFloat16(65504.0f), 0x7bff);
    EXPECT(aclFloatToFloat16(65536.0f), 0x7bff); /* saturates, no infinity */
    EXPECT(aclFloatToFloat16(-1e30f), 0xfbff);
    EXPECT(aclFloatToFloat16(1.0f + 1.0f / 2048.0f), 0x3c00); /* tie to even */
    EXPECT(aclFloatToFloat16(1.0f + 3.0f / 2048.0f), 0x3c02);
    EXPECT(aclFloatToFloat16(5.9604645e-08f), 0x0001);        /* smallest subnormal */
    EXPECT(aclFloatToFloat16(2.9802322e-08f), 0x0000);        /* half of it: tie to even */
    EXPECT(aclFloatToFloat16(-0.0f), 0x8000);
    EXPECT_TRUE(aclFloat16ToFloat(0x3c00) == 1.0f);
    EXPECT_TRUE(aclFloat16ToFloat(0x0001) == 5.9604645e-08f);
    EXPECT_TRUE(aclFloat16ToFloat(0x7c00) == 65536.0f); /* exponent 31 read as normal */
    EXPECT_TRUE(aclFloat16ToFloat(0x7e00) == 98304.0f);
    EXPECT_TRUE(aclFloat16ToFloat(0xfbff) == -65504.0f);
    EXPECT(aclDataTypeSize(ACL_FLOAT), 4);
    EXPECT(aclDataTypeSize(ACL_FLOAT16), 2);
    EXPECT(aclDataTypeSize(ACL_BF16), 2);
    EXPECT(aclDataTypeSize(ACL_INT64), 8);
    EXPECT(aclDataTypeSize(ACL_DOUBLE), 8);
    EXPECT(aclDataTypeSize(ACL_COMPLEX64), 8);
    EXPECT(aclDataTypeSize(ACL_COMPLEX128), 16);
    EXPECT(aclDataTypeSize(ACL_COMPLEX32), 4);
    EXPECT(aclDataTypeSize(ACL_BOOL), 1);
    EXPECT(aclDataTypeSize(ACL_INT4), 1);
    EXPECT(aclDataTypeSize(ACL_STRING), 0);
    EXPECT(aclDataTypeSize(ACL_DT_UNDEFINED), 0);
    EXPECT(aclDataTypeSize((aclDataType)1234), 8);

    char buf[8];
    aclDataBuffer *b = aclCreateDataBuffer(buf, sizeof buf);
    EXPECT_TRUE(b != NULL);
    EXPECT_TRUE(aclGetDataBufferAddr(b) == buf);
    EXPECT(aclGetDataBufferSizeV2(b), 8);
    EXPECT(aclUpdateDataBuffer(b, NULL, 0), ACL_SUCCESS);
    EXPECT_TRUE(aclGetDataBufferAddr(b) == NULL);
    EXPECT(aclGetDataBufferSizeV2(b), 0);
    EXPECT(aclDestroyDataBuffer(b), ACL_SUCCESS);
    EXPECT(aclDestroyDataBuffer(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_TRUE(aclGetDataBufferAddr(NULL) == NULL);
    EXPECT(aclGetDataBufferSizeV2(NULL), 0);
}

static void check_soc_log_attrs(void)
{
    /* the log prints to stdout from level 2 (read at the first line: before any call below) */
    setenv("ASCEND_SLOG_PRINT_TO_STDOUT", "1", 1);
    setenv("ASCEND_GLOBAL_LOG_LEVEL", "2", 1);
    const char *soc = aclrtGetSocName(); /* before aclInit */
    EXPECT_TRUE(soc != NULL && strcmp(soc, "Ascend910B") == 0);
    const aclCannAttr *list = NULL;
    size_t n = 0;
    EXPECT(aclGetCannAttributeList(&list, &n), ACL_SUCCESS);
    EXPECT(n, 2);
    EXPECT(list[0], ACL_CANN_ATTR_INF_NAN);
    EXPECT(list[1], ACL_CANN_ATTR_BF16);
    int32_t v = -1;
    EXPECT(aclGetCannAttribute(ACL_CANN_ATTR_BF16, &v), ACL_SUCCESS);
    EXPECT(v, 1);
    EXPECT(aclGetCannAttribute(ACL_CANN_ATTR_JIT_COMPILE, &v), ACL_SUCCESS);
    EXPECT(v, 0);
    EXPECT(aclGetCannAttribute(ACL_CANN_ATTR_UNDEFINED, &v), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclGetCannAttribute(ACL_CANN_ATTR_BF16, NULL), ACL_ERROR_INVALID_PARAM);
    /* log lines at or above the threshold only (printed to stdout here) */
    aclAppLog(ACL_INFO, "f", "dir/file.c", 7, "hidden %d", 1);
    aclAppLog(ACL_WARNING, "f", "dir/file.c", 8, "shown %d", 2);
    ACL_APP_LOG(ACL_ERROR, "macro %s", "line");
    fflush(stdout);
}

static void check_package_versions(void)
{
    char v[ACL_PKG_VERSION_MAX_SIZE];
    int32_t num = 0;
    unsetenv("ASCEND_HOME_PATH");
    EXPECT(aclsysGetVersionStr((char *)"runtime", v), ACL_ERROR_INVALID_FILE);
    EXPECT_MSG("aclsysGetVersionStr", "ASCEND_HOME_PATH");
    EXPECT(aclsysGetVersionStr(NULL, v), ACL_ERROR_INVALID_PARAM);
    char dir[] = "/tmp/hgverXXXXXX";
    EXPECT_TRUE(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/share", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/share/info", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/share/info/runtime", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/share/info/runtime/version.info", dir);
    FILE *f = fopen(path, "w");
    EXPECT_TRUE(f != NULL);
    fputs("Version=9.1.0\nversion_dir=9.1.0\n", f);
    fclose(f);
    setenv("ASCEND_HOME_PATH", dir, 1);
    EXPECT(aclsysGetVersionStr((char *)"runtime", v), ACL_SUCCESS);
    EXPECT_TRUE(strcmp(v, "9.1.0") == 0);
    EXPECT(aclsysGetVersionNum((char *)"runtime", &num), ACL_SUCCESS);
    EXPECT(num, 90100000);
    EXPECT(aclsysGetVersionNum((char *)"compiler", &num), ACL_ERROR_INVALID_FILE);
    aclCANNPackageVersion pv;
    EXPECT(aclsysGetCANNVersion(ACL_PKG_NAME_RUNTIME, &pv), ACL_SUCCESS);
    EXPECT_TRUE(strcmp(pv.majorVersion, "9") == 0 && strcmp(pv.minorVersion, "1") == 0);
    unlink(path);
    snprintf(path, sizeof path, "%s/share/info/runtime", dir);
    rmdir(path);
    snprintf(path, sizeof path, "%s/share/info", dir);
    rmdir(path);
    snprintf(path, sizeof path, "%s/share", dir);
    rmdir(path);
    rmdir(dir);
}

/* ------------------------------------------------------------------ not supported */

static void check_unsupported_features(void)
{
    setup();
    void *p = NULL;
    char key[64];
    aclrtIpcEventHandle eh;
    aclrtEvent ev = NULL;
    aclrtDrvMemHandle mh = NULL;
    aclrtBinHandle bh = NULL;
    aclrtFuncHandle fh = NULL;
    size_t g = 0;
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof prop);
    memset(&eh, 0, sizeof eh);
#define UNSUPPORTED(call, name, word)                                            \
    do {                                                                         \
        EXPECT(call, ACL_ERROR_RT_FEATURE_NOT_SUPPORT);                          \
        EXPECT(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT); \
        EXPECT_MSG(name, "not supported", word);                                 \
    } while (0)
    UNSUPPORTED(aclrtIpcMemGetExportKey(p, 64, key, sizeof key, 0), "aclrtIpcMemGetExportKey", "IPC");
    UNSUPPORTED(aclrtIpcMemImportByKey(&p, "k", 0), "aclrtIpcMemImportByKey", "IPC");
    UNSUPPORTED(aclrtIpcMemSetImportPid("k", NULL, 0), "aclrtIpcMemSetImportPid", "IPC");
    UNSUPPORTED(aclrtIpcMemSetAttr("k", ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 0), "aclrtIpcMemSetAttr", "IPC");
    UNSUPPORTED(aclrtIpcMemClose("k"), "aclrtIpcMemClose", "IPC");
    UNSUPPORTED(aclrtIpcGetEventHandle(ev, &eh), "aclrtIpcGetEventHandle", "IPC");
    UNSUPPORTED(aclrtIpcOpenEventHandle(eh, &ev), "aclrtIpcOpenEventHandle", "IPC");
    UNSUPPORTED(aclrtReserveMemAddress(&p, 1 << 21, 0, NULL, 0), "aclrtReserveMemAddress", "address space");
    UNSUPPORTED(aclrtReleaseMemAddress(p), "aclrtReleaseMemAddress", "address space");
    UNSUPPORTED(aclrtMallocPhysical(&mh, 1 << 21, &prop, 0), "aclrtMallocPhysical", "address space");
    UNSUPPORTED(aclrtFreePhysical(mh), "aclrtFreePhysical", "address space");
    UNSUPPORTED(aclrtMapMem(p, 1 << 21, 0, mh, 0), "aclrtMapMem", "address space");
    UNSUPPORTED(aclrtUnmapMem(p), "aclrtUnmapMem", "address space");
    uint64_t sh = 0;
    UNSUPPORTED(aclrtMemExportToShareableHandle(mh, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh),
                "aclrtMemExportToShareableHandle", "IPC");
    UNSUPPORTED(aclrtMemImportFromShareableHandle(sh, 0, &mh), "aclrtMemImportFromShareableHandle", "IPC");
    UNSUPPORTED(aclrtMemSetPidToShareableHandle(sh, NULL, 0), "aclrtMemSetPidToShareableHandle", "IPC");
    UNSUPPORTED(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
                "aclrtMemGetAllocationGranularity", "address space");
    UNSUPPORTED(aclrtBinaryLoadFromFile("k.o", NULL, &bh), "aclrtBinaryLoadFromFile", "NPU");
    UNSUPPORTED(aclrtBinaryGetFunction(bh, "k", &fh), "aclrtBinaryGetFunction", "NPU");
    UNSUPPORTED(aclrtLaunchKernel(fh, 1, NULL, 0, NULL), "aclrtLaunchKernel", "NPU");
    UNSUPPORTED(aclrtBinaryUnLoad(bh), "aclrtBinaryUnLoad", "NPU");
#undef UNSUPPORTED
    teardown();
}

static const named_check CHECKS[] = {
    {"callbacks_report", check_callbacks_report},
    {"callbacks_same_thread", check_callbacks_same_thread},
    {"host_func", check_host_func},
    {"event_flags", check_event_flags},
    {"stream_timeouts", check_stream_timeouts},
    {"stream_config", check_stream_config},
    {"destroy_stream_force", check_destroy_stream_force},
    {"memory_extras", check_memory_extras},
    {"last_error", check_last_error},
    {"exception_callbacks", check_exception_callbacks},
    {"device_extras", check_device_extras},
    {"peer_and_mixed_devices", check_peer_and_mixed_devices},
    {"fp16_and_sizes", check_fp16_and_sizes},
    {"soc_log_attrs", check_soc_log_attrs},
    {"package_versions", check_package_versions},
    {"unsupported_features", check_unsupported_features},
};

NAMED_CHECKS_MAIN(CHECKS)
