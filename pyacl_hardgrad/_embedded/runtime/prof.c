/*
 * The profiler's recorder: what the embedded runtime does between aclprofStart and
 * aclprofStop, written as a Chrome Trace Event Format timeline (JSON array form) in
 * msprof's output layout:
 *
 *   <dir>/PROF_<nnnnnn>_<YYYYmmddHHMMSSmmm>_<16 letters>/
 *       host/info.json                 the process, its threads
 *       device_<id>/info.json.<id>     per device: SoC, streams, tasks recorded
 *       mindstudio_profiler_output/msprof_<YYYYmmddHHMMSS>.json   the timeline
 *
 * Timeline: pid = device id (process "device N"), tid = stream id (thread "stream N"); the
 * host is pid HG_PROF_HOST_PID (process "host"), tid = the OS thread id.  Per task an X
 * event on its stream (name: the operator or the call that queued it; args: task type, ids,
 * shapes, dtypes, bytes); per launch an X event on the launching thread and a flow (s -> f)
 * from it to the task; per event wait a flow from the record it waited for; C events for
 * the device memory in use; the msproftx marks as i (instant), B/E (push/pop) and b/e
 * (ranges) events on the host.
 *
 * Why here and not in libmsprofiler: the hooks sit in libascendcl's hot paths (stream
 * workers, enqueue, events, memory) and in libnnopbase's launch; keeping the recorder in
 * the library that owns those paths lets each hook be a direct call behind one relaxed
 * load (HG_PROFILING()), with no function pointer to register, check and keep alive across
 * a dlclose of libmsprofiler.  libmsprofiler only checks arguments and drives the session
 * through hg_prof.h.
 *
 * Locking: one mutex (g.mu), innermost; nothing is called with it held that takes another
 * lock.  Records are kept in memory until aclprofStop writes them.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hg_prof.h"
#include "prof.h"

HG_INTERNAL atomic_int hg_prof_on;

/* The host's process in the timeline (device ids are below HG_MAX_DEVICES). */
#define HG_PROF_HOST_PID 1000000
#define HG_PROF_PATH_CAP 4096
#define NBUCKETS 4096u

typedef struct prec {
    char ph;
    int pid;
    long tid;
    uint64_t ts, dur; /* ns */
    uint64_t id;      /* flows, async ranges */
    char *name;
    char *args;       /* JSON object members, or NULL */
    const char *cat;
} prec;

/* A launched task waiting to run: keyed by (stream id, seq). */
typedef struct pend {
    struct pend *next;
    int32_t sid;
    uint64_t seq;
    long tid;          /* launching thread */
    uint64_t t0;       /* its launch slice's start */
    char *name, *args;
    bool marker;       /* an aclprofMarkEx / step marker, not a kernel */
} pend;

/* A record of an event that ran: keyed by (event, record number). */
typedef struct erec {
    struct erec *next;
    const void *ev;
    uint64_t rec;
    int dev;
    int32_t sid;
    uint64_t ts;
} erec;

typedef struct range {
    uint32_t id;
    char *name;
} range;

static struct {
    pthread_mutex_t mu;
    bool inited;
    bool running;
    unsigned what;
    uint64_t dev_mask;
    char root[HG_PROF_PATH_CAP];
    char dir[HG_PROF_PATH_CAP];   /* the PROF_ folder, made at the first start */
    char json[HG_PROF_PATH_CAP];  /* the timeline file */
    char last[HG_PROF_PATH_CAP];  /* what the last stop wrote */
    prec *recs;
    size_t nrecs, cap;
    pend *pending[NBUCKETS];
    erec *records[NBUCKETS];
    range *ranges;
    size_t nranges, rcap;
    uint64_t next_flow;
    uint32_t next_range;
    unsigned seq_dirs;
} g = {.mu = PTHREAD_MUTEX_INITIALIZER};

static long this_tid(void)
{
    return (long)syscall(SYS_gettid);
}

static unsigned bucket(uint64_t a, uint64_t b)
{
    uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ (b + 0x632BE59BD9B4E019ull + (a << 6));
    h ^= h >> 29;
    return (unsigned)(h % NBUCKETS);
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* A new string from a printf format (NULL when out of memory). */
static char *fmt_new(const char *fmt, ...) HG_PRINTF(1, 2);
static char *fmt_new(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1u);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1u, fmt, ap);
    va_end(ap);
    return s;
}

/* Append a record (g.mu held); takes ownership of name and args.  Out of memory: dropped. */
static void add(char ph, int pid, long tid, uint64_t ts, uint64_t dur, uint64_t id, char *name, char *args,
                const char *cat)
{
    if (g.nrecs == g.cap) {
        size_t cap = g.cap ? g.cap * 2u : 1024u;
        prec *v = realloc(g.recs, cap * sizeof *v);
        if (!v) {
            free(name);
            free(args);
            return;
        }
        g.recs = v;
        g.cap = cap;
    }
    g.recs[g.nrecs++] = (prec){ph, pid, tid, ts, dur, id, name, args, cat};
}

static bool dev_selected(int dev)
{
    return dev >= 0 && dev < 64 && (g.dev_mask >> dev) & 1u;
}

static bool recording(unsigned what)
{
    return g.running && (g.what & what);
}

static void free_tables(void)
{
    for (unsigned b = 0; b < NBUCKETS; ++b) {
        for (pend *p = g.pending[b], *n; p; p = n) {
            n = p->next;
            free(p->name);
            free(p->args);
            free(p);
        }
        g.pending[b] = NULL;
        for (erec *e = g.records[b], *n; e; e = n) {
            n = e->next;
            free(e);
        }
        g.records[b] = NULL;
    }
    for (size_t i = 0; i < g.nranges; ++i)
        free(g.ranges[i].name);
    g.nranges = 0;
}

static void free_recs(void)
{
    for (size_t i = 0; i < g.nrecs; ++i) {
        free(g.recs[i].name);
        free(g.recs[i].args);
    }
    free(g.recs);
    g.recs = NULL;
    g.nrecs = g.cap = 0;
}

/* ------------------------------------------------------------------ the pending description */

static _Thread_local char *tls_name;
static _Thread_local char *tls_args;
static _Thread_local bool tls_marker;

HG_INTERNAL void hg_prof_pending(const char *name, const char *args)
{
    free(tls_name);
    free(tls_args);
    tls_name = dup_or_null(name);
    tls_args = dup_or_null(args);
}

/* ------------------------------------------------------------------ hooks */

static const char *task_type(hg_task_kind k)
{
    switch (k) {
    case HG_TASK_USER: return "KERNEL";
    case HG_TASK_MEMCPY: return "MEMCPY_ASYNC";
    case HG_TASK_MEMSET: return "MEMSET_ASYNC";
    case HG_TASK_RECORD: return "EVENT_RECORD";
    case HG_TASK_WAIT: return "EVENT_WAIT";
    case HG_TASK_RESET_EVENT: return "EVENT_RESET";
    case HG_TASK_VALUE_WRITE: return "VALUE_WRITE";
    case HG_TASK_VALUE_WAIT: return "VALUE_WAIT";
    }
    return "TASK";
}

void hg_prof_enqueue(int dev, int32_t sid, const hg_task *t, const char *func, uint64_t t0)
{
    uint64_t now = hg_now_ns();
    if (t0 == 0 || t0 > now)
        t0 = now; /* profiling began during this enqueue */
    long tid = this_tid();
    char *name = tls_name, *args = tls_args;
    tls_name = tls_args = NULL;   /* one description, one task */
    pthread_mutex_lock(&g.mu);
    if (!recording(HG_PROF_TASKS) || !dev_selected(dev)) {
        pthread_mutex_unlock(&g.mu);
        free(name);
        free(args);
        return;
    }
    add('X', HG_PROF_HOST_PID, tid, t0, now - t0, 0, strdup(func ? func : "launch"),
        fmt_new("\"Device Id\":%d,\"Stream Id\":%d,\"Task Id\":%" PRIu64 ",\"Task Type\":\"%s\"", dev, (int)sid,
                t->seq, task_type(t->kind)),
        "launch");
    pend *p = malloc(sizeof *p);
    if (p) {
        p->sid = sid;
        p->seq = t->seq;
        p->tid = tid;
        p->t0 = t0;
        p->name = name ? name : dup_or_null(func);
        p->args = args;
        p->marker = tls_marker;
        unsigned b = bucket((uint64_t)(uint32_t)sid, t->seq);
        p->next = g.pending[b];
        g.pending[b] = p;
    } else {
        free(name);
        free(args);
    }
    pthread_mutex_unlock(&g.mu);
}

static pend *take_pending(int32_t sid, uint64_t seq)
{
    pend **pp = &g.pending[bucket((uint64_t)(uint32_t)sid, seq)];
    for (; *pp; pp = &(*pp)->next) {
        if ((*pp)->sid == sid && (*pp)->seq == seq) {
            pend *p = *pp;
            *pp = p->next;
            return p;
        }
    }
    return NULL;
}

static erec *find_record(const void *ev, uint64_t rec)
{
    for (erec *e = g.records[bucket((uint64_t)(uintptr_t)ev, rec)]; e; e = e->next)
        if (e->ev == ev && e->rec == rec)
            return e;
    return NULL;
}

void hg_prof_ran(int dev, int32_t sid, const hg_task *t, uint64_t t0, uint64_t t1)
{
    pthread_mutex_lock(&g.mu);
    pend *p = take_pending(sid, t->seq);
    if (!recording(HG_PROF_TASKS) || !dev_selected(dev)) {
        pthread_mutex_unlock(&g.mu);
        if (p) {
            free(p->name);
            free(p->args);
            free(p);
        }
        return;
    }
    char extra[96] = "";
    if (t->kind == HG_TASK_MEMCPY || t->kind == HG_TASK_MEMSET)
        snprintf(extra, sizeof extra, ",\"size\":%zu", t->n);
    const char *more = p && p->args ? p->args : NULL;
    const char *type = p && p->marker ? "MARKER" : task_type(t->kind);
    char *args = fmt_new("\"Task Type\":\"%s\",\"Stream Id\":%d,\"Task Id\":%" PRIu64 "%s%s%s", type,
                         (int)sid, t->seq, extra, more ? "," : "", more ? more : "");
    char *name = p && p->name ? p->name : strdup(task_type(t->kind));
    if (p)
        p->name = NULL;
    add('X', dev, sid, t0, t1 - t0, 0, name, args, "task");
    if (p) {
        /* launch -> execution */
        uint64_t id = ++g.next_flow;
        add('s', HG_PROF_HOST_PID, p->tid, p->t0, 0, id, strdup("launch"), NULL, "flow");
        add('f', dev, sid, t0, 0, id, strdup("launch"), NULL, "flow");
        free(p->args);
        free(p);
    }
    erec *known = t->kind == HG_TASK_RECORD ? find_record(t->ev, t->rec) : NULL;
    if (known) {
        *known = (erec){known->next, t->ev, t->rec, dev, sid, t0};   /* a reused address */
    } else if (t->kind == HG_TASK_RECORD) {
        erec *e = malloc(sizeof *e);
        if (e) {
            *e = (erec){NULL, t->ev, t->rec, dev, sid, t0};
            unsigned b = bucket((uint64_t)(uintptr_t)t->ev, t->rec);
            e->next = g.records[b];
            g.records[b] = e;
        }
    } else if (t->kind == HG_TASK_WAIT && t->rec != 0) {
        const erec *e = find_record(t->ev, t->rec);
        if (e) {
            /* record -> the wait it released (the end of the wait's slice) */
            uint64_t id = ++g.next_flow;
            uint64_t at = t1 > t0 ? t1 - 1u : t0;
            add('s', e->dev, e->sid, e->ts, 0, id, strdup("event"), NULL, "flow");
            add('f', dev, sid, at, 0, id, strdup("event"), NULL, "flow");
        }
    }
    pthread_mutex_unlock(&g.mu);
}

void hg_prof_event_gone(const void *ev)
{
    pthread_mutex_lock(&g.mu);
    for (unsigned b = 0; b < NBUCKETS; ++b) {
        for (erec **pp = &g.records[b]; *pp;) {
            if ((*pp)->ev == ev) {
                erec *e = *pp;
                *pp = e->next;
                free(e);
            } else {
                pp = &(*pp)->next;
            }
        }
    }
    pthread_mutex_unlock(&g.mu);
}

static void memory_sample_locked(int dev, size_t used, uint64_t ts)
{
    add('C', dev, 0, ts, 0, 0, strdup("device memory"), fmt_new("\"bytes in use\":%zu", used), "memory");
}

void hg_prof_memory(int dev)
{
    size_t used = hg_mem_used(dev);
    uint64_t now = hg_now_ns();
    pthread_mutex_lock(&g.mu);
    if (recording(HG_PROF_MEMORY) && dev_selected(dev))
        memory_sample_locked(dev, used, now);
    pthread_mutex_unlock(&g.mu);
}

void hg_prof_host_call(const char *func, uint64_t t0, uint64_t t1, const char *args)
{
    long tid = this_tid();
    pthread_mutex_lock(&g.mu);
    if (recording(HG_PROF_TASKS))
        add('X', HG_PROF_HOST_PID, tid, t0, t1 - t0, 0, strdup(func), dup_or_null(args), "api");
    pthread_mutex_unlock(&g.mu);
}

/* ------------------------------------------------------------------ msproftx */

/* A JSON string's contents for s (quotes, backslashes and control characters escaped). */
static char *json_escape(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p)
        n += *p == '"' || *p == '\\' ? 2u : *p < 0x20 ? 6u : 1u;
    char *out = malloc(n + 1u);
    if (!out)
        return NULL;
    char *o = out;
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        if (*p == '"' || *p == '\\') {
            *o++ = '\\';
            *o++ = (char)*p;
        } else if (*p < 0x20) {
            snprintf(o, 7, "\\u%04x", *p);
            o += 6;
        } else {
            *o++ = (char)*p;
        }
    }
    *o = '\0';
    return out;
}

HG_INTERNAL aclError hg_prof_mark(const char *func, const char *msg)
{
    (void)func;
    uint64_t now = hg_now_ns();
    long tid = this_tid();
    pthread_mutex_lock(&g.mu);
    if (recording(HG_PROF_TX))
        add('i', HG_PROF_HOST_PID, tid, now, 0, 0, strdup(msg), NULL, "msproftx");
    pthread_mutex_unlock(&g.mu);
    return ACL_SUCCESS;
}

static void mark_task(void *arg)
{
    (void)arg; /* the task's slice in the timeline is the mark */
}

HG_INTERNAL aclError hg_prof_mark_stream(const char *func, const char *msg, aclrtStream stream)
{
    pthread_mutex_lock(&g.mu);
    bool on = recording(HG_PROF_TX);
    pthread_mutex_unlock(&g.mu);
    if (!on)
        return ACL_SUCCESS;
    hg_prof_mark(func, msg);
    char *esc = json_escape(msg);
    char *args = esc ? fmt_new("\"message\":\"%s\"", esc) : NULL;
    free(esc);
    hg_prof_pending(msg, args);
    free(args);
    tls_marker = true;
    aclError rc = hg_stream_submit(stream, func, mark_task, NULL);
    tls_marker = false;
    hg_prof_pending(NULL, NULL);
    return rc;
}

static _Thread_local int tls_depth;

HG_INTERNAL aclError hg_prof_push(const char *func, const char *msg)
{
    (void)func;
    uint64_t now = hg_now_ns();
    long tid = this_tid();
    pthread_mutex_lock(&g.mu);
    if (recording(HG_PROF_TX)) {
        add('B', HG_PROF_HOST_PID, tid, now, 0, 0, strdup(msg), NULL, "msproftx");
        ++tls_depth;
    }
    pthread_mutex_unlock(&g.mu);
    return ACL_SUCCESS;
}

HG_INTERNAL aclError hg_prof_pop(const char *func)
{
    uint64_t now = hg_now_ns();
    long tid = this_tid();
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&g.mu);
    if (recording(HG_PROF_TX)) {
        if (tls_depth <= 0) {
            hg_set_error(func, "no aclprofPush of this thread is open (a pop needs a push before it)");
            rc = ACL_ERROR_INVALID_PARAM;
        } else {
            --tls_depth;
            add('E', HG_PROF_HOST_PID, tid, now, 0, 0, NULL, NULL, "msproftx");
        }
    }
    pthread_mutex_unlock(&g.mu);
    return rc;
}

HG_INTERNAL aclError hg_prof_range_start(const char *func, const char *msg, uint32_t *id)
{
    uint64_t now = hg_now_ns();
    long tid = this_tid();
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&g.mu);
    uint32_t rid = ++g.next_range;
    if (rid == 0)
        rid = ++g.next_range;
    *id = rid;
    if (recording(HG_PROF_TX)) {
        if (g.nranges == g.rcap) {
            size_t cap = g.rcap ? g.rcap * 2u : 16u;
            range *v = realloc(g.ranges, cap * sizeof *v);
            if (!v) {
                pthread_mutex_unlock(&g.mu);
                hg_set_error(func, "out of host memory");
                return ACL_ERROR_BAD_ALLOC;
            }
            g.ranges = v;
            g.rcap = cap;
        }
        g.ranges[g.nranges++] = (range){rid, strdup(msg)};
        add('b', HG_PROF_HOST_PID, tid, now, 0, rid, strdup(msg), NULL, "msproftx");
    }
    pthread_mutex_unlock(&g.mu);
    return rc;
}

HG_INTERNAL aclError hg_prof_range_stop(const char *func, uint32_t id)
{
    uint64_t now = hg_now_ns();
    long tid = this_tid();
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&g.mu);
    if (recording(HG_PROF_TX)) {
        size_t i = 0;
        while (i < g.nranges && g.ranges[i].id != id)
            ++i;
        if (i == g.nranges) {
            hg_set_error(func, "rangeId (%u) is not an open range (aclprofRangeStart gives the ids; each stops once)",
                         (unsigned)id);
            rc = ACL_ERROR_INVALID_PARAM;
        } else {
            add('e', HG_PROF_HOST_PID, tid, now, 0, id, g.ranges[i].name, NULL, "msproftx");
            g.ranges[i] = g.ranges[--g.nranges];
        }
    }
    pthread_mutex_unlock(&g.mu);
    return rc;
}

/* ------------------------------------------------------------------ session */

/* mkdir -p; false with errno set on failure. */
static bool make_dirs(const char *path)
{
    char buf[HG_PROF_PATH_CAP];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) {
        errno = ENAMETOOLONG;
        return false;
    }
    memcpy(buf, path, n + 1u);
    for (char *p = buf + 1; *p; ++p) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0750) != 0 && errno != EEXIST)
            return false;
        *p = '/';
    }
    if (mkdir(buf, 0750) != 0 && errno != EEXIST)
        return false;
    struct stat st;
    if (stat(buf, &st) != 0)
        return false;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return false;
    }
    return true;
}

HG_INTERNAL aclError hg_prof_init(const char *func, const char *dir)
{
    pthread_mutex_lock(&g.mu);
    aclError rc = ACL_SUCCESS;
    if (g.inited) {
        hg_set_error(func, "the profiler is initialised already (aclprofFinalize first)");
        rc = ACL_ERROR_REPEAT_INITIALIZE;
    } else if (strlen(dir) >= sizeof g.root - 64u) {
        hg_set_error(func, "profilerResultPath is too long (%zu characters)", strlen(dir));
        rc = ACL_ERROR_INVALID_PARAM;
    } else if (!make_dirs(dir) || access(dir, W_OK) != 0) {
        hg_set_error(func, "profilerResultPath \"%s\" cannot be used as a folder: %s", dir, strerror(errno));
        rc = ACL_ERROR_INVALID_PARAM;
    } else {
        char *real = realpath(dir, NULL);
        snprintf(g.root, sizeof g.root, "%s", real ? real : dir);
        free(real);
        g.inited = true;
        g.dir[0] = '\0';
    }
    pthread_mutex_unlock(&g.mu);
    return rc;
}

static void letters(char *out, size_t n)
{
    uint64_t x = hg_now_ns() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)out;
    for (size_t i = 0; i < n; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out[i] = (char)('A' + (int)(x % 26u));
    }
    out[n] = '\0';
}

/* The PROF_ folder and the timeline's name (g.mu held). */
static aclError make_session_dir(const char *func)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    localtime_r(&ts.tv_sec, &tm);
    char stamp[32], rnd[17];
    strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", &tm);
    letters(rnd, 16);
    ++g.seq_dirs;
    int n = snprintf(g.dir, sizeof g.dir, "%s/PROF_%06u_%s%03ld_%s", g.root, g.seq_dirs, stamp,
                     ts.tv_nsec / 1000000L, rnd);
    int m = snprintf(g.json, sizeof g.json, "%s/mindstudio_profiler_output/msprof_%s.json", g.dir, stamp);
    if (n < 0 || (size_t)n >= sizeof g.dir || m < 0 || (size_t)m >= sizeof g.json) {
        g.dir[0] = '\0';
        hg_set_error(func, "the result path under \"%s\" is too long", g.root);
        return ACL_ERROR_INVALID_PARAM;
    }
    char sub[HG_PROF_PATH_CAP + 64];
    snprintf(sub, sizeof sub, "%s/mindstudio_profiler_output", g.dir);
    if (!make_dirs(sub)) {
        hg_set_error(func, "cannot create \"%s\": %s", sub, strerror(errno));
        g.dir[0] = '\0';
        return ACL_ERROR_WRITE_FILE;
    }
    return ACL_SUCCESS;
}

HG_INTERNAL aclError hg_prof_start(const char *func, unsigned what, uint64_t dev_mask)
{
    /* the memory in use when recording starts: read before taking the recorder's lock */
    size_t used[64] = {0};
    if (what & HG_PROF_MEMORY)
        for (int d = 0; d < 64; ++d)
            if ((dev_mask >> d) & 1u)
                used[d] = hg_mem_used(d);
    pthread_mutex_lock(&g.mu);
    aclError rc = ACL_SUCCESS;
    if (!g.inited) {
        hg_set_error(func, "the profiler is not initialised (call aclprofInit first)");
        rc = ACL_ERROR_UNINITIALIZE;
    } else if (g.running) {
        hg_set_error(func, "profiling is running already (aclprofStop first)");
        rc = ACL_ERROR_PROF_ALREADY_RUN;
    } else if (g.dir[0] == '\0') {
        rc = make_session_dir(func);
    }
    if (!rc) {
        g.what = what;
        g.dev_mask = dev_mask;
        g.running = true;
        uint64_t now = hg_now_ns();
        if (what & HG_PROF_MEMORY)
            for (int d = 0; d < 64; ++d)
                if ((dev_mask >> d) & 1u)
                    memory_sample_locked(d, used[d], now);
        atomic_store_explicit(&hg_prof_on, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&g.mu);
    return rc;
}

/* ------------------------------------------------------------------ writing */

static int cmp_int(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* Sorted distinct values of v[0..n) in place; returns the count. */
static size_t uniq(long *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_int);
    size_t k = 0;
    for (size_t i = 0; i < n; ++i)
        if (k == 0 || v[k - 1] != v[i])
            v[k++] = v[i];
    return k;
}

static void write_us(FILE *f, uint64_t ns)
{
    fprintf(f, "%" PRIu64 ".%03u", ns / 1000u, (unsigned)(ns % 1000u));
}

static void write_record(FILE *f, const prec *r)
{
    char *name = r->name ? json_escape(r->name) : NULL;
    fprintf(f, "{\"ph\":\"%c\",\"pid\":%d,\"tid\":%ld,\"ts\":", r->ph, r->pid, r->tid);
    write_us(f, r->ts);
    if (r->ph == 'X') {
        fputs(",\"dur\":", f);
        write_us(f, r->dur);
    }
    if (name)
        fprintf(f, ",\"name\":\"%s\"", name);
    else if (r->ph != 'E')
        fputs(",\"name\":\"\"", f);
    if (r->cat)
        fprintf(f, ",\"cat\":\"%s\"", r->cat);
    switch (r->ph) {
    case 's':
        fprintf(f, ",\"id\":%" PRIu64, r->id);
        break;
    case 'f':
        fprintf(f, ",\"id\":%" PRIu64 ",\"bp\":\"e\"", r->id);
        break;
    case 'b':
    case 'e':
        fprintf(f, ",\"id\":%" PRIu64, r->id);
        break;
    case 'i':
        fputs(",\"s\":\"t\"", f);
        break;
    default:
        break;
    }
    if (r->args)
        fprintf(f, ",\"args\":{%s}", r->args);
    else if (r->ph == 'C')
        fputs(",\"args\":{}", f);
    fputs("}", f);
    free(name);
}

static void write_meta(FILE *f, bool *first, const char *what, int pid, long tid, const char *label)
{
    fputs(*first ? "\n" : ",\n", f);
    *first = false;
    fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%ld,\"ts\":0,\"name\":\"%s\",\"args\":{\"%s\":", pid, tid, what,
            strcmp(what, "process_sort_index") == 0 ? "sort_index" : "name");
    if (strcmp(what, "process_sort_index") == 0)
        fprintf(f, "%s}}", label);
    else
        fprintf(f, "\"%s\"}}", label);
}

typedef struct summary {
    size_t tasks, flows, marks, samples, streams, devices;
} summary;

/* The timeline and the info files (g.mu held); false with errno set when a write failed. */
static bool write_trace(summary *sum)
{
    memset(sum, 0, sizeof *sum);
    FILE *f = fopen(g.json, "w");
    if (!f)
        return false;
    /* the devices, their streams and the host threads seen */
    long *devs = malloc((g.nrecs + 1u) * sizeof *devs);
    long *streams = malloc((g.nrecs + 1u) * sizeof *streams);
    long *threads = malloc((g.nrecs + 1u) * sizeof *threads);
    if (!devs || !streams || !threads) {
        free(devs);
        free(streams);
        free(threads);
        fclose(f);
        errno = ENOMEM;
        return false;
    }
    size_t nd = 0, ns = 0, nt = 0;
    for (size_t i = 0; i < g.nrecs; ++i) {
        const prec *r = &g.recs[i];
        if (r->pid == HG_PROF_HOST_PID) {
            threads[nt++] = r->tid;
        } else {
            devs[nd++] = r->pid;
            if (r->ph != 'C')
                streams[ns++] = (long)r->pid << 32 | (long)(uint32_t)r->tid;
        }
        sum->tasks += r->ph == 'X' && r->pid != HG_PROF_HOST_PID;
        sum->flows += r->ph == 's';
        sum->marks += r->ph == 'i' || r->ph == 'B' || r->ph == 'b';
        sum->samples += r->ph == 'C';
    }
    for (int d = 0; d < 64; ++d)
        if ((g.dev_mask >> d) & 1u)
            devs[nd++] = d;
    nd = uniq(devs, nd);
    ns = uniq(streams, ns);
    nt = uniq(threads, nt);
    sum->streams = ns;
    sum->devices = nd;
    fputs("[", f);
    bool first = true;
    char label[64];
    snprintf(label, sizeof label, "host (pid %ld)", (long)getpid());
    write_meta(f, &first, "process_name", HG_PROF_HOST_PID, 0, label);
    for (size_t i = 0; i < nt; ++i) {
        snprintf(label, sizeof label, "thread %ld", threads[i]);
        write_meta(f, &first, "thread_name", HG_PROF_HOST_PID, threads[i], label);
    }
    for (size_t i = 0; i < nd; ++i) {
        snprintf(label, sizeof label, "device %ld", devs[i]);
        write_meta(f, &first, "process_name", (int)devs[i], 0, label);
        snprintf(label, sizeof label, "%ld", devs[i]);
        write_meta(f, &first, "process_sort_index", (int)devs[i], 0, label);
    }
    for (size_t i = 0; i < ns; ++i) {
        long dev = streams[i] >> 32, sid = (long)(int32_t)(uint32_t)(streams[i] & 0xffffffffL);
        snprintf(label, sizeof label, "stream %ld", sid);
        write_meta(f, &first, "thread_name", (int)dev, sid, label);
    }
    for (size_t i = 0; i < g.nrecs; ++i) {
        fputs(",\n", f);
        write_record(f, &g.recs[i]);
    }
    fputs("\n]\n", f);
    bool ok = fflush(f) == 0 && !ferror(f);
    ok = fclose(f) == 0 && ok;

    /* msprof's raw-data folders: what the trace holds per device and for the host */
    char path[HG_PROF_PATH_CAP + 96];
    for (size_t i = 0; ok && i < nd; ++i) {
        snprintf(path, sizeof path, "%s/device_%ld/data", g.dir, devs[i]);
        if (!make_dirs(path)) {
            ok = false;
            break;
        }
        snprintf(path, sizeof path, "%s/device_%ld/info.json.%ld", g.dir, devs[i], devs[i]);
        FILE *inf = fopen(path, "w");
        if (!inf) {
            ok = false;
            break;
        }
        size_t tasks = 0, nstreams = 0;
        for (size_t k = 0; k < g.nrecs; ++k)
            tasks += g.recs[k].ph == 'X' && g.recs[k].pid == devs[i];
        for (size_t k = 0; k < ns; ++k)
            nstreams += (streams[k] >> 32) == devs[i];
        fprintf(inf, "{\"device_id\":%ld,\"soc\":\"%s\",\"tasks\":%zu,\"streams\":%zu,\"timeline\":\"%s\"}\n",
                devs[i], hg_soc_name(), tasks, nstreams, g.json + strlen(g.dir) + 1u);
        ok = fclose(inf) == 0;
    }
    if (ok) {
        snprintf(path, sizeof path, "%s/host/data", g.dir);
        ok = make_dirs(path);
    }
    if (ok) {
        snprintf(path, sizeof path, "%s/host/info.json", g.dir);
        FILE *inf = fopen(path, "w");
        ok = inf != NULL;
        if (inf) {
            fprintf(inf, "{\"pid\":%ld,\"timeline_pid\":%d,\"threads\":%zu,\"timeline\":\"%s\"}\n", (long)getpid(),
                    HG_PROF_HOST_PID, nt, g.json + strlen(g.dir) + 1u);
            ok = fclose(inf) == 0;
        }
    }
    free(devs);
    free(streams);
    free(threads);
    return ok;
}

HG_INTERNAL aclError hg_prof_stop(const char *func)
{
    pthread_mutex_lock(&g.mu);
    if (!g.inited || !g.running) {
        pthread_mutex_unlock(&g.mu);
        hg_set_error(func, "profiling is not running (aclprofStart first)");
        return ACL_ERROR_PROF_NOT_RUN;
    }
    atomic_store_explicit(&hg_prof_on, 0, memory_order_relaxed);
    g.running = false;
    summary sum;
    aclError rc = ACL_SUCCESS;
    if (!write_trace(&sum)) {
        hg_set_error(func, "cannot write \"%s\": %s", g.json, strerror(errno));
        rc = ACL_ERROR_WRITE_FILE;
    } else {
        snprintf(g.last, sizeof g.last, "%s", g.json);
        fprintf(stderr,
                "[pyacl_hardgrad] profile: %zu tasks on %zu streams of %zu devices, %zu flows, %zu marks, "
                "%zu memory samples -> %s\n",
                sum.tasks, sum.streams, sum.devices, sum.flows, sum.marks, sum.samples, g.json);
        HG_LOG(HG_LOG_ASCENDCL, HG_LOG_INFO, func, "profile written to %s (%zu tasks)", g.json, sum.tasks);
    }
    /* launches whose tasks have not run are dropped with the session's open state */
    free_tables();
    pthread_mutex_unlock(&g.mu);
    return rc;
}

HG_INTERNAL aclError hg_prof_finalize(const char *func)
{
    pthread_mutex_lock(&g.mu);
    bool inited = g.inited, running = g.running;
    pthread_mutex_unlock(&g.mu);
    if (!inited) {
        hg_set_error(func, "the profiler is not initialised (aclprofInit first)");
        return ACL_ERROR_UNINITIALIZE;
    }
    aclError rc = running ? hg_prof_stop(func) : ACL_SUCCESS;
    pthread_mutex_lock(&g.mu);
    free_recs();
    free_tables();
    free(g.ranges);
    g.ranges = NULL;
    g.rcap = 0;
    g.inited = false;
    g.dir[0] = '\0';
    pthread_mutex_unlock(&g.mu);
    return rc;
}

HG_INTERNAL const char *hg_prof_last_output(void)
{
    return g.last;
}
