/*
 * libopapi's process-wide worker pool for large element-wise jobs.  Threads start on
 * the first job big enough to need them.  Between jobs a worker polls for a new one for
 * a short while (PYACL_HARDGRAD_SPIN_US, as the stream workers; 0 turns it off) and then
 * parks on a condition variable.  The caller takes part in every job, so a pool of N
 * threads has N - 1 workers, and it never waits for a worker that has not joined: a worker
 * joins a job only while the job is open, the caller closes it once no chunk is left and
 * then waits only for the workers inside it.  A job's chunks are dealt out as one contiguous
 * segment per participant (see run_chunks), so a participant runs the same part of each call
 * of the same size and finds it in its own cache.  A parked, descheduled or late worker therefore
 * costs the caller nothing beyond the wake-up call; at worst the caller runs every chunk
 * itself, as on one thread.
 *
 * Whether a job is split at all is decided from its estimated one-thread time (the caller's
 * measured cost per element times the elements; for a job whose data exceeds the level-1
 * cache, plus its bytes times the memory cost per byte learnt from such jobs, see
 * hg_pool_job_ns) against the measured hand-off: how long
 * after a job is published the first worker joins it (a moving average over split jobs; a
 * job no worker joined counts the whole job time).  A job is split when its estimate reaches
 * HG_POOL_SPLIT_FACTOR hand-offs, at least HG_POOL_SPLIT_FLOOR_NS and at most
 * HG_POOL_SPLIT_CEIL_NS (beyond it the caller's cost of a split nobody joins, one wake-up
 * call, is about 1% of the job, so long jobs always split); one in
 * HG_POOL_PROBE_EVERY of the jobs above the floor that the estimate alone keeps on one thread
 * is split to take a new sample (PYACL_HARDGRAD_SPLIT_NS replaces this rule by a fixed threshold; 0 splits every job of
 * two chunks or more).  One job runs at a time; a second submitter waits for its turn.  At
 * library unload the workers are woken, told to stop and joined.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

#include "opapi_common.h"

#define HG_POOL_MAX_THREADS 64
#define HG_POOL_SPIN_DEFAULT_US 50u
#define HG_POOL_SPIN_MAX_US 100000u
#define HG_POOL_SPLIT_FLOOR_NS 8000.0
#define HG_POOL_SPLIT_FACTOR 4.0
#define HG_POOL_SPLIT_CEIL_NS 25000.0      /* jobs this long always split: a split costs a few us, and the per-element cost measured in cache understates a large call */
#define HG_POOL_HANDOFF_START_NS 5000.0     /* the estimate before any job was split */
#define HG_POOL_HANDOFF_MAX_NS 1000000.0
#define HG_POOL_SPLIT_MAX_NS 1e12
#define HG_POOL_PROBE_EVERY 32u
/* The memory cost is learnt per size class (bytes over the level-1 data cache, in powers of 2)
 * from one-thread jobs beyond that cache whose cache-resident estimate is at least
 * HG_POOL_LEARN_MIN_NS (the two clock reads are then noise): the class keeps the lowest sample
 * (page faults of new memory and a descheduled thread only ever add time).  One in
 * HG_POOL_PROBE_EVERY of the jobs that only the memory cost splits runs on one thread to take
 * a new sample, so that a first sample inflated that way comes down. */
#define HG_POOL_LEARN_MIN_NS 1000.0
#define HG_POOL_L1_FALLBACK_BYTES ((uint64_t)32 << 10)

/* pool.ticket: joined workers in the low bits, the closed flag, the job's generation above. */
#define TICKET_COUNT_MASK 0xffffull
#define TICKET_CLOSED (1ull << 16)
#define TICKET_SHIFT 17

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
    atomic_ullong ticket;             /* the current job's joined count, closed flag, generation */
    atomic_int stop;
    int parked;                       /* workers waiting on `wake` (under mu) */
    atomic_ullong join_ns;            /* first join of the current job after its publication, 0: none */
    uint64_t published_ns;
    _Atomic double handoff_ns;        /* moving average of the first join's delay */
    /* the current job: its chunks in one contiguous segment per participant (the caller's first,
     * then one per worker by its index), chunks [lo, hi) packed as lo | hi << 32 */
    hg_range_fn fn;
    void *ctx;
    size_t n, chunk, nchunks;
    int nseg;
    atomic_ullong seg[HG_POOL_MAX_THREADS];
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
static double split_fixed_ns = -1.0;  /* PYACL_HARDGRAD_SPLIT_NS, -1 when not set */
static atomic_uint skipped;           /* jobs kept on one thread by the hand-off estimate */
static uint64_t l1_cache;             /* CPU 0's level-1 data cache (read_size) */
static _Atomic double mem_ns_per_byte[HG_POOL_MEM_CLASSES]; /* learnt, per size class; 0: none yet */
static atomic_uint memory_split;      /* jobs split only because of the memory cost */

uint64_t hg_cpu0_cache_bytes(int level)
{
    uint64_t best = 0;
    for (int k = 0; k < 8; k++) {
        char path[80], text[32];
        if (level > 0) {
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", k);
            FILE *f = fopen(path, "r");
            if (f == NULL) {
                continue;
            }
            int lv = 0;
            int got = fscanf(f, "%d", &lv);
            fclose(f);
            if (got != 1 || lv != level) {
                continue;
            }
        }
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", k);
        FILE *f = fopen(path, "r");
        if (f != NULL) {
            char type[16] = "";
            int got = fscanf(f, "%15s", type);
            fclose(f);
            if (got == 1 && strcmp(type, "Instruction") == 0) {
                continue;
            }
        }
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", k);
        f = fopen(path, "r");
        if (f == NULL) {
            continue;
        }
        size_t got = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[got] = '\0';
        char *end = NULL;
        unsigned long long v = strtoull(text, &end, 10);
        if (end == text) {
            continue;
        }
        uint64_t scale = *end == 'K' ? (1u << 10) : *end == 'M' ? (1u << 20) : *end == 'G' ? (1u << 30) : 1u;
        if (v > 0 && v <= (1ull << 50) / scale && (uint64_t)v * scale > best) {
            best = (uint64_t)v * scale;
        }
    }
    return best;
}

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

    env = getenv("PYACL_HARDGRAD_SPLIT_NS");
    if (env != NULL && *env != '\0') {
        char *end = NULL;
        double v = strtod(env, &end);
        if (end != env && *end == '\0' && v >= 0.0 && v <= HG_POOL_SPLIT_MAX_NS) {
            split_fixed_ns = v;
        } else {
            fprintf(stderr, "pyacl_hardgrad: PYACL_HARDGRAD_SPLIT_NS=\"%s\" is not a number of ns in [0, 1e12]; "
                    "using the measured hand-off\n", env);
        }
    }
    atomic_store(&pool.handoff_ns, HG_POOL_HANDOFF_START_NS);
    l1_cache = hg_cpu0_cache_bytes(1);
    if (l1_cache == 0) {
        l1_cache = HG_POOL_L1_FALLBACK_BYTES;
    }
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
    return (atomic_load_explicit(&pool.ticket, memory_order_acquire) & TICKET_COUNT_MASK) == 0;
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

double hg_pool_handoff_ns(void)
{
    pthread_once(&size_once, read_size);
    return atomic_load_explicit(&pool.handoff_ns, memory_order_relaxed);
}

double hg_pool_split_ns(void)
{
    pthread_once(&size_once, read_size);
    if (pool_size < 2) {
        return HUGE_VAL;
    }
    if (split_fixed_ns >= 0.0) {
        return split_fixed_ns;
    }
    double t = HG_POOL_SPLIT_FACTOR * atomic_load_explicit(&pool.handoff_ns, memory_order_relaxed);
    t = t < HG_POOL_SPLIT_CEIL_NS ? t : HG_POOL_SPLIT_CEIL_NS;
    return t > HG_POOL_SPLIT_FLOOR_NS ? t : HG_POOL_SPLIT_FLOOR_NS;
}

uint64_t hg_pool_l1_bytes(void)
{
    pthread_once(&size_once, read_size);
    return l1_cache;
}

/* The size class of a job of `bytes` beyond the level-1 cache: floor(log2(floor(bytes / l1))). */
static int memory_class(uint64_t bytes)
{
    int c = 0;
    for (uint64_t b = bytes / l1_cache; b > 1 && c < HG_POOL_MEM_CLASSES - 1; b >>= 1) {
        c++;
    }
    return c;
}

double hg_pool_memory_ns_per_byte(int size_class)
{
    if (size_class < 0 || size_class >= HG_POOL_MEM_CLASSES) {
        return 0.0;
    }
    return atomic_load_explicit(&mem_ns_per_byte[size_class], memory_order_relaxed);
}

double hg_pool_job_ns(double est_ns, uint64_t bytes)
{
    pthread_once(&size_once, read_size);
    if (bytes > l1_cache) {
        est_ns += (double)bytes * atomic_load_explicit(&mem_ns_per_byte[memory_class(bytes)], memory_order_relaxed);
    }
    return est_ns;
}

/* A one-thread job of `bytes` took `took_ns` against a cache-resident estimate of est_ns. */
static void learn_memory_cost(double took_ns, double est_ns, uint64_t bytes)
{
    double sample = (took_ns > est_ns ? took_ns - est_ns : 0.0) / (double)bytes;
    _Atomic double *m = &mem_ns_per_byte[memory_class(bytes)];
    double old = atomic_load_explicit(m, memory_order_relaxed);
    while ((old == 0.0 || sample < old) &&
           !atomic_compare_exchange_weak_explicit(m, &old, sample > 0.0 ? sample : 1e-9, memory_order_relaxed,
                                                  memory_order_relaxed)) {
    }
}

int64_t hg_split_min_elements(double ns_per_elem, double bytes_per_elem)
{
    double t = hg_pool_split_ns();
    if (t == HUGE_VAL) {
        return INT64_MAX;
    }
    if (!(ns_per_elem > 0.0)) {
        return 0;
    }
    /* The estimate is ns_per_elem per element, plus, for sizes whose bytes exceed the level-1
     * cache, the bytes times their size class's memory cost: the smallest n it reaches t at
     * (within a class the estimate grows with n; the classes are looked at in order). */
    double n = t / ns_per_elem;
    double p = (double)hg_pool_l1_bytes();
    for (int c = 0; c < HG_POOL_MEM_CLASSES && bytes_per_elem > 0.0; c++) {
        double m = hg_pool_memory_ns_per_byte(c);
        double first = floor(p * (double)(1ull << c) / bytes_per_elem) + 1.0;   /* bytes > p * 2^c */
        if (first > n) {
            break;                              /* the compute estimate reaches t before this class */
        }
        if (m > 0.0) {
            double with = t / (ns_per_elem + bytes_per_elem * m);
            double last = c == HG_POOL_MEM_CLASSES - 1 ? HUGE_VAL : floor(p * (double)(2ull << c) / bytes_per_elem);
            if (with <= last) {
                n = with > first ? with : first - 1.0;
                break;
            }
        }
    }
    return n >= 9.0e18 ? INT64_MAX : (int64_t)n + 1;
}

/* Claims a chunk of segment s: its owner from the front, the others from the back (so the
 * owner's share stays its own when every participant keeps up).  0 when none is left. */
static int take_chunk(int s, int own, size_t *chunk)
{
    unsigned long long v = atomic_load_explicit(&pool.seg[s], memory_order_relaxed);
    for (;;) {
        unsigned long long lo = v & 0xffffffffull, hi = v >> 32;
        if (lo >= hi) {
            return 0;
        }
        unsigned long long nv = own ? v + 1 : (hi - 1) << 32 | lo;
        if (atomic_compare_exchange_weak_explicit(&pool.seg[s], &v, nv, memory_order_relaxed, memory_order_relaxed)) {
            *chunk = (size_t)(own ? lo : hi - 1);
            return 1;
        }
    }
}

/* Takes chunks until none is left: participant `self`'s own segment first, then the others'.
 * Each participant thus gets the same part of every job of the same size (what it wrote is
 * still in its own cache at the next call), and a late or absent one's part is done by the
 * rest. */
static void run_chunks(int self)
{
    int nseg = pool.nseg;
    for (int k = 0; k < nseg; k++) {
        int s = (self + k) % nseg;
        size_t c;
        while (take_chunk(s, k == 0, &c)) {
            size_t begin = c * pool.chunk;
            size_t end = begin + pool.chunk < pool.n ? begin + pool.chunk : pool.n;
            pool.fn(pool.ctx, begin, end);
        }
    }
}

/* Enters job g if it is still open; 1 when inside (then the job's fields stay valid until
 * this worker leaves). */
static int join_job(unsigned long g)
{
    unsigned long long t = atomic_load_explicit(&pool.ticket, memory_order_acquire);
    for (;;) {
        if ((t >> TICKET_SHIFT) != ((unsigned long long)g & (~0ull >> TICKET_SHIFT)) || (t & TICKET_CLOSED)) {
            return 0;
        }
        if (atomic_compare_exchange_weak_explicit(&pool.ticket, &t, t + 1, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            return 1;
        }
    }
}

static void *worker_main(void *arg)
{
    int self = (int)(intptr_t)arg;           /* the worker's segment */
    unsigned long seen = 0;
    for (;;) {
        if (!spin_until(new_job_or_stop, seen)) {
            pthread_mutex_lock(&pool.mu);   /* the generation moves under mu: no lost wake-up */
            while (!new_job_or_stop(seen)) {
                pool.parked++;
                pthread_cond_wait(&pool.wake, &pool.mu);
                pool.parked--;
            }
            pthread_mutex_unlock(&pool.mu);
        }
        unsigned long g = atomic_load_explicit(&pool.generation, memory_order_acquire);
        if (g == seen) {                        /* stop, and no job left to join */
            break;
        }
        seen = g;
        if (!join_job(g)) {
            continue;                           /* the caller already finished it */
        }
        uint64_t t = now_ns() - pool.published_ns;
        unsigned long long none = 0;
        atomic_compare_exchange_strong_explicit(&pool.join_ns, &none, t ? t : 1, memory_order_relaxed,
                                                memory_order_relaxed);
        run_chunks(self < pool.nseg ? self : 0);
        unsigned long long left = atomic_fetch_sub_explicit(&pool.ticket, 1, memory_order_acq_rel);
        if ((left & TICKET_CLOSED) && (left & TICKET_COUNT_MASK) == 1) {
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
        if (pthread_create(&pool.threads[pool.nworkers], NULL, worker_main,
                           (void *)(intptr_t)(pool.nworkers + 1)) != 0) {
            break;                                /* run with the workers we have */
        }
        pool.nworkers++;
    }
    pthread_mutex_unlock(&pool.mu);
}

void hg_parallel_for(size_t n, double est_ns, uint64_t bytes, size_t align, hg_range_fn fn, void *ctx)
{
    if (n == 0) {
        return;
    }
    int threads = hg_pool_size();
    if (align == 0) {
        align = 1;
    }
    double cache_est = est_ns;
    est_ns = hg_pool_job_ns(cache_est, bytes);
    double split_ns = hg_pool_split_ns();
    int learn = threads >= 2 && n >= 2 * align && bytes > l1_cache && cache_est >= HG_POOL_LEARN_MIN_NS &&
                split_fixed_ns < 0.0;
    if (learn && est_ns >= split_ns && !(cache_est >= split_ns) &&
        atomic_fetch_add_explicit(&memory_split, 1, memory_order_relaxed) % HG_POOL_PROBE_EVERY ==
            HG_POOL_PROBE_EVERY - 1) {
        est_ns = cache_est;               /* split only by the memory cost: a new sample this time */
    }
    if (threads < 2 || n < 2 * align || !(est_ns >= split_ns)) {
        /* Every HG_POOL_PROBE_EVERY-th job that only the hand-off estimate keeps on one thread
         * is split anyway, so that an estimate raised by a busy phase can come down again. */
        int probe = threads >= 2 && n >= 2 * align && split_fixed_ns < 0.0 && est_ns >= HG_POOL_SPLIT_FLOOR_NS &&
                    atomic_fetch_add_explicit(&skipped, 1, memory_order_relaxed) % HG_POOL_PROBE_EVERY ==
                        HG_POOL_PROBE_EVERY - 1;
        if (!probe) {
            if (learn) {
                uint64_t t0 = now_ns();
                fn(ctx, 0, n);
                learn_memory_cost((double)(now_ns() - t0), cache_est, bytes);
            } else {
                fn(ctx, 0, n);
            }
            return;
        }
    }
    pthread_once(&start_once, start_workers);
    /* About four chunks per thread (some slack for a thread that gets descheduled), each a
     * multiple of `align` elements so every chunk starts on the same vector/cache-line phase. */
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
    pool.nseg = pool.nworkers + 1;
    for (int s = 0; s < pool.nseg; s++) {
        unsigned long long lo = (unsigned long long)(pool.nchunks * (size_t)s / (size_t)pool.nseg);
        unsigned long long hi = (unsigned long long)(pool.nchunks * (size_t)(s + 1) / (size_t)pool.nseg);
        atomic_store_explicit(&pool.seg[s], hi << 32 | lo, memory_order_relaxed);
    }
    atomic_store_explicit(&pool.join_ns, 0, memory_order_relaxed);
    unsigned long g = atomic_load_explicit(&pool.generation, memory_order_relaxed) + 1;
    atomic_store_explicit(&pool.ticket, ((unsigned long long)g & (~0ull >> TICKET_SHIFT)) << TICKET_SHIFT,
                          memory_order_relaxed);
    pool.published_ns = now_ns();
    atomic_store_explicit(&pool.generation, g, memory_order_release);   /* publishes the job */
    if (pool.parked > 0) {
        pthread_cond_broadcast(&pool.wake);
    }
    pthread_mutex_unlock(&pool.mu);

    run_chunks(0);

    /* No chunk is left: close the job to late workers, wait for those inside. */
    unsigned long long t = atomic_fetch_or_explicit(&pool.ticket, TICKET_CLOSED, memory_order_acq_rel);
    uint64_t elapsed = now_ns() - pool.published_ns;
    if ((t & TICKET_COUNT_MASK) != 0 && !spin_until(job_finished, 0)) {
        pthread_mutex_lock(&pool.mu);
        while (!job_finished(0)) {
            pthread_cond_wait(&pool.done, &pool.mu);
        }
        pthread_mutex_unlock(&pool.mu);
    }
    /* The hand-off sample: the first join's delay, or (nobody joined in time) at least the job. */
    uint64_t joined = atomic_load_explicit(&pool.join_ns, memory_order_relaxed);
    double sample = joined != 0 ? (double)joined : (double)elapsed;
    if (sample > HG_POOL_HANDOFF_MAX_NS) {
        sample = HG_POOL_HANDOFF_MAX_NS;
    }
    double h = atomic_load_explicit(&pool.handoff_ns, memory_order_relaxed);
    atomic_store_explicit(&pool.handoff_ns, h + (sample - h) / 8.0, memory_order_relaxed);
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
