/* Host callbacks on streams and exception callbacks.
 *
 * aclrtSubscribeReport binds a stream to a host thread (by its pthread_t value).
 * aclrtLaunchCallback queues a task; when the stream's worker reaches it, the callback is
 * handed to the bound thread, which runs it inside aclrtProcessReport.  With
 * ACL_CALLBACK_BLOCK the worker waits until it ran, so later tasks of the stream wait too.
 * When the binding goes away (unsubscribe, stream destroyed, device reset, aclFinalize) the
 * callbacks handed over but not processed run on the thread removing it, and callbacks
 * the worker reaches afterwards run on the worker: none is lost and nothing waits for a
 * thread that no longer processes reports.
 *
 * One mutex (g_rep_mu) guards every subscriber, queue and stream binding; the callbacks
 * themselves always run with no lock held. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt_internal.h"

typedef struct hg_report {
    aclrtCallback fn;
    void *user;
    bool block;
    bool done;              /* BLOCK: set once fn returned */
    hg_stream *stream;      /* identity only, never dereferenced by processors */
    uint64_t seq;           /* checking mode: the stream task that handed it over */
    struct hg_report *next;
} hg_report;

struct hg_subscriber {
    uint64_t tid;
    int nstreams;
    int waiting;            /* threads inside aclrtProcessReport on this record */
    hg_report *head, *tail;
    pthread_cond_t arrived;
    struct hg_subscriber *next;
};

static pthread_mutex_t g_rep_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_rep_done = PTHREAD_COND_INITIALIZER; /* a BLOCK callback finished */
static struct hg_subscriber *g_subs;

static struct hg_subscriber *find_sub_locked(uint64_t tid)
{
    for (struct hg_subscriber *s = g_subs; s; s = s->next)
        if (s->tid == tid)
            return s;
    return NULL;
}

static void unlink_sub_locked(struct hg_subscriber *sub)
{
    for (struct hg_subscriber **pp = &g_subs; *pp; pp = &(*pp)->next) {
        if (*pp == sub) {
            *pp = sub->next;
            return;
        }
    }
}

static void maybe_free_sub_locked(struct hg_subscriber *sub)
{
    if (sub->nstreams == 0 && sub->waiting == 0 && !sub->head) {
        unlink_sub_locked(sub);
        pthread_cond_destroy(&sub->arrived);
        free(sub);
    }
}

static void finish_report(hg_report *r)
{
    if (r->block) {
        pthread_mutex_lock(&g_rep_mu);
        r->done = true;
        pthread_cond_broadcast(&g_rep_done);
        pthread_mutex_unlock(&g_rep_mu);
    } else {
        free(r);
    }
}

/* Worker side: hand the callback over, or run it here when nobody is bound. */
static void report_task(void *arg)
{
    hg_report *r = arg;
    pthread_mutex_lock(&g_rep_mu);
    struct hg_subscriber *sub = r->stream->report;
    if (!sub) {
        pthread_mutex_unlock(&g_rep_mu);
        r->fn(r->user);
        free(r);
        return;
    }
    r->next = NULL;
    if (HG_CHECKING())
        hg_chk_task_current(&r->seq);
    if (sub->tail)
        sub->tail->next = r;
    else
        sub->head = r;
    sub->tail = r;
    pthread_cond_broadcast(&sub->arrived);
    if (r->block) {
        while (!r->done)
            pthread_cond_wait(&g_rep_done, &g_rep_mu);
        pthread_mutex_unlock(&g_rep_mu);
        free(r);
        return;
    }
    pthread_mutex_unlock(&g_rep_mu);
}

/* Remove the callbacks of stream s (all when s is NULL) from sub's queue into *out. */
static void take_reports_locked(struct hg_subscriber *sub, hg_stream *s, hg_report **out)
{
    hg_report **pp = &sub->head;
    sub->tail = NULL;
    while (*pp) {
        hg_report *r = *pp;
        if (!s || r->stream == s) {
            *pp = r->next;
            r->next = *out;
            *out = r;
        } else {
            sub->tail = r;
            pp = &r->next;
        }
    }
}

static void run_reports(hg_report *list)
{
    /* taken newest first: reverse to keep the stream's order */
    hg_report *ordered = NULL;
    while (list) {
        hg_report *next = list->next;
        list->next = ordered;
        ordered = list;
        list = next;
    }
    while (ordered) {
        hg_report *next = ordered->next;
        bool as_task = HG_CHECKING() && ordered->seq != 0;
        if (as_task)
            hg_chk_task_begin(ordered->stream, ordered->seq);
        ordered->fn(ordered->user);
        if (as_task)
            hg_chk_task_begin(NULL, 0);
        finish_report(ordered);
        ordered = next;
    }
}

void hg_report_detach_stream(hg_stream *s)
{
    hg_report *pending = NULL;
    pthread_mutex_lock(&g_rep_mu);
    struct hg_subscriber *sub = s->report;
    if (sub) {
        s->report = NULL;
        sub->nstreams--;
        take_reports_locked(sub, s, &pending);
        maybe_free_sub_locked(sub);
    }
    pthread_mutex_unlock(&g_rep_mu);
    run_reports(pending);
}

/* Resolve a stream for the callback calls: live, and of the current device. */
static hg_stream *acquire_current_stream(aclrtStream stream, const char *func, aclError *rc)
{
    pthread_mutex_lock(&hg_rt.mu);
    hg_stream *s = NULL;
    *rc = hg_check_init_locked(func);
    if (!*rc)
        s = hg_stream_acquire_locked(stream, func, true, rc);
    if (s) {
        int dev = hg_current_device_locked();
        if (dev != s->device) {
            if (dev < 0)
                hg_set_error(func, "stream belongs to device %d but no device is set on this thread", s->device);
            else
                hg_set_error(func, "stream belongs to device %d, not to the current device %d", s->device, dev);
            *rc = ACL_ERROR_RT_STREAM_CONTEXT;
            hg_stream_release(s);
            s = NULL;
        }
    }
    pthread_mutex_unlock(&hg_rt.mu);
    return s;
}

/* Queue fn(arg) on s and drop the caller's reference to s; arg (heap) is freed when the
 * task could not be queued. */
static aclError push_and_release(hg_stream *s, const char *func, hg_task_fn fn, void *arg)
{
    hg_task t;
    memset(&t, 0, sizeof t);
    t.kind = HG_TASK_USER;
    t.fn = fn;
    t.arg = arg;
    aclError rc = hg_stream_push(s, &t, func);
    if (rc)
        free(arg);
    hg_stream_release(s);
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    const char *func = "aclrtSubscribeReport";
    aclError rc;
    hg_stream *s = acquire_current_stream(stream, func, &rc);
    if (!s)
        return hg_rt_ret(rc);
    pthread_mutex_lock(&g_rep_mu);
    if (s->report) {
        hg_set_error(func, "stream is already subscribed by thread %llu (one thread per stream)",
                     (unsigned long long)s->report->tid);
        rc = ACL_ERROR_RT_STREAM_SUBSCRIBE;
    } else {
        struct hg_subscriber *sub = find_sub_locked(threadId);
        if (!sub) {
            sub = calloc(1, sizeof *sub);
            if (!sub) {
                hg_set_error(func, "out of host memory");
                rc = ACL_ERROR_RT_MEMORY_ALLOCATION;
            } else {
                sub->tid = threadId;
                pthread_cond_init(&sub->arrived, NULL);
                sub->next = g_subs;
                g_subs = sub;
            }
        }
        if (sub) {
            sub->nstreams++;
            s->report = sub;
        }
    }
    pthread_mutex_unlock(&g_rep_mu);
    hg_stream_release(s);
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    const char *func = "aclrtUnSubscribeReport";
    aclError rc;
    hg_stream *s = acquire_current_stream(stream, func, &rc);
    if (!s)
        return hg_rt_ret(rc);
    pthread_mutex_lock(&g_rep_mu);
    struct hg_subscriber *sub = s->report;
    if (!sub || sub->tid != threadId) {
        if (!sub)
            hg_set_error(func, "stream is not subscribed by any thread");
        else
            hg_set_error(func, "stream is subscribed by thread %llu, not by threadId (%llu)",
                         (unsigned long long)sub->tid, (unsigned long long)threadId);
        rc = ACL_ERROR_RT_STREAM_SUBSCRIBE;
    }
    pthread_mutex_unlock(&g_rep_mu);
    if (!rc)
        hg_report_detach_stream(s);
    hg_stream_release(s);
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtLaunchCallback(aclrtCallback fn, void *userData, aclrtCallbackBlockType blockType,
                                                 aclrtStream stream)
{
    const char *func = "aclrtLaunchCallback";
    aclError rc = hg_check_init(func);
    if (rc)
        return rc;
    if (blockType != ACL_CALLBACK_NO_BLOCK && blockType != ACL_CALLBACK_BLOCK) {
        hg_set_error(func, "blockType (%d) is not ACL_CALLBACK_BLOCK or ACL_CALLBACK_NO_BLOCK", (int)blockType);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (!fn) {
        hg_set_error(func, "fn is NULL");
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    hg_stream *s = acquire_current_stream(stream, func, &rc);
    if (!s)
        return hg_rt_ret(rc);
    pthread_mutex_lock(&g_rep_mu);
    bool subscribed = s->report != NULL;
    pthread_mutex_unlock(&g_rep_mu);
    if (!subscribed) {
        hg_set_error(func, "stream has no subscribed thread (call aclrtSubscribeReport first)");
        hg_stream_release(s);
        return hg_rt_ret(ACL_ERROR_RT_STREAM_NO_CB_REG);
    }
    hg_report *r = calloc(1, sizeof *r);
    if (!r) {
        hg_set_error(func, "out of host memory");
        hg_stream_release(s);
        return hg_rt_ret(ACL_ERROR_RT_MEMORY_ALLOCATION);
    }
    r->fn = fn;
    r->user = userData;
    r->block = blockType == ACL_CALLBACK_BLOCK;
    r->stream = s; /* the stream outlives its queued tasks */
    return push_and_release(s, func, report_task, r);
}

ACL_FUNC_VISIBILITY aclError aclrtProcessReport(int32_t timeout)
{
    const char *func = "aclrtProcessReport";
    aclError rc = hg_check_init(func);
    if (rc)
        return rc;
    if (timeout == 0 || timeout < -1) {
        hg_set_error(func, "timeout (%d) must be -1 (wait for ever) or greater than 0 (ms)", (int)timeout);
        return ACL_ERROR_INVALID_PARAM;
    }
    uint64_t tid = (uint64_t)pthread_self();
    struct timespec until;
    if (timeout > 0) {
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += timeout / 1000;
        until.tv_nsec += (long)(timeout % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec += 1;
            until.tv_nsec -= 1000000000L;
        }
    }
    pthread_mutex_lock(&g_rep_mu);
    struct hg_subscriber *sub = find_sub_locked(tid);
    if (!sub) {
        pthread_mutex_unlock(&g_rep_mu);
        hg_set_error(func, "no stream is subscribed to this thread (call aclrtSubscribeReport first)");
        return hg_rt_ret(ACL_ERROR_RT_THREAD_SUBSCRIBE);
    }
    sub->waiting++;
    int wrc = 0;
    while (!sub->head && sub->nstreams > 0 && wrc != ETIMEDOUT) {
        if (timeout > 0)
            wrc = pthread_cond_timedwait(&sub->arrived, &g_rep_mu, &until);
        else
            pthread_cond_wait(&sub->arrived, &g_rep_mu);
    }
    hg_report *pending = NULL;
    take_reports_locked(sub, NULL, &pending);
    sub->waiting--;
    maybe_free_sub_locked(sub);
    pthread_mutex_unlock(&g_rep_mu);
    if (!pending) {
        /* report threads poll in a loop: a poll that found nothing is logged at DEBUG */
        hg_set_outcome(func, "no callback arrived within %d ms", (int)timeout);
        return hg_rt_ret(ACL_ERROR_RT_REPORT_TIMEOUT);
    }
    run_reports(pending);
    return ACL_SUCCESS;
}

static void host_func_task(void *arg)
{
    void **pair = arg;
    aclrtHostFunc fn = (aclrtHostFunc)(uintptr_t)pair[0];
    void *args = pair[1];
    free(pair);
    fn(args);
}

ACL_FUNC_VISIBILITY aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args)
{
    const char *func = "aclrtLaunchHostFunc";
    aclError rc = hg_check_init(func);
    if (rc)
        return rc;
    if (!fn) {
        hg_set_error(func, "fn is NULL");
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    hg_stream *s = acquire_current_stream(stream, func, &rc);
    if (!s)
        return hg_rt_ret(rc);
    void **pair = malloc(2 * sizeof *pair);
    if (!pair) {
        hg_set_error(func, "out of host memory");
        hg_stream_release(s);
        return hg_rt_ret(ACL_ERROR_RT_MEMORY_ALLOCATION);
    }
    pair[0] = (void *)(uintptr_t)fn;
    pair[1] = args;
    /* the stream's worker is the runtime-made thread: later tasks wait for fn */
    return push_and_release(s, func, host_func_task, pair);
}

static aclError host_func_unsupported(const char *func)
{
    aclError rc = hg_check_init(func);
    if (rc)
        return rc;
    hg_set_error(func, "not supported on %s (the subscribed host-function path exists on IPV350 only); "
                 "use aclrtLaunchHostFunc or aclrtSubscribeReport/aclrtLaunchCallback", hg_soc_name());
    return hg_rt_ret(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
}

ACL_FUNC_VISIBILITY aclError aclrtSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream)
{
    (void)hostFuncThreadId;
    (void)exeStream;
    return host_func_unsupported("aclrtSubscribeHostFunc");
}

ACL_FUNC_VISIBILITY aclError aclrtProcessHostFunc(int32_t timeout)
{
    (void)timeout;
    return host_func_unsupported("aclrtProcessHostFunc");
}

ACL_FUNC_VISIBILITY aclError aclrtUnSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream)
{
    (void)hostFuncThreadId;
    (void)exeStream;
    return host_func_unsupported("aclrtUnSubscribeHostFunc");
}

/* ------------------------------------------------------------------ exceptions */

/* What a device-task failure would report.  CPU tasks cannot fail the way device tasks
 * do, so the callbacks are kept but never called; the getters read this record. */
struct rtExceptionInfo {
    uint32_t task_id;
    uint32_t stream_id;
    uint32_t thread_id;
    uint32_t device_id;
    uint32_t retcode;
};

#define HG_MAX_EXCEPTION_CALLBACKS 16
static aclrtExceptionInfoCallback g_exc_legacy;
static aclrtExceptionInfoCallback g_exc_cbs[HG_MAX_EXCEPTION_CALLBACKS];

ACL_FUNC_VISIBILITY aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback)
{
    pthread_mutex_lock(&g_rep_mu);
    g_exc_legacy = callback; /* last one wins, NULL clears */
    pthread_mutex_unlock(&g_rep_mu);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback)
{
    const char *func = "aclrtExceptionInfoCallbackRegister";
    if (!callback) {
        hg_set_error(func, "callback is NULL");
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&g_rep_mu);
    int free_slot = -1;
    for (int i = 0; i < HG_MAX_EXCEPTION_CALLBACKS; ++i) {
        if (g_exc_cbs[i] == callback) {
            free_slot = -2; /* registered already: nothing to do */
            break;
        }
        if (!g_exc_cbs[i] && free_slot == -1)
            free_slot = i;
    }
    if (free_slot >= 0) {
        g_exc_cbs[free_slot] = callback;
    } else if (free_slot == -1) {
        hg_set_error(func, "at most %d exception callbacks can be registered", HG_MAX_EXCEPTION_CALLBACKS);
        rc = ACL_ERROR_RT_OVER_LIMIT;
    }
    pthread_mutex_unlock(&g_rep_mu);
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback)
{
    const char *func = "aclrtExceptionInfoCallbackUnregister";
    if (!callback) {
        hg_set_error(func, "callback is NULL");
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    bool found = false;
    pthread_mutex_lock(&g_rep_mu);
    for (int i = 0; i < HG_MAX_EXCEPTION_CALLBACKS; ++i) {
        if (g_exc_cbs[i] == callback) {
            g_exc_cbs[i] = NULL;
            found = true;
        }
    }
    pthread_mutex_unlock(&g_rep_mu);
    if (!found) {
        hg_set_error(func, "callback was not registered");
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    return ACL_SUCCESS;
}

#define HG_NO_INFO 0xFFFFFFFFu

ACL_FUNC_VISIBILITY uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    return info ? info->task_id : HG_NO_INFO;
}

ACL_FUNC_VISIBILITY uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    return info ? info->stream_id : HG_NO_INFO;
}

ACL_FUNC_VISIBILITY uint32_t aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    return info ? info->thread_id : HG_NO_INFO;
}

ACL_FUNC_VISIBILITY uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    return info ? info->device_id : HG_NO_INFO;
}

ACL_FUNC_VISIBILITY uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo *info)
{
    return info ? info->retcode : HG_NO_INFO;
}

ACL_FUNC_VISIBILITY aclError aclrtGetArgsFromExceptionInfo(const aclrtExceptionInfo *info, void **devArgsPtr,
                                                           uint32_t *devArgsLen)
{
    const char *func = "aclrtGetArgsFromExceptionInfo";
    if (!info) {
        hg_set_error(func, "info is NULL");
        return (aclError)HG_NO_INFO;
    }
    if (!devArgsPtr || !devArgsLen) {
        hg_set_error(func, "%s is NULL", !devArgsPtr ? "devArgsPtr" : "devArgsLen");
        return ACL_ERROR_INVALID_PARAM;
    }
    /* only AI Core / AI CPU kernel exceptions carry arguments, and no kernel runs on one */
    hg_set_error(func, "the exception carries no kernel arguments (not an AI Core or AI CPU exception)");
    return (aclError)HG_NO_INFO;
}

ACL_FUNC_VISIBILITY aclError aclrtGetFuncHandleFromExceptionInfo(const aclrtExceptionInfo *info,
                                                                 aclrtFuncHandle *func_out)
{
    const char *func = "aclrtGetFuncHandleFromExceptionInfo";
    if (!info) {
        hg_set_error(func, "info is NULL");
        return (aclError)HG_NO_INFO;
    }
    if (!func_out) {
        hg_set_error(func, "func is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    hg_set_error(func, "the exception comes from no kernel function");
    return hg_rt_ret(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
}
