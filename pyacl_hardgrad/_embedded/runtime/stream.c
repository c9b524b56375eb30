/* Streams: one worker thread each, running tasks in submission order.
 *
 * Hand-off is tuned for short tasks: the worker polls briefly (hg_rt.spin_ns) for new
 * work before parking on a condition variable, and a synchronising caller polls the
 * `done` mark of its last task's slot briefly before parking on `completed`.  Idle
 * streams sleep.
 *
 * Queue: producers (any number of callers) are serialised by qmu; the single consumer
 * (the worker) takes tasks without a lock.  Task number seq lives in slot
 * (seq - 1) & mask of the current ring, and the slot's `ready` holds seq once the task
 * is stored (release), so the worker learns of the task and reads it from one cache
 * line.  A slot is reused for seq + cap only when completed >= seq, i.e. after the
 * worker copied the task out.  When the ring is full, the producer copies the live
 * tasks into a ring twice as large and publishes it; the old ring receives no new task
 * and stays allocated until the stream is freed, so a worker still looking at it reads
 * either a task identical to the copy or a not-ready slot, and then reloads the ring
 * pointer.
 *
 * Inline runs (hg_stream_push_small): a small kernel task (or any kernel task of a thread that
 * said it waits for its launches, hgSetSynchronousLaunch) launched on an idle stream
 * (completed == submitted under qmu: nothing queued, nothing running, nothing waited for)
 * takes the next seq like any task but is never stored in the ring: the launching thread
 * runs it, then publishes its completion itself (slot `done`, `completed`), which only the
 * worker writes otherwise.  That is safe because the worker, idle, waits for exactly that
 * seq: it cannot run anything queued behind it meanwhile, and when it sees `completed`
 * reach its next seq it skips that number.  Later submitters (other threads included) find
 * the stream busy and queue behind it as usual; ring growth never copies the reserved
 * seq's slot (`inline_seq`).
 *
 * Same-CPU hand-offs: a poll cannot make progress while the thread it waits for shares
 * the CPU.  The worker records the CPU it runs on, submitters theirs; a waiter that finds
 * itself on its peer's CPU, or a worker that may only use one CPU, yields the CPU on every
 * poll instead of spinning. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prof.h"
#include "rt_internal.h"

#define RING_INITIAL 64u
/* Tasks of up to this many elements run in about the time a hand-off to the worker takes:
 * inline on any idle stream.  Larger small tasks only when the hand-off would be slow. */
#define HG_INLINE_ALWAYS 1024u

typedef struct hg_slot {
    _Alignas(HG_CACHE_LINE) _Atomic uint64_t ready; /* seq of the stored task, 0 = none yet */
    _Atomic uint64_t done;                          /* seq of the stored task once it ran */
    hg_task task;
} hg_slot;

struct hg_ring {
    size_t mask;           /* capacity - 1 */
    struct hg_ring *older; /* the ring this one replaced (freed with the stream) */
    hg_slot slots[];
};

_Static_assert(sizeof(hg_slot) == HG_CACHE_LINE, "a ring slot is one cache line");
_Static_assert(sizeof(struct hg_ring) % HG_CACHE_LINE == 0, "ring slots start on a cache line");

static atomic_int g_next_stream_id;

uint64_t hg_spin_ns(void)
{
    return atomic_load_explicit(&hg_rt.spin_ns, memory_order_relaxed);
}

static struct hg_ring *ring_new(size_t cap)
{
    if (cap > (SIZE_MAX - sizeof(struct hg_ring)) / sizeof(hg_slot))
        return NULL;
    struct hg_ring *r = aligned_alloc(HG_CACHE_LINE, sizeof(struct hg_ring) + cap * sizeof(hg_slot));
    if (!r)
        return NULL;
    r->mask = cap - 1u;
    r->older = NULL;
    for (size_t i = 0; i < cap; ++i) {
        atomic_init(&r->slots[i].ready, 0);
        atomic_init(&r->slots[i].done, 0);
        HG_ATOMIC_FIELD(&r->slots[i].ready);
        HG_ATOMIC_FIELD(&r->slots[i].done);
    }
    return r;
}

static void ring_free_all(struct hg_ring *r)
{
    while (r) {
        struct hg_ring *older = r->older;
        free(r);
        r = older;
    }
}

/* The slot holding task number seq, NULL while it is not queued (worker side). */
static hg_slot *ready_slot(hg_stream *s, uint64_t seq)
{
    struct hg_ring *r = atomic_load_explicit(&s->ring, memory_order_acquire);
    hg_slot *slot = &r->slots[(seq - 1u) & r->mask];
    return atomic_load_explicit(&slot->ready, memory_order_acquire) == seq ? slot : NULL;
}

static bool value_met(uint64_t have, uint64_t want, int cond)
{
    switch (cond) {
    case ACL_STREAM_WAIT_VALUE_GEQ:
        return (int64_t)(have - want) >= 0;
    case ACL_STREAM_WAIT_VALUE_EQ:
        return have == want;
    case ACL_STREAM_WAIT_VALUE_AND:
        return (have & want) != 0;
    default:
        return ~(have | want) != 0;
    }
}

/* Poll the word until the condition holds (or the stream is force-destroyed), backing off
 * from spinning to sleeps of up to 1 ms. */
static void value_wait(hg_stream *s, const hg_task *t)
{
    _Atomic uint64_t *word = t->word;
    uint64_t start = hg_now_ns();
    long sleep_ns = 1000;
    while (!value_met(atomic_load_explicit(word, memory_order_acquire), t->rec, t->value)) {
        if (atomic_load_explicit(&s->abandon, memory_order_relaxed))
            return;
        if (hg_now_ns() - start < hg_spin_ns()) {
            HG_CPU_RELAX();
            continue;
        }
        struct timespec ts = {0, sleep_ns};
        nanosleep(&ts, NULL);
        if (sleep_ns < 1000000L)
            sleep_ns *= 2;
    }
}

static void run_task_body(hg_stream *s, hg_task *t);

/* Profiling on: the task's run is timed and recorded (before the task's event reference is
 * dropped, so the recorder never sees an event freed under it). */
static void run_task(hg_stream *s, hg_task *t)
{
    if (!HG_PROFILING()) {
        run_task_body(s, t);
        return;
    }
    hg_event *ev = t->kind == HG_TASK_RECORD || t->kind == HG_TASK_WAIT || t->kind == HG_TASK_RESET_EVENT ? t->ev : NULL;
    if (ev)
        hg_event_retain(ev);
    uint64_t t0 = hg_now_ns();
    run_task_body(s, t);
    hg_prof_ran(s->device, s->id, t, t0, hg_now_ns());
    hg_event_release(ev);
}

static void run_task_body(hg_stream *s, hg_task *t)
{
    /* a force-destroyed stream drops what it has not started, except work whose function
     * owns resources (operators, callbacks), which still runs */
    bool skip = t->kind != HG_TASK_USER && atomic_load_explicit(&s->abandon, memory_order_relaxed);
    switch (t->kind) {
    case HG_TASK_USER:
        if (HG_CHECKING()) {
            hg_chk_task_begin(s, t->seq); /* host calls inside a host function act as this task */
            t->fn(t->arg);
            hg_chk_task_begin(NULL, 0);
        } else {
            t->fn(t->arg);
        }
        break;
    case HG_TASK_MEMCPY:
        if (!skip)
            memmove(t->dst, t->src, t->n);
        break;
    case HG_TASK_MEMSET:
        if (!skip)
            memset(t->dst, t->value, t->n);
        break;
    case HG_TASK_VALUE_WRITE:
        if (!skip)
            atomic_store_explicit((_Atomic uint64_t *)t->word, t->rec, memory_order_release);
        break;
    case HG_TASK_VALUE_WAIT:
        if (!skip)
            value_wait(s, t);
        break;
    case HG_TASK_RECORD:
        hg_event_task_record(t->ev, t->rec); /* also when abandoned: waiters elsewhere need it */
        hg_event_release(t->ev);
        break;
    case HG_TASK_WAIT:
        if (!skip)
            hg_event_task_wait(t->ev, t->rec);
        hg_event_release(t->ev);
        break;
    case HG_TASK_RESET_EVENT:
        hg_event_task_reset(t->ev);
        hg_event_release(t->ev);
        break;
    }
}

int hg_this_cpu(void)
{
    return sched_getcpu(); /* a read of the thread's rseq area with current glibc */
}

/* Whether the thread waited for shares this CPU (or this thread has no other). */
static bool peer_here(const atomic_int *peer_cpu, bool solo)
{
    if (solo)
        return true;
    if (!peer_cpu)
        return false;
    int peer = atomic_load_explicit(peer_cpu, memory_order_relaxed);
    return peer >= 0 && peer == hg_this_cpu();
}

bool hg_spin_until_peer(bool (*cond)(void *), void *arg, uint64_t spin_ns, const atomic_int *peer_cpu, bool solo)
{
    if (cond(arg))
        return true;
    if (spin_ns == 0)
        return false;
    uint64_t now = hg_now_ns();
    uint64_t deadline = now + spin_ns;
    /* after the first few microseconds the awaited thread may be waiting for a CPU
     * (oversubscribed machine): from then on offer ours between polls; on every poll
     * while it is known to wait for this very CPU */
    uint64_t yield_from = now + spin_ns / 10;
    bool here = peer_here(peer_cpu, solo);
    for (unsigned i = 1;; ++i) {
        if (here)
            sched_yield();
        else
            HG_CPU_RELAX();
        if (cond(arg))
            return true;
        if ((i & 15u) == 0 || here) {
            now = hg_now_ns();
            if (now >= deadline)
                return false;
            if (!here && now >= yield_from)
                sched_yield();
            if ((i & 255u) == 0)
                here = peer_here(peer_cpu, solo); /* threads migrate */
        }
    }
}

bool hg_spin_until(bool (*cond)(void *), void *arg, uint64_t spin_ns)
{
    return hg_spin_until_peer(cond, arg, spin_ns, NULL, false);
}

typedef struct {
    hg_stream *s;
    uint64_t seq;
} seq_wait;

/* Task number seq ran on a launching thread (only the worker writes `completed` for a
 * seq it has not reached itself). */
static bool ran_inline(hg_stream *s, uint64_t seq)
{
    return atomic_load_explicit(&s->completed, memory_order_acquire) >= seq;
}

/* Whether the worker, waiting for task number seq, has something to do: the task is
 * queued, ran inline (skip it), or the stream stops and every accepted task is done. */
static bool worker_may_go(hg_stream *s, uint64_t seq)
{
    if (ready_slot(s, seq) || ran_inline(s, seq))
        return true;
    return atomic_load(&s->stop) && atomic_load_explicit(&s->submitted, memory_order_acquire) < seq;
}

static bool has_work(void *p)
{
    seq_wait *w = p;
    return worker_may_go(w->s, w->seq);
}

/* A synchroniser polls the `done` mark in the slot of the task it waits for: that line
 * already travels between the caller (who wrote the task) and the worker (who read
 * it), so the answer costs no extra line transfer.  The slot may have been reused or
 * moved by ring growth in the meantime; the stream-wide `completed` (read now and
 * then, not to pull its line away from the worker on every poll) settles those cases. */
typedef struct {
    hg_stream *s;
    uint64_t seq;
    hg_slot *slot;
    unsigned polls;
} done_wait;

static bool reached(void *p)
{
    done_wait *w = p;
    if (atomic_load_explicit(&w->slot->done, memory_order_acquire) == w->seq)
        return true;
    return (++w->polls & 7u) == 0 && atomic_load_explicit(&w->s->completed, memory_order_acquire) >= w->seq;
}

/* Whether the calling thread may run on one CPU only. */
static bool single_cpu(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    return sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == 1;
}

static void *worker_main(void *p)
{
    hg_stream *s = p;
    uint64_t spin = hg_spin_ns();
    s->solo = single_cpu();
    /* when the worker last ran a task itself: tasks run inline do not keep it polling */
    uint64_t busy_at = hg_now_ns();
    for (uint64_t next = 1;;) {
        seq_wait w = {s, next};
        int cpu = hg_this_cpu();
        if (atomic_load_explicit(&s->worker_cpu, memory_order_relaxed) != cpu)
            atomic_store_explicit(&s->worker_cpu, cpu, memory_order_relaxed);
        uint64_t idle = hg_now_ns() - busy_at;
        if (!hg_spin_until_peer(has_work, &w, idle < spin ? spin - idle : 0, &s->producer_cpu, s->solo)) {
            pthread_mutex_lock(&s->qmu);
            while (!worker_may_go(s, next)) {
                s->sleeping = 1;
                pthread_cond_wait(&s->work_cv, &s->qmu);
                s->sleeping = 0;
            }
            pthread_mutex_unlock(&s->qmu);
        }
        if (ran_inline(s, next)) {
            HG_HAPPENS_AFTER(&s->completed);
            ++next;
            continue;
        }
        hg_slot *slot = ready_slot(s, next);
        if (!slot) {
            /* stopping: every accepted push was published before stop was set, and
             * submitted no longer moves, so this decides whether the queue is drained */
            if (atomic_load(&s->stop) && atomic_load_explicit(&s->submitted, memory_order_acquire) < next)
                break;
            continue;
        }
        HG_HAPPENS_AFTER(slot);
        hg_task t = slot->task; /* the slot may be reused once completed says so */
        run_task(s, &t);
        busy_at = hg_now_ns();
        HG_HAPPENS_BEFORE(&s->completed);
        atomic_store_explicit(&slot->done, next, memory_order_release);
        atomic_store(&s->completed, next); /* seq_cst: pairs with waiters below */
        if (atomic_load(&s->waiters) > 0) {
            pthread_mutex_lock(&s->done_mu);
            pthread_cond_broadcast(&s->done_cv);
            pthread_mutex_unlock(&s->done_mu);
        }
        ++next;
    }
    return NULL;
}

hg_stream *hg_stream_new(int device, bool is_default, aclError *err)
{
    /* aligned: the field groups are laid out by cache line */
    hg_stream *s = aligned_alloc(_Alignof(hg_stream), sizeof *s);
    struct hg_ring *ring = ring_new(RING_INITIAL);
    if (!s || !ring) {
        free(s);
        free(ring);
        *err = ACL_ERROR_RT_MEMORY_ALLOCATION;
        return NULL;
    }
    memset(s, 0, sizeof *s);
    atomic_init(&s->ring, ring);
    atomic_init(&s->refs, 1);
    atomic_init(&s->abandon, 0);
    s->id = atomic_fetch_add(&g_next_stream_id, 1);
    s->device = device;
    s->is_default = is_default;
    atomic_init(&s->stop, 0);
    atomic_init(&s->submitted, 0);
    atomic_init(&s->completed, 0);
    atomic_init(&s->waiters, 0);
    atomic_init(&s->worker_cpu, -1);
    atomic_init(&s->producer_cpu, -1);
    HG_ATOMIC_FIELD(&s->worker_cpu);
    HG_ATOMIC_FIELD(&s->producer_cpu);
    HG_ATOMIC_FIELD(&s->ring);
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
    ring_free_all(atomic_load_explicit(&s->ring, memory_order_relaxed));
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
            if (HG_CHECKING())
                hg_chk_stale_stream(func, (uintptr_t)handle);
            hg_set_error(func, "stream (%p) is not a live stream (destroyed, or never created)", handle);
            *err = ACL_ERROR_RT_INVALID_HANDLE;
            return NULL;
        }
    }
    atomic_fetch_add(&s->refs, 1);
    *err = ACL_SUCCESS;
    return s;
}

/* Replace the full ring r by one twice as large holding the tasks after `freed`.
 * Caller holds qmu.  NULL when out of memory (r is left as it was). */
static struct hg_ring *ring_grow(hg_stream *s, struct hg_ring *r, uint64_t last)
{
    size_t cap = r->mask + 1u;
    struct hg_ring *nr = cap * 2u > cap ? ring_new(cap * 2u) : NULL;
    if (!nr)
        return NULL;
    for (uint64_t q = s->freed + 1u; q <= last; ++q) {
        if (q == s->inline_seq)
            continue; /* running on its launcher's thread: never queued */
        hg_slot *from = &r->slots[(q - 1u) & r->mask];
        hg_slot *to = &nr->slots[(q - 1u) & nr->mask];
        to->task = from->task; /* the worker may read `from` too, nobody writes it */
        atomic_store_explicit(&to->ready, q, memory_order_relaxed);
    }
    nr->older = r;
    atomic_store_explicit(&s->ring, nr, memory_order_release);
    return nr;
}

static _Thread_local uint32_t tls_last_task;
/* Profiling: when this thread's current enqueue began (lock_for_push). */
static _Thread_local uint64_t tls_prof_t0;

/* Queue task behind everything submitted; caller holds qmu, which this releases. */
static aclError push_locked(hg_stream *s, hg_task *task, const char *func, uint64_t last)
{
    uint64_t seq = last + 1u;
    struct hg_ring *r = atomic_load_explicit(&s->ring, memory_order_relaxed);
    if (seq - s->freed > r->mask + 1u) {
        /* the slot still holds task seq - cap as far as we know: ask the worker */
        s->freed = atomic_load_explicit(&s->completed, memory_order_acquire);
        HG_HAPPENS_AFTER(&s->completed);
        if (seq - s->freed > r->mask + 1u) {
            r = ring_grow(s, r, last);
            if (!r) {
                pthread_mutex_unlock(&s->qmu);
                hg_set_error(func, "out of host memory queueing on the stream");
                return ACL_ERROR_RT_MEMORY_ALLOCATION;
            }
        }
    }
    task->seq = seq;
    if (HG_CHECKING())
        hg_chk_enqueue(s, task, func);
    if (HG_PROFILING()) {
        hg_prof_enqueue(s->device, s->id, task, func, tls_prof_t0);
        tls_prof_t0 = 0;
    }
    if (!s->is_default)
        tls_last_task = (uint32_t)seq;
    hg_slot *slot = &r->slots[(seq - 1u) & r->mask];
    slot->task = *task;
    HG_HAPPENS_BEFORE(slot);
    atomic_store_explicit(&slot->ready, seq, memory_order_release);
    atomic_store(&s->submitted, seq); /* seq_cst: pairs with an inline run's completion */
    if (s->sleeping)
        pthread_cond_signal(&s->work_cv);
    pthread_mutex_unlock(&s->qmu);
    return ACL_SUCCESS;
}

/* Take qmu for a submission; false (qmu released, error set) when the stream stops.
 * *cpu: the caller's CPU. */
static bool lock_for_push(hg_stream *s, const char *func, int *cpu_out)
{
    if (HG_PROFILING())
        tls_prof_t0 = hg_now_ns();
    pthread_mutex_lock(&s->qmu);
    if (atomic_load(&s->stop)) {
        pthread_mutex_unlock(&s->qmu);
        hg_set_error(func, "stream is being destroyed");
        return false;
    }
    int cpu = hg_this_cpu();
    if (atomic_load_explicit(&s->producer_cpu, memory_order_relaxed) != cpu)
        atomic_store_explicit(&s->producer_cpu, cpu, memory_order_relaxed);
    *cpu_out = cpu;
    return true;
}

aclError hg_stream_push(hg_stream *s, hg_task *task, const char *func)
{
    int cpu;
    if (!lock_for_push(s, func, &cpu))
        return ACL_ERROR_RT_INVALID_HANDLE;
    return push_locked(s, task, func, atomic_load_explicit(&s->submitted, memory_order_relaxed));
}

/* hgSetSynchronousLaunch: this thread waits for its launches right after making them. */
static _Thread_local bool tls_sync_launch;

ACL_FUNC_VISIBILITY aclError hgSetSynchronousLaunch(int32_t enable)
{
    tls_sync_launch = enable != 0;
    return ACL_SUCCESS;
}

aclError hg_stream_push_small(hg_stream *s, hg_task *task, const char *func, uint64_t elements)
{
    /* A launch its thread waits for at once runs there whatever its size: handing it to the
     * worker would leave that thread waiting while the worker (and the pool's workers beside
     * it) compete with it for the CPUs. */
    bool sync = tls_sync_launch && elements != HG_COST_UNKNOWN;
    uint64_t below = atomic_load_explicit(&hg_rt.inline_below, memory_order_relaxed);
    if (below == 0 || (!sync && elements >= below))
        return hg_stream_push(s, task, func);
    int cpu;
    if (!lock_for_push(s, func, &cpu))
        return ACL_ERROR_RT_INVALID_HANDLE;
    uint64_t last = atomic_load_explicit(&s->submitted, memory_order_relaxed);
    if (atomic_load_explicit(&s->completed, memory_order_acquire) != last)
        return push_locked(s, task, func, last); /* busy: behind what is queued */
    /* A task whose run takes longer than a hand-off goes to a worker that is polling on
     * another CPU: there the hand-off is cheap and the task overlaps the caller's next
     * steps.  Inline it only when the worker sleeps or shares this CPU. */
    if (!sync && elements > HG_INLINE_ALWAYS && !s->sleeping &&
        atomic_load_explicit(&s->worker_cpu, memory_order_relaxed) != cpu)
        return push_locked(s, task, func, last);
    HG_HAPPENS_AFTER(&s->completed);
    /* idle: reserve the next seq; the worker waits for it, later pushes queue behind it */
    uint64_t seq = last + 1u;
    task->seq = seq;
    if (HG_CHECKING())
        hg_chk_enqueue(s, task, func);
    if (HG_PROFILING()) {
        hg_prof_enqueue(s->device, s->id, task, func, tls_prof_t0);
        tls_prof_t0 = 0;
    }
    if (!s->is_default)
        tls_last_task = (uint32_t)seq;
    s->inline_seq = seq;
    struct hg_ring *r = atomic_load_explicit(&s->ring, memory_order_relaxed);
    hg_slot *slot = &r->slots[(seq - 1u) & r->mask]; /* free: completed == seq - 1 */
    atomic_store(&s->submitted, seq);
    pthread_mutex_unlock(&s->qmu);

    run_task(s, task);

    /* complete it as the worker would: a synchroniser polls the slot or `completed` */
    HG_HAPPENS_BEFORE(&s->completed);
    atomic_store_explicit(&slot->done, seq, memory_order_release);
    atomic_store(&s->completed, seq); /* seq_cst: pairs with waiters and with push_locked */
    if (atomic_load(&s->waiters) > 0) {
        pthread_mutex_lock(&s->done_mu);
        pthread_cond_broadcast(&s->done_cv);
        pthread_mutex_unlock(&s->done_mu);
    }
    /* Work queued behind it meanwhile (or a stop) may have found the worker parked
     * waiting for this seq and left it there: wake it.  A push after our load of
     * `submitted` sees the worker parked (and signals) or the worker sees `completed`. */
    if (atomic_load(&s->submitted) != seq || atomic_load(&s->stop)) {
        pthread_mutex_lock(&s->qmu);
        if (s->sleeping)
            pthread_cond_signal(&s->work_cv);
        pthread_mutex_unlock(&s->qmu);
    }
    return ACL_SUCCESS;
}

void hg_stream_sync(hg_stream *s)
{
    uint64_t seq = atomic_load_explicit(&s->submitted, memory_order_acquire);
    if (seq == 0)
        return;
    struct hg_ring *r = atomic_load_explicit(&s->ring, memory_order_acquire);
    done_wait w = {s, seq, &r->slots[(seq - 1u) & r->mask], 0};
    if (!hg_spin_until_peer(reached, &w, hg_spin_ns(), &s->worker_cpu, false)) {
        atomic_fetch_add(&s->waiters, 1); /* seq_cst: the worker sees it or we see completed */
        pthread_mutex_lock(&s->done_mu);
        while (atomic_load(&s->completed) < w.seq)
            pthread_cond_wait(&s->done_cv, &s->done_mu);
        pthread_mutex_unlock(&s->done_mu);
        atomic_fetch_sub(&s->waiters, 1);
    }
    HG_HAPPENS_AFTER(&s->completed);
    if (HG_CHECKING())
        hg_chk_stream_synced(s, seq);
}

bool hg_stream_idle(hg_stream *s)
{
    return atomic_load(&s->completed) >= atomic_load_explicit(&s->submitted, memory_order_acquire);
}

uint64_t hg_deadline_ms(int32_t timeout_ms)
{
    if (timeout_ms < 0)
        return UINT64_MAX;
    return hg_now_ns() + (uint64_t)timeout_ms * 1000000ull;
}

/* The realtime-clock time point hg_now_ns() reaches at deadline_ns (for timed waits). */
struct timespec hg_realtime_at(uint64_t deadline_ns)
{
    uint64_t now = hg_now_ns();
    uint64_t left = deadline_ns > now ? deadline_ns - now : 0;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t ns = (uint64_t)ts.tv_nsec + left % 1000000000ull;
    ts.tv_sec += (time_t)(left / 1000000000ull + ns / 1000000000ull);
    ts.tv_nsec = (long)(ns % 1000000000ull);
    return ts;
}

bool hg_stream_sync_until(hg_stream *s, uint64_t deadline_ns)
{
    if (deadline_ns == UINT64_MAX) {
        hg_stream_sync(s);
        return true;
    }
    uint64_t seq = atomic_load_explicit(&s->submitted, memory_order_acquire);
    if (atomic_load(&s->completed) >= seq) {
        if (HG_CHECKING())
            hg_chk_stream_synced(s, seq);
        return true;
    }
    struct timespec until = hg_realtime_at(deadline_ns);
    atomic_fetch_add(&s->waiters, 1);
    pthread_mutex_lock(&s->done_mu);
    int wrc = 0;
    while (atomic_load(&s->completed) < seq && wrc != ETIMEDOUT)
        wrc = pthread_cond_timedwait(&s->done_cv, &s->done_mu, &until);
    bool ok = atomic_load(&s->completed) >= seq;
    pthread_mutex_unlock(&s->done_mu);
    atomic_fetch_sub(&s->waiters, 1);
    if (ok)
        HG_HAPPENS_AFTER(&s->completed);
    if (ok && HG_CHECKING())
        hg_chk_stream_synced(s, seq);
    return ok;
}

void hg_stream_shutdown(hg_stream *s)
{
    hg_report_detach_stream(s);
    pthread_mutex_lock(&s->qmu);
    atomic_store(&s->stop, 1);
    if (s->sleeping)
        pthread_cond_signal(&s->work_cv);
    pthread_mutex_unlock(&s->qmu);
    pthread_join(s->thread, NULL);
    if (HG_CHECKING())
        hg_chk_stream_gone(s);
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

/* Shared by the stream creators: a stream of the current device with these settings. */
static aclError create_stream(const char *func, aclrtStream *stream, uint32_t priority, uint32_t flags)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked(func);
    if (!rc && !stream) {
        hg_set_error(func, "stream is NULL");
        rc = ACL_ERROR_INVALID_PARAM;
    }
    int dev = -1;
    if (!rc)
        rc = hg_require_device_locked(func, &dev);
    if (!rc) {
        hg_stream *s = hg_stream_new(dev, false, &rc);
        if (!s) {
            hg_set_error(func, "cannot start the stream's worker thread");
        } else {
            s->priority = priority;
            s->flags = flags;
            uintptr_t h = hg_table_add(&hg_rt.streams, s);
            if (!h) {
                pthread_mutex_unlock(&hg_rt.mu);
                hg_stream_shutdown(s);
                hg_set_error(func, "out of host memory");
                return hg_rt_ret(ACL_ERROR_RT_MEMORY_ALLOCATION);
            }
            hg_rt_count_add(HG_RTC_STREAMS, 1);
            if (HG_CHECKING())
                hg_chk_stream_created(func, s);
            *stream = (aclrtStream)h;
            HG_LOG(HG_LOG_ASCENDCL, HG_LOG_INFO, func, "stream 0x%llx created on device %d (priority %u, flags 0x%x)",
                   (unsigned long long)h, s->device, (unsigned)priority, (unsigned)flags);
        }
    }
    pthread_mutex_unlock(&hg_rt.mu);
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream *stream)
{
    return create_stream("aclrtCreateStream", stream, 0, 0);
}

#define HG_STREAM_FLAGS_KNOWN                                                                                  \
    (ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | ACL_STREAM_PERSISTENT | ACL_STREAM_HUGE |                 \
     ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY)
#define HG_LOWEST_PRIORITY 7u

ACL_FUNC_VISIBILITY aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    const char *func = "aclrtCreateStreamWithConfig";
    if (flag & ~(uint32_t)HG_STREAM_FLAGS_KNOWN) {
        hg_set_error(func, "flag (0x%x) has bits outside the ACL_STREAM_* flags (0x%x)", flag,
                     (unsigned)HG_STREAM_FLAGS_KNOWN);
        return ACL_ERROR_INVALID_PARAM;
    }
    /* out-of-range priorities are clamped, as CANN does */
    return create_stream(func, stream, priority > HG_LOWEST_PRIORITY ? HG_LOWEST_PRIORITY : priority, flag);
}

ACL_FUNC_VISIBILITY aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void)
{
    aclrtStreamConfigHandle *h = calloc(1, sizeof *h);
    if (!h)
        hg_set_error("aclrtCreateStreamConfigHandle", "out of host memory");
    return h;
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle)
{
    if (!handle) {
        hg_set_error("aclrtDestroyStreamConfigHandle", "handle is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    free(handle);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle, aclrtStreamConfigAttr attr,
                                                     const void *attrValue, size_t valueSize)
{
    const char *func = "aclrtSetStreamConfigOpt";
    if (!handle || !attrValue) {
        hg_set_error(func, "%s is NULL", !handle ? "handle" : "attrValue");
        return ACL_ERROR_INVALID_PARAM;
    }
    size_t want;
    switch (attr) {
    case ACL_RT_STREAM_WORK_ADDR_PTR: want = sizeof(void *); break;
    case ACL_RT_STREAM_WORK_SIZE: want = sizeof(size_t); break;
    case ACL_RT_STREAM_FLAG: want = sizeof(size_t); break;
    case ACL_RT_STREAM_PRIORITY: want = sizeof(uint32_t); break;
    default:
        hg_set_error(func, "attr (%d) is not an aclrtStreamConfigAttr value", (int)attr);
        return ACL_ERROR_INVALID_PARAM;
    }
    /* the reserved flag is read as a size_t, or as the uint32_t CANN's stream sample passes */
    if (attr == ACL_RT_STREAM_FLAG && valueSize == sizeof(uint32_t))
        want = sizeof(uint32_t);
    if (valueSize != want) {
        hg_set_error(func, "valueSize (%zu) must be %zu for attr %d", valueSize, want, (int)attr);
        return ACL_ERROR_INVALID_PARAM;
    }
    switch (attr) {
    case ACL_RT_STREAM_WORK_ADDR_PTR:
        memcpy(&handle->workptr, attrValue, want);
        break;
    case ACL_RT_STREAM_WORK_SIZE:
        memcpy(&handle->workSize, attrValue, want);
        break;
    case ACL_RT_STREAM_FLAG: {
        size_t flag;
        if (want == sizeof(uint32_t)) {
            uint32_t f32;
            memcpy(&f32, attrValue, sizeof f32);
            flag = f32;
        } else {
            memcpy(&flag, attrValue, want);
        }
        if (flag != 0) {
            hg_set_error(func, "ACL_RT_STREAM_FLAG is reserved and must be 0, got %zu", flag);
            return ACL_ERROR_INVALID_PARAM;
        }
        handle->flag = flag;
        break;
    }
    default: {
        uint32_t prio;
        memcpy(&prio, attrValue, want);
        if (prio > HG_LOWEST_PRIORITY) {
            hg_set_error(func, "priority (%u) is out of range [0, %u]", prio, HG_LOWEST_PRIORITY);
            return ACL_ERROR_INVALID_PARAM;
        }
        handle->priority = prio;
        break;
    }
    }
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtCreateStreamV2(aclrtStream *stream, const aclrtStreamConfigHandle *handle)
{
    const char *func = "aclrtCreateStreamV2";
    if (!handle) {
        hg_set_error(func, "handle is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    if (handle->priority > HG_LOWEST_PRIORITY) {
        hg_set_error(func, "handle's priority (%u) is out of range [0, %u]", handle->priority, HG_LOWEST_PRIORITY);
        return ACL_ERROR_INVALID_PARAM;
    }
    /* the work memory is the caller's; a CPU stream needs none of it */
    return create_stream(func, stream, handle->priority, 0);
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked("aclrtDestroyStream");
    if (!rc && !stream) {
        hg_set_error("aclrtDestroyStream", "stream is NULL (the default stream cannot be destroyed)");
        rc = ACL_ERROR_INVALID_PARAM;
    }
    hg_stream *held = NULL;
    if (!rc)
        held = hg_stream_acquire_locked(stream, "aclrtDestroyStream", false, &rc);
    pthread_mutex_unlock(&hg_rt.mu);
    if (!held)
        return hg_rt_ret(rc);
    /* Drain while the handle is still valid, so a synchronize from another thread meanwhile
     * waits for the work instead of finding the handle gone; then remove and stop it.  Host
     * callbacks waiting for a thread that never processes them run now (as at shutdown),
     * or the drain would wait for them forever. */
    if (HG_CHECKING())
        hg_chk_stream_destroy("aclrtDestroyStream", held);
    hg_report_detach_stream(held);
    hg_stream_sync(held);
    pthread_mutex_lock(&hg_rt.mu);
    hg_stream *s = hg_table_remove(&hg_rt.streams, (uintptr_t)stream);
    if (!s) {
        hg_set_error("aclrtDestroyStream", "stream (%p) was destroyed by another thread meanwhile", stream);
        rc = ACL_ERROR_RT_INVALID_HANDLE;
    } else {
        hg_rt_count_add(HG_RTC_STREAMS, -1);
        HG_LOG(HG_LOG_ASCENDCL, HG_LOG_INFO, "aclrtDestroyStream", "stream %p destroyed", stream);
    }
    pthread_mutex_unlock(&hg_rt.mu);
    hg_stream_release(held);
    if (s)
        hg_stream_shutdown(s);
    return hg_rt_ret(rc);
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
    return hg_rt_ret(rc);
}

HG_INTERNAL aclError hg_stream_launch(aclrtStream stream, const char *caller, hg_task_fn fn, void *arg,
                                      uint64_t elements)
{
    const char *func = caller ? caller : "hg_stream_launch";
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
    rc = hg_stream_push_small(s, &t, func, elements);
    if (!rc && atomic_load_explicit(&hg_chk_launch_blocking, memory_order_relaxed))
        hg_stream_sync(s); /* ASCEND_LAUNCH_BLOCKING=1: the launch returns when its work is done */
    hg_stream_release(s);
    return rc;
}

HG_INTERNAL aclError hg_stream_submit(aclrtStream stream, const char *caller, hg_task_fn fn, void *arg)
{
    return hg_stream_launch(stream, caller ? caller : "hg_stream_submit", fn, arg, HG_COST_UNKNOWN);
}

HG_INTERNAL int hg_stream_device(aclrtStream stream, const char *caller, aclError *err)
{
    pthread_mutex_lock(&hg_rt.mu);
    int dev = -1;
    *err = hg_check_init_locked(caller);
    if (!*err) {
        if (!stream) {
            *err = hg_require_device_locked(caller, &dev);
        } else {
            hg_stream *s = hg_table_get(&hg_rt.streams, (uintptr_t)stream);
            if (s) {
                dev = s->device;
            } else {
                if (HG_CHECKING())
                    hg_chk_stale_stream(caller, (uintptr_t)stream);
                hg_set_error(caller, "stream (%p) is not a live stream (destroyed, or never created)", stream);
                *err = ACL_ERROR_RT_INVALID_HANDLE;
            }
        }
    }
    pthread_mutex_unlock(&hg_rt.mu);
    return *err ? -1 : dev;
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyStreamForce(aclrtStream stream)
{
    const char *func = "aclrtDestroyStreamForce";
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked(func);
    if (!rc && !stream) {
        hg_set_error(func, "stream is NULL (the default stream cannot be destroyed)");
        rc = ACL_ERROR_INVALID_PARAM;
    }
    hg_stream *s = NULL;
    if (!rc) {
        s = hg_table_get(&hg_rt.streams, (uintptr_t)stream);
        int dev = hg_current_device_locked();
        if (!s) {
            hg_set_error(func, "stream (%p) is not a live stream (destroyed, or never created)", stream);
            rc = ACL_ERROR_RT_INVALID_HANDLE;
        } else if (s->device != dev) {
            hg_set_error(func, "stream belongs to device %d, not to the current device %d", s->device, dev);
            rc = ACL_ERROR_RT_STREAM_CONTEXT;
            s = NULL;
        } else {
            hg_table_remove(&hg_rt.streams, (uintptr_t)stream);
            hg_rt_count_add(HG_RTC_STREAMS, -1);
            HG_LOG(HG_LOG_ASCENDCL, HG_LOG_INFO, func, "stream %p destroyed (queued work abandoned)", stream);
        }
    }
    pthread_mutex_unlock(&hg_rt.mu);
    if (s) {
        atomic_store(&s->abandon, 1);
        hg_stream_shutdown(s);
    }
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    const char *func = "aclrtSynchronizeStreamWithTimeout";
    if (timeout < -1) {
        hg_set_error(func, "timeout (%d) must be -1 (wait for ever) or at least 0 (ms)", (int)timeout);
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked(func);
    hg_stream *s = NULL;
    if (!rc)
        s = hg_stream_acquire_locked(stream, func, false, &rc);
    pthread_mutex_unlock(&hg_rt.mu);
    if (s) {
        if (!hg_stream_sync_until(s, hg_deadline_ms(timeout))) {
            hg_set_error(func, "the stream's tasks did not finish within %d ms", (int)timeout);
            rc = ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
        }
        hg_stream_release(s);
    }
    return hg_rt_ret(rc);
}

/* Look up a stream for the query calls after checking the output pointer (NULL: the
 * default stream; when `create` is false it may not exist yet: then *s is NULL). */
static aclError query_stream(const char *func, aclrtStream stream, const void *out, const char *out_name,
                             bool create, hg_stream **s)
{
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_enter_locked(func, out, out_name, NULL);
    *s = NULL;
    if (!rc)
        *s = hg_stream_acquire_locked(stream, func, create, &rc);
    pthread_mutex_unlock(&hg_rt.mu);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
    hg_stream *s;
    aclError rc = query_stream("aclrtStreamQuery", stream, status, "status", false, &s);
    if (rc)
        return hg_rt_ret(rc);
    *status = !s || hg_stream_idle(s) ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    hg_stream_release(s);
    return ACL_SUCCESS;
}

typedef enum { FIELD_ID, FIELD_PRIORITY, FIELD_FLAGS } stream_field;

/* aclrtStreamGetId / GetPriority / GetFlags; the default stream has priority 0, flags 0. */
static aclError get_stream_field(const char *func, aclrtStream stream, void *out, const char *out_name,
                                 stream_field which)
{
    hg_stream *s;
    aclError rc = query_stream(func, stream, out, out_name, which == FIELD_ID, &s);
    if (rc)
        return hg_rt_ret(rc);
    if (which == FIELD_ID)
        *(int32_t *)out = s->id;
    else
        *(uint32_t *)out = !s ? 0u : which == FIELD_PRIORITY ? s->priority : s->flags;
    hg_stream_release(s);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId)
{
    return get_stream_field("aclrtStreamGetId", stream, streamId, "streamId", FIELD_ID);
}

ACL_FUNC_VISIBILITY aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority)
{
    return get_stream_field("aclrtStreamGetPriority", stream, priority, "priority", FIELD_PRIORITY);
}

ACL_FUNC_VISIBILITY aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags)
{
    return get_stream_field("aclrtStreamGetFlags", stream, flags, "flags", FIELD_FLAGS);
}

ACL_FUNC_VISIBILITY aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode)
{
    const char *func = "aclrtSetStreamFailureMode";
    if (mode != ACL_CONTINUE_ON_FAILURE && mode != ACL_STOP_ON_FAILURE) {
        hg_set_error(func, "mode (%llu) is not ACL_CONTINUE_ON_FAILURE (0) or ACL_STOP_ON_FAILURE (1)",
                     (unsigned long long)mode);
        return ACL_ERROR_INVALID_PARAM;
    }
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = hg_check_init_locked(func);
    hg_stream *s = NULL;
    if (!rc)
        s = hg_stream_acquire_locked(stream, func, true, &rc);
    if (s) {
        if (s->failure_mode_set && s->failure_mode != mode) {
            hg_set_error(func, "the stream's failure mode was set already (it can be set once)");
            rc = ACL_ERROR_RT_PARAM_INVALID;
        } else {
            /* CPU tasks do not fail the way device tasks do, so the mode never changes what runs */
            s->failure_mode = mode;
            s->failure_mode_set = true;
        }
    }
    pthread_mutex_unlock(&hg_rt.mu);
    hg_stream_release(s);
    return hg_rt_ret(rc);
}

#define HG_MAX_STREAMS_PER_DEVICE 1984

ACL_FUNC_VISIBILITY aclError aclrtGetStreamAvailableNum(uint32_t *streamCount)
{
    pthread_mutex_lock(&hg_rt.mu);
    int dev = -1;
    aclError rc = hg_enter_locked("aclrtGetStreamAvailableNum", streamCount, "streamCount", &dev);
    if (!rc) {
        uint32_t used = hg_rt.dev[dev].default_stream ? 1u : 0u;
        for (uint32_t i = 0; i < hg_rt.streams.cap; ++i) {
            uintptr_t h = hg_table_handle_at(&hg_rt.streams, i);
            hg_stream *s = h ? hg_table_get(&hg_rt.streams, h) : NULL;
            if (s && s->device == dev)
                ++used;
        }
        *streamCount = used >= HG_MAX_STREAMS_PER_DEVICE ? 0u : HG_MAX_STREAMS_PER_DEVICE - used;
    }
    pthread_mutex_unlock(&hg_rt.mu);
    return hg_rt_ret(rc);
}

ACL_FUNC_VISIBILITY aclError aclrtGetThreadLastTaskId(uint32_t *taskId)
{
    if (!taskId) {
        hg_set_error("aclrtGetThreadLastTaskId", "taskId is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    *taskId = tls_last_task;
    return ACL_SUCCESS;
}
