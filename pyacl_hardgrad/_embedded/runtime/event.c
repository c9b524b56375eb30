/* Events: markers recorded on streams, with timestamps, host waits and
 * cross-stream waits. */
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

struct hg_event {
    atomic_int refs;        /* the table's + one per queued task or waiting caller */
    pthread_mutex_t mu;     /* everything below */
    pthread_cond_t cv;
    uint64_t issued;        /* number of the newest aclrtRecordEvent */
    _Atomic uint64_t done;  /* number of the newest record that ran */
    uint64_t ts_ns;         /* when it ran */
    bool complete;          /* a record ran and no reset ran after it */
    int waiters;
};

struct wait_arg {
    hg_event *ev;
    uint64_t rec;
};

void hg_event_release(hg_event *ev)
{
    if (!ev)
        return;
    HG_HAPPENS_BEFORE(&ev->refs);
    if (atomic_fetch_sub(&ev->refs, 1) == 1) {
        HG_HAPPENS_AFTER(&ev->refs);
        HG_FORGET(&ev->refs);
        HG_FORGET(&ev->done);
        pthread_mutex_destroy(&ev->mu);
        pthread_cond_destroy(&ev->cv);
        free(ev);
    }
}

void hg_event_task_record(hg_event *ev, uint64_t rec)
{
    uint64_t now = hg_now_ns();
    pthread_mutex_lock(&ev->mu);
    if (rec >= atomic_load(&ev->done)) {
        ev->ts_ns = now;
        ev->complete = true;
        HG_HAPPENS_BEFORE(&ev->done);
        atomic_store(&ev->done, rec);
    }
    if (ev->waiters)
        pthread_cond_broadcast(&ev->cv);
    pthread_mutex_unlock(&ev->mu);
}

static bool record_done(void *p)
{
    const hg_event *ev = ((const struct wait_arg *)p)->ev;
    return atomic_load_explicit(&ev->done, memory_order_acquire) >= ((const struct wait_arg *)p)->rec;
}

static void wait_done(hg_event *ev, uint64_t rec)
{
    struct wait_arg w = {ev, rec};
    if (!hg_spin_until(record_done, &w, hg_spin_ns())) {
        pthread_mutex_lock(&ev->mu);
        ev->waiters++;
        while (atomic_load(&ev->done) < rec)
            pthread_cond_wait(&ev->cv, &ev->mu);
        ev->waiters--;
        pthread_mutex_unlock(&ev->mu);
    }
    HG_HAPPENS_AFTER(&ev->done);
}

void hg_event_task_wait(hg_event *ev, uint64_t rec)
{
    wait_done(ev, rec);
}

void hg_event_task_reset(hg_event *ev)
{
    pthread_mutex_lock(&ev->mu);
    ev->complete = false;
    pthread_mutex_unlock(&ev->mu);
}

/* Look up an event handle and take a reference; caller holds hg_rt.mu. */
static hg_event *acquire_event_locked(aclrtEvent handle, const char *func, const char *what, aclError *err)
{
    if (!handle) {
        hg_set_error(func, "%s is NULL", what);
        *err = ACL_ERROR_INVALID_PARAM;
        return NULL;
    }
    hg_event *ev = hg_table_get(&hg_rt.events, (uintptr_t)handle);
    if (!ev) {
        hg_set_error(func, "%s (%p) is not a live event (destroyed, or never created)", what, handle);
        *err = ACL_ERROR_RT_INVALID_HANDLE;
        return NULL;
    }
    atomic_fetch_add(&ev->refs, 1);
    *err = ACL_SUCCESS;
    return ev;
}

ACL_FUNC_VISIBILITY aclError aclrtCreateEvent(aclrtEvent *event)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked("aclrtCreateEvent");
    if (!rc && !event) {
        hg_set_error("aclrtCreateEvent", "event is NULL");
        rc = ACL_ERROR_INVALID_PARAM;
    }
    int dev;
    if (!rc)
        rc = hg_require_device_locked("aclrtCreateEvent", &dev);
    if (!rc) {
        hg_event *ev = calloc(1, sizeof *ev);
        uintptr_t h = ev ? hg_table_add(&hg_rt.events, ev) : 0;
        if (!h) {
            free(ev);
            hg_set_error("aclrtCreateEvent", "out of host memory");
            rc = ACL_ERROR_RT_MEMORY_ALLOCATION;
        } else {
            atomic_init(&ev->refs, 1);
            atomic_init(&ev->done, 0);
            HG_ATOMIC_FIELD(&ev->done);
            pthread_mutex_init(&ev->mu, NULL);
            pthread_cond_init(&ev->cv, NULL);
            hg_rt_count_add(HG_RTC_EVENTS, 1);
            *event = (aclrtEvent)h;
        }
    }
    pthread_mutex_unlock(&hg_rt.mu);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyEvent(aclrtEvent event)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked("aclrtDestroyEvent");
    hg_event *ev = NULL;
    if (!rc && !event) {
        hg_set_error("aclrtDestroyEvent", "event is NULL");
        rc = ACL_ERROR_INVALID_PARAM;
    }
    if (!rc) {
        ev = hg_table_remove(&hg_rt.events, (uintptr_t)event);
        if (!ev) {
            hg_set_error("aclrtDestroyEvent", "event (%p) is not a live event (destroyed, or never created)",
                         event);
            rc = ACL_ERROR_RT_INVALID_HANDLE;
        } else {
            hg_rt_count_add(HG_RTC_EVENTS, -1);
        }
    }
    pthread_mutex_unlock(&hg_rt.mu);
    hg_event_release(ev); /* queued records/waits keep it alive until they ran */
    return rc;
}

/* Resolve an event and a stream handle, each with a reference the caller releases.
 * On failure nothing is held and the error text is set. */
static aclError acquire_event_and_stream(const char *func, aclrtEvent event, aclrtStream stream,
                                         hg_event **ev_out, hg_stream **s_out)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked(func);
    hg_event *ev = NULL;
    hg_stream *s = NULL;
    if (!rc)
        ev = acquire_event_locked(event, func, "event", &rc);
    if (!rc)
        s = hg_stream_acquire_locked(stream, func, true, &rc);
    pthread_mutex_unlock(&hg_rt.mu);
    if (rc) {
        hg_event_release(ev);
        return rc;
    }
    *ev_out = ev;
    *s_out = s;
    return ACL_SUCCESS;
}

/* Shared by record and reset: resolve both handles, queue a task owning one event
 * reference.  For a record the number is assigned under ev->mu together with the
 * queueing, so a concurrent wait never sees a number that is not queued. */
static aclError queue_event_task(const char *func, aclrtEvent event, aclrtStream stream, hg_task_kind kind)
{
    hg_event *ev = NULL;
    hg_stream *s = NULL;
    aclError rc = acquire_event_and_stream(func, event, stream, &ev, &s);
    if (rc)
        return rc;
    hg_task t;
    memset(&t, 0, sizeof t);
    t.kind = kind;
    t.ev = ev;
    pthread_mutex_lock(&ev->mu);
    if (kind == HG_TASK_RECORD)
        t.rec = ev->issued + 1;
    rc = hg_stream_push(s, &t, func);
    if (!rc && kind == HG_TASK_RECORD)
        ev->issued = t.rec;
    pthread_mutex_unlock(&ev->mu);
    if (rc)
        hg_event_release(ev); /* the task was not queued: drop its reference */
    hg_stream_release(s);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    return queue_event_task("aclrtRecordEvent", event, stream, HG_TASK_RECORD);
}

ACL_FUNC_VISIBILITY aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream)
{
    return queue_event_task("aclrtResetEvent", event, stream, HG_TASK_RESET_EVENT);
}

ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
    const char *func = "aclrtStreamWaitEvent";
    hg_event *ev = NULL;
    hg_stream *s = NULL;
    aclError rc = acquire_event_and_stream(func, event, stream, &ev, &s);
    if (rc)
        return rc;
    pthread_mutex_lock(&ev->mu);
    uint64_t target = ev->issued;
    pthread_mutex_unlock(&ev->mu);
    if (target == 0 || atomic_load(&ev->done) >= target) {
        hg_event_release(ev); /* nothing recorded, or already reached: no wait needed */
    } else {
        hg_task t;
        memset(&t, 0, sizeof t);
        t.kind = HG_TASK_WAIT;
        t.ev = ev;
        t.rec = target;
        rc = hg_stream_push(s, &t, func);
        if (rc)
            hg_event_release(ev);
    }
    hg_stream_release(s);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEvent(aclrtEvent event)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked("aclrtSynchronizeEvent");
    hg_event *ev = NULL;
    if (!rc)
        ev = acquire_event_locked(event, "aclrtSynchronizeEvent", "event", &rc);
    pthread_mutex_unlock(&hg_rt.mu);
    if (!ev)
        return rc;
    pthread_mutex_lock(&ev->mu);
    uint64_t target = ev->issued;
    pthread_mutex_unlock(&ev->mu);
    if (target)
        wait_done(ev, target);
    hg_event_release(ev);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked("aclrtQueryEventStatus");
    hg_event *ev = NULL;
    if (!rc && !status) {
        hg_set_error("aclrtQueryEventStatus", "status is NULL");
        rc = ACL_ERROR_INVALID_PARAM;
    }
    if (!rc)
        ev = acquire_event_locked(event, "aclrtQueryEventStatus", "event", &rc);
    pthread_mutex_unlock(&hg_rt.mu);
    if (!ev)
        return rc;
    pthread_mutex_lock(&ev->mu);
    bool ready = ev->issued > 0 && atomic_load(&ev->done) >= ev->issued && ev->complete;
    pthread_mutex_unlock(&ev->mu);
    *status = ready ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    hg_event_release(ev);
    return ACL_SUCCESS;
}

/* Timestamp of the event's latest record, if that record has run. */
static bool event_timestamp(hg_event *ev, uint64_t *ts)
{
    pthread_mutex_lock(&ev->mu);
    bool ok = ev->issued > 0 && atomic_load(&ev->done) >= ev->issued && ev->complete;
    *ts = ev->ts_ns;
    pthread_mutex_unlock(&ev->mu);
    return ok;
}

ACL_FUNC_VISIBILITY aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
    const char *func = "aclrtEventElapsedTime";
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked(func);
    hg_event *a = NULL, *b = NULL;
    if (!rc && !ms) {
        hg_set_error(func, "ms is NULL");
        rc = ACL_ERROR_INVALID_PARAM;
    }
    if (!rc)
        a = acquire_event_locked(startEvent, func, "startEvent", &rc);
    if (!rc)
        b = acquire_event_locked(endEvent, func, "endEvent", &rc);
    pthread_mutex_unlock(&hg_rt.mu);
    if (!rc) {
        uint64_t ta = 0, tb = 0;
        if (!event_timestamp(a, &ta)) {
            hg_set_error(func, "startEvent (%p) has not been recorded or its record has not completed",
                         startEvent);
            rc = ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
        } else if (!event_timestamp(b, &tb)) {
            hg_set_error(func, "endEvent (%p) has not been recorded or its record has not completed", endEvent);
            rc = ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
        } else if (tb < ta) {
            hg_set_error(func, "endEvent (%p) completed before startEvent (%p)", endEvent, startEvent);
            rc = ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL;
        } else {
            *ms = (float)((double)(tb - ta) / 1e6);
        }
    }
    hg_event_release(a);
    hg_event_release(b);
    return rc;
}
