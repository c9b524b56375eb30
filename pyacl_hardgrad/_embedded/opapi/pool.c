/*
 * libopapi's process-wide worker pool for large element-wise jobs.  Threads start on
 * the first job big enough to need them and park on a condition variable between jobs
 * (no spinning).  The caller takes part in every job, so a pool of N threads has N - 1
 * workers.  One job runs at a time; a second submitter waits for its turn.  At library
 * unload the workers are woken, told to stop and joined.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "opapi_common.h"

#define HG_POOL_MAX_THREADS 64

typedef struct hg_pool {
    pthread_mutex_t mu;
    pthread_cond_t wake;              /* workers: a new job or stop */
    pthread_cond_t done;              /* submitter: the last worker left the job */
    pthread_mutex_t submit;           /* one job at a time */
    int nworkers;                     /* started workers */
    pthread_t threads[HG_POOL_MAX_THREADS];
    unsigned long generation;         /* bumped per job */
    int busy;                         /* workers still inside the current job */
    int stop;
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

static void read_size(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    const char *env = getenv("PYACL_HARDGRAD_THREADS");
    if (env != NULL && *env != '\0') {
        char *end = NULL;
        long v = strtol(env, &end, 10);
        if (end != env && *end == '\0' && v >= 1) {
            n = v;
        }
    }
    if (n < 1) {
        n = 1;
    }
    if (n > HG_POOL_MAX_THREADS) {
        n = HG_POOL_MAX_THREADS;
    }
    pool_size = (int)n;
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
    pthread_mutex_lock(&pool.mu);
    for (;;) {
        while (pool.generation == seen && !pool.stop) {
            pthread_cond_wait(&pool.wake, &pool.mu);
        }
        if (pool.generation == seen) {          /* stop, and no job left to join */
            break;
        }
        seen = pool.generation;
        pthread_mutex_unlock(&pool.mu);
        run_chunks();
        pthread_mutex_lock(&pool.mu);
        if (--pool.busy == 0) {
            pthread_cond_signal(&pool.done);
        }
    }
    pthread_mutex_unlock(&pool.mu);
    return NULL;
}

static void start_workers(void)
{
    int want = hg_pool_size() - 1;
    pthread_mutex_lock(&pool.mu);
    for (int i = 0; i < want && !pool.stop; i++) {
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
    if (pool.stop || pool.nworkers == 0) {
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
    pool.busy = pool.nworkers;
    pool.generation++;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.mu);

    run_chunks();

    pthread_mutex_lock(&pool.mu);
    while (pool.busy > 0) {
        pthread_cond_wait(&pool.done, &pool.mu);
    }
    pool.fn = NULL;
    pool.ctx = NULL;
    pthread_mutex_unlock(&pool.mu);
    pthread_mutex_unlock(&pool.submit);
}

/* At unload: wake the parked workers, let them finish a job in flight, join them. */
__attribute__((destructor)) static void pool_shutdown(void)
{
    pthread_mutex_lock(&pool.mu);
    pool.stop = 1;
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
