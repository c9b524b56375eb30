/*
 * Checking mode: an observer of the runtime's calls that finds misuse of device memory,
 * streams and events (PYACL_HARDGRAD_CHECK=1 at aclInit; see docs/checking.md).
 *
 * Shadow state, all under one mutex:
 *  - allocations (device and aclrtMallocHost), sorted by base, live or freed (a freed one is
 *    kept until an allocation reuses its bytes, so a later use is use-after-free); per device
 *    allocation the byte ranges ever written (a sorted interval set) and the accesses of
 *    queued work not yet known complete (range, stream, task number, read or write, call);
 *  - per stream a clock slot: the number of its newest task and a vector clock of what work
 *    queued on it from now on is ordered after (its own earlier tasks, event waits, and
 *    whatever the host had synchronised when it was queued);
 *  - per event the vector clock of its newest record; the host's vector clock (what the host
 *    knows has completed: stream, device and event synchronisation).
 * A task (stream s, number k) conflicts with an earlier access (stream t, number j, t != s)
 * when one of them writes and the task's clock does not cover j on t: stream-race.  A
 * synchronous host access conflicts with any access the host's clock does not cover:
 * use-before-sync.  The host is one thread of ordering (host threads are not told apart).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rt_internal.h"

HG_INTERNAL atomic_int hg_check_on;
atomic_int hg_chk_launch_blocking;

#define POISON_BYTE 0xFF            /* NaN in float16, bfloat16, float32 and float64; -1 in integers */
#define QUARANTINE_BYTES ((size_t)256 << 20)
#define MAX_RECORDS 4096            /* pending accesses kept per allocation (the oldest go first) */
#define SITE_CAP 512

/* ------------------------------------------------------------------ sites */

typedef struct site {
    const char *func;   /* static string of the runtime, an operator name, or interned */
    uint64_t call;      /* per-process number of the call */
    const char *where;  /* interned "file:line" handed down by the Python layer, or NULL */
} site;

static atomic_uint_fast64_t g_calls;
static _Thread_local struct {
    bool open;
    const char *func;
    uint64_t num;
} tls_call;
static _Thread_local char tls_where[SITE_CAP];

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

/* interned strings (the Python layer's sites; never freed, one per distinct text): an open-addressing
 * set by FNV-1a hash, so a site costs one hash of its text, not a scan of every site seen */
static char **g_interned;
static size_t g_ninterned, g_capinterned;

static uint64_t str_hash(const char *t)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *t; ++t)
        h = (h ^ (unsigned char)*t) * 0x100000001b3ull;
    return h;
}

static bool intern_grow(void)
{
    size_t cap = g_capinterned ? g_capinterned * 2 : 256;
    char **nv = calloc(cap, sizeof *nv);
    if (!nv)
        return false;
    for (size_t i = 0; i < g_capinterned; ++i) {
        if (!g_interned[i])
            continue;
        size_t j = (size_t)str_hash(g_interned[i]) & (cap - 1);
        while (nv[j])
            j = (j + 1) & (cap - 1);
        nv[j] = g_interned[i];
    }
    free(g_interned);
    g_interned = nv;
    g_capinterned = cap;
    return true;
}

static const char *intern(const char *text)
{
    if (!text || !*text)
        return NULL;
    if ((g_ninterned + 1) * 2 > g_capinterned && !intern_grow())
        return NULL;
    size_t j = (size_t)str_hash(text) & (g_capinterned - 1);
    for (; g_interned[j]; j = (j + 1) & (g_capinterned - 1))
        if (strcmp(g_interned[j], text) == 0)
            return g_interned[j];
    char *copy = strdup(text);
    if (!copy)
        return NULL;
    g_interned[j] = copy;
    g_ninterned++;
    return copy;
}

/* The site of the calling thread's current call (g_mu held). */
static site site_now(const char *func)
{
    if (!func)
        func = "?";
    if (!tls_call.open || !tls_call.func || strcmp(tls_call.func, func) != 0) {
        tls_call.open = true;
        tls_call.func = func;
        tls_call.num = atomic_fetch_add(&g_calls, 1) + 1;
    }
    site s = {func, tls_call.num, intern(tls_where)};
    return s;
}

void hg_chk_call_end(void)
{
    tls_call.open = false;
}

ACL_FUNC_VISIBILITY aclError hgCheckSetSite(const char *where)
{
    if (!where) {
        tls_where[0] = '\0';
        return ACL_SUCCESS;
    }
    size_t n = strlen(where);
    if (n >= SITE_CAP)
        n = SITE_CAP - 1;
    memcpy(tls_where, where, n);
    tls_where[n] = '\0';
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY int32_t hgCheckEnabled(void)
{
    return atomic_load_explicit(&hg_check_on, memory_order_relaxed);
}

/* ------------------------------------------------------------------ output */

static FILE *g_log;           /* stderr unless PYACL_HARDGRAD_CHECK_LOG */
static FILE *g_json;          /* JSON lines, PYACL_HARDGRAD_CHECK_JSON */
static bool g_leak_check = true;
static uint64_t g_errors;
static bool g_summary_due;    /* a finding since the last ERROR SUMMARY */
static bool g_atexit;

ACL_FUNC_VISIBILITY uint64_t hgCheckErrorCount(void)
{
    pthread_mutex_lock(&g_mu);
    uint64_t n = g_errors;
    pthread_mutex_unlock(&g_mu);
    return n;
}

typedef struct text {
    char buf[2048];
    size_t n;
} text;

/* An empty text; the buffer is not cleared (a 2 KiB clear on every check would be the hot path's
 * largest cost). */
static inline void text_init(text *t)
{
    t->n = 0;
    t->buf[0] = '\0';
}

static void tput(text *t, const char *fmt, ...) HG_PRINTF(2, 3);
static void tput(text *t, const char *fmt, ...)
{
    if (t->n >= sizeof t->buf - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->buf + t->n, sizeof t->buf - t->n, fmt, ap);
    va_end(ap);
    if (k > 0)
        t->n += (size_t)k < sizeof t->buf - t->n ? (size_t)k : sizeof t->buf - 1 - t->n;
}

static void site_text(text *t, const site *s)
{
    tput(t, "%s (call %" PRIu64 ")", s->func, s->call);
    if (s->where)
        tput(t, " from %s", s->where);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_site(FILE *f, const char *key, const site *s)
{
    fprintf(f, ", ");
    json_string(f, key);
    if (!s || !s->func) {
        fprintf(f, ": null");
        return;
    }
    fprintf(f, ": {\"call\": ");
    json_string(f, s->func);
    fprintf(f, ", \"number\": %" PRIu64 ", \"where\": ", s->call);
    if (s->where)
        json_string(f, s->where);
    else
        fprintf(f, "null");
    fprintf(f, "}");
}

/* One finding: the head line, this call's site, the previous conflicting access (prev, with
 * prev_how: e.g. "writes bytes [0, 64) on stream 3"), where the object was created. */
static void report(const char *kind, const char *msg, const site *at, const site *prev, const char *prev_how,
                   const site *made, const char *made_what)
{
    FILE *f = g_log ? g_log : stderr;
    text t;
    text_init(&t);
    tput(&t, "========= %s: %s\n", kind, msg);
    if (at) {
        tput(&t, "=========     at ");
        site_text(&t, at);
        tput(&t, "\n");
    }
    if (prev) {
        tput(&t, "=========     previous access: ");
        site_text(&t, prev);
        if (prev_how)
            tput(&t, ", %s", prev_how);
        tput(&t, "\n");
    }
    if (made && made->func) {
        tput(&t, "=========     %s created by ", made_what ? made_what : "object");
        site_text(&t, made);
        tput(&t, "\n");
    }
    fputs(t.buf, f);
    fflush(f);
    if (g_json) {
        fprintf(g_json, "{\"kind\": ");
        json_string(g_json, kind);
        fprintf(g_json, ", \"message\": ");
        json_string(g_json, msg);
        json_site(g_json, "site", at);
        json_site(g_json, "previous", prev);
        fprintf(g_json, ", \"previous_access\": ");
        if (prev_how)
            json_string(g_json, prev_how);
        else
            fprintf(g_json, "null");
        json_site(g_json, "created", made);
        fprintf(g_json, "}\n");
        fflush(g_json);
    }
    g_errors++;
    g_summary_due = true;
}

static void print_summary(void)
{
    FILE *f = g_log ? g_log : stderr;
    fprintf(f, "========= ERROR SUMMARY: %" PRIu64 " error(s)\n", g_errors);
    fflush(f);
    g_summary_due = false;
}

/* ------------------------------------------------------------------ vector clocks */

typedef struct cstream {
    hg_stream *s;          /* NULL: free slot */
    int device;
    int32_t id;
    bool is_default;
    bool leak_reported;
    uint64_t seq;          /* number of its newest task */
    uint64_t *vc;          /* g_cap entries */
    site made;
} cstream;

typedef struct cevent {
    hg_event *ev;
    int device;
    bool leak_reported;
    uint64_t *vc;
    site made;
} cevent;

static cstream *g_st;
static uint32_t g_nst, g_cap;   /* slots used, vector length */
static uint64_t *g_host;
static cevent *g_ev;
static size_t g_nev, g_capev;

/* aclrtValueWrite / aclrtValueWait are synchronisation through a memory word, not data: a write
 * publishes its stream's clock at the word (as an event record), a wait takes the clock of the
 * newest write queued to that word (as an event wait); neither is a racing access. */
#define VALUE_WORDS 64
typedef struct value_word {
    uintptr_t addr;
    uint64_t *vc;
} value_word;
static value_word g_words[VALUE_WORDS];
static size_t g_nwords, g_words_next;

static void vc_join(uint64_t *dst, const uint64_t *src)
{
    for (uint32_t i = 0; i < g_cap; ++i)
        if (src[i] > dst[i])
            dst[i] = src[i];
}

static bool vc_grow(uint64_t **v, uint32_t old, uint32_t cap)
{
    uint64_t *nv = realloc(*v, cap * sizeof *nv);
    if (!nv)
        return false;
    memset(nv + old, 0, (cap - old) * sizeof *nv);
    *v = nv;
    return true;
}

/* Make room for one more stream slot in every vector (g_mu held). */
static bool grow_slots(void)
{
    uint32_t cap = g_cap ? g_cap * 2 : 16;
    cstream *ns = realloc(g_st, cap * sizeof *ns);
    if (!ns)
        return false;
    g_st = ns;
    memset(g_st + g_cap, 0, (cap - g_cap) * sizeof *g_st);
    bool ok = vc_grow(&g_host, g_cap, cap);
    for (uint32_t i = 0; ok && i < g_nst; ++i)
        if (g_st[i].s)
            ok = vc_grow(&g_st[i].vc, g_cap, cap);
    for (size_t i = 0; ok && i < g_nev; ++i)
        ok = vc_grow(&g_ev[i].vc, g_cap, cap);
    for (size_t i = 0; ok && i < g_nwords; ++i)
        if (g_words[i].vc)
            ok = vc_grow(&g_words[i].vc, g_cap, cap);
    if (ok)
        g_cap = cap;
    return ok;
}

static int stream_slot(hg_stream *s, bool create)
{
    for (uint32_t i = 0; i < g_nst; ++i)
        if (g_st[i].s == s)
            return (int)i;
    if (!create)
        return -1;
    uint32_t slot = g_nst;
    for (uint32_t i = 0; i < g_nst; ++i)
        if (!g_st[i].s) {
            slot = i;
            break;
        }
    if (slot == g_nst && g_nst == g_cap && !grow_slots())
        return -1;
    cstream *c = &g_st[slot];
    uint64_t *vc = calloc(g_cap, sizeof *vc);
    if (!vc)
        return -1;
    memset(c, 0, sizeof *c);
    c->s = s;
    c->vc = vc;
    c->device = s->device;
    c->id = s->id;
    c->is_default = s->is_default;
    if (slot == g_nst)
        g_nst++;
    return (int)slot;
}

static void stream_name(char *out, size_t cap, int slot)
{
    if (slot < 0 || (uint32_t)slot >= g_nst) {
        snprintf(out, cap, "a destroyed stream");
        return;
    }
    const cstream *c = &g_st[slot];
    if (c->is_default)
        snprintf(out, cap, "the default stream of device %d", c->device);
    else
        snprintf(out, cap, "stream %d", (int)c->id);
}

static cevent *find_event(hg_event *ev)
{
    for (size_t i = 0; i < g_nev; ++i)
        if (g_ev[i].ev == ev)
            return &g_ev[i];
    return NULL;
}

/* ------------------------------------------------------------------ allocations */

typedef struct record {
    uintptr_t lo, hi;      /* offsets in the block */
    uint32_t slot;
    uint64_t seq;
    bool write;
    site at;
} record;

typedef struct cblock {
    uintptr_t base;
    size_t size;
    int device;
    bool host;             /* aclrtMallocHost */
    bool freed;
    bool reset;            /* its device was reset after it was made (CANN releases it then) */
    bool leak_reported;
    site made, gone;       /* gone: the free, or the reset that took it */
    uintptr_t *wr;         /* written intervals, pairs of offsets [lo, hi), sorted, disjoint */
    size_t nwr, capwr;
    record *rec;
    size_t nrec, caprec;
} cblock;

static cblock **g_blk;
static size_t g_nblk, g_capblk;
static size_t g_nreset;     /* handles of streams a device reset took (see below) */

/* quarantine of freed device blocks: kept (poisoned) so their addresses are not reused at once */
typedef struct qitem {
    void *p;
    size_t size;
} qitem;
static qitem *g_q;
static size_t g_nq, g_capq, g_qhead, g_qbytes;

static size_t blk_upper(uintptr_t a)
{
    size_t lo = 0, hi = g_nblk;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g_blk[mid]->base <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The block (live or freed) holding the byte at a, or NULL. */
static cblock *blk_holding(uintptr_t a)
{
    size_t i = blk_upper(a);
    if (i == 0)
        return NULL;
    cblock *b = g_blk[i - 1];
    return a - b->base < b->size ? b : NULL;
}

static void blk_free(cblock *b)
{
    free(b->wr);
    free(b->rec);
    free(b);
}

static void blk_remove_at(size_t i)
{
    blk_free(g_blk[i]);
    memmove(&g_blk[i], &g_blk[i + 1], (g_nblk - i - 1) * sizeof *g_blk);
    g_nblk--;
}

/* Forget the freed blocks in [a, a + n) (g_mu held): their bytes go back to the C library, which
 * may hand them to anything (a numpy array, say), so a later access there is no use-after-free. */
static void forget_freed(uintptr_t a, size_t n)
{
    for (size_t i = blk_upper(a + n - 1); i-- > 0;) {
        cblock *b = g_blk[i];
        if (b->base + b->size <= a)
            break;
        if (b->freed)
            blk_remove_at(i);
    }
}

/* Mark [lo, hi) written (offsets). */
static void wr_add(cblock *b, uintptr_t lo, uintptr_t hi)
{
    if (lo >= hi)
        return;
    /* merge every interval touching [lo, hi) into it */
    size_t n = b->nwr, out = 0;
    uintptr_t *v = b->wr;
    bool placed = false;
    uintptr_t *nv = malloc((n + 1) * 2 * sizeof *nv);
    if (!nv)
        return;
    for (size_t i = 0; i < n; ++i) {
        uintptr_t a = v[2 * i], z = v[2 * i + 1];
        if (z < lo) {
            nv[2 * out] = a;
            nv[2 * out + 1] = z;
            out++;
        } else if (a > hi) {
            if (!placed) {
                nv[2 * out] = lo;
                nv[2 * out + 1] = hi;
                out++;
                placed = true;
            }
            nv[2 * out] = a;
            nv[2 * out + 1] = z;
            out++;
        } else {
            if (a < lo)
                lo = a;
            if (z > hi)
                hi = z;
        }
    }
    if (!placed) {
        nv[2 * out] = lo;
        nv[2 * out + 1] = hi;
        out++;
    }
    free(b->wr);
    b->wr = nv;
    b->nwr = out;
    b->capwr = n + 1;
}

/* How much of [lo, hi) was ever written: 0 none, 1 part, 2 all. */
static int wr_cover(const cblock *b, uintptr_t lo, uintptr_t hi)
{
    uintptr_t covered = 0;
    for (size_t i = 0; i < b->nwr; ++i) {
        uintptr_t a = b->wr[2 * i] > lo ? b->wr[2 * i] : lo;
        uintptr_t z = b->wr[2 * i + 1] < hi ? b->wr[2 * i + 1] : hi;
        if (a < z)
            covered += z - a;
    }
    return covered == 0 ? 0 : covered >= hi - lo ? 2 : 1;
}

/* Forget the accesses the host knows complete. */
static void prune(cblock *b)
{
    size_t out = 0;
    for (size_t i = 0; i < b->nrec; ++i) {
        const record *r = &b->rec[i];
        if (r->slot < g_cap && g_host[r->slot] >= r->seq)
            continue;
        b->rec[out++] = *r;
    }
    b->nrec = out;
}

static void add_record(cblock *b, const record *r)
{
    /* a newer access of the same stream covering an older one stands for it: a write for any,
     * a read for a read (every later check against the older one also finds the newer one) */
    size_t out = 0;
    for (size_t i = 0; i < b->nrec; ++i) {
        const record *o = &b->rec[i];
        bool covered = o->slot == r->slot && o->lo >= r->lo && o->hi <= r->hi && (r->write || !o->write);
        if (!covered)
            b->rec[out++] = *o;
    }
    b->nrec = out;
    if (b->nrec == MAX_RECORDS) {
        memmove(&b->rec[0], &b->rec[1], (b->nrec - 1) * sizeof *b->rec);
        b->nrec--;
    }
    if (b->nrec == b->caprec) {
        size_t cap = b->caprec ? b->caprec * 2 : 8;
        record *nv = realloc(b->rec, cap * sizeof *nv);
        if (!nv)
            return;
        b->rec = nv;
        b->caprec = cap;
    }
    b->rec[b->nrec++] = *r;
}

static const char *mem_kind(const cblock *b)
{
    return b->host ? "host allocation" : "device allocation";
}

/* "<what> (<n> bytes at offset <off> of device allocation 0x... of <size> bytes, device d)" */
static void range_text(text *t, const char *what, const cblock *b, uintptr_t a, size_t n)
{
    if (what)
        tput(t, "%s (", what);
    tput(t, "%zu bytes at offset %" PRIdPTR " of %s %p of %zu bytes", n, (intptr_t)(a - b->base), mem_kind(b),
         (void *)b->base, b->size);
    if (!b->host)
        tput(t, ", device %d", b->device);
    if (what)
        tput(t, ")");
}

static void prev_text(char *out, size_t cap, const record *r, const cblock *b)
{
    char sn[64];
    stream_name(sn, sizeof sn, (int)r->slot);
    snprintf(out, cap, "%s bytes [%" PRIuPTR ", %" PRIuPTR ") of %p on %s", r->write ? "writes" : "reads", r->lo,
             r->hi, (void *)b->base, sn);
}

/* ------------------------------------------------------------------ tensor-base objects */

/* Live aclTensor, aclScalar, lists and executors: an open-addressing set keyed by address (linear
 * probing, tombstones), so a creation or destruction costs O(1) while checking. */
typedef struct cobj {
    const void *p;         /* NULL: empty; OBJ_TOMB: deleted */
    hg_obj_kind kind;
    const char *what;
    site made;
} cobj;
#define OBJ_TOMB ((const void *)1)
static cobj *g_obj;
static size_t g_objcap, g_nobj, g_objused; /* slots, live entries, live + tombstones */

static size_t obj_hash(const void *p, size_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 17) & (cap - 1);
}

static bool obj_rehash(size_t cap)
{
    cobj *nv = calloc(cap, sizeof *nv);
    if (!nv)
        return false;
    for (size_t i = 0; i < g_objcap; ++i) {
        const cobj *o = &g_obj[i];
        if (!o->p || o->p == OBJ_TOMB)
            continue;
        size_t j = obj_hash(o->p, cap);
        while (nv[j].p)
            j = (j + 1) & (cap - 1);
        nv[j] = *o;
    }
    free(g_obj);
    g_obj = nv;
    g_objcap = cap;
    g_objused = g_nobj;
    return true;
}

static cobj *obj_find(const void *p)
{
    if (!g_objcap)
        return NULL;
    for (size_t j = obj_hash(p, g_objcap);; j = (j + 1) & (g_objcap - 1)) {
        if (!g_obj[j].p)
            return NULL;
        if (g_obj[j].p == p)
            return &g_obj[j];
    }
}

static const char *const k_obj_names[HG_OBJ_NKINDS] = {
    "aclTensor", "aclScalar", "aclIntArray", "aclFloatArray", "aclBoolArray", "aclTensorList", "aclScalarList",
    "aclOpExecutor"};
static const char *const k_obj_destroy[HG_OBJ_NKINDS] = {
    "aclDestroyTensor", "aclDestroyScalar", "aclDestroyIntArray", "aclDestroyFloatArray", "aclDestroyBoolArray",
    "aclDestroyTensorList", "aclDestroyScalarList", "aclDestroyAclOpExecutor"};

HG_INTERNAL void hg_check_object(hg_obj_kind kind, const void *p, int live, const char *func, const char *what)
{
    if (!p || p == OBJ_TOMB || (unsigned)kind >= HG_OBJ_NKINDS)
        return;
    pthread_mutex_lock(&g_mu);
    cobj *o = obj_find(p);
    if (!live) {
        if (o && o->kind == kind) {
            o->p = OBJ_TOMB;
            g_nobj--;
        }
    } else {
        if (o) {                /* an address reused without its destruction told: replace */
            o->p = OBJ_TOMB;
            g_nobj--;
        }
        if ((g_objused + 1) * 2 > g_objcap && !obj_rehash(g_objcap ? (g_nobj * 4 > g_objcap ? g_objcap * 2 : g_objcap) : 256)) {
            pthread_mutex_unlock(&g_mu);
            return;
        }
        size_t j = obj_hash(p, g_objcap);
        while (g_obj[j].p && g_obj[j].p != OBJ_TOMB)
            j = (j + 1) & (g_objcap - 1);
        if (!g_obj[j].p)
            g_objused++;
        if (kind == HG_OBJ_EXECUTOR && what) {  /* made by the operator's phase 1 */
            char phase1[128];
            snprintf(phase1, sizeof phase1, "%sGetWorkspaceSize", what);
            const char *name = intern(phase1);
            if (name)
                func = name;
        }
        g_obj[j] = (cobj){.p = p, .kind = kind, .what = what, .made = site_now(func)};
        g_nobj++;
    }
    pthread_mutex_unlock(&g_mu);
}

/* What a leaked object is, in a few words (it was never destroyed, so it can still be read). */
static void obj_describe(char *out, size_t cap, const cobj *o)
{
    if (o->kind == HG_OBJ_TENSOR) {
        const struct aclTensor *t = o->p;
        size_t n = (size_t)snprintf(out, cap, "aclTensor %p (", o->p);
        for (uint64_t d = 0; d < t->ndim && n < cap; ++d)
            n += (size_t)snprintf(out + n, cap - n, "%s%" PRId64, d ? "x" : "shape ", t->shape[d]);
        if (n < cap)
            snprintf(out + n, cap - n, "%s%s over %p)", t->ndim ? ", " : "", o->what ? o->what : "?", t->data);
    } else if (o->kind == HG_OBJ_EXECUTOR && o->what) {
        snprintf(out, cap, "aclOpExecutor %p of %s (its phase 2 never ran)", o->p, o->what);
    } else {
        snprintf(out, cap, "%s %p", k_obj_names[o->kind], o->p);
    }
}

static void report_object_leaks(const char *when)
{
    char desc[256], msg[512];
    for (size_t i = 0; i < g_objcap; ++i) {
        cobj *o = &g_obj[i];
        if (!o->p || o->p == OBJ_TOMB)
            continue;
        obj_describe(desc, sizeof desc, o);
        snprintf(msg, sizeof msg, "%s was never destroyed (%s) %s", desc, k_obj_destroy[o->kind], when);
        report("leak", msg, NULL, NULL, NULL, &o->made, k_obj_names[o->kind]);
        o->p = OBJ_TOMB;   /* reported once */
        g_nobj--;
    }
}

/* ------------------------------------------------------------------ settings */

static void close_outputs(void)
{
    if (g_log && g_log != stderr)
        fclose(g_log);
    if (g_json)
        fclose(g_json);
    g_log = NULL;
    g_json = NULL;
}

static void report_leaks(int dev, const char *when);

static void at_exit(void)
{
    if (!atomic_load(&hg_check_on))
        return;
    pthread_mutex_lock(&g_mu);
    if (atomic_load(&hg_rt_live))
        report_leaks(-1, "at exit");
    if (g_summary_due)
        print_summary();
    close_outputs();
    pthread_mutex_unlock(&g_mu);
}

void hg_chk_init(void)
{
    const char *v = getenv("ASCEND_LAUNCH_BLOCKING");
    atomic_store(&hg_chk_launch_blocking, v && strcmp(v, "1") == 0);
    v = getenv("PYACL_HARDGRAD_CHECK");
    if (!(v && strcmp(v, "1") == 0) && !atomic_load(&hg_check_on))
        return;
    pthread_mutex_lock(&g_mu);
    if (!g_log) {
        const char *path = getenv("PYACL_HARDGRAD_CHECK_LOG");
        g_log = path && *path ? fopen(path, "a") : NULL;
        if (!g_log)
            g_log = stderr;
    }
    if (!g_json) {
        const char *path = getenv("PYACL_HARDGRAD_CHECK_JSON");
        g_json = path && *path ? fopen(path, "a") : NULL;
    }
    v = getenv("PYACL_HARDGRAD_CHECK_LEAKS");
    g_leak_check = !(v && strcmp(v, "none") == 0);
    if (!g_atexit) {
        g_atexit = true;
        atexit(at_exit);
    }
    pthread_mutex_unlock(&g_mu);
    atomic_store(&hg_check_on, 1);
}

/* ------------------------------------------------------------------ leaks */

static void report_leaks(int dev, const char *when)
{
    if (!g_leak_check)
        return;
    char msg[512];
    for (size_t i = 0; i < g_nblk; ++i) {
        cblock *b = g_blk[i];
        if (b->freed || b->leak_reported || (dev >= 0 && (b->host || b->device != dev)))
            continue;
        b->leak_reported = true;
        if (b->host)
            snprintf(msg, sizeof msg, "host allocation %p of %zu bytes was never freed (aclrtFreeHost) %s",
                     (void *)b->base, b->size, when);
        else
            snprintf(msg, sizeof msg, "device allocation %p of %zu bytes on device %d was never freed (aclrtFree) %s",
                     (void *)b->base, b->size, b->device, when);
        report("leak", msg, NULL, NULL, NULL, &b->made, "allocation");
    }
    for (uint32_t i = 0; i < g_nst; ++i) {
        cstream *c = &g_st[i];
        if (!c->s || c->is_default || c->leak_reported || (dev >= 0 && c->device != dev))
            continue;
        c->leak_reported = true;
        snprintf(msg, sizeof msg, "stream %d of device %d was never destroyed (aclrtDestroyStream) %s", (int)c->id,
                 c->device, when);
        report("leak", msg, NULL, NULL, NULL, &c->made, "stream");
    }
    for (size_t i = 0; i < g_nev; ++i) {
        cevent *e = &g_ev[i];
        if (e->leak_reported || (dev >= 0 && e->device != dev))
            continue;
        e->leak_reported = true;
        snprintf(msg, sizeof msg, "event of device %d was never destroyed (aclrtDestroyEvent) %s", e->device, when);
        report("leak", msg, NULL, NULL, NULL, &e->made, "event");
    }
    if (dev < 0)
        report_object_leaks(when);   /* host objects of the tensor base: at aclFinalize and exit */
}

void hg_chk_device_closed(int dev, const char *func)
{
    pthread_mutex_lock(&g_mu);
    char when[64];
    snprintf(when, sizeof when, "when device %d was released", dev);
    report_leaks(dev, when);
    site at = site_now(func);
    for (size_t i = 0; i < g_nblk; ++i) {
        cblock *b = g_blk[i];
        if (!b->freed && !b->host && b->device == dev && !b->reset) {
            b->reset = true;
            b->gone = at;
        }
    }
    pthread_mutex_unlock(&g_mu);
}

/* Report a use of block b after the reset of its device (g_mu held). */
static void report_reset_use(const site *at, const cblock *b, const char *what_done)
{
    char msg[512];
    snprintf(msg, sizeof msg, "%s %s device allocation %p of %zu bytes, which went with device %d when it was "
             "reset (%s); free device memory before resetting its device", at->func, what_done, (void *)b->base,
             b->size, b->device, b->gone.func);
    report("use-after-reset", msg, at, &b->gone, "released it", &b->made, "allocation");
}

void hg_chk_finalize_begin(void)
{
    pthread_mutex_lock(&g_mu);
    report_leaks(-1, "at aclFinalize");
    pthread_mutex_unlock(&g_mu);
}

void hg_chk_finalize_end(void)
{
    pthread_mutex_lock(&g_mu);
    print_summary();
    for (size_t i = 0; i < g_nblk; ++i)
        blk_free(g_blk[i]);
    g_nblk = 0;
    for (size_t i = 0; i < g_nq; ++i)
        free(g_q[(g_qhead + i) % g_capq].p);
    g_nq = g_qhead = g_qbytes = 0;
    for (uint32_t i = 0; i < g_nst; ++i)
        free(g_st[i].vc);
    memset(g_st, 0, g_cap * sizeof *g_st);
    g_nst = 0;
    if (g_host)
        memset(g_host, 0, g_cap * sizeof *g_host);
    for (size_t i = 0; i < g_nev; ++i)
        free(g_ev[i].vc);
    g_nev = 0;
    g_nreset = 0;
    for (size_t i = 0; i < g_nwords; ++i) {
        free(g_words[i].vc);
        g_words[i].vc = NULL;
    }
    g_nwords = g_words_next = 0;
    pthread_mutex_unlock(&g_mu);
    tls_call.open = false;
}

/* ------------------------------------------------------------------ memory hooks */

void hg_chk_alloc(const char *func, void *p, size_t size, int device, bool host)
{
    memset(p, POISON_BYTE, size);
    uintptr_t a = (uintptr_t)p;
    pthread_mutex_lock(&g_mu);
    site at = site_now(func);
    forget_freed(a, size);   /* freed blocks whose bytes this one reuses */
    cblock *b = calloc(1, sizeof *b);
    if (b && g_nblk == g_capblk) {
        size_t cap = g_capblk ? g_capblk * 2 : 64;
        cblock **nv = realloc(g_blk, cap * sizeof *nv);
        if (nv) {
            g_blk = nv;
            g_capblk = cap;
        }
    }
    if (b && g_nblk < g_capblk) {
        b->base = a;
        b->size = size;
        b->device = device;
        b->host = host;
        b->made = at;
        size_t i = blk_upper(a);
        memmove(&g_blk[i + 1], &g_blk[i], (g_nblk - i) * sizeof *g_blk);
        g_blk[i] = b;
        g_nblk++;
    } else {
        free(b);
    }
    pthread_mutex_unlock(&g_mu);
    hg_chk_call_end();
}

void hg_chk_free(const char *func, void *p, bool host)
{
    uintptr_t a = (uintptr_t)p;
    char msg[512];
    pthread_mutex_lock(&g_mu);
    site at = site_now(func);
    cblock *b = blk_holding(a);
    const char *right = host ? "aclrtMallocHost" : "aclrtMalloc";
    if (!b) {
        snprintf(msg, sizeof msg, "%s of %p, which is not in any allocation of %s", func, p, right);
        report("invalid-free", msg, &at, NULL, NULL, NULL, NULL);
    } else if (b->freed) {
        if (b->base == a) {
            snprintf(msg, sizeof msg, "%s of %s %p of %zu bytes, already freed", func, mem_kind(b), p, b->size);
            report("double-free", msg, &at, &b->gone, "freed it", &b->made, "allocation");
        } else {
            snprintf(msg, sizeof msg, "%s of %p, offset %" PRIdPTR " inside the freed %s %p", func, p,
                     (intptr_t)(a - b->base), mem_kind(b), (void *)b->base);
            report("invalid-free", msg, &at, &b->gone, "freed it", &b->made, "allocation");
        }
    } else if (b->base != a) {
        snprintf(msg, sizeof msg, "%s of %p, offset %" PRIdPTR " inside %s %p of %zu bytes (not its start)", func, p,
                 (intptr_t)(a - b->base), mem_kind(b), (void *)b->base, b->size);
        report("invalid-free", msg, &at, NULL, NULL, &b->made, "allocation");
    } else if (b->host != host) {
        snprintf(msg, sizeof msg, "%s of %s %p, which was made by %s (wrong free function)", func, mem_kind(b), p,
                 b->host ? "aclrtMallocHost" : "aclrtMalloc");
        report("invalid-free", msg, &at, NULL, NULL, &b->made, "allocation");
    } else {
        prune(b);
        if (b->reset) {
            report_reset_use(&at, b, "frees");   /* what was queued on it went with the device too */
        } else if (b->nrec > 0) {
            const record *r = &b->rec[b->nrec - 1];
            char how[256];
            prev_text(how, sizeof how, r, b);
            snprintf(msg, sizeof msg, "%s of %s %p of %zu bytes while %zu queued access(es) not known complete use it",
                     func, mem_kind(b), p, b->size, b->nrec);
            report("free-while-in-use", msg, &at, &r->at, how, &b->made, "allocation");
        }
        b->freed = true;
        b->reset = false;
        b->gone = at;
        b->nrec = 0;
        b->nwr = 0;
    }
    pthread_mutex_unlock(&g_mu);
    hg_chk_call_end();
}

bool hg_chk_keep_freed(void *p, size_t size)
{
    memset(p, POISON_BYTE, size);
    pthread_mutex_lock(&g_mu);
    if (g_nq == g_capq) {
        size_t cap = g_capq ? g_capq * 2 : 64;
        qitem *nv = malloc(cap * sizeof *nv);
        if (!nv) {
            forget_freed((uintptr_t)p, size);
            pthread_mutex_unlock(&g_mu);
            return false;
        }
        for (size_t i = 0; i < g_nq; ++i)
            nv[i] = g_q[(g_qhead + i) % g_capq];
        free(g_q);
        g_q = nv;
        g_capq = cap;
        g_qhead = 0;
    }
    g_q[(g_qhead + g_nq) % g_capq] = (qitem){p, size};
    g_nq++;
    g_qbytes += size;
    while (g_qbytes > QUARANTINE_BYTES && g_nq > 1) {
        qitem *q = &g_q[g_qhead];
        forget_freed((uintptr_t)q->p, q->size);
        free(q->p);
        g_qbytes -= q->size;
        g_qhead = (g_qhead + 1) % g_capq;
        g_nq--;
    }
    pthread_mutex_unlock(&g_mu);
    return true;
}

/* Out-of-bounds or use-after-free of [a, a + n) (g_mu held); the block when in bounds of a live
 * device allocation. */
static cblock *check_range(const site *at, const char *what, uintptr_t anchor, uintptr_t lo, uintptr_t hi,
                           bool report_bounds)
{
    cblock *b = blk_holding(anchor);
    if (!b)
        return NULL;
    text t;
    text_init(&t);
    if (b->freed) {
        if (report_bounds) {
            tput(&t, "%s touches ", at->func);
            range_text(&t, what, b, lo, hi - lo);
            tput(&t, ", which was freed");
            report("use-after-free", t.buf, at, &b->gone, "freed it", &b->made, "allocation");
        }
        return NULL;
    }
    if (b->reset) {
        if (report_bounds)
            report_reset_use(at, b, "touches");
        return NULL;
    }
    if (lo < b->base || hi > b->base + b->size) {
        if (report_bounds) {
            tput(&t, "%s: %s reaches bytes [%" PRIdPTR ", %" PRIdPTR ") of %s %p, which has %zu bytes", at->func,
                 what ? what : "range", (intptr_t)(lo - b->base), (intptr_t)(hi - b->base), mem_kind(b),
                 (void *)b->base, b->size);
            report("out-of-bounds", t.buf, at, NULL, NULL, &b->made, "allocation");
        }
        return NULL;
    }
    return b->host ? NULL : b;
}

void hg_chk_bounds(const char *func, const char *what, const void *p, size_t n)
{
    if (!p || n == 0)
        return;
    pthread_mutex_lock(&g_mu);
    site at = site_now(func);
    uintptr_t a = (uintptr_t)p;
    check_range(&at, what, a, a, a + n, true);
    pthread_mutex_unlock(&g_mu);
}

static _Thread_local hg_stream *tls_task_stream;
static _Thread_local uint64_t tls_task_seq;

void hg_chk_task_begin(hg_stream *s, uint64_t seq)
{
    tls_task_stream = s;
    tls_task_seq = seq;
}

void hg_chk_task_current(uint64_t *seq)
{
    *seq = tls_task_stream ? tls_task_seq : 0;
}

/* A host access's conflicts with queued work (g_mu held).  Made from inside a host function or
 * callback, it is ordered as that stream task: after its stream's earlier work and whatever the
 * stream had waited for. */
static void host_access(const site *at, const char *what, uintptr_t a, size_t n, bool write, bool uninit)
{
    cblock *b = check_range(at, what, a, a, a + n, false);
    if (!b)
        return;
    uintptr_t lo = a - b->base, hi = lo + n;
    int task_slot = tls_task_stream ? stream_slot(tls_task_stream, false) : -1;
    prune(b);
    for (size_t i = b->nrec; i-- > 0;) {
        const record *r = &b->rec[i];
        if (r->hi <= lo || hi <= r->lo || !(r->write || write))
            continue;
        if (task_slot >= 0 && (r->slot == (uint32_t)task_slot || g_st[task_slot].vc[r->slot] >= r->seq))
            continue;
        char how[256], sn[64];
        prev_text(how, sizeof how, r, b);
        stream_name(sn, sizeof sn, (int)r->slot);
        text t;
        text_init(&t);
        tput(&t, "%s %s ", at->func, write ? "writes" : "reads");
        range_text(&t, what, b, a, n);
        tput(&t, " that %s (call %" PRIu64 ") queued on %s still %s; synchronize the stream or an event first",
             r->at.func, r->at.call, sn, r->write ? "writes" : "reads");
        report("use-before-sync", t.buf, at, &r->at, how, &b->made, "allocation");
        break;
    }
    if (uninit && !write && wr_cover(b, lo, hi) < 2) {
        text t;
        text_init(&t);
        tput(&t, "%s reads ", at->func);
        range_text(&t, what, b, a, n);
        tput(&t, ", %s never written", wr_cover(b, lo, hi) == 0 ? "which was" : "part of which was");
        report("uninitialized-read", t.buf, at, NULL, NULL, &b->made, "allocation");
    }
    if (write)
        wr_add(b, lo, hi);
}

void hg_chk_host_access(const char *func, const void *p, size_t n, bool write, bool uninit)
{
    if (!p || n == 0)
        return;
    pthread_mutex_lock(&g_mu);
    site at = site_now(func);
    host_access(&at, write ? "destination" : "source", (uintptr_t)p, n, write, uninit);
    pthread_mutex_unlock(&g_mu);
}

/* A task's access: bounds (when asked), races with other streams' queued work, reads of bytes
 * never written (uninit), then recorded (g_mu held). */
static void task_access(const site *at, int slot, uint64_t seq, const hg_access *acc, bool report_bounds,
                        bool uninit)
{
    if (acc->hi <= acc->lo)
        return;
    cblock *b = check_range(at, acc->what, (uintptr_t)(acc->anchor ? acc->anchor : (const void *)acc->lo), acc->lo,
                            acc->hi, report_bounds);
    if (!b)
        return;
    const uint64_t *vc = g_st[slot].vc;
    uintptr_t lo = acc->lo - b->base, hi = acc->hi - b->base;
    prune(b);
    for (size_t i = b->nrec; i-- > 0;) {
        const record *r = &b->rec[i];
        if (r->hi <= lo || hi <= r->lo || !(r->write || acc->write) || r->slot == (uint32_t)slot)
            continue;
        if (r->slot < g_cap && vc[r->slot] >= r->seq)
            continue; /* ordered: an event wait or a synchronize in between */
        char how[256], sn[64], me[64];
        prev_text(how, sizeof how, r, b);
        stream_name(sn, sizeof sn, (int)r->slot);
        stream_name(me, sizeof me, slot);
        text t;
        text_init(&t);
        tput(&t, "%s on %s %s ", at->func, me, acc->write ? "writes" : "reads");
        range_text(&t, acc->what, b, acc->lo, acc->hi - acc->lo);
        tput(&t, " that %s (call %" PRIu64 ") on %s %s, with no event or synchronize ordering them", r->at.func,
             r->at.call, sn, r->write ? "writes" : "reads");
        report("stream-race", t.buf, at, &r->at, how, &b->made, "allocation");
        break;
    }
    if (uninit && !acc->write) {
        int cover = wr_cover(b, lo, hi);
        /* a strided view's extent has gaps it never reads: only an extent nothing wrote counts */
        if (acc->dense ? cover < 2 : cover == 0) {
            text t;
            text_init(&t);
            tput(&t, "%s reads ", at->func);
            range_text(&t, acc->what, b, acc->lo, acc->hi - acc->lo);
            tput(&t, ", %s never written", cover == 0 ? "which was" : "part of which was");
            report("uninitialized-read", t.buf, at, NULL, NULL, &b->made, "allocation");
        }
    }
    if (acc->write)
        wr_add(b, lo, hi);
    record r = {lo, hi, (uint32_t)slot, seq, acc->write != 0, *at};
    add_record(b, &r);
}

/* ------------------------------------------------------------------ stream and event hooks */


static void value_task(cstream *c, int slot, const hg_task *t)
{
    uintptr_t w = (uintptr_t)t->word;
    value_word *vw = NULL;
    for (size_t i = 0; i < g_nwords; ++i)
        if (g_words[i].addr == w)
            vw = &g_words[i];
    if (t->kind == HG_TASK_VALUE_WRITE) {
        cblock *b = blk_holding(w);
        if (b && !b->freed && w + 8 <= b->base + b->size)
            wr_add(b, w - b->base, w - b->base + 8);
        if (!vw) {
            vw = &g_words[g_nwords < VALUE_WORDS ? g_nwords++ : (g_words_next++ % VALUE_WORDS)];
            free(vw->vc);
            vw->addr = w;
            vw->vc = NULL;
        }
        uint64_t *nv = realloc(vw->vc, g_cap * sizeof *nv);
        if (nv) {
            memcpy(nv, c->vc, g_cap * sizeof *nv);
            vw->vc = nv;
        }
    } else if (vw && vw->vc) {
        vc_join(c->vc, vw->vc);
        c->vc[slot] = t->seq;
    }
}

static _Thread_local hg_access tls_pending[HG_MAX_ACCESSES];
static _Thread_local int tls_npending;

HG_INTERNAL void hg_check_pending(const hg_access *acc, int n)
{
    if (n <= 0 || !acc) {
        tls_npending = 0;
        tls_call.open = false;
        return;
    }
    if (n > HG_MAX_ACCESSES)
        n = HG_MAX_ACCESSES;
    memcpy(tls_pending, acc, (size_t)n * sizeof *acc);
    tls_npending = n;
}

void hg_chk_stream_created(const char *func, hg_stream *s)
{
    pthread_mutex_lock(&g_mu);
    int slot = stream_slot(s, true);
    if (slot >= 0)
        g_st[slot].made = site_now(func);
    pthread_mutex_unlock(&g_mu);
    hg_chk_call_end();
}

void hg_chk_enqueue(hg_stream *s, const hg_task *t, const char *func)
{
    pthread_mutex_lock(&g_mu);
    int slot = stream_slot(s, true);
    if (slot < 0) {
        pthread_mutex_unlock(&g_mu);
        return;
    }
    site at = site_now(func);
    cstream *c = &g_st[slot];
    vc_join(c->vc, g_host);          /* what the host knows done is done before this task */
    c->seq = t->seq;
    c->vc[slot] = t->seq;
    switch (t->kind) {
    case HG_TASK_MEMCPY: {
        uintptr_t d = (uintptr_t)t->dst, sr = (uintptr_t)t->src;
        cblock *db = blk_holding(d);
        bool to_host = !db || db->host;
        hg_access rd = {t->src, sr, sr + t->n, 0, 1, "source"};
        hg_access wr = {t->dst, d, d + t->n, 1, 1, "destination"};
        task_access(&at, slot, t->seq, &rd, false, to_host);
        task_access(&at, slot, t->seq, &wr, false, false);
        break;
    }
    case HG_TASK_MEMSET: {
        uintptr_t d = (uintptr_t)t->dst;
        hg_access wr = {t->dst, d, d + t->n, 1, 1, "devPtr"};
        task_access(&at, slot, t->seq, &wr, false, false);
        break;
    }
    case HG_TASK_VALUE_WRITE:
    case HG_TASK_VALUE_WAIT:
        value_task(c, slot, t);
        break;
    case HG_TASK_RECORD: {
        cevent *e = find_event(t->ev);
        if (e)
            memcpy(e->vc, c->vc, g_cap * sizeof *e->vc);
        break;
    }
    case HG_TASK_USER:
        for (int i = 0; i < tls_npending; ++i)
            task_access(&at, slot, t->seq, &tls_pending[i], true, true);
        break;
    default:
        break;
    }
    tls_npending = 0;
    pthread_mutex_unlock(&g_mu);
}

void hg_chk_stream_synced(hg_stream *s, uint64_t seq)
{
    pthread_mutex_lock(&g_mu);
    int slot = stream_slot(s, false);
    if (slot >= 0) {
        /* task seq is done; when it was the newest, so is everything it was ordered after */
        if (seq >= g_st[slot].seq)
            vc_join(g_host, g_st[slot].vc);
        if (g_host[slot] < seq)
            g_host[slot] = seq;
    }
    pthread_mutex_unlock(&g_mu);
}

void hg_chk_stream_destroy(const char *func, hg_stream *s)
{
    pthread_mutex_lock(&g_mu);
    site at = site_now(func);
    int slot = stream_slot(s, false);
    if (slot >= 0 && g_st[slot].seq > g_host[slot]) {
        char msg[384], sn[64];
        stream_name(sn, sizeof sn, slot);
        snprintf(msg, sizeof msg, "%s of %s with %" PRIu64 " queued task(s) nobody synchronized", func, sn,
                 g_st[slot].seq - g_host[slot]);
        report("destroy-pending", msg, &at, NULL, NULL, &g_st[slot].made, "stream");
    }
    if (slot >= 0)
        g_st[slot].leak_reported = true; /* destroyed: not a leak */
    pthread_mutex_unlock(&g_mu);
}

void hg_chk_stream_gone(hg_stream *s)
{
    pthread_mutex_lock(&g_mu);
    int slot = stream_slot(s, false);
    if (slot >= 0) {
        /* drained: everything it ran is done; forget its accesses and free the slot */
        g_host[slot] = UINT64_MAX;
        for (size_t i = 0; i < g_nblk; ++i)
            prune(g_blk[i]);
        g_host[slot] = 0;
        for (uint32_t i = 0; i < g_nst; ++i)
            if (g_st[i].s)
                g_st[i].vc[slot] = 0;
        for (size_t i = 0; i < g_nev; ++i)
            g_ev[i].vc[slot] = 0;
        for (size_t i = 0; i < g_nwords; ++i)
            if (g_words[i].vc)
                g_words[i].vc[slot] = 0;
        free(g_st[slot].vc);
        memset(&g_st[slot], 0, sizeof g_st[slot]);
    }
    pthread_mutex_unlock(&g_mu);
}

void hg_chk_event_created(const char *func, hg_event *ev, int device)
{
    pthread_mutex_lock(&g_mu);
    site at = site_now(func);
    cevent *e = find_event(ev);
    if (!e && g_nev == g_capev) {
        size_t cap = g_capev ? g_capev * 2 : 16;
        cevent *nv = realloc(g_ev, cap * sizeof *nv);
        if (nv) {
            g_ev = nv;
            g_capev = cap;
        }
    }
    if (!e && g_nev < g_capev) {
        e = &g_ev[g_nev];
        memset(e, 0, sizeof *e);
        e->vc = calloc(g_cap ? g_cap : 1, sizeof *e->vc);
        if (e->vc)
            g_nev++;
        else
            e = NULL;
    }
    if (e) {
        e->ev = ev;
        e->device = device;
        e->leak_reported = false;
        e->made = at;
        memset(e->vc, 0, (g_cap ? g_cap : 1) * sizeof *e->vc);
    }
    pthread_mutex_unlock(&g_mu);
    hg_chk_call_end();
}

void hg_chk_event_destroyed(hg_event *ev)
{
    pthread_mutex_lock(&g_mu);
    cevent *e = find_event(ev);
    if (e) {
        free(e->vc);
        *e = g_ev[--g_nev];
    }
    pthread_mutex_unlock(&g_mu);
}

void hg_chk_stream_wait(hg_stream *s, hg_event *ev)
{
    pthread_mutex_lock(&g_mu);
    int slot = stream_slot(s, true);
    cevent *e = find_event(ev);
    if (slot >= 0 && e)
        vc_join(g_st[slot].vc, e->vc);
    pthread_mutex_unlock(&g_mu);
}

void hg_chk_event_synced(hg_event *ev)
{
    pthread_mutex_lock(&g_mu);
    cevent *e = find_event(ev);
    if (e)
        vc_join(g_host, e->vc);
    pthread_mutex_unlock(&g_mu);
}

/* ------------------------------------------------------------------ devices */

typedef struct reset_handle {
    uintptr_t h;
    int dev;
    bool event;            /* an event handle (else a stream's) */
    site gone;
} reset_handle;
static reset_handle *g_reset;
static size_t g_nreset, g_capreset;

void hg_chk_no_device(const char *func, int reset_dev)
{
    char msg[384];
    pthread_mutex_lock(&g_mu);
    site at = site_now(func);
    if (reset_dev >= 0) {
        snprintf(msg, sizeof msg, "%s on a thread whose device %d was reset (aclrtResetDevice) after it was set; "
                 "call aclrtSetDevice again", func, reset_dev);
        report("use-after-reset", msg, &at, NULL, NULL, NULL, NULL);
    } else {
        snprintf(msg, sizeof msg, "%s needs a current device, but none is set on this thread (aclrtSetDevice)", func);
        report("no-current-device", msg, &at, NULL, NULL, NULL, NULL);
    }
    pthread_mutex_unlock(&g_mu);
}

static void note_reset(uintptr_t h, int dev, bool event)
{
    if (g_nreset == g_capreset) {
        size_t cap = g_capreset ? g_capreset * 2 : 16;
        reset_handle *nv = realloc(g_reset, cap * sizeof *nv);
        if (nv) {
            g_reset = nv;
            g_capreset = cap;
        }
    }
    if (g_nreset < g_capreset)
        g_reset[g_nreset++] = (reset_handle){h, dev, event, {NULL, 0, NULL}};
}

void hg_chk_handle_reset(uintptr_t h, int dev)
{
    pthread_mutex_lock(&g_mu);
    note_reset(h, dev, false);
    pthread_mutex_unlock(&g_mu);
}

void hg_chk_event_reset(uintptr_t h, int dev)
{
    pthread_mutex_lock(&g_mu);
    for (size_t i = 0; i < g_nreset; ++i)
        if (g_reset[i].h == h && g_reset[i].event)
            goto done;  /* already noted by an earlier reset */
    note_reset(h, dev, true);
done:
    pthread_mutex_unlock(&g_mu);
}

void hg_chk_stale_event(const char *func, uintptr_t h, bool forget)
{
    pthread_mutex_lock(&g_mu);
    for (size_t i = 0; i < g_nreset; ++i) {
        if (g_reset[i].h != h || !g_reset[i].event)
            continue;
        site at = site_now(func);
        char msg[384];
        snprintf(msg, sizeof msg, "%s on event %p, which belonged to device %d and went with it when the device "
                 "was reset (aclrtResetDevice); destroy events before resetting their device", func, (void *)h,
                 g_reset[i].dev);
        report("use-after-reset", msg, &at, NULL, NULL, NULL, NULL);
        if (forget)
            g_reset[i] = g_reset[--g_nreset];
        break;
    }
    pthread_mutex_unlock(&g_mu);
}

void hg_chk_stale_stream(const char *func, uintptr_t h)
{
    pthread_mutex_lock(&g_mu);
    for (size_t i = 0; i < g_nreset; ++i) {
        if (g_reset[i].h != h || g_reset[i].event)
            continue;
        site at = site_now(func);
        char msg[384];
        snprintf(msg, sizeof msg, "%s on stream handle %p, which went with device %d when it was reset "
                 "(aclrtResetDevice)", func, (void *)h, g_reset[i].dev);
        report("use-after-reset", msg, &at, NULL, NULL, NULL, NULL);
        break;
    }
    pthread_mutex_unlock(&g_mu);
}

/* ------------------------------------------------------------------ findings of the other libraries */

HG_INTERNAL void hg_check_finding(const char *kind, const char *func, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&g_mu);
    site at = site_now(func);
    report(kind, msg, &at, NULL, NULL, NULL, NULL);
    pthread_mutex_unlock(&g_mu);
}
