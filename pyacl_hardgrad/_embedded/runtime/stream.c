/* Streams: one worker thread each, running tasks in submission order.
 *
 * Hand-off is tuned for short tasks: the worker polls briefly (hg_rt.spin_ns) for new
 * work before parking on a condition variable, and a synchronising caller polls the
 * "completed" sequence number briefly before parking.  Idle streams sleep. */
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

#define RING_INITIAL 64u

uint64_t hg_spin_ns(void)
{
    return hg_rt.spin_ns;
}

static void run_task(hg_task *t)
{
    switch (t->kind) {
    case HG_TASK_USER:
        t->fn(t->arg);
        break;
    case HG_TASK_MEMCPY:
        memmove(t->dst, t->src, t->n);
        break;
    case HG_TASK_MEMSET:
        memset(t->dst, t->value, t->n);
        break;
    case HG_TASK_RECORD:
        hg_event_task_record(t->ev, t->rec);
        hg_event_release(t->ev);
        break;
    case HG_TASK_WAIT:
        hg_event_task_wait(t->ev, t->rec);
        hg_event_release(t->ev);
        break;
    case HG_TASK_RESET_EVENT:
        hg_event_task_reset(t->ev);
        hg_event_release(t->ev);
        break;
    }
}

bool hg_spin_until(bool (*cond)(void *), void *arg, uint64_t spin_ns)
{
    if (cond(arg))
        return true;
    if (spin_ns == 0)
        return false;
    uint64_t now = hg_now_ns();
    uint64_t deadline = now + spin_ns;
    /* after the first few microseconds the awaited thread may be waiting for a CPU
     * (oversubscribed machine): from then on offer ours between polls */
    uint64_t yield_from = now + spin_ns / 10;
    for (unsigned i = 1;; ++i) {
        HG_CPU_RELAX();
        if (cond(arg))
            return true;
        if ((i & 15u) == 0) {
            now = hg_now_ns();
            if (now >= deadline)
                return false;
            if (now >= yield_from)
                sched_yield();
        }
    }
}

typedef struct {
    hg_stream *s;
    uint64_t seq;
} seq_wait;

static bool has_work(void *p)
{
    seq_wait *w = p;
    return atomic_load_explicit(&w->s->submitted, memory_order_acquire) != w->seq ||
           atomic_load_explicit(&w->s->stop, memory_order_acquire);
}

static bool reached(void *p)
{
    seq_wait *w = p;
    return atomic_load_explicit(&w->s->completed, memory_order_acquire) >= w->seq;
}

static void *worker_main(void *p)
{
    hg_stream *s = p;
    uint64_t taken = 0;
    uint64_t spin = hg_rt.spin_ns;
    for (;;) {
        seq_wait w = {s, taken};
        if (!hg_spin_until(has_work, &w, spin)) {
            pthread_mutex_lock(&s->qmu);
            while (s->head == s->tail && !atomic_load(&s->stop)) {
                s->sleeping = 1;
                pthread_cond_wait(&s->work_cv, &s->qmu);
                s->sleeping = 0;
            }
            pthread_mutex_unlock(&s->qmu);
        }
        pthread_mutex_lock(&s->qmu);
        if (s->head == s->tail) {
            bool stop = atomic_load(&s->stop);
            pthread_mutex_unlock(&s->qmu);
            if (stop)
                break;
            continue;
        }
        hg_task t = s->ring[s->head & (s->cap - 1u)];
        s->head++;
        pthread_mutex_unlock(&s->qmu);

        run_task(&t);
        taken = t.seq;
        HG_HAPPENS_BEFORE(&s->completed);
        atomic_store(&s->completed, t.seq); /* seq_cst: pairs with waiters below */
        if (atomic_load(&s->waiters) > 0) {
            pthread_mutex_lock(&s->done_mu);
            pthread_cond_broadcast(&s->done_cv);
            pthread_mutex_unlock(&s->done_mu);
        }
    }
    return NULL;
}

hg_stream *hg_stream_new(int device, bool is_default, aclError *err)
{
    hg_stream *s = calloc(1, sizeof *s);
    hg_task *ring = malloc(RING_INITIAL * sizeof *ring);
    if (!s || !ring) {
        free(s);
        free(ring);
        *err = ACL_ERROR_RT_MEMORY_ALLOCATION;
        return NULL;
    }
    atomic_init(&s->refs, 1);
    s->device = device;
    s->is_default = is_default;
    s->ring = ring;
    s->cap = RING_INITIAL;
    atomic_init(&s->stop, 0);
    atomic_init(&s->submitted, 0);
    atomic_init(&s->completed, 0);
    atomic_init(&s->waiters, 0);
    HG_ATOMIC_FIELD(&s->stop);
    HG_ATOMIC_FIELD(&s->submitted);
    HG_ATOMIC_FIELD(&s->completed);
    HG_ATOMIC_FIELD(&s->waiters);
    pthread_mutex_init(&s->qmu, NULL);
    pthread_cond_init(&s->work_cv, NULL);
    pthread_mutex_init(&s->done_mu, NULL);
    pthread_cond_init(&s->done_cv, NULL);

    /* the worker must not take the application's signals */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int prc = pthread_create(&s->thread, NULL, worker_main, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (prc != 0) {
        pthread_mutex_destroy(&s->qmu);
        pthread_cond_destroy(&s->work_cv);
        pthread_mutex_destroy(&s->done_mu);
        pthread_cond_destroy(&s->done_cv);
        free(ring);
        free(s);
        *err = ACL_ERROR_RT_INTERNAL_ERROR;
        return NULL;
    }
    *err = ACL_SUCCESS;
    return s;
}

static void stream_free(hg_stream *s)
{
    HG_FORGET(&s->refs);
    HG_FORGET(&s->completed);
    pthread_mutex_destroy(&s->qmu);
    pthread_cond_destroy(&s->work_cv);
    pthread_mutex_destroy(&s->done_mu);
    pthread_cond_destroy(&s->done_cv);
    free(s->ring);
    free(s);
}

void hg_stream_release(hg_stream *s)
{
    if (!s)
        return;
    HG_HAPPENS_BEFORE(&s->refs);
    if (atomic_fetch_sub(&s->refs, 1) == 1) {
        HG_HAPPENS_AFTER(&s->refs);
        stream_free(s);
    }
}

hg_stream *hg_stream_acquire_locked(aclrtStream handle, const char *func, bool create, aclError *err)
{
    hg_stream *s;
    if (!handle) {
        int dev;
        *err = hg_require_device_locked(func, &dev);
        if (*err)
            return NULL;
        s = hg_rt.dev[dev].default_stream;
        if (!s) {
            if (!create)
                return NULL;
            s = hg_stream_new(dev, true, err);
            if (!s) {
                hg_set_error(func, "cannot create the default stream of device %d", dev);
                return NULL;
            }
            hg_rt.dev[dev].default_stream = s;
        }
    } else {
        s = hg_table_get(&hg_rt.streams, (uintptr_t)handle);
        if (!s) {
            hg_set_error(func, "stream (%p) is not a live stream (destroyed, or never created)", handle);
            *err = ACL_ERROR_RT_INVALID_HANDLE;
            return NULL;
        }
    }
    atomic_fetch_add(&s->refs, 1);
    *err = ACL_SUCCESS;
    return s;
}

aclError hg_stream_push(hg_stream *s, hg_task *task, const char *func)
{
    pthread_mutex_lock(&s->qmu);
    if (atomic_load(&s->stop)) {
        pthread_mutex_unlock(&s->qmu);
        hg_set_error(func, "stream is being destroyed");
        return ACL_ERROR_RT_INVALID_HANDLE;
    }
    if (s->tail - s->head == s->cap) {
        size_t ncap = s->cap * 2u;
        hg_task *nr = ncap > s->cap ? malloc(ncap * sizeof *nr) : NULL;
        if (!nr) {
            pthread_mutex_unlock(&s->qmu);
            hg_set_error(func, "out of host memory queueing on the stream");
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
        }
        size_t n = s->tail - s->head;
        for (size_t i = 0; i < n; ++i)
            nr[i] = s->ring[(s->head + i) & (s->cap - 1u)];
        free(s->ring);
        s->ring = nr;
        s->cap = ncap;
        s->head = 0;
        s->tail = n;
    }
    task->seq = ++s->next_seq;
    s->ring[s->tail & (s->cap - 1u)] = *task;
    s->tail++;
    atomic_store_explicit(&s->submitted, task->seq, memory_order_release);
    if (s->sleeping)
        pthread_cond_signal(&s->work_cv);
    pthread_mutex_unlock(&s->qmu);
    return ACL_SUCCESS;
}

void hg_stream_sync(hg_stream *s)
{
    seq_wait w = {s, atomic_load_explicit(&s->submitted, memory_order_acquire)};
    if (!hg_spin_until(reached, &w, hg_rt.spin_ns)) {
        atomic_fetch_add(&s->waiters, 1); /* seq_cst: the worker sees it or we see completed */
        pthread_mutex_lock(&s->done_mu);
        while (atomic_load(&s->completed) < w.seq)
            pthread_cond_wait(&s->done_cv, &s->done_mu);
        pthread_mutex_unlock(&s->done_mu);
        atomic_fetch_sub(&s->waiters, 1);
    }
    HG_HAPPENS_AFTER(&s->completed);
}

void hg_stream_shutdown(hg_stream *s)
{
    pthread_mutex_lock(&s->qmu);
    atomic_store(&s->stop, 1);
    if (s->sleeping)
        pthread_cond_signal(&s->work_cv);
    pthread_mutex_unlock(&s->qmu);
    pthread_join(s->thread, NULL);
    hg_stream_release(s);
}

void hg_stream_shutdown_list(hg_stream *list)
{
    while (list) {
        hg_stream *next = list->dead_next;
        hg_stream_shutdown(list);
        list = next;
    }
}

/* ------------------------------------------------------------------ public calls */

ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream *stream)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked("aclrtCreateStream");
    if (!rc && !stream) {
        hg_set_error("aclrtCreateStream", "stream is NULL");
        rc = ACL_ERROR_INVALID_PARAM;
    }
    int dev = -1;
    if (!rc)
        rc = hg_require_device_locked("aclrtCreateStream", &dev);
    if (!rc) {
        hg_stream *s = hg_stream_new(dev, false, &rc);
        if (!s) {
            hg_set_error("aclrtCreateStream", "cannot start the stream's worker thread");
        } else {
            uintptr_t h = hg_table_add(&hg_rt.streams, s);
            if (!h) {
                pthread_mutex_unlock(&hg_rt.mu);
                hg_stream_shutdown(s);
                hg_set_error("aclrtCreateStream", "out of host memory");
                return ACL_ERROR_RT_MEMORY_ALLOCATION;
            }
            hg_rt_count_add(HG_RTC_STREAMS, 1);
            *stream = (aclrtStream)h;
        }
    }
    pthread_mutex_unlock(&hg_rt.mu);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked("aclrtDestroyStream");
    if (!rc && !stream) {
        hg_set_error("aclrtDestroyStream", "stream is NULL (the default stream cannot be destroyed)");
        rc = ACL_ERROR_INVALID_PARAM;
    }
    hg_stream *s = NULL;
    if (!rc) {
        s = hg_table_remove(&hg_rt.streams, (uintptr_t)stream);
        if (!s) {
            hg_set_error("aclrtDestroyStream", "stream (%p) is not a live stream (destroyed, or never created)",
                         stream);
            rc = ACL_ERROR_RT_INVALID_HANDLE;
        } else {
            hg_rt_count_add(HG_RTC_STREAMS, -1);
        }
    }
    pthread_mutex_unlock(&hg_rt.mu);
    if (s)
        hg_stream_shutdown(s);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked("aclrtSynchronizeStream");
    hg_stream *s = NULL;
    if (!rc)
        s = hg_stream_acquire_locked(stream, "aclrtSynchronizeStream", false, &rc);
    pthread_mutex_unlock(&hg_rt.mu);
    if (s) {
        hg_stream_sync(s);
        hg_stream_release(s);
    }
    return rc;
}

HG_INTERNAL aclError hg_stream_submit(aclrtStream stream, const char *caller, hg_task_fn fn, void *arg)
{
    const char *func = caller ? caller : "hg_stream_submit";
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked(func);
    if (!rc && !fn) {
        hg_set_error(func, "task function is NULL");
        rc = ACL_ERROR_INVALID_PARAM;
    }
    hg_stream *s = NULL;
    if (!rc)
        s = hg_stream_acquire_locked(stream, func, true, &rc);
    pthread_mutex_unlock(&hg_rt.mu);
    if (!s)
        return rc;
    hg_task t;
    memset(&t, 0, sizeof t);
    t.kind = HG_TASK_USER;
    t.fn = fn;
    t.arg = arg;
    rc = hg_stream_push(s, &t, func);
    hg_stream_release(s);
    return rc;
}
