/*
 * libopapi's process-wide worker pool for large element-wise jobs.  Threads start on
 * the first job big enough to need them.  Between jobs a worker polls for a new one for
 * a short while (PYACL_HARDGRAD_SPIN_US, as the stream workers; 0 turns it off) and then
 * parks on a condition variable; the submitter polls for the end of its job the same
 * way.  A wake-up through the kernel costs tens of microseconds, as much as a job on
 * cache-resident data.  The caller takes part in every job, so a pool of N threads has
 * N - 1 workers.  One job runs at a time; a second submitter waits for its turn.  At
 * library unload the workers are woken, told to stop and joined.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "opapi_common.h"

#define HG_POOL_MAX_THREADS 64
#define HG_POOL_SPIN_DEFAULT_US 50u
#define HG_POOL_SPIN_MAX_US 100000u

#if defined(__x86_64__) || defined(__i386__)
#define HG_POOL_RELAX() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define HG_POOL_RELAX() __asm__ __volatile__("yield" ::: "memory")
#else
#define HG_POOL_RELAX() atomic_signal_fence(memory_order_seq_cst)
#endif

typedef struct hg_pool {
    pthread_mutex_t mu;
    pthread_cond_t wake;              /* workers: a new job or stop */
    pthread_cond_t done;              /* submitter: the last worker left the job */
    pthread_mutex_t submit;           /* one job at a time */
    int nworkers;                     /* started workers */
    pthread_t threads[HG_POOL_MAX_THREADS];
    atomic_ulong generation;          /* bumped per job (under mu) */
    atomic_int busy;                  /* workers still inside the current job */
    atomic_int stop;
    /* the current job */
    hg_range_fn fn;
    void *ctx;
    size_t n, chunk, nchunks;
    atomic_size_t next;
} hg_pool;

static hg_pool pool = {
    .mu = PTHREAD_MUTEX_INITIALIZER,
    .wake = PTHREAD_COND_INITIALIZER,
    .done = PTHREAD_COND_INITIALIZER,
    .submit = PTHREAD_MUTEX_INITIALIZER,
};
static pthread_once_t size_once = PTHREAD_ONCE_INIT;
static pthread_once_t start_once = PTHREAD_ONCE_INIT;
static int pool_size = 1;             /* threads per job, caller included */
static uint64_t spin_ns;              /* how long to poll before parking */

static void read_size(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    const char *env = getenv("PYACL_HARDGRAD_THREADS");
    if (env != NULL && *env != '\0') {
        char *end = NULL;
        long v = strtol(env, &end, 10);
        if (end != env && *end == '\0' && v >= 1) {
            n = v;
        } else {
            fprintf(stderr, "pyacl_hardgrad: PYACL_HARDGRAD_THREADS=\"%s\" is not a whole number >= 1; "
                    "using the %ld online CPUs\n", env, n < 1 ? 1 : n);
        }
    }
    if (n < 1) {
        n = 1;
    }
    if (n > HG_POOL_MAX_THREADS) {
        n = HG_POOL_MAX_THREADS;
    }
    pool_size = (int)n;

    unsigned long us = HG_POOL_SPIN_DEFAULT_US;
    env = getenv("PYACL_HARDGRAD_SPIN_US");
    if (env != NULL && *env != '\0') {
        char *end = NULL;
        unsigned long v = strtoul(env, &end, 10);
        if (end != env && *end == '\0' && v <= HG_POOL_SPIN_MAX_US) {
            us = v;
        }
    }
    spin_ns = (uint64_t)us * 1000u;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int new_job_or_stop(unsigned long seen)
{
    return atomic_load_explicit(&pool.generation, memory_order_acquire) != seen ||
           atomic_load_explicit(&pool.stop, memory_order_acquire);
}

static int job_finished(unsigned long unused)
{
    (void)unused;
    return atomic_load_explicit(&pool.busy, memory_order_acquire) == 0;
}

/* Polls cond(arg) for up to spin_ns; 1 once it holds.  After the first tenth of the
 * time the awaited thread may be waiting for a CPU (more threads than cores), so the
 * CPU is offered between polls from then on. */
static int spin_until(int (*cond)(unsigned long), unsigned long arg)
{
    if (cond(arg)) {
        return 1;
    }
    if (spin_ns == 0) {
        return 0;
    }
    uint64_t start = now_ns();
    uint64_t yield_from = start + spin_ns / 10u, deadline = start + spin_ns;
    for (unsigned i = 1;; i++) {
        HG_POOL_RELAX();
        if (cond(arg)) {
            return 1;
        }
        if ((i & 15u) == 0) {
            uint64_t t = now_ns();
            if (t >= deadline) {
                return 0;
            }
            if (t >= yield_from) {
                sched_yield();
            }
        }
    }
}

int hg_pool_size(void)
{
    pthread_once(&size_once, read_size);
    return pool_size;
}

/* Takes chunks until none is left. */
static void run_chunks(void)
{
    for (;;) {
        size_t c = atomic_fetch_add_explicit(&pool.next, 1, memory_order_relaxed);
        if (c >= pool.nchunks) {
            return;
        }
        size_t begin = c * pool.chunk;
        size_t end = begin + pool.chunk < pool.n ? begin + pool.chunk : pool.n;
        pool.fn(pool.ctx, begin, end);
    }
}

static void *worker_main(void *arg)
{
    (void)arg;
    unsigned long seen = 0;
    for (;;) {
        if (!spin_until(new_job_or_stop, seen)) {
            pthread_mutex_lock(&pool.mu);   /* the generation moves under mu: no lost wake-up */
            while (!new_job_or_stop(seen)) {
                pthread_cond_wait(&pool.wake, &pool.mu);
            }
            pthread_mutex_unlock(&pool.mu);
        }
        unsigned long g = atomic_load_explicit(&pool.generation, memory_order_acquire);
        if (g == seen) {                        /* stop, and no job left to join */
            break;
        }
        seen = g;
        run_chunks();
        if (atomic_fetch_sub_explicit(&pool.busy, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&pool.mu);       /* the submitter may be parked */
            pthread_cond_signal(&pool.done);
            pthread_mutex_unlock(&pool.mu);
        }
    }
    return NULL;
}

static void start_workers(void)
{
    int want = hg_pool_size() - 1;
    pthread_mutex_lock(&pool.mu);
    for (int i = 0; i < want && !atomic_load(&pool.stop); i++) {
        if (pthread_create(&pool.threads[pool.nworkers], NULL, worker_main, NULL) != 0) {
            break;                                /* run with the workers we have */
        }
        pool.nworkers++;
    }
    pthread_mutex_unlock(&pool.mu);
}

void hg_parallel_for(size_t n, size_t min_parallel, size_t align, hg_range_fn fn, void *ctx)
{
    if (n == 0) {
        return;
    }
    int threads = hg_pool_size();
    if (n < min_parallel || threads < 2) {
        fn(ctx, 0, n);
        return;
    }
    pthread_once(&start_once, start_workers);
    /* About four chunks per thread (some slack for a thread that gets descheduled), each a
     * multiple of `align` elements so every chunk starts on the same vector/cache-line phase. */
    if (align == 0) {
        align = 1;
    }
    size_t chunk = n / ((size_t)threads * 4u) + 1u;
    chunk = (chunk + align - 1) / align * align;
    pthread_mutex_lock(&pool.submit);
    pthread_mutex_lock(&pool.mu);
    if (atomic_load(&pool.stop) || pool.nworkers == 0) {
        pthread_mutex_unlock(&pool.mu);
        pthread_mutex_unlock(&pool.submit);
        fn(ctx, 0, n);
        return;
    }
    pool.fn = fn;
    pool.ctx = ctx;
    pool.n = n;
    pool.chunk = chunk;
    pool.nchunks = (n + chunk - 1) / chunk;
    atomic_store_explicit(&pool.next, 0, memory_order_relaxed);
    atomic_store_explicit(&pool.busy, pool.nworkers, memory_order_relaxed);
    atomic_fetch_add_explicit(&pool.generation, 1, memory_order_release);   /* publishes the job */
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.mu);

    run_chunks();

    if (!spin_until(job_finished, 0)) {
        pthread_mutex_lock(&pool.mu);
        while (!job_finished(0)) {
            pthread_cond_wait(&pool.done, &pool.mu);
        }
        pthread_mutex_unlock(&pool.mu);
    }
    pthread_mutex_lock(&pool.mu);
    pool.fn = NULL;
    pool.ctx = NULL;
    pthread_mutex_unlock(&pool.mu);
    pthread_mutex_unlock(&pool.submit);
}

/* At unload: wake the parked workers, let them finish a job in flight, join them. */
__attribute__((destructor)) static void pool_shutdown(void)
{
    pthread_mutex_lock(&pool.mu);
    atomic_store(&pool.stop, 1);
    int n = pool.nworkers;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.mu);
    for (int i = 0; i < n; i++) {
        pthread_join(pool.threads[i], NULL);
    }
    pthread_mutex_lock(&pool.mu);
    pool.nworkers = 0;
    pthread_mutex_unlock(&pool.mu);
}
