/* Events: markers recorded on streams, with timestamps, host waits and
 * cross-stream waits. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prof.h"
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
    int device;             /* the device current at creation */
    uint32_t flags;         /* ACL_EVENT_* creation flags */
    bool ex;                /* made by aclrtCreateEventExWithFlag */
};

struct wait_arg {
    hg_event *ev;
    uint64_t rec;
};

void hg_events_device_closed_locked(int dev)
{
    for (uint32_t i = 0; i < hg_rt.events.cap; ++i) {
        uintptr_t h = hg_table_handle_at(&hg_rt.events, i);
        const hg_event *ev = h ? hg_table_get(&hg_rt.events, h) : NULL;
        if (ev && ev->device == dev)
            hg_chk_event_reset(h, dev);
    }
}

void hg_event_retain(hg_event *ev)
{
    atomic_fetch_add(&ev->refs, 1);
}

void hg_event_release(hg_event *ev)
{
    if (!ev)
        return;
    HG_HAPPENS_BEFORE(&ev->refs);
    if (atomic_fetch_sub(&ev->refs, 1) == 1) {
        HG_HAPPENS_AFTER(&ev->refs);
        HG_FORGET(&ev->refs);
        HG_FORGET(&ev->done);
        if (HG_PROFILING())
            hg_prof_event_gone(ev);
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

/* wait_done with a deadline (hg_now_ns clock); false when it passed first. */
static bool wait_done_until(hg_event *ev, uint64_t rec, uint64_t deadline_ns)
{
    if (deadline_ns == UINT64_MAX) {
        wait_done(ev, rec);
        return true;
    }
    struct timespec until = hg_realtime_at(deadline_ns);
    pthread_mutex_lock(&ev->mu);
    ev->waiters++;
    int wrc = 0;
    while (atomic_load(&ev->done) < rec && wrc != ETIMEDOUT)
        wrc = pthread_cond_timedwait(&ev->cv, &ev->mu, &until);
    ev->waiters--;
    bool ok = atomic_load(&ev->done) >= rec;
    pthread_mutex_unlock(&ev->mu);
    if (ok)
        HG_HAPPENS_AFTER(&ev->done);
    return ok;
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
    if (HG_CHECKING())
        hg_chk_stale_event(func, (uintptr_t)handle, false);
    atomic_fetch_add(&ev->refs, 1);
    *err = ACL_SUCCESS;
    return ev;
}

static aclError create_event(const char *func, aclrtEvent *event, uint32_t flags, bool ex)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked(func);
    if (!rc && !event) {
        hg_set_error(func, "event is NULL");
        rc = ACL_ERROR_INVALID_PARAM;
    }
    int dev;
    if (!rc)
        rc = hg_require_device_locked(func, &dev);
    if (!rc) {
        hg_event *ev = calloc(1, sizeof *ev);
        uintptr_t h = ev ? hg_table_add(&hg_rt.events, ev) : 0;
        if (!h) {
            free(ev);
            hg_set_error(func, "out of host memory");
            rc = ACL_ERROR_RT_MEMORY_ALLOCATION;
        } else {
            atomic_init(&ev->refs, 1);
            atomic_init(&ev->done, 0);
            HG_ATOMIC_FIELD(&ev->done);
            pthread_mutex_init(&ev->mu, NULL);
            pthread_cond_init(&ev->cv, NULL);
            ev->device = dev;
            ev->flags = flags;
            ev->ex = ex;
            hg_rt_count_add(HG_RTC_EVENTS, 1);
            if (HG_CHECKING())
                hg_chk_event_created(func, ev, dev);
            *event = (aclrtEvent)h;
            HG_LOG(HG_LOG_ASCENDCL, HG_LOG_DEBUG, func, "event 0x%llx created on device %d (flags 0x%x)",
                   (unsigned long long)h, dev, (unsigned)flags);
        }
    }
    pthread_mutex_unlock(&hg_rt.mu);
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtCreateEvent(aclrtEvent *event)
{
    /* a plain event can be waited on, reset and timed */
    return create_event("aclrtCreateEvent", event, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE, false);
}

#define HG_EVENT_FLAGS_KNOWN                                                                              \
    (ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE | ACL_EVENT_DEVICE_USE_ONLY | \
     ACL_EVENT_EXTERNAL | ACL_EVENT_IPC)

static aclError check_event_flags(const char *func, uint32_t flag)
{
    if (flag & ~(uint32_t)HG_EVENT_FLAGS_KNOWN) {
        hg_set_error(func, "flag (0x%x) has bits outside the ACL_EVENT_* flags (0x%x)", flag,
                     (unsigned)HG_EVENT_FLAGS_KNOWN);
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    if (flag & (ACL_EVENT_IPC | ACL_EVENT_EXTERNAL)) {
        hg_set_error(func, "flag %s is not supported: the embedded runtime shares no events with other processes "
                     "or devices outside it", (flag & ACL_EVENT_IPC) ? "ACL_EVENT_IPC" : "ACL_EVENT_EXTERNAL");
        return hg_rt_ret(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    }
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
    aclError rc = check_event_flags("aclrtCreateEventWithFlag", flag);
    return rc ? rc : create_event("aclrtCreateEventWithFlag", event, flag, false);
}

ACL_FUNC_VISIBILITY aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
    aclError rc = check_event_flags("aclrtCreateEventExWithFlag", flag);
    /* an Ex event can always be waited on: each record captures the stream anew */
    return rc ? rc : create_event("aclrtCreateEventExWithFlag", event, flag | ACL_EVENT_SYNC, true);
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
            HG_LOG(HG_LOG_ASCENDCL, HG_LOG_DEBUG, "aclrtDestroyEvent", "event %p destroyed", event);
            if (HG_CHECKING()) {
                hg_chk_stale_event("aclrtDestroyEvent", (uintptr_t)event, true);
                hg_chk_event_destroyed(ev);
            }
        }
    }
    pthread_mutex_unlock(&hg_rt.mu);
    hg_event_release(ev); /* queued records/waits keep it alive until they ran */
    return hg_rt_ret(rc);
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
    if (!rc && s->device != ev->device) {
        if (HG_CHECKING())
            hg_check_finding("wrong-device", func, "%s: the event belongs to device %d but the stream to device %d",
                             func, ev->device, s->device);
        hg_set_error(func, "event belongs to device %d but stream belongs to device %d", ev->device, s->device);
        rc = ACL_ERROR_RT_STREAM_CONTEXT;
    }
    pthread_mutex_unlock(&hg_rt.mu);
    if (rc) {
        hg_stream_release(s);
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
        return hg_rt_ret(rc);
    if (kind == HG_TASK_RESET_EVENT && (ev->ex || !(ev->flags & ACL_EVENT_SYNC))) {
        if (ev->ex)
            hg_set_error(func, "event was made by aclrtCreateEventExWithFlag, which cannot be reset");
        else
            hg_set_error(func, "event was created without ACL_EVENT_SYNC (flags 0x%x) and cannot be reset", ev->flags);
        rc = ev->ex ? ACL_ERROR_RT_FEATURE_NOT_SUPPORT : ACL_ERROR_RT_PARAM_INVALID;
        hg_event_release(ev);
        hg_stream_release(s);
        return hg_rt_ret(rc);
    }
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
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    return queue_event_task("aclrtRecordEvent", event, stream, HG_TASK_RECORD);
}

ACL_FUNC_VISIBILITY aclError aclrtRecordEventWithFlag(aclrtEvent event, aclrtStream stream, uint32_t flag)
{
    const char *func = "aclrtRecordEventWithFlag";
    if (flag == ACL_EVENT_RECORD_DEFAULT)
        return queue_event_task(func, event, stream, HG_TASK_RECORD);
    if (flag == ACL_EVENT_RECORD_EXTERNAL) {
        hg_set_error(func, "flag ACL_EVENT_RECORD_EXTERNAL is not supported: no events are shared outside the "
                     "embedded runtime");
        return hg_rt_ret(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    }
    hg_set_error(func, "flag (%u) is not ACL_EVENT_RECORD_DEFAULT or ACL_EVENT_RECORD_EXTERNAL", flag);
    return ACL_ERROR_INVALID_PARAM;
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
        return hg_rt_ret(rc);
    if (!(ev->flags & ACL_EVENT_SYNC)) {
        hg_set_error(func, "event was created without ACL_EVENT_SYNC (flags 0x%x) and cannot be waited on",
                     ev->flags);
        hg_event_release(ev);
        hg_stream_release(s);
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    pthread_mutex_lock(&ev->mu);
    uint64_t target = ev->issued;
    pthread_mutex_unlock(&ev->mu);
    if (target != 0 && HG_CHECKING())
        hg_chk_stream_wait(s, ev); /* ordered after the record, also when it already ran */
    /* profiling queues a wait that is reached already too: it returns at once, and the
     * timeline shows the dependency (a flow from the record) */
    if (target == 0 || (atomic_load(&ev->done) >= target && !HG_PROFILING())) {
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
    return hg_rt_ret(rc);
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
        return hg_rt_ret(rc);
    pthread_mutex_lock(&ev->mu);
    uint64_t target = ev->issued;
    pthread_mutex_unlock(&ev->mu);
    if (target)
        wait_done(ev, target);
    if (target && HG_CHECKING())
        hg_chk_event_synced(ev);
    hg_event_release(ev);
    return ACL_SUCCESS;
}

static bool event_timestamp(hg_event *ev, uint64_t *ts);

/* Resolve an event for the query calls, checking the output pointer first. */
static aclError acquire_for_query(const char *func, aclrtEvent event, const void *out, hg_event **ev)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_enter_locked(func, out, "output pointer", NULL);
    if (!rc)
        *ev = acquire_event_locked(event, func, "event", &rc);
    pthread_mutex_unlock(&hg_rt.mu);
    return rc;
}

/* The latest record ran and no reset followed; an Ex event never recorded counts as done. */
static bool event_ready(hg_event *ev)
{
    pthread_mutex_lock(&ev->mu);
    bool ready = ev->issued > 0 ? atomic_load(&ev->done) >= ev->issued && ev->complete : ev->ex;
    pthread_mutex_unlock(&ev->mu);
    return ready;
}

/* The query calls: *ready tells whether the event completed.  Ex events answer only
 * aclrtQueryEventStatus (ex_ok). */
static aclError query_event(const char *func, aclrtEvent event, const void *out, bool ex_ok, bool *ready)
{
    hg_event *ev = NULL;
    aclError rc = acquire_for_query(func, event, out, &ev);
    if (rc)
        return hg_rt_ret(rc);
    if (ev->ex && !ex_ok) {
        hg_set_error(func, "event was made by aclrtCreateEventExWithFlag; use aclrtQueryEventStatus");
        rc = ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    } else {
        *ready = event_ready(ev);
    }
    hg_event_release(ev);
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
    bool ready = false;
    aclError rc = query_event("aclrtQueryEventStatus", event, status, true, &ready);
    if (!rc)
        *status = ready ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status)
{
    bool ready = false;
    aclError rc = query_event("aclrtQueryEvent", event, status, false, &ready);
    if (!rc)
        *status = ready ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
    return rc;
}

/* Complete once the latest record ran and every stream that was told to wait for it has
 * passed that point: on this runtime a waiting stream passes as soon as the record ran. */
ACL_FUNC_VISIBILITY aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status)
{
    bool ready = false;
    aclError rc = query_event("aclrtQueryEventWaitStatus", event, status, false, &ready);
    if (!rc)
        *status = ready ? ACL_EVENT_WAIT_STATUS_COMPLETE : ACL_EVENT_WAIT_STATUS_NOT_READY;
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout)
{
    const char *func = "aclrtSynchronizeEventWithTimeout";
    if (timeout < -1) {
        hg_set_error(func, "timeout (%d) must be -1 (wait for ever) or at least 0 (ms)", (int)timeout);
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked(func);
    hg_event *ev = NULL;
    if (!rc)
        ev = acquire_event_locked(event, func, "event", &rc);
    pthread_mutex_unlock(&hg_rt.mu);
    if (!ev)
        return hg_rt_ret(rc);
    pthread_mutex_lock(&ev->mu);
    uint64_t target = ev->issued;
    pthread_mutex_unlock(&ev->mu);
    if (target && !wait_done_until(ev, target, hg_deadline_ms(timeout))) {
        hg_set_error(func, "the event's record did not run within %d ms", (int)timeout);
        rc = ACL_ERROR_RT_EVENT_SYNC_TIMEOUT;
    } else if (target && HG_CHECKING()) {
        hg_chk_event_synced(ev);
    }
    hg_event_release(ev);
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp)
{
    const char *func = "aclrtEventGetTimestamp";
    hg_event *ev = NULL;
    aclError rc = acquire_for_query(func, event, timestamp, &ev);
    if (rc)
        return hg_rt_ret(rc);
    uint64_t ts = 0;
    if (!(ev->flags & ACL_EVENT_TIME_LINE)) {
        hg_set_error(func, "event was created without ACL_EVENT_TIME_LINE (flags 0x%x): it gives no timestamp",
                     ev->flags);
        rc = ACL_ERROR_RT_PARAM_INVALID;
    } else if (!event_timestamp(ev, &ts)) {
        hg_set_error(func, "event has not been recorded or its record has not completed");
        rc = ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
    } else {
        *timestamp = ts / 1000u;
    }
    hg_event_release(ev);
    return hg_rt_ret(rc);
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

/* Every event this runtime makes is timed, whatever its flags: CANN refuses only IPC and
 * external events here, and those cannot be created (207000 at creation). */
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
        if (a->device != b->device) {
            hg_set_error(func, "startEvent belongs to device %d but endEvent to device %d", a->device, b->device);
            rc = ACL_ERROR_RT_PARAM_INVALID;
        } else if (!event_timestamp(a, &ta)) {
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
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtGetEventId(aclrtEvent event, uint32_t *eventId)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_enter_locked("aclrtGetEventId", eventId, "eventId", NULL);
    if (!rc && !hg_table_get(&hg_rt.events, (uintptr_t)event)) {
        hg_set_error("aclrtGetEventId", "event (%p) is not a live event (destroyed, or never created)", event);
        rc = ACL_ERROR_RT_INVALID_HANDLE;
    }
    if (!rc)
        *eventId = (uint32_t)((uintptr_t)event & 0xffffffu) - 1u; /* the event's slot */
    pthread_mutex_unlock(&hg_rt.mu);
    return hg_rt_ret(rc);
}

#define HG_MAX_EVENTS_PER_DEVICE 65536u

ACL_FUNC_VISIBILITY aclError aclrtGetEventAvailNum(uint32_t *eventCount)
{
    pthread_mutex_lock(&hg_rt.mu);
    int dev = -1;
    aclError rc = hg_enter_locked("aclrtGetEventAvailNum", eventCount, "eventCount", &dev);
    if (!rc) {
        uint32_t used = 0;
        for (uint32_t i = 0; i < hg_rt.events.cap; ++i) {
            uintptr_t h = hg_table_handle_at(&hg_rt.events, i);
            const hg_event *ev = h ? hg_table_get(&hg_rt.events, h) : NULL;
            used += ev && ev->device == dev;
        }
        *eventCount = used >= HG_MAX_EVENTS_PER_DEVICE ? 0u : HG_MAX_EVENTS_PER_DEVICE - used;
    }
    pthread_mutex_unlock(&hg_rt.mu);
    return hg_rt_ret(rc);
}
